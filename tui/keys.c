/*
** keys.c -- key names and the key bindings (keys.h).
*/
#include "keys.h"

#include <ctype.h>
#include <sys/stat.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    int key;
} KEY_NAMES[] = {
    {"Up", TK_UP},       {"Down", TK_DOWN},     {"Left", TK_LEFT},     {"Right", TK_RIGHT},
    {"PgUp", TK_PGUP},   {"PgDn", TK_PGDN},     {"Home", TK_HOME},     {"End", TK_END},
    {"Enter", TK_ENTER}, {"Tab", TK_TAB},       {"S-Tab", TK_BTAB},    {"Backspace", TK_BACKSPACE},
    {"Delete", TK_DELETE}, {"Esc", TK_ESC},     {"Space", ' '},        {"F1", TK_F1},
    {"F2", TK_F2},       {"F3", TK_F3},         {"F4", TK_F4},         {"F5", TK_F5},
    {"F6", TK_F6},       {"F7", TK_F7},         {"F8", TK_F8},         {"F9", TK_F9},
    {"F10", TK_F10},     {"F11", TK_F11},       {"F12", TK_F12},       {"S-F1", TK_S_F1},
    {"S-F2", TK_S_F2},   {"S-F3", TK_S_F3},     {"S-F4", TK_S_F4},     {"S-F5", TK_S_F5},
    {"S-F6", TK_S_F6},   {"S-F7", TK_S_F7},     {"S-F8", TK_S_F8},     {"S-F9", TK_S_F9},
    {"S-F10", TK_S_F10}, {"S-F11", TK_S_F11},   {"S-F12", TK_S_F12},
};

int key_parse(const char *name)
{
    for (size_t i = 0; i < sizeof KEY_NAMES / sizeof KEY_NAMES[0]; i++)
        if (strcmp(KEY_NAMES[i].name, name) == 0)
            return KEY_NAMES[i].key;
    if (strncmp(name, "C-", 2) == 0 && isalpha((unsigned char)name[2]) && !name[3])
        return TK_CTRL(tolower((unsigned char)name[2]));
    if ((unsigned char)name[0] > ' ' && (unsigned char)name[0] < 0x7F && !name[1])
        return (unsigned char)name[0];
    return TK_NONE;
}

const char *key_label(int key, char *buf, size_t cap)
{
    for (size_t i = 0; i < sizeof KEY_NAMES / sizeof KEY_NAMES[0]; i++)
        if (KEY_NAMES[i].key == key) {
            snprintf(buf, cap, "%s", KEY_NAMES[i].name);
            return buf;
        }
    if (key > 0 && key < 0x20)
        snprintf(buf, cap, "C-%c", 'a' + key - 1);
    else if (key > ' ' && key < 0x7F)
        snprintf(buf, cap, "%c", key);
    else
        snprintf(buf, cap, "<%d>", key);
    return buf;
}

/* The defaults.  A letter does what the same letter does at gdb's prompt
** where gdb has one (s n c r b u; u = until, here to the selected node);
** f is finish as in gdb's own TUI single-key mode; the F-keys are the set
** graphical debuggers share.  Search repeats on ; and , so that n is always
** next.  Every command is a string: a debugger command, or one of the
** TUI's own ui-* commands (tui.c). */
static const struct {
    int key;
    const char *command;
    const char *help;
} DEFAULTS[] = {
    {'s', "step", "step one node"},
    {'n', "next", "next: over the rest of the module call"},
    {'c', "continue", "continue to the next breakpoint"},
    {'f', "finish", "finish the current module (gdb's TUI single-key f)"},
    {'u', "ui-until-selected", "until the selected node: run to the cursor"},
    {'r', "run", "run / restart from node 0"},
    {'b', "ui-toggle-break", "toggle a breakpoint on the selected node"},
    {'B', "info breakpoints", "list the breakpoints"},
    {'S', "reverse-step", "reverse-step one node (step back)"},
    {'C', "reverse-continue", "reverse-continue to the previous breakpoint"},
    {TK_F5, "continue", NULL},
    {TK_F9, "ui-toggle-break", NULL},
    {TK_F10, "next", NULL},
    {TK_F11, "step", NULL},
    {TK_S_F11, "finish", NULL},
    {TK_ENTER, "ui-inspect", "inspect the selected node's value"},
    {'/', "ui-search", "search nodes by regex (Enter on an empty regex: the last one again)"},
    {';', "ui-search-next", "next search match"},
    {',', "ui-search-prev", "previous search match"},
    {':', "ui-prompt", "type a command"},
    {TK_TAB, "ui-next-pane", "focus the next pane"},
    {TK_BTAB, "ui-prev-pane", "focus the previous pane"},
    {'z', "ui-zoom", "zoom the focused pane to the full screen (again: back)"},
    {'?', "ui-help", "this help"},
    {TK_F1, "ui-help", NULL},
    {'q', "ui-quit", "quit (asks while a run is in progress)"},
    {TK_CTRL('l'), "ui-redraw", "redraw the screen"},
};

