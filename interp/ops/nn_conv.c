/*
** nn_conv.c -- convolution, plain and transposed, 1-D to 3-D, grouped,
** strided, dilated and padded (also PyTorch's asymmetric 'same' padding):
** convolution, _convolution, conv1d/2d/3d (.default and .padding) and
** conv_transpose1d/2d/3d, batched or unbatched.
**
** Two implementations, as for matrix products: with BLAS, im2col + GEMM
** per (image, group) for the forward convolution and GEMM + col2im for the
** transposed one; without, direct loops that accumulate each output in
** double (float types) or wrapping uint64 (integers).  The BLAS side has
** float32 fast paths of its own: depthwise planes, small images with the
** output channels in the vector lanes, a register-blocked GEMM on im2col
** tiles over the batch (see their sections; the GEMM is nn_conv_sgemm.c),
** and Winograd's F(2x2, 3x3)
** for 3x3 stride-1 layers on bigger images (nn_conv_wino.c).  float16 and bfloat16
** compute in float32 and round once (PyTorch 1.13 has no float16 CPU
** convolution; modern PyTorch computes it in float32).
**
** Geometry is kept for three spatial dims (D, H, W): a 2-D convolution is a
** 3-D one with a depth of 1, which lets one set of loops serve all ranks.
*/
#include "nn_conv_int.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/parallel.h"

/* The spatial parameters as the operator gave them (nsp entries each). */
typedef struct ConvParams {
    int64_t stride[3], pad_lo[3], pad_hi[3], dil[3], opad[3];
    int64_t groups;
    bool transposed;
} ConvParams;

static const char *list_str(int n, const int64_t *v, const char *sep, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%lld", i ? sep : "", (long long)v[i]);
    return buf;
}

/* ---- checks and output shape ------------------------------------------------ */

/* check_shape_forward of Convolution.cpp, then the output size. */
static EpStatus conv_geometry(OpCall *c, const Tensor *x, const Tensor *w, const Tensor *b, const ConvParams *p,
                              ConvGeom *g)
{
    const int nsp = x->ndim - 2;
    char b1[128], b2[128];
    for (int i = 0; i < w->ndim - 2 && i < 3; i++) {
        if (p->pad_lo[i] < 0 || p->pad_hi[i] < 0)
            return op_fail(c, "negative padding is not supported");
        if (p->transposed && p->opad[i] < 0)
            return op_fail(c, "negative output_padding is not supported");
        if (p->stride[i] <= 0)
            return op_fail(c, "non-positive stride is not supported");
        if (p->dil[i] <= 0)
            return op_fail(c, "dilation should be greater than zero, but got [%s]",
                           list_str(w->ndim - 2, p->dil, ", ", b1, sizeof b1));
    }
    if (p->groups <= 0)
        return op_fail(c, "non-positive groups is not supported");
    if (w->ndim != x->ndim || x->ndim < 3 || x->ndim > 5)
        return op_fail(c, "Expected %d-dimensional input for %d-dimensional weight %s, but got %d-dimensional input "
                       "of size %s instead", w->ndim, w->ndim, nn_shape(w), x->ndim, nn_shape(x));
    if (w->sizes[0] < p->groups)
        return op_fail(c, "Given groups=%lld, expected weight to be at least %lld at dimension 0, but got weight of "
                       "size %s instead", (long long)p->groups, (long long)p->groups, nn_shape(w));
    if (w->sizes[0] % p->groups)
        return op_fail(c, "Given groups=%lld, expected weight to be divisible by %lld at dimension 0, but got weight "
                       "of size [%s] instead", (long long)p->groups, (long long)p->groups, nn_shape(w));
    g->nsp = nsp;
    g->transposed = p->transposed;
    g->groups = p->groups;
    g->n = x->sizes[0];
    g->cin = x->sizes[1];
    for (int i = 0; i < 3; i++) {
        int d = i - (3 - nsp); /* operator's spatial index, < 0 for padding dims */
        g->in[i] = d >= 0 ? x->sizes[2 + d] : 1;
        g->k[i] = d >= 0 ? w->sizes[2 + d] : 1;
        g->stride[i] = d >= 0 ? p->stride[d] : 1;
        g->dil[i] = d >= 0 ? p->dil[d] : 1;
        g->pad_lo[i] = d >= 0 ? p->pad_lo[d] : 0;
        g->pad_hi[i] = d >= 0 ? p->pad_hi[d] : 0;
        g->opad[i] = d >= 0 && p->transposed ? p->opad[d] : 0;
    }
    if (!p->transposed) {
        if (x->sizes[1] != w->sizes[1] * p->groups)
            return op_fail(c, "Given groups=%lld, weight of size %s, expected input%s to have %lld channels, but got "
                           "%lld channels instead", (long long)p->groups, nn_shape(w), nn_shape(x),
                           (long long)(w->sizes[1] * p->groups), (long long)x->sizes[1]);
        if (b && (b->ndim != 1 || b->sizes[0] != w->sizes[0]))
            return op_fail(c, "Given weight of size %s, expected bias to be 1-dimensional with %lld elements, but got "
                           "bias of size %s instead", nn_shape(w), (long long)w->sizes[0], nn_shape(b));
        g->cout = w->sizes[0];
        int64_t padded[3], kern[3];
        bool fits = true;
        for (int i = 0; i < nsp; i++) {
            int j = 3 - nsp + i;
            padded[i] = g->in[j] + g->pad_lo[j] + g->pad_hi[j];
            kern[i] = g->dil[j] * (g->k[j] - 1) + 1;
            if (padded[i] < kern[i])
                fits = false;
        }
        if (!fits)
            return op_fail(c, "Calculated padded input size per channel: (%s). Kernel size: (%s). Kernel size can't "
                           "be greater than actual input size", list_str(nsp, padded, " x ", b1, sizeof b1),
                           list_str(nsp, kern, " x ", b2, sizeof b2));
        for (int i = 0; i < 3; i++)
            g->out[i] = (g->in[i] + g->pad_lo[i] + g->pad_hi[i] - g->dil[i] * (g->k[i] - 1) - 1) / g->stride[i] + 1;
    } else {
        if (x->sizes[1] != w->sizes[0])
            return op_fail(c, "Given transposed=1, weight of size %s, expected input%s to have %lld channels, but got "
                           "%lld channels instead", nn_shape(w), nn_shape(x), (long long)w->sizes[0],
                           (long long)x->sizes[1]);
        if (b && (b->ndim != 1 || b->sizes[0] != w->sizes[1] * p->groups))
            return op_fail(c, "Given transposed=1, weight of size %s, expected bias to be 1-dimensional with %lld "
                           "elements, but got bias of size %s instead", nn_shape(w),
                           (long long)(w->sizes[1] * p->groups), nn_shape(b));
        for (int i = 0; i < 3; i++)
            if (g->opad[i] >= g->stride[i] && g->opad[i] >= g->dil[i])
                return op_fail(c, "output padding must be smaller than either stride or dilation, but got "
                               "output_padding %lld, stride %lld, dilation %lld", (long long)g->opad[i],
                               (long long)g->stride[i], (long long)g->dil[i]);
        g->cout = w->sizes[1] * p->groups;
        int64_t outs[3];
        bool ok = true;
        for (int i = 0; i < 3; i++) {
            g->out[i] = (g->in[i] - 1) * g->stride[i] - g->pad_lo[i] - g->pad_hi[i] + g->dil[i] * (g->k[i] - 1) +
                        g->opad[i] + 1;
            if (i >= 3 - nsp) {
                outs[i - (3 - nsp)] = g->out[i];
                if (g->out[i] < 0 || (g->out[i] == 0 && g->in[i] > 0))
                    ok = false;
            }
        }
        if (!ok) {
            int64_t ins[3];
            for (int i = 0; i < nsp; i++)
                ins[i] = g->in[3 - nsp + i];
            return op_fail(c, "Given input size per channel: (%s). Calculated output size per channel: (%s). Output "
                           "size is too small", list_str(nsp, ins, " x ", b1, sizeof b1),
                           list_str(nsp, outs, " x ", b2, sizeof b2));
        }
    }
    return EP_OK;
}

/* ---- reference loops ------------------------------------------------------------ */

/* out[n, co, o] = bias[co] + sum over the group's input channels and the
** kernel window of x * w, each output summed in ACC. */
#define CONV_DIRECT(NAME, T, ACC)                                                                         \
    static void NAME(const ConvGeom *g, const T *X, const T *W, const T *B, T *O)                      \
    {                                                                                                   \
        const int64_t cin_g = g->cin / g->groups, cout_g = g->cout / g->groups;                         \
        const int64_t L_in = prod3(g->in), KK = prod3(g->k), L_out = prod3(g->out);                     \
        for (int64_t n = 0; n < g->n; n++)                                                              \
            for (int64_t co = 0; co < g->cout; co++) {                                                  \
                const int64_t grp = co / cout_g;                                                        \
                const T *xg = X + (n * g->cin + grp * cin_g) * L_in;                                    \
                const T *wc = W + co * cin_g * KK;                                                      \
                T *o = O + (n * g->cout + co) * L_out;                                                  \
                for (int64_t od = 0; od < g->out[0]; od++)                                              \
                    for (int64_t oh = 0; oh < g->out[1]; oh++)                                          \
                        for (int64_t ow = 0; ow < g->out[2]; ow++) {                                    \
                            ACC acc = 0;                                                                \
                            for (int64_t ci = 0; ci < cin_g; ci++)                                      \
                                for (int64_t kd = 0; kd < g->k[0]; kd++) {                              \
                                    int64_t id = od * g->stride[0] - g->pad_lo[0] + kd * g->dil[0];     \
                                    if (id < 0 || id >= g->in[0])                                       \
                                        continue;                                                       \
                                    for (int64_t kh = 0; kh < g->k[1]; kh++) {                          \
                                        int64_t ih = oh * g->stride[1] - g->pad_lo[1] + kh * g->dil[1]; \
                                        if (ih < 0 || ih >= g->in[1])                                   \
                                            continue;                                                   \
                                        for (int64_t kw = 0; kw < g->k[2]; kw++) {                      \
                                            int64_t iw = ow * g->stride[2] - g->pad_lo[2] + kw * g->dil[2]; \
                                            if (iw < 0 || iw >= g->in[2])                               \
                                                continue;                                               \
                                            acc += (ACC)xg[((ci * g->in[0] + id) * g->in[1] + ih) * g->in[2] + iw] * \
                                                   (ACC)wc[((ci * g->k[0] + kd) * g->k[1] + kh) * g->k[2] + kw]; \
                                        }                                                               \
                                    }                                                                   \
                                }                                                                       \
                            if (B)                                                                      \
                                acc += (ACC)B[co];                                                      \
                            o[(od * g->out[1] + oh) * g->out[2] + ow] = (T)acc;                         \
                        }                                                                               \
            }                                                                                           \
    }

