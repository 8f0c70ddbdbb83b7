/*
** models.c -- whole models against PyTorch (issue 13): each row is one model
** at one batch size, its warm run timed in epdbg and in PyTorch side by side,
** at one thread and at all cores.
**
**   build/release/bench/models [-b B,B,...] [--oracle] [MODEL ...]
**
** The models: the bundled examples (examples/gen/models.c: mlp, whose Dim
** allows batch up to 1024, and cnn, up to 64), the ResNet-style CNN and the
** transformer encoder of examples/gen/benchmodels.c, a six-layer 2048-wide
** MLP (bench_wide_model), each at batch 1, 8, 32 and 128 (-b changes the
** list), and the GPT-2-small-shaped model on 64 tokens (no batch dim).
** MODEL arguments keep only the models whose name starts with one of them.
**
** Each model is written by the generator into /tmp (removed afterwards),
** opened, bound to uniform [-1, 1) inputs (token ids uniform in the
** vocabulary) and run: the time is the best of seven rounds of at least
** 20 ms after warm-up runs (at least three and 0.2 s, at most 20; they also
** read the lazy weights), so it is a warm run: dispatch, kernels and
** allocation.  PyTorch's side opens the
** same archive with the repository's oracle (/work/shared/tools/oracle.py)
** in one Python process (bench/models_torch.py) and replays the ATen calls
** the oracle made, with inputs of the same shapes; see models_torch.py for
** why a replay and not the oracle's own loop (--oracle adds that loop's
** time at one thread, to show its per-node overhead).  Each row is
** measured in epdbg then PyTorch at one thread count, then the next, so
** load from elsewhere hits both alike.  Without PyTorch the table says so
** and shows epdbg's column only.  EPDBG_BENCH_KEEP=1 keeps the archives
** (their paths go to stderr), for `epdbg profile`.
*/
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/benchutil.h"
#include "examples/gen/benchmodels.h"
#include "examples/gen/models.h"
#include "interp/interp.h"
#include "interp/parallel.h"

#define ROUNDS 7
#define ROUND_SECONDS 0.02
#define WARMUP_SECONDS 0.2
#define WARMUP_MAX 20

/* ---- the models ------------------------------------------------------------- */

static ProgBuilder *build_mlp(int batch, PbRng *r)
{
    (void)batch, (void)r;
    return model_mlp(false);
}

static ProgBuilder *build_cnn(int batch, PbRng *r)
{
    (void)batch, (void)r;
    return model_cnn(false);
}

static ProgBuilder *build_resnet(int batch, PbRng *r)
{
    Tensor *x;
    ProgBuilder *pb = bench_cnn_model_batch(batch, r, &x);
    tensor_unref(x);
    return pb;
}

static ProgBuilder *build_encoder(int batch, PbRng *r)
{
    Tensor *x;
    ProgBuilder *pb = bench_transformer_model_batch(batch, r, &x);
    tensor_unref(x);
    return pb;
}

static ProgBuilder *build_wide(int batch, PbRng *r)
{
    return bench_wide_model(batch, r);
}

static ProgBuilder *build_gpt2(int batch, PbRng *r)
{
    (void)batch;
    return bench_gpt2_model(r, "bench.GPT2Shaped");
}

/* A model: its builder, the batch it allows at most (0: no batch dim, one
** row) and its input as "name:dtype:AxB[:hi]" with %d for the batch. */
typedef struct ModelDef {
    const char *name, *what;
    ProgBuilder *(*build)(int batch, PbRng *r);
    int max_batch;
    const char *input;
} ModelDef;

static const ModelDef MODELS[] = {
    {"mlp", "examples/mlp.pt2 16-32-32-4", build_mlp, 1024, "x:f32:%dx16"},
    {"cnn", "examples/cnn.pt2 3x16x16", build_cnn, 64, "x:f32:%dx3x16x16"},
    {"resnet", "ResNet-style, 81 convs", build_resnet, 1 << 20, "x:f32:%dx3x16x16"},
    {"encoder", "12 layers 64 wide, 64 tokens", build_encoder, 1 << 20, "x:f32:%dx64x64"},
    {"wide", "MLP 6 x 2048x2048", build_wide, 1 << 20, "x:f32:%dx2048"},
    {"gpt2", "GPT-2 small, 64 tokens", build_gpt2, 0, "ids:i64:64:50257"},
};
#define NMODELS ((int)(sizeof MODELS / sizeof MODELS[0]))

/* ---- the epdbg side ------------------------------------------------------------ */

typedef struct Bench {
    char path[64];
    Model *model;
    Interp *ip;
    Value in;
} Bench;

/* A tensor for "name:dtype:AxB[:hi]" (float32 uniform in [-1, 1), int64 in
** [0, hi)). */
static Tensor *make_input(const char *spec_text, PbRng *r)
{
    char spec[128];
    snprintf(spec, sizeof spec, "%s", spec_text);
    char *dt = strchr(spec, ':') + 1, *dims = strchr(dt, ':') + 1, *hi = strchr(dims, ':');
    if (hi)
        *hi++ = 0;
    int64_t sizes[EP_MAX_DIMS];
    int ndim = 0;
    for (char *d = dims; d && *d; d = strchr(d, 'x') ? strchr(d, 'x') + 1 : NULL)
        sizes[ndim++] = atoll(d);
    return strncmp(dt, "i64", 3) == 0 ? pb_ints(r, DT_I64, ndim, sizes, 0, hi ? atoll(hi) : 100)
                                      : pb_uniform(r, DT_F32, ndim, sizes, -1, 1);
}

