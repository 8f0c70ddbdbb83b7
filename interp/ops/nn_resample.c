/*
** nn_resample.c -- resampling: upsample_nearest1d/2d/3d and
** _upsample_nearest_exact1d/2d/3d (gathers), upsample_linear1d /
** bilinear2d / trilinear3d (separable linear interpolation),
** upsample_bicubic2d (separable cubic convolution), each in its
** .default (explicit output size and scales) and .vec (output size or scale
** factors) forms; pixel_shuffle and pixel_unshuffle.
**
** Source indices and interpolation weights are computed exactly as
** UpSample.h does, in float for every dtype but float64 (so a floor() lands
** on the same side as PyTorch's), and the interpolation itself runs in the
** input's opmath type: float for float16 / bfloat16 / float32, double for
** float64.
*/
#include "nn.h"
#include "interp/parallel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Resample {
    int nsp;                  /* spatial dims: 1..3 */
    int64_t planes;           /* N * C */
    int64_t in[3], out[3];    /* right-aligned D, H, W */
    double scale[3];          /* the scales argument; <= 0 when absent */
    bool align_corners;
} Resample;

static int64_t prod3(const int64_t *v) { return v[0] * v[1] * v[2]; }

/* compute_scales_value: 1/scale when a positive scale was given, else
** in/out, in float. */
static float scale_value_f(double scale, int64_t in, int64_t out)
{
    return scale > 0 ? (float)(1.0 / scale) : (float)in / (float)out;
}

/* floor(v) as an index into [0, in) -- min(floor(v), in - 1) in PyTorch,
** with the cast kept defined for absurd scales (huge, inf or NaN). */
static int64_t floor_index(double v, int64_t in)
{
    v = floor(v);
    if (!(v < (double)(in - 1)))
        return in - 1;
    return v > 0 ? (int64_t)v : 0;
}

/* Source index of output o for nearest (exact = false, the legacy
** floor(o * scale)) and nearest-exact (floor((o + 0.5) * scale)). */
static int64_t nearest_src(int64_t o, int64_t in, int64_t out, double scale, bool exact)
{
    if (!exact) {
        if (out == in)
            return o;
        if (out == 2 * in)
            return o >> 1;
        float s = scale_value_f(scale, in, out);
        return floor_index((float)o * s, in);
    }
    float s = scale_value_f(scale, in, out);
    /* (o + 0.5) is a double in the C++ source, the product is narrowed to
    ** float by floorf's parameter */
    return floor_index((float)(((double)o + 0.5) * (double)s), in);
}

/* ---- argument handling ------------------------------------------------------------ */

/* Check the input (nsp + 2 dims, nothing empty but the batch) and read the
** output size and scales.  vec: (input, output_size?, [align_corners,]
** scale_factors?) -- the scales then are the factors themselves; otherwise
** (self, output_size, [align_corners,] scales...). */
static EpStatus resample_args(OpCall *c, int nsp, bool linear, bool vec, Resample *r)
{
    Tensor *x = arg_tensor(c, 0);
    const int a_scales = linear ? 3 : 2;
    r->nsp = nsp;
    r->align_corners = linear && arg_bool(c, 2);
    if (x->ndim != nsp + 2)
        return op_fail(c, "It is expected input_size equals to %d, but got size %d", nsp + 2, x->ndim);
    int64_t osz[8];
    double sf[8];
    int no = arg_int_list(c, 1, osz, 8);
    double scales[3] = {-1, -1, -1};
    if (vec) {
        int ns = arg_float_list(c, a_scales, sf, 8);
        if ((no >= 0) == (ns >= 0))
            return op_fail(c, "Must specify exactly one of output_size and scale_factors");
        if ((no >= 0 && no != nsp) || (ns >= 0 && ns != nsp))
            return op_fail(c, "expected %d output sizes or scale factors", nsp);
        for (int i = 0; i < nsp; i++) {
            if (ns >= 0) {
                /* the size is the truncated product; the factor itself then
                ** drives the index computation */
                double od = (double)x->sizes[2 + i] * sf[i];
                if (!(od >= 0 && od < 9.0e15))
                    return op_fail(c, "scale factor %g gives an invalid output size", sf[i]);
                osz[i] = (int64_t)od;
                scales[i] = sf[i];
            }
        }
    } else {
        if (no != nsp)
            return op_fail(c, "It is expected output_size equals to %d, but got size %d", nsp, no);
        for (int i = 0; i < nsp; i++)
            scales[i] = arg_is_none(c, a_scales + i) ? -1 : arg_float(c, a_scales + i);
    }
    r->planes = x->sizes[0] * x->sizes[1];
    bool ok = true;
    for (int i = 0; i < 3; i++) {
        int d = i - (3 - nsp);
        r->in[i] = d >= 0 ? x->sizes[2 + d] : 1;
        r->out[i] = d >= 0 ? osz[d] : 1;
        r->scale[i] = d >= 0 ? scales[d] : -1;
        if (r->in[i] <= 0 || r->out[i] <= 0)
            ok = false;
    }
    if (!ok || x->sizes[1] == 0) {
        char b1[64], b2[64];
        return op_fail(c, "Input and output sizes should be greater than 0, but got input %s output %s",
                       shape_str(nsp, r->in + 3 - nsp, b1, sizeof b1), shape_str(nsp, r->out + 3 - nsp, b2, sizeof b2));
    }
    return EP_OK;
}

