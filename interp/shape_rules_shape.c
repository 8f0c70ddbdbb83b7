/*
** shape_rules_shape.c -- shape rules of the rearranging ops that were
** left without one: ravel, atleast_Nd, broadcast_tensors, diagonal/diag,
** diag_embed, unfold, meshgrid, the h/v/d/column stacks, rot90,
** block_diag and glu.  Sizes follow ATen's shape functions
** (TensorShape.cpp), with the same clamping for diagonal offsets.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shape_rules_int.h"

static const SymArg *self_tensor(const SymArg *args)
{
    return args[0].kind == SV_TENSOR ? &args[0] : NULL;
}

SR_FN(sr_ravel)
{
    (void)op;
    const SymArg *self = self_tensor(args);
    if (!self)
        return sr_recorded(cx, "arguments not understood");
    SymShape s = {1, {sr_numel(&self->shape, 0, self->shape.ndim)}};
    return sr_output_shape(cx, &s, &outs[0]);
}

/* shape as atleast_{want}d makes it: a 0-d tensor becomes [1]*want, a 1-d
** [n] becomes [1, n] (2d) or [1, n, 1] (3d), a 2-d [a, b] [a, b, 1] (3d). */
static bool atleast(const SymShape *in, int want, SymShape *out)
{
    out->ndim = 0;
    if (in->ndim >= want)
        return sym_shape_copy(in, out);
    if (in->ndim == 0) {
        for (int i = 0; i < want; i++)
            out->dims[out->ndim++] = sym_const(1);
    } else if (in->ndim == 1) {
        if (want >= 2)
            out->dims[out->ndim++] = sym_const(1);
        out->dims[out->ndim++] = sym_clone(in->dims[0]);
        if (want == 3)
            out->dims[out->ndim++] = sym_const(1);
    } else { /* 2-d to 3-d */
        out->dims[out->ndim++] = sym_clone(in->dims[0]);
        out->dims[out->ndim++] = sym_clone(in->dims[1]);
        out->dims[out->ndim++] = sym_const(1);
    }
    for (int i = 0; i < out->ndim; i++)
        if (!out->dims[i]) {
            sym_shape_free(out);
            return false;
        }
    return true;
}

SR_FN(sr_atleast)
{
    const SymArg *self = self_tensor(args);
    if (!self)
        return sr_recorded(cx, "arguments not understood");
    int want = op->id == OP_ATLEAST_1D ? 1 : op->id == OP_ATLEAST_2D ? 2 : 3;
    SymShape s;
    if (!atleast(&self->shape, want, &s))
        return sr_fail(cx, "out of memory");
    return sr_output_shape(cx, &s, &outs[0]);
}

SR_FN(sr_broadcast_tensors)
{
    (void)op;
    const SymShape *ts[64];
    int n = sr_list_tensors(&args[0], ts, 64, false);
    if (n < 0)
        return sr_recorded(cx, "arguments not understood");
    SymShape acc = {0};
    for (int j = 0; j < n; j++) {
        SymShape next;
        bool ok = sr_broadcast(cx, &acc, ts[j], &next);
        sym_shape_free(&acc);
        if (!ok)
            return SRR_FAIL;
        acc = next;
    }
    SymShape all[64];
    for (int j = 0; j < n; j++)
        all[j] = acc; /* borrowed: sr_set_tensor_list copies */
    ShapeRuleResult r = sr_set_tensor_list(cx, all, n, &outs[0]);
    sym_shape_free(&acc);
    return r;
}

/* The length of the diagonal at offset of an [a, b] plane:
** max(min(a, b - off), 0) for off >= 0, max(min(a + off, b), 0) below. */
static SymExpr *diag_len(ShapeCtx *cx, const SymExpr *a, const SymExpr *b, int64_t off)
{
    SymExpr *x = off >= 0 ? sym_clone(a) : sr_opc(SYM_OP_ADD, sym_clone(a), off);
    SymExpr *y = off >= 0 ? sr_opc(SYM_OP_SUB, sym_clone(b), off) : sym_clone(b);
    SymExpr *m = x && y ? sr_min(cx, x, y) : NULL, *z = sym_const(0);
    SymExpr *r = m && z ? sr_max(cx, m, z) : NULL;
    sym_free(x), sym_free(y), sym_free(m), sym_free(z);
    return r;
}

