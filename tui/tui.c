/*
** tui.c -- the screen manager: runs commands, routes keys and clicks to
** the focused pane, the prompt and search, and opens and closes the TUI
** (tui.h).  Drawing the screen is in tui_draw.c, the terminal loop in
** tui_main.c, what the panes share in tui_state.c; nothing here touches
** curses, so all of it runs headless in the tests.
**
** Calls go one way: this file calls the panes (through the classes of
** panes.c, and the graph's search) and the shared state; the panes call
** only the shared state, never back into this file.
**
** Every action is a command string: a key is looked up in the key map and
** its command runs through tui_command(), which handles the TUI's own
** ui-* commands and passes the rest to the debugger's command table, the
** same one batch mode uses.  The output lands in the console pane.
*/
#include "tui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pane_graph.h"
#include "panes.h"
#include "tui_int.h"

/* ---- the console ---------------------------------------------------------------- */

/* The commands' output sink: text split into log lines (a command's last
** line may come without its newline in several writes). */
static void console_write(void *ctx, const char *text, size_t len)
{
    Tui *t = ctx;
    ConsoleLog *log = &t->log;
    StrBuf sb;
    sb_init(&sb);
    if (log->partial)
        sb_append(&sb, log->partial);
    free(log->partial);
    log->partial = NULL;
    sb_appendn(&sb, text, len);
    char *all = sb_take(&sb);
    char *line = all;
    for (char *nl; (nl = strchr(line, '\n')); line = nl + 1) {
        *nl = '\0';
        console_log_add(log, line, strncmp(line, "error:", 6) == 0 ? ST_ERROR : ST_NORMAL);
    }
    if (*line)
        log->partial = ep_xstrdup(line);
    free(all);
}

static void console_flush(Tui *t)
{
    if (t->log.partial) {
        console_log_add(&t->log, t->log.partial, ST_NORMAL);
        free(t->log.partial);
        t->log.partial = NULL;
    }
}

/* ---- the run, as the panes see it ------------------------------------------------ */

/* Nodes whose output is non-finite: checked once for each node as the run
** passes it, forgotten when the run goes back over it. */
static void update_nan_seen(Tui *t)
{
    const Interp *ip = session_interp(t->s);
    int pc = interp_bound(ip) ? interp_pc(ip) : 0;
    if (pc < t->nan_checked) {
        memset(t->nan_seen + pc, 0, (size_t)(t->nan_checked - pc));
        t->nan_checked = pc;
    }
    for (int i = t->nan_checked; i < pc; i++) {
        char *detail = NULL;
        t->nan_seen[i] = interp_node_nonfinite(ip, i, &detail);
        free(detail);
    }
    t->nan_checked = pc;
}

/* ---- running commands ------------------------------------------------------------- */

/* Where the run is, to tell whether a command moved it. */
static long position_of(const Tui *t)
{
    const Interp *ip = session_interp(t->s);
    const Stop *st = session_last_stop(t->s);
    return ((long)interp_history_len(ip) * 4 + st->after * 2 + (interp_bound(ip) ? 1 : 0)) * 16 + st->kind;
}

static EpStatus run_command(Tui *t, const char *line, bool typed);

static void progress(void *ctx, int node, int nnodes)
{
    Tui *t = ctx;
    (void)nnodes;
    char text[256];
    tui_running_text(t, node, node < t->nnodes ? interp_node(session_interp(t->s), node)->name : NULL, 0, text,
                     sizeof text);
    tui_note(t, "%s", text);
    if (t->present)
        t->present(t);
}

static void toggle_break(Tui *t)
{
    if (t->selected < 0)
        return;
    /* a breakpoint on exactly this node goes; otherwise one is added */
    for (int i = 0; i < session_num_breakpoints(t->s); i++) {
        const Breakpoint *b = session_breakpoint(t->s, i);
        if (b->kind == BP_NODE && b->nmatch == 1 && b->at[t->selected] && !b->cond) {
            char line[64];
            snprintf(line, sizeof line, "delete %d", b->id);
            run_command(t, line, false);
            return;
        }
    }
    char *line = ep_xasprintf("break %s", interp_node(session_interp(t->s), t->selected)->name);
    run_command(t, line, false);
    free(line);
}

