/*
** factory.c -- operators that create tensors: zeros, ones, full, empty*
** (zero-filled so that runs are deterministic), the *_like and new_*
** forms, scalar_tensor, arange, linspace, logspace, eye, tril/triu
** indices, zero_, and the random ops (refused: PyTorch's generator is not
** reproduced).
** Semantics: aten/src/ATen/native/TensorFactories.cpp, RangeFactories.cpp
** and RangeFactoriesKernel.cpp.  The device argument is a placement hint:
** epdbg computes everything on the CPU, so 'cuda' does not fail.
*/
#include "interp/parallel.h"
#include "shape_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A contiguous tensor of sizes (argument size_arg, an int list) and dtype,
** zeroed; checks the layout argument. */
static Tensor *new_sized(OpCall *c, int size_arg, DType dtype, int layout_arg)
{
    int64_t sizes[EP_MAX_DIMS];
    if (layout_arg >= 0 && shape_check_layout(c, layout_arg) != EP_OK)
        return NULL;
    int n = shape_int_list_arg(c, size_arg, sizes, EP_MAX_DIMS);
    if (n < 0)
        return NULL;
    return shape_new_contiguous(c, dtype, n, sizes, true);
}

/* t filled with the number v (checked as fill_ does); t is stolen. */
static Tensor *filled(OpCall *c, Tensor *t, const Value *v)
{
    if (t && shape_fill(c, t, v) != EP_OK) {
        tensor_unref(t);
        return NULL;
    }
    return t;
}

/* ---- sized factories ------------------------------------------------------- */

/* zeros / ones(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None,
** Device? device=None, bool? pin_memory=None) */
EpStatus k_zeros_ones(OpCall *c)
{
    Tensor *t = new_sized(c, 0, arg_dtype(c, 1, DT_F32), 2);
    if (c->op->id == OP_ONES) {
        Value one = value_int(1);
        t = filled(c, t, &one);
    }
    return shape_out(c, t);
}

/* full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, ...): the
** dtype follows the value when not given (bool, int64, float32), as
** TensorFactories.cpp's infer_full_options says.  PyTorch 1.13 called
** through torch.ops turned a bool fill into int64; modern PyTorch is
** followed. */
EpStatus k_full(OpCall *c)
{
    const Value *v = arg_scalar(c, 1);
    DType dflt = v->kind == V_BOOL ? DT_BOOL : v->kind == V_INT ? DT_I64 : DT_F32;
    return shape_out(c, filled(c, new_sized(c, 0, arg_dtype(c, 2, dflt), 3), v));
}

/* empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None,
** Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) */
EpStatus k_empty(OpCall *c)
{
    int64_t sizes[EP_MAX_DIMS], strides[EP_MAX_DIMS];
    if (shape_check_layout(c, 2))
        return c->err->code;
    int n = shape_int_list_arg(c, 0, sizes, EP_MAX_DIMS);
    if (n < 0)
        return c->err->code;
    int mf = arg_memory_format(c, 5, MF_CONTIGUOUS);
    if (mf == MF_PRESERVE)
        return op_fail(c, "unsupported memory format Preserve");
    if (shape_format_strides(c, mf, n, sizes, strides))
        return c->err->code;
    return shape_out(c, shape_new_strided(c, arg_dtype(c, 1, DT_F32), n, sizes, strides, true));
}

/* empty_strided(SymInt[] size, SymInt[] stride, *, ScalarType? dtype=None, ...) */
EpStatus k_empty_strided(OpCall *c)
{
    int64_t sizes[EP_MAX_DIMS], strides[EP_MAX_DIMS];
    if (shape_check_layout(c, 3))
        return c->err->code;
    int n = shape_size_stride_args(c, 0, sizes, strides);
    if (n < 0)
        return c->err->code;
    return shape_out(c, shape_new_strided(c, arg_dtype(c, 2, DT_F32), n, sizes, strides, true));
}

