/*
** cmd_profile.c -- the `profile` command: start and stop profiling what
** the session runs (session_profile.c), say how far it got, and report it
** in any of the writers' formats (profiler/report.h), to the session's
** output or to a file.
**
**   profile                       status: running or not, mode, iterations, executions
**   profile start [--sample[=HZ]] [--clock cpu|wall]
**   profile stop
**   profile report [--by op|node|module|line] [--format F] [--output FILE] [--top N]
**   profile load FILE.json        show a profile `epdbg profile --format json` wrote
**
** One table (SUBCOMMANDS) names the subcommands; `help profile` prints
** PROFILE_HELP_DETAILS.
*/
#include "cmd_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/npy.h"
#include "profiler/report.h"

/* The table to the console shows this many rows per view unless --top says
** otherwise; a file gets every row. */
#define CONSOLE_TOP 20

/* A positive integer of at most max from text; false if it is not one. */
static bool parse_int(const char *text, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end || errno || v < 1 || v > max)
        return false;
    *out = v;
    return true;
}

/* ---- status ---------------------------------------------------------------------- */

/* "exact", "sampling at 1000 Hz (wall clock)" into buf. */
static const char *mode_text(ProfileMode mode, int hz, ProfileClock clock, char *buf, size_t cap)
{
    if (mode == PROFILE_EXACT)
        snprintf(buf, cap, "exact");
    else
        snprintf(buf, cap, "sampling at %d Hz (%s clock)", hz, clock == PROFILE_CLOCK_CPU ? "CPU" : "wall");
    return buf;
}

static EpStatus profile_status(CmdCtx *c, EpError *err)
{
    (void)err;
    bool running = session_profiling(c->s);
    const Profile *p = session_profile(c->s);
    if (!p) {
        out_puts(c->out, running ? "Profiling: nothing measured yet.\n"
                                 : "No profile (`profile start` begins one; `help profile` says more).\n");
        return EP_OK;
    }
    char mode[96];
    mode_text(p->mode, p->sample_hz, p->clock, mode, sizeof mode);
    int64_t execs = 0;
    for (int i = 0; i < p->nnodes; i++)
        execs += p->nodes[i].time.count;
    out_printf(c->out, "%s (%s): %d iteration%s", running ? "Profiling" : "Not profiling; the last profile", mode,
               p->iters, p->iters == 1 ? "" : "s");
    if (p->mode == PROFILE_EXACT)
        out_printf(c->out, ", %lld node execution%s measured", (long long)execs, execs == 1 ? "" : "s");
    else
        out_printf(c->out, ", %lld sample%s (%lld outside nodes)", (long long)p->samples, p->samples == 1 ? "" : "s",
                   (long long)p->outside_samples);
    out_printf(c->out, " of %d nodes.\n", p->nnodes);
    if (p->partial)
        out_printf(c->out, "Partial: %s.\n", p->reason ? p->reason : "stopped early");
    return EP_OK;
}

/* ---- start and stop ---------------------------------------------------------------- */

static EpStatus profile_start(CmdCtx *c, const char *args, EpError *err)
{
    ProfileOptions opt = PROFILE_OPTIONS_DEFAULT;
    bool clock_given = false;
    char word[256];
    while (cmd_word(&args, word, sizeof word)) {
        if (strcmp(word, "--sample") == 0) {
            opt.mode = PROFILE_SAMPLE;
        } else if (strncmp(word, "--sample=", 9) == 0) {
            long hz;
            if (!parse_int(word + 9, PROFILE_MAX_HZ, &hz))
                return ep_fail(err, EP_ERR_USAGE, "profile start: bad sampling rate '%s': a whole number of Hz, "
                               "%d..%d", word + 9, PROFILE_MIN_HZ, PROFILE_MAX_HZ);
            opt.mode = PROFILE_SAMPLE;
            opt.sample_hz = (int)hz;
        } else if (strcmp(word, "--clock") == 0 || strncmp(word, "--clock=", 8) == 0) {
            char which[sizeof word] = "";
            if (word[7] == '=')
                snprintf(which, sizeof which, "%s", word + 8);
            else if (!cmd_word(&args, which, sizeof which))
                return ep_fail(err, EP_ERR_USAGE, "profile start: --clock needs cpu or wall");
            if (strcmp(which, "cpu") == 0)
                opt.clock = PROFILE_CLOCK_CPU;
            else if (strcmp(which, "wall") == 0)
                opt.clock = PROFILE_CLOCK_WALL;
            else
                return ep_fail(err, EP_ERR_USAGE, "profile start: unknown clock '%s' (cpu or wall)", which);
            clock_given = true;
        } else {
            return ep_fail(err, EP_ERR_USAGE, "profile start: unexpected '%s' (profile start [--sample[=HZ]] "
                           "[--clock cpu|wall])", word);
        }
    }
    if (clock_given && opt.mode != PROFILE_SAMPLE)
        return ep_fail(err, EP_ERR_USAGE, "profile start: --clock is for sampling mode (add --sample); exact mode "
                                          "times each node on the wall clock");
    EpStatus rc = session_profile_start(c->s, &opt, err);
    if (rc)
        return rc;
    char mode[96];
    out_printf(c->out, "Profiling (%s) what runs from now on; each start from node #0 is an iteration.\n",
               mode_text(opt.mode, opt.sample_hz, opt.clock, mode, sizeof mode));
    return EP_OK;
}

