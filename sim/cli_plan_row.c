/* cli_plan_row.c - a plan candidate's row as a JSON line and back, and the ranking (cli_plan.h). */
#define _POSIX_C_SOURCE 200809L
#include "cli_plan.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

static const char *const status_names[CLI_PLAN_STATUS_COUNT] = {"ok", "unfit", "alone", "missed",
                                                                "too_big"};

const char *cli_plan_status_name(cli_plan_status s)
{
    return s < CLI_PLAN_STATUS_COUNT ? status_names[s] : "?";
}

bool cli_plan_status_parse(const char *s, cli_plan_status *out)
{
    for (int i = 0; i < CLI_PLAN_STATUS_COUNT; i++)
        if (strcmp(s, status_names[i]) == 0) {
            *out = (cli_plan_status)i;
            return true;
        }
    return false;
}

static const char *const objective_names[] = {"cost", "gpus", "energy", "ttft"};

bool cli_plan_objective_parse(const char *s, cli_plan_objective *out)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(s, objective_names[i]) == 0) {
            *out = (cli_plan_objective)i;
            return true;
        }
    return false;
}

const char *cli_plan_objective_name(cli_plan_objective o)
{
    return (unsigned)o < 4 ? objective_names[o] : "?";
}

/* The row's fields: one table drives writing and reading. */
typedef enum { F_STR, F_INT, F_NUM, F_BOOL, F_RATE } fkind;
typedef struct rfield {
    const char *key;
    fkind kind;
    size_t off, len; /* len: F_STR's buffer */
} rfield;

#define S(k) {#k, F_STR, offsetof(cli_plan_row, k), sizeof(((cli_plan_row *)0)->k)}
#define I(k) {#k, F_INT, offsetof(cli_plan_row, k), 0}
#define N(k) {#k, F_NUM, offsetof(cli_plan_row, k), 0}
#define B(k) {#k, F_BOOL, offsetof(cli_plan_row, k), 0}
static const rfield fields[] = {
    I(point), S(model), S(hw), S(engine), S(engine_version), S(precision), B(disagg), I(tp), I(pp),
    I(ep), I(dp), B(dp_attention), S(kv_cache), S(spec), S(spec_acceptance_data),
    /* status goes between: written by name */
    S(reason), {"instance_max_rate", F_RATE, offsetof(cli_plan_row, instance_max_rate), 0},
    I(replicas), I(prefill), I(decode), I(gpus), N(usd_per_gpu_hour), N(usd_per_hour),
    N(usd_per_million_output_tokens), N(request_throughput), N(output_throughput),
    {"p_ttft_ms", F_NUM, offsetof(cli_plan_row, p_ms) + SIM_M_TTFT * sizeof(double), 0},
    {"p_tpot_ms", F_NUM, offsetof(cli_plan_row, p_ms) + SIM_M_TPOT * sizeof(double), 0},
    {"p_itl_ms", F_NUM, offsetof(cli_plan_row, p_ms) + SIM_M_ITL * sizeof(double), 0},
    {"p_e2el_ms", F_NUM, offsetof(cli_plan_row, p_ms) + SIM_M_E2EL * sizeof(double), 0},
    N(headroom), N(attainment), N(joules_per_output_token), I(max_num_seqs),
    I(max_num_batched_tokens), I(block_size), N(gpu_memory_utilization), S(weight_dtype),
    S(act_dtype), S(kv_dtype), S(hf_id)};
#undef S
#undef I
#undef N
#undef B
enum { N_FIELDS = sizeof fields / sizeof fields[0] };

/* The bands' fields (cli_plan_band.c), written after the others when the row has draws; a row
 * without them (--uncertainty 0, or a file from before) has no bands. */
#define N(k) {#k, F_NUM, offsetof(cli_plan_row, k), 0}
#define P(k, m, side) {"p_" #k "_ms_" #side, F_NUM, offsetof(cli_plan_row, p_##side) + (m) * sizeof(double), 0}
static const rfield band_fields[] = {
    N(slo_met_probability),
    P(ttft, SIM_M_TTFT, lo), P(ttft, SIM_M_TTFT, hi), P(tpot, SIM_M_TPOT, lo),
    P(tpot, SIM_M_TPOT, hi), P(itl, SIM_M_ITL, lo), P(itl, SIM_M_ITL, hi),
    P(e2el, SIM_M_E2EL, lo), P(e2el, SIM_M_E2EL, hi),
    N(usd_per_million_output_tokens_lo), N(usd_per_million_output_tokens_hi),
    N(output_throughput_lo), N(output_throughput_hi), N(joules_per_output_token_lo),
    N(joules_per_output_token_hi),
    {"band_basis", F_STR, offsetof(cli_plan_row, band_basis), sizeof(((cli_plan_row *)0)->band_basis)}};
#undef N
#undef P
enum { N_BAND_FIELDS = sizeof band_fields / sizeof band_fields[0] };

