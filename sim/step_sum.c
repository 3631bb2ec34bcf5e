/* step_sum.c - sums of many steps (a static run's mean decode step): one at a time, and a memo's
 * runs of equal additions at once. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "step.h"
#include "step_internal.h"

/* Op i of x added into the sum: its fields, its cost and its hidden time. */
static void add_op(sim_step_result *sum, const sim_step_result *x, int i)
{
    sim_op *a = &sum->graph.ops[i];
    const sim_op *b = &x->graph.ops[i];
#define ADD(f) a->f += b->f;
    OP_FIELDS(ADD)
#undef ADD
#define ADD(f) sum->cost[i].f += x->cost[i].f;
    COST_FIELDS(ADD)
#undef ADD
    sum->hidden_ns[i] += x->hidden_ns[i];
}

/* The step's own sums added: hidden network, host and CPU time, its tokens and sequences. */
static void add_totals(sim_step_result *sum, const sim_step_result *x)
{
    sum->net_hidden_ns += x->net_hidden_ns;
    sum->t_host_ns += x->t_host_ns;
    sum->t_cpu_ns += x->t_cpu_ns;
    sum->graph.tokens += x->graph.tokens;
    sum->graph.seqs += x->graph.seqs;
    sum->graph.logit_tokens += x->graph.logit_tokens;
}

void sim_step_accumulate(sim_step_result *sum, const sim_step_result *x)
{
    if (sum->graph.layers == 0) {
        *sum = *x;
        return;
    }
    for (int i = 0; i < SIM_OP_COUNT; i++) {
        if (!x->graph.ops[i].present && !sum->graph.ops[i].present) /* an absent op costs nothing */
            continue;
        add_op(sum, x, i);
    }
    add_totals(sum, x);
}

/* Why a run of additions is exact (round to nearest, ties to even). For s >= x > 0, s normal in
 * the binade [2^(e-1), 2^e), the doubles there are the multiples of u = 2^(e-53) and s is one, so
 * s + x rounds to s + d, d the multiple of u nearest x (the same for every s of the binade),
 * unless x lies half-way between two multiples (a tie: then the rounding goes to the even
 * neighbour, which depends on s's last bit) or s + d leaves the binade. So while s + k d < 2^e,
 * k additions give exactly s + k d, itself a double (a multiple of u below 2^e), and k d is exact
 * (k d / u < 2^53 is an integer). Ties, the addition that crosses into the next binade, small s
 * (below x, or subnormal) and other signs are added one at a time, as the loop would. */
/* 2^k for a normal exponent k (-1022..1023), built from its bits. */
static double pow2(int k)
{
    const uint64_t b = (uint64_t)(k + 1023) << 52;
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}

double sim_step_add_repeated(double s, double x, int64_t n)
{
    if (n <= 0)
        return s;
    if (!(s >= 0.0 && x > 0.0 && isfinite(s) && isfinite(x))) {
        /* zero, negative or non-finite terms: rare, the plain loop (x == 0 after the first is
         * the identity, s + 0 once suffices) */
        if (x == 0.0 || !isfinite(x) || !isfinite(s))
            return s + x;
        for (; n > 0; n--)
            s += x;
        return s;
    }
    while (n > 0) {
        uint64_t bits;
        memcpy(&bits, &s, sizeof bits);
        const int e = (int)(bits >> 52) - 1022; /* s in [2^(e-1), 2^e) */
        if (s < x || e < -960 || e > 1023) { /* too small for the binade rule, or its top */
            s += x;                          /* would not be a double: one at a time */
            n--;
            if (!isfinite(s))
                return s;
            continue;
        }
        const double top = pow2(e), u = pow2(e - 53);
        const double r = s + x;
        const double d = r - s; /* exact: both multiples of u, below 2^e */
        if (r >= top || fabs(x - d) == 0.5 * u) {
            s = r;
            n--;
            continue;
        }
        if (d == 0.0) /* x under half a unit: no addition moves s */
            return s;
        /* the most k with s + k d < top: k d / u <= (top - s) / u - 1 */
        const int64_t room = (int64_t)((top - s) / u), inc = (int64_t)(d / u);
        int64_t k = (room - 1) / inc;
        if (k > n)
            k = n;
        s += (double)k * d;
        n -= k;
    }
    return s;
}

/* Adds what changes between memo hits: the context-dependent ops (acc->ctx: those present in
 * the sum or in the step, the others sim_step_accumulate skips) and the step's own sums. */
static void add_changing(sim_step_sum *acc, const sim_step_result *x)
{
    sim_step_result *sum = &acc->sum;
    for (int k = 0; k < acc->n_ctx; k++) {
        const int i = acc->ctx[k];
        add_op(sum, x, i);
    }
    add_totals(sum, x);
}

/* The pending run: the kept step's context-free op fields, added `pending` times each. */
static void flush(sim_step_sum *acc)
{
    if (acc->pending == 0)
        return;
    sim_step_result *sum = &acc->sum;
    const sim_step_result *x = &acc->kept;
    const int64_t n = acc->pending;
    for (int i = 0; i < SIM_OP_COUNT; i++) {
        sim_op *a = &sum->graph.ops[i];
        const sim_op *b = &x->graph.ops[i];
        if ((!b->present && !a->present) || sim_op_info((sim_op_id)i)->context)
            continue;
#define ADD(f) a->f = sim_step_add_repeated(a->f, b->f, n);
        OP_FIELDS(ADD)
#undef ADD
#define ADD(f) sum->cost[i].f = sim_step_add_repeated(sum->cost[i].f, x->cost[i].f, n);
        COST_FIELDS(ADD)
#undef ADD
        sum->hidden_ns[i] = sim_step_add_repeated(sum->hidden_ns[i], x->hidden_ns[i], n);
    }
    acc->pending = 0;
}

void sim_step_sum_add(sim_step_sum *acc, const sim_step_result *x, bool same_ops)
{
    if (same_ops && acc->sum.graph.layers != 0) {
        add_changing(acc, x);
        acc->pending++;
        return;
    }
    flush(acc);
    sim_step_accumulate(&acc->sum, x);
    acc->kept = *x;
    /* the context ops a run adds step by step: those sim_step_accumulate does not skip (an op's
     * presence is the shape's, which a run keeps) */
    acc->n_ctx = 0;
    for (int i = 0; i < SIM_OP_COUNT; i++)
        if (sim_op_info((sim_op_id)i)->context &&
            (acc->sum.graph.ops[i].present || x->graph.ops[i].present))
            acc->ctx[acc->n_ctx++] = i;
}

const sim_step_result *sim_step_sum_end(sim_step_sum *acc)
{
    flush(acc);
    return &acc->sum;
}
