/*
** dispatch.c -- per-node cost of the interpreter on a graph of 10,000 tiny
** elementwise nodes (one-element float32 tensors), where nearly all the time
** is dispatch: fixups, the registry call, storing the result, freeing the
** dead value.
**
**   build/release/bench/dispatch [NODES] [RUNS] [hooks]
**
** With "hooks", no-op enter/leave hooks are installed (interp_set_hooks):
** the floor of what an observer such as profiler/node_timer costs.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/benchutil.h"
#include "examples/gen/benchmodels.h"
#include "interp/interp.h"

static void noop_enter(void *ud, const InterpNodeRef *n)
{
    (void)ud;
    (void)n;
}

static void noop_leave(void *ud, const InterpNodeRef *n, EpStatus rc)
{
    (void)ud;
    (void)n;
    (void)rc;
}

int main(int argc, char **argv)
{
    int nodes = argc > 1 ? atoi(argv[1]) : 10000;
    int runs = argc > 2 ? atoi(argv[2]) : 50;
    bool hooks = argc > 3 && strcmp(argv[3], "hooks") == 0;
    EpError err = {0};
    if (ops_init(&err))
        return 1;
    PbRng r = {1};
    ProgBuilder *pb = bench_chain_model(nodes, &r);
    int64_t one[1] = {1};
    char path[] = "/tmp/epdbg-bench-dispatch-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    PbWriteOptions opt = {.era = PB_ERA_2_11};
    if (pb_write(pb, path, &opt, &err)) {
        fprintf(stderr, "dispatch: %s\n", err.msg);
        return 1;
    }
    pb_free(pb);

    double t0 = bench_now();
    Model *m;
    if (model_open(path, NULL, &m, &err)) {
        fprintf(stderr, "dispatch: %s\n", err.msg);
        return 1;
    }
    double t_open = bench_now() - t0;
    Interp *ip = interp_new(m, NULL, &err);
    double t_load = bench_now() - t0;
    if (hooks)
        interp_set_hooks(ip, &(InterpHooks){noop_enter, noop_leave, NULL});
    Value in[1] = {value_tensor(pb_uniform(&r, DT_F32, 1, one, -1, 1))};
    double best = 1e9, total = 0;
    for (int k = 0; k < runs; k++) {
        double s = bench_now();
        if (interp_bind(ip, in, 1, &err) || interp_run(ip, &err)) {
            fprintf(stderr, "dispatch: %s\n", err.msg);
            return 1;
        }
        double d = bench_now() - s;
        total += d;
        if (d < best)
            best = d;
    }
    printf("dispatch%s: %d nodes, %d runs: %.3f us/node best, %.3f us/node mean (open %.1f ms, prepare %.1f ms)\n",
           hooks ? " (no-op hooks)" : "", nodes, runs, best * 1e6 / nodes, total * 1e6 / nodes / runs, t_open * 1e3,
           (t_load - t_open) * 1e3);
    value_clear(&in[0]);
    interp_free(ip);
    model_free(m);
    if (getenv("EPDBG_BENCH_KEEP"))
        printf("dispatch: kept %s\n", path);
    else
        unlink(path);
    ops_shutdown();
    return 0;
}
