/*
** test_conv_fast.c -- the fast paths of pooling (interp/ops/nn_pool.c) and
** of depthwise, strided and Winograd convolution (interp/ops/nn_conv.c,
** nn_conv_wino.c) against the
** plain reference loops (`--no-blas`), on shapes that cover their edges:
** padding, strides 1 to 3, ceil mode, widths that are not a multiple of
** the vector, NaN, ties, and their bits for 1, 2 and 3 threads.
**
** Max pooling only picks values, so the fast path must give the
** reference's bits (values and indices); average pooling keeps the
** reference's double arithmetic, so the same.  The depthwise kernel sums in
** float32 where the reference sums in double: it is compared with the
** reference within float tolerance and bit for bit with a float32 loop
** here that adds the taps in the order the kernel promises.
*/
#include <float.h>
#include <math.h>
#include <string.h>

#include "interp/ops.h"
#include "interp/parallel.h"
#include "oprun.h"
#include "testutil.h"

/* Values with a seed: uniform in [-3, 3) in dtype dt, converted from
** float32 (so float16 / bfloat16 inputs are whatever those round to). */
static Tensor *filled(DType dt, int ndim, const int64_t *sizes, uint64_t seed)
{
    EpError err;
    Tensor *t = tensor_empty(DT_F32, ndim, sizes, &err);
    uint64_t s = seed * 2654435761u + 1;
    for (int64_t i = 0; i < tensor_numel(t); i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        ((float *)tensor_data(t))[i] = (float)((double)(s >> 11) / 9007199254740992.0 * 6.0 - 3.0);
    }
    if (dt == DT_F32)
        return t;
    Tensor *r = tensor_to_dtype(t, dt, &err);
    tensor_unref(t);
    return r;
}

/* The fast path's output k at 1, 2 and 3 threads: the same bits each time
** and, when want is given, want's bits; else close to the reference (a
** float32 GEMM of K = 147 products of values up to 3 against double sums
** is off by about 1e-5). */
static void check_fast(const char *what, const char *target, int n, const Value *vals, int k, const Tensor *want)
{
    static const int THREADS[] = {1, 2, 3};
    Tensor *fast = oprun_threads(what, target, n, vals, k, THREADS, 3);
    if (want) {
        ck_assert_msg(tensors_same_bits(fast, want), "%s output %d: bits differ", what, k);
    } else {
        Tensor *ref = oprun(target, n, vals, false, k);
        char msg[512];
        ck_assert_msg(tensors_close(fast, ref, 1e-5, 1e-4, msg, sizeof msg), "%s output %d: %s", what, k, msg);
        tensor_unref(ref);
    }
    tensor_unref(fast);
}

/* aten.convolution on vals (x, w, b borrowed; the lists and scalars in
** vals[3..8] cleared after): want's bits at 1, 2 and 3 threads, and close
** to the reference. */
static void check_conv(const char *what, Value *vals, const Tensor *want)
{
    check_fast(what, "aten.convolution.default", 9, vals, 0, want);
    check_fast(what, "aten.convolution.default", 9, vals, 0, NULL);
    for (int v = 3; v < 9; v++)
        value_clear(&vals[v]);
}

/* ---- max pooling ------------------------------------------------------------------- */

typedef struct PoolCase {
    int64_t sizes[4];
    int64_t k[2], stride[2], pad[2];
} PoolCase;

static const PoolCase POOLS[] = {
    {{2, 3, 17, 19}, {3, 3}, {2, 2}, {1, 1}}, /* resnet's stem pool, odd sizes */
    {{1, 4, 16, 16}, {2, 2}, {2, 2}, {0, 0}}, /* exact tiling, OW = 8 */
    {{1, 2, 9, 40}, {3, 5}, {1, 3}, {1, 2}},  /* stride 3 along the row */
    {{3, 2, 11, 7}, {2, 3}, {1, 1}, {1, 1}},  /* rows shorter than the vector */
    {{1, 1, 5, 33}, {1, 1}, {1, 1}, {0, 0}},  /* a 1x1 window: a copy */
    {{2, 9, 7, 7}, {3, 3}, {2, 2}, {1, 1}},   /* 18 planes: the global average's blocks of 8 and 2 more */
};

static void poke_specials(Tensor *x)
{
    /* NaN (the last NaN of a window wins), ties (the first wins), -inf
    ** (never beats the start) and -0.0 against 0.0 */
    Tensor *f = tensor_to_dtype(x, DT_F32, &(EpError){0});
    float *p = tensor_data(f);
    int64_t n = tensor_numel(f);
    for (int64_t i = 7; i < n; i += 53)
        p[i] = NAN;
    for (int64_t i = 3; i + 1 < n; i += 31)
        p[i] = p[i + 1] = 2.75f;
    for (int64_t i = 11; i + 2 < n; i += 41) {
        p[i] = 0.0f;
        p[i + 1] = -0.0f;
        p[i + 2] = 3.5f;
    }
    if (n > 40)
        for (int64_t i = 20; i < 40; i++)
            p[i] = -INFINITY; /* a window of -inf only: the first in-range index */
    Tensor *back = tensor_to_dtype(f, x->dtype, &(EpError){0});
    memcpy(tensor_data(x), tensor_data(back), tensor_nbytes(x));
    tensor_unref(back);
    tensor_unref(f);
}

