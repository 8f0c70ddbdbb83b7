/*
** recorder.c -- the Profiler: measuring a run through the interpreter's
** seam (interp.h) and handing the result over as a plain Profile.
**
** Exact mode installs enter/leave hooks that read CLOCK_MONOTONIC around
** every node of the program's graph (subgraph nodes are inside their
** higher-order node's interval).  The clock's own cost -- what two
** back-to-back reads measure, calibrated when the recorder is made -- is
** subtracted from every node, so an empty node measures 0, not 25 ns.
** Hooks installed before (the session's node timer) keep being called,
** outside the measured interval: our stamp is the last thing before the
** kernel and the first after it.
**
** The same hooks note, once per node, the shapes of its tensors (for
** torch.profiler's "Input Shapes" and cost.h's FLOPs) and, every time,
** the tensor bytes it allocated and freed and the live bytes after it
** (tensor.h's counters); where memory peaks, which tensors are alive.
**
** Sampling mode arms sampler.h's timer for the measured iterations and
** installs the hooks only until every node has been seen once (a warm-up
** run does that), so the measured runs carry no per-node cost at all.
*/
#include "profiler/profile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "interp/ops.h"
#include "interp/srcinfo.h"
#include "profiler/cost.h"
#include "profiler/sampler.h"

/* Times kept per node for the median and p90; beyond this (a long profile
** of a large graph) they come from the first ones kept, while count,
** total, mean, min, max and stddev still cover every execution. */
#define TIMES_BUDGET (8 << 20)
#define MIN_TIMES_PER_NODE 64
/* Node events a trace may hold (iterations kept x nodes): past this, fewer
** iterations are kept, at least one.  Viewers fail on traces of hundreds
** of megabytes (profile-formats.md); 400k events is ~60 MB of JSON. */
#define TIMELINE_BUDGET 400000
#define MAX_TIMELINE_ITERS 16
#define PEAK_TENSORS 10

typedef struct NodeRec {
    /* exact mode, over every measured execution */
    int64_t count;
    double total, min, max;
    double mean, m2;     /* Welford's running mean and sum of squares */
    double *times;       /* the first `keep` times */
    int ntimes, cap;
    /* memory, last execution */
    int64_t alloc, freed, live_after;
    /* seen once: shapes and cost */
    bool seen;
    char *input_shapes;
    double flops, bytes;
} NodeRec;

struct Profiler {
    Interp *ip;
    const Graph *g;
    int nnodes;
    ProfileOptions opt;
    char *model_path;
    char *inputs;          /* the bound inputs as first seen */
    InterpHooks prev;      /* hooks there were before start */
    bool running, hooks_on;
    Sampler *sampler;
    int64_t timer_cost;    /* ns */
    int keep;              /* times kept per node */
    NodeRec *nodes;
    int unseen;            /* nodes whose shapes are not known yet */
    /* iterations */
    bool explicit_iters;   /* the CLI brackets them; else node 0 starts one */
    bool in_iter, warmup_iter, measuring;
    bool resumed;          /* the debugger: measuring a run entered mid-way */
    int iters, warmups;
    int64_t iter_t0;       /* ns */
    int64_t wall;          /* ns of measured iterations */
    /* the node in progress */
    int64_t t_enter;
    uint64_t alloc0, freed0;
    /* timeline: a ring of tl_cap iterations */
    int tl_cap, tl_used, tl_cur; /* tl_cur: slot of this iteration, -1 none */
    int64_t tl_opened;     /* iterations ever opened in the ring */
    int64_t *tl_start, *tl_dur, *tl_live, *tl_iter_start, *tl_iter_wall;
    int64_t tl_base;       /* ns: the clock at the first measured iteration */
    /* memory peak */
    int64_t peak_live;
    int peak_node;
    ProfileTensor *peak_tensors;
    int npeak;
    bool partial;
    char *reason;
    bool peaks_done;
    MachinePeaks peaks;
    /* a node seen for the first time: its inputs, until its outputs exist */
    CostTensor *pending_in;
    int npending_in;
};

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* What two back-to-back clock reads measure: the median of many pairs
** (the minimum would flatter; the mean counts the odd interrupt). */
static int64_t calibrate_timer(void)
{
    enum { PAIRS = 2001 };
    int64_t d[PAIRS];
    for (int i = 0; i < PAIRS; i++) {
        int64_t a = now_ns();
        int64_t b = now_ns();
        d[i] = b - a;
    }
    qsort(d, PAIRS, sizeof d[0], cmp_i64);
    return d[PAIRS / 2];
}

