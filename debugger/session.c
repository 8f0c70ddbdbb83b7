/*
** session.c -- the debugger session: opening, the stepping commands with
** their stop checks, watches and displays.  Breakpoints are in
** session_break.c, conditions in session_cond.c, what is known about each
** node (module scope, stack trace, name lookups) in node_table.c.
*/
#include "session_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inputs.h"

/* ---- opening ---------------------------------------------------------------- */

static void clear_inputs(Session *s)
{
    for (int i = 0; i < s->ninputs; i++) {
        value_clear(&s->inputs[i]);
        free(s->input_sources[i]);
    }
    free(s->inputs);
    free(s->input_sources);
    s->inputs_rejected = false;
}

/* n inputs, all unset (V_NONE) and of unknown source. */
static void alloc_inputs(Session *s, int n)
{
    s->inputs = ep_xcalloc((size_t)(n ? n : 1), sizeof *s->inputs);
    s->input_sources = ep_xcalloc((size_t)(n ? n : 1), sizeof *s->input_sources);
    s->ninputs = n;
}

void session_set_inputs(Session *s, const Value *inputs, int n)
{
    clear_inputs(s);
    alloc_inputs(s, n);
    for (int i = 0; i < n; i++)
        s->inputs[i] = value_copy(&inputs[i]);
}

void session_set_input(Session *s, int i, const Value *v)
{
    if (!s->inputs)
        alloc_inputs(s, interp_num_user_inputs(s->ip));
    value_clear(&s->inputs[i]);
    s->inputs[i] = value_copy(v);
    s->inputs_rejected = false;
    session_set_input_source(s, i, NULL);
}

void session_set_input_source(Session *s, int i, const char *source)
{
    if (i < 0 || i >= s->ninputs)
        return;
    free(s->input_sources[i]);
    s->input_sources[i] = source ? ep_xstrdup(source) : NULL;
}

const char *session_input_source(const Session *s, int i)
{
    return i >= 0 && i < s->ninputs ? s->input_sources[i] : NULL;
}

bool session_inputs_rejected(const Session *s)
{
    return s->inputs_rejected;
}

const SessionOptions *session_options(const Session *s)
{
    return &s->opt;
}

const Value *session_inputs(const Session *s, int *n)
{
    *n = s->ninputs;
    return s->inputs;
}

static void stop_set(Session *s, StopKind kind, int node, bool after)
{
    free(s->stop.detail);
    memset(&s->stop, 0, sizeof s->stop);
    s->stop.kind = kind;
    s->stop.node = node;
    s->stop.after = after;
}

/* The session over model; owns_model says whether session_free frees it. */
static Session *session_new(const SessionOptions *opt, Model *model, bool owns_model, EpError *err)
{
    Session *s = ep_xcalloc(1, sizeof *s);
    s->opt = *opt;
    s->model = model;
    s->owns_model = owns_model;
    s->next_bp_id = s->next_watch_id = s->next_display_id = 1;
    InterpOptions io = INTERP_OPTIONS_DEFAULT;
    io.history = true;
    io.kernels = opt->kernels;
    s->ip = interp_new(s->model, &io, err);
    if (!s->ip) {
        session_free(s);
        return NULL;
    }
    s->nodes = node_table_new(s->ip);
    /* the interpreter times each node itself, so only the kernel counts
    ** (not run_one's progress callback redrawing a front end) */
    s->timer = node_timer_new(interp_num_nodes(s->ip));
    InterpHooks hooks = node_timer_hooks(s->timer);
    interp_set_hooks(s->ip, &hooks);
    stop_set(s, STOP_NONE, -1, false);
    return s;
}

Session *session_open(const SessionOptions *opt, EpError *err)
{
    Model *model;
    if (model_open(opt->model_path, opt->model_name, &model, err))
        return NULL;
    return session_new(opt, model, true, err); /* frees the model on failure */
}

Session *session_open_model(const SessionOptions *opt, Model *model, EpError *err)
{
    return session_new(opt, model, false, err);
}

