/*
** test_profile_report.c -- the profile's views (profile_view.c) and the
** table and json writers (report_table.c, report_json.c), on Profiles
** built by hand whose every figure is computed here by hand: the views'
** arithmetic, the table's text, the JSON's round trip, hostile JSON,
** and --diff.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "interp/npy.h"
#include "profiler/report_int.h"
#include "testutil.h"

/* The chrome, speedscope, folded and svg writers are another file each,
** written in parallel with this one.  Until a writer's file is in the tree,
** a stub stands in for it so report.c's format table links; once the file
** is there, the stub disappears by itself (a weak stub left beside it
** would be linked instead of the real writer, the archive's member never
** being pulled in). */
#if !__has_include("profiler/report_chrome.c")
__attribute__((weak)) EpStatus report_chrome(FILE *f, const Profile *p, const ReportOptions *o, EpError *err)
{
    EP_UNUSED(f), EP_UNUSED(p), EP_UNUSED(o);
    return ep_fail(err, EP_ERR_EXEC, "chrome writer not built");
}
#endif
#if !__has_include("profiler/report_speedscope.c")
__attribute__((weak)) EpStatus report_speedscope(FILE *f, const Profile *p, const ReportOptions *o, EpError *err)
{
    EP_UNUSED(f), EP_UNUSED(p), EP_UNUSED(o);
    return ep_fail(err, EP_ERR_EXEC, "speedscope writer not built");
}
#endif
#if !__has_include("profiler/report_folded.c")
__attribute__((weak)) EpStatus report_folded(FILE *f, const Profile *p, const ReportOptions *o, EpError *err)
{
    EP_UNUSED(f), EP_UNUSED(p), EP_UNUSED(o);
    return ep_fail(err, EP_ERR_EXEC, "folded writer not built");
}
#endif
#if !__has_include("profiler/report_svg.c")
__attribute__((weak)) EpStatus report_svg(FILE *f, const Profile *p, const ReportOptions *o, EpError *err)
{
    EP_UNUSED(f), EP_UNUSED(p), EP_UNUSED(o);
    return ep_fail(err, EP_ERR_EXEC, "svg writer not built");
}
#endif

/* ---- profiles built by hand ---------------------------------------------------- */

static char *dup(const char *s)
{
    return s ? ep_xstrdup(s) : NULL;
}

typedef struct NodeSpec {
    const char *name, *target, *shapes;
    const char *scope[2][2]; /* {path, type}, outermost first; path NULL: none */
    const char *file;
    int line;
    const char *code;
    double total;    /* exact: seconds over both iterations */
    int64_t samples; /* sampling */
    double flops, bytes;
    int64_t alloc;
} NodeSpec;

/* Five nodes; per iteration (exact: 2 iterations; sampling: 4 iterations
** of 1 ms samples, so samples / 4000 seconds):
**   linear    0.40 s  aten.linear.default  encoder > encoder.fc   model.py:10
**   relu      0.10 s  aten.relu.default    encoder                model.py:11
**   linear_1  0.20 s  aten.linear.default  head                   model.py:10
**   add       0.15 s  aten.add.Tensor      encoder.blocks.0.attn  (no source)
**   view      0.05 s  aten.view.default    (the model itself)     (no source)
** and the other row 0.10 s: 1.00 s in all, so seconds are percentages / 100. */
static const NodeSpec SPECS[] = {
    {"linear", "aten.linear.default", "[[4, 16], [32, 16], [32]]", {{"encoder", "m.Encoder"}, {"encoder.fc", "torch.nn.Linear"}},
     "model.py", 10, "x = self.fc(x)", 0.8, 1600, 1e9, 4e6, 3000000},
    {"relu", "aten.relu.default", "[[4, 32]]", {{"encoder", "m.Encoder"}, {NULL, NULL}}, "model.py", 11,
     "x = torch.relu(x)", 0.2, 400, 1e6, 0, 0},
    {"linear_1", "aten.linear.default", "[[4, 32], [8, 32], [8]]", {{"head", "torch.nn.Linear"}, {NULL, NULL}},
     "model.py", 10, "x = self.fc(x)", 0.4, 800, 5e8, 0, 1000000},
    {"add", "aten.add.Tensor", NULL, {{"encoder.blocks.0.attn", "m.Attention"}, {NULL, NULL}}, NULL, 0, NULL, 0.3,
     600, 0, 0, 0},
    {"view", "aten.view.default", "[[4, 8], []]", {{NULL, NULL}, {NULL, NULL}}, NULL, 0, NULL, 0.1, 200, 0, 0, 0},
};
#define NSPECS ((int)EP_ARRAY_LEN(SPECS))

