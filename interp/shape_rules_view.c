/*
** shape_rules_view.c -- shape rules of the view-like and joining ops:
** view/reshape (product equality, -1 inferred by FloorDiv), flatten,
** permute/transpose, squeeze/unsqueeze, expand, slice/narrow (clamped as
** PyTorch's sym sizes are), select (index bound), cat/stack (sum on the
** dim, equality elsewhere), split, unbind, repeat and pad.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shape_rules_int.h"

static const SymArg *self_tensor(const SymArg *args)
{
    return args[0].kind == SV_TENSOR ? &args[0] : NULL;
}


SR_FN(sr_view)
{
    const SymArg *self = self_tensor(args), *size = &args[1];
    (void)op;
    if (!self || size->kind != SV_LIST || size->n > EP_MAX_DIMS)
        return sr_recorded(cx, "arguments not understood");
    SymShape s = {0};
    int infer = -1;
    for (int i = 0; i < size->n; i++) {
        if (size->items[i].kind != SV_INT)
            return sr_recorded(cx, "a size is not an integer");
        if (sr_is(size->items[i].e, -1))
            infer = i;
    }
    SymExpr *in = sr_numel(&self->shape, 0, self->shape.ndim);
    SymExpr *known = sym_const(1);
    for (int i = 0; i < size->n && known; i++)
        if (i != infer) {
            SymExpr *k = sym_binop(SYM_OP_MUL, known, size->items[i].e);
            sym_free(known);
            known = k;
        }
    bool ok = in && known;
    if (ok && infer >= 0) {
        SymExpr *m = sym_binop(SYM_OP_MOD, in, known), *z = sym_const(0);
        ok = sr_require(cx, SC_RELATION, sym_binop(SYM_OP_EQ, m, z), "view: -1 divides the element count");
        sym_free(m);
        sym_free(z);
    } else if (ok) {
        /* a literal target against a symbolic count pins it */
        const char *names[1];
        bool sym_in = sym_symbols(in, names, 1) > 0, sym_out = sym_symbols(known, names, 1) > 0;
        ok = sr_require(cx, sym_in && !sym_out ? SC_SPECIALIZE : SC_RELATION, sym_binop(SYM_OP_EQ, in, known),
                        "view: same number of elements");
    }
    for (int i = 0; ok && i < size->n; i++) {
        s.dims[i] = i == infer ? sym_binop(SYM_OP_FLOORDIV, in, known) : sym_clone(size->items[i].e);
        s.ndim = i + 1;
    }
    sym_free(in);
    sym_free(known);
    if (!ok) {
        sym_shape_free(&s);
        return SRR_FAIL;
    }
    return sr_output_shape(cx, &s, &outs[0]);
}

SR_FN(sr_as)
{
    (void)op;
    const SymArg *self = self_tensor(args), *other = &args[1];
    if (!self || other->kind != SV_TENSOR)
        return sr_recorded(cx, "arguments not understood");
    SymShape s;
    if (op->id == OP_EXPAND_AS) {
        if (!sr_broadcast(cx, &self->shape, &other->shape, &s))
            return SRR_FAIL;
    } else {
        SymExpr *a = sr_numel(&self->shape, 0, self->shape.ndim), *b = sr_numel(&other->shape, 0, other->shape.ndim);
        bool ok = a && b && sr_require(cx, SC_RELATION, sym_binop(SYM_OP_EQ, a, b), "same number of elements");
        sym_free(a);
        sym_free(b);
        if (!ok || !sym_shape_copy(&other->shape, &s))
            return SRR_FAIL;
    }
    return sr_output_shape(cx, &s, &outs[0]);
}

SR_FN(sr_flatten)
{
    (void)op;
    const SymArg *self = self_tensor(args);
    int64_t a, b;
    int lo, hi;
    if (!self || !sr_int(&args[1], &a) || !sr_int(&args[2], &b))
        return sr_recorded(cx, "arguments not understood");
    int n = self->shape.ndim;
    if (n == 0) {
        SymShape s = {1, {sym_const(1)}};
        return sr_output_shape(cx, &s, &outs[0]);
    }
    if (!sr_dim(cx, a, n, &lo) || !sr_dim(cx, b, n, &hi))
        return SRR_FAIL;
    if (lo > hi)
        return sr_fail(cx, "start_dim after end_dim");
    SymShape s = {0};
    for (int i = 0; i < lo; i++)
        s.dims[s.ndim++] = sym_clone(self->shape.dims[i]);
    s.dims[s.ndim++] = sr_numel(&self->shape, lo, hi + 1);
    for (int i = hi + 1; i < n; i++)
        s.dims[s.ndim++] = sym_clone(self->shape.dims[i]);
    return sr_output_shape(cx, &s, &outs[0]);
}

