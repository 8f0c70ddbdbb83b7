/*
** shape_rules_index.c -- shape rules of advanced indexing (index.Tensor
** and its unsafe forms: index tensors broadcast together and land where
** NumPy's rules put them), take / take_along_dim, the factories whose
** sizes are scalar arguments (eye, linspace, randperm, histc ...),
** tril/triu_indices, multinomial, one_hot, searchsorted, and the
** data-dependent outputs (unique*, repeat_interleave by a tensor,
** one_hot without num_classes) as fresh unbacked symbols, each bounded by
** the element count it selects from.  embedding_bag's four results follow
** ATen's EmbeddingBag.cpp (see interp/ops/index_bag.c).
*/
#include <stdio.h>
#include <string.h>

#include "shape_rules_int.h"

/* A fresh unbacked size u with u <= bound (bound borrowed, may be NULL). */
static SymExpr *bounded_unbacked(ShapeCtx *cx, int k, const SymExpr *bound)
{
    SymExpr *u = sr_fresh_unbacked(cx, k);
    if (u && bound && !sr_require(cx, SC_BOUND, sym_binop(SYM_OP_LE, u, bound), "data-dependent size within its source")) {
        sym_free(u);
        return NULL;
    }
    return u;
}

/* ---- factories sized by scalar arguments ---------------------------------- */

/* The arguments whose values are the output's dims, in order. */
static const struct {
    OpId id;
    const char *dims[2];
} SIZED[] = {
    {OP_EYE, {"n", "n"}},           {OP_EYE_M, {"n", "m"}},          {OP_RANDPERM, {"n"}},
    {OP_LINSPACE, {"steps"}},       {OP_LINSPACE_TT, {"steps"}},     {OP_LINSPACE_TS, {"steps"}},
    {OP_LINSPACE_ST, {"steps"}},    {OP_LOGSPACE, {"steps"}},        {OP_LOGSPACE_TT, {"steps"}},
    {OP_LOGSPACE_TS, {"steps"}},    {OP_LOGSPACE_ST, {"steps"}},     {OP_HISTC, {"bins"}},
};

SR_FN(sr_sized)
{
    size_t i = 0;
    while (i < sizeof SIZED / sizeof SIZED[0] && SIZED[i].id != op->id)
        i++;
    if (i == sizeof SIZED / sizeof SIZED[0])
        return sr_recorded(cx, "no sizes listed for this factory");
    SymShape s = {0};
    for (int k = 0; k < 2 && SIZED[i].dims[k]; k++) {
        const SymArg *a = sr_arg(op, args, SIZED[i].dims[k]);
        if (!a || a->kind != SV_INT) {
            sym_shape_free(&s);
            return sr_recorded(cx, "%s is not an integer", SIZED[i].dims[k]);
        }
        if (!sr_require(cx, SC_BOUND, sr_op(SYM_OP_GE, sym_clone(a->e), sym_const(0)), "a size is not negative")) {
            sym_shape_free(&s);
            return SRR_FAIL;
        }
        s.dims[s.ndim++] = sym_clone(a->e);
    }
    return sr_output_shape(cx, &s, &outs[0]);
}

SR_FN(sr_tri_indices)
{
    int64_t row, col, off;
    if (!sr_int(&args[0], &row) || !sr_int(&args[1], &col) || !sr_int(&args[2], &off))
        return sr_recorded(cx, "row, col or offset is not a literal");
    if (row < 0 || col < 0)
        return sr_fail(cx, "negative row or col");
    /* [2, count]: per row i, tril keeps columns j <= i + offset, triu j >= i + offset */
    int64_t count = 0;
    for (int64_t i = 0; i < row; i++) {
        int64_t lim = i + off;
        if (op->id == OP_TRIL_INDICES)
            count += lim + 1 < 0 ? 0 : lim + 1 > col ? col : lim + 1;
        else
            count += col - (lim < 0 ? 0 : lim > col ? col : lim);
    }
    SymShape s = {2, {sym_const(2), sym_const(count)}};
    return sr_output_shape(cx, &s, &outs[0]);
}

