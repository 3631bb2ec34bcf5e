/* test_a2a.c - DeepEP's dispatch and combine per mode (a2a.h) against hand calculations.
 *
 * The device: the H100 fixture with H800-like links set here: NVLink B_up = 200 GB/s, NIC
 * B_out = 50 GB/s per direction, 8 GPUs per node; low-latency L = 24 us and NVLink efficiency
 * 0.70, normal L = 24 us and 0.66, RDMA efficiency 0.86. Bandwidths in bytes/ns: low-latency
 * NVLink 140, normal NVLink 132, RDMA 43.
 */
#include "testutil.h"

#include <math.h>

#include "a2a.h"

static sim_hw a2a_hw(void)
{
    sim_hw hw = tu_fixture_hw();
    hw.scaleup_bytes_per_s = 200e9;
    hw.scaleout_bytes_per_s = 50e9;
    hw.devices_per_node = 8;
    hw.a2a.ll_latency_ns = 24000;
    hw.a2a.ll_nvlink_eff = 0.70;
    hw.a2a.normal_latency_ns = 24000;
    hw.a2a.normal_nvlink_eff = 0.66;
    hw.a2a.rdma_eff = 0.86;
    return hw;
}

/* DeepSeek-V3's decode shape: 128 tokens per rank, top-8 of 256 experts, fp8 dispatch of 7168
 * values + 56 fp32 scales = 7392 bytes per token. */
static sim_a2a_shape ds_decode(int ranks)
{
    return (sim_a2a_shape){.tokens = 128, .topk = 8, .experts = 256, .token_bytes = 7392,
                           .ranks = ranks, .imbalance = 1};
}

static void test_low_latency_one_node(void **state)
{
    (void)state;
    sim_hw hw = a2a_hw();
    sim_a2a_shape s = ds_decode(8);
    /* T k b = 128 x 8 x 7392 = 7569408 bytes; 7/8 to the 7 peers over NVLink: 6623232 bytes at
     * 140 B/ns = 47308.8 ns; nothing over RDMA; + 24000 = 71308.8 ns */
    sim_a2a_cost c = sim_a2a_price(&hw, SIM_A2A_LOW_LATENCY, &s);
    assert_near(c.nvlink_bytes, 6623232.0, 1e-12);
    assert_true(c.rdma_bytes == 0.0);
    assert_near(c.t_ns, 24000.0 + 6623232.0 / 140.0, 1e-12);
}

static void test_low_latency_across_nodes(void **state)
{
    (void)state;
    sim_hw hw = a2a_hw();
    sim_a2a_shape s = ds_decode(32);
    /* G = 8, N = 32: NVLink 7/32 of 7569408 = 1655808 bytes (11827.2 ns at 140); RDMA 24/32 =
     * 5677056 bytes at 43 B/ns = 132024.558... ns, the slower; t = 24000 + 132024.56 */
    sim_a2a_cost c = sim_a2a_price(&hw, SIM_A2A_LOW_LATENCY, &s);
    assert_near(c.nvlink_bytes, 1655808.0, 1e-12);
    assert_near(c.rdma_bytes, 5677056.0, 1e-12);
    assert_near(c.t_ns, 24000.0 + 5677056.0 / 43.0, 1e-12);
    /* the busiest rank at twice the mean doubles the transfer, not the latency */
    s.imbalance = 2.0;
    assert_near(sim_a2a_price(&hw, SIM_A2A_LOW_LATENCY, &s).t_ns,
                       24000.0 + 2.0 * 5677056.0 / 43.0, 1e-12);
    /* the first kernels sent every peer over RDMA: 31/32 of it at 43 B/ns */
    s.imbalance = 1.0;
    s.rdma_only = true;
    assert_near(sim_a2a_price(&hw, SIM_A2A_LOW_LATENCY, &s).t_ns,
                       24000.0 + 7569408.0 * 31.0 / 32.0 / 43.0, 1e-12);
}

static void test_distinct(void **state)
{
    (void)state;
    /* 8 of 256 experts over 8 ranks of 32: P(miss a rank) = prod_{i<8} (224 - i) / (256 - i)
     * = 0.33817; u = 8 (1 - 0.33817) = 5.2947 */
    double miss = 1.0;
    for (int i = 0; i < 8; i++)
        miss *= (224.0 - i) / (256.0 - i);
    assert_near(sim_a2a_distinct(256, 8, 8, 0, 0), 8.0 * (1.0 - miss), 1e-12);
    assert_near(miss, 0.33817, 1e-4);
    /* node-limited: 8 nodes = 8 groups of 32, a token picks 4: each node is picked with 4/8 and
     * then hit unless all 8 experts miss its 32 of the 128 picked: 8 x 1/2 x (1 - prod (96 -
     * i)/(128 - i)) */
    double m2 = 1.0;
    for (int i = 0; i < 8; i++)
        m2 *= (96.0 - i) / (128.0 - i);
    assert_near(sim_a2a_distinct(256, 8, 8, 8, 4), 4.0 * (1.0 - m2), 1e-12);
    /* 2 blocks of 4 groups each, 4 of 8 groups picked: a block gets j ~ H(8, 4, 4) of them;
     * j = 0 (1/70) leaves it untouched for sure, j = 4 (1/70) hits it for sure */
    double un = 0.0;
    const double hyp[5] = {1.0 / 70, 16.0 / 70, 36.0 / 70, 16.0 / 70, 1.0 / 70};
    for (int j = 0; j <= 4; j++) {
        double m = 1.0;
        for (int i = 0; i < 8; i++)
            m *= fmax(128.0 - 32.0 * j - i, 0.0) / (128.0 - i);
        un += hyp[j] * m;
    }
    assert_near(sim_a2a_distinct(256, 8, 2, 8, 4), 2.0 * (1.0 - un), 1e-12);
    /* no limit when the blocks and the groups do not divide one another */
    assert_near(sim_a2a_distinct(256, 8, 3, 8, 4), sim_a2a_distinct(256, 8, 3, 0, 0),
                       1e-12);
}

