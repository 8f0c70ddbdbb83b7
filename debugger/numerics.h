/*
** numerics.h -- finding where a model's numbers go wrong.
**
** Two checks, both run on a private copy of the model (the archive is
** opened again, the inputs are copied), so in-place writes and signature
** mutations of the check's run never touch the caller's weights, inputs or
** interpreter position:
**
**   float64 shadow  Every node with floating tensor inputs is evaluated
**                   once more in float64 (interp_eval_node) on the float64
**                   shadows of its inputs, so a float64 copy of the whole
**                   computation runs beside the real one.  Each floating
**                   output is compared with its shadow (the "chain" error:
**                   everything that went wrong so far) and with the node
**                   evaluated in float64 on its own float32 inputs (the
**                   "local" error: what this node's rounding adds).  A node
**                   beyond tolerance is classified: overflow (non-finite in
**                   float32, finite in float64), introduced (its own rounding
**                   is too big), amplified (its inputs were within tolerance:
**                   an ill-conditioned op such as a cancelling subtraction
**                   magnified their tiny errors), precision (an input of a
**                   lower precision, e.g. after a cast to float16, is off by
**                   more than this node's tolerance) or inherited (an input
**                   was already off by more than its own tolerance).
**
**   compare DIR     Every value the program computes is compared, right
**                   after its node runs, with DIR/NAME.npy when that file
**                   exists (e.g. dumped from PyTorch by
**                   tests/tools/dump_nodes.py).  File names: a node output
**                   NAME.npy; for a node's first output also NODE.npy (node
**                   name) when NAME.npy is absent; a placeholder
**                   PLACEHOLDER.npy; user input k also in<k>.npy and user
**                   output k out<k>.npy.  For each differing node the report
**                   says whether its inputs matched their references and
**                   re-evaluates it on the reference inputs to confirm
**                   whether the node itself is the culprit.
**
** Error figures (ErrStats), for one tensor got against its reference ref:
**   tolerance    element i is within tolerance when
**                |got-ref| <= atol + rtol*|ref| (numpy allclose); NaN
**                matches NaN, an infinity matches the same infinity.
**   ratio        max over i of |got-ref| / (atol + rtol*|ref|): how many
**                times the tolerance the worst element is off (> 1: beyond
**                tolerance; infinite when a non-finite value is wrong).
**   max_rel      max over i of |got-ref| / max(|ref_i|, 1e-3 * max|ref|):
**                relative per element, but an element much smaller than
**                the tensor's largest is measured against a thousandth of
**                that scale, so values near zero do not blow it up.  When
**                every reference value is zero it is infinite if any
**                element differs (there is no scale to be relative to).
**   worst        the element with the largest ratio, or, when float32 has
**                a NaN/Inf where the reference is finite, the first such
**                element (the most important finding).
*/
#ifndef EP_NUMERICS_H
#define EP_NUMERICS_H

#include <stdio.h>

#include "interp/interp.h"

/* ---- error figures ------------------------------------------------------------ */

typedef struct ErrStats {
    int64_t numel;          /* elements compared */
    int64_t nbad;           /* beyond tolerance, non-finite mismatches included */
    int64_t nonfinite_new;  /* NaN/Inf in got where ref is finite */
    int64_t nonfinite_lost; /* ref NaN/Inf where got is finite or another non-finite */
    int64_t nonfinite_same; /* NaN in both, or the same infinity */
    int64_t nonfinite_got;  /* NaN/Inf in got (floating comparisons) */
    double max_abs;         /* over elements finite in both */
    double max_rel;         /* see the header comment */
    double ratio;           /* largest error in units of the tolerance */
    int64_t worst;          /* flat index of the worst element, -1 if none */
    double worst_got, worst_ref;
    double rtol, atol;      /* the tolerance used */
} ErrStats;

/* The project's tolerance for a dtype (../shared/corpus/README.md): float32
** rtol 1e-4 atol 1e-5, float64 1e-10/1e-12, float16 1e-3/1e-5, bfloat16
** 8e-3/1e-5; integers and bools exact (0, 0). */
void numerics_tolerance(DType t, double *rtol, double *atol);

/* Compare got with ref (borrowed; same shape, any dtypes: floats compare as
** double, integers and bools exactly through int64 unless either is
** floating) into *st.  EP_ERR_EXEC only when memory runs out or the shapes
** differ. */
EpStatus numerics_compare_tensors(const Tensor *got, const Tensor *ref, double rtol, double atol, ErrStats *st,
                                  EpError *err);

/* ---- options ------------------------------------------------------------------- */

typedef struct NumericsOptions {
    double rtol, atol;    /* < 0: numerics_tolerance of each value's dtype */
    bool all;             /* report every value beyond tolerance, not only the first ones */
    KernelConfig kernels; /* for the private run */
} NumericsOptions;

extern const NumericsOptions NUMERICS_OPTIONS_DEFAULT;

/* A node's one-line description for reports (a new string).  The command
** layer passes cmd_node_line; NULL picks numerics_describe_node. */
typedef char *(*NodeDescribeFn)(void *ctx, int node);

/* "#3 'relu' (aten.relu.default) at mlp.py:21 in forward [fc1]", from the
** node's stack trace and module stack (new string). */
char *numerics_describe_node(const Model *m, int node);

/* ---- the float64 shadow ------------------------------------------------------ */

typedef enum NumVerdict {
    NUM_OK,          /* within tolerance, or not compared */
    NUM_OVERFLOW,    /* NaN/Inf in float32 where float64 is finite, inputs clean */
    NUM_INTRODUCED,  /* its own float32 rounding (local error) exceeds the tolerance */
    NUM_AMPLIFIED,   /* inputs within tolerance, output not: ill-conditioned here */
    NUM_PRECISION,   /* an input of lower precision (float16 after a cast) is within its
                     ** dtype's tolerance but not within this node's */
    NUM_INHERITED,   /* an input was already beyond tolerance */
} NumVerdict;

