/* test_api_step.c - the step-time predictor (include/infersim_step.h): a serving run's batches
 * replayed through it give `infersim serve`'s step times to the nanosecond; the split and the
 * band by their definitions; threads on separate handles; bad handles, flags and batches
 * refused with a code and one line. */
#include "testutil.h"

#include <pthread.h>

#include "cli_cmd.h"
#include "cli_opt.h"
#include "engine.h"
#include "infersim_step.h"

#define N_ARGS(a) ((int)(sizeof a / sizeof a[0]))

/* ------------------------------------------------------------------------------------------ */
/* A serving run's iterations as an engine observer sees them: each one's batch in the
 * predictor's terms and the time the engine advanced by. */

typedef struct replay {
    infersim_step_seq *seqs; /* every iteration's sequences, one after the other */
    size_t n_seqs, cap_seqs;
    size_t *first; /* iteration i: seqs[first[i] .. first[i + 1]) */
    int64_t *dur_ns;
    size_t iters, cap_iters;
    int64_t mixed, decode_only, prefill_only; /* what kinds of batch the run had */
} replay;

static void record(void *ctx, const sim_iter_info *it)
{
    replay *r = ctx;
    if (r->iters + 2 > r->cap_iters) {
        r->cap_iters = 2 * r->cap_iters + 64;
        r->first = realloc(r->first, r->cap_iters * sizeof *r->first);
        r->dur_ns = realloc(r->dur_ns, r->cap_iters * sizeof *r->dur_ns);
        assert_non_null(r->first);
        assert_non_null(r->dur_ns);
    }
    if (r->n_seqs + it->n_groups > r->cap_seqs) {
        r->cap_seqs = 2 * r->cap_seqs + it->n_groups + 256;
        r->seqs = realloc(r->seqs, r->cap_seqs * sizeof *r->seqs);
        assert_non_null(r->seqs);
    }
    r->first[r->iters] = r->n_seqs;
    r->dur_ns[r->iters++] = it->dur_ns;
    size_t dec = 0;
    for (size_t i = 0; i < it->n_groups; i++) {
        const sim_seq_group *g = &it->groups[i];
        const bool decode = it->batch[i].decode;
        dec += decode;
        r->seqs[r->n_seqs++] = (infersim_step_seq){
            .new_tokens = it->batch[i].num_new,
            .cached_tokens = g->c,
            .kind = decode        ? INFERSIM_SEQ_DECODE
                    : g->logits ? INFERSIM_SEQ_PREFILL_LAST
                                : INFERSIM_SEQ_PREFILL,
            .dp_rank = (int32_t)g->rank};
    }
    r->first[r->iters] = r->n_seqs;
    r->mixed += dec > 0 && dec < it->n_groups;
    r->decode_only += dec == it->n_groups;
    r->prefill_only += dec == 0;
}

static void replay_free(replay *r)
{
    free(r->seqs);
    free(r->first);
    free(r->dur_ns);
}

/* `infersim serve` with the deployment's flags and the workload's, watched. */
static void serve_watched(const char *const *dep, int n_dep, const char *const *load, int n_load,
                          replay *r)
{
    memset(r, 0, sizeof *r);
    char *argv[64];
    int argc = 0;
    for (int i = 0; i < n_dep; i++)
        argv[argc++] = (char *)dep[i];
    for (int i = 0; i < n_load; i++)
        argv[argc++] = (char *)load[i];
    cli_opts o = cli_opt_defaults;
    sim_err e = {{0}};
    assert_int_equal(
        cli_opt_parse(argc, argv, 0, "serve", CLI_OPT_CMD_SERVE, CLI_OPT_ID_NONE, &o, &e), 0);
    sim_engine_observer obs = {.ctx = r, .iteration = record};
    o.observer = &obs;
    FILE *devnull = fopen("/dev/null", "w");
    assert_non_null(devnull);
    sim_status st = cli_serve_cmd(&o, devnull, &e);
    fclose(devnull);
    if (st)
        print_error("serve: %s\n", e.msg);
    assert_int_equal(st, SIM_OK);
    assert_true(r->iters > 10);
}

