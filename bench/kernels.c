/*
** kernels.c -- the kernel table of issue 13: each row is one ATen node at
** the shapes, timed in epdbg and in PyTorch side by side, at one
** thread and at all cores; then rows of other ops models use, at the same
** sizes (the rows after the list).
**
**   build/release/bench/kernels [ROW ...]
**
** epdbg's side is what a user's node costs: a one-node program written by
** the generator (examples/gen), opened, bound and run by the interpreter,
** so the time covers dispatch, the kernel and the output's allocation.
** PyTorch's side is the same call through torch.ops.aten in one Python
** process (bench/kernels_torch.py under /usr/bin/python3, or $EPDBG_PYTHON)
** that stays up for the whole table: each row is measured in epdbg and then
** in PyTorch before the next row, one thread count after the other, so load
** from elsewhere on the machine hits both columns alike.  A time is the
** minimum over rounds of (round time / calls), each round at least 20 ms.
** Without PyTorch the table says so and shows epdbg's column only.
**
** ROW arguments keep only the rows whose name starts with one of them.
*/
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/benchutil.h"
#include "examples/gen/progbuild.h"
#include "interp/interp.h"
#include "interp/parallel.h"

/* One row: the node (target, arguments in the generator's notation,
** outputs), its inputs as "name:dtype:AxBxC[:hi]" (float32 uniform in
** [-1, 1]; int64 in [0, hi)), and the same call in Python over tensors of
** those names. */
typedef struct Row {
    const char *name, *shape;
    const char *target, *args, *outs;
    const char *inputs;
    const char *torch;
} Row;

