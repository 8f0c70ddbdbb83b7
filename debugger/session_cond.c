/*
** session_cond.c -- breakpoint conditions: a small expression language
** over a node's outputs and inputs (grammar in session.h), parsed once into
** a tree and evaluated after the node runs.
**
** Every value is a double; comparisons and tests give 0 or 1.  Statistics
** of a tensor (max, mean, nan, ...) are computed in one pass when first
** needed by an evaluation.
*/
#include "session.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


typedef enum CondOp {
    C_NUM, C_PROP, C_NOT, C_NEG, C_AND, C_OR, C_LT, C_LE, C_GT, C_GE, C_EQ, C_NE, C_ADD, C_SUB, C_MUL, C_DIV,
} CondOp;

typedef enum Prop {
    P_NAN, P_INF, P_FINITE, P_MAX, P_MIN, P_ABS_MAX, P_MEAN, P_STD, P_SUM, P_NUMEL, P_NDIM, P_SHAPE, P_DTYPE,
    P_ZEROS,
} Prop;

static const char *const PROP_NAMES[] = {
    [P_NAN] = "nan", [P_INF] = "inf", [P_FINITE] = "finite", [P_MAX] = "max", [P_MIN] = "min",
    [P_ABS_MAX] = "abs_max", [P_MEAN] = "mean", [P_STD] = "std", [P_SUM] = "sum", [P_NUMEL] = "numel",
    [P_NDIM] = "ndim", [P_SHAPE] = "shape", [P_DTYPE] = "dtype", [P_ZEROS] = "zeros",
};

typedef struct CondNode {
    CondOp op;
    double num;      /* C_NUM */
    Prop prop;       /* C_PROP */
    bool input;      /* C_PROP: an input (else an output) */
    int which;       /* its index */
    int index;       /* shape[index] */
    struct CondNode *a, *b;
} CondNode;

struct BpCond {
    CondNode *root;
};

/* ---- parsing ----------------------------------------------------------- */

/* No input may make the parser recurse, or build a tree that freeing and
** evaluating recurse through, without bound: parentheses, '-' and '!'
** nest at most COND_MAX_DEPTH deep, and a condition has at most
** COND_MAX_OPS operators (so its tree is at most that high).  Real
** conditions use a handful. */
#define COND_MAX_DEPTH 100
#define COND_MAX_OPS 1000

typedef struct CondParser {
    const char *text, *p;
    EpError *err;
    int depth;
    int ops;
} CondParser;

static void skip_ws(CondParser *cp)
{
    while (isspace((unsigned char)*cp->p))
        cp->p++;
}

static CondNode *new_node(CondOp op)
{
    CondNode *n = ep_xcalloc(1, sizeof *n);
    n->op = op;
    return n;
}

static void free_node(CondNode *n)
{
    if (!n)
        return;
    free_node(n->a);
    free_node(n->b);
    free(n);
}

static CondNode *fail(CondParser *cp, const char *what)
{
    char near[24];
    snprintf(near, sizeof near, "%.16s", cp->p);
    /* a long condition is quoted by its start: the reason must fit the message */
    ep_fail(cp->err, EP_ERR_USAGE, "bad condition '%.60s%s': %s %s%s%s", cp->text, strlen(cp->text) > 60 ? "..." : "",
            what, *cp->p ? "near '" : "at the end", *cp->p ? near : "", *cp->p ? "'" : "");
    return NULL;
}

/* Count one nesting level (undone by leave); false, with the message,
** past the limit. */
static bool enter(CondParser *cp)
{
    if (++cp->depth <= COND_MAX_DEPTH)
        return true;
    char what[64];
    snprintf(what, sizeof what, "nested more than %d deep", COND_MAX_DEPTH);
    fail(cp, what);
    return false;
}

static bool accept(CondParser *cp, const char *tok)
{
    skip_ws(cp);
    size_t n = strlen(tok);
    if (strncmp(cp->p, tok, n) != 0)
        return false;
    /* "<" must not take the first char of "<=", "!" not of "!=" */
    if ((n == 1 && (tok[0] == '<' || tok[0] == '>' || tok[0] == '!' || tok[0] == '=')) && cp->p[1] == '=')
        return false;
    cp->p += n;
    return true;
}

static CondNode *parse_or(CondParser *cp);

