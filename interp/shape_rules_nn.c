/*
** shape_rules_nn.c -- shape rules of matrix products (inner dims equal,
** batch dims broadcast), attention, convolution and pooling (output sizes
** by FloorDiv), and indexing (index_select, gather, embedding with the
** index bound an arange's values give).
*/
#include <stdio.h>
#include <string.h>

#include "shape_rules_int.h"


/* [.., n, k] @ [.., k, m]: batch dims broadcast (the given ones equal
** for bmm), inner dims equal. */
static ShapeRuleResult matmul2(ShapeCtx *cx, const SymShape *a, const SymShape *b, bool broadcast_batch, SymShape *out)
{
    if (a->ndim < 2 || b->ndim < 2)
        return sr_fail(cx, "matrix product of %d-d and %d-d", a->ndim, b->ndim);
    if (!sr_require_equal(cx, a->dims[a->ndim - 1], b->dims[b->ndim - 2], "inner dims of the product"))
        return SRR_FAIL;
    SymShape ba = {a->ndim - 2, {0}}, bb = {b->ndim - 2, {0}}, batch;
    for (int i = 0; i < ba.ndim; i++)
        ba.dims[i] = a->dims[i];
    for (int i = 0; i < bb.ndim; i++)
        bb.dims[i] = b->dims[i];
    if (!broadcast_batch && ba.ndim != bb.ndim)
        return sr_fail(cx, "batch dims differ in number");
    if (!sr_broadcast(cx, &ba, &bb, &batch)) /* ba/bb borrow: not freed */
        return SRR_FAIL;
    if (batch.ndim + 2 > EP_MAX_DIMS) {
        sym_shape_free(&batch);
        return sr_fail(cx, "too many dims");
    }
    batch.dims[batch.ndim++] = sym_clone(a->dims[a->ndim - 2]);
    batch.dims[batch.ndim++] = sym_clone(b->dims[b->ndim - 1]);
    *out = batch;
    return SRR_OK;
}

SR_FN(sr_mm)
{
    (void)op;
    if (args[0].kind != SV_TENSOR || args[1].kind != SV_TENSOR || args[0].shape.ndim != 2 || args[1].shape.ndim != 2)
        return sr_fail(cx, "mm needs two matrices");
    SymShape s;
    ShapeRuleResult r = matmul2(cx, &args[0].shape, &args[1].shape, false, &s);
    return r == SRR_OK ? sr_output_shape(cx, &s, &outs[0]) : r;
}

SR_FN(sr_bmm)
{
    (void)op;
    if (args[0].kind != SV_TENSOR || args[1].kind != SV_TENSOR || args[0].shape.ndim != 3 || args[1].shape.ndim != 3)
        return sr_fail(cx, "bmm needs two 3-d tensors");
    SymShape s;
    ShapeRuleResult r = matmul2(cx, &args[0].shape, &args[1].shape, false, &s);
    return r == SRR_OK ? sr_output_shape(cx, &s, &outs[0]) : r;
}

SR_FN(sr_addmm)
{
    (void)op;
    if (args[0].kind != SV_TENSOR || args[1].kind != SV_TENSOR || args[2].kind != SV_TENSOR)
        return sr_recorded(cx, "arguments not understood");
    SymShape s, full;
    ShapeRuleResult r = matmul2(cx, &args[1].shape, &args[2].shape, false, &s);
    if (r != SRR_OK)
        return r;
    /* self broadcasts to the product's shape */
    if (!sr_broadcast(cx, &args[0].shape, &s, &full)) {
        sym_shape_free(&s);
        return SRR_FAIL;
    }
    sym_shape_free(&full);
    return sr_output_shape(cx, &s, &outs[0]);
}

