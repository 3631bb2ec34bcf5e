/* graph_vision.c - a multimodal model's vision encoder as ops of the step that encodes its
 * images (declared in graph.h): the ViT over every image's patches (tiles), then the merger /
 * projector into the language model's image tokens. vLLM runs the tower in the same forward
 * step as the prompt chunk that first holds the image's placeholder tokens
 * (gpu_model_runner.py _execute_mm_encoder, before the language model's forward), sharded by
 * tensor parallelism (its default mm_encoder_tp_mode "weights": QKVParallelLinear /
 * ColumnParallelLinear / RowParallelLinear in qwen2_5_vl.py, siglip.py, mllama4.py), in the
 * checkpoint's 16-bit format. */
#include "graph.h"

#include <string.h>

#include "collective.h"

/* Vector FLOPs per element of the MLP activation: SiLU(gate) x up as the language model's
 * (graph_build.c), and GELU (tanh form: about as many) for fc1 -> fc2 towers. */
#define VIS_ACT_FLOPS 5.0

/* An all-reduce of `msg` bytes over tp GPUs (as graph_build.c's). */
static void vis_allreduce(sim_op *op, double msg, int tp)
{
    op->present = tp > 1;
    op->net_msg_bytes = msg;
    op->net_ranks = tp;
    op->net_kind = SIM_COLL_ALLREDUCE;
    op->net_hops = 2 * (tp - 1);
    op->net_bytes = sim_collective_bus_bytes(SIM_COLL_ALLREDUCE, msg, tp);
}

/* Non-causal fused attention over `pairs` query-key pairs of `tokens` patches: 4 FLOPs a pair and
 * head dimension (QK^T and PV), Q, K, V read and O written once (nothing cached). */
static void vis_attention(sim_op *op, sim_op_id id, double tokens, double pairs, int64_t heads,
                          int64_t hd, sim_dtype rdt)
{
    memset(op, 0, sizeof *op);
    op->id = id;
    op->present = pairs > 0.0;
    op->compute = op->weight = rdt;
    op->flops = sim_graph_attention_flops((double)heads, (double)hd, (double)hd, pairs);
    op->act_bytes = 4.0 * tokens * (double)(heads * hd) * sim_dtype_bytes(rdt);
}