/* Transposed: each output gathers the inputs whose strided, dilated kernel
** footprint covers it: i = (o + pad - k * dil) / stride when that divides.
** Weight is [cin, cout / groups, k...]. */
#define CONVT_DIRECT(NAME, T, ACC)                                                                         \
    static void NAME(const ConvGeom *g, const T *X, const T *W, const T *B, T *O)                       \
    {                                                                                                    \
        const int64_t cin_g = g->cin / g->groups, cout_g = g->cout / g->groups;                          \
        const int64_t L_in = prod3(g->in), KK = prod3(g->k), L_out = prod3(g->out);                      \
        for (int64_t n = 0; n < g->n; n++)                                                               \
            for (int64_t co = 0; co < g->cout; co++) {                                                   \
                const int64_t grp = co / cout_g, cog = co % cout_g;                                      \
                T *o = O + (n * g->cout + co) * L_out;                                                   \
                for (int64_t od = 0; od < g->out[0]; od++)                                               \
                    for (int64_t oh = 0; oh < g->out[1]; oh++)                                           \
                        for (int64_t ow = 0; ow < g->out[2]; ow++) {                                     \
                            ACC acc = 0;                                                                 \
                            for (int64_t ci = grp * cin_g; ci < (grp + 1) * cin_g; ci++) {               \
                                const T *xc = X + (n * g->cin + ci) * L_in;                              \
                                const T *wc = W + (ci * cout_g + cog) * KK;                              \
                                for (int64_t kd = 0; kd < g->k[0]; kd++) {                               \
                                    int64_t td = od + g->pad_lo[0] - kd * g->dil[0];                     \
                                    if (td < 0 || td % g->stride[0] || td / g->stride[0] >= g->in[0])    \
                                        continue;                                                        \
                                    for (int64_t kh = 0; kh < g->k[1]; kh++) {                           \
                                        int64_t th = oh + g->pad_lo[1] - kh * g->dil[1];                 \
                                        if (th < 0 || th % g->stride[1] || th / g->stride[1] >= g->in[1]) \
                                            continue;                                                    \
                                        for (int64_t kw = 0; kw < g->k[2]; kw++) {                       \
                                            int64_t tw = ow + g->pad_lo[2] - kw * g->dil[2];             \
                                            if (tw < 0 || tw % g->stride[2] || tw / g->stride[2] >= g->in[2]) \
                                                continue;                                                \
                                            int64_t xi = ((td / g->stride[0]) * g->in[1] + th / g->stride[1]) * \
                                                             g->in[2] + tw / g->stride[2];               \
                                            acc += (ACC)xc[xi] *                                         \
                                                   (ACC)wc[(kd * g->k[1] + kh) * g->k[2] + kw];          \
                                        }                                                                \
                                    }                                                                    \
                                }                                                                        \
                            }                                                                            \
                            if (B)                                                                       \
                                acc += (ACC)B[co];                                                       \
                            o[(od * g->out[1] + oh) * g->out[2] + ow] = (T)acc;                          \
                        }                                                                                \
            }                                                                                            \
    }

CONV_DIRECT(conv_direct_f32, float, double)
CONV_DIRECT(conv_direct_f64, double, double)
CONV_DIRECT(conv_direct_i64, int64_t, uint64_t)
CONVT_DIRECT(convt_direct_f32, float, double)
CONVT_DIRECT(convt_direct_f64, double, double)
CONVT_DIRECT(convt_direct_i64, int64_t, uint64_t)

static void conv_direct(DType ct, const ConvGeom *g, const void *X, const void *W, const void *B, void *O)
{
    if (ct == DT_F32)
        (g->transposed ? convt_direct_f32 : conv_direct_f32)(g, X, W, B, O);
    else if (ct == DT_F64)
        (g->transposed ? convt_direct_f64 : conv_direct_f64)(g, X, W, B, O);
    else
        (g->transposed ? convt_direct_i64 : conv_direct_i64)(g, X, W, B, O);
}

/* ---- BLAS path: im2col / col2im around GEMMs -------------------------------------- */

/* The outputs [lo, hi) of a row of OW whose input column ow * stride + off
** lies inside a row of IW (lo >= hi: none). */
static void conv_valid_run(int64_t OW, int64_t IW, int64_t stride, int64_t off, int64_t *lo, int64_t *hi)
{
    *lo = off >= 0 ? 0 : (-off + stride - 1) / stride;
    *hi = IW - 1 - off < 0 ? 0 : (IW - 1 - off) / stride + 1;
    if (*hi > OW)
        *hi = OW;
}

/* dst[i] = src[2 i] for i < n, eight at a time: stride 2 along a row is
** resnet's downsampling, and GCC leaves the strided copy scalar.  A block
** reads src up to 2 i + 15, so blocks stop while that is before the last
** element read, 2 (n - 1): no read past the run. */
typedef uint32_t V8U __attribute__((vector_size(32), aligned(4), may_alias));
#ifdef __clang__ /* the fuzz build's compiler spells the shuffle its own way */
#define EVEN_LANES(a, b) __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14)
#else
#define EVEN_LANES(a, b) __builtin_shuffle(a, b, (V8U){0, 2, 4, 6, 8, 10, 12, 14})
#endif

__attribute__((target_clones("avx2", "default")))
static void copy_stride2_4(uint32_t *dst, const uint32_t *src, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 < n; i += 8)
        *(V8U *)(dst + i) = EVEN_LANES(*(const V8U *)(src + 2 * i), *(const V8U *)(src + 2 * i + 8));
    for (; i < n; i++)
        dst[i] = src[2 * i];
}

/* cols[(ci, kd, kh, kw), t - t0] = x[ci, id, ih, iw] (or 0 in the padding)
** for the output positions t = (od, oh, ow) in [t0, t1): one tile of the
** im2col matrix, walked in runs along ow, each run zeros, a copy (a plain
** one when unstrided, a vector one at stride 2 for 4-byte elements) and
** zeros; the rows are ld elements apart.  Only element size matters for a copy,
** so it is stamped for 4- and 8-byte elements. */
#define IM2COL(NAME, E)                                                                                    \
    static void NAME(const ConvGeom *g, int64_t nch, const E *x, int64_t t0, int64_t t1, E *cols, int64_t ld) \
    {                                                                                                    \
        const int64_t OW = g->out[2], OHW = g->out[1] * OW, IW = g->in[2], sw = g->stride[2];            \
        int64_t row = 0;                                                                                 \
        for (int64_t ci = 0; ci < nch; ci++)                                                             \
            for (int64_t kd = 0; kd < g->k[0]; kd++)                                                     \
                for (int64_t kh = 0; kh < g->k[1]; kh++)                                                 \
                    for (int64_t kw = 0; kw < g->k[2]; kw++, row++) {                                    \
                        E *dst = cols + row * ld;                                                        \
                        const E *xc = x + ci * prod3(g->in);                                             \
                        const int64_t off = kw * g->dil[2] - g->pad_lo[2];                               \
                        int64_t lo, hi;                                                                  \
                        conv_valid_run(OW, IW, sw, off, &lo, &hi);                                       \
                        for (int64_t t = t0; t < t1;) {                                                  \
                            int64_t od = t / OHW, oh = t / OW % g->out[1], ow = t % OW;                  \
                            int64_t end = ow + (t1 - t) < OW ? ow + (t1 - t) : OW;                       \
                            int64_t id = od * g->stride[0] - g->pad_lo[0] + kd * g->dil[0];              \
                            int64_t ih = oh * g->stride[1] - g->pad_lo[1] + kh * g->dil[1];              \
                            bool in_dh = id >= 0 && id < g->in[0] && ih >= 0 && ih < g->in[1];           \
                            const E *xrow = xc + (id * g->in[1] + ih) * IW;                              \
                            /* zeros in [ow, a), the input in [a, b), zeros in [b, end) */               \
                            int64_t a = !in_dh ? end : lo < ow ? ow : lo < end ? lo : end;               \
                            int64_t b = !in_dh || hi > end ? end : hi < a ? a : hi;                      \
                            t += end - ow;                                                               \
                            for (; ow < a; ow++)                                                         \
                                *dst++ = 0;                                                              \
                            if (sw == 1 && b > ow) {                                                   \
                                memcpy(dst, xrow + ow + off, (size_t)(b - ow) * sizeof(E));              \
                                dst += b - ow;                                                           \
                                ow = b;                                                                  \
                            }                                                                            \
                            if (sw == 2 && sizeof(E) == 4 && b > ow) {                                 \
                                copy_stride2_4((uint32_t *)dst, (const uint32_t *)xrow + ow * 2 + off, b - ow); \
                                dst += b - ow;                                                           \
                                ow = b;                                                                  \
                            }                                                                            \
                            for (; ow < b; ow++)                                                         \
                                *dst++ = xrow[ow * sw + off];                                            \
                            for (; ow < end; ow++)                                                       \
                                *dst++ = 0;                                                              \
                        }                                                                                \
                    }                                                                                    \
    }

IM2COL(im2col_4, uint32_t)
IM2COL(im2col_8, uint64_t)