static infersim_step *open_or_fail(const char *const *argv, int argc)
{
    char err[512] = "";
    infersim_step *h = NULL;
    infersim_step_status st =
        infersim_step_open(INFERSIM_STEP_ABI, argc, argv, &h, err, sizeof err);
    if (st)
        print_error("open: %s\n", err);
    assert_int_equal(st, INFERSIM_STEP_OK);
    assert_non_null(h);
    return h;
}

/* Every iteration of r through h: its time is the engine's, nanosecond for nanosecond. */
static void check_replay(infersim_step *h, const replay *r)
{
    char err[512];
    for (size_t i = 0; i < r->iters; i++) {
        infersim_step_time t;
        const size_t n = r->first[i + 1] - r->first[i];
        infersim_step_status st =
            infersim_step_price(h, r->seqs + r->first[i], n, &t, err, sizeof err);
        if (st)
            print_error("iteration %zu: %s\n", i, err);
        assert_int_equal(st, INFERSIM_STEP_OK);
        if (t.step_ns != r->dur_ns[i])
            print_error("iteration %zu of %zu (%zu sequences): %lld ns, serve %lld ns\n", i,
                        r->iters, n, (long long)t.step_ns, (long long)r->dur_ns[i]);
        assert_int_equal(t.step_ns, r->dur_ns[i]);
        assert_near(t.prefill_us + t.decode_us + t.comm_us, t.step_us, 1e-12);
    }
}

/* The deployment, then the workload (serve's flags that the predictor refuses). mixed: the
 * engine runs prompt chunks next to decodes (vLLM's chunked prefill; SGLang runs a prefill batch
 * apart by default), and such batches were replayed. */
static void replay_case(const char *const *dep, int n_dep, const char *const *load, int n_load,
                        bool mixed)
{
    replay r;
    serve_watched(dep, n_dep, load, n_load, &r);
    assert_true(mixed ? r.mixed > 0 : r.mixed == 0 && r.prefill_only > 0);
    assert_true(r.decode_only > 0);
    const char *argv[40];
    int argc = 0;
    for (int i = 0; i < n_dep; i++)
        argv[argc++] = dep[i];
    argv[argc++] = "--uncertainty";
    argv[argc++] = "0";
    infersim_step *h = open_or_fail(argv, argc);
    check_replay(h, &r);
    infersim_step_close(h);
    replay_free(&r);
}

static const char *const load_chunked[] = {
    "--num-prompts",       "48", "--request-rate",        "40", "--random-input-len", "1500",
    "--random-output-len", "64", "--max-num-batched-tokens", "1024", "--seed", "3"};

static void test_replay_vllm(void **state)
{
    (void)state;
    /* vLLM V1: chunked prefill in mixed batches, CUDA graphs padded to their captured sizes */
    const char *dep[] = {"--model", "llama-3.1-8b", "--hw", "h100-sxm", "--engine", "vllm@0.10.2"};
    replay_case(dep, N_ARGS(dep), load_chunked, N_ARGS(load_chunked), true);
    /* TP 2, a small graph limit (batches above it run eagerly), eager and its overheads */
    const char *tp2[] = {"--model", "llama-3.1-8b", "--hw",        "h100-sxm", "--tp", "2",
                         "--cuda-graph-max-bs", "8", "--max-num-seqs", "32"};
    replay_case(tp2, N_ARGS(tp2), load_chunked, N_ARGS(load_chunked), true);
}

static void test_replay_sglang_pp_moe(void **state)
{
    (void)state;
    const char *sgl[] = {"--model", "qwen3-32b", "--hw", "h200", "--tp", "2", "--engine", "sglang",
                         "--kv-cache-dtype", "fp8"};
    replay_case(sgl, N_ARGS(sgl), load_chunked, N_ARGS(load_chunked), false);
    /* pipeline stages: a steady round of micro-batches */
    const char *pp[] = {"--model", "llama-3.1-70b", "--hw", "h100-sxm", "--tp", "2", "--pp", "2"};
    replay_case(pp, N_ARGS(pp), load_chunked, N_ARGS(load_chunked), true);
    /* experts over EP ranks with data-parallel attention: each sequence's group matters */
    const char *moe[] = {"--model", "qwen3-30b-a3b", "--hw", "h100-sxm", "--ep",
                         "4",       "--dp-attention", "--engine", "sglang"};
    replay_case(moe, N_ARGS(moe), load_chunked, N_ARGS(load_chunked), false);
}

