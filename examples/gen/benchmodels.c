/*
** benchmodels.c -- the programs bench/ measures (benchmodels.h).
*/
#include "benchmodels.h"

#include <stdio.h>
#include <string.h>

ProgBuilder *bench_chain_model(int nodes, PbRng *r)
{
    ProgBuilder *pb = pb_new("bench.Chain", false);
    int64_t one[1] = {1};
    Tensor *x = pb_uniform(r, DT_F32, 1, one, -1, 1);
    pb_input(pb, "x", x, NULL);
    tensor_unref(x);
    static const char *ops[4] = {"aten.add.Tensor", "aten.mul.Tensor", "aten.sub.Tensor", "aten.relu.default"};
    char name[32], prev[32] = "x";
    for (int i = 0; i < nodes; i++) {
        snprintf(name, sizeof name, "v%d", i);
        const char *op = ops[i % 4];
        if (i % 4 == 3)
            pb_node(pb, op, name, pb_fmt("self=%%%s", prev), name);
        else
            pb_node(pb, op, name, pb_fmt("self=%%%s other=%s", prev, i % 4 == 1 ? "0.5" : "1.25"), name);
        snprintf(prev, sizeof prev, "%s", name);
    }
    pb_output(pb, prev);
    return pb;
}

ProgBuilder *bench_wide_model(int batch, PbRng *r)
{
    ProgBuilder *pb = pb_new("bench.Wide", false);
    int64_t ws[2] = {BENCH_WIDE_WIDTH, BENCH_WIDE_WIDTH}, bs[1] = {BENCH_WIDE_WIDTH};
    int64_t xs[2] = {batch, BENCH_WIDE_WIDTH};
    for (int l = 0; l < BENCH_WIDE_LAYERS; l++) {
        Tensor *w = pb_uniform(r, DT_F32, 2, ws, -0.02, 0.02), *b = pb_uniform(r, DT_F32, 1, bs, -0.02, 0.02);
        pb_param(pb, pb_fmt("l%d.weight", l), w);
        pb_param(pb, pb_fmt("l%d.bias", l), b);
        tensor_unref(w);
        tensor_unref(b);
    }
    Tensor *x = pb_uniform(r, DT_F32, 2, xs, -1, 1);
    pb_input(pb, "x", x, NULL);
    tensor_unref(x);
    char prev[32] = "x";
    for (int l = 0; l < BENCH_WIDE_LAYERS; l++) {
        pb_node(pb, "aten.linear.default", pb_fmt("lin%d", l),
                pb_fmt("input=%%%s weight=%%p_l%d_weight bias=%%p_l%d_bias", prev, l, l), pb_fmt("lin%d", l));
        pb_node(pb, "aten.relu.default", pb_fmt("relu%d", l), pb_fmt("self=%%lin%d", l), pb_fmt("relu%d", l));
        snprintf(prev, sizeof prev, "relu%d", l);
    }
    pb_output(pb, prev);
    return pb;
}

/* ---- models whose nodes do real work ------------------------------------------ */

#define F pb_fmt

/* 1/sqrt(x) by Newton's method (the generator uses no libm, so every build
** writes the same weights). */
static double inv_sqrt(double x)
{
    double y = 1;
    while (y * y * x > 1)
        y *= 0.5;
    for (int i = 0; i < 30; i++)
        y = y * (1.5 - 0.5 * x * y * y);
    return y;
}

/* A parameter drawn from U(-b, b), b = scale / sqrt(fan_in): kaiming-like,
** so activations neither blow up nor sink into denormals over hundreds of
** nodes (either would make the timings about something else). */
static void add_param(ProgBuilder *pb, PbRng *r, const char *fqn, int ndim, const int64_t *sizes, double fan_in,
                      double scale)
{
    double b = scale * inv_sqrt(fan_in);
    Tensor *t = pb_uniform(r, DT_F32, ndim, sizes, -b, b);
    pb_param(pb, fqn, t);
    tensor_unref(t);
}

static void add_filled(ProgBuilder *pb, PbRng *r, const char *fqn, int64_t n, double lo, double hi, bool buffer)
{
    Tensor *t = pb_uniform(r, DT_F32, 1, &n, lo, hi);
    if (buffer)
        pb_buffer(pb, fqn, t, true);
    else
        pb_param(pb, fqn, t);
    tensor_unref(t);
}

static void add_linear_params(ProgBuilder *pb, PbRng *r, const char *name_text, int64_t in, int64_t out)
{
    char name[64];
    snprintf(name, sizeof name, "%s", name_text);
    int64_t ws[2] = {out, in};
    add_param(pb, r, F("%s.weight", name), 2, ws, (double)in, 1.0);
    add_param(pb, r, F("%s.bias", name), 1, &out, (double)in, 1.0);
}

