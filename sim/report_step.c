/* report_step.c - the report module's field tables of one step and of one op in it (declared in
 * report.h): one row per quantity (key stem, kind, whether it is a time, how its value is read)
 * and, per output, the rows it writes in its order and its time unit. run --format json's
 * prefill / decode objects and ops list, roofline's ops and the Chrome trace's step and op args
 * read the fields these return; no key of theirs is written anywhere else. */
#include "report.h"

#include <string.h>

/* A row's value: sets f->num or f->text, returns whether there is one. A time is in ns. */
typedef bool (*step_get)(const sim_step_result *s, int i, sim_field *f);

typedef struct step_row {
    const char *stem; /* the key; a time's gets the output's unit suffix */
    sim_field_kind kind;
    bool time_ns; /* a duration, read in ns and written in the output's unit */
    step_get get;
} step_row;

/* The step's rows. */
#define SGET(name, field, expr)                                                                    \
    static bool sget_##name(const sim_step_result *s, int i, sim_field *f)                         \
    {                                                                                              \
        (void)i;                                                                                   \
        f->field = (expr);                                                                         \
        return true;                                                                               \
    }
SGET(time, num, s->t_ns)
SGET(t_lower, num, s->t_lower_ns)
SGET(t_upper, num, s->t_upper_ns)
SGET(flops, num, s->flops)
SGET(bytes, num, s->bytes)
SGET(net_bytes, num, s->net_bytes)
SGET(bound, text, sim_bound_name(s->bound))
SGET(t_math, num, s->t_math_ns)
SGET(t_mem, num, s->t_mem_ns)
SGET(t_net, num, s->t_net_ns)
SGET(t_launch, num, s->t_launch_ns)
SGET(t_host, num, s->t_host_ns)
SGET(t_cpu, num, s->t_cpu_ns)
SGET(net_exposed, num, s->net_exposed_ns)
SGET(net_hidden, num, s->net_hidden_ns)
SGET(tokens, num, (double)s->graph.tokens)
SGET(sequences, num, (double)s->graph.seqs)
#undef SGET

enum {
    S_TIME,
    S_T_LOWER,
    S_T_UPPER,
    S_FLOPS,
    S_BYTES,
    S_NET_BYTES,
    S_BOUND,
    S_T_MATH,
    S_T_MEM,
    S_T_NET,
    S_T_LAUNCH,
    S_T_HOST,
    S_T_CPU,
    S_NET_EXPOSED,
    S_NET_HIDDEN,
    S_TOKENS,
    S_SEQUENCES,
    S_COUNT
};

#define ROW(id, name, kind, t) [id] = {#name, kind, t, sget_##name}
static const step_row step_rows[S_COUNT] = {
    ROW(S_TIME, time, SIM_FIELD_NUM, true),
    ROW(S_T_LOWER, t_lower, SIM_FIELD_NUM, true),
    ROW(S_T_UPPER, t_upper, SIM_FIELD_NUM, true),
    ROW(S_FLOPS, flops, SIM_FIELD_NUM, false),
    ROW(S_BYTES, bytes, SIM_FIELD_NUM, false),
    ROW(S_NET_BYTES, net_bytes, SIM_FIELD_NUM, false),
    ROW(S_BOUND, bound, SIM_FIELD_TEXT, false),
    ROW(S_T_MATH, t_math, SIM_FIELD_NUM, true),
    ROW(S_T_MEM, t_mem, SIM_FIELD_NUM, true),
    ROW(S_T_NET, t_net, SIM_FIELD_NUM, true),
    ROW(S_T_LAUNCH, t_launch, SIM_FIELD_NUM, true),
    ROW(S_T_HOST, t_host, SIM_FIELD_NUM, true),
    ROW(S_T_CPU, t_cpu, SIM_FIELD_NUM, true),
    ROW(S_NET_EXPOSED, net_exposed, SIM_FIELD_NUM, true),
    ROW(S_NET_HIDDEN, net_hidden, SIM_FIELD_NUM, true),
    ROW(S_TOKENS, tokens, SIM_FIELD_INT, false),
    ROW(S_SEQUENCES, sequences, SIM_FIELD_INT, false),
};
#undef ROW