static Profile *make_profile(ProfileMode mode)
{
    Profile *p = ep_xcalloc(1, sizeof *p);
    p->model_path = dup("examples/toy.pt2");
    p->program = dup("model");
    p->inputs = dup("x: float32[4, 16]");
    p->machine = dup("Test CPU \"quoted\"\n2nd line");
    p->mode = mode;
    p->clock = PROFILE_CLOCK_CPU;
    p->threads = 3;
    p->warmup = 1;
    p->nnodes = NSPECS;
    p->nodes = ep_xcalloc(NSPECS, sizeof *p->nodes);
    for (int i = 0; i < NSPECS; i++) {
        const NodeSpec *s = &SPECS[i];
        ProfileNode *n = &p->nodes[i];
        n->name = dup(s->name);
        n->target = dup(s->target);
        n->input_shapes = dup(s->shapes);
        n->scopes = ep_xcalloc(2, sizeof *n->scopes);
        for (int k = 0; k < 2 && s->scope[k][0]; k++) {
            n->scopes[k] = (ProfileScope){dup(s->scope[k][0]), dup(s->scope[k][1])};
            n->nscopes++;
        }
        n->file = dup(s->file);
        n->line = s->line;
        n->func = s->file ? dup("forward") : NULL;
        n->code = dup(s->code);
        n->flops = s->flops;
        n->bytes = s->bytes;
        n->alloc_bytes = s->alloc;
        n->freed_bytes = s->alloc / 2;
        n->live_after = 1000 * (i + 1);
        if (mode == PROFILE_EXACT) {
            double t[2] = {s->total * 0.25, s->total * 0.75};
            n->time = profile_stats(t, 2);
        } else {
            n->samples = s->samples;
        }
    }
    if (mode == PROFILE_EXACT) {
        p->iters = 2;
        p->dispatch = 0.2;
        p->timer_cost = 25e-9;
        p->wall = 2.0;
    } else {
        p->iters = 4;
        p->sample_hz = 1000;
        p->sample_period = 1e-3;
        p->outside_samples = 400;
        p->samples = 4000;
        p->wall = 4.0;
    }
    p->peak_live = 3000000;
    p->peak_node = 0;
    p->npeak_tensors = 2;
    p->peak_tensors = ep_xcalloc(2, sizeof *p->peak_tensors);
    p->peak_tensors[0] = (ProfileTensor){dup("linear"), dup("float32[1000, 750]"), 3000000};
    p->peak_tensors[1] = (ProfileTensor){dup("x"), dup("float32[4, 16]"), 256};
    p->peak_gflops = 10;
    p->peak_gbps = 1;
    return p;
}

/* The per-iteration seconds of SPECS[i]. */
static double spec_seconds(int i)
{
    return SPECS[i].total / 2;
}

#define EPS 1e-12

/* ---- the views ---------------------------------------------------------------------- */

static void check_pct_sums(const Profile *p)
{
    for (ProfileBy by = PROFILE_BY_OP; by <= PROFILE_BY_LINE; by++) {
        ProfileRow *r;
        int n = profile_rows(p, by, &r);
        double pct = 0, self = 0;
        for (int i = 0; i < n; i++) {
            pct += r[i].pct;
            self += r[i].self;
        }
        ck_assert_msg(fabs(pct - 100) < 1e-9, "view %s: pct sums to %.17g", profile_by_name(by), pct);
        ck_assert_msg(fabs(self - profile_total_seconds(p)) < EPS, "view %s", profile_by_name(by));
        /* the other row last, and only there */
        ck_assert_int_eq(r[n - 1].first_node, -1);
        for (int i = 0; i < n - 1; i++)
            ck_assert_int_ge(r[i].first_node, 0);
        profile_rows_free(r, n);
    }
}

START_TEST(test_totals_and_percentages)
{
    for (int m = 0; m < 2; m++) {
        Profile *p = make_profile(m ? PROFILE_SAMPLE : PROFILE_EXACT);
        ck_assert_double_eq_tol(profile_total_seconds(p), 1.0, EPS);
        for (int i = 0; i < NSPECS; i++)
            ck_assert_double_eq_tol(profile_node_seconds(p, i), spec_seconds(i), EPS);
        ck_assert_double_eq_tol(profile_other_seconds(p), 0.1, EPS);
        check_pct_sums(p);
        profile_free(p);
    }
}
END_TEST

START_TEST(test_op_view)
{
    Profile *p = make_profile(PROFILE_EXACT);
    ProfileRow *r;
    int n = profile_rows(p, PROFILE_BY_OP, &r);
    ck_assert_int_eq(n, 5); /* four targets and dispatch */
    static const char *const order[] = {"aten.linear.default", "aten.add.Tensor", "aten.relu.default",
                                        "aten.view.default", "(dispatch)"};
    static const double self[] = {0.6, 0.15, 0.1, 0.05, 0.1};
    for (int i = 0; i < n; i++) {
        ck_assert_str_eq(r[i].key, order[i]);
        ck_assert_double_eq_tol(r[i].self, self[i], EPS);
        ck_assert_double_eq_tol(r[i].total, self[i], EPS);
        ck_assert_double_eq_tol(r[i].pct, 100 * self[i], 1e-9);
    }
    /* linear and linear_1: two calls a run, four executions of 0.3 s on average */
    ck_assert_int_eq(r[0].calls, 2);
    ck_assert_double_eq_tol(r[0].mean, (0.8 + 0.4) / 4, EPS);
    ck_assert_double_eq_tol(r[0].flops, 1e9 + 5e8, 1);
    ck_assert_double_eq_tol(r[0].bytes, 4e6, 1e-6);
    ck_assert_int_eq(r[0].first_node, 0);
    ck_assert_str_eq(r[0].input_shapes, SPECS[0].shapes);
    ck_assert_ptr_null(r[0].detail);
    ck_assert_int_eq(r[1].calls, 1);
    ck_assert_ptr_null(r[1].input_shapes); /* add's shapes are unknown */
    ck_assert_str_eq(r[4].detail, "the interpreter between kernels");
    ck_assert_int_eq(r[4].calls, 0);
    profile_rows_free(r, n);

    /* sampling: the same grouping, one call per node a run, and samples */
    p->mode = PROFILE_SAMPLE;
    p->sample_period = 1e-3;
    p->iters = 4;
    p->outside_samples = 400;
    for (int i = 0; i < NSPECS; i++)
        p->nodes[i].samples = SPECS[i].samples;
    n = profile_rows(p, PROFILE_BY_OP, &r);
    ck_assert_str_eq(r[0].key, "aten.linear.default");
    ck_assert_int_eq(r[0].samples, 1600 + 800);
    ck_assert_int_eq(r[0].calls, 2);
    ck_assert_double_eq_tol(r[0].mean, 0.3, EPS);
    ck_assert_str_eq(r[n - 1].key, "(outside nodes)");
    ck_assert_int_eq(r[n - 1].samples, 400);
    profile_rows_free(r, n);
    profile_free(p);
}
END_TEST

