/*
** nn_pool.c -- max, average and adaptive pooling over 1 to 3 spatial dims:
** max_pool1d/2d/3d (+ _with_indices), avg_pool1d/2d/3d,
** adaptive_avg_pool1d/2d/3d (+ the _adaptive_ forms), adaptive_max_pool1d/
** 2d/3d.
**
** Every input is viewed as planes x D x H x W (planes = all leading dims;
** a 2-D pool has D = 1).  Floating inputs are computed in double and
** rounded once, except float32 (and float16, bfloat16) max pooling, which
** runs in float32 with its planes over the worker pool, a 2-D window eight
** outputs of a row at a time (a max only picks a value: the same bits; the
** double loop stays the reference, `--no-blas`); integer inputs (max pooling, and avg pooling of int64, as
** modern PyTorch allows) in int64.  float16 goes the same way as bfloat16
** (PyTorch 1.13 had no float16 pooling on CPU; modern PyTorch does it in
** float32).  Indices are flat positions in one input plane (h * W + w, or
** (d * H + h) * W + w), the convention PyTorch's max_unpool expects.
*/
#include "nn.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/ops.h"
#include "interp/parallel.h"

typedef struct PoolGeom {
    int nsp;                       /* spatial dims of the operator */
    int64_t planes;                /* product of the non-spatial dims */
    int64_t in[3], out[3];         /* right-aligned D, H, W */
    int64_t k[3], stride[3], pad[3], dil[3];
    bool ceil_mode;
} PoolGeom;

static int64_t prod3(const int64_t *v) { return v[0] * v[1] * v[2]; }

/* floor division (div_rtn) for the output size formula */
static int64_t div_floor(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* pooling_output_shape of Pool.h, with its checks. */
static EpStatus pool_out_size(OpCall *c, int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil,
                              bool ceil_mode, int64_t *out)
{
    if (stride == 0)
        return op_fail(c, "stride should not be zero");
    if (pad < 0)
        return op_fail(c, "pad must be non-negative, but got pad: %lld", (long long)pad);
    if (pad > ((k - 1) * dil + 1) / 2)
        return op_fail(c, "pad should be at most half of effective kernel size, but got pad=%lld, kernel_size=%lld "
                       "and dilation=%lld", (long long)pad, (long long)k, (long long)dil);
    int64_t o = div_floor(in + 2 * pad - dil * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0), stride) + 1;
    /* ceil mode: the last window must start inside the input or left pad */
    if (ceil_mode && (o - 1) * stride >= in + pad)
        o--;
    *out = o;
    return EP_OK;
}

/* Check the input's rank (nsp+1 or nsp+2 dims) and fill the plane/input
** part of g. */
static EpStatus pool_input(OpCall *c, const char *name, const Tensor *x, int nsp, PoolGeom *g)
{
    if (x->ndim != nsp + 1 && x->ndim != nsp + 2)
        return op_fail(c, "%s: non-empty %dD or %dD (batch mode) tensor expected for input, but got %s", name,
                       nsp + 1, nsp + 2, nn_shape(x));
    for (int i = x->ndim - nsp - 1; i < x->ndim; i++)
        if (x->sizes[i] == 0)
            return op_fail(c, "%s: Expected %dD or %dD (batch mode) tensor with optional 0 dim batch size for "
                           "input, but got: %s", name, nsp + 1, nsp + 2, nn_shape(x));
    g->nsp = nsp;
    g->planes = 1;
    for (int i = 0; i < x->ndim - nsp; i++)
        g->planes *= x->sizes[i];
    for (int i = 0; i < 3; i++) {
        int d = i - (3 - nsp);
        g->in[i] = d >= 0 ? x->sizes[x->ndim - nsp + d] : 1;
        g->out[i] = 1;
        g->k[i] = g->stride[i] = g->dil[i] = 1;
        g->pad[i] = 0;
    }
    return EP_OK;
}

/* Read kernel_size / stride / padding / dilation (dilation arg < 0: 1) and
** compute the output sizes.  An empty stride means the kernel size. */
static EpStatus pool_window(OpCall *c, const char *name, int a_k, int a_s, int a_p, int a_d, PoolGeom *g)
{
    const int nsp = g->nsp;
    int64_t k[3], s[3], p[3], d[3] = {1, 1, 1};
    int nk = arg_int_list(c, a_k, k, 3), ns = arg_int_list(c, a_s, s, 3), np = arg_int_list(c, a_p, p, 3);
    int nd = a_d >= 0 ? arg_int_list(c, a_d, d, 3) : 1;
    if (nk != 1 && nk != nsp)
        return op_fail(c, "%s: kernel_size must either be a single int, or a tuple of %d ints", name, nsp);
    if (ns > 1 && ns != nsp)
        return op_fail(c, "%s: stride must either be omitted, a single int, or a tuple of %d ints", name, nsp);
    if (np != 1 && np != nsp)
        return op_fail(c, "%s: padding must either be a single int, or a tuple of %d ints", name, nsp);
    if (nd != 1 && nd != nsp)
        return op_fail(c, "%s: dilation must be either a single int, or a tuple of %d ints", name, nsp);
    for (int i = 0; i < nsp; i++) {
        int j = 3 - nsp + i;
        g->k[j] = k[nk == 1 ? 0 : i];
        g->stride[j] = ns <= 0 ? g->k[j] : s[ns == 1 ? 0 : i];
        g->pad[j] = p[np == 1 ? 0 : i];
        g->dil[j] = d[nd == 1 ? 0 : i];
    }
    for (int j = 3 - nsp; j < 3; j++) {
        EpStatus rc = pool_out_size(c, g->in[j], g->k[j], g->pad[j], g->stride[j], g->dil[j], g->ceil_mode, &g->out[j]);
        if (rc)
            return rc;
    }
    for (int j = 3 - nsp; j < 3; j++) {
        if (g->k[j] <= 0)
            return op_fail(c, "kernel size should be greater than zero, but got %lld", (long long)g->k[j]);
        if (g->stride[j] <= 0)
            return op_fail(c, "stride should be greater than zero, but got %lld", (long long)g->stride[j]);
        if (g->dil[j] <= 0)
            return op_fail(c, "dilation should be greater than zero, but got %lld", (long long)g->dil[j]);
        if (g->pad[j] > g->k[j] / 2)
            return op_fail(c, "pad should be smaller than or equal to half of kernel size, but got pad = %lld, "
                           "kernel size = %lld", (long long)g->pad[j], (long long)g->k[j]);
    }
    for (int j = 3 - nsp; j < 3; j++)
        if (g->out[j] < 1) {
            char b1[64], b2[64];
            return op_fail(c, "Given input size: (%s). Calculated output size: (%s). Output size is too small",
                           shape_str(nsp, g->in + 3 - nsp, b1, sizeof b1), shape_str(nsp, g->out + 3 - nsp, b2, sizeof b2));
        }
    return EP_OK;
}

