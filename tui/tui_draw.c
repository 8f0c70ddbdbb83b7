/*
** tui_draw.c -- the screen manager's drawing: where each pane goes, the
** title rows, the status line or the line being typed, and the overlays
** (help, dialogs, the quit question).  Panes draw their own content into
** the canvas they are given.
**
** Layout at 80x24 and up:
**
**   +-- graph ---------------+-- source -----------+
**   |                        |                      |
**   |                        +-- inspector ---------+
**   |                        |                      |
**   |                        +-- shapes --+-- profile
**   +-- console ------------------------------------+
**   status line (or the prompt while typing)
**
** Smaller than that, or zoomed (z), the focused pane alone fills the
** screen above the status line.
*/
#include "tui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui_int.h"

#define MIN_FULL_ROWS 24
#define MIN_FULL_COLS 80

static void place(PaneRect *r, int top, int left, int rows, int cols)
{
    *r = (PaneRect){top, left, rows > 0 ? rows : 0, cols > 0 ? cols : 0};
}

/* Share the screen (rows x cols, above the status line) among the panes. */
static void layout(Tui *t, int rows, int cols)
{
    memset(t->rects, 0, sizeof t->rects);
    t->divider_rows = 0;
    if (t->zoomed || rows < MIN_FULL_ROWS - 1 || cols < MIN_FULL_COLS) {
        place(&t->rects[t->focus], 0, 0, rows, cols);
        return;
    }
    int console = rows / 4 > 5 ? rows / 4 : 5;
    int top = rows - console;
    int left_w = cols * 45 / 100;
    /* one column of the divider between the graph and the right column,
    ** and one between shapes and profile */
    int right = left_w + 1, right_w = cols - right;
    int half = (right_w - 1) / 2;
    place(&t->rects[PANE_GRAPH], 0, 0, top, left_w);
    int src = top * 36 / 100, insp = top * 40 / 100;
    int bottom = top - src - insp;
    place(&t->rects[PANE_SOURCE], 0, right, src, right_w);
    place(&t->rects[PANE_INSPECTOR], src, right, insp, right_w);
    place(&t->rects[PANE_SHAPES], src + insp, right, bottom, half);
    place(&t->rects[PANE_PROFILE], src + insp, right + half + 1, bottom, right_w - half - 1);
    place(&t->rects[PANE_CONSOLE], top, 0, console, cols);
    t->divider_col = left_w;
    t->divider_rows = top;
}

static void draw_pane(Tui *t, Canvas *screen, int id)
{
    const PaneRect *r = &t->rects[id];
    if (r->rows <= 0 || r->cols <= 0)
        return;
    const PaneClass *pc = t->pane_class[id];
    bool focused = id == t->focus;
    Canvas title = canvas_sub(screen, r->top, r->left, 1, r->cols);
    Style ts = focused ? ST_TITLE_FOCUS : ST_TITLE;
    canvas_fill_row(&title, 0, ts);
    char extra[256] = "";
    if (pc->title)
        pc->title(t, t->pane_state[id], extra, sizeof extra);
    int col = canvas_printf(&title, 0, 1, ts, "%s", pc->name);
    if (extra[0])
        canvas_printf(&title, 0, col + 2, ts, "%s", extra);
    if (focused && t->zoomed)
        canvas_print(&title, 0, r->cols - 9, ts, "[zoomed]");
    Canvas body = canvas_sub(screen, r->top + 1, r->left, r->rows - 1, r->cols);
    if (body.rows > 0)
        pc->draw(t, t->pane_state[id], &body, focused);
}

static const char *stop_words(const Stop *st)
{
    switch (st->kind) {
    case STOP_START: return "started";
    case STOP_STEP: return "stepped";
    case STOP_BREAKPOINT: return "breakpoint";
    case STOP_NAN: return "NaN/Inf caught";
    case STOP_WATCH: return "watchpoint";
    case STOP_END: return "finished";
    case STOP_ERROR: return "failed";
    case STOP_INTERRUPT: return "interrupted";
    case STOP_BACK_START: return "back at the start";
    default: return "not started";
    }
}

