/*
** test_reduce_dtypes.c -- the fast paths of the reduce family beyond
** float32 (interp/ops/reduce_fast.c): sum / mean of float16 / bfloat16
** and of the integer types, amax / amin of float16 / bfloat16, argmax /
** argmin / max.dim of float32 rows, layer norm of bfloat16, logsumexp and
** group norm of float32, each against the plain reference loops
** (KernelConfig.use_blas false) and with the same bits for 1, 2 and 4
** threads; the vector float16 / bfloat16 widening against dtype.c's, over
** every code.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "interp/ops.h"
#include "interp/ops/reduce_fast.h"
#include "interp/parallel.h"
#include "oprun.h"
#include "testutil.h"

/* Values with a seed: floats uniform in [-3, 3) (halves rounded from
** them), integers spread over the type (int64 near its ends, so sums
** wrap); every 97th value NaN when nans. */
static Tensor *filled(DType dt, int ndim, const int64_t *sizes, uint64_t seed, bool nans)
{
    EpError err;
    DType ft = dtype_is_float(dt) ? DT_F32 : dt;
    Tensor *t = tensor_empty(ft, ndim, sizes, &err);
    uint64_t s = seed * 2654435761u + 1;
    for (int64_t i = 0; i < tensor_numel(t); i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        if (ft == DT_F32) {
            float v = (float)((double)(s >> 11) / 9007199254740992.0 * 6.0 - 3.0);
            ((float *)tensor_data(t))[i] = nans && i % 97 == 13 ? NAN : v;
        } else if (ft == DT_I64) {
            ((int64_t *)tensor_data(t))[i] = (int64_t)s;
        } else {
            dtype_store_i64(ft, (char *)tensor_data(t) + i * dtype_size(ft), (int64_t)(s >> 7));
        }
    }
    if (ft == dt)
        return t;
    Tensor *h = tensor_to_dtype(t, dt, &err);
    tensor_unref(t);
    return h;
}

/* Fast against reference (the same bits when rtol < 0, else within rtol of
** the result plus atol), and the fast bits the same for 1, 2 and 4 threads. */
static void check_op(const char *what, const char *target, int n, const Value *vals, int k, double rtol,
                     double atol)
{
    static const int THREADS[] = {1, 2, 4};
    Tensor *ref = oprun(target, n, vals, false, k);
    Tensor *fast = oprun_threads(what, target, n, vals, k, THREADS, 3);
    char msg[512];
    if (rtol < 0)
        ck_assert_msg(tensors_same_bits(fast, ref), "%s: bits differ from the reference", what);
    else
        ck_assert_msg(tensors_close(fast, ref, rtol, atol, msg, sizeof msg), "%s: %s", what, msg);
    tensor_unref(fast);
    tensor_unref(ref);
}

/* target's output k on the fast path (on vals) is, bit for bit and in
** dtype to, the float32 path's (the same op on v32) converted to to. */
static void check_float32_rounded(const char *what, const char *target, int n, const Value *vals, const Value *v32,
                                  int k, DType to)
{
    EpError err = {0};
    Tensor *h = oprun(target, n, vals, true, k);
    Tensor *f = oprun(target, n, v32, true, k);
    Tensor *fh = tensor_to_dtype(f, to, &err);
    ck_assert_msg(fh != NULL && tensors_same_bits(h, fh), "%s: not the float32 path rounded to %s", what,
                  dtype_c10_name(to));
    tensor_unref(fh);
    tensor_unref(f);
    tensor_unref(h);
}

typedef struct Shape {
    int ndim;
    int64_t sizes[4];
} Shape;

static const Shape SHAPES[] = {
    {1, {7}},          {1, {1}},          {2, {1031, 17}},   {2, {17, 1031}},  {3, {3, 1, 5}},
    {4, {2, 3, 4, 5}}, {2, {1, 300001}},  {2, {513, 2000}},  {3, {5, 1100, 3}}, {3, {4, 257, 260}},
};
#define NSHAPES (sizeof SHAPES / sizeof *SHAPES)