START_TEST(test_node_view)
{
    Profile *p = make_profile(PROFILE_EXACT);
    ProfileRow *r;
    int n = profile_rows(p, PROFILE_BY_NODE, &r);
    ck_assert_int_eq(n, NSPECS + 1);
    static const char *const order[] = {"linear", "linear_1", "add", "relu", "view", "(dispatch)"};
    static const int first[] = {0, 2, 3, 1, 4, -1};
    for (int i = 0; i < n; i++) {
        ck_assert_str_eq(r[i].key, order[i]);
        ck_assert_int_eq(r[i].first_node, first[i]);
        if (first[i] >= 0) {
            ck_assert_str_eq(r[i].detail, SPECS[first[i]].target);
            ck_assert_double_eq_tol(r[i].self, spec_seconds(first[i]), EPS);
            ck_assert_int_eq(r[i].calls, 1);
            /* two executions of 1/4 and 3/4 of the total: the mean is half */
            ck_assert_double_eq_tol(r[i].mean, SPECS[first[i]].total / 2, EPS);
        }
    }
    profile_rows_free(r, n);
    profile_free(p);
}
END_TEST

START_TEST(test_module_tree)
{
    Profile *p = make_profile(PROFILE_EXACT);
    ProfileRow *r;
    int n = profile_rows(p, PROFILE_BY_MODULE, &r);
    /* preorder, children heaviest total first; the dotted prefixes no
    ** scope names (encoder.blocks, encoder.blocks.0) are rows too */
    static const struct {
        const char *key, *type;
        int depth;
        double self, total;
        int first;
    } want[] = {
        {"", NULL, 0, 0.05, 0.9, 0},
        {"encoder", "m.Encoder", 1, 0.1, 0.65, 0},
        {"encoder.fc", "torch.nn.Linear", 2, 0.4, 0.4, 0},
        {"encoder.blocks", NULL, 2, 0, 0.15, 3},
        {"encoder.blocks.0", NULL, 3, 0, 0.15, 3},
        {"encoder.blocks.0.attn", "m.Attention", 4, 0.15, 0.15, 3},
        {"head", "torch.nn.Linear", 1, 0.2, 0.2, 2},
        {"(dispatch)", "the interpreter between kernels", 0, 0.1, 0.1, -1},
    };
    ck_assert_int_eq(n, (int)EP_ARRAY_LEN(want));
    for (int i = 0; i < n; i++) {
        ck_assert_str_eq(r[i].key, want[i].key);
        if (want[i].type)
            ck_assert_str_eq(r[i].detail, want[i].type);
        else
            ck_assert_ptr_null(r[i].detail);
        ck_assert_int_eq(r[i].depth, want[i].depth);
        ck_assert_double_eq_tol(r[i].self, want[i].self, EPS);
        ck_assert_double_eq_tol(r[i].total, want[i].total, EPS);
        ck_assert_double_eq_tol(r[i].total_pct, 100 * want[i].total, 1e-9);
        ck_assert_int_eq(r[i].first_node, want[i].first);
    }
    /* a module's calls and flops cover its subtree: encoder has linear, relu, add */
    ck_assert_int_eq(r[1].calls, 3);
    ck_assert_double_eq_tol(r[1].flops, 1e9 + 1e6, 1e-3);
    ck_assert_int_eq(r[0].calls, NSPECS);
    profile_rows_free(r, n);
    profile_free(p);
}
END_TEST

START_TEST(test_line_view)
{
    Profile *p = make_profile(PROFILE_EXACT);
    ProfileRow *r;
    int n = profile_rows(p, PROFILE_BY_LINE, &r);
    ck_assert_int_eq(n, 4);
    ck_assert_str_eq(r[0].key, "model.py:10"); /* linear and linear_1 */
    ck_assert_str_eq(r[0].detail, "x = self.fc(x)");
    ck_assert_double_eq_tol(r[0].self, 0.6, EPS);
    ck_assert_int_eq(r[0].calls, 2);
    ck_assert_str_eq(r[1].key, "(no source)"); /* add and view */
    ck_assert_ptr_null(r[1].detail);
    ck_assert_double_eq_tol(r[1].self, 0.2, EPS);
    ck_assert_int_eq(r[1].first_node, 3);
    ck_assert_str_eq(r[2].key, "model.py:11");
    ck_assert_str_eq(r[2].detail, "x = torch.relu(x)");
    ck_assert_double_eq_tol(r[2].pct, 10, 1e-9);
    ck_assert_str_eq(r[3].key, "(dispatch)");
    profile_rows_free(r, n);
    profile_free(p);
}
END_TEST

START_TEST(test_empty_profile_views)
{
    Profile *p = ep_xcalloc(1, sizeof *p);
    p->peak_node = -1;
    for (ProfileBy by = PROFILE_BY_OP; by <= PROFILE_BY_LINE; by++) {
        ProfileRow *r;
        int n = profile_rows(p, by, &r);
        ck_assert_int_eq(n, by == PROFILE_BY_MODULE ? 2 : 1); /* the model, dispatch */
        ck_assert_double_eq(r[n - 1].pct, 0);
        profile_rows_free(r, n);
    }
    char *text;
    size_t len;
    FILE *f = open_memstream(&text, &len);
    EpError err = {0};
    ck_assert_int_eq(report_write(f, p, REPORT_TABLE, NULL, &err), EP_OK);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(text, "Self time total: 0 per iteration"));
    free(text);
    profile_free(p);
}
END_TEST

START_TEST(test_names)
{
    ProfileBy by;
    for (ProfileBy b = PROFILE_BY_OP; b <= PROFILE_BY_LINE; b++) {
        ck_assert(profile_by_lookup(profile_by_name(b), &by));
        ck_assert_int_eq(by, b);
    }
    ck_assert(!profile_by_lookup("ops", &by) && !profile_by_lookup(NULL, &by));
    ck_assert_str_eq(report_format_names(), "table, json, chrome, speedscope, folded, svg");
    ReportFormat fmt;
    ck_assert(report_format_lookup("speedscope", &fmt) && fmt == REPORT_SPEEDSCOPE);
    ck_assert(!report_format_lookup("html", &fmt));
    ck_assert(report_format_diffs(REPORT_TABLE) && report_format_diffs(REPORT_JSON) &&
              report_format_diffs(REPORT_FOLDED) && report_format_diffs(REPORT_SVG));
    ck_assert(!report_format_diffs(REPORT_CHROME) && !report_format_diffs(REPORT_SPEEDSCOPE));
    ck_assert(!report_format_diffs((ReportFormat)42));
}
END_TEST

