/* report_step.c - the report module's field tables of one step and of one op in it (declared in
 * report.h): one row per quantity (key stem, kind, whether it is a time, how its value is read,
 * its name and shown unit in run's text table) and, per output, the rows it writes in its order,
 * its time unit and, for the text table, each entry's width, decimals and surrounding text.
 * run --format json's prefill / decode objects and ops list, roofline's ops, run's text table
 * (op columns, the step's line, the collectives line) and the Chrome trace's step, op,
 * network-slice and pipeline-stage args read the fields these return; no key or label of theirs
 * is written anywhere else. */
#include "report.h"
#include "report_internal.h"

#include <string.h>

/* A row's value: sets f->num or f->text, returns whether there is one. A time is in ns. */
typedef bool (*step_get)(const sim_step_result *s, int i, sim_field *f);

typedef struct step_row {
    const char *stem; /* the key; a time's gets the output's unit suffix */
    sim_field_kind kind;
    bool time_ns; /* a duration, read in ns and written in the output's unit */
    step_get get;
    /* run's text table: the name (a time's gets the output's unit suffix; NULL: the value
     * alone) and, for a number that is not a time, how many of it make one shown unit (the
     * unit is in the name: GFLOP is 1e9 FLOP; 0 shows it as it is) */
    const char *label;
    double per;
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

#define ROW(id, name, kind, t, label, per) [id] = {#name, kind, t, sget_##name, label, per}
static const step_row step_rows[S_COUNT] = {
    ROW(S_TIME, time, SIM_FIELD_NUM, true, "step:", 0),
    ROW(S_T_LOWER, t_lower, SIM_FIELD_NUM, true, "bounds", 0),
    ROW(S_T_UPPER, t_upper, SIM_FIELD_NUM, true, NULL, 0),
    ROW(S_FLOPS, flops, SIM_FIELD_NUM, false, NULL, 0),
    ROW(S_BYTES, bytes, SIM_FIELD_NUM, false, NULL, 0),
    ROW(S_NET_BYTES, net_bytes, SIM_FIELD_NUM, false, NULL, 0),
    ROW(S_BOUND, bound, SIM_FIELD_TEXT, false, NULL, 0),
    ROW(S_T_MATH, t_math, SIM_FIELD_NUM, true, "math", 0),
    ROW(S_T_MEM, t_mem, SIM_FIELD_NUM, true, "memory", 0),
    ROW(S_T_NET, t_net, SIM_FIELD_NUM, true, "network", 0),
    ROW(S_T_LAUNCH, t_launch, SIM_FIELD_NUM, true, "launch", 0),
    ROW(S_T_HOST, t_host, SIM_FIELD_NUM, true, "host", 0),
    ROW(S_T_CPU, t_cpu, SIM_FIELD_NUM, true, NULL, 0),
    ROW(S_NET_EXPOSED, net_exposed, SIM_FIELD_NUM, true, "exposed", 0),
    ROW(S_NET_HIDDEN, net_hidden, SIM_FIELD_NUM, true, "hidden", 0),
    ROW(S_TOKENS, tokens, SIM_FIELD_INT, false, NULL, 0),
    ROW(S_SEQUENCES, sequences, SIM_FIELD_INT, false, NULL, 0),
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
OGET(moe_kernel, sim_cost_is_grouped(op), text, sim_moe_kernel_name(op->moe_kernel))
OGET(moe_layout, sim_cost_is_grouped(op), text, sim_moe_layout(op->moe_kernel, op->moe_decode))
OGET(moe_block_m, sim_cost_is_grouped(op), num, (double)c->moe_block_m)
OGET(moe_padded_rows, sim_cost_is_grouped(op), num, c->moe_padded_rows)
/* the busiest EP rank's expected routed rows (the FLOPs' rows) and their ratio to the mean */
OGET(moe_busiest_rank_rows, sim_cost_is_grouped(op), num,
     op->n > 0 && op->k > 0 ? op->flops / (2.0 * (double)op->n * (double)op->k) : 0.0)
OGET(moe_rank_imbalance, sim_cost_is_grouped(op), num,
     op->moe_mean_rows > 0.0 && op->n > 0 && op->k > 0
         ? op->flops / (2.0 * (double)op->n * (double)op->k) / op->moe_mean_rows
         : 1.0)
OGET(collective_algo, op->net_ranks > 1, text, sim_coll_algo_name(c->coll_algo))
OGET(collective_protocol, op->net_ranks > 1, text, sim_coll_proto_name(c->coll_proto))
/* its share (%) of the step's op time summed without overlap (busy + network + launch) */
OGET(share, true, num,
     100.0 * sim_report_ratio(sim_step_op_repeats(s, (sim_op_id)i) * c->t_ns,
                              s->busy_ns + s->t_net_ns + s->t_launch_ns))
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
    O_MOE_KERNEL,
    O_MOE_LAYOUT,
    O_MOE_BLOCK_M,
    O_MOE_PADDED_ROWS,
    O_MOE_BUSIEST_RANK_ROWS,
    O_MOE_RANK_IMBALANCE,
    O_COLLECTIVE_ALGO,
    O_COLLECTIVE_PROTOCOL,
    O_SHARE,
    O_COUNT
};

#define ROW(id, name, kind, t, label, per) [id] = {#name, kind, t, oget_##name, label, per}
static const step_row op_rows[O_COUNT] = {
    ROW(O_REPEATS, repeats, SIM_FIELD_NUM, false, "x", 0),
    ROW(O_FLOPS, flops, SIM_FIELD_NUM, false, "GFLOP", 1e9),
    ROW(O_BYTES, bytes, SIM_FIELD_NUM, false, "MB", 1e6),
    ROW(O_WEIGHT_BYTES, weight_bytes, SIM_FIELD_NUM, false, NULL, 0),
    ROW(O_ACT_BYTES, act_bytes, SIM_FIELD_NUM, false, NULL, 0),
    ROW(O_KV_READ_BYTES, kv_read_bytes, SIM_FIELD_NUM, false, NULL, 0),
    ROW(O_KV_WRITE_BYTES, kv_write_bytes, SIM_FIELD_NUM, false, NULL, 0),
    ROW(O_NET_BYTES, net_bytes, SIM_FIELD_NUM, false, NULL, 0),
    ROW(O_INTENSITY, intensity, SIM_FIELD_NUM, false, "FLOP/B", 0),
    ROW(O_BOUND, bound, SIM_FIELD_TEXT, false, "bound", 0),
    ROW(O_TIME, time, SIM_FIELD_NUM, true, "time", 0),
    ROW(O_T_MATH, t_math, SIM_FIELD_NUM, true, "math", 0),
    ROW(O_T_MEM, t_mem, SIM_FIELD_NUM, true, "mem", 0),
    ROW(O_T_NET, t_net, SIM_FIELD_NUM, true, "net", 0),
    ROW(O_T_LAUNCH, t_launch, SIM_FIELD_NUM, true, NULL, 0),
    ROW(O_NET_HIDDEN, net_hidden, SIM_FIELD_NUM, true, "hidden", 0),
    ROW(O_NET_EXPOSED, net_exposed, SIM_FIELD_NUM, true, "exposed", 0),
    ROW(O_EXPERTS_TOUCHED, experts_touched, SIM_FIELD_NUM, false, NULL, 0),
    ROW(O_MOE_KERNEL, moe_kernel, SIM_FIELD_TEXT, false, NULL, 0),
    ROW(O_MOE_LAYOUT, moe_layout, SIM_FIELD_TEXT, false, NULL, 0),
    ROW(O_MOE_BLOCK_M, moe_block_m, SIM_FIELD_NUM, false, NULL, 0),
    ROW(O_MOE_PADDED_ROWS, moe_padded_rows, SIM_FIELD_NUM, false, NULL, 0),
    ROW(O_MOE_BUSIEST_RANK_ROWS, moe_busiest_rank_rows, SIM_FIELD_NUM, false, NULL, 0),
    ROW(O_MOE_RANK_IMBALANCE, moe_rank_imbalance, SIM_FIELD_NUM, false, NULL, 0),
    ROW(O_COLLECTIVE_ALGO, collective_algo, SIM_FIELD_TEXT, false, NULL, 0),
    ROW(O_COLLECTIVE_PROTOCOL, collective_protocol, SIM_FIELD_TEXT, false, NULL, 0),
    ROW(O_SHARE, share, SIM_FIELD_NUM, false, "share", 0),
};
#undef ROW

/* How run's text table sets a field: in `width` columns (left-aligned text, a number with
 * `decimals` places) between `before` and `after`. */
typedef struct step_fmt {
    int width, decimals;
    const char *before, *after;
} step_fmt;

/* An output: its rows in order (a row without a value is left out), its time unit and, for the
 * text table, how each is set. */
typedef struct step_list {
    const unsigned char *rows;
    size_t n;
    const char *unit;     /* the key suffix of a time */
    double per_ns;        /* ns in one unit */
    const step_fmt *fmts; /* SIM_FIELDS_TABLE: one per row; else NULL */
    bool label_keys;      /* keyed by the rows' labels: the network slice's args are its
                             hidden_us and exposed_us */
} step_list;

static const unsigned char step_json[] = {
    S_TIME,  S_T_LOWER,     S_T_UPPER,    S_FLOPS,  S_BYTES,    S_NET_BYTES,
    S_BOUND, S_T_MATH,      S_T_MEM,      S_T_NET,  S_T_LAUNCH, S_T_HOST,
    S_T_CPU, S_NET_EXPOSED, S_NET_HIDDEN, S_TOKENS, S_SEQUENCES};
static const unsigned char step_trace_stage[] = {S_TOKENS, S_SEQUENCES};
_Static_assert(sizeof step_trace_stage <= SIM_FIELDS_STAGE_MAX, "a stage's fields fit");
static const unsigned char step_trace[] = {S_TOKENS,    S_SEQUENCES,   S_FLOPS,     S_BYTES,
                                           S_NET_BYTES, S_BOUND,       S_TIME,      S_T_LOWER,
                                           S_T_UPPER,   S_NET_EXPOSED, S_NET_HIDDEN};
/* run's text table: the step's line, "step: 1.234 ms (bounds 1.100 .. 1.300 ms), memory-bound;
 * math 0.500, memory 1.000, network 0.100 (exposed 0.100, hidden 0.000), launch 0.010, host
 * 0.000 ms" */
static const unsigned char step_table[] = {S_TIME,       S_T_LOWER,  S_T_UPPER, S_BOUND,
                                           S_T_MATH,     S_T_MEM,    S_T_NET,   S_NET_EXPOSED,
                                           S_NET_HIDDEN, S_T_LAUNCH, S_T_HOST};
static const step_fmt step_table_fmts[] = {
    {0, 3, "", " ms"}, {0, 3, " (", ""}, {0, 3, " .. ", " ms)"}, {0, 0, ", ", "-bound"},
    {0, 3, "; ", ""},  {0, 3, ", ", ""}, {0, 3, ", ", ""},       {0, 3, " (", ""},
    {0, 3, ", ", ")"}, {0, 3, ", ", ""}, {0, 3, ", ", " ms"}};
static const unsigned char op_json[] = {
    O_REPEATS,       O_FLOPS,          O_BYTES,           O_WEIGHT_BYTES,    O_ACT_BYTES,
    O_KV_READ_BYTES, O_KV_WRITE_BYTES, O_NET_BYTES,       O_INTENSITY,       O_BOUND,
    O_TIME,          O_T_MATH,         O_T_MEM,           O_T_NET,           O_T_LAUNCH,
    O_NET_HIDDEN,    O_NET_EXPOSED,    O_EXPERTS_TOUCHED, O_COLLECTIVE_ALGO, O_COLLECTIVE_PROTOCOL,
    O_MOE_KERNEL,    O_MOE_LAYOUT,     O_MOE_BLOCK_M,     O_MOE_PADDED_ROWS, O_MOE_BUSIEST_RANK_ROWS,
    O_MOE_RANK_IMBALANCE};
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
                                         O_COLLECTIVE_PROTOCOL,
                                         O_EXPERTS_TOUCHED,
                                         O_MOE_KERNEL,
                                         O_MOE_BLOCK_M,
                                         O_MOE_PADDED_ROWS,
                                         O_MOE_BUSIEST_RANK_ROWS};
