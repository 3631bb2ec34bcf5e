/* test_cli_engine.c - the engine profiles from the command line: --engine NAME@VERSION, device and
 * TP rules, the front end, KV offload and sessions, prefixes, all-reduce picks, length limits and a
 * vLLM `bench serve` command line.
 *
 * The cases run in this process through sim_cli_main (clitest.h, cliutil.h); the few that must
 * launch the infersim binary (run_process_in) say why. */
#include "clitest.h"

#include <cjson/cJSON.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "cli_load.h"
#include "cli_opt.h"
#include "engprof.h"
#include "jsonf.h"

static void test_engine_profiles(void **state)
{
    (void)state;
    /* one workload, three engines: each with its own KV sizing, page size and scheduler */
    static const char *const engines[] = {"vllm", "sglang", "trtllm"};
    const double pages[] = {16, 1, 32};
    double ttft[3], blocks[3];
    for (int i = 0; i < 3; i++) {
        char a[512];
        snprintf(a, sizeof a,
                 "serve --model llama-3.1-8b --hw h100-sxm --num-prompts 200 --random-input-len "
                 "2000 --random-output-len 200 --request-rate 10 --engine %s --format json",
                 engines[i]);
        run(a);
        assert_int_equal(R.rc, 0);
        assert_near(out_num("block_size"), pages[i], 0);
        ttft[i] = out_num("mean_ttft_ms");
        blocks[i] = out_num("kv_cache_blocks") * pages[i];
        assert_non_null(strstr(R.out, engines[i]));
    }
    assert_true(ttft[0] != ttft[1] && ttft[1] != ttft[2] && ttft[0] != ttft[2]);
    assert_true(blocks[2] > blocks[0]); /* TensorRT-LLM: 0.9 of the free memory, not of all */
    /* a profile field overridden by its flag, and a contradiction refused */
    run("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 10 --engine trtllm "
        "--max-batch-size 1 --format json"); /* TensorRT-LLM's name for --max-num-seqs */
    assert_int_equal(R.rc, 0);
    assert_near(out_num("mean_batch_size"), 1, 0);
    run("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 10 --engine sglang --block-size 16 "
        "--format json");
    assert_near(out_num("block_size"), 16, 0);
    run("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 10 --async-scheduling "
        "--no-async-scheduling");
    assert_int_equal(R.rc, 2);
    assert_non_null(strstr(R.err, "contradict"));
    run("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 10 --engine nosuch");
    assert_int_equal(R.rc, 2);
    /* a sweep over engines: one row each, the profiles preloaded before the parallel loop */
    run("sweep serve --model llama-3.1-8b --hw h100-sxm --engine vllm,sglang,trtllm "
        "--num-prompts 50 --request-rate 4 --threads 2");
    assert_int_equal(R.rc, 0);
    for (int i = 0; i < 3; i++) {
        char row[32];
        snprintf(row, sizeof row, "\n%d,%s,", i, engines[i]);
        assert_non_null(strstr(R.out, row));
    }
}

/* --engine NAME@VERSION: the profile whose range holds the release (the choices are worked out in
 * test_engprof.c), the device's platform deciding between a CUDA and a ROCm build; an unknown
 * release exits 2 naming the known ranges; a sweep over releases; compare takes the engine and
 * release from a result file's backend and version. */
