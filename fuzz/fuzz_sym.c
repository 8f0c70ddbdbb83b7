/*
** fuzz_sym.c -- libFuzzer harness for the symbolic engine, entered through
** sym_parse (both text forms: str() "2*s0 + 1", srepr() "Add(Symbol('s0'),
** Integer(1))").  Whatever parses goes through the whole engine: canonical
** form, both printers (whose text must parse again), evaluation, ranges and
** deciding, with every symbol given a small range so the decider's
** enumeration runs too: whole (at most five symbols fit its 4,096 points)
** or partial (more).  The ranges are kept narrow because each point of a
** partial enumeration is a substitution and a canonical form, which made
** wider ones (2..64, -3..3) run at 600 inputs a second.
*/
#include <stdlib.h>

#include "fuzz_util.h"
#include "symbolic/sym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Expressions in archives are a few hundred characters at most; longer
** inputs only slow the fuzzer down. */
#define MAX_TEXT 4096

static void reparse(char *text)
{
    if (!text)
        return;
    sym_free(sym_parse(text, NULL, 0));
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MAX_TEXT)
        return 0;
    char *text = fuzz_cstr(data, size);
    if (!text)
        return 0;
    char msg[256];
    SymExpr *e = sym_parse(text, msg, sizeof msg);
    free(text);
    if (!e)
        return 0;
    const char *names[8];
    int n = sym_symbols(e, names, 8);
    SymRanges ranges;
    sym_ranges_init(&ranges);
    SymBindings b;
    sym_bindings_init(&b);
    for (int i = 0; i < n && i < 8; i++) {
        sym_ranges_set(&ranges, names[i], i == 0 ? 2 : -2, i == 0 ? 9 : 2);
        sym_bindings_set(&b, names[i], i + 2);
    }
    SymExpr *c = sym_canon(e);
    reparse(sym_to_string(e));
    reparse(sym_to_string(c));
    free(sym_to_python(e));
    SymValue v;
    const char *unbound;
    sym_eval(e, &b, &v, &unbound);
    sym_range(e, &ranges);
    sym_range(e, NULL);
    sym_decide(e, &ranges);
    sym_decide(e, NULL);
    sym_equal(e, c);
    const char *s;
    int64_t a, k;
    sym_affine(e, &s, &a, &k);
    char why[128];
    SymBindings learn;
    sym_bindings_init(&learn);
    sym_match(e, &learn, 7, why, sizeof why);
    sym_bindings_free(&learn);
    sym_free(c);
    sym_bindings_free(&b);
    sym_ranges_free(&ranges);
    sym_free(e);
    return 0;
}
