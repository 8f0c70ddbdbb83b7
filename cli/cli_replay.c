/*
** cli_replay.c -- `epdbg replay FILE.npz MODEL.pt2`: re-run the inputs a
** failed run saved (debugger/record.h) in the debugger and stop where it
** failed, with the node's stack trace, then say whether the failure is the
** one recorded.  The exit code is the failure's, so a fixed model replays
** with 0.
*/
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debugger/cmd.h"
#include "debugger/record.h"

static const char REPLAY_USAGE[] =
    "usage: epdbg replay FILE.npz MODEL.pt2 [--model NAME] [--source-dir DIR]... [--no-blas]\n"
    "  FILE.npz is a replay file written by `epdbg run` when a run failed (or by --record).\n";

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

/* The message a failure printed, to compare with the recorded one. */
static const char *stop_message(const Stop *st)
{
    return st->detail ? st->detail : "";
}

int cli_replay(int argc, char **argv)
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
    if (rc == EP_OK && (a.script || a.batch_stdin || a.ncommands || !input_args_empty(&a.inputs))) {
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
    printf("Replaying %s on %s", record, a.path);
    if (meta.failure)
        printf(" (recorded: %s%s%s)", meta.failure, meta.node ? " at node " : "", meta.node ? meta.node : "");
    printf("\n");
    Session *s = NULL;
    char *note = NULL;
    rc = debug_session_open(&a, &s, &note);
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
    const Stop *st = session_last_stop(s);
    if (st->kind != STOP_ERROR) { /* the inputs bound: run to the failure */
        if (meta.failure && strcmp(meta.failure, "nan") == 0)
            command(&c, "catch nan");
        command(&c, "run");
        st = session_last_stop(s);
        if (st->node >= 0 && (st->kind == STOP_ERROR || st->kind == STOP_NAN))
            command(&c, "backtrace");
    }
    int status = st->kind == STOP_ERROR ? st->error : st->kind == STOP_NAN ? EP_ERR_EXEC : EP_OK;
    const char *now = st->kind == STOP_ERROR || st->kind == STOP_NAN ? stop_message(st) : NULL;
    if (meta.message && now && strcmp(meta.message, now) == 0)
        printf("Reproduced: the same failure as recorded.\n");
    else if (meta.message && now)
        printf("Not the recorded failure.  Recorded:\n%s\n", meta.message);
    else if (meta.message)
        printf("Not reproduced: the run now succeeds (recorded: %s).\n", meta.failure ? meta.failure : "a failure");
    session_free(s);
    debug_args_free(&a);
    record_meta_free(&meta);
    free(rest);
    return status;
}