/* ------------------------------------------------------------------------------------------ */

static const char *const dep_8b[] = {"--model", "llama-3.1-8b", "--hw", "h100-sxm", "--tp", "2",
                                     "--enforce-eager", "--uncertainty", "0"};

static infersim_step_time price_ok(infersim_step *h, const infersim_step_seq *s, size_t n)
{
    char err[512];
    infersim_step_time t;
    infersim_step_status st = infersim_step_price(h, s, n, &t, err, sizeof err);
    if (st)
        print_error("price: %s\n", err);
    assert_int_equal(st, INFERSIM_STEP_OK);
    return t;
}

/* The split by its definition. comm_us is the network time no compute hides: at TP 1 none, at
 * TP 2 some. A batch of one kind gets all the rest; a mixed one splits the rest by the times its
 * two parts take alone, less their own exposed network time. Eager launches throughout
 * (--enforce-eager), so the parts priced alone through the predictor run the launch mode they
 * are priced in inside the mixed step: with P = prefill part's step_us - comm_us and D the
 * decode part's, prefill_us = (step_us - comm_us) x P / (P + D). */
static void test_split(void **state)
{
    (void)state;
    infersim_step *h = open_or_fail(dep_8b, N_ARGS(dep_8b));
    const infersim_step_seq dec[] = {{1, 900, INFERSIM_SEQ_DECODE, 0},
                                     {1, 4000, INFERSIM_SEQ_DECODE, 0}};
    const infersim_step_seq pre[] = {{512, 0, INFERSIM_SEQ_PREFILL_LAST, 0},
                                     {256, 1024, INFERSIM_SEQ_PREFILL, 0}};
    const infersim_step_seq mixed[] = {dec[0], dec[1], pre[0], pre[1]};
    const infersim_step_time d = price_ok(h, dec, 2), p = price_ok(h, pre, 2),
                             m = price_ok(h, mixed, 4);
    assert_true(d.comm_us > 0.0 && p.comm_us > 0.0 && m.comm_us > 0.0);
    assert_true(d.prefill_us == 0.0 && p.decode_us == 0.0);
    assert_near(d.decode_us + d.comm_us, d.step_us, 1e-12);
    assert_near(p.prefill_us + p.comm_us, p.step_us, 1e-12);
    const double P = p.step_us - p.comm_us, D = d.step_us - d.comm_us;
    assert_near(m.prefill_us, (m.step_us - m.comm_us) * P / (P + D), 1e-9);
    assert_near(m.decode_us, (m.step_us - m.comm_us) * D / (P + D), 1e-9);
    /* the fused step reads the weights once: cheaper than its parts one after the other */
    assert_true(m.step_us < p.step_us + d.step_us);
    assert_true(m.step_us > p.step_us);
    assert_int_equal(m.graph_batch, 0); /* eager */
    assert_true(m.lo_us == m.step_us && m.hi_us == m.step_us); /* --uncertainty 0: no band */
    infersim_step_close(h);
    /* TP 1: no network, no comm */
    const char *tp1[] = {"--model", "llama-3.1-8b", "--hw", "h100-sxm", "--uncertainty", "0"};
    h = open_or_fail(tp1, N_ARGS(tp1));
    const infersim_step_time one = price_ok(h, mixed, 4);
    assert_true(one.comm_us == 0.0);
    /* a decode-only batch of 3 replays the graph captured for 4 (1, 2, 4, then multiples of 8) */
    const infersim_step_seq three[] = {dec[0], dec[1], dec[0]};
    assert_int_equal(price_ok(h, three, 3).graph_batch, 4);
    infersim_step_close(h);
}

