/* spec.c - speculative decoding: draft cost, acceptance, memory. */
#include "spec.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cost.h"
#include "pp.h"

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

sim_spec_tree sim_spec_chain(int k)
{
    sim_spec_tree t = {.depth = k, .tokens = k + 1};
    for (int j = 0; j < k && j < SIM_SPEC_MAX_DEPTH; j++)
        t.width[j] = 1;
    return t;
}

int sim_spec_depth(const sim_spec *s) { return s->tree.depth > 0 ? s->tree.depth : s->k; }

double sim_spec_reach(const sim_spec *s, int i)
{
    if (i <= 0)
        return 1.0;
    if (i > sim_spec_depth(s))
        return 0.0;
    if (s->n_reach > 0)
        return s->reach[i];
    return pow(s->alpha, i);
}

double sim_spec_mean_tokens(const sim_spec *s)
{
    double t = 0.0;
    for (int i = 0; i <= sim_spec_depth(s); i++)
        t += sim_spec_reach(s, i);
    return t;
}

/* True when the tree is a chain: one token per level, root + depth tokens. */
static bool tree_is_chain(const sim_spec_tree *t)
{
    if (t->tokens != t->depth + 1)
        return false;
    for (int j = 0; j < t->depth; j++)
        if (t->width[j] != 1)
            return false;
    return true;
}

/* Acceptance from `acc` onto s (s->tree set). */
static sim_status set_acceptance(sim_spec *s, const sim_spec_accept *acc, sim_err *err)
{
    const int d = s->tree.depth;
    int given = (acc->alpha >= 0.0) + (acc->tau > 0.0) + (acc->n_rates > 0);
    if (given != 1)
        return sim_fail(err, SIM_EINPUT,
                        "--spec-acceptance-rate, --spec-acceptance-length, "
                        "--spec-acceptance-rates: give exactly one (per-depth probability in "
                        "[0, 1], mean tokens per verify step in [1, %d], or %d per-position "
                        "rates)",
                        d + 1, d);
    if (acc->alpha >= 0.0) {
        if (acc->alpha > 1.0)
            return sim_fail(err, SIM_EINPUT,
                            "--spec-acceptance-rate: value %g, expected a probability in [0, 1]",
                            acc->alpha);
        s->alpha = acc->alpha;
        return SIM_OK;
    }
    if (acc->tau > 0.0) {
        if (acc->tau < 1.0 || acc->tau > d + 1.0)
            return sim_fail(err, SIM_EINPUT,
                            "--spec-acceptance-length: value %g, expected 1..%d (the tree's "
                            "depth %d + 1)",
                            acc->tau, d + 1, d);
        s->alpha = sim_spec_alpha_for_tau(acc->tau, d);
        return SIM_OK;
    }
    if (acc->n_rates != d)
        return sim_fail(err, SIM_EINPUT,
                        "--spec-acceptance-rates: %d values, expected %d (one per draft depth)",
                        acc->n_rates, d);
    s->n_reach = d;
    s->reach[0] = 1.0;
    for (int i = 1; i <= d; i++) {
        double r = acc->rates[i - 1];
        if (!(r >= 0.0 && r <= s->reach[i - 1]))
            return sim_fail(err, SIM_EINPUT,
                            "--spec-acceptance-rates: value %g at position %d, expected a "
                            "probability in [0, %g] (no more than the one before: a token is "
                            "accepted only after every token before it)",
                            r, i - 1, s->reach[i - 1]);
        s->reach[i] = r;
    }
    s->alpha = s->reach[1];
    return SIM_OK;
}

