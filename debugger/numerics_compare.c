/*
** numerics_compare.c -- comparing every value a run computes with a folder
** of reference tensors named after the values (numerics.h), and its report.
*/
#include "numerics_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "interp/npy.h"

/* ---- comparing with a folder of references ------------------------------------------------------ */

/* A reference loaded for a value, kept until the value's last reader so a
** differing node can be re-evaluated on its inputs' references. */
typedef struct RefEntry {
    Value ref;        /* the reference in the run value's dtype (V_NONE: not substitutable) */
    bool match;
} RefEntry;

typedef struct Cmp {
    NumRun run;
    const char *dir;
    StrMap refs;      /* value name -> RefEntry* */
    CompareReport *rep;
} Cmp;

static void ref_entry_free(void *p)
{
    RefEntry *e = p;
    value_clear(&e->ref);
    free(e);
}

/* dir/name.npy when it is a regular file (a new path), else NULL.  Names
** that could leave the folder are never looked up. */
static char *ref_path(const char *dir, const char *name)
{
    if (!name || !name[0] || strchr(name, '/') || name[0] == '.')
        return NULL;
    char *path = ep_xasprintf("%s/%s.npy", dir, name);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
        return path;
    free(path);
    return NULL;
}

static RefCheck *new_check(CompareReport *rep, int node, const char *name, const char *path)
{
    rep->checks = ep_xrealloc(rep->checks, (size_t)(rep->nchecks + 1) * sizeof *rep->checks);
    RefCheck *c = &rep->checks[rep->nchecks++];
    memset(c, 0, sizeof *c);
    c->node = node;
    c->name = name;
    const char *slash = strrchr(path, '/');
    c->file = ep_xstrdup(slash ? slash + 1 : path);
    c->st.worst = -1;
    return c;
}

/* Compare value v (called name, made by node or -1) with the reference at
** path; records the check, and the reference for later substitution.
** *ref_out (may be NULL) gets the loaded reference (a new reference). */
static EpStatus check_ref(Cmp *c, int node, const char *name, const char *path, const Value *v, Tensor **ref_out,
                          EpError *err)
{
    CompareReport *rep = c->rep;
    RefCheck *chk = new_check(rep, node, name, path);
    EpError e = {0};
    Tensor *ref = npy_load_file(path, &e);
    Tensor *got = v ? value_to_array(v, &e) : NULL;
    DType want = got ? got->dtype : DT_INVALID;
    if (got) {
        chk->dtype = got->dtype;
        chk->ndim = got->ndim;
        memcpy(chk->sizes, got->sizes, sizeof chk->sizes);
    }
    char b1[256], b2[256];
    if (!ref) {
        chk->problem = ep_xasprintf("unreadable reference: %s", e.msg);
    } else if (!got) {
        chk->problem = ep_xasprintf("epdbg's value is %s, which has no array form",
                                    v ? value_kind_name(v->kind) : "missing");
    } else if (got->dtype != ref->dtype && !(got->dtype == DT_BF16 && ref->dtype == DT_F32)) {
        chk->problem = ep_xasprintf("dtype %s, the reference has %s", dtype_name(got->dtype), dtype_name(ref->dtype));
    } else if (!shape_equal(got->ndim, got->sizes, ref->ndim, ref->sizes)) {
        chk->problem = ep_xasprintf("shape %s, the reference has %s", shape_str(got->ndim, got->sizes, b1, sizeof b1),
                                    shape_str(ref->ndim, ref->sizes, b2, sizeof b2));
    } else {
        double rtol, atol;
        num_tolerance_of(&rep->opt, want, &rtol, &atol);
        if (numerics_compare_tensors(got, ref, rtol, atol, &chk->st, err)) {
            tensor_unref(got);
            tensor_unref(ref);
            return EP_ERR_EXEC;
        }
        chk->match = chk->st.nbad == 0;
    }
    RefEntry *re = ep_xcalloc(1, sizeof *re);
    re->match = chk->match;
    if (ref && v && v->kind == V_TENSOR && !chk->problem) {
        Tensor *t = ref->dtype == want ? tensor_ref(ref) : tensor_to_dtype(ref, want, err);
        if (!t) {
            free(re);
            tensor_unref(got);
            tensor_unref(ref);
            return EP_ERR_EXEC;
        }
        re->ref = value_tensor(t);
    }
    RefEntry *old = strmap_put(&c->refs, name, re);
    if (old)
        ref_entry_free(old);
    if (!chk->match)
        rep->ndiffer++;
    if (!chk->match && rep->first < 0)
        rep->first = rep->nchecks - 1;
    if (ref_out && !chk->problem)
        *ref_out = tensor_ref(ref);
    tensor_unref(got);
    tensor_unref(ref);
    return EP_OK;
}

