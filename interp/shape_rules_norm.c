/*
** shape_rules_norm.c -- shape rules of the ops with several results of
** different shapes: the normalizations (the output and their saved
** statistics: batch norm's [C] when training and [0] in evaluation, layer
** norm's mean/rstd with the normalized dims kept as 1, group norm's
** [N, group]), the attention kernels (output, attention weights or
** logsumexp), the distance ops (cosine_similarity, pairwise_distance,
** cdist, pdist) and quantization parameters.  Shapes as ATen's kernels
** give them (see interp/ops/nn_norm.c for batch norm's).
*/
#include <stdio.h>

#include "shape_rules_int.h"

/* Set outs[k] to a copy of s (false out of memory: cx->err says so). */
static bool put(ShapeCtx *cx, const SymShape *s, SymArg *out)
{
    SymShape c;
    if (!sym_shape_copy(s, &c)) {
        sr_fail(cx, "out of memory");
        return false;
    }
    return sr_output_shape(cx, &c, out) == SRR_OK;
}

SR_FN(sr_batch_norm)
{
    const SymArg *in = &args[0], *tr = sr_arg(op, args, "training");
    if (in->kind != SV_TENSOR || in->shape.ndim < 2)
        return sr_recorded(cx, "arguments not understood");
    /* the _batch_norm_with_update forms always train, _no_update never */
    bool training = op->id == OP_BATCH_NORM_WITH_UPDATE || op->id == OP_BATCH_NORM_WITH_UPDATE_FUNCTIONAL;
    if (tr) {
        if (tr->kind != SV_LIT || tr->lit.kind != V_BOOL)
            return sr_recorded(cx, "training is not a literal");
        training = tr->lit.b;
    }
    const SymExpr *c = in->shape.dims[1];
    /* per-channel parameters and statistics have C elements */
    for (int i = 1; i <= 4 && i < op->schema->nargs; i++)
        if (op->schema->args[i].type == ST_TENSOR && args[i].kind == SV_TENSOR && args[i].shape.ndim == 1 &&
            !sym_equal(args[i].shape.dims[0], c) &&
            !sr_require_equal(cx, args[i].shape.dims[0], c, "per-channel parameter length = channels"))
            return SRR_FAIL;
    SymShape chan = {1, {sym_clone(c)}}, empty = {1, {sym_const(0)}};
    bool reserve = op->id == OP_BATCH_NORM_WITH_UPDATE || op->id == OP_BATCH_NORM_WITH_UPDATE_FUNCTIONAL ||
                   op->id == OP_BATCH_NORM_NO_UPDATE;
    bool ok = chan.dims[0] && empty.dims[0] && put(cx, &in->shape, &outs[0]);
    for (int k = 1; ok && k < op->schema->nrets; k++) {
        /* save_mean, save_invstd; then the reserve ([0]) of the
        ** _batch_norm_with_update forms; then the new running stats [C] */
        const SymShape *s = k <= 2 ? (training ? &chan : &empty) : (reserve && k == 3) ? &empty : &chan;
        ok = put(cx, s, &outs[k]);
    }
    sym_shape_free(&chan);
    sym_shape_free(&empty);
    return ok ? SRR_OK : (cx->err[0] ? SRR_FAIL : sr_fail(cx, "out of memory"));
}

SR_FN(sr_layer_norm)
{
    (void)op;
    const SymArg *in = &args[0], *ns = &args[1];
    if (in->kind != SV_TENSOR || ns->kind != SV_LIST)
        return sr_recorded(cx, "arguments not understood");
    int n = in->shape.ndim, k = ns->n, axis = n - k;
    if (k < 1 || axis < 0)
        return sr_fail(cx, "normalized shape of %d dims for a %d-d input", k, n);
    /* the trailing dims are the normalized shape */
    for (int i = 0; i < k; i++) {
        if (ns->items[i].kind != SV_INT)
            return sr_recorded(cx, "normalized shape is not integers");
        if (!sym_equal(ns->items[i].e, in->shape.dims[axis + i]) &&
            !sr_require_equal(cx, in->shape.dims[axis + i], ns->items[i].e, "input's trailing dims = normalized shape"))
            return SRR_FAIL;
    }
    SymShape st = {0};
    for (int i = 0; i < n; i++)
        st.dims[st.ndim++] = i < axis ? sym_clone(in->shape.dims[i]) : sym_const(1);
    bool ok = put(cx, &in->shape, &outs[0]) && put(cx, &st, &outs[1]) && put(cx, &st, &outs[2]);
    sym_shape_free(&st);
    return ok ? SRR_OK : SRR_FAIL;
}

