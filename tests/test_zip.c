/*
** test_zip.c -- zip containers: members written by libzip (stored and
** deflated) and by a hand-written writer that pads data to 64 bytes as
** PyTorch's does (and can write ZIP64 records); nested archives; zero-copy
** storages; truncated, garbage and lying archives; every corpus file.
*/
#include "testutil.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zip.h>

#include "interp/zipread.h"

/* ---- writing test archives -------------------------------------------------- */

static uint32_t crc32_of(const void *data, size_t n)
{
    const uint8_t *p = data;
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
    }
    return ~c;
}

static void put_le(StrBuf *b, uint64_t v, int n)
{
    for (int i = 0; i < n; i++) {
        char c = (char)(v >> (8 * i));
        sb_appendn(b, &c, 1);
    }
}

typedef struct HandMember {
    const char *name;
    const void *data;
    size_t len;
    int method;             /* 0 stored; 8 with data taken as already deflated */
    uint32_t declared_size; /* 0: len */
} HandMember;

/* An archive whose member data start at multiples of align, padded through
** the local header's extra field (id "FB") as PyTorch's writer does; with
** zip64, sizes and offsets sit in ZIP64 extra fields and end records. */
static char *hand_zip(const HandMember *m, int n, size_t align, bool zip64, size_t *out_len)
{
    StrBuf b;
    sb_init(&b);
    uint64_t *offsets = calloc((size_t)n, sizeof *offsets);
    for (int i = 0; i < n; i++) {
        size_t nl = strlen(m[i].name), pad = 0;
        offsets[i] = b.len;
        if (align > 1) {
            pad = (align - (b.len + 30 + nl + 4) % align) % align;
            pad += 4;
        }
        uint32_t size = m[i].declared_size ? m[i].declared_size : (uint32_t)m[i].len;
        put_le(&b, 0x04034b50u, 4);
        put_le(&b, 20, 2);
        put_le(&b, 0, 2);
        put_le(&b, (uint64_t)m[i].method, 2);
        put_le(&b, 0, 2);
        put_le(&b, 0x21, 2);
        put_le(&b, crc32_of(m[i].data, m[i].len), 4);
        put_le(&b, m[i].len, 4);
        put_le(&b, size, 4);
        put_le(&b, nl, 2);
        put_le(&b, pad, 2);
        sb_appendn(&b, m[i].name, nl);
        if (pad) {
            put_le(&b, 0x4246, 2);
            put_le(&b, pad - 4, 2);
            for (size_t k = 0; k < pad - 4; k++)
                put_le(&b, 0, 1);
        }
        sb_appendn(&b, m[i].data, m[i].len);
    }
    uint64_t cd_off = b.len;
    for (int i = 0; i < n; i++) {
        size_t nl = strlen(m[i].name);
        uint32_t size = m[i].declared_size ? m[i].declared_size : (uint32_t)m[i].len;
        put_le(&b, 0x02014b50u, 4);
        put_le(&b, zip64 ? 45 : 20, 2);
        put_le(&b, zip64 ? 45 : 20, 2);
        put_le(&b, 0, 2);
        put_le(&b, (uint64_t)m[i].method, 2);
        put_le(&b, 0, 2);
        put_le(&b, 0x21, 2);
        put_le(&b, crc32_of(m[i].data, m[i].len), 4);
        put_le(&b, zip64 ? 0xffffffffu : m[i].len, 4);
        put_le(&b, zip64 ? 0xffffffffu : size, 4);
        put_le(&b, nl, 2);
        put_le(&b, zip64 ? 28 : 0, 2);
        put_le(&b, 0, 2);
        put_le(&b, 0, 2);
        put_le(&b, 0, 2);
        put_le(&b, 0, 4);
        put_le(&b, zip64 ? 0xffffffffu : offsets[i], 4);
        sb_appendn(&b, m[i].name, nl);
        if (zip64) {
            put_le(&b, 1, 2);
            put_le(&b, 24, 2);
            put_le(&b, size, 8);
            put_le(&b, m[i].len, 8);
            put_le(&b, offsets[i], 8);
        }
    }
    uint64_t cd_size = b.len - cd_off;
    if (zip64) {
        uint64_t rec = b.len;
        put_le(&b, 0x06064b50u, 4);
        put_le(&b, 44, 8);
        put_le(&b, 45, 2);
        put_le(&b, 45, 2);
        put_le(&b, 0, 4);
        put_le(&b, 0, 4);
        put_le(&b, (uint64_t)n, 8);
        put_le(&b, (uint64_t)n, 8);
        put_le(&b, cd_size, 8);
        put_le(&b, cd_off, 8);
        put_le(&b, 0x07064b50u, 4);
        put_le(&b, 0, 4);
        put_le(&b, rec, 8);
        put_le(&b, 1, 4);
    }
    put_le(&b, 0x06054b50u, 4);
    put_le(&b, 0, 2);
    put_le(&b, 0, 2);
    put_le(&b, zip64 ? 0xffff : (uint64_t)n, 2);
    put_le(&b, zip64 ? 0xffff : (uint64_t)n, 2);
    put_le(&b, zip64 ? 0xffffffffu : cd_size, 4);
    put_le(&b, zip64 ? 0xffffffffu : cd_off, 4);
    put_le(&b, 0, 2);
    free(offsets);
    *out_len = b.len;
    return sb_take(&b);
}

