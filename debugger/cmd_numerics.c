/*
** cmd_numerics.c -- the numerics-hunting commands: `check numerics` (the
** float64 shadow of debugger/numerics.h) and `compare DIR` (a folder of
** reference tensors named after nodes).  Both run on a private copy of the
** program with the session's inputs, so the session's position, values and
** weights stay as they were.
*/
#include "cmd_int.h"

#include <stdlib.h>
#include <string.h>

#include "numerics.h"

static char *describe_session_node(void *ctx, int node)
{
    return cmd_node_line(ctx, node);
}

/* Parse "--rtol X", "--atol X", "--all" (and, for compare, one folder)
** from args into opt; *dir gets the folder when dir is not NULL. */
static EpStatus parse_options(const char *cmd, const char *args, NumericsOptions *opt, char *dir, size_t cap,
                              EpError *err)
{
    char word[4096];
    bool have_dir = false;
    while (cmd_word(&args, word, sizeof word)) {
        if (strcmp(word, "--all") == 0) {
            opt->all = true;
        } else if (strcmp(word, "--rtol") == 0 || strcmp(word, "--atol") == 0) {
            char num[64];
            char *end;
            if (!cmd_word(&args, num, sizeof num))
                return ep_fail(err, EP_ERR_USAGE, "%s: %s needs a number", cmd, word);
            double v = strtod(num, &end);
            if (*end || end == num || !(v >= 0) || v > 1e300)
                return ep_fail(err, EP_ERR_USAGE, "%s: %s wants a non-negative number, not '%s'", cmd, word, num);
            if (word[2] == 'r')
                opt->rtol = v;
            else
                opt->atol = v;
        } else if (dir && !have_dir && word[0] != '-') {
            if (strlen(word) >= cap)
                return ep_fail(err, EP_ERR_USAGE, "%s: the folder name is too long", cmd);
            strcpy(dir, word);
            have_dir = true;
        } else {
            return ep_fail(err, EP_ERR_USAGE, "%s: unexpected '%s'", cmd, word);
        }
    }
    if (dir && !have_dir)
        return ep_fail(err, EP_ERR_USAGE, "compare: which folder? (compare DIR [--rtol X] [--atol X] [--all])");
    return EP_OK;
}

static EpStatus cmd_check(CmdCtx *c, const char *args, EpError *err)
{
    char what[64];
    const char *rest = args;
    if (!cmd_word(&rest, what, sizeof what) || strcmp(what, "numerics") != 0)
        return ep_fail(err, EP_ERR_USAGE, "check what?  `check numerics [--rtol X] [--atol X] [--all]`");
    NumericsOptions opt = NUMERICS_OPTIONS_DEFAULT;
    opt.kernels = session_options(c->s)->kernels;
    EpStatus rc = parse_options("check numerics", rest, &opt, NULL, 0, err);
    if (rc)
        return rc;
    int n;
    const Value *inputs = session_inputs(c->s, &n);
    ShadowReport *r;
    rc = numerics_shadow(session_model(c->s), inputs, n, &opt, &r, err);
    if (rc)
        return rc;
    char *text = numerics_shadow_text(r, describe_session_node, c->s);
    out_puts(c->out, text);
    free(text);
    numerics_shadow_free(r);
    return EP_OK;
}

static EpStatus cmd_compare(CmdCtx *c, const char *args, EpError *err)
{
    NumericsOptions opt = NUMERICS_OPTIONS_DEFAULT;
    opt.kernels = session_options(c->s)->kernels;
    char dir[4096];
    EpStatus rc = parse_options("compare", args, &opt, dir, sizeof dir, err);
    if (rc)
        return rc;
    int n;
    const Value *inputs = session_inputs(c->s, &n);
    CompareReport *r;
    rc = numerics_compare_dir(session_model(c->s), inputs, n, dir, &opt, &r, err);
    if (rc)
        return rc;
    char *text = numerics_compare_text(r, describe_session_node, c->s);
    out_puts(c->out, text);
    free(text);
    numerics_compare_free(r);
    return EP_OK;
}

static const Command NUMERICS_COMMANDS[] = {
    {"check", NULL, cmd_check, "check numerics [--rtol X] [--atol X] [--all]",
     "run every node also in float64 and report where float32 departs from it"},
    {"compare", NULL, cmd_compare, "compare DIR [--rtol X] [--atol X] [--all]",
     "compare every value with DIR/NAME.npy references; report the first that differs"},
};

const CommandGroup CMD_GROUP_NUMERICS = {"Numerics", NUMERICS_COMMANDS,
                                         (int)(sizeof NUMERICS_COMMANDS / sizeof NUMERICS_COMMANDS[0]), NULL, 0};
