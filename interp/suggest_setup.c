/*
** suggest_setup.c -- setting the solver up and building its result: the
** example size of every input dim, one var per symbolic size (named,
** archive, follower), the Suggestion's Dims and entries from the solved
** vars, and the parsing of --dynamic requests.
*/
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suggest_solver.h"

static void ident_of(const char *name, char *buf, size_t cap)
{
    size_t k = 0;
    for (const char *p = name; *p && k + 1 < cap; p++) {
        char ch = *p;
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
        if (ok)
            buf[k++] = ch;
        else if (k > 0 && buf[k - 1] != '_' && p[1])
            buf[k++] = '_';
    }
    while (k > 0 && buf[k - 1] == '_')
        k--;
    buf[k] = '\0';
    if (k == 0)
        snprintf(buf, cap, "in");
}

static bool is_python_name(const char *s)
{
    if (!s || !s[0] || (s[0] >= '0' && s[0] <= '9'))
        return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
            return false;
    return true;
}

/* ---- setting up ------------------------------------------------------------- */

/* The example size of every user input dim (s->hint), the one the
** archive was traced at: its example inputs, else the recorded sizes (a
** symbol's hint, else the given inputs, else the lower end of its range,
** at least 2); and the given inputs' sizes (s->given). */
void sv_example_sizes(Solver *so, Value *sample, int nsample, SymBindings *syms)
{
    const Interp *ip = so->ip;
    Suggestion *s = so->s;
    for (int ui = 0; ui < s->ninputs; ui++) {
        const UserInput *u = interp_user_input(ip, ui);
        const TensorMeta *m = u->meta;
        const Value *sv = ui < nsample ? &sample[ui] : NULL;
        const Value *gv = so->opt->inputs && ui < so->opt->ninputs ? &so->opt->inputs[ui] : NULL;
        for (int d = 0; m && d < m->ndim; d++) {
            int64_t h = 0;
            bool have = false;
            if (sv && sv->kind == V_TENSOR && sv->t->ndim == m->ndim)
                h = sv->t->sizes[d], have = true;
            else if (!m->sizes[d].is_expr)
                h = m->sizes[d].value, have = true;
            else if (m->sizes[d].has_hint)
                h = m->sizes[d].hint, have = true;
            else if (gv && gv->kind == V_TENSOR && gv->t->ndim == m->ndim)
                h = gv->t->sizes[d], have = true;
            s->hint[ui * EP_MAX_DIMS + d] = have ? h : -1;
            if (s->given)
                s->given[ui * EP_MAX_DIMS + d] =
                    gv && gv->kind == V_TENSOR && gv->t->ndim == m->ndim ? gv->t->sizes[d] : -1;
            if (have && m->sizes[d].is_expr && m->sizes[d].parsed) {
                char why[128];
                sym_match(m->sizes[d].parsed, syms, h, why, sizeof why);
            }
        }
    }
    /* sizes still unknown: symbols at their minimum (at least 2) */
    for (int i = 0; i < so->ep->nranges; i++) {
        const RangeConstraint *rc = &so->ep->ranges[i];
        const char *sym = rc->parsed ? sym_as_symbol(rc->parsed) : NULL;
        int64_t have;
        if (sym && !sym_bindings_get(syms, sym, &have))
            sym_bindings_set(syms, sym, rc->has_min && rc->min > 2 ? rc->min : 2);
    }
    for (int ui = 0; ui < s->ninputs; ui++) {
        const TensorMeta *m = interp_user_input(ip, ui)->meta;
        for (int d = 0; m && d < m->ndim; d++) {
            int64_t *h = &s->hint[ui * EP_MAX_DIMS + d];
            SymValue v;
            const char *unb;
            if (*h < 0 && m->sizes[d].parsed && sym_eval(m->sizes[d].parsed, syms, &v, &unb) == SYM_OK &&
                v.kind == SYMV_INT)
                *h = v.i;
            if (*h < 0)
                *h = 2;
        }
    }
}

