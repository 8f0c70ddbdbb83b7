/*
** suggest_int.h -- private to suggest*.c: what the solver (suggest.c),
** the verifier (suggest_verify.c) and the printers (suggest_print.c)
** share.
*/
#ifndef EP_SUGGEST_INT_H
#define EP_SUGGEST_INT_H

#include "shape_prop.h"
#include "srcinfo.h"
#include "suggest.h"

/* Literal sizes of a program exported with static shapes that stand for a
** size made dynamic: arange(end=5) where x.shape[0] was 5.  torch.export
** bakes every size into the graph, so a static archive cannot say whether
** the model's source wrote 5 or x.shape[0]; the node's source line can.  A
** literal equal to exactly one candidate's example value is lifted to that
** candidate's symbol unless the line's code shows the number itself
** (`x.view(4, 3, 2)`: hard-coded, a specialization with a source change). */
typedef struct LiftCand {
    const SymExpr *expr; /* what the literal becomes (borrowed) */
    int64_t example;
    int ui, d;           /* the input dimension it stands for */
} LiftCand;

typedef struct LiftRecord {
    int node, pos;     /* the node and the item of its size argument */
    int64_t value;
    int cand;          /* index into cands */
    bool lifted;       /* false: the code shows the number (hard-coded) */
} LiftRecord;

typedef struct LiftCtx {
    const ExportedProgram *ep;
    const LiftCand *cands;
    int ncands;
    LiftRecord *recs;  /* what was decided, in node order (owned) */
    int nrecs, caprecs;
    bool lift_all;     /* also the literals the code shows (Suggestion.lift_all) */
    const Suggestion *s; /* its nolift list: literals kept whatever the rule says (may be NULL) */
} LiftCtx;

/* The ShapeLiftFn over a LiftCtx. */
SymExpr *suggest_lift(void *ctx, int node, const char *arg, int pos, int64_t value);
void lift_ctx_free(LiftCtx *lc);

/* Does code hold v as a number of its own ("view(4, 3" holds 4; "x4",
** "40", "4.5" do not)? */
bool code_shows_number(const char *code, int64_t v);
/* The user frame's code line of node i (borrowed from frames), and its
** "f.py:14" location into loc; NULL when the node has no trace.  Frees
** nothing: the caller frees *frames with source_frames_free(*frames, *n). */
const char *node_user_code(const ExportedProgram *ep, int i, char *loc, size_t cap, SourceFrame **frames, int *n);
/* "node 'view' (aten.view.default) at f.py:10" into buf. */
const char *node_label(const ExportedProgram *ep, int i, char *buf, size_t cap);

/* The expression of dims[k] in its root's symbol: "batch", "2*dx + 10",
** "32*_h" (new). */
SymExpr *suggest_dim_expr(const Suggestion *s, int k);
/* The symbol that stands for user input ui's dim d in the program as the
** suggestion would export it: the Dim's expression, or the example size
** (new). */
SymExpr *suggest_size_expr(const Suggestion *s, int ui, int d);
/* The roots' ranges as the verifier decides over them. */
void suggest_root_ranges(const Suggestion *s, SymRanges *r);
/* The entry of user input ui's dim d, or -1. */
int suggest_entry(const Suggestion *s, int ui, int d);
/* The example size of user input ui's dim d. */
int64_t suggest_hint(const Suggestion *s, int ui, int d);

/* Append a note (text copied; code may be NULL). */
void suggest_note(Suggestion *s, SuggestNoteKind kind, int node, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Is node i's condition left to a source change the notes ask for?  (-2:
** the archive's guards_code.) */
bool suggest_node_excused(const Suggestion *s, int node);

/* Propagate shapes over the suggestion's sizes (symbolic Dims, static
** example sizes), with the lift of a static archive.  sizes: NULL for the
** Dims themselves, else a concrete value per root (indexed like dims) to
** propagate literal sizes at one point. */
EpStatus suggest_propagate(const Interp *ip, const Suggestion *s, const int64_t *point, ShapeProp **out,
                           LiftCtx *lc, EpError *err);

/* Notes (SN_INPUT) on the inputs opt gives: do they fit s, and if not, why
** (suggest_inputs.c). */
void suggest_explain_inputs(const Interp *ip, Suggestion *s, const SuggestOptions *opt);

#endif
