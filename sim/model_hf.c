/* model_hf.c - a Hugging Face id looked up in the models/ folders of the data roots: the file
 * whose infersim_hf_ids lists it (declared in model.h). */
#define _POSIX_C_SOURCE 200809L
#include "model.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "find.h"
#include "jsonf.h"

/* Whether the JSON file at path lists `id` in its infersim_hf_ids. */
static bool lists_hf_id(const char *path, const char *id)
{
    cJSON *root;
    if (sim_jsonf_load(path, &root, NULL))
        return false;
    const cJSON *ids = sim_jsonf_find(root, "infersim_hf_ids");
    bool hit = false;
    const cJSON *it;
    cJSON_ArrayForEach(it, ids) hit |= cJSON_IsString(it) && strcasecmp(it->valuestring, id) == 0;
    cJSON_Delete(root);
    return hit;
}

/* The first file of DIR (in name order, so the answer never depends on the file system) that
 * lists id. */
static bool find_hf_in(const char *dir, const char *id, char *out, size_t len)
{
    struct dirent **names = NULL;
    int n = scandir(dir, &names, NULL, alphasort);
    bool found = false;
    for (int i = 0; i < n; i++) {
        const char *nm = names[i]->d_name;
        size_t l = strlen(nm);
        char path[PATH_MAX + 256];
        if (!found && l > 5 && strcmp(nm + l - 5, ".json") == 0 &&
            snprintf(path, sizeof path, "%s/%s", dir, nm) < (int)len && lists_hf_id(path, id)) {
            snprintf(out, len, "%s", path);
            found = true;
        }
        free(names[i]);
    }
    free(names);
    return found;
}

bool sim_model_find_hf(const char *id, char *out, size_t len)
{
    char buf[SIM_FIND_MAX_ROOTS * PATH_MAX];
    const char *roots[SIM_FIND_MAX_ROOTS];
    size_t n = sim_find_roots(buf, PATH_MAX, roots);
    for (size_t i = 0; i < n; i++) {
        char dir[PATH_MAX + 16];
        snprintf(dir, sizeof dir, "%s/models", roots[i]);
        if (find_hf_in(strcmp(roots[i], ".") == 0 ? "models" : dir, id, out, len))
            return true;
    }
    return false;
}