SR_FN(sr_unflatten)
{
    const SymArg *self = self_tensor(args), *sizes = &args[2];
    int64_t d;
    int k;
    if (!self || !sr_int(&args[1], &d) || sizes->kind != SV_LIST)
        return sr_recorded(cx, "arguments not understood");
    if (!sr_dim(cx, d, self->shape.ndim, &k))
        return SRR_FAIL;
    if (self->shape.ndim - 1 + sizes->n > EP_MAX_DIMS)
        return sr_fail(cx, "too many dims");
    /* the same as a view of that dim into sizes */
    SymArg sub[2] = {{0}};
    sub[0].kind = SV_TENSOR;
    sub[0].shape.ndim = 1;
    sub[0].shape.dims[0] = self->shape.dims[k];
    sub[1] = *sizes;
    SymArg piece = {0};
    ShapeRuleResult r = sr_view(cx, op, sub, &piece);
    if (r != SRR_OK)
        return r;
    SymShape s = {0};
    for (int i = 0; i < self->shape.ndim; i++) {
        if (i != k) {
            s.dims[s.ndim++] = sym_clone(self->shape.dims[i]);
            continue;
        }
        for (int j = 0; j < piece.shape.ndim; j++)
            s.dims[s.ndim++] = sym_clone(piece.shape.dims[j]);
    }
    sym_arg_clear(&piece);
    return sr_output_shape(cx, &s, &outs[0]);
}

/* movedim's permutation: output dim dst[i] is input dim src[i]; the
** other dims keep their order. */
static bool movedim_perm(ShapeCtx *cx, const SymArg *src, const SymArg *dst, int n, int *perm)
{
    int cnt = src->kind == SV_LIST ? src->n : 1;
    if ((dst->kind == SV_LIST ? dst->n : 1) != cnt || cnt > n) {
        sr_fail(cx, "movedim: source and destination differ in length");
        return false;
    }
    bool used_in[EP_MAX_DIMS] = {false}, used_out[EP_MAX_DIMS] = {false};
    for (int i = 0; i < n; i++)
        perm[i] = -1;
    for (int i = 0; i < cnt; i++) {
        int64_t a, b;
        int x, y;
        if (!sr_int(src->kind == SV_LIST ? &src->items[i] : src, &a) ||
            !sr_int(dst->kind == SV_LIST ? &dst->items[i] : dst, &b))
            return false;
        if (!sr_dim(cx, a, n, &x) || !sr_dim(cx, b, n, &y))
            return false;
        if (n == 0)
            return true;
        if (used_in[x] || used_out[y]) {
            sr_fail(cx, "movedim: repeated dim");
            return false;
        }
        used_in[x] = used_out[y] = true;
        perm[y] = x;
    }
    for (int i = 0, next = 0; i < n; i++) {
        if (perm[i] >= 0)
            continue;
        while (used_in[next])
            next++;
        perm[i] = next++;
    }
    return true;
}

