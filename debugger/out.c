/*
** out.c -- the output sink of the command language (out.h).
*/
#include "out.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/ep.h"

void out_write(Out *o, const char *text, size_t len)
{
    if (len)
        o->write(o->ctx, text, len);
}

void out_puts(Out *o, const char *text)
{
    out_write(o, text, strlen(text));
}

void out_printf(Out *o, const char *fmt, ...)
{
    /* most lines fit on the stack; longer ones (a tensor's repr) are
    ** formatted again into a buffer of their exact size */
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        out_write(o, small, (size_t)n);
        return;
    }
    char *big = ep_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    out_write(o, big, (size_t)n);
    free(big);
}
