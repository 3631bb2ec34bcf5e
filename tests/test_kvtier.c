/* test_kvtier.c - the lower KV tiers (host DRAM, disk, remote): their LRU stores traced by hand,
 * and a prefix hit in each tier priced end to end by the engine against numbers worked out by
 * hand. */
#include "engfix.h"

#include "cli_opt.h"
#include "cli_point.h"
#include "engine.h"
#include "kvtier.h"

static void test_write_on_eviction_cascades(void **state)
{
    (void)state;
    /* DRAM of 2 blocks, disk of 2, write on eviction: HBM evicts 1, 2, 3 in that order. DRAM
     * keeps the two most recent (2, 3); 1 spilled to disk. A hit on 2 makes it DRAM's most
     * recent, so evicting 4 next spills 3. */
    sim_kvtier t;
    sim_kvtier_cfg c = {.entries = {2, 2, 0}, .write_through = false};
    assert_int_equal(sim_kvtier_init(&t, &c), SIM_OK);
    assert_true(sim_kvtier_on(&t));
    sim_kvtier_computed(&t, 9); /* write on eviction: a computed block writes nothing */
    assert_int_equal(sim_kvtier_find(&t, 9), 0);
    sim_kvtier_evicted(&t, 1);
    sim_kvtier_evicted(&t, 2);
    sim_kvtier_evicted(&t, 3);
    assert_int_equal(sim_kvtier_find(&t, 1), 2);
    assert_int_equal(sim_kvtier_find(&t, 2), 1);
    assert_int_equal(sim_kvtier_find(&t, 3), 1);
    sim_kvtier_touch(&t, 1, 2);
    sim_kvtier_evicted(&t, 4);
    assert_int_equal(sim_kvtier_find(&t, 3), 2);
    assert_int_equal(sim_kvtier_find(&t, 2), 1);
    assert_int_equal(sim_kvtier_find(&t, 4), 1);
    /* writes: DRAM 4 (1, 2, 3, 4), disk 2 (1, 3) */
    assert_int_equal(t.written[0], 4);
    assert_int_equal(t.written[1], 2);
    sim_kvtier_free(&t);
}

static void test_remote_below_disk(void **state)
{
    (void)state;
    /* DRAM 1 block, disk 1, remote 2, write on eviction: HBM evicts 1, 2, 3, 4. Each eviction
     * pushes DRAM's block down one tier: after 1: DRAM {1}; after 2: DRAM {2}, disk {1}; after
     * 3: DRAM {3}, disk {2}, remote {1}; after 4: DRAM {4}, disk {3}, remote {1, 2} (room for
     * two). Remote was written twice. With only a remote store, an eviction goes straight
     * there. */
    sim_kvtier t;
    sim_kvtier_cfg c = {.entries = {1, 1, 2}, .write_through = false};
    assert_int_equal(sim_kvtier_init(&t, &c), SIM_OK);
    for (uint64_t id = 1; id <= 4; id++)
        sim_kvtier_evicted(&t, id);
    assert_int_equal(sim_kvtier_find(&t, 4), 1);
    assert_int_equal(sim_kvtier_find(&t, 3), 2);
    assert_int_equal(sim_kvtier_find(&t, 2), 3);
    assert_int_equal(sim_kvtier_find(&t, 1), 3);
    assert_int_equal(t.written[2], 2);
    sim_kvtier_free(&t);
    c = (sim_kvtier_cfg){{0, 0, 5}, false};
    assert_true(sim_kvtier_cfg_on(&c));
    assert_int_equal(sim_kvtier_init(&t, &c), SIM_OK);
    assert_true(sim_kvtier_on(&t));
    sim_kvtier_evicted(&t, 9);
    assert_int_equal(sim_kvtier_find(&t, 9), 3);
    sim_kvtier_free(&t);
    assert_string_equal(sim_kvtier_name(2), "remote");
}