static Tensor *alloc_out(OpCall *c, const Tensor *x, const Resample *r, DType dt)
{
    int64_t sz[5] = {x->sizes[0], x->sizes[1]};
    for (int i = 0; i < r->nsp; i++)
        sz[2 + i] = r->out[3 - r->nsp + i];
    return tensor_empty(dt, r->nsp + 2, sz, c->err);
}

static int op_rank(OpId id)
{
    switch (id) {
    case OP_UPSAMPLE_NEAREST1D: case OP_UPSAMPLE_NEAREST1D_VEC: case OP_UPSAMPLE_NEAREST_EXACT1D:
    case OP_UPSAMPLE_NEAREST_EXACT1D_VEC: case OP_UPSAMPLE_LINEAR1D: case OP_UPSAMPLE_LINEAR1D_VEC:
        return 1;
    case OP_UPSAMPLE_NEAREST3D: case OP_UPSAMPLE_NEAREST3D_VEC: case OP_UPSAMPLE_NEAREST_EXACT3D:
    case OP_UPSAMPLE_NEAREST_EXACT3D_VEC: case OP_UPSAMPLE_TRILINEAR3D: case OP_UPSAMPLE_TRILINEAR3D_VEC:
        return 3;
    default:
        return 2;
    }
}

static bool op_is_vec(OpId id)
{
    switch (id) {
    case OP_UPSAMPLE_NEAREST1D_VEC: case OP_UPSAMPLE_NEAREST2D_VEC: case OP_UPSAMPLE_NEAREST3D_VEC:
    case OP_UPSAMPLE_NEAREST_EXACT1D_VEC: case OP_UPSAMPLE_NEAREST_EXACT2D_VEC: case OP_UPSAMPLE_NEAREST_EXACT3D_VEC:
    case OP_UPSAMPLE_LINEAR1D_VEC: case OP_UPSAMPLE_BILINEAR2D_VEC: case OP_UPSAMPLE_TRILINEAR3D_VEC:
        return true;
    default:
        return false;
    }
}

static bool op_is_exact(OpId id)
{
    switch (id) {
    case OP_UPSAMPLE_NEAREST_EXACT1D: case OP_UPSAMPLE_NEAREST_EXACT2D: case OP_UPSAMPLE_NEAREST_EXACT3D:
    case OP_UPSAMPLE_NEAREST_EXACT1D_VEC: case OP_UPSAMPLE_NEAREST_EXACT2D_VEC:
    case OP_UPSAMPLE_NEAREST_EXACT3D_VEC:
        return true;
    default:
        return false;
    }
}

/* ---- nearest ------------------------------------------------------------------------ */

/* One output row of n elements of es bytes: dst[o] = row[idx[o]], typed by
** width (a memcpy call per element took 9 ns of it). */
static void nearest_row(size_t es, char *dst, const char *row, const int64_t *idx, int64_t n)
{
    switch (es) {
    case 1:
        for (int64_t o = 0; o < n; o++)
            ((uint8_t *)dst)[o] = ((const uint8_t *)row)[idx[o]];
        break;
    case 2:
        for (int64_t o = 0; o < n; o++)
            ((uint16_t *)dst)[o] = ((const uint16_t *)row)[idx[o]];
        break;
    case 4:
        for (int64_t o = 0; o < n; o++)
            ((uint32_t *)dst)[o] = ((const uint32_t *)row)[idx[o]];
        break;
    default:
        for (int64_t o = 0; o < n; o++)
            memcpy(dst + o * (int64_t)es, row + idx[o] * (int64_t)es, es);
        break;
    }
}