static EpStatus profile_stop(CmdCtx *c, const char *args, EpError *err)
{
    if (*args)
        return ep_fail(err, EP_ERR_USAGE, "profile stop: takes no arguments");
    EpStatus rc = session_profile_stop(c->s, err);
    if (rc)
        return rc;
    out_puts(c->out, "Stopped profiling.  ");
    return profile_status(c, err);
}

/* ---- report -------------------------------------------------------------------------- */

typedef struct ReportArgs {
    ReportFormat fmt;
    char format[32];   /* its name, for the message */
    ReportOptions opt;
    char output[4096]; /* "" : the session's output */
} ReportArgs;

static EpStatus parse_report_args(const char *args, ReportArgs *r, EpError *err)
{
    memset(r, 0, sizeof *r);
    r->fmt = REPORT_TABLE;
    snprintf(r->format, sizeof r->format, "table");
    r->opt.by = PROFILE_BY_OP;
    bool top_given = false;
    char word[4096];
    while (cmd_word(&args, word, sizeof word)) {
        /* --by op and --by=op alike */
        char *eq = strncmp(word, "--", 2) == 0 ? strchr(word, '=') : NULL;
        char value[4096];
        if (eq)
            *eq = '\0';
        bool known = strcmp(word, "--by") == 0 || strcmp(word, "--format") == 0 || strcmp(word, "--output") == 0 ||
                     strcmp(word, "--top") == 0;
        if (!known)
            return ep_fail(err, EP_ERR_USAGE, "profile report: unexpected '%s' (profile report [--by op|node|module|"
                           "line] [--format F] [--output FILE] [--top N])", word);
        if (eq)
            snprintf(value, sizeof value, "%s", eq + 1);
        else if (!cmd_word(&args, value, sizeof value))
            return ep_fail(err, EP_ERR_USAGE, "profile report: %s needs a value", word);
        if (strcmp(word, "--by") == 0) {
            if (!profile_by_lookup(value, &r->opt.by))
                return ep_fail(err, EP_ERR_USAGE, "profile report: unknown view '%s' (--by op, node, module or line)",
                               value);
        } else if (strcmp(word, "--format") == 0) {
            if (!report_format_lookup(value, &r->fmt))
                return ep_fail(err, EP_ERR_USAGE, "profile report: unknown format '%s' (%s)", value,
                               report_format_names());
            snprintf(r->format, sizeof r->format, "%.*s", (int)sizeof r->format - 1, value);
        } else if (strcmp(word, "--output") == 0) {
            snprintf(r->output, sizeof r->output, "%s", value);
        } else {
            long top;
            if (!parse_int(value, 1000000, &top))
                return ep_fail(err, EP_ERR_USAGE, "profile report: --top wants a positive count, not '%s'", value);
            r->opt.top = (int)top;
            top_given = true;
        }
    }
    if (!top_given && !r->output[0])
        r->opt.top = CONSOLE_TOP;
    return EP_OK;
}

/* The report as text in *buf (new; caller frees), as the writer wrote it. */
static EpStatus render_report(const Profile *p, const ReportArgs *r, char **buf, size_t *len, EpError *err)
{
    *buf = NULL;
    *len = 0;
    FILE *f = open_memstream(buf, len);
    if (!f)
        return ep_fail(err, EP_ERR_EXEC, "profile report: out of memory");
    EpStatus rc = report_write(f, p, r->fmt, &r->opt, err);
    if (fclose(f) != 0 && rc == EP_OK)
        rc = ep_fail(err, EP_ERR_EXEC, "profile report: cannot write the report: %s", strerror(errno));
    if (rc) {
        free(*buf);
        *buf = NULL;
    }
    return rc;
}

