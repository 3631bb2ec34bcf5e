/* cli_dropin_prep.c - TensorRT-LLM's synthetic dataset, as trtllm-bench reads it:
 *
 *   infersim python benchmarks/cpp/prepare_dataset.py --stdout --tokenizer M token-norm-dist
 *       --num-requests N --input-mean I --output-mean O [--input-stdev S --output-stdev S]
 *   infersim trtllm-bench --model M prepare-dataset --output FILE token-norm-dist ...
 *   (token-unif-dist: --input-min, --input-max, --output-min, --output-max; the docs' reference
 *   page spells them token_norm_dist, token_unif_dist)
 *
 * One JSON object a line, {"task_id": i, "input_ids": [...], "output_tokens": n}, the shape
 * benchmarks/cpp/prepare_dataset.py writes (its utils/prepare_synthetic_data.py: lengths drawn
 * from a normal distribution of the mean and stdev given, or uniform in [min, max]; token ids
 * random). The lengths here are drawn with infersim's own seeded generator (--random-seed, 420
 * as there), so they match the script's in distribution, not one by one; every length is at
 * least 1 token. The token ids are random in [0, 1000), valid for every tokenizer's
 * vocabulary; the file runs in trtllm-bench as in infersim. */
#define _POSIX_C_SOURCE 200809L
#include "cli_dropin.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"
#include "rng.h"

typedef struct prep_args {
    const char *output;
    bool to_stdout, norm, unif;
    int64_t n, seed;
    double in_mean, in_sd, out_mean, out_sd, in_min, in_max, out_min, out_max;
} prep_args;

static sim_status number(const char *flag, const char *v, double lo, double hi, double *out,
                         sim_err *err)
{
    char *end = (char *)v;
    errno = 0;
    double x = v && !strpbrk(v, "xX") ? strtod(v, &end) : NAN;
    if (!v || errno || end == v || *end || !isfinite(x) || x < lo || x > hi)
        return sim_fail(err, SIM_EINPUT, "%s: value '%s', expected a number in [%g, %g]", flag,
                        v ? v : "", lo, hi);
    *out = x;
    return SIM_OK;
}

bool cli_dropin_is_prepare(int argc, char **argv)
{
    if (argc >= 3 && !strncmp(argv[1], "python", 6) && strstr(argv[2], "prepare_dataset.py"))
        return true;
    for (int i = 2; argc >= 2 && !strcmp(argv[1], "trtllm-bench") && i < argc; i++)
        if (strcmp(argv[i], "prepare-dataset") == 0)
            return true;
    return false;
}

