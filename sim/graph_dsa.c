/* graph_dsa.c - DeepSeek Sparse Attention's lightning indexer per GPU (DeepSeek-V3.2; declared in
 * graph.h). The sparse MLA it feeds is graph_build.c's MLA attention over each query's top-k keys.
 *
 * As vLLM runs it (model_executor/models/deepseek_v2.py's Indexer and SparseAttnIndexer;
 * v1/attention/backends/mla/indexer.py), replicated on every TP rank:
 *   indexer_proj  wq_b: q_lora -> heads x dim (the query latent, the weight format) and the fused
 *                 16-bit wk + weights_proj: d -> dim + heads (two GEMMs)
 *   indexer       logits of each query against every cached key: sum over heads of
 *                 w_h ReLU(q_h . k): 2 heads dim FLOPs for the dot products and 2 heads for the
 *                 ReLU and weighting, per query-key pair (DeepGEMM's fp8 mqa logits kernels, in
 *                 fp8 when the step's GEMMs are); bytes: the fp8 queries (heads x dim) and fp32
 *                 weights (heads) per token, every cached key of the sequence (132 B a token), the
 *                 fp32 logits of every pair written and read once by the top-k, the new tokens'
 *                 keys written (and the top-k indices, index_topk int32 per token); kernels: the
 *                 key's quantize-and-cache, the logits, the top-k.
 * DeepSeek-V3.2 (64 heads of 128, top-2048) decoding one token at context 128K: 131,072 pairs,
 * 131,072 x (2 x 64 x 128 + 2 x 64) = 2,164,260,864 FLOPs, 131,072 x 132 = 17,301,504 B of keys
 * read, 1 MiB of logits written and read: its cost grows with the context while the sparse MLA
 * stays at 2048 keys.
 */
#include "graph.h"

#define IDX_FP32 4.0
#define IDX_INT32 4.0
#define IDX_QUANT_BLOCK 128.0 /* the indexer key's fp8 scale block (quant_block_size) */

double sim_graph_indexer_key_bytes(const sim_model *m)
{
    if (m->index_topk == 0)
        return 0.0;
    const double di = (double)m->index_head_dim;
    return di + di / IDX_QUANT_BLOCK * IDX_FP32;
}

void sim_graph_build_indexer(const sim_model *m, const sim_prec *prec, const sim_batch_shape *s,
                             double rb, sim_graph *g)
{
    const double t = s->tokens, d = (double)m->hidden;
    const double hi = (double)m->index_heads, di = (double)m->index_head_dim;
    sim_op *op = &g->ops[SIM_OP_INDEXER_PROJ];
    const double nq = hi * di, nk = di + hi;
    op->m = (int64_t)t;
    op->n = (int64_t)nq;
    op->k = m->q_lora_rank;
    op->flops = 2.0 * t * nq * (double)m->q_lora_rank + 2.0 * t * nk * d;
    op->weight_bytes = nq * (double)m->q_lora_rank * sim_graph_weight_elem_bytes(prec, prec->weight) +
                       nk * d * rb;
    op->act_bytes = t * ((double)m->q_lora_rank * sim_dtype_bytes(prec->act) + nq * rb) +
                    t * (d * rb + nk * rb);
    op->weight = prec->weight;
    op->compute = prec->act;
    op->weight_only = sim_graph_mixed_input(prec, prec->weight);

    op = &g->ops[SIM_OP_INDEXER];
    const double pairs = s->swa_pairs, keys = s->swa_kv_tokens, kb = sim_graph_indexer_key_bytes(m);
    const sim_dtype gd = sim_graph_gemm_dtype(prec);
    op->compute = sim_dtype_get(gd)->bits == 8 ? gd : sim_graph_resid_dtype(m, prec);
    op->flops = pairs * (2.0 * hi * di + 2.0 * hi);
    op->act_bytes = t * (hi * di + hi * IDX_FP32) + 2.0 * pairs * IDX_FP32 +
                    t * (double)m->index_topk * IDX_INT32;
    op->kv_read_bytes = keys * kb;
    op->kv_write_bytes = t * kb;
}