SR_FN(sr_diagonal)
{
    const SymArg *self = self_tensor(args);
    int64_t off, d1 = 0, d2 = 1;
    if (!self || !sr_int(&args[1], &off))
        return sr_recorded(cx, "arguments not understood");
    int n = self->shape.ndim;
    if (op->id == OP_DIAG && n == 1) {
        /* a vector onto the diagonal of a square of side n + |offset| */
        SymExpr *side = sr_opc(SYM_OP_ADD, sym_clone(self->shape.dims[0]), off < 0 ? -off : off);
        SymShape s = {2, {side, sym_clone(side)}};
        return sr_output_shape(cx, &s, &outs[0]);
    }
    if (op->id != OP_DIAG && (!sr_int(&args[2], &d1) || !sr_int(&args[3], &d2)))
        return sr_recorded(cx, "dims are not literals");
    if (op->id == OP_DIAG && n != 2)
        return sr_fail(cx, "diag of a %d-d tensor", n);
    int a, b;
    if (n < 2 || !sr_dim(cx, d1, n, &a) || !sr_dim(cx, d2, n, &b))
        return cx->err[0] ? SRR_FAIL : sr_fail(cx, "diagonal of a %d-d tensor", n);
    if (a == b)
        return sr_fail(cx, "diagonal dims are the same");
    SymShape s = {0};
    for (int i = 0; i < n; i++)
        if (i != a && i != b)
            s.dims[s.ndim++] = sym_clone(self->shape.dims[i]);
    s.dims[s.ndim++] = diag_len(cx, self->shape.dims[a], self->shape.dims[b], off);
    return sr_output_shape(cx, &s, &outs[0]);
}

SR_FN(sr_diag_embed)
{
    (void)op;
    const SymArg *self = self_tensor(args);
    int64_t off, d1, d2;
    if (!self || !sr_int(&args[1], &off) || !sr_int(&args[2], &d1) || !sr_int(&args[3], &d2))
        return sr_recorded(cx, "arguments not understood");
    int n = self->shape.ndim, a, b;
    if (n < 1 || n + 1 > EP_MAX_DIMS)
        return sr_fail(cx, "diag_embed of a %d-d tensor", n);
    if (!sr_dim(cx, d1, n + 1, &a) || !sr_dim(cx, d2, n + 1, &b))
        return SRR_FAIL;
    if (a == b)
        return sr_fail(cx, "diagonal dims are the same");
    if (a > b) {
        int t = a;
        a = b;
        b = t;
    }
    /* the last dim becomes a square of side size + |offset| at dims a < b */
    SymExpr *side = sr_opc(SYM_OP_ADD, sym_clone(self->shape.dims[n - 1]), off < 0 ? -off : off);
    SymShape s = {0};
    for (int i = 0, j = 0; i <= n; i++)
        s.dims[s.ndim++] = i == a || i == b ? sym_clone(side) : sym_clone(self->shape.dims[j++]);
    sym_free(side);
    return sr_output_shape(cx, &s, &outs[0]);
}

