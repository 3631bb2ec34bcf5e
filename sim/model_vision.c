/* model_vision.c - a multimodal checkpoint's vision encoder: its shape from vision_config, its
 * parameters, and what one image becomes (patches, attention pairs, the language model's image
 * tokens) as each family's image processor resizes it (declared in model.h and
 * model_internal.h). */
#include "model_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "jsonf.h"

/* Qwen2.5-VL's preprocessor_config.json (Qwen/Qwen2.5-VL-72B-Instruct): min_pixels 3136 (56^2),
 * max_pixels 12845056 (16384 x 28^2); the config itself does not carry them. */
#define QWEN25_MIN_PIXELS 3136
#define QWEN25_MAX_PIXELS 12845056
/* Llama 4's processor: tiles of vision_config.image_size, at most 16 of them (Llama4Processor
 * max_patches 16, transformers processing_llama4.py / image_processing_llama4_fast.py). */
#define LLAMA4_MAX_TILES 16

static sim_status read_qwen25(const cJSON *v, const char *where, const sim_model *m,
                              sim_vision *out, sim_err *err)
{
    const int64_t big = (int64_t)1 << 20;
    int64_t window_px = 0, temporal = 2, channels = 3;
    sim_status st;
    if ((st = sim_jsonf_int(v, where, "depth", 1, 1000, &out->depth, err)) ||
        (st = sim_jsonf_int(v, where, "hidden_size", 1, big, &out->hidden, err)) ||
        (st = sim_jsonf_int(v, where, "intermediate_size", 1, 8 * big, &out->intermediate, err)) ||
        (st = sim_jsonf_int(v, where, "num_heads", 1, 4096, &out->heads, err)) ||
        (st = sim_jsonf_int(v, where, "patch_size", 1, 1024, &out->patch, err)) ||
        (st = sim_jsonf_int(v, where, "spatial_merge_size", 1, 64, &out->merge, err)) ||
        (st = sim_jsonf_int_opt(v, where, "temporal_patch_size", 1, 64, 2, &temporal, err)) ||
        (st = sim_jsonf_int_opt(v, where, "in_chans", 1, 64, 3, &channels, err)) ||
        (st = sim_jsonf_int_opt(v, where, "window_size", 0, big, 0, &window_px, err)) ||
        (st = sim_jsonf_int_opt(v, where, "out_hidden_size", 1, big, m->hidden, &out->merger_out,
                                err)))
        return st;
    if (out->merger_out != m->hidden)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'out_hidden_size' is %lld, expected the language model's "
                        "hidden_size %lld",
                        where, (long long)out->merger_out, (long long)m->hidden);
    if (out->hidden % out->heads != 0)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'num_heads' is %lld, expected a divisor of hidden_size %lld",
                        where, (long long)out->heads, (long long)out->hidden);
    out->kind = SIM_VISION_QWEN25;
    out->in_patch = channels * temporal * out->patch * out->patch;
    out->window = window_px / (out->merge * out->patch);
    out->gated_mlp = true;
    out->min_pixels = QWEN25_MIN_PIXELS;
    out->max_pixels = QWEN25_MAX_PIXELS;
    out->merger_in = out->merger_mid = out->hidden * out->merge * out->merge;
    /* fullatt_block_indexes: the layers that attend over the whole image */
    const cJSON *full = sim_jsonf_find(v, "fullatt_block_indexes");
    out->full_layers = out->window > 0 ? 0 : out->depth;
    if (out->window > 0 && full) {
        if (!cJSON_IsArray(full))
            return sim_fail(err, SIM_EINPUT,
                            "%s: field 'fullatt_block_indexes' is not a list, expected layer "
                            "indices",
                            where);
        const cJSON *it;
        cJSON_ArrayForEach(it, full)
        {
            if (!cJSON_IsNumber(it) || !(it->valuedouble >= 0 && it->valuedouble < (double)out->depth))
                return sim_fail(err, SIM_EINPUT,
                                "%s: field 'fullatt_block_indexes' holds a value that is not a "
                                "layer index in [0, %lld)",
                                where, (long long)out->depth);
            out->full_layers++;
        }
    }
    return SIM_OK;
}

/* Gemma 3's SigLIP tower (siglip_vision_model) and its projector: the image at image_size
 * square, (image_size / patch)^2 patches, average-pooled to mm_tokens_per_image tokens
 * (Gemma3MultiModalProjector), RMSNorm'd and projected to the language model's width. */
