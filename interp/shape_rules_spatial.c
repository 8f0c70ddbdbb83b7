/*
** shape_rules_spatial.c -- shape rules of the spatial ops beyond plain
** convolution and pooling: transposed convolution, adaptive pooling,
** upsampling (by output size or scale factor), pixel (un)shuffle, grid
** sampling, im2col and col2im.  Output sizes follow ATen's
** (ConvUtils.h's conv_input_size, UpSample.h's upsample_compute_output_size,
** Im2Col.cpp), floors included.
*/
#include <math.h>
#include <stdio.h>

#include "shape_rules_int.h"

/* The spatial rank in the op's name: upsample_nearest2d, adaptive_max_pool3d ... */
static int name_rank(const OpDef *op)
{
    int sp = 0;
    for (const char *p = op->target; *p; p++)
        if (p[0] >= '1' && p[0] <= '3' && p[1] == 'd')
            sp = p[0] - '0';
    return sp;
}

SR_FN(sr_conv_transpose)
{
    const SymArg *in = &args[0], *w = &args[1], *groups = sr_arg(op, args, "groups");
    if (in->kind != SV_TENSOR || w->kind != SV_TENSOR || w->shape.ndim < 3)
        return sr_recorded(cx, "arguments not understood");
    int sp = w->shape.ndim - 2;
    bool batched = in->shape.ndim == sp + 2;
    if (!batched && in->shape.ndim != sp + 1)
        return sr_fail(cx, "%d-d input for a %d-d kernel", in->shape.ndim, sp);
    int off = batched ? 2 : 1;
    SymExpr *one = sym_const(1), *zero = sym_const(0);
    const SymExpr *g = groups && groups->kind == SV_INT ? groups->e : one;
    /* the weight is [in channels, out channels / groups, kernel...] */
    bool ok = sr_require_equal(cx, in->shape.dims[off - 1], w->shape.dims[0], "input channels = weight dim 0");
    SymShape s = {0};
    if (batched)
        s.dims[s.ndim++] = sym_clone(in->shape.dims[0]);
    s.dims[s.ndim++] = sym_binop(SYM_OP_MUL, w->shape.dims[1], g);
    for (int i = 0; ok && i < sp; i++) {
        const SymExpr *st, *pad, *opad, *dil;
        if (!sr_nth(sr_arg(op, args, "stride"), i, one, &st) || !sr_nth(sr_arg(op, args, "padding"), i, zero, &pad) ||
            !sr_nth(sr_arg(op, args, "output_padding"), i, zero, &opad) ||
            !sr_nth(sr_arg(op, args, "dilation"), i, one, &dil)) {
            sym_shape_free(&s);
            sym_free(one), sym_free(zero);
            return sr_recorded(cx, "stride, padding, output_padding or dilation not understood");
        }
        /* (in - 1)*stride - 2*pad + dil*(k - 1) + output_padding + 1 */
        SymExpr *a = sr_op(SYM_OP_MUL, sr_opc(SYM_OP_SUB, sym_clone(in->shape.dims[off + i]), 1), sym_clone(st));
        SymExpr *b = sr_op(SYM_OP_SUB, a, sr_opc(SYM_OP_MUL, sym_clone(pad), 2));
        SymExpr *c = sr_op(SYM_OP_ADD, b, sr_op(SYM_OP_MUL, sym_clone(dil), sr_opc(SYM_OP_SUB, sym_clone(w->shape.dims[2 + i]), 1)));
        s.dims[s.ndim++] = sr_opc(SYM_OP_ADD, sr_op(SYM_OP_ADD, c, sym_clone(opad)), 1);
    }
    sym_free(one), sym_free(zero);
    if (!ok) {
        sym_shape_free(&s);
        return SRR_FAIL;
    }
    return sr_output_shape(cx, &s, &outs[0]);
}

