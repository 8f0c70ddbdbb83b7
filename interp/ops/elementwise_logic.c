/*
** elementwise_logic.c -- comparisons (eq ne lt le gt ge), logical_and/or/xor,
** bitwise and/or/xor and shifts, where, masked_fill, fill, and the clamp
** family (clamp, clamp_min, clamp_max with Scalar or Tensor bounds).
**
** Comparisons and logical ops compute in the operands' common dtype and
** give bool (their in-place forms store 0/1 in self's dtype); bitwise ops
** take integers and bool only.  where, masked_fill and fill select or
** store values without arithmetic.  clamp with Scalar bounds promotes
** integer tensors by the bounds' types (TensorCompare.cpp).
*/
#include "elementwise.h"

#include <math.h>

/* ---- comparisons and logical ops ------------------------------------------ */

#define COMPARISON(NAME, ...)                                                                   \
    EW_FLOAT_TYPES_TO_BOOL(EW_VLOOP2, NAME, __VA_ARGS__)                                         \
    EW_INT_TYPES_TO_BOOL(EW_VLOOP2, NAME, __VA_ARGS__)                                           \
    EW_BOOL_TYPE(EW_VLOOP2, NAME, __VA_ARGS__)                                                   \
    static const EwKernel K_##NAME = {#NAME "_cpu", {EW_FLOAT_SLOTS(NAME), EW_INT_SLOTS(NAME), EW_BOOL_SLOT(NAME)}};

COMPARISON(eq, a == b)
COMPARISON(ne, a != b)
COMPARISON(lt, a < b)
COMPARISON(le, a <= b)
COMPARISON(gt, a > b)
COMPARISON(ge, a >= b)
/* a value is true when nonzero (nan included) */
COMPARISON(logical_and, a != 0 && b != 0)
COMPARISON(logical_or, a != 0 || b != 0)
COMPARISON(logical_xor, (a != 0) != (b != 0))

static EpStatus comparison(OpCall *c, const EwKernel *k)
{
    Tensor *in[2] = {arg_tensor(c, 0), arg_tensor(c, 1)};
    return ew_pointwise(c, k, 2, in, EWF_BOOL_OUT | ew_inplace_flag(c), NULL);
}

static EpStatus comparison_scalar(OpCall *c, const EwKernel *k)
{
    return ew_binary_scalar(c, k, 0, 1, false, EWF_BOOL_OUT | ew_inplace_flag(c), NULL);
}

/* Kernels of ops.def (calling convention in kernel.h): eq.Tensor / eq_.Tensor
** ... and the .Scalar forms, whose other is wrapped as PyTorch does. */
EpStatus k_eq(OpCall *c) { return comparison(c, &K_eq); }
EpStatus k_ne(OpCall *c) { return comparison(c, &K_ne); }
EpStatus k_lt(OpCall *c) { return comparison(c, &K_lt); }
EpStatus k_le(OpCall *c) { return comparison(c, &K_le); }
EpStatus k_gt(OpCall *c) { return comparison(c, &K_gt); }
EpStatus k_ge(OpCall *c) { return comparison(c, &K_ge); }
EpStatus k_eq_scalar(OpCall *c) { return comparison_scalar(c, &K_eq); }
EpStatus k_ne_scalar(OpCall *c) { return comparison_scalar(c, &K_ne); }
EpStatus k_lt_scalar(OpCall *c) { return comparison_scalar(c, &K_lt); }
EpStatus k_le_scalar(OpCall *c) { return comparison_scalar(c, &K_le); }
EpStatus k_gt_scalar(OpCall *c) { return comparison_scalar(c, &K_gt); }
EpStatus k_ge_scalar(OpCall *c) { return comparison_scalar(c, &K_ge); }
EpStatus k_logical_and(OpCall *c) { return comparison(c, &K_logical_and); }
EpStatus k_logical_or(OpCall *c) { return comparison(c, &K_logical_or); }
EpStatus k_logical_xor(OpCall *c) { return comparison(c, &K_logical_xor); }

/* ---- bitwise ops and shifts ----------------------------------------------------- */