const char *const KEYMAP_GDB_NOTES[] = {
    "f is finish, as in gdb's TUI single-key mode; at the prompt f is frame, as in gdb",
    "u runs until the selected node (gdb: until LOCATION); at the prompt u NODE is until",
    "S and C step and continue backwards (gdb: rs, rc -- which work at the prompt too)",
    "; and , repeat the search (n is always next); / then Enter repeats it too",
    "b toggles a breakpoint on the selected node; at the prompt break alone is here",
    "break FILE:FUNC stops once per call, at the call's first node (a call is a run",
    "  of nodes under the same caller line: two calls from one loop line merge)",
    "a node is gdb's line: there is no stepi/nexti, and next/finish use nn.Module calls",
    NULL,
};

void keymap_defaults(Keymap *km)
{
    memset(km, 0, sizeof *km);
    for (size_t i = 0; i < sizeof DEFAULTS / sizeof DEFAULTS[0]; i++) {
        keymap_bind(km, DEFAULTS[i].key, DEFAULTS[i].command);
        km->b[km->n - 1].help = DEFAULTS[i].help;
    }
}

void keymap_free(Keymap *km)
{
    for (int i = 0; i < km->n; i++)
        free(km->b[i].command);
    free(km->b);
    memset(km, 0, sizeof *km);
}

void keymap_bind(Keymap *km, int key, const char *command)
{
    for (int i = 0; i < km->n; i++)
        if (km->b[i].key == key) {
            free(km->b[i].command);
            if (command) {
                km->b[i].command = ep_xstrdup(command);
                km->b[i].help = NULL;
            } else {
                km->b[i] = km->b[--km->n];
            }
            return;
        }
    if (!command)
        return;
    km->b = ep_xrealloc(km->b, (size_t)(km->n + 1) * sizeof *km->b);
    km->b[km->n++] = (Binding){key, ep_xstrdup(command), NULL};
}

const char *keymap_lookup(const Keymap *km, int key)
{
    for (int i = 0; i < km->n; i++)
        if (km->b[i].key == key)
            return km->b[i].command;
    return NULL;
}

/* An rc file binds keys; more lines than this is not one. */
#define KEYMAP_RC_MAX_LINES 10000

EpStatus keymap_load_rc(Keymap *km, const char *path, EpError *err)
{
    struct stat st;
    if (stat(path, &st) != 0 && errno == ENOENT)
        return EP_OK; /* no rc file: the defaults */
    /* a link to /dev/zero or a FIFO would be read forever */
    FILE *f = ep_fopen_regular(path, "r", NULL, err);
    if (!f)
        return EP_ERR_USAGE;
    char line[1024];
    int lineno = 0;
    EpStatus rc = EP_OK;
    while (rc == EP_OK && fgets(line, sizeof line, f)) {
        if (++lineno > KEYMAP_RC_MAX_LINES) {
            rc = ep_fail(err, EP_ERR_USAGE, "%s: more than %d lines; an rc file binds keys, one per line", path,
                         KEYMAP_RC_MAX_LINES);
            break;
        }
        if (!strchr(line, '\n') && !feof(f)) {
            rc = ep_fail(err, EP_ERR_USAGE, "%s:%d: line longer than %zu bytes", path, lineno, sizeof line - 2);
            break;
        }
        char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        size_t len = strlen(p);
        while (len && isspace((unsigned char)p[len - 1]))
            p[--len] = '\0';
        if (!*p || *p == '#')
            continue;
        if (strncmp(p, "bind", 4) != 0 || !isspace((unsigned char)p[4])) {
            rc = ep_fail(err, EP_ERR_USAGE, "%s:%d: expected `bind KEY COMMAND`, not '%s'", path, lineno, p);
            break;
        }
        p += 4;
        while (isspace((unsigned char)*p))
            p++;
        char *key_end = p;
        while (*key_end && !isspace((unsigned char)*key_end))
            key_end++;
        char keytext[64];
        snprintf(keytext, sizeof keytext, "%.*s", (int)(key_end - p), p);
        int key = key_parse(keytext);
        if (key == TK_NONE) {
            rc = ep_fail(err, EP_ERR_USAGE,
                         "%s:%d: unknown key '%s' (a character, C-x, Enter, Tab, S-Tab, Up, Down, Left, Right, PgUp, "
                         "PgDn, Home, End, Esc, Space, F1..F12, S-F1..S-F12)",
                         path, lineno, keytext);
            break;
        }
        while (isspace((unsigned char)*key_end))
            key_end++;
        keymap_bind(km, key, *key_end ? key_end : NULL);
    }
    fclose(f);
    return rc;
}
