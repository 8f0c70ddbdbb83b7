/*
** test_reduce_fast.c -- the fast paths of sum / mean, amax / amin, var /
** std, softmax, layer norm and batch norm in evaluation
** (interp/ops/reduce_fast.c), of cumsum / cumprod (reduce_scan.c) and of
** float32 max pooling (interp/ops/nn_pool.c) against the plain reference
** loops, on many shapes, and their bits for 1, 2 and 4 threads; the float
** exp they use against libm's.
*/
#include <math.h>
#include <string.h>

#include "interp/ops.h"
#include "interp/ops/reduce_fast.h"
#include "interp/parallel.h"
#include "oprun.h"
#include "testutil.h"

/* Values with a seed: uniform in [-3, 3), a few of them extreme. */
static Tensor *filled(DType dt, int ndim, const int64_t *sizes, uint64_t seed)
{
    EpError err;
    Tensor *t = tensor_empty(dt, ndim, sizes, &err);
    uint64_t s = seed * 2654435761u + 1;
    for (int64_t i = 0; i < tensor_numel(t); i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        double v = (double)(s >> 11) / 9007199254740992.0 * 6.0 - 3.0;
        if (dt == DT_F32)
            ((float *)tensor_data(t))[i] = (float)v;
        else
            ((double *)tensor_data(t))[i] = v;
    }
    return t;
}

/* float32 sums add in float lanes (PyTorch's accuracy class) where the
** reference adds in double: their difference is a few float roundings of
** the summed magnitudes, not of the result. */
static double sum_atol = 1e-6;

/* Fast against reference within a few roundings, and the fast bits the
** same for 1, 2 and 4 threads. */
static void check_op(const char *what, const char *target, int n, const Value *vals, int k)
{
    static const int THREADS[] = {1, 2, 4};
    Tensor *ref = oprun(target, n, vals, false, k);
    Tensor *fast = oprun_threads(what, target, n, vals, k, THREADS, 3);
    char msg[512];
    double rtol = ref->dtype == DT_F64 ? 1e-10 : 2e-6, atol = ref->dtype == DT_F64 ? 1e-12 : sum_atol;
    ck_assert_msg(tensors_close(fast, ref, rtol, atol, msg, sizeof msg), "%s: %s", what, msg);
    tensor_unref(fast);
    tensor_unref(ref);
}

typedef struct Shape {
    int ndim;
    int64_t sizes[4];
} Shape;

static const Shape SHAPES[] = {
    {1, {7}},          {1, {1}},           {0, {0}},          {2, {0, 3}},        {2, {1031, 17}},
    {2, {17, 1031}},   {3, {3, 1, 5}},     {4, {2, 3, 4, 5}}, {2, {1, 300001}},   {2, {3, 140000}},
    {2, {513, 2000}},  {3, {5, 1100, 3}},  {2, {5000, 37}},   {3, {4, 257, 260}},
};

/* A transposed (non-contiguous) view of t's values when it has two dims. */
static Tensor *transposed(Tensor *t)
{
    if (t->ndim < 2)
        return tensor_ref(t);
    EpError err;
    int64_t sz[4], st[4];
    for (int i = 0; i < t->ndim; i++) {
        sz[i] = t->sizes[i];
        st[i] = t->strides[i];
    }
    sz[0] = t->sizes[1], sz[1] = t->sizes[0];
    st[0] = t->strides[1], st[1] = t->strides[0];
    return tensor_as_strided(t, t->ndim, sz, st, t->offset, &err);
}