static const unsigned char op_trace_net[] = {O_NET_HIDDEN, O_NET_EXPOSED};
/* roofline's text table: an op's intensity and bound, around the device's ridge and roofline */
static const unsigned char op_table_roof[] = {O_INTENSITY, O_BOUND};
static const step_fmt op_table_roof_fmts[] = {{9, 1, " ", ""}, {8, 0, " ", ""}};
/* run's text table: a collective on the "collectives:" line, "attn_allreduce ring ll128" */
static const unsigned char op_table_coll[] = {O_COLLECTIVE_ALGO, O_COLLECTIVE_PROTOCOL};
static const step_fmt op_table_coll_fmts[] = {{0, 0, " ", ""}, {0, 0, " ", ""}};
/* run's text table: a grouped expert GEMM on the "moe:" line, "experts_gate_up triton sorted,
 * M block 16, 18.0 padded rows; busiest rank 1.13 rows (x2.25 the mean), 1.13 experts" */
static const unsigned char op_table_moe[] = {O_MOE_KERNEL,      O_MOE_LAYOUT,
                                             O_MOE_BLOCK_M,     O_MOE_PADDED_ROWS,
                                             O_MOE_BUSIEST_RANK_ROWS, O_MOE_RANK_IMBALANCE,
                                             O_EXPERTS_TOUCHED};
