/*
** main.c -- epdbg's command line: picks the subcommand and returns its
** status as the exit code.  The subcommands are in cli/; the full-screen
** debugger is in tui/, and this is the one file that knows both: it hands
** cli_debug the TUI for the full-screen case.
*/
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "interp/ops.h"
#include "tui/tui.h"

static const char USAGE[] =
    "epdbg -- debugger and profiler for PyTorch exported programs (.pt2)\n"
    "\n"
    "usage:\n"
    "  epdbg info MODEL.pt2 [--json] [--model NAME]\n"
    "      what the archive holds: format, inputs, outputs, weights, ops, unsupported ops\n"
    "  epdbg run MODEL.pt2 [--input FILE.npy]... [--input NAME=FILE.npy]... [--inputs FILE.npz|DIR]\n"
    "                      [--outputs DIR] [--model NAME] [--no-blas] [--stop-on-nan]\n"
    "                      [--record FILE.npz [--record-all]] [--shadow-fp64]\n"
    "      run the program once (stored example inputs unless inputs are given); a failing\n"
    "      run saves its inputs to a replay file; --shadow-fp64 also runs every node in\n"
    "      float64 and reports where float32 departs from it\n"
    "  epdbg MODEL.pt2 [-x FILE] [--batch] [-ex CMD]... [--source-dir DIR]... [--no-color] [input options]\n"
    "      the debugger: step through the graph, breakpoints, inspection, time travel;\n"
    "      full-screen on a terminal (? lists the keys); -x/--batch/-ex run commands\n"
    "      from a script, stdin or the command line instead\n"
    "  epdbg replay FILE.npz MODEL.pt2 [--source-dir DIR]...\n"
    "      re-run the inputs a failed run saved and stop at the failing node\n"
    "\n"
    "exit codes: 0 ok, 1 usage, 2 unreadable or invalid archive/input file,\n"
    "            3 inputs violate the program's constraints, 4 execution failed\n";

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

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
        fputs(USAGE, argc < 2 ? stderr : stdout);
        return argc < 2 ? EP_ERR_USAGE : EP_OK;
    }
    EpError err = {0};
    if (ops_init(&err)) {
        fprintf(stderr, "epdbg: %s\n", err.msg);
        return EP_ERR_EXEC;
    }
    int rc;
    if (strcmp(argv[1], "info") == 0)
        rc = cli_info(argc - 2, argv + 2);
    else if (strcmp(argv[1], "run") == 0)
        rc = cli_run(argc - 2, argv + 2);
    else if (strcmp(argv[1], "replay") == 0)
        rc = cli_replay(argc - 2, argv + 2, full_screen_tui);
    else if (argv[1][0] != '-')
        rc = cli_debug(argc - 1, argv + 1, full_screen_tui);
    else {
        fprintf(stderr, "epdbg: unknown option %s\n\n%s", argv[1], USAGE);
        rc = EP_ERR_USAGE;
    }
    ops_shutdown();
    return rc;
}