EW_INT_TYPES(EW_VLOOP2, bitwise_and, a & b)
EW_BOOL_TYPE(EW_VLOOP2, bitwise_and, a && b)
static const EwKernel K_BITWISE_AND = {"bitwise_and_cpu", {EW_INT_SLOTS(bitwise_and), EW_BOOL_SLOT(bitwise_and)}};
EW_INT_TYPES(EW_VLOOP2, bitwise_or, a | b)
EW_BOOL_TYPE(EW_VLOOP2, bitwise_or, a || b)
static const EwKernel K_BITWISE_OR = {"bitwise_or_cpu", {EW_INT_SLOTS(bitwise_or), EW_BOOL_SLOT(bitwise_or)}};
EW_INT_TYPES(EW_VLOOP2, bitwise_xor, a ^ b)
EW_BOOL_TYPE(EW_VLOOP2, bitwise_xor, a != b)
static const EwKernel K_BITWISE_XOR = {"bitwise_xor_cpu", {EW_INT_SLOTS(bitwise_xor), EW_BOOL_SLOT(bitwise_xor)}};

/* The shift count is of the operands' type; a count that is negative as a
** signed number of that width, or not below the width, gives 0 (left) or
** the sign fill (right), as BinaryOpsKernel.cpp's lshift/rshift. */
#define SHIFT_OUT_OF_RANGE(b, limit) ((((uint64_t)(U)(b) >> (sizeof(T) * 8 - 1)) & 1) || (uint64_t)(U)(b) >= (limit))
#define RSHIFT_LIMIT (sizeof(T) * 8 - EW_IS_SIGNED(T))
EW_INT_TYPES(EW_VLOOP2, lshift, SHIFT_OUT_OF_RANGE(b, sizeof(T) * 8) ? 0 : (uint64_t)(U)a << (U)b)
EW_INT_TYPES(EW_VLOOP2, rshift, SHIFT_OUT_OF_RANGE(b, RSHIFT_LIMIT) ? a >> RSHIFT_LIMIT : a >> (U)b)
static const EwKernel K_LSHIFT = {"lshift_cpu", {EW_INT_SLOTS(lshift)}};
static const EwKernel K_RSHIFT = {"rshift_cpu", {EW_INT_SLOTS(rshift)}};

static EpStatus binary(OpCall *c, const EwKernel *k)
{
    Tensor *in[2] = {arg_tensor(c, 0), arg_tensor(c, 1)};
    return ew_pointwise(c, k, 2, in, ew_inplace_flag(c), NULL);
}

static EpStatus binary_scalar(OpCall *c, const EwKernel *k)
{
    return ew_binary_scalar(c, k, 0, 1, false, ew_inplace_flag(c), NULL);
}

static EpStatus scalar_binary(OpCall *c, const EwKernel *k)
{
    return ew_binary_scalar(c, k, 1, 0, true, 0, NULL);
}

/* bitwise_and/or/xor (.Tensor, .Scalar, .Scalar_Tensor, in place; also
** __and__ ... __ixor__), bitwise_left/right_shift (.Tensor, .Tensor_Scalar,
** .Scalar_Tensor, in place; also __lshift__ ... __irshift__). */
EpStatus k_bitwise_and(OpCall *c) { return binary(c, &K_BITWISE_AND); }
EpStatus k_bitwise_or(OpCall *c) { return binary(c, &K_BITWISE_OR); }
EpStatus k_bitwise_xor(OpCall *c) { return binary(c, &K_BITWISE_XOR); }
EpStatus k_bitwise_and_scalar(OpCall *c) { return binary_scalar(c, &K_BITWISE_AND); }
EpStatus k_bitwise_or_scalar(OpCall *c) { return binary_scalar(c, &K_BITWISE_OR); }
EpStatus k_bitwise_xor_scalar(OpCall *c) { return binary_scalar(c, &K_BITWISE_XOR); }
EpStatus k_bitwise_and_scalar_tensor(OpCall *c) { return scalar_binary(c, &K_BITWISE_AND); }
EpStatus k_bitwise_or_scalar_tensor(OpCall *c) { return scalar_binary(c, &K_BITWISE_OR); }
EpStatus k_bitwise_xor_scalar_tensor(OpCall *c) { return scalar_binary(c, &K_BITWISE_XOR); }
EpStatus k_lshift(OpCall *c) { return binary(c, &K_LSHIFT); }
EpStatus k_rshift(OpCall *c) { return binary(c, &K_RSHIFT); }
EpStatus k_lshift_scalar(OpCall *c) { return binary_scalar(c, &K_LSHIFT); }
EpStatus k_rshift_scalar(OpCall *c) { return binary_scalar(c, &K_RSHIFT); }
EpStatus k_lshift_scalar_tensor(OpCall *c) { return scalar_binary(c, &K_LSHIFT); }
EpStatus k_rshift_scalar_tensor(OpCall *c) { return scalar_binary(c, &K_RSHIFT); }

