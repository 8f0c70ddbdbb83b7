/*
** test_threads.c -- results do not depend on the thread count: every
** example model and every corpus archive (on their reference inputs) gives
** bit-identical outputs with 1, 2 and 3 threads, and so do the kernels
** that split their work (GEMMs cut into blocks, convolution tiles and
** depthwise planes) at shapes big enough to split; those also agree with
** the plain reference loops.  `epdbg run --threads 1` and `--threads 2`
** print the same values, and a bad count is refused with one message.
*/
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "interp/npy.h"
#include "interp/ops.h"
#include "interp/parallel.h"
#include "refcheck.h"

#define MAX_OUTS 64
static const int THREADS[] = {1, 2, 3};
#define NTHREADS (int)(sizeof THREADS / sizeof THREADS[0])

/* The user outputs of one run, each as a contiguous tensor (tensor and
** number outputs alike), into outs[]; returns how many. */
static int run_archive(const char *path, const char *refdir, Tensor **outs)
{
    EpError err = {0};
    Model *m = NULL;
    ck_assert_msg(model_open(path, NULL, &m, &err) == EP_OK, "%s: %s", path, err.msg);
    InterpOptions opt = INTERP_OPTIONS_DEFAULT;
    Interp *ip = interp_new(m, &opt, &err);
    ck_assert_msg(ip != NULL, "%s: %s", path, err.msg);
    if (!refdir) {
        ck_assert_msg(interp_bind_sample_inputs(ip, &err) == EP_OK, "%s: %s", path, err.msg);
    } else {
        int nin = interp_num_user_inputs(ip);
        Value *ins = ep_xcalloc((size_t)nin + 1, sizeof *ins);
        for (int i = 0; i < nin; i++) {
            char in[1300];
            snprintf(in, sizeof in, "%s/in%d.npy", refdir, i);
            Tensor *t = npy_load_file(in, &err);
            ck_assert_msg(t != NULL, "%s: %s", in, err.msg);
            ins[i] = ref_input_value(interp_user_input(ip, i), t, &err);
            tensor_unref(t);
        }
        ck_assert_msg(interp_bind(ip, ins, nin, &err) == EP_OK, "%s: %s", path, err.msg);
        for (int i = 0; i < nin; i++)
            value_clear(&ins[i]);
        free(ins);
    }
    ck_assert_msg(interp_run(ip, &err) == EP_OK, "%s: %s", path, err.msg);
    int n = interp_num_user_outputs(ip);
    ck_assert_int_le(n, MAX_OUTS);
    for (int i = 0; i < n; i++) {
        const Value *v = interp_user_output(ip, i);
        if (v->kind == V_TENSOR)
            outs[i] = tensor_contiguous(v->t, &err);
        else if (v->kind == V_FLOAT)
            outs[i] = tensor_scalar_f64(DT_F64, v->f, &err);
        else if (v->kind == V_INT || v->kind == V_BOOL)
            outs[i] = tensor_scalar_i64(DT_I64, v->kind == V_INT ? v->i : v->b, &err);
        else
            outs[i] = tensor_scalar_i64(DT_I64, 0, &err); /* None and the like: nothing to compare */
        ck_assert_msg(outs[i] != NULL, "%s: %s", path, err.msg);
    }
    interp_free(ip);
    model_free(m);
    return n;
}

/* Whether a and b hold the same bytes (same dtype and shape). */
static bool same_bits(const Tensor *a, const Tensor *b)
{
    if (a->dtype != b->dtype || a->ndim != b->ndim || memcmp(a->sizes, b->sizes, sizeof a->sizes[0] * (size_t)a->ndim))
        return false;
    return memcmp(tensor_data((Tensor *)a), tensor_data((Tensor *)b), tensor_nbytes(a)) == 0;
}

/* Run path at every thread count and compare each output with the first. */
static void check_archive(const char *path, const char *refdir)
{
    Tensor *first[MAX_OUTS], *other[MAX_OUTS];
    ep_set_threads(THREADS[0]);
    int n = run_archive(path, refdir, first);
    for (int k = 1; k < NTHREADS; k++) {
        ep_set_threads(THREADS[k]);
        int m = run_archive(path, refdir, other);
        ck_assert_int_eq(m, n);
        for (int i = 0; i < n; i++) {
            ck_assert_msg(same_bits(first[i], other[i]), "%s%s%s: output %d differs between %d and %d threads",
                          path, refdir ? " on " : "", refdir ? refdir : "", i, THREADS[0], THREADS[k]);
            tensor_unref(other[i]);
        }
    }
    for (int i = 0; i < n; i++)
        tensor_unref(first[i]);
    ep_set_threads(0);
}

