/* cli_validate_internal.h - what the validate command's files share (cli_validate_row.c: one
 * row's prediction; cli_validate.c: the rows' summaries; cli_validate_unc.c: the uncertainty
 * table and the bands' coverage).
 * Private to sim/cli_validate*.c. */
#ifndef SIM_CLI_VALIDATE_INTERNAL_H
#define SIM_CLI_VALIDATE_INTERNAL_H

#include "cli_cmd.h"
#include "cli_load.h"
#include "validate.h"

/* The device, model or engine profile a row names (cached across rows). */
const cli_load_entry *cli_validate_row_file(cli_load_cache *c, cli_load_kind kind,
                                            const char *name, sim_err *err, sim_status *st);

/* The engine profile entry that scores end-to-end row r on its device: the version-exact
 * profile its framework column names (sim_engprof_spec_of, sim_engprof_pick), loaded into the
 * cache with the row's model and device; NULL with *st and err set when a file fails. */
const cli_load_entry *cli_validate_row_profile(cli_load_cache *cache, const sim_vrow *r,
                                              sim_status *st, sim_err *err);

/* Whether a row measures quantized weights, activations or KV cache (p: an end-to-end row's
 * precision). */
bool cli_validate_row_quantized(const sim_vrow *r, const sim_prec *p);

/* Predicts row r: an op row on `variant` when given, else on its device; an end-to-end row under
 * draw d when given. */
sim_status cli_validate_predict(const cli_opts *o, cli_load_cache *cache, const sim_vrow *r,
                                const sim_hw *variant, const sim_unc_draw *d, double *pred,
                                sim_prec *prec, sim_err *rerr);

/* The bands: the evidence of every counted row (preds[i], NAN for a row not counted), the table
 * (--uncertainty-out), the coverage of the end-to-end rows by their 80 % bands with leave-one-
 * source-out tables, printed and gated (--min-coverage, ...). */
sim_status cli_validate_bands(const cli_opts *o, cli_load_cache *cache, const sim_vrow *rows,
                              size_t n, const double *preds, FILE *out, sim_err *err);

#endif
