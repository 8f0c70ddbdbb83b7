/*
** screen.c -- curses behind screen.h.
**
** Colours: each Style gets a colour pair over the terminal's own default
** background (use_default_colors), so the TUI follows the user's theme;
** without colours (NO_COLOR, --no-color, or a terminal without them) the
** styles become plain attributes: reverse video for cursors and titles,
** bold for the current node.
**
** Fatal signals: curses leaves the terminal raw, in the alternate screen,
** with the cursor hidden and mouse reporting on, and its own endwin cannot
** run in a signal handler.  So while the screen is open a handler for
** SIGTERM, SIGQUIT, SIGHUP and the crash signals writes a restore sequence
** prepared when the screen opened (write(2)) and puts back the terminal
** modes saved before curses changed them (tcsetattr(3)) -- both
** async-signal-safe -- then dies of the signal with its default action, so
** the shell sees 128+N.
*/
#define _XOPEN_SOURCE_EXTENDED 1
#include "screen.h"

#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <termios.h>
#include <unistd.h>
#include <wchar.h>

#include "keys.h"

struct Screen {
    SCREEN *term;
    bool color;
    bool utf8;         /* the locale can show non-ASCII glyphs */
    attr_t attrs[ST_COUNT];
};

/* Foreground colour (-1: the terminal's), background, attributes. */
static const struct {
    short fg, bg;
    attr_t attr, plain;
} STYLE_LOOK[ST_COUNT] = {
    [ST_NORMAL] = {-1, -1, A_NORMAL, A_NORMAL},
    [ST_TITLE] = {COLOR_BLACK, COLOR_WHITE, A_NORMAL, A_REVERSE},
    [ST_TITLE_FOCUS] = {COLOR_BLACK, COLOR_CYAN, A_BOLD, A_REVERSE | A_BOLD},
    [ST_CURSOR] = {COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE},
    [ST_CURSOR_DIM] = {-1, -1, A_REVERSE, A_UNDERLINE},
    [ST_CURRENT] = {COLOR_YELLOW, -1, A_BOLD, A_BOLD},
    [ST_BREAK] = {COLOR_RED, -1, A_BOLD, A_BOLD},
    [ST_NAN] = {COLOR_MAGENTA, -1, A_BOLD, A_BOLD},
    [ST_DONE] = {COLOR_GREEN, -1, A_NORMAL, A_NORMAL},
    [ST_DIM] = {COLOR_BLUE, -1, A_NORMAL, A_DIM},
    [ST_MATCH] = {COLOR_BLACK, COLOR_YELLOW, A_NORMAL, A_STANDOUT},
    [ST_ERROR] = {COLOR_RED, -1, A_BOLD, A_BOLD},
    [ST_STATUS] = {COLOR_BLACK, COLOR_WHITE, A_NORMAL, A_REVERSE},
    [ST_KEY] = {COLOR_CYAN, -1, A_BOLD, A_BOLD},
    [ST_DIALOG] = {COLOR_BLACK, COLOR_WHITE, A_NORMAL, A_REVERSE},
};

/* ---- giving the terminal back on a fatal signal -------------------------------------- */

static const int FATAL_SIGNALS[] = {SIGTERM, SIGQUIT, SIGHUP, SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL};
#define NFATAL ((int)(sizeof FATAL_SIGNALS / sizeof FATAL_SIGNALS[0]))

static struct sigaction fatal_old[NFATAL];
static struct termios tty_before;       /* the modes before curses changed them */
static volatile sig_atomic_t tty_saved;
static char restore_seq[512];           /* mouse off, plain attributes, cursor, keypad, main screen */
static volatile sig_atomic_t restore_len;