SR_FN(sr_permute)
{
    const SymArg *self = self_tensor(args);
    if (!self)
        return sr_recorded(cx, "arguments not understood");
    int n = self->shape.ndim, perm[EP_MAX_DIMS];
    for (int i = 0; i < n; i++)
        perm[i] = i;
    switch (op->id) {
    case OP_PERMUTE:
    case OP_PERMUTE_COPY: {
        const SymArg *dims = &args[1];
        if (dims->kind != SV_LIST || dims->n != n)
            return sr_fail(cx, "permute needs %d dims", n);
        bool seen[EP_MAX_DIMS] = {false};
        for (int i = 0; i < n; i++) {
            int64_t d;
            if (!sr_int(&dims->items[i], &d) || !sr_dim(cx, d, n, &perm[i]))
                return SRR_FAIL;
            if (seen[perm[i]])
                return sr_fail(cx, "dim %d repeated", perm[i]);
            seen[perm[i]] = true;
        }
        break;
    }
    case OP_MOVEDIM_INT:
    case OP_MOVEDIM_INTLIST:
    case OP_MOVEAXIS_INT:
    case OP_MOVEAXIS_INTLIST:
        if (!movedim_perm(cx, &args[1], &args[2], n, perm))
            return cx->err[0] ? SRR_FAIL : sr_recorded(cx, "source or destination not literal");
        break;
    case OP_T:
    case OP_T_:
    case OP_T_COPY:
        if (n > 2)
            return sr_fail(cx, "t() of a %d-d tensor", n);
        if (n == 2)
            perm[0] = 1, perm[1] = 0;
        break;
    case OP_NUMPY_T:
        for (int i = 0; i < n; i++)
            perm[i] = n - 1 - i;
        break;
    case OP_MT:
    case OP_MH:
    case OP_ADJOINT:
        if (n < 2)
            return sr_fail(cx, "needs at least 2 dims");
        perm[n - 2] = n - 1, perm[n - 1] = n - 2;
        break;
    default: { /* transpose(dim0, dim1) and its aliases */
        int64_t a, b;
        int x, y;
        if (!sr_int(&args[1], &a) || !sr_int(&args[2], &b))
            return sr_recorded(cx, "dims are not literals");
        if (!sr_dim(cx, a, n, &x) || !sr_dim(cx, b, n, &y))
            return SRR_FAIL;
        if (n) {
            perm[x] = y;
            perm[y] = x;
        }
    }
    }
    SymShape s = {n, {0}};
    for (int i = 0; i < n; i++)
        s.dims[i] = sym_clone(self->shape.dims[perm[i]]);
    return sr_output_shape(cx, &s, &outs[0]);
}

SR_FN(sr_squeeze)
{
    const SymArg *self = self_tensor(args);
    if (!self)
        return sr_recorded(cx, "arguments not understood");
    int n = self->shape.ndim;
    bool named[EP_MAX_DIMS];
    for (int i = 0; i < n; i++)
        named[i] = op->schema->nargs == 1; /* squeeze(): every dim */
    if (op->schema->nargs > 1) {
        const SymArg *d = &args[1];
        int cnt = d->kind == SV_LIST ? d->n : 1;
        for (int j = 0; j < cnt; j++) {
            int64_t v;
            int k;
            if (!sr_int(d->kind == SV_LIST ? &d->items[j] : d, &v))
                return sr_recorded(cx, "dim is not a literal");
            if (!sr_dim(cx, v, n, &k))
                return SRR_FAIL;
            if (n)
                named[k] = true;
        }
    }
    /* only a literal 1 goes: a symbolic size is taken to be other than 1,
    ** as PyTorch's size-oblivious reasoning does */
    SymShape s = {0};
    for (int i = 0; i < n; i++)
        if (!(named[i] && sr_is(self->shape.dims[i], 1)))
            s.dims[s.ndim++] = sym_clone(self->shape.dims[i]);
    return sr_output_shape(cx, &s, &outs[0]);
}

SR_FN(sr_unsqueeze)
{
    (void)op;
    const SymArg *self = self_tensor(args);
    int64_t d;
    int k;
    if (!self || !sr_int(&args[1], &d))
        return sr_recorded(cx, "arguments not understood");
    int n = self->shape.ndim;
    if (n + 1 > EP_MAX_DIMS || !sr_dim(cx, d, n + 1, &k))
        return SRR_FAIL;
    SymShape s = {0};
    for (int i = 0; i <= n; i++) {
        if (i == k)
            s.dims[s.ndim++] = sym_const(1);
        if (i < n)
            s.dims[s.ndim++] = sym_clone(self->shape.dims[i]);
    }
    return sr_output_shape(cx, &s, &outs[0]);
}