static void add_norm_params(ProgBuilder *pb, PbRng *r, const char *name_text, int64_t c)
{
    char name[64];
    snprintf(name, sizeof name, "%s", name_text);
    add_filled(pb, r, F("%s.weight", name), c, 0.8, 1.2, false);
    add_filled(pb, r, F("%s.bias", name), c, -0.1, 0.1, false);
}

static Tensor *input_tensor(PbRng *r, int ndim, const int64_t *sizes)
{
    return pb_uniform(r, DT_F32, ndim, sizes, -1, 1);
}

/* Nodes named as torch.export names them (conv2d_3, relu_7), each with
** one output of the same name. */
typedef struct Seq {
    ProgBuilder *pb;
    int k;
} Seq;

typedef char ValName[48];

static void emit(Seq *s, const char *target, const char *base, const char *args, ValName out)
{
    ValName name;
    snprintf(name, sizeof name, "%s_%d", base, s->k++);
    pb_node(s->pb, target, name, args, name);
    memcpy(out, name, sizeof name);
}

static const char *ph(Seq *s, const char *fqn)
{
    return pb_ph(s->pb, fqn);
}

/* ---- CNN ---- */

#define CNN_PY "bench/models/cnn.py"
#define CNN_CLASS "bench.models.cnn.ResNet"
#define CNN_BLOCK "bench.models.cnn.BasicBlock"
#define CNN_STAGES 3
#define CNN_WIDTH 8 /* channels of the first stage, doubling */

static void cnn_conv_bn_params(ProgBuilder *pb, PbRng *r, const char *conv_fqn, const char *bn_fqn, int64_t cin,
                               int64_t cout)
{
    ValName conv, bn; /* the callers' names may live in pb_fmt's ring */
    snprintf(conv, sizeof conv, "%s", conv_fqn);
    snprintf(bn, sizeof bn, "%s", bn_fqn);
    int64_t ws[4] = {cout, cin, 3, 3};
    add_param(pb, r, F("%s.weight", conv), 4, ws, (double)(cin * 9), 1.0);
    add_param(pb, r, F("%s.bias", conv), 1, &cout, (double)(cin * 9), 1.0);
    add_norm_params(pb, r, bn, cout);
    add_filled(pb, r, F("%s.running_mean", bn), cout, -0.1, 0.1, true);
    add_filled(pb, r, F("%s.running_var", bn), cout, 0.5, 1.5, true);
}

/* conv2d (3x3, padding 1) then batch_norm in eval mode. */
static void cnn_conv_bn(Seq *s, const char *conv_fqn, const char *bn_fqn, const char *in, ValName out)
{
    ValName c, conv, bn;
    snprintf(conv, sizeof conv, "%s", conv_fqn);
    snprintf(bn, sizeof bn, "%s", bn_fqn);
    pb_module(s->pb, conv, "torch.nn.modules.conv.Conv2d");
    emit(s, "aten.conv2d.default", "conv2d",
         F("input=%%%s weight=%%%s bias=%%%s padding=[1, 1]", in, ph(s, F("%s.weight", conv)),
           ph(s, F("%s.bias", conv))),
         c);
    pb_module(s->pb, bn, "torch.nn.modules.batchnorm.BatchNorm2d");
    emit(s, "aten.batch_norm.default", "batch_norm",
         F("input=%%%s weight=%%%s bias=%%%s running_mean=%%%s running_var=%%%s training=False momentum=0.1 "
           "eps=1e-05 cudnn_enabled=True",
           c, ph(s, F("%s.weight", bn)), ph(s, F("%s.bias", bn)), ph(s, F("%s.running_mean", bn)),
           ph(s, F("%s.running_var", bn))),
         out);
}

