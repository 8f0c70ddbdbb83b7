/*
** cmd_break.c -- breakpoints and watches: break, tbreak, catch nan,
** delete, disable, enable, watch, info breakpoints, info watchpoints.
*/
#include "cmd_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const BP_KIND_NAMES[] = {
    [BP_NODE] = "node", [BP_REGEX] = "regex", [BP_SOURCE] = "source", [BP_MODULE] = "module", [BP_NAN] = "nan",
};

/* "Breakpoint 2 at #3 'relu' (...)" or "... at 4 nodes: #1 'a', #5 'b', ...". */
static void report_new_breakpoint(CmdCtx *c, const Breakpoint *b)
{
    const char *what = b->temporary ? "Temporary breakpoint" : "Breakpoint";
    if (b->kind == BP_NAN) {
        out_printf(c->out, "%s %d: stop at the first node whose output has NaN or Inf\n", what, b->id);
        return;
    }
    int n = session_num_nodes(c->s);
    if (b->nmatch == 1) {
        for (int i = 0; i < n; i++)
            if (b->at[i]) {
                char *line = cmd_node_line(c->s, i);
                out_printf(c->out, "%s %d at %s%s%s\n", what, b->id, line, b->cond ? " if " : "",
                           b->cond ? b->cond : "");
                free(line);
            }
        return;
    }
    out_printf(c->out, "%s %d at %d nodes:", what, b->id, b->nmatch);
    int shown = 0;
    for (int i = 0; i < n && shown < 8; i++)
        if (b->at[i])
            out_printf(c->out, "%s #%d '%s'", shown++ ? "," : "", i, interp_node(session_interp(c->s), i)->name);
    out_printf(c->out, "%s%s%s\n", b->nmatch > shown ? ", ..." : "", b->cond ? " if " : "", b->cond ? b->cond : "");
}

static EpStatus set_breakpoint(CmdCtx *c, const char *args, bool temporary, EpError *err)
{
    const Breakpoint *b = session_break(c->s, args, temporary, err);
    if (!b)
        return EP_ERR_USAGE;
    report_new_breakpoint(c, b);
    return EP_OK;
}

static EpStatus cmd_break(CmdCtx *c, const char *args, EpError *err)
{
    return set_breakpoint(c, args, false, err);
}

static EpStatus cmd_tbreak(CmdCtx *c, const char *args, EpError *err)
{
    return set_breakpoint(c, args, true, err);
}

static EpStatus cmd_catch(CmdCtx *c, const char *args, EpError *err)
{
    if (strcmp(args, "nan") != 0 && strcmp(args, "inf") != 0)
        return ep_fail(err, EP_ERR_USAGE, "catch what? `catch nan` stops where a NaN or Inf first appears");
    return set_breakpoint(c, "nan", false, err);
}

/* Apply fn to each breakpoint number in args, or to all (-1) when empty. */
static EpStatus for_each_id(CmdCtx *c, const char *args, EpStatus (*fn)(CmdCtx *, int, EpError *), EpError *err)
{
    if (*args == '\0')
        return fn(c, -1, err);
    char word[32];
    const char *p = args;
    while (cmd_word(&p, word, sizeof word)) {
        char *end;
        long id = strtol(word, &end, 10);
        if (*end || id <= 0 || id > 1000000)
            return ep_fail(err, EP_ERR_USAGE, "expected breakpoint numbers, not '%s'", word);
        EpStatus rc = fn(c, (int)id, err);
        if (rc)
            return rc;
    }
    return EP_OK;
}

static EpStatus delete_one(CmdCtx *c, int id, EpError *err)
{
    return session_delete(c->s, id, err);
}

static EpStatus enable_one(CmdCtx *c, int id, EpError *err)
{
    return session_enable(c->s, id, true, err);
}

static EpStatus disable_one(CmdCtx *c, int id, EpError *err)
{
    return session_enable(c->s, id, false, err);
}

static EpStatus cmd_delete(CmdCtx *c, const char *args, EpError *err)
{
    return for_each_id(c, args, delete_one, err);
}