static void draw_status(Tui *t, Canvas *line)
{
    canvas_fill_row(line, 0, ST_STATUS);
    if (t->mode == MODE_PROMPT || t->mode == MODE_SEARCH) {
        const char *lead = t->mode == MODE_PROMPT ? "(epdbg) " : "/";
        int start = text_cells(lead);
        /* keep the cursor on screen on a narrow terminal */
        int skip = t->edit.cursor + start >= line->cols ? t->edit.cursor + start - line->cols + 1 : 0;
        canvas_fill_row(line, 0, ST_NORMAL);
        canvas_print(line, 0, 0, ST_KEY, lead);
        canvas_print(line, 0, start, ST_NORMAL, t->edit.buf + (skip < t->edit.len ? skip : t->edit.len));
        t->cursor_row = line->top;
        t->cursor_col = start + t->edit.cursor - skip;
        return;
    }
    const char *base = strrchr(t->model_path, '/') ? strrchr(t->model_path, '/') + 1 : t->model_path;
    const Stop *st = session_last_stop(t->s);
    int cur = tui_current_node(t);
    char pos[160];
    const SourceFrame *where = cur >= 0 ? node_info_user_frame(session_node_info(t->s, cur)) : NULL;
    if (where) /* the user's line, as `list` shows it, not torch's */
        snprintf(pos, sizeof pos, "node %d/%d at %s:%d", cur + 1, t->nnodes,
                 strrchr(where->file, '/') ? strrchr(where->file, '/') + 1 : where->file, where->line);
    else if (cur >= 0)
        snprintf(pos, sizeof pos, "node %d/%d", cur + 1, t->nnodes);
    else
        snprintf(pos, sizeof pos, "%d nodes", t->nnodes);
    char stop[64];
    if (st->kind == STOP_BREAKPOINT || st->kind == STOP_WATCH)
        snprintf(stop, sizeof stop, "%s %d", stop_words(st), st->breakpoint);
    else
        snprintf(stop, sizeof stop, "%s", stop_words(st));
    int nb = session_num_breakpoints(t->s);
    int col = canvas_printf(line, 0, 1, ST_STATUS, "%s | %s | %s | %d breakpoint%s", base, pos, stop, nb,
                            nb == 1 ? "" : "s");
    /* a failure explains itself until something else is said */
    char failure[256];
    const char *note = t->status_note ? t->status_note : "? help  : command  q quit";
    if (!t->status_note && (st->kind == STOP_ERROR || st->kind == STOP_NAN) && st->detail) {
        /* refused inputs: where the explanation is comes first, the message is cut at the edge */
        snprintf(failure, sizeof failure, "%s%.*s",
                 session_inputs_rejected(t->s) && st->node < 0 ? "inputs refused (shapes pane, :suggest): " : "",
                 (int)strcspn(st->detail, "\n"), st->detail);
        note = failure;
    }
    int room = line->cols - col - 3;
    if (room > 8) {
        int len = text_cells(note);
        canvas_print(line, 0, len <= room ? line->cols - len - 1 : col + 3, ST_STATUS, note);
    }
}

/* A centered box of text lines, scrolled by skip; returns the lines shown. */
static int draw_box(Canvas *screen, const char *title, char **lines, const Style *styles, int n, int skip,
                    const char *footer)
{
    int width = text_cells(title) + 4;
    for (int i = 0; i < n; i++)
        if (text_cells(lines[i]) + 4 > width)
            width = text_cells(lines[i]) + 4;
    if (footer && text_cells(footer) + 4 > width)
        width = text_cells(footer) + 4;
    if (width > screen->cols)
        width = screen->cols;
    int height = n + 4 < screen->rows ? n + 4 : screen->rows;
    int top = (screen->rows - height) / 2, left = (screen->cols - width) / 2;
    Canvas box = canvas_sub(screen, top, left, height, width);
    canvas_clear(&box, ST_DIALOG);
    canvas_print(&box, 0, 1, ST_DIALOG, title);
    int shown = 0;
    for (int i = skip; i < n && 1 + shown < height - 2; i++, shown++)
        canvas_print(&box, 1 + shown, 2, styles ? styles[i] : ST_DIALOG, lines[i]);
    if (footer && height >= 3)
        canvas_print(&box, height - 1, 1, ST_DIALOG, footer);
    return shown;
}

/* Split text into lines no wider than width (new strings into *out). */
static int wrap_lines(const char *text, int width, char ***out)
{
    int n = 0, cap = 16;
    char **lines = ep_xmalloc((size_t)cap * sizeof *lines);
    if (width < 10)
        width = 10;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        do {
            int take = len;
            if (take > width) {
                take = width;
                while (take > width / 2 && p[take] != ' ')
                    take--;
                if (p[take] != ' ')
                    take = width;
            }
            if (n == cap)
                lines = ep_xrealloc(lines, (size_t)(cap *= 2) * sizeof *lines);
            lines[n++] = ep_xstrndup(p, (size_t)take);
            p += take;
            len -= take;
            while (len > 0 && *p == ' ') {
                p++;
                len--;
            }
        } while (len > 0);
        p = nl ? nl + 1 : p + len;
        if (!nl)
            break;
    }
    *out = lines;
    return n;
}

