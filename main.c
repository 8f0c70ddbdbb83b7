/*
** main.c -- epdbg's command line: picks the subcommand and returns its
** status as the exit code.  The subcommands are in cli/; the full-screen
** debugger is in tui/, and this is the one file that knows both: it hands
** cli_debug the TUI for the full-screen case.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/cli.h"
#include "interp/parallel.h"
#include "interp/tensor.h"
#include "interp/ops.h"
#include "tui/tui.h"

#ifndef EPDBG_VERSION /* the Makefile defines it, from its VERSION */
#error "EPDBG_VERSION is not defined: build with make"
#endif

/* parallel.c keeps at most this many; more is surely a typo */
#define MAX_THREADS 256

static const char USAGE[] =
    "epdbg " EPDBG_VERSION " -- a debugger for PyTorch exported programs (.pt2)\n"
    "\n"
    "usage:\n"
    "  epdbg info MODEL.pt2 [--json] [--model NAME] [--shapes]\n"
    "      what the archive holds: format, inputs, outputs, weights, ops, unsupported ops\n"
    "      (every program of an archive that holds several, unless --model picks one);\n"
    "      --shapes adds every node's symbolic shapes and their ranges\n"
    "  epdbg run MODEL.pt2 [--input FILE]... [--input NAME=FILE]... [--inputs FILE|DIR]\n"
    "                      [--outputs DIR] [--model NAME] [--no-blas] [--stop-on-nan]\n"
    "                      [--record FILE.npz [--record-all]] [--shadow-fp64]\n"
    "      run the program once (stored example inputs unless inputs are given: .npy, .npz\n"
    "      or torch.save files, told apart by content); a failing run saves its inputs to a\n"
    "      replay file; --shadow-fp64 also runs every node in float64 and reports where\n"
    "      float32 departs from it\n"
    "  epdbg profile MODEL.pt2 [input options] [--iters N] [--warmup W] [--sample[=HZ]]\n"
    "                [--clock cpu|wall] [--by op|node|module|line] [--threads T] [--top N]\n"
    "                [--format table|json|chrome|speedscope|folded|svg] [--output FILE]\n"
    "                [--diff OTHER.json]\n"
    "      time every node over N runs (or sample them), by op, node, module or line of\n"
    "      your source, with FLOPs, bytes and memory; `epdbg profile --help` says more\n"
    "  epdbg suggest MODEL.pt2 [--dynamic NAME:DIM[=DIMNAME]]... [input options] [--json] [--no-run]\n"
    "      the dynamic_shapes to export the model with (Dims shared, derived, bounded, each\n"
    "      with the node and line behind it) and the source changes for the rest, verified\n"
    "      before shown; with failing inputs, what they break and why\n"
    "  epdbg MODEL.pt2 [-x FILE] [--batch] [-ex CMD]... [--source-dir DIR]... [--no-color] [input options]\n"
    "      the debugger: step through the graph, breakpoints, inspection, time travel, time\n"
    "      per node; full-screen on a terminal (? lists the keys); -x/--batch/-ex run commands\n"
    "      from a script, stdin or the command line instead (`help` lists them)\n"
    "  epdbg replay FILE.npz MODEL.pt2 [--source-dir DIR]... [--batch]\n"
    "      re-run the inputs a failed run saved and stop at the failing node: full-screen\n"
    "      on a terminal, a report with --batch or without one\n"
    "  --max-memory SIZE (any command, e.g. 4G): the most tensor data epdbg holds at once\n"
    "  --threads N (any command): threads for the kernels (default: the machine's cores;\n"
    "      results are the same for any N)\n"
    "  epdbg --version | -V      the version\n"
    "  epdbg --help | -h         this text\n"
    "\n"
    "exit codes: 0 ok, 1 usage, 2 unreadable or invalid archive/input file,\n"
    "            3 inputs violate the program's constraints, 4 execution failed,\n"
    "            128+N killed by signal N (the terminal is given back first)\n"
    "files: ~/.epdbgrc (key bindings of the full-screen debugger)\n"
    "more: man epdbg\n";

/* The full-screen case of cli_debug and cli_replay (a FullScreenFn): the
** TUI, told what it needs from the debugger's command line. */
static int full_screen_tui(Session *s, const DebugArgs *a, const char *note)
{
    TuiOptions opt = {.model_path = a->path,
                      .source_dirs = (const char *const *)a->source_dirs,
                      .nsource_dirs = a->nsource_dirs,
                      .color = !a->no_color,
                      .note = note};
    return tui_main(s, &opt);
}

/* The subcommands: the first word of the command line. */
/* `epdbg replay` with the TUI for a terminal (cli/ never knows the TUI). */
static int replay_with_tui(int argc, char **argv)
{
    return cli_replay(argc, argv, full_screen_tui);
}

