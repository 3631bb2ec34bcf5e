/* report.c - tables, JSON and CSV. */
#include "report.h"
#include "report_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "pp.h"
#include "strbuf.h"

static const char *const format_names[SIM_FMT_COUNT] = {
    [SIM_FMT_TABLE] = "table", [SIM_FMT_JSON] = "json", [SIM_FMT_CSV] = "csv"};

bool sim_format_parse(const char *s, sim_format *out)
{
    for (int i = 0; i < SIM_FMT_COUNT; i++) {
        if (strcmp(s, format_names[i]) == 0) {
            *out = (sim_format)i;
            return true;
        }
    }
    return false;
}

/* ------------------------------------------------------------------------------------------ */
/* JSON */

static void add_num(cJSON *o, const char *k, double v) { cJSON_AddNumberToObject(o, k, v); }

void sim_report_fields_json(cJSON *o, const sim_field *f, size_t n);

static cJSON *step_json(const sim_step_result *s)
{
    cJSON *o = cJSON_CreateObject();
    sim_field f[SIM_FIELDS_STEP_MAX];
    sim_report_fields_json(o, f, sim_report_step_fields(s, SIM_FIELDS_JSON, f));
    return o;
}

static const char *roofline_bound(const sim_hw *hw, const sim_op *op);

/* One object per present op; with `hw`, also the pure roofline reading of each op. */
static void ops_json(cJSON *arr, const char *phase, const sim_step_result *s, const sim_hw *hw)
{
    for (int i = 0; i < SIM_OP_COUNT; i++) {
        const sim_op *op = &s->graph.ops[i];
        if (!op->present)
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", sim_op_info((sim_op_id)i)->name);
        cJSON_AddStringToObject(o, "phase", phase);
        sim_field f[SIM_FIELDS_STEP_MAX];
        sim_report_fields_json(o, f, sim_report_op_fields(s, i, SIM_FIELDS_JSON, f));
        if (op->fused)
            cJSON_AddBoolToObject(o, "fused_into_allreduce", true);
        if (hw)
            cJSON_AddStringToObject(o, "roofline_bound", roofline_bound(hw, op));
        cJSON_AddItemToArray(arr, o);
    }
}

/* The line under run's price row: what it is made of, or how to give it. */
static void price_table(FILE *f, const sim_price *p, bool known)
{
    if (!known) {
        fprintf(f, "  the device file has no usd_per_gpu_hour; give --usd-per-gpu-hour\n");
        return;
    }
    fprintf(f,
            "  %lld GPU%s at $%.2f per GPU-hour; $%.4f per million output tokens, $%.4f per "
            "million total tokens\n",
            (long long)p->gpus, p->gpus == 1 ? "" : "s", p->usd_per_gpu_hour,
            p->usd_per_million_output_tokens, p->usd_per_million_total_tokens);
}

sim_status sim_report_print_json(FILE *f, cJSON *root)
{
    char *txt = cJSON_Print(root);
    cJSON_Delete(root);
    if (!txt)
        return SIM_EINTERNAL;
    int rc = fprintf(f, "%s\n", txt);
    free(txt);
    return rc < 0 ? SIM_EINTERNAL : SIM_OK;
}

void sim_report_config_json(cJSON *o, const sim_step_cfg *s)
{
    cJSON_AddStringToObject(o, "model", s->model->name);
    cJSON_AddStringToObject(o, "hw", s->hw->name);
    add_num(o, "tp", s->tp);
    if (s->pp > 1)
        add_num(o, "pp", s->pp);
    cJSON_AddStringToObject(o, "weight_dtype", sim_dtype_name(s->prec.weight));
    cJSON_AddStringToObject(o, "act_dtype", sim_dtype_name(s->prec.act));
    cJSON_AddStringToObject(o, "kv_cache_dtype", sim_dtype_name(s->prec.kv));
    add_num(o, "weight_group_size", (double)s->prec.group_size);
    cJSON_AddBoolToObject(o, "weight_zero_point", s->prec.zero_point);
    cJSON_AddStringToObject(o, "quant_method",
                            s->model->quant.present ? s->model->quant.method : "none");
}

