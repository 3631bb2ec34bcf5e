/* fuzz_step.c - the step-time predictor (include/infersim_step.h) on arbitrary batches and flags.
 * Byte 0 picks what the rest is: below 0x80, a batch (24 bytes a sequence, infersim_step_seq's
 * layout) priced on one of three deployments opened once (byte 0 mod 3: dense TP 1; 70B over
 * TP 2 x PP 2 with the band; MoE under EP 4 with DP attention); from 0x80, NUL-separated flags
 * for infersim_step_open. Every answer is a code and, on failure, one line; a priced step is
 * finite and positive and its split adds up. Seeds: tests/fuzz/seeds/step/. */
#include "fuzz_util.h"

#include <math.h>
#include <string.h>

#include "infersim_step.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static infersim_step *deployment(int k)
{
    static infersim_step *h[3]; /* opened once per process: what a simulator holds */
    static const char *const dense[] = {"--model", "llama-3.2-1b", "--hw", "h100-sxm",
                                        "--max-model-len", "4096", "--uncertainty", "0"};
    static const char *const pp[] = {"--model", "llama-3.1-70b", "--hw", "h100-sxm", "--tp",
                                     "2", "--pp", "2", "--uncertainty", "4"};
    static const char *const moe[] = {"--model", "qwen3-30b-a3b", "--hw", "h100-sxm",
                                      "--ep", "4", "--dp-attention", "--uncertainty", "0"};
    static const char *const *const argv[] = {dense, pp, moe};
    static const int argc[] = {8, 10, 9};
    char err[512];
    if (!h[k] && infersim_step_open(INFERSIM_STEP_ABI, argc[k], argv[k], &h[k], err, sizeof err))
        abort(); /* the shipped files always open */
    return h[k];
}

static void one_line(const char *err)
{
    if (strncmp(err, "infersim: ", 10) != 0 || strchr(err, '\n'))
        abort();
}

static void open_flags(const uint8_t *data, size_t size)
{
    char buf[4096];
    const char *argv[64];
    int argc = 0;
    size = size < sizeof buf - 1 ? size : sizeof buf - 1;
    memcpy(buf, data, size);
    buf[size] = '\0';
    for (size_t i = 0; i <= size && argc < 64;) {
        argv[argc++] = buf + i;
        i += strlen(buf + i) + 1;
    }
    char err[512] = "";
    infersim_step *h = NULL;
    infersim_step_status st = infersim_step_open(INFERSIM_STEP_ABI, argc, argv, &h, err,
                                                 sizeof err);
    if (st != INFERSIM_STEP_OK) {
        one_line(err);
        if (h)
            abort();
        return;
    }
    infersim_step_seq s = {1, 10, INFERSIM_SEQ_DECODE, 0};
    infersim_step_time t;
    if (infersim_step_price(h, &s, 1, &t, err, sizeof err) == INFERSIM_STEP_OK &&
        !(isfinite(t.step_us) && t.step_us > 0.0))
        abort();
    infersim_step_close(h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    if (data[0] >= 0x80) {
        open_flags(data + 1, size - 1);
        return 0;
    }
    infersim_step *h = deployment(data[0] % 3);
    infersim_step_seq seqs[256];
    size_t n = (size - 1) / sizeof seqs[0];
    n = n < 256 ? n : 256;
    memcpy(seqs, data + 1, n * sizeof seqs[0]);
    infersim_step_time t, before;
    memset(&t, 0x5a, sizeof t);
    before = t;
    char err[512] = "";
    infersim_step_status st = infersim_step_price(h, seqs, n, &t, err, sizeof err);
    if (st != INFERSIM_STEP_OK) {
        one_line(err);
        if (memcmp(&t, &before, sizeof t) != 0) /* a refused call leaves the result */
            abort();
        return 0;
    }
    const double sum = t.prefill_us + t.decode_us + t.comm_us;
    if (!(isfinite(t.step_us) && t.step_us > 0.0 && t.step_ns >= 1 && t.lo_us <= t.hi_us &&
          t.prefill_us >= 0.0 && t.decode_us >= 0.0 && t.comm_us >= 0.0 &&
          fabs(sum - t.step_us) <= 1e-9 * t.step_us))
        abort();
    return 0;
}
