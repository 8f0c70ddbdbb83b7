/*
** cli_replay.c -- `epdbg replay FILE.npz MODEL.pt2`: re-run the inputs a
** failed run saved (debugger/record.h) in the debugger and stop where it
** failed.  On a terminal the full-screen debugger then opens there, as gdb
** opens a core file; otherwise (or with --batch) the report: the node's
** stack trace and whether the failure is the one recorded, with the
** failure's exit code, so a fixed model replays with 0.
*/
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debugger/cmd.h"
#include "debugger/record.h"

static const char REPLAY_USAGE[] =
    "usage: epdbg replay FILE.npz MODEL.pt2 [--model NAME] [--source-dir DIR]... [--no-blas] [--batch]\n"
    "  FILE.npz is a replay file written by `epdbg run` when a run failed (or by --record).\n"
    "  On a terminal the full-screen debugger opens at the failure; --batch (or no terminal)\n"
    "  prints a report instead.\n";

static void write_stdout(void *ctx, const char *text, size_t len)
{
    (void)ctx;
    fwrite(text, 1, len, stdout);
}

/* Run one command, printing its error; the status. */
static EpStatus command(CmdCtx *c, const char *line)
{
    EpError err = {0};
    EpStatus rc = cmd_execute(c, line, &err);
    if (rc)
        printf("error: %s\n", err.msg);
    return rc;
}

static void discard(void *ctx, const char *text, size_t len)
{
    (void)ctx;
    (void)text;
    (void)len;
}

/* The message a failure printed, to compare with the recorded one. */
static const char *stop_message(const Stop *st)
{
    return st->detail ? st->detail : "";
}

/* Whether the session stopped on a failure. */
static bool stopped_failing(const Stop *st)
{
    return st->kind == STOP_ERROR || st->kind == STOP_NAN;
}

/* The inputs bound: re-arm the recorded `catch nan` and run to the
** failure.  The session stops before a failing node, after a NaN maker. */
static void run_to_failure(CmdCtx *c, const RecordMeta *meta)
{
    if (session_last_stop(c->s)->kind == STOP_ERROR)
        return; /* the inputs were rejected: that is the failure */
    if (meta->failure && strcmp(meta->failure, "nan") == 0)
        command(c, "catch nan");
    command(c, "run");
}

/* "Reproduced: ..." -- how the failure now compares with the recorded
** one (new string), or NULL for a file that records no failure. */
static char *replay_verdict(const RecordMeta *meta, const Stop *st)
{
    const char *now = stopped_failing(st) ? stop_message(st) : NULL;
    if (meta->message && now && strcmp(meta->message, now) == 0)
        return ep_xstrdup("Reproduced: the same failure as recorded.");
    if (meta->message && now)
        return ep_xasprintf("Not the recorded failure.  Recorded:\n%s", meta->message);
    if (meta->message)
        return ep_xasprintf("Not reproduced: the run now succeeds (recorded: %s).",
                            meta->failure ? meta->failure : "a failure");
    return NULL;
}

/* "Replaying FILE on MODEL (recorded: nan at node log)" (new string). */
static char *replay_heading(const char *record, const char *model, const RecordMeta *meta)
{
    if (!meta->failure)
        return ep_xasprintf("Replaying %s on %s", record, model);
    return ep_xasprintf("Replaying %s on %s (recorded: %s%s%s)", record, model, meta->failure,
                        meta->node ? " at node " : "", meta->node ? meta->node : "");
}

/* The full-screen debugger at the failure, its opening dialog saying what
** was replayed, what failed now and whether it is the recorded failure. */
static int replay_full_screen(Session *s, const DebugArgs *a, const char *record, const RecordMeta *meta,
                              const char *open_note, FullScreenFn full_screen)
{
    Out quiet = {discard, NULL};
    CmdCtx c = {.s = s, .out = &quiet, .frame = -1, .list_node = -1,
                .source_dirs = (const char *const *)a->source_dirs, .nsource_dirs = a->nsource_dirs};
    run_to_failure(&c, meta);
    const Stop *st = session_last_stop(s);
    StrBuf sb;
    sb_init(&sb);
    char *heading = replay_heading(record, a->path, meta);
    sb_printf(&sb, "%s\n", heading);
    free(heading);
    if (open_note)
        sb_printf(&sb, "%s\n", open_note);
    else if (stopped_failing(st) && st->detail)
        sb_printf(&sb, "%s\n", st->detail);
    char *verdict = replay_verdict(meta, st);
    if (verdict)
        sb_printf(&sb, "%s\n", verdict);
    free(verdict);
    char *note = sb_take(&sb);
    int rc = full_screen(s, a, note);
    free(note);
    return rc;
}

