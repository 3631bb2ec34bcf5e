/* hw.h - one accelerator and its interconnect, loaded from hw/NAME.json.
 *
 * A sim_hw is parsed and validated once, then only read (const) by every other module.
 * Units are SI base units inside (FLOP/s, bytes, bytes/s, ns); the JSON file uses the units in
 * its field names (TFLOP/s, GiB, TB/s, GB/s, us). Every peak is DENSE (no 2:4 sparsity) and every
 * link bandwidth is PER DIRECTION.
 *
 * A device needs only its datasheet: name, dense_tflops (the dense bf16 peak, a number), hbm_gib,
 * hbm_tb_per_s, scaleup_gb_per_s_per_dir and compute_units, plus an optional arch (ampere, ada,
 * hopper, blackwell, cdna3, tpu). Every other field has a default rule (hw_fields.c's field
 * table, printed by `infersim hw FILE` and listed in the README): an architecture constant, or a
 * value derived from the datasheet fields (dense_tflops.fp8 = bf16 x 2 on hopper, ...). A field the
 * file gives always wins. The fields:
 *   name                         display name
 *   arch                         (optional) picks the architecture's constants and ratios
 *   dense_tflops.{bf16,fp16,fp8,int8,int4,fp4,mxfp6}  dense tensor peak per compute format; as
 *                                an object it lists every format the chip computes (one left out:
 *                                none); as a number it is the bf16 peak and the others follow the
 *                                arch; mxfp4 runs on the fp4 tensor cores at the fp4 peak, mxfp6
 *                                has its own (Blackwell: the fp8 rate; MI355X: the fp4 rate)
 *   vector_tflops                non-tensor FP32 peak (norms, activations, dequantization)
 *   hbm_gib                      memory capacity (GiB, as the driver reports it)
 *   hbm_tb_per_s                 memory bandwidth (1e12 bytes/s)
 *   scaleup_gb_per_s_per_dir     scale-up link (NVLink, Infinity Fabric, ICI, PCIe) per GPU, per
 *                                direction (1e9 bytes/s)
 *   collective_latency_us        fixed cost of one NCCL collective (synchronization; the custom
 *                                kernels have their own, collectives.*.latency_us)
 *   scaleup_latency_us           latency of one hop of NCCL's Simple protocol inside the scale-up
 *                                domain
 *   scaleout_gb_per_s_per_dir    network between nodes, per GPU, per direction
 *   scaleout_latency_us          latency of one hop across nodes
 *   devices_per_node             size of the scale-up domain
 *   kernel_launch_us             fixed cost per kernel when launched eagerly
 *   graph_kernel_launch_us       fixed cost per kernel inside a captured CUDA graph
 *   gemm_tile_m                  GEMM row tile: M is padded up to a multiple of it
 *   gemm_weight_only_tile_m      the same for weight-only (mixed-input) GEMM kernels
 *   compute_units                streaming multiprocessors (CUs, MXUs) a GEMM's tiles spread over
 *   gemm_wave_tile               output tile edge of large GEMMs (tiles per wave: compute_units)
 *   gemm_cu_feed_gb_per_s        (optional, default 0: not bound) GEMM operand bytes one compute
 *                                unit's caches feed its matrix cores per second; when stated, a
 *                                GEMM also picks tiles of twice and half gemm_wave_tile, each
 *                                running at most at the rate its operand feed allows
 *   attention_exp_tera_per_s     (optional, default 0: not priced) exponentials per second the
 *                                special-function units compute: FlashAttention-2's softmax
 *                                takes one per score beside its MMAs (cost.h)
 *   runtime_reserved_gib         memory the runtime keeps (CUDA context, library workspaces)
 *   efficiency.gemm.{bf16,...}   achievable fraction of the dense peak for GEMMs
 *   efficiency.gemm_k_half       K at which a GEMM's pipeline reaches half its efficiency
 *                                (0: no K term); efficiency x K / (K + k_half)
 *   efficiency.tensor_rate_ratio (optional, default 0: none) for a part whose tensor cores
 *                                run at this fraction of the chip its GEMM efficiencies and K
 *                                terms were measured on, with that chip's SMs and memory (H20:
 *                                H100's GH100 at 148 of 989 bf16 TFLOP/s): what keeps a GEMM
 *                                from its peak there (pipeline fill and drain, epilogue, tile
 *                                scheduling) takes the same time, so it is a smaller share of
 *                                the slower math (sim_hw_gemm_frac, sim_hw_gemm_k_pipe);
 *                                calibrate prices through it too, so a refit on the part's
 *                                own rows keeps the fractions' meaning
 *   efficiency.gemm_weight_only  fraction reached by weight-only (W8A16/W4A16) GEMM kernels
 *   efficiency.attention         fraction of the bf16 peak reached by fused attention kernels
 *   efficiency.memory            fraction of hbm bandwidth reached by streaming kernels
 *   efficiency.attention_kv_half (optional, default 0: none) a fused attention kernel's fixed
 *                                work per query block, in keys of its main loop: a query block
 *                                loads Q, fills the K/V pipeline and normalizes and writes O once
 *                                however many keys it attends, so the prefill part's math time is
 *                                x (1 + kv_half / keys per query); stated where op rows of
 *                                several sequence lengths measure it (MI355X's CK rows); fitted
 *                                by calibrate where the file states it
 *   efficiency.attention_memory  fraction of hbm bandwidth reached by attention reading a paged KV
 *                                cache (scattered blocks: below a streaming copy)
 *   efficiency.network           fraction of link bandwidth reached by NCCL's Simple protocol
 *   host_link_gb_per_s_per_dir   the GPU's link to host DRAM per direction (PCIe x16 of its
 *                                generation; NVLink-C2C on GH200 / GB200): KV offload's loads
 *   host_link_latency_us         a KV load's fixed cost over it, per request
 *   efficiency.host_link         fraction of host_link a host-to-device copy reaches
 *   host_disk_gb_per_s           local NVMe read bandwidth per GPU (a KV disk tier)
 *   host_disk_latency_us         a disk read's fixed cost, per request
 *   block_fp8_cta_gb_per_s (optional, default per architecture: hopper 42, else 0 = no
 *                                bound) weight bytes per second ONE thread block of a
 *                                block-scaled fp8 GEMM streams (one per 64 rows x 128 columns,
 *                                no split-K: vLLM's Triton w8a8_block_fp8_matmul)
 *   block_fp8_math_eff           (optional, default per architecture: hopper 0.230, else 0)
 *                                the fraction of one SM's fp8 peak a tile of that kernel
 *                                computes at (its scales applied in the main loop)
 *   moe_k_step_us                (optional, default per architecture: blackwell 0.545,
 *                                ampere 0.798, else 0 = no term) the time of one BLOCK_SIZE_K step of a Triton
 *                                fused_moe thread block's K loop: each block walks its weight
 *                                columns' whole K serially, so the kernel lasts at least
 *                                K / BLOCK_SIZE_K steps on top of its bytes (moe.h
 *                                sim_moe_triton_kloop_ns)
 *   mma_sync_fraction            (optional, default 1) the peak of the warp-level mma.sync
 *                                instruction (Ampere's m16n8k16, which Marlin-style mixed-input
 *                                kernels issue) over the dense peak: 1 where it is the
 *                                tensor-core instruction (Ampere, Ada); Hopper's dense peak
 *                                needs wgmma, mma.sync reaches about 2/3 of it (the hopper files
 *                                state 0.667); the moe.h marlin family computes at it
 *   decode_cta_gb_per_s          K/V bytes per second ONE decode-attention thread block (one
 *                                sequence's head, not split) streams: what an unsplit decode
 *                                kernel reaches when it has fewer blocks than SMs (dattn.h)
 *   quant.gemm_k_half.{fp8,int8,fp4,mxfp6}  (optional, >= 1, default efficiency.gemm_k_half) the
 *                                K-pipeline term of GEMMs computing in that format
 *   quant.gemm_memory.{fp8,int8,fp4,mxfp6}  (optional, default efficiency.memory) fraction of HBM
 *                                bandwidth a skinny (memory-bound) GEMM computing in that format
 *                                reaches: 8- and 4-bit kernels stream below a plain copy
 *   efficiency.gemm_fixed_us     (optional, >= 0, default 0) the fixed time, in us, of a dense
 *                                (not grouped, not mixed-input) GEMM kernel on top of
 *                                max(math, memory): its prologue (tensor-map / scale-factor
 *                                setup, the pipeline's first loads), its epilogue and a split-K
 *                                kernel's clean-up, which the kernel pays however small the
 *                                GEMM (AITER's tuned MI355X GEMMs: ~5-10 us at M = 1 whatever
 *                                the bytes); fitted by calibrate on the device's small GEMMs
 *   quant.gemm_fixed_us.{fp8,int8,fp4,mxfp6}  (optional, default efficiency.gemm_fixed_us)
 *                                the same for GEMMs computing in that format
 *   quant.mixed_input_memory.{fp8,int8,int4,fp4,mxfp4,mxfp6}  (optional, default
 *                                efficiency.memory) the same for mixed-input GEMMs (Marlin,
 *                                Machete, AWQ, W4A8) whose weights are stored in that format and
 *                                dequantized in the kernel
 *                                (the quant object is read after the field table; its defaults are
 *                                the 16-bit values, through the accessors below)
 *   mla_decode.{compute_eff,memory_eff}  MLA decode kernels (FlashMLA and its kind, dattn.h):
 *                                the fraction of the 16-bit peak their padded query tiles reach
 *                                and the fraction of HBM bandwidth their latent reads reach
 *   alltoall.low_latency.{latency_us,nvlink_bw_eff}  DeepEP-style low-latency MoE dispatch /
 *                                combine (a2a.h): fixed cost and the fraction of scaleup
 *                                bandwidth it reaches
 *   alltoall.normal.{latency_us,nvlink_bw_eff}  the same for the normal (high-throughput,
 *                                NVLink + RDMA forwarding) kernels
 *   alltoall.rdma_bw_eff         fraction of scaleout (the NIC: InfiniBand / RoCE) bandwidth
 *                                both modes' RDMA writes reach
 *   usd_per_gpu_hour             (optional) on-demand cloud price of one GPU for one hour, US$
 *                                (absent: the cost outputs say the price is unknown)
 *   power.{tdp_w,idle_w}        (optional) board power limit (TDP) and idle floor of one
 *                                device, W: the range power.h's estimate scales between
 *                                (absent: the energy outputs say the power is unknown; idle_w
 *                                must be below tdp_w)
 *   sources.FIELD                (optional, but every shipped file has one per field it gives)
 *                                where a number comes from
 *   provenance.FIELD             (optional) how an efficiency was obtained: fitted on N rows
 *                                (calibrate writes it) or inherited from a measured device by a
 *                                rule; see sim_hw_prov below
 *   collectives                  (optional object; absent = NCCL's ring with the Simple protocol
 *                                only) the collective algorithms and their constants, priced by
 *                                collective.h:
 *     algorithms                 array of names: "ring" (required), "tree", "oneshot", "twoshot",
 *                                "nvls"
 *     ll.{base_us,hop_us,bw_eff}, ll128.{base_us,hop_us,bw_eff}   NCCL's low-latency protocols
 *                                (optional: an object absent = the runtime has no such protocol)
 *     simple.base_us             NCCL Simple's base latency (its hop is scaleup_latency_us, its
 *                                payload fraction 1)
 *     oneshot.{latency_us,bw_eff}, twoshot.{latency_us,bw_eff}, custom_max_bytes   custom
 *                                all-reduce (required when listed)
 *     nvls.{latency_us,bw_eff}   NVSwitch multicast (required when listed)
 *     sources.FIELD              where each comes from
 */
