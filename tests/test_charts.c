/* test_charts.c - every chart is well-formed XML and holds what it draws: one circle per op on
 * the roofline, one bar segment per op, the Pareto front in order; no two labels overlap, the
 * memory roof keeps its slope, time axes end with the run; the time-series recorder keeps
 * its sums when it coarsens; the HTML pages are self-contained. */
#include "testutil.h"

#include "charts.h"
#include "html.h"
#include "series.h"
#include "xmlcheck.h"

static void assert_xml(const char *doc, size_t len)
{
    char why[160];
    if (!xml_well_formed(doc, len, why, sizeof why)) {
        print_error("not well-formed XML: %s\n", why);
        fail();
    }
}

static int assert_self_contained_page(const char *path, int min_svgs);

static void assert_chart(const sim_svg *s)
{
    assert_false(s->oom);
    assert_xml(s->s, s->len);
    assert_false(xml_has_nonfinite(s->s));
}

/* The number in attribute `name` of the element starting at el (NAN when it has none). */
static double attr(const char *el, const char *name)
{
    char key[32];
    tu_snprintf(key, sizeof key, " %s=\"", name);
    const char *end = strchr(el, '>'), *p = strstr(el, key);
    return p && end && p < end ? strtod(p + strlen(key), NULL) : NAN;
}

/* The boxes of the <text> elements inside the first <g class="cls">, estimated as the charts
 * lay them out (sim_svg_text_width wide, 0.8 of the size above the baseline, 0.2 below).
 * Returns how many. */
typedef struct box {
    double x0, y0, x1, y1;
} box;
static size_t text_boxes(const char *doc, const char *cls, box *out, size_t max)
{
    char key[64];
    tu_snprintf(key, sizeof key, "<g class=\"%s\">", cls);
    const char *p = strstr(doc, key);
    assert_non_null(p);
    const char *stop = strstr(p, "</g>");
    size_t n = 0;
    for (p = strstr(p, "<text "); p && p < stop && n < max; p = strstr(p + 1, "<text ")) {
        double x = attr(p, "x"), y = attr(p, "y"), size = attr(p, "font-size");
        const char *t = strchr(p, '>') + 1;
        char text[128];
        size_t len = strcspn(t, "<");
        assert_true(len < sizeof text);
        memcpy(text, t, len);
        text[len] = '\0';
        double w = sim_svg_text_width(text, size);
        const char *a = strstr(p, "text-anchor=\"") + 13;
        double x0 = *a == 'e' ? x - w : *a == 'm' ? x - w / 2 : x;
        out[n++] = (box){x0, y - 0.8 * size, x0 + w, y + 0.2 * size};
    }
    return n;
}

static void assert_no_overlap(const box *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (!(b[i].x1 <= b[j].x0 + 0.01 || b[j].x1 <= b[i].x0 + 0.01 ||
                  b[i].y1 <= b[j].y0 + 0.01 || b[j].y1 <= b[i].y0 + 0.01)) {
                print_error("labels %zu [%g,%g]x[%g,%g] and %zu [%g,%g]x[%g,%g] overlap\n", i,
                            b[i].x0, b[i].x1, b[i].y0, b[i].y1, j, b[j].x0, b[j].x1, b[j].y0,
                            b[j].y1);
                fail();
            }
}

/* Llama-3.1-70B on 8 H100s, batch 32, 2048 in, 256 out: the README's run. */
typedef struct fixture {
    sim_model m;
    sim_hw hw;
    sim_run_cfg cfg;
    sim_run_result r;
} fixture;

static fixture *run_fixture(void)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->m = tu_model("llama-3.1-70b");
    f->hw = tu_hw("h100-sxm");
    f->cfg = (sim_run_cfg){.step = {.model = &f->m,
                                    .hw = &f->hw,
                                    .tp = 8,
                                    .prec = {SIM_DT_BF16, SIM_DT_BF16, SIM_DT_BF16},
                                    .iteration_overhead_ns = 1e6,
                                    .request_overhead_ns = 1e4},
                           .batch = 32,
                           .input_len = 2048,
                           .output_len = 256,
                           .mem_util = 0.9};
    sim_run_simulate(&f->cfg, &f->r);
    return f;
}

