/*
** cmd.c -- the command table and its dispatcher: finding a command by
** exact name, gdb short form or unique prefix, `info` and `help`.  The
** commands themselves live in cmd_run.c, cmd_break.c, cmd_inspect.c,
** cmd_graph.c, cmd_source.c, cmd_numerics.c and cmd_profile.c, which
** cmd.c only lists: none of them calls back into this file.
*/
#include "cmd_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the table ----------------------------------------------------------------- */

static const CommandGroup *const GROUPS[] = {
    &CMD_GROUP_RUN, &CMD_GROUP_BREAK, &CMD_GROUP_INSPECT, &CMD_GROUP_GRAPH, &CMD_GROUP_SOURCE, &CMD_GROUP_NUMERICS,
    &CMD_GROUP_PROFILE, &CMD_GROUP_MISC,
};
#define NGROUPS ((int)(sizeof GROUPS / sizeof GROUPS[0]))

/* Find name among the commands (or the info subcommands) of every group:
** an exact name wins, then an alias, then a unique prefix; an ambiguous
** prefix lists the candidates. */
static const Command *find_in(const char *name, bool infos, EpError *err)
{
    const char *kind = infos ? "info subcommand" : "command";
    for (int pass = 0; pass < 2; pass++)
        for (int g = 0; g < NGROUPS; g++) {
            const Command *cs = infos ? GROUPS[g]->infos : GROUPS[g]->commands;
            int n = infos ? GROUPS[g]->ninfos : GROUPS[g]->n;
            for (int i = 0; i < n; i++) {
                const char *key = pass == 0 ? cs[i].name : cs[i].alias;
                if (key && strcmp(key, name) == 0)
                    return &cs[i];
            }
        }
    const Command *found = NULL;
    StrBuf cands;
    sb_init(&cands);
    int nfound = 0;
    size_t len = strlen(name);
    for (int g = 0; g < NGROUPS; g++) {
        const Command *cs = infos ? GROUPS[g]->infos : GROUPS[g]->commands;
        int n = infos ? GROUPS[g]->ninfos : GROUPS[g]->n;
        for (int i = 0; i < n; i++)
            if (strncmp(cs[i].name, name, len) == 0) {
                sb_printf(&cands, "%s%s", nfound ? ", " : "", cs[i].name);
                found = &cs[i];
                nfound++;
            }
    }
    if (nfound == 1) {
        sb_free(&cands);
        return found;
    }
    if (nfound == 0)
        ep_fail(err, EP_ERR_USAGE, "unknown %s '%s' (try `%s`)", kind, name, infos ? "info" : "help");
    else
        ep_fail(err, EP_ERR_USAGE, "ambiguous %s '%s': %s", kind, name, cands.data);
    sb_free(&cands);
    return NULL;
}

const Command *cmd_find(const char *name, EpError *err)
{
    return find_in(name, false, err);
}

int cmd_names(bool info, const char **names, int max)
{
    int n = 0;
    for (int g = 0; g < NGROUPS; g++) {
        int count = info ? GROUPS[g]->ninfos : GROUPS[g]->n;
        for (int i = 0; i < count && n < max; i++)
            names[n++] = info ? GROUPS[g]->infos[i].name : GROUPS[g]->commands[i].name;
    }
    return n;
}

/* The command word: letters, digits, '-' and '/' stop it ("p/x" is "p"
** with the format "/x" left in the arguments). */
static size_t command_word_len(const char *line)
{
    size_t n = 0;
    while (line[n] && !isspace((unsigned char)line[n]) && line[n] != '/')
        n++;
    return n;
}

/* A copy of args without trailing white space. */
static char *trimmed(const char *args)
{
    args = cmd_skip_space(args);
    size_t n = strlen(args);
    while (n > 0 && isspace((unsigned char)args[n - 1]))
        n--;
    return ep_xstrndup(args, n);
}

EpStatus cmd_execute(CmdCtx *c, const char *line, EpError *err)
{
    line = cmd_skip_space(line);
    if (*line == '\0' || *line == '#')
        return EP_OK;
    size_t n = command_word_len(line);
    if (n == 0)
        return ep_fail(err, EP_ERR_USAGE, "a command name comes first (try `help`)");
    if (n >= 64)
        return ep_fail(err, EP_ERR_USAGE, "unknown command '%.*s...' (try `help`)", 32, line);
    char name[64];
    memcpy(name, line, n);
    name[n] = '\0';
    const Command *cmd = cmd_find(name, err);
    if (!cmd)
        return EP_ERR_USAGE;
    char *args = trimmed(line + n);
    EpStatus rc = cmd->fn(c, args, err);
    free(args);
    return rc;
}

/* ---- info and help --------------------------------------------------------------- */

/* "  info node [NODE]   the node's op, ..." for every info subcommand. */
static void list_info_subcommands(Out *out)
{
    for (int g = 0; g < NGROUPS; g++)
        for (int i = 0; i < GROUPS[g]->ninfos; i++)
            out_printf(out, "  info %-28s %s\n", GROUPS[g]->infos[i].usage, GROUPS[g]->infos[i].help);
}

static EpStatus cmd_info(CmdCtx *c, const char *args, EpError *err)
{
    char what[64];
    const char *rest = args;
    if (!cmd_word(&rest, what, sizeof what)) {
        out_puts(c->out, "info what?  One of:\n");
        list_info_subcommands(c->out);
        return EP_OK;
    }
    const Command *sub = find_in(what, true, err);
    if (!sub)
        return EP_ERR_USAGE;
    char *sargs = trimmed(rest);
    EpStatus rc = sub->fn(c, sargs, err);
    free(sargs);
    return rc;
}