static void test_write_through_copies_every_tier(void **state)
{
    (void)state;
    /* write-through: each computed block goes to DRAM (2 blocks) and disk (3) at once; HBM's
     * evictions write nothing. After 1, 2, 3: DRAM holds 2, 3 (1 dropped, not moved: disk has
     * its own copy), disk 1, 2, 3. */
    sim_kvtier t;
    sim_kvtier_cfg c = {.entries = {2, 3, 0}, .write_through = true};
    assert_int_equal(sim_kvtier_init(&t, &c), SIM_OK);
    for (uint64_t id = 1; id <= 3; id++)
        sim_kvtier_computed(&t, id);
    sim_kvtier_evicted(&t, 7);
    assert_int_equal(sim_kvtier_find(&t, 7), 0);
    assert_int_equal(sim_kvtier_find(&t, 1), 2);
    assert_int_equal(sim_kvtier_find(&t, 2), 1);
    assert_int_equal(sim_kvtier_find(&t, 3), 1);
    sim_kvtier_computed(&t, 3); /* cached again: touched, not written twice */
    assert_int_equal(t.written[0], 3);
    assert_int_equal(t.written[1], 3);
    sim_kvtier_free(&t);
    /* no tier: nothing on */
    c = (sim_kvtier_cfg){{0, 0, 0}, false};
    assert_int_equal(sim_kvtier_init(&t, &c), SIM_OK);
    assert_false(sim_kvtier_on(&t));
    assert_int_equal(sim_kvtier_find(&t, 1), 0);
    sim_kvtier_free(&t);
}

/* ------------------------------------------------------------------------------------------ */
/* End to end: Llama-3.1-8B on the fixture H100, bf16 KV: 2 (K, V) x 32 layers x 8 KV heads x 128
 * x 2 B = 131,072 B a token at TP 1. 16-token blocks, hash blocks of 16. */

#define KV_PER_TOKEN 131072.0
#define DRAM_BW 50e9  /* bytes/s into HBM */
#define DRAM_LAT 1e4  /* ns */
#define DISK_BW 5e9
#define DISK_LAT 1e5
#define REMOTE_BW 43e9 /* H100's 50 GB/s NIC x 0.86 RDMA (the device file's defaults) */
#define REMOTE_LAT 5e3

static fixture *fx_new(void)
{
    fixture *f = tu_engine_new("llama-3.1-8b", "h100-sxm", 1);
    f->cfg.mem_util = 0.3;
    f->cfg.prefix_caching = true;
    f->cfg.offload = (sim_engine_offload){.read_bytes_per_s = {DRAM_BW, DISK_BW, REMOTE_BW},
                                          .latency_ns = {DRAM_LAT, DISK_LAT, REMOTE_LAT},
                                          .write_through = true};
    return f;
}

/* A request of `n` hash blocks ids first, first + 1, ... then `m` of ids second, ...: input
 * 16 (n + m) tokens (`extra` more, not a whole block), one output token. */
typedef struct wl {
    sim_request reqs[3];
    uint64_t ids[3][70000];
    sim_workload w;
} wl;

static void add(wl *x, double t_s, int64_t n, uint64_t first, int64_t m, uint64_t second,
                int64_t extra)
{
    size_t i = x->w.n++;
    uint64_t *ids = x->ids[i];
    for (int64_t k = 0; k < n; k++)
        ids[k] = first + (uint64_t)k;
    for (int64_t k = 0; k < m; k++)
        ids[n + k] = second + (uint64_t)k;
    x->reqs[i] = (sim_request){.arrival_ns = (int64_t)(t_s * 1e9),
                               .input_tokens = 16 * (n + m) + extra,
                               .output_tokens = 1,
                               .hash_off = (size_t)(ids - x->ids[0]),
                               .n_hash = n + m};
}

/* A: 513 blocks (ids 1..513) at 0 s; with `filler`, F: one request that needs every KV block
 * (ids from 1e6) at 10 s, evicting A from HBM; B: A's first 512 blocks then 32 of its own
 * (8192 + 512 tokens) at 20 s. */
static wl *three(int64_t blocks, bool filler)
{
    wl *x = calloc(1, sizeof *x);
    x->w = (sim_workload){.reqs = x->reqs, .hash_ids = x->ids[0], .hash_block_tokens = 16};
    snprintf(x->w.source, sizeof x->w.source, "test");
    add(x, 0, 513, 1, 0, 0, 0);
    if (filler)
        add(x, 10, blocks - 1, 1000000, 0, 0, 15); /* 16 blocks x tokens - 1, + 1 output */
    add(x, 20, 512, 1, 32, 2000000, 0);
    x->w.n_hash_ids = 3 * 70000;
    return x;
}

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

