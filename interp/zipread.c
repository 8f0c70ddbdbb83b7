/*
** zipread.c -- zip containers read in place.
**
** Every archive is a byte range (base, len): a read-only file mapping, a
** malloc'd buffer, or a slice of the parent's range for a nested archive
** stored uncompressed.  libzip opens that range through a buffer source and
** does the listing, the consistency checks and all decompression.
**
** libzip does not tell where a member's bytes start, so the end-of-central-
** directory record, the ZIP64 records and the central directory are also
** parsed here, every offset and length checked against len.  A stored
** member's data then starts after its local header (30 bytes + name + extra;
** PyTorch's writer pads the extra field to put data on a 64-byte boundary).
**
** Bytes handed out in place are not CRC-checked (as torch.load(mmap=True));
** everything read through zipa_read or inflated into a storage goes through
** libzip, which checks the CRC.  A stored record of a file whose bytes are
** not aligned for their element type (a legacy archive's nested zip at an
** odd offset) is read with pread into a storage of its own, not through the
** mapping: its file pages then never join this process's resident set, so
** the weight is held once.  Like the in-place bytes it is not CRC-checked.
*/
#include "zipread.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#define SIG_LOCAL 0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_EOCD 0x06054b50u
#define SIG_EOCD64 0x06064b50u
#define SIG_LOCATOR64 0x07064b50u

#define EOCD_SIZE 22
#define LOCATOR64_SIZE 20
#define EOCD64_SIZE 56
#define CENTRAL_SIZE 46
#define LOCAL_SIZE 30
#define MAX_COMMENT 65535

/* Deflate cannot expand data more than about 1032:1; a member declaring a
** larger ratio is corrupt and is refused before allocating. */
#define DEFLATE_MAX_RATIO 1100
/* Below that, a ratio real archives never reach (torch.export.save stores
** every member uncompressed; a re-zipped program JSON compresses some 20:1)
** is a zip bomb until the user says otherwise: refused before inflating,
** unless EPDBG_ZIP_MAX_RATIO raises the limit. */
#define DEFLATE_BOMB_RATIO 200

static uint64_t bomb_ratio(void)
{
    const char *e = getenv("EPDBG_ZIP_MAX_RATIO");
    char *end;
    unsigned long long v = e ? strtoull(e, &end, 10) : 0;
    return e && *e && !*end && v > 0 ? (uint64_t)v : DEFLATE_BOMB_RATIO;
}

typedef struct ZipMember {
    char *name;         /* as libzip reports it (UTF-8) */
    uint64_t size;      /* uncompressed */
    uint64_t comp_size; /* bytes in the archive */
    uint64_t local_off; /* local header, from the central directory */
    int64_t data_off;   /* -1 until found from the local header */
    uint16_t method;    /* 0 stored, 8 deflated, ... */
    bool encrypted;
} ZipMember;

struct ZipArchive {
    int64_t refcount;
    char *label;
    const uint8_t *base; /* the archive's bytes */
    size_t len;
    void *map; /* mmap of a file archive, or NULL */
    size_t map_len;
    int fd;    /* a file archive's descriptor (for pread), else -1 */
    void *owned;        /* malloc'd bytes (memory archives, inflated nested ones) */
    ZipArchive *parent; /* nested in place: base points into the parent */
    zip_t *zip;
    int n;
    ZipMember *members;
    int *sorted; /* member indices by name, for zipa_find */
};

/* ---- little-endian fields ------------------------------------------------- */

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* ---- the file under an archive --------------------------------------------- */

/* The file archive z's bytes lie in, and where z->base starts in it: a file
** archive itself, or a nested one stored in place (any depth); NULL for
** archives held in memory. */
static ZipArchive *file_of(ZipArchive *z, uint64_t *base_off)
{
    *base_off = 0;
    for (; z; z = z->parent) {
        if (z->fd >= 0)
            return z;
        if (z->parent)
            *base_off += (uint64_t)(z->base - z->parent->base);
    }
    return NULL;
}

/* n bytes at offset off of file archive f into dst. */
static EpStatus pread_all(const ZipArchive *f, void *dst, size_t n, uint64_t off, EpError *err)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(f->fd, (char *)dst + got, n - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return ep_fail(err, EP_ERR_FORMAT, "%s: cannot read %zu bytes at offset %llu (%s)", f->label, n - got,
                           (unsigned long long)(off + got), r < 0 ? strerror(errno) : "the file got shorter");
        got += (size_t)r;
    }
    return EP_OK;
}