static sim_status run_json(FILE *f, const sim_run_cfg *cfg, const sim_run_result *r)
{
    cJSON *o = cJSON_CreateObject();
    sim_report_config_json(o, &cfg->step);
    add_num(o, "batch", (double)cfg->batch);
    add_num(o, "input_len", (double)cfg->input_len);
    add_num(o, "output_len", (double)cfg->output_len);
    add_num(o, "overlap_comm", cfg->step.overlap);
    add_num(o, "ep", cfg->step.ep > 0 ? cfg->step.ep : 1);
    cJSON_AddBoolToObject(o, "dp_attention", cfg->step.dp_attention);
    cJSON *params = cJSON_CreateObject();
    add_num(params, "total", sim_model_params(cfg->step.model));
    add_num(params, "active", sim_model_active_params(cfg->step.model));
    add_num(params, "embedding", sim_model_embedding_params(cfg->step.model));
    cJSON_AddItemToObject(o, "model_params", params);
    sim_field fields[SIM_FIELDS_MAX];
    sim_report_fields_json(o, fields, sim_report_run_fields(cfg, r, SIM_FIELDS_JSON, fields));
    cJSON_AddItemToObject(o, "prefill", step_json(&r->prefill));
    cJSON *dec = step_json(&r->decode);
    add_num(dec, "steps", (double)r->decode_steps);
    cJSON_AddItemToObject(o, "decode", dec);
    cJSON *mem = cJSON_AddObjectToObject(o, "memory");
    sim_report_fields_json(mem, fields,
                           sim_report_run_fields(cfg, r, SIM_FIELDS_JSON_MEMORY, fields));
    sim_report_fields_json(o, fields, sim_report_run_fields(cfg, r, SIM_FIELDS_JSON_TAIL, fields));
    cJSON *ops = cJSON_AddArrayToObject(o, "ops");
    ops_json(ops, "prefill", &r->prefill, NULL);
    if (r->decode_steps > 0)
        ops_json(ops, "decode", &r->decode, NULL);
    return sim_report_print_json(f, o);
}

/* ------------------------------------------------------------------------------------------ */
/* Tables */

/* A field of run's table (report.h's step and op tables, SIM_FIELDS_TABLE): its value, or its
 * heading when `head` (in the width of the value and what follows it). An empty text (a
 * collective without a protocol) is left out with what surrounds it. */
static void table_field(FILE *f, const sim_field *v, bool head)
{
    if (!head && v->kind == SIM_FIELD_TEXT && !v->text[0])
        return;
    fputs(v->before, f);
    if (head) {
        int w = v->width + (int)strlen(v->after);
        fprintf(f, v->kind == SIM_FIELD_TEXT ? "%-*s" : "%*s", w, v->label);
        return;
    }
    if (v->label[0] && v->width == 0) /* a column's label is its heading */
        fprintf(f, "%s ", v->label);
    if (v->kind == SIM_FIELD_TEXT)
        fprintf(f, "%-*s", v->width, v->text);
    else
        fprintf(f, "%*.*f", v->width, v->decimals, v->num);
    fputs(v->after, f);
}

static void ops_table(FILE *f, const char *title, const sim_step_result *s)
{
    fprintf(f, "\n%s (per GPU; per-layer ops x%lld layers)\n", title, (long long)s->graph.layers);
    /* the heading: the labels of any op's columns (every op has every column) */
    sim_field v[SIM_FIELDS_STEP_MAX];
    size_t n = sim_report_op_fields(s, 0, SIM_FIELDS_TABLE, v);
    fprintf(f, "%-15s", "op");
    for (size_t k = 0; k < n; k++)
        table_field(f, &v[k], true);
    fputc('\n', f);
    for (int i = 0; i < SIM_OP_COUNT; i++) {
        if (!s->graph.ops[i].present)
            continue;
        n = sim_report_op_fields(s, i, SIM_FIELDS_TABLE, v);
        fprintf(f, "%-15s", sim_op_info((sim_op_id)i)->name);
        for (size_t k = 0; k < n; k++)
            table_field(f, &v[k], false);
        fputc('\n', f);
    }
    n = sim_report_step_fields(s, SIM_FIELDS_TABLE, v);
    for (size_t k = 0; k < n; k++)
        table_field(f, &v[k], false);
    fputc('\n', f);
    /* which algorithm each collective ran as (collective.h) */
    const char *sep = "collectives: ";
    for (int i = 0; i < SIM_OP_COUNT; i++) {
        if (!s->graph.ops[i].present || !(n = sim_report_op_fields(s, i, SIM_FIELDS_TABLE_COLL, v)))
            continue; /* not a collective */
        fprintf(f, "%s%s", sep, sim_op_info((sim_op_id)i)->name);
        for (size_t k = 0; k < n; k++)
            table_field(f, &v[k], false);
        sep = ", ";
    }
    if (sep[0] == ',')
        fprintf(f, "%s\n",
                s->graph.ops[SIM_OP_ATTN_NORM].fused ? "; norms fused into the all-reduce" : "");
    /* each grouped expert GEMM: its kernel family, padding and the busiest rank's load (moe.h) */
    for (int i = 0; i < SIM_OP_COUNT; i++) {
        if (!s->graph.ops[i].present || !(n = sim_report_op_fields(s, i, SIM_FIELDS_TABLE_MOE, v)))
            continue;
        fprintf(f, "moe: %s", sim_op_info((sim_op_id)i)->name);
        for (size_t k = 0; k < n; k++)
            table_field(f, &v[k], false);
        fputc('\n', f);
    }
}

