/* dtype.h - numeric formats of weights, activations and the KV cache.
 *
 * One table (sim_dtype_info) holds every property; adding a format is one line there.
 * Sizes are in bits so that 4-bit formats stay exact.
 *
 * Block-scaled formats carry their scales with them: NVFP4 (`fp4`) is e2m1 with one e4m3 scale
 * per 16 values (plus one fp32 scale per tensor, negligible), MXFP4 (`mxfp4`, OCP microscaling)
 * e2m1 with one e8m0 scale per 32, MXFP6 (`mxfp6`) e2m3 or e3m2 (the same size; infersim prices
 * them alike) with one e8m0 scale per 32. Their storage bytes per element count those scales:
 * fp4 (4 + 8/16)/8 = 0.5625, mxfp4 (4 + 8/32)/8 = 0.53125, mxfp6 (6 + 8/32)/8 = 0.78125. Unlike
 * mxfp4, mxfp6 has a tensor peak of its own (dense_tflops.mxfp6, hw.h): it runs at the fp8 rate
 * on Blackwell and at the fp4 rate on MI355X. Integer weight formats get their
 * group scales from the run (sim_prec in graph.h: --weight-group-size), not from the format.
 */
#ifndef SIM_DTYPE_H
#define SIM_DTYPE_H

#include <stdbool.h>

typedef enum sim_dtype {
    SIM_DT_BF16,
    SIM_DT_FP16,
    SIM_DT_FP8,
    SIM_DT_INT8,
    SIM_DT_INT4,
    SIM_DT_FP4,   /* NVFP4: e2m1, one fp8 (e4m3) scale per 16 values */
    SIM_DT_MXFP4, /* OCP MXFP4: e2m1, one e8m0 scale per 32 values */
    SIM_DT_MXFP6, /* OCP MXFP6: e2m3 or e3m2, one e8m0 scale per 32 values */
    SIM_DT_COUNT
} sim_dtype;

typedef struct sim_dtype_info {
    const char *name;     /* flag spelling: "bf16", "fp8", ... */
    int bits;             /* storage bits per value, scales not included */
    int block;            /* values sharing one built-in scale (0: none) */
    int block_scale_bits; /* bits of that scale */
    double dequant_ops;   /* vector-unit ops to turn one stored weight into a math operand in a
                           * mixed-input GEMM (unpack, convert, scale); 0 for 16-bit formats */
    bool weights_only;    /* usable only as a weight format (int4: no int4 math is priced) */
    bool group_scaled;    /* integer format: a dequantized weight carries group scales */
    sim_dtype peak_of;    /* the tensor-core format whose peak prices its math (mxfp4: fp4) */
} sim_dtype_info;

/* Properties of a format; dt must be < SIM_DT_COUNT. */
const sim_dtype_info *sim_dtype_get(sim_dtype dt);

/* Storage bytes per element, built-in block scales included (0.5 for int4, 0.5625 for fp4). */
double sim_dtype_bytes(sim_dtype dt);

/* The name as written on the command line. */
const char *sim_dtype_name(sim_dtype dt);

/* Parses a flag value ("bf16", "fp8", ...). Returns false if unknown. */
bool sim_dtype_parse(const char *s, sim_dtype *out);

/* True for the 16-bit floating formats (bf16, fp16), the "unquantized" ones. */
bool sim_dtype_is_16bit(sim_dtype dt);

/* True for the 4-bit float formats with block scales (fp4, mxfp4). */
bool sim_dtype_is_fp4(sim_dtype dt);

/* True for the float formats with built-in block scales (fp4, mxfp4, mxfp6): a device with a
 * tensor peak for one runs its activations in it too (graph.h sim_graph_prec_defaults). */
bool sim_dtype_is_block_float(sim_dtype dt);

/* A comma-separated list of every format name, for messages: "bf16, fp16, fp8, ...". */
const char *sim_dtype_names(void);

#endif
