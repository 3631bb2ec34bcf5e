/* test_hardening.c - hostile inputs and outputs through the command line, in process: outputs
 * that never clobber, bounded lines, empty data, escaped messages, refused repeats. */
#include "testutil.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include "cli.h"

typedef struct result {
    int rc;
    char *out, *err;
    size_t out_len, err_len;
} result;

static result R;

/* Runs sim_cli_main on the space-separated words of the formatted command line. */
static void cli(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void cli(const char *fmt, ...)
{
    static char line[65536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    char *argv[64] = {"infersim"};
    int argc = 1;
    for (char *w = strtok(line, " "); w && argc < 63; w = strtok(NULL, " "))
        argv[argc++] = w;
    free(R.out);
    free(R.err);
    FILE *out = open_memstream(&R.out, &R.out_len);
    FILE *err = open_memstream(&R.err, &R.err_len);
    assert_non_null(out);
    assert_non_null(err);
    R.rc = sim_cli_main(argc, argv, out, err);
    fclose(out);
    fclose(err);
}

/* Exit 2 with one line on stderr that contains `want`, and nothing on stdout. */
static void expect_input_error(const char *want)
{
    if (R.rc != 2 || !strstr(R.err, want) || R.out_len != 0 ||
        strchr(R.err, '\n') != R.err + R.err_len - 1) {
        print_error("rc %d, stdout '%s', stderr '%s'; expected exit 2 with '%s'\n", R.rc, R.out,
                    R.err, want);
        fail();
    }
}

static char *tmpf(const char *name)
{
    static char buf[4][160];
    static int k;
    char *b = buf[k++ % 4];
    tu_snprintf(b, 160, "%s/infersim-hard-%d-%s", tu_tmpdir(), (int)getpid(), name);
    return b;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

#define MODEL_HW "--model %s/models/llama-3.2-1b.json --hw %s/hw/h100-sxm.json"
#define ROOT2 tu_root(), tu_root()

static bool is_chr(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISCHR(sb.st_mode);
}

/* Defect 1 end to end: a device is written through and its error reaches the user. */
static void test_output_to_full_device(void **state)
{
    (void)state;
    cli("serve " MODEL_HW " --num-prompts 3 --save-requests /dev/full", ROOT2);
    expect_input_error("--save-requests: writing /dev/full failed: No space left on device");
    assert_true(is_chr("/dev/full"));
    cli("serve " MODEL_HW " --num-prompts 3 --chrome-trace /dev/null", ROOT2);
    assert_int_equal(R.rc, 0);
    assert_true(is_chr("/dev/null"));
    /* calibrate writes its file before it reports: a failed write prints no report */
    cli("calibrate --hw %s/hw/h100-sxm.json --data %s/tools/data/validation.csv --out /dev/full",
        ROOT2);
    expect_input_error("--out: writing /dev/full failed: No space left on device");
}

/* Defect 6: two outputs on one path. */
static void test_two_outputs_one_path(void **state)
{
    (void)state;
    char *a = tmpf("both.out"), *link = tmpf("both.link");
    remove(a);
    cli("serve " MODEL_HW " --num-prompts 3 --save-requests %s --chrome-trace %s", ROOT2, a, a);
    expect_input_error("--save-requests and --chrome-trace: both name");
    assert_int_equal(access(a, F_OK), -1);
    assert_int_equal(symlink(a, link), 0);
    cli("serve " MODEL_HW " --num-prompts 3 --save-requests %s --chrome-trace %s", ROOT2, link, a);
    expect_input_error("expected two different files");
    cli("run " MODEL_HW " --chrome-trace %s --html %s", ROOT2, a, link);
    expect_input_error("--chrome-trace and --html: both name");
    cli("sweep run " MODEL_HW " --tp 1,2 --out %s --html %s", ROOT2, link, a);
    expect_input_error("--out and --html: both name");
    assert_int_equal(access(a, F_OK), -1);
    remove(link);
}

/* Defect 3: a line is capped at 1 MiB; /dev/zero is refused after reading a little of it. */
static void test_line_cap(void **state)
{
    (void)state;
    char *big = tmpf("long.csv");
    FILE *f = fopen(big, "w");
    assert_non_null(f);
    for (int i = 0; i < (1 << 20) + 10; i++) /* one line of 1 MiB + 10 bytes */
        fputc('1', f);
    fputs("\n0,5,5\n", f);
    fclose(f);
    cli("serve " MODEL_HW " --trace %s", ROOT2, big);
    expect_input_error(":1: line longer than 1048576 bytes (1 MiB)");
    cli("validate --data %s", big);
    expect_input_error(":1: line longer than 1048576 bytes");
    cli("merge %s", big);
    expect_input_error(":1: line longer than 1048576 bytes");
    remove(big);
    cli("serve " MODEL_HW " --trace /dev/zero", ROOT2);
    expect_input_error("/dev/zero:1: a NUL byte at column 1, expected a text file");
    cli("validate --data /dev/zero");
    expect_input_error("/dev/zero:1: a NUL byte");
    cli("calibrate --hw h100-sxm --data /dev/zero");
    expect_input_error("/dev/zero:1: a NUL byte");
    cli("merge /dev/zero");
    expect_input_error("/dev/zero:1: a NUL byte");
}

/* Defect 4: no rows is not a passing accuracy gate. */
static void test_empty_data(void **state)
{
    (void)state;
    cli("validate --data /dev/null --max-op-median 1");
    expect_input_error("/dev/null: empty, expected the validation CSV header and rows");
    cli("validate --data /tmp");
    expect_input_error("/tmp: is a directory, expected a text file");
    char *hdr = tmpf("header.csv");
    char data[1024];
    snprintf(data, sizeof data, "%s/tools/data/validation.csv", tu_root());
    FILE *in = fopen(data, "r");
    assert_non_null(in);
    char line[4096];
    assert_non_null(fgets(line, sizeof line, in));
    fclose(in);
    write_file(hdr, line);
    cli("validate --data %s", hdr);
    expect_input_error("no rows after the header, expected measurements");
    cli("calibrate --hw h100-sxm --data %s", hdr);
    expect_input_error("no rows after the header");
    remove(hdr);
}

/* Defect 5: merge of nothing, trace-check of a trace without slices. */
static void test_merge_and_check_of_nothing(void **state)
{
    (void)state;
    cli("merge /tmp");
    expect_input_error("/tmp: is a directory");
    char *empty = tmpf("empty.csv"), *hdr = tmpf("hdr.csv"), *out = tmpf("merged.csv");
    write_file(empty, "");
    cli("merge --out %s %s", out, empty);
    expect_input_error("empty, expected a CSV shard written by sweep --shard");
    write_file(hdr, "point,tp,ttft_ms\n");
    cli("merge --out %s %s %s", out, hdr, hdr);
    expect_input_error("merge: the shards hold no rows");
    assert_int_equal(access(out, F_OK), -1);
    /* merge copied a shard's NaN or inf into its output with exit 0 (found by the audit of the
     * README's output promises); a grid column's `inf` (an unbounded request rate) stays */
    static const char *const bad[] = {"0,1,nan\n", "0,1,1e999\n", "0,1,-inf\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[64];
        snprintf(text, sizeof text, "point,request-rate,ttft_ms\n%s", bad[i]);
        write_file(hdr, text);
        cli("merge --out %s %s", out, hdr);
        expect_input_error("is not a finite number, expected sweep output");
        assert_int_equal(access(out, F_OK), -1);
    }
    write_file(hdr, "point,request-rate,ttft_ms\n0,inf,2.5\n");
    cli("merge --out %s %s", out, hdr);
    assert_int_equal(R.rc, 0);
    remove(out);
    write_file(hdr, "{\"point\":0,\"request-rate\":\"inf\",\"ttft_ms\":NaN}\n");
    char jl[256];
    tu_snprintf(jl, sizeof jl, "%s.jsonl", hdr);
    assert_int_equal(rename(hdr, jl), 0);
    cli("merge %s", jl);
    expect_input_error("value 'NaN' is not a finite number");
    remove(jl);
    char *tr = tmpf("noslices.json");
    write_file(tr, "{\"traceEvents\": [{\"ph\": \"M\", \"pid\": 1, \"name\": \"process_name\", "
                   "\"args\": {\"name\": \"p\"}}]}");
    cli("trace-check %s", tr);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "ok: 1 events (0 slices on 0 tracks"));
    remove(empty);
    remove(hdr);
    remove(tr);
}

/* Defect 7: raw bytes of a bad file are escaped in the message. */
static void test_binary_bytes_escaped(void **state)
{
    (void)state;
    char *bin = tmpf("binary.csv");
    write_file(bin, "\x1b[31mred\x07\xff\xc3\xa9,x\n");
    cli("serve " MODEL_HW " --trace %s", ROOT2, bin);
    expect_input_error("first line '\\x1b[31mred\\x07\\xff\xc3\xa9'");
    for (size_t i = 0; i < R.err_len; i++)
        assert_true((unsigned char)R.err[i] >= 0x20 || R.err[i] == '\n');
    remove(bin);
    cli("\x1b[2J");
    assert_int_equal(R.rc, 2);
    assert_non_null(strstr(R.err, "unknown command '\\x1b[2J'"));
}

/* Defect 8, the smaller ones. */
static void test_compare_tiny_measurement(void **state)
{
    (void)state;
    char *res = tmpf("tiny.json");
    write_file(res, "{\"ttft_ms\": 1e-320, \"tpot_ms\": 5}");
    cli("compare --result %s " MODEL_HW, res, ROOT2);
    expect_input_error("field 'ttft_ms' is 9.9998886718268301e-321, expected 0 (not measured) or "
                       "a number in [1e-06, 1e+15]");
    remove(res);
    /* and in the validation CSV */
    char *csv = tmpf("tiny.csv");
    char data[1024], line[4096], hdr[4096];
    snprintf(data, sizeof data, "%s/tools/data/validation.csv", tu_root());
    FILE *in = fopen(data, "r");
    assert_non_null(in);
    assert_non_null(fgets(hdr, sizeof hdr, in));
    assert_non_null(fgets(line, sizeof line, in));
    fclose(in);
    char *v = strstr(line, ",e2e_s,0.897,");
    assert_non_null(v);
    FILE *f = fopen(csv, "w");
    assert_non_null(f);
    fprintf(f, "%s%.*s,e2e_s,1e-300,%s", hdr, (int)(v - line), line, v + strlen(",e2e_s,0.897,"));
    fclose(f);
    cli("validate --data %s", csv);
    expect_input_error(":2: field 'value' is '1e-300', expected a number >= 1e-06");
    remove(csv);
}

static void test_trace_check_names_pid(void **state)
{
    (void)state;
    char *tr = tmpf("pid7.json");
    write_file(tr, "{\"traceEvents\": [{\"ph\": \"i\", \"pid\": 7, \"name\": \"x\", \"ts\": 1}]}");
    cli("trace-check %s", tr);
    expect_input_error(": pid 7 has no process_name metadata");
    remove(tr);
}

/* trace-check streams the file: the event array is read one event at a time, and the file is
 * still checked whole (duplicate keys, anything after the object, an empty array). */
static void test_trace_check_streams(void **state)
{
    (void)state;
    char *tr = tmpf("stream.json");
    write_file(tr, "{\"otherData\": {\"a\": [1, {\"b\": \"]}\\\"\"}]}, \"traceEvents\": [ ] }\n");
    cli("trace-check %s", tr);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "ok: 0 events"));
    write_file(tr, "{\"traceEvents\": []} x");
    cli("trace-check %s", tr);
    expect_input_error("data after the JSON object near byte 20");
    write_file(tr, "{\"traceEvents\": [], \"traceEvents\": []}");
    cli("trace-check %s", tr);
    expect_input_error("key \"traceEvents\" appears twice");
    write_file(tr, "{\"traceEvents\": [{\"ph\": \"i\", \"ph\": \"X\"}]}");
    cli("trace-check %s", tr);
    expect_input_error("key \"ph\" appears twice");
    write_file(tr, "{\"traceEvents\": [{\"ph\": \"M\", \"pid\": 1, \"name\": \"process_name\", "
                   "\"args\": {\"name\": \"p\"}} {}]}");
    cli("trace-check %s", tr);
    expect_input_error("malformed JSON near byte");
    write_file(tr, "{\"traceEvents\": {}}");
    cli("trace-check %s", tr);
    expect_input_error("no traceEvents array");
    write_file(tr, "");
    cli("trace-check %s", tr);
    expect_input_error("empty, expected a JSON object");
    remove(tr);
    cli("trace-check /tmp");
    expect_input_error("/tmp: is a directory");
}

