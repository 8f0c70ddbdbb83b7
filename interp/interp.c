/*
** interp.c -- the top-level interpreter: binding and checking inputs,
** stepping through the graph, applying the signature's mutations, and
** exposing values and outputs to the front ends.
*/
#include "interp_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guards.h"
#include "prerun.h"
#include "pytree.h"
#include "srcinfo.h"

const InterpOptions INTERP_OPTIONS_DEFAULT = {.keep_values = false, .kernels = {.use_blas = true}};

/* What undoing one step needs (interp_step_back). */
typedef struct UndoTensor {
    Tensor *target; /* the tensor written in place (a reference) */
    Tensor *saved;  /* its values before the write */
} UndoTensor;

typedef struct UndoEntry {
    int node;       /* the node undone, or the node count for the end of the run */
    int nslots;
    int *slots;     /* slots the step wrote (their values are dropped) */
    int nsaved;
    UndoTensor *saved;
    int nsyms;
    char **syms;    /* symbols the step bound first */
} UndoEntry;

struct Interp {
    Model *model;
    const ExportedProgram *ep;
    InterpOptions opt;
    GraphPlan *plan;
    Value *env;
    int pc;
    bool bound, finished;
    UserInput *inputs;
    int ninputs;
    Value *bound_inputs;      /* the caller's user inputs (referenced) */
    int *user_output_spec;    /* output-spec index of each user output */
    int nuser_outputs;
    Value *user_outputs;      /* filled when the run finishes */
    SymBindings syms;
    RunCtx ctx;
    int nproblems, first_problem;
    UndoEntry *undo;          /* history option: one entry per step taken */
    int nundo, capundo;
    InterpHooks hooks;        /* what ctx.hooks points to while hooks are set */
    Guards *guards;           /* where each guard comes from, for messages */
    PrerunChecks *prerun;     /* what nodes need of the sizes; made at the first bind */
};

/* ---- creation --------------------------------------------------------------- */

Interp *interp_new(Model *model, const InterpOptions *opt, EpError *err)
{
    Interp *ip = ep_xcalloc(1, sizeof *ip);
    ip->model = model;
    ip->ep = model->ep;
    ip->opt = opt ? *opt : INTERP_OPTIONS_DEFAULT;
    sym_bindings_init(&ip->syms);
    ip->plan = graph_plan_new(&ip->ep->graph, err);
    if (!ip->plan) {
        interp_free(ip);
        return NULL;
    }
    ip->env = ep_xcalloc((size_t)(ip->plan->nslots ? ip->plan->nslots : 1), sizeof *ip->env);
    const ExportedProgram *ep = ip->ep;
    ip->inputs = ep_xcalloc((size_t)(ep->ninput_specs ? ep->ninput_specs : 1), sizeof *ip->inputs);
    for (int i = 0; i < ep->ninput_specs; i++) {
        const InputSpec *s = &ep->input_specs[i];
        if (s->kind != IN_USER_INPUT)
            continue;
        UserInput *u = &ip->inputs[ip->ninputs++];
        const Arg *ph = &ep->graph.inputs[i];
        u->name = ph->ref ? ph->ref : "?";
        u->kind = ph->kind;
        u->meta = ph->ref ? graph_tensor_meta(&ep->graph, ph->ref) : NULL;
        u->spec_index = i;
    }
    char **arg_names = pytree_arg_names(ep, ip->inputs, ip->ninputs);
    for (int i = 0; i < ip->ninputs; i++)
        ip->inputs[i].arg_name = arg_names[i];
    free(arg_names);
    ip->guards = guards_new(ep, ip->inputs, ip->ninputs);
    ip->user_output_spec = ep_xcalloc((size_t)(ep->noutput_specs ? ep->noutput_specs : 1), sizeof(int));
    for (int i = 0; i < ep->noutput_specs; i++)
        if (ep->output_specs[i].kind == OUT_USER_OUTPUT)
            ip->user_output_spec[ip->nuser_outputs++] = i;
    ip->user_outputs = ep_xcalloc((size_t)(ip->nuser_outputs ? ip->nuser_outputs : 1), sizeof(Value));
    ip->first_problem = -1;
    for (int i = 0; i < ip->plan->nnodes; i++)
        if (ip->plan->nodes[i].problem) {
            if (ip->first_problem < 0)
                ip->first_problem = i;
            ip->nproblems++;
        }
    if (ip->opt.history)
        ip->opt.keep_values = true; /* undoing needs every value */
    ip->ctx.kcfg = &ip->opt.kernels;
    ip->ctx.syms = &ip->syms;
    ip->ctx.keep_values = ip->opt.keep_values;
    atomic_init(&ip->ctx.now, NULL);
    atomic_init(&ip->ctx.now_top, NULL);
    return ip;
}

static void undo_entry_free(UndoEntry *u)
{
    free(u->slots);
    for (int i = 0; i < u->nsaved; i++) {
        tensor_unref(u->saved[i].target);
        tensor_unref(u->saved[i].saved);
    }
    free(u->saved);
    for (int i = 0; i < u->nsyms; i++)
        free(u->syms[i]);
    free(u->syms);
}

static void clear_history(Interp *ip)
{
    for (int i = 0; i < ip->nundo; i++)
        undo_entry_free(&ip->undo[i]);
    ip->nundo = 0;
}

static void clear_run(Interp *ip)
{
    clear_history(ip);
    if (ip->plan)
        for (int s = 0; s < ip->plan->nslots; s++)
            value_clear(&ip->env[s]);
    for (int i = 0; i < ip->nuser_outputs; i++)
        value_clear(&ip->user_outputs[i]);
    if (ip->bound_inputs) {
        for (int i = 0; i < ip->ninputs; i++)
            value_clear(&ip->bound_inputs[i]);
        free(ip->bound_inputs);
        ip->bound_inputs = NULL;
    }
    sym_bindings_clear(&ip->syms);
    ip->pc = 0;
    ip->bound = ip->finished = false;
}

void interp_free(Interp *ip)
{
    if (!ip)
        return;
    clear_run(ip);
    graph_plan_free(ip->plan);
    guards_free(ip->guards);
    prerun_checks_free(ip->prerun);
    free(ip->env);
    for (int i = 0; i < ip->ninputs; i++)
        free(ip->inputs[i].arg_name);
    free(ip->inputs);
    free(ip->user_output_spec);
    free(ip->user_outputs);
    sym_bindings_free(&ip->syms);
    free(ip->ctx.new_syms);
    free(ip->undo);
    free(ip);
}