static int64_t ttft(const sim_engine_result *r, size_t i)
{
    return sim_engine_req(r, i).first_token_ns - sim_engine_req(r, i).send_ns;
}

/* The lower tiers' moves the engine reports (its observer's tier callback), summed. */
typedef struct moves {
    int loads, stores;
    sim_tier_move load;          /* the last load */
    int64_t store_tokens;        /* over every store */
    int64_t stores_at_iteration; /* stores issued at their iteration's start (on eviction) */
} moves;

static void on_tier(void *ctx, const sim_tier_move *m)
{
    moves *v = ctx;
    if (m->store) {
        v->stores++;
        v->store_tokens += m->tokens;
        v->stores_at_iteration += m->start_ns == m->iter_ns;
    } else {
        v->loads++;
        v->load = *m;
    }
}

static void test_prefix_hit_per_tier(void **state)
{
    (void)state;
    fixture *f = fx_new();
    const int64_t blocks = sim_engine_kv_blocks(&f->cfg);
    assert_true(blocks > 1100 && blocks < 69000); /* room for A and B, too little to keep A */

    /* HBM hit: no filler, B finds A's 512 blocks in HBM and computes its last 512 tokens over
     * a context of 8192: one iteration, no load */
    f->cfg.offload.bytes[0] = 1e12;
    wl *x = three(blocks, false);
    sim_engine_result hbm = simulate(f, &x->w);
    assert_int_equal(sim_engine_req(&hbm, 1).cached, 8192);
    assert_int_equal(hbm.offload_hit_tokens[0], 0);
    free(x);

    /* DRAM hit: the filler evicted A from HBM; write-through kept its copy in DRAM. B loads its
     * 8192 prefix tokens: 8192 x 131,072 = 1,073,741,824 B at 50 GB/s = 21,474,836.48 ns plus
     * the 10 us latency = 21,484,836.48 ns, and then computes the same 512 tokens over the same
     * context as the HBM hit: TTFT = the HBM hit's + the transfer (1 ns of rounding) */
    x = three(blocks, true);
    moves mv = {0};
    const sim_engine_observer obs = {.ctx = &mv, .tier = on_tier};
    f->cfg.observer = &obs;
    sim_engine_result dram = simulate(f, &x->w);
    assert_int_equal(sim_engine_req(&dram, 2).cached, 0);
    assert_int_equal(dram.offload_hit_tokens[0], 8192);
    assert_int_equal(dram.offload_hit_tokens[1], 0);
    assert_true(fabs(dram.offload_read_bytes[0] - 1073741824.0) < 0.5);
    const double load_ns = 1073741824.0 / DRAM_BW * 1e9 + DRAM_LAT;
    assert_true(fabs(load_ns - 21484836.48) < 1e-3);
    assert_true(fabs(dram.offload_load_ns - load_ns) < 1e-3);
    assert_true(llabs(ttft(&dram, 2) - ttft(&hbm, 1) - llround(load_ns)) <= 1);
    /* write-through wrote every block HBM cached once: A's 513, the filler's blocks - 1 whole
     * ones, B's 32 new (its 512 loaded ones DRAM had), 2 MiB each */
    assert_true(fabs(dram.offload_write_bytes[0] - (double)(513 + blocks - 1 + 32) * 16.0 *
                                                       KV_PER_TOKEN) < 0.5);
    /* as reported for the timeline: one load, B's 8192 tokens in the transfer's 21,484,836 ns
     * (rounded) from the start of the iteration that admits B; the stores are every block
     * written, each at the end of the iteration that computed it (write-through) */
    assert_int_equal(mv.loads, 1);
    assert_int_equal(mv.load.tier, 0);
    assert_int_equal(mv.load.tokens, 8192);
    assert_int_equal(mv.load.requests, 1);
    assert_int_equal(mv.load.dur_ns, 21484836);
    assert_true(fabs(mv.load.bytes - 1073741824.0) < 0.5);
    assert_int_equal(mv.load.start_ns, sim_engine_req(&dram, 2).first_sched_ns);
    assert_int_equal(mv.load.iter_ns, mv.load.start_ns);
    assert_int_equal(mv.store_tokens, (513 + blocks - 1 + 32) * 16);
    assert_int_equal(mv.stores_at_iteration, 0);
    assert_true(mv.stores >= 3); /* A's, the filler's, B's iterations at least */

    /* write on eviction: the same hit (the filler's eviction wrote A's 513 blocks), B's
     * admission evicts 543 of the filler's for its 544: 1056 blocks written */
    f->cfg.offload.write_through = false;
    mv = (moves){0};
    sim_engine_result evict = simulate(f, &x->w);
    assert_int_equal(ttft(&evict, 2), ttft(&dram, 2));
    assert_true(fabs(evict.offload_write_bytes[0] - 1056.0 * 16.0 * KV_PER_TOKEN) < 0.5);
    /* on eviction the stores are issued when an evicting iteration schedules, at its start:
     * the filler's chunks (A's 513 blocks) and B's admission (543 of the filler's) */
    assert_int_equal(mv.store_tokens, 1056 * 16);
    assert_true(mv.stores >= 2);
    assert_int_equal(mv.stores_at_iteration, mv.stores);
    assert_int_equal(mv.loads, 1);
    f->cfg.observer = NULL;

    /* a miss: no tier, B recomputes all 8704 tokens, the TTFT of B alone on a fresh engine */
    f->cfg.offload.bytes[0] = 0.0;
    sim_engine_result miss = simulate(f, &x->w);
    assert_false(miss.offload_on);
    sim_workload alone = x->w;
    alone.reqs = &x->reqs[2];
    alone.reqs[0].arrival_ns = 20000000000LL;
    alone.n = 1;
    sim_engine_result fresh = simulate(f, &alone);
    assert_int_equal(ttft(&miss, 2), ttft(&fresh, 0));
    assert_true(ttft(&miss, 2) > ttft(&dram, 2)); /* recompute 8704 > load 8192 + compute 512 */

    /* DRAM of 100 hash blocks (100 x 2 MiB = 209,715,200 B), disk behind it, write on
     * eviction. The filler evicts A's blocks from the LRU head: 513, 512, ..., 1 (A released its
     * blocks last first); DRAM keeps the last 100 written (ids 100..1), 101..513 spill to disk.
     * B loads 100 blocks (1600 tokens) from DRAM and 412 (6592) from disk:
     * 1600 x 131,072 / 50e9 + 1e4 + 6592 x 131,072 / 5e9 + 1e5 = 4,194,304 + 10,000 +
     * 864,026,624 / 5e9 (172,805,324.8) + 100,000 = 177,109,628.8 ns */
    f->cfg.offload.bytes[0] = 100.0 * 16.0 * KV_PER_TOKEN;
    f->cfg.offload.bytes[1] = 1e12;
    assert_int_equal(sim_engine_offload_entries(&f->cfg, 0, 16), 100);
    sim_engine_result disk = simulate(f, &x->w);
    assert_int_equal(disk.offload_hit_tokens[0], 1600);
    assert_int_equal(disk.offload_hit_tokens[1], 6592);
    assert_true(fabs(disk.offload_load_ns - 177109628.8) < 1e-2);
    assert_true(llabs(ttft(&disk, 2) - ttft(&hbm, 1) - 177109629) <= 1);

    sim_engine_result_free(&hbm);
    sim_engine_result_free(&dram);
    sim_engine_result_free(&evict);
    sim_engine_result_free(&miss);
    sim_engine_result_free(&fresh);
    sim_engine_result_free(&disk);
    free(x);
    free(f);
}

