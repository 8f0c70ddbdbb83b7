/*
** cli_suggest.c -- `epdbg suggest MODEL.pt2 [input options] [--dynamic
** NAME:DIM[=DIMNAME]]... [--json] [--no-run]`: the dynamic_shapes to export
** the model with, solved and verified by interp/suggest.h.
**
** Exit codes: 0 a verified suggestion (possibly: nothing can be dynamic,
** with the reasons), 1 usage (an input or dim that does not exist), 2 an
** unreadable archive or an expression in it that does not parse, 5 when no
** suggestion passed its own checks (what failed is printed).
*/
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/suggest.h"

static const char SUGGEST_USAGE[] =
    "usage: epdbg suggest MODEL.pt2 [--dynamic NAME:DIM[=DIMNAME]]... [--input FILE]... [--input NAME=FILE]...\n"
    "                     [--inputs FILE|DIR] [--model NAME] [--json] [--no-run]\n"
    "  Prints the dynamic_shapes (torch.export.Dim objects) the model can be exported with, and what\n"
    "  must change in its source for the rest, every part checked against the program first.\n"
    "  --dynamic x:0=batch    make x.shape[0] dynamic, as a Dim called batch (repeatable)\n"
    "  --input/--inputs       inputs to explain or make acceptable (a failing input, say); without\n"
    "                         them the archive's example inputs give the example sizes\n"
    "  --json                 the suggestion, notes and checks as JSON\n"
    "  --no-run               check by the shape rules only, without running the program\n";

int cli_suggest(int argc, char **argv)
{
    const char *path = NULL, *model_name = NULL;
    bool json = false, no_run = false;
    InputArgs inputs = {0};
    const char **dyn = ep_xcalloc((size_t)(argc ? argc : 1), sizeof *dyn);
    int ndyn = 0, rc = EP_OK;
    for (int i = 0; i < argc && rc == EP_OK; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        if (strcmp(a, "--input") == 0 && has_value) {
            input_args_add(&inputs, argv[++i]);
        } else if (strcmp(a, "--inputs") == 0 && has_value) {
            input_args_set_all(&inputs, argv[++i]);
        } else if (strcmp(a, "--dynamic") == 0 && has_value) {
            dyn[ndyn++] = argv[++i];
        } else if (strncmp(a, "--dynamic=", 10) == 0) {
            dyn[ndyn++] = a + 10;
        } else if (strcmp(a, "--model") == 0 && has_value) {
            model_name = argv[++i];
        } else if (strcmp(a, "--json") == 0) {
            json = true;
        } else if (strcmp(a, "--no-run") == 0) {
            no_run = true;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(SUGGEST_USAGE, stdout);
            input_args_free(&inputs);
            free(dyn);
            return EP_OK;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "epdbg suggest: unknown option or missing value: %s\n%s", a, SUGGEST_USAGE);
            rc = EP_ERR_USAGE;
        } else if (!path) {
            path = a;
        } else {
            fprintf(stderr, "epdbg suggest: one model at a time (got %s and %s)\n", path, a);
            rc = EP_ERR_USAGE;
        }
    }
    if (rc == EP_OK && !path) {
        fputs(SUGGEST_USAGE, stderr);
        rc = EP_ERR_USAGE;
    }
    EpError err = {0};
    Model *m = NULL;
    Interp *ip = NULL;
    Value *vals = NULL;
    int nvals = 0;
    DynRequest *req = ep_xcalloc((size_t)(ndyn ? ndyn : 1), sizeof *req);
    Suggestion *s = NULL;
    if (rc == EP_OK && (rc = model_open(path, model_name, &m, &err)) == EP_OK) {
        ip = interp_new(m, &INTERP_OPTIONS_DEFAULT, &err);
        if (!ip)
            rc = err.code ? err.code : EP_ERR_FORMAT;
    }
    for (int i = 0; rc == EP_OK && i < ndyn; i++) {
        rc = suggest_parse_dynamic(ip, dyn[i], &req[i], &err);
        for (int j = 0; rc == EP_OK && j < i; j++)
            if (req[j].input == req[i].input && req[j].dim == req[i].dim)
                rc = ep_fail(&err, EP_ERR_USAGE, "--dynamic %s: the same dimension as --dynamic %s", dyn[i], dyn[j]);
    }
    if (rc == EP_OK && !input_args_empty(&inputs))
        rc = inputs_load(ip, &inputs, NULL, &vals, &nvals, &err);
    if (rc == EP_OK) {
        SuggestOptions o = {.dynamic = req, .ndynamic = ndyn, .inputs = vals, .ninputs = vals ? nvals : 0,
                            .run_checks = !no_run, .seed = 1};
        rc = suggest_run(ip, &o, &s, &err);
    }
    if (rc == EP_OK) {
        StrBuf sb;
        sb_init(&sb);
        if (json)
            suggest_print_json(ip, s, &sb);
        else
            suggest_print_text(ip, s, &sb);
        fputs(sb.data ? sb.data : "", stdout);
        sb_free(&sb);
        if (!s->verified)
            rc = 5;
    } else if (err.msg[0]) {
        fprintf(stderr, "epdbg suggest: %s%s%s\n", path && !strstr(err.msg, path) ? path : "",
                path && !strstr(err.msg, path) ? ": " : "", err.msg);
    }
    suggest_free(s);
    for (int i = 0; i < nvals; i++)
        value_clear(&vals[i]);
    free(vals);
    free(req);
    free(dyn);
    interp_free(ip);
    model_free(m);
    input_args_free(&inputs);
    return rc;
}