/* out[co, o] += cols[(co, kd, kh, kw), i] for o = i * stride - pad + k * dil:
** the scatter half of a transposed convolution, in the compute type's own
** arithmetic as PyTorch's col2im. */
#define COL2IM(NAME, T, ADD)                                                                               \
    static void NAME(const ConvGeom *g, int64_t nch, const T *cols, T *out)                             \
    {                                                                                                    \
        const int64_t L_in = prod3(g->in), L_out = prod3(g->out);                                        \
        int64_t row = 0;                                                                                 \
        for (int64_t co = 0; co < nch; co++)                                                             \
            for (int64_t kd = 0; kd < g->k[0]; kd++)                                                     \
                for (int64_t kh = 0; kh < g->k[1]; kh++)                                                 \
                    for (int64_t kw = 0; kw < g->k[2]; kw++, row++) {                                    \
                        const T *src = cols + row * L_in;                                                \
                        T *oc = out + co * L_out;                                                        \
                        for (int64_t id = 0; id < g->in[0]; id++) {                                      \
                            int64_t od = id * g->stride[0] - g->pad_lo[0] + kd * g->dil[0];              \
                            for (int64_t ih = 0; ih < g->in[1]; ih++) {                                  \
                                int64_t oh = ih * g->stride[1] - g->pad_lo[1] + kh * g->dil[1];          \
                                bool in_dh = od >= 0 && od < g->out[0] && oh >= 0 && oh < g->out[1];     \
                                for (int64_t iw = 0; iw < g->in[2]; iw++, src++) {                       \
                                    int64_t ow = iw * g->stride[2] - g->pad_lo[2] + kw * g->dil[2];      \
                                    if (in_dh && ow >= 0 && ow < g->out[2]) {                            \
                                        T *d = oc + (od * g->out[1] + oh) * g->out[2] + ow;              \
                                        *d = ADD(*d, *src);                                              \
                                    }                                                                    \
                                }                                                                        \
                            }                                                                            \
                        }                                                                                \
                    }                                                                                    \
    }

#define ADD_PLAIN(a, b) ((a) + (b))
#define ADD_WRAP(a, b) ((int64_t)((uint64_t)(a) + (uint64_t)(b)))
COL2IM(col2im_f32, float, ADD_PLAIN)
COL2IM(col2im_f64, double, ADD_PLAIN)
COL2IM(col2im_i64, int64_t, ADD_WRAP)

/* Fill each of nch rows of len elements, ld elements apart, with bias[ch]
** (element size es, 4 or 8: typed stores, not a memcpy call per element). */
static void fill_bias(int es, int64_t nch, int64_t len, int64_t ld, const char *bias, char *out)
{
    for (int64_t ch = 0; ch < nch; ch++) {
        if (es == 4) {
            uint32_t v, *row = (uint32_t *)out + ch * ld;
            memcpy(&v, bias + ch * 4, 4);
            for (int64_t i = 0; i < len; i++)
                row[i] = v;
        } else {
            uint64_t v, *row = (uint64_t *)out + ch * ld;
            memcpy(&v, bias + ch * 8, 8);
            for (int64_t i = 0; i < len; i++)
                row[i] = v;
        }
    }
}

static bool is_pointwise(const ConvGeom *g)
{
    for (int i = 0; i < 3; i++)
        if (g->k[i] != 1 || g->stride[i] != 1 || g->pad_lo[i] || g->pad_hi[i])
            return false;
    return true;
}

/* ---- the fast forward path ------------------------------------------------------------ */

/* The forward convolution, cut into items (image, group, tile of output
** positions) whose bounds depend only on the geometry, so the pool may run
** them in any order on any number of threads with the same result.  Each
** item is one GEMM: W_g [cout_g, K] @ cols [K, tile] into the output's
** columns of the tile, where cols is the tile's im2col (K = cin_g * kernel
** volume) or, for a 1x1 unstrided unpadded kernel, the input itself. */
typedef struct ConvJob {
    const ConvGeom *g;
    DType ct;
    bool pointwise;
    int64_t K, tile, ntiles;
    /* with row parts (conv_parts): mparts parts of mrows output rows per
    ** (image, group, tile), on the im2col tiles made first in cols */
    int64_t mparts, mrows;
    char *cols;
    const char *X, *W, *B;
    char *O;
    atomic_int failed; /* an item ran out of memory */
} ConvJob;

/* im2col tiles of about this many elements (512 KiB of float32): the tile
** is written once and read by the GEMM while it is still in L2. */
#define CONV_TILE_ELEMS (INT64_C(1) << 17)
#define CONV_TILE_MIN 256
/* Multiply-adds a chunk of the pool should hold at least. */
#define CONV_CHUNK_WORK (INT64_C(1) << 22)
/* A depthwise plane is little work for its bytes (9 multiply-adds per
** output of a 3x3): at CONV_CHUNK_WORK a whole 64-channel layer of a
** mobile network was one chunk and the second core idled; 2^18 is about
** 50 us of it. */
#define DW_CHUNK_WORK (INT64_C(1) << 18)

static void conv_items(void *ctx, int64_t begin, int64_t end)
{
    ConvJob *j = ctx;
    const ConvGeom *g = j->g;
    const int es = dtype_size(j->ct);
    const int64_t cin_g = g->cin / g->groups, cout_g = g->cout / g->groups;
    const int64_t L_in = prod3(g->in), L_out = prod3(g->out);
    Storage *mem = NULL;
    char *cols = j->pointwise ? NULL : conv_scratch((size_t)(j->K * j->tile) * (size_t)es, &mem);
    if (!j->pointwise && !cols) {
        atomic_store(&j->failed, 1);
        return;
    }
    for (int64_t it = begin; it < end; it++) {
        const int64_t tile = it % j->ntiles, grp = it / j->ntiles % g->groups, n = it / j->ntiles / g->groups;
        const int64_t t0 = tile * j->tile, t1 = t0 + j->tile < L_out ? t0 + j->tile : L_out;
        const char *x = j->X + (n * g->cin + grp * cin_g) * L_in * es;
        char *o = j->O + ((n * g->cout + grp * cout_g) * L_out + t0) * es;
        NnMat mx = {(void *)(x + t0 * es), L_in, 1};
        if (!j->pointwise) {
            if (es == 4)
                im2col_4(g, cin_g, (const uint32_t *)x, t0, t1, (uint32_t *)cols, t1 - t0);
            else
                im2col_8(g, cin_g, (const uint64_t *)x, t0, t1, (uint64_t *)cols, t1 - t0);
            mx = (NnMat){cols, t1 - t0, 1};
        }
        if (j->B)
            fill_bias(es, cout_g, t1 - t0, L_out, j->B + grp * cout_g * es, o);
        NnMat mw = {(void *)(j->W + grp * cout_g * j->K * es), j->K, 1};
        NnMat mo = {o, L_out, 1};
        EpError err = {0};
        if (nn_gemm(true, j->ct, cout_g, t1 - t0, j->K, 1, mw, mx, j->B ? 1 : 0, mo, &err))
            atomic_store(&j->failed, 1);
    }
    storage_unref(mem);
}

/* ---- a few big items: output rows in parts ---------------------------------------- */

/* A call with fewer items than CONV_MIN_ITEMS (a 256-channel 3x3 layer on
** 14x14 at batch 1 is one tile of one image) would leave cores idle.  Its
** GEMMs are then cut by output rows as well, into parts of at least
** CONV_PART_ROWS rows (a multiple of 32, which every OpenBLAS kernel's row
** block divides), after the tiles' im2col is made once, in parallel by
** input channels, and shared by the parts.  Parts and channel chunks
** depend on the shape alone, so the result does not depend on the thread
** count. */
#define CONV_MIN_ITEMS 4
#define CONV_PART_ROWS 32
#define CONV_COL_CHUNKS 4 /* channel chunks per tile in the im2col phase */

static void conv_item_place(const ConvJob *j, int64_t base, int64_t *n, int64_t *grp, int64_t *t0, int64_t *t1)
{
    const int64_t L_out = prod3(j->g->out);
    *n = base / j->ntiles / j->g->groups;
    *grp = base / j->ntiles % j->g->groups;
    *t0 = base % j->ntiles * j->tile;
    *t1 = *t0 + j->tile < L_out ? *t0 + j->tile : L_out;
}

/* item = tile item * CONV_COL_CHUNKS + chunk: the chunk's input channels'
** rows of the tile's im2col, at the tile's place in j->cols */
static void conv_cols_items(void *ctx, int64_t begin, int64_t end)
{
    ConvJob *j = ctx;
    const ConvGeom *g = j->g;
    const int es = dtype_size(j->ct);
    const int64_t cin_g = g->cin / g->groups, KK = prod3(g->k), L_in = prod3(g->in);
    for (int64_t it = begin; it < end; it++) {
        const int64_t base = it / CONV_COL_CHUNKS, chunk = it % CONV_COL_CHUNKS;
        const int64_t c0 = cin_g * chunk / CONV_COL_CHUNKS, c1 = cin_g * (chunk + 1) / CONV_COL_CHUNKS;
        int64_t n, grp, t0, t1;
        conv_item_place(j, base, &n, &grp, &t0, &t1);
        const char *x = j->X + ((n * g->cin + grp * cin_g + c0) * L_in) * es;
        char *cols = j->cols + (base * j->K * j->tile + c0 * KK * (t1 - t0)) * es;
        if (es == 4)
            im2col_4(g, c1 - c0, (const uint32_t *)x, t0, t1, (uint32_t *)cols, t1 - t0);
        else
            im2col_8(g, c1 - c0, (const uint64_t *)x, t0, t1, (uint64_t *)cols, t1 - t0);
    }
}

/* item = tile item * mparts + part: the part's output rows of the tile */
static void conv_part_items(void *ctx, int64_t begin, int64_t end)
{
    ConvJob *j = ctx;
    const ConvGeom *g = j->g;
    const int es = dtype_size(j->ct);
    const int64_t cin_g = g->cin / g->groups, cout_g = g->cout / g->groups;
    const int64_t L_in = prod3(g->in), L_out = prod3(g->out);
    for (int64_t it = begin; it < end; it++) {
        const int64_t base = it / j->mparts, r0 = it % j->mparts * j->mrows;
        const int64_t r1 = r0 + j->mrows < cout_g ? r0 + j->mrows : cout_g;
        int64_t n, grp, t0, t1;
        conv_item_place(j, base, &n, &grp, &t0, &t1);
        NnMat mx = {(void *)(j->X + ((n * g->cin + grp * cin_g) * L_in + t0) * es), L_in, 1};
        if (!j->pointwise)
            mx = (NnMat){j->cols + base * j->K * j->tile * es, t1 - t0, 1};
        char *o = j->O + ((n * g->cout + grp * cout_g + r0) * L_out + t0) * es;
        if (j->B)
            fill_bias(es, r1 - r0, t1 - t0, L_out, j->B + (grp * cout_g + r0) * es, o);
        NnMat mw = {(void *)(j->W + (grp * cout_g + r0) * j->K * es), j->K, 1};
        NnMat mo = {o, L_out, 1};
        EpError err = {0};
        if (nn_gemm(true, j->ct, r1 - r0, t1 - t0, j->K, 1, mw, mx, j->B ? 1 : 0, mo, &err))
            atomic_store(&j->failed, 1);
    }
}

