/*
** cmd_util.c -- the argument and node helpers every command group uses:
** words and counts from the argument text, the node an argument names or
** the one the user is looking at, and the one-line description of a node.
** It calls only the session and the interpreter, so the groups depend on
** it and never on cmd.c's table.
*/
#include "cmd_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- arguments ------------------------------------------------------------------ */

const char *cmd_skip_space(const char *p)
{
    while (isspace((unsigned char)*p))
        p++;
    return p;
}

bool cmd_word(const char **args, char *buf, size_t cap)
{
    const char *p = cmd_skip_space(*args);
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
    args = cmd_skip_space(args);
    if (*args == '\0') {
        *out = dflt;
        return EP_OK;
    }
    char *end;
    long v = strtol(args, &end, 10);
    if (*cmd_skip_space(end) != '\0' || v <= 0 || v > 1000000000)
        return ep_fail(err, EP_ERR_USAGE, "expected a positive count, not '%s'", args);
    *out = (int)v;
    return EP_OK;
}

/* ---- nodes ---------------------------------------------------------------------- */

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

char *cmd_node_line(const Session *s, int i)
{
    const Node *n = interp_node(session_interp(s), i);
    const NodeInfo *ni = session_node_info(s, i);
    StrBuf sb;
    sb_init(&sb);
    sb_printf(&sb, "#%d '%s' (%s)", i, n->name, op_short_target(n->target));
    const SourceFrame *f = node_info_user_frame(ni);
    if (f)
        sb_printf(&sb, " at %s:%d in %s", f->file, f->line, f->func);
    if (ni->module_path[0])
        sb_printf(&sb, " [%s]", ni->module_path);
    return sb_take(&sb);
}