static void search_step(Tui *t, int dir)
{
    if (!t->search) {
        tui_note(t, "no search yet: / starts one");
        return;
    }
    EpError err = {0};
    int node = pane_graph_search(t, t->pane_state[PANE_GRAPH], t->search, t->selected, dir, &err);
    if (node < 0) {
        tui_note(t, "%s", err.msg);
        return;
    }
    tui_select_node(t, node);
    tui_note(t, "/%s: #%d '%s'  (; next, , previous)", t->search, node,
             interp_node(session_interp(t->s), node)->name);
}

/* Run to the cursor: gdb's `until LOCATION` with the selected node. */
static void until_selected(Tui *t)
{
    if (t->selected < 0)
        return;
    char *line = ep_xasprintf("until #%d", t->selected);
    run_command(t, line, false);
    free(line);
}

/* Whether the run is somewhere a quit would abandon. */
static bool run_in_progress(const Tui *t)
{
    const Interp *ip = session_interp(t->s);
    return interp_bound(ip) && interp_pc(ip) > 0 && !interp_finished(ip);
}

static void focus_pane(Tui *t, int dir)
{
    t->return_focus = -1;
    t->focus = (t->focus + dir + PANE_COUNT) % PANE_COUNT;
}

/* The TUI's own commands; true when line was one. */
static bool ui_command(Tui *t, const char *line)
{
    if (strncmp(line, "ui-", 3) != 0)
        return false;
    const char *what = line + 3;
    if (strcmp(what, "toggle-break") == 0) {
        toggle_break(t);
    } else if (strcmp(what, "until-selected") == 0) {
        until_selected(t);
    } else if (strcmp(what, "inspect") == 0) {
        tui_inspect(t, NULL);
        t->focus = PANE_INSPECTOR;
    } else if (strcmp(what, "search") == 0) {
        t->mode = MODE_SEARCH;
        t->edit.len = t->edit.cursor = 0;
        t->edit.buf[0] = '\0';
    } else if (strcmp(what, "search-next") == 0) {
        search_step(t, +1);
    } else if (strcmp(what, "search-prev") == 0) {
        search_step(t, -1);
    } else if (strcmp(what, "prompt") == 0) {
        t->mode = MODE_PROMPT;
        t->edit.len = t->edit.cursor = 0;
        t->edit.buf[0] = '\0';
        t->history_pos = t->nhistory;
    } else if (strcmp(what, "next-pane") == 0) {
        focus_pane(t, +1);
    } else if (strcmp(what, "prev-pane") == 0) {
        focus_pane(t, -1);
    } else if (strcmp(what, "zoom") == 0) {
        t->zoomed = !t->zoomed;
    } else if (strcmp(what, "help") == 0) {
        t->mode = MODE_HELP;
        t->help_scroll = 0;
    } else if (strcmp(what, "quit") == 0) {
        if (run_in_progress(t))
            t->mode = MODE_CONFIRM_QUIT;
        else
            t->quit = true;
    } else if (strcmp(what, "redraw") == 0) {
        t->redraw_all = true;
    } else {
        tui_note(t, "unknown TUI command '%s'", line);
    }
    return true;
}

/* On a small terminal (or zoomed) the console may be hidden: a command
** typed at the prompt, or one that printed without moving the run (`B`,
** ...), then gets the console on the whole screen until Esc. */
static void show_output(Tui *t, int log_before, bool typed, bool moved)
{
    if (t->rects[PANE_CONSOLE].rows > 0 || t->log.n <= log_before + 1 || (!typed && moved) ||
        t->focus == PANE_CONSOLE)
        return;
    t->return_focus = t->focus;
    t->focus = PANE_CONSOLE;
    tui_note(t, "the command's output; Esc goes back to the %s pane", t->pane_class[t->return_focus]->name);
}

