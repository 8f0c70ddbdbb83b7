/*
** fixtures.c -- the archives the test suite reads besides the examples:
** every schema era, layouts and weight forms, dynamic shapes with derived
** dimensions and ranges, SymInt inputs and outputs, signature mutations,
** training-mode batch norm, in-place ops, bfloat16, a NaN maker and a
** float32 cancellation (tests/src/numerics.py), a node with 70 outputs,
** one learning 40 symbols, one with 70 float inputs, a ranged SymInt input,
** several programs in one archive, and files epdbg must refuse.  tests/refs/README.md says which
** have PyTorch references and how they were made.
*/
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/npy.h"
#include "models.h"
#include "interp/picklewrite.h"
#include "interp/zipwrite.h"

#define F_ARG pb_fmt

static Tensor *uni(PbRng *r, DType t, int ndim, const int64_t *s, double lo, double hi)
{
    return pb_uniform(r, t, ndim, s, lo, hi);
}

static void param(ProgBuilder *pb, const char *fqn, Tensor *t)
{
    pb_param(pb, fqn, t);
    tensor_unref(t);
}

static void input(ProgBuilder *pb, const char *name, Tensor *t, const char *const *dims)
{
    pb_input(pb, name, t, dims);
    tensor_unref(t);
}

static EpStatus write(ProgBuilder *pb, const char *dir, const char *file, PbEra era, EpError *err)
{
    char *path = ep_xasprintf("%s/%s", dir, file);
    PbWriteOptions opt = {.era = era};
    EpStatus rc = pb_write(pb, path, &opt, err);
    free(path);
    pb_free(pb);
    return rc;
}

/* out = (x @ w.T + b) * scale, as core ATen with a buffer. */
static ProgBuilder *linear_scale(bool argn)
{
    PbRng r = {0x11};
    ProgBuilder *pb = pb_new("fixtures.LinearScale", argn);
    int64_t ws[2] = {3, 4}, bs[1] = {3}, xs[2] = {2, 4};
    param(pb, "fc.weight", uni(&r, DT_F32, 2, ws, -1, 1));
    param(pb, "fc.bias", uni(&r, DT_F32, 1, bs, -1, 1));
    Tensor *scale = uni(&r, DT_F32, 1, bs, 0.5, 2);
    pb_buffer(pb, "scale", scale, true);
    tensor_unref(scale);
    input(pb, "x", uni(&r, DT_F32, 2, xs, -1, 1), NULL);
    pb_at(pb, "fixtures/linear_scale.py", 9, "forward", "return self.fc(x) * self.scale");
    pb_node(pb, "aten.t.default", "t", F_ARG("self=%%%s", pb_ph(pb, "fc.weight")), "t");
    pb_node(pb, "aten.addmm.default", "addmm",
            F_ARG("self=%%%s mat1=%%%s mat2=%%t", pb_ph(pb, "fc.bias"), pb_ph(pb, "x")), "addmm");
    pb_node(pb, "aten.mul.Tensor", "mul", F_ARG("self=%%addmm other=%%%s", pb_ph(pb, "scale")), "mul");
    pb_output(pb, "mul");
    return pb;
}

static ProgBuilder *encoder(void)
{
    PbRng r = {0x21};
    ProgBuilder *pb = pb_new("fixtures.Encoder", false);
    int64_t xs[2] = {2, 5};
    input(pb, "x", uni(&r, DT_F32, 2, xs, -1, 1), NULL);
    pb_node(pb, "aten.relu.default", "relu", "self=%x", "relu");
    pb_node(pb, "aten.mul.Tensor", "mul", "self=%relu other=2", "mul");
    pb_output(pb, "mul");
    return pb;
}

static ProgBuilder *decoder(void)
{
    PbRng r = {0x22};
    ProgBuilder *pb = pb_new("fixtures.Decoder", false);
    int64_t xs[2] = {2, 5};
    input(pb, "z", uni(&r, DT_F32, 2, xs, -1, 1), NULL);
    pb_node(pb, "aten.sub.Tensor", "sub", "self=%z other=0.5", "sub");
    pb_output(pb, "sub");
    return pb;
}

/* x [s0, 4] and y [2*s0, 4]: a derived dimension, a range, a SymInt output. */
static ProgBuilder *dynamic(void)
{
    PbRng r = {0x31};
    ProgBuilder *pb = pb_new("fixtures.Dynamic", false);
    int64_t xs[2] = {3, 4}, ys[2] = {6, 4};
    const char *xd[2] = {"s0", "4"}, *yd[2] = {"2*s0", "4"};
    input(pb, "x", uni(&r, DT_F32, 2, xs, -1, 1), xd);
    input(pb, "y", uni(&r, DT_F32, 2, ys, -1, 1), yd);
    pb_range(pb, "s0", 2, 8);
    pb_at(pb, "fixtures/dynamic.py", 7, "forward", "return torch.cat([x, x]) + y, x.shape[0]");
    pb_node(pb, "aten.cat.default", "cat", "tensors=[%x, %x]", "cat");
    pb_node(pb, "aten.add.Tensor", "add", "self=%cat other=%y", "add");
    pb_node(pb, "aten.sym_size.int", "sym_size_int", "self=%x dim=0", "$sym_size_int");
    pb_output(pb, "add");
    pb_output(pb, "sym_size_int");
    return pb;
}