static sim_status read_siglip(const cJSON *root, const cJSON *v, const char *where,
                              const char *path, const sim_model *m, sim_vision *out, sim_err *err)
{
    const int64_t big = (int64_t)1 << 20;
    sim_status st;
    if ((st = sim_jsonf_int(v, where, "num_hidden_layers", 1, 1000, &out->depth, err)) ||
        (st = sim_jsonf_int(v, where, "hidden_size", 1, big, &out->hidden, err)) ||
        (st = sim_jsonf_int(v, where, "intermediate_size", 1, 8 * big, &out->intermediate, err)) ||
        (st = sim_jsonf_int(v, where, "num_attention_heads", 1, 4096, &out->heads, err)) ||
        (st = sim_jsonf_int(v, where, "patch_size", 1, 1024, &out->patch, err)) ||
        (st = sim_jsonf_int(v, where, "image_size", 1, big, &out->image_size, err)) ||
        (st = sim_jsonf_int_opt(root, path, "mm_tokens_per_image", 1, big, 256, &out->fixed_tokens,
                                err)))
        return st;
    const int64_t side = out->image_size / out->patch;
    const int64_t pooled = (int64_t)llround(sqrt((double)out->fixed_tokens));
    if (side < 1 || pooled * pooled != out->fixed_tokens || side % pooled != 0)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'mm_tokens_per_image' is %lld, expected a square that divides "
                        "the (image_size / patch_size)^2 = %lld patches evenly",
                        path, (long long)out->fixed_tokens, (long long)(side * side));
    out->kind = SIM_VISION_SIGLIP;
    out->in_patch = 3 * out->patch * out->patch;
    out->merge = side / pooled;
    out->full_layers = out->depth;
    out->proj_in = out->hidden;
    out->out_hidden = m->hidden;
    return SIM_OK;
}

/* Llama 4's tower: tiles of image_size, pixel shuffle by pixel_shuffle_ratio (0.5: 2 x 2
 * patches a token), the adapter MLP (projector_input_dim, projector_output_dim) and the
 * projector vision_output_dim -> the language model's width. */
static sim_status read_llama4v(const cJSON *v, const char *where, const sim_model *m,
                               sim_vision *out, sim_err *err)
{
    const int64_t big = (int64_t)1 << 20;
    double ratio = 0.5;
    sim_status st;
    if ((st = sim_jsonf_int(v, where, "num_hidden_layers", 1, 1000, &out->depth, err)) ||
        (st = sim_jsonf_int(v, where, "hidden_size", 1, big, &out->hidden, err)) ||
        (st = sim_jsonf_int(v, where, "intermediate_size", 1, 8 * big, &out->intermediate, err)) ||
        (st = sim_jsonf_int_opt(v, where, "num_attention_heads", 1, 4096, 16, &out->heads, err)) ||
        (st = sim_jsonf_int(v, where, "patch_size", 1, 1024, &out->patch, err)) ||
        (st = sim_jsonf_int(v, where, "image_size", 1, big, &out->image_size, err)) ||
        (st = sim_jsonf_num_opt(v, where, "pixel_shuffle_ratio", 0.01, 1.0, 0.5, &ratio, err)) ||
        (st = sim_jsonf_int(v, where, "projector_input_dim", 1, big, &out->merger_mid, err)) ||
        (st = sim_jsonf_int(v, where, "projector_output_dim", 1, big, &out->merger_out, err)) ||
        (st = sim_jsonf_int(v, where, "vision_output_dim", 1, big, &out->proj_in, err)))
        return st;
    const int64_t merge = (int64_t)llround(1.0 / ratio);
    const int64_t side = out->image_size / out->patch;
    if (fabs(1.0 / ratio - (double)merge) > 1e-9 || side < 1 || side % merge != 0)
        return sim_fail(err, SIM_EINPUT,
                        "%s: field 'pixel_shuffle_ratio' is %g, expected 1 / n for an n that "
                        "divides image_size / patch_size (%lld)",
                        where, ratio, (long long)side);
    out->kind = SIM_VISION_LLAMA4;
    out->in_patch = 3 * out->patch * out->patch;
    out->merge = merge;
    out->full_layers = out->depth;
    out->class_token = true;
    out->max_tiles = LLAMA4_MAX_TILES;
    out->merger_in = out->hidden * merge * merge;
    out->out_hidden = m->hidden;
    return SIM_OK;
}