/* Output shape: the input's leading dims, then the pooled spatial sizes. */
static void out_shape(const Tensor *x, const PoolGeom *g, int64_t *sz)
{
    for (int i = 0; i < x->ndim - g->nsp; i++)
        sz[i] = x->sizes[i];
    for (int i = 0; i < g->nsp; i++)
        sz[x->ndim - g->nsp + i] = g->out[3 - g->nsp + i];
}

/* Compute type of a pooling input: double for floats, int64 for integers
** (which only the ops that allow them reach). */
static DType pool_type(DType t) { return dtype_is_float(t) ? DT_F64 : DT_I64; }

/* Planes per pool chunk for about 32k window reads per chunk. */
static int64_t pool_grain(const PoolGeom *g)
{
    int64_t work = prod3(g->out) * prod3(g->k);
    return work >= 32768 ? 1 : 32768 / (work > 0 ? work : 1);
}

/* ---- max pooling ------------------------------------------------------------------- */

/* The first in-range position of a window along one dim (skipping the left
** padding in dilation steps) and its end. */
static void window(int64_t o, int64_t stride, int64_t pad, int64_t k, int64_t dil, int64_t in, int64_t *lo,
                   int64_t *hi)
{
    int64_t s = o * stride - pad;
    int64_t e = s + (k - 1) * dil + 1;
    if (e > in)
        e = in;
    while (s < 0)
        s += dil;
    *lo = s;
    *hi = e;
}

