/*
** test_sym.c -- the symbolic expression library: both SymPy text forms,
** printing and re-parsing, evaluation with Python's rounding rules,
** input-guard matching, and hostile input.
**
** Expected values were worked out by hand and checked against Python /
** SymPy 1.11 (xreplace, the substitution PyTorch uses).  The corpus test
** reads every expr_str, range-constraint key and runtime-assertion
** expression of the archives in ../shared/corpus.
*/
#include <ctype.h>
#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zip.h>

#include "symbolic/sym.h"
#include "testutil.h"

/* ---- helpers -------------------------------------------------------------- */

/* Bindings from "s0=5,s1=-3". */
static void bind_all(SymBindings *b, const char *spec)
{
    const char *p = spec;
    while (p && *p) {
        char name[32];
        long long v;
        int used;
        if (sscanf(p, " %31[^=]=%lld%n", name, &v, &used) != 2)
            break;
        sym_bindings_set(b, name, v);
        p += used;
        if (*p == ',')
            p++;
    }
}

static SymExpr *parse_ok(const char *text)
{
    char err[256];
    SymExpr *e = sym_parse(text, err, sizeof err);
    ck_assert_msg(e != NULL, "parse of \"%s\" failed: %s", text, err);
    return e;
}

/* print(parse(text)) parses again and prints the same: the fixed point
** every printed expression must reach.  Returns the printed text. */
static char *roundtrip(const char *text)
{
    SymExpr *e = parse_ok(text);
    char *s = sym_to_string(e);
    ck_assert_ptr_nonnull(s);
    char err[256];
    SymExpr *e2 = sym_parse(s, err, sizeof err);
    ck_assert_msg(e2 != NULL, "printed form \"%s\" of \"%s\" does not parse: %s", s, text, err);
    char *s2 = sym_to_string(e2);
    ck_assert_msg(strcmp(s, s2) == 0, "\"%s\" prints as \"%s\", which prints as \"%s\"", text, s, s2);
    free(s2);
    sym_free(e2);
    sym_free(e);
    return s;
}

static SymStatus eval_text(const char *text, const char *binds, SymValue *v, const char **unbound_copy)
{
    SymBindings b;
    sym_bindings_init(&b);
    bind_all(&b, binds);
    SymExpr *e = parse_ok(text);
    const char *unbound = NULL;
    SymStatus st = sym_eval(e, &b, v, &unbound);
    static char name[64];
    if (unbound_copy) {
        snprintf(name, sizeof name, "%s", unbound ? unbound : "");
        *unbound_copy = name;
    }
    sym_free(e);
    sym_bindings_free(&b);
    return st;
}

/* ---- the corpus ------------------------------------------------------------------ */

/* Every expression string of the corpus archives at the time of writing. */
static const struct {
    const char *text, *printed;
} corpus_exprs[] = {
    {"Add(Symbol('u0', integer=True), Integer(2300))", "u0 + 2300"},
    {"Add(Symbol('u0', integer=True), Integer(8))", "u0 + 8"},
    {"Add(Symbol('u0', integer=True), Symbol('u1', integer=True), Symbol('u2', integer=True))", "u0 + u1 + u2"},
    {"Add(Symbol('u1', integer=True), Integer(12))", "u1 + 12"},
    {"GreaterThan(Symbol('u0', integer=True), Integer(0))", "u0 >= 0"},
    {"GreaterThan(Symbol('u1', integer=True), Integer(0))", "u1 >= 0"},
    {"GreaterThan(Symbol('u2', integer=True), Integer(0))", "u2 >= 0"},
    {"LessThan(Symbol('u0', integer=True), Integer(1000))", "u0 <= 1000"},
    {"LessThan(Symbol('u0', integer=True), Integer(10000))", "u0 <= 10000"},
    {"LessThan(Symbol('u0', integer=True), Integer(300))", "u0 <= 300"},
    {"LessThan(Symbol('u1', integer=True), Integer(10000))", "u1 <= 10000"},
    {"LessThan(Symbol('u2', integer=True), Integer(10000))", "u2 <= 10000"},
    {"Mul(Integer(20), Symbol('s77', positive=True, integer=True))", "20*s77"},
    {"Mul(Integer(40), Symbol('s77', positive=True, integer=True))", "40*s77"},
    {"Mul(Integer(5), Symbol('s77', positive=True, integer=True))", "5*s77"},
    {"Symbol('s77', positive=True, integer=True)", "s77"},
    {"Symbol('u0', integer=True)", "u0"},
    {"Symbol('u1', integer=True)", "u1"},
    {"Symbol('u2', integer=True)", "u2"},
    {"s77", "s77"},
    {"u0", "u0"},
    {"u1", "u1"},
    {"u2", "u2"},
    /* from "Runtime assertion failed for expression ... on node ..." */
    {"u0 <= 1000", "u0 <= 1000"},
    {"u0 <= 10000", "u0 <= 10000"},
    {"u0 <= 300", "u0 <= 300"},
    {"u0 >= 0", "u0 >= 0"},
    {"u1 <= 10000", "u1 <= 10000"},
    {"u1 >= 0", "u1 >= 0"},
    {"u2 <= 10000", "u2 <= 10000"},
    {"u2 >= 0", "u2 >= 0"},
};

START_TEST(test_corpus_table)
{
    for (size_t i = 0; i < sizeof corpus_exprs / sizeof corpus_exprs[0]; i++) {
        char *s = roundtrip(corpus_exprs[i].text);
        ck_assert_msg(strcmp(s, corpus_exprs[i].printed) == 0, "\"%s\" printed \"%s\", expected \"%s\"",
                      corpus_exprs[i].text, s, corpus_exprs[i].printed);
        free(s);
    }
    /* the srepr and str forms of one expression mean the same thing */
    SymValue a, b;
    ck_assert_int_eq(eval_text("Add(Symbol('u0', integer=True), Integer(2300))", "u0=7", &a, NULL), SYM_OK);
    ck_assert_int_eq(eval_text("u0 + 2300", "u0=7", &b, NULL), SYM_OK);
    ck_assert(a.kind == SYMV_INT && b.kind == SYMV_INT && a.i == 2307 && b.i == 2307);
    ck_assert_int_eq(eval_text("LessThan(Symbol('u0', integer=True), Integer(300))", "u0=301", &a, NULL), SYM_OK);
    ck_assert(a.kind == SYMV_BOOL && !a.b);
}
END_TEST

/* A JSON string literal at *p (just past its opening quote) into out;
** the corpus strings are ASCII, other \u escapes become '?'. */
static const char *json_string(const char *p, char *out, size_t cap)
{
    size_t n = 0;
    while (*p && *p != '"') {
        char c = *p++;
        if (c == '\\' && *p) {
            char esc = *p++;
            c = esc == 'n' ? '\n' : esc == 't' ? '\t' : esc;
            if (esc == 'u') {
                unsigned code = 0;
                for (int i = 0; i < 4 && isxdigit((unsigned char)*p); i++, p++)
                    code = code * 16 + (unsigned)(isdigit((unsigned char)*p) ? *p - '0' : (tolower(*p) - 'a' + 10));
                c = code < 128 ? (char)code : '?';
            }
        }
        if (n + 1 < cap)
            out[n++] = c;
    }
    out[n] = '\0';
    return *p == '"' ? p + 1 : p;
}