/* A SymInt user input used as a tensor operand and a size. */
static ProgBuilder *symint_input(void)
{
    PbRng r = {0x41};
    ProgBuilder *pb = pb_new("fixtures.SymIntInput", false);
    int64_t xs[1] = {3};
    input(pb, "x", uni(&r, DT_F32, 1, xs, -1, 1), NULL);
    pb_sym_input(pb, "n", 5);
    pb_node(pb, "aten.mul.Tensor", "mul", "self=%x other=$n", "mul");
    pb_node(pb, "aten.arange.default", "arange", "end=$n dtype=dtype:float32 device=device:cpu pin_memory=False",
            "arange");
    pb_output(pb, "mul");
    pb_output(pb, "arange");
    return pb;
}

/* ---- guards (issue 11): where each constraint comes from ---------------------- */

#define GUARDS_PY "fixtures/guards.py"

/* x [s0] + y[1:] with y [s0 + 1]: a derived dimension. */
static ProgBuilder *guard_derived(void)
{
    PbRng r = {0x51};
    ProgBuilder *pb = pb_new("fixtures.GuardDerived", false);
    int64_t xs[1] = {5}, ys[1] = {6};
    const char *xd[1] = {"s0"}, *yd[1] = {"s0 + 1"};
    input(pb, "x", uni(&r, DT_F32, 1, xs, -1, 1), xd);
    input(pb, "y", uni(&r, DT_F32, 1, ys, -1, 1), yd);
    pb_range(pb, "s0", 2, 64);
    pb_at(pb, GUARDS_PY, 9, "forward", "return x + y[1:]");
    pb_node(pb, "aten.slice.Tensor", "slice_1", "self=%y dim=0 start=1 end=9223372036854775807", "slice_1");
    pb_node(pb, "aten.add.Tensor", "add", "self=%x other=%slice_1", "add");
    pb_output(pb, "add");
    return pb;
}

/* torch._check(x.shape[0] * y.shape[0] % 2 == 0): a divisibility the
** exporter left in the graph as a sym_size -> mul -> mod -> eq ->
** _assert_scalar chain, each node on its own line. */
static ProgBuilder *guard_mod(void)
{
    PbRng r = {0x52};
    ProgBuilder *pb = pb_new("fixtures.GuardMod", false);
    int64_t xs[1] = {2}, ys[1] = {3};
    const char *xd[1] = {"s0"}, *yd[1] = {"s1"};
    input(pb, "x", uni(&r, DT_F32, 1, xs, -1, 1), xd);
    input(pb, "y", uni(&r, DT_F32, 1, ys, -1, 1), yd);
    pb_range(pb, "s0", 2, 64);
    pb_range(pb, "s1", 2, 64);
    pb_at(pb, GUARDS_PY, 14, "forward", "n = x.shape[0]");
    pb_node(pb, "aten.sym_size.int", "sym_size_int", "self=%x dim=0", "$sym_size_int");
    pb_at(pb, GUARDS_PY, 15, "forward", "m = y.shape[0]");
    pb_node(pb, "aten.sym_size.int", "sym_size_int_1", "self=%y dim=0", "$sym_size_int_1");
    pb_at(pb, GUARDS_PY, 16, "forward", "cells = n * m");
    pb_node(pb, "_operator.mul", "mul", "a=$sym_size_int b=$sym_size_int_1", "$mul");
    pb_at(pb, GUARDS_PY, 17, "forward", "torch._check(cells % 2 == 0)");
    pb_node(pb, "_operator.mod", "mod", "a=$mul b=2", "$mod");
    pb_node(pb, "_operator.eq", "eq", "a=$mod b=0", "$eq");
    pb_node(pb, "aten._assert_scalar.default", "_assert_scalar_default",
            "self=$eq assert_msg='Runtime assertion failed for expression Eq(Mod(s0*s1, 2), 0) on node eq'", "");
    pb_at(pb, GUARDS_PY, 18, "forward", "return x * 2");
    pb_node(pb, "aten.mul.Tensor", "mul_1", "self=%x other=2", "mul_1");
    pb_output(pb, "mul_1");
    return pb;
}