static int count_present(const sim_step_result *r, bool need_flops)
{
    int n = 0;
    for (int i = 0; i < SIM_OP_COUNT; i++) {
        const sim_op *op = &r->graph.ops[i];
        n += op->present && (!need_flops || (op->flops > 0.0 && sim_op_bytes(op) > 0.0));
    }
    return n;
}

static void test_roofline_one_circle_per_op(void **state)
{
    (void)state;
    fixture *f = run_fixture();
    sim_svg s = {0};
    sim_chart_roofline(&s, &f->hw, &f->r.prefill, &f->r.decode, "infersim run --tp 8");
    assert_chart(&s);
    int want = count_present(&f->r.prefill, true) + count_present(&f->r.decode, true);
    /* at TP 8: 16 ops a step less embed, the two all-reduces and the logits gather (no FLOPs)
     * -> 12 each */
    assert_int_equal(want, 24);
    assert_int_equal(xml_count(s.s, "circle", "op"), want);
    /* one roof per peak the H100 computes at: bf16 and fp16 share 989.4 TFLOP/s, fp8 and int8
     * 1978.9 (no int4): two roofs, each named for both formats (drawn per format, the second
     * hid the first) */
    assert_near(f->hw.peak_flops[SIM_DT_BF16], f->hw.peak_flops[SIM_DT_FP16], 0.0);
    assert_near(f->hw.peak_flops[SIM_DT_FP8], f->hw.peak_flops[SIM_DT_INT8], 0.0);
    assert_int_equal(xml_count(s.s, "polyline", "roof"), 2);
    assert_non_null(strstr(s.s, ">bf16/fp16 989.4T<"));
    assert_non_null(strstr(s.s, ">fp8/int8 1979T<"));
    assert_non_null(strstr(s.s, ">ridge 591 FLOP/byte<")); /* 1978.9 T / 3.35 TB/s */
    /* the ops without FLOPs are named, not dropped silently */
    assert_non_null(strstr(s.s, "attn_allreduce"));
    /* the ops' names: no two boxes overlap and all lie in the frame (74..610 x 64..410: the
     * 780 x 460 picture less its margins); this run names at least 6 ops */
    box b[64] = {{0}};
    size_t n = text_boxes(s.s, "oplabels", b, 64);
    assert_true(n >= 6);
    assert_no_overlap(b, n);
    for (size_t i = 0; i < n; i++)
        assert_true(b[i].x0 >= 74 && b[i].x1 <= 610 && b[i].y0 >= 64 && b[i].y1 <= 410);
    sim_svg_free(&s);
    free(f);
}

/* The dashed memory roof past the ridges lies on the memory roof (bytes/s x intensity): it is
 * collinear with each roof's sloped first segment in pixels, and ends inside the frame. Clamping
 * its end point to the frame's top (1e4 FLOP/byte x 3.35 TB/s is above the 1e16 FLOP/s top)
 * bent it to a wrong slope. */
static void test_roofline_memory_roof_keeps_slope(void **state)
{
    (void)state;
    fixture *f = run_fixture();
    sim_svg s = {0};
    sim_chart_roofline(&s, &f->hw, &f->r.prefill, &f->r.decode, "flags");
    const char *l = strstr(s.s, "stroke-dasharray=\"6 3\"");
    assert_non_null(l);
    while (strncmp(l, "<line", 5) != 0)
        l--;
    double x1 = attr(l, "x1"), y1 = attr(l, "y1"), x2 = attr(l, "x2"), y2 = attr(l, "y2");
    assert_true(x2 - x1 > 100.0);
    assert_true(x1 >= 74 - 0.01 && x2 <= 610 + 0.01);
    assert_true(fmin(y1, y2) >= 64 - 0.01 && fmax(y1, y2) <= 410 + 0.01);
    int roofs = 0;
    for (const char *p = strstr(s.s, "class=\"roof\""); p; p = strstr(p + 1, "class=\"roof\"")) {
        double rx[2], ry[2];
        const char *q = strstr(p, "points=\"") + 8;
        char *end;
        for (int k = 0; k < 2; k++) {
            rx[k] = strtod(q, &end);
            ry[k] = strtod(end + 1, &end);
            q = end + 1;
        }
        /* (r1 - l1) x (l2 - l1) = 0 for both roof points: on one line (to the printed 0.01 px
         * over segments of hundreds of px) */
        for (int k = 0; k < 2; k++) {
            double cross = (x2 - x1) * (ry[k] - y1) - (y2 - y1) * (rx[k] - x1);
            assert_true(fabs(cross) / hypot(x2 - x1, y2 - y1) < 0.05);
        }
        roofs++;
    }
    assert_int_equal(roofs, 2);
    sim_svg_free(&s);
    free(f);
}