typedef struct LzMember {
    const char *name;
    const void *data;
    size_t len;
    bool deflate;
} LzMember;

static char *read_whole(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    ck_assert_int_eq(fread(buf, 1, (size_t)n, f), n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void write_whole(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fwrite(data, 1, len, f), len);
    fclose(f);
}

/* A temporary file name (the file exists, empty). */
static void temp_path(char *buf, size_t cap)
{
    snprintf(buf, cap, "/tmp/epdbg-test-zip-XXXXXX");
    int fd = mkstemp(buf);
    ck_assert_int_ge(fd, 0);
    close(fd);
}

/* An archive written by libzip, as bytes. */
static char *libzip_build(const LzMember *m, int n, size_t *len)
{
    char path[64];
    temp_path(path, sizeof path);
    int zerr;
    zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &zerr);
    ck_assert_ptr_nonnull(z);
    for (int i = 0; i < n; i++) {
        zip_source_t *src = zip_source_buffer(z, m[i].data, m[i].len, 0);
        zip_int64_t idx = zip_file_add(z, m[i].name, src, ZIP_FL_ENC_UTF_8);
        ck_assert_int_ge(idx, 0);
        zip_set_file_compression(z, (zip_uint64_t)idx, m[i].deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0);
    }
    ck_assert_int_eq(zip_close(z), 0);
    char *bytes = read_whole(path, len);
    unlink(path);
    return bytes;
}

static ZipArchive *open_copy(const char *data, size_t len, const char *label, EpError *err)
{
    void *copy = malloc(len ? len : 1);
    memcpy(copy, data, len);
    return zipa_open_memory(copy, len, label, err);
}

static const char TEXT[] = "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog.";

static void check_member(ZipArchive *z, const char *name, const void *want, size_t len)
{
    EpError err = {0};
    int i = zipa_find(z, name);
    ck_assert_msg(i >= 0, "no member %s", name);
    ck_assert_str_eq(zipa_name(z, i), name);
    ck_assert_int_eq(zipa_size(z, i), (int64_t)len);
    char *data;
    size_t n;
    ck_assert_msg(zipa_read(z, i, &data, &n, &err) == EP_OK, "%s", err.msg);
    ck_assert_uint_eq(n, len);
    ck_assert(memcmp(data, want, len) == 0);
    ck_assert_int_eq(data[n], 0);
    free(data);
}

/* ---- tests ----------------------------------------------------------------- */