/* The draft heads' model (eagle, mtp) or the draft model; none for medusa and ngram. */
static sim_status set_draft(sim_spec *s, sim_spec_method method, const sim_model *target,
                            const sim_model *draft_model, sim_err *err)
{
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
        /* an attention layer with an MLP, whatever the target's hybrid plan (Qwen3-Next's MTP
         * layer is full attention; a Mamba hybrid's EAGLE head a plain decoder layer) */
        s->head.linear_layers = s->head.no_mixer_layers = s->head.no_mlp_layers = 0;
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

sim_status sim_spec_init_tree(sim_spec *s, sim_spec_method method, const sim_spec_tree *tree,
                              const sim_spec_accept *acc, const char *flag,
                              const sim_model *target, const sim_model *draft_model,
                              sim_err *err)
{
    memset(s, 0, sizeof *s);
    s->method = method;
    if (method == SIM_SPEC_NONE)
        return SIM_OK;
    const sim_spec_tree *t = tree;
    if (t->depth < 1 || t->depth > SIM_SPEC_MAX_DEPTH)
        return sim_fail(err, SIM_EINPUT, "%s: depth %d, expected 1..%d draft levels", flag,
                        t->depth, SIM_SPEC_MAX_DEPTH);
    if (t->tokens < t->depth + 1 || t->tokens > SIM_SPEC_MAX_TOKENS)
        return sim_fail(err, SIM_EINPUT,
                        "%s: %d tree tokens, expected %d..%d (the root and at least one token "
                        "per level)",
                        flag, t->tokens, t->depth + 1, SIM_SPEC_MAX_TOKENS);
    for (int j = 0; j < t->depth; j++)
        if (t->width[j] < 1 || t->width[j] > SIM_SPEC_MAX_TOKENS)
            return sim_fail(err, SIM_EINPUT, "%s: level %d width %d, expected 1..%d", flag, j,
                            t->width[j], SIM_SPEC_MAX_TOKENS);
    s->tree = *t;
    s->k = t->tokens - 1;
    sim_status st = set_acceptance(s, acc, err);
    if (!st)
        st = set_draft(s, method, target, draft_model, err);
    return st;
}

sim_status sim_spec_set_eagle3(sim_spec *s, int64_t draft_vocab, sim_err *err)
{
    if (s->method != SIM_SPEC_EAGLE)
        return sim_fail(err, SIM_EINPUT,
                        "--spec-draft-vocab: applies to EAGLE-3 heads, not --spec-method %s",
                        method_names[s->method]);
    const int64_t v = s->head.vocab;
    if (draft_vocab < 0 || draft_vocab > v)
        return sim_fail(err, SIM_EINPUT,
                        "--spec-draft-vocab: value %lld, expected 1..%lld (the target's vocab_size)",
                        (long long)draft_vocab, (long long)v);
    s->eagle3 = true;
    s->target_vocab = v;
    s->draft_vocab = draft_vocab > 0 ? draft_vocab : v;
    s->head.vocab = s->draft_vocab; /* its own LM head (and the argmax over it) */
    return SIM_OK;
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
    if ((alpha >= 0.0) == (tau > 0.0))
        return sim_fail(err, SIM_EINPUT,
                        "--spec-acceptance-rate, --spec-acceptance-length: give exactly one "
                        "(per-token probability in [0, 1], or mean tokens per verify step in "
                        "[1, %d])",
                        k + 1);
    if (tau > 0.0 && (tau < 1.0 || tau > k + 1.0))
        return sim_fail(err, SIM_EINPUT,
                        "--spec-acceptance-length: value %g, expected 1..%d (K + 1 with "
                        "--num-speculative-tokens %d)",
                        tau, k + 1, k);
    sim_spec_tree chain = sim_spec_chain(k);
    sim_spec_accept acc = {.alpha = alpha, .tau = tau};
    return sim_spec_init_tree(s, method, &chain, &acc, "--num-speculative-tokens", target,
                              draft_model, err);
}

sim_status sim_spec_check_deployment(const sim_spec *s, const sim_step_cfg *target, sim_err *err)
{
    sim_status st = sim_step_check(target, err);
    if (!st && sim_spec_active(s))
        st = sim_spec_check(s, target, err);
    if (!st && sim_pp_stages(target) > 1 && sim_spec_active(s))
        st = sim_fail(err, SIM_EINPUT,
                      "--pp with --spec-method: speculative decoding over "
                      "pipeline stages is not modeled; expected one of them");
    return st;
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

/* The head's own weights beyond its decoder layers, per GPU, 16-bit: EAGLE-1's and MTP's 2d x d
 * input projection (vLLM llama_eagle.py fc, deepseek_mtp.py eh_proj: unsharded linears, one per
 * MTP layer; Qwen3-Next's one fc for all its MTP layers is column-parallel, qwen3_next_mtp.py),
 * EAGLE-3's 3d x d fusion fc (unsharded), the embedding half of its QKV projection (sharded) and
 * its own LM head (draft_vocab rows, vocab-parallel: vLLM shares the target's LM head with EAGLE-1
 * only, vllm/v1/spec_decode/eagle.py load_model). */
static double head_own_bytes(const sim_spec *s, const sim_step_cfg *t)
{
    const sim_model *m = t->model;
    const double rb = sim_dtype_bytes(sim_graph_resid_dtype(m, &t->prec));
    const double d = (double)m->hidden;
    if (s->method == SIM_SPEC_MTP && m->mtp_shared_fc) /* Qwen3-Next: one fc, column-parallel */
        return 2.0 * d * (double)((m->hidden + t->tp - 1) / t->tp) * rb;
    if (s->method == SIM_SPEC_MTP)
        return 2.0 * d * d * rb * (double)s->head.layers;
    if (s->method != SIM_SPEC_EAGLE)
        return 0.0;
    if (!s->eagle3)
        return 2.0 * d * d * rb;
    const double qkv = (double)(m->heads + 2 * m->kv_heads) * (double)m->head_dim / t->tp;
    const double lm = (double)((s->draft_vocab + t->tp - 1) / t->tp) * d;
    return (3.0 * d * d + qkv * d + lm) * rb;
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
        none.linear_layers = none.no_mixer_layers = none.no_mlp_layers = 0;
        sim_par par = sim_step_par(t);
        x.weight_bytes = sim_graph_weight_bytes_par(&s->head, &par, &t->prec) -
                         sim_graph_weight_bytes_par(&none, &par, &t->prec) +
                         head_own_bytes(s, t);
        x.kv_bytes_per_token = sim_graph_kv_bytes_per_token_par(&s->head, &par, &t->prec);
        break;
    }
    case SIM_SPEC_MEDUSA:
        x.weight_bytes = sim_spec_depth(s) * medusa_head_bytes(t);
        break;
    default:
        break;
    }
    return x;
}

