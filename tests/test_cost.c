/*
** test_cost.c -- profiler/cost: FLOPs and bytes of nodes built by hand and
** of the bundled examples run for real, against counts worked out by hand
** in the comments; and the machine's peaks (EPDBG_NO_PEAKS, the cache).
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profiler/cost.h"
#include "testutil.h"

/* ---- nodes and tensors by hand ------------------------------------------------ */

/* A float32 tensor from schema argument arg (NULL: an output) of ndim sizes. */
static CostTensor tn(const char *arg, int ndim, ...)
{
    CostTensor t = {.arg = arg, .dtype = DT_F32, .ndim = ndim};
    va_list ap;
    va_start(ap, ndim);
    for (int d = 0; d < ndim; d++)
        t.sizes[d] = va_arg(ap, int);
    va_end(ap);
    return t;
}

static NamedArg lit_bool(const char *name, bool b)
{
    NamedArg a = {.name = (char *)name, .kind = 2};
    a.arg.kind = ARG_BOOL;
    a.arg.lit = value_bool(b);
    return a;
}

/* A literal int[] argument; items points at caller storage of n Args. */
static NamedArg lit_ints(const char *name, Arg *items, int n, const int64_t *v)
{
    NamedArg a = {.name = (char *)name, .kind = 1};
    a.arg.kind = ARG_INTS;
    a.arg.n = n;
    a.arg.items = items;
    for (int i = 0; i < n; i++) {
        items[i] = (Arg){.kind = ARG_INT};
        items[i].lit = value_int(v[i]);
    }
    return a;
}

static NamedArg lit_str(const char *name, const char *s)
{
    NamedArg a = {.name = (char *)name, .kind = 1};
    a.arg.kind = ARG_STRING;
    a.arg.lit.kind = V_STR;
    a.arg.lit.s = s;
    return a;
}

static Node node(const char *target, NamedArg *args, int nargs)
{
    Node n = {.name = (char *)"n", .target = (char *)target, .ninputs = nargs, .inputs = args};
    return n;
}

static NodeCost cost_of(const char *target, const CostTensor *in, int nin, const CostTensor *out, int nout)
{
    Node n = node(target, NULL, 0);
    return cost_node(&n, in, nin, out, nout);
}

static void expect_flops(NodeCost c, double flops, const char *what)
{
    ck_assert_msg(c.known, "%s: no rule", what);
    ck_assert_msg(c.flops == flops, "%s: %.0f FLOPs, expected %.0f", what, c.flops, flops);
}

/* ---- matrix products ------------------------------------------------------------ */

START_TEST(test_mm)
{
    /* [4,16] x [16,32]: 2*4*16*32 = 4096; bytes (64 + 512 + 128) * 4 */
    CostTensor in[] = {tn("self", 2, 4, 16), tn("mat2", 2, 16, 32)}, out = tn(NULL, 2, 4, 32);
    NodeCost c = cost_of("torch.ops.aten.mm.default", in, 2, &out, 1);
    expect_flops(c, 4096, "mm");
    ck_assert(c.bytes == 2816);
    /* the same op named without prefix, without overload, with .out */
    expect_flops(cost_of("aten.mm", in, 2, &out, 1), 4096, "aten.mm");
    expect_flops(cost_of("aten.mm.out", in, 2, &out, 1), 4096, "aten.mm.out");
}
END_TEST