SR_FN(sr_matmul)
{
    (void)op;
    if (args[0].kind != SV_TENSOR || args[1].kind != SV_TENSOR)
        return sr_recorded(cx, "arguments not understood");
    const SymShape *a = &args[0].shape, *b = &args[1].shape;
    if (a->ndim == 0 || b->ndim == 0)
        return sr_fail(cx, "matmul of a 0-d tensor");
    /* a 1-d operand is a row (left) or column (right), dropped after */
    SymShape a2 = *a, b2 = *b;
    SymExpr *one = sym_const(1);
    if (a->ndim == 1) {
        a2.ndim = 2;
        a2.dims[0] = one;
        a2.dims[1] = a->dims[0];
    }
    if (b->ndim == 1) {
        b2.ndim = 2;
        b2.dims[0] = b->dims[0];
        b2.dims[1] = one;
    }
    SymShape s;
    ShapeRuleResult r = matmul2(cx, &a2, &b2, true, &s);
    sym_free(one);
    if (r != SRR_OK)
        return r;
    int drop_n = a->ndim == 1, drop_m = b->ndim == 1;
    SymShape o = {0};
    for (int i = 0; i < s.ndim; i++) {
        if ((drop_n && i == s.ndim - 2) || (drop_m && i == s.ndim - 1))
            sym_free(s.dims[i]);
        else
            o.dims[o.ndim++] = s.dims[i];
    }
    return sr_output_shape(cx, &o, &outs[0]);
}

SR_FN(sr_linear)
{
    (void)op;
    const SymArg *in = &args[0], *w = &args[1], *bias = &args[2];
    if (in->kind != SV_TENSOR || w->kind != SV_TENSOR || in->shape.ndim < 1 || w->shape.ndim < 1 || w->shape.ndim > 2)
        return sr_recorded(cx, "arguments not understood");
    int n = in->shape.ndim;
    if (!sr_require_equal(cx, in->shape.dims[n - 1], w->shape.dims[w->shape.ndim - 1], "input features = weight columns"))
        return SRR_FAIL;
    SymShape s = {0};
    for (int i = 0; i < n - 1; i++)
        s.dims[s.ndim++] = sym_clone(in->shape.dims[i]);
    if (w->shape.ndim == 2)
        s.dims[s.ndim++] = sym_clone(w->shape.dims[0]);
    if (bias->kind == SV_TENSOR) {
        SymShape full;
        if (!sr_broadcast(cx, &bias->shape, &s, &full)) {
            sym_shape_free(&s);
            return SRR_FAIL;
        }
        sym_shape_free(&full);
    }
    return sr_output_shape(cx, &s, &outs[0]);
}

SR_FN(sr_attention)
{
    (void)op;
    const SymArg *q = &args[0], *k = &args[1], *v = &args[2];
    if (q->kind != SV_TENSOR || k->kind != SV_TENSOR || v->kind != SV_TENSOR || q->shape.ndim < 2 ||
        k->shape.ndim < 2 || v->shape.ndim < 2)
        return sr_recorded(cx, "arguments not understood");
    if (!sr_require_equal(cx, q->shape.dims[q->shape.ndim - 1], k->shape.dims[k->shape.ndim - 1],
                          "query and key embedding dims") ||
        !sr_require_equal(cx, k->shape.dims[k->shape.ndim - 2], v->shape.dims[v->shape.ndim - 2],
                          "key and value lengths"))
        return SRR_FAIL;
    SymShape s;
    if (!sym_shape_copy(&q->shape, &s))
        return sr_fail(cx, "out of memory");
    sym_free(s.dims[s.ndim - 1]);
    s.dims[s.ndim - 1] = sym_clone(v->shape.dims[v->shape.ndim - 1]);
    return sr_output_shape(cx, &s, &outs[0]);
}

bool sr_nth(const SymArg *l, int i, const SymExpr *dflt, const SymExpr **out)
{
    if (!l || l->kind == SV_NONE || (l->kind == SV_LIST && l->n == 0)) {
        *out = dflt;
        return dflt != NULL;
    }
    if (l->kind == SV_INT) {
        *out = l->e;
        return true;
    }
    if (l->kind != SV_LIST)
        return false;
    const SymArg *it = &l->items[l->n == 1 ? 0 : i];
    if (i >= l->n && l->n != 1)
        return false;
    *out = it->e;
    return it->kind == SV_INT;
}

