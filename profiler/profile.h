/*
** profile.h -- a profile of an exported program's run: what was measured
** (plain data, owned, independent of the Interp that ran it), the recorder
** that measures it through the interpreter's seam (interp.h: hooks and the
** "node now executing" slots), and the views the reports are made of.
**
**   Profiler *pr = profiler_new(ip, &opt, &err);    attach to an Interp
**   profiler_start(pr, &err);                       hooks (exact) or timer (sampling)
**   per iteration: profiler_iteration_begin(pr); interp_run(ip, ...); profiler_iteration_end(pr);
**   profiler_stop(pr);
**   Profile *p = profiler_take(pr, &err);           the result (caller frees)
**   n = profile_rows(p, PROFILE_BY_LINE, &rows);    a view, for the writers
**
** Files of profiler/ (each one job):
**   profile.c         the data: profile_free, seconds per node, profile_stats
**   profile_view.c    the views: profile_rows (by op, node, module tree,
**                     source line)
**   recorder.c        Profiler: exact mode (hooks, the timer's own cost
**                     calibrated and subtracted), memory per node, shapes,
**                     the timeline of the last iterations
**   sampler.[ch]      sampling mode: timer_create(SIGEV_THREAD_ID) on the
**                     interpreting thread, a handler that reads the now-slot
**                     and increments a preallocated counter, nothing else
**   cost.[ch]         FLOPs and bytes moved per node from its op and shapes;
**                     this machine's sgemm peak and memory bandwidth,
**                     measured once and cached per machine
**   report*.c         the writers (report.h): table, json (and reading it
**                     back for --diff), chrome, speedscope, folded, svg
**   node_timer.[ch]   the session's wall time of each node's last run
**
** Units: seconds (double) and bytes (int64_t) everywhere.  Only the nodes
** of the program's graph are profiled; a higher-order node (cond,
** while_loop, ...) includes everything its subgraphs ran.
*/
#ifndef EP_PROFILE_H
#define EP_PROFILE_H

#include <stdint.h>
#include <stdio.h>

#include "interp/interp.h"

typedef enum ProfileMode { PROFILE_EXACT, PROFILE_SAMPLE } ProfileMode;
/* Sampling: what the timer counts.  Wall: elapsed time.  CPU: the
** process's CPU time, every thread's, so time spent in OpenBLAS's worker
** threads is charged to the node that called them. */
typedef enum ProfileClock { PROFILE_CLOCK_WALL, PROFILE_CLOCK_CPU } ProfileClock;

typedef struct ProfileOptions {
    ProfileMode mode;
    int sample_hz;        /* sampling: 1 .. 100000 (default 1000) */
    ProfileClock clock;   /* sampling (default wall) */
    bool iterations;      /* the caller brackets iterations with
                          ** profiler_iteration_begin/end (the CLI); false
                          ** (default): node 0 starting begins one (the debugger) */
} ProfileOptions;

extern const ProfileOptions PROFILE_OPTIONS_DEFAULT;

#define PROFILE_MIN_HZ 1
#define PROFILE_MAX_HZ 100000

/* ---- the data ------------------------------------------------------------ */

/* Statistics of one node's times over its executions (seconds). */
typedef struct ProfileStats {
    int64_t count;        /* executions measured */
    double total, mean, median, p90, min, max, stddev;
} ProfileStats;

/* One nn.Module scope a node runs in (nn_module_stack), outermost first. */
typedef struct ProfileScope {
    char *path;           /* dotted, as module_path_clean gives it: "encoder.layers.0" */
    char *type;           /* "torch.nn.modules.linear.Linear", or NULL */
} ProfileScope;

/* A tensor alive at the peak of memory. */
typedef struct ProfileTensor {
    char *name;           /* the graph value: "relu_3" */
    char *desc;           /* "float32[64, 128]" */
    int64_t bytes;
} ProfileTensor;