START_TEST(test_libzip_members)
{
    uint8_t big[70000];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (uint8_t)(i * 7 % 251);
    LzMember m[] = {
        {"archive/data.pkl", TEXT, sizeof TEXT - 1, false},
        {"archive/data/0", big, sizeof big, true},
        {"archive/empty", "", 0, false},
        {"archive/text.txt", TEXT, sizeof TEXT - 1, true},
    };
    size_t len;
    char *bytes = libzip_build(m, 4, &len);
    char path[64];
    temp_path(path, sizeof path);
    write_whole(path, bytes, len);
    EpError err = {0};
    for (int how = 0; how < 2; how++) {
        ZipArchive *z = how ? zipa_open_file(path, &err) : open_copy(bytes, len, "mem.zip", &err);
        ck_assert_msg(z != NULL, "%s", err.msg);
        ck_assert_str_eq(zipa_label(z), how ? path : "mem.zip");
        ck_assert_int_eq(zipa_count(z), 4);
        ck_assert_str_eq(zipa_name(z, 0), "archive/data.pkl");
        ck_assert_ptr_null(zipa_name(z, 4));
        ck_assert_int_eq(zipa_find(z, "archive/nothing"), -1);
        ck_assert_int_eq(zipa_find(z, "archive"), -1);
        ck_assert(zipa_is_stored(z, 0));
        ck_assert(!zipa_is_stored(z, 1));
        ck_assert(!zipa_is_stored(z, 3));
        for (int i = 0; i < 4; i++)
            check_member(z, m[i].name, m[i].data, m[i].len);
        ck_assert_int_eq(zipa_read(z, 9, &(char *){NULL}, &(size_t){0}, &err), EP_ERR_FORMAT);
        zipa_unref(z);
    }
    unlink(path);
    free(bytes);
}
END_TEST

/* Stored, aligned members are used where they lie: two storages of one
** member share the bytes; they stay valid after the archive is dropped. */
START_TEST(test_zero_copy)
{
    uint8_t w[256];
    for (size_t i = 0; i < sizeof w; i++)
        w[i] = (uint8_t)i;
    HandMember hm[] = {
        {"model/data.pkl", TEXT, sizeof TEXT - 1, 0, 0},
        {"model/data/0", w, sizeof w, 0, 0},
        {"model/data/1", w, 13, 0, 0},
    };
    size_t len;
    char *bytes = hand_zip(hm, 3, 64, false, &len);
    char path[64];
    temp_path(path, sizeof path);
    write_whole(path, bytes, len);
    EpError err = {0};
    ZipArchive *z = zipa_open_file(path, &err);
    ck_assert_msg(z != NULL, "%s", err.msg);
    int i = zipa_find(z, "model/data/0");
    Storage *a = zipa_storage(z, i, 64, &err), *b = zipa_storage(z, i, 8, &err);
    ck_assert(a && b);
    ck_assert_ptr_eq(a->data, b->data);
    ck_assert_uint_eq((uintptr_t)a->data % 64, 0);
    ck_assert(a->readonly);
    ck_assert_uint_eq(a->nbytes, sizeof w);
    Storage *c = zipa_storage(z, zipa_find(z, "model/data/1"), 4, &err);
    ck_assert(c && c->readonly && c->nbytes == 13);
    zipa_unref(z);
    ck_assert(memcmp(a->data, w, sizeof w) == 0);
    ck_assert(memcmp(c->data, w, 13) == 0);
    storage_unref(a);
    storage_unref(b);
    storage_unref(c);
    free(bytes);

    /* deflated, or stored but misaligned: a private copy each time */
    LzMember m[] = {{"a", w, sizeof w, false}, {"bb", w, sizeof w, true}};
    bytes = libzip_build(m, 2, &len);
    write_whole(path, bytes, len);
    z = zipa_open_file(path, &err);
    ck_assert_msg(z != NULL, "%s", err.msg);
    for (int k = 0; k < 2; k++) {
        a = zipa_storage(z, k, 64, &err);
        b = zipa_storage(z, k, 64, &err);
        ck_assert(a && b);
        ck_assert_ptr_ne(a->data, b->data);
        ck_assert(!a->readonly);
        ck_assert(memcmp(a->data, w, sizeof w) == 0 && memcmp(b->data, w, sizeof w) == 0);
        storage_unref(a);
        storage_unref(b);
    }
    /* "a" starts at byte 31: in place for byte alignment */
    a = zipa_storage(z, 0, 1, &err);
    b = zipa_storage(z, 0, 0, &err);
    ck_assert(a && b && a->data == b->data && a->readonly);
    storage_unref(a);
    storage_unref(b);
    ck_assert_ptr_null(zipa_storage(z, 7, 1, &err));
    zipa_unref(z);
    unlink(path);
    free(bytes);
}
END_TEST