static void free_lines(char **lines, int n)
{
    for (int i = 0; i < n; i++)
        free(lines[i]);
    free(lines);
}

/* What the pane keys do, for the help overlay after the bindings. */
static const char *const PANE_KEYS[] = {
    "Up Down PgUp PgDn Home End  move or scroll in the focused pane (j k too)",
    "graph: Enter/Space/Right/Left on a module fold or unfold it; - folds all, + or = unfolds all",
    "source: [ ] or Left Right  previous / next stack frame; Up/Down scroll the file",
    "profile: v cycles the view (op, module, line, node); Enter jumps to the row's node or line",
    "inspector: Up Down Left Right scroll the values, < > the leading index,",
    "           [ ] pick an input/output row, Enter shows it, Backspace goes back",
    "mouse: a click focuses a pane and selects its row; the wheel scrolls",
    "prompt: Tab completes commands and node names, Up/Down history, Esc cancels",
    "Ctrl-C during a run stops it at the current node",
    "bind KEY COMMAND in ~/.epdbgrc changes a key; `help` at the prompt lists the commands",
};

static void draw_help(Tui *t, Canvas *screen)
{
    int npane = (int)(sizeof PANE_KEYS / sizeof PANE_KEYS[0]), ngdb = 0;
    while (KEYMAP_GDB_NOTES[ngdb])
        ngdb++;
    int n = t->keys.n + 2 + npane + 2 + ngdb;
    char **lines = ep_xmalloc((size_t)n * sizeof *lines);
    int k = 0;
    for (int i = 0; i < t->keys.n; i++) {
        char name[32];
        const Binding *b = &t->keys.b[i];
        lines[k++] = ep_xasprintf("%-6s %-18s %s", key_label(b->key, name, sizeof name), b->command,
                                  b->help ? b->help : "");
    }
    lines[k++] = ep_xstrdup("");
    lines[k++] = ep_xstrdup("In the panes");
    for (int i = 0; i < npane; i++)
        lines[k++] = ep_xasprintf("  %s", PANE_KEYS[i]);
    lines[k++] = ep_xstrdup("");
    lines[k++] = ep_xstrdup("Differences from gdb");
    for (int i = 0; i < ngdb; i++)
        lines[k++] = ep_xasprintf("  %s", KEYMAP_GDB_NOTES[i]);
    int room = screen->rows - 4;
    if (t->help_scroll > n - room)
        t->help_scroll = n - room > 0 ? n - room : 0;
    draw_box(screen, "Keys (any other key closes; Up/Down scroll)", lines, NULL, k, t->help_scroll,
             room < n ? "more: Down / PgDn" : NULL);
    free_lines(lines, k);
}

static void draw_dialog(Canvas *screen, const char *title, const char *text, const char *footer)
{
    char **lines;
    int n = wrap_lines(text, screen->cols - 4 < 76 ? screen->cols - 4 : 76, &lines);
    draw_box(screen, title, lines, NULL, n, 0, footer);
    free_lines(lines, n);
}

void tui_render(Tui *t, Grid *g)
{
    Canvas screen = canvas_of(g);
    canvas_clear(&screen, ST_NORMAL);
    t->cursor_row = t->cursor_col = -1;
    if (g->rows < 1 || g->cols < 1)
        return;
    layout(t, g->rows - 1, g->cols);
    for (int i = 0; i < PANE_COUNT; i++)
        draw_pane(t, &screen, i);
    for (int r = 0; r < t->divider_rows; r++)
        canvas_print(&screen, r, t->divider_col, ST_DIM, "\u2502");
    const PaneRect *sh = &t->rects[PANE_SHAPES];
    for (int r = 0; r < sh->rows; r++)
        canvas_print(&screen, sh->top + r, sh->left + sh->cols, ST_DIM, "\u2502");
    Canvas status = canvas_sub(&screen, g->rows - 1, 0, 1, g->cols);
    draw_status(t, &status);
    Canvas above = canvas_sub(&screen, 0, 0, g->rows - 1, g->cols);
    if (t->mode == MODE_HELP) {
        draw_help(t, &above);
    } else if (t->mode == MODE_DIALOG && t->dialog) {
        draw_dialog(&above, "epdbg", t->dialog, "Enter or Esc closes");
    } else if (t->mode == MODE_CONFIRM_QUIT) {
        char *q = ep_xasprintf("The run is in progress (at node %d of %d). Quit anyway?", tui_current_node(t) + 1,
                               t->nnodes);
        draw_dialog(&above, "Quit?", q, "y quits, any other key stays");
        free(q);
    }
}
