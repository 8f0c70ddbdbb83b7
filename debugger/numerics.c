/*
** numerics.c -- what both numerics checks share (numerics.h): the error
** figures of one tensor against a reference, the pieces of their text
** reports, and the private run they work on.  The float64 shadow is in
** numerics_shadow.c, the comparison with a folder in numerics_compare.c.
*/
#include "numerics_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "interp/srcinfo.h"

const NumericsOptions NUMERICS_OPTIONS_DEFAULT = {.rtol = -1, .atol = -1, .all = false, .kernels = {.use_blas = true}};


/* ---- error figures ----------------------------------------------------------------- */

void numerics_tolerance(DType t, double *rtol, double *atol)
{
    switch (t) {
    case DT_F32: *rtol = 1e-4; *atol = 1e-5; break;
    case DT_F64: *rtol = 1e-10; *atol = 1e-12; break;
    case DT_F16: *rtol = 1e-3; *atol = 1e-5; break;
    case DT_BF16: *rtol = 8e-3; *atol = 1e-5; break;
    default: *rtol = 0; *atol = 0; break;
    }
}

/* The tolerance for a value of dtype t under opt: the options' when given
** (floating values only: integers are always exact). */
void num_tolerance_of(const NumericsOptions *opt, DType t, double *rtol, double *atol)
{
    numerics_tolerance(t, rtol, atol);
    if (dtype_is_float(t)) {
        if (opt->rtol >= 0)
            *rtol = opt->rtol;
        if (opt->atol >= 0)
            *atol = opt->atol;
    }
}

/* t as a contiguous tensor of dtype (a new reference; t itself when it
** already is one). */
Tensor *num_contiguous_as(const Tensor *t, DType dtype, EpError *err)
{
    if (t->dtype == dtype && tensor_is_contiguous(t))
        return tensor_ref((Tensor *)t); /* only the reference count changes */
    return tensor_to_dtype(t, dtype, err);
}

static void compare_ints(const int64_t *g, const int64_t *r, int64_t n, ErrStats *st)
{
    for (int64_t i = 0; i < n; i++) {
        if (g[i] == r[i])
            continue;
        double d = fabs((double)g[i] - (double)r[i]);
        if (st->worst < 0) {
            st->worst = i;
            st->worst_got = (double)g[i];
            st->worst_ref = (double)r[i];
        }
        st->nbad++;
        if (d > st->max_abs)
            st->max_abs = d;
    }
    if (st->nbad) {
        st->ratio = INFINITY;
        st->max_rel = INFINITY;
    }
}

static void compare_floats(const double *g, const double *r, int64_t n, ErrStats *st)
{
    double scale = 0; /* of the elements compared as numbers */
    for (int64_t i = 0; i < n; i++)
        if (isfinite(r[i]) && isfinite(g[i]) && fabs(r[i]) > scale)
            scale = fabs(r[i]);
    double floor_rel = 1e-3 * scale;
    int64_t first_new = -1;
    for (int64_t i = 0; i < n; i++) {
        double gv = g[i], rv = r[i];
        st->nonfinite_got += !isfinite(gv);
        if (!isfinite(rv)) {
            if ((isnan(rv) && isnan(gv)) || gv == rv) {
                st->nonfinite_same++;
            } else {
                st->nonfinite_lost++;
                st->nbad++;
                if (first_new < 0 && st->ratio < INFINITY) {
                    st->ratio = INFINITY;
                    st->worst = i;
                }
            }
            continue;
        }
        if (!isfinite(gv)) {
            st->nonfinite_new++;
            st->nbad++;
            if (first_new < 0)
                first_new = i;
            continue;
        }
        double d = fabs(gv - rv);
        double tol = st->atol + st->rtol * fabs(rv);
        double ratio = d <= tol ? (tol > 0 ? d / tol : 0) : (tol > 0 ? d / tol : INFINITY);
        if (d > tol)
            st->nbad++;
        if (d > st->max_abs)
            st->max_abs = d;
        double denom = fabs(rv) > floor_rel ? fabs(rv) : floor_rel;
        double rel = d == 0 ? 0 : denom > 0 ? d / denom : INFINITY;
        if (rel > st->max_rel)
            st->max_rel = rel;
        if (ratio > st->ratio || (st->worst < 0 && d > 0)) {
            st->ratio = ratio;
            st->worst = i;
        }
    }
    if (first_new >= 0) { /* NaN/Inf where the reference is finite comes first */
        st->ratio = INFINITY;
        st->worst = first_new;
    }
    if (st->worst >= 0) {
        st->worst_got = g[st->worst];
        st->worst_ref = r[st->worst];
    }
}