/* ---- the table -------------------------------------------------------------------------- */

static char *render(const Profile *p, ReportFormat fmt, const ReportOptions *o)
{
    char *text;
    size_t len;
    FILE *f = open_memstream(&text, &len);
    EpError err = {0};
    EpStatus rc = report_write(f, p, fmt, o, &err);
    fclose(f);
    ck_assert_msg(rc == EP_OK, "%s", err.msg);
    return text;
}

/* The line of text whose first word (after indentation) is key, and that
** holds each of the figures after it, in order. */
static void assert_line(const char *text, const char *key, const char *const *figures)
{
    for (const char *l = text; *l;) {
        const char *end = strchr(l, '\n');
        size_t len = end ? (size_t)(end - l) : strlen(l);
        char *line = ep_xstrndup(l, len);
        const char *w = line + strspn(line, " ");
        if (strncmp(w, key, strlen(key)) == 0 && (w[strlen(key)] == ' ' || !w[strlen(key)])) {
            const char *at = w + strlen(key);
            for (int i = 0; figures[i]; i++) {
                const char *hit = strstr(at, figures[i]);
                ck_assert_msg(hit, "'%s' lacks '%s' (after the previous figure)", line, figures[i]);
                at = hit + strlen(figures[i]);
            }
            free(line);
            return;
        }
        free(line);
        l = end ? end + 1 : l + len;
    }
    ck_abort_msg("no line starts with '%s' in:\n%s", key, text);
}

#define FIGS(...) ((const char *const[]){__VA_ARGS__, NULL})

START_TEST(test_table_op_view)
{
    Profile *p = make_profile(PROFILE_EXACT);
    char *t = render(p, REPORT_TABLE, &(ReportOptions){.by = PROFILE_BY_OP});
    /* the header */
    assert_line(t, "Model:", FIGS("examples/toy.pt2", "program \"model\""));
    assert_line(t, "Inputs:", FIGS("x: float32[4, 16]"));
    assert_line(t, "Mode:", FIGS("exact", "25.0 ns"));
    assert_line(t, "Iterations:", FIGS("2 measured after 1 warm-up", "1.000 s wall per iteration"));
    assert_line(t, "Threads:", FIGS("3"));
    assert_line(t, "Machine:", FIGS("Test CPU \"quoted\" 2nd line", "10.00 GFLOP/s sgemm", "1.00 GB/s memory"));
    ck_assert_ptr_null(strstr(t, "PARTIAL"));
    /* linear: 60 % self, 600 ms, mean 300 ms over 2 calls, 1.5 GFLOP in
    ** 0.6 s = 2.50 GFLOP/s = 25 % of a 10 GFLOP/s peak; 4 MB in 0.6 s */
    assert_line(t, "aten.linear.default",
                FIGS("60.00 %", "600.000 ms", "60.00 %", "600.000 ms", "300.000 ms", "2", "1.50 GFLOP", "2.50",
                     "0.00667", "25.0 % flop", "[[4, 16], [32, 16], [32]]"));
    assert_line(t, "aten.relu.default", FIGS("10.00 %", "100.000 ms", "1.00 MFLOP", "0.01", "-", "0.1 % flop"));
    assert_line(t, "aten.view.default", FIGS("5.00 %", "50.000 ms", "50.000 ms", "1", "-", "[[4, 8], []]"));
    assert_line(t, "(dispatch)", FIGS("10.00 %", "100.000 ms"));
    assert_line(t, "Self time total:", FIGS("1.000 s per iteration"));
    /* heaviest first, dispatch last */
    ck_assert(strstr(t, "aten.linear.default") < strstr(t, "aten.add.Tensor"));
    ck_assert(strstr(t, "aten.view.default") < strstr(t, "(dispatch)"));
    /* memory */
    assert_line(t, "Peak live:", FIGS("3.00 MB", "node linear (aten.linear.default)"));
    assert_line(t, "linear", FIGS("3.00 MB", "float32[1000, 750]"));
    assert_line(t, "x", FIGS("256 B", "float32[4, 16]"));
    assert_line(t, "linear_1", FIGS("aten.linear.default", "1.00 MB", "500.00 KB", "3.00 KB"));
    free(t);

    /* --top 1: one row, and dispatch all the same */
    t = render(p, REPORT_TABLE, &(ReportOptions){.by = PROFILE_BY_OP, .top = 1});
    ck_assert_ptr_null(strstr(t, "aten.add.Tensor"));
    assert_line(t, "(dispatch)", FIGS("10.00 %"));
    ck_assert_ptr_nonnull(strstr(t, "(3 more rows not shown)"));
    free(t);

    p->partial = true;
    p->reason = dup("interrupted (Ctrl-C) at node add");
    t = render(p, REPORT_TABLE, NULL);
    assert_line(t, "PARTIAL:", FIGS("interrupted (Ctrl-C) at node add"));
    free(t);
    profile_free(p);
}
END_TEST