/* ---- where, masked_fill, fill ------------------------------------------------------ */

/* out = cond ? x : y, the condition read as bool and the values in the
** common dtype. */
#define WHERE_LOOP_BF16(NAME) /* a bool condition: no all-bfloat16 form */
#define WHERE_LOOP(FN, TYPE, UTYPE, OTYPE, ...)                                                 \
    static inline __attribute__((always_inline)) TYPE FN##_one(uint8_t cond, TYPE x, TYPE y)     \
    {                                                                                            \
        return cond ? x : y; /* both loaded already: a select, no branch */                      \
    }                                                                                            \
    EW_SIMD static void FN(char *out_, char *const *in_, int64_t n, EwArgs *p)                   \
    {                                                                                            \
        EP_UNUSED(p);                                                                            \
        TYPE *out = (TYPE *)(void *)out_;                                                        \
        const uint8_t *cond = (const uint8_t *)in_[0];                                           \
        const TYPE *x = (const TYPE *)(const void *)in_[1];                                      \
        const TYPE *y = (const TYPE *)(const void *)in_[2];                                      \
        int64_t i = 0;                                                                           \
        for (; i + EW_VEC <= n; i += EW_VEC) {                                                   \
            EW_IVDEP for (int j = 0; j < EW_VEC; j++)                                            \
                out[i + j] = FN##_one(cond[i + j], x[i + j], y[i + j]);                          \
        }                                                                                        \
        for (; i < n; i++)                                                                       \
            out[i] = FN##_one(cond[i], x[i], y[i]);                                              \
    }
EW_FLOAT_TYPES(WHERE_LOOP, where, 0)
EW_INT_TYPES(WHERE_LOOP, where, 0)
EW_BOOL_TYPE(WHERE_LOOP, where, 0)
static const EwKernel K_WHERE = {"where_cpu", {EW_FLOAT_SLOTS(where), EW_INT_SLOTS(where), EW_BOOL_SLOT(where)}};

/* Select between x and y by cond into a result of dtype common (in place
** into self_out when not NULL). */
static EpStatus run_where(OpCall *c, Tensor *cond, Tensor *x, Tensor *y, DType common, Tensor *self_out)
{
    Tensor *in[3] = {cond, x, y};
    EwCall call;
    ew_call_init(&call, &K_WHERE, 3, in, common);
    call.via[0] = DT_BOOL;
    call.load[0] = DT_BOOL;
    call.self_out = self_out;
    return ew_execute(c, &call);
}

/* where.self (condition, self, other) and its Scalar forms, whose scalar
** operands arrive wrapped (ScalarSelf, ScalarOther, Scalar). */
static EpStatus where_values(OpCall *c, Tensor *x, Tensor *y)
{
    Tensor *cond = arg_tensor(c, 0);
    /* uint8 conditions still work in PyTorch 2.x, with a deprecation warning */
    if (cond->dtype != DT_BOOL && cond->dtype != DT_U8)
        return op_fail(c, "where expected condition to be a boolean tensor, but got a tensor with dtype %s",
                       dtype_c10_name(cond->dtype));
    Tensor *vals[2] = {x, y};
    return run_where(c, cond, x, y, result_type(2, vals, 0, NULL), NULL);
}

/* Wrap argument i when it is a Scalar, else borrow it; *owned gets the wrap.
** The overloads differ in which operand is a Scalar, so the value's kind
** says which this one is. */
static Tensor *tensor_or_wrapped(OpCall *c, int i, Tensor **owned)
{
    *owned = NULL;
    const Value *v = arg_value(c, i, SCHEMA_BIT(ST_TENSOR) | SCHEMA_BIT(ST_SCALAR));
    if (v->kind == V_TENSOR)
        return v->t;
    *owned = value_wrap_number(v, c->err);
    return *owned;
}

