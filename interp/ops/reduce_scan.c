/*
** reduce_scan.c -- scans along one dimension: cumsum, cumprod (and their
** in-place forms), cummax, cummin and logcumsumexp.
**
** As aten/src/ATen/native/ReduceOps.cpp and cpu/ReduceOpsKernel.cpp: the
** input is cast to the result dtype first (bools and integers give int64
** unless dtype= says otherwise), and the running value is kept in the
** accumulate type (acc_type: double for float32, int64 for integers), each
** output being the running value rounded to the result dtype.
*/
#include "reduce.h"

#include <math.h>

#include "interp/parallel.h"
#include "reduce_fast.h"

/* Running sums or products along rows, accumulated in double for float
** rows (acc_type<float> is double on the CPU) and wrapping int64 for
** integer rows.  y may be x (in place). */
#define DEFINE_CUM_FLOAT(T)                                                                   \
    static void cum_##T(const T *x, int64_t nrows, int64_t len, bool prod, T *y)              \
    {                                                                                         \
        for (int64_t r = 0; r < nrows; r++, x += len, y += len) {                             \
            double acc = prod ? 1 : 0;                                                        \
            for (int64_t i = 0; i < len; i++) {                                               \
                acc = prod ? acc * (double)x[i] : acc + (double)x[i];                         \
                y[i] = (T)acc;                                                                \
            }                                                                                 \
        }                                                                                     \
    }
DEFINE_CUM_FLOAT(float)
DEFINE_CUM_FLOAT(double)

static void cum_int64_t(const int64_t *x, int64_t nrows, int64_t len, bool prod, int64_t *y)
{
    for (int64_t r = 0; r < nrows; r++, x += len, y += len) {
        uint64_t acc = prod ? 1 : 0;
        for (int64_t i = 0; i < len; i++) {
            acc = prod ? acc * (uint64_t)x[i] : acc + (uint64_t)x[i];
            y[i] = (int64_t)acc;
        }
    }
}

/* A fresh contiguous buffer for nrows*len values of ct. */
static Tensor *scan_buffer(const ReducePlan *p, DType ct, EpError *err)
{
    int64_t n = p->nrows * p->rowlen;
    return tensor_empty(ct, 1, &n, err);
}

/* The end of a scan: res (the scanned rows) written back along d into r
** (stolen; NULL when making it failed, with c->err set), which becomes
** output 0.  Drops rows and res. */
static EpStatus scan_finish(OpCall *c, Tensor *r, int d, Tensor *rows, Tensor *res)
{
    bool ok = r && reduce_unrows(r, d, res, c->err) == EP_OK;
    tensor_unref(rows);
    tensor_unref(res);
    if (!ok) {
        tensor_unref(r);
        return c->err->code;
    }
    out_tensor(c, 0, r);
    return EP_OK;
}

/* ---- the fast path: contiguous floating rows, scanned where they lie ---- */

/* The scan of a contiguous float32 or float64 tensor seen as [outer, len,
** inner], the scanned dim in the middle, written into y of the same
** layout (y may be x): the arithmetic of cum_float/cum_double, element
** by element, without gathering the rows into a buffer and back.  The
** running value's chain of dependent adds is what takes the time, so
** independent chains run side by side: four rows at once when inner is 1,
** a block of inner positions at once otherwise.  Each row's values do not
** depend on how the rows are grouped, so neither do the bits. */
#define CUM_INNER_BLOCK 256 /* running values of one item when inner > 1 */

typedef struct CumJob {
    const char *x;
    char *y;
    int64_t len, inner, blocks; /* blocks: inner blocks per outer index */
    bool prod, f64;
} CumJob;

static inline __attribute__((always_inline)) double cum_ld(const char *p, int64_t i, bool f64)
{
    return f64 ? ((const double *)(const void *)p)[i] : (double)((const float *)(const void *)p)[i];
}

static inline __attribute__((always_inline)) void cum_st(char *p, int64_t i, double v, bool f64)
{
    if (f64)
        ((double *)(void *)p)[i] = v;
    else
        ((float *)(void *)p)[i] = (float)v;
}

static inline __attribute__((always_inline)) double cum_step(double acc, double v, bool prod)
{
    return prod ? acc * v : acc + v;
}