const RangeConstraint *sv_range_of(const ExportedProgram *ep, const char *sym)
{
    for (int i = 0; i < ep->nranges; i++) {
        const char *s = ep->ranges[i].parsed ? sym_as_symbol(ep->ranges[i].parsed) : NULL;
        if (s && strcmp(s, sym) == 0)
            return &ep->ranges[i];
    }
    return NULL;
}

static const DynRequest *requested(const SuggestOptions *o, int ui, int d)
{
    for (int i = 0; i < o->ndynamic; i++)
        if (o->dynamic[i].input == ui && o->dynamic[i].dim == d)
            return &o->dynamic[i];
    return NULL;
}

/* A name no var and no archive symbol has yet. */
void sv_unique_name(const Solver *so, const char *want, char *out, size_t cap)
{
    snprintf(out, cap, "%s", want);
    for (int n = 2; sv_find_var(so, out) >= 0 || sv_range_of(so->ep, out); n++)
        snprintf(out, cap, "%s_%d", want, n);
}

/* Build one var per symbolic input size; the input shapes the propagation
** runs with go to shapes (per user input). */
void sv_make_vars(Solver *so, const SymBindings *syms, SymShape *shapes)
{
    const Interp *ip = so->ip;
    Suggestion *s = so->s;
    /* a program exported static, with no size named: try every size */
    bool any_symbolic = false;
    for (int ui = 0; ui < s->ninputs; ui++) {
        const TensorMeta *m = interp_user_input(ip, ui)->meta;
        for (int d = 0; m && d < m->ndim; d++)
            any_symbolic |= m->sizes[d].is_expr;
    }
    bool try_all = so->opt->ndynamic == 0 && !any_symbolic;
    so->try_all = try_all;
    if (try_all)
        suggest_note(s, SN_WHY, -1, NULL,
                     "the program was exported with static shapes and no --dynamic NAME:DIM names a size, so every "
                     "size of 2 or more was tried");
    for (int ui = 0; ui < s->ninputs; ui++) {
        const UserInput *u = interp_user_input(ip, ui);
        const TensorMeta *m = u->meta;
        shapes[ui].ndim = 0;
        if (!m || u->kind != ARG_TENSOR)
            continue;
        char ident[48];
        ident_of(user_input_name(u), ident, sizeof ident);
        for (int d = 0; d < m->ndim; d++) {
            int64_t h = s->hint[ui * EP_MAX_DIMS + d];
            int64_t g = s->given && s->given[ui * EP_MAX_DIMS + d] >= 0 ? s->given[ui * EP_MAX_DIMS + d] : h;
            const DynRequest *rq = requested(so->opt, ui, d);
            const SymDim *sd = &m->sizes[d];
            char auto_name[64], name[64];
            snprintf(auto_name, sizeof auto_name, "dim%d_%s", d, ident);
            SymExpr *dim = NULL;
            if (sd->is_expr && sd->parsed) {
                so->program_dynamic = true;
                const char *bare = sym_as_symbol(sd->parsed);
                const char *syms_in[8];
                int ns = sym_symbols(sd->parsed, syms_in, 8);
                /* the archive's symbols become vars named as Dims */
                for (int j = 0; j < ns && j < 8; j++) {
                    bool known = false;
                    for (int q = 0; q < so->nv; q++)
                        known |= strcmp(so->v[q].sym, syms_in[j]) == 0;
                    if (known)
                        continue;
                    const char *want = bare && rq && rq->dim_name ? rq->dim_name : auto_name;
                    sv_unique_name(so, want, name, sizeof name);
                    int64_t hv = 2;
                    sym_bindings_get(syms, syms_in[j], &hv);
                    Var *v = sv_add_var(so, name, VK_ARCHIVE, bare ? ui : -1, bare ? d : -1, hv);
                    snprintf(v->sym, sizeof v->sym, "%s", syms_in[j]);
                    const RangeConstraint *rc = sv_range_of(so->ep, syms_in[j]);
                    if (rc && rc->has_min)
                        v->lo = rc->min;
                    if (rc && rc->has_max)
                        v->hi = rc->max;
                    if (!rc)
                        suggest_note(s, SN_LEFT_OUT, -1, NULL,
                                     "%s (%s.shape[%d]) has no entry in the archive's range_constraints: taken as "
                                     "[2, inf], torch.export's default",
                                     syms_in[j], user_input_name(u), d);
                    if (rc && (rc->has_min || rc->has_max)) {
                        char rec[160];
                        if (rc->has_max)
                            snprintf(rec, sizeof rec, "the range recorded at export (%s in [%lld, %lld])",
                                     syms_in[j], (long long)v->lo, (long long)v->hi);
                        else
                            snprintf(rec, sizeof rec, "the range recorded at export (%s in [%lld, inf])", syms_in[j],
                                     (long long)v->lo);
                        /* each bound says where it comes from; an open end says nothing */
                        if (rc->has_min)
                            snprintf(v->why_min, sizeof v->why_min, "%s", rec);
                        if (rc->has_max)
                            snprintf(v->why_max, sizeof v->why_max, "%s", rec);
                    }
                }
                /* the shape in the vars' names */
                SymExpr *cur = sv_rename_syms(so, sd->parsed);
                dim = cur ? sym_canon(cur) : NULL;
                sym_free(cur);
            } else if (rq || (!sd->is_expr && sd->value != g)) {
                sv_unique_name(so, rq && rq->dim_name ? rq->dim_name : auto_name, name, sizeof name);
                Var *v = sv_add_var(so, name, VK_ASKED, ui, d, h);
                if (h <= 1) {
                    /* the Dim must take the example itself */
                    v->lo = h;
                    suggest_note(s, SN_WHY, -1, NULL,
                                 "the example has %s.shape[%d] = %lld, which torch.export (2.11 and before) "
                                 "specializes (the 0/1 rule), so its own suggested fix is `%s = %lld`, giving the "
                                 "dynamism up: export with an example of %s.shape[%d] >= 2",
                                 user_input_name(u), d, (long long)h, v->name, (long long)h, user_input_name(u), d);
                }
                if (!rq)
                    suggest_note(s, SN_STATIC, -1, NULL,
                                 "%s.shape[%d] is %lld in the given input but %lld in the program: made it dynamic",
                                 user_input_name(u), d, (long long)g, (long long)sd->value);
                dim = sym_symbol(v->name);
            } else if (h >= 2) {
                sv_unique_name(so, auto_name, name, sizeof name);
                Var *v = sv_add_var(so, name, try_all ? VK_ASKED : VK_FOLLOW, ui, d, h);
                dim = sym_symbol(v->name);
            } else {
                dim = sym_const(h); /* 0 and 1 are specialized by torch.export */
            }
            shapes[ui].dims[d] = dim ? dim : sym_const(h);
            shapes[ui].ndim = d + 1;
        }
    }
}

