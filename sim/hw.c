/* hw.c - device file loader: every row of the field table (hw_fields.c) read from the file or
 * filled by its documented default rule (an architecture's constant, or a value derived from the
 * datasheet fields). */
#include "hw.h"
#include "hw_internal.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "coll.h"
#include "jsonf.h"

#define GIB 1073741824.0

/* ------------------------------------------------------------------------------------------ */
/* Fields: the table and its rules are hw_fields.c's (hw_internal.h hw_field). */
enum { N_FIELDS = SIM_HW_N_FIELD_ROWS };


static double *num_at(sim_hw *hw, const hw_field *f) { return (double *)((char *)hw + f->offset); }
static int *int_at(sim_hw *hw, const hw_field *f) { return (int *)((char *)hw + f->offset); }

static double get_si(const sim_hw *hw, const hw_field *f)
{
    const char *p = (const char *)hw + f->offset;
    return f->is_int ? (double)*(const int *)p : *(const double *)p;
}

static void set_si(sim_hw *hw, const hw_field *f, double v)
{
    if (f->is_int)
        *int_at(hw, f) = (int)v;
    else
        *num_at(hw, f) = v;
}

/* The index of an earlier field by name (the table is small; names are fixed). */
static size_t field_index(const char *json)
{
    size_t i = 0;
    while (i < N_FIELDS && strcmp(sim_hw_field_rows[i].json, json) != 0)
        i++;
    return i;
}

/* The rule's value (SI) and where it came from. */
static double apply_rule(const sim_hw *hw, const hw_field *f, const sim_hw_arch *a, bool listed,
                         sim_hw_origin *origin)
{
    *origin = SIM_HW_DEFAULT;
    size_t from = f->from ? field_index(f->from) : 0;
    switch (f->rule) {
    case HR_ARCH:
        return sim_hw_arch_num(a, f->arch) * f->scale;
    case HR_CONST:
        return f->value * f->scale;
    case HR_PEAK:
        if (listed)
            return 0.0; /* the file's dense_tflops object leaves this format out */
        /* fall through */
    case HR_RATIO:
        *origin = SIM_HW_DERIVED;
        return get_si(hw, &sim_hw_field_rows[from]) * sim_hw_arch_num(a, f->arch);
    case HR_COPY:
        *origin = SIM_HW_DERIVED;
        return get_si(hw, &sim_hw_field_rows[from]);
    case HR_COPY_FILE:
        if (hw->origin[from] == SIM_HW_FILE) {
            *origin = SIM_HW_DERIVED;
            return get_si(hw, &sim_hw_field_rows[from]);
        }
        return sim_hw_arch_num(a, f->arch);
    case HR_REQUIRED:
        break;
    }
    return 0.0;
}

/* "arch": one of the table's names, or absent. */
static sim_status read_arch(const cJSON *root, const char *path, const sim_hw_arch **out,
                            sim_err *err)
{
    const char *s = NULL;
    sim_status st = sim_jsonf_str_opt(root, path, "arch", &s, err);
    *out = sim_hw_arch_find("");
    if (st || !s)
        return st;
    if (*s && (*out = sim_hw_arch_find(s)) != NULL)
        return SIM_OK;
    return sim_fail(err, SIM_EINPUT,
                    "%s: field 'arch' is \"%s\", expected ampere, ada, hopper, blackwell, cdna3 or "
                    "tpu (or no arch)",
                    path, s);
}

/* One field from the file (a number, or a whole number for int fields) or its rule. */
static sim_status load_field(const cJSON *root, const char *path, const hw_field *f,
                             const sim_hw_arch *a, sim_hw *hw, sim_err *err)
{
    size_t i = (size_t)(f - sim_hw_field_rows);
    const char *json = f->json;
    /* "dense_tflops": N is the bf16 peak */
    const cJSON *dense = sim_jsonf_find(root, "dense_tflops");
    if (dense && !cJSON_IsNumber(dense) && !cJSON_IsObject(dense))
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'dense_tflops' is not a number or an object, expected the dense "
                        "bf16 peak in TFLOP/s (\"dense_tflops\": 148) or one per format "
                        "({\"bf16\": 148, \"fp8\": 296})",
                        path);
    if (strcmp(json, "dense_tflops.bf16") == 0 && cJSON_IsNumber(dense))
        json = "dense_tflops";
    if (!sim_jsonf_find(root, json) && f->rule != HR_REQUIRED) {
        sim_hw_origin o;
        set_si(hw, f, apply_rule(hw, f, a, cJSON_IsObject(dense), &o));
        hw->origin[i] = (unsigned char)o;
        return SIM_OK;
    }
    hw->origin[i] = SIM_HW_FILE;
    if (f->is_int) {
        int64_t v;
        sim_status st = sim_jsonf_int(root, path, json, (int64_t)f->min, (int64_t)f->max, &v, err);
        if (!st)
            *int_at(hw, f) = (int)v;
        return st;
    }
    double v;
    sim_status st = sim_jsonf_num(root, path, json, f->min, f->max, &v, err);
    if (!st)
        *num_at(hw, f) = v * f->scale;
    return st;
}