SR_FN(sr_expand)
{
    (void)op;
    const SymArg *self = self_tensor(args), *size = &args[1];
    if (!self || size->kind != SV_LIST || size->n > EP_MAX_DIMS)
        return sr_recorded(cx, "arguments not understood");
    int n = size->n, lead = n - self->shape.ndim;
    if (lead < 0)
        return sr_fail(cx, "expand to %d dims from %d", n, self->shape.ndim);
    SymShape s = {0};
    for (int i = 0; i < n; i++) {
        if (size->items[i].kind != SV_INT) {
            sym_shape_free(&s);
            return sr_recorded(cx, "a size is not an integer");
        }
        const SymExpr *t = size->items[i].e, *have = i >= lead ? self->shape.dims[i - lead] : NULL;
        const SymExpr *r = t;
        if (have && (sr_is(t, -1) || sym_equal(t, have)))
            r = have;
        else if (have && !sr_is(have, 1)) {
            char why[48];
            snprintf(why, sizeof why, "expand of dim %d", i);
            if (!sr_require_equal(cx, have, t, why)) {
                sym_shape_free(&s);
                return SRR_FAIL;
            }
        }
        s.dims[s.ndim++] = sym_clone(r);
    }
    return sr_output_shape(cx, &s, &outs[0]);
}

SymExpr *sr_slice_bound(ShapeCtx *cx, const SymExpr *v, const SymExpr *size)
{
    int64_t x;
    SymExpr *zero = sym_const(0), *r;
    if (sym_as_int(v, &x) && x < 0) {
        SymExpr *w = sym_binop(SYM_OP_ADD, size, v);
        SymExpr *c = w ? sr_max(cx, w, zero) : NULL;
        r = c ? sr_min(cx, c, size) : NULL;
        sym_free(w);
        sym_free(c);
    } else {
        SymExpr *c = sr_max(cx, v, zero);
        r = c ? sr_min(cx, c, size) : NULL;
        sym_free(c);
    }
    sym_free(zero);
    return r;
}

SR_FN(sr_slice)
{
    const SymArg *self = self_tensor(args);
    int64_t d, step = 1;
    int k;
    if (!self || !sr_int(&args[1], &d))
        return sr_recorded(cx, "arguments not understood");
    if (!sr_dim(cx, d, self->shape.ndim, &k) || !self->shape.ndim)
        return sr_fail(cx, "slice of a 0-d tensor");
    const SymExpr *size = self->shape.dims[k];
    SymExpr *len;
    bool narrow = op->id == OP_NARROW || op->id == OP_NARROW_COPY || op->id == OP_NARROW_TENSOR;
    if (narrow && args[3].kind == SV_INT && op->id == OP_NARROW_TENSOR) {
        /* start is a tensor's value: the length alone gives the size */
        len = sym_clone(args[3].e);
    } else if (narrow) {
        if (args[2].kind != SV_INT || args[3].kind != SV_INT)
            return sr_recorded(cx, "start or length not an integer");
        SymExpr *end = sym_binop(SYM_OP_ADD, args[2].e, args[3].e);
        if (!sr_require(cx, SC_BOUND, sym_binop(SYM_OP_LE, end, size), "narrow within the dim")) {
            sym_free(end);
            return SRR_FAIL;
        }
        sym_free(end);
        len = sym_clone(args[3].e);
    } else {
        const SymArg *st = &args[2], *en = &args[3];
        if ((st->kind != SV_NONE && st->kind != SV_INT) || (en->kind != SV_NONE && en->kind != SV_INT) ||
            (args[4].kind != SV_NONE && !sr_int(&args[4], &step)) || step <= 0)
            return sr_recorded(cx, "start, end or step not understood");
        int64_t ev;
        SymExpr *zero = sym_const(0);
        SymExpr *s0 = st->kind == SV_INT ? sr_slice_bound(cx, st->e, size) : sym_clone(zero);
        /* end=None and end=INT64_MAX both mean the end */
        SymExpr *e0 = en->kind == SV_NONE || (sym_as_int(en->e, &ev) && ev == INT64_MAX) ? sym_clone(size)
                                                                                           : sr_slice_bound(cx, en->e, size);
        /* PyTorch's slice asks whether a symbolic end reaches the size (the
        ** whole dim is a view of self): torch.export guards on it, which is
        ** why following its `max=512` gives `Ne(s0, 512)` (#148568) */
        if (en->kind == SV_INT && !sym_as_int(en->e, &ev) &&
            !sr_branch(cx, sym_binop(SYM_OP_EQ, en->e, size), "whether the slice's end is the size")) {
            sym_free(zero), sym_free(s0), sym_free(e0);
            return SRR_FAIL;
        }
        SymExpr *e1 = s0 && e0 ? sr_max(cx, e0, s0) : NULL; /* end before start: empty */
        SymExpr *span = e1 ? sym_binop(SYM_OP_SUB, e1, s0) : NULL;
        if (step == 1 || !span) {
            len = span;
        } else {
            len = sr_ceil_steps(span, step);
        }
        sym_free(zero);
        sym_free(s0);
        sym_free(e0);
        sym_free(e1);
    }
    SymShape s;
    if (!len || !sym_shape_copy(&self->shape, &s)) {
        sym_free(len);
        return sr_fail(cx, "out of memory");
    }
    sym_free(s.dims[k]);
    s.dims[k] = len;
    return sr_output_shape(cx, &s, &outs[0]);
}

