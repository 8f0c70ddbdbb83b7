/*
** zipread.h -- read-only access to zip containers: .pt2 archives, the
** torch.save zips nested inside legacy archives, and .npz files.
**
** libzip does the listing, validation and inflating.  For members stored
** uncompressed (the norm in PyTorch's writers) the archive's bytes are used
** in place: the file is mapped read-only and a member's data offset is found
** from its local header, so a 100 MB weight costs no copy.
**
** Ownership: a ZipArchive is refcounted; every Storage handed out by
** zipa_storage holds a reference, so the mapping lives as long as any tensor
** that views it.  Names are owned by the archive.
*/
#ifndef EP_ZIPREAD_H
#define EP_ZIPREAD_H

#include "tensor.h"

typedef struct ZipArchive ZipArchive;

/* Open a zip file.  Errors (EP_ERR_FORMAT) name the file and what is wrong:
** missing, not a zip, truncated, corrupt central directory. */
ZipArchive *zipa_open_file(const char *path, EpError *err);
/* Open member `name` of outer as a zip of its own (a torch.save blob inside
** a legacy archive): in place when stored, else inflated once into memory.
** Its label is "outer-label:name". */
ZipArchive *zipa_open_nested(ZipArchive *outer, const char *name, EpError *err);
/* Open a zip held in memory; takes ownership of data (freed with free()). */
ZipArchive *zipa_open_memory(void *data, size_t len, const char *label, EpError *err);

ZipArchive *zipa_ref(ZipArchive *z);
void zipa_unref(ZipArchive *z); /* NULL ok */

/* For messages: the file path, or "path:member" for nested archives. */
const char *zipa_label(const ZipArchive *z);

int zipa_count(const ZipArchive *z);
const char *zipa_name(const ZipArchive *z, int i);
/* Index of the member called name, or -1. */
int zipa_find(const ZipArchive *z, const char *name);
/* Uncompressed size of member i. */
int64_t zipa_size(const ZipArchive *z, int i);
/* Where member i's bytes start in z, or -1 (corrupt local header). */
int64_t zipa_data_offset(ZipArchive *z, int i);
/* Whether member i is stored uncompressed. */
bool zipa_is_stored(const ZipArchive *z, int i);

/* Copy of member i's bytes, NUL terminated (*len excludes the NUL); the
** caller frees *data.  Fails on a corrupt or truncated member. */
EpStatus zipa_read(ZipArchive *z, int i, char **data, size_t *len, EpError *err);

/* A Storage over member i's bytes: the mapped bytes themselves (read-only)
** when the member is stored and its data starts at a multiple of align;
** otherwise a private copy read once (a stored member of a file with pread,
** so its mapped pages are never touched; a compressed one inflated).  The
** Storage references z. */
Storage *zipa_storage(ZipArchive *z, int i, size_t align, EpError *err);

/* A member's bytes that could not be used where they lie: copied into a
** storage of their own, and why (for `epdbg info`).  A stored record of a
** file is copied when first needed: until zipa_copies_fill, file holds a
** reference to the file archive and the storage is allocated but not read. */
typedef struct ZipCopy {
    Storage *storage; /* a reference */
    ZipArchive *file; /* pending: read from this file archive, else NULL */
    uint64_t offset;  /* where the bytes start in the file */
    char why[96];     /* "record at offset N of the file is not 4-byte aligned" */
} ZipCopy;

typedef struct ZipCopies {
    ZipCopy *items;
    int n, cap;
    bool sorted; /* by storage, for zipa_copies_find */
} ZipCopies;

/* zipa_storage that records each copy in copies (NULL: as zipa_storage)
** and defers the reading of stored records until zipa_copies_fill. */
Storage *zipa_storage_copying(ZipArchive *z, int i, size_t align, ZipCopies *copies, EpError *err);
/* Sort by address once every copy is made: finding is then a bisection. */
void zipa_copies_sort(ZipCopies *c);
/* The copy whose bytes s holds, or NULL (s is viewed in place). */
ZipCopy *zipa_copies_find(const ZipCopies *c, const Storage *s);
/* Read s's bytes when s is a pending copy (else nothing to do). */
EpStatus zipa_copies_fill(ZipCopies *c, const Storage *s, EpError *err);
void zipa_copies_free(ZipCopies *c);

#endif