#ifndef SIM_HW_H
#define SIM_HW_H

#include <stdbool.h>
#include <stddef.h>

#include "dtype.h"
#include "status.h"

/* Collective algorithms and constants (the `collectives` object). Indexed by sim_coll_proto and
 * sim_coll_algo of collective.h. */
typedef struct sim_hw_coll {
    unsigned algos;            /* bit (1 << sim_coll_algo) per algorithm the device has */
    double proto_base_ns[3];   /* NCCL base latency per protocol (LL, LL128, Simple) */
    double proto_hop_ns[3];    /* per scale-up hop (Simple's is scaleup_latency_ns, unused here) */
    double proto_bw_eff[3];    /* payload fraction of the link (Simple: 1) */
    double algo_latency_ns[8]; /* oneshot, twoshot, nvls: fixed latency of the kernel */
    double algo_bw_eff[8];     /* oneshot, twoshot, nvls: fraction of the scale-up bandwidth */
    double custom_max_bytes;   /* largest all-reduce the custom kernels take */
} sim_hw_coll;

/* Provenance of an efficiency: how far its value rests on measurements (`infersim hw FILE`
 * prints it; the error bands read it). The device file's optional `provenance` object has one
 * entry per efficiency it vouches for, keyed by the dotted field name:
 *   "efficiency.gemm.bf16": {"kind": "fitted", "rows": 12, "data": "tools/data/validation.csv"}
 *       fitted by `infersim calibrate` on `rows` op-level rows whose hw column is this file's
 *       stem (calibrate writes these entries itself)
 *   "efficiency.attention": {"kind": "inherited", "from": "mi300x", "rows": 9, "rule": "..."}
 *       the value of the measured device `from` (fitted there on `rows` rows; 0 or absent:
 *       unknown), carried over by the stated `rule` (same die, a scaling law, ...)
 * An efficiency with no entry is "stated" when the file gives its value (its `sources` note
 * says where from: an estimate, a ratio), "default" when the architecture's constant or the
 * field table's rule fills it; a value copied from another efficiency (gemm.fp16 from
 * gemm.bf16, quant.gemm_memory.fp8 from efficiency.memory when absent) has that one's
 * provenance. A device is "default-only" when none of its efficiencies is fitted or inherited
 * (sim_hw_default_only): the sweep marks its points.
 *
 * Example (const sim_hw *hw):
 *   const sim_hw_prov *p = sim_hw_provenance(hw, "efficiency.gemm.bf16");
 *   if (p && p->kind == SIM_HW_PROV_FITTED && p->rows < 5) {
 *       ... a wide error band: few rows back this value
 *   }
 */