ProgBuilder *bench_cnn_model_batch(int batch, PbRng *r, Tensor **input)
{
    ProgBuilder *pb = pb_new(CNN_CLASS, false);
    int64_t width[CNN_STAGES];
    for (int st = 0; st < CNN_STAGES; st++)
        width[st] = (int64_t)CNN_WIDTH << st;
    cnn_conv_bn_params(pb, r, "stem.conv", "stem.bn", 3, width[0]);
    for (int st = 0; st < CNN_STAGES; st++) {
        if (st > 0)
            cnn_conv_bn_params(pb, r, F("layer%d.down.conv", st + 1), F("layer%d.down.bn", st + 1), width[st - 1],
                               width[st]);
        for (int b = 0; b < BENCH_CNN_BLOCKS; b++) {
            cnn_conv_bn_params(pb, r, F("layer%d.%d.conv1", st + 1, b), F("layer%d.%d.bn1", st + 1, b), width[st],
                               width[st]);
            cnn_conv_bn_params(pb, r, F("layer%d.%d.conv2", st + 1, b), F("layer%d.%d.bn2", st + 1, b), width[st],
                               width[st]);
        }
    }
    add_linear_params(pb, r, "fc", width[CNN_STAGES - 1], 10);
    int64_t xs[4] = {batch, 3, 16, 16};
    *input = input_tensor(r, 4, xs);
    pb_input(pb, "x", *input, NULL);

    Seq s = {pb, 0};
    ValName x, y;
    snprintf(x, sizeof x, "%s", pb_ph(pb, "x"));
    pb_at(pb, CNN_PY, 41, "forward", "x = self.stem(x)");
    pb_at_inner(pb, CNN_PY, 12, "forward", "return torch.relu(self.bn(self.conv(x)))");
    cnn_conv_bn(&s, "stem.conv", "stem.bn", x, y);
    pb_module(pb, "stem", "bench.models.cnn.ConvBN");
    emit(&s, "aten.relu.default", "relu", F("self=%%%s", y), x);
    for (int st = 0; st < CNN_STAGES; st++) {
        if (st > 0) {
            pb_at(pb, CNN_PY, 42 + 2 * st, "forward", F("x = self.layer%d.down(x)", st + 1));
            pb_at_inner(pb, CNN_PY, 18, "forward", "return self.pool(torch.relu(self.bn(self.conv(x))))");
            cnn_conv_bn(&s, F("layer%d.down.conv", st + 1), F("layer%d.down.bn", st + 1), x, y);
            pb_module(pb, F("layer%d.down", st + 1), "bench.models.cnn.Down");
            emit(&s, "aten.relu.default", "relu", F("self=%%%s", y), y);
            pb_module(pb, F("layer%d.down.pool", st + 1), "torch.nn.modules.pooling.MaxPool2d");
            emit(&s, "aten.max_pool2d.default", "max_pool2d", F("self=%%%s kernel_size=[2, 2] stride=[2, 2]", y), x);
        }
        for (int b = 0; b < BENCH_CNN_BLOCKS; b++) {
            const char *blk = F("layer%d.%d", st + 1, b);
            ValName h, block;
            snprintf(block, sizeof block, "%s", blk);
            pb_at(pb, CNN_PY, 43 + 2 * st, "forward", F("x = self.layer%d(x)", st + 1));
            pb_at_inner(pb, CNN_PY, 28, "forward", "h = torch.relu(self.bn1(self.conv1(x)))");
            cnn_conv_bn(&s, F("%s.conv1", block), F("%s.bn1", block), x, y);
            pb_module(pb, block, CNN_BLOCK);
            emit(&s, "aten.relu.default", "relu", F("self=%%%s", y), h);
            pb_at(pb, CNN_PY, 43 + 2 * st, "forward", F("x = self.layer%d(x)", st + 1));
            pb_at_inner(pb, CNN_PY, 29, "forward", "return torch.relu(x + self.bn2(self.conv2(h)))");
            cnn_conv_bn(&s, F("%s.conv2", block), F("%s.bn2", block), h, y);
            pb_module(pb, block, CNN_BLOCK);
            emit(&s, "aten.add.Tensor", "add", F("self=%%%s other=%%%s", x, y), y);
            emit(&s, "aten.relu.default", "relu", F("self=%%%s", y), x);
        }
    }
    pb_at(pb, CNN_PY, 48, "forward", "return self.fc(x.mean(dim=(-1, -2)))");
    pb_module(pb, "", CNN_CLASS);
    emit(&s, "aten.mean.dim", "mean", F("self=%%%s dim=[-1, -2]", x), y);
    pb_module(pb, "fc", "torch.nn.modules.linear.Linear");
    emit(&s, "aten.linear.default", "linear",
         F("input=%%%s weight=%%%s bias=%%%s", y, pb_ph(pb, "fc.weight"), pb_ph(pb, "fc.bias")), x);
    pb_output(pb, x);
    return pb;
}

/* ---- transformer ---- */

#define TF_PY "bench/models/transformer.py"
#define TF_CLASS "bench.models.transformer.Encoder"
#define TF_LAYER "bench.models.transformer.EncoderLayer"
#define TF_SEQ 64
#define TF_DIM 64
#define TF_HEADS 4
#define TF_FF 256

