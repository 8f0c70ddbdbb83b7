/*
** malformed_make.c -- the makers of malformed_make.h.  Archives are read
** with the project's zip reader and written back with its zip writer
** (stored members, as PyTorch writes them), so only the mutation differs
** from the base.
*/
#include "malformed_make.h"

#include <check.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/zipread.h"
#include "interp/zipwrite.h"

typedef struct Bytes {
    char *data;
    size_t len;
} Bytes;

/* An edit of one member's bytes: replace *b (freeing the old), or set
** b->data NULL to drop the member. */
typedef void (*Edit)(Bytes *b, const MakeArgs *a);

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0 && (n == k || s[n - k - 1] == '/');
}

/* Copy the zip in (len bytes) member by member, editing the member named
** a->member; the edited member must exist. */
static Bytes rezip(void *data, size_t len, const char *label, Edit edit, const MakeArgs *a)
{
    EpError err = {0};
    ZipArchive *z = zipa_open_memory(data, len, label, &err);
    ck_assert_msg(z != NULL, "%s: %s", label, err.msg);
    ZipWriter *w = zw_new(64);
    bool found = false;
    for (int i = 0; i < zipa_count(z); i++) {
        Bytes b;
        ck_assert_msg(zipa_read(z, i, &b.data, &b.len, &err) == EP_OK, "%s", err.msg);
        if (ends_with(zipa_name(z, i), a->member) && !found) {
            found = true;
            edit(&b, a);
        }
        if (b.data)
            zw_add(w, zipa_name(z, i), b.data, b.len);
        free(b.data);
    }
    ck_assert_msg(found, "%s has no member %s", label, a->member);
    size_t n;
    const char *bytes = zw_finish(w, &n);
    Bytes out = {ep_xmalloc(n ? n : 1), n};
    memcpy(out.data, bytes, n);
    zw_free(w);
    zipa_unref(z);
    return out;
}

static Bytes read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s: cannot open", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    Bytes b = {ep_xmalloc((size_t)n + 1), (size_t)n};
    ck_assert_int_eq(fread(b.data, 1, b.len, f), b.len);
    fclose(f);
    return b;
}