static CondNode *parse_primary(CondParser *cp)
{
    skip_ws(cp);
    if (!enter(cp))
        return NULL;
    if (accept(cp, "(")) {
        CondNode *n = parse_or(cp);
        if (n && !accept(cp, ")")) {
            free_node(n);
            return fail(cp, "expected ')'");
        }
        cp->depth--;
        return n;
    }
    if (isdigit((unsigned char)*cp->p) || *cp->p == '.') {
        char *end;
        double v = strtod(cp->p, &end);
        cp->p = end;
        CondNode *n = new_node(C_NUM);
        n->num = v;
        cp->depth--;
        return n;
    }
    char word[32];
    size_t len = 0;
    while ((isalnum((unsigned char)*cp->p) || *cp->p == '_') && len + 1 < sizeof word)
        word[len++] = *cp->p++;
    word[len] = '\0';
    if (!len)
        return fail(cp, "expected a number, a property or '('");
    /* a dtype name on its own: the right side of dtype == float16 */
    DType dt = dtype_from_name(word);
    bool is_prop_name = false;
    for (size_t i = 0; i < EP_ARRAY_LEN(PROP_NAMES); i++)
        is_prop_name |= strcmp(word, PROP_NAMES[i]) == 0;
    if (dt != DT_INVALID && !is_prop_name) {
        CondNode *n = new_node(C_NUM);
        n->num = dt;
        cp->depth--;
        return n;
    }
    CondNode *n = new_node(C_PROP);
    /* an optional value prefix: out, outN, in, inN */
    if (*cp->p == '.' && (strncmp(word, "out", 3) == 0 || strncmp(word, "in", 2) == 0)) {
        n->input = word[0] == 'i';
        const char *digits = word + (n->input ? 2 : 3);
        n->which = *digits ? atoi(digits) : 0;
        for (const char *d = digits; *d; d++)
            if (!isdigit((unsigned char)*d)) {
                free_node(n);
                return fail(cp, "expected out, outN, in or inN before '.'");
            }
        cp->p++;
        len = 0;
        while ((isalnum((unsigned char)*cp->p) || *cp->p == '_') && len + 1 < sizeof word)
            word[len++] = *cp->p++;
        word[len] = '\0';
    }
    bool found = false;
    for (size_t i = 0; i < EP_ARRAY_LEN(PROP_NAMES); i++)
        if (strcmp(word, PROP_NAMES[i]) == 0) {
            n->prop = (Prop)i;
            found = true;
        }
    if (!found) {
        free_node(n);
        return fail(cp, "unknown property (nan inf finite max min abs_max mean std sum numel ndim shape dtype "
                        "zeros)");
    }
    if (n->prop == P_SHAPE) {
        if (!accept(cp, "[")) {
            free_node(n);
            return fail(cp, "shape needs an index, as in shape[0]");
        }
        skip_ws(cp);
        char *end;
        long v = strtol(cp->p, &end, 10);
        if (end == cp->p) {
            free_node(n);
            return fail(cp, "expected a dimension index");
        }
        cp->p = end;
        n->index = (int)v;
        if (!accept(cp, "]")) {
            free_node(n);
            return fail(cp, "expected ']'");
        }
    }
    cp->depth--;
    return n;
}

/* An operator node over a (and b), or NULL (both freed) past
** COND_MAX_OPS operators. */
static CondNode *binary(CondParser *cp, CondOp op, CondNode *a, CondNode *b)
{
    if (++cp->ops > COND_MAX_OPS) {
        free_node(a);
        free_node(b);
        char what[64];
        snprintf(what, sizeof what, "more than %d operators", COND_MAX_OPS);
        return fail(cp, what);
    }
    CondNode *n = new_node(op);
    n->a = a;
    n->b = b;
    return n;
}

static CondNode *parse_unary(CondParser *cp)
{
    if (accept(cp, "-")) {
        if (!enter(cp))
            return NULL;
        CondNode *a = parse_unary(cp);
        cp->depth--;
        return a ? binary(cp, C_NEG, a, NULL) : NULL;
    }
    return parse_primary(cp);
}

static CondNode *parse_prod(CondParser *cp)
{
    CondNode *a = parse_unary(cp);
    while (a) {
        CondOp op = accept(cp, "*") ? C_MUL : accept(cp, "/") ? C_DIV : C_NUM;
        if (op == C_NUM)
            break;
        CondNode *b = parse_unary(cp);
        if (!b) {
            free_node(a);
            return NULL;
        }
        a = binary(cp, op, a, b);
    }
    return a;
}

static CondNode *parse_sum(CondParser *cp)
{
    CondNode *a = parse_prod(cp);
    while (a) {
        CondOp op = accept(cp, "+") ? C_ADD : accept(cp, "-") ? C_SUB : C_NUM;
        if (op == C_NUM)
            break;
        CondNode *b = parse_prod(cp);
        if (!b) {
            free_node(a);
            return NULL;
        }
        a = binary(cp, op, a, b);
    }
    return a;
}

static CondNode *parse_cmp(CondParser *cp)
{
    CondNode *a = parse_sum(cp);
    if (!a)
        return NULL;
    static const struct { const char *tok; CondOp op; } ops[] = {
        {"<=", C_LE}, {">=", C_GE}, {"==", C_EQ}, {"!=", C_NE}, {"<", C_LT}, {">", C_GT},
    };
    for (size_t i = 0; i < EP_ARRAY_LEN(ops); i++)
        if (accept(cp, ops[i].tok)) {
            CondNode *b = parse_sum(cp);
            if (!b) {
                free_node(a);
                return NULL;
            }
            return binary(cp, ops[i].op, a, b);
        }
    return a;
}

static CondNode *parse_not(CondParser *cp)
{
    if (accept(cp, "!")) {
        if (!enter(cp))
            return NULL;
        CondNode *a = parse_not(cp);
        cp->depth--;
        return a ? binary(cp, C_NOT, a, NULL) : NULL;
    }
    return parse_cmp(cp);
}

