/*
** cli_profile.c -- `epdbg profile MODEL.pt2 [input options] [--iters N]
** [--warmup W] [--sample[=HZ]] [--clock cpu|wall] [--by VIEW] [--format F]
** [--output FILE] [--threads T] [--diff OTHER.json] [--top N]`: run the
** program W + N times under the profiler (profiler/profile.h) and write
** the report (profiler/report.h).
**
** Everything that can be refused is refused before the first node runs:
** options, the --diff file, the output path (a temporary file is created
** next to it and renamed over it only when the report is complete, so a
** failed or interrupted write never leaves half a report).  A run that
** fails, or Ctrl-C, stops at the next node; what was measured up to there
** is still written, marked partial, and the exit code says what happened.
*/
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "interp/ops.h"
#include "profiler/report.h"

static const char PROFILE_USAGE[] =
    "usage: epdbg profile MODEL.pt2 [--input FILE]... [--input NAME=FILE]... [--inputs FILE|DIR]\n"
    "                     [--model NAME] [--no-blas] [--iters N] [--warmup W]\n"
    "                     [--sample[=HZ]] [--clock cpu|wall] [--threads T]\n"
    "                     [--by op|node|module|line] [--format FORMAT] [--output FILE]\n"
    "                     [--diff OTHER.json] [--top N]\n"
    "  Runs the program W times to warm up (default 1), then N times measured (default 10).\n"
    "  Exact mode (default) times every node; --sample (default 1000 Hz, 1 Hz .. 100 kHz)\n"
    "  samples the node running instead, at almost no cost; --clock cpu counts the CPU time\n"
    "  of every thread (OpenBLAS's too), wall (default) elapsed time.\n"
    "  --by       the table's view: op (default), node, module (a tree), line (your source)\n"
    "  --format   table (default), json, chrome, speedscope, folded, svg\n"
    "  --output   write there instead of stdout (written whole or not at all)\n"
    "  --threads  threads for the kernels and GEMMs (any command; default the cores)\n"
    "  --diff     compare with a profile written earlier with --format json (table, json,\n"
    "             folded and svg show the comparison)\n"
    "  --top      rows per table (default 30, 0 for all)\n"
    "  Ctrl-C stops at the next node and still writes the report, marked partial.\n";

typedef struct ProfileArgs {
    const char *path, *model_name, *output, *diff;
    const char *format_name;
    InputArgs inputs;
    bool no_blas;
    long iters, warmup, threads, top;
    ProfileOptions popt;
    bool clock_given;
    ReportFormat format;
    ProfileBy by;
} ProfileArgs;

/* A whole number in [lo, hi] for option name, or an error message. */
static bool parse_count(const char *name, const char *text, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < lo || v > hi) {
        fprintf(stderr, "epdbg profile: %s wants a whole number from %ld to %ld, not '%s'\n", name, lo, hi, text);
        return false;
    }
    *out = v;
    return true;
}

