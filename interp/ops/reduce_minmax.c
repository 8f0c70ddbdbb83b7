/*
** reduce_minmax.c -- extremes: amax, amin, max and min (all elements, along
** a dim with indices, and the elementwise .other overloads), argmax,
** argmin and aminmax.
**
** As in aten/src/ATen/native/TensorCompare.cpp and ReduceOps.cpp: a NaN is
** the extreme of any row it is in, the first of equal extremes gives the
** index, values keep the input dtype (bool stays bool), and folding an
** empty dimension is an error because these folds have no identity.
*/
#include "reduce.h"

#include <string.h>

#include "reduce_fast.h"

/* idx[r] = index within row r of its largest (want_max) or smallest value:
** the first NaN if there is one, else the first of equal extremes.  Rows
** have len >= 1 values. */
#define DEFINE_ARGEXT(T)                                                                    \
    static void argext_##T(const T *x, int64_t nrows, int64_t len, bool want_max, int64_t *idx) \
    {                                                                                       \
        for (int64_t r = 0; r < nrows; r++, x += len) {                                     \
            int64_t best = 0;                                                               \
            for (int64_t i = 1; i < len && !REDUCE_ISNAN(T, x[best]); i++) {                \
                T v = x[i];                                                                 \
                if (REDUCE_ISNAN(T, v) || (want_max ? v > x[best] : v < x[best]))           \
                    best = i;                                                               \
            }                                                                               \
            idx[r] = best;                                                                  \
        }                                                                                   \
    }                                                                                       \
    static void pick_##T(const T *x, int64_t nrows, int64_t len, const int64_t *idx, T *y)  \
    {                                                                                       \
        for (int64_t r = 0; r < nrows; r++)                                                 \
            y[r] = x[r * len + idx[r]];                                                     \
    }
DEFINE_ARGEXT(int64_t)
DEFINE_ARGEXT(float)
DEFINE_ARGEXT(double)

/* y[r] = the extreme of row r when no index is wanted (amax, max.default):
** a branch-free running max/min plus a NaN flag, several times faster than
** the index search on long float rows.  A NaN, if any, is the answer. */
#define DEFINE_EXTREME(T)                                                                   \
    static void extreme_##T(const T *x, int64_t nrows, int64_t len, bool want_max, T *y)    \
    {                                                                                       \
        for (int64_t r = 0; r < nrows; r++, x += len) {                                     \
            T m = x[0];                                                                     \
            bool nan = false;                                                               \
            if (want_max)                                                                   \
                for (int64_t i = 1; i < len; i++) {                                         \
                    nan |= REDUCE_ISNAN(T, x[i]);                                           \
                    m = x[i] > m ? x[i] : m;                                                \
                }                                                                           \
            else                                                                            \
                for (int64_t i = 1; i < len; i++) {                                         \
                    nan |= REDUCE_ISNAN(T, x[i]);                                           \
                    m = x[i] < m ? x[i] : m;                                                \
                }                                                                           \
            if (nan || REDUCE_ISNAN(T, x[0]))                                               \
                for (int64_t i = 0; i < len; i++)                                           \
                    if (REDUCE_ISNAN(T, x[i])) {                                            \
                        m = x[i];                                                           \
                        break;                                                              \
                    }                                                                       \
            y[r] = m;                                                                       \
        }                                                                                   \
    }
DEFINE_EXTREME(int64_t)
DEFINE_EXTREME(float)
DEFINE_EXTREME(double)