/* The two phases; false when the tiles' im2col does not fit in memory. */
static bool conv_parts(ConvJob *j, int64_t items)
{
    const int es = dtype_size(j->ct);
    Storage *mem = NULL;
    if (!j->pointwise) {
        j->cols = conv_scratch((size_t)(items * j->K * j->tile) * (size_t)es, &mem);
        if (!j->cols)
            return false;
        const int64_t work = j->K * j->tile / CONV_COL_CHUNKS;
        ep_parallel_for(items * CONV_COL_CHUNKS, CONV_CHUNK_WORK / 16 / (work > 0 ? work : 1) + 1, conv_cols_items,
                        j);
    }
    const int64_t work = j->mrows * j->tile * j->K;
    ep_parallel_for(items * j->mparts, CONV_CHUNK_WORK / (work > 0 ? work : 1) + 1, conv_part_items, j);
    storage_unref(mem);
    return true;
}

/* float32 o[i] += w * x[i] over a row, eight lanes at a time: each lane's
** sum is the same multiply then add as the scalar tail's, so the result
** does not depend on the vector width the CPU has (no fused multiply-add:
** the build keeps -ffp-contract=off, -std=c11's default; V8F is in
** nn_conv_int.h). */

static inline void axpy_row(float *o, const float *x, float w, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        *(V8F *)(o + i) += w * *(const V8F *)(x + i);
    for (; i < n; i++)
        o[i] += w * x[i];
}

/* One output plane of a float32 depthwise convolution (each output channel
** reads one input channel x): the taps are added in (kd, kh, kw) order into
** the output row, then the bias, one float32 rounding per step as PyTorch's
** float32 kernels round. */
__attribute__((target_clones("avx2", "default")))
static void depthwise_plane(const ConvGeom *g, const float *x, const float *w, const float *bias, float *o)
{
    const int64_t OW = g->out[2], IW = g->in[2], sw = g->stride[2];
    for (int64_t od = 0; od < g->out[0]; od++)
        for (int64_t oh = 0; oh < g->out[1]; oh++) {
            float *orow = o + (od * g->out[1] + oh) * OW;
            for (int64_t ow = 0; ow < OW; ow++)
                orow[ow] = 0;
            for (int64_t kd = 0; kd < g->k[0]; kd++) {
                int64_t id = od * g->stride[0] - g->pad_lo[0] + kd * g->dil[0];
                if (id < 0 || id >= g->in[0])
                    continue;
                for (int64_t kh = 0; kh < g->k[1]; kh++) {
                    int64_t ih = oh * g->stride[1] - g->pad_lo[1] + kh * g->dil[1];
                    if (ih < 0 || ih >= g->in[1])
                        continue;
                    const float *xrow = x + (id * g->in[1] + ih) * IW;
                    for (int64_t kw = 0; kw < g->k[2]; kw++) {
                        const float wv = w[(kd * g->k[1] + kh) * g->k[2] + kw];
                        /* the outputs whose input column ow * sw + off is inside the row */
                        const int64_t off = kw * g->dil[2] - g->pad_lo[2];
                        int64_t lo, hi;
                        conv_valid_run(OW, IW, sw, off, &lo, &hi);
                        if (lo >= hi)
                            continue;
                        if (sw == 1)
                            axpy_row(orow + lo, xrow + lo + off, wv, hi - lo);
                        else
                            for (int64_t ow = lo; ow < hi; ow++)
                                orow[ow] += wv * xrow[ow * sw + off];
                    }
                }
            }
            if (bias)
                for (int64_t ow = 0; ow < OW; ow++)
                    orow[ow] += *bias;
        }
}

/* The 2-D depthwise kernel below runs blocks of DW_BLOCK outputs of a row
** in registers: four vectors of eight, four independent chains of adds
** (two left each add waiting for the one before), and two rows at once
** inside the image, eight chains (four still waited: 235 us against
** PyTorch's 200 on a 64-channel 56x56 layer; 182 us with eight). */
#define DW_BLOCK 32
/* and takes windows of at most this many taps (7x7 is 49) */
#define DW_MAX_TAPS 64

/* A 2-D window without dilation: the case of the blocked kernel. */
static bool depthwise_2d_plain(const ConvGeom *g)
{
    return g->in[0] == 1 && g->k[0] == 1 && g->out[0] == 1 && g->dil[1] == 1 && g->dil[2] == 1 &&
           g->k[1] * g->k[2] <= DW_MAX_TAPS;
}

/* The phases of a plane's rows for a row stride sw, with the row padding
** as zeros: phase r of input row ih holds the padded row's columns r,
** r + sw, r + 2 sw, ..., so tap kw of consecutive outputs reads
** consecutive floats of phase kw % sw.  The padding is at the same places
** for every plane: it is written only when pads is set (a chunk's first
** plane; the buffer is the chunk's own).  Eight floats at a time, the
** valid columns of a phase worked out once for all its rows: the rows are
** short (56 floats on a 56x56 layer), and a memcpy, two memsets and two
** divisions a row took a quarter of the layer's time. */
__attribute__((target_clones("avx2", "default")))
static void depthwise_phases(const ConvGeom *g, const float *x, int64_t plen, float *ph, bool pads)
{
    const int64_t IW = g->in[2], sw = g->stride[2], pad = g->pad_lo[2];
    for (int64_t r = 0; r < sw; r++) {
        /* jj in [lo, hi) reads column jj * sw + r - pad inside the row */
        int64_t lo, hi;
        conv_valid_run(plen, IW, sw, r - pad, &lo, &hi);
        hi = hi > lo ? hi : lo;
        for (int64_t ih = 0; ih < g->in[1]; ih++) {
            float *dst = ph + (ih * sw + r) * plen;
            const float *src = x + ih * IW + r - pad;
            if (pads) {
                memset(dst, 0, (size_t)lo * sizeof(float));
                memset(dst + hi, 0, (size_t)(plen - hi) * sizeof(float));
            }
            int64_t jj = lo;
            if (sw == 1)
                for (; jj + 8 <= hi; jj += 8)
                    *(V8F *)(dst + jj) = *(const V8F *)(src + jj);
            for (; jj < hi; jj++)
                dst[jj] = src[jj * sw];
        }
    }
}

/* The taps of output row oh that fall inside the input (rows outside are
** skipped, as depthwise_plane does): where each reads in the phases, and
** its weight, in (kh, kw) order; their number.  For the rows of the
** image's edges: rows whose window is inside the input shift one list
** (depthwise_plane_2d). */
static int depthwise_row_taps(const ConvGeom *g, int64_t oh, int64_t plen, const float *w, int64_t *off, float *wt)
{
    const int64_t sw = g->stride[2], KW = g->k[2];
    int ntaps = 0;
    for (int64_t kh = 0; kh < g->k[1]; kh++) {
        int64_t ih = oh * g->stride[1] - g->pad_lo[1] + kh;
        if (ih < 0 || ih >= g->in[1])
            continue;
        for (int64_t kw = 0, r = 0, q = 0; kw < KW; kw++, ntaps++, r = r + 1 < sw ? r + 1 : 0, q += r == 0) {
            off[ntaps] = (ih * sw + r) * plen + q; /* r = kw % sw, q = kw / sw */
            wt[ntaps] = w[kh * KW + kw];
        }
    }
    return ntaps;
}

/* The first n of a block's DW_BLOCK sums acc[0..4) (plus the bias) to dst.
** (The sums come by pointer: clang refuses 32-byte vector arguments in the
** function's clone without AVX.) */
static inline __attribute__((always_inline)) void depthwise_store(float *dst, int64_t n, const float *bias,
                                                                   const V8F *acc)
{
    V8F a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    if (bias) {
        a0 += *bias;
        a1 += *bias;
        a2 += *bias;
        a3 += *bias;
    }
    if (n >= DW_BLOCK) {
        *(V8F *)dst = a0;
        *(V8F *)(dst + 8) = a1;
        *(V8F *)(dst + 16) = a2;
        *(V8F *)(dst + 24) = a3;
        return;
    }
    float res[DW_BLOCK]; /* the row's last, partial block */
    memcpy(res, &a0, sizeof a0);
    memcpy(res + 8, &a1, sizeof a1);
    memcpy(res + 16, &a2, sizeof a2);
    memcpy(res + 24, &a3, sizeof a3);
    for (int64_t l = 0; l < n; l++)
        dst[l] = res[l];
}