SR_FN(sr_multinomial)
{
    const SymArg *self = &args[0], *ns = &args[1], *rep = sr_arg(op, args, "replacement");
    if (self->kind != SV_TENSOR || ns->kind != SV_INT || self->shape.ndim < 1 || self->shape.ndim > 2)
        return sr_recorded(cx, "arguments not understood");
    int n = self->shape.ndim;
    /* without replacement no more samples than categories */
    bool with = rep && rep->kind == SV_LIT && rep->lit.kind == V_BOOL && rep->lit.b;
    if (!with && !sr_require(cx, SC_BOUND, sym_binop(SYM_OP_LE, ns->e, self->shape.dims[n - 1]),
                             "samples without replacement within the categories"))
        return SRR_FAIL;
    SymShape s;
    if (!sym_shape_copy(&self->shape, &s))
        return sr_fail(cx, "out of memory");
    sym_free(s.dims[n - 1]);
    s.dims[n - 1] = sym_clone(ns->e);
    return sr_output_shape(cx, &s, &outs[0]);
}

/* ---- advanced indexing ------------------------------------------------------- */

/* Is index tensor t a boolean mask?  The rules see no dtypes, so this asks
** the archive: a mask's result starts with a data-dependent size (the
** archive's u0) that is none of the index's own sizes. */
static bool looks_like_mask(const ShapeCtx *cx, const SymShape *t)
{
    const char *u = cx->unbacked_hint[0];
    if (!u)
        return false;
    for (int i = 0; i < t->ndim; i++) {
        const char *d = sym_as_symbol(t->dims[i]);
        if (d && strcmp(d, u) == 0)
            return false;
    }
    return true;
}

SR_FN(sr_index)
{
    const SymArg *self = &args[0], *ix = sr_arg(op, args, "indices");
    if (self->kind != SV_TENSOR || !ix || ix->kind != SV_LIST)
        return sr_recorded(cx, "arguments not understood");
    const SymShape *sh = &self->shape;
    int ntensors = 0, first = -1, last = -1, consumed = 0;
    SymShape b = {0}; /* the index tensors broadcast */
    int dim_at[EP_MAX_DIMS + 1]; /* self dim where entry j starts */
    bool mask = false;
    for (int j = 0; j < ix->n; j++) {
        const SymArg *t = &ix->items[j];
        if (t->kind != SV_NONE && t->kind != SV_TENSOR) {
            sym_shape_free(&b);
            return sr_recorded(cx, "index %d is not a tensor", j);
        }
        dim_at[j] = consumed;
        if (t->kind == SV_NONE) {
            consumed++;
            continue;
        }
        ntensors++;
        first = first < 0 ? j : first;
        last = j;
        mask = ix->n == 1 && looks_like_mask(cx, &t->shape);
        consumed += mask ? t->shape.ndim : 1;
        if (consumed > sh->ndim) {
            sym_shape_free(&b);
            return sr_fail(cx, "too many indices for a %d-d tensor", sh->ndim);
        }
        if (mask) {
            /* a mask covers its dims exactly and selects u of their elements */
            for (int i = 0; i < t->shape.ndim; i++)
                if (!sym_equal(t->shape.dims[i], sh->dims[dim_at[j] + i]) &&
                    !sr_require_equal(cx, t->shape.dims[i], sh->dims[dim_at[j] + i], "mask shape = indexed dims"))
                    return SRR_FAIL;
            SymExpr *n = sr_numel(&t->shape, 0, t->shape.ndim);
            b.ndim = 1;
            b.dims[0] = bounded_unbacked(cx, 0, n);
            sym_free(n);
            if (!b.dims[0])
                return cx->err[0] ? SRR_FAIL : sr_fail(cx, "out of memory");
            continue;
        }
        /* an index with known values (an arange) stays below the dim */
        if (t->has_values && t->vhi &&
            !sr_require(cx, SC_BOUND, sym_binop(SYM_OP_LT, t->vhi, sh->dims[dim_at[j]]), "index below the dim")) {
            sym_shape_free(&b);
            return SRR_FAIL;
        }
        SymShape next;
        bool ok = sr_broadcast(cx, &b, &t->shape, &next);
        sym_shape_free(&b);
        if (!ok)
            return SRR_FAIL;
        b = next;
    }
    if (ntensors == 0) { /* all None: a view of self */
        SymShape s;
        if (!sym_shape_copy(sh, &s))
            return sr_fail(cx, "out of memory");
        return sr_output_shape(cx, &s, &outs[0]);
    }
    /* adjacent index tensors put their dims where the first was; separated
    ** ones (a None between) put them first, as NumPy does */
    bool adjacent = true;
    for (int j = first; j <= last; j++)
        adjacent &= ix->items[j].kind == SV_TENSOR;
    int lo = dim_at[first], hi = dim_at[last] + (mask ? ix->items[last].shape.ndim : 1);
    if (sh->ndim - (hi - lo) + b.ndim > EP_MAX_DIMS) {
        sym_shape_free(&b);
        return sr_fail(cx, "too many dims");
    }
    SymShape s = {0};
    if (adjacent)
        for (int i = 0; i < lo; i++)
            s.dims[s.ndim++] = sym_clone(sh->dims[i]);
    for (int i = 0; i < b.ndim; i++)
        s.dims[s.ndim++] = sym_clone(b.dims[i]);
    for (int j = 0; !adjacent && j < ix->n; j++) /* the sliced dims, in order */
        if (ix->items[j].kind == SV_NONE)
            s.dims[s.ndim++] = sym_clone(sh->dims[dim_at[j]]);
    for (int i = adjacent ? hi : consumed; i < sh->ndim; i++)
        s.dims[s.ndim++] = sym_clone(sh->dims[i]);
    sym_shape_free(&b);
    return sr_output_shape(cx, &s, &outs[0]);
}