void session_free(Session *s)
{
    if (!s)
        return;
    free(s->stop.detail);
    for (int i = 0; i < s->nbps; i++)
        breakpoint_free(s->bps[i]);
    free(s->bps);
    for (int i = 0; i < s->nwatches; i++) {
        tensor_unref(s->watches[i]->target);
        tensor_unref(s->watches[i]->last);
        free(s->watches[i]->name);
        free(s->watches[i]);
    }
    free(s->watches);
    for (int i = 0; i < s->ndisplays; i++)
        free(s->displays[i]);
    free(s->displays);
    free(s->display_ids);
    node_table_free(s->nodes);
    clear_inputs(s);
    session_profile_free(s); /* puts the timer's hooks back before the Interp goes */
    interp_free(s->ip);
    node_timer_free(s->timer); /* after the Interp whose hooks point to it */
    if (s->owns_model)
        model_free(s->model);
    free(s);
}

Model *session_model(const Session *s) { return s->model; }
Interp *session_interp(const Session *s) { return s->ip; }
int session_num_nodes(const Session *s) { return interp_num_nodes(s->ip); }
const Stop *session_last_stop(const Session *s) { return &s->stop; }
const NodeInfo *session_node_info(const Session *s, int node) { return node_table_info(s->nodes, node); }

void session_interrupt(Session *s)
{
    s->interrupted = 1;
}

int session_find_node(const Session *s, const char *name, EpError *err)
{
    return node_table_find(s->nodes, name, err);
}

/* ---- values ---------------------------------------------------------------- */

const Value *session_value(const Session *s, const char *name, EpError *err)
{
    int node;
    const char *g = node_table_graph_name(s->nodes, name, &node);
    if (!g) {
        ep_fail(err, EP_ERR_USAGE, "no value named '%s' (`info graph` lists nodes, `info signature` inputs)", name);
        return NULL;
    }
    const Value *v = interp_value(s->ip, g);
    if (v)
        return v;
    if (node >= 0)
        ep_fail(err, EP_ERR_USAGE, "'%s' has not been computed yet (node #%d; the run is at #%d)", name, node,
                interp_pc(s->ip));
    else
        ep_fail(err, EP_ERR_USAGE, "'%s' has no value now (the program is not running)", name);
    return NULL;
}

EpStatus session_set_value(Session *s, const char *name, Value v, EpError *err)
{
    int node;
    const char *g = node_table_graph_name(s->nodes, name, &node);
    if (!g || !interp_value(s->ip, g)) {
        value_clear(&v);
        session_value(s, name, err); /* says why */
        return EP_ERR_USAGE;
    }
    return interp_set_value(s->ip, g, v, err);
}

char *session_nonfinite_inputs(const Session *s, int node)
{
    return interp_nonfinite_inputs(s->ip, node);
}

/* ---- watches ------------------------------------------------------------------- */

static Tensor *watch_target(Session *s, const char *name, EpError *err)
{
    const ExportedProgram *ep = interp_program(s->ip);
    int input = interp_find_user_input(s->ip, name);
    for (int i = 0; i < ep->ninput_specs; i++) {
        const InputSpec *sp = &ep->input_specs[i];
        const char *ph = ep->graph.inputs[i].ref;
        bool match = (ph && strcmp(ph, name) == 0) || (sp->target && strcmp(sp->target, name) == 0) ||
                     (input >= 0 && interp_user_input(s->ip, input)->spec_index == i);
        if (!match)
            continue;
        if (sp->kind != IN_PARAMETER && sp->kind != IN_BUFFER && sp->kind != IN_TENSOR_CONSTANT &&
            sp->kind != IN_USER_INPUT) {
            ep_fail(err, EP_ERR_USAGE, "'%s' is a %s, not a tensor to watch", name, input_kind_name(sp->kind));
            return NULL;
        }
        const Value *v = interp_value(s->ip, ph);
        if (!v && sp->kind != IN_USER_INPUT) {
            Tensor *w = sp->kind == IN_TENSOR_CONSTANT ? model_constant(s->model, sp->target)
                                                       : model_weight(s->model, sp->target);
            if (!w) { /* a copied record whose deferred read failed */
                ep_fail(err, EP_ERR_FORMAT, "'%s': %s", name,
                        s->model->fill_error ? s->model->fill_error : "its weight cannot be read");
                return NULL;
            }
            return tensor_ref(w);
        }
        if (!v || v->kind != V_TENSOR) {
            ep_fail(err, EP_ERR_USAGE, "'%s' is not a tensor", name);
            return NULL;
        }
        return tensor_ref(v->t);
    }
    ep_fail(err, EP_ERR_USAGE, "'%s' is not a parameter, buffer or user input (watch takes those; `info signature` "
                               "lists them)", name);
    return NULL;
}