START_TEST(test_table_module_and_line_views)
{
    Profile *p = make_profile(PROFILE_EXACT);
    char *t = render(p, REPORT_TABLE, &(ReportOptions){.by = PROFILE_BY_MODULE});
    /* indented by depth, the class's last name beside the module's */
    ck_assert_ptr_nonnull(strstr(t, "\nmodel  "));
    ck_assert_ptr_nonnull(strstr(t, "\n  encoder (Encoder)  "));
    ck_assert_ptr_nonnull(strstr(t, "\n    fc (Linear)  "));
    ck_assert_ptr_nonnull(strstr(t, "\n    blocks  "));
    ck_assert_ptr_nonnull(strstr(t, "\n        attn (Attention)  "));
    assert_line(t, "encoder", FIGS("10.00 %", "100.000 ms", "65.00 %", "650.000 ms"));
    assert_line(t, "model", FIGS("5.00 %", "50.000 ms", "90.00 %", "900.000 ms"));
    free(t);

    t = render(p, REPORT_TABLE, &(ReportOptions){.by = PROFILE_BY_LINE});
    assert_line(t, "model.py:10", FIGS("x = self.fc(x)", "60.00 %", "600.000 ms"));
    assert_line(t, "(no source)", FIGS("20.00 %", "200.000 ms"));
    assert_line(t, "model.py:11", FIGS("x = torch.relu(x)", "10.00 %"));
    ck_assert(strstr(t, "model.py:10") < strstr(t, "(no source)"));
    free(t);

    /* sampling: the samples column and the header says how */
    Profile *s = make_profile(PROFILE_SAMPLE);
    t = render(s, REPORT_TABLE, &(ReportOptions){.by = PROFILE_BY_NODE});
    assert_line(t, "Mode:", FIGS("sampling at 1000 Hz, process CPU clock", "4000 samples", "400 outside nodes"));
    assert_line(t, "linear", FIGS("aten.linear.default", "40.00 %", "400.000 ms", "1", "1600"));
    assert_line(t, "(outside nodes)", FIGS("10.00 %", "100.000 ms", "400"));
    free(t);
    profile_free(s);
    profile_free(p);
}
END_TEST

/* ---- --diff ------------------------------------------------------------------------------ */

/* The base: linear took 1.2 s over 2 iterations (0.6 s each, after: 0.4)
** and dispatch 0.4 s (0.2 s each, after: 0.1). */
static Profile *make_base(void)
{
    Profile *b = make_profile(PROFILE_EXACT);
    double t[2] = {0.6, 0.6};
    b->nodes[0].time = profile_stats(t, 2);
    b->dispatch = 0.4;
    free(b->model_path);
    b->model_path = dup("before.json");
    return b;
}

START_TEST(test_diff_table)
{
    Profile *p = make_profile(PROFILE_EXACT), *b = make_base();
    char *t = render(p, REPORT_TABLE, &(ReportOptions){.by = PROFILE_BY_NODE, .base = b});
    assert_line(t, "Before:", FIGS("before.json", "1.300 s per iteration"));
    assert_line(t, "After:", FIGS("examples/toy.pt2", "1.000 s per iteration"));
    /* per node: linear -200 ms (0.67x), dispatch -100 ms (0.50x), the rest 0 */
    assert_line(t, "linear", FIGS("aten.linear.default", "600.000 ms", "400.000 ms", "-200.000 ms", "0.67x"));
    assert_line(t, "(dispatch)", FIGS("200.000 ms", "100.000 ms", "-100.000 ms", "0.50x"));
    assert_line(t, "relu", FIGS("100.000 ms", "100.000 ms", "0", "1.00x"));
    ck_assert(strstr(t, "\nlinear ") < strstr(t, "\n(dispatch)"));
    ck_assert(strstr(t, "\n(dispatch)") < strstr(t, "\nlinear_1 "));
    /* per line: model.py:10 went from 0.8 to 0.6 */
    assert_line(t, "model.py:10", FIGS("x = self.fc(x)", "800.000 ms", "600.000 ms", "-200.000 ms", "0.75x"));
    assert_line(t, "(all)", FIGS("1.300 s", "1.000 s", "-300.000 ms", "0.77x"));
    free(t);

    /* the rows themselves, both ways round */
    ReportDiffRow *d;
    int n = report_diff_rows(b, p, PROFILE_BY_LINE, &d);
    ck_assert_int_eq(n, 4);
    ck_assert_str_eq(d[0].key, "model.py:10");
    ck_assert_double_eq_tol(d[0].before, 0.6, EPS);
    ck_assert_double_eq_tol(d[0].after, 0.8, EPS);
    ck_assert_str_eq(d[1].key, "(dispatch)");
    report_diff_rows_free(d, n);
    profile_free(p);
    profile_free(b);
}
END_TEST

START_TEST(test_diff_rejected)
{
    Profile *p = make_profile(PROFILE_EXACT), *b = make_base();
    FILE *f = fopen("/dev/null", "w");
    EpError err = {0};
    /* a format that cannot show it */
    ck_assert_int_eq(report_write(f, p, REPORT_CHROME, &(ReportOptions){.base = b}, &err), EP_ERR_USAGE);
    ck_assert_ptr_nonnull(strstr(err.msg, "chrome format cannot show a diff"));
    ck_assert_ptr_nonnull(strstr(err.msg, "table, json, folded, svg"));
    /* a renamed node */
    free(b->nodes[2].name);
    b->nodes[2].name = dup("mm");
    ck_assert_int_eq(report_write(f, p, REPORT_TABLE, &(ReportOptions){.base = b}, &err), EP_ERR_USAGE);
    ck_assert_ptr_nonnull(strstr(err.msg, "the base profile (of before.json) is not of the same program"));
    ck_assert_ptr_nonnull(strstr(err.msg, "node 2 is 'mm' there, 'linear_1' here"));
    /* fewer nodes */
    b->nnodes--;
    ck_assert_int_eq(report_write(f, p, REPORT_JSON, &(ReportOptions){.base = b}, &err), EP_ERR_USAGE);
    ck_assert_ptr_nonnull(strstr(err.msg, "it has 4 nodes, this one 5"));
    b->nnodes++;
    fclose(f);
    /* a file that cannot take the text */
    f = fopen("/dev/full", "w");
    if (f) {
        ck_assert_int_eq(report_write(f, p, REPORT_TABLE, NULL, &err), EP_ERR_EXEC);
        ck_assert_ptr_nonnull(strstr(err.msg, "writing the table report failed"));
        fclose(f);
    }
    ck_assert_int_eq(report_write(stdout, p, (ReportFormat)99, NULL, &err), EP_ERR_USAGE);
    profile_free(p);
    profile_free(b);
}
END_TEST