EpStatus numerics_compare_tensors(const Tensor *got, const Tensor *ref, double rtol, double atol, ErrStats *st,
                                  EpError *err)
{
    memset(st, 0, sizeof *st);
    st->worst = -1;
    st->rtol = rtol;
    st->atol = atol;
    if (!shape_equal(got->ndim, got->sizes, ref->ndim, ref->sizes))
        return ep_fail(err, EP_ERR_EXEC, "cannot compare tensors of different shapes");
    st->numel = tensor_numel(got);
    bool floating = dtype_is_float(got->dtype) || dtype_is_float(ref->dtype);
    DType as = floating ? DT_F64 : DT_I64;
    Tensor *g = num_contiguous_as(got, as, err);
    Tensor *r = g ? num_contiguous_as(ref, as, err) : NULL;
    if (!r) {
        tensor_unref(g);
        return EP_ERR_EXEC;
    }
    if (floating)
        compare_floats(tensor_data(g), tensor_data(r), st->numel, st);
    else
        compare_ints(tensor_data(g), tensor_data(r), st->numel, st);
    tensor_unref(g);
    tensor_unref(r);
    return EP_OK;
}

bool num_stats_exact(const ErrStats *st)
{
    return st->nbad == 0 && st->max_abs == 0 && st->nonfinite_new == 0 && st->nonfinite_lost == 0;
}

/* ---- describing nodes and values -------------------------------------------------------- */

char *numerics_describe_node(const Model *m, int node)
{
    const Node *n = &m->ep->graph.nodes[node];
    StrBuf sb;
    sb_init(&sb);
    sb_printf(&sb, "#%d '%s' (%s)", node, n->name, op_short_target(n->target));
    SourceFrame *frames = NULL;
    int nf = n->meta.stack_trace ? source_frames_parse(n->meta.stack_trace, &frames) : 0;
    if (nf > 0) {
        const SourceFrame *f = &frames[source_user_frame(frames, nf)];
        sb_printf(&sb, " at %s:%d in %s", f->file, f->line, f->func);
    }
    source_frames_free(frames, nf);
    ModuleScope *scopes = NULL;
    int ns = n->meta.nn_module_stack ? module_scopes_parse(n->meta.nn_module_stack, &scopes) : 0;
    if (ns > 0) {
        char *path = module_path_clean(scopes[ns - 1].path);
        if (path[0])
            sb_printf(&sb, " [%s]", path);
        free(path);
    }
    module_scopes_free(scopes, ns);
    return sb_take(&sb);
}

char *num_describe(NodeDescribeFn fn, void *ctx, const Model *m, int node)
{
    return fn ? fn(ctx, node) : numerics_describe_node(m, node);
}

/* "[1, 3]" for flat index i of a tensor of that shape ("[]" for 0-d). */
void num_sb_index(StrBuf *sb, int ndim, const int64_t *sizes, int64_t i)
{
    int64_t idx[EP_MAX_DIMS];
    for (int d = ndim - 1; d >= 0; d--) {
        int64_t s = sizes[d] > 0 ? sizes[d] : 1;
        idx[d] = i % s;
        i /= s;
    }
    sb_append(sb, "[");
    for (int d = 0; d < ndim; d++)
        sb_printf(sb, "%s%lld", d ? ", " : "", (long long)idx[d]);
    sb_append(sb, "]");
}

void num_sb_type(StrBuf *sb, DType t, int ndim, const int64_t *sizes)
{
    char buf[256];
    sb_printf(sb, "%s%s", dtype_name(t), shape_str(ndim, sizes, buf, sizeof buf));
}

/* The tolerance in words: the options' numbers or the per-dtype rule. */
void num_sb_tolerance(StrBuf *sb, const NumericsOptions *opt)
{
    if (opt->rtol < 0 && opt->atol < 0) {
        sb_append(sb, "rtol 1e-4, atol 1e-5 for float32; per dtype otherwise");
        return;
    }
    double r, a;
    num_tolerance_of(opt, DT_F32, &r, &a);
    sb_printf(sb, "rtol %g, atol %g", r, a);
}

/* The error in units of the tolerance: "5e+03 x tolerance"; an infinite
** ratio is a NaN/Inf mismatch or a difference under a zero tolerance. */
void num_sb_ratio(StrBuf *sb, const ErrStats *st)
{
    if (!isinf(st->ratio))
        sb_printf(sb, "%.2g x tolerance", st->ratio);
    else if (st->nonfinite_new || st->nonfinite_lost)
        sb_append(sb, "non-finite mismatch");
    else
        sb_append(sb, "beyond a zero tolerance");
}

/* "max abs err 0.5, max rel err 0.25 (5e+03 x tolerance)" */
void num_sb_errors(StrBuf *sb, const ErrStats *st)
{
    sb_printf(sb, "max abs err %.3g, max rel err %.3g (", st->max_abs, st->max_rel);
    num_sb_ratio(sb, st);
    sb_append(sb, ")");
}