static void on_fatal_signal(int sig)
{
    /* only async-signal-safe calls here: write, tcsetattr, signal, raise */
    if (restore_len > 0 && write(STDOUT_FILENO, restore_seq, (size_t)restore_len) < 0)
        restore_len = 0;
    if (tty_saved)
        tcsetattr(STDIN_FILENO, TCSANOW, &tty_before);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void restore_seq_add(const char *cap)
{
    size_t have = (size_t)restore_len, n = cap ? strlen(cap) : 0;
    if (n && have + n < sizeof restore_seq) {
        memcpy(restore_seq + have, cap, n);
        restore_len = (sig_atomic_t)(have + n);
    }
}

/* A terminfo string capability, or NULL when the terminal has none. */
static const char *capability(const char *name)
{
    char *v = tigetstr((char *)name);
    return v == (char *)-1 ? NULL : v;
}

static void fatal_handlers_install(void)
{
    restore_len = 0;
    /* mouse reporting off (xterm's modes, as ncurses turns them on) */
    restore_seq_add("\033[?1006l\033[?1002l\033[?1000l");
    restore_seq_add(capability("sgr0"));
    restore_seq_add(capability("cnorm"));
    restore_seq_add(capability("rmkx"));
    restore_seq_add(capability("rmcup"));
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal_signal;
    /* the handler runs once; raise() then kills at once */
    sa.sa_flags = (int)(SA_RESETHAND | SA_NODEFER);
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < NFATAL; i++)
        sigaction(FATAL_SIGNALS[i], &sa, &fatal_old[i]);
}

static void fatal_handlers_remove(void)
{
    for (int i = 0; i < NFATAL; i++)
        sigaction(FATAL_SIGNALS[i], &fatal_old[i], NULL);
    restore_len = 0;
    tty_saved = 0;
}

/* ---- opening and closing ----------------------------------------------------------------- */

/* Shift-F1..F12 as xterm (and tmux) send them, for terminal descriptions
** that lack kf13..kf24 (TERM=screen has none): Shift-F11 is the debuggers'
** finish. */
static void define_shifted_fkeys(void)
{
    static const char *const SEQ[12] = {"\033[1;2P",  "\033[1;2Q",  "\033[1;2R",  "\033[1;2S",
                                        "\033[15;2~", "\033[17;2~", "\033[18;2~", "\033[19;2~",
                                        "\033[20;2~", "\033[21;2~", "\033[23;2~", "\033[24;2~"};
    for (int i = 0; i < 12; i++)
        if (key_defined(SEQ[i]) == 0)
            define_key(SEQ[i], KEY_F(13 + i));
}

Screen *screen_open(bool color, EpError *err)
{
    setlocale(LC_ALL, "");
    tty_saved = tcgetattr(STDIN_FILENO, &tty_before) == 0;
    /* a bare Esc should not wait a second for a possible escape sequence */
    if (!getenv("ESCDELAY"))
        set_escdelay(25);
    SCREEN *term = newterm(NULL, stdout, stdin);
    if (!term) {
        ep_fail(err, EP_ERR_USAGE, "cannot start the terminal UI (TERM=%s)", getenv("TERM") ? getenv("TERM") : "");
        return NULL;
    }
    Screen *sc = ep_xcalloc(1, sizeof *sc);
    sc->term = term;
    const char *codeset = nl_langinfo(CODESET);
    sc->utf8 = codeset && (strcmp(codeset, "UTF-8") == 0 || strcmp(codeset, "utf8") == 0);
    cbreak(); /* Ctrl-C stays a signal: it interrupts a long run */
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    define_shifted_fkeys();
    scrollok(stdscr, FALSE);
    mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
    mouseinterval(0);
    sc->color = color && has_colors();
    if (sc->color) {
        start_color();
        use_default_colors();
    }
    for (int st = 0; st < ST_COUNT; st++) {
        if (sc->color && st != ST_NORMAL) {
            init_pair((short)st, STYLE_LOOK[st].fg, STYLE_LOOK[st].bg);
            sc->attrs[st] = COLOR_PAIR(st) | STYLE_LOOK[st].attr;
        } else {
            sc->attrs[st] = sc->color ? STYLE_LOOK[st].attr : STYLE_LOOK[st].plain;
        }
    }
    /* after newterm: curses's own SIGTERM handler (endwin, then exit 1)
    ** gives way to ours */
    fatal_handlers_install();
    return sc;
}

void screen_close(Screen *sc)
{
    if (!sc)
        return;
    fatal_handlers_remove();
    endwin();
    delscreen(sc->term);
    free(sc);
}

void screen_size(Screen *sc, int *rows, int *cols)
{
    (void)sc;
    getmaxyx(stdscr, *rows, *cols);
}