SR_FN(sr_take)
{
    (void)op;
    if (args[0].kind != SV_TENSOR || args[1].kind != SV_TENSOR)
        return sr_recorded(cx, "arguments not understood");
    SymShape s;
    if (!sym_shape_copy(&args[1].shape, &s))
        return sr_fail(cx, "out of memory");
    return sr_output_shape(cx, &s, &outs[0]);
}

SR_FN(sr_take_along)
{
    (void)op;
    const SymArg *self = &args[0], *idx = &args[1], *dim = &args[2];
    int64_t d;
    int k;
    if (self->kind != SV_TENSOR || idx->kind != SV_TENSOR)
        return sr_recorded(cx, "arguments not understood");
    if (dim->kind == SV_NONE) { /* both flattened */
        SymShape s = {1, {sr_numel(&idx->shape, 0, idx->shape.ndim)}};
        return sr_output_shape(cx, &s, &outs[0]);
    }
    if (!sr_int(dim, &d))
        return sr_recorded(cx, "dim is not a literal");
    int n = self->shape.ndim;
    if (idx->shape.ndim != n)
        return sr_fail(cx, "indices have %d dims, self %d", idx->shape.ndim, n);
    if (!sr_dim(cx, d, n, &k))
        return SRR_FAIL;
    /* self with the dim replaced by the indices', broadcast with them */
    SymShape sub;
    if (!sym_shape_copy(&self->shape, &sub))
        return sr_fail(cx, "out of memory");
    if (n) {
        sym_free(sub.dims[k]);
        sub.dims[k] = sym_clone(idx->shape.dims[k]);
    }
    SymShape s;
    bool ok = sr_broadcast(cx, &sub, &idx->shape, &s);
    sym_shape_free(&sub);
    return ok ? sr_output_shape(cx, &s, &outs[0]) : SRR_FAIL;
}

SR_FN(sr_nonzero_static)
{
    const SymArg *self = &args[0], *size = sr_arg(op, args, "size");
    if (self->kind != SV_TENSOR || !size || size->kind != SV_INT)
        return sr_recorded(cx, "arguments not understood");
    SymShape s = {2, {sym_clone(size->e), sym_const(self->shape.ndim)}};
    return sr_output_shape(cx, &s, &outs[0]);
}

SR_FN(sr_one_hot)
{
    (void)op;
    const SymArg *self = &args[0];
    int64_t nc;
    if (self->kind != SV_TENSOR || args[1].kind != SV_INT || self->shape.ndim + 1 > EP_MAX_DIMS)
        return sr_recorded(cx, "arguments not understood");
    SymShape s;
    if (!sym_shape_copy(&self->shape, &s))
        return sr_fail(cx, "out of memory");
    /* num_classes=-1 means max + 1 of the values: data-dependent */
    bool infer = sym_as_int(args[1].e, &nc) && nc < 0;
    s.dims[s.ndim++] = infer ? sr_fresh_unbacked(cx, 1) : sym_clone(args[1].e);
    return sr_output_shape(cx, &s, &outs[0]);
}

