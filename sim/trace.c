/* trace.c - streaming Chrome Trace Event JSON writer, the run and serve timelines, and the
 * checker. */
#include "trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jsonf.h"
#include "jstream.h"
#include "pp.h"

/* ------------------------------------------------------------------------------------------ */
/* Writing */

/* Integer nanoseconds as microseconds with three decimals: exact, so slices nest exactly. */
static void put_us(FILE *f, int64_t ns)
{
    if (ns < 0)
        ns = 0;
    fprintf(f, "%lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
}

/* JSON string escaping into a bounded buffer; returns the length written (the rest is cut). */
static size_t escape(char *dst, size_t cap, const char *s)
{
    size_t n = 0;
    for (; *s && n + 7 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            dst[n++] = '\\';
            dst[n++] = (char)c;
        } else if (c < 0x20) {
            n += (size_t)snprintf(dst + n, cap - n, "\\u%04x", c);
        } else {
            dst[n++] = (char)c;
        }
    }
    dst[n] = '\0';
    return n;
}

static void put_str(FILE *f, const char *s)
{
    char buf[512];
    escape(buf, sizeof buf, s);
    fprintf(f, "\"%s\"", buf);
}

void sim_targs_reset(sim_targs *a)
{
    a->len = 0;
    a->buf[0] = '\0';
}

static void targs_key(sim_targs *a, const char *key)
{
    if (a->len + 80 >= sizeof a->buf)
        return;
    if (a->len)
        a->buf[a->len++] = ',';
    a->buf[a->len++] = '"';
    a->len += escape(a->buf + a->len, sizeof a->buf - a->len - 4, key);
    a->buf[a->len++] = '"';
    a->buf[a->len++] = ':';
    a->buf[a->len] = '\0';
}

/* The shortest of %.15g, %.16g, %.17g that reads back as exactly v: full precision, and
 * 2799525.877 stays 2799525.877 rather than 2799525.8770000003. */