/* ---- what a node's tensors look like --------------------------------------- */

static void shape_text(StrBuf *sb, const Value *v)
{
    sb_append(sb, "[");
    if (v && v->kind == V_TENSOR)
        for (int d = 0; d < v->t->ndim; d++)
            sb_printf(sb, "%s%lld", d ? ", " : "", (long long)v->t->sizes[d]);
    sb_append(sb, "]");
}

static void cost_tensor_of(const Value *v, const char *arg, CostTensor *ct)
{
    ct->arg = arg;
    ct->dtype = v->t->dtype;
    ct->ndim = v->t->ndim;
    memcpy(ct->sizes, v->t->sizes, sizeof ct->sizes);
}

/* Node i's input shapes (before it runs: its inputs are all alive now). */
static void see_inputs(Profiler *pr, int i, CostTensor **in, int *nin)
{
    int n = interp_node_num_inputs(pr->ip, i);
    StrBuf sb;
    sb_init(&sb);
    sb_append(&sb, "[");
    *in = ep_xcalloc((size_t)(n ? n : 1), sizeof **in);
    *nin = 0;
    for (int k = 0; k < n; k++) {
        const char *arg = NULL;
        const char *name = interp_node_input_name(pr->ip, i, k, &arg);
        const Value *v = name ? interp_value(pr->ip, name) : NULL;
        if (k)
            sb_append(&sb, ", ");
        shape_text(&sb, v);
        if (v && v->kind == V_TENSOR && v->t)
            cost_tensor_of(v, arg, &(*in)[(*nin)++]);
    }
    sb_append(&sb, "]");
    free(pr->nodes[i].input_shapes);
    pr->nodes[i].input_shapes = sb_take(&sb);
}

/* Node i's outputs (after it ran), and with its inputs its cost. */
static void see_outputs(Profiler *pr, int i, CostTensor *in, int nin)
{
    int n = interp_node_num_outputs(pr->ip, i);
    CostTensor *out = ep_xcalloc((size_t)(n ? n : 1), sizeof *out);
    int nout = 0;
    for (int k = 0; k < n; k++) {
        const char *name = interp_node_output_name(pr->ip, i, k);
        const Value *v = name ? interp_value(pr->ip, name) : NULL;
        if (v && v->kind == V_TENSOR && v->t)
            cost_tensor_of(v, NULL, &out[nout++]);
    }
    NodeCost c = cost_node(&pr->g->nodes[i], in, nin, out, nout);
    pr->nodes[i].flops = c.flops;
    pr->nodes[i].bytes = c.bytes;
    free(out);
}

/* "x: float32[4, 16]; n: 3", the inputs as bound (once, at node 0). */
static char *describe_bound_inputs(const Interp *ip)
{
    StrBuf sb;
    sb_init(&sb);
    for (int i = 0; i < interp_num_user_inputs(ip); i++) {
        const UserInput *u = interp_user_input(ip, i);
        const Value *v = interp_value(ip, u->name);
        char *d = v ? value_describe(v) : ep_xstrdup("(not bound)");
        const char *text = strncmp(d, "tensor ", 7) == 0 ? d + 7 : d;
        sb_printf(&sb, "%s%s: %s", i ? "; " : "", user_input_name(u), text);
        free(d);
    }
    return sb_take(&sb);
}

/* ---- iterations -------------------------------------------------------------- */

static void timeline_open(Profiler *pr, int64_t t0)
{
    pr->tl_cur = -1;
    if (pr->opt.mode != PROFILE_EXACT || pr->tl_cap == 0)
        return;
    if (pr->tl_opened == 0)
        pr->tl_base = t0;
    /* a ring: once full, the oldest iteration's slot is reused */
    pr->tl_cur = (int)(pr->tl_opened++ % pr->tl_cap);
    if (pr->tl_used < pr->tl_cap)
        pr->tl_used++;
    int64_t *s = pr->tl_start + (size_t)pr->tl_cur * pr->nnodes;
    for (int i = 0; i < pr->nnodes; i++)
        s[i] = -1;
    pr->tl_iter_start[pr->tl_cur] = t0 - pr->tl_base;
    pr->tl_iter_wall[pr->tl_cur] = 0;
}