static void tf_linear(Seq *s, const char *fqn_text, const char *in, ValName out)
{
    ValName fqn;
    snprintf(fqn, sizeof fqn, "%s", fqn_text);
    pb_module(s->pb, fqn, "torch.nn.modules.linear.Linear");
    emit(s, "aten.linear.default", "linear",
         F("input=%%%s weight=%%%s bias=%%%s", in, ph(s, F("%s.weight", fqn)), ph(s, F("%s.bias", fqn))), out);
}

static void tf_layer_norm(Seq *s, const char *fqn_text, const char *in, ValName out)
{
    ValName fqn;
    snprintf(fqn, sizeof fqn, "%s", fqn_text);
    pb_module(s->pb, fqn, "torch.nn.modules.normalization.LayerNorm");
    emit(s, "aten.layer_norm.default", "layer_norm",
         F("input=%%%s normalized_shape=[%d] weight=%%%s bias=%%%s", in, TF_DIM, ph(s, F("%s.weight", fqn)),
           ph(s, F("%s.bias", fqn))),
         out);
}

/* One projection to heads: linear, view [B, S, H, D/H], transpose(1, 2). */
static void tf_heads(Seq *s, int batch, const char *layer, const char *proj, const char *in, ValName out)
{
    ValName l, v;
    tf_linear(s, F("%s.attn.%s", layer, proj), in, l);
    pb_module(s->pb, F("%s.attn", layer), "bench.models.transformer.Attention");
    emit(s, "aten.view.default", "view",
         F("self=%%%s size=[%d, %d, %d, %d]", l, batch, TF_SEQ, TF_HEADS, TF_DIM / TF_HEADS), v);
    emit(s, "aten.transpose.int", "transpose", F("self=%%%s dim0=1 dim1=2", v), out);
}

ProgBuilder *bench_transformer_model_batch(int batch, PbRng *r, Tensor **input)
{
    static const char *const projs[4] = {"q", "k", "v", "out"};
    ProgBuilder *pb = pb_new(TF_CLASS, false);
    for (int l = 0; l < BENCH_TF_LAYERS; l++) {
        add_norm_params(pb, r, F("layers.%d.norm1", l), TF_DIM);
        for (int p = 0; p < 4; p++)
            add_linear_params(pb, r, F("layers.%d.attn.%s", l, projs[p]), TF_DIM, TF_DIM);
        add_norm_params(pb, r, F("layers.%d.norm2", l), TF_DIM);
        add_linear_params(pb, r, F("layers.%d.ff1", l), TF_DIM, TF_FF);
        add_linear_params(pb, r, F("layers.%d.ff2", l), TF_FF, TF_DIM);
    }
    add_norm_params(pb, r, "norm", TF_DIM);
    int64_t xs[3] = {batch, TF_SEQ, TF_DIM};
    *input = input_tensor(r, 3, xs);
    pb_input(pb, "x", *input, NULL);

    Seq s = {pb, 0};
    ValName x, y, q, k, v, kt, a;
    snprintf(x, sizeof x, "%s", pb_ph(pb, "x"));
    /* 1 / sqrt(head width) */
    const char *scale = F("%.17g", inv_sqrt(TF_DIM / TF_HEADS));
    char scale_text[32];
    snprintf(scale_text, sizeof scale_text, "%s", scale);
    for (int l = 0; l < BENCH_TF_LAYERS; l++) {
        ValName layer;
        snprintf(layer, sizeof layer, "layers.%d", l);
        pb_at(pb, TF_PY, 60, "forward", "x = layer(x)");
        pb_at_inner(pb, TF_PY, 41, "forward", "x = x + self.attn(self.norm1(x))");
        tf_layer_norm(&s, F("%s.norm1", layer), x, y);
        pb_at_inner(pb, TF_PY, 24, "forward", "q, k, v = (self.heads(p(x)) for p in (self.q, self.k, self.v))");
        tf_heads(&s, batch, layer, "q", y, q);
        tf_heads(&s, batch, layer, "k", y, k);
        tf_heads(&s, batch, layer, "v", y, v);
        pb_at(pb, TF_PY, 60, "forward", "x = layer(x)");
        pb_at_inner(pb, TF_PY, 41, "forward", "x = x + self.attn(self.norm1(x))");
        pb_at_inner(pb, TF_PY, 25, "forward", "a = torch.softmax(q @ k.transpose(-2, -1) * self.scale, dim=-1)");
        pb_module(pb, F("%s.attn", layer), "bench.models.transformer.Attention");
        emit(&s, "aten.transpose.int", "transpose", F("self=%%%s dim0=-2 dim1=-1", k), kt);
        emit(&s, "aten.matmul.default", "matmul", F("self=%%%s other=%%%s", q, kt), a);
        emit(&s, "aten.mul.Tensor", "mul", F("self=%%%s other=%s", a, scale_text), a);
        emit(&s, "aten.softmax.int", "softmax", F("self=%%%s dim=-1", a), a);
        pb_at(pb, TF_PY, 60, "forward", "x = layer(x)");
        pb_at_inner(pb, TF_PY, 41, "forward", "x = x + self.attn(self.norm1(x))");
        pb_at_inner(pb, TF_PY, 26, "forward", "return self.out((a @ v).transpose(1, 2).reshape(x.shape))");
        emit(&s, "aten.matmul.default", "matmul", F("self=%%%s other=%%%s", a, v), a);
        emit(&s, "aten.transpose.int", "transpose", F("self=%%%s dim0=1 dim1=2", a), a);
        emit(&s, "aten.reshape.default", "reshape", F("self=%%%s shape=[%d, %d, %d]", a, batch, TF_SEQ, TF_DIM),
             a);
        tf_linear(&s, F("%s.attn.out", layer), a, y);
        pb_at(pb, TF_PY, 60, "forward", "x = layer(x)");
        pb_at_inner(pb, TF_PY, 41, "forward", "x = x + self.attn(self.norm1(x))");
        pb_module(pb, layer, TF_LAYER);
        emit(&s, "aten.add.Tensor", "add", F("self=%%%s other=%%%s", x, y), x);
        pb_at(pb, TF_PY, 60, "forward", "x = layer(x)");
        pb_at_inner(pb, TF_PY, 42, "forward", "return x + self.ff2(F.gelu(self.ff1(self.norm2(x))))");
        tf_layer_norm(&s, F("%s.norm2", layer), x, y);
        tf_linear(&s, F("%s.ff1", layer), y, y);
        pb_module(pb, layer, TF_LAYER);
        emit(&s, "aten.gelu.default", "gelu", F("self=%%%s", y), y);
        tf_linear(&s, F("%s.ff2", layer), y, y);
        pb_module(pb, layer, TF_LAYER);
        emit(&s, "aten.add.Tensor", "add", F("self=%%%s other=%%%s", x, y), x);
    }
    pb_at(pb, TF_PY, 61, "forward", "return self.norm(x)");
    tf_layer_norm(&s, "norm", x, y);
    pb_output(pb, y);
    return pb;
}

