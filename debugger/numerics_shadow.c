/*
** numerics_shadow.c -- the float64 shadow check (numerics.h): every node
** with floating inputs evaluated once more in float64, beside the real run,
** and the report of where float32 departs from it.
*/
#include "numerics_int.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- the float64 shadow ------------------------------------------------------------------- */

/* What the shadow check knows about one value name. */
typedef struct NameInfo {
    Value shadow;      /* its float64 shadow (V_NONE: none yet / dropped) */
    bool exact;        /* the shadow is the float32 value upcast */
    double ratio;      /* chain error of the value, in tolerances (0: not compared) */
    double max_rel, max_abs; /* and its figures, to judge it by another dtype's tolerance */
    DType dtype;
    bool bad_nonfinite; /* float32 NaN/Inf where float64 is finite (or the reverse) */
    int nonfinite;     /* float32 value has NaN/Inf: -1 unknown, 0 no, 1 yes */
} NameInfo;

typedef struct Shadow {
    NumRun run;
    StrMap names;      /* name -> NameInfo* */
    /* local evaluation: the node's float inputs upcast, every one of them
    ** (aten.cat takes as many as the program lists), so sized by the node */
    int nlocal, cap_local;
    const char **local_names;
    Value *local_vals;
} Shadow;

static NameInfo *name_info(Shadow *sh, const char *name)
{
    NameInfo *ni = strmap_get(&sh->names, name);
    if (!ni) {
        ni = ep_xcalloc(1, sizeof *ni);
        ni->nonfinite = -1;
        strmap_put(&sh->names, name, ni);
    }
    return ni;
}

static void name_info_free(void *p)
{
    NameInfo *ni = p;
    value_clear(&ni->shadow);
    free(ni);
}

static Value upcast(const Tensor *t, EpError *err)
{
    Tensor *u = num_contiguous_as(t, DT_F64, err);
    return u ? value_tensor(u) : value_none();
}

/* Make sure a float input has a shadow: the float32 value upcast when the
** chain has none for it (a parameter, a user input, or a value float64 could
** not follow). */
static EpStatus ensure_shadow(Shadow *sh, const char *name, const Value *real, EpError *err)
{
    NameInfo *ni = name_info(sh, name);
    if (ni->shadow.kind != V_NONE)
        return EP_OK;
    ni->shadow = upcast(real->t, err);
    if (ni->shadow.kind == V_NONE)
        return EP_ERR_EXEC;
    ni->exact = true;
    return EP_OK;
}

static const Value *subst_shadow(void *ctx, const char *name)
{
    Shadow *sh = ctx;
    NameInfo *ni = strmap_get(&sh->names, name);
    return ni && ni->shadow.kind != V_NONE ? &ni->shadow : NULL;
}

static const Value *subst_local(void *ctx, const char *name)
{
    Shadow *sh = ctx;
    for (int k = 0; k < sh->nlocal; k++)
        if (strcmp(sh->local_names[k], name) == 0)
            return &sh->local_vals[k];
    return NULL;
}

static void local_clear(Shadow *sh)
{
    for (int k = 0; k < sh->nlocal; k++)
        value_clear(&sh->local_vals[k]);
    sh->nlocal = 0;
}

static bool has_nonfinite(Shadow *sh, const char *name, const Value *real)
{
    NameInfo *ni = name_info(sh, name);
    if (ni->nonfinite < 0) {
        TensorStats ts;
        tensor_stats(real->t, &ts);
        ni->nonfinite = ts.nan || ts.inf;
    }
    return ni->nonfinite == 1;
}