sim_status sim_model_read_vision(const cJSON *root, const cJSON *cfg, const char *path,
                                 sim_model *m, sim_err *err)
{
    const cJSON *v = sim_jsonf_find(root, "vision_config");
    if (!v)
        return SIM_OK;
    if (!cJSON_IsObject(v))
        return sim_fail(err, SIM_EINPUT, "%s: field 'vision_config' is not an object", path);
    char where[320];
    snprintf(where, sizeof where, "%s: vision_config", path);
    const cJSON *outer = sim_jsonf_find(root, "model_type");
    const cJSON *inner = sim_jsonf_find(cfg, "model_type");
    const char *wrap = cJSON_IsString(outer) ? outer->valuestring : "";
    const char *lm = cJSON_IsString(inner) ? inner->valuestring : "";
    sim_status st = SIM_OK;
    if (strcmp(lm, "qwen2_5_vl") == 0)
        st = read_qwen25(v, where, m, &m->vision, err);
    else if (root != cfg && strcmp(wrap, "gemma3") == 0)
        st = read_siglip(root, v, where, path, m, &m->vision, err);
    else if (root != cfg && strcmp(wrap, "llama4") == 0)
        st = read_llama4v(v, where, m, &m->vision, err);
    else
        return SIM_OK; /* a wrapper whose tower is not priced (llava, mistral3): text only */
    if (st)
        return st;
    m->vision_params = sim_model_vision_params(&m->vision);
    return SIM_OK;
}

/* Per ViT layer: attention q, k, v, o with biases (4h^2 + 4h), the MLP (SwiGLU: gate, up and
 * down with biases, 3hf + 2f + h; else fc1 and fc2, 2hf + f + h), two norms (RMSNorm: h each;
 * LayerNorm: 2h each). */
static double vit_layer_params(const sim_vision *v, bool layernorm)
{
    const double h = (double)v->hidden, f = (double)v->intermediate;
    double mlp = v->gated_mlp ? 3.0 * h * f + 2.0 * f + h : 2.0 * h * f + f + h;
    return 4.0 * h * h + 4.0 * h + mlp + (layernorm ? 4.0 * h : 2.0 * h);
}

double sim_model_vision_params(const sim_vision *v)
{
    const double h = (double)v->hidden;
    switch (v->kind) {
    case SIM_VISION_NONE:
        return 0.0;
    case SIM_VISION_QWEN25: {
        /* Qwen2_5_VisionTransformer: Conv3d patch embedding (no bias), the blocks, the merger's
         * RMSNorm and its two Linear layers (with biases) */
        const double in = (double)v->merger_in, out = (double)v->merger_out;
        return (double)v->in_patch * h + (double)v->depth * vit_layer_params(v, false) + h +
               in * in + in + in * out + out;
    }
    case SIM_VISION_SIGLIP: {
        /* SigLIP: patch embedding with bias, a position embedding per patch, the blocks, the
         * post LayerNorm; Gemma 3's projector: RMSNorm (h) and h x text hidden, no bias */
        const double side = (double)(v->image_size / v->patch);
        return (double)v->in_patch * h + h + side * side * h +
               (double)v->depth * vit_layer_params(v, true) + 2.0 * h + h +
               h * (double)v->out_hidden;
    }
    case SIM_VISION_LLAMA4: {
        /* per the checkpoint's tensors (Llama-4-Scout-17B-16E): class embedding h, positions
         * (side^2 + 1) x h, patch projection (no bias), pre and post LayerNorms 4h, the blocks,
         * the pixel-shuffle adapter (no biases), the projector (no bias) */
        const double side = (double)(v->image_size / v->patch);
        return h + (side * side + 1.0) * h + (double)v->in_patch * h + 4.0 * h +
               (double)v->depth * vit_layer_params(v, true) +
               (double)v->merger_in * (double)v->merger_mid +
               (double)v->merger_mid * (double)v->merger_out +
               (double)v->proj_in * (double)v->out_hidden;
    }
    }
    return 0.0;
}

/* Python's round (half to even, as nearbyint in the default mode) of x / f, times f. */
static int64_t round_by(double x, int64_t f) { return (int64_t)nearbyint(x / (double)f) * f; }
static int64_t floor_by(double x, int64_t f) { return (int64_t)floor(x / (double)f) * f; }
static int64_t ceil_by(double x, int64_t f) { return (int64_t)ceil(x / (double)f) * f; }

