/*
** cmd.h -- the debugger's command language, shared by batch mode and the
** TUI.  A command line is looked up in one table (exact name, gdb short
** form, or unique prefix) and run against the session; commands write text
** to an output sink, never to stdout or curses, so every front end shows
** the same words.
**
** Command groups live one per file (cmd_run.c, cmd_break.c, cmd_inspect.c,
** cmd_graph.c, cmd_source.c, cmd_numerics.c, cmd_profile.c), each exporting a
** CommandGroup that cmd.c lists; what the group files share is in
** cmd_int.h, the output sink in out.h.
*/
#ifndef EP_CMD_H
#define EP_CMD_H

#include "out.h"
#include "session.h"

/* The state a front end keeps across commands. */
typedef struct CmdCtx {
    Session *s;
    Out *out;
    int frame;          /* stack frame selected by `frame` (-1: innermost) */
    int list_node;      /* node `list` last showed, and where it continues */
    int list_line;
    const char *const *source_dirs;
    int nsource_dirs;
    bool quit;          /* set by `quit` */
} CmdCtx;

/* A command: args is the rest of the line, trimmed.  Errors go to err (the
** front end prints them); EP_OK otherwise. */
typedef EpStatus (*CmdFn)(CmdCtx *c, const char *args, EpError *err);

typedef struct Command {
    const char *name;     /* "reverse-step" */
    const char *alias;    /* gdb short form ("rs"), or NULL */
    CmdFn fn;
    const char *usage;    /* "reverse-step [N]" */
    const char *help;     /* one line */
} Command;

typedef struct CommandGroup {
    const char *title;    /* "Running", "Breakpoints", ... for `help` */
    const Command *commands;
    int n;
    /* `info WHAT` subcommands of this group ("breakpoints", "node"), found
    ** the same way as commands (exact, then unique prefix: `i b`). */
    const Command *infos;
    int ninfos;
} CommandGroup;

/* The groups of the command files (each defined in its file). */
extern const CommandGroup CMD_GROUP_RUN, CMD_GROUP_BREAK, CMD_GROUP_INSPECT, CMD_GROUP_GRAPH, CMD_GROUP_SOURCE,
    CMD_GROUP_NUMERICS, CMD_GROUP_PROFILE, CMD_GROUP_MISC;

/* Run one command line ("" and "#..." lines do nothing).  Unknown or
** ambiguous names, bad arguments and failures are errors. */
EpStatus cmd_execute(CmdCtx *c, const char *line, EpError *err);

/* The exit-status rule both front ends share: what a command line that
** returned rc means for the session's exit code -- rc itself when the
** command failed, else the failure the session stands on (3 inputs
** rejected, 4 a node failed) unless the line only reads (`info ...`).
** line NULL asks about the session as opened, before any command.  A front
** end exits with the first nonzero status this gives. */
EpStatus cmd_exit_status(const CmdCtx *c, const char *line, EpStatus rc);

/* The command names (info: the `info` subcommand names) into names, at
** most max; returns how many (for tab completion). */
int cmd_names(bool info, const char **names, int max);

/* Look a command up by exact name, alias or unique prefix. */
const Command *cmd_find(const char *name, EpError *err);

/* The text of a source file named in a stack trace (new string), found as
** given or under the --source-dirs by its trailing path components; the
** path used goes to used.  NULL when it is nowhere readable
** (cmd_source.c; the TUI's source pane reads files the same way). */
char *cmd_read_source(CmdCtx *c, const char *file, char *used, size_t cap);

#endif