const Watch *session_watch(Session *s, const char *name, EpError *err)
{
    Tensor *t = watch_target(s, name, err);
    if (!t)
        return NULL;
    Watch *w = ep_xcalloc(1, sizeof *w);
    w->id = s->next_watch_id++;
    w->name = ep_xstrdup(name);
    w->target = t;
    w->last = tensor_to_dtype(t, t->dtype, err);
    if (!w->last) {
        tensor_unref(t);
        free(w->name);
        free(w);
        return NULL;
    }
    s->watches = ep_xrealloc(s->watches, (size_t)(s->nwatches + 1) * sizeof *s->watches);
    s->watches[s->nwatches++] = w;
    return w;
}

int session_num_watches(const Session *s) { return s->nwatches; }
const Watch *session_watch_at(const Session *s, int i) { return s->watches[i]; }

static bool same_values(const Tensor *a, const Tensor *b)
{
    if (a->dtype != b->dtype || !shape_equal(a->ndim, a->sizes, b->ndim, b->sizes))
        return false;
    for (int64_t i = 0; i < tensor_numel(a); i++) {
        double x = tensor_get_f64(a, i), y = tensor_get_f64(b, i);
        if (x != y && !(x != x && y != y))
            return false;
    }
    return true;
}

static void describe_stats(StrBuf *sb, const Tensor *t)
{
    int64_t n = tensor_numel(t);
    if (n <= 8) { /* small: the values themselves */
        sb_append(sb, n == 1 ? "" : "[");
        for (int64_t i = 0; i < n; i++)
            sb_printf(sb, "%s%.6g", i ? ", " : "", tensor_get_f64(t, i));
        sb_append(sb, n == 1 ? "" : "]");
        return;
    }
    TensorStats st;
    tensor_stats(t, &st);
    sb_printf(sb, "min %.6g max %.6g mean %.6g", st.min, st.max, st.mean);
}

/* After node ran (or the end of the run wrote mutations back): the first
** watched tensor that changed, described in *detail. */
static int check_watches(Session *s, int node, char **detail)
{
    /* every watched tensor that changed: the end of the run writes several
    ** back at once, and no later stop would report the others */
    StrBuf sb;
    sb_init(&sb);
    int first = 0;
    for (int i = 0; i < s->nwatches; i++) {
        Watch *w = s->watches[i];
        if (same_values(w->target, w->last))
            continue;
        if (node >= 0) {
            const Node *n = interp_node(s->ip, node);
            sb_printf(&sb, "Watch %d: %s was changed by node #%d '%s' (%s)\n", w->id, w->name, node, n->name,
                      op_short_target(n->target));
        } else {
            sb_printf(&sb, "Watch %d: %s was written back at the end of the run (a mutation of the signature)\n",
                      w->id, w->name);
        }
        sb_append(&sb, "  old: ");
        describe_stats(&sb, w->last);
        sb_append(&sb, "\n  new: ");
        describe_stats(&sb, w->target);
        sb_append(&sb, "\n");
        EpError err;
        Tensor *now = tensor_to_dtype(w->target, w->target->dtype, &err);
        if (now) {
            tensor_unref(w->last);
            w->last = now;
        }
        w->hits++;
        if (!first)
            first = w->id;
    }
    if (first)
        *detail = sb_take(&sb);
    else
        sb_free(&sb);
    return first;
}