static bool bench_open(Bench *b, const ModelDef *m, int batch, const char *spec, EpError *err)
{
    memset(b, 0, sizeof *b);
    PbRng r = {13};
    ProgBuilder *pb = m->build(batch, &r);
    snprintf(b->path, sizeof b->path, "/tmp/epdbg-bench-models-XXXXXX");
    int fd = mkstemp(b->path);
    close(fd);
    PbWriteOptions opt = {.era = PB_ERA_2_11, .no_example_inputs = true};
    EpStatus rc = pb_write(pb, b->path, &opt, err);
    pb_free(pb);
    b->in = value_tensor(make_input(spec, &r));
    if (rc == EP_OK)
        rc = model_open(b->path, NULL, &b->model, err);
    if (rc == EP_OK && !(b->ip = interp_new(b->model, NULL, err)))
        rc = err->code ? err->code : EP_ERR_EXEC;
    return rc == EP_OK;
}

static void bench_close(Bench *b)
{
    value_clear(&b->in);
    interp_free(b->ip);
    model_free(b->model);
    if (getenv("EPDBG_BENCH_KEEP"))
        fprintf(stderr, "models: kept %s\n", b->path);
    else
        unlink(b->path);
}

static bool bench_call(void *ctx, EpError *err)
{
    Bench *b = ctx;
    return interp_bind(b->ip, &b->in, 1, err) == EP_OK && interp_run(b->ip, err) == EP_OK;
}

/* Seconds per run: the best of ROUNDS rounds of at least ROUND_SECONDS. */
static double time_epdbg(Bench *b, EpError *err)
{
    /* warm-up: the lazy weights, the pool, the caches */
    return bench_best_time(bench_call, b, err, ROUNDS, ROUND_SECONDS, 3, WARMUP_MAX, WARMUP_SECONDS);
}

/* ---- the table ------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    int batches[16] = {1, 8, 32, 128}, nbatches = 4, first = 1;
    bool oracle = false;
    for (; first < argc && argv[first][0] == '-'; first++) {
        if (!strcmp(argv[first], "--oracle"))
            oracle = true;
        else if (!strcmp(argv[first], "-b") && first + 1 < argc) {
            nbatches = 0;
            for (char *p = argv[++first]; p && *p && nbatches < 16; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
                batches[nbatches++] = atoi(p);
        } else {
            fprintf(stderr, "usage: models [-b B,B,...] [--oracle] [MODEL ...]\n");
            return 2;
        }
    }
    EpError err = {0};
    if (ops_init(&err))
        return 1;
    signal(SIGPIPE, SIG_IGN);
    BenchTorch torch;
    char why[256] = "";
    bool have_torch = bench_torch_start(&torch, "models", "bench/models_torch.py", "torch or the oracle", why, sizeof why);
    int threads[2];
    int nthreads = bench_thread_counts(threads);
    if (have_torch)
        printf("models: epdbg vs PyTorch %s replaying the oracle's calls, warm runs; ratio = epdbg / PyTorch "
               "(< 1: epdbg faster)\n",
               torch.version);
    else
        printf("models: PyTorch not available (%s): epdbg's column only\n", why);
    printf("%-8s %-29s %5s", "model", "", "batch");
    for (int k = 0; k < nthreads; k++) {
        printf(" %8s %-2d", "epdbg", threads[k]);
        if (have_torch)
            printf(" %8s %-2d %6s", "torch", threads[k], "ratio");
    }
    if (have_torch && oracle)
        printf(" %9s", "oracle 1");
    printf("\n");
    for (int i = 0; i < NMODELS; i++) {
        const ModelDef *m = &MODELS[i];
        if (!bench_wanted(m->name, argc, argv, first))
            continue;
        for (int j = 0; j < (m->max_batch ? nbatches : 1); j++) {
            int batch = m->max_batch ? batches[j] : 1;
            char spec[128];
            snprintf(spec, sizeof spec, m->input, batch);
            printf("%-8s %-29s %5d", m->name, m->what, batch);
            if (batch > m->max_batch && m->max_batch) {
                printf("  -- beyond the export's batch range (max %d)\n", m->max_batch);
                continue;
            }
            fflush(stdout);
            Bench b;
            if (!bench_open(&b, m, batch, spec, &err)) {
                printf(" failed: %s\n", err.msg);
                bench_close(&b);
                err = (EpError){0};
                continue;
            }
            char cmd[512];
            bool torch_row = have_torch;
            if (torch_row) {
                snprintf(cmd, sizeof cmd, "load %s|%s", b.path, spec);
                torch_row = bench_torch_ask(&torch, cmd) >= 0;
            }
            for (int k = 0; k < nthreads; k++) {
                ep_set_threads(threads[k]);
                ops_set_blas_threads(threads[k]);
                double e = time_epdbg(&b, &err);
                bench_print_time(e);
                if (e < 0)
                    fprintf(stderr, "models: %s: %s\n", m->name, err.msg);
                if (have_torch) {
                    snprintf(cmd, sizeof cmd, "time %d", threads[k]);
                    bench_print_vs(e, torch_row ? bench_torch_ask(&torch, cmd) : -1);
                }
            }
            if (have_torch && oracle)
                bench_print_time(torch_row ? bench_torch_ask(&torch, "oracle 1") : -1);
            printf("\n");
            fflush(stdout);
            bench_close(&b);
        }
    }
    ep_set_threads(0);
    ops_set_blas_threads(1);
    if (have_torch)
        bench_torch_stop(&torch);
    ops_shutdown();
    return 0;
}