START_TEST(test_widen_every_code)
{
    uint16_t codes[65536];
    float got[65536];
    for (int i = 0; i < 65536; i++)
        codes[i] = (uint16_t)i;
    for (int bf = 0; bf < 2; bf++) {
        reduce_fast_widen_half(codes, bf ? DT_BF16 : DT_F16, 65536, got);
        for (int i = 0; i < 65536; i++) {
            float want = bf ? bf16_to_f32(codes[i]) : f16_to_f32(codes[i]);
            ck_assert_msg(memcmp(&got[i], &want, 4) == 0, "%s code 0x%04x: %a, want %a", bf ? "bf16" : "f16", i,
                          got[i], want);
        }
    }
}
END_TEST

/* dtype.c's vector narrowing gives the element functions' bits: a sweep
** of 2^20 float32 patterns 4099 apart (every exponent, both signs, NaN
** payloads), the halfway cases around the float16 normal and subnormal
** grids and the overflow bound, and hand-checked values. */
START_TEST(test_narrow_sweep)
{
    enum { N = 1 << 20 };
    float *x = malloc(N * sizeof *x);
    uint16_t *h = malloc(N * sizeof *h), *b = malloc(N * sizeof *b), *hp = malloc(N * sizeof *hp);
    ck_assert(x && h && b && hp);
    for (uint32_t i = 0; i < N; i++) {
        uint32_t u = i * 4099u;
        if (i < 4096) /* ties and their neighbours: 0x1000 (f16 normal), 0x8000 (bf16) */
            u = ((i & 0xff) << 23) + ((i >> 8) & 1 ? 0x8000u : 0x1000u) + ((i >> 9) & 3) - 1 +
                ((i >> 11) & 1 ? 0x80000000u : 0);
        memcpy(&x[i], &u, 4);
    }
    const float hand[] = {65519.99f, 65520.0f, 0x1p-25f, 0x1.8p-24f, 0x1p-24f, 0x1.ffcp-15f, -0.0f, INFINITY};
    const uint16_t hand_f16[] = {0x7bff, 0x7c00, 0x0000, 0x0002, 0x0001, 0x0400, 0x8000, 0x7c00};
    for (int k = 0; k < 8; k++)
        x[4096 + k] = hand[k];
    f32_to_f16_n(h, x, N);
    f32_to_f16_n_portable(hp, x, N);
    f32_to_bf16_n(b, x, N);
    for (uint32_t i = 0; i < N; i++) {
        ck_assert_msg(h[i] == f32_to_f16(x[i]), "f16 of %a: 0x%04x, want 0x%04x", x[i], h[i], f32_to_f16(x[i]));
        ck_assert_msg(hp[i] == h[i], "f16 of %a without F16C: 0x%04x, want 0x%04x", x[i], hp[i], h[i]);
        ck_assert_msg(b[i] == f32_to_bf16(x[i]), "bf16 of %a: 0x%04x, want 0x%04x", x[i], b[i], f32_to_bf16(x[i]));
    }
    for (int k = 0; k < 8; k++)
        ck_assert_msg(h[4096 + k] == hand_f16[k], "f16 of %a: 0x%04x, want 0x%04x", hand[k], h[4096 + k], hand_f16[k]);
    free(x);
    free(h);
    free(hp);
    free(b);
}
END_TEST

