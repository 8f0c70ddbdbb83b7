/*
** profile.c -- what profiling costs: each model run uninstrumented, with
** exact profiling (hooks around every node), and sampled at 1 kHz of wall
** clock -- by the default reader thread and by a timer signal
** (EPDBG_SAMPLER=signal) -- as ratios to the uninstrumented time measured
** in the same round.
**
**   build/release/bench/profile [ROUNDS]
**
** Models: the chain of 10,000 one-element nodes (all dispatch: the
** per-node cost of exact mode, in ns), three models of a few hundred nodes
** that do real work (examples/gen/benchmodels.h: CNN, transformer, GRU)
** and the two bundled examples (examples/cnn.pt2 and mlp.pt2, built by the
** same generator).  Each round measures every variant once, in an order
** rotating from round to round so that drift (frequency, a neighbour on
** the host) falls on each variant alike; a variant's figure is the median
** over rounds of its time over the uninstrumented time of its round.  A
** measurement is a fixed number of iterations taking ~80 ms; each
** profiler is made and warmed up (one warm-up iteration, as the CLI's
** --warmup 1) outside the timed part, and inputs are bound outside it.
**
** EPDBG_BENCH_VERBOSE=1 prints every measurement to stderr with what
** explains a difference: the interpreting thread's CPU time, its page
** faults and its involuntary context switches (another thread took its
** CPU).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench/benchutil.h"
#include "examples/gen/benchmodels.h"
#include "examples/gen/models.h"
#include "interp/interp.h"
#include "profiler/profile.h"

#define CHAIN_NODES 10000
#define TARGET_SECONDS 0.08 /* one measurement */
#define DEFAULT_ROUNDS 11
/* "plain again" spreading wider than this (interquartile, either side)
** means something else took the CPUs: the row is flagged */
#define NOISY 0.01

/* ---- the variants ------------------------------------------------------------- */

/* V_AGAIN is the uninstrumented run measured a second time: its ratio is
** the noise floor (and any bias of the method), next to the others. */
typedef enum Variant { V_PLAIN, V_AGAIN, V_EXACT, V_WALL, V_SIGNAL, NVARIANTS } Variant;

static const struct {
    const char *name;
    bool profiled;
    ProfileMode mode;
    bool signal; /* EPDBG_SAMPLER=signal */
} VARIANTS[NVARIANTS] = {
    [V_PLAIN] = {"plain", false, PROFILE_EXACT, false},
    [V_AGAIN] = {"plain again", false, PROFILE_EXACT, false},
    [V_EXACT] = {"exact", true, PROFILE_EXACT, false},
    [V_WALL] = {"sample 1 kHz (thread)", true, PROFILE_SAMPLE, false},
    [V_SIGNAL] = {"sample 1 kHz (signal)", true, PROFILE_SAMPLE, true},
};

/* ---- the models --------------------------------------------------------------- */

static ProgBuilder *make_chain(PbRng *r, Tensor **input)
{
    ProgBuilder *pb = bench_chain_model(CHAIN_NODES, r);
    int64_t one[1] = {1};
    *input = pb_uniform(r, DT_F32, 1, one, -1, 1);
    return pb;
}

/* The examples take their archive's stored example inputs (*input NULL). */
static ProgBuilder *make_example_cnn(PbRng *r, Tensor **input)
{
    (void)r;
    *input = NULL;
    return model_cnn(false);
}

static ProgBuilder *make_example_mlp(PbRng *r, Tensor **input)
{
    (void)r;
    *input = NULL;
    return model_mlp(false);
}

static const struct {
    const char *name;
    ProgBuilder *(*make)(PbRng *r, Tensor **input);
} MODELS[] = {
    {"chain (10k tiny nodes)", make_chain},
    {"cnn (resnet-style)", bench_cnn_model},
    {"transformer encoder", bench_transformer_model},
    {"gru (unrolled)", bench_gru_model},
    {"examples/cnn.pt2", make_example_cnn},
    {"examples/mlp.pt2", make_example_mlp},
};
#define NMODELS ((int)EP_ARRAY_LEN(MODELS))

typedef struct Bench {
    const char *name;
    char path[64];
    Model *m;
    Interp *ip;
    Value *in;    /* the inputs (owned) */
    int nin;
    bool copy;    /* the program writes into an input: bind a fresh copy */
    int nodes;
    int iters;    /* per measurement */
    double t[NVARIANTS];
} Bench;