#define M1 "1048576"
static const Row ROWS[] = {
    {"add", "1M f32", "aten.add.Tensor", "self=%x other=%y", "out", "x:f32:" M1 " y:f32:" M1,
     "torch.ops.aten.add.Tensor(x, y)"},
    {"mul", "1M f32", "aten.mul.Tensor", "self=%x other=%y", "out", "x:f32:" M1 " y:f32:" M1,
     "torch.ops.aten.mul.Tensor(x, y)"},
    {"relu", "1M f32", "aten.relu.default", "self=%x", "out", "x:f32:" M1, "torch.ops.aten.relu.default(x)"},
    {"gelu tanh", "1M f32", "aten.gelu.default", "self=%x approximate='tanh'", "out", "x:f32:" M1,
     "torch.ops.aten.gelu.default(x, approximate='tanh')"},
    {"gelu erf", "1M f32", "aten.gelu.default", "self=%x", "out", "x:f32:" M1, "torch.ops.aten.gelu.default(x)"},
    {"sigmoid", "1M f32", "aten.sigmoid.default", "self=%x", "out", "x:f32:" M1, "torch.ops.aten.sigmoid.default(x)"},
    {"tanh", "1M f32", "aten.tanh.default", "self=%x", "out", "x:f32:" M1, "torch.ops.aten.tanh.default(x)"},
    {"exp", "1M f32", "aten.exp.default", "self=%x", "out", "x:f32:" M1, "torch.ops.aten.exp.default(x)"},
    {"softmax", "1024x1024 dim -1", "aten._softmax.default", "self=%x dim=-1 half_to_float=False", "out",
     "x:f32:1024x1024", "torch.ops.aten._softmax.default(x, -1, False)"},
    {"layer_norm", "512x768", "aten.native_layer_norm.default",
     "input=%x normalized_shape=[768] weight=%w bias=%b eps=1e-05", "out, mean, rstd", "x:f32:512x768 w:f32:768 b:f32:768",
     "torch.ops.aten.native_layer_norm.default(x, [768], w, b, 1e-05)"},
    {"sum", "1M", "aten.sum.default", "self=%x", "out", "x:f32:" M1, "torch.ops.aten.sum.default(x)"},
    {"mean", "1M", "aten.mean.default", "self=%x", "out", "x:f32:" M1, "torch.ops.aten.mean.default(x)"},
    {"sum dim -1", "1024x1024", "aten.sum.dim_IntList", "self=%x dim=[-1]", "out", "x:f32:1024x1024",
     "torch.ops.aten.sum.dim_IntList(x, [-1])"},
    {"mean dim -1", "1024x1024", "aten.mean.dim", "self=%x dim=[-1]", "out", "x:f32:1024x1024",
     "torch.ops.aten.mean.dim(x, [-1])"},
    {"sum dim 0", "1024x1024", "aten.sum.dim_IntList", "self=%x dim=[0]", "out", "x:f32:1024x1024",
     "torch.ops.aten.sum.dim_IntList(x, [0])"},
    {"mean dim 0", "1024x1024", "aten.mean.dim", "self=%x dim=[0]", "out", "x:f32:1024x1024",
     "torch.ops.aten.mean.dim(x, [0])"},
    {"conv2d 3x3", "1x64x56x56, 64", "aten.convolution.default",
     "input=%x weight=%w bias=%b stride=[1, 1] padding=[1, 1] dilation=[1, 1] transposed=False output_padding=[0, 0] "
     "groups=1",
     "out", "x:f32:1x64x56x56 w:f32:64x64x3x3 b:f32:64",
     "torch.ops.aten.convolution.default(x, w, b, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)"},
    {"conv2d 1x1", "1x64x56x56, 64", "aten.convolution.default",
     "input=%x weight=%w bias=%b stride=[1, 1] padding=[0, 0] dilation=[1, 1] transposed=False output_padding=[0, 0] "
     "groups=1",
     "out", "x:f32:1x64x56x56 w:f32:64x64x1x1 b:f32:64",
     "torch.ops.aten.convolution.default(x, w, b, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)"},
    {"conv2d depthwise", "1x64x56x56 3x3", "aten.convolution.default",
     "input=%x weight=%w bias=%b stride=[1, 1] padding=[1, 1] dilation=[1, 1] transposed=False output_padding=[0, 0] "
     "groups=64",
     "out", "x:f32:1x64x56x56 w:f32:64x1x3x3 b:f32:64",
     "torch.ops.aten.convolution.default(x, w, b, [1, 1], [1, 1], [1, 1], False, [0, 0], 64)"},
    {"max_pool2d", "1x64x112x112 3x3 s2", "aten.max_pool2d_with_indices.default",
     "self=%x kernel_size=[3, 3] stride=[2, 2] padding=[1, 1]", "out, idx", "x:f32:1x64x112x112",
     "torch.ops.aten.max_pool2d_with_indices.default(x, [3, 3], [2, 2], [1, 1])"},
    {"bmm", "8x256x256x256", "aten.bmm.default", "self=%a mat2=%b", "out", "a:f32:8x256x256 b:f32:8x256x256",
     "torch.ops.aten.bmm.default(a, b)"},
    {"mm 512", "512^3", "aten.mm.default", "self=%a mat2=%b", "out", "a:f32:512x512 b:f32:512x512",
     "torch.ops.aten.mm.default(a, b)"},
    {"mm 1024", "1024^3", "aten.mm.default", "self=%a mat2=%b", "out", "a:f32:1024x1024 b:f32:1024x1024",
     "torch.ops.aten.mm.default(a, b)"},
    {"cat", "2x 1024x512, dim 1", "aten.cat.default", "tensors=[%a, %b] dim=1", "out", "a:f32:1024x512 b:f32:1024x512",
     "torch.ops.aten.cat.default([a, b], 1)"},
    {"index_select", "1024x1024, 512 rows", "aten.index_select.default", "self=%x dim=0 index=%i", "out",
     "x:f32:1024x1024 i:i64:512:1024", "torch.ops.aten.index_select.default(x, 0, i)"},
    {"embedding", "10000x768, 8x128", "aten.embedding.default", "weight=%w indices=%i", "out",
     "w:f32:10000x768 i:i64:8x128:10000", "torch.ops.aten.embedding.default(w, i)"},
    /* beyond the list: other ops models use, at the same sizes
    ** (arange has no input) */
    {"sub", "1M f32", "aten.sub.Tensor", "self=%x other=%y", "out", "x:f32:" M1 " y:f32:" M1,
     "torch.ops.aten.sub.Tensor(x, y)"},
    {"div", "1M f32", "aten.div.Tensor", "self=%x other=%y", "out", "x:f32:" M1 " y:f32:" M1,
     "torch.ops.aten.div.Tensor(x, y)"},
    {"mul scalar", "1M f32", "aten.mul.Tensor", "self=%x other=0.5", "out", "x:f32:" M1,
     "torch.ops.aten.mul.Tensor(x, 0.5)"},
    {"add bias", "1024x1024 + 1024", "aten.add.Tensor", "self=%x other=%y", "out", "x:f32:1024x1024 y:f32:1024",
     "torch.ops.aten.add.Tensor(x, y)"},
    {"pow 2", "1M f32", "aten.pow.Tensor_Scalar", "self=%x exponent=2", "out", "x:f32:" M1,
     "torch.ops.aten.pow.Tensor_Scalar(x, 2)"},
    {"pow 0.5", "1M f32", "aten.pow.Tensor_Scalar", "self=%x exponent=0.5", "out", "x:f32:" M1,
     "torch.ops.aten.pow.Tensor_Scalar(x, 0.5)"},
    {"maximum", "1M f32", "aten.maximum.default", "self=%x other=%y", "out", "x:f32:" M1 " y:f32:" M1,
     "torch.ops.aten.maximum.default(x, y)"},
    {"gt", "1M f32", "aten.gt.Tensor", "self=%x other=%y", "out", "x:f32:" M1 " y:f32:" M1,
     "torch.ops.aten.gt.Tensor(x, y)"},
    {"clamp", "1M f32", "aten.clamp.default", "self=%x min=-0.5 max=0.5", "out", "x:f32:" M1,
     "torch.ops.aten.clamp.default(x, -0.5, 0.5)"},
    {"to f16", "1M f32", "aten._to_copy.default", "self=%x dtype=dtype:float16", "out", "x:f32:" M1,
     "torch.ops.aten._to_copy.default(x, dtype=torch.float16)"},
    {"to bf16", "1M f32", "aten._to_copy.default", "self=%x dtype=dtype:bfloat16", "out", "x:f32:" M1,
     "torch.ops.aten._to_copy.default(x, dtype=torch.bfloat16)"},
    {"clone", "1024x1024", "aten.clone.default", "self=%x memory_format=memfmt:contiguous", "out", "x:f32:1024x1024",
     "torch.ops.aten.clone.default(x, memory_format=torch.contiguous_format)"},
    {"addmm", "64x768 @ 768x768", "aten.addmm.default", "self=%b mat1=%a mat2=%w", "out",
     "b:f32:768 a:f32:64x768 w:f32:768x768",
     "torch.ops.aten.addmm.default(b, a, w)"},
    {"silu", "1M f32", "aten.silu.default", "self=%x", "out", "x:f32:" M1, "torch.ops.aten.silu.default(x)"},
    {"log_softmax", "1024x1024", "aten._log_softmax.default", "self=%x dim=-1 half_to_float=False", "out",
     "x:f32:1024x1024",
     "torch.ops.aten._log_softmax.default(x, -1, False)"},
    {"argmax", "1024x1024 dim -1", "aten.argmax.default", "self=%x dim=-1", "out", "x:f32:1024x1024",
     "torch.ops.aten.argmax.default(x, -1)"},
    {"avg_pool2d", "1x64x56x56 2x2", "aten.avg_pool2d.default", "self=%x kernel_size=[2, 2] stride=[2, 2]", "out",
     "x:f32:1x64x56x56",
     "torch.ops.aten.avg_pool2d.default(x, [2, 2], [2, 2])"},
    {"cumsum", "1024x1024 dim -1", "aten.cumsum.default", "self=%x dim=-1", "out", "x:f32:1024x1024",
     "torch.ops.aten.cumsum.default(x, -1)"},
    {"topk", "1024x1024 k=8", "aten.topk.default", "self=%x k=8", "out, idx", "x:f32:1024x1024",
     "torch.ops.aten.topk.default(x, 8)"},
    {"sort", "1024x1024 dim -1", "aten.sort.default", "self=%x", "out, idx", "x:f32:1024x1024",
     "torch.ops.aten.sort.default(x)"},
    {"gather", "1024x1024 dim 1", "aten.gather.default", "self=%x dim=1 index=%i", "out",
     "x:f32:1024x1024 i:i64:1024x1024:1024",
     "torch.ops.aten.gather.default(x, 1, i)"},
    {"upsample nearest", "1x64x56x56 x2", "aten.upsample_nearest2d.vec",
     "input=%x output_size=None scale_factors=[2.0, 2.0]", "out", "x:f32:1x64x56x56",
     "torch.ops.aten.upsample_nearest2d.vec(x, None, [2.0, 2.0])"},
    {"upsample bilinear", "1x64x56x56 x2", "aten.upsample_bilinear2d.vec",
     "input=%x output_size=None align_corners=False scale_factors=[2.0, 2.0]", "out", "x:f32:1x64x56x56",
     "torch.ops.aten.upsample_bilinear2d.vec(x, None, False, [2.0, 2.0])"},
    {"adaptive avg", "8x512x7x7 -> 1", "aten.adaptive_avg_pool2d.default", "self=%x output_size=[1, 1]", "out",
     "x:f32:8x512x7x7",
     "torch.ops.aten.adaptive_avg_pool2d.default(x, [1, 1])"},
    {"group_norm", "8x64x56x56 g32", "aten.native_group_norm.default",
     "input=%x weight=%w bias=%b N=8 C=64 HxW=3136 group=32 eps=1e-05", "out, m, r", "x:f32:8x64x56x56 w:f32:64 b:f32:64",
     "torch.ops.aten.native_group_norm.default(x, w, b, 8, 64, 3136, 32, 1e-05)"},
    {"scatter_add", "1024x1024 dim 1", "aten.scatter_add.default", "self=%x dim=1 index=%i src=%y", "out",
     "x:f32:1024x1024 i:i64:1024x1024:1024 y:f32:1024x1024",
     "torch.ops.aten.scatter_add.default(x, 1, i, y)"},
    {"index_add", "1024x1024 dim 0", "aten.index_add.default", "self=%x dim=0 index=%i source=%y", "out",
     "x:f32:1024x1024 i:i64:512:1024 y:f32:512x1024",
     "torch.ops.aten.index_add.default(x, 0, i, y)"},
    {"amax", "1024x1024 dim -1", "aten.amax.default", "self=%x dim=[-1]", "out", "x:f32:1024x1024",
     "torch.ops.aten.amax.default(x, [-1])"},
    {"baddbmm", "8x128x64x128", "aten.baddbmm.default", "self=%c batch1=%a batch2=%b", "out",
     "c:f32:8x128x128 a:f32:8x128x64 b:f32:8x64x128",
     "torch.ops.aten.baddbmm.default(c, a, b)"},
    {"expand copy", "1024 -> 1024x1024", "aten.expand_copy.default", "self=%x size=[1024, 1024]", "out", "x:f32:1024",
     "torch.ops.aten.expand_copy.default(x, [1024, 1024])"},
    {"arange", "1M", "aten.arange.start_step", "start=0 end=1048576 step=1", "out", "",
     "torch.ops.aten.arange.start_step(0, 1048576, 1)"},
    {"rsub", "1M", "aten.rsub.Scalar", "self=%x other=1.0", "out", "x:f32:" M1, "torch.ops.aten.rsub.Scalar(x, 1.0)"},
    {"leaky_relu", "1M", "aten.leaky_relu.default", "self=%x", "out", "x:f32:" M1,
     "torch.ops.aten.leaky_relu.default(x)"},
    {"hardswish", "1M", "aten.hardswish.default", "self=%x", "out", "x:f32:" M1, "torch.ops.aten.hardswish.default(x)"},
    {"elu", "1M", "aten.elu.default", "self=%x", "out", "x:f32:" M1, "torch.ops.aten.elu.default(x)"},
    {"softplus", "1M", "aten.softplus.default", "self=%x", "out", "x:f32:" M1, "torch.ops.aten.softplus.default(x)"},
    {"mish", "1M", "aten.mish.default", "self=%x", "out", "x:f32:" M1, "torch.ops.aten.mish.default(x)"},
    {"log1p", "1M", "aten.log1p.default", "self=%x", "out", "x:f32:" M1, "torch.ops.aten.log1p.default(x)"},
    {"sin", "1M", "aten.sin.default", "self=%x", "out", "x:f32:" M1, "torch.ops.aten.sin.default(x)"},
    {"abs", "1M", "aten.abs.default", "self=%x", "out", "x:f32:" M1, "torch.ops.aten.abs.default(x)"},
    {"reciprocal", "1M", "aten.reciprocal.default", "self=%x", "out", "x:f32:" M1,
     "torch.ops.aten.reciprocal.default(x)"},
    {"eq scalar", "1M", "aten.eq.Scalar", "self=%x other=0.5", "out", "x:f32:" M1, "torch.ops.aten.eq.Scalar(x, 0.5)"},
};
#define NROWS ((int)(sizeof ROWS / sizeof ROWS[0]))