static void test_normal(void **state)
{
    (void)state;
    sim_hw hw = a2a_hw();
    sim_a2a_shape s = {.tokens = 4096, .topk = 8, .experts = 256, .token_bytes = 7392,
                       .ranks = 8, .imbalance = 1};
    /* one node: each token once to each of its u(8) = 5.2947 ranks, 7/8 of those over NVLink:
     * 4096 x 7392 x 5.3074 x 7/8 bytes at 132 B/ns */
    const double u8 = sim_a2a_distinct(256, 8, 8, 0, 0);
    sim_a2a_cost c = sim_a2a_price(&hw, SIM_A2A_NORMAL, &s);
    assert_near(c.nvlink_bytes, 4096.0 * 7392.0 * u8 * 7.0 / 8.0, 1e-12);
    assert_near(c.t_ns, 24000.0 + c.nvlink_bytes / 132.0, 1e-12);
    /* DeepEP counts the received tokens, its own share included */
    assert_near(sim_a2a_normal_logical_bytes(&hw, &s), 4096.0 * 7392.0 * u8, 1e-12);
    /* 4 nodes: RDMA once per remote node, u(4) (1 - 1/4) copies; NVLink forwards u(32) x 7/8 */
    s.ranks = 32;
    const double u4 = sim_a2a_distinct(256, 8, 4, 0, 0), u32 = sim_a2a_distinct(256, 8, 32, 0, 0);
    c = sim_a2a_price(&hw, SIM_A2A_NORMAL, &s);
    assert_near(c.rdma_bytes, 4096.0 * 7392.0 * u4 * 0.75, 1e-12);
    assert_near(c.nvlink_bytes, 4096.0 * 7392.0 * u32 * 7.0 / 8.0, 1e-12);
    /* u(4) = 3.6142, remote 2.711 x 30.28 MB = 82.1 MB at 43 B/ns = 1.91 ms, above NVLink's
     * 7.267 x 7/8 x 30.28 MB / 132 = 1.46 ms */
    assert_near(c.t_ns, 24000.0 + c.rdma_bytes / 43.0, 1e-12);
    assert_true(c.t_rdma_ns > c.t_nvlink_ns);
    assert_near(sim_a2a_normal_logical_bytes(&hw, &s), 4096.0 * 7392.0 * u4, 1e-12);
}

static void test_nvl72_and_edges(void **state)
{
    (void)state;
    sim_hw hw = a2a_hw();
    hw.devices_per_node = 72; /* a GB200 NVL72 rack: EP 64 stays on NVLink */
    sim_a2a_shape s = ds_decode(64);
    sim_a2a_cost c = sim_a2a_price(&hw, SIM_A2A_LOW_LATENCY, &s);
    assert_true(c.rdma_bytes == 0.0);
    assert_near(c.t_ns, 24000.0 + 7569408.0 * 63.0 / 64.0 / 140.0, 1e-12);
    s.ranks = 1;
    assert_true(sim_a2a_price(&hw, SIM_A2A_LOW_LATENCY, &s).t_ns == 0.0);
    s.ranks = 8;
    s.tokens = 0;
    assert_true(sim_a2a_price(&hw, SIM_A2A_NORMAL, &s).t_ns == 0.0);
}

static void test_modes(void **state)
{
    (void)state;
    sim_a2a_mode m;
    assert_true(sim_a2a_mode_parse("low-latency", &m) && m == SIM_A2A_LOW_LATENCY);
    assert_true(sim_a2a_mode_parse("normal", &m) && m == SIM_A2A_NORMAL);
    assert_false(sim_a2a_mode_parse("fast", &m));
    assert_int_equal(sim_a2a_resolve(SIM_A2A_AUTO, true), SIM_A2A_NORMAL);
    assert_int_equal(sim_a2a_resolve(SIM_A2A_AUTO, false), SIM_A2A_LOW_LATENCY);
    assert_int_equal(sim_a2a_resolve(SIM_A2A_NORMAL, false), SIM_A2A_NORMAL);
    assert_string_equal(sim_a2a_mode_name(SIM_A2A_LOW_LATENCY), "low_latency");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_low_latency_one_node), cmocka_unit_test(test_low_latency_across_nodes),
        cmocka_unit_test(test_distinct),            cmocka_unit_test(test_normal),
        cmocka_unit_test(test_nvl72_and_edges),     cmocka_unit_test(test_modes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