ProgBuilder *bench_cnn_model(PbRng *r, Tensor **input)
{
    return bench_cnn_model_batch(1, r, input);
}

ProgBuilder *bench_transformer_model(PbRng *r, Tensor **input)
{
    return bench_transformer_model_batch(2, r, input);
}

/* ---- GRU ---- */

#define GRU_PY "bench/models/gru.py"
#define GRU_CLASS "bench.models.gru.UnrolledGRU"
#define GRU_BATCH 16
#define GRU_IN 128
#define GRU_HIDDEN 256

ProgBuilder *bench_gru_model(PbRng *r, Tensor **input)
{
    ProgBuilder *pb = pb_new(GRU_CLASS, false);
    int64_t wi[2] = {3 * GRU_HIDDEN, GRU_IN}, wh[2] = {3 * GRU_HIDDEN, GRU_HIDDEN}, b3 = 3 * GRU_HIDDEN;
    add_param(pb, r, "cell.weight_ih", 2, wi, GRU_HIDDEN, 1.0);
    add_param(pb, r, "cell.weight_hh", 2, wh, GRU_HIDDEN, 1.0);
    add_param(pb, r, "cell.bias_ih", 1, &b3, GRU_HIDDEN, 1.0);
    add_param(pb, r, "cell.bias_hh", 1, &b3, GRU_HIDDEN, 1.0);
    int64_t hs[2] = {GRU_BATCH, GRU_HIDDEN};
    Tensor *h0 = pb_uniform(r, DT_F32, 2, hs, 0, 0);
    pb_buffer(pb, "h0", h0, true);
    tensor_unref(h0);
    int64_t xs[3] = {BENCH_GRU_STEPS, GRU_BATCH, GRU_IN};
    *input = input_tensor(r, 3, xs);
    pb_input(pb, "x", *input, NULL);

    Seq s = {pb, 0};
    ValName wit, wht, h, xt, gi, gh, t1, rg, zg, n;
    pb_at(pb, GRU_PY, 20, "forward", "h = self.h0");
    snprintf(h, sizeof h, "%s", pb_ph(pb, "h0"));
    pb_module(pb, "cell", "bench.models.gru.GRUCell");
    emit(&s, "aten.t.default", "t", F("self=%%%s", pb_ph(pb, "cell.weight_ih")), wit);
    emit(&s, "aten.t.default", "t", F("self=%%%s", pb_ph(pb, "cell.weight_hh")), wht);
    for (int step = 0; step < BENCH_GRU_STEPS; step++) {
        pb_at(pb, GRU_PY, 22, "forward", "h = self.cell(x[t], h)");
        pb_module(pb, "", GRU_CLASS);
        emit(&s, "aten.select.int", "select", F("self=%%%s dim=0 index=%d", pb_ph(pb, "x"), step), xt);
        pb_module(pb, "cell", "bench.models.gru.GRUCell");
        pb_at_inner(pb, GRU_PY, 10, "forward", "gi = F.linear(x, self.weight_ih, self.bias_ih).chunk(3, 1)");
        emit(&s, "aten.addmm.default", "addmm", F("self=%%%s mat1=%%%s mat2=%%%s", pb_ph(pb, "cell.bias_ih"), xt, wit),
             gi);
        int k0 = s.k++;
        pb_node(pb, "aten.split.Tensor", F("split_%d", k0), F("self=%%%s split_size=%d dim=1", gi, GRU_HIDDEN),
                F("[%%gi_r_%d, %%gi_z_%d, %%gi_n_%d]", k0, k0, k0));
        pb_at(pb, GRU_PY, 22, "forward", "h = self.cell(x[t], h)");
        pb_at_inner(pb, GRU_PY, 11, "forward", "gh = F.linear(h, self.weight_hh, self.bias_hh).chunk(3, 1)");
        emit(&s, "aten.addmm.default", "addmm", F("self=%%%s mat1=%%%s mat2=%%%s", pb_ph(pb, "cell.bias_hh"), h, wht),
             gh);
        int k1 = s.k++;
        pb_node(pb, "aten.split.Tensor", F("split_%d", k1), F("self=%%%s split_size=%d dim=1", gh, GRU_HIDDEN),
                F("[%%gh_r_%d, %%gh_z_%d, %%gh_n_%d]", k1, k1, k1));
        pb_at(pb, GRU_PY, 22, "forward", "h = self.cell(x[t], h)");
        pb_at_inner(pb, GRU_PY, 12, "forward", "r = torch.sigmoid(gi[0] + gh[0])");
        emit(&s, "aten.add.Tensor", "add", F("self=%%gi_r_%d other=%%gh_r_%d", k0, k1), t1);
        emit(&s, "aten.sigmoid.default", "sigmoid", F("self=%%%s", t1), rg);
        pb_at(pb, GRU_PY, 22, "forward", "h = self.cell(x[t], h)");
        pb_at_inner(pb, GRU_PY, 13, "forward", "z = torch.sigmoid(gi[1] + gh[1])");
        emit(&s, "aten.add.Tensor", "add", F("self=%%gi_z_%d other=%%gh_z_%d", k0, k1), t1);
        emit(&s, "aten.sigmoid.default", "sigmoid", F("self=%%%s", t1), zg);
        pb_at(pb, GRU_PY, 22, "forward", "h = self.cell(x[t], h)");
        pb_at_inner(pb, GRU_PY, 14, "forward", "n = torch.tanh(gi[2] + r * gh[2])");
        emit(&s, "aten.mul.Tensor", "mul", F("self=%%%s other=%%gh_n_%d", rg, k1), t1);
        emit(&s, "aten.add.Tensor", "add", F("self=%%gi_n_%d other=%%%s", k0, t1), t1);
        emit(&s, "aten.tanh.default", "tanh", F("self=%%%s", t1), n);
        pb_at(pb, GRU_PY, 22, "forward", "h = self.cell(x[t], h)");
        pb_at_inner(pb, GRU_PY, 15, "forward", "return n + z * (h - n)");
        emit(&s, "aten.sub.Tensor", "sub", F("self=%%%s other=%%%s", h, n), t1);
        emit(&s, "aten.mul.Tensor", "mul", F("self=%%%s other=%%%s", zg, t1), t1);
        emit(&s, "aten.add.Tensor", "add", F("self=%%%s other=%%%s", n, t1), h);
    }
    pb_output(pb, h);
    return pb;
}

