/*
** canvas.h -- what the TUI's panes draw on.
**
** A Grid is the whole screen as cells (a code point and a style).  A Canvas
** is a rectangle of a grid: a pane draws into its canvas with coordinates
** relative to the rectangle, and everything outside is clipped, so a pane
** cannot scribble over its neighbours.  Only screen.c turns a grid into
** curses calls; tests and bench/ draw onto a grid with no terminal at all
** and read it back as text (grid_text).
**
** Text is UTF-8; each code point takes one cell (wide characters are not
** measured: source files are mostly ASCII, and a stray wide glyph only
** shifts the rest of its own line).
*/
#ifndef EP_CANVAS_H
#define EP_CANVAS_H

#include <stdbool.h>
#include <stdint.h>

/* What a cell means; screen.c maps each to colours and attributes (plain
** attributes only under NO_COLOR / --no-color). */
typedef enum Style {
    ST_NORMAL,
    ST_TITLE,        /* a pane's title row */
    ST_TITLE_FOCUS,  /* the focused pane's title row */
    ST_CURSOR,       /* the selected row of the focused pane */
    ST_CURSOR_DIM,   /* the selected row of a pane without focus */
    ST_CURRENT,      /* the node the run is at; the source line being run */
    ST_BREAK,        /* breakpoint markers */
    ST_NAN,          /* NaN/Inf seen */
    ST_DONE,         /* nodes already run */
    ST_DIM,          /* secondary text: module paths, line numbers */
    ST_MATCH,        /* search matches */
    ST_ERROR,        /* error messages */
    ST_STATUS,       /* the status line */
    ST_KEY,          /* key names in the help overlay */
    ST_DIALOG,       /* a dialog box */
    ST_COUNT
} Style;

typedef struct Cell {
    uint32_t ch;     /* a code point; ' ' for blank */
    uint8_t style;   /* a Style */
} Cell;

typedef struct Grid {
    int rows, cols;
    Cell *cells;     /* rows * cols, row-major (owned) */
} Grid;

typedef struct Canvas {
    Grid *grid;
    int top, left;   /* the rectangle, in grid coordinates */
    int rows, cols;
} Canvas;

/* Resize (and blank) a grid; rows/cols < 1 give an empty grid. */
void grid_resize(Grid *g, int rows, int cols);
void grid_free(Grid *g);
/* The grid as text: one line per row, trailing blanks trimmed (new
** string).  What the headless tests and the bench read. */
char *grid_text(const Grid *g);

/* The whole grid as a canvas. */
Canvas canvas_of(Grid *g);
/* A rectangle within c, clipped to c. */
Canvas canvas_sub(const Canvas *c, int top, int left, int rows, int cols);
/* Blank the canvas (spaces of style st). */
void canvas_clear(Canvas *c, Style st);
/* Fill row with spaces of style st. */
void canvas_fill_row(Canvas *c, int row, Style st);
/* Write UTF-8 text at (row, col), clipped; a tab is one space, control
** characters show as '?'.  Returns the column after the last cell written
** (or that would have been). */
int canvas_print(Canvas *c, int row, int col, Style st, const char *text);
int canvas_printn(Canvas *c, int row, int col, Style st, const char *text, int nbytes);
int canvas_printf(Canvas *c, int row, int col, Style st, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Restyle the cells of row from col for n cells (e.g. highlight a match). */
void canvas_style(Canvas *c, int row, int col, int n, Style st);
/* Number of cells text takes (code points). */
int text_cells(const char *text);

#endif
