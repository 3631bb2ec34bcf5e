/* test_engine.c - the serving simulation end to end on the real step model. */
#include "engfix.h"

#include "capacity.h"
#include "engine.h"
#include "metrics.h"
#include "run.h"

static fixture *fx_new(const char *model, const char *hw, int tp) { return tu_engine_new(model, hw, tp); }


static sim_engine_result simulate(const fixture *f, const sim_workload *w)
{
    sim_err err = {{0}};
    sim_engine_result r;
    if (sim_engine_check(&f->cfg, w, &err) || sim_engine_run(&f->cfg, w, &r, &err)) {
        print_error("%s\n", err.msg);
        fail();
    }
    return r;
}

static sim_serve_metrics metrics(sim_engine_result *r)
{
    sim_serve_metrics m;
    sim_slo none = {{0}};
    assert_int_equal(sim_metrics_compute(r, &none, &m), SIM_OK);
    return m;
}

/* The ITL runs hold every request's gaps: without speculation, output - 1 gaps per request that
 * add up to finish - first token (its gaps tile that span), however many iterations a gap
 * spanned (a preempted request waits several). Runs are ascending and distinct. */
static void check_itl_runs(const sim_engine_result *r)
{
    int64_t gaps = 0, span_ns = 0, sum_ns = 0;
    for (size_t i = 0; i < r->n; i++) {
        gaps += r->seqs[i].output - 1;
        span_ns += r->seqs[i].finish_ns - r->seqs[i].first_token_ns;
    }
    for (size_t k = 0; k < r->itl.len; k++) {
        assert_true(r->itl.runs[k].value > 0 && r->itl.runs[k].count > 0);
        assert_true(k == 0 || r->itl.runs[k].value > r->itl.runs[k - 1].value);
        sum_ns += r->itl.runs[k].value * r->itl.runs[k].count;
    }
    assert_int_equal(r->itl.n, gaps);
    assert_int_equal(sum_ns, span_ns);
    /* one run per iteration at most, plus the gaps that spanned several */
    assert_true(r->itl.len <= (size_t)r->iterations + (size_t)r->preemptions * 2);
}

static void test_every_request_completes_once(void **state)
{
    (void)state;
    fixture *f = fx_new("llama-3.1-8b", "h100-sxm", 1);
    sim_workload w = tu_synth(500, 700, 150, 20.0, 0.5);
    sim_engine_result r = simulate(f, &w);
    int64_t want = 0, got = 0;
    for (size_t i = 0; i < r.n; i++) {
        const sim_seq *q = &r.seqs[i];
        assert_int_equal(q->phase, SIM_SEQ_DONE);
        assert_int_equal(q->generated, q->output);
        assert_int_equal(q->blocks, 0);
        assert_true(q->send_ns >= w.reqs[i].arrival_ns);
        assert_true(q->first_sched_ns >= q->send_ns);
        assert_true(q->first_token_ns > q->first_sched_ns);
        assert_true(q->finish_ns >= q->first_token_ns);
        want += q->output;
        got += q->generated;
    }
    assert_int_equal(got, want);
    check_itl_runs(&r);
    sim_serve_metrics m = metrics(&r);
    assert_int_equal(m.completed, 500);
    assert_int_equal(m.total_output_tokens, want);
    sim_engine_result_free(&r);
    sim_workload_free(&w);
    free(f);
}

static void test_ttft_at_least_own_prefill(void **state)
{
    (void)state;
    fixture *f = fx_new("llama-3.1-8b", "h100-sxm", 1);
    sim_workload w = tu_synth(300, 2000, 50, 50.0, 0.9);
    sim_engine_result r = simulate(f, &w);
    sim_step_cfg pre = f->cfg.step;
    pre.eager = true;
    for (size_t i = 0; i < r.n; i++) {
        sim_seq_group g = {.count = 1, .q = r.seqs[i].input, .c = 0, .logits = 1};
        sim_step_result s;
        sim_step_price(&pre, &g, 1, &s);
        assert_true((double)(r.seqs[i].first_token_ns - r.seqs[i].send_ns) >= s.t_ns - 1.0);
    }
    sim_engine_result_free(&r);
    sim_workload_free(&w);
    free(f);
}

static void test_low_rate_matches_run(void **state)
{
    (void)state;
    /* one request every 100 s on average: each runs alone, so its TTFT is run's batch-1 TTFT and
     * its TPOT run's TPOT (to the nanosecond of rounding per step) */
    fixture *f = fx_new("llama-3.1-8b", "h100-sxm", 1);
    sim_workload w = tu_synth(5, 1024, 64, 0.01, 0.0);
    sim_engine_result r = simulate(f, &w);
    sim_run_cfg rc = {
        .step = f->cfg.step, .batch = 1, .input_len = 1024, .output_len = 64, .mem_util = 0.9};
    sim_run_result *run = calloc(1, sizeof *run);
    sim_run_simulate(&rc, run);
    sim_serve_metrics m = metrics(&r);
    assert_near(m.dist[SIM_M_TTFT].mean, run->ttft_ns / 1e6, 1e-6);
    assert_near(m.dist[SIM_M_TTFT].p99, run->ttft_ns / 1e6, 1e-6);
    assert_near(m.dist[SIM_M_TPOT].mean, run->tpot_ns / 1e6, 1e-5);
    assert_near(m.mean_batch_size, 1.0, 0);
    free(run);
    sim_engine_result_free(&r);
    sim_workload_free(&w);
    free(f);
}

static void test_throughput_grows_then_saturates(void **state)
{
    (void)state;
    fixture *f = fx_new("llama-3.1-8b", "h100-sxm", 1);
    const double rates[] = {1.0, 4.0, 16.0, 64.0, 256.0, INFINITY};
    double tput[6];
    for (int i = 0; i < 6; i++) {
        sim_workload w = tu_synth(2000, 512, 128, rates[i], 0.0);
        sim_engine_result r = simulate(f, &w);
        tput[i] = metrics(&r).output_throughput;
        sim_engine_result_free(&r);
        sim_workload_free(&w);
    }
    /* below saturation the output rate follows the request rate (128 tokens per request) */
    assert_near(tput[0], 128.0, 0.05);
    assert_near(tput[1], 512.0, 0.05);
    for (int i = 1; i < 6; i++)
        assert_true(tput[i] >= tput[i - 1] * 0.98);
    /* and saturates: 256 req/s is already as fast as sending everything at once */
    assert_near(tput[4], tput[5], 0.1);
    assert_true(tput[5] > 10.0 * tput[1]);
    free(f);
}

