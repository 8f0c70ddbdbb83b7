/*
** session_int.h -- the Session structure, shared by session.c (moving,
** watches, displays) and session_break.c (breakpoints).
**
** Calls go one way: session.c calls into session_break.c (freeing a
** breakpoint, counting a hit), never the reverse; both read the node
** table (node_table.h) directly.
*/
#ifndef EP_SESSION_INT_H
#define EP_SESSION_INT_H

#include "profiler/node_timer.h"
#include "session.h"

struct Session {
    SessionOptions opt;
    Model *model;
    bool owns_model;         /* false: borrowed (session_open_model) */
    Interp *ip;
    Value *inputs;           /* what run/restart bind (owned) */
    char **input_sources;    /* per input, where it came from, or NULL (owned) */
    int ninputs;
    bool inputs_rejected;    /* the guards refused these inputs at the last (re)start */
    NodeTable *nodes;        /* module scope, stack trace, name lookups (owned) */
    Breakpoint **bps;
    int nbps, next_bp_id;
    Watch **watches;
    int nwatches, next_watch_id;
    char **displays;
    int *display_ids;
    int ndisplays, next_display_id;
    Stop stop;
    volatile sig_atomic_t interrupted;
    NodeTimer *timer;        /* per node times, fed by the Interp's hooks (owned) */
    SessionProgressFn progress;
    void *progress_ctx;
    double progress_last;    /* when progress was last called */
    /* profiling (session_profile.c) */
    Profiler *profiler;      /* the recorder of the current or last profile, or NULL (owned) */
    Profile *profile;        /* what session_profile last returned (owned), or NULL */
    bool profile_stale;      /* nodes ran (or profiling started/stopped) since it was taken */
};

void breakpoint_free(Breakpoint *b);
/* Drop the profiler and its profile (session_free; session_profile.c). */
void session_profile_free(Session *s);
/* Count a hit of breakpoint i; a temporary one is deleted. */
void breakpoint_hit(Session *s, int i);

#endif