static int check_corpus_text(const char *text, const char *where)
{
    char err[256];
    SymExpr *e = sym_parse(text, err, sizeof err);
    ck_assert_msg(e != NULL, "%s: \"%s\" does not parse: %s", where, text, err);
    sym_free(e);
    free(roundtrip(text));
    return 1;
}

/* Every expr_str, range_constraints key and assertion expression of one
** program's JSON text. */
static int scan_json(const char *json, const char *where)
{
    int n = 0;
    char buf[4096];
    for (const char *p = json; (p = strstr(p, "\"expr_str\"")) != NULL;) {
        p += strlen("\"expr_str\"");
        while (*p == ' ' || *p == ':')
            p++;
        if (*p++ != '"')
            continue;
        p = json_string(p, buf, sizeof buf);
        n += check_corpus_text(buf, where);
    }
    for (const char *p = json; (p = strstr(p, "\"range_constraints\"")) != NULL;) {
        p += strlen("\"range_constraints\"");
        while (*p == ' ' || *p == ':')
            p++;
        if (*p++ != '{')
            continue;
        for (;;) {
            while (isspace((unsigned char)*p) || *p == ',')
                p++;
            if (*p != '"')
                break;
            p = json_string(p + 1, buf, sizeof buf);
            n += check_corpus_text(buf, where);
            while (*p && *p != '{')
                p++;
            int depth = 0; /* the {min_val, max_val} value holds no strings */
            do {
                depth += *p == '{';
                depth -= *p == '}';
                p++;
            } while (*p && depth > 0);
        }
    }
    const char *marker = "Runtime assertion failed for expression ";
    for (const char *p = json; (p = strstr(p, marker)) != NULL;) {
        p += strlen(marker);
        const char *end = strstr(p, " on node");
        if (!end || (size_t)(end - p) >= sizeof buf)
            continue;
        memcpy(buf, p, (size_t)(end - p));
        buf[end - p] = '\0';
        n += check_corpus_text(buf, where);
    }
    return n;
}