/* k = t.item(); torch._check(k % 4 == 0): an unbacked u0 and the check on
** it, which only the run can decide. */
static ProgBuilder *guard_item(void)
{
    PbRng r = {0x53};
    ProgBuilder *pb = pb_new("fixtures.GuardItem", false);
    int64_t ts[1] = {1}, xs[1] = {3};
    Tensor *t = pb_ints(&r, DT_I64, 1, ts, 8, 9);
    input(pb, "t", t, NULL);
    input(pb, "x", uni(&r, DT_F32, 1, xs, -1, 1), NULL);
    pb_at(pb, GUARDS_PY, 22, "forward", "k = t.item()");
    pb_node(pb, "aten.item.default", "item", "self=%t", "$item");
    pb_sym_value(pb, "item", "u0", false);
    pb_at(pb, GUARDS_PY, 23, "forward", "torch._check(k % 4 == 0)");
    pb_node(pb, "_operator.mod", "mod", "a=$item b=4", "$mod");
    pb_node(pb, "_operator.eq", "eq", "a=$mod b=0", "$eq");
    pb_sym_value(pb, "mod", "Mod(u0, 4)", false);
    pb_sym_value(pb, "eq", "Eq(Mod(u0, 4), 0)", true);
    pb_node(pb, "aten._assert_scalar.default", "_assert_scalar_default",
            "self=$eq assert_msg='Runtime assertion failed for expression Eq(Mod(u0, 4), 0) on node eq'", "");
    pb_at(pb, GUARDS_PY, 24, "forward", "return x * k");
    pb_node(pb, "aten.mul.Tensor", "mul", "self=%x other=$item", "mul");
    pb_output(pb, "mul");
    return pb;
}

/* Functional mutations: a buffer counter and a user input, written back. */
static ProgBuilder *mutation(void)
{
    PbRng r = {0x51};
    ProgBuilder *pb = pb_new("fixtures.Mutation", false);
    int64_t cs[1] = {1}, xs[1] = {3};
    Tensor *count = pb_ints(&r, DT_I64, 1, cs, 7, 8);
    pb_buffer(pb, "count", count, true);
    tensor_unref(count);
    input(pb, "x", uni(&r, DT_F32, 1, xs, -1, 1), NULL);
    pb_at(pb, "fixtures/mutation.py", 8, "forward", "self.count += 1; x.add_(2.5); return x * 2");
    pb_node(pb, "aten.add.Tensor", "add", F_ARG("self=%%%s other=1", pb_ph(pb, "count")), "add");
    pb_node(pb, "aten.add.Tensor", "add_1", "self=%x other=2.5", "add_1");
    pb_node(pb, "aten.mul.Tensor", "mul", "self=%add_1 other=2", "mul");
    pb_buffer_mutation(pb, "add", "count");
    pb_input_mutation(pb, "add_1", "x");
    pb_output(pb, "mul");
    return pb;
}

/* Training-mode batch norm (as hades-pid): running stats come back as
** buffer mutations. */
static ProgBuilder *training_bn(void)
{
    PbRng r = {0x61};
    ProgBuilder *pb = pb_new("fixtures.TrainingBN", true);
    int64_t cs[1] = {3}, xs[2] = {5, 3};
    param(pb, "bn.weight", uni(&r, DT_F32, 1, cs, 0.5, 1.5));
    param(pb, "bn.bias", uni(&r, DT_F32, 1, cs, -0.5, 0.5));
    Tensor *rm = uni(&r, DT_F32, 1, cs, -0.1, 0.1), *rv = uni(&r, DT_F32, 1, cs, 0.9, 1.1);
    pb_buffer(pb, "bn.running_mean", rm, true);
    pb_buffer(pb, "bn.running_var", rv, true);
    tensor_unref(rm);
    tensor_unref(rv);
    input(pb, "x", uni(&r, DT_F32, 2, xs, -2, 2), NULL);
    pb_at(pb, "fixtures/training_bn.py", 9, "forward", "return self.bn(x)");
    pb_module(pb, "bn", "torch.nn.modules.batchnorm.BatchNorm1d");
    pb_node(pb, "aten._native_batch_norm_legit_functional.default", "_native_batch_norm_legit_functional",
            F_ARG("input=%%%s weight=%%%s bias=%%%s running_mean=%%%s running_var=%%%s training=True momentum=0.1 "
                  "eps=1e-05",
                  pb_ph(pb, "x"), pb_ph(pb, "bn.weight"), pb_ph(pb, "bn.bias"), pb_ph(pb, "bn.running_mean"),
                  pb_ph(pb, "bn.running_var")),
            "getitem, _, _, getitem_3, getitem_4");
    pb_buffer_mutation(pb, "getitem_3", "bn.running_mean");
    pb_buffer_mutation(pb, "getitem_4", "bn.running_var");
    pb_output(pb, "getitem");
    return pb;
}

static ProgBuilder *unsupported(void)
{
    PbRng r = {0x71};
    ProgBuilder *pb = pb_new("fixtures.Unsupported", false);
    int64_t xs[1] = {4};
    input(pb, "x", uni(&r, DT_F32, 1, xs, -1, 1), NULL);
    pb_at(pb, "fixtures/unsupported.py", 12, "forward", "y = torch.ops.mylib.frobnicate(x)");
    pb_node(pb, "aten.relu.default", "relu", "self=%x", "relu");
    pb_node(pb, "mylib.frobnicate.default", "frobnicate", "x=%relu", "frobnicate");
    pb_output(pb, "frobnicate");
    return pb;
}

