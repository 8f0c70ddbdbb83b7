/*
** sampler.h -- the sampling half of the profiler: a POSIX timer whose
** signal, delivered to the interpreting thread only, charges one sample to
** the node of the program's graph executing at that instant.
**
** The signal handler is the whole hot path and does as little as LuaJIT's
** lj_profile.c: it reads the interpreter's top-level "now" slot
** (interp_now_top_slot), turns the node pointer into an index by
** subtracting the graph's node array, and increments one preallocated
** counter.  No malloc, no locks, no stdio, no clock read.  Everything
** else -- turning counts into seconds, attributing nodes to lines -- runs
** later, on the reader's side.
**
** Delivery: timer_create with SIGEV_THREAD_ID names the thread that created
** the sampler, so the signal never lands on an OpenBLAS worker (a
** process-directed SIGPROF may).  The clock is CLOCK_MONOTONIC (wall
** time) or CLOCK_PROCESS_CPUTIME_ID (CPU time of every thread, so the
** workers' time is charged to the node that called them).  One sampler is
** armed at a time per process (the handler finds it through one global).
*/
#ifndef EP_SAMPLER_H
#define EP_SAMPLER_H

#include "profiler/profile.h"

typedef struct Sampler Sampler;

/* A sampler charging samples to the nnodes nodes starting at nodes, as the
** slot names them; created on (and delivering to) the calling thread.
** EP_ERR_EXEC with the system's reason when the timer cannot be made. */
Sampler *sampler_new(const _Atomic(const Node *) *slot, const Node *nodes, int nnodes, int hz, ProfileClock clock,
                     EpError *err);
void sampler_free(Sampler *s); /* NULL ok; disarms first */

/* Start / stop the timer.  Arming while another sampler is armed is
** EP_ERR_USAGE. */
EpStatus sampler_arm(Sampler *s, EpError *err);
void sampler_disarm(Sampler *s);
bool sampler_armed(const Sampler *s);
/* Keep the timer running but drop its samples (between measured
** iterations).  A flag, not a syscall: re-arming the timer for each short
** iteration would restart its period, and a run shorter than the period
** would never be sampled -- or always at the same node. */
void sampler_pause(Sampler *s, bool paused);

/* Samples so far: of node i, outside any node, and in all. */
int64_t sampler_count(const Sampler *s, int i);
int64_t sampler_outside(const Sampler *s);
int64_t sampler_total(const Sampler *s);
void sampler_reset(Sampler *s);

#endif