/* where.self, where.ScalarSelf, where.ScalarOther, where.Scalar */
EpStatus k_where(OpCall *c)
{
    Tensor *ox, *oy = NULL;
    EpStatus rc = c->err->code;
    Tensor *x = tensor_or_wrapped(c, 1, &ox);
    if (x) {
        Tensor *y = tensor_or_wrapped(c, 2, &oy);
        if (y)
            rc = where_values(c, x, y);
    }
    tensor_unref(ox);
    tensor_unref(oy);
    return rc;
}

/* A Scalar value of a 0-d tensor, as Tensor.item() gives it. */
static Value tensor_item_value(const Tensor *t)
{
    if (t->dtype == DT_BOOL)
        return value_bool(tensor_item_i64(t) != 0);
    if (dtype_is_float(t->dtype))
        return value_float(tensor_item_f64(t));
    return value_int(tensor_item_i64(t));
}

/* v converted (checked) to a 0-d tensor of dtype t; NULL on failure. */
static Tensor *scalar_tensor_of(OpCall *c, const Value *v, DType t)
{
    Tensor *s = tensor_empty(t, 0, NULL, c->err);
    if (s && ew_scalar_to_dtype(c, v, t, tensor_data(s)) != EP_OK) {
        tensor_unref(s);
        return NULL;
    }
    return s;
}

/* masked_fill: self where mask is false, value where it is true.  The
** out-of-place form broadcasts self and mask together; in place the mask
** must broadcast to self. */
static EpStatus masked_fill(OpCall *c, const Value *value)
{
    Tensor *self = arg_tensor(c, 0), *mask = arg_tensor(c, 1);
    if (mask->dtype != DT_BOOL)
        return op_fail(c, "masked_fill_ only supports boolean masks, but got mask with dtype %s",
                       dtype_meta_name(mask->dtype));
    Tensor *v = scalar_tensor_of(c, value, self->dtype);
    if (!v)
        return c->err->code;
    EpStatus rc = run_where(c, mask, v, self, self->dtype, (c->op->flags & OPF_INPLACE) ? self : NULL);
    tensor_unref(v);
    return rc;
}

/* masked_fill.Scalar / masked_fill_.Scalar (self, mask, Scalar value) */
EpStatus k_masked_fill(OpCall *c)
{
    return masked_fill(c, arg_scalar(c, 2));
}

/* masked_fill.Tensor / masked_fill_.Tensor (self, mask, Tensor value) */
EpStatus k_masked_fill_tensor(OpCall *c)
{
    const Tensor *v = arg_tensor(c, 2);
    if (v->ndim != 0)
        return op_fail(c, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with %d dimension(s).",
                       v->ndim);
    Value item = tensor_item_value(v);
    return masked_fill(c, &item);
}

/* The second operand, broadcast over the first: fill's kernel. */
EW_FLOAT_TYPES(EW_VLOOP2, second, b)
EW_INT_TYPES(EW_VLOOP2, second, b)
EW_BOOL_TYPE(EW_VLOOP2, second, b)
static const EwKernel K_SECOND = {"fill_cpu", {EW_FLOAT_SLOTS_BF16(second), EW_INT_SLOTS(second), EW_BOOL_SLOT(second)}};

static EpStatus fill(OpCall *c, const Value *value)
{
    Tensor *self = arg_tensor(c, 0);
    Tensor *v = scalar_tensor_of(c, value, self->dtype);
    if (!v)
        return c->err->code;
    Tensor *in[2] = {self, v};
    EpStatus rc = ew_pointwise(c, &K_SECOND, 2, in, EWF_SAME_DTYPE | ew_inplace_flag(c), NULL);
    tensor_unref(v);
    return rc;
}

/* fill.Scalar / fill_.Scalar (self, value): a tensor like self, filled */
EpStatus k_fill(OpCall *c)
{
    return fill(c, arg_scalar(c, 1));
}