/* The band: the 10th and 90th percentiles over the draws, around the nominal step, the same for
 * two handles of one deployment (the draws are seeded by the device and the engine). */
static void test_band(void **state)
{
    (void)state;
    const char *argv[] = {"--model", "llama-3.1-8b", "--hw", "h100-sxm", "--uncertainty", "16"};
    infersim_step *a = open_or_fail(argv, N_ARGS(argv)), *b = open_or_fail(argv, N_ARGS(argv));
    const infersim_step_seq s[] = {{1, 2000, INFERSIM_SEQ_DECODE, 0},
                                   {700, 0, INFERSIM_SEQ_PREFILL_LAST, 0}};
    const infersim_step_time ta = price_ok(a, s, 2), tb = price_ok(b, s, 2);
    assert_true(ta.lo_us < ta.step_us && ta.step_us < ta.hi_us);
    assert_true(ta.lo_us == tb.lo_us && ta.hi_us == tb.hi_us && ta.step_us == tb.step_us);
    /* the nominal step is the band-free handle's */
    const char *plain[] = {"--model", "llama-3.1-8b", "--hw", "h100-sxm", "--uncertainty", "0"};
    infersim_step *c = open_or_fail(plain, N_ARGS(plain));
    assert_int_equal(price_ok(c, s, 2).step_ns, ta.step_ns);
    infersim_step_close(a);
    infersim_step_close(b);
    infersim_step_close(c);
}

/* ------------------------------------------------------------------------------------------ */
/* Threads on separate handles: each replays the same run and gets the lone thread's times. */

typedef struct job {
    const replay *r;
    int64_t *got; /* per iteration */
    int failed;
} job;

static void *replay_thread(void *arg)
{
    job *j = arg;
    char err[512];
    infersim_step *h = NULL;
    if (infersim_step_open(INFERSIM_STEP_ABI, N_ARGS(dep_8b), dep_8b, &h, err, sizeof err)) {
        j->failed = 1;
        return NULL;
    }
    for (size_t i = 0; i < j->r->iters; i++) {
        infersim_step_time t;
        if (infersim_step_price(h, j->r->seqs + j->r->first[i],
                                j->r->first[i + 1] - j->r->first[i], &t, err, sizeof err))
            j->failed = 1;
        j->got[i] = t.step_ns;
    }
    infersim_step_close(h);
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    replay r;
    const char *dep[] = {"--model", "llama-3.1-8b", "--hw", "h100-sxm", "--tp", "2",
                         "--enforce-eager"};
    serve_watched(dep, N_ARGS(dep), load_chunked, N_ARGS(load_chunked), &r);
    enum { T = 4 };
    pthread_t th[T];
    job jobs[T + 1];
    for (int k = 0; k <= T; k++) {
        jobs[k] = (job){.r = &r, .got = calloc(r.iters, sizeof(int64_t))};
        assert_non_null(jobs[k].got);
    }
    replay_thread(&jobs[T]); /* alone */
    assert_int_equal(jobs[T].failed, 0);
    for (size_t i = 0; i < r.iters; i++)
        assert_int_equal(jobs[T].got[i], r.dur_ns[i]);
    for (int k = 0; k < T; k++)
        assert_int_equal(pthread_create(&th[k], NULL, replay_thread, &jobs[k]), 0);
    for (int k = 0; k < T; k++) {
        assert_int_equal(pthread_join(th[k], NULL), 0);
        assert_int_equal(jobs[k].failed, 0);
        assert_memory_equal(jobs[k].got, jobs[T].got, r.iters * sizeof(int64_t));
    }
    for (int k = 0; k <= T; k++)
        free(jobs[k].got);
    replay_free(&r);
}

/* ------------------------------------------------------------------------------------------ */
/* Refusals: a code, one line naming what, and nothing written to *out or *h. */

