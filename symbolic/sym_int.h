/*
** sym_int.h -- private to symbolic/: the expression node, the function
** table, interned names and exact rational arithmetic.  Tests may include
** it; other folders use sym.h only.
*/
#ifndef EP_SYM_INT_H
#define EP_SYM_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbolic/sym.h"

/* Deepest nesting sym_parse accepts.  Every walk over a tree (eval, print,
** free) recurses, so this bound is what keeps them off the C stack limit. */
#define SYM_MAX_DEPTH 200

#define SYM_VARIADIC (-1)

/*
** Every function a tree can call, once: enum name, the name printed and
** parsed (SymPy's class name), min and max argument counts.  Relationals,
** And/Or/Not and Add/Mul/Pow are calls too; only the printer gives them
** their infix form.  Srepr spellings of the same classes (GreaterThan, ...)
** are aliases in expr.c.
*/
#define SYM_FN_LIST(X) \
    X(ADD, "Add", 1, SYM_VARIADIC) \
    X(MUL, "Mul", 1, SYM_VARIADIC) \
    X(POW, "Pow", 2, 2) \
    X(FLOORDIV, "FloorDiv", 2, 2) \
    X(CLEANDIV, "CleanDiv", 2, 2) \
    X(CEILDIV, "CeilDiv", 2, 2) \
    X(MOD, "Mod", 2, 2) \
    X(PYTHONMOD, "PythonMod", 2, 2) \
    X(MODINDEX, "ModularIndexing", 3, 3) \
    X(WHERE, "Where", 3, 3) \
    X(PIECEWISE, "Piecewise", 1, SYM_VARIADIC) \
    X(PAIR, "ExprCondPair", 2, 2) \
    X(MAX, "Max", 1, SYM_VARIADIC) \
    X(MIN, "Min", 1, SYM_VARIADIC) \
    X(ABS, "Abs", 1, 1) \
    X(FLOOR, "floor", 1, 1) \
    X(CEILING, "ceiling", 1, 1) \
    X(SQRT, "sqrt", 1, 1) \
    X(CEILTOINT, "CeilToInt", 1, 1) \
    X(FLOORTOINT, "FloorToInt", 1, 1) \
    X(TRUNCTOINT, "TruncToInt", 1, 1) \
    X(ROUNDTOINT, "RoundToInt", 1, 1) \
    X(ROUNDDECIMAL, "RoundDecimal", 2, 2) \
    X(TRUNCTOFLOAT, "TruncToFloat", 1, 1) \
    X(TOFLOAT, "ToFloat", 1, 1) \
    X(INTTRUEDIV, "IntTrueDiv", 2, 2) \
    X(FLOATTRUEDIV, "FloatTrueDiv", 2, 2) \
    X(POWBYNATURAL, "PowByNatural", 2, 2) \
    X(FLOATPOW, "FloatPow", 2, 2) \
    X(LSHIFT, "LShift", 2, 2) \
    X(RSHIFT, "RShift", 2, 2) \
    X(IDENTITY, "Identity", 1, 1) \
    X(NONOVERLAP, "IsNonOverlappingAndDenseIndicator", 2, SYM_VARIADIC) \
    X(BITAND, "BitwiseFn_bitwise_and", 2, 2) \
    X(BITOR, "BitwiseFn_bitwise_or", 2, 2) \
    X(BITXOR, "BitwiseFn_bitwise_xor", 2, 2) \
    X(OPQ_SQRT, "OpaqueUnaryFn_sqrt", 1, 1) \
    X(OPQ_COS, "OpaqueUnaryFn_cos", 1, 1) \
    X(OPQ_COSH, "OpaqueUnaryFn_cosh", 1, 1) \
    X(OPQ_SIN, "OpaqueUnaryFn_sin", 1, 1) \
    X(OPQ_SINH, "OpaqueUnaryFn_sinh", 1, 1) \
    X(OPQ_TAN, "OpaqueUnaryFn_tan", 1, 1) \
    X(OPQ_TANH, "OpaqueUnaryFn_tanh", 1, 1) \
    X(OPQ_ASIN, "OpaqueUnaryFn_asin", 1, 1) \
    X(OPQ_ACOS, "OpaqueUnaryFn_acos", 1, 1) \
    X(OPQ_ATAN, "OpaqueUnaryFn_atan", 1, 1) \
    X(OPQ_EXP, "OpaqueUnaryFn_exp", 1, 1) \
    X(OPQ_LOG, "OpaqueUnaryFn_log", 1, 1) \
    X(OPQ_ASINH, "OpaqueUnaryFn_asinh", 1, 1) \
    X(OPQ_LOG2, "OpaqueUnaryFn_log2", 1, 1) \
    X(EQ, "Eq", 2, 2) \
    X(NE, "Ne", 2, 2) \
    X(LT, "Lt", 2, 2) \
    X(LE, "Le", 2, 2) \
    X(GT, "Gt", 2, 2) \
    X(GE, "Ge", 2, 2) \
    X(AND, "And", 1, SYM_VARIADIC) \
    X(OR, "Or", 1, SYM_VARIADIC) \
    X(NOT, "Not", 1, 1) \
    X(XOR, "Xor", 1, SYM_VARIADIC)