/* An archive stored inside another is read from the parent's bytes. */
START_TEST(test_nested)
{
    uint8_t w[128];
    for (size_t i = 0; i < sizeof w; i++)
        w[i] = (uint8_t)(255 - i);
    HandMember inner_m[] = {{"archive/data.pkl", TEXT, sizeof TEXT - 1, 0, 0}, {"archive/data/0", w, sizeof w, 0, 0}};
    size_t inner_len, len;
    char *inner = hand_zip(inner_m, 2, 64, false, &inner_len);
    HandMember outer_m[] = {{"serialized_state_dict.pt", inner, inner_len, 0, 0}, {"version", "2", 1, 0, 0}};
    char *outer_bytes = hand_zip(outer_m, 2, 64, false, &len);
    EpError err = {0};
    ZipArchive *outer = open_copy(outer_bytes, len, "model.pt2", &err);
    ck_assert_msg(outer != NULL, "%s", err.msg);
    ZipArchive *z = zipa_open_nested(outer, "serialized_state_dict.pt", &err);
    ck_assert_msg(z != NULL, "%s", err.msg);
    ck_assert_str_eq(zipa_label(z), "model.pt2:serialized_state_dict.pt");
    Storage *whole = zipa_storage(outer, 0, 1, &err);
    Storage *s = zipa_storage(z, zipa_find(z, "archive/data/0"), 4, &err);
    ck_assert(whole && s);
    ck_assert(s->readonly);
    /* the inner record lies inside the outer member's bytes */
    ck_assert((char *)s->data >= (char *)whole->data &&
              (char *)s->data + s->nbytes <= (char *)whole->data + whole->nbytes);
    storage_unref(whole);
    zipa_unref(outer); /* the nested archive keeps it alive */
    check_member(z, "archive/data.pkl", TEXT, sizeof TEXT - 1);
    ck_assert(memcmp(s->data, w, sizeof w) == 0);
    zipa_unref(z);
    ck_assert(memcmp(s->data, w, sizeof w) == 0);
    storage_unref(s);
    free(outer_bytes);

    /* deflated: inflated once into memory */
    LzMember lm[] = {{"inner.pt", inner, inner_len, true}, {"notzip", TEXT, 10, false}};
    outer_bytes = libzip_build(lm, 2, &len);
    outer = open_copy(outer_bytes, len, "legacy.pt2", &err);
    ck_assert(outer != NULL);
    z = zipa_open_nested(outer, "inner.pt", &err);
    ck_assert_msg(z != NULL, "%s", err.msg);
    zipa_unref(outer);
    s = zipa_storage(z, 1, 4, &err);
    ck_assert(s && memcmp(s->data, w, sizeof w) == 0);
    storage_unref(s);
    zipa_unref(z);
    outer = open_copy(outer_bytes, len, "legacy.pt2", &err);
    ck_assert_ptr_null(zipa_open_nested(outer, "notzip", &err));
    ck_assert_str_eq(err.msg, "legacy.pt2:notzip: not a zip archive (no end-of-central-directory record)");
    ck_assert_ptr_null(zipa_open_nested(outer, "missing", &err));
    ck_assert_str_eq(err.msg, "legacy.pt2: no member missing");
    zipa_unref(outer);
    free(outer_bytes);
    free(inner);
}
END_TEST

