/*
** sym.c -- kernels for SymInt/SymFloat/SymBool arithmetic (Python operator
** semantics), tensor metadata queries and runtime assertions.
*/
#include "kernel.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- Python number semantics -------------------------------------------- */

static bool is_intlike(const Value *v) { return v->kind == V_INT || v->kind == V_BOOL; }
static int64_t as_int(const Value *v) { return v->kind == V_BOOL ? v->b : v->i; }

/* Python's float divmod: the remainder takes the divisor's sign. */
static double py_float_mod(double a, double b)
{
    double m = fmod(a, b);
    if (m != 0) {
        if ((b < 0) != (m < 0))
            m += b;
    } else {
        m = copysign(0.0, b);
    }
    return m;
}

static double py_float_floordiv(double a, double b)
{
    double m = fmod(a, b);
    double div = (a - m) / b;
    if (m != 0 && ((b < 0) != (m < 0)))
        div -= 1.0;
    if (div != 0) {
        double fl = floor(div);
        if (div - fl > 0.5)
            fl += 1.0;
        return fl;
    }
    return copysign(0.0, a / b);
}

static int64_t ipow_wrap(int64_t base, int64_t exp)
{
    uint64_t r = 1, b = (uint64_t)base;
    while (exp > 0) {
        if (exp & 1)
            r *= b;
        b *= b;
        exp >>= 1;
    }
    return (int64_t)r;
}

static EpStatus zero_division(OpCall *c, const char *what)
{
    return op_fail(c, "ZeroDivisionError: %s by zero", what);
}

/* int OP int with Python semantics; returns false on a Python error. */
static EpStatus int_binary(OpCall *c, OpId id, int64_t a, int64_t b, Value *out)
{
    switch (id) {
    case OP_PY_ADD: *out = value_int((int64_t)((uint64_t)a + (uint64_t)b)); break;
    case OP_PY_SUB: *out = value_int((int64_t)((uint64_t)a - (uint64_t)b)); break;
    case OP_PY_MUL: *out = value_int((int64_t)((uint64_t)a * (uint64_t)b)); break;
    case OP_PY_FLOORDIV:
        if (b == 0)
            return zero_division(c, "integer division or modulo");
        *out = value_int(ep_floordiv_i64(a, b));
        break;
    case OP_PY_MOD:
        if (b == 0)
            return zero_division(c, "integer modulo");
        *out = value_int(ep_mod_i64(a, b));
        break;
    case OP_PY_TRUEDIV:
        if (b == 0)
            return zero_division(c, "division");
        *out = value_float((double)a / (double)b);
        break;
    case OP_PY_POW:
        if (b < 0) {
            if (a == 0)
                return zero_division(c, "0.0 cannot be raised to a negative power; division");
            *out = value_float(pow((double)a, (double)b));
        } else {
            *out = value_int(ipow_wrap(a, b));
        }
        break;
    case OP_PY_LSHIFT:
        if (b < 0)
            return op_fail(c, "ValueError: negative shift count");
        *out = value_int(b >= 64 ? 0 : (int64_t)((uint64_t)a << b));
        break;
    case OP_PY_RSHIFT:
        if (b < 0)
            return op_fail(c, "ValueError: negative shift count");
        *out = value_int(b >= 64 ? (a < 0 ? -1 : 0) : a >> b);
        break;
    case OP_PY_AND: *out = value_int(a & b); break;
    case OP_PY_OR: *out = value_int(a | b); break;
    case OP_PY_XOR: *out = value_int(a ^ b); break;
    case OP_PY_EQ: *out = value_bool(a == b); break;
    case OP_PY_NE: *out = value_bool(a != b); break;
    case OP_PY_LT: *out = value_bool(a < b); break;
    case OP_PY_LE: *out = value_bool(a <= b); break;
    case OP_PY_GT: *out = value_bool(a > b); break;
    case OP_PY_GE: *out = value_bool(a >= b); break;
    case OP_SYM_MAX: *out = value_int(a >= b ? a : b); break;
    case OP_SYM_MIN: *out = value_int(a <= b ? a : b); break;
    default: return op_fail(c, "not defined on integers");
    }
    return EP_OK;
}