typedef struct NearestJob {
    const Resample *r;
    int64_t *const *idx; /* per dim: the source index of each output index */
    size_t es;
    const char *x;
    char *o;
} NearestJob;

/* Planes [p0, p1): an output row whose source row is the previous output
** row's (every other row at a scale of 2) is a copy of that row. */
static void nearest_planes(void *ctx, int64_t p0, int64_t p1)
{
    const NearestJob *j = ctx;
    const Resample *r = j->r;
    const int64_t es = (int64_t)j->es, Lin = prod3(r->in), Lout = prod3(r->out), W = r->out[2];
    if (W == 0)
        return;
    for (int64_t pl = p0; pl < p1; pl++)
        for (int64_t od = 0; od < r->out[0]; od++)
            for (int64_t oh = 0; oh < r->out[1]; oh++) {
                char *dst = j->o + (pl * Lout + (od * r->out[1] + oh) * W) * es;
                if (oh > 0 && j->idx[1][oh] == j->idx[1][oh - 1]) {
                    memcpy(dst, dst - W * es, (size_t)(W * es));
                    continue;
                }
                const char *row = j->x + (pl * Lin + (j->idx[0][od] * r->in[1] + j->idx[1][oh]) * r->in[2]) * es;
                nearest_row(j->es, dst, row, j->idx[2], W);
            }
}

/* upsample_nearest{1,2,3}d and _upsample_nearest_exact{1,2,3}d, .default
** and .vec: a gather, so any element size works (PyTorch allows uint8 and
** the float types); planes over the worker pool. */
EpStatus k_upsample_nearest(OpCall *c)
{
    Tensor *x = arg_tensor(c, 0);
    const int nsp = op_rank(c->op->id);
    const bool exact = op_is_exact(c->op->id);
    Resample r;
    EpStatus rc = resample_args(c, nsp, false, op_is_vec(c->op->id), &r);
    if (rc)
        return rc;
    if (!dtype_is_float(x->dtype) && x->dtype != DT_U8)
        return op_fail(c, "\"compute_indices_weights_nearest\" not implemented for '%s'", dtype_c10_name(x->dtype));
    Tensor *X = tensor_contiguous(x, c->err);
    Tensor *O = X ? alloc_out(c, x, &r, x->dtype) : NULL;
    int64_t *idx[3] = {NULL, NULL, NULL};
    bool ok = O != NULL;
    for (int i = 0; i < 3 && ok; i++) {
        idx[i] = malloc((size_t)r.out[i] * sizeof(int64_t));
        if (!idx[i])
            ok = false;
        else
            for (int64_t o = 0; o < r.out[i]; o++)
                idx[i][o] = nearest_src(o, r.in[i], r.out[i], r.scale[i], exact);
    }
    if (ok) {
        NearestJob j = {&r, idx, (size_t)dtype_size(x->dtype), tensor_data(X), tensor_data(O)};
        const int64_t Lout = prod3(r.out);
        ep_parallel_for(r.planes, 65536 / (Lout > 0 ? Lout : 1) + 1, nearest_planes, &j);
    } else if (O) {
        op_fail(c, "out of memory for upsampling indices");
    }
    for (int i = 0; i < 3; i++)
        free(idx[i]);
    tensor_unref(X);
    if (!ok) {
        tensor_unref(O);
        return c->err->code ? c->err->code : EP_ERR_EXEC;
    }
    out_tensor(c, 0, O);
    return EP_OK;
}

/* ---- linear ------------------------------------------------------------------------- */

/* Per output position of one dim: the two source indices and weights
** (compute_source_index_and_lambda).  T is float or double, the opmath of
** the input: the scale is a T, but the source index is computed from it in
** double and not rounded to T before the floor and the weight (checked
** against PyTorch 1.13: the same scale times o rounded to float first put
** 14/29 * 29 at index 14 where PyTorch has 13 + 0.99999976, and moved
** 1-ulp weights in 3 to 7 of 10 outputs). */
typedef struct LerpTab {
    int64_t i0, i1;
    double l0, l1; /* exact values of the T weights */
} LerpTab;