START_TEST(test_zip64)
{
    uint8_t w[100];
    for (size_t i = 0; i < sizeof w; i++)
        w[i] = (uint8_t)(i * 3);
    HandMember hm[] = {{"big/data.pkl", TEXT, sizeof TEXT - 1, 0, 0}, {"big/data/0", w, sizeof w, 0, 0}};
    size_t len;
    char *bytes = hand_zip(hm, 2, 64, true, &len);
    EpError err = {0};
    ZipArchive *z = open_copy(bytes, len, "z64.zip", &err);
    ck_assert_msg(z != NULL, "%s", err.msg);
    ck_assert_int_eq(zipa_count(z), 2);
    check_member(z, "big/data.pkl", TEXT, sizeof TEXT - 1);
    check_member(z, "big/data/0", w, sizeof w);
    Storage *a = zipa_storage(z, 1, 16, &err), *b = zipa_storage(z, 1, 16, &err); /* malloc: 16-aligned */
    ck_assert(a && b && a->data == b->data && memcmp(a->data, w, sizeof w) == 0);
    storage_unref(a);
    storage_unref(b);
    zipa_unref(z);
    free(bytes);
}
END_TEST

START_TEST(test_truncated)
{
    LzMember m[] = {{"archive/data.pkl", TEXT, sizeof TEXT - 1, false}, {"archive/x", TEXT, 40, true}};
    size_t len;
    char *bytes = libzip_build(m, 2, &len);
    for (size_t cut = 0; cut < len; cut++) {
        EpError err = {0};
        ZipArchive *z = open_copy(bytes, cut, "cut.pt2", &err);
        ck_assert_msg(z == NULL, "cut at %zu opened", cut);
        ck_assert_int_eq(err.code, EP_ERR_FORMAT);
        const char *want = cut == 0  ? "cut.pt2: not a zip archive (empty file)"
                           : cut < 4 ? "cut.pt2: not a zip archive"
                                     : "cut.pt2: truncated";
        ck_assert_msg(strncmp(err.msg, want, strlen(want)) == 0, "cut %zu: %s", cut, err.msg);
    }
    free(bytes);
}
END_TEST

START_TEST(test_not_zip)
{
    EpError err = {0};
    char buf[5000];
    uint32_t x = 12345;
    for (size_t n = 1; n < sizeof buf; n = n * 3 + 1) {
        for (size_t i = 0; i < n; i++)
            buf[i] = (char)((x = x * 1103515245u + 12345u) >> 16);
        ck_assert_ptr_null(open_copy(buf, n, "junk.bin", &err));
        ck_assert_msg(strstr(err.msg, "junk.bin: not a zip archive") == err.msg, "%s", err.msg);
    }
    /* an end record that points anywhere */
    memset(buf, 'x', 100);
    memcpy(buf + 78, "PK\x05\x06\0\0\0\0\x01\0\x01\0\xff\xff\0\0\x10\0\0\0\0\0", 22);
    ck_assert_ptr_null(open_copy(buf, 100, "junk.bin", &err));
    ck_assert_msg(strstr(err.msg, "central directory"), "%s", err.msg);
    ck_assert_ptr_null(zipa_open_file("/nonexistent/model.pt2", &err));
    ck_assert_str_eq(err.msg, "/nonexistent/model.pt2: cannot open (No such file or directory)");
    ck_assert_ptr_null(zipa_open_file("/tmp", &err));
    ck_assert_str_eq(err.msg, "/tmp: is a directory, not a regular file");
    char path[64];
    temp_path(path, sizeof path);
    ck_assert_ptr_null(zipa_open_file(path, &err));
    ck_assert_msg(strstr(err.msg, "not a zip archive (empty file)"), "%s", err.msg);
    unlink(path);
    ck_assert_ptr_null(zipa_open_memory(NULL, 0, "null", &err));
}
END_TEST

static size_t find_sig(const char *b, size_t len, const char *sig)
{
    for (size_t i = len - 4 + 1; i-- > 0;)
        if (memcmp(b + i, sig, 4) == 0)
            return i;
    return SIZE_MAX;
}