/* Returns 0, an exit code, or -1 when --help was printed. */
static int parse_args(int argc, char **argv, ProfileArgs *a)
{
    *a = (ProfileArgs){.iters = 10, .warmup = 1, .threads = 0, .top = 30, .popt = PROFILE_OPTIONS_DEFAULT,
                       .format = REPORT_TABLE, .by = PROFILE_BY_OP};
    for (int i = 0; i < argc; i++) {
        const char *o = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = true;
        if (strcmp(o, "-h") == 0 || strcmp(o, "--help") == 0) {
            fputs(PROFILE_USAGE, stdout);
            return -1;
        } else if (strcmp(o, "--sample") == 0) {
            a->popt.mode = PROFILE_SAMPLE;
        } else if (strncmp(o, "--sample=", 9) == 0) {
            long hz;
            a->popt.mode = PROFILE_SAMPLE;
            ok = parse_count("--sample", o + 9, PROFILE_MIN_HZ, PROFILE_MAX_HZ, &hz);
            a->popt.sample_hz = (int)hz;
        } else if (strcmp(o, "--no-blas") == 0) {
            a->no_blas = true;
        } else if (o[0] == '-' && o[1] && !val) {
            fprintf(stderr, "epdbg profile: %s: unknown option or missing value\n%s", o, PROFILE_USAGE);
            return EP_ERR_USAGE;
        } else if (strcmp(o, "--input") == 0) {
            input_args_add(&a->inputs, argv[++i]);
        } else if (strcmp(o, "--inputs") == 0) {
            if (a->inputs.npz) {
                fprintf(stderr, "epdbg profile: --inputs is given twice\n");
                return EP_ERR_USAGE;
            }
            input_args_set_all(&a->inputs, argv[++i]);
        } else if (strcmp(o, "--model") == 0) {
            a->model_name = argv[++i];
        } else if (strcmp(o, "--iters") == 0) {
            ok = parse_count("--iters", argv[++i], 1, 1000000, &a->iters);
        } else if (strcmp(o, "--warmup") == 0) {
            ok = parse_count("--warmup", argv[++i], 0, 1000000, &a->warmup);
        } else if (strcmp(o, "--threads") == 0) {
            ok = parse_count("--threads", argv[++i], 1, 1024, &a->threads);
        } else if (strcmp(o, "--top") == 0) {
            ok = parse_count("--top", argv[++i], 0, 1000000, &a->top);
        } else if (strcmp(o, "--clock") == 0) {
            const char *c = argv[++i];
            a->clock_given = true;
            if (strcmp(c, "cpu") == 0)
                a->popt.clock = PROFILE_CLOCK_CPU;
            else if (strcmp(c, "wall") == 0)
                a->popt.clock = PROFILE_CLOCK_WALL;
            else {
                fprintf(stderr, "epdbg profile: --clock is cpu or wall, not '%s'\n", c);
                ok = false;
            }
        } else if (strcmp(o, "--by") == 0) {
            if (!profile_by_lookup(argv[++i], &a->by)) {
                fprintf(stderr, "epdbg profile: --by is op, node, module or line, not '%s'\n", argv[i]);
                ok = false;
            }
        } else if (strcmp(o, "--format") == 0) {
            a->format_name = argv[++i];
            if (!report_format_lookup(a->format_name, &a->format)) {
                fprintf(stderr, "epdbg profile: --format is one of %s, not '%s'\n", report_format_names(), argv[i]);
                ok = false;
            }
        } else if (strcmp(o, "--output") == 0 || strcmp(o, "-o") == 0) {
            a->output = argv[++i];
        } else if (strcmp(o, "--diff") == 0) {
            a->diff = argv[++i];
        } else if (o[0] == '-' && o[1]) {
            fprintf(stderr, "epdbg profile: unknown option %s\n%s", o, PROFILE_USAGE);
            return EP_ERR_USAGE;
        } else if (!a->path) {
            a->path = o;
        } else {
            fprintf(stderr, "epdbg profile: one model at a time (got %s and %s)\n", a->path, o);
            return EP_ERR_USAGE;
        }
        if (!ok)
            return EP_ERR_USAGE;
    }
    if (!a->path) {
        fputs(PROFILE_USAGE, stderr);
        return EP_ERR_USAGE;
    }
    if (a->clock_given && a->popt.mode != PROFILE_SAMPLE) {
        fprintf(stderr, "epdbg profile: --clock goes with --sample (exact mode reads the wall clock)\n");
        return EP_ERR_USAGE;
    }
    if (a->diff && !report_format_diffs(a->format)) {
        fprintf(stderr, "epdbg profile: --format %s cannot show --diff (table, json, folded and svg can)\n",
                a->format_name);
        return EP_ERR_USAGE;
    }
    return EP_OK;
}

/* ---- Ctrl-C and progress --------------------------------------------------- */

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
    (void)sig;
    interrupted = 1;
}

typedef struct Progress {
    bool on;              /* stderr is a terminal */
    double t0;            /* ep_monotonic_seconds() at the start */
    double last;          /* seconds since t0 at the last line */
    long done, total;     /* nodes run, nodes to run */
    unsigned tick;
    bool shown;
} Progress;

