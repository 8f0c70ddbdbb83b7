/*
** suggest_solver.h -- private to the solver's files (suggest.c: the
** steps; suggest_setup.c: vars and the result; suggest_notes.c: the
** notes): the vars, the conditions and the helpers they share.  The order
** of the solving steps is told at the top of suggest.c.
*/
#ifndef EP_SUGGEST_SOLVER_H
#define EP_SUGGEST_SOLVER_H

#include "suggest_int.h"

/* The node of a condition from the archive's guards_code (no graph node). */
#define NODE_GUARDS_CODE (-2)

typedef enum VarKind {
    VK_ASKED,   /* --dynamic, or a failing size of a static dim */
    VK_ARCHIVE, /* a symbol the archive already has (s0) */
    VK_FOLLOW,  /* another size of 2 or more: dynamic only if coupled */
    VK_HIDDEN,  /* a divisibility root made here (_batch) */
} VarKind;

typedef struct Var {
    char name[64];     /* the symbol in the analysis, and the Dim's name */
    char sym[32];      /* the archive's symbol (VK_ARCHIVE), else "" */
    VarKind kind;
    int ui, d;         /* the first input dimension that is this var (-1: none) */
    int64_t hint;
    int64_t lo, hi;
    SymExpr *val;      /* solved: in other vars, or a constant; NULL while free */
    int node;          /* the condition's node that fixed val (-1) */
    char why[256];
    char why_min[512], why_max[512];
    int min_node, max_node;
} Var;

typedef struct Cond {
    SymExpr *e;
    ShapeConstraintKind kind;
    int node;
    char why[160];
    bool done;
} Cond;

typedef struct Solver {
    const Interp *ip;
    const ExportedProgram *ep;
    const SuggestOptions *opt;
    Suggestion *s;
    Var *v;
    int nv, capv;
    Cond *c;
    int nc, capc;
    LiftCand *cands;
    int ncands;
    bool program_dynamic;
    bool try_all;      /* no size named in a static program: every size tried, no literal lifted */
} Solver;

/* ---- suggest.c -------------------------------------------------------------- */

int sv_find_var(const Solver *so, const char *name); /* -1: none */
/* A new var (the table may move: pointers into it go stale). */
Var *sv_add_var(Solver *so, const char *name, VarKind kind, int ui, int d, int64_t hint);
/* Take e (owned) as a condition of node. */
void sv_add_cond(Solver *so, SymExpr *e, ShapeConstraintKind kind, int node, const char *why);
bool sv_sym_mentions_name(const SymExpr *e, const char *name);
/* e with every solved var replaced by its value (new, canonical). */
SymExpr *sv_substitute(const Solver *so, const SymExpr *e);
/* Every var bound to its hint. */
void sv_hint_bindings(const Solver *so, SymBindings *b);
/* cond with var k at x and the others at their hints: 1, 0, -1 (cannot tell). */
int sv_truth_at(const Solver *so, const SymExpr *cond, int k, int64_t x);
void sv_set_val(Var *v, SymExpr *val, int node, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The vars in e (indices into idx, at most max); other symbols counted in *others. */
int sv_vars_of(const Solver *so, const SymExpr *e, int *idx, int max, int *others);
/* Solutions of cond for var k near y with var r at x. */
int sv_count_solutions(const Solver *so, const SymExpr *cond, int k, int r, int64_t x, int64_t y);
bool sv_is_equation(const SymExpr *e);
/* "node 'add' (aten.add.Tensor) at f.py:10", or what a negative node stands for. */
void sv_label_of(const Solver *so, int node, char *buf, size_t cap);
/* Steps 1-2 until nothing changes (many: also equations of several followers). */
bool sv_equalities_pass(Solver *so, bool many);
/* e in the vars' names instead of the archive's symbols (new). */
SymExpr *sv_rename_syms(const Solver *so, const SymExpr *e);

/* ---- suggest_setup.c --------------------------------------------------------- */

void sv_example_sizes(Solver *so, Value *sample, int nsample, SymBindings *syms);
const RangeConstraint *sv_range_of(const ExportedProgram *ep, const char *sym);
/* A name no var and no archive symbol has yet. */
void sv_unique_name(const Solver *so, const char *want, char *out, size_t cap);
/* One var per symbolic input size; shapes gets the inputs' symbolic shapes. */
void sv_make_vars(Solver *so, const SymBindings *syms, SymShape *shapes);
/* The Suggestion's Dims and entries from the solved vars. */
void sv_build_dims(Solver *so);

/* ---- suggest_notes.c --------------------------------------------------------- */

void sv_specialization_notes(Solver *so, const LiftCtx *lc);
/* A lifted literal that pinned a requested size: (node, pos) in retry, else -1. */
void sv_pinned_by_lift(const Solver *so, const LiftCtx *lc, int retry[2]);
void sv_lift_notes(Solver *so, const LiftCtx *lc);
void sv_relation_notes(Solver *so);
void sv_check_notes(Solver *so);
/* e in the source's names (x.shape[0], n for u0) as Python (new). */
char *sv_python_of(const Solver *so, const SymExpr *e);

#endif