static void begin_measured(Profiler *pr, int64_t t0)
{
    pr->measuring = true;
    pr->iter_t0 = t0;
    timeline_open(pr, t0);
}

static void end_measured(Profiler *pr, bool complete)
{
    int64_t t1 = now_ns();
    if (!pr->measuring)
        return;
    pr->measuring = false;
    if (pr->tl_cur >= 0)
        pr->tl_iter_wall[pr->tl_cur] = t1 - pr->iter_t0;
    pr->tl_cur = -1;
    if (pr->explicit_iters)
        pr->wall += t1 - pr->iter_t0;
    if (complete)
        pr->iters++;
}

static void install_hooks(Profiler *pr);
static void remove_hooks(Profiler *pr);

void profiler_iteration_begin(Profiler *pr, bool warmup)
{
    pr->in_iter = true;
    pr->warmup_iter = warmup;
    if (!pr->running)
        return;
    if (pr->opt.mode == PROFILE_SAMPLE && pr->unseen > 0 && !pr->hooks_on)
        install_hooks(pr);
    if (warmup) {
        pr->warmups++;
        return;
    }
    if (pr->sampler)
        sampler_pause(pr->sampler, false);
    begin_measured(pr, now_ns());
}

void profiler_iteration_end(Profiler *pr)
{
    if (!pr->in_iter)
        return;
    if (pr->sampler)
        sampler_pause(pr->sampler, true);
    pr->in_iter = false;
    if (!pr->warmup_iter)
        end_measured(pr, !pr->partial);
    if (pr->opt.mode == PROFILE_SAMPLE && pr->unseen == 0 && pr->hooks_on)
        remove_hooks(pr);
}

/* ---- the hooks -------------------------------------------------------------- */

static void on_enter(void *ud, const InterpNodeRef *r)
{
    Profiler *pr = ud;
    if (pr->prev.enter)
        pr->prev.enter(pr->prev.ud, r);
    if (r->depth != 0)
        return;
    if (r->index == 0 && !pr->inputs)
        pr->inputs = describe_bound_inputs(pr->ip);
    if (!pr->explicit_iters && r->index == 0) { /* the debugger: a run starts */
        end_measured(pr, false);
        begin_measured(pr, now_ns());
        pr->resumed = false;
    } else if (!pr->explicit_iters && !pr->measuring) {
        /* the debugger goes on from the middle of a run: profiling started
        ** there, or the user went back after the end and runs again.  The
        ** nodes count; the run is no new iteration, and has no timeline */
        pr->measuring = true;
        pr->resumed = true;
        pr->iter_t0 = now_ns();
        pr->tl_cur = -1;
    }
    if (!pr->nodes[r->index].seen) {
        free(pr->pending_in);
        see_inputs(pr, r->index, &pr->pending_in, &pr->npending_in);
    }
    tensor_memory_counters(&pr->alloc0, &pr->freed0);
    tensor_memory_window_reset();
    pr->t_enter = now_ns(); /* last: nothing of ours inside the interval */
}

static void record_time(Profiler *pr, NodeRec *nr, double secs)
{
    nr->count++;
    nr->total += secs;
    if (nr->count == 1 || secs < nr->min)
        nr->min = secs;
    if (nr->count == 1 || secs > nr->max)
        nr->max = secs;
    double delta = secs - nr->mean;
    nr->mean += delta / (double)nr->count;
    nr->m2 += delta * (secs - nr->mean);
    if (nr->ntimes < pr->keep) {
        /* grown by doubling, never allocated whole: keep x nodes is up to
        ** 64 MB, and zeroing it here, in the first measured iteration,
        ** cost ~26 ms (page faults on a VM) that landed in "(dispatch)" */
        if (nr->ntimes == nr->cap) {
            nr->cap = nr->cap ? (nr->cap > pr->keep / 2 ? pr->keep : 2 * nr->cap) : 16;
            nr->times = ep_xrealloc(nr->times, (size_t)nr->cap * sizeof *nr->times);
        }
        nr->times[nr->ntimes++] = secs;
    }
}

