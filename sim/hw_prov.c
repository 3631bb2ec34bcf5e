/* hw_prov.c - the provenance of a device's efficiencies (hw.h): read from the file's
 * `provenance` object, else from where the value came from. */
#include "hw_internal.h"

#include <stdio.h>
#include <string.h>

#include "jsonf.h"

/* The efficiencies, in the order of hw.h's list; a field that follows another when the file
 * leaves it out (quant.* take the 16-bit value) names that one. */
static const struct {
    const char *name;
    const char *follows; /* absent from the file: this one's provenance; NULL: default */
} hw_effs[SIM_HW_N_EFF] = {
    {"efficiency.gemm.bf16", NULL},
    {"efficiency.gemm.fp16", NULL},
    {"efficiency.gemm.fp8", NULL},
    {"efficiency.gemm.int8", NULL},
    {"efficiency.gemm.int4", NULL},
    {"efficiency.gemm.fp4", NULL},
    {"efficiency.gemm.mxfp6", NULL},
    {"efficiency.gemm_k_half", NULL},
    {"efficiency.gemm_weight_only", NULL},
    {"efficiency.attention", NULL},
    {"efficiency.attention_kv_half", NULL},
    {"efficiency.memory", NULL},
    {"efficiency.attention_memory", NULL},
    {"efficiency.network", NULL},
    {"decode_cta_gb_per_s", NULL},
    {"collective_latency_us", NULL},
    {"scaleup_latency_us", NULL},
    {"quant.gemm_k_half.fp8", "efficiency.gemm_k_half"},
    {"quant.gemm_k_half.int8", "efficiency.gemm_k_half"},
    {"quant.gemm_k_half.fp4", "efficiency.gemm_k_half"},
    {"quant.gemm_k_half.mxfp6", "efficiency.gemm_k_half"},
    {"quant.gemm_memory.fp8", "efficiency.memory"},
    {"quant.gemm_memory.int8", "efficiency.memory"},
    {"quant.gemm_memory.fp4", "efficiency.memory"},
    {"quant.gemm_memory.mxfp6", "efficiency.memory"},
    {"quant.mixed_input_memory.fp8", "efficiency.memory"},
    {"quant.mixed_input_memory.int8", "efficiency.memory"},
    {"quant.mixed_input_memory.int4", "efficiency.memory"},
    {"quant.mixed_input_memory.fp4", "efficiency.memory"},
    {"quant.mixed_input_memory.mxfp4", "efficiency.memory"},
    {"quant.mixed_input_memory.mxfp6", "efficiency.memory"},
    {"collectives.ll.bw_eff", NULL},
    {"collectives.ll128.bw_eff", NULL},
    {"collectives.oneshot.latency_us", NULL},
    {"collectives.oneshot.bw_eff", NULL},
    {"collectives.twoshot.latency_us", NULL},
    {"collectives.twoshot.bw_eff", NULL},
    {"collectives.nvls.latency_us", NULL},
    {"collectives.nvls.bw_eff", NULL},
    {"efficiency.gemm_fixed_us", NULL},
    {"quant.gemm_fixed_us.fp8", "efficiency.gemm_fixed_us"},
    {"quant.gemm_fixed_us.int8", "efficiency.gemm_fixed_us"},
    {"quant.gemm_fixed_us.fp4", "efficiency.gemm_fixed_us"},
    {"quant.gemm_fixed_us.mxfp6", "efficiency.gemm_fixed_us"},
    {"gemm_cu_feed_gb_per_s", NULL},
};

static size_t eff_index(const char *name)
{
    size_t i = 0;
    while (i < SIM_HW_N_EFF && strcmp(hw_effs[i].name, name) != 0)
        i++;
    return i;
}

const char *sim_hw_eff_name(size_t i) { return i < SIM_HW_N_EFF ? hw_effs[i].name : NULL; }

const sim_hw_prov *sim_hw_provenance(const sim_hw *hw, const char *field)
{
    size_t i = eff_index(field);
    return i < SIM_HW_N_EFF ? &hw->prov[i] : NULL;
}

