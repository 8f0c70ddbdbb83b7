/*
** test_interp.c -- the bundled examples and generated fixtures against
** PyTorch's outputs (tests/refs, made by tests/tools/make_refs.sh with
** ../shared/tools/oracle.py), and the interpreter's own behaviour:
** stepping, freeing after last use, signature mutations written back,
** SymInt inputs, failures naming the node, higher-order ops, and a node
** with 70 outputs stepped back over and re-evaluated.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hopgraph.h"
#include "interp/npy.h"
#include "refcheck.h"

#define FIX "build/fixtures/"

static const struct {
    const char *ref, *archive, *program;
} REFS[] = {
    {"mlp", "examples/mlp.pt2", NULL},
    {"mlp_legacy", "examples/mlp_legacy.pt2", NULL},
    {"cnn", "examples/cnn.pt2", NULL},
    {"cnn_legacy", "examples/cnn_legacy.pt2", NULL},
    {"whole_weights", FIX "whole_weights.pt2", NULL},
    {"linear", FIX "v2_linear.pt2", NULL},
    {"linear", FIX "v1_linear.pt2", NULL}, /* the same program written by 2.1 */
    {"linear", FIX "v5_linear.pt2", NULL}, /* and by 2.4 */
    {"dynamic", FIX "dynamic.pt2", NULL},
    {"mutation", FIX "mutation.pt2", NULL},
    {"training_bn", FIX "training_bn.pt2", NULL},
    {"bf16", FIX "bf16.pt2", NULL},
    {"inplace", FIX "inplace.pt2", NULL},
    {"nan_log", FIX "nan_log.pt2", NULL},
    {"cancel", FIX "cancel.pt2", NULL},
    {"multi_encoder", FIX "multi.pt2", "encoder"},
    {"multi_decoder", FIX "multi.pt2", "decoder"},
};

START_TEST(test_against_pytorch)
{
    char refdir[256], msg[2048];
    snprintf(refdir, sizeof refdir, "tests/refs/%s", REFS[_i].ref);
    for (int blas = 1; blas >= 0; blas--) {
        KernelConfig cfg = {.use_blas = blas};
        ck_assert_msg(ref_check(REFS[_i].archive, REFS[_i].program, refdir, &cfg, msg, sizeof msg), "%s%s: %s",
                      REFS[_i].archive, blas ? "" : " [reference kernels]", msg);
    }
}
END_TEST

typedef struct Opened {
    Model *m;
    Interp *ip;
} Opened;

static Opened open_with(const char *path, const InterpOptions *opt)
{
    EpError err = {0};
    Opened o = {0};
    ck_assert_msg(model_open(path, NULL, &o.m, &err) == EP_OK, "%s", err.msg);
    o.ip = interp_new(o.m, opt, &err);
    ck_assert_msg(o.ip != NULL, "%s", err.msg);
    return o;
}

static Opened open_model(const char *path, bool keep)
{
    InterpOptions opt = INTERP_OPTIONS_DEFAULT;
    opt.keep_values = keep;
    return open_with(path, &opt);
}

static void close_model(Opened *o)
{
    interp_free(o->ip);
    model_free(o->m);
}

/* The stored example inputs come back exactly as PyTorch saved them. */
START_TEST(test_sample_inputs_exact)
{
    Opened o = open_model("examples/cnn.pt2", false);
    Value *vals;
    int n;
    EpError err;
    ck_assert_int_eq(interp_sample_inputs(o.ip, &vals, &n, &err), EP_OK);
    ck_assert_int_eq(n, 1);
    Tensor *ref = npy_load_file("tests/refs/cnn/in0.npy", &err);
    char msg[512];
    ck_assert_msg(tensors_close(vals[0].t, ref, 0, 0, msg, sizeof msg), "%s", msg);
    tensor_unref(ref);
    value_clear(&vals[0]);
    free(vals);
    close_model(&o);
}
END_TEST