/* float16 / bfloat16 sums and means: within a rounding of the result
** (the reference adds in double, the fast path in float lanes), and the
** bits of the fast float32 sum of the same values rounded once. */
START_TEST(test_half_sums)
{
    const DType dts[2] = {DT_F16, DT_BF16};
    for (size_t s = 0; s < NSHAPES; s++)
        for (int d = 0; d < 2; d++) {
            const Shape *sh = &SHAPES[s];
            Tensor *x = filled(dts[d], sh->ndim, sh->sizes, s + 3, false);
            EpError err;
            Tensor *x32 = tensor_to_dtype(x, DT_F32, &err);
            double rtol = dts[d] == DT_F16 ? 2e-3 : 1.6e-2;
            char what[128];
            for (int dim = -1; dim < sh->ndim; dim++) {
                int64_t dims[1] = {dim};
                Value vals[3] = {value_tensor(x), dim < 0 ? value_none() : value_int_list(1, dims),
                                 value_bool(false)};
                Value v32[3] = {value_tensor(x32), dim < 0 ? value_none() : value_int_list(1, dims),
                                value_bool(false)};
                snprintf(what, sizeof what, "%s shape %zu dim %d", dtype_c10_name(dts[d]), s, dim);
                check_op(what, "aten.sum.dim_IntList", 3, vals, 0, rtol, 1e-3);
                check_op(what, "aten.mean.dim", 3, vals, 0, rtol, 1e-3);
                check_float32_rounded(what, "aten.sum.dim_IntList", 3, vals, v32, 0, dts[d]);
                value_clear(&vals[1]);
                value_clear(&v32[1]);
            }
            tensor_unref(x32);
            tensor_unref(x);
        }
}
END_TEST

/* Integer sums wrap in int64: the reference's bits in any order, for the
** default int64 result and for dtype=int32 too. */
START_TEST(test_int_sums_same_bits)
{
    const DType dts[6] = {DT_BOOL, DT_U8, DT_I8, DT_I16, DT_I32, DT_I64};
    for (size_t s = 0; s < NSHAPES; s++)
        for (int d = 0; d < 6; d++) {
            const Shape *sh = &SHAPES[s];
            Tensor *x = filled(dts[d], sh->ndim, sh->sizes, s + 5, false);
            char what[128];
            for (int dim = -1; dim < sh->ndim; dim++) {
                int64_t dims[1] = {dim};
                for (int to32 = 0; to32 < 2; to32++) {
                    Value vals[4] = {value_tensor(x), dim < 0 ? value_none() : value_int_list(1, dims),
                                     value_bool(dim == 0), to32 ? (Value){.kind = V_DTYPE, .i = DT_I32} : value_none()};
                    snprintf(what, sizeof what, "%s shape %zu dim %d to32 %d", dtype_c10_name(dts[d]), s, dim, to32);
                    check_op(what, "aten.sum.dim_IntList", 4, vals, 0, -1, 0);
                    value_clear(&vals[1]);
                }
            }
            Value all[1] = {value_tensor(x)};
            snprintf(what, sizeof what, "%s shape %zu sum.default", dtype_c10_name(dts[d]), s);
            check_op(what, "aten.sum.default", 1, all, 0, -1, 0);
            tensor_unref(x);
        }
}
END_TEST

/* amax / amin of halves, and argmax / argmin / max.dim / min.dim of float32
** rows: the reference's bits, NaNs and the sign of zero extremes included. */
START_TEST(test_extremes_same_bits)
{
    for (size_t s = 0; s < NSHAPES; s++)
        for (int variant = 0; variant < 3; variant++) {
            const Shape *sh = &SHAPES[s];
            Tensor *x = filled(DT_F32, sh->ndim, sh->sizes, s + 71, variant == 2);
            float *p = tensor_data(x);
            if (variant == 1) /* all values <= 0, zeros of both signs: a zero is the max */
                for (int64_t i = 0; i < tensor_numel(x); i++)
                    p[i] = (i * 7) % 5 == 0 ? (i % 2 ? -0.0f : 0.0f) : -fabsf(p[i]);
            EpError err;
            Tensor *xs[3] = {tensor_ref(x), tensor_to_dtype(x, DT_F16, &err), tensor_to_dtype(x, DT_BF16, &err)};
            char what[128];
            for (int dim = -1; dim < sh->ndim; dim++) {
                int64_t dims[1] = {dim};
                for (int k = 0; k < 3; k++) {
                    Value vals[3] = {value_tensor(xs[k]), value_int_list(dim < 0 ? 0 : 1, dims), value_bool(false)};
                    snprintf(what, sizeof what, "%s shape %zu variant %d dim %d", dtype_c10_name(xs[k]->dtype), s,
                             variant, dim);
                    check_op(what, "aten.amax.default", 3, vals, 0, -1, 0);
                    check_op(what, "aten.amin.default", 3, vals, 0, -1, 0);
                    value_clear(&vals[1]);
                }
                Value av[3] = {value_tensor(x), dim < 0 ? value_none() : value_int(dim), value_bool(false)};
                snprintf(what, sizeof what, "arg shape %zu variant %d dim %d", s, variant, dim);
                check_op(what, "aten.argmax.default", 3, av, 0, -1, 0);
                check_op(what, "aten.argmin.default", 3, av, 0, -1, 0);
                if (dim >= 0) {
                    check_op(what, "aten.max.dim", 3, av, 0, -1, 0);
                    check_op(what, "aten.max.dim", 3, av, 1, -1, 0);
                    check_op(what, "aten.min.dim", 3, av, 0, -1, 0);
                    check_op(what, "aten.min.dim", 3, av, 1, -1, 0);
                }
            }
            for (int k = 0; k < 3; k++)
                tensor_unref(xs[k]);
            tensor_unref(x);
        }
}
END_TEST