const char *sim_hw_prov_kind_name(sim_hw_prov_kind k)
{
    static const char *const names[SIM_HW_PROV_KIND_COUNT] = {[SIM_HW_PROV_DEFAULT] = "default",
                                                              [SIM_HW_PROV_STATED] = "stated",
                                                              [SIM_HW_PROV_INHERITED] = "inherited",
                                                              [SIM_HW_PROV_FITTED] = "fitted"};
    return k >= 0 && k < SIM_HW_PROV_KIND_COUNT ? names[k] : "?";
}

void sim_hw_prov_describe(const sim_hw_prov *p, char *buf, size_t len)
{
    switch (p->kind) {
    case SIM_HW_PROV_FITTED:
        snprintf(buf, len, "fitted on %d rows of %s (%s)", p->rows, p->device, p->note);
        return;
    case SIM_HW_PROV_INHERITED:
        if (p->rows > 0)
            snprintf(buf, len, "inherited from %s (fitted there on %d rows): %s", p->device,
                     p->rows, p->note);
        else
            snprintf(buf, len, "inherited from %s: %s", p->device, p->note);
        return;
    case SIM_HW_PROV_STATED:
        snprintf(buf, len, "stated in the file (its sources note says where from)");
        return;
    default:
        snprintf(buf, len, "default (architecture constant or rule)");
        return;
    }
}

bool sim_hw_default_only(const sim_hw *hw)
{
    for (size_t i = 0; i < SIM_HW_N_EFF; i++)
        if (hw->prov[i].kind == SIM_HW_PROV_FITTED || hw->prov[i].kind == SIM_HW_PROV_INHERITED)
            return false;
    return true;
}

const char *sim_hw_trust_name(const sim_hw *hw)
{
    bool inherited = false;
    for (size_t i = 0; i < SIM_HW_N_EFF; i++) {
        if (hw->prov[i].kind == SIM_HW_PROV_FITTED)
            return "fitted";
        inherited = inherited || hw->prov[i].kind == SIM_HW_PROV_INHERITED;
    }
    return inherited ? "inherited" : "default-only";
}

/* The file stem of a path: "hw/h100-sxm.json" -> "h100-sxm". */
static void path_stem(const char *path, char *buf, size_t len)
{
    const char *b = strrchr(path, '/');
    snprintf(buf, len, "%s", b ? b + 1 : path);
    char *dot = strrchr(buf, '.');
    if (dot)
        *dot = '\0';
}

static sim_status bad_entry(sim_err *err, const char *path, const char *key, const char *what)
{
    return sim_fail(err, SIM_EINPUT, "%s: field 'provenance.%s' %s", path, key, what);
}

/* A string member of an entry, copied into buf; missing or empty is an error. */
static sim_status entry_str(const cJSON *e, const char *path, const char *key, const char *member,
                            char *buf, size_t len, sim_err *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, member);
    if (!cJSON_IsString(v) || !v->valuestring[0]) {
        char what[96];
        snprintf(what, sizeof what, "has no '%s', expected a non-empty string", member);
        return bad_entry(err, path, key, what);
    }
    if (strlen(v->valuestring) >= len) {
        char what[96];
        snprintf(what, sizeof what, "has a '%s' of %zu characters, expected at most %zu", member,
                 strlen(v->valuestring), len - 1);
        return bad_entry(err, path, key, what);
    }
    snprintf(buf, len, "%s", v->valuestring);
    return SIM_OK;
}

/* `rows`: a whole number in [lo, 1e6]; absent: 0 when lo is 0. */
static sim_status entry_rows(const cJSON *e, const char *path, const char *key, int lo, int *out,
                             sim_err *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, "rows");
    *out = 0;
    if (!v && lo == 0)
        return SIM_OK;
    bool number = v && cJSON_IsNumber(v);
    double x = number ? v->valuedouble : -1.0;
    /* the range first: only then is the cast to int defined */
    if (!number || !(x >= lo && x <= 1e6) || x != (double)(int)x) {
        char what[96];
        snprintf(what, sizeof what, "has 'rows' %s, expected a whole number in [%d, 1000000]",
                 number ? "out of range or not whole" : "missing or not a number", lo);
        return bad_entry(err, path, key, what);
    }
    *out = (int)x;
    return SIM_OK;
}

