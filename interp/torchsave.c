/*
** torchsave.c -- the zip files torch.save writes.
**
** Every record lives under one folder, the root (named after the file, or
** "archive" for a buffer): <root>/data.pkl is the pickle, <root>/data/<key>
** the raw bytes of storage <key>, <root>/byteorder says how those bytes are
** ordered.  <root>/version or <root>/.data/version, .format_version,
** .storage_alignment and .data/serialization_id are informational.
*/
#include "torchsave.h"

#include <stdlib.h>
#include <string.h>

typedef struct SaveCtx {
    ZipArchive *z;
    const char *root;
    ZipCopies *copies; /* or NULL */
} SaveCtx;

/* The record <root>/<rel>, or -1. */
static int find_record(ZipArchive *z, const char *root, const char *rel)
{
    char *name = ep_xasprintf("%s/%s", root, rel);
    int i = zipa_find(z, name);
    free(name);
    return i;
}

/* Storage source for pickle_load: the record data/<key>, in place when the
** archive allows it (aligned to the element size). */
static Storage *load_record(void *ctx, const char *key, DType dtype, int64_t numel, EpError *err)
{
    SaveCtx *c = ctx;
    char *rel = ep_xasprintf("data/%s", key);
    int i = find_record(c->z, c->root, rel);
    Storage *s = NULL;
    int64_t need;
    if (i < 0) {
        ep_fail(err, EP_ERR_FORMAT, "%s: storage record %s/%s is missing", zipa_label(c->z), c->root, rel);
    } else if (!ep_mul_i64(numel, dtype_size(dtype), &need) || zipa_size(c->z, i) < need) {
        ep_fail(err, EP_ERR_FORMAT, "%s: storage record %s/%s holds %lld bytes, but %lld %s elements were saved",
                zipa_label(c->z), c->root, rel, (long long)zipa_size(c->z, i), (long long)numel,
                dtype_name(dtype));
    } else {
        s = zipa_storage_copying(c->z, i, (size_t)dtype_size(dtype), c->copies, err);
    }
    free(rel);
    return s;
}

/* byteorder is "little" or "big" (files from before it existed are
** little-endian). */
static EpStatus check_byteorder(ZipArchive *z, const char *root, EpError *err)
{
    int i = find_record(z, root, "byteorder");
    if (i < 0)
        return EP_OK;
    char *text;
    size_t len;
    EpStatus rc = zipa_read(z, i, &text, &len, err);
    if (rc != EP_OK)
        return rc;
    while (len && (text[len - 1] == '\n' || text[len - 1] == '\r' || text[len - 1] == ' '))
        text[--len] = '\0';
    if (!strcmp(text, "big"))
        rc = ep_fail(err, EP_ERR_FORMAT, "%s: big-endian storages are not supported", zipa_label(z));
    else if (strcmp(text, "little") != 0)
        rc = ep_fail(err, EP_ERR_FORMAT, "%s: unknown byte order '%.20s' in %s/byteorder", zipa_label(z), text, root);
    free(text);
    return rc;
}

PyObj *torchsave_load(ZipArchive *z, EpError *err)
{
    return torchsave_load_copying(z, NULL, err);
}

PyObj *torchsave_load_copying(ZipArchive *z, ZipCopies *copies, EpError *err)
{
    const char *first = zipa_count(z) > 0 ? zipa_name(z, 0) : NULL;
    const char *slash = first ? strchr(first, '/') : NULL;
    if (!slash || slash == first) {
        ep_fail(err, EP_ERR_FORMAT, "%s: not a torch.save archive (records are not in a folder)", zipa_label(z));
        return NULL;
    }
    char *root = ep_xstrndup(first, (size_t)(slash - first));
    PyObj *result = NULL;
    char *pickle = NULL;
    size_t len = 0;
    int pkl = find_record(z, root, "data.pkl");
    if (pkl < 0) {
        ep_fail(err, EP_ERR_FORMAT, "%s: not a torch.save archive (no %s/data.pkl)", zipa_label(z), root);
        goto out;
    }
    if (check_byteorder(z, root, err) != EP_OK || zipa_read(z, pkl, &pickle, &len, err) != EP_OK)
        goto out;
    SaveCtx ctx = {z, root, copies};
    PickleStorageSource src = {load_record, &ctx};
    char *label = ep_xasprintf("%s:data.pkl", zipa_label(z));
    result = pickle_load(pickle, len, label, &src, err);
    free(label);
out:
    free(pickle);
    free(root);
    return result;
}
