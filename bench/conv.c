/*
** conv.c -- convolution side by side with PyTorch: `bench/conv [THREADS [ROW]]`.
**
** Each row runs aten.conv2d.default through epdbg's kernel and through
** torch.ops.aten.conv2d.default (/usr/bin/python3 -c, or $EPDBG_PYTHON;
** same shapes, same thread count), interleaved over ROUNDS rounds, and
** keeps each side's best wall time and best process CPU time: the ratios epdbg / PyTorch
** are what the README quotes.  On a shared machine the CPU time is the
** steadier figure at one thread (a long run is time-shared whatever it
** does); at several threads only the wall time tells the speed-up.
** Without PyTorch the PyTorch column says so and the rest still runs.
*/
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchutil.h"
#include "interp/ops.h"
#include "interp/parallel.h"

#define ROUNDS 5
#define REPS 5

typedef struct Row {
    const char *name;
    int64_t n, c, h, w, cout, k, groups, stride, pad;
} Row;

static const Row ROWS[] = {
    {"3x3 64->64 on 1x64x56x56", 1, 64, 56, 56, 64, 3, 1, 1, 1},
    {"1x1 64->64 on 1x64x56x56", 1, 64, 56, 56, 64, 1, 1, 1, 0},
    {"depthwise 3x3 on 1x256x56x56", 1, 256, 56, 56, 256, 3, 256, 1, 1},
    {"3x3 64->64 on 16x64x56x56", 16, 64, 56, 56, 64, 3, 1, 1, 1},
    {"3x3 256->256 on 1x256x14x14", 1, 256, 14, 14, 256, 3, 1, 1, 1},
    /* a resnet-18's layers at batch 8: the 7x7 stride-2 stem, a 3x3 of
    ** stage 1, a stride-2 3x3 and its 1x1 stride-2 shortcut into stage 2,
    ** and a mobilenet's stride-2 depthwise */
    {"stem 7x7 s2 3->64 on 8x3x224x224", 8, 3, 224, 224, 64, 7, 1, 2, 3},
    {"3x3 64->64 on 8x64x56x56", 8, 64, 56, 56, 64, 3, 1, 1, 1},
    {"3x3 s2 64->128 on 8x64x56x56", 8, 64, 56, 56, 128, 3, 1, 2, 1},
    {"1x1 s2 64->128 on 8x64x56x56", 8, 64, 56, 56, 128, 1, 1, 2, 0},
    {"depthwise 3x3 s2 on 8x96x112x112", 8, 96, 112, 112, 96, 3, 96, 2, 1},
    /* the three stages of bench/models.c's ResNet-style CNN at batch 32 and
    ** at batch 1 (examples/gen/benchmodels.c: 8, 16, 32 channels) */
    {"cnn 3x3 8->8 on 32x8x16x16", 32, 8, 16, 16, 8, 3, 1, 1, 1},
    {"cnn 3x3 16->16 on 32x16x8x8", 32, 16, 8, 8, 16, 3, 1, 1, 1},
    {"cnn 3x3 32->32 on 32x32x4x4", 32, 32, 4, 4, 32, 3, 1, 1, 1},
    {"cnn 3x3 8->8 on 1x8x16x16", 1, 8, 16, 16, 8, 3, 1, 1, 1},
    {"cnn 3x3 16->16 on 1x16x8x8", 1, 16, 8, 8, 16, 3, 1, 1, 1},
    {"cnn 3x3 32->32 on 1x32x4x4", 1, 32, 4, 4, 32, 3, 1, 1, 1},
};

static Tensor *randn(int ndim, const int64_t *sizes)
{
    EpError err = {0};
    Tensor *t = tensor_empty(DT_F32, ndim, sizes, &err);
    if (!t) {
        fprintf(stderr, "conv: %s\n", err.msg);
        exit(1);
    }
    float *p = tensor_data(t);
    for (int64_t i = 0; i < tensor_numel(t); i++)
        p[i] = (float)rand() / (float)RAND_MAX - 0.5f;
    return t;
}