/* Formats without a tensor peak of their own (mxfp4) take their peak format's peak and GEMM
 * efficiency. */
static void share_peaks(sim_hw *hw)
{
    for (int dt = 0; dt < SIM_DT_COUNT; dt++) {
        sim_dtype of = sim_dtype_get((sim_dtype)dt)->peak_of;
        hw->peak_flops[dt] = hw->peak_flops[of];
        hw->eff_gemm[dt] = hw->eff_gemm[of];
    }
}

/* The quant object: per-format K-pipeline terms and streaming fractions of quantized GEMMs.
 * An absent entry stays 0, which the accessors below read as "the 16-bit value". */
static const struct {
    const char *key;
    size_t offset;
    double min, max; /* in file units */
    double scale;    /* stored = file value x scale */
    bool compute;    /* keyed by compute format (else by stored weight format) */
} quant_tables[] = {
    {"gemm_k_half", offsetof(sim_hw, quant.gemm_k_half), 1.0, 1e6, 1.0, true},
    {"gemm_memory", offsetof(sim_hw, quant.gemm_memory), 0.01, 1.0, 1.0, true},
    {"gemm_fixed_us", offsetof(sim_hw, quant.gemm_fixed_ns), 0.001, 1e3, 1e3, true},
    {"mixed_input_memory", offsetof(sim_hw, quant.mixed_input_memory), 0.01, 1.0, 1.0, false},
};
#define N_QUANT_TABLES (sizeof quant_tables / sizeof quant_tables[0])

/* Whether quant_tables[t] has an entry for format dt. */
static bool quant_keyed(size_t t, int dt)
{
    const sim_dtype_info *info = sim_dtype_get((sim_dtype)dt);
    return !sim_dtype_is_16bit((sim_dtype)dt) &&
           !(quant_tables[t].compute && (info->weights_only || info->peak_of != (sim_dtype)dt));
}

static sim_status load_quant(const cJSON *root, const char *path, sim_hw *hw, sim_err *err)
{
#define tables quant_tables
    char field[64];
    for (size_t t = 0; t < N_QUANT_TABLES; t++) {
        double *arr = (double *)((char *)hw + tables[t].offset);
        for (int dt = 0; dt < SIM_DT_COUNT; dt++) {
            const sim_dtype_info *info = sim_dtype_get((sim_dtype)dt);
            if (!quant_keyed(t, dt))
                continue;
            snprintf(field, sizeof field, "quant.%s.%s", tables[t].key, info->name);
            sim_status st = sim_jsonf_num_opt(root, path, field, tables[t].min, tables[t].max, 0.0,
                                              &arr[dt], err);
            if (st)
                return st;
            arr[dt] *= tables[t].scale;
        }
        if (tables[t].compute)
            for (int dt = 0; dt < SIM_DT_COUNT; dt++)
                arr[dt] = arr[sim_dtype_get((sim_dtype)dt)->peak_of];
    }
    return SIM_OK;
#undef tables
}

/* NCCL protocol constants: "collectives.<proto>.<field>", the destination array, range, scale. */
static const struct {
    const char *field;
    size_t offset; /* of a double[3] in sim_hw_coll */
    double max, scale;
} coll_proto_fields[] = {
    {"base_us", offsetof(sim_hw_coll, proto_base_ns), 1e3, 1e3},
    {"hop_us", offsetof(sim_hw_coll, proto_hop_ns), 1e3, 1e3},
    {"bw_eff", offsetof(sim_hw_coll, proto_bw_eff), 1.0, 1.0},
};

