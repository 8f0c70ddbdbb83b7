/*
** batch.c -- `epdbg MODEL.pt2 [-x FILE] [--batch] [-ex CMD]... [inputs]`:
** the debugger driven by a script.  Each command is echoed after a
** "(epdbg) " prompt and followed by its output, on stdout, so a transcript
** reads like a terminal session and is stable enough for golden tests.
** Without a script, on a terminal, the full-screen debugger opens instead
** over the same session and commands: the FullScreenFn main.c passes in
** (the TUI, which cli/ does not know).
**
** The exit code is 0 unless something failed: then it is the status of the
** first failure (1 usage, 3 inputs rejected, 4 a node failed, ...), by the
** rule the TUI follows too (cmd_exit_status).
**
** Ctrl-C while a command runs stops the run at the next node (the
** session's interrupt) and the script goes on with its next command; an
** interruption is not a failure.  Ctrl-C between commands ends the session
** as it would any program (exit 130).
*/
#include "cli.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debugger/cmd.h"

static const char DEBUG_USAGE[] =
    "usage: epdbg MODEL.pt2 [-x FILE] [--batch] [-ex CMD]... [--source-dir DIR]...\n"
    "                       [--input FILE]... [--input NAME=FILE]... [--inputs FILE|DIR]\n"
    "                       [--model NAME] [--no-blas] [--no-color]\n"
    "  -x FILE      run the debugger commands in FILE          --batch   read them from stdin\n"
    "  -ex CMD      run CMD (repeatable; after -x FILE)        --source-dir DIR  where `list` finds sources\n"
    "  --no-color   plain attributes in the full-screen debugger (so does NO_COLOR=1)\n"
    "  Without -x, --batch or -ex: the full-screen debugger (needs a terminal).  `help` lists the commands.\n";

void debug_args_free(DebugArgs *a)
{
    input_args_free(&a->inputs);
    free(a->source_dirs);
    free(a->commands);
    memset(a, 0, sizeof *a);
}

int debug_args_parse(int argc, char **argv, DebugArgs *a, const char *who)
{
    memset(a, 0, sizeof *a);
    for (int i = 0; i < argc; i++) {
        const char *o = argv[i];
        bool has_value = i + 1 < argc;
        if (strcmp(o, "--input") == 0 && has_value) {
            input_args_add(&a->inputs, argv[++i]);
        } else if (strcmp(o, "--inputs") == 0 && has_value) {
            if (a->inputs.npz) {
                fprintf(stderr, "epdbg %s: --inputs is given twice\n", who);
                return EP_ERR_USAGE;
            }
            input_args_set_all(&a->inputs, argv[++i]);
        } else if (strcmp(o, "--model") == 0 && has_value) {
            a->model_name = argv[++i];
        } else if (strcmp(o, "--no-blas") == 0) {
            a->no_blas = true;
        } else if (strcmp(o, "--source-dir") == 0 && has_value) {
            a->source_dirs = ep_xrealloc(a->source_dirs, (size_t)(a->nsource_dirs + 1) * sizeof *a->source_dirs);
            a->source_dirs[a->nsource_dirs++] = argv[++i];
        } else if (strcmp(o, "-x") == 0 && has_value) {
            a->script = argv[++i];
        } else if (strcmp(o, "--no-color") == 0) {
            a->no_color = true;
        } else if (strcmp(o, "--batch") == 0) {
            a->batch_stdin = true;
        } else if ((strcmp(o, "-ex") == 0 || strcmp(o, "--ex") == 0) && has_value) {
            a->commands = ep_xrealloc(a->commands, (size_t)(a->ncommands + 1) * sizeof *a->commands);
            a->commands[a->ncommands++] = argv[++i];
        } else if (strcmp(o, "-h") == 0 || strcmp(o, "--help") == 0) {
            fputs(DEBUG_USAGE, stdout);
            return -1;
        } else if (o[0] == '-' && o[1]) {
            fprintf(stderr, "epdbg %s: unknown option or missing value: %s\n%s", who, o, DEBUG_USAGE);
            return EP_ERR_USAGE;
        } else if (!a->path) {
            a->path = o;
        } else {
            fprintf(stderr, "epdbg %s: one model at a time (got %s and %s)\n", who, a->path, o);
            return EP_ERR_USAGE;
        }
    }
    if (!a->path) {
        fputs(DEBUG_USAGE, stderr);
        return EP_ERR_USAGE;
    }
    return EP_OK;
}

