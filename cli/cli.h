/*
** cli.h -- the subcommands (`epdbg info`, `epdbg run`, the debugger's
** command line, `epdbg replay`).  The input options they share are read by
** debugger/inputs.h.
**
** Each returns the process exit code: 0 ok, 1 usage, 2 unreadable or
** invalid archive/input file, 3 inputs violate the program's constraints,
** 4 execution failed.  Messages go to stderr, results to stdout.
*/
#ifndef EP_CLI_H
#define EP_CLI_H

#include "debugger/inputs.h"
#include "interp/interp.h"

int cli_info(int argc, char **argv);
int cli_run(int argc, char **argv);
/* `epdbg profile MODEL.pt2 ...`: run the program under the profiler and
** write the report (cli/cli_profile.c). */
int cli_profile(int argc, char **argv);
/* `epdbg suggest MODEL.pt2 ...`: the dynamic_shapes the model can be
** exported with, verified (cli/cli_suggest.c). */
int cli_suggest(int argc, char **argv);

typedef struct Session Session;
typedef struct DebugArgs DebugArgs;
/* The full-screen debugger for cli_debug, on session s opened from the
** command line a (note: what the user should know first, or NULL; see
** debug_session_open).  cli/ does not know the TUI: main.c passes one.
** Returns the exit code. */
typedef int (*FullScreenFn)(Session *s, const DebugArgs *a, const char *note);
/* `epdbg MODEL.pt2 ...`: the debugger, scripted (-x, --batch, -ex), or
** without a script on a terminal the full-screen one: full_screen (not
** NULL) over the session cli_debug opened and frees afterwards. */
int cli_debug(int argc, char **argv, FullScreenFn full_screen);
/* `epdbg replay FILE.npz MODEL.pt2`: re-run a replay file's inputs and stop
** at the failing node (the recorded `catch nan` re-armed).  On a terminal
** full_screen (as for cli_debug) opens over that session, its note saying
** what failed; with --batch, without a terminal or with full_screen NULL,
** the report: the stack trace and whether the failure is the recorded one
** (cli/cli_replay.c). */
int cli_replay(int argc, char **argv, FullScreenFn full_screen);

/* The debugger's command line: the model, the input options of `epdbg
** run`, source folders, and the commands to run. */
struct DebugArgs {
    const char *path;
    const char *model_name;
    InputArgs inputs;
    bool no_blas;
    bool no_color;           /* --no-color */
    char **source_dirs;      /* borrowed from argv */
    int nsource_dirs;
    const char *script;      /* -x FILE */
    bool batch_stdin;        /* --batch */
    char **commands;         /* -ex CMD, borrowed from argv */
    int ncommands;
};

/* Parse the options (who names the subcommand in messages).  Returns 0,
** an exit code, or -1 when --help was printed. */
int debug_args_parse(int argc, char **argv, DebugArgs *a, const char *who);
void debug_args_free(DebugArgs *a);
/* Open the session and bind the inputs.  A model that cannot be opened or
** input files that cannot be read are fatal (message on stderr, exit code
** returned); inputs the program rejects are not: the session opens with the
** failure as its stop, so the user can look into it.  *note gets what the
** user should know before the first command (no inputs, rejected inputs;
** a new string, or NULL), with the commands typed as full_screen (the
** TUI's `:run ...`) or a script (`run ...`) types them. */
int debug_session_open(const DebugArgs *a, bool full_screen, Session **out, char **note);

#endif