/* fill.Tensor / fill_.Tensor (self, Tensor value) */
EpStatus k_fill_tensor(OpCall *c)
{
    const Tensor *v = arg_tensor(c, 1);
    if (v->ndim != 0)
        return op_fail(c, "fill_ only supports 0-dimension value tensor but got tensor with %d dimensions.", v->ndim);
    Value item = tensor_item_value(v);
    return fill(c, &item);
}

/* ---- clamp -------------------------------------------------------------------------- */

/* Scalar bounds in f[0]/f[1] (floats) and i[0]/i[1] (integers); i[2] and
** i[3] say whether there is a lower and an upper bound.  std::max(a, lo)
** then std::min(., hi): a nan input stays nan, a nan bound is ignored. */
/* (& rather than &&: no branch, so the loop vectorizes) */
#define CLAMP_LO(x, lo) (((p->i[2] != 0) & ((x) < (lo))) ? (lo) : (x))
#define CLAMP_HI(x, hi) (((p->i[3] != 0) & ((hi) < (x))) ? (hi) : (x))
EW_FLOAT_TYPES(EW_VLOOP1, clamp_scalar, CLAMP_HI(CLAMP_LO(a, (T)p->f[0]), (T)p->f[1]))
EW_INT_TYPES(EW_VLOOP1, clamp_scalar, CLAMP_HI(CLAMP_LO(a, (T)p->i[0]), (T)p->i[1]))
static const EwKernel K_CLAMP_SCALAR = {"clamp_scalar_cpu", {EW_FLOAT_SLOTS_BF16(clamp_scalar), EW_INT_SLOTS(clamp_scalar)}};
static const EwKernel K_CLAMP_MIN_SCALAR = {"clamp_min_scalar_cpu", {EW_FLOAT_SLOTS_BF16(clamp_scalar), EW_INT_SLOTS(clamp_scalar)}};
static const EwKernel K_CLAMP_MAX_SCALAR = {"clamp_max_scalar_cpu", {EW_FLOAT_SLOTS_BF16(clamp_scalar), EW_INT_SLOTS(clamp_scalar)}};

/* Tensor bounds: a nan bound gives nan (clamp_kernel_impl) */
EW_FLOAT_TYPES(EW_VLOOP3, clamp_tensor, (b != b || c != c) ? (T)NAN : (c < (b > a ? b : a) ? c : (b > a ? b : a)))
EW_INT_TYPES(EW_VLOOP3, clamp_tensor, c < (b > a ? b : a) ? c : (b > a ? b : a))
static const EwKernel K_CLAMP_TENSOR = {"clamp_cpu", {EW_FLOAT_SLOTS_BF16(clamp_tensor), EW_INT_SLOTS(clamp_tensor)}};
/* one Tensor bound: maximum / minimum, nan from either side propagating */
EW_FLOAT_TYPES(EW_VLOOP2, max_nan, (a != a || b != b) ? (T)NAN : (a < b ? b : a))
EW_FLOAT_TYPES(EW_VLOOP2, min_nan, (a != a || b != b) ? (T)NAN : (b < a ? b : a))
EW_INT_TYPES(EW_VLOOP2, max_nan, a < b ? b : a)
EW_INT_TYPES(EW_VLOOP2, min_nan, b < a ? b : a)
EW_BOOL_TYPE(EW_VLOOP2, max_nan, a || b)
EW_BOOL_TYPE(EW_VLOOP2, min_nan, a && b)
static const EwKernel K_CLAMP_MIN_TENSOR = {"maximum_cpu", {EW_FLOAT_SLOTS_BF16(max_nan), EW_INT_SLOTS(max_nan), EW_BOOL_SLOT(max_nan)}};
static const EwKernel K_CLAMP_MAX_TENSOR = {"minimum_cpu", {EW_FLOAT_SLOTS_BF16(min_nan), EW_INT_SLOTS(min_nan), EW_BOOL_SLOT(min_nan)}};

EW_FLOAT_TYPES(EW_VLOOP1, all_nan, (T)NAN)
static const EwKernel K_ALL_NAN = {"fill_cpu", {EW_FLOAT_SLOTS_BF16(all_nan)}};