/* Watched tensors can also change by going backwards or restarting: take
** their current values as the reference.  A restart binds a new copy of
** the user inputs, so the target is looked up again. */
static void resync_watches(Session *s)
{
    for (int i = 0; i < s->nwatches; i++) {
        Watch *w = s->watches[i];
        EpError err;
        Tensor *target = watch_target(s, w->name, &err);
        if (target) {
            tensor_unref(w->target);
            w->target = target;
        }
        Tensor *now = tensor_to_dtype(w->target, w->target->dtype, &err);
        if (now) {
            tensor_unref(w->last);
            w->last = now;
        }
    }
}

/* ---- displays -------------------------------------------------------------------- */

int session_display_add(Session *s, const char *expr)
{
    s->displays = ep_xrealloc(s->displays, (size_t)(s->ndisplays + 1) * sizeof *s->displays);
    s->display_ids = ep_xrealloc(s->display_ids, (size_t)(s->ndisplays + 1) * sizeof *s->display_ids);
    s->displays[s->ndisplays] = ep_xstrdup(expr);
    s->display_ids[s->ndisplays] = s->next_display_id++;
    return s->display_ids[s->ndisplays++];
}

EpStatus session_display_delete(Session *s, int id, EpError *err)
{
    for (int i = 0; i < s->ndisplays; i++)
        if (id < 0 || s->display_ids[i] == id) {
            free(s->displays[i]);
            memmove(&s->displays[i], &s->displays[i + 1], (size_t)(s->ndisplays - i - 1) * sizeof *s->displays);
            memmove(&s->display_ids[i], &s->display_ids[i + 1],
                    (size_t)(s->ndisplays - i - 1) * sizeof *s->display_ids);
            s->ndisplays--;
            if (id >= 0)
                return EP_OK;
            i--;
        }
    return id < 0 ? EP_OK : ep_fail(err, EP_ERR_USAGE, "no display number %d", id);
}

int session_num_displays(const Session *s) { return s->ndisplays; }

const char *session_display(const Session *s, int i, int *id)
{
    *id = s->display_ids[i];
    return s->displays[i];
}

/* ---- moving ----------------------------------------------------------------------- */

EpStatus session_restart(Session *s, EpError *err)
{
    if (!s->inputs)
        return ep_fail(err, EP_ERR_USAGE, "no inputs are set (the archive stores no example inputs): give them "
                                          "with `run --input NAME=FILE` or `set NAME = FILE`");
    for (int i = 0; i < s->ninputs; i++)
        if (s->inputs[i].kind == V_NONE) {
            char *shown = inputs_display_name(s->ip, i);
            const char *name = inputs_user_name(s->ip, i);
            EpStatus rc = ep_fail(err, EP_ERR_USAGE, "input %s is not set: give it with `run --input %s=FILE` or "
                                  "`set %s = FILE`", shown, name, name);
            free(shown);
            return rc;
        }
    /* Rewind first: undoing every step restores what in-place ops and the
    ** end-of-run write-back changed in buffers and inputs, so each run
    ** starts from the same state (PyTorch calling the module again would
    ** see the updated buffers; a debugger re-running must not). */
    while (interp_history_len(s->ip) > 0)
        if (interp_step_back(s->ip, err))
            break;
    /* a copy: `record`, `check numerics` and the next restart need the
    ** inputs as given, whatever the program writes into them */
    EpStatus rc = interp_bind_copy(s->ip, s->inputs, s->ninputs, err);
    s->inputs_rejected = rc == EP_ERR_INPUT;
    resync_watches(s);
    stop_set(s, rc ? STOP_ERROR : STOP_START, rc ? -1 : 0, false);
    if (rc) {
        s->stop.detail = ep_xstrdup(err->msg);
        s->stop.error = rc;
    }
    return rc;
}

/* What a moving command wants: called before each node would run, with the
** count of nodes this command has run so far; true when the command is done. */
typedef bool (*GoalFn)(Session *s, int executed, const void *ctx);

double session_node_seconds(const Session *s, int node)
{
    return node_timer_last(s->timer, node);
}