/* The op's rows (op i of the step). */
#define OGET(name, present, field, expr)                                                           \
    static bool oget_##name(const sim_step_result *s, int i, sim_field *f)                         \
    {                                                                                              \
        const sim_op *op = &s->graph.ops[i];                                                       \
        const sim_op_cost *c = &s->cost[i];                                                        \
        (void)op;                                                                                  \
        (void)c;                                                                                   \
        if (!(present))                                                                            \
            return false;                                                                          \
        f->field = (expr);                                                                         \
        return true;                                                                               \
    }
OGET(repeats, true, num, sim_step_op_repeats(s, (sim_op_id)i))
OGET(flops, true, num, op->flops)
OGET(bytes, true, num, sim_op_bytes(op))
OGET(weight_bytes, true, num, op->weight_bytes)
OGET(act_bytes, true, num, op->act_bytes)
OGET(kv_read_bytes, true, num, op->kv_read_bytes)
OGET(kv_write_bytes, true, num, op->kv_write_bytes)
OGET(net_bytes, true, num, op->net_bytes)
OGET(intensity, true, num, sim_op_bytes(op) > 0.0 ? op->flops / sim_op_bytes(op) : 0.0)
OGET(bound, true, text, sim_bound_name(c->bound))
OGET(time, true, num, c->t_ns)
OGET(t_math, true, num, c->t_math_ns)
OGET(t_mem, true, num, c->t_mem_ns)
OGET(t_net, true, num, c->t_net_ns)
OGET(t_launch, true, num, c->t_launch_ns)
OGET(net_hidden, true, num, s->hidden_ns[i])
OGET(net_exposed, true, num, c->t_net_ns - s->hidden_ns[i])
OGET(experts_touched, op->groups > 0.0, num, op->groups)
OGET(collective_algo, op->net_ranks > 1, text, sim_coll_algo_name(c->coll_algo))
OGET(collective_protocol, op->net_ranks > 1, text, sim_coll_proto_name(c->coll_proto))
#undef OGET

enum {
    O_REPEATS,
    O_FLOPS,
    O_BYTES,
    O_WEIGHT_BYTES,
    O_ACT_BYTES,
    O_KV_READ_BYTES,
    O_KV_WRITE_BYTES,
    O_NET_BYTES,
    O_INTENSITY,
    O_BOUND,
    O_TIME,
    O_T_MATH,
    O_T_MEM,
    O_T_NET,
    O_T_LAUNCH,
    O_NET_HIDDEN,
    O_NET_EXPOSED,
    O_EXPERTS_TOUCHED,
    O_COLLECTIVE_ALGO,
    O_COLLECTIVE_PROTOCOL,
    O_COUNT
};

#define ROW(id, name, kind, t) [id] = {#name, kind, t, oget_##name}
static const step_row op_rows[O_COUNT] = {
    ROW(O_REPEATS, repeats, SIM_FIELD_NUM, false),
    ROW(O_FLOPS, flops, SIM_FIELD_NUM, false),
    ROW(O_BYTES, bytes, SIM_FIELD_NUM, false),
    ROW(O_WEIGHT_BYTES, weight_bytes, SIM_FIELD_NUM, false),
    ROW(O_ACT_BYTES, act_bytes, SIM_FIELD_NUM, false),
    ROW(O_KV_READ_BYTES, kv_read_bytes, SIM_FIELD_NUM, false),
    ROW(O_KV_WRITE_BYTES, kv_write_bytes, SIM_FIELD_NUM, false),
    ROW(O_NET_BYTES, net_bytes, SIM_FIELD_NUM, false),
    ROW(O_INTENSITY, intensity, SIM_FIELD_NUM, false),
    ROW(O_BOUND, bound, SIM_FIELD_TEXT, false),
    ROW(O_TIME, time, SIM_FIELD_NUM, true),
    ROW(O_T_MATH, t_math, SIM_FIELD_NUM, true),
    ROW(O_T_MEM, t_mem, SIM_FIELD_NUM, true),
    ROW(O_T_NET, t_net, SIM_FIELD_NUM, true),
    ROW(O_T_LAUNCH, t_launch, SIM_FIELD_NUM, true),
    ROW(O_NET_HIDDEN, net_hidden, SIM_FIELD_NUM, true),
    ROW(O_NET_EXPOSED, net_exposed, SIM_FIELD_NUM, true),
    ROW(O_EXPERTS_TOUCHED, experts_touched, SIM_FIELD_NUM, false),
    ROW(O_COLLECTIVE_ALGO, collective_algo, SIM_FIELD_TEXT, false),
    ROW(O_COLLECTIVE_PROTOCOL, collective_protocol, SIM_FIELD_TEXT, false),
};
#undef ROW