/* "pipeline: 2 stages of 4 GPUs, layers 40/40 ..." when there are stages. */
void sim_report_pp_line(FILE *f, const sim_step_cfg *s)
{
    const int pp = sim_pp_stages(s);
    if (pp == 1)
        return;
    int64_t lay[SIM_PP_MAX];
    sim_pp_partition(s->model->layers, pp, lay);
    fprintf(f, "pipeline: %d stages of %d GPU%s, layers ", pp, s->tp, s->tp == 1 ? "" : "s");
    for (int i = 0; i < pp; i++)
        fprintf(f, "%s%lld", i ? "/" : "", (long long)lay[i]);
    fprintf(f, "; memory per GPU is the heaviest stage's, steps below the whole model's\n");
}

/* Fields set inline, each after its text (run's memory and speculative-decoding lines). */
static void run_table_inline(FILE *f, const sim_field *v, size_t n)
{
    for (size_t k = 0; k < n; k++)
        table_field(f, &v[k], false);
}

/* The run result's rows of run's table (report_run_fields.c's, SIM_FIELDS_TABLE), one a line. */
static void run_table_rows(FILE *f, const sim_field *v, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        if (v[k].missing)
            fprintf(f, "%-34s %12s", v[k].label, v[k].text);
        else if (v[k].kind == SIM_FIELD_INT)
            fprintf(f, "%-34s %12lld", v[k].label, (long long)v[k].num);
        else
            fprintf(f, "%-34s %12.*f", v[k].label, v[k].decimals, v[k].num);
        if (v[k].banded)
            fprintf(f, "  (80 %%: %.*f-%.*f)", v[k].decimals, v[k].lo, v[k].decimals, v[k].hi);
        fputc('\n', f);
    }
}

