/*
** shape_rules.c -- the table of shape-rule families (SR_* of the OP()
** lines) and their functions, the helpers all rules share, and the rules
** of the elementwise, reduction, factory and SymInt families.  View-like
** rules are in shape_rules_view.c, matrix, convolution, pooling and
** indexing in shape_rules_nn.c.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shape_rules_int.h"

/* ---- shapes and symbolic arguments ----------------------------------------- */

void sym_shape_free(SymShape *s)
{
    for (int i = 0; i < s->ndim; i++)
        sym_free(s->dims[i]);
    s->ndim = 0;
}

bool sym_shape_copy(const SymShape *s, SymShape *out)
{
    out->ndim = 0;
    for (int i = 0; i < s->ndim; i++) {
        out->dims[i] = sym_clone(s->dims[i]);
        out->ndim = i + 1;
        if (!out->dims[i]) {
            sym_shape_free(out);
            return false;
        }
    }
    return true;
}

const char *sym_shape_str(const SymShape *s, char *buf, size_t cap)
{
    size_t k = 0;
    k += (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < s->ndim && k < cap; i++) {
        char *t = sym_to_string(s->dims[i]);
        k += (size_t)snprintf(buf + k, cap - k, "%s%s", i ? ", " : "", t ? t : "?");
        free(t);
    }
    if (k < cap)
        snprintf(buf + k, cap - k, "]");
    return buf;
}

void sym_arg_clear(SymArg *a)
{
    sym_shape_free(&a->shape);
    sym_free(a->vlo);
    sym_free(a->vhi);
    sym_free(a->e);
    for (int i = 0; i < a->n; i++)
        sym_arg_clear(&a->items[i]);
    free(a->items);
    value_clear(&a->lit);
    memset(a, 0, sizeof *a);
}

bool sym_arg_copy(const SymArg *a, SymArg *out)
{
    memset(out, 0, sizeof *out);
    out->kind = a->kind;
    out->has_values = a->has_values;
    bool ok = sym_shape_copy(&a->shape, &out->shape);
    if (a->vlo)
        ok = ok && (out->vlo = sym_clone(a->vlo)) != NULL;
    if (a->vhi)
        ok = ok && (out->vhi = sym_clone(a->vhi)) != NULL;
    if (a->e)
        ok = ok && (out->e = sym_clone(a->e)) != NULL;
    out->lit = value_copy(&a->lit);
    if (ok && a->n) {
        out->items = calloc((size_t)a->n, sizeof *out->items);
        ok = out->items != NULL;
        for (int i = 0; ok && i < a->n; i++) {
            ok = sym_arg_copy(&a->items[i], &out->items[i]);
            out->n = i + 1;
        }
    }
    if (!ok)
        sym_arg_clear(out);
    return ok;
}