static void test_engine_versions(void **state)
{
    (void)state;
    static const struct {
        const char *flags, *profile;
    } want[] = {
        {"--hw h100-sxm --engine vllm@0.10.2", "vllm-0.10"},
        {"--hw h100-sxm --engine vllm@0.6.3", "vllm-v0"},
        {"--hw h100-sxm --engine vllm", "vllm"},
        {"--hw mi300x --engine vllm@0.10.2", "vllm-rocm-0.10"},
        {"--hw mi300x --engine vllm@0.6", "vllm-v0-rocm"},
        {"--hw mi300x --engine vllm", "vllm-rocm"},
        {"--hw mi300x --engine sglang@0.5.4", "sglang-rocm"},
        {"--hw h100-sxm --engine trtllm@0.17", "trtllm-0.14"},
        {"--hw h100-sxm --engine trtllm-0.11", "trtllm-0.11"}, /* a profile by its file name */
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char a[512], key[96];
        snprintf(a, sizeof a, "serve --model llama-3.1-8b --num-prompts 5 --format json %s",
                 want[i].flags);
        run(a);
        assert_int_equal(R.rc, 0);
        snprintf(key, sizeof key, "\"engine\":\t\"%s\"", want[i].profile);
        if (!strstr(R.out, key)) {
            print_error("%s: no %s in the output\n", want[i].flags, key);
            fail();
        }
    }
    /* the version decides: vLLM 0.10 runs its scheduler on the GPU's time, 0.12 ahead of it */
    run("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 20 --request-rate 4 --format json "
        "--engine vllm@0.10.2");
    assert_int_equal(R.rc, 0);
    double tpot_010 = out_num("mean_tpot_ms");
    run("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 20 --request-rate 4 --format json "
        "--engine vllm@0.12");
    assert_int_equal(R.rc, 0);
    assert_true(out_num("mean_tpot_ms") < tpot_010);
    /* --cudagraph-mode as vLLM spells it: piecewise slows a decode step, none is eager */
    run("run --model llama-3.1-8b --hw h100-sxm --format json --cudagraph-mode FULL_AND_PIECEWISE");
    assert_int_equal(R.rc, 0);
    double tpot_full = out_num("tpot_ms");
    run("run --model llama-3.1-8b --hw h100-sxm --format json --cudagraph-mode piecewise");
    assert_int_equal(R.rc, 0);
    assert_true(out_num("tpot_ms") > tpot_full);
    run("run --model llama-3.1-8b --hw h100-sxm --cudagraph-mode full --enforce-eager");
    assert_int_equal(R.rc, 2);
    assert_non_null(strstr(R.err, "contradict"));
    run("run --model llama-3.1-8b --hw h100-sxm --cudagraph-mode half");
    assert_int_equal(R.rc, 2);
    assert_non_null(strstr(R.err, "--cudagraph-mode: value 'half'"));
    /* refusals: exit 2, one line with the value and the known ranges */
    run("serve --model llama-3.1-8b --hw h100-sxm --engine vllm@0.3");
    assert_int_equal(R.rc, 2);
    assert_non_null(strstr(R.err, "'vllm@0.3'"));
    assert_non_null(strstr(R.err, "vllm-v0 >=0.5,<0.8"));
    assert_non_null(strstr(R.err, "vllm >=0.12"));
    run("serve --model llama-3.1-8b --hw h100-sxm --engine nosuch@1.0");
    assert_int_equal(R.rc, 2);
    assert_non_null(strstr(R.err, "sglang, trtllm"));
    /* a sweep over releases: each point its profile (preloaded once) */
    run("sweep serve --model llama-3.1-8b --hw h100-sxm --engine vllm@0.6,vllm@0.10,vllm@0.3 "
        "--num-prompts 10 --threads 2");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, ",vllm@0.6,"));
    assert_non_null(strstr(R.out, "no vllm profile covers release 0.3"));
    /* compare: the result file's backend and version pick the profile; a flag wins */
    const char *res = tu_write_tmp(
        "{\"backend\": \"vllm\", \"version\": \"0.6.3\", \"num_prompts\": 10, \"request_rate\": 4, "
        "\"completed\": 10, \"total_input_tokens\": 5120, \"total_output_tokens\": 640, "
        "\"mean_ttft_ms\": 40}");
    char a[512];
    snprintf(a, sizeof a, "compare --result %s --model llama-3.1-8b --hw h100-sxm --format json",
             res);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "\"engine\":\t\"vllm-v0\""));
    snprintf(a, sizeof a, "compare --result %s --model llama-3.1-8b --hw h100-sxm --engine sglang",
             res);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "(engine profile sglang)"));
    assert_non_null(strstr(R.err, "contradicts"));
}

/* The profiles' device and TP rules reach the output (JSON and text),
 * and the flags win (the numbers are worked out by hand in test_engprof.c). */
static void test_engine_device_rules(void **state)
{
    (void)state;
    const char *w = "serve --model llama-3.1-8b --num-prompts 10 --format json";
    char a[512];
    snprintf(a, sizeof a, "%s --hw a100-sxm-80gb", w); /* vLLM: an A100 gets 256 / 2048 */
    run(a);
    assert_int_equal(R.rc, 0);
    assert_near(out_num("max_num_seqs"), 256, 0);
    assert_near(out_num("max_num_batched_tokens"), 2048, 0);
    assert_non_null(strstr(R.out, "(any device)"));
    snprintf(a, sizeof a, "%s --hw h100-sxm --tp 8 --engine sglang", w);
    run(a);
    assert_near(out_num("cuda_graph_max_bs"), 512, 0);
    assert_near(out_num("memory_fraction"), 0.818, 1e-12);
    /* an explicit chunk size counts in SGLang's reserve; an explicit fraction wins */
    snprintf(a, sizeof a, "%s --hw a100-sxm-40gb --engine sglang --chunked-prefill-size 8192", w);
    run(a);
    assert_near(out_num("max_num_batched_tokens"), 8192, 0);
    assert_near(out_num("memory_fraction"), 0.683, 1e-12);
    snprintf(a, sizeof a, "%s --hw a100-sxm-40gb --engine sglang --mem-fraction-static 0.8", w);
    run(a);
    assert_near(out_num("memory_fraction"), 0.8, 1e-12);
    assert_null(strstr(R.out, "memory.reserve_mib"));
    snprintf(a, sizeof a, "%s --hw a100-sxm-80gb --max-num-seqs 64", w);
    run(a);
    assert_near(out_num("max_num_seqs"), 64, 0);
    /* the text report shows the settings in force */
    run("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 10 --engine sglang");
    assert_non_null(strstr(R.out, "Memory fraction:                         0.835"));
    assert_non_null(strstr(R.out, "CUDA graph max batch:                    256"));
}

/* The front end from the command line: on by default with the profile's costs, its share of
 * TTFT and E2E in the JSON (and the flags that set it), gone with --frontend none; a burst of
 * short prompts queues in it (its mean share grows with the burst); bad values exit 2. */
