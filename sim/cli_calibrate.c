/* cli_calibrate.c - the calibrate command: a device's efficiencies fitted to its op-level rows. */
#define _POSIX_C_SOURCE 200809L
#include "cli_cmd.h"
#include "cli_load.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jsonf.h"
#include "outfile.h"
#include "validate.h"

/* The stem of a path: "hw/h100-sxm.json" -> "h100-sxm". */
static void file_stem(const char *path, char *buf, size_t len)
{
    const char *b = strrchr(path, '/');
    snprintf(buf, len, "%.*s", (int)len - 1, b ? b + 1 : path);
    char *dot = strrchr(buf, '.');
    if (dot)
        *dot = '\0';
}

/* Sets a number at a dotted path ("quant.gemm_memory.fp8"), creating the objects on the way. */
static bool set_dotted(cJSON *root, const char *field, double v)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", field);
    cJSON *o = root;
    char *part = buf;
    for (char *dot = strchr(part, '.'); dot; part = dot + 1, dot = strchr(part, '.')) {
        *dot = '\0';
        cJSON *next = cJSON_GetObjectItemCaseSensitive(o, part);
        if (!cJSON_IsObject(next)) {
            cJSON_DeleteItemFromObjectCaseSensitive(o, part);
            if (!(next = cJSON_AddObjectToObject(o, part)))
                return false;
        }
        o = next;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(o, part);
    return cJSON_AddNumberToObject(o, part, v) != NULL;
}

/* Where a value came from before any calibration: a fitted field's note keeps the original
 * source after "starting value from: ", so refits do not stack their notes. */
static const char *original_source(const cJSON *old)
{
    static const char mark[] = "starting value from: ";
    if (!cJSON_IsString(old))
        return "none";
    const char *s = old->valuestring;
    const char *p = strncmp(s, "fitted by infersim calibrate", 28) == 0 ? strstr(s, mark) : NULL;
    return p ? p + sizeof mark - 1 : s;
}

static sim_status write_text(const char *dest, const char *txt, FILE *out, sim_err *err)
{
    if (!dest)
        return fprintf(out, "%s\n", txt) < 0 ? sim_fail(err, SIM_EINTERNAL, "writing failed")
                                             : SIM_OK;
    sim_outfile o;
    sim_status st = sim_outfile_open(&o, dest, "--out", err);
    if (!st) {
        fprintf(o.f, "%s\n", txt);
        st = sim_outfile_commit(&o, err);
    }
    return st;
}