static void test_step_bars_one_segment_per_op(void **state)
{
    (void)state;
    fixture *f = run_fixture();
    const sim_step_result *steps[2] = {&f->r.prefill, &f->r.decode};
    const char *names[2] = {"prefill step", "mean decode step"};
    sim_svg s = {0};
    sim_chart_step_ops(&s, steps, names, 2, "flags");
    assert_chart(&s);
    assert_int_equal(xml_count(s.s, "rect", "op"),
                     count_present(&f->r.prefill, false) + count_present(&f->r.decode, false));
    assert_int_equal(xml_count(s.s, "rect", "host"), 2);
    assert_int_equal(xml_count(s.s, "rect", "part"), 2 * 5); /* math memory network launch host */
    sim_svg_free(&s);
    sim_chart_memory(&s, &f->r.mem, "flags");
    assert_chart(&s);
    assert_int_equal(xml_count(s.s, "rect", "part"), 4);
    sim_svg_free(&s);
    free(f);
}

/* Speculation by hand: 1 ms of drafts and a 4 ms verify step yielding tau = 3 tokens at a 2x
 * speed-up: plain decoding needs 2 x (1 + 4) = 10 ms for the same tokens. */
static void test_spec_bar(void **state)
{
    (void)state;
    sim_run_result r = {
        .spec_tau = 3.0, .spec_draft_ns = 1e6, .spec_verify_ns = 4e6, .spec_speedup = 2.0};
    sim_svg s = {0};
    sim_chart_spec(&s, &r, "flags");
    assert_chart(&s);
    assert_int_equal(xml_count(s.s, "rect", "part"), 2);
    assert_non_null(strstr(s.s, "plain decode for 3.00 tokens: 10 ms (2.00x)"));
    sim_svg_free(&s);
}

/* Feeds the recorder by hand: an iteration every 0.5 ms for 300 ms and a preemption every
 * 10 ms. 300 ms passes 256 one-ms buckets once, so the width doubles to 2 ms and 150 buckets
 * hold the run; sums survive: 600 iterations, 30 preemptions, running = 2 x 600. */
static void test_series_coarsens_and_keeps_sums(void **state)
{
    (void)state;
    int calls = 0;
    sim_series *s = malloc(sizeof *s);
    sim_engine_observer next = {.ctx = &calls};
    sim_series_init(s, &next);
    const sim_step_result step = {0};
    for (int k = 0; k < 600; k++) {
        sim_iter_info it = {.start_ns = k * 500000LL,
                            .dur_ns = 500000,
                            .running = 2,
                            .waiting = k < 300 ? 1 : 0,
                            .prefill_tokens = 10,
                            .decode_tokens = 2,
                            .kv_used_blocks = k,
                            .kv_total_blocks = 1000,
                            .step = &step};
        s->observer.iteration(s->observer.ctx, &it);
        if (k % 20 == 0)
            s->observer.request(s->observer.ctx, k, SIM_EV_PREEMPTED, k * 500000LL);
    }
    assert_int_equal(s->width_ns, 2000000);
    assert_int_equal(s->n, 150);
    int64_t iters = 0, pre = 0, kv_peak = 0;
    double running = 0.0;
    for (size_t i = 0; i < s->n; i++) {
        iters += s->b[i].iterations;
        pre += s->b[i].preemptions;
        running += s->b[i].running;
        if (s->b[i].kv_peak_blocks > kv_peak)
            kv_peak = s->b[i].kv_peak_blocks;
    }
    assert_int_equal(iters, 600);
    assert_int_equal(pre, 30);
    assert_near(running, 1200.0, 0.0);
    assert_int_equal(kv_peak, 599);
    assert_int_equal(s->b[0].iterations, 4); /* 0, 0.5, 1, 1.5 ms */
    assert_int_equal(s->kv_total_blocks, 1000);
    assert_true(sim_chart_series_shows(s, SIM_VIEW_PREEMPTIONS)); /* 30 of them */
    for (int v = 0; v < SIM_VIEW_COUNT; v++) {
        sim_svg c = {0};
        sim_chart_series(&c, s, (sim_series_view)v, 300000000, "flags");
        assert_chart(&c);
        sim_svg_free(&c);
    }
    /* a run that ended at 0.29 s (its buckets reach 0.3 s): the axis ends at 0.29 s, its last
     * tick at 0.2 (steps of 0.1), and the bucket from 0.288 s ends on the frame's right edge */
    sim_svg c = {0};
    sim_chart_series(&c, s, SIM_VIEW_TOKENS, 290000000, "flags");
    assert_null(strstr(c.s, ">0.3</text>"));
    assert_non_null(strstr(c.s, ">0.2</text>"));
    const char *last = strstr(c.s, "<title>t 0.288 s:");
    assert_non_null(last);
    while (strncmp(last, "<rect", 5) != 0)
        last--;
    assert_near(attr(last, "x") + attr(last, "width"), 610.0, 0.02);
    sim_svg_free(&c);
    free(s);
}