/* The flags, with the value that follows each. */
static sim_status parse(int argc, char **argv, prep_args *a, sim_err *err)
{
    /* trtllm-bench's own flags before prepare-dataset: --model, -m, --model_path, --workspace */
    static const char *const skip_value[] = {
        "--model",     "-m",          "--model_path", "--workspace", "-w",         "--tokenizer",
        "--log-level", "--log_level", "--task-id",    "--lora-dir",  "--revision", NULL};
    static const char *const skip_flag[] = {"--std-out", NULL};
    int first = strcmp(argv[1], "trtllm-bench") == 0 ? 2 : 3;
    for (int i = first; i < argc; i++) {
        const char *f = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        double x = 0;
        sim_status st = SIM_OK;
        bool taken = true;
        if (!strcmp(f, "prepare-dataset"))
            taken = false;
        else if (!strcmp(f, "token-norm-dist") || !strcmp(f, "token_norm_dist"))
            a->norm = true, taken = false;
        else if (!strcmp(f, "token-unif-dist") || !strcmp(f, "token_unif_dist"))
            a->unif = true, taken = false;
        else if (!strcmp(f, "dataset"))
            return sim_fail(err, SIM_EINPUT,
                            "prepare_dataset.py dataset: a Hugging Face dataset's prompts need "
                            "its tokenizer (infersim writes token-norm-dist and token-unif-dist)");
        else if (!strcmp(f, "--stdout"))
            a->to_stdout = true, taken = false;
        else if (!strcmp(f, "--output"))
            a->output = v;
        else if (!strcmp(f, "--num-requests"))
            st = number(f, v, 1, 1 << 25, &x, err), a->n = (int64_t)x;
        else if (!strcmp(f, "--random-seed"))
            st = number(f, v, 0, 1e15, &x, err), a->seed = (int64_t)x;
        else if (!strcmp(f, "--input-mean"))
            st = number(f, v, 1, 1 << 24, &a->in_mean, err);
        else if (!strcmp(f, "--input-stdev"))
            st = number(f, v, 0, 1 << 24, &a->in_sd, err);
        else if (!strcmp(f, "--output-mean"))
            st = number(f, v, 1, 1 << 24, &a->out_mean, err);
        else if (!strcmp(f, "--output-stdev"))
            st = number(f, v, 0, 1 << 24, &a->out_sd, err);
        else if (!strcmp(f, "--input-min"))
            st = number(f, v, 1, 1 << 24, &a->in_min, err);
        else if (!strcmp(f, "--input-max"))
            st = number(f, v, 1, 1 << 24, &a->in_max, err);
        else if (!strcmp(f, "--output-min"))
            st = number(f, v, 1, 1 << 24, &a->out_min, err);
        else if (!strcmp(f, "--output-max"))
            st = number(f, v, 1, 1 << 24, &a->out_max, err);
        else {
            bool known = false;
            for (int k = 0; skip_value[k]; k++)
                known |= !strcmp(f, skip_value[k]);
            for (int k = 0; skip_flag[k]; k++)
                if (!strcmp(f, skip_flag[k]))
                    known = true, taken = false;
            if (!known)
                return sim_fail(err, SIM_EINPUT,
                                "prepare_dataset: unknown argument '%s' (infersim writes "
                                "token-norm-dist and token-unif-dist datasets)",
                                f);
        }
        if (st)
            return st;
        if (taken && !v)
            return sim_fail(err, SIM_EINPUT, "%s: missing value", f);
        i += taken;
    }
    if (a->norm == a->unif)
        return sim_fail(err, SIM_EINPUT,
                        "prepare_dataset: expected token-norm-dist or token-unif-dist");
    if (a->n < 1)
        return sim_fail(err, SIM_EINPUT, "prepare_dataset: --num-requests: missing");
    if (a->norm && (a->in_mean < 1 || a->out_mean < 1))
        return sim_fail(err, SIM_EINPUT,
                        "token-norm-dist: --input-mean and --output-mean are required");
    if (a->unif &&
        (a->in_min < 1 || a->in_max < a->in_min || a->out_min < 1 || a->out_max < a->out_min))
        return sim_fail(err, SIM_EINPUT,
                        "token-unif-dist: expected 1 <= --input-min <= --input-max and 1 <= "
                        "--output-min <= --output-max");
    /* a bound on the text written: 2^32 prompt tokens (about 17 GB of ids) */
    double longest = a->norm ? a->in_mean + 6.0 * a->in_sd : a->in_max;
    if ((double)a->n * longest > 4294967296.0)
        return sim_fail(err, SIM_EINPUT,
                        "prepare_dataset: %lld requests of up to %.0f prompt tokens, expected at "
                        "most 2^32 tokens in all",
                        (long long)a->n, longest);
    return SIM_OK;
}

/* One length: normal(mean, sd) rounded, or uniform in [lo, hi]; at least 1. */
static int64_t draw(const prep_args *a, sim_rng *r, double mean, double sd, double lo, double hi)
{
    double x = a->norm ? round(mean + sd * sim_rng_normal(r))
                       : (double)sim_rng_int(r, (int64_t)lo, (int64_t)hi);
    return x < 1 ? 1 : (int64_t)x;
}

/* The dataset's lines to f. */
static void write_lines(const prep_args *a, FILE *f)
{
    sim_rng r;
    sim_rng_seed(&r, (uint64_t)a->seed);
    for (int64_t i = 0; i < a->n; i++) {
        int64_t in = draw(a, &r, a->in_mean, a->in_sd, a->in_min, a->in_max);
        int64_t o = draw(a, &r, a->out_mean, a->out_sd, a->out_min, a->out_max);
        fprintf(f, "{\"task_id\":%lld,\"input_ids\":[", (long long)i);
        for (int64_t k = 0; k < in; k++)
            fprintf(f, "%s%lld", k ? "," : "", (long long)sim_rng_int(&r, 0, 999));
        fprintf(f, "],\"output_tokens\":%lld}\n", (long long)o);
    }
}

sim_status cli_dropin_prepare(int argc, char **argv, FILE *out, sim_err *err)
{
    prep_args a = {.seed = 420};
    sim_status st = parse(argc, argv, &a, err);
    if (st)
        return st;
    if (!a.output || strcmp(a.output, "-") == 0) {
        write_lines(&a, out);
        return SIM_OK;
    }
    /* trtllm-bench prepare-dataset --output FILE: the file whole or not at all (outfile.h) */
    sim_outfile f;
    if ((st = sim_outfile_open(&f, a.output, "--output", err)))
        return st;
    write_lines(&a, f.f);
    return sim_outfile_commit(&f, err);
}