/* n bytes at offset off of z into buf: from the file with pread when z lies
** in one, so that reading a header does not map its neighbourhood of weight
** pages into this process (the kernel maps whole folios of a file at a
** fault); else from memory.  The caller has checked the range. */
static void read_at(ZipArchive *z, uint64_t off, void *buf, size_t n)
{
    uint64_t base_off;
    ZipArchive *f = file_of(z, &base_off);
    if (!f || pread_all(f, buf, n, base_off + off, NULL) != EP_OK)
        memcpy(buf, z->base + off, n);
}

/* ---- central directory ---------------------------------------------------- */

/* Where the central directory is, from the end records. */
typedef struct CdirInfo {
    uint64_t offset;
    uint64_t size;
    uint64_t count;
    uint64_t end; /* where the record after it starts: it must end there */
} CdirInfo;

static bool starts_like_zip(const uint8_t *b, size_t len)
{
    return len >= 4 && rd32(b) == SIG_LOCAL;
}

/* The end record is the last thing in the file, followed only by its comment;
** scan back from the end for a signature whose comment length fits. */
static EpStatus find_end_records(const uint8_t *b, size_t len, const char *label, CdirInfo *cd, EpError *err)
{
    if (len == 0)
        return ep_fail(err, EP_ERR_FORMAT, "%s: not a zip archive (empty file)", label);
    size_t eocd = SIZE_MAX;
    if (len >= EOCD_SIZE) {
        size_t lowest = len - EOCD_SIZE > MAX_COMMENT ? len - EOCD_SIZE - MAX_COMMENT : 0;
        for (size_t p = len - EOCD_SIZE + 1; p-- > lowest;) {
            if (rd32(b + p) == SIG_EOCD && p + EOCD_SIZE + rd16(b + p + 20) <= len) {
                eocd = p;
                break;
            }
        }
    }
    if (eocd == SIZE_MAX) {
        if (starts_like_zip(b, len))
            return ep_fail(err, EP_ERR_FORMAT, "%s: truncated (no end-of-central-directory record)", label);
        return ep_fail(err, EP_ERR_FORMAT, "%s: not a zip archive (no end-of-central-directory record)", label);
    }
    const uint8_t *e = b + eocd;
    if (rd16(e + 4) != 0 || rd16(e + 6) != 0)
        return ep_fail(err, EP_ERR_FORMAT, "%s: multi-disk zip archives are not supported", label);
    cd->count = rd16(e + 10);
    cd->size = rd32(e + 12);
    cd->offset = rd32(e + 16);
    cd->end = eocd;
    /* A ZIP64 locator just before the end record points at the ZIP64 end
    ** record, which holds the 64-bit counts and offsets. */
    if (eocd >= LOCATOR64_SIZE && rd32(b + eocd - LOCATOR64_SIZE) == SIG_LOCATOR64) {
        size_t loc = eocd - LOCATOR64_SIZE;
        uint64_t rec = rd64(b + loc + 8);
        if (rec > loc || loc - rec < EOCD64_SIZE || rd32(b + rec) != SIG_EOCD64)
            return ep_fail(err, EP_ERR_FORMAT, "%s: corrupt ZIP64 end-of-central-directory record", label);
        cd->count = rd64(b + rec + 32);
        cd->size = rd64(b + rec + 40);
        cd->offset = rd64(b + rec + 48);
        cd->end = rec;
    }
    if (cd->offset > cd->end || cd->size > cd->end - cd->offset) {
        if (starts_like_zip(b, len))
            return ep_fail(err, EP_ERR_FORMAT, "%s: truncated (central directory outside the file)", label);
        return ep_fail(err, EP_ERR_FORMAT, "%s: not a zip archive (central directory outside the file)", label);
    }
    if (cd->count > cd->size / CENTRAL_SIZE || cd->count > INT32_MAX)
        return ep_fail(err, EP_ERR_FORMAT, "%s: corrupt central directory (%llu entries in %llu bytes)", label,
                       (unsigned long long)cd->count, (unsigned long long)cd->size);
    return EP_OK;
}

