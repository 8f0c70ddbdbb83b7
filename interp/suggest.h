/*
** suggest.h -- `epdbg suggest`: the dynamic_shapes a program can be
** exported with, solved from its shape rules and verified before it is
** shown (issue 11).
**
** The analysis replaces input dimensions by symbols -- those the user asks
** for (--dynamic x:0=batch), those the archive already made dynamic, and,
** as followers, every other size of 2 or more -- and runs every node's
** shape rule (shape_prop.h).  The conditions the rules emit are solved:
** equalities make shared Dims, affine ones derived Dims (`batch + 1`,
** `2 * batch + 10`), `Mod(s, k) == 0` a hidden root (`4 * _batch`), a
** literal that pins a requested size a specialization with the node that
** hard-codes it, bounds the Dims' min and max, and what no Dim can state
** (`Ne(Mod(h, 32), 0)`, a condition on data) becomes a source change or a
** torch._check line.  Followers not coupled to a requested size stay at
** their example value.
**
** Nothing is shown unverified: suggest_verify substitutes the Dims into
** every condition and decides it over the Dims' ranges (symbolic/decide);
** where that is undecidable it evaluates the conditions and runs the shape
** rules again at the bounds, the example and failing values and points
** between, and for a program exported dynamic runs the interpreter on data
** of those shapes.  A Dim whose check fails is narrowed or dropped, with
** the reason in a note.
**
** Everything here is plain owned data, so tests can build a wrong
** suggestion by hand and see suggest_verify reject it.
*/
#ifndef EP_SUGGEST_H
#define EP_SUGGEST_H

#include "interp.h"
#include "ep.h"

/* One --dynamic NAME:DIM[=DIMNAME] request, resolved to a user input. */
typedef struct DynRequest {
    int input;           /* user input index */
    int dim;             /* dimension, >= 0 */
    const char *dim_name; /* the Dim's name, or NULL to make one (borrowed) */
} DynRequest;

/* Parse "x:0", "x:1=seq", "*args[0]:2" against ip's user inputs (by the
** forward's argument name or the placeholder; the dimension may be
** negative, counted from the end).  EP_ERR_USAGE naming what does not exist
** ("no input 'z': the inputs are x, y"; "x has 2 dimensions: x:2 does not
** exist"; "x:0=2b is not a Python name"). dim_name points into spec. */
EpStatus suggest_parse_dynamic(const Interp *ip, const char *spec, DynRequest *out, EpError *err);

typedef struct SuggestOptions {
    const DynRequest *dynamic; /* the sizes the user wants dynamic (may be none) */
    int ndynamic;
    /* The inputs to explain or make acceptable (bound with interp_bind or
    ** not: a failing input is the point), n of them in signature order; NULL
    ** to use the archive's example inputs, or its recorded shapes when it has
    ** none.  Borrowed. */
    const Value *inputs;
    int ninputs;
    /* Run the interpreter at the test points of a program exported with
    ** dynamic shapes (false: rules and decisions only). */
    bool run_checks;
    uint64_t seed;        /* random data of those runs */
    int64_t run_budget;   /* bytes of inputs per run; larger points are skipped (0: 64 MiB) */
} SuggestOptions;

/* One Dim object of the suggestion.  A root is `name = Dim("name", min=,
** max=)`; a derived one is `a * root + c` and is never printed as an
** assignment unless it is a hidden root's multiple (`batch = 4 * _batch`). */
typedef struct SuggestDim {
    char name[64];
    int root;              /* -1: a root; else the index of its root in dims */
    int64_t a, c;          /* derived: a * root + c (a >= 1) */
    int64_t min, max;      /* roots: the range (max INT64_MAX: unbounded) */
    bool hidden;           /* a root only other Dims use (`_batch` of 4 * _batch) */
    bool named;            /* printed as its own assignment (roots, hidden multiples) */
    char sym[32];          /* the program's symbol for it ("s0"), or "" */
    int64_t example;       /* the example size (hint) */
    char why_min[512];     /* what sets min/max beyond the defaults ("" none) */
    char why_max[512];
    int min_node, max_node; /* the nodes behind them (-1: the export's range or the default) */
} SuggestDim;

