/* test_svg.c - the SVG writer: escaping, scales and ticks worked by hand, well-formed output. */
#include "testutil.h"

#include "svg.h"
#include "xmlcheck.h"

static void assert_well_formed(const sim_svg *s)
{
    char why[160];
    assert_false(s->oom);
    if (!xml_well_formed(s->s, s->len, why, sizeof why)) {
        print_error("not well-formed XML: %s\n", why);
        fail();
    }
}

static void test_escaping(void **state)
{
    (void)state;
    sim_svg s = {0};
    sim_svg_escaped(&s, "a<b & \"c\" 'd'>\x01");
    assert_string_equal(s.s, "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
    sim_svg_free(&s);
    /* text and tooltips with markup stay text */
    sim_svg_begin(&s, 100, 50, "</svg><script>x</script>");
    sim_svg_text(&s, 1, 2, SIM_SVG_START, 10, false, 0, "p99 < 5 & \"fast\"");
    sim_svg_rect(&s, 0, 0, 10, 10, "#000000", "op", "<b>&");
    sim_svg_end(&s);
    assert_well_formed(&s);
    assert_null(strstr(s.s, "<script"));
    assert_int_equal(xml_count(s.s, "rect", "op"), 1);
    sim_svg_free(&s);
}

static void test_linear_scale(void **state)
{
    (void)state;
    /* [0, 7.3] over 5 parts: a raw step of 1.46 rounds up to 2, so the domain widens to [0, 8]
     * and the ticks are 0 2 4 6 8 */
    sim_scale x = sim_scale_linear(0.0, 7.3, 100.0, 500.0);
    assert_near(x.d0, 0.0, 0.0);
    assert_near(x.d1, 8.0, 1e-12);
    double t[16];
    assert_int_equal(sim_scale_ticks(&x, t, 16), 5);
    assert_near(t[4], 8.0, 1e-12);
    assert_near(sim_scale_map(&x, 4.0), 300.0, 1e-12);   /* the middle */
    assert_near(sim_scale_map(&x, 100.0), 500.0, 1e-12); /* clamped */
    /* a y axis grows upwards: pixels run the other way */
    sim_scale y = sim_scale_linear(0.0, 1.0, 300.0, 100.0);
    assert_near(sim_scale_map(&y, 0.25), 250.0, 1e-12);
    /* one value: an axis from 0 to 1.5 times it (step 0.2 x 10^k: 15 -> [0, 25] by 5s) */
    sim_scale one = sim_scale_linear(10.0, 10.0, 0.0, 1.0);
    assert_near(one.d0, 0.0, 0.0);
    assert_true(one.d1 >= 15.0);
}

static void test_log_scale(void **state)
{
    (void)state;
    /* [0.3, 2000] widens to whole decades [0.1, 1e4]: five decades, 10 sits 2/5 of the way */
    sim_scale x = sim_scale_log(0.3, 2000.0, 0.0, 500.0);
    assert_near(x.d0, 0.1, 1e-12);
    assert_near(x.d1, 1e4, 1e-12);
    assert_near(sim_scale_map(&x, 10.0), 200.0, 1e-9);
    assert_near(sim_scale_map(&x, 0.0), 0.0, 0.0); /* <= 0 clamps to the low end */
    double t[16];
    assert_int_equal(sim_scale_ticks(&x, t, 16), 6);
    assert_near(t[0], 0.1, 1e-12);
    assert_near(t[5], 1e4, 1e-9);
}

/* An exact domain: [0, 7.3] stays [0, 7.3] (a run that ended at 7.3 s), ticks 0 2 4 6 inside
 * it, 7.3 on the far pixel; from 2.5 the ticks are the multiples of the step (1 for a span of
 * 4.8 in 5 parts) from 3. */
static void test_exact_scale(void **state)
{
    (void)state;
    sim_scale x = sim_scale_linear_exact(0.0, 7.3, 100.0, 500.0);
    assert_near(x.d1, 7.3, 0.0);
    assert_near(sim_scale_map(&x, 7.3), 500.0, 1e-12);
    double t[16];
    assert_int_equal(sim_scale_ticks(&x, t, 16), 4);
    assert_near(t[3], 6.0, 1e-12);
    sim_scale z = sim_scale_linear_exact(2.5, 7.3, 0.0, 1.0);
    assert_int_equal(sim_scale_ticks(&z, t, 16), 5);
    assert_near(t[0], 3.0, 1e-12);
    assert_near(t[4], 7.0, 1e-12);
}

/* Clipping keeps the slope. Log x [1, 100] on pixels 0..100, log y [1, 100] on 100..0 (up):
 * y = 10 x from x = 1 to 100 is inside from (1, 10) (y one decade of two up: pixel 50) to
 * (10, 100) (x pixel 50, the top): (0, 50) to (50, 0), slope -1 as the line's. Mapping each
 * end clamped gave (0, 50) to (100, 0), slope -1/2. y = 1000 x never enters: nothing. */
static void test_clip(void **state)
{
    (void)state;
    sim_scale x = sim_scale_log(1.0, 100.0, 0.0, 100.0), y = sim_scale_log(1.0, 100.0, 100.0, 0.0);
    double px[2], py[2];
    assert_true(sim_svg_clip(&x, &y, 1.0, 10.0, 100.0, 1000.0, px, py));
    assert_near(px[0], 0.0, 1e-9);
    assert_near(py[0], 50.0, 1e-9);
    assert_near(px[1], 50.0, 1e-9);
    assert_near(py[1], 0.0, 1e-9);
    assert_false(sim_svg_clip(&x, &y, 1.0, 1000.0, 100.0, 1e5, px, py));
    /* a segment inside is unchanged; on linear scales too (from 1/4 to 3/4 of each axis) */
    sim_scale lx = sim_scale_linear(0.0, 8.0, 0.0, 80.0),
              ly = sim_scale_linear(0.0, 8.0, 80.0, 0.0);
    assert_true(sim_svg_clip(&lx, &ly, 2.0, 2.0, 6.0, 6.0, px, py));
    assert_near(px[0], 20.0, 1e-9);
    assert_near(py[1], 20.0, 1e-9);
}

static void test_tick_labels(void **state)
{
    (void)state;
    char b[32];
    sim_svg_fmt(b, sizeof b, 1500.0);
    assert_string_equal(b, "1.5k");
    sim_svg_fmt(b, sizeof b, 2e13);
    assert_string_equal(b, "20T");
    sim_svg_fmt(b, sizeof b, 989.4e12);
    assert_string_equal(b, "989.4T");
    sim_svg_fmt(b, sizeof b, 0.5);
    assert_string_equal(b, "0.5");
    sim_svg_fmt(b, sizeof b, 0.0);
    assert_string_equal(b, "0");
    sim_svg_fmt(b, sizeof b, NAN);
    assert_string_equal(b, "0");
}

static void test_chart_parts_well_formed(void **state)
{
    (void)state;
    sim_svg s = {0};
    sim_svg_begin(&s, 600, 300, "t");
    sim_svg_title(&s, 600, "A title", "infersim run --model 'x y' --hw \"h\" & more");
    sim_svg_frame fr = sim_svg_plot_area(600, 300);
    sim_scale x = sim_scale_log(1, 1e3, fr.x0, fr.x1), y = sim_scale_linear(0, 1, fr.y1, fr.y0);
    sim_svg_axes(&s, &fr, &x, &y, "x (FLOP/byte)", "y (s)");
    double px[2] = {NAN, 1.0}, py[2] = {INFINITY, 2.0};
    sim_svg_polyline(&s, px, py, 2, "#000000", 1, "2 2", "line");
    sim_svg_circle(&s, NAN, 1, 2, "#000000", "pt", "a tip");
    const sim_svg_key keys[] = {{"one", "#111111", true}, {"two & three", "#222222", false}};
    sim_svg_legend(&s, 500, 70, keys, 2);
    const char *cats[] = {"a", "b<c"};
    sim_svg_xcats(&s, &fr, cats, 2, "cats");
    sim_svg_end(&s);
    assert_well_formed(&s);
    /* never nan or inf in a coordinate */
    assert_false(xml_has_nonfinite(s.s));
    assert_int_equal(xml_count(s.s, "circle", "pt"), 1);
    assert_int_equal(xml_count(s.s, "g", "legend"), 1);
    sim_svg_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escaping),
        cmocka_unit_test(test_linear_scale),
        cmocka_unit_test(test_log_scale),
        cmocka_unit_test(test_exact_scale),
        cmocka_unit_test(test_clip),
        cmocka_unit_test(test_tick_labels),
        cmocka_unit_test(test_chart_parts_well_formed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
