/*
** reduce.c -- the reduction, softmax and layer-norm kernels on the shapes
** of issue 13, through the registry's real op path, fast paths against the
** plain reference loops (KernelConfig.use_blas false).
**
**   build/release/bench/reduce [THREADS]     (bench/reduce_torch.py: PyTorch's side)
**
** Prints one line per case: milliseconds, the minimum of several runs;
** then softmax, layer norm and the batch-norm affine loop called directly
** on outputs already written, which leaves out the page faults of a fresh
** output.
*/
#include <math.h>

#include "benchutil.h"
#include "interp/ops.h"
#include "interp/ops/reduce_fast.h"
#include "interp/parallel.h"

static Tensor *randn(int ndim, const int64_t *sizes)
{
    EpError err;
    Tensor *t = tensor_empty(DT_F32, ndim, sizes, &err);
    float *p = tensor_data(t);
    uint64_t s = 88172645463325252ull;
    for (int64_t i = 0; i < tensor_numel(t); i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        p[i] = (float)((double)(s >> 11) / 9007199254740992.0 * 4.0 - 2.0);
    }
    return t;
}

/* Run target on vals (borrowed) reps times; the best time in ms. */
static double run(const char *target, int n, Value *vals, bool fast, int reps)
{
    const OpDef *op = op_lookup(target);
    EpError err = {0};
    Value args[OP_MAX_ARGS], outs[OP_MAX_RETS];
    const char *names[OP_MAX_ARGS] = {0};
    if (!op || op_bind(op, n, names, vals, args, &err) != EP_OK) {
        fprintf(stderr, "%s: %s\n", target, err.msg);
        exit(1);
    }
    KernelConfig cfg = {.use_blas = fast};
    double best = INFINITY;
    for (int r = 0; r < reps; r++) {
        for (int i = 0; i < OP_MAX_RETS; i++)
            outs[i].kind = V_NONE;
        OpCall call = {op, args, op->schema->nargs, outs, op->schema->nrets, &err, &cfg};
        double t0 = bench_now();
        if (op->fn(&call) != EP_OK) {
            fprintf(stderr, "%s: %s\n", target, err.msg);
            exit(1);
        }
        double dt = bench_now() - t0;
        best = dt < best ? dt : best;
        for (int i = 0; i < op->schema->nrets; i++)
            value_clear(&outs[i]);
    }
    for (int i = 0; i < op->schema->nargs; i++)
        value_clear(&args[i]);
    return best * 1e3;
}

