/*
** fuzz_cmd.c -- libFuzzer harness for the debugger's command language:
** every line of the input is
**   - parsed as a breakpoint condition (bpcond_parse, the `break ... if`
**     grammar of session_cond.c),
**   - run as a command against a fresh session on a small model (cmd_execute:
**     the command table, every argument parser, and conditions evaluated by
**     the runs the lines start),
** and the whole input is read as a ~/.epdbgrc (keymap_load_rc).
**
** Commands that write files (dump, record, profile), read arbitrary ones or
** run the program again (compare, check, suggest, list, source) are skipped,
** as are `run`/`set` lines naming a path: the fuzzer must not write into
** the tree nor open a FIFO.  The model is $EPDBG_FUZZ_MODEL, by default
** examples/mlp.pt2 (run from the project root, as `make fuzz` does).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debugger/cmd.h"
#include "fuzz_util.h"
#include "tui/keys.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Scripts longer than this only repeat what shorter ones reach. */
#define MAX_LINES 64
#define MAX_INPUT 8192

static const char *const SKIPPED[] = {"dump", "record", "profile", "compare", "check", "suggest", "list", "source"};

static bool allowed(const char *line)
{
    EpError err = {0};
    char word[64];
    if (sscanf(line, " %63s", word) != 1)
        return true; /* blank: cmd_execute does nothing */
    const Command *c = cmd_find(word, &err);
    if (!c)
        return true; /* unknown: the error path is what is tested */
    for (size_t i = 0; i < EP_ARRAY_LEN(SKIPPED); i++)
        if (strcmp(c->name, SKIPPED[i]) == 0)
            return false;
    if ((strcmp(c->name, "run") == 0 || strcmp(c->name, "set") == 0) && strchr(line, '/'))
        return false;
    return true;
}

static void discard(void *ctx, const char *text, size_t len)
{
    EP_UNUSED(ctx);
    EP_UNUSED(text);
    EP_UNUSED(len);
}

/* The model, opened once: a fresh session per input borrows it.  Loading it
** again for every input took four fifths of the time; the sessions cannot
** see each other's runs as long as the program mutates no buffer. */
static Model *shared_model(const char **path)
{
    static Model *model;
    static const char *model_path;
    if (!model) {
        const char *env = getenv("EPDBG_FUZZ_MODEL");
        model_path = env && env[0] ? env : "examples/mlp.pt2";
        EpError err = {0};
        if (model_open(model_path, NULL, &model, &err)) {
            fprintf(stderr, "fuzz_cmd: %s (run from the project root after `make examples`)\n", err.msg);
            exit(1);
        }
        const ExportedProgram *ep = model->ep;
        for (int i = 0; i < ep->noutput_specs; i++)
            if (ep->output_specs[i].kind == OUT_BUFFER_MUTATION || ep->output_specs[i].kind == OUT_PARAMETER_MUTATION) {
                fprintf(stderr, "fuzz_cmd: %s mutates its weights; the fuzzer needs a model that does not\n",
                        model_path);
                exit(1);
            }
    }
    *path = model_path;
    return model;
}

static Session *open_session(void)
{
    SessionOptions so = {0};
    Model *model = shared_model(&so.model_path);
    EpError err = {0};
    Session *s = session_open_model(&so, model, &err);
    if (!s) {
        fprintf(stderr, "fuzz_cmd: %s\n", err.msg);
        exit(1);
    }
    Value *vals;
    int n;
    if (interp_sample_inputs(session_interp(s), &vals, &n, &err) == EP_OK) {
        session_set_inputs(s, vals, n);
        for (int i = 0; i < n; i++)
            value_clear(&vals[i]);
        free(vals);
        session_restart(s, &err);
    }
    return s;
}

static void rc_lines(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write_temp(data, size, ".epdbgrc");
    if (!path)
        return;
    Keymap km;
    keymap_defaults(&km);
    EpError err = {0};
    keymap_load_rc(&km, path, &err);
    keymap_free(&km);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MAX_INPUT)
        return 0;
    rc_lines(data, size);
    char *text = fuzz_cstr(data, size);
    if (!text)
        return 0;
    Session *s = open_session();
    Out out = {discard, NULL};
    CmdCtx c = {.s = s, .out = &out, .frame = -1, .list_node = -1};
    char *save = NULL;
    int nlines = 0;
    for (char *line = strtok_r(text, "\n", &save); line && nlines < MAX_LINES && !c.quit;
         line = strtok_r(NULL, "\n", &save), nlines++) {
        EpError err = {0};
        bpcond_free(bpcond_parse(line, &err));
        if (allowed(line)) {
            EpError cerr = {0};
            cmd_execute(&c, line, &cerr);
        }
    }
    session_free(s);
    free(text);
    return 0;
}