const Model *interp_model(const Interp *ip) { return ip->model; }
int interp_num_user_inputs(const Interp *ip) { return ip->ninputs; }
const UserInput *interp_user_input(const Interp *ip, int i) { return &ip->inputs[i]; }
bool interp_bound(const Interp *ip) { return ip->bound; }
bool interp_finished(const Interp *ip) { return ip->finished; }
int interp_pc(const Interp *ip) { return ip->pc; }
int interp_num_nodes(const Interp *ip) { return ip->plan->nnodes; }
const Node *interp_node(const Interp *ip, int i) { return &ip->ep->graph.nodes[i]; }
const ExportedProgram *interp_program(const Interp *ip) { return ip->ep; }
const SymBindings *interp_symbols(const Interp *ip) { return &ip->syms; }
int interp_num_user_outputs(const Interp *ip) { return ip->nuser_outputs; }

void interp_set_hooks(Interp *ip, const InterpHooks *hooks)
{
    if (hooks && (hooks->enter || hooks->leave)) {
        ip->hooks = *hooks;
        ip->ctx.hooks = &ip->hooks;
    } else {
        ip->ctx.hooks = NULL; /* the runtime tests this one pointer per node */
    }
}

InterpHooks interp_hooks(const Interp *ip)
{
    return ip->ctx.hooks ? ip->hooks : (InterpHooks){0};
}

const Guards *interp_guards(const Interp *ip)
{
    return ip->guards;
}

const _Atomic(const Node *) *interp_now_slot(const Interp *ip)
{
    return &ip->ctx.now;
}

const _Atomic(const Node *) *interp_now_top_slot(const Interp *ip)
{
    return &ip->ctx.now_top;
}

const char *interp_node_problem(const Interp *ip, int i)
{
    return ip->plan->nodes[i].problem;
}

/* "node 12 'add_3' (aten.add.Tensor) at model.py:35 in forward: x + y" */
static void describe_node_into(const Interp *ip, int i, char *buf, size_t cap)
{
    const Node *n = interp_node(ip, i);
    char src[512];
    const char *where = source_user_location(n->meta.stack_trace, src, sizeof src);
    snprintf(buf, cap, "node %d '%s' (%s)%s%s", i, n->name, op_short_target(n->target), where ? " at " : "",
             where ? where : "");
}

char *interp_describe_node(const Interp *ip, int i)
{
    char buf[1024];
    describe_node_into(ip, i, buf, sizeof buf);
    return ep_xstrdup(buf);
}

EpStatus interp_check_supported(const Interp *ip, EpError *err)
{
    if (ip->nproblems == 0)
        return EP_OK;
    char where[1024];
    describe_node_into(ip, ip->first_problem, where, sizeof where);
    if (ip->nproblems == 1)
        return ep_fail(err, EP_ERR_EXEC, "%s: %s", where, ip->plan->nodes[ip->first_problem].problem);
    return ep_fail(err, EP_ERR_EXEC, "%s: %s (and %d more nodes cannot run; `epdbg info` lists them)", where,
                   ip->plan->nodes[ip->first_problem].problem, ip->nproblems - 1);
}

/* ---- describing inputs ---------------------------------------------------------- */

/* " (s0 in [2, 1024], s1 in [-inf, inf])": the range of every symbol in
** the sizes dims[0..n-1], each once, in order of appearance.  A symbol whose
** lower bound is 1 or 2 also accepts the sizes below it: PyTorch specializes
** 0 and 1 while exporting but its input check (_check_input_constraints_for_
** graph) enforces a lower bound only above 2, and check_tensor_input does
** the same, so an input's description (of_input) says so rather than
** promise a refusal. */
static void describe_ranges_of(const Interp *ip, const SymDim *const *dims, int n, bool of_input, StrBuf *sb)
{
    const ExportedProgram *ep = ip->ep;
    const char **seen = NULL; /* every distinct symbol of the dims, however many */
    int nseen = 0, capseen = 0;
    StrBuf below[3]; /* by lower bound 1 and 2: the symbols that also take smaller sizes */
    int nbelow[3] = {0};
    sb_init(&below[1]);
    sb_init(&below[2]);
    for (int d = 0; d < n; d++) {
        if (!dims[d] || !dims[d]->is_expr || !dims[d]->parsed)
            continue;
        int ns = sym_symbols(dims[d]->parsed, NULL, 0);
        const char **names = ep_xmalloc((size_t)(ns ? ns : 1) * sizeof *names);
        sym_symbols(dims[d]->parsed, names, ns);
        for (int k = 0; k < ns; k++) {
            bool dup = false;
            for (int j = 0; j < nseen; j++)
                if (strcmp(seen[j], names[k]) == 0)
                    dup = true;
            if (dup)
                continue;
            if (nseen == capseen) {
                capseen = capseen ? 2 * capseen : 8;
                seen = ep_xrealloc(seen, (size_t)capseen * sizeof *seen);
            }
            seen[nseen++] = names[k];
            int r = program_find_range(ep, names[k]);
            const RangeConstraint *rc = r >= 0 ? &ep->ranges[r] : NULL;
            sb_printf(sb, "%s%s in [", nseen == 1 ? " (" : ", ", names[k]);
            if (rc && rc->has_min)
                sb_printf(sb, "%lld", (long long)rc->min);
            else
                sb_append(sb, "-inf");
            sb_append(sb, ", ");
            if (rc && rc->has_max)
                sb_printf(sb, "%lld", (long long)rc->max);
            else
                sb_append(sb, "inf");
            sb_append(sb, "]");
            if (of_input && rc && rc->has_min && (rc->min == 1 || rc->min == 2))
                sb_printf(&below[rc->min], "%s%s", nbelow[rc->min]++ ? " and " : "", names[k]);
        }
        free(names);
    }
    for (int m = 1; m <= 2; m++) {
        if (nbelow[m]) /* "s0: 0 and 1 also ..." names the symbols only when others are listed */
            sb_printf(sb, "; %s%s%s also accepted at run time, as PyTorch does", nseen > nbelow[m] ? below[m].data : "",
                      nseen > nbelow[m] ? ": " : "", m == 2 ? "0 and 1" : "0");
        sb_free(&below[m]);
    }
    if (nseen)
        sb_append(sb, ")");
    free(seen);
}

/* The SymInt/SymFloat/SymBool graph value name as the exporter recorded it
** (of_input: a user input, see describe_ranges_of):
** "SymInt = 5*s77 (s77 in [0, inf])", "SymInt = 3", "SymBool". */
static void describe_sym_value(const Interp *ip, ArgKind kind, const char *name, bool of_input, StrBuf *sb)
{
    sb_append(sb, arg_kind_name(kind));
    const SymDim *d = kind == ARG_SYM_INT && name ? strmap_get(&ip->ep->graph.sym_int_values, name) : NULL;
    if (!d)
        return;
    if (!d->is_expr) {
        sb_printf(sb, " = %lld", (long long)d->value);
        return;
    }
    char *text = d->parsed ? sym_to_string(d->parsed) : NULL;
    if (strcmp(text ? text : d->expr, name) != 0) /* not "n = n" */
        sb_printf(sb, " = %s", text ? text : d->expr);
    free(text);
    describe_ranges_of(ip, &d, 1, of_input, sb);
}