static const Value *subst_ref(void *ctx, const char *name)
{
    Cmp *c = ctx;
    RefEntry *e = strmap_get(&c->refs, name);
    return e && e->ref.kind != V_NONE ? &e->ref : NULL;
}

/* Whether some input of node i has a reference to substitute. */
static bool inputs_have_refs(Cmp *c, int i)
{
    for (int k = 0; k < interp_node_num_inputs(c->run.ip, i); k++)
        if (subst_ref(c, interp_node_input_name(c->run.ip, i, k, NULL)))
            return true;
    return false;
}

/* The state of each input of node i against its reference. */
static void record_inputs(Cmp *c, int i, RefCheck *chk)
{
    Interp *ip = c->run.ip;
    int n = interp_node_num_inputs(ip, i);
    chk->inputs = ep_xcalloc((size_t)(n ? n : 1), sizeof *chk->inputs);
    for (int k = 0; k < n; k++) {
        const char *name = interp_node_input_name(ip, i, k, NULL);
        bool dup = false;
        for (int j = 0; j < chk->ninputs; j++)
            dup = dup || strcmp(chk->inputs[j].name, name) == 0;
        if (dup)
            continue;
        RefEntry *e = strmap_get(&c->refs, name);
        RefInput *in = &chk->inputs[chk->ninputs++];
        in->name = name;
        in->state = !e ? REFIN_NO_REF : e->match ? REFIN_MATCH : REFIN_DIFFER;
    }
}

/* Node i evaluated on its inputs' references (outs: its outputs). */
static EpStatus eval_on_refs(Cmp *c, int i, Value **outs, int *nouts, EpError *err)
{
    int max = interp_node_num_outputs(c->run.ip, i);
    *outs = ep_xcalloc((size_t)(max ? max : 1), sizeof **outs);
    return interp_eval_node(c->run.ip, i, subst_ref, c, *outs, max, nouts, err);
}

static void free_outs(Value *outs, int n)
{
    for (int k = 0; outs && k < n; k++)
        value_clear(&outs[k]);
    free(outs);
}

/* Confirm a difference of output k of node i: re-evaluate the node on the
** references of its inputs (pre: outputs evaluated before an in-place node
** ran, or NULL) and compare with the output's reference. */
static void confirm_difference(Cmp *c, int i, int k, RefCheck *chk, const Tensor *ref, Value *pre, int npre,
                               EpStatus pre_rc, const char *pre_msg)
{
    if (!inputs_have_refs(c, i)) {
        chk->confirm_note = ep_xstrdup("none of its inputs has a reference to re-evaluate it on");
        return;
    }
    EpError e = {0};
    Value *outs = pre;
    int nouts = npre;
    EpStatus rc = pre_rc;
    if (!pre && rc == EP_OK)
        rc = eval_on_refs(c, i, &outs, &nouts, &e);
    const char *msg = pre ? pre_msg : e.msg;
    if (rc == EP_OK && (k >= nouts || !ref)) {
        rc = EP_ERR_EXEC;
        msg = "no such output";
    }
    Tensor *got = rc == EP_OK ? value_to_array(&outs[k], &e) : NULL;
    if (rc == EP_OK && got && shape_equal(got->ndim, got->sizes, ref->ndim, ref->sizes)) {
        double rtol, atol;
        num_tolerance_of(&c->rep->opt, got->dtype, &rtol, &atol);
        if (numerics_compare_tensors(got, ref, rtol, atol, &chk->confirm_st, &e) == EP_OK)
            chk->confirm = chk->confirm_st.nbad ? 1 : 2;
    }
    if (!chk->confirm) {
        chk->confirm = -1;
        chk->confirm_note = ep_xstrdup(rc ? msg : "its result has another form than the reference");
    }
    tensor_unref(got);
    if (!pre)
        free_outs(outs, nouts);
}

/* Whether any output of node i has a reference file. */
static bool outputs_have_files(Cmp *c, int i)
{
    for (int k = 0; k < interp_node_num_outputs(c->run.ip, i); k++) {
        char *p = ref_path(c->dir, interp_node_output_name(c->run.ip, i, k));
        if (!p && k == 0)
            p = ref_path(c->dir, interp_node(c->run.ip, i)->name);
        free(p);
        if (p)
            return true;
    }
    return false;
}