void session_set_progress(Session *s, SessionProgressFn fn, void *ctx)
{
    s->progress = fn;
    s->progress_ctx = ctx;
}

/* Execute node pc, then the checks of a node that has run.  Returns true
** when the run must stop (the stop is set).  The node's time is taken by
** the session's timer inside interp_step. */
static bool run_one(Session *s)
{
    int node = interp_pc(s->ip);
    EpError err = {0};
    double t0 = ep_monotonic_seconds();
    if (s->progress && t0 - s->progress_last > 0.05) {
        s->progress_last = t0;
        s->progress(s->progress_ctx, node, interp_num_nodes(s->ip));
    }
    EpStatus step_rc = interp_step(s->ip, &err);
    if (step_rc) {
        stop_set(s, STOP_ERROR, node, false);
        s->stop.detail = ep_xstrdup(err.msg);
        s->stop.error = err.code;
        return true;
    }
    char *detail = NULL;
    /* After stepping back from the end, the step at pc == node count
    ** re-applies the end-of-run writes (buffers, inputs): no node ran, so
    ** only the watches have something to look at. */
    bool ran_node = node < interp_num_nodes(s->ip);
    bool mutated = ran_node && interp_node_mutates(s->ip, node);
    /* conditional breakpoints on this node, then NaN, then watches */
    for (int i = 0; ran_node && i < s->nbps; i++) {
        Breakpoint *b = s->bps[i];
        if (!b->enabled)
            continue;
        bool hit = false;
        if (b->kind == BP_NAN)
            hit = interp_node_nonfinite(s->ip, node, &detail);
        else if (b->cond_parsed && b->at[node])
            hit = bpcond_eval(b->cond_parsed, s->ip, node);
        if (hit) {
            stop_set(s, b->kind == BP_NAN ? STOP_NAN : STOP_BREAKPOINT, node, true);
            s->stop.breakpoint = b->id;
            s->stop.detail = detail;
            breakpoint_hit(s, i);
            return true;
        }
    }
    if (s->nwatches && (mutated || interp_finished(s->ip))) {
        int id = check_watches(s, interp_finished(s->ip) && !mutated ? -1 : node, &detail);
        if (id) {
            stop_set(s, STOP_WATCH, node, true);
            s->stop.breakpoint = id;
            s->stop.detail = detail;
            return true;
        }
    }
    return false;
}

/* A breakpoint whose location is node pc and that stops before the node
** (no condition: conditions are tested after the node has run). */
static int location_breakpoint(Session *s, int pc)
{
    if (pc >= interp_num_nodes(s->ip)) /* the end-of-run step: no node */
        return -1;
    for (int i = 0; i < s->nbps; i++) {
        Breakpoint *b = s->bps[i];
        if (b->enabled && !b->cond_parsed && b->kind != BP_NAN && b->at[pc])
            return i;
    }
    return -1;
}

static EpStatus drive_nodes(Session *s, GoalFn goal, const void *ctx, bool use_breakpoints);

/* Run nodes until goal, a breakpoint or the end; a sampling profile
** samples only while this runs. */
static EpStatus drive(Session *s, GoalFn goal, const void *ctx, bool use_breakpoints)
{
    if (s->profiler)
        profiler_hold(s->profiler, false);
    EpStatus rc = drive_nodes(s, goal, ctx, use_breakpoints);
    if (s->profiler)
        profiler_hold(s->profiler, true);
    return rc;
}

