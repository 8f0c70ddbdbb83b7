/*
** session_profile.c -- profiling inside the debugger (session.h, "profiling"):
** a recorder (profiler/profile.h) attached to the session's interpreter for
** as long as the user asks, measuring whatever the moving commands run.
**
** The recorder hooks the interpreter itself and chains to the hooks that
** were there (the session's node timer), so `info`-style timings and the
** profile go on side by side.  It counts a new iteration each time node 0
** starts, so `run`, `run` is two iterations; stepping back and running a
** node again measures it again, as a second execution of the same node (a
** run entered mid-way is no new iteration: the recorder's rule).  A
** sampling profile samples only while a command runs nodes.
**
** The Profile the callers see is taken from the recorder lazily and kept
** until nodes run again (drive() in session.c sets profile_stale before each), so a
** TUI redrawing its panes many times between commands copies it once.
*/
#include "session_int.h"

#include <stdlib.h>
#include <string.h>

void session_profile_free(Session *s)
{
    profiler_free(s->profiler); /* stops first: the node timer's hooks go back */
    s->profiler = NULL;
    profile_free(s->profile);
    s->profile = NULL;
    s->profile_stale = false;
}

EpStatus session_profile_start(Session *s, const ProfileOptions *opt, EpError *err)
{
    if (session_profiling(s))
        return ep_fail(err, EP_ERR_USAGE, "already profiling (`profile stop` ends it, `profile report` shows it)");
    ProfileOptions o = opt ? *opt : PROFILE_OPTIONS_DEFAULT;
    if (o.mode == PROFILE_SAMPLE && (o.sample_hz < PROFILE_MIN_HZ || o.sample_hz > PROFILE_MAX_HZ))
        return ep_fail(err, EP_ERR_USAGE, "a sampling rate of %d Hz is outside %d..%d Hz", o.sample_hz,
                       PROFILE_MIN_HZ, PROFILE_MAX_HZ);
    if (s->profiler) {
        /* one recorder on the interpreter at a time; what the last one
        ** measured stays shown if the new one cannot start */
        session_profile(s);
        profiler_free(s->profiler);
        s->profiler = NULL;
    }
    Profiler *pr = profiler_new(s->ip, s->opt.model_path, &o, err);
    if (!pr)
        return err->code ? err->code : EP_ERR_EXEC;
    EpStatus rc = profiler_start(pr, err);
    if (rc) {
        profiler_free(pr);
        return rc;
    }
    profiler_hold(pr, true); /* sampling only while commands run (drive) */
    profile_free(s->profile);
    s->profile = NULL;
    s->profiler = pr;
    s->profile_stale = true;
    return EP_OK;
}

EpStatus session_profile_stop(Session *s, EpError *err)
{
    if (!session_profiling(s))
        return ep_fail(err, EP_ERR_USAGE, s->profiler ? "not profiling (the last profile was stopped already; "
                                                        "`profile report` shows it)"
                                                      : "not profiling (`profile start` begins)");
    profiler_stop(s->profiler);
    s->profile_stale = true;
    return EP_OK;
}

bool session_profiling(const Session *s)
{
    return s->profiler && profiler_running(s->profiler);
}

const Profile *session_profile(Session *s)
{
    if (!s->profiler)
        return s->profile; /* NULL, or one adopted without a recorder */
    if (s->profile && !s->profile_stale)
        return s->profile;
    EpError err = {0};
    Profile *p = profiler_take(s->profiler, &err);
    if (!p) /* keep what was measured before rather than nothing */
        return s->profile;
    profile_free(s->profile);
    s->profile = p;
    s->profile_stale = false;
    return p;
}

EpStatus session_profile_adopt(Session *s, Profile *p, EpError *err)
{
    EpStatus rc = EP_OK;
    if (session_profiling(s))
        rc = ep_fail(err, EP_ERR_USAGE, "profiling is under way (`profile stop` first)");
    else if (p->nnodes != session_num_nodes(s))
        rc = ep_fail(err, EP_ERR_USAGE, "the profile has %d nodes, this program %d: not a profile of it", p->nnodes,
                     session_num_nodes(s));
    for (int i = 0; rc == EP_OK && i < p->nnodes; i++)
        if (!p->nodes[i].name || strcmp(p->nodes[i].name, interp_node(s->ip, i)->name) != 0)
            rc = ep_fail(err, EP_ERR_USAGE, "the profile's node #%d is '%s', this program's '%s': not a profile of it",
                         i, p->nodes[i].name ? p->nodes[i].name : "?", interp_node(s->ip, i)->name);
    if (rc) {
        profile_free(p);
        return rc;
    }
    session_profile_free(s);
    s->profile = p;
    return EP_OK;
}