SR_FN(sr_select)
{
    (void)op;
    const SymArg *self = self_tensor(args);
    int64_t d;
    int k;
    if (!self || !sr_int(&args[1], &d) || args[2].kind != SV_INT)
        return sr_recorded(cx, "arguments not understood");
    if (!sr_dim(cx, d, self->shape.ndim, &k) || !self->shape.ndim)
        return sr_fail(cx, "select of a 0-d tensor");
    const SymExpr *size = self->shape.dims[k], *idx = args[2].e;
    int64_t iv;
    /* -size <= index < size; a literal index bounds the size from below */
    bool ok;
    if (sym_as_int(idx, &iv) && iv < 0) {
        SymExpr *m = sym_const(-iv);
        ok = sr_require(cx, SC_BOUND, sym_binop(SYM_OP_LE, m, size), "select index within the dim");
        sym_free(m);
    } else {
        ok = sr_require(cx, SC_BOUND, sym_binop(SYM_OP_LT, idx, size), "select index within the dim");
    }
    if (!ok)
        return SRR_FAIL;
    SymShape s = {0};
    for (int i = 0; i < self->shape.ndim; i++)
        if (i != k)
            s.dims[s.ndim++] = sym_clone(self->shape.dims[i]);
    return sr_output_shape(cx, &s, &outs[0]);
}

int sr_list_tensors(const SymArg *l, const SymShape **out, int max, bool skip_empty)
{
    int n = 0;
    if (l->kind != SV_LIST)
        return -1;
    for (int i = 0; i < l->n; i++) {
        const SymArg *t = &l->items[i];
        if (t->kind != SV_TENSOR)
            return -1;
        if (skip_empty && t->shape.ndim == 1 && sr_is(t->shape.dims[0], 0))
            continue;
        if (n == max)
            return -1;
        out[n++] = &t->shape;
    }
    return n;
}

SR_FN(sr_cat)
{
    (void)op;
    const SymShape *ts[64];
    int64_t d;
    int k, n = sr_list_tensors(&args[0], ts, 64, true);
    if (n < 0 || !sr_int(&args[1], &d))
        return sr_recorded(cx, "arguments not understood");
    if (n == 0) {
        SymShape s = {1, {sym_const(0)}};
        return sr_output_shape(cx, &s, &outs[0]);
    }
    int nd = ts[0]->ndim;
    if (!sr_dim(cx, d, nd, &k))
        return SRR_FAIL;
    SymShape s;
    if (!sym_shape_copy(ts[0], &s))
        return sr_fail(cx, "out of memory");
    for (int j = 1; j < n; j++) {
        if (ts[j]->ndim != nd) {
            sym_shape_free(&s);
            return sr_fail(cx, "tensor %d has %d dims, not %d", j, ts[j]->ndim, nd);
        }
        for (int i = 0; i < nd; i++) {
            if (i == k) {
                SymExpr *sum = sym_binop(SYM_OP_ADD, s.dims[i], ts[j]->dims[i]);
                sym_free(s.dims[i]);
                s.dims[i] = sum;
                continue;
            }
            char why[48];
            snprintf(why, sizeof why, "cat: dim %d of tensor %d", i, j);
            if (!sym_equal(s.dims[i], ts[j]->dims[i]) && !sr_require_equal(cx, s.dims[i], ts[j]->dims[i], why)) {
                sym_shape_free(&s);
                return SRR_FAIL;
            }
        }
    }
    return sr_output_shape(cx, &s, &outs[0]);
}