static const step_fmt op_table_moe_fmts[] = {
    {0, 0, " ", ""},           {0, 0, " ", ""},
    {0, 0, ", M block ", ""},  {0, 1, ", ", " padded rows"},
    {0, 2, "; busiest rank ", " rows"}, {0, 2, " (x", " the mean)"},
    {0, 2, ", ", " experts"}};
_Static_assert(sizeof op_table_moe == sizeof op_table_moe_fmts / sizeof op_table_moe_fmts[0],
               "a format per field of the moe line");
/* run's text table: the columns of an op's line after its name */
static const unsigned char op_table[] = {O_REPEATS, O_FLOPS, O_BYTES, O_INTENSITY, O_BOUND,
                                         O_T_MATH,  O_T_MEM, O_T_NET, O_TIME,      O_SHARE};
static const step_fmt op_table_fmts[] = {
    {5, 0, " ", ""},  {11, 3, " ", ""}, {11, 3, " ", ""}, {9, 1, " ", ""},  {8, 0, " ", ""},
    {10, 2, " ", ""}, {10, 2, " ", ""}, {10, 2, " ", ""}, {10, 2, " ", ""}, {5, 1, " ", "%"}};
_Static_assert(sizeof step_table == sizeof step_table_fmts / sizeof step_table_fmts[0],
               "a format per column of the step's line");