static void test_frontend_flags(void **state)
{
    (void)state;
    const char *w = "serve --model llama-3.1-8b --hw h100-sxm --random-input-len 128 "
                    "--random-output-len 4 --format json";
    char a[512];
    snprintf(a, sizeof a, "%s --num-prompts 100", w);
    run(a);
    assert_int_equal(R.rc, 0);
    const double share100 = out_num("mean_frontend_ttft_ms");
    assert_true(share100 > 0.0 && share100 <= out_num("mean_ttft_ms"));
    assert_near(out_num("frontend_ttft_fraction"), share100 / out_num("mean_ttft_ms"), 1e-9);
    assert_near(out_num("api_server_count"), 1, 0);
    assert_near(out_num("stream_interval"), 1, 0);
    assert_non_null(strstr(R.out, "mean_frontend_e2el_ms"));
    /* vLLM's 3 ms + 128 x 1 us per request on one API server: 400 requests queue 4 times longer */
    snprintf(a, sizeof a, "%s --num-prompts 400", w);
    run(a);
    assert_true(out_num("mean_frontend_ttft_ms") > 3.0 * share100);
    /* two API servers take the burst in half the time */
    snprintf(a, sizeof a, "%s --num-prompts 400 --api-server-count 2", w);
    run(a);
    assert_near(out_num("api_server_count"), 2, 0);
    const double two = out_num("mean_frontend_ttft_ms");
    snprintf(a, sizeof a, "%s --num-prompts 400 --tokenizer-worker-num 2", w);
    run(a);
    assert_near(out_num("mean_frontend_ttft_ms"), two, 0);
    snprintf(a, sizeof a, "%s --num-prompts 100 --frontend none", w);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_null(strstr(R.out, "frontend"));
    assert_null(strstr(R.out, "stream_interval"));
    /* SGLang's interval: the first token comes with the 4th, the last */
    snprintf(a, sizeof a, "%s --num-prompts 1 --engine sglang --stream-interval 4", w);
    run(a);
    const double ttft4 = out_num("mean_ttft_ms");
    assert_near(out_num("stream_interval"), 4, 0);
    assert_near(out_num("mean_ttft_ms"), out_num("mean_e2el_ms"), 0);
    snprintf(a, sizeof a, "%s --num-prompts 1 --engine sglang", w);
    run(a);
    assert_true(out_num("mean_ttft_ms") < ttft4);
    /* the table shows the share */
    run("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 20 --random-output-len 4");
    assert_non_null(strstr(R.out, "Front end's share of mean TTFT (%):"));
    snprintf(a, sizeof a, "%s --num-prompts 10 --frontend fast", w);
    run(a);
    assert_int_equal(R.rc, 2);
    assert_non_null(strstr(R.err, "--frontend"));
    snprintf(a, sizeof a, "%s --num-prompts 10 --stream-interval 0", w);
    run(a);
    assert_int_equal(R.rc, 2);
    snprintf(a, sizeof a, "%s --num-prompts 10 --frontend-request-us -1", w);
    run(a);
    assert_int_equal(R.rc, 2);
}

static void test_long_context_no_evict(void **state)
{
    (void)state;
    /* 300 prompts of 20,000 tokens and 2,000 out, all at once, Llama-3.1-8B on one H100: vLLM
     * admits prompts whose KV cannot grow and preempts thousands of times; TensorRT-LLM's
     * GUARANTEED_NO_EVICT admits only what can finish, never preempts, and ends far sooner */
    const char *w = "serve --model llama-3.1-8b --hw h100-sxm --num-prompts 300 "
                    "--random-input-len 20000 --random-output-len 2000 --format json";
    char a[512];
    snprintf(a, sizeof a, "%s --engine vllm", w);
    run(a);
    assert_int_equal(R.rc, 0);
    double vllm_pre = out_num("preemptions"), vllm_dur = out_num("duration");
    snprintf(a, sizeof a, "%s --engine trtllm --enable-chunked-prefill", w);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_true(vllm_pre > 1000);
    assert_near(out_num("preemptions"), 0, 0);
    assert_true(out_num("duration") < 0.5 * vllm_dur);
}

/* The default draws serve a prefix of the requests (a twelfth, at least 32): a session turn in
 * it whose next turn lies past it ends its session there. 200 three-turn sessions (600 requests,
 * a prefix of 50) on one engine, four replicas and 1:3 disaggregation: every run completes its
 * 600 turns with a band around the nominal TTFT (the engines were sent turns past the prefix's
 * arrays: a crash or a heap overrun). */
static void test_session_bands_on_a_prefix(void **state)
{
    (void)state;
    const char *w = "serve --model llama-3.1-8b --hw h100-sxm --sessions 200 --turns-per-session 3 "
                    "--think-time-s exp:2 --request-rate 20 --random-input-len 256 "
                    "--random-output-len 32 --format json";
    const char *how[] = {"", "--replicas 4", "--disagg 1:3"};
    for (size_t i = 0; i < sizeof how / sizeof *how; i++) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "%s %s", w, how[i]);
        run(cmd);
        assert_int_equal(R.rc, 0);
        assert_near(out_num("completed"), 600, 0);
        const double ttft = out_num("mean_ttft_ms");
        assert_true(out_num("mean_ttft_ms_lo") < ttft && ttft < out_num("mean_ttft_ms_hi"));
    }
}

