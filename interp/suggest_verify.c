/*
** suggest_verify.c -- suggest_verify: a suggestion is checked against the
** program on its own terms, not the solver's.  The program's shapes are
** propagated again with the suggested Dims as the input sizes, and every
** condition a node imposes must hold over the Dims' ranges: decided
** symbolically where symbolic/decide can, else evaluated at points (the
** bounds, the example, points between) together with a propagation at
** literal sizes there; a program exported dynamic is also run by the
** interpreter on data of those shapes.  Also here: the literal lift and
** the small helpers the solver and printers share (suggest_int.h).
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive.h"
#include "suggest_int.h"

/* ---- nodes and their source ------------------------------------------------- */

const char *node_user_code(const ExportedProgram *ep, int i, char *loc, size_t cap, SourceFrame **frames, int *n)
{
    *frames = NULL;
    *n = 0;
    if (cap)
        loc[0] = '\0';
    if (i < 0 || i >= ep->graph.nnodes || !ep->graph.nodes[i].meta.stack_trace)
        return NULL;
    *n = source_frames_parse(ep->graph.nodes[i].meta.stack_trace, frames);
    int u = source_user_frame(*frames, *n);
    if (u < 0)
        return NULL;
    const char *file = (*frames)[u].file, *slash = strrchr(file, '/');
    snprintf(loc, cap, "%s:%d", slash ? slash + 1 : file, (*frames)[u].line);
    return (*frames)[u].code;
}

const char *node_label(const ExportedProgram *ep, int i, char *buf, size_t cap)
{
    if (i < 0 || i >= ep->graph.nnodes) {
        snprintf(buf, cap, "the program");
        return buf;
    }
    const Node *n = &ep->graph.nodes[i];
    const char *t = n->target ? n->target : "?";
    if (strncmp(t, "torch.ops.", 10) == 0)
        t += 10;
    SourceFrame *fr;
    int nf;
    char loc[160];
    node_user_code(ep, i, loc, sizeof loc, &fr, &nf);
    snprintf(buf, cap, "node '%s' (%s)%s%s", n->name, t, loc[0] ? " at " : "", loc);
    source_frames_free(fr, nf);
    return buf;
}

bool code_shows_number(const char *code, int64_t v)
{
    char num[32];
    int nl = snprintf(num, sizeof num, "%lld", (long long)v);
    for (const char *p = code ? strstr(code, num) : NULL; p; p = strstr(p + 1, num)) {
        char b = p == code ? ' ' : p[-1], a = p[nl];
        bool word_before = (b >= '0' && b <= '9') || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || b == '_' ||
                           b == '.';
        bool word_after = (a >= '0' && a <= '9') || (a >= 'a' && a <= 'z') || (a >= 'A' && a <= 'Z') || a == '_' ||
                          a == '.';
        if (!word_before && !word_after)
            return true;
    }
    return false;
}

/* ---- the lift of literal sizes --------------------------------------------- */

SymExpr *suggest_lift(void *ctx, int node, const char *arg, int pos, int64_t value)
{
    (void)arg;
    LiftCtx *lc = ctx;
    for (int i = 0; lc->s && i < lc->s->nnolift; i++)
        if (lc->s->nolift[2 * i] == node && lc->s->nolift[2 * i + 1] == pos)
            return NULL;
    int found = -1;
    for (int i = 0; i < lc->ncands; i++)
        if (lc->cands[i].example == value && lc->cands[i].expr) {
            found = i;
            break;
        }
    if (found < 0)
        return NULL;
    SourceFrame *fr;
    int nf;
    char loc[160];
    const char *code = node_user_code(lc->ep, node, loc, sizeof loc, &fr, &nf);
    /* no code: a literal is a literal (what the graph says); a line that
    ** reads a shape (`reshape(x.shape)`, `x.size(0)`) computes its sizes
    ** from it, whatever other numbers it shows (`transpose(1, 2)`) */
    bool reads_shape = code && (strstr(code, ".shape") || strstr(code, ".size(") || strstr(code, "size()"));
    bool lifted = lc->lift_all || (code && (reads_shape || !code_shows_number(code, value)));
    source_frames_free(fr, nf);
    bool seen = false;
    for (int r = 0; r < lc->nrecs; r++)
        seen |= lc->recs[r].node == node && lc->recs[r].pos == pos;
    if (!seen) {
        if (lc->nrecs == lc->caprecs) {
            lc->caprecs = lc->caprecs ? 2 * lc->caprecs : 8;
            lc->recs = ep_xrealloc(lc->recs, (size_t)lc->caprecs * sizeof *lc->recs);
        }
        lc->recs[lc->nrecs++] = (LiftRecord){node, pos, value, found, lifted};
    }
    return lifted ? sym_clone(lc->cands[found].expr) : NULL;
}