/* empty_permuted(SymInt[] size, int[] physical_layout, *, ScalarType? dtype=None,
** ...): dense memory in the dim order physical_layout (outermost first) */
EpStatus k_empty_permuted(OpCall *c)
{
    int64_t sizes[EP_MAX_DIMS], perm[EP_MAX_DIMS], phys[EP_MAX_DIMS], pst[EP_MAX_DIMS], strides[EP_MAX_DIMS];
    if (shape_check_layout(c, 3))
        return c->err->code;
    int n = shape_int_list_arg(c, 0, sizes, EP_MAX_DIMS);
    int m = n < 0 ? -1 : shape_int_list_arg(c, 1, perm, EP_MAX_DIMS);
    if (m < 0)
        return c->err->code;
    if (n != m)
        return op_fail(c, "Number of dimensions in size does not match the length of the physical_layout; i.e. "
                       "len(size) = %d is not equal to len(physical_layout) = %d", n, m);
    bool seen[EP_MAX_DIMS] = {false};
    for (int i = 0; i < n; i++) {
        if (perm[i] < 0 || perm[i] >= n)
            return op_fail(c, "Dimension %lld is out of range in physical_layout", (long long)perm[i]);
        if (seen[perm[i]])
            return op_fail(c, "Dimension %lld occurs twice in physical_layout", (long long)perm[i]);
        seen[perm[i]] = true;
        phys[i] = sizes[perm[i]];
    }
    if (shape_format_strides(c, MF_CONTIGUOUS, n, phys, pst))
        return c->err->code;
    for (int i = 0; i < n; i++)
        strides[perm[i]] = pst[i];
    return shape_out(c, shape_new_strided(c, arg_dtype(c, 2, DT_F32), n, sizes, strides, true));
}

/* ---- _like and new_ -------------------------------------------------------- */

/* empty_like / zeros_like / ones_like(Tensor self, *, ScalarType? dtype=None,
** Layout? layout=None, Device? device=None, bool? pin_memory=None,
** MemoryFormat? memory_format=None) and full_like(self, Scalar fill_value, *,
** ...): self's shape, and its strides under the preserve rule */
EpStatus k_like(OpCall *c)
{
    Tensor *self = arg_tensor(c, 0);
    OpId id = c->op->id;
    int o = id == OP_FULL_LIKE ? 2 : 1; /* first keyword argument */
    if (shape_check_layout(c, o + 1))
        return c->err->code;
    Tensor *t = shape_new_like(c, self, arg_dtype(c, o, self->dtype), arg_memory_format(c, o + 4, MF_PRESERVE), true);
    if (id == OP_ONES_LIKE) {
        Value one = value_int(1);
        t = filled(c, t, &one);
    } else if (id == OP_FULL_LIKE) {
        t = filled(c, t, arg_scalar(c, 1));
    }
    return shape_out(c, t);
}

/* new_zeros / new_ones / new_empty(Tensor self, SymInt[] size, *, ScalarType?
** dtype=None, ...), new_full(self, size, Scalar fill_value, *, ...): a
** contiguous tensor with self's dtype unless dtype is given */
EpStatus k_new(OpCall *c)
{
    Tensor *self = arg_tensor(c, 0);
    OpId id = c->op->id;
    int o = id == OP_NEW_FULL ? 3 : 2;
    Tensor *t = new_sized(c, 1, arg_dtype(c, o, self->dtype), o + 1);
    if (id == OP_NEW_ONES) {
        Value one = value_int(1);
        t = filled(c, t, &one);
    } else if (id == OP_NEW_FULL) {
        t = filled(c, t, arg_scalar(c, 2));
    }
    return shape_out(c, t);
}

/* new_empty_strided(Tensor self, SymInt[] size, SymInt[] stride, *,
** ScalarType? dtype=None, ...) */
EpStatus k_new_empty_strided(OpCall *c)
{
    Tensor *self = arg_tensor(c, 0);
    int64_t sizes[EP_MAX_DIMS], strides[EP_MAX_DIMS];
    if (shape_check_layout(c, 4))
        return c->err->code;
    int n = shape_size_stride_args(c, 1, sizes, strides);
    if (n < 0)
        return c->err->code;
    return shape_out(c, shape_new_strided(c, arg_dtype(c, 3, self->dtype), n, sizes, strides, true));
}