START_TEST(test_addmm_linear_bmm)
{
    /* addmm: bias [32] + [4,16] x [16,32]: 4096 + 128 bias adds */
    CostTensor am[] = {tn("self", 1, 32), tn("mat1", 2, 4, 16), tn("mat2", 2, 16, 32)}, amo = tn(NULL, 2, 4, 32);
    expect_flops(cost_of("aten.addmm.default", am, 3, &amo, 1), 4224, "addmm");

    /* linear: input [2,3,16], weight [32,16] -> [2,3,32]: 2*6*32*16 = 6144,
    ** + 192 with the bias */
    CostTensor li[] = {tn("input", 3, 2, 3, 16), tn("weight", 2, 32, 16), tn("bias", 1, 32)};
    CostTensor lo = tn(NULL, 3, 2, 3, 32);
    expect_flops(cost_of("aten.linear.default", li, 3, &lo, 1), 6336, "linear with bias");
    expect_flops(cost_of("aten.linear.default", li, 2, &lo, 1), 6144, "linear without bias");

    /* bmm: 5 x ([4,16] x [16,32]) = 5 * 4096 */
    CostTensor bm[] = {tn("self", 3, 5, 4, 16), tn("mat2", 3, 5, 16, 32)}, bmo = tn(NULL, 3, 5, 4, 32);
    expect_flops(cost_of("aten.bmm.default", bm, 2, &bmo, 1), 20480, "bmm");

    /* baddbmm: that + 640 bias adds */
    CostTensor bb[] = {tn("self", 3, 5, 4, 32), tn("batch1", 3, 5, 4, 16), tn("batch2", 3, 5, 16, 32)};
    expect_flops(cost_of("aten.baddbmm.default", bb, 3, &bmo, 1), 21120, "baddbmm");

    /* addbmm: the 5 products summed into one [4,32]: 20480 + 128 */
    CostTensor abo = tn(NULL, 2, 4, 32);
    CostTensor ab[] = {tn("self", 2, 4, 32), tn("batch1", 3, 5, 4, 16), tn("batch2", 3, 5, 16, 32)};
    expect_flops(cost_of("aten.addbmm.default", ab, 3, &abo, 1), 20608, "addbmm");

    /* matmul broadcasting [7,4,16] x [16,32] -> [7,4,32]: 2*7*4*32*16 */
    CostTensor mm[] = {tn("self", 3, 7, 4, 16), tn("other", 2, 16, 32)}, mmo = tn(NULL, 3, 7, 4, 32);
    expect_flops(cost_of("aten.matmul.default", mm, 2, &mmo, 1), 28672, "matmul");

    /* matmul of two vectors [16].[16] -> []: 2*16 */
    CostTensor dv[] = {tn("self", 1, 16), tn("other", 1, 16)}, dvo = tn(NULL, 0);
    expect_flops(cost_of("aten.matmul.default", dv, 2, &dvo, 1), 32, "vector matmul");

    /* einsum "bij,bjk->bik" is bmm: [2,3,4] x [2,4,5]: 2*2*3*5*4 */
    CostTensor es[] = {tn("tensors", 3, 2, 3, 4), tn("tensors", 3, 2, 4, 5)}, eso = tn(NULL, 3, 2, 3, 5);
    NamedArg eq[] = {lit_str("equation", "bij,bjk->bik")};
    Node en = node("aten.einsum.default", eq, 1);
    expect_flops(cost_node(&en, es, 2, &eso, 1), 240, "einsum");
}
END_TEST

/* ---- convolution ---------------------------------------------------------------- */