static void describe_input_tensor(const Interp *ip, const TensorMeta *m, StrBuf *sb)
{
    char shape[512];
    sb_printf(sb, "%s%s", scalar_type_name(m->scalar_type), tensor_meta_shape_str(m, shape, sizeof shape));
    const SymDim *dims[EP_MAX_DIMS];
    int n = m->ndim < EP_MAX_DIMS ? m->ndim : EP_MAX_DIMS;
    for (int d = 0; d < n; d++)
        dims[d] = &m->sizes[d];
    describe_ranges_of(ip, dims, n, true, sb);
}

int interp_find_user_input(const Interp *ip, const char *name)
{
    for (int i = 0; i < ip->ninputs; i++) {
        const UserInput *u = &ip->inputs[i];
        if (strcmp(u->name, name) == 0 || (u->arg_name && strcmp(u->arg_name, name) == 0))
            return i;
    }
    return -1;
}

char *interp_describe_inputs(const Interp *ip)
{
    StrBuf sb;
    sb_init(&sb);
    for (int i = 0; i < ip->ninputs; i++) {
        const UserInput *u = &ip->inputs[i];
        if (u->arg_name)
            sb_printf(&sb, "  %s (%s): ", u->arg_name, u->name);
        else
            sb_printf(&sb, "  %s: ", u->name);
        if (u->kind == ARG_TENSOR && u->meta)
            describe_input_tensor(ip, u->meta, &sb);
        else
            describe_sym_value(ip, u->kind, u->name, true, &sb);
        sb_append(&sb, "\n");
    }
    return sb_take(&sb);
}

char *interp_describe_value(const Interp *ip, const Arg *a)
{
    char *type = a->kind == ARG_TENSOR ? graph_recorded_type(&ip->ep->graph, a->ref) : NULL;
    if (type)
        return type;
    StrBuf sb;
    sb_init(&sb);
    if (a->ref && (a->kind == ARG_SYM_INT || a->kind == ARG_SYM_FLOAT || a->kind == ARG_SYM_BOOL)) {
        describe_sym_value(ip, a->kind, a->ref, false, &sb);
    } else {
        char *text = arg_describe(a);
        sb_append(&sb, text);
        free(text);
    }
    return sb_take(&sb);
}

static EpStatus finish_run(Interp *ip, EpError *err);

/* ---- input guards ------------------------------------------------------------------ */

static const char *dim_text(const SymDim *d, char *buf, size_t cap)
{
    if (!d->is_expr) {
        snprintf(buf, cap, "%lld", (long long)d->value);
        return buf;
    }
    char *s = d->parsed ? sym_to_string(d->parsed) : NULL;
    snprintf(buf, cap, "%s", s ? s : d->expr);
    free(s);
    return buf;
}

/* Whether actual lies outside the range constraint of sd's symbol (or of
** the whole expression): -1 below its minimum, 1 above its maximum (the
** bound in *bound), 0 inside or unconstrained.  torch's _check_symint
** applies this one rule to a tensor's size and to a SymInt input alike:
** lower bounds of 0..2 are not enforced, since PyTorch lets 0 and 1
** through even when it reasoned with >= 2; the upper bound always is. */
static int out_of_range(const Interp *ip, const SymDim *sd, int64_t actual, int64_t *bound)
{
    const char *sym = sym_as_symbol(sd->parsed);
    int r = program_find_range(ip->ep, sym ? sym : sd->expr);
    if (r < 0)
        return 0;
    const RangeConstraint *rc = &ip->ep->ranges[r];
    if (rc->has_min && rc->min > 2 && actual < rc->min) {
        *bound = rc->min;
        return -1;
    }
    if (rc->has_max && actual > rc->max) {
        *bound = rc->max;
        return 1;
    }
    return 0;
}

/* Messages name an input as the user does (user_input_name); interp_bind
** adds the graph's placeholder after a failure's first line, so both names
** are in front of the user.  The lines below it say where the constraint
** comes from (guards.h). */

/* An expression of the archive that does not parse: the guard it states
** cannot be checked, so binding stops (a malformed archive, exit 2) naming
** the place as the user knows it and as the JSON path, and the text. */
static EpStatus unparsed_fail(const char *text, const char *place, const char *path, EpError *err)
{
    char why[256] = "";
    SymExpr *e = sym_parse(text, why, sizeof why);
    sym_free(e);
    return ep_fail(err, EP_ERR_FORMAT, "%s: the archive's expression '%s' (%s) does not parse: %s; epdbg cannot "
                   "check the guard it states", place, text, path, why[0] ? why : "not an expression epdbg reads");
}

/* Where the symbols of dimension d of user input ui (d = -1: a SymInt
** input) come from, and the node that first uses the input. */
static void explain_dim(const Interp *ip, const SymExpr *e, int ui, int d, StrBuf *sb)
{
    int ns = sym_symbols(e, NULL, 0);
    const char **names = ep_xmalloc((size_t)(ns ? ns : 1) * sizeof *names);
    sym_symbols(e, names, ns);
    for (int k = 0; k < ns; k++)
        guards_explain_symbol(ip->guards, names[k], &ip->syms, sb);
    free(names);
    if (d >= 0) {
        char *text = sym_to_string(e);
        guards_explain_use(ip->guards, ui, d, text, sb);
        free(text);
    }
}

