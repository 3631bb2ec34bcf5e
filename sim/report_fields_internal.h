/* report_fields_internal.h - what the serve metrics' field table (report_fields.c) shares with
 * the run result's (report_run_fields.c): an output's list of rows and its rule for a row without
 * a value (the report module's private header: nothing outside sim/report*.c includes it). */
#ifndef SIM_REPORT_FIELDS_INTERNAL_H
#define SIM_REPORT_FIELDS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "report.h"

/* How an output writes a row without a value. */
typedef enum sim_report_miss {
    SIM_REPORT_MISS_OMIT,  /* left out */
    SIM_REPORT_MISS_NULL,  /* null in JSON, empty in CSV */
    SIM_REPORT_MISS_ZERO,  /* 0 */
    SIM_REPORT_MISS_VALUE, /* the value the metric holds anyway (0 when its feature is off) */
} sim_report_miss;

/* One entry of an output's list: a row of its table and what to write without a value. */
typedef struct sim_report_col {
    int row; /* a serve_row or a run_row */
    sim_report_miss miss;
    int lat;             /* serve's F_LATENCY: its LAT_* */
    const char *section; /* the table: a heading before the row */
} sim_report_col;

/* An output's columns, in order; SIM_REPORT_COLS(id, array) is its entry of a table by output. */
typedef struct sim_report_cols {
    const sim_report_col *cols;
    size_t n;
} sim_report_cols;
#define SIM_REPORT_COLS(id, a) [id] = {(a), sizeof(a) / sizeof((a)[0])}

/* A column that leaves out a row without a value (ONE) or writes it as missing (NUL). */
#define SIM_REPORT_NUL(r)                                                                          \
    {                                                                                              \
        .row = (r), .miss = SIM_REPORT_MISS_NULL                                                   \
    }
#define SIM_REPORT_ONE(r)                                                                          \
    {                                                                                              \
        .row = (r), .miss = SIM_REPORT_MISS_OMIT                                                   \
    }

/* The price's label in the serve table and run's: one text for both tables' usd_per_hour rows. */
#define SIM_REPORT_PRICE_LABEL "Cost (US$/hour):"

/* A row's field before its value is read. */
sim_field sim_report_field_of(const char *key, sim_field_kind kind, int decimals);

/* A table's field `f` with its band from b (scaled as the table scales the value; nothing when b
 * has no band of its key). */
void sim_report_band_mark(const sim_unc_band *b, sim_field *f, double scale);

/* JSON and CSV outputs (sweep rows add their own columns): KEY_lo and KEY_hi inserted after each field b has a band of
 * (out has room for SIM_FIELDS_MAX), and, at the end of the JSON's tail and of the CSV, the text
 * field band_basis when b tells what it rests on; returns the new count. Other outputs: n. */
size_t sim_report_band_expand(const sim_unc_band *b, sim_field_out which, sim_field *out,
                              size_t n);

/* Applies an output's rule to a row read with or without a value; false: leave it out. */
bool sim_report_field_keep(bool present, sim_report_miss miss, sim_field *f);

#endif