void lift_ctx_free(LiftCtx *lc)
{
    free(lc->recs);
    lc->recs = NULL;
    lc->nrecs = lc->caprecs = 0;
}

/* ---- the suggestion's sizes ---------------------------------------------------- */

int suggest_entry(const Suggestion *s, int ui, int d)
{
    for (int k = 0; k < s->nentries; k++)
        if (s->entries[k].input == ui && s->entries[k].dim == d)
            return k;
    return -1;
}

int64_t suggest_hint(const Suggestion *s, int ui, int d)
{
    return ui >= 0 && ui < s->ninputs && d >= 0 && d < EP_MAX_DIMS ? s->hint[ui * EP_MAX_DIMS + d] : 0;
}

SymExpr *suggest_dim_expr(const Suggestion *s, int k)
{
    const SuggestDim *dm = &s->dims[k];
    if (dm->root < 0)
        return sym_symbol(dm->name);
    SymExpr *r = sym_symbol(s->dims[dm->root].name), *a = sym_const(dm->a), *c = sym_const(dm->c);
    SymExpr *m = sym_binop(SYM_OP_MUL, a, r), *f = sym_binop(SYM_OP_ADD, m, c);
    SymExpr *out = f ? sym_canon(f) : NULL;
    sym_free(r), sym_free(a), sym_free(c), sym_free(m), sym_free(f);
    return out;
}

SymExpr *suggest_size_expr(const Suggestion *s, int ui, int d)
{
    int k = suggest_entry(s, ui, d);
    return k >= 0 ? suggest_dim_expr(s, s->entries[k].dimref) : sym_const(suggest_hint(s, ui, d));
}

void suggest_root_ranges(const Suggestion *s, SymRanges *r)
{
    for (int k = 0; k < s->ndims; k++)
        if (s->dims[k].root < 0)
            sym_ranges_set(r, s->dims[k].name, s->dims[k].min, s->dims[k].max);
}

EpStatus suggest_propagate(const Interp *ip, const Suggestion *s, const int64_t *point, ShapeProp **out,
                           LiftCtx *lc, EpError *err)
{
    int n = interp_num_user_inputs(ip);
    ShapeInput *ins = ep_xcalloc((size_t)(n ? n : 1), sizeof *ins);
    LiftCand *cands = ep_xcalloc((size_t)(n ? n : 1) * EP_MAX_DIMS, sizeof *cands);
    int nins = 0, ncands = 0;
    SymBindings at;
    sym_bindings_init(&at);
    for (int k = 0; point && k < s->ndims; k++)
        if (s->dims[k].root < 0)
            sym_bindings_set(&at, s->dims[k].name, point[k]);
    for (int ui = 0; ui < n; ui++) {
        const UserInput *u = interp_user_input(ip, ui);
        if (u->kind != ARG_TENSOR || !u->meta)
            continue;
        ShapeInput *si = &ins[nins++];
        si->name = u->name;
        si->shape.ndim = u->meta->ndim;
        for (int d = 0; d < u->meta->ndim; d++) {
            SymExpr *e = suggest_size_expr(s, ui, d);
            if (point && e) {
                SymValue v;
                const char *unb;
                if (sym_eval(e, &at, &v, &unb) == SYM_OK && v.kind == SYMV_INT) {
                    sym_free(e);
                    e = sym_const(v.i);
                }
            }
            si->shape.dims[d] = e ? e : sym_const(suggest_hint(s, ui, d));
            /* a static archive's literal that stands for this size */
            int en = suggest_entry(s, ui, d);
            if (!u->meta->sizes[d].is_expr && en >= 0 && s->entries[en].lift && suggest_hint(s, ui, d) >= 2)
                cands[ncands++] = (LiftCand){si->shape.dims[d], suggest_hint(s, ui, d), ui, d};
        }
    }
    sym_bindings_free(&at);
    SymRanges rr;
    sym_ranges_init(&rr);
    suggest_root_ranges(s, &rr);
    LiftCtx local = {0};
    LiftCtx *use = lc ? lc : &local;
    use->ep = interp_model(ip)->ep;
    use->cands = cands;
    use->ncands = ncands;
    use->lift_all = s->lift_all;
    use->s = s;
    SymBindings hints; /* the roots at their examples: the branches a re-export takes */
    sym_bindings_init(&hints);
    for (int k = 0; k < s->ndims; k++)
        if (s->dims[k].root < 0)
            sym_bindings_set(&hints, s->dims[k].name, s->dims[k].example);
    ShapePropOptions po = {.inputs = ins, .ninputs = nins, .ranges = &rr, .lift = ncands ? suggest_lift : NULL,
                           .lift_ctx = use, .hints = &hints};
    EpStatus st = shape_prop_run_opts(interp_model(ip)->ep, &po, out, err);
    sym_ranges_free(&rr);
    sym_bindings_free(&hints);
    for (int i = 0; i < nins; i++)
        sym_shape_free(&ins[i].shape);
    free(ins);
    free(cands);
    use->cands = NULL;
    use->ncands = 0;
    lift_ctx_free(&local);
    return st;
}