static int scan_archive(const char *path)
{
    int err = 0, n = 0;
    zip_t *z = zip_open(path, ZIP_RDONLY, &err);
    if (!z)
        return 0; /* not a zip: the corpus README, the .ref folders */
    zip_int64_t entries = zip_get_num_entries(z, 0);
    for (zip_int64_t i = 0; i < entries; i++) {
        const char *name = zip_get_name(z, (zip_uint64_t)i, 0);
        if (!name || !(strstr(name, "serialized_exported_program.json") ||
                       (strstr(name, "models/") && strstr(name, ".json"))))
            continue;
        zip_stat_t st;
        if (zip_stat_index(z, (zip_uint64_t)i, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
            continue;
        char *text = malloc(st.size + 1);
        zip_file_t *f = zip_fopen_index(z, (zip_uint64_t)i, 0);
        zip_int64_t got = f ? zip_fread(f, text, st.size) : -1;
        if (f)
            zip_fclose(f);
        if (got == (zip_int64_t)st.size) {
            text[st.size] = '\0';
            n += scan_json(text, path);
        }
        free(text);
    }
    zip_close(z);
    return n;
}

START_TEST(test_corpus_expressions_parse)
{
    const char *dir = test_corpus_dir();
    if (!dir)
        return; /* no corpus checked out: the table above still runs */
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.' || strstr(de->d_name, ".ref") || strstr(de->d_name, ".md"))
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        n += scan_archive(path);
    }
    closedir(d);
    ck_assert_msg(n >= 30, "only %d expressions found in the corpus", n);
}
END_TEST

/* ---- parsing and printing ---------------------------------------------------------- */

static const struct {
    const char *text, *printed;
} print_cases[] = {
    /* SymPy's own str() output reads back to itself */
    {"2*s0 + 1", "2*s0 + 1"},
    {"s0 + 1", "s0 + 1"},
    {"-s0 + s1", "-s0 + s1"},
    {"-s0 - s1 + 2", "-s0 - s1 + 2"},
    {"3*s0 - 2", "3*s0 - 2"},
    {"s0*s1 + s0 + 1", "s0*s1 + s0 + 1"},
    {"s0**2 + s0", "s0**2 + s0"},
    {"s0/2", "s0/2"},
    {"3*s0/2", "3*s0/2"},
    {"-s0/2", "-s0/2"},
    {"s0/(2*s1)", "s0/(2*s1)"},
    {"s0/(s1 + 1)", "s0/(s1 + 1)"},
    {"s0**(-2)", "s0**(-2)"},
    {"1/s0", "1/s0"},
    {"s0/2 + 1/2", "s0/2 + 1/2"},
    {"s0 - 1/2", "s0 - 1/2"},
    {"(s0 + 1)*(s1 + 2)", "(s0 + 1)*(s1 + 2)"},
    {"s1*(-s0 - 1)", "s1*(-s0 - 1)"},
    {"(s0 + 1)**2", "(s0 + 1)**2"},
    {"(-2)**s0", "(-2)**s0"},
    {"2**s0", "2**s0"},
    {"Max(2, s0)", "Max(2, s0)"},
    {"Max(2, s0) + 1", "Max(2, s0) + 1"},
    {"Min(s0, s1)", "Min(s0, s1)"},
    {"Mod(s0, 2)", "Mod(s0, 2)"},
    {"(s0//2)", "(s0//2)"},
    {"((s0 + 1)//2)", "((s0 + 1)//2)"},
    {"floor(s0/2)", "floor(s0/2)"},
    {"Eq(s0, 3)", "Eq(s0, 3)"},
    {"Ne(u0, 0)", "Ne(u0, 0)"},
    {"Eq(s0 + 1, 3)", "Eq(s0 + 1, 3)"},
    {"s0 >= 2", "s0 >= 2"},
    {"u0 < 10", "u0 < 10"},
    {"s0 + 1 >= 2", "s0 + 1 >= 2"},
    {"(s0 > 2) & (s1 < 3)", "(s0 > 2) & (s1 < 3)"},
    {"(s0 > 2) | Eq(s1, 3)", "(s0 > 2) | Eq(s1, 3)"},
    {"~(s0 > 2)", "~(s0 > 2)"},
    {"True", "True"},
    {"False", "False"},
    {"0.1*s0", "0.1*s0"},
    {"1.0e+20*s0", "1e+20*s0"},
    {"1.50000000000000", "1.5"},
    {"oo", "oo"},
    {"-oo", "-oo"},
    {"int_oo", "int_oo"},
    {"-int_oo", "-int_oo"},
    {"2*(Mod(s0, 2))", "2*Mod(s0, 2)"},
    {"Piecewise((1, s0 > 2), (0, True))", "Piecewise((1, s0 > 2), (0, True))"},
    {"ModularIndexing(s0, 1, 64)", "ModularIndexing(s0, 1, 64)"},
    {"CeilToInt(IntTrueDiv(s0, 2))", "CeilToInt(IntTrueDiv(s0, 2))"},
    {"Where(Eq(s0, 1), 1, s0)", "Where(Eq(s0, 1), 1, s0)"},
    /* Python operator forms, normalized */
    {"1 - s0", "-s0 + 1"},
    {"s0 // 2", "(s0//2)"},
    {"s0 % 2", "Mod(s0, 2)"},
    {"s0 == 3", "Eq(s0, 3)"},
    {"s0 != 3", "Ne(s0, 3)"},
    {"s0*2", "2*s0"},
    {"s0 + 1 + 2", "s0 + 3"},
    {"s0 - 0", "s0"},
    {"1*s0", "s0"},
    {"2*3*s0", "6*s0"},
    {"--s0", "s0"},
    {"+s0", "s0"},
    {"-(s0 + 1)", "-(s0 + 1)"},
    {"-2**2", "-4"},
    {"2**-1", "1/2"},
    {"2**3**2", "512"},
    {"(s0)", "s0"},
    {"  s0   +1 ", "s0 + 1"},
    {"s0 - -3", "s0 + 3"},
    {"s0 + -1", "s0 - 1"},
    {"-9223372036854775808", "-9223372036854775808"},
    {"s0 & s1 | s2", "s0 & s1 | s2"},
    {"s0 & (s1 | s2)", "s0 & (s1 | s2)"},
    {"Xor(s0 > 1, s1 > 1)", "Xor(s0 > 1, s1 > 1)"},
    {"2.5e3", "2500.0"},
    {"1e-7", "1e-07"},
    /* srepr */
    {"Add(Mul(Integer(2), Symbol('s0', integer=True, positive=True)), Integer(1))", "2*s0 + 1"},
    {"Add(Integer(1), Mul(Integer(-1), Symbol('s0', integer=True, positive=True)))", "-s0 + 1"},
    {"Mul(Rational(1, 2), Symbol('s0'))", "s0/2"},
    {"Mul(Rational(-3, 2), Symbol('s0'))", "-3*s0/2"},
    {"Pow(Symbol('s0'), Integer(-1))", "1/s0"},
    {"Pow(Symbol('s0'), Integer(2))", "s0**2"},
    {"Mul(Symbol('s0'), Pow(Add(Symbol('s1'), Integer(1)), Integer(-1)))", "s0/(s1 + 1)"},
    {"FloorDiv(Symbol('s0', integer=True, positive=True), Integer(2))", "(s0//2)"},
    {"CleanDiv(Symbol('s0'), Integer(4))", "CleanDiv(s0, 4)"},
    {"Max(Integer(2), Symbol('s0'))", "Max(2, s0)"},
    {"Equality(Symbol('s0'), Integer(3))", "Eq(s0, 3)"},
    {"Unequality(Symbol('s0'), Integer(3))", "Ne(s0, 3)"},
    {"StrictLessThan(Symbol('u0'), Integer(10))", "u0 < 10"},
    {"LessThan(Symbol('u0'), Integer(10))", "u0 <= 10"},
    {"StrictGreaterThan(Symbol('u0'), Integer(10))", "u0 > 10"},
    {"GreaterThan(Symbol('u0'), Integer(10))", "u0 >= 10"},
    {"And(GreaterThan(Symbol('s0'), Integer(2)), LessThan(Symbol('s0'), Integer(9)))", "(s0 >= 2) & (s0 <= 9)"},
    {"Or(Equality(Symbol('s0'), Integer(2)), Not(Symbol('b0')))", "Eq(s0, 2) | ~b0"},
    {"Integer(-3)", "-3"},
    {"Rational(6, 4)", "3/2"},
    {"Rational(4, 2)", "2"},
    {"Float('1.5', precision=53)", "1.5"},
    {"Float('0.10000000000000001', precision=53)", "0.1"},
    {"true", "True"},
    {"false", "False"},
    {"BooleanTrue()", "True"},
    {"Infinity()", "oo"},
    {"NegativeInfinity()", "-oo"},
    {"IntInfinity()", "int_oo"},
    {"NegativeIntInfinity()", "-int_oo"},
    {"Zero()", "0"},
    {"One()", "1"},
    {"NegativeOne()", "-1"},
    {"Half()", "1/2"},
    {"Dummy('d0')", "d0"},
    {"Piecewise(ExprCondPair(Integer(1), StrictGreaterThan(Symbol('s0'), Integer(2))), ExprCondPair(Integer(0), true))",
     "Piecewise((1, s0 > 2), (0, True))"},
    {"Mod(Add(Symbol('s0'), Integer(-1)), Min(Symbol('s0'), Symbol('s1')))", "Mod(s0 - 1, Min(s0, s1))"},
    {"Symbol(\"zf0\", real=True)", "zf0"},
};

START_TEST(test_print_forms)
{
    for (size_t i = 0; i < sizeof print_cases / sizeof print_cases[0]; i++) {
        char *s = roundtrip(print_cases[i].text);
        ck_assert_msg(strcmp(s, print_cases[i].printed) == 0, "\"%s\" printed \"%s\", expected \"%s\"",
                      print_cases[i].text, s, print_cases[i].printed);
        free(s);
    }
}
END_TEST

/* Shapes the canonicalization and the printer must agree on: each must
** print to a text that parses back to the same text. */
static const char *const roundtrip_cases[] = {
    "s0/s1/s2", "s0/(s1*s2)", "3/(s1/s0)", "s0/(1/s1)", "(3/s1)/(s1**-1)", "1/(2*s0)", "-1/(s0*s1)",
    "s0*s1**-2", "s0/s1**2", "(1/(49*Abs(-6)))**3", "((6)**(-3)/s1)**(-3)", "s0/(-2)/0",
    "Mod(s1**(-3), 9*s1)*0**(-2)", "(-((0)**(-2)))**(3)", "-Min(s0, 7)/(4*Abs(s0)**(-2))",
    "x/12/(-s1)", "s0/2/(s1 + 1)/s2", "Max(s0, s1)**(-3) - ((Max(s0, s0)/88)//Max(s1, 4))",
    "s0 + -9223372036854775808*s0", "(-9223372036854775808)**s0", "s0 - 9223372036854775807 - 1",
    "1/0", "0**-1", "s0/0", "2**64", "2**-100", "(-1.5)*s0", "-0.0", "nan", "1e+300*s0",
    "Abs(s0)**(1/2)", "s0**(-1/2)", "((s0 > 1) | (s1 > 1)) & ~(s2 > 1)", "(s0 < 1) < 2",
    "Eq(s0 > 1, True)", "-(s0//2)", "(-s0//2)", "-s0**2", "(-s0)**2", "2*s0**-1",
    "IsNonOverlappingAndDenseIndicator(s0, 3, 3, 1)", "Identity(s0 + 1)*2", "-oo + s0", "s0 - oo",
    ".0 *-d10", "-(1.5*s0)", "-(oo*s0)", "-s0*1.5", "s0 - 1.5*s1",
};

START_TEST(test_roundtrip_shapes)
{
    for (size_t i = 0; i < sizeof roundtrip_cases / sizeof roundtrip_cases[0]; i++)
        free(roundtrip(roundtrip_cases[i]));
}
END_TEST

/* Printing keeps the value: evaluate before and after. */
START_TEST(test_roundtrip_values)
{
    static const char *const exprs[] = {
        "s0/(2*s1) + 3*s0/2", "(s0 - s1)**3/(s1 + 7)", "Mod(-s0, s1) - (s0//s1)*s1", "1/(2*s0)/s1",
        "-s0/(s1*(s0 + 1))", "Max(s0/3, s1)", "floor(-s0/s1)", "(s1/s0)**(-2)",
    };
    SymBindings b;
    sym_bindings_init(&b);
    bind_all(&b, "s0=5,s1=-3");
    for (size_t i = 0; i < sizeof exprs / sizeof exprs[0]; i++) {
        SymExpr *e = parse_ok(exprs[i]);
        char *s = sym_to_string(e);
        SymExpr *e2 = parse_ok(s);
        SymValue v1, v2;
        ck_assert_int_eq(sym_eval(e, &b, &v1, NULL), SYM_OK);
        ck_assert_int_eq(sym_eval(e2, &b, &v2, NULL), SYM_OK);
        ck_assert_msg(v1.kind == v2.kind && v1.i == v2.i && v1.f == v2.f, "%s vs %s", exprs[i], s);
        free(s);
        sym_free(e);
        sym_free(e2);
    }
    sym_bindings_free(&b);
}
END_TEST

/* ---- evaluation --------------------------------------------------------------------- */

typedef struct EvalCase {
    const char *text, *binds;
    SymValueKind kind;
    int64_t i;  /* SYMV_INT, or SYMV_BOOL as 0/1 */
    double f;   /* SYMV_FLOAT */
} EvalCase;

#define I(text, binds, v) {text, binds, SYMV_INT, v, 0}
#define F(text, binds, v) {text, binds, SYMV_FLOAT, 0, v}
#define B(text, binds, v) {text, binds, SYMV_BOOL, v, 0}

static const EvalCase eval_cases[] = {
    I("2*s0 + 1", "s0=4", 9),
    I("s0*s1 - s0", "s0=5,s1=-3", -20),
    /* Python's // and % round toward -inf; C's / and % truncate */
    I("-7 // 2", "", -4),
    I("7 // -2", "", -4),
    I("-7 // -2", "", 3),
    I("s0 // s1", "s0=-7,s1=2", -4),
    I("FloorDiv(s0, 2)", "s0=-1", -1),
    I("(s0//4)", "s0=-4", -1),
    I("-7 % 2", "", 1),
    I("7 % -2", "", -1),
    I("-7 % -2", "", -1),
    I("Mod(s0, 3)", "s0=-7", 2),
    I("PythonMod(s0, -3)", "s0=7", -2),
    I("Mod(s0, s1)", "s0=-9223372036854775807,s1=-1", 0),
    I("CleanDiv(s0, 4)", "s0=12", 3),
    I("CeilDiv(s0, 2)", "s0=7", 4),
    I("CeilDiv(s0, 2)", "s0=-7", -3),
    I("CeilDiv(s0, 4)", "s0=8", 2),
    I("CeilDiv(5, -2)", "", -1), /* PyTorch: FloorDiv(5 + (-2 - 1), -2) */
    I("ModularIndexing(s0, 2, 4)", "s0=13", 2),
    I("ModularIndexing(s0, 1, 4)", "s0=-5", 3),
    I("ModularIndexing(0, 0, 4)", "", 0), /* PyTorch answers before dividing */
    I("Max(2, s0)", "s0=5", 5),
    I("Max(2, s0)", "s0=1", 2),
    I("Min(s0, s1, 0)", "s0=5,s1=-3", -3),
    I("Max(s0, Min(s1, 4)) + Min(-s0, -s1)", "s0=2,s1=9", -5),
    I("Abs(s0)", "s0=-6", 6),
    I("Where(s0 > 2, 10, 20)", "s0=3", 10),
    I("Where(s0 > 2, 10, 20)", "s0=2", 20),
    I("Piecewise((1, s0 > 2), (0, True))", "s0=5", 1),
    I("Piecewise((1, s0 > 2), (0, True))", "s0=2", 0),
    I("floor(7/2)", "", 3),
    I("floor(s0/2)", "s0=-7", -4),
    I("ceiling(-7/2)", "", -3),
    I("CeilToInt(2.5)", "", 3),
    I("FloorToInt(-2.5)", "", -3),
    I("TruncToInt(-2.5)", "", -2),
    I("TruncToInt(s0/2)", "s0=-7", -3),
    I("RoundToInt(2.5)", "", 2), /* half to even, like Python's round */
    I("RoundToInt(3.5)", "", 4),
    I("RoundToInt(-2.5)", "", -2),
    I("RoundToInt(s0/2)", "s0=5", 2),
    I("RoundToInt(s0/2)", "s0=7", 4),
    I("sqrt(16)", "", 4),
    I("4*s0**-1", "s0=2", 2), /* 4 * (1/2): exact rationals, not floats */
    I("(s0/3)*3", "s0=7", 7),
    I("s0**2", "s0=-3", 9),
    I("PowByNatural(s0, 3)", "s0=-2", -8),
    I("LShift(3, 2)", "", 12),
    I("RShift(-7, 1)", "", -4),
    I("RShift(-7, 100)", "", -1),
    I("BitwiseFn_bitwise_and(6, 3)", "", 2),
    I("BitwiseFn_bitwise_or(6, 3)", "", 7),
    I("BitwiseFn_bitwise_xor(6, 3)", "", 5),
    B("BitwiseFn_bitwise_xor(True, s0 > 1)", "s0=2", 0),
    I("Identity(s0)", "s0=8", 8),
    I("IsNonOverlappingAndDenseIndicator(2, 3, 3, 1)", "", 1), /* contiguous */
    I("IsNonOverlappingAndDenseIndicator(2, 3, 1, 2)", "", 1), /* transposed */
    I("IsNonOverlappingAndDenseIndicator(2, 3, 1, 1)", "", 0), /* overlapping */
    I("IsNonOverlappingAndDenseIndicator(2, 3, 6, 1)", "", 0), /* gaps */
    I("IsNonOverlappingAndDenseIndicator(1, 3, 7, 1)", "", 1), /* size-1 dims don't count */
    I("IsNonOverlappingAndDenseIndicator(5, 2)", "", 0),
    I("IsNonOverlappingAndDenseIndicator(1, 7)", "", 1),
    I("Add(Mul(Integer(2), Symbol('s0', integer=True, positive=True)), Integer(1))", "s0=4", 9),
    I("FloorDiv(Add(Symbol('s0'), Integer(-9)), Integer(2))", "s0=4", -3),
    I("Mod(Mul(Integer(-3), Symbol('s0')), Max(Integer(4), Symbol('s1')))", "s0=3,s1=2", 3),
    I("Mul(Rational(1, 2), Add(Symbol('s0'), Integer(1)))", "s0=5", 3),
    I("Pow(Integer(2), Integer(10))", "", 1024),
    I("9223372036854775807", "", INT64_MAX),
    I("-9223372036854775808", "", INT64_MIN),
    I("s0 - 1", "s0=-9223372036854775807", INT64_MIN),
    F("IntTrueDiv(s0, 2)", "s0=7", 3.5),
    F("IntTrueDiv(1187039413221620805, 394027974812)", "", 3012576.4897479303), /* correctly rounded */
    F("IntTrueDiv(9007199254740993, 1)", "", 9007199254740992.0),
    F("FloatTrueDiv(1, 4)", "", 0.25),
    F("ToFloat(s0)", "s0=5", 5.0),
    F("TruncToFloat(-2.7)", "", -2.0),
    F("s0/2", "s0=5", 2.5), /* Rational(5, 2): SymValue has no rationals */
    F("2**-2", "", 0.25),
    F("s0**-1", "s0=4", 0.25),
    F("1.5*s0", "s0=3", 4.5),
    F("sqrt(2)", "", 1.4142135623730951),
    F("FloatPow(2, 0.5)", "", 1.4142135623730951),
    F("RoundDecimal(2.675, 2)", "", 2.67),
    F("RoundDecimal(1234.5, -2)", "", 1200.0),
    F("OpaqueUnaryFn_sqrt(9)", "", 3.0),
    F("OpaqueUnaryFn_exp(0)", "", 1.0),
    F("7.5 // 2", "", 3.0),
    F("-7.5 % 2", "", 0.5),
    F("oo", "", INFINITY),
    F("-oo", "", -INFINITY),
    F("Max(s0, oo)", "s0=3", INFINITY),
    F("Float('1.5', precision=53) + s0", "s0=1", 2.5),
    B("s0 >= 2", "s0=2", 1),
    B("s0 > 2", "s0=2", 0),
    B("Eq(s0, 3)", "s0=3", 1),
    B("Ne(s0, 3)", "s0=3", 0),
    B("Eq(s0, 2.0)", "s0=2", 1),
    B("Eq(True, 1)", "", 0),
    B("Eq(s0/2, 2.5)", "s0=5", 1),
    B("s0/3 < 1/3", "s0=1", 0),
    B("(s0 > 2) & (s1 < 3)", "s0=5,s1=-3", 1),
    B("(s0 > 2) | (s1 > 3)", "s0=1,s1=-3", 0),
    B("~(s0 > 2)", "s0=1", 1),
    B("Xor(True, True, True)", "", 1),
    B("True", "", 1),
    B("u0 < oo", "u0=5", 1),
    B("GreaterThan(Symbol('u0', integer=True), Integer(0))", "u0=0", 1),
    B("And(GreaterThan(Symbol('s0'), Integer(2)), LessThan(Symbol('s0'), Integer(9)))", "s0=10", 0),
};

START_TEST(test_eval_values)
{
    for (size_t k = 0; k < sizeof eval_cases / sizeof eval_cases[0]; k++) {
        const EvalCase *c = &eval_cases[k];
        SymValue v;
        const char *unbound;
        SymStatus st = eval_text(c->text, c->binds, &v, &unbound);
        ck_assert_msg(st == SYM_OK, "%s [%s]: status %d (unbound %s)", c->text, c->binds, st, unbound);
        ck_assert_msg(v.kind == c->kind, "%s [%s]: kind %d, expected %d", c->text, c->binds, v.kind, c->kind);
        if (c->kind == SYMV_INT)
            ck_assert_msg(v.i == c->i, "%s [%s] = %" PRId64 ", expected %" PRId64, c->text, c->binds, v.i, c->i);
        else if (c->kind == SYMV_BOOL)
            ck_assert_msg(v.b == (c->i != 0), "%s [%s] = %d", c->text, c->binds, v.b);
        else
            ck_assert_msg(v.f == c->f, "%s [%s] = %.17g, expected %.17g", c->text, c->binds, v.f, c->f);
    }
}
END_TEST

START_TEST(test_eval_errors)
{
    static const struct {
        const char *text, *binds;
    } domain[] = {
        {"1 // 0", ""}, {"s0 // s1", "s0=1,s1=0"}, {"Mod(s0, 0)", "s0=3"}, {"s0 % s1", "s0=3,s1=0"},
        {"1/0", ""}, {"s0/s1", "s0=3,s1=0"}, {"0**-1", ""}, {"s0**-1", "s0=0"}, {"IntTrueDiv(1, 0)", ""},
        {"FloatTrueDiv(s0, 0)", "s0=1"}, {"CeilDiv(s0, 0)", "s0=1"}, {"CleanDiv(0, 0)", ""},
        {"ModularIndexing(s0, 0, 3)", "s0=5"}, {"RShift(1, -1)", ""}, {"LShift(1, 63)", ""},
        {"9223372036854775807 + s0", "s0=1"}, {"s0*s0", "s0=4294967296"}, {"2**64", ""},
        {"PowByNatural(2, 63)", ""}, {"s0 // -1", "s0=-9223372036854775808"}, {"Abs(s0)", "s0=-9223372036854775808"},
        {"-s0", "s0=-9223372036854775808"}, {"oo - oo", ""}, {"0*oo", ""}, {"nan < 1", ""},
        {"True + 1", ""}, {"s0 > True", "s0=1"}, {"And(1, True)", ""}, {"Where(1, 2, 3)", ""},
        {"Where(s0 > 0, 1, 1 // 0)", "s0=1"}, /* SymPy evaluates every argument */
        {"Piecewise((1, s0 > 2))", "s0=1"}, {"sqrt(-4)", ""}, {"(-8)**(1/3)", ""},
        {"OpaqueUnaryFn_log(0)", ""}, {"OpaqueUnaryFn_sqrt(-1)", ""}, {"FloorToInt(1e300)", ""},
        {"IsNonOverlappingAndDenseIndicator(2, 1.5)", ""}, {"1**oo", ""},
    };
    for (size_t k = 0; k < sizeof domain / sizeof domain[0]; k++) {
        SymValue v;
        SymStatus st = eval_text(domain[k].text, domain[k].binds, &v, NULL);
        ck_assert_msg(st == SYM_DOMAIN, "%s [%s]: status %d, expected SYM_DOMAIN", domain[k].text, domain[k].binds,
                      st);
    }
    SymValue v;
    const char *unbound;
    ck_assert_int_eq(eval_text("2*s0 + s1", "s0=1", &v, &unbound), SYM_UNBOUND);
    ck_assert_str_eq(unbound, "s1");
    ck_assert_int_eq(eval_text("Max(u3, 2)", "", &v, &unbound), SYM_UNBOUND);
    ck_assert_str_eq(unbound, "u3");
    /* NULL bindings and NULL unbound are allowed */
    SymExpr *e = parse_ok("s0 + 1");
    ck_assert_int_eq(sym_eval(e, NULL, &v, NULL), SYM_UNBOUND);
    sym_free(e);
    ck_assert_int_eq(sym_eval(NULL, NULL, &v, NULL), SYM_DOMAIN);
}
END_TEST

/* ---- sym_match: the input guards ------------------------------------------------------- */

static int match_text(const char *text, SymBindings *b, int64_t actual, char *why, size_t cap)
{
    SymExpr *e = parse_ok(text);
    int r = sym_match(e, b, actual, why, cap);
    sym_free(e);
    return r;
}

static int64_t bound(const SymBindings *b, const char *name)
{
    int64_t v = -12345;
    ck_assert_msg(sym_bindings_get(b, name, &v), "%s is not bound", name);
    return v;
}

START_TEST(test_match_bind_and_compare)
{
    SymBindings b;
    char why[256];
    sym_bindings_init(&b);
    /* first sight binds, later sights compare */
    ck_assert_int_eq(match_text("s0", &b, 5, why, sizeof why), 1);
    ck_assert_int_eq(bound(&b, "s0"), 5);
    ck_assert_int_eq(match_text("s0", &b, 5, why, sizeof why), 1);
    ck_assert_int_eq(match_text("s0", &b, 6, why, sizeof why), 0);
    ck_assert_str_eq(why, "s0 = 5 from an earlier input, not 6");
    ck_assert_int_eq(bound(&b, "s0"), 5);
    /* the srepr form binds the same symbol */
    ck_assert_int_eq(match_text("Symbol('s0', integer=True, positive=True)", &b, 5, why, sizeof why), 1);
    /* a bare symbol binds even to 0 or 1 (PyTorch's shortcut, no solve) */
    ck_assert_int_eq(match_text("s1", &b, 0, why, sizeof why), 1);
    ck_assert_int_eq(bound(&b, "s1"), 0);
    /* static sizes */
    ck_assert_int_eq(match_text("8", &b, 8, why, sizeof why), 1);
    ck_assert_int_eq(match_text("8", &b, 7, why, sizeof why), 0);
    ck_assert_str_eq(why, "expected 8, got 7");
    sym_bindings_free(&b);
}
END_TEST

START_TEST(test_match_linear)
{
    SymBindings b;
    char why[256];
    sym_bindings_init(&b);
    ck_assert_int_eq(match_text("2*s0 + 1", &b, 9, why, sizeof why), 1);
    ck_assert_int_eq(bound(&b, "s0"), 4);
    sym_bindings_clear(&b);
    ck_assert_int_eq(match_text("2*s0 + 1", &b, 8, why, sizeof why), 0);
    ck_assert_msg(strstr(why, "8 is not of the form 2*s0 + 1 for an integer s0") != NULL, "why: %s", why);
    ck_assert(!sym_bindings_get(&b, "s0", &(int64_t){0}));
    /* once bound, the expression is checked with the binding */
    ck_assert_int_eq(match_text("s0", &b, 4, why, sizeof why), 1);
    ck_assert_int_eq(match_text("2*s0", &b, 8, why, sizeof why), 1);
    ck_assert_int_eq(match_text("2*s0", &b, 7, why, sizeof why), 0);
    ck_assert_str_eq(why, "s0 = 4 from an earlier input, so 2*s0 = 8, not 7");
    /* negative and rational coefficients, srepr */
    sym_bindings_clear(&b);
    ck_assert_int_eq(match_text("-s0 + 10", &b, 3, why, sizeof why), 1);
    ck_assert_int_eq(bound(&b, "s0"), 7);
    ck_assert_int_eq(match_text("s1/2 + 1/2", &b, 3, why, sizeof why), 1);
    ck_assert_int_eq(bound(&b, "s1"), 5);
    ck_assert_int_eq(match_text("Mul(Integer(20), Symbol('s77', positive=True, integer=True))", &b, 100, why,
                                sizeof why), 1);
    ck_assert_int_eq(bound(&b, "s77"), 5);
    ck_assert_int_eq(match_text("Add(Symbol('u0', integer=True), Integer(2300))", &b, 2301, why, sizeof why), 1);
    ck_assert_int_eq(bound(&b, "u0"), 1);
    ck_assert_int_eq(match_text("Mul(Integer(40), Symbol('s9'))", &b, 30, why, sizeof why), 0);
    ck_assert_msg(strstr(why, "40*s9") != NULL, "why: %s", why);
    /* the other symbols known: s2 + s1 with s1 = 5 solves for s2 */
    ck_assert_int_eq(match_text("s2 + s1", &b, 12, why, sizeof why), 1);
    ck_assert_int_eq(bound(&b, "s2"), 7);
    ck_assert_int_eq(match_text("3*(s3 - 1)", &b, 12, why, sizeof why), 1);
    ck_assert_int_eq(bound(&b, "s3"), 5);
    sym_bindings_free(&b);
}
END_TEST

START_TEST(test_match_conflicts)
{
    SymBindings b;
    char why[256];
    sym_bindings_init(&b);
    /* x: [s0, s0 + 1] against shapes (5, 7): the second dimension conflicts */
    ck_assert_int_eq(match_text("s0", &b, 5, why, sizeof why), 1);
    ck_assert_int_eq(match_text("s0 + 1", &b, 7, why, sizeof why), 0);
    ck_assert_str_eq(why, "s0 = 5 from an earlier input, so s0 + 1 = 6, not 7");
    /* a solved symbol conflicts just the same later */
    ck_assert_int_eq(match_text("2*s1", &b, 6, why, sizeof why), 1);
    ck_assert_int_eq(match_text("s1", &b, 4, why, sizeof why), 0);
    ck_assert_str_eq(why, "s1 = 3 from an earlier input, not 4");
    ck_assert_int_eq(match_text("s0*s1", &b, 14, why, sizeof why), 0);
    ck_assert_str_eq(why, "s0 = 5, s1 = 3 from earlier inputs, so s0*s1 = 15, not 14");
    ck_assert_int_eq(match_text("s0*s1", &b, 15, why, sizeof why), 1);
    /* a condition is not a size; an error in evaluation is a mismatch */
    ck_assert_int_eq(match_text("s0 > 2", &b, 1, why, sizeof why), 0);
    ck_assert_msg(strstr(why, "condition") != NULL, "why: %s", why);
    ck_assert_int_eq(match_text("s0 // (s1 - 3)", &b, 1, why, sizeof why), 0);
    ck_assert_msg(strstr(why, "cannot be evaluated") != NULL, "why: %s", why);
    /* why may be NULL */
    ck_assert_int_eq(match_text("s0", &b, 9, NULL, 0), 0);
    ck_assert_int_eq(match_text("s0", &b, 5, NULL, 0), 1);
    sym_bindings_free(&b);
}
END_TEST

START_TEST(test_match_undecidable)
{
    SymBindings b;
    char why[256];
    sym_bindings_init(&b);
    static const char *const undecidable[] = {
        "s0*s1", "s0 + s1", "Max(2, s0)", "s0**2", "(s0//2)", "Mod(s0, 4)", "s0*s0", "1/s0", "2**s0",
        "Min(s0, 8) + 1",
    };
    for (size_t i = 0; i < sizeof undecidable / sizeof undecidable[0]; i++) {
        ck_assert_msg(match_text(undecidable[i], &b, 8, why, sizeof why) == -1, "%s decided", undecidable[i]);
        ck_assert_msg(why[0] != '\0', "%s: no reason", undecidable[i]);
        ck_assert_int_eq(b.n, 0); /* nothing learned */
    }
    ck_assert_int_eq(match_text("s0*s1", &b, 8, why, sizeof why), -1);
    ck_assert_str_eq(why, "cannot decide s0*s1 = 8: s0 and s1 are both unknown");
    ck_assert_int_eq(match_text("Max(2, s0)", &b, 8, why, sizeof why), -1);
    ck_assert_str_eq(why, "cannot solve Max(2, s0) = 8 for s0 (not linear)");
    /* decidable once the other symbol is known */
    ck_assert_int_eq(match_text("s1", &b, 2, why, sizeof why), 1);
    ck_assert_int_eq(match_text("s0*s1", &b, 8, why, sizeof why), 1);
    ck_assert_int_eq(bound(&b, "s0"), 4);
    ck_assert_int_eq(sym_match(NULL, &b, 1, why, sizeof why), -1);
    sym_bindings_free(&b);
}
END_TEST

/* ---- hostile input --------------------------------------------------------------------------- */

static void expect_error(const char *text, const char *fragment)
{
    char err[256];
    SymExpr *e = sym_parse(text, err, sizeof err);
    ck_assert_msg(e == NULL, "\"%.60s\" parsed", text);
    ck_assert_msg(strstr(err, fragment) != NULL, "\"%.60s\": error \"%s\", expected \"%s\"", text, err, fragment);
}

static char *repeat3(const char *head, int n, const char *mid, const char *tail)
{
    size_t hl = strlen(head), tl = strlen(tail), ml = strlen(mid);
    char *s = malloc((size_t)n * (hl + tl) + ml + 1), *p = s;
    for (int i = 0; i < n; i++, p += hl)
        memcpy(p, head, hl);
    memcpy(p, mid, ml);
    p += ml;
    for (int i = 0; i < n; i++, p += tl)
        memcpy(p, tail, tl);
    *p = '\0';
    return s;
}

START_TEST(test_malformed)
{
    expect_error("(s0", "expected ')' at end of input");
    expect_error("Max(s0, 2", "expected ')' at end of input");
    expect_error("(s0 + 1 x", "expected ')' near 'x'");
    expect_error("s0)", "expected end of input near ')'");
    expect_error("s0 s1", "expected end of input near 's1'");
    expect_error("Foo(s0)", "unknown function 'Foo' near 'Foo'");
    expect_error("sin(s0)", "unknown function 'sin'");
    expect_error("99999999999999999999", "integer too large near '99999999999999999999'");
    expect_error("9223372036854775808", "integer too large");
    expect_error("Integer(18446744073709551616)", "integer too large");
    expect_error("-9223372036854775808**2", "integer too large");
    expect_error("1e999", "number out of range");
    expect_error("9223372036854775807 + 1", "integer overflow near '+'");
    expect_error("s0*4611686018427387904*2", "integer overflow near '*'");
    expect_error("Add(Integer(9223372036854775807), Symbol('s0'), Integer(1))", "integer overflow near 'Add'");
    expect_error("-(-9223372036854775808)", "integer overflow near '-'");
    expect_error("Mod(s0)", "Mod takes 2 arguments, got 1");
    expect_error("Max()", "Max takes at least 1 argument");
    expect_error("Where(s0, 1)", "Where takes 3 arguments");
    expect_error("IsNonOverlappingAndDenseIndicator(1, 2, 3)", "equal numbers");
    expect_error("Max", "expected '(' after 'Max'");
    expect_error("s0 +", "expected an expression at end of input");
    expect_error("", "expected an expression");
    expect_error("   ", "expected an expression");
    expect_error("* s0", "expected an expression near '*'");
    expect_error("s0 $ 2", "unexpected character near '$'");
    expect_error("s0 ^ 2", "unexpected character near '^'");
    expect_error("'abc'", "unexpected string");
    expect_error("Max('a', 1)", "unexpected string");
    expect_error("Symbol('s0", "unterminated string");
    expect_error("Symbol('a\\'b')", "escape sequences");
    expect_error("Symbol('a b')", "bad symbol name");
    expect_error("Symbol('oo')", "bad symbol name");
    expect_error("Symbol('Max')", "bad symbol name");
    expect_error("Symbol('')", "bad symbol name");
    expect_error("Symbol(s0)", "Symbol takes a quoted name");
    expect_error("Symbol()", "Symbol takes 1 argument, got 0");
    expect_error("Integer(1.5)", "Integer takes an integer");
    expect_error("Rational(1, 0)", "zero denominator");
    expect_error("Rational(s0, 2)", "Rational takes integers");
    expect_error("Float('abc')", "bad float");
    expect_error("zoo", "unsupported constant 'zoo'");
    expect_error("pi*s0", "unsupported constant 'pi'");
    expect_error("s0 < 1 < 2", "chained comparison near '<'");
    expect_error("(1, 2)", "pair is not an expression");
    expect_error("Max((1, 2), 3)", "unexpected tuple argument");
    expect_error("(1, 2) + 3", "unexpected tuple operand");
    expect_error("Piecewise(1, 2)", "Piecewise takes (value, condition) pairs");
    expect_error("Symbol('s0', integer=)", "expected an expression near ')'");
    expect_error("s0(3)", "unknown function 's0'");
    expect_error("s0 = 3", "expected end of input near '='");
    expect_error("s0 !x", "unexpected character near '!'");
    /* NULL text, NULL or tiny error buffers */
    char err[8];
    ck_assert_ptr_null(sym_parse(NULL, err, sizeof err));
    ck_assert_ptr_null(sym_parse("(", NULL, 0));
    ck_assert_ptr_null(sym_parse("(", err, sizeof err));
    ck_assert_uint_eq(strlen(err), sizeof err - 1);
    ck_assert_ptr_null(sym_parse("(", err, 1));
    ck_assert_str_eq(err, "");
}
END_TEST

START_TEST(test_deep_nesting)
{
    char *s;
    s = repeat3("(", 10000, "s0", ")");
    expect_error(s, "nested too deeply");
    free(s);
    s = repeat3("Max(", 10000, "s0", ")");
    expect_error(s, "nested too deeply");
    free(s);
    s = repeat3("-", 10000, "s0", "");
    expect_error(s, "nested too deeply");
    free(s);
    s = repeat3("~", 10000, "True", "");
    expect_error(s, "nested too deeply");
    free(s);
    s = repeat3("s0**", 10000, "2", "");
    expect_error(s, "nested too deeply");
    free(s);
    s = repeat3("Add(Integer(1), ", 10000, "Integer(2)", ")");
    expect_error(s, "nested too deeply");
    free(s);
    /* left-associative chains grow the tree without recursing */
    s = malloc(2 + 3 * 10000 + 1);
    char *q = s + sprintf(s, "s0");
    for (int i = 0; i < 10000; i++)
        q += sprintf(q, "//2");
    expect_error(s, "nested too deeply");
    free(s);
    /* modest nesting is fine */
    s = repeat3("(", 150, "s0", ")");
    SymExpr *e = parse_ok(s);
    ck_assert_str_eq(sym_as_symbol(e), "s0");
    sym_free(e);
    free(s);
    s = repeat3("Max(1, ", 100, "s0", ")");
    free(roundtrip(s));
    free(s);
}
END_TEST

/* Long flat expressions: 100000 terms or factors, parsed, printed and
** evaluated in well under the test timeout. */
START_TEST(test_large)
{
    const int n = 100000;
    char *s = malloc((size_t)n * 9 + 1), *p = s;
    for (int i = 0; i < n; i++)
        p += sprintf(p, "%ss%d", i ? "+" : "", i % 50);
    SymExpr *e = parse_ok(s);
    const char *names[100];
    ck_assert_int_eq(sym_symbols(e, names, 100), 50);
    ck_assert_int_eq(sym_symbols(e, names, 10), 50); /* counts past max, stores max */
    ck_assert_str_eq(names[0], "s0");
    ck_assert_str_eq(names[9], "s9");
    SymBindings b;
    sym_bindings_init(&b);
    for (int i = 0; i < 50; i++) {
        char name[16];
        snprintf(name, sizeof name, "s%d", i);
        sym_bindings_set(&b, name, i);
    }
    SymValue v;
    ck_assert_int_eq(sym_eval(e, &b, &v, NULL), SYM_OK);
    ck_assert_int_eq(v.i, (int64_t)(n / 50) * (49 * 50 / 2));
    char *out = sym_to_string(e);
    ck_assert_ptr_nonnull(out);
    free(out);
    sym_free(e);
    p = s;
    for (int i = 0; i < n; i++)
        p += sprintf(p, "%s%s", i ? "*" : "", i % 2 ? "s1" : "-1");
    e = parse_ok(s);
    ck_assert_int_eq(sym_eval(e, &b, &v, NULL), SYM_OK);
    ck_assert_int_eq(v.i, 1);
    sym_free(e);
    /* 100000 distinct names: counted in linear time, none decidable */
    p = s;
    for (int i = 0; i < n; i++)
        p += sprintf(p, "%su%d", i ? "+" : "", i);
    e = parse_ok(s);
    ck_assert_int_eq(sym_symbols(e, names, 100), n);
    char why[256];
    ck_assert_int_eq(sym_match(e, &b, 5, why, sizeof why), -1);
    ck_assert_msg(strncmp(why, "cannot decide u0 + u1 + u2", 26) == 0 && strstr(why, "... = 5: u0 and u1 are both unknown"),
                  "why: %s", why);
    sym_free(e);
    sym_bindings_free(&b);
    free(s);
}
END_TEST

/* Deterministic garbage and mutations of valid text: nothing may crash
** (the asan build watches memory), and whatever parses must print and
** parse back to the same text. */
START_TEST(test_fuzz)
{
    static const char alphabet[] = "s0u1 +-*/%()<>=!~&|,.'\"eE09MaxModIntegerSymbolTrue_";
    static const char *const seeds[] = {
        "Add(Mul(Integer(2), Symbol('s0', integer=True)), Integer(1))", "(s0 > 2) & (s1 < 3)",
        "Max(2, s0)/(s1 + 1) - (s0//2)", "Piecewise((1, s0 > 2), (0, True))", "-3*s0/2 + Mod(s1, 4)**2",
    };
    uint64_t state = 88172645463325252u;
    char buf[128];
    for (int iter = 0; iter < 40000; iter++) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        if (iter % 2 == 0) {
            int len = (int)(state % 40);
            uint64_t r = state;
            for (int i = 0; i < len; i++) {
                r = r * 6364136223846793005u + 1442695040888963407u;
                buf[i] = alphabet[(r >> 33) % (sizeof alphabet - 1)];
            }
            buf[len] = '\0';
        } else {
            const char *seed = seeds[state % 5];
            snprintf(buf, sizeof buf, "%s", seed);
            size_t len = strlen(buf);
            size_t at = (state >> 8) % len;
            if ((state >> 20) % 2) /* delete one character */
                memmove(buf + at, buf + at + 1, len - at);
            else
                buf[at] = alphabet[(state >> 24) % (sizeof alphabet - 1)];
        }
        char err[128];
        SymExpr *e = sym_parse(buf, err, sizeof err);
        if (!e) {
            ck_assert_msg(err[0] != '\0', "\"%s\" failed without a message", buf);
            continue;
        }
        free(roundtrip(buf));
        SymValue v;
        SymBindings b;
        sym_bindings_init(&b);
        bind_all(&b, "s0=3,s1=-2,u1=7,e=1,E0=2");
        (void)sym_eval(e, &b, &v, NULL);
        sym_bindings_free(&b);
        sym_free(e);
    }
}
END_TEST