/* One tensor input against its recorded metadata, the way torch's
** _check_input_constraints_for_graph does it, plus the dtype. */
static EpStatus check_tensor_input(Interp *ip, const UserInput *u, const Tensor *t, EpError *err)
{
    const TensorMeta *m = u->meta;
    char b1[512], b2[512];
    if (!m)
        return EP_OK;
    if (m->dtype != DT_INVALID && t->dtype != m->dtype)
        return ep_fail(err, EP_ERR_INPUT, "input %s is %s, but the program was exported for %s", user_input_name(u),
                       dtype_name(t->dtype), dtype_name(m->dtype));
    if (t->ndim != m->ndim)
        return ep_fail(err, EP_ERR_INPUT, "input %s has %d dimensions %s, the program expects %d: %s",
                       user_input_name(u), t->ndim, shape_str(t->ndim, t->sizes, b1, sizeof b1), m->ndim,
                       tensor_meta_shape_str(m, b2, sizeof b2));
    for (int d = 0; d < m->ndim; d++) {
        const SymDim *sd = &m->sizes[d];
        int64_t actual = t->sizes[d];
        if (!sd->is_expr) {
            if (actual != sd->value)
                return ep_fail(err, EP_ERR_INPUT,
                               "input %s.shape[%d] is %lld, but the program was exported with the static size %lld; "
                               "if it should vary, re-export with dynamic_shapes (e.g. Dim.DYNAMIC) for it",
                               user_input_name(u), d, (long long)actual, (long long)sd->value);
            continue;
        }
        if (!sd->parsed) /* a guard epdbg cannot check is never passed silently */
        {
            char place[512], path[512];
            snprintf(place, sizeof place, "input %s.shape[%d]", user_input_name(u), d);
            snprintf(path, sizeof path, "graph_module.graph.tensor_values.%s.sizes[%d]", u->name, d);
            return unparsed_fail(sd->expr, place, path, err);
        }
        char why[512] = "";
        int ok = sym_match(sd->parsed, &ip->syms, actual, why, sizeof why);
        int64_t bound;
        int out = ok == 0 ? 0 : out_of_range(ip, sd, actual, &bound);
        if (ok != 0 && !out)
            continue;
        StrBuf sb;
        sb_init(&sb);
        sb_printf(&sb, "input %s.shape[%d] is %lld, ", user_input_name(u), d, (long long)actual);
        if (ok == 0)
            sb_printf(&sb, "which does not fit %s", dim_text(sd, b1, sizeof b1));
        else
            sb_printf(&sb, "%s %lld of %s", out < 0 ? "below the minimum" : "above the maximum", (long long)bound,
                      dim_text(sd, b1, sizeof b1));
        describe_ranges_of(ip, &sd, 1, true, &sb);
        if (ok == 0)
            sb_printf(&sb, ": %s", why);
        explain_dim(ip, sd->parsed, (int)(u - ip->inputs), d, &sb);
        EpStatus rc = ep_fail(err, EP_ERR_INPUT, "%s", sb.data);
        sb_free(&sb);
        return rc;
    }
    return EP_OK;
}

static EpStatus check_scalar_input(Interp *ip, const UserInput *u, const Value *v, EpError *err)
{
    if (!value_is_scalar(v))
        return ep_fail(err, EP_ERR_INPUT, "input %s is a %s, the program expects a %s", user_input_name(u),
                       value_kind_name(v->kind), arg_kind_name(u->kind));
    if (u->kind != ARG_SYM_INT)
        return EP_OK;
    if (v->kind != V_INT)
        return ep_fail(err, EP_ERR_INPUT, "input %s must be an integer (SymInt)", user_input_name(u));
    const SymDim *d = strmap_get(&ip->ep->graph.sym_int_values, u->name); /* the graph's name */
    if (d && d->is_expr && !d->parsed)
    {
        char place[512], path[512];
        snprintf(place, sizeof place, "input %s", user_input_name(u));
        snprintf(path, sizeof path, "graph_module.graph.sym_int_values.%s", u->name);
        return unparsed_fail(d->expr, place, path, err);
    }
    if (d && d->is_expr) {
        char why[512] = "", b1[512];
        int ok = sym_match(d->parsed, &ip->syms, v->i, why, sizeof why);
        int64_t bound;
        int out = ok == 0 ? 0 : out_of_range(ip, d, v->i, &bound);
        if (ok != 0 && !out)
            return EP_OK;
        StrBuf sb;
        sb_init(&sb);
        if (ok == 0)
            sb_printf(&sb, "input %s = %lld does not fit %s", user_input_name(u), (long long)v->i,
                      dim_text(d, b1, sizeof b1));
        else
            sb_printf(&sb, "input %s = %lld is %s %lld of %s", user_input_name(u), (long long)v->i,
                      out < 0 ? "below the minimum" : "above the maximum", (long long)bound,
                      dim_text(d, b1, sizeof b1));
        describe_ranges_of(ip, &d, 1, true, &sb);
        if (ok == 0)
            sb_printf(&sb, ": %s", why);
        explain_dim(ip, d->parsed, (int)(u - ip->inputs), -1, &sb);
        EpStatus rc = ep_fail(err, EP_ERR_INPUT, "%s", sb.data);
        sb_free(&sb);
        return rc;
    }
    return EP_OK;
}

static bool constants_equal(const Value *a, const Value *b)
{
    if (a->kind == V_NONE || b->kind == V_NONE)
        return a->kind == b->kind;
    if (a->kind == V_STR || b->kind == V_STR)
        return a->kind == b->kind && strcmp(a->s, b->s) == 0;
    double x = value_as_f64(a), y = value_as_f64(b);
    return x == y || (x != x && y != y); /* NaN equals NaN here, as in torch's guard */
}

/* Tensors for the non-user inputs: parameters, buffers, constants. */
static EpStatus lift_input(Interp *ip, const InputSpec *s, Value *out, EpError *err)
{
    const Model *m = ip->model;
    Tensor *t = NULL;
    switch (s->kind) {
    case IN_PARAMETER:
        t = model_weight(m, s->target);
        break;
    case IN_BUFFER:
        t = model_weight(m, s->target);
        if (!t)
            t = model_constant(m, s->target); /* non-persistent buffers */
        break;
    case IN_TENSOR_CONSTANT:
        t = model_constant(m, s->target);
        if (!t)
            t = model_weight(m, s->target);
        break;
    case IN_CONSTANT_INPUT:
        *out = value_copy(&s->constant);
        return EP_OK;
    case IN_CUSTOM_OBJ:
        return ep_fail(err, EP_ERR_EXEC, "the program takes a custom (torchbind) object %s, which epdbg cannot run",
                       s->target ? s->target : "?");
    case IN_TOKEN:
        return ep_fail(err, EP_ERR_EXEC,
                       "the program threads effect tokens (side-effecting ops via with_effects), which epdbg cannot run");
    default:
        return ep_fail(err, EP_ERR_EXEC, "unexpected input spec");
    }
    if (!t && m->fill_error) /* there, but its bytes could not be read */
        return ep_fail(err, EP_ERR_FORMAT, "%s", m->fill_error);
    if (!t)
        return ep_fail(err, EP_ERR_FORMAT, "%s: the %s %s is not in the archive's weights or constants",
                       m->path, input_kind_name(s->kind), s->target);
    *out = value_tensor(tensor_ref(t));
    return EP_OK;
}

/* " (x is the graph's placeholder arg0_1)" after the first line of err. */
static void note_placeholder(const UserInput *u, EpError *err)
{
    char note[256];
    snprintf(note, sizeof note, " (%s is the graph's placeholder %s)", u->arg_name, u->name);
    char *nl = strchr(err->msg, '\n');
    size_t at = nl ? (size_t)(nl - err->msg) : strlen(err->msg), len = strlen(err->msg), add = strlen(note);
    if (len + add >= sizeof err->msg)
        return; /* a full message keeps what it has */
    memmove(err->msg + at + add, err->msg + at, len - at + 1);
    memcpy(err->msg + at, note, add);
}