static void test_directory_as_json(void **state)
{
    (void)state;
    /* (a model directory holds a config.json; a device is a file) */
    cli("run --model llama-3.2-1b --hw %s/models", tu_root());
    expect_input_error("/models: is a directory, expected a JSON file");
}

static void test_request_rate_bound_named(void **state)
{
    (void)state;
    cli("serve " MODEL_HW " --request-rate 1e10", ROOT2);
    expect_input_error("--request-rate: value '1e10', expected a number in (0, 1e+09] or inf");
}

static void test_mooncake_strict(void **state)
{
    (void)state;
    char *t = tmpf("moon.jsonl");
    write_file(t, "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 5} garbage\n");
    cli("serve " MODEL_HW " --trace %s", ROOT2, t);
    expect_input_error(":1: malformed JSON near column 58, expected one JSON object per line");
    write_file(t, "{\"timestamp\": 0, \"input_length\": 10, \"input_length\": 99, "
                  "\"output_length\": 5}\n");
    cli("serve " MODEL_HW " --trace %s", ROOT2, t);
    expect_input_error(":1: key \"input_length\" appears twice in one object");
    remove(t);
    /* and in a config file */
    char *m = tmpf("dup-model.json");
    write_file(m, "{\"hidden_size\": 4096, \"hidden_size\": 8}");
    cli("run --model %s --hw h100-sxm", m);
    expect_input_error("key \"hidden_size\" appears twice in one object");
    remove(m);
}