/* in with its last n dims replaced by sizes (borrowed). */
static ShapeRuleResult replace_last(ShapeCtx *cx, const SymShape *in, SymExpr *const *sizes, int n, SymArg *out)
{
    if (in->ndim < n)
        return sr_fail(cx, "%d-d input for %d output sizes", in->ndim, n);
    SymShape s;
    if (!sym_shape_copy(in, &s))
        return sr_fail(cx, "out of memory");
    for (int i = 0; i < n; i++) {
        sym_free(s.dims[in->ndim - n + i]);
        s.dims[in->ndim - n + i] = sym_clone(sizes[i]);
    }
    return sr_output_shape(cx, &s, out);
}

SR_FN(sr_adaptive_pool)
{
    const SymArg *in = &args[0];
    SymShape os;
    int sp = name_rank(op);
    if (in->kind != SV_TENSOR || !sr_shape_list(cx, &args[1], &os))
        return cx->err[0] ? SRR_FAIL : sr_recorded(cx, "arguments not understood");
    if (os.ndim != sp || (in->shape.ndim != sp + 1 && in->shape.ndim != sp + 2)) {
        sym_shape_free(&os);
        return sr_fail(cx, "%d output sizes for a %d-d input", os.ndim, in->shape.ndim);
    }
    ShapeRuleResult r = SRR_OK;
    for (int k = 0; r == SRR_OK && k < op->schema->nrets; k++) /* max's indices too */
        r = replace_last(cx, &in->shape, os.dims, sp, &outs[k]);
    sym_shape_free(&os);
    return r;
}

/* floor(in * scale) as PyTorch's sym_int(sym_float(in) * scale) gives it:
** exact for a literal in, or for a scale that is a dyadic fraction p / 2^k
** (0.5, 1.5, 2.0 ...), where it is (in * p) // 2^k; NULL otherwise. */
static SymExpr *scaled(const SymExpr *in, double scale)
{
    int64_t v;
    if (!(scale > 0) || scale > 1e6)
        return NULL;
    if (sym_as_int(in, &v))
        return sym_const((int64_t)floor((double)v * scale));
    for (int k = 0; k <= 16; k++) {
        double p = scale * (double)(1 << k);
        if (p == floor(p))
            return sr_opc(SYM_OP_FLOORDIV, sr_opc(SYM_OP_MUL, sym_clone(in), (int64_t)p), (int64_t)1 << k);
    }
    return NULL;
}

static bool as_double(const SymArg *a, double *v)
{
    int64_t i;
    if (a->kind == SV_LIT && a->lit.kind == V_FLOAT) {
        *v = a->lit.f;
        return true;
    }
    if (sr_int(a, &i)) {
        *v = (double)i;
        return true;
    }
    return false;
}

SR_FN(sr_upsample)
{
    const SymArg *in = &args[0], *os = &args[1], *sf = sr_arg(op, args, "scale_factors");
    int sp = name_rank(op);
    if (in->kind != SV_TENSOR || sp == 0)
        return sr_recorded(cx, "arguments not understood");
    if (in->shape.ndim != sp + 2)
        return sr_fail(cx, "a %d-d input for %dd upsampling", in->shape.ndim, sp);
    SymShape sizes = {0};
    if (os->kind == SV_LIST) {
        if (!sr_shape_list(cx, os, &sizes))
            return cx->err[0] ? SRR_FAIL : sr_recorded(cx, "output_size not understood");
        if (sizes.ndim != sp) {
            sym_shape_free(&sizes);
            return sr_fail(cx, "%d output sizes for %dd upsampling", sizes.ndim, sp);
        }
    } else if (sf && sf->kind == SV_LIST && sf->n == sp) {
        for (int i = 0; i < sp; i++) {
            double v;
            SymExpr *e = as_double(&sf->items[i], &v) ? scaled(in->shape.dims[2 + i], v) : NULL;
            if (!e) {
                sym_shape_free(&sizes);
                return sr_recorded(cx, "scale factor %d gives no exact integer size", i);
            }
            sizes.dims[sizes.ndim++] = e;
        }
    } else {
        return sr_fail(cx, "neither output_size nor %d scale factors", sp);
    }
    ShapeRuleResult r = replace_last(cx, &in->shape, sizes.dims, sp, &outs[0]);
    sym_shape_free(&sizes);
    return r;
}

