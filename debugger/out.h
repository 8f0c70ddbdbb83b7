/*
** out.h -- where command output goes.  Commands write through an Out and
** never to stdout or curses, so batch mode (a FILE), the TUI (its console
** pane) and the tests (a buffer) show the same words; the front end owns
** the Out and whatever its ctx points to.
*/
#ifndef EP_OUT_H
#define EP_OUT_H

#include <stddef.h>

typedef struct Out {
    /* Called with each piece of text (not NUL-terminated, never empty);
    ** pieces are not split at line ends. */
    void (*write)(void *ctx, const char *text, size_t len);
    void *ctx;
} Out;

void out_write(Out *o, const char *text, size_t len); /* len 0: nothing */
void out_puts(Out *o, const char *text);              /* no newline added */
/* printf into the sink, of any length (one write call). */
void out_printf(Out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
