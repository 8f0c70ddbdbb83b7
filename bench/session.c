/*
** session.c -- what the debugger's history costs.
**
** A debugger session keeps every value it has computed (so reverse-step is
** exact) and records what in-place ops overwrite.  Measured here:
**
**   time    on the 10,000-node chain of dispatch.c: continue to the end
**           with history, reverse-continue back to the start, goto the
**           middle from the end, and `check numerics` (a private run plus
**           float64 evaluation of every node), per node;
**   memory  on the six 2048x2048 layers of memory.c, batch 256: the peak
**           resident size above the baseline after running to the end,
**           against the budget weights + 1.2 x every value the history
**           holds (the input and twelve outputs: 13 x 2 MiB).
**
**   build/release/bench/session [NODES] [BATCH]
*/
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cblas.h>

#include "bench/benchutil.h"
#include "examples/gen/benchmodels.h"
#include "debugger/numerics.h"
#include "debugger/session.h"

/* Write pb to a new temporary archive; its path (new string). */
static char *write_temp(ProgBuilder *pb, const char *tag, EpError *err)
{
    char *path = ep_xasprintf("/tmp/epdbg-bench-%s-XXXXXX", tag);
    int fd = mkstemp(path);
    if (fd >= 0)
        close(fd);
    PbWriteOptions opt = {.era = PB_ERA_2_11, .no_example_inputs = true};
    EpStatus rc = pb_write(pb, path, &opt, err);
    pb_free(pb);
    if (rc) {
        unlink(path);
        free(path);
        return NULL;
    }
    return path;
}

static Session *open_session(const char *path, Tensor *input, EpError *err)
{
    SessionOptions so = {.model_path = path, .kernels = {.use_blas = true}};
    Session *s = session_open(&so, err);
    if (!s)
        return NULL;
    Value in = value_tensor(input);
    session_set_inputs(s, &in, 1);
    value_clear(&in);
    if (session_restart(s, err)) {
        session_free(s);
        return NULL;
    }
    return s;
}

static int bench_time(int nodes, EpError *err)
{
    PbRng r = {1};
    char *path = write_temp(bench_chain_model(nodes, &r), "session", err);
    if (!path)
        return 1;
    int64_t one[1] = {1};
    Session *s = open_session(path, pb_uniform(&r, DT_F32, 1, one, -1, 1), err);
    if (!s) {
        unlink(path);
        free(path);
        return 1;
    }
    double t0 = bench_now();
    EpStatus rc = session_continue(s, 1, err);
    double t1 = bench_now();
    if (rc == EP_OK)
        rc = session_reverse_continue(s, err);
    double t2 = bench_now();
    if (rc == EP_OK)
        rc = session_goto(s, nodes, err); /* the end */
    double t3 = bench_now();
    if (rc == EP_OK)
        rc = session_goto(s, nodes / 2, err);
    double t4 = bench_now();
    int n;
    const Value *inputs = session_inputs(s, &n);
    ShadowReport *rep = NULL;
    if (rc == EP_OK)
        rc = numerics_shadow(session_model(s), inputs, n, &NUMERICS_OPTIONS_DEFAULT, &rep, err);
    double t5 = bench_now();
    if (rc == EP_OK)
        printf("session: %d nodes: continue %.2f us/node, reverse-continue %.2f us/node, goto back %d nodes "
               "%.2f us/node, check numerics %.2f us/node\n",
               nodes, (t1 - t0) * 1e6 / nodes, (t2 - t1) * 1e6 / nodes, nodes - nodes / 2,
               (t4 - t3) * 1e6 / (nodes - nodes / 2), (t5 - t4) * 1e6 / nodes);
    numerics_shadow_free(rep);
    session_free(s);
    unlink(path);
    free(path);
    return rc != EP_OK;
}

static int bench_memory(int batch, EpError *err)
{
    PbRng r = {7};
    char *path = write_temp(bench_wide_model(batch, &r), "session-wide", err);
    if (!path)
        return 1;
    /* OpenBLAS's work buffers after a GEMM of the model's shape are
    ** baseline, not the session's */
    {
        size_t na = (size_t)batch * BENCH_WIDE_WIDTH, nb = (size_t)BENCH_WIDE_WIDTH * BENCH_WIDE_WIDTH;
        float *a = calloc(na, sizeof *a), *b = calloc(nb, sizeof *b), *c = calloc(na, sizeof *c);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, batch, BENCH_WIDE_WIDTH, BENCH_WIDE_WIDTH, 1, a,
                    BENCH_WIDE_WIDTH, b, BENCH_WIDE_WIDTH, 0, c, BENCH_WIDE_WIDTH);
        free(a);
        free(b);
        free(c);
    }
    int64_t xs[2] = {batch, BENCH_WIDE_WIDTH};
    Tensor *x = pb_uniform(&r, DT_F32, 2, xs, -1, 1);
    bench_reset_peak();
    tensor_memory_reset_peak();
    long base = bench_status_kb("VmRSS:");
    Session *s = open_session(path, x, err);
    EpStatus rc = s ? session_continue(s, 1, err) : EP_ERR_EXEC;
    if (rc == EP_OK) {
        size_t live, max_live;
        tensor_memory_stats(&live, &max_live);
        long peak = bench_status_kb("VmHWM:");
        double weights_mb = (double)model_weight_bytes(session_model(s)) / (1 << 20);
        double kept_mb = (double)max_live / (1 << 20);
        double used_mb = (double)(peak - base) / 1024;
        double budget_mb = weights_mb + 1.2 * kept_mb;
        printf("session memory: weights %.1f MiB, values kept for time travel %.1f MiB (%d nodes), peak RSS above "
               "baseline %.1f MiB, budget %.1f MiB: %s\n",
               weights_mb, kept_mb, session_num_nodes(s), used_mb, budget_mb,
               used_mb <= budget_mb ? "within" : "OVER");
    }
    session_free(s);
    unlink(path);
    free(path);
    return rc != EP_OK;
}

int main(int argc, char **argv)
{
    int nodes = argc > 1 ? atoi(argv[1]) : 10000;
    int batch = argc > 2 ? atoi(argv[2]) : 256;
    EpError err = {0};
    if (ops_init(&err))
        return 1;
    int failed = bench_time(nodes, &err) || bench_memory(batch, &err);
    if (failed)
        fprintf(stderr, "session: %s\n", err.msg);
    ops_shutdown();
    return failed;
}