static const struct {
    const char *name;
    int (*run)(int argc, char **argv); /* argv after the subcommand's name */
} SUBCOMMANDS[] = {
    {"info", cli_info},
    {"run", cli_run},
    {"profile", cli_profile},
    {"suggest", cli_suggest},
    {"replay", replay_with_tui},
};

/* Whether word names a model to debug rather than a misspelt subcommand:
** a path that exists, or one with an archive's extension (a missing file
** then gets cli_debug's "cannot open" message, not "unknown command"). */
static bool is_model_path(const char *word)
{
    static const char *const EXTENSIONS[] = {".pt2", ".pth", ".zip"};
    if (access(word, F_OK) == 0)
        return true;
    size_t n = strlen(word);
    for (size_t i = 0; i < sizeof EXTENSIONS / sizeof EXTENSIONS[0]; i++) {
        size_t k = strlen(EXTENSIONS[i]);
        if (n > k && strcasecmp(word + n - k, EXTENSIONS[i]) == 0)
            return true;
    }
    return false;
}

static int unknown_command(const char *word)
{
    fprintf(stderr, "epdbg: unknown command '%s' (the commands are", word);
    for (size_t i = 0; i < sizeof SUBCOMMANDS / sizeof SUBCOMMANDS[0]; i++)
        fprintf(stderr, "%s %s", i ? "," : "", SUBCOMMANDS[i].name);
    fprintf(stderr, "; a MODEL.pt2 opens the debugger; see epdbg --help)\n");
    return EP_ERR_USAGE;
}

/* Take the first "NAME VALUE" or "NAME=VALUE" after the subcommand out of
** argv: 1 with *value set, -1 when NAME ends the line without a value, 0
** when there is none. */
static int take_global_option(int *argc, char **argv, const char *name, const char **value)
{
    size_t len = strlen(name);
    for (int i = 2; i < *argc; i++) {
        if (strncmp(argv[i], name, len) != 0 || (argv[i][len] != '\0' && argv[i][len] != '='))
            continue;
        bool joined = argv[i][len] == '=';
        if (!joined && i + 1 >= *argc) {
            *value = NULL;
            return -1;
        }
        *value = joined ? argv[i] + len + 1 : argv[i + 1];
        int drop = joined ? 1 : 2;
        for (int k = i; k + drop <= *argc; k++)
            argv[k] = argv[k + drop];
        *argc -= drop;
        return 1;
    }
    return 0;
}

/* --threads N (or EPDBG_THREADS): the kernels' and the GEMMs' threads. */
static bool set_threads(const char *what, const char *v)
{
    char *end;
    errno = 0;
    long n = v ? strtol(v, &end, 10) : 0;
    if (!v || end == v || *end || errno || n < 1 || n > MAX_THREADS) {
        fprintf(stderr, "epdbg: %s %s: expected a number of threads from 1 to %d\n", what, v ? v : "", MAX_THREADS);
        return false;
    }
    ep_set_threads((int)n);
    return true;
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
        fputs(USAGE, argc < 2 ? stderr : stdout);
        return argc < 2 ? EP_ERR_USAGE : EP_OK;
    }
    if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0) {
        printf("epdbg %s\n", EPDBG_VERSION);
        return EP_OK;
    }
    /* --max-memory SIZE and --threads N apply to every command: taken out
    ** here, once (the last of each wins) */
    const char *v;
    int took;
    while ((took = take_global_option(&argc, argv, "--max-memory", &v)) != 0) {
        size_t bytes;
        if (took < 0 || !tensor_parse_bytes(v, &bytes) || bytes == 0) {
            fprintf(stderr, "epdbg: --max-memory %s: expected a size such as 512M, 4G or 1.5G\n", v ? v : "");
            return EP_ERR_USAGE;
        }
        tensor_set_memory_limit(bytes);
    }
    if ((v = getenv("EPDBG_THREADS")) && *v && !set_threads("EPDBG_THREADS", v))
        return EP_ERR_USAGE;
    while ((took = take_global_option(&argc, argv, "--threads", &v)) != 0)
        if (!set_threads("--threads", v)) /* v is NULL when the value is missing */
            return EP_ERR_USAGE;
    int sub = -1;
    for (int i = 0; i < (int)(sizeof SUBCOMMANDS / sizeof SUBCOMMANDS[0]); i++)
        if (strcmp(argv[1], SUBCOMMANDS[i].name) == 0)
            sub = i;
    if (argv[1][0] == '-') {
        fprintf(stderr, "epdbg: unknown option %s\n\n%s", argv[1], USAGE);
        return EP_ERR_USAGE;
    }
    if (sub < 0 && !is_model_path(argv[1]))
        return unknown_command(argv[1]);
    EpError err = {0};
    if (ops_init(&err)) {
        fprintf(stderr, "epdbg: %s\n", err.msg);
        return EP_ERR_EXEC;
    }
    int rc = sub >= 0 ? SUBCOMMANDS[sub].run(argc - 2, argv + 2) : cli_debug(argc - 1, argv + 1, full_screen_tui);
    ops_shutdown();
    return rc;
}