void sim_trace_fmt_num(char *buf, size_t len, double v)
{
    if (!isfinite(v))
        v = 0.0;
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

void sim_targs_num(sim_targs *a, const char *key, double v)
{
    targs_key(a, key);
    if (a->len + 32 < sizeof a->buf) {
        sim_trace_fmt_num(a->buf + a->len, sizeof a->buf - a->len, v);
        a->len += strlen(a->buf + a->len);
    }
}

void sim_targs_int(sim_targs *a, const char *key, int64_t v)
{
    targs_key(a, key);
    if (a->len + 32 < sizeof a->buf)
        a->len += (size_t)snprintf(a->buf + a->len, sizeof a->buf - a->len, "%lld", (long long)v);
}

void sim_targs_str(sim_targs *a, const char *key, const char *v)
{
    targs_key(a, key);
    if (a->len + 80 >= sizeof a->buf)
        return;
    a->buf[a->len++] = '"';
    a->len += escape(a->buf + a->len, sizeof a->buf - a->len - 4, v);
    a->buf[a->len++] = '"';
    a->buf[a->len] = '\0';
}

sim_status sim_trace_open(sim_trace *t, const char *path, sim_err *err)
{
    return sim_trace_open_meta(t, path, NULL, err);
}

sim_status sim_trace_open_meta(sim_trace *t, const char *path, const sim_targs *meta, sim_err *err)
{
    memset(t, 0, sizeof *t);
    sim_status st = sim_outfile_open(&t->out, path, "--chrome-trace", err);
    if (st)
        return st;
    fprintf(t->out.f,
            "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"infersim\"%s%s},"
            "\"traceEvents\":[\n",
            meta && meta->len ? "," : "", meta && meta->len ? meta->buf : "");
    t->first = true;
    return SIM_OK;
}

sim_status sim_trace_close(sim_trace *t, sim_err *err)
{
    if (!t->out.f)
        return SIM_OK;
    fputs("\n]}\n", t->out.f);
    return sim_outfile_commit(&t->out, err);
}

void sim_trace_abort(sim_trace *t) { sim_outfile_abort(&t->out); }

/* Starts an event object: separator, ph, pid, name. */
static void begin(sim_trace *t, char ph, int pid, const char *name)
{
    if (!t->first)
        fputs(",\n", t->out.f);
    t->first = false;
    t->events++;
    fprintf(t->out.f, "{\"ph\":\"%c\",\"pid\":%d,\"name\":", ph, pid);
    put_str(t->out.f, name);
}

static void end(sim_trace *t, const sim_targs *args)
{
    if (args && args->len)
        fprintf(t->out.f, ",\"args\":{%s}", args->buf);
    fputc('}', t->out.f);
}

void sim_trace_name_process(sim_trace *t, int pid, const char *name, int sort)
{
    sim_targs a;
    sim_targs_reset(&a);
    sim_targs_str(&a, "name", name);
    begin(t, 'M', pid, "process_name");
    end(t, &a);
    sim_targs_reset(&a);
    sim_targs_int(&a, "sort_index", sort);
    begin(t, 'M', pid, "process_sort_index");
    end(t, &a);
}

void sim_trace_name_thread(sim_trace *t, int pid, int tid, const char *name, int sort)
{
    sim_targs a;
    sim_targs_reset(&a);
    sim_targs_str(&a, "name", name);
    begin(t, 'M', pid, "thread_name");
    fprintf(t->out.f, ",\"tid\":%d", tid);
    end(t, &a);
    sim_targs_reset(&a);
    sim_targs_int(&a, "sort_index", sort);
    begin(t, 'M', pid, "thread_sort_index");
    fprintf(t->out.f, ",\"tid\":%d", tid);
    end(t, &a);
}

void sim_trace_slice(sim_trace *t, int pid, int tid, const char *name, const char *cat,
                     int64_t ts_ns, int64_t dur_ns, const sim_targs *args)
{
    begin(t, 'X', pid, name);
    fprintf(t->out.f, ",\"tid\":%d,\"cat\":", tid);
    put_str(t->out.f, cat);
    fputs(",\"ts\":", t->out.f);
    put_us(t->out.f, ts_ns);
    fputs(",\"dur\":", t->out.f);
    put_us(t->out.f, dur_ns);
    end(t, args);
}

void sim_trace_counter(sim_trace *t, int pid, const char *name, int64_t ts_ns,
                       const sim_targs *args)
{
    begin(t, 'C', pid, name);
    fputs(",\"ts\":", t->out.f);
    put_us(t->out.f, ts_ns);
    end(t, args);
}

void sim_trace_async(sim_trace *t, char ph, int pid, const char *cat, const char *name, int64_t id,
                     int64_t ts_ns, const sim_targs *args)
{
    begin(t, ph, pid, name);
    fputs(",\"cat\":", t->out.f);
    put_str(t->out.f, cat);
    fprintf(t->out.f, ",\"id\":%lld,\"ts\":", (long long)id);
    put_us(t->out.f, ts_ns);
    if (ph == 'n')
        fputs(",\"s\":\"t\"", t->out.f);
    end(t, args);
}

/* ------------------------------------------------------------------------------------------ */
/* A step, op by op */

enum { TID_ISSUE = 1, TID_COMPUTE = 2, TID_MEMORY = 3, TID_NETWORK = 4 };

static const char *const track_names[] = {"", "step / layer / op (as issued)", "compute (T_math)",
                                          "memory (T_mem)", "network (collectives)"};

static void name_tracks(sim_trace *t, int pid, bool all)
{
    for (int tid = TID_ISSUE; tid <= (all ? TID_NETWORK : TID_ISSUE); tid++)
        sim_trace_name_thread(t, pid, tid, track_names[tid], tid);
}

/* Whole nanoseconds of an op instance on the as-issued track: its busy time, launch and the
 * network time not hidden behind compute. Truncated, so children never outgrow a parent. */
static int64_t op_ns(const sim_step_result *s, int i)
{
    const sim_op_cost *c = &s->cost[i];
    double busy = c->t_math_ns > c->t_mem_ns ? c->t_math_ns : c->t_mem_ns;
    return (int64_t)floor(busy + c->t_launch_ns + c->t_net_ns - s->hidden_ns[i]);
}

typedef struct step_writer {
    sim_trace *t;
    int pid;
    sim_trace_detail detail;
    int64_t net_free_ns; /* the network track is free from here on */
} step_writer;

static void op_args(sim_targs *a, const sim_step_result *s, int i)
{
    const sim_op *op = &s->graph.ops[i];
    const sim_op_cost *c = &s->cost[i];
    double bytes = sim_op_bytes(op);
    sim_targs_reset(a);
    sim_targs_num(a, "flops", op->flops);
    sim_targs_num(a, "bytes", bytes);
    sim_targs_num(a, "net_bytes", op->net_bytes);
    sim_targs_num(a, "intensity", bytes > 0 ? op->flops / bytes : 0.0);
    sim_targs_str(a, "bound", sim_bound_name(c->bound));
    sim_targs_num(a, "t_math_us", c->t_math_ns / 1e3);
    sim_targs_num(a, "t_mem_us", c->t_mem_ns / 1e3);
    sim_targs_num(a, "t_net_us", c->t_net_ns / 1e3);
    sim_targs_num(a, "t_launch_us", c->t_launch_ns / 1e3);
    sim_targs_num(a, "net_hidden_us", s->hidden_ns[i] / 1e3);
    sim_targs_num(a, "net_exposed_us", (c->t_net_ns - s->hidden_ns[i]) / 1e3);
    if (op->net_ranks > 1) {
        sim_targs_str(a, "collective_algo", sim_coll_algo_name(c->coll_algo));
        sim_targs_str(a, "collective_protocol", sim_coll_proto_name(c->coll_proto));
    }
}

/* One op at t0: the as-issued slice and, at op detail, its compute, memory and network parts. */
static int64_t write_op(step_writer *w, const sim_step_result *s, int i, int64_t t0)
{
    int64_t d = op_ns(s, i);
    if (w->detail < SIM_TRACE_OP)
        return d;
    const sim_op_cost *c = &s->cost[i];
    const char *name = sim_op_info((sim_op_id)i)->name;
    sim_targs a;
    op_args(&a, s, i);
    sim_trace_slice(w->t, w->pid, TID_ISSUE, name, "op", t0, d, &a);
    int64_t launch = (int64_t)floor(c->t_launch_ns);
    if (c->t_math_ns >= 1.0)
        sim_trace_slice(w->t, w->pid, TID_COMPUTE, name, "compute", t0 + launch,
                        (int64_t)floor(c->t_math_ns), NULL);
    if (c->t_mem_ns >= 1.0)
        sim_trace_slice(w->t, w->pid, TID_MEMORY, name, "memory", t0 + launch,
                        (int64_t)floor(c->t_mem_ns), NULL);
    if (c->t_net_ns >= 1.0) {
        double busy = c->t_math_ns > c->t_mem_ns ? c->t_math_ns : c->t_mem_ns;
        int64_t start = t0 + launch + (int64_t)floor(busy);
        if (start < w->net_free_ns)
            start = w->net_free_ns;
        int64_t dur = (int64_t)floor(c->t_net_ns);
        sim_targs n;
        sim_targs_reset(&n);
        sim_targs_num(&n, "hidden_us", s->hidden_ns[i] / 1e3);
        sim_targs_num(&n, "exposed_us", (c->t_net_ns - s->hidden_ns[i]) / 1e3);
        sim_trace_slice(w->t, w->pid, TID_NETWORK, name, "network", start, dur, &n);
        w->net_free_ns = start + dur;
    }
    return d;
}

/* Ops [from, to) that are present and of the given scope, from t0; returns the end. */
static int64_t write_ops(step_writer *w, const sim_step_result *s, int from, int to, bool per_layer,
                         int64_t t0)
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
static int64_t write_layer_ops(step_writer *w, const sim_step_result *s, int64_t l, int64_t t0)
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

/* A pipeline stage's share of a step: layers [l0, l1), the embedding on the first stage, the
 * final norm, LM head and sampling on the last, the host time on the first (pp.h). The whole
 * step is the one stage of layers [0, layers). */
typedef struct stage_part {
    int64_t l0, l1;
    bool first, last;
} stage_part;

/* The part's breakdown from t0: edges, layers, then host time. */
static void write_part_children(step_writer *w, const sim_step_result *s, const stage_part *p,
                                int64_t t0)
{
    int64_t t = p->first ? write_ops(w, s, 0, SIM_OP_ATTN_NORM, false, t0) : t0; /* embed */
    for (int64_t l = p->l0; l < p->l1; l++) {
        char name[32];
        snprintf(name, sizeof name, "layer %lld", (long long)l);
        int64_t layer = layer_ns(s, l);
        sim_trace_slice(w->t, w->pid, TID_ISSUE, name, "layer", t, layer, NULL);
        write_layer_ops(w, s, l, t);
        t += layer;
    }
    if (p->last)
        t = write_ops(w, s, SIM_OP_FINAL_NORM, SIM_OP_COUNT, false, t);
    int64_t host = (int64_t)floor(s->t_host_ns);
    if (host > 0 && p->first)
        sim_trace_slice(w->t, w->pid, TID_ISSUE, "host (engine CPU)", "host", t, host, NULL);
}

/* The step's breakdown from t0: edges, layers, then host time. */
static void write_step_children(step_writer *w, const sim_step_result *s, int64_t t0)
{
    const stage_part whole = {0, s->graph.layers, true, true};
    write_part_children(w, s, &whole, t0);
}

/* Sum of the children's whole nanoseconds: the step slice's length. */
static int64_t step_children_ns(const sim_step_result *s)
{
    int64_t t = 0;
    for (int i = 0; i < SIM_OP_COUNT; i++)
        if (s->graph.ops[i].present)
            t += op_ns(s, i) * (int64_t)sim_step_op_repeats(s, (sim_op_id)i);
    return t + (int64_t)floor(s->t_host_ns);
}

static void step_args(sim_targs *a, const sim_step_result *s)
{
    sim_targs_reset(a);
    sim_targs_int(a, "tokens", s->graph.tokens);
    sim_targs_int(a, "sequences", s->graph.seqs);
    sim_targs_num(a, "flops", s->flops);
    sim_targs_num(a, "bytes", s->bytes);
    sim_targs_num(a, "net_bytes", s->net_bytes);
    sim_targs_str(a, "bound", sim_bound_name(s->bound));
    sim_targs_num(a, "time_us", s->t_ns / 1e3);
    sim_targs_num(a, "t_lower_us", s->t_lower_ns / 1e3);
    sim_targs_num(a, "t_upper_us", s->t_upper_ns / 1e3);
    sim_targs_num(a, "net_exposed_us", s->net_exposed_ns / 1e3);
    sim_targs_num(a, "net_hidden_us", s->net_hidden_ns / 1e3);
}

sim_status sim_trace_run(const char *path, const sim_step_cfg *cfg, const sim_step_result *prefill,
                         const sim_step_result *decode, bool all_ranks, sim_err *err)
{
    sim_trace t;
    sim_targs meta;
    sim_targs_reset(&meta);
    int ranks = all_ranks ? cfg->tp : 1;
    sim_targs_int(&meta, "tp", cfg->tp);
    sim_targs_int(&meta, "ranks_written", ranks);
    sim_targs_str(&meta, "ranks",
                  all_ranks ? "all: every GPU rank (tensor-parallel ranks are identical)"
                            : "one: GPU 0 stands for every rank (tensor-parallel ranks are "
                              "identical; --trace-ranks all writes each)");
    sim_status st = sim_trace_open_meta(&t, path, &meta, err);
    if (st)
        return st;
    for (int rank = 0; rank < ranks; rank++) {
        char name[64];
        snprintf(name, sizeof name, "GPU %d", rank);
        sim_trace_name_process(&t, rank, name, rank);
        name_tracks(&t, rank, true);
        step_writer w = {.t = &t, .pid = rank, .detail = SIM_TRACE_OP};
        int64_t t0 = 0;
        const sim_step_result *steps[2] = {prefill, decode};
        static const char *const names[2] = {"prefill step", "decode step"};
        for (int k = 0; k < 2; k++) {
            if (!steps[k])
                continue;
            sim_targs a;
            step_args(&a, steps[k]);
            int64_t d = step_children_ns(steps[k]);
            sim_trace_slice(&t, rank, TID_ISSUE, names[k], "step", t0, d, &a);
            write_step_children(&w, steps[k], t0);
            t0 += d;
        }
    }
    return sim_trace_close(&t, err);
}

/* ------------------------------------------------------------------------------------------ */
/* A run over pipeline stages */

enum { TID_SEND = 5 }; /* a stage's activations sent on to the next (async spans) */

/* Whole nanoseconds of a stage part's children: the sum write_part_children lays out. */
static int64_t part_children_ns(const sim_step_result *s, const stage_part *p)
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
static stage_part stage_of(const sim_step_cfg *cfg, int k)
{
    const int pp = sim_pp_stages(cfg);
    int64_t lay[SIM_PP_MAX];
    sim_pp_partition(cfg->model->layers, pp, lay);
    stage_part p = {0, 0, k == 0, k == pp - 1};
    for (int i = 0; i < k; i++)
        p.l0 += lay[i];
    p.l1 = p.l0 + lay[k];
    return p;
}

/* Run-trace state over the stages: one process per stage and rank (pid stage x ranks + rank). */
typedef struct pp_writer {
    sim_trace *t;
    const sim_step_cfg *cfg;
    int ranks;
    int64_t *net_free_ns; /* per process */
    int64_t next_id;      /* async ids of the transfers */
} pp_writer;

/* One micro-batch at stage k from start_ns (already priced as r): its stage slice with the
 * stage's ops nested inside, on every rank of the stage. */
static void write_stage_mb(pp_writer *pw, const sim_step_result *r, const char *name, int k, int j,
                           int64_t start_ns, double stage_ns)
{
    const stage_part p = stage_of(pw->cfg, k);
    const int64_t dur = (int64_t)floor(stage_ns);
    /* the stage time overlaps its own collectives (pp.c); when that hides more than the step's
     * share per op would, the ops do not fit: the stage slice stands alone */
    const bool nest = part_children_ns(r, &p) <= dur;
    sim_targs a;
    sim_targs_reset(&a);
    sim_targs_int(&a, "stage", k);
    sim_targs_int(&a, "first_layer", p.l0);
    sim_targs_int(&a, "last_layer", p.l1 - 1);
    sim_targs_int(&a, "micro_batch", j);
    sim_targs_int(&a, "tokens", r->graph.tokens);
    sim_targs_int(&a, "sequences", r->graph.seqs);
    sim_targs_num(&a, "stage_us", stage_ns / 1e3);
    for (int rank = 0; rank < pw->ranks; rank++) {
        const int pid = k * pw->ranks + rank;
        sim_trace_slice(pw->t, pid, TID_ISSUE, name, "stage", start_ns, dur, &a);
        if (!nest)
            continue;
        step_writer w = {.t = pw->t, .pid = pid, .detail = SIM_TRACE_OP};
        w.net_free_ns = pw->net_free_ns[pid] > start_ns ? pw->net_free_ns[pid] : start_ns;
        write_part_children(&w, r, &p, start_ns);
        pw->net_free_ns[pid] = w.net_free_ns;
    }
}

/* The activations of micro-batch j sent from stage k to k + 1: an async span on each rank. */
static void write_send(pp_writer *pw, const sim_step_result *r, int k, int j, int64_t from_ns,
                       double xfer_ns)
{
    char name[48];
    snprintf(name, sizeof name, "activations to stage %d", k + 1);
    sim_targs a;
    sim_targs_reset(&a);
    sim_targs_int(&a, "micro_batch", j);
    sim_targs_num(&a, "bytes_per_gpu", sim_pp_xfer_bytes(pw->cfg, (double)r->graph.tokens));
    sim_targs_str(&a, "link", sim_pp_boundary_scaleout(pw->cfg, k) ? "scale-out" : "scale-up");
    sim_targs_num(&a, "xfer_us", xfer_ns / 1e3);
    for (int rank = 0; rank < pw->ranks; rank++) {
        const int pid = k * pw->ranks + rank;
        const int64_t id = ++pw->next_id;
        sim_trace_async(pw->t, 'b', pid, "pp", name, id, from_ns, &a);
        sim_trace_async(pw->t, 'e', pid, "pp", name, id, from_ns + (int64_t)floor(xfer_ns), NULL);
    }
}

/* One step's micro-batches through the stages as a one-shot pipeline from base_ns (pp.h: fill
 * and drain); returns the makespan's whole nanoseconds. */
static int64_t write_pp_step(pp_writer *pw, const sim_step_cfg *cfg, const sim_seq_group *g,
                             const char *what, int64_t base_ns, sim_step_result *r,
                             sim_seq_group *scratch)
{
    const int pp = sim_pp_stages(cfg), m = sim_pp_micro_batches(cfg, g, 1);
    double free_ns[SIM_PP_MAX] = {0};
    for (int j = 0; j < m; j++) {
        size_t k = sim_pp_micro_batch(g, 1, j, m, scratch);
        sim_step_price(cfg, scratch, k, r);
        char name[48];
        snprintf(name, sizeof name, "%s micro-batch %d", what, j);
        double arrive = 0.0;
        for (int s = 0; s < pp; s++) {
            double ts = sim_pp_stage_ns(cfg, r, s);
            double x = s + 1 < pp ? sim_pp_xfer_ns(cfg, (double)r->graph.tokens, s) : 0.0;
            double start = sim_pp_enter(&free_ns[s], &arrive, ts, x);
            write_stage_mb(pw, r, name, s, j, base_ns + (int64_t)floor(start), ts);
            if (s + 1 < pp)
                write_send(pw, r, s, j, base_ns + (int64_t)floor(free_ns[s]), x);
        }
    }
    return (int64_t)ceil(free_ns[pp - 1]);
}

sim_status sim_trace_run_pp(const char *path, const sim_step_cfg *cfg, const sim_seq_group *prefill,
                            const sim_seq_group *decode, bool all_ranks, sim_err *err)
{
    const int pp = sim_pp_stages(cfg), ranks = all_ranks ? cfg->tp : 1;
    sim_step_result *r = malloc(sizeof *r);
    int64_t *net_free = calloc((size_t)pp * (size_t)ranks, sizeof *net_free);
    if (!r || !net_free) {
        free(r);
        free(net_free);
        return sim_fail(err, SIM_EINTERNAL, "out of memory for the trace");
    }
    sim_trace t;
    sim_targs meta;
    sim_targs_reset(&meta);
    sim_targs_int(&meta, "tp", cfg->tp);
    sim_targs_int(&meta, "pp", pp);
    sim_targs_int(&meta, "ranks_written", ranks);
    sim_targs_str(&meta, "ranks",
                  all_ranks ? "all: every GPU rank of every stage (a stage's tensor-parallel "
                              "ranks are identical)"
                            : "one per stage: its first GPU stands for its ranks (--trace-ranks "
                              "all writes each)");
    sim_targs_str(&meta, "pipeline",
                  "one process per stage; each step's micro-batches as a one-shot pipeline (fill "
                  "and drain); the decode step is one round drawn alone (the run's TPOT is the "
                  "steady round, where rounds overlap)");
    sim_status st = sim_trace_open_meta(&t, path, &meta, err);
    pp_writer pw = {.t = &t, .cfg = cfg, .ranks = ranks, .net_free_ns = net_free};
    for (int k = 0; !st && k < pp; k++) {
        const stage_part p = stage_of(cfg, k);
        for (int rank = 0; rank < ranks; rank++) {
            char name[96];
            if (all_ranks)
                snprintf(name, sizeof name, "stage %d GPU %d: layers %lld-%lld", k,
                         k * cfg->tp + rank, (long long)p.l0, (long long)(p.l1 - 1));
            else
                snprintf(name, sizeof name, "stage %d: layers %lld-%lld", k, (long long)p.l0,
                         (long long)(p.l1 - 1));
            const int pid = k * ranks + rank;
            sim_trace_name_process(&t, pid, name, pid);
            name_tracks(&t, pid, true);
        }
    }
    if (!st) {
        /* prefill runs eagerly (run.h), its decode steps as configured */
        sim_step_cfg pre = *cfg;
        pre.eager = sim_step_eager(cfg, true);
        sim_seq_group scratch;
        int64_t end = write_pp_step(&pw, &pre, prefill, "prefill", 0, r, &scratch);
        if (decode)
            write_pp_step(&pw, cfg, decode, "decode", end, r, &scratch);
        st = sim_trace_close(&t, err);
    }
    free(r);
    free(net_free);
    return st;
}

/* ------------------------------------------------------------------------------------------ */
/* Size estimates: events counted exactly, times the mean bytes of each kind as this writer
 * prints them (measured on a Llama-3.1-70B TP8 run trace and Llama-3.1-8B serve traces at
 * iteration and op detail; full-precision args make an op slice about 317 bytes). */

enum {
    EV_META,
    EV_STEP,
    EV_OP,
    EV_PART,
    EV_NET,
    EV_LAYER,
    EV_HOST,
    EV_ITER,
    EV_COUNTER,
    EV_ASYNC,
    EV_STAGE, /* a pipeline stage's micro-batch */
    EV_SEND,  /* a transfer to the next stage: begun (with args) and ended */
    EV_MB,    /* a serving stage's micro-batch */
    EV_KINDS
};
static const double ev_bytes[EV_KINDS] = {
    [EV_META] = 80,   [EV_STEP] = 360, [EV_OP] = 317,   [EV_PART] = 91,    [EV_NET] = 152,
    [EV_LAYER] = 92,  [EV_HOST] = 100, [EV_ITER] = 234, [EV_COUNTER] = 98, [EV_ASYNC] = 85,
    [EV_STAGE] = 225, [EV_SEND] = 262, [EV_MB] = 160};

/* Events write_step_children writes for one step at `detail`, by kind. */
static void count_step(const sim_step_result *s, sim_trace_detail detail, double *n)
{
    if (detail == SIM_TRACE_ITERATION)
        return;
    n[EV_HOST] += (int64_t)floor(s->t_host_ns) > 0;
    n[EV_LAYER] += (double)s->graph.layers;
    if (detail < SIM_TRACE_OP)
        return;
    for (int i = 0; i < SIM_OP_COUNT; i++) {
        if (!s->graph.ops[i].present)
            continue;
        double rep = sim_step_op_repeats(s, (sim_op_id)i);
        const sim_op_cost *c = &s->cost[i];
        n[EV_OP] += rep;
        n[EV_PART] += rep * ((c->t_math_ns >= 1.0) + (c->t_mem_ns >= 1.0));
        n[EV_NET] += rep * (c->t_net_ns >= 1.0);
    }
}

static double total_bytes(const double *n)
{
    double b = 64.0; /* header and footer */
    for (int k = 0; k < EV_KINDS; k++)
        b += n[k] * ev_bytes[k];
    return b;
}

double sim_trace_run_estimate_bytes(const sim_step_result *prefill, const sim_step_result *decode,
                                    int ranks)
{
    double n[EV_KINDS] = {0};
    n[EV_META] = 10; /* the process and its four tracks, each named and sorted */
    const sim_step_result *steps[2] = {prefill, decode};
    for (int k = 0; k < 2; k++)
        if (steps[k]) {
            n[EV_STEP] += 1;
            count_step(steps[k], SIM_TRACE_OP, n);
        }
    for (int k = 0; k < EV_KINDS; k++)
        n[k] *= ranks;
    return total_bytes(n);
}

double sim_trace_run_pp_estimate_bytes(const sim_step_cfg *cfg, const sim_seq_group *prefill,
                                       const sim_seq_group *decode, int ranks)
{
    sim_step_result *r = malloc(sizeof *r);
    if (!r)
        return -1.0; /* out of memory */
    const int pp = sim_pp_stages(cfg);
    double n[EV_KINDS] = {0};
    n[EV_META] = 10.0 * pp; /* each stage's process and its four tracks, named and sorted */
    sim_step_cfg pre = *cfg;
    pre.eager = sim_step_eager(cfg, true);
    const sim_seq_group *steps[2] = {prefill, decode};
    for (int k = 0; k < 2; k++) {
        if (!steps[k])
            continue;
        const int m = sim_pp_micro_batches(cfg, steps[k], 1);
        for (int j = 0; j < m; j++) {
            sim_seq_group g;
            size_t c = sim_pp_micro_batch(steps[k], 1, j, m, &g);
            sim_step_price(k == 0 ? &pre : cfg, &g, c, r);
            /* the stages' parts add up to the step; a stage slice each, a transfer each but the
             * last (begun and ended) */
            count_step(r, SIM_TRACE_OP, n);
            n[EV_STAGE] += pp;
            n[EV_SEND] += pp - 1;
        }
    }
    free(r);
    for (int k = 0; k < EV_KINDS; k++)
        n[k] *= ranks;
    return total_bytes(n);
}

double sim_trace_serve_estimate_bytes(sim_trace_detail detail, const sim_step_cfg *cfg,
                                      double iterations, double requests, double preemptions)
{
    double n[EV_KINDS] = {0};
    sim_step_result *s = malloc(sizeof *s);
    if (!s)
        return -1.0; /* out of memory */
    /* which ops run does not depend on the batch: one decode stands for all */
    sim_seq_group g = {.count = 1, .q = 1, .c = 1, .logits = 1};
    sim_step_price(cfg, &g, 1, s);
    count_step(s, detail, n);
    free(s);
    for (int k = 0; k < EV_KINDS; k++)
        n[k] *= iterations;
    n[EV_META] = 4 + 2.0 * (detail == SIM_TRACE_OP ? 4 : 1);
    /* stages: a process and track each, and a slice per micro-batch (counted at pp per
     * iteration, as under load; lighter batches cut fewer) */
    const int pp = sim_pp_stages(cfg);
    if (pp > 1) {
        n[EV_META] += 4.0 * pp;
        n[EV_MB] = (double)pp * pp * iterations;
    }
    n[EV_ITER] = iterations;
    n[EV_COUNTER] = 3.0 * iterations;
    /* a request: its span and three phases, begun and ended; a preemption: an instant and a
     * phase ended and begun */
    n[EV_ASYNC] = 8.0 * requests + 3.0 * preemptions;
    return total_bytes(n);
}

/* ------------------------------------------------------------------------------------------ */
/* Serving timeline */

static const char *const detail_names[SIM_TRACE_DETAIL_COUNT] = {"iteration", "layer", "op"};

bool sim_trace_detail_parse(const char *s, sim_trace_detail *out)
{
    for (int i = 0; i < SIM_TRACE_DETAIL_COUNT; i++) {
        if (strcmp(s, detail_names[i]) == 0) {
            *out = (sim_trace_detail)i;
            return true;
        }
    }
    return false;
}

enum { PID_ENGINE = 1, PID_REQUESTS = 2 };
enum { PH_NONE, PH_QUEUED, PH_PREFILL, PH_DECODE, PH_DONE };
enum { OPEN_SPAN = 1, OPEN_PHASE = 2 };
static const char *const phase_names[] = {"", "queued", "prefill", "decode", ""};

static void req_name(char *buf, size_t len, int64_t id)
{
    snprintf(buf, len, "request %lld", (long long)id);
}

static void open_span(sim_trace_serve *ts, int64_t id, int64_t t)
{
    char name[48];
    req_name(name, sizeof name, id);
    sim_targs a;
    sim_targs_reset(&a);
    sim_targs_num(&a, "arrival_s", (double)ts->arrival_ns[id] / 1e9);
    sim_trace_async(&ts->t, 'b', PID_REQUESTS, "request", name, id + 1, t, &a);
    ts->open[id] |= OPEN_SPAN;
}

static void open_phase(sim_trace_serve *ts, int64_t id, int64_t t)
{
    sim_trace_async(&ts->t, 'b', PID_REQUESTS, "request", phase_names[ts->phase[id]], id + 1, t,
                    NULL);
    ts->open[id] |= OPEN_PHASE;
}

static void close_phase(sim_trace_serve *ts, int64_t id, int64_t t)
{
    if (!(ts->open[id] & OPEN_PHASE))
        return;
    sim_trace_async(&ts->t, 'e', PID_REQUESTS, "request", phase_names[ts->phase[id]], id + 1, t,
                    NULL);
    ts->open[id] &= (unsigned char)~OPEN_PHASE;
}

static void close_span(sim_trace_serve *ts, int64_t id, int64_t t)
{
    close_phase(ts, id, t);
    if (!(ts->open[id] & OPEN_SPAN))
        return;
    char name[48];
    req_name(name, sizeof name, id);
    sim_trace_async(&ts->t, 'e', PID_REQUESTS, "request", name, id + 1, t, NULL);
    ts->open[id] &= (unsigned char)~OPEN_SPAN;
}

static bool active(const sim_trace_serve *ts) { return ts->started && !ts->ended; }

/* Opens the window when simulated time reaches it (spans of requests already in flight start at
 * its edge) and closes it when time passes its end. */
static void advance(sim_trace_serve *ts, int64_t t)
{
    if (!ts->started && t >= ts->w0_ns) {
        ts->started = true;
        for (size_t i = 0; i < ts->n; i++) {
            if (ts->phase[i] == PH_NONE || ts->phase[i] == PH_DONE)
                continue;
            open_span(ts, (int64_t)i, ts->w0_ns);
            open_phase(ts, (int64_t)i, ts->w0_ns);
        }
    }
    if (ts->started && !ts->ended && ts->w1_ns >= 0 && t > ts->w1_ns) {
        ts->ended = true;
        for (size_t i = 0; i < ts->n; i++)
            close_span(ts, (int64_t)i, ts->w1_ns);
    }
}

/* Closes the current phase of a request and opens the next one. */
static void enter_phase(sim_trace_serve *ts, int64_t id, unsigned char phase, int64_t t)
{
    close_phase(ts, id, t);
    ts->phase[id] = phase;
    if (active(ts) && (ts->open[id] & OPEN_SPAN))
        open_phase(ts, id, t);
}

static void on_request(void *ctx, int64_t id, sim_request_event ev, int64_t t)
{
    sim_trace_serve *ts = ctx;
    advance(ts, t);
    int64_t at = t < ts->w0_ns ? ts->w0_ns : t; /* an arrival before the window opened */
    switch (ev) {
    case SIM_EV_ARRIVED:
        ts->arrival_ns[id] = t;
        ts->phase[id] = PH_QUEUED;
        if (active(ts)) {
            open_span(ts, id, at);
            open_phase(ts, id, at);
        }
        return;
    case SIM_EV_PREEMPTED:
        if (active(ts))
            sim_trace_async(&ts->t, 'n', PID_REQUESTS, "request", "preempted", id + 1, t, NULL);
        enter_phase(ts, id, PH_QUEUED, t); /* back to the queue */
        return;
    case SIM_EV_SCHEDULED:
        enter_phase(ts, id, PH_PREFILL, t);
        return;
    case SIM_EV_DECODING:
        enter_phase(ts, id, PH_DECODE, t);
        return;
    case SIM_EV_FINISHED:
        close_span(ts, id, t);
        ts->phase[id] = PH_DONE;
        return;
    }
}

enum { PID_STAGES = 3 }; /* stage k: pid 3 + k */

/* With pipeline stages: each stage's busy time in the iteration, one slice per micro-batch
 * (pp.h: its stage time), back to back. Stage s starts where the first micro-batch reaches it
 * (the stage times and transfers before it), or earlier when its slices would not end by the
 * iteration's end otherwise (the steady round overlaps the stages); the rest is its wait. */
static void write_serve_stages(sim_trace_serve *ts, const sim_iter_info *it)
{
    const sim_step_cfg *cfg = it->step_cfg;
    if (!cfg || sim_pp_stages(cfg) == 1 || !it->groups || it->n_groups == 0)
        return;
    if (it->n_groups > ts->n_mb) {
        sim_seq_group *g = realloc(ts->mb, it->n_groups * sizeof *g);
        if (!g)
            return; /* out of memory: the stages' slices are left out of this iteration */
        ts->mb = g;
        ts->n_mb = it->n_groups;
    }
    if (!ts->mb_step && !(ts->mb_step = malloc(sizeof *ts->mb_step)))
        return;
    const int pp = sim_pp_stages(cfg), m = sim_pp_micro_batches(cfg, it->groups, it->n_groups);
    double t_ns[SIM_PP_MAX][SIM_PP_MAX];
    int64_t tokens[SIM_PP_MAX], seqs[SIM_PP_MAX], busy[SIM_PP_MAX] = {0}, reach[SIM_PP_MAX] = {0};
    for (int j = 0; j < m; j++) {
        size_t k = sim_pp_micro_batch(it->groups, it->n_groups, j, m, ts->mb);
        sim_step_price(cfg, ts->mb, k, ts->mb_step);
        tokens[j] = ts->mb_step->graph.tokens;
        seqs[j] = ts->mb_step->graph.seqs;
        double arrive = 0.0;
        for (int s = 0; s < pp; s++) {
            t_ns[j][s] = sim_pp_stage_ns(cfg, ts->mb_step, s);
            busy[s] += (int64_t)floor(t_ns[j][s]);
            if (j == 0)
                reach[s] = (int64_t)floor(arrive);
            arrive += t_ns[j][s] + (s + 1 < pp ? sim_pp_xfer_ns(cfg, (double)tokens[j], s) : 0.0);
        }
    }
    const int64_t end = it->start_ns + it->dur_ns;
    for (int s = 0; s < pp; s++) {
        int64_t at = it->start_ns + reach[s];
        if (at + busy[s] > end)
            at = end - busy[s] > it->start_ns ? end - busy[s] : it->start_ns;
        for (int j = 0; j < m; j++) {
            char name[32];
            snprintf(name, sizeof name, "micro-batch %d", j);
            sim_targs a;
            sim_targs_reset(&a);
            sim_targs_int(&a, "tokens", tokens[j]);
            sim_targs_int(&a, "sequences", seqs[j]);
            sim_targs_num(&a, "stage_us", t_ns[j][s] / 1e3);
            int64_t d = (int64_t)floor(t_ns[j][s]);
            if (at + d > end) /* a stage's busy time fits in its round (pp.h); rounding aside */
                d = end - at;
            sim_trace_slice(&ts->t, PID_STAGES + s, TID_ISSUE, name, "stage", at, d, &a);
            at += d;
        }
    }
}

static void on_iteration(void *ctx, const sim_iter_info *it)
{
    sim_trace_serve *ts = ctx;
    advance(ts, it->start_ns);
    if (!active(ts))
        return;
    sim_trace *t = &ts->t;
    sim_targs a;
    sim_targs_reset(&a);
    sim_targs_int(&a, "batch_size", it->seqs);
    sim_targs_int(&a, "prefill_tokens", it->prefill_tokens);
    sim_targs_int(&a, "decode_tokens", it->decode_tokens);
    sim_targs_int(&a, "cached_prompt_tokens", it->cached_tokens);
    sim_targs_int(&a, "cuda_graph_batch", it->graph_seqs);
    sim_targs_int(&a, "kv_blocks_used", it->kv_used_blocks);
    sim_targs_int(&a, "running", it->running);
    sim_targs_int(&a, "waiting", it->waiting);
    sim_targs_num(&a, "draft_us", it->draft_ns / 1e3);
    sim_targs_str(&a, "bound", sim_bound_name(it->step->bound));
    sim_trace_slice(t, PID_ENGINE, TID_ISSUE, "iteration", "iteration", it->start_ns, it->dur_ns,
                    &a);
    sim_targs_reset(&a);
    sim_targs_int(&a, "running", it->running);
    sim_targs_int(&a, "waiting", it->waiting);
    sim_trace_counter(t, PID_ENGINE, "requests", it->start_ns, &a);
    sim_targs_reset(&a);
    sim_targs_int(&a, "prefill", it->prefill_tokens);
    sim_targs_int(&a, "cached", it->cached_tokens);
    sim_targs_int(&a, "decode", it->decode_tokens);
    sim_trace_counter(t, PID_ENGINE, "batch tokens", it->start_ns, &a);
    sim_targs_reset(&a);
    sim_targs_int(&a, "blocks_used", it->kv_used_blocks);
    sim_targs_num(&a, "usage_pct",
                  it->kv_total_blocks > 0
                      ? 100.0 * (double)it->kv_used_blocks / (double)it->kv_total_blocks
                      : 0.0);
    sim_trace_counter(t, PID_ENGINE, "kv cache", it->start_ns, &a);
    write_serve_stages(ts, it);
    if (ts->detail == SIM_TRACE_ITERATION)
        return;
    int64_t t0 = it->start_ns;
    int64_t draft = (int64_t)floor(it->draft_ns);
    if (draft > 0)
        sim_trace_slice(t, PID_ENGINE, TID_ISSUE, "draft (speculative)", "draft", t0, draft, NULL);
    int64_t room = it->dur_ns - draft;
    if (step_children_ns(it->step) > room)
        return; /* rounding left no room to nest exactly: keep the iteration slice alone */
    step_writer w = {.t = t, .pid = PID_ENGINE, .detail = ts->detail, .net_free_ns = t0 + draft};
    write_step_children(&w, it->step, t0 + draft);
}

sim_status sim_trace_serve_open(sim_trace_serve *ts, const char *path, sim_trace_detail detail,
                                int64_t w0_ns, int64_t w1_ns, size_t n, const sim_step_cfg *step,
                                sim_err *err)
{
    memset(ts, 0, sizeof *ts);
    ts->phase = calloc(n ? n : 1, 1);
    ts->open = calloc(n ? n : 1, 1);
    ts->arrival_ns = calloc(n ? n : 1, sizeof *ts->arrival_ns);
    if (!ts->phase || !ts->open || !ts->arrival_ns) {
        sim_trace_serve_abort(ts);
        return sim_fail(err, SIM_EINTERNAL, "out of memory for the trace");
    }
    sim_status st = sim_trace_open(&ts->t, path, err);
    if (st) {
        sim_trace_serve_abort(ts);
        return st;
    }
    ts->detail = detail;
    ts->w0_ns = w0_ns;
    ts->w1_ns = w1_ns;
    ts->step = step;
    ts->n = n;
    ts->observer =
        (sim_engine_observer){.ctx = ts, .iteration = on_iteration, .request = on_request};
    sim_trace_name_process(&ts->t, PID_ENGINE, "engine", 0);
    name_tracks(&ts->t, PID_ENGINE, detail == SIM_TRACE_OP);
    sim_trace_name_process(&ts->t, PID_REQUESTS, "requests", 1);
    for (int k = 0; step && sim_pp_stages(step) > 1 && k < sim_pp_stages(step); k++) {
        const stage_part p = stage_of(step, k);
        char name[64];
        snprintf(name, sizeof name, "stage %d: layers %lld-%lld", k, (long long)p.l0,
                 (long long)(p.l1 - 1));
        sim_trace_name_process(&ts->t, PID_STAGES + k, name, 2 + k);
        sim_trace_name_thread(&ts->t, PID_STAGES + k, TID_ISSUE, "micro-batches", TID_ISSUE);
    }
    return SIM_OK;
}

sim_status sim_trace_serve_close(sim_trace_serve *ts, int64_t end_ns, sim_err *err)
{
    advance(ts, end_ns);
    for (size_t i = 0; i < ts->n; i++)
        close_span(ts, (int64_t)i, end_ns);
    sim_status st = sim_trace_close(&ts->t, err);
    free(ts->phase);
    free(ts->open);
    free(ts->arrival_ns);
    free(ts->mb);
    free(ts->mb_step);
    ts->phase = ts->open = NULL;
    ts->arrival_ns = NULL;
    ts->mb = NULL;
    ts->mb_step = NULL;
    return st;
}

void sim_trace_serve_abort(sim_trace_serve *ts)
{
    sim_trace_abort(&ts->t);
    free(ts->phase);
    free(ts->open);
    free(ts->arrival_ns);
    free(ts->mb);
    free(ts->mb_step);
    ts->phase = ts->open = NULL;
    ts->arrival_ns = NULL;
    ts->mb = NULL;
    ts->mb_step = NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* Checking */

typedef struct slice_rec {
    int64_t pid, tid, ts, end;
} slice_rec;

static int by_track_time(const void *a, const void *b)
{
    const slice_rec *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->end > y->end ? -1 : x->end < y->end; /* the longer (parent) first */
}

/* A JSON number that is an integer of at most 2^53 in magnitude (exact in a double, so the
 * int64_t cast is defined). */
static bool is_int(const cJSON *it)
{
    return cJSON_IsNumber(it) && isfinite(it->valuedouble) &&
           it->valuedouble == floor(it->valuedouble) && fabs(it->valuedouble) <= 9007199254740992.0;
}

/* A ts or dur in microseconds, in [0, SIM_TRACE_MAX_US]: ts + dur in ns stays far inside
 * int64_t. *raw is the value found (NAN when missing or not a number). */
static bool get_time(const cJSON *ev, const char *key, int64_t *ns, double *raw)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(ev, key);
    *raw = cJSON_IsNumber(it) ? it->valuedouble : NAN;
    if (!cJSON_IsNumber(it) || !(it->valuedouble >= 0 && it->valuedouble <= SIM_TRACE_MAX_US))
        return false;
    *ns = (int64_t)llround(it->valuedouble * 1000.0);
    return true;
}

/* (a, b) pairs -- (pid, tid) tracks, (cat hash, id) async spans -- each with a count, kept in
 * insertion order (so errors name the first offender) and found through an open-addressing
 * index: a trace of 20,000 requests has 40,000 async keys. */
typedef struct pair_map {
    int64_t (*k)[2];
    int64_t *v;
    size_t n, cap;
    size_t *slot; /* entry index + 1; 0 = empty; n_slots a power of two >= 2 cap */
    size_t n_slots;
} pair_map;

static size_t pair_hash(int64_t a, int64_t b)
{
    uint64_t h = (uint64_t)a * 0x9E3779B97F4A7C15ULL ^ (uint64_t)b;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ULL;
    return (size_t)(h ^ (h >> 29));
}

/* The slot holding (a, b), or the empty slot where it would go. */
static size_t map_slot(const pair_map *m, int64_t a, int64_t b)
{
    size_t mask = m->n_slots - 1, i = pair_hash(a, b) & mask;
    while (m->slot[i] && !(m->k[m->slot[i] - 1][0] == a && m->k[m->slot[i] - 1][1] == b))
        i = (i + 1) & mask;
    return i;
}

static bool map_has(const pair_map *m, int64_t a, int64_t b)
{
    return m->n_slots && m->slot[map_slot(m, a, b)];
}

/* The count of (a, b), inserted at 0 when new; NULL when out of memory. */
static int64_t *map_get(pair_map *m, int64_t a, int64_t b)
{
    size_t found = m->n_slots ? m->slot[map_slot(m, a, b)] : 0;
    if (found)
        return &m->v[found - 1];
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 16;
        int64_t(*k)[2] = realloc(m->k, cap * sizeof *k);
        if (k)
            m->k = k;
        int64_t *v = k ? realloc(m->v, cap * sizeof *v) : NULL;
        if (v)
            m->v = v;
        size_t *slot = v ? calloc(2 * cap, sizeof *slot) : NULL;
        if (!slot)
            return NULL;
        free(m->slot);
        m->slot = slot;
        m->n_slots = 2 * cap;
        m->cap = cap;
        for (size_t e = 0; e < m->n; e++)
            m->slot[map_slot(m, m->k[e][0], m->k[e][1])] = e + 1;
    }
    m->k[m->n][0] = a;
    m->k[m->n][1] = b;
    m->v[m->n] = 0;
    m->slot[map_slot(m, a, b)] = ++m->n;
    return &m->v[m->n - 1];
}

