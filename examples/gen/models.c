/*
** models.c -- the bundled example models (an MLP and a small CNN, each in
** the training dialect of PyTorch 2.11 as a PT2 archive and in the core
** ATen dialect of an older legacy archive), and the test fixtures.
**
** Node metadata points at examples/src/mlp.py and cnn.py, the modules the
** programs are the export of.  Weights come from a fixed-seed generator, so
** every build writes the same bytes and PyTorch's reference outputs
** (tests/refs/, made by ../shared/tools/oracle.py) stay valid.
*/
#include "models.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/picklewrite.h"
#include "interp/zipwrite.h"

#define F pb_fmt

static const char *P(const ProgBuilder *pb, const char *fqn)
{
    return pb_ph(pb, fqn);
}

/* A kaiming-uniform-like initialisation: U(-1/sqrt(fan_in), 1/sqrt(fan_in)). */
static Tensor *init_weight(PbRng *r, int ndim, const int64_t *sizes, int64_t fan_in)
{
    double bound = 1.0;
    /* 1/sqrt without libm: the few fan-ins used here */
    static const struct { int64_t fan; double inv_sqrt; } table[] = {
        {16, 0.25}, {32, 0.1767766952966369}, {27, 0.19245008972987526}, {72, 0.11785113019775792},
        {4, 0.5}, {8, 0.35355339059327373}, {64, 0.125}, {128, 0.08838834764831845}, {256, 0.0625},
    };
    for (size_t i = 0; i < EP_ARRAY_LEN(table); i++)
        if (table[i].fan == fan_in)
            bound = table[i].inv_sqrt;
    return pb_uniform(r, DT_F32, ndim, sizes, -bound, bound);
}

static void add_linear(ProgBuilder *pb, PbRng *r, const char *name, int64_t in, int64_t out)
{
    int64_t ws[2] = {out, in}, bs[1] = {out};
    Tensor *w = init_weight(r, 2, ws, in), *b = init_weight(r, 1, bs, in);
    pb_param(pb, F("%s.weight", name), w);
    pb_param(pb, F("%s.bias", name), b);
    tensor_unref(w);
    tensor_unref(b);
}

static void add_input(ProgBuilder *pb, PbRng *r, const char *name, int ndim, const int64_t *sizes,
                      const char *const *dims)
{
    Tensor *x = pb_uniform(r, DT_F32, ndim, sizes, -2, 2);
    pb_input(pb, name, x, dims);
    tensor_unref(x);
}

/* ---- MLP ----------------------------------------------------------------------- */

#define MLP_PY "examples/src/mlp.py"
#define MLP_CLASS "examples.src.mlp.MLP"

