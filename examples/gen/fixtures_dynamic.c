/*
** fixtures_dynamic.c -- the dynamic-shape fixtures of issue 11, each
** exported twice as torch.export records them: static (literal sizes) and
** dynamic (symbols, range_constraints, sym_size/_operator chains and the
** in-graph _assert_scalar nodes with PyTorch's own messages).  The Python
** each stands for is tests/src/dyn_NAME.py (the stack traces give its
** lines); tests/src/dyn_fixtures.md gives the export calls, what is
** recorded and the suggestion epdbg must print.  Written as
** dyn_NAME_static.pt2 and dyn_NAME_dynamic.pt2.
**
** Symbols are named s0, s1, ... in input order and composite sizes are
** written in sympy's plain printing, as the generator does for every
** fixture; sizes inference cannot find (floor divisions, several symbols,
** unbacked sizes) are declared with pb_unbacked.
*/
#include <stdlib.h>
#include <string.h>

#include "models.h"
#include "fixture_util.h"

/* x [4, 3] + y [4, 1]: broadcasting couples x.shape[0] and y.shape[0]. */
static ProgBuilder *broadcast(bool dyn)
{
    static const char PY[] = "tests/src/dyn_broadcast.py";
    ProgBuilder *pb = pb_new("dyn_broadcast.Broadcast", false);
    int64_t xs[2] = {4, 3}, ys[2] = {4, 1};
    const char *xd[2] = {"s0", "3"}, *yd[2] = {"s0", "1"};
    fx_input(pb, "x", fx_ramp(2, xs, 0, 1), dyn ? xd : NULL);
    fx_input(pb, "y", fx_ramp(2, ys, 100, 100), dyn ? yd : NULL);
    if (dyn)
        pb_range(pb, "s0", 2, 64);
    pb_module(pb, "", "dyn_broadcast.Broadcast");
    pb_at(pb, PY, 10, "forward", "return x + y");
    pb_node(pb, "aten.add.Tensor", "add", "self=%x other=%y", "add");
    pb_output(pb, "add");
    return pb;
}

/* x [5] + y[1:] with y [6]: y.shape[0] = x.shape[0] + 1. */
static ProgBuilder *derived(bool dyn)
{
    static const char PY[] = "tests/src/dyn_derived.py";
    ProgBuilder *pb = pb_new("dyn_derived.Derived", false);
    int64_t xs[1] = {5}, ys[1] = {6};
    const char *xd[1] = {"s0"}, *yd[1] = {"s0 + 1"};
    fx_input(pb, "x", fx_ramp(1, xs, 0, 1), dyn ? xd : NULL);
    fx_input(pb, "y", fx_ramp(1, ys, 0, 10), dyn ? yd : NULL);
    if (dyn) {
        pb_range(pb, "s0", 2, 64);
        pb_range(pb, "s0 + 1", 3, 65);
    }
    pb_module(pb, "", "dyn_derived.Derived");
    pb_at(pb, PY, 10, "forward", "return x + y[1:]");
    pb_node(pb, "aten.slice.Tensor", "slice_1", "self=%y dim=0 start=1 end=9223372036854775807", "slice_1");
    pb_node(pb, "aten.add.Tensor", "add", "self=%x other=%slice_1", "add");
    pb_output(pb, "add");
    return pb;
}

/* x.view(4, 3, 2): the literal 4 pins x.shape[0] (static export); the
** dynamic export is of the fixed source, x.view(x.shape[0], 3, 2). */
static ProgBuilder *reshape(bool dyn)
{
    static const char PY[] = "tests/src/dyn_reshape.py";
    ProgBuilder *pb = pb_new(dyn ? "dyn_reshape.ReshapeFixed" : "dyn_reshape.ReshapeLiteral", false);
    int64_t xs[2] = {4, 6};
    const char *xd[2] = {"s0", "6"};
    fx_input(pb, "x", fx_ramp(2, xs, 0, 1), dyn ? xd : NULL);
    pb_module(pb, "", dyn ? "dyn_reshape.ReshapeFixed" : "dyn_reshape.ReshapeLiteral");
    if (dyn) {
        pb_range(pb, "s0", 2, 64);
        pb_at(pb, PY, 16, "forward", "y = x.view(x.shape[0], 3, 2)");
        pb_node(pb, "aten.sym_size.int", "sym_size_int", "self=%x dim=0", "$sym_size_int");
        fx_symv(pb, "sym_size_int", "s0");
        pb_node(pb, "aten.view.default", "view", "self=%x size=[$sym_size_int, 3, 2]", "view");
    } else {
        pb_at(pb, PY, 10, "forward", "y = x.view(4, 3, 2)");
        pb_node(pb, "aten.view.default", "view", "self=%x size=[4, 3, 2]", "view");
    }
    pb_at(pb, PY, dyn ? 17 : 11, "forward", "return y.sum(-1)");
    pb_node(pb, "aten.sum.dim_IntList", "sum_1", "self=%view dim=[-1]", "sum_1");
    pb_output(pb, "sum_1");
    return pb;
}

