/*
** cmd.c -- the command table and its dispatcher: finding a command by
** exact name, gdb short form or unique prefix, `info` and `help`, and the
** stop report every moving command prints.  The commands themselves live
** in cmd_run.c, cmd_break.c, cmd_inspect.c, cmd_source.c and
** cmd_numerics.c.
*/
#include "cmd.h"

#include "format.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- output ------------------------------------------------------------------ */

void out_write(Out *o, const char *text, size_t len)
{
    if (len)
        o->write(o->ctx, text, len);
}

void out_puts(Out *o, const char *text)
{
    out_write(o, text, strlen(text));
}

void out_printf(Out *o, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        out_write(o, small, (size_t)n);
        return;
    }
    char *big = ep_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    out_write(o, big, (size_t)n);
    free(big);
}

/* ---- the table ----------------------------------------------------------------- */

static const CommandGroup *const GROUPS[] = {
    &CMD_GROUP_RUN, &CMD_GROUP_BREAK, &CMD_GROUP_INSPECT, &CMD_GROUP_GRAPH, &CMD_GROUP_SOURCE, &CMD_GROUP_NUMERICS,
    &CMD_GROUP_MISC,
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

/* The command word: letters, digits, '-' and '/' stop it ("p/x" is "p"
** with the format "/x" left in the arguments). */
static size_t command_word_len(const char *line)
{
    size_t n = 0;
    while (line[n] && !isspace((unsigned char)line[n]) && line[n] != '/')
        n++;
    return n;
}

static const char *skip_space(const char *p)
{
    while (isspace((unsigned char)*p))
        p++;
    return p;
}

/* A copy of args without trailing white space. */
static char *trimmed(const char *args)
{
    args = skip_space(args);
    size_t n = strlen(args);
    while (n > 0 && isspace((unsigned char)args[n - 1]))
        n--;
    return ep_xstrndup(args, n);
}

EpStatus cmd_execute(CmdCtx *c, const char *line, EpError *err)
{
    line = skip_space(line);
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

static EpStatus cmd_info(CmdCtx *c, const char *args, EpError *err)
{
    char what[64];
    const char *rest = args;
    if (!cmd_word(&rest, what, sizeof what)) {
        out_puts(c->out, "info what?  One of:\n");
        for (int g = 0; g < NGROUPS; g++)
            for (int i = 0; i < GROUPS[g]->ninfos; i++)
                out_printf(c->out, "  info %-28s %s\n", GROUPS[g]->infos[i].usage, GROUPS[g]->infos[i].help);
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
        const char *name = info ? skip_space(args + 5) : args;
        const Command *cmd = find_in(name, info, err);
        if (!cmd)
            return EP_ERR_USAGE;
        out_printf(c->out, "%s%s\n  %s\n", info ? "info " : "", cmd->usage, cmd->help);
        if (cmd->alias)
            out_printf(c->out, "  short form: %s\n", cmd->alias);
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

/* ---- describing nodes and stops ------------------------------------------------------ */

char *cmd_node_line(const Session *s, int i)
{
    const Node *n = interp_node(session_interp(s), i);
    const NodeInfo *ni = session_node_info(s, i);
    StrBuf sb;
    sb_init(&sb);
    sb_printf(&sb, "#%d '%s' (%s)", i, n->name, op_short_target(n->target));
    if (ni->nframes > 0) {
        const SourceFrame *f = &ni->frames[ni->nframes - 1];
        sb_printf(&sb, " at %s:%d in %s", f->file, f->line, f->func);
    }
    if (ni->module_path[0])
        sb_printf(&sb, " [%s]", ni->module_path);
    return sb_take(&sb);
}

/* The source line of the innermost frame, as `list` would show it. */
static void report_code(CmdCtx *c, int node)
{
    const NodeInfo *ni = session_node_info(c->s, node);
    if (ni->nframes == 0 || !ni->frames[ni->nframes - 1].code)
        return;
    const SourceFrame *f = &ni->frames[ni->nframes - 1];
    out_printf(c->out, "%-7d %s\n", f->line, f->code);
}

static void report_outputs(CmdCtx *c)
{
    const Interp *ip = session_interp(c->s);
    int n = interp_num_user_outputs(ip);
    out_printf(c->out, "The program finished: %d output%s.\n", n, n == 1 ? "" : "s");
    for (int i = 0; i < n; i++) {
        const Value *v = interp_user_output(ip, i);
        const char *name = interp_user_output_name(ip, i);
        char *d = v ? format_value_stats(v) : ep_xstrdup("(none)");
        out_printf(c->out, "  out%d %s: %s\n", i, name ? name : "(literal)", d);
        free(d);
    }
}

void cmd_report_stop(CmdCtx *c)
{
    const Stop *st = session_last_stop(c->s);
    c->frame = -1;
    char *line = st->node >= 0 && st->node < session_num_nodes(c->s) ? cmd_node_line(c->s, st->node) : NULL;
    const char *when = st->after ? "after" : "at";
    switch (st->kind) {
    case STOP_NONE:
        break;
    case STOP_START:
        if (line)
            out_printf(c->out, "Started: %s %s\n", when, line);
        break;
    case STOP_STEP:
    case STOP_BACK_START:
        if (line)
            out_printf(c->out, "%s%s %s\n", st->kind == STOP_BACK_START ? "Back at the start: " : "", when, line);
        break;
    case STOP_BREAKPOINT:
        out_printf(c->out, "Breakpoint %d, %s %s\n", st->breakpoint, when, line ? line : "?");
        break;
    case STOP_NAN:
        out_printf(c->out, "Caught a non-finite value (breakpoint %d) %s %s\n", st->breakpoint, when,
                   line ? line : "?");
        break;
    case STOP_WATCH:
        out_printf(c->out, "Watchpoint %d, %s %s\n", st->breakpoint, when, line ? line : "?");
        break;
    case STOP_INTERRUPT:
        out_printf(c->out, "Interrupted %s %s\n", when, line ? line : "?");
        break;
    case STOP_ERROR:
        if (line)
            out_printf(c->out, "Error %s %s\n", when, line);
        else
            out_puts(c->out, "The inputs do not satisfy the program:\n");
        break;
    case STOP_END:
        report_outputs(c);
        break;
    }
    if (st->detail && st->detail[0] && st->kind != STOP_END) {
        size_t n = strlen(st->detail);
        out_printf(c->out, "%s%s", st->detail, st->detail[n - 1] == '\n' ? "" : "\n");
    }
    if (line)
        report_code(c, st->node);
    free(line);
    c->list_node = -1; /* `list` starts over around the new position */
    for (int i = 0; i < session_num_displays(c->s); i++) {
        int id;
        const char *expr = session_display(c->s, i, &id);
        out_printf(c->out, "%d: %s = ", id, expr);
        EpError err = {0};
        if (cmd_print_expr(c, expr, false, &err))
            out_printf(c->out, "<%s>\n", err.msg);
    }
}

/* ---- argument helpers ------------------------------------------------------------------ */

bool cmd_word(const char **args, char *buf, size_t cap)
{
    const char *p = skip_space(*args);
    size_t n = 0;
    while (p[n] && !isspace((unsigned char)p[n]))
        n++;
    if (n == 0 || cap == 0)
        return false;
    size_t k = n < cap - 1 ? n : cap - 1;
    memcpy(buf, p, k);
    buf[k] = '\0';
    *args = p + n;
    return true;
}

EpStatus cmd_count(const char *args, int dflt, int *out, EpError *err)
{
    args = skip_space(args);
    if (*args == '\0') {
        *out = dflt;
        return EP_OK;
    }
    char *end;
    long v = strtol(args, &end, 10);
    if (*skip_space(end) != '\0' || v <= 0 || v > 1000000000)
        return ep_fail(err, EP_ERR_USAGE, "expected a positive count, not '%s'", args);
    *out = (int)v;
    return EP_OK;
}

EpStatus cmd_node_arg(CmdCtx *c, const char *args, int *node, EpError *err)
{
    if (*args == '\0')
        return ep_fail(err, EP_ERR_USAGE, "which node? (a name, #N or a unique prefix)");
    *node = session_find_node(c->s, args, err);
    return *node < 0 ? EP_ERR_USAGE : EP_OK;
}

int cmd_current_node(CmdCtx *c)
{
    const Stop *st = session_last_stop(c->s);
    int n = session_num_nodes(c->s);
    if (st->after && st->node >= 0 && st->node < n)
        return st->node;
    int pc = interp_pc(session_interp(c->s));
    return pc < n ? pc : n - 1;
}

EpStatus cmd_node_or_current(CmdCtx *c, const char *args, int *node, EpError *err)
{
    if (*args)
        return cmd_node_arg(c, args, node, err);
    if (session_num_nodes(c->s) == 0)
        return ep_fail(err, EP_ERR_USAGE, "the graph has no nodes");
    *node = cmd_current_node(c);
    return EP_OK;
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
