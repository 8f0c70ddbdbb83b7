/*
** cmd_source.c -- where a node came from in the user's Python: backtrace
** (the stack trace plus the nn.Module path), list (the source around a
** frame, found through --source-dir folders), frame, up and down.
**
** Frames are numbered as gdb does: #0 is the innermost (the line that
** called the op), higher numbers are its callers.  Until `frame`, `up` or
** `down` picks one, the selected frame is the user's (NodeInfo.user_frame):
** an nn.Conv2d node's innermost frame is torch's conv.py, its caller the
** line of the user's model.
*/
#include "cmd_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/npy.h"

#define LIST_LINES 10

/* The frame `list` shows for ni, counted from the innermost. */
static int selected_frame(const CmdCtx *c, const NodeInfo *ni)
{
    return c->frame < 0 ? ni->user_frame : c->frame;
}

/* "*#1  forward at model.py:12", with [torch] on torch's own frames */
static void print_frame(CmdCtx *c, int k, const SourceFrame *f, bool selected)
{
    out_printf(c->out, "%s#%-2d %s at %s:%d%s\n", selected ? "*" : " ", k, f->func ? f->func : "??", f->file, f->line,
               source_file_is_torch(f->file) ? "  [torch]" : "");
    if (f->code)
        out_printf(c->out, "        %s\n", f->code);
}

static EpStatus cmd_backtrace(CmdCtx *c, const char *args, EpError *err)
{
    int node;
    EpStatus rc = cmd_node_or_current(c, args, &node, err);
    if (rc)
        return rc;
    const NodeInfo *ni = session_node_info(c->s, node);
    char *line = cmd_node_line(c->s, node);
    out_printf(c->out, "%s\n", line);
    free(line);
    if (ni->nframes == 0)
        out_puts(c->out, "  (no stack trace recorded for this node)\n");
    /* another node's frames: its user frame is the one `list NODE` shows */
    int selected = *args ? ni->user_frame : selected_frame(c, ni);
    for (int k = 0; k < ni->nframes; k++)
        print_frame(c, k, node_info_frame(ni, k), k == selected);
    const Node *n = interp_node(session_interp(c->s), node);
    ModuleScope *scopes;
    int ns = module_scopes_parse(n->meta.nn_module_stack, &scopes);
    if (ns > 0) {
        out_puts(c->out, "Module stack (outermost first):\n");
        for (int i = 0; i < ns; i++) {
            char *path = module_path_clean(scopes[i].path);
            out_printf(c->out, "  %s  %s\n", path[0] ? path : "(top level)", scopes[i].type);
            free(path);
        }
    }
    module_scopes_free(scopes, ns);
    return EP_OK;
}

static EpStatus select_frame(CmdCtx *c, int k, EpError *err)
{
    if (session_num_nodes(c->s) == 0)
        return ep_fail(err, EP_ERR_USAGE, "the graph has no nodes");
    const NodeInfo *ni = session_node_info(c->s, cmd_current_node(c));
    if (ni->nframes == 0)
        return ep_fail(err, EP_ERR_USAGE, "no stack trace is recorded for this node");
    if (k < 0 || k >= ni->nframes)
        return ep_fail(err, EP_ERR_USAGE, "no frame #%d (this node has frames #0 to #%d)", k, ni->nframes - 1);
    c->frame = k;
    c->list_node = -1;
    print_frame(c, k, node_info_frame(ni, k), true);
    return EP_OK;
}

/* The selected frame of the current node (-1 without nodes: select_frame
** says why). */
static int current_frame(CmdCtx *c)
{
    if (session_num_nodes(c->s) == 0)
        return -1;
    return selected_frame(c, session_node_info(c->s, cmd_current_node(c)));
}

static EpStatus cmd_frame(CmdCtx *c, const char *args, EpError *err)
{
    int k = current_frame(c);
    if (*args) {
        char *end;
        long v = strtol(args, &end, 10);
        if (*end || v < 0 || v > 100000)
            return ep_fail(err, EP_ERR_USAGE, "usage: frame [N] (0 is the innermost)");
        k = (int)v;
    }
    return select_frame(c, k, err);
}

static EpStatus cmd_up(CmdCtx *c, const char *args, EpError *err)
{
    int n;
    EpStatus rc = cmd_count(args, 1, &n, err);
    return rc ? rc : select_frame(c, current_frame(c) + n, err);
}

