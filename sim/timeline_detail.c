/* timeline_detail.c - a step's layers and ops as nested slices, and the event counts of the size
 * estimates. */
#include "timeline_detail.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kvtier.h"
#include "pp.h"
#include "report.h"

static const char *const detail_names[SIM_TIMELINE_DETAIL_COUNT] = {"iteration", "layer", "op"};

bool sim_timeline_detail_parse(const char *s, sim_timeline_detail *out)
{
    for (int i = 0; i < SIM_TIMELINE_DETAIL_COUNT; i++) {
        if (strcmp(s, detail_names[i]) == 0) {
            *out = (sim_timeline_detail)i;
            return true;
        }
    }
    return false;
}

enum {
    TID_ISSUE = SIM_TIMELINE_DETAIL_TID_ISSUE,
    TID_COMPUTE = SIM_TIMELINE_DETAIL_TID_COMPUTE,
    TID_MEMORY = SIM_TIMELINE_DETAIL_TID_MEMORY,
    TID_NETWORK = SIM_TIMELINE_DETAIL_TID_NETWORK
};

static const char *const track_names[] = {"", "step / layer / op (as issued)", "compute (T_math)",
                                          "memory (T_mem)", "network (collectives)"};

void sim_timeline_detail_tracks(sim_timeline *t, int pid, bool all)
{
    for (int tid = TID_ISSUE; tid <= (all ? TID_NETWORK : TID_ISSUE); tid++)
        sim_timeline_name_thread(t, pid, tid, track_names[tid], tid);
}

/* Whole nanoseconds of an op instance on the as-issued track: its busy time, launch and the
 * network time not hidden behind compute. Truncated, so children never outgrow a parent. */
static int64_t op_ns(const sim_step_result *s, int i)
{
    const sim_op_cost *c = &s->cost[i];
    double busy = c->t_math_ns > c->t_mem_ns ? c->t_math_ns : c->t_mem_ns;
    return (int64_t)floor(busy + c->t_launch_ns + c->t_net_ns - s->hidden_ns[i]);
}

void sim_timeline_detail_add_fields(sim_targs *a, const sim_field *f, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        if (f[k].kind == SIM_FIELD_TEXT)
            sim_targs_str(a, f[k].key, f[k].text);
        else if (f[k].kind == SIM_FIELD_INT)
            sim_targs_int(a, f[k].key, (int64_t)f[k].num);
        else
            sim_targs_num(a, f[k].key, f[k].num);
    }
}

/* Fields (report.h's step and op tables) as the only args. */
static void fields_args(sim_targs *a, const sim_field *f, size_t n)
{
    sim_targs_reset(a);
    sim_timeline_detail_add_fields(a, f, n);
}

/* One op at t0: the as-issued slice and, at op detail, its compute, memory and network parts. */
static int64_t write_op(sim_timeline_detail_writer *w, const sim_step_result *s, int i, int64_t t0)
{
    int64_t d = op_ns(s, i);
    if (w->detail < SIM_TIMELINE_OP)
        return d;
    const sim_op_cost *c = &s->cost[i];
    const char *name = sim_op_info((sim_op_id)i)->name;
    sim_targs a;
    sim_field f[SIM_FIELDS_STEP_MAX];
    fields_args(&a, f, sim_report_op_fields(s, i, SIM_FIELDS_TRACE, f));
    sim_timeline_slice(w->t, w->pid, TID_ISSUE, name, "op", t0, d, &a);
    int64_t launch = (int64_t)floor(c->t_launch_ns);
    if (c->t_math_ns >= 1.0)
        sim_timeline_slice(w->t, w->pid, TID_COMPUTE, name, "compute", t0 + launch,
                           (int64_t)floor(c->t_math_ns), NULL);
    if (c->t_mem_ns >= 1.0)
        sim_timeline_slice(w->t, w->pid, TID_MEMORY, name, "memory", t0 + launch,
                           (int64_t)floor(c->t_mem_ns), NULL);
    if (c->t_net_ns >= 1.0) {
        double busy = c->t_math_ns > c->t_mem_ns ? c->t_math_ns : c->t_mem_ns;
        int64_t start = t0 + launch + (int64_t)floor(busy);
        if (start < w->net_free_ns)
            start = w->net_free_ns;
        int64_t dur = (int64_t)floor(c->t_net_ns);
        sim_targs n;
        fields_args(&n, f, sim_report_op_fields(s, i, SIM_FIELDS_TRACE_NET, f));
        sim_timeline_slice(w->t, w->pid, TID_NETWORK, name, "network", start, dur, &n);
        w->net_free_ns = start + dur;
    }
    return d;
}