static EpStatus cmd_enable(CmdCtx *c, const char *args, EpError *err)
{
    return for_each_id(c, args, enable_one, err);
}

static EpStatus cmd_disable(CmdCtx *c, const char *args, EpError *err)
{
    return for_each_id(c, args, disable_one, err);
}

static EpStatus cmd_watch(CmdCtx *c, const char *args, EpError *err)
{
    if (*args == '\0')
        return ep_fail(err, EP_ERR_USAGE, "watch what? a parameter, buffer or user input");
    const Watch *w = session_watch(c->s, args, err);
    if (!w)
        return EP_ERR_USAGE;
    char shape[256];
    out_printf(c->out, "Watchpoint %d: %s (%s%s)\n", w->id, w->name, dtype_name(w->target->dtype),
               shape_str(w->target->ndim, w->target->sizes, shape, sizeof shape));
    return EP_OK;
}

static EpStatus info_breakpoints(CmdCtx *c, const char *args, EpError *err)
{
    (void)args;
    (void)err;
    int n = session_num_breakpoints(c->s);
    if (n == 0) {
        out_puts(c->out, "No breakpoints.\n");
        return EP_OK;
    }
    out_printf(c->out, "%-4s %-7s %-5s %-4s %-6s %s\n", "Num", "Type", "Disp", "Enb", "Hits", "Where");
    for (int i = 0; i < n; i++) {
        const Breakpoint *b = session_breakpoint(c->s, i);
        out_printf(c->out, "%-4d %-7s %-5s %-4s %-6d %s", b->id, BP_KIND_NAMES[b->kind], b->temporary ? "del" : "keep",
                   b->enabled ? "y" : "n", b->hits, b->where);
        if (b->kind != BP_NAN)
            out_printf(c->out, " (%d node%s)", b->nmatch, b->nmatch == 1 ? "" : "s");
        if (b->cond)
            out_printf(c->out, " if %s", b->cond);
        out_puts(c->out, "\n");
    }
    return EP_OK;
}

static EpStatus info_watchpoints(CmdCtx *c, const char *args, EpError *err)
{
    (void)args;
    (void)err;
    int n = session_num_watches(c->s);
    if (n == 0) {
        out_puts(c->out, "No watchpoints.\n");
        return EP_OK;
    }
    out_printf(c->out, "%-4s %-6s %s\n", "Num", "Hits", "What");
    for (int i = 0; i < n; i++) {
        const Watch *w = session_watch_at(c->s, i);
        out_printf(c->out, "%-4d %-6d %s\n", w->id, w->hits, w->name);
    }
    return EP_OK;
}

static const Command BREAK_COMMANDS[] = {
    {"break", "b", cmd_break, "break [LOCATION] [if COND]",
     "stop at NODE, /REGEX/, FILE:LINE, FILE:FUNC (once per call), module PATH, nan; none: here"},
    {"tbreak", "tb", cmd_tbreak, "tbreak LOCATION [if COND]", "a breakpoint deleted when first hit"},
    {"catch", NULL, cmd_catch, "catch nan", "stop at the first node whose output has NaN or Inf"},
    {"delete", "d", cmd_delete, "delete [N...]", "delete breakpoints (all when none are named)"},
    {"disable", NULL, cmd_disable, "disable [N...]", "disable breakpoints"},
    {"enable", NULL, cmd_enable, "enable [N...]", "enable breakpoints"},
    {"watch", NULL, cmd_watch, "watch NAME", "stop when a parameter, buffer or user input is changed"},
};

static const Command BREAK_INFOS[] = {
    {"breakpoints", NULL, info_breakpoints, "breakpoints", "breakpoints with their hit counts"},
    {"watchpoints", NULL, info_watchpoints, "watchpoints", "watched tensors"},
};

const CommandGroup CMD_GROUP_BREAK = {"Breakpoints", BREAK_COMMANDS,
                                      (int)(sizeof BREAK_COMMANDS / sizeof BREAK_COMMANDS[0]), BREAK_INFOS,
                                      (int)(sizeof BREAK_INFOS / sizeof BREAK_INFOS[0])};