/* A rate range's fields (cli_plan_range.c), written when the row has them (gpus_at_rate_low). */
#define I(k) {#k, F_INT, offsetof(cli_plan_row, k), 0}
static const rfield range_fields[] = {
    I(gpus_at_rate_low), I(replicas_at_rate_low), I(prefill_at_rate_low), I(decode_at_rate_low),
    {"max_request_rate", F_RATE, offsetof(cli_plan_row, max_request_rate), 0}};
#undef I
enum { N_RANGE_FIELDS = sizeof range_fields / sizeof range_fields[0] };

static void put(cJSON *j, const rfield *f, const cli_plan_row *r)
{
    const void *p = (const char *)r + f->off;
    switch (f->kind) {
    case F_STR:
        cJSON_AddStringToObject(j, f->key, (const char *)p);
        break;
    case F_INT:
        cJSON_AddNumberToObject(j, f->key, (double)*(const int64_t *)p);
        break;
    case F_NUM:
        cJSON_AddNumberToObject(j, f->key, isfinite(*(const double *)p) ? *(const double *)p : 0);
        break;
    case F_BOOL:
        cJSON_AddBoolToObject(j, f->key, *(const bool *)p);
        break;
    case F_RATE: {
        double v = *(const double *)p;
        if (isinf(v))
            cJSON_AddStringToObject(j, f->key, "inf");
        else
            cJSON_AddNumberToObject(j, f->key, v);
        break;
    }
    }
}

char *cli_plan_row_json(const cli_plan_row *r)
{
    cJSON *j = cJSON_CreateObject();
    if (!j)
        return NULL;
    for (size_t i = 0; i < N_FIELDS; i++) {
        if (strcmp(fields[i].key, "reason") == 0)
            cJSON_AddStringToObject(j, "status", cli_plan_status_name(r->status));
        put(j, &fields[i], r);
    }
    for (size_t i = 0; r->gpus_at_rate_low > 0 && i < N_RANGE_FIELDS; i++)
        put(j, &range_fields[i], r);
    const int n = r->band_draws > 0 && r->band_draws <= CLI_PLAN_MAX_DRAWS ? (int)r->band_draws : 0;
    if (n) {
        cJSON_AddNumberToObject(j, "band_draws", (double)n);
        for (size_t i = 0; i < N_BAND_FIELDS; i++)
            put(j, &band_fields[i], r);
        /* each draw: whether it meets the SLO, its TTFT and energy (the objectives that move) */
        cJSON *met = cJSON_AddArrayToObject(j, "draw_met");
        cJSON *ttft = cJSON_AddArrayToObject(j, "draw_p_ttft_ms");
        cJSON *jo = cJSON_AddArrayToObject(j, "draw_joules_per_output_token");
        for (int i = 0; i < n; i++) {
            cJSON_AddItemToArray(met, cJSON_CreateBool(r->draw_met[i]));
            cJSON_AddItemToArray(ttft, cJSON_CreateNumber(isfinite(r->draw_ttft_ms[i])
                                                              ? r->draw_ttft_ms[i]
                                                              : 0.0));
            cJSON_AddItemToArray(jo, cJSON_CreateNumber(isfinite(r->draw_joules[i])
                                                            ? r->draw_joules[i]
                                                            : 0.0));
        }
    }
    char *text = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    return text;
}

/* Reads field f of j into r; false when it is missing or of the wrong type. */
static bool get(const cJSON *j, const rfield *f, cli_plan_row *r)
{
    void *p = (char *)r + f->off;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, f->key);
    bool ok = v != NULL;
    switch (f->kind) {
    case F_STR:
        ok = ok && cJSON_IsString(v) && strlen(v->valuestring) < f->len;
        if (ok)
            memcpy(p, v->valuestring, strlen(v->valuestring) + 1);
        break;
    case F_INT:
        ok = ok && cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble);
        if (ok)
            *(int64_t *)p = (int64_t)v->valuedouble;
        break;
    case F_NUM:
        ok = ok && cJSON_IsNumber(v) && isfinite(v->valuedouble);
        if (ok)
            *(double *)p = v->valuedouble;
        break;
    case F_BOOL:
        ok = ok && cJSON_IsBool(v);
        if (ok)
            *(bool *)p = cJSON_IsTrue(v);
        break;
    case F_RATE:
        if (ok && cJSON_IsString(v) && strcmp(v->valuestring, "inf") == 0)
            *(double *)p = INFINITY;
        else if ((ok = ok && cJSON_IsNumber(v) && v->valuedouble >= 0))
            *(double *)p = v->valuedouble;
        break;
    }
    return ok;
}