/* in + 2*pad - dil*(k - 1) - 1, what a window's output size divides */
static SymExpr *window_numerator(const SymExpr *in, const SymExpr *k, const SymExpr *pad, const SymExpr *dil)
{
    SymExpr *one = sym_const(1), *two = sym_const(2);
    SymExpr *p2 = sym_binop(SYM_OP_MUL, two, pad);
    SymExpr *km1 = sym_binop(SYM_OP_SUB, k, one);
    SymExpr *span = km1 ? sym_binop(SYM_OP_MUL, dil, km1) : NULL;
    SymExpr *a = p2 ? sym_binop(SYM_OP_ADD, in, p2) : NULL;
    SymExpr *b = a && span ? sym_binop(SYM_OP_SUB, a, span) : NULL;
    SymExpr *c = b ? sym_binop(SYM_OP_SUB, b, one) : NULL;
    sym_free(one), sym_free(two), sym_free(p2), sym_free(km1), sym_free(span), sym_free(a), sym_free(b);
    return c;
}

/* (in + 2*pad - dil*(k - 1) - 1) // stride + 1 */
SymExpr *sr_window_out(const SymExpr *in, const SymExpr *k, const SymExpr *st, const SymExpr *pad,
                       const SymExpr *dil)
{
    SymExpr *num = window_numerator(in, k, pad, dil), *one = sym_const(1);
    SymExpr *d = num ? sym_binop(SYM_OP_FLOORDIV, num, st) : NULL;
    SymExpr *r = d ? sym_binop(SYM_OP_ADD, d, one) : NULL;
    sym_free(num), sym_free(one), sym_free(d);
    return r;
}

/* A window's output size, with PyTorch's check that it is at least 1
** ("Output size is too small"): a symbolic input must be large enough for
** the kernel.  NULL (cx->err set) when that never holds. */
static SymExpr *window_dim(ShapeCtx *cx, const SymExpr *in, const SymExpr *k, const SymExpr *st,
                           const SymExpr *pad, const SymExpr *dil)
{
    SymExpr *r = sr_window_out(in, k, st, pad, dil);
    SymExpr *one = sym_const(1);
    bool ok = r && sr_require(cx, SC_BOUND, sym_binop(SYM_OP_GE, r, one), "output size at least 1");
    sym_free(one);
    if (!ok) {
        sym_free(r);
        return NULL;
    }
    return r;
}

SR_FN(sr_conv)
{
    const SymArg *in = &args[0], *w = &args[1];
    const SymArg *tr = sr_arg(op, args, "transposed"), *groups = sr_arg(op, args, "groups");
    if (in->kind != SV_TENSOR || w->kind != SV_TENSOR || w->shape.ndim < 3)
        return sr_recorded(cx, "arguments not understood");
    if (tr && tr->kind == SV_LIT && tr->lit.kind == V_BOOL && tr->lit.b)
        return sr_conv_transpose(cx, op, args, outs);
    /* conv*d.padding: "valid" is no padding, "same" keeps the spatial sizes */
    const SymArg *pa = sr_arg(op, args, "padding");
    bool pstr = pa && pa->kind == SV_LIT && pa->lit.kind == V_STR;
    bool same = pstr && strcmp(pa->lit.s, "same") == 0;
    if (pstr && !same && strcmp(pa->lit.s, "valid") != 0)
        return sr_fail(cx, "padding \"%s\" is neither \"valid\" nor \"same\"", pa->lit.s);
    int sp = w->shape.ndim - 2;
    bool batched = in->shape.ndim == sp + 2;
    if (!batched && in->shape.ndim != sp + 1)
        return sr_fail(cx, "%d-d input for a %d-d kernel", in->shape.ndim, sp);
    int off = batched ? 2 : 1;
    SymExpr *one = sym_const(1), *zero = sym_const(0);
    const SymExpr *g = groups && groups->kind == SV_INT ? groups->e : one;
    SymExpr *cin = sym_binop(SYM_OP_MUL, w->shape.dims[1], g);
    bool ok = sr_require_equal(cx, in->shape.dims[off - 1], cin, "input channels = weight channels * groups");
    sym_free(cin);
    SymShape s = {0};
    if (batched)
        s.dims[s.ndim++] = sym_clone(in->shape.dims[0]);
    s.dims[s.ndim++] = sym_clone(w->shape.dims[0]);
    for (int i = 0; ok && i < sp; i++) {
        const SymExpr *st, *pad, *dil;
        if (!sr_nth(sr_arg(op, args, "stride"), i, one, &st) ||
            !sr_nth(pstr ? NULL : pa, i, zero, &pad) || !sr_nth(sr_arg(op, args, "dilation"), i, one, &dil)) {
            sym_shape_free(&s);
            sym_free(one), sym_free(zero);
            return sr_recorded(cx, "stride, padding or dilation not understood");
        }
        s.dims[s.ndim++] = same ? sym_clone(in->shape.dims[off + i])
                                : window_dim(cx, in->shape.dims[off + i], w->shape.dims[2 + i], st, pad, dil);
    }
    sym_free(one), sym_free(zero);
    if (!ok) {
        sym_shape_free(&s);
        return SRR_FAIL;
    }
    return sr_output_shape(cx, &s, &outs[0]);
}

