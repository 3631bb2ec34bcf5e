/* engprof_version.c - engine releases and profiles' version ranges: parsing, comparing, and the
 * choice of the profile that --engine NAME@VERSION names (engprof.h); and the rule that every
 * field of a profile names its source, which the loader (engprof.c) calls for its fields as this
 * file does for the releases', so that this file calls none of engprof.c. */
#include "engprof.h"
#include "engprof_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "jsonf.h"
#include "suggest.h"

#define PART_MAX 999999

/* Every field needs a string in "sources" saying where its value comes from. */
sim_status sim_engprof_need_source(const cJSON *root, const char *path, const char *field,
                                   sim_err *err)
{
    const cJSON *src =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "sources"), field);
    if (!cJSON_IsString(src) || !src->valuestring[0])
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'sources.%s' is missing, expected a string saying where the "
                        "default comes from (engine docs, source file, release notes)",
                        path, field);
    return SIM_OK;
}

/* The numbers of a release at s; *end after the last one. False when s does not start with a
 * digit or a part is too large. */
static bool parse_parts(const char *s, sim_engprof_version *v, const char **end)
{
    memset(v, 0, sizeof *v);
    if (!isdigit((unsigned char)*s))
        return false;
    int k = 0;
    for (;;) {
        int64_t x = 0;
        while (isdigit((unsigned char)*s)) {
            x = x * 10 + (*s++ - '0');
            if (x > PART_MAX)
                return false;
        }
        v->part[k++] = x;
        /* a dot followed by a digit starts the next part; anything else ends the numbers */
        if (k == 4 || s[0] != '.' || !isdigit((unsigned char)s[1]))
            break;
        s++;
    }
    *end = s;
    return true;
}

bool sim_engprof_version_parse(const char *s, sim_engprof_version *v)
{
    const char *end;
    return s && parse_parts(s, v, &end);
}

int sim_engprof_version_cmp(const sim_engprof_version *a, const sim_engprof_version *b)
{
    for (int i = 0; i < 4; i++)
        if (a->part[i] != b->part[i])
            return a->part[i] < b->part[i] ? -1 : 1;
    return 0;
}

static const char *const range_ops[] = {">=", "<=", "==", ">", "<"}; /* two-character ones first */

sim_status sim_engprof_range_parse(const char *s, const char *path, sim_engprof_range *r,
                                   sim_err *err)
{
    memset(r, 0, sizeof *r);
    const char *p = s;
    for (;;) {
        while (*p == ' ')
            p++;
        size_t o = 0;
        while (o < sizeof range_ops / sizeof range_ops[0] &&
               strncmp(p, range_ops[o], strlen(range_ops[o])) != 0)
            o++;
        const char *end = p;
        if (o < sizeof range_ops / sizeof range_ops[0] && r->n < SIM_ENGPROF_MAX_BOUNDS) {
            p += strlen(range_ops[o]);
            while (*p == ' ')
                p++;
            if (parse_parts(p, &r->v[r->n], &end)) {
                snprintf(r->op[r->n], sizeof r->op[r->n], "%s", range_ops[o]);
                r->n++;
                while (*end == ' ')
                    end++;
            } else {
                end = p;
            }
        }
        if (end == p || (*end && *end != ','))
            return sim_fail(err, SIM_EINPUT,
                            "%s: field 'versions' is \"%s\", expected 1 to %d comparators joined "
                            "by commas, each >=, >, <=, < or == and a release of whole numbers "
                            "(\">=0.10,<0.12\")",
                            path, s, SIM_ENGPROF_MAX_BOUNDS);
        if (!*end)
            return SIM_OK;
        p = end + 1;
    }
}

bool sim_engprof_range_holds(const sim_engprof_range *r, const sim_engprof_version *v)
{
    for (int i = 0; i < r->n; i++) {
        int c = sim_engprof_version_cmp(v, &r->v[i]);
        const char *op = r->op[i];
        bool ok = strcmp(op, ">=") == 0   ? c >= 0
                  : strcmp(op, ">") == 0  ? c > 0
                  : strcmp(op, "<=") == 0 ? c <= 0
                  : strcmp(op, "<") == 0  ? c < 0
                                          : c == 0;
        if (!ok)
            return false;
    }
    return r->n > 0;
}

static bool has_ci(const char *hay, const char *needle)
{
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, strlen(needle)) == 0)
            return true;
    return false;
}

sim_engprof_platform sim_engprof_device_platform(const sim_hw *hw)
{
    return strncmp(hw->arch, "cdna", 4) == 0 || has_ci(hw->name, "AMD") ||
                   has_ci(hw->name, "Instinct")
               ? SIM_ENGPROF_ROCM
               : SIM_ENGPROF_CUDA;
}

const char *sim_engprof_platform_name(sim_engprof_platform p)
{
    static const char *const names[] = {"any", "cuda", "rocm"};
    return names[p];
}