typedef enum SymFn {
#define X(id, name, lo, hi) SYM_FN_##id,
    SYM_FN_LIST(X)
#undef X
    SYM_FN_COUNT
} SymFn;

typedef struct SymFnInfo {
    const char *name;
    int min_args, max_args; /* max SYM_VARIADIC: unbounded */
} SymFnInfo;

extern const SymFnInfo sym_fn_info[SYM_FN_COUNT];

/* The function a (possibly srepr) name denotes; false if none. */
bool sym_fn_lookup(const char *name, size_t len, SymFn *out);

typedef enum SymKind {
    SYM_K_INT,    /* u.i */
    SYM_K_RAT,    /* u.q, den > 1, lowest terms */
    SYM_K_FLOAT,  /* u.f: finite or NaN; infinities are SYM_K_INF */
    SYM_K_INF,    /* u.inf: oo, -oo, int_oo, -int_oo */
    SYM_K_BOOL,   /* u.b */
    SYM_K_SYMBOL, /* u.name, interned */
    SYM_K_CALL,   /* fn(args[0..n-1]) */
} SymKind;

typedef struct SymQ {
    int64_t num, den; /* den > 0, gcd(num, den) == 1 */
} SymQ;

struct SymExpr {
    SymKind kind;
    SymFn fn;              /* SYM_K_CALL only */
    int depth;             /* 1 for a leaf; bounded by SYM_MAX_DEPTH */
    int n, cap;            /* args in use / allocated */
    SymExpr **args;        /* owned, each exclusively */
    union {
        int64_t i;
        SymQ q;
        double f;
        struct {
            int sign;      /* +1 or -1 */
            bool is_int;   /* PyTorch's int_oo rather than SymPy's oo */
        } inf;
        bool b;
        const char *name;  /* from sym_intern: compare by pointer */
    } u;
};

/* ---- interned names (expr.c) ------------------------------------------ */

/* The one shared copy of name[0..len), with one more reference; NULL when
** out of memory.  Equal names give equal pointers while both are held. */
const char *sym_intern(const char *name, size_t len);
/* Drop one reference taken by sym_intern (NULL ok). */
void sym_unintern(const char *name);