/* Run a command line: typed at the prompt, or sent by a key. */
static EpStatus run_command(Tui *t, const char *line, bool typed)
{
    while (*line == ' ')
        line++;
    if (ui_command(t, line))
        return EP_OK;
    int log_before = t->log.n;
    char *echo = ep_xasprintf("(epdbg) %s", line);
    console_log_add(&t->log, echo, ST_KEY);
    free(echo);
    long before = position_of(t);
    EpError err = {0};
    t->running = true;
    session_set_progress(t->s, progress, t);
    EpStatus rc = cmd_execute(&t->cmd, line, &err);
    session_set_progress(t->s, NULL, NULL);
    t->running = false;
    free(t->status_note);
    t->status_note = NULL;
    console_flush(t);
    /* batch mode's rule, but a command refused (a typo, finish at the top
    ** level: usage errors) is the user's slip at a prompt, not a failure
    ** of the session as it is in a script */
    if (!t->exit_status)
        t->exit_status = cmd_exit_status(&t->cmd, line, rc == EP_ERR_USAGE ? EP_OK : rc);
    if (rc) {
        char *msg = ep_xasprintf("error: %s", err.msg);
        console_log_add(&t->log, msg, ST_ERROR);
        tui_note(t, "%s", msg);
        if (rc == EP_ERR_INPUT && session_inputs_rejected(t->s)) /* where the explanation and the fix are */
            console_log_add(&t->log, TUI_GUARD_HINT, ST_KEY);
        free(msg);
    }
    if (t->cmd.quit) {
        t->cmd.quit = false;
        ui_command(t, "ui-quit");
    }
    update_nan_seen(t);
    bool moved = position_of(t) != before;
    if (moved) {
        int cur = tui_current_node(t);
        if (cur >= 0) {
            t->selected = -1; /* so the selection resets the inspector */
            tui_select_node(t, cur);
        }
    }
    tui_panes_changed(t);
    show_output(t, log_before, typed, moved);
    return rc;
}

EpStatus tui_command(Tui *t, const char *line)
{
    return run_command(t, line, true);
}

/* ---- the prompt -------------------------------------------------------------------- */

static void edit_insert(LineEdit *e, int ch)
{
    if (ch < 0x20 || ch >= 0x7F || e->len + 1 >= (int)sizeof e->buf)
        return; /* commands are ASCII */
    memmove(e->buf + e->cursor + 1, e->buf + e->cursor, (size_t)(e->len - e->cursor + 1));
    e->buf[e->cursor++] = (char)ch;
    e->len++;
}

static void edit_set(LineEdit *e, const char *text)
{
    snprintf(e->buf, sizeof e->buf, "%s", text);
    e->len = e->cursor = (int)strlen(e->buf);
}

static void history_add(Tui *t, const char *line)
{
    if (!*line || (t->nhistory && strcmp(t->history[t->nhistory - 1], line) == 0))
        return;
    t->history = ep_xrealloc(t->history, (size_t)(t->nhistory + 1) * sizeof *t->history);
    t->history[t->nhistory++] = ep_xstrdup(line);
}

/* Tab: complete the word before the cursor -- a command name as the first
** word, else a node name.  One candidate completes; several complete
** their common prefix and are listed in the console. */
static void complete(Tui *t)
{
    LineEdit *e = &t->edit;
    int start = e->cursor;
    while (start > 0 && e->buf[start - 1] != ' ')
        start--;
    int wlen = e->cursor - start;
    /* which word this is: the command, `info`'s subcommand, or later */
    int words = 0;
    for (int i = 0; i < start; i++)
        if (e->buf[i] != ' ' && (i == 0 || e->buf[i - 1] == ' '))
            words++;
    bool after_info = words == 1 && (strncmp(e->buf, "info ", 5) == 0 || strncmp(e->buf, "i ", 2) == 0);
    bool first_word = words == 0 || after_info;
    const char *names[256];
    int nnames = first_word ? cmd_names(after_info, names, 256) : 0;
    const char *cand[64];
    int ncand = 0, total = 0;
    char prefix[256] = "";
    int plen = -1;
    int count = first_word ? nnames : t->nnodes;
    for (int i = 0; i < count; i++) {
        const char *name = first_word ? names[i] : interp_node(session_interp(t->s), i)->name;
        if (strncmp(name, e->buf + start, (size_t)wlen) != 0)
            continue;
        bool dup = false;
        for (int k = 0; k < ncand; k++)
            dup = dup || strcmp(cand[k], name) == 0;
        if (dup)
            continue;
        total++;
        if (ncand < 64)
            cand[ncand++] = name;
        if (plen < 0) {
            snprintf(prefix, sizeof prefix, "%s", name);
            plen = (int)strlen(prefix);
        } else {
            int k = 0;
            while (k < plen && prefix[k] == name[k])
                k++;
            plen = k;
            prefix[plen] = '\0';
        }
    }
    if (total == 0) {
        tui_note(t, "no completion for '%.*s'", wlen, e->buf + start);
        return;
    }
    for (int k = wlen; k < plen; k++)
        edit_insert(e, prefix[k]);
    if (total == 1) {
        edit_insert(e, ' ');
    } else {
        StrBuf sb;
        sb_init(&sb);
        for (int k = 0; k < ncand; k++)
            sb_printf(&sb, "%s%s", k ? "  " : "", cand[k]);
        if (total > ncand)
            sb_printf(&sb, "  ... (%d in all)", total);
        console_log_add(&t->log, sb.data ? sb.data : "", ST_DIM);
        sb_free(&sb);
    }
}