/* scalar_tensor(Scalar s, *, ScalarType? dtype=None, ...): float32 unless
** dtype says otherwise, whatever the kind of s */
EpStatus k_scalar_tensor(OpCall *c)
{
    if (shape_check_layout(c, 2))
        return c->err->code;
    Tensor *t = shape_new_strided(c, arg_dtype(c, 1, DT_F32), 0, NULL, NULL, false);
    return shape_out(c, filled(c, t, arg_scalar(c, 0)));
}

/* zero_(Tensor(a!) self) */
EpStatus k_zero_(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    Value zero = value_int(0);
    if (shape_fill(c, t, &zero) != EP_OK)
        return c->err->code;
    out_tensor(c, 0, tensor_ref(t));
    return EP_OK;
}

/* ---- ranges ------------------------------------------------------------------ */

static bool is_int_scalar(const Value *v) { return v->kind == V_INT || v->kind == V_BOOL; }

static int64_t scalar_to_i64(const Value *v)
{
    if (v->kind == V_FLOAT) { /* truncation, as Scalar::to<int64_t> */
        if (!(v->f > -9.3e18 && v->f < 9.3e18))
            return v->f > 0 ? INT64_MAX : INT64_MIN;
        return (int64_t)v->f;
    }
    return v->kind == V_BOOL ? v->b : v->i;
}

/* Round v to what dtype holds: floats to nearest, integers truncated and
** wrapped to their width (the implicit conversions of PyTorch's kernels). */
static double in_type(DType t, double v)
{
    unsigned char buf[8];
    if (t == DT_F64)
        return v;
    dtype_store_f64(t, buf, v);
    return dtype_load_f64(t, buf);
}

/* The parameters of an arange or linspace fill, in the types PyTorch
** computes them in (see range_value). */
typedef struct RangeFill {
    DType dtype;
    bool linspace;
    double start, end, step; /* arange: the accumulation type's values */
    int64_t steps, halfway;  /* linspace */
} RangeFill;

/* Element i as the scalar loop computes it (also the base of a vector that
** starts at i).  arange: start + step * i in the accumulation type (int64,
** float for half types, else double).  linspace: from start for the first
** half, back from end for the second, in the output type (double for
** integers), as RangeFactoriesKernel.cpp does. */
static double range_value(const RangeFill *r, int64_t i)
{
    DType t = r->dtype;
    if (!r->linspace) {
        if (t == DT_F16 || t == DT_BF16)
            return in_type(t, (float)((float)r->start + (float)((float)r->step * (float)i)));
        return in_type(t, r->start + r->step * (double)i);
    }
    bool is_int = !dtype_is_float(t);
    double k = (double)(i < r->halfway ? i : r->steps - i - 1);
    double delta = is_int ? r->step * k : in_type(t, r->step * in_type(t, k));
    double v = i < r->halfway ? r->start + delta : r->end - delta;
    return in_type(t, v);
}

/* Lane k of a vector whose first element is base (Vectorized::arange:
** base + k * step, the product in the step's type). */
static double range_lane(const RangeFill *r, double base, int64_t k)
{
    DType t = r->dtype;
    if (!r->linspace && (t == DT_F16 || t == DT_BF16))
        return in_type(t, (float)(base + (float)((float)k * (float)r->step)));
    if (!r->linspace || !dtype_is_float(t))
        return in_type(t, base + (double)k * r->step);
    return in_type(t, base + in_type(t, in_type(t, (double)k) * r->step));
}

/* Fill the 1-D contiguous t as cpu_serial_kernel_vec does with one thread:
** vectors of 32 bytes (AVX2 and the portable build) over the longest
** prefix holding an even number of them, each built from its base by
** range_lane, then the tail element by element.  The two paths round
** differently (integer linspace truncates the base), so both are kept. */
/* Elements per chunk of the pool in arange's fills (a multiple of every
** vector's lanes) */
#define RANGE_GRAIN 65536

typedef struct RangeChunk {
    Tensor *t;
    const RangeFill *r;
    int64_t vec_end;
} RangeChunk;