SR_FN(sr_pixel_shuffle)
{
    const SymArg *in = &args[0];
    int64_t f;
    if (in->kind != SV_TENSOR || !sr_int(&args[1], &f))
        return sr_recorded(cx, "arguments not understood");
    int n = in->shape.ndim;
    if (n < 3 || f <= 0)
        return sr_fail(cx, "pixel shuffle of a %d-d tensor by %lld", n, (long long)f);
    bool up = op->id == OP_PIXEL_SHUFFLE;
    const SymExpr *c = in->shape.dims[n - 3], *h = in->shape.dims[n - 2], *w = in->shape.dims[n - 1];
    /* shuffle needs channels divisible by f^2, unshuffle height and width by f */
    bool ok = up ? sr_require(cx, SC_RELATION, sr_op(SYM_OP_EQ, sr_opc(SYM_OP_MOD, sym_clone(c), f * f), sym_const(0)),
                              "channels divisible by the factor squared")
                 : sr_require(cx, SC_RELATION, sr_op(SYM_OP_EQ, sr_opc(SYM_OP_MOD, sym_clone(h), f), sym_const(0)),
                              "height divisible by the factor") &&
                       sr_require(cx, SC_RELATION,
                                  sr_op(SYM_OP_EQ, sr_opc(SYM_OP_MOD, sym_clone(w), f), sym_const(0)),
                                  "width divisible by the factor");
    if (!ok)
        return SRR_FAIL;
    SymExpr *sz[3] = {
        up ? sr_opc(SYM_OP_FLOORDIV, sym_clone(c), f * f) : sr_opc(SYM_OP_MUL, sym_clone(c), f * f),
        up ? sr_opc(SYM_OP_MUL, sym_clone(h), f) : sr_opc(SYM_OP_FLOORDIV, sym_clone(h), f),
        up ? sr_opc(SYM_OP_MUL, sym_clone(w), f) : sr_opc(SYM_OP_FLOORDIV, sym_clone(w), f),
    };
    ShapeRuleResult r = sz[0] && sz[1] && sz[2] ? replace_last(cx, &in->shape, sz, 3, &outs[0]) : sr_fail(cx, "out of memory");
    for (int i = 0; i < 3; i++)
        sym_free(sz[i]);
    return r;
}

SR_FN(sr_grid_sampler)
{
    (void)op;
    const SymArg *in = &args[0], *g = &args[1];
    if (in->kind != SV_TENSOR || g->kind != SV_TENSOR)
        return sr_recorded(cx, "arguments not understood");
    int sp = in->shape.ndim - 2;
    if ((sp != 2 && sp != 3) || g->shape.ndim != in->shape.ndim)
        return sr_fail(cx, "grid sampling a %d-d input with a %d-d grid", in->shape.ndim, g->shape.ndim);
    /* grid is [N, out spatial..., sp]: one sample point per output element */
    SymExpr *k = sym_const(sp);
    bool ok = sr_require_equal(cx, in->shape.dims[0], g->shape.dims[0], "grid batch = input batch") &&
              sr_require_equal(cx, g->shape.dims[sp + 1], k, "grid's last dim = spatial rank");
    sym_free(k);
    if (!ok)
        return SRR_FAIL;
    SymShape s = {0};
    s.dims[s.ndim++] = sym_clone(in->shape.dims[0]);
    s.dims[s.ndim++] = sym_clone(in->shape.dims[1]);
    for (int i = 0; i < sp; i++)
        s.dims[s.ndim++] = sym_clone(g->shape.dims[1 + i]);
    return sr_output_shape(cx, &s, &outs[0]);
}