START_TEST(test_stepping_and_freeing)
{
    for (int keep = 0; keep < 2; keep++) {
        Opened o = open_model("examples/mlp.pt2", keep);
        EpError err = {0};
        ck_assert(!interp_bound(o.ip));
        ck_assert_int_eq(interp_step(o.ip, &err), EP_ERR_USAGE);
        ck_assert_int_eq(interp_bind_sample_inputs(o.ip, &err), EP_OK);
        ck_assert_int_eq(interp_pc(o.ip), 0);
        ck_assert_ptr_nonnull(interp_value(o.ip, "x"));
        ck_assert_ptr_null(interp_value(o.ip, "linear")); /* not computed yet */
        ck_assert_int_eq(interp_step(o.ip, &err), EP_OK);
        ck_assert_int_eq(interp_pc(o.ip), 1);
        const Value *lin = interp_value(o.ip, "linear");
        ck_assert_ptr_nonnull(lin);
        ck_assert_int_eq(lin->t->sizes[1], 32);
        ck_assert_int_eq(interp_step(o.ip, &err), EP_OK); /* relu: linear's last use */
        if (keep)
            ck_assert_ptr_nonnull(interp_value(o.ip, "linear"));
        else
            ck_assert_ptr_null(interp_value(o.ip, "linear"));
        ck_assert_ptr_nonnull(interp_value(o.ip, "relu"));
        while (!interp_finished(o.ip))
            ck_assert_msg(interp_step(o.ip, &err) == EP_OK, "%s", err.msg);
        ck_assert_int_eq(interp_pc(o.ip), interp_num_nodes(o.ip));
        ck_assert_int_eq(interp_step(o.ip, &err), EP_ERR_USAGE);
        const Value *out = interp_user_output(o.ip, 0);
        ck_assert_ptr_nonnull(out);
        ck_assert_str_eq(interp_user_output_name(o.ip, 0), "softmax");
        /* rows of a softmax sum to one */
        for (int r = 0; r < out->t->sizes[0]; r++) {
            double s = 0;
            for (int c = 0; c < 4; c++)
                s += tensor_get_f64(out->t, r * 4 + c);
            ck_assert(fabs(s - 1) < 1e-5);
        }
        /* the metadata a debugger shows */
        const Node *n = interp_node(o.ip, 0);
        ck_assert_str_eq(n->name, "linear");
        ck_assert_ptr_nonnull(strstr(n->meta.stack_trace, "examples/src/mlp.py\", line 21"));
        ck_assert_ptr_nonnull(strstr(n->meta.nn_module_stack, "fc1,torch.nn.modules.linear.Linear"));
        int64_t s0;
        ck_assert(sym_bindings_get(interp_symbols(o.ip), "s0", &s0) && s0 == 4);
        close_model(&o);
    }
}
END_TEST

/* user_input_mutation and buffer_mutation are written back, as the
** unlifted module does; a second run sees the updated buffer. */
START_TEST(test_mutations_written_back)
{
    Opened o = open_model(FIX "mutation.pt2", false);
    EpError err = {0};
    Tensor *x = npy_load_file("tests/refs/mutation/in0.npy", &err);
    Value in[1] = {value_tensor(x)};
    double x0 = tensor_get_f64(x, 0);
    ck_assert_int_eq(interp_bind(o.ip, in, 1, &err), EP_OK);
    ck_assert_int_eq(interp_run(o.ip, &err), EP_OK);
    ck_assert(fabs(tensor_get_f64(x, 0) - (x0 + 2.5)) < 1e-6); /* x.add_(2.5) */
    Tensor *count = model_weight(o.m, "count");
    ck_assert_int_eq(tensor_get_i64(count, 0), 8);
    ck_assert_int_eq(interp_bind(o.ip, in, 1, &err), EP_OK);
    ck_assert_int_eq(interp_run(o.ip, &err), EP_OK);
    ck_assert_int_eq(tensor_get_i64(count, 0), 9);
    value_clear(&in[0]);
    close_model(&o);
}
END_TEST