static EpStatus cmd_down(CmdCtx *c, const char *args, EpError *err)
{
    int n;
    EpStatus rc = cmd_count(args, 1, &n, err);
    return rc ? rc : select_frame(c, current_frame(c) - n, err);
}

/* Read a source file: as recorded, then inside each --source-dir, trying
** the recorded path and each of its trailing parts (a trace written on
** another machine names /home/them/proj/model.py; the user's checkout has
** proj/model.py or model.py).  Returns the text (caller frees) and the
** path used, or NULL. */
char *cmd_read_source(CmdCtx *c, const char *file, char *used, size_t cap)
{
    char *data;
    size_t len;
    EpError err;
    if (read_file(file, &data, &len, &err) == EP_OK) {
        snprintf(used, cap, "%s", file);
        return data;
    }
    for (int d = 0; d < c->nsource_dirs; d++)
        for (const char *tail = file; tail; tail = strchr(tail + 1, '/')) {
            const char *rel = tail[0] == '/' ? tail + 1 : tail;
            if (!*rel)
                break;
            char *path = ep_xasprintf("%s/%s", c->source_dirs[d], rel);
            EpStatus rc = read_file(path, &data, &len, &err);
            if (rc == EP_OK) {
                snprintf(used, cap, "%s", path);
                free(path);
                return data;
            }
            free(path);
        }
    return NULL;
}

/* Print lines [first, last] of text (1-based), marking mark. */
static int print_lines(CmdCtx *c, const char *text, int first, int last, int mark)
{
    int line = 1, printed = 0;
    const char *p = text;
    while (*p && line <= last) {
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p) : strlen(p);
        if (line >= first) {
            out_printf(c->out, "%s%-5d %.*s\n", line == mark ? "=> " : "   ", line, (int)n, p);
            printed++;
        }
        p = eol ? eol + 1 : p + n;
        line++;
    }
    return printed;
}

static EpStatus cmd_list(CmdCtx *c, const char *args, EpError *err)
{
    int node;
    bool more = *args == '\0' && c->list_node >= 0;
    EpStatus rc = cmd_node_or_current(c, args, &node, err);
    if (rc)
        return rc;
    if (more)
        node = c->list_node;
    const NodeInfo *ni = session_node_info(c->s, node);
    const SourceFrame *f = node_info_frame(ni, *args ? ni->user_frame : selected_frame(c, ni));
    if (!f)
        return ep_fail(err, EP_ERR_USAGE, "no stack trace is recorded for node #%d '%s'", node,
                       interp_node(session_interp(c->s), node)->name);
    char used[1024];
    char *text = cmd_read_source(c, f->file, used, sizeof used);
    if (!text) {
        out_printf(c->out, "%s:%d (the file is not readable here; --source-dir DIR adds places to look)\n", f->file,
                   f->line);
        out_printf(c->out, "=> %-5d %s\n", f->line, f->code ? f->code : "(no code recorded)");
        c->list_node = -1;
        return EP_OK;
    }
    int first = more ? c->list_line : (f->line > LIST_LINES / 2 ? f->line - LIST_LINES / 2 : 1);
    int printed = print_lines(c, text, first, first + LIST_LINES - 1, f->line);
    free(text);
    if (printed == 0) {
        c->list_node = -1;
        return ep_fail(err, EP_ERR_USAGE, "line %d is past the end of %s", first, used);
    }
    c->list_node = node;
    c->list_line = first + LIST_LINES;
    return EP_OK;
}

static const Command SOURCE_COMMANDS[] = {
    {"backtrace", "bt", cmd_backtrace, "backtrace [NODE]", "the node's Python stack trace and module path"},
    {"list", "l", cmd_list, "list [NODE]", "the source around the selected frame (again: the next lines)"},
    {"frame", "f", cmd_frame, "frame [N]", "select stack frame N (0 is the innermost; at first the user's)"},
    {"up", NULL, cmd_up, "up [N]", "select the caller's frame"},
    {"down", NULL, cmd_down, "down [N]", "select the callee's frame"},
};

const CommandGroup CMD_GROUP_SOURCE = {"Source", SOURCE_COMMANDS,
                                       (int)(sizeof SOURCE_COMMANDS / sizeof SOURCE_COMMANDS[0]), NULL, 0};