/* The largest tensors alive now, as the peak's. */
static void note_peak_tensors(Profiler *pr)
{
    for (int i = 0; i < pr->npeak; i++) {
        free(pr->peak_tensors[i].name);
        free(pr->peak_tensors[i].desc);
    }
    InterpLiveTensor live[PEAK_TENSORS];
    int n = interp_live_tensors(pr->ip, live, PEAK_TENSORS);
    if (!pr->peak_tensors)
        pr->peak_tensors = ep_xcalloc(PEAK_TENSORS, sizeof *pr->peak_tensors);
    for (int i = 0; i < n; i++) {
        Value v = {.kind = V_TENSOR, .t = (Tensor *)live[i].t};
        char *d = value_describe(&v);
        pr->peak_tensors[i].name = ep_xstrdup(live[i].name);
        pr->peak_tensors[i].desc = ep_xstrdup(strncmp(d, "tensor ", 7) == 0 ? d + 7 : d);
        pr->peak_tensors[i].bytes = live[i].bytes;
        free(d);
    }
    pr->npeak = n;
}

static void on_leave(void *ud, const InterpNodeRef *r, EpStatus rc)
{
    Profiler *pr = ud;
    if (r->depth == 0) {
        int64_t t1 = now_ns(); /* first: nothing of ours inside the interval */
        int i = r->index;
        NodeRec *nr = &pr->nodes[i];
        int64_t d = t1 - pr->t_enter - pr->timer_cost;
        if (d < 0)
            d = 0;
        if (pr->measuring && pr->opt.mode == PROFILE_EXACT)
            record_time(pr, nr, (double)d * 1e-9);
        uint64_t alloc, freed;
        tensor_memory_counters(&alloc, &freed);
        size_t live, peak_ever;
        tensor_memory_stats(&live, &peak_ever);
        nr->alloc = (int64_t)(alloc - pr->alloc0);
        nr->freed = (int64_t)(freed - pr->freed0);
        nr->live_after = (int64_t)live;
        int64_t peak = (int64_t)tensor_memory_window_peak();
        if (peak > pr->peak_live) {
            pr->peak_live = peak;
            pr->peak_node = i;
            note_peak_tensors(pr);
        }
        if (pr->tl_cur >= 0) {
            size_t at = (size_t)pr->tl_cur * pr->nnodes + i;
            pr->tl_start[at] = pr->t_enter - pr->tl_base;
            pr->tl_dur[at] = d;
            pr->tl_live[at] = (int64_t)live;
        }
        if (!nr->seen) {
            see_outputs(pr, i, pr->pending_in, pr->npending_in);
            free(pr->pending_in);
            pr->pending_in = NULL;
            nr->seen = true;
            pr->unseen--;
        }
        if (!pr->explicit_iters && i == pr->nnodes - 1 && rc == EP_OK)
            end_measured(pr, !pr->resumed); /* the debugger: the run is complete */
    }
    if (pr->prev.leave)
        pr->prev.leave(pr->prev.ud, r, rc);
}

static void install_hooks(Profiler *pr)
{
    InterpHooks h = {.enter = on_enter, .leave = on_leave, .ud = pr};
    interp_set_hooks(pr->ip, &h);
    pr->hooks_on = true;
}

static void remove_hooks(Profiler *pr)
{
    interp_set_hooks(pr->ip, &pr->prev);
    pr->hooks_on = false;
}

/* ---- the recorder's life ----------------------------------------------------- */