/* ---- the checks ------------------------------------------------------------------ */

static void check(Suggestion *s, bool ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void check(Suggestion *s, bool ok, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    s->checks = ep_xrealloc(s->checks, (size_t)(s->nchecks + 1) * sizeof *s->checks);
    s->checks[s->nchecks++] = (SuggestCheck){ok, ep_xstrdup(buf), -1};
    if (!ok)
        s->verified = false;
}

/* Blame the last check on the root Dim cond names last (by dims order). */
static void blame(Suggestion *s, const SymExpr *cond)
{
    const char *names[16];
    int n = cond ? sym_symbols(cond, names, 16) : 0, best = -1;
    for (int k = 0; k < s->ndims; k++)
        for (int j = 0; j < n && j < 16; j++)
            if (s->dims[k].root < 0 && strcmp(s->dims[k].name, names[j]) == 0)
                best = k;
    if (s->nchecks > 0)
        s->checks[s->nchecks - 1].blame = best;
}

/* "[3, 6]", "[2, inf]". */
static void range_text(int64_t lo, int64_t hi, char *buf, size_t cap)
{
    if (hi == SYM_RANGE_POS_INF)
        snprintf(buf, cap, "[%lld, inf]", (long long)lo);
    else
        snprintf(buf, cap, "[%lld, %lld]", (long long)lo, (long long)hi);
}

/* "batch = 9, dx = 2" for a point. */
static void point_text(const Suggestion *s, const int64_t *p, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int k = 0; k < s->ndims && o + 2 < cap; k++)
        if (s->dims[k].root < 0)
            o += (size_t)snprintf(buf + o, cap - o, "%s%s = %lld", o ? ", " : "", s->dims[k].name,
                                  (long long)p[k]);
}

/* The test points: per root, its bounds, the example, values between. */
#define MAX_POINTS 12
static int points_of(const SuggestDim *dm, int64_t *pts)
{
    int64_t lo = dm->min, hi = dm->max;
    int64_t cand[MAX_POINTS] = {lo, lo + 1, dm->example, dm->example + 1, 2 * dm->example + 1};
    int nc = 5;
    if (hi != SYM_RANGE_POS_INF) {
        cand[nc++] = hi;
        cand[nc++] = hi - 1;
        cand[nc++] = lo + (hi - lo) / 2;
        cand[nc++] = lo + (hi - lo) / 3;
    } else {
        cand[nc++] = lo + 7;
        cand[nc++] = lo + 61;
        cand[nc++] = 997;
    }
    int n = 0;
    for (int i = 0; i < nc; i++) {
        int64_t v = cand[i];
        if (v < lo || v > hi || v > 4096)
            continue;
        bool dup = false;
        for (int j = 0; j < n; j++)
            dup |= pts[j] == v;
        if (!dup)
            pts[n++] = v;
    }
    return n;
}

