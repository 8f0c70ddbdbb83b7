/*
** ep.c -- error reports, aborting allocators for bookkeeping, StrBuf.
*/
#include "ep.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

EpStatus ep_vfail(EpError *err, EpStatus code, const char *fmt, va_list ap)
{
    if (err) {
        err->code = code;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    }
    return code;
}

EpStatus ep_fail(EpError *err, EpStatus code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ep_vfail(err, code, fmt, ap);
    va_end(ap);
    return code;
}

void ep_error_prefix(EpError *err, const char *fmt, ...)
{
    if (!err)
        return;
    char buf[EP_ERRMSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1;
    /* buf = prefix ": " old message, truncated to fit */
    size_t old_len = strlen(err->msg);
    if (len + 2 < sizeof buf) {
        memcpy(buf + len, ": ", 2);
        len += 2;
        size_t room = sizeof buf - 1 - len;
        size_t take = old_len < room ? old_len : room;
        memcpy(buf + len, err->msg, take);
        len += take;
    }
    buf[len] = '\0';
    memcpy(err->msg, buf, len + 1);
}

void ep_error_clear(EpError *err)
{
    if (err) {
        err->code = EP_OK;
        err->msg[0] = '\0';
    }
}

static void out_of_memory(size_t n)
{
    fprintf(stderr, "epdbg: out of memory (allocating %zu bytes)\n", n);
    abort();
}

void *ep_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        out_of_memory(n);
    return p;
}

void *ep_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        out_of_memory(n * size);
    return p;
}

void *ep_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        out_of_memory(n);
    return q;
}

char *ep_xstrdup(const char *s)
{
    return ep_xstrndup(s, strlen(s));
}

char *ep_xstrndup(const char *s, size_t n)
{
    char *p = ep_xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *ep_xasprintf(const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    char *p = ep_xmalloc((size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return p;
}

void sb_init(StrBuf *sb)
{
    sb->data = NULL;
    sb->len = 0;
    sb->cap = 0;
}

void sb_free(StrBuf *sb)
{
    free(sb->data);
    sb_init(sb);
}

static void sb_reserve(StrBuf *sb, size_t extra)
{
    if (sb->len + extra + 1 <= sb->cap)
        return;
    size_t cap = sb->cap ? sb->cap : 64;
    while (cap < sb->len + extra + 1)
        cap *= 2;
    sb->data = ep_xrealloc(sb->data, cap);
    sb->cap = cap;
}

void sb_appendn(StrBuf *sb, const char *s, size_t n)
{
    sb_reserve(sb, n);
    memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

void sb_append(StrBuf *sb, const char *s)
{
    sb_appendn(sb, s, strlen(s));
}

void sb_printf(StrBuf *sb, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n > 0) {
        sb_reserve(sb, (size_t)n);
        vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap2);
        sb->len += (size_t)n;
    }
    va_end(ap2);
}

char *sb_take(StrBuf *sb)
{
    char *p = sb->data ? sb->data : ep_xstrdup("");
    sb_init(sb);
    return p;
}

double ep_monotonic_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* What kind of file mode is, for the message. */
static const char *file_kind(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a named pipe (FIFO)";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

int ep_open_regular(const char *path, const char *what, EpError *err)
{
    const char *w = what ? what : "";
    const char *sep = what ? " " : "";
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; it is cleared
    ** once the descriptor is known to be a regular file */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        ep_fail(err, EP_ERR_FORMAT, "%s%s%s: cannot open (%s)", w, sep, path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        ep_fail(err, EP_ERR_FORMAT, "%s%s%s: cannot read its type (%s)", w, sep, path, strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        const char *k = file_kind(st.st_mode);
        ep_fail(err, EP_ERR_FORMAT, "%s%s%s: is %s, not a regular file", w, sep, path,
                strncmp(k, "not ", 4) == 0 ? "something else" : k);
        close(fd);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

FILE *ep_fopen_regular(const char *path, const char *mode, const char *what, EpError *err)
{
    int fd = ep_open_regular(path, what, err);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, mode);
    if (!f) {
        ep_fail(err, EP_ERR_FORMAT, "%s%s%s: cannot open (%s)", what ? what : "", what ? " " : "", path,
                strerror(errno));
        close(fd);
    }
    return f;
}