/* Conv2d(3, 4, 3) then MaxPool2d(2) on x [1, 3, H, W]: H - 2, then
** (H - 2)//2, which PyTorch's FloorDiv writes (s0//2) - 1. */
static ProgBuilder *convpool(bool dyn)
{
    static const char PY[] = "tests/src/dyn_convpool.py";
    PbRng r = {0xd4};
    ProgBuilder *pb = pb_new("dyn_convpool.ConvPool", false);
    int64_t ws[4] = {4, 3, 3, 3}, bs[1] = {4}, xs[4] = {1, 3, 10, 10};
    Tensor *w = pb_uniform(&r, DT_F32, 4, ws, -0.3, 0.3), *b = pb_uniform(&r, DT_F32, 1, bs, -0.1, 0.1);
    pb_param(pb, "conv.weight", w);
    pb_param(pb, "conv.bias", b);
    tensor_unref(w);
    tensor_unref(b);
    const char *xd[4] = {"1", "3", "s0", "s1"};
    fx_input(pb, "x", pb_uniform(&r, DT_F32, 4, xs, -1, 1), dyn ? xd : NULL);
    if (dyn) {
        pb_range(pb, "s0", 4, 256);
        pb_range(pb, "s1", 4, 256);
    }
    pb_at(pb, PY, 14, "forward", "h = self.conv(x)");
    pb_at_inner(pb, SITE_TORCH "nn/modules/conv.py", 554, "forward",
                "return self._conv_forward(input, self.weight, self.bias)");
    pb_at_inner(pb, SITE_TORCH "nn/modules/conv.py", 549, "_conv_forward",
                "return F.conv2d(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)");
    pb_module(pb, "conv", "torch.nn.modules.conv.Conv2d");
    pb_node(pb, "aten.conv2d.default", "conv2d",
            pb_fmt("input=%%x weight=%%%s bias=%%%s", pb_ph(pb, "conv.weight"), pb_ph(pb, "conv.bias")), "conv2d");
    pb_at(pb, PY, 15, "forward", "return self.pool(h)");
    pb_at_inner(pb, SITE_TORCH "nn/modules/pooling.py", 213, "forward",
                "return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation, "
                "ceil_mode=self.ceil_mode, return_indices=self.return_indices)");
    pb_module(pb, "pool", "torch.nn.modules.pooling.MaxPool2d");
    pb_node(pb, "aten.max_pool2d.default", "max_pool2d", "self=%conv2d kernel_size=[2, 2] stride=[2, 2]",
            "max_pool2d");
    if (dyn) {
        const char *cd[4] = {"1", "4", "s0 - 2", "s1 - 2"}, *pd[4] = {"1", "4", "(s0//2) - 1", "(s1//2) - 1"};
        pb_unbacked(pb, "conv2d", 4, cd);
        pb_unbacked(pb, "max_pool2d", 4, pd);
    }
    pb_output(pb, "max_pool2d");
    return pb;
}