/* bfloat16 layer norm: within a bfloat16 rounding of the reference (which
** computes in double and rounds once), the bits of the fast float32 path on
** the widened values rounded to bfloat16, with bfloat16 or float32
** parameters or none. */
START_TEST(test_layer_norm_bf16)
{
    const Shape shapes[4] = {{2, {64, 768}}, {3, {3, 5, 7}}, {2, {9, 8192}}, {2, {1, 1}}};
    for (int s = 0; s < 4; s++)
        for (int params = 0; params < 3; params++) {
            const Shape *sh = &shapes[s];
            int64_t n = sh->sizes[sh->ndim - 1];
            EpError err;
            Tensor *x = filled(DT_BF16, sh->ndim, sh->sizes, s + 11, false);
            Tensor *w32 = filled(DT_F32, 1, &n, s + 12, false), *b32 = filled(DT_F32, 1, &n, s + 13, false);
            Tensor *w = params == 1 ? tensor_to_dtype(w32, DT_BF16, &err) : tensor_ref(w32);
            Tensor *b = params == 1 ? tensor_to_dtype(b32, DT_BF16, &err) : tensor_ref(b32);
            Tensor *x32 = tensor_to_dtype(x, DT_F32, &err);
            Tensor *wc = tensor_to_dtype(w, DT_F32, &err), *bc = tensor_to_dtype(b, DT_F32, &err);
            for (int k = 0; k < 3; k++) {
                Value vals[5] = {value_tensor(x), value_int_list(1, &n), params ? value_tensor(w) : value_none(),
                                 params ? value_tensor(b) : value_none(), value_float(1e-5)};
                Value v32[5] = {value_tensor(x32), value_int_list(1, &n), params ? value_tensor(wc) : value_none(),
                                params ? value_tensor(bc) : value_none(), value_float(1e-5)};
                char what[128];
                snprintf(what, sizeof what, "layer_norm bf16 shape %d params %d output %d", s, params, k);
                check_op(what, "aten.native_layer_norm.default", 5, vals, k, 1.6e-2, 1.6e-2);
                /* output k's dtype: bfloat16, but float32 for the mean and rstd with float32 parameters */
                check_float32_rounded(what, "aten.native_layer_norm.default", 5, vals, v32, k,
                                      k == 0 || params != 2 ? DT_BF16 : DT_F32);
                value_clear(&vals[1]);
                value_clear(&v32[1]);
            }
            tensor_unref(wc);
            tensor_unref(bc);
            tensor_unref(x32);
            tensor_unref(w);
            tensor_unref(b);
            tensor_unref(w32);
            tensor_unref(b32);
            tensor_unref(x);
        }
}
END_TEST