/* im2col/col2im's kernel, dilation, padding and stride, as literal pairs. */
static bool window_args(const OpDef *op, const SymArg *args, const SymExpr *p[4][2])
{
    static const char *const names[4] = {"kernel_size", "dilation", "padding", "stride"};
    for (int a = 0; a < 4; a++)
        for (int i = 0; i < 2; i++)
            if (!sr_nth(sr_arg(op, args, names[a]), i, NULL, &p[a][i]))
                return false;
    return true;
}

/* The number of window positions over an [h, w] plane: the product of the
** two sliding-window counts. */
static SymExpr *blocks(const SymExpr *h, const SymExpr *w, const SymExpr *p[4][2])
{
    SymExpr *a = sr_window_out(h, p[0][0], p[3][0], p[2][0], p[1][0]);
    SymExpr *b = sr_window_out(w, p[0][1], p[3][1], p[2][1], p[1][1]);
    return sr_op(SYM_OP_MUL, a, b);
}

SR_FN(sr_im2col)
{
    const SymArg *in = &args[0];
    const SymExpr *p[4][2];
    if (in->kind != SV_TENSOR || !window_args(op, args, p))
        return sr_recorded(cx, "arguments not understood");
    int n = in->shape.ndim;
    if (n != 3 && n != 4)
        return sr_fail(cx, "im2col of a %d-d tensor", n);
    /* [N, C, H, W] -> [N, C*kh*kw, blocks] */
    SymShape s = {0};
    if (n == 4)
        s.dims[s.ndim++] = sym_clone(in->shape.dims[0]);
    SymExpr *k = sym_binop(SYM_OP_MUL, p[0][0], p[0][1]);
    s.dims[s.ndim++] = sr_op(SYM_OP_MUL, sym_clone(in->shape.dims[n - 3]), k);
    s.dims[s.ndim++] = blocks(in->shape.dims[n - 2], in->shape.dims[n - 1], p);
    return sr_output_shape(cx, &s, &outs[0]);
}

SR_FN(sr_col2im)
{
    const SymArg *in = &args[0];
    const SymExpr *p[4][2];
    SymShape os;
    if (in->kind != SV_TENSOR || !window_args(op, args, p) || !sr_shape_list(cx, &args[1], &os))
        return cx->err[0] ? SRR_FAIL : sr_recorded(cx, "arguments not understood");
    int n = in->shape.ndim;
    if ((n != 2 && n != 3) || os.ndim != 2) {
        sym_shape_free(&os);
        return sr_fail(cx, "col2im of a %d-d tensor to %d sizes", n, os.ndim);
    }
    /* [N, C*kh*kw, L] -> [N, C, oh, ow]: C*kh*kw divides, L is the block count */
    SymExpr *k = sym_binop(SYM_OP_MUL, p[0][0], p[0][1]);
    SymExpr *cols = sym_clone(in->shape.dims[n - 2]);
    SymExpr *l = blocks(os.dims[0], os.dims[1], p);
    bool ok = k && cols && l &&
              sr_require(cx, SC_RELATION, sr_op(SYM_OP_EQ, sr_op(SYM_OP_MOD, sym_clone(cols), sym_clone(k)), sym_const(0)),
                         "columns divisible by the kernel size") &&
              sr_require(cx, SC_RELATION, sr_op(SYM_OP_EQ, sym_clone(in->shape.dims[n - 1]), sym_clone(l)),
                         "columns' length = the block count");
    sym_free(l);
    SymShape s = {0};
    if (ok) {
        if (n == 3)
            s.dims[s.ndim++] = sym_clone(in->shape.dims[0]);
        s.dims[s.ndim++] = sr_op(SYM_OP_FLOORDIV, sym_clone(cols), sym_clone(k));
        s.dims[s.ndim++] = sym_clone(os.dims[0]);
        s.dims[s.ndim++] = sym_clone(os.dims[1]);
    }
    sym_free(k);
    sym_free(cols);
    sym_shape_free(&os);
    return ok ? sr_output_shape(cx, &s, &outs[0]) : (cx->err[0] ? SRR_FAIL : sr_fail(cx, "out of memory"));
}
