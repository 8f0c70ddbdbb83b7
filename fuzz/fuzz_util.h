/*
** fuzz_util.h -- what several harnesses share: the input as a file, for
** the readers that take a path (libzip opens .npz and replay files by name,
** model_open maps the archive).
*/
#ifndef EP_FUZZ_UTIL_H
#define EP_FUZZ_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fuzz_temp_path[4096];

static inline void fuzz_remove_temp(void)
{
    unlink(fuzz_temp_path);
}

/* Write data to a file of this process under $TMPDIR, else /dev/shm, else
** /tmp (a harness uses one suffix: the file is rewritten for every input and
** removed at exit); its path, static.  NULL if it cannot be written: the
** input is skipped.  /dev/shm is memory: truncating and writing a file on a
** disk's file system for every input took a sixth of the command harness's
** time. */
static inline const char *fuzz_write_temp(const uint8_t *data, size_t size, const char *suffix)
{
    char *path = fuzz_temp_path;
    if (!path[0])
        atexit(fuzz_remove_temp);
    const char *dir = getenv("TMPDIR");
    if (!dir || !dir[0])
        dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(path, sizeof fuzz_temp_path, "%s/epdbg-fuzz-%ld%s", dir, (long)getpid(), suffix);
    FILE *f = fopen(path, "wb");
    if (!f)
        return NULL;
    bool ok = (size == 0 || fwrite(data, 1, size, f) == size);
    ok = (fclose(f) == 0) && ok;
    return ok ? path : NULL;
}

/* The input as a NUL-terminated string (new; the parsers take C strings). */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (s) {
        memcpy(s, data, size);
        s[size] = '\0';
    }
    return s;
}

#endif