EpStatus interp_bind(Interp *ip, const Value *inputs, int n, EpError *err)
{
    clear_run(ip);
    const ExportedProgram *ep = ip->ep;
    if (n != ip->ninputs) {
        char *desc = interp_describe_inputs(ip);
        EpStatus rc = ep_fail(err, EP_ERR_INPUT, "the program takes %d user input%s, %d given:\n%s", ip->ninputs,
                              ip->ninputs == 1 ? "" : "s", n, desc);
        free(desc);
        return rc;
    }
    /* a range whose key does not parse bounds nothing epdbg can find: refuse
    ** rather than pass the guard */
    for (int r = 0; r < ep->nranges; r++)
        if (!ep->ranges[r].parsed) {
            char path[512];
            snprintf(path, sizeof path, "range_constraints.%s", ep->ranges[r].expr);
            return unparsed_fail(ep->ranges[r].expr, "the range constraint", path, err);
        }
    ip->bound_inputs = ep_xcalloc((size_t)(n ? n : 1), sizeof *ip->bound_inputs);
    for (int i = 0; i < n; i++)
        ip->bound_inputs[i] = value_copy(&inputs[i]);
    EpStatus rc = EP_OK;
    int ui = 0;
    for (int i = 0; i < ep->ninput_specs && rc == EP_OK; i++) {
        const InputSpec *s = &ep->input_specs[i];
        Value v = {.kind = V_NONE};
        if (s->kind == IN_USER_INPUT) {
            const UserInput *u = &ip->inputs[ui];
            v = value_copy(&inputs[ui]);
            ui++;
            if (u->kind == ARG_TENSOR) {
                if (v.kind != V_TENSOR)
                    rc = ep_fail(err, EP_ERR_INPUT, "input %s must be a tensor, got a %s", user_input_name(u),
                                 value_kind_name(v.kind));
                else
                    rc = check_tensor_input(ip, u, v.t, err);
            } else if (u->kind == ARG_SYM_INT || u->kind == ARG_SYM_FLOAT || u->kind == ARG_SYM_BOOL) {
                rc = check_scalar_input(ip, u, &v, err);
            } else if (u->kind != ARG_NONE && u->kind != ARG_INT && u->kind != ARG_FLOAT && u->kind != ARG_BOOL &&
                       u->kind != ARG_STRING) {
                rc = ep_fail(err, EP_ERR_EXEC, "user input %s of kind %s is not supported", user_input_name(u),
                             arg_kind_name(u->kind));
            }
            if (rc && u->arg_name) /* both names: the user's and the graph's, on the first line */
                note_placeholder(u, err);
        } else {
            rc = lift_input(ip, s, &v, err);
        }
        int slot = ip->plan->input_slots[i];
        if (rc == EP_OK && slot >= 0) {
            value_clear(&ip->env[slot]);
            ip->env[slot] = v;
        } else {
            value_clear(&v);
        }
    }
    if (rc == EP_OK) /* the export's guards_code, as ep.module()'s _guards_fn checks it */
        rc = guards_check_code(ip->guards, inputs, n, &ip->syms, err);
    if (rc == EP_OK) /* the in-graph checks that only inputs decide, before running */
        rc = guards_check_asserts(ip->guards, &ip->syms, err);
    if (rc == EP_OK) { /* sizes that pass the guards but that a node cannot take */
        if (!ip->prerun)
            ip->prerun = prerun_checks_new(ep);
        rc = prerun_checks_run(ip->prerun, ip, ip->guards, &ip->syms, err);
    }
    if (rc) {
        clear_run(ip);
        return rc;
    }
    ip->bound = true;
    if (ip->plan->nnodes == 0) /* a program that returns its inputs */
        return finish_run(ip, err);
    return EP_OK;
}

EpStatus interp_sample_inputs(const Interp *ip, Value **vals, int *n, EpError *err)
{
    const Model *m = ip->model;
    if (!m->sample_inputs) {
        char *desc = interp_describe_inputs(ip);
        /* what to do about it is the front end's to say: options on the
        ** command line, commands in the debugger */
        EpStatus rc = ep_fail(err, EP_ERR_USAGE, "%s stores no example inputs; the program takes %d input%s:\n%s",
                              m->path, ip->ninputs, ip->ninputs == 1 ? "" : "s", desc);
        free(desc);
        return rc;
    }
    const char *spec = NULL;
    for (int i = 0; i < ip->ep->nmodule_calls; i++)
        if (ip->ep->module_calls[i].fqn[0] == '\0' && ip->ep->module_calls[i].in_spec) {
            spec = ip->ep->module_calls[i].in_spec;
            break;
        }
    Value *leaves;
    int nleaves;
    EpStatus rc = pytree_flatten(spec, m->sample_inputs, &leaves, &nleaves, err);
    if (rc) {
        ep_error_prefix(err, "%s: stored example inputs", m->path);
        return rc;
    }
    /* leaves are user inputs and specialised constants, in spec order */
    Value *out = ep_xcalloc((size_t)(ip->ninputs ? ip->ninputs : 1), sizeof *out);
    int k = 0, nout = 0;
    for (int i = 0; i < ip->ep->ninput_specs && rc == EP_OK; i++) {
        const InputSpec *s = &ip->ep->input_specs[i];
        if (s->kind != IN_USER_INPUT && s->kind != IN_CONSTANT_INPUT)
            continue;
        if (k >= nleaves) {
            rc = ep_fail(err, EP_ERR_FORMAT, "%s: the stored example inputs have %d values, the program takes more",
                         m->path, nleaves);
            break;
        }
        if (s->kind == IN_CONSTANT_INPUT) {
            if (!constants_equal(&leaves[k], &s->constant))
                rc = ep_fail(err, EP_ERR_INPUT, "stored example input %s differs from the value the program was "
                             "specialised to", s->name ? s->name : "?");
            k++;
            continue;
        }
        out[nout++] = leaves[k];
        leaves[k].kind = V_NONE;
        k++;
    }
    if (rc == EP_OK && k != nleaves)
        rc = ep_fail(err, EP_ERR_FORMAT, "%s: the stored example inputs have %d values for %d program inputs",
                     m->path, nleaves, k);
    for (int i = 0; i < nleaves; i++)
        value_clear(&leaves[i]);
    free(leaves);
    if (rc) {
        for (int i = 0; i < nout; i++)
            value_clear(&out[i]);
        free(out);
        return rc;
    }
    *vals = out;
    *n = nout;
    return EP_OK;
}

EpStatus interp_bind_copy(Interp *ip, const Value *inputs, int n, EpError *err)
{
    Value *copies;
    EpStatus rc = values_clone(inputs, n, &copies, err);
    if (rc)
        return rc;
    rc = interp_bind(ip, copies, n, err);
    for (int i = 0; i < n; i++)
        value_clear(&copies[i]);
    free(copies);
    return rc;
}