ProgBuilder *model_mlp(bool core_aten)
{
    PbRng r = {0x6d6c70};
    ProgBuilder *pb = pb_new(MLP_CLASS, core_aten);
    add_linear(pb, &r, "fc1", 16, 32);
    int64_t ns[1] = {32};
    Tensor *nw = pb_uniform(&r, DT_F32, 1, ns, 0.5, 1.5), *nb = pb_uniform(&r, DT_F32, 1, ns, -0.1, 0.1);
    pb_param(pb, "norm.weight", nw);
    pb_param(pb, "norm.bias", nb);
    tensor_unref(nw);
    tensor_unref(nb);
    add_linear(pb, &r, "fc2", 32, 32);
    add_linear(pb, &r, "head", 32, 4);
    int64_t xs[2] = {4, 16};
    const char *dims[2] = {"s0", "16"};
    add_input(pb, &r, "x", 2, xs, dims);
    pb_range(pb, "s0", 2, 1024);
    const char *x = P(pb, "x");

    pb_at(pb, MLP_PY, 21, "forward", "h = torch.relu(self.fc1(x))");
    if (core_aten) {
        pb_module(pb, "fc1", "torch.nn.modules.linear.Linear");
        pb_node(pb, "aten.t.default", "t", F("self=%%%s", P(pb, "fc1.weight")), "t");
        pb_node(pb, "aten.addmm.default", "addmm", F("self=%%%s mat1=%%%s mat2=%%t", P(pb, "fc1.bias"), x), "addmm");
        pb_module(pb, "", MLP_CLASS);
        pb_node(pb, "aten.relu.default", "relu", "self=%addmm", "relu");
        pb_at(pb, MLP_PY, 22, "forward", "h = self.drop(self.norm(h))");
        pb_module(pb, "norm", "torch.nn.modules.normalization.LayerNorm");
        pb_node(pb, "aten.native_layer_norm.default", "native_layer_norm",
                F("input=%%relu normalized_shape=[32] weight=%%%s bias=%%%s eps=1e-05", P(pb, "norm.weight"),
                  P(pb, "norm.bias")),
                "getitem, _, _");
        pb_at(pb, MLP_PY, 23, "forward", "h = nn.functional.gelu(self.fc2(h), approximate=\"tanh\")");
        pb_module(pb, "fc2", "torch.nn.modules.linear.Linear");
        pb_node(pb, "aten.t.default", "t_1", F("self=%%%s", P(pb, "fc2.weight")), "t_1");
        pb_node(pb, "aten.addmm.default", "addmm_1", F("self=%%%s mat1=%%getitem mat2=%%t_1", P(pb, "fc2.bias")),
                "addmm_1");
        pb_module(pb, "", MLP_CLASS);
        pb_node(pb, "aten.gelu.default", "gelu", "self=%addmm_1 approximate='tanh'", "gelu");
        pb_at(pb, MLP_PY, 24, "forward", "logits = self.head(h + x.mean(dim=1, keepdim=True))");
        pb_node(pb, "aten.mean.dim", "mean", F("self=%%%s dim=[1] keepdim=True", x), "mean");
        pb_node(pb, "aten.add.Tensor", "add", "self=%gelu other=%mean", "add");
        pb_module(pb, "head", "torch.nn.modules.linear.Linear");
        pb_node(pb, "aten.t.default", "t_2", F("self=%%%s", P(pb, "head.weight")), "t_2");
        pb_node(pb, "aten.addmm.default", "addmm_2", F("self=%%%s mat1=%%add mat2=%%t_2", P(pb, "head.bias")),
                "addmm_2");
        pb_at(pb, MLP_PY, 25, "forward", "return torch.softmax(logits, dim=-1)");
        pb_module(pb, "", MLP_CLASS);
        pb_node(pb, "aten._softmax.default", "_softmax", "self=%addmm_2 dim=-1 half_to_float=False", "_softmax");
        pb_output(pb, "_softmax");
        return pb;
    }
    pb_module(pb, "fc1", "torch.nn.modules.linear.Linear");
    pb_node(pb, "aten.linear.default", "linear",
            F("input=%%%s weight=%%%s bias=%%%s", x, P(pb, "fc1.weight"), P(pb, "fc1.bias")), "linear");
    pb_module(pb, "", MLP_CLASS);
    pb_node(pb, "aten.relu.default", "relu", "self=%linear", "relu");
    pb_at(pb, MLP_PY, 22, "forward", "h = self.drop(self.norm(h))");
    pb_module(pb, "norm", "torch.nn.modules.normalization.LayerNorm");
    pb_node(pb, "aten.layer_norm.default", "layer_norm",
            F("input=%%relu normalized_shape=[32] weight=%%%s bias=%%%s eps=1e-05", P(pb, "norm.weight"),
              P(pb, "norm.bias")),
            "layer_norm");
    pb_module(pb, "drop", "torch.nn.modules.dropout.Dropout");
    pb_node(pb, "aten.dropout.default", "dropout", "input=%layer_norm p=0.1 train=False", "dropout");
    pb_at(pb, MLP_PY, 23, "forward", "h = nn.functional.gelu(self.fc2(h), approximate=\"tanh\")");
    pb_module(pb, "fc2", "torch.nn.modules.linear.Linear");
    pb_node(pb, "aten.linear.default", "linear_1",
            F("input=%%dropout weight=%%%s bias=%%%s", P(pb, "fc2.weight"), P(pb, "fc2.bias")), "linear_1");
    pb_module(pb, "", MLP_CLASS);
    pb_node(pb, "aten.gelu.default", "gelu", "self=%linear_1 approximate='tanh'", "gelu");
    pb_at(pb, MLP_PY, 24, "forward", "logits = self.head(h + x.mean(dim=1, keepdim=True))");
    pb_node(pb, "aten.mean.dim", "mean", F("self=%%%s dim=[1] keepdim=True", x), "mean");
    pb_node(pb, "aten.add.Tensor", "add", "self=%gelu other=%mean", "add");
    pb_module(pb, "head", "torch.nn.modules.linear.Linear");
    pb_node(pb, "aten.linear.default", "linear_2",
            F("input=%%add weight=%%%s bias=%%%s", P(pb, "head.weight"), P(pb, "head.bias")), "linear_2");
    pb_at(pb, MLP_PY, 25, "forward", "return torch.softmax(logits, dim=-1)");
    pb_module(pb, "", MLP_CLASS);
    pb_node(pb, "aten.softmax.int", "softmax", "self=%linear_2 dim=-1", "softmax");
    pb_output(pb, "softmax");
    return pb;
}

