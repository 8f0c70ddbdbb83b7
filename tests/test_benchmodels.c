/*
** test_benchmodels.c -- the models bench/profile.c measures
** (examples/gen/benchmodels.h): they are written and read back as real
** archives, every node runs, they have the node counts the header states,
** every node says where it comes from (module scope and source line, for
** the profiler's views), and the outputs obey properties of the
** architecture -- which also shows the weights keep activations in a sane
** range over hundreds of nodes.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "examples/gen/benchmodels.h"
#include "interp/interp.h"
#include "interp/srcinfo.h"
#include "tests/testutil.h"

typedef struct Built {
    char path[64];
    Model *m;
    Interp *ip;
} Built;

/* Write pb (freed), open it and run it on input (a reference taken). */
static void build_and_run(ProgBuilder *pb, Tensor *input, Built *b)
{
    EpError err = {0};
    snprintf(b->path, sizeof b->path, "/tmp/epdbg-benchmodels-XXXXXX");
    int fd = mkstemp(b->path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    PbWriteOptions opt = {.era = PB_ERA_2_11};
    ck_assert_msg(pb_write(pb, b->path, &opt, &err) == EP_OK, "%s", err.msg);
    pb_free(pb);
    ck_assert_msg(model_open(b->path, NULL, &b->m, &err) == EP_OK, "%s", err.msg);
    b->ip = interp_new(b->m, NULL, &err);
    ck_assert_msg(b->ip, "%s", err.msg);
    ck_assert_msg(interp_check_supported(b->ip, &err) == EP_OK, "%s", err.msg);
    Value in = value_tensor(input);
    ck_assert_msg(interp_bind(b->ip, &in, 1, &err) == EP_OK, "%s", err.msg);
    ck_assert_msg(interp_run(b->ip, &err) == EP_OK, "%s", err.msg);
    value_clear(&in);
}

static void built_free(Built *b)
{
    interp_free(b->ip);
    model_free(b->m);
    unlink(b->path);
}

/* Every node has a module scope and a user source frame in bench/models/. */
static void check_provenance(const Interp *ip)
{
    for (int i = 0; i < interp_num_nodes(ip); i++) {
        const Node *n = interp_node(ip, i);
        ck_assert_msg(n->meta.nn_module_stack && n->meta.stack_trace, "node %s has no metadata", n->name);
        SourceFrame *fr = NULL;
        int nfr = source_frames_parse(n->meta.stack_trace, &fr);
        int u = source_user_frame(fr, nfr);
        ck_assert_msg(u >= 0 && strncmp(fr[u].file, "bench/models/", 13) == 0 && fr[u].line > 0,
                      "node %s: no user frame", n->name);
        source_frames_free(fr, nfr);
    }
}

/* The single output, as float32 of the expected shape; every value finite
** with magnitude below 1e3 and some above 1e-3 (neither blown up nor sunk
** towards denormals, either of which would make timings about that). */
static const float *output_f32(const Interp *ip, int ndim, const int64_t *sizes, int64_t *numel)
{
    const Value *v = interp_user_output(ip, 0);
    ck_assert_ptr_nonnull(v);
    ck_assert_int_eq(v->kind, V_TENSOR);
    const Tensor *t = v->t;
    ck_assert_int_eq(t->dtype, DT_F32);
    ck_assert_int_eq(t->ndim, ndim);
    *numel = 1;
    for (int d = 0; d < ndim; d++) {
        ck_assert_int_eq(t->sizes[d], sizes[d]);
        *numel *= sizes[d];
    }
    ck_assert(tensor_is_contiguous(t));
    const float *x = tensor_data(t);
    bool some = false;
    for (int64_t k = 0; k < *numel; k++) {
        ck_assert_msg(isfinite(x[k]) && fabsf(x[k]) < 1e3f, "output[%lld] = %g", (long long)k, x[k]);
        some |= fabsf(x[k]) > 1e-3f;
    }
    ck_assert(some);
    return x;
}

START_TEST(test_cnn)
{
    PbRng r = {1};
    Tensor *x;
    ProgBuilder *pb = bench_cnn_model(&r, &x);
    Built b;
    build_and_run(pb, x, &b);
    ck_assert_int_eq(interp_num_nodes(b.ip), 3 + 21 * BENCH_CNN_BLOCKS + 10);
    check_provenance(b.ip);
    int64_t n, sizes[2] = {1, 10};
    const float *y = output_f32(b.ip, 2, sizes, &n);
    /* a linear head of distinct rows: not all logits equal */
    bool differ = false;
    for (int k = 1; k < n; k++)
        differ |= y[k] != y[0];
    ck_assert(differ);
    built_free(&b);
}
END_TEST

/* The batch variants bench/models.c runs: the same programs on batch 3,
** whose three rows of output differ (distinct inputs). */
START_TEST(test_batch_variants)
{
    for (int m = 0; m < 2; m++) {
        PbRng r = {7};
        Tensor *x;
        ProgBuilder *pb = m == 0 ? bench_cnn_model_batch(3, &r, &x) : bench_transformer_model_batch(3, &r, &x);
        Built b;
        build_and_run(pb, x, &b);
        int64_t n, cnn[2] = {3, 10}, tf[3] = {3, 64, 64};
        const float *y = m == 0 ? output_f32(b.ip, 2, cnn, &n) : output_f32(b.ip, 3, tf, &n);
        ck_assert(memcmp(y, y + n / 3, (size_t)(n / 3) * sizeof *y) != 0);
        built_free(&b);
    }
}
END_TEST

START_TEST(test_transformer)
{
    PbRng r = {2};
    Tensor *x;
    ProgBuilder *pb = bench_transformer_model(&r, &x);
    Built b;
    build_and_run(pb, x, &b);
    ck_assert_int_eq(interp_num_nodes(b.ip), 24 * BENCH_TF_LAYERS + 1);
    check_provenance(b.ip);
    int64_t n, sizes[3] = {2, 64, 64};
    const float *y = output_f32(b.ip, 3, sizes, &n);
    /* the last node is layer_norm: y = xhat * w + b with every row of
    ** xhat of mean 0 and (population) variance 1 / (1 + eps / var) ~ 1 */
    const Tensor *w = model_weight(b.m, "norm.weight"), *bias = model_weight(b.m, "norm.bias");
    ck_assert(w && bias && w->dtype == DT_F32 && bias->dtype == DT_F32);
    const float *wv = tensor_data(w), *bv = tensor_data(bias);
    for (int64_t row = 0; row < n / 64; row++) {
        double s = 0, s2 = 0;
        for (int c = 0; c < 64; c++) {
            double xh = (y[row * 64 + c] - bv[c]) / wv[c];
            s += xh;
            s2 += xh * xh;
        }
        ck_assert_double_eq_tol(s / 64, 0, 1e-4);
        ck_assert_double_eq_tol(s2 / 64, 1, 1e-3);
    }
    built_free(&b);
}
END_TEST

START_TEST(test_gru)
{
    PbRng r = {3};
    Tensor *x;
    ProgBuilder *pb = bench_gru_model(&r, &x);
    Built b;
    build_and_run(pb, x, &b);
    ck_assert_int_eq(interp_num_nodes(b.ip), 2 + 15 * BENCH_GRU_STEPS);
    check_provenance(b.ip);
    int64_t n, sizes[2] = {16, 256};
    const float *h = output_f32(b.ip, 2, sizes, &n);
    /* h' = (1 - z) n + z h with n = tanh(...) and h0 = 0: a convex
    ** combination of values in (-1, 1) stays there */
    for (int64_t k = 0; k < n; k++)
        ck_assert_msg(fabsf(h[k]) < 1, "h[%lld] = %g", (long long)k, h[k]);
    built_free(&b);
}
END_TEST

Suite *suite_benchmodels(void)
{
    Suite *s = suite_create("benchmodels");
    TCase *tc = tcase_create("models");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_cnn);
    tcase_add_test(tc, test_transformer);
    tcase_add_test(tc, test_batch_variants);
    tcase_add_test(tc, test_gru);
    suite_add_tcase(s, tc);
    return s;
}