/* One linear interpolation step as PyTorch's kernels compute it: t0 w0 +
** t1 w1 with the first product fused into the add, fma(t0, w0, t1 w1):
** its CPU kernels are built for AVX2 and AVX-512 with FMA and GCC contracts
** the expression, so that is what PyTorch gives on such machines (checked
** against 1.13 for 1, 2 and 3 dims: no other grouping or rounding gave its
** bits); op_fma gives the same bits on any x86-64. */
#define LERP(t0, w0, t1, w1) op_fma(t0, w0, (t1) * (w1))

/* The interpolation loops in a clone with FMA instructions beside the
** baseline (GCC only; elsewhere fma is libm's, as in the baseline). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define LERP_CLONES __attribute__((target_clones("fma", "default")))
#else
#define LERP_CLONES
#endif

#define LERP_TABLE(NAME, T)                                                                              \
    static void NAME(int64_t in, int64_t out, bool align, double scale_arg, LerpTab *tab)            \
    {                                                                                                 \
        T ratio;                                                                                      \
        if (align)                                                                                    \
            ratio = out > 1 ? (T)(in - 1) / (T)(out - 1) : (T)0;                                      \
        else                                                                                          \
            ratio = scale_arg > 0 ? (T)(1.0 / scale_arg) : (T)in / (T)out;                            \
        for (int64_t o = 0; o < out; o++) {                                                           \
            if (out == in) {                                                                          \
                tab[o] = (LerpTab){o, o, 1, 0};                                                       \
                continue;                                                                             \
            }                                                                                         \
            double src;                                                                               \
            if (align) {                                                                              \
                src = (double)ratio * (double)o;                                                      \
            } else {                                                                                  \
                src = (double)ratio * ((double)o + 0.5) - 0.5;                                        \
                if (src < 0)                                                                          \
                    src = 0;                                                                          \
            }                                                                                         \
            int64_t i0 = floor_index(src, in);                                                        \
            T l1 = (T)(src - (double)i0);                                                             \
            if (l1 < 0)                                                                               \
                l1 = 0;                                                                               \
            if (l1 > 1)                                                                               \
                l1 = 1;                                                                               \
            tab[o] = (LerpTab){i0, i0 + (i0 < in - 1 ? 1 : 0), (double)((T)1 - l1), (double)l1};     \
        }                                                                                             \
    }

LERP_TABLE(lerp_table_f32, float)
LERP_TABLE(lerp_table_f64, double)

/* The interpolation, innermost dim first: w-lerps of rows, then h-lerps of
** those, then d, each a LERP in T. */
#define LERP_RUN(NAME, T)                                                                                  \
    LERP_CLONES static void NAME(const Resample *r, const T *x, T *out, LerpTab *const tab[3])          \
    {                                                                                                    \
        const int64_t Lin = prod3(r->in), Lout = prod3(r->out);                                          \
        const int nsp = r->nsp;                                                                          \
        for (int64_t pl = 0; pl < r->planes; pl++) {                                                     \
            const T *xp = x + pl * Lin;                                                                  \
            for (int64_t od = 0; od < r->out[0]; od++)                                                   \
                for (int64_t oh = 0; oh < r->out[1]; oh++)                                               \
                    for (int64_t ow = 0; ow < r->out[2]; ow++) {                                         \
                        const LerpTab *tw = &tab[2][ow], *th = &tab[1][oh], *td = &tab[0][od];          \
                        T dv[2];                                                                         \
                        for (int a = 0; a < (nsp >= 3 ? 2 : 1); a++) {                                   \
                            int64_t id = a ? td->i1 : td->i0;                                            \
                            T hv[2];                                                                     \
                            for (int b = 0; b < (nsp >= 2 ? 2 : 1); b++) {                               \
                                int64_t ih = b ? th->i1 : th->i0;                                        \
                                const T *row = xp + (id * r->in[1] + ih) * r->in[2];                     \
                                hv[b] = LERP(row[tw->i0], (T)tw->l0, row[tw->i1], (T)tw->l1);            \
                            }                                                                            \
                            dv[a] = nsp >= 2 ? LERP(hv[0], (T)th->l0, hv[1], (T)th->l1) : hv[0];         \
                        }                                                                                \
                        out[pl * Lout + (od * r->out[1] + oh) * r->out[2] + ow] =                        \
                            nsp >= 3 ? LERP(dv[0], (T)td->l0, dv[1], (T)td->l1) : dv[0];                 \
                    }                                                                                    \
        }                                                                                                \
    }