Profiler *profiler_new(Interp *ip, const char *model_path, const ProfileOptions *opt, EpError *err)
{
    ProfileOptions o = opt ? *opt : PROFILE_OPTIONS_DEFAULT;
    if (o.mode == PROFILE_SAMPLE && (o.sample_hz < PROFILE_MIN_HZ || o.sample_hz > PROFILE_MAX_HZ)) {
        ep_fail(err, EP_ERR_USAGE, "sampling rate %d Hz is outside %d Hz .. %d kHz", o.sample_hz, PROFILE_MIN_HZ,
                PROFILE_MAX_HZ / 1000);
        return NULL;
    }
    Profiler *pr = ep_xcalloc(1, sizeof *pr);
    pr->ip = ip;
    pr->g = &interp_program(ip)->graph;
    pr->nnodes = pr->g->nnodes;
    pr->opt = o;
    pr->explicit_iters = o.iterations;
    pr->model_path = ep_xstrdup(model_path ? model_path : "");
    pr->nodes = ep_xcalloc((size_t)(pr->nnodes ? pr->nnodes : 1), sizeof *pr->nodes);
    pr->unseen = pr->nnodes;
    pr->peak_node = -1;
    pr->tl_cur = -1;
    int per_node = pr->nnodes ? TIMES_BUDGET / pr->nnodes : TIMES_BUDGET;
    pr->keep = per_node > MIN_TIMES_PER_NODE ? per_node : MIN_TIMES_PER_NODE;
    if (o.mode == PROFILE_EXACT) {
        pr->timer_cost = calibrate_timer();
        int cap = pr->nnodes ? TIMELINE_BUDGET / pr->nnodes : MAX_TIMELINE_ITERS;
        pr->tl_cap = cap < 1 ? 1 : cap > MAX_TIMELINE_ITERS ? MAX_TIMELINE_ITERS : cap;
        size_t cells = (size_t)pr->tl_cap * (size_t)(pr->nnodes ? pr->nnodes : 1);
        pr->tl_start = ep_xcalloc(cells, sizeof *pr->tl_start);
        pr->tl_dur = ep_xcalloc(cells, sizeof *pr->tl_dur);
        pr->tl_live = ep_xcalloc(cells, sizeof *pr->tl_live);
        pr->tl_iter_start = ep_xcalloc((size_t)pr->tl_cap, sizeof *pr->tl_iter_start);
        pr->tl_iter_wall = ep_xcalloc((size_t)pr->tl_cap, sizeof *pr->tl_iter_wall);
    } else {
        pr->sampler = sampler_new(interp_now_top_slot(ip), pr->g->nodes, pr->nnodes, o.sample_hz, o.clock, err);
        if (!pr->sampler) {
            profiler_free(pr);
            return NULL;
        }
    }
    return pr;
}

EpStatus profiler_start(Profiler *pr, EpError *err)
{
    if (pr->running)
        return ep_fail(err, EP_ERR_USAGE, "the profiler is already running");
    pr->prev = interp_hooks(pr->ip);
    pr->running = true;
    if (pr->opt.mode == PROFILE_EXACT || pr->unseen > 0)
        install_hooks(pr);
    /* the timer runs from here to profiler_stop; the CLI's iterations
    ** unpause it (profiler_iteration_begin), the debugger samples throughout */
    if (pr->sampler) {
        sampler_pause(pr->sampler, pr->explicit_iters);
        return sampler_arm(pr->sampler, err);
    }
    return EP_OK;
}

void profiler_stop(Profiler *pr)
{
    if (!pr || !pr->running)
        return;
    if (pr->sampler)
        sampler_disarm(pr->sampler);
    if (!pr->explicit_iters)
        end_measured(pr, false);
    if (pr->hooks_on)
        remove_hooks(pr);
    pr->running = false;
}

bool profiler_running(const Profiler *pr)
{
    return pr && pr->running;
}

void profiler_hold(Profiler *pr, bool hold)
{
    if (!pr->running || !pr->sampler || pr->explicit_iters)
        return;
    EpError err = {0};
    if (hold)
        sampler_disarm(pr->sampler);
    else if (sampler_arm(pr->sampler, &err) != EP_OK)
        profiler_mark_partial(pr, err.msg); /* the samples of this command are lost: say so */
}

void profiler_mark_partial(Profiler *pr, const char *reason)
{
    pr->partial = true;
    free(pr->reason);
    pr->reason = reason ? ep_xstrdup(reason) : NULL;
}

