/*
** malformed_make.h -- writing broken files for the malformed-file suite
** (test_malformed.c): each maker copies a base archive with one mutation.
** A failure to build the file fails the test.
*/
#ifndef EP_MALFORMED_MAKE_H
#define EP_MALFORMED_MAKE_H

#include <stddef.h>
#include <stdint.h>

typedef struct MakeArgs {
    const char *member; /* the member edited: its name after the archive's root folder */
    const char *path;   /* a JSON path, '/' between steps ("graph_module/graph/nodes/0");
                        ** mk_patch: the record patched, "cd" (first central directory
                        ** header), "eocd" or NULL (the file's start) */
    const char *value;  /* new JSON text (NULL: delete), or bytes */
    size_t len;         /* bytes in value */
    long off;           /* an offset or length (negative: from the end) */
} MakeArgs;

typedef void (*Maker)(const char *base, const MakeArgs *a, const char *out);

/* Set a->path in a->member's JSON to a->value (NULL removes it). */
void mk_json_set(const char *base, const MakeArgs *a, const char *out);
/* a->member's text cut to its first a->off bytes. */
void mk_json_truncate(const char *base, const MakeArgs *a, const char *out);
/* a->member replaced by a->off nested lists. */
void mk_json_deep(const char *base, const MakeArgs *a, const char *out);
/* a->member left out. */
void mk_drop(const char *base, const MakeArgs *a, const char *out);
/* a->member's bytes replaced by a->value. */
void mk_replace(const char *base, const MakeArgs *a, const char *out);
/* a->member is a torch.save zip: its data.pkl replaced by a->value. */
void mk_pickle(const char *base, const MakeArgs *a, const char *out);
/* The whole file cut to a->off bytes (negative: that many fewer). */
void mk_truncate(const char *base, const MakeArgs *a, const char *out);
/* a->len bytes of a->value written at a->off from the record a->path. */
void mk_patch(const char *base, const MakeArgs *a, const char *out);
/* a->value appended to the file. */
void mk_append(const char *base, const MakeArgs *a, const char *out);
/* a->value is the whole file (base unused). */
void mk_file(const char *base, const MakeArgs *a, const char *out);
/* A version 1 .npy file (base unused): header a->path, then a->len bytes of
** a->value as the data. */
void mk_npy(const char *base, const MakeArgs *a, const char *out);

#endif