static Value pair(int64_t v)
{
    ValueList *l = value_list_new(2);
    l->items[0] = value_int(v);
    l->items[1] = value_int(v);
    Value r = {.kind = V_LIST};
    r.list = l;
    return r;
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Best of REPS runs of the kernel: wall ms, and CPU ms in *cpu. */
static double epdbg_ms(const Row *r, double *cpu)
{
    static const char *const names[] = {"input", "weight", "bias", "stride", "padding", "dilation", "groups"};
    int64_t xs[4] = {r->n, r->c, r->h, r->w}, ws[4] = {r->cout, r->c / r->groups, r->k, r->k}, bs[1] = {r->cout};
    Value vals[7] = {value_tensor(randn(4, xs)), value_tensor(randn(4, ws)), value_tensor(randn(1, bs)),
                     pair(r->stride), pair(r->pad), pair(1), value_int(r->groups)};
    const OpDef *op = op_lookup("aten.conv2d.default");
    KernelConfig cfg = {.use_blas = true};
    double best = 1e30;
    *cpu = 1e30;
    for (int rep = 0; rep < REPS; rep++) {
        EpError err = {0};
        Value copies[7], args[OP_MAX_ARGS], outs[OP_MAX_RETS];
        for (int i = 0; i < 7; i++)
            copies[i] = value_copy(&vals[i]);
        if (op_bind(op, 7, (const char **)names, copies, args, &err)) {
            fprintf(stderr, "conv: %s\n", err.msg);
            exit(1);
        }
        for (int i = 0; i < OP_MAX_RETS; i++)
            outs[i].kind = V_NONE;
        OpCall call = {op, args, op->schema->nargs, outs, op->schema->nrets, &err, &cfg};
        double t0 = bench_now(), c0 = cpu_now();
        if (op->fn(&call)) {
            fprintf(stderr, "conv: %s\n", err.msg);
            exit(1);
        }
        double t = bench_now() - t0, ct = (cpu_now() - c0) * 1e3;
        best = t < best ? t : best;
        *cpu = ct < *cpu ? ct : *cpu;
        for (int i = 0; i < OP_MAX_RETS; i++)
            value_clear(&outs[i]);
        for (int i = 0; i < op->schema->nargs; i++)
            value_clear(&args[i]);
        for (int i = 0; i < 7; i++)
            value_clear(&copies[i]);
    }
    for (int i = 0; i < 7; i++)
        value_clear(&vals[i]);
    return best * 1e3;
}

static const char *python(void) { return getenv("EPDBG_PYTHON") ? getenv("EPDBG_PYTHON") : "/usr/bin/python3"; }

/* Best of REPS runs in PyTorch: wall ms (< 0 without PyTorch), and CPU
** ms in *cpu. */
static double torch_ms(const Row *r, int threads, double *cpu)
{
    char cmd[1024];
    /* OPENBLAS_NUM_THREADS: torch.set_num_threads does not reach the
    ** OpenBLAS Debian's torch calls (see bench/kernels_torch.py) */
    snprintf(cmd, sizeof cmd,
             "OPENBLAS_NUM_THREADS=%d %s -c 'import time, torch\n"
             "torch.set_num_threads(%d)\n"
             "x = torch.randn(%lld, %lld, %lld, %lld); w = torch.randn(%lld, %lld, %lld, %lld); b = torch.randn(%lld)\n"
             "best = cbest = 1e30\n"
             "with torch.no_grad():\n"
             "    for _ in range(%d):\n"
             "        t0 = time.perf_counter(); c0 = time.process_time(); "
             "torch.ops.aten.conv2d.default(x, w, b, [%lld, %lld], [%lld, %lld], [1, 1], %lld); "
             "best = min(best, time.perf_counter() - t0); cbest = min(cbest, time.process_time() - c0)\n"
             "print(best * 1e3, cbest * 1e3)' 2>/dev/null",
             threads, python(), threads, (long long)r->n, (long long)r->c, (long long)r->h, (long long)r->w,
             (long long)r->cout,
             (long long)(r->c / r->groups), (long long)r->k, (long long)r->k, (long long)r->cout, REPS,
             (long long)r->stride, (long long)r->stride, (long long)r->pad, (long long)r->pad, (long long)r->groups);
    FILE *p = popen(cmd, "r");
    double ms = -1;
    if (!p || fscanf(p, "%lf %lf", &ms, cpu) != 2)
        ms = -1;
    if (p)
        pclose(p);
    return ms;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 0;
    const char *only = argc > 2 ? argv[2] : NULL; /* rows whose name starts so */
    EpError err = {0};
    if (ops_init(&err)) {
        fprintf(stderr, "conv: %s\n", err.msg);
        return 1;
    }
    ep_set_threads(threads);
    printf("conv2d at %d thread%s, best of %d x %d runs, epdbg / PyTorch:\n", ep_threads(), ep_threads() > 1 ? "s" : "",
           ROUNDS, REPS);
    for (size_t i = 0; i < sizeof ROWS / sizeof ROWS[0]; i++) {
        if (only && strncmp(ROWS[i].name, only, strlen(only)) != 0)
            continue;
        double ep = 1e30, pt = 1e30, epc = 1e30, ptc = 1e30;
        bool have_torch = true;
        for (int round = 0; round < ROUNDS; round++) {
            double ec, tc = 0;
            double e = epdbg_ms(&ROWS[i], &ec), t = have_torch ? torch_ms(&ROWS[i], ep_threads(), &tc) : -1;
            ep = e < ep ? e : ep;
            epc = ec < epc ? ec : epc;
            if (t < 0) {
                have_torch = false;
            } else {
                pt = t < pt ? t : pt;
                ptc = tc < ptc ? tc : ptc;
            }
        }
        if (have_torch)
            printf("  %-34s wall: epdbg %7.3f ms PyTorch %7.3f ms ratio %.2f | cpu: %7.3f / %7.3f ms ratio %.2f\n",
                   ROWS[i].name, ep, pt, ep / pt, epc, ptc, epc / ptc);
        else
            printf("  %-34s wall: epdbg %7.3f ms, cpu %7.3f ms (no PyTorch at %s)\n", ROWS[i].name, ep, epc,
                   python());
    }
    ops_shutdown();
    return 0;
}
