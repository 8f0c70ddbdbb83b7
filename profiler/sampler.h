/*
** sampler.h -- the sampling half of the profiler: at a fixed rate, charge
** one sample to the node of the program's graph executing at that instant.
**
** Taking a sample is the whole hot path and does as little as LuaJIT's
** lj_profile.c: read the interpreter's top-level "now" slot
** (interp_now_top_slot), turn the node pointer into an index by
** subtracting the graph's node array, increment one preallocated counter.
** No malloc, no locks, no stdio.  Turning counts into seconds and
** attributing nodes to lines runs later, on the reader's side.
**
** Two ways to take samples, by clock:
**   wall  a reader thread wakes every period (clock_nanosleep on an
**         absolute schedule) and reads the slot from outside, as py-spy
**         does.  The interpreting thread is never interrupted: on a
**         virtual machine a timer signal costs ~20 us (a VM exit and a
**         signal frame), 2 % of the run at 1 kHz; the reader costs ~0.
**   cpu   timer_create(CLOCK_PROCESS_CPUTIME_ID) with SIGEV_THREAD_ID: the
**         period is CPU time of every thread, so time OpenBLAS's workers
**         spend is charged to the node that called them, and the signal
**         goes to the interpreting thread only (a process-directed
**         SIGPROF may land on a worker).  The kernel checks CPU timers
**         once per scheduler tick, so each signal also charges the
**         periods it skipped (si_overrun).
** EPDBG_SAMPLER=signal in the environment makes wall sampling use a
** CLOCK_MONOTONIC timer signal too (bench/ compares the two).  One
** signal-driven sampler is armed at a time per process (its handler finds
** it through one global).
*/
#ifndef EP_SAMPLER_H
#define EP_SAMPLER_H

#include "profiler/profile.h"

typedef struct Sampler Sampler;

/* A sampler charging samples to the nnodes nodes starting at nodes, as the
** slot names them; a signal-driven one delivers to the calling thread.
** EP_ERR_EXEC with the system's reason when the timer cannot be made. */
Sampler *sampler_new(const _Atomic(const Node *) *slot, const Node *nodes, int nnodes, int hz, ProfileClock clock,
                     EpError *err);
void sampler_free(Sampler *s); /* NULL ok; disarms first */

/* Start / stop sampling.  Arming a signal-driven sampler while another is
** armed is EP_ERR_USAGE. */
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