static void test_csv_bom_accepted(void **state)
{
    (void)state;
    char *t = tmpf("bom.csv");
    write_file(t, "\xef\xbb\xbf"
                  "arrival_s,input_tokens,output_tokens\n0,10,10\n0.5,20,4\n");
    cli("serve " MODEL_HW " --trace %s --format json", ROOT2, t);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "\"completed\":\t2"));
    remove(t);
}

static void test_repeated_flag_refused(void **state)
{
    (void)state;
    cli("run " MODEL_HW " --tp 1 --tp 2", ROOT2);
    expect_input_error("--tp: given twice, expected once");
    cli("serve " MODEL_HW " --num-prompts=2 --num-prompts 3", ROOT2);
    expect_input_error("--num-prompts: given twice, expected once");
    cli("merge --out a.csv --out b.csv x.csv");
    expect_input_error("--out: given twice, expected once");
    cli("compare --result a.json --result=b.json " MODEL_HW, ROOT2);
    expect_input_error("--result: given twice, expected once");
}

/* Issue 33 D1: an fp16 checkpoint with fp8 weights and activations on Gaudi 3 printed TTFT inf
 * with exit 0 (serve clamped the step to 1 ns, a sweep ranked it best): attention and the LM head
 * compute in the checkpoint's fp16, which the device has no peak for. Every command refuses it. */