EpStatus interp_bind_sample_inputs(Interp *ip, EpError *err)
{
    Value *vals;
    int n;
    EpStatus rc = interp_sample_inputs(ip, &vals, &n, err);
    if (rc)
        return rc;
    rc = interp_bind(ip, vals, n, err);
    for (int i = 0; i < n; i++)
        value_clear(&vals[i]);
    free(vals);
    return rc;
}

/* ---- running -------------------------------------------------------------------- */

/* The tensor output spec i writes back into (a buffer, parameter or user
** input), or NULL when the spec is not a mutation. */
static Tensor *mutation_target(Interp *ip, int i, EpError *err, EpStatus *rc)
{
    const OutputSpec *s = &ip->ep->output_specs[i];
    Tensor *dst = NULL;
    *rc = EP_OK;
    if (s->kind == OUT_BUFFER_MUTATION) {
        dst = model_weight(ip->model, s->target);
        if (!dst)
            dst = model_constant(ip->model, s->target);
    } else if (s->kind == OUT_PARAMETER_MUTATION) {
        dst = model_weight(ip->model, s->target);
    } else if (s->kind == OUT_USER_INPUT_MUTATION) {
        for (int u = 0; u < ip->ninputs; u++)
            if (strcmp(ip->inputs[u].name, s->target) == 0 && ip->bound_inputs[u].kind == V_TENSOR)
                dst = ip->bound_inputs[u].t;
    } else {
        return NULL;
    }
    if (!dst)
        *rc = ep_fail(err, EP_ERR_EXEC, "the program mutates %s %s, which it does not have",
                      output_kind_name(s->kind), s->target ? s->target : "?");
    return dst;
}

/* ---- history ---------------------------------------------------------------------- */

static UndoEntry *undo_push(Interp *ip, int node)
{
    if (ip->nundo == ip->capundo) {
        ip->capundo = ip->capundo ? 2 * ip->capundo : 64;
        ip->undo = ep_xrealloc(ip->undo, (size_t)ip->capundo * sizeof *ip->undo);
    }
    UndoEntry *u = &ip->undo[ip->nundo++];
    memset(u, 0, sizeof *u);
    u->node = node;
    return u;
}

/* Keep a copy of t's values before something writes into it. */
static EpStatus undo_save(UndoEntry *u, Tensor *t, EpError *err)
{
    Tensor *copy = tensor_to_dtype(t, t->dtype, err);
    if (!copy)
        return EP_ERR_EXEC;
    u->saved = ep_xrealloc(u->saved, (size_t)(u->nsaved + 1) * sizeof *u->saved);
    u->saved[u->nsaved++] = (UndoTensor){tensor_ref(t), copy};
    return EP_OK;
}

int interp_history_len(const Interp *ip)
{
    return ip->nundo;
}

EpStatus interp_step_back(Interp *ip, EpError *err)
{
    if (!ip->opt.history)
        return ep_fail(err, EP_ERR_USAGE, "stepping back needs the history option");
    if (ip->nundo == 0)
        return ep_fail(err, EP_ERR_USAGE, "at the start of the run: nothing to undo");
    UndoEntry *u = &ip->undo[ip->nundo - 1];
    EpStatus rc = EP_OK;
    for (int i = u->nsaved - 1; i >= 0 && rc == EP_OK; i--) /* last write first */
        rc = tensor_copy_into(u->saved[i].target, u->saved[i].saved, err);
    if (rc)
        return rc;
    for (int i = 0; i < u->nslots; i++)
        value_clear(&ip->env[u->slots[i]]);
    for (int i = 0; i < u->nsyms; i++)
        sym_bindings_unset(&ip->syms, u->syms[i]);
    if (u->node == ip->plan->nnodes) { /* the end of the run */
        for (int i = 0; i < ip->nuser_outputs; i++)
            value_clear(&ip->user_outputs[i]);
        ip->finished = false;
    }
    ip->pc = u->node < ip->plan->nnodes ? u->node : ip->pc;
    undo_entry_free(u);
    ip->nundo--;
    return EP_OK;
}

bool interp_node_mutates(const Interp *ip, int i)
{
    return i >= 0 && i < ip->plan->nnodes && ip->plan->nodes[i].nmut > 0;
}

EpStatus interp_set_value(Interp *ip, const char *name, Value v, EpError *err)
{
    int s = graph_plan_slot(ip->plan, name);
    if (s < 0) {
        value_clear(&v);
        return ep_fail(err, EP_ERR_USAGE, "no value is called '%s'", name);
    }
    value_clear(&ip->env[s]);
    ip->env[s] = v;
    return EP_OK;
}

/* ---- running -------------------------------------------------------------------- */

/* The functional graph returns new values for mutated buffers and inputs;
** PyTorch's unlifted module copies them back (buffer.copy_(new)), which is
** what makes a second call see updated running statistics. */
static EpStatus apply_mutations(Interp *ip, UndoEntry *undo, EpError *err)
{
    const ExportedProgram *ep = ip->ep;
    for (int i = 0; i < ep->noutput_specs; i++) {
        EpStatus rc;
        Tensor *dst = mutation_target(ip, i, err, &rc);
        if (rc)
            return rc;
        if (!dst)
            continue;
        Value v;
        rc = arg_eval(ip->plan, &ep->graph.outputs[i], ip->env, &v, err);
        if (rc)
            return rc;
        bool same = v.kind == V_TENSOR && (v.t == dst || (v.t->storage == dst->storage && v.t->offset == dst->offset &&
                                                          shape_equal(v.t->ndim, v.t->strides, dst->ndim, dst->strides)));
        if (v.kind == V_TENSOR && !same) {
            if (undo)
                rc = undo_save(undo, dst, err);
            if (rc == EP_OK)
                rc = tensor_copy_into(dst, v.t, err);
        }
        value_clear(&v);
        if (rc)
            return rc;
    }
    return EP_OK;
}

static EpStatus finish_run(Interp *ip, EpError *err)
{
    UndoEntry *undo = ip->opt.history && ip->plan->nnodes > 0 ? undo_push(ip, ip->plan->nnodes) : NULL;
    EpStatus rc = apply_mutations(ip, undo, err);
    for (int i = 0; i < ip->nuser_outputs && rc == EP_OK; i++)
        rc = arg_eval(ip->plan, &ip->ep->graph.outputs[ip->user_output_spec[i]], ip->env, &ip->user_outputs[i], err);
    if (rc)
        return rc;
    ip->finished = true;
    return EP_OK;
}

/* The slots node i writes, all of them (new array, *n entries). */
static int *node_output_slots(const GraphPlan *gp, int i, int *n)
{
    *n = graph_node_output_slots(gp, i, NULL, 0);
    int *slots = ep_xmalloc((size_t)(*n ? *n : 1) * sizeof *slots);
    graph_node_output_slots(gp, i, slots, *n);
    return slots;
}