/* Max over each window; a NaN always wins (so the last NaN's index is
** kept), and ties keep the first index, as PyTorch's CPU kernel. */
#define MAX_POOL(NAME, T, LOWEST, ISNAN)                                                              \
    static void NAME(const PoolGeom *g, const T *x, T *out, int64_t *ind, int64_t p0, int64_t p1) \
    {                                                                                              \
        const int64_t Lin = prod3(g->in), Lout = prod3(g->out);                                    \
        for (int64_t pl = p0; pl < p1; pl++) {                                                     \
            const T *xp = x + pl * Lin;                                                            \
            for (int64_t od = 0; od < g->out[0]; od++) {                                           \
                int64_t d0, d1;                                                                    \
                window(od, g->stride[0], g->pad[0], g->k[0], g->dil[0], g->in[0], &d0, &d1);       \
                for (int64_t oh = 0; oh < g->out[1]; oh++) {                                       \
                    int64_t h0, h1;                                                                \
                    window(oh, g->stride[1], g->pad[1], g->k[1], g->dil[1], g->in[1], &h0, &h1);   \
                    for (int64_t ow = 0; ow < g->out[2]; ow++) {                                   \
                        int64_t w0, w1;                                                            \
                        window(ow, g->stride[2], g->pad[2], g->k[2], g->dil[2], g->in[2], &w0, &w1); \
                        int64_t best = (d0 * g->in[1] + h0) * g->in[2] + w0;                       \
                        T m = LOWEST;                                                              \
                        for (int64_t id = d0; id < d1; id += g->dil[0])                            \
                            for (int64_t ih = h0; ih < h1; ih += g->dil[1])                        \
                                for (int64_t iw = w0; iw < w1; iw += g->dil[2]) {                  \
                                    int64_t idx = (id * g->in[1] + ih) * g->in[2] + iw;            \
                                    T v = xp[idx];                                                 \
                                    if (v > m || ISNAN(v)) {                                       \
                                        m = v;                                                     \
                                        best = idx;                                                \
                                    }                                                              \
                                }                                                                  \
                        int64_t o = pl * Lout + (od * g->out[1] + oh) * g->out[2] + ow;            \
                        out[o] = m;                                                                \
                        if (ind)                                                                   \
                            ind[o] = best;                                                         \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }

#define NOT_NAN(v) ((void)(v), false)
MAX_POOL(max_pool_f64, double, -INFINITY, isnan)
MAX_POOL(max_pool_i64, int64_t, INT64_MIN, NOT_NAN)
MAX_POOL(max_pool_f32, float, -INFINITY, isnan)

/* The fast path of float32: the same loop in the input's own type (a max
** only picks a value, so nothing rounds), planes spread over the pool. */
typedef struct MaxPoolJob {
    const PoolGeom *g;
    const float *x;
    float *out;
    int64_t *ind;
} MaxPoolJob;

/* A 2-D window (depth 1, no dilation) on a plane whose flat indices fit in
** int32: the case of the vector loop below. */
static bool max_pool_2d_plain(const PoolGeom *g)
{
    return g->in[0] == 1 && g->k[0] == 1 && g->out[0] == 1 && g->dil[1] == 1 && g->dil[2] == 1 &&
           prod3(g->in) < INT32_MAX - 64;
}

typedef float PV8f __attribute__((vector_size(32)));
typedef int32_t PV8i __attribute__((vector_size(32)));
#define PV_LANES 8

/* The row phases of one input plane for a row stride sw: phase r of input
** row ih holds the padded row's columns r, r + sw, r + 2 sw, ..., so the
** window column kw of eight consecutive outputs is eight consecutive
** floats of phase kw % sw.  Columns in the padding (or past the input, in
** ceil mode) hold -inf, which never wins: the max takes a value only when
** it is greater, or NaN. */
static void max_pool_phases(const PoolGeom *g, const float *x, int64_t plen, float *ph)
{
    const int64_t IW = g->in[2], sw = g->stride[2], pad = g->pad[2];
    for (int64_t ih = 0; ih < g->in[1]; ih++)
        for (int64_t r = 0; r < sw; r++) {
            float *dst = ph + (ih * sw + r) * plen;
            for (int64_t j = 0; j < plen; j++) {
                int64_t iw = j * sw + r - pad;
                dst[j] = iw >= 0 && iw < IW ? x[ih * IW + iw] : -INFINITY;
            }
        }
}

/* One plane of a 2-D float32 max pool, eight outputs of a row at a time.
** Each output visits its window in the reference's order (rows, then
** columns) with the reference's rule (greater, or NaN, replaces), so
** values and indices are the reference's bits: the lanes only run eight
** outputs side by side. */
__attribute__((target_clones("avx2", "default")))
static void max_pool_plane_2d(const PoolGeom *g, const float *ph, int64_t plen, float *out, int64_t *ind)
{
    const int64_t IW = g->in[2], OW = g->out[2], sw = g->stride[2], pad = g->pad[2], KW = g->k[2];
    const PV8i iota = {0, 1, 2, 3, 4, 5, 6, 7};
    for (int64_t oh = 0; oh < g->out[1]; oh++) {
        int64_t h0, h1;
        window(oh, g->stride[1], g->pad[1], g->k[1], 1, g->in[1], &h0, &h1);
        for (int64_t ob = 0; ob < OW; ob += PV_LANES) {
            PV8f m = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY};
            PV8i best; /* the first in-range position of each window, as the reference starts */
            for (int l = 0; l < PV_LANES; l++) {
                int64_t w0 = (ob + l) * sw - pad;
                best[l] = (int32_t)(h0 * IW + (w0 > 0 ? w0 : 0));
            }
            for (int64_t ih = h0; ih < h1; ih++)
                for (int64_t kw = 0; kw < KW; kw++) {
                    PV8f v; /* an unaligned load */
                    memcpy(&v, ph + (ih * sw + kw % sw) * plen + ob + kw / sw, sizeof v);
                    PV8i take = (v > m) | (v != v);
                    m = (PV8f)(((PV8i)v & take) | ((PV8i)m & ~take));
                    PV8i at = iota * (int32_t)sw + (int32_t)(ih * IW + ob * sw + kw - pad);
                    best = (at & take) | (best & ~take);
                }
            const int64_t n = OW - ob < PV_LANES ? OW - ob : PV_LANES;
            for (int64_t l = 0; l < n; l++) {
                out[oh * OW + ob + l] = m[l];
                if (ind)
                    ind[oh * OW + ob + l] = best[l];
            }
        }
    }
}

static void max_pool_f32_chunk(void *ctx, int64_t begin, int64_t end)
{
    MaxPoolJob *j = ctx;
    const PoolGeom *g = j->g;
    if (!max_pool_2d_plain(g)) {
        max_pool_f32(g, j->x, j->out, j->ind, begin, end);
        return;
    }
    /* phases long enough for the last block of eight outputs' last column */
    const int64_t OWr = (g->out[2] + PV_LANES - 1) / PV_LANES * PV_LANES;
    const int64_t plen = OWr + (g->k[2] - 1) / g->stride[2] + 1;
    float *ph = malloc((size_t)(g->in[1] * g->stride[2] * plen) * sizeof(float));
    if (!ph) { /* no room for the phases: the plain loop needs none */
        max_pool_f32(g, j->x, j->out, j->ind, begin, end);
        return;
    }
    const int64_t Lin = prod3(g->in), Lout = prod3(g->out);
    for (int64_t pl = begin; pl < end; pl++) {
        max_pool_phases(g, j->x + pl * Lin, plen, ph);
        max_pool_plane_2d(g, ph, plen, j->out + pl * Lout, j->ind ? j->ind + pl * Lout : NULL);
    }
    free(ph);
}

/* The end of the max and adaptive pools: values (stolen; NULL after a
** failure reported in c->err) as output 0 and, for the ops that return
** them, indices (stolen) as output 1. */
static EpStatus pool_outputs(OpCall *c, Tensor *values, Tensor *indices, bool want_ind)
{
    if (!values) {
        tensor_unref(indices);
        return c->err->code ? c->err->code : EP_ERR_EXEC;
    }
    out_tensor(c, 0, values);
    if (want_ind)
        out_tensor(c, 1, indices);
    return EP_OK;
}

/* Run a max pool on x with geometry g: values (and indices if want_ind). */
static EpStatus max_pool_run(OpCall *c, Tensor *x, const PoolGeom *g, bool want_ind)
{
    int64_t sz[EP_MAX_DIMS];
    out_shape(x, g, sz);
    /* float16 and bfloat16 widen to float32 exactly and a max only picks
    ** one of the values, so they take the float32 loop too */
    const bool f32_ok = x->dtype == DT_F32 || x->dtype == DT_F16 || x->dtype == DT_BF16;
    const DType ct = f32_ok && c->cfg->use_blas ? DT_F32 : pool_type(x->dtype);
    Tensor *X = tensor_as_contiguous_dtype(x, ct, c->err);
    Tensor *O = X ? tensor_empty(ct, x->ndim, sz, c->err) : NULL;
    Tensor *I = O && want_ind ? tensor_empty(DT_I64, x->ndim, sz, c->err) : NULL;
    Tensor *res = NULL;
    if (O && (I || !want_ind)) {
        int64_t *ip = I ? tensor_data(I) : NULL;
        if (ct == DT_F32) {
            MaxPoolJob j = {g, tensor_data(X), tensor_data(O), ip};
            ep_parallel_for(g->planes, pool_grain(g), max_pool_f32_chunk, &j);
        } else if (ct == DT_F64) {
            max_pool_f64(g, tensor_data(X), tensor_data(O), ip, 0, g->planes);
        } else {
            max_pool_i64(g, tensor_data(X), tensor_data(O), ip, 0, g->planes);
        }
        res = ct == x->dtype ? tensor_ref(O) : tensor_to_dtype(O, x->dtype, c->err);
    }
    tensor_unref(X);
    tensor_unref(O);
    return pool_outputs(c, res, I, want_ind);
}

static int op_rank(OpId id)
{
    switch (id) {
    case OP_MAX_POOL1D: case OP_MAX_POOL1D_WITH_INDICES: case OP_AVG_POOL1D: case OP_ADAPTIVE_AVG_POOL1D:
    case OP_ADAPTIVE_MAX_POOL1D:
        return 1;
    case OP_MAX_POOL3D: case OP_MAX_POOL3D_WITH_INDICES: case OP_AVG_POOL3D: case OP_ADAPTIVE_AVG_POOL3D:
    case OP_ADAPTIVE_AVG_POOL3D_PRIV: case OP_ADAPTIVE_MAX_POOL3D:
        return 3;
    default:
        return 2;
    }
}

static const char *rank_name(const char *base, int nsp, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s%dd", base, nsp);
    return buf;
}

/* max_pool1d/2d/3d(self, kernel_size, stride=[], padding=0, dilation=1,
** ceil_mode=False) and the _with_indices forms (values, int64 indices). */
EpStatus k_max_pool(OpCall *c)
{
    Tensor *x = arg_tensor(c, 0);
    const int nsp = op_rank(c->op->id);
    bool want_ind = c->op->schema->nrets == 2;
    char name[32];
    rank_name("max_pool", nsp, name, sizeof name);
    if (x->dtype == DT_BOOL)
        return op_fail(c, "\"%s\" not implemented for 'Bool'", name);
    PoolGeom g = {.ceil_mode = arg_bool(c, 5)};
    EpStatus rc = pool_input(c, name, x, nsp, &g);
    if (rc || (rc = pool_window(c, name, 1, 2, 3, 4, &g)))
        return rc;
    return max_pool_run(c, x, &g, want_ind);
}

/* ---- average pooling ----------------------------------------------------------------- */

/* Mean over each window of planes [p0, p1): the divisor counts the
** padding when count_include_pad (but not the part of a ceil-mode window
** past the padding), or is divisor_override when given.  Reads TI, sums in
** ACC in window order, divides in CT and stores TO: as AvgPoolKernel.cpp,
** whose sum is PyTorch's opmath (float for float32, float16 and bfloat16,
** which take the float instance; double for float64). */
#define AVG_POOL(NAME, TI, TO, ACC, CT, DIVIDE)                                                                 \
    static void NAME(const PoolGeom *g, const TI *x, TO *out, bool include_pad, int64_t divisor, int64_t p0,  \
                     int64_t p1)                                                                              \
    {                                                                                                         \
        const int64_t Lin = prod3(g->in), Lout = prod3(g->out);                                               \
        for (int64_t pl = p0; pl < p1; pl++)                                                                  \
            for (int64_t od = 0; od < g->out[0]; od++)                                                        \
                for (int64_t oh = 0; oh < g->out[1]; oh++)                                                    \
                    for (int64_t ow = 0; ow < g->out[2]; ow++) {                                              \
                        int64_t lo[3], hi[3], o3[3] = {od, oh, ow}, pool = 1, count = 1;                      \
                        for (int i = 0; i < 3; i++) {                                                         \
                            lo[i] = o3[i] * g->stride[i] - g->pad[i];                                         \
                            hi[i] = lo[i] + g->k[i];                                                          \
                            if (hi[i] > g->in[i] + g->pad[i])                                                 \
                                hi[i] = g->in[i] + g->pad[i];                                                 \
                            pool *= hi[i] - lo[i];                                                            \
                            if (lo[i] < 0)                                                                    \
                                lo[i] = 0;                                                                    \
                            if (hi[i] > g->in[i])                                                             \
                                hi[i] = g->in[i];                                                             \
                            count *= hi[i] > lo[i] ? hi[i] - lo[i] : 0;                                       \
                        }                                                                                     \
                        TO *dst = out + pl * Lout + (od * g->out[1] + oh) * g->out[2] + ow;                   \
                        if (count == 0) {                                                                     \
                            *dst = 0;                                                                         \
                            continue;                                                                         \
                        }                                                                                     \
                        ACC sum = 0;                                                                          \
                        const TI *xp = x + pl * Lin;                                                          \
                        for (int64_t id = lo[0]; id < hi[0]; id++)                                            \
                            for (int64_t ih = lo[1]; ih < hi[1]; ih++)                                        \
                                for (int64_t iw = lo[2]; iw < hi[2]; iw++)                                    \
                                    sum += (ACC)xp[(id * g->in[1] + ih) * g->in[2] + iw];                     \
                        int64_t div = divisor > 0 ? divisor : include_pad ? pool : count;                     \
                        *dst = (TO)DIVIDE((CT)sum, div);                                                      \
                    }                                                                                         \
    }

/* C++ integer division truncates; only INT64_MIN / -1 needs care */
static int64_t int_div(int64_t a, int64_t b) { return b == -1 ? (int64_t)(0 - (uint64_t)a) : a / b; }
#define FLOAT_DIV(a, b) ((a) / (double)(b))
#define FLOAT32_DIV(a, b) ((a) / (float)(b))

AVG_POOL(avg_pool_f64, double, double, double, double, FLOAT_DIV)
AVG_POOL(avg_pool_i64, int64_t, int64_t, uint64_t, int64_t, int_div)
/* float32 (and float16 / bfloat16, widened): summed and divided in float;
** the reference path runs it on one thread, the fast path by planes over
** the pool (avg_pool2d_f32 for 1-d and 2-d windows) */
AVG_POOL(avg_pool_f32, float, float, float, float, FLOAT32_DIV)

typedef struct AvgPoolJob {
    const PoolGeom *g;
    const float *x;
    float *out;
    bool include_pad;
    int64_t divisor;
} AvgPoolJob;

/* One dim's window of output position o: [*lo, *hi) clamped to the input,
** *pool its length counting padding (not past it), *count its length
** inside the input; as AVG_POOL computes them. */
static void avg_window(const PoolGeom *g, int i, int64_t o, int64_t *lo, int64_t *hi, int64_t *pool, int64_t *count)
{
    int64_t l = o * g->stride[i] - g->pad[i], h = l + g->k[i];
    if (h > g->in[i] + g->pad[i])
        h = g->in[i] + g->pad[i];
    *pool = h - l;
    if (l < 0)
        l = 0;
    if (h > g->in[i])
        h = g->in[i];
    *count = h > l ? h - l : 0;
    *lo = l;
    *hi = h;
}

/* avg_pool_f32 for one or two spatial dims (depth 1): each row's and
** column's window found once, not per output element; the same sums in
** the same order, the same divisors. */
static void avg_pool2d_f32(const AvgPoolJob *j, int64_t p0, int64_t p1, int64_t *wtab)
{
    const PoolGeom *g = j->g;
    const int64_t H = g->in[1], W = g->in[2], OH = g->out[1], OW = g->out[2];
    int64_t *wlo = wtab, *whi = wtab + OW, *wpool = wtab + 2 * OW, *wcount = wtab + 3 * OW;
    for (int64_t ow = 0; ow < OW; ow++)
        avg_window(g, 2, ow, &wlo[ow], &whi[ow], &wpool[ow], &wcount[ow]);
    for (int64_t pl = p0; pl < p1; pl++) {
        const float *xp = j->x + pl * H * W;
        float *dst = j->out + pl * OH * OW;
        for (int64_t oh = 0; oh < OH; oh++, dst += OW) {
            int64_t hlo, hhi, hpool, hcount;
            avg_window(g, 1, oh, &hlo, &hhi, &hpool, &hcount);
            for (int64_t ow = 0; ow < OW; ow++) {
                int64_t count = hcount * wcount[ow];
                if (count == 0) {
                    dst[ow] = 0;
                    continue;
                }
                float sum = 0;
                for (int64_t ih = hlo; ih < hhi; ih++)
                    for (int64_t iw = wlo[ow]; iw < whi[ow]; iw++)
                        sum += xp[ih * W + iw];
                int64_t div = j->divisor > 0 ? j->divisor : j->include_pad ? hpool * wpool[ow] : count;
                dst[ow] = sum / (float)div;
            }
        }
    }
}

static void avg_pool_f32_chunk(void *ctx, int64_t begin, int64_t end)
{
    const AvgPoolJob *j = ctx;
    const PoolGeom *g = j->g;
    if (g->in[0] == 1 && g->out[0] == 1 && g->k[0] == 1 && g->pad[0] == 0) {
        int64_t *wtab = malloc((size_t)(4 * g->out[2]) * sizeof *wtab);
        if (wtab) { /* else the general loop, which needs no table */
            avg_pool2d_f32(j, begin, end, wtab);
            free(wtab);
            return;
        }
    }
    avg_pool_f32(j->g, j->x, j->out, j->include_pad, j->divisor, begin, end);
}

/* avg_pool1d(self, kernel_size, stride, padding, ceil_mode,
** count_include_pad) and avg_pool2d / 3d(..., divisor_override). */
EpStatus k_avg_pool(OpCall *c)
{
    Tensor *x = arg_tensor(c, 0);
    const int nsp = op_rank(c->op->id);
    char name[32];
    rank_name("avg_pool", nsp, name, sizeof name);
    if (!dtype_is_float(x->dtype) && x->dtype != DT_I64)
        return op_fail(c, "\"%s\" not implemented for '%s'", name, dtype_c10_name(x->dtype));
    PoolGeom g = {.ceil_mode = arg_bool(c, 4)};
    bool include_pad = arg_bool(c, 5);
    int64_t divisor = 0;
    if (nsp > 1 && !arg_is_none(c, 6)) {
        divisor = arg_int(c, 6);
        if (divisor == 0)
            return op_fail(c, "divisor must be not zero");
    }
    EpStatus rc = pool_input(c, name, x, nsp, &g);
    if (rc || (rc = pool_window(c, name, 1, 2, 3, -1, &g)))
        return rc;
    int64_t sz[EP_MAX_DIMS];
    out_shape(x, &g, sz);
    const DType ct = dtype_is_float(x->dtype) && x->dtype != DT_F64 ? DT_F32 : pool_type(x->dtype);
    Tensor *X = tensor_as_contiguous_dtype(x, ct, c->err);
    Tensor *O = X ? tensor_empty(ct, x->ndim, sz, c->err) : NULL;
    Tensor *res = NULL;
    if (O) {
        if (ct == DT_F32 && c->cfg->use_blas) {
            AvgPoolJob j = {&g, tensor_data(X), tensor_data(O), include_pad, divisor};
            ep_parallel_for(g.planes, pool_grain(&g), avg_pool_f32_chunk, &j);
        } else if (ct == DT_F32) {
            avg_pool_f32(&g, tensor_data(X), tensor_data(O), include_pad, divisor, 0, g.planes);
        } else if (ct == DT_F64) {
            avg_pool_f64(&g, tensor_data(X), tensor_data(O), include_pad, divisor, 0, g.planes);
        } else {
            avg_pool_i64(&g, tensor_data(X), tensor_data(O), include_pad, divisor, 0, g.planes);
        }
        res = ct == x->dtype ? tensor_ref(O) : tensor_to_dtype(O, x->dtype, c->err);
    }
    tensor_unref(X);
    tensor_unref(O);
    return nn_out(c, 0, res);
}

/* ---- adaptive pooling ------------------------------------------------------------------ */

/* Window [start, end) of output o of `out` over `in`: floor(o*in/out) to
** ceil((o+1)*in/out), in integer arithmetic as AdaptivePooling.h. */
static int64_t ad_start(int64_t o, int64_t out, int64_t in) { return (o / out) * in + ((o % out) * in) / out; }
static int64_t ad_end(int64_t o, int64_t out, int64_t in) { return 1 + ((o + 1) * in - 1) / out; }

/* Mean over each adaptive window of planes [p0, p1) as AdaptiveAvgPoolKernel.cpp
** computes it: summed in window order in ACC (PyTorch's opmath: float for
** float32, float16 and bfloat16, which take the float instance; double for
** float64), then divided by the window's depth, height and width one after
** the other (a 2-d pooling's depth is 1, which divides exactly), each
** division rounded to ACC. */
#define ADAPTIVE_AVG(NAME, T, ACC)                                                                       \
    static void NAME(const PoolGeom *g, const T *x, T *out, int64_t p0, int64_t p1)                     \
    {                                                                                                    \
        const int64_t Lin = prod3(g->in), Lout = prod3(g->out);                                          \
        for (int64_t pl = p0; pl < p1; pl++)                                                             \
            for (int64_t od = 0; od < g->out[0]; od++) {                                                 \
                int64_t d0 = ad_start(od, g->out[0], g->in[0]), d1 = ad_end(od, g->out[0], g->in[0]);    \
                for (int64_t oh = 0; oh < g->out[1]; oh++) {                                             \
                    int64_t h0 = ad_start(oh, g->out[1], g->in[1]), h1 = ad_end(oh, g->out[1], g->in[1]); \
                    for (int64_t ow = 0; ow < g->out[2]; ow++) {                                         \
                        int64_t w0 = ad_start(ow, g->out[2], g->in[2]);                                  \
                        int64_t w1 = ad_end(ow, g->out[2], g->in[2]);                                    \
                        ACC sum = 0;                                                                     \
                        for (int64_t id = d0; id < d1; id++)                                             \
                            for (int64_t ih = h0; ih < h1; ih++)                                         \
                                for (int64_t iw = w0; iw < w1; iw++)                                     \
                                    sum += x[pl * Lin + (id * g->in[1] + ih) * g->in[2] + iw];           \
                        sum = sum / (ACC)(d1 - d0) / (ACC)(h1 - h0) / (ACC)(w1 - w0);                    \
                        out[pl * Lout + (od * g->out[1] + oh) * g->out[2] + ow] = (T)sum;                \
                    }                                                                                    \
                }                                                                                        \
            }                                                                                            \
    }

ADAPTIVE_AVG(adaptive_avg, double, double)
ADAPTIVE_AVG(adaptive_avg_f32, float, float)

typedef struct AdaptiveJob {
    const PoolGeom *g;
    const float *x;
    float *out;
} AdaptiveJob;

/* The global average (every output 1 x 1, a CNN's last pooling, as
** _adaptive_avg_pool2d records it): one window per plane, the whole plane,
** summed in float in order as above; but eight planes at a time, whose
** eight chains of adds run side by side in one vector where one chain
** waited on each add's latency (4x slower than PyTorch on 512 planes of
** 7x7), fed by add_columns8.  Each plane's sum is the same sequence of
** adds. */
#define GLOBAL_AVG_LANES 8

/* Eight rows of eight floats at x, rows L apart (eight planes), added
** column by column into acc (lane p: plane p): column k of the eight rows
** is turned into one vector by interleaving (rows in pairs, then fours,
** then halves), so each add takes one element of every plane, and each
** plane's sum grows in column order, as one chain would. */
static inline __attribute__((always_inline)) void add_columns8(const float *x, int64_t L, PV8f *acc)
{
    PV8f r0, r1, r2, r3, r4, r5, r6, r7;
    memcpy(&r0, x, 32);
    memcpy(&r1, x + L, 32);
    memcpy(&r2, x + 2 * L, 32);
    memcpy(&r3, x + 3 * L, 32);
    memcpy(&r4, x + 4 * L, 32);
    memcpy(&r5, x + 5 * L, 32);
    memcpy(&r6, x + 6 * L, 32);
    memcpy(&r7, x + 7 * L, 32);
    /* pairs: columns 0 1 4 5 (a) and 2 3 6 7 (b) of two rows, interleaved */
    PV8f a01 = __builtin_shufflevector(r0, r1, 0, 8, 1, 9, 4, 12, 5, 13);
    PV8f b01 = __builtin_shufflevector(r0, r1, 2, 10, 3, 11, 6, 14, 7, 15);
    PV8f a23 = __builtin_shufflevector(r2, r3, 0, 8, 1, 9, 4, 12, 5, 13);
    PV8f b23 = __builtin_shufflevector(r2, r3, 2, 10, 3, 11, 6, 14, 7, 15);
    PV8f a45 = __builtin_shufflevector(r4, r5, 0, 8, 1, 9, 4, 12, 5, 13);
    PV8f b45 = __builtin_shufflevector(r4, r5, 2, 10, 3, 11, 6, 14, 7, 15);
    PV8f a67 = __builtin_shufflevector(r6, r7, 0, 8, 1, 9, 4, 12, 5, 13);
    PV8f b67 = __builtin_shufflevector(r6, r7, 2, 10, 3, 11, 6, 14, 7, 15);
    /* fours: column k of rows 0-3 in the low half, column k + 4 in the high */
    PV8f c0 = __builtin_shufflevector(a01, a23, 0, 1, 8, 9, 4, 5, 12, 13);
    PV8f c1 = __builtin_shufflevector(a01, a23, 2, 3, 10, 11, 6, 7, 14, 15);
    PV8f c2 = __builtin_shufflevector(b01, b23, 0, 1, 8, 9, 4, 5, 12, 13);
    PV8f c3 = __builtin_shufflevector(b01, b23, 2, 3, 10, 11, 6, 7, 14, 15);
    PV8f d0 = __builtin_shufflevector(a45, a67, 0, 1, 8, 9, 4, 5, 12, 13);
    PV8f d1 = __builtin_shufflevector(a45, a67, 2, 3, 10, 11, 6, 7, 14, 15);
    PV8f d2 = __builtin_shufflevector(b45, b67, 0, 1, 8, 9, 4, 5, 12, 13);
    PV8f d3 = __builtin_shufflevector(b45, b67, 2, 3, 10, 11, 6, 7, 14, 15);
    /* halves: column k of all eight rows */
    *acc += __builtin_shufflevector(c0, d0, 0, 1, 2, 3, 8, 9, 10, 11);
    *acc += __builtin_shufflevector(c1, d1, 0, 1, 2, 3, 8, 9, 10, 11);
    *acc += __builtin_shufflevector(c2, d2, 0, 1, 2, 3, 8, 9, 10, 11);
    *acc += __builtin_shufflevector(c3, d3, 0, 1, 2, 3, 8, 9, 10, 11);
    *acc += __builtin_shufflevector(c0, d0, 4, 5, 6, 7, 12, 13, 14, 15);
    *acc += __builtin_shufflevector(c1, d1, 4, 5, 6, 7, 12, 13, 14, 15);
    *acc += __builtin_shufflevector(c2, d2, 4, 5, 6, 7, 12, 13, 14, 15);
    *acc += __builtin_shufflevector(c3, d3, 4, 5, 6, 7, 12, 13, 14, 15);
}

__attribute__((target_clones("avx2", "default")))
static void global_avg_f32(const PoolGeom *g, const float *x, float *out, int64_t p0, int64_t p1)
{
    const int64_t L = prod3(g->in);
    const float kd = (float)g->in[0], kh = (float)g->in[1], kw = (float)g->in[2];
    int64_t pl = p0;
    for (; pl + GLOBAL_AVG_LANES <= p1; pl += GLOBAL_AVG_LANES) {
        const float *xp = x + pl * L;
        PV8f acc = {0, 0, 0, 0, 0, 0, 0, 0};
        int64_t i = 0;
        for (; i + 8 <= L; i += 8)
            add_columns8(xp + i, L, &acc);
        for (; i < L; i++) {
            PV8f col = {xp[i], xp[L + i], xp[2 * L + i], xp[3 * L + i],
                        xp[4 * L + i], xp[5 * L + i], xp[6 * L + i], xp[7 * L + i]};
            acc += col;
        }
        acc = acc / kd / kh / kw;
        memcpy(out + pl, &acc, sizeof acc);
    }
    for (; pl < p1; pl++) {
        float sum = 0;
        for (int64_t i = 0; i < L; i++)
            sum += x[pl * L + i];
        out[pl] = sum / kd / kh / kw;
    }
}

static void adaptive_avg_f32_chunk(void *ctx, int64_t begin, int64_t end)
{
    const AdaptiveJob *j = ctx;
    if (prod3(j->g->out) == 1)
        global_avg_f32(j->g, j->x, j->out, begin, end);
    else
        adaptive_avg_f32(j->g, j->x, j->out, begin, end);
}

/* Same NaN and tie rules as max pooling. */
static void adaptive_max(const PoolGeom *g, const double *x, double *out, int64_t *ind)
{
    const int64_t Lin = prod3(g->in), Lout = prod3(g->out);
    for (int64_t pl = 0; pl < g->planes; pl++)
        for (int64_t od = 0; od < g->out[0]; od++) {
            int64_t d0 = ad_start(od, g->out[0], g->in[0]), d1 = ad_end(od, g->out[0], g->in[0]);
            for (int64_t oh = 0; oh < g->out[1]; oh++) {
                int64_t h0 = ad_start(oh, g->out[1], g->in[1]), h1 = ad_end(oh, g->out[1], g->in[1]);
                for (int64_t ow = 0; ow < g->out[2]; ow++) {
                    int64_t w0 = ad_start(ow, g->out[2], g->in[2]), w1 = ad_end(ow, g->out[2], g->in[2]);
                    int64_t best = (d0 * g->in[1] + h0) * g->in[2] + w0;
                    double m = -INFINITY;
                    for (int64_t id = d0; id < d1; id++)
                        for (int64_t ih = h0; ih < h1; ih++)
                            for (int64_t iw = w0; iw < w1; iw++) {
                                int64_t idx = (id * g->in[1] + ih) * g->in[2] + iw;
                                double v = x[pl * Lin + idx];
                                if (v > m || isnan(v)) {
                                    m = v;
                                    best = idx;
                                }
                            }
                    int64_t o = pl * Lout + (od * g->out[1] + oh) * g->out[2] + ow;
                    out[o] = m;
                    ind[o] = best;
                }
            }
        }
}

/* adaptive_avg_pool1d/2d/3d with every output size 1 is, in PyTorch's
** composite op (AdaptiveAveragePooling.cpp), mean(self, the pooled dims,
** keepdim=True): mean's own sums and rounding, not the pooling kernel's.
** So the call goes to mean.dim's kernel. */
static EpStatus adaptive_avg_as_mean(OpCall *c, Tensor *x, int nsp)
{
    int64_t dims[3];
    for (int i = 0; i < nsp; i++)
        dims[i] = -1 - i;
    const OpDef *mean = op_get(OP_MEAN_DIM);
    Value args[4] = {value_tensor(x), value_int_list(nsp, dims), value_bool(true), value_none()};
    Value outs[1] = {value_none()};
    OpCall call = {mean, args, 4, outs, 1, c->err, c->cfg};
    EpStatus rc = mean->fn(&call);
    value_clear(&args[1]);
    if (rc == EP_OK)
        out_tensor(c, 0, tensor_ref(outs[0].t));
    value_clear(&outs[0]);
    return rc;
}

/* adaptive_avg_pool1d/2d/3d, _adaptive_avg_pool2d/3d (self, output_size) and
** adaptive_max_pool1d/2d/3d (values, indices). */
EpStatus k_adaptive_pool(OpCall *c)
{
    Tensor *x = arg_tensor(c, 0);
    const int nsp = op_rank(c->op->id);
    const bool is_max = c->op->schema->nrets == 2;
    const bool public_avg = c->op->id == OP_ADAPTIVE_AVG_POOL1D || c->op->id == OP_ADAPTIVE_AVG_POOL2D ||
                            c->op->id == OP_ADAPTIVE_AVG_POOL3D;
    char name[40];
    rank_name(is_max ? "adaptive_max_pool" : "adaptive_avg_pool", nsp, name, sizeof name);
    int64_t osz[3];
    int n = arg_int_list(c, 1, osz, 3);
    if (n != nsp)
        return op_fail(c, "%s: output_size must be %d", name, nsp);
    for (int i = 0; i < nsp; i++)
        if (osz[i] < 0)
            return op_fail(c, "%s: elements of output_size must be greater than or equal to 0", name);
    if (x->ndim != nsp + 1 && x->ndim != nsp + 2)
        return op_fail(c, "%s(): Expected %dD or %dD tensor, but got %s", name, nsp + 1, nsp + 2, nn_shape(x));
    for (int i = x->ndim - nsp; i < x->ndim; i++)
        if (x->sizes[i] == 0)
            return op_fail(c, "%s(): Expected input to have non-zero size for non-batch dimensions, but input has "
                           "sizes %s with dimension %d being empty", name, nn_shape(x), i);
    if (!dtype_is_float(x->dtype))
        return op_fail(c, "\"%s\" not implemented for '%s'", name, dtype_c10_name(x->dtype));
    PoolGeom g;
    EpStatus rc = pool_input(c, name, x, nsp, &g);
    if (rc)
        return rc;
    for (int i = 0; i < nsp; i++)
        g.out[3 - nsp + i] = osz[i];
    int64_t sz[EP_MAX_DIMS];
    out_shape(x, &g, sz);
    if (!is_max && public_avg && prod3(g.out) == 1) /* as the composite op does */
        return adaptive_avg_as_mean(c, x, nsp);
    if (!is_max && x->dtype != DT_F64) { /* summed in float: float32, float16, bfloat16 */
        Tensor *Xf = tensor_as_contiguous_dtype(x, DT_F32, c->err);
        Tensor *Of = Xf ? tensor_empty(DT_F32, x->ndim, sz, c->err) : NULL;
        if (Of && c->cfg->use_blas) {
            /* windows hold about in / out values per dim */
            int64_t work = prod3(g.in) > 0 ? prod3(g.in) : 1;
            AdaptiveJob j = {&g, tensor_data(Xf), tensor_data(Of)};
            ep_parallel_for(g.planes, work >= 32768 ? 1 : 32768 / work, adaptive_avg_f32_chunk, &j);
        } else if (Of) {
            adaptive_avg_f32(&g, tensor_data(Xf), tensor_data(Of), 0, g.planes);
        }
        Tensor *res = Of && x->dtype != DT_F32 ? tensor_to_dtype(Of, x->dtype, c->err) : tensor_ref(Of);
        tensor_unref(Xf);
        tensor_unref(Of);
        return nn_out(c, 0, res);
    }
    Tensor *X = nn_f64(c, x);
    Tensor *O = X ? tensor_empty(DT_F64, x->ndim, sz, c->err) : NULL;
    Tensor *I = O && is_max ? tensor_empty(DT_I64, x->ndim, sz, c->err) : NULL;
    Tensor *res = NULL;
    if (O && (I || !is_max)) {
        if (is_max)
            adaptive_max(&g, tensor_data(X), tensor_data(O), tensor_data(I));
        else
            adaptive_avg(&g, tensor_data(X), tensor_data(O), 0, g.planes);
        res = nn_from_f64(c, tensor_ref(O), x->dtype);
    }
    tensor_unref(X);
    tensor_unref(O);
    return pool_outputs(c, res, I, is_max);
}
