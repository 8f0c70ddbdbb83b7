/*
** pane_graph.h -- what the graph pane offers the screen manager besides
** its PaneClass: the node search behind `/`, n and N.
*/
#ifndef EP_PANE_GRAPH_H
#define EP_PANE_GRAPH_H

#include "tui_int.h"

/* Search the nodes for regex (PCRE2) in their name, op target (short
** form, e.g. "aten.linear.default") and module path.  The search starts
** at the node after `from` in direction dir (+1 forwards, -1 backwards;
** from -1: from the first node forwards or the last backwards) and wraps
** around, so `from` itself matches last.  Returns the matching node, or
** -1 with err saying "no match" or what is wrong with the regex (with its
** offset).  state is the graph pane's (t->pane_state[PANE_GRAPH], may be
** NULL): a match inside folded module groups does not unfold them here --
** selecting the node does. */
int pane_graph_search(Tui *t, void *state, const char *regex, int from, int dir, EpError *err);

#endif