/* A two-turn session (A, then B think 10 s after A's last token) and, with `filler`, a request
 * at 5 s that needs every KV block. A: 8192 tokens, 17 out: its KV covers 8192 + 16 = 8208
 * tokens, 513 whole blocks (ids 1..513; the last completed by its 16th output token, cached as it
 * is decoded). B: A's context (8192 + 17) + 495 new = 8704 tokens, ids 1..544. */
typedef struct session_wl {
    sim_request reqs[3];
    sim_session_link links[3];
    uint64_t ids[3][70000];
    sim_workload w;
} session_wl;

static session_wl *two_turns(int64_t blocks, bool filler)
{
    session_wl *x = calloc(1, sizeof *x);
    x->w = (sim_workload){.reqs = x->reqs,
                          .hash_ids = x->ids[0],
                          .hash_block_tokens = 16,
                          .links = x->links,
                          .sessions = filler ? 2 : 1,
                          .hash_covers_output = true,
                          .n = 3,
                          .n_hash_ids = 3 * 70000};
    snprintf(x->w.source, sizeof x->w.source, "test");
    const int64_t in[3] = {8192, filler ? 16 * blocks - 1 : 16, 8704};
    const int64_t out[3] = {17, 1, 1};
    for (int i = 0; i < 3; i++) {
        int64_t n = (in[i] + out[i] - 1) / 16;
        for (int64_t k = 0; k < n; k++)
            x->ids[i][k] = i == 1 ? 1000000 + (uint64_t)k : 1 + (uint64_t)k;
        x->reqs[i] = (sim_request){.arrival_ns = i == 1 ? 5000000000LL : 0,
                                   .input_tokens = in[i],
                                   .output_tokens = out[i],
                                   .hash_off = (size_t)i * 70000,
                                   .n_hash = n};
    }
    /* without the filler, request 1 is a short request at 5 s that evicts nothing */
    x->links[0] = (sim_session_link){.session = 1, .follow = 2, .think_ns = 10000000000LL};
    x->links[1] = (sim_session_link){.session = 2};
    x->links[2] = (sim_session_link){.session = 1, .turn = 1, .follows = true};
    return x;
}