/* tests/src/torch_frames.py: nodes whose innermost recorded frame is
** torch's own code (nn.Conv2d's forward, OpOverload.__call__), as a real
** export records them; the user's line is the next frame out. */
#define TORCH_FRAMES_PY "tests/src/torch_frames.py"
#define SITE_TORCH "/usr/local/lib/python3.11/site-packages/torch/"
static ProgBuilder *torch_frames(void)
{
    PbRng r = {0x75};
    ProgBuilder *pb = pb_new("torch_frames.ConvThenCustom", false);
    int64_t ws[4] = {2, 1, 3, 3}, bs[1] = {2}, xs[4] = {1, 1, 5, 5};
    param(pb, "conv.weight", uni(&r, DT_F32, 4, ws, -1, 1));
    param(pb, "conv.bias", uni(&r, DT_F32, 1, bs, -1, 1));
    input(pb, "x", uni(&r, DT_F32, 4, xs, -1, 1), NULL);
    pb_at(pb, TORCH_FRAMES_PY, 13, "forward", "y = self.conv(x)");
    pb_at_inner(pb, SITE_TORCH "nn/modules/conv.py", 554, "forward",
                "return self._conv_forward(input, self.weight, self.bias)");
    pb_at_inner(pb, SITE_TORCH "nn/modules/conv.py", 549, "_conv_forward",
                "return F.conv2d(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)");
    pb_module(pb, "conv", "torch.nn.modules.conv.Conv2d");
    pb_node(pb, "aten.conv2d.default", "conv2d",
            F_ARG("input=%%x weight=%%%s bias=%%%s", pb_ph(pb, "conv.weight"), pb_ph(pb, "conv.bias")), "conv2d");
    pb_at(pb, TORCH_FRAMES_PY, 14, "forward", "return torch.ops.mylib.frobnicate(y)");
    pb_at_inner(pb, SITE_TORCH "_ops.py", 1123, "__call__", "return self._op(*args, **(kwargs or {}))");
    pb_module(pb, "", "torch_frames.ConvThenCustom");
    pb_node(pb, "mylib.frobnicate.default", "frobnicate", "x=%conv2d", "frobnicate");
    pb_output(pb, "frobnicate");
    return pb;
}

/* tests/src/hot_line.py: one line (a 128x512 @ 512x512 linear inside
** nn.Linear's forward) does almost all of the work; four cheap
** elementwise lines around it.  A profile by line must put line 14 first. */
#define HOT_LINE_PY "tests/src/hot_line.py"
static ProgBuilder *hot_line(void)
{
    PbRng r = {0x91};
    ProgBuilder *pb = pb_new("hot_line.HotLine", false);
    int64_t ws[2] = {512, 512}, bs[1] = {512}, xs[2] = {128, 512};
    param(pb, "proj.weight", uni(&r, DT_F32, 2, ws, -0.05, 0.05));
    param(pb, "proj.bias", uni(&r, DT_F32, 1, bs, -0.05, 0.05));
    input(pb, "x", uni(&r, DT_F32, 2, xs, -1, 1), NULL);
    pb_module(pb, "", "hot_line.HotLine");
    pb_at(pb, HOT_LINE_PY, 12, "forward", "a = x.relu()");
    pb_node(pb, "aten.relu.default", "relu", "self=%x", "relu");
    pb_at(pb, HOT_LINE_PY, 13, "forward", "b = a * 2");
    pb_node(pb, "aten.mul.Tensor", "mul", "self=%relu other=2", "mul");
    pb_at(pb, HOT_LINE_PY, 14, "forward", "c = self.proj(b)");
    pb_at_inner(pb, SITE_TORCH "nn/modules/linear.py", 125, "forward",
                "return F.linear(input, self.weight, self.bias)");
    pb_module(pb, "proj", "torch.nn.modules.linear.Linear");
    pb_node(pb, "aten.linear.default", "linear",
            F_ARG("input=%%mul weight=%%%s bias=%%%s", pb_ph(pb, "proj.weight"), pb_ph(pb, "proj.bias")), "linear");
    pb_module(pb, "", "hot_line.HotLine");
    pb_at(pb, HOT_LINE_PY, 15, "forward", "d = c - 1");
    pb_node(pb, "aten.sub.Tensor", "sub", "self=%linear other=1", "sub");
    pb_at(pb, HOT_LINE_PY, 16, "forward", "return d.abs()");
    pb_node(pb, "aten.abs.default", "abs", "self=%sub", "abs");
    pb_output(pb, "abs");
    return pb;
}

/* bfloat16 arithmetic and promotion with float32. */
static ProgBuilder *bf16(void)
{
    PbRng r = {0x81};
    ProgBuilder *pb = pb_new("fixtures.BFloat16", false);
    int64_t xs[2] = {2, 3}, ys[1] = {3};
    input(pb, "x", uni(&r, DT_BF16, 2, xs, -4, 4), NULL);
    input(pb, "y", uni(&r, DT_F32, 1, ys, -4, 4), NULL);
    pb_node(pb, "aten.mul.Tensor", "mul", "self=%x other=%x", "mul");
    pb_node(pb, "aten.add.Tensor", "add", "self=%mul other=1.3", "add");
    pb_node(pb, "aten.add.Tensor", "add_1", "self=%add other=%y", "add_1");
    pb_output(pb, "add");
    pb_output(pb, "add_1");
    return pb;
}

