/*
** prerun.c -- see prerun.h.
*/
#include "prerun.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guards.h"
#include "shape_prop.h"

typedef struct PrerunCheck {
    SymExpr *cond;  /* owned */
    int node;       /* index into the graph's nodes */
    char why[120];  /* the rule's reason */
} PrerunCheck;

struct PrerunChecks {
    PrerunCheck *checks;
    int n;
};

PrerunChecks *prerun_checks_new(const ExportedProgram *ep)
{
    PrerunChecks *pc = ep_xcalloc(1, sizeof *pc);
    ShapeProp *sp = NULL;
    EpError err = {0};
    if (shape_prop_run(ep, NULL, 0, &sp, &err) != EP_OK)
        return pc; /* nothing known: the run decides */
    pc->checks = ep_xcalloc((size_t)(sp->ncons ? sp->ncons : 1), sizeof *pc->checks);
    for (int i = 0; i < sp->ncons; i++) {
        const ShapeConstraint *c = &sp->cons[i];
        /* an EQUAL or SPECIALIZE the input guards state holds once they
        ** pass, so only those they do not state can fire here (a slice's
        ** Min(s0, s1) == s0: x no longer than y, #150851); a node of an
        ** input (-1) is the guards' */
        if (c->node < 0 || !c->cond)
            continue;
        PrerunCheck *k = &pc->checks[pc->n];
        k->cond = sym_clone(c->cond);
        if (!k->cond)
            continue; /* out of memory: one check fewer, never a wrong one */
        pc->n++;
        k->node = c->node;
        snprintf(k->why, sizeof k->why, "%s", c->why);
    }
    shape_prop_free(sp);
    return pc;
}

void prerun_checks_free(PrerunChecks *pc)
{
    if (!pc)
        return;
    for (int i = 0; i < pc->n; i++)
        sym_free(pc->checks[i].cond);
    free(pc->checks);
    free(pc);
}

int prerun_checks_count(const PrerunChecks *pc) { return pc ? pc->n : 0; }

/* The user input dimension whose recorded size is the bare symbol sym, as
** "x.shape[0]"; false when none is (a symbol solved from a derived size). */
static bool input_dim_of(const Interp *ip, const char *sym, char *buf, size_t cap)
{
    for (int i = 0; i < interp_num_user_inputs(ip); i++) {
        const UserInput *u = interp_user_input(ip, i);
        if (u->kind == ARG_SYM_INT && u->name) {
            const SymDim *d = strmap_get(&interp_program(ip)->graph.sym_int_values, u->name);
            const char *s = d && d->parsed ? sym_as_symbol(d->parsed) : NULL;
            if (s && strcmp(s, sym) == 0) {
                snprintf(buf, cap, "%s", user_input_name(u));
                return true;
            }
        }
        if (!u->meta)
            continue;
        for (int d = 0; d < u->meta->ndim; d++) {
            const SymDim *sd = &u->meta->sizes[d];
            const char *s = sd->is_expr && sd->parsed ? sym_as_symbol(sd->parsed) : NULL;
            if (s && strcmp(s, sym) == 0) {
                snprintf(buf, cap, "%s.shape[%d]", user_input_name(u), d);
                return true;
            }
        }
    }
    return false;
}

/* The message of check k failing with the symbols b. */
static EpStatus report(const PrerunCheck *k, const Interp *ip, const Guards *g, const SymBindings *b, EpError *err)
{
    const ExportedProgram *ep = interp_program(ip);
    int ns = sym_symbols(k->cond, NULL, 0);
    const char **names = ep_xmalloc((size_t)(ns ? ns : 1) * sizeof *names);
    sym_symbols(k->cond, names, ns);
    StrBuf sb, ranges, unsolved;
    sb_init(&sb);
    sb_init(&ranges);
    sb_init(&unsolved);
    sb_printf(&sb, "input ");
    for (int s = 0; s < ns; s++) {
        int64_t v = 0;
        sym_bindings_get(b, names[s], &v);
        char dim[256];
        if (input_dim_of(ip, names[s], dim, sizeof dim))
            sb_printf(&sb, "%s%s is %lld", s ? ", " : "", dim, (long long)v);
        else {
            sb_printf(&sb, "%s%s = %lld", s ? ", " : "", names[s], (long long)v);
            guards_explain_symbol(g, names[s], b, &unsolved);
        }
        int r = program_find_range(ep, names[s]);
        if (r >= 0) {
            char rb[128];
            sb_printf(&ranges, "%s%s in %s", ranges.len ? ", " : "", names[s],
                      range_bounds_text(&ep->ranges[r], rb, sizeof rb));
        }
    }
    sb_printf(&sb, ": %s the program's guards", ns == 1 ? "it passes" : "they pass");
    if (ranges.len)
        sb_printf(&sb, " (%s)", ranges.data);
    SymExpr *canon = sym_canon(k->cond);
    char *cond = sym_to_string(canon ? canon : k->cond);
    char *node = interp_describe_node(ip, k->node);
    /* the rules' reasons start with the op, which the node's description
    ** has just named */
    const char *why = k->why, *op = op_short_target(interp_node(ip, k->node)->target);
    size_t oplen = op ? strlen(op) : 0;
    if (oplen && strncmp(why, op, oplen) == 0 && strncmp(why + oplen, ": ", 2) == 0)
        why += oplen + 2;
    sb_printf(&sb, " but %s needs %s (%s)", node, cond ? cond : "?", why);
    if (unsolved.len)
        sb_printf(&sb, "%s", unsolved.data);
    EpStatus rc = ep_fail(err, EP_ERR_INPUT, "%s", sb.data);
    free(node);
    free(cond);
    sym_free(canon);
    free(names);
    sb_free(&sb);
    sb_free(&ranges);
    sb_free(&unsolved);
    return rc;
}

EpStatus prerun_checks_run(const PrerunChecks *pc, const Interp *ip, const Guards *g, const SymBindings *b,
                           EpError *err)
{
    for (int i = 0; pc && i < pc->n; i++) {
        SymValue v;
        const char *unbound = NULL;
        /* unbound: a data-dependent size the run learns; a domain error
        ** (a division by a size of 0) is the node's to report */
        if (sym_eval(pc->checks[i].cond, b, &v, &unbound) != SYM_OK || v.kind != SYMV_BOOL || v.b)
            continue;
        return report(&pc->checks[i], ip, g, b, err);
    }
    return EP_OK;
}