SR_FN(sr_searchsorted)
{
    (void)op;
    const SymArg *seq = &args[0], *self = &args[1];
    if (seq->kind != SV_TENSOR || self->kind != SV_TENSOR)
        return sr_recorded(cx, "arguments not understood");
    /* an N-d sequence searches row by row: the leading dims must match */
    if (seq->shape.ndim > 1) {
        if (seq->shape.ndim != self->shape.ndim)
            return sr_fail(cx, "sorted_sequence has %d dims, self %d", seq->shape.ndim, self->shape.ndim);
        for (int i = 0; i + 1 < seq->shape.ndim; i++)
            if (!sym_equal(seq->shape.dims[i], self->shape.dims[i]) &&
                !sr_require_equal(cx, seq->shape.dims[i], self->shape.dims[i], "leading dims of the sequence"))
                return SRR_FAIL;
    }
    SymShape s;
    if (!sym_shape_copy(&self->shape, &s))
        return sr_fail(cx, "out of memory");
    return sr_output_shape(cx, &s, &outs[0]);
}

/* ---- data-dependent sizes ----------------------------------------------------- */

static bool flag(const OpDef *op, const SymArg *args, const char *name)
{
    const SymArg *a = sr_arg(op, args, name);
    return a && a->kind == SV_LIT && a->lit.kind == V_BOOL && a->lit.b;
}

SR_FN(sr_unique)
{
    const SymArg *self = &args[0], *dim = sr_arg(op, args, "dim");
    if (self->kind != SV_TENSOR)
        return sr_recorded(cx, "arguments not understood");
    const SymShape *sh = &self->shape;
    int64_t d;
    int k = -1;
    if (dim && dim->kind != SV_NONE) {
        if (!sr_int(dim, &d))
            return sr_recorded(cx, "dim is not a literal");
        if (!sr_dim(cx, d, sh->ndim, &k) || !sh->ndim)
            return cx->err[0] ? SRR_FAIL : sr_fail(cx, "unique along a dim of a 0-d tensor");
    }
    /* u distinct values (or slices along dim), at most as many as there are */
    SymExpr *src = k < 0 ? sr_numel(sh, 0, sh->ndim) : sym_clone(sh->dims[k]);
    SymExpr *u = src ? bounded_unbacked(cx, 0, src) : NULL;
    if (!u) {
        sym_free(src);
        return cx->err[0] ? SRR_FAIL : sr_fail(cx, "out of memory");
    }
    SymShape vals, inv = {0}, cnt = {0};
    if (k < 0) {
        vals.ndim = 1;
        vals.dims[0] = sym_clone(u);
    } else if (sym_shape_copy(sh, &vals)) {
        sym_free(vals.dims[k]);
        vals.dims[k] = sym_clone(u);
    }
    /* outputs not asked for are empty ([0]), as ATen returns them */
    if (!flag(op, args, "return_inverse"))
        inv.dims[inv.ndim++] = sym_const(0);
    else if (k >= 0)
        inv.dims[inv.ndim++] = sym_clone(src);
    else
        sym_shape_copy(sh, &inv);
    cnt.dims[cnt.ndim++] = flag(op, args, "return_counts") ? sym_clone(u) : sym_const(0);
    sym_free(src);
    sym_free(u);
    SymShape *res[3] = {&vals, &inv, &cnt};
    for (int r = 0; r < op->schema->nrets && r < 3; r++)
        sr_set_tensor(&outs[r], res[r]);
    for (int r = op->schema->nrets; r < 3; r++)
        sym_shape_free(res[r]);
    for (int r = 0; r < op->schema->nrets && r < 3; r++)
        for (int i = 0; i < outs[r].shape.ndim; i++)
            if (!outs[r].shape.dims[i])
                return sr_fail(cx, "out of memory");
    return SRR_OK;
}

