/* html.h - self-contained HTML reports: one file with inline SVG charts (charts.h), a summary
 * table and the command line that produced it. No scripts, no network access, no external fonts
 * or style sheets; readable in a browser and printed (each figure keeps to one page). Written
 * through sim_outfile: the file appears whole or not at all.
 *
 * Example (const sim_run_cfg *cfg, const sim_run_result *r, const char *cmdline, sim_err *err):
 *   return sim_html_run("run.html", cmdline, cfg, r, err); // roofline, step by op, memory, ...
 *
 * sim_html_serve (a serve report, its SLOs and time series), sim_html_sweep (a sweep's points)
 * and sim_html_compare (measured against predicted) are called the same way.
 *
 * `cmdline` is the command as typed ("infersim run --model ..."), shown on the page and as every
 * chart's subtitle. Errors are bad-input ones naming --html (the file cannot be written) or
 * SIM_EINTERNAL (out of memory).
 */
#ifndef SIM_HTML_H
#define SIM_HTML_H

#include "charts.h"
#include "metrics.h"
#include "report.h"
#include "run.h"
#include "series.h"
#include "status.h"

sim_status sim_html_run(const char *path, const char *cmdline, const sim_run_cfg *cfg,
                        const sim_run_result *r, sim_err *err);

/* slo: the --goodput SLOs (zeros: none). series: the run's time series (one engine), or
 * instances: each instance's (several engines: --replicas, --disagg; aligned); either may be
 * NULL. */
sim_status sim_html_serve(const char *path, const char *cmdline, const sim_serve_report *rep,
                          const sim_slo *slo, const sim_series *series,
                          const sim_series_set *instances, sim_err *err);

/* `compare`: the measurement file's metrics against the prediction (measured < 0: not in the
 * file). */
sim_status sim_html_compare(const char *path, const char *cmdline, const char *result_file,
                            const char *const *names, const double *measured,
                            const double *predicted, size_t n, sim_err *err);

sim_status sim_html_sweep(const char *path, const char *cmdline, const sim_chart_sweep *sw,
                          sim_err *err);

/* `capacity`: the search's probes and charts (one per SLO metric); `lines` (n_lines of them) are
 * the summary's label/value pairs as the table writes them (lines[2k] the label, [2k+1] the value). */
sim_status sim_html_capacity(const char *path, const char *cmdline, const sim_chart_capacity *c,
                             const char *const *lines, size_t n_lines, sim_err *err);

/* `plan`: the summary pairs as above, the deployments' charts, and `text` (the report as the table
 * writes it: every device's top deployments, the winner and its launch lines) preformatted. */
sim_status sim_html_plan(const char *path, const char *cmdline, const sim_chart_plan *p,
                         const char *const *lines, size_t n_lines, const char *text, sim_err *err);

#endif