/* Ops [from, to) that are present and of the given scope, from t0; returns the end. */
static int64_t write_ops(sim_timeline_detail_writer *w, const sim_step_result *s, int from, int to,
                         bool per_layer, int64_t t0)
{
    for (int i = from; i < to; i++)
        if (s->graph.ops[i].present && sim_op_info((sim_op_id)i)->per_layer == per_layer)
            t0 += write_op(w, s, i, t0);
    return t0;
}

/* Whether op i is a per-layer op that runs in layer l of the step. */
static bool in_layer(const sim_step_result *s, int i, int64_t l)
{
    return s->graph.ops[i].present && sim_op_info((sim_op_id)i)->per_layer &&
           sim_graph_op_in_layer(&s->graph, (sim_op_id)i, l);
}

/* The ops of layer `l`, from t0; returns the end. */
static int64_t write_layer_ops(sim_timeline_detail_writer *w, const sim_step_result *s, int64_t l,
                               int64_t t0)
{
    for (int i = 0; i < SIM_OP_COUNT; i++)
        if (in_layer(s, i, l))
            t0 += write_op(w, s, i, t0);
    return t0;
}

/* Whole nanoseconds of layer `l`'s ops. */
static int64_t layer_ns(const sim_step_result *s, int64_t l)
{
    int64_t t = 0;
    for (int i = 0; i < SIM_OP_COUNT; i++)
        if (in_layer(s, i, l))
            t += op_ns(s, i);
    return t;
}

/* The part's breakdown from t0: edges, layers, then host time. */
void sim_timeline_detail_write_part(sim_timeline_detail_writer *w, const sim_step_result *s,
                                    const sim_timeline_detail_part *p, int64_t t0)
{
    int64_t t = p->first ? write_ops(w, s, 0, SIM_OP_ATTN_NORM, false, t0) : t0; /* embed */
    for (int64_t l = p->l0; l < p->l1; l++) {
        char name[32];
        snprintf(name, sizeof name, "layer %lld", (long long)l);
        int64_t layer = layer_ns(s, l);
        sim_timeline_slice(w->t, w->pid, TID_ISSUE, name, "layer", t, layer, NULL);
        write_layer_ops(w, s, l, t);
        t += layer;
    }
    if (p->last)
        t = write_ops(w, s, SIM_OP_FINAL_NORM, SIM_OP_COUNT, false, t);
    int64_t host = (int64_t)floor(s->t_host_ns);
    if (host > 0 && p->first)
        sim_timeline_slice(w->t, w->pid, TID_ISSUE, "host (engine CPU)", "host", t, host, NULL);
}

/* The step's breakdown from t0: edges, layers, then host time. */
void sim_timeline_detail_write_step(sim_timeline_detail_writer *w, const sim_step_result *s,
                                    int64_t t0)
{
    const sim_timeline_detail_part whole = {0, s->graph.layers, true, true};
    sim_timeline_detail_write_part(w, s, &whole, t0);
}

/* Sum of the children's whole nanoseconds: the step slice's length. */
int64_t sim_timeline_detail_step_ns(const sim_step_result *s)
{
    int64_t t = 0;
    for (int i = 0; i < SIM_OP_COUNT; i++)
        if (s->graph.ops[i].present)
            t += op_ns(s, i) * (int64_t)sim_step_op_repeats(s, (sim_op_id)i);
    return t + (int64_t)floor(s->t_host_ns);
}

void sim_timeline_detail_step_args(sim_targs *a, const sim_step_result *s)
{
    sim_field f[SIM_FIELDS_STEP_MAX];
    fields_args(a, f, sim_report_step_fields(s, SIM_FIELDS_TRACE, f));
}

/* The iteration rows: each key once, its value read from sim_iter_info. */
typedef enum iter_row {
    I_BATCH_SIZE,
    I_PREFILL_TOKENS,
    I_DECODE_TOKENS,
    I_CACHED_PROMPT_TOKENS,
    I_CUDA_GRAPH_BATCH,
    I_KV_BLOCKS_USED,
    I_RUNNING,
    I_WAITING,
    I_DRAFT_US,
    I_BOUND,
    I_COUNT
} iter_row;