void profiler_free(Profiler *pr)
{
    if (!pr)
        return;
    profiler_stop(pr);
    sampler_free(pr->sampler);
    for (int i = 0; i < pr->nnodes; i++) {
        free(pr->nodes[i].times);
        free(pr->nodes[i].input_shapes);
    }
    free(pr->nodes);
    for (int i = 0; i < pr->npeak; i++) {
        free(pr->peak_tensors[i].name);
        free(pr->peak_tensors[i].desc);
    }
    free(pr->peak_tensors);
    free(pr->pending_in);
    free(pr->tl_start);
    free(pr->tl_dur);
    free(pr->tl_live);
    free(pr->tl_iter_start);
    free(pr->tl_iter_wall);
    free(pr->model_path);
    free(pr->inputs);
    free(pr->reason);
    free(pr);
}

/* ---- the result ---------------------------------------------------------------- */

static char *dup_or_null(const char *s)
{
    return s ? ep_xstrdup(s) : NULL;
}

/* What the Profile says of node i apart from its measurements: names,
** module scopes and the user's source line. */
static void describe_node(const Node *n, ProfileNode *pn)
{
    pn->name = ep_xstrdup(n->name);
    pn->target = ep_xstrdup(op_short_target(n->target));
    ModuleScope *ms = NULL;
    int nms = n->meta.nn_module_stack ? module_scopes_parse(n->meta.nn_module_stack, &ms) : 0;
    pn->scopes = ep_xcalloc((size_t)(nms ? nms : 1), sizeof *pn->scopes);
    for (int k = 0; k < nms; k++) {
        pn->scopes[k].path = module_path_clean(ms[k].path ? ms[k].path : "");
        pn->scopes[k].type = dup_or_null(ms[k].type);
    }
    pn->nscopes = nms;
    module_scopes_free(ms, nms);
    SourceFrame *fr = NULL;
    int nfr = n->meta.stack_trace ? source_frames_parse(n->meta.stack_trace, &fr) : 0;
    int u = source_user_frame(fr, nfr);
    if (u >= 0) {
        pn->file = dup_or_null(fr[u].file);
        pn->line = fr[u].line;
        pn->func = dup_or_null(fr[u].func);
        pn->code = dup_or_null(fr[u].code);
    }
    source_frames_free(fr, nfr);
}

static ProfileStats node_stats(const NodeRec *nr)
{
    if (nr->count == 0)
        return (ProfileStats){0};
    double *v = ep_xcalloc((size_t)nr->ntimes, sizeof *v);
    memcpy(v, nr->times, (size_t)nr->ntimes * sizeof *v);
    ProfileStats s = profile_stats(v, nr->ntimes);
    free(v);
    /* every execution for these, whatever was kept for the quantiles */
    s.count = nr->count;
    s.total = nr->total;
    s.mean = nr->mean;
    s.min = nr->min;
    s.max = nr->max;
    s.stddev = sqrt(nr->m2 / (double)nr->count);
    return s;
}

/* The ring's iterations in time order into p, times relative to the oldest. */
static void copy_timeline(const Profiler *pr, Profile *p)
{
    int n = pr->tl_used;
    if (n == 0 || pr->nnodes == 0)
        return;
    /* while measuring, the open slot is incomplete: leave it out */
    int open = pr->measuring ? pr->tl_cur : -1;
    int oldest = pr->tl_used < pr->tl_cap ? 0 : (int)(pr->tl_opened % pr->tl_cap);
    size_t nn = (size_t)pr->nnodes;
    p->start = ep_xcalloc((size_t)n * nn, sizeof *p->start);
    p->dur = ep_xcalloc((size_t)n * nn, sizeof *p->dur);
    p->live = ep_xcalloc((size_t)n * nn, sizeof *p->live);
    p->iter_start = ep_xcalloc((size_t)n, sizeof *p->iter_start);
    p->iter_wall = ep_xcalloc((size_t)n, sizeof *p->iter_wall);
    int k = 0;
    int64_t base = -1;
    for (int j = 0; j < n; j++) {
        int slot = (oldest + j) % pr->tl_cap;
        if (slot == open)
            continue;
        if (base < 0)
            base = pr->tl_iter_start[slot];
        p->iter_start[k] = (double)(pr->tl_iter_start[slot] - base) * 1e-9;
        p->iter_wall[k] = (double)pr->tl_iter_wall[slot] * 1e-9;
        for (size_t i = 0; i < nn; i++) {
            size_t from = (size_t)slot * nn + i, to = (size_t)k * nn + i;
            bool ran = pr->tl_start[from] >= 0;
            p->start[to] = ran ? (double)(pr->tl_start[from] - base) * 1e-9 : -1;
            p->dur[to] = ran ? (double)pr->tl_dur[from] * 1e-9 : 0;
            p->live[to] = ran ? pr->tl_live[from] : 0;
        }
        k++;
    }
    p->timeline_iters = k;
}