#define MAX_INPUTS 4
#define ROUNDS 5
#define ROUND_SECONDS 0.02

/* ---- the epdbg side ---------------------------------------------------------- */

typedef struct Bench {
    char path[64];
    Model *model;
    Interp *ip;
    Value in[MAX_INPUTS];
    int nin;
} Bench;

/* Parse "name:dtype:AxB[:hi]" specs into a program with those inputs. */
static bool bench_open(Bench *b, const Row *row, EpError *err)
{
    memset(b, 0, sizeof *b);
    ProgBuilder *pb = pb_new("bench.Kernel", false);
    PbRng r = {11};
    char spec[256];
    snprintf(spec, sizeof spec, "%s", row->inputs);
    for (char *save = NULL, *tok = strtok_r(spec, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *name = tok, *dt = strchr(name, ':');
        *dt++ = 0;
        char *dims = strchr(dt, ':');
        *dims++ = 0;
        char *hi = strchr(dims, ':');
        if (hi)
            *hi++ = 0;
        int64_t sizes[EP_MAX_DIMS];
        int ndim = 0;
        for (char *d = dims; d && *d; d = strchr(d, 'x') ? strchr(d, 'x') + 1 : NULL)
            sizes[ndim++] = atoll(d);
        Tensor *t = strcmp(dt, "i64") == 0 ? pb_ints(&r, DT_I64, ndim, sizes, 0, hi ? atoll(hi) : 100)
                                           : pb_uniform(&r, DT_F32, ndim, sizes, -1, 1);
        pb_input(pb, name, t, NULL);
        b->in[b->nin++] = value_tensor(t);
    }
    pb_node(pb, row->target, "out", row->args, row->outs);
    pb_output(pb, "out");
    snprintf(b->path, sizeof b->path, "/tmp/epdbg-bench-kernels-XXXXXX");
    int fd = mkstemp(b->path);
    close(fd);
    PbWriteOptions opt = {.era = PB_ERA_2_11, .no_example_inputs = true};
    EpStatus rc = pb_write(pb, b->path, &opt, err);
    pb_free(pb);
    if (rc == EP_OK)
        rc = model_open(b->path, NULL, &b->model, err);
    if (rc == EP_OK && !(b->ip = interp_new(b->model, NULL, err)))
        rc = err->code ? err->code : EP_ERR_EXEC;
    return rc == EP_OK;
}

static void bench_close(Bench *b)
{
    for (int i = 0; i < b->nin; i++)
        value_clear(&b->in[i]);
    interp_free(b->ip);
    model_free(b->model);
    unlink(b->path);
}

static bool bench_call(void *ctx, EpError *err)
{
    Bench *b = ctx;
    return interp_bind(b->ip, b->in, b->nin, err) == EP_OK && interp_run(b->ip, err) == EP_OK;
}

/* Seconds per call: the best of ROUNDS rounds of at least ROUND_SECONDS. */
static double time_epdbg(Bench *b, EpError *err)
{
    /* two warm-up calls: the pool, the caches */
    return bench_best_time(bench_call, b, err, ROUNDS, ROUND_SECONDS, 2, 2, 0);
}

/* ---- the table ------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    EpError err = {0};
    if (ops_init(&err))
        return 1;
    signal(SIGPIPE, SIG_IGN);
    BenchTorch torch;
    char why[256] = "";
    bool have_torch = bench_torch_start(&torch, "kernels", "bench/kernels_torch.py", "torch", why, sizeof why);
    int threads[2];
    int nthreads = bench_thread_counts(threads);
    if (have_torch)
        printf("kernels: epdbg vs PyTorch %s, one node per call; ratio = epdbg / PyTorch (< 1: epdbg faster)\n",
               torch.version);
    else
        printf("kernels: PyTorch not available (%s): epdbg's column only\n", why);
    printf("%-17s %-20s", "kernel", "shape");
    for (int k = 0; k < nthreads; k++) {
        printf(" %8s %-2d", "epdbg", threads[k]);
        if (have_torch)
            printf(" %8s %-2d %6s", "torch", threads[k], "ratio");
    }
    printf("\n");
    for (int i = 0; i < NROWS; i++) {
        const Row *row = &ROWS[i];
        if (!bench_wanted(row->name, argc, argv, 1))
            continue;
        Bench b;
        if (!bench_open(&b, row, &err)) {
            printf("%-17s %-20s failed: %s\n", row->name, row->shape, err.msg);
            continue;
        }
        char cmd[1024];
        if (have_torch) {
            snprintf(cmd, sizeof cmd, "setup %s|%s", row->inputs, row->torch);
            have_torch = bench_torch_ask(&torch, cmd) >= 0;
        }
        printf("%-17s %-20s", row->name, row->shape);
        for (int k = 0; k < nthreads; k++) {
            ep_set_threads(threads[k]);
            ops_set_blas_threads(threads[k]);
            double e = time_epdbg(&b, &err);
            bench_print_time(e);
            if (have_torch) {
                snprintf(cmd, sizeof cmd, "time %d", threads[k]);
                bench_print_vs(e, bench_torch_ask(&torch, cmd));
            }
        }
        printf("\n");
        fflush(stdout);
        bench_close(&b);
    }
    ep_set_threads(0);
    ops_set_blas_threads(1);
    if (have_torch)
        bench_torch_stop(&torch);
    ops_shutdown();
    return 0;
}
