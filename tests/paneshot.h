/*
** paneshot.h -- one pane of the full-screen debugger drawn headless, for
** the pane suites: the text of the cells and the grid (for styles).
*/
#ifndef EP_TESTS_PANESHOT_H
#define EP_TESTS_PANESHOT_H

#include "tui/panes.h"
#include "tui/tui_int.h"

typedef struct Shot {
    Grid g;
    char *text;
} Shot;

/* Draw pane id of t onto a rows x cols grid, as the screen manager would
** place it (t->rects[id] set to match).  PV_SHOW=1 in the environment
** prints each shot on stderr. */
Shot shot(Tui *t, int id, int rows, int cols);
void shot_free(Shot *s);

#endif
