/*
** load.c -- what opening an archive costs: time and peak memory per node on
** chains of tiny nodes, `epdbg info` and open of a GPT-2-small-shaped model
** (124 M parameters in a legacy archive), and the peak resident memory of a
** run over 128 MiB of weights in a legacy archive whose records are not
** 4-byte aligned (so every weight must be copied once).
**
**   build/release/bench/load [NODES...]      (default 1000 10000 100000)
**   build/release/bench/load --write-chain NODES FILE   (only write a chain, to profile
**                                                   `load --child open FILE`)
**
** Every archive is generated here into /tmp and removed afterwards
** (EPDBG_BENCH_KEEP=1 keeps them).  Each measurement runs in a fresh child
** process (this program re-executed with --child) so that its peak resident
** size (wait4's ru_maxrss) is the measured work's alone; a child doing
** nothing but start up gives the baseline subtracted.  A time is the best
** of three children.  When /usr/bin/python3 has torch, torch.load of the
** same weights (mmap=False: PyTorch 1.13 has no mmap) is timed beside them.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/benchutil.h"
#include "examples/gen/benchmodels.h"
#include "interp/interp.h"

#define REPEATS 3

/* ---- generated models -------------------------------------------------------- */

static void param(ProgBuilder *pb, PbRng *r, const char *fqn, int ndim, const int64_t *sizes, double b)
{
    Tensor *t = pb_uniform(r, DT_F32, ndim, sizes, -b, b);
    pb_param(pb, fqn, t);
    tensor_unref(t);
}

#define WIDE_DIM 2048
#define WIDE_LAYERS 8 /* 8 x 2048 x 2048 float32 = 128 MiB */
#define WIDE_BATCH 16

/* Linear layers over 128 MiB of weights, without biases (so nothing but the
** big matrices), ReLU between them. */
static ProgBuilder *wide_model(PbRng *r, const char *cls)
{
    ProgBuilder *pb = pb_new(cls, false);
    int64_t ws[2] = {WIDE_DIM, WIDE_DIM}, xs[2] = {WIDE_BATCH, WIDE_DIM};
    for (int l = 0; l < WIDE_LAYERS; l++)
        param(pb, r, pb_fmt("l%d.weight", l), 2, ws, 0.02);
    Tensor *x = pb_uniform(r, DT_F32, 2, xs, -1, 1);
    pb_input(pb, "x", x, NULL);
    tensor_unref(x);
    char prev[32] = "x";
    for (int l = 0; l < WIDE_LAYERS; l++) {
        pb_node(pb, "aten.linear.default", pb_fmt("lin%d", l),
                pb_fmt("input=%%%s weight=%%%s", prev, pb_ph(pb, pb_fmt("l%d.weight", l))), pb_fmt("lin%d", l));
        pb_node(pb, "aten.relu.default", pb_fmt("relu%d", l), pb_fmt("self=%%lin%d", l), pb_fmt("relu%d", l));
        snprintf(prev, sizeof prev, "relu%d", l);
    }
    pb_output(pb, prev);
    return pb;
}

/* ---- children ---------------------------------------------------------------------- */

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* In the child: open (and with "run", bind zeros and run once); print the
** seconds the open took. */
static int child(const char *what, const char *path)
{
    EpError err = {0};
    if (ops_init(&err))
        return 1;
    if (!strcmp(what, "base")) {
        printf("0\n");
        return 0;
    }
    /* EPDBG_BENCH_CPU=1: the process's CPU time instead of wall time (on a
    ** shared, loaded machine the wall time is mostly waiting for a core) */
    bool cpu = getenv("EPDBG_BENCH_CPU") != NULL;
    double t0 = cpu ? cpu_now() : bench_now();
    Model *m;
    if (model_open(path, NULL, &m, &err)) {
        fprintf(stderr, "load: %s\n", err.msg);
        return 1;
    }
    Interp *ip = interp_new(m, NULL, &err);
    double t = (cpu ? cpu_now() : bench_now()) - t0;
    if (!ip) {
        fprintf(stderr, "load: %s\n", err.msg);
        return 1;
    }
    if (!strcmp(what, "run")) {
        int64_t xs[2] = {WIDE_BATCH, WIDE_DIM};
        Value in = value_tensor(tensor_zeros(DT_F32, 2, xs, &err));
        if (interp_bind(ip, &in, 1, &err) || interp_run(ip, &err)) {
            fprintf(stderr, "load: %s\n", err.msg);
            return 1;
        }
        value_clear(&in);
    }
    printf("%.9f\n", t);
    if (getenv("EPDBG_BENCH_VERBOSE")) /* which pages: the file's or our own */
        fprintf(stderr, "load: %s: RssAnon %ld kB, RssFile %ld kB, VmHWM %ld kB\n", what, bench_status_kb("RssAnon:"),
                bench_status_kb("RssFile:"), bench_status_kb("VmHWM:"));
    interp_free(ip);
    model_free(m);
    ops_shutdown();
    return 0;
}