static const Value *run_value(void *ctx, const char *name)
{
    return interp_value(ctx, name);
}

EpStatus interp_step(Interp *ip, EpError *err)
{
    if (!ip->bound)
        return ep_fail(err, EP_ERR_USAGE, "no inputs are bound");
    if (ip->finished)
        return ep_fail(err, EP_ERR_USAGE, "the program has finished");
    if (ip->pc == ip->plan->nnodes) /* every node ran (the end was undone) */
        return finish_run(ip, err);
    int i = ip->pc;
    UndoEntry *undo = NULL;
    if (ip->opt.history) {
        const NodePlan *np = &ip->plan->nodes[i];
        undo = undo_push(ip, i);
        undo->slots = node_output_slots(ip->plan, i, &undo->nslots);
        for (int k = 0; k < np->nmut; k++) {
            const Value *v = &ip->env[np->mut_slots[k]];
            if (v->kind == V_TENSOR && undo_save(undo, v->t, err) != EP_OK)
                return EP_ERR_EXEC;
        }
    }
    ip->ctx.n_new_syms = 0;
    EpStatus rc = graph_run_node(ip->plan, i, ip->env, &ip->ctx, err);
    if (undo && rc) { /* nothing happened: drop the entry */
        undo_entry_free(undo);
        ip->nundo--;
    } else if (undo) {
        undo->nsyms = ip->ctx.n_new_syms;
        undo->syms = ep_xcalloc((size_t)(undo->nsyms ? undo->nsyms : 1), sizeof *undo->syms);
        for (int k = 0; k < undo->nsyms; k++)
            undo->syms[k] = ep_xstrdup(ip->ctx.new_syms[k]);
    }
    if (rc) {
        if (guards_is_assert(ip->guards, i))
            guards_explain_failure(ip->guards, i, &ip->syms, run_value, ip, err);
        char where[1024];
        describe_node_into(ip, i, where, sizeof where);
        ep_error_prefix(err, "%s", where);
        return rc;
    }
    ip->pc++;
    if (ip->pc == ip->plan->nnodes)
        return finish_run(ip, err);
    return EP_OK;
}

EpStatus interp_eval_node(Interp *ip, int i, ValueSubst subst, void *sctx, Value *outs, int max, int *nouts,
                          EpError *err)
{
    *nouts = 0;
    if (!ip->bound)
        return ep_fail(err, EP_ERR_USAGE, "no inputs are bound");
    if (i < 0 || i >= ip->plan->nnodes)
        return ep_fail(err, EP_ERR_USAGE, "no node #%d", i);
    const GraphPlan *gp = ip->plan;
    const NodePlan *np = &gp->nodes[i];
    /* The scratch environment borrows every value of the run (a shallow
    ** copy); only the slots this evaluation fills are owned by it. */
    Value *scratch = ep_xmalloc((size_t)(gp->nslots ? gp->nslots : 1) * sizeof *scratch);
    memcpy(scratch, ip->env, (size_t)gp->nslots * sizeof *scratch);
    int nin = interp_node_num_inputs(ip, i);
    for (int k = 0; k < nin && subst; k++) {
        const char *name = interp_node_input_name(ip, i, k, NULL);
        int s = graph_plan_slot(gp, name);
        const Value *v = subst(sctx, name);
        if (s >= 0 && v)
            scratch[s] = *v;
    }
    EpStatus rc = EP_OK;
    Tensor **copies = ep_xmalloc((size_t)(np->nmut ? np->nmut : 1) * sizeof *copies);
    int ncopies = 0;
    for (int k = 0; k < np->nmut && rc == EP_OK; k++) {
        Value *v = &scratch[np->mut_slots[k]];
        if (v->kind != V_TENSOR)
            continue;
        Tensor *c = tensor_to_dtype(v->t, v->t->dtype, err);
        if (!c)
            rc = EP_ERR_EXEC;
        else
            v->t = copies[ncopies++] = c;
    }
    /* Every slot the node writes must start empty in the scratch copy: one
    ** still borrowing the run's value would be cleared (freed) when the
    ** node stores its result there. */
    int nslots;
    int *slots = node_output_slots(gp, i, &nslots);
    for (int k = 0; k < nslots; k++)
        scratch[slots[k]].kind = V_NONE; /* not the run's: store_output clears it */
    SymBindings syms; /* symbols the node would learn stay here */
    sym_bindings_init(&syms);
    for (int k = 0; k < ip->syms.n; k++)
        sym_bindings_set(&syms, ip->syms.items[k].name, ip->syms.items[k].value);
    RunCtx ctx = ip->ctx;
    ctx.syms = &syms;
    ctx.new_syms = NULL; /* its own list (RunCtx): nothing reads it */
    ctx.n_new_syms = ctx.cap_new_syms = 0;
    ctx.keep_values = true;
    /* off the record for observers too: no hooks, and the copy's own
    ** "now" slot, so a profiler never sees this evaluation */
    ctx.hooks = NULL;
    atomic_init(&ctx.now, NULL);
    atomic_init(&ctx.now_top, NULL);
    if (rc == EP_OK)
        rc = graph_run_node(gp, i, scratch, &ctx, err);
    int nout = interp_node_num_outputs(ip, i);
    for (int k = 0; k < nout; k++) {
        int s = graph_plan_slot(gp, interp_node_output_name(ip, i, k));
        if (rc == EP_OK && k < max) {
            outs[k] = s >= 0 ? scratch[s] : value_none();
            if (s >= 0)
                scratch[s].kind = V_NONE;
        }
    }
    for (int k = 0; k < nslots; k++)
        value_clear(&scratch[slots[k]]);
    free(slots);
    for (int k = 0; k < ncopies; k++)
        tensor_unref(copies[k]);
    free(copies);
    sym_bindings_free(&syms);
    free(ctx.new_syms);
    free(scratch);
    if (rc) {
        char where[1024];
        describe_node_into(ip, i, where, sizeof where);
        ep_error_prefix(err, "%s", where);
        return rc;
    }
    *nouts = nout;
    return EP_OK;
}

EpStatus interp_run(Interp *ip, EpError *err)
{
    if (!ip->bound)
        return ep_fail(err, EP_ERR_USAGE, "no inputs are bound");
    while (!ip->finished) {
        EpStatus rc = interp_step(ip, err);
        if (rc)
            return rc;
    }
    return EP_OK;
}

const Value *interp_value(const Interp *ip, const char *name)
{
    int s = graph_plan_slot(ip->plan, name);
    if (s < 0 || ip->env[s].kind == V_NONE)
        return NULL;
    return &ip->env[s];
}