static void test_unsupported_compute_format_refused(void **state)
{
    (void)state;
    static const char *const cmds[] = {"run", "roofline", "serve --num-prompts 2"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        cli("%s --model %s/models/llama-2-7b.json --hw %s/hw/gaudi3.json --weight-dtype fp8 "
            "--kv-cache-dtype fp8",
            cmds[i], ROOT2);
        expect_input_error("leaves attention and the LM head in fp16");
    }
    cli("run --model %s/models/llama-2-13b.json --hw %s/hw/tpu-v5e.json --weight-dtype int8 "
        "--act-dtype int8 --kv-cache-dtype bf16",
        ROOT2);
    expect_input_error("hw/tpu-v5e.json has no dense_tflops.fp16");
    /* a draft model's own 16-bit format too (mistral-7b is bf16, its llama-2-7b draft fp16) */
    cli("run --model %s/models/mistral-7b.json --hw %s/hw/gaudi3.json --weight-dtype fp8 "
        "--spec-method draft --spec-model %s/models/llama-2-7b.json --num-speculative-tokens 3 "
        "--spec-acceptance-rate 0.7",
        tu_root(), tu_root(), tu_root());
    expect_input_error("--spec-model (runs at the target's --tp): --act-dtype: value fp8 leaves "
                       "attention and the LM head in fp16");
    /* a sweep reports the point as an error, never as a number */
    cli("sweep run --model %s/models/llama-2-7b.json --hw %s/hw/gaudi3.json --weight-dtype fp8 "
        "--kv-cache-dtype fp8 --batch 1,2 --format csv",
        ROOT2);
    assert_int_equal(R.rc, 0);
    assert_null(strstr(R.out, "inf"));
    assert_non_null(strstr(R.out, "leaves attention and the LM head in fp16"));
    /* with 16-bit activations the device computes, the run is priced, finitely */
    cli("run --model %s/models/llama-2-7b.json --hw %s/hw/gaudi3.json --weight-dtype fp8 "
        "--act-dtype bf16 --kv-cache-dtype fp8 --format json",
        ROOT2);
    assert_int_equal(R.rc, 0);
    assert_null(strstr(R.out, "inf"));
    assert_null(strstr(R.out, "nan"));
}