static EpStatus float_binary(OpCall *c, OpId id, double a, double b, Value *out)
{
    switch (id) {
    case OP_PY_ADD: *out = value_float(a + b); break;
    case OP_PY_SUB: *out = value_float(a - b); break;
    case OP_PY_MUL: *out = value_float(a * b); break;
    case OP_PY_TRUEDIV:
        if (b == 0)
            return zero_division(c, "float division");
        *out = value_float(a / b);
        break;
    case OP_PY_FLOORDIV:
        if (b == 0)
            return zero_division(c, "float floor division");
        *out = value_float(py_float_floordiv(a, b));
        break;
    case OP_PY_MOD:
        if (b == 0)
            return zero_division(c, "float modulo");
        *out = value_float(py_float_mod(a, b));
        break;
    case OP_PY_POW: *out = value_float(pow(a, b)); break;
    case OP_PY_EQ: *out = value_bool(a == b); break;
    case OP_PY_NE: *out = value_bool(a != b); break;
    case OP_PY_LT: *out = value_bool(a < b); break;
    case OP_PY_LE: *out = value_bool(a <= b); break;
    case OP_PY_GT: *out = value_bool(a > b); break;
    case OP_PY_GE: *out = value_bool(a >= b); break;
    default: return op_fail(c, "not defined on floats");
    }
    return EP_OK;
}

/* _operator.add(a, b) and friends.  Python: bool acts as int in arithmetic;
** &, |, ^ of two bools stay bool; max/min return the chosen operand as is. */
EpStatus k_py_binary(OpCall *c)
{
    const Value *a = arg_scalar(c, 0), *b = arg_scalar(c, 1);
    OpId id = c->op->id;
    if (!value_is_scalar(a) || !value_is_scalar(b))
        return op_fail(c, "expected numbers, got %s and %s", value_kind_name(a->kind), value_kind_name(b->kind));
    if (a->kind == V_BOOL && b->kind == V_BOOL && (id == OP_PY_AND || id == OP_PY_OR || id == OP_PY_XOR)) {
        bool r = id == OP_PY_AND ? (a->b && b->b) : id == OP_PY_OR ? (a->b || b->b) : (a->b != b->b);
        c->outs[0] = value_bool(r);
        return EP_OK;
    }
    if (id == OP_SYM_MAX || id == OP_SYM_MIN) {
        double x = value_as_f64(a), y = value_as_f64(b);
        bool pick_a = id == OP_SYM_MAX ? !(y > x) : !(y < x);
        c->outs[0] = pick_a ? *a : *b;
        return EP_OK;
    }
    if (is_intlike(a) && is_intlike(b))
        return int_binary(c, id, as_int(a), as_int(b), &c->outs[0]);
    return float_binary(c, id, value_as_f64(a), value_as_f64(b), &c->outs[0]);
}

EpStatus k_py_unary(OpCall *c)
{
    const Value *a = arg_scalar(c, 0);
    if (!value_is_scalar(a))
        return op_fail(c, "expected a number, got %s", value_kind_name(a->kind));
    bool isint = is_intlike(a);
    double f = value_as_f64(a);
    switch (c->op->id) {
    case OP_PY_NEG:
        c->outs[0] = isint ? value_int((int64_t)(0 - (uint64_t)as_int(a))) : value_float(-f);
        break;
    case OP_PY_POS: c->outs[0] = isint ? value_int(as_int(a)) : value_float(f); break;
    case OP_PY_ABS:
        c->outs[0] = isint ? value_int(as_int(a) < 0 ? (int64_t)(0 - (uint64_t)as_int(a)) : as_int(a))
                           : value_float(fabs(f));
        break;
    case OP_PY_NOT:
    case OP_SYM_NOT: c->outs[0] = value_bool(f == 0); break;
    case OP_PY_INVERT:
        if (!isint)
            return op_fail(c, "bad operand type for unary ~: 'float'");
        c->outs[0] = value_int(~as_int(a));
        break;
    case OP_MATH_TRUNC:
    case OP_SYM_INT:
    case OP_MATH_FLOOR:
    case OP_MATH_CEIL: {
        if (isint) {
            c->outs[0] = value_int(as_int(a));
            break;
        }
        if (!isfinite(f))
            return op_fail(c, "cannot convert float %g to integer", f);
        double r = c->op->id == OP_MATH_FLOOR ? floor(f) : c->op->id == OP_MATH_CEIL ? ceil(f) : trunc(f);
        c->outs[0] = value_int((int64_t)r);
        break;
    }
    case OP_MATH_SQRT:
    case OP_SYM_SQRT:
    case OP_SYM_SQRT_PRIV:
        if (f < 0)
            return op_fail(c, "ValueError: math domain error (sqrt of %g)", f);
        c->outs[0] = value_float(sqrt(f));
        break;
    case OP_SYM_FLOAT: c->outs[0] = value_float(f); break;
    default: return op_fail(c, "internal: unhandled unary op");
    }
    return EP_OK;
}

