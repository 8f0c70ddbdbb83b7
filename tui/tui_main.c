/*
** tui_main.c -- `epdbg MODEL.pt2` on a terminal: the full-screen debugger's
** loop.  Reads a key, hands it to the TUI, draws the screen; Ctrl-C while a
** command runs stops the run at the next node (the session's interrupt),
** not the program.
*/
#include "tui.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "screen.h"
#include "tui_int.h"

typedef struct Loop {
    Screen *screen;
    Grid grid;
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

static void present(Tui *t)
{
    Loop *l = t->present_ctx;
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
}

int tui_main(Session *s, const TuiOptions *opt)
{
    const char *no_color = getenv("NO_COLOR");
    bool color = opt->color && !(no_color && no_color[0]);
    Tui *t = tui_new(s, opt->model_path, opt->source_dirs, opt->nsource_dirs, color);
    if (opt->note)
        tui_dialog(t, opt->note);
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
    l.screen = screen_open(color, &err);
    if (!l.screen) {
        fprintf(stderr, "epdbg: %s\n", err.msg);
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
    while (!t->quit) {
        present(t);
        int key = screen_key(l.screen, -1, &t->mouse_row, &t->mouse_col);
        if (key == TK_NONE && ctrl_c_pending)
            key = TK_CTRL('c');
        ctrl_c_pending = 0;
        tui_key(t, key);
    }
    interrupt_session = NULL;
    sigaction(SIGINT, &old, NULL);
    screen_close(l.screen);
    grid_free(&l.grid);
    int status = t->exit_status;
    tui_free(t);
    return status;
}