typedef enum sim_hw_prov_kind {
    SIM_HW_PROV_DEFAULT,   /* an architecture constant or a rule of the field table */
    SIM_HW_PROV_STATED,    /* given in the file with only a `sources` note (not fitted here) */
    SIM_HW_PROV_INHERITED, /* a measured device's value carried over by a stated rule */
    SIM_HW_PROV_FITTED,    /* fitted by `infersim calibrate` on this device's op-level rows */
    SIM_HW_PROV_KIND_COUNT
} sim_hw_prov_kind;

typedef struct sim_hw_prov {
    sim_hw_prov_kind kind;
    int rows;        /* FITTED: the op-level rows of its fit group; INHERITED: the rows the source
                      * device's value was fitted on (0: not stated); else 0 */
    char device[48]; /* FITTED: this device (the rows' hw column); INHERITED: the source device;
                      * else "" */
    char note[384];  /* FITTED: the data file; INHERITED: the rule; else "" */
} sim_hw_prov;

/* The efficiencies that carry a provenance, in order: efficiency.gemm.{bf16,fp16,fp8,int8,int4,
 * fp4,mxfp6}, efficiency.gemm_k_half, gemm_weight_only, attention, attention_kv_half, memory,
 * attention_memory,
 * network, decode_cta_gb_per_s, collective_latency_us, scaleup_latency_us,
 * quant.gemm_k_half.{fp8,int8,fp4,mxfp6}, quant.gemm_memory.{fp8,int8,fp4,mxfp6},
 * quant.mixed_input_memory.{fp8,int8,int4,fp4,mxfp4,mxfp6}, collectives.{ll,ll128}.bw_eff,
 * collectives.{oneshot,twoshot,nvls}.{latency_us,bw_eff}, efficiency.gemm_fixed_us,
 * quant.gemm_fixed_us.{fp8,int8,fp4,mxfp6}, gemm_cu_feed_gb_per_s. */