/* Several engines' series: each instance's events into its own series, passed on to the next
 * observer; aligned to the widest bucket. Instance 0 iterates at 0 and 300 ms (300 ms is past
 * 256 buckets of 1 ms: pairs merge once, 2 ms buckets, the second in bucket 150); instance 1 at
 * 3 ms and preempts at 5 ms (1 ms buckets 3 and 5; aligned to 2 ms: buckets 1 and 2). */
static int forwarded;
static void count_iteration(void *ctx, int instance, const sim_iter_info *it)
{
    (void)ctx, (void)it;
    forwarded += 1 + instance;
}

static void test_series_instances(void **state)
{
    (void)state;
    sim_cluster_observer next = {.iteration = count_iteration};
    sim_series_set set;
    sim_err err = {{0}};
    assert_int_equal(sim_series_set_init(&set, 2, &next, &err), SIM_OK);
    const sim_step_result step = {0};
    sim_iter_info it = {.running = 2, .waiting = 1, .prefill_tokens = 6, .decode_tokens = 2,
                        .kv_used_blocks = 10, .kv_total_blocks = 40, .step = &step};
    forwarded = 0;
    it.start_ns = 0;
    set.observer.iteration(set.observer.ctx, 0, &it);
    it.start_ns = 300000000;
    set.observer.iteration(set.observer.ctx, 0, &it);
    it.start_ns = 3000000, it.kv_used_blocks = 30;
    set.observer.iteration(set.observer.ctx, 1, &it);
    set.observer.request(set.observer.ctx, 1, 7, SIM_EV_PREEMPTED, 5000000);
    assert_int_equal(forwarded, 1 + 1 + 2); /* every iteration passed on, with its instance */
    assert_int_equal(set.s[0].width_ns, 2000000);
    assert_int_equal(set.s[0].n, 151);
    assert_int_equal(set.s[0].b[150].iterations, 1);
    assert_int_equal(set.s[1].width_ns, 1000000);
    assert_int_equal(set.s[1].b[3].iterations, 1);
    assert_int_equal(set.s[1].b[5].preemptions, 1);
    sim_series_set_align(&set);
    assert_int_equal(set.s[1].width_ns, 2000000);
    assert_int_equal(set.s[1].b[1].iterations, 1);
    assert_int_equal(set.s[1].b[1].kv_peak_blocks, 30);
    assert_int_equal(set.s[1].b[2].preemptions, 1);
    assert_int_equal(set.s[1].n, 3);
    /* one line per instance, each named in the legend; a disaggregated pool's names */
    for (int v = 0; v < SIM_VIEW_COUNT; v++) {
        sim_svg c = {0};
        sim_chart_series_instances(&c, &set, v == SIM_VIEW_KV ? 1 : 0, (sim_series_view)v,
                                   300000000, "flags");
        assert_chart(&c);
        assert_int_equal(xml_count(c.s, "polyline", "series"), 2);
        assert_non_null(strstr(c.s, v == SIM_VIEW_KV ? "prefill 0" : "replica 1"));
        assert_non_null(strstr(c.s, v == SIM_VIEW_KV ? "decode 0" : "replica 0"));
        sim_svg_free(&c);
    }
    sim_series_set_free(&set);
}