/* A key while typing a command or a search. */
static void prompt_key(Tui *t, int key)
{
    LineEdit *e = &t->edit;
    switch (key) {
    case TK_ESC:
    case TK_CTRL('g'):
        t->mode = MODE_NORMAL;
        return;
    case TK_ENTER: {
        char line[sizeof e->buf];
        snprintf(line, sizeof line, "%s", e->buf);
        TuiMode mode = t->mode;
        t->mode = MODE_NORMAL;
        if (mode == MODE_SEARCH) {
            if (line[0]) {
                free(t->search);
                t->search = ep_xstrdup(line);
            }
            search_step(t, +1);
        } else if (line[0]) {
            history_add(t, line);
            tui_command(t, line);
        }
        return;
    }
    case TK_BACKSPACE:
        if (e->cursor > 0) {
            memmove(e->buf + e->cursor - 1, e->buf + e->cursor, (size_t)(e->len - e->cursor + 1));
            e->cursor--;
            e->len--;
        } else if (e->len == 0) {
            t->mode = MODE_NORMAL;
        }
        return;
    case TK_DELETE:
        if (e->cursor < e->len) {
            memmove(e->buf + e->cursor, e->buf + e->cursor + 1, (size_t)(e->len - e->cursor));
            e->len--;
        }
        return;
    case TK_LEFT:
        if (e->cursor > 0)
            e->cursor--;
        return;
    case TK_RIGHT:
        if (e->cursor < e->len)
            e->cursor++;
        return;
    case TK_HOME:
    case TK_CTRL('a'):
        e->cursor = 0;
        return;
    case TK_END:
    case TK_CTRL('e'):
        e->cursor = e->len;
        return;
    case TK_CTRL('u'):
        edit_set(e, "");
        return;
    case TK_UP:
        if (t->mode == MODE_PROMPT && t->history_pos > 0)
            edit_set(e, t->history[--t->history_pos]);
        return;
    case TK_DOWN:
        if (t->mode == MODE_PROMPT && t->history_pos < t->nhistory) {
            t->history_pos++;
            edit_set(e, t->history_pos < t->nhistory ? t->history[t->history_pos] : "");
        }
        return;
    case TK_TAB:
        if (t->mode == MODE_PROMPT)
            complete(t);
        return;
    default:
        edit_insert(e, key);
        return;
    }
}

/* ---- keys ----------------------------------------------------------------------------- */

void tui_click(Tui *t, int row, int col)
{
    if (t->mode != MODE_NORMAL)
        return;
    for (int i = 0; i < PANE_COUNT; i++) {
        const PaneRect *r = &t->rects[i];
        if (r->rows <= 0 || row < r->top || row >= r->top + r->rows || col < r->left || col >= r->left + r->cols)
            continue;
        t->focus = i;
        /* the title row only focuses */
        if (row > r->top && t->pane_class[i]->click)
            t->pane_class[i]->click(t, t->pane_state[i], row - r->top - 1, col - r->left);
        return;
    }
}