START_TEST(test_conv)
{
    /* conv2d input [2,4,9,9], weight [6,2,3,3] (groups 2: 2 input channels
    ** per group), bias [6], stride 2, padding 1, dilation 2:
    ** out H = W = floor((9 + 2*1 - 2*(3-1) - 1) / 2) + 1 = 4, so [2,6,4,4]
    ** = 192 elements, each 2 * (4/2) * 3*3 = 36 FLOPs: 6912, + 192 bias */
    Arg it[4][2];
    const int64_t two[] = {2, 2}, one[] = {1, 1};
    NamedArg args[] = {lit_ints("stride", it[0], 2, two), lit_ints("padding", it[1], 2, one),
                       lit_ints("dilation", it[2], 2, two)};
    Node n = node("aten.conv2d.default", args, 3);
    CostTensor in[] = {tn("input", 4, 2, 4, 9, 9), tn("weight", 4, 6, 2, 3, 3), tn("bias", 1, 6)};
    CostTensor out = tn(NULL, 4, 2, 6, 4, 4);
    NodeCost c = cost_node(&n, in, 3, &out, 1);
    expect_flops(c, 7104, "grouped strided dilated conv2d");
    /* bytes: (648 + 108 + 6 + 192) floats */
    ck_assert(c.bytes == 954 * 4);

    /* depthwise: input [1,8,10,10], weight [8,1,3,3], groups 8, padding 1:
    ** out [1,8,10,10] = 800 elements, each 2 * 1 * 9 */
    CostTensor dw[] = {tn("input", 4, 1, 8, 10, 10), tn("weight", 4, 8, 1, 3, 3)};
    CostTensor dwo = tn(NULL, 4, 1, 8, 10, 10);
    expect_flops(cost_of("aten.conv2d.default", dw, 2, &dwo, 1), 14400, "depthwise conv2d");

    /* conv1d: input [2,3,20], weight [5,3,4]: out L = 17, [2,5,17] = 170
    ** elements, each 2 * 3 * 4 */
    CostTensor c1[] = {tn("input", 3, 2, 3, 20), tn("weight", 3, 5, 3, 4)}, c1o = tn(NULL, 3, 2, 5, 17);
    expect_flops(cost_of("aten.conv1d.default", c1, 2, &c1o, 1), 4080, "conv1d");

    /* convolution with transposed=True: input [1,4,5,5], weight [4,3,3,3]
    ** (4 in, 3 out), stride 2: out (5-1)*2 + 3 = 11; per input element
    ** 2 * 3 * 9: 100 * 54 */
    NamedArg tr[] = {lit_bool("transposed", true)};
    Node tnode = node("aten.convolution.default", tr, 1);
    CostTensor ti[] = {tn("input", 4, 1, 4, 5, 5), tn("weight", 4, 4, 3, 3, 3)}, to = tn(NULL, 4, 1, 3, 11, 11);
    expect_flops(cost_node(&tnode, ti, 2, &to, 1), 5400, "transposed convolution");
    expect_flops(cost_of("aten.conv_transpose2d.input", ti, 2, &to, 1), 5400, "conv_transpose2d");

    /* the same op with transposed=False: weight [3,4,3,3], out [1,3,3,3]:
    ** 27 elements, each 2 * 4 * 9 */
    tr[0] = lit_bool("transposed", false);
    CostTensor fi[] = {tn("input", 4, 1, 4, 5, 5), tn("weight", 4, 3, 4, 3, 3)}, fo = tn(NULL, 4, 1, 3, 3, 3);
    expect_flops(cost_node(&tnode, fi, 2, &fo, 1), 1944, "convolution");
}
END_TEST

/* ---- attention, norms, softmax, elementwise, reductions, pooling ---------------------- */