/* Launches "$INFERSIM_BIN <args> <redirect>" through the shell (a process: main.c's standard
 * output is what is tested) and keeps its exit status in R.rc and its stderr in R.err. */
static void process(const char *args, const char *redirect)
{
    const char *bin = getenv("INFERSIM_BIN");
    assert_non_null(bin);
    char cmd[4096];
    const char *errpath = tmpf("proc.err");
    tu_snprintf(cmd, sizeof cmd, "'%s' %s %s 2>'%s'", bin, args, redirect, errpath);
    int status = system(cmd);
    R.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    free(R.err);
    FILE *e = fopen(errpath, "r");
    assert_non_null(e);
    R.err = calloc(1, 1 << 16);
    assert_non_null(R.err);
    R.err_len = fread(R.err, 1, (1 << 16) - 1, e);
    fclose(e);
    remove(errpath);
}

/* Issue 33 D2: a result written to a full disk or a closed stdout exited 0 with nothing written
 * (small results, left in stdio's buffer) or 1 without the reason (large ones). Each is exit 2
 * with the system's reason, on one line. */
static void test_failed_stdout_is_exit_2(void **state)
{
    (void)state;
    if (!is_chr("/dev/full"))
        skip();
    char args[1024];
    static const char *const cmds[] = {"run --format json", "run", "--help",
                                       "serve --num-prompts 200 --format json"};
    static const struct {
        const char *redirect, *reason;
    } outs[] = {{">/dev/full", "standard output: writing failed: No space left on device"},
                {">&-", "standard output: writing failed: Bad file descriptor"}};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        for (size_t j = 0; j < sizeof outs / sizeof outs[0]; j++) {
            tu_snprintf(args, sizeof args, "%s%s", cmds[i],
                        strcmp(cmds[i], "--help") == 0 ? "" : " " MODEL_HW);
            char full[1200];
            tu_snprintf(full, sizeof full, args, ROOT2);
            process(full, outs[j].redirect);
            if (R.rc != 2 || !strstr(R.err, outs[j].reason) ||
                strchr(R.err, '\n') != R.err + R.err_len - 1) {
                print_error("%s %s: rc %d, stderr '%s'\n", full, outs[j].redirect, R.rc, R.err);
                fail();
            }
        }
    /* with stdout closed, the file a sweep opens for --out does not take stdout's number: the
     * summary meant for stdout fails, and never lands in the rows' file */
    char out[256], full[1200];
    tu_snprintf(out, sizeof out, "%s", tmpf("closed.csv"));
    tu_snprintf(full, sizeof full, "sweep run " MODEL_HW " --batch 1,2 --out %s", ROOT2, out);
    process(full, ">&-");
    assert_int_equal(R.rc, 2);
    FILE *f = fopen(out, "r");
    if (f) {
        char buf[4096];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = '\0';
        fclose(f);
        assert_null(strstr(buf, "Pareto"));
        remove(out);
    }
}

static bool exists(const char *path) { return access(path, F_OK) == 0; }

/* Issue 33 D7: a command with several outputs that failed on a later one left the ones it had
 * committed first. Outputs are staged and published together: none appear when any fails (here
 * the last, written to a full device), and no temporary is left. */