static void note_add(NumNode *nn, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note_add(NumNode *nn, const char *fmt, ...)
{
    if (nn->note)
        return; /* the first reason is the one that matters */
    char buf[EP_ERRMSG_MAX + 128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    nn->note = ep_xstrdup(buf);
}

/* What the node's float inputs look like before it runs. */
typedef struct NodeInputs {
    bool any_float;
    bool all_exact;     /* every float input's shadow is its float32 value upcast */
    bool bad_nonfinite; /* an input already had NaN/Inf float64 does not */
    bool nonfinite;     /* an input (float32) has NaN/Inf */
    double ratio;       /* largest chain error of an input, in its own dtype's tolerance */
    /* the largest figures of inputs of another dtype than the outputs:
    ** bfloat16 rounding within bfloat16's tolerance can be far beyond
    ** float32's, and then a float32 result inherits it */
    double mixed_rel, mixed_abs;
    DType dtype;        /* of the first float input */
    bool mixed;         /* float inputs of several dtypes */
    EpError eval_err;   /* why float64 could not evaluate the node (code 0: it could) */
} NodeInputs;

static EpStatus gather_inputs(Shadow *sh, int i, NodeInputs *in, EpError *err)
{
    Interp *ip = sh->run.ip;
    memset(in, 0, sizeof *in);
    in->all_exact = true;
    for (int k = 0; k < interp_node_num_inputs(ip, i); k++) {
        const char *name = interp_node_input_name(ip, i, k, NULL);
        const Value *v = interp_value(ip, name);
        if (!num_is_float_tensor(v))
            continue;
        if (!in->any_float)
            in->dtype = v->t->dtype;
        in->any_float = true;
        if (ensure_shadow(sh, name, v, err))
            return EP_ERR_EXEC;
        NameInfo *ni = name_info(sh, name);
        in->all_exact = in->all_exact && ni->exact;
        in->bad_nonfinite = in->bad_nonfinite || ni->bad_nonfinite;
        in->nonfinite = in->nonfinite || has_nonfinite(sh, name, v);
        if (ni->ratio > in->ratio)
            in->ratio = ni->ratio;
        in->mixed = in->mixed || v->t->dtype != in->dtype;
        if (ni->max_rel > in->mixed_rel)
            in->mixed_rel = ni->max_rel;
        if (ni->max_abs > in->mixed_abs)
            in->mixed_abs = ni->max_abs;
    }
    return EP_OK;
}

/* Node i in float64 on the upcast float32 inputs (its local reference). */
static EpStatus eval_local(Shadow *sh, int i, Value *outs, int max, int *nouts, EpError *err)
{
    Interp *ip = sh->run.ip;
    local_clear(sh);
    int nin = interp_node_num_inputs(ip, i);
    if (nin > sh->cap_local) {
        sh->cap_local = nin;
        sh->local_names = ep_xrealloc(sh->local_names, (size_t)nin * sizeof *sh->local_names);
        sh->local_vals = ep_xrealloc(sh->local_vals, (size_t)nin * sizeof *sh->local_vals);
    }
    for (int k = 0; k < nin; k++) {
        const char *name = interp_node_input_name(ip, i, k, NULL);
        const Value *v = interp_value(ip, name);
        if (!num_is_float_tensor(v) || subst_local(sh, name))
            continue;
        Value u = upcast(v->t, err);
        if (u.kind == V_NONE) {
            local_clear(sh);
            return EP_ERR_EXEC;
        }
        sh->local_names[sh->nlocal] = name;
        sh->local_vals[sh->nlocal++] = u;
    }
    EpStatus rc = interp_eval_node(ip, i, subst_local, sh, outs, max, nouts, err);
    local_clear(sh);
    return rc;
}

/* The float64 results of node i before it runs: its chain (shadow) outputs
** and, unless they are the same thing, its local outputs.  A conversion's
** outputs are its input's, unrounded. */
static void eval_shadow_node(Shadow *sh, int i, NodeInputs *in, NumNode *nn, Value *souts, Value *louts, int max,
                             bool *have_s, bool *have_l)
{
    Interp *ip = sh->run.ip;
    EpError e = {0};
    int ns = 0;
    *have_s = *have_l = false;
    const char *in0 = interp_node_num_inputs(ip, i) > 0 ? interp_node_input_name(ip, i, 0, NULL) : NULL;
    const Value *real0 = in0 ? interp_value(ip, in0) : NULL;
    if (num_is_conversion(interp_node(ip, i)) && num_is_float_tensor(real0) && max > 0) {
        NameInfo *ni = name_info(sh, in0);
        souts[0] = value_copy(&ni->shadow);
        *have_s = true;
        if (!in->all_exact) {
            louts[0] = upcast(real0->t, &e);
            *have_l = louts[0].kind != V_NONE;
        }
        return;
    }
    if (interp_eval_node(ip, i, subst_shadow, sh, souts, max, &ns, &in->eval_err))
        return; /* noted if a floating output loses its shadow */
    *have_s = true;
    if (!in->all_exact) {
        ep_error_clear(&e);
        if (eval_local(sh, i, louts, max, &ns, &e) == EP_OK)
            *have_l = true;
        else
            note_add(nn, "float64 evaluation on its own inputs failed (%s): no local error", e.msg);
    }
}

/* After an in-place node: the tensor it wrote and the node's result that
** aliases it get the shadow the node computed; other views of the written
** storage lose theirs (re-seeded from their float32 values when next read). */
static void shadow_after_mutation(Shadow *sh, int i)
{
    Interp *ip = sh->run.ip;
    for (int k = 0; k < interp_node_num_inputs(ip, i); k++) {
        if (!num_input_mutated(ip, i, k))
            continue;
        const char *name = interp_node_input_name(ip, i, k, NULL);
        const Value *w = interp_value(ip, name);
        if (!w || w->kind != V_TENSOR)
            continue;
        const char *alias = NULL;
        Value saved = value_none();
        bool exact = false;
        for (int o = 0; o < interp_node_num_outputs(ip, i) && !alias; o++) {
            const char *oname = interp_node_output_name(ip, i, o);
            const Value *ov = interp_value(ip, oname);
            NameInfo *oi = strmap_get(&sh->names, oname);
            if (ov && ov->kind == V_TENSOR && ov->t == w->t && oi && oi->shadow.kind != V_NONE) {
                alias = oname;
                saved = value_copy(&oi->shadow);
                exact = oi->exact;
            }
        }
        for (int e = 0; e < sh->names.n; e++) {
            NameInfo *ni = sh->names.entries[e].value;
            const Value *v = interp_value(ip, sh->names.entries[e].key);
            if (ni->shadow.kind != V_NONE && v && v->kind == V_TENSOR && tensor_same_storage(v->t, w->t)) {
                value_clear(&ni->shadow);
                ni->nonfinite = -1;
            }
        }
        if (alias) {
            NameInfo *ni = name_info(sh, name), *oi = name_info(sh, alias);
            ni->shadow = value_copy(&saved);
            oi->shadow = saved;
            ni->exact = oi->exact = exact;
        }
    }
}

/* The kernel's own words from an evaluation error, without the node
** description the interpreter puts in front (the report has its own). */
static const char *kernel_message(const char *msg, const Node *n)
{
    const char *target = op_short_target(n->target), *best = NULL;
    size_t len = strlen(target);
    for (const char *p = strstr(msg, target); p; p = strstr(p + 1, target))
        if (strncmp(p + len, ": ", 2) == 0)
            best = p + len + 2;
    return best ? best : msg;
}

/* nan_to_num replaces infinities by the dtype's largest value, which in
** float64 is 1.8e308: where the float64 result did that, take the real
** dtype's replacement, the value the model asked for. */
static EpStatus limits_as_real(Value *f64, const Tensor *real, EpError *err)
{
    if (!f64 || f64->kind != V_TENSOR || f64->t->dtype != DT_F64 ||
        !shape_equal(f64->t->ndim, f64->t->sizes, real->ndim, real->sizes))
        return EP_OK;
    Tensor *r = num_contiguous_as(real, DT_F64, err);
    Tensor *s = r ? tensor_to_dtype(f64->t, DT_F64, err) : NULL;
    if (!s) {
        tensor_unref(r);
        return EP_ERR_EXEC;
    }
    double *sd = tensor_data(s);
    const double *rd = tensor_data(r);
    for (int64_t i = 0; i < tensor_numel(s); i++)
        if (fabs(sd[i]) == DBL_MAX && isfinite(rd[i]))
            sd[i] = rd[i];
    tensor_unref(r);
    value_clear(f64);
    *f64 = value_tensor(s);
    return EP_OK;
}

/* Compare output k of node i (which has just run) with its float64
** results; the shadow of the output becomes souts[k] (stolen). */
static EpStatus check_output(Shadow *sh, int i, int k, const NodeInputs *in, NumNode *nn, Value *sout,
                             Value *lout, const NumericsOptions *opt, EpError *err)
{
    Interp *ip = sh->run.ip;
    const char *name = interp_node_output_name(ip, i, k);
    const Value *real = interp_value(ip, name);
    if (!real || real->kind != V_TENSOR)
        return EP_OK;
    NameInfo *ni = name_info(sh, name);
    bool same_shape = sout && sout->kind == V_TENSOR &&
                      shape_equal(sout->t->ndim, sout->t->sizes, real->t->ndim, real->t->sizes);
    if (!dtype_is_float(real->t->dtype)) {
        /* int/bool results keep their real values; note a different decision */
        if (same_shape && !dtype_is_float(sout->t->dtype)) {
            ErrStats st;
            if (numerics_compare_tensors(real->t, sout->t, 0, 0, &st, err))
                return EP_ERR_EXEC;
            nn->discrete_diff += st.nbad;
            nn->discrete_numel += st.numel;
        }
        return EP_OK;
    }
    if (!same_shape) {
        if (in->eval_err.code)
            note_add(nn, "float64 evaluation failed (%s); its float32 values seed the shadow from here",
                     kernel_message(in->eval_err.msg, interp_node(ip, i)));
        else if (sout && sout->kind != V_NONE)
            note_add(nn, "its float64 result %s has another shape; its float32 values seed the shadow from here",
                     name);
        return EP_OK;
    }
    const Node *node = interp_node(ip, i);
    if (node->op && (node->op->id == OP_NAN_TO_NUM || node->op->id == OP_NAN_TO_NUM_)) {
        if (limits_as_real(sout, real->t, err) || limits_as_real(lout, real->t, err))
            return EP_ERR_EXEC;
    }
    if (sout->t->dtype != DT_F64) {
        note_add(nn, "float64 evaluation gives %s (a dtype argument): the shadow is rounded here",
                 dtype_name(sout->t->dtype));
        Value u = upcast(sout->t, err);
        if (u.kind == V_NONE)
            return EP_ERR_EXEC;
        value_clear(sout);
        *sout = u;
    }
    nn->outs = ep_xrealloc(nn->outs, (size_t)(nn->nout + 1) * sizeof *nn->outs);
    NumOutput *o = &nn->outs[nn->nout++];
    memset(o, 0, sizeof *o);
    o->name = name;
    o->dtype = real->t->dtype;
    o->ndim = real->t->ndim;
    memcpy(o->sizes, real->t->sizes, sizeof o->sizes);
    double rtol, atol;
    num_tolerance_of(opt, o->dtype, &rtol, &atol);
    if (numerics_compare_tensors(real->t, sout->t, rtol, atol, &o->chain, err))
        return EP_ERR_EXEC;
    if (in->all_exact) {
        o->local = o->chain;
    } else if (lout && lout->kind == V_TENSOR &&
               shape_equal(lout->t->ndim, lout->t->sizes, real->t->ndim, real->t->sizes)) {
        if (numerics_compare_tensors(real->t, lout->t, rtol, atol, &o->local, err))
            return EP_ERR_EXEC;
    } else {
        o->local.worst = -1; /* unknown: zero figures */
    }
    value_clear(&ni->shadow);
    ni->shadow = *sout;
    *sout = value_none();
    ni->exact = num_stats_exact(&o->chain);
    ni->ratio = o->chain.ratio;
    ni->max_rel = o->chain.max_rel;
    ni->max_abs = o->chain.max_abs;
    ni->bad_nonfinite = o->chain.nonfinite_new > 0 || o->chain.nonfinite_lost > 0;
    ni->nonfinite = o->chain.nonfinite_got > 0;
    if (o->chain.ratio > nn->outs[nn->worst].chain.ratio)
        nn->worst = nn->nout - 1;
    return EP_OK;
}

static NumVerdict verdict_of(const NumNode *nn, const NodeInputs *in)
{
    bool over = false, new_nf = false, local_over = false, lowp = false;
    for (int k = 0; k < nn->nout; k++) {
        const ErrStats *ch = &nn->outs[k].chain;
        over = over || ch->nbad > 0;
        new_nf = new_nf || ch->nonfinite_new > 0;
        local_over = local_over || nn->outs[k].local.nbad > 0;
        if ((in->mixed || in->dtype != nn->outs[k].dtype) && in->mixed_rel > ch->rtol && in->mixed_abs > ch->atol)
            lowp = true;
    }
    if (!over)
        return NUM_OK;
    if (new_nf && !in->bad_nonfinite)
        return NUM_OVERFLOW;
    if (in->ratio > 1 || in->bad_nonfinite)
        return NUM_INHERITED;
    if (lowp)
        return NUM_PRECISION;
    return local_over ? NUM_INTRODUCED : NUM_AMPLIFIED;
}

/* NaN/Inf that float64 has as well, made here from finite inputs. */
static void note_shared_nonfinite(Shadow *sh, int i, const NodeInputs *in, NumNode *nn)
{
    if (in->nonfinite)
        return;
    Interp *ip = sh->run.ip;
    for (int k = 0; k < interp_node_num_outputs(ip, i); k++) {
        const char *name = interp_node_output_name(ip, i, k);
        const Value *v = interp_value(ip, name);
        if (!num_is_float_tensor(v) || !has_nonfinite(sh, name, v))
            continue;
        int64_t count = 0;
        for (int o = 0; o < nn->nout; o++)
            if (strcmp(nn->outs[o].name, name) == 0)
                count = nn->outs[o].chain.nonfinite_same;
        if (count == 0 && nn->checked)
            continue; /* only float32 has them: that is the overflow verdict's */
        if (count == 0) {
            TensorStats ts;
            tensor_stats(v->t, &ts);
            count = ts.nan + ts.inf;
        }
        nn->nan_origin = true;
        nn->nan_count += count;
    }
}

/* One node: float64 evaluations before it runs, the run, the comparison. */
static EpStatus shadow_node(Shadow *sh, ShadowReport *rep, int i, EpError *err)
{
    Interp *ip = sh->run.ip;
    NumNode *nn = &rep->nodes[i];
    NodeInputs in;
    if (gather_inputs(sh, i, &in, err))
        return EP_ERR_EXEC;
    int nout = interp_node_num_outputs(ip, i);
    int max = nout > 0 ? nout : 1;
    Value *souts = ep_xcalloc((size_t)max, sizeof *souts);
    Value *louts = ep_xcalloc((size_t)max, sizeof *louts);
    bool have_s = false, have_l = false;
    if (in.any_float)
        eval_shadow_node(sh, i, &in, nn, souts, louts, max, &have_s, &have_l);
    EpError run_err = {0};
    EpStatus rc = EP_OK;
    if (interp_step(ip, &run_err)) {
        rep->failed_node = i;
        rep->failure = ep_xstrdup(run_err.msg);
    } else {
        for (int k = 0; k < nout && rc == EP_OK; k++)
            rc = check_output(sh, i, k, &in, nn, have_s ? &souts[k] : NULL, have_l ? &louts[k] : NULL,
                              &rep->opt, err);
        for (int k = 0; k < nout; k++)
            strmap_put(&rep->producer, interp_node_output_name(ip, i, k), (void *)(intptr_t)(i + 1));
        nn->checked = nn->nout > 0;
        nn->input_ratio = in.ratio;
        nn->verdict = verdict_of(nn, &in);
        if (rc == EP_OK) {
            note_shared_nonfinite(sh, i, &in, nn);
            if (interp_node_mutates(ip, i))
                shadow_after_mutation(sh, i);
        }
    }
    for (int k = 0; k < max; k++) {
        value_clear(&souts[k]);
        value_clear(&louts[k]);
    }
    free(souts);
    free(louts);
    return rc;
}

/* Drop shadows (and the run's values) that node i was the last to read. */
static void shadow_release(Shadow *sh, int i)
{
    Interp *ip = sh->run.ip;
    for (int pass = 0; pass < 2; pass++) {
        int n = pass ? interp_node_num_outputs(ip, i) : interp_node_num_inputs(ip, i);
        for (int k = 0; k < n; k++) {
            const char *name = pass ? interp_node_output_name(ip, i, k) : interp_node_input_name(ip, i, k, NULL);
            NameInfo *ni = strmap_get(&sh->names, name);
            if (ni && num_run_dead_after(&sh->run, name, i))
                value_clear(&ni->shadow);
        }
    }
    num_run_release(&sh->run, i);
}

EpStatus numerics_shadow(const Model *m, const Value *inputs, int n, const NumericsOptions *opt, ShadowReport **out,
                         EpError *err)
{
    *out = NULL;
    if (!opt)
        opt = &NUMERICS_OPTIONS_DEFAULT;
    Shadow sh;
    memset(&sh, 0, sizeof sh);
    strmap_init(&sh.names);
    EpStatus rc = num_run_open(&sh.run, m, inputs, n, &opt->kernels, err);
    ShadowReport *rep = NULL;
    if (rc == EP_OK) {
        rep = ep_xcalloc(1, sizeof *rep);
        rep->opt = *opt;
        rep->nnodes = interp_num_nodes(sh.run.ip);
        rep->nodes = ep_xcalloc((size_t)(rep->nnodes ? rep->nnodes : 1), sizeof *rep->nodes);
        rep->failed_node = -1;
        strmap_init(&rep->producer);
    }
    for (int i = 0; rc == EP_OK && i < rep->nnodes && rep->failed_node < 0; i++) {
        rc = shadow_node(&sh, rep, i, err);
        shadow_release(&sh, i);
    }
    strmap_free(&sh.names, name_info_free);
    free(sh.local_names);
    free(sh.local_vals);
    num_run_close(&sh.run);
    if (rc) {
        model_free(sh.run.m);
        if (rep)
            rep->model = NULL;
        numerics_shadow_free(rep);
        return rc;
    }
    rep->model = sh.run.m;
    for (int i = 0; i < rep->nnodes; i++) {
        const NumNode *nn = &rep->nodes[i];
        rep->nchecked += nn->checked;
        rep->nflagged += nn->verdict != NUM_OK;
        rep->norigins += nn->verdict != NUM_OK && nn->verdict != NUM_INHERITED;
        rep->nnotes += nn->note != NULL || nn->discrete_diff > 0;
        rep->nnan += nn->nan_origin;
    }
    *out = rep;
    return EP_OK;
}

void numerics_shadow_free(ShadowReport *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->nnodes; i++) {
        free(r->nodes[i].outs);
        free(r->nodes[i].note);
    }
    free(r->nodes);
    strmap_free(&r->producer, NULL);
    free(r->failure);
    model_free(r->model);
    free(r);
}

/* ---- the shadow report -------------------------------------------------------------------- */

static const char *verdict_text(NumVerdict v)
{
    switch (v) {
    case NUM_OVERFLOW:
        return "overflow here: float32 gives NaN/Inf where float64 is finite";
    case NUM_INTRODUCED:
        return "introduced here: this node's own float32 rounding exceeds the tolerance";
    case NUM_AMPLIFIED:
        return "amplified here: its inputs are within tolerance but its output is not -- an ill-conditioned "
               "operation (e.g. a difference of nearly equal values) magnifies their rounding errors";
    case NUM_PRECISION:
        return "precision: an input of another (lower) precision carries rounding that is within its own "
               "dtype's tolerance but beyond this node's";
    case NUM_INHERITED:
        return "inherited: an input was already beyond tolerance";
    case NUM_OK:
        break;
    }
    return "within tolerance";
}

static const NumOutput *output_named(const ShadowReport *r, const char *name, int *node)
{
    intptr_t at = (intptr_t)strmap_get(&r->producer, name);
    *node = (int)at - 1;
    if (at <= 0)
        return NULL;
    const NumNode *nn = &r->nodes[at - 1];
    for (int k = 0; k < nn->nout; k++)
        if (strcmp(nn->outs[k].name, name) == 0)
            return &nn->outs[k];
    return NULL;
}

static void sb_output_figures(StrBuf *sb, const NumOutput *o)
{
    sb_printf(sb, "  %s ", o->name);
    num_sb_type(sb, o->dtype, o->ndim, o->sizes);
    sb_append(sb, ": ");
    num_sb_errors(sb, &o->chain);
    sb_printf(sb, "; %lld of %lld elements beyond tolerance", (long long)o->chain.nbad, (long long)o->chain.numel);
    num_sb_nonfinite(sb, &o->chain, "float32", "float64");
    sb_append(sb, "\n");
    if (o->chain.worst >= 0) {
        sb_append(sb, "    worst at ");
        num_sb_index(sb, o->ndim, o->sizes, o->chain.worst);
        sb_printf(sb, ": %s %.9g, float64 %.9g\n", dtype_name(o->dtype), o->chain.worst_got, o->chain.worst_ref);
    }
    sb_append(sb, "    local error (float64 on its own float32 inputs): ");
    if (o->local.numel == 0 && o->chain.numel > 0) {
        sb_append(sb, "unknown\n");
    } else {
        num_sb_errors(sb, &o->local);
        sb_append(sb, "\n");
    }
}

/* The node's floating inputs with the figures of the nodes that made them. */
static void sb_input_figures(StrBuf *sb, const ShadowReport *r, int i)
{
    const Node *n = &r->model->ep->graph.nodes[i];
    bool header = false;
    StrMap seen;
    strmap_init(&seen);
    for (int a = 0; a < n->ninputs; a++) {
        const Arg *arg = &n->inputs[a].arg;
        for (int j = -1; j < arg->n; j++) {
            const char *name = j < 0 ? arg->ref : arg->items[j].ref;
            const TensorMeta *tm = name ? graph_tensor_meta(&r->model->ep->graph, name) : NULL;
            if (!tm || tm->dtype == DT_INVALID || !dtype_is_float(tm->dtype) || strmap_get(&seen, name))
                continue;
            strmap_put(&seen, name, (void *)1);
            int node;
            const NumOutput *o = output_named(r, name, &node);
            if (!header) {
                sb_append(sb, "  inputs:\n");
                header = true;
            }
            if (node < 0) {
                sb_printf(sb, "    %s: a program input (exact in float64)\n", name);
            } else if (!o) {
                sb_printf(sb, "    %s from #%d: not compared (no float64 figures)\n", name, node);
            } else {
                sb_printf(sb, "    %s from #%d '%s': max rel err %.3g (%.2g x tolerance), local %.3g\n", name, node,
                          r->model->ep->graph.nodes[node].name, o->chain.max_rel, o->chain.ratio, o->local.max_rel);
            }
        }
    }
    strmap_free(&seen, NULL);
}

static void sb_node_block(StrBuf *sb, const ShadowReport *r, int i, NodeDescribeFn fn, void *ctx, bool brief)
{
    const NumNode *nn = &r->nodes[i];
    char *line = num_describe(fn, ctx, r->model, i);
    sb_printf(sb, "%s\n  %s\n", line, verdict_text(nn->verdict));
    free(line);
    for (int k = 0; k < nn->nout; k++)
        if (nn->outs[k].chain.nbad > 0 || k == nn->worst)
            sb_output_figures(sb, &nn->outs[k]);
    if (!brief)
        sb_input_figures(sb, r, i);
}

/* "#6 'abs_1', #7 'sqrt'" for the nodes pick accepts, up to limit names. */
static void sb_node_names(StrBuf *sb, const ShadowReport *r, bool (*pick)(const NumNode *), int limit)
{
    int listed = 0, more = 0;
    for (int i = 0; i < r->nnodes; i++) {
        if (!pick(&r->nodes[i]))
            continue;
        if (listed < limit)
            sb_printf(sb, "%s#%d '%s'", listed ? ", " : "", i, r->model->ep->graph.nodes[i].name);
        else
            more++;
        listed++;
    }
    if (more)
        sb_printf(sb, " and %d more", more);
}

static bool is_origin(const NumNode *nn)
{
    return nn->verdict != NUM_OK && nn->verdict != NUM_INHERITED;
}

static bool is_inherited(const NumNode *nn)
{
    return nn->verdict == NUM_INHERITED;
}

static void sb_shadow_notes(StrBuf *sb, const ShadowReport *r, NodeDescribeFn fn, void *ctx)
{
    if (r->nnan) {
        sb_append(sb, "NaN/Inf that float64 has too (not a rounding problem: the operation itself is undefined or "
                      "overflows there; `break nan` stops at it):\n");
        for (int i = 0; i < r->nnodes; i++) {
            const NumNode *nn = &r->nodes[i];
            if (!nn->nan_origin)
                continue;
            char *line = num_describe(fn, ctx, r->model, i);
            sb_printf(sb, "  %s: %lld NaN/Inf values from finite inputs%s\n", line, (long long)nn->nan_count,
                      nn->checked ? "" : " (float64 not compared)");
            free(line);
        }
    }
    if (r->nnotes == 0)
        return;
    sb_append(sb, "Notes:\n");
    int shown = 0;
    for (int i = 0; i < r->nnodes; i++) {
        const NumNode *nn = &r->nodes[i];
        if (!nn->note && !nn->discrete_diff)
            continue;
        if (!r->opt.all && shown == SHORT_REPORT) {
            sb_printf(sb, "  ... %d more (--all lists them)\n", r->nnotes - shown);
            break;
        }
        shown++;
        char *line = num_describe(fn, ctx, r->model, i);
        if (nn->note)
            sb_printf(sb, "  %s: %s\n", line, nn->note);
        if (nn->discrete_diff)
            sb_printf(sb, "  %s: its int/bool result differs in float64 at %lld of %lld elements (float32 decides "
                      "differently; the check follows the float32 decision)\n",
                      line, (long long)nn->discrete_diff, (long long)nn->discrete_numel);
        free(line);
    }
}

char *numerics_shadow_text(const ShadowReport *r, NodeDescribeFn fn, void *ctx)
{
    StrBuf sb;
    sb_init(&sb);
    sb_printf(&sb, "Float64 shadow check of %d node%s: %d compared with float64 (tolerance: ", r->nnodes,
              r->nnodes == 1 ? "" : "s", r->nchecked);
    num_sb_tolerance(&sb, &r->opt);
    sb_append(&sb, ").\n");
    if (r->failed_node >= 0) {
        char *line = num_describe(fn, ctx, r->model, r->failed_node);
        sb_printf(&sb, "The float32 run failed at %s: %s\nThe check covers the nodes before it.\n", line, r->failure);
        free(line);
    }
    if (r->nflagged == 0) {
        int best = -1;
        for (int i = 0; i < r->nnodes; i++)
            if (r->nodes[i].checked &&
                (best < 0 || r->nodes[i].outs[r->nodes[i].worst].chain.ratio >
                                 r->nodes[best].outs[r->nodes[best].worst].chain.ratio))
                best = i;
        sb_append(&sb, "No node departs from float64 beyond the tolerance.");
        if (best >= 0) {
            const NumOutput *o = &r->nodes[best].outs[r->nodes[best].worst];
            sb_printf(&sb, "  Largest error: #%d '%s' max rel err %.3g (%.2g x tolerance).", best,
                      r->model->ep->graph.nodes[best].name, o->chain.max_rel, o->chain.ratio);
        }
        sb_append(&sb, "\n");
    } else if (r->opt.all) {
        sb_printf(&sb, "%d node%s beyond tolerance, the error starts at %d:\n\n", r->nflagged,
                  r->nflagged == 1 ? " is" : "s are", r->norigins);
        for (int i = 0; i < r->nnodes; i++)
            if (r->nodes[i].verdict != NUM_OK) {
                sb_node_block(&sb, r, i, fn, ctx, is_inherited(&r->nodes[i]));
                sb_append(&sb, "\n");
            }
    } else {
        sb_printf(&sb, "%d node%s beyond tolerance; the error starts at %d of them:\n\n", r->nflagged,
                  r->nflagged == 1 ? " is" : "s are", r->norigins);
        int shown = 0;
        for (int i = 0; i < r->nnodes && shown < SHORT_REPORT; i++)
            if (is_origin(&r->nodes[i])) {
                sb_node_block(&sb, r, i, fn, ctx, false);
                sb_append(&sb, "\n");
                shown++;
            }
        if (r->norigins > shown)
            sb_printf(&sb, "%d more nodes where an error starts (--all describes them).\n", r->norigins - shown);
        if (r->nflagged > r->norigins) {
            sb_append(&sb, "Later nodes that inherit the error: ");
            sb_node_names(&sb, r, is_inherited, SHORT_NAMES);
            sb_append(&sb, " (--all describes them).\n");
        }
    }
    sb_shadow_notes(&sb, r, fn, ctx);
    return sb_take(&sb);
}

EpStatus numerics_shadow_print(FILE *f, const Model *m, const Value *inputs, int n, const NumericsOptions *opt,
                               int *nflagged, EpError *err)
{
    ShadowReport *r;
    EpStatus rc = numerics_shadow(m, inputs, n, opt, &r, err);
    if (rc)
        return rc;
    char *text = numerics_shadow_text(r, NULL, NULL);
    fputs(text, f);
    free(text);
    if (nflagged)
        *nflagged = r->nflagged;
    numerics_shadow_free(r);
    return EP_OK;
}