START_TEST(test_sums_match_reference)
{
    sum_atol = 1e-3; /* up to 300k values of [-3, 3]: 1e-9 of their magnitudes */
    for (size_t s = 0; s < sizeof SHAPES / sizeof *SHAPES; s++)
        for (int dt = 0; dt < 2; dt++)
            for (int view = 0; view < 2; view++) {
                const Shape *sh = &SHAPES[s];
                Tensor *base = filled(dt ? DT_F64 : DT_F32, sh->ndim, sh->sizes, s + 1);
                Tensor *x = view ? transposed(base) : tensor_ref(base);
                char what[128];
                snprintf(what, sizeof what, "sum.default shape %zu dtype %d view %d", s, dt, view);
                Value all[1] = {value_tensor(x)};
                check_op(what, "aten.sum.default", 1, all, 0);
                check_op(what, "aten.mean.default", 1, all, 0);
                /* each single dim (negative too), keepdim both ways, and a pair */
                for (int d = -sh->ndim; d < sh->ndim; d++)
                    for (int keep = 0; keep < 2; keep++) {
                        int64_t dims[1] = {d};
                        Value vals[3] = {value_tensor(x), value_int_list(1, dims), value_bool(keep)};
                        snprintf(what, sizeof what, "sum shape %zu dtype %d view %d dim %d keep %d", s, dt, view, d,
                                 keep);
                        check_op(what, "aten.sum.dim_IntList", 3, vals, 0);
                        check_op(what, "aten.mean.dim", 3, vals, 0);
                        value_clear(&vals[1]);
                    }
                if (!view) /* var / std over the last dim and over everything */
                    for (int every = 0; every < 2; every++) {
                        int64_t dims[1] = {-1};
                        Value vals[4] = {value_tensor(x), every ? value_none() : value_int_list(1, dims), value_float(1),
                                         value_bool(false)};
                        snprintf(what, sizeof what, "var/std shape %zu dtype %d every dim %d", s, dt, every);
                        if (sh->ndim > 0 || every) {
                            sum_atol = 1e-6;
                            check_op(what, "aten.var.correction", 4, vals, 0);
                            check_op(what, "aten.std_mean.correction", 4, vals, 0);
                            check_op(what, "aten.std_mean.correction", 4, vals, 1);
                            sum_atol = 1e-3;
                        }
                        value_clear(&vals[1]);
                    }
                if (sh->ndim >= 3) {
                    int64_t pairs[3][2] = {{0, 1}, {1, 2}, {0, 2}}; /* {0, 2}: not adjacent, the reference */
                    for (int p = 0; p < 3; p++) {
                        Value vals[3] = {value_tensor(x), value_int_list(2, pairs[p]), value_bool(false)};
                        snprintf(what, sizeof what, "sum shape %zu dims pair %d", s, p);
                        check_op(what, "aten.sum.dim_IntList", 3, vals, 0);
                        value_clear(&vals[1]);
                    }
                }
                tensor_unref(x);
                tensor_unref(base);
            }
    sum_atol = 1e-6;
}
END_TEST

/* One long row summed in pool chunks gives the bits of the same row summed
** whole (rows of a batch are summed whole). */
START_TEST(test_chunked_row_same_bits)
{
    int64_t n = 300001, sz1[1] = {n}, sz4[2] = {4, n};
    Tensor *four = filled(DT_F32, 2, sz4, 7);
    EpError err;
    int64_t st[1] = {1};
    Tensor *row = tensor_as_strided(four, 1, sz1, st, four->offset, &err);
    Tensor *c = tensor_as_contiguous_dtype(row, DT_F32, &err);
    int64_t dl[1] = {-1};
    Value v1[1] = {value_tensor(c)}, v4[3] = {value_tensor(four), value_int_list(1, dl), value_bool(false)};
    Tensor *a = oprun("aten.sum.default", 1, v1, true, 0), *b = oprun("aten.sum.dim_IntList", 3, v4, true, 0);
    ck_assert(memcmp(tensor_data(a), tensor_data(b), sizeof(float)) == 0);
    value_clear(&v4[1]);
    tensor_unref(a);
    tensor_unref(b);
    tensor_unref(c);
    tensor_unref(row);
    tensor_unref(four);
}
END_TEST

START_TEST(test_softmax_matches_reference)
{
    for (size_t s = 0; s < sizeof SHAPES / sizeof *SHAPES; s++)
        for (int view = 0; view < 2; view++) {
            const Shape *sh = &SHAPES[s];
            if (sh->ndim == 0 || shape_numel(sh->ndim, sh->sizes) > 600000)
                continue;
            Tensor *base = filled(DT_F32, sh->ndim, sh->sizes, s + 11);
            float *p = tensor_data(base);
            /* rows with a NaN, +inf, -inf and all -inf somewhere */
            int64_t n = tensor_numel(base);
            if (n > 40) {
                p[3] = NAN;
                p[n / 2] = INFINITY;
                p[n / 3] = -INFINITY;
                p[n - 1] = 80.0f;
            }
            Tensor *x = view ? transposed(base) : tensor_ref(base);
            for (int d = -sh->ndim; d < sh->ndim; d++) {
                const char *ops[3] = {"aten._softmax.default", "aten._log_softmax.default", "aten._safe_softmax.default"};
                for (int o = 0; o < 3; o++) {
                    char what[128];
                    snprintf(what, sizeof what, "%s shape %zu view %d dim %d", ops[o], s, view, d);
                    Value vals[3] = {value_tensor(x), value_int(d), o == 2 ? value_none() : value_bool(false)};
                    check_op(what, ops[o], 3, vals, 0);
                }
            }
            tensor_unref(x);
            tensor_unref(base);
        }
}
END_TEST