#define SIM_HW_N_EFF 45

/* Where a field's value came from (`infersim hw FILE` prints it). */
typedef enum sim_hw_origin { SIM_HW_FILE, SIM_HW_DEFAULT, SIM_HW_DERIVED } sim_hw_origin;

#define SIM_HW_MAX_FIELDS 64

/* The most board power (power.tdp_w, W) a device file may give. */
#define SIM_HW_MAX_POWER_W 10000.0

typedef struct sim_hw {
    char name[96];                   /* display name */
    char arch[16];                   /* "hopper", ...; "" when the file names none */
    unsigned char origin[SIM_HW_MAX_FIELDS]; /* sim_hw_origin of each field, in table order */
    char path[256];                  /* file it was loaded from */
    double peak_flops[SIM_DT_COUNT]; /* dense tensor FLOP/s per compute format; 0 = none */
    double vector_flops;             /* non-tensor FP32 FLOP/s */
    double hbm_bytes;                /* capacity, bytes */
    double hbm_bytes_per_s;          /* bandwidth, bytes/s */
    double collective_ns;            /* fixed cost per collective */
    double scaleup_bytes_per_s;      /* per GPU, per direction */
    double scaleup_latency_ns;       /* per collective hop */
    double scaleout_bytes_per_s;     /* per GPU, per direction */
    double scaleout_latency_ns;      /* per collective hop */
    int devices_per_node;            /* scale-up domain size */
    double launch_ns;                /* per kernel, eager */
    double graph_launch_ns;          /* per kernel, inside a CUDA graph */
    int gemm_tile_m;                 /* GEMM M padding */
    int wo_tile_m;                   /* weight-only GEMM M padding */
    int compute_units;               /* SMs / CUs / MXUs */
    int wave_tile;                   /* GEMM output tile edge for wave quantization */
    double gemm_cu_feed_bytes_per_s; /* GEMM operands fed per compute unit, 0 = not bound */
    double attn_exp_per_s;           /* softmax exps per second (SFU), 0 = not priced */
    double gemm_k_half;              /* K at half the GEMM pipeline's efficiency */
    double tensor_rate_ratio;        /* tensor rate over the measured chip's; 0: not cut */
    double gemm_fixed_ns;            /* a dense GEMM kernel's fixed time (16-bit), 0 = none */
    double runtime_reserved_bytes;   /* memory the runtime keeps */
    double eff_gemm[SIM_DT_COUNT];   /* achievable fraction of peak_flops per format */
    double eff_gemm_weight_only;     /* of the 16-bit peak, for weight-only GEMMs */
    double eff_attention;            /* of the 16-bit peak, fused attention */
    double attn_kv_half; /* keys of fixed work per query block (efficiency.attention_kv_half) */
    double eff_memory;               /* of hbm_bytes_per_s */
    double eff_attn_memory;          /* of hbm_bytes_per_s, attention over paged KV */
    double eff_network;              /* of the link bandwidth */
    double decode_cta_bytes_per_s;   /* K/V one decode-attention thread block streams (dattn.h) */
    double block_fp8_cta_bytes_per_s; /* weights one block-scaled fp8 GEMM thread block streams
                                       * (cost.h sim_cost_block_fp8_cta_ns); 0: no bound */
    double block_fp8_math_eff; /* its 64 x 128 tiles' fraction of an SM's fp8 peak; 0: none */
    double moe_k_step_ns;      /* one K step of a Triton fused_moe thread block; 0: none */
    double mma_sync_frac;      /* mma.sync's peak over the dense peak (1: the same) */
    double mla_compute_eff;          /* MLA decode kernels: of the 16-bit peak (padded tiles) */
    double mla_memory_eff;           /* MLA decode kernels: of hbm_bytes_per_s (latent reads) */
    sim_hw_coll coll;                /* collective algorithms (collective.h) */
    struct {                         /* MoE dispatch / combine kernels per mode (a2a.h) */
        double ll_latency_ns;        /* low-latency mode's fixed cost */
        double ll_nvlink_eff;        /* its fraction of scaleup bandwidth */
        double normal_latency_ns;    /* normal (high-throughput) mode's fixed cost */
        double normal_nvlink_eff;    /* its fraction of scaleup bandwidth */
        double rdma_eff;             /* both modes' fraction of scaleout bandwidth (RDMA) */
    } a2a;
    struct {                         /* 0 = not given: the 16-bit value (accessors below) */
        double gemm_k_half[SIM_DT_COUNT];        /* per compute format */
        double gemm_memory[SIM_DT_COUNT];        /* of hbm_bytes_per_s, per compute format */
        double gemm_fixed_ns[SIM_DT_COUNT];      /* ns, per compute format */
        double mixed_input_memory[SIM_DT_COUNT]; /* of hbm_bytes_per_s, per stored weight format
                                                  * of a mixed-input GEMM */
    } quant;
    double host_link_bytes_per_s;    /* GPU to host memory, per direction (PCIe, NVLink-C2C) */
    double host_link_latency_ns;     /* a KV load's fixed cost over it */
    double eff_host_link;            /* of host_link_bytes_per_s, a copy reaches */
    double host_disk_bytes_per_s;    /* local NVMe read per GPU (a KV disk tier) */
    double host_disk_latency_ns;     /* a disk read's fixed cost */
    double usd_per_gpu_hour;         /* on-demand price of one GPU-hour; 0 = unknown */
    struct {                         /* board power (power.h); tdp_w 0 = unknown */
        double tdp_w, idle_w;        /* W, per device */
    } power;
    sim_hw_prov prov[SIM_HW_N_EFF];  /* per efficiency, in sim_hw_eff_name order */
} sim_hw;