static sim_status read_entry(const cJSON *e, const char *path, const char *stem, sim_hw_prov *p,
                             sim_err *err)
{
    const char *key = e->string;
    if (!cJSON_IsObject(e))
        return bad_entry(err, path, key,
                         "is not an object, expected {\"kind\": \"fitted\", \"rows\": N, "
                         "\"data\": FILE} or {\"kind\": \"inherited\", \"from\": DEVICE, "
                         "\"rule\": TEXT}");
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(e, "kind");
    const char *k = cJSON_IsString(kind) ? kind->valuestring : "";
    memset(p, 0, sizeof *p);
    if (strcmp(k, "fitted") == 0) {
        p->kind = SIM_HW_PROV_FITTED;
        snprintf(p->device, sizeof p->device, "%s", stem);
        sim_status st = entry_rows(e, path, key, 1, &p->rows, err);
        return st ? st : entry_str(e, path, key, "data", p->note, sizeof p->note, err);
    }
    if (strcmp(k, "inherited") == 0) {
        p->kind = SIM_HW_PROV_INHERITED;
        sim_status st = entry_str(e, path, key, "from", p->device, sizeof p->device, err);
        if (!st)
            st = entry_rows(e, path, key, 0, &p->rows, err);
        return st ? st : entry_str(e, path, key, "rule", p->note, sizeof p->note, err);
    }
    char what[160];
    snprintf(what, sizeof what, "has kind '%.60s', expected \"fitted\" or \"inherited\"", k);
    return bad_entry(err, path, key, what);
}

sim_status sim_hw_prov_load(const cJSON *root, const char *path, sim_hw *hw,
                            sim_hw_copied_from_fn copied_from, sim_err *err)
{
    /* what the file and the rules say, then the entries, then the copies */
    size_t follows[SIM_HW_N_EFF];
    for (size_t i = 0; i < SIM_HW_N_EFF; i++) {
        const char *from = copied_from(hw, hw_effs[i].name);
        memset(&hw->prov[i], 0, sizeof hw->prov[i]);
        follows[i] = SIM_HW_N_EFF;
        if (sim_jsonf_find(root, hw_effs[i].name) && !from)
            hw->prov[i].kind = SIM_HW_PROV_STATED;
        else if (from || hw_effs[i].follows)
            follows[i] = eff_index(from ? from : hw_effs[i].follows);
    }
    const cJSON *obj = sim_jsonf_find(root, "provenance");
    if (obj && !cJSON_IsObject(obj))
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'provenance' is not an object, expected one entry per "
                        "efficiency (\"efficiency.gemm.bf16\": {\"kind\": \"fitted\", ...})",
                        path);
    char stem[48];
    path_stem(path, stem, sizeof stem);
    const cJSON *e;
    cJSON_ArrayForEach(e, obj)
    {
        size_t i = eff_index(e->string);
        if (i == SIM_HW_N_EFF)
            return sim_fail(err, SIM_EINPUT,
                            "%s: field 'provenance' has an entry '%.80s', expected an efficiency "
                            "(efficiency.gemm.bf16, efficiency.attention, ... as `infersim hw` "
                            "lists them)",
                            path, e->string);
        sim_status st = read_entry(e, path, stem, &hw->prov[i], err);
        if (st)
            return st;
        follows[i] = SIM_HW_N_EFF;
    }
    /* a copy follows an earlier entry of the list: one pass in order resolves every chain */
    for (size_t i = 0; i < SIM_HW_N_EFF; i++)
        if (follows[i] < i)
            hw->prov[i] = hw->prov[follows[i]];
    return SIM_OK;
}

/* power.idle_w below power.tdp_w; an idle floor without a board power is a file error. */
sim_status sim_hw_check_power(const sim_hw *hw, const char *path, sim_err *err)
{
    if (hw->power.tdp_w > 0.0 && hw->power.idle_w >= hw->power.tdp_w)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'power.idle_w' is %g, expected less than power.tdp_w %g", path,
                        hw->power.idle_w, hw->power.tdp_w);
    if (!(hw->power.tdp_w > 0.0) && hw->power.idle_w > 0.0)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'power.tdp_w' is missing, expected the board power in W with "
                        "power.idle_w %g",
                        path, hw->power.idle_w);
    return SIM_OK;
}