/* rows [r0, r1) of a tensor whose scanned dim is the last */
static inline __attribute__((always_inline)) void cum_rows(const CumJob *j, int64_t r0, int64_t r1, bool prod,
                                                           bool f64)
{
    const int64_t len = j->len, es = f64 ? 8 : 4;
    int64_t r = r0;
    for (; r + 4 <= r1; r += 4) {
        const char *x0 = j->x + r * len * es, *x1 = x0 + len * es, *x2 = x1 + len * es, *x3 = x2 + len * es;
        char *y0 = j->y + r * len * es, *y1 = y0 + len * es, *y2 = y1 + len * es, *y3 = y2 + len * es;
        double a0 = prod, a1 = prod, a2 = prod, a3 = prod;
        for (int64_t i = 0; i < len; i++) {
            a0 = cum_step(a0, cum_ld(x0, i, f64), prod);
            a1 = cum_step(a1, cum_ld(x1, i, f64), prod);
            a2 = cum_step(a2, cum_ld(x2, i, f64), prod);
            a3 = cum_step(a3, cum_ld(x3, i, f64), prod);
            cum_st(y0, i, a0, f64);
            cum_st(y1, i, a1, f64);
            cum_st(y2, i, a2, f64);
            cum_st(y3, i, a3, f64);
        }
    }
    for (; r < r1; r++) {
        const char *x0 = j->x + r * len * es;
        char *y0 = j->y + r * len * es;
        double a = prod;
        for (int64_t i = 0; i < len; i++) {
            a = cum_step(a, cum_ld(x0, i, f64), prod);
            cum_st(y0, i, a, f64);
        }
    }
}

/* items [b, e): item k is inner block k % blocks of outer index k / blocks */
static inline __attribute__((always_inline)) void cum_blocks(const CumJob *j, int64_t b, int64_t e, bool prod,
                                                             bool f64)
{
    const int64_t len = j->len, inner = j->inner, es = f64 ? 8 : 4;
    double acc[CUM_INNER_BLOCK];
    for (int64_t k = b; k < e; k++) {
        int64_t o = k / j->blocks, i0 = k % j->blocks * CUM_INNER_BLOCK;
        int64_t w = inner - i0 < CUM_INNER_BLOCK ? inner - i0 : CUM_INNER_BLOCK;
        for (int64_t q = 0; q < w; q++)
            acc[q] = prod;
        for (int64_t i = 0; i < len; i++) {
            const char *xr = j->x + ((o * len + i) * inner + i0) * es;
            char *yr = j->y + ((o * len + i) * inner + i0) * es;
            for (int64_t q = 0; q < w; q++) {
                acc[q] = cum_step(acc[q], cum_ld(xr, q, f64), prod);
                cum_st(yr, q, acc[q], f64);
            }
        }
    }
}

static void cum_chunk(void *ctx, int64_t b, int64_t e)
{
    const CumJob *j = ctx;
    /* each combination its own inlined loop, the flags constants in it:
    ** bit 2 rows (inner 1), bit 1 a product, bit 0 float64 */
    const int which = (j->inner == 1) << 2 | j->prod << 1 | j->f64;
    switch (which) {
    case 7: cum_rows(j, b, e, true, true); break;
    case 6: cum_rows(j, b, e, true, false); break;
    case 5: cum_rows(j, b, e, false, true); break;
    case 4: cum_rows(j, b, e, false, false); break;
    case 3: cum_blocks(j, b, e, true, true); break;
    case 2: cum_blocks(j, b, e, true, false); break;
    case 1: cum_blocks(j, b, e, false, true); break;
    default: cum_blocks(j, b, e, false, false); break;
    }
}

/* Scan src (contiguous, float32 or float64) along d into dst (contiguous,
** the same dtype and shape; may be src) over the pool. */
static void cum_fast(const Tensor *src, int d, Tensor *dst, bool prod)
{
    CumJob j = {.x = tensor_data(src), .y = tensor_data(dst), .len = src->sizes[d], .inner = 1, .prod = prod,
                .f64 = src->dtype == DT_F64};
    int64_t outer = 1;
    for (int i = 0; i < d; i++)
        outer *= src->sizes[i];
    for (int i = d + 1; i < src->ndim; i++)
        j.inner *= src->sizes[i];
    j.blocks = (j.inner + CUM_INNER_BLOCK - 1) / CUM_INNER_BLOCK;
    int64_t items = j.inner == 1 ? outer : outer * j.blocks;
    int64_t per = j.len * (j.inner == 1 ? 1 : (j.inner < CUM_INNER_BLOCK ? j.inner : CUM_INNER_BLOCK));
    int64_t grain = 65536 / (per > 0 ? per : 1);
    /* rows in fours, so a chunk boundary does not split a group */
    grain = j.inner == 1 ? (grain + 3) / 4 * 4 : (grain > 0 ? grain : 1);
    ep_parallel_for(items, grain, cum_chunk, &j);
}