/* The extreme of every row of self under plan p: *values (self's dtype)
** and/or *indices (int64) of the plan's result shape, each optional (NULL
** to skip).  Callers have refused empty rows already. */
static EpStatus row_extremes(OpCall *c, Tensor *self, const ReducePlan *p, bool want_max, Tensor **values,
                             Tensor **indices)
{
    if (p->rowlen == 0 && p->nrows > 0)
        return op_fail(c, "internal: extreme of an empty row");
    RfShape fs;
    DType st = self->dtype;
    bool fast = reduce_fast_enabled(c) && reduce_fast_shape(self, p->reduced, &fs);
    if (fast && !indices && (st == DT_F32 || st == DT_F16 || st == DT_BF16)) {
        /* a half's extreme is one of its values: exact through float32 */
        Tensor *val = tensor_empty(DT_F32, p->out_ndim, p->out_sizes, c->err);
        if (!val)
            return c->err->code;
        reduce_fast_extreme(tensor_data(self), st, fs, want_max, tensor_data(val));
        *values = st == DT_F32 ? tensor_ref(val) : tensor_as_contiguous_dtype(val, st, c->err);
        tensor_unref(val);
        return *values ? EP_OK : c->err->code;
    }
    if (fast && indices && st == DT_F32 && fs.inner == 1) {
        Tensor *idx = tensor_empty(DT_I64, p->out_ndim, p->out_sizes, c->err);
        Tensor *val = idx && values ? tensor_empty(DT_F32, p->out_ndim, p->out_sizes, c->err) : NULL;
        if (!idx || (values && !val)) {
            tensor_unref(idx);
            return c->err->code;
        }
        reduce_fast_arg_rows(tensor_data(self), fs.outer, fs.len, want_max, tensor_data(idx));
        if (val)
            pick_float(tensor_data(self), fs.outer, fs.len, tensor_data(idx), tensor_data(val));
        if (values)
            *values = val;
        *indices = idx;
        return EP_OK;
    }
    DType ct = reduce_compute_dtype(self->dtype);
    Tensor *rows = reduce_rows(self, p, ct, c->err);
    if (rows && !indices) {
        Tensor *val = tensor_empty(ct, p->out_ndim, p->out_sizes, c->err);
        if (val) {
            const void *x = tensor_data(rows);
            if (ct == DT_F32)
                extreme_float(x, p->nrows, p->rowlen, want_max, tensor_data(val));
            else if (ct == DT_F64)
                extreme_double(x, p->nrows, p->rowlen, want_max, tensor_data(val));
            else
                extreme_int64_t(x, p->nrows, p->rowlen, want_max, tensor_data(val));
            *values = tensor_as_contiguous_dtype(val, self->dtype, c->err);
        }
        tensor_unref(val);
        tensor_unref(rows);
        return val && *values ? EP_OK : c->err->code;
    }
    Tensor *idx = rows ? tensor_empty(DT_I64, p->out_ndim, p->out_sizes, c->err) : NULL;
    Tensor *val = idx && values ? tensor_empty(ct, p->out_ndim, p->out_sizes, c->err) : NULL;
    if (!idx || (values && !val)) {
        tensor_unref(rows);
        tensor_unref(idx);
        return c->err->code;
    }
    const void *x = tensor_data(rows);
    int64_t *ix = tensor_data(idx);
    switch (ct) {
    case DT_F32:
        argext_float(x, p->nrows, p->rowlen, want_max, ix);
        if (val)
            pick_float(x, p->nrows, p->rowlen, ix, tensor_data(val));
        break;
    case DT_F64:
        argext_double(x, p->nrows, p->rowlen, want_max, ix);
        if (val)
            pick_double(x, p->nrows, p->rowlen, ix, tensor_data(val));
        break;
    default:
        argext_int64_t(x, p->nrows, p->rowlen, want_max, ix);
        if (val)
            pick_int64_t(x, p->nrows, p->rowlen, ix, tensor_data(val));
        break;
    }
    tensor_unref(rows);
    if (values) {
        *values = tensor_as_contiguous_dtype(val, self->dtype, c->err);
        tensor_unref(val);
        if (!*values) {
            tensor_unref(idx);
            return c->err->code;
        }
    }
    if (indices)
        *indices = idx;
    else
        tensor_unref(idx);
    return EP_OK;
}