/* The ASCII stand-in of a glyph, for terminals whose locale is not UTF-8. */
static wchar_t ascii_of(uint32_t ch)
{
    switch (ch) {
    case 0x2502: return '|'; /* box drawing vertical */
    case 0x25BE: return 'v'; /* an unfolded group */
    case 0x25B8: return '>'; /* a folded group */
    case 0x2026: return '~'; /* ellipsis */
    case 0x2588: return '#'; /* a full block: profile bars, the hottest heat */
    case 0x2589: case 0x258A: case 0x258B: case 0x258C: return '#'; /* a bar's last cell, half or more */
    case 0x258D: case 0x258E: case 0x258F: return '-'; /* ... less than half */
    case 0x2593: return '+'; /* heat shades, hot to cool */
    case 0x2592: return ':';
    case 0x2591: return '.';
    default: return ch < 0x80 ? (wchar_t)ch : '?';
    }
}

/* Copy the cells of one grid row to terminal row r (last: the bottom row). */
static void draw_row(Screen *sc, const Cell *row, int cols, int r, bool last)
{
    wchar_t run[512];
    int c = 0;
    while (c < cols) {
        /* one call per run of cells in the same style */
        int start = c, n = 0;
        uint8_t st = row[c].style;
        while (c < cols && row[c].style == st && n < (int)(sizeof run / sizeof run[0]) - 1) {
            run[n++] = sc->utf8 ? (wchar_t)row[c].ch : ascii_of(row[c].ch);
            c++;
        }
        run[n] = 0;
        attrset(sc->attrs[st < ST_COUNT ? st : ST_NORMAL]);
        /* the bottom-right cell cannot be written without scrolling
        ** in curses: leave it out */
        if (last && c == cols && n > 0)
            n--;
        mvaddnwstr(r, start, run, n);
    }
    attrset(A_NORMAL);
}

void screen_show(Screen *sc, const Grid *g, int cur_row, int cur_col)
{
    for (int r = 0; r < g->rows; r++)
        draw_row(sc, &g->cells[r * g->cols], g->cols, r, r == g->rows - 1);
    if (cur_row >= 0) {
        curs_set(1);
        move(cur_row, cur_col);
    } else {
        curs_set(0);
    }
    refresh();
}

void screen_show_row(Screen *sc, const Grid *g, int src_row, int row)
{
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    if (src_row < 0 || src_row >= g->rows || row < 0 || row >= rows || g->cols != cols)
        return;
    draw_row(sc, &g->cells[src_row * g->cols], g->cols, row, row == rows - 1);
    refresh();
}

void screen_invalidate(Screen *sc)
{
    (void)sc;
    clearok(curscr, TRUE);
}

static int translate(int code)
{
    switch (code) {
    case KEY_UP: return TK_UP;
    case KEY_DOWN: return TK_DOWN;
    case KEY_LEFT: return TK_LEFT;
    case KEY_RIGHT: return TK_RIGHT;
    case KEY_PPAGE: return TK_PGUP;
    case KEY_NPAGE: return TK_PGDN;
    case KEY_HOME: return TK_HOME;
    case KEY_END: return TK_END;
    case KEY_ENTER: return TK_ENTER;
    case KEY_BTAB: return TK_BTAB;
    case KEY_BACKSPACE: return TK_BACKSPACE;
    case KEY_DC: return TK_DELETE;
    case KEY_RESIZE: return TK_RESIZE;
    default: break;
    }
    if (code >= KEY_F(1) && code <= KEY_F(12))
        return TK_F1 + (code - KEY_F(1));
    if (code >= KEY_F(13) && code <= KEY_F(24))
        return TK_S_F1 + (code - KEY_F(13));
    return TK_NONE;
}

int screen_key(Screen *sc, int timeout_ms, int *mrow, int *mcol)
{
    (void)sc;
    timeout(timeout_ms);
    wint_t ch;
    int kind = get_wch(&ch);
    if (kind == ERR)
        return TK_NONE;
    if (kind == KEY_CODE_YES) {
        if (ch == KEY_MOUSE) {
            MEVENT ev;
            if (getmouse(&ev) != OK)
                return TK_NONE;
            if (ev.bstate & BUTTON4_PRESSED)
                return TK_WHEEL_UP;
            if (ev.bstate & BUTTON5_PRESSED)
                return TK_WHEEL_DOWN;
            *mrow = ev.y;
            *mcol = ev.x;
            return TK_MOUSE;
        }
        return translate((int)ch);
    }
    switch (ch) {
    case '\r':
    case '\n': return TK_ENTER;
    case '\t': return TK_TAB;
    case 27: return TK_ESC;
    case 127:
    case 8: return TK_BACKSPACE;
    default: return (int)ch;
    }
}