void num_sb_nonfinite(StrBuf *sb, const ErrStats *st, const char *mine, const char *theirs)
{
    if (st->nonfinite_new)
        sb_printf(sb, "; %lld NaN/Inf in %s where %s is finite", (long long)st->nonfinite_new, mine, theirs);
    if (st->nonfinite_lost)
        sb_printf(sb, "; %lld values finite (or another non-finite) in %s where %s has NaN/Inf",
                  (long long)st->nonfinite_lost, mine, theirs);
}

/* ---- a private run ------------------------------------------------------------------------ */


#define KEEP_TO_END ((intptr_t)INT32_MAX)

static void keep_arg_refs(StrMap *map, const Arg *a)
{
    if (a->ref)
        strmap_put(map, a->ref, (void *)KEEP_TO_END);
    for (int j = 0; j < a->n; j++)
        keep_arg_refs(map, &a->items[j]);
}

void num_run_close(NumRun *r)
{
    interp_free(r->ip);
    r->ip = NULL;
    strmap_free(&r->last_use, NULL);
}

EpStatus num_run_open(NumRun *r, const Model *src, const Value *inputs, int n, const KernelConfig *kc,
                          EpError *err)
{
    memset(r, 0, sizeof *r);
    strmap_init(&r->last_use);
    EpStatus rc = model_open(src->path, src->name, &r->m, err);
    if (rc)
        return rc;
    InterpOptions io = INTERP_OPTIONS_DEFAULT;
    io.keep_values = true;
    io.kernels = *kc;
    r->ip = interp_new(r->m, &io, err);
    if (!r->ip)
        return EP_ERR_EXEC;
    if (n > 0) {
        rc = interp_bind_copy(r->ip, inputs, n, err); /* the program may write into its inputs */
    } else if (inputs || interp_num_user_inputs(r->ip) == 0) {
        rc = interp_bind(r->ip, NULL, 0, err);
    } else {
        rc = interp_bind_sample_inputs(r->ip, err);
    }
    if (rc)
        return rc;
    const Graph *g = &interp_program(r->ip)->graph;
    for (int i = 0; i < g->ninputs; i++)
        keep_arg_refs(&r->last_use, &g->inputs[i]);
    for (int i = 0; i < g->noutputs; i++)
        keep_arg_refs(&r->last_use, &g->outputs[i]);
    for (int i = 0; i < interp_num_nodes(r->ip); i++)
        for (int k = 0; k < interp_node_num_inputs(r->ip, i); k++) {
            const char *name = interp_node_input_name(r->ip, i, k, NULL);
            if ((intptr_t)strmap_get(&r->last_use, name) != KEEP_TO_END)
                strmap_put(&r->last_use, name, (void *)(intptr_t)(i + 2));
        }
    return EP_OK;
}

/* Whether name is dead once node i has run (read last by i, or never). */
bool num_run_dead_after(const NumRun *r, const char *name, int i)
{
    intptr_t at = (intptr_t)strmap_get(&r->last_use, name);
    return at == 0 || at == i + 2;
}

/* Drop the run's values that node i was the last to need. */
void num_run_release(NumRun *r, int i)
{
    EpError ignored;
    for (int k = 0; k < interp_node_num_inputs(r->ip, i); k++) {
        const char *name = interp_node_input_name(r->ip, i, k, NULL);
        if (num_run_dead_after(r, name, i) && interp_value(r->ip, name))
            interp_set_value(r->ip, name, value_none(), &ignored);
    }
    for (int k = 0; k < interp_node_num_outputs(r->ip, i); k++) {
        const char *name = interp_node_output_name(r->ip, i, k);
        if (num_run_dead_after(r, name, i) && interp_value(r->ip, name))
            interp_set_value(r->ip, name, value_none(), &ignored);
    }
}

bool num_is_float_tensor(const Value *v)
{
    return v && v->kind == V_TENSOR && dtype_is_float(v->t->dtype);
}

/* Dtype conversions: in float64 their shadow is the input's shadow itself
** (the float64 copy of the computation does not round), and their local
** error is the rounding of the conversion. */
bool num_is_conversion(const Node *n)
{
    if (!n->op)
        return false;
    switch (n->op->id) {
    case OP_TO_COPY:
    case OP_TO_DTYPE:
    case OP_TO_DTYPE_LAYOUT:
    case OP_TO_DEVICE:
    case OP_TO_OTHER:
    case OP_TYPE_AS:
        return true;
    default:
        return false;
    }
}

/* Whether input k of node i is an argument the op writes into. */
bool num_input_mutated(const Interp *ip, int i, int k)
{
    const Node *n = interp_node(ip, i);
    const char *arg = NULL;
    interp_node_input_name(ip, i, k, &arg);
    if (!n->op || !n->op->schema || !arg)
        return false;
    int a = schema_arg_index(n->op->schema, arg);
    return a >= 0 && n->op->schema->args[a].mutated;
}
