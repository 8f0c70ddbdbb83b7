/*
** benchutil.h -- clocks and memory figures the benchmarks share (each
** benchmark is its own program, so these are static inline).
*/
#ifndef EP_BENCHUTIL_H
#define EP_BENCHUTIL_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Monotonic seconds. */
static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A "Key:  123 kB" figure of /proc/self/status in kB, or -1. */
static inline long bench_status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    size_t klen = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, klen) == 0)
            kb = atol(line + klen);
    if (f)
        fclose(f);
    return kb;
}

/* Reset the peak resident size (VmHWM) to the current one. */
static inline void bench_reset_peak(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f) {
        fputs("5", f);
        fclose(f);
    }
}

struct EpError;

/*
** Seconds per call of CALL(CTX, ERR), which returns false on failure: after
** warm-up calls (at least WARMUP_MIN and WARMUP_SECONDS, at most WARMUP_MAX),
** one timed call sets how many calls make a round of at least
** ROUND_SECONDS; the best of that call and ROUNDS rounds, -1 when a call
** fails.  bench/torch_common.py's best_time is the same on PyTorch's side.
*/
static inline double bench_best_time(bool (*call)(void *ctx, struct EpError *err), void *ctx, struct EpError *err,
                                     int rounds, double round_seconds, int warmup_min, int warmup_max,
                                     double warmup_seconds)
{
    double start = bench_now();
    for (int k = 0; k < warmup_max; k++) {
        if (!call(ctx, err))
            return -1;
        if (k >= warmup_min - 1 && bench_now() - start >= warmup_seconds)
            break;
    }
    double t0 = bench_now();
    if (!call(ctx, err))
        return -1;
    double one = bench_now() - t0;
    int calls = one >= round_seconds ? 1 : (int)(round_seconds / (one > 1e-7 ? one : 1e-7)) + 1;
    double best = one;
    for (int k = 0; k < rounds; k++) {
        double s = bench_now();
        for (int c = 0; c < calls; c++)
            if (!call(ctx, err))
                return -1;
        double per = (bench_now() - s) / calls;
        if (per < best)
            best = per;
    }
    return best;
}

/* Whether a row named NAME is wanted: no names in argv[first..argc), or
** one of them a prefix of NAME. */
static inline bool bench_wanted(const char *name, int argc, char **argv, int first)
{
    if (first >= argc)
        return true;
    for (int i = first; i < argc; i++)
        if (strncmp(name, argv[i], strlen(argv[i])) == 0)
            return true;
    return false;
}

/* The thread counts a table times, 1 and all cores (only 1 on one core):
** how many. */
static inline int bench_thread_counts(int threads[2])
{
    int cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    threads[0] = 1;
    threads[1] = cores > 1 ? cores : 1;
    return cores > 1 ? 2 : 1;
}

/* A time column: seconds in us or ms, or "failed" for s < 0. */
static inline void bench_print_time(double s)
{
    if (s < 0)
        printf(" %9s", "failed");
    else if (s < 1e-3)
        printf(" %7.1fus", s * 1e6);
    else
        printf(" %7.2fms", s * 1e3);
}

/* PyTorch's time column P and the ratio E / P ("-" unless both timed). */
static inline void bench_print_vs(double e, double p)
{
    bench_print_time(p);
    if (e > 0 && p > 0)
        printf(" %6.2f", e / p);
    else
        printf(" %6s", "-");
}

/*
** The PyTorch side of a benchmark: one Python child process, spoken to over
** pipes line by line.  It first prints "torch VERSION"; each later line it
** is sent gets one answer, seconds or "error ...".
*/
typedef struct BenchTorch {
    FILE *to, *from;
    pid_t pid;
    char version[64];
    const char *who; /* the benchmark's name, prefixed to PyTorch's errors */
} BenchTorch;

/*
** Start $EPDBG_PYTHON (default /usr/bin/python3) on $EPDBG_BENCH_TORCH
** (default SCRIPT); false, with why in WHY, when PyTorch cannot be used.
** WHAT names what the script imports, for that message.
*/
static inline bool bench_torch_start(BenchTorch *t, const char *who, const char *script,
                                     const char *what, char *why, size_t cap)
{
    const char *py = getenv("EPDBG_PYTHON") ? getenv("EPDBG_PYTHON") : "/usr/bin/python3";
    if (getenv("EPDBG_BENCH_TORCH"))
        script = getenv("EPDBG_BENCH_TORCH");
    t->who = who;
    if (access(py, X_OK) != 0 || access(script, R_OK) != 0) {
        snprintf(why, cap, "%s or %s not found", py, script);
        return false;
    }
    int in[2], out[2];
    if (pipe(in) != 0 || pipe(out) != 0) {
        snprintf(why, cap, "no pipe");
        return false;
    }
    t->pid = fork();
    if (t->pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[1]);
        close(out[0]);
        execl(py, py, script, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    t->to = fdopen(in[1], "w");
    t->from = fdopen(out[0], "r");
    char line[256];
    if (!fgets(line, sizeof line, t->from) || strncmp(line, "torch ", 6) != 0) {
        snprintf(why, cap, "%s cannot import %s", py, what);
        return false;
    }
    line[strcspn(line, "\n")] = 0;
    snprintf(t->version, sizeof t->version, "%.60s", line + 6);
    return true;
}

/* Ask the Python side one line; its answer as seconds (or -1). */
static inline double bench_torch_ask(BenchTorch *t, const char *cmd)
{
    fprintf(t->to, "%s\n", cmd);
    fflush(t->to);
    char line[512];
    if (!fgets(line, sizeof line, t->from))
        return -1;
    if (strncmp(line, "error", 5) == 0) {
        fprintf(stderr, "%s: PyTorch: %s", t->who, line);
        return -1;
    }
    return atof(line);
}

static inline void bench_torch_stop(BenchTorch *t)
{
    fclose(t->to);
    fclose(t->from);
    waitpid(t->pid, NULL, 0);
}

#endif