/* Called after every node; reads the clock once in 256 calls, prints at
** most ten times a second, and only after the first half second. */
static void progress_node(Progress *pg, long iter, long iters, int node, int nnodes)
{
    pg->done++;
    if (!pg->on || (++pg->tick & 255))
        return;
    double el = ep_monotonic_seconds() - pg->t0;
    if (el < 0.5 || el - pg->last < 0.1)
        return;
    pg->last = el;
    double left = pg->done ? el / (double)pg->done * (double)(pg->total - pg->done) : 0;
    fprintf(stderr, "\r\033[Kepdbg profile: iteration %ld of %ld, node %d of %d, %.1f s elapsed, about %.1f s left",
            iter + 1, iters, node + 1, nnodes, el, left);
    pg->shown = true;
}

static void progress_done(Progress *pg)
{
    if (pg->shown)
        fputs("\r\033[K", stderr);
}

/* ---- writing the report whole or not at all -------------------------------- */

typedef struct Output {
    const char *path;     /* NULL: stdout */
    char *tmp;
    FILE *f;
} Output;

static EpStatus output_open(Output *o, const char *path, EpError *err)
{
    o->path = path;
    if (!path) {
        o->f = stdout;
        return EP_OK;
    }
    o->tmp = ep_xasprintf("%s.tmp.%ld", path, (long)getpid());
    o->f = fopen(o->tmp, "w");
    if (!o->f) {
        EpStatus rc = ep_fail(err, EP_ERR_USAGE, "--output %s: cannot write there: %s", path, strerror(errno));
        free(o->tmp);
        o->tmp = NULL;
        return rc;
    }
    return EP_OK;
}

/* keep: rename the temporary over path; else remove it. */
static EpStatus output_close(Output *o, bool keep, EpError *err)
{
    EpStatus rc = EP_OK;
    if (!o->path) {
        if (fflush(stdout) != 0 && keep)
            rc = ep_fail(err, EP_ERR_EXEC, "writing the report: %s", strerror(errno));
        return rc;
    }
    if (!o->f)
        return EP_OK;
    bool bad = ferror(o->f) != 0;
    if (fclose(o->f) != 0)
        bad = true;
    o->f = NULL;
    if (keep && bad)
        rc = ep_fail(err, EP_ERR_EXEC, "--output %s: writing failed: %s", o->path, strerror(errno));
    else if (keep && rename(o->tmp, o->path) != 0)
        rc = ep_fail(err, EP_ERR_EXEC, "--output %s: %s", o->path, strerror(errno));
    if (!keep || rc)
        remove(o->tmp);
    free(o->tmp);
    o->tmp = NULL;
    return rc;
}

/* ---- the runs -------------------------------------------------------------- */

/* Whether the program writes into a user input (its signature says so). */
static bool writes_inputs(const Interp *ip)
{
    const ExportedProgram *ep = interp_program(ip);
    for (int i = 0; i < ep->noutput_specs; i++)
        if (ep->output_specs[i].kind == OUT_USER_INPUT_MUTATION)
            return true;
    return false;
}

/* Run warm-up and measured iterations; a failure or Ctrl-C marks the
** profile partial.  Returns the run's status (EP_OK, the failing node's
** code, or 128 + SIGINT). */
static int run_iterations(Interp *ip, Profiler *pr, const ProfileArgs *a, const Value *vals, int nvals)
{
    EpError err = {0};
    long total = a->warmup + a->iters;
    Progress pg = {.on = isatty(2), .total = total * interp_num_nodes(ip)};
    pg.t0 = ep_monotonic_seconds();
    struct sigaction sa = {0}, old;
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    interrupted = 0;
    sigaction(SIGINT, &sa, &old);
    int rc = EP_OK;
    bool mutates = writes_inputs(ip);
    for (long it = 0; it < total && rc == EP_OK; it++) {
        bool warm = it < a->warmup;
        /* a program writing into its inputs gets a fresh copy each time, so
        ** every iteration sees the same inputs; any other shares them, so
        ** the memory figures count each input once, as PyTorch would */
        if ((rc = mutates ? interp_bind_copy(ip, vals, nvals, &err) : interp_bind(ip, vals, nvals, &err)))
            break;
        profiler_iteration_begin(pr, warm);
        while (!interp_finished(ip)) {
            if (interrupted) {
                rc = 128 + SIGINT;
                char *why = ep_xasprintf("interrupted (Ctrl-C) at node %d of %d in %s iteration %ld",
                                         interp_pc(ip), interp_num_nodes(ip), warm ? "warm-up" : "measured",
                                         warm ? it + 1 : it - a->warmup + 1);
                profiler_mark_partial(pr, why);
                free(why);
                break;
            }
            int node = interp_pc(ip);
            if ((rc = interp_step(ip, &err))) {
                profiler_mark_partial(pr, err.msg);
                break;
            }
            progress_node(&pg, it, total, node, interp_num_nodes(ip));
        }
        profiler_iteration_end(pr);
    }
    sigaction(SIGINT, &old, NULL);
    progress_done(&pg);
    if (rc && rc != 128 + SIGINT)
        fprintf(stderr, "epdbg: %s\n", err.msg);
    else if (rc)
        fprintf(stderr, "epdbg profile: interrupted; the report holds what was measured so far\n");
    ep_error_clear(&err);
    return rc;
}