/* Loads and validates a device file. On error *hw is unspecified and err names file and field. */
sim_status sim_hw_load(const char *path, sim_hw *hw, sim_err *err);

/* The name of efficiency i (0 .. SIM_HW_N_EFF - 1) in the list above. */
const char *sim_hw_eff_name(size_t i);

/* The provenance of efficiency `field` ("efficiency.attention"), or NULL when `field` is not one
 * of the list above. */
const sim_hw_prov *sim_hw_provenance(const sim_hw *hw, const char *field);

/* "default", "stated", "inherited", "fitted". */
const char *sim_hw_prov_kind_name(sim_hw_prov_kind k);

/* One line: "fitted on 12 rows (tools/data/validation.csv)", "inherited from mi300x (rule)",
 * "stated in the file (see sources)", "default (architecture constant or rule)". */
void sim_hw_prov_describe(const sim_hw_prov *p, char *buf, size_t len);

/* True when no efficiency of the device is fitted or inherited: every one is an architecture
 * default or a number the file states without a measurement behind it here. */
bool sim_hw_default_only(const sim_hw *hw);

/* The device as a whole: "fitted" when any efficiency is fitted on its own rows, else
 * "inherited" when any is inherited, else "default-only" (sweep rows' hw_efficiency). */
const char *sim_hw_trust_name(const sim_hw *hw);