START_TEST(test_max_pool_same_bits_as_reference)
{
    static const DType dts[] = {DT_F32, DT_F16, DT_BF16};
    for (size_t d = 0; d < sizeof dts / sizeof *dts; d++)
        for (size_t i = 0; i < sizeof POOLS / sizeof *POOLS; i++) {
            const PoolCase *pc = &POOLS[i];
            Tensor *x = filled(dts[d], 4, pc->sizes, i + 1);
            poke_specials(x);
            for (int ceil = 0; ceil < 2; ceil++) {
                int64_t dl[2] = {1, 1};
                Value vals[6] = {value_tensor(x),
                                 value_int_list(2, pc->k),
                                 value_int_list(2, pc->stride),
                                 value_int_list(2, pc->pad),
                                 value_int_list(2, dl),
                                 value_bool(ceil)};
                char what[128];
                snprintf(what, sizeof what, "max_pool2d case %zu dtype %d ceil %d", i, (int)dts[d], ceil);
                for (int k = 0; k < 2; k++) {
                    Tensor *ref = oprun("aten.max_pool2d_with_indices.default", 6, vals, false, k);
                    check_fast(what, "aten.max_pool2d_with_indices.default", 6, vals, k, ref);
                    tensor_unref(ref);
                }
                Tensor *ref = oprun("aten.max_pool2d.default", 6, vals, false, 0);
                check_fast(what, "aten.max_pool2d.default", 6, vals, 0, ref);
                tensor_unref(ref);
                for (int v = 1; v < 5; v++)
                    value_clear(&vals[v]);
            }
            tensor_unref(x);
        }
}
END_TEST

/* avg_pool2d and adaptive_avg_pool2d of float32 read their input directly
** but keep the reference's arithmetic: the same bits.  avg_pool2d is
** PyTorch's formula, checked by hand on the first output: the window
** inside the input summed in float in order, divided by its size in
** float (count_include_pad off).  _adaptive_avg_pool2d
** (and the public op but for a 1x1 output) is PyTorch's formula, checked by
** hand on the first plane's first window: the window summed in float in
** order, then divided by its height and then its width; the public op to
** 1x1 is mean(x, [-1, -2], keepdim=True), as PyTorch's composite op. */
START_TEST(test_avg_pools_same_bits_as_reference)
{
    for (size_t i = 0; i < sizeof POOLS / sizeof *POOLS; i++) {
        const PoolCase *pc = &POOLS[i];
        Tensor *x = filled(DT_F32, 4, pc->sizes, i + 20);
        poke_specials(x);
        for (int mode = 0; mode < 8; mode++) { /* ceil, count_include_pad, divisor_override */
            bool ceil = mode & 1, incl = mode & 2, over = mode & 4;
            Value vals[7] = {value_tensor(x),         value_int_list(2, pc->k), value_int_list(2, pc->stride),
                             value_int_list(2, pc->pad), value_bool(ceil),     value_bool(incl),
                             over ? value_int(3) : value_none()};
            char what[128];
            snprintf(what, sizeof what, "avg_pool2d case %zu mode %d", i, mode);
            Tensor *ref = oprun("aten.avg_pool2d.default", 7, vals, false, 0);
            if (mode == 0) { /* output [0][0][0][0] by hand: the window inside the input, in float */
                const int64_t W = pc->sizes[3];
                int64_t h1 = pc->k[0] - pc->pad[0], w1 = pc->k[1] - pc->pad[1];
                h1 = h1 < pc->sizes[2] ? h1 : pc->sizes[2];
                w1 = w1 < W ? w1 : W;
                float sum = 0;
                for (int64_t h = 0; h < h1; h++)
                    for (int64_t w = 0; w < w1; w++)
                        sum += ((const float *)tensor_data(x))[h * W + w];
                float first = sum / (float)(h1 * w1), got = ((const float *)tensor_data(ref))[0];
                ck_assert_msg(memcmp(&first, &got, 4) == 0 || (first != first && got != got), "%s: %a, by hand %a",
                              what, (double)got, (double)first);
            }
            check_fast(what, "aten.avg_pool2d.default", 7, vals, 0, ref);
            tensor_unref(ref);
            for (int v = 1; v < 4; v++)
                value_clear(&vals[v]);
        }
        static const int64_t outs[][2] = {{1, 1}, {7, 7}, {3, 5}, {2, 1}};
        for (size_t o = 0; o < sizeof outs / sizeof *outs; o++) {
            Value vals[2] = {value_tensor(x), value_int_list(2, outs[o])};
            char what[128];
            snprintf(what, sizeof what, "adaptive_avg_pool2d case %zu to %lldx%lld", i, (long long)outs[o][0],
                     (long long)outs[o][1]);
            Tensor *ref = oprun("aten._adaptive_avg_pool2d.default", 2, vals, false, 0);
            const int64_t H = pc->sizes[2], W = pc->sizes[3];
            const int64_t kh = (H + outs[o][0] - 1) / outs[o][0], kw = (W + outs[o][1] - 1) / outs[o][1];
            float sum = 0;
            for (int64_t h = 0; h < kh; h++)
                for (int64_t w = 0; w < kw; w++)
                    sum += ((const float *)tensor_data(x))[h * W + w];
            float first = sum / (float)kh / (float)kw, got = ((const float *)tensor_data(ref))[0];
            ck_assert_msg(memcmp(&first, &got, 4) == 0 || (first != first && got != got), "%s: %a, by hand %a",
                          what, (double)got, (double)first);
            check_fast(what, "aten._adaptive_avg_pool2d.default", 2, vals, 0, ref);
            if (outs[o][0] == 1 && outs[o][1] == 1) {
                int64_t dims[2] = {-1, -2};
                Value mv[4] = {value_tensor(x), value_int_list(2, dims), value_bool(true), value_none()};
                Tensor *mean = oprun("aten.mean.dim", 4, mv, true, 0);
                check_fast(what, "aten.adaptive_avg_pool2d.default", 2, vals, 0, mean);
                tensor_unref(mean);
                value_clear(&mv[1]);
            } else {
                check_fast(what, "aten.adaptive_avg_pool2d.default", 2, vals, 0, ref);
            }
            tensor_unref(ref);
            value_clear(&vals[1]);
        }
        tensor_unref(x);
    }
}
END_TEST

