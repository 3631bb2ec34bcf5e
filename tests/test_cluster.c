/* test_cluster.c - replicas behind a router, and the engine's stepping API they run on. */
#include "engfix.h"

#include "cluster.h"
#include "deploy.h"
#include "disagg.h"
#include "metrics.h"

static fixture *fx_new(void) { return tu_engine_new("llama-3.1-8b", "h100-sxm", 1); }


static void run_cluster(const fixture *f, int replicas, sim_router router, const sim_workload *w,
                        sim_engine_result *all, sim_cluster_result *per)
{
    sim_cluster_cfg c = {.engine = &f->cfg, .replicas = replicas, .router = router};
    sim_err err = {{0}};
    if (sim_cluster_check(&c, w, &err) || sim_cluster_run(&c, w, all, per, &err)) {
        print_error("%s\n", err.msg);
        fail();
    }
}

static double output_tps(const sim_engine_result *r)
{
    sim_slo slo = {0};
    sim_serve_metrics m;
    assert_int_equal(sim_metrics_compute(r, &slo, &m), SIM_OK);
    return m.output_throughput;
}

/* The stepping API gives sim_engine_run's result; outstanding counts requests given and not
 * finished at a time. */
static void test_stepping(void **state)
{
    (void)state;
    fixture *f = fx_new();
    sim_workload w = tu_synth(40, 200, 30, 50.0, 0.0);
    sim_err err = {{0}};
    sim_engine_result a, b;
    assert_int_equal(sim_engine_run(&f->cfg, &w, &a, &err), SIM_OK);
    /* the same stream fed one request at a time */
    sim_workload grow = w;
    grow.n = 0;
    sim_engine *e;
    assert_int_equal(sim_engine_start(&f->cfg, &grow, w.n, &b, &e, &err), SIM_OK);
    for (size_t i = 0; i < w.n; i++) {
        assert_int_equal(sim_engine_advance(e, w.reqs[i].arrival_ns, &err), SIM_OK);
        assert_true(sim_engine_outstanding(e, w.reqs[i].arrival_ns) <= (int64_t)i);
        grow.n++;
    }
    /* advanced to the last arrival: its clock is there or at the end of a running iteration */
    assert_true(sim_engine_now(e) >= w.reqs[w.n - 1].arrival_ns);
    assert_int_equal(sim_engine_finish(e, &err), SIM_OK);
    assert_int_equal(b.n, a.n);
    for (size_t i = 0; i < a.n; i++) {
        assert_int_equal(sim_engine_req(&b, i).first_token_ns, sim_engine_req(&a, i).first_token_ns);
        assert_int_equal(sim_engine_req(&b, i).finish_ns, sim_engine_req(&a, i).finish_ns);
    }
    assert_int_equal(b.duration_ns, a.duration_ns);
    assert_int_equal(b.iterations, a.iterations);
    /* more requests than the room it was started with is refused; abort frees it */
    sim_engine_result c;
    grow.n = 0;
    assert_int_equal(sim_engine_start(&f->cfg, &grow, 1, &c, &e, &err), SIM_OK);
    grow.n = 2;
    assert_int_equal(sim_engine_advance(e, 0, &err), SIM_EINTERNAL);
    assert_non_null(strstr(err.msg, "room for 1"));
    sim_engine_abort(e, &c);
    sim_engine_result_free(&a);
    sim_engine_result_free(&b);
    sim_workload_free(&w);
    free(f);
}

/* Fed one request at a time and releasing the finished front of its stream after every advance
 * (as a replica behind a router does), the engine gives each request sim_engine_run's timeline,
 * with and without a front end (whose arrays move with the release): the release renumbers
 * requests, it changes nothing they do. Preemptions included: a small KV cache. A request not yet
 * finished before the engine's clock is refused, and nothing is dropped. */
static void test_release_front(void **state)
{
    (void)state;
    fixture *f = fx_new();
    f->cfg.mem_util = 0.3; /* a small KV cache: requests of 2000 + 300 tokens preempt */
    for (int fe = 0; fe < 2; fe++) {
        f->cfg.frontend = (sim_frontend_cfg){.on = fe == 1, .processes = 1, .request_ns = 2e6,
                                             .input_token_ns = 1e3, .stream_interval = 4};
        sim_workload w = tu_synth(300, 2000, 300, 8.0, 0.5);
        sim_err err = {{0}};
        sim_engine_result a, b;
        if (sim_engine_check(&f->cfg, &w, &err) || sim_engine_run(&f->cfg, &w, &a, &err)) {
            print_error("%s\n", err.msg);
            fail();
        }
        sim_workload held = w; /* the requests the engine holds: w's [base, base + n) */
        held.n = 0;
        sim_seq *out = calloc(w.n, sizeof *out);
        size_t base = 0, released = 0, most = 0;
        sim_engine *e;
        assert_int_equal(sim_engine_start(&f->cfg, &held, w.n, &b, &e, &err), SIM_OK);
        for (size_t i = 0; i <= w.n; i++) {
            const int64_t t = i < w.n ? w.reqs[i].arrival_ns : INT64_MAX / 2;
            assert_int_equal(sim_engine_advance(e, t, &err), SIM_OK);
            size_t k = 0;
            while (k < held.n && b.seqs[k].phase == SIM_SEQ_DONE &&
                   b.seqs[k].finish_ns < sim_engine_now(e))
                k++;
            if (k < held.n && b.seqs[k].phase != SIM_SEQ_DONE) { /* one too many: refused */
                assert_int_equal(sim_engine_release(e, k + 1, &err), SIM_EINTERNAL);
                assert_non_null(strstr(err.msg, "not finished"));
            }
            assert_int_equal(sim_engine_release(e, held.n + 1, &err), SIM_EINTERNAL);
            if (k > 0) /* (b.seqs is NULL until the first request) */
                memcpy(out + base, b.seqs, k * sizeof *out);
            held.reqs += k;
            held.n -= k;
            base += k;
            released += k;
            assert_int_equal(sim_engine_release(e, k, &err), SIM_OK);
            assert_int_equal(sim_engine_done(e) >= base, true);
            if (i < w.n) {
                held.n++;
                most = held.n > most ? held.n : most;
            }
        }
        assert_int_equal(sim_engine_finish(e, &err), SIM_OK);
        memcpy(out + base, b.seqs, b.n * sizeof *out);
        assert_int_equal(base + b.n, w.n);
        assert_true(released > w.n / 2 && most < w.n / 2); /* it held a fraction at a time */
        int64_t preempted = 0;
        for (size_t i = 0; i < w.n; i++) {
            assert_int_equal(out[i].first_sched_ns, a.seqs[i].first_sched_ns);
            assert_int_equal(out[i].first_token_ns, a.seqs[i].first_token_ns);
            assert_int_equal(out[i].finish_ns, a.seqs[i].finish_ns);
            assert_int_equal(out[i].preemptions, a.seqs[i].preemptions);
            preempted += out[i].preemptions;
        }
        assert_true(preempted > 0);
        assert_int_equal(b.iterations, a.iterations);
        assert_int_equal(b.duration_ns, a.duration_ns);
        assert_int_equal(b.itl.n, a.itl.n);
        free(out);
        sim_engine_result_free(&a);
        sim_engine_result_free(&b);
        sim_workload_free(&w);
    }
    free(f);
}

/* Saturated (every request at t = 0), four replicas serve four times the requests in about the
 * time one serves its share: >= 3.4x the output throughput. */