LERP_RUN(lerp_run_f32, float)
LERP_RUN(lerp_run_f64, double)

/* bilinear in float (float32, and float16 / bfloat16 widened), planes over
** the pool: lerp_run_f32's arithmetic for nsp 2, with each output row's two
** source rows found once and the width table's weights as floats (each is
** an exact float, so the products are lerp_run_f32's). */
typedef struct Bilinear {
    const Resample *r;
    const float *x;
    float *out;
    const LerpTab *th;
    const int64_t *wi0, *wi1; /* the width table, split */
    const float *wl0, *wl1;
} Bilinear;

LERP_CLONES static void bilinear_planes(void *ctx, int64_t p0, int64_t p1)
{
    const Bilinear *b = ctx;
    const int64_t Hin = b->r->in[1], Win = b->r->in[2], Hout = b->r->out[1], Wout = b->r->out[2];
    for (int64_t pl = p0; pl < p1; pl++) {
        const float *xp = b->x + pl * Hin * Win;
        float *op = b->out + pl * Hout * Wout;
        for (int64_t oh = 0; oh < Hout; oh++, op += Wout) {
            const float *r0 = xp + b->th[oh].i0 * Win, *r1 = xp + b->th[oh].i1 * Win;
            const float lh0 = (float)b->th[oh].l0, lh1 = (float)b->th[oh].l1;
            for (int64_t ow = 0; ow < Wout; ow++) {
                const int64_t i0 = b->wi0[ow], i1 = b->wi1[ow];
                const float l0 = b->wl0[ow], l1 = b->wl1[ow];
                float h0 = LERP(r0[i0], l0, r0[i1], l1), h1 = LERP(r1[i0], l0, r1[i1], l1);
                op[ow] = LERP(h0, lh0, h1, lh1);
            }
        }
    }
}

/* lerp_run_f32 for nsp 2 through bilinear_planes; false when out of memory */
static bool bilinear_run_f32(const Resample *r, const float *x, float *out, LerpTab *const tab[3])
{
    const int64_t W = r->out[2];
    int64_t *wi = malloc((size_t)(2 * W) * sizeof *wi);
    float *wl = malloc((size_t)(2 * W) * sizeof *wl);
    if (!wi || !wl) {
        free(wi);
        free(wl);
        return false;
    }
    for (int64_t o = 0; o < W; o++) {
        wi[o] = tab[2][o].i0;
        wi[W + o] = tab[2][o].i1;
        wl[o] = (float)tab[2][o].l0;
        wl[W + o] = (float)tab[2][o].l1;
    }
    Bilinear b = {r, x, out, tab[1], wi, wi + W, wl, wl + W};
    const int64_t Lout = prod3(r->out);
    ep_parallel_for(r->planes, 65536 / (Lout > 0 ? Lout : 1) + 1, bilinear_planes, &b);
    free(wi);
    free(wl);
    return true;
}

static double round_to(DType t, double v)
{
    uint16_t h;
    dtype_store_f64(t, &h, v);
    return dtype_load_f64(t, &h);
}

