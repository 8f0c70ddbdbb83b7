/*
** tui_int.h -- the TUI's insides: the state every pane reads, the
** interface a pane implements, and the functions a pane may call.
**
** The screen manager (tui.c, tui_draw.c) owns the Tui, lays the panes out,
** draws their title rows and the status line, routes keys and clicks, and
** runs commands through the same command table as batch mode (cmd.h);
** screen.c is the only file that talks to curses.  Each pane is one file
** (pane_graph.c, pane_source.c, pane_inspector.c, pane_shapes.c,
** pane_profile.c, pane_console.c) exporting a PaneClass (panes.h lists
** them); it draws its content into the Canvas it is given and keeps its
** own state (scroll position, folds) in the object its create() returns.
**
** Calls go one way: the manager calls the panes, and the panes call only
** the functions declared below (tui_state.c), never the manager.  A pane
** acts by changing the selection or the inspected value (every pane hears
** of it through its changed()), or by leaving a note on the status line;
** running the program is the manager's job (tui_command, tui.h).
*/
#ifndef EP_TUI_INT_H
#define EP_TUI_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "canvas.h"
#include "debugger/cmd.h"
#include "keys.h"

typedef struct Tui Tui;

typedef enum PaneId {
    PANE_GRAPH,
    PANE_SOURCE,
    PANE_INSPECTOR,
    PANE_SHAPES,
    PANE_PROFILE,
    PANE_CONSOLE,
    PANE_COUNT
} PaneId;

typedef struct PaneClass {
    const char *name;                 /* "graph": also the title's first word */
    void *(*create)(Tui *t);          /* the pane's state (owned by the Tui) */
    void (*destroy)(void *state);
    /* Title text after the name, e.g. "12/340" (may leave buf empty). */
    void (*title)(Tui *t, void *state, char *buf, size_t cap);
    /* Draw the content (the rows below the title) into c. */
    void (*draw)(Tui *t, void *state, Canvas *c, bool focused);
    /* A key while the pane has focus: true when the pane used it; other
    ** keys go to the key bindings.  c_rows is the content height, for
    ** paging. */
    bool (*key)(Tui *t, void *state, int key, int c_rows);
    /* A mouse click at (row, col) of the content canvas (may be NULL). */
    void (*click)(Tui *t, void *state, int row, int col);
    /* The run moved or the selection changed (may be NULL): drop caches. */
    void (*changed)(Tui *t, void *state);
} PaneClass;

/* The console's log: command lines and their output, oldest first. */
typedef struct ConsoleLog {
    char **lines;     /* owned */
    Style *styles;
    int n, cap;
    char *partial;    /* output not ended by a newline yet (owned) */
} ConsoleLog;

/* The command line being edited (console prompt, search, dialogs). */
typedef struct LineEdit {
    char buf[1024];
    int len, cursor;
} LineEdit;

typedef enum TuiMode {
    MODE_NORMAL,      /* keys go to the focused pane and the bindings */
    MODE_PROMPT,      /* ':' typing a command */
    MODE_SEARCH,      /* '/' typing a regex */
    MODE_HELP,        /* the help overlay */
    MODE_DIALOG,      /* a message box (missing inputs, errors) */
    MODE_CONFIRM_QUIT /* "quit while a run is in progress?" */
} TuiMode;

/* Where a pane is on the screen (its title row is the first row); rows 0:
** not shown. */
typedef struct PaneRect {
    int top, left, rows, cols;
} PaneRect;

struct Tui {
    Session *s;
    CmdCtx cmd;             /* shared with batch mode's commands */
    Out out;                /* command output -> the console log */
    const char *model_path;

    /* what the panes show */
    int selected;           /* the node selected in the graph (-1: none) */
    char *inspect;          /* the value the inspector shows (owned), NULL: the selected node's output */
    unsigned char *nan_seen; /* per node: its output had NaN/Inf when it last ran */
    int nnodes;

    const PaneClass *pane_class[PANE_COUNT]; /* the pane table (panes.h), copied by tui_new */
    void *pane_state[PANE_COUNT];
    int focus;              /* a PaneId */
    bool zoomed;            /* the focused pane fills the screen */
    int return_focus;       /* the console took the screen to show output: Esc goes back here (-1: no) */

    ConsoleLog log;
    LineEdit edit;
    char **history;         /* command history, oldest first (owned) */
    int nhistory, history_pos;
    TuiMode mode;
    int help_scroll;
    char *dialog;           /* dialog text (owned) */

    char *search;           /* the last search regex (owned) */

    Keymap keys;
    bool color;
    bool quit;
    atomic_bool running;    /* a command is executing (read by tui_main.c's status ticker thread) */
    EpStatus exit_status;   /* the first failure (cmd_exit_status, as batch mode): tui_main's result */
    char *status_note;      /* a transient note for the status line (owned) */
    int mouse_row, mouse_col; /* of the last TK_MOUSE */
    int nan_checked;        /* nodes below this have their nan_seen set */
    PaneRect rects[PANE_COUNT]; /* where tui_render put each pane */
    int divider_col, divider_rows; /* the column between graph and the right-hand panes */
    bool redraw_all;        /* the terminal needs a full repaint (resize, C-l) */
    int cursor_row, cursor_col; /* where tui_render wants the terminal cursor (-1: hidden) */
    /* Show the screen now (set by the terminal loop; NULL headless): the
    ** progress of a long run is drawn through it. */
    void (*present)(Tui *t);
    void *present_ctx;
    /* the session's profile as the panes last saw it (tui_profile) */
    unsigned long profile_gen;  /* bumped whenever what it says changed */
    const Profile *profile_seen;
    int profile_iters;
    double profile_wall;
    int64_t profile_work;       /* executions + samples measured */
    bool profile_running;
};

/* What a refusal of the inputs by the program's guards adds to its
** dialog: where the guard tree and the suggested fix are (tui.c). */
extern const char TUI_GUARD_HINT[];

/* ---- for panes (tui_state.c) ------------------------------------------------------ */

/* Select node i in the graph: the source and inspector panes follow. */
void tui_select_node(Tui *t, int node);
/* Show value name in the inspector (NULL: the selected node's output). */
void tui_inspect(Tui *t, const char *name);
/* A note on the status line until the next key. */
void tui_note(Tui *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Focus pane id (a PaneId): a pane's jump to another ("show this line"). */
void tui_focus(Tui *t, int pane);
/* The session's profile (NULL: none) and in *gen a number that changes
** whenever the profile does (more measured, a new one, running or not):
** what a pane's cache of rows or shares is keyed by. */
const Profile *tui_profile(Tui *t, unsigned long *gen);
/* Tell every pane the run moved or the selection changed (their
** changed()); tui_select_node and tui_inspect do it themselves. */
void tui_panes_changed(Tui *t);

/* The node the run is at (the next to run; the last one stopped after), -1
** before any run. */
int tui_current_node(const Tui *t);
/* Whether node has run in the current run. */
bool tui_node_done(const Tui *t, int node);
/* Whether an enabled breakpoint covers node (location only). */
bool tui_node_has_break(const Tui *t, int node);

/* The status text while a command runs: node is the one executing (index
** in the program's graph, or -1 inside a subgraph), name its name (NULL:
** none yet), seconds how long it has run so far (0: not said).  Reads only
** what never changes after tui_new (safe from another thread). */
void tui_running_text(const Tui *t, int node, const char *name, int seconds, char *buf, size_t cap);

/* The lines of the console log: the manager adds command lines and their
** output, the console pane shows them. */
void console_log_add(ConsoleLog *log, const char *text, Style st);
void console_log_free(ConsoleLog *log);

#endif
