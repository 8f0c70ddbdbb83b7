/*
** panes.h -- the pane table: every pane's class, by PaneId.
**
** The screen manager (tui.c) creates the panes from this table and copies
** it into the Tui (t->pane_class), through which the shared state tells
** every pane about a change; the tests read it to draw one pane alone.
** The panes themselves do not include this header: they know only the
** interface they implement (tui_int.h), not each other.
*/
#ifndef EP_PANES_H
#define EP_PANES_H

#include "tui_int.h"

/* Defined by pane_graph.c, pane_source.c, pane_inspector.c,
** pane_shapes.c, pane_profile.c and pane_console.c. */
extern const PaneClass PANE_GRAPH_CLASS, PANE_SOURCE_CLASS, PANE_INSPECTOR_CLASS, PANE_SHAPES_CLASS,
    PANE_PROFILE_CLASS, PANE_CONSOLE_CLASS;

/* The class of pane id (a PaneId, 0 <= id < PANE_COUNT). */
const PaneClass *tui_pane_class(int id);

#endif
