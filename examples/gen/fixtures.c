/*
** fixtures.c -- the archives the test suite reads besides the examples:
** every schema era, layouts and weight forms, dynamic shapes with derived
** dimensions and ranges, SymInt inputs and outputs, signature mutations,
** training-mode batch norm, in-place ops, bfloat16, a NaN maker and a
** float32 cancellation (tests/src/numerics.py), several programs in one
** archive, and files epdbg must refuse.  tests/refs/README.md says which
** have PyTorch references and how they were made.
*/
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/npy.h"
#include "models.h"
#include "picklewrite.h"
#include "zipwrite.h"

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
        (rc = write(bf16(), dir, "bf16.pt2", PB_ERA_2_11, err)) ||
        (rc = write(inplace(), dir, "inplace.pt2", PB_ERA_2_11, err)) ||
        (rc = write(nan_log(), dir, "nan_log.pt2", PB_ERA_2_11, err)) ||
        (rc = write(cancel(), dir, "cancel.pt2", PB_ERA_2_11, err)) ||
        (rc = write(calls(), dir, "calls.pt2", PB_ERA_2_11, err)))
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