SR_FN(sr_group_norm)
{
    const SymArg *in = &args[0], *nn = sr_arg(op, args, "N"), *g = sr_arg(op, args, "group");
    if (in->kind != SV_TENSOR || !nn || nn->kind != SV_INT || !g || g->kind != SV_INT || in->shape.ndim < 2)
        return sr_recorded(cx, "arguments not understood");
    /* the groups divide the channels */
    if (!sr_require(cx, SC_RELATION,
                    sr_op(SYM_OP_EQ, sr_op(SYM_OP_MOD, sym_clone(in->shape.dims[1]), sym_clone(g->e)), sym_const(0)),
                    "groups divide the channels"))
        return SRR_FAIL;
    SymShape st = {2, {sym_clone(nn->e), sym_clone(g->e)}};
    bool ok = st.dims[0] && st.dims[1] && put(cx, &in->shape, &outs[0]) && put(cx, &st, &outs[1]) &&
              put(cx, &st, &outs[2]);
    sym_shape_free(&st);
    return ok ? SRR_OK : (cx->err[0] ? SRR_FAIL : sr_fail(cx, "out of memory"));
}

SR_FN(sr_sdpa)
{
    const SymArg *q = &args[0], *k = &args[1], *v = &args[2];
    if (q->kind != SV_TENSOR || k->kind != SV_TENSOR || v->kind != SV_TENSOR || q->shape.ndim < 2 ||
        k->shape.ndim < 2 || v->shape.ndim < 2)
        return sr_recorded(cx, "arguments not understood");
    int n = q->shape.ndim;
    const SymExpr *L = q->shape.dims[n - 2], *S = k->shape.dims[k->shape.ndim - 2];
    if (!sr_require_equal(cx, q->shape.dims[n - 1], k->shape.dims[k->shape.ndim - 1], "query and key embedding dims") ||
        !sr_require_equal(cx, S, v->shape.dims[v->shape.ndim - 2], "key and value lengths"))
        return SRR_FAIL;
    /* the output: the query's shape with the value's embedding dim */
    SymShape o;
    if (!sym_shape_copy(&q->shape, &o))
        return sr_fail(cx, "out of memory");
    sym_free(o.dims[n - 1]);
    o.dims[n - 1] = sym_clone(v->shape.dims[v->shape.ndim - 1]);
    bool ok = put(cx, &o, &outs[0]);
    sym_shape_free(&o);
    SymShape s = {0};
    for (int i = 0; i < n - 2; i++)
        s.dims[s.ndim++] = sym_clone(q->shape.dims[i]);
    if (op->id == OP_SDPA_MATH) { /* the attention weights [..., L, S] */
        s.dims[s.ndim++] = sym_clone(L);
        s.dims[s.ndim++] = sym_clone(S);
    } else if (op->id == OP_SDPA_FLASH_CPU) { /* logsumexp [..., L] */
        s.dims[s.ndim++] = sym_clone(L);
    } else { /* logsumexp padded to a multiple of 32, or empty */
        const SymArg *want = sr_arg(op, args, "compute_log_sumexp");
        bool lse = want && want->kind == SV_LIT && want->lit.kind == V_BOOL && want->lit.b;
        s.dims[s.ndim++] = lse ? sr_opc(SYM_OP_MUL, sr_opc(SYM_OP_FLOORDIV, sr_opc(SYM_OP_ADD, sym_clone(L), 31), 32), 32)
                               : sym_const(0);
    }
    ok = ok && put(cx, &s, &outs[1]);
    sym_shape_free(&s);
    SymShape scalar = {0};
    for (int r = 2; ok && r < op->schema->nrets; r++) /* philox seed and offset: 0-d */
        ok = put(cx, &scalar, &outs[r]);
    return ok ? SRR_OK : SRR_FAIL;
}

