/* report_internal.h - what report.c's writers share with report_serve.c (the report module's
 * private header: nothing outside sim/report*.c includes it). It includes no header of the
 * report module, so report.c and report_serve.c include it without a circle; its types are
 * report.h's and step.h's. */
#ifndef SIM_REPORT_INTERNAL_H
#define SIM_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "status.h"
#include "step.h"

typedef struct sim_field sim_field; /* report.h */

/* a / b, or 0 when b <= 0: no output prints NaN or inf. */
double sim_report_ratio(double a, double b);

/* A quoted CSV text field followed by a comma: names come from config files and may hold
 * anything. Returns false when out of memory (nothing written). */
bool sim_report_csv_text(FILE *f, const char *v);

/* Fields as JSON keys: a missing value is null, an infinite number "inf" (as vLLM's). */
void sim_report_fields_json(cJSON *o, const sim_field *f, size_t n);

/* The CSV header's keys and a row's values, each after a comma (a missing value is empty), and
 * the line's end. */
void sim_report_fields_csv_header(FILE *f, const sim_field *v, size_t n);
void sim_report_fields_csv(FILE *f, const sim_field *v, size_t n);

/* Prints and frees root; SIM_EINTERNAL when out of memory or the write failed. */
sim_status sim_report_print_json(FILE *f, cJSON *root);

/* The configuration's keys: model, hw, tp, pp, the formats and the quantization method. */
void sim_report_config_json(cJSON *o, const sim_step_cfg *s);

/* "pipeline: 2 stages of 4 GPUs, layers 40/40 ..." when there are stages. */
void sim_report_pp_line(FILE *f, const sim_step_cfg *s);

#endif