static void note_missing(CompareReport *rep, const char *name)
{
    rep->nmissing++;
    if (rep->nmissing_listed < SHORT_NAMES) {
        rep->missing = ep_xrealloc(rep->missing, (size_t)(rep->nmissing_listed + 1) * sizeof *rep->missing);
        rep->missing[rep->nmissing_listed++] = ep_xstrdup(name);
    }
}

static EpStatus compare_node(Cmp *c, int i, EpError *err)
{
    Interp *ip = c->run.ip;
    CompareReport *rep = c->rep;
    /* an in-place node changes its inputs: re-evaluate before it runs */
    Value *pre = NULL;
    int npre = 0;
    EpError pre_err = {0};
    EpStatus pre_rc = EP_OK;
    if (interp_node_mutates(ip, i) && inputs_have_refs(c, i) && outputs_have_files(c, i))
        pre_rc = eval_on_refs(c, i, &pre, &npre, &pre_err);
    EpError run_err = {0};
    if (interp_step(ip, &run_err)) {
        rep->failed_node = i;
        rep->failure = ep_xstrdup(run_err.msg);
        free_outs(pre, npre);
        return EP_OK;
    }
    EpStatus rc = EP_OK;
    bool node_differs = false;
    for (int k = 0; k < interp_node_num_outputs(ip, i) && rc == EP_OK; k++) {
        const char *name = interp_node_output_name(ip, i, k);
        rep->nvalues++;
        char *path = ref_path(c->dir, name);
        if (!path && k == 0)
            path = ref_path(c->dir, interp_node(ip, i)->name);
        if (!path) {
            note_missing(rep, name);
            continue;
        }
        Tensor *ref = NULL;
        rc = check_ref(c, i, name, path, interp_value(ip, name), &ref, err);
        free(path);
        RefCheck *chk = &rep->checks[rep->nchecks - 1];
        if (rc == EP_OK && !chk->match && !node_differs) {
            node_differs = true;
            record_inputs(c, i, chk);
            if (!chk->problem)
                confirm_difference(c, i, k, chk, ref, pre, npre, pre_rc, pre_err.msg);
        }
        tensor_unref(ref);
    }
    free_outs(pre, npre);
    return rc;
}

/* The program's placeholders (and user inputs as in<k>.npy) against their
** references: inputs that differ explain every difference after them. */
static EpStatus compare_placeholders(Cmp *c, EpError *err)
{
    Interp *ip = c->run.ip;
    const Graph *g = &interp_program(ip)->graph;
    EpStatus rc = EP_OK;
    for (int k = 0; k < g->ninputs && rc == EP_OK; k++) {
        const char *name = g->inputs[k].ref;
        char *path = ref_path(c->dir, name);
        for (int u = 0; !path && name && u < interp_num_user_inputs(ip); u++)
            if (strcmp(interp_user_input(ip, u)->name, name) == 0) {
                char label[32];
                snprintf(label, sizeof label, "in%d", u);
                path = ref_path(c->dir, label);
            }
        if (path)
            rc = check_ref(c, -1, name, path, interp_value(ip, name), NULL, err);
        free(path);
    }
    return rc;
}

/* User outputs as out<k>.npy, after the run (their final values). */
static EpStatus compare_user_outputs(Cmp *c, EpError *err)
{
    Interp *ip = c->run.ip;
    EpStatus rc = EP_OK;
    for (int u = 0; u < interp_num_user_outputs(ip) && rc == EP_OK; u++) {
        char label[32];
        snprintf(label, sizeof label, "out%d", u);
        char *path = ref_path(c->dir, label);
        const char *name = interp_user_output_name(ip, u);
        if (path)
            rc = check_ref(c, -1, name ? name : "(literal)", path, interp_user_output(ip, u), NULL, err);
        free(path);
    }
    return rc;
}

/* Drop the references of values node i was the last to read. */
static void refs_release(Cmp *c, int i)
{
    Interp *ip = c->run.ip;
    for (int pass = 0; pass < 2; pass++) {
        int n = pass ? interp_node_num_outputs(ip, i) : interp_node_num_inputs(ip, i);
        for (int k = 0; k < n; k++) {
            const char *name = pass ? interp_node_output_name(ip, i, k) : interp_node_input_name(ip, i, k, NULL);
            RefEntry *e = strmap_get(&c->refs, name);
            if (e && num_run_dead_after(&c->run, name, i))
                value_clear(&e->ref);
        }
    }
}