/* Replace the 0xffffffff fields of a central entry by the ZIP64 extra field's
** values, which appear in a fixed order and only for the saturated fields. */
static bool apply_zip64_extra(const uint8_t *extra, size_t n, ZipMember *m, bool need_size, bool need_comp,
                              bool need_off)
{
    size_t p = 0;
    while (p + 4 <= n) {
        uint16_t id = rd16(extra + p), sz = rd16(extra + p + 2);
        if (sz > n - p - 4)
            return false;
        if (id == 0x0001) {
            const uint8_t *f = extra + p + 4;
            uint64_t *fields[] = {need_size ? &m->size : NULL, need_comp ? &m->comp_size : NULL,
                                  need_off ? &m->local_off : NULL};
            size_t q = 0;
            for (size_t k = 0; k < EP_ARRAY_LEN(fields); k++) {
                if (!fields[k])
                    continue;
                if (q + 8 > sz)
                    return false;
                *fields[k] = rd64(f + q);
                q += 8;
            }
            return true;
        }
        p += 4 + (size_t)sz;
    }
    return !need_size && !need_comp && !need_off;
}

/* Parse the central directory into members (names still raw). */
static EpStatus parse_cdir(ZipArchive *z, const CdirInfo *cd, char ***raw_names, EpError *err)
{
    const uint8_t *b = z->base;
    size_t pos = (size_t)cd->offset, end = (size_t)(cd->offset + cd->size);
    int n = (int)cd->count;
    z->members = ep_xcalloc((size_t)n, sizeof *z->members);
    char **names = ep_xcalloc((size_t)n, sizeof *names);
    *raw_names = names;
    for (int i = 0; i < n; i++) {
        ZipMember *m = &z->members[i];
        if (end - pos < CENTRAL_SIZE || rd32(b + pos) != SIG_CENTRAL)
            return ep_fail(err, EP_ERR_FORMAT, "%s: corrupt central directory (entry %d)", z->label, i);
        const uint8_t *e = b + pos;
        size_t nl = rd16(e + 28), el = rd16(e + 30), cl = rd16(e + 32);
        if (end - pos - CENTRAL_SIZE < nl + el + cl)
            return ep_fail(err, EP_ERR_FORMAT, "%s: corrupt central directory (entry %d)", z->label, i);
        m->encrypted = rd16(e + 8) & 1;
        m->method = rd16(e + 10);
        m->comp_size = rd32(e + 20);
        m->size = rd32(e + 24);
        m->local_off = rd32(e + 42);
        m->data_off = -1;
        bool need_comp = m->comp_size == 0xffffffffu, need_size = m->size == 0xffffffffu;
        bool need_off = m->local_off == 0xffffffffu;
        if ((need_comp || need_size || need_off) &&
            !apply_zip64_extra(e + CENTRAL_SIZE + nl, el, m, need_size, need_comp, need_off))
            return ep_fail(err, EP_ERR_FORMAT, "%s: corrupt ZIP64 field in central directory entry %d", z->label, i);
        names[i] = ep_xstrndup((const char *)e + CENTRAL_SIZE, nl);
        if (strlen(names[i]) != nl)
            return ep_fail(err, EP_ERR_FORMAT, "%s: member name with a NUL byte (entry %d)", z->label, i);
        if (m->local_off >= cd->offset || m->comp_size > cd->offset - m->local_off)
            return ep_fail(err, EP_ERR_FORMAT, "%s: member %s lies outside the archive", z->label, names[i]);
        pos += CENTRAL_SIZE + nl + el + cl;
    }
    return EP_OK;
}

/* ---- libzip --------------------------------------------------------------- */

static const char *zip_code_str(int code, char *buf, size_t cap)
{
    zip_error_t ze;
    zip_error_init_with_code(&ze, code);
    snprintf(buf, cap, "%s", zip_error_strerror(&ze));
    zip_error_fini(&ze);
    return buf;
}