/* range_fill's float32 and float64 arange, typed: the same values (the
** base of each vector from range_value, lane k base + k step in double,
** rounded to the dtype).  Chunks start on a vector (the grain is a multiple
** of the lanes), so any split gives the same values. */
static void float_range_chunk(void *ctx, int64_t begin, int64_t end)
{
    const RangeChunk *rc = ctx;
    const RangeFill *r = rc->r;
    const double start = r->start, step = r->step;
    const int64_t vec_end = end < rc->vec_end ? end : rc->vec_end;
    if (rc->t->dtype == DT_F32) {
        float *p = tensor_data(rc->t);
        int64_t i = begin;
        for (; i < vec_end; i += 8) {
            double base = (float)(start + step * (double)i);
            for (int k = 0; k < 8; k++)
                p[i + k] = (float)(base + (double)k * step);
        }
        for (; i < end; i++)
            p[i] = (float)(start + step * (double)i);
    } else {
        double *p = tensor_data(rc->t);
        int64_t i = begin;
        for (; i < vec_end; i += 4) {
            double base = start + step * (double)i;
            for (int k = 0; k < 4; k++)
                p[i + k] = base + (double)k * step;
        }
        for (; i < end; i++)
            p[i] = start + step * (double)i;
    }
}

static void range_fill(Tensor *t, const RangeFill *r)
{
    const int es = dtype_size(t->dtype);
    const int64_t n = t->sizes[0], lanes = 32 / es;
    const int64_t vec_end = n - n % (2 * lanes);
    if (!r->linspace && (t->dtype == DT_F32 || t->dtype == DT_F64)) {
        RangeChunk rc = {t, r, vec_end};
        ep_parallel_for(n, RANGE_GRAIN, float_range_chunk, &rc);
        return;
    }
    char *p = tensor_data(t);
    for (int64_t i = 0; i < vec_end; i += lanes) {
        double base = range_value(r, i);
        for (int64_t k = 0; k < lanes; k++)
            dtype_store_f64(t->dtype, p + (i + k) * es, range_lane(r, base, k));
    }
    for (int64_t i = vec_end; i < n; i++)
        dtype_store_f64(t->dtype, p + i * es, range_value(r, i));
}

/* An integer arange's fill: element i is start + step i in int64 that
** wraps, narrowed to the dtype; chunks of the pool write their own range. */
typedef struct IntRange {
    Tensor *t;
    uint64_t start, step;
} IntRange;

static void int_range_chunk(void *ctx, int64_t begin, int64_t end)
{
    const IntRange *r = ctx;
    uint64_t v = r->start + r->step * (uint64_t)begin;
    if (r->t->dtype == DT_I64) { /* the common case typed: a vector loop */
        int64_t *p = tensor_data(r->t);
        for (int64_t i = begin; i < end; i++, v += r->step)
            p[i] = (int64_t)v;
        return;
    }
    const int es = dtype_size(r->t->dtype);
    char *p = (char *)tensor_data(r->t) + begin * es;
    for (int64_t i = begin; i < end; i++, v += r->step, p += es)
        dtype_store_i64(r->t->dtype, p, (int64_t)v);
}