/* pytorch/pytorch#136216: pad H up to a multiple of 32 when it is not one.
** Static: H = 30, pad 2.  Dynamic (H = 230, Dim(min=224, max=1024),
** prefer_deferred_runtime_asserts_over_guards): the branch's guard
** Ne(Mod(s0, 32), 0) is an in-graph assert and the pad amount a SymInt. */
static ProgBuilder *pad32(bool dyn)
{
    static const char PY[] = "tests/src/dyn_pad32.py";
    ProgBuilder *pb = pb_new("dyn_pad32.Pad32", false);
    int64_t xs[4] = {1, 1, dyn ? 230 : 30, 4};
    const char *xd[4] = {"1", "1", "s0", "4"};
    fx_input(pb, "x", fx_ramp(4, xs, 1, 0), dyn ? xd : NULL);
    pb_module(pb, "", "dyn_pad32.Pad32");
    const char *pad = "2";
    if (dyn) {
        pb_range(pb, "s0", 224, 1024);
        pb_at(pb, PY, 12, "forward", "H = x.shape[2]");
        pb_node(pb, "aten.sym_size.int", "sym_size_int", "self=%x dim=2", "$sym_size_int");
        fx_symv(pb, "sym_size_int", "s0");
        pb_at(pb, PY, 14, "forward", "if pad_H > 0:");
        pb_node(pb, "_operator.mod", "mod", "a=$sym_size_int b=32", "$mod");
        fx_symv(pb, "mod", "Mod(s0, 32)");
        pb_node(pb, "_operator.ne", "ne", "a=$mod b=0", "$ne");
        pb_sym_value(pb, "ne", "Ne(Mod(s0, 32), 0)", true);
        fx_assert_node(pb, "_assert_scalar_default", "ne", "Ne(Mod(s0, 32), 0)");
        pb_at(pb, PY, 13, "forward", "pad_H = (32 - H % 32) % 32");
        pb_node(pb, "_operator.sub", "sub", "a=32 b=$mod", "$sub");
        fx_symv(pb, "sub", "32 - Mod(s0, 32)");
        pb_node(pb, "_operator.mod", "mod_1", "a=$sub b=32", "$mod_1");
        fx_symv(pb, "mod_1", "32 - Mod(s0, 32)");
        pad = "$mod_1";
    }
    pb_at(pb, PY, 15, "forward", "x = F.pad(x, (0, 0, 0, pad_H))");
    pb_at_inner(pb, SITE_TORCH "nn/functional.py", 5209, "pad",
                "return torch._C._nn.pad(input, pad, mode, value)");
    pb_node(pb, "aten.constant_pad_nd.default", "constant_pad_nd", pb_fmt("self=%%x pad=[0, 0, 0, %s] value=0.0", pad),
            "constant_pad_nd");
    pb_at(pb, PY, 16, "forward", "return x * 2");
    pb_node(pb, "aten.mul.Tensor", "mul", "self=%constant_pad_nd other=2", "mul");
    if (dyn) {
        const char *od[4] = {"1", "1", "s0 - Mod(s0, 32) + 32", "4"};
        pb_unbacked(pb, "constant_pad_nd", 4, od);
        pb_unbacked(pb, "mul", 4, od);
    }
    pb_output(pb, "mul");
    return pb;
}

/* pytorch/pytorch#146315: cat((x, y), 1) + z[:, ::2].  Dynamic: x's dim 1
** only (y static), z's dim 1 = 2*s0 + 10. */
static ProgBuilder *catslice(bool dyn)
{
    static const char PY[] = "tests/src/dyn_catslice.py";
    ProgBuilder *pb = pb_new("dyn_catslice.CatSlice", false);
    int64_t xs[2] = {2, 3}, ys[2] = {2, 5}, zs[2] = {2, 16};
    const char *xd[2] = {"2", "s0"}, *zd[2] = {"2", "2*s0 + 10"};
    fx_input(pb, "x", fx_ramp(2, xs, 0, 1), dyn ? xd : NULL);
    fx_input(pb, "y", fx_ramp(2, ys, 10, 1), NULL);
    fx_input(pb, "z", fx_ramp(2, zs, 0, 100), dyn ? zd : NULL);
    if (dyn) {
        pb_range(pb, "s0", 2, 64);
        pb_range(pb, "2*s0 + 10", 14, 138);
    }
    pb_module(pb, "", "dyn_catslice.CatSlice");
    pb_at(pb, PY, 11, "forward", "return torch.cat((x, y), 1) + z[:, ::2]");
    pb_node(pb, "aten.cat.default", "cat", "tensors=[%x, %y] dim=1", "cat");
    pb_node(pb, "aten.slice.Tensor", "slice_1", "self=%z dim=1 start=0 end=9223372036854775807 step=2", "slice_1");
    pb_node(pb, "aten.add.Tensor", "add", "self=%cat other=%slice_1", "add");
    pb_output(pb, "add");
    return pb;
}