static void test_four_replicas_scale(void **state)
{
    (void)state;
    fixture *f = fx_new();
    sim_workload one = tu_synth(150, 512, 64, INFINITY, 0.0);
    sim_workload four = tu_synth(600, 512, 64, INFINITY, 0.0);
    sim_engine_result a, b;
    sim_cluster_result pa, pb;
    run_cluster(f, 1, SIM_ROUTER_LEAST_OUTSTANDING, &one, &a, &pa);
    run_cluster(f, 4, SIM_ROUTER_LEAST_OUTSTANDING, &four, &b, &pb);
    double x1 = output_tps(&a), x4 = output_tps(&b);
    assert_true(x4 >= 3.4 * x1);
    assert_true(x4 <= 4.0 * x1 * 1.0001);
    for (int r = 0; r < 4; r++)
        assert_int_equal(pb.load[r].requests, 150); /* balanced at t = 0 */
    assert_int_equal(b.peak_concurrency, 600);
    sim_engine_result_free(&a);
    sim_engine_result_free(&b);
    sim_cluster_result_free(&pa);
    sim_cluster_result_free(&pb);
    sim_workload_free(&one);
    sim_workload_free(&four);
    free(f);
}

/* Each policy runs; the merged result holds every request once. */
static void test_each_router(void **state)
{
    (void)state;
    fixture *f = fx_new();
    sim_workload w = tu_synth(30, 300, 20, 40.0, 0.0);
    for (int p = 0; p < SIM_ROUTER_COUNT; p++) {
        sim_engine_result all;
        sim_cluster_result per;
        run_cluster(f, 3, (sim_router)p, &w, &all, &per);
        int64_t n = 0, out = 0;
        for (int r = 0; r < 3; r++) {
            n += per.load[r].requests;
            out += per.load[r].output_tokens;
        }
        assert_int_equal(n, 30);
        assert_int_equal(out, 30 * 20);
        for (size_t i = 0; i < all.n; i++)
            assert_true(sim_engine_req(&all, i).finish_ns >= w.reqs[i].arrival_ns &&
                        sim_engine_req(&all, i).output == 20);
        if (p == SIM_ROUTER_ROUND_ROBIN)
            for (int r = 0; r < 3; r++)
                assert_int_equal(per.load[r].requests, 10);
        sim_engine_result_free(&all);
        sim_cluster_result_free(&per);
    }
    sim_router r;
    assert_true(sim_router_parse("prefix-aware", &r) && r == SIM_ROUTER_PREFIX_AWARE);
    assert_false(sim_router_parse("random", &r));
    assert_string_equal(sim_router_name(SIM_ROUTER_ROUND_ROBIN), "round-robin");
    sim_workload_free(&w);
    free(f);
}

/* Least-outstanding by hand, then prefix-aware on hand-made block ids. */
static void test_routing_by_hand(void **state)
{
    (void)state;
    fixture *f = fx_new();
    uint64_t ids[] = {1, 2, 3, 7, 8, 1, 2, 9};
    sim_request q[3] = {
        {.arrival_ns = 0, .input_tokens = 100, .output_tokens = 10, .hash_off = 0, .n_hash = 3},
        {.arrival_ns = 0, .input_tokens = 100, .output_tokens = 10, .hash_off = 3, .n_hash = 2},
        {.arrival_ns = 0, .input_tokens = 100, .output_tokens = 10, .hash_off = 5, .n_hash = 3}};
    sim_workload w = {.reqs = q, .n = 3, .hash_ids = ids, .n_hash_ids = 8, .source = "hand"};
    sim_engine_result all;
    sim_cluster_result per;
    /* least-outstanding at t = 0: 0 -> replica 0, 1 -> replica 1 (0 has one), 2 -> replica 0 */
    run_cluster(f, 2, SIM_ROUTER_LEAST_OUTSTANDING, &w, &all, &per);
    assert_int_equal(per.load[0].requests, 2);
    assert_int_equal(per.load[1].requests, 1);
    sim_engine_result_free(&all);
    sim_cluster_result_free(&per);
    /* prefix-aware on 3 replicas: request 0 matches nothing (replica 0), request 1 nothing
     * (least-outstanding: replica 1), request 2 shares ids 1, 2 with request 0: replica 0, with
     * 2 of the 8 blocks matched */
    run_cluster(f, 3, SIM_ROUTER_PREFIX_AWARE, &w, &all, &per);
    assert_int_equal(per.load[0].requests, 2);
    assert_int_equal(per.load[1].requests, 1);
    assert_int_equal(per.load[2].requests, 0);
    assert_int_equal(per.prefix_blocks, 2);
    assert_int_equal(per.blocks, 8);
    assert_int_equal(per.load[0].prefix_blocks, 2);
    sim_engine_result_free(&all);
    sim_cluster_result_free(&per);
    /* later arrivals: once replica 0 has finished, least-outstanding prefers it again */
    q[1].arrival_ns = 0;
    q[2].arrival_ns = 5000000000LL; /* 5 s: both done */
    run_cluster(f, 2, SIM_ROUTER_LEAST_OUTSTANDING, &w, &all, &per);
    assert_int_equal(per.load[0].requests, 2);
    sim_engine_result_free(&all);
    sim_cluster_result_free(&per);
    free(f);
}

/* On a trace with shared prefixes and engines that cache them, prefix-aware routing finds more
 * of each prompt cached than round-robin does; the merged result sums the replicas' hits. */
static void test_prefix_aware_hits(void **state)
{
    (void)state;
    fixture *f = fx_new();
    f->cfg.prefix_caching = true;
    char path[1024];
    snprintf(path, sizeof path, "%s/traces/mooncake-sample.jsonl", tu_root());
    sim_workload w;
    sim_err err = {{0}};
    assert_int_equal(sim_workload_load_trace(path, 1.0, 0, &w, &err), SIM_OK);
    double rate[2];
    for (int k = 0; k < 2; k++) {
        sim_engine_result all;
        sim_cluster_result per;
        run_cluster(f, 4, k ? SIM_ROUTER_PREFIX_AWARE : SIM_ROUTER_ROUND_ROBIN, &w, &all, &per);
        assert_true(all.prefix_query_tokens > 0);
        rate[k] = (double)all.prefix_hit_tokens / (double)all.prefix_query_tokens;
        if (k)
            assert_true(per.prefix_blocks > 0 && per.prefix_blocks <= per.blocks);
        sim_engine_result_free(&all);
        sim_cluster_result_free(&per);
    }
    assert_true(rate[1] > rate[0]);
    sim_workload_free(&w);
    free(f);
}

/* --router kv-aware (Dynamo's cost, cluster.h) by hand, 16-token blocks and hash blocks:
 *   A at 0 s, 8192 tokens (ids 1..512): both replicas empty, cost 1 x 8192 / 16 + 0 + 512 = 1024
 *     each: replica 0 (lowest index);
 *   D at 9.9 s, 16 tokens (id 5000), 3000 out: A is done (its 512 blocks cached, not active);
 *     no overlap, cost 1 + 0 + 1 = 2 on both: replica 0;
 *   B at 10 s, 8704 tokens (ids 1..512, then 32 of its own): replica 0 holds 512 of them, cost
 *     (8704 - 8192) / 16 + D's few blocks (16 + its ~20 tokens so far: 3) + 544 = about 579;
 *     replica 1: 544 + 0 + 544 = 1088: replica 0, where 8192 tokens are cached.
 * Least-outstanding sends B to replica 1 (replica 0 has D): B recomputes everything. With weight
 * 0 (load only) replica 0 costs 3 + 544 = 547 against 544: replica 1 too. */