SR_FN(sr_pool)
{
    const SymArg *in = &args[0], *ks = sr_arg(op, args, "kernel_size"), *cm = sr_arg(op, args, "ceil_mode");
    if (in->kind != SV_TENSOR || !ks || ks->kind != SV_LIST)
        return sr_recorded(cx, "arguments not understood");
    if (cm && cm->kind == SV_LIT && cm->lit.kind == V_BOOL && cm->lit.b)
        return sr_recorded(cx, "ceil_mode");
    int sp = 0;
    /* the spatial rank is in the name: max_pool2d, avg_pool3d ... */
    for (const char *p = op->target; *p; p++)
        if (p[0] >= '1' && p[0] <= '3' && p[1] == 'd')
            sp = p[0] - '0';
    if (sp == 0 || in->shape.ndim < sp + 1)
        return sr_recorded(cx, "spatial rank not understood");
    int off = in->shape.ndim - sp;
    SymExpr *one = sym_const(1), *zero = sym_const(0);
    SymShape s = {0};
    for (int i = 0; i < off; i++)
        s.dims[s.ndim++] = sym_clone(in->shape.dims[i]);
    for (int i = 0; i < sp; i++) {
        const SymExpr *k, *st, *pad, *dil;
        if (!sr_nth(ks, i, NULL, &k) || !sr_nth(sr_arg(op, args, "stride"), i, k, &st) ||
            !sr_nth(sr_arg(op, args, "padding"), i, zero, &pad) || !sr_nth(sr_arg(op, args, "dilation"), i, one, &dil)) {
            sym_shape_free(&s);
            sym_free(one), sym_free(zero);
            return sr_recorded(cx, "kernel, stride, padding or dilation not understood");
        }
        s.dims[s.ndim++] = window_dim(cx, in->shape.dims[off + i], k, st, pad, dil);
        /* PyTorch's pooling_output_shape divides with div_rtn, which asks
        ** whether the remainder is 0: a guard torch.export keeps (#124507) */
        SymExpr *num = window_numerator(in->shape.dims[off + i], k, pad, dil);
        SymExpr *rem = num ? sym_binop(SYM_OP_MOD, num, st) : NULL, *zero0 = sym_const(0);
        bool ok = !rem || sr_branch(cx, sym_binop(SYM_OP_EQ, rem, zero0), "the rounding branch of its output size");
        sym_free(num), sym_free(rem), sym_free(zero0);
        if (!ok) {
            sym_shape_free(&s);
            sym_free(one), sym_free(zero);
            return SRR_FAIL;
        }
    }
    sym_free(one), sym_free(zero);
    for (int k = 1; k < op->schema->nrets; k++) { /* the indices of *_with_indices */
        SymShape c;
        if (!sym_shape_copy(&s, &c)) {
            sym_shape_free(&s);
            return sr_fail(cx, "out of memory");
        }
        sr_set_tensor(&outs[k], &c);
    }
    return sr_output_shape(cx, &s, &outs[0]);
}