static void row(const char *label, const char *target, int n, Value *vals)
{
    double ref = run(target, n, vals, false, 3), fast = run(target, n, vals, true, 10);
    printf("%-34s fast %8.3f ms   reference %8.3f ms   speedup %5.1fx\n", label, fast, ref, ref / fast);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    EpError err;
    if (ops_init(&err) != EP_OK)
        return 1;
    ep_set_threads(argc > 1 ? atoi(argv[1]) : 1);
    printf("# threads %d\n", ep_threads());
    int64_t m1[1] = {1 << 20}, sq[2] = {1024, 1024}, ln[2] = {512, 768}, tall[2] = {1 << 20, 16};
    int64_t d0[1] = {0}, dl[1] = {-1};
    Tensor *v = randn(1, m1), *a = randn(2, sq), *l = randn(2, ln), *t = randn(2, tall);
    Value x;
    {
        Value vals[1] = {value_tensor(v)};
        row("sum 1M", "aten.sum.default", 1, vals);
        row("mean 1M", "aten.mean.default", 1, vals);
    }
    x = value_tensor(a);
    {
        Value vals[3] = {x, value_int_list(1, dl), value_bool(false)};
        row("sum 1024^2 dim -1", "aten.sum.dim_IntList", 3, vals);
        row("mean 1024^2 dim -1", "aten.mean.dim", 3, vals);
        value_clear(&vals[1]);
        vals[1] = value_int_list(1, d0);
        row("sum 1024^2 dim 0", "aten.sum.dim_IntList", 3, vals);
        row("mean 1024^2 dim 0", "aten.mean.dim", 3, vals);
        value_clear(&vals[1]);
    }
    {
        Value vals[3] = {x, value_int_list(1, dl), value_bool(false)};
        row("amax 1024^2 dim -1", "aten.amax.default", 3, vals);
        value_clear(&vals[1]);
        vals[1] = value_int_list(1, d0);
        row("amax 1024^2 dim 0", "aten.amax.default", 3, vals);
        value_clear(&vals[1]);
        Value var[4] = {x, value_int_list(1, dl), value_float(1), value_bool(false)};
        row("var 1024^2 dim -1", "aten.var.correction", 4, var);
        value_clear(&var[1]);
    }
    {
        /* the other dtypes: halves widened in the loop, integers in int64 */
        const DType dts[4] = {DT_F16, DT_BF16, DT_I32, DT_I64};
        const char *names[4] = {"f16", "bf16", "i32", "i64"};
        for (int k = 0; k < 4; k++) {
            Tensor *c = tensor_to_dtype(a, dts[k], &err);
            Value vals[3] = {value_tensor(c), value_int_list(1, dl), value_bool(false)};
            char label[64];
            snprintf(label, sizeof label, "sum %s 1024^2 dim -1", names[k]);
            row(label, "aten.sum.dim_IntList", 3, vals);
            value_clear(&vals[1]);
            vals[1] = value_int_list(1, d0);
            snprintf(label, sizeof label, "sum %s 1024^2 dim 0", names[k]);
            row(label, "aten.sum.dim_IntList", 3, vals);
            value_clear(&vals[1]);
            if (k == 0) {
                vals[1] = value_int_list(1, dl);
                row("amax f16 1024^2 dim -1", "aten.amax.default", 3, vals);
                value_clear(&vals[1]);
            }
            tensor_unref(c);
        }
        Value av[3] = {x, value_int(-1), value_bool(false)};
        row("argmax 1024^2 dim -1", "aten.argmax.default", 3, av);
        Value lv[3] = {x, value_int_list(1, dl), value_bool(false)};
        row("logsumexp 1024^2 dim -1", "aten.logsumexp.default", 3, lv);
        value_clear(&lv[1]);
    }
    {
        Value vals[3] = {x, value_int(-1), value_bool(false)};
        row("softmax 1024^2 dim -1", "aten._softmax.default", 3, vals);
        row("log_softmax 1024^2 dim -1", "aten._log_softmax.default", 3, vals);
        vals[1] = value_int(0);
        row("softmax 1024^2 dim 0", "aten._softmax.default", 3, vals);
    }
    {
        int64_t n1[1] = {768}, n2[1] = {16};
        Tensor *w = randn(1, n1), *b = randn(1, n1);
        Value vals[5] = {value_tensor(l), value_int_list(1, n1), value_tensor(w), value_tensor(b), value_float(1e-5)};
        row("native_layer_norm 512x768", "aten.native_layer_norm.default", 5, vals);
        Tensor *lb = tensor_to_dtype(l, DT_BF16, &err), *wb = tensor_to_dtype(w, DT_BF16, &err),
               *bb = tensor_to_dtype(b, DT_BF16, &err);
        Value vb[5] = {value_tensor(lb), vals[1], value_tensor(wb), value_tensor(bb), value_float(1e-5)};
        row("native_layer_norm bf16 512x768", "aten.native_layer_norm.default", 5, vb);
        tensor_unref(lb);
        tensor_unref(wb);
        tensor_unref(bb);
        value_clear(&vals[1]);
        Value v2[5] = {value_tensor(t), value_int_list(1, n2), value_none(), value_none(), value_float(1e-5)};
        row("native_layer_norm [1M,16]", "aten.native_layer_norm.default", 5, v2);
        value_clear(&v2[1]);
        tensor_unref(w);
        tensor_unref(b);
    }
    {
        int64_t img[4] = {8, 64, 56, 56}, c1[1] = {64}, k[2] = {3, 3}, st[2] = {2, 2}, pad[2] = {1, 1}, dil[2] = {1, 1};
        Tensor *im = randn(4, img), *w = randn(1, c1), *b = randn(1, c1), *rm = randn(1, c1), *rv = randn(1, c1);
        float *pv = tensor_data(rv);
        for (int i = 0; i < 64; i++)
            pv[i] = pv[i] * pv[i] + 0.5f;
        Value mp[6] = {value_tensor(im), value_int_list(2, k), value_int_list(2, st), value_int_list(2, pad), value_int_list(2, dil), value_bool(false)};
        row("max_pool2d 8x64x56x56 k3 s2 p1", "aten.max_pool2d_with_indices.default", 6, mp);
        for (int i = 1; i < 5; i++)
            value_clear(&mp[i]);
        Value bn[7] = {value_tensor(im), value_tensor(w), value_tensor(b), value_tensor(rm), value_tensor(rv),
                       value_float(0.1), value_float(1e-5)};
        row("batch_norm eval 8x64x56x56", "aten._native_batch_norm_legit_no_training.default", 7, bn);
        Value gn[8] = {value_tensor(im), value_tensor(w), value_tensor(b), value_int(8), value_int(64),
                       value_int(56 * 56), value_int(32), value_float(1e-5)};
        row("group_norm 8x64x56x56 G32", "aten.native_group_norm.default", 8, gn);
        tensor_unref(im);
        tensor_unref(w);
        tensor_unref(b);
        tensor_unref(rm);
        tensor_unref(rv);
    }
    /* the same kernels on outputs written before (no fresh pages to fault
    ** in): what the loops cost apart from the allocator */
    {
        int64_t n = 1 << 20;
        float *y = malloc((size_t)n * sizeof *y), *st = malloc(2 * 512 * sizeof *st), *ab = malloc(128 * sizeof *ab);
        const float *xa = tensor_data(a), *xl = tensor_data(l);
        for (int i = 0; i < 128; i++)
            ab[i] = 0.5f;
        memset(y, 0, (size_t)n * sizeof *y);
        double best[3] = {INFINITY, INFINITY, INFINITY};
        for (int r = 0; r < 10; r++) {
            double t0 = bench_now();
            reduce_fast_softmax(xa, (RfShape){1024, 1024, 1}, false, y);
            double t1 = bench_now();
            reduce_fast_layer_norm(xl, DT_F32, 512, 768, NULL, NULL, 1e-5, y, st, st + 512);
            double t2 = bench_now();
            reduce_fast_affine_planes(xa, 16 * 64, 64, 1024, ab, ab + 64, y);
            double t3 = bench_now();
            best[0] = fmin(best[0], t1 - t0);
            best[1] = fmin(best[1], t2 - t1);
            best[2] = fmin(best[2], t3 - t2);
        }
        printf("kernel only: softmax 1024^2 %.3f ms, layer_norm 512x768 %.3f ms, batch-norm affine 1M %.3f ms\n",
               best[0] * 1e3, best[1] * 1e3, best[2] * 1e3);
        free(y);
        free(st);
        free(ab);
    }
    tensor_unref(v);
    tensor_unref(a);
    tensor_unref(l);
    tensor_unref(t);
    return 0;
}
