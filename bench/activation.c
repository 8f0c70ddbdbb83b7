/*
** activation.c -- the activation and transcendental kernels on 1M float32
** through the op registry (op_bind + the kernel, as the interpreter calls
** them), and the vector function alone where one serves the row (vecmath.h:
** the kernel's own time, without the runner and the output's allocation),
** and the op on bfloat16 input (computed in float32, rounded once); softmax
** runs on the data as 1024x1024 along the last dim; relu and neg are two
** plain pointwise ops beside them.
** Rows are interleaved, the minimum of reps rounds each (README: Speed and
** memory).
**
**   build/release/bench/activation [reps [threads]]
**
** threads (default 1) is the worker count of the op path; the vector
** column is always one thread.  bench/activation_torch.py THREADS is
** PyTorch's side, bfloat16 included.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/benchutil.h"
#include "interp/ops.h"
#include "interp/parallel.h"
#include "interp/ops/vecmath.h"

#define N (1 << 20)

typedef struct Row {
    const char *name;   /* row label */
    const char *target; /* aten overload */
    const char *approx; /* gelu's approximate=, else NULL */
    bool positive;      /* input |x| + 0.1 (log, sqrt, rsqrt) */
    bool softmax;       /* _softmax(x as 1024x1024, -1, False) */
    void (*vm)(float *y, const float *x, int64_t n); /* the vector function, or NULL */
} Row;

static const Row ROWS[] = {
    {"exp", "aten.exp.default", NULL, false, false, vm_exp_f32},
    {"sigmoid", "aten.sigmoid.default", NULL, false, false, vm_sigmoid_f32},
    {"tanh", "aten.tanh.default", NULL, false, false, vm_tanh_f32},
    {"gelu", "aten.gelu.default", "none", false, false, vm_gelu_f32},
    {"gelu_tanh", "aten.gelu.default", "tanh", false, false, vm_gelu_tanh_f32},
    {"silu", "aten.silu.default", NULL, false, false, vm_silu_f32},
    {"erf", "aten.erf.default", NULL, false, false, vm_erf_f32},
    {"log", "aten.log.default", NULL, true, false, vm_log_f32},
    {"sqrt", "aten.sqrt.default", NULL, true, false, NULL},
    {"rsqrt", "aten.rsqrt.default", NULL, true, false, NULL},
    {"softmax", "aten._softmax.default", NULL, false, true, NULL},
    {"relu", "aten.relu.default", NULL, false, false, NULL},
    {"neg", "aten.neg.default", NULL, false, false, NULL},
};
enum { NROWS = sizeof ROWS / sizeof ROWS[0] };

/* Seconds of one call of row r on x (the result freed), or -1. */
static double run_once(const Row *r, Tensor *x)
{
    const OpDef *op = op_lookup(r->target);
    if (!op)
        return -1;
    EpError err = {0};
    const char *names[3] = {NULL, "approximate", NULL};
    Value vals[3] = {value_tensor(x), {.kind = V_STR}, value_bool(false)};
    vals[1].s = r->approx;
    int nvals = r->approx ? 2 : 1;
    Tensor *view = NULL;
    if (r->softmax) {
        int64_t sizes[2] = {1024, N / 1024};
        int64_t strides[2] = {N / 1024, 1};
        view = tensor_as_strided(x, 2, sizes, strides, x->offset, &err);
        if (!view)
            return -1;
        names[1] = NULL;
        vals[0] = value_tensor(view);
        vals[1] = value_int(-1);
        nvals = 3;
    }
    Value args[OP_MAX_ARGS], outs[OP_MAX_RETS];
    EpStatus bound = op_bind(op, nvals, names, vals, args, &err);
    tensor_unref(view);
    if (bound != EP_OK)
        return -1;
    for (int i = 0; i < OP_MAX_RETS; i++)
        outs[i].kind = V_NONE;
    OpCall call = {op, args, op->schema->nargs, outs, op->schema->nrets, &err, &KERNEL_CONFIG_DEFAULT};
    double t0 = bench_now();
    EpStatus rc = op->fn(&call);
    double t = bench_now() - t0;
    for (int i = 0; i < op->schema->nrets; i++)
        value_clear(&outs[i]);
    for (int i = 0; i < op->schema->nargs; i++)
        value_clear(&args[i]);
    return rc == EP_OK ? t : -1;
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 20;
    ep_set_threads(argc > 2 ? atoi(argv[2]) : 1);
    EpError err = {0};
    if (ops_init(&err))
        return 1;
    int64_t n = N;
    Tensor *x = tensor_empty(DT_F32, 1, &n, &err), *xp = tensor_empty(DT_F32, 1, &n, &err);
    float *px = tensor_data(x), *pp = tensor_data(xp);
    srand(1);
    for (int64_t i = 0; i < n; i++) { /* roughly normal: a sum of uniforms */
        float s = 0;
        for (int k = 0; k < 4; k++)
            s += (float)rand() / (float)RAND_MAX - 0.5f;
        px[i] = s * 3.4641f;
        pp[i] = fabsf(px[i]) + 0.1f;
    }
    Tensor *xb = tensor_to_dtype(x, DT_BF16, &err), *xpb = tensor_to_dtype(xp, DT_BF16, &err);
    float *y = malloc((size_t)n * sizeof(float));
    double best[NROWS], best_vm[NROWS], best_bf16[NROWS];
    for (int k = 0; k < NROWS; k++)
        best[k] = best_vm[k] = best_bf16[k] = 1e9;
    for (int i = 0; i < reps; i++)
        for (int k = 0; k < NROWS; k++) {
            const Row *r = &ROWS[k];
            double t = run_once(r, r->positive ? xp : x);
            if (t >= 0 && t < best[k])
                best[k] = t;
            t = run_once(r, r->positive ? xpb : xb);
            if (t >= 0 && t < best_bf16[k])
                best_bf16[k] = t;
            if (r->vm) {
                double t0 = bench_now();
                r->vm(y, r->positive ? pp : px, n);
                t = bench_now() - t0;
                if (t < best_vm[k])
                    best_vm[k] = t;
            }
        }
    printf("%-10s %10s %10s %10s\n", "op", "epdbg ms", "vector ms", "bf16 ms");
    for (int k = 0; k < NROWS; k++) {
        printf("%-10s %10.3f ", ROWS[k].name, best[k] * 1e3);
        if (ROWS[k].vm)
            printf("%10.3f ", best_vm[k] * 1e3);
        else
            printf("%10s ", "-");
        printf("%10.3f\n", best_bf16[k] * 1e3);
    }
    free(y);
    tensor_unref(x);
    tensor_unref(xp);
    tensor_unref(xb);
    tensor_unref(xpb);
    ops_shutdown();
    return 0;
}