static void test_kv_aware_by_hand(void **state)
{
    (void)state;
    fixture *f = fx_new();
    f->cfg.prefix_caching = true;
    static uint64_t ids[3][544];
    for (int k = 0; k < 544; k++) {
        ids[0][k] = k < 512 ? 1 + (uint64_t)k : 0;
        ids[2][k] = k < 512 ? 1 + (uint64_t)k : 6001 + (uint64_t)k;
    }
    ids[1][0] = 5000;
    sim_request reqs[3] = {
        {.arrival_ns = 0, .input_tokens = 8192, .output_tokens = 1, .hash_off = 0, .n_hash = 512},
        {.arrival_ns = 9900000000LL, .input_tokens = 16, .output_tokens = 3000, .hash_off = 544,
         .n_hash = 1},
        {.arrival_ns = 10000000000LL, .input_tokens = 8704, .output_tokens = 1, .hash_off = 1088,
         .n_hash = 544}};
    sim_workload w = {.reqs = reqs, .n = 3, .hash_ids = ids[0], .n_hash_ids = 3 * 544,
                      .hash_block_tokens = 16};
    snprintf(w.source, sizeof w.source, "test");
    const double weights[] = {1.0, 0.0};
    const int64_t on_zero[] = {3, 2};
    for (int i = 0; i < 2; i++) {
        sim_cluster_cfg c = {.engine = &f->cfg, .replicas = 2, .router = SIM_ROUTER_KV_AWARE,
                             .kv_overlap_weight = weights[i]};
        sim_engine_result all;
        sim_cluster_result per;
        sim_err err = {{0}};
        assert_int_equal(sim_cluster_check(&c, &w, &err), SIM_OK);
        assert_int_equal(sim_cluster_run(&c, &w, &all, &per, &err), SIM_OK);
        assert_int_equal(per.load[0].requests, on_zero[i]);
        assert_int_equal(sim_engine_req(&all, 2).cached, i == 0 ? 8192 : 0);
        sim_engine_result_free(&all);
        sim_cluster_result_free(&per);
    }
    sim_engine_result all;
    sim_cluster_result per;
    run_cluster(f, 2, SIM_ROUTER_LEAST_OUTSTANDING, &w, &all, &per);
    assert_int_equal(per.load[1].requests, 1);
    assert_int_equal(sim_engine_req(&all, 2).cached, 0);
    sim_engine_result_free(&all);
    sim_cluster_result_free(&per);
    sim_router r;
    assert_true(sim_router_parse("kv-aware", &r) && r == SIM_ROUTER_KV_AWARE);
    free(f);
}

/* Two sessions of two turns on two replicas (8192 new tokens a turn, 17 out, 10 s of thinking,
 * both starting at 0). Round-robin by request index sends both first turns (requests 0, 2) to
 * replica 0 and both second turns (1, 3) to replica 1, where nothing is cached. With session
 * affinity the second turns follow their first to replica 0 and find its 8192 + 16 = 8208
 * tokens of KV (prompt and all but the last output token: 513 blocks). kv-aware: the first turns
 * split (the second sees replica 0 with the first's 512 blocks active, as the router counts them
 * from routing on: 512 + 512 + 512 against 512 + 0 + 512 on replica 1); a second turn (16401 tokens, 1026 blocks) costs
 * (16401 - 8208) / 16 + 0 + 1026 = 1538.06 where its session ran against 1025.06 + 0 + 1026 =
 * 2051.06 elsewhere: it goes back and hits 8208 too. Every second turn is sent 10 s after its
 * first turn's last token. */
static void test_sessions_over_replicas(void **state)
{
    (void)state;
    fixture *f = fx_new();
    f->cfg.prefix_caching = true;
    sim_session_cfg sc = {.sessions = 2, .turns = 2, .input_len = 8192, .output_len = 17,
                          .request_rate = INFINITY, .burstiness = 1.0,
                          .think = {SIM_THINK_FIXED, 10.0, 0.0}, .hash_block_tokens = 16};
    sim_workload w;
    sim_err err = {{0}};
    assert_int_equal(sim_workload_sessions(&sc, &w, &err), SIM_OK);
    const sim_router routers[3] = {SIM_ROUTER_ROUND_ROBIN, SIM_ROUTER_ROUND_ROBIN,
                                   SIM_ROUTER_KV_AWARE};
    const bool affinity[3] = {false, true, false};
    const int32_t hit[3] = {0, 8208, 8208};
    for (int k = 0; k < 3; k++) {
        sim_cluster_cfg c = {.engine = &f->cfg, .replicas = 2, .router = routers[k],
                             .kv_overlap_weight = 1.0, .session_affinity = affinity[k]};
        sim_engine_result all;
        sim_cluster_result per;
        assert_int_equal(sim_cluster_check(&c, &w, &err), SIM_OK);
        assert_int_equal(sim_cluster_run(&c, &w, &all, &per, &err), SIM_OK);
        for (int s = 0; s < 2; s++) {
            assert_int_equal(sim_engine_req(&all, 2 * s + 1).cached, hit[k]);
            assert_int_equal(sim_engine_req(&all, 2 * s + 1).send_ns,
                             sim_engine_req(&all, 2 * s).finish_ns + 10000000000LL);
        }
        if (k != 1)
            assert_int_equal(per.load[1].requests, 2);
        sim_engine_result_free(&all);
        sim_cluster_result_free(&per);
    }
    sim_workload_free(&w);
    free(f);
}

/* A stale router view (cluster.h, refresh_ns): the replicas as they were at the last refresh.
 * Least-outstanding, 2 replicas, four requests at 0, 1, 2, 3 ms (100, 101, 102, 103 tokens in,
 * 10 out: each takes over 10 ms, ten iterations of at least 1 ms overhead, so none finishes
 * before the last arrives). Live: 0 -> replica 0; at 1 ms it holds one: 1 -> replica 1; 1:1 ->
 * 2 to replica 0; 2:1 -> 3 to replica 1: replica 0's prompts 100 + 102 = 202 tokens. Refreshed
 * every 10 ms: all four see the view at 0 (0:0) and go to replica 0 (the scraped queue has not
 * seen them), 406 tokens. Every 2 ms: 0 and 1 see 0:0 (replica 0), 2 and 3 the view at 2 ms (2:0)
 * and go to replica 1: 100 + 101 = 201 tokens on replica 0.
 * kv-aware: A (8192 tokens, hash blocks 1..512, 1 out) at 0 goes to replica 0 (a tie); B (8704
 * tokens, A's 512 blocks + 32 of its own) at 5 s. Live, A is done and cached on replica 0:
 * (8704 - 8192) / 16 + 0 + 544 = 576 against 8704 / 16 + 0 + 544 = 1088: replica 0, 8192 cached.
 * Refreshed every 10 s the view is the one at 0, before A ran: replica 0's cache is empty and
 * A (not seen finished) holds 8192 / 16 = 512 active blocks: 544 + 512 + 544 = 1600 against 1088:
 * B goes to replica 1 and recomputes everything. Every 1 s the view at 5 s is live's. Round-robin
 * reads nothing: its timelines are the live ones, to the nanosecond. */