/* libzip's consistency check says only "Zip archive inconsistent": find
** what it is from the records themselves, as a sentence naming the member
** and the field.  false when none of these is the reason. */
static bool diagnose_inconsistency(const ZipArchive *z, const CdirInfo *cd, char *buf, size_t cap)
{
    const uint8_t *b = z->base;
    /* bytes after the end record (its comment counted) */
    size_t eocd = SIZE_MAX;
    for (size_t p = z->len >= EOCD_SIZE ? z->len - EOCD_SIZE + 1 : 0; p-- > 0 && z->len - p <= EOCD_SIZE + MAX_COMMENT;)
        if (rd32(b + p) == SIG_EOCD) {
            eocd = p;
            break;
        }
    if (eocd != SIZE_MAX && eocd + EOCD_SIZE + rd16(b + eocd + 20) < z->len) {
        snprintf(buf, cap, "%zu bytes after the end-of-central-directory record (junk, or another file appended)",
                 z->len - (eocd + EOCD_SIZE + rd16(b + eocd + 20)));
        return true;
    }
    /* each member's local header against its central entry */
    size_t pos = (size_t)cd->offset;
    for (int i = 0; i < z->n; i++) {
        const uint8_t *e = b + pos;
        const ZipMember *m = &z->members[i];
        size_t nl = rd16(e + 28), el = rd16(e + 30), cl = rd16(e + 32);
        char name[96];
        snprintf(name, sizeof name, "%.*s", (int)(nl < 80 ? nl : 80), (const char *)e + CENTRAL_SIZE);
        if (m->method != 0 && m->method != 8) {
            snprintf(buf, cap, "member %s uses compression method %d (only stored and deflated)", name, m->method);
            return true;
        }
        size_t lh = (size_t)m->local_off;
        if (lh > z->len || z->len - lh < LOCAL_SIZE || rd32(b + lh) != SIG_LOCAL) {
            snprintf(buf, cap, "member %s: no local header at offset %zu", name, lh);
            return true;
        }
        const uint8_t *l = b + lh;
        bool descriptor = rd16(l + 6) & 8; /* sizes and CRC after the data instead */
        if (rd16(l + 8) != m->method) {
            snprintf(buf, cap, "member %s: compression method %d in the central directory, %d in its local header",
                     name, m->method, rd16(l + 8));
            return true;
        }
        if (!descriptor && rd32(l + 14) != rd32(e + 16)) {
            snprintf(buf, cap, "member %s: CRC %08x in the central directory, %08x in its local header", name,
                     rd32(e + 16), rd32(l + 14));
            return true;
        }
        if (rd16(l + 26) != nl || memcmp(l + LOCAL_SIZE, e + CENTRAL_SIZE, nl) != 0) {
            snprintf(buf, cap, "member %s: its local header names another member", name);
            return true;
        }
        pos += CENTRAL_SIZE + nl + el + cl;
    }
    return false;
}

static EpStatus open_libzip(ZipArchive *z, const CdirInfo *cd, EpError *err)
{
    zip_error_t ze;
    zip_error_init(&ze);
    /* libzip reads the headers of every member (ZIP_CHECKCONS) and the
    ** members zipa_read asks for: from the file when there is one (see
    ** read_at), else from memory */
    uint64_t base_off;
    ZipArchive *f = file_of(z, &base_off);
    zip_source_t *src = NULL;
    if (f) {
        int fd = dup(f->fd);
        FILE *fp = fd >= 0 ? fdopen(fd, "rb") : NULL;
        if (!fp && fd >= 0)
            close(fd);
        src = fp ? zip_source_filep_create(fp, base_off, (zip_int64_t)z->len, &ze) : NULL;
        if (!src && fp)
            fclose(fp);
    }
    if (!src)
        src = zip_source_buffer_create(z->base, z->len, 0, &ze);
    if (src)
        z->zip = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &ze);
    EpStatus rc = EP_OK;
    if (!z->zip) {
        int code = zip_error_code_zip(&ze);
        char why[256];
        if (code == ZIP_ER_NOZIP)
            rc = ep_fail(err, EP_ERR_FORMAT, "%s: not a zip archive (%s)", z->label, zip_error_strerror(&ze));
        else if (code == ZIP_ER_INCONS && cd && diagnose_inconsistency(z, cd, why, sizeof why))
            rc = ep_fail(err, EP_ERR_FORMAT, "%s: corrupt zip archive: %s", z->label, why);
        else
            rc = ep_fail(err, EP_ERR_FORMAT, "%s: corrupt zip archive (%s)", z->label, zip_error_strerror(&ze));
        zip_source_free(src);
    }
    zip_error_fini(&ze);
    return rc;
}

static int cmp_by_name(const void *a, const void *b, void *ctx)
{
    const ZipArchive *z = ctx;
    int ia = *(const int *)a, ib = *(const int *)b;
    int c = strcmp(z->members[ia].name, z->members[ib].name);
    return c ? c : (ia > ib) - (ia < ib);
}

