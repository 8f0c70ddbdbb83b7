/*
** activation.c -- the activation and transcendental kernels on 1M float32
** through the op registry (op_bind + the kernel, as the interpreter calls
** them), and the vector function alone where one serves the row (vecmath.h:
** the kernel's own time, without the runner and the output's allocation).
** Rows are interleaved, the minimum of reps rounds each (README: Speed and
** memory).
**
**   build/release/bench/activation [reps]
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/benchutil.h"
#include "interp/ops.h"
#include "interp/ops/vecmath.h"

#define N (1 << 20)

typedef struct Row {
    const char *name;   /* row label */
    const char *target; /* aten overload */
    const char *approx; /* gelu's approximate=, else NULL */
    bool positive;      /* input |x| + 0.1 (log, sqrt, rsqrt) */
    void (*vm)(float *y, const float *x, int64_t n); /* the vector function, or NULL */
} Row;

static const Row ROWS[] = {
    {"exp", "aten.exp.default", NULL, false, vm_exp_f32},
    {"sigmoid", "aten.sigmoid.default", NULL, false, vm_sigmoid_f32},
    {"tanh", "aten.tanh.default", NULL, false, vm_tanh_f32},
    {"gelu", "aten.gelu.default", "none", false, vm_gelu_f32},
    {"gelu_tanh", "aten.gelu.default", "tanh", false, vm_gelu_tanh_f32},
    {"silu", "aten.silu.default", NULL, false, vm_silu_f32},
    {"erf", "aten.erf.default", NULL, false, vm_erf_f32},
    {"log", "aten.log.default", NULL, true, vm_log_f32},
    {"sqrt", "aten.sqrt.default", NULL, true, NULL},
    {"rsqrt", "aten.rsqrt.default", NULL, true, NULL},
};
enum { NROWS = sizeof ROWS / sizeof ROWS[0] };

/* Seconds of one call of row r on x (the result freed), or -1. */
static double run_once(const Row *r, Tensor *x)
{
    const OpDef *op = op_lookup(r->target);
    if (!op)
        return -1;
    EpError err = {0};
    const char *names[2] = {NULL, "approximate"};
    Value vals[2] = {value_tensor(x), {.kind = V_STR}};
    vals[1].s = r->approx;
    Value args[OP_MAX_ARGS], outs[OP_MAX_RETS];
    if (op_bind(op, r->approx ? 2 : 1, names, vals, args, &err) != EP_OK)
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
    float *y = malloc((size_t)n * sizeof(float));
    double best[NROWS], best_vm[NROWS];
    for (int k = 0; k < NROWS; k++)
        best[k] = best_vm[k] = 1e9;
    for (int i = 0; i < reps; i++)
        for (int k = 0; k < NROWS; k++) {
            const Row *r = &ROWS[k];
            double t = run_once(r, r->positive ? xp : x);
            if (t >= 0 && t < best[k])
                best[k] = t;
            if (r->vm) {
                double t0 = bench_now();
                r->vm(y, r->positive ? pp : px, n);
                t = bench_now() - t0;
                if (t < best_vm[k])
                    best_vm[k] = t;
            }
        }
    printf("%-10s %10s %10s\n", "op", "epdbg ms", "vector ms");
    for (int k = 0; k < NROWS; k++)
        if (ROWS[k].vm)
            printf("%-10s %10.3f %10.3f\n", ROWS[k].name, best[k] * 1e3, best_vm[k] * 1e3);
        else
            printf("%-10s %10.3f %10s\n", ROWS[k].name, best[k] * 1e3, "-");
    free(y);
    tensor_unref(x);
    tensor_unref(xp);
    ops_shutdown();
    return 0;
}
