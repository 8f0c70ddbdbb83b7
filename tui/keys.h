/*
** keys.h -- key codes and key bindings of the TUI.
**
** Keys are code points for characters and TK_* values above the Unicode
** range for the others; screen.c translates curses' codes into these, so
** nothing else sees curses.  A binding maps a key to a command string: a
** debugger command ("step") or one of the TUI's own ("ui-zoom"), see
** tui.c.  Defaults are below; ~/.epdbgrc lines `bind KEY COMMAND` change
** them (`bind z` alone removes one).
*/
#ifndef EP_KEYS_H
#define EP_KEYS_H

#include "interp/ep.h"

enum {
    TK_NONE = 0,
    TK_BASE = 0x110000,
    TK_UP, TK_DOWN, TK_LEFT, TK_RIGHT, TK_PGUP, TK_PGDN, TK_HOME, TK_END,
    TK_ENTER, TK_TAB, TK_BTAB, TK_BACKSPACE, TK_DELETE, TK_ESC,
    TK_F1, TK_F2, TK_F3, TK_F4, TK_F5, TK_F6, TK_F7, TK_F8, TK_F9, TK_F10, TK_F11, TK_F12,
    /* Shift-F1..Shift-F12 (curses' F13..F24) */
    TK_S_F1, TK_S_F2, TK_S_F3, TK_S_F4, TK_S_F5, TK_S_F6, TK_S_F7, TK_S_F8, TK_S_F9, TK_S_F10, TK_S_F11, TK_S_F12,
    TK_RESIZE,       /* the terminal changed size */
    TK_MOUSE,        /* a click: see the Tui's mouse_row/mouse_col */
    TK_WHEEL_UP, TK_WHEEL_DOWN,
};
/* Control-X as a key: TK_CTRL('c') == 3. */
#define TK_CTRL(c) ((c) & 0x1f)

/* "s", "B", "Enter", "Tab", "S-Tab", "Up", "PgDn", "F5", "S-F11", "C-l",
** "Space", "Esc"; TK_NONE if unknown. */
int key_parse(const char *name);
/* The name key_parse reads for key, into buf (returned). */
const char *key_label(int key, char *buf, size_t cap);

typedef struct Binding {
    int key;
    char *command;   /* owned */
    const char *help; /* for the help overlay (static), or NULL: the command is shown */
} Binding;

typedef struct Keymap {
    Binding *b;
    int n;
} Keymap;

/* The default bindings. */
void keymap_defaults(Keymap *km);
/* The differences from gdb a user may trip on, one line each, NULL-ended
** (the help overlay lists them after the keys). */
extern const char *const KEYMAP_GDB_NOTES[];
void keymap_free(Keymap *km);
/* Bind key to command (NULL: unbind). */
void keymap_bind(Keymap *km, int key, const char *command);
/* The command bound to key, or NULL. */
const char *keymap_lookup(const Keymap *km, int key);
/* Read `bind KEY COMMAND` lines (and # comments) from path.  A missing file
** is fine; a bad line is EP_ERR_USAGE naming the file and line. */
EpStatus keymap_load_rc(Keymap *km, const char *path, EpError *err);

#endif
