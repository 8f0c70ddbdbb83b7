/*
** memory.c -- peak resident memory running a model with about 100 MB of
** weights (six 2048x2048 linear layers), against the budget
**   weights + 1.2 x the largest set of simultaneously live activations.
**
** Weights stored uncompressed are viewed in place in the mapped archive,
** and every intermediate is freed after its last use, so the peak should be
** the weights plus two activations.  The baseline (libraries, OpenBLAS's
** buffers after a GEMM of the same shape) is measured first and the peak is
** reported above it (VmHWM reset through /proc/self/clear_refs).
**
**   build/release/bench/memory [BATCH]
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cblas.h>

#include "bench/benchutil.h"
#include "examples/gen/benchmodels.h"
#include "interp/interp.h"

#define WIDTH BENCH_WIDE_WIDTH

int main(int argc, char **argv)
{
    int batch = argc > 1 ? atoi(argv[1]) : 256;
    EpError err = {0};
    if (ops_init(&err))
        return 1;
    char path[] = "/tmp/epdbg-bench-memory-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    {
        PbRng r = {7};
        ProgBuilder *pb = bench_wide_model(batch, &r);
        /* no stored example inputs: the bench binds its own, and 2 MB of
        ** unused archive bytes would blur the figure */
        PbWriteOptions opt = {.era = PB_ERA_2_11, .no_example_inputs = true};
        if (pb_write(pb, path, &opt, &err)) {
            fprintf(stderr, "memory: %s\n", err.msg);
            return 1;
        }
        pb_free(pb);
    }
    /* warm OpenBLAS up with a GEMM of the model's shape on temporary
    ** buffers, so its own work buffers count as baseline */
    {
        size_t na = (size_t)batch * WIDTH, nb = (size_t)WIDTH * WIDTH;
        float *a = calloc(na, sizeof *a), *b = calloc(nb, sizeof *b), *c = calloc(na, sizeof *c);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, batch, WIDTH, WIDTH, 1, a, WIDTH, b, WIDTH, 0, c, WIDTH);
        free(a);
        free(b);
        free(c);
    }
    bench_reset_peak();
    tensor_memory_reset_peak();
    long base = bench_status_kb("VmRSS:");
    Model *m;
    if (model_open(path, NULL, &m, &err)) {
        fprintf(stderr, "memory: %s\n", err.msg);
        return 1;
    }
    Interp *ip = interp_new(m, NULL, &err);
    int64_t xs[2] = {batch, WIDTH};
    PbRng r = {9};
    Value in[1] = {value_tensor(pb_uniform(&r, DT_F32, 2, xs, -1, 1))};
    if (interp_bind(ip, in, 1, &err) || interp_run(ip, &err)) {
        fprintf(stderr, "memory: %s\n", err.msg);
        return 1;
    }
    /* every tensor byte epdbg allocated (the input, the activations and any
    ** kernel temporaries) at its high-water mark; weights are views of the
    ** mapped file and do not count */
    size_t live, max_live;
    tensor_memory_stats(&live, &max_live);
    long peak = bench_status_kb("VmHWM:");
    double weights_mb = (double)model_weight_bytes(m) / (1 << 20);
    double act_mb = (double)max_live / (1 << 20);
    double used_mb = (double)(peak - base) / 1024;
    double budget_mb = weights_mb + 1.2 * act_mb;
    printf("memory: weights %.1f MiB (%s), live activations at most %.1f MiB, peak RSS above baseline %.1f MiB, "
           "budget %.1f MiB: %s\n",
           weights_mb, m->weights_in_place ? "viewed in place" : "copied", act_mb, used_mb, budget_mb,
           used_mb <= budget_mb ? "within" : "OVER");
    value_clear(&in[0]);
    interp_free(ip);
    model_free(m);
    if (getenv("EPDBG_BENCH_KEEP"))
        printf("memory: kept %s\n", path);
    else
        unlink(path);
    ops_shutdown();
    return 0;
}