/* ---- building the Suggestion ------------------------------------------------ */

static int dim_index(const Solver *so, const int *map, int var)
{
    (void)so;
    return map[var];
}

/* *text with every whole-word from replaced by to (a new string). */
static void rename_word(char **text, const char *from, const char *to)
{
    StrBuf sb;
    sb_init(&sb);
    size_t fl = strlen(from);
    const char *p = *text;
    while (*p) {
        const char *q = strstr(p, from);
        bool word = q && (q == *text || !(isalnum((unsigned char)q[-1]) || q[-1] == '_')) &&
                    !(isalnum((unsigned char)q[fl]) || q[fl] == '_');
        if (!q) {
            sb_append(&sb, p);
            break;
        }
        sb_appendn(&sb, p, (size_t)(q - p));
        sb_append(&sb, word ? to : from);
        p = q + fl;
    }
    free(*text);
    *text = sb_take(&sb);
    if (!*text)
        *text = ep_xstrdup("");
}

void sv_build_dims(Solver *so)
{
    Suggestion *s = so->s;
    int *map = ep_xcalloc((size_t)(so->nv ? so->nv : 1), sizeof *map);
    for (int i = 0; i < so->nv; i++)
        map[i] = -1;
    /* a root per var at most, and a derived Dim per input size at most */
    s->dims = ep_xcalloc((size_t)so->nv + (size_t)s->ninputs * EP_MAX_DIMS + 1, sizeof *s->dims);
    /* roots first: free vars that are not followers */
    for (int i = 0; i < so->nv; i++) {
        Var *v = &so->v[i];
        if (v->val || v->kind == VK_FOLLOW)
            continue;
        SuggestDim *dm = &s->dims[s->ndims];
        memset(dm, 0, sizeof *dm);
        snprintf(dm->name, sizeof dm->name, "%s", v->name);
        snprintf(dm->sym, sizeof dm->sym, "%s", v->sym);
        dm->root = -1;
        dm->a = 1;
        dm->min = v->lo;
        dm->max = v->hi;
        dm->hidden = v->kind == VK_HIDDEN;
        dm->named = true;
        dm->example = v->hint;
        snprintf(dm->why_min, sizeof dm->why_min, "%s", v->why_min);
        snprintf(dm->why_max, sizeof dm->why_max, "%s", v->why_max);
        dm->min_node = v->min_node;
        dm->max_node = v->max_node;
        map[i] = s->ndims++;
    }
    /* a hidden root made from another (_h_2 after _h was divided again)
    ** takes the plain name once that one is gone */
    for (int k = 0; k < s->ndims; k++) {
        char *us = strrchr(s->dims[k].name, '_');
        if (!s->dims[k].hidden || !us || us == s->dims[k].name || !us[1] || strspn(us + 1, "0123456789") != strlen(us + 1))
            continue;
        char stem[64];
        snprintf(stem, sizeof stem, "%.*s", (int)(us - s->dims[k].name), s->dims[k].name);
        bool taken = false;
        for (int j = 0; j < s->ndims; j++)
            taken |= strcmp(s->dims[j].name, stem) == 0;
        for (int j = 0; j < so->nv && !taken; j++)
            taken |= strcmp(so->v[j].name, stem) == 0 && !so->v[j].val;
        if (taken)
            continue;
        for (int i = 0; i < s->nnotes; i++) /* the notes said the old name */
            rename_word(&s->notes[i].text, s->dims[k].name, stem);
        snprintf(s->dims[k].name, sizeof s->dims[k].name, "%s", stem);
    }
    /* every input size in terms of the roots */
    for (int ui = 0; ui < s->ninputs; ui++) {
        const TensorMeta *m = interp_user_input(so->ip, ui)->meta;
        for (int d = 0; m && d < m->ndim; d++) {
            int k = -1;
            for (int i = 0; i < so->nv; i++)
                if (so->v[i].ui == ui && so->v[i].d == d && so->v[i].kind != VK_HIDDEN)
                    k = i;
            SymExpr *e = NULL;
            if (k >= 0) {
                SymExpr *sy = sym_symbol(so->v[k].name);
                e = sv_substitute(so, sy);
                sym_free(sy);
            } else if (m->sizes[d].is_expr && m->sizes[d].parsed) {
                /* a derived size of the archive (s0 + 1) in the vars */
                SymExpr *cur = sv_rename_syms(so, m->sizes[d].parsed);
                e = cur ? sv_substitute(so, cur) : NULL;
                sym_free(cur);
            }
            const char *root;
            int64_t a, c;
            if (!e || !sym_affine(e, &root, &a, &c) || !root) {
                sym_free(e);
                continue;
            }
            int rv = sv_find_var(so, root);
            int ri = rv >= 0 ? dim_index(so, map, rv) : -1;
            if (ri < 0 || a < 1) {
                sym_free(e);
                continue;
            }
            int di = ri;
            if (a != 1 || c != 0 || k < 0 || map[k] != ri) {
                /* a derived Dim: reuse one with the same form */
                di = -1;
                for (int j = 0; j < s->ndims; j++)
                    if (s->dims[j].root == ri && s->dims[j].a == a && s->dims[j].c == c)
                        di = j;
                if (di < 0 && !(a == 1 && c == 0)) {
                    di = s->ndims++;
                    SuggestDim *dm = &s->dims[di];
                    memset(dm, 0, sizeof *dm);
                    snprintf(dm->name, sizeof dm->name, "%s", k >= 0 ? so->v[k].name : "derived");
                    dm->root = ri;
                    dm->a = a;
                    dm->c = c;
                    dm->example = s->hint[ui * EP_MAX_DIMS + d];
                    dm->min_node = dm->max_node = -1;
                    /* the user-facing Dim of a hidden root is its multiple */
                    dm->named = s->dims[ri].hidden && k >= 0 && so->v[k].kind != VK_FOLLOW;
                } else if (di < 0) {
                    di = ri;
                }
            }
            s->entries = ep_xrealloc(s->entries, (size_t)(s->nentries + 1) * sizeof *s->entries);
            /* the verifier lifts literals for the sizes the solver lifted them for */
            bool lift = k >= 0 && so->v[k].kind == VK_ASKED && !so->try_all;
            s->entries[s->nentries++] = (SuggestEntry){ui, d, di, lift};
            sym_free(e);
        }
    }
    free(map);
}