/* The bands of a row that has band_draws (else none). */
static sim_status get_bands(const cJSON *j, const char *where, cli_plan_row *r, sim_err *err)
{
    const cJSON *nd = cJSON_GetObjectItemCaseSensitive(j, "band_draws");
    if (!nd)
        return SIM_OK;
    if (!cJSON_IsNumber(nd) || nd->valuedouble != floor(nd->valuedouble) || nd->valuedouble < 1 ||
        nd->valuedouble > CLI_PLAN_MAX_DRAWS)
        return sim_fail(err, SIM_EINPUT, "%s: field 'band_draws' not a whole number 1..%d", where,
                        CLI_PLAN_MAX_DRAWS);
    r->band_draws = (int64_t)nd->valuedouble;
    for (size_t i = 0; i < N_BAND_FIELDS; i++)
        if (!get(j, &band_fields[i], r))
            return sim_fail(err, SIM_EINPUT, "%s: field '%s' missing or of the wrong type", where,
                            band_fields[i].key);
    static const char *const arrays[] = {"draw_met", "draw_p_ttft_ms",
                                         "draw_joules_per_output_token"};
    for (int a = 0; a < 3; a++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, arrays[a]);
        if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != (int)r->band_draws)
            return sim_fail(err, SIM_EINPUT, "%s: field '%s' missing or not %lld values", where,
                            arrays[a], (long long)r->band_draws);
        int i = 0;
        for (const cJSON *e = v->child; e; e = e->next, i++) {
            bool ok = a == 0 ? cJSON_IsBool(e) : cJSON_IsNumber(e) && isfinite(e->valuedouble) &&
                                                     e->valuedouble >= 0.0;
            if (!ok)
                return sim_fail(err, SIM_EINPUT, "%s: field '%s' item %d of the wrong type",
                                where, arrays[a], i);
            if (a == 0)
                r->draw_met[i] = cJSON_IsTrue(e);
            else if (a == 1)
                r->draw_ttft_ms[i] = e->valuedouble;
            else
                r->draw_joules[i] = e->valuedouble;
        }
    }
    return SIM_OK;
}

sim_status cli_plan_row_parse(const char *line, const char *where, cli_plan_row *r, sim_err *err)
{
    memset(r, 0, sizeof *r);
    cJSON *j = cJSON_Parse(line);
    if (!cJSON_IsObject(j)) {
        cJSON_Delete(j);
        return sim_fail(err, SIM_EINPUT, "%s: not a plan row (a JSON object per line)", where);
    }
    sim_status st = SIM_OK;
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(j, "status");
    if (!cJSON_IsString(s) || !cli_plan_status_parse(s->valuestring, &r->status))
        st = sim_fail(err, SIM_EINPUT, "%s: field 'status' missing or not one of ok, unfit, "
                                       "alone, missed, too_big",
                      where);
    for (size_t i = 0; i < N_FIELDS && !st; i++)
        if (!get(j, &fields[i], r))
            st = sim_fail(err, SIM_EINPUT, "%s: field '%s' missing or of the wrong type", where,
                          fields[i].key);
    if (!st && cJSON_GetObjectItemCaseSensitive(j, "gpus_at_rate_low"))
        for (size_t i = 0; i < N_RANGE_FIELDS && !st; i++)
            if (!get(j, &range_fields[i], r))
                st = sim_fail(err, SIM_EINPUT, "%s: field '%s' missing or of the wrong type",
                              where, range_fields[i].key);
    if (!st)
        st = get_bands(j, where, r, err);
    cJSON_Delete(j);
    return st;
}

bool cli_plan_rankable(const cli_plan_row *r, cli_plan_objective obj)
{
    if (r->status != CLI_PLAN_OK)
        return false;
    if (obj == CLI_PLAN_COST)
        return r->usd_per_hour > 0.0;
    if (obj == CLI_PLAN_ENERGY)
        return r->joules_per_output_token > 0.0;
    return true;
}

/* -1: a first, 1: b first, 0: equal on x. */
static int cmp(double x, double y) { return (x > y) - (x < y); }

bool cli_plan_better(const cli_plan_row *a, const cli_plan_row *b, cli_plan_objective obj)
{
    bool ra = cli_plan_rankable(a, obj), rb = cli_plan_rankable(b, obj);
    if (ra != rb)
        return ra;
    int c = 0;
    switch (obj) {
    case CLI_PLAN_COST:
        c = cmp(a->usd_per_hour, b->usd_per_hour);
        if (!c) /* the same fleet: the one that served more tokens in the run */
            c = cmp(a->usd_per_million_output_tokens, b->usd_per_million_output_tokens);
        if (!c)
            c = cmp((double)a->gpus, (double)b->gpus);
        break;
    case CLI_PLAN_GPUS:
        c = cmp((double)a->gpus, (double)b->gpus);
        if (!c)
            c = cmp(a->usd_per_hour, b->usd_per_hour);
        break;
    case CLI_PLAN_ENERGY:
        c = cmp(a->joules_per_output_token, b->joules_per_output_token);
        if (!c)
            c = cmp((double)a->gpus, (double)b->gpus);
        break;
    case CLI_PLAN_TTFT:
        c = cmp(a->p_ms[SIM_M_TTFT], b->p_ms[SIM_M_TTFT]);
        if (!c)
            c = cmp(a->usd_per_hour, b->usd_per_hour);
        break;
    }
    if (!c)
        c = cmp(-a->headroom, -b->headroom); /* more room to the SLO first */
    return c ? c < 0 : a->point < b->point;
}
