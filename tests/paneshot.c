/*
** paneshot.c -- see paneshot.h.
*/
#include "paneshot.h"

#include <stdio.h>
#include <stdlib.h>

Shot shot(Tui *t, int id, int rows, int cols)
{
    Shot s = {0};
    grid_resize(&s.g, rows, cols);
    Canvas all = canvas_of(&s.g);
    Canvas c = canvas_sub(&all, 0, 0, rows, cols);
    t->rects[id] = (PaneRect){0, 0, rows + 1, cols};
    tui_pane_class(id)->draw(t, t->pane_state[id], &c, true);
    s.text = grid_text(&s.g);
    if (getenv("PV_SHOW"))
        fprintf(stderr, "---- %s\n%s", tui_pane_class(id)->name, s.text);
    return s;
}

void shot_free(Shot *s)
{
    grid_free(&s->g);
    free(s->text);
}