/* Training-mode batch norm updates the running statistics:
** new = (1 - momentum) * old + momentum * batch statistic (unbiased var). */
START_TEST(test_training_batch_norm_updates_buffers)
{
    Opened o = open_model(FIX "training_bn.pt2", false);
    EpError err = {0};
    Tensor *x = npy_load_file("tests/refs/training_bn/in0.npy", &err);
    Tensor *rm = model_weight(o.m, "bn.running_mean"), *rv = model_weight(o.m, "bn.running_var");
    double old_mean[3], old_var[3];
    for (int c = 0; c < 3; c++) {
        old_mean[c] = tensor_get_f64(rm, c);
        old_var[c] = tensor_get_f64(rv, c);
    }
    Value in[1] = {value_tensor(x)};
    ck_assert_int_eq(interp_bind(o.ip, in, 1, &err), EP_OK);
    ck_assert_msg(interp_run(o.ip, &err) == EP_OK, "%s", err.msg);
    for (int c = 0; c < 3; c++) {
        double mean = 0, var = 0;
        for (int r = 0; r < 5; r++)
            mean += tensor_get_f64(x, r * 3 + c) / 5;
        for (int r = 0; r < 5; r++)
            var += pow(tensor_get_f64(x, r * 3 + c) - mean, 2) / 4;
        ck_assert(fabs(tensor_get_f64(rm, c) - (0.9 * old_mean[c] + 0.1 * mean)) < 1e-6);
        ck_assert(fabs(tensor_get_f64(rv, c) - (0.9 * old_var[c] + 0.1 * var)) < 1e-6);
    }
    value_clear(&in[0]);
    close_model(&o);
}
END_TEST

/* A SymInt input used as a tensor operand (wrapped) and as a size. */
START_TEST(test_symint_input)
{
    Opened o = open_model(FIX "symint_input.pt2", false);
    EpError err = {0};
    ck_assert_int_eq(interp_num_user_inputs(o.ip), 2);
    ck_assert_int_eq(interp_user_input(o.ip, 1)->kind, ARG_SYM_INT);
    int64_t xs[1] = {3};
    Tensor *x = tensor_empty(DT_F32, 1, xs, &err);
    for (int i = 0; i < 3; i++)
        ((float *)tensor_data(x))[i] = 0.5f * (float)i - 1;
    Value in[2] = {value_tensor(x), value_int(7)};
    ck_assert_int_eq(interp_bind(o.ip, in, 2, &err), EP_OK);
    ck_assert_msg(interp_run(o.ip, &err) == EP_OK, "%s", err.msg);
    const Value *mul = interp_user_output(o.ip, 0), *ar = interp_user_output(o.ip, 1);
    ck_assert_int_eq(mul->t->dtype, DT_F32);
    for (int i = 0; i < 3; i++)
        ck_assert(tensor_get_f64(mul->t, i) == 7 * (0.5 * i - 1));
    ck_assert_int_eq(ar->t->sizes[0], 7);
    ck_assert_int_eq(ar->t->dtype, DT_F32);
    ck_assert(tensor_get_f64(ar->t, 6) == 6);
    value_clear(&in[0]);
    close_model(&o);
}
END_TEST

/* A SymInt input is checked against its symbol's range as a tensor size
** is (torch's _check_symint): s0 in [2, 8], so 9 is refused, 8 and 5 run,
** and 0 and 1 pass although the minimum is 2 (PyTorch enforces only lower
** bounds above 2).  out = x * n, checked for each accepted n. */
static EpStatus bind_symint_range(Opened *o, int64_t n, EpError *err)
{
    int64_t xs[1] = {3};
    Tensor *x = tensor_empty(DT_F32, 1, xs, err);
    ck_assert_ptr_nonnull(x);
    for (int i = 0; i < 3; i++)
        ((float *)tensor_data(x))[i] = 0.25f * (float)i - 0.5f; /* -0.5, -0.25, 0 */
    Value in[2] = {value_tensor(x), value_int(n)};
    EpStatus rc = interp_bind(o->ip, in, 2, err);
    if (rc == EP_OK) {
        ck_assert_msg(interp_run(o->ip, err) == EP_OK, "%s", err->msg);
        const Value *out = interp_user_output(o->ip, 0);
        for (int i = 0; i < 3; i++)
            ck_assert_msg(tensor_get_f64(out->t, i) == (double)n * (0.25 * i - 0.5), "n = %lld: out[%d] = %g",
                          (long long)n, i, tensor_get_f64(out->t, i));
    }
    value_clear(&in[0]);
    return rc;
}

