/*
** suggest_inputs.c -- what `epdbg suggest` says about the inputs it was
** given (a failing input, usually): whether they fit the suggested Dims,
** which relation or bound they break and the node behind it, whether a
** size outside the range the archive was exported for is needed by any
** node, and, for a program exported dynamic, what a run on them does --
** a condition on data (`.item()`) explained with the values that pass.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suggest_int.h"

/* The given size of user input ui's dim d (the example's when not given). */
static int64_t given(const Suggestion *s, int ui, int d)
{
    int64_t g = s->given ? s->given[ui * EP_MAX_DIMS + d] : -1;
    return g >= 0 ? g : suggest_hint(s, ui, d);
}

/* The value of root k the inputs give (its first entry), or false. */
static bool root_value(const Suggestion *s, int k, int64_t *out, int *from)
{
    for (int e = 0; e < s->nentries; e++) {
        const SuggestDim *dm = &s->dims[s->entries[e].dimref];
        int r = dm->root < 0 ? s->entries[e].dimref : dm->root;
        if (r != k)
            continue;
        int64_t v = given(s, s->entries[e].input, s->entries[e].dim);
        int64_t a = dm->root < 0 ? 1 : dm->a, c = dm->root < 0 ? 0 : dm->c;
        if ((v - c) % a != 0)
            continue;
        *out = (v - c) / a;
        *from = e;
        return true;
    }
    return false;
}

static const char *input_name(const Interp *ip, int ui)
{
    return user_input_name(interp_user_input(ip, ui));
}

/* The values in [lo, hi] (at most 4096 of them) of unbacked symbol u for
** which cond holds with the run's other symbols: "4, 8, 12, 16". */
static void passing_values(const SymExpr *cond, const SymBindings *run, const char *u, int64_t lo, int64_t hi,
                           char *buf, size_t cap)
{
    SymBindings b;
    sym_bindings_init(&b);
    for (int i = 0; i < run->n; i++)
        sym_bindings_set(&b, run->items[i].name, run->items[i].value);
    size_t o = 0;
    int shown = 0, total = 0;
    buf[0] = '\0';
    if (hi - lo > 4096)
        hi = lo + 4096;
    for (int64_t x = lo; x <= hi; x++) {
        sym_bindings_set(&b, u, x);
        SymValue v;
        const char *unb;
        if (sym_eval(cond, &b, &v, &unb) != SYM_OK || v.kind != SYMV_BOOL || !v.b)
            continue;
        total++;
        if (shown < 12 && o + 24 < cap) {
            o += (size_t)snprintf(buf + o, cap - o, "%s%lld", shown ? ", " : "", (long long)x);
            shown++;
        }
    }
    if (total > shown && o + 8 < cap)
        snprintf(buf + o, cap - o, ", ...");
    if (!total)
        snprintf(buf, cap, "none");
    sym_bindings_free(&b);
}

/* Run the program on the given inputs; a failing in-graph assert on data
** becomes a note with the values that would pass. */
static void run_given(const Interp *ip, Suggestion *s, const SuggestOptions *opt)
{
    EpError err;
    Interp *run = interp_new((Model *)interp_model(ip), &INTERP_OPTIONS_DEFAULT, &err);
    if (!run)
        return;
    if (interp_bind_copy(run, opt->inputs, opt->ninputs, &err) != EP_OK) {
        suggest_note(s, SN_INPUT, -1, NULL, "the program refuses them: %s", err.msg);
    } else if (interp_run(run, &err) != EP_OK) {
        int pc = interp_pc(run);
        const ExportedProgram *ep = s->ep;
        const char *u = NULL;
        SymExpr *cond = NULL;
        /* the assert's condition: its first argument's recorded expression */
        if (pc >= 0 && pc < ep->graph.nnodes && ep->graph.nodes[pc].ninputs > 0) {
            const Arg *a = &ep->graph.nodes[pc].inputs[0].arg;
            const SymScalarMeta *m = a->ref ? strmap_get(&ep->graph.sym_bool_values, a->ref) : NULL;
            if (m && m->is_expr && m->parsed)
                cond = sym_clone(m->parsed);
        }
        const char *names[8];
        int ns = cond ? sym_symbols(cond, names, 8) : 0;
        for (int j = 0; j < ns && j < 8; j++)
            if (names[j][0] == 'u')
                u = names[j];
        char where[200];
        node_label(ep, pc, where, sizeof where);
        if (cond && u) {
            SymRange r = {0, 4096};
            for (int i = 0; i < ep->nranges; i++) {
                const char *sym = ep->ranges[i].parsed ? sym_as_symbol(ep->ranges[i].parsed) : NULL;
                if (sym && strcmp(sym, u) == 0) {
                    r.lo = ep->ranges[i].has_min ? ep->ranges[i].min : 0;
                    r.hi = ep->ranges[i].has_max ? ep->ranges[i].max : 4096;
                }
            }
            char vals[256];
            passing_values(cond, interp_symbols(run), u, r.lo, r.hi, vals, sizeof vals);
            int64_t now = 0;
            sym_bindings_get(interp_symbols(run), u, &now);
            char *t = sym_to_string(cond);
            suggest_note(s, SN_INPUT, pc,
                         NULL, "%s fails on them: %s with %s = %lld read from the data; with these sizes it holds "
                         "for %s = %s (in [%lld, %lld]): no dynamic_shapes changes that, the data must",
                         where, t ? t : "?", u, (long long)now, u, vals, (long long)r.lo, (long long)r.hi);
            free(t);
        } else {
            suggest_note(s, SN_INPUT, pc, NULL, "running the program on them fails: %s", err.msg);
        }
        sym_free(cond);
    }
    interp_free(run);
}