/* Our parse and libzip's must describe the same members. */
static EpStatus check_against_libzip(ZipArchive *z, char **raw_names, EpError *err)
{
    zip_int64_t count = zip_get_num_entries(z->zip, 0);
    if (count != z->n)
        return ep_fail(err, EP_ERR_FORMAT, "%s: corrupt central directory (%d entries, libzip reads %lld)", z->label,
                       z->n, (long long)count);
    for (int i = 0; i < z->n; i++) {
        ZipMember *m = &z->members[i];
        const char *raw = zip_get_name(z->zip, (zip_uint64_t)i, ZIP_FL_ENC_RAW);
        const char *name = zip_get_name(z->zip, (zip_uint64_t)i, 0);
        zip_stat_t st;
        if (!raw || !name || strcmp(raw, raw_names[i]) != 0 || zip_stat_index(z->zip, (zip_uint64_t)i, 0, &st) != 0)
            return ep_fail(err, EP_ERR_FORMAT, "%s: corrupt central directory (entry %d)", z->label, i);
        if (((st.valid & ZIP_STAT_SIZE) && st.size != m->size) ||
            ((st.valid & ZIP_STAT_COMP_SIZE) && st.comp_size != m->comp_size))
            return ep_fail(err, EP_ERR_FORMAT, "%s: corrupt central directory (sizes of %s)", z->label, raw);
        m->name = ep_xstrdup(name);
    }
    z->sorted = ep_xcalloc((size_t)z->n, sizeof *z->sorted);
    for (int i = 0; i < z->n; i++)
        z->sorted[i] = i;
    qsort_r(z->sorted, (size_t)z->n, sizeof *z->sorted, cmp_by_name, z);
    return EP_OK;
}

/* ---- member data ------------------------------------------------------------ */

/* Offset of member i's bytes within z->base, found from its local header. */
static EpStatus member_data_offset(ZipArchive *z, int i, uint64_t *out, EpError *err)
{
    ZipMember *m = &z->members[i];
    if (m->data_off >= 0) {
        *out = (uint64_t)m->data_off;
        return EP_OK;
    }
    uint64_t lh = m->local_off;
    uint8_t h[LOCAL_SIZE];
    if (lh <= z->len && z->len - lh >= LOCAL_SIZE)
        read_at(z, lh, h, LOCAL_SIZE);
    if (lh > z->len || z->len - lh < LOCAL_SIZE || rd32(h) != SIG_LOCAL)
        return ep_fail(err, EP_ERR_FORMAT, "%s: member %s is corrupt (no local header at offset %llu)", z->label,
                       m->name, (unsigned long long)lh);
    uint64_t nl = rd16(h + 26), el = rd16(h + 28);
    uint64_t data = lh + LOCAL_SIZE + nl + el;
    if (data > z->len || z->len - data < m->comp_size)
        return ep_fail(err, EP_ERR_FORMAT, "%s: member %s is corrupt (data beyond the end of the archive)",
                       z->label, m->name);
    m->data_off = (int64_t)data;
    *out = data;
    return EP_OK;
}

/* A member whose bytes can be used where they lie. */
static bool in_place(const ZipMember *m)
{
    return m->method == 0 && !m->encrypted && m->size == m->comp_size;
}

static EpStatus member_fail(ZipArchive *z, int i, zip_error_t *ze, EpError *err)
{
    int code = ze ? zip_error_code_zip(ze) : ZIP_ER_INTERNAL;
    if (code == ZIP_ER_MEMORY)
        return ep_fail(err, EP_ERR_FORMAT, "%s: out of memory reading member %s", z->label, z->members[i].name);
    char buf[128];
    return ep_fail(err, EP_ERR_FORMAT, "%s: member %s is corrupt (%s)", z->label, z->members[i].name,
                   ze ? zip_error_strerror(ze) : zip_code_str(code, buf, sizeof buf));
}

/* Whether member i can be read, checked before its declared size is
** allocated: stored or deflated, unencrypted, and a size its compressed
** bytes can produce. */
static EpStatus check_readable(ZipArchive *z, int i, EpError *err)
{
    ZipMember *m = &z->members[i];
    if (m->encrypted)
        return ep_fail(err, EP_ERR_FORMAT, "%s: member %s is encrypted", z->label, m->name);
    if (m->method != 0 && m->method != 8)
        return ep_fail(err, EP_ERR_FORMAT, "%s: member %s uses compression method %d (only stored and deflated)",
                       z->label, m->name, m->method);
    if ((m->method == 0 && m->size != m->comp_size) ||
        (m->method == 8 && m->size / DEFLATE_MAX_RATIO > m->comp_size + 64))
        return ep_fail(err, EP_ERR_FORMAT, "%s: member %s is corrupt (%llu bytes cannot give %llu)", z->label,
                       m->name, (unsigned long long)m->comp_size, (unsigned long long)m->size);
    uint64_t limit = bomb_ratio();
    if (m->method == 8 && m->size > 1024 * 1024 && m->size / limit > m->comp_size)
        return ep_fail(err, EP_ERR_FORMAT,
                       "%s: member %s would inflate %llu bytes to %llu (%llu:1, above the limit of %llu:1): a zip "
                       "bomb, or deflated data that is mostly zeros; store the members uncompressed (as "
                       "torch.export.save does) or set EPDBG_ZIP_MAX_RATIO",
                       z->label, m->name, (unsigned long long)m->comp_size, (unsigned long long)m->size,
                       (unsigned long long)(m->size / (m->comp_size ? m->comp_size : 1)), (unsigned long long)limit);
    if (m->size >= SIZE_MAX || m->size > (uint64_t)INT64_MAX)
        return ep_fail(err, EP_ERR_FORMAT, "%s: member %s is too large", z->label, m->name);
    return EP_OK;
}