static sim_status run_table(FILE *f, const sim_run_cfg *cfg, const sim_run_result *r)
{
    const sim_step_cfg *s = &cfg->step;
    char par[96];
    sim_step_par_text(s, par, sizeof par);
    fprintf(f, "infersim run: %s on %d x %s%s\n", s->model->name, (int)sim_pp_gpus(s), s->hw->name,
            par);
    sim_report_pp_line(f, s);
    fprintf(f,
            "batch %lld, input %lld, output %lld tokens; weights %s, activations %s, KV %s; "
            "overlap-comm %.2f\n",
            (long long)cfg->batch, (long long)cfg->input_len, (long long)cfg->output_len,
            sim_dtype_name(s->prec.weight), sim_dtype_name(s->prec.act), sim_dtype_name(s->prec.kv),
            s->overlap);
    if (!sim_dtype_is_16bit(s->prec.weight))
        fprintf(f, "quantization: %s; %.3f bits per weight with scales%s\n",
                s->model->quant.present ? s->model->quant.method : "from the flags",
                8.0 * sim_graph_weight_elem_bytes(&s->prec, s->prec.weight),
                sim_graph_mixed_input(&s->prec, s->prec.weight) ? " (dequantized in the GEMM)"
                                                                : "");
    sim_field v[SIM_FIELDS_MAX];
    fputc('\n', f);
    run_table_rows(f, v, sim_report_run_fields(cfg, r, SIM_FIELDS_TABLE, v));
    run_table_inline(f, v, sim_report_run_fields(cfg, r, SIM_FIELDS_TABLE_MEM, v));
    fputc('\n', f);
    run_table_rows(f, v, sim_report_run_fields(cfg, r, SIM_FIELDS_TABLE_TAIL, v));
    run_table_rows(f, v, sim_report_run_fields(cfg, r, SIM_FIELDS_TABLE_PRICE, v));
    sim_price price;
    bool known = sim_report_run_price(cfg, r, &price);
    price_table(f, &price, known);
    run_table_inline(f, v, sim_report_run_fields(cfg, r, SIM_FIELDS_TABLE_SPEC, v)); /* or none */
    if (cfg->band && cfg->band->n && cfg->band->basis[0])
        fprintf(f, "Bands (80 %%) rest on: %s\n", cfg->band->basis);
    bool spec = sim_spec_active(cfg->spec);
    ops_table(f, "Prefill step", &r->prefill);
    if (r->decode_steps > 0)
        ops_table(f, spec ? "Mean verify step" : "Mean decode step", &r->decode);
    return ferror(f) ? SIM_EINTERNAL : SIM_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* CSV: one header line and one row. */

static sim_status run_csv(FILE *f, const sim_run_cfg *cfg, const sim_run_result *r)
{
    const sim_step_cfg *s = &cfg->step;
    sim_field fields[SIM_FIELDS_MAX];
    size_t n = sim_report_run_fields(cfg, r, SIM_FIELDS_CSV, fields);
    fprintf(f, "model,hw,tp,batch,input_len,output_len,weight_dtype,act_dtype,kv_cache_dtype,"
               "overlap_comm");
    sim_report_fields_csv_header(f, fields, n);
    bool ok = sim_report_csv_text(f, s->model->name) && sim_report_csv_text(f, s->hw->name);
    fprintf(f, "%d,%lld,%lld,%lld,%s,%s,%s,%g", s->tp, (long long)cfg->batch,
            (long long)cfg->input_len, (long long)cfg->output_len, sim_dtype_name(s->prec.weight),
            sim_dtype_name(s->prec.act), sim_dtype_name(s->prec.kv), s->overlap);
    sim_report_fields_csv(f, fields, n);
    return !ok || ferror(f) ? SIM_EINTERNAL : SIM_OK;
}

sim_status sim_report_run(FILE *f, sim_format fmt, const sim_run_cfg *cfg, const sim_run_result *r)
{
    static sim_status (*const writers[SIM_FMT_COUNT])(FILE *, const sim_run_cfg *,
                                                      const sim_run_result *) = {
        [SIM_FMT_TABLE] = run_table, [SIM_FMT_JSON] = run_json, [SIM_FMT_CSV] = run_csv};
    return writers[fmt](f, cfg, r);
}

/* ------------------------------------------------------------------------------------------ */
/* Roofline */

/* Pure roofline reading of an op: its intensity against the ridge of its compute format. */
static const char *roofline_bound(const sim_hw *hw, const sim_op *op)
{
    if (op->net_bytes > 0.0 && sim_op_bytes(op) == 0.0)
        return "network";
    double ridge = sim_hw_ridge(hw, op->compute);
    return sim_report_ratio(op->flops, sim_op_bytes(op)) >= ridge ? "compute" : "memory";
}

static sim_status roofline_json(FILE *f, const sim_roofline *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "hw", r->hw->name);
    cJSON_AddStringToObject(o, "dtype", sim_dtype_name(r->dtype));
    add_num(o, "peak_flops", r->hw->peak_flops[r->dtype]);
    add_num(o, "hbm_bytes_per_s", r->hw->hbm_bytes_per_s);
    add_num(o, "critical_intensity", sim_hw_ridge(r->hw, r->dtype));
    cJSON *ridges = cJSON_AddObjectToObject(o, "critical_intensity_by_dtype");
    for (int dt = 0; dt < SIM_DT_COUNT; dt++)
        if (r->hw->peak_flops[dt] > 0.0)
            add_num(ridges, sim_dtype_name((sim_dtype)dt), sim_hw_ridge(r->hw, (sim_dtype)dt));
    sim_quant_scheme qs[SIM_QUANT_SCHEMES];
    size_t nq = sim_cost_quant_schemes(r->hw, r->group_size, qs);
    cJSON *schemes = cJSON_AddArrayToObject(o, "quant_schemes");
    for (size_t i = 0; i < nq; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "scheme", qs[i].name);
        cJSON_AddStringToObject(e, "weight_dtype", sim_dtype_name(qs[i].weight));
        cJSON_AddStringToObject(e, "act_dtype", sim_dtype_name(qs[i].act));
        add_num(e, "weight_bytes_per_param", qs[i].bytes_per_param);
        add_num(e, "peak_tflops", qs[i].peak_flops / 1e12);
        add_num(e, "critical_batch", qs[i].critical_batch);
        cJSON_AddItemToArray(schemes, e);
    }
    if (r->step) {
        sim_report_config_json(o, r->step);
        add_num(o, "batch", (double)r->batch);
        add_num(o, "input_len", (double)r->input_len);
        cJSON *ops = cJSON_AddArrayToObject(o, "ops");
        ops_json(ops, "prefill", r->prefill, r->hw);
        ops_json(ops, "decode", r->decode, r->hw);
    }
    return sim_report_print_json(f, o);
}