SR_FN(sr_unfold)
{
    (void)op;
    const SymArg *self = self_tensor(args);
    int64_t d, size, step;
    int k;
    if (!self || !sr_int(&args[1], &d) || !sr_int(&args[2], &size) || !sr_int(&args[3], &step))
        return sr_recorded(cx, "arguments not understood");
    int n = self->shape.ndim;
    if (step <= 0 || size < 0 || n + 1 > EP_MAX_DIMS)
        return sr_fail(cx, "unfold with size %lld, step %lld", (long long)size, (long long)step);
    if (!sr_dim(cx, d, n, &k))
        return SRR_FAIL;
    if (n == 0) { /* a 0-d tensor unfolds to [size] (size must be 1) */
        SymShape s = {1, {sym_const(size)}};
        return sr_output_shape(cx, &s, &outs[0]);
    }
    const SymExpr *dim = self->shape.dims[k];
    SymExpr *sz = sym_const(size);
    bool ok = sr_require(cx, SC_BOUND, sym_binop(SYM_OP_LE, sz, dim), "unfold: window within the dim");
    sym_free(sz);
    if (!ok)
        return SRR_FAIL;
    SymShape s;
    if (!sym_shape_copy(&self->shape, &s))
        return sr_fail(cx, "out of memory");
    /* (dim - size) // step + 1 windows, each of size on a new last dim */
    sym_free(s.dims[k]);
    s.dims[k] = sr_opc(SYM_OP_ADD, sr_opc(SYM_OP_FLOORDIV, sr_opc(SYM_OP_SUB, sym_clone(dim), size), step), 1);
    s.dims[s.ndim++] = sym_const(size);
    return sr_output_shape(cx, &s, &outs[0]);
}

SR_FN(sr_meshgrid)
{
    const SymShape *ts[EP_MAX_DIMS];
    int n = sr_list_tensors(&args[0], ts, EP_MAX_DIMS, false);
    if (n < 0)
        return sr_recorded(cx, "arguments not understood");
    const SymArg *ix = sr_arg(op, args, "indexing");
    bool xy = ix && ix->kind == SV_LIT && ix->lit.kind == V_STR && strcmp(ix->lit.s, "xy") == 0;
    SymShape s = {0};
    for (int j = 0; j < n; j++) {
        if (ts[j]->ndim > 1) {
            sym_shape_free(&s);
            return sr_fail(cx, "meshgrid input %d is %d-d", j, ts[j]->ndim);
        }
        s.dims[s.ndim++] = ts[j]->ndim ? sym_clone(ts[j]->dims[0]) : sym_const(1);
    }
    if (xy && n >= 2) { /* Cartesian indexing swaps the first two dims */
        SymExpr *t = s.dims[0];
        s.dims[0] = s.dims[1];
        s.dims[1] = t;
    }
    SymShape all[EP_MAX_DIMS];
    for (int j = 0; j < n; j++)
        all[j] = s;
    ShapeRuleResult r = sr_set_tensor_list(cx, all, n, &outs[0]);
    sym_shape_free(&s);
    return r;
}

/* Run the cat rule on shapes (borrowed) along dim. */
static ShapeRuleResult cat_shapes(ShapeCtx *cx, SymShape *shapes, int n, int64_t dim, SymArg *out)
{
    const OpDef *cat = op_get(OP_CAT);
    SymArg args[2] = {{0}};
    args[0].kind = SV_LIST;
    args[0].n = n;
    args[0].items = calloc((size_t)(n ? n : 1), sizeof *args[0].items);
    if (!args[0].items)
        return sr_fail(cx, "out of memory");
    for (int j = 0; j < n; j++) {
        args[0].items[j].kind = SV_TENSOR;
        args[0].items[j].shape = shapes[j];
    }
    args[1].kind = SV_INT;
    args[1].e = sym_const(dim);
    ShapeRuleResult r = args[1].e ? sr_cat(cx, cat, args, out) : sr_fail(cx, "out of memory");
    for (int j = 0; j < n; j++)
        args[0].items[j].shape.ndim = 0; /* the shapes stay the caller's */
    sym_arg_clear(&args[0]);
    sym_arg_clear(&args[1]);
    return r;
}