EpStatus numerics_compare_dir(const Model *m, const Value *inputs, int n, const char *dir,
                              const NumericsOptions *opt, CompareReport **out, EpError *err)
{
    *out = NULL;
    if (!opt)
        opt = &NUMERICS_OPTIONS_DEFAULT;
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return ep_fail(err, EP_ERR_USAGE, "%s is not a folder of reference .npy files", dir);
    Cmp c;
    memset(&c, 0, sizeof c);
    strmap_init(&c.refs);
    c.dir = dir;
    EpStatus rc = num_run_open(&c.run, m, inputs, n, &opt->kernels, err);
    CompareReport *rep = ep_xcalloc(1, sizeof *rep);
    rep->opt = *opt;
    rep->dir = ep_xstrdup(dir);
    rep->first = -1;
    rep->failed_node = -1;
    c.rep = rep;
    if (rc == EP_OK)
        rc = compare_placeholders(&c, err);
    for (int i = 0; rc == EP_OK && rep->failed_node < 0 && i < interp_num_nodes(c.run.ip); i++) {
        rc = compare_node(&c, i, err);
        refs_release(&c, i);
        num_run_release(&c.run, i);
    }
    if (rc == EP_OK && rep->failed_node < 0 && interp_finished(c.run.ip))
        rc = compare_user_outputs(&c, err);
    strmap_free(&c.refs, ref_entry_free);
    num_run_close(&c.run);
    rep->model = c.run.m;
    if (rc) {
        numerics_compare_free(rep);
        return rc;
    }
    *out = rep;
    return EP_OK;
}

void numerics_compare_free(CompareReport *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->nchecks; i++) {
        free(r->checks[i].file);
        free(r->checks[i].problem);
        free(r->checks[i].inputs);
        free(r->checks[i].confirm_note);
    }
    free(r->checks);
    for (int i = 0; i < r->nmissing_listed; i++)
        free(r->missing[i]);
    free(r->missing);
    free(r->dir);
    free(r->failure);
    model_free(r->model);
    free(r);
}

/* ---- the comparison report ------------------------------------------------------------------- */

static void sb_inputs_state(StrBuf *sb, const RefCheck *chk)
{
    static const char *const STATE[] = {"matches its reference", "DIFFERS from its reference", "has no reference"};
    bool all_match = chk->ninputs > 0;
    for (int j = 0; j < chk->ninputs; j++)
        all_match = all_match && chk->inputs[j].state == REFIN_MATCH;
    sb_append(sb, chk->ninputs == 0 ? "  it has no inputs" : all_match ? "  its inputs match their references: "
                                                                          : "  inputs: ");
    for (int j = 0; j < chk->ninputs; j++) {
        sb_printf(sb, "%s%s", j ? ", " : "", chk->inputs[j].name);
        if (!all_match)
            sb_printf(sb, " %s", STATE[chk->inputs[j].state]);
    }
    sb_append(sb, "\n");
}

/* "max abs err 0.5 (4.4e+03 x tolerance)" */
static void sb_errors_short(StrBuf *sb, const ErrStats *st)
{
    sb_printf(sb, "max abs err %.3g (", st->max_abs);
    num_sb_ratio(sb, st);
    sb_append(sb, ")");
}

static void sb_confirm(StrBuf *sb, const RefCheck *chk)
{
    bool inputs_ok = true;
    for (int j = 0; j < chk->ninputs; j++)
        inputs_ok = inputs_ok && chk->inputs[j].state == REFIN_MATCH;
    switch (chk->confirm) {
    case 1:
        sb_append(sb, "  re-evaluated on the reference inputs it still differs, ");
        sb_errors_short(sb, &chk->confirm_st);
        sb_append(sb, inputs_ok ? ": the node itself computes something different from the reference\n" : "\n");
        break;
    case 2:
        sb_append(sb, "  re-evaluated on the reference inputs it matches, ");
        sb_errors_short(sb, &chk->confirm_st);
        sb_append(sb, ": the difference comes from its inputs, magnified here\n");
        break;
    case -1:
        sb_printf(sb, "  re-evaluation on the reference inputs failed: %s\n", chk->confirm_note);
        break;
    default:
        if (chk->confirm_note)
            sb_printf(sb, "  not re-evaluated: %s\n", chk->confirm_note);
        break;
    }
}