static void test_kv_offload_and_sessions(void **state)
{
    (void)state;
    const char *base = "serve --model llama-3.1-8b --hw h100-sxm";
    /* four-turn sessions: a later turn finds its context cached; the tiers report per tier */
    const char *sessions = "serve --model llama-3.1-8b --hw h100-sxm --sessions 20 "
                           "--turns-per-session 4 --think-time-s exp:2 --request-rate 2 "
                           "--random-input-len 512 --random-output-len 64 "
                           "--gpu-memory-utilization 0.25 --format json";
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s --kv-offload cpu:200,disk:1000", sessions);
    run(cmd);
    assert_int_equal(R.rc, 0);
    assert_near(out_num("completed"), 80, 0);
    assert_true(out_num("prefix_cache_hit_rate") > 0.4);
    assert_true(out_num("kv_offload_cpu_write_bytes") > 0);
    assert_near(out_num("kv_offload_disk_hit_tokens"), 0, 0); /* 200 GB of DRAM holds it all */
    /* the same sessions with only a remote store: the later turns load from it */
    snprintf(cmd, sizeof cmd, "%s --kv-offload remote:500", sessions);
    run(cmd);
    assert_int_equal(R.rc, 0);
    assert_near(out_num("kv_offload_cpu_hit_tokens"), 0, 0);
    assert_true(out_num("kv_offload_remote_write_bytes") > 0);
    run("serve --model llama-3.1-8b --hw h100-sxm --sessions 20 --format json");
    assert_int_equal(R.rc, 0);
    assert_null(strstr(R.out, "kv_offload")); /* no tier: no key */
    bad_flag(base, "--kv-offload cpu:0", "--kv-offload");
    bad_flag(base, "--kv-offload gpu:10", "--kv-offload");
    bad_flag(base, "--kv-offload cpu:10,cpu:20", "--kv-offload");
    bad_flag(base, "--kv-offload cpu:10x", "--kv-offload");
    bad_flag(base, "--kv-offload remote:1,remote:2", "--kv-offload");
    bad_flag(base, "--kv-offload cpu:10 --no-enable-prefix-caching", "prefix caching");
    bad_flag(base, "--kv-offload-write evict", "--kv-offload");
    bad_flag(base, "--kv-offload cpu:10 --kv-offload-write sometimes", "--kv-offload-write");
    bad_flag(base, "--sessions 0", "--sessions");
    bad_flag(base, "--think-time-s 3", "--sessions");
    bad_flag(base, "--turns-per-session 3", "--sessions");
    bad_flag(base, "--sessions 4 --think-time-s uniform:3:1", "--think-time-s");
    bad_flag(base, "--sessions 4 --num-prompts 10", "--num-prompts");
    /* sessions over disaggregated pools: every turn completes */
    run("serve --model llama-3.1-8b --hw h100-sxm --sessions 4 --turns-per-session 3 "
        "--think-time-s 1 --disagg 1:1 --uncertainty 0 --format json");
    assert_int_equal(R.rc, 0);
    assert_near(out_num("completed"), 12, 0);
    bad_flag(base, "--session-affinity", "--session-affinity");
    bad_flag(base, "--replicas 2 --kv-overlap-score-weight 2", "--router kv-aware");
    bad_flag(base, "--router-refresh-ms 50", "--replicas N > 1");
    bad_flag(base, "--replicas 2 --router-refresh-ms -1", "--router-refresh-ms");
    bad_flag(base, "--sessions 4 --replicas 2 --router-refresh-ms 50", "--sessions");
    /* a scraped view every 50 ms herds 100 requests/s onto one replica per refresh */
    const char *herd = "serve --model llama-3.1-8b --hw h100-sxm --replicas 4 --num-prompts 400 "
                       "--request-rate 100 --random-input-len 1024 --random-output-len 64 "
                       "--format json";
    char line[512];
    run(herd);
    assert_int_equal(R.rc, 0);
    const double live = out_num("mean_ttft_ms");
    snprintf(line, sizeof line, "%s --router-refresh-ms 50", herd);
    run(line);
    assert_int_equal(R.rc, 0);
    assert_true(out_num("mean_ttft_ms") > 1.3 * live);
    /* autoscaling on the request rate over a step from 5/s to 30/s at 60 s (target 11/s, near-
     * regular gaps): 1 replica until the evaluation at 75 s sees 30/s, ceil(30 / 11) = 3; the
     * two added are held from 75 s to the end (~120 s), replica 0 throughout:
     * (120 + 2 x 45) s / 3600 = 0.0583 GPU-hours, at H100's $2.69: $0.157; their weights (16.06 GB
     * a GPU) load at the device's 6 GB/s NVMe in 2.68 s */
    const char *step = "serve --model llama-3.1-8b --hw h100-sxm --num-prompts 2100 "
                       "--rate-schedule 0:5,60:30 --burstiness 1000 --random-input-len 256 "
                       "--random-output-len 32 --autoscale 1:4 --autoscale-metric rate "
                       "--autoscale-target 11 --uncertainty 0";
    snprintf(line, sizeof line, "%s --format json", step);
    run(line);
    assert_int_equal(R.rc, 0);
    assert_near(out_num("gpu_hours"), 210.0 / 3600.0, 0.01);
    assert_near(out_num("usd"), out_num("gpu_hours") * 2.69, 1e-9);
    assert_near(out_num("usd_per_million_output_tokens"),
                out_num("usd") / out_num("total_output_tokens") * 1e6, 1e-6);
    assert_near(out_num("replicas_peak"), 3, 0);
    assert_near(out_num("gpus"), 3, 0);
    assert_near(out_num("autoscale_start_s"), 2.677, 0.001);
    assert_non_null(strstr(R.out, "\"autoscale_timeline\""));
    /* the page's autoscaling caption: the same GPU-hours and their cost */
    char hpath[256];
    tu_snprintf(hpath, sizeof hpath, "%s/infersim-fleet-%d.html", tu_tmpdir(), (int)getpid());
    snprintf(line, sizeof line, "%s --html %s", step, hpath);
    run(line);
    assert_int_equal(R.rc, 0);
    char *page = slurp(hpath);
    assert_non_null(page);
    assert_non_null(strstr(page, "0.058 GPU-hours, US$ 0.16 at 2.69 $ per GPU-hour"));
    free(page);
    remove(hpath);
    bad_flag(base, "--autoscale 1:4", "--autoscale-target");
    bad_flag(base, "--autoscale-target 3", "--autoscale MIN:MAX");
    bad_flag(base, "--autoscale 1:4 --autoscale-target 3 --replicas 2", "--replicas");
    bad_flag(base, "--autoscale 4:1 --autoscale-target 3", "--autoscale");
    bad_flag(base, "--autoscale 1:4 --autoscale-target 3 --autoscale-metric cpu",
             "--autoscale-metric");
    bad_flag(base, "--rate-schedule 0:1 --request-rate 3", "--rate-schedule");
    bad_flag(base, "--rate-schedule 1:3", "--rate-schedule");
    /* a trace's sessions: --session-affinity takes them; --save-requests names session, turn */
    const char *tp = tu_write_tmp("arrival_s,input_tokens,output_tokens,session_id\n"
                                  "0,1000,20,a\n0.001,1100,20,a\n0.002,500,20,b\n");
    snprintf(cmd, sizeof cmd,
             "serve --model llama-3.1-8b --hw h100-sxm --trace %s --replicas 2 "
             "--session-affinity --uncertainty 0 --format json",
             tp);
    run(cmd);
    assert_int_equal(R.rc, 0);
    assert_near(out_num("completed"), 3, 0);
    /* replicas on two devices: each replica's device in replica_load, the blended price */
    run("serve --model llama-3.1-8b --hw h100-sxm --replica-hw h100-sxm:1,h200:2 --num-prompts 60 "
        "--request-rate 20 --uncertainty 0 --format json");
    assert_int_equal(R.rc, 0);
    assert_near(out_num("gpus"), 3, 0);
    assert_near(out_num("usd_per_gpu_hour"), (2.69 + 2 * 3.59) / 3, 1e-9);
    assert_non_null(strstr(R.out, "\"hw\":\t\"NVIDIA H200"));
    bad_flag(base, "--replica-hw h100-sxm:1", "at least 2");
    bad_flag(base, "--replica-hw h100-sxm:2,h200:2 --replicas 3", "--replicas");
    bad_flag(base, "--replica-hw h100-sxm:2,h200", "--replica-hw");
    bad_flag(base, "--replica-hw h100-sxm:2 --disagg 1:1", "--replica-hw");
    /* mixed hardware: H100 prefill, H200 decode; no NVLink between them, the blended price */
    run("serve --model llama-3.1-8b --hw h200 --prefill-hw h100-sxm --disagg 1:1 --num-prompts 20 "
        "--request-rate 4 --uncertainty 0 --format json");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "\"kv_link\":\t\"scaleout\""));
    assert_non_null(strstr(R.out, "\"prefill_hw\":\t\"NVIDIA H100"));
    assert_near(out_num("usd_per_gpu_hour"), (2.69 + 3.59) / 2, 1e-9);
    bad_flag(base, "--prefill-hw h200", "--disagg");
    run("serve --model llama-3.1-8b --hw h100-sxm --replicas 2 --router kv-aware "
        "--kv-overlap-score-weight 2 --dataset-name prefix_repetition --num-prompts 100 "
        "--request-rate 20 --format json");
    assert_int_equal(R.rc, 0);
    assert_true(out_num("prefix_cache_hit_rate") > 0.3);
}