/* The Medusa heads (one per tree level) over B sequences: per head a B x d x d GEMM and a B x d x V/N GEMM. t's launch
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
    return sim_spec_depth(s) * per_head;
}

/* One GEMM of m tokens x n outputs x k inputs, 16-bit, at d's launch mode. */
static double head_gemm_ns(const sim_step_cfg *d, double m, double n, double k)
{
    sim_dtype rdt = sim_graph_resid_dtype(d->model, &d->prec);
    sim_prec p16 = {.weight = rdt, .act = rdt, .kv = d->prec.kv};
    sim_op op;
    sim_graph_gemm(&op, SIM_OP_DOWN_PROJ, m, (int64_t)n, (int64_t)k, rdt, &p16,
                   sim_dtype_bytes(rdt));
    return sim_step_cost_op(d, &op, sim_step_launch_ns(d)).t_ns;
}

double sim_spec_head_extra_ns(const sim_spec *s, const sim_step_cfg *d, double tokens,
                              double rows, bool first)
{
    if (!sim_spec_active(s) || tokens <= 0.0 ||
        (s->method != SIM_SPEC_EAGLE && s->method != SIM_SPEC_MTP))
        return 0.0;
    const sim_model *m = d->model;
    const double h = (double)m->hidden;
    if (s->method == SIM_SPEC_MTP && m->mtp_shared_fc)
        /* Qwen3-Next: one fc over cat(norm(embed), norm(hidden)), its d outputs split by TP
         * (ColumnParallelLinear; the gather of its tokens x d outputs is not priced) */
        return head_gemm_ns(d, tokens, (double)((m->hidden + d->tp - 1) / d->tp), 2.0 * h);
    if (s->method == SIM_SPEC_MTP) /* eh_proj over cat(enorm(embed), hnorm(hidden)), per layer */
        return (double)s->head.layers * head_gemm_ns(d, tokens, h, 2.0 * h);
    if (!s->eagle3) /* EAGLE-1: fc over cat(embed, hidden) before the layer */
        return head_gemm_ns(d, tokens, h, 2.0 * h);
    /* EAGLE-3: the QKV projection's embedding half (the step prices the d-wide one) */
    const double qkv = (double)(m->heads + 2 * m->kv_heads) * (double)m->head_dim / d->tp;
    double t = head_gemm_ns(d, tokens, qkv, h);
    if (first) /* combine_hidden_states: fc over the target's three hidden states */
        t += head_gemm_ns(d, tokens, h, 3.0 * h);
    const double v = (double)s->draft_vocab;
    if (s->prop.full_vocab_logits && rows > 0.0 && s->draft_vocab < s->target_vocab) {
        /* vLLM Eagle3LlamaForCausalLM.compute_logits, outside the graph: arange, add, new_full of
         * rows x V at -inf (written), index_put of the rows x Vd logits (read and written), then
         * argmax over V instead of Vd (read V - Vd more) */
        const double V = (double)s->target_vocab;
        const double rb = sim_dtype_bytes(sim_graph_resid_dtype(m, &d->prec));
        sim_op op = {.id = SIM_OP_SAMPLING, .present = true, .kernels = 4};
        op.act_bytes = rows * (V + 2.0 * v + (V - v)) * rb;
        op.compute = sim_graph_resid_dtype(m, &d->prec);
        t += sim_cost_op(d->hw, &op, d->hw->launch_ns).t_ns;
    }
    return t;
}