typedef struct Measure {
    double seconds; /* the child's own figure (open), or its wall time */
    double peak_mb; /* ru_maxrss */
} Measure;

/* Run argv in a child, its stdout's first number and its peak RSS. */
static Measure spawn(char *const argv[])
{
    Measure ms = {-1, -1};
    int fds[2];
    if (pipe(fds))
        return ms;
    double t0 = bench_now();
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execv(argv[0], argv);
        _exit(127);
    }
    close(fds[1]);
    char buf[256] = "";
    ssize_t n = read(fds[0], buf, sizeof buf - 1);
    char drain[4096];
    while (read(fds[0], drain, sizeof drain) > 0) {
    }
    close(fds[0]);
    int status;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return ms;
    double wall = bench_now() - t0;
    buf[n > 0 ? n : 0] = '\0';
    ms.seconds = n > 0 && buf[0] >= '0' && buf[0] <= '9' ? atof(buf) : wall;
    ms.peak_mb = (double)ru.ru_maxrss / 1024.0;
    return ms;
}

static char self[4096];

/* Best time and least peak of REPEATS children. */
static Measure best_of(char *const argv[])
{
    Measure best = {1e30, 1e30};
    for (int k = 0; k < REPEATS; k++) {
        Measure m = spawn(argv);
        if (m.seconds < 0) {
            fprintf(stderr, "load: %s %s %s failed\n", argv[1], argv[2] ? argv[2] : "", argv[3] ? argv[3] : "");
            exit(1);
        }
        if (m.seconds < best.seconds)
            best.seconds = m.seconds;
        if (m.peak_mb < best.peak_mb)
            best.peak_mb = m.peak_mb;
    }
    return best;
}

static Measure measure(const char *what, const char *path)
{
    char *argv[] = {self, (char *)"--child", (char *)what, (char *)path, NULL};
    return best_of(argv);
}

/* `epdbg info path` (the binary next to bench/). */
static Measure measure_info(const char *path)
{
    char epdbg[4200];
    snprintf(epdbg, sizeof epdbg, "%s", self);
    char *slash = strrchr(epdbg, '/');
    *slash = '\0';
    slash = strrchr(epdbg, '/');
    snprintf(slash, sizeof epdbg - (size_t)(slash - epdbg), "/epdbg");
    char *argv[] = {epdbg, (char *)"info", (char *)path, NULL};
    return best_of(argv);
}

/* Seconds torch.load takes on the nested state dict of a legacy archive,
** or -1 without PyTorch. */
static double torch_load_seconds(const char *path)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -c \"\n"
             "import io, time, zipfile, torch\n"
             "z = zipfile.ZipFile('%s'); blob = z.read('serialized_state_dict.pt')\n"
             "best = 1e9\n"
             "for _ in range(%d):\n"
             "    t = time.perf_counter(); torch.load(io.BytesIO(blob)); best = min(best, time.perf_counter() - t)\n"
             "print(best)\" 2>/dev/null",
             path, REPEATS);
    FILE *p = popen(cmd, "r");
    double s = -1;
    if (p) {
        if (fscanf(p, "%lf", &s) != 1)
            s = -1;
        pclose(p);
    }
    return s;
}

/* ---- archives ------------------------------------------------------------------------ */

static bool keep(void)
{
    return getenv("EPDBG_BENCH_KEEP") != NULL;
}

/* The models this bench writes, made in a child process: a child's peak
** resident size starts from its parent's at the fork, so the parent must
** stay small. */
typedef enum Which { CHAIN, GPT2, WIDE } Which;

static void write_model(Which which, int arg, const char *path, PbEra era)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        PbRng r = {(uint64_t)which + 1};
        ProgBuilder *pb = which == CHAIN  ? bench_chain_model(arg, &r)
                          : which == GPT2 ? bench_gpt2_model(&r, pb_fmt("bench.GPT2Shaped%.*s", arg, "xxxxxxxx"))
                                          : wide_model(&r, pb_fmt("bench.Wide%.*s", arg, "xxxxxxxx"));
        EpError err = {0};
        PbWriteOptions opt = {.era = era, .no_example_inputs = true};
        if (pb_write(pb, path, &opt, &err)) {
            fprintf(stderr, "load: %s\n", err.msg);
            _exit(1);
        }
        _exit(0);
    }
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        exit(1);
}