/* Evaluate the undecided conditions and a literal propagation at one
** point; false (with a check) on the first failure. */
static bool check_point(const Interp *ip, Suggestion *s, const ShapeProp *sp, const bool *undecided,
                        const int64_t *p)
{
    SymBindings b;
    sym_bindings_init(&b);
    for (int k = 0; k < s->ndims; k++)
        if (s->dims[k].root < 0)
            sym_bindings_set(&b, s->dims[k].name, p[k]);
    char pt[256], where[200];
    point_text(s, p, pt, sizeof pt);
    bool ok = true;
    for (int i = 0; i < sp->ncons && ok; i++) {
        if (!undecided[i])
            continue;
        SymValue v;
        const char *unb;
        if (sym_eval(sp->cons[i].cond, &b, &v, &unb) != SYM_OK || v.kind != SYMV_BOOL || v.b)
            continue;
        char *t = sym_to_string(sp->cons[i].cond);
        node_label(s->ep, sp->cons[i].node, where, sizeof where);
        check(s, false, "at %s, %s needs %s, which fails (%s)", pt, where, t ? t : "?", sp->cons[i].why);
        blame(s, sp->cons[i].cond);
        free(t);
        ok = false;
    }
    sym_bindings_free(&b);
    if (!ok)
        return false;
    ShapeProp *lit = NULL;
    EpError err;
    if (suggest_propagate(ip, s, p, &lit, NULL, &err) != EP_OK) {
        check(s, false, "at %s the shapes do not propagate: %s", pt, err.msg);
        return false;
    }
    for (int i = 0; i < lit->nnodes && ok; i++)
        if (lit->nodes[i].status == SN_FAILED && !suggest_node_excused(s, i)) {
            node_label(s->ep, i, where, sizeof where);
            check(s, false, "at %s, %s cannot run: %s", pt, where, lit->nodes[i].note);
            ok = false;
        }
    for (int i = 0; i < lit->ncons && ok; i++) {
        if (suggest_node_excused(s, lit->cons[i].node))
            continue;
        SymTruth t = sym_decide(lit->cons[i].cond, &lit->ranges);
        if (t == SYM_FALSE) {
            char *txt = sym_to_string(lit->cons[i].cond);
            node_label(s->ep, lit->cons[i].node, where, sizeof where);
            check(s, false, "at %s, %s needs %s, which fails", pt, where, txt ? txt : "?");
            free(txt);
            ok = false;
        }
    }
    shape_prop_free(lit);
    return ok;
}

/* A tensor of user input ui's dtype at the point's sizes: random floats,
** other types the example's values repeated (indices stay in range). */
static Tensor *point_tensor(const Suggestion *s, const UserInput *u, int ui, const SymBindings *b,
                            const Value *example, uint64_t *rng, int64_t *bytes, EpError *err)
{
    int64_t sizes[EP_MAX_DIMS];
    int nd = u->meta->ndim;
    for (int d = 0; d < nd; d++) {
        SymExpr *e = suggest_size_expr(s, ui, d);
        SymValue v;
        const char *unb;
        sizes[d] = e && sym_eval(e, b, &v, &unb) == SYM_OK && v.kind == SYMV_INT ? v.i : suggest_hint(s, ui, d);
        sym_free(e);
    }
    Tensor *t = tensor_zeros(u->meta->dtype, nd, sizes, err);
    if (!t)
        return NULL;
    *bytes += (int64_t)tensor_nbytes(t);
    int64_t n = tensor_numel(t);
    size_t es = dtype_size(t->dtype);
    const Tensor *ex = example && example->kind == V_TENSOR && example->t->dtype == t->dtype ? example->t : NULL;
    int64_t en = ex ? tensor_numel(ex) : 0;
    unsigned char *dst = tensor_data(t);
    for (int64_t i = 0; i < n; i++) {
        if (t->dtype == DT_F32) {
            *rng ^= *rng << 13, *rng ^= *rng >> 7, *rng ^= *rng << 17;
            ((float *)dst)[i] = (float)((double)(*rng >> 11) / 9007199254740992.0 * 2.0 - 1.0);
        } else if (en > 0 && tensor_is_contiguous(ex)) {
            memcpy(dst + (size_t)i * es, (const unsigned char *)tensor_data(ex) + (size_t)(i % en) * es, es);
        }
    }
    return t;
}

