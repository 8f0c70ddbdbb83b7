/*
** reduce_softmax.c -- softmax, log_softmax and _safe_softmax along one
** dimension.
**
** As aten/src/ATen/native/SoftMax.cpp: softmax.int(x, dim, dtype) casts x
** to dtype and calls _softmax(x, dim, half_to_float=False); the CPU refuses
** half_to_float; only floating types run (float16 and bfloat16 compute in
** float and round once).  Each row subtracts its max before exponentiating,
** so large inputs do not overflow; the sums are kept in double.
*/
#include "reduce.h"

#include <math.h>

#include "reduce_fast.h"

/* y = softmax or log_softmax of each row of x.  A NaN anywhere in a row
** makes the whole row NaN, as do rows holding +inf or only -inf (their
** shifted values contain inf - inf), which is what PyTorch gives. */
#define DEFINE_SOFTMAX(T)                                                                     \
    static void softmax_##T(const T *x, int64_t nrows, int64_t len, bool want_log, T *y)      \
    {                                                                                         \
        for (int64_t r = 0; r < nrows; r++, x += len, y += len) {                             \
            double m = -INFINITY;                                                             \
            for (int64_t i = 0; i < len && m == m; i++)                                       \
                if (x[i] > m || x[i] != x[i])                                                 \
                    m = x[i];                                                                 \
            double s = 0;                                                                     \
            for (int64_t i = 0; i < len; i++) {                                               \
                double e = exp((double)x[i] - m);                                             \
                s += e;                                                                       \
                if (!want_log)                                                                \
                    y[i] = (T)e;                                                              \
            }                                                                                 \
            if (want_log) {                                                                   \
                double shift = m + log(s);                                                    \
                for (int64_t i = 0; i < len; i++)                                             \
                    y[i] = (T)((double)x[i] - shift);                                         \
            } else {                                                                          \
                double scale = 1.0 / s;                                                       \
                for (int64_t i = 0; i < len; i++)                                             \
                    y[i] = (T)(y[i] * scale);                                                 \
            }                                                                                 \
        }                                                                                     \
    }
DEFINE_SOFTMAX(float)
DEFINE_SOFTMAX(double)

/* Rows of y that came from rows of x holding only -inf become zeros: the
** _safe_softmax rule for fully masked attention rows. */
#define DEFINE_SAFE_ROWS(T)                                                                   \
    static void zero_masked_rows_##T(const T *x, int64_t nrows, int64_t len, T *y)            \
    {                                                                                         \
        for (int64_t r = 0; r < nrows; r++, x += len, y += len) {                             \
            int64_t i = 0;                                                                    \
            while (i < len && x[i] == -INFINITY)                                              \
                i++;                                                                          \
            if (i == len)                                                                     \
                for (i = 0; i < len; i++)                                                     \
                    y[i] = 0;                                                                 \
        }                                                                                     \
    }
DEFINE_SAFE_ROWS(float)
DEFINE_SAFE_ROWS(double)

typedef enum SoftmaxKind { SOFTMAX, LOG_SOFTMAX, SAFE_SOFTMAX } SoftmaxKind;

/* n float16 (f16) or bfloat16 values widened to float32, and back rounded
** once to nearest even: dtype.h's vector loops, without
** tensor_to_dtype's general converter (most of the time otherwise). */
static void widen_reduced(bool f16, const uint16_t *x, int64_t n, float *y)
{
    if (f16)
        f16_to_f32_n(y, x, n);
    else
        bf16_to_f32_n(y, x, n);
}

static void narrow_reduced(bool f16, const float *x, int64_t n, uint16_t *y)
{
    if (f16)
        f32_to_f16_n(y, x, n);
    else
        f32_to_bf16_n(y, x, n);
}

/* The fast path of a contiguous float32, float16 or bfloat16 self seen as
** fs: float16 and bfloat16 are widened to float32 (exact), computed there
** and rounded once to their type, as PyTorch computes them in float. */
static EpStatus softmax_fast(OpCall *c, Tensor *self, RfShape fs, SoftmaxKind kind)
{
    int64_t n = tensor_numel(self);
    bool narrow = self->dtype != DT_F32, f16 = self->dtype == DT_F16;
    Tensor *x = narrow ? tensor_empty(DT_F32, 1, &n, c->err) : tensor_ref(self);
    Tensor *y = x ? tensor_empty(DT_F32, self->ndim, self->sizes, c->err) : NULL;
    Tensor *r = y && narrow ? tensor_empty(self->dtype, self->ndim, self->sizes, c->err) : NULL;
    if (!y || (narrow && !r)) {
        tensor_unref(x);
        tensor_unref(y);
        return c->err->code;
    }
    if (narrow)
        widen_reduced(f16, tensor_data(self), n, tensor_data(x));
    reduce_fast_softmax(tensor_data(x), fs, kind == LOG_SOFTMAX, tensor_data(y));
    if (kind == SAFE_SOFTMAX)
        zero_masked_rows_float(tensor_data(x), fs.outer, fs.len, tensor_data(y));
    tensor_unref(x);
    if (narrow) {
        narrow_reduced(f16, tensor_data(y), n, tensor_data(r));
        tensor_unref(y);
        y = r;
    }
    out_tensor(c, 0, y);
    return EP_OK;
}