/* In-place ops of the training dialect on a clone. */
static ProgBuilder *inplace(void)
{
    PbRng r = {0x91};
    ProgBuilder *pb = pb_new("fixtures.InPlace", false);
    int64_t xs[2] = {2, 3};
    input(pb, "x", uni(&r, DT_F32, 2, xs, -1, 1), NULL);
    pb_node(pb, "aten.clone.default", "clone", "self=%x", "clone");
    pb_node(pb, "aten.add_.Tensor", "add_", "self=%clone other=0.25", "add_");
    pb_node(pb, "aten.relu_.default", "relu_", "self=%add_", "relu_");
    pb_node(pb, "aten.mul.Tensor", "mul", "self=%relu_ other=%x", "mul");
    pb_output(pb, "mul");
    pb_output(pb, "clone");
    return pb;
}

/* tests/src/numerics.py: log of a negative number makes a NaN two module
** levels down; the example input has two entries that go negative. */
#define NUMERICS_PY "tests/src/numerics.py"
static ProgBuilder *nan_log(void)
{
    ProgBuilder *pb = pb_new("numerics.NanLog", false);
    int64_t xs[1] = {4};
    Tensor *x = tensor_empty(DT_F32, 1, xs, NULL);
    const float xv[4] = {0.9f, 0.25f, 0.75f, 0.1f};
    memcpy(tensor_data(x), xv, sizeof xv);
    input(pb, "x", x, NULL);
    pb_at(pb, NUMERICS_PY, 19, "forward", "h = self.pre(x)");
    pb_at_inner(pb, NUMERICS_PY, 10, "forward", "return x * 2.0 - 1.0");
    pb_module(pb, "pre", "numerics.Scale");
    pb_node(pb, "aten.mul.Tensor", "mul", "self=%x other=2.0", "mul");
    pb_node(pb, "aten.sub.Tensor", "sub", "self=%mul other=1.0", "sub");
    pb_at(pb, NUMERICS_PY, 20, "forward", "y = torch.log(h)");
    pb_module(pb, "", "numerics.NanLog");
    pb_node(pb, "aten.log.default", "log", "self=%sub", "log");
    pb_at(pb, NUMERICS_PY, 21, "forward", "return y + 1.0");
    pb_node(pb, "aten.add.Tensor", "add", "self=%log other=1.0", "add");
    pb_output(pb, "add");
    return pb;
}

/* The variance the cancelling way near 1e4: float32 loses every digit in
** the subtraction (node sub), which a float64 shadow run exposes. */
static ProgBuilder *cancel(void)
{
    PbRng r = {0xc4};
    ProgBuilder *pb = pb_new("numerics.Cancel", false);
    int64_t xs[1] = {64};
    input(pb, "x", uni(&r, DT_F32, 1, xs, 10000, 10001), NULL);
    pb_module(pb, "", "numerics.Cancel");
    pb_at(pb, NUMERICS_PY, 26, "forward", "h = torch.relu(x)");
    pb_node(pb, "aten.relu.default", "relu", "self=%x", "relu");
    pb_at(pb, NUMERICS_PY, 27, "forward", "m = h.mean()");
    pb_node(pb, "aten.mean.default", "mean", "self=%relu", "mean");
    pb_at(pb, NUMERICS_PY, 28, "forward", "var = (h * h).mean() - m * m");
    pb_node(pb, "aten.mul.Tensor", "mul", "self=%relu other=%relu", "mul");
    pb_node(pb, "aten.mean.default", "mean_1", "self=%mul", "mean_1");
    pb_node(pb, "aten.mul.Tensor", "mul_1", "self=%mean other=%mean", "mul_1");
    pb_node(pb, "aten.sub.Tensor", "sub", "self=%mean_1 other=%mul_1", "sub");
    pb_at(pb, NUMERICS_PY, 29, "forward", "return torch.sqrt(var.abs())");
    pb_node(pb, "aten.abs.default", "abs_1", "self=%sub", "abs_1");
    pb_node(pb, "aten.sqrt.default", "sqrt", "self=%abs_1", "sqrt");
    pb_output(pb, "sqrt");
    return pb;
}