static void refused(infersim_step_status got, infersim_step_status want, const char *err,
                    const char *says)
{
    assert_int_equal(got, want);
    assert_non_null(strstr(err, "infersim: "));
    if (!strstr(err, says))
        print_error("message '%s' does not say '%s'\n", err, says);
    assert_non_null(strstr(err, says));
    assert_null(strchr(err, '\n'));
}

static void test_bad_open(void **state)
{
    (void)state;
    char err[512];
    infersim_step *h = (infersim_step *)&err; /* set to NULL by a refused open */
    const char *ok[] = {"--model", "llama-3.1-8b", "--hw", "h100-sxm"};
    refused(infersim_step_open(INFERSIM_STEP_ABI + 1, 4, ok, &h, err, sizeof err),
            INFERSIM_STEP_EVERSION, err, "step ABI 2");
    assert_null(h);
    refused(infersim_step_open(INFERSIM_STEP_ABI, 4, ok, NULL, err, sizeof err),
            INFERSIM_STEP_EINPUT, err, "h is NULL");
    const char *nomodel[] = {"--hw", "h100-sxm"};
    refused(infersim_step_open(INFERSIM_STEP_ABI, 2, nomodel, &h, err, sizeof err),
            INFERSIM_STEP_EINPUT, err, "--model: missing");
    const char *unknown[] = {"--model", "no-such-model", "--hw", "h100-sxm"};
    refused(infersim_step_open(INFERSIM_STEP_ABI, 4, unknown, &h, err, sizeof err),
            INFERSIM_STEP_EINPUT, err, "no-such-model");
    const char *tp3[] = {"--model", "llama-3.1-8b", "--hw", "h100-sxm", "--tp", "3"};
    refused(infersim_step_open(INFERSIM_STEP_ABI, 6, tp3, &h, err, sizeof err),
            INFERSIM_STEP_EINPUT, err, "--tp");
    const char *load[] = {"--model", "llama-3.1-8b", "--hw", "h100-sxm", "--request-rate", "4"};
    refused(infersim_step_open(INFERSIM_STEP_ABI, 6, load, &h, err, sizeof err),
            INFERSIM_STEP_EINPUT, err, "--request-rate: a serve flag that does not change");
    const char *spec[] = {"--model", "llama-3.1-8b", "--hw", "h100-sxm", "--spec-method", "eagle"};
    refused(infersim_step_open(INFERSIM_STEP_ABI, 6, spec, &h, err, sizeof err),
            INFERSIM_STEP_EINPUT, err, "--spec-method: speculative decoding");
    const char *typo[] = {"--model", "llama-3.1-8b", "--hw", "h100-sxm", "--tpp", "2"};
    refused(infersim_step_open(INFERSIM_STEP_ABI, 6, typo, &h, err, sizeof err),
            INFERSIM_STEP_EINPUT, err, "--tpp");
    const char *holes[] = {"--model", NULL, "--hw", "h100-sxm"};
    refused(infersim_step_open(INFERSIM_STEP_ABI, 4, holes, &h, err, sizeof err),
            INFERSIM_STEP_EINPUT, err, "argv[1] is NULL");
    refused(infersim_step_open(INFERSIM_STEP_ABI, -1, ok, &h, err, sizeof err),
            INFERSIM_STEP_EINPUT, err, "argc -1");
    /* a model that does not fit the device */
    const char *big[] = {"--model", "llama-3.1-405b", "--hw", "l4"};
    assert_int_equal(infersim_step_open(INFERSIM_STEP_ABI, 4, big, &h, err, sizeof err),
                     INFERSIM_STEP_EINPUT);
    assert_null(h);
    /* a short buffer is truncated, never overrun; none at all is allowed */
    char tiny[8];
    assert_int_equal(infersim_step_open(INFERSIM_STEP_ABI, 6, tp3, &h, tiny, sizeof tiny),
                     INFERSIM_STEP_EINPUT);
    assert_int_equal(strlen(tiny), 7);
    assert_int_equal(infersim_step_open(INFERSIM_STEP_ABI, 6, tp3, &h, NULL, 0),
                     INFERSIM_STEP_EINPUT);
    assert_int_equal(infersim_step_abi(), INFERSIM_STEP_ABI);
    infersim_step_close(NULL);
}