static void die(const char *what, const EpError *err)
{
    fprintf(stderr, "bench/profile: %s: %s\n", what, err->msg);
    exit(1);
}

static void bench_open(Bench *b, int k)
{
    EpError err = {0};
    PbRng r = {0x70726f66 + (uint64_t)k};
    Tensor *input;
    ProgBuilder *pb = MODELS[k].make(&r, &input);
    b->name = MODELS[k].name;
    snprintf(b->path, sizeof b->path, "/tmp/epdbg-bench-profile-XXXXXX");
    int fd = mkstemp(b->path);
    if (fd < 0) {
        perror("bench/profile: mkstemp");
        exit(1);
    }
    close(fd);
    PbWriteOptions opt = {.era = PB_ERA_2_11};
    if (pb_write(pb, b->path, &opt, &err))
        die(b->name, &err);
    pb_free(pb);
    if (model_open(b->path, NULL, &b->m, &err) || !(b->ip = interp_new(b->m, NULL, &err)))
        die(b->name, &err);
    if (input) {
        b->in = ep_xcalloc(1, sizeof *b->in);
        b->in[0] = value_tensor(input); /* takes the reference */
        b->nin = 1;
    } else if (interp_sample_inputs(b->ip, &b->in, &b->nin, &err)) {
        die(b->name, &err);
    }
    b->nodes = interp_num_nodes(b->ip);
    for (int i = 0; i < b->nodes; i++)
        b->copy |= interp_node_mutates(b->ip, i);
}

static void bench_close(Bench *b)
{
    for (int i = 0; i < b->nin; i++)
        value_clear(&b->in[i]);
    free(b->in);
    interp_free(b->ip);
    model_free(b->m);
    unlink(b->path);
}

static void bind(Bench *b)
{
    EpError err = {0};
    if ((b->copy ? interp_bind_copy : interp_bind)(b->ip, b->in, b->nin, &err))
        die(b->name, &err);
}

/* One iteration: the time of the run and, when profiled, of the
** iteration's brackets (part of what the profiler costs); the bind is not
** timed. */
static double iteration(Bench *b, Profiler *pr, bool warmup)
{
    EpError err = {0};
    bind(b);
    double t0 = bench_now();
    if (pr)
        profiler_iteration_begin(pr, warmup);
    if (interp_run(b->ip, &err))
        die(b->name, &err);
    if (pr)
        profiler_iteration_end(pr);
    return bench_now() - t0;
}

/* b->iters iterations of variant v, seconds (timed parts only). */
static double measure(Bench *b, Variant v)
{
    EpError err = {0};
    Profiler *pr = NULL;
    if (VARIANTS[v].profiled) {
        ProfileOptions o = PROFILE_OPTIONS_DEFAULT;
        o.mode = VARIANTS[v].mode;
        o.sample_hz = 1000;
        o.clock = PROFILE_CLOCK_WALL;
        o.iterations = true;
        /* sampler_new reads it */
        if (VARIANTS[v].signal)
            setenv("EPDBG_SAMPLER", "signal", 1);
        pr = profiler_new(b->ip, b->path, &o, &err);
        unsetenv("EPDBG_SAMPLER");
        if (!pr || profiler_start(pr, &err))
            die(b->name, &err);
    }
    iteration(b, pr, true);
    double total = 0;
    struct rusage ru0, ru1;
    struct timespec c0, c1;
    getrusage(RUSAGE_THREAD, &ru0);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    for (int it = 0; it < b->iters; it++)
        total += iteration(b, pr, false);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    getrusage(RUSAGE_THREAD, &ru1);
    if (getenv("EPDBG_BENCH_VERBOSE"))
        fprintf(stderr, "%-22s %-22s wall %7.2f ms cpu %7.2f ms minflt %5ld majflt %ld nvcsw %4ld nivcsw %4ld\n", b->name,
                VARIANTS[v].name, total * 1e3, ((c1.tv_sec - c0.tv_sec) + (c1.tv_nsec - c0.tv_nsec) * 1e-9) * 1e3,
                ru1.ru_minflt - ru0.ru_minflt, ru1.ru_majflt - ru0.ru_majflt, ru1.ru_nvcsw - ru0.ru_nvcsw,
                ru1.ru_nivcsw - ru0.ru_nivcsw);
    if (pr) {
        profiler_stop(pr);
        Profile *p = profiler_take(pr, &err);
        /* the profiler saw what ran: every iteration, and in sampling mode
        ** about one sample per millisecond */
        bool ok = p && p->iters == b->iters &&
                  (p->mode == PROFILE_EXACT ? p->nodes[0].time.count == b->iters
                                            : p->samples > 0 || total < 0.01);
        if (!ok) {
            fprintf(stderr, "bench/profile: %s, %s: the profile does not account for the %d iterations\n", b->name,
                    VARIANTS[v].name, b->iters);
            exit(1);
        }
        profile_free(p);
        profiler_free(pr);
    }
    return total;
}