SR_FN(sr_index_select)
{
    (void)op;
    const SymArg *self = &args[0], *idx = &args[2];
    int64_t d;
    int k;
    if (self->kind != SV_TENSOR || idx->kind != SV_TENSOR || !sr_int(&args[1], &d) || idx->shape.ndim > 1)
        return sr_recorded(cx, "arguments not understood");
    if (!sr_dim(cx, d, self->shape.ndim, &k))
        return SRR_FAIL;
    SymShape s;
    if (!sym_shape_copy(&self->shape, &s))
        return sr_fail(cx, "out of memory");
    if (s.ndim) {
        sym_free(s.dims[k]);
        s.dims[k] = idx->shape.ndim ? sym_clone(idx->shape.dims[0]) : sym_const(1);
    }
    return sr_output_shape(cx, &s, &outs[0]);
}

SR_FN(sr_gather)
{
    (void)op;
    if (args[2].kind != SV_TENSOR)
        return sr_recorded(cx, "arguments not understood");
    SymShape s;
    if (!sym_shape_copy(&args[2].shape, &s))
        return sr_fail(cx, "out of memory");
    return sr_output_shape(cx, &s, &outs[0]);
}

SR_FN(sr_embedding)
{
    (void)op;
    const SymArg *w = &args[0], *idx = &args[1];
    if (w->kind != SV_TENSOR || idx->kind != SV_TENSOR || w->shape.ndim != 2 || idx->shape.ndim + 1 > EP_MAX_DIMS)
        return sr_recorded(cx, "arguments not understood");
    /* indices with known values (an arange) must stay below the rows */
    if (idx->has_values && idx->vhi &&
        !sr_require(cx, SC_BOUND, sym_binop(SYM_OP_LT, idx->vhi, w->shape.dims[0]), "embedding index below the rows"))
        return SRR_FAIL;
    SymShape s;
    if (!sym_shape_copy(&idx->shape, &s))
        return sr_fail(cx, "out of memory");
    s.dims[s.ndim++] = sym_clone(w->shape.dims[1]);
    return sr_output_shape(cx, &s, &outs[0]);
}

/* ---- vector products, tensordot, einsum ------------------------------------ */

/* Require a == b for the contraction named why. */
static bool same_len(ShapeCtx *cx, const SymExpr *a, const SymExpr *b, const char *why)
{
    return sym_equal(a, b) || sr_require_equal(cx, a, b, why);
}

SR_FN(sr_vecmat)
{
    const SymArg *a, *b, *self = NULL;
    bool add = op->id == OP_ADDMV || op->id == OP_ADDMV_ || op->id == OP_ADDBMM || op->id == OP_ADDBMM_;
    if (add)
        self = &args[0], a = &args[1], b = &args[2];
    else
        a = &args[0], b = &args[1];
    if (a->kind != SV_TENSOR || b->kind != SV_TENSOR || (self && self->kind != SV_TENSOR))
        return sr_recorded(cx, "arguments not understood");
    const SymShape *x = &a->shape, *y = &b->shape;
    SymShape s = {0};
    switch (op->id) {
    case OP_MV:
    case OP_ADDMV:
    case OP_ADDMV_: /* [n, m] @ [m] */
        if (x->ndim != 2 || y->ndim != 1)
            return sr_fail(cx, "matrix-vector product of %d-d and %d-d", x->ndim, y->ndim);
        if (!same_len(cx, x->dims[1], y->dims[0], "matrix columns = vector length"))
            return SRR_FAIL;
        s.dims[s.ndim++] = sym_clone(x->dims[0]);
        break;
    case OP_DOT:
    case OP_VDOT:
        if (x->ndim != 1 || y->ndim != 1)
            return sr_fail(cx, "dot of %d-d and %d-d", x->ndim, y->ndim);
        if (!same_len(cx, x->dims[0], y->dims[0], "equal vector lengths"))
            return SRR_FAIL;
        break;
    case OP_OUTER:
    case OP_GER:
        if (x->ndim != 1 || y->ndim != 1)
            return sr_fail(cx, "outer product of %d-d and %d-d", x->ndim, y->ndim);
        s.dims[s.ndim++] = sym_clone(x->dims[0]);
        s.dims[s.ndim++] = sym_clone(y->dims[0]);
        break;
    default: /* addbmm: [B, n, k] @ [B, k, m] summed over B */
        if (x->ndim != 3 || y->ndim != 3)
            return sr_fail(cx, "addbmm of %d-d and %d-d", x->ndim, y->ndim);
        if (!same_len(cx, x->dims[0], y->dims[0], "equal batch sizes") ||
            !same_len(cx, x->dims[2], y->dims[1], "inner dims of the product"))
            return SRR_FAIL;
        s.dims[s.ndim++] = sym_clone(x->dims[1]);
        s.dims[s.ndim++] = sym_clone(y->dims[2]);
    }
    if (self) { /* self broadcasts to the product */
        SymShape full;
        if (!sr_broadcast(cx, &self->shape, &s, &full)) {
            sym_shape_free(&s);
            return SRR_FAIL;
        }
        sym_shape_free(&full);
    }
    return sr_output_shape(cx, &s, &outs[0]);
}