const char *shape_constraint_kind_name(ShapeConstraintKind k)
{
    static const char *const names[] = {"equal", "relation", "specialize", "bound"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

void shape_ctx_init(ShapeCtx *cx, const SymRanges *ranges)
{
    memset(cx, 0, sizeof *cx);
    cx->ranges = ranges;
    cx->node = -1;
    cx->target = "";
}

void shape_ctx_free(ShapeCtx *cx)
{
    for (int i = 0; i < cx->ncons; i++)
        sym_free(cx->cons[i].cond);
    free(cx->cons);
    cx->cons = NULL;
    cx->ncons = cx->capcons = 0;
}

/* ---- helpers ---------------------------------------------------------------- */

static ShapeRuleResult vsay(ShapeCtx *cx, ShapeRuleResult r, const char *fmt, va_list ap)
{
    int k = snprintf(cx->err, sizeof cx->err, "%s: ", cx->target);
    if (k < 0 || (size_t)k >= sizeof cx->err)
        k = 0;
    vsnprintf(cx->err + k, sizeof cx->err - (size_t)k, fmt, ap);
    return r;
}

ShapeRuleResult sr_fail(ShapeCtx *cx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(cx, SRR_FAIL, fmt, ap);
    va_end(ap);
    return SRR_FAIL;
}

ShapeRuleResult sr_recorded(ShapeCtx *cx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(cx, SRR_RECORDED, fmt, ap);
    va_end(ap);
    return SRR_RECORDED;
}

bool sr_require(ShapeCtx *cx, ShapeConstraintKind kind, SymExpr *cond, const char *why)
{
    if (!cond) {
        sr_fail(cx, "out of memory building the condition of %s", why);
        return false;
    }
    /* a condition that holds for every value the sizes may take says nothing;
    ** one that never holds means the program cannot run at these sizes */
    SymTruth t = sym_decide(cond, cx->ranges);
    if (t == SYM_TRUE) {
        sym_free(cond);
        return true;
    }
    if (t == SYM_FALSE) {
        char *s = sym_to_string(cond);
        sr_fail(cx, "%s needs %s, which never holds", why, s ? s : "?");
        free(s);
        sym_free(cond);
        return false;
    }
    if (cx->ncons == cx->capcons) {
        int cap = cx->capcons ? 2 * cx->capcons : 16;
        ShapeConstraint *n = realloc(cx->cons, (size_t)cap * sizeof *n);
        if (!n) {
            sym_free(cond);
            sr_fail(cx, "out of memory");
            return false;
        }
        cx->cons = n;
        cx->capcons = cap;
    }
    ShapeConstraint *c = &cx->cons[cx->ncons++];
    c->cond = cond;
    c->kind = kind;
    c->node = cx->node;
    snprintf(c->why, sizeof c->why, "%s: %s", cx->target, why);
    return true;
}

/* The relation of the other branch: Eq <-> Ne, Lt <-> Ge, Le <-> Gt. */
static SymExpr *negate(const SymExpr *cond)
{
    static const SymOp FLIP[] = {[SYM_OP_EQ] = SYM_OP_NE, [SYM_OP_NE] = SYM_OP_EQ, [SYM_OP_LT] = SYM_OP_GE,
                                 [SYM_OP_LE] = SYM_OP_GT, [SYM_OP_GT] = SYM_OP_LE, [SYM_OP_GE] = SYM_OP_LT};
    SymOp rel;
    const SymExpr *l, *r;
    if (!sym_relation(cond, &rel, &l, &r))
        return NULL;
    return sym_binop(FLIP[rel], l, r);
}

bool sr_branch(ShapeCtx *cx, SymExpr *cond, const char *why)
{
    if (!cond)
        return false;
    SymValue v;
    const char *unb;
    if (!cx->hints || sym_decide(cond, cx->ranges) != SYM_UNKNOWN ||
        sym_eval(cond, cx->hints, &v, &unb) != SYM_OK || v.kind != SYMV_BOOL) {
        sym_free(cond);
        return true;
    }
    SymExpr *taken = v.b ? cond : negate(cond);
    if (!v.b)
        sym_free(cond);
    if (!taken)
        return true;
    return sr_require(cx, SC_RELATION, taken, why);
}

bool sr_require_equal(ShapeCtx *cx, const SymExpr *a, const SymExpr *b, const char *why)
{
    int64_t v;
    bool la = sym_as_int(a, &v), lb = sym_as_int(b, &v);
    ShapeConstraintKind k = la != lb ? SC_SPECIALIZE : SC_EQUAL;
    return sr_require(cx, k, sym_binop(SYM_OP_EQ, a, b), why);
}

bool sr_is(const SymExpr *e, int64_t v)
{
    int64_t x;
    return e && sym_as_int(e, &x) && x == v;
}

bool sr_int(const SymArg *a, int64_t *v)
{
    if (a->kind == SV_INT)
        return sym_as_int(a->e, v);
    if (a->kind == SV_LIT && a->lit.kind == V_INT) {
        *v = a->lit.i;
        return true;
    }
    return false;
}

bool sr_dim(ShapeCtx *cx, int64_t dim, int ndim, int *out)
{
    int64_t n = ndim ? ndim : 1; /* a 0-d tensor takes dim 0 and -1 */
    if (dim < -n || dim >= n) {
        sr_fail(cx, "dim %lld out of range for %d dims", (long long)dim, ndim);
        return false;
    }
    *out = (int)(dim < 0 ? dim + n : dim);
    return true;
}

static SymExpr *pick(ShapeCtx *cx, SymOp rel, SymOp op, const SymExpr *a, const SymExpr *b)
{
    SymExpr *c = sym_binop(rel, a, b);
    SymTruth t = c ? sym_decide(c, cx->ranges) : SYM_UNKNOWN;
    sym_free(c);
    if (t == SYM_TRUE)
        return sym_clone(a);
    if (t == SYM_FALSE)
        return sym_clone(b);
    return sym_binop(op, a, b);
}

SymExpr *sr_min(ShapeCtx *cx, const SymExpr *a, const SymExpr *b)
{
    return pick(cx, SYM_OP_LE, SYM_OP_MIN, a, b);
}

SymExpr *sr_ceil_steps(SymExpr *span, int64_t step)
{
    SymExpr *sm1 = sym_const(step - 1), *stp = sym_const(step);
    SymExpr *num = sym_binop(SYM_OP_ADD, span, sm1);
    SymExpr *len = sym_binop(SYM_OP_FLOORDIV, num, stp);
    sym_free(sm1);
    sym_free(stp);
    sym_free(num);
    sym_free(span);
    return len;
}

SymExpr *sr_max(ShapeCtx *cx, const SymExpr *a, const SymExpr *b)
{
    return pick(cx, SYM_OP_GE, SYM_OP_MAX, a, b);
}

SymExpr *sr_numel(const SymShape *s, int from, int to)
{
    SymExpr *p = sym_const(1);
    for (int i = from; i < to && p; i++) {
        SymExpr *q = sym_binop(SYM_OP_MUL, p, s->dims[i]);
        sym_free(p);
        p = q;
    }
    return p;
}

SymExpr *sr_op(SymOp op, SymExpr *a, SymExpr *b)
{
    SymExpr *r = a && b ? sym_binop(op, a, b) : NULL;
    sym_free(a);
    sym_free(b);
    return r;
}

SymExpr *sr_opc(SymOp op, SymExpr *a, int64_t c)
{
    return sr_op(op, a, sym_const(c));
}

bool sr_shape_list(ShapeCtx *cx, const SymArg *l, SymShape *s)
{
    s->ndim = 0;
    if (!l || l->kind != SV_LIST || l->n > EP_MAX_DIMS)
        return false;
    for (int i = 0; i < l->n; i++) {
        if (l->items[i].kind != SV_INT) {
            sym_shape_free(s);
            return false;
        }
        s->dims[i] = sym_clone(l->items[i].e);
        s->ndim = i + 1;
        if (!s->dims[i]) {
            sym_shape_free(s);
            sr_fail(cx, "out of memory");
            return false;
        }
    }
    return true;
}

bool sr_broadcast(ShapeCtx *cx, const SymShape *a, const SymShape *b, SymShape *out)
{
    int n = a->ndim > b->ndim ? a->ndim : b->ndim;
    out->ndim = 0;
    for (int i = 0; i < n; i++) {
        int ia = i - (n - a->ndim), ib = i - (n - b->ndim);
        const SymExpr *x = ia >= 0 ? a->dims[ia] : NULL, *y = ib >= 0 ? b->dims[ib] : NULL;
        const SymExpr *r;
        if (!x || sr_is(x, 1))
            r = y ? y : x;
        else if (!y || sr_is(y, 1) || sym_equal(x, y))
            r = x;
        else {
            /* neither is a literal 1: PyTorch takes a symbolic size to be
            ** other than 1 (size-oblivious), so the two must be equal */
            char why[64];
            snprintf(why, sizeof why, "broadcast of dim %d", i - n);
            if (!sr_require_equal(cx, x, y, why)) {
                sym_shape_free(out);
                return false;
            }
            int64_t v;
            r = sym_as_int(y, &v) ? y : x; /* a literal pins the size */
        }
        out->dims[i] = sym_clone(r);
        out->ndim = i + 1;
        if (!out->dims[i]) {
            sym_shape_free(out);
            sr_fail(cx, "out of memory");
            return false;
        }
    }
    return true;
}

ShapeRuleResult sr_output_shape(ShapeCtx *cx, SymShape *s, SymArg *out)
{
    for (int i = 0; i < s->ndim; i++)
        if (!s->dims[i]) { /* a constructor ran out of memory */
            sym_shape_free(s);
            return sr_fail(cx, "out of memory");
        }
    sr_set_tensor(out, s);
    return SRR_OK;
}

void sr_set_tensor(SymArg *out, SymShape *s)
{
    out->kind = SV_TENSOR;
    out->shape = *s;
    s->ndim = 0;
}

const SymArg *sr_arg(const OpDef *op, const SymArg *args, const char *name)
{
    int i = schema_arg_index(op->schema, name);
    return i < 0 ? NULL : &args[i];
}

ShapeRuleResult sr_set_tensor_rets(ShapeCtx *cx, const OpDef *op, const SymShape *s, SymArg *outs)
{
    for (int k = 0; k < op->schema->nrets; k++) {
        if (op->schema->rets[k].type != ST_TENSOR)
            return sr_recorded(cx, "return %d is not a single tensor", k);
        SymShape c;
        if (!sym_shape_copy(s, &c))
            return sr_fail(cx, "out of memory");
        sr_set_tensor(&outs[k], &c);
    }
    return SRR_OK;
}

ShapeRuleResult sr_set_tensor_list(ShapeCtx *cx, SymShape *shapes, int n, SymArg *out)
{
    out->kind = SV_LIST;
    out->items = calloc((size_t)(n ? n : 1), sizeof *out->items);
    bool ok = out->items != NULL;
    for (int j = 0; ok && j < n; j++) {
        SymShape c;
        ok = sym_shape_copy(&shapes[j], &c);
        if (ok) {
            sr_set_tensor(&out->items[j], &c);
            out->n = j + 1;
        }
    }
    return ok ? SRR_OK : sr_fail(cx, "out of memory");
}

/* ---- elementwise and reductions ------------------------------------------ */

SR_FN(sr_same)
{
    if (op->schema->nargs < 1 || args[0].kind != SV_TENSOR)
        return sr_recorded(cx, "first argument is not a tensor");
    return sr_set_tensor_rets(cx, op, &args[0].shape, outs);
}

SR_FN(sr_broadcast_rule)
{
    SymShape acc = {0};
    for (int i = 0; i < op->schema->nargs; i++) {
        if (op->schema->args[i].type != ST_TENSOR || args[i].kind != SV_TENSOR)
            continue;
        SymShape next;
        bool ok = sr_broadcast(cx, &acc, &args[i].shape, &next);
        sym_shape_free(&acc);
        if (!ok)
            return SRR_FAIL;
        acc = next;
    }
    ShapeRuleResult r = sr_set_tensor_rets(cx, op, &acc, outs);
    sym_shape_free(&acc);
    return r;
}

/* The dims a reduction's "dim" argument names into drop[]; none (or an
** empty list) means all. */
static bool reduced_dims(ShapeCtx *cx, const SymArg *dim, int ndim, bool *drop)
{
    int64_t d;
    int k;
    bool all = !dim || dim->kind == SV_NONE || (dim->kind == SV_LIST && dim->n == 0);
    for (int i = 0; i < ndim; i++)
        drop[i] = all;
    if (all)
        return true;
    if (dim->kind == SV_LIST) {
        for (int i = 0; i < dim->n; i++) {
            if (!sr_int(&dim->items[i], &d) || !sr_dim(cx, d, ndim, &k))
                return false;
            if (ndim)
                drop[k] = true;
        }
        return true;
    }
    if (!sr_int(dim, &d) || !sr_dim(cx, d, ndim, &k))
        return false;
    if (ndim)
        drop[k] = true;
    return true;
}

SR_FN(sr_reduce)
{
    const SymArg *self = &args[0], *dim = sr_arg(op, args, "dim"), *kd = sr_arg(op, args, "keepdim");
    if (self->kind != SV_TENSOR)
        return sr_recorded(cx, "first argument is not a tensor");
    bool keep = kd && kd->kind == SV_LIT && kd->lit.kind == V_BOOL && kd->lit.b;
    bool drop[EP_MAX_DIMS];
    if (!reduced_dims(cx, dim, self->shape.ndim, drop))
        return cx->err[0] ? SRR_FAIL : sr_recorded(cx, "dim is not a literal");
    SymShape s = {0};
    for (int i = 0; i < self->shape.ndim; i++) {
        if (drop[i] && !keep)
            continue;
        s.dims[s.ndim++] = drop[i] ? sym_const(1) : sym_clone(self->shape.dims[i]);
    }
    ShapeRuleResult r = sr_set_tensor_rets(cx, op, &s, outs);
    sym_shape_free(&s);
    return r;
}

SR_FN(sr_topk)
{
    int64_t d;
    int k;
    const SymArg *self = &args[0];
    if (self->kind != SV_TENSOR || args[1].kind != SV_INT || !sr_int(&args[2], &d))
        return sr_recorded(cx, "arguments not understood");
    if (!sr_dim(cx, d, self->shape.ndim, &k))
        return SRR_FAIL;
    SymShape s;
    if (!sym_shape_copy(&self->shape, &s))
        return sr_fail(cx, "out of memory");
    if (s.ndim) {
        if (!sr_require(cx, SC_BOUND, sym_binop(SYM_OP_LE, args[1].e, s.dims[k]), "k within the dim")) {
            sym_shape_free(&s);
            return SRR_FAIL;
        }
        sym_free(s.dims[k]);
        s.dims[k] = sym_clone(args[1].e);
    }
    ShapeRuleResult r = sr_set_tensor_rets(cx, op, &s, outs);
    sym_shape_free(&s);
    return r;
}

/* ---- SymInt arithmetic, metadata, assertions ---------------------------- */

static const struct {
    OpId id;
    SymOp op;
} PY_BINARY[] = {
    {OP_PY_ADD, SYM_OP_ADD}, {OP_PY_SUB, SYM_OP_SUB}, {OP_PY_MUL, SYM_OP_MUL},
    {OP_PY_FLOORDIV, SYM_OP_FLOORDIV}, {OP_PY_MOD, SYM_OP_MOD}, {OP_PY_EQ, SYM_OP_EQ},
    {OP_PY_NE, SYM_OP_NE}, {OP_PY_LT, SYM_OP_LT}, {OP_PY_LE, SYM_OP_LE}, {OP_PY_GT, SYM_OP_GT},
    {OP_PY_GE, SYM_OP_GE}, {OP_SYM_MAX, SYM_OP_MAX}, {OP_SYM_MIN, SYM_OP_MIN},
};

SR_FN(sr_sym)
{
    for (int i = 0; i < op->schema->nargs; i++)
        if (args[i].kind != SV_INT && !(op->id == OP_SYM_SUM && args[i].kind == SV_LIST))
            return sr_recorded(cx, "operand %d is not an integer expression", i);
    SymExpr *r = NULL;
    if (op->id == OP_SYM_SUM) {
        r = sym_const(0);
        for (int i = 0; r && i < args[0].n; i++) {
            if (args[0].items[i].kind != SV_INT) {
                sym_free(r);
                return sr_recorded(cx, "a term is not an integer expression");
            }
            SymExpr *t = sym_binop(SYM_OP_ADD, r, args[0].items[i].e);
            sym_free(r);
            r = t;
        }
    } else if (op->id == OP_PY_NEG) {
        SymExpr *z = sym_const(0);
        r = sym_binop(SYM_OP_SUB, z, args[0].e);
        sym_free(z);
    } else if (op->id == OP_PY_POS || op->id == OP_SYM_INT) {
        r = sym_clone(args[0].e);
    } else {
        size_t i = 0;
        while (i < sizeof PY_BINARY / sizeof PY_BINARY[0] && PY_BINARY[i].id != op->id)
            i++;
        if (i == sizeof PY_BINARY / sizeof PY_BINARY[0])
            return sr_recorded(cx, "no integer rule for this operator");
        r = sym_binop(PY_BINARY[i].op, args[0].e, args[1].e);
    }
    if (!r)
        return sr_fail(cx, "out of memory");
    outs[0].kind = SV_INT;
    outs[0].e = r;
    return SRR_OK;
}

SR_FN(sr_sym_size)
{
    const SymArg *self = &args[0];
    if (self->kind != SV_TENSOR)
        return sr_recorded(cx, "argument is not a tensor");
    SymExpr *r;
    if (op->id == OP_SYM_NUMEL) {
        r = sr_numel(&self->shape, 0, self->shape.ndim);
    } else {
        int64_t d;
        int k;
        if (!sr_int(&args[1], &d))
            return sr_recorded(cx, "dim is not a literal");
        if (!sr_dim(cx, d, self->shape.ndim, &k) || !self->shape.ndim)
            return sr_fail(cx, "dim %lld of a %d-d tensor", (long long)d, self->shape.ndim);
        r = sym_clone(self->shape.dims[k]);
    }
    if (!r)
        return sr_fail(cx, "out of memory");
    outs[0].kind = SV_INT;
    outs[0].e = r;
    return SRR_OK;
}

SymExpr *sr_fresh_unbacked(ShapeCtx *cx, int k)
{
    char name[32];
    const char *hint = k < 8 ? cx->unbacked_hint[k] : NULL;
    if (!hint) {
        snprintf(name, sizeof name, "u%d", cx->next_unbacked++);
        hint = name;
    }
    return sym_symbol(hint);
}

SR_FN(sr_unbacked)
{
    SymExpr *u = sr_fresh_unbacked(cx, 0);
    if (!u)
        return sr_fail(cx, "out of memory");
    if (op->id == OP_ITEM || op->id == OP_LOCAL_SCALAR_DENSE) {
        outs[0].kind = SV_INT;
        outs[0].e = u;
        return SRR_OK;
    }
    SymShape s = {0};
    s.dims[s.ndim++] = u;
    if (op->id == OP_NONZERO || op->id == OP_ARGWHERE) /* [u, ndim] */
        s.dims[s.ndim++] = sym_const(args[0].kind == SV_TENSOR ? args[0].shape.ndim : 0);
    /* a count of selected elements is at most their number */
    if (args[0].kind == SV_TENSOR) {
        SymExpr *n = sr_numel(&args[0].shape, 0, args[0].shape.ndim);
        bool ok = sr_require(cx, SC_BOUND, sym_binop(SYM_OP_LE, u, n), "data-dependent size within numel");
        sym_free(n);
        if (!ok) {
            sym_shape_free(&s);
            return SRR_FAIL;
        }
    }
    sr_set_tensor(&outs[0], &s);
    return SRR_OK;
}

SR_FN(sr_assert)
{
    (void)op;
    if (args[0].kind == SV_LIT && args[0].lit.kind == V_BOOL) {
        if (!args[0].lit.b)
            return sr_fail(cx, "asserts False");
    } else if (args[0].kind == SV_INT) {
        SymExpr *c = sym_clone(args[0].e);
        const char *msg = args[1].kind == SV_LIT && args[1].lit.kind == V_STR ? args[1].lit.s : "assertion";
        char why[96];
        snprintf(why, sizeof why, "%.80s", msg);
        SymExpr *e = sym_canon(c);
        /* comparisons bound a size; equalities relate sizes */
        char *txt = sym_to_string(e ? e : c);
        bool bound = txt && !strstr(txt, "==") && !strstr(txt, "!=");
        free(txt);
        sym_free(e);
        if (!sr_require(cx, bound ? SC_BOUND : SC_RELATION, c, why))
            return SRR_FAIL;
    } else {
        return sr_recorded(cx, "condition is not an expression");
    }
    for (int k = 0; k < op->schema->nrets; k++)
        outs[k].kind = SV_TENSOR; /* the functional form's token: 0-d */
    return SRR_OK;
}

SR_FN(sr_constrain)
{
    const SymArg *size = &args[0], *lo = sr_arg(op, args, "min"), *hi = sr_arg(op, args, "max");
    if (size->kind == SV_INT) {
        if (lo && lo->kind == SV_INT &&
            !sr_require(cx, SC_BOUND, sym_binop(SYM_OP_GE, size->e, lo->e), "declared minimum"))
            return SRR_FAIL;
        if (hi && hi->kind == SV_INT &&
            !sr_require(cx, SC_BOUND, sym_binop(SYM_OP_LE, size->e, hi->e), "declared maximum"))
            return SRR_FAIL;
    }
    for (int k = 0; k < op->schema->nrets; k++)
        outs[k].kind = SV_TENSOR;
    return SRR_OK;
}

SR_FN(sr_effect)
{
    (void)cx;
    (void)args;
    for (int k = 0; k < op->schema->nrets; k++)
        outs[k].kind = SV_TENSOR;
    return SRR_OK;
}

/* ---- factories ---------------------------------------------------------------- */

SR_FN(sr_factory)
{
    SymShape s;
    /* size of the factories and as_strided; input_sizes of the backward ops */
    const SymArg *size = sr_arg(op, args, "size");
    if (!sr_shape_list(cx, size ? size : sr_arg(op, args, "input_sizes"), &s))
        return cx->err[0] ? SRR_FAIL : sr_recorded(cx, "size is not a list of integers");
    ShapeRuleResult r = sr_set_tensor_rets(cx, op, &s, outs);
    sym_shape_free(&s);
    return r;
}

SR_FN(sr_arange)
{
    const SymArg *st = sr_arg(op, args, "start"), *en = sr_arg(op, args, "end"), *sp = sr_arg(op, args, "step");
    if ((st && st->kind != SV_INT) || en->kind != SV_INT || (sp && sp->kind != SV_INT))
        return sr_recorded(cx, "float bounds");
    int64_t step = 1;
    if (sp && (!sym_as_int(sp->e, &step) || step <= 0))
        return sr_recorded(cx, "the step is not a positive literal");
    SymExpr *zero = sym_const(0);
    const SymExpr *start = st ? st->e : zero;
    /* ceil((end - start) / step), 0 when end <= start */
    SymExpr *span = sym_binop(SYM_OP_SUB, en->e, start), *len;
    if (step == 1) {
        len = span;
    } else {
        len = sr_ceil_steps(span, step);
    }
    SymExpr *clamped = len ? sr_max(cx, len, zero) : NULL;
    sym_free(len);
    SymShape s = {1, {clamped}};
    if (!clamped) {
        sym_free(zero);
        return sr_fail(cx, "out of memory");
    }
    sr_set_tensor(&outs[0], &s);
    /* the values run from start to end - 1: what bounds an embedding index */
    SymExpr *one = sym_const(1);
    outs[0].has_values = true;
    outs[0].vlo = sym_clone(start);
    outs[0].vhi = sym_binop(SYM_OP_SUB, en->e, one);
    sym_free(one);
    sym_free(zero);
    return SRR_OK;
}

SR_FN(sr_scalar)
{
    SymShape s = {0};
    (void)args;
    return sr_set_tensor_rets(cx, op, &s, outs);
}

/* ---- the table --------------------------------------------------------------- */

/* Why the ops left on SR_RECORDED have no rule: what they return is not
** a function of the argument sizes the rules see. */
static const struct {
    OpId id;
    const char *why;
} NO_RULE[] = {
    {OP_SYM_STRIDE_INT, "strides depend on the memory layout, which the shape rules do not track"},
    {OP_SYM_STORAGE_OFFSET, "the storage offset depends on how the tensor was viewed, which is not tracked"},
    {OP_SYM_IS_CONTIGUOUS, "contiguity depends on the memory layout, which the shape rules do not track"},
    {OP_TENSOR_SPLIT_TENSOR, "the number of pieces is the values of a tensor argument"},
};

static ShapeRuleResult sr_none(ShapeCtx *cx, const OpDef *op, const SymArg *args, SymArg *outs)
{
    (void)args;
    (void)outs;
    for (size_t i = 0; i < sizeof NO_RULE / sizeof NO_RULE[0]; i++)
        if (NO_RULE[i].id == op->id)
            return sr_recorded(cx, "no shape rule: %s", NO_RULE[i].why);
    return sr_recorded(cx, "no shape rule for this operator");
}

static const struct {
    const char *name;
    ShapeRuleFn fn;
} RULES[SR_COUNT] = {
    [SR_RECORDED] = {"recorded", sr_none},
    [SR_SAME] = {"same", sr_same},
    [SR_BROADCAST] = {"broadcast", sr_broadcast_rule},
    [SR_REDUCE] = {"reduce", sr_reduce},
    [SR_TOPK] = {"topk", sr_topk},
    [SR_MM] = {"mm", sr_mm},
    [SR_BMM] = {"bmm", sr_bmm},
    [SR_ADDMM] = {"addmm", sr_addmm},
    [SR_MATMUL] = {"matmul", sr_matmul},
    [SR_LINEAR] = {"linear", sr_linear},
    [SR_ATTENTION] = {"attention", sr_attention},
    [SR_VIEW] = {"view", sr_view},
    [SR_AS] = {"as", sr_as},
    [SR_FLATTEN] = {"flatten", sr_flatten},
    [SR_UNFLATTEN] = {"unflatten", sr_unflatten},
    [SR_PERMUTE] = {"permute", sr_permute},
    [SR_SQUEEZE] = {"squeeze", sr_squeeze},
    [SR_UNSQUEEZE] = {"unsqueeze", sr_unsqueeze},
    [SR_EXPAND] = {"expand", sr_expand},
    [SR_SLICE] = {"slice", sr_slice},
    [SR_SELECT] = {"select", sr_select},
    [SR_CAT] = {"cat", sr_cat},
    [SR_STACK] = {"stack", sr_stack},
    [SR_SPLIT] = {"split", sr_split},
    [SR_UNBIND] = {"unbind", sr_unbind},
    [SR_REPEAT] = {"repeat", sr_repeat},
    [SR_PAD] = {"pad", sr_pad},
    [SR_CONV] = {"conv", sr_conv},
    [SR_POOL] = {"pool", sr_pool},
    [SR_INDEX_SELECT] = {"index_select", sr_index_select},
    [SR_GATHER] = {"gather", sr_gather},
    [SR_EMBEDDING] = {"embedding", sr_embedding},
    [SR_FACTORY] = {"factory", sr_factory},
    [SR_ARANGE] = {"arange", sr_arange},
    [SR_SCALAR] = {"scalar", sr_scalar},
    [SR_SYM] = {"sym", sr_sym},
    [SR_SYM_SIZE] = {"sym_size", sr_sym_size},
    [SR_UNBACKED] = {"unbacked", sr_unbacked},
    [SR_ASSERT] = {"assert", sr_assert},
    [SR_CONSTRAIN] = {"constrain", sr_constrain},
    [SR_EFFECT] = {"effect", sr_effect},
    [SR_SIZED] = {"sized", sr_sized},
    [SR_TRI_INDICES] = {"tri_indices", sr_tri_indices},
    [SR_MULTINOMIAL] = {"multinomial", sr_multinomial},
    [SR_INDEX] = {"index", sr_index},
    [SR_TAKE] = {"take", sr_take},
    [SR_TAKE_ALONG] = {"take_along", sr_take_along},
    [SR_NONZERO_STATIC] = {"nonzero_static", sr_nonzero_static},
    [SR_ONE_HOT] = {"one_hot", sr_one_hot},
    [SR_SEARCHSORTED] = {"searchsorted", sr_searchsorted},
    [SR_UNIQUE] = {"unique", sr_unique},
    [SR_REPEAT_INTERLEAVE] = {"repeat_interleave", sr_repeat_interleave},
    [SR_EMBEDDING_BAG] = {"embedding_bag", sr_embedding_bag},
    [SR_VECMAT] = {"vecmat", sr_vecmat},
    [SR_TENSORDOT] = {"tensordot", sr_tensordot},
    [SR_EINSUM] = {"einsum", sr_einsum},
    [SR_CONV_TRANSPOSE] = {"conv_transpose", sr_conv_transpose},
    [SR_ADAPTIVE_POOL] = {"adaptive_pool", sr_adaptive_pool},
    [SR_UPSAMPLE] = {"upsample", sr_upsample},
    [SR_PIXEL_SHUFFLE] = {"pixel_shuffle", sr_pixel_shuffle},
    [SR_GRID_SAMPLER] = {"grid_sampler", sr_grid_sampler},
    [SR_IM2COL] = {"im2col", sr_im2col},
    [SR_COL2IM] = {"col2im", sr_col2im},
    [SR_BATCH_NORM] = {"batch_norm", sr_batch_norm},
    [SR_LAYER_NORM] = {"layer_norm", sr_layer_norm},
    [SR_GROUP_NORM] = {"group_norm", sr_group_norm},
    [SR_SDPA] = {"sdpa", sr_sdpa},
    [SR_DISTANCE] = {"distance", sr_distance},
    [SR_QPARAMS] = {"qparams", sr_qparams},
    [SR_RAVEL] = {"ravel", sr_ravel},
    [SR_ATLEAST] = {"atleast", sr_atleast},
    [SR_BROADCAST_TENSORS] = {"broadcast_tensors", sr_broadcast_tensors},
    [SR_DIAGONAL] = {"diagonal", sr_diagonal},
    [SR_DIAG_EMBED] = {"diag_embed", sr_diag_embed},
    [SR_UNFOLD] = {"unfold", sr_unfold},
    [SR_CHUNK] = {"chunk", sr_chunk},
    [SR_MESHGRID] = {"meshgrid", sr_meshgrid},
    [SR_STACK_VARIANT] = {"stack_variant", sr_stack_variant},
    [SR_ROT90] = {"rot90", sr_rot90},
    [SR_BLOCK_DIAG] = {"block_diag", sr_block_diag},
    [SR_GLU] = {"glu", sr_glu},
};

const char *shape_rule_name(ShapeRule r)
{
    return (unsigned)r < SR_COUNT && RULES[r].name ? RULES[r].name : NULL;
}

bool shape_rule_is_real(ShapeRule r)
{
    return (unsigned)r < SR_COUNT && r != SR_RECORDED && RULES[r].fn;
}

ShapeRuleResult shape_rule_run(ShapeCtx *cx, const OpDef *op, const SymArg *args, SymArg *outs)
{
    cx->err[0] = '\0';
    cx->target = op->target;
    if ((unsigned)op->shape_rule >= SR_COUNT || !RULES[op->shape_rule].fn)
        return sr_recorded(cx, "unknown shape rule %d", (int)op->shape_rule);
    ShapeRuleResult r = RULES[op->shape_rule].fn(cx, op, args, outs);
    if (r != SRR_OK)
        for (int k = 0; k < op->schema->nrets; k++)
            sym_arg_clear(&outs[k]);
    return r;
}