/* ---- depthwise convolution ------------------------------------------------------------ */

/* out = the taps w * x added in (kh, kw) order into 0 in float32, then the
** bias: the order the depthwise kernel keeps (and PyTorch's float32
** rounding per step). */
static Tensor *depthwise_expected(const Tensor *x, const Tensor *w, const Tensor *b, int64_t s, int64_t p)
{
    const int64_t N = x->sizes[0], C = x->sizes[1], H = x->sizes[2], W = x->sizes[3];
    const int64_t KH = w->sizes[2], KW = w->sizes[3], mult = w->sizes[0] / C;
    const int64_t OH = (H + 2 * p - KH) / s + 1, OW = (W + 2 * p - KW) / s + 1;
    int64_t osz[4] = {N, C * mult, OH, OW};
    Tensor *o = tensor_empty(DT_F32, 4, osz, &(EpError){0});
    const float *X = tensor_data((Tensor *)x), *Wt = tensor_data((Tensor *)w), *B = b ? tensor_data((Tensor *)b) : NULL;
    float *O = tensor_data(o);
    for (int64_t n = 0; n < N; n++)
        for (int64_t co = 0; co < C * mult; co++)
            for (int64_t oh = 0; oh < OH; oh++)
                for (int64_t ow = 0; ow < OW; ow++) {
                    float acc = 0;
                    for (int64_t kh = 0; kh < KH; kh++)
                        for (int64_t kw = 0; kw < KW; kw++) {
                            int64_t ih = oh * s - p + kh, iw = ow * s - p + kw;
                            if (ih < 0 || ih >= H || iw < 0 || iw >= W)
                                continue;
                            float t = Wt[(co * KH + kh) * KW + kw] * X[((n * C + co / mult) * H + ih) * W + iw];
                            acc = acc + t;
                        }
                    if (B)
                        acc = acc + B[co];
                    O[((n * C * mult + co) * OH + oh) * OW + ow] = acc;
                }
    return o;
}

typedef struct DwCase {
    int64_t sizes[4];
    int64_t mult, k, stride, pad;
    bool bias;
} DwCase;

static const DwCase DWS[] = {
    {{1, 8, 14, 14}, 1, 3, 1, 1, true},  /* mobilenet's 3x3 */
    {{2, 5, 15, 21}, 1, 3, 2, 1, true},  /* stride 2, odd sizes, batch 2 */
    {{1, 3, 9, 37}, 2, 5, 1, 2, false},  /* 5x5, two outputs per channel */
    {{1, 4, 12, 12}, 1, 7, 2, 3, true},  /* 7x7 stride 2 */
    {{1, 2, 3, 5}, 1, 3, 3, 1, true},    /* stride 3, rows shorter than the vector */
    {{1, 6, 10, 33}, 1, 1, 1, 0, true},  /* 1x1 */
    {{1, 3, 6, 70}, 1, 3, 1, 1, true},   /* rows of two whole 32-output blocks and a part */
};