void tui_key(Tui *t, int key)
{
    if (key == TK_NONE)
        return;
    if (key == TK_RESIZE) {
        t->redraw_all = true;
        return;
    }
    if (key == TK_MOUSE) {
        tui_click(t, t->mouse_row, t->mouse_col);
        return;
    }
    switch (t->mode) {
    case MODE_PROMPT:
    case MODE_SEARCH:
        prompt_key(t, key);
        return;
    case MODE_HELP:
        if (key == TK_DOWN || key == 'j')
            t->help_scroll++;
        else if ((key == TK_UP || key == 'k') && t->help_scroll > 0)
            t->help_scroll--;
        else if (key == TK_PGDN || key == ' ')
            t->help_scroll += 10;
        else if (key == TK_PGUP)
            t->help_scroll = t->help_scroll > 10 ? t->help_scroll - 10 : 0;
        else
            t->mode = MODE_NORMAL;
        return;
    case MODE_DIALOG:
        if (key == TK_ENTER || key == TK_ESC || key == 'q' || key == ' ') {
            t->mode = MODE_NORMAL;
            free(t->dialog);
            t->dialog = NULL;
        }
        return;
    case MODE_CONFIRM_QUIT:
        if (key == 'y' || key == 'Y')
            t->quit = true;
        t->mode = MODE_NORMAL;
        return;
    case MODE_NORMAL:
        break;
    }
    free(t->status_note);
    t->status_note = NULL;
    if (key == TK_CTRL('c')) {
        tui_note(t, "nothing is running (q quits)");
        return;
    }
    const PaneClass *focused = t->pane_class[t->focus];
    int rows = t->rects[t->focus].rows - 1;
    if (focused->key && focused->key(t, t->pane_state[t->focus], key, rows > 0 ? rows : 1))
        return;
    const char *command = keymap_lookup(&t->keys, key);
    if (command) {
        char *copy = ep_xstrdup(command); /* the command may rebind keys */
        run_command(t, copy, false);
        free(copy);
        return;
    }
    if (key == TK_ESC) {
        t->zoomed = false;
        if (t->return_focus >= 0) {
            t->focus = t->return_focus;
            t->return_focus = -1;
        }
        return;
    }
    char name[32];
    tui_note(t, "%s is not bound (? lists the keys)", key_label(key, name, sizeof name));
}

const char TUI_GUARD_HINT[] =
    "The shapes pane shows the guard tree and a suggested fix; `:suggest` prints the fix with its reasons.";

/* ---- opening and closing ----------------------------------------------------------------- */

Tui *tui_new(Session *s, const char *model_path, const char *const *source_dirs, int nsource_dirs, bool color)
{
    Tui *t = ep_xcalloc(1, sizeof *t);
    t->s = s;
    t->model_path = model_path;
    t->nnodes = session_num_nodes(s);
    t->nan_seen = ep_xcalloc((size_t)(t->nnodes ? t->nnodes : 1), 1);
    t->out = (Out){console_write, t};
    t->cmd = (CmdCtx){.s = s, .out = &t->out, .frame = -1, .list_node = -1,
                      .source_dirs = source_dirs, .nsource_dirs = nsource_dirs};
    t->color = color;
    t->selected = -1;
    t->return_focus = -1;
    t->exit_status = cmd_exit_status(&t->cmd, NULL, EP_OK);
    keymap_defaults(&t->keys);
    for (int i = 0; i < PANE_COUNT; i++)
        t->pane_class[i] = tui_pane_class(i);
    for (int i = 0; i < PANE_COUNT; i++)
        t->pane_state[i] = t->pane_class[i]->create(t);
    t->focus = PANE_GRAPH;
    update_nan_seen(t);
    int cur = tui_current_node(t);
    tui_select_node(t, cur >= 0 ? cur : 0);
    const Stop *st = session_last_stop(s);
    if (st->kind == STOP_ERROR && st->node < 0 && st->detail) {
        char *text = session_inputs_rejected(s) ? ep_xasprintf("%s\n%s", st->detail, TUI_GUARD_HINT)
                                                : ep_xstrdup(st->detail);
        tui_dialog(t, text);
        free(text);
    }
    return t;
}

void tui_dialog(Tui *t, const char *text)
{
    free(t->dialog);
    t->dialog = ep_xstrdup(text);
    t->mode = MODE_DIALOG;
}

void tui_free(Tui *t)
{
    if (!t)
        return;
    for (int i = 0; i < PANE_COUNT; i++)
        if (t->pane_state[i])
            t->pane_class[i]->destroy(t->pane_state[i]);
    console_log_free(&t->log);
    for (int i = 0; i < t->nhistory; i++)
        free(t->history[i]);
    free(t->history);
    keymap_free(&t->keys);
    free(t->nan_seen);
    free(t->inspect);
    free(t->search);
    free(t->dialog);
    free(t->status_note);
    free(t);
}