static CondNode *parse_and(CondParser *cp)
{
    CondNode *a = parse_not(cp);
    while (a && accept(cp, "&&")) {
        CondNode *b = parse_not(cp);
        if (!b) {
            free_node(a);
            return NULL;
        }
        a = binary(cp, C_AND, a, b);
    }
    return a;
}

static CondNode *parse_or(CondParser *cp)
{
    CondNode *a = parse_and(cp);
    while (a && accept(cp, "||")) {
        CondNode *b = parse_and(cp);
        if (!b) {
            free_node(a);
            return NULL;
        }
        a = binary(cp, C_OR, a, b);
    }
    return a;
}

BpCond *bpcond_parse(const char *text, EpError *err)
{
    CondParser cp = {text, text, err, 0, 0};
    CondNode *root = parse_or(&cp);
    if (root) {
        skip_ws(&cp);
        if (*cp.p) {
            free_node(root);
            fail(&cp, "unexpected text");
            return NULL;
        }
    }
    if (!root)
        return NULL;
    BpCond *c = ep_xmalloc(sizeof *c);
    c->root = root;
    return c;
}

void bpcond_free(BpCond *c)
{
    if (c) {
        free_node(c->root);
        free(c);
    }
}

/* ---- evaluation ---------------------------------------------------------- */

typedef struct EvalCtx {
    const Interp *ip;
    int node;
    bool missing; /* a value the condition needs does not exist */
} EvalCtx;

static double prop_value(EvalCtx *e, const CondNode *n)
{
    const char *name = n->input ? interp_node_input_name(e->ip, e->node, n->which, NULL)
                                : interp_node_output_name(e->ip, e->node, n->which);
    const Value *v = name ? interp_value(e->ip, name) : NULL;
    if (!v) {
        e->missing = true;
        return 0;
    }
    if (v->kind != V_TENSOR) { /* a SymInt/SymFloat/SymBool output */
        double x = value_as_f64(v);
        switch (n->prop) {
        case P_NAN: return isnan(x);
        case P_INF: return isinf(x);
        case P_FINITE: return isfinite(x);
        case P_NUMEL: return 1;
        case P_NDIM: return 0;
        case P_DTYPE: return v->kind == V_FLOAT ? DT_F64 : v->kind == V_BOOL ? DT_BOOL : DT_I64;
        case P_STD: return 0;
        case P_ZEROS: return x == 0;
        case P_ABS_MAX: return fabs(x);
        case P_SHAPE: e->missing = true; return 0;
        default: return x;
        }
    }
    const Tensor *t = v->t;
    switch (n->prop) {
    case P_NUMEL: return (double)tensor_numel(t);
    case P_NDIM: return t->ndim;
    case P_DTYPE: return t->dtype;
    case P_SHAPE: {
        int d;
        if (!dim_wrap(n->index, t->ndim, &d) || t->ndim == 0) {
            e->missing = true;
            return 0;
        }
        return (double)t->sizes[d];
    }
    default: break;
    }
    TensorStats st;
    tensor_stats(t, &st);
    switch (n->prop) {
    case P_NAN: return st.nan > 0;
    case P_INF: return st.inf > 0;
    case P_FINITE: return st.nan == 0 && st.inf == 0;
    case P_MAX: return st.max;
    case P_MIN: return st.min;
    case P_ABS_MAX: return st.abs_max;
    case P_MEAN: return st.mean;
    case P_STD: return st.std;
    case P_SUM: return st.sum;
    case P_ZEROS: return (double)st.zeros;
    default: return 0;
    }
}

static double eval(EvalCtx *e, const CondNode *n)
{
    switch (n->op) {
    case C_NUM: return n->num;
    case C_PROP: return prop_value(e, n);
    case C_NOT: return !eval(e, n->a);
    case C_NEG: return -eval(e, n->a);
    case C_AND: return eval(e, n->a) && eval(e, n->b);
    case C_OR: return eval(e, n->a) || eval(e, n->b);
    case C_LT: return eval(e, n->a) < eval(e, n->b);
    case C_LE: return eval(e, n->a) <= eval(e, n->b);
    case C_GT: return eval(e, n->a) > eval(e, n->b);
    case C_GE: return eval(e, n->a) >= eval(e, n->b);
    case C_EQ: return eval(e, n->a) == eval(e, n->b);
    case C_NE: return eval(e, n->a) != eval(e, n->b);
    case C_ADD: return eval(e, n->a) + eval(e, n->b);
    case C_SUB: return eval(e, n->a) - eval(e, n->b);
    case C_MUL: return eval(e, n->a) * eval(e, n->b);
    case C_DIV: return eval(e, n->a) / eval(e, n->b);
    }
    return 0;
}

bool bpcond_eval(const BpCond *c, const Interp *ip, int node)
{
    EvalCtx e = {ip, node, false};
    double v = eval(&e, c->root);
    return !e.missing && v != 0 && !isnan(v);
}
