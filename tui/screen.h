/*
** screen.h -- the terminal: the only module that talks to curses.
**
** The TUI draws the whole screen into a Grid (canvas.h); screen_show copies
** it to the terminal (curses sends only what changed) and screen_key reads
** one key, translated to keys.h codes.  Nothing else includes curses, so
** the rest of the TUI runs headless in tests and benchmarks.
*/
#ifndef EP_SCREEN_H
#define EP_SCREEN_H

#include <stdbool.h>

#include "canvas.h"
#include "interp/ep.h"

typedef struct Screen Screen;

/* Take over the terminal (stdin/stdout must be terminals).  color: use
** colours if the terminal has them.  NULL with err when curses cannot
** start (e.g. an unknown TERM). */
Screen *screen_open(bool color, EpError *err);
/* Give the terminal back as it was.  NULL ok. */
void screen_close(Screen *sc);
void screen_size(Screen *sc, int *rows, int *cols);
/* Show grid g; the cursor goes to (cur_row, cur_col), hidden when
** cur_row < 0. */
void screen_show(Screen *sc, const Grid *g, int cur_row, int cur_col);
/* Show row src_row of g as the terminal's row row (the status line drawn
** alone while a long node runs). */
void screen_show_row(Screen *sc, const Grid *g, int src_row, int row);
/* Repaint everything at the next screen_show (after a resize, or C-l when
** something else wrote to the terminal). */
void screen_invalidate(Screen *sc);
/* The next key (keys.h codes); waits at most timeout_ms (negative: forever) and
** gives TK_NONE when none came.  A click gives TK_MOUSE with its position
** in *mrow and *mcol.  An interrupted wait (a signal) gives TK_NONE. */
int screen_key(Screen *sc, int timeout_ms, int *mrow, int *mcol);

#endif