SR_FN(sr_stack)
{
    (void)op;
    const SymShape *ts[64];
    int64_t d;
    int k, n = sr_list_tensors(&args[0], ts, 64, false);
    if (n <= 0 || !sr_int(&args[1], &d))
        return sr_recorded(cx, "arguments not understood");
    int nd = ts[0]->ndim;
    if (nd + 1 > EP_MAX_DIMS || !sr_dim(cx, d, nd + 1, &k))
        return SRR_FAIL;
    for (int j = 1; j < n; j++) {
        if (ts[j]->ndim != nd)
            return sr_fail(cx, "tensor %d has %d dims, not %d", j, ts[j]->ndim, nd);
        for (int i = 0; i < nd; i++)
            if (!sym_equal(ts[0]->dims[i], ts[j]->dims[i]) &&
                !sr_require_equal(cx, ts[0]->dims[i], ts[j]->dims[i], "stack: equal shapes"))
                return SRR_FAIL;
    }
    SymShape s = {0};
    for (int i = 0; i <= nd; i++) {
        if (i == k)
            s.dims[s.ndim++] = sym_const(n);
        if (i < nd)
            s.dims[s.ndim++] = sym_clone(ts[0]->dims[i]);
    }
    return sr_output_shape(cx, &s, &outs[0]);
}

/* outs[0] becomes a list of copies of self with dim k set to sizes[j]
** (taken). */
static ShapeRuleResult split_out(ShapeCtx *cx, const SymShape *self, int k, SymExpr **sizes, int n, SymArg *out)
{
    out->kind = SV_LIST;
    out->items = calloc((size_t)(n ? n : 1), sizeof *out->items);
    bool ok = out->items != NULL;
    for (int j = 0; j < n; j++) {
        SymShape s;
        if (ok && sym_shape_copy(self, &s)) {
            sym_free(s.dims[k]);
            s.dims[k] = sizes[j];
            sr_set_tensor(&out->items[j], &s);
            out->n = j + 1;
        } else {
            sym_free(sizes[j]);
            ok = false;
        }
    }
    return ok ? SRR_OK : sr_fail(cx, "out of memory");
}

SR_FN(sr_split)
{
    const SymArg *self = self_tensor(args), *sz = &args[1];
    int64_t d;
    int k;
    if (!self || !sr_int(&args[2], &d))
        return sr_recorded(cx, "arguments not understood");
    if (!sr_dim(cx, d, self->shape.ndim, &k) || !self->shape.ndim)
        return SRR_FAIL;
    const SymExpr *size = self->shape.dims[k];
    SymExpr *parts[256];
    int n = 0;
    if (sz->kind == SV_LIST) {
        if (sz->n > 256)
            return sr_recorded(cx, "too many pieces");
        SymExpr *sum = sym_const(0);
        for (int j = 0; j < sz->n && sum; j++) {
            if (sz->items[j].kind != SV_INT) {
                sym_free(sum);
                for (int i = 0; i < n; i++)
                    sym_free(parts[i]);
                return sr_recorded(cx, "a size is not an integer");
            }
            SymExpr *t = sym_binop(SYM_OP_ADD, sum, sz->items[j].e);
            sym_free(sum);
            sum = t;
            parts[n++] = sym_clone(sz->items[j].e);
        }
        if (!sr_require(cx, SC_RELATION, sum ? sym_binop(SYM_OP_EQ, sum, size) : NULL, "split sizes sum to the dim")) {
            sym_free(sum);
            for (int i = 0; i < n; i++)
                sym_free(parts[i]);
            return SRR_FAIL;
        }
        sym_free(sum);
    } else {
        int64_t each, total;
        /* how many pieces depends on the size: only literal sizes */
        if (!sr_int(sz, &each) || !sym_as_int(size, &total) || each <= 0)
            return sr_recorded(cx, "the number of pieces depends on a symbolic size");
        for (int64_t at = 0; at < total || (total == 0 && n == 0); at += each) {
            if (n == 256)
                return sr_recorded(cx, "too many pieces");
            parts[n++] = sym_const(total - at < each ? total - at : each);
            if (total == 0)
                break;
        }
    }
    (void)op;
    return split_out(cx, &self->shape, k, parts, n, &outs[0]);
}

/* The dim hsplit/vsplit/dsplit cut: -1 when self has too few dims. */
static int hvd_dim(OpId id, int ndim)
{
    if (id == OP_HSPLIT_INT || id == OP_HSPLIT_ARRAY)
        return ndim >= 1 ? (ndim == 1 ? 0 : 1) : -1;
    if (id == OP_VSPLIT_INT || id == OP_VSPLIT_ARRAY)
        return ndim >= 2 ? 0 : -1;
    return ndim >= 3 ? 2 : -1;
}