/* One plane of a 2-D float32 depthwise convolution, DW_BLOCK outputs of a
** row at a time in registers: each output adds its taps in (kh, kw) order
** to 0, then the bias, rounding to float32 at each step, as
** depthwise_plane does, so the bits are depthwise_plane's.  Rows outside
** the input are skipped as there; columns in the padding read zeros, and
** adding w * 0 = +-0 leaves the sum as it is (a sum started at +0 is never
** -0), which holds for finite weights: the caller checks them.
**
** Two rows whose windows lie wholly inside the input are computed together:
** each sum is a chain of 9 dependent adds for a 3x3, and the four chains of
** one block left the adder waiting on its latency; eight keep it busy. */
__attribute__((target_clones("avx2", "default")))
static void depthwise_plane_2d(const ConvGeom *g, const float *ph, int64_t plen, const float *w, const float *bias,
                               float *o)
{
    const int64_t OW = g->out[2], OH = g->out[1];
    const int full = (int)(g->k[1] * g->k[2]);
    /* from a row's taps to the next row's: stride[1] input rows of phases */
    const int64_t step = g->stride[1] * g->stride[2] * plen;
    int64_t off[DW_MAX_TAPS]; /* the taps in range for this output row: where they read, their weight */
    float wt[DW_MAX_TAPS];
    /* a window inside the input reads tap t at base[t] past its first
    ** row's phases, with weight w[t] */
    int64_t base[DW_MAX_TAPS];
    const int64_t sw = g->stride[2], KW = g->k[2];
    for (int t = 0; t < full; t++)
        base[t] = (t / KW * sw + t % KW % sw) * plen + t % KW / sw;
    for (int64_t oh = 0; oh < OH;) {
        const int64_t ih0 = oh * g->stride[1] - g->pad_lo[1];
        int ntaps = full;
        if (ih0 >= 0 && ih0 + g->k[1] <= g->in[1]) {
            for (int t = 0; t < full; t++) {
                off[t] = base[t] + ih0 * sw * plen;
                wt[t] = w[t];
            }
        } else {
            ntaps = depthwise_row_taps(g, oh, plen, w, off, wt);
        }
        const int64_t last_ih = (oh + 1) * g->stride[1] - g->pad_lo[1] + g->k[1] - 1;
        const bool pair = ntaps == full && oh + 1 < OH && last_ih < g->in[1];
        for (int64_t ob = 0; ob < OW; ob += DW_BLOCK) {
            V8F a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};
            if (!pair) {
                for (int t = 0; t < ntaps; t++) {
                    const float *src = ph + off[t] + ob;
                    a0 += wt[t] * *(const V8F *)src;
                    a1 += wt[t] * *(const V8F *)(src + 8);
                    a2 += wt[t] * *(const V8F *)(src + 16);
                    a3 += wt[t] * *(const V8F *)(src + 24);
                }
                depthwise_store(o + oh * OW + ob, OW - ob, bias, (V8F[4]){a0, a1, a2, a3});
                continue;
            }
            V8F b0 = {0}, b1 = {0}, b2 = {0}, b3 = {0};
            for (int t = 0; t < ntaps; t++) {
                const float *src = ph + off[t] + ob, *nxt = src + step;
                a0 += wt[t] * *(const V8F *)src;
                a1 += wt[t] * *(const V8F *)(src + 8);
                a2 += wt[t] * *(const V8F *)(src + 16);
                a3 += wt[t] * *(const V8F *)(src + 24);
                b0 += wt[t] * *(const V8F *)nxt;
                b1 += wt[t] * *(const V8F *)(nxt + 8);
                b2 += wt[t] * *(const V8F *)(nxt + 16);
                b3 += wt[t] * *(const V8F *)(nxt + 24);
            }
            depthwise_store(o + oh * OW + ob, OW - ob, bias, (V8F[4]){a0, a1, a2, a3});
            depthwise_store(o + (oh + 1) * OW + ob, OW - ob, bias, (V8F[4]){b0, b1, b2, b3});
        }
        oh += pair ? 2 : 1;
    }
}

static void depthwise_items(void *ctx, int64_t begin, int64_t end)
{
    const ConvJob *j = ctx;
    const ConvGeom *g = j->g;
    const int64_t cout_g = g->cout / g->groups, L_in = prod3(g->in), L_out = prod3(g->out), KK = prod3(g->k);
    /* phases long enough for the last block's last tap */
    const int64_t plen = (g->out[2] + DW_BLOCK - 1) / DW_BLOCK * DW_BLOCK + (g->k[2] - 1) / g->stride[2] + 1;
    Storage *mem = NULL;
    float *ph = depthwise_2d_plain(g) ? conv_scratch((size_t)(g->in[1] * g->stride[2] * plen) * sizeof(float), &mem)
                                      : NULL;
    bool pads = true; /* ph's padding is still to be written */
    for (int64_t it = begin; it < end; it++) { /* it = n * cout + co */
        const int64_t n = it / g->cout, co = it % g->cout;
        const float *x = (const float *)j->X + (n * g->cin + co / cout_g) * L_in;
        const float *bias = j->B ? (const float *)j->B + co : NULL, *w = (const float *)j->W + co * KK;
        float *o = (float *)j->O + it * L_out;
        if (ph && conv_all_finite(w, KK)) {
            depthwise_phases(g, x, plen, ph, pads);
            pads = false;
            depthwise_plane_2d(g, ph, plen, w, bias, o);
        } else { /* 3-D, dilated, out of memory, or a weight that 0 * w would make NaN */
            depthwise_plane(g, x, w, bias, o);
        }
    }
    storage_unref(mem);
}

/* ---- float32: im2col over several images and a register-blocked GEMM ----------- */

/* The CNNs' convolutions are small (8-32 channels on 16x16 and smaller
** images): per image, OpenBLAS's packing and call cost more than its
** arithmetic, and at 4x4 an image gives it only 16 columns.  So float32
** convolutions whose window holds at most CONV_SG_MAX_K inputs go through
** the GEMM below, on im2col tiles that hold several whole images when the
** images are small: the GEMM's columns then run over the batch. */
#define CONV_SG_MAX_K 256
/* im2col tiles of about this many elements (256 KiB): it stays in L2
** while the GEMM reads it once per block of rows */
#define CONV_SG_TILE (INT64_C(1) << 16)
/* multiply-adds a chunk of the pool should hold at least: ~25 us */
#define CONV_SG_CHUNK_WORK (INT64_C(1) << 19)

/* The im2col of one whole image of a convolution without depth (2-D, or
** 1-D): cols[(ci, kh, kw), (oh, ow)], rows ld apart.  The general IM2COL
** divides per run to find its row; on the CNNs' 4x4 to 16x16 images the
** runs are 4 to 16 long, so this walks rows directly, and copies eight
** at a time (GCC -O2 leaves the copy loop scalar) rather than by memcpy
** calls. */
__attribute__((target_clones("avx2", "default")))
static void im2col_2d_f32(const ConvGeom *g, int64_t nch, const float *x, float *cols, int64_t ld)
{
    const int64_t IH = g->in[1], IW = g->in[2], OH = g->out[1], OW = g->out[2], sw = g->stride[2];
    int64_t row = 0;
    for (int64_t ci = 0; ci < nch; ci++)
        for (int64_t kh = 0; kh < g->k[1]; kh++)
            for (int64_t kw = 0; kw < g->k[2]; kw++, row++) {
                const float *xc = x + ci * IH * IW;
                const int64_t off = kw * g->dil[2] - g->pad_lo[2];
                int64_t lo, hi;
                conv_valid_run(OW, IW, sw, off, &lo, &hi);
                hi = hi > lo ? hi : lo;
                float *dst = cols + row * ld;
                for (int64_t oh = 0; oh < OH; oh++, dst += OW) {
                    const int64_t ih = oh * g->stride[1] - g->pad_lo[1] + kh * g->dil[1];
                    if (ih < 0 || ih >= IH) {
                        memset(dst, 0, (size_t)OW * sizeof(float));
                        continue;
                    }
                    const float *xrow = xc + ih * IW + off;
                    int64_t ow = 0;
                    for (; ow < lo; ow++)
                        dst[ow] = 0;
                    if (sw == 1) {
                        for (; ow + 8 <= hi; ow += 8)
                            *(V8F *)(dst + ow) = *(const V8F *)(xrow + ow);
                        for (; ow < hi; ow++)
                            dst[ow] = xrow[ow];
                    } else
                        for (; ow < hi; ow++)
                            dst[ow] = xrow[ow * sw];
                    for (; ow < OW; ow++)
                        dst[ow] = 0;
                }
            }
}

/* The float32 convolution cut into items (block of images, group, tile of
** output positions): with images per block ipb > 1 a tile is the blocks'
** whole images side by side, else a tile of one image's positions. */
typedef struct ConvSgJob {
    const ConvGeom *g;
    int64_t K, ipb, nblocks, tile, ntiles;
    const float *X, *W, *B;
    float *O;
    atomic_int failed;
} ConvSgJob;

static void conv_sg_items(void *ctx, int64_t begin, int64_t end)
{
    ConvSgJob *j = ctx;
    const ConvGeom *g = j->g;
    const int64_t cin_g = g->cin / g->groups, cout_g = g->cout / g->groups;
    const int64_t L_in = prod3(g->in), L_out = prod3(g->out);
    const int64_t width = j->ipb > 1 ? j->ipb * L_out : j->tile, ld = (width + SG_NR - 1) / SG_NR * SG_NR;
    /* the tile, and past it the several images' output rows */
    const size_t ncols = (size_t)(j->K * ld), nscratch = j->ipb > 1 ? (size_t)(cout_g * ld) : 0;
    Storage *mem;
    float *cols = conv_scratch((ncols + nscratch) * sizeof(float), &mem);
    if (!cols) {
        atomic_store(&j->failed, 1);
        return;
    }
    float *scratch = cols + ncols;
    /* zeroed: the padding columns are read, so they must be defined (a
    ** shorter tile later leaves its last one's values there: defined too) */
    memset(cols, 0, ncols * sizeof(float));
    for (int64_t it = begin; it < end; it++) {
        const int64_t tile = it % j->ntiles, grp = it / j->ntiles % g->groups, blk = it / j->ntiles / g->groups;
        const int64_t n0 = blk * j->ipb, n1 = n0 + j->ipb < g->n ? n0 + j->ipb : g->n;
        const int64_t t0 = tile * j->tile, t1 = t0 + j->tile < L_out ? t0 + j->tile : L_out, tw = t1 - t0;
        const float *w = j->W + grp * cout_g * j->K, *bias = j->B ? j->B + grp * cout_g : NULL;
        if (n1 - n0 == 1 && is_pointwise(g) && t0 + (tw + SG_NR - 1) / SG_NR * SG_NR <= L_in) {
            conv_sgemm(cout_g, tw, j->K, w, j->K, j->X + (n0 * g->cin + grp * cin_g) * L_in + t0, L_in, bias,
                       j->O + (n0 * g->cout + grp * cout_g) * L_out + t0, L_out);
            continue;
        }
        for (int64_t n = n0; n < n1; n++) {
            const float *x = j->X + (n * g->cin + grp * cin_g) * L_in;
            if (tw == L_out && g->k[0] == 1 && g->in[0] == 1)
                im2col_2d_f32(g, cin_g, x, cols + (n - n0) * tw, ld);
            else
                im2col_4(g, cin_g, (const uint32_t *)x, t0, t1, (uint32_t *)cols + (n - n0) * tw, ld);
        }
        if (n1 - n0 == 1) {
            conv_sgemm(cout_g, tw, j->K, w, j->K, cols, ld, bias, j->O + (n0 * g->cout + grp * cout_g) * L_out + t0,
                       L_out);
            continue;
        }
        /* several images: their columns side by side, then each image's rows
        ** to its place in the output */
        conv_sgemm(cout_g, (n1 - n0) * L_out, j->K, w, j->K, cols, ld, bias, scratch, ld);
        for (int64_t n = n0; n < n1; n++)
            for (int64_t co = 0; co < cout_g; co++)
                memcpy(j->O + (n * g->cout + grp * cout_g + co) * L_out, scratch + co * ld + (n - n0) * L_out,
                       (size_t)L_out * sizeof(float));
    }
    storage_unref(mem);
}