START_TEST(test_depthwise_same_bits_as_float_order)
{
    for (size_t i = 0; i < sizeof DWS / sizeof *DWS; i++) {
        const DwCase *dc = &DWS[i];
        const int64_t C = dc->sizes[1];
        int64_t wsz[4] = {C * dc->mult, 1, dc->k, dc->k}, bsz[1] = {C * dc->mult};
        Tensor *x = filled(DT_F32, 4, dc->sizes, 100 + i), *w = filled(DT_F32, 4, wsz, 200 + i);
        Tensor *b = dc->bias ? filled(DT_F32, 1, bsz, 300 + i) : NULL;
        if (i == 1) { /* an infinite weight (0 * inf in the padding would be NaN) and NaN / inf inputs */
            ((float *)tensor_data(w))[1] = INFINITY;
            ((float *)tensor_data(x))[5] = NAN;
            ((float *)tensor_data(x))[40] = -INFINITY;
        }
        int64_t st[2] = {dc->stride, dc->stride}, pad[2] = {dc->pad, dc->pad}, dl[2] = {1, 1}, op[2] = {0, 0};
        Value vals[9] = {value_tensor(x), value_tensor(w), b ? value_tensor(b) : value_none(),
                         value_int_list(2, st), value_int_list(2, pad), value_int_list(2, dl),
                         value_bool(false), value_int_list(2, op), value_int(C)};
        char what[128];
        snprintf(what, sizeof what, "depthwise case %zu", i);
        Tensor *want = depthwise_expected(x, w, b, dc->stride, dc->pad);
        check_conv(what, vals, want);
        tensor_unref(want);
        tensor_unref(x);
        tensor_unref(w);
        tensor_unref(b);
    }
}
END_TEST

/* im2col + GEMM, with the vector copy of stride 2 (rows long and short,
** odd and even offsets) and the plain one: close to the reference, the
** same bits at any thread count. */
/* A square-kernel float32 convolution with a bias: its input, weight and
** bias filled from seed, seed + 100 and seed + 200 (new references), and
** aten.convolution's nine arguments in vals (the lists owned by vals). */
typedef struct ConvCase {
    int64_t sizes[4], cout, k, stride, pad;
} ConvCase;

static void conv_case_args(const ConvCase *cc, uint64_t seed, Tensor **x, Tensor **w, Tensor **b, Value *vals)
{
    int64_t wsz[4] = {cc->cout, cc->sizes[1], cc->k, cc->k}, bsz[1] = {cc->cout};
    *x = filled(DT_F32, 4, cc->sizes, seed);
    *w = filled(DT_F32, 4, wsz, seed + 100);
    *b = filled(DT_F32, 1, bsz, seed + 200);
    int64_t st[2] = {cc->stride, cc->stride}, pad[2] = {cc->pad, cc->pad}, dl[2] = {1, 1}, op[2] = {0, 0};
    Value v[9] = {value_tensor(*x),      value_tensor(*w),       value_tensor(*b),
                  value_int_list(2, st), value_int_list(2, pad), value_int_list(2, dl),
                  value_bool(false),     value_int_list(2, op),  value_int(1)};
    memcpy(vals, v, sizeof v);
}