EpStatus k_sym_ite(OpCall *c)
{
    const Value *cond = arg_scalar(c, 0);
    if (!value_is_scalar(cond))
        return op_fail(c, "condition must be a SymBool");
    c->outs[0] = value_copy(value_as_f64(cond) != 0 ? arg_scalar(c, 1) : arg_scalar(c, 2));
    return EP_OK;
}

EpStatus k_sym_sum(OpCall *c)
{
    const ValueList *l = arg_list(c, 0);
    if (!l)
        return op_fail(c, "expected a list of numbers");
    bool all_int = true;
    int64_t si = 0;
    double sf = 0;
    for (int i = 0; i < l->n; i++) {
        const Value *v = &l->items[i];
        if (!value_is_scalar(v))
            return op_fail(c, "expected numbers in the list");
        if (is_intlike(v))
            si = (int64_t)((uint64_t)si + (uint64_t)as_int(v));
        else
            all_int = false;
        sf += value_as_f64(v);
    }
    c->outs[0] = all_int ? value_int(si) : value_float(sf);
    return EP_OK;
}

/* ---- tensor metadata ---------------------------------------------------- */

static EpStatus wrap_dim_arg(OpCall *c, const Tensor *t, int64_t dim, int *out)
{
    if (t->ndim == 0 || !dim_wrap(dim, t->ndim, out))
        return op_fail(c, "dimension %lld out of range for a tensor of rank %d", (long long)dim, t->ndim);
    return EP_OK;
}

/* sym_size.int and sym_stride.int: one dimension's size or stride. */
static EpStatus dim_property(OpCall *c, bool stride)
{
    const Tensor *t = arg_tensor(c, 0);
    int d;
    EpStatus rc = wrap_dim_arg(c, t, arg_int(c, 1), &d);
    if (rc)
        return rc;
    c->outs[0] = value_int(stride ? t->strides[d] : t->sizes[d]);
    return EP_OK;
}

EpStatus k_sym_size(OpCall *c)
{
    return dim_property(c, false);
}

EpStatus k_sym_stride(OpCall *c)
{
    return dim_property(c, true);
}

EpStatus k_sym_numel(OpCall *c)
{
    c->outs[0] = value_int(tensor_numel(arg_tensor(c, 0)));
    return EP_OK;
}

EpStatus k_sym_storage_offset(OpCall *c)
{
    c->outs[0] = value_int(arg_tensor(c, 0)->offset);
    return EP_OK;
}

EpStatus k_sym_is_contiguous(OpCall *c)
{
    c->outs[0] = value_bool(tensor_is_contiguous(arg_tensor(c, 0)));
    return EP_OK;
}

/* item / _local_scalar_dense: a one-element tensor to int, float or bool
** by its dtype category, as Tensor.item() gives. */
EpStatus k_item(OpCall *c)
{
    const Tensor *t = arg_tensor(c, 0);
    if (tensor_numel(t) != 1)
        return op_fail(c, "a Tensor with %lld elements cannot be converted to Scalar", (long long)tensor_numel(t));
    if (t->dtype == DT_BOOL)
        c->outs[0] = value_bool(tensor_item_i64(t) != 0);
    else if (dtype_is_float(t->dtype))
        c->outs[0] = value_float(tensor_item_f64(t));
    else
        c->outs[0] = value_int(tensor_item_i64(t));
    return EP_OK;
}

/* ---- assertions --------------------------------------------------------- */

/* The functional variants thread a dependency token through: they return a
** fresh copy of dep_token (an empty tensor in practice). */
static EpStatus pass_token(OpCall *c, int token_arg)
{
    if (c->nouts == 0)
        return EP_OK;
    Tensor *tok = tensor_to_dtype(arg_tensor(c, token_arg), arg_tensor(c, token_arg)->dtype, c->err);
    if (!tok)
        return c->err->code;
    out_tensor(c, 0, tok);
    return EP_OK;
}

EpStatus k_assert_scalar(OpCall *c)
{
    const Value *v = arg_scalar(c, 0);
    if (!value_is_scalar(v))
        return op_fail(c, "expected a SymBool, got %s", value_kind_name(v->kind));
    if (value_as_f64(v) == 0) {
        const char *msg = arg_str(c, 1);
        return ep_fail(c->err, EP_ERR_EXEC, "%s", msg && *msg ? msg : "Assertion is failed");
    }
    return pass_token(c, 2);
}