static void test_bad_price(void **state)
{
    (void)state;
    char err[512];
    const char *argv[] = {"--model", "llama-3.1-8b", "--hw", "h100-sxm", "--max-num-seqs", "4",
                          "--max-model-len", "8192", "--uncertainty", "0"};
    infersim_step *h = open_or_fail(argv, N_ARGS(argv));
    assert_int_equal(infersim_step_max_seqs(h), 4);
    infersim_step_time t = {.step_us = -1.0}, before = t;
    const infersim_step_seq ok = {1, 100, INFERSIM_SEQ_DECODE, 0};
    refused(infersim_step_price(NULL, &ok, 1, &t, err, sizeof err), INFERSIM_STEP_EHANDLE, err,
            "the handle is NULL");
    uint64_t fake[64] = {0}; /* memory that is not an open handle */
    refused(infersim_step_price((infersim_step *)(void *)fake, &ok, 1, &t, err, sizeof err),
            INFERSIM_STEP_EHANDLE, err, "not an open handle");
    assert_int_equal(infersim_step_max_seqs((infersim_step *)(void *)fake), 0);
    refused(infersim_step_price(h, NULL, 1, &t, err, sizeof err), INFERSIM_STEP_EINPUT, err,
            "seqs is NULL");
    refused(infersim_step_price(h, &ok, 1, NULL, err, sizeof err), INFERSIM_STEP_EINPUT, err,
            "out is NULL");
    refused(infersim_step_price(h, &ok, 0, &t, err, sizeof err), INFERSIM_STEP_EINPUT, err,
            "n: value 0, expected 1 to 4");
    const infersim_step_seq five[5] = {ok, ok, ok, ok, ok};
    refused(infersim_step_price(h, five, 5, &t, err, sizeof err), INFERSIM_STEP_EINPUT, err,
            "n: value 5, expected 1 to 4");
    static const struct {
        infersim_step_seq s;
        const char *says;
    } bad[] = {
        {{0, 10, INFERSIM_SEQ_PREFILL, 0}, "seqs[1].new_tokens: value 0"},
        {{9000, 0, INFERSIM_SEQ_PREFILL, 0}, "seqs[1].new_tokens: value 9000, expected 1 to"},
        {{10, -1, INFERSIM_SEQ_PREFILL, 0}, "seqs[1].cached_tokens: value -1"},
        {{10, 8183, INFERSIM_SEQ_PREFILL_LAST, 0}, "seqs[1].cached_tokens: value 8183 with 10"},
        {{1, INT64_MAX, INFERSIM_SEQ_DECODE, 0}, "seqs[1].cached_tokens"},
        {{1, 10, 3, 0}, "seqs[1].kind: value 3"},
        {{1, 10, -1, 0}, "seqs[1].kind: value -1"},
        {{2, 10, INFERSIM_SEQ_DECODE, 0}, "seqs[1].new_tokens: value 2 for a decode"},
        {{1, 10, INFERSIM_SEQ_DECODE, -1}, "seqs[1].dp_rank: value -1"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const infersim_step_seq two[2] = {ok, bad[i].s};
        refused(infersim_step_price(h, two, 2, &t, err, sizeof err), INFERSIM_STEP_EINPUT, err,
                bad[i].says);
        assert_memory_equal(&t, &before, sizeof t);
    }
    /* the context's edge itself is fine: 8182 cached + 10 new = 8192 */
    const infersim_step_seq edge[2] = {ok, {10, 8182, INFERSIM_SEQ_PREFILL_LAST, 0}};
    assert_true(price_ok(h, edge, 2).step_us > 0.0);
    infersim_step_close(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_vllm), cmocka_unit_test(test_replay_sglang_pp_moe),
        cmocka_unit_test(test_split),       cmocka_unit_test(test_band),
        cmocka_unit_test(test_threads),     cmocka_unit_test(test_bad_open),
        cmocka_unit_test(test_bad_price),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
