/*
** zipwrite.c -- a small writer of stored (uncompressed) zip archives.
*/
#include "zipwrite.h"

#include <stdlib.h>
#include <string.h>

#include "npy.h"

typedef struct ZwEntry {
    char *name;
    uint32_t crc;
    uint64_t size;
    uint64_t offset; /* of the local header */
} ZwEntry;

struct ZipWriter {
    StrBuf out;
    int align;
    ZwEntry *entries;
    int n;
    bool finished;
};

uint32_t crc32_bytes(const void *data, size_t len)
{
    static uint32_t table[256];
    static bool ready;
    if (!ready) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
        ready = true;
    }
    uint32_t c = 0xffffffffu;
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++)
        c = table[(c ^ p[i]) & 0xff] ^ (c >> 8);
    return c ^ 0xffffffffu;
}

static void put16(StrBuf *b, unsigned v)
{
    unsigned char x[2] = {(unsigned char)v, (unsigned char)(v >> 8)};
    sb_appendn(b, (const char *)x, 2);
}

static void put32(StrBuf *b, uint32_t v)
{
    unsigned char x[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16), (unsigned char)(v >> 24)};
    sb_appendn(b, (const char *)x, 4);
}

ZipWriter *zw_new(int align)
{
    ZipWriter *z = ep_xcalloc(1, sizeof *z);
    sb_init(&z->out);
    z->align = align;
    return z;
}

void zw_free(ZipWriter *z)
{
    if (!z)
        return;
    for (int i = 0; i < z->n; i++)
        free(z->entries[i].name);
    free(z->entries);
    sb_free(&z->out);
    free(z);
}

void zw_add(ZipWriter *z, const char *name, const void *data, size_t len)
{
    ZwEntry e = {ep_xstrdup(name), crc32_bytes(data, len), len, z->out.len};
    size_t nlen = strlen(name);
    size_t header_end = z->out.len + 30 + nlen;
    size_t pad = 0;
    if (z->align > 0 && header_end % (size_t)z->align) {
        pad = (size_t)z->align - header_end % (size_t)z->align;
        if (pad < 4) /* an extra field needs a 4-byte header */
            pad += (size_t)z->align;
    }
    put32(&z->out, 0x04034b50);
    put16(&z->out, 20);     /* version needed */
    put16(&z->out, 0);      /* flags */
    put16(&z->out, 0);      /* stored */
    put16(&z->out, 0);      /* time */
    put16(&z->out, 0x21);   /* date: 1980-01-01 */
    put32(&z->out, e.crc);
    put32(&z->out, (uint32_t)len);
    put32(&z->out, (uint32_t)len);
    put16(&z->out, (unsigned)nlen);
    put16(&z->out, (unsigned)pad);
    sb_appendn(&z->out, name, nlen);
    if (pad) { /* PyTorch pads with an extra field of id 'FB' */
        put16(&z->out, 0x4246);
        put16(&z->out, (unsigned)(pad - 4));
        for (size_t i = 0; i < pad - 4; i++)
            sb_appendn(&z->out, "Z", 1);
    }
    if (len)
        sb_appendn(&z->out, data, len);
    z->entries = ep_xrealloc(z->entries, (size_t)(z->n + 1) * sizeof *z->entries);
    z->entries[z->n++] = e;
}

const char *zw_finish(ZipWriter *z, size_t *len)
{
    if (!z->finished) {
        uint64_t cd_start = z->out.len;
        for (int i = 0; i < z->n; i++) {
            const ZwEntry *e = &z->entries[i];
            size_t nlen = strlen(e->name);
            put32(&z->out, 0x02014b50);
            put16(&z->out, 20);
            put16(&z->out, 20);
            put16(&z->out, 0);
            put16(&z->out, 0);
            put16(&z->out, 0);
            put16(&z->out, 0x21);
            put32(&z->out, e->crc);
            put32(&z->out, (uint32_t)e->size);
            put32(&z->out, (uint32_t)e->size);
            put16(&z->out, (unsigned)nlen);
            put16(&z->out, 0); /* extra */
            put16(&z->out, 0); /* comment */
            put16(&z->out, 0); /* disk */
            put16(&z->out, 0); /* internal attributes */
            put32(&z->out, 0); /* external attributes */
            put32(&z->out, (uint32_t)e->offset);
            sb_appendn(&z->out, e->name, nlen);
        }
        uint64_t cd_size = z->out.len - cd_start;
        put32(&z->out, 0x06054b50);
        put16(&z->out, 0);
        put16(&z->out, 0);
        put16(&z->out, (unsigned)z->n);
        put16(&z->out, (unsigned)z->n);
        put32(&z->out, (uint32_t)cd_size);
        put32(&z->out, (uint32_t)cd_start);
        put16(&z->out, 0);
        z->finished = true;
    }
    *len = z->out.len;
    return z->out.data;
}

EpStatus zw_save(ZipWriter *z, const char *path, EpError *err)
{
    size_t len;
    const char *data = zw_finish(z, &len);
    return write_file_atomic(path, data, len, err);
}
