/*
** guards_code.c -- a guard of the ExportedProgram's guards_code (Python
** source) into SymPy text over the recorded sizes (guards_code.h).
**
** A recursive-descent parser with Python's precedence, loosest first:
**
**   or_test    := and_test { 'or' and_test }
**   and_test   := not_test { 'and' not_test }
**   not_test   := 'not' not_test | comparison
**   comparison := arith { ('==' | '!=' | '<' | '<=' | '>' | '>=') arith }
**   arith      := term { ('+' | '-') term }
**   term       := factor { ('*' | '/' | '//' | '%') factor }
**   factor     := ('-' | '+') factor | power
**   power      := primary [ '**' factor ]
**   primary    := INT | FLOAT | True | False | math.inf | '(' or_test ')'
**               | call '(' [ or_test { ',' or_test } ] ')' | reference
**   reference  := ('L' subscript+ | NAME subscript*)
**                 [ '.size()' '[' INT ']' | '.size(' INT ')' | '.shape[' INT ']'
**                 | '.stride()' '[' INT ']' | '.stride(' INT ')' ]
**
** Each rule gives two texts: the SymPy one, every operand parenthesized
** (sym_parse binds & and | tighter than comparisons, as Python's bitwise
** operators do, so 'and' cannot become '&' without them), and the Python
** one with only the parentheses precedence needs, as ast.unparse prints
** the guard in PyTorch's "Guard failed:" message.
*/
#include "guards_code.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pytree.h"

#define MAX_DEPTH 64 /* nesting; PyTorch's guards are shallow */
#define MAX_KEYS 8   /* subscripts of one reference */

/* Python's precedence levels, loosest first (the Python text's parentheses). */
enum { P_OR = 1, P_AND, P_NOT, P_CMP, P_ARITH, P_TERM, P_UNARY, P_POW, P_ATOM };

typedef enum TokKind { T_END, T_INT, T_FLOAT, T_NAME, T_STR, T_OP } TokKind;

typedef struct Tok {
    TokKind kind;
    const char *s;
    size_t len;
} Tok;

/* One translated subexpression. */
typedef struct X {
    char *sym; /* SymPy text */
    char *py;  /* Python text */
    int prec;  /* of py's outermost operator */
} X;

typedef struct Parser {
    const ExportedProgram *ep;
    UserInput *inputs;
    int ninputs;
    GuardSizeFn sizes;
    void *ctx;
    const char *text, *p;
    Tok tok;
    int depth;
    char *why;
    size_t whycap;
    bool failed;
} Parser;

/* ---- errors and tokens ------------------------------------------------------- */