/* Pieces between the cut points of idx (a list of ints), each clamped as a
** slice is (tensor_split's and hsplit's array forms). */
static int cut_pieces(ShapeCtx *cx, const SymArg *idx, const SymExpr *size, SymExpr **parts, int max)
{
    if (idx->kind != SV_LIST || idx->n + 1 > max)
        return -1;
    int n = 0;
    for (int j = 0; j <= idx->n; j++) {
        if (j < idx->n && idx->items[j].kind != SV_INT) {
            while (n)
                sym_free(parts[--n]);
            return -1;
        }
        SymExpr *lo = j ? sr_slice_bound(cx, idx->items[j - 1].e, size) : sym_const(0);
        SymExpr *hi = j < idx->n ? sr_slice_bound(cx, idx->items[j].e, size) : sym_clone(size);
        SymExpr *hi2 = lo && hi ? sr_max(cx, hi, lo) : NULL; /* a cut before the last: empty */
        sym_free(hi);
        parts[n++] = sr_op(SYM_OP_SUB, hi2, lo);
    }
    return n;
}

SR_FN(sr_chunk)
{
    const SymArg *self = self_tensor(args);
    if (!self)
        return sr_recorded(cx, "arguments not understood");
    int nd = self->shape.ndim, k;
    int64_t d = 0, cnt;
    bool hvd = op->id != OP_CHUNK && op->id != OP_UNSAFE_CHUNK && op->id != OP_TENSOR_SPLIT_SECTIONS &&
               op->id != OP_TENSOR_SPLIT_INDICES;
    if (hvd) {
        k = hvd_dim(op->id, nd);
        if (k < 0)
            return sr_fail(cx, "a %d-d tensor has no dim to split", nd);
    } else if (!sr_int(&args[2], &d) || !sr_dim(cx, d, nd, &k) || !nd) {
        return cx->err[0] ? SRR_FAIL : sr_recorded(cx, "dim is not a literal");
    }
    const SymExpr *size = self->shape.dims[k];
    SymExpr *parts[256];
    int n = 0;
    if (op->id == OP_TENSOR_SPLIT_INDICES || op->id == OP_HSPLIT_ARRAY || op->id == OP_VSPLIT_ARRAY ||
        op->id == OP_DSPLIT_ARRAY) {
        n = cut_pieces(cx, &args[1], size, parts, 256);
        if (n < 0)
            return sr_recorded(cx, "indices not understood");
    } else if (!sr_int(&args[1], &cnt) || cnt <= 0 || cnt > 256) {
        return sr_recorded(cx, "the number of sections is not a small positive literal");
    } else if (op->id == OP_TENSOR_SPLIT_SECTIONS) {
        /* the first size % cnt pieces are one longer: piece i is
        ** (size + cnt - 1 - i) // cnt, which holds for symbolic sizes too */
        for (n = 0; n < cnt; n++)
            parts[n] = sr_opc(SYM_OP_FLOORDIV, sr_opc(SYM_OP_ADD, sym_clone(size), cnt - 1 - n), cnt);
    } else if (hvd) {
        /* the int forms need the dim to divide evenly */
        if (!sr_require(cx, SC_RELATION, sr_op(SYM_OP_EQ, sr_opc(SYM_OP_MOD, sym_clone(size), cnt), sym_const(0)),
                        "split into equal sections"))
            return SRR_FAIL;
        for (n = 0; n < cnt; n++)
            parts[n] = sr_opc(SYM_OP_FLOORDIV, sym_clone(size), cnt);
    } else {
        /* chunk: pieces of ceil(size / chunks); how many depends on the size */
        int64_t total;
        if (!sym_as_int(size, &total))
            return sr_recorded(cx, "the number of chunks depends on a symbolic size");
        int64_t each = (total + cnt - 1) / cnt;
        if (each == 0) /* an empty dim gives chunks empty pieces */
            for (n = 0; n < cnt; n++)
                parts[n] = sym_const(0);
        for (int64_t at = 0; each && at < total; at += each)
            parts[n++] = sym_const(total - at < each ? total - at : each);
    }
    for (int j = 0; j < n; j++)
        if (!parts[j]) {
            for (int i = 0; i < n; i++)
                sym_free(parts[i]);
            return sr_fail(cx, "out of memory");
        }
    return split_out(cx, &self->shape, k, parts, n, &outs[0]);
}