/* Whether cumulate's fast path takes this call: a floating scan of a
** contiguous tensor into its own dtype (the reference path takes the rest,
** and everything when the fast paths are off, as the tests compare). */
static bool cum_fast_fits(const OpCall *c, const Tensor *self, DType out)
{
    return reduce_fast_enabled(c) && (out == DT_F32 || out == DT_F64) && self->dtype == out && self->ndim > 0 &&
           tensor_is_contiguous(self) && tensor_numel(self) > 0;
}

/* Shared body of cumsum/cumprod and their in-place forms. */
static EpStatus cumulate(OpCall *c, bool prod, bool inplace)
{
    Tensor *self = arg_tensor(c, 0);
    DType given = arg_dtype(c, 2, DT_INVALID);
    int d;
    EpStatus rc = reduce_wrap_dim(c, arg_int(c, 1), self->ndim, &d);
    if (rc)
        return rc;
    DType out = given != DT_INVALID ? given
                : (inplace || !dtype_is_integral(self->dtype)) ? self->dtype : DT_I64;
    if (inplace && out != self->dtype)
        return op_fail(c, "Bad in-place call: input tensor dtype %s and output tensor dtype %s should match",
                       dtype_name(self->dtype), dtype_name(out));
    /* before any view of self is taken: the views would keep the old bytes */
    if (inplace && tensor_make_writable(self, c->err) != EP_OK)
        return c->err->code;
    if (cum_fast_fits(c, self, out)) {
        Tensor *r = inplace ? tensor_ref(self) : tensor_empty(out, self->ndim, self->sizes, c->err);
        if (!r)
            return c->err->code;
        cum_fast(self, d, r, prod);
        out_tensor(c, 0, r);
        return EP_OK;
    }
    Tensor *src = out == self->dtype ? tensor_ref(self) : tensor_to_dtype(self, out, c->err);
    if (!src)
        return c->err->code;
    ReducePlan p;
    reduce_plan_one(src, d, &p);
    DType ct = reduce_compute_dtype(out);
    Tensor *rows = reduce_rows(src, &p, ct, c->err);
    tensor_unref(src);
    Tensor *res = rows ? scan_buffer(&p, ct, c->err) : NULL;
    if (!res) {
        tensor_unref(rows);
        return c->err->code;
    }
    if (ct == DT_F32)
        cum_float(tensor_data(rows), p.nrows, p.rowlen, prod, tensor_data(res));
    else if (ct == DT_F64)
        cum_double(tensor_data(rows), p.nrows, p.rowlen, prod, tensor_data(res));
    else
        cum_int64_t(tensor_data(rows), p.nrows, p.rowlen, prod, tensor_data(res));
    Tensor *r = inplace ? tensor_ref(self) : tensor_empty(out, self->ndim, self->sizes, c->err);
    return scan_finish(c, r, d, rows, res);
}

/* cumsum(self, int dim, *, dtype=None). */
EpStatus k_cumsum(OpCall *c) { return cumulate(c, false, false); }
/* cumsum_(self, int dim, *, dtype=None): in place; dtype must be self's. */
EpStatus k_cumsum_(OpCall *c) { return cumulate(c, false, true); }
/* cumprod(self, int dim, *, dtype=None). */
EpStatus k_cumprod(OpCall *c) { return cumulate(c, true, false); }
/* cumprod_(self, int dim, *, dtype=None): in place. */
EpStatus k_cumprod_(OpCall *c) { return cumulate(c, true, true); }

/* ---- cummax / cummin ----------------------------------------------------- */

/* Running extreme and its index: a later equal value takes over (>= for
** max, <= for min), and once a NaN is seen every later NaN takes over, as
** cummax_cummin_helper in ReduceOps.cpp. */
#define DEFINE_CUMEXT(T)                                                                       \
    static void cumext_##T(const T *x, int64_t nrows, int64_t len, bool want_max, T *v, int64_t *ix) \
    {                                                                                          \
        for (int64_t r = 0; r < nrows; r++, x += len, v += len, ix += len) {                   \
            T best = len > 0 ? x[0] : 0;                                                       \
            int64_t at = 0;                                                                    \
            for (int64_t i = 0; i < len; i++) {                                                \
                T e = x[i];                                                                    \
                if (REDUCE_ISNAN(T, e) ||                                                      \
                    (!REDUCE_ISNAN(T, best) && (want_max ? e >= best : e <= best))) {          \
                    best = e;                                                                  \
                    at = i;                                                                    \
                }                                                                              \
                v[i] = best;                                                                   \
                ix[i] = at;                                                                    \
            }                                                                                  \
        }                                                                                      \
    }
DEFINE_CUMEXT(int64_t)
DEFINE_CUMEXT(float)
DEFINE_CUMEXT(double)