SR_FN(sr_stack_variant)
{
    const SymShape *ts[64];
    int n = sr_list_tensors(&args[0], ts, 64, false);
    if (n <= 0)
        return sr_recorded(cx, "arguments not understood");
    SymShape sh[64];
    int want = op->id == OP_VSTACK ? 2 : op->id == OP_DSTACK ? 3 : 1;
    int64_t dim = op->id == OP_DSTACK ? 2 : op->id == OP_VSTACK ? 0 : 1;
    bool ok = true;
    int m = 0;
    for (; ok && m < n; m++) {
        if (op->id == OP_COLUMN_STACK && ts[m]->ndim <= 1) {
            /* a scalar or vector becomes a column [n, 1] */
            sh[m].ndim = 2;
            sh[m].dims[0] = ts[m]->ndim ? sym_clone(ts[m]->dims[0]) : sym_const(1);
            sh[m].dims[1] = sym_const(1);
            ok = sh[m].dims[0] && sh[m].dims[1];
        } else {
            ok = atleast(ts[m], want, &sh[m]);
        }
    }
    /* hstack joins vectors end to end */
    if (op->id == OP_HSTACK && sh[0].ndim == 1)
        dim = 0;
    ShapeRuleResult r = ok ? cat_shapes(cx, sh, n, dim, &outs[0]) : sr_fail(cx, "out of memory");
    for (int j = 0; j < m; j++)
        sym_shape_free(&sh[j]);
    return r;
}

SR_FN(sr_rot90)
{
    (void)op;
    const SymArg *self = self_tensor(args), *dims = &args[2];
    int64_t k, a, b;
    int x, y;
    if (!self || !sr_int(&args[1], &k) || dims->kind != SV_LIST || dims->n != 2 || !sr_int(&dims->items[0], &a) ||
        !sr_int(&dims->items[1], &b))
        return sr_recorded(cx, "arguments not understood");
    int n = self->shape.ndim;
    if (n < 2 || !sr_dim(cx, a, n, &x) || !sr_dim(cx, b, n, &y) || x == y)
        return cx->err[0] ? SRR_FAIL : sr_fail(cx, "rot90 needs two different dims of a 2-d or more tensor");
    SymShape s;
    if (!sym_shape_copy(&self->shape, &s))
        return sr_fail(cx, "out of memory");
    if (((k % 4) + 4) % 2 == 1) { /* a quarter or three-quarter turn swaps them */
        SymExpr *t = s.dims[x];
        s.dims[x] = s.dims[y];
        s.dims[y] = t;
    }
    return sr_output_shape(cx, &s, &outs[0]);
}

SR_FN(sr_block_diag)
{
    (void)op;
    const SymShape *ts[64];
    int n = sr_list_tensors(&args[0], ts, 64, false);
    if (n < 0)
        return sr_recorded(cx, "arguments not understood");
    /* a 0-d tensor is [1, 1], a vector [1, n]: rows and columns add up */
    SymExpr *rows = sym_const(0), *cols = sym_const(0);
    for (int j = 0; j < n; j++) {
        const SymShape *t = ts[j];
        if (t->ndim > 2) {
            sym_free(rows);
            sym_free(cols);
            return sr_fail(cx, "block_diag input %d is %d-d", j, t->ndim);
        }
        rows = sr_op(SYM_OP_ADD, rows, t->ndim == 2 ? sym_clone(t->dims[0]) : sym_const(1));
        cols = sr_op(SYM_OP_ADD, cols, t->ndim ? sym_clone(t->dims[t->ndim - 1]) : sym_const(1));
    }
    SymShape s = {2, {rows, cols}};
    return sr_output_shape(cx, &s, &outs[0]);
}

SR_FN(sr_glu)
{
    (void)op;
    const SymArg *self = self_tensor(args);
    int64_t d;
    int k;
    if (!self || !sr_int(&args[1], &d))
        return sr_recorded(cx, "arguments not understood");
    if (!self->shape.ndim)
        return sr_fail(cx, "glu of a 0-d tensor");
    if (!sr_dim(cx, d, self->shape.ndim, &k))
        return SRR_FAIL;
    /* the dim halves, so it must be even */
    const SymExpr *size = self->shape.dims[k];
    if (!sr_require(cx, SC_RELATION, sr_op(SYM_OP_EQ, sr_opc(SYM_OP_MOD, sym_clone(size), 2), sym_const(0)),
                    "glu halves an even dim"))
        return SRR_FAIL;
    SymShape s;
    if (!sym_shape_copy(&self->shape, &s))
        return sr_fail(cx, "out of memory");
    sym_free(s.dims[k]);
    s.dims[k] = sr_opc(SYM_OP_FLOORDIV, sym_clone(size), 2);
    return sr_output_shape(cx, &s, &outs[0]);
}
