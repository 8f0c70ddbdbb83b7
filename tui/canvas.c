/*
** canvas.c -- cells, clipping and text (canvas.h).
*/
#include "canvas.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/ep.h"

void grid_resize(Grid *g, int rows, int cols)
{
    if (rows < 1 || cols < 1)
        rows = cols = 0;
    size_t n = (size_t)rows * (size_t)cols;
    g->cells = ep_xrealloc(g->cells, (n ? n : 1) * sizeof *g->cells);
    g->rows = rows;
    g->cols = cols;
    for (int i = 0; i < rows * cols; i++)
        g->cells[i] = (Cell){' ', ST_NORMAL};
}

void grid_free(Grid *g)
{
    free(g->cells);
    memset(g, 0, sizeof *g);
}

/* Append code point cp to sb as UTF-8. */
static void sb_utf8(StrBuf *sb, uint32_t cp)
{
    char b[4];
    int n;
    if (cp < 0x80) {
        b[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xC0 | (cp >> 6));
        b[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | (cp >> 12));
        b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        b[0] = (char)(0xF0 | (cp >> 18));
        b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    sb_appendn(sb, b, (size_t)n);
}

char *grid_text(const Grid *g)
{
    StrBuf sb;
    sb_init(&sb);
    for (int r = 0; r < g->rows; r++) {
        const Cell *row = &g->cells[r * g->cols];
        int end = g->cols;
        while (end > 0 && row[end - 1].ch == ' ')
            end--;
        for (int c = 0; c < end; c++)
            sb_utf8(&sb, row[c].ch);
        sb_append(&sb, "\n");
    }
    return sb_take(&sb);
}

Canvas canvas_of(Grid *g)
{
    return (Canvas){g, 0, 0, g->rows, g->cols};
}

Canvas canvas_sub(const Canvas *c, int top, int left, int rows, int cols)
{
    Canvas s = {c->grid, c->top + top, c->left + left, rows, cols};
    /* clip to the parent */
    if (top < 0) {
        s.rows += top;
        s.top = c->top;
    }
    if (left < 0) {
        s.cols += left;
        s.left = c->left;
    }
    if (s.top + s.rows > c->top + c->rows)
        s.rows = c->top + c->rows - s.top;
    if (s.left + s.cols > c->left + c->cols)
        s.cols = c->left + c->cols - s.left;
    if (s.rows < 0)
        s.rows = 0;
    if (s.cols < 0)
        s.cols = 0;
    return s;
}

static Cell *cell_at(Canvas *c, int row, int col)
{
    if (row < 0 || row >= c->rows || col < 0 || col >= c->cols)
        return NULL;
    return &c->grid->cells[(c->top + row) * c->grid->cols + c->left + col];
}

void canvas_fill_row(Canvas *c, int row, Style st)
{
    for (int col = 0; col < c->cols; col++) {
        Cell *cell = cell_at(c, row, col);
        if (cell)
            *cell = (Cell){' ', (uint8_t)st};
    }
}

void canvas_clear(Canvas *c, Style st)
{
    for (int r = 0; r < c->rows; r++)
        canvas_fill_row(c, r, st);
}

/* Decode one UTF-8 code point from s (at most n bytes); *len gets its
** length.  Malformed bytes decode as U+FFFD, one byte each. */
static uint32_t utf8_next(const unsigned char *s, int n, int *len)
{
    uint32_t cp;
    int need;
    if (s[0] < 0x80) {
        *len = 1;
        return s[0];
    } else if ((s[0] & 0xE0) == 0xC0) {
        cp = s[0] & 0x1F;
        need = 1;
    } else if ((s[0] & 0xF0) == 0xE0) {
        cp = s[0] & 0x0F;
        need = 2;
    } else if ((s[0] & 0xF8) == 0xF0) {
        cp = s[0] & 0x07;
        need = 3;
    } else {
        *len = 1;
        return 0xFFFD;
    }
    if (need >= n) {
        *len = 1;
        return 0xFFFD;
    }
    for (int i = 1; i <= need; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            *len = 1;
            return 0xFFFD;
        }
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    *len = need + 1;
    return cp;
}

int canvas_printn(Canvas *c, int row, int col, Style st, const char *text, int nbytes)
{
    const unsigned char *s = (const unsigned char *)text;
    int i = 0;
    while (i < nbytes && s[i]) {
        int len;
        uint32_t cp = utf8_next(s + i, nbytes - i, &len);
        i += len;
        if (cp == '\t')
            cp = ' ';
        else if (cp < 0x20 || cp == 0x7F)
            cp = '?';
        Cell *cell = cell_at(c, row, col);
        if (cell)
            *cell = (Cell){cp, (uint8_t)st};
        col++;
    }
    return col;
}

int canvas_print(Canvas *c, int row, int col, Style st, const char *text)
{
    return canvas_printn(c, row, col, st, text, (int)strlen(text));
}

int canvas_printf(Canvas *c, int row, int col, Style st, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return canvas_print(c, row, col, st, buf);
}

void canvas_style(Canvas *c, int row, int col, int n, Style st)
{
    for (int i = 0; i < n; i++) {
        Cell *cell = cell_at(c, row, col + i);
        if (cell)
            cell->style = (uint8_t)st;
    }
}

int text_cells(const char *text)
{
    int n = 0;
    for (const unsigned char *s = (const unsigned char *)text; *s; s++)
        n += (*s & 0xC0) != 0x80;
    return n;
}