START_TEST(test_symint_input_range)
{
    Opened o = open_model(FIX "symint_range.pt2", false);
    EpError err = {0};
    ck_assert_int_eq(bind_symint_range(&o, 9, &err), EP_ERR_INPUT);
    ck_assert_msg(strstr(err.msg, "input n = 9 is above the maximum 8 of s0"), "%s", err.msg);
    ck_assert(!interp_bound(o.ip));
    const int64_t ok[] = {8, 5, 2, 1, 0};
    for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++) {
        memset(&err, 0, sizeof err);
        ck_assert_msg(bind_symint_range(&o, ok[k], &err) == EP_OK, "n = %lld: %s", (long long)ok[k], err.msg);
        int64_t s0 = -1;
        ck_assert(sym_bindings_get(interp_symbols(o.ip), "s0", &s0));
        ck_assert_int_eq(s0, ok[k]);
    }
    close_model(&o);
}
END_TEST

/* ---- one node binding 40 symbols (build/fixtures/many_symbols.pt2) ----------------------- */

#define SPLIT_PARTS 40

/* Every u_k bound to its part's size k + 1 (bound), or none of them. */
static void assert_split_symbols(const Interp *ip, bool bound, const char *when)
{
    for (int k = 0; k < SPLIT_PARTS; k++) {
        char name[16];
        snprintf(name, sizeof name, "u%d", k);
        int64_t v = -1;
        bool has = sym_bindings_get(interp_symbols(ip), name, &v);
        ck_assert_msg(has == bound, "%s: %s is %s", when, name, has ? "bound" : "unbound");
        if (bound)
            ck_assert_msg(v == k + 1, "%s: %s = %lld, want %d", when, name, (long long)v, k + 1);
    }
}

/* The split learns u0..u39; stepping back over it unbinds all 40 (the
** ones past a fixed table's end too), and stepping again learns them
** again.  out = part39 * 2 = 2 * (780..819). */
START_TEST(test_many_symbols_time_travel)
{
    InterpOptions opt = INTERP_OPTIONS_DEFAULT;
    opt.history = true;
    Opened o = open_with(FIX "many_symbols.pt2", &opt);
    EpError err = {0};
    ck_assert_msg(interp_bind_sample_inputs(o.ip, &err) == EP_OK, "%s", err.msg);
    ck_assert_str_eq(interp_node(o.ip, 0)->name, "split");
    assert_split_symbols(o.ip, false, "before the split");
    ck_assert_msg(interp_step(o.ip, &err) == EP_OK, "%s", err.msg);
    assert_split_symbols(o.ip, true, "after the split");
    ck_assert_msg(interp_step_back(o.ip, &err) == EP_OK, "%s", err.msg);
    ck_assert_int_eq(interp_pc(o.ip), 0);
    assert_split_symbols(o.ip, false, "after stepping back over the split");
    ck_assert_msg(interp_run(o.ip, &err) == EP_OK, "%s", err.msg);
    assert_split_symbols(o.ip, true, "after the run");
    const Value *out = interp_user_output(o.ip, 0);
    ck_assert_int_eq(out->t->sizes[0], SPLIT_PARTS);
    for (int j = 0; j < SPLIT_PARTS; j++)
        ck_assert(tensor_get_f64(out->t, j) == 2.0 * (780 + j));
    close_model(&o);
}
END_TEST

/* Evaluating the split off the record learns nothing for the run, and
** grows no list the run's context shares (AddressSanitizer would see it). */
START_TEST(test_many_symbols_eval_node)
{
    Opened o = open_model(FIX "many_symbols.pt2", true);
    EpError err = {0};
    ck_assert_msg(interp_bind_sample_inputs(o.ip, &err) == EP_OK, "%s", err.msg);
    Value outs[SPLIT_PARTS];
    int n = 0;
    ck_assert_msg(interp_eval_node(o.ip, 0, NULL, NULL, outs, SPLIT_PARTS, &n, &err) == EP_OK, "%s", err.msg);
    ck_assert_int_eq(n, SPLIT_PARTS);
    for (int k = 0; k < n; k++) {
        ck_assert_int_eq(outs[k].t->sizes[0], k + 1);
        value_clear(&outs[k]);
    }
    assert_split_symbols(o.ip, false, "after an evaluation off the record");
    ck_assert_msg(interp_step(o.ip, &err) == EP_OK, "%s", err.msg);
    assert_split_symbols(o.ip, true, "after the step");
    close_model(&o);
}
END_TEST