static void test_outputs_all_or_none(void **state)
{
    (void)state;
    if (!is_chr("/dev/full"))
        skip();
    const char *req = tmpf("d7-requests.csv"), *trace = tmpf("d7-trace.json");
    const char *rows = tmpf("d7-rows.csv");
    cli("serve " MODEL_HW " --num-prompts 3 --save-requests %s --chrome-trace %s --html /dev/full",
        ROOT2, req, trace);
    expect_input_error("--html: writing /dev/full failed: No space left on device");
    cli("run " MODEL_HW " --chrome-trace %s --html /dev/full", ROOT2, trace);
    expect_input_error("--html: writing /dev/full failed");
    cli("sweep run " MODEL_HW " --batch 1,2 --html %s --out /dev/full", ROOT2, rows);
    assert_int_equal(R.rc, 2);
    assert_non_null(strstr(R.err, "--out: writing /dev/full failed"));
    const char *all[] = {req, trace, rows};
    for (size_t i = 0; i < 3; i++) {
        assert_false(exists(all[i]));
        assert_int_equal(tu_temporaries(all[i]), 0);
    }
    /* a file already there stays as it was */
    write_file(req, "mine\n");
    cli("serve " MODEL_HW " --num-prompts 3 --save-requests %s --html /dev/full", ROOT2, req);
    assert_int_equal(R.rc, 2);
    FILE *f = fopen(req, "r");
    assert_non_null(f);
    char line[16] = "";
    assert_non_null(fgets(line, sizeof line, f));
    fclose(f);
    assert_string_equal(line, "mine\n");
    assert_int_equal(tu_temporaries(req), 0);
    /* vLLM's --save-result file, named only while serve runs, was committed inside the command:
     * a standard output that then failed left it alone published. It is staged with the others:
     * a failed stdout leaves neither (a process: stdout is /dev/full) */
    char res[256], reqs[256], full[1200]; /* copies: process() takes a tmpf buffer of its own */
    tu_snprintf(res, sizeof res, "%s", tmpf("d7-result.json"));
    tu_snprintf(reqs, sizeof reqs, "%s", req);
    req = reqs;
    tu_snprintf(full, sizeof full,
                "serve " MODEL_HW " --num-prompts 3 --save-requests %s --save-result "
                "--result-filename %s",
                ROOT2, req, res);
    remove(req);
    process(full, ">/dev/full");
    assert_int_equal(R.rc, 2);
    assert_false(exists(req) || exists(res));
    assert_int_equal(tu_temporaries(req) + tu_temporaries(res), 0);
    process(full, ">/dev/null");
    assert_int_equal(R.rc, 0);
    assert_true(exists(req) && exists(res));
    assert_int_equal(tu_temporaries(res), 0);
    remove(res);
    /* validate's --uncertainty-out was committed inside the command too: a failed standard
     * output left it published */
    char unc[256], data[1200];
    tu_snprintf(unc, sizeof unc, "%s", tmpf("d7-unc.csv"));
    tu_snprintf(data, sizeof data, "validate --data %s/tests/fuzz/seeds/validation/ops.csv "
                "--coverage-draws 0 --uncertainty-out %s", tu_root(), unc);
    process(data, ">/dev/full");
    assert_int_equal(R.rc, 2);
    assert_false(exists(unc));
    assert_int_equal(tu_temporaries(unc), 0);
    process(data, ">/dev/null");
    assert_int_equal(R.rc, 0);
    assert_true(exists(unc));
    remove(unc);
    /* a sweep printed its summary after publishing its rows: a standard output that could not
     * take it left the rows' file */
    char swp[256], sweep[1200];
    tu_snprintf(swp, sizeof swp, "%s", tmpf("d7-sweep.csv"));
    tu_snprintf(sweep, sizeof sweep, "sweep run --model %s/models/llama-3.2-1b.json --hw "
                "%s/hw/h100-sxm.json --batch 1,2 --out %s", tu_root(), tu_root(), swp);
    process(sweep, ">/dev/full");
    assert_int_equal(R.rc, 2);
    assert_false(exists(swp));
    assert_int_equal(tu_temporaries(swp), 0);
    /* and when every output is written, every one appears */
    cli("serve " MODEL_HW " --num-prompts 3 --save-requests %s --chrome-trace %s", ROOT2, req,
        trace);
    assert_int_equal(R.rc, 0);
    assert_true(exists(req) && exists(trace));
    assert_int_equal(tu_temporaries(req) + tu_temporaries(trace), 0);
    remove(req);
    remove(trace);
}

/* Issue 33 D11: `-` was standard output for --out but a file named `-` for --html,
 * --chrome-trace and --save-requests. It is standard output for each, which then holds that file
 * alone (the command's report goes to stderr); no file named `-` appears. */