/* The examples (`make examples`) with the inputs of their references. */
static const struct {
    const char *path, *refdir;
} EXAMPLES[] = {
    {"examples/mlp.pt2", "tests/refs/mlp"},
    {"examples/mlp_legacy.pt2", "tests/refs/mlp_legacy"},
    {"examples/cnn.pt2", "tests/refs/cnn"},
    {"examples/cnn_legacy.pt2", "tests/refs/cnn_legacy"},
};

START_TEST(test_examples_same_for_any_thread_count)
{
    check_archive(EXAMPLES[_i].path, EXAMPLES[_i].refdir);
}
END_TEST

static char *const *stems;
static int nstems;

START_TEST(test_corpus_same_for_any_thread_count)
{
    char *path = test_corpus_archive_path(stems[_i]);
    ck_assert_msg(path != NULL, "%s: no archive beside its .ref folder", stems[_i]);
    char refdir[1024];
    snprintf(refdir, sizeof refdir, "%s/%s.ref", test_corpus_dir(), stems[_i]);
    check_archive(path, refdir);
    free(path);
}
END_TEST

START_TEST(test_corpus_absent)
{
    fprintf(stderr, "threads: ../shared/corpus is not present: its archives were not run at 1, 2 and 3 threads\n");
}
END_TEST

/* ---- kernels big enough to split --------------------------------------------- */

static Tensor *randn(int ndim, const int64_t *sizes, uint64_t seed)
{
    EpError err = {0};
    Tensor *t = tensor_empty(DT_F32, ndim, sizes, &err);
    ck_assert_ptr_nonnull(t);
    float *p = tensor_data(t);
    for (int64_t i = 0; i < tensor_numel(t); i++) {
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        p[i] = (float)((double)(seed >> 40) / (double)(1u << 24) - 0.5);
    }
    return t;
}

static Value int_list(int n, const int64_t *v)
{
    ValueList *l = value_list_new(n);
    for (int i = 0; i < n; i++)
        l->items[i] = value_int(v[i]);
    Value r = {.kind = V_LIST};
    r.list = l;
    return r;
}

/* target(args...) with the BLAS path or the reference loops; the one
** tensor output (new reference).  Borrows the values. */
static Tensor *call_op(const char *target, int n, const char *const *names, const Value *vals, bool use_blas)
{
    const OpDef *op = op_lookup(target);
    ck_assert_ptr_nonnull(op);
    EpError err = {0};
    Value copies[OP_MAX_ARGS], args[OP_MAX_ARGS], outs[OP_MAX_RETS];
    for (int i = 0; i < n; i++)
        copies[i] = value_copy(&vals[i]);
    ck_assert_msg(op_bind(op, n, (const char **)names, copies, args, &err) == EP_OK, "%s: %s", target, err.msg);
    for (int i = 0; i < OP_MAX_RETS; i++)
        outs[i].kind = V_NONE;
    KernelConfig cfg = {.use_blas = use_blas};
    OpCall call = {op, args, op->schema->nargs, outs, op->schema->nrets, &err, &cfg};
    ck_assert_msg(op->fn(&call) == EP_OK, "%s: %s", target, err.msg);
    ck_assert_int_eq(outs[0].kind, V_TENSOR);
    Tensor *r = tensor_contiguous(outs[0].t, &err);
    for (int k = 0; k < OP_MAX_RETS; k++)
        value_clear(&outs[k]);
    for (int i = 0; i < op->schema->nargs; i++)
        value_clear(&args[i]);
    for (int i = 0; i < n; i++)
        value_clear(&copies[i]);
    return r;
}