/* Open whatever opens, then use every member: errors are fine, crashes and
** leaks are not. */
static void exercise(const char *bytes, size_t len)
{
    EpError err = {0};
    ZipArchive *z = open_copy(bytes, len, "x.zip", &err);
    if (!z) {
        ck_assert(strncmp(err.msg, "x.zip", 5) == 0);
        return;
    }
    for (int i = 0; i < zipa_count(z); i++) {
        char *d;
        size_t n;
        if (zipa_read(z, i, &d, &n, &err) == EP_OK)
            free(d);
        storage_unref(zipa_storage(z, i, 1, &err));
        zipa_unref(zipa_open_nested(z, zipa_name(z, i), &err));
    }
    zipa_unref(z);
}

START_TEST(test_lying_archives)
{
    LzMember m[] = {{"archive/data.pkl", TEXT, sizeof TEXT - 1, false}, {"archive/x", TEXT, 60, true}};
    size_t len;
    char *bytes = libzip_build(m, 2, &len);
    char *copy = malloc(len);
    size_t cd = find_sig(bytes, len, "PK\x01\x02");
    ck_assert(cd != SIZE_MAX);
    /* central directory points the first member's local header elsewhere */
    static const uint32_t offsets[] = {1, 4, 30, 0x7fffffff, 0xfffffffe};
    for (size_t k = 0; k < EP_ARRAY_LEN(offsets); k++) {
        memcpy(copy, bytes, len);
        for (int b = 0; b < 4; b++)
            copy[cd + 42 + b] = (char)(offsets[k] >> (8 * b));
        EpError err = {0};
        ZipArchive *z = open_copy(copy, len, "liar.pt2", &err);
        if (z) {
            char *d;
            size_t n;
            ck_assert_int_eq(zipa_read(z, 0, &d, &n, &err), EP_ERR_FORMAT);
            ck_assert_ptr_null(zipa_storage(z, 0, 1, &err));
            zipa_unref(z);
        }
        ck_assert_msg(strncmp(err.msg, "liar.pt2: ", 10) == 0, "%s", err.msg);
    }
    /* sizes larger than the archive */
    memcpy(copy, bytes, len);
    memcpy(copy + cd + 20, "\xff\xff\xff\x7f\xff\xff\xff\x7f", 8);
    EpError err = {0};
    ck_assert_ptr_null(open_copy(copy, len, "liar.pt2", &err));
    ck_assert_msg(strstr(err.msg, "outside the archive"), "%s", err.msg);
    /* every byte replaced by a few values */
    static const uint8_t subst[] = {0x00, 0x01, 0x50, 0x7f, 0x80, 0xff};
    for (size_t i = 0; i < len; i++) {
        memcpy(copy, bytes, len);
        for (size_t k = 0; k < EP_ARRAY_LEN(subst); k++) {
            copy[i] = (char)subst[k];
            exercise(copy, len);
        }
    }
    free(copy);
    free(bytes);
}
END_TEST