/* A node of the program's graph. */
typedef struct ProfileNode {
    char *name;           /* "addmm_3" */
    char *target;         /* "aten.addmm.default" (torch.ops. prefix dropped) */
    char *input_shapes;   /* "[[4, 16], [16, 32], []]" as torch.profiler prints
                          ** them ([] for a non-tensor argument), or NULL if unknown */
    ProfileScope *scopes; /* module scopes, outermost first (owned) */
    int nscopes;
    char *file;           /* the user's frame (source_user_frame), or NULL */
    int line;
    char *func;           /* that frame's function, or NULL */
    char *code;           /* its source line as recorded, or NULL */
    ProfileStats time;    /* exact mode; count 0 in sampling mode */
    int64_t samples;      /* sampling mode: samples that landed in this node */
    double flops;         /* estimated per execution (cost.h), 0 if unknown */
    double bytes;         /* estimated bytes read + written per execution */
    int64_t alloc_bytes;  /* tensor bytes allocated while it ran (last execution) */
    int64_t freed_bytes;  /* and freed (its inputs' last use included) */
    int64_t live_after;   /* live tensor bytes after it (last execution) */
} ProfileNode;

typedef struct Profile {
    char *model_path;     /* as given */
    char *program;        /* the program's name in the archive ("model") */
    char *inputs;         /* "x: float32[4, 16]; n: SymInt = 3" */
    char *machine;        /* CPU model name, or NULL */
    ProfileMode mode;
    ProfileClock clock;
    int sample_hz;
    int threads;          /* OpenBLAS threads */
    int iters;            /* complete iterations measured */
    int warmup;           /* iterations run before measuring */
    bool partial;         /* stopped early (Ctrl-C, a failing node) ... */
    char *reason;         /* ... and why, or NULL */
    int nnodes;
    ProfileNode *nodes;   /* the program's graph, in order */
    double wall;          /* seconds of the measured iterations, end to end
                          ** (a partial last iteration included) */
    double dispatch;      /* exact: wall less the nodes' times: the
                          ** interpreter between kernels (never hidden) */
    double timer_cost;    /* exact: one timestamp pair's calibrated cost,
                          ** subtracted from every node's time */
    int64_t samples;      /* sampling: every sample taken ... */
    int64_t outside_samples; /* ... of which this many landed outside any node */
    double sample_period; /* sampling: seconds one sample stands for (1/hz) */
    int64_t peak_live;    /* peak live tensor bytes over the run ... */
    int peak_node;        /* ... reached while this node ran (-1: none) */
    ProfileTensor *peak_tensors; /* the largest tensors alive just after
                          ** peak_node, largest first (at most 10) */
    int npeak_tensors;
    double peak_gflops;   /* this machine's sgemm peak and memory bandwidth */
    double peak_gbps;     /* (cost.h); 0 when not measured */
    /* Exact mode, for traces: the timeline of the last timeline_iters
    ** iterations, node i of iteration k at [k * nnodes + i]: start (seconds
    ** from the first kept iteration's start; < 0: did not run), duration,
    ** and live bytes after it.  Capped so traces stay openable. */
    int timeline_iters;
    double *start, *dur;
    int64_t *live;
    double *iter_start, *iter_wall; /* per kept iteration (timeline_iters) */
} Profile;

void profile_free(Profile *p); /* NULL ok */
/* Make every string of p valid UTF-8, in place (each byte of an invalid
** sequence becomes '?'): names and code lines come from the archive, and
** JSON, XML and the viewers reject what is not UTF-8.  The recorder and
** profile_read_json call it, so writers may rely on it. */
void profile_clean_text(Profile *p);

/* Seconds per iteration a node stands for: its measured total (exact) or
** its samples times the period (sampling), divided by max(iters, 1) --
** the one definition every view and writer uses. */
double profile_node_seconds(const Profile *p, int i);
/* The same for the dispatch row (exact) or the samples outside nodes. */
double profile_other_seconds(const Profile *p);
/* What the percentages are of: the sum of every node's seconds and the
** other row's (so every view's percentages add up to 100). */
double profile_total_seconds(const Profile *p);

/* ---- recording ----------------------------------------------------------- */