/* Three requests by hand: sent at 0, first tokens at 10 and 30 ms, last at 50, 70 and 90 ms. */
static void test_cdf_and_gantt(void **state)
{
    (void)state;
    sim_seq seqs[3] = {{.input = 8,
                        .output = 5,
                        .send_ns = 0,
                        .first_sched_ns = 0,
                        .first_token_ns = 10000000,
                        .finish_ns = 50000000},
                       {.input = 8,
                        .output = 5,
                        .send_ns = 0,
                        .first_sched_ns = 5000000,
                        .first_token_ns = 30000000,
                        .finish_ns = 70000000,
                        .preemptions = 1},
                       {.input = 8,
                        .output = 1,
                        .send_ns = 0,
                        .first_sched_ns = 20000000,
                        .first_token_ns = 90000000,
                        .finish_ns = 90000000}};
    sim_engine_result res = {.seqs = seqs, .n = 3, .duration_ns = 90000000};
    /* ITL as the engine keeps it: (value, count) runs, three gaps of 10 ms and one of 20 ms */
    assert_int_equal(sim_hist_add(&res.itl, 20000000, 1), 1);
    assert_int_equal(sim_hist_add(&res.itl, 10000000, 3), 1);
    assert_int_equal(sim_hist_finish(&res.itl), 1);
    sim_dist d = {.mean = 40, .median = 30, .p90 = 78, .p99 = 88.8, .n = 3};
    for (int m = 0; m < SIM_M_COUNT; m++) {
        sim_svg s = {0};
        sim_chart_cdf(&s, &res, (sim_metric)m, &d, m == SIM_M_TTFT ? 50.0 : 0.0, "flags");
        assert_chart(&s);
        assert_int_equal(xml_count(s.s, "polyline", "cdf"), 1);
        assert_int_equal(xml_count(s.s, "circle", "pct"), 3);
        /* the curve: its start, then one point per sample (TPOT: two requests, ITL: four gaps
         * read through the runs: 10, 10, 10, 20 ms) */
        assert_non_null(strstr(s.s, m == SIM_M_ITL    ? "4 samples"
                                      : m == SIM_M_TPOT ? "2 samples"
                                                        : "3 samples"));
        sim_svg_free(&s);
    }
    sim_hist_free(&res.itl);
    /* the whole serve page around them */
    sim_model m = tu_model("llama-3.1-8b");
    sim_hw hw = tu_hw("h100-sxm");
    sim_engine_cfg cfg = {.step = {.model = &m, .hw = &hw, .tp = 1}};
    sim_serve_metrics sm = {.completed = 3, .duration_s = 0.09};
    for (int k = 0; k < SIM_M_COUNT; k++)
        sm.dist[k] = d;
    sim_serve_report rep = {.cfg = &cfg, .res = &res, .m = &sm, .request_rate = INFINITY};
    sim_series ser;
    sim_series_init(&ser, NULL);
    sim_slo slo = {.ms = {[SIM_M_TTFT] = 50.0}};
    char path[256];
    tu_snprintf(path, sizeof path, "%s/infersim-charts-serve-%d.html", tu_tmpdir(), (int)getpid());
    sim_err err = {{0}};
    assert_int_equal(sim_html_serve(path, "infersim serve", &rep, &slo, &ser, NULL, &err), SIM_OK);
    /* 4 CDFs, 3 series (no preemptions: no panel for them), the Gantt chart */
    assert_false(sim_chart_series_shows(&ser, SIM_VIEW_PREEMPTIONS));
    assert_true(sim_chart_series_shows(&ser, SIM_VIEW_KV));
    assert_int_equal(assert_self_contained_page(path, 8), 8);
    remove(path);
    sim_svg s = {0};
    sim_chart_gantt(&s, &res, 40, "flags");
    assert_chart(&s);
    /* queued, prefill and decode for each (request 2's decode has zero length but is drawn) */
    assert_int_equal(xml_count(s.s, "rect", "seg"), 9);
    assert_int_equal(xml_count(s.s, "circle", "preempted"), 1);
    /* the time axis ends with the run (90 ms), not at the round 100 ms past it: the last
     * request's decode ends on the frame's right edge, x = 780 - 170 = 610 */
    double right = 0.0;
    for (const char *p = strstr(s.s, "<rect "); p; p = strstr(p + 1, "<rect "))
        if (strstr(p, "class=\"seg\"") < strchr(p, '>') && strstr(p, "class=\"seg\""))
            right = fmax(right, attr(p, "x") + attr(p, "width"));
    assert_near(right, 610.0, 0.02);
    sim_svg_free(&s);
}