/* Same bits at 1, 2 and 3 threads, and close to the reference loops. */
static void check_kernel(const char *what, const char *target, int n, const char *const *names, const Value *vals)
{
    Tensor *first = NULL;
    for (int k = 0; k < NTHREADS; k++) {
        ep_set_threads(THREADS[k]);
        Tensor *t = call_op(target, n, names, vals, true);
        if (!first) {
            first = t;
            continue;
        }
        ck_assert_msg(same_bits(first, t), "%s: differs between %d and %d threads", what, THREADS[0], THREADS[k]);
        tensor_unref(t);
    }
    ep_set_threads(0);
    Tensor *ref = call_op(target, n, names, vals, false);
    char msg[1024];
    ck_assert_msg(tensors_close(first, ref, 1e-4, 1e-4, msg, sizeof msg), "%s: fast path against the reference "
                  "loops: %s", what, msg);
    tensor_unref(ref);
    tensor_unref(first);
}

typedef struct ConvCase {
    const char *what;
    int64_t x[4], w[4], stride, pad, groups;
} ConvCase;

static const ConvCase CONVS[] = {
    {"3x3, several tiles", {2, 16, 40, 40}, {24, 16, 3, 3}, 1, 1, 1},
    {"3x3 strided", {1, 8, 45, 37}, {12, 8, 3, 3}, 2, 1, 1},
    {"1x1 in several tiles", {1, 8, 120, 400}, {24, 8, 1, 1}, 1, 0, 1},
    {"grouped", {1, 16, 40, 40}, {32, 4, 3, 3}, 1, 1, 4},
    {"depthwise", {2, 48, 43, 41}, {48, 1, 3, 3}, 1, 1, 48},
    {"depthwise strided 5x5", {1, 32, 40, 40}, {32, 1, 5, 5}, 2, 2, 32},
    {"depthwise multiplier", {1, 16, 40, 40}, {32, 1, 3, 3}, 1, 0, 16},
};

START_TEST(test_conv_same_for_any_thread_count)
{
    const ConvCase *c = &CONVS[_i];
    int64_t st[2] = {c->stride, c->stride}, pad[2] = {c->pad, c->pad}, dil[2] = {1, 1};
    Value vals[7] = {value_tensor(randn(4, c->x, 1)), value_tensor(randn(4, c->w, 2)),
                     value_tensor(randn(1, c->w, 3)), int_list(2, st), int_list(2, pad), int_list(2, dil),
                     value_int(c->groups)};
    static const char *const names[] = {"input", "weight", "bias", "stride", "padding", "dilation", "groups"};
    check_kernel(c->what, "aten.conv2d.default", 7, names, vals);
    for (int i = 0; i < 7; i++)
        value_clear(&vals[i]);
}
END_TEST

typedef struct MmCase {
    const char *what;
    int64_t m, k, n;
} MmCase;

static const MmCase MMS[] = {
    {"tall (blocks of rows)", 700, 300, 200},
    {"wide (blocks of columns)", 40, 300, 2000},
    {"a row (M = 1)", 1, 3000, 5000},
    {"a column (N = 1)", 5000, 3000, 1},
};

START_TEST(test_mm_same_for_any_thread_count)
{
    const MmCase *c = &MMS[_i];
    int64_t as[2] = {c->m, c->k}, bs[2] = {c->k, c->n};
    Value vals[2] = {value_tensor(randn(2, as, 4)), value_tensor(randn(2, bs, 5))};
    static const char *const names[] = {"self", "mat2"};
    check_kernel(c->what, "aten.mm.default", 2, names, vals);
    for (int i = 0; i < 2; i++)
        value_clear(&vals[i]);
}
END_TEST

START_TEST(test_linear_same_for_any_thread_count)
{
    /* the weight is read transposed in place (CblasTrans), cut by columns */
    int64_t xs[2] = {3, 768}, ws[2] = {3072, 768}, bs[1] = {3072};
    Value vals[3] = {value_tensor(randn(2, xs, 6)), value_tensor(randn(2, ws, 7)), value_tensor(randn(1, bs, 8))};
    static const char *const names[] = {"input", "weight", "bias"};
    check_kernel("linear", "aten.linear.default", 3, names, vals);
    for (int i = 0; i < 3; i++)
        value_clear(&vals[i]);
}
END_TEST

START_TEST(test_bmm_same_for_any_thread_count)
{
    /* small products, several to a chunk of the pool */
    int64_t as[3] = {300, 32, 48}, bs[3] = {300, 48, 40};
    Value vals[2] = {value_tensor(randn(3, as, 9)), value_tensor(randn(3, bs, 10))};
    static const char *const names[] = {"self", "mat2"};
    check_kernel("bmm", "aten.bmm.default", 2, names, vals);
    for (int i = 0; i < 2; i++)
        value_clear(&vals[i]);
}
END_TEST