START_TEST(test_corrupt_members)
{
    LzMember m[] = {{"a/stored", TEXT, sizeof TEXT - 1, false}, {"a/deflated", TEXT, sizeof TEXT - 1, true}};
    size_t len;
    char *bytes = libzip_build(m, 2, &len);
    for (int k = 0; k < 2; k++) {
        /* flip a byte of the member's data (just after its local header) */
        char *copy = malloc(len);
        memcpy(copy, bytes, len);
        EpError err = {0};
        ZipArchive *z = open_copy(copy, len, "c.pt2", &err);
        ck_assert(z != NULL);
        zipa_unref(z);
        size_t lh = 0;
        for (int seen = -1; seen < k; lh++)
            if (memcmp(copy + lh, "PK\x03\x04", 4) == 0 && ++seen == k)
                break;
        size_t data = lh + 30 + (uint8_t)copy[lh + 26] + (uint8_t)copy[lh + 28];
        copy[data + 3] ^= 0x55;
        z = open_copy(copy, len, "c.pt2", &err);
        ck_assert_msg(z != NULL, "%s", err.msg);
        char *d = NULL;
        size_t n;
        ck_assert_int_eq(zipa_read(z, k, &d, &n, &err), EP_ERR_FORMAT);
        char want[64];
        snprintf(want, sizeof want, "c.pt2: member %s is corrupt", m[k].name);
        ck_assert_msg(strncmp(err.msg, want, strlen(want)) == 0, "%s", err.msg);
        /* in-place bytes are not CRC-checked (as torch.load(mmap=True)); copies are */
        Storage *s = zipa_storage(z, k, 1, &err);
        ck_assert(k == 0 ? s != NULL : s == NULL);
        storage_unref(s);
        zipa_unref(z);
        free(copy);
    }
    free(bytes);
    /* a deflated member claiming a size deflate cannot reach */
    HandMember bomb[] = {{"bomb", "0123456789abcdef", 16, 8, 0xf0000000u}};
    bytes = hand_zip(bomb, 1, 1, false, &len);
    EpError err = {0};
    ZipArchive *z = open_copy(bytes, len, "bomb.zip", &err);
    if (z) {
        char *d;
        size_t n;
        ck_assert_int_eq(zipa_read(z, 0, &d, &n, &err), EP_ERR_FORMAT);
        ck_assert_msg(strstr(err.msg, "cannot give"), "%s", err.msg);
        ck_assert_ptr_null(zipa_storage(z, 0, 1, &err));
        zipa_unref(z);
    }
    free(bytes);
    /* a ratio deflate can reach but no real archive does: a bomb, refused
    ** before inflating, unless EPDBG_ZIP_MAX_RATIO allows it */
    static char deflated[4096]; /* 4096 bytes declaring 2,048,000: 500:1 */
    HandMember likely[] = {{"data/weights/w", deflated, sizeof deflated, 8, 4096u * 500u}};
    bytes = hand_zip(likely, 1, 1, false, &len);
    z = open_copy(bytes, len, "likely.zip", &err);
    ck_assert_msg(z != NULL, "%s", err.msg);
    char *d;
    size_t n;
    ck_assert_int_eq(zipa_read(z, 0, &d, &n, &err), EP_ERR_FORMAT);
    ck_assert_str_eq(err.msg, "likely.zip: member data/weights/w would inflate 4096 bytes to 2048000 (500:1, "
                              "above the limit of 200:1): a zip bomb, or deflated data that is mostly zeros; store "
                              "the members uncompressed (as torch.export.save does) or set EPDBG_ZIP_MAX_RATIO");
    ck_assert_ptr_null(zipa_storage(z, 0, 1, &err));
    zipa_unref(z);
    free(bytes);
}
END_TEST

/* Little-endian stores for the hand-written ZIP64 records. */
static void put16(FILE *f, uint16_t v) { fputc(v & 255, f), fputc(v >> 8, f); }
static void put32(FILE *f, uint32_t v) { put16(f, (uint16_t)(v & 0xffff)), put16(f, (uint16_t)(v >> 16)); }
static void put64(FILE *f, uint64_t v) { put32(f, (uint32_t)v), put32(f, (uint32_t)(v >> 32)); }