/* What `help CMD` adds to a command's one-line description when one line
** cannot say it: the breakpoint location forms and the condition language
** (the grammar is bpcond_parse's in session_cond.c, the locations
** session_break's). */
static const char BREAK_DETAILS[] =
    "Locations:\n"
    "  (none)         the node about to run (\"here\"; `break if COND` too)\n"
    "  NODE           a node: its name, #N (its index in the graph) or a unique prefix of its name\n"
    "  /REGEX/        every node whose name or op target (aten.add.Tensor) matches the PCRE2 regex\n"
    "  FILE:LINE      every node with a frame of its Python stack trace at that line; FILE may be\n"
    "                 the end of the path at a '/' (model.py, src/model.py)\n"
    "  FILE:FUNC      the first node of each call of function FUNC of FILE\n"
    "  module PATH    the first node of each call of the nn.Module PATH (encoder.layer0)\n"
    "  nan            any node whose output holds NaN or Inf (as `catch nan`)\n"
    "Conditions (LOCATION if COND), tested after the node runs:\n"
    "  values         out (the output; the default), outN (output N), in or inN (tensor input N)\n"
    "                 before a property: in0.abs_max; a property alone is out's\n"
    "  tests          nan, inf (the value holds a NaN / an Inf), finite (neither)\n"
    "  numbers        min, max, abs_max, mean, std, sum, numel, ndim, zeros (how many are 0),\n"
    "                 shape[I] (size of dimension I; negative I counts from the end)\n"
    "  dtype          dtype == float16, dtype != float32 (any dtype name)\n"
    "  operators      < <= > >= == !=, + - * / and unary -, ! (not), && (and), || (or),\n"
    "                 parentheses; numbers as in C (1e3, 0.5)\n"
    "  A condition on a value the node does not have (in2 of a one-input node, shape[3]\n"
    "  of a matrix) is false, so it never stops there.\n"
    "Examples:\n"
    "  break relu\n"
    "  break model.py:21\n"
    "  break /linear/ if in0.abs_max > 1e3 || !finite\n"
    "  break module encoder.layer0 if shape[0] > 8 && dtype == float16\n";

static const struct {
    const char *command;
    const char *details;
} HELP_DETAILS[] = {
    {"break", BREAK_DETAILS},
    {"tbreak", BREAK_DETAILS},
    {"profile", PROFILE_HELP_DETAILS},
};

/* One line of the command list: usage, short form, description in
** columns; a usage too long for its column gets a line of its own. */
static void help_line(Out *out, const char *prefix, const char *usage, const char *alias, const char *help)
{
    enum { USAGE_WIDTH = 34 };
    int len = (int)(strlen(prefix) + strlen(usage));
    if (len <= USAGE_WIDTH)
        out_printf(out, "  %s%-*s %-5s %s\n", prefix, USAGE_WIDTH - (int)strlen(prefix), usage, alias, help);
    else
        out_printf(out, "  %s%s%s%s\n  %-*s %-5s %s\n", prefix, usage, alias[0] ? " " : "", alias, USAGE_WIDTH, "", "",
                   help);
}

static EpStatus cmd_help(CmdCtx *c, const char *args, EpError *err)
{
    if (*args) {
        bool info = strncmp(args, "info ", 5) == 0;
        const char *name = info ? cmd_skip_space(args + 5) : args;
        const Command *cmd = find_in(name, info, err);
        if (!cmd)
            return EP_ERR_USAGE;
        out_printf(c->out, "%s%s\n  %s\n", info ? "info " : "", cmd->usage, cmd->help);
        if (cmd->alias)
            out_printf(c->out, "  short form: %s\n", cmd->alias);
        if (!info && cmd->fn == cmd_info) {
            out_puts(c->out, "Subcommands:\n");
            list_info_subcommands(c->out);
        }
        for (size_t i = 0; !info && i < EP_ARRAY_LEN(HELP_DETAILS); i++)
            if (strcmp(cmd->name, HELP_DETAILS[i].command) == 0)
                out_puts(c->out, HELP_DETAILS[i].details);
        return EP_OK;
    }
    for (int g = 0; g < NGROUPS; g++) {
        out_printf(c->out, "%s\n", GROUPS[g]->title);
        for (int i = 0; i < GROUPS[g]->n; i++) {
            const Command *cmd = &GROUPS[g]->commands[i];
            char alias[16] = "";
            if (cmd->alias)
                snprintf(alias, sizeof alias, "(%s)", cmd->alias);
            help_line(c->out, "", cmd->usage, alias, cmd->help);
        }
        for (int i = 0; i < GROUPS[g]->ninfos; i++)
            help_line(c->out, "info ", GROUPS[g]->infos[i].usage, "", GROUPS[g]->infos[i].help);
    }
    out_puts(c->out, "Commands may be shortened to any unique prefix.  `help CMD` describes one.\n");
    return EP_OK;
}

static EpStatus cmd_quit(CmdCtx *c, const char *args, EpError *err)
{
    (void)args;
    (void)err;
    c->quit = true;
    return EP_OK;
}

static EpStatus cmd_echo(CmdCtx *c, const char *args, EpError *err)
{
    (void)err;
    out_printf(c->out, "%s\n", args);
    return EP_OK;
}

static const Command MISC_COMMANDS[] = {
    {"help", "h", cmd_help, "help [COMMAND]", "list the commands, or describe one"},
    {"info", "i", cmd_info, "info WHAT", "describe breakpoints, the node, shapes, the graph, ..."},
    {"echo", NULL, cmd_echo, "echo TEXT", "print TEXT (to label a script's output)"},
    {"quit", "q", cmd_quit, "quit", "leave the debugger"},
};

const CommandGroup CMD_GROUP_MISC = {"Other", MISC_COMMANDS, (int)(sizeof MISC_COMMANDS / sizeof MISC_COMMANDS[0]),
                                     NULL, 0};