/* Where the legacy archive's nested state dict starts (its first local
** header), from the outer zip's own listing. */
static long nested_offset(const char *path)
{
    EpError err = {0};
    ZipArchive *z = zipa_open_file(path, &err);
    if (!z)
        return -1;
    long off = (long)zipa_data_offset(z, zipa_find(z, "serialized_state_dict.pt"));
    zipa_unref(z);
    return off;
}

static void tmp_path(char *buf, size_t cap, const char *what)
{
    snprintf(buf, cap, "/tmp/epdbg-bench-load-%s-%d.pt2", what, (int)getpid());
}

int main(int argc, char **argv)
{
    if (argc >= 4 && !strcmp(argv[1], "--child"))
        return child(argv[2], argv[3]);
    if (argc >= 4 && !strcmp(argv[1], "--write-chain")) { /* for perf: a chain to open with --child open */
        EpError err = {0};
        if (ops_init(&err)) /* the writer infers each value's tensor_values entry through the ops */
            return 1;
        write_model(CHAIN, atoi(argv[2]), argv[3], PB_ERA_2_11);
        return 0;
    }
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return 1;
    self[n] = '\0';
    EpError err = {0};
    if (ops_init(&err))
        return 1;
    setvbuf(stdout, NULL, _IOLBF, 0);
    double base = measure("base", "-").peak_mb;
    int sizes[8] = {1000, 10000, 100000}, nsizes = 3;
    if (argc > 1)
        for (nsizes = 0; nsizes < argc - 1 && nsizes < 8; nsizes++)
            sizes[nsizes] = atoi(argv[nsizes + 1]);
    char path[256];
    for (int i = 0; i < nsizes; i++) {
        tmp_path(path, sizeof path, "chain");
        write_model(CHAIN, sizes[i], path, PB_ERA_2_11);
        Measure o = measure("open", path);
        double mb = o.peak_mb - base;
        printf("load: chain of %6d nodes: open %8.1f ms, %5.2f us/node; peak %7.1f MiB above baseline, %5.2f KiB/node\n",
               sizes[i], o.seconds * 1e3, o.seconds * 1e6 / sizes[i], mb, mb * 1024 / sizes[i]);
        if (!keep())
            unlink(path);
    }

    /* GPT-2 small: legacy archive, 124 M parameters */
    {
        tmp_path(path, sizeof path, "gpt2");
        for (int k = 0; k < 8; k++) { /* records not 4-byte aligned, as in the archive */
            write_model(GPT2, k, path, PB_ERA_2_4);
            if (nested_offset(path) % 4 != 0)
                break;
        }
        Measure info = measure_info(path), o = measure("open", path);
        double tl = torch_load_seconds(path);
        printf("load: GPT-2-small-shaped legacy archive (124 M parameters, state dict at offset %ld): "
               "info %.1f ms, peak %.1f MiB; open %.1f ms, %.1f MiB above baseline",
               nested_offset(path), info.seconds * 1e3, info.peak_mb, o.seconds * 1e3, o.peak_mb - base);
        if (tl >= 0)
            printf("; torch.load of its state dict %.1f ms\n", tl * 1e3);
        else
            printf("; PyTorch not found: no torch.load column\n");
        if (!keep())
            unlink(path);
    }

    /* 128 MiB of weights whose records are not 4-byte aligned: the nested
    ** zip's offset depends on the program JSON's length, which the class
    ** name changes */
    {
        long off = 0;
        for (int k = 0; k < 8; k++) {
            tmp_path(path, sizeof path, "wide");
            write_model(WIDE, k, path, PB_ERA_2_4);
            off = nested_offset(path);
            if (off % 4 != 0)
                break;
        }
        double weights = (double)WIDE_LAYERS * WIDE_DIM * WIDE_DIM * 4 / (1024 * 1024);
        Measure info = measure_info(path), o = measure("open", path), run = measure("run", path);
        double budget = 1.1 * weights + 40;
        printf("load: %.0f MiB of weights, legacy archive, records at offset %ld (mod 4 = %ld): info %.1f ms, peak "
               "%.1f MiB; open %.1f ms; a run: peak %.1f MiB above baseline, budget 1.1 x weights + 40 = %.1f MiB: %s\n",
               weights, off, off % 4, info.seconds * 1e3, info.peak_mb, o.seconds * 1e3, run.peak_mb - base, budget,
               run.peak_mb - base <= budget ? "within" : "OVER");
        if (!keep())
            unlink(path);
    }
    ops_shutdown();
    return 0;
}