/* One input dimension's entry in dynamic_shapes. */
typedef struct SuggestEntry {
    int input, dim;
    int dimref;            /* index into dims */
    bool lift;             /* a static archive's literals equal to the example stand for this size */
} SuggestEntry;

typedef enum SuggestNoteKind {
    SN_WHY,           /* why a Dim is shared, derived or bounded (node, line) */
    SN_SOURCE_CHANGE, /* what must change in the model's source, and how */
    SN_CHECK,         /* a torch._check(...) line an unbacked symbol needs */
    SN_STATIC,        /* a size that stays static, and why */
    SN_LEFT_OUT,      /* what the analysis could not cover (a node without a rule, ...) */
    SN_INPUT,         /* the given input itself is wrong for the program */
} SuggestNoteKind;

typedef struct SuggestNote {
    SuggestNoteKind kind;
    int node;          /* -1: none */
    char *text;        /* owned */
    char *code;        /* SN_CHECK: "torch._check(n >= 1)"; SN_SOURCE_CHANGE: the rewritten call, or NULL */
} SuggestNote;

/* The verifier's account, one line per fact ("decided over the range: 4
** conditions", "ran the program at x.shape[0] = 2, 8, 64"). */
typedef struct SuggestCheck {
    bool ok;
    char *text;        /* owned */
    int blame;         /* a failed check: the root Dim (index into dims) the failing condition names last, or -1 */
} SuggestCheck;

typedef struct Suggestion {
    const ExportedProgram *ep; /* borrowed */
    SuggestDim *dims;
    int ndims;
    SuggestEntry *entries;     /* in input, then dim order */
    int nentries;
    SuggestNote *notes;
    int nnotes;
    SuggestCheck *checks;      /* filled by suggest_verify */
    int nchecks;
    bool verified;             /* suggest_verify passed */
    bool partial;              /* some node had no rule: see the SN_LEFT_OUT notes */
    bool program_dynamic;      /* the archive has symbolic input sizes */
    int64_t *hint;             /* per user input, per dim: the size the archive was traced at (flattened,
                               ** EP_MAX_DIMS per input) */
    int64_t *given;            /* the same for the given inputs (-1: not given); NULL without inputs */
    bool lift_all;             /* every literal equal to a dynamic size's example stands for it: the program
                               ** as it is once the source changes of the notes are made */
    struct Suggestion *after;  /* that program's suggestion, when a note asks for such a change (or NULL) */
    int *nolift;               /* node, pos pairs: literals of a static archive kept as literals, where taking
                               ** them for a size pinned it (seq = 64 = d_model); nnolift pairs */
    int nnolift;
    int ninputs;
} Suggestion;

/* Analyse ip's program and return a verified suggestion (possibly with no
** Dims, only notes).  EP_ERR_FORMAT when an expression of the archive does
** not parse or the guards contradict each other (naming the JSON path or
** node); EP_ERR_USAGE for requests that do not fit the inputs. */
EpStatus suggest_run(const Interp *ip, const SuggestOptions *opt, Suggestion **out, EpError *err);
void suggest_free(Suggestion *s); /* NULL ok */

/* Check s against ip's program (see the top of this file), filling
** s->checks and s->verified.  Returns s->verified. */
bool suggest_verify(const Interp *ip, Suggestion *s, const SuggestOptions *opt);

/* The paste-ready Python (from torch.export import Dim; the Dims;
** dynamic_shapes = {...}), then the notes as `#` comments, into sb. */
void suggest_print_python(const Interp *ip, const Suggestion *s, StrBuf *sb);
/* Human text: the Python, then why, source changes, checks and what the
** verifier did. */
void suggest_print_text(const Interp *ip, const Suggestion *s, StrBuf *sb);
/* A JSON object (see README "epdbg suggest --json"). */
void suggest_print_json(const Interp *ip, const Suggestion *s, StrBuf *sb);

#endif