Profile *profiler_take(Profiler *pr, EpError *err)
{
    (void)err;
    Profile *p = ep_xcalloc(1, sizeof *p);
    const Model *m = interp_model(pr->ip);
    p->model_path = ep_xstrdup(pr->model_path);
    p->program = dup_or_null(m->name);
    p->inputs = pr->inputs ? ep_xstrdup(pr->inputs) : describe_bound_inputs(pr->ip);
    p->mode = pr->opt.mode;
    p->clock = pr->opt.clock;
    p->sample_hz = pr->opt.mode == PROFILE_SAMPLE ? pr->opt.sample_hz : 0;
    p->threads = ops_blas_threads();
    p->iters = pr->iters;
    p->warmup = pr->warmups;
    p->partial = pr->partial;
    p->reason = dup_or_null(pr->reason);
    p->nnodes = pr->nnodes;
    p->nodes = ep_xcalloc((size_t)(pr->nnodes ? pr->nnodes : 1), sizeof *p->nodes);
    double nodes_total = 0;
    for (int i = 0; i < pr->nnodes; i++) {
        const NodeRec *nr = &pr->nodes[i];
        ProfileNode *pn = &p->nodes[i];
        describe_node(&pr->g->nodes[i], pn);
        pn->input_shapes = dup_or_null(nr->input_shapes);
        pn->time = node_stats(nr);
        pn->samples = pr->sampler ? sampler_count(pr->sampler, i) : 0;
        pn->flops = nr->flops;
        pn->bytes = nr->bytes;
        pn->alloc_bytes = nr->alloc;
        pn->freed_bytes = nr->freed;
        pn->live_after = nr->live_after;
        nodes_total += nr->total;
    }
    if (pr->opt.mode == PROFILE_EXACT) {
        p->timer_cost = (double)pr->timer_cost * 1e-9;
        /* the debugger's runs stop between nodes for as long as the user
        ** likes: there only the nodes' own time is counted */
        int64_t wall = pr->wall + (pr->measuring && pr->explicit_iters ? now_ns() - pr->iter_t0 : 0);
        p->wall = pr->explicit_iters ? (double)wall * 1e-9 : nodes_total;
        p->dispatch = p->wall > nodes_total ? p->wall - nodes_total : 0;
        copy_timeline(pr, p);
    } else {
        p->sample_period = 1.0 / pr->opt.sample_hz;
        int64_t inside = 0;
        for (int i = 0; i < pr->nnodes; i++)
            inside += p->nodes[i].samples;
        p->outside_samples = pr->explicit_iters ? sampler_outside(pr->sampler) : 0;
        p->samples = inside + p->outside_samples;
        p->wall = (double)pr->wall * 1e-9;
    }
    p->peak_live = pr->peak_live;
    p->peak_node = pr->peak_node;
    p->npeak_tensors = pr->npeak;
    p->peak_tensors = ep_xcalloc((size_t)(pr->npeak ? pr->npeak : 1), sizeof *p->peak_tensors);
    for (int i = 0; i < pr->npeak; i++)
        p->peak_tensors[i] = (ProfileTensor){ep_xstrdup(pr->peak_tensors[i].name),
                                             ep_xstrdup(pr->peak_tensors[i].desc), pr->peak_tensors[i].bytes};
    if (!pr->peaks_done) {
        machine_peaks(p->threads, &pr->peaks);
        pr->peaks_done = true;
    }
    p->peak_gflops = pr->peaks.gflops;
    p->peak_gbps = pr->peaks.gbps;
    p->machine = pr->peaks.cpu[0] ? ep_xstrdup(pr->peaks.cpu) : NULL;
    profile_clean_text(p);
    return p;
}
