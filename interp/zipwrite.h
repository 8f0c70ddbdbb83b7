/*
** zipwrite.h -- writing zip files the way PyTorch's PyTorchFileWriter (and
** Python's zipfile) does: every member STORED, optionally with its data
** padded to a 64-byte boundary through the local header's extra field.
** Used by the generator and, through picklewrite.h, by `dump FILE.pt`.
*/
#ifndef EP_ZIPWRITE_H
#define EP_ZIPWRITE_H

#include "ep.h"

typedef struct ZipWriter ZipWriter;

/* In memory; align = 64 for PyTorch's writer, 0 for zipfile's. */
ZipWriter *zw_new(int align);
void zw_free(ZipWriter *z);
void zw_add(ZipWriter *z, const char *name, const void *data, size_t len);
/* Finish the central directory; the bytes stay owned by z. */
const char *zw_finish(ZipWriter *z, size_t *len);
EpStatus zw_save(ZipWriter *z, const char *path, EpError *err);

uint32_t crc32_bytes(const void *data, size_t len);

#endif