/* ---- JSON ---------------------------------------------------------------------------- */

static void same_str(const char *a, const char *b, const char *what)
{
    if (!a || !b)
        ck_assert_msg(a == b, "%s: %s vs %s", what, a ? a : "NULL", b ? b : "NULL");
    else
        ck_assert_msg(strcmp(a, b) == 0, "%s: '%s' vs '%s'", what, a, b);
}

/* Doubles compared bit for bit (==), so %.17g's round trip is checked. */
#define SAME(field) ck_assert_msg(a->field == b->field, "%s differs", #field)

static void same_stats(const ProfileStats *a, const ProfileStats *b)
{
    SAME(count);
    SAME(total);
    SAME(mean);
    SAME(median);
    SAME(p90);
    SAME(min);
    SAME(max);
    SAME(stddev);
}

static void same_node(const ProfileNode *a, const ProfileNode *b)
{
    same_str(a->name, b->name, "name");
    same_str(a->target, b->target, "target");
    same_str(a->input_shapes, b->input_shapes, "input_shapes");
    SAME(nscopes);
    for (int k = 0; k < a->nscopes; k++) {
        same_str(a->scopes[k].path, b->scopes[k].path, "scope path");
        same_str(a->scopes[k].type, b->scopes[k].type, "scope type");
    }
    same_str(a->file, b->file, "file");
    SAME(line);
    same_str(a->func, b->func, "func");
    same_str(a->code, b->code, "code");
    same_stats(&a->time, &b->time);
    SAME(samples);
    SAME(flops);
    SAME(bytes);
    SAME(alloc_bytes);
    SAME(freed_bytes);
    SAME(live_after);
}

static void same_profile(const Profile *a, const Profile *b)
{
    same_str(a->model_path, b->model_path, "model_path");
    same_str(a->program, b->program, "program");
    same_str(a->inputs, b->inputs, "inputs");
    same_str(a->machine, b->machine, "machine");
    SAME(mode);
    SAME(clock);
    SAME(sample_hz);
    SAME(threads);
    SAME(iters);
    SAME(warmup);
    SAME(partial);
    same_str(a->reason, b->reason, "reason");
    SAME(nnodes);
    for (int i = 0; i < a->nnodes; i++)
        same_node(&a->nodes[i], &b->nodes[i]);
    SAME(wall);
    SAME(dispatch);
    SAME(timer_cost);
    SAME(samples);
    SAME(outside_samples);
    SAME(sample_period);
    SAME(peak_live);
    SAME(peak_node);
    SAME(npeak_tensors);
    for (int i = 0; i < a->npeak_tensors; i++) {
        same_str(a->peak_tensors[i].name, b->peak_tensors[i].name, "tensor name");
        same_str(a->peak_tensors[i].desc, b->peak_tensors[i].desc, "tensor desc");
        SAME(peak_tensors[i].bytes);
    }
    SAME(peak_gflops);
    SAME(peak_gbps);
    SAME(timeline_iters);
    int cells = a->timeline_iters * a->nnodes;
    for (int i = 0; i < cells; i++) {
        SAME(start[i]);
        SAME(dur[i]);
        SAME(live[i]);
    }
    for (int k = 0; k < a->timeline_iters; k++) {
        SAME(iter_start[k]);
        SAME(iter_wall[k]);
    }
}