/* x.to(torch.int32) and x.to(torch.float64) as PyTorch 2.8+'s training
** dialect writes them: an _assert_tensor_metadata of the input's dtype,
** device and layout (as_layout 7, torch.strided) before each conversion,
** given as kwargs by the export pass that inserts it (hence the '|').
** wrong_dtype: the assertion expects float16, so the run fails as PyTorch's
** does ("Tensor dtype mismatch! Expected: Half, Got: float"). */
static ProgBuilder *to_dtype(bool wrong_dtype)
{
    ProgBuilder *pb = pb_new("fixtures.ToDtype", false);
    int64_t xs[2] = {2, 3};
    Tensor *x = tensor_empty(DT_F32, 2, xs, NULL);
    /* exact in float32; truncation toward zero gives -2, -1, 0, 0, 1, 127 */
    const float xv[6] = {-2.75f, -1.5f, -0.25f, 0.5f, 1.75f, 127.0f};
    memcpy(tensor_data(x), xv, sizeof xv);
    input(pb, "x", x, NULL);
    pb_at(pb, "fixtures/to_dtype.py", 8, "forward", "return x.to(torch.int32), x.to(torch.float64)");
    pb_node(pb, "aten._assert_tensor_metadata.default", "_assert_tensor_metadata_default",
            wrong_dtype ? "a=%x | dtype=dtype:float16 device=device:cpu layout=layout:strided"
                        : "a=%x | dtype=dtype:float32 device=device:cpu layout=layout:strided",
            "");
    pb_node(pb, "aten._to_copy.default", "_to_copy",
            "self=%x dtype=dtype:int32 layout=layout:strided device=device:cpu memory_format=memfmt:preserve",
            "_to_copy");
    pb_node(pb, "aten._assert_tensor_metadata.default", "_assert_tensor_metadata_default_1",
            "a=%x | size=[2, 3] dtype=dtype:float32 device=device:cpu layout=layout:strided", "");
    pb_node(pb, "aten.to.dtype_layout", "to",
            "self=%x dtype=dtype:float64 layout=layout:strided device=device:cpu memory_format=memfmt:contiguous",
            "to");
    pb_output(pb, "_to_copy");
    pb_output(pb, "to");
    return pb;
}

/* More outputs than any fixed-size table would hold: x[70, 3] (x[k][j] =
** 4k + j, exact in float32) unbound into its 70 rows, the last ones used
** again: mul = (u68 + u69) * u65.  Time travel and re-evaluation must cover
** every output slot. */
#define UNBIND_ROWS 70
static ProgBuilder *many_outputs(void)
{
    ProgBuilder *pb = pb_new("fixtures.ManyOutputs", false);
    int64_t xs[2] = {UNBIND_ROWS, 3};
    EpError err = {0};
    Tensor *x = tensor_empty(DT_F32, 2, xs, &err);
    if (!x)
        abort(); /* out of memory while generating */
    float *xv = tensor_data(x);
    for (int k = 0; k < UNBIND_ROWS * 3; k++)
        xv[k] = (float)(4 * (k / 3) + k % 3);
    input(pb, "x", x, NULL);
    pb_module(pb, "", "fixtures.ManyOutputs");
    char rows[UNBIND_ROWS * 8 + 8] = "[";
    for (int k = 0; k < UNBIND_ROWS; k++)
        snprintf(rows + strlen(rows), sizeof rows - strlen(rows), "%s%%u%d", k ? ", " : "", k);
    strcat(rows, "]");
    pb_node(pb, "aten.unbind.int", "unbind", "self=%x dim=0", rows);
    pb_node(pb, "aten.add.Tensor", "add", "self=%u68 other=%u69", "add");
    pb_node(pb, "aten.mul.Tensor", "mul", "self=%add other=%u65", "mul");
    pb_output(pb, "mul");
    return pb;
}

/* A SymInt input n that is the symbol s0, ranged [2, 8] as
** torch.export.Dim("n", min=2, max=8) records it: out = x * n. */
static ProgBuilder *symint_range(void)
{
    PbRng r = {0x43};
    ProgBuilder *pb = pb_new("fixtures.SymIntRange", false);
    int64_t xs[1] = {3};
    input(pb, "x", uni(&r, DT_F32, 1, xs, -1, 1), NULL);
    pb_sym_input_as(pb, "n", "s0", 5);
    pb_range(pb, "s0", 2, 8);
    pb_node(pb, "aten.mul.Tensor", "mul", "self=%x other=$n", "mul");
    pb_output(pb, "mul");
    return pb;
}

/* One node binding more symbols than a fixed table would hold: x[820]
** (x[k] = k) split into parts of 1, 2, ..., 40 whose sizes are recorded
** as unbacked u0..u39 (as sizes computed from data are), so that node
** learns u_k = k + 1; then out = part39 * 2. */
#define SPLIT_PARTS 40
static ProgBuilder *many_symbols(void)
{
    ProgBuilder *pb = pb_new("fixtures.ManySymbols", false);
    int64_t xs[1] = {SPLIT_PARTS * (SPLIT_PARTS + 1) / 2};
    EpError err = {0};
    Tensor *x = tensor_empty(DT_F32, 1, xs, &err);
    if (!x)
        abort(); /* out of memory while generating */
    for (int64_t k = 0; k < xs[0]; k++)
        ((float *)tensor_data(x))[k] = (float)k;
    input(pb, "x", x, NULL);
    char sizes[SPLIT_PARTS * 8 + 8] = "[", parts[SPLIT_PARTS * 8 + 8] = "[";
    for (int k = 0; k < SPLIT_PARTS; k++) {
        snprintf(sizes + strlen(sizes), sizeof sizes - strlen(sizes), "%s%d", k ? ", " : "", k + 1);
        snprintf(parts + strlen(parts), sizeof parts - strlen(parts), "%s%%p%d", k ? ", " : "", k);
    }
    strcat(sizes, "]");
    strcat(parts, "]");
    pb_node(pb, "aten.split_with_sizes.default", "split", F_ARG("self=%%x split_sizes=%s dim=0", sizes), parts);
    for (int k = 0; k < SPLIT_PARTS; k++) {
        const char *dim[1] = {F_ARG("u%d", k)};
        pb_unbacked(pb, F_ARG("p%d", k), 1, dim);
    }
    pb_node(pb, "aten.mul.Tensor", "mul", F_ARG("self=%%p%d other=2", SPLIT_PARTS - 1), "mul");
    pb_output(pb, "mul");
    return pb;
}