SR_FN(sr_unbind)
{
    (void)op;
    const SymArg *self = self_tensor(args);
    int64_t d, total;
    int k;
    if (!self || !sr_int(&args[1], &d))
        return sr_recorded(cx, "arguments not understood");
    if (!sr_dim(cx, d, self->shape.ndim, &k) || !self->shape.ndim)
        return SRR_FAIL;
    if (!sym_as_int(self->shape.dims[k], &total) || total > 256)
        return sr_recorded(cx, "the number of pieces depends on a symbolic size");
    SymShape s = {0};
    for (int i = 0; i < self->shape.ndim; i++)
        if (i != k)
            s.dims[s.ndim++] = sym_clone(self->shape.dims[i]);
    outs[0].kind = SV_LIST;
    outs[0].items = calloc((size_t)(total ? total : 1), sizeof *outs[0].items);
    bool ok = outs[0].items != NULL;
    for (int j = 0; ok && j < total; j++) {
        SymShape c;
        ok = sym_shape_copy(&s, &c);
        if (ok) {
            sr_set_tensor(&outs[0].items[j], &c);
            outs[0].n = j + 1;
        }
    }
    sym_shape_free(&s);
    return ok ? SRR_OK : sr_fail(cx, "out of memory");
}

SR_FN(sr_repeat)
{
    const SymArg *self = self_tensor(args), *r = &args[1];
    if (!self || r->kind != SV_LIST || r->n > EP_MAX_DIMS)
        return sr_recorded(cx, "arguments not understood");
    int nd = self->shape.ndim, lead = r->n - nd;
    /* tile repeats the leading dims once when given fewer reps than dims */
    if (lead < 0 && op->id != OP_TILE)
        return sr_fail(cx, "%d repeats for %d dims", r->n, nd);
    int out = lead < 0 ? nd : r->n;
    SymShape s = {0};
    for (int i = 0; i < out; i++) {
        int j = i - (out - r->n), k = i - (out - nd); /* rep index, self dim */
        if (j >= 0 && r->items[j].kind != SV_INT) {
            sym_shape_free(&s);
            return sr_recorded(cx, "a repeat is not an integer");
        }
        if (k < 0)
            s.dims[s.ndim++] = sym_clone(r->items[j].e);
        else if (j < 0)
            s.dims[s.ndim++] = sym_clone(self->shape.dims[k]);
        else
            s.dims[s.ndim++] = sym_binop(SYM_OP_MUL, self->shape.dims[k], r->items[j].e);
    }
    return sr_output_shape(cx, &s, &outs[0]);
}

SR_FN(sr_pad)
{
    const SymArg *self = self_tensor(args), *p = &args[1];
    if (!self || p->kind != SV_LIST || p->n % 2 || p->n / 2 > self->shape.ndim)
        return sr_recorded(cx, "arguments not understood");
    const SymArg *mode = sr_arg(op, args, "mode");
    if (mode && mode->kind == SV_LIT && mode->lit.kind == V_STR && strcmp(mode->lit.s, "constant") != 0)
        return sr_recorded(cx, "pad mode %s", mode->lit.s);
    SymShape s;
    if (!sym_shape_copy(&self->shape, &s))
        return sr_fail(cx, "out of memory");
    /* pairs (before, after) from the last dim backwards */
    for (int j = 0; j < p->n / 2; j++) {
        int i = s.ndim - 1 - j;
        if (p->items[2 * j].kind != SV_INT || p->items[2 * j + 1].kind != SV_INT) {
            sym_shape_free(&s);
            return sr_recorded(cx, "a pad is not an integer");
        }
        SymExpr *a = sym_binop(SYM_OP_ADD, s.dims[i], p->items[2 * j].e);
        SymExpr *b = a ? sym_binop(SYM_OP_ADD, a, p->items[2 * j + 1].e) : NULL;
        sym_free(a);
        sym_free(s.dims[i]);
        s.dims[i] = b;
    }
    return sr_output_shape(cx, &s, &outs[0]);
}