static void roofline_ops_table(FILE *f, const char *title, const sim_roofline *r,
                               const sim_step_result *s)
{
    /* the op's intensity and bound (SIM_FIELDS_TABLE_ROOF) around the device's ridge for it and
     * the pure roofline's reading */
    sim_field v[SIM_FIELDS_STEP_MAX];
    sim_report_op_fields(s, 0, SIM_FIELDS_TABLE_ROOF, v);
    fprintf(f, "\n%s\n%-15s", title, "op");
    table_field(f, &v[0], true);
    fprintf(f, " %9s %-8s", "ridge", "roofline");
    table_field(f, &v[1], true);
    fputc('\n', f);
    for (int i = 0; i < SIM_OP_COUNT; i++) {
        const sim_op *op = &s->graph.ops[i];
        if (!op->present)
            continue;
        sim_report_op_fields(s, i, SIM_FIELDS_TABLE_ROOF, v);
        fprintf(f, "%-15s", sim_op_info((sim_op_id)i)->name);
        table_field(f, &v[0], false);
        fprintf(f, " %9.1f %-8s", sim_hw_ridge(r->hw, op->compute), roofline_bound(r->hw, op));
        table_field(f, &v[1], false);
        fputc('\n', f);
    }
}

static sim_status roofline_table(FILE *f, const sim_roofline *r)
{
    const sim_hw *hw = r->hw;
    fprintf(f, "%s (%s)\n", hw->name, hw->path);
    fprintf(f, "%-8s %14s %14s %12s\n", "dtype", "peak TFLOP/s", "HBM TB/s", "ridge FLOP/B");
    for (int dt = 0; dt < SIM_DT_COUNT; dt++) {
        if (hw->peak_flops[dt] <= 0.0)
            continue;
        fprintf(f, "%-8s %14.1f %14.2f %12.1f%s\n", sim_dtype_name((sim_dtype)dt),
                hw->peak_flops[dt] / 1e12, hw->hbm_bytes_per_s / 1e12,
                sim_hw_ridge(hw, (sim_dtype)dt), dt == (int)r->dtype ? "  <" : "");
    }
    sim_quant_scheme qs[SIM_QUANT_SCHEMES];
    size_t nq = sim_cost_quant_schemes(hw, r->group_size, qs);
    fprintf(f, "\n%-18s %12s %14s %15s\n", "scheme", "bytes/param", "peak TFLOP/s",
            "critical batch");
    for (size_t i = 0; i < nq; i++)
        fprintf(f, "%-18s %12.4f %14.1f %15.1f\n", qs[i].name, qs[i].bytes_per_param,
                qs[i].peak_flops / 1e12, qs[i].critical_batch);
    if (r->step) {
        char title[160];
        snprintf(title, sizeof title, "%s, prefill of %lld x %lld tokens (tp %d)",
                 r->step->model->name, (long long)r->batch, (long long)r->input_len, r->step->tp);
        roofline_ops_table(f, title, r, r->prefill);
        snprintf(title, sizeof title, "%s, decode of %lld sequences at context %lld (tp %d)",
                 r->step->model->name, (long long)r->batch, (long long)r->input_len, r->step->tp);
        roofline_ops_table(f, title, r, r->decode);
    }
    return ferror(f) ? SIM_EINTERNAL : SIM_OK;
}

static sim_status roofline_csv(FILE *f, const sim_roofline *r)
{
    fprintf(f, "hw,dtype,peak_flops,hbm_bytes_per_s,critical_intensity\n");
    bool ok = sim_report_csv_text(f, r->hw->name);
    fprintf(f, "%s,%.6g,%.6g,%.4f\n", sim_dtype_name(r->dtype), r->hw->peak_flops[r->dtype],
            r->hw->hbm_bytes_per_s, sim_hw_ridge(r->hw, r->dtype));
    return !ok || ferror(f) ? SIM_EINTERNAL : SIM_OK;
}

sim_status sim_report_roofline(FILE *f, sim_format fmt, const sim_roofline *r)
{
    static sim_status (*const writers[SIM_FMT_COUNT])(FILE *, const sim_roofline *) = {
        [SIM_FMT_TABLE] = roofline_table,
        [SIM_FMT_JSON] = roofline_json,
        [SIM_FMT_CSV] = roofline_csv};
    return writers[fmt](f, r);
}