static void test_tight_kv_preempts_and_completes(void **state)
{
    (void)state;
    fixture *f = fx_new("llama-3.1-70b", "h100-sxm", 4);
    /* 79.6 GiB x 0.5 = 42,734,924,595 B per GPU, less 35,278,831,616 of weights (TP4), 653,590,528
     * of workspace and 1 GiB: 5,728,760,627 B at 80 x 2 x 2 x 128 x 2 = 81,920 B per token, 16
     * tokens a block: 4370 blocks = 69,920 tokens, far short of 300 x 2,560 */
    f->cfg.mem_util = 0.5;
    assert_int_equal(sim_engine_kv_blocks(&f->cfg), 4370);
    sim_workload w = tu_synth(300, 2048, 512, INFINITY, 0.0);
    sim_engine_result r = simulate(f, &w);
    sim_serve_metrics m = metrics(&r);
    assert_true(m.preemptions > 0);
    assert_int_equal(m.completed, 300);
    assert_near(m.kv_cache_peak_usage, 1.0, 0.02);
    for (size_t i = 0; i < r.n; i++)
        assert_int_equal(r.seqs[i].generated, 512);
    check_itl_runs(&r);
    sim_engine_result_free(&r);
    sim_workload_free(&w);
    free(f);
}

static void test_same_seed_same_result(void **state)
{
    (void)state;
    fixture *f = fx_new("llama-3.1-8b", "h100-sxm", 1);
    sim_workload w = tu_synth(400, 900, 200, 8.0, 0.5);
    sim_engine_result a = simulate(f, &w), b = simulate(f, &w);
    assert_int_equal(a.n, b.n);
    assert_memory_equal(a.seqs, b.seqs, a.n * sizeof *a.seqs);
    assert_int_equal(a.itl.len, b.itl.len);
    assert_memory_equal(a.itl.runs, b.itl.runs, a.itl.len * sizeof *a.itl.runs);
    assert_int_equal(a.duration_ns, b.duration_ns);
    sim_engine_result_free(&a);
    sim_engine_result_free(&b);
    sim_workload_free(&w);
    free(f);
}

static void test_chunked_prefill_lowers_tail_itl(void **state)
{
    (void)state;
    /* short chats with a 6000-token prompt every sixth request, both at vLLM's default 8192-token
     * budget: unchunked, each long prompt gets a prefill-only iteration and every running decode
     * waits for it and then for its own decode iteration; chunked, decodes ride in the same
     * iteration as the prompt. (A small budget splits the prompt into several slow iterations
     * and can raise p99 ITL instead: chunking bounds the worst gap, not every percentile.) */
    fixture *f = fx_new("llama-3.1-8b", "h100-sxm", 1);
    char path[1024];
    snprintf(path, sizeof path, "%s/traces/mixed-long-prompts.csv", tu_root());
    sim_workload w;
    sim_err err = {{0}};
    assert_int_equal(sim_workload_load_trace(path, 1.0, 0, &w, &err), SIM_OK);
    sim_engine_result chunked = simulate(f, &w);
    f->cfg.sched.chunked_prefill = false;
    sim_engine_result whole = simulate(f, &w);
    double p99_chunked = metrics(&chunked).dist[SIM_M_ITL].p99;
    double p99_whole = metrics(&whole).dist[SIM_M_ITL].p99;
    assert_true(p99_chunked < 0.8 * p99_whole);
    sim_engine_result_free(&chunked);
    sim_engine_result_free(&whole);
    sim_workload_free(&w);
    free(f);
}

static void test_max_concurrency(void **state)
{
    (void)state;
    fixture *f = fx_new("llama-3.1-8b", "h100-sxm", 1);
    f->cfg.max_concurrency = 1;
    sim_workload w = tu_synth(20, 256, 32, INFINITY, 0.0);
    sim_engine_result r = simulate(f, &w);
    assert_int_equal(r.peak_concurrency, 1);
    for (size_t i = 1; i < r.n; i++)
        assert_int_equal(r.seqs[i].send_ns, r.seqs[i - 1].finish_ns); /* closed loop */
    /* each request alone: TTFT is the same for all (latency counts from the send) */
    sim_serve_metrics m = metrics(&r);
    assert_near(m.dist[SIM_M_TTFT].p99, m.dist[SIM_M_TTFT].median, 1e-9);
    sim_engine_result_free(&r);
    sim_workload_free(&w);
    f->cfg.max_concurrency = 8;
    w = tu_synth(100, 256, 32, INFINITY, 0.0);
    r = simulate(f, &w);
    assert_int_equal(r.peak_concurrency, 8);
    sim_engine_result_free(&r);
    sim_workload_free(&w);
    free(f);
}

/* Two requests 1e8 s apart: the busiest second is tracked as time advances, so the span costs
 * nothing (1e8 one-second buckets were 800 MB), and since 1e8 s is a whole number of seconds the
 * second request's windows align as the first's did: the same peak as one request alone. */
static void test_far_apart_requests(void **state)
{
    (void)state;
    fixture *f = fx_new("llama-3.1-8b", "h100-sxm", 1);
    sim_workload one = tu_synth(1, 512, 256, INFINITY, 0.0), two = tu_synth(2, 512, 256, INFINITY, 0.0);
    two.reqs[1].arrival_ns = INT64_C(100000000) * 1000000000;
    sim_engine_result a = simulate(f, &one), b = simulate(f, &two);
    assert_true(a.peak_output_tps > 0);
    assert_near(b.peak_output_tps, a.peak_output_tps, 0);
    assert_int_equal(b.duration_ns, two.reqs[1].arrival_ns + a.duration_ns);
    assert_int_equal(b.itl.n, 2 * 255);
    assert_int_equal(b.itl.len, a.itl.len); /* the same gaps twice */
    sim_engine_result_free(&a);
    sim_engine_result_free(&b);
    sim_workload_free(&one);
    sim_workload_free(&two);
    free(f);
}