/* One node with more floating inputs than a fixed table would hold:
** einsum('a,a,...,a->a') of x0..x69, each [1, 1] but x37..x69 [1, 3], so
** out[1] = 3^33 = 5559060566555523: exact in float64 (< 2^53), not in
** float32, and only if every operand is float64. */
#define WIDE_OPERANDS 70
static ProgBuilder *wide_einsum(void)
{
    ProgBuilder *pb = pb_new("fixtures.WideEinsum", false);
    StrBuf args;
    sb_init(&args);
    sb_append(&args, "equation='");
    for (int k = 0; k < WIDE_OPERANDS; k++)
        sb_append(&args, k ? ",a" : "a");
    sb_append(&args, "->a' tensors=[");
    for (int k = 0; k < WIDE_OPERANDS; k++) {
        int64_t s[1] = {2};
        EpError err = {0};
        Tensor *x = tensor_empty(DT_F32, 1, s, &err);
        if (!x)
            abort(); /* out of memory while generating */
        ((float *)tensor_data(x))[0] = 1;
        ((float *)tensor_data(x))[1] = k >= WIDE_OPERANDS - 33 ? 3 : 1;
        char name[16];
        snprintf(name, sizeof name, "x%d", k);
        input(pb, name, x, NULL);
        sb_printf(&args, "%s%%x%d", k ? ", " : "", k);
    }
    sb_append(&args, "]");
    pb_node(pb, "aten.einsum.default", "einsum", args.data, "einsum");
    sb_free(&args);
    pb_output(pb, "einsum");
    return pb;
}

/* A helper function called twice in a row (tests/src/calls.py): `break
** calls.py:block` stops at the first node of each call. */
static ProgBuilder *calls(void)
{
    static const char CALLS_PY[] = "tests/src/calls.py";
    PbRng r = {0xca};
    ProgBuilder *pb = pb_new("calls.Calls", false);
    int64_t xs[1] = {4};
    input(pb, "x", uni(&r, DT_F32, 1, xs, -1, 1), NULL);
    pb_module(pb, "", "calls.Calls");
    pb_at(pb, CALLS_PY, 15, "forward", "a = block(x)");
    pb_at_inner(pb, CALLS_PY, 9, "block", "h = torch.relu(x)");
    pb_node(pb, "aten.relu.default", "relu", "self=%x", "relu");
    pb_at(pb, CALLS_PY, 15, "forward", "a = block(x)");
    pb_at_inner(pb, CALLS_PY, 10, "block", "return h * 0.5");
    pb_node(pb, "aten.mul.Tensor", "mul", "self=%relu other=0.5", "mul");
    pb_at(pb, CALLS_PY, 16, "forward", "b = block(a + 1.0)");
    pb_node(pb, "aten.add.Tensor", "add", "self=%mul other=1.0", "add");
    pb_at_inner(pb, CALLS_PY, 9, "block", "h = torch.relu(x)");
    pb_node(pb, "aten.relu.default", "relu_1", "self=%add", "relu_1");
    pb_at(pb, CALLS_PY, 16, "forward", "b = block(a + 1.0)");
    pb_at_inner(pb, CALLS_PY, 10, "block", "return h * 0.5");
    pb_node(pb, "aten.mul.Tensor", "mul_1", "self=%relu_1 other=0.5", "mul_1");
    pb_at(pb, CALLS_PY, 17, "forward", "return b - 1.0");
    pb_node(pb, "aten.sub.Tensor", "sub", "self=%mul_1 other=1.0", "sub");
    pb_output(pb, "sub");
    return pb;
}

