/*
** tui.h -- the full-screen debugger: `epdbg MODEL.pt2` on a terminal.
**
** tui_main runs it on the terminal over a session its caller opened (main.c
** does, through cli_debug).  The rest drives the same screen manager
** without a terminal -- keys in, a Grid of text out -- for the tests and
** bench/.  The insides (the Tui state, the pane interface) are in
** tui_int.h; nothing here depends on the command line's types.
*/
#ifndef EP_TUI_H
#define EP_TUI_H

#include <stdbool.h>

#include "canvas.h"
#include "debugger/session.h"

/* What the full-screen debugger needs besides the session.  Everything is
** borrowed for the duration of tui_main. */
typedef struct TuiOptions {
    const char *model_path;         /* the archive, named on the status line */
    const char *const *source_dirs; /* where the source pane and `list` look for the model's Python */
    int nsource_dirs;
    bool color;                     /* colours if the terminal has them; false (or NO_COLOR set in the
                                    ** environment): plain attributes only */
    const char *note;               /* shown in a dialog when the screen opens (e.g. no inputs), or NULL */
} TuiOptions;

/* The full-screen debugger on session s (opened by the caller, who frees
** it), until the user quits.  Reads key bindings from ~/.epdbgrc; Ctrl-C
** stops a run at the next node instead of ending the program.  Returns the
** exit code by batch mode's rule (cmd_exit_status): 0, or the status of the
** session's first failure (3 inputs rejected, 4 a node failed, 1 a command
** error); 1 (message on stderr) when the terminal cannot be used.  A fatal
** signal (SIGTERM, SIGQUIT, SIGHUP, SIGSEGV, ...) gives the terminal back
** before the program dies of it (exit status 128+N). */
int tui_main(Session *s, const TuiOptions *opt);

/* ---- headless: the screen manager without a terminal ----------------------------- */

typedef struct Tui Tui;

/* A TUI over session s (borrowed; inputs bound or the binding failure as
** its stop, which opens a dialog).  model_path and source_dirs are
** borrowed. */
Tui *tui_new(Session *s, const char *model_path, const char *const *source_dirs, int nsource_dirs, bool color);
void tui_free(Tui *t); /* NULL ok; the session stays the caller's */

/* Handle one key (keys.h codes, as from the terminal). */
void tui_key(Tui *t, int key);
/* A click at screen position (row, col): focus that pane, pass it on. */
void tui_click(Tui *t, int row, int col);
/* Run a command line as if typed at the prompt (echoed in the console with
** its output), then refresh everything.  Returns its status. */
EpStatus tui_command(Tui *t, const char *line);
/* Open a message box (Enter or Esc closes it). */
void tui_dialog(Tui *t, const char *text);

/* Draw the whole screen into g (what screen.c copies to the terminal, and
** what headless tests read). */
void tui_render(Tui *t, Grid *g);

#endif
