/* dtype.h - numeric formats of weights, activations and the KV cache.
 *
 * One table (sim_dtype_info) holds every property; adding a format is one line there.
 * Sizes are in bits so that int4 (half a byte) stays exact.
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
    SIM_DT_COUNT
} sim_dtype;

typedef struct sim_dtype_info {
    const char *name;   /* flag spelling: "bf16", "fp8", ... */
    int bits;           /* storage bits per element */
    double dequant_ops; /* vector-unit ops to turn one stored weight into a 16-bit operand in a
                         * weight-only GEMM (unpack, convert, scale); 0 for 16-bit formats */
    bool weights_only;  /* usable only as a weight format (int4) */
} sim_dtype_info;

/* Properties of a format; dt must be < SIM_DT_COUNT. */
const sim_dtype_info *sim_dtype_get(sim_dtype dt);

/* Storage bytes per element (0.5 for int4). */
double sim_dtype_bytes(sim_dtype dt);

/* The name as written on the command line. */
const char *sim_dtype_name(sim_dtype dt);

/* Parses a flag value ("bf16", "fp8", ...). Returns false if unknown. */
bool sim_dtype_parse(const char *s, sim_dtype *out);

/* True for the 16-bit floating formats (bf16, fp16), the "unquantized" ones. */
bool sim_dtype_is_16bit(sim_dtype dt);

/* A comma-separated list of every format name, for messages: "bf16, fp16, fp8, int8, int4". */
const char *sim_dtype_names(void);

#endif