/* Run the program at point p on fresh data; false (with a check) when a
** node fails.  Points the archive's own guards refuse are skipped. */
static bool run_point(const Interp *ip, Suggestion *s, const SuggestOptions *opt, const int64_t *p,
                      const Value *examples, int nex, int *ran)
{
    SymBindings b;
    sym_bindings_init(&b);
    for (int k = 0; k < s->ndims; k++)
        if (s->dims[k].root < 0)
            sym_bindings_set(&b, s->dims[k].name, p[k]);
    int n = interp_num_user_inputs(ip);
    Value *vals = ep_xcalloc((size_t)(n ? n : 1), sizeof *vals);
    uint64_t rng = opt && opt->seed ? opt->seed : 0x9e3779b97f4a7c15ull;
    int64_t bytes = 0, budget = opt && opt->run_budget > 0 ? opt->run_budget : (int64_t)64 << 20;
    EpError err;
    bool ok = true, skip = false;
    for (int ui = 0; ui < n && !skip; ui++) {
        const UserInput *u = interp_user_input(ip, ui);
        if (u->kind == ARG_TENSOR && u->meta) {
            Tensor *t = point_tensor(s, u, ui, &b, ui < nex ? &examples[ui] : NULL, &rng, &bytes, &err);
            if (!t || bytes > budget)
                skip = true;
            vals[ui] = t ? value_tensor(t) : (Value){0};
        } else if (ui < nex) {
            vals[ui] = value_copy(&examples[ui]);
        }
    }
    sym_bindings_free(&b);
    char pt[256];
    point_text(s, p, pt, sizeof pt);
    Interp *run = skip ? NULL : interp_new((Model *)interp_model(ip), &INTERP_OPTIONS_DEFAULT, &err);
    if (run && interp_bind(run, vals, n, &err) == EP_OK) {
        if (interp_run(run, &err) != EP_OK) {
            /* a condition on data (the notes' torch._check) failing for the
            ** example data says nothing against the Dims */
            bool on_data = false;
            for (int i = 0; i < s->nnotes; i++)
                on_data |= s->notes[i].kind == SN_CHECK && s->notes[i].node == interp_pc(run);
            if (suggest_node_excused(s, interp_pc(run))) {
                check(s, true, "at %s the program stops at the node the source change below addresses", pt);
            } else if (on_data) {
                check(s, true, "at %s the program's check on data fails for the example's data (a torch._check "
                      "below): not a shape problem", pt);
            } else {
                check(s, false, "running the program at %s fails: %s", pt, err.msg);
                ok = false;
            }
        } else {
            (*ran)++;
        }
    }
    interp_free(run);
    for (int i = 0; i < n; i++)
        value_clear(&vals[i]);
    free(vals);
    return ok;
}

/* Does the program write into a buffer or parameter?  Then a verification
** run would change the session's model, so none is made. */
static bool mutates_state(const ExportedProgram *ep)
{
    for (int i = 0; i < ep->noutput_specs; i++)
        if (ep->output_specs[i].kind == OUT_BUFFER_MUTATION || ep->output_specs[i].kind == OUT_PARAMETER_MUTATION)
            return true;
    return false;
}