/* Draft levels an iteration under a load rule runs: the verifying sequences' q - 1 for a chain
 * (the rule's depth), the tree's depth for a tree (a rule turns a tree on or off, whole). */
static int draft_levels(const sim_spec *s, const sim_seq_group *decode, size_t n_decode)
{
    int64_t q = 1;
    for (size_t i = 0; i < n_decode; i++)
        if (decode[i].q > q)
            q = decode[i].q;
    if (q <= 1)
        return 0;
    int d = sim_spec_depth(s);
    return q - 1 < d ? (int)(q - 1) : d;
}

/* The host's ops for the verify's metadata (the proposer's verify_host_ops), paid once an
 * iteration that verifies sequences, when its loop is synchronous: the target's configuration
 * without asynchronous scheduling, or an engine that turns it off under speculation (sync_host).
 * The later draft passes' preparation runs while the GPU executes the pass before it (no
 * blocking read inside the propose loop), so only the first pass's prologue and this metadata
 * cost host time rather than launches. */
static double verify_host_ns(const sim_spec *s, const sim_step_cfg *target, size_t n_decode)
{
    if (n_decode == 0 || (target->async_sched && !s->sync_host))
        return 0.0;
    return (double)s->prop.verify_host_ops * fmax(target->hw->launch_ns, s->prop.host_op_cpu_ns);
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
    int levels = sim_spec_depth(s);
    if (s->adapt.n > 0 && n_decode > 0) /* a load rule may draft a shorter chain this iteration */
        levels = draft_levels(s, decode, n_decode);
    for (int j = 0; j < levels; j++) {
        /* level j > 0 drafts width[j] tokens per sequence (the chain's one); the first forward
         * runs over the tokens the last verify accepted, padded to levels + 1 per sequence, and
         * takes logits at the last (vLLM V1 vllm/v1/spec_decode/eagle.py propose: the first
         * draft pass over the target's verified tokens; SGLang eagle_worker.py
         * forward_draft_extend_after_decode, padded to speculative_num_steps + 1 under CUDA
         * graphs) */
        int64_t w = s->tree.depth > 0 ? s->tree.width[j] : 1;
        int64_t q = j == 0 ? levels + 1 : w, lg = j == 0 ? 1 : w;
        size_t n = 0;
        if (j == 0)
            for (size_t i = 0; i < n_prefill; i++)
                scratch[n++] = prefill[i];
        for (size_t i = 0; i < n_decode; i++)
            scratch[n++] = (sim_seq_group){
                .count = decode[i].count, .q = q, .c = decode[i].c + j, .logits = lg};
        if (n == 0)
            break;
        /* the engine's proposer may run a pass eagerly where the target replays graphs (vLLM
         * before its EAGLE graphs, SGLang 0.4's draft extend: sim_spec_proposer_for) */
        d.eager = sim_step_eager(target, j == 0 && n_prefill > 0) ||
                  (j == 0 ? s->prop.first_eager : s->prop.steps_eager);
        /* an uncompiled eager pass dispatches each kernel from Python: the step waits for the
         * CPU where that exceeds the pass's GPU time (sim_step_host_ns) */
        d.eager_kernel_cpu_ns = fmax(target->eager_kernel_cpu_ns, s->prop.eager_pass_cpu_ns);
        /* the first pass plans its attention as a prefill over several tokens per sequence: an
         * engine whose plan waits on the device (the target's sync_overhead_ns, SGLang 0.4's
         * FlashInfer plan copying its index pointers to the host: hw/engines/sglang-0.4.json)
         * pays that wait here too; the later draft steps plan on the host (SGLang's
         * fast_decode_plan for the multi-step draft backend) */
        d.sync_overhead_ns = j == 0 ? target->sync_overhead_ns : 0.0;
        const sim_step_result *r = &fresh;
        if (memo)
            r = sim_step_price_memo(&d, scratch, n, j == 0 ? &memo->first[d.eager] : &memo->rest);
        else
            sim_step_price(&d, scratch, n, &fresh);
        double tokens = 0.0, rows = 0.0;
        for (size_t i = 0; i < n; i++) {
            tokens += (double)scratch[i].count * (double)scratch[i].q;
            rows += (double)scratch[i].count * (double)scratch[i].logits;
        }
        /* the proposer's own input preparation: eager kernels launched one after another
         * (counted from the engine's source: sim_spec_proposer_for), each the device's eager
         * launch or, when the engine's Python dispatch of a kernel takes longer, that CPU time
         * (the profile's eager_kernel_cpu_us: step.h) */
        const int host = j == 0 ? s->prop.first_host_kernels : s->prop.step_host_kernels;
        const double per_kernel = fmax(target->hw->launch_ns, target->eager_kernel_cpu_ns);
        total += r->t_ns + sim_spec_head_extra_ns(s, &d, tokens, rows, j == 0) +
                 (double)host * (j == 0 ? fmax(per_kernel, s->prop.host_op_cpu_ns) : per_kernel);
    }
    return total + (levels > 0 ? verify_host_ns(s, target, n_decode) : 0.0);
}

