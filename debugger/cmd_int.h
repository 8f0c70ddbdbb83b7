/*
** cmd_int.h -- what the command files share beyond cmd.h: argument and node
** helpers (cmd_util.c) and the print expression (cmd_inspect.c).  Not part
** of the API: front ends use cmd.h.
**
** Calls between the command files go one way: cmd.c (the table) lists the
** groups; the groups call cmd_util.c and out.c; cmd_run.c's stop report
** calls cmd_inspect.c for the displays.  cmd_util.c calls only the
** session, so no group file calls back into the table.
*/
#ifndef EP_CMD_INT_H
#define EP_CMD_INT_H

#include "cmd.h"

/* ---- arguments (cmd_util.c) ---- */

/* p past any white space. */
const char *cmd_skip_space(const char *p);
/* The next whitespace-separated word of *args into buf (cut to cap - 1
** characters); *args moves past it.  False if there is none. */
bool cmd_word(const char **args, char *buf, size_t cap);
/* An optional count argument: the whole of args as a positive integer, or
** dflt when empty. */
EpStatus cmd_count(const char *args, int dflt, int *out, EpError *err);

/* ---- nodes (cmd_util.c) ---- */

/* A node named by args (name, #N, unique prefix). */
EpStatus cmd_node_arg(CmdCtx *c, const char *args, int *node, EpError *err);
/* The node the user is looking at: the one a stop reported after it ran,
** else the next to run (the last one at the end); -1 in an empty graph. */
int cmd_current_node(CmdCtx *c);
/* The node named by args, or the current node when args is empty. */
EpStatus cmd_node_or_current(CmdCtx *c, const char *args, int *node, EpError *err);
/* One-line description of node i: "#3 'relu' (aten.relu.default) at
** mlp.py:21 in forward [fc1]".  New string, caller frees. */
char *cmd_node_line(const Session *s, int i);

/* ---- values (cmd_inspect.c) ---- */

/* Print a print-expression ("x", "linear[0, :5]", "linear.shape") as
** `print` does, with hex element bits for print/x; `display` and the stop
** report use it too. */
EpStatus cmd_print_expr(CmdCtx *c, const char *expr, bool hex, EpError *err);

/* ---- help (cmd_profile.c) ---- */

/* What `help profile` adds: the subcommands and what an iteration is. */
extern const char PROFILE_HELP_DETAILS[];

#endif