SR_FN(sr_tensordot)
{
    (void)op;
    const SymArg *a = &args[0], *b = &args[1], *da = &args[2], *db = &args[3];
    if (a->kind != SV_TENSOR || b->kind != SV_TENSOR || da->kind != SV_LIST || db->kind != SV_LIST)
        return sr_recorded(cx, "arguments not understood");
    if (da->n != db->n)
        return sr_fail(cx, "%d dims of self against %d of other", da->n, db->n);
    bool ca[EP_MAX_DIMS] = {false}, cb[EP_MAX_DIMS] = {false};
    for (int i = 0; i < da->n; i++) {
        int64_t x, y;
        int p, q;
        if (!sr_int(&da->items[i], &x) || !sr_int(&db->items[i], &y))
            return sr_recorded(cx, "dims are not literals");
        if (!sr_dim(cx, x, a->shape.ndim, &p) || !sr_dim(cx, y, b->shape.ndim, &q) || !a->shape.ndim ||
            !b->shape.ndim)
            return cx->err[0] ? SRR_FAIL : sr_fail(cx, "tensordot of a 0-d tensor");
        if (!same_len(cx, a->shape.dims[p], b->shape.dims[q], "contracted dims equal"))
            return SRR_FAIL;
        ca[p] = cb[q] = true;
    }
    SymShape s = {0};
    for (int i = 0; i < a->shape.ndim; i++)
        if (!ca[i])
            s.dims[s.ndim++] = sym_clone(a->shape.dims[i]);
    for (int i = 0; i < b->shape.ndim; i++)
        if (!cb[i] && s.ndim < EP_MAX_DIMS)
            s.dims[s.ndim++] = sym_clone(b->shape.dims[i]);
    return sr_output_shape(cx, &s, &outs[0]);
}

/* einsum's labels: each letter's size (the first non-1 seen; the others
** must equal it or be 1, as operands broadcast), and the ellipsis's dims
** broadcast over the operands. */
typedef struct Labels {
    const SymExpr *size[52];
    int count[52];
    SymShape ell;
    bool has_ell;
} Labels;

static int label_index(char c)
{
    return c >= 'a' && c <= 'z' ? c - 'a' : c >= 'A' && c <= 'Z' ? 26 + c - 'A' : -1;
}