_Static_assert(sizeof op_table == sizeof op_table_fmts / sizeof op_table_fmts[0],
               "a format per column of the op table");
_Static_assert(sizeof op_table_roof == sizeof op_table_roof_fmts / sizeof op_table_roof_fmts[0],
               "a format per column of roofline's op table");
_Static_assert(sizeof op_table_coll == sizeof op_table_coll_fmts / sizeof op_table_coll_fmts[0],
               "a format per entry of the collectives line");

#define LIST(a, unit, per_ns, fmts)                                                                \
    {                                                                                              \
        (a), sizeof(a), (unit), (per_ns), (fmts), false                                            \
    }
static const step_list step_outputs[SIM_FIELDS_OUT_COUNT] = {
    [SIM_FIELDS_JSON] = LIST(step_json, "_ms", 1e6, NULL),
    [SIM_FIELDS_TRACE] = LIST(step_trace, "_us", 1e3, NULL),
    [SIM_FIELDS_TABLE] = LIST(step_table, "", 1e6, step_table_fmts),
    [SIM_FIELDS_TRACE_STAGE] = LIST(step_trace_stage, "_us", 1e3, NULL),
};
static const step_list op_outputs[SIM_FIELDS_OUT_COUNT] = {
    [SIM_FIELDS_JSON] = LIST(op_json, "_us", 1e3, NULL),
    [SIM_FIELDS_TRACE] = LIST(op_trace, "_us", 1e3, NULL),
    [SIM_FIELDS_TRACE_NET] = {op_trace_net, sizeof op_trace_net, "_us", 1e3, NULL, true},
    [SIM_FIELDS_TABLE] = LIST(op_table, "_us", 1e3, op_table_fmts),
    [SIM_FIELDS_TABLE_ROOF] = LIST(op_table_roof, "", 1, op_table_roof_fmts),
    [SIM_FIELDS_TABLE_COLL] = LIST(op_table_coll, "", 1, op_table_coll_fmts),
    [SIM_FIELDS_TABLE_MOE] = LIST(op_table_moe, "", 1, op_table_moe_fmts),
};
#undef LIST

/* A key or label in list l: the stem (or label), with the list's unit suffix for a time. */
static void name_in(char *dst, const char *stem, bool time_ns, const step_list *l)
{
    size_t a = strlen(stem), b = time_ns ? strlen(l->unit) : 0;
    memcpy(dst, stem, a); /* the longest stem (key or label) and unit fit in 40 characters */
    memcpy(dst + a, l->unit, b);
    dst[a + b] = '\0';
}

/* The fields of list l over rows, for op i (step rows ignore it). Keys are copied, not
 * formatted: the trace asks for an op's fields on every op slice it writes. */
static size_t list_fields(const step_row *rows, const step_list *l, const sim_step_result *s, int i,
                          sim_field *out)
{
    size_t n = 0;
    for (size_t k = 0; k < l->n; k++) {
        const step_row *row = &rows[l->rows[k]];
        sim_field *f = &out[n]; /* filled in place: no section or missing value here */
        f->kind = row->kind;
        f->decimals = 6;
        f->missing = false;
        f->num = 0.0;
        f->text = NULL;
        f->label[0] = '\0';
        f->section = NULL;
        f->width = 0;
        f->before = f->after = NULL;
        if (!row->get(s, i, f))
            continue;
        name_in(f->key, l->label_keys ? row->label : row->stem, row->time_ns, l);
        if (row->time_ns)
            f->num /= l->per_ns;
        if (l->fmts) {
            const step_fmt *m = &l->fmts[k];
            if (row->label)
                name_in(f->label, row->label, row->time_ns, l);
            if (row->per > 0.0)
                f->num /= row->per;
            f->width = m->width;
            f->decimals = m->decimals;
            f->before = m->before;
            f->after = m->after;
        }
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