/* upsample_linear1d, upsample_bilinear2d, upsample_trilinear3d (.default
** and .vec). */
EpStatus k_upsample_linear(OpCall *c)
{
    Tensor *x = arg_tensor(c, 0);
    const int nsp = op_rank(c->op->id);
    Resample r;
    EpStatus rc = resample_args(c, nsp, true, op_is_vec(c->op->id), &r);
    if (rc)
        return rc;
    if (!dtype_is_float(x->dtype))
        return op_fail(c, "\"compute_indices_weights_linear\" not implemented for '%s'", dtype_c10_name(x->dtype));
    const DType ct = x->dtype == DT_F64 ? DT_F64 : DT_F32;
    Tensor *X = tensor_as_contiguous_dtype(x, ct, c->err);
    Tensor *O = X ? alloc_out(c, x, &r, ct) : NULL;
    LerpTab *tab[3] = {NULL, NULL, NULL};
    bool ok = O != NULL;
    for (int i = 0; i < 3 && ok; i++) {
        tab[i] = malloc((size_t)r.out[i] * sizeof(LerpTab));
        if (!tab[i])
            ok = false;
        else if (ct == DT_F32)
            lerp_table_f32(r.in[i], r.out[i], r.align_corners, r.scale[i], tab[i]);
        else
            lerp_table_f64(r.in[i], r.out[i], r.align_corners, r.scale[i], tab[i]);
    }
    /* PyTorch keeps the weights in the input's own type: for float16 and
    ** bfloat16 they are rounded before being used in float arithmetic */
    if (ok && (x->dtype == DT_F16 || x->dtype == DT_BF16))
        for (int i = 0; i < 3; i++)
            for (int64_t o = 0; o < r.out[i]; o++)
                tab[i][o].l0 = round_to(x->dtype, tab[i][o].l0), tab[i][o].l1 = round_to(x->dtype, tab[i][o].l1);
    Tensor *res = NULL;
    if (ok) {
        if (ct == DT_F32 && nsp == 2) {
            ok = bilinear_run_f32(&r, tensor_data(X), tensor_data(O), tab);
            if (!ok)
                op_fail(c, "out of memory for interpolation weights");
        } else if (ct == DT_F32)
            lerp_run_f32(&r, tensor_data(X), tensor_data(O), tab);
        else
            lerp_run_f64(&r, tensor_data(X), tensor_data(O), tab);
        res = !ok ? NULL : ct == x->dtype ? tensor_ref(O) : tensor_to_dtype(O, x->dtype, c->err);
    } else if (O) {
        op_fail(c, "out of memory for interpolation weights");
    }
    for (int i = 0; i < 3; i++)
        free(tab[i]);
    tensor_unref(X);
    tensor_unref(O);
    return nn_out(c, 0, res);
}

/* ---- bicubic ------------------------------------------------------------------------- */

/* Four taps per output position (clamped to the border) and their cubic
** convolution weights with A = -0.75 (HelperInterpCubic). */
typedef struct CubicTab {
    int64_t i[4];
    double w[4];
} CubicTab;

/* The cubic convolution weights (A = -0.75) with the steps PyTorch's FMA
** builds fuse (read off its weights: the first products fused into the
** next add, the last step not):
**   conv1(x) = ((A + 2) x - (A + 3)) x x + 1, (A + 2) x - (A + 3) fused;
**   conv2(x) = ((A x - 5A) x + 8A) x - 4A, the first two steps fused. */
#define CUBIC_CONV1(x, A) (op_fma((A) + 2, x, -((A) + 3)) * (x) * (x) + 1)
#define CUBIC_CONV2(x, A) (op_fma(op_fma(A, x, -5 * (A)), x, 8 * (A)) * (x) - 4 * (A))

#define CUBIC_TABLE(NAME, T)                                                                        \
    static void NAME(int64_t in, int64_t out, bool align, double scale_arg, CubicTab *tab)             \
    {                                                                                                   \
        const T A = (T)-0.75;                                                                           \
        T ratio;                                                                                        \
        if (align)                                                                                      \
            ratio = out > 1 ? (T)(in - 1) / (T)(out - 1) : (T)0;                                        \
        else                                                                                            \
            ratio = scale_arg > 0 ? (T)(1.0 / scale_arg) : (T)in / (T)out;                              \
        for (int64_t o = 0; o < out; o++) {                                                             \
            /* As PyTorch 1.13 computes it (read off its weights on one-hot        \
            ** inputs): the source index in double, not clamped at 0 for cubic;   \
            ** its floor taken in float (floorf), so an index just below an       \
            ** integer floors up, and t = index - floor, left negative then */    \
            const double src = align ? (double)ratio * (double)o : (double)ratio * ((double)o + 0.5) - 0.5; \
            const T f = (T)floorf((float)src), t = (T)(src - (double)f);                                 \
            const int64_t fi = isfinite(f) && f > -2 && f < (T)in ? (int64_t)f : (f > 0 ? in : -2);     \
            T x1 = t + 1, x2 = 1 - t, x3 = x2 + 1;                                                      \
            tab[o].w[0] = (double)CUBIC_CONV2(x1, A);                                                \
            tab[o].w[1] = (double)CUBIC_CONV1(t, A);                                                 \
            tab[o].w[2] = (double)CUBIC_CONV1(x2, A);                                                \
            tab[o].w[3] = (double)CUBIC_CONV2(x3, A);                                                \
            for (int j = 0; j < 4; j++) {                                                               \
                int64_t k = fi - 1 + j;                                                                 \
                tab[o].i[j] = k < 0 ? 0 : k > in - 1 ? in - 1 : k;                                      \
            }                                                                                           \
        }                                                                                               \
    }