static void write_file(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "%s: cannot write", path);
    ck_assert_int_eq(fwrite(data, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

static void edit_archive(const char *base, const MakeArgs *a, Edit edit, const char *out)
{
    Bytes in = read_file(base);
    Bytes b = rezip(in.data, in.len, base, edit, a); /* takes in.data */
    write_file(out, b.data, b.len);
    free(b.data);
}

/* ---- edits ---------------------------------------------------------------- */

/* The node at path's last step and its parent (NULL when absent). */
static cJSON *json_walk(cJSON *root, const char *path, cJSON **parent, char *last, size_t cap)
{
    cJSON *cur = root;
    *parent = NULL;
    const char *p = path;
    while (*p) {
        const char *slash = strchr(p, '/');
        size_t n = slash ? (size_t)(slash - p) : strlen(p);
        ck_assert_uint_lt(n, cap);
        memcpy(last, p, n);
        last[n] = '\0';
        *parent = cur;
        if (cJSON_IsArray(cur))
            cur = cJSON_GetArrayItem(cur, atoi(last));
        else
            cur = cJSON_GetObjectItemCaseSensitive(cur, last);
        p += n + (slash != NULL);
        if (!cur && *p)
            ck_abort_msg("JSON path %s: no %s", path, last);
    }
    return cur;
}

static void edit_json_set(Bytes *b, const MakeArgs *a)
{
    cJSON *root = cJSON_ParseWithLength(b->data, b->len);
    ck_assert_msg(root != NULL, "the base JSON does not parse");
    cJSON *parent;
    char last[256];
    cJSON *old = json_walk(root, a->path, &parent, last, sizeof last);
    ck_assert_msg(parent != NULL, "JSON path %s: empty", a->path);
    if (!a->value) {
        ck_assert_msg(old != NULL, "JSON path %s: absent", a->path);
        cJSON_Delete(cJSON_DetachItemViaPointer(parent, old));
    } else {
        cJSON *v = cJSON_Parse(a->value);
        ck_assert_msg(v != NULL, "%s: not JSON", a->value);
        if (cJSON_IsArray(parent) && old)
            cJSON_ReplaceItemViaPointer(parent, old, v);
        else if (cJSON_IsArray(parent))
            cJSON_AddItemToArray(parent, v);
        else if (old) /* keeps the member's key, which v lacks */
            cJSON_ReplaceItemInObjectCaseSensitive(parent, last, v);
        else
            cJSON_AddItemToObject(parent, last, v);
    }
    free(b->data);
    b->data = cJSON_PrintUnformatted(root);
    b->len = strlen(b->data);
    cJSON_Delete(root);
}

static void edit_truncate(Bytes *b, const MakeArgs *a)
{
    ck_assert_uint_lt((size_t)a->off, b->len);
    b->len = (size_t)a->off;
}

static void edit_deep(Bytes *b, const MakeArgs *a)
{
    free(b->data);
    size_t n = (size_t)a->off;
    b->data = ep_xmalloc(2 * n + 1);
    memset(b->data, '[', n);
    memset(b->data + n, ']', n);
    b->len = 2 * n;
}

static void edit_drop(Bytes *b, const MakeArgs *a)
{
    (void)a;
    free(b->data);
    b->data = NULL;
}

static void edit_replace(Bytes *b, const MakeArgs *a)
{
    free(b->data);
    b->data = ep_xmalloc(a->len + 1);
    memcpy(b->data, a->value, a->len);
    b->len = a->len;
}

/* The member is itself a zip: replace its data.pkl. */
static void edit_pickle(Bytes *b, const MakeArgs *a)
{
    MakeArgs inner = {.member = "data.pkl", .value = a->value, .len = a->len};
    *b = rezip(b->data, b->len, a->member, edit_replace, &inner);
}

void mk_json_set(const char *base, const MakeArgs *a, const char *out) { edit_archive(base, a, edit_json_set, out); }
void mk_json_truncate(const char *base, const MakeArgs *a, const char *out) { edit_archive(base, a, edit_truncate, out); }
void mk_json_deep(const char *base, const MakeArgs *a, const char *out) { edit_archive(base, a, edit_deep, out); }
void mk_drop(const char *base, const MakeArgs *a, const char *out) { edit_archive(base, a, edit_drop, out); }
void mk_replace(const char *base, const MakeArgs *a, const char *out) { edit_archive(base, a, edit_replace, out); }
void mk_pickle(const char *base, const MakeArgs *a, const char *out) { edit_archive(base, a, edit_pickle, out); }

/* ---- whole-file mutations ------------------------------------------------- */

void mk_truncate(const char *base, const MakeArgs *a, const char *out)
{
    Bytes b = read_file(base);
    size_t n = a->off >= 0 ? (size_t)a->off : b.len - (size_t)-a->off;
    ck_assert_uint_le(n, b.len);
    write_file(out, b.data, n);
    free(b.data);
}

static uint32_t rd32(const char *p)
{
    const unsigned char *u = (const unsigned char *)p;
    return u[0] | (uint32_t)u[1] << 8 | (uint32_t)u[2] << 16 | (uint32_t)u[3] << 24;
}

/* Offset of the end record (the last signature: stored members may hold
** zips of their own) or of the first central directory header, which the
** end record points at. */
static size_t record_offset(const Bytes *b, const char *which)
{
    if (!which)
        return 0;
    size_t eocd = b->len;
    for (size_t p = b->len - 3; p-- > 0 && eocd == b->len;)
        if (memcmp(b->data + p, "PK\x05\x06", 4) == 0)
            eocd = p;
    ck_assert_msg(eocd < b->len, "no end record");
    if (strcmp(which, "eocd") == 0)
        return eocd;
    size_t cd = rd32(b->data + eocd + 16);
    ck_assert_msg(cd + 4 <= b->len && memcmp(b->data + cd, "PK\x01\x02", 4) == 0, "no central directory");
    return cd;
}

void mk_patch(const char *base, const MakeArgs *a, const char *out)
{
    Bytes b = read_file(base);
    size_t at = record_offset(&b, a->path) + (size_t)a->off;
    ck_assert_uint_le(at + a->len, b.len);
    memcpy(b.data + at, a->value, a->len);
    write_file(out, b.data, b.len);
    free(b.data);
}

void mk_append(const char *base, const MakeArgs *a, const char *out)
{
    Bytes b = read_file(base);
    b.data = ep_xrealloc(b.data, b.len + a->len);
    memcpy(b.data + b.len, a->value, a->len);
    write_file(out, b.data, b.len + a->len);
    free(b.data);
}

void mk_file(const char *base, const MakeArgs *a, const char *out)
{
    (void)base;
    write_file(out, a->value, a->len);
}

void mk_npy(const char *base, const MakeArgs *a, const char *out)
{
    (void)base;
    size_t hlen = strlen(a->path) + 1; /* the header ends with a newline */
    Bytes b = {ep_xmalloc(10 + hlen + a->len), 10 + hlen + a->len};
    memcpy(b.data, "\x93NUMPY\x01\x00", 8);
    b.data[8] = (char)(hlen & 0xff);
    b.data[9] = (char)(hlen >> 8);
    memcpy(b.data + 10, a->path, hlen - 1);
    b.data[10 + hlen - 1] = '\n';
    memcpy(b.data + 10 + hlen, a->value, a->len);
    write_file(out, b.data, b.len);
    free(b.data);
}
