/*
** pane_console.c -- the console pane: the commands run so far (typed at
** the ':' prompt or sent by keys) and their output, newest at the bottom.
** The line being typed is drawn on the status row by tui_draw.c.
*/
#include "tui_int.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct ConsolePane {
    int scroll; /* lines scrolled back from the newest */
    int last_n; /* log size at the last draw: new output scrolls to the end */
} ConsolePane;

static void *console_create(Tui *t)
{
    (void)t;
    return ep_xcalloc(1, sizeof(ConsolePane));
}

static void console_destroy(void *state)
{
    free(state);
}

static void console_title(Tui *t, void *state, char *buf, size_t cap)
{
    ConsolePane *p = state;
    if (p->scroll > 0)
        snprintf(buf, cap, "%d lines (scrolled back %d)", t->log.n, p->scroll);
    else
        snprintf(buf, cap, "%d lines  (: types a command)", t->log.n);
}

static void console_draw(Tui *t, void *state, Canvas *c, bool focused)
{
    (void)focused;
    ConsolePane *p = state;
    if (t->log.n != p->last_n) {
        p->scroll = 0; /* new output: follow it */
        p->last_n = t->log.n;
    }
    int max_scroll = t->log.n - c->rows > 0 ? t->log.n - c->rows : 0;
    if (p->scroll > max_scroll)
        p->scroll = max_scroll;
    int first = t->log.n - c->rows - p->scroll;
    if (first < 0)
        first = 0;
    for (int r = 0; r < c->rows && first + r < t->log.n - p->scroll; r++)
        canvas_print(c, r, 0, t->log.styles[first + r], t->log.lines[first + r]);
}

static bool console_key(Tui *t, void *state, int key, int rows)
{
    ConsolePane *p = state;
    switch (key) {
    case TK_UP:
    case 'k':
        p->scroll++;
        return true;
    case TK_DOWN:
    case 'j':
        if (p->scroll > 0)
            p->scroll--;
        return true;
    case TK_PGUP:
    case TK_WHEEL_UP:
        p->scroll += key == TK_PGUP ? rows : 3;
        return true;
    case TK_PGDN:
    case TK_WHEEL_DOWN:
        p->scroll -= key == TK_PGDN ? rows : 3;
        if (p->scroll < 0)
            p->scroll = 0;
        return true;
    case TK_HOME:
        p->scroll = t->log.n;
        return true;
    case TK_END:
        p->scroll = 0;
        return true;
    default:
        return false;
    }
}

const PaneClass PANE_CONSOLE_CLASS = {
    .name = "console",
    .create = console_create,
    .destroy = console_destroy,
    .title = console_title,
    .draw = console_draw,
    .key = console_key,
};