static EpStatus profile_report(CmdCtx *c, const char *args, EpError *err)
{
    ReportArgs r;
    EpStatus rc = parse_report_args(args, &r, err);
    if (rc)
        return rc;
    const Profile *p = session_profile(c->s);
    if (!p)
        return ep_fail(err, EP_ERR_USAGE, "no profile to report (`profile start`, then run the program)");
    char *text;
    size_t len;
    rc = render_report(p, &r, &text, &len, err);
    if (rc)
        return rc;
    if (r.output[0]) {
        /* a temporary name renamed into place: no half-written report */
        rc = write_file_atomic(r.output, text, len, err);
        if (rc == EP_OK)
            out_printf(c->out, "Wrote the profile (%s) to %s.\n", r.format, r.output);
    } else {
        out_write(c->out, text, len);
    }
    free(text);
    return rc;
}

static EpStatus profile_load(CmdCtx *c, const char *args, EpError *err)
{
    if (!*args)
        return ep_fail(err, EP_ERR_USAGE, "profile load: which file? (a profile written with --format json)");
    Profile *p = profile_read_json(args, err);
    if (!p)
        return err->code ? err->code : EP_ERR_FORMAT;
    EpStatus rc = session_profile_adopt(c->s, p, err);
    if (rc)
        return rc;
    out_printf(c->out, "Loaded the profile in %s.  ", args);
    return profile_status(c, err);
}

/* ---- the command ----------------------------------------------------------------------- */

static const struct {
    const char *name;
    EpStatus (*fn)(CmdCtx *c, const char *args, EpError *err);
} SUBCOMMANDS[] = {
    {"start", profile_start},
    {"stop", profile_stop},
    {"report", profile_report},
    {"load", profile_load},
};

static EpStatus cmd_profile(CmdCtx *c, const char *args, EpError *err)
{
    char what[64];
    const char *rest = args;
    if (!cmd_word(&rest, what, sizeof what))
        return profile_status(c, err);
    for (size_t i = 0; i < EP_ARRAY_LEN(SUBCOMMANDS); i++)
        if (strcmp(what, SUBCOMMANDS[i].name) == 0)
            return SUBCOMMANDS[i].fn(c, cmd_skip_space(rest), err);
    return ep_fail(err, EP_ERR_USAGE, "profile: unknown subcommand '%s' (start, stop, report or load; alone: the "
                                      "status)", what);
}

const char PROFILE_HELP_DETAILS[] =
    "Subcommands:\n"
    "  profile                     whether profiling is on, its mode, iterations and executions measured\n"
    "  profile start [--sample[=HZ]] [--clock cpu|wall]\n"
    "                              measure every node the session runs from now on: exact mode (each\n"
    "                              node timed) or sampling (HZ 1..100000, default 1000; the clock counts\n"
    "                              wall time or the process's CPU time, OpenBLAS threads included)\n"
    "  profile stop                stop measuring; the profile stays for `profile report`\n"
    "  profile report [--by op|node|module|line] [--format table|json|chrome|speedscope|folded|svg]\n"
    "                 [--output FILE] [--top N]\n"
    "                              the profile so far (also while profiling): the table by op by default,\n"
    "                              its top 20 rows on the console; --output writes FILE (every row)\n"
    "  profile load FILE           show a profile written by `epdbg profile --format json` of this program\n"
    "Iterations: each time the run starts at node #0 (run, restart and continue, goto 0 ...) counts as\n"
    "one iteration, so `run` twice measures two.  Times are per iteration.  Going back in time\n"
    "(reverse-step, goto) measures nothing, but nodes run again are measured again: a node\n"
    "re-executed counts twice, as it ran twice.  A run entered mid-way (profiling started there, or\n"
    "finished again after going back from its end) has its nodes measured but is no new iteration.\n"
    "Time spent stopped between nodes is not charged to any node.\n"
    "Example:\n"
    "  profile start\n"
    "  run\n"
    "  run\n"
    "  profile stop\n"
    "  profile report --by line --top 10\n"
    "  profile report --format svg --output flame.svg\n";

static const Command PROFILE_COMMANDS[] = {
    {"profile", NULL, cmd_profile, "profile [start|stop|report|load] [OPTIONS]",
     "profile what the session runs: time per op, node, module and source line"},
};

const CommandGroup CMD_GROUP_PROFILE = {"Profiling", PROFILE_COMMANDS,
                                        (int)(sizeof PROFILE_COMMANDS / sizeof PROFILE_COMMANDS[0]), NULL, 0};
