/*
** pane_console.c -- the console pane: the commands run so far (typed at
** the ':' prompt or sent by keys) and their output, newest at the bottom.
** Lines wider than the pane wrap; scrolling counts screen rows.  The line
** being typed is drawn on the status row by tui_draw.c.
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
        snprintf(buf, cap, "%d lines (scrolled back %d rows)", t->log.n, p->scroll);
    else
        snprintf(buf, cap, "%d lines  (: types a command)", t->log.n);
}

/* Rows a log line takes at width cols: long lines wrap (a failing node's
** message ends with its cause). */
static int line_rows(const char *text, int cols)
{
    int n = text_cells(text);
    return n <= cols ? 1 : (n + cols - 1) / cols;
}

/* The text after the first cells code points of s. */
static const char *skip_cells(const char *s, int cells)
{
    for (; *s && cells > 0; cells--)
        do
            s++;
        while ((*s & 0xC0) == 0x80);
    return s;
}

/* Draw bottom-up from the newest line, p->scroll rows back; false when the
** log ran out before the top row with scroll > 0 (scroll is then reduced to
** fit, to draw again). */
static bool draw_wrapped(Tui *t, ConsolePane *p, Canvas *c)
{
    int skip = p->scroll, row = c->rows - 1;
    for (int i = t->log.n - 1; i >= 0 && row >= 0; i--) {
        const char *text = t->log.lines[i];
        int nr = line_rows(text, c->cols);
        for (int k = nr - 1; k >= 0 && row >= 0; k--) {
            if (skip > 0) {
                skip--;
                continue;
            }
            const char *piece = skip_cells(text, k * c->cols);
            const char *end = skip_cells(piece, c->cols);
            canvas_printn(c, row--, 0, t->log.styles[i], piece, (int)(end - piece));
        }
    }
    if (row < 0 || p->scroll == 0)
        return true;
    /* scrolled back past the oldest line: pull back by the empty rows */
    p->scroll -= row + 1 + skip;
    if (p->scroll < 0)
        p->scroll = 0;
    canvas_clear(c, ST_NORMAL);
    return false;
}

static void console_draw(Tui *t, void *state, Canvas *c, bool focused)
{
    (void)focused;
    ConsolePane *p = state;
    if (t->log.n != p->last_n) {
        p->scroll = 0; /* new output: follow it */
        p->last_n = t->log.n;
    }
    if (c->cols < 1 || c->rows < 1)
        return;
    if (!draw_wrapped(t, p, c))
        draw_wrapped(t, p, c);
}

static bool console_key(Tui *t, void *state, int key, int rows)
{
    (void)t;
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
        p->scroll = 1 << 28; /* the top: drawing pulls it back to the oldest line */
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