static void test_two_turn_session(void **state)
{
    (void)state;
    fixture *f = fx_new();
    const int64_t blocks = sim_engine_kv_blocks(&f->cfg);
    f->cfg.offload.bytes[0] = 1e12;
    /* HBM: B is sent 10 s after A's last token and finds A's 513 blocks (8208 tokens, its
     * output's first 16 included) cached: it computes 496 tokens over 8208 */
    session_wl *x = two_turns(blocks, false);
    sim_engine_result hbm = simulate(f, &x->w);
    assert_int_equal(sim_engine_req(&hbm, 2).send_ns, sim_engine_req(&hbm, 0).finish_ns + 10000000000LL);
    assert_int_equal(sim_engine_req(&hbm, 2).cached, 8208);
    free(x);
    /* the filler evicted A's blocks from HBM; with DRAM (write-through) B loads the 8208 tokens:
     * 8208 x 131,072 = 1,075,838,976 B / 50 GB/s = 21,516,779.52 ns + 10 us = 21,526,779.52 ns
     * and then computes the same 496 tokens: TTFT = the HBM one's + 21.53 ms */
    x = two_turns(blocks, true);
    sim_engine_result dram = simulate(f, &x->w);
    assert_int_equal(sim_engine_req(&dram, 2).send_ns, sim_engine_req(&dram, 0).finish_ns + 10000000000LL);
    assert_int_equal(sim_engine_req(&dram, 2).cached, 0);
    assert_int_equal(dram.offload_hit_tokens[0], 8208);
    assert_true(fabs(dram.offload_load_ns - 21526779.52) < 1e-3);
    assert_true(llabs(ttft(&dram, 2) - ttft(&hbm, 2) - 21526780) <= 1);
    /* without offload B recomputes its 8704 tokens: B alone on a fresh engine */
    f->cfg.offload.bytes[0] = 0.0;
    sim_engine_result miss = simulate(f, &x->w);
    sim_workload alone = {.reqs = &x->reqs[2], .n = 1, .hash_block_tokens = 16,
                          .hash_ids = x->ids[0], .n_hash_ids = 70000};
    snprintf(alone.source, sizeof alone.source, "alone");
    x->reqs[2].hash_off = 0;
    sim_engine_result fresh = simulate(f, &alone);
    assert_int_equal(ttft(&miss, 2), ttft(&fresh, 0));
    assert_true(ttft(&miss, 2) > ttft(&dram, 2));
    sim_engine_result_free(&hbm);
    sim_engine_result_free(&dram);
    sim_engine_result_free(&miss);
    sim_engine_result_free(&fresh);
    free(x);
    free(f);
}