/* x of each point of the first <polyline class="front">, in order. */
static size_t front_xs(const char *doc, double *xs, size_t max)
{
    const char *p = strstr(doc, "class=\"front\"");
    assert_non_null(p);
    p = strstr(p, "points=\"");
    assert_non_null(p);
    p += 8;
    const char *stop = strchr(p, '"');
    size_t n = 0;
    while (p && p < stop && n < max) {
        char *end;
        xs[n++] = strtod(p, &end);
        p = strchr(end, ' ');
        p = p ? p + 1 : NULL;
    }
    return n;
}

static void test_pareto_front_in_order(void **state)
{
    (void)state;
    sim_grid g = {0};
    sim_err err = {{0}};
    assert_int_equal(sim_grid_add(&g, "--tp", "1,2", &err), SIM_OK);
    assert_int_equal(sim_grid_add(&g, "--request-rate", "1,4,16", &err), SIM_OK);
    /* (TPOT, tok/s per GPU): the front from the lowest TPOT up is points 0, 1, 2, 5; point 3
     * is beaten by 1 and point 4 by 2; point 4 misses the SLO of TPOT 25 ms */
    sim_sweep_row rows[6] = {{.point = 0,
                              .ok = true,
                              .meets_slo = true,
                              .tput_per_gpu = 100,
                              .tpot_ms = 5,
                              .ttft_ms = 50},
                             {.point = 1,
                              .ok = true,
                              .meets_slo = true,
                              .tput_per_gpu = 300,
                              .tpot_ms = 8,
                              .ttft_ms = 60},
                             {.point = 2,
                              .ok = true,
                              .meets_slo = true,
                              .tput_per_gpu = 700,
                              .tpot_ms = 15,
                              .ttft_ms = 90},
                             {.point = 3,
                              .ok = true,
                              .meets_slo = true,
                              .tput_per_gpu = 250,
                              .tpot_ms = 9,
                              .ttft_ms = 40},
                             {.point = 4,
                              .ok = true,
                              .meets_slo = false,
                              .tput_per_gpu = 600,
                              .tpot_ms = 30,
                              .ttft_ms = 400},
                             {.point = 5,
                              .ok = true,
                              .meets_slo = false,
                              .tput_per_gpu = 900,
                              .tpot_ms = 40,
                              .ttft_ms = 800}};
    sim_chart_sweep sw = {.rows = rows,
                          .n = 6,
                          .grid = &g,
                          .has_slo = true,
                          .pct = 90,
                          .flags = "infersim sweep serve --tp 1,2 --request-rate 1,4,16"};
    sw.slo_ms[SIM_M_TPOT] = 25.0;
    sim_svg s = {0};
    sim_chart_pareto(&s, &sw, false);
    assert_chart(&s);
    assert_int_equal(xml_count(s.s, "circle", "pt"), 6);
    assert_int_equal(xml_count(s.s, "circle", "best"), 1);
    double xs[16];
    size_t n = front_xs(s.s, xs, 16);
    assert_int_equal(n, 4);
    for (size_t k = 1; k < n; k++)
        assert_true(xs[k] > xs[k - 1]);
    /* the best under the SLO is point 2 (700 tok/s per GPU), labelled with its flags */
    assert_non_null(strstr(s.s, "best: point 2"));
    assert_non_null(strstr(s.s, "--tp 1 --request-rate 16"));
    sim_svg_free(&s);
    /* against TTFT point 3 (40 ms, 250) beats point 0 (50 ms, 100) and point 2 (90 ms, 700)
     * beats point 4 (400 ms, 600): the front is 3, 1, 2, 5 */
    sim_chart_pareto(&s, &sw, true);
    assert_chart(&s);
    assert_int_equal(front_xs(s.s, xs, 16), 4);
    sim_svg_free(&s);
    for (size_t d = 0; d < g.n_dims; d++) {
        sim_chart_sweep_dim(&s, &sw, d);
        assert_chart(&s);
        assert_int_equal(xml_count(s.s, "circle", "pt"), 6);
        box b[8] = {{0}};
        assert_int_equal(text_boxes(s.s, "xcats", b, 8), d == 0 ? 2 : 3); /* short: all */
        /* the best of each value under the SLO: at --tp 2 point 3 (250 tok/s per GPU; points
         * 4 and 5 at 600 and 900 miss it), at --request-rate 16 point 2 (700; 5 misses) */
        const char *c = strstr(s.s, d == 0 ? "<title>point 3:" : "<title>point 2:");
        assert_non_null(c);
        while (strncmp(c, "<circle", 7) != 0)
            c--;
        const char *pl = strstr(s.s, "class=\"best\" points=\"");
        assert_non_null(pl);
        pl = strchr(pl, ' ') + 1;
        for (size_t k = 0; k < (d == 0 ? 1u : 2u); k++)
            pl = strchr(pl + 1, ' '); /* to the second (tp 2) or third (rate 16) point */
        assert_near(strtod(strchr(pl, ',') + 1, NULL), attr(c, "cy"), 0.01);
        sim_svg_free(&s);
    }
    char path[256];
    tu_snprintf(path, sizeof path, "%s/infersim-charts-sweep-%d.html", tu_tmpdir(), (int)getpid());
    assert_int_equal(sim_html_sweep(path, sw.flags, &sw, &err), SIM_OK);
    assert_self_contained_page(path, 4); /* two fronts, a panel per flag */
    remove(path);
    sim_grid_free(&g);
}