static bool fail(Parser *P, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The first error stands; later ones follow from it. */
static bool fail(Parser *P, const char *fmt, ...)
{
    if (!P->failed && P->why && P->whycap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(P->why, P->whycap, fmt, ap);
        va_end(ap);
    }
    P->failed = true;
    return false;
}

static bool fail_near(Parser *P, const char *what)
{
    if (P->tok.kind == T_END)
        return fail(P, "%s at the end", what);
    return fail(P, "%s near '%.*s' (offset %d)", what, (int)P->tok.len, P->tok.s, (int)(P->tok.s - P->text));
}

/* Multi-character operators first. */
static const char *const OPERATORS[] = {"//", "**", "==", "!=", "<=", ">=", "<", ">", "+", "-", "*",
                                        "/",  "%",  "(",  ")",  "[",  "]",  ",", ".", "~", "&", "|"};

static void next(Parser *P)
{
    const char *p = P->p;
    while (isspace((unsigned char)*p))
        p++;
    Tok t = {T_END, p, 0};
    if (!*p) {
        /* the end */
    } else if (isdigit((unsigned char)*p)) {
        const char *q = p;
        while (isdigit((unsigned char)*q))
            q++;
        t.kind = T_INT;
        if (*q == '.' || *q == 'e' || *q == 'E') {
            t.kind = T_FLOAT;
            q++;
            while (isalnum((unsigned char)*q) || *q == '.' || ((*q == '+' || *q == '-') && (q[-1] == 'e' || q[-1] == 'E')))
                q++;
        }
        t.len = (size_t)(q - p);
    } else if (isalpha((unsigned char)*p) || *p == '_') {
        const char *q = p;
        while (isalnum((unsigned char)*q) || *q == '_')
            q++;
        t.kind = T_NAME;
        t.len = (size_t)(q - p);
    } else if (*p == '\'' || *p == '"') {
        const char *q = p + 1;
        while (*q && *q != *p)
            q++;
        t.kind = T_STR;
        t.len = (size_t)(q - p) + (*q ? 1 : 0);
    } else {
        t.kind = T_OP;
        t.len = 1; /* an unknown character is a one-character operator no rule takes */
        for (size_t i = 0; i < EP_ARRAY_LEN(OPERATORS); i++)
            if (strncmp(p, OPERATORS[i], strlen(OPERATORS[i])) == 0) {
                t.len = strlen(OPERATORS[i]);
                break;
            }
    }
    P->tok = t;
    P->p = p + t.len;
}

static bool is_op(const Parser *P, const char *op)
{
    return P->tok.kind == T_OP && P->tok.len == strlen(op) && memcmp(P->tok.s, op, P->tok.len) == 0;
}

static bool is_name(const Parser *P, const char *name)
{
    return P->tok.kind == T_NAME && P->tok.len == strlen(name) && memcmp(P->tok.s, name, P->tok.len) == 0;
}

static bool expect(Parser *P, const char *op)
{
    if (!is_op(P, op)) {
        char what[32];
        snprintf(what, sizeof what, "expected '%s'", op);
        return fail_near(P, what);
    }
    next(P);
    return true;
}

/* An integer token, with an optional leading '-'. */
static bool expect_int(Parser *P, long long *out)
{
    bool neg = is_op(P, "-");
    if (neg)
        next(P);
    if (P->tok.kind != T_INT)
        return fail_near(P, "expected an integer");
    *out = strtoll(P->tok.s, NULL, 10) * (neg ? -1 : 1);
    next(P);
    return true;
}

/* ---- translated values ---------------------------------------------------------- */

static void x_free(X *x)
{
    free(x->sym);
    free(x->py);
    x->sym = x->py = NULL;
}

/* x's Python text, parenthesized unless its precedence is at least min. */
static char *py_at(const X *x, int min)
{
    return x->prec >= min ? ep_xstrdup(x->py) : ep_xasprintf("(%s)", x->py);
}

/* a OP b (both taken): sym_op between the parenthesized SymPy texts; the
** Python operands need precedence lmin and rmin. */
static X binary(X *a, X *b, const char *sym_op, const char *py_op, int prec, int lmin, int rmin)
{
    char *l = py_at(a, lmin), *r = py_at(b, rmin);
    X x = {ep_xasprintf("(%s) %s (%s)", a->sym, sym_op, b->sym), ep_xasprintf("%s %s %s", l, py_op, r), prec};
    free(l);
    free(r);
    x_free(a);
    x_free(b);
    return x;
}

static bool or_test(Parser *P, X *out);

/* ---- references ------------------------------------------------------------------ */

typedef struct Key {
    bool is_str;
    char str[128];
    long long idx;
} Key;

/* ['x'] or [0] */
static bool subscript(Parser *P, Key *k)
{
    next(P); /* '[' */
    if (P->tok.kind == T_STR) {
        if (P->tok.len < 2 || P->tok.len - 2 >= sizeof k->str)
            return fail_near(P, "unreadable key");
        k->is_str = true;
        snprintf(k->str, sizeof k->str, "%.*s", (int)P->tok.len - 2, P->tok.s + 1);
        next(P);
    } else {
        k->is_str = false;
        if (!expect_int(P, &k->idx))
            return false;
    }
    return expect(P, "]");
}

/* "['k']" / "[0]" */
static void key_text(const Key *k, StrBuf *sb)
{
    if (k->is_str)
        sb_printf(sb, "['%s']", k->str);
    else
        sb_printf(sb, "[%lld]", k->idx);
}

static int input_named(const Parser *P, const char *name)
{
    for (int u = 0; u < P->ninputs; u++)
        if (strcmp(P->inputs[u].name, name) == 0 ||
            (P->inputs[u].arg_name && strcmp(P->inputs[u].arg_name, name) == 0))
            return u;
    return -1;
}

/* The user input keys name, or -1 (why set).  Forms: L['flat_args'][i]
** (the i-th input); L['x'] (a placeholder or forward argument name);
** L['args'][0] (an item of *args: placeholder args_0, named *args[0]);
** L['kwargs']['k']; each also without its L (PyTorch's message form). */
static int resolve_input(Parser *P, const Key *keys, int n)
{
    char name[160];
    if (n == 2 && keys[0].is_str && strcmp(keys[0].str, "flat_args") == 0 && !keys[1].is_str) {
        if (keys[1].idx >= 0 && keys[1].idx < P->ninputs)
            return (int)keys[1].idx;
        fail(P, "flat_args[%lld]: the program has %d user inputs", keys[1].idx, P->ninputs);
        return -1;
    }
    int u = n == 1 ? input_named(P, keys[0].str) : -1;
    if (u < 0 && n == 2 && !keys[1].is_str) {
        snprintf(name, sizeof name, "*%s[%lld]", keys[0].str, keys[1].idx);
        u = input_named(P, name);
        if (u < 0) {
            snprintf(name, sizeof name, "%s_%lld", keys[0].str, keys[1].idx);
            u = input_named(P, name);
        }
    }
    if (u < 0 && n == 2 && keys[1].is_str && strcmp(keys[0].str, "kwargs") == 0)
        u = input_named(P, keys[1].str);
    if (u < 0) {
        StrBuf sb;
        sb_init(&sb);
        sb_append(&sb, keys[0].str);
        for (int k = 1; k < n; k++)
            key_text(&keys[k], &sb);
        fail(P, "%s is not a user input of the program", sb.data);
        sb_free(&sb);
    }
    return u;
}

/* .size()[d], .size(d), .shape[d], .stride()[d], .stride(d): kind and d,
** and the Python text as written into sb.  None: a SymInt input itself. */
static bool trailer(Parser *P, GuardRefKind *kind, long long *d, StrBuf *sb)
{
    *kind = GREF_VALUE;
    *d = -1;
    if (!is_op(P, "."))
        return true;
    next(P);
    if (is_name(P, "shape")) {
        next(P);
        *kind = GREF_SIZE;
        if (!is_op(P, "["))
            return fail_near(P, "expected '['");
        next(P);
        if (!expect_int(P, d) || !expect(P, "]"))
            return false;
        sb_printf(sb, ".shape[%lld]", *d);
        return true;
    }
    bool size = is_name(P, "size"), stride = is_name(P, "stride");
    if (!size && !stride)
        return fail_near(P, "a reference to an input reads .size(), .shape or .stride(), not this");
    const char *what = size ? "size" : "stride";
    *kind = size ? GREF_SIZE : GREF_STRIDE;
    next(P);
    if (!expect(P, "("))
        return false;
    if (is_op(P, ")")) {
        next(P);
        if (!is_op(P, "["))
            return fail_near(P, "expected '[' (the whole size is not a number)");
        next(P);
        if (!expect_int(P, d) || !expect(P, "]"))
            return false;
        sb_printf(sb, ".%s()[%lld]", what, *d);
        return true;
    }
    if (!expect_int(P, d) || !expect(P, ")"))
        return false;
    sb_printf(sb, ".%s(%lld)", what, *d);
    return true;
}

/* The recorded size (stride, value) the reference reads as SymPy text. */
static char *recorded_text(Parser *P, int u, GuardRefKind kind, long long d, const char *shown)
{
    const UserInput *in = &P->inputs[u];
    const SymDim *sd;
    if (kind == GREF_VALUE) {
        sd = in->kind == ARG_SYM_INT ? strmap_get(&P->ep->graph.sym_int_values, in->name) : NULL;
        if (!sd) {
            fail(P, "%s is %s, not a SymInt input with a recorded value (a tensor's size is read with .size())",
                 shown, in->kind == ARG_TENSOR ? "a tensor" : arg_kind_name(in->kind));
            return NULL;
        }
    } else {
        const TensorMeta *m = in->kind == ARG_TENSOR ? in->meta : NULL;
        if (!m) {
            fail(P, "%s: input %s has no recorded tensor sizes", shown, user_input_name(in));
            return NULL;
        }
        long long k = d < 0 ? d + m->ndim : d;
        if (k < 0 || k >= m->ndim) {
            fail(P, "%s: input %s has %d dimensions", shown, user_input_name(in), m->ndim);
            return NULL;
        }
        sd = kind == GREF_SIZE ? &m->sizes[k] : &m->strides[k];
    }
    if (!sd->is_expr)
        return ep_xasprintf("%lld", (long long)sd->value);
    if (!sd->parsed) {
        fail(P, "%s: its recorded expression '%s' does not parse", shown, sd->expr);
        return NULL;
    }
    char *s = sym_to_string(sd->parsed);
    char *r = ep_xasprintf("(%s)", s);
    free(s);
    return r;
}

/* A reference to an input's size, stride or value; P->tok is its first
** name (L or the input's). */
static bool reference(Parser *P, X *out)
{
    Key keys[MAX_KEYS];
    int n = 0;
    if (is_name(P, "L")) {
        next(P);
        if (!is_op(P, "["))
            return fail_near(P, "expected '[' after L");
    } else {
        keys[n].is_str = true;
        snprintf(keys[n].str, sizeof keys[n].str, "%.*s", (int)P->tok.len, P->tok.s);
        n++;
        next(P);
    }
    while (is_op(P, "[")) {
        if (n == MAX_KEYS)
            return fail_near(P, "too many subscripts");
        if (!subscript(P, &keys[n++]))
            return false;
    }
    if (n == 0 || !keys[0].is_str)
        return fail_near(P, "expected an input name");
    int u = resolve_input(P, keys, n);
    if (u < 0)
        return false;
    /* shown as PyTorch's message shows it: the path without L, the
    ** flattened form by the input's name */
    StrBuf sb;
    sb_init(&sb);
    if (strcmp(keys[0].str, "flat_args") == 0) {
        sb_append(&sb, user_input_name(&P->inputs[u]));
    } else {
        sb_append(&sb, keys[0].str);
        for (int k = 1; k < n; k++)
            key_text(&keys[k], &sb);
    }
    GuardRefKind kind;
    long long d;
    if (!trailer(P, &kind, &d, &sb)) {
        sb_free(&sb);
        return false;
    }
    char *sym;
    if (P->sizes) {
        int64_t v;
        const UserInput *in = &P->inputs[u];
        long long k = d < 0 && kind != GREF_VALUE && in->meta ? d + in->meta->ndim : d;
        if (!P->sizes(P->ctx, u, kind, (int)k, &v)) {
            fail(P, "%s has no value", sb.data);
            sb_free(&sb);
            return false;
        }
        sym = ep_xasprintf("%lld", (long long)v);
        sb_free(&sb);
        out->py = ep_xstrdup(sym);
    } else {
        sym = recorded_text(P, u, kind, d, sb.data);
        if (!sym) {
            sb_free(&sb);
            return false;
        }
        out->py = sb_take(&sb);
    }
    out->sym = sym;
    out->prec = P_ATOM;
    return true;
}

/* ---- calls ------------------------------------------------------------------------ */

/* Python's functions as PyTorch's printer writes them, and SymPy's
** equivalent; any other name followed by '(' is passed to sym_parse as a
** SymPy function (Max, Mod, Eq, ...), which refuses one it does not know. */
static const struct {
    const char *py, *sym;
} CALLS[] = {
    {"max", "Max"},          {"min", "Min"},           {"abs", "Abs"},
    {"math.floor", "FloorToInt"}, {"math.ceil", "CeilToInt"}, {"math.trunc", "TruncToInt"},
    {"math.sqrt", "sqrt"},   {"float", "ToFloat"},     {"round", "RoundToInt"},
    {"torch.sym_max", "Max"}, {"torch.sym_min", "Min"}, {"torch.sym_float", "ToFloat"},
};

static bool call(Parser *P, const char *name, X *out)
{
    const char *sym_name = name;
    for (size_t i = 0; i < EP_ARRAY_LEN(CALLS); i++)
        if (strcmp(CALLS[i].py, name) == 0)
            sym_name = CALLS[i].sym;
    if (strncmp(sym_name, "math.", 5) == 0 || strncmp(sym_name, "torch.", 6) == 0)
        return fail(P, "%s() is not a function epdbg reads", name);
    next(P); /* '(' */
    StrBuf sym, py;
    sb_init(&sym);
    sb_init(&py);
    sb_printf(&sym, "%s(", sym_name);
    sb_printf(&py, "%s(", name);
    bool ok = true;
    for (int k = 0; ok && !is_op(P, ")"); k++) {
        if (k && !(ok = expect(P, ",")))
            break;
        X a = {0};
        if (!(ok = or_test(P, &a)))
            break;
        sb_printf(&sym, "%s(%s)", k ? ", " : "", a.sym);
        sb_printf(&py, "%s%s", k ? ", " : "", a.py);
        x_free(&a);
    }
    if (ok)
        ok = expect(P, ")");
    if (!ok) {
        sb_free(&sym);
        sb_free(&py);
        return false;
    }
    sb_append(&sym, ")");
    sb_append(&py, ")");
    out->sym = sb_take(&sym);
    out->py = sb_take(&py);
    out->prec = P_ATOM;
    return true;
}

/* ---- the grammar ------------------------------------------------------------------ */

static bool literal(Parser *P, const char *sym, X *out)
{
    out->sym = ep_xstrdup(sym);
    out->py = ep_xstrndup(P->tok.s, P->tok.len);
    out->prec = P_ATOM;
    next(P);
    return true;
}

static bool primary(Parser *P, X *out)
{
    if (P->tok.kind == T_INT || P->tok.kind == T_FLOAT) {
        char num[64];
        snprintf(num, sizeof num, "%.*s", (int)(P->tok.len < 63 ? P->tok.len : 63), P->tok.s);
        return literal(P, num, out);
    }
    if (is_op(P, "(")) {
        next(P);
        if (!or_test(P, out))
            return false;
        if (!expect(P, ")")) {
            x_free(out);
            return false;
        }
        return true; /* the Python text's parentheses are put back where needed */
    }
    if (P->tok.kind != T_NAME)
        return fail_near(P, "expected a number, a name or '('");
    if (is_name(P, "True") || is_name(P, "False"))
        return literal(P, is_name(P, "True") ? "True" : "False", out);
    char name[160];
    snprintf(name, sizeof name, "%.*s", (int)(P->tok.len < 150 ? P->tok.len : 150), P->tok.s);
    if (strcmp(name, "math") == 0 || strcmp(name, "torch") == 0) { /* a dotted function or constant */
        next(P);
        if (!is_op(P, "."))
            return fail_near(P, "expected '.'");
        next(P);
        if (P->tok.kind != T_NAME)
            return fail_near(P, "expected a name");
        size_t len = strlen(name);
        snprintf(name + len, sizeof name - len, ".%.*s", (int)(P->tok.len < 100 ? P->tok.len : 100), P->tok.s);
        if (strcmp(name, "math.inf") == 0) {
            next(P);
            *out = (X){ep_xstrdup("oo"), ep_xstrdup(name), P_ATOM};
            return true;
        }
        next(P);
        if (!is_op(P, "("))
            return fail(P, "%s is not a value epdbg reads", name);
        return call(P, name, out);
    }
    const char *save = P->p;
    Tok save_tok = P->tok;
    next(P);
    if (is_op(P, "("))
        return call(P, name, out);
    P->p = save; /* not a call: a reference, starting at its name again */
    P->tok = save_tok;
    return reference(P, out);
}

static bool factor(Parser *P, X *out);

static bool power(Parser *P, X *out)
{
    if (!primary(P, out))
        return false;
    if (!is_op(P, "**"))
        return true;
    next(P);
    X b = {0};
    if (!factor(P, &b)) {
        x_free(out);
        return false;
    }
    *out = binary(out, &b, "**", "**", P_POW, P_ATOM, P_UNARY);
    return true;
}

static bool factor(Parser *P, X *out)
{
    if (is_op(P, "-") || is_op(P, "+")) {
        bool neg = is_op(P, "-");
        next(P);
        X a = {0};
        if (!factor(P, &a))
            return false;
        char *py = py_at(&a, P_UNARY);
        out->sym = ep_xasprintf("%s(%s)", neg ? "-" : "+", a.sym);
        out->py = ep_xasprintf("%s%s", neg ? "-" : "+", py);
        out->prec = P_UNARY;
        free(py);
        x_free(&a);
        return true;
    }
    if (is_op(P, "~") || is_op(P, "&") || is_op(P, "|"))
        return fail_near(P, "bitwise operators are not guards epdbg reads");
    return power(P, out);
}

/* One level of left-associative binary operators: ops[i] in Python, syms[i]
** for sym_parse. */
typedef bool (*Rule)(Parser *P, X *out);

static bool left_assoc(Parser *P, X *out, Rule operand, const char *const *ops, const char *const *syms, int nops,
                       int prec, bool named)
{
    if (!operand(P, out))
        return false;
    for (;;) {
        int k = -1;
        for (int i = 0; i < nops && k < 0; i++)
            if (named ? is_name(P, ops[i]) : is_op(P, ops[i]))
                k = i;
        if (k < 0)
            return true;
        next(P);
        X b = {0};
        if (!operand(P, &b)) {
            x_free(out);
            return false;
        }
        *out = binary(out, &b, syms[k], ops[k], prec, prec, prec + 1);
    }
}

static bool term(Parser *P, X *out)
{
    static const char *const ops[] = {"*", "/", "//", "%"};
    return left_assoc(P, out, factor, ops, ops, 4, P_TERM, false);
}

static bool arith(Parser *P, X *out)
{
    static const char *const ops[] = {"+", "-"};
    return left_assoc(P, out, term, ops, ops, 2, P_ARITH, false);
}

/* a < b < c is Python's (a < b) and (b < c). */
static bool comparison(Parser *P, X *out)
{
    static const char *const ops[] = {"==", "!=", "<", "<=", ">", ">="};
    if (!arith(P, out))
        return false;
    X prev = {0};
    for (;;) {
        int k = -1;
        for (int i = 0; i < 6 && k < 0; i++)
            if (is_op(P, ops[i]))
                k = i;
        if (k < 0)
            break;
        next(P);
        X b = {0};
        if (!arith(P, &b)) {
            x_free(out);
            x_free(&prev);
            return false;
        }
        char *l = prev.sym ? NULL : py_at(out, P_CMP + 1), *r = py_at(&b, P_CMP + 1);
        char *sym = prev.sym ? ep_xasprintf("(%s) & ((%s) %s (%s))", out->sym, prev.sym, ops[k], b.sym)
                             : ep_xasprintf("(%s) %s (%s)", out->sym, ops[k], b.sym);
        char *py = ep_xasprintf("%s %s %s", prev.sym ? out->py : l, ops[k], r);
        free(l);
        free(r);
        x_free(out);
        x_free(&prev);
        *out = (X){sym, py, P_CMP};
        prev = b; /* the next comparison's left operand */
    }
    x_free(&prev);
    const char *refuse = is_name(P, "in") || is_name(P, "is") ? "'in' and 'is' are not guards epdbg reads"
                         : is_op(P, "&") || is_op(P, "|")     ? "bitwise operators are not guards epdbg reads"
                                                              : NULL;
    if (!refuse)
        return true;
    fail_near(P, refuse);
    x_free(out);
    return false;
}

static bool not_test(Parser *P, X *out)
{
    if (!is_name(P, "not"))
        return comparison(P, out);
    next(P);
    X a = {0};
    if (!not_test(P, &a))
        return false;
    char *py = py_at(&a, P_NOT);
    *out = (X){ep_xasprintf("~(%s)", a.sym), ep_xasprintf("not %s", py), P_NOT};
    free(py);
    x_free(&a);
    return true;
}

static bool and_test(Parser *P, X *out)
{
    static const char *const ops[] = {"and"}, *const syms[] = {"&"};
    return left_assoc(P, out, not_test, ops, syms, 1, P_AND, true);
}

static bool or_test(Parser *P, X *out)
{
    static const char *const ops[] = {"or"}, *const syms[] = {"|"};
    if (++P->depth > MAX_DEPTH) {
        P->depth--;
        return fail_near(P, "nested too deeply");
    }
    bool ok = left_assoc(P, out, and_test, ops, syms, 1, P_OR, true);
    P->depth--;
    return ok;
}

/* ---- the entry point -------------------------------------------------------------- */

SymExpr *guard_code_translate(const ExportedProgram *ep, const char *text, GuardSizeFn sizes, void *ctx,
                              char **shown, char *why, size_t whycap)
{
    if (why && whycap)
        why[0] = '\0';
    Parser P = {.ep = ep, .sizes = sizes, .ctx = ctx, .text = text, .p = text, .why = why, .whycap = whycap};
    /* the user inputs in input-spec order, named as the interpreter names
    ** them (interp_new), so an index here is the interpreter's */
    P.inputs = ep_xcalloc((size_t)(ep->ninput_specs ? ep->ninput_specs : 1), sizeof *P.inputs);
    for (int i = 0; i < ep->ninput_specs; i++) {
        const Arg *ph = &ep->graph.inputs[i];
        if (ep->input_specs[i].kind != IN_USER_INPUT || i >= ep->graph.ninputs)
            continue;
        UserInput *u = &P.inputs[P.ninputs++];
        u->name = ph->ref ? ph->ref : "?";
        u->kind = ph->kind;
        u->meta = ph->ref ? graph_tensor_meta(&ep->graph, ph->ref) : NULL;
        u->spec_index = i;
    }
    char **names = pytree_arg_names(ep, P.inputs, P.ninputs);
    for (int u = 0; u < P.ninputs; u++)
        P.inputs[u].arg_name = names[u];
    free(names);

    X x = {0};
    SymExpr *e = NULL;
    next(&P);
    if (or_test(&P, &x)) {
        if (P.tok.kind != T_END) {
            fail_near(&P, "unexpected text after the guard");
        } else {
            char err[256] = "";
            e = sym_parse(x.sym, err, sizeof err);
            if (!e)
                fail(&P, "its translation %s does not parse: %s", x.sym, err);
        }
    }
    if (e && shown)
        *shown = ep_xstrdup(x.py);
    x_free(&x);
    for (int u = 0; u < P.ninputs; u++)
        free(P.inputs[u].arg_name);
    free(P.inputs);
    return e;
}