SR_FN(sr_repeat_interleave)
{
    const SymArg *self = &args[0], *osz = sr_arg(op, args, "output_size"), *dim = sr_arg(op, args, "dim");
    if (self->kind != SV_TENSOR)
        return sr_recorded(cx, "arguments not understood");
    if (op->id == OP_REPEAT_INTERLEAVE_TENSOR) {
        /* the repeats themselves: sum(repeats) elements */
        SymShape s = {1, {osz && osz->kind == SV_INT ? sym_clone(osz->e) : sr_fresh_unbacked(cx, 0)}};
        return sr_output_shape(cx, &s, &outs[0]);
    }
    const SymShape *sh = &self->shape;
    int64_t d;
    int k = -1;
    if (dim && dim->kind != SV_NONE) {
        if (!sr_int(dim, &d))
            return sr_recorded(cx, "dim is not a literal");
        if (!sr_dim(cx, d, sh->ndim, &k))
            return SRR_FAIL;
    }
    const SymArg *rep = &args[1];
    SymExpr *len;
    if (op->id == OP_REPEAT_INTERLEAVE_SELF_INT && rep->kind == SV_INT)
        len = sr_op(SYM_OP_MUL, k < 0 || !sh->ndim ? sr_numel(sh, 0, sh->ndim) : sym_clone(sh->dims[k]),
                    sym_clone(rep->e));
    else if (osz && osz->kind == SV_INT)
        len = sym_clone(osz->e);
    else /* a tensor of repeats: the total is their sum */
        len = sr_fresh_unbacked(cx, 0);
    if (k < 0 || !sh->ndim) {
        SymShape s = {1, {len}};
        return sr_output_shape(cx, &s, &outs[0]);
    }
    SymShape s;
    if (!sym_shape_copy(sh, &s)) {
        sym_free(len);
        return sr_fail(cx, "out of memory");
    }
    sym_free(s.dims[k]);
    s.dims[k] = len;
    return sr_output_shape(cx, &s, &outs[0]);
}

enum { BAG_SUM = 0, BAG_MEAN = 1, BAG_MAX = 2 };

SR_FN(sr_embedding_bag)
{
    const SymArg *w = &args[0], *ind = &args[1], *off = &args[2];
    const SymArg *mode_a = sr_arg(op, args, "mode"), *pad_a = sr_arg(op, args, "padding_idx");
    int64_t mode = BAG_SUM, pad = -1;
    if (w->kind != SV_TENSOR || ind->kind != SV_TENSOR || off->kind != SV_TENSOR || w->shape.ndim != 2 ||
        ind->shape.ndim != 1 || off->shape.ndim != 1 || (mode_a && !sr_int(mode_a, &mode)))
        return sr_recorded(cx, "arguments not understood");
    bool has_pad = pad_a && pad_a->kind != SV_NONE;
    if (has_pad && !sr_int(pad_a, &pad))
        return sr_recorded(cx, "padding_idx is not a literal");
    /* embedding_bag.padding_idx wraps a negative index; the ATen forms take
    ** a negative one as none */
    if (op->id != OP_EMBEDDING_BAG_PADDING_IDX && pad < 0)
        has_pad = false;
    /* ATen's fast sum path leaves offset2bag empty; whether it is taken
    ** depends on the weight's dtype and strides, which the rules do not see */
    if (mode == BAG_SUM && !has_pad)
        return sr_recorded(cx, "offset2bag's size depends on the weight's dtype (ATen's fast sum path)");
    bool last = flag(op, args, "include_last_offset");
    const SymExpr *no = off->shape.dims[0];
    if (last && !sr_require(cx, SC_BOUND, sr_op(SYM_OP_GE, sym_clone(no), sym_const(1)),
                            "include_last_offset needs an offset"))
        return SRR_FAIL;
    SymExpr *nbags = last ? sr_opc(SYM_OP_SUB, sym_clone(no), 1) : sym_clone(no);
    bool per_bag = op->id != OP_EMBEDDING_BAG_FORWARD_ONLY || mode != BAG_SUM;
    SymShape res[4] = {
        {2, {sym_clone(nbags), sym_clone(w->shape.dims[1])}},
        {1, {sym_clone(ind->shape.dims[0])}},
        {1, {per_bag ? sym_clone(nbags) : sym_clone(no)}},
        {0, {0}},
    };
    if (mode == BAG_MAX) {
        res[3].ndim = 2;
        res[3].dims[0] = sym_clone(nbags);
        res[3].dims[1] = sym_clone(w->shape.dims[1]);
    } else {
        sym_shape_copy(&res[2], &res[3]);
    }
    sym_free(nbags);
    ShapeRuleResult r = SRR_OK;
    for (int k = 0; k < 4; k++) {
        if (r == SRR_OK && k < op->schema->nrets)
            r = sr_output_shape(cx, &res[k], &outs[k]);
        else
            sym_shape_free(&res[k]);
    }
    return r;
}