static void iter_arg(sim_targs *a, const sim_iter_info *it, iter_row row)
{
    static const char *const keys[I_COUNT] = {
        "batch_size",       "prefill_tokens", "decode_tokens", "cached_prompt_tokens",
        "cuda_graph_batch", "kv_blocks_used", "running",       "waiting",
        "draft_us",         "bound"};
    const int64_t counts[I_DRAFT_US] = {it->seqs,          it->prefill_tokens, it->decode_tokens,
                                        it->cached_tokens, it->graph_seqs,     it->kv_used_blocks,
                                        it->running,       it->waiting};
    if (row < I_DRAFT_US)
        sim_targs_int(a, keys[row], counts[row]);
    else if (row == I_DRAFT_US)
        sim_targs_num(a, keys[row], it->draft_ns / 1e3);
    else
        sim_targs_str(a, keys[row], sim_bound_name(it->step->bound));
}

void sim_timeline_detail_iter_args(sim_targs *a, const sim_iter_info *it,
                                   sim_timeline_detail_iter which)
{
    static const unsigned char engine[] = {
        I_BATCH_SIZE,       I_PREFILL_TOKENS, I_DECODE_TOKENS, I_CACHED_PROMPT_TOKENS,
        I_CUDA_GRAPH_BATCH, I_KV_BLOCKS_USED, I_RUNNING,       I_WAITING,
        I_DRAFT_US,         I_BOUND};
    static const unsigned char instance[] = {I_BATCH_SIZE,     I_PREFILL_TOKENS, I_DECODE_TOKENS,
                                             I_KV_BLOCKS_USED, I_RUNNING,        I_WAITING};
    const unsigned char *rows = which == SIM_TIMELINE_DETAIL_ITER_ENGINE ? engine : instance;
    size_t n = which == SIM_TIMELINE_DETAIL_ITER_ENGINE ? sizeof engine : sizeof instance;
    sim_targs_reset(a);
    for (size_t k = 0; k < n; k++)
        iter_arg(a, it, (iter_row)rows[k]);
}

double sim_timeline_detail_kv_usage_pct(const sim_iter_info *it)
{
    return it->kv_total_blocks > 0
               ? 100.0 * (double)it->kv_used_blocks / (double)it->kv_total_blocks
               : 0.0;
}

void sim_timeline_detail_kv_counter(sim_timeline *t, int pid, const sim_iter_info *it,
                                    bool blocks_used)
{
    sim_targs a;
    sim_targs_reset(&a);
    if (blocks_used)
        sim_targs_int(&a, "blocks_used", it->kv_used_blocks);
    sim_targs_num(&a, "usage_pct", sim_timeline_detail_kv_usage_pct(it));
    sim_timeline_counter(t, pid, "kv cache", it->start_ns, &a);
}

void sim_timeline_detail_tier(sim_timeline *t, int pid, int iter_tid, sim_timeline_tiers *st,
                              int64_t *flows, const sim_tier_move *m)
{
    const int track = 2 * m->tier + m->store, tid = SIM_TIMELINE_DETAIL_TID_TIER + track;
    const char *tier = sim_kvtier_name(m->tier);
    char name[32];
    snprintf(name, sizeof name, m->store ? "%s stores" : "%s loads", tier);
    if (!(st->named & (1u << track))) {
        sim_timeline_name_thread(t, pid, tid, name, tid);
        st->named |= 1u << track;
    }
    int64_t at = m->start_ns;
    if (m->store && st->store_free_ns[m->tier] > at)
        at = st->store_free_ns[m->tier];
    if (m->store)
        st->store_free_ns[m->tier] = at + m->dur_ns;
    snprintf(name, sizeof name, m->store ? "store to %s" : "load from %s", tier);
    sim_targs a;
    sim_targs_reset(&a);
    sim_targs_int(&a, "tokens", m->tokens);
    if (!m->store)
        sim_targs_int(&a, "requests", m->requests);
    sim_targs_num(&a, "MB", m->bytes / 1e6);
    sim_timeline_slice(t, pid, tid, name, "kv tier", at, m->dur_ns, &a);
    const int64_t id = ++*flows;
    if (m->store) { /* from the iteration that computed or evicted the KV */
        sim_timeline_flow(t, 's', pid, iter_tid, "kv tier", name, id, m->iter_ns);
        sim_timeline_flow(t, 'f', pid, tid, "kv tier", name, id, at);
    } else { /* to the iteration that waits for it */
        sim_timeline_flow(t, 's', pid, tid, "kv tier", name, id, at);
        sim_timeline_flow(t, 'f', pid, iter_tid, "kv tier", name, id, at + m->dur_ns);
    }
}