static void test_prefix_repetition_and_model_len(void **state)
{
    (void)state;
    /* 256 shared + 256 own tokens: at most half of each prompt can come from the cache, and the
     * first requests of each prefix find nothing */
    run("serve --model llama-3.1-8b --hw h100-sxm --dataset-name prefix_repetition "
        "--num-prompts 200 --request-rate 20 --format json");
    assert_int_equal(R.rc, 0);
    assert_between(out_num("prefix_cache_hit_rate"), 0.4, 0.5);
    double on = out_num("mean_ttft_ms");
    run("serve --model llama-3.1-8b --hw h100-sxm --dataset-name prefix_repetition "
        "--num-prompts 200 --request-rate 20 --format json --no-enable-prefix-caching");
    assert_near(out_num("prefix_cache_hit_rate"), 0, 0);
    assert_true(out_num("mean_ttft_ms") > on);
    run("serve --model llama-3.1-8b --hw h100-sxm --random-input-len 100 --prefix-repetition-"
        "prefix-len 10");
    assert_int_equal(R.rc, 2);
    /* the timeline shows the prompt tokens each iteration took from the cache */
    char trace[256];
    tu_snprintf(trace, sizeof trace, "%s/infersim-prefix-%d.json", tu_tmpdir(), (int)getpid());
    runf("serve --model llama-3.1-8b --hw h100-sxm --trace %s/traces/mooncake-sample.jsonl "
         "--chrome-trace %s --format json",
         tu_root(), trace);
    assert_int_equal(R.rc, 0);
    assert_true(out_num("prefix_cache_hit_rate") > 0.5);
    char *tl = slurp(trace);
    assert_non_null(tl);
    assert_non_null(strstr(tl, "\"cached_prompt_tokens\":1536"));
    assert_non_null(strstr(tl, "\"cached_prompt_tokens\":0"));
    free(tl);
    remove(trace);
    /* --max-model-len: past the config's limit with a warning, below it as a hard limit */
    run("run --model llama-3.1-8b --hw h100-sxm --input-len 200000 --output-len 16");
    assert_int_equal(R.rc, 2);
    run("run --model llama-3.1-8b --hw h100-sxm --input-len 200000 --output-len 16 "
        "--max-model-len 262144 --format json");
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.err, "warning: --max-model-len 262144 is above"));
    run("run --model llama-3.1-8b --hw h100-sxm --input-len 2000 --max-model-len 1024");
    assert_int_equal(R.rc, 2);
}