void sim_graph_build_vision(const sim_model *m, int tp, const sim_batch_shape *s, sim_dtype rdt,
                            sim_graph *g)
{
    static const sim_op_id ops[] = {
        SIM_OP_VISION_PATCH_EMBED, SIM_OP_VISION_NORM,     SIM_OP_VISION_QKV,
        SIM_OP_VISION_ATTENTION,   SIM_OP_VISION_ATTENTION_WINDOW, SIM_OP_VISION_O_PROJ,
        SIM_OP_VISION_MLP_UP,      SIM_OP_VISION_MLP_ACT,  SIM_OP_VISION_MLP_DOWN,
        SIM_OP_VISION_ALLREDUCE,   SIM_OP_VISION_MERGER_FC1, SIM_OP_VISION_MERGER_FC2,
        SIM_OP_VISION_PROJ};
    const size_t n_ops = sizeof ops / sizeof ops[0];
    const sim_vision *v = &m->vision;
    for (size_t i = 0; i < n_ops; i++) {
        g->ops[ops[i]].present = false;
        g->repeats[ops[i]] = 0;
    }
    if (v->kind == SIM_VISION_NONE || !(s->vis_patches > 0.0))
        return;
    const sim_prec p16 = {.weight = rdt, .act = rdt, .kv = rdt};
    const double rb = sim_dtype_bytes(rdt), P = s->vis_patches, M = s->vis_merged;
    const int64_t h = v->hidden, f = v->intermediate / tp, heads = v->heads / tp;
    const int64_t hd = v->hidden / v->heads;
    sim_op *o = g->ops;
    sim_graph_gemm(&o[SIM_OP_VISION_PATCH_EMBED], SIM_OP_VISION_PATCH_EMBED, P, h, v->in_patch,
                   rdt, &p16, rb);
    sim_graph_norm(&o[SIM_OP_VISION_NORM], SIM_OP_VISION_NORM, P, h, rb, rb);
    sim_graph_gemm(&o[SIM_OP_VISION_QKV], SIM_OP_VISION_QKV, P, 3 * heads * hd, h, rdt, &p16, rb);
    vis_attention(&o[SIM_OP_VISION_ATTENTION], SIM_OP_VISION_ATTENTION, P, s->vis_full_pairs,
                  heads, hd, rdt);
    vis_attention(&o[SIM_OP_VISION_ATTENTION_WINDOW], SIM_OP_VISION_ATTENTION_WINDOW, P,
                  s->vis_window_pairs, heads, hd, rdt);
    sim_graph_gemm(&o[SIM_OP_VISION_O_PROJ], SIM_OP_VISION_O_PROJ, P, h, heads * hd, rdt, &p16,
                   rb);
    const int64_t up = v->gated_mlp ? 2 * f : f;
    sim_graph_gemm(&o[SIM_OP_VISION_MLP_UP], SIM_OP_VISION_MLP_UP, P, up, h, rdt, &p16, rb);
    sim_op *act = &o[SIM_OP_VISION_MLP_ACT];
    memset(act, 0, sizeof *act);
    act->id = SIM_OP_VISION_MLP_ACT;
    act->present = true;
    act->compute = act->weight = rdt;
    act->flops = VIS_ACT_FLOPS * P * (double)f;
    act->act_bytes = P * (double)(up + f) * rb;
    sim_graph_gemm(&o[SIM_OP_VISION_MLP_DOWN], SIM_OP_VISION_MLP_DOWN, P, h, f, rdt, &p16, rb);
    sim_op *ar = &o[SIM_OP_VISION_ALLREDUCE];
    memset(ar, 0, sizeof *ar);
    ar->id = SIM_OP_VISION_ALLREDUCE;
    ar->compute = ar->weight = rdt;
    vis_allreduce(ar, P * (double)h * rb, tp);
    g->repeats[SIM_OP_VISION_PATCH_EMBED] = 1;
    /* two norms a layer, and one more before the merger (Qwen's ln_q, SigLIP's post LayerNorm;
     * Llama 4: its pre and post LayerNorms) */
    g->repeats[SIM_OP_VISION_NORM] = 2 * v->depth + (v->kind == SIM_VISION_LLAMA4 ? 2 : 1);
    g->repeats[SIM_OP_VISION_QKV] = g->repeats[SIM_OP_VISION_O_PROJ] = v->depth;
    g->repeats[SIM_OP_VISION_MLP_UP] = g->repeats[SIM_OP_VISION_MLP_ACT] = v->depth;
    g->repeats[SIM_OP_VISION_MLP_DOWN] = v->depth;
    g->repeats[SIM_OP_VISION_ATTENTION] = v->full_layers;
    g->repeats[SIM_OP_VISION_ATTENTION_WINDOW] = s->vis_window_pairs > 0.0 ? v->depth - v->full_layers : 0;
    /* the merger's own row-parallel all-reduce (M x out_hidden) is left out */
    g->repeats[SIM_OP_VISION_ALLREDUCE] = tp > 1 ? 2 * v->depth : 0;
    if (v->merger_in > 0) { /* the merger's MLP: column- then row-parallel */
        sim_graph_gemm(&o[SIM_OP_VISION_MERGER_FC1], SIM_OP_VISION_MERGER_FC1, M,
                       v->merger_mid / tp, v->merger_in, rdt, &p16, rb);
        sim_graph_gemm(&o[SIM_OP_VISION_MERGER_FC2], SIM_OP_VISION_MERGER_FC2, M, v->merger_out,
                       v->merger_mid / tp, rdt, &p16, rb);
        g->repeats[SIM_OP_VISION_MERGER_FC1] = g->repeats[SIM_OP_VISION_MERGER_FC2] = 1;
    }
    if (v->proj_in > 0) { /* the projection into the language model: replicated */
        sim_graph_gemm(&o[SIM_OP_VISION_PROJ], SIM_OP_VISION_PROJ, M, v->out_hidden, v->proj_in,
                       rdt, &p16, rb);
        g->repeats[SIM_OP_VISION_PROJ] = 1;
    }
}