/* The lowest release a range holds by its lower bounds (>= or >, == counts too); 0 without one. */
static sim_engprof_version lower_bound(const sim_engprof_range *r)
{
    sim_engprof_version lo = {{0}};
    for (int i = 0; i < r->n; i++)
        if (r->op[i][0] != '<' && sim_engprof_version_cmp(&r->v[i], &lo) > 0)
            lo = r->v[i];
    return lo;
}

/* Appends "name versions (platform)" of every profile of `engine` to buf, oldest range first. */
static void list_ranges(const sim_engprof *p, size_t n, const char *engine, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    bool done[64] = {false};
    for (size_t round = 0; round < n && round < 64; round++) {
        size_t k = n;
        for (size_t i = 0; i < n && i < 64; i++) {
            if (done[i] || strcmp(p[i].engine, engine) != 0)
                continue;
            sim_engprof_version a = lower_bound(&p[i].range), b;
            if (k < n)
                b = lower_bound(&p[k].range);
            if (k == n || sim_engprof_version_cmp(&a, &b) < 0 ||
                (sim_engprof_version_cmp(&a, &b) == 0 && p[i].platform < p[k].platform))
                k = i;
        }
        if (k == n)
            return;
        done[k] = true;
        int w = snprintf(buf + used, len - used, "%s%s %s%s%s%s", used ? "; " : "", p[k].name,
                         p[k].versions, p[k].platform ? " (" : "",
                         p[k].platform ? sim_engprof_platform_name(p[k].platform) : "",
                         p[k].platform ? ")" : "");
        if (w < 0 || (size_t)w >= len - used)
            return;
        used += (size_t)w;
    }
}

/* The engines there are, "hf, sglang, trtllm, vllm" in the order first met. */
static void list_engines(const sim_engprof *p, size_t n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(p[j].engine, p[i].engine) == 0;
        if (seen)
            continue;
        int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", p[i].engine);
        if (w < 0 || (size_t)w >= len - used)
            return;
        used += (size_t)w;
    }
}

/* Among the profiles of `engine` for platform pass (exact: the device's own build; else the
 * builds that run anywhere and, on ROCm, the CUDA ones the ROCm build shares its defaults with),
 * the one holding v (or the newest when v is NULL); n when none. */
static size_t pick_pass(const sim_engprof *p, size_t n, const char *engine,
                        const sim_engprof_version *v, sim_engprof_platform on, bool exact)
{
    size_t best = n;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(p[i].engine, engine) != 0)
            continue;
        bool fits = exact ? p[i].platform == on
                          : p[i].platform == SIM_ENGPROF_ANY ||
                                (on == SIM_ENGPROF_ROCM && p[i].platform == SIM_ENGPROF_CUDA);
        if (!fits || (v && !sim_engprof_range_holds(&p[i].range, v)))
            continue;
        if (best == n) {
            best = i;
            continue;
        }
        sim_engprof_version a = lower_bound(&p[i].range), b = lower_bound(&p[best].range);
        if (!v && sim_engprof_version_cmp(&a, &b) > 0)
            best = i;
    }
    return best;
}

sim_status sim_engprof_pick(const sim_engprof *profiles, size_t n, const char *spec,
                            sim_engprof_platform on, const char *what, size_t *pick, sim_err *err)
{
    char engine[32];
    const char *at = strchr(spec, '@');
    size_t len = at ? (size_t)(at - spec) : strlen(spec);
    char known[768];
    if (len == 0 || len >= sizeof engine) {
        list_engines(profiles, n, known, sizeof known);
        return sim_fail(err, SIM_EINPUT,
                        "%s: value '%s', expected NAME or NAME@VERSION with NAME "
                        "one of: %s",
                        what, spec, known);
    }
    memcpy(engine, spec, len);
    engine[len] = '\0';
    sim_engprof_version v;
    if (at && !sim_engprof_version_parse(at + 1, &v))
        return sim_fail(err, SIM_EINPUT,
                        "%s: value '%s': version '%s' is not a release, expected whole numbers "
                        "joined by dots (vllm@0.10.2, trtllm@0.17)",
                        what, spec, at + 1);
    /* "vLLM" is vllm when no engine is spelled so and one is up to case; a near miss ("vlm") is
     * named in the message below (suggest.h) */
    sim_suggest near;
    sim_suggest_init(&near, engine);
    bool exact = false;
    for (size_t i = 0; i < n; i++) {
        exact |= strcmp(profiles[i].engine, engine) == 0;
        sim_suggest_add(&near, profiles[i].engine);
    }
    if (!exact && sim_suggest_case_match(&near))
        snprintf(engine, sizeof engine, "%s", sim_suggest_case_match(&near));
    size_t k = pick_pass(profiles, n, engine, at ? &v : NULL, on, true);
    if (k == n)
        k = pick_pass(profiles, n, engine, at ? &v : NULL, on, false);
    if (k < n) {
        *pick = k;
        return SIM_OK;
    }
    list_ranges(profiles, n, engine, known, sizeof known);
    if (!known[0]) {
        list_engines(profiles, n, known, sizeof known);
        char mean[4 * SIM_SUGGEST_NAME_MAX + 16];
        if (sim_suggest_text(&near, mean, sizeof mean))
            return sim_fail(err, SIM_EINPUT,
                            "%s: value '%s': no profile of engine '%s'; did you mean %s? "
                            "expected one of: %s",
                            what, spec, engine, mean, known);
        return sim_fail(err, SIM_EINPUT,
                        "%s: value '%s': no profile of engine '%s', expected one "
                        "of: %s",
                        what, spec, engine, known);
    }
    return sim_fail(err, SIM_EINPUT,
                    "%s: value '%s': no %s profile covers release %s on %s, expected one of the "
                    "known ranges: %s",
                    what, spec, engine, at ? at + 1 : "(newest)", sim_engprof_platform_name(on),
                    known);
}