static void test_dash_is_stdout_everywhere(void **state)
{
    (void)state;
    cli("run " MODEL_HW " --html -", ROOT2);
    assert_int_equal(R.rc, 0);
    assert_true(strncmp(R.out, "<!DOCTYPE html>", 15) == 0);
    assert_non_null(strstr(R.err, "TTFT"));
    cli("run " MODEL_HW " --output-len 4 --chrome-trace -", ROOT2);
    assert_int_equal(R.rc, 0);
    assert_true(strncmp(R.out, "{\"displayTimeUnit\"", 18) == 0);
    assert_null(strstr(R.out, "TTFT"));
    cli("serve " MODEL_HW " --num-prompts 3 --save-requests - --format json", ROOT2);
    assert_int_equal(R.rc, 0);
    assert_true(strncmp(R.out, "request,trace_line,", 19) == 0);
    assert_non_null(strstr(R.err, "\"completed\""));
    cli("sweep run " MODEL_HW " --batch 1,2 --html - --out %s", ROOT2, tmpf("d11-rows.csv"));
    assert_int_equal(R.rc, 0);
    assert_true(strncmp(R.out, "<!DOCTYPE html>", 15) == 0);
    remove(tmpf("d11-rows.csv"));
    cli("sweep run " MODEL_HW " --batch 1,2 --html -", ROOT2);
    expect_input_error("--html: '-' is standard output, which holds the rows without --out");
    /* two outputs cannot both be standard output */
    cli("run " MODEL_HW " --html - --chrome-trace -", ROOT2);
    expect_input_error("both name -");
    assert_false(exists("-"));
}

/* Issue 33 N3: strtod read hexadecimal floats, so --overlap-comm 0x0.8p0 ran at 0.5; a weight
 * group size that does not divide a quantized GEMM's K was priced as if it did. Both are refused,
 * naming the flag and the value. */
static void test_hex_and_group_size_refused(void **state)
{
    (void)state;
    static const struct {
        const char *flags, *want;
    } hex[] = {
        {"run --overlap-comm 0x0.8p0", "--overlap-comm: value '0x0.8p0'"},
        {"run --usd-per-gpu-hour 0X2", "--usd-per-gpu-hour: value '0X2'"},
        {"serve --num-prompts 2 --request-rate 0x10", "--request-rate: value '0x10'"},
        {"serve --num-prompts 2 --goodput ttft:0x10", "--goodput: 'ttft:0x10'"},
        {"serve --num-prompts 2 --metric-percentiles 50,0x10", "--metric-percentiles: value"},
        {"run --batch 0x10", "--batch: value '0x10'"},
    };
    for (size_t i = 0; i < sizeof hex / sizeof hex[0]; i++) {
        cli("%s --model %s/models/llama-3.2-1b.json --hw %s/hw/h100-sxm.json", hex[i].flags,
            ROOT2);
        expect_input_error(hex[i].want);
    }
    /* a value flag followed by another flag lacks its value (issue 33 D13's tp=True) */
    cli("run " MODEL_HW " --tp --batch 2", ROOT2);
    expect_input_error("--tp: missing value");
    cli("sweep run " MODEL_HW " --tp --batch 2", ROOT2);
    expect_input_error("--tp: missing value");
    /* decimal spellings still parse */
    cli("run " MODEL_HW " --overlap-comm 5e-1 --usd-per-gpu-hour 2.", ROOT2);
    assert_int_equal(R.rc, 0);
    /* AWQ/GPTQ groups: 96 does not divide hidden 2048; 128 does; Llama-2-7B's 11008 / 4 = 2752
     * is not a whole number of 128-weight groups (vLLM refuses it at TP 4) */
    cli("run " MODEL_HW " --weight-dtype int4 --weight-group-size 96", ROOT2);
    expect_input_error("--weight-group-size: value 96 does not divide hidden_size");
    cli("run " MODEL_HW " --weight-dtype int4 --weight-group-size 128", ROOT2);
    assert_int_equal(R.rc, 0);
    cli("run --model %s/models/llama-2-7b.json --hw %s/hw/h100-sxm.json --weight-dtype int4 --tp 4",
        ROOT2);
    expect_input_error("does not divide intermediate_size per GPU (down_proj's K), 2752");
    /* per channel (0) and formats without groups take any shape */
    cli("run --model %s/models/llama-2-7b.json --hw %s/hw/h100-sxm.json --weight-dtype int4 --tp 4 "
        "--weight-group-size 0",
        ROOT2);
    assert_int_equal(R.rc, 0);
    cli("run --model %s/models/llama-2-7b.json --hw %s/hw/h100-sxm.json --weight-dtype fp8 --tp 4",
        ROOT2);
    assert_int_equal(R.rc, 0);
}