/* shape without dim k (or with it 1 when keep). */
static ShapeRuleResult drop_dim(ShapeCtx *cx, const SymShape *sh, int k, bool keep, SymArg *out)
{
    SymShape s = {0};
    for (int i = 0; i < sh->ndim; i++) {
        if (i == k && !keep)
            continue;
        s.dims[s.ndim++] = i == k ? sym_const(1) : sym_clone(sh->dims[i]);
    }
    return sr_output_shape(cx, &s, out);
}

SR_FN(sr_distance)
{
    const SymArg *a = &args[0], *b = op->id == OP_PDIST || op->id == OP_PDIST_FORWARD ? NULL : &args[1];
    if (a->kind != SV_TENSOR || (b && b->kind != SV_TENSOR))
        return sr_recorded(cx, "arguments not understood");
    if (!b) { /* pdist of [N, M]: N*(N - 1)/2 pairs */
        if (a->shape.ndim != 2)
            return sr_fail(cx, "pdist of a %d-d tensor", a->shape.ndim);
        const SymExpr *n = a->shape.dims[0];
        SymShape s = {1, {sr_opc(SYM_OP_FLOORDIV, sr_op(SYM_OP_MUL, sym_clone(n), sr_opc(SYM_OP_SUB, sym_clone(n), 1)), 2)}};
        return sr_output_shape(cx, &s, &outs[0]);
    }
    const SymShape *x = &a->shape, *y = &b->shape;
    if (op->id == OP_COSINE_SIMILARITY || op->id == OP_PAIRWISE_DISTANCE) {
        SymShape s;
        if (!sr_broadcast(cx, x, y, &s))
            return SRR_FAIL;
        int k;
        int64_t d = -1;
        bool keep = false;
        if (op->id == OP_COSINE_SIMILARITY) {
            if (!sr_int(&args[2], &d)) {
                sym_shape_free(&s);
                return sr_recorded(cx, "dim is not a literal");
            }
        } else {
            const SymArg *kd = sr_arg(op, args, "keepdim");
            keep = kd && kd->kind == SV_LIT && kd->lit.kind == V_BOOL && kd->lit.b;
        }
        if (!s.ndim || !sr_dim(cx, d, s.ndim, &k)) {
            sym_shape_free(&s);
            return cx->err[0] ? SRR_FAIL : sr_fail(cx, "distance of 0-d tensors");
        }
        ShapeRuleResult r = drop_dim(cx, &s, k, keep, &outs[0]);
        sym_shape_free(&s);
        return r;
    }
    /* cdist and _euclidean_dist: [..., P, M] and [..., R, M] give [..., P, R] */
    if (x->ndim < 2 || y->ndim < 2)
        return sr_fail(cx, "cdist of %d-d and %d-d", x->ndim, y->ndim);
    if (!sym_equal(x->dims[x->ndim - 1], y->dims[y->ndim - 1]) &&
        !sr_require_equal(cx, x->dims[x->ndim - 1], y->dims[y->ndim - 1], "equal feature dims"))
        return SRR_FAIL;
    SymShape bx = {x->ndim - 2, {0}}, by = {y->ndim - 2, {0}}, s;
    for (int i = 0; i < bx.ndim; i++)
        bx.dims[i] = x->dims[i];
    for (int i = 0; i < by.ndim; i++)
        by.dims[i] = y->dims[i];
    if (!sr_broadcast(cx, &bx, &by, &s)) /* bx/by borrow */
        return SRR_FAIL;
    if (s.ndim + 2 > EP_MAX_DIMS) {
        sym_shape_free(&s);
        return sr_fail(cx, "too many dims");
    }
    s.dims[s.ndim++] = sym_clone(x->dims[x->ndim - 2]);
    s.dims[s.ndim++] = sym_clone(y->dims[y->ndim - 2]);
    return sr_output_shape(cx, &s, &outs[0]);
}

SR_FN(sr_qparams)
{
    (void)args;
    /* one scale and one zero point, each a 1-element tensor */
    SymShape one = {1, {sym_const(1)}};
    bool ok = one.dims[0] != NULL;
    for (int k = 0; ok && k < op->schema->nrets; k++)
        ok = put(cx, &one, &outs[k]);
    sym_shape_free(&one);
    return ok ? SRR_OK : (cx->err[0] ? SRR_FAIL : sr_fail(cx, "out of memory"));
}