/* Inflate (or copy) member i into dst, exactly m->size bytes, through libzip
** so the CRC is checked. */
static EpStatus read_member(ZipArchive *z, int i, void *dst, EpError *err)
{
    ZipMember *m = &z->members[i];
    zip_file_t *f = zip_fopen_index(z->zip, (zip_uint64_t)i, 0);
    if (!f)
        return member_fail(z, i, zip_get_error(z->zip), err);
    uint64_t got = 0;
    EpStatus rc = EP_OK;
    while (got < m->size) {
        zip_int64_t r = zip_fread(f, (char *)dst + got, m->size - got);
        if (r <= 0) {
            rc = r < 0 ? member_fail(z, i, zip_file_get_error(f), err)
                       : ep_fail(err, EP_ERR_FORMAT, "%s: member %s is corrupt (ends after %llu of %llu bytes)",
                                 z->label, m->name, (unsigned long long)got, (unsigned long long)m->size);
            break;
        }
        got += (uint64_t)r;
    }
    /* libzip checks the CRC when the end is read: ask for one more byte */
    if (rc == EP_OK) {
        char extra;
        zip_int64_t r = zip_fread(f, &extra, 1);
        if (r < 0)
            rc = member_fail(z, i, zip_file_get_error(f), err);
        else if (r > 0)
            rc = ep_fail(err, EP_ERR_FORMAT, "%s: member %s is corrupt (longer than its declared %llu bytes)",
                         z->label, m->name, (unsigned long long)m->size);
    }
    zip_fclose(f);
    return rc;
}

/* ---- opening -------------------------------------------------------------- */

static ZipArchive *archive_alloc(const char *label)
{
    ZipArchive *z = ep_xcalloc(1, sizeof *z);
    z->refcount = 1;
    z->fd = -1;
    z->label = ep_xstrdup(label);
    return z;
}

/* Parse and open z->base/z->len; on failure frees z (and what it owns). */
static ZipArchive *archive_open(ZipArchive *z, EpError *err)
{
    CdirInfo cd = {0};
    char **raw_names = NULL;
    EpStatus rc = find_end_records(z->base, z->len, z->label, &cd, err);
    if (rc == EP_OK) {
        z->n = (int)cd.count;
        rc = parse_cdir(z, &cd, &raw_names, err);
    }
    if (rc == EP_OK)
        rc = open_libzip(z, &cd, err);
    if (rc == EP_OK)
        rc = check_against_libzip(z, raw_names, err);
    if (raw_names)
        for (int i = 0; i < z->n; i++)
            free(raw_names[i]);
    free(raw_names);
    if (rc != EP_OK) {
        zipa_unref(z);
        return NULL;
    }
    return z;
}

ZipArchive *zipa_open_file(const char *path, EpError *err)
{
    int fd = ep_open_regular(path, NULL, err);
    if (fd < 0)
        return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        ep_fail(err, EP_ERR_FORMAT, "%s: cannot read its size (%s)", path, strerror(errno));
        close(fd);
        return NULL;
    }
    ZipArchive *z = archive_alloc(path);
    if (st.st_size > 0) {
        void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            ep_fail(err, EP_ERR_FORMAT, "%s: cannot map (%s)", path, strerror(errno));
            close(fd);
            zipa_unref(z);
            return NULL;
        }
        z->map = map;
        z->map_len = (size_t)st.st_size;
        z->base = map;
        z->len = (size_t)st.st_size;
    } else {
        z->base = (const uint8_t *)"";
    }
    z->fd = fd; /* kept for reading misaligned records (zipa_storage) */
    return archive_open(z, err);
}

ZipArchive *zipa_open_memory(void *data, size_t len, const char *label, EpError *err)
{
    ZipArchive *z = archive_alloc(label);
    z->owned = data;
    z->base = data ? data : (const uint8_t *)"";
    z->len = data ? len : 0;
    return archive_open(z, err);
}

