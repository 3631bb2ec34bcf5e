/* spec.c - speculative decoding: draft cost, acceptance, memory. */
#include "spec.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cost.h"

static const char *const method_names[SIM_SPEC_COUNT] = {
    [SIM_SPEC_NONE] = "none",     [SIM_SPEC_DRAFT] = "draft", [SIM_SPEC_EAGLE] = "eagle",
    [SIM_SPEC_MEDUSA] = "medusa", [SIM_SPEC_MTP] = "mtp",     [SIM_SPEC_NGRAM] = "ngram",
};

const char *sim_spec_method_name(sim_spec_method m) { return method_names[m]; }

bool sim_spec_active(const sim_spec *s) { return s && s->method != SIM_SPEC_NONE; }

bool sim_spec_method_parse(const char *s, sim_spec_method *out)
{
    for (int i = SIM_SPEC_DRAFT; i < SIM_SPEC_COUNT; i++) {
        if (strcmp(s, method_names[i]) == 0) {
            *out = (sim_spec_method)i;
            return true;
        }
    }
    return false;
}

double sim_spec_tau(double alpha, int k)
{
    if (alpha >= 1.0)
        return (double)k + 1.0;
    return (1.0 - pow(alpha, k + 1)) / (1.0 - alpha);
}

double sim_spec_alpha_for_tau(double tau, int k)
{
    if (tau >= (double)k + 1.0)
        return 1.0;
    if (tau <= 1.0)
        return 0.0;
    double lo = 0.0, hi = 1.0;
    for (int i = 0; i < 200 && hi - lo > 1e-15; i++) {
        double mid = 0.5 * (lo + hi);
        if (sim_spec_tau(mid, k) < tau)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

sim_status sim_spec_init(sim_spec *s, sim_spec_method method, int k, double alpha, double tau,
                         const sim_model *target, const sim_model *draft_model, sim_err *err)
{
    memset(s, 0, sizeof *s);
    s->method = method;
    if (method == SIM_SPEC_NONE)
        return SIM_OK;
    if (k < 1 || k > 16)
        return sim_fail(err, SIM_EINPUT, "--num-speculative-tokens: value %d, expected 1..16", k);
    s->k = k;
    if ((alpha >= 0.0) == (tau > 0.0))
        return sim_fail(err, SIM_EINPUT,
                        "--spec-acceptance-rate, --spec-acceptance-length: give exactly one "
                        "(per-token probability in [0, 1], or mean tokens per verify step in "
                        "[1, %d])",
                        k + 1);
    if (alpha >= 0.0) {
        if (alpha > 1.0)
            return sim_fail(err, SIM_EINPUT,
                            "--spec-acceptance-rate: value %g, expected a probability in [0, 1]",
                            alpha);
        s->alpha = alpha;
    } else {
        if (tau < 1.0 || tau > k + 1.0)
            return sim_fail(err, SIM_EINPUT,
                            "--spec-acceptance-length: value %g, expected 1..%d (K + 1 with "
                            "--num-speculative-tokens %d)",
                            tau, k + 1, k);
        s->alpha = sim_spec_alpha_for_tau(tau, k);
    }
    if ((method == SIM_SPEC_DRAFT) != (draft_model != NULL))
        return sim_fail(err, SIM_EINPUT,
                        method == SIM_SPEC_DRAFT
                            ? "--spec-model: missing, --spec-method draft needs the draft "
                              "model's config.json"
                            : "--spec-model: applies only to --spec-method draft");
    if (method == SIM_SPEC_DRAFT) {
        s->draft = draft_model;
    } else if (method == SIM_SPEC_EAGLE || method == SIM_SPEC_MTP) {
        s->head = *target;
        s->head.layers = method == SIM_SPEC_EAGLE ? 1 : target->mtp_layers;
        /* the head's layers are of the target's later kind: MoE (DeepSeek-V3's MTP layer is) and
         * full attention unless every layer slides */
        s->head.moe_layers = target->moe_layers > 0 ? s->head.layers : 0;
        s->head.sliding_layers = target->sliding_layers == target->layers ? s->head.layers : 0;
        if (s->head.layers < 1)
            return sim_fail(err, SIM_EINPUT,
                            "--spec-method: value mtp needs MTP layers, but %s has no "
                            "num_nextn_predict_layers",
                            target->path);
        snprintf(s->head.name, sizeof s->head.name, "%.80s-%s", target->name, method_names[method]);
        s->draft = &s->head;
    }
    return SIM_OK;
}

sim_status sim_spec_check(const sim_spec *s, const sim_step_cfg *target, sim_err *err)
{
    if (s->method != SIM_SPEC_DRAFT)
        return SIM_OK;
    if (s->draft->vocab != target->model->vocab)
        return sim_fail(err, SIM_EINPUT,
                        "--spec-model: %s has vocab_size %lld, the target %s has %lld; a draft "
                        "model must share the target's tokenizer",
                        s->draft->path, (long long)s->draft->vocab, target->model->path,
                        (long long)target->model->vocab);
    sim_status st = sim_graph_check(s->draft, target->tp, &target->prec, err);
    if (!st)
        st = sim_step_check_compute(s->draft, target->hw, &target->prec, err);
    if (st) {
        char msg[SIM_ERR_LEN];
        snprintf(msg, sizeof msg, "%s", err->msg);
        return sim_fail(err, st, "--spec-model (runs at the target's --tp): %s", msg);
    }
    return SIM_OK;
}

/* Weights of a Medusa head per GPU: a d x d residual block and a d x V LM head, 16-bit, both
 * split across the TP group. */
static double medusa_head_bytes(const sim_step_cfg *t)
{
    const sim_model *m = t->model;
    double rb = sim_dtype_bytes(sim_graph_resid_dtype(m, &t->prec));
    double d = (double)m->hidden, v = (double)((m->vocab + t->tp - 1) / t->tp);
    return (d * d / t->tp + v * d) * rb;
}

sim_mem_extra sim_spec_mem_extra(const sim_spec *s, const sim_step_cfg *t)
{
    sim_mem_extra x = {0};
    if (!sim_spec_active(s))
        return x;
    x.kv_slots_per_seq = s->k;
    switch (s->method) {
    case SIM_SPEC_DRAFT:
        x.weight_bytes = sim_graph_weight_bytes_per_gpu(s->draft, t->tp, &t->prec);
        x.kv_bytes_per_token = sim_graph_kv_bytes_per_token(s->draft, t->tp, &t->prec);
        break;
    case SIM_SPEC_EAGLE:
    case SIM_SPEC_MTP: {
        /* only the head's layers: it shares the target's embedding and LM head */
        sim_model none = s->head;
        none.layers = none.moe_layers = none.sliding_layers = 0;
        sim_par par = sim_step_par(t);
        x.weight_bytes = sim_graph_weight_bytes_par(&s->head, &par, &t->prec) -
                         sim_graph_weight_bytes_par(&none, &par, &t->prec);
        x.kv_bytes_per_token = sim_graph_kv_bytes_per_token_par(&s->head, &par, &t->prec);
        break;
    }
    case SIM_SPEC_MEDUSA:
        x.weight_bytes = s->k * medusa_head_bytes(t);
        break;
    default:
        break;
    }
    return x;
}

/* K Medusa heads over B sequences: per head a B x d x d GEMM and a B x d x V/N GEMM. t's launch
 * mode is the iteration's. */
static double medusa_ns(const sim_spec *s, const sim_step_cfg *t, double seqs)
{
    const sim_model *m = t->model;
    sim_dtype rdt = sim_graph_resid_dtype(m, &t->prec);
    sim_prec p16 = {.weight = rdt, .act = rdt, .kv = t->prec.kv};
    double rb = sim_dtype_bytes(rdt);
    double launch = sim_step_launch_ns(t);
    sim_op res, head;
    sim_graph_gemm(&res, SIM_OP_DOWN_PROJ, seqs, m->hidden / t->tp, m->hidden, rdt, &p16, rb);
    sim_graph_gemm(&head, SIM_OP_LM_HEAD, seqs, (m->vocab + t->tp - 1) / t->tp, m->hidden, rdt,
                   &p16, rb);
    double per_head =
        sim_cost_op(t->hw, &res, launch).t_ns + sim_cost_op(t->hw, &head, launch).t_ns;
    return s->k * per_head;
}

double sim_spec_draft_ns(const sim_spec *s, const sim_step_cfg *target,
                         const sim_seq_group *prefill, size_t n_prefill,
                         const sim_seq_group *decode, size_t n_decode, sim_seq_group *scratch,
                         sim_spec_memo *memo)
{
    if (s->method == SIM_SPEC_NONE || s->method == SIM_SPEC_NGRAM)
        return 0.0;
    if (s->method == SIM_SPEC_MEDUSA) {
        double seqs = 0.0;
        for (size_t i = 0; i < n_decode; i++)
            seqs += (double)decode[i].count;
        sim_step_cfg it = *target;
        it.eager = sim_step_eager(target, n_prefill > 0);
        return seqs > 0.0 ? medusa_ns(s, &it, seqs) : 0.0;
    }
    /* draft model or head: its own steps, no second share of the engine's host overhead */
    sim_step_cfg d = *target;
    d.model = s->draft;
    d.iteration_overhead_ns = d.request_overhead_ns = d.sync_overhead_ns = 0.0;
    double total = 0.0;
    sim_step_result fresh;
    for (int j = 0; j < s->k; j++) {
        size_t n = 0;
        if (j == 0)
            for (size_t i = 0; i < n_prefill; i++)
                scratch[n++] = prefill[i];
        for (size_t i = 0; i < n_decode; i++)
            scratch[n++] = (sim_seq_group){
                .count = decode[i].count, .q = 1, .c = decode[i].c + j, .logits = 1};
        if (n == 0)
            break;
        d.eager = sim_step_eager(target, j == 0 && n_prefill > 0);
        const sim_step_result *r = &fresh;
        if (memo)
            r = sim_step_price_memo(&d, scratch, n, j == 0 ? &memo->first[d.eager] : &memo->rest);
        else
            sim_step_price(&d, scratch, n, &fresh);
        total += r->t_ns;
    }
    return total;
}

int sim_spec_draw(const sim_spec *s, sim_rng *rng, int drafted)
{
    int a = 0;
    while (a < drafted && sim_rng_uniform(rng) < s->alpha)
        a++;
    return a;
}
