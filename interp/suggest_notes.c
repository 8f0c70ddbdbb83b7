/*
** suggest_notes.c -- the notes of a suggestion: specializations with the
** source line rewritten, the literals taken for sizes, why each Dim is
** shared or derived, and the torch._check lines for conditions on data in
** the names of the model's source.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suggest_solver.h"

/* Notes on specializations of requested sizes and source changes. */
void sv_specialization_notes(Solver *so, const LiftCtx *lc)
{
    for (int i = 0; i < so->nv; i++) {
        Var *v = &so->v[i];
        int64_t k;
        if (v->kind == VK_FOLLOW || v->kind == VK_HIDDEN || !v->val || !sym_as_int(v->val, &k))
            continue;
        const UserInput *u = v->ui >= 0 ? interp_user_input(so->ip, v->ui) : NULL;
        char who[96];
        snprintf(who, sizeof who, "%s.shape[%d]", u ? user_input_name(u) : v->name, v->d);
        /* a literal the code shows: rewrite it */
        const LiftRecord *hard = NULL;
        for (int r = 0; lc && r < lc->nrecs; r++)
            if (!lc->recs[r].lifted && lc->recs[r].node == v->node && lc->recs[r].value == k)
                hard = &lc->recs[r];
        SourceFrame *fr = NULL;
        int nfr = 0;
        char loc[160] = "", where[200];
        const char *code = v->node >= 0 ? node_user_code(so->ep, v->node, loc, sizeof loc, &fr, &nfr) : NULL;
        sv_label_of(so, v->node, where, sizeof where);
        if (hard && code) {
            /* the call with the number replaced by the size it stands for */
            char fixed[512];
            const char *call = code;
            const char *eq = strstr(code, " = ");
            if (eq && eq < strchr(code, '(') )
                call = eq + 3;
            if (strncmp(call, "return ", 7) == 0)
                call += 7;
            size_t o = 0;
            char num[32];
            int nl = snprintf(num, sizeof num, "%lld", (long long)k);
            bool done = false;
            for (const char *p = call; *p && o + 40 < sizeof fixed; p++) {
                bool start = p == call || !((p[-1] >= '0' && p[-1] <= '9') || (p[-1] >= 'a' && p[-1] <= 'z') ||
                                            (p[-1] >= 'A' && p[-1] <= 'Z') || p[-1] == '_' || p[-1] == '.');
                if (!done && start && strncmp(p, num, (size_t)nl) == 0 && !(p[nl] >= '0' && p[nl] <= '9') &&
                    p[nl] != '.') {
                    o += (size_t)snprintf(fixed + o, sizeof fixed - o, "%s", who);
                    p += nl - 1;
                    done = true;
                } else {
                    fixed[o++] = *p;
                }
            }
            fixed[o] = '\0';
            suggest_note(so->s, SN_SOURCE_CHANGE, v->node, fixed,
                         "%s: %s hard-codes %lld from %s; write %s", where, code, (long long)k, who, fixed);
        } else {
            suggest_note(so->s, SN_STATIC, v->node, NULL, "%s cannot be dynamic: %s pins it to %lld (%s)", who,
                         where, (long long)k, v->why);
        }
        source_frames_free(fr, nfr);
    }
}

/* A requested size pinned to its own example where a literal of that value
** was taken for a size: the latest such literal at or before the pinning
** node, as (node, pos) in retry. */
void sv_pinned_by_lift(const Solver *so, const LiftCtx *lc, int retry[2])
{
    for (int i = 0; i < so->nv; i++) {
        const Var *v = &so->v[i];
        int64_t k;
        if (v->kind != VK_ASKED || !v->val || !sym_as_int(v->val, &k) || k != v->hint || v->node < 0)
            continue;
        int best = -1;
        for (int r = 0; r < lc->nrecs; r++) {
            const LiftRecord *rec = &lc->recs[r];
            if (!rec->lifted || rec->value != k || rec->node > v->node)
                continue;
            if (best < 0 || rec->node > lc->recs[best].node ||
                (rec->node == lc->recs[best].node && rec->pos > lc->recs[best].pos))
                best = r;
        }
        if (best >= 0) {
            retry[0] = lc->recs[best].node;
            retry[1] = lc->recs[best].pos;
            return;
        }
    }
}

/* The notes of lifted literals: what the suggestion assumes of the source,
** one per size (the first node named, the others counted). */
void sv_lift_notes(Solver *so, const LiftCtx *lc)
{
    for (int c = 0; c < so->ncands; c++) {
        int first = -1, more = 0;
        for (int r = 0; r < lc->nrecs; r++) {
            if (!lc->recs[r].lifted || lc->recs[r].cand != c)
                continue;
            if (first < 0)
                first = r;
            else
                more++;
        }
        if (first < 0)
            continue;
        const LiftRecord *rec = &lc->recs[first];
        const LiftCand *cd = &so->cands[c];
        char where[200], others[64] = "";
        node_label(so->ep, rec->node, where, sizeof where);
        if (more)
            snprintf(others, sizeof others, " and in %d more node%s", more, more == 1 ? "" : "s");
        suggest_note(so->s, SN_WHY, rec->node, NULL,
                     "takes the %lld of %s%s to be %s.shape[%d] (the line does not write the number): export "
                     "again from that source and the graph computes it from the input",
                     (long long)rec->value, where, others, user_input_name(interp_user_input(so->ip, cd->ui)), cd->d);
    }
}