/* A panel's value labels never overlap: six device names in 290 px (48 px a band, the longest
 * name 78 px at 10 px) are staggered over two rows, all written; twenty are thinned to every k-th
 * (the ticks stay). Before, they ran into each other ("mi300xa100-sxm-80gbl40s"). */
static void test_sweep_panel_labels_clear(void **state)
{
    (void)state;
    const char *csv[2] = {"mi300x,a100-sxm-80gb,l40s,h100-sxm,h200,b200",
                          "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20000000000"};
    for (int k = 0; k < 2; k++) {
        sim_grid g = {0};
        sim_err err = {{0}};
        assert_int_equal(sim_grid_add(&g, k ? "--batch" : "--hw", csv[k], &err), SIM_OK);
        sim_sweep_row rows[20];
        for (size_t i = 0; i < g.dims[0].n; i++)
            rows[i] = (sim_sweep_row){.point = i, .ok = true, .tput_per_gpu = 100.0 + (double)i};
        sim_chart_sweep sw = {.rows = rows, .n = g.dims[0].n, .grid = &g, .pct = 90};
        sim_svg s = {0};
        sim_chart_sweep_dim(&s, &sw, 0);
        assert_chart(&s);
        box b[20] = {{0}};
        size_t n = text_boxes(s.s, "xcats", b, 20);
        assert_no_overlap(b, n);
        if (k == 0)
            assert_int_equal(n, 6);
        else
            assert_true(n >= 3 && n < 20);
        assert_int_equal(xml_count(s.s, "circle", "pt"), (int)g.dims[0].n);
        sim_svg_free(&s);
        sim_grid_free(&g);
    }
}

/* Errors by hand: 110 against 100 is +10%, 40 against 50 is -20%; not measured and measured 0
 * get no bar. */
static void test_compare_bars(void **state)
{
    (void)state;
    const char *names[4] = {"ttft_ms", "tpot_ms", "e2e_ms", "output_throughput"};
    const double meas[4] = {100.0, 50.0, -1.0, 0.0}, pred[4] = {110.0, 40.0, 7.0, 9.0};
    sim_svg s = {0};
    sim_chart_compare(&s, names, meas, pred, 4, "infersim compare");
    assert_chart(&s);
    assert_int_equal(xml_count(s.s, "rect", "err"), 2);
    assert_non_null(strstr(s.s, "+10.0%"));
    assert_non_null(strstr(s.s, "-20.0%"));
    assert_non_null(strstr(s.s, "not measured (predicted 7)"));
    sim_svg_free(&s);
}