static EpStatus conv_sg(OpCall *c, const ConvGeom *g, const float *X, const float *W, const float *B, float *O)
{
    const int64_t cin_g = g->cin / g->groups, cout_g = g->cout / g->groups, L_out = prod3(g->out);
    ConvSgJob j = {.g = g, .K = cin_g * prod3(g->k), .X = X, .W = W, .B = B, .O = O};
    atomic_init(&j.failed, 0);
    const int64_t per_image = j.K * L_out;
    if (2 * per_image <= CONV_SG_TILE) { /* small images: whole ones side by side */
        j.ipb = CONV_SG_TILE / per_image;
        j.ipb = j.ipb < g->n ? j.ipb : g->n;
        j.tile = L_out;
        j.ntiles = 1;
    } else { /* tiles of about equal width, a multiple of SG_NR but the last */
        int64_t want = CONV_SG_TILE / j.K;
        want = want < CONV_TILE_MIN ? CONV_TILE_MIN : want;
        j.ipb = 1;
        j.ntiles = (L_out + want - 1) / want;
        j.tile = ((L_out + j.ntiles - 1) / j.ntiles + SG_NR - 1) / SG_NR * SG_NR;
        j.tile = j.tile < L_out ? j.tile : L_out;
        j.ntiles = (L_out + j.tile - 1) / j.tile;
    }
    j.nblocks = (g->n + j.ipb - 1) / j.ipb;
    const int64_t work = cout_g * j.K * j.ipb * j.tile;
    ep_parallel_for(j.nblocks * g->groups * j.ntiles, CONV_SG_CHUNK_WORK / (work > 0 ? work : 1) + 1, conv_sg_items,
                    &j);
    if (atomic_load(&j.failed))
        return op_fail(c, "out of memory for a %lldx%lld im2col tile", (long long)j.K, (long long)(j.ipb * j.tile));
    return EP_OK;
}

/* ---- float32 2-D: output channels in the vector lanes ------------------------------ */

/* On small images (the CNNs' 4x4 to 16x16) even a fast im2col costs more
** than the GEMM after it: it writes every input K / channels times, in runs
** of 4 to 16.  So those convolutions skip it: each image's input is copied
** once into zero-padded planes, and each output position reads its window
** straight from them, a tap at the offset roff[k] from the position's
** base, times a vector of eight output channels' weights (the weight
** transposed to [K, channels]).  A block of positions by output channels
** stays in registers over the whole window; then each lane goes to its
** channel's plane.  Taps in the padding multiply zeros, as the im2col path
** does.  Each output is one sum over k in order, each step a fused
** multiply-add (v8_fma), plus the bias: the GEMM path's sums exactly. */
#define CV_MAX_LOUT 1024 /* output positions per image at most */
/* and padded input planes of at most this many elements (128 KiB): the
** windows gather across all the planes, which must stay in L2 (on bigger
** ones OpenBLAS's packed GEMM wins) */
#define CV_MAX_INPUT (INT64_C(1) << 15)

/* acc[p][v] = sum over k < K of xp[base[p] + roff[k]] * wt[16 k + 8 v ...]
** for six positions p and sixteen channels (two vectors). */
static inline __attribute__((always_inline)) void cv_6x16(int64_t K, const int64_t *roff, const float *xp,
                                                           const int64_t *base, const float *wt, V8F acc[6][2])
{
    const float *x0 = xp + base[0], *x1 = xp + base[1], *x2 = xp + base[2];
    const float *x3 = xp + base[3], *x4 = xp + base[4], *x5 = xp + base[5];
    V8F c00 = {0}, c01 = {0}, c10 = {0}, c11 = {0}, c20 = {0}, c21 = {0};
    V8F c30 = {0}, c31 = {0}, c40 = {0}, c41 = {0}, c50 = {0}, c51 = {0};
    for (int64_t k = 0; k < K; k++, wt += 16) {
        const int64_t o = roff[k];
        const V8F w0 = *(const V8F *)wt, w1 = *(const V8F *)(wt + 8);
        c00 = v8_fma(x0[o], w0, c00), c01 = v8_fma(x0[o], w1, c01);
        c10 = v8_fma(x1[o], w0, c10), c11 = v8_fma(x1[o], w1, c11);
        c20 = v8_fma(x2[o], w0, c20), c21 = v8_fma(x2[o], w1, c21);
        c30 = v8_fma(x3[o], w0, c30), c31 = v8_fma(x3[o], w1, c31);
        c40 = v8_fma(x4[o], w0, c40), c41 = v8_fma(x4[o], w1, c41);
        c50 = v8_fma(x5[o], w0, c50), c51 = v8_fma(x5[o], w1, c51);
    }
    acc[0][0] = c00, acc[0][1] = c01, acc[1][0] = c10, acc[1][1] = c11, acc[2][0] = c20, acc[2][1] = c21;
    acc[3][0] = c30, acc[3][1] = c31, acc[4][0] = c40, acc[4][1] = c41, acc[5][0] = c50, acc[5][1] = c51;
}

/* The same for twelve positions and eight channels (one vector), for
** layers of at most eight output channels. */
static inline __attribute__((always_inline)) void cv_12x8(int64_t K, const int64_t *roff, const float *xp,
                                                           const int64_t *base, const float *wt, V8F acc[12])
{
    const float *x0 = xp + base[0], *x1 = xp + base[1], *x2 = xp + base[2], *x3 = xp + base[3];
    const float *x4 = xp + base[4], *x5 = xp + base[5], *x6 = xp + base[6], *x7 = xp + base[7];
    const float *x8 = xp + base[8], *x9 = xp + base[9], *x10 = xp + base[10], *x11 = xp + base[11];
    V8F c0 = {0}, c1 = {0}, c2 = {0}, c3 = {0}, c4 = {0}, c5 = {0};
    V8F c6 = {0}, c7 = {0}, c8 = {0}, c9 = {0}, c10 = {0}, c11 = {0};
    for (int64_t k = 0; k < K; k++, wt += 8) {
        const int64_t o = roff[k];
        const V8F w = *(const V8F *)wt;
        c0 = v8_fma(x0[o], w, c0), c1 = v8_fma(x1[o], w, c1), c2 = v8_fma(x2[o], w, c2);
        c3 = v8_fma(x3[o], w, c3), c4 = v8_fma(x4[o], w, c4), c5 = v8_fma(x5[o], w, c5);
        c6 = v8_fma(x6[o], w, c6), c7 = v8_fma(x7[o], w, c7), c8 = v8_fma(x8[o], w, c8);
        c9 = v8_fma(x9[o], w, c9), c10 = v8_fma(x10[o], w, c10), c11 = v8_fma(x11[o], w, c11);
    }
    acc[0] = c0, acc[1] = c1, acc[2] = c2, acc[3] = c3, acc[4] = c4, acc[5] = c5;
    acc[6] = c6, acc[7] = c7, acc[8] = c8, acc[9] = c9, acc[10] = c10, acc[11] = c11;
}

typedef struct ConvCvJob {
    const ConvGeom *g;
    int64_t K, PH, PW;
    int64_t cb, nblk; /* nblk blocks of cb (8 or 16) output channels */
    const int64_t *roff, *base; /* K tap offsets; L_out position bases */
    const float *X, *wt, *bias; /* wt: per block [K, cb]; bias padded to cb nblk */
    float *O;
    atomic_int failed;
} ConvCvJob;

/* The zero-padded planes of nch input channels: [nch, PH, PW].  The
** padding is at the same places for every image: zeroed only when pads is
** set (a chunk's first image; xp is the chunk's own).  Rows copied eight
** floats at a time: they are 4 to 16 floats long, and a memcpy call a row
** cost more than the copy. */
__attribute__((target_clones("avx2", "default")))
static void cv_pad(const ConvGeom *g, int64_t nch, int64_t PH, int64_t PW, const float *x, float *xp, bool pads)
{
    const int64_t IH = g->in[1], IW = g->in[2], top = g->pad_lo[1], left = g->pad_lo[2];
    if (pads)
        memset(xp, 0, (size_t)(nch * PH * PW) * sizeof(float));
    for (int64_t c = 0; c < nch; c++)
        for (int64_t ih = 0; ih < IH; ih++) {
            float *dst = xp + (c * PH + top + ih) * PW + left;
            const float *src = x + (c * IH + ih) * IW;
            int64_t iw = 0;
            for (; iw + 8 <= IW; iw += 8)
                *(V8F *)(dst + iw) = *(const V8F *)(src + iw);
            for (; iw < IW; iw++)
                dst[iw] = src[iw];
        }
}

