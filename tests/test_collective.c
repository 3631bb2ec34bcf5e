/* test_collective.c - collective algorithms and protocols against hand calculations.
 *
 * The device: the H100 fixture (450 GB/s NVLink per direction, network efficiency 0.85, NCCL
 * fixed cost F = 8 us, Simple hop 1.5 us; 50 GB/s and 5 us per hop between nodes of 8) with
 * NCCL's protocol constants (base LL 6.6 / LL128 14 / Simple 8.4 us, hop LL 0.6 / LL128 1.9 us,
 * payload LL 1/2, LL128 0.9375), one-shot 4 us + 80% of NVLink, two-shot 6 us + 80%, NVLS
 * 120 us + 68%, custom all-reduce up to 8 MiB.
 * Bandwidths in bytes/ns: Simple 450 x 0.85 = 382.5, LL 191.25, LL128 358.59375, one/two-shot
 * 360, NVLS 306; across nodes Simple 42.5, LL 21.25.
 */
#include "testutil.h"

#include "collective.h"
#include "cost.h"

static sim_hw coll_hw(void)
{
    sim_hw hw = tu_fixture_hw();
    sim_hw_coll *c = &hw.coll;
    c->algos = (1u << SIM_COLL_RING) | (1u << SIM_COLL_TREE) | (1u << SIM_COLL_ONESHOT) |
               (1u << SIM_COLL_TWOSHOT) | (1u << SIM_COLL_NVLS);
    const double base[3] = {6600, 14000, 8400}, hop[3] = {600, 1900, 0}, w[3] = {0.5, 0.9375, 1};
    for (int p = 0; p < 3; p++) {
        c->proto_base_ns[p] = base[p];
        c->proto_hop_ns[p] = hop[p];
        c->proto_bw_eff[p] = w[p];
    }
    c->algo_latency_ns[SIM_COLL_ONESHOT] = 4000;
    c->algo_bw_eff[SIM_COLL_ONESHOT] = 0.8;
    c->algo_latency_ns[SIM_COLL_TWOSHOT] = 6000;
    c->algo_bw_eff[SIM_COLL_TWOSHOT] = 0.8;
    c->algo_latency_ns[SIM_COLL_NVLS] = 120000;
    c->algo_bw_eff[SIM_COLL_NVLS] = 0.68;
    c->custom_max_bytes = 8388608;
    return hw;
}

static void test_small_allreduce(void **state)
{
    (void)state;
    sim_hw hw = coll_hw();
    /* 16 KiB on 8 GPUs (one decode token of a 8192-wide model):
     *   one-shot  4000 + 7 x 16384 / 360           =  4318.58 ns   <- auto
     *   two-shot  6000 + 2 x 7/8 x 16384 / 360     =  6079.64 ns
     *   ring LL   8000 + 6600 + 14 x 600 + 28672 / 191.25 = 23149.92 ns  <- NCCL alone
     *   ring LL128 8000 + 14000 + 14 x 1900 + 28672 / 358.59 = 48679.96 ns
     *   ring Simple 8000 + 8400 + 14 x 1500 + 28672 / 382.5 = 37474.96 ns */
    sim_collective_cost c = sim_collective_allreduce(&hw, 16384, 8, SIM_COLL_AUTO);
    assert_int_equal(c.algo, SIM_COLL_ONESHOT);
    assert_int_equal(c.proto, SIM_COLL_PROTO_NONE);
    assert_near(c.t_ns, 4000.0 + 7.0 * 16384 / 360.0, 1e-12);
    c = sim_collective_allreduce(&hw, 16384, 8, SIM_COLL_NCCL);
    assert_int_equal(c.algo, SIM_COLL_RING);
    assert_int_equal(c.proto, SIM_COLL_LL);
    assert_near(c.t_ns, 23149.92, 1e-6);
    c = sim_collective_allreduce(&hw, 16384, 8, SIM_COLL_TWOSHOT);
    assert_int_equal(c.algo, SIM_COLL_TWOSHOT);
    assert_near(c.t_ns, 6000.0 + 1.75 * 16384 / 360.0, 1e-12);
    /* the custom kernels stop at the engines' buffer limit: 16 MiB goes to NCCL */
    assert_true(sim_collective_allreduce(&hw, 8388608, 8, SIM_COLL_AUTO).algo == SIM_COLL_TWOSHOT);
    sim_coll_algo big = sim_collective_allreduce(&hw, 16777216, 8, SIM_COLL_AUTO).algo;
    assert_true(big != SIM_COLL_ONESHOT && big != SIM_COLL_TWOSHOT);
    /* one GPU: nothing to do */
    assert_near(sim_collective_allreduce(&hw, 16384, 1, SIM_COLL_AUTO).t_ns, 0.0, 0);
}