/* A stored member of 4 GiB + 16 bytes, its sizes in ZIP64 extra fields and
** the ZIP64 end records -- a sparse file, so it costs no disk.  It opens,
** and its bytes are read in place (no copy, no CRC pass). */
START_TEST(test_zip64_member_over_4gib)
{
    char *dir = test_tmpdir(), path[600];
    snprintf(path, sizeof path, "%s/big.zip", dir);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    const uint64_t size = ((uint64_t)1 << 32) + 16;
    const char name[] = "big/data/x";
    uint16_t nl = sizeof name - 1;
    put32(f, 0x04034b50), put16(f, 45), put16(f, 0), put16(f, 0), put16(f, 0), put16(f, 0);
    put32(f, 0), put32(f, 0xffffffffu), put32(f, 0xffffffffu), put16(f, nl), put16(f, 20);
    fwrite(name, 1, nl, f);
    put16(f, 1), put16(f, 16), put64(f, size), put64(f, size);
    ck_assert_int_eq(fseeko(f, (off_t)size, SEEK_CUR), 0); /* the data: a hole of zeros */
    uint64_t cd = (uint64_t)ftello(f);
    put32(f, 0x02014b50), put16(f, 45), put16(f, 45), put16(f, 0), put16(f, 0), put16(f, 0), put16(f, 0);
    put32(f, 0), put32(f, 0xffffffffu), put32(f, 0xffffffffu), put16(f, nl), put16(f, 20), put16(f, 0);
    put16(f, 0), put16(f, 0), put32(f, 0), put32(f, 0);
    fwrite(name, 1, nl, f);
    put16(f, 1), put16(f, 16), put64(f, size), put64(f, size);
    uint64_t cd_end = (uint64_t)ftello(f);
    put32(f, 0x06064b50), put64(f, 44), put16(f, 45), put16(f, 45), put32(f, 0), put32(f, 0);
    put64(f, 1), put64(f, 1), put64(f, cd_end - cd), put64(f, cd);
    put32(f, 0x07064b50), put32(f, 0), put64(f, cd_end), put32(f, 1);
    put32(f, 0x06054b50), put16(f, 0), put16(f, 0), put16(f, 1), put16(f, 1);
    put32(f, (uint32_t)(cd_end - cd)), put32(f, 0xffffffffu), put16(f, 0);
    ck_assert_int_eq(fclose(f), 0);
    EpError err = {0};
    ZipArchive *z = zipa_open_file(path, &err);
    ck_assert_msg(z != NULL, "%s", err.msg);
    ck_assert_int_eq(zipa_count(z), 1);
    Storage *st = zipa_storage(z, 0, 1, &err);
    ck_assert_msg(st != NULL, "%s", err.msg);
    ck_assert_uint_eq(st->nbytes, size);
    ck_assert_int_eq(((const unsigned char *)st->data)[size - 1], 0);
    storage_unref(st);
    zipa_unref(z);
    unlink(path);
    rmdir(dir);
    free(dir);
}
END_TEST

/* Every corpus archive (Python zipfile and PyTorch's miniz writer): members
** read through libzip equal the in-place bytes found from local headers. */
START_TEST(test_corpus_zips_read)
{
    const char *dir = test_corpus_dir();
    if (!dir) {
        /* no corpus: the corpus suite reports it, once */
        return;
    }
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int archives = 0, in_place = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t nl = strlen(e->d_name);
        if (nl < 4 || (strcmp(e->d_name + nl - 4, ".pt2") && strcmp(e->d_name + nl - 4, ".pth")))
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        EpError err = {0};
        ZipArchive *z = zipa_open_file(path, &err);
        ck_assert_msg(z != NULL, "%s", err.msg);
        archives++;
        for (int i = 0; i < zipa_count(z); i++) {
            if (zipa_size(z, i) > (8 << 20))
                continue;
            char *data;
            size_t n;
            ck_assert_msg(zipa_read(z, i, &data, &n, &err) == EP_OK, "%s", err.msg);
            Storage *s = zipa_storage(z, i, 1, &err);
            ck_assert_msg(s != NULL, "%s", err.msg);
            ck_assert(s->nbytes == n && memcmp(s->data, data, n) == 0);
            in_place += zipa_is_stored(z, i) && s->readonly;
            storage_unref(s);
            free(data);
        }
        zipa_unref(z);
    }
    closedir(d);
    ck_assert_int_ge(archives, 50);
    ck_assert_int_gt(in_place, 500);
}
END_TEST

Suite *suite_zip(void)
{
    Suite *s = suite_create("zip");
    TCase *tc = tcase_create("zipread");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_libzip_members);
    tcase_add_test(tc, test_zero_copy);
    tcase_add_test(tc, test_nested);
    tcase_add_test(tc, test_zip64);
    tcase_add_test(tc, test_truncated);
    tcase_add_test(tc, test_not_zip);
    tcase_add_test(tc, test_lying_archives);
    tcase_add_test(tc, test_corrupt_members);
    tcase_add_test(tc, test_corpus_zips_read);
    tcase_add_test(tc, test_zip64_member_over_4gib);
    suite_add_tcase(s, tc);
    return s;
}
