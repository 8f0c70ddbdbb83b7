/*
** test_numerics.c -- numerics hunting (debugger/numerics.h, debugger/cmd_numerics.c):
** the error figures, the float64 shadow on the cancellation and NaN
** fixtures, on programs built here to overflow, to lose precision in a
** float16 cast and to force a dtype, the examples coming out clean, and
** `compare` against the per-node references PyTorch dumped
** (tests/refs/nodes_*, tests/tools/dump_nodes.py): all matching, then a
** perturbed copy whose report names the node, its figures and its inputs.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "examples/gen/progbuild.h"
#include "interp/npy.h"
#include "debugger/numerics.h"
#include "debugger/session.h"
#include "refcheck.h"
#include "testutil.h"
#include "cli/cli.h"
#include "debugger/cmd.h"

#define FIX "build/fixtures/"

/* ---- helpers -------------------------------------------------------------------------- */

static Model *open_model(const char *path)
{
    EpError err = {0};
    Model *m;
    ck_assert_msg(model_open(path, NULL, &m, &err) == EP_OK, "%s: %s", path, err.msg);
    return m;
}

static ShadowReport *shadow_of(Model *m, const Value *inputs, int n, const NumericsOptions *opt)
{
    EpError err = {0};
    ShadowReport *r;
    ck_assert_msg(numerics_shadow(m, inputs, n, opt, &r, &err) == EP_OK, "%s", err.msg);
    return r;
}

static int node_index(const ShadowReport *r, const char *name)
{
    for (int i = 0; i < r->nnodes; i++)
        if (strcmp(r->model->ep->graph.nodes[i].name, name) == 0)
            return i;
    ck_abort_msg("no node %s", name);
    return -1;
}

static const NumOutput *worst_out(const ShadowReport *r, const char *name)
{
    const NumNode *nn = &r->nodes[node_index(r, name)];
    ck_assert_msg(nn->checked && nn->nout > 0, "%s was not compared", name);
    return &nn->outs[nn->worst];
}

static Tensor *vec_f32(const float *v, int64_t n)
{
    EpError err = {0};
    Tensor *t = tensor_empty(DT_F32, 1, &n, &err);
    ck_assert_ptr_nonnull(t);
    memcpy(tensor_data(t), v, (size_t)n * sizeof *v);
    return t;
}