__attribute__((target_clones("arch=x86-64-v3", "default")))
static void cv_image(const ConvCvJob *j, const float *xp, float *o, int64_t cout_g, const float *wt, const float *bias)
{
    const int64_t L_out = prod3(j->g->out), cb = j->cb, pb = cb == 16 ? 6 : 12; /* positions per block */
    for (int64_t blk = 0; blk < j->nblk; blk++)
        for (int64_t p0 = 0; p0 < L_out; p0 += pb) {
            const int64_t np = L_out - p0 < pb ? L_out - p0 : pb;
            int64_t base[12];
            for (int p = 0; p < pb; p++) /* a short block repeats its last position */
                base[p] = j->base[p0 + (p < np ? p : np - 1)];
            V8F acc[12][2];
            if (cb == 16) {
                V8F a16[6][2];
                cv_6x16(j->K, j->roff, xp, base, wt + blk * j->K * 16, a16);
                memcpy(acc, a16, sizeof a16);
            } else {
                V8F a8[12];
                cv_12x8(j->K, j->roff, xp, base, wt + blk * j->K * 8, a8);
                for (int p = 0; p < 12; p++)
                    acc[p][0] = a8[p];
            }
            const int64_t nc = cout_g - blk * cb < cb ? cout_g - blk * cb : cb;
            for (int p = 0; p < np; p++) {
                float lanes[16];
                for (int v = 0; v < cb / 8; v++) {
                    V8F sum = acc[p][v];
                    if (bias)
                        sum += *(const V8F *)(bias + blk * cb + 8 * v);
                    *(V8F *)(lanes + 8 * v) = sum;
                }
                for (int64_t l = 0; l < nc; l++)
                    o[(blk * cb + l) * L_out + p0 + p] = lanes[l];
            }
        }
}

static void conv_cv_items(void *ctx, int64_t begin, int64_t end)
{
    ConvCvJob *j = ctx;
    const ConvGeom *g = j->g;
    const int64_t cin_g = g->cin / g->groups, cout_g = g->cout / g->groups, L_in = prod3(g->in), L_out = prod3(g->out);
    Storage *mem;
    float *xp = conv_scratch((size_t)(cin_g * j->PH * j->PW) * sizeof(float), &mem);
    if (!xp) {
        atomic_store(&j->failed, 1);
        return;
    }
    for (int64_t it = begin; it < end; it++) { /* it = n * groups + grp */
        const int64_t n = it / g->groups, grp = it % g->groups;
        cv_pad(g, cin_g, j->PH, j->PW, j->X + (n * g->cin + grp * cin_g) * L_in, xp, it == begin);
        cv_image(j, xp, j->O + (n * g->cout + grp * cout_g) * L_out, cout_g, j->wt + grp * j->nblk * j->K * j->cb,
                 j->bias ? j->bias + grp * j->nblk * j->cb : NULL);
    }
    storage_unref(mem);
}

/* The case of this path: float32, no depth, few output positions. */
static bool conv_cv_fits(const ConvGeom *g)
{
    const int64_t planes = g->cin / g->groups * (g->in[1] + g->pad_lo[1] + g->pad_hi[1]) *
                           (g->in[2] + g->pad_lo[2] + g->pad_hi[2]);
    return g->k[0] == 1 && g->in[0] == 1 && g->out[0] == 1 && prod3(g->out) <= CV_MAX_LOUT && planes <= CV_MAX_INPUT;
}

static EpStatus conv_cv(OpCall *c, const ConvGeom *g, const float *X, const float *W, const float *B, float *O)
{
    const int64_t cin_g = g->cin / g->groups, cout_g = g->cout / g->groups, KK = prod3(g->k);
    const int64_t L_out = prod3(g->out), cb = cout_g <= 8 ? 8 : 16, nblk = (cout_g + cb - 1) / cb;
    ConvCvJob j = {.g = g, .K = cin_g * KK, .cb = cb, .nblk = nblk, .X = X, .O = O};
    atomic_init(&j.failed, 0);
    j.PH = g->in[1] + g->pad_lo[1] + g->pad_hi[1];
    j.PW = g->in[2] + g->pad_lo[2] + g->pad_hi[2];
    int64_t *roff = malloc((size_t)(j.K + L_out) * sizeof(int64_t));
    float *wt = calloc((size_t)(g->groups * nblk * cb * (j.K + 1)), sizeof(float));
    if (!roff || !wt) {
        free(roff);
        free(wt);
        return op_fail(c, "out of memory for a convolution's %lldx%lld weight", (long long)j.K, (long long)cout_g);
    }
    int64_t *base = roff + j.K;
    for (int64_t ci = 0, k = 0; ci < cin_g; ci++)
        for (int64_t kh = 0; kh < g->k[1]; kh++)
            for (int64_t kw = 0; kw < g->k[2]; kw++, k++)
                roff[k] = (ci * j.PH + kh * g->dil[1]) * j.PW + kw * g->dil[2];
    for (int64_t oh = 0; oh < g->out[1]; oh++)
        for (int64_t ow = 0; ow < g->out[2]; ow++)
            base[oh * g->out[2] + ow] = oh * g->stride[1] * j.PW + ow * g->stride[2];
    /* wt[grp][blk][k][cb] = W[grp cout_g + blk cb + l][k], zeros past
    ** cout_g; then the bias, padded alike */
    float *bias = B ? wt + g->groups * nblk * cb * j.K : NULL;
    for (int64_t grp = 0; grp < g->groups; grp++)
        for (int64_t co = 0; co < cout_g; co++) {
            const float *wrow = W + (grp * cout_g + co) * j.K;
            float *dst = wt + ((grp * nblk + co / cb) * j.K) * cb + co % cb;
            for (int64_t k = 0; k < j.K; k++)
                dst[k * cb] = wrow[k];
            if (bias)
                bias[grp * nblk * cb + co] = B[grp * cout_g + co];
        }
    j.roff = roff, j.base = base, j.wt = wt, j.bias = bias;
    const int64_t work = nblk * cb * j.K * L_out;
    ep_parallel_for(g->n * g->groups, CONV_SG_CHUNK_WORK / (work > 0 ? work : 1) + 1, conv_cv_items, &j);
    free(roff);
    free(wt);
    if (atomic_load(&j.failed))
        return op_fail(c, "out of memory for %lld padded input planes", (long long)cin_g);
    return EP_OK;
}

static EpStatus conv_fast(OpCall *c, DType ct, const ConvGeom *g, const char *X, const char *W, const char *B,
                          char *O)
{
    const int64_t cin_g = g->cin / g->groups, cout_g = g->cout / g->groups, L_out = prod3(g->out);
    ConvJob j = {.g = g, .ct = ct, .pointwise = is_pointwise(g), .K = cin_g * prod3(g->k), .X = X, .W = W, .B = B,
                 .O = O};
    atomic_init(&j.failed, 0);
    if (ct == DT_F32 && cin_g == 1) {
        /* depthwise: a GEMM of K = kernel volume is mostly im2col; direct
        ** loops over whole planes read the input once */
        int64_t work = L_out * prod3(g->k);
        ep_parallel_for(g->n * g->cout, DW_CHUNK_WORK / (work > 0 ? work : 1) + 1, depthwise_items, &j);
        return EP_OK;
    }
    if (ct == DT_F32 && conv_cv_fits(g))
        return conv_cv(c, g, (const float *)X, (const float *)W, (const float *)B, (float *)O);
    if (ct == DT_F32 && conv_wino_fits(g, (const float *)X, (const float *)W))
        return conv_wino(c, g, (const float *)X, (const float *)W, (const float *)B, (float *)O);
    if (ct == DT_F32 && j.K <= CONV_SG_MAX_K)
        return conv_sg(c, g, (const float *)X, (const float *)W, (const float *)B, (float *)O);
    /* tiles of about equal width, at least CONV_TILE_MIN wide: BLAS packs
    ** the group's whole weight matrix again for every tile */
    int64_t want = j.K > 0 ? CONV_TILE_ELEMS / j.K : L_out;
    want = want < CONV_TILE_MIN ? CONV_TILE_MIN : want;
    j.ntiles = (L_out + want - 1) / want;
    j.tile = ((L_out + j.ntiles - 1) / j.ntiles + 15) / 16 * 16;
    j.tile = j.tile < L_out ? j.tile : L_out;
    j.ntiles = (L_out + j.tile - 1) / j.tile;
    const int64_t items = g->n * g->groups * j.ntiles;
    int64_t work = cout_g * j.tile * j.K;
    j.mparts = items < CONV_MIN_ITEMS ? (CONV_MIN_ITEMS + items - 1) / items : 1;
    j.mparts = j.mparts < cout_g / CONV_PART_ROWS ? j.mparts : cout_g / CONV_PART_ROWS;
    if (j.mparts > 1 && work >= 2 * CONV_CHUNK_WORK) {
        j.mrows = ((cout_g + j.mparts - 1) / j.mparts + CONV_PART_ROWS - 1) / CONV_PART_ROWS * CONV_PART_ROWS;
        j.mparts = (cout_g + j.mrows - 1) / j.mrows;
        if (!conv_parts(&j, items))
            return op_fail(c, "out of memory for %lld im2col tiles of %lldx%lld", (long long)items, (long long)j.K,
                           (long long)j.tile);
    } else {
        ep_parallel_for(items, CONV_CHUNK_WORK / (work > 0 ? work : 1) + 1, conv_items, &j);
    }
    if (atomic_load(&j.failed))
        return op_fail(c, "out of memory for a %lldx%lld im2col tile", (long long)j.K, (long long)j.tile);
    return EP_OK;
}

/* The transposed convolution with BLAS: per (image, group) a GEMM into
** cols, then col2im's scatter-add. */
static EpStatus convt_blas(OpCall *c, DType ct, const ConvGeom *g, const char *X, const char *W, const char *B,
                           char *O)
{
    const int es = dtype_size(ct);
    const int64_t cin_g = g->cin / g->groups, cout_g = g->cout / g->groups;
    const int64_t L_in = prod3(g->in), KK = prod3(g->k), L_out = prod3(g->out);
    EpStatus rc = EP_OK;
    /* transposed: cols = W_g^T @ x_g, then scatter-add cols into the output */
    char *cols = malloc((size_t)(cout_g * KK * L_in) * (size_t)es + 1);
    if (!cols)
        return op_fail(c, "out of memory for a %lldx%lld col2im buffer", (long long)(cout_g * KK), (long long)L_in);
    for (int64_t n = 0; n < g->n && rc == EP_OK; n++)
        for (int64_t grp = 0; grp < g->groups && rc == EP_OK; grp++) {
            const char *x = X + (n * g->cin + grp * cin_g) * L_in * es;
            char *o = O + (n * g->cout + grp * cout_g) * L_out * es;
            if (B)
                fill_bias(es, cout_g, L_out, L_out, B + grp * cout_g * es, o);
            else
                memset(o, 0, (size_t)(cout_g * L_out * es));
            NnMat mwt = {(void *)(W + grp * cin_g * cout_g * KK * es), 1, cout_g * KK};
            NnMat mx = {(void *)x, L_in, 1};
            NnMat mc = {cols, L_in, 1};
            rc = nn_gemm(true, ct, cout_g * KK, L_in, cin_g, 1, mwt, mx, 0, mc, c->err);
            if (rc)
                break;
            if (ct == DT_F32)
                col2im_f32(g, cout_g, (const float *)cols, (float *)o);
            else if (ct == DT_F64)
                col2im_f64(g, cout_g, (const double *)cols, (double *)o);
            else
                col2im_i64(g, cout_g, (const int64_t *)cols, (int64_t *)o);
        }
    free(cols);
    return rc;
}

