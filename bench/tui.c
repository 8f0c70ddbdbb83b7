/*
** tui.c -- redraw cost of the full-screen debugger on a 100,000-node graph.
**
** The screen is drawn headless (tui_render onto a Grid, as screen.c would
** copy it to the terminal; curses itself then only sends the changed
** cells).  Measured: opening the TUI (its per-node tables), and one step
** plus a full redraw, repeated, at 200x60 -- the target is 5 ms per step;
** and the inspector on a [16, 256, 1024] float32 value (16 M elements): the
** first draw computes its statistics, the next ones draw one page from
** what was kept.
**
**   build/release/bench/tui [NODES] [STEPS]
*/
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench/benchutil.h"
#include "examples/gen/benchmodels.h"
#include "tui/panes.h"
#include "tui/tui.h"
#include "tui/tui_int.h"

int main(int argc, char **argv)
{
    int nodes = argc > 1 ? atoi(argv[1]) : 100000;
    int steps = argc > 2 ? atoi(argv[2]) : 1000;
    EpError err = {0};
    if (ops_init(&err))
        return 1;
    PbRng r = {1};
    ProgBuilder *pb = bench_chain_model(nodes, &r);
    char path[] = "/tmp/epdbg-bench-tui-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    PbWriteOptions opt = {.era = PB_ERA_2_11};
    if (pb_write(pb, path, &opt, &err)) {
        fprintf(stderr, "tui: %s\n", err.msg);
        return 1;
    }
    pb_free(pb);
    SessionOptions so = {.model_path = path, .kernels = {.use_blas = true}};
    Session *s = session_open(&so, &err);
    Value *vals;
    int n;
    if (!s || interp_sample_inputs(session_interp(s), &vals, &n, &err)) {
        fprintf(stderr, "tui: %s\n", err.msg);
        return 1;
    }
    session_set_inputs(s, vals, n);
    for (int i = 0; i < n; i++)
        value_clear(&vals[i]);
    free(vals);
    session_restart(s, &err);
    double t0 = bench_now();
    Tui *t = tui_new(s, path, NULL, 0, true);
    Grid g = {0};
    grid_resize(&g, 60, 200);
    tui_render(t, &g);
    double t_open = bench_now() - t0;
    double best = 1e9, total = 0;
    for (int i = 0; i < steps; i++) {
        double a = bench_now();
        tui_key(t, 's');
        tui_render(t, &g);
        double d = bench_now() - a;
        total += d;
        if (d < best)
            best = d;
    }
    /* scrolling far: the cursor to the end of the graph and back */
    double a = bench_now();
    tui_key(t, TK_END);
    tui_render(t, &g);
    tui_key(t, TK_HOME);
    tui_render(t, &g);
    double jump = (bench_now() - a) / 2;
    printf("tui: %d nodes at 200x60: open %.1f ms, step + redraw %.3f ms best, %.3f ms mean over %d steps, "
           "jump to end + redraw %.3f ms (target 5 ms)\n",
           nodes, t_open * 1e3, best * 1e3, total * 1e3 / steps, steps, jump * 1e3);

    /* the inspector on a big value: one page is drawn, never the tensor */
    int64_t big[3] = {16, 256, 1024};
    Tensor *y = tensor_zeros(DT_F32, 3, big, &err);
    const char *name = y ? interp_node_output_name(session_interp(s), 0, 0) : NULL;
    if (!name || session_set_value(s, name, value_tensor(y), &err)) {
        fprintf(stderr, "tui: %s\n", err.msg);
        return 1;
    }
    tui_inspect(t, name);
    grid_resize(&g, 40, 200);
    Canvas all = canvas_of(&g);
    const PaneClass *inspector = tui_pane_class(PANE_INSPECTOR);
    a = bench_now();
    inspector->draw(t, t->pane_state[PANE_INSPECTOR], &all, true);
    double first = bench_now() - a;
    a = bench_now();
    for (int i = 0; i < 10; i++)
        inspector->draw(t, t->pane_state[PANE_INSPECTOR], &all, true);
    double again = (bench_now() - a) / 10;
    printf("tui: inspector on a [16, 256, 1024] float32 value at 200x40: first draw (statistics) %.1f ms, "
           "next draws %.3f ms\n",
           first * 1e3, again * 1e3);
    grid_free(&g);
    tui_free(t);
    session_free(s);
    unlink(path);
    ops_shutdown();
    return 0;
}
