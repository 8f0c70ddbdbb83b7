/*
** sym.h -- symbolic integer expressions as torch.export writes them: the
** sizes, SymInt values and range-constraint keys of a program, in either of
** SymPy's text forms:
**
**   str():   s0, 2*s0 + 1, Max(2, s0), Mod(s0, 2), (s0//2), Eq(s0, 3),
**            s0 >= 2, u0 < 10, True
**   srepr(): Symbol('s0', integer=True, positive=True),
**            Add(Mul(Integer(2), Symbol('s0', ...)), Integer(1)),
**            FloorDiv(Symbol('s0'), Integer(2)), GreaterThan(...), ...
**
** This is a leaf library: it includes nothing from interp/ and reports its
** own errors as text.  Expressions are immutable trees owned by the caller.
*/
#ifndef EP_SYM_H
#define EP_SYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct SymExpr SymExpr;

/* A concrete value: SymInt, SymFloat or SymBool. */
typedef enum SymValueKind { SYMV_INT, SYMV_FLOAT, SYMV_BOOL } SymValueKind;
typedef struct SymValue {
    SymValueKind kind;
    int64_t i;
    double f;
    bool b;
} SymValue;

/* Values of named symbols (s0, u1, ...) during one run. */
typedef struct SymBinding {
    char *name;
    int64_t value;
} SymBinding;

typedef struct SymBindings {
    int n, cap;
    SymBinding *items;
} SymBindings;

void sym_bindings_init(SymBindings *b);
void sym_bindings_free(SymBindings *b);
void sym_bindings_clear(SymBindings *b);
/* Bind or rebind name. */
void sym_bindings_set(SymBindings *b, const char *name, int64_t value);
/* Forget name (a debugger stepping back over the node that bound it). */
void sym_bindings_unset(SymBindings *b, const char *name);
/* false if unbound. */
bool sym_bindings_get(const SymBindings *b, const char *name, int64_t *value);

/* Parse either text form.  NULL on a syntax error, with a message such as
** "expected ')' near 'x'" in err (err may be NULL). */
SymExpr *sym_parse(const char *text, char *err, size_t errcap);
void sym_free(SymExpr *e); /* NULL ok */

/* Readable str()-style text ("2*s0 + 1", "Max(2, s0)", "s0 >= 2"), newly
** allocated (caller frees). */
char *sym_to_string(const SymExpr *e);
/* The same in Python's syntax, for code a user pastes (torch._check(...)):
** "(s0 % 4) == 0", "max(s0, s1)", "-(-s0 // 2)", "a and b" (new). */
char *sym_to_python(const SymExpr *e);
/* The symbol's name if e is a bare symbol, else NULL (borrowed). */
const char *sym_as_symbol(const SymExpr *e);
/* The integer if e is a constant integer. */
bool sym_as_int(const SymExpr *e, int64_t *out);
/* Distinct symbol names in e, in order of first appearance (borrowed);
** returns how many there are (may exceed max; only max are stored). */
int sym_symbols(const SymExpr *e, const char **names, int max);

typedef enum SymStatus {
    SYM_OK,
    SYM_UNBOUND, /* a symbol has no value; *unbound names it */
    SYM_DOMAIN,  /* division by zero, non-integer where an integer is needed */
} SymStatus;

/* Evaluate with Python/SymPy semantics: // and Mod/FloorDiv round toward
** -inf; comparisons and And/Or/Not give bools; Max/Min, CeilDiv,
** CeilToInt/FloorToInt/TruncToInt, PythonMod, ModularIndexing, Where,
** TrueDiv/ToFloat give what SymPy would. */
SymStatus sym_eval(const SymExpr *e, const SymBindings *b, SymValue *out, const char **unbound);

/* Check e == actual, learning symbols on the way, as torch's input guards
** do: a bare unbound symbol is bound to actual; an expression with exactly
** one unbound symbol that is linear in it (a*s + c) is solved for it when
** the solution is an integer.  Returns 1 if consistent (possibly binding),
** 0 if not (why gets a sentence: "s0 = 4 from an earlier input, so 2*s0 =
** 8, not 7"), -1 if it cannot decide (several unknowns, non-linear). */
int sym_match(const SymExpr *e, SymBindings *b, int64_t actual, char *why, size_t whycap);