ZipArchive *zipa_open_nested(ZipArchive *outer, const char *name, EpError *err)
{
    int i = zipa_find(outer, name);
    if (i < 0) {
        ep_fail(err, EP_ERR_FORMAT, "%s: no member %s", outer->label, name);
        return NULL;
    }
    char *label = ep_xasprintf("%s:%s", outer->label, name);
    ZipArchive *z = archive_alloc(label);
    free(label);
    ZipMember *m = &outer->members[i];
    uint64_t off;
    if (in_place(m)) {
        if (member_data_offset(outer, i, &off, err) != EP_OK) {
            zipa_unref(z);
            return NULL;
        }
        z->parent = zipa_ref(outer);
        z->base = outer->base + off;
        z->len = (size_t)m->size;
    } else {
        char *data;
        size_t len;
        if (zipa_read(outer, i, &data, &len, err) != EP_OK) {
            zipa_unref(z);
            return NULL;
        }
        z->owned = data;
        z->base = (const uint8_t *)data;
        z->len = len;
    }
    return archive_open(z, err);
}

/* ---- lifetime and queries -------------------------------------------------- */

ZipArchive *zipa_ref(ZipArchive *z)
{
    z->refcount++;
    return z;
}

void zipa_unref(ZipArchive *z)
{
    if (!z || --z->refcount > 0)
        return;
    if (z->zip)
        zip_discard(z->zip);
    if (z->members)
        for (int i = 0; i < z->n; i++)
            free(z->members[i].name);
    free(z->members);
    free(z->sorted);
    if (z->map)
        munmap(z->map, z->map_len);
    if (z->fd >= 0)
        close(z->fd);
    free(z->owned);
    zipa_unref(z->parent);
    free(z->label);
    free(z);
}

const char *zipa_label(const ZipArchive *z)
{
    return z->label;
}

int zipa_count(const ZipArchive *z)
{
    return z->n;
}

const char *zipa_name(const ZipArchive *z, int i)
{
    return i >= 0 && i < z->n ? z->members[i].name : NULL;
}

int zipa_find(const ZipArchive *z, const char *name)
{
    int lo = 0, hi = z->n; /* first sorted position whose name is >= name */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (strcmp(z->members[z->sorted[mid]].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < z->n && strcmp(z->members[z->sorted[lo]].name, name) == 0 ? z->sorted[lo] : -1;
}

int64_t zipa_size(const ZipArchive *z, int i)
{
    return i >= 0 && i < z->n ? (int64_t)z->members[i].size : -1;
}

int64_t zipa_data_offset(ZipArchive *z, int i)
{
    uint64_t off;
    return i >= 0 && i < z->n && member_data_offset(z, i, &off, NULL) == EP_OK ? (int64_t)off : -1;
}

bool zipa_is_stored(const ZipArchive *z, int i)
{
    return i >= 0 && i < z->n && in_place(&z->members[i]);
}

EpStatus zipa_read(ZipArchive *z, int i, char **data, size_t *len, EpError *err)
{
    if (i < 0 || i >= z->n)
        return ep_fail(err, EP_ERR_FORMAT, "%s: no member %d", z->label, i);
    uint64_t size = z->members[i].size;
    EpStatus rc = check_readable(z, i, err);
    if (rc != EP_OK)
        return rc;
    char *buf = malloc((size_t)size + 1);
    if (!buf)
        return ep_fail(err, EP_ERR_FORMAT, "%s: out of memory reading member %s (%llu bytes)", z->label,
                       z->members[i].name, (unsigned long long)size);
    rc = read_member(z, i, buf, err);
    if (rc != EP_OK) {
        free(buf);
        return rc;
    }
    buf[size] = '\0';
    *data = buf;
    *len = (size_t)size;
    return EP_OK;
}

/* Storage release for bytes inside an archive: drop the archive reference. */
static void release_archive_ref(void *owner, void *data, size_t nbytes)
{
    EP_UNUSED(data);
    EP_UNUSED(nbytes);
    zipa_unref(owner);
}

/* A storage of n bytes, or NULL + err saying why (the memory limit). */
static Storage *copy_storage(const ZipArchive *z, const ZipMember *m, EpError *err)
{
    Storage *s = storage_new((size_t)m->size);
    if (!s) {
        char why[256];
        if (tensor_memory_refused((size_t)m->size, why, sizeof why))
            ep_fail(err, EP_ERR_FORMAT, "%s: member %s declares %llu bytes: %s", z->label, m->name,
                    (unsigned long long)m->size, why);
        else
            ep_fail(err, EP_ERR_FORMAT, "%s: out of memory reading member %s (%llu bytes)", z->label, m->name,
                    (unsigned long long)m->size);
    }
    return s;
}

static ZipCopy *copies_add(ZipCopies *c)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 16;
        c->items = ep_xrealloc(c->items, (size_t)c->cap * sizeof *c->items);
    }
    c->sorted = false;
    ZipCopy *e = &c->items[c->n++];
    memset(e, 0, sizeof *e);
    return e;
}