EpStatus k_assert_async(OpCall *c)
{
    const Tensor *t = arg_tensor(c, 0);
    if (tensor_numel(t) != 1)
        return op_fail(c, "Boolean value of Tensor with %s values is ambiguous",
                       tensor_numel(t) == 0 ? "no" : "more than one");
    if (tensor_item_f64(t) == 0) {
        const char *msg = c->nargs > 1 ? arg_str(c, 1) : NULL;
        return ep_fail(c->err, EP_ERR_EXEC, "%s", msg && *msg ? msg : "Expected Tensor with single nonzero value, but got zero");
    }
    return pass_token(c, 2);
}

/* The sizes check of _assert_tensor_metadata: None passes; otherwise the
** list must equal the tensor's, as ComparisonUtils.cpp's _assert_match. */
static EpStatus assert_dims_match(OpCall *c, int i, const char *what, int n, const int64_t *have)
{
    int64_t want[EP_MAX_DIMS];
    char b1[256], b2[256];
    if (arg_is_none(c, i))
        return EP_OK;
    int m = arg_int_list(c, i, want, EP_MAX_DIMS);
    if (m >= 0 && shape_equal(m, want, n, have))
        return EP_OK;
    return ep_fail(c->err, EP_ERR_EXEC, "Tensor %s mismatch! Expected: %s, Got: %s", what,
                   m >= 0 ? shape_str(m, want, b1, sizeof b1) : "(too many dimensions)", shape_str(n, have, b2, sizeof b2));
}

/* _assert_tensor_metadata(Tensor a, SymInt[]? size=None, SymInt[]? stride=None,
** ScalarType? dtype=None, *, Device? device=None, Layout? layout=None): the
** checks and messages of aten/src/ATen/native/ComparisonUtils.cpp, which
** prints the expected dtype as a c10::ScalarType ("Float") and the tensor's
** as a TypeMeta ("float"), layouts as c10::Layout ("Strided").  Every
** tensor epdbg holds is dense strided.  Strides and the device are not
** compared: not every kernel reproduces the strides PyTorch's picks (a
** channels-last convolution output is contiguous here), and epdbg runs a
** program exported for any device on the CPU (see factory.c), so a check
** of where PyTorch ran would fail programs whose values are right. */
EpStatus k_assert_tensor_metadata(OpCall *c)
{
    const Tensor *t = arg_tensor(c, 0);
    EpStatus rc;
    if ((rc = assert_dims_match(c, 1, "sizes", t->ndim, t->sizes)))
        return rc;
    DType want = arg_dtype(c, 3, t->dtype);
    if (want != t->dtype)
        return ep_fail(c->err, EP_ERR_EXEC, "Tensor dtype mismatch! Expected: %s, Got: %s", dtype_c10_name(want),
                       dtype_meta_name(t->dtype));
    int layout = arg_layout(c, 5, LAYOUT_STRIDED);
    if (layout != LAYOUT_STRIDED) {
        const SchemaEnumEntry *e = layout_entry(layout);
        return ep_fail(c->err, EP_ERR_EXEC, "Tensor layout mismatch! Expected: %s, Got: %s", e ? e->c10_name : "?",
                       layout_entry(LAYOUT_STRIDED)->c10_name);
    }
    return EP_OK;
}

/* sym_constrain_range(size, min, max): min/max default to the int64 limits;
** the _for_size form defaults min to 0 and rejects max <= 2. */
EpStatus k_sym_constrain_range(OpCall *c)
{
    bool for_size = c->op->id == OP_SYM_CONSTRAIN_RANGE_FOR_SIZE ||
                    c->op->id == OP_FUNCTIONAL_SYM_CONSTRAIN_RANGE_FOR_SIZE;
    int64_t v = arg_int(c, 0);
    int64_t lo = arg_is_none(c, 1) ? (for_size ? 0 : INT64_MIN) : arg_int(c, 1);
    int64_t hi = arg_is_none(c, 2) ? INT64_MAX : arg_int(c, 2);
    if (for_size && !arg_is_none(c, 2) && hi <= 2)
        return ep_fail(c->err, EP_ERR_EXEC, "Max value to constrain_range_for_size must be greater than 2. got: %lld",
                       (long long)hi);
    if (hi < lo)
        return ep_fail(c->err, EP_ERR_EXEC, "Max must be greater than or equal to min. Got min=%lld max=%lld",
                       (long long)lo, (long long)hi);
    if (v < lo || v > hi)
        return ep_fail(c->err, EP_ERR_EXEC, "Invalid value range for %lld between [%lld, %lld].", (long long)v,
                       (long long)lo, (long long)hi);
    return pass_token(c, 3);
}