/* The archive's guards_code over the Dims (its symbols are the archive's:
** s0 is the root Dim recorded as s0): each must hold over their ranges,
** decided or, where undecidable, at the bounds and the example. */
static void check_guards_code(Suggestion *s, const SymRanges *rr)
{
    /* a guard the notes' source change removes (-2: guards_code's node) */
    if (suggest_node_excused(s, -2))
        return;
    for (int i = 0; i < ep_num_guards_code(s->ep); i++) {
        const GuardCode *gc = ep_guard_code(s->ep, i);
        SymExpr *cur = gc->cond ? sym_clone(gc->cond) : NULL;
        for (int k = 0; cur && k < s->ndims; k++) {
            if (s->dims[k].root >= 0 || !s->dims[k].sym[0])
                continue;
            SymExpr *nm = sym_symbol(s->dims[k].name), *n2 = sym_subst(cur, s->dims[k].sym, nm);
            sym_free(nm), sym_free(cur);
            cur = n2;
        }
        if (!cur)
            continue;
        SymTruth t = sym_decide(cur, rr);
        int bad = -1;
        int64_t at = 0;
        for (int k = 0; t == SYM_UNKNOWN && bad < 0 && k < s->ndims; k++) {
            const SuggestDim *dm = &s->dims[k];
            if (dm->root >= 0)
                continue;
            int64_t pts[3] = {dm->min, dm->example, dm->max == SYM_RANGE_POS_INF ? dm->min + 61 : dm->max};
            for (int j = 0; j < 3 && bad < 0; j++) {
                SymBindings b;
                sym_bindings_init(&b);
                for (int q = 0; q < s->ndims; q++)
                    if (s->dims[q].root < 0)
                        sym_bindings_set(&b, s->dims[q].name, q == k ? pts[j] : s->dims[q].example);
                SymValue v;
                const char *unb;
                if (sym_eval(cur, &b, &v, &unb) == SYM_OK && v.kind == SYMV_BOOL && !v.b)
                    bad = k, at = pts[j];
                sym_bindings_free(&b);
            }
        }
        if (t == SYM_FALSE || bad >= 0) {
            if (bad >= 0)
                check(s, false, "at %s = %lld the export's guard %s fails (guards_code[%d])", s->dims[bad].name,
                      (long long)at, gc->shown ? gc->shown : gc->text, i);
            else
                check(s, false, "the export's guard %s fails for every value of the Dims (guards_code[%d])",
                      gc->shown ? gc->shown : gc->text, i);
            if (bad >= 0)
                s->checks[s->nchecks - 1].blame = bad;
        }
        sym_free(cur);
    }
}

