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
    I(ep), I(dp), B(dp_attention),
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

char *cli_plan_row_json(const cli_plan_row *r)
{
    cJSON *j = cJSON_CreateObject();
    if (!j)
        return NULL;
    for (size_t i = 0; i < N_FIELDS; i++) {
        const rfield *f = &fields[i];
        const void *p = (const char *)r + f->off;
        if (strcmp(f->key, "reason") == 0)
            cJSON_AddStringToObject(j, "status", cli_plan_status_name(r->status));
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
    char *text = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    return text;
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
    for (size_t i = 0; i < N_FIELDS && !st; i++) {
        const rfield *f = &fields[i];
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
        if (!ok)
            st = sim_fail(err, SIM_EINPUT, "%s: field '%s' missing or of the wrong type", where,
                          f->key);
    }
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