/* Iterations making up one measurement of ~TARGET_SECONDS. */
static int calibrate(Bench *b)
{
    for (int i = 0; i < 3; i++)
        iteration(b, NULL, false);
    double best = 1e9;
    for (int i = 0; i < 5; i++) {
        double d = iteration(b, NULL, false);
        if (d < best)
            best = d;
    }
    int n = (int)(TARGET_SECONDS / best);
    return n < 1 ? 1 : n;
}

/* ---- statistics --------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile (0 .. 1) of n values, sorted in place (nearest rank). */
static double quantile(double *v, int n, double q)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    int k = (int)(q * (n - 1) + 0.5);
    return v[k];
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : DEFAULT_ROUNDS;
    if (rounds < 1) {
        fprintf(stderr, "usage: bench/profile [ROUNDS]\n");
        return 2;
    }
    /* profiler_take would otherwise measure the machine's peaks (cost.h) */
    setenv("EPDBG_NO_PEAKS", "1", 1);
    EpError err = {0};
    if (ops_init(&err))
        die("ops_init", &err);
    double t_start = bench_now();
    printf("profile overhead: median over %d rounds of (profiled time / uninstrumented time of the round) - 1;\n"
           "[25th, 75th percentile]; ns/node: (exact - plain) per node and run\n",
           rounds);
    printf("%-24s %6s %9s  %-22s  %-22s %8s  %-22s  %-22s\n", "model", "nodes", "run ms", "plain again", "exact",
           "ns/node", "sample 1kHz thread", "sample 1kHz signal");
    for (int k = 0; k < NMODELS; k++) {
        Bench b = {0};
        bench_open(&b, k);
        b.iters = calibrate(&b);
        double *ratio[NVARIANTS], *per_node = ep_xcalloc((size_t)rounds, sizeof *per_node);
        double *plain = ep_xcalloc((size_t)rounds, sizeof *plain);
        for (int v = 0; v < NVARIANTS; v++)
            ratio[v] = ep_xcalloc((size_t)rounds, sizeof *ratio[v]);
        for (int r = 0; r < rounds; r++) {
            for (int j = 0; j < NVARIANTS; j++) {
                Variant v = (Variant)((r + j) % NVARIANTS);
                b.t[v] = measure(&b, v);
            }
            for (int v = 0; v < NVARIANTS; v++)
                ratio[v][r] = b.t[v] / b.t[V_PLAIN];
            plain[r] = b.t[V_PLAIN] / b.iters;
            per_node[r] = (b.t[V_EXACT] - b.t[V_PLAIN]) / b.iters / b.nodes;
        }
        char col[NVARIANTS][32];
        for (int v = V_AGAIN; v < NVARIANTS; v++)
            snprintf(col[v], sizeof col[v], "%+6.2f%% [%+.2f, %+.2f]", (quantile(ratio[v], rounds, 0.5) - 1) * 100,
                     (quantile(ratio[v], rounds, 0.25) - 1) * 100, (quantile(ratio[v], rounds, 0.75) - 1) * 100);
        bool noisy = quantile(ratio[V_AGAIN], rounds, 0.25) < 1 - NOISY || quantile(ratio[V_AGAIN], rounds, 0.75) > 1 + NOISY;
        printf("%-24s %6d %9.3f  %-22s  %-22s %8.1f  %-22s  %-22s%s\n", b.name, b.nodes,
               quantile(plain, rounds, 0.5) * 1e3, col[V_AGAIN], col[V_EXACT], quantile(per_node, rounds, 0.5) * 1e9,
               col[V_WALL], col[V_SIGNAL], noisy ? "  noisy: other load" : "");
        fflush(stdout);
        for (int v = 0; v < NVARIANTS; v++)
            free(ratio[v]);
        free(per_node);
        free(plain);
        bench_close(&b);
    }
    printf("(%.0f s in all; a measurement: ~%.0f ms of iterations)\n", bench_now() - t_start, TARGET_SECONDS * 1e3);
    ops_shutdown();
    return 0;
}