/* ---- canonical form (canon.c) ----------------------------------------------
** Integer polynomials become a sorted sum of monomials with exact
** coefficients (s0 + s0 is 2*s0, (s0 + 1)*(s0 - 1) is s0**2 - 1); FloorDiv,
** Mod, Max, Min stay as atoms with canonical arguments, folded and
** simplified where that holds for every integer (Python floor semantics:
** FloorDiv(-7, 2) = -4, Mod(-7, 2) = 1, Mod(2*s0, 2) = 0, FloorDiv(4*s0 +
** 2, 2) = 2*s0 + 1, CeilDiv(a, b) = -FloorDiv(-a, b)); a relation becomes
** "p REL k" (REL one of ==, !=, <=, >=, and < > only off the integers; p
** with no constant term and a positive leading coefficient, k a number), And/Or sorted and deduplicated, Not
** pushed into relations.  Symbols are taken to be integers. */

/* Most nodes one canonicalization may make (intermediate ones included).
** The largest of the test suite, the examples and the corpus makes 1,400;
** a form near the bound took 60 ms under the sanitizers at 2^16. */
#define SYM_CANON_MAX_NODES (1 << 14)

/* A new canonical tree (caller frees), or NULL out of memory, when a
** constant overflows int64, when a product of sums would multiply out
** to more than 4096 terms (a large power is kept whole instead), or when
** it would take more than SYM_CANON_MAX_NODES nodes. */
SymExpr *sym_canon(const SymExpr *e);
/* Do a and b have the same canonical form?  true means equal for every
** integer value of the symbols; false means not shown equal (the form is
** complete for polynomials, not for floors and maxima). */
bool sym_equal(const SymExpr *a, const SymExpr *b);

/* ---- ranges (interval.c) ------------------------------------------------
** A range of integers; a bound equal to SYM_RANGE_NEG_INF / _POS_INF is
** -oo / +oo (PyTorch's -int_oo / int_oo), so [2, SYM_RANGE_POS_INF] is
** PyTorch's [2, int_oo]. */
#define SYM_RANGE_NEG_INF INT64_MIN
#define SYM_RANGE_POS_INF INT64_MAX
typedef struct SymRange {
    int64_t lo, hi; /* lo <= hi */
} SymRange;

/* The ranges of named symbols (a program's range constraints).  A symbol
** not listed may be any integer. */
typedef struct SymRangeItem {
    char *name; /* owned copy */
    SymRange range;
} SymRangeItem;
typedef struct SymRanges {
    int n, cap;
    SymRangeItem *items;
} SymRanges;

void sym_ranges_init(SymRanges *r);
/* Frees the names and the table; r is left empty and reusable. */
void sym_ranges_free(SymRanges *r);
/* Set or replace name's range (name copied); false if lo > hi or out of
** memory. */
bool sym_ranges_set(SymRanges *r, const char *name, int64_t lo, int64_t hi);
/* false if name has no range (r may be NULL). */
bool sym_ranges_get(const SymRanges *r, const char *name, SymRange *out);

/* An enclosure of every value e takes while each symbol stays in its range
** (ranges may be NULL: every symbol unbounded): sound for every operator,
** tight for sums and products of independent terms, computed on both e and
** its canonical form.  A non-integer value is enclosed by its integer hull;
** a condition's range is within [0, 1]; values where e is undefined
** (division by zero) are left out. */
SymRange sym_range(const SymExpr *e, const SymRanges *ranges);

/* ---- deciding (decide.c) ---------------------------------------------- */

typedef enum SymTruth { SYM_UNKNOWN = -1, SYM_FALSE = 0, SYM_TRUE = 1 } SymTruth;