static void map_free(pair_map *m)
{
    free(m->k);
    free(m->v);
    free(m->slot);
}

typedef struct checker {
    const char *path;
    sim_trace_stats *st;
    slice_rec *slices;
    size_t n_slices, cap;
    pair_map named, used;
    pair_map depth; /* open async begins per (cat hash, id) */
    bool has_events;
} checker;

static sim_status bad(checker *c, long idx, const char *what, sim_err *err)
{
    return sim_fail(err, SIM_EINPUT, "%s: event %ld: %s", c->path, idx, what);
}

static sim_status bad_time(checker *c, long idx, const char *key, double raw, sim_err *err)
{
    char got[40];
    if (isnan(raw))
        snprintf(got, sizeof got, "missing or not a number");
    else
        snprintf(got, sizeof got, "%.17g", raw);
    return sim_fail(err, SIM_EINPUT,
                    "%s: event %ld: field '%s' is %s, expected microseconds in [0, %g]", c->path,
                    idx, key, got, SIM_TRACE_MAX_US);
}

static uint64_t str_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static sim_status check_async(checker *c, long idx, const cJSON *ev, char ph, sim_err *err)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(ev, "id");
    const cJSON *cat = cJSON_GetObjectItemCaseSensitive(ev, "cat");
    if (!is_int(id))
        return bad(c, idx, "async event without an integer id (|id| <= 2^53)", err);
    if (!cJSON_IsString(cat))
        return bad(c, idx, "async event without a cat", err);
    c->st->async_events++;
    if (ph == 'n')
        return SIM_OK;
    int64_t key = (int64_t)(str_hash(cat->valuestring) & 0x7fffffffffffffffLL);
    int64_t nid = (int64_t)id->valuedouble;
    int64_t *depth = map_get(&c->depth, key, nid);
    if (!depth)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    *depth += ph == 'b' ? 1 : -1;
    if (*depth < 0)
        return bad(c, idx, "async end without a matching begin", err);
    return SIM_OK;
}