static EpStatus drive_nodes(Session *s, GoalFn goal, const void *ctx, bool use_breakpoints)
{
    s->interrupted = 0;
    for (int executed = 0;; executed++) {
        if (interp_finished(s->ip)) {
            stop_set(s, STOP_END, -1, false);
            return EP_OK;
        }
        int pc = interp_pc(s->ip);
        if (executed > 0 && goal(s, executed, ctx)) {
            stop_set(s, STOP_STEP, pc, false);
            return EP_OK;
        }
        /* a command starting where the last one stopped before a node does
        ** not stop there again; after a node (a condition, NaN or watch
        ** stop) the next node has not been visited yet */
        bool visited = executed == 0 && !(s->stop.after && s->stop.node == pc - 1);
        int bi = (!visited && use_breakpoints) ? location_breakpoint(s, pc) : -1;
        if (bi >= 0) {
            stop_set(s, STOP_BREAKPOINT, pc, false);
            s->stop.breakpoint = s->bps[bi]->id;
            breakpoint_hit(s, bi);
            return EP_OK;
        }
        if (s->interrupted) {
            stop_set(s, STOP_INTERRUPT, pc, false);
            return EP_OK;
        }
        /* before every node, not once per command: a front end's progress
        ** callback may read the profile while the command runs */
        s->profile_stale = true;
        if (run_one(s))
            return EP_OK;
    }
}

static EpStatus need_bound(Session *s, EpError *err)
{
    if (!interp_bound(s->ip))
        return ep_fail(err, EP_ERR_USAGE, "the program is not running (use `run` or `restart`)");
    if (interp_finished(s->ip))
        return ep_fail(err, EP_ERR_USAGE, "the program has finished (use `run`, `restart` or reverse-step)");
    return EP_OK;
}

static bool goal_count(Session *s, int executed, const void *ctx)
{
    (void)s;
    return executed >= *(const int *)ctx;
}

EpStatus session_step(Session *s, int n, EpError *err)
{
    EpStatus rc = need_bound(s, err);
    if (rc)
        return rc;
    return drive(s, goal_count, &n, true);
}

static bool goal_depth(Session *s, int executed, const void *ctx)
{
    (void)executed;
    return session_node_info(s, interp_pc(s->ip))->depth <= *(const int *)ctx;
}

EpStatus session_next(Session *s, int n, EpError *err)
{
    for (int k = 0; k < n; k++) {
        EpStatus rc = need_bound(s, err);
        if (rc)
            return k > 0 ? EP_OK : rc;
        int depth = session_node_info(s, interp_pc(s->ip))->depth;
        rc = drive(s, goal_depth, &depth, true);
        if (rc || s->stop.kind != STOP_STEP)
            return rc;
    }
    return EP_OK;
}

/* Whether module path p lies within scope (equal, or a child of it). */
static bool within(const char *p, const char *scope)
{
    size_t n = strlen(scope);
    return n == 0 || (strncmp(p, scope, n) == 0 && (p[n] == '\0' || p[n] == '.'));
}

static bool goal_leave_scope(Session *s, int executed, const void *ctx)
{
    (void)executed;
    return !within(session_node_info(s, interp_pc(s->ip))->module_path, (const char *)ctx);
}

EpStatus session_finish(Session *s, EpError *err)
{
    EpStatus rc = need_bound(s, err);
    if (rc)
        return rc;
    if (session_node_info(s, interp_pc(s->ip))->module_path[0] == '\0')
        return ep_fail(err, EP_ERR_USAGE, "finish: node #%d is in the top-level module, not inside a module call "
                                          "(use continue or until)", interp_pc(s->ip));
    char *scope = ep_xstrdup(session_node_info(s, interp_pc(s->ip))->module_path);
    rc = drive(s, goal_leave_scope, scope, true);
    free(scope);
    return rc;
}

static bool goal_never(Session *s, int executed, const void *ctx)
{
    (void)s;
    (void)executed;
    (void)ctx;
    return false;
}

EpStatus session_continue(Session *s, int n, EpError *err)
{
    for (int k = 0; k < (n > 0 ? n : 1); k++) {
        EpStatus rc = need_bound(s, err);
        if (rc)
            return k > 0 ? EP_OK : rc;
        rc = drive(s, goal_never, NULL, true);
        if (rc || (s->stop.kind != STOP_BREAKPOINT && s->stop.kind != STOP_NAN && s->stop.kind != STOP_WATCH))
            return rc;
    }
    return EP_OK;
}