void suggest_explain_inputs(const Interp *ip, Suggestion *s, const SuggestOptions *opt)
{
    if (!opt->inputs)
        return;
    int64_t *at = ep_xcalloc((size_t)(s->ndims ? s->ndims : 1), sizeof *at);
    bool fits = true;
    for (int k = 0; k < s->ndims; k++) {
        const SuggestDim *dm = &s->dims[k];
        int from;
        if (dm->root >= 0 || !root_value(s, k, &at[k], &from))
            continue;
        const SuggestEntry *fe = &s->entries[from];
        /* every entry on this root must agree */
        for (int e = 0; e < s->nentries; e++) {
            const SuggestDim *de = &s->dims[s->entries[e].dimref];
            int r = de->root < 0 ? s->entries[e].dimref : de->root;
            if (r != k)
                continue;
            int64_t want = de->root < 0 ? at[k] : de->a * at[k] + de->c;
            int64_t got = given(s, s->entries[e].input, s->entries[e].dim);
            if (want != got) {
                fits = false;
                suggest_note(s, SN_INPUT, -1, NULL,
                             "%s.shape[%d] is %lld, but with %s.shape[%d] = %lld it must be %lld (see why)",
                             input_name(ip, s->entries[e].input), s->entries[e].dim, (long long)got,
                             input_name(ip, fe->input), fe->dim,
                             (long long)given(s, fe->input, fe->dim), (long long)want);
            }
        }
        if (at[k] < dm->min || at[k] > dm->max) {
            fits = false;
            bool high = at[k] > dm->max;
            const char *why = high ? dm->why_max : dm->why_min;
            char lim[64];
            snprintf(lim, sizeof lim, "%s %lld", high ? "above the max" : "below the min",
                     (long long)(high ? dm->max : dm->min));
            /* beyond the export's range: does any node need that bound? */
            if (dm->sym[0] && strstr(why, "recorded at export")) {
                ShapeProp *sp = NULL;
                EpError err;
                bool needed = true;
                if (suggest_propagate(ip, s, at, &sp, NULL, &err) == EP_OK) {
                    needed = false;
                    for (int i = 0; i < sp->nnodes; i++)
                        needed |= sp->nodes[i].status == SN_FAILED;
                    for (int i = 0; i < sp->ncons; i++)
                        needed |= sym_decide(sp->cons[i].cond, &sp->ranges) == SYM_FALSE;
                }
                shape_prop_free(sp);
                suggest_note(s, SN_INPUT, -1, NULL,
                             "%s.shape[%d] = %lld is %s: %s. %s", input_name(ip, fe->input), fe->dim,
                             (long long)at[k], lim, why,
                             needed ? "A node needs that bound too."
                                    : "No node of the program needs that bound, so it came from the export (a "
                                      "Dim's min/max, or Python control flow that took one path): export again "
                                      "with an example of that size to trace the model for it; no wider Dim is "
                                      "verified from this archive");
            } else {
                suggest_note(s, SN_INPUT, dm->max_node >= 0 && high ? dm->max_node : dm->min_node, NULL,
                             "%s.shape[%d] = %lld is %s: %s", input_name(ip, fe->input), fe->dim, (long long)at[k],
                             lim, why[0] ? why : "the Dim's range");
            }
        }
    }
    free(at);
    if (fits && s->program_dynamic)
        run_given(ip, s, opt);
}