/* vLLM's switch (collective.h): by size, not by cost. On this device the one-shot and two-shot
 * costs cross where 4000 + 7 m / 360 = 6000 + 1.75 m / 360 on 8 GPUs: m = 2000 x 360 / 5.25 =
 * 137,143 bytes. At 192 KiB (196,608 bytes, below vLLM's 256 KiB) auto prices two-shot
 * (6000 + 1.75 x 196608 / 360 = 6955.73 ns against 4000 + 7 x 196608 / 360 = 7822.93 ns) but vLLM
 * runs one-shot, so the engine's choice is the dearer 7822.93 ns; from 256 KiB it is two-shot.
 * On 4 GPUs the switch is 512 KiB, on 2 none (one-shot up to the 8 MiB buffer), past the buffer
 * NCCL; another engine's auto (vllm_stages false) and a forced algorithm are left as asked. */
static void test_vllm_stages(void **state)
{
    (void)state;
    sim_hw hw = coll_hw();
    const double kib = 1024.0;
    assert_int_equal(sim_collective_engine_algo(&hw, 192 * kib, 8, SIM_COLL_AUTO, true),
                     SIM_COLL_ONESHOT);
    assert_int_equal(sim_collective_allreduce(&hw, 192 * kib, 8, SIM_COLL_AUTO).algo,
                     SIM_COLL_TWOSHOT);
    assert_near(sim_collective_allreduce(&hw, 192 * kib, 8, SIM_COLL_ONESHOT).t_ns, 7822.93, 0.01);
    assert_int_equal(sim_collective_engine_algo(&hw, 256 * kib, 8, SIM_COLL_AUTO, true),
                     SIM_COLL_TWOSHOT);
    assert_int_equal(sim_collective_engine_algo(&hw, 511 * kib, 4, SIM_COLL_AUTO, true),
                     SIM_COLL_ONESHOT);
    assert_int_equal(sim_collective_engine_algo(&hw, 512 * kib, 4, SIM_COLL_AUTO, true),
                     SIM_COLL_TWOSHOT);
    assert_int_equal(sim_collective_engine_algo(&hw, 8 * kib * kib, 2, SIM_COLL_AUTO, true),
                     SIM_COLL_ONESHOT);
    assert_int_equal(sim_collective_engine_algo(&hw, 8 * kib * kib + 16, 2, SIM_COLL_AUTO, true),
                     SIM_COLL_NCCL);
    assert_int_equal(sim_collective_engine_algo(&hw, 16 * kib, 16, SIM_COLL_AUTO, true),
                     SIM_COLL_NCCL); /* two nodes of 8 */
    assert_int_equal(sim_collective_engine_algo(&hw, 192 * kib, 8, SIM_COLL_AUTO, false),
                     SIM_COLL_AUTO);
    assert_int_equal(sim_collective_engine_algo(&hw, 192 * kib, 8, SIM_COLL_RING, true),
                     SIM_COLL_RING);
    hw.coll.algos &= ~(1u << SIM_COLL_ONESHOT); /* no custom kernel on the device */
    assert_int_equal(sim_collective_engine_algo(&hw, 16 * kib, 8, SIM_COLL_AUTO, true),
                     SIM_COLL_NCCL);
}