/* Whole nanoseconds of a stage part's children: the sum sim_timeline_detail_write_part lays out. */
int64_t sim_timeline_detail_part_ns(const sim_step_result *s, const sim_timeline_detail_part *p)
{
    int64_t t = 0;
    for (int i = 0; i < SIM_OP_COUNT; i++) {
        if (!s->graph.ops[i].present || sim_op_info((sim_op_id)i)->per_layer)
            continue;
        if (i < SIM_OP_ATTN_NORM ? p->first : i >= SIM_OP_FINAL_NORM && p->last)
            t += op_ns(s, i);
    }
    for (int64_t l = p->l0; l < p->l1; l++)
        t += layer_ns(s, l);
    return t + (p->first ? (int64_t)floor(s->t_host_ns) : 0);
}

/* Stage k's part of the model. */
sim_timeline_detail_part sim_timeline_detail_stage(const sim_step_cfg *cfg, int k)
{
    const int pp = sim_pp_stages(cfg);
    int64_t lay[SIM_PP_MAX];
    sim_pp_partition(cfg->model->layers, pp, lay);
    sim_timeline_detail_part p = {0, 0, k == 0, k == pp - 1};
    for (int i = 0; i < k; i++)
        p.l0 += lay[i];
    p.l1 = p.l0 + lay[k];
    return p;
}

/* Sizes: the mean bytes of each kind of event as this writer prints them (measured on a
 * Llama-3.1-70B TP8 run trace and Llama-3.1-8B serve traces at iteration and op detail;
 * full-precision args make an op slice about 317 bytes). */
static const double ev_bytes[SIM_TIMELINE_DETAIL_EV_KINDS] = {
    [SIM_TIMELINE_DETAIL_EV_META] = 80,    [SIM_TIMELINE_DETAIL_EV_STEP] = 360,
    [SIM_TIMELINE_DETAIL_EV_OP] = 317,     [SIM_TIMELINE_DETAIL_EV_PART] = 91,
    [SIM_TIMELINE_DETAIL_EV_NET] = 152,    [SIM_TIMELINE_DETAIL_EV_LAYER] = 92,
    [SIM_TIMELINE_DETAIL_EV_HOST] = 100,   [SIM_TIMELINE_DETAIL_EV_ITER] = 234,
    [SIM_TIMELINE_DETAIL_EV_COUNTER] = 98, [SIM_TIMELINE_DETAIL_EV_ASYNC] = 85,
    [SIM_TIMELINE_DETAIL_EV_STAGE] = 225,  [SIM_TIMELINE_DETAIL_EV_SEND] = 262,
    [SIM_TIMELINE_DETAIL_EV_MB] = 160};

/* Events sim_timeline_detail_write_step writes for one step at `detail`, by kind. */
void sim_timeline_detail_count(const sim_step_result *s, sim_timeline_detail detail, double *n)
{
    if (detail == SIM_TIMELINE_ITERATION)
        return;
    n[SIM_TIMELINE_DETAIL_EV_HOST] += (int64_t)floor(s->t_host_ns) > 0;
    n[SIM_TIMELINE_DETAIL_EV_LAYER] += (double)s->graph.layers;
    if (detail < SIM_TIMELINE_OP)
        return;
    for (int i = 0; i < SIM_OP_COUNT; i++) {
        if (!s->graph.ops[i].present)
            continue;
        double rep = sim_step_op_repeats(s, (sim_op_id)i);
        const sim_op_cost *c = &s->cost[i];
        n[SIM_TIMELINE_DETAIL_EV_OP] += rep;
        n[SIM_TIMELINE_DETAIL_EV_PART] += rep * ((c->t_math_ns >= 1.0) + (c->t_mem_ns >= 1.0));
        n[SIM_TIMELINE_DETAIL_EV_NET] += rep * (c->t_net_ns >= 1.0);
    }
}

double sim_timeline_detail_bytes(const double *n)
{
    double b = 64.0; /* header and footer */
    for (int k = 0; k < SIM_TIMELINE_DETAIL_EV_KINDS; k++)
        b += n[k] * ev_bytes[k];
    return b;
}
