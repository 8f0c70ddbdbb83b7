/*
** benchutil.h -- clocks and memory figures the benchmarks share (each
** benchmark is its own program, so these are static inline).
*/
#ifndef EP_BENCHUTIL_H
#define EP_BENCHUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

#endif