/* The engine profile picks the all-reduce and the norm fusion; the flags win. At TP 8 a decode
 * all-reduce of 4 tokens x 8192 x 2 B = 64 KiB: vLLM (auto) runs its one-shot kernel, Hugging
 * Face (nccl) NCCL's ring, TensorRT-LLM fuses the norms into its kernel. */
static void test_engine_picks_allreduce(void **state)
{
    (void)state;
    const char *w = "run --model llama-3.1-70b --hw h100-sxm --tp 8 --batch 4 --input-len 256 "
                    "--output-len 8 --format json";
    static const struct {
        const char *flags, *algo;
        bool fused;
    } cases[] = {
        {"--engine vllm", "oneshot", false},
        {"--engine hf", "ring", false},
        {"--engine hf --allreduce auto", "oneshot", false},
        {"--engine trtllm", "oneshot", true},
        {"--engine trtllm --no-fuse-allreduce-norm", "oneshot", false},
        {"--engine vllm --fuse-allreduce-norm", "oneshot", true},
        {"--engine trtllm --allreduce nccl", "ring", false}, /* NCCL's kernels do not fuse */
    };
    char a[512];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(a, sizeof a, "%s %s", w, cases[i].flags);
        run(a);
        assert_int_equal(R.rc, 0);
        cJSON *j = cJSON_Parse(R.out);
        assert_non_null(j);
        const cJSON *ops = cJSON_GetObjectItemCaseSensitive(j, "ops");
        const cJSON *ar = cJSON_GetArrayItem(ops, 16 + 6); /* decode attn_allreduce */
        const cJSON *algo = cJSON_GetObjectItemCaseSensitive(ar, "collective_algo");
        if (!algo || strcmp(algo->valuestring, cases[i].algo) != 0) {
            print_error("%s: collective_algo %s, expected %s\n", cases[i].flags,
                        algo ? algo->valuestring : "missing", cases[i].algo);
            fail();
        }
        const cJSON *norm = cJSON_GetArrayItem(ops, 16 + 7); /* decode mlp_norm */
        assert_int_equal(
            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(norm, "fused_into_allreduce")),
            cases[i].fused);
        cJSON_Delete(j);
    }
    run("run --model llama-3.1-8b --hw h100-sxm --tp 2 --fuse-allreduce-norm "
        "--no-fuse-allreduce-norm");
    assert_int_equal(R.rc, 2);
    assert_non_null(strstr(R.err, "contradict"));
}

/* The vLLM profile with limits.max_model_len set to n, written to a temporary file. */
static const char *vllm_with_max_model_len(long n)
{
    char *text = slurp(tu_path("hw/engines", "vllm"));
    assert_non_null(text);
    const char *key = "\"max_model_len\": 0";
    char *at = strstr(text, key);
    assert_non_null(at);
    static char prof[16384];
    snprintf(prof, sizeof prof, "%.*s\"max_model_len\": %ld%s", (int)(at - text), text, n,
             at + strlen(key));
    free(text);
    return tu_write_tmp(prof);
}

/* Length limits from the profile: TensorRT-LLM 0.11's engine build takes prompts up to 1024
 * tokens (--max-input-len raises it); a profile's limits.max_model_len replaces the config's
 * context, --max-model-len replaces the profile's, with the warning above the config's. */
static void test_engine_length_limits(void **state)
{
    (void)state;
    static const struct {
        const char *args, *err; /* err: in stderr, and exit 2; NULL: exit 0 */
    } cases[] = {
        {"run --engine trtllm-0.11 --input-len 2000 --output-len 8", "max_input_len 1024"},
        {"run --engine trtllm-0.11 --input-len 2000 --output-len 8 --max-input-len 4096", NULL},
        {"serve --engine trtllm-0.11 --num-prompts 4 --random-input-len 2000 "
         "--random-output-len 8",
         "max_input_len 1024"},
        {"serve --engine trtllm --num-prompts 4 --random-input-len 2000 --random-output-len 8",
         NULL},
    };
    char a[1024];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(a, sizeof a, "%s --model llama-3.1-8b --hw h100-sxm", cases[i].args);
        run(a);
        assert_int_equal(R.rc, cases[i].err ? 2 : 0);
        assert_true(!cases[i].err || strstr(R.err, cases[i].err));
    }
    /* profiles whose engine caps the context (llama-3.1-8b's config: 131072 tokens): the cap
     * is the limit, --max-model-len replaces it, and above the config's it warns naming the
     * profile's field */
    static const struct {
        long limit;
        const char *flags;
        int rc;
        const char *err; /* NULL: no warning */
    } lim[] = {
        {4096, "--input-len 4000 --output-len 200", 2, "4096"},
        {4096, "--input-len 4000 --output-len 200 --max-model-len 8192", 0, NULL},
        {262144, "--input-len 200000 --output-len 16", 0, "limits.max_model_len 262144 is above"},
    };
    for (size_t i = 0; i < sizeof lim / sizeof lim[0]; i++) {
        snprintf(a, sizeof a, "run --model llama-3.1-8b --hw h100-sxm --engine %s %s",
                 vllm_with_max_model_len(lim[i].limit), lim[i].flags);
        run(a);
        assert_int_equal(R.rc, lim[i].rc);
        if (lim[i].err)
            assert_non_null(strstr(R.err, lim[i].err));
        else
            assert_null(strstr(R.err, "warning"));
    }
}