/* arange.default(Scalar end, *, ...), arange.start(Scalar start, Scalar end,
** *, ...), arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ...).
** Integers unless some bound is a float.  Values are computed in the
** dtype's accumulation type (int64, float for half types, else double). */
EpStatus k_arange(OpCall *c)
{
    OpId id = c->op->id;
    Value zero = value_int(0), one = value_int(1);
    const Value *start = id == OP_ARANGE ? &zero : arg_scalar(c, 0);
    const Value *end = id == OP_ARANGE ? arg_scalar(c, 0) : arg_scalar(c, 1);
    const Value *step = id == OP_ARANGE_START_STEP ? arg_scalar(c, 2) : &one;
    int o = id == OP_ARANGE ? 1 : id == OP_ARANGE_START ? 2 : 3;
    bool any_float = !is_int_scalar(start) || !is_int_scalar(end) || !is_int_scalar(step);
    DType dtype = arg_dtype(c, o, any_float ? DT_F32 : DT_I64);
    if (shape_check_layout(c, o + 1))
        return c->err->code;
    if (dtype == DT_BOOL)
        return op_fail(c, "\"arange_cpu\" not implemented for 'Bool'");
    double dstart = value_as_f64(start), dend = value_as_f64(end), dstep = value_as_f64(step);
    bool int_acc = !dtype_is_float(dtype);
    int64_t istart = 0, iend = 0, istep = 0;
    double xstart = dstart, xend = dend, xstep = dstep, size_d;
    if (int_acc) {
        istart = scalar_to_i64(start);
        iend = scalar_to_i64(end);
        istep = scalar_to_i64(step);
        xstart = (double)istart;
        xend = (double)iend;
        xstep = (double)istep;
    } else if (dtype == DT_F16 || dtype == DT_BF16) {
        xstart = (float)dstart;
        xend = (float)dend;
        xstep = (float)dstep;
    }
    if (dtype == DT_I64 && istep != 0) {
        /* exact integer count: int64 bounds exceed double's precision */
        int64_t sgn = istep > 0 ? 1 : -1, span;
        if (__builtin_sub_overflow(iend, istart, &span) || !ep_add_i64(span, istep - sgn, &span) ||
            (span == INT64_MIN && istep == -1))
            return op_fail(c, "invalid size, possible overflow?");
        size_d = (double)(span / istep);
    } else {
        size_d = ceil((dend - dstart) / dstep);
    }
    if (xstep == 0)
        return op_fail(c, "step must be nonzero");
    if (!isfinite(xstart) || !isfinite(xend))
        return op_fail(c, "unsupported range: %g -> %g", xstart, xend);
    if (!((xstep > 0 && xend >= xstart) || (xstep < 0 && xend <= xstart)))
        return op_fail(c, "upper bound and larger bound inconsistent with step sign");
    if (!(size_d >= 0 && size_d <= 9.2e18))
        return op_fail(c, "invalid size, possible overflow?");
    int64_t n = (int64_t)size_d, stride = 1;
    Tensor *t = shape_new_strided(c, dtype, 1, &n, &stride, false);
    if (!t)
        return c->err->code;
    if (int_acc) {
        /* exact int64 arithmetic that wraps, then narrows: vectors and
        ** scalars agree, as integer sums are exact */
        IntRange r = {t, (uint64_t)istart, (uint64_t)istep};
        ep_parallel_for(n, RANGE_GRAIN, int_range_chunk, &r);
    } else {
        RangeFill r = {.dtype = dtype, .linspace = false, .start = xstart, .end = xend, .step = xstep};
        range_fill(t, &r);
    }
    return shape_out(c, t);
}

/* A 0-d tensor argument of the Tensor overloads of linspace/logspace as a
** Python number. */
static EpStatus bound_value(OpCall *c, int i, const char *name, Value *out)
{
    const Value *v = arg_value(c, i, SCHEMA_BIT(ST_TENSOR) | SCHEMA_BIT(ST_SCALAR));
    if (v->kind != V_TENSOR) {
        *out = *v;
        return EP_OK;
    }
    const Tensor *t = v->t;
    if (t->ndim != 0)
        return op_fail(c, "%s only supports 0-dimensional start and end tensors, but got a bound with %d "
                       "dimension(s).", name, t->ndim);
    if (dtype_is_float(t->dtype))
        *out = value_float(tensor_item_f64(t));
    else
        *out = value_int(tensor_item_i64(t));
    return EP_OK;
}