/* ---- accessors and bindings ------------------------------------------------------------- */

START_TEST(test_accessors)
{
    SymExpr *a = parse_ok("s1 + 2*s0 + s1*s2 + Max(s0, s3)");
    const char *names[8];
    ck_assert_int_eq(sym_symbols(a, names, 8), 4);
    ck_assert_str_eq(names[0], "s1");
    ck_assert_str_eq(names[1], "s0");
    ck_assert_str_eq(names[2], "s2");
    ck_assert_str_eq(names[3], "s3");
    ck_assert_int_eq(sym_symbols(a, names, 2), 4);
    ck_assert_int_eq(sym_symbols(a, NULL, 0), 4);
    ck_assert_ptr_null(sym_as_symbol(a));
    int64_t v;
    ck_assert(!sym_as_int(a, &v));
    /* interned: the same name is the same pointer while both trees live */
    SymExpr *b = parse_ok("Symbol('s0', integer=True)");
    ck_assert_ptr_eq(sym_as_symbol(b), names[1]);
    sym_free(a);
    ck_assert_str_eq(sym_as_symbol(b), "s0"); /* still held by b */
    sym_free(b);
    SymExpr *c = parse_ok("-(3)");
    ck_assert(sym_as_int(c, &v) && v == -3);
    ck_assert_ptr_null(sym_as_symbol(c));
    ck_assert_int_eq(sym_symbols(c, names, 8), 0);
    sym_free(c);
    sym_free(NULL);
    ck_assert_ptr_null(sym_as_symbol(NULL));
    ck_assert(!sym_as_int(NULL, &v));
    ck_assert_int_eq(sym_symbols(NULL, names, 8), 0);
}
END_TEST

