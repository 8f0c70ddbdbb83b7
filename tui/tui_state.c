/*
** tui_state.c -- what the panes share and may change: the node the run is
** at, the selection, the value being inspected, breakpoint and progress
** queries, the status-line note, and the console log (tui_int.h).
**
** The panes call into this file and the screen manager (tui.c) calls the
** panes, so calls go one way only.  When the selection changes every pane
** hears of it through the classes the manager put in t->pane_class: this
** file names no pane.
*/
#include "tui_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- what the panes read --------------------------------------------------------- */

int tui_current_node(const Tui *t)
{
    const Interp *ip = session_interp(t->s);
    if (!interp_bound(ip) || t->nnodes == 0)
        return -1;
    const Stop *st = session_last_stop(t->s);
    if (st->after && st->node >= 0 && st->node < t->nnodes)
        return st->node;
    int pc = interp_pc(ip);
    return pc < t->nnodes ? pc : t->nnodes - 1;
}

bool tui_node_done(const Tui *t, int node)
{
    const Interp *ip = session_interp(t->s);
    return interp_bound(ip) && node < interp_pc(ip);
}

bool tui_node_has_break(const Tui *t, int node)
{
    for (int i = 0; i < session_num_breakpoints(t->s); i++) {
        const Breakpoint *b = session_breakpoint(t->s, i);
        if (b->enabled && b->at && node >= 0 && node < t->nnodes && b->at[node])
            return true;
    }
    return false;
}

/* ---- what the panes change ------------------------------------------------------- */

void tui_note(Tui *t, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    free(t->status_note);
    t->status_note = ep_xstrdup(buf);
}

void tui_running_text(const Tui *t, int node, const char *name, int seconds, char *buf, size_t cap)
{
    char where[160], took[32] = "";
    if (node >= 0)
        snprintf(where, sizeof where, "node %d of %d, '%s'", node + 1, t->nnodes, name ? name : "?");
    else
        snprintf(where, sizeof where, "'%s' (in a subgraph)", name ? name : "?");
    if (seconds > 0)
        snprintf(took, sizeof took, " for %d s", seconds);
    snprintf(buf, cap, "running: %s%s  (Ctrl-C stops at the next node)", where, took);
}

void tui_panes_changed(Tui *t)
{
    for (int i = 0; i < PANE_COUNT; i++)
        if (t->pane_class[i] && t->pane_class[i]->changed)
            t->pane_class[i]->changed(t, t->pane_state[i]);
}

void tui_select_node(Tui *t, int node)
{
    if (node < 0 || node >= t->nnodes)
        return;
    if (node != t->selected) {
        t->selected = node;
        free(t->inspect);
        t->inspect = NULL;
        t->cmd.frame = -1;
    }
    tui_panes_changed(t);
}

void tui_inspect(Tui *t, const char *name)
{
    free(t->inspect);
    t->inspect = name ? ep_xstrdup(name) : NULL;
    tui_panes_changed(t);
}

void tui_focus(Tui *t, int pane)
{
    if (pane < 0 || pane >= PANE_COUNT)
        return;
    t->return_focus = -1;
    t->focus = pane;
}

const Profile *tui_profile(Tui *t, unsigned long *gen)
{
    const Profile *p = session_profile(t->s);
    int64_t work = 0;
    if (p) {
        work = p->samples + p->outside_samples;
        for (int i = 0; i < p->nnodes; i++)
            work += p->nodes[i].time.count;
    }
    bool running = session_profiling(t->s);
    /* the session takes a new Profile only after nodes ran, so the same
    ** address with the same counts is the same profile */
    if (p != t->profile_seen || (p && (p->iters != t->profile_iters || p->wall != t->profile_wall ||
                                       work != t->profile_work)) || running != t->profile_running) {
        t->profile_gen++;
        t->profile_seen = p;
        t->profile_iters = p ? p->iters : 0;
        t->profile_wall = p ? p->wall : 0;
        t->profile_work = work;
        t->profile_running = running;
    }
    *gen = t->profile_gen;
    return p;
}

/* ---- the console log ------------------------------------------------------------ */

#define LOG_MAX_LINES 5000

void console_log_add(ConsoleLog *log, const char *text, Style st)
{
    if (log->n == LOG_MAX_LINES) {
        /* drop the oldest tenth at once, so adding stays cheap */
        int drop = LOG_MAX_LINES / 10;
        for (int i = 0; i < drop; i++)
            free(log->lines[i]);
        memmove(log->lines, log->lines + drop, (size_t)(log->n - drop) * sizeof *log->lines);
        memmove(log->styles, log->styles + drop, (size_t)(log->n - drop) * sizeof *log->styles);
        log->n -= drop;
    }
    if (log->n == log->cap) {
        log->cap = log->cap ? 2 * log->cap : 256;
        log->lines = ep_xrealloc(log->lines, (size_t)log->cap * sizeof *log->lines);
        log->styles = ep_xrealloc(log->styles, (size_t)log->cap * sizeof *log->styles);
    }
    log->lines[log->n] = ep_xstrdup(text);
    log->styles[log->n++] = st;
}

void console_log_free(ConsoleLog *log)
{
    for (int i = 0; i < log->n; i++)
        free(log->lines[i]);
    free(log->lines);
    free(log->styles);
    free(log->partial);
    memset(log, 0, sizeof *log);
}