/* x [T, 4] + Embedding(8, 4)(arange(T)): any T > 8 indexes past the
** table although the dynamic export's range says [2, 64]. */
static ProgBuilder *posemb(bool dyn)
{
    static const char PY[] = "tests/src/dyn_posemb.py";
    ProgBuilder *pb = pb_new("dyn_posemb.PosEmb", false);
    int64_t ws[2] = {8, 4}, xs[2] = {5, 4};
    Tensor *w = fx_ramp(2, ws, 0, 1);
    float *wv = tensor_data(w);
    for (int i = 0; i < 8; i++) /* weight[i][j] = 10*i + j */
        for (int j = 0; j < 4; j++)
            wv[i * 4 + j] = (float)(10 * i + j);
    pb_param(pb, "pos.weight", w);
    tensor_unref(w);
    const char *xd[2] = {"s0", "4"};
    fx_input(pb, "x", fx_ramp(2, xs, 0.5f, 0), dyn ? xd : NULL);
    pb_module(pb, "", "dyn_posemb.PosEmb");
    const char *end = "5";
    if (dyn) {
        pb_range(pb, "s0", 2, 64);
        pb_at(pb, PY, 13, "forward", "T = x.shape[0]");
        pb_node(pb, "aten.sym_size.int", "sym_size_int", "self=%x dim=0", "$sym_size_int");
        fx_symv(pb, "sym_size_int", "s0");
        end = "$sym_size_int";
    }
    pb_at(pb, PY, 14, "forward", "pos = torch.arange(T)");
    pb_node(pb, "aten.arange.default", "arange", pb_fmt("end=%s device=device:cpu pin_memory=False", end), "arange");
    pb_at(pb, PY, 15, "forward", "return x + self.pos(pos)");
    pb_at_inner(pb, SITE_TORCH "nn/modules/sparse.py", 192, "forward",
                "return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type, "
                "self.scale_grad_by_freq, self.sparse)");
    pb_module(pb, "pos", "torch.nn.modules.sparse.Embedding");
    pb_node(pb, "aten.embedding.default", "embedding", pb_fmt("weight=%%%s indices=%%arange", pb_ph(pb, "pos.weight")),
            "embedding");
    pb_at(pb, PY, 15, "forward", "return x + self.pos(pos)");
    pb_module(pb, "", "dyn_posemb.PosEmb");
    pb_node(pb, "aten.add.Tensor", "add", "self=%x other=%embedding", "add");
    pb_output(pb, "add");
    return pb;
}

/* if x.shape[0] <= 6: x * 2, else x - 1.  Only the branch taken is in the
** graph; the dynamic export's range [3, 6] is all that is left of the if. */
static ProgBuilder *branch(bool dyn)
{
    static const char PY[] = "tests/src/dyn_branch.py";
    ProgBuilder *pb = pb_new("dyn_branch.Branch", false);
    int64_t xs[2] = {4, 3};
    const char *xd[2] = {"s0", "3"};
    fx_input(pb, "x", fx_ramp(2, xs, 0, 1), dyn ? xd : NULL);
    if (dyn)
        pb_range(pb, "s0", 3, 6);
    pb_module(pb, "", "dyn_branch.Branch");
    pb_at(pb, PY, 11, "forward", "return x * 2");
    pb_node(pb, "aten.mul.Tensor", "mul", "self=%x other=2", "mul");
    pb_output(pb, "mul");
    return pb;
}