/* Issue 33 D12: run priced batches that serve refuses for the same engine (here TensorRT-LLM
 * without chunked prefill cannot prefill a 30,000-token prompt in its 8192-token budget). run
 * still prices the batch, and warns, naming the engine and serve's reason; an engine that admits
 * the batch gets no warning. */
static void test_run_warns_when_serve_refuses(void **state)
{
    (void)state;
    cli("run --model %s/models/llama-3.1-8b.json --hw %s/hw/h100-sxm.json --engine trtllm "
        "--input-len 30000 --output-len 16",
        ROOT2);
    assert_int_equal(R.rc, 0);
    assert_non_null(strstr(R.out, "TTFT"));
    assert_non_null(strstr(R.err, "warning: serve with --engine trtllm refuses 1 requests of "
                                  "30000 + 16 tokens"));
    assert_non_null(strstr(R.err, "--max-num-batched-tokens 8192"));
    cli("run --model %s/models/llama-3.1-8b.json --hw %s/hw/h100-sxm.json --engine vllm "
        "--input-len 30000 --output-len 16",
        ROOT2);
    assert_int_equal(R.rc, 0);
    assert_int_equal(R.err_len, 0);
}

/* Issue 33 D6: a sweep kept about 2 KB per point and serve about 160 bytes per request with no
 * cap: 1e8 points or 2.7e8 prompts ended in "out of memory" (exit 1) or the OOM killer. Above the
 * documented caps (SIM_SWEEP_MAX_POINTS per shard, SIM_WORKLOAD_MAX_REQUESTS) both are exit 2
 * naming the product, before anything is allocated for it; a shard under the cap runs. */
static void test_memory_caps(void **state)
{
    (void)state;
    /* 2048 x 1025 = 2,099,200 points, 2^21 + 2048: over the cap by one row of the grid */
    static char list_a[16384], list_b[8192];
    size_t n = 0;
    for (int i = 1; i <= 2048; i++)
        n += (size_t)snprintf(list_a + n, sizeof list_a - n, "%s%d", i > 1 ? "," : "", i);
    n = 0;
    for (int i = 1; i <= 1025; i++)
        n += (size_t)snprintf(list_b + n, sizeof list_b - n, "%s%d", i > 1 ? "," : "", i);
    cli("sweep run " MODEL_HW " --batch %s --input-len %s", ROOT2, list_a, list_b);
    expect_input_error("sweep: --batch 2048 x --input-len 1025 = 2099200 points");
    assert_non_null(strstr(R.err, "above the 2097152 points"));
    assert_non_null(strstr(R.err, "--shard I/N, N >= 2"));
    cli("serve " MODEL_HW " --num-prompts 100000000", ROOT2);
    expect_input_error("--num-prompts: value 100000000, expected 1..33554432");
    assert_non_null(strstr(R.err, "about 16.0 GB"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_output_to_full_device),
        cmocka_unit_test(test_two_outputs_one_path),
        cmocka_unit_test(test_line_cap),
        cmocka_unit_test(test_empty_data),
        cmocka_unit_test(test_merge_and_check_of_nothing),
        cmocka_unit_test(test_binary_bytes_escaped),
        cmocka_unit_test(test_compare_tiny_measurement),
        cmocka_unit_test(test_trace_check_names_pid),
        cmocka_unit_test(test_trace_check_streams),
        cmocka_unit_test(test_directory_as_json),
        cmocka_unit_test(test_request_rate_bound_named),
        cmocka_unit_test(test_mooncake_strict),
        cmocka_unit_test(test_csv_bom_accepted),
        cmocka_unit_test(test_repeated_flag_refused),
        cmocka_unit_test(test_unsupported_compute_format_refused),
        cmocka_unit_test(test_failed_stdout_is_exit_2),
        cmocka_unit_test(test_outputs_all_or_none),
        cmocka_unit_test(test_dash_is_stdout_everywhere),
        cmocka_unit_test(test_hex_and_group_size_refused),
        cmocka_unit_test(test_run_warns_when_serve_refuses),
        cmocka_unit_test(test_memory_caps),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    free(R.out);
    free(R.err);
    return rc;
}