static void test_checks(void **state)
{
    (void)state;
    fixture *f = fx_new("llama-2-7b", "a100-sxm-40gb", 1); /* 4096-token context */
    sim_err err = {{0}};
    sim_workload w = tu_synth(3, 4000, 200, 1.0, 0.0);
    assert_int_equal(sim_engine_check(&f->cfg, &w, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "max_position_embeddings 4096"));
    sim_workload_free(&w);
    /* longer than the whole KV cache: 40 GiB x 0.4 = 17,179,869,184 B, less 13,476,831,232 of
     * weights, 708,050,944 of workspace and 1 GiB, leaves 1,921,245,184 B; at 32 x 2 x 32 x 128 x 2
     * = 524,288 B per token that is 229 blocks of 16 = 3,664 tokens < 3000 + 1000 */
    f->cfg.mem_util = 0.4;
    assert_int_equal(sim_engine_kv_blocks(&f->cfg), 229);
    w = tu_synth(3, 3000, 1000, 1.0, 0.0);
    assert_int_equal(sim_engine_check(&f->cfg, &w, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "do not fit the whole KV cache"));
    sim_workload_free(&w);
    f->cfg.mem_util = 0.3; /* weights alone do not fit */
    w = tu_synth(3, 100, 10, 1.0, 0.0);
    assert_int_equal(sim_engine_check(&f->cfg, &w, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "for the KV cache"));
    f->cfg.mem_util = 0.9;
    f->cfg.sched.chunked_prefill = false;
    f->cfg.sched.max_num_batched_tokens = 64;
    assert_int_equal(sim_engine_check(&f->cfg, &w, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--max-num-batched-tokens"));
    sim_workload_free(&w);
    free(f);
}

static void test_mooncake_prefix_cache(void **state)
{
    (void)state;
    /* Four Mooncake requests 10 s apart (each done before the next arrives; 512-token hash
     * blocks), nothing evicted. A request may take whole cached blocks only, and leaves at least
     * one prompt token to compute:
     *   r0 2048 tokens, ids 1 2 3 4: nothing cached                                     0
     *   r1 2048, ids 1 2 3 5: 1 2 3 cached                                    3 x 512 = 1536
     *   r2 1600 (3 whole blocks), ids 1 2 6 7: 1 2 cached                     2 x 512 = 1024
     *   r3 2048, ids 1 2 3 4: all four cached, but (2048 - 1) / 512 = 3 may be taken   1536
     * hit rate = 4096 / (3 x 2048 + 1600) = 4096 / 7744 = 0.528925... */
    const char *trace = tu_write_tmp("{\"timestamp\": 0, \"input_length\": 2048, "
                                     "\"output_length\": 8, \"hash_ids\": [1, 2, 3, 4]}\n"
                                     "{\"timestamp\": 10000, \"input_length\": 2048, "
                                     "\"output_length\": 8, \"hash_ids\": [1, 2, 3, 5]}\n"
                                     "{\"timestamp\": 20000, \"input_length\": 1600, "
                                     "\"output_length\": 8, \"hash_ids\": [1, 2, 6, 7]}\n"
                                     "{\"timestamp\": 30000, \"input_length\": 2048, "
                                     "\"output_length\": 8, \"hash_ids\": [1, 2, 3, 4]}\n");
    sim_workload w;
    sim_err err = {{0}};
    assert_int_equal(sim_workload_load_trace(trace, 1.0, 0, &w, &err), SIM_OK);
    fixture *f = fx_new("llama-3.1-8b", "h100-sxm", 1);
    f->cfg.prefix_caching = true;
    sim_engine_result on = simulate(f, &w);
    assert_int_equal(on.prefix_hit_tokens, 4096);
    assert_int_equal(on.prefix_query_tokens, 7744);
    assert_int_equal(on.seqs[1].cached, 1536);
    assert_int_equal(on.seqs[2].cached, 1024);
    assert_int_equal(on.seqs[3].cached, 1536);
    f->cfg.prefix_caching = false;
    sim_engine_result off = simulate(f, &w);
    assert_int_equal(off.prefix_query_tokens, 0);
    /* a hit prefills fewer tokens: TTFT falls for every request that hit, not for r0 */
    assert_int_equal(on.seqs[0].first_token_ns - on.seqs[0].send_ns,
                     off.seqs[0].first_token_ns - off.seqs[0].send_ns);
    for (int i = 1; i < 4; i++)
        assert_true(on.seqs[i].first_token_ns - on.seqs[i].send_ns <
                    off.seqs[i].first_token_ns - off.seqs[i].send_ns);
    sim_engine_result_free(&on);
    sim_engine_result_free(&off);
    sim_workload_free(&w);
    free(f);
}

static void test_graph_padding_prices_dummies(void **state)
{
    (void)state;
    /* 5 requests decoding together replay the graph of 8: a step with 3 dummy sequences costs
     * more than the unpadded one, and a cap of 4 runs them eagerly (launch cost up again) */
    fixture *f = fx_new("llama-3.1-8b", "h100-sxm", 1);
    sim_workload w = tu_synth(5, 64, 64, INFINITY, 0.0);
    double t[3];
    const int64_t caps[3] = {0, 512, 4};
    for (int i = 0; i < 3; i++) {
        f->cfg.step.graph_max_bs = caps[i];
        sim_engine_result r = simulate(f, &w);
        t[i] = (double)r.duration_ns;
        sim_engine_result_free(&r);
    }
    assert_true(t[1] > t[0]);
    assert_true(t[2] > t[1]);
    sim_workload_free(&w);
    free(f);
}

/* gpt-oss-120b (18 sliding layers of window 128, 18 full) at 32K context on one H100 under vLLM
 * v1: the hybrid KV cache manager (kv_cache_utils.py) makes 1 full and 1 sliding group of 18
 * layers, a block 16 tokens x 18 layers x 2 (K, V) x 8 heads x 64 x 2 B = 589,824 B, half of
 * the 1,179,648 B a block of all 36 layers takes; a 33,000-token sequence holds 2063 + 9 = 2072
 * of them (kvcache.h) where at full length it held 2063 blocks of twice the size: room for 2.0x
 * the sequences. The case (all 36 layers at full length): 3.6 sequences a step, TPOT
 * ~180 ms from endless preemption. */
static void test_hybrid_kv_sliding_window(void **state)
{
    (void)state;
    fixture *f = fx_new("gpt-oss-120b", "h100-sxm", 1);
    f->cfg.step.prec.weight = SIM_DT_MXFP4;
    f->cfg.sched.policy = SIM_POLICY_VLLM;
    sim_engine_kv_groups g = sim_engine_kv_groups_of(&f->cfg);
    assert_int_equal(g.full, 1);
    assert_int_equal(g.swa, 1);
    assert_int_equal(g.layers_per_block, 18);
    assert_int_equal(g.window, 128);
    const double cap = sim_mem_kv_capacity_bytes(&f->cfg.step, f->cfg.mem_util, 8192, 256, 0.0);
    assert_true(cap > 1e9);
    const int64_t hybrid = sim_engine_kv_blocks(&f->cfg);
    assert_int_equal(hybrid, (int64_t)floor(cap / 589824.0));
    f->cfg.no_hybrid_kv = true; /* --disable-hybrid-kv-cache-manager */
    g = sim_engine_kv_groups_of(&f->cfg);
    assert_int_equal(g.full, 1);
    assert_int_equal(g.swa, 0);
    const int64_t uniform = sim_engine_kv_blocks(&f->cfg);
    assert_int_equal(uniform, (int64_t)floor(cap / 1179648.0));
    /* sequences of 33,000 tokens the pool holds: 2.0x */
    const double seqs_hybrid = (double)hybrid / 2072.0, seqs_uniform = (double)uniform / 2063.0;
    assert_near(seqs_hybrid / seqs_uniform, 2.0 * 2063.0 / 2072.0, 0.001);
    /* served: 40 requests of 32,000 + 1,000 at once; the full-length cache runs ~3.6 a step,
     * the window-trimmed one about twice as many */
    sim_workload w = tu_synth(40, 32000, 1000, INFINITY, 0.0);
    sim_engine_result r_uni = simulate(f, &w);
    f->cfg.no_hybrid_kv = false;
    sim_engine_result r_hyb = simulate(f, &w);
    sim_serve_metrics m_uni = metrics(&r_uni), m_hyb = metrics(&r_hyb);
    assert_int_equal(m_hyb.completed, 40);
    double batch_uni = (double)r_uni.scheduled_seqs / (double)r_uni.iterations;
    double batch_hyb = (double)r_hyb.scheduled_seqs / (double)r_hyb.iterations;
    assert_true(batch_uni < 4.0);
    assert_true(batch_hyb > 1.7 * batch_uni);
    /* without prefix caching a preempted request recomputes its prompt, so both thrash (vLLM's
     * recompute preemption); fewer times with the room for twice the sequences. With vLLM's
     * default prefix caching (serve's path) the preempted prompts' blocks are hit again: 40
     * such requests on the CLI, 240 preemptions and TPOT 30.6 ms against 4121 and 173.8 ms. */
    assert_true(m_hyb.preemptions < m_uni.preemptions);
    /* Llama 4 Scout: 12 full + 36 chunked layers: groups of 12 (36 >= 1.5 x 12), 1 full and 3
     * chunked tables */
    sim_model l4 = tu_model("llama-4-scout");
    f->cfg.step.model = &l4;
    g = sim_engine_kv_groups_of(&f->cfg);
    assert_int_equal(g.full, 1);
    assert_int_equal(g.swa, 3);
    assert_int_equal(g.layers_per_block, 12);
    assert_true(g.chunked);
    /* Gemma 3 27B: 10 full + 52 sliding: groups of 10, 1 full and 6 sliding tables (the last
     * padded), each block 10 layers */
    sim_model g3 = tu_model("gemma-3-27b");
    f->cfg.step.model = &g3;
    g = sim_engine_kv_groups_of(&f->cfg);
    assert_int_equal(g.full, 1);
    assert_int_equal(g.swa, 6);
    assert_int_equal(g.layers_per_block, 10);
    assert_int_equal(g.window, 1024);
    assert_false(g.chunked);
    f->cfg.step.model = &f->m;
    /* other engines (SGLang's policy here) still size every layer at full length */
    f->cfg.sched.policy = SIM_POLICY_SGLANG;
    assert_int_equal(sim_engine_kv_groups_of(&f->cfg).swa, 0);
    sim_engine_result_free(&r_uni);
    sim_engine_result_free(&r_hyb);
    sim_workload_free(&w);
    free(f);
}

/* Mistral-7B v0.1: every layer slides (window 4096), so vLLM v1 makes one KV cache group of
 * all 32 layers' SlidingWindowSpec (vllm/attention/layer.py takes the model's window for a
 * layer without its own): one sliding table per request, each block 16 tokens x 32 layers x 2
 * (K, V) x 8 heads x 128 x 2 B = 2,097,152 B, as a full table's. A request of 16,000 + 512
 * tokens in its last decode step (16,511 computed, 16,512 held): a full table holds
 * ceil(16,512 / 16) = 1032 blocks, the sliding one 1032 - floor((16,511 - 4096 + 1) / 16) =
 * 1032 - 776 = 256, room for 4.03x the sequences. A uniform model stays sliding with
 * --disable-hybrid-kv-cache-manager (unify_hybrid_kv_cache_specs returns on a uniform spec); a
 * prefix cache in use keeps one full table (engine.h). */
static void test_sliding_every_layer(void **state)
{
    (void)state;
    fixture *f = fx_new("mistral-7b", "h100-sxm", 1);
    f->cfg.sched.policy = SIM_POLICY_VLLM;
    assert_true(f->cfg.sched.chunked_prefill);
    sim_engine_kv_groups g = sim_engine_kv_groups_of(&f->cfg);
    assert_int_equal(g.full, 0);
    assert_int_equal(g.swa, 1);
    assert_int_equal(g.layers_per_block, 32);
    assert_int_equal(g.window, 4096);
    assert_false(g.chunked);
    const double cap = sim_mem_kv_capacity_bytes(&f->cfg.step, f->cfg.mem_util,
                                                 f->cfg.sched.max_num_batched_tokens,
                                                 f->cfg.sched.max_num_seqs, 0.0);
    const int64_t blocks = sim_engine_kv_blocks(&f->cfg);
    assert_int_equal(blocks, (int64_t)floor(cap / 2097152.0));
    sim_kvcache kv;
    sim_kvcache_init(&kv, blocks, 16);
    sim_kvcache_set_groups(&kv, g.full, g.swa, g.window);
    assert_int_equal(sim_kvcache_blocks_held(&kv, 16511, 16512), 256);
    sim_kvcache_set_groups(&kv, 1, 0, 1);
    assert_int_equal(sim_kvcache_blocks_held(&kv, 16511, 16512), 1032);
    f->cfg.no_hybrid_kv = true; /* uniform: the flag changes nothing */
    assert_int_equal(sim_engine_kv_groups_of(&f->cfg).swa, 1);
    f->cfg.no_hybrid_kv = false;
    /* a prefix cache in use (the workload's 16-token hash blocks, prefix caching on): one full
     * table; with prefix caching off the hash blocks do not matter */
    f->cfg.prefix_caching = true;
    g = sim_engine_kv_groups_for(&f->cfg, 16);
    assert_int_equal(g.full, 1);
    assert_int_equal(g.swa, 0);
    f->cfg.prefix_caching = false;
    assert_int_equal(sim_engine_kv_groups_for(&f->cfg, 16).swa, 1);
    /* served: 40 such requests at once. A full table holds at most floor(blocks / 1032)
     * sequences in their last decode steps, fewer than 40; the sliding ones hold all 40
     * (40 x 256 blocks fit), so the last iterations run 40 at once and the mean batch passes
     * what a full table could ever run at that length */
    assert_true(blocks / 1032 < 40 && 40 * 256 < blocks);
    sim_workload w = tu_synth(40, 16000, 512, INFINITY, 0.0);
    sim_engine_result r = simulate(f, &w);
    assert_int_equal(metrics(&r).completed, 40);
    assert_int_equal(r.preemptions, 0);
    assert_true(r.kv_peak_blocks <= blocks);
    assert_true(r.peak_concurrency == 40);
    assert_true((double)r.scheduled_seqs / (double)r.iterations > (double)(blocks / 1032));
    /* under EAGLE the head's layer slides too (spec.c): one sliding table of 33 layers, a
     * block 16 x 33 x 4096 B = 2,162,688 B */
    sim_spec sp;
    sim_err err = {{0}};
    assert_int_equal(sim_spec_init(&sp, SIM_SPEC_EAGLE, 2, 0.7, -1, &f->m, NULL, &err), SIM_OK);
    f->cfg.spec = &sp;
    f->cfg.sched.spec_tokens = 2;
    g = sim_engine_kv_groups_of(&f->cfg);
    assert_int_equal(g.swa, 1);
    assert_int_equal(g.layers_per_block, 33);
    assert_true(g.heads_in_groups);
    assert_int_equal(sim_engine_kv_blocks(&f->cfg),
                     (int64_t)floor(sim_engine_kv_capacity_bytes(&f->cfg) / 2162688.0));
    f->cfg.spec = NULL;
    f->cfg.sched.spec_tokens = 0;
    /* SGLang (no sliding pool for a model without full layers) keeps one full table */
    f->cfg.sched.policy = SIM_POLICY_SGLANG;
    assert_int_equal(sim_engine_kv_groups_of(&f->cfg).swa, 0);
    sim_engine_result_free(&r);
    sim_workload_free(&w);
    free(f);
}

/* gpt-oss-120b under EAGLE (3 tokens) on one H100, vLLM v1: the head's one layer has the
 * target's attention shape and is full attention, so the groups are cut from 19 full + 18
 * sliding layers: groups of 19 (19 < 1.5 x 18), 1 full and 1 sliding table (the sliding one
 * padded to 19), a block 16 x 19 x 2 x 8 x 64 x 2 B = 622,592 B. Held at full length (the rule
 * before: one table of the 36 layers plus the head's KV) a block was 16 x 37 x 2048 B =
 * 1,212,416 B; a 33,000-token sequence (+ 3 speculative slots) holds 2063 blocks then,
 * 2063 + 9 = 2072 of the smaller ones now: room for 1,212,416 x 2063 / (622,592 x 2072) =
 * 1.94x the sequences. A separate draft model keeps the one full table. */
static void test_sliding_kv_with_heads(void **state)
{
    (void)state;
    fixture *f = fx_new("gpt-oss-120b", "h100-sxm", 1);
    f->cfg.step.prec.weight = SIM_DT_MXFP4;
    f->cfg.sched.policy = SIM_POLICY_VLLM;
    sim_spec sp;
    sim_err err = {{0}};
    assert_int_equal(sim_spec_init(&sp, SIM_SPEC_EAGLE, 3, 0.7, -1, &f->m, NULL, &err), SIM_OK);
    f->cfg.spec = &sp;
    f->cfg.sched.spec_tokens = 3; /* as the CLI sets it from the spec */
    sim_engine_kv_groups g = sim_engine_kv_groups_of(&f->cfg);
    assert_int_equal(g.full, 1);
    assert_int_equal(g.swa, 1);
    assert_int_equal(g.layers_per_block, 19);
    assert_int_equal(g.window, 128);
    assert_true(g.heads_in_groups);
    const double cap = sim_engine_kv_capacity_bytes(&f->cfg);
    assert_true(cap > 1e9);
    const int64_t blocks = sim_engine_kv_blocks(&f->cfg);
    assert_int_equal(blocks, (int64_t)floor(cap / 622592.0));
    sim_kvcache kv;
    sim_kvcache_init(&kv, blocks, 16);
    sim_kvcache_set_groups(&kv, g.full, g.swa, g.window);
    assert_int_equal(sim_kvcache_blocks_held(&kv, 33000, 33003), 2072);
    const double before = floor(cap / 1212416.0) / 2063.0, now = (double)blocks / 2072.0;
    assert_near(now / before, 1212416.0 * 2063.0 / (622592.0 * 2072.0), 0.001);
    /* served: 20 requests of 32,000 + 1,000 with the head run and finish */
    sim_workload w = tu_synth(20, 32000, 1000, INFINITY, 0.0);
    sim_engine_result r = simulate(f, &w);
    assert_int_equal(metrics(&r).completed, 20);
    assert_true(r.kv_peak_blocks <= blocks);
    sim_engine_result_free(&r);
    sim_workload_free(&w);
    /* --disable-hybrid-kv-cache-manager: one full table of the 36 layers, the head's KV an
     * extra per block (1,212,416 B) */
    f->cfg.no_hybrid_kv = true;
    g = sim_engine_kv_groups_of(&f->cfg);
    assert_int_equal(g.swa, 0);
    assert_false(g.heads_in_groups);
    assert_int_equal(sim_engine_kv_blocks(&f->cfg), (int64_t)floor(cap / 1212416.0));
    f->cfg.no_hybrid_kv = false;
    /* a separate draft model (gpt-oss-20b): one full table, its KV an extra per block */
    sim_model d = tu_model("gpt-oss-20b");
    assert_int_equal(sim_spec_init(&sp, SIM_SPEC_DRAFT, 3, 0.7, -1, &f->m, &d, &err), SIM_OK);
    g = sim_engine_kv_groups_of(&f->cfg);
    assert_int_equal(g.swa, 0);
    assert_false(g.heads_in_groups);
    free(f);
}

/* The saturated batch of capacity.h counts a sequence's blocks over the tables it holds.
 * Mistral-7B v0.1 (one sliding table, window 4096, blocks of 16) at 8000 + 1000: the mean
 * 8500 tokens hold 532 - floor(4405 / 16) = 532 - 275 = 257 blocks. Qwen3-Next-80B at TP 4 (1
 * full and 3 state tables, blocks raised to 272 tokens) at 1000 + 1000: ceil(1500 / 272) = 6
 * full blocks and 3 state ones, 9 (the rule before divided by ceil(1500 / 16) = 94 blocks of
 * 16 tokens, ten times too few sequences). */
static void test_capacity_follows_tables(void **state)
{
    (void)state;
    fixture *f = fx_new("mistral-7b", "h100-sxm", 1);
    f->cfg.sched.policy = SIM_POLICY_VLLM;
    f->cfg.sched.max_num_seqs = 100000;
    int64_t blocks = sim_engine_kv_blocks(&f->cfg);
    assert_true(blocks > 257);
    assert_near(sim_capacity_seqs(&f->cfg, 8000.0, 1000.0), floor((double)blocks / 257.0), 0);
    f->cfg.sched.max_num_seqs = 64; /* the engine's cap binds */
    assert_near(sim_capacity_seqs(&f->cfg, 8000.0, 1000.0), 64.0, 0);
    assert_near(sim_capacity_seqs(&f->cfg, 0.5, 1000.0), 0.0, 0);
    free(f);
    f = fx_new("qwen3-next-80b-a3b", "h100-sxm", 4);
    f->cfg.sched.policy = SIM_POLICY_VLLM;
    f->cfg.sched.max_num_seqs = 100000;
    assert_int_equal(sim_engine_kv_groups_of(&f->cfg).block_size, 272);
    blocks = sim_engine_kv_blocks(&f->cfg);
    assert_true(blocks > 9);
    assert_near(sim_capacity_seqs(&f->cfg, 1000.0, 1000.0), floor((double)blocks / 9.0), 0);
    assert_true(sim_capacity_rps(&f->cfg, 1000.0, 1000.0) > 0.0);
    free(f);
}

/* A hybrid linear model under vLLM v1 (engine.h, config.py's HybridAttentionMambaModelConfig):
 * Qwen3-Next-80B at TP 4 on H100: one attention layer's page of one token 2 x ceil(2 / 4) x 256 x
 * 2 B = 1024 B; a GDN layer's state (3 x 8192 / 4 + 32 / 4 x 128 x 128) x 2 = 274,432 B: the
 * block is raised to 16 x ceil(274,432 / 16,384) = 16 x 17 = 272 tokens (544 at TP 1: 1,097,728
 * / 32,768 -> 34); 12 attention + 36 GDN layers: groups of 12, 1 full and 3 state tables; a
 * block is 272 x 12 x 1024 = 3,342,336 B. A 1000-token request holds ceil(1000 / 272) = 4 full
 * blocks and one per state table: 7. Nemotron-Nano-9B-v2 at TP 1: 4 attention + 27 Mamba-2
 * layers: groups of 4, 1 full and 7 state tables (the last padded); page 2 x 8 x 128 x 2 = 4096
 * B, state 2,695,168 B: block 16 x ceil(41.125) = 672 tokens. */
static void test_hybrid_state_groups(void **state)
{
    (void)state;
    fixture *f = fx_new("qwen3-next-80b-a3b", "h100-sxm", 4);
    f->cfg.sched.policy = SIM_POLICY_VLLM;
    sim_engine_kv_groups g = sim_engine_kv_groups_of(&f->cfg);
    assert_int_equal(g.full, 1);
    assert_int_equal(g.state, 3);
    assert_int_equal(g.swa, 0);
    assert_int_equal(g.layers_per_block, 12);
    assert_int_equal(g.block_size, 272);
    const double cap = sim_mem_kv_capacity_bytes(&f->cfg.step, f->cfg.mem_util, 8192, 256, 0.0);
    assert_int_equal(sim_engine_kv_blocks(&f->cfg), (int64_t)floor(cap / 3342336.0));
    sim_kvcache kv;
    sim_kvcache_init(&kv, 100, g.block_size);
    sim_kvcache_set_groups(&kv, g.full, g.swa, 1);
    sim_kvcache_set_state_groups(&kv, g.state);
    assert_int_equal(sim_kvcache_blocks_held(&kv, 0, 1000), 7);
    assert_int_equal(sim_kvcache_blocks_held(&kv, 0, 0), 0);
    f->cfg.step.tp = 1;
    assert_int_equal(sim_engine_kv_groups_of(&f->cfg).block_size, 544);
    f->cfg.step.tp = 4;
    /* vLLM turns prefix caching off for these models */
    f->cfg.prefix_caching = true;
    assert_false(sim_engine_prefix_caching(&f->cfg));
    /* served: every request completes, the reported block size is vLLM's */
    sim_workload w = tu_synth(20, 1000, 100, INFINITY, 0.0);
    sim_engine_result r = simulate(f, &w);
    assert_int_equal(metrics(&r).completed, 20);
    assert_int_equal(r.block_size, 272);
    assert_int_equal(r.prefix_query_tokens, 0);
    sim_engine_result_free(&r);
    /* other engines' state pools, vLLM without the hybrid manager: refused by flag */
    sim_err err = {{0}};
    f->cfg.sched.policy = SIM_POLICY_SGLANG;
    assert_int_equal(sim_engine_check(&f->cfg, &w, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--engine"));
    f->cfg.sched.policy = SIM_POLICY_VLLM;
    f->cfg.no_hybrid_kv = true;
    assert_int_equal(sim_engine_check(&f->cfg, &w, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--disable-hybrid-kv-cache-manager"));
    f->cfg.no_hybrid_kv = false;
    /* speculation (its own MTP layer, 2 tokens): each state table holds 1 + 2 pages per request
     * (vLLM's MambaSpec num_speculative_blocks = num_speculative_tokens), 3 x 3 = 9; a 1000-token
     * request with its 2 speculative slots: ceil(1002 / 272) = 4 full blocks + 9 = 13 */
    sim_spec sp;
    const sim_spec_tree two = sim_spec_chain(2);
    const sim_spec_accept acc = {.alpha = -1.0, .tau = -1.0, .n_rates = 2, .rates = {0.85, 0.65}};
    assert_int_equal(sim_spec_init_tree(&sp, SIM_SPEC_MTP, &two, &acc, "--t", &f->m, NULL, &err),
                     SIM_OK);
    f->cfg.spec = &sp;
    f->cfg.sched.spec_tokens = 2; /* as the CLI sets it from the spec */
    g = sim_engine_kv_groups_of(&f->cfg);
    assert_int_equal(g.state, 9);
    assert_int_equal(g.full, 1);
    sim_kvcache_set_state_groups(&kv, g.state);
    assert_int_equal(sim_kvcache_blocks_held(&kv, 0, 1002), 13);
    assert_int_equal(sim_engine_check(&f->cfg, &w, &err), SIM_OK);
    r = simulate(f, &w);
    assert_int_equal(metrics(&r).completed, 20);
    sim_engine_result_free(&r);
    f->cfg.spec = NULL;
    f->cfg.sched.spec_tokens = 0;
    sim_workload_free(&w);
    free(f);

    f = fx_new("nemotron-nano-9b-v2", "h100-sxm", 1);
    f->cfg.sched.policy = SIM_POLICY_VLLM;
    g = sim_engine_kv_groups_of(&f->cfg);
    assert_int_equal(g.full, 1);
    assert_int_equal(g.state, 7);
    assert_int_equal(g.layers_per_block, 4);
    assert_int_equal(g.block_size, 672);
    free(f);
}

/* SGLang's hybrid SWA memory (set_num_tokens_hybrid_swa): the profiled tokens T (the memory
 * over every layer's bytes per token) are re-cut into a full pool of T (nf + ns) / (nf + r ns)
 * tokens, r = --swa-full-tokens-ratio (0.8): gpt-oss-120b (18 full, 18 sliding layers) gets
 * T x 36 / 32.4 = 1.111 T full-pool tokens, Gemma 3 27B (10 full, 52 sliding) T x 62 / 51.6 =
 * 1.2016 T; r 1 leaves T; vLLM's groups are not SGLang's business. */
static void test_sglang_swa_pool(void **state)
{
    (void)state;
    static const struct {
        const char *model;
        int tp;
        double ratio, factor;
    } cases[] = {{"gpt-oss-120b", 1, 0.8, 36.0 / 32.4},
                 {"gpt-oss-120b", 1, 1.0, 1.0},
                 {"gpt-oss-120b", 1, 0.5, 36.0 / 27.0},
                 {"gemma-3-27b", 2, 0.8, 62.0 / 51.6}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        fixture *f = fx_new(cases[k].model, "h100-sxm", cases[k].tp);
        if (f->m.quant.present) /* gpt-oss: its MXFP4 experts */
            f->cfg.step.prec.weight = SIM_DT_MXFP4;
        f->cfg.sched.policy = SIM_POLICY_SGLANG;
        f->cfg.block_size = 1;
        f->cfg.swa_full_tokens_ratio = cases[k].ratio;
        const double bytes = sim_engine_kv_capacity_bytes(&f->cfg);
        const double t = floor(bytes / sim_mem_kv_bytes_per_token(&f->cfg.step));
        assert_true(t > 1000.0);
        assert_int_equal(sim_engine_kv_blocks(&f->cfg), (int64_t)(t * cases[k].factor));
        free(f);
    }
    /* gpt-oss's 36 layers of 2 x 8 KV heads x 64 x 2 B = 73,728 B a token */
    fixture *f = fx_new("gpt-oss-120b", "h100-sxm", 1);
    f->cfg.step.prec.weight = SIM_DT_MXFP4;
    f->cfg.sched.policy = SIM_POLICY_SGLANG;
    f->cfg.block_size = 1;
    const double t = floor(sim_engine_kv_capacity_bytes(&f->cfg) / 73728.0);
    assert_int_equal(sim_engine_kv_blocks(&f->cfg), (int64_t)(t * 36.0 / 32.4));
    free(f);
}

/* TensorRT-LLM's per-window pools (engine.h, sim_engine_trt_pools_of). Gemma 3 27B at TP 1 on
 * an H200, bf16 KV: 16 KV heads x 128 x 2 (K, V) x 2 B = 8,192 B a token a layer, KV memory
 * M = 78,237,835,409 B under the fixture's plan. Windows {1024 x 5, 131072} cycled over its 62
 * layers (every 6th full, Gemma 3's pattern): a pool of 52 layers of window 1024 (425,984 B a
 * token) and one of 10 layers of 131072 (81,920 B).
 * Equal shares (the trtllm profile): sliding floor(M / 2 / 425,984) = 91,832 tokens, 2,869
 * blocks of 32; full floor(M / 2 / 81,920) = 477,525 tokens, 14,922 blocks. A 4,096-token
 * sequence reserves ceil(1024 / 32) + 1 = 33 sliding blocks (past its window) and 128 full:
 * min(86, 116) = 86 at once; a 131,072-token one 33 and 4,096: min(86, 3) = 3. One full-length
 * pool of all 62 layers (the option unset): floor(M / (32 x 507,904)) = 4,813 blocks, 37
 * sequences of 4K and 1 of 128K.
 * Window-weighted shares (the C++ runtime's): weights 1024 x 425,984 and 131072 x 81,920, so
 * sliding M x 1024 / 11,173,625,856 = 7,170 tokens, ceil / 32 = 225 blocks, full 917,772
 * tokens, 28,681 blocks; cyclic, a sequence past 1024 reserves 32 sliding blocks: 7 of 4K
 * (225 / 32) and 7 of 128K (28,681 / 4,096), the same in both pools by construction.
 * gpt-oss-120b on an H100 (MXFP4 experts, M = 9,545,046,031 B; 18 + 18 layers of 2,048 B),
 * {128, 131072}, equal: each pool floor(M / 2 / 36,864) = 129,463 tokens, 4,045 blocks, the
 * single full-length pool's count; 4K: min(4,045 / 5, 4,045 / 128) = 31, the full pool
 * binding. */
static void test_trtllm_window_pools(void **state)
{
    (void)state;
    sim_err err = {{0}};
    const sim_engine_trt_rule eq = SIM_ENGINE_TRT_EQUAL, win = SIM_ENGINE_TRT_WINDOW;
    assert_int_equal(sim_engine_trt_seq_blocks(eq, 1024, 1000, 32), 32);
    assert_int_equal(sim_engine_trt_seq_blocks(eq, 1024, 1024, 32), 32);
    assert_int_equal(sim_engine_trt_seq_blocks(eq, 1024, 1025, 32), 33);
    assert_int_equal(sim_engine_trt_seq_blocks(eq, 1024, 4096, 32), 33);
    assert_int_equal(sim_engine_trt_seq_blocks(win, 1024, 4096, 32), 32);
    assert_int_equal(sim_engine_trt_seq_blocks(eq, 131072, 4096, 32), 128);

    fixture *f = fx_new("gemma-3-27b", "h200", 1);
    f->cfg.block_size = 32;
    f->cfg.sched.policy = SIM_POLICY_NO_EVICT;
    f->cfg.sched.chunked_prefill = false;
    assert_true(fabs(sim_engine_kv_capacity_bytes(&f->cfg) - 78237835409.0) < 1.0);
    const int64_t gemma[6] = {1024, 1024, 1024, 1024, 1024, 131072};
    sim_engine_trt_pools p;
    assert_int_equal(sim_engine_trt_pools_of(&f->cfg, eq, gemma, 6, 131072, &p, &err), SIM_OK);
    assert_int_equal(p.n, 2);
    assert_int_equal(p.pool[0].window, 1024);
    assert_int_equal(p.pool[0].layers, 52);
    assert_true(p.pool[0].bytes_per_token == 425984.0);
    assert_int_equal(p.pool[1].window, 131072);
    assert_int_equal(p.pool[1].layers, 10);
    assert_true(p.pool[1].bytes_per_token == 81920.0);
    assert_int_equal(p.pool[0].blocks, 2869);
    assert_int_equal(p.pool[1].blocks, 14922);
    assert_int_equal(sim_engine_trt_seqs(&p, 4096), 86);
    assert_int_equal(sim_engine_trt_seqs(&p, 131072), 3);
    /* the option unset: one pool of all 62 layers at full length */
    assert_int_equal(sim_engine_kv_blocks(&f->cfg), 4813);
    assert_int_equal(sim_engine_kv_blocks(&f->cfg) / 128, 37);
    assert_int_equal(sim_engine_kv_blocks(&f->cfg) / 4096, 1);
    assert_int_equal(sim_engine_trt_pools_of(&f->cfg, win, gemma, 6, 131072, &p, &err), SIM_OK);
    assert_true(fabs(p.pool[0].share - 436207616.0 / 11173625856.0) < 1e-12);
    assert_int_equal(p.pool[0].blocks, 225);
    assert_int_equal(p.pool[1].blocks, 28681);
    assert_int_equal(sim_engine_trt_seqs(&p, 4096), 7);
    assert_int_equal(sim_engine_trt_seqs(&p, 131072), 7);
    /* a window past max_seq_len is clamped to it and joins its pool; one window is one pool of
     * every layer with the whole memory, as with the option unset */
    const int64_t wide[2] = {1024, 200000}, one[1] = {131072};
    assert_int_equal(sim_engine_trt_pools_of(&f->cfg, eq, wide, 2, 131072, &p, &err), SIM_OK);
    assert_int_equal(p.n, 2);
    assert_int_equal(p.pool[1].window, 131072);
    assert_int_equal(p.pool[0].layers, 31);
    assert_int_equal(p.pool[1].layers, 31);
    assert_int_equal(sim_engine_trt_pools_of(&f->cfg, eq, one, 1, 131072, &p, &err), SIM_OK);
    assert_int_equal(p.n, 1);
    assert_int_equal(p.pool[0].blocks, 4813);
    /* bad lists name the option */
    const int64_t zero[2] = {1024, 0};
    assert_int_equal(sim_engine_trt_pools_of(&f->cfg, eq, zero, 2, 131072, &p, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "kv_cache_config.max_attention_window: window 1 is 0"));
    assert_int_equal(sim_engine_trt_pools_of(&f->cfg, eq, zero, 0, 131072, &p, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "0 windows, expected 1 to 16"));
    free(f);

    f = fx_new("gpt-oss-120b", "h100-sxm", 1);
    f->cfg.step.prec.weight = SIM_DT_MXFP4;
    f->cfg.block_size = 32;
    f->cfg.sched.policy = SIM_POLICY_NO_EVICT;
    f->cfg.sched.chunked_prefill = false;
    const int64_t oss[2] = {128, 131072};
    assert_int_equal(sim_engine_trt_pools_of(&f->cfg, eq, oss, 2, 131072, &p, &err), SIM_OK);
    assert_int_equal(p.n, 2);
    assert_int_equal(p.pool[0].layers, 18);
    assert_int_equal(p.pool[1].layers, 18);
    assert_true(p.pool[0].bytes_per_token == 36864.0);
    assert_int_equal(p.pool[0].blocks, 4045);
    assert_int_equal(p.pool[1].blocks, 4045);
    assert_int_equal(sim_engine_kv_blocks(&f->cfg), 4045);
    assert_int_equal(sim_engine_trt_seqs(&p, 4096), 31);
    assert_int_equal(sim_engine_trt_seqs(&p, 131072), 0);
    free(f);
}

/* Images in serve: one request of 100 text tokens and one 1280 x 720 image on Qwen2.5-VL-72B
 * (1196 placeholder tokens: a 1296-token prompt). Its first iteration is the language model's
 * prefill of the 1296 tokens plus the encoder, so its TTFT exceeds a 1296-token text request's
 * by the encoder's time (the vision ops of that step), and only once when the prompt is chunked
 * (512-token budget: the encoder runs with the first chunk). */
static void test_images(void **state)
{
    (void)state;
    fixture *f = fx_new("qwen2.5-vl-72b", "h100-sxm", 8);
    f->cfg.image_w = 1280;
    f->cfg.image_h = 720;
    sim_workload w = tu_synth(1, 100, 4, INFINITY, 0.0);
    w.reqs[0].images = 1;
    assert_int_equal(sim_engine_prompt_tokens(&f->cfg, &w.reqs[0]), 1296);
    sim_workload t = tu_synth(1, 1296, 4, INFINITY, 0.0);
    for (int budget = 8192; budget >= 512; budget /= 16) {
        f->cfg.sched.max_num_batched_tokens = budget;
        sim_engine_result a = simulate(f, &w), b = simulate(f, &t);
        assert_int_equal(a.seqs[0].input, 1296);
        sim_step_cfg sc = f->cfg.step;
        sc.eager = true;
        const int64_t q = budget < 1296 ? budget : 1296;
        sim_seq_group g = {.count = 1, .q = q, .c = 0, .logits = q == 1296, .images = 1,
                           .image_w = 1280, .image_h = 720};
        sim_step_result s;
        sim_step_price(&sc, &g, 1, &s);
        double vision_ns = 0.0;
        for (int i = SIM_OP_VISION_PATCH_EMBED; i <= SIM_OP_VISION_PROJ; i++)
            vision_ns += s.cost[i].t_ns * (double)s.graph.repeats[i];
        assert_true(vision_ns > 1e6);
        const double dt = (double)(a.seqs[0].first_token_ns - b.seqs[0].first_token_ns);
        assert_true(fabs(dt - vision_ns) <= 2.0); /* whole nanoseconds */
        sim_engine_result_free(&a);
        sim_engine_result_free(&b);
    }
    /* images for a model without a vision encoder: refused naming the request */
    fixture *g = fx_new("llama-3.1-8b", "h100-sxm", 1);
    g->cfg.image_w = 1280;
    g->cfg.image_h = 720;
    sim_err err = {{0}};
    assert_int_equal(sim_engine_check(&g->cfg, &w, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "no vision encoder"));
    sim_workload_free(&w);
    sim_workload_free(&t);
    free(g);
    free(f);
}

/* The chunk observer (the live endpoint's feed): per request, chunks with growing token counts
 * whose last holds its whole output, the first at its first_token_ns and the last at its
 * finish_ns, the client's times with a front end that streams every 3 tokens (frontend.h) as
 * without one; without one a chunk per emitted token, so output chunks. */
typedef struct chunk_log {
    const sim_engine_result *r; /* filled after the run: the checks run on the log */
    int64_t n, *streamed, *first, *last, *chunks;
    bool grows;
} chunk_log;

static void log_chunk(void *ctx, int64_t id, int64_t streamed, int64_t t_ns)
{
    chunk_log *c = ctx;
    c->grows &= streamed > c->streamed[id] && t_ns >= c->last[id];
    if (c->chunks[id]++ == 0)
        c->first[id] = t_ns;
    c->streamed[id] = streamed;
    c->last[id] = t_ns;
}

static void test_chunk_observer(void **state)
{
    (void)state;
    for (int fe = 0; fe < 2; fe++) {
        fixture *f = fx_new("llama-3.1-8b", "h100-sxm", 1);
        if (fe)
            f->cfg.frontend = (sim_frontend_cfg){.on = true,
                                                 .processes = 1,
                                                 .request_ns = 2e6,
                                                 .output_token_ns = 1e4,
                                                 .chunk_ns = 2e4,
                                                 .stream_interval = 3,
                                                 .first_token_alone = true};
        sim_workload w = tu_synth(40, 300, 20, 50.0, 0.5);
        chunk_log c = {.n = (int64_t)w.n, .grows = true};
        c.streamed = calloc(w.n, sizeof *c.streamed);
        c.first = calloc(w.n, sizeof *c.first);
        c.last = calloc(w.n, sizeof *c.last);
        c.chunks = calloc(w.n, sizeof *c.chunks);
        const sim_engine_observer obs = {.ctx = &c, .chunk = log_chunk};
        f->cfg.observer = &obs;
        sim_engine_result r = simulate(f, &w);
        assert_true(c.grows);
        for (size_t i = 0; i < w.n; i++) {
            assert_int_equal(c.streamed[i], r.seqs[i].output);
            assert_int_equal(c.first[i], r.seqs[i].first_token_ns);
            assert_int_equal(c.last[i], r.seqs[i].finish_ns);
            if (!fe)
                assert_int_equal(c.chunks[i], r.seqs[i].output);
            else /* the first token alone, then every 3 (and the last): 1 + ceil((out - 1) / 3) */
                assert_int_equal(c.chunks[i], 1 + (r.seqs[i].output - 1 + 2) / 3);
        }
        sim_engine_result_free(&r);
        sim_workload_free(&w);
        free(c.streamed);
        free(c.first);
        free(c.last);
        free(c.chunks);
        free(f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_request_completes_once),
        cmocka_unit_test(test_mooncake_prefix_cache),
        cmocka_unit_test(test_graph_padding_prices_dummies),
        cmocka_unit_test(test_ttft_at_least_own_prefill),
        cmocka_unit_test(test_low_rate_matches_run),
        cmocka_unit_test(test_throughput_grows_then_saturates),
        cmocka_unit_test(test_tight_kv_preempts_and_completes),
        cmocka_unit_test(test_same_seed_same_result),
        cmocka_unit_test(test_chunked_prefill_lowers_tail_itl),
        cmocka_unit_test(test_max_concurrency),
        cmocka_unit_test(test_far_apart_requests),
        cmocka_unit_test(test_checks),
        cmocka_unit_test(test_hybrid_kv_sliding_window),
        cmocka_unit_test(test_sliding_every_layer),
        cmocka_unit_test(test_sliding_kv_with_heads),
        cmocka_unit_test(test_trtllm_window_pools),
        cmocka_unit_test(test_capacity_follows_tables),
        cmocka_unit_test(test_hybrid_state_groups),
        cmocka_unit_test(test_images),
        cmocka_unit_test(test_sglang_swa_pool),
        cmocka_unit_test(test_chunk_observer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