static void test_stale_router_by_hand(void **state)
{
    (void)state;
    fixture *f = fx_new();
    sim_request q[4];
    for (int i = 0; i < 4; i++)
        q[i] = (sim_request){.arrival_ns = i * 1000000LL, .input_tokens = 100 + i,
                             .output_tokens = 10};
    sim_workload w = {.reqs = q, .n = 4, .source = "hand"};
    const int64_t refresh[3] = {0, 10000000LL, 2000000LL};
    const int64_t on_zero[3] = {202, 406, 201};
    sim_err err = {{0}};
    for (int k = 0; k < 3; k++) {
        sim_cluster_cfg c = {.engine = &f->cfg, .replicas = 2,
                             .router = SIM_ROUTER_LEAST_OUTSTANDING, .refresh_ns = refresh[k]};
        sim_engine_result all;
        sim_cluster_result per;
        assert_int_equal(sim_cluster_check(&c, &w, &err), SIM_OK);
        assert_int_equal(sim_cluster_run(&c, &w, &all, &per, &err), SIM_OK);
        assert_true(sim_engine_req(&all, 0).finish_ns > 3000000LL);
        assert_int_equal(per.load[0].input_tokens, on_zero[k]);
        sim_engine_result_free(&all);
        sim_cluster_result_free(&per);
    }
    f->cfg.prefix_caching = true;
    static uint64_t ids[2][544];
    for (int k = 0; k < 544; k++) {
        ids[0][k] = k < 512 ? 1 + (uint64_t)k : 0;
        ids[1][k] = k < 512 ? 1 + (uint64_t)k : 6001 + (uint64_t)k;
    }
    sim_request kq[2] = {
        {.arrival_ns = 0, .input_tokens = 8192, .output_tokens = 1, .hash_off = 0, .n_hash = 512},
        {.arrival_ns = 5000000000LL, .input_tokens = 8704, .output_tokens = 1, .hash_off = 544,
         .n_hash = 544}};
    sim_workload kw = {.reqs = kq, .n = 2, .hash_ids = ids[0], .n_hash_ids = 2 * 544,
                       .hash_block_tokens = 16, .source = "hand"};
    const int64_t krefresh[3] = {0, 10000000000LL, 1000000000LL};
    const int64_t kcached[3] = {8192, 0, 8192};
    for (int k = 0; k < 3; k++) {
        sim_cluster_cfg c = {.engine = &f->cfg, .replicas = 2, .router = SIM_ROUTER_KV_AWARE,
                             .kv_overlap_weight = 1.0, .refresh_ns = krefresh[k]};
        sim_engine_result all;
        sim_cluster_result per;
        assert_int_equal(sim_cluster_check(&c, &kw, &err), SIM_OK);
        assert_int_equal(sim_cluster_run(&c, &kw, &all, &per, &err), SIM_OK);
        assert_true(sim_engine_req(&all, 0).finish_ns < 1000000000LL);
        assert_int_equal(sim_engine_req(&all, 1).cached, kcached[k]);
        assert_int_equal(per.load[1].requests, kcached[k] ? 0 : 1);
        sim_engine_result_free(&all);
        sim_cluster_result_free(&per);
    }
    f->cfg.prefix_caching = false;
    /* round-robin: the same timelines with or without a stale view */
    sim_synth_cfg sc = {.num_prompts = 200, .input_len = 512, .output_len = 64,
                        .range_ratio = 0.5, .request_rate = 60.0, .burstiness = 1.0};
    sim_workload rw;
    assert_int_equal(sim_workload_synthetic(&sc, &rw, &err), SIM_OK);
    sim_engine_result a, b;
    sim_cluster_result pa, pb;
    sim_cluster_cfg c = {.engine = &f->cfg, .replicas = 3, .router = SIM_ROUTER_ROUND_ROBIN};
    assert_int_equal(sim_cluster_run(&c, &rw, &a, &pa, &err), SIM_OK);
    c.refresh_ns = 7000000LL;
    assert_int_equal(sim_cluster_run(&c, &rw, &b, &pb, &err), SIM_OK);
    for (size_t i = 0; i < rw.n; i++) {
        assert_int_equal(sim_engine_req(&a, i).first_token_ns, sim_engine_req(&b, i).first_token_ns);
        assert_int_equal(sim_engine_req(&a, i).finish_ns, sim_engine_req(&b, i).finish_ns);
    }
    sim_engine_result_free(&a);
    sim_engine_result_free(&b);
    sim_cluster_result_free(&pa);
    sim_cluster_result_free(&pb);
    sim_workload_free(&rw);
    /* refused: with sessions, below 0 */
    sim_session_cfg ss = {.sessions = 2, .turns = 2, .input_len = 64, .output_len = 8,
                          .request_rate = INFINITY, .burstiness = 1.0,
                          .think = {SIM_THINK_FIXED, 1.0, 0.0}, .hash_block_tokens = 16};
    assert_int_equal(sim_workload_sessions(&ss, &rw, &err), SIM_OK);
    c.refresh_ns = 1000000LL;
    assert_int_equal(sim_cluster_check(&c, &rw, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--router-refresh-ms"));
    c.refresh_ns = -1;
    assert_int_equal(sim_cluster_check(&c, &w, &err), SIM_EINPUT);
    sim_workload_free(&rw);
    free(f);
}

/* HPA's count (cluster.h): ceil(sum / target) outside the 10 % tolerance, at most
 * max(2 x current, current + 4) a step, within [min, max]. */
static void test_autoscale_desired(void **state)
{
    (void)state;
    sim_autoscale a = {.min = 1, .max = 32, .target = 10.0, .tolerance = 0.1};
    assert_int_equal(sim_autoscale_desired(&a, 2, 60.0), 6);    /* ceil(60 / 10) = 6 <= 6 */
    assert_int_equal(sim_autoscale_desired(&a, 2, 100.0), 6);   /* 10, capped at 2 + 4 */
    assert_int_equal(sim_autoscale_desired(&a, 10, 105.0), 10); /* ratio 1.05: within 10 % */
    assert_int_equal(sim_autoscale_desired(&a, 10, 150.0), 15); /* 15 <= max(20, 14) */
    assert_int_equal(sim_autoscale_desired(&a, 10, 400.0), 20); /* 40, capped at 2 x 10 */
    assert_int_equal(sim_autoscale_desired(&a, 4, 2.0), 1);     /* ceil(0.2) */
    a.min = 2;
    assert_int_equal(sim_autoscale_desired(&a, 4, 2.0), 2);
    a.max = 8;
    assert_int_equal(sim_autoscale_desired(&a, 6, 200.0), 8);
    sim_scale_metric m;
    assert_true(sim_scale_metric_parse("rate", &m) && m == SIM_SCALE_RATE);
    assert_false(sim_scale_metric_parse("cpu", &m));
    assert_string_equal(sim_scale_metric_name(SIM_SCALE_KV), "kv");
}

/* A step in load on a pool of 1..8 replicas scaling on the request rate (target 10/s per
 * replica, evaluated every 15 s, 30 s from the decision to a replica taking requests, HPA's
 * 300 s scale-down window). Arrivals, evenly spaced: 10/s over [0, 60), 40/s over [60, 180),
 * 10/s over [180, 500) (8600 requests, 128 in, 16 out).
 *   15 .. 60 s: 150 arrivals a window, 10/s on 1 replica: ratio 1, stays 1.
 *   75 s: [60, 75) has 600 arrivals, 40/s: ceil(40 / 10) = 4 (cap max(2, 5)): replicas 1-3 start,
 *         held from 75 s, taking requests from 105 s (at 90 s: 1 ready of 4 held; 40 / 4 = 10).
 *   195 s: [180, 195) is 10/s: HPA's count 1, but the window holds the 4 of 180 s until
 *         180 + 300: at 465 s still 4, at 480 s 1: replicas 3, 2, 1 drain from 480 s.
 * Held: replica 0 the whole run (its last request, sent at 499.9 s, ends ~500 s), replicas 1-3
 * from 75 s to their last request's end just after 480 s: 500 + 3 x 405 = 1715 s, within a second
 * (the drains and the tail take milliseconds). Three ups, three downs, four held at most. */
static void test_autoscale_step_by_hand(void **state)
{
    (void)state;
    fixture *f = fx_new();
    const size_t n = 600 + 4800 + 3200;
    sim_request *q = calloc(n, sizeof *q);
    for (size_t i = 0; i < n; i++) {
        const double t = i < 600    ? 0.1 * (double)i
                         : i < 5400 ? 60.0 + 0.025 * (double)(i - 600)
                                    : 180.0 + 0.1 * (double)(i - 5400);
        q[i] = (sim_request){.arrival_ns = llround(t * 1e9), .input_tokens = 128,
                             .output_tokens = 16};
    }
    sim_workload w = {.reqs = q, .n = n, .source = "hand"};
    sim_cluster_cfg c = {.engine = &f->cfg, .replicas = 8,
                         .router = SIM_ROUTER_LEAST_OUTSTANDING,
                         .autoscale = {.min = 1, .max = 8, .metric = SIM_SCALE_RATE,
                                       .target = 10.0, .tolerance = 0.1,
                                       .interval_ns = 15000000000LL, .start_ns = 30000000000LL,
                                       .down_window_ns = 300000000000LL}};
    sim_engine_result all;
    sim_cluster_result per;
    sim_err err = {{0}};
    assert_int_equal(sim_cluster_check(&c, &w, &err), SIM_OK);
    assert_int_equal(sim_cluster_run(&c, &w, &all, &per, &err), SIM_OK);
    assert_true(per.autoscaled);
    assert_int_equal(per.scale_ups, 3);
    assert_int_equal(per.scale_downs, 3);
    assert_int_equal(per.peak_held, 4);
    /* evaluations at 15, 30, ...: the k-th at 15 (k + 1) s */
    assert_true(per.n_timeline >= 33);
    const struct {
        int at_s, ready, held, desired;
    } want[] = {{60, 1, 1, 1},   {75, 1, 4, 4},   {90, 1, 4, 4},  {105, 4, 4, 4},
                {195, 4, 4, 4}, {465, 4, 4, 4}, {480, 1, 1, 1}, {495, 1, 1, 1}};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        const sim_scale_point *p = &per.timeline[want[k].at_s / 15 - 1];
        assert_int_equal(p->t_ns, want[k].at_s * 1000000000LL);
        assert_int_equal(p->ready, want[k].ready);
        assert_int_equal(p->held, want[k].held);
        assert_int_equal(p->desired, want[k].desired);
    }
    assert_near(per.timeline[75 / 15 - 1].metric, 40.0, 1e-9);
    assert_near(per.held_ns / 1e9, 1715.0, 1.0 / 1715.0);
    /* nothing reached replicas 1-3 before they were ready at 105 s: replica 0 took the 600 +
     * 1800 requests of [0, 105) at least */
    assert_true(per.load[0].requests >= 2400);
    assert_int_equal(per.load[4].requests, 0);
    sim_engine_result_free(&all);
    sim_cluster_result_free(&per);
    /* refused: MIN above MAX, a kv target above 1, with sessions */
    c.autoscale.min = 9;
    assert_int_equal(sim_cluster_check(&c, &w, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--autoscale"));
    c.autoscale.min = 1;
    c.refresh_ns = 50000000LL;
    assert_int_equal(sim_cluster_check(&c, &w, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--router-refresh-ms"));
    c.refresh_ns = 0;
    c.autoscale.metric = SIM_SCALE_KV;
    c.autoscale.target = 2.0;
    assert_int_equal(sim_cluster_check(&c, &w, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--autoscale-target"));
    free(q);
    free(f);
}

/* A trace's sessions on one engine and on two replicas: a later turn is sent at the later of its
 * own arrival and its previous turn's last token. Session a: turns at 0 and 1 ms (the second
 * waits for the first's answer, tens of ms); session b: turns at 2 ms and 5 s (long after b's
 * first ended: sent at 5 s). With --session-affinity on 2 replicas a's second turn goes where
 * its first ran. */
static void test_trace_sessions_sent(void **state)
{
    (void)state;
    fixture *f = fx_new();
    sim_request q[4] = {{.arrival_ns = 0, .input_tokens = 1000, .output_tokens = 20},
                        {.arrival_ns = 1000000LL, .input_tokens = 1100, .output_tokens = 20},
                        {.arrival_ns = 2000000LL, .input_tokens = 500, .output_tokens = 20},
                        {.arrival_ns = 5000000000LL, .input_tokens = 600, .output_tokens = 20}};
    sim_workload w = {.reqs = q, .n = 4, .source = "hand"};
    const uint64_t key[4] = {11, 11, 22, 22};
    sim_err err = {{0}};
    assert_int_equal(sim_workload_link_sessions(&w, key, &err), SIM_OK);
    assert_int_equal(w.sessions, 2);
    sim_engine_result r;
    assert_int_equal(sim_engine_check(&f->cfg, &w, &err), SIM_OK);
    assert_int_equal(sim_engine_run(&f->cfg, &w, &r, &err), SIM_OK);
    assert_true(sim_engine_req(&r, 0).finish_ns > 1000000LL);
    assert_int_equal(sim_engine_req(&r, 1).send_ns, sim_engine_req(&r, 0).finish_ns);
    assert_true(sim_engine_req(&r, 2).finish_ns < 5000000000LL);
    assert_int_equal(sim_engine_req(&r, 3).send_ns, 5000000000LL);
    sim_engine_result_free(&r);
    sim_cluster_cfg c = {.engine = &f->cfg, .replicas = 2, .router = SIM_ROUTER_ROUND_ROBIN,
                         .session_affinity = true};
    sim_engine_result all;
    sim_cluster_result per;
    assert_int_equal(sim_cluster_check(&c, &w, &err), SIM_OK);
    assert_int_equal(sim_cluster_run(&c, &w, &all, &per, &err), SIM_OK);
    assert_int_equal(sim_engine_req(&all, 1).send_ns, sim_engine_req(&all, 0).finish_ns);
    assert_int_equal(sim_engine_req(&all, 3).send_ns, 5000000000LL);
    /* round-robin by request index puts the first turns 0 and 2 on replica 0; affinity keeps
     * both sessions there: replica 0's prompts 1000 + 1100 + 500 + 600 */
    assert_int_equal(per.load[0].input_tokens, 3200);
    sim_engine_result_free(&all);
    sim_cluster_result_free(&per);
    free(w.links);
    free(f);
}

/* Mixed hardware behind one router: replica 1 on a device of half the HBM bandwidth. Round-robin
 * gives request 0 to replica 0 and request 1 to replica 1, both at 0; each then runs exactly as
 * one request alone on a fresh engine of its own device (run = serve for one request), so its
 * first token and finish are that engine's, to the nanosecond, and the slower device's later. */
static void test_mixed_replicas(void **state)
{
    (void)state;
    fixture *f = fx_new();
    sim_hw slow = f->hw;
    snprintf(slow.name, sizeof slow.name, "half-bandwidth device");
    slow.hbm_bytes_per_s *= 0.5;
    sim_engine_cfg per[2] = {f->cfg, f->cfg};
    per[1].step.hw = &slow;
    sim_request q[2] = {{.arrival_ns = 0, .input_tokens = 1000, .output_tokens = 5},
                        {.arrival_ns = 0, .input_tokens = 1000, .output_tokens = 5}};
    sim_workload w = {.reqs = q, .n = 2, .source = "hand"};
    sim_cluster_cfg c = {.engine = &f->cfg, .replicas = 2, .router = SIM_ROUTER_ROUND_ROBIN,
                         .per_replica = per};
    sim_engine_result all, alone[2];
    sim_cluster_result per_load;
    sim_err err = {{0}};
    assert_int_equal(sim_cluster_check(&c, &w, &err), SIM_OK);
    assert_int_equal(sim_cluster_run(&c, &w, &all, &per_load, &err), SIM_OK);
    sim_workload one = {.reqs = q, .n = 1, .source = "hand"};
    for (int r = 0; r < 2; r++) {
        assert_int_equal(sim_engine_run(&per[r], &one, &alone[r], &err), SIM_OK);
        assert_int_equal(sim_engine_req(&all, r).first_token_ns, sim_engine_req(&alone[r], 0).first_token_ns);
        assert_int_equal(sim_engine_req(&all, r).finish_ns, sim_engine_req(&alone[r], 0).finish_ns);
        sim_engine_result_free(&alone[r]);
    }
    assert_true(sim_engine_req(&all, 1).finish_ns > sim_engine_req(&all, 0).finish_ns);
    assert_int_equal(per_load.load[1].requests, 1);
    sim_engine_result_free(&all);
    sim_cluster_result_free(&per_load);
    /* a replica whose block size differs is refused, naming it */
    per[1].block_size = 32;
    assert_int_equal(sim_cluster_check(&c, &w, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "replica 1"));
    free(f);
}

/* A two-turn session through 1:1 disaggregated pools (8192 new tokens a turn, 17 out, 10 s of
 * thinking). The second turn is sent 10 s after the first's last token at the decode instance
 * (the pools step 10 s at a time, the shortest think time, and the first ends within the first
 * step); its prompt (8192 + 17 + 8192 = 16401 tokens) finds the first turn's 8192 prompt tokens
 * in the prefill instance's cache: 512 blocks. The first turn's outputs were decoded on the
 * decode instance, and the prefill instance sampled only the first, so no output block (block 513
 * holds the prompt's last 0 and outputs 0-15) is cached there: 8192 against the 8208 one engine
 * finds. */
static void test_sessions_disagg(void **state)
{
    (void)state;
    fixture *f = fx_new();
    f->cfg.prefix_caching = true;
    sim_session_cfg sc = {.sessions = 1, .turns = 2, .input_len = 8192, .output_len = 17,
                          .request_rate = INFINITY, .burstiness = 1.0,
                          .think = {SIM_THINK_FIXED, 10.0, 0.0}, .hash_block_tokens = 16};
    sim_workload w;
    sim_err err = {{0}};
    assert_int_equal(sim_workload_sessions(&sc, &w, &err), SIM_OK);
    sim_disagg_cfg c = {.prefill = &f->cfg, .decode = &f->cfg, .n_prefill = 1, .n_decode = 1};
    sim_engine_result all;
    sim_cluster_result per;
    assert_int_equal(sim_disagg_check(&c, &w, &err), SIM_OK);
    assert_int_equal(sim_disagg_run(&c, &w, &all, &per, &err), SIM_OK);
    assert_true(sim_engine_req(&all, 0).finish_ns < 10000000000LL);
    assert_int_equal(sim_engine_req(&all, 1).send_ns, sim_engine_req(&all, 0).finish_ns + 10000000000LL);
    assert_int_equal(sim_engine_req(&all, 1).output, 17);
    assert_int_equal(all.prefix_hit_tokens, 8192);
    assert_int_equal(per.load[0].requests, 2);
    assert_int_equal(per.load[1].output_tokens, 34);
    sim_engine_result_free(&all);
    sim_cluster_result_free(&per);
    sim_engine_result one;
    assert_int_equal(sim_engine_run(&f->cfg, &w, &one, &err), SIM_OK);
    assert_int_equal(sim_engine_req(&one, 1).cached, 8208);
    sim_engine_result_free(&one);
    sim_workload_free(&w);
    free(f);
}

/* The time one request alone takes on one engine of the fixture, from its send to its last
 * token. */
static int64_t alone_ns(const fixture *f, int64_t input, int64_t output)
{
    sim_request q = {.arrival_ns = 0, .input_tokens = input, .output_tokens = output};
    sim_workload w = {.reqs = &q, .n = 1, .source = "hand"};
    sim_engine_result r;
    sim_err err = {{0}};
    assert_int_equal(sim_engine_run(&f->cfg, &w, &r, &err), SIM_OK);
    const int64_t t = sim_engine_req(&r, 0).finish_ns;
    sim_engine_result_free(&r);
    return t;
}

/* The client's cap across replicas (--max-concurrency with --replicas) by hand, T(o) the time of
 * one request of 100 tokens in and o out alone on an engine (the engines are deterministic and
 * keep nothing between requests: no prefix cache):
 * - 4 requests at 0, cap 2, 2 replicas round-robin: 0 and 1 run at once on replicas 0 and 1 and
 *   finish at T(10); 2 and 3 are sent then (their send is that finish) and finish at 2 T(10);
 *   never more than 2 in flight.
 * - 3 requests at 0 of 10, 50 and 10 out, cap 2, least-outstanding: request 2 waits for request
 *   0's finish at T(10), goes to the idle replica 0 and finishes at 2 T(10); request 1 runs alone
 *   on replica 1 to T(50).
 * - a cap of at least the requests sends each at its arrival: the run without a cap exactly.
 * - with a front end, a send is the client's last chunk of the request whose slot it takes. */
static void test_client_cap_by_hand(void **state)
{
    (void)state;
    fixture *f = fx_new();
    const int64_t t10 = alone_ns(f, 100, 10), t50 = alone_ns(f, 100, 50);
    sim_request q[4];
    for (int i = 0; i < 4; i++)
        q[i] = (sim_request){.arrival_ns = 0, .input_tokens = 100, .output_tokens = 10};
    sim_workload w = {.reqs = q, .n = 4, .source = "hand"};
    sim_engine_result all;
    sim_cluster_result per;
    f->cfg.max_concurrency = 2;
    run_cluster(f, 2, SIM_ROUTER_ROUND_ROBIN, &w, &all, &per);
    for (size_t i = 0; i < 4; i++) {
        const sim_req_result r = sim_engine_req(&all, i);
        assert_int_equal(r.send_ns, i < 2 ? 0 : t10);
        assert_int_equal(r.finish_ns, i < 2 ? t10 : 2 * t10);
    }
    assert_int_equal(all.peak_concurrency, 2);
    assert_int_equal(per.load[0].requests, 2);
    sim_engine_result_free(&all);
    sim_cluster_result_free(&per);

    q[1].output_tokens = 50;
    w.n = 3;
    run_cluster(f, 2, SIM_ROUTER_LEAST_OUTSTANDING, &w, &all, &per);
    assert_int_equal(sim_engine_req(&all, 2).send_ns, t10);
    assert_int_equal(sim_engine_req(&all, 2).finish_ns, 2 * t10);
    assert_int_equal(sim_engine_req(&all, 1).finish_ns, t50);
    assert_int_equal(per.load[0].requests, 2);
    sim_engine_result_free(&all);
    sim_cluster_result_free(&per);

    sim_workload p = tu_synth(40, 300, 40, 50.0, 0.5);
    sim_engine_result free_run;
    f->cfg.max_concurrency = 0;
    run_cluster(f, 3, SIM_ROUTER_LEAST_OUTSTANDING, &p, &free_run, &per);
    sim_cluster_result_free(&per);
    f->cfg.max_concurrency = 40;
    run_cluster(f, 3, SIM_ROUTER_LEAST_OUTSTANDING, &p, &all, &per);
    for (size_t i = 0; i < p.n; i++) {
        assert_int_equal(sim_engine_req(&all, i).send_ns, sim_engine_req(&free_run, i).send_ns);
        assert_int_equal(sim_engine_req(&all, i).finish_ns,
                         sim_engine_req(&free_run, i).finish_ns);
    }
    sim_engine_result_free(&all);
    sim_cluster_result_free(&per);
    f->cfg.max_concurrency = 4; /* a tighter cap: never more than 4 in flight, later finishes */
    run_cluster(f, 3, SIM_ROUTER_LEAST_OUTSTANDING, &p, &all, &per);
    assert_true(all.peak_concurrency <= 4);
    assert_true(all.duration_ns > free_run.duration_ns);
    sim_engine_result_free(&all);
    sim_cluster_result_free(&per);
    /* with a front end a slot frees when the client has the last chunk (frontend.h): requests
     * 2 and 3 are sent at requests 0's and 1's finishes as the client saw them */
    f->cfg.frontend = (sim_frontend_cfg){.on = true, .processes = 1, .request_ns = 2e6,
                                         .input_token_ns = 1e3, .output_token_ns = 2e4,
                                         .chunk_ns = 3e4, .stream_interval = 1};
    f->cfg.max_concurrency = 2;
    q[1].output_tokens = 10;
    w.n = 4;
    run_cluster(f, 2, SIM_ROUTER_ROUND_ROBIN, &w, &all, &per);
    assert_int_equal(sim_engine_req(&all, 2).send_ns, sim_engine_req(&all, 0).finish_ns);
    assert_int_equal(sim_engine_req(&all, 3).send_ns, sim_engine_req(&all, 1).finish_ns);
    assert_true(sim_engine_req(&all, 0).finish_ns > t10); /* the front end's stream adds to it */
    assert_int_equal(all.peak_concurrency, 2);
    sim_engine_result_free(&all);
    sim_cluster_result_free(&per);
    sim_engine_result_free(&free_run);
    sim_workload_free(&p);
    free(f);
}

static void test_checks(void **state)
{
    (void)state;
    fixture *f = fx_new();
    sim_workload w = tu_synth(4, 100, 10, 10.0, 0.0);
    sim_err err = {{0}};
    sim_cluster_cfg c = {.engine = &f->cfg, .replicas = 0};
    assert_int_equal(sim_cluster_check(&c, &w, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--replicas: value 0"));
    c.replicas = 2;
    f->cfg.max_concurrency = 4;
    assert_int_equal(sim_cluster_check(&c, &w, &err), SIM_OK);
    c.refresh_ns = 50000000;
    assert_int_equal(sim_cluster_check(&c, &w, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--max-concurrency with --replicas and --router-refresh-ms"));
    c.refresh_ns = 0;
    f->cfg.max_concurrency = 0;
    assert_int_equal(sim_cluster_check(&c, &w, &err), SIM_OK);
    sim_workload_free(&w);
    free(f);
}

/* sim_deploy_run chooses what sim_cluster_run, sim_disagg_run or sim_engine_run would run, and
 * gives their results; the data-parallel limits and the pools' GPUs by hand. */
static void test_deploy(void **state)
{
    (void)state;
    fixture *f = fx_new();
    sim_workload w = tu_synth(12, 200, 20, 40.0, 0.0);
    sim_err err = {{0}};
    sim_engine_result a, b;
    sim_cluster_result pa, pb;
    /* one engine: sim_engine_run's result, no per-instance load */
    sim_cluster_cfg cc = {.engine = &f->cfg, .replicas = 1, .router = SIM_ROUTER_LEAST_OUTSTANDING};
    sim_disagg_cfg none = {.prefill = &f->cfg, .decode = &f->cfg};
    assert_int_equal(sim_deploy_run(&cc, &none, &w, &a, &pa, &err), SIM_OK);
    assert_int_equal(sim_engine_run(&f->cfg, &w, &b, &err), SIM_OK);
    assert_int_equal(a.duration_ns, b.duration_ns);
    assert_int_equal(pa.replicas, 0);
    sim_engine_result_free(&a);
    sim_engine_result_free(&b);
    /* two replicas (no disaggregation given): sim_cluster_run's */
    cc.replicas = 2;
    assert_int_equal(sim_deploy_run(&cc, NULL, &w, &a, &pa, &err), SIM_OK);
    run_cluster(f, 2, SIM_ROUTER_LEAST_OUTSTANDING, &w, &b, &pb);
    assert_int_equal(a.duration_ns, b.duration_ns);
    assert_int_equal(pa.replicas, 2);
    sim_engine_result_free(&a);
    sim_engine_result_free(&b);
    sim_cluster_result_free(&pa);
    sim_cluster_result_free(&pb);
    /* prefill and decode pools win over the replicas: sim_disagg_run's */
    sim_disagg_cfg dc = {.prefill = &f->cfg, .decode = &f->cfg, .n_prefill = 1, .n_decode = 1};
    assert_int_equal(sim_deploy_run(&cc, &dc, &w, &a, &pa, &err), SIM_OK);
    assert_int_equal(sim_disagg_run(&dc, &w, &b, &pb, &err), SIM_OK);
    assert_int_equal(a.duration_ns, b.duration_ns);
    assert_int_equal(pa.replicas, 2);
    sim_engine_result_free(&a);
    sim_engine_result_free(&b);
    sim_cluster_result_free(&pa);
    sim_cluster_result_free(&pb);
    /* GPUs: 2 prefill engines of TP 4 and 1 decode engine of TP 8 -> 2 x 4 + 1 x 8 = 16 */
    sim_engine_cfg pre = f->cfg, dec = f->cfg;
    pre.step.tp = 4;
    dec.step.tp = 8;
    sim_disagg_cfg g = {.prefill = &pre, .decode = &dec, .n_prefill = 2, .n_decode = 1};
    assert_int_equal(sim_deploy_disagg_gpus(&g), 16);
    /* dp limits: one attention group (no --dp) keeps 256 and 8192 */
    sim_engine_cfg e = f->cfg;
    sim_deploy_dp_limits(&e);
    assert_int_equal(e.sched.max_num_seqs, 256);
    assert_int_equal(e.sched.max_num_batched_tokens, 8192);
    /* four data-parallel attention groups: 4 x 256 = 1024 sequences, 4 x 8192 = 32768 tokens */
    e.step.dp_attention = true;
    e.step.dp = 4;
    sim_deploy_dp_limits(&e);
    assert_int_equal(e.sched.max_num_seqs, 1024);
    assert_int_equal(e.sched.max_num_batched_tokens, 32768);
    sim_workload_free(&w);
    free(f);
}

static void run_disagg(const sim_disagg_cfg *c, const sim_workload *w, sim_engine_result *all,
                       sim_cluster_result *per)
{
    sim_err err = {{0}};
    if (sim_disagg_check(c, w, &err) || sim_disagg_run(c, w, all, per, &err)) {
        print_error("%s\n", err.msg);
        fail();
    }
}

/* The KV of a prompt by hand, and one request's TTFT: prefill, transfer, one decode iteration. */
static void test_disagg_one_request(void **state)
{
    (void)state;
    fixture *f = fx_new();
    sim_disagg_cfg c = {.prefill = &f->cfg, .decode = &f->cfg, .n_prefill = 1, .n_decode = 1};
    /* Llama-3.1-8B at TP 1: 32 layers x 2 (K, V) x 8 KV heads x 128 x 2 B = 131072 B a token */
    assert_near(sim_disagg_kv_bytes(&c, 1000), 1000 * 131072.0, 1e-12);
    assert_false(sim_disagg_scaleout(&c)); /* 2 GPUs in an 8-GPU node: NVLink */
    double kv = 131072000.0 / (f->hw.scaleup_bytes_per_s * f->hw.eff_network) * 1e9 +
                f->hw.scaleup_latency_ns;
    assert_near(sim_disagg_kv_ns(&c, 1000), kv, 1e-12);
    sim_request q = {.arrival_ns = 0, .input_tokens = 1000, .output_tokens = 5};
    sim_workload w = {.reqs = &q, .n = 1, .source = "hand"};
    sim_engine_result all;
    sim_cluster_result per;
    run_disagg(&c, &w, &all, &per);
    /* prefill of 1000 tokens (eager), the transfer, then the decode side computes the last
     * prompt token over the 999 it received (a prompt chunk: eager) and samples */
    sim_step_cfg eager = f->cfg.step;
    eager.eager = true;
    sim_seq_group gp = {.count = 1, .q = 1000, .c = 0, .logits = 1};
    sim_seq_group gd = {.count = 1, .q = 1, .c = 999, .logits = 1};
    sim_step_result sp, sd;
    sim_step_price(&eager, &gp, 1, &sp);
    sim_step_price(&eager, &gd, 1, &sd);
    int64_t ttft = llround(sp.t_ns) + llround(kv) + llround(sd.t_ns);
    assert_int_equal(sim_engine_req(&all, 0).first_token_ns - sim_engine_req(&all, 0).send_ns, ttft);
    assert_int_equal(sim_engine_req(&all, 0).output, 5);
    assert_near(per.kv_transfer_ns, kv, 1e-12);
    assert_int_equal(per.prefill, 1);
    assert_int_equal(per.decode, 1);
    assert_int_equal(per.load[0].requests, 1);
    assert_int_equal(per.load[1].output_tokens, 5);
    sim_engine_result_free(&all);
    sim_cluster_result_free(&per);
    /* layer-wise streaming hides the transfer behind the prefill, down to one layer's share */
    c.kv_stream = true;
    run_disagg(&c, &w, &all, &per);
    double hidden = kv - sp.t_ns > kv / 32.0 ? kv - sp.t_ns : kv / 32.0;
    assert_near(per.kv_transfer_ns, hidden, 1e-6);
    assert_true(per.kv_transfer_ns < kv);
    sim_engine_result_free(&all);
    sim_cluster_result_free(&per);
    /* 2 + 2 instances of TP 4 = 16 GPUs: the KV crosses nodes over the NIC */
    fixture *g = fx_new();
    g->cfg.step.tp = 4;
    sim_disagg_cfg big = {.prefill = &g->cfg, .decode = &g->cfg, .n_prefill = 2, .n_decode = 2};
    assert_true(sim_disagg_scaleout(&big));
    assert_near(sim_disagg_kv_ns(&big, 1000),
                1000 * 131072.0 / 4 / (g->hw.scaleout_bytes_per_s * g->hw.eff_network) * 1e9 +
                    g->hw.scaleout_latency_ns,
                1e-12);
    /* mixed hardware: a prefill device of 50 GB/s x 0.8 NICs, 5 us, and a decode device of
     * 25 GB/s x 1.0, 8 us: no NVLink between two kinds of device, even 2 GPUs in one node; the
     * slower end, 25 GB/s: 131.072 MB / 25 GB/s + 8 us = 5.24288 + 0.008 = 5.25088 ms */
    sim_hw ph = f->hw, dh = f->hw;
    ph.scaleout_bytes_per_s = 50e9;
    ph.eff_network = 0.8;
    ph.scaleout_latency_ns = 5000.0;
    snprintf(dh.name, sizeof dh.name, "another device");
    dh.scaleout_bytes_per_s = 25e9;
    dh.eff_network = 1.0;
    dh.scaleout_latency_ns = 8000.0;
    sim_engine_cfg pe = f->cfg, de = f->cfg;
    pe.step.hw = &ph;
    de.step.hw = &dh;
    sim_disagg_cfg mixed = {.prefill = &pe, .decode = &de, .n_prefill = 1, .n_decode = 1};
    assert_true(sim_disagg_scaleout(&mixed));
    assert_near(sim_disagg_kv_ns(&mixed, 1000), 5.25088e6, 1e-12);
    /* the other way round: the same slower end and latency */
    mixed.prefill = &de;
    mixed.decode = &pe;
    assert_near(sim_disagg_kv_ns(&mixed, 1000), 5.25088e6, 1e-12);
    /* a request through them: TTFT = the prefill on its device + 5.25088 ms + the decode side's
     * first iteration on its own */
    run_disagg(&mixed, &w, &all, &per);
    assert_near(per.kv_transfer_ns, 5.25088e6, 1e-12);
    assert_true(per.kv_scaleout);
    sim_engine_result_free(&all);
    sim_cluster_result_free(&per);
    free(g);
    free(f);
}

/* A stream through the pools: every request completes; the decode side's KV cache limits how
 * many it admits, so a small one raises TTFT. */
static void test_disagg_stream(void **state)
{
    (void)state;
    fixture *f = fx_new(), *small = fx_new();
    sim_workload w = tu_synth(60, 2000, 50, 30.0, 0.0);
    sim_disagg_cfg c = {.prefill = &f->cfg, .decode = &f->cfg, .n_prefill = 1, .n_decode = 2};
    sim_engine_result all, tight;
    sim_cluster_result per, per2;
    run_disagg(&c, &w, &all, &per);
    for (size_t i = 0; i < all.n; i++) {
        assert_int_equal(sim_engine_req(&all, i).output, 50);
        assert_true(sim_engine_req(&all, i).first_token_ns > sim_engine_req(&all, i).first_sched_ns);
    }
    assert_int_equal(per.load[1].requests + per.load[2].requests, 60);
    assert_true(per.kv_transfer_ns > 0.0);
    /* decode instances with room for two such requests (333 blocks of 16 tokens: 16 GB of
     * weights in 80 GiB x 0.22) */
    small->cfg.mem_util = 0.22;
    sim_disagg_cfg d = {.prefill = &f->cfg, .decode = &small->cfg, .n_prefill = 1, .n_decode = 2};
    run_disagg(&d, &w, &tight, &per2);
    for (size_t i = 0; i < tight.n; i++)
        assert_int_equal(sim_engine_req(&tight, i).output, 50);
    assert_true(per2.load[1].kv_peak_blocks <= per2.load[1].kv_blocks);
    double t1 = 0, t2 = 0;
    for (size_t i = 0; i < all.n; i++) {
        t1 += (double)(sim_engine_req(&all, i).first_token_ns - sim_engine_req(&all, i).send_ns);
        t2 += (double)(sim_engine_req(&tight, i).first_token_ns - sim_engine_req(&tight, i).send_ns);
    }
    assert_true(t2 > t1);
    sim_engine_result_free(&all);
    sim_engine_result_free(&tight);
    sim_cluster_result_free(&per);
    sim_cluster_result_free(&per2);
    sim_err err = {{0}};
    c.n_decode = 0;
    assert_int_equal(sim_disagg_check(&c, &w, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--disagg: value 1:0"));
    c.n_decode = 1;
    f->cfg.max_concurrency = 3;
    assert_int_equal(sim_disagg_check(&c, &w, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--max-concurrency with --disagg"));
    sim_workload_free(&w);
    free(f);
    free(small);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stepping),
        cmocka_unit_test(test_release_front),
        cmocka_unit_test(test_four_replicas_scale),
        cmocka_unit_test(test_each_router),
        cmocka_unit_test(test_routing_by_hand),
        cmocka_unit_test(test_checks),
        cmocka_unit_test(test_deploy),
        cmocka_unit_test(test_kv_aware_by_hand),
        cmocka_unit_test(test_stale_router_by_hand),
        cmocka_unit_test(test_client_cap_by_hand),
        cmocka_unit_test(test_autoscale_desired),
        cmocka_unit_test(test_autoscale_step_by_hand),
        cmocka_unit_test(test_trace_sessions_sent),
        cmocka_unit_test(test_mixed_replicas),
        cmocka_unit_test(test_sessions_disagg),
        cmocka_unit_test(test_sessions_over_replicas),
        cmocka_unit_test(test_prefix_aware_hits),
        cmocka_unit_test(test_disagg_one_request),
        cmocka_unit_test(test_disagg_stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