int cli_profile(int argc, char **argv)
{
    ProfileArgs a;
    int rc = parse_args(argc, argv, &a);
    if (rc) {
        input_args_free(&a.inputs);
        return rc < 0 ? EP_OK : rc;
    }
    EpError err = {0};
    Model *m = NULL;
    Interp *ip = NULL;
    Profiler *pr = NULL;
    Profile *base = NULL, *p = NULL;
    Value *vals = NULL;
    int nvals = 0;
    Output out = {0};
    InterpOptions opt = INTERP_OPTIONS_DEFAULT;
    opt.kernels.use_blas = !a.no_blas;
    a.popt.iterations = true;
    if (a.threads > 0) /* epdbg's own pre-pass takes --threads; a direct caller may not */
        ops_set_blas_threads((int)a.threads);
    if (a.diff && !(base = profile_read_json(a.diff, &err)))
        rc = err.code ? err.code : EP_ERR_FORMAT;
    if (rc == EP_OK)
        rc = model_open(a.path, a.model_name, &m, &err);
    if (rc == EP_OK && !(ip = interp_new(m, &opt, &err)))
        rc = err.code ? err.code : EP_ERR_FORMAT;
    if (rc == EP_OK && (rc = inputs_load(ip, &a.inputs, NULL, &vals, &nvals, &err)) && input_args_empty(&a.inputs)) {
        size_t len = strlen(err.msg);
        snprintf(err.msg + len, sizeof err.msg - len, "Pass %s with --input FILE or --inputs FILE|DIR.",
                 interp_num_user_inputs(ip) == 1 ? "it" : "them");
    }
    /* the inputs' check, before anything is measured or any file made */
    if (rc == EP_OK)
        rc = interp_bind_copy(ip, vals, nvals, &err);
    if (rc == EP_OK)
        rc = output_open(&out, a.output, &err);
    if (rc == EP_OK && !(pr = profiler_new(ip, a.path, &a.popt, &err)))
        rc = err.code ? err.code : EP_ERR_EXEC;
    if (rc == EP_OK)
        rc = profiler_start(pr, &err);
    if (rc) {
        fprintf(stderr, "epdbg: %s\n", err.msg);
        output_close(&out, false, &err);
        goto done;
    }
    int run_rc = run_iterations(ip, pr, &a, vals, nvals);
    profiler_stop(pr);
    p = profiler_take(pr, &err);
    ReportOptions ro = {.by = a.by, .base = base, .top = (int)a.top};
    rc = report_write(out.f, p, a.format, &ro, &err);
    EpStatus crc = output_close(&out, rc == EP_OK, &err);
    if (rc == EP_OK)
        rc = crc;
    if (rc)
        fprintf(stderr, "epdbg: %s\n", err.msg);
    else if (a.output)
        fprintf(stderr, "epdbg profile: %s%s written to %s\n", p->partial ? "partial " : "",
                a.format == REPORT_TABLE ? "report" : "profile", a.output);
    if (rc == EP_OK)
        rc = run_rc;
done:
    profile_free(p);
    profile_free(base);
    profiler_free(pr);
    for (int i = 0; i < nvals; i++)
        value_clear(&vals[i]);
    free(vals);
    interp_free(ip);
    model_free(m);
    input_args_free(&a.inputs);
    return rc;
}