/* How engines are written in benchmark results and measurement tables, and the --engine NAME
 * each stands for; the first that starts the text wins (longer spellings first). */
static const struct {
    const char *written, *engine;
} engine_names[] = {
    {"TensorRT-LLM", "trtllm"}, {"TRT-LLM", "trtllm"},  {"trtllm", "trtllm"},
    {"trt", "trtllm"},          {"SGLang", "sglang"},   {"vLLM", "vllm"},
    {"Hugging Face", "hf"},     {"transformers", "hf"},
};

bool sim_engprof_spec_of(const char *text, const char *version, char *spec, size_t len)
{
    size_t i = 0;
    while (i < sizeof engine_names / sizeof engine_names[0] &&
           strncasecmp(text, engine_names[i].written, strlen(engine_names[i].written)) != 0)
        i++;
    if (i == sizeof engine_names / sizeof engine_names[0])
        return false;
    const char *rest = text + strlen(engine_names[i].written);
    if (isalnum((unsigned char)*rest)) /* "vllmx" is no vLLM; "sglang-oai" is */
        return false;
    /* TensorRT-LLM behind Triton's tensorrtllm_backend is a profile of its own */
    const bool triton = strcmp(engine_names[i].engine, "trtllm") == 0 && has_ci(text, "triton");
    if (!version) {
        while (*rest == ' ' || *rest == '~' || *rest == 'v')
            rest++;
        version = isdigit((unsigned char)*rest) ? rest : NULL;
    }
    sim_engprof_version v;
    char num[64] = "";
    const char *end = version;
    if (version && parse_parts(version, &v, &end))
        snprintf(num, sizeof num, "@%.*s", (int)(end - version), version);
    int w = snprintf(spec, len, "%s%s%s", engine_names[i].engine, triton ? "-triton" : "", num);
    return w > 0 && (size_t)w < len;
}

/* "engine" (the NAME of --engine NAME@VERSION), "versions" (the releases it covers) and the
 * optional "platform", each with its source but the name. */
sim_status sim_engprof_load_versions(const cJSON *root, const char *path, sim_engprof *p,
                                     sim_err *err)
{
    const char *eng = NULL, *ver = NULL, *plat = NULL;
    sim_status st = sim_jsonf_str_opt(root, path, "engine", &eng, err);
    bool name_ok = eng && eng[0] && strlen(eng) < sizeof p->engine;
    for (const char *c = eng; name_ok && *c; c++)
        name_ok = (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-' || *c == '_';
    if (!st && !name_ok)
        st = sim_fail(err, SIM_EINPUT,
                      "%s: field 'engine' is %s, expected the engine's name as --engine takes it "
                      "(1 to %zu of a-z, 0-9, - and _: vllm, sglang, trtllm)",
                      path, eng ? eng : "missing", sizeof p->engine - 1);
    if (!st)
        snprintf(p->engine, sizeof p->engine, "%s", eng);
    if (!st)
        st = sim_jsonf_str_opt(root, path, "versions", &ver, err);
    if (!st && (!ver || strlen(ver) >= sizeof p->versions))
        st = sim_fail(err, SIM_EINPUT,
                      "%s: field 'versions' is %s, expected the releases the defaults hold for, "
                      "at most %zu characters (\">=0.10,<0.12\")",
                      path, ver ? "too long" : "missing", sizeof p->versions - 1);
    if (!st)
        st = sim_engprof_range_parse(ver, path, &p->range, err);
    if (!st) {
        snprintf(p->versions, sizeof p->versions, "%s", ver);
        st = sim_engprof_need_source(root, path, "versions", err);
    }
    if (!st)
        st = sim_jsonf_str_opt(root, path, "platform", &plat, err);
    static const char *const plats[] = {"any", "cuda", "rocm"};
    p->platform = SIM_ENGPROF_ANY;
    if (!st && plat) {
        size_t i = 0;
        while (i < 3 && strcmp(plat, plats[i]) != 0)
            i++;
        st = i < 3 ? sim_engprof_need_source(root, path, "platform", err)
                   : sim_fail(err, SIM_EINPUT,
                              "%s: field 'platform' is \"%s\", expected cuda, rocm or any (the "
                              "build whose defaults these are)",
                              path, plat);
        p->platform = (sim_engprof_platform)(i < 3 ? i : 0);
    }
    return st;
}