static char *write_json_file(const char *dir, const char *name, const Profile *p, const ReportOptions *o)
{
    char *path = ep_xasprintf("%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    EpError err = {0};
    ck_assert_int_eq(report_write(f, p, REPORT_JSON, o, &err), EP_OK);
    fclose(f);
    return path;
}

/* Fill every field with values that are hard to print: a third, 1e-300,
** an int64 beyond 2^53, strings with quotes, tabs and UTF-8. */
static void make_awkward(Profile *p)
{
    p->wall = 1.0 / 3;
    p->timer_cost = 1e-300;
    p->peak_live = ((int64_t)1 << 60) + 1;
    p->partial = true;
    p->reason = dup("node 3 failed:\t\"shape\" mismatch \xc3\xa9");
    p->nodes[1].alloc_bytes = INT64_MAX;
    p->nodes[1].line = -7;
    p->nodes[2].flops = 0.1 + 0.2;
    p->timeline_iters = 2;
    int cells = 2 * p->nnodes;
    p->start = ep_xcalloc((size_t)cells, sizeof *p->start);
    p->dur = ep_xcalloc((size_t)cells, sizeof *p->dur);
    p->live = ep_xcalloc((size_t)cells, sizeof *p->live);
    for (int i = 0; i < cells; i++) {
        p->start[i] = i == 3 ? -1 : i / 7.0;
        p->dur[i] = 1e-7 * (i + 1) / 3;
        p->live[i] = 12345678901234LL * i;
    }
    p->iter_start = ep_xcalloc(2, sizeof *p->iter_start);
    p->iter_wall = ep_xcalloc(2, sizeof *p->iter_wall);
    p->iter_start[1] = 0.7;
    p->iter_wall[0] = 0.7;
    p->iter_wall[1] = 0.6999999999999999;
}

START_TEST(test_json_round_trip)
{
    char *dir = test_tmpdir();
    for (int m = 0; m < 2; m++) {
        Profile *p = make_profile(m ? PROFILE_SAMPLE : PROFILE_EXACT);
        make_awkward(p);
        char *path = write_json_file(dir, "p.json", p, NULL);
        EpError err = {0};
        Profile *q = profile_read_json(path, &err);
        ck_assert_msg(q, "%s", err.msg);
        same_profile(p, q);
        /* and a second generation is the same text */
        char *again = write_json_file(dir, "q.json", q, NULL);
        char *t1, *t2;
        size_t l1, l2;
        ck_assert_int_eq(read_file(path, &t1, &l1, &err), EP_OK);
        ck_assert_int_eq(read_file(again, &t2, &l2, &err), EP_OK);
        ck_assert(l1 == l2 && memcmp(t1, t2, l1) == 0);
        free(t1);
        free(t2);
        free(again);
        free(path);
        profile_free(q);
        profile_free(p);
    }
    free(dir);
}
END_TEST

/* The JSON's keys are what the README documents: spot-check the shape
** with cJSON, and the views' figures against the hand-computed ones. */
START_TEST(test_json_keys_views_and_diff)
{
    Profile *p = make_profile(PROFILE_EXACT), *b = make_base();
    char *text = render(p, REPORT_JSON, &(ReportOptions){.base = b});
    cJSON *root = cJSON_Parse(text);
    ck_assert_ptr_nonnull(root);
    ck_assert_str_eq(cJSON_GetObjectItem(root, "format")->valuestring, "epdbg-profile");
    ck_assert_int_eq(cJSON_GetObjectItem(root, "version")->valueint, 1);
    ck_assert_str_eq(cJSON_GetObjectItem(root, "mode")->valuestring, "exact");
    ck_assert_str_eq(cJSON_GetObjectItem(root, "clock")->valuestring, "cpu");
    ck_assert_double_eq_tol(cJSON_GetObjectItem(root, "total_seconds")->valuedouble, 1.0, EPS);
    const cJSON *nodes = cJSON_GetObjectItem(root, "nodes");
    ck_assert_int_eq(cJSON_GetArraySize(nodes), NSPECS);
    const cJSON *n0 = cJSON_GetArrayItem(nodes, 0);
    ck_assert_double_eq_tol(cJSON_GetObjectItem(n0, "seconds")->valuedouble, 0.4, EPS);
    ck_assert_int_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(n0, "time"), "count")->valueint, 2);
    ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(n0, "scopes"), 1), "path")->valuestring,
                     "encoder.fc");
    const cJSON *d0 = cJSON_GetObjectItem(n0, "diff");
    ck_assert_double_eq_tol(cJSON_GetObjectItem(d0, "before")->valuedouble, 0.6, EPS);
    ck_assert_double_eq_tol(cJSON_GetObjectItem(d0, "delta")->valuedouble, -0.2, EPS);
    ck_assert_double_eq_tol(cJSON_GetObjectItem(d0, "ratio")->valuedouble, 2.0 / 3, EPS);
    const cJSON *views = cJSON_GetObjectItem(root, "views");
    static const char *const names[] = {"op", "node", "module", "line"};
    static const int rows[] = {5, 6, 8, 4};
    for (int v = 0; v < 4; v++) {
        const cJSON *arr = cJSON_GetObjectItem(views, names[v]);
        ck_assert_int_eq(cJSON_GetArraySize(arr), rows[v]);
        double pct = 0;
        for (const cJSON *r = arr->child; r; r = r->next)
            pct += cJSON_GetObjectItem(r, "pct")->valuedouble;
        ck_assert_double_eq_tol(pct, 100, 1e-9);
    }
    const cJSON *m2 = cJSON_GetArrayItem(cJSON_GetObjectItem(views, "module"), 3);
    ck_assert_str_eq(cJSON_GetObjectItem(m2, "key")->valuestring, "encoder.blocks");
    ck_assert_int_eq(cJSON_GetObjectItem(m2, "depth")->valueint, 2);
    const cJSON *diff = cJSON_GetObjectItem(root, "diff");
    ck_assert_str_eq(cJSON_GetObjectItem(diff, "base_model_path")->valuestring, "before.json");
    ck_assert_double_eq_tol(cJSON_GetObjectItem(cJSON_GetObjectItem(diff, "total"), "delta")->valuedouble, -0.3, EPS);
    const cJSON *l0 = cJSON_GetArrayItem(cJSON_GetObjectItem(diff, "lines"), 0);
    ck_assert_str_eq(cJSON_GetObjectItem(l0, "key")->valuestring, "model.py:10");
    ck_assert_double_eq_tol(cJSON_GetObjectItem(cJSON_GetObjectItem(l0, "diff"), "after")->valuedouble, 0.6, EPS);
    cJSON_Delete(root);
    free(text);
    profile_free(p);
    profile_free(b);
}
END_TEST