/* ---- nodes (expr.c) ------------------------------------------------------
** Constructors return a new node the caller owns, or NULL when out of
** memory (or, for Add/Mul, when folding constants overflows int64:
** sym_take_fold_overflow).  Those taking SymExpr arguments take ownership
** of them, also on failure (NULL arguments are allowed and fail).  The
** arithmetic ones canonicalize as SymPy's automatic evaluation does, but
** only where that cannot change a value: Add and Mul flatten and fold
** their exact numbers into one, stored as the last argument (a Mul's
** coefficient still prints first), a numeric divisor becomes a rational
** coefficient, powers of exact numbers fold, x**1 is x. */
SymExpr *sym_new_int(int64_t v);
/* num/den in lowest terms, an INT when den divides num; den != 0. */
SymExpr *sym_new_rat(int64_t num, int64_t den);
/* An INF node for infinite f. */
SymExpr *sym_new_float(double f);
SymExpr *sym_new_inf(int sign, bool is_int);
SymExpr *sym_new_bool(bool b);
/* Interns name[0..len). */
SymExpr *sym_new_symbol(const char *name, size_t len);
/* fn(args[0..n)): takes ownership of the args array (malloc'd) and of the
** nodes in it; Add/Mul/Pow/And/Or are canonicalized.  The caller has
** checked the argument count. */
SymExpr *sym_new_call(SymFn fn, SymExpr **args, int n);
SymExpr *sym_new_call2(SymFn fn, SymExpr *a, SymExpr *b);
SymExpr *sym_new_add(SymExpr *a, SymExpr *b);
SymExpr *sym_new_sub(SymExpr *a, SymExpr *b);
SymExpr *sym_new_mul(SymExpr *a, SymExpr *b);
SymExpr *sym_new_div(SymExpr *a, SymExpr *b);
SymExpr *sym_new_pow(SymExpr *a, SymExpr *b);
SymExpr *sym_new_neg(SymExpr *a);

/* Did the last constructor to fail (on this thread) fail because a sum
** or product of constants overflowed int64?  Clears the flag. */
bool sym_take_fold_overflow(void);

/* A bound on the nodes made (new or cloned) on this thread, so that no
** expression can make canonicalizing or deciding run without bound: a
** floor division by a small constant splits a sum into two copies of its
** terms, so thirty nested ones made a tree of 2^30 nodes from a
** 140-character input (a fuzzing finding).  sym_budget_begin(n) starts a
** bound of n more nodes unless one is already running (then the outer one
** holds) and returns whether it started one; past the bound every node
** constructor fails (NULL, as out of memory) until the matching
** sym_budget_end(started).  sym_budget_spent() says whether the running
** bound was reached. */
bool sym_budget_begin(int64_t nodes);
void sym_budget_end(bool started);
bool sym_budget_spent(void);
/* A zeroed node, counted against the running bound; NULL past it or out
** of memory.  Every node is made here (new_node, sym_clone). */
SymExpr *sym_node_alloc(void);

/* Is e an exact number (INT or RAT)?  Sets *q when it is. */
bool sym_exact_number(const SymExpr *e, SymQ *q);
/* Is name among the symbols of e? */
bool sym_mentions(const SymExpr *e, const char *interned_name);

/* ---- canonical forms (canon.c) ------------------------------------------ */

/* A total order on trees (kind, value, name with numbers compared as
** numbers, function, arguments); 0 exactly when the trees are identical. */
int sym_cmp(const SymExpr *a, const SymExpr *b);
/* A deep copy the caller owns; NULL out of memory. */
SymExpr *sym_clone(const SymExpr *e);
/* Is e integer-valued whenever its symbols are integers?  (Symbols are
** integers except PyTorch's float symbols, named zf0 / zuf0.) */
bool sym_integral(const SymExpr *e);

/* ---- ranges (interval.c) ---------------------------------------------------- */

/* sym_range on e exactly as given, without canonicalising it first. */
SymRange sym_range_raw(const SymExpr *e, const SymRanges *ranges);

/* sym_decide without enumeration: intervals on the canonical form only
** (tests use it to check the interval reasoning on its own). */
SymTruth sym_decide_intervals(const SymExpr *cond, const SymRanges *ranges);

/* ---- evaluation (eval.c) ---------------------------------------------------- */