START_TEST(test_conv_strided_matches_reference)
{
    static const ConvCase cases[] = {
        {{2, 3, 37, 41}, 8, 3, 2, 1}, {{1, 4, 20, 20}, 6, 1, 2, 0}, {{1, 3, 30, 30}, 5, 7, 2, 3},
        {{1, 2, 9, 13}, 4, 3, 3, 1},  {{1, 5, 16, 70}, 3, 3, 1, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        Tensor *x, *w, *b;
        Value vals[9];
        conv_case_args(&cases[i], 400 + i, &x, &w, &b, vals);
        char what[128];
        snprintf(what, sizeof what, "conv2d case %zu", i);
        ep_set_threads(1);
        Tensor *one = oprun("aten.convolution.default", 9, vals, true, 0);
        check_conv(what, vals, one);
        tensor_unref(one);
        tensor_unref(x);
        tensor_unref(w);
        tensor_unref(b);
    }
}
END_TEST

/* ---- small-image and batched float32 convolutions ------------------------------------- */

/* out = the products w * x of the window in (ci, kh, kw) order, each added
** into the float32 sum by one fused multiply-add (fmaf: one rounding)
** from 0, then the bias by a plain add: the order and rounding both
** float32 paths promise (taps in the padding add 0 * w, which leaves a sum
** unchanged for finite w). */
static Tensor *conv2d_expected(const Tensor *x, const Tensor *w, const Tensor *b, const int64_t *st, const int64_t *pd,
                               const int64_t *dl, int64_t groups)
{
    const int64_t N = x->sizes[0], C = x->sizes[1], H = x->sizes[2], W = x->sizes[3];
    const int64_t CO = w->sizes[0], CI = w->sizes[1], KH = w->sizes[2], KW = w->sizes[3];
    const int64_t OH = (H + 2 * pd[0] - dl[0] * (KH - 1) - 1) / st[0] + 1;
    const int64_t OW = (W + 2 * pd[1] - dl[1] * (KW - 1) - 1) / st[1] + 1;
    int64_t osz[4] = {N, CO, OH, OW};
    Tensor *o = tensor_empty(DT_F32, 4, osz, &(EpError){0});
    const float *X = tensor_data((Tensor *)x), *Wt = tensor_data((Tensor *)w), *B = b ? tensor_data((Tensor *)b) : NULL;
    float *O = tensor_data(o);
    for (int64_t n = 0; n < N; n++)
        for (int64_t co = 0; co < CO; co++)
            for (int64_t oh = 0; oh < OH; oh++)
                for (int64_t ow = 0; ow < OW; ow++) {
                    float acc = 0;
                    for (int64_t ci = 0; ci < CI; ci++)
                        for (int64_t kh = 0; kh < KH; kh++)
                            for (int64_t kw = 0; kw < KW; kw++) {
                                int64_t ih = oh * st[0] - pd[0] + kh * dl[0], iw = ow * st[1] - pd[1] + kw * dl[1];
                                if (ih < 0 || ih >= H || iw < 0 || iw >= W)
                                    continue;
                                int64_t cin = co / (CO / groups) * CI + ci;
                                acc = fmaf(Wt[((co * CI + ci) * KH + kh) * KW + kw], X[((n * C + cin) * H + ih) * W + iw],
                                           acc);
                            }
                    if (B)
                        acc = acc + B[co];
                    O[((n * CO + co) * OH + oh) * OW + ow] = acc;
                }
    (void)C;
    return o;
}

typedef struct SmallCase {
    int64_t sizes[4], cout, k[2], stride[2], pad[2], dil[2], groups;
    bool bias;
} SmallCase;

/* The first rows take the path with output channels in the lanes (small
** padded inputs): channel counts below, at and past its 16-channel block,
** position counts not a multiple of its 6-position block; the last rows
** the GEMM on im2col tiles (inputs too big for that path, K <= 256), with
** several images per tile and tiles inside one image, and a 1x1 whose
** tiles the GEMM reads from the input itself. */
static const SmallCase SMALLS[] = {
    {{3, 8, 16, 16}, 8, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true},     /* the ResNet-style CNN's stages */
    {{2, 16, 8, 8}, 16, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true},
    {{5, 32, 4, 4}, 32, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, false},
    {{2, 3, 16, 16}, 8, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true},     /* cnn.pt2's first conv */
    {{1, 5, 7, 9}, 21, {3, 2}, {2, 1}, {1, 0}, {1, 2}, 1, true},      /* odd everything, dilated */
    {{2, 6, 5, 5}, 4, {1, 1}, {1, 1}, {0, 0}, {1, 1}, 2, true},       /* 1x1, grouped */
    {{1, 4, 3, 3}, 33, {3, 3}, {1, 1}, {2, 2}, {1, 1}, 1, false},     /* pad 2, 33 channels */
    {{3, 6, 11, 6}, 9, {5, 3}, {3, 2}, {2, 1}, {1, 1}, 3, true},      /* stride 3, grouped 3 */
    {{2, 64, 24, 24}, 20, {1, 1}, {2, 2}, {0, 0}, {1, 1}, 1, true},   /* im2col tiles of several images */
    {{1, 16, 45, 50}, 7, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true},    /* tiles inside one image */
    {{3, 8, 40, 33}, 10, {3, 3}, {2, 1}, {1, 1}, {1, 1}, 2, false},   /* grouped, stride 2 rows */
    {{1, 64, 45, 50}, 12, {1, 1}, {1, 1}, {0, 0}, {1, 1}, 1, true},   /* 1x1: tiles read in place, the last copied */
};

START_TEST(test_conv_small_same_bits_as_float_order)
{
    for (size_t i = 0; i < sizeof SMALLS / sizeof *SMALLS; i++) {
        const SmallCase *sc = &SMALLS[i];
        int64_t wsz[4] = {sc->cout, sc->sizes[1] / sc->groups, sc->k[0], sc->k[1]}, bsz[1] = {sc->cout};
        Tensor *x = filled(DT_F32, 4, sc->sizes, 700 + i), *w = filled(DT_F32, 4, wsz, 800 + i);
        Tensor *b = sc->bias ? filled(DT_F32, 1, bsz, 900 + i) : NULL;
        if (i == 4) { /* NaN and inf inputs */
            ((float *)tensor_data(x))[7] = NAN;
            ((float *)tensor_data(x))[30] = -INFINITY;
        }
        int64_t op[2] = {0, 0};
        Value vals[9] = {value_tensor(x), value_tensor(w), b ? value_tensor(b) : value_none(),
                         value_int_list(2, sc->stride), value_int_list(2, sc->pad), value_int_list(2, sc->dil),
                         value_bool(false), value_int_list(2, op), value_int(sc->groups)};
        char what[128];
        snprintf(what, sizeof what, "small conv2d case %zu", i);
        Tensor *want = conv2d_expected(x, w, b, sc->stride, sc->pad, sc->dil, sc->groups);
        check_conv(what, vals, want);
        tensor_unref(want);
        tensor_unref(x);
        tensor_unref(w);
        tensor_unref(b);
    }
}
END_TEST

/* bfloat16 and float16 compute in float32 and round once, 1-D and 3-D go
** through the same paths: close to the reference, the same bits at any
** thread count. */
START_TEST(test_conv_small_halves_and_ranks)
{
    static const struct {
        DType dt;
        int ndim;
        int64_t sizes[5], wsizes[5];
    } cases[] = {
        {DT_BF16, 4, {2, 8, 6, 6}, {12, 8, 3, 3}},
        {DT_F16, 4, {3, 4, 5, 7}, {5, 4, 3, 3}},
        {DT_F32, 3, {2, 6, 40}, {10, 6, 5}},
        {DT_F32, 5, {2, 3, 4, 6, 5}, {7, 3, 3, 3, 3}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const int nsp = cases[i].ndim - 2;
        int64_t bsz[1] = {cases[i].wsizes[0]}, ones[3] = {1, 1, 1}, zeros[3] = {0, 0, 0};
        Tensor *x = filled(cases[i].dt, cases[i].ndim, cases[i].sizes, 1000 + i);
        Tensor *w = filled(cases[i].dt, cases[i].ndim, cases[i].wsizes, 1100 + i);
        Tensor *b = filled(cases[i].dt, 1, bsz, 1200 + i);
        Value vals[9] = {value_tensor(x),          value_tensor(w),           value_tensor(b),
                         value_int_list(nsp, ones), value_int_list(nsp, ones), value_int_list(nsp, ones),
                         value_bool(false),         value_int_list(nsp, zeros), value_int(1)};
        char what[128];
        snprintf(what, sizeof what, "conv case %zu (%s, rank %d)", i, dtype_meta_name(cases[i].dt), cases[i].ndim);
        ep_set_threads(1);
        Tensor *one = oprun("aten.convolution.default", 9, vals, true, 0);
        if (cases[i].dt == DT_F32) {
            check_conv(what, vals, one);
        } else { /* one rounding apart from the reference's: compare in float32 at half precision */
            check_fast(what, "aten.convolution.default", 9, vals, 0, one);
            Tensor *ref = oprun("aten.convolution.default", 9, vals, false, 0);
            EpError err;
            Tensor *a = tensor_to_dtype(one, DT_F32, &err), *r = tensor_to_dtype(ref, DT_F32, &err);
            char msg[512];
            ck_assert_msg(tensors_close(a, r, 2e-2, 2e-2, msg, sizeof msg), "%s: %s", what, msg);
            tensor_unref(a);
            tensor_unref(r);
            tensor_unref(ref);
            for (int v = 3; v < 9; v++)
                value_clear(&vals[v]);
        }
        tensor_unref(one);
        tensor_unref(x);
        tensor_unref(w);
        tensor_unref(b);
    }
}
END_TEST

/* ---- Winograd F(2x2, 3x3) (interp/ops/nn_conv_wino.c) ---------------------------------- */

/* 3x3 stride-1 convolutions of 16 channels and more on images too big for
** the small-image path: output sizes odd and even, blocks of tiles that end
** inside a tile row, padding 0 to 2, groups, several images, and one 16x16
** image whose few tiles are cut into finer blocks and channel parts. */
typedef struct WinoCase {
    int64_t sizes[4], cout, pad, groups;
    bool bias;
} WinoCase;

static const WinoCase WINOS[] = {
    {{1, 16, 33, 35}, 16, 1, 1, true},  /* 17x18 tiles, the last row and column half outside */
    {{2, 24, 36, 40}, 20, 0, 1, false}, /* no padding, two images, 20 channels out */
    {{1, 32, 30, 36}, 32, 1, 2, true},  /* two groups of 16 */
    {{1, 160, 16, 16}, 64, 1, 1, true}, /* 64 tiles: finer blocks and channel parts */
    {{1, 16, 80, 12}, 17, 2, 1, true},  /* padding 2, 17 channels out */
    {{1, 160, 13, 13}, 32, 1, 1, true}, /* 49 tiles, the fewest taken */
};

static Value *wino_vals(const WinoCase *wc, Tensor *x, Tensor *w, Tensor *b, Value *vals)
{
    int64_t st[2] = {1, 1}, pad[2] = {wc->pad, wc->pad}, dl[2] = {1, 1}, op[2] = {0, 0};
    Value v[9] = {value_tensor(x),        value_tensor(w),        b ? value_tensor(b) : value_none(),
                  value_int_list(2, st),  value_int_list(2, pad), value_int_list(2, dl),
                  value_bool(false),      value_int_list(2, op),  value_int(wc->groups)};
    memcpy(vals, v, sizeof v);
    return vals;
}

/* The scale of each output's rounding error: conv(|x|, |w|) + |b|, the sum
** of the magnitudes of its terms. */
static Tensor *abs_conv(const Tensor *x, const Tensor *w, const Tensor *b, int64_t stride, int64_t pad,
                        int64_t groups)
{
    const Tensor *t[3] = {x, w, b};
    Tensor *a[3] = {NULL, NULL, NULL};
    for (int k = 0; k < 3; k++) {
        if (!t[k])
            continue;
        a[k] = tensor_empty(DT_F32, t[k]->ndim, t[k]->sizes, &(EpError){0});
        for (int64_t e = 0; e < tensor_numel(t[k]); e++)
            ((float *)tensor_data(a[k]))[e] = fabsf(((const float *)tensor_data((Tensor *)t[k]))[e]);
    }
    int64_t st[2] = {stride, stride}, pd[2] = {pad, pad}, dl[2] = {1, 1};
    Tensor *s = conv2d_expected(a[0], a[1], a[2], st, pd, dl, groups);
    for (int k = 0; k < 3; k++)
        tensor_unref(a[k]);
    return s;
}

/* The largest error allowed, in units of FLT_EPSILON times the sum of
** |terms|: the direct float32 sum reaches 1.95 on these cases and the
** Winograd transforms 2.07 (an output that cancels to near 0 can be off
** by more than rtol 1e-5 of itself either way; against the scale of its
** terms both are as accurate). */
#define WINO_ERROR_BOUND 4.0

/* Within WINO_ERROR_BOUND of the reference (double sums), as the direct
** float32 sum is, and the same bits at 1, 2 and 3 threads; and not the
** bits of the direct sum, which shows the transforms ran (their roundings
** differ from the sum's). */
START_TEST(test_conv_winograd_matches_reference)
{
    for (size_t i = 0; i < sizeof WINOS / sizeof *WINOS; i++) {
        const WinoCase *wc = &WINOS[i];
        int64_t wsz[4] = {wc->cout, wc->sizes[1] / wc->groups, 3, 3}, bsz[1] = {wc->cout};
        Tensor *x = filled(DT_F32, 4, wc->sizes, 1300 + i), *w = filled(DT_F32, 4, wsz, 1400 + i);
        Tensor *b = wc->bias ? filled(DT_F32, 1, bsz, 1500 + i) : NULL;
        Value vals[9];
        wino_vals(wc, x, w, b, vals);
        char what[128];
        snprintf(what, sizeof what, "winograd case %zu", i);
        int64_t st[2] = {1, 1}, pad[2] = {wc->pad, wc->pad}, dl[2] = {1, 1};
        Tensor *direct = conv2d_expected(x, w, b, st, pad, dl, wc->groups);
        ep_set_threads(1);
        Tensor *one = oprun("aten.convolution.default", 9, vals, true, 0);
        ck_assert_msg(!tensors_same_bits(one, direct), "%s: the direct sum's bits (Winograd path not taken?)", what);
        check_fast(what, "aten.convolution.default", 9, vals, 0, one); /* the same bits at 1, 2 and 3 threads */
        Tensor *ref = oprun("aten.convolution.default", 9, vals, false, 0);
        Tensor *scale = abs_conv(x, w, b, 1, pad[0], wc->groups);
        const float *F = tensor_data(one), *D = tensor_data(direct), *R = tensor_data(ref), *S = tensor_data(scale);
        double worst = 0, worst_direct = 0;
        for (int64_t e = 0; e < tensor_numel(ref); e++) {
            worst = fmax(worst, fabs((double)F[e] - R[e]) / (FLT_EPSILON * S[e]));
            worst_direct = fmax(worst_direct, fabs((double)D[e] - R[e]) / (FLT_EPSILON * S[e]));
        }
        ck_assert_msg(worst <= WINO_ERROR_BOUND && worst_direct <= WINO_ERROR_BOUND,
                      "%s: errors of %.2f (Winograd) and %.2f (direct) eps times the sum of |terms| (at most %g)", what,
                      worst, worst_direct, WINO_ERROR_BOUND);
        for (int v = 3; v < 9; v++)
            value_clear(&vals[v]);
        tensor_unref(ref);
        tensor_unref(scale);
        tensor_unref(one);
        tensor_unref(direct);
        tensor_unref(x);
        tensor_unref(w);
        tensor_unref(b);
    }
}
END_TEST

/* One image whose im2col is a single tile (K = 1440) has its GEMM cut by
** output rows (nn_conv.c, conv_parts): 2 parts of 64 and 36 rows, 3 of
** 32, and 4 of 64 rows over a 1x1 read in place.  Within the error bound
** above of the reference, the same bits at 1, 2 and 3 threads. */
START_TEST(test_conv_row_parts_match_reference)
{
    static const ConvCase cases[] = {
        {{1, 160, 26, 26}, 100, 3, 2, 1},
        {{1, 160, 26, 26}, 96, 3, 2, 1},
        {{1, 1024, 12, 12}, 256, 1, 1, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        Tensor *x, *w, *b;
        Value vals[9];
        conv_case_args(&cases[i], 1700 + i, &x, &w, &b, vals);
        char what[128];
        snprintf(what, sizeof what, "row parts case %zu", i);
        ep_set_threads(1);
        Tensor *one = oprun("aten.convolution.default", 9, vals, true, 0);
        check_fast(what, "aten.convolution.default", 9, vals, 0, one);
        Tensor *ref = oprun("aten.convolution.default", 9, vals, false, 0);
        Tensor *scale = abs_conv(x, w, b, cases[i].stride, cases[i].pad, 1);
        const float *F = tensor_data(one), *R = tensor_data(ref), *S = tensor_data(scale);
        double worst = 0;
        for (int64_t e = 0; e < tensor_numel(ref); e++)
            worst = fmax(worst, fabs((double)F[e] - R[e]) / (FLT_EPSILON * S[e]));
        ck_assert_msg(worst <= WINO_ERROR_BOUND, "%s: error of %.2f eps times the sum of |terms| (at most %g)", what,
                      worst, WINO_ERROR_BOUND);
        for (int v = 3; v < 9; v++)
            value_clear(&vals[v]);
        tensor_unref(ref);
        tensor_unref(scale);
        tensor_unref(one);
        tensor_unref(x);
        tensor_unref(w);
        tensor_unref(b);
    }
}
END_TEST

/* Small integers: every product, sum and halving of the transforms is
** exact in float32, so F(2x2, 3x3) must give exactly the direct sum, bit
** for bit: a wrong coefficient or a tile misplaced anywhere shows. */
START_TEST(test_conv_winograd_exact_on_integers)
{
    for (size_t i = 0; i < sizeof WINOS / sizeof *WINOS; i++) {
        const WinoCase *wc = &WINOS[i];
        int64_t wsz[4] = {wc->cout, wc->sizes[1] / wc->groups, 3, 3}, bsz[1] = {wc->cout};
        Tensor *t[3] = {filled(DT_F32, 4, wc->sizes, 1600 + i), filled(DT_F32, 4, wsz, 1700 + i),
                        wc->bias ? filled(DT_F32, 1, bsz, 1800 + i) : NULL};
        for (int k = 0; k < 3; k++) /* [-3, 3) -> the integers -3 .. 2 */
            for (int64_t e = 0; t[k] && e < tensor_numel(t[k]); e++)
                ((float *)tensor_data(t[k]))[e] = floorf(((float *)tensor_data(t[k]))[e]);
        Value vals[9];
        wino_vals(wc, t[0], t[1], t[2], vals);
        char what[128];
        snprintf(what, sizeof what, "winograd integer case %zu", i);
        int64_t st[2] = {1, 1}, pad[2] = {wc->pad, wc->pad}, dl[2] = {1, 1};
        Tensor *want = conv2d_expected(t[0], t[1], t[2], st, pad, dl, wc->groups);
        check_conv(what, vals, want);
        tensor_unref(want);
        for (int k = 0; k < 3; k++)
            tensor_unref(t[k]);
    }
}
END_TEST

/* An infinity in the input or the weight: the transforms would subtract it
** from itself (NaN), so those calls take the direct paths and give the
** reference's infinities. */
START_TEST(test_conv_winograd_infinities_as_reference)
{
    const WinoCase *wc = &WINOS[0];
    for (int which = 0; which < 2; which++) {
        int64_t wsz[4] = {wc->cout, wc->sizes[1], 3, 3}, bsz[1] = {wc->cout};
        Tensor *x = filled(DT_F32, 4, wc->sizes, 1900), *w = filled(DT_F32, 4, wsz, 1901);
        Tensor *b = filled(DT_F32, 1, bsz, 1902);
        if (which == 0)
            ((float *)tensor_data(x))[5 * 35 + 7] = INFINITY;
        else
            ((float *)tensor_data(w))[4] = -INFINITY;
        Value vals[9];
        wino_vals(wc, x, w, b, vals);
        ep_set_threads(1);
        Tensor *fast = oprun("aten.convolution.default", 9, vals, true, 0);
        Tensor *ref = oprun("aten.convolution.default", 9, vals, false, 0);
        int64_t infs = 0;
        for (int64_t e = 0; e < tensor_numel(ref); e++)
            infs += isinf(((float *)tensor_data(ref))[e]) != 0;
        ck_assert_msg(infs > 0, "the reference has no infinity");
        char msg[512];
        ck_assert_msg(tensors_close(fast, ref, 1e-5, 1e-4, msg, sizeof msg), "infinite %s: %s",
                      which ? "weight" : "input", msg);
        tensor_unref(fast);
        tensor_unref(ref);
        for (int v = 0; v < 9; v++)
            if (v >= 3)
                value_clear(&vals[v]);
        tensor_unref(x);
        tensor_unref(w);
        tensor_unref(b);
    }
}
END_TEST

Suite *suite_conv_fast(void)
{
    Suite *s = suite_create("conv_fast");
    TCase *tc = tcase_create("fast-vs-reference");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_max_pool_same_bits_as_reference);
    tcase_add_test(tc, test_avg_pools_same_bits_as_reference);
    tcase_add_test(tc, test_depthwise_same_bits_as_float_order);
    tcase_add_test(tc, test_conv_strided_matches_reference);
    tcase_add_test(tc, test_conv_small_same_bits_as_float_order);
    tcase_add_test(tc, test_conv_small_halves_and_ranks);
    tcase_add_test(tc, test_conv_winograd_matches_reference);
    tcase_add_test(tc, test_conv_row_parts_match_reference);
    tcase_add_test(tc, test_conv_winograd_exact_on_integers);
    tcase_add_test(tc, test_conv_winograd_infinities_as_reference);
    suite_add_tcase(s, tc);
    return s;
}