/* ---- GPT-2 small ---- */

static void gpt_param(ProgBuilder *pb, PbRng *r, const char *fqn_text, int ndim, const int64_t *sizes, double b)
{
    Tensor *t = pb_uniform(r, DT_F32, ndim, sizes, -b, b);
    pb_param(pb, fqn_text, t);
    tensor_unref(t);
}

static void gpt_linear_params(ProgBuilder *pb, PbRng *r, const char *name_text, int64_t in, int64_t out)
{
    ValName name;
    snprintf(name, sizeof name, "%s", name_text);
    int64_t ws[2] = {out, in};
    gpt_param(pb, r, F("%s.weight", name), 2, ws, 0.02);
    gpt_param(pb, r, F("%s.bias", name), 1, &out, 0.02);
}

/* The names these helpers take may live in pb_fmt's ring, which their own
** pb_fmt calls overwrite: each copies them first. */
static void gpt_node(ProgBuilder *pb, const char *target, const char *out_text, const char *args)
{
    ValName out;
    snprintf(out, sizeof out, "%s", out_text);
    pb_node(pb, target, out, args, out);
}

/* target on in with the weight and bias of module fqn, the arguments
** extra (not a pb_fmt string; "" or ending in a space) between them: out. */
static void gpt_affine(ProgBuilder *pb, const char *target, const char *fqn_text, const char *in_text,
                       const char *out_text, const char *extra)
{
    ValName fqn, in, out;
    snprintf(fqn, sizeof fqn, "%s", fqn_text);
    snprintf(in, sizeof in, "%s", in_text);
    snprintf(out, sizeof out, "%s", out_text);
    gpt_node(pb, target, out,
             F("input=%%%s %sweight=%%%s bias=%%%s", in, extra, pb_ph(pb, F("%s.weight", fqn)),
               pb_ph(pb, F("%s.bias", fqn))));
}