static void sb_check_block(StrBuf *sb, const CompareReport *r, const RefCheck *chk, NodeDescribeFn fn, void *ctx)
{
    if (chk->node >= 0) {
        char *line = num_describe(fn, ctx, r->model, chk->node);
        sb_printf(sb, "%s\n", line);
        free(line);
    } else {
        sb_printf(sb, "program value %s (%s)\n", chk->name, chk->file);
    }
    sb_printf(sb, "  %s", chk->name);
    if (chk->problem) {
        sb_printf(sb, ": %s\n", chk->problem);
    } else {
        sb_append(sb, " ");
        num_sb_type(sb, chk->dtype, chk->ndim, chk->sizes);
        sb_printf(sb, ": %lld of %lld elements beyond tolerance; ", (long long)chk->st.nbad,
                  (long long)chk->st.numel);
        num_sb_errors(sb, &chk->st);
        num_sb_nonfinite(sb, &chk->st, "epdbg", "the reference");
        sb_append(sb, "\n");
        if (chk->st.worst >= 0) {
            sb_append(sb, "    worst at ");
            num_sb_index(sb, chk->ndim, chk->sizes, chk->st.worst);
            sb_printf(sb, ": epdbg %.9g, reference %.9g\n", chk->st.worst_got, chk->st.worst_ref);
        }
    }
    if (chk->inputs) {
        sb_inputs_state(sb, chk);
        sb_confirm(sb, chk);
    }
}

char *numerics_compare_text(const CompareReport *r, NodeDescribeFn fn, void *ctx)
{
    StrBuf sb;
    sb_init(&sb);
    sb_printf(&sb, "Compared with the references in %s (tolerance: ", r->dir);
    num_sb_tolerance(&sb, &r->opt);
    sb_append(&sb, ").\n");
    int nodes_found = r->nvalues - r->nmissing;
    sb_printf(&sb, "%d reference%s checked (%d of %d computed values", r->nchecks, r->nchecks == 1 ? "" : "s",
              nodes_found, r->nvalues);
    if (r->nmissing) {
        sb_append(&sb, "; without one: ");
        for (int i = 0; i < r->nmissing_listed; i++)
            sb_printf(&sb, "%s%s", i ? ", " : "", r->missing[i]);
        if (r->nmissing > r->nmissing_listed)
            sb_printf(&sb, " and %d more", r->nmissing - r->nmissing_listed);
    }
    sb_printf(&sb, "); %d differ%s.\n", r->ndiffer, r->ndiffer == 1 ? "s" : "");
    if (r->failed_node >= 0) {
        char *line = num_describe(fn, ctx, r->model, r->failed_node);
        sb_printf(&sb, "The run failed at %s: %s\nValues after it were not compared.\n", line, r->failure);
        free(line);
    }
    if (r->nchecks == 0) {
        sb_append(&sb, "No file in the folder is named after a value of the program (NAME.npy, named after a node's "
                       "output, e.g. tests/tools/dump_nodes.py writes them).\n");
        return sb_take(&sb);
    }
    if (r->first < 0) {
        int best = -1;
        for (int i = 0; i < r->nchecks; i++)
            if (best < 0 || r->checks[i].st.ratio > r->checks[best].st.ratio)
                best = i;
        sb_printf(&sb, "All references match.  Largest difference: %s max abs err %.3g (%.2g x tolerance).\n",
                  r->checks[best].name, r->checks[best].st.max_abs, r->checks[best].st.ratio);
        return sb_take(&sb);
    }
    sb_append(&sb, "First difference: ");
    sb_check_block(&sb, r, &r->checks[r->first], fn, ctx);
    int more = 0;
    for (int i = r->first + 1; i < r->nchecks; i++) {
        const RefCheck *chk = &r->checks[i];
        if (chk->match)
            continue;
        if (r->opt.all) {
            sb_append(&sb, "Also differs: ");
            sb_check_block(&sb, r, chk, fn, ctx);
        } else {
            if (more == 0)
                sb_append(&sb, "Also differ: ");
            if (more < SHORT_NAMES)
                sb_printf(&sb, "%s%s", more ? ", " : "", chk->name);
            more++;
        }
    }
    if (more > SHORT_NAMES)
        sb_printf(&sb, " and %d more", more - SHORT_NAMES);
    if (more)
        sb_append(&sb, " (--all describes them).\n");
    return sb_take(&sb);
}
