/*
** ep.h -- status codes, error reports and allocation helpers shared by
** every part of epdbg.
**
** Errors travel as an EpStatus return value plus an EpError filled by the
** function that detected the problem.  Nothing below main.c calls exit():
** a debugger session must survive a bad file or a failing kernel.
*/
#ifndef EP_H
#define EP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The numeric values are the process exit codes of `epdbg run`. */
typedef enum EpStatus {
    EP_OK = 0,
    EP_ERR_USAGE = 1,   /* bad command line or command arguments */
    EP_ERR_FORMAT = 2,  /* unreadable or invalid archive / input file */
    EP_ERR_INPUT = 3,   /* inputs violate the program's constraints */
    EP_ERR_EXEC = 4,    /* execution failed: unsupported op, assert, OOM */
} EpStatus;

#define EP_ERRMSG_MAX 2048

typedef struct EpError {
    EpStatus code;
    char msg[EP_ERRMSG_MAX];
} EpError;

/* Record an error and return its code, so callers write
**   return ep_fail(err, EP_ERR_FORMAT, "%s: bad header", path);
** err may be NULL (the message is dropped). */
EpStatus ep_fail(EpError *err, EpStatus code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
EpStatus ep_vfail(EpError *err, EpStatus code, const char *fmt, va_list ap);

/* Put "prefix: " in front of an existing message (to add the file name or
** the node once the error has travelled up to a level that knows it). */
void ep_error_prefix(EpError *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

void ep_error_clear(EpError *err);

/* Allocation for small, bounded bookkeeping (structs, names, lists).  Out of
** memory there is unrecoverable, so these abort with a message.  Tensor data
** never goes through them: large buffers use malloc and report failure. */
void *ep_xmalloc(size_t n);
void *ep_xcalloc(size_t n, size_t size);
void *ep_xrealloc(void *p, size_t n);
char *ep_xstrdup(const char *s);
char *ep_xstrndup(const char *s, size_t n);
char *ep_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Seconds on the monotonic clock (for intervals: progress lines, budgets). */
double ep_monotonic_seconds(void);

#define EP_UNUSED(x) ((void)(x))
#define EP_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* A growable byte/string buffer (always NUL terminated). */
typedef struct StrBuf {
    char *data;
    size_t len;
    size_t cap;
} StrBuf;

void sb_init(StrBuf *sb);
void sb_free(StrBuf *sb);
void sb_append(StrBuf *sb, const char *s);
void sb_appendn(StrBuf *sb, const char *s, size_t n);
void sb_printf(StrBuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hand the buffer to the caller (who frees it) and reset sb. */
char *sb_take(StrBuf *sb);

/* Checked int64 arithmetic: return false on overflow. */
static inline bool ep_mul_i64(int64_t a, int64_t b, int64_t *out)
{
    return !__builtin_mul_overflow(a, b, out);
}
static inline bool ep_add_i64(int64_t a, int64_t b, int64_t *out)
{
    return !__builtin_add_overflow(a, b, out);
}

/* Python semantics for integer // and % (round toward -inf), which SymInt
** arithmetic, aten floor division and remainder all follow.  b != 0. */
/* Open path for reading, refusing what is not a regular file before
** anything blocks or streams forever: a directory, a named pipe (opened
** without waiting for a writer), a device (/dev/zero), a socket.  what
** names the file's role in the message ("the model", "-x script").
** Returns the descriptor (close it), or -1 with err (EP_ERR_FORMAT):
** "-x /dev/zero: is a character device, not a regular file". */
int ep_open_regular(const char *path, const char *what, EpError *err);
/* The same as a stdio stream ("r" or "rb"); NULL with err. */
FILE *ep_fopen_regular(const char *path, const char *mode, const char *what, EpError *err);

/* qsort that takes an empty array as sorted: qsort(NULL, 0, ...) is
** undefined (UBSan reports it), and an empty list is often NULL. */
static inline void ep_qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(base, n, size, cmp);
}

static inline int64_t ep_floordiv_i64(int64_t a, int64_t b)
{
    if (b == -1)
        return (int64_t)(0 - (uint64_t)a); /* INT64_MIN // -1 wraps, as torch */
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q -= 1;
    return q;
}
static inline int64_t ep_mod_i64(int64_t a, int64_t b)
{
    if (b == -1)
        return 0;
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0)))
        r += b;
    return r;
}

#endif