static void gpt_linear(ProgBuilder *pb, const char *name, const char *in, const char *out)
{
    gpt_affine(pb, "aten.linear.default", name, in, out, "");
}

static void gpt_layer_norm(ProgBuilder *pb, const char *fqn, const char *in, const char *out)
{
    char extra[48];
    snprintf(extra, sizeof extra, "normalized_shape=[%d] ", BENCH_GPT_DIM);
    gpt_affine(pb, "aten.layer_norm.default", fqn, in, out, extra);
}

/* Causal self-attention of layer l on ln1 ([T, D]): qkv projection, per
** head q k^T / sqrt(64) plus the causal mask (0 / -inf, a constant),
** softmax, times v, heads back to [T, D] (a transposing copy), c_proj. */
static void gpt_attention(ProgBuilder *pb, int l, const char *ln1_text, const char *out_text)
{
    ValName ln1, out;
    snprintf(ln1, sizeof ln1, "%s", ln1_text);
    snprintf(out, sizeof out, "%s", out_text);
    const int T = BENCH_GPT_TOKENS, H = BENCH_GPT_HEADS, D = BENCH_GPT_DIM;
    gpt_linear(pb, F("h.%d.attn.c_attn", l), ln1, F("qkv_%d", l));
    static const char *const part[3] = {"q", "k", "v"};
    for (int p = 0; p < 3; p++) {
        gpt_node(pb, "aten.slice.Tensor", F("%s_%d", part[p], l),
                 F("self=%%qkv_%d dim=1 start=%d end=%d", l, p * D, (p + 1) * D));
        gpt_node(pb, "aten.view.default", F("%sh_%d", part[p], l),
                 F("self=%%%s_%d size=[%d, %d, %d]", part[p], l, T, H, D / H));
        gpt_node(pb, "aten.transpose.int", F("%st_%d", part[p], l), F("self=%%%sh_%d dim0=0 dim1=1", part[p], l));
    }
    gpt_node(pb, "aten.transpose.int", F("kT_%d", l), F("self=%%kt_%d dim0=-2 dim1=-1", l));
    gpt_node(pb, "aten.matmul.default", F("s_%d", l), F("self=%%qt_%d other=%%kT_%d", l, l));
    gpt_node(pb, "aten.mul.Tensor", F("ss_%d", l), F("self=%%s_%d other=%.17g", l, inv_sqrt(D / H)));
    gpt_node(pb, "aten.add.Tensor", F("sm_%d", l), F("self=%%ss_%d other=%%%s", l, pb_ph(pb, "causal_mask")));
    gpt_node(pb, "aten.softmax.int", F("a_%d", l), F("self=%%sm_%d dim=-1", l));
    gpt_node(pb, "aten.matmul.default", F("av_%d", l), F("self=%%a_%d other=%%vt_%d", l, l));
    gpt_node(pb, "aten.transpose.int", F("avt_%d", l), F("self=%%av_%d dim0=0 dim1=1", l));
    gpt_node(pb, "aten.reshape.default", F("y_%d", l), F("self=%%avt_%d shape=[%d, %d]", l, T, D));
    gpt_linear(pb, F("h.%d.attn.c_proj", l), F("y_%d", l), out);
}