/* Read one operand's subscripts term[0 .. len) against shape t. */
static ShapeRuleResult einsum_operand(ShapeCtx *cx, const char *term, size_t len, const SymShape *t, Labels *L)
{
    int letters = 0;
    bool ell = false;
    for (size_t i = 0; i < len; i++) {
        if (term[i] == '.') {
            if (i + 2 >= len || term[i + 1] != '.' || term[i + 2] != '.')
                return sr_fail(cx, "einsum: malformed ellipsis");
            ell = true;
            i += 2;
        } else if (label_index(term[i]) >= 0) {
            letters++;
        } else if (term[i] != ' ') {
            return sr_fail(cx, "einsum: subscript '%c' not understood", term[i]);
        }
    }
    int ne = t->ndim - letters;
    if (ne < 0 || (!ell && ne != 0))
        return sr_fail(cx, "einsum: subscripts for %d dims on a %d-d operand", letters, t->ndim);
    int d = 0;
    for (size_t i = 0; i < len; i++) {
        if (term[i] == '.') {
            SymShape e = {ne, {0}}, next;
            for (int j = 0; j < ne; j++)
                e.dims[j] = t->dims[d + j];
            bool ok = sr_broadcast(cx, &L->ell, &e, &next); /* e borrows */
            sym_shape_free(&L->ell);
            if (!ok)
                return SRR_FAIL;
            L->ell = next;
            L->has_ell = true;
            d += ne;
            i += 2;
            continue;
        }
        int k = label_index(term[i]);
        if (k < 0)
            continue;
        const SymExpr *sz = t->dims[d++];
        L->count[k]++;
        if (!L->size[k] || sr_is(L->size[k], 1))
            L->size[k] = sz;
        else if (!sr_is(sz, 1) && !same_len(cx, L->size[k], sz, "einsum: one label, one size"))
            return SRR_FAIL;
    }
    return SRR_OK;
}

SR_FN(sr_einsum)
{
    (void)op;
    const SymArg *eq = &args[0];
    const SymShape *ts[256]; /* einsum takes many operands: a fixture has 70 */
    int n = sr_list_tensors(&args[1], ts, 256, false);
    if (eq->kind != SV_LIT || eq->lit.kind != V_STR || n < 0)
        return sr_recorded(cx, "arguments not understood");
    const char *e = eq->lit.s, *arrow = strstr(e, "->");
    size_t lhs = arrow ? (size_t)(arrow - e) : strlen(e);
    Labels L = {0};
    int j = 0;
    for (size_t at = 0; at <= lhs; j++) {
        size_t end = at;
        while (end < lhs && e[end] != ',')
            end++;
        if (j >= n) {
            sym_shape_free(&L.ell);
            return sr_fail(cx, "einsum: more subscripts than the %d operands", n);
        }
        ShapeRuleResult r = einsum_operand(cx, e + at, end - at, ts[j], &L);
        if (r != SRR_OK) {
            sym_shape_free(&L.ell);
            return r;
        }
        at = end + 1;
    }
    if (j != n) {
        sym_shape_free(&L.ell);
        return sr_fail(cx, "einsum: %d subscripts for %d operands", j, n);
    }
    SymShape s = {0};
    bool ok = true;
    if (arrow) {
        for (const char *p = arrow + 2; *p && ok; p++) {
            int k = label_index(*p);
            if (*p == '.') {
                for (int i = 0; i < L.ell.ndim && s.ndim < EP_MAX_DIMS; i++)
                    s.dims[s.ndim++] = sym_clone(L.ell.dims[i]);
                p += 2;
            } else if (k >= 0 && L.size[k] && s.ndim < EP_MAX_DIMS) {
                s.dims[s.ndim++] = sym_clone(L.size[k]);
            } else if (*p != ' ') {
                ok = false;
            }
        }
    } else { /* implicit: the ellipsis, then the labels seen once, sorted */
        for (int i = 0; i < L.ell.ndim; i++)
            s.dims[s.ndim++] = sym_clone(L.ell.dims[i]);
        for (int k = 0; k < 52; k++) {
            int kk = k < 26 ? 26 + k : k - 26; /* upper case sorts first */
            if (L.count[kk] == 1 && s.ndim < EP_MAX_DIMS)
                s.dims[s.ndim++] = sym_clone(L.size[kk]);
        }
    }
    sym_shape_free(&L.ell);
    if (!ok) {
        sym_shape_free(&s);
        return sr_fail(cx, "einsum: output subscripts not understood");
    }
    return sr_output_shape(cx, &s, &outs[0]);
}