Storage *zipa_storage(ZipArchive *z, int i, size_t align, EpError *err)
{
    return zipa_storage_copying(z, i, align, NULL, err);
}

Storage *zipa_storage_copying(ZipArchive *z, int i, size_t align, ZipCopies *copies, EpError *err)
{
    if (i < 0 || i >= z->n) {
        ep_fail(err, EP_ERR_FORMAT, "%s: no member %d", z->label, i);
        return NULL;
    }
    ZipMember *m = &z->members[i];
    if (align == 0)
        align = 1;
    uint64_t off = 0, base_off;
    ZipArchive *file = NULL;
    if (in_place(m)) {
        if (member_data_offset(z, i, &off, err) != EP_OK)
            return NULL;
        const uint8_t *p = z->base + off;
        if ((uintptr_t)p % align == 0)
            return storage_wrap((void *)(uintptr_t)p, (size_t)m->size, release_archive_ref, zipa_ref(z), true);
        file = file_of(z, &base_off);
    }
    if (check_readable(z, i, err) != EP_OK)
        return NULL;
    Storage *s = copy_storage(z, m, err);
    if (!s)
        return NULL;
    ZipCopy *c = copies ? copies_add(copies) : NULL;
    if (c) {
        c->storage = storage_ref(s);
        c->offset = file ? base_off + off : 0;
        if (file)
            snprintf(c->why, sizeof c->why, "record at offset %llu of the file is not %zu-byte aligned",
                     (unsigned long long)c->offset, align);
        else if (in_place(m))
            snprintf(c->why, sizeof c->why, "record is not %zu-byte aligned in memory", align);
        else
            snprintf(c->why, sizeof c->why, "record is compressed");
    }
    if (file && c && m->size > 0) {
        c->file = zipa_ref(file); /* read when first needed: zipa_copies_fill */
        return s;
    }
    EpStatus rc = file ? pread_all(file, s->data, (size_t)m->size, base_off + off, err) : read_member(z, i, s->data, err);
    if (rc != EP_OK) {
        if (c) {
            storage_unref(c->storage);
            copies->n--;
        }
        storage_unref(s);
        return NULL;
    }
    return s;
}

/* By the bytes' address: a tensor may hold a storage that wraps the copy's
** (pickle_load trims a record longer than its elements). */
static int copy_cmp(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const ZipCopy *)a)->storage->data, y = (uintptr_t)((const ZipCopy *)b)->storage->data;
    return x < y ? -1 : x > y;
}

void zipa_copies_sort(ZipCopies *c)
{
    ep_qsort(c->items, (size_t)c->n, sizeof *c->items, copy_cmp);
    c->sorted = true;
}

ZipCopy *zipa_copies_find(const ZipCopies *c, const Storage *s)
{
    if (!c->sorted) {
        for (int i = 0; i < c->n; i++)
            if (c->items[i].storage->data == s->data)
                return &c->items[i];
        return NULL;
    }
    Storage probe = {.data = s->data};
    ZipCopy key = {.storage = &probe};
    return c->n ? bsearch(&key, c->items, (size_t)c->n, sizeof *c->items, copy_cmp) : NULL;
}

EpStatus zipa_copies_fill(ZipCopies *c, const Storage *s, EpError *err)
{
    ZipCopy *e = zipa_copies_find(c, s);
    if (!e || !e->file)
        return EP_OK;
    EpStatus rc = pread_all(e->file, e->storage->data, e->storage->nbytes, e->offset, err);
    if (rc == EP_OK) {
        zipa_unref(e->file);
        e->file = NULL;
    }
    return rc;
}

void zipa_copies_free(ZipCopies *c)
{
    for (int i = 0; i < c->n; i++) {
        storage_unref(c->items[i].storage);
        zipa_unref(c->items[i].file);
    }
    free(c->items);
    memset(c, 0, sizeof *c);
}