CUBIC_TABLE(cubic_table_f32, float)
CUBIC_TABLE(cubic_table_f64, double)

/* Four taps combined as PyTorch's FMA builds compute them (checked against
** 1.13): fma(t3, w3, fma(t2, w2, fma(t0, w0, t1 w1))), the first pair as in
** LERP, each later product fused into the running sum. */
#define CUBIC4(t0, w0, t1, w1, t2, w2, t3, w3) op_fma(t3, w3, op_fma(t2, w2, op_fma(t0, w0, (t1) * (w1))))

/* Rows first (w taps), then the four rows combined (h taps), in T. */
#define CUBIC_RUN(NAME, T)                                                                                 \
    LERP_CLONES static void NAME(const Resample *r, const T *x, T *out, const CubicTab *th,            \
                                 const CubicTab *tw)                                                   \
    {                                                                                                   \
        const int64_t H = r->in[1], W = r->in[2], Ho = r->out[1], Wo = r->out[2];                       \
        for (int64_t pl = 0; pl < r->planes; pl++)                                                      \
            for (int64_t oh = 0; oh < Ho; oh++)                                                         \
                for (int64_t ow = 0; ow < Wo; ow++) {                                                   \
                    const CubicTab *cw = &tw[ow], *ch = &th[oh];                                        \
                    T v[4];                                                                             \
                    for (int a = 0; a < 4; a++) {                                                       \
                        const T *row = x + (pl * H + ch->i[a]) * W;                                     \
                        v[a] = CUBIC4(row[cw->i[0]], (T)cw->w[0], row[cw->i[1]], (T)cw->w[1],        \
                                      row[cw->i[2]], (T)cw->w[2], row[cw->i[3]], (T)cw->w[3]);          \
                    }                                                                                   \
                    out[(pl * Ho + oh) * Wo + ow] = CUBIC4(v[0], (T)ch->w[0], v[1], (T)ch->w[1],     \
                                                           v[2], (T)ch->w[2], v[3], (T)ch->w[3]);       \
                }                                                                                       \
    }

CUBIC_RUN(cubic_run_f32, float)
CUBIC_RUN(cubic_run_f64, double)

/* upsample_bicubic2d (.default and .vec). */
EpStatus k_upsample_bicubic(OpCall *c)
{
    Tensor *x = arg_tensor(c, 0);
    Resample r;
    EpStatus rc = resample_args(c, 2, true, c->op->id == OP_UPSAMPLE_BICUBIC2D_VEC, &r);
    if (rc)
        return rc;
    if (!dtype_is_float(x->dtype))
        return op_fail(c, "\"upsample_bicubic2d_out_frame\" not implemented for '%s'", dtype_c10_name(x->dtype));
    const DType ct = x->dtype == DT_F64 ? DT_F64 : DT_F32;
    Tensor *X = tensor_as_contiguous_dtype(x, ct, c->err);
    Tensor *O = X ? alloc_out(c, x, &r, ct) : NULL;
    CubicTab *th = O ? malloc((size_t)r.out[1] * sizeof *th) : NULL;
    CubicTab *tw = th ? malloc((size_t)r.out[2] * sizeof *tw) : NULL;
    Tensor *res = NULL;
    if (tw) {
        if (ct == DT_F32) {
            cubic_table_f32(r.in[1], r.out[1], r.align_corners, r.scale[1], th);
            cubic_table_f32(r.in[2], r.out[2], r.align_corners, r.scale[2], tw);
        } else {
            cubic_table_f64(r.in[1], r.out[1], r.align_corners, r.scale[1], th);
            cubic_table_f64(r.in[2], r.out[2], r.align_corners, r.scale[2], tw);
        }
        /* weights are kept in the input's type, as for linear */
        if (x->dtype == DT_F16 || x->dtype == DT_BF16) {
            for (int64_t o = 0; o < r.out[1]; o++)
                for (int j = 0; j < 4; j++)
                    th[o].w[j] = round_to(x->dtype, th[o].w[j]);
            for (int64_t o = 0; o < r.out[2]; o++)
                for (int j = 0; j < 4; j++)
                    tw[o].w[j] = round_to(x->dtype, tw[o].w[j]);
        }
        if (ct == DT_F32)
            cubic_run_f32(&r, tensor_data(X), tensor_data(O), th, tw);
        else
            cubic_run_f64(&r, tensor_data(X), tensor_data(O), th, tw);
        res = ct == x->dtype ? tensor_ref(O) : tensor_to_dtype(O, x->dtype, c->err);
    } else if (O) {
        op_fail(c, "out of memory for interpolation weights");
    }
    free(th);
    free(tw);
    tensor_unref(X);
    tensor_unref(O);
    return nn_out(c, 0, res);
}