EpStatus suggest_parse_dynamic(const Interp *ip, const char *spec, DynRequest *out, EpError *err)
{
    memset(out, 0, sizeof *out);
    const char *colon = strrchr(spec, ':');
    if (!colon || colon == spec)
        return ep_fail(err, EP_ERR_USAGE, "--dynamic %s: expected NAME:DIM or NAME:DIM=DIMNAME (x:0=batch)", spec);
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(colon - spec), spec);
    int ui = interp_find_user_input(ip, name);
    if (ui < 0) {
        StrBuf sb;
        sb_init(&sb);
        for (int i = 0; i < interp_num_user_inputs(ip); i++)
            sb_printf(&sb, "%s%s", i ? ", " : "", user_input_name(interp_user_input(ip, i)));
        ep_fail(err, EP_ERR_USAGE, "--dynamic %s: no input '%s'; the inputs are %s", spec, name,
                sb.len ? sb.data : "(none)");
        sb_free(&sb);
        return EP_ERR_USAGE;
    }
    const UserInput *u = interp_user_input(ip, ui);
    if (u->kind != ARG_TENSOR || !u->meta)
        return ep_fail(err, EP_ERR_USAGE, "--dynamic %s: input '%s' is not a tensor with a recorded shape", spec,
                       name);
    char *end;
    long d = strtol(colon + 1, &end, 10);
    if (end == colon + 1 || (*end && *end != '='))
        return ep_fail(err, EP_ERR_USAGE, "--dynamic %s: '%s' is not a dimension number", spec, colon + 1);
    int nd = u->meta->ndim;
    if (d < -nd || d >= nd)
        return ep_fail(err, EP_ERR_USAGE, "--dynamic %s: %s has %d dimension%s, so dim %ld does not exist", spec,
                       name, nd, nd == 1 ? "" : "s", d);
    out->input = ui;
    out->dim = (int)(d < 0 ? d + nd : d);
    if (*end == '=') {
        if (!is_python_name(end + 1))
            return ep_fail(err, EP_ERR_USAGE, "--dynamic %s: '%s' is not a Python name for the Dim", spec, end + 1);
        out->dim_name = end + 1;
    }
    return EP_OK;
}