/* Why notes for the shared and derived Dims. */
void sv_relation_notes(Solver *so)
{
    for (int i = 0; i < so->nv; i++) {
        Var *v = &so->v[i];
        int64_t k;
        if (!v->val || sym_as_int(v->val, &k) || v->ui < 0 || v->kind == VK_HIDDEN)
            continue;
        const UserInput *u = interp_user_input(so->ip, v->ui);
        SymExpr *full = sv_substitute(so, v->val);
        char *e = sym_to_string(full ? full : v->val);
        suggest_note(so->s, SN_WHY, v->node, NULL, "%s.shape[%d] = %s: %s", user_input_name(u), v->d, e ? e : "?",
                     v->why);
        free(e);
        sym_free(full);
    }
}

/* The Python name of unbacked symbol sym: the variable the producing
** node's line assigns (`n = a.item()` gives n), else sym itself. */
static void unbacked_name(const ExportedProgram *ep, const char *sym, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s", sym);
    const Graph *g = &ep->graph;
    for (int i = 0; i < g->nnodes; i++) {
        const Node *n = &g->nodes[i];
        if (n->noutputs < 1 || n->outputs[0].kind != ARG_SYM_INT || !n->outputs[0].ref)
            continue;
        const SymDim *d = strmap_get(&g->sym_int_values, n->outputs[0].ref);
        const char *bare = d && d->is_expr && d->parsed ? sym_as_symbol(d->parsed) : NULL;
        if (!bare || strcmp(bare, sym) != 0)
            continue;
        SourceFrame *fr;
        int nf;
        char loc[160];
        const char *code = node_user_code(ep, i, loc, sizeof loc, &fr, &nf);
        size_t k = 0;
        while (code && ((code[k] >= 'a' && code[k] <= 'z') || (code[k] >= 'A' && code[k] <= 'Z') || code[k] == '_' ||
                        (k > 0 && code[k] >= '0' && code[k] <= '9')))
            k++;
        if (code && k > 0 && k < cap && strncmp(code + k, " = ", 3) == 0)
            snprintf(buf, cap, "%.*s", (int)k, code);
        source_frames_free(fr, nf);
        return;
    }
}

/* e in the names of the model's source: x.shape[0] for an input's Dim, n
** for u0 (new Python text). */
char *sv_python_of(const Solver *so, const SymExpr *e)
{
    SymExpr *cur = sym_clone(e);
    for (int i = 0; cur && i < so->nv; i++) {
        const Var *v = &so->v[i];
        if (v->ui < 0 || v->kind == VK_HIDDEN)
            continue;
        char nm[96];
        snprintf(nm, sizeof nm, "%s.shape[%d]", user_input_name(interp_user_input(so->ip, v->ui)), v->d);
        SymExpr *sy = sym_symbol(nm), *n2 = sym_subst(cur, v->name, sy);
        sym_free(sy), sym_free(cur);
        cur = n2;
    }
    const char *names[16];
    int ns = cur ? sym_symbols(cur, names, 16) : 0;
    char held[16][64];
    for (int j = 0; j < ns && j < 16; j++)
        snprintf(held[j], sizeof held[j], "%s", names[j]);
    for (int j = 0; cur && j < ns && j < 16; j++) {
        if (sv_find_var(so, held[j]) >= 0 || strchr(held[j], '.'))
            continue;
        char nm[64];
        unbacked_name(so->ep, held[j], nm, sizeof nm);
        SymExpr *sy = sym_symbol(nm), *n2 = sym_subst(cur, held[j], sy);
        sym_free(sy), sym_free(cur);
        cur = n2;
    }
    char *t = cur ? sym_to_python(cur) : NULL;
    sym_free(cur);
    return t;
}

/* Conditions on data-dependent symbols: the torch._check lines, the
** model's own first (its recorded ranges of unbacked symbols). */
void sv_check_notes(Solver *so)
{
    for (int i = 0; i < so->ep->nranges; i++) {
        const RangeConstraint *rc = &so->ep->ranges[i];
        const char *sym = rc->parsed ? sym_as_symbol(rc->parsed) : NULL;
        if (!sym || sym[0] != 'u' || sv_find_var(so, sym) >= 0)
            continue;
        char nm[64], code[160];
        unbacked_name(so->ep, sym, nm, sizeof nm);
        if (rc->has_min && rc->min > 0) {
            snprintf(code, sizeof code, "torch._check(%s >= %lld)", nm, (long long)rc->min);
            suggest_note(so->s, SN_CHECK, -1, code, "%s (%s) is read from data: the lower end of its recorded range",
                         nm, sym);
        }
        if (rc->has_max) {
            snprintf(code, sizeof code, "torch._check(%s <= %lld)", nm, (long long)rc->max);
            suggest_note(so->s, SN_CHECK, -1, code, "%s (%s) is read from data: the upper end of its recorded range",
                         nm, sym);
        }
    }
    for (int i = 0; i < so->nc; i++) {
        Cond *c = &so->c[i];
        SymExpr *e = sv_substitute(so, c->e);
        if (!e)
            continue;
        int idx[16], others;
        sv_vars_of(so, e, idx, 16, &others);
        if (others > 0) {
            char *t = sym_to_string(e), *py = sv_python_of(so, e), where[200];
            sv_label_of(so, c->node, where, sizeof where);
            char code[400];
            snprintf(code, sizeof code, "torch._check(%s)", py ? py : "?");
            suggest_note(so->s, SN_CHECK, c->node, code, "%s needs %s of a value read from data", where,
                         t ? t : "?");
            free(t);
            free(py);
        }
        sym_free(e);
    }
}