typedef struct Profiler Profiler;

/* A recorder for ip's program (ip must outlive it).  model_path is copied
** into the profile.  Sampling mode creates its timer here (EP_ERR_EXEC with
** the system's reason if refused). */
Profiler *profiler_new(Interp *ip, const char *model_path, const ProfileOptions *opt, EpError *err);
void profiler_free(Profiler *pr); /* NULL ok; stops first */
/* Install the hooks (exact; they also call hooks installed before, so a
** session's own timing goes on) or arm the timer (sampling). */
EpStatus profiler_start(Profiler *pr, EpError *err);
/* Put back the hooks there were before / disarm the timer. */
void profiler_stop(Profiler *pr);
bool profiler_running(const Profiler *pr);
/* Iterations (opt.iterations): the CLI brackets each run; a warm-up iteration is only
** observed (shapes, memory), not timed.  The debugger's profile calls
** neither: the recorder then counts a run each time node 0 starts, a run
** is complete when the last node has run (a run entered mid-way -- profiling
** started there, or time travel went back after the end -- has its nodes
** measured but is no iteration), and in sampling mode samples
** outside nodes are not counted (the session sits idle between commands).
** Sampling mode watches nodes through the hooks only until each node that
** ran has been seen once (its shapes and memory), then removes them. */
void profiler_iteration_begin(Profiler *pr, bool warmup);
void profiler_iteration_end(Profiler *pr);
/* The debugger holds sampling while no command runs (hold true) and lets
** it go while one does: the reader thread or timer is stopped, so an idle
** session costs nothing and its samples all land in runs.  No effect in
** exact mode or with bracketed iterations. */
void profiler_hold(Profiler *pr, bool hold);
/* Mark the profile partial (a failing node, Ctrl-C), reason copied. */
void profiler_mark_partial(Profiler *pr, const char *reason);
/* What was measured so far, as a Profile (new; caller frees).  May be
** called while running (the debugger's `profile report`). */
Profile *profiler_take(Profiler *pr, EpError *err);

/* ---- views ---------------------------------------------------------------- */

typedef enum ProfileBy { PROFILE_BY_OP, PROFILE_BY_NODE, PROFILE_BY_MODULE, PROFILE_BY_LINE } ProfileBy;

/* "op" -> PROFILE_BY_OP ...; false for an unknown name. */
bool profile_by_lookup(const char *name, ProfileBy *by);
const char *profile_by_name(ProfileBy by);

/* One row of a view.  Times are seconds per iteration (see
** profile_node_seconds).  self: the row's own nodes; total: adds the
** nodes of submodules (module view), equal to self otherwise.  pct = self
** / profile_total_seconds, so the self percentages of a view sum to 100
** (the view includes the other row: key "(dispatch)" in exact mode,
** "(outside nodes)" in sampling mode, node index -1). */
typedef struct ProfileRow {
    char *key;            /* "aten.addmm.default", "addmm_3", "encoder.layers.0", "model.py:97" */
    char *detail;         /* line: its code; module: its type; node: its target; op: NULL */
    char *input_shapes;   /* op and node views: the shapes of its first node, or NULL */
    int depth;            /* module view: 0 for the model itself, 1 for its children, ...; else 0 */
    double self, total, mean; /* mean: per call */
    double pct, total_pct;
    int64_t calls;        /* per iteration */
    int64_t samples;
    double flops, bytes;  /* per iteration */
    int first_node;       /* the row's first node in graph order (to jump to), -1 for the other row */
} ProfileRow;

/* The rows of a view, heaviest self first -- except the module view, a
** tree in preorder (the model "" first, children heaviest total first) --
** the other row last.  New array; free with profile_rows_free. */
int profile_rows(const Profile *p, ProfileBy by, ProfileRow **rows);
void profile_rows_free(ProfileRow *rows, int n);

/* count, total, mean, median, p90 (nearest rank), min, max, stddev
** (population) of n values (sorted in place; n == 0 gives all zeros). */
ProfileStats profile_stats(double *values, int n);

#endif