static sim_status write_calibrated(const char *src, const char *dest, const char *data,
                                   const sim_fit_report *rep, FILE *out, sim_err *err)
{
    cJSON *root;
    sim_status st = sim_jsonf_load(src, &root, err);
    if (st)
        return st;
    cJSON *sources = cJSON_GetObjectItemCaseSensitive(root, "sources");
    bool ok = true;
    for (size_t i = 0; i < rep->n_params; i++) {
        const sim_fit_param *p = &rep->params[i];
        ok = ok && set_dotted(root, p->name, p->value);
        if (!cJSON_IsObject(sources))
            continue;
        /* every fitted number now comes from the fit: say so where its source was */
        char note[1200];
        snprintf(note, sizeof note,
                 "fitted by infersim calibrate on the %zu %s op-level rows of this device in "
                 "%.200s (least squares on relative error; leave-one-out median |error| %.1f%% "
                 "over all its rows); starting value from: %.700s",
                 p->rows, p->group, data, rep->loo_median,
                 original_source(cJSON_GetObjectItemCaseSensitive(sources, p->name)));
        cJSON_DeleteItemFromObjectCaseSensitive(sources, p->name);
        ok = ok && cJSON_AddStringToObject(sources, p->name, note);
    }
    /* every parameter the rows constrain is fitted on them now, moved or not: its provenance
     * says so (hw.h); the entries of the fields no row constrains stay as they were */
    cJSON *prov = cJSON_GetObjectItemCaseSensitive(root, "provenance");
    if ((rep->n_params > 0 || rep->n_held > 0) && !cJSON_IsObject(prov)) {
        cJSON_DeleteItemFromObjectCaseSensitive(root, "provenance");
        prov = cJSON_AddObjectToObject(root, "provenance");
        ok = ok && prov;
    }
    for (size_t i = 0; ok && i < rep->n_params + rep->n_held; i++) {
        const sim_fit_param *p =
            i < rep->n_params ? &rep->params[i] : &rep->held[i - rep->n_params];
        cJSON *e = cJSON_CreateObject();
        ok = e && cJSON_AddStringToObject(e, "kind", "fitted") &&
             cJSON_AddNumberToObject(e, "rows", (double)p->rows) &&
             cJSON_AddStringToObject(e, "data", data);
        if (!ok) {
            cJSON_Delete(e);
            break;
        }
        if (cJSON_GetObjectItemCaseSensitive(prov, p->name))
            ok = cJSON_ReplaceItemInObjectCaseSensitive(prov, p->name, e);
        else
            ok = cJSON_AddItemToObject(prov, p->name, e);
    }
    if (rep->n_params > 0) { /* a refit that moves nothing leaves the file as it was */
        cJSON *cal = cJSON_CreateObject();
        cJSON_AddStringToObject(cal, "fitted_on", data);
        cJSON_AddStringToObject(cal, "method",
                                "infersim calibrate: least squares on relative error over the "
                                "op-level rows of this device, each format on its own rows");
        cJSON_AddNumberToObject(cal, "rows", (double)rep->rows);
        cJSON_AddNumberToObject(cal, "median_abs_error_before_pct",
                                round(rep->before_median * 100) / 100);
        cJSON_AddNumberToObject(cal, "median_abs_error_after_pct",
                                round(rep->after_median * 100) / 100);
        cJSON_AddNumberToObject(cal, "leave_one_out_median_abs_error_pct",
                                round(rep->loo_median * 100) / 100);
        cJSON_AddStringToObject(cal, "fitted", rep->fitted);
        cJSON_DeleteItemFromObjectCaseSensitive(root, "calibration");
        cJSON_AddItemToObject(root, "calibration", cal);
    }
    char *txt = ok ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    if (!txt)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    st = write_text(dest, txt, out, err);
    free(txt);
    return st;
}

sim_status cli_calibrate_cmd(const cli_opts *o, FILE *out, sim_err *err)
{
    if (!o->hw)
        return sim_fail(err, SIM_EINPUT, "calibrate: expected --hw H --data FILE");
    char hw_path[PATH_MAX], data[PATH_MAX], name[128];
    cli_load_resolve(CLI_LOAD_HW, o->hw, hw_path, sizeof hw_path);
    cli_load_data_path(o, data, sizeof data);
    file_stem(hw_path, name, sizeof name);
    /* the file records the data as named, not where it was found: the same from any folder */
    const char *data_name = o->data ? o->data : CLI_LOAD_VALIDATION_DATA;
    sim_hw hw;
    sim_vrow *rows = NULL;
    size_t n = 0;
    sim_fit_report rep;
    sim_status st = sim_hw_load(hw_path, &hw, err);
    if (!st)
        st = sim_validate_load(data, &rows, &n, err);
    if (!st)
        st = sim_validate_fit(rows, n, name, &hw, &rep, err);
    /* the file first: a report on stdout means the file was written */
    if (!st)
        st = write_calibrated(hw_path, cli_opt_out_path(o->out_file), data_name, &rep, out, err);
    if (!st && cli_opt_out_path(o->out_file)) /* with no --out, stdout holds the file alone (nothing on stderr) */
        fprintf(out,
                "calibrate %s: %zu op-level rows of %s; median |error| %.1f%% -> %.1f%% "
                "(leave-one-out %.1f%%)\n  %s\n",
                name, rep.rows, data_name, rep.before_median, rep.after_median, rep.loo_median,
                rep.n_params ? rep.fitted : "nothing moves: the file is already fitted");
    free(rows);
    return st;
}