/* ---- the operator core ----------------------------------------------------------------- */

/* Convolve batched x with w (and bias b, may be NULL) as p says; the result
** (new reference) in *out. */
static EpStatus conv_run(OpCall *c, Tensor *x, Tensor *w, Tensor *b, const ConvParams *p, Tensor **out)
{
    ConvGeom g;
    EpStatus rc = conv_geometry(c, x, w, b, p, &g);
    if (rc)
        return rc;
    if (x->dtype != w->dtype)
        return op_fail(c, "Input type (%s) and weight type (%s) should be the same", dtype_meta_name(x->dtype),
                       dtype_meta_name(w->dtype));
    if (b && b->dtype != x->dtype)
        return op_fail(c, "Input type (%s) and bias type (%s) should be the same", dtype_meta_name(x->dtype),
                       dtype_meta_name(b->dtype));
    if (x->dtype == DT_BOOL)
        return op_fail(c, "\"%s\" not implemented for 'Bool'", p->transposed ? "slow_conv_transpose" : "slow_conv2d_cpu");
    int64_t osz[5] = {g.n, g.cout};
    for (int i = 0; i < g.nsp; i++)
        osz[2 + i] = g.out[3 - g.nsp + i];
    const DType ct = nn_gemm_type(x->dtype);
    Tensor *X = tensor_as_contiguous_dtype(x, ct, c->err);
    Tensor *W = X ? tensor_as_contiguous_dtype(w, ct, c->err) : NULL;
    Tensor *B = W && b ? tensor_as_contiguous_dtype(b, ct, c->err) : NULL;
    Tensor *O = W && (B || !b) ? tensor_empty(ct, x->ndim, osz, c->err) : NULL;
    if (!O) {
        rc = c->err->code ? c->err->code : EP_ERR_EXEC;
        goto done;
    }
    if (tensor_numel(O) > 0) {
        const char *bp = B ? tensor_data(B) : NULL;
        if (c->cfg->use_blas)
            rc = (g.transposed ? convt_blas : conv_fast)(c, ct, &g, tensor_data(X), tensor_data(W), bp,
                                                         tensor_data(O));
        else
            conv_direct(ct, &g, tensor_data(X), tensor_data(W), bp, tensor_data(O));
    }
    if (rc == EP_OK) {
        *out = ct == x->dtype ? tensor_ref(O) : tensor_to_dtype(O, x->dtype, c->err);
        if (!*out)
            rc = c->err->code ? c->err->code : EP_ERR_EXEC;
    }
done:
    tensor_unref(X);
    tensor_unref(W);
    tensor_unref(B);
    tensor_unref(O);
    return rc;
}

/* One spatial parameter list: nsp values, or one value meaning all of them
** (expand_param_if_needed). */
static EpStatus conv_param(OpCall *c, int arg, const char *name, int nsp, int64_t *out)
{
    int64_t v[8];
    int n = arg_int_list(c, arg, v, 8);
    if (n == 1) {
        for (int i = 0; i < nsp; i++)
            out[i] = v[0];
        return EP_OK;
    }
    if (n != nsp) {
        char b1[128];
        return op_fail(c, "expected %s to be a single integer value or a list of %d values to match the convolution "
                       "dimensions, but got %s=[%s]", name, nsp, name, n > 0 ? list_str(n, v, ", ", b1, sizeof b1) : "");
    }
    for (int i = 0; i < nsp; i++)
        out[i] = v[i];
    return EP_OK;
}

/* Read stride / padding / dilation / output_padding argument indices for an
** operator of nsp spatial dims (any index < 0: not an argument). */
static EpStatus read_params(OpCall *c, int nsp, int a_stride, int a_pad, int a_dil, int a_opad, ConvParams *p)
{
    EpStatus rc;
    if ((rc = conv_param(c, a_stride, "stride", nsp, p->stride)) ||
        (a_pad >= 0 && (rc = conv_param(c, a_pad, "padding", nsp, p->pad_lo))) ||
        (rc = conv_param(c, a_dil, "dilation", nsp, p->dil)))
        return rc;
    if (a_pad >= 0)
        memcpy(p->pad_hi, p->pad_lo, sizeof p->pad_hi);
    if (a_opad >= 0)
        return conv_param(c, a_opad, "output_padding", nsp, p->opad);
    memset(p->opad, 0, sizeof p->opad);
    return EP_OK;
}

/* convolution(input, weight, bias, stride, padding, dilation, transposed,
** output_padding, groups) and _convolution (same first nine arguments; the
** backend hints after them do not change the result). */
EpStatus k_convolution(OpCall *c)
{
    Tensor *x = arg_tensor(c, 0), *w = arg_tensor(c, 1), *b = arg_tensor(c, 2);
    ConvParams p = {.transposed = arg_bool(c, 6), .groups = arg_int(c, 8)};
    int nsp = w->ndim - 2;
    if (nsp < 1 || nsp > 3)
        return op_fail(c, "weight should have at least three dimensions");
    EpStatus rc = read_params(c, nsp, 3, 4, 5, 7, &p);
    if (rc)
        return rc;
    Tensor *out = NULL;
    rc = conv_run(c, x, w, b, &p, &out);
    return rc ? rc : nn_out(c, 0, out);
}

/* Batch an unbatched input (one dim short of the weight) for conv1d / 2d / 3d
** and the transposed ones, run, and drop the batch dim again. */
static EpStatus conv_batchify(OpCall *c, const char *name, int nsp, const ConvParams *p)
{
    Tensor *x = arg_tensor(c, 0), *w = arg_tensor(c, 1), *b = arg_tensor(c, 2);
    if (x->ndim != nsp + 1 && x->ndim != nsp + 2)
        return op_fail(c, "Expected %dD (unbatched) or %dD (batched) input to %s, but got input of size: %s", nsp + 1,
                       nsp + 2, name, nn_shape(x));
    bool unbatched = x->ndim == nsp + 1;
    Tensor *xb = unbatched ? nn_unsqueeze(c, x, 0) : tensor_ref(x);
    if (!xb)
        return c->err->code;
    Tensor *out = NULL;
    EpStatus rc = conv_run(c, xb, w, b, p, &out);
    tensor_unref(xb);
    if (rc)
        return rc;
    if (unbatched) {
        Tensor *sq = nn_squeeze(c, out, 0);
        tensor_unref(out);
        out = sq;
    }
    return nn_out(c, 0, out);
}

static int conv_rank(OpId id)
{
    switch (id) {
    case OP_CONV1D: case OP_CONV1D_PADDING: case OP_CONV_TRANSPOSE1D: return 1;
    case OP_CONV2D: case OP_CONV2D_PADDING: case OP_CONV_TRANSPOSE2D: return 2;
    default: return 3;
    }
}

/* conv1d / conv2d / conv3d (input, weight, bias, stride, padding, dilation,
** groups); the .padding overloads take padding as 'valid' or 'same'. */
EpStatus k_conv_nd(OpCall *c)
{
    static const char *names[] = {"", "conv1d", "conv2d", "conv3d"};
    const int nsp = conv_rank(c->op->id);
    ConvParams p = {.transposed = false, .groups = arg_int(c, 6)};
    /* the overload decides: .padding has str padding, .default int[] */
    const char *pad_str = c->op->schema->args[4].type == ST_STR ? arg_str(c, 4) : NULL;
    EpStatus rc = read_params(c, nsp, 3, pad_str ? -1 : 4, 5, -1, &p);
    if (rc)
        return rc;
    if (pad_str) {
        Tensor *w = arg_tensor(c, 1);
        if (strcmp(pad_str, "valid") == 0) {
            memset(p.pad_lo, 0, sizeof p.pad_lo);
            memset(p.pad_hi, 0, sizeof p.pad_hi);
        } else if (strcmp(pad_str, "same") == 0) {
            for (int i = 0; i < nsp; i++)
                if (p.stride[i] != 1)
                    return op_fail(c, "padding='same' is not supported for strided convolutions");
            if (w->ndim != nsp + 2)
                return op_fail(c, "Expected %d-dimensional weight for %s, but got %d-dimensional weight of size %s",
                               nsp + 2, names[nsp], w->ndim, nn_shape(w));
            /* total padding d*(k-1), the odd unit on the right: PyTorch pads
            ** the input asymmetrically (constant_pad_nd) for that case */
            for (int i = 0; i < nsp; i++) {
                int64_t total = p.dil[i] * (w->sizes[2 + i] - 1);
                p.pad_lo[i] = total / 2;
                p.pad_hi[i] = total - total / 2;
            }
        } else {
            return op_fail(c, "Invalid padding string: '%s'", pad_str);
        }
    }
    return conv_batchify(c, names[nsp], nsp, &p);
}

/* conv_transpose1d / 2d / 3d (input, weight, bias, stride, padding,
** output_padding, groups, dilation). */
EpStatus k_conv_transpose_nd(OpCall *c)
{
    static const char *names[] = {"", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"};
    const int nsp = conv_rank(c->op->id);
    ConvParams p = {.transposed = true, .groups = arg_int(c, 6)};
    EpStatus rc = read_params(c, nsp, 3, 4, 7, 5, &p);
    if (rc)
        return rc;
    return conv_batchify(c, names[nsp], nsp, &p);
}