EpStatus write_fixtures(const char *dir, EpError *err)
{
    EpStatus rc;
    if ((rc = write(linear_scale(true), dir, "v1_linear.pt2", PB_ERA_2_1, err)) ||
        (rc = write(linear_scale(true), dir, "v2_linear.pt2", PB_ERA_2_2, err)) ||
        (rc = write(linear_scale(false), dir, "v5_linear.pt2", PB_ERA_2_4, err)) ||
        (rc = write(dynamic(), dir, "dynamic.pt2", PB_ERA_2_11, err)) ||
        (rc = write(symint_input(), dir, "symint_input.pt2", PB_ERA_2_11, err)) ||
        (rc = write(mutation(), dir, "mutation.pt2", PB_ERA_2_11, err)) ||
        (rc = write(training_bn(), dir, "training_bn.pt2", PB_ERA_2_2, err)) ||
        (rc = write(unsupported(), dir, "unsupported.pt2", PB_ERA_2_11, err)) ||
        (rc = write(torch_frames(), dir, "torch_frames.pt2", PB_ERA_2_11, err)) ||
        (rc = write(bf16(), dir, "bf16.pt2", PB_ERA_2_11, err)) ||
        (rc = write(inplace(), dir, "inplace.pt2", PB_ERA_2_11, err)) ||
        (rc = write(nan_log(), dir, "nan_log.pt2", PB_ERA_2_11, err)) ||
        (rc = write(cancel(), dir, "cancel.pt2", PB_ERA_2_11, err)) ||
        (rc = write(to_dtype(false), dir, "to_dtype.pt2", PB_ERA_2_11, err)) ||
        (rc = write(to_dtype(true), dir, "to_dtype_mismatch.pt2", PB_ERA_2_11, err)) ||
        (rc = write(many_outputs(), dir, "many_outputs.pt2", PB_ERA_2_11, err)) ||
        (rc = write(symint_range(), dir, "symint_range.pt2", PB_ERA_2_11, err)) ||
        (rc = write(many_symbols(), dir, "many_symbols.pt2", PB_ERA_2_11, err)) ||
        (rc = write(wide_einsum(), dir, "wide_einsum.pt2", PB_ERA_2_11, err)) ||
        (rc = write(calls(), dir, "calls.pt2", PB_ERA_2_11, err)) ||
        (rc = write(hot_line(), dir, "hot_line.pt2", PB_ERA_2_11, err)) ||
        (rc = write(guard_derived(), dir, "guard_derived.pt2", PB_ERA_2_11, err)) ||
        (rc = write(guard_mod(), dir, "guard_mod.pt2", PB_ERA_2_11, err)) ||
        (rc = write(guard_item(), dir, "guard_item.pt2", PB_ERA_2_11, err)) ||
        (rc = write_dyn_fixtures(dir, err)) || (rc = write_issue_fixtures(dir, err)))
        return rc;

    /* an input for nan_log.pt2 that already holds a NaN */
    int64_t nx = 4;
    Tensor *xn = tensor_empty(DT_F32, 1, &nx, err);
    if (!xn)
        return EP_ERR_EXEC;
    const float xv[4] = {0.9f, NAN, 0.75f, 0.6f};
    memcpy(tensor_data(xn), xv, sizeof xv);
    char *npy = ep_xasprintf("%s/nan_input.npy", dir);
    rc = npy_save_file(npy, xn, err);
    free(npy);
    tensor_unref(xn);
    if (rc)
        return rc;

    /* the MLP with whole-dict weights (PyTorch 2.8's PT2 form) */
    ProgBuilder *mlp = model_mlp(false);
    char *path = ep_xasprintf("%s/whole_weights.pt2", dir);
    PbWriteOptions whole = {.era = PB_ERA_2_11, .whole_weights = true, .root = "package"};
    rc = pb_write(mlp, path, &whole, err);
    free(path);
    pb_free(mlp);
    if (rc)
        return rc;

    /* two programs, neither called "model": --model picks one */
    ProgBuilder *progs[2] = {encoder(), decoder()};
    const char *names[2] = {"encoder", "decoder"};
    for (int i = 0; i < 2 && rc == EP_OK; i++)
        rc = pb_infer(progs[i], err);
    path = ep_xasprintf("%s/multi.pt2", dir);
    PbWriteOptions multi = {.era = PB_ERA_2_11};
    if (rc == EP_OK)
        rc = pb_write_pt2_programs(progs, names, 2, path, &multi, err);
    free(path);
    pb_free(progs[0]);
    pb_free(progs[1]);
    if (rc)
        return rc;

    /* an AOTInductor package: compiled code, no program */
    ZipWriter *z = zw_new(64);
    zw_add(z, "package/archive_format", "pt2", 3);
    zw_add(z, "package/archive_version", "0", 1);
    zw_add(z, "package/data/aotinductor/model/cabc123.wrapper.cpp", "// compiled", 11);
    zw_add(z, "package/data/aotinductor/model/cabc123.wrapper.so", "\x7f" "ELF", 4);
    path = ep_xasprintf("%s/aoti_like.pt2", dir);
    rc = zw_save(z, path, err);
    free(path);
    zw_free(z);
    if (rc)
        return rc;

    /* a plain torch.save of a state dict */
    PbRng r = {0xa1};
    int64_t s[1] = {4};
    PwObj *d = pw_dict();
    Tensor *t = uni(&r, DT_F32, 1, s, 0, 1);
    pw_dict_set(d, "weight", pw_tensor(t, true));
    tensor_unref(t);
    size_t len;
    char *bytes = torchsave_bytes(d, "state", &len);
    pw_free(d);
    path = ep_xasprintf("%s/plain_torchsave.pt", dir);
    rc = write_file_atomic(path, bytes, len, err);
    free(path);
    free(bytes);
    return rc;
}