/* ---- CNN ------------------------------------------------------------------------- */

#define CNN_PY "examples/src/cnn.py"
#define CNN_CLASS "examples.src.cnn.SmallCNN"

static void add_conv(ProgBuilder *pb, PbRng *r, const char *name, int64_t cin, int64_t cout)
{
    int64_t ws[4] = {cout, cin, 3, 3}, bs[1] = {cout};
    Tensor *w = init_weight(r, 4, ws, cin * 9), *b = init_weight(r, 1, bs, cin * 9);
    pb_param(pb, F("%s.weight", name), w);
    pb_param(pb, F("%s.bias", name), b);
    tensor_unref(w);
    tensor_unref(b);
}

ProgBuilder *model_cnn(bool core_aten)
{
    PbRng r = {0x636e6e};
    ProgBuilder *pb = pb_new(CNN_CLASS, core_aten);
    add_conv(pb, &r, "conv1", 3, 8);
    int64_t cs[1] = {8};
    Tensor *g = pb_uniform(&r, DT_F32, 1, cs, 0.5, 1.5), *b = pb_uniform(&r, DT_F32, 1, cs, -0.2, 0.2);
    pb_param(pb, "bn1.weight", g);
    pb_param(pb, "bn1.bias", b);
    tensor_unref(g);
    tensor_unref(b);
    add_conv(pb, &r, "conv2", 8, 16);
    add_linear(pb, &r, "fc", 16, 10);
    Tensor *rm = pb_uniform(&r, DT_F32, 1, cs, -0.3, 0.3), *rv = pb_uniform(&r, DT_F32, 1, cs, 0.5, 2.0);
    EpError err;
    Tensor *nbt = tensor_scalar_i64(DT_I64, 120, &err);
    pb_buffer(pb, "bn1.running_mean", rm, true);
    pb_buffer(pb, "bn1.running_var", rv, true);
    pb_buffer(pb, "bn1.num_batches_tracked", nbt, true);
    tensor_unref(rm);
    tensor_unref(rv);
    tensor_unref(nbt);
    int64_t xs[4] = {2, 3, 16, 16};
    const char *dims[4] = {"s0", "3", "16", "16"};
    add_input(pb, &r, "x", 4, xs, dims);
    pb_range(pb, "s0", 2, 64);
    const char *x = P(pb, "x");
    const char *bn = F("weight=%%%s bias=%%%s running_mean=%%%s running_var=%%%s", P(pb, "bn1.weight"),
                       P(pb, "bn1.bias"), P(pb, "bn1.running_mean"), P(pb, "bn1.running_var"));
    char bnargs[1024];
    snprintf(bnargs, sizeof bnargs, "%s", bn);

    pb_at(pb, CNN_PY, 22, "forward", "x = self.pool(torch.relu(self.bn1(self.conv1(x))))");
    pb_module(pb, "conv1", "torch.nn.modules.conv.Conv2d");
    if (core_aten) {
        pb_node(pb, "aten.convolution.default", "convolution",
                F("input=%%%s weight=%%%s bias=%%%s stride=[1, 1] padding=[1, 1] dilation=[1, 1] transposed=False "
                  "output_padding=[0, 0] groups=1",
                  x, P(pb, "conv1.weight"), P(pb, "conv1.bias")),
                "convolution");
        pb_module(pb, "bn1", "torch.nn.modules.batchnorm.BatchNorm2d");
        pb_node(pb, "aten._native_batch_norm_legit_no_training.default", "_native_batch_norm_legit_no_training",
                F("input=%%convolution %s momentum=0.1 eps=1e-05", bnargs), "getitem, _, _");
        pb_module(pb, "", CNN_CLASS);
        pb_node(pb, "aten.relu.default", "relu", "self=%getitem", "relu");
        pb_module(pb, "pool", "torch.nn.modules.pooling.MaxPool2d");
        pb_node(pb, "aten.max_pool2d_with_indices.default", "max_pool2d_with_indices",
                "self=%relu kernel_size=[2, 2] stride=[2, 2]", "getitem_3, _");
        pb_at(pb, CNN_PY, 23, "forward", "x = torch.relu(self.conv2(x))");
        pb_module(pb, "conv2", "torch.nn.modules.conv.Conv2d");
        pb_node(pb, "aten.convolution.default", "convolution_1",
                F("input=%%getitem_3 weight=%%%s bias=%%%s stride=[1, 1] padding=[1, 1] dilation=[1, 1] "
                  "transposed=False output_padding=[0, 0] groups=1",
                  P(pb, "conv2.weight"), P(pb, "conv2.bias")),
                "convolution_1");
        pb_module(pb, "", CNN_CLASS);
        pb_node(pb, "aten.relu.default", "relu_1", "self=%convolution_1", "relu_1");
        pb_at(pb, CNN_PY, 24, "forward", "x = torch.flatten(self.avg(x), 1)");
        pb_module(pb, "avg", "torch.nn.modules.pooling.AdaptiveAvgPool2d");
        pb_node(pb, "aten.mean.dim", "mean", "self=%relu_1 dim=[-1, -2] keepdim=True", "mean");
        pb_module(pb, "", CNN_CLASS);
        pb_node(pb, "aten.sym_size.int", "sym_size_int", F("self=%%%s dim=0", x), "$sym_size_int");
        pb_node(pb, "aten.view.default", "view", "self=%mean size=[$sym_size_int, 16]", "view");
        pb_at(pb, CNN_PY, 25, "forward", "return torch.log_softmax(self.fc(x), dim=1)");
        pb_module(pb, "fc", "torch.nn.modules.linear.Linear");
        pb_node(pb, "aten.t.default", "t", F("self=%%%s", P(pb, "fc.weight")), "t");
        pb_node(pb, "aten.addmm.default", "addmm", F("self=%%%s mat1=%%view mat2=%%t", P(pb, "fc.bias")), "addmm");
        pb_module(pb, "", CNN_CLASS);
        pb_node(pb, "aten._log_softmax.default", "_log_softmax", "self=%addmm dim=1 half_to_float=False",
                "_log_softmax");
        pb_output(pb, "_log_softmax");
        return pb;
    }
    pb_node(pb, "aten.conv2d.default", "conv2d",
            F("input=%%%s weight=%%%s bias=%%%s padding=[1, 1]", x, P(pb, "conv1.weight"), P(pb, "conv1.bias")),
            "conv2d");
    pb_module(pb, "bn1", "torch.nn.modules.batchnorm.BatchNorm2d");
    pb_node(pb, "aten.batch_norm.default", "batch_norm",
            F("input=%%conv2d %s training=False momentum=0.1 eps=1e-05 cudnn_enabled=True", bnargs), "batch_norm");
    pb_module(pb, "", CNN_CLASS);
    pb_node(pb, "aten.relu.default", "relu", "self=%batch_norm", "relu");
    pb_module(pb, "pool", "torch.nn.modules.pooling.MaxPool2d");
    pb_node(pb, "aten.max_pool2d.default", "max_pool2d", "self=%relu kernel_size=[2, 2] stride=[2, 2]",
            "max_pool2d");
    pb_at(pb, CNN_PY, 23, "forward", "x = torch.relu(self.conv2(x))");
    pb_module(pb, "conv2", "torch.nn.modules.conv.Conv2d");
    pb_node(pb, "aten.conv2d.default", "conv2d_1",
            F("input=%%max_pool2d weight=%%%s bias=%%%s padding=[1, 1]", P(pb, "conv2.weight"), P(pb, "conv2.bias")),
            "conv2d_1");
    pb_module(pb, "", CNN_CLASS);
    pb_node(pb, "aten.relu.default", "relu_1", "self=%conv2d_1", "relu_1");
    pb_at(pb, CNN_PY, 24, "forward", "x = torch.flatten(self.avg(x), 1)");
    pb_module(pb, "avg", "torch.nn.modules.pooling.AdaptiveAvgPool2d");
    pb_node(pb, "aten.adaptive_avg_pool2d.default", "adaptive_avg_pool2d", "self=%relu_1 output_size=[1, 1]",
            "adaptive_avg_pool2d");
    pb_module(pb, "", CNN_CLASS);
    pb_node(pb, "aten.flatten.using_ints", "flatten", "self=%adaptive_avg_pool2d start_dim=1", "flatten");
    pb_at(pb, CNN_PY, 25, "forward", "return torch.log_softmax(self.fc(x), dim=1)");
    pb_module(pb, "fc", "torch.nn.modules.linear.Linear");
    pb_node(pb, "aten.linear.default", "linear",
            F("input=%%flatten weight=%%%s bias=%%%s", P(pb, "fc.weight"), P(pb, "fc.bias")), "linear");
    pb_module(pb, "", CNN_CLASS);
    pb_node(pb, "aten.log_softmax.int", "log_softmax", "self=%linear dim=1", "log_softmax");
    pb_output(pb, "log_softmax");
    return pb;
}

/* ---- the examples ------------------------------------------------------------------ */

EpStatus write_examples(const char *dir, EpError *err)
{
    struct {
        const char *file;
        ProgBuilder *(*make)(bool);
        bool core;
        PbEra era;
    } ex[] = {
        {"mlp.pt2", model_mlp, false, PB_ERA_2_11},
        {"mlp_legacy.pt2", model_mlp, true, PB_ERA_2_2},
        {"cnn.pt2", model_cnn, false, PB_ERA_2_11},
        {"cnn_legacy.pt2", model_cnn, true, PB_ERA_2_4},
    };
    for (size_t i = 0; i < EP_ARRAY_LEN(ex); i++) {
        ProgBuilder *pb = ex[i].make(ex[i].core);
        char *path = ep_xasprintf("%s/%s", dir, ex[i].file);
        PbWriteOptions opt = {.era = ex[i].era};
        EpStatus rc = pb_write(pb, path, &opt, err);
        free(path);
        pb_free(pb);
        if (rc)
            return rc;
    }
    return EP_OK;
}