/* Hostile and broken files: each gives EP_ERR_FORMAT naming the file and
** what is wrong, and nothing crashes or leaks (the asan run checks). */
START_TEST(test_json_bad_files)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"", "invalid JSON"},
        {"[1, 2]", "not an epdbg profile (not a JSON object)"},
        {"{}", "not an epdbg profile (missing key 'format')"},
        {"{\"format\": \"chrome\"}", "not an epdbg profile (key 'format' is not \"epdbg-profile\")"},
        {"{\"format\": \"epdbg-profile\"}", "missing key 'version'"},
        {"{\"format\": \"epdbg-profile\", \"version\": 2, \"nodes\": []}", "version 2 is not supported"},
        {"{\"format\": \"epdbg-profile\", \"version\": 1}", "not an epdbg profile (missing key 'nodes')"},
        {"{\"format\": \"epdbg-profile\", \"version\": 1, \"nodes\": {}}", "missing key 'nodes'"},
        {"{\"format\": \"epdbg-profile\", \"version\": 1, \"nodes\": [{\"name\": 3}]}", "nodes[0].name: expected a string"},
        {"{\"format\": \"epdbg-profile\", \"version\": 1, \"nodes\": [{}]}", "nodes[0].name: missing required field"},
        {"{\"format\": \"epdbg-profile\", \"version\": 1, \"nodes\": [7]}", "nodes[0]: expected an object"},
        {"{\"format\": \"epdbg-profile\", \"version\": 1, \"nodes\": [], \"iters\": -1}", "iters: expected a count"},
        {"{\"format\": \"epdbg-profile\", \"version\": 1, \"nodes\": [], \"iters\": 1e12}", "iters: 1000000000000 is out of range"},
        {"{\"format\": \"epdbg-profile\", \"version\": 1, \"nodes\": [], \"iters\": 1.5}", "iters: expected an integer"},
        {"{\"format\": \"epdbg-profile\", \"version\": 1, \"nodes\": [], \"mode\": \"fast\"}", "mode: unknown value 'fast'"},
        {"{\"format\": \"epdbg-profile\", \"version\": 1, \"nodes\": [], \"wall\": \"soon\"}", "wall: expected a number"},
        {"{\"format\": \"epdbg-profile\", \"version\": 1, \"nodes\": [], \"peak_node\": 0}", "peak_node: 0 is not a node"},
        {"{\"format\": \"epdbg-profile\", \"version\": 1, \"nodes\": [{\"name\": \"a\", \"scopes\": {}}]}",
         "nodes[0].scopes: expected an array"},
        {"{\"format\": \"epdbg-profile\", \"version\": 1, \"nodes\": [{\"name\": \"a\", \"scopes\": [{\"path\": 1}]}]}",
         "nodes[0].scopes[0].path: expected a string"},
        {"{\"format\": \"epdbg-profile\", \"version\": 1, \"nodes\": [{\"name\": \"a\", \"scopes\": [{\"path\": "
         "\"a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a."
         "a.a.a.a.a.a.a.a.a\"}]}]}",
         "nodes[0].scopes[0].path: a module path of more than 4096 characters or 64 levels"},
        {"{\"format\": \"epdbg-profile\", \"version\": 1, \"nodes\": [{\"name\": \"a\", \"time\": []}]}",
         "nodes[0].time: expected an object"},
        {"{\"format\": \"epdbg-profile\", \"version\": 1, \"nodes\": [{\"name\": \"a\"}, {\"name\": \"b\"}], "
         "\"timeline\": {\"iters\": 2000000000, \"start\": []}}",
         "timeline: 2000000000 iterations of 2 nodes is too many"},
        {"{\"format\": \"epdbg-profile\", \"version\": 1, \"nodes\": [{\"name\": \"a\"}], \"timeline\": {\"iters\": "
         "1000000, \"start\": [1]}}",
         "timeline.start: expected 1000000 numbers, got 1"},
        {"{\"format\": \"epdbg-profile\", \"version\": 1, \"nodes\": [{\"name\": \"a\"}], \"timeline\": {\"iters\": "
         "1, \"start\": [0], \"dur\": [0], \"live\": [0.5]}}",
         "timeline.live[0]: expected an integer"},
        {"{\"format\": \"epdbg-profile\", \"version\": 1, \"nodes\": [], \"peak_tensors\": [{\"bytes\": -5}]}",
         "peak_tensors[0].bytes: expected a count"},
    };
    char *dir = test_tmpdir();
    char *path = ep_xasprintf("%s/bad.json", dir);
    for (size_t i = 0; i < EP_ARRAY_LEN(cases); i++) {
        FILE *f = fopen(path, "w");
        fputs(cases[i].text, f);
        fclose(f);
        EpError err = {0};
        Profile *p = profile_read_json(path, &err);
        ck_assert_msg(!p, "case %zu was accepted", i);
        ck_assert_int_eq(err.code, EP_ERR_FORMAT);
        ck_assert_msg(strncmp(err.msg, path, strlen(path)) == 0, "case %zu: %s", i, err.msg);
        ck_assert_msg(strstr(err.msg, cases[i].want), "case %zu: '%s' lacks '%s'", i, err.msg, cases[i].want);
    }
    /* a real profile cut short at every 97th byte */
    Profile *good = make_profile(PROFILE_EXACT);
    make_awkward(good);
    char *whole = render(good, REPORT_JSON, NULL);
    size_t len = strlen(whole);
    for (size_t cut = 0; cut < len - 2; cut += 97) {
        FILE *f = fopen(path, "w");
        fwrite(whole, 1, cut, f);
        fclose(f);
        EpError err = {0};
        Profile *p = profile_read_json(path, &err);
        ck_assert_msg(!p, "cut at %zu was accepted", cut);
        ck_assert_int_eq(err.code, EP_ERR_FORMAT);
        ck_assert_ptr_nonnull(strstr(err.msg, path));
    }
    /* a missing file */
    EpError err = {0};
    char *none = ep_xasprintf("%s/none.json", dir);
    ck_assert_ptr_null(profile_read_json(none, &err));
    ck_assert_ptr_nonnull(strstr(err.msg, "none.json"));
    free(none);
    free(whole);
    profile_free(good);
    free(path);
    free(dir);
}
END_TEST

Suite *suite_profile_report(void)
{
    Suite *s = suite_create("profile_report");
    TCase *tc = tcase_create("views");
    tcase_add_test(tc, test_totals_and_percentages);
    tcase_add_test(tc, test_op_view);
    tcase_add_test(tc, test_node_view);
    tcase_add_test(tc, test_module_tree);
    tcase_add_test(tc, test_line_view);
    tcase_add_test(tc, test_empty_profile_views);
    tcase_add_test(tc, test_names);
    suite_add_tcase(s, tc);
    tc = tcase_create("table");
    tcase_add_test(tc, test_table_op_view);
    tcase_add_test(tc, test_table_module_and_line_views);
    tcase_add_test(tc, test_diff_table);
    tcase_add_test(tc, test_diff_rejected);
    suite_add_tcase(s, tc);
    tc = tcase_create("json");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_json_round_trip);
    tcase_add_test(tc, test_json_keys_views_and_diff);
    tcase_add_test(tc, test_json_bad_files);
    suite_add_tcase(s, tc);
    return s;
}