/* cummax(self, int dim) / cummin -> (values, indices). */
EpStatus k_cummax(OpCall *c)
{
    Tensor *self = arg_tensor(c, 0);
    bool want_max = c->op->id == OP_CUMMAX_DEFAULT;
    int d;
    EpStatus rc = reduce_wrap_dim(c, arg_int(c, 1), self->ndim, &d);
    if (rc)
        return rc;
    ReducePlan p;
    reduce_plan_one(self, d, &p);
    DType ct = reduce_compute_dtype(self->dtype);
    Tensor *rows = reduce_rows(self, &p, ct, c->err);
    Tensor *vals = rows ? scan_buffer(&p, ct, c->err) : NULL;
    Tensor *idx = vals ? scan_buffer(&p, DT_I64, c->err) : NULL;
    Tensor *vo = NULL, *io = NULL;
    if (!idx)
        goto fail;
    if (ct == DT_F32)
        cumext_float(tensor_data(rows), p.nrows, p.rowlen, want_max, tensor_data(vals), tensor_data(idx));
    else if (ct == DT_F64)
        cumext_double(tensor_data(rows), p.nrows, p.rowlen, want_max, tensor_data(vals), tensor_data(idx));
    else
        cumext_int64_t(tensor_data(rows), p.nrows, p.rowlen, want_max, tensor_data(vals), tensor_data(idx));
    vo = tensor_empty(self->dtype, self->ndim, self->sizes, c->err);
    io = vo ? tensor_empty(DT_I64, self->ndim, self->sizes, c->err) : NULL;
    if (!io || reduce_unrows(vo, d, vals, c->err) != EP_OK || reduce_unrows(io, d, idx, c->err) != EP_OK)
        goto fail;
    tensor_unref(rows);
    tensor_unref(vals);
    tensor_unref(idx);
    out_tensor(c, 0, vo);
    out_tensor(c, 1, io);
    return EP_OK;
fail:
    tensor_unref(vo);
    tensor_unref(io);
    tensor_unref(rows);
    tensor_unref(vals);
    tensor_unref(idx);
    return c->err->code;
}

/* ---- logcumsumexp -------------------------------------------------------- */

/* log(exp(x) + exp(acc)) without overflow; equal infinities return x and
** NaNs propagate, as _log_add_exp_helper. */
static double log_add_exp(double x, double acc)
{
    double lo = isnan(acc) ? acc : (acc < x ? acc : x);
    double hi = isnan(acc) ? acc : (x < acc ? acc : x);
    if (lo != hi || isfinite(lo))
        return log1p(exp(lo - hi)) + hi;
    return x;
}

#define DEFINE_LOGCUMSUMEXP(T)                                                                 \
    static void logcumsumexp_##T(const T *x, int64_t nrows, int64_t len, T *y)                \
    {                                                                                          \
        for (int64_t r = 0; r < nrows; r++, x += len, y += len) {                              \
            double acc = -INFINITY;                                                            \
            for (int64_t i = 0; i < len; i++) {                                                \
                acc = log_add_exp((double)x[i], acc);                                          \
                y[i] = (T)acc;                                                                 \
            }                                                                                  \
        }                                                                                      \
    }
DEFINE_LOGCUMSUMEXP(float)
DEFINE_LOGCUMSUMEXP(double)

/* logcumsumexp(self, int dim): floating types only. */
EpStatus k_logcumsumexp(OpCall *c)
{
    Tensor *self = arg_tensor(c, 0);
    if (!dtype_is_float(self->dtype))
        return op_fail(c, "\"logcumsumexp_out_cpu\" not implemented for '%s'", dtype_c10_name(self->dtype));
    int d;
    EpStatus rc = reduce_wrap_dim(c, arg_int(c, 1), self->ndim, &d);
    if (rc)
        return rc;
    ReducePlan p;
    reduce_plan_one(self, d, &p);
    DType ct = reduce_compute_dtype(self->dtype);
    Tensor *rows = reduce_rows(self, &p, ct, c->err);
    Tensor *res = rows ? scan_buffer(&p, ct, c->err) : NULL;
    if (!res) {
        tensor_unref(rows);
        return c->err->code;
    }
    if (ct == DT_F32)
        logcumsumexp_float(tensor_data(rows), p.nrows, p.rowlen, tensor_data(res));
    else
        logcumsumexp_double(tensor_data(rows), p.nrows, p.rowlen, tensor_data(res));
    Tensor *r = tensor_empty(self->dtype, self->ndim, self->sizes, c->err);
    return scan_finish(c, r, d, rows, res);
}
