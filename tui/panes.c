/*
** panes.c -- the pane table (panes.h): the one place that names every
** pane, so neither the screen manager's key and drawing code nor the
** shared state has to.
*/
#include "panes.h"

static const PaneClass *const PANES[PANE_COUNT] = {
    [PANE_GRAPH] = &PANE_GRAPH_CLASS,         [PANE_SOURCE] = &PANE_SOURCE_CLASS,
    [PANE_INSPECTOR] = &PANE_INSPECTOR_CLASS, [PANE_SHAPES] = &PANE_SHAPES_CLASS,
    [PANE_PROFILE] = &PANE_PROFILE_CLASS,     [PANE_CONSOLE] = &PANE_CONSOLE_CLASS,
};

const PaneClass *tui_pane_class(int id)
{
    return PANES[id];
}