START_TEST(test_other_families)
{
    /* attention: q [2,4,8,16], k and v [2,4,10,16]: 8 heads in all, L 8,
    ** S 10, E 16: 8 * 8*10 * (2*16 + 2*16 + 5) */
    CostTensor at[] = {tn("query", 4, 2, 4, 8, 16), tn("key", 4, 2, 4, 10, 16), tn("value", 4, 2, 4, 10, 16)};
    CostTensor ato = tn(NULL, 4, 2, 4, 8, 16);
    expect_flops(cost_of("aten.scaled_dot_product_attention.default", at, 3, &ato, 1), 44160, "sdpa");

    /* layer_norm [4,10]: 8 per element */
    CostTensor ln[] = {tn("input", 2, 4, 10), tn("weight", 1, 10), tn("bias", 1, 10)};
    CostTensor lno[] = {tn(NULL, 2, 4, 10), tn(NULL, 2, 4, 1), tn(NULL, 2, 4, 1)};
    expect_flops(cost_of("aten.layer_norm.default", ln, 3, lno, 1), 320, "layer_norm");
    expect_flops(cost_of("aten.native_layer_norm.default", ln, 3, lno, 3), 320, "native_layer_norm");
    /* batch_norm in eval (training=False) only applies the statistics: 4 */
    NamedArg ev[] = {lit_bool("training", false)};
    Node bn = node("aten.batch_norm.default", ev, 1);
    expect_flops(cost_node(&bn, ln, 1, lno, 1), 160, "batch_norm eval");

    /* dropout: 1 per element when training, an alias (0, 0) in eval */
    NamedArg tr[] = {lit_bool("train", true)};
    Node dn = node("aten.dropout.default", tr, 1);
    CostTensor di = tn("input", 2, 3, 5), dout = tn(NULL, 2, 3, 5);
    expect_flops(cost_node(&dn, &di, 1, &dout, 1), 15, "dropout train");
    tr[0] = lit_bool("train", false);
    NodeCost dc = cost_node(&dn, &di, 1, &dout, 1);
    ck_assert(dc.known && dc.flops == 0 && dc.bytes == 0);

    /* relu [3,5]: 15, also in place */
    CostTensor r = tn("self", 2, 3, 5), ro = tn(NULL, 2, 3, 5);
    expect_flops(cost_of("aten.relu.default", &r, 1, &ro, 1), 15, "relu");
    expect_flops(cost_of("aten.relu_.default", &r, 1, &ro, 1), 15, "relu_");

    /* float32 add [8,8] + [8,8] -> [8,8]: 64 FLOPs, 3 * 64 * 4 = 768 bytes */
    CostTensor ad[] = {tn("self", 2, 8, 8), tn("other", 2, 8, 8)}, ado = tn(NULL, 2, 8, 8);
    NodeCost c = cost_of("aten.add.Tensor", ad, 2, &ado, 1);
    expect_flops(c, 64, "add");
    ck_assert(c.bytes == 768);

    /* softmax [4,10]: 5 per element; sum over dim 1 of [4,10]: 1 per input */
    CostTensor sm = tn("self", 2, 4, 10), smo = tn(NULL, 2, 4, 10), so = tn(NULL, 1, 4);
    expect_flops(cost_of("aten._softmax.default", &sm, 1, &smo, 1), 200, "softmax");
    expect_flops(cost_of("aten.sum.dim_IntList", &sm, 1, &so, 1), 40, "sum");

    /* max_pool2d of [1,2,8,8], kernel [2,2] -> [1,2,4,4]: 32 * 4; a
    ** kernel given as one int (3) stands for 3x3 */
    Arg k[2];
    const int64_t k22[] = {2, 2}, k3[] = {3};
    NamedArg ks[] = {lit_ints("kernel_size", k, 2, k22)};
    Node mp = node("aten.max_pool2d.default", ks, 1);
    CostTensor pi = tn("self", 4, 1, 2, 8, 8), po = tn(NULL, 4, 1, 2, 4, 4);
    expect_flops(cost_node(&mp, &pi, 1, &po, 1), 128, "max_pool2d");
    ks[0] = lit_ints("kernel_size", k, 1, k3);
    expect_flops(cost_node(&mp, &pi, 1, &po, 1), 288, "max_pool2d kernel 3");

    /* embedding: no FLOPs, bytes counted (weight [10,4] + indices [3] i64 + out [3,4]) */
    CostTensor em[] = {tn("weight", 2, 10, 4), tn("indices", 1, 3)}, emo = tn(NULL, 2, 3, 4);
    em[1].dtype = DT_I64;
    c = cost_of("aten.embedding.default", em, 2, &emo, 1);
    expect_flops(c, 0, "embedding");
    ck_assert(c.bytes == 40 * 4 + 3 * 8 + 12 * 4);
}
END_TEST