START_TEST(test_failure_names_node_and_source)
{
    Opened o = open_model(FIX "unsupported.pt2", false);
    EpError err = {0};
    ck_assert_int_eq(interp_check_supported(o.ip, &err), EP_ERR_EXEC);
    ck_assert_msg(strstr(err.msg, "node 1 'frobnicate' (mylib.frobnicate.default) at unsupported.py:12 in forward: "
                                  "y = torch.ops.mylib.frobnicate(x)"),
                  "%s", err.msg);
    ck_assert_ptr_null(interp_node_problem(o.ip, 0));
    ck_assert_ptr_nonnull(interp_node_problem(o.ip, 1));
    /* nodes before it still run; the failing one stops the run there */
    ck_assert_int_eq(interp_bind_sample_inputs(o.ip, &err), EP_OK);
    ck_assert_int_eq(interp_step(o.ip, &err), EP_OK);
    ck_assert_int_eq(interp_step(o.ip, &err), EP_ERR_EXEC);
    ck_assert_int_eq(interp_pc(o.ip), 1);
    ck_assert_msg(strstr(err.msg, "epdbg has no kernel for mylib.frobnicate.default"), "%s", err.msg);
    close_model(&o);
}
END_TEST

/* ---- higher-order ops: programs written by hand, as 2.5+ serialises them -- */

static const Value *run_hop(const char *path, Opened *o, const float *xv)
{
    *o = open_model(path, false);
    EpError err = {0};
    int64_t s[1] = {3};
    Tensor *x = tensor_empty(DT_F32, 1, s, &err);
    memcpy(tensor_data(x), xv, 3 * sizeof(float));
    Value in[1] = {value_tensor(x)};
    ck_assert_msg(interp_bind(o->ip, in, 1, &err) == EP_OK, "%s", err.msg);
    ck_assert_msg(interp_run(o->ip, &err) == EP_OK, "%s", err.msg);
    value_clear(&in[0]);
    return interp_user_output(o->ip, 0);
}

START_TEST(test_hop_cond)
{
    char *path = hop_cond_archive(); /* cond(x.sum() > 0, a * 2, a - 1, [x]) */
    Opened o;
    const float pos[3] = {1, 2, -0.5f}, neg[3] = {-1, -2, 0.5f};
    const Value *r = run_hop(path, &o, pos);
    ck_assert(tensor_get_f64(r->t, 0) == 2 && tensor_get_f64(r->t, 2) == -1); /* true branch: a * 2 */
    close_model(&o);
    r = run_hop(path, &o, neg);
    ck_assert(tensor_get_f64(r->t, 0) == -2 && tensor_get_f64(r->t, 2) == -0.5); /* false branch: a - 1 */
    close_model(&o);
    unlink(path);
    free(path);
}
END_TEST

START_TEST(test_hop_map_and_wrap)
{
    /* wrap_with_set_grad_enabled(False, g, x) with g = a + 1; then
    ** map_impl(body = a * 3, [wrapped], []) over dim 0 of a [3] tensor */
    const char *nodes =
        "[{\"target\": \"torch.ops.higher_order.wrap_with_set_grad_enabled\", \"inputs\": ["
        "{\"name\": \"\", \"arg\": {\"as_bool\": false}},"
        "{\"name\": \"\", \"arg\": " SUBGRAPH("submod_1", "[" TNODE("add.Tensor", "p", "[{\"name\": \"self\", \"arg\": "
        "{\"as_tensor\": {\"name\": \"a\"}}}, {\"name\": \"other\", \"arg\": {\"as_int\": 1}}]") "]", "p") "},"
        "{\"name\": \"\", \"arg\": {\"as_tensor\": {\"name\": \"x\"}}}],"
        " \"outputs\": [{\"as_tensor\": {\"name\": \"w\"}}], \"metadata\": {}, \"name\": \"wrap\"},"
        "{\"target\": \"torch.ops.higher_order.map_impl\", \"inputs\": ["
        "{\"name\": \"\", \"arg\": " SUBGRAPH("body_graph_0", "[" TNODE("mul.Tensor", "t", "[{\"name\": \"self\", "
        "\"arg\": {\"as_tensor\": {\"name\": \"a\"}}}, {\"name\": \"other\", \"arg\": {\"as_int\": 3}}]") "]", "t") "},"
        "{\"name\": \"\", \"arg\": {\"as_tensors\": [{\"name\": \"w\"}]}},"
        "{\"name\": \"\", \"arg\": {\"as_tensors\": []}}],"
        " \"outputs\": [{\"as_tensor\": {\"name\": \"mapped\"}}], \"metadata\": {}, \"name\": \"map_impl\"}]";
    char *path = hop_archive(nodes, "[{\"as_tensor\": {\"name\": \"mapped\"}}]",
                             "[{\"user_output\": {\"arg\": {\"as_tensor\": {\"name\": \"mapped\"}}}}]");
    Opened o;
    const float xv[3] = {1, -2, 0.25f};
    const Value *r = run_hop(path, &o, xv);
    ck_assert_int_eq(r->t->ndim, 1);
    for (int i = 0; i < 3; i++)
        ck_assert(tensor_get_f64(r->t, i) == 3 * (xv[i] + 1));
    close_model(&o);
    unlink(path);
    free(path);
}
END_TEST