/* ---- the command line ------------------------------------------------------------ */

/* The whole contents of a file (new string) and its size in *len. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    rewind(f);
    char *buf = ep_xmalloc(*len + 1);
    ck_assert_int_eq(fread(buf, 1, *len, f), *len);
    fclose(f);
    return buf;
}

START_TEST(test_cli_threads_same_values)
{
    const char *model = EXAMPLES[_i].path, *in = EXAMPLES[_i].refdir;
    char *d1 = test_tmpdir(), *d2 = test_tmpdir();
    RunResult one = test_run_binary(
        (const char *[]){"run", model, "--inputs", in, "--threads", "1", "--outputs", d1, NULL}, NULL, NULL);
    RunResult two =
        test_run_binary((const char *[]){"run", "--threads=2", model, "--inputs", in, "--outputs", d2, NULL}, NULL, NULL);
    ck_assert_msg(one.code == 0 && two.code == 0, "%s: exit %d / %d: %s%s", model, one.code, two.code, one.err,
                  two.err);
    ck_assert_msg(strcmp(one.out, two.out) == 0, "%s: --threads 1 printed\n%s\n--threads 2 printed\n%s", model,
                  one.out, two.out);
    /* and the values themselves, not only their summary */
    char p1[600], p2[600];
    snprintf(p1, sizeof p1, "%s/out0.npy", d1);
    snprintf(p2, sizeof p2, "%s/out0.npy", d2);
    size_t n1, n2;
    char *b1 = slurp(p1, &n1), *b2 = slurp(p2, &n2);
    ck_assert_msg(n1 == n2 && memcmp(b1, b2, n1) == 0, "%s: out0.npy differs between --threads 1 and 2", model);
    free(b1);
    free(b2);
    free(d1);
    free(d2);
    run_result_free(&one);
    run_result_free(&two);
}
END_TEST

START_TEST(test_cli_bad_thread_count)
{
    static const char *const BAD[] = {"0", "-1", "abc", "2x", ""};
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        RunResult r = test_run_binary((const char *[]){"info", "examples/mlp.pt2", "--threads", BAD[i], NULL}, NULL,
                                      NULL);
        ck_assert_msg(r.code == 1, "--threads '%s': exit %d", BAD[i], r.code);
        ck_assert_msg(strstr(r.err, "--threads") && strstr(r.err, "expected a number of threads") &&
                          strchr(r.err, '\n') == r.err + strlen(r.err) - 1,
                      "--threads '%s': one message naming the option, got: %s", BAD[i], r.err);
        ck_assert_str_eq(r.out, "");
        run_result_free(&r);
    }
    RunResult r = test_run_binary((const char *[]){"info", "examples/mlp.pt2", "--threads", NULL}, NULL, NULL);
    ck_assert_msg(r.code == 1 && strstr(r.err, "--threads"), "a missing value: exit %d: %s", r.code, r.err);
    run_result_free(&r);
}
END_TEST

Suite *suite_threads(void)
{
    Suite *s = suite_create("threads");
    TCase *tc = tcase_create("threads");
    tcase_set_timeout(tc, 300);
    int nex = (int)(sizeof EXAMPLES / sizeof EXAMPLES[0]);
    tcase_add_loop_test(tc, test_examples_same_for_any_thread_count, 0, nex);
    if (test_corpus_dir()) {
        nstems = test_corpus_archives(&stems);
        tcase_add_loop_test(tc, test_corpus_same_for_any_thread_count, 0, nstems);
    } else {
        tcase_add_test(tc, test_corpus_absent);
    }
    tcase_add_loop_test(tc, test_conv_same_for_any_thread_count, 0, (int)(sizeof CONVS / sizeof CONVS[0]));
    tcase_add_loop_test(tc, test_mm_same_for_any_thread_count, 0, (int)(sizeof MMS / sizeof MMS[0]));
    tcase_add_test(tc, test_linear_same_for_any_thread_count);
    tcase_add_test(tc, test_bmm_same_for_any_thread_count);
    tcase_add_loop_test(tc, test_cli_threads_same_values, 0, nex);
    tcase_add_test(tc, test_cli_bad_thread_count);
    suite_add_tcase(s, tc);
    return s;
}