START_TEST(test_views_and_unknown)
{
    /* a view: 0 FLOPs, 0 bytes, but a known rule */
    CostTensor v = tn("self", 2, 8, 8), vo = tn(NULL, 1, 64);
    NodeCost c = cost_of("torch.ops.aten.view.default", &v, 1, &vo, 1);
    ck_assert(c.known && c.flops == 0 && c.bytes == 0);
    const char *meta[] = {"aten.permute.default", "aten.t.default", "aten.unsqueeze.default",
                          "aten.sym_size.int", "_operator.getitem", "aten._assert_scalar.default"};
    for (size_t i = 0; i < sizeof meta / sizeof meta[0]; i++) {
        c = cost_of(meta[i], &v, 1, &vo, 1);
        ck_assert_msg(c.known && c.flops == 0 && c.bytes == 0, "%s", meta[i]);
    }
    /* view_copy materializes: bytes, no FLOPs */
    c = cost_of("aten.view_copy.default", &v, 1, &vo, 1);
    ck_assert(c.known && c.flops == 0 && c.bytes == 512);
    /* an op with no rule (sorting) and a higher-order op: bytes only */
    c = cost_of("aten.sort.default", &v, 1, &vo, 1);
    ck_assert(!c.known && c.flops == 0 && c.bytes == 512);
    c = cost_of("torch.ops.higher_order.cond", &v, 1, NULL, 0);
    ck_assert(!c.known && c.bytes == 256);
    /* a GEMM missing its operand has no count rather than a wrong one */
    c = cost_of("aten.mm.default", NULL, 0, &vo, 1);
    ck_assert(!c.known && c.flops == 0);
    /* a shape of impossible rank: nothing counted, no crash */
    CostTensor bad = v;
    bad.ndim = EP_MAX_DIMS + 1;
    c = cost_of("aten.relu.default", &bad, 1, &vo, 1);
    ck_assert(!c.known && c.flops == 0 && c.bytes == 0);
    /* in-place forms: t_ as t, a dunder as itself */
    ck_assert(cost_of("aten.t_.default", &v, 1, &v, 1).bytes == 0);
    ck_assert(cost_of("aten.__iand__.Tensor", &v, 1, &v, 1).flops == 64);
}
END_TEST

/* Every operator epdbg runs has a rule, but for those listed: sorting and
** searching (comparisons, no rule), embedding_bag, and the families whose
** rule needs its named operands (given only a "self" here).  A misspelt
** name in the rule table shows up as an op missing from it. */
START_TEST(test_every_op_has_a_rule)
{
    static const char *const without[] = {
        "sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian", "mode", "searchsorted",
        "bucketize", "_unique", "_unique2", "unique_dim", "unique_consecutive", "unique_dim_consecutive",
        "embedding_bag", "_embedding_bag", "_embedding_bag_forward_only",
        /* need operands other than self, or literal arguments */
        "addmm", "addmm_", "baddbmm", "baddbmm_", "addbmm", "addbmm_", "addmv", "addmv_", "linear", "einsum",
        "tensordot", "convolution", "_convolution", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
        "conv_transpose2d", "conv_transpose3d", "max_pool1d", "max_pool1d_with_indices", "max_pool2d",
        "max_pool2d_with_indices", "max_pool3d", "max_pool3d_with_indices", "avg_pool1d", "avg_pool2d",
        "avg_pool3d", "scaled_dot_product_attention", "_scaled_dot_product_attention_math",
        "_scaled_dot_product_flash_attention_for_cpu", "_scaled_dot_product_efficient_attention"};
    CostTensor t = tn("self", 1, 4); /* op_get's targets: check_main ran ops_init */
    for (int id = 0; id < OP_COUNT; id++) {
        const char *target = op_get((OpId)id)->target;
        if (cost_of(target, &t, 1, &t, 1).known)
            continue;
        const char *name = strchr(target, '.') + 1;
        size_t len = strcspn(name, ".");
        bool listed = false;
        for (size_t k = 0; k < sizeof without / sizeof without[0] && !listed; k++)
            listed = strlen(without[k]) == len && strncmp(without[k], name, len) == 0;
        ck_assert_msg(listed, "%s has no cost rule", target);
    }
}
END_TEST

