/*
** tui_main.c -- `epdbg MODEL.pt2` on a terminal: the full-screen debugger's
** loop.  Reads a key, hands it to the TUI, draws the screen; Ctrl-C while a
** command runs stops the run at the next node (the session's interrupt),
** not the program.
**
** While a command runs, the session's progress callback redraws between
** nodes (at most every 50 ms), which says nothing while one node runs for
** seconds.  So a ticker thread reads the interpreter's "node now
** executing" slot every 200 ms and redraws the status line alone with it
** and how long it has run.  The two threads share curses under one mutex;
** the ticker draws only while a command runs, when the main thread is in
** the command and touches curses only through present().
*/
#include "tui.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "keys.h"
#include "screen.h"
#include "tui_int.h"

typedef struct Loop {
    Screen *screen;
    Grid grid;
    Tui *t;
    pthread_mutex_t lock;  /* curses: the main thread's present() and the ticker */
    atomic_bool stop;      /* the ticker ends */
} Loop;

static Session *volatile interrupt_session;
static volatile sig_atomic_t ctrl_c_pending;

static void on_sigint(int sig)
{
    (void)sig;
    if (interrupt_session)
        session_interrupt(interrupt_session);
    ctrl_c_pending = 1;
}

/* The node now executing, by index in the program's graph (-1: in a
** subgraph). */
static int node_index(const Interp *ip, const Node *node)
{
    int n = interp_num_nodes(ip);
    if (n == 0)
        return -1;
    uintptr_t first = (uintptr_t)interp_node(ip, 0), at = (uintptr_t)node;
    if (at < first || at >= first + (uintptr_t)n * sizeof(Node))
        return -1;
    return (int)((at - first) / sizeof(Node));
}

static void *ticker(void *arg)
{
    Loop *l = arg;
    const Interp *ip = session_interp(l->t->s);
    const _Atomic(const Node *) *slot = interp_now_slot(ip);
    const Node *seen = NULL;
    double since = 0;
    Grid row = {0};
    while (!atomic_load(&l->stop)) {
        struct timespec ts = {0, 200 * 1000 * 1000};
        nanosleep(&ts, NULL);
        const Node *now = atomic_load(slot);
        if (!atomic_load(&l->t->running) || !now) {
            seen = NULL;
            continue;
        }
        if (now != seen) {
            seen = now;
            since = ep_monotonic_seconds();
        }
        pthread_mutex_lock(&l->lock);
        if (atomic_load(&l->t->running) && l->grid.rows > 0) {
            char text[256];
            tui_running_text(l->t, node_index(ip, now), now->name, (int)(ep_monotonic_seconds() - since), text, sizeof text);
            grid_resize(&row, 1, l->grid.cols);
            Canvas c = canvas_of(&row);
            canvas_fill_row(&c, 0, ST_STATUS);
            canvas_print(&c, 0, 1, ST_STATUS, text);
            screen_show_row(l->screen, &row, 0, l->grid.rows - 1);
        }
        pthread_mutex_unlock(&l->lock);
    }
    grid_free(&row);
    return NULL;
}

static void present(Tui *t)
{
    Loop *l = t->present_ctx;
    pthread_mutex_lock(&l->lock);
    int rows, cols;
    screen_size(l->screen, &rows, &cols);
    if (rows != l->grid.rows || cols != l->grid.cols)
        grid_resize(&l->grid, rows, cols);
    if (t->redraw_all) {
        screen_invalidate(l->screen);
        t->redraw_all = false;
    }
    tui_render(t, &l->grid);
    screen_show(l->screen, &l->grid, t->cursor_row, t->cursor_col);
    pthread_mutex_unlock(&l->lock);
}

int tui_main(Session *s, const TuiOptions *opt)
{
    const char *no_color = getenv("NO_COLOR");
    bool color = opt->color && !(no_color && no_color[0]);
    Tui *t = tui_new(s, opt->model_path, opt->source_dirs, opt->nsource_dirs, color);
    if (opt->note) {
        char *text = session_inputs_rejected(s) ? ep_xasprintf("%s\n%s", opt->note, TUI_GUARD_HINT)
                                                : ep_xstrdup(opt->note);
        tui_dialog(t, text);
        free(text);
    }
    const char *home = getenv("HOME");
    if (home && home[0]) {
        char *rc = ep_xasprintf("%s/.epdbgrc", home);
        EpError err = {0};
        if (keymap_load_rc(&t->keys, rc, &err))
            tui_dialog(t, err.msg);
        free(rc);
    }
    EpError err = {0};
    Loop l = {0};
    l.t = t;
    pthread_mutex_init(&l.lock, NULL);
    l.screen = screen_open(color, &err);
    if (!l.screen) {
        fprintf(stderr, "epdbg: %s\n", err.msg);
        pthread_mutex_destroy(&l.lock);
        tui_free(t);
        return EP_ERR_USAGE;
    }
    t->present = present;
    t->present_ctx = &l;
    /* no SA_RESTART: Ctrl-C wakes the key wait too */
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old);
    interrupt_session = s;
    /* signals go to the main thread: Ctrl-C must wake its key wait */
    sigset_t all, before;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &before);
    pthread_t tick;
    bool ticking = pthread_create(&tick, NULL, ticker, &l) == 0;
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    while (!t->quit) {
        present(t);
        int key = screen_key(l.screen, -1, &t->mouse_row, &t->mouse_col);
        if (key == TK_NONE && ctrl_c_pending)
            key = TK_CTRL('c');
        ctrl_c_pending = 0;
        tui_key(t, key);
    }
    atomic_store(&l.stop, true);
    if (ticking)
        pthread_join(tick, NULL);
    interrupt_session = NULL;
    sigaction(SIGINT, &old, NULL);
    screen_close(l.screen);
    grid_free(&l.grid);
    pthread_mutex_destroy(&l.lock);
    int status = t->exit_status;
    tui_free(t);
    return status;
}