/* A fresh temporary folder (new string; remove with rm_tree). */
static char *temp_dir(void)
{
    char *d = ep_xstrdup("/tmp/epdbg-numerics-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(d));
    return d;
}

static void rm_tree(const char *dir)
{
    char *cmd = ep_xasprintf("rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    free(cmd);
}

static void write_program(ProgBuilder *pb, const char *path)
{
    EpError err = {0};
    PbWriteOptions opt = {.era = PB_ERA_2_11};
    ck_assert_msg(pb_write(pb, path, &opt, &err) == EP_OK, "%s: %s", path, err.msg);
    pb_free(pb);
}

static bool contains(const char *text, const char *what)
{
    return strstr(text, what) != NULL;
}

/* ---- error figures ---------------------------------------------------------------------- */

START_TEST(test_figures)
{
    const float g[5] = {1.0f, 2.0f, 0.0f, 100.0f, NAN};
    const double r[5] = {1.0, 2.5, 1e-9, 100.001, NAN};
    EpError err = {0};
    int64_t n = 5;
    Tensor *tg = vec_f32(g, 5);
    Tensor *tr = tensor_empty(DT_F64, 1, &n, &err);
    memcpy(tensor_data(tr), r, sizeof r);
    ErrStats st;
    ck_assert_int_eq(numerics_compare_tensors(tg, tr, 1e-4, 1e-5, &st, &err), EP_OK);
    ck_assert_int_eq(st.numel, 5);
    ck_assert_int_eq(st.nbad, 1); /* only 2 vs 2.5; 100 vs 100.001 is within rtol */
    ck_assert_int_eq(st.nonfinite_same, 1);
    ck_assert_int_eq(st.worst, 1);
    ck_assert_double_eq_tol(st.max_abs, 0.5, 1e-12);
    ck_assert_double_eq_tol(st.ratio, 0.5 / (1e-5 + 2.5e-4), 1e-6);
    /* element 2: 1e-9 off at a value near zero is measured against a
    ** thousandth of the tensor's scale (0.1), not against 1e-9 */
    ck_assert_double_eq_tol(st.max_rel, 0.2, 1e-12);
    ck_assert_double_eq_tol(st.worst_got, 2.0, 1e-12);
    ck_assert_double_eq_tol(st.worst_ref, 2.5, 1e-12);

    /* NaN in float32 where the reference is finite is the worst, whatever
    ** the size of the other errors */
    ((double *)tensor_data(tr))[4] = 7.0;
    ck_assert_int_eq(numerics_compare_tensors(tg, tr, 1e-4, 1e-5, &st, &err), EP_OK);
    ck_assert_int_eq(st.nonfinite_new, 1);
    ck_assert_int_eq(st.nbad, 2);
    ck_assert_int_eq(st.worst, 4);
    ck_assert(isinf(st.ratio));
    /* an infinity of the other sign is a mismatch too */
    ((float *)tensor_data(tg))[4] = INFINITY;
    ((double *)tensor_data(tr))[4] = -INFINITY;
    ck_assert_int_eq(numerics_compare_tensors(tg, tr, 1e-4, 1e-5, &st, &err), EP_OK);
    ck_assert_int_eq(st.nonfinite_lost, 1);
    ck_assert_int_eq(st.worst, 4);
    tensor_unref(tr);

    /* integers: exact, whatever the tolerance */
    Tensor *a = tensor_empty(DT_I64, 1, &n, &err), *b = tensor_empty(DT_I64, 1, &n, &err);
    for (int i = 0; i < 5; i++)
        ((int64_t *)tensor_data(a))[i] = ((int64_t *)tensor_data(b))[i] = (int64_t)1 << 60;
    ((int64_t *)tensor_data(b))[3] += 1; /* beyond a double's 53 bits */
    ck_assert_int_eq(numerics_compare_tensors(a, b, 1, 1, &st, &err), EP_OK);
    ck_assert_int_eq(st.nbad, 1);
    ck_assert_int_eq(st.worst, 3);
    /* shapes must agree */
    Tensor *scalar = tensor_scalar_i64(DT_I64, 1, &err);
    ck_assert_int_ne(numerics_compare_tensors(a, scalar, 0, 0, &st, &err), EP_OK);
    tensor_unref(scalar);
    tensor_unref(a);
    tensor_unref(b);
    tensor_unref(tg);
}
END_TEST

/* ---- the float64 shadow -------------------------------------------------------------------- */

/* E[h^2] - E[h]^2 near 1e4: float32 keeps no correct digit in sub, which
** takes inputs that are each right to 1e-7 (amplified, not introduced). */
START_TEST(test_shadow_cancel)
{
    Model *m = open_model(FIX "cancel.pt2");
    ShadowReport *r = shadow_of(m, NULL, 0, NULL);
    ck_assert_int_eq(r->nnodes, 8);
    ck_assert_int_eq(r->nchecked, 8);
    ck_assert_int_eq(r->nflagged, 3);
    ck_assert_int_eq(r->norigins, 1);
    int sub = node_index(r, "sub");
    ck_assert_int_eq(r->nodes[sub].verdict, NUM_AMPLIFIED);
    const NumOutput *o = worst_out(r, "sub");
    ck_assert_double_eq_tol(o->chain.worst_got, 2.828427 * 2.828427, 1e-3);
    ck_assert_double_eq_tol(o->chain.worst_ref, 0.27395 * 0.27395, 1e-4);
    ck_assert(o->chain.max_rel > 50);
    ck_assert_int_eq(o->local.nbad, 0); /* the subtraction itself is exact */
    ck_assert(r->nodes[sub].input_ratio < 0.01);
    const char *inputs[] = {"mean_1", "mul_1"};
    for (int k = 0; k < 2; k++) {
        const NumOutput *in = worst_out(r, inputs[k]);
        ck_assert_int_eq(r->nodes[node_index(r, inputs[k])].verdict, NUM_OK);
        ck_assert_msg(in->chain.max_rel < 1e-6 && in->local.max_rel < 1e-6, "%s: %g %g", inputs[k],
                      in->chain.max_rel, in->local.max_rel);
    }
    ck_assert_int_eq(r->nodes[node_index(r, "abs_1")].verdict, NUM_INHERITED);
    ck_assert_int_eq(r->nodes[node_index(r, "sqrt")].verdict, NUM_INHERITED);
    o = worst_out(r, "sqrt");
    ck_assert_double_eq_tol(o->chain.worst_got, 2.828427, 1e-5);
    ck_assert_double_eq_tol(o->chain.worst_ref, 0.27395, 1e-4);

    char *text = numerics_shadow_text(r, NULL, NULL);
    ck_assert_msg(contains(text, "3 nodes are beyond tolerance; the error starts at 1 of them"), "%s", text);
    ck_assert_msg(contains(text, "#5 'sub' (aten.sub.Tensor) at tests/src/numerics.py:28 in forward\n"
                                 "  amplified here"), "%s", text);
    ck_assert_msg(contains(text, "    worst at []: float32 8, float64 0.0750"), "%s", text);
    ck_assert_msg(contains(text, "    mean_1 from #3 'mean_1': max rel err"), "%s", text);
    ck_assert_msg(contains(text, "Later nodes that inherit the error: #6 'abs_1', #7 'sqrt'"), "%s", text);
    free(text);
    /* --all describes the inheriting nodes too */
    numerics_shadow_free(r);
    NumericsOptions all = NUMERICS_OPTIONS_DEFAULT;
    all.all = true;
    r = shadow_of(m, NULL, 0, &all);
    text = numerics_shadow_text(r, NULL, NULL);
    ck_assert_msg(contains(text, "#7 'sqrt' (aten.sqrt.default) at tests/src/numerics.py:29 in forward\n"
                                 "  inherited"), "%s", text);
    free(text);
    numerics_shadow_free(r);
    model_free(m);
}
END_TEST

/* log of a negative number: NaN in both precisions is no rounding problem;
** the report names the node that makes it and flags nothing. */
START_TEST(test_shadow_nan_log)
{
    Model *m = open_model(FIX "nan_log.pt2");
    ShadowReport *r = shadow_of(m, NULL, 0, NULL);
    ck_assert_int_eq(r->nflagged, 0);
    ck_assert_int_eq(r->nnan, 1);
    int log = node_index(r, "log");
    ck_assert(r->nodes[log].nan_origin);
    ck_assert(!r->nodes[node_index(r, "add")].nan_origin); /* passes it on */
    ck_assert_int_eq(worst_out(r, "log")->chain.nonfinite_same, r->nodes[log].nan_count);
    char *text = numerics_shadow_text(r, NULL, NULL);
    ck_assert_msg(contains(text, "No node departs from float64 beyond the tolerance."), "%s", text);
    ck_assert_msg(contains(text, "NaN/Inf that float64 has too"), "%s", text);
    ck_assert_msg(contains(text, "  #2 'log' (aten.log.default) at tests/src/numerics.py:20 in forward: "),
                  "%s", text);
    free(text);
    numerics_shadow_free(r);

    /* an input that already holds a NaN: no node creates one */
    EpError err = {0};
    Tensor *x = npy_load_file(FIX "nan_input.npy", &err);
    ck_assert_msg(x != NULL, "%s", err.msg);
    Value in = value_tensor(x);
    r = shadow_of(m, &in, 1, NULL);
    ck_assert_int_eq(r->nflagged, 0);
    for (int i = 0; i < r->nnodes; i++)
        ck_assert_msg(!r->nodes[i].nan_origin || i == log, "#%d", i);
    numerics_shadow_free(r);
    value_clear(&in);
    model_free(m);
}
END_TEST

/* The examples are computed well in float32: nothing beyond tolerance with
** either kernel family, and every node compared. */
START_TEST(test_shadow_examples_clean)
{
    const char *paths[] = {"examples/mlp.pt2", "examples/cnn.pt2"};
    for (int p = 0; p < 2; p++)
        for (int blas = 0; blas < 2; blas++) {
            Model *m = open_model(paths[p]);
            NumericsOptions opt = NUMERICS_OPTIONS_DEFAULT;
            opt.kernels.use_blas = blas;
            ShadowReport *r = shadow_of(m, NULL, 0, &opt);
            ck_assert_msg(r->nflagged == 0 && r->nnotes == 0 && r->nnan == 0, "%s", paths[p]);
            ck_assert_int_eq(r->nchecked, r->nnodes);
            ck_assert_int_eq(r->failed_node, -1);
            for (int i = 0; i < r->nnodes; i++)
                ck_assert_msg(r->nodes[i].outs[r->nodes[i].worst].chain.max_rel < 1e-3, "%s #%d", paths[p], i);
            numerics_shadow_free(r);
            model_free(m);
        }
}
END_TEST

/* A tolerance no float32 computation meets: the first matmul's own
** rounding is what exceeds it (introduced), and the options reach the
** report.  On the reference loops, whose rounding is the same on every
** CPU (OpenBLAS's depends on the kernels it picks). */
START_TEST(test_shadow_tight_tolerance)
{
    Model *m = open_model("examples/mlp.pt2");
    NumericsOptions opt = NUMERICS_OPTIONS_DEFAULT;
    opt.kernels.use_blas = false;
    opt.rtol = 1e-12;
    opt.atol = 0;
    ShadowReport *r = shadow_of(m, NULL, 0, &opt);
    int first = -1;
    for (int i = 0; i < r->nnodes && first < 0; i++)
        if (r->nodes[i].verdict != NUM_OK)
            first = i;
    ck_assert_int_ge(first, 0);
    ck_assert_str_eq(r->model->ep->graph.nodes[first].name, "linear");
    ck_assert_int_eq(r->nodes[first].verdict, NUM_INTRODUCED);
    char *text = numerics_shadow_text(r, NULL, NULL);
    ck_assert_msg(contains(text, "(tolerance: rtol 1e-12, atol 0)"), "%s", text);
    ck_assert_msg(contains(text, "introduced here"), "%s", text);
    free(text);
    numerics_shadow_free(r);
    model_free(m);
}
END_TEST

/* exp(100) overflows float32 but not float64: an overflow at exp, which
** the multiplication after it inherits; the float64 chain carries the
** finite value through it. */
START_TEST(test_shadow_overflow)
{
    char *dir = temp_dir();
    char *path = ep_xasprintf("%s/overflow.pt2", dir);
    ProgBuilder *pb = pb_new("numerics.Overflow", false);
    const float xv[4] = {1, 50, 100, 2};
    Tensor *x = vec_f32(xv, 4);
    pb_input(pb, "x", x, NULL);
    tensor_unref(x);
    pb_at(pb, "overflow.py", 7, "forward", "return torch.exp(x) * 1e-30");
    pb_node(pb, "aten.exp.default", "exp", "self=%x", "exp");
    pb_node(pb, "aten.mul.Tensor", "mul", "self=%exp other=1e-30", "mul");
    pb_output(pb, "mul");
    write_program(pb, path);

    Model *m = open_model(path);
    ShadowReport *r = shadow_of(m, NULL, 0, NULL);
    ck_assert_int_eq(r->nodes[0].verdict, NUM_OVERFLOW);
    ck_assert_int_eq(r->nodes[1].verdict, NUM_INHERITED);
    const NumOutput *o = worst_out(r, "mul");
    ck_assert_int_eq(o->chain.nonfinite_new, 1);
    ck_assert_int_eq(o->chain.worst, 2);
    ck_assert(isinf(o->chain.worst_got));
    ck_assert_double_eq_tol(o->chain.worst_ref, exp(100.0) * 1e-30, 1e-3);
    char *text = numerics_shadow_text(r, NULL, NULL);
    ck_assert_msg(contains(text, "#0 'exp' (aten.exp.default) at overflow.py:7 in forward\n  overflow here"), "%s",
                  text);
    ck_assert_msg(contains(text, "1 NaN/Inf in float32 where float64 is finite"), "%s", text);
    ck_assert_msg(contains(text, "    worst at [2]: float32 inf, float64 2.68811714e+43"), "%s", text);
    free(text);
    numerics_shadow_free(r);
    model_free(m);
    free(path);
    rm_tree(dir);
    free(dir);
}
END_TEST

/* A cast to float16 and back: the cast's rounding is within float16's
** tolerance but not float32's, so the float32 node after it is where the
** error shows (precision); the comparison after that decides differently
** in float64; a dtype argument rounds the shadow and says so. */
START_TEST(test_shadow_precision_and_notes)
{
    char *dir = temp_dir();
    char *path = ep_xasprintf("%s/half.pt2", dir);
    ProgBuilder *pb = pb_new("numerics.Half", false);
    const float xv[4] = {1.0003f, 2.0f, 0.5f, 3.0f};
    Tensor *x = vec_f32(xv, 4);
    pb_input(pb, "x", x, NULL);
    tensor_unref(x);
    pb_node(pb, "aten._to_copy.default", "to_half", "self=%x dtype=dtype:float16", "to_half");
    pb_node(pb, "aten._to_copy.default", "to_float", "self=%to_half dtype=dtype:float32", "to_float");
    pb_node(pb, "aten.sub.Tensor", "sub", "self=%to_float other=%x", "sub");
    pb_node(pb, "aten.gt.Scalar", "gt", "self=%sub other=-0.0001", "gt");
    pb_node(pb, "aten.sum.dim_IntList", "sum_1", "self=%x dim=[0] keepdim=False dtype=dtype:float16", "sum_1");
    pb_output(pb, "gt");
    pb_output(pb, "sum_1");
    write_program(pb, path);

    Model *m = open_model(path);
    ShadowReport *r = shadow_of(m, NULL, 0, NULL);
    ck_assert_int_eq(r->nodes[0].verdict, NUM_OK); /* float16's own tolerance */
    ck_assert_double_eq_tol(worst_out(r, "to_half")->local.max_rel, 3e-4, 2e-5);
    ck_assert_int_eq(r->nodes[1].verdict, NUM_PRECISION);
    ck_assert_int_eq(r->nodes[2].verdict, NUM_INHERITED);
    ck_assert_int_eq(r->nodes[3].discrete_diff, 1);
    ck_assert_int_eq(r->nodes[3].discrete_numel, 4);
    ck_assert_ptr_nonnull(r->nodes[4].note);
    ck_assert_msg(contains(r->nodes[4].note, "float64 evaluation gives float16"), "%s", r->nodes[4].note);
    char *text = numerics_shadow_text(r, NULL, NULL);
    ck_assert_msg(contains(text, "#1 'to_float' (aten._to_copy.default)\n  precision: "), "%s", text);
    ck_assert_msg(contains(text, "#3 'gt' (aten.gt.Scalar): its int/bool result differs in float64 at 1 of 4"),
                  "%s", text);
    free(text);
    numerics_shadow_free(r);
    model_free(m);
    free(path);
    rm_tree(dir);
    free(dir);
}
END_TEST

/* In-place writes happen on the check's own copies: the caller's input
** tensor and the model's weights keep their values. */
START_TEST(test_shadow_private_copies)
{
    Model *m = open_model(FIX "inplace.pt2");
    EpError err = {0};
    Tensor *x = npy_load_file("tests/refs/inplace/in0.npy", &err);
    ck_assert_msg(x != NULL, "%s", err.msg);
    Tensor *before = tensor_to_dtype(x, x->dtype, &err);
    Value in = value_tensor(x);
    ShadowReport *r = shadow_of(m, &in, 1, NULL);
    ck_assert_int_eq(r->nflagged, 0);
    ck_assert_int_eq(r->failed_node, -1);
    ck_assert_int_eq(memcmp(tensor_data(before), tensor_data(x), tensor_nbytes(x)), 0);
    numerics_shadow_free(r);
    /* and a mismatch of inputs is an error, not a crash */
    Value bad = value_int(3);
    ShadowReport *none = NULL;
    ck_assert_int_ne(numerics_shadow(m, &bad, 1, NULL, &none, &err), EP_OK);
    ck_assert_ptr_null(none);
    value_clear(&in);
    tensor_unref(before);
    model_free(m);
}
END_TEST

/* ---- compare DIR ------------------------------------------------------------------------------ */

static CompareReport *compare_of(Model *m, const char *dir, const NumericsOptions *opt)
{
    EpError err = {0};
    Value *vals = NULL;
    int n = 0;
    Interp *ip = interp_new(m, NULL, &err);
    ck_assert_ptr_nonnull(ip);
    InputArgs ia = {0};
    ia.npz = ep_xstrdup(dir);
    ck_assert_msg(inputs_load(ip, &ia, NULL, &vals, &n, &err) == EP_OK, "%s: %s", dir, err.msg);
    input_args_free(&ia);
    interp_free(ip);
    CompareReport *r;
    ck_assert_msg(numerics_compare_dir(m, vals, n, dir, opt, &r, &err) == EP_OK, "%s: %s", dir, err.msg);
    for (int i = 0; i < n; i++)
        value_clear(&vals[i]);
    free(vals);
    return r;
}

START_TEST(test_compare_all_match)
{
    const char *models[] = {"examples/mlp.pt2", "examples/cnn.pt2"};
    const char *dirs[] = {"tests/refs/nodes_mlp", "tests/refs/nodes_cnn"};
    for (int k = 0; k < 2; k++) {
        Model *m = open_model(models[k]);
        CompareReport *r = compare_of(m, dirs[k], NULL);
        ck_assert_int_eq(r->ndiffer, 0);
        ck_assert_int_eq(r->first, -1);
        ck_assert_int_eq(r->nmissing, 0);
        ck_assert_int_eq(r->nvalues, m->ep->graph.nnodes);
        ck_assert_int_eq(r->nchecks, r->nvalues + 2); /* and in0.npy, out0.npy */
        char *text = numerics_compare_text(r, NULL, NULL);
        ck_assert_msg(contains(text, "12 references checked (10 of 10 computed values); 0 differ.\n"
                                     "All references match."), "%s", text);
        free(text);
        numerics_compare_free(r);
        model_free(m);
    }
}
END_TEST

/* Copy tests/refs/nodes_mlp into a new folder (new string). */
static char *copy_refs(void)
{
    char *dir = temp_dir();
    char *cmd = ep_xasprintf("cp tests/refs/nodes_mlp/*.npy '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    free(cmd);
    return dir;
}

static void perturb(const char *dir, const char *name, int64_t at, double by)
{
    EpError err = {0};
    char *path = ep_xasprintf("%s/%s.npy", dir, name);
    Tensor *t = npy_load_file(path, &err);
    ck_assert_msg(t != NULL, "%s", err.msg);
    ((float *)tensor_data(t))[at] += (float)by;
    ck_assert_msg(npy_save_file(path, t, &err) == EP_OK, "%s", err.msg);
    tensor_unref(t);
    free(path);
}

/* One node's reference perturbed: the report names that node with the
** figures of the change, says its inputs matched, and re-evaluating it on
** the reference inputs confirms the node itself differs. */
START_TEST(test_compare_perturbed)
{
    char *dir = copy_refs();
    perturb(dir, "gelu", 3, 0.5);
    Model *m = open_model("examples/mlp.pt2");
    CompareReport *r = compare_of(m, dir, NULL);
    ck_assert_int_eq(r->ndiffer, 1);
    ck_assert_int_ge(r->first, 0);
    const RefCheck *c = &r->checks[r->first];
    ck_assert_str_eq(c->name, "gelu");
    ck_assert_str_eq(m->ep->graph.nodes[c->node].name, "gelu");
    ck_assert_int_eq(c->st.nbad, 1);
    ck_assert_int_eq(c->st.worst, 3);
    ck_assert_double_eq_tol(c->st.max_abs, 0.5, 1e-6);
    ck_assert_double_eq_tol(c->st.worst_ref - c->st.worst_got, 0.5, 1e-6);
    ck_assert_int_eq(c->ninputs, 1);
    ck_assert_str_eq(c->inputs[0].name, "linear_1");
    ck_assert_int_eq(c->inputs[0].state, REFIN_MATCH);
    ck_assert_int_eq(c->confirm, 1);
    ck_assert_double_eq_tol(c->confirm_st.max_abs, 0.5, 1e-5);
    char *text = numerics_compare_text(r, NULL, NULL);
    ck_assert_msg(contains(text, "; 1 differs.\nFirst difference: #5 'gelu' (aten.gelu.default)"), "%s",
                  text);
    ck_assert_msg(contains(text, "  gelu float32[4, 32]: 1 of 128 elements beyond tolerance; max abs err 0.5"), "%s",
                  text);
    ck_assert_msg(contains(text, "    worst at [0, 3]: epdbg "), "%s", text);
    ck_assert_msg(contains(text, "  its inputs match their references: linear_1\n"), "%s", text);
    ck_assert_msg(contains(text, "the node itself computes something different from the reference"), "%s", text);
    free(text);
    numerics_compare_free(r);

    /* a tolerance wide enough for the change makes it match */
    NumericsOptions wide = NUMERICS_OPTIONS_DEFAULT;
    wide.atol = 1;
    r = compare_of(m, dir, &wide);
    ck_assert_int_eq(r->ndiffer, 0);
    numerics_compare_free(r);
    model_free(m);
    rm_tree(dir);
    free(dir);
}
END_TEST

/* A reference of the wrong dtype or shape is reported as such; a missing
** one is counted; inputs that differ from in0.npy come first. */
START_TEST(test_compare_problems)
{
    char *dir = copy_refs();
    EpError err = {0};
    char *path = ep_xasprintf("%s/relu.npy", dir);
    Tensor *t = npy_load_file(path, &err);
    Tensor *d = tensor_to_dtype(t, DT_F64, &err);
    ck_assert_int_eq(npy_save_file(path, d, &err), EP_OK);
    tensor_unref(d);
    tensor_unref(t);
    free(path);
    path = ep_xasprintf("%s/softmax.npy", dir);
    int64_t sz[1] = {3};
    t = tensor_zeros(DT_F32, 1, sz, &err);
    ck_assert_int_eq(npy_save_file(path, t, &err), EP_OK);
    tensor_unref(t);
    free(path);
    path = ep_xasprintf("%s/dropout.npy", dir);
    ck_assert_int_eq(unlink(path), 0);
    free(path);

    Model *m = open_model("examples/mlp.pt2");
    NumericsOptions all = NUMERICS_OPTIONS_DEFAULT;
    all.all = true;
    CompareReport *r = compare_of(m, dir, &all);
    ck_assert_int_eq(r->ndiffer, 2);
    ck_assert_int_eq(r->nmissing, 1);
    ck_assert_str_eq(r->missing[0], "dropout");
    char *text = numerics_compare_text(r, NULL, NULL);
    ck_assert_msg(contains(text, "  relu: dtype float32, the reference has float64\n"), "%s", text);
    ck_assert_msg(contains(text, "  softmax: shape [4, 4], the reference has [3]\n"), "%s", text);
    ck_assert_msg(contains(text, "without one: dropout"), "%s", text);
    free(text);
    numerics_compare_free(r);

    /* references made from other inputs: the input is the first difference */
    perturb(dir, "in0", 0, 1.0);
    r = compare_of(m, "tests/refs/nodes_mlp", NULL); /* runs on the true inputs ... */
    numerics_compare_free(r);
    EpError e2 = {0};
    Tensor *x = npy_load_file("tests/refs/nodes_mlp/in0.npy", &e2);
    Value in = value_tensor(x);
    ck_assert_int_eq(numerics_compare_dir(m, &in, 1, dir, NULL, &r, &e2), EP_OK); /* ... against the others */
    ck_assert_int_ge(r->first, 0);
    ck_assert_int_eq(r->checks[r->first].node, -1);
    ck_assert_str_eq(r->checks[r->first].file, "in0.npy");
    text = numerics_compare_text(r, NULL, NULL);
    ck_assert_msg(contains(text, "First difference: program value x (in0.npy)"), "%s", text);
    free(text);
    numerics_compare_free(r);
    value_clear(&in);

    /* not a folder */
    ck_assert_int_eq(numerics_compare_dir(m, NULL, 0, "tests/refs/no-such-folder", NULL, &r, &err), EP_ERR_USAGE);
    model_free(m);
    rm_tree(dir);
    free(dir);
}
END_TEST

/* ---- the commands -------------------------------------------------------------------------------- */

static void sb_out(void *ctx, const char *text, size_t len)
{
    sb_appendn(ctx, text, len);
}

static Session *open_session(const char *path)
{
    return test_session_open(path, NULL, true);
}

/* Run line; its output (new string), or NULL with err on failure. */
static char *run_cmd(Session *s, const char *line, EpError *err)
{
    StrBuf sb;
    sb_init(&sb);
    Out out = {sb_out, &sb};
    CmdCtx c = {.s = s, .out = &out, .frame = -1, .list_node = -1};
    if (cmd_execute(&c, line, err)) {
        sb_free(&sb);
        return NULL;
    }
    return sb_take(&sb);
}

START_TEST(test_commands)
{
    Session *s = open_session(FIX "cancel.pt2");
    EpError err = {0};
    ck_assert_int_eq(session_step(s, 3, &err), EP_OK);
    int pc = interp_pc(session_interp(s));
    char *text = run_cmd(s, "check numerics", &err);
    ck_assert_msg(text != NULL, "%s", err.msg);
    ck_assert_msg(contains(text, "#5 'sub' (") && contains(text, "amplified here"), "%s", text);
    free(text);
    ck_assert_int_eq(interp_pc(session_interp(s)), pc); /* the session did not move */
    text = run_cmd(s, "check numerics --rtol 1000 --atol 1 --all", &err);
    ck_assert_msg(text && contains(text, "(tolerance: rtol 1000, atol 1)") && contains(text, "No node departs"), "%s",
                  text ? text : err.msg);
    free(text);
    ck_assert_ptr_null(run_cmd(s, "check", &err));
    ck_assert_msg(contains(err.msg, "check numerics"), "%s", err.msg);
    ck_assert_ptr_null(run_cmd(s, "check numerics --rtol", &err));
    ck_assert_ptr_null(run_cmd(s, "check numerics --atol -1", &err));
    ck_assert_ptr_null(run_cmd(s, "check numerics extra", &err));
    ck_assert_ptr_null(run_cmd(s, "compare", &err));
    ck_assert_msg(contains(err.msg, "which folder"), "%s", err.msg);
    ck_assert_ptr_null(run_cmd(s, "compare tests/refs/no-such-folder", &err));
    session_free(s);

    s = open_session("examples/mlp.pt2");
    text = run_cmd(s, "compare tests/refs/nodes_mlp", &err);
    ck_assert_msg(text && contains(text, "All references match."), "%s", text ? text : err.msg);
    free(text);
    session_free(s);
}
END_TEST

/* The references of build/fixtures/many_outputs.pt2, by hand: its input
** x[70, 3] holds x[k][j] = 4k + j, unbind's outputs u<k> are its rows,
** add = u68 + u69 and mul = add * u65 (the user output). */
static void write_many_outputs_refs(const char *dir)
{
    EpError err = {0};
    float x[70 * 3], add[3], mul[3];
    for (int k = 0; k < 70 * 3; k++)
        x[k] = (float)(4 * (k / 3) + k % 3);
    for (int j = 0; j < 3; j++) {
        add[j] = (float)(548 + 2 * j);
        mul[j] = add[j] * (float)(260 + j);
    }
    struct {
        const char *name;
        const float *v;
        int64_t rows, cols;
    } refs[70 + 4] = {{"in0", x, 70, 3}, {"add", add, 0, 3}, {"mul", mul, 0, 3}, {"out0", mul, 0, 3}};
    char names[70][16]; /* room for any int: -Wformat-truncation */
    for (int k = 0; k < 70; k++) {
        snprintf(names[k], sizeof names[k], "u%d", k);
        refs[4 + k].name = names[k];
        refs[4 + k].v = &x[3 * k];
        refs[4 + k].cols = 3;
    }
    for (int i = 0; i < 74; i++) {
        int64_t sizes[2] = {refs[i].rows, refs[i].cols};
        int nd = refs[i].rows ? 2 : 1;
        Tensor *t = tensor_empty(DT_F32, nd, refs[i].rows ? sizes : sizes + 1, &err);
        ck_assert_ptr_nonnull(t);
        memcpy(tensor_data(t), refs[i].v, (size_t)(refs[i].rows ? refs[i].rows : 1) * 3 * sizeof(float));
        char *path = ep_xasprintf("%s/%s.npy", dir, refs[i].name);
        ck_assert_msg(npy_save_file(path, t, &err) == EP_OK, "%s", err.msg);
        free(path);
        tensor_unref(t);
    }
}

/* A node with 70 float inputs: einsum('a,...,a->a') of x0..x69, where
** x37..x69 are [1, 3] and the others [1, 1], so in float64 out[1] is 3^33 =
** 5559060566555523 exactly (< 2^53).  Every input must be upcast for the
** node's local float64 evaluation: one left float32 and einsum refuses
** the mixed dtypes (as PyTorch's does), leaving a note and no comparison.
** The float32 run's out[1] (read from a plain run) is then off by exactly
** its distance to 3^33, in both the chain and the local comparison. */
START_TEST(test_shadow_wide_node)
{
    const double exact = 5559060566555523.0; /* 3^33 */
    Model *m = open_model(FIX "wide_einsum.pt2");
    EpError err = {0};
    InterpOptions iopt = INTERP_OPTIONS_DEFAULT;
    Interp *ip = interp_new(m, &iopt, &err);
    ck_assert_msg(ip, "%s", err.msg);
    ck_assert_msg(interp_bind_sample_inputs(ip, &err) == EP_OK && interp_run(ip, &err) == EP_OK, "%s", err.msg);
    const Tensor *f32 = interp_user_output(ip, 0)->t;
    ck_assert_int_eq(f32->dtype, DT_F32);
    ck_assert(tensor_get_f64(f32, 0) == 1);
    double got = tensor_get_f64(f32, 1);
    ck_assert(got != exact); /* 3^33 needs 53 bits: float32 cannot hold it */
    interp_free(ip);

    ShadowReport *r = shadow_of(m, NULL, 0, NULL);
    const NumNode *nn = &r->nodes[node_index(r, "einsum")];
    ck_assert_msg(nn->note == NULL, "%s", nn->note);
    ck_assert(nn->checked && nn->nout == 1);
    const NumOutput *o = &nn->outs[0];
    ck_assert_int_eq(o->local.numel, 2);
    ck_assert_int_eq(o->chain.numel, 2);
    ck_assert_msg(o->local.max_abs == fabs(got - exact), "local: %.17g, want %.17g", o->local.max_abs,
                  fabs(got - exact));
    ck_assert_msg(o->chain.max_abs == fabs(got - exact), "chain: %.17g, want %.17g", o->chain.max_abs,
                  fabs(got - exact));
    numerics_shadow_free(r);
    model_free(m);
}
END_TEST

/* `compare` covers every output of a node with 70 of them, and confirms a
** difference in one of the last (u66) by re-evaluating the node on the
** references, which must leave the run's values alone. */
START_TEST(test_compare_many_outputs)
{
    char *dir = temp_dir();
    write_many_outputs_refs(dir);
    Model *m = open_model(FIX "many_outputs.pt2");
    CompareReport *r = compare_of(m, dir, NULL);
    ck_assert_int_eq(r->ndiffer, 0);
    ck_assert_int_eq(r->nmissing, 0);
    ck_assert_int_eq(r->nvalues, 72);
    ck_assert_int_eq(r->nchecks, 74);
    numerics_compare_free(r);

    perturb(dir, "u66", 1, 0.5);
    r = compare_of(m, dir, NULL);
    ck_assert_int_eq(r->ndiffer, 1);
    ck_assert_int_ge(r->first, 0);
    const RefCheck *c = &r->checks[r->first];
    ck_assert_str_eq(c->name, "u66");
    ck_assert_str_eq(m->ep->graph.nodes[c->node].name, "unbind");
    ck_assert_int_eq(c->st.nbad, 1);
    ck_assert_int_eq(c->st.worst, 1);
    ck_assert(c->st.worst_got == 265 && c->st.worst_ref == 265.5);
    ck_assert_int_eq(c->confirm, 1); /* the node on its references still gives 265 */
    ck_assert(c->confirm_st.max_abs == 0.5);
    numerics_compare_free(r);
    model_free(m);

    Session *s = test_session_open(FIX "many_outputs.pt2", NULL, true);
    EpError err = {0};
    char *line = ep_xasprintf("compare %s", dir);
    char *text = run_cmd(s, line, &err);
    ck_assert_msg(text && contains(text, "74 references checked (72 of 72 computed values); 1 differs.\n"
                                         "First difference: #0 'unbind' (aten.unbind.int)"),
                  "%s", text ? text : err.msg);
    ck_assert_int_eq(interp_pc(session_interp(s)), 0); /* the session did not move */
    free(text);
    free(line);
    session_free(s);
    rm_tree(dir);
    free(dir);
}
END_TEST

/* ---- the corpus -------------------------------------------------------------------------------------- */

/* Real archives: the float64 shadow finds nothing beyond tolerance, and
** `compare` against the corpus folder (in*.npy, out*.npy by PyTorch)
** matches every user output.  Both run on the reference loops, not
** OpenBLAS: OpenBLAS picks its kernels by CPU, so its float32 rounding (and
** with it how far a training-mode batch norm over a batch of 2 amplifies
** it) differs from one machine to the next, and a verdict near the
** tolerance must not depend on which machine runs the suite. */
START_TEST(test_corpus)
{
    const char *corpus = test_corpus_dir();
    if (!corpus) {
        fprintf(stderr, "test_numerics: ../shared/corpus is absent: corpus checks SKIPPED\n");
        return;
    }
    const char *names[] = {"executorch__linear", "hades-pid__exported_program", "velox__sum_test",
                           "velox__types_test", "velox__logit_test"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        char *pt2 = ep_xasprintf("%s/%s.pt2", corpus, names[k]);
        char *ref = ep_xasprintf("%s/%s.ref", corpus, names[k]);
        Model *m = open_model(pt2);
        NumericsOptions plain = NUMERICS_OPTIONS_DEFAULT;
        plain.kernels.use_blas = false;
        CompareReport *c = compare_of(m, ref, &plain);
        ck_assert_msg(c->ndiffer == 0 && c->nchecks > 0 && c->failed_node < 0, "%s: %d differ", names[k],
                      c->ndiffer);
        int nin = 0, nout = 0;
        for (int i = 0; i < c->nchecks; i++) {
            nin += strncmp(c->checks[i].file, "in", 2) == 0;
            nout += strncmp(c->checks[i].file, "out", 3) == 0;
        }
        ck_assert_int_eq(nout, ref_count_files(ref, "out"));
        ck_assert_int_gt(nin, 0);
        Interp *ip = interp_new(m, NULL, NULL);
        InputArgs ia = {0};
        ia.npz = ep_xstrdup(ref);
        Value *vals;
        int n;
        EpError err = {0};
        ck_assert_msg(inputs_load(ip, &ia, NULL, &vals, &n, &err) == EP_OK, "%s", err.msg);
        input_args_free(&ia);
        interp_free(ip);
        ShadowReport *r = shadow_of(m, vals, n, &plain);
        ck_assert_msg(r->nflagged == 0 && r->failed_node < 0, "%s: %d nodes beyond tolerance", names[k],
                      r->nflagged);
        numerics_shadow_free(r);
        for (int i = 0; i < n; i++)
            value_clear(&vals[i]);
        free(vals);
        numerics_compare_free(c);
        model_free(m);
        free(pt2);
        free(ref);
    }
}
END_TEST

Suite *suite_numerics(void)
{
    Suite *s = suite_create("numerics");
    TCase *tc = tcase_create("numerics");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_figures);
    tcase_add_test(tc, test_shadow_cancel);
    tcase_add_test(tc, test_shadow_nan_log);
    tcase_add_test(tc, test_shadow_examples_clean);
    tcase_add_test(tc, test_shadow_tight_tolerance);
    tcase_add_test(tc, test_shadow_overflow);
    tcase_add_test(tc, test_shadow_precision_and_notes);
    tcase_add_test(tc, test_shadow_private_copies);
    tcase_add_test(tc, test_compare_all_match);
    tcase_add_test(tc, test_compare_perturbed);
    tcase_add_test(tc, test_compare_problems);
    tcase_add_test(tc, test_commands);
    tcase_add_test(tc, test_compare_many_outputs);
    tcase_add_test(tc, test_shadow_wide_node);
    tcase_add_test(tc, test_corpus);
    suite_add_tcase(s, tc);
    return s;
}