START_TEST(test_bindings)
{
    SymBindings b;
    int64_t v;
    sym_bindings_init(&b);
    ck_assert(!sym_bindings_get(&b, "s0", &v));
    for (int i = 0; i < 100; i++) {
        char name[16];
        snprintf(name, sizeof name, "u%d", i);
        sym_bindings_set(&b, name, i * 10);
    }
    sym_bindings_set(&b, "u7", -1); /* rebinding keeps one entry */
    ck_assert_int_eq(b.n, 100);
    ck_assert(sym_bindings_get(&b, "u7", &v) && v == -1);
    ck_assert(sym_bindings_get(&b, "u99", &v) && v == 990);
    sym_bindings_clear(&b);
    ck_assert_int_eq(b.n, 0);
    ck_assert(!sym_bindings_get(&b, "u7", &v));
    sym_bindings_set(&b, "s0", INT64_MIN);
    ck_assert(sym_bindings_get(&b, "s0", &v) && v == INT64_MIN);
    sym_bindings_free(&b);
    sym_bindings_free(&b); /* twice is harmless */
}
END_TEST

Suite *suite_sym(void)
{
    Suite *s = suite_create("sym");
    TCase *tc = tcase_create("parse-print");
    tcase_add_test(tc, test_corpus_table);
    tcase_add_test(tc, test_corpus_expressions_parse);
    tcase_add_test(tc, test_print_forms);
    tcase_add_test(tc, test_roundtrip_shapes);
    tcase_add_test(tc, test_roundtrip_values);
    tcase_add_test(tc, test_accessors);
    suite_add_tcase(s, tc);
    tc = tcase_create("eval");
    tcase_add_test(tc, test_eval_values);
    tcase_add_test(tc, test_eval_errors);
    tcase_add_test(tc, test_bindings);
    suite_add_tcase(s, tc);
    tc = tcase_create("match");
    tcase_add_test(tc, test_match_bind_and_compare);
    tcase_add_test(tc, test_match_linear);
    tcase_add_test(tc, test_match_conflicts);
    tcase_add_test(tc, test_match_undecidable);
    suite_add_tcase(s, tc);
    tc = tcase_create("hostile");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_malformed);
    tcase_add_test(tc, test_deep_nesting);
    tcase_add_test(tc, test_large);
    tcase_add_test(tc, test_fuzz);
    suite_add_tcase(s, tc);
    return s;
}