/* ---- the examples, run ---------------------------------------------------------- */

/* FLOPs of the whole program after a run with every value kept: each node's
** tensors read back as the profiler's recorder does.  *unknown counts the
** nodes without a rule. */
static double program_flops(const char *path, int *unknown)
{
    EpError err = {0};
    Model *m;
    ck_assert_msg(model_open(path, NULL, &m, &err) == EP_OK, "%s: %s", path, err.msg);
    InterpOptions opt = INTERP_OPTIONS_DEFAULT;
    opt.keep_values = true;
    Interp *ip = interp_new(m, &opt, &err);
    ck_assert_msg(ip && interp_bind_sample_inputs(ip, &err) == EP_OK && interp_run(ip, &err) == EP_OK, "%s: %s",
                  path, err.msg);
    double total = 0;
    *unknown = 0;
    for (int i = 0; i < interp_num_nodes(ip); i++) {
        CostTensor in[16], out[8];
        int nin = 0, nout = 0;
        for (int k = 0; k < interp_node_num_inputs(ip, i) && nin < 16; k++) {
            const char *arg;
            const Value *v = interp_value(ip, interp_node_input_name(ip, i, k, &arg));
            if (v && v->kind == V_TENSOR) {
                in[nin] = (CostTensor){.arg = arg, .dtype = v->t->dtype, .ndim = v->t->ndim};
                memcpy(in[nin++].sizes, v->t->sizes, sizeof v->t->sizes);
            }
        }
        for (int k = 0; k < interp_node_num_outputs(ip, i) && nout < 8; k++) {
            const Value *v = interp_value(ip, interp_node_output_name(ip, i, k));
            if (v && v->kind == V_TENSOR) {
                out[nout] = (CostTensor){.dtype = v->t->dtype, .ndim = v->t->ndim};
                memcpy(out[nout++].sizes, v->t->sizes, sizeof v->t->sizes);
            }
        }
        NodeCost c = cost_node(interp_node(ip, i), in, nin, out, nout);
        total += c.flops;
        *unknown += !c.known;
    }
    interp_free(ip);
    model_free(m);
    return total;
}

START_TEST(test_examples)
{
    /* mlp, batch 4 (examples/src/mlp.py), per row: fc1 2*32*16 + 32,
    ** relu 32, layer_norm 8*32, dropout (eval: an alias) 0, fc2 2*32*32 +
    ** 32, gelu 32, mean over 16: 16, add 32, head 2*4*32 + 4, softmax 5*4:
    ** 3784 */
    int unknown;
    double f = program_flops("examples/mlp.pt2", &unknown);
    ck_assert_int_eq(unknown, 0);
    ck_assert_msg(f == 4 * 3784.0, "mlp: %.0f", f);

    /* cnn, batch 2 (examples/src/cnn.py), per image: conv1 [8,16,16] = 2048
    ** outputs * (2*3*9 + 1), batch_norm eval 4*2048, relu 2048, max_pool 2x2
    ** of 512 outputs 4*512, conv2 [16,8,8] = 1024 * (2*8*9 + 1), relu 1024,
    ** adaptive avg pool 1024, flatten 0, fc 2*10*16 + 10, log_softmax 5*10:
    ** 275836 */
    f = program_flops("examples/cnn.pt2", &unknown);
    ck_assert_int_eq(unknown, 0);
    ck_assert_msg(f == 2 * 275836.0, "cnn: %.0f", f);
}
END_TEST

/* ---- machine peaks ---------------------------------------------------------------- */

/* The environment the peaks tests change, put back afterwards (a run
** without fork shares it with the suites that follow). */
typedef struct SavedEnv {
    char *no_peaks, *cache_home;
} SavedEnv;

static char *dup_env(const char *name)
{
    const char *v = getenv(name);
    return v ? ep_xstrdup(v) : NULL;
}