/* The `collectives` object; absent: the ring with the Simple protocol only (as before it). */
static sim_status load_collectives(const cJSON *root, const char *path, sim_hw *hw, sim_err *err)
{
    sim_hw_coll *c = &hw->coll;
    c->algos = 1u << SIM_COLL_RING;
    c->proto_bw_eff[SIM_COLL_SIMPLE] = 1.0;
    const cJSON *obj = sim_jsonf_find(root, "collectives");
    if (!obj)
        return SIM_OK;
    const cJSON *list = sim_jsonf_find(root, "collectives.algorithms");
    if (!cJSON_IsObject(obj) || !cJSON_IsArray(list))
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'collectives.algorithms' is missing or not an array, expected "
                        "a list of ring, tree, oneshot, twoshot, nvls",
                        path);
    c->algos = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, list)
    {
        sim_coll_algo a;
        if (!cJSON_IsString(it) || !sim_coll_algo_parse(it->valuestring, &a) ||
            a == SIM_COLL_AUTO || a == SIM_COLL_NCCL)
            return sim_fail(err, SIM_EINPUT,
                            "%s: field 'collectives.algorithms' holds '%s', expected ring, tree, "
                            "oneshot, twoshot or nvls",
                            path, cJSON_IsString(it) ? it->valuestring : "(not a string)");
        c->algos |= 1u << a;
    }
    if (!(c->algos & (1u << SIM_COLL_RING)))
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'collectives.algorithms' lacks \"ring\", expected every device "
                        "to have NCCL's ring",
                        path);
    char field[96];
    static const char *const protos[] = {"ll", "ll128"};
    sim_status st = SIM_OK;
    for (int p = 0; p < 2 && !st; p++) {
        snprintf(field, sizeof field, "collectives.%s", protos[p]);
        if (!sim_jsonf_find(root, field))
            continue; /* the device's runtime has no such protocol (TPU, ...) */
        for (size_t f = 0; f < sizeof coll_proto_fields / sizeof coll_proto_fields[0] && !st;
             f++) {
            double v;
            snprintf(field, sizeof field, "collectives.%s.%s", protos[p],
                     coll_proto_fields[f].field);
            st = sim_jsonf_num(root, path, field, 0.0, coll_proto_fields[f].max, &v, err);
            if (!st && coll_proto_fields[f].scale == 1.0 && !(v > 0.0))
                st = sim_fail(err, SIM_EINPUT, "%s: field '%s' is 0, expected a value in (0, 1]",
                              path, field);
            ((double *)((char *)c + coll_proto_fields[f].offset))[p] =
                v * coll_proto_fields[f].scale;
        }
    }
    double base;
    if (!st)
        st = sim_jsonf_num(root, path, "collectives.simple.base_us", 0.0, 1e3, &base, err);
    if (st)
        return st;
    c->proto_base_ns[SIM_COLL_SIMPLE] = base * 1e3;
    static const sim_coll_algo kernels[] = {SIM_COLL_ONESHOT, SIM_COLL_TWOSHOT, SIM_COLL_NVLS};
    for (size_t i = 0; i < 3 && !st; i++) {
        sim_coll_algo a = kernels[i];
        if (!(c->algos & (1u << a)))
            continue;
        double lat = 0.0, eff = 0.0; /* (read only when both parse) */
        snprintf(field, sizeof field, "collectives.%s.latency_us", sim_coll_algo_name(a));
        st = sim_jsonf_num(root, path, field, 0.0, 1e4, &lat, err);
        snprintf(field, sizeof field, "collectives.%s.bw_eff", sim_coll_algo_name(a));
        if (!st)
            st = sim_jsonf_num(root, path, field, 0.01, 1.0, &eff, err);
        if (st)
            break;
        c->algo_latency_ns[a] = lat * 1e3;
        c->algo_bw_eff[a] = eff;
    }
    if (!st && (c->algos & ((1u << SIM_COLL_ONESHOT) | (1u << SIM_COLL_TWOSHOT))))
        st = sim_jsonf_num(root, path, "collectives.custom_max_bytes", 1.0, 1e12,
                           &c->custom_max_bytes, err);
    return st;
}

/* Every field a device file may hold (outside "sources"), as the loaders above read them:
 * the field table's, "dense_tflops" as a number (the bf16 peak), "quant" per format,
 * "collectives" per protocol and kernel, "provenance" (hw_prov.c), and calibrate's own
 * "calibration" record. */