static sim_status check_event(checker *c, long idx, const cJSON *ev, sim_err *err)
{
    const cJSON *ph = cJSON_GetObjectItemCaseSensitive(ev, "ph");
    const cJSON *pid = cJSON_GetObjectItemCaseSensitive(ev, "pid");
    const cJSON *tid = cJSON_GetObjectItemCaseSensitive(ev, "tid");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(ev, "name");
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(ev, "args");
    if (!cJSON_IsObject(ev) || !cJSON_IsString(ph) || strlen(ph->valuestring) != 1)
        return bad(c, idx, "not an object with a one-letter ph", err);
    if (!is_int(pid) || !cJSON_IsString(name))
        return bad(c, idx, "pid must be an integer (|pid| <= 2^53) and name a string", err);
    if (tid && !is_int(tid))
        return bad(c, idx, "tid must be an integer (|tid| <= 2^53)", err);
    char p = ph->valuestring[0];
    int64_t ipid = (int64_t)pid->valuedouble, itid = tid ? (int64_t)tid->valuedouble : 0;
    c->st->events++;
    if (p == 'M') {
        c->st->metadata++;
        bool names = strcmp(name->valuestring, "process_name") == 0 ||
                     strcmp(name->valuestring, "thread_name") == 0;
        if (names) {
            const cJSON *n = cJSON_GetObjectItemCaseSensitive(args, "name");
            if (!cJSON_IsString(n))
                return bad(c, idx, "name metadata without args.name", err);
            bool thread = name->valuestring[0] == 't';
            if (thread && !tid)
                return bad(c, idx, "thread_name without a tid", err);
            if (!map_get(&c->named, ipid, thread ? itid : -1))
                return sim_fail(err, SIM_EINTERNAL, "out of memory");
        }
        return SIM_OK;
    }
    int64_t ts;
    double raw;
    if (!get_time(ev, "ts", &ts, &raw))
        return bad_time(c, idx, "ts", raw, err);
    if (!map_get(&c->used, ipid, -1))
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    switch (p) {
    case 'X': {
        int64_t dur;
        if (!get_time(ev, "dur", &dur, &raw))
            return bad_time(c, idx, "dur", raw, err);
        if (!tid)
            return bad(c, idx, "X slice without a tid", err);
        if (!map_get(&c->used, ipid, itid))
            return sim_fail(err, SIM_EINTERNAL, "out of memory");
        if (c->n_slices == c->cap) {
            size_t cap = c->cap ? 2 * c->cap : 1024;
            slice_rec *s = realloc(c->slices, cap * sizeof *s);
            if (!s)
                return sim_fail(err, SIM_EINTERNAL, "out of memory");
            c->slices = s;
            c->cap = cap;
        }
        c->slices[c->n_slices++] = (slice_rec){ipid, itid, ts, ts + dur};
        c->st->slices++;
        if (ts + dur > c->st->end_ns)
            c->st->end_ns = ts + dur;
        const cJSON *cat = cJSON_GetObjectItemCaseSensitive(ev, "cat");
        if (cJSON_IsString(cat) && strcmp(cat->valuestring, "iteration") == 0) {
            c->st->iterations++;
            if (dur > INT64_MAX - c->st->iteration_ns)
                return bad(c, idx, "iteration durations sum past 2^63 ns", err);
            c->st->iteration_ns += dur;
            if (ts + dur > c->st->last_iteration_end_ns)
                c->st->last_iteration_end_ns = ts + dur;
        }
        return SIM_OK;
    }
    case 'C': {
        if (!cJSON_IsObject(args) || !args->child)
            return bad(c, idx, "counter without an args object", err);
        const cJSON *v;
        cJSON_ArrayForEach(v, args)
        {
            if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
                return bad(c, idx, "counter arg that is not a finite number", err);
        }
        c->st->counters++;
        return SIM_OK;
    }
    case 'b':
    case 'e':
    case 'n':
        return check_async(c, idx, ev, p, err);
    case 'i':
        c->st->instants++;
        return SIM_OK;
    default:
        return bad(c, idx, "unexpected phase", err);
    }
}

