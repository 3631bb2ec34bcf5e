/* engfix.h - the engine tests' fixture: a model, a device and an engine configuration over them
 * (Llama-style defaults: bf16, a 1 ms iteration and 10 us request overhead, 256 sequences, 8192
 * batched tokens, chunked prefill, 16-token blocks, 0.9 of HBM). Tests change fields after. */
#ifndef TESTS_ENGFIX_H
#define TESTS_ENGFIX_H

#include "testutil.h"

#include "engine.h"

typedef struct fixture {
    sim_model m;
    sim_hw hw;
    sim_engine_cfg cfg;
} fixture;

/* The fixture for `model` on `hw` at TP `tp` (free() it). */
static inline fixture *tu_engine_new(const char *model, const char *hw, int tp)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->m = tu_model(model);
    f->hw = tu_hw(hw);
    f->cfg = (sim_engine_cfg){
        .step = {.model = &f->m,
                 .hw = &f->hw,
                 .tp = tp,
                 .prec = {SIM_DT_BF16, SIM_DT_BF16, SIM_DT_BF16, 0, false},
                 .iteration_overhead_ns = 1e6,
                 .request_overhead_ns = 1e4},
        .sched = {.max_num_seqs = 256, .max_num_batched_tokens = 8192, .chunked_prefill = true},
        .block_size = 16,
        .mem_util = 0.9};
    return f;
}

#endif
