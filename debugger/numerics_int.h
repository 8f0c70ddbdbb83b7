/*
** numerics_int.h -- internals shared by numerics.c, numerics_shadow.c and
** numerics_compare.c.  Not part of the API: front ends use numerics.h.
**
** Both checks run the program node by node on a private Interp and look at
** each node's outputs right after it runs, before a later in-place op can
** change them; values are dropped after their last reader, so memory stays
** close to a plain run's.
*/
#ifndef EP_NUMERICS_INT_H
#define EP_NUMERICS_INT_H

#include "numerics.h"
#include "interp/strmap.h"

/* How many nodes a short report describes in full, and names it lists. */
#define SHORT_REPORT 5
#define SHORT_NAMES 8

/* ---- figures and words ---- */

/* The tolerance for dtype t: the options' rtol/atol where set, else
** numerics_tolerance. */
void num_tolerance_of(const NumericsOptions *opt, DType t, double *rtol, double *atol);
/* t converted to dtype, contiguous (a new reference; t itself when it
** already is). */
Tensor *num_contiguous_as(const Tensor *t, DType dtype, EpError *err);
/* Equal element for element (no error at all). */
bool num_stats_exact(const ErrStats *st);
/* describe(ctx, node), or numerics_describe_node when describe is NULL. */
char *num_describe(NodeDescribeFn describe, void *ctx, const Model *m, int node);
/* "[1, 3]": flat index i of a tensor of that shape. */
void num_sb_index(StrBuf *sb, int ndim, const int64_t *sizes, int64_t i);
/* "float32[2, 3]" */
void num_sb_type(StrBuf *sb, DType t, int ndim, const int64_t *sizes);
/* The tolerance in words. */
void num_sb_tolerance(StrBuf *sb, const NumericsOptions *opt);
/* "5e+03 x tolerance", "non-finite mismatch" or "beyond a zero tolerance". */
void num_sb_ratio(StrBuf *sb, const ErrStats *st);
/* "max abs err 0.5, max rel err 0.25 (5e+03 x tolerance)" */
void num_sb_errors(StrBuf *sb, const ErrStats *st);
/* "; 2 NaN/Inf in MINE where THEIRS is finite" and the reverse, when any. */
void num_sb_nonfinite(StrBuf *sb, const ErrStats *st, const char *mine, const char *theirs);

/* ---- the private run ---- */

/* Both checks run the program on their own copy of the model and inputs so
** that in-place writes cannot reach the caller's tensors, and drop each
** value after its last reader (the interpreter keeps every value, so an
** output no node reads is still there to be compared). */
typedef struct NumRun {
    Model *m;
    Interp *ip;
    StrMap last_use;   /* value name -> (intptr_t)(index of its last reader + 2); absent: unread */
} NumRun;

/* Reopen src's archive and bind copies of inputs (n values; NULL/0: the
** archive's example inputs).  Close with num_run_close, also on failure. */
EpStatus num_run_open(NumRun *r, const Model *src, const Value *inputs, int n, const KernelConfig *kc,
                      EpError *err);
void num_run_close(NumRun *r);
/* Whether value name is dead once node i has run (read last by i, or never). */
bool num_run_dead_after(const NumRun *r, const char *name, int i);
/* Drop the run's values that node i was the last to need. */
void num_run_release(NumRun *r, int i);

/* ---- nodes and values ---- */

bool num_is_float_tensor(const Value *v);
/* Dtype conversions (_to_copy, to, type_as). */
bool num_is_conversion(const Node *n);
/* Whether input k of node i is an argument the op writes into. */
bool num_input_mutated(const Interp *ip, int i, int k);

#endif