/* An output: its rows in order (a row without a value is left out) and its time unit. */
typedef struct step_list {
    const unsigned char *rows;
    size_t n;
    const char *unit; /* the key suffix of a time */
    double per_ns;    /* ns in one unit */
} step_list;

static const unsigned char step_json[] = {
    S_TIME,  S_T_LOWER,     S_T_UPPER,    S_FLOPS,  S_BYTES,    S_NET_BYTES,
    S_BOUND, S_T_MATH,      S_T_MEM,      S_T_NET,  S_T_LAUNCH, S_T_HOST,
    S_T_CPU, S_NET_EXPOSED, S_NET_HIDDEN, S_TOKENS, S_SEQUENCES};
static const unsigned char step_trace[] = {S_TOKENS,    S_SEQUENCES,   S_FLOPS,     S_BYTES,
                                           S_NET_BYTES, S_BOUND,       S_TIME,      S_T_LOWER,
                                           S_T_UPPER,   S_NET_EXPOSED, S_NET_HIDDEN};
static const unsigned char op_json[] = {
    O_REPEATS,       O_FLOPS,          O_BYTES,           O_WEIGHT_BYTES,    O_ACT_BYTES,
    O_KV_READ_BYTES, O_KV_WRITE_BYTES, O_NET_BYTES,       O_INTENSITY,       O_BOUND,
    O_TIME,          O_T_MATH,         O_T_MEM,           O_T_NET,           O_T_LAUNCH,
    O_NET_HIDDEN,    O_NET_EXPOSED,    O_EXPERTS_TOUCHED, O_COLLECTIVE_ALGO, O_COLLECTIVE_PROTOCOL};
static const unsigned char op_trace[] = {O_FLOPS,
                                         O_BYTES,
                                         O_NET_BYTES,
                                         O_INTENSITY,
                                         O_BOUND,
                                         O_T_MATH,
                                         O_T_MEM,
                                         O_T_NET,
                                         O_T_LAUNCH,
                                         O_NET_HIDDEN,
                                         O_NET_EXPOSED,
                                         O_COLLECTIVE_ALGO,
                                         O_COLLECTIVE_PROTOCOL};

#define LIST(a, unit, per_ns)                                                                      \
    {                                                                                              \
        (a), sizeof(a), (unit), (per_ns)                                                           \
    }
static const step_list step_outputs[SIM_FIELDS_OUT_COUNT] = {
    [SIM_FIELDS_JSON] = LIST(step_json, "_ms", 1e6),
    [SIM_FIELDS_TRACE] = LIST(step_trace, "_us", 1e3),
};
static const step_list op_outputs[SIM_FIELDS_OUT_COUNT] = {
    [SIM_FIELDS_JSON] = LIST(op_json, "_us", 1e3),
    [SIM_FIELDS_TRACE] = LIST(op_trace, "_us", 1e3),
};
#undef LIST

/* The fields of list l over rows, for op i (step rows ignore it). Keys are copied, not
 * formatted: the trace asks for an op's fields on every op slice it writes. */
static size_t list_fields(const step_row *rows, const step_list *l, const sim_step_result *s, int i,
                          sim_field *out)
{
    size_t n = 0;
    for (size_t k = 0; k < l->n; k++) {
        const step_row *row = &rows[l->rows[k]];
        sim_field *f = &out[n]; /* filled in place: no label, section or missing value here */
        f->kind = row->kind;
        f->decimals = 6;
        f->missing = false;
        f->num = 0.0;
        f->text = NULL;
        f->label[0] = '\0';
        f->section = NULL;
        if (!row->get(s, i, f))
            continue;
        size_t a = strlen(row->stem), b = row->time_ns ? strlen(l->unit) : 0;
        memcpy(f->key, row->stem, a); /* the longest stem and unit fit in key[40] */
        memcpy(f->key + a, l->unit, b);
        f->key[a + b] = '\0';
        if (row->time_ns)
            f->num /= l->per_ns;
        n++;
    }
    return n;
}

size_t sim_report_step_fields(const sim_step_result *s, sim_field_out which, sim_field *out)
{
    return list_fields(step_rows, &step_outputs[which], s, 0, out);
}

size_t sim_report_op_fields(const sim_step_result *s, int op, sim_field_out which, sim_field *out)
{
    return list_fields(op_rows, &op_outputs[which], s, op, out);
}