static void test_large_allreduce(void **state)
{
    (void)state;
    sim_hw hw = coll_hw();
    /* 256 MiB on 8 GPUs: past the custom limit.
     *   ring Simple 37400 + 1.75 x 268435456 / 382.5        = 1265536.07 ns (371 GB/s bus)
     *   NVLS 8000 + 120000 + 9/8 x 268435456 / 306          = 1114895.06 ns (421 GB/s bus) */
    sim_collective_cost c = sim_collective_allreduce(&hw, 268435456.0, 8, SIM_COLL_AUTO);
    assert_int_equal(c.algo, SIM_COLL_NVLS);
    assert_near(c.t_ns, 1114895.06, 1e-6);
    double busbw = sim_collective_bus_bytes(SIM_COLL_ALLREDUCE, 268435456.0, 8) / c.t_ns;
    assert_near(busbw, 421.35, 1e-4);
    c = sim_collective_allreduce(&hw, 268435456.0, 8, SIM_COLL_RING);
    assert_int_equal(c.proto, SIM_COLL_SIMPLE);
    assert_near(c.t_ns, 1265536.07, 1e-6);
    /* a device without NVLS (A100-like) never prices it, even when asked through auto */
    hw.coll.algos &= ~(1u << SIM_COLL_NVLS);
    assert_int_equal(sim_collective_allreduce(&hw, 268435456.0, 8, SIM_COLL_AUTO).algo,
                     SIM_COLL_RING);
}