static SavedEnv env_save(void)
{
    return (SavedEnv){dup_env("EPDBG_NO_PEAKS"), dup_env("XDG_CACHE_HOME")};
}

static void env_put(const char *name, char *value)
{
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
    free(value);
}

static void env_restore(SavedEnv *e)
{
    env_put("EPDBG_NO_PEAKS", e->no_peaks);
    env_put("XDG_CACHE_HOME", e->cache_home);
}

START_TEST(test_peaks_disabled)
{
    SavedEnv saved = env_save();
    char *dir = test_tmpdir();
    setenv("XDG_CACHE_HOME", dir, 1);
    setenv("EPDBG_NO_PEAKS", "1", 1);
    MachinePeaks p;
    machine_peaks(1, &p);
    ck_assert(p.gflops == 0 && p.gbps == 0 && !p.cached);
    /* nothing measured, nothing written */
    char path[512];
    snprintf(path, sizeof path, "%s/epdbg", dir);
    ck_assert_int_ne(access(path, F_OK), 0);
    rmdir(dir);
    free(dir);
    env_restore(&saved);
}
END_TEST

static char *slurp_file(const char *path)
{
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "%s", path);
    static char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* One measurement serves all: a cache file with corrupt lines and another
** machine's valid line is there first; the call measures (the corrupt
** lines do not count), rewrites the file without them but with the other
** line and its own; a second call reads the values back. */
START_TEST(test_peaks_cache)
{
    char *dir = test_tmpdir();
    char sub[512], path[600];
    snprintf(sub, sizeof sub, "%s/epdbg", dir);
    snprintf(path, sizeof path, "%s/machine", sub);
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    FILE *f = fopen(path, "w");
    fputs("garbage\nno numbers\there\t\n\t5\t6\nneg|x|1\t-3\t4\nother cpu|haswell|8\t123.5\t45.25\n", f);
    fclose(f);
    SavedEnv saved = env_save();
    setenv("XDG_CACHE_HOME", dir, 1);
    unsetenv("EPDBG_NO_PEAKS");

    MachinePeaks a, b;
    machine_peaks(1, &a);
    ck_assert(!a.cached);
    ck_assert_msg(a.gflops > 0 && a.gbps > 0, "%g GFLOP/s %g GB/s", a.gflops, a.gbps);
    ck_assert(a.cpu[0] != '\0');

    const char *text = slurp_file(path);
    ck_assert_msg(strstr(text, "garbage") == NULL && strstr(text, "neg|x|1") == NULL, "%s", text);
    ck_assert_msg(strstr(text, "other cpu|haswell|8\t123.5\t45.25\n") != NULL, "%s", text);
    char key[200];
    snprintf(key, sizeof key, "%s|", a.cpu);
    ck_assert_msg(strstr(text, key) != NULL, "%s", text);

    machine_peaks(1, &b);
    ck_assert(b.cached);
    ck_assert(b.gflops == a.gflops && b.gbps == a.gbps);
    ck_assert_str_eq(b.cpu, a.cpu);

    unlink(path);
    rmdir(sub);
    rmdir(dir);
    free(dir);
    env_restore(&saved);
}
END_TEST

Suite *suite_cost(void)
{
    Suite *s = suite_create("cost");
    TCase *tc = tcase_create("flops");
    tcase_add_test(tc, test_mm);
    tcase_add_test(tc, test_addmm_linear_bmm);
    tcase_add_test(tc, test_conv);
    tcase_add_test(tc, test_other_families);
    tcase_add_test(tc, test_views_and_unknown);
    tcase_add_test(tc, test_every_op_has_a_rule);
    tcase_add_test(tc, test_examples);
    suite_add_tcase(s, tc);
    tc = tcase_create("peaks");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_peaks_disabled);
    tcase_add_test(tc, test_peaks_cache);
    suite_add_tcase(s, tc);
    return s;
}