int sim_spec_draw(const sim_spec *s, sim_rng *rng, int drafted)
{
    /* at most the tree's depth along its accepted path */
    int most = sim_spec_depth(s) < drafted ? sim_spec_depth(s) : drafted;
    int a = 0;
    if (s->n_reach == 0) {
        while (a < most && sim_rng_uniform(rng) < s->alpha)
            a++;
        return a;
    }
    /* depth a + 1 is accepted given depth a was with reach[a + 1] / reach[a] */
    while (a < most && s->reach[a] > 0.0 &&
           sim_rng_uniform(rng) < s->reach[a + 1] / s->reach[a])
        a++;
    return a;
}

int sim_spec_adapt_depth(const sim_spec *s, int64_t batch)
{
    int d = sim_spec_depth(s);
    for (int i = 0; i < s->adapt.n; i++)
        if (s->adapt.batch_min[i] <= batch)
            d = s->adapt.depth[i];
    return d;
}

/* The tree kernels of one iteration (SGLang eagle_worker.py: a top-k selection after every draft
 * forward but the last, build_tree_kernel_efficient, verify_tree_greedy or
 * tree_speculative_sampling_target_only), each a launch. */
static int tree_kernels(const sim_spec_tree *t) { return (t->depth - 1) + 2; }

double sim_spec_tree_ns(const sim_spec *s, const sim_step_cfg *target, double seqs)
{
    if (!sim_spec_active(s) || s->tree.depth == 0 || tree_is_chain(&s->tree) || seqs <= 0.0)
        return 0.0;
    const sim_model *m = target->model;
    const double n = (double)s->tree.tokens;
    /* the dense n x n block among the tree tokens that a causal mask would halve: n (n - 1) / 2
     * extra query-key pairs per sequence, over this GPU's query heads, in every attention layer */
    sim_par par = sim_step_par(target);
    double heads = (double)m->heads / (double)par.tp;
    /* per pair and head: 2 (QK^T) x the key dimension + 2 (PV) x the value dimension; MLA's
     * absorbed decode attention over the latent: kv_lora_rank + rope, and kv_lora_rank */
    double dk = m->mla ? (double)(m->kv_lora_rank + m->qk_rope_dim) : (double)m->head_dim;
    double dv = m->mla ? (double)m->kv_lora_rank : (double)m->head_dim;
    sim_op op = {.id = SIM_OP_ATTENTION, .present = true};
    op.flops = seqs * n * (n - 1.0) / 2.0 * 2.0 * (dk + dv) * heads;
    op.act_bytes = seqs * n * n / 8.0 * heads; /* the packed mask, read per head */
    op.compute = sim_graph_resid_dtype(m, &target->prec);
    op.kernels = 1;
    double per_layer = sim_cost_op(target->hw, &op, 0.0).t_ns; /* inside the attention kernel */
    double launch = sim_step_launch_ns(target);
    double compact = 0.0;
    if (s->prop.kv_compaction) {
        /* one kernel over every layer's K and V of the accepted drafts: each token's KV read from
         * its tree slot and written to its sequence position */
        sim_op mv = {.id = SIM_OP_SAMPLING, .present = true, .kernels = 1};
        mv.act_bytes = 2.0 * seqs * (sim_spec_mean_tokens(s) - 1.0) *
                       sim_graph_kv_bytes_per_token_par(m, &par, &target->prec);
        mv.compute = op.compute;
        compact = sim_cost_op(target->hw, &mv, launch).t_ns;
    }
    return per_layer * (double)m->layers + tree_kernels(&s->tree) * launch + compact;
}