/* A value during evaluation: SymPy's Integer and Rational are exact (q),
** Float and the infinities are doubles (f), booleans are b. */
typedef enum SymValKind { SYMVAL_Q, SYMVAL_F, SYMVAL_B } SymValKind;
typedef struct SymVal {
    SymValKind k;
    SymQ q;
    double f;
    bool b;
} SymVal;

typedef struct SymEvalCtx {
    const SymBindings *b;    /* may be NULL: no bindings */
    const char *extra_name;  /* interned; a value that overrides b, or NULL */
    int64_t extra_value;
    const char *unbound;     /* out: the symbol that had no value */
} SymEvalCtx;

/* Evaluate e exactly (rationals stay rationals).  SYM_UNBOUND sets
** cx->unbound; SYM_DOMAIN covers overflow, division by zero, NaN and
** out-of-memory. */
SymStatus sym_eval_val(const SymExpr *e, SymEvalCtx *cx, SymVal *out);

/* ---- tokens (lex.c) ------------------------------------------------------ */

typedef enum SymTok {
    TK_EOF, TK_ERROR,
    TK_INT, TK_FLOAT, TK_NAME, TK_STRING,
    TK_LPAREN, TK_RPAREN, TK_COMMA, TK_ASSIGN,
    TK_PLUS, TK_MINUS, TK_STAR, TK_SLASH, TK_DSLASH, TK_PERCENT, TK_POW,
    TK_EQ, TK_NE, TK_LT, TK_LE, TK_GT, TK_GE,
    TK_AMP, TK_PIPE, TK_TILDE,
} SymTok;

typedef struct SymToken {
    SymTok type;
    const char *start;  /* the token's text in the input */
    size_t len;
    uint64_t u;         /* TK_INT: the value when !too_large (up to 2^63) */
    bool too_large;     /* TK_INT beyond 2^63 */
    double f;           /* TK_FLOAT */
    const char *msg;    /* TK_ERROR: what is wrong, e.g. "unexpected character" */
} SymToken;

typedef struct SymLexer {
    const char *p;      /* next unread character */
} SymLexer;

void sym_lex_init(SymLexer *lx, const char *text);
/* Read the next token into *t.  A lexer is a plain cursor: copy it to
** peek ahead. */
void sym_lex_next(SymLexer *lx, SymToken *t);

/* ---- exact arithmetic (arith.c) ------------------------------------------
** All return false instead of overflowing int64 (or dividing by zero). */
bool symq_add(SymQ a, SymQ b, SymQ *out);
bool symq_sub(SymQ a, SymQ b, SymQ *out);
bool symq_mul(SymQ a, SymQ b, SymQ *out);
bool symq_div(SymQ a, SymQ b, SymQ *out);
/* a**e for an integer e (negative e inverts; 0**negative fails). */
bool symq_pow(SymQ a, int64_t e, SymQ *out);
bool symq_neg(SymQ a, SymQ *out);
int symq_cmp(SymQ a, SymQ b);
int64_t symq_floor(SymQ a);
int64_t symq_ceil(SymQ a);
/* floor(a / b), Python's //; false when b == 0 or the result overflows. */
bool symq_floordiv(SymQ a, SymQ b, int64_t *out);
/* a - b*floor(a/b), Python's % (sign of b). */
bool symq_mod(SymQ a, SymQ b, SymQ *out);
/* The nearest double, ties to even, as Python's int/int and float(). */
double symq_to_double(SymQ a);
static inline SymQ symq_int(int64_t v) { SymQ q = {v, 1}; return q; }
static inline bool symq_is_int(SymQ q) { return q.den == 1; }

/* Python float // and % (floor semantics, the result's sign rules). */
double sym_py_floordiv(double a, double b);
double sym_py_fmod(double a, double b);
/* Python's round(x) on a double: half to even. */
double sym_round_half_even(double x);
/* Python's round(x, ndigits) for a double. */
double sym_round_decimal(double x, int64_t ndigits);

#endif