EpStatus session_run(Session *s, EpError *err)
{
    EpStatus rc = session_restart(s, err);
    if (rc)
        return rc;
    /* a breakpoint on node 0 stops before it runs */
    int bi = location_breakpoint(s, 0);
    if (bi >= 0 && interp_num_nodes(s->ip) > 0) {
        stop_set(s, STOP_BREAKPOINT, 0, false);
        s->stop.breakpoint = s->bps[bi]->id;
        breakpoint_hit(s, bi);
        return EP_OK;
    }
    return drive(s, goal_never, NULL, true);
}

static bool goal_at(Session *s, int executed, const void *ctx)
{
    (void)executed;
    return interp_pc(s->ip) == *(const int *)ctx;
}

EpStatus session_until(Session *s, int node, EpError *err)
{
    EpStatus rc = need_bound(s, err);
    if (rc)
        return rc;
    if (node <= interp_pc(s->ip))
        return ep_fail(err, EP_ERR_USAGE, "node #%d is not ahead of the current position #%d (use goto or reverse-step)",
                       node, interp_pc(s->ip));
    return drive(s, goal_at, &node, true);
}

/* One node back; the end-of-run write-back is undone together with the
** last node, so a step back from the end lands before the last node. */
static EpStatus step_back(Session *s, EpError *err)
{
    if (interp_finished(s->ip)) {
        EpStatus rc = interp_step_back(s->ip, err);
        if (rc)
            return rc;
    }
    return interp_step_back(s->ip, err);
}

EpStatus session_reverse_step(Session *s, int n, EpError *err)
{
    if (!interp_bound(s->ip))
        return ep_fail(err, EP_ERR_USAGE, "the program is not running (use `run` first)");
    if (interp_history_len(s->ip) == 0)
        return ep_fail(err, EP_ERR_USAGE, "at the start of the run: nothing to step back over");
    for (int k = 0; k < n && interp_history_len(s->ip) > 0; k++) {
        EpStatus rc = step_back(s, err);
        if (rc)
            return rc;
    }
    resync_watches(s);
    int pc = interp_pc(s->ip);
    stop_set(s, pc == 0 ? STOP_BACK_START : STOP_STEP, pc, false);
    return EP_OK;
}

EpStatus session_reverse_continue(Session *s, EpError *err)
{
    if (!interp_bound(s->ip))
        return ep_fail(err, EP_ERR_USAGE, "the program is not running (use `run` first)");
    if (interp_history_len(s->ip) == 0)
        return ep_fail(err, EP_ERR_USAGE, "at the start of the run: nothing to step back over");
    while (interp_history_len(s->ip) > 0) {
        EpStatus rc = step_back(s, err);
        if (rc)
            return rc;
        int bi = location_breakpoint(s, interp_pc(s->ip));
        if (bi < 0) { /* a conditional or NaN breakpoint sits on the node itself */
            for (int i = 0; i < s->nbps && bi < 0; i++)
                if (s->bps[i]->enabled && s->bps[i]->kind != BP_NAN && s->bps[i]->at[interp_pc(s->ip)])
                    bi = i;
        }
        if (bi >= 0) {
            resync_watches(s);
            stop_set(s, STOP_BREAKPOINT, interp_pc(s->ip), false);
            s->stop.breakpoint = s->bps[bi]->id;
            return EP_OK;
        }
    }
    resync_watches(s);
    stop_set(s, STOP_BACK_START, 0, false);
    return EP_OK;
}

EpStatus session_goto(Session *s, int node, EpError *err)
{
    if (!interp_bound(s->ip))
        return ep_fail(err, EP_ERR_USAGE, "the program is not running (use `run` first)");
    if (node < 0 || node > interp_num_nodes(s->ip))
        return ep_fail(err, EP_ERR_USAGE, "no node #%d", node);
    while (interp_pc(s->ip) > node || interp_finished(s->ip)) {
        if (interp_history_len(s->ip) == 0)
            break;
        EpStatus rc = step_back(s, err);
        if (rc)
            return rc;
    }
    resync_watches(s);
    if (interp_pc(s->ip) == node) {
        stop_set(s, STOP_STEP, node, false);
        return EP_OK;
    }
    /* forwards, without stopping at breakpoints: a jump */
    return drive(s, goal_at, &node, false);
}