static bool op_wants_max(const OpCall *c)
{
    switch (c->op->id) {
    case OP_AMAX_DEFAULT:
    case OP_MAX_DEFAULT:
    case OP_MAX_DIM:
    case OP_ARGMAX_DEFAULT:
    case OP_MAX_OTHER: return true;
    default: return false;
    }
}

/* The extremes alone: self folded over the dims of argument dim_arg (-1:
** every dim); fn names the op in PyTorch's message for an empty input. */
static EpStatus extreme_values(OpCall *c, int dim_arg, bool keepdim, const char *fn)
{
    Tensor *self = arg_tensor(c, 0);
    ReducePlan p;
    EpStatus rc = reduce_plan_arg(c, self, dim_arg, keepdim, &p);
    if (!rc)
        rc = reduce_check_nonempty(c, self, &p, fn, true);
    Tensor *v = NULL;
    if (!rc)
        rc = row_extremes(c, self, &p, op_wants_max(c), &v, NULL);
    if (!rc)
        out_tensor(c, 0, v);
    return rc;
}

/* amax(self, dim=[], keepdim) / amin: values only; [] folds every dim. */
EpStatus k_amax(OpCall *c) { return extreme_values(c, 1, arg_bool(c, 2), op_wants_max(c) ? "amax" : "amin"); }

/* max.default(self) / min.default: the extreme of every element, 0-d. */
EpStatus k_max(OpCall *c) { return extreme_values(c, -1, false, op_wants_max(c) ? "max" : "min"); }

/* max.dim(self, int dim, keepdim) / min.dim -> (values, indices). */
EpStatus k_max_dim(OpCall *c)
{
    Tensor *self = arg_tensor(c, 0);
    bool want_max = op_wants_max(c);
    ReducePlan p;
    int64_t dim = arg_int(c, 1);
    EpStatus rc = reduce_plan(c, self, &dim, 1, arg_bool(c, 2), &p);
    if (!rc)
        rc = reduce_check_nonempty(c, self, &p, want_max ? "max" : "min", true);
    Tensor *v = NULL, *i = NULL;
    if (!rc)
        rc = row_extremes(c, self, &p, want_max, &v, &i);
    if (!rc) {
        out_tensor(c, 0, v);
        out_tensor(c, 1, i);
    }
    return rc;
}

/* argmax(self, int? dim=None, keepdim) / argmin: None searches the
** flattened input (keepdim then gives all-ones).  Bool is refused, as
** PyTorch's CPU kernel has no bool instance. */
EpStatus k_argmax(OpCall *c)
{
    Tensor *self = arg_tensor(c, 0);
    bool want_max = op_wants_max(c);
    const char *fn = want_max ? "argmax" : "argmin";
    if (self->dtype == DT_BOOL)
        return op_fail(c, "\"%s_cpu\" not implemented for 'Bool'", fn);
    ReducePlan p;
    EpStatus rc = reduce_plan_arg(c, self, 1, arg_bool(c, 2), &p);
    if (!rc)
        rc = reduce_check_nonempty(c, self, &p, fn, false);
    Tensor *i = NULL;
    if (!rc)
        rc = row_extremes(c, self, &p, want_max, NULL, &i);
    if (!rc)
        out_tensor(c, 0, i);
    return rc;
}

/* aminmax(self, *, int? dim=None, keepdim) -> (min, max). */
EpStatus k_aminmax(OpCall *c)
{
    Tensor *self = arg_tensor(c, 0);
    ReducePlan p;
    EpStatus rc = reduce_plan_arg(c, self, 1, arg_bool(c, 2), &p);
    if (rc)
        return rc;
    if (tensor_numel(self) == 0) {
        if (p.all || self->ndim == 0)
            return op_fail(c, "aminmax(): cannot compute aminmax over an empty dimension as the operation has "
                              "no identity.");
        for (int d = 0; d < self->ndim; d++)
            if (p.reduced[d] && self->sizes[d] == 0)
                return op_fail(c, "aminmax: Expected reduction dim %d to have non-zero size.", d);
    }
    Tensor *lo = NULL, *hi = NULL;
    rc = row_extremes(c, self, &p, false, &lo, NULL);
    if (!rc)
        rc = row_extremes(c, self, &p, true, &hi, NULL);
    if (rc) {
        tensor_unref(lo);
        return rc;
    }
    out_tensor(c, 0, lo);
    out_tensor(c, 1, hi);
    return EP_OK;
}