/* One field of the device table, for `infersim hw FILE`. */
typedef struct sim_hw_field_info {
    const char *json; /* "dense_tflops.fp8" */
    double value;     /* in the file's units (TFLOP/s, GiB, us, ...) */
    sim_hw_origin origin;
    const char *rule;        /* the default rule, documented */
    const char *arch_source; /* where the architecture's constants come from, or NULL */
} sim_hw_field_info;

size_t sim_hw_n_fields(void);
sim_hw_field_info sim_hw_field(const sim_hw *hw, size_t i);
const char *sim_hw_origin_name(sim_hw_origin o);

/* The compute formats the device has a tensor peak for, comma-separated in the dtype table's
 * order ("bf16, fp16, fp8, int8"; mxfp4 with fp4, whose peak it runs at); "none" if none. */
void sim_hw_formats(const sim_hw *hw, char *buf, size_t len);

/* Ridge point (critical intensity) for a compute format: peak / bandwidth, FLOP per byte.
 * 0 if the device has no peak for that format. */
double sim_hw_ridge(const sim_hw *hw, sim_dtype compute);

/* The K-pipeline half point of GEMMs computing in `compute` (quant.gemm_k_half, else
 * gemm_k_half). */
double sim_hw_gemm_k_half(const sim_hw *hw, sim_dtype compute);

/* The K-pipeline term GEMMs computing in `compute` are priced with: sim_hw_gemm_k_half, times
 * tensor_rate_ratio where the file states one (the fill and drain last as long as on the
 * measured chip, which covers fewer K steps of the slower math in that time).
 * H100's fp8 1283 on H20 (ratio 0.1496) is 192. */
double sim_hw_gemm_k_pipe(const sim_hw *hw, sim_dtype compute);

/* A GEMM kernel's fraction of the peak as priced on this device: `frac` (measured on the chip
 * its efficiencies come from) where tensor_rate_ratio is 0 or 1, else the fraction the same
 * overhead time leaves of math r times slower: frac / (frac + r (1 - frac)). Tensor time t at
 * the measured chip's peak took t / frac in all, t (1 - frac) / frac of it overhead; the math
 * becomes t / r, the overhead stays.
 * By hand: frac 0.6, r 0.15 gives 0.6 / (0.6 + 0.15 x 0.4) = 0.9091. */
double sim_hw_gemm_frac(const sim_hw *hw, double frac);

/* Fraction of HBM bandwidth a GEMM computing in `compute` streams at (quant.gemm_memory, else
 * eff_memory). */
double sim_hw_gemm_memory(const sim_hw *hw, sim_dtype compute);

/* The fixed time in ns of a dense GEMM kernel computing in `compute` (quant.gemm_fixed_us, else
 * efficiency.gemm_fixed_us; 0 when the file gives neither). */
double sim_hw_gemm_fixed_ns(const sim_hw *hw, sim_dtype compute);

/* The same for a mixed-input GEMM with weights stored as `weight`. */
double sim_hw_mixed_input_memory(const sim_hw *hw, sim_dtype weight);

#endif