/* One floating tensor output of a node, compared with float64. */
typedef struct NumOutput {
    const char *name;       /* borrowed from the report's model */
    DType dtype;
    int ndim;
    int64_t sizes[EP_MAX_DIMS];
    ErrStats chain;         /* vs the float64 shadow chain */
    ErrStats local;         /* vs float64 on this node's own (float32) inputs */
} NumOutput;

typedef struct NumNode {
    bool checked;           /* floating outputs were compared with float64 */
    NumVerdict verdict;
    int nout;
    NumOutput *outs;
    int worst;              /* index in outs of the largest chain ratio */
    double input_ratio;     /* largest chain ratio among its floating inputs */
    bool nan_origin;        /* NaN/Inf that float64 has too, from finite inputs */
    int64_t nan_count;      /* such elements */
    int64_t discrete_diff;  /* int/bool outputs: elements that differ in float64 */
    int64_t discrete_numel;
    char *note;             /* float64 could not follow this node: why (owned), or NULL */
} NumNode;

typedef struct ShadowReport {
    Model *model;           /* the private copy the check ran on (owned) */
    int nnodes;
    NumNode *nodes;         /* per node, graph order */
    StrMap producer;        /* value name -> (intptr_t)(node index + 1) */
    int nchecked, nflagged, norigins, nnotes, nnan;
    int failed_node;        /* where the float32 run stopped, or -1 */
    char *failure;          /* its error message (owned), or NULL */
    NumericsOptions opt;
} ShadowReport;

/* Run m's program (reopened privately from m->path) on inputs (n values in
** signature order, borrowed and copied; NULL/0: the archive's example
** inputs; a program without user inputs needs none) with the float64 shadow.  A node that cannot be evaluated in
** float64 only gets a note: its float32 value seeds the shadow from there.
** A failure of the float32 run itself ends the check early (report
** failed_node/failure) but still returns the report with EP_OK; errors are
** opening the model, binding the inputs, memory.  *out is freed with
** numerics_shadow_free. */
EpStatus numerics_shadow(const Model *m, const Value *inputs, int n, const NumericsOptions *opt, ShadowReport **out,
                         EpError *err);
void numerics_shadow_free(ShadowReport *r); /* NULL ok */

/* The report as text (new string): a summary line, then the nodes where the
** error starts (all nodes beyond tolerance with opt.all), each described by
** describe(ctx, node) (NULL: numerics_describe_node), with its figures, its
** inputs' figures, and the NaN/Inf both precisions share. */
char *numerics_shadow_text(const ShadowReport *r, NodeDescribeFn describe, void *ctx);

/* `epdbg run --shadow-fp64`: numerics_shadow + numerics_shadow_text written
** to f.  *nflagged (may be NULL) gets the number of nodes beyond tolerance.
** Errors as numerics_shadow. */
EpStatus numerics_shadow_print(FILE *f, const Model *m, const Value *inputs, int n, const NumericsOptions *opt,
                               int *nflagged, EpError *err);

/* ---- comparing with a folder of references ---------------------------------- */

/* How a differing node's input stood against its reference. */
typedef enum RefInputState {
    REFIN_MATCH,
    REFIN_DIFFER,
    REFIN_NO_REF,
} RefInputState;

typedef struct RefInput {
    const char *name;       /* borrowed from the report's model */
    RefInputState state;
} RefInput;

/* One value compared with its reference file. */
typedef struct RefCheck {
    int node;               /* the node that computed it; -1: a placeholder or user output */
    const char *name;       /* value name (borrowed), or the label "out0" */
    char *file;             /* reference file name within the folder (owned) */
    bool match;
    char *problem;          /* dtype/shape mismatch or unreadable file (owned), or NULL */
    ErrStats st;
    DType dtype;            /* epdbg's value */
    int ndim;
    int64_t sizes[EP_MAX_DIMS];
    /* a differing node output: its inputs and the confirmation */
    int ninputs;
    RefInput *inputs;
    int confirm;            /* 0 not tried, 1 still differs on the reference inputs,
                            ** 2 matches on them, -1 the evaluation failed */
    ErrStats confirm_st;    /* the re-evaluation vs the reference */
    char *confirm_note;     /* why the confirmation failed or was skipped (owned) */
} RefCheck;

typedef struct CompareReport {
    Model *model;           /* the private copy (owned) */
    char *dir;
    int nvalues;            /* values that could have had a reference */
    int nchecks;
    RefCheck *checks;       /* in graph order */
    int ndiffer;
    int first;              /* index in checks of the first difference, or -1 */
    int nmissing;
    char **missing;         /* the first few names without a reference (owned) */
    int nmissing_listed;
    int failed_node;        /* where the run stopped, or -1 */
    char *failure;
    NumericsOptions opt;
} CompareReport;

/* Run m's program (reopened privately) on inputs (as numerics_shadow) and
** compare every value that has a reference in dir.  Fails (EP_ERR_USAGE)
** when dir is not a readable folder; a failing node ends the comparison
** with failed_node set.  Free with numerics_compare_free. */
EpStatus numerics_compare_dir(const Model *m, const Value *inputs, int n, const char *dir,
                              const NumericsOptions *opt, CompareReport **out, EpError *err);
void numerics_compare_free(CompareReport *r); /* NULL ok */

/* The comparison as text (new string): how many references were found,
** checked and missing, the first differing value with its figures, its
** node's inputs and the confirmation (every difference with opt.all). */
char *numerics_compare_text(const CompareReport *r, NodeDescribeFn describe, void *ctx);

#endif