/* A page holds no script, no external reference, and every <svg> in it is well-formed. */
static int assert_self_contained_page(const char *path, int min_svgs)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    static char buf[1 << 21];
    size_t len = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[len] = '\0';
    assert_true(strncmp(buf, "<!DOCTYPE html>", 15) == 0);
    assert_null(strstr(buf, "<script"));
    assert_null(strstr(buf, "src="));
    assert_null(strstr(buf, "href="));
    assert_null(strstr(buf, "url("));
    assert_null(strstr(buf, "@import"));
    /* the only URL is the SVG namespace name, which is never fetched */
    for (const char *p = strstr(buf, "http"); p; p = strstr(p + 1, "http"))
        assert_true(strncmp(p - 7, "xmlns=\"http://www.w3.org/2000/svg\"", 34) == 0);
    int svgs = 0;
    for (const char *p = strstr(buf, "<svg "); p; p = strstr(p + 1, "<svg ")) {
        const char *end = strstr(p, "</svg>");
        assert_non_null(end);
        assert_xml(p, (size_t)(end + 6 - p));
        svgs++;
    }
    assert_true(svgs >= min_svgs);
    return svgs;
}

static void test_html_pages(void **state)
{
    (void)state;
    fixture *f = run_fixture();
    char path[256];
    tu_snprintf(path, sizeof path, "%s/infersim-charts-%d.html", tu_tmpdir(), (int)getpid());
    sim_err err = {{0}};
    assert_int_equal(
        sim_html_run(path, "infersim run --model <llama> & --tp 8", &f->cfg, &f->r, &err), SIM_OK);
    assert_self_contained_page(path, 3); /* roofline, step, memory */
    remove(path);
    /* an unwritable path is bad input naming --html, and leaves nothing */
    assert_int_equal(sim_html_run("/nonexistent-dir/x.html", "c", &f->cfg, &f->r, &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--html"));
    free(f);
}

/* The autoscaler's replicas: two step lines (held dashed, ready solid) from MIN at 0 through
 * each evaluation to the end: 1 + 2 x 2 + 1 = 6 points each; x spans the run (100 s). */
static void test_autoscale_steps(void **state)
{
    (void)state;
    sim_scale_point tl[2] = {{.t_ns = 15000000000LL, .ready = 1, .held = 3, .desired = 3},
                             {.t_ns = 30000000000LL, .ready = 3, .held = 3, .desired = 3}};
    sim_cluster_result c = {.autoscaled = true, .scale_min = 1, .peak_held = 3, .timeline = tl,
                            .n_timeline = 2};
    sim_svg s = {0};
    sim_chart_autoscale(&s, &c, 100000000000LL, "flags");
    assert_non_null(s.s);
    assert_false(s.oom);
    int lines = 0;
    for (const char *p = strstr(s.s, "<polyline"); p; p = strstr(p + 1, "<polyline")) {
        const char *pts = strstr(p, "points=\"");
        int commas = 0;
        for (const char *q = pts + 8; *q != '"'; q++)
            commas += *q == ',';
        assert_int_equal(commas, 6);
        lines++;
    }
    assert_int_equal(lines, 2);
    assert_non_null(strstr(s.s, "stroke-dasharray=\"5,3\""));
    sim_svg_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_series_instances),
        cmocka_unit_test(test_roofline_one_circle_per_op),
        cmocka_unit_test(test_roofline_memory_roof_keeps_slope),
        cmocka_unit_test(test_step_bars_one_segment_per_op),
        cmocka_unit_test(test_spec_bar),
        cmocka_unit_test(test_series_coarsens_and_keeps_sums),
        cmocka_unit_test(test_cdf_and_gantt),
        cmocka_unit_test(test_pareto_front_in_order),
        cmocka_unit_test(test_sweep_panel_labels_clear),
        cmocka_unit_test(test_compare_bars),
        cmocka_unit_test(test_html_pages),
        cmocka_unit_test(test_autoscale_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
