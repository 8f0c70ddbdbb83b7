/*
** cmd_run.c -- the commands that move the run: run, restart, step, next,
** finish, continue, until, goto, the reverse ones, and where.  Each calls
** the session and then prints where it stopped (report_stop), with the
** displays printed through cmd_inspect.c.
*/
#include "cmd_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "inputs.h"
#include "record.h"

/* ---- the stop report ------------------------------------------------------------ */

/* The source line of the user's frame, as `list` would show it. */
static void report_code(CmdCtx *c, int node)
{
    const SourceFrame *f = node_info_user_frame(session_node_info(c->s, node));
    if (!f || !f->code)
        return;
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

/* Where the last stop left the run: one line naming the node, the stop's
** detail, the node's source line, then the displays. */
static void report_stop(CmdCtx *c)
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

/* ---- the commands --------------------------------------------------------------- */


/* After a moving command: the stop report, or the command's own error. */
static EpStatus moved(CmdCtx *c, EpStatus rc)
{
    if (rc == EP_OK)
        report_stop(c);
    return rc;
}

/* After run or restart: inputs the guards rejected stay bound, as gdb keeps
** `run ARGS`, so a plain `run` fails the same way -- the error says how to
** give others. */
static EpStatus started(CmdCtx *c, EpStatus rc, EpError *err)
{
    if (rc == EP_ERR_INPUT && session_inputs_rejected(c->s)) {
        char *how = inputs_how_to_give(session_interp(c->s), false);
        size_t len = strlen(err->msg);
        snprintf(err->msg + len, sizeof err->msg - len, "\nThese inputs stay bound for the next `run`: give other "
                 "inputs with %s.", how);
        free(how);
    }
    return moved(c, rc);
}

/* run [--input FILE|NAME=FILE]... [--inputs FILE|DIR]: as gdb's `run ARGS`,
** the options rebind the inputs they name for this run and the next ones;
** the others keep their values. */
static EpStatus cmd_run(CmdCtx *c, const char *args, EpError *err)
{
    InputArgs a = {0};
    EpStatus rc = input_args_parse(args, &a, err);
    if (rc == EP_OK && !input_args_empty(&a)) {
        int ncur = 0;
        const Value *cur = session_inputs(c->s, &ncur);
        Value *vals = NULL;
        char **sources = NULL;
        int n = 0;
        rc = inputs_load_traced(session_interp(c->s), &a, cur, &vals, &sources, &n, err);
        if (rc == EP_OK) {
            /* an input the options do not give keeps its value, and so
            ** its source */
            for (int i = 0; i < n && i < ncur; i++)
                if (!sources[i] && session_input_source(c->s, i))
                    sources[i] = ep_xstrdup(session_input_source(c->s, i));
            session_set_inputs(c->s, vals, n);
            for (int i = 0; i < n; i++)
                session_set_input_source(c->s, i, sources[i]);
        }
        for (int i = 0; i < n; i++)
            value_clear(&vals[i]);
        free(vals);
        inputs_sources_free(sources, n);
    }
    input_args_free(&a);
    return rc ? rc : started(c, session_run(c->s, err), err);
}

static EpStatus cmd_restart(CmdCtx *c, const char *args, EpError *err)
{
    if (*args)
        return ep_fail(err, EP_ERR_USAGE, "restart takes no arguments");
    return started(c, session_restart(c->s, err), err);
}

static EpStatus cmd_step(CmdCtx *c, const char *args, EpError *err)
{
    int n;
    EpStatus rc = cmd_count(args, 1, &n, err);
    return rc ? rc : moved(c, session_step(c->s, n, err));
}

static EpStatus cmd_next(CmdCtx *c, const char *args, EpError *err)
{
    int n;
    EpStatus rc = cmd_count(args, 1, &n, err);
    return rc ? rc : moved(c, session_next(c->s, n, err));
}

static EpStatus cmd_finish(CmdCtx *c, const char *args, EpError *err)
{
    if (*args)
        return ep_fail(err, EP_ERR_USAGE, "finish takes no arguments");
    const Interp *ip = session_interp(c->s);
    if (interp_bound(ip) && !interp_finished(ip)) {
        const char *scope = session_node_info(c->s, interp_pc(ip))->module_path;
        if (scope[0])
            out_printf(c->out, "Run till the end of module %s\n", scope);
    }
    return moved(c, session_finish(c->s, err));
}

static EpStatus cmd_continue(CmdCtx *c, const char *args, EpError *err)
{
    int n;
    EpStatus rc = cmd_count(args, 1, &n, err);
    return rc ? rc : moved(c, session_continue(c->s, n, err));
}

/* until NODE; until alone is gdb's: next, but never back to an earlier
** line of a loop.  A graph runs each node once and forwards only, so that
** is exactly next. */
static EpStatus cmd_until(CmdCtx *c, const char *args, EpError *err)
{
    if (!*args)
        return moved(c, session_next(c->s, 1, err));
    int node;
    EpStatus rc = cmd_node_arg(c, args, &node, err);
    return rc ? rc : moved(c, session_until(c->s, node, err));
}

static EpStatus cmd_goto(CmdCtx *c, const char *args, EpError *err)
{
    int node;
    EpStatus rc;
    if (strcmp(args, "end") == 0)
        node = session_num_nodes(c->s);
    else if ((rc = cmd_node_arg(c, args, &node, err)))
        return rc;
    return moved(c, session_goto(c->s, node, err));
}

static EpStatus cmd_reverse_step(CmdCtx *c, const char *args, EpError *err)
{
    int n;
    EpStatus rc = cmd_count(args, 1, &n, err);
    return rc ? rc : moved(c, session_reverse_step(c->s, n, err));
}

static EpStatus cmd_reverse_continue(CmdCtx *c, const char *args, EpError *err)
{
    if (*args)
        return ep_fail(err, EP_ERR_USAGE, "reverse-continue takes no arguments");
    return moved(c, session_reverse_continue(c->s, err));
}

/* Where the run is: the next node, how far along, and the module path. */
static EpStatus cmd_where(CmdCtx *c, const char *args, EpError *err)
{
    if (*args)
        return ep_fail(err, EP_ERR_USAGE, "where takes no arguments");
    const Interp *ip = session_interp(c->s);
    int n = session_num_nodes(c->s);
    if (!interp_bound(ip)) {
        out_puts(c->out, "The program is not running.\n");
        return EP_OK;
    }
    if (interp_finished(ip)) {
        out_printf(c->out, "At the end: all %d nodes have run.\n", n);
        return EP_OK;
    }
    const Stop *st = session_last_stop(c->s);
    int pc = interp_pc(ip);
    int node = st->after && st->node >= 0 ? st->node : pc;
    char *line = cmd_node_line(c->s, node);
    out_printf(c->out, "%s %s\n", st->after && node != pc ? "After" : "At", line);
    free(line);
    out_printf(c->out, "Node %d of %d; %d ha%s run.\n", pc + 1, n, pc, pc == 1 ? "s" : "ve");
    return EP_OK;
}

/* record FILE.npz [--all]: the run's inputs (and every value computed so
** far) in a replay file. */
static EpStatus cmd_record(CmdCtx *c, const char *args, EpError *err)
{
    char file[1024], opt[32];
    const char *p = args;
    bool all = false;
    if (!cmd_word(&p, file, sizeof file))
        return ep_fail(err, EP_ERR_USAGE, "usage: record FILE.npz [--all]");
    if (cmd_word(&p, opt, sizeof opt)) {
        if (strcmp(opt, "--all") != 0 || cmd_word(&p, opt, sizeof opt))
            return ep_fail(err, EP_ERR_USAGE, "usage: record FILE.npz [--all]");
        all = true;
    }
    int n;
    const Value *inputs = session_inputs(c->s, &n);
    if (!inputs)
        return ep_fail(err, EP_ERR_USAGE, "no inputs are set: nothing to record");
    const Model *m = session_model(c->s);
    RecordMeta meta = {.model_path = m->path, .model_name = m->is_pt2 ? m->name : NULL};
    EpStatus rc = record_save(file, session_interp(c->s), inputs, n, all, &meta, err);
    if (rc == EP_OK)
        out_printf(c->out, "Recorded the inputs%s in %s\n", all ? " and every value computed so far" : "", file);
    return rc;
}

/* info inputs: what the next run binds, and where each value came from. */
static EpStatus info_inputs(CmdCtx *c, const char *args, EpError *err)
{
    if (*args)
        return ep_fail(err, EP_ERR_USAGE, "info inputs takes no arguments");
    const Interp *ip = session_interp(c->s);
    int ni = interp_num_user_inputs(ip), n = 0;
    const Value *vals = session_inputs(c->s, &n);
    if (ni == 0) {
        out_puts(c->out, "The program takes no inputs.\n");
        return EP_OK;
    }
    out_puts(c->out, "Inputs of the next run (`run --input NAME=FILE` or `set NAME = FILE` changes them):\n");
    for (int i = 0; i < ni; i++) {
        char *name = inputs_display_name(ip, i);
        const Value *v = vals && i < n && vals[i].kind != V_NONE ? &vals[i] : NULL;
        char *desc = v ? format_value_stats(v) : ep_xstrdup("not set");
        const char *from = session_input_source(c->s, i);
        out_printf(c->out, "  %s: %s%s%s%s\n", name, desc, from ? "  (from " : "", from ? from : "", from ? ")" : "");
        free(desc);
        free(name);
    }
    const Stop *st = session_last_stop(c->s);
    if (session_inputs_rejected(c->s) && st->detail)
        out_printf(c->out, "The last run rejected them: %s\n", st->detail);
    return EP_OK;
}

EpStatus cmd_exit_status(const CmdCtx *c, const char *line, EpStatus rc)
{
    if (rc)
        return rc;
    /* a node failing is the moving command's failure too (and failing
    ** guards the session's from the start), so a script or a TUI session
    ** that hits one exits nonzero; reading about it afterwards is not a
    ** new failure */
    if (line && strncmp(line, "info", 4) == 0)
        return EP_OK;
    const Stop *st = session_last_stop(c->s);
    return st->kind == STOP_ERROR ? st->error : EP_OK;
}

static const Command RUN_COMMANDS[] = {
    {"run", "r", cmd_run, "run [INPUT OPTIONS]",
     "start over from node 0 and run to a stop; --input [NAME=]FILE, --inputs FILE|DIR rebind inputs"},
    {"restart", NULL, cmd_restart, "restart", "re-bind the inputs and stop before node 0 (breakpoints stay)"},
    {"step", "s", cmd_step, "step [N]", "run one node (N nodes)"},
    {"next", "n", cmd_next, "next [N]", "run to the next node not deeper in the module tree"},
    {"finish", NULL, cmd_finish, "finish", "run until the current module's scope ends"},
    {"continue", "c", cmd_continue, "continue [N]", "run to the next breakpoint (the N-th)"},
    {"until", "u", cmd_until, "until [NODE]",
     "run until NODE is next, stopping at breakpoints on the way (alone: as next)"},
    {"goto", NULL, cmd_goto, "goto NODE|end", "jump forwards or backwards to just before NODE"},
    {"reverse-step", "rs", cmd_reverse_step, "reverse-step [N]", "undo the last node (N nodes): time travel"},
    {"reverse-continue", "rc", cmd_reverse_continue, "reverse-continue", "go back to the previous breakpoint or the start"},
    {"where", NULL, cmd_where, "where", "show the current position"},
    {"record", NULL, cmd_record, "record FILE.npz [--all]", "save the inputs (--all: and every value so far) to replay"},
};

static const Command RUN_INFOS[] = {
    {"inputs", NULL, info_inputs, "inputs", "the inputs the next run binds, and the files they came from"},
};

const CommandGroup CMD_GROUP_RUN = {"Running", RUN_COMMANDS, (int)(sizeof RUN_COMMANDS / sizeof RUN_COMMANDS[0]),
                                    RUN_INFOS, (int)(sizeof RUN_INFOS / sizeof RUN_INFOS[0])};