/* Shared body: softmax of self cast to dtype (DT_INVALID: keep) along dim. */
static EpStatus softmax_common(OpCall *c, SoftmaxKind kind, int64_t dim, DType dtype)
{
    Tensor *self = arg_tensor(c, 0);
    int d;
    EpStatus rc = reduce_wrap_dim(c, dim, self->ndim, &d);
    if (rc)
        return rc;
    DType out = dtype == DT_INVALID ? self->dtype : dtype;
    if (tensor_numel(self) == 0) {
        /* PyTorch returns before dispatching on the dtype */
        Tensor *e = tensor_empty(out, self->ndim, self->sizes, c->err);
        if (!e)
            return c->err->code;
        out_tensor(c, 0, e);
        return EP_OK;
    }
    if (!dtype_is_float(out))
        return op_fail(c, "\"%ssoftmax_%skernel_impl\" not implemented for '%s'", kind == LOG_SOFTMAX ? "log_" : "",
                       (self->ndim <= 1 || d == self->ndim - 1) ? "lastdim_" : "", dtype_c10_name(out));
    ReducePlan p;
    reduce_plan_one(self, d, &p);
    RfShape fs;
    if (reduce_fast_enabled(c) && (out == DT_F32 || out == DT_F16 || out == DT_BF16) && self->dtype == out &&
        reduce_fast_shape(self, p.reduced, &fs) && (kind != SAFE_SOFTMAX || fs.inner == 1))
        return softmax_fast(c, self, fs, kind);
    DType ct = reduce_compute_dtype(out);
    /* casting to dtype first matters when it narrows (float64 -> float16) */
    Tensor *src = out == self->dtype ? tensor_ref(self) : tensor_to_dtype(self, out, c->err);
    Tensor *rows = src ? reduce_rows(src, &p, ct, c->err) : NULL;
    tensor_unref(src);
    Tensor *masks = NULL, *res = NULL, *r = NULL;
    if (!rows)
        goto fail;
    /* the result rows are the output itself when dim is innermost and no
    ** rounding to a narrower type is left */
    bool direct = (self->ndim == 0 || d == self->ndim - 1) && ct == out;
    int64_t n = p.nrows * p.rowlen;
    res = direct ? tensor_empty(out, self->ndim, self->sizes, c->err) : tensor_empty(ct, 1, &n, c->err);
    if (!res)
        goto fail;
    if (ct == DT_F32)
        softmax_float(tensor_data(rows), p.nrows, p.rowlen, kind == LOG_SOFTMAX, tensor_data(res));
    else
        softmax_double(tensor_data(rows), p.nrows, p.rowlen, kind == LOG_SOFTMAX, tensor_data(res));
    if (kind == SAFE_SOFTMAX) {
        /* the mask is self == -inf, before any dtype cast */
        masks = reduce_rows(self, &p, ct, c->err);
        if (!masks)
            goto fail;
        if (ct == DT_F32)
            zero_masked_rows_float(tensor_data(masks), p.nrows, p.rowlen, tensor_data(res));
        else
            zero_masked_rows_double(tensor_data(masks), p.nrows, p.rowlen, tensor_data(res));
    }
    if (direct) {
        r = res;
        res = NULL;
    } else {
        r = tensor_empty(out, self->ndim, self->sizes, c->err);
        if (!r || reduce_unrows(r, d, res, c->err) != EP_OK)
            goto fail;
    }
    tensor_unref(rows);
    tensor_unref(masks);
    tensor_unref(res);
    out_tensor(c, 0, r);
    return EP_OK;
fail:
    tensor_unref(r);
    tensor_unref(rows);
    tensor_unref(masks);
    tensor_unref(res);
    return c->err->code;
}

/* softmax.int(self, int dim, ScalarType? dtype=None) / log_softmax.int. */
EpStatus k_softmax_int(OpCall *c)
{
    SoftmaxKind kind = c->op->id == OP_LOG_SOFTMAX_INT ? LOG_SOFTMAX : SOFTMAX;
    return softmax_common(c, kind, arg_int(c, 1), arg_dtype(c, 2, DT_INVALID));
}

/* _softmax(self, int dim, bool half_to_float) / _log_softmax: the CPU
** kernels refuse half_to_float. */
EpStatus k_softmax_raw(OpCall *c)
{
    if (arg_bool(c, 2))
        return op_fail(c, "softmax with half to float conversion is not supported on CPU");
    SoftmaxKind kind = c->op->id == OP_LOG_SOFTMAX_DEFAULT ? LOG_SOFTMAX : SOFTMAX;
    return softmax_common(c, kind, arg_int(c, 1), DT_INVALID);
}

/* _safe_softmax(self, int dim, ScalarType? dtype=None): softmax whose rows
** of only -inf give zeros instead of NaN (attention with every key masked). */
EpStatus k_safe_softmax(OpCall *c)
{
    return softmax_common(c, SAFE_SOFTMAX, arg_int(c, 1), arg_dtype(c, 2, DT_INVALID));
}