/* ---- a node with 70 outputs (build/fixtures/many_outputs.pt2) ---------------------------- */

#define ROWS 70

/* Row k of its input: x[k][j] = 4k + j, so unbind's outputs are known
** exactly. */
static void assert_row(const Interp *ip, int k, const char *when)
{
    char name[16];
    snprintf(name, sizeof name, "u%d", k);
    const Value *v = interp_value(ip, name);
    ck_assert_msg(v && v->kind == V_TENSOR, "%s: %s has no value", when, name);
    ck_assert_int_eq(v->t->ndim, 1);
    ck_assert_int_eq(v->t->sizes[0], 3);
    for (int j = 0; j < 3; j++)
        ck_assert_msg(tensor_get_f64(v->t, j) == 4 * k + j, "%s: %s[%d] = %g, not %d", when, name, j,
                      tensor_get_f64(v->t, j), 4 * k + j);
}

/* mul = (u68 + u69) * u65, by hand: (548 + 2j) * (260 + j). */
static void assert_mul(const Interp *ip)
{
    const Value *v = interp_value(ip, "mul");
    ck_assert_ptr_nonnull(v);
    for (int j = 0; j < 3; j++)
        ck_assert(tensor_get_f64(v->t, j) == (548.0 + 2 * j) * (260.0 + j));
}

/* Stepping back over the unbind drops all 70 outputs (not the first 64
** only); going forward again computes the same bytes. */
START_TEST(test_many_outputs_time_travel)
{
    InterpOptions opt = INTERP_OPTIONS_DEFAULT;
    opt.history = true;
    Opened o = open_with(FIX "many_outputs.pt2", &opt);
    EpError err = {0};
    ck_assert_msg(interp_bind_sample_inputs(o.ip, &err) == EP_OK, "%s", err.msg);
    ck_assert_str_eq(interp_node(o.ip, 0)->name, "unbind");
    ck_assert_int_eq(interp_node_num_outputs(o.ip, 0), ROWS);
    ck_assert_msg(interp_step(o.ip, &err) == EP_OK, "%s", err.msg);
    Tensor *first[ROWS];
    for (int k = 0; k < ROWS; k++) {
        assert_row(o.ip, k, "after the first step");
        const Tensor *t = interp_value(o.ip, interp_node_output_name(o.ip, 0, k))->t;
        first[k] = tensor_to_dtype(t, t->dtype, &err); /* a copy of the bytes */
        ck_assert_ptr_nonnull(first[k]);
    }
    ck_assert_msg(interp_run(o.ip, &err) == EP_OK, "%s", err.msg);
    assert_mul(o.ip);
    while (interp_pc(o.ip) > 1 || interp_finished(o.ip))
        ck_assert_msg(interp_step_back(o.ip, &err) == EP_OK, "%s", err.msg);
    ck_assert_ptr_null(interp_value(o.ip, "add"));
    assert_row(o.ip, ROWS - 1, "before stepping back over unbind");
    ck_assert_msg(interp_step_back(o.ip, &err) == EP_OK, "%s", err.msg);
    ck_assert_int_eq(interp_pc(o.ip), 0);
    for (int k = 0; k < ROWS; k++)
        ck_assert_msg(interp_value(o.ip, interp_node_output_name(o.ip, 0, k)) == NULL,
                      "u%d kept its value after stepping back over unbind", k);
    ck_assert_ptr_nonnull(interp_value(o.ip, "x"));
    ck_assert_int_eq(interp_step_back(o.ip, &err), EP_ERR_USAGE); /* nothing before the start */

    ck_assert_msg(interp_step(o.ip, &err) == EP_OK, "%s", err.msg);
    char msg[256];
    for (int k = 0; k < ROWS; k++) {
        const Tensor *again = interp_value(o.ip, interp_node_output_name(o.ip, 0, k))->t;
        ck_assert_msg(tensors_close(again, first[k], 0, 0, msg, sizeof msg), "u%d going forward again: %s", k, msg);
        tensor_unref(first[k]);
    }
    ck_assert_msg(interp_run(o.ip, &err) == EP_OK, "%s", err.msg);
    assert_mul(o.ip);
    close_model(&o);
}
END_TEST