int cli_replay(int argc, char **argv, FullScreenFn full_screen)
{
    const char *record = NULL;
    char **rest = ep_xcalloc((size_t)argc + 3, sizeof *rest);
    int nrest = 0;
    for (int i = 0; i < argc; i++) {
        bool takes_value = strcmp(argv[i], "--model") == 0 || strcmp(argv[i], "--source-dir") == 0;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(REPLAY_USAGE, stdout);
            free(rest);
            return EP_OK;
        }
        if (!record && argv[i][0] != '-') {
            record = argv[i];
            continue;
        }
        rest[nrest++] = argv[i];
        if (takes_value && i + 1 < argc)
            rest[nrest++] = argv[++i];
    }
    if (!record) {
        fputs(REPLAY_USAGE, stderr);
        free(rest);
        return EP_ERR_USAGE;
    }
    RecordMeta meta;
    EpError err = {0};
    if (record_load_meta(record, &meta, &err)) {
        fprintf(stderr, "epdbg replay: %s\n", err.msg);
        free(rest);
        return EP_ERR_FORMAT;
    }
    DebugArgs a;
    int rc = debug_args_parse(nrest, rest, &a, "replay");
    /* --batch asks for the report; there are no commands to read */
    if (rc == EP_OK && (a.script || a.ncommands || !input_args_empty(&a.inputs))) {
        fprintf(stderr, "epdbg replay: the inputs come from %s; script and input options do not apply\n", record);
        rc = EP_ERR_USAGE;
    }
    if (rc) {
        if (rc < 0)
            rc = EP_OK;
        debug_args_free(&a);
        record_meta_free(&meta);
        free(rest);
        return rc;
    }
    a.inputs.npz = ep_xstrdup(record);
    if (!a.model_name && meta.model_name)
        a.model_name = meta.model_name;
    bool report = a.batch_stdin || !full_screen || !(isatty(STDIN_FILENO) && isatty(STDOUT_FILENO));
    if (report) {
        char *heading = replay_heading(record, a.path, &meta);
        printf("%s\n", heading);
        free(heading);
    }
    Session *s = NULL;
    char *note = NULL;
    rc = debug_session_open(&a, !report, &s, &note);
    if (rc == EP_OK && !report) {
        rc = replay_full_screen(s, &a, record, &meta, note, full_screen);
        free(note);
        session_free(s);
        debug_args_free(&a);
        record_meta_free(&meta);
        free(rest);
        return rc;
    }
    if (note)
        printf("%s\n", note);
    free(note);
    if (rc) {
        debug_args_free(&a);
        record_meta_free(&meta);
        free(rest);
        return rc;
    }
    Out out = {write_stdout, NULL};
    CmdCtx c = {.s = s, .out = &out, .frame = -1, .list_node = -1,
                .source_dirs = (const char *const *)a.source_dirs, .nsource_dirs = a.nsource_dirs};
    bool bound = session_last_stop(s)->kind != STOP_ERROR;
    run_to_failure(&c, &meta);
    const Stop *st = session_last_stop(s);
    if (bound && st->node >= 0 && stopped_failing(st))
        command(&c, "backtrace");
    int status = st->kind == STOP_ERROR ? st->error : st->kind == STOP_NAN ? EP_ERR_EXEC : EP_OK;
    char *verdict = replay_verdict(&meta, st);
    if (verdict)
        printf("%s\n", verdict);
    free(verdict);
    session_free(s);
    debug_args_free(&a);
    record_meta_free(&meta);
    free(rest);
    return status;
}