START_TEST(test_layer_norm_matches_reference)
{
    static const Shape shapes[] = {{2, {5, 7}}, {2, {1, 1}}, {2, {3, 1031}}, {3, {20000, 1, 24}}, {3, {4, 3, 5}},
                                   {2, {2, 70000}}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (int affine = 0; affine < 2; affine++) {
            const Shape *sh = &shapes[s];
            Tensor *x = filled(DT_F32, sh->ndim, sh->sizes, s + 21);
            int nn = sh->ndim == 3 && s == 4 ? 2 : 1;
            const int64_t *ns = sh->sizes + sh->ndim - nn;
            Tensor *w = filled(DT_F32, nn, ns, s + 31), *b = filled(DT_F32, nn, ns, s + 41);
            for (int k = 0; k < 3; k++) {
                char what[128];
                snprintf(what, sizeof what, "native_layer_norm shape %zu affine %d output %d", s, affine, k);
                Value vals[5] = {value_tensor(x), value_int_list(nn, ns), affine ? value_tensor(w) : value_none(),
                                 affine ? value_tensor(b) : value_none(), value_float(1e-5)};
                check_op(what, "aten.native_layer_norm.default", 5, vals, k);
                value_clear(&vals[1]);
            }
            tensor_unref(w);
            tensor_unref(b);
            tensor_unref(x);
        }
}
END_TEST

START_TEST(test_max_pool_matches_reference)
{
    int64_t sz[4] = {3, 5, 33, 29};
    Tensor *x = filled(DT_F32, 4, sz, 51);
    float *p = tensor_data(x);
    p[100] = NAN;
    p[2000] = p[2001] = 2.5f; /* a tie: the first index wins */
    for (int dil = 1; dil <= 2; dil++)
        for (int ceil = 0; ceil < 2; ceil++) {
            int64_t k[2] = {3, 2}, st[2] = {2, 1}, pad[2] = {1, 1}, dl[2] = {dil, dil};
            for (int out = 0; out < 2; out++) {
                char what[128];
                snprintf(what, sizeof what, "max_pool2d_with_indices dil %d ceil %d output %d", dil, ceil, out);
                Value vals[6] = {value_tensor(x), value_int_list(2, k), value_int_list(2, st), value_int_list(2, pad), value_int_list(2, dl),
                                 value_bool(ceil)};
                check_op(what, "aten.max_pool2d_with_indices.default", 6, vals, out);
                for (int i = 1; i < 5; i++)
                    value_clear(&vals[i]);
            }
        }
    tensor_unref(x);
}
END_TEST

START_TEST(test_batch_norm_eval_matches_reference)
{
    static const Shape shapes[] = {{4, {2, 3, 5, 7}}, {2, {4, 6}}, {3, {3, 16, 1}}, {4, {8, 64, 14, 14}}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (int affine = 0; affine < 2; affine++) {
            const Shape *sh = &shapes[s];
            int64_t C[1] = {sh->sizes[1]};
            Tensor *x = filled(DT_F32, sh->ndim, sh->sizes, s + 61), *w = filled(DT_F32, 1, C, s + 62),
                   *b = filled(DT_F32, 1, C, s + 63), *rm = filled(DT_F32, 1, C, s + 64),
                   *rv = filled(DT_F32, 1, C, s + 65);
            float *v = tensor_data(rv);
            for (int64_t i = 0; i < C[0]; i++)
                v[i] = v[i] * v[i] + 0.1f; /* variances */
            char what[128];
            snprintf(what, sizeof what, "batch_norm eval shape %zu affine %d", s, affine);
            Value vals[8] = {value_tensor(x), affine ? value_tensor(w) : value_none(),
                             affine ? value_tensor(b) : value_none(), value_tensor(rm), value_tensor(rv),
                             value_bool(false), value_float(0.1), value_float(1e-5)};
            check_op(what, "aten.native_batch_norm.default", 8, vals, 0);
            Value legit[7] = {vals[0], vals[1], vals[2], vals[3], vals[4], vals[6], vals[7]};
            check_op(what, "aten._native_batch_norm_legit_no_training.default", 7, legit, 0);
            tensor_unref(x);
            tensor_unref(w);
            tensor_unref(b);
            tensor_unref(rm);
            tensor_unref(rv);
        }
}
END_TEST

/* amax / amin pick a value: the fast bits equal the reference's, NaNs and
** the sign of a zero extreme included. */
START_TEST(test_extremes_same_bits_as_reference)
{
    for (size_t s = 0; s < sizeof SHAPES / sizeof *SHAPES; s++) {
        const Shape *sh = &SHAPES[s];
        if (shape_numel(sh->ndim, sh->sizes) == 0)
            continue;
        for (int variant = 0; variant < 3; variant++) {
            Tensor *x = filled(DT_F32, sh->ndim, sh->sizes, s + 71);
            float *p = tensor_data(x);
            int64_t n = tensor_numel(x);
            for (int64_t i = 0; i < n; i++) {
                if (variant == 1) /* all values <= 0, zeros of both signs: a zero is the max */
                    p[i] = (i * 7) % 5 == 0 ? (i % 2 ? -0.0f : 0.0f) : -fabsf(p[i]);
                if (variant == 2 && i % 97 == 13)
                    p[i] = NAN;
            }
            for (int d = -sh->ndim - 1; d < sh->ndim; d++) {
                const char *ops[2] = {"aten.amax.default", "aten.amin.default"};
                for (int o = 0; o < 2; o++) {
                    int64_t dims[1] = {d};
                    Value vals[3] = {value_tensor(x), d < -sh->ndim ? value_int_list(0, dims) : value_int_list(1, dims),
                                     value_bool(false)};
                    Tensor *ref = oprun(ops[o], 3, vals, false, 0);
                    for (int threads = 1; threads <= 2; threads++) {
                        ep_set_threads(threads);
                        Tensor *fast = oprun(ops[o], 3, vals, true, 0);
                        ck_assert_msg(tensors_same_bits(fast, ref), "%s shape %zu variant %d dim %d threads %d: bits differ", ops[o], s, variant,
                                      d, threads);
                        tensor_unref(fast);
                    }
                    ep_set_threads(0);
                    tensor_unref(ref);
                    value_clear(&vals[1]);
                }
            }
            tensor_unref(x);
        }
    }
}
END_TEST

/* filled's values with a NaN or an infinity every 211 elements */
static Tensor *scan_input(DType dt, const Shape *sh, uint64_t seed)
{
    Tensor *x = filled(dt, sh->ndim, sh->sizes, seed);
    for (int64_t i = 13; i < tensor_numel(x); i += 211) {
        if (dt == DT_F32)
            ((float *)tensor_data(x))[i] = i % 2 ? NAN : INFINITY;
        else
            ((double *)tensor_data(x))[i] = i % 2 ? NAN : -INFINITY;
    }
    return x;
}

/* cumsum and cumprod of float32 and float64 along every dim, and cumsum_
** in place: the fast path's bits are the reference's (both keep the
** running value in double and round each output), at 1, 2 and 3 threads,
** NaN and infinities included. */
START_TEST(test_scans_same_bits_as_reference)
{
    static const Shape SCAN_SHAPES[] = {
        {1, {7}}, {2, {1031, 17}}, {2, {9, 300}}, {3, {5, 1100, 3}}, {3, {4, 257, 260}}, {2, {3, 1}}, {1, {1}},
    };
    static const DType DTS[] = {DT_F32, DT_F64};
    static const char *const OPS[] = {"aten.cumsum.default", "aten.cumprod.default", "aten.cumsum_.default"};
    for (size_t s = 0; s < sizeof SCAN_SHAPES / sizeof *SCAN_SHAPES; s++)
        for (int t = 0; t < 2; t++)
            for (int d = -SCAN_SHAPES[s].ndim; d < SCAN_SHAPES[s].ndim; d++)
                for (int o = 0; o < 3; o++) {
                    Tensor *x = scan_input(DTS[t], &SCAN_SHAPES[s], s + 5);
                    Value vals[2] = {value_tensor(x), value_int(d)};
                    /* the in-place form against the reference's cumsum */
                    Tensor *ref = oprun(OPS[o == 2 ? 0 : o], 2, vals, false, 0);
                    for (int threads = 1; threads <= 3; threads++) {
                        ep_set_threads(threads);
                        Tensor *in = o == 2 ? scan_input(DTS[t], &SCAN_SHAPES[s], s + 5) : tensor_ref(x);
                        Value args[2] = {value_tensor(in), value_int(d)};
                        Tensor *fast = oprun(OPS[o], 2, args, true, 0);
                        ck_assert_msg(tensors_same_bits(fast, ref), "%s %s shape %zu dim %d threads %d: bits differ",
                                      OPS[o], dtype_name(DTS[t]), s, d, threads);
                        ck_assert(o != 2 || fast == in);
                        tensor_unref(fast);
                        tensor_unref(in);
                    }
                    ep_set_threads(0);
                    tensor_unref(ref);
                    tensor_unref(x);
                }
}
END_TEST

/* sort, argsort, topk, kthvalue, median and mode of float32 rows on both
** sides of the radix order's threshold (256), rows full of equal keys
** (zeros of both signs, NaNs of both signs and payloads, infinities, a
** few repeated numbers), ascending and descending: values and indices
** the merge sort's, bit for bit, at 1 and 2 threads. */
START_TEST(test_radix_order_is_the_merge_sorts)
{
    static const Shape SORT_SHAPES[] = {{2, {3, 256}}, {2, {4, 255}}, {2, {5, 1000}}, {3, {2, 300, 7}}, {1, {4099}}};
    static const float SPECIAL[] = {0.0f, -0.0f, INFINITY, -INFINITY, 1.5f, -1.5f, 0x1p-140f, 2.0f};
    for (size_t s = 0; s < sizeof SORT_SHAPES / sizeof *SORT_SHAPES; s++) {
        const Shape *sh = &SORT_SHAPES[s];
        Tensor *x = filled(DT_F32, sh->ndim, sh->sizes, s + 31);
        float *p = tensor_data(x);
        for (int64_t i = 0; i < tensor_numel(x); i++) {
            uint32_t nan_bits = 0xffc00000u ^ (uint32_t)(i % 3) << 31 ^ (uint32_t)(i % 5); /* signs, payloads */
            if (i % 7 == 3)
                memcpy(&p[i], &nan_bits, 4);
            else if (i % 3 == 1)
                p[i] = SPECIAL[i % 8];
        }
        for (int d = 0; d < sh->ndim; d++)
            for (int desc = 0; desc < 2; desc++)
                for (int o = 0; o < 6; o++) {
                    static const char *const OPS[] = {"aten.sort.default",      "aten.argsort.default",
                                                      "aten.topk.default",      "aten.kthvalue.default",
                                                      "aten.median.dim",        "aten.mode.default"};
                    Value v[5];
                    int n;
                    int64_t len = sh->sizes[d];
                    if (o <= 1) { /* self, dim, descending */
                        v[0] = value_tensor(x), v[1] = value_int(d), v[2] = value_bool(desc), n = 3;
                    } else if (o == 2) { /* self, k, dim, largest */
                        v[0] = value_tensor(x), v[1] = value_int(len > 100 ? 100 : len), v[2] = value_int(d),
                        v[3] = value_bool(desc), n = 4;
                    } else if (o == 3) { /* self, k, dim */
                        v[0] = value_tensor(x), v[1] = value_int(len / 3 + 1), v[2] = value_int(d), n = 3;
                    } else { /* self, dim */
                        v[0] = value_tensor(x), v[1] = value_int(d), n = 2;
                    }
                    if (o >= 3 && desc)
                        continue;
                    int nout = o == 1 ? 1 : 2;
                    for (int k = 0; k < nout; k++) {
                        Tensor *ref = oprun(OPS[o], n, v, false, k);
                        for (int threads = 1; threads <= 2; threads++) {
                            ep_set_threads(threads);
                            Tensor *fast = oprun(OPS[o], n, v, true, k);
                            ck_assert_msg(tensors_same_bits(fast, ref), "%s shape %zu dim %d desc %d output %d: bits differ",
                                          OPS[o], s, d, desc, k);
                            tensor_unref(fast);
                        }
                        ep_set_threads(0);
                        tensor_unref(ref);
                    }
                }
        tensor_unref(x);
    }
}
END_TEST

/* ulps between two floats of the same sign */
static int64_t ulps(float a, float b)
{
    int32_t ia, ib;
    memcpy(&ia, &a, 4);
    memcpy(&ib, &b, 4);
    return ia > ib ? (int64_t)ia - ib : (int64_t)ib - ia;
}

START_TEST(test_exp_within_two_ulps)
{
    int64_t worst = 0;
    for (double x = -110.0; x <= 90.0; x += 0.000731) {
        float xf = (float)x, want = (float)exp((double)xf), got = rf_expf(xf);
        int64_t u = ulps(got, want);
        ck_assert_msg(u <= 2, "exp(%.9g) = %.9g, want %.9g (%lld ulps)", xf, got, want, (long long)u);
        worst = u > worst ? u : worst;
    }
    ck_assert(rf_expf(-INFINITY) == 0.0f);
    ck_assert(rf_expf(INFINITY) == INFINITY);
    ck_assert(isnan(rf_expf(NAN)));
    ck_assert(rf_expf(0.0f) == 1.0f);
}
END_TEST

/* topk of k <= 64 selects (reduce_sort.c, topk_T) instead of sorting: its
** values and indices are the stable sort's first k, bit for bit, on rows
** with many ties (values rounded to quarters) and NaNs, largest and
** smallest, for k on both sides of the bound (64 selects, 65 sorts). */
START_TEST(test_topk_selection_is_the_sort_prefix)
{
    int64_t sz[2] = {37, 300};
    Tensor *x = filled(DT_F32, 2, sz, 77);
    float *px = tensor_data(x);
    for (int64_t i = 0; i < tensor_numel(x); i++)
        px[i] = i % 97 == 5 ? NAN : floorf(px[i] * 4) / 4;
    static const int64_t KS[] = {0, 1, 3, 8, 64, 65};
    for (int largest = 0; largest < 2; largest++)
        for (size_t q = 0; q < sizeof KS / sizeof KS[0]; q++) {
            Value tv[5] = {value_tensor(x), value_int(KS[q]), value_int(-1), value_bool(largest), value_bool(true)};
            Tensor *vals = oprun("aten.topk.default", 5, tv, true, 0), *inds = oprun("aten.topk.default", 5, tv, true, 1);
            Value sv[4] = {value_tensor(x), value_bool(true), value_int(-1), value_bool(largest)};
            Tensor *svals = oprun("aten.sort.stable", 4, sv, true, 0), *sinds = oprun("aten.sort.stable", 4, sv, true, 1);
            const float *V = tensor_data(vals), *SV = tensor_data(svals);
            const int64_t *I = tensor_data(inds), *SI = tensor_data(sinds);
            for (int64_t r = 0; r < sz[0]; r++)
                for (int64_t j = 0; j < KS[q]; j++) {
                    float a = V[r * KS[q] + j], b = SV[r * sz[1] + j];
                    ck_assert_msg(memcmp(&a, &b, 4) == 0 && I[r * KS[q] + j] == SI[r * sz[1] + j],
                                  "k %lld largest %d row %lld entry %lld: %g at %lld, the sort has %g at %lld",
                                  (long long)KS[q], largest, (long long)r, (long long)j, a,
                                  (long long)I[r * KS[q] + j], b, (long long)SI[r * sz[1] + j]);
                }
            tensor_unref(vals);
            tensor_unref(inds);
            tensor_unref(svals);
            tensor_unref(sinds);
        }
    tensor_unref(x);
}
END_TEST

Suite *suite_reduce_fast(void)
{
    Suite *s = suite_create("reduce_fast");
    TCase *tc = tcase_create("fast-vs-reference");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_exp_within_two_ulps);
    tcase_add_test(tc, test_sums_match_reference);
    tcase_add_test(tc, test_chunked_row_same_bits);
    tcase_add_test(tc, test_softmax_matches_reference);
    tcase_add_test(tc, test_layer_norm_matches_reference);
    tcase_add_test(tc, test_max_pool_matches_reference);
    tcase_add_test(tc, test_batch_norm_eval_matches_reference);
    tcase_add_test(tc, test_extremes_same_bits_as_reference);
    tcase_add_test(tc, test_scans_same_bits_as_reference);
    tcase_add_test(tc, test_radix_order_is_the_merge_sorts);
    tcase_add_test(tc, test_topk_selection_is_the_sort_prefix);
    suite_add_tcase(s, tc);
    return s;
}