/* A prefix hit in the remote tier costs its transfer over the NIC: the DRAM hit's scene (A, the
 * filler, B) with only a remote store, write-through. B loads 8192 tokens, 1,073,741,824 B, at
 * 43 GB/s = 24,970,740.093 ns plus the 5 us hop = 24,975,740.093 ns, then computes what the HBM
 * hit computes. The store's read bandwidth comes from the device file: scaleout 50 GB/s x
 * alltoall.rdma_bw_eff 0.86 = 43e9 B/s, latency scaleout_latency_us 5 = 5000 ns. */
static void test_remote_hit_costs_its_transfer(void **state)
{
    (void)state;
    fixture *f = fx_new();
    const int64_t blocks = sim_engine_kv_blocks(&f->cfg);
    f->cfg.offload.bytes[2] = 1e12;
    wl *x = three(blocks, false);
    sim_engine_result hbm = simulate(f, &x->w);
    assert_true(hbm.offload_on);
    assert_int_equal(hbm.offload_hit_tokens[2], 0);
    free(x);
    x = three(blocks, true);
    sim_engine_result remote = simulate(f, &x->w);
    assert_int_equal(remote.offload_hit_tokens[0], 0);
    assert_int_equal(remote.offload_hit_tokens[2], 8192);
    assert_true(fabs(remote.offload_read_bytes[2] - 1073741824.0) < 0.5);
    assert_true(fabs(remote.offload_load_ns - 24975740.093) < 1e-2);
    assert_true(llabs(ttft(&remote, 2) - ttft(&hbm, 1) - 24975740) <= 1);
    sim_engine_result_free(&hbm);
    sim_engine_result_free(&remote);
    free(x);

    cli_opts o;
    memset(&o, 0, sizeof o);
    o.kv_offload = "cpu:10,remote:100";
    sim_engine_offload off;
    sim_err err = {{0}};
    assert_int_equal(cli_point_offload_flags(&o, &f->hw, &off, &err), SIM_OK);
    assert_true(fabs(off.bytes[2] - 1e11) < 1.0);
    assert_true(fabs(off.bytes[1]) < 1.0);
    assert_true(fabs(off.read_bytes_per_s[2] - 43e9) < 1.0);
    assert_true(fabs(off.latency_ns[2] - 5000.0) < 1e-6);
    o.kv_offload = "remote:10,remote:20";
    assert_int_equal(cli_point_offload_flags(&o, &f->hw, &off, &err), SIM_EINPUT);
    o.kv_offload = "remotes:10";
    assert_int_equal(cli_point_offload_flags(&o, &f->hw, &off, &err), SIM_EINPUT);
    free(f);
}

static void test_offload_checks(void **state)
{
    (void)state;
    fixture *f = fx_new();
    sim_err err = {{0}};
    f->cfg.offload.bytes[0] = 1e9;
    f->cfg.prefix_caching = false;
    assert_int_equal(sim_engine_check_offload(&f->cfg, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "prefix caching"));
    f->cfg.prefix_caching = true;
    f->cfg.offload.read_bytes_per_s[0] = 0.0;
    assert_int_equal(sim_engine_check_offload(&f->cfg, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--kv-offload"));
    f->cfg.offload.read_bytes_per_s[0] = DRAM_BW;
    assert_int_equal(sim_engine_check_offload(&f->cfg, &err), SIM_OK);
    /* 100 GB of DRAM holds floor(1e11 / (16 x 131,072)) = 47,683 hash blocks (engine.h) */
    f->cfg.offload.bytes[0] = 1e11;
    assert_int_equal(sim_engine_offload_entries(&f->cfg, 0, 16), 47683);
    free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_on_eviction_cascades),
        cmocka_unit_test(test_remote_below_disk),
        cmocka_unit_test(test_write_through_copies_every_tier),
        cmocka_unit_test(test_prefix_hit_per_tier),
        cmocka_unit_test(test_remote_hit_costs_its_transfer),
        cmocka_unit_test(test_two_turn_session),
        cmocka_unit_test(test_offload_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