/* Most assignments sym_decide enumerates for one condition, and most
** nodes it makes in all (its substitutions and canonical forms): past
** that bound the answer is SYM_UNKNOWN.  No decision of the test suite,
** the examples or the corpus makes more than 2,000 nodes; a partial
** enumeration of all 4,096 points of a condition whose substituted
** canonical form takes 60 nodes makes 250,000.  A bound of 2^20 let a
** pathological condition cost 0.3 s under the sanitizers for nothing. */
#define SYM_DECIDE_MAX_POINTS 4096
#define SYM_DECIDE_MAX_NODES (1 << 18)

/* Does cond (Eq/Ne/Lt/Le/Gt/Ge, And/Or/Not, True/False) hold for every
** value of its symbols in their ranges?  SYM_TRUE: yes at every point
** where cond is defined; SYM_FALSE: no at every such point; SYM_UNKNOWN
** otherwise: it depends on the values, or it could not be shown (never a
** wrong TRUE or FALSE).  Decides by the interval of the canonical
** difference, then by enumerating symbols with small finite ranges
** (at most SYM_DECIDE_MAX_POINTS assignments, SYM_DECIDE_MAX_NODES
** nodes made). */
SymTruth sym_decide(const SymExpr *cond, const SymRanges *ranges);

/* ---- linear solving (solve.c) ------------------------------------------ */

/* Is e (after canonicalisation) a*s + c for one integer symbol s, integers
** a != 0 and c?  *symbol is then s's name (borrowed from e: valid while e
** lives); a constant e is affine with *symbol NULL and *a 0.  false for
** anything else (two symbols, s*s, FloorDiv, rational coefficients). */
bool sym_affine(const SymExpr *e, const char **symbol, int64_t *a, int64_t *c);

typedef enum SymSolve {
    SYM_SOLVE_ONE,     /* exactly one integer solution, in *value */
    SYM_SOLVE_NONE,    /* no integer solution (2*s0 + 1 == 8) */
    SYM_SOLVE_ALL,     /* e does not depend on symbol and equals target */
    SYM_SOLVE_UNKNOWN, /* not a*symbol + c (other symbols, non-linear) */
} SymSolve;

/* Solve e == target for symbol over the integers, e = a*symbol + c. */
SymSolve sym_solve_linear(const SymExpr *e, const char *symbol, int64_t target, int64_t *value);

/* ---- building expressions (build.c) ---------------------------------------
** For layers that derive sizes rather than parse them (shape rules).
** Operands are BORROWED (copied into the result); the result is new, owned by
** the caller, or NULL when out of memory, when an operand is NULL, or when
** folding constants overflows int64.  The arithmetic ones fold as SymPy does
** (2 + 3 is 5, s0 + 0 is s0); nothing else is simplified. */
typedef enum SymOp {
    SYM_OP_ADD, SYM_OP_SUB, SYM_OP_MUL,
    SYM_OP_FLOORDIV, /* Python //: FloorDiv(a, b) */
    SYM_OP_MOD,      /* Python %: Mod(a, b) */
    SYM_OP_MAX, SYM_OP_MIN,
    SYM_OP_EQ, SYM_OP_NE, SYM_OP_LT, SYM_OP_LE, SYM_OP_GT, SYM_OP_GE,
    SYM_OP_AND, SYM_OP_OR,
} SymOp;

SymExpr *sym_const(int64_t v);
SymExpr *sym_symbol(const char *name);
SymExpr *sym_true(void);
SymExpr *sym_binop(SymOp op, const SymExpr *a, const SymExpr *b);
/* A deep copy (NULL out of memory). */
SymExpr *sym_clone(const SymExpr *e);
/* e with every occurrence of symbol name replaced by a copy of by (both
** borrowed), constants folded as the constructors fold them; NULL out of
** memory or when an operand is NULL. */
SymExpr *sym_subst(const SymExpr *e, const char *name, const SymExpr *by);
/* Is e a relation (Eq, Ne, Lt, Le, Gt, Ge)?  Then *rel is its operator
** and *lhs, *rhs its sides (borrowed from e). */
bool sym_relation(const SymExpr *e, SymOp *rel, const SymExpr **lhs, const SymExpr **rhs);

#endif