/* ---- pixel shuffle ------------------------------------------------------------------ */

/* pixel_shuffle(self, upscale_factor): [..., C*r*r, H, W] -> [..., C, H*r,
** W*r]; pixel_unshuffle(self, downscale_factor) is its inverse.  Pure data
** movement, any dtype. */
EpStatus k_pixel_shuffle(OpCall *c)
{
    Tensor *x = arg_tensor(c, 0);
    const bool down = c->op->id == OP_PIXEL_UNSHUFFLE;
    const char *name = down ? "pixel_unshuffle" : "pixel_shuffle";
    const int64_t r = arg_int(c, 1);
    if (x->ndim < 3)
        return op_fail(c, "%s expects input to have at least 3 dimensions, but got input with %d dimension(s)", name,
                       x->ndim);
    if (r <= 0)
        return op_fail(c, "%s expects a positive %s, but got %lld", name, down ? "downscale_factor" : "upscale_factor",
                       (long long)r);
    const int nd = x->ndim;
    int64_t C = x->sizes[nd - 3], H = x->sizes[nd - 2], W = x->sizes[nd - 1];
    int64_t rr;
    if (!ep_mul_i64(r, r, &rr) || (!down && rr > C && C > 0))
        return op_fail(c, "%s: factor %lld is too large for input of size %s", name, (long long)r, nn_shape(x));
    if (!down && C % rr)
        return op_fail(c, "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                       "upscale_factor, but input.size(-3)=%lld is not divisible by %lld", (long long)C,
                       (long long)(r * r));
    if (down && H % r)
        return op_fail(c, "pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=%lld "
                       "is not divisible by %lld", (long long)H, (long long)r);
    if (down && W % r)
        return op_fail(c, "pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=%lld "
                       "is not divisible by %lld", (long long)W, (long long)r);
    int64_t sz[EP_MAX_DIMS];
    memcpy(sz, x->sizes, (size_t)nd * sizeof *sz);
    int64_t oc = down ? C * r * r : C / (r * r), oh = down ? H / r : H * r, ow = down ? W / r : W * r;
    sz[nd - 3] = oc;
    sz[nd - 2] = oh;
    sz[nd - 1] = ow;
    Tensor *X = tensor_contiguous(x, c->err);
    Tensor *O = X ? tensor_empty(x->dtype, nd, sz, c->err) : NULL;
    if (!O) {
        tensor_unref(X);
        return c->err->code ? c->err->code : EP_ERR_EXEC;
    }
    const size_t es = (size_t)dtype_size(x->dtype);
    const int64_t lead = shape_numel(nd - 3, x->sizes), plane = C * H * W;
    const char *xp = tensor_data(X);
    char *op = tensor_data(O);
    /* walk the small side (the shuffled one) and map each element */
    const int64_t sc = down ? C : oc, sh = down ? oh : H, sw = down ? ow : W;
    for (int64_t b = 0; b < lead; b++)
        for (int64_t ch = 0; ch < sc; ch++)
            for (int64_t i = 0; i < r; i++)
                for (int64_t j = 0; j < r; j++)
                    for (int64_t h = 0; h < sh; h++)
                        for (int64_t w = 0; w < sw; w++) {
                            int64_t big = (ch * sh * r + h * r + i) * sw * r + w * r + j; /* [C, H*r, W*r] */
                            int64_t small = ((ch * r + i) * r + j) * sh * sw + h * sw + w; /* [C*r*r, H, W] */
                            int64_t src = down ? big : small, dst = down ? small : big;
                            memcpy(op + (b * plane + dst) * (int64_t)es, xp + (b * plane + src) * (int64_t)es, es);
                        }
    tensor_unref(X);
    out_tensor(c, 0, O);
    return EP_OK;
}