/* float32 logsumexp along the last dims: within a few float roundings of
** the reference (its exp and sum in double), rows with NaN, +inf and all
** -inf included, the same bits for any thread count. */
START_TEST(test_logsumexp)
{
    for (size_t s = 0; s < NSHAPES; s++)
        for (int variant = 0; variant < 2; variant++) {
            const Shape *sh = &SHAPES[s];
            Tensor *x = filled(DT_F32, sh->ndim, sh->sizes, s + 91, false);
            float *p = tensor_data(x);
            int64_t n = tensor_numel(x), last = sh->sizes[sh->ndim - 1];
            if (variant == 1) /* row 0: all -inf; row 1: a +inf; row 2: a NaN; values scaled up */
                for (int64_t i = 0; i < n; i++)
                    p[i] = i < last ? -INFINITY
                           : i == last + last / 2 ? INFINITY
                           : i == 2 * last + 1 ? NAN
                                               : p[i] * 30;
            for (int dim = -1; dim < 2 && dim < sh->ndim; dim++) {
                int64_t dims[2] = {sh->ndim - 1, sh->ndim - 2};
                int nd = dim < 0 && sh->ndim > 1 ? 2 : 1; /* dim -1: the last two dims at once */
                if (dim >= 0)
                    dims[0] = sh->ndim - 1, nd = 1;
                Value vals[3] = {value_tensor(x), value_int_list(nd, dims), value_bool(dim == 0)};
                char what[128];
                snprintf(what, sizeof what, "logsumexp shape %zu variant %d dims %d keep %d", s, variant, nd,
                         dim == 0);
                check_op(what, "aten.logsumexp.default", 3, vals, 0, 2e-6, 1e-6);
                value_clear(&vals[1]);
            }
            tensor_unref(x);
        }
}
END_TEST

/* float32 group norm: within a few float roundings of the reference
** (which runs PyTorch's formula in double), any thread count the same
** bits. */
START_TEST(test_group_norm)
{
    static const struct {
        int64_t N, C, HxW, G;
    } cases[] = {{2, 6, 35, 3}, {1, 4, 1, 2}, {3, 8, 1089, 4}, {2, 32, 64, 32}, {1, 3, 70001, 1}};
    for (size_t s = 0; s < sizeof cases / sizeof *cases; s++)
        for (int affine = 0; affine < 2; affine++) {
            int64_t sz[3] = {cases[s].N, cases[s].C, cases[s].HxW};
            Tensor *x = filled(DT_F32, 3, sz, s + 51, false);
            Tensor *w = filled(DT_F32, 1, &sz[1], s + 52, false), *b = filled(DT_F32, 1, &sz[1], s + 53, false);
            for (int k = 0; k < 3; k++) {
                Value vals[8] = {value_tensor(x), affine ? value_tensor(w) : value_none(),
                                 affine ? value_tensor(b) : value_none(), value_int(cases[s].N), value_int(cases[s].C),
                                 value_int(cases[s].HxW), value_int(cases[s].G), value_float(1e-5)};
                char what[128];
                snprintf(what, sizeof what, "native_group_norm case %zu affine %d output %d", s, affine, k);
                check_op(what, "aten.native_group_norm.default", 8, vals, k, 2e-6, 1e-6);
            }
            tensor_unref(w);
            tensor_unref(b);
            tensor_unref(x);
        }
}
END_TEST

Suite *suite_reduce_dtypes(void)
{
    Suite *s = suite_create("reduce_dtypes");
    TCase *tc = tcase_create("fast-vs-reference");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_widen_every_code);
    tcase_add_test(tc, test_narrow_sweep);
    tcase_add_test(tc, test_half_sums);
    tcase_add_test(tc, test_int_sums_same_bits);
    tcase_add_test(tc, test_extremes_same_bits);
    tcase_add_test(tc, test_layer_norm_bf16);
    tcase_add_test(tc, test_logsumexp);
    tcase_add_test(tc, test_group_norm);
    suite_add_tcase(s, tc);
    return s;
}