static void add_live(InterpLiveTensor **all, int *n, int *cap, const char *name, const Value *v)
{
    if (!v || v->kind != V_TENSOR || !v->t->storage || v->t->storage->release)
        return;
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        *all = ep_xrealloc(*all, (size_t)*cap * sizeof **all);
    }
    (*all)[(*n)++] = (InterpLiveTensor){name, v->t, (int64_t)v->t->storage->nbytes};
}

static int by_storage_then_name(const void *a, const void *b)
{
    const InterpLiveTensor *x = a, *y = b;
    uintptr_t p = (uintptr_t)x->t->storage, q = (uintptr_t)y->t->storage;
    return p != q ? (p > q) - (p < q) : strcmp(x->name, y->name);
}

static int by_bytes_desc(const void *a, const void *b)
{
    const InterpLiveTensor *x = a, *y = b;
    return x->bytes != y->bytes ? (x->bytes < y->bytes) - (x->bytes > y->bytes) : strcmp(x->name, y->name);
}

int interp_live_tensors(const Interp *ip, InterpLiveTensor *out, int max)
{
    InterpLiveTensor *all = NULL;
    int n = 0, cap = 0;
    const ExportedProgram *ep = interp_program(ip);
    for (int i = 0; i < ep->ninput_specs; i++)
        if (ep->input_specs[i].kind == IN_USER_INPUT && ep->input_specs[i].arg.ref)
            add_live(&all, &n, &cap, ep->input_specs[i].arg.ref, interp_value(ip, ep->input_specs[i].arg.ref));
    for (int i = 0; i < interp_num_nodes(ip); i++)
        for (int k = 0; k < interp_node_num_outputs(ip, i); k++) {
            const char *name = interp_node_output_name(ip, i, k);
            if (name)
                add_live(&all, &n, &cap, name, interp_value(ip, name));
        }
    /* views share a storage: keep one entry per storage (the first name) */
    ep_qsort(all, (size_t)n, sizeof *all, by_storage_then_name);
    int u = 0;
    for (int i = 0; i < n; i++)
        if (u == 0 || all[u - 1].t->storage != all[i].t->storage)
            all[u++] = all[i];
    ep_qsort(all, (size_t)u, sizeof *all, by_bytes_desc);
    int k = u < max ? u : max;
    for (int i = 0; i < k; i++)
        out[i] = all[i];
    free(all);
    return k;
}

/* The k-th reference inside a (possibly list) argument, counting from *seen. */
static const char *nth_ref(const Arg *a, int k, int *seen)
{
    bool is_ref = a->ref && (a->kind == ARG_TENSOR || a->kind == ARG_SYM_INT || a->kind == ARG_SYM_FLOAT ||
                             a->kind == ARG_SYM_BOOL);
    if (is_ref && (*seen)++ == k)
        return a->ref;
    for (int j = 0; j < a->n; j++) {
        const char *r = nth_ref(&a->items[j], k, seen);
        if (r)
            return r;
    }
    return NULL;
}

int interp_node_num_inputs(const Interp *ip, int i)
{
    int n = 0;
    const Node *node = interp_node(ip, i);
    for (int k = 0; k < node->ninputs; k++)
        nth_ref(&node->inputs[k].arg, INT32_MAX, &n);
    return n;
}

const char *interp_node_input_name(const Interp *ip, int i, int k, const char **arg_name)
{
    const Node *node = interp_node(ip, i);
    int seen = 0;
    for (int a = 0; a < node->ninputs; a++) {
        const char *r = nth_ref(&node->inputs[a].arg, k, &seen);
        if (r) {
            if (arg_name)
                *arg_name = node->inputs[a].name;
            return r;
        }
    }
    return NULL;
}

int interp_node_num_outputs(const Interp *ip, int i)
{
    int n = 0;
    const Node *node = interp_node(ip, i);
    for (int k = 0; k < node->noutputs; k++)
        nth_ref(&node->outputs[k], INT32_MAX, &n);
    return n;
}

const char *interp_node_output_name(const Interp *ip, int i, int k)
{
    const Node *node = interp_node(ip, i);
    int seen = 0;
    for (int a = 0; a < node->noutputs; a++) {
        const char *r = nth_ref(&node->outputs[a], k, &seen);
        if (r)
            return r;
    }
    return NULL;
}

char *interp_nonfinite_inputs(const Interp *ip, int i)
{
    StrBuf sb;
    sb_init(&sb);
    for (int k = 0; k < interp_node_num_inputs(ip, i); k++) {
        const char *name = interp_node_input_name(ip, i, k, NULL);
        const Value *v = interp_value(ip, name);
        if (!v || v->kind != V_TENSOR || !dtype_is_float(v->t->dtype))
            continue;
        TensorStats st;
        tensor_stats(v->t, &st);
        if (st.nan || st.inf)
            sb_printf(&sb, "  in%d (%s): %lld NaN, %lld Inf of %lld\n", k, name, (long long)st.nan,
                      (long long)st.inf, (long long)st.numel);
    }
    return sb_take(&sb);
}

bool interp_node_nonfinite(const Interp *ip, int i, char **detail)
{
    for (int k = 0; k < interp_node_num_outputs(ip, i); k++) {
        const char *name = interp_node_output_name(ip, i, k);
        const Value *v = interp_value(ip, name);
        StrBuf sb;
        sb_init(&sb);
        if (v && v->kind == V_TENSOR && dtype_is_float(v->t->dtype)) {
            TensorStats st;
            tensor_stats(v->t, &st);
            if (st.nan || st.inf)
                sb_printf(&sb, "out%d (%s) has %lld NaN and %lld Inf of %lld values", k, name, (long long)st.nan,
                          (long long)st.inf, (long long)st.numel);
        } else if (v && v->kind == V_FLOAT && !isfinite(v->f)) {
            sb_printf(&sb, "out%d (%s) is %g", k, name, v->f);
        }
        if (sb.len == 0) {
            sb_free(&sb);
            continue;
        }
        char *inputs = interp_nonfinite_inputs(ip, i);
        if (inputs[0])
            sb_printf(&sb, "; inputs already non-finite (passed on):\n%s", inputs);
        else
            sb_append(&sb, "; every input was finite: this node created them\n");
        free(inputs);
        while (sb.len && sb.data[sb.len - 1] == '\n')
            sb.data[--sb.len] = '\0';
        *detail = sb_take(&sb);
        return true;
    }
    return false;
}

const Value *interp_user_output(const Interp *ip, int i)
{
    if (!ip->finished || i < 0 || i >= ip->nuser_outputs)
        return NULL;
    return &ip->user_outputs[i];
}

const char *interp_user_output_name(const Interp *ip, int i)
{
    if (i < 0 || i >= ip->nuser_outputs)
        return NULL;
    return ip->ep->graph.outputs[ip->user_output_spec[i]].ref;
}