/* How many files in `dir` have a name that starts with `prefix` and ends with `suffix`. */
static int files_named(const char *dir, const char *prefix, const char *suffix)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e = readdir(d); e; e = readdir(d)) {
        size_t len = strlen(e->d_name), pl = strlen(prefix), sl = strlen(suffix);
        n += len >= pl + sl && strncmp(e->d_name, prefix, pl) == 0 &&
             strcmp(e->d_name + len - sl, suffix) == 0;
    }
    closedir(d);
    return n;
}

/* A vLLM `bench serve` command line, with --hw added, runs as it is and writes vLLM's result JSON
 * (named as vLLM names it) into --result-dir. */
static void test_vllm_command_line(void **state)
{
    (void)state;
    char dir[256], a[2048];
    tu_snprintf(dir, sizeof dir, "%s/infersim-vllm-%d", tu_tmpdir(), (int)getpid());
    snprintf(
        a, sizeof a,
        "serve --backend vllm --base-url http://127.0.0.1:8000 --endpoint /v1/completions "
        "--model meta-llama/Llama-3.1-8B-Instruct --tokenizer meta-llama/Llama-3.1-8B-Instruct "
        "--dataset-name random --random-input-len 256 --random-output-len 32 --num-prompts 40 "
        "--request-rate 8 --ignore-eos --percentile-metrics ttft,tpot,itl,e2el "
        "--metric-percentiles 50,90,99.9 --save-result --result-dir %s "
        "--result-filename out.json --hw h100-sxm",
        dir);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "P99.9 E2EL (ms):")); /* the printed table follows the flags */
    assert_null(strstr(R.out, "P99 TTFT"));
    char path[300];
    snprintf(path, sizeof path, "%s/out.json", dir);
    cJSON *j;
    sim_err err = {{0}};
    assert_int_equal(sim_jsonf_load(path, &j, &err), SIM_OK);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "backend")->valuestring, "vllm");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "model_id")->valuestring,
                        "meta-llama/Llama-3.1-8B-Instruct");
    assert_int_equal((int)num(j, "num_prompts"), 40);
    assert_int_equal((int)num(j, "completed"), 40);
    assert_true(num(j, "request_rate") == 8.0);
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "max_concurrency")));
    assert_true(num(j, "p50_ttft_ms") <= num(j, "p90_ttft_ms"));
    assert_true(num(j, "p90_ttft_ms") <= num(j, "p99.9_ttft_ms"));
    assert_true(num(j, "p99.9_e2el_ms") > 0.0);
    assert_null(cJSON_GetObjectItemCaseSensitive(j, "p99_ttft_ms")); /* only those asked for */
    assert_true(num(j, "mean_tpot_ms") > 0.0 && num(j, "std_itl_ms") >= 0.0);
    cJSON_Delete(j);
    /* compare reads it back: the same flags predict the same numbers */
    snprintf(a, sizeof a,
             "compare --result %s --model meta-llama/Llama-3.1-8B-Instruct --hw h100-sxm "
             "--random-input-len 256 --random-output-len 32 --num-prompts 40 --request-rate 8",
             path);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "median |error| 0.0%"));
    remove(path);
    /* without --result-filename: vLLM's name, {backend}-{rate}qps-{model}-{date}.json */
    snprintf(a, sizeof a,
             "serve --model meta-llama/Llama-3.1-8B --hw h100-sxm --num-prompts 5 "
             "--random-input-len 64 --random-output-len 4 --save-result --result-dir %s",
             dir);
    run(a);
    assert_int_equal(R.rc, 0);
    assert_int_equal(files_named(dir, "openai-infqps-Llama-3.1-8B-2", ".json"), 1);
    tu_rm_r(dir);
    expect_bad("serve --model llama-3.1-8b --hw h100-sxm --dataset-name sonnet",
               "--dataset-name: value 'sonnet', expected random, prefix_repetition or one of");
    expect_bad("serve --model llama-3.1-8b --hw h100-sxm --result-dir x",
               "--result-dir: needs --save-result");
    expect_bad("serve --model llama-3.1-8b --hw h100-sxm --metric-percentiles 50,101",
               "--metric-percentiles");
    expect_bad("run --model meta-llama/No-Such-Model --hw h100-sxm",
               "meta-llama/No-Such-Model: no such file, and no models/NAME.json lists this Hugging "
               "Face id");
    /* a checkpoint folder stands for its config.json, as vLLM's --model takes it */
    char ckpt[256], config[300];
    tu_snprintf(ckpt, sizeof ckpt, "%s/infersim-ckpt-%d", tu_tmpdir(), (int)getpid());
    assert_int_equal(mkdir(ckpt, 0700), 0);
    tu_snprintf(config, sizeof config, "%s/config.json", ckpt);
    char *text = slurp(tu_path("models", "llama-3.2-1b"));
    assert_non_null(text);
    FILE *f = fopen(config, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
    free(text);
    runf("run --model %s --hw h100-sxm --format json", ckpt);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "\"model\":\t\"infersim-ckpt-")); /* named by its folder */
    tu_rm_r(ckpt);
    /* a name found nowhere says where infersim looked and which names it knows */
    expect_bad("run --model llama-3.1-8b --hw h100", "no hw/h100.json in the working directory");
    assert_non_null(strstr(R.err, "h100-sxm, h20, h200"));
}