static sim_status check_nesting(checker *c, sim_err *err)
{
    if (c->n_slices > 0) /* qsort of a NULL array is undefined even for 0 elements */
        qsort(c->slices, c->n_slices, sizeof *c->slices, by_track_time);
    int64_t stack[64];
    int depth = 0;
    for (size_t i = 0; i < c->n_slices; i++) {
        const slice_rec *s = &c->slices[i];
        if (i == 0 || s->pid != c->slices[i - 1].pid || s->tid != c->slices[i - 1].tid) {
            depth = 0;
            c->st->tracks++;
        }
        while (depth > 0 && stack[depth - 1] <= s->ts)
            depth--;
        if (depth > 0 && s->end > stack[depth - 1])
            return sim_fail(err, SIM_EINPUT,
                            "%s: slices on pid %lld tid %lld overlap partially at ts %lld ns "
                            "(one ends at %lld, the next runs to %lld)",
                            c->path, (long long)s->pid, (long long)s->tid, (long long)s->ts,
                            (long long)stack[depth - 1], (long long)s->end);
        if (depth == 64)
            return sim_fail(err, SIM_EINPUT, "%s: slices nest deeper than 64", c->path);
        stack[depth++] = s->end;
    }
    return SIM_OK;
}

/* One value of the trace file: an event of traceEvents, or another top-level value. */
static sim_status on_value(void *ctx, const char *key, long index, const cJSON *v, sim_err *err)
{
    checker *c = ctx;
    if (strcmp(key, "traceEvents") != 0)
        return SIM_OK;
    if (index < 0 && !cJSON_IsArray(v))
        return sim_fail(err, SIM_EINPUT, "%s: no traceEvents array", c->path);
    c->has_events = true;
    return index < 0 ? SIM_OK : check_event(c, index, v, err);
}