EpStatus ew_clamp_scalar(OpCall *c, Tensor *self, const Value *min, const Value *max, bool inplace)
{
    bool has_min = min && min->kind != V_NONE, has_max = max && max->kind != V_NONE;
    if (!has_min && !has_max)
        return op_fail(c, "torch.clamp: At least one of 'min' or 'max' must not be None");
    /* the bounds take part in type promotion unless self is floating */
    DType common = self->dtype;
    if (!dtype_is_float(common)) {
        Value sc[2];
        int ns = 0;
        if (has_min)
            sc[ns++] = *min;
        if (has_max)
            sc[ns++] = *max;
        common = result_type(1, &self, ns, sc);
        if (inplace && common != self->dtype)
            return op_fail(c, "result type %s can't be cast to the desired output type %s",
                           dtype_c10_name(common), dtype_meta_name(self->dtype));
    }
    const EwKernel *k = has_min && has_max ? &K_CLAMP_SCALAR : has_min ? &K_CLAMP_MIN_SCALAR : &K_CLAMP_MAX_SCALAR;
    EwCall call;
    ew_call_init(&call, k, 1, &self, common);
    call.self_out = inplace ? self : NULL;
    /* the bounds are converted (checked) to the common dtype */
    const Value *bound[2] = {has_min ? min : NULL, has_max ? max : NULL};
    bool nan_bound = false;
    for (int j = 0; j < 2; j++) {
        if (!bound[j])
            continue;
        _Alignas(8) char elem[8];
        EpStatus rc = ew_scalar_to_dtype(c, bound[j], common, elem);
        if (rc)
            return rc;
        call.args.f[j] = dtype_load_f64(common, elem);
        call.args.i[j] = dtype_load_i64(common, elem);
        call.args.i[2 + j] = 1;
        nan_bound |= isnan(call.args.f[j]);
    }
    /* with both bounds, a nan bound makes every result nan */
    if (has_min && has_max && nan_bound)
        call.kernel = &K_ALL_NAN;
    return ew_execute(c, &call);
}

/* clamp.default / clamp_.default (self, Scalar? min=None, Scalar? max=None) */
EpStatus k_clamp(OpCall *c)
{
    return ew_clamp_scalar(c, arg_tensor(c, 0), arg_scalar(c, 1), arg_scalar(c, 2), (c->op->flags & OPF_INPLACE) != 0);
}

/* clamp_min / clamp_min_ (self, Scalar min) and clamp_max: as clamp */
EpStatus k_clamp_min(OpCall *c)
{
    return ew_clamp_scalar(c, arg_tensor(c, 0), arg_scalar(c, 1), NULL, (c->op->flags & OPF_INPLACE) != 0);
}

/* clamp_max / clamp_max_ (self, Scalar max) */
EpStatus k_clamp_max(OpCall *c)
{
    return ew_clamp_scalar(c, arg_tensor(c, 0), NULL, arg_scalar(c, 1), (c->op->flags & OPF_INPLACE) != 0);
}

/* Tensor bounds: result_type over self and the bounds present. */
static EpStatus clamp_tensor(OpCall *c, Tensor *min, Tensor *max)
{
    Tensor *self = arg_tensor(c, 0);
    unsigned flags = ew_inplace_flag(c);
    if (!min && !max)
        return op_fail(c, "torch.clamp: At least one of 'min' or 'max' must not be None");
    if (min && max) {
        Tensor *in[3] = {self, min, max};
        return ew_pointwise(c, &K_CLAMP_TENSOR, 3, in, flags, NULL);
    }
    Tensor *in[2] = {self, min ? min : max};
    return ew_pointwise(c, min ? &K_CLAMP_MIN_TENSOR : &K_CLAMP_MAX_TENSOR, 2, in, flags, NULL);
}

/* clamp.Tensor / clamp_.Tensor (self, Tensor? min=None, Tensor? max=None) */
EpStatus k_clamp_tensor(OpCall *c)
{
    return clamp_tensor(c, arg_tensor(c, 1), arg_tensor(c, 2));
}

/* clamp_min.Tensor / clamp_min_.Tensor and the clamp_max forms: maximum
** and minimum, nan propagating from either operand */
EpStatus k_clamp_min_tensor(OpCall *c)
{
    return clamp_tensor(c, arg_tensor(c, 1), NULL);
}

EpStatus k_clamp_max_tensor(OpCall *c)
{
    return clamp_tensor(c, NULL, arg_tensor(c, 1));
}