static void test_across_nodes(void **state)
{
    (void)state;
    sim_hw hw = coll_hw();
    /* 1 MiB on 16 GPUs (2 nodes of 8):
     * tree LL (hierarchical) = 8000 + 6600 + 2 x (7 x 600 + 7/8 x 1048576 / 191.25)
     *                          + 2 x ceil(log2 2) x 5000 + 1048576 / 8 / 21.25 = 48762.91 ns
     * flat ring, its cheapest protocol Simple: 8000 + 8400 + 30 x 5000 + 15/8 x 1048576 / 42.5
     *   = 212660.71 ns (LL: 257121.41 ns, its half-rate payload costs more than its base saves)
     * one-shot and two-shot are intra-node only, NVLS pays its 120 us: auto takes the tree */
    sim_collective_cost c = sim_collective_allreduce(&hw, 1048576.0, 16, SIM_COLL_AUTO);
    assert_int_equal(c.algo, SIM_COLL_TREE);
    assert_int_equal(c.proto, SIM_COLL_LL);
    assert_near(c.t_ns, 48762.907, 1e-6);
    c = sim_collective_allreduce(&hw, 1048576.0, 16, SIM_COLL_RING);
    assert_int_equal(c.proto, SIM_COLL_SIMPLE);
    assert_near(c.t_ns, 212660.71, 1e-6);
    /* forcing a custom all-reduce across nodes is refused; so is an algorithm the device lacks */
    sim_err err = {{0}};
    assert_int_equal(sim_collective_check(&hw, SIM_COLL_ONESHOT, 16, "--allreduce", &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "span nodes"));
    assert_int_equal(sim_collective_check(&hw, SIM_COLL_ONESHOT, 8, "--allreduce", &err), SIM_OK);
    hw.coll.algos &= ~(1u << SIM_COLL_NVLS);
    assert_int_equal(sim_collective_check(&hw, SIM_COLL_NVLS, 8, "--allreduce", &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--allreduce: value nvls is not an algorithm"));
}

static void test_other_collectives(void **state)
{
    (void)state;
    sim_hw hw = coll_hw();
    /* all-gather of a 1 MiB result on 8 GPUs: ring LL 8000 + 6600 + 7 x 600 + 7/8 x 1048576 /
     * 191.25 = 23597.41 ns (NVLS pays 128 us first); reduce-scatter moves the same */
    sim_collective_cost c = sim_collective_allgather(&hw, 1048576.0, 8, SIM_COLL_AUTO);
    assert_int_equal(c.algo, SIM_COLL_RING);
    assert_near(c.t_ns, 23597.41, 1e-6);
    assert_near(sim_collective_reduce_scatter(&hw, 1048576.0, 8, SIM_COLL_AUTO).t_ns, c.t_ns, 0);
    /* all-to-all of 1 MiB per GPU over 16 GPUs: 7/16 stays in the node, 8/16 leaves it, all at
     * once; Simple: 8000 + 8400 + 5000 + max(458752 / 382.5, 524288 / 42.5) = 33736.19 ns */
    c = sim_collective_alltoall(&hw, 1048576.0, 16, 1);
    assert_int_equal(c.algo, SIM_COLL_DIRECT);
    assert_int_equal(c.proto, SIM_COLL_SIMPLE);
    assert_near(c.t_ns, 33736.19, 1e-6);
    assert_near(sim_collective_price(&hw, SIM_COLL_ALLTOALL, 1048576.0, 16, SIM_COLL_AUTO).t_ns,
                c.t_ns, 0);
    /* bus bytes as nccl-tests counts them */
    assert_near(sim_collective_bus_bytes(SIM_COLL_ALLREDUCE, 800, 8), 1400, 1e-12);
    assert_near(sim_collective_bus_bytes(SIM_COLL_ALLGATHER, 800, 8), 700, 1e-12);
}

static void test_names(void **state)
{
    (void)state;
    sim_coll_algo a;
    assert_true(sim_coll_algo_parse("nvls", &a) && a == SIM_COLL_NVLS);
    assert_true(sim_coll_algo_parse("nccl", &a) && a == SIM_COLL_NCCL);
    assert_false(sim_coll_algo_parse("direct", &a)); /* all-to-all's, not a choice */
    assert_false(sim_coll_algo_parse("fast", &a));
    assert_string_equal(sim_coll_proto_name(SIM_COLL_LL128), "ll128");
    assert_string_equal(sim_coll_kind_name(SIM_COLL_REDUCE_SCATTER), "reduce_scatter");
}

/* The device files: every shipped one loads; the collectives object is checked strictly. */
static void test_device_files(void **state)
{
    (void)state;
    sim_hw hw = tu_hw("h100-sxm");
    assert_true(sim_collective_has(&hw, SIM_COLL_NVLS) &&
                sim_collective_has(&hw, SIM_COLL_ONESHOT));
    assert_near(hw.coll.custom_max_bytes, 8388608, 0);
    sim_hw a100 = tu_hw("a100-sxm-80gb");
    assert_false(sim_collective_has(&a100, SIM_COLL_NVLS)); /* NVSwitch gen 2: no multicast */
    sim_hw tpu = tu_hw("tpu-v5e");
    assert_false(sim_collective_has(&tpu, SIM_COLL_ONESHOT));
    assert_near(tpu.coll.proto_bw_eff[SIM_COLL_LL], 0.0, 0); /* no NCCL protocols */
    /* a bad algorithm name, a missing ring, a listed kernel without its constants */
    static const struct {
        const char *coll, *mention;
    } bad[] = {
        {"{\"algorithms\": [\"ring\", \"magic\"], \"simple\": {\"base_us\": 1}}",
         "'collectives.algorithms' holds 'magic'"},
        {"{\"algorithms\": [\"tree\"], \"simple\": {\"base_us\": 1}}", "lacks \"ring\""},
        {"{\"algorithms\": [\"ring\", \"nvls\"], \"simple\": {\"base_us\": 1}}",
         "collectives.nvls.latency_us"},
        {"{\"algorithms\": \"ring\"}", "not an array"},
    };
    char *base = NULL;
    size_t len = 0;
    FILE *f = fopen(tu_path("tests/data", "h100-fixture"), "r");
    assert_non_null(f);
    char buf[8192];
    len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[len] = '\0';
    base = strrchr(buf, '}');
    assert_non_null(base);
    *base = '\0';
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[10000];
        snprintf(text, sizeof text, "%s, \"collectives\": %s}", buf, bad[i].coll);
        sim_hw h;
        sim_err err = {{0}};
        assert_int_equal(sim_hw_load(tu_write_tmp(text), &h, &err), SIM_EINPUT);
        if (!strstr(err.msg, bad[i].mention)) {
            print_error("message '%s', expected '%s'\n", err.msg, bad[i].mention);
            fail();
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_allreduce), cmocka_unit_test(test_vllm_stages),
        cmocka_unit_test(test_large_allreduce),
        cmocka_unit_test(test_across_nodes),    cmocka_unit_test(test_other_collectives),
        cmocka_unit_test(test_names),           cmocka_unit_test(test_device_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