sim_status sim_trace_check(const char *path, sim_trace_stats *stats, sim_err *err)
{
    memset(stats, 0, sizeof *stats);
    checker c = {.path = path, .st = stats};
    /* streamed: memory grows with the slices, not with the file */
    sim_status st =
        sim_jstream_object(path, "traceEvents", SIM_JSTREAM_MAX_VALUE, on_value, &c, err);
    if (!st && !c.has_events)
        st = sim_fail(err, SIM_EINPUT, "%s: no traceEvents array", path);
    for (size_t k = 0; !st && k < c.depth.n; k++)
        if (c.depth.v[k] != 0)
            st = sim_fail(err, SIM_EINPUT, "%s: async id %lld has %lld begins without an end", path,
                          (long long)c.depth.k[k][1], (long long)c.depth.v[k]);
    for (size_t k = 0; !st && k < c.used.n; k++)
        if (!map_has(&c.named, c.used.k[k][0], c.used.k[k][1]))
            st =
                c.used.k[k][1] < 0
                    ? sim_fail(err, SIM_EINPUT, "%s: pid %lld has no process_name metadata", path,
                               (long long)c.used.k[k][0])
                    : sim_fail(err, SIM_EINPUT, "%s: pid %lld tid %lld has no thread_name metadata",
                               path, (long long)c.used.k[k][0], (long long)c.used.k[k][1]);
    if (!st)
        st = check_nesting(&c, err);
    free(c.slices);
    map_free(&c.named);
    map_free(&c.used);
    map_free(&c.depth);
    return st;
}