/* Evaluating the unbind off the record gives all 70 outputs, equal to the
** run's, and leaves the run's own values as they were (none freed under
** it: AddressSanitizer would see the use after free). */
START_TEST(test_many_outputs_eval_node)
{
    Opened o = open_model(FIX "many_outputs.pt2", true);
    EpError err = {0};
    ck_assert_msg(interp_bind_sample_inputs(o.ip, &err) == EP_OK, "%s", err.msg);
    ck_assert_msg(interp_run(o.ip, &err) == EP_OK, "%s", err.msg);
    Value outs[ROWS];
    int nouts = 0;
    char msg[256];
    ck_assert_msg(interp_eval_node(o.ip, 0, NULL, NULL, outs, ROWS, &nouts, &err) == EP_OK, "%s", err.msg);
    ck_assert_int_eq(nouts, ROWS);
    for (int k = 0; k < ROWS; k++) {
        const Value *run = interp_value(o.ip, interp_node_output_name(o.ip, 0, k));
        ck_assert_ptr_nonnull(run);
        ck_assert_int_eq(outs[k].kind, V_TENSOR);
        ck_assert_msg(tensors_close(outs[k].t, run->t, 0, 0, msg, sizeof msg), "output %d: %s", k, msg);
        value_clear(&outs[k]);
    }
    for (int k = 0; k < ROWS; k++)
        assert_row(o.ip, k, "after interp_eval_node");
    /* room for two: the other 68 are the evaluation's own, dropped */
    ck_assert_msg(interp_eval_node(o.ip, 0, NULL, NULL, outs, 2, &nouts, &err) == EP_OK, "%s", err.msg);
    ck_assert_int_eq(nouts, ROWS);
    ck_assert(tensor_get_f64(outs[1].t, 2) == 6);
    value_clear(&outs[0]);
    value_clear(&outs[1]);
    for (int k = 0; k < ROWS; k++)
        assert_row(o.ip, k, "after interp_eval_node with room for two");
    assert_mul(o.ip);
    close_model(&o);
}
END_TEST

Suite *suite_interp(void)
{
    Suite *s = suite_create("interp");
    TCase *tc = tcase_create("examples");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_against_pytorch, 0, (int)EP_ARRAY_LEN(REFS));
    tcase_add_test(tc, test_sample_inputs_exact);
    tcase_add_test(tc, test_stepping_and_freeing);
    tcase_add_test(tc, test_mutations_written_back);
    tcase_add_test(tc, test_training_batch_norm_updates_buffers);
    tcase_add_test(tc, test_symint_input);
    tcase_add_test(tc, test_failure_names_node_and_source);
    tcase_add_test(tc, test_hop_cond);
    tcase_add_test(tc, test_hop_map_and_wrap);
    tcase_add_test(tc, test_many_outputs_time_travel);
    tcase_add_test(tc, test_many_outputs_eval_node);
    tcase_add_test(tc, test_symint_input_range);
    tcase_add_test(tc, test_many_symbols_time_travel);
    tcase_add_test(tc, test_many_symbols_eval_node);
    suite_add_tcase(s, tc);
    return s;
}