/* Sum of squared chunk lengths when n is cut into chunks of w (the last one shorter). */
static double chunk_squares(int64_t n, int64_t w)
{
    const int64_t r = n % w;
    return (double)(n / w) * (double)(w * w) + (double)(r * r);
}

/* Qwen2-VL's smart_resize (transformers image_processing_qwen2_vl.py), then the grid:
 * patches (h/p)(w/p), merged tokens a merge^2-th of them; get_window_index's windows of
 * `window` x `window` merged tokens from the top left, the last row and column shorter. */
static void qwen25_image(const sim_vision *v, double w, double h, sim_vision_image *out)
{
    const int64_t f = v->patch * v->merge;
    int64_t hb = round_by(h, f), wb = round_by(w, f);
    if (hb < f)
        hb = f;
    if (wb < f)
        wb = f;
    if ((double)hb * (double)wb > (double)v->max_pixels) {
        const double beta = sqrt(h * w / (double)v->max_pixels);
        hb = floor_by(h / beta, f);
        wb = floor_by(w / beta, f);
        hb = hb < f ? f : hb;
        wb = wb < f ? f : wb;
    } else if ((double)hb * (double)wb < (double)v->min_pixels) {
        const double beta = sqrt((double)v->min_pixels / (h * w));
        hb = ceil_by(h * beta, f);
        wb = ceil_by(w * beta, f);
    }
    const int64_t gh = hb / f, gw = wb / f, mm = v->merge * v->merge;
    out->tiles = 1;
    out->resized_w = wb;
    out->resized_h = hb;
    out->merged = gh * gw;
    out->patches = out->merged * mm;
    out->tokens = out->merged;
    out->full_pairs = (double)out->patches * (double)out->patches;
    out->window_pairs = v->window > 0 ? (double)(mm * mm) * chunk_squares(gh, v->window) *
                                            chunk_squares(gw, v->window)
                                      : 0.0;
}

/* Llama 4's get_best_fit over the canvases of rows x cols tiles (rows x cols <= max_tiles): the
 * smallest scale that upscales, else the largest that downscales, the smaller canvas on a tie. */
static void llama4_canvas(const sim_vision *v, double w, double h, int64_t *rows, int64_t *cols)
{
    double best = -1.0, best_area = 0.0;
    bool up = false;
    const double t = (double)v->image_size;
    for (int64_t r = 1; r <= v->max_tiles; r++)
        for (int64_t c = 1; r * c <= v->max_tiles; c++) {
            const double sw = t * (double)c / w, sh = t * (double)r / h;
            const double s = sw < sh ? sw : sh, area = (double)(r * c);
            bool better;
            if (s >= 1.0)
                better = !up || s < best || (s == best && area < best_area);
            else
                better = !up && (s > best || (s == best && area < best_area));
            if (better) {
                up = up || s >= 1.0;
                best = s;
                best_area = area;
                *rows = r;
                *cols = c;
            }
        }
}

bool sim_model_vision_image(const sim_model *m, int64_t width, int64_t height,
                            sim_vision_image *out)
{
    const sim_vision *v = &m->vision;
    memset(out, 0, sizeof *out);
    if (v->kind == SIM_VISION_NONE || width < 1 || height < 1)
        return false;
    if (v->kind == SIM_VISION_QWEN25) {
        qwen25_image(v, (double)width, (double)height, out);
        return true;
    }
    const int64_t side = v->image_size / v->patch;
    const int64_t per_tile = side * side + (v->class_token ? 1 : 0);
    const int64_t merged_tile = (side / v->merge) * (side / v->merge);
    if (v->kind == SIM_VISION_SIGLIP) {
        out->tiles = 1;
        out->patches = per_tile;
        out->merged = merged_tile;
        out->tokens = merged_tile;
        out->resized_w = out->resized_h = v->image_size;
    } else { /* Llama 4: the local tiles, plus the global one when there are several */
        int64_t rows = 1, cols = 1;
        llama4_canvas(v, (double)width, (double)height, &rows, &cols);
        out->tiles = rows * cols + (rows * cols > 1 ? 1 : 0);
        out->patches = out->tiles * per_tile;
        out->merged = out->tiles * merged_tile;
        out->tokens = out->merged;
        out->resized_w = cols * v->image_size;
        out->resized_h = rows * v->image_size;
    }
    out->full_pairs = (double)out->tiles * (double)per_tile * (double)per_tile;
    return true;
}