/* ---- max.other / min.other: elementwise, broadcasting -------------------- */

/* y = max(a, b) or min(a, b) over one inner run; NaN in either wins. */
#define DEFINE_PAIR_LOOP(T)                                                                 \
    static void pair_max_##T(char **data, const int64_t *stride, int64_t n, void *ctx)      \
    {                                                                                       \
        bool want_max = *(const bool *)ctx;                                                 \
        for (int64_t i = 0; i < n; i++) {                                                   \
            T a = *(const T *)(data[1] + i * stride[1]);                                    \
            T b = *(const T *)(data[2] + i * stride[2]);                                    \
            T y = REDUCE_ISNAN(T, a) ? a : REDUCE_ISNAN(T, b) ? b : (want_max ? (a > b ? a : b) : (a < b ? a : b)); \
            *(T *)(data[0] + i * stride[0]) = y;                                            \
        }                                                                                   \
    }
DEFINE_PAIR_LOOP(int64_t)
DEFINE_PAIR_LOOP(float)
DEFINE_PAIR_LOOP(double)

/* max.other(self, other) / min.other: maximum/minimum with PyTorch's type
** promotion and broadcasting. */
EpStatus k_max_other(OpCall *c)
{
    Tensor *ops_in[2] = {arg_tensor(c, 0), arg_tensor(c, 1)};
    bool want_max = op_wants_max(c);
    DType out = result_type(2, ops_in, 0, NULL);
    DType ct = reduce_compute_dtype(out);
    int nd;
    int64_t shape[EP_MAX_DIMS];
    char b1[256], b2[256];
    if (!shape_broadcast(ops_in[0]->ndim, ops_in[0]->sizes, ops_in[1]->ndim, ops_in[1]->sizes, &nd, shape))
        return op_fail(c, "The size of tensor a %s must match the size of tensor b %s at a non-singleton dimension",
                       shape_str(ops_in[0]->ndim, ops_in[0]->sizes, b1, sizeof b1),
                       shape_str(ops_in[1]->ndim, ops_in[1]->sizes, b2, sizeof b2));
    /* convert through the result dtype so that int8 vs uint8 compares as
    ** int16 would, then widen to the compute type */
    Tensor *a = NULL, *b = NULL, *res = NULL, *r = NULL;
    Tensor *tmp[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
        Tensor *t = ops_in[k]->dtype == out ? tensor_ref(ops_in[k]) : tensor_to_dtype(ops_in[k], out, c->err);
        if (!t)
            goto fail;
        tmp[k] = tensor_as_contiguous_dtype(t, ct, c->err);
        tensor_unref(t);
        if (!tmp[k])
            goto fail;
    }
    a = tmp[0];
    b = tmp[1];
    res = tensor_empty(ct, nd, shape, c->err);
    if (!res)
        goto fail;
    TensorIter it;
    Tensor *iops[3] = {res, a, b};
    if (iter_init(&it, nd, shape, 3, iops, c->err) != EP_OK)
        goto fail;
    iter_run(&it, ct == DT_F32 ? pair_max_float : ct == DT_F64 ? pair_max_double : pair_max_int64_t, &want_max);
    r = tensor_as_contiguous_dtype(res, out, c->err);
    if (!r)
        goto fail;
    tensor_unref(res);
    tensor_unref(a);
    tensor_unref(b);
    out_tensor(c, 0, r);
    return EP_OK;
fail:
    tensor_unref(res);
    tensor_unref(tmp[0]);
    tensor_unref(tmp[1]);
    return c->err->code;
}