bool suggest_verify(const Interp *ip, Suggestion *s, const SuggestOptions *opt)
{
    for (int i = 0; i < s->nchecks; i++)
        free(s->checks[i].text);
    free(s->checks);
    s->checks = NULL;
    s->nchecks = 0;
    s->verified = true;
    for (int k = 0; k < s->ndims; k++) {
        const SuggestDim *dm = &s->dims[k];
        if (dm->root < 0 && dm->min > dm->max) {
            check(s, false, "%s: min %lld is above max %lld", dm->name, (long long)dm->min, (long long)dm->max);
            s->checks[s->nchecks - 1].blame = k;
        }
        if (dm->root >= 0 && (dm->a < 1 || dm->root >= s->ndims || s->dims[dm->root].root >= 0))
            check(s, false, "%s: a derived Dim must be a positive multiple of a root Dim plus a constant", dm->name);
    }
    if (!s->verified)
        return false;
    ShapeProp *sp = NULL;
    EpError err;
    if (suggest_propagate(ip, s, NULL, &sp, NULL, &err) != EP_OK) {
        check(s, false, "the shapes do not propagate: %s", err.msg);
        return false;
    }
    char where[200];
    for (int i = 0; i < sp->nnodes; i++)
        if (sp->nodes[i].status == SN_FAILED && !suggest_node_excused(s, i)) {
            node_label(s->ep, i, where, sizeof where);
            check(s, false, "%s cannot run for these Dims: %s", where, sp->nodes[i].note);
        }
    SymRanges rr;
    sym_ranges_init(&rr);
    suggest_root_ranges(s, &rr);
    bool *undecided = ep_xcalloc((size_t)(sp->ncons ? sp->ncons : 1), sizeof *undecided);
    int ndecided = 0, nundecided = 0, nexcused = 0;
    for (int i = 0; i < sp->ncons; i++) {
        if (suggest_node_excused(s, sp->cons[i].node)) {
            nexcused++;
            continue;
        }
        SymTruth t = sym_decide(sp->cons[i].cond, &rr);
        if (t == SYM_TRUE) {
            ndecided++;
        } else if (t == SYM_FALSE) {
            char *txt = sym_to_string(sp->cons[i].cond);
            node_label(s->ep, sp->cons[i].node, where, sizeof where);
            check(s, false, "%s needs %s, which fails for every value of the Dims (%s)", where, txt ? txt : "?",
                  sp->cons[i].why);
            blame(s, sp->cons[i].cond);
            free(txt);
        } else {
            /* a condition on data (u0) is the run's to check */
            const char *names[8];
            int ns = sym_symbols(sp->cons[i].cond, names, 8);
            bool on_dims = true;
            for (int j = 0; j < ns && j < 8; j++) {
                SymRange r;
                on_dims &= sym_ranges_get(&rr, names[j], &r);
            }
            if (on_dims) {
                undecided[i] = true;
                nundecided++;
            }
        }
    }
    check_guards_code(s, &rr);
    sym_ranges_free(&rr);
    /* the recorded ranges of a dynamic archive: a Dim beyond them is not
    ** what the archive was traced for (Python control flow may have set
    ** them), so it is not verified */
    for (int k = 0; k < s->ndims; k++) {
        const SuggestDim *dm = &s->dims[k];
        if (dm->root >= 0 || !dm->sym[0])
            continue;
        for (int i = 0; i < s->ep->nranges; i++) {
            const RangeConstraint *rc = &s->ep->ranges[i];
            const char *sym = rc->parsed ? sym_as_symbol(rc->parsed) : NULL;
            if (!sym || strcmp(sym, dm->sym) != 0)
                continue;
            if ((rc->has_min && dm->min < rc->min) || (rc->has_max && dm->max > rc->max)) {
                char have[64], rec[64];
                range_text(dm->min, dm->max, have, sizeof have);
                range_text(rc->has_min ? rc->min : 0, rc->has_max ? rc->max : SYM_RANGE_POS_INF, rec, sizeof rec);
                check(s, false,
                      "%s in %s leaves the range the archive was exported for (%s in %s): a size outside it may "
                      "take another path of the model's Python",
                      dm->name, have, sym, rec);
                s->checks[s->nchecks - 1].blame = k;
            }
        }
    }
    if (ndecided)
        check(s, true, "decided over the Dims' ranges: %d condition%s hold%s", ndecided, ndecided == 1 ? "" : "s",
              ndecided == 1 ? "s" : "");
    if (nexcused)
        check(s, true, "%d condition%s left to the source changes below", nexcused, nexcused == 1 ? "" : "s");
    /* points: every root at its k-th point together, and each alone */
    int64_t pts[EP_MAX_DIMS * 8][MAX_POINTS];
    int npts[EP_MAX_DIMS * 8] = {0};
    int nroots = 0, maxp = 0;
    for (int k = 0; k < s->ndims && k < EP_MAX_DIMS * 8; k++)
        if (s->dims[k].root < 0) {
            npts[k] = points_of(&s->dims[k], pts[k]);
            maxp = npts[k] > maxp ? npts[k] : maxp;
            nroots++;
        }
    int tested = 0;
    int64_t *p = ep_xcalloc((size_t)(s->ndims ? s->ndims : 1), sizeof *p);
    for (int j = 0; j < maxp && s->verified && nroots; j++) {
        for (int k = 0; k < s->ndims; k++)
            p[k] = s->dims[k].root < 0 ? (npts[k] ? pts[k][j % npts[k]] : s->dims[k].min) : 0;
        if (!check_point(ip, s, sp, undecided, p))
            break;
        tested++;
    }
    if (s->verified && nroots && tested)
        check(s, true, "evaluated at %d point%s (bounds, example, between): every node's shape rule holds", tested,
              tested == 1 ? "" : "s");
    /* runs of a dynamic program */
    if (s->verified && nroots && opt && opt->run_checks && s->program_dynamic && !mutates_state(s->ep)) {
        Value *ex = NULL;
        int nex = 0;
        if (interp_sample_inputs(ip, &ex, &nex, &err) != EP_OK)
            ex = NULL, nex = 0;
        int ran = 0;
        int sel[3] = {0, 2, maxp - 1};
        for (int q = 0; q < 3 && s->verified; q++) {
            for (int k = 0; k < s->ndims; k++)
                p[k] = s->dims[k].root < 0 ? (npts[k] ? pts[k][sel[q] % npts[k]] : s->dims[k].min) : 0;
            run_point(ip, s, opt, p, ex, nex, &ran);
        }
        if (s->verified)
            check(s, true, "ran the program on random data at %d point%s", ran, ran == 1 ? "" : "s");
        for (int i = 0; i < nex; i++)
            value_clear(&ex[i]);
        free(ex);
    }
    if (!nroots && s->verified)
        check(s, true, "no Dim to check: every size stays as exported");
    free(p);
    free(undecided);
    shape_prop_free(sp);
    return s->verified;
}