static bool hw_known(const char *field, const cJSON *v)
{
    /* "provenance" is read whole by hw_prov.c, which checks its entries */
    static const char *const fixed[] = {
        "name", "arch", "calibration", "provenance", "collectives.algorithms",
        "collectives.custom_max_bytes", "collectives.simple.base_us"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (strcmp(field, fixed[i]) == 0)
            return true;
    if (strcmp(field, "dense_tflops") == 0) /* a number; load_field refuses what is not one */
        return !cJSON_IsObject(v);
    for (size_t i = 0; i < N_FIELDS; i++)
        if (strcmp(field, sim_hw_field_rows[i].json) == 0)
            return true;
    char name[96];
    for (size_t t = 0; t < N_QUANT_TABLES; t++)
        for (int dt = 0; dt < SIM_DT_COUNT; dt++) {
            snprintf(name, sizeof name, "quant.%s.%s", quant_tables[t].key,
                     sim_dtype_name((sim_dtype)dt));
            if (quant_keyed(t, dt) && strcmp(field, name) == 0)
                return true;
        }
    static const char *const protos[] = {"ll", "ll128"};
    for (size_t p = 0; p < 2; p++)
        for (size_t f = 0; f < sizeof coll_proto_fields / sizeof coll_proto_fields[0]; f++) {
            snprintf(name, sizeof name, "collectives.%s.%s", protos[p], coll_proto_fields[f].field);
            if (strcmp(field, name) == 0)
                return true;
        }
    static const sim_coll_algo kernels[] = {SIM_COLL_ONESHOT, SIM_COLL_TWOSHOT, SIM_COLL_NVLS};
    static const char *const kernel_fields[] = {"latency_us", "bw_eff"};
    for (size_t k = 0; k < 3; k++)
        for (size_t f = 0; f < 2; f++) {
            snprintf(name, sizeof name, "collectives.%s.%s", sim_coll_algo_name(kernels[k]),
                     kernel_fields[f]);
            if (strcmp(field, name) == 0)
                return true;
        }
    return false;
}

/* sim_hw_copied_from_fn (hw_internal.h) */
static const char *copied_from(const sim_hw *hw, const char *json)
{
    size_t i = field_index(json);
    if (i == N_FIELDS || hw->origin[i] != SIM_HW_DERIVED)
        return NULL;
    const hw_field *f = &sim_hw_field_rows[i];
    return f->rule == HR_COPY || f->rule == HR_COPY_FILE ? f->from : NULL;
}

sim_status sim_hw_load(const char *path, sim_hw *hw, sim_err *err)
{
    memset(hw, 0, sizeof *hw);
    cJSON *root;
    sim_status st = sim_jsonf_load(path, &root, err);
    if (st)
        return st;
    const char *name = NULL;
    const sim_hw_arch *a = NULL;
    st = sim_jsonf_known_keys(root, path, hw_known,
                              "a device field (README: \"Devices from a datasheet\"; infersim hw "
                              "FILE lists them)",
                              err);
    if (!st && !(st = sim_jsonf_str_opt(root, path, "name", &name, err)))
        st = read_arch(root, path, &a, err);
    for (size_t i = 0; !st && i < N_FIELDS; i++)
        st = load_field(root, path, &sim_hw_field_rows[i], a, hw, err);
    if (!st) {
        share_peaks(hw);
        st = load_quant(root, path, hw, err);
    }
    if (!st)
        st = load_collectives(root, path, hw, err);
    if (!st)
        st = sim_hw_prov_load(root, path, hw, copied_from, err);
    if (!st) {
        snprintf(hw->name, sizeof hw->name, "%s", name ? name : path);
        snprintf(hw->path, sizeof hw->path, "%s", path);
        snprintf(hw->arch, sizeof hw->arch, "%s", a->name);
        if (hw->runtime_reserved_bytes >= hw->hbm_bytes)
            st = sim_fail(
                err, SIM_EINPUT,
                "%s: field 'runtime_reserved_gib' is %.2f, expected less than hbm_gib %.2f", path,
                hw->runtime_reserved_bytes / GIB, hw->hbm_bytes / GIB);
        else
            st = sim_hw_check_power(hw, path, err);
    }
    cJSON_Delete(root);
    return st;
}

size_t sim_hw_n_fields(void) { return N_FIELDS; }

sim_hw_field_info sim_hw_field(const sim_hw *hw, size_t i)
{
    const hw_field *f = &sim_hw_field_rows[i];
    const sim_hw_arch *a = sim_hw_arch_find(hw->arch);
    return (sim_hw_field_info){.json = f->json,
                               .value = get_si(hw, f) / f->scale,
                               .origin = (sim_hw_origin)hw->origin[i],
                               .rule = f->doc,
                               .arch_source = a && f->rule != HR_REQUIRED && f->rule != HR_COPY &&
                                                      f->rule != HR_CONST
                                                  ? a->source
                                                  : NULL};
}

const char *sim_hw_origin_name(sim_hw_origin o)
{
    static const char *const names[] = {
        [SIM_HW_FILE] = "file", [SIM_HW_DEFAULT] = "default", [SIM_HW_DERIVED] = "derived"};
    return names[o];
}