/* linspace(Scalar start, Scalar end, int steps, *, ScalarType? dtype=None, ...)
** and its Tensor_Tensor / Tensor_Scalar / Scalar_Tensor overloads.  The
** first half counts up from start, the second down from end, each in the
** output type (double steps for integers), as LinspaceKernel does. */
EpStatus k_linspace(OpCall *c)
{
    Value vs, ve;
    if (bound_value(c, 0, "linspace", &vs) || bound_value(c, 1, "linspace", &ve))
        return c->err->code;
    int64_t steps = arg_int(c, 2), stride = 1;
    DType dtype = arg_dtype(c, 3, DT_F32);
    if (shape_check_layout(c, 4))
        return c->err->code;
    if (steps < 0)
        return op_fail(c, "number of steps must be non-negative");
    if (dtype == DT_BOOL)
        return op_fail(c, "\"linspace_cpu\" not implemented for 'Bool'");
    /* the bounds convert to the dtype as Scalar::to checks them */
    if (shape_check_scalar_fits(c, dtype, &vs) || shape_check_scalar_fits(c, dtype, &ve))
        return c->err->code;
    Tensor *t = shape_new_strided(c, dtype, 1, &steps, &stride, false);
    if (!t)
        return c->err->code;
    if (steps == 1)
        return shape_out(c, filled(c, t, &vs));
    bool is_int = !dtype_is_float(dtype);
    RangeFill r = {.dtype = dtype, .linspace = true, .steps = steps, .halfway = steps / 2};
    r.start = in_type(dtype, is_int ? (double)scalar_to_i64(&vs) : value_as_f64(&vs));
    r.end = in_type(dtype, is_int ? (double)scalar_to_i64(&ve) : value_as_f64(&ve));
    /* integers step in double; floats in their own type, (end - start)
    ** and the divisor rounded to it first */
    if (is_int)
        r.step = (r.end - r.start) / (double)(steps - 1);
    else
        r.step = in_type(dtype, in_type(dtype, r.end - r.start) / in_type(dtype, (double)(steps - 1)));
    range_fill(t, &r);
    return shape_out(c, t);
}

/* logspace(Scalar start, Scalar end, int steps, float base=10.0, *,
** ScalarType? dtype=None, ...) and its Tensor overloads: base to the powers
** of a linspace computed in double from bounds rounded to the dtype */
EpStatus k_logspace(OpCall *c)
{
    Value vs, ve;
    if (bound_value(c, 0, "logspace", &vs) || bound_value(c, 1, "logspace", &ve))
        return c->err->code;
    int64_t steps = arg_int(c, 2), stride = 1;
    double base = arg_float(c, 3);
    DType dtype = arg_dtype(c, 4, DT_F32);
    if (shape_check_layout(c, 5))
        return c->err->code;
    if (steps < 0)
        return op_fail(c, "number of steps must be non-negative");
    if (dtype == DT_BOOL)
        return op_fail(c, "\"logspace_cpu\" not implemented for 'Bool'");
    Tensor *t = shape_new_strided(c, dtype, 1, &steps, &stride, false);
    if (!t)
        return c->err->code;
    char *p = tensor_data(t);
    const int es = dtype_size(dtype);
    if (steps == 1) {
        dtype_store_f64(dtype, p, pow(base, value_as_f64(&vs)));
        return shape_out(c, t);
    }
    bool is_int = !dtype_is_float(dtype);
    double start = is_int ? (double)scalar_to_i64(&vs) : in_type(dtype, value_as_f64(&vs));
    double end = is_int ? (double)scalar_to_i64(&ve) : in_type(dtype, value_as_f64(&ve));
    double step = in_type(is_int ? DT_F64 : dtype, end - start) / (double)(steps - 1);
    int64_t half = steps / 2;
    for (int64_t i = 0; i < steps; i++, p += es) {
        double e = i < half ? start + step * (double)i : end - step * (double)(steps - i - 1);
        dtype_store_f64(dtype, p, pow(base, e));
    }
    return shape_out(c, t);
}

/* eye(SymInt n, *, ...) and eye.m(SymInt n, SymInt m, *, ...) */
EpStatus k_eye(OpCall *c)
{
    bool has_m = c->op->id == OP_EYE_M;
    int64_t n = arg_int(c, 0), m = has_m ? arg_int(c, 1) : n;
    int o = has_m ? 2 : 1;
    if (n < 0)
        return op_fail(c, "n must be greater or equal to 0, got %lld", (long long)n);
    if (m < 0)
        return op_fail(c, "m must be greater or equal to 0, got %lld", (long long)m);
    if (shape_check_layout(c, o + 1))
        return c->err->code;
    DType dtype = arg_dtype(c, o, DT_F32);
    int64_t sizes[2] = {n, m}, strides[2] = {m > 1 ? m : 1, 1};
    Tensor *t = shape_new_strided(c, dtype, 2, sizes, strides, true);
    if (!t)
        return c->err->code;
    char *p = tensor_data(t);
    for (int64_t i = 0; i < n && i < m; i++)
        dtype_store_i64(dtype, p + (i * strides[0] + i) * dtype_size(dtype), 1);
    return shape_out(c, t);
}