/* The option table's engine column: every row that names a profile field, given alone, sets that
 * field (a number to the flag's value, an on/off flag its bool) and no other byte of the profile;
 * its kind matches the flag's; an ON and an OFF flag of one field given together are refused. */
static void test_engine_override_column(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/hw/engines/vllm.json", tu_root());
    sim_engprof base;
    sim_err err = {{0}};
    assert_int_equal(sim_engprof_load(path, &base, &err), SIM_OK);
    int kinds[CLI_OPT_ENG_OFF + 1] = {0};
    for (size_t i = 0; i < cli_opt_count; i++) {
        const cli_opt_def *d = &cli_opt_table[i];
        if (d->eng == CLI_OPT_ENG_NONE)
            continue;
        kinds[d->eng]++;
        static const cli_opt_kind flag_kind[] = {[CLI_OPT_ENG_I64] = CLI_OPT_INT,
                                                 [CLI_OPT_ENG_F64] = CLI_OPT_NUM,
                                                 [CLI_OPT_ENG_ON] = CLI_OPT_BOOL,
                                                 [CLI_OPT_ENG_OFF] = CLI_OPT_BOOL};
        assert_int_equal(d->kind, flag_kind[d->eng]);
        assert_ptr_equal(cli_opt_find(d->name, ~0), d); /* given[] is read by row */
        cli_opts o = cli_opt_defaults;
        o.given[i] = true;
        sim_engprof e = base, want = base;
        char *at = (char *)&e + d->eng_offset, *want_at = (char *)&want + d->eng_offset;
        if (d->eng == CLI_OPT_ENG_I64) {
            const int64_t v = 1000003 + (int64_t)i; /* no profile holds it */
            memcpy((char *)&o + d->offset, &v, sizeof v);
            memcpy(want_at, &v, sizeof v);
        } else if (d->eng == CLI_OPT_ENG_F64) {
            const double v = 0.25 + (double)i;
            memcpy((char *)&o + d->offset, &v, sizeof v);
            memcpy(want_at, &v, sizeof v);
        } else { /* the profile holds the other value first */
            *(bool *)at = d->eng == CLI_OPT_ENG_OFF;
            *(bool *)want_at = d->eng == CLI_OPT_ENG_ON;
        }
        assert_int_equal(cli_load_engine_overrides(&o, &e, &err), SIM_OK);
        if (memcmp(&e, &want, sizeof e) != 0)
            fail_msg("%s: does not set exactly its profile field", d->name);
        if (d->eng != CLI_OPT_ENG_ON)
            continue;
        for (size_t j = 0; j < cli_opt_count; j++) /* with its OFF flag: refused, both named */
            if (cli_opt_table[j].eng == CLI_OPT_ENG_OFF &&
                cli_opt_table[j].eng_offset == d->eng_offset) {
                o.given[j] = true;
                e = base;
                assert_int_equal(cli_load_engine_overrides(&o, &e, &err), SIM_EINPUT);
                char msg[160];
                snprintf(msg, sizeof msg, "%s and %s: contradict each other, expected one", d->name,
                         cli_opt_table[j].name);
                assert_string_equal(err.msg, msg);
                assert_memory_equal(&e, &base, sizeof e); /* nothing half-applied */
                o.given[j] = false;
            }
    }
    for (int k = CLI_OPT_ENG_I64; k <= CLI_OPT_ENG_OFF; k++)
        assert_true(kinds[k] > 0);
    /* through the command line: the loop's fields reach the run's report */
    run("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 10 --engine vllm --block-size 32 "
        "--format json");
    assert_int_equal(R.rc, 0);
    assert_near(out_num("block_size"), 32, 0);
    expect_bad("serve --model llama-3.1-8b --hw h100-sxm --num-prompts 10 --enable-prefix-caching "
               "--no-enable-prefix-caching",
               "--enable-prefix-caching and --no-enable-prefix-caching: contradict each other");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_engine_profiles),
        cmocka_unit_test(test_engine_device_rules),
        cmocka_unit_test(test_engine_versions),
        cmocka_unit_test(test_frontend_flags),
        cmocka_unit_test(test_long_context_no_evict),
        cmocka_unit_test(test_prefix_repetition_and_model_len),
        cmocka_unit_test(test_kv_offload_and_sessions),
        cmocka_unit_test(test_session_bands_on_a_prefix),
        cmocka_unit_test(test_engine_picks_allreduce),
        cmocka_unit_test(test_engine_length_limits),
        cmocka_unit_test(test_vllm_command_line),
        cmocka_unit_test(test_engine_override_column),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