int debug_session_open(const DebugArgs *a, bool full_screen, Session **out, char **note)
{
    *note = NULL;
    EpError err = {0};
    SessionOptions so = {.model_path = a->path, .model_name = a->model_name,
                         .kernels = {.use_blas = !a->no_blas}};
    Session *s = session_open(&so, &err);
    if (!s) {
        fprintf(stderr, "epdbg: %s\n", err.msg);
        return err.code ? err.code : EP_ERR_FORMAT;
    }
    Value *vals = NULL;
    char **sources = NULL;
    int n = 0;
    EpStatus rc = inputs_load_traced(session_interp(s), &a->inputs, NULL, &vals, &sources, &n, &err);
    if (rc) {
        /* no inputs is not fatal when none were asked for: the user can
        ** still read the graph, the signature and the source */
        if (!input_args_empty(&a->inputs)) {
            fprintf(stderr, "epdbg: %s\n", err.msg);
            session_free(s);
            return rc;
        }
        size_t len = strlen(err.msg);
        while (len && err.msg[len - 1] == '\n')
            err.msg[--len] = '\0';
        char *how = inputs_how_to_give(session_interp(s), full_screen);
        *note = ep_xasprintf("Note: %s\nGive %s with %s (.npy, .npz or torch.save .pt), then `%s`.", err.msg,
                             interp_num_user_inputs(session_interp(s)) == 1 ? "it" : "them", how,
                             full_screen ? "r" : "run");
        free(how);
        *out = s;
        return EP_OK;
    }
    session_set_inputs(s, vals, n);
    for (int i = 0; i < n; i++) {
        session_set_input_source(s, i, sources[i]);
        value_clear(&vals[i]);
    }
    free(vals);
    inputs_sources_free(sources, n);
    if (session_restart(s, &err)) { /* the stop holds the message: a guard failure is worth debugging */
        char *how = inputs_how_to_give(session_interp(s), full_screen);
        *note = ep_xasprintf("The inputs do not satisfy the program: %s\nGive other inputs with %s.", err.msg, how);
        free(how);
    }
    *out = s;
    return EP_OK;
}

static void write_stdout(void *ctx, const char *text, size_t len)
{
    (void)ctx;
    fwrite(text, 1, len, stdout);
}

/* The session Ctrl-C interrupts while a command runs (NULL between
** commands: then SIGINT ends the program as usual). */
static Session *volatile running_session;

static void on_sigint(int sig)
{
    Session *s = running_session;
    if (s) {
        session_interrupt(s);
        return;
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Run one line, echoed after the prompt; returns its exit status
** (cmd_exit_status). */
static EpStatus run_line(CmdCtx *c, const char *line, bool echo)
{
    const char *p = line;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == '\0' || *p == '#')
        return EP_OK;
    /* from the echo on, Ctrl-C is this command's */
    running_session = c->s;
    if (echo)
        printf("(epdbg) %s\n", p);
    fflush(stdout); /* whoever reads the transcript sees which command is running */
    EpError err = {0};
    EpStatus rc = cmd_execute(c, p, &err);
    running_session = NULL;
    if (rc)
        printf("error: %s\n", err.msg);
    fflush(stdout);
    return cmd_exit_status(c, p, rc);
}

/* Lines of f until quit; the first failure's status into *first. */
static void run_stream(CmdCtx *c, FILE *f, EpStatus *first)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    for (;;) {
        if ((len = getline(&line, &cap, f)) < 0)
            break;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        EpStatus rc = run_line(c, line, true);
        if (rc && !*first)
            *first = rc;
        if (c->quit)
            break;
    }
    free(line);
}

int cli_debug(int argc, char **argv, FullScreenFn full_screen)
{
    DebugArgs a;
    int rc = debug_args_parse(argc, argv, &a, "debug");
    if (rc) {
        debug_args_free(&a);
        return rc < 0 ? EP_OK : rc;
    }
    bool scripted = a.script || a.batch_stdin || a.ncommands;
    if (!scripted && !(isatty(STDIN_FILENO) && isatty(STDOUT_FILENO))) {
        fprintf(stderr, "epdbg: not a terminal: the full-screen debugger needs one; for a scripted session use "
                        "-x FILE, --batch (commands on stdin) or -ex CMD\n");
        debug_args_free(&a);
        return EP_ERR_USAGE;
    }
    FILE *script = NULL;
    EpError serr = {0};
    if (a.script && !(script = ep_fopen_regular(a.script, "r", "-x", &serr))) {
        fprintf(stderr, "epdbg: %s\n", serr.msg);
        debug_args_free(&a);
        return EP_ERR_USAGE;
    }
    Session *s = NULL;
    char *note = NULL;
    rc = debug_session_open(&a, !scripted, &s, &note);
    if (rc) {
        if (script)
            fclose(script);
        debug_args_free(&a);
        return rc;
    }
    if (!scripted) {
        rc = full_screen(s, &a, note);
        free(note);
        session_free(s);
        debug_args_free(&a);
        return rc;
    }
    if (note)
        printf("%s\n", note);
    free(note);
    Out out = {write_stdout, NULL};
    CmdCtx c = {.s = s, .out = &out, .frame = -1, .list_node = -1,
                .source_dirs = (const char *const *)a.source_dirs, .nsource_dirs = a.nsource_dirs};
    EpStatus first = cmd_exit_status(&c, NULL, EP_OK);
    /* SA_RESTART: a Ctrl-C does not end the read of the next command */
    struct sigaction sa, old_sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_sa);
    if (script)
        run_stream(&c, script, &first);
    for (int i = 0; i < a.ncommands && !c.quit; i++) {
        EpStatus r = run_line(&c, a.commands[i], true);
        if (r && !first)
            first = r;
    }
    if (a.batch_stdin && !c.quit)
        run_stream(&c, stdin, &first);
    sigaction(SIGINT, &old_sa, NULL);
    if (script)
        fclose(script);
    session_free(s);
    debug_args_free(&a);
    return first;
}