/* sum over i in [0, row) of clamp(i + a, 0, col), |a| <= row + col + 1. */
static __int128 clamped_row_sum(int64_t row, int64_t col, int64_t a)
{
    __int128 i1 = 1 - (__int128)a, i2 = (__int128)col - a; /* first i above 0; first i at col */
    i1 = i1 < 0 ? 0 : i1 > row ? row : i1;
    i2 = i2 < i1 ? i1 : i2 > row ? row : i2;
    return (i2 - i1) * (i1 + a + i2 - 1 + a) / 2 + (row - i2) * col;
}

/* tril_indices / triu_indices(int row, int col, int offset=0, *,
** ScalarType? dtype=long, ...): the coordinates of the lower / upper
** triangle as a 2 x N tensor, row by row */
EpStatus k_tri_indices(OpCall *c)
{
    bool lower = c->op->id == OP_TRIL_INDICES;
    int64_t row = arg_int(c, 0), col = arg_int(c, 1), offset = arg_int(c, 2);
    DType dtype = arg_dtype(c, 3, DT_I64);
    const char *name = lower ? "tril_indices" : "triu_indices";
    if (shape_check_layout(c, 4))
        return c->err->code;
    if (dtype != DT_I64 && dtype != DT_I32)
        return op_fail(c, "\"%s\" not implemented for '%s'", name, dtype_c10_name(dtype));
    if (row < 0)
        return op_fail(c, "row must be non-negative, got%lld", (long long)row);
    if (col < 0)
        return op_fail(c, "col must be non-negative, got%lld", (long long)col);
    /* clamping keeps i + offset in range without changing the triangle */
    int64_t k = offset > col ? col : offset < -row - 1 ? -row - 1 : offset;
    /* row i holds columns [0, clamp(i + k + 1)) of the lower triangle and
    ** [clamp(i + k), col) of the upper one: sums in closed form, so that
    ** huge empty shapes cost nothing */
    __int128 count = lower ? clamped_row_sum(row, col, k + 1)
                           : (__int128)row * col - clamped_row_sum(row, col, k);
    if (count > ((__int128)1 << 40))
        return op_fail(c, "%s(%lld, %lld, %lld) is too large", name, (long long)row, (long long)col,
                       (long long)offset);
    int64_t n = (int64_t)count;
    int64_t sizes[2] = {2, n}, strides[2] = {n > 1 ? n : 1, 1};
    Tensor *t = shape_new_strided(c, dtype, 2, sizes, strides, false);
    if (!t)
        return c->err->code;
    char *p = tensor_data(t);
    const int es = dtype_size(dtype);
    int64_t at = 0;
    /* only rows that hold entries, so the loop is bounded by n */
    int64_t first = 0, last = 0;
    if (n > 0) { /* then these bounds fit: some row i < row holds entries */
        first = lower && k < 0 ? -k : 0;
        last = lower || k <= col - row ? row : col - k;
    }
    for (int64_t i = first; i < last; i++) {
        int64_t lo = lower ? 0 : (i + k > 0 ? i + k : 0), hi = lower ? (i + k + 1 < col ? i + k + 1 : col) : col;
        for (int64_t j = lo; j < hi; j++, at++) {
            dtype_store_i64(dtype, p + at * es, i);
            dtype_store_i64(dtype, p + (n + at) * es, j);
        }
    }
    return shape_out(c, t);
}

/* ---- random ops ------------------------------------------------------------ */

/* rand, randn, randint, randperm, bernoulli, ...: results depend on
** PyTorch's generator state, which epdbg does not model */
EpStatus k_random(OpCall *c)
{
    return op_fail(c, "random op %s: epdbg does not reproduce PyTorch's generator", c->op->target);
}