/* pytorch/pytorch#153174: n = a.item() (unbacked u0), torch._checks on it,
** zeros(n, 18, b.shape[0]) + b viewed as (-1, 144) once the product is
** checked to be a multiple of 144.  a = [4], b = [1, 2]. */
static ProgBuilder *item(bool dyn)
{
    static const char PY[] = "tests/src/dyn_item.py";
    ProgBuilder *pb = pb_new("dyn_item.Item", false);
    int64_t as[1] = {1}, bs[1] = {2};
    EpError err = {0};
    Tensor *a = tensor_empty(DT_I64, 1, as, &err);
    if (!a)
        abort(); /* out of memory while generating */
    ((int64_t *)tensor_data(a))[0] = 4;
    fx_input(pb, "a", a, NULL);
    const char *bd[1] = {"s0"};
    fx_input(pb, "b", fx_ramp(1, bs, 1, 1), dyn ? bd : NULL);
    pb_range(pb, "u0", 1, 16);
    if (dyn)
        pb_range(pb, "s0", 2, 64);
    pb_module(pb, "", "dyn_item.Item");
    pb_at(pb, PY, 11, "forward", "n = a.item()");
    pb_node(pb, "aten.item.default", "item", "self=%a", "$item");
    fx_symv(pb, "item", "u0");
    pb_at(pb, PY, 12, "forward", "torch._check(n >= 1)");
    pb_node(pb, "_operator.ge", "ge", "a=$item b=1", "$ge");
    pb_sym_value(pb, "ge", "u0 >= 1", true);
    fx_assert_node(pb, "_assert_scalar_default", "ge", "u0 >= 1");
    pb_at(pb, PY, 13, "forward", "torch._check(n <= 16)");
    pb_node(pb, "_operator.le", "le", "a=$item b=16", "$le");
    pb_sym_value(pb, "le", "u0 <= 16", true);
    fx_assert_node(pb, "_assert_scalar_default_1", "le", "u0 <= 16");
    pb_at(pb, PY, 14, "forward", "z = torch.zeros(n, 18, b.shape[0]) + b");
    const char *s = "2";
    if (dyn) {
        pb_node(pb, "aten.sym_size.int", "sym_size_int", "self=%b dim=0", "$sym_size_int");
        fx_symv(pb, "sym_size_int", "s0");
        s = "$sym_size_int";
    }
    pb_node(pb, "aten.zeros.default", "zeros", pb_fmt("size=[$item, 18, %s] device=device:cpu pin_memory=False", s),
            "zeros");
    pb_node(pb, "aten.add.Tensor", "add", "self=%zeros other=%b", "add");
    const char *zd[3] = {"u0", "18", dyn ? "s0" : "2"};
    pb_unbacked(pb, "zeros", 3, zd);
    pb_unbacked(pb, "add", 3, zd);
    pb_at(pb, PY, 15, "forward", "torch._check((n * 18 * b.shape[0]) % 144 == 0)");
    pb_node(pb, "_operator.mul", "mul", "a=$item b=18", "$mul");
    fx_symv(pb, "mul", "18*u0");
    const char *cond = "Eq(Mod(36*u0, 144), 0)";
    if (dyn) {
        pb_node(pb, "_operator.mul", "mul_1", "a=$mul b=$sym_size_int", "$mul_1");
        fx_symv(pb, "mul_1", "18*s0*u0");
        cond = "Eq(Mod(18*s0*u0, 144), 0)";
    } else {
        pb_node(pb, "_operator.mul", "mul_1", "a=$mul b=2", "$mul_1");
        fx_symv(pb, "mul_1", "36*u0");
    }
    pb_node(pb, "_operator.mod", "mod", "a=$mul_1 b=144", "$mod");
    fx_symv(pb, "mod", dyn ? "Mod(18*s0*u0, 144)" : "Mod(36*u0, 144)");
    pb_node(pb, "_operator.eq", "eq", "a=$mod b=0", "$eq");
    pb_sym_value(pb, "eq", cond, true);
    fx_assert_node(pb, "_assert_scalar_default_2", "eq", cond);
    pb_at(pb, PY, 16, "forward", "return z.view(-1, 144)");
    pb_node(pb, "aten.view.default", "view", "self=%add size=[-1, 144]", "view");
    const char *vd[2] = {dyn ? "((s0*u0)//8)" : "(u0//4)", "144"};
    pb_unbacked(pb, "view", 2, vd);
    pb_output(pb, "view");
    return pb;
}

typedef ProgBuilder *(*DynFixture)(bool dyn);

/* One table: every fixture, written static and dynamic. */
static const struct {
    const char *name;
    DynFixture make;
} DYN_FIXTURES[] = {
    {"broadcast", broadcast}, {"derived", derived}, {"reshape", reshape}, {"convpool", convpool},
    {"pad32", pad32},         {"catslice", catslice}, {"posemb", posemb}, {"branch", branch},
    {"item", item},
};

EpStatus write_dyn_fixtures(const char *dir, EpError *err)
{
    for (size_t i = 0; i < EP_ARRAY_LEN(DYN_FIXTURES); i++)
        for (int dyn = 0; dyn < 2; dyn++) {
            ProgBuilder *pb = DYN_FIXTURES[i].make(dyn);
            char *path = ep_xasprintf("%s/dyn_%s_%s.pt2", dir, DYN_FIXTURES[i].name, dyn ? "dynamic" : "static");
            PbWriteOptions opt = {.era = PB_ERA_2_11};
            EpStatus rc = pb_write(pb, path, &opt, err);
            free(path);
            pb_free(pb);
            if (rc)
                return rc;
        }
    return EP_OK;
}