ProgBuilder *bench_gpt2_model(PbRng *r, const char *cls)
{
    const int D = BENCH_GPT_DIM, T = BENCH_GPT_TOKENS;
    ProgBuilder *pb = pb_new(cls, false);
    int64_t wte[2] = {BENCH_GPT_VOCAB, D}, wpe[2] = {BENCH_GPT_CTX, D}, d = D;
    gpt_param(pb, r, "wte.weight", 2, wte, 0.02);
    gpt_param(pb, r, "wpe.weight", 2, wpe, 0.02);
    for (int l = 0; l < BENCH_GPT_LAYERS; l++) {
        gpt_param(pb, r, F("h.%d.ln_1.weight", l), 1, &d, 1.0);
        gpt_param(pb, r, F("h.%d.ln_1.bias", l), 1, &d, 0.02);
        gpt_linear_params(pb, r, F("h.%d.attn.c_attn", l), D, 3 * D);
        gpt_linear_params(pb, r, F("h.%d.attn.c_proj", l), D, D);
        gpt_param(pb, r, F("h.%d.ln_2.weight", l), 1, &d, 1.0);
        gpt_param(pb, r, F("h.%d.ln_2.bias", l), 1, &d, 0.02);
        gpt_linear_params(pb, r, F("h.%d.mlp.c_fc", l), D, 4 * D);
        gpt_linear_params(pb, r, F("h.%d.mlp.c_proj", l), 4 * D, D);
    }
    gpt_param(pb, r, "ln_f.weight", 1, &d, 1.0);
    gpt_param(pb, r, "ln_f.bias", 1, &d, 0.02);
    int64_t ms[2] = {T, T};
    EpError err = {0};
    Tensor *mask = tensor_zeros(DT_F32, 2, ms, &err);
    float *m = tensor_data(mask);
    for (int i = 0; i < T; i++)
        for (int j = i + 1; j < T; j++)
            m[(size_t)i * T + j] = -1.0f / 0.0f;
    pb_buffer(pb, "causal_mask", mask, false);
    tensor_unref(mask);
    int64_t ids_shape[1] = {T};
    Tensor *ids = pb_ints(r, DT_I64, 1, ids_shape, 0, BENCH_GPT_VOCAB);
    pb_input(pb, "ids", ids, NULL);
    tensor_unref(ids);

    gpt_node(pb, "aten.embedding.default", "tok", F("weight=%%%s indices=%%ids", pb_ph(pb, "wte.weight")));
    gpt_node(pb, "aten.arange.default", "pos", F("end=%d dtype=dtype:int64 device=device:cpu pin_memory=False", T));
    gpt_node(pb, "aten.embedding.default", "pemb", F("weight=%%%s indices=%%pos", pb_ph(pb, "wpe.weight")));
    gpt_node(pb, "aten.add.Tensor", "h", "self=%tok other=%pemb");
    ValName h = "h";
    for (int l = 0; l < BENCH_GPT_LAYERS; l++) {
        gpt_layer_norm(pb, F("h.%d.ln_1", l), h, F("ln1_%d", l));
        gpt_attention(pb, l, F("ln1_%d", l), F("att_%d", l));
        gpt_node(pb, "aten.add.Tensor", F("ha_%d", l), F("self=%%%s other=%%att_%d", h, l));
        snprintf(h, sizeof h, "ha_%d", l);
        gpt_layer_norm(pb, F("h.%d.ln_2", l), h, F("ln2_%d", l));
        gpt_linear(pb, F("h.%d.mlp.c_fc", l), F("ln2_%d", l), F("fc_%d", l));
        gpt_node(pb, "aten.gelu.default", F("gelu_%d", l), F("self=%%fc_%d approximate='tanh'", l));
        gpt_linear(pb, F("h.%d.mlp.c_proj", l), F("gelu_%d", l), F("mlp_%d", l));
        gpt_node(pb, "aten.add.Tensor", F("hb_%d", l), F("self=%%%s other=%%mlp_%d", h, l));
        snprintf(h, sizeof h, "hb_%d", l);
    }
    gpt_layer_norm(pb, "ln_f", h, "lnf");
    gpt_node(pb, "aten.linear.default", "logits", F("input=%%lnf weight=%%%s", pb_ph(pb, "wte.weight")));
    pb_output(pb, "logits");
    return pb;
}
