/*
** npy.c -- .npy/.npz reading and writing (npz through libzip).
**
** .npy layout: "\x93NUMPY", major, minor, header length (uint16 LE for 1.x,
** uint32 LE for 2.x/3.x), then a Python dict literal
**   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
** padded with spaces and a final newline, then the raw data.
*/
#include "npy.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

/* ---- files --------------------------------------------------------------- */

EpStatus read_file(const char *path, char **data, size_t *len, EpError *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return ep_fail(err, EP_ERR_FORMAT, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return ep_fail(err, EP_ERR_FORMAT, "%s: not a regular file", path);
    }
    size_t n = (size_t)st.st_size;
    char *buf = malloc(n + 1);
    if (!buf) {
        fclose(f);
        return ep_fail(err, EP_ERR_FORMAT, "%s: out of memory reading %zu bytes", path, n);
    }
    if (n && fread(buf, 1, n, f) != n) {
        free(buf);
        fclose(f);
        return ep_fail(err, EP_ERR_FORMAT, "%s: read error", path);
    }
    fclose(f);
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return EP_OK;
}

EpStatus write_file_atomic(const char *path, const void *data, size_t len, EpError *err)
{
    char *tmp = ep_xasprintf("%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        EpStatus rc = ep_fail(err, EP_ERR_FORMAT, "%s: cannot create: %s", path, strerror(errno));
        free(tmp);
        return rc;
    }
    bool ok = (len == 0 || fwrite(data, 1, len, f) == len);
    ok = (fflush(f) == 0) && ok;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        EpStatus rc = ep_fail(err, EP_ERR_FORMAT, "%s: cannot write: %s", path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return rc;
    }
    free(tmp);
    return EP_OK;
}

/* ---- header parsing ------------------------------------------------------- */

typedef struct NpyHeader {
    DType dtype;
    bool swap;      /* big-endian data */
    bool fortran;
    int ndim;
    int64_t shape[EP_MAX_DIMS];
} NpyHeader;

static const char *skip_space(const char *p, const char *end)
{
    while (p < end && isspace((unsigned char)*p))
        p++;
    return p;
}

/* A quoted string at p into buf; returns the position after it or NULL. */
static const char *parse_quoted(const char *p, const char *end, char *buf, size_t cap)
{
    if (p >= end || (*p != '\'' && *p != '"'))
        return NULL;
    char q = *p++;
    size_t n = 0;
    while (p < end && *p != q) {
        if (n + 1 < cap)
            buf[n++] = *p;
        p++;
    }
    if (p >= end)
        return NULL;
    buf[n] = '\0';
    return p + 1;
}

static EpStatus dtype_from_descr(const char *descr, NpyHeader *h, const char *label, EpError *err)
{
    char order = descr[0];
    const char *code = descr + 1;
    if (order != '<' && order != '>' && order != '|' && order != '=') {
        order = '=';
        code = descr;
    }
    static const struct { const char *code; DType t; } codes[] = {
        {"b1", DT_BOOL}, {"?", DT_BOOL}, {"u1", DT_U8}, {"i1", DT_I8}, {"i2", DT_I16},
        {"i4", DT_I32}, {"i8", DT_I64}, {"f2", DT_F16}, {"f4", DT_F32}, {"f8", DT_F64},
    };
    for (size_t i = 0; i < EP_ARRAY_LEN(codes); i++)
        if (strcmp(codes[i].code, code) == 0) {
            h->dtype = codes[i].t;
            h->swap = order == '>' && dtype_size(h->dtype) > 1;
            return EP_OK;
        }
    return ep_fail(err, EP_ERR_FORMAT,
                   "%s: header: dtype '%s' is not supported (bool, uint8, int8/16/32/64, float16/32/64)",
                   label, descr);
}

static EpStatus parse_header(const char *p, const char *end, NpyHeader *h, const char *label, EpError *err)
{
    bool have_descr = false, have_shape = false;
    h->fortran = false;
    p = skip_space(p, end);
    if (p >= end || *p != '{')
        return ep_fail(err, EP_ERR_FORMAT, "%s: header: expected a dict", label);
    p++;
    for (;;) {
        p = skip_space(p, end);
        if (p < end && *p == '}')
            break;
        char key[32];
        p = parse_quoted(p, end, key, sizeof key);
        if (!p)
            return ep_fail(err, EP_ERR_FORMAT, "%s: header: expected a quoted key", label);
        p = skip_space(p, end);
        if (p >= end || *p != ':')
            return ep_fail(err, EP_ERR_FORMAT, "%s: header: expected ':' after '%s'", label, key);
        p = skip_space(p + 1, end);
        if (strcmp(key, "descr") == 0) {
            char descr[32];
            p = parse_quoted(p, end, descr, sizeof descr);
            if (!p)
                return ep_fail(err, EP_ERR_FORMAT, "%s: header: 'descr' is not a simple type string", label);
            EpStatus rc = dtype_from_descr(descr, h, label, err);
            if (rc)
                return rc;
            have_descr = true;
        } else if (strcmp(key, "fortran_order") == 0) {
            if (end - p >= 4 && strncmp(p, "True", 4) == 0) {
                h->fortran = true;
                p += 4;
            } else if (end - p >= 5 && strncmp(p, "False", 5) == 0) {
                p += 5;
            } else {
                return ep_fail(err, EP_ERR_FORMAT, "%s: header: bad 'fortran_order'", label);
            }
        } else if (strcmp(key, "shape") == 0) {
            if (p >= end || *p != '(')
                return ep_fail(err, EP_ERR_FORMAT, "%s: header: 'shape' is not a tuple", label);
            p++;
            h->ndim = 0;
            for (;;) {
                p = skip_space(p, end);
                if (p < end && *p == ')') {
                    p++;
                    break;
                }
                if (p >= end || !isdigit((unsigned char)*p))
                    return ep_fail(err, EP_ERR_FORMAT, "%s: header: bad 'shape'", label);
                if (h->ndim == EP_MAX_DIMS)
                    return ep_fail(err, EP_ERR_FORMAT, "%s: header: more than %d dimensions", label, EP_MAX_DIMS);
                /* digits read up to end, never past it: the header is
                ** not NUL-terminated (strtoll would read on) */
                int64_t v = 0;
                for (; p < end && isdigit((unsigned char)*p); p++)
                    if (!ep_mul_i64(v, 10, &v) || !ep_add_i64(v, *p - '0', &v))
                        return ep_fail(err, EP_ERR_FORMAT, "%s: header: dimension too large in 'shape'", label);
                h->shape[h->ndim++] = v;
                p = skip_space(p, end);
                if (p < end && *p == ',')
                    p++;
                else if (p >= end || *p != ')')
                    return ep_fail(err, EP_ERR_FORMAT, "%s: header: bad 'shape'", label);
            }
            have_shape = true;
        } else {
            return ep_fail(err, EP_ERR_FORMAT, "%s: header: unexpected key '%s'", label, key);
        }
        p = skip_space(p, end);
        if (p < end && *p == ',')
            p++;
        else if (p < end && *p == '}')
            break;
        else
            return ep_fail(err, EP_ERR_FORMAT, "%s: header: expected ',' or '}'", label);
    }
    if (!have_descr || !have_shape)
        return ep_fail(err, EP_ERR_FORMAT, "%s: header: missing '%s'", label, have_descr ? "shape" : "descr");
    /* byte strides multiply the non-empty sizes even when another is 0:
    ** they must fit int64 */
    int64_t span = dtype_size(h->dtype);
    for (int i = 0; i < h->ndim; i++)
        if (!ep_mul_i64(span, h->shape[i] > 1 ? h->shape[i] : 1, &span))
            return ep_fail(err, EP_ERR_FORMAT, "%s: header: 'shape' too large", label);
    return EP_OK;
}

static void byteswap(void *data, int64_t n, int size)
{
    unsigned char *p = data;
    for (int64_t i = 0; i < n; i++, p += size)
        for (int a = 0, b = size - 1; a < b; a++, b--) {
            unsigned char t = p[a];
            p[a] = p[b];
            p[b] = t;
        }
}

Tensor *npy_load_mem(const void *data, size_t len, const char *label, EpError *err)
{
    const unsigned char *b = data;
    if (len < 10 || memcmp(b, "\x93NUMPY", 6) != 0) {
        ep_fail(err, EP_ERR_FORMAT, "%s: not a .npy file (bad magic)", label);
        return NULL;
    }
    int major = b[6];
    size_t hlen, start;
    if (major == 1) {
        hlen = (size_t)b[8] | ((size_t)b[9] << 8);
        start = 10;
    } else if (major == 2 || major == 3) {
        if (len < 12) {
            ep_fail(err, EP_ERR_FORMAT, "%s: truncated header", label);
            return NULL;
        }
        hlen = (size_t)b[8] | ((size_t)b[9] << 8) | ((size_t)b[10] << 16) | ((size_t)b[11] << 24);
        start = 12;
    } else {
        ep_fail(err, EP_ERR_FORMAT, "%s: unsupported .npy version %d.%d", label, major, b[7]);
        return NULL;
    }
    if (hlen > len - start) {
        ep_fail(err, EP_ERR_FORMAT, "%s: truncated header (%zu bytes announced, %zu present)", label, hlen,
                len - start);
        return NULL;
    }
    NpyHeader h;
    const char *hp = (const char *)b + start;
    if (parse_header(hp, hp + hlen, &h, label, err))
        return NULL;
    Tensor *t = tensor_empty(h.dtype, h.ndim, h.shape, err);
    if (!t) {
        ep_error_prefix(err, "%s", label);
        if (err)
            err->code = EP_ERR_FORMAT;
        return NULL;
    }
    size_t need = tensor_nbytes(t);
    size_t have = len - start - hlen;
    if (have < need) {
        ep_fail(err, EP_ERR_FORMAT, "%s: truncated data (%zu bytes for %s of %lld elements, %zu present)", label,
                need, dtype_name(h.dtype), (long long)tensor_numel(t), have);
        tensor_unref(t);
        return NULL;
    }
    memcpy(tensor_data(t), b + start + hlen, need);
    if (h.swap)
        byteswap(tensor_data(t), tensor_numel(t), dtype_size(h.dtype));
    if (h.fortran && h.ndim > 1) {
        /* column-major data: describe it with reversed strides */
        int64_t st = 1;
        for (int i = 0; i < h.ndim; i++) {
            t->strides[i] = st;
            st *= h.shape[i] > 1 ? h.shape[i] : 1;
        }
        Tensor *c = tensor_contiguous(t, err);
        tensor_unref(t);
        return c;
    }
    return t;
}

Tensor *npy_load_file(const char *path, EpError *err)
{
    char *data;
    size_t len;
    if (read_file(path, &data, &len, err))
        return NULL;
    Tensor *t = npy_load_mem(data, len, path, err);
    free(data);
    return t;
}

/* ---- writing -------------------------------------------------------------- */

EpStatus npy_encode(const Tensor *t, char **out, size_t *len, EpError *err)
{
    DType dt = t->dtype == DT_BF16 ? DT_F32 : t->dtype;
    Tensor *c = tensor_to_dtype(t, dt, err);
    if (!c)
        return err ? err->code : EP_ERR_EXEC;
    char dict[1024];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (", DTYPE_INFO[dt].npy_descr);
    /* Python's tuple repr, as numpy writes it: (), (5,), (2, 3) */
    for (int i = 0; i < t->ndim; i++)
        n += snprintf(dict + n, sizeof dict - (size_t)n, "%s%lld", i ? ", " : "", (long long)t->sizes[i]);
    n += snprintf(dict + n, sizeof dict - (size_t)n, "%s), }", t->ndim == 1 ? "," : "");
    /* pad so that magic(6)+version(2)+len(2)+header is a multiple of 64 */
    size_t total = 10 + (size_t)n + 1;
    size_t padded = (total + 63) / 64 * 64;
    size_t hlen = padded - 10;
    size_t nbytes = tensor_nbytes(c);
    char *buf = malloc(padded + nbytes);
    if (!buf) {
        tensor_unref(c);
        return ep_fail(err, EP_ERR_EXEC, "out of memory encoding a .npy of %zu bytes", nbytes);
    }
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (char)(hlen & 0xff);
    buf[9] = (char)(hlen >> 8);
    memcpy(buf + 10, dict, (size_t)n);
    memset(buf + 10 + n, ' ', hlen - (size_t)n - 1);
    buf[padded - 1] = '\n';
    if (nbytes)
        memcpy(buf + padded, tensor_data(c), nbytes);
    tensor_unref(c);
    *out = buf;
    *len = padded + nbytes;
    return EP_OK;
}

EpStatus npy_save_file(const char *path, const Tensor *t, EpError *err)
{
    char *buf;
    size_t len;
    EpStatus rc = npy_encode(t, &buf, &len, err);
    if (rc)
        return rc;
    rc = write_file_atomic(path, buf, len, err);
    free(buf);
    return rc;
}

/* ---- npz ------------------------------------------------------------------- */

void npz_free(NpzArchive *a)
{
    for (int i = 0; i < a->n; i++) {
        free(a->entries[i].name);
        tensor_unref(a->entries[i].t);
    }
    free(a->entries);
    a->entries = NULL;
    a->n = 0;
}

/* Deflate never expands more than this (RFC 1951: a 258-byte match costs
** at least 2 bits), so a member declaring more is lying or a bomb. */
#define DEFLATE_MAX_RATIO 1032

/* A member's declared size must be one its compressed bytes can produce:
** it is allocated before anything is inflated.  numpy writes members
** stored or deflated; nothing else is read. */
static EpStatus check_member_size(const char *path, zip_uint64_t file_size, const zip_stat_t *st, EpError *err)
{
    if (!(st->valid & ZIP_STAT_COMP_SIZE) || !(st->valid & ZIP_STAT_COMP_METHOD))
        return ep_fail(err, EP_ERR_FORMAT, "%s: member %s: cannot stat", path, st->name);
    if (st->comp_size > file_size)
        return ep_fail(err, EP_ERR_FORMAT, "%s: member %s: declares %llu compressed bytes, more than the file holds",
                       path, st->name, (unsigned long long)st->comp_size);
    if (st->comp_method == ZIP_CM_STORE && st->comp_size != st->size)
        return ep_fail(err, EP_ERR_FORMAT, "%s: member %s: stored with %llu bytes but declares %llu", path, st->name,
                       (unsigned long long)st->comp_size, (unsigned long long)st->size);
    if (st->comp_method == ZIP_CM_DEFLATE && st->size / DEFLATE_MAX_RATIO > st->comp_size)
        return ep_fail(err, EP_ERR_FORMAT,
                       "%s: member %s: declares %llu bytes from %llu compressed, more than deflate can produce", path,
                       st->name, (unsigned long long)st->size, (unsigned long long)st->comp_size);
    if (st->comp_method != ZIP_CM_STORE && st->comp_method != ZIP_CM_DEFLATE)
        return ep_fail(err, EP_ERR_FORMAT, "%s: member %s: compression method %d is not supported (stored or deflated)",
                       path, st->name, (int)st->comp_method);
    return EP_OK;
}

EpStatus npz_load(const char *path, NpzArchive *out, EpError *err)
{
    out->n = 0;
    out->entries = NULL;
    int zerr = 0;
    zip_t *z = zip_open(path, ZIP_RDONLY, &zerr);
    if (!z) {
        zip_error_t ze;
        zip_error_init_with_code(&ze, zerr);
        EpStatus rc = ep_fail(err, EP_ERR_FORMAT, "%s: not a readable .npz (zip) file: %s", path, zip_error_strerror(&ze));
        zip_error_fini(&ze);
        return rc;
    }
    zip_int64_t count = zip_get_num_entries(z, 0);
    struct stat fst;
    zip_uint64_t file_size = stat(path, &fst) == 0 ? (zip_uint64_t)fst.st_size : 0;
    EpStatus rc = EP_OK;
    for (zip_int64_t i = 0; i < count && rc == EP_OK; i++) {
        zip_stat_t st;
        if (zip_stat_index(z, (zip_uint64_t)i, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE)) {
            rc = ep_fail(err, EP_ERR_FORMAT, "%s: member %lld: cannot stat", path, (long long)i);
            break;
        }
        size_t nlen = strlen(st.name);
        if (nlen == 0 || st.name[nlen - 1] == '/')
            continue;
        if (st.size > ((zip_uint64_t)1 << 40)) {
            rc = ep_fail(err, EP_ERR_FORMAT, "%s: member %s is implausibly large", path, st.name);
            break;
        }
        if ((rc = check_member_size(path, file_size, &st, err)))
            break;
        char *label = ep_xasprintf("%s:%s", path, st.name);
        char *buf = malloc(st.size ? st.size : 1);
        zip_file_t *f = buf ? zip_fopen_index(z, (zip_uint64_t)i, 0) : NULL;
        if (!f || (st.size && zip_fread(f, buf, st.size) != (zip_int64_t)st.size)) {
            rc = ep_fail(err, EP_ERR_FORMAT, "%s: cannot read member (corrupt or truncated)", label);
        } else {
            Tensor *t = npy_load_mem(buf, st.size, label, err);
            if (!t) {
                rc = EP_ERR_FORMAT;
            } else {
                size_t base = nlen > 4 && strcmp(st.name + nlen - 4, ".npy") == 0 ? nlen - 4 : nlen;
                out->entries = ep_xrealloc(out->entries, (size_t)(out->n + 1) * sizeof *out->entries);
                out->entries[out->n].name = ep_xstrndup(st.name, base);
                out->entries[out->n].t = t;
                out->n++;
            }
        }
        if (f)
            zip_fclose(f);
        free(buf);
        free(label);
    }
    zip_discard(z);
    if (rc)
        npz_free(out);
    return rc;
}

EpStatus npz_save(const char *path, const NpzEntry *entries, int n, EpError *err)
{
    char *tmp = ep_xasprintf("%s.tmp.%ld", path, (long)getpid());
    int zerr = 0;
    zip_t *z = zip_open(tmp, ZIP_CREATE | ZIP_TRUNCATE, &zerr);
    if (!z) {
        free(tmp);
        return ep_fail(err, EP_ERR_FORMAT, "%s: cannot create", path);
    }
    EpStatus rc = EP_OK;
    for (int i = 0; i < n && rc == EP_OK; i++) {
        char *buf;
        size_t len;
        rc = npy_encode(entries[i].t, &buf, &len, err);
        if (rc)
            break;
        zip_source_t *src = zip_source_buffer(z, buf, len, 1); /* libzip frees buf */
        char *member = ep_xasprintf("%s.npy", entries[i].name);
        zip_int64_t idx = src ? zip_file_add(z, member, src, ZIP_FL_OVERWRITE | ZIP_FL_ENC_UTF_8) : -1;
        if (idx < 0) {
            if (src)
                zip_source_free(src);
            else
                free(buf);
            rc = ep_fail(err, EP_ERR_FORMAT, "%s: cannot add %s: %s", path, member, zip_strerror(z));
        } else {
            zip_set_file_compression(z, (zip_uint64_t)idx, ZIP_CM_STORE, 0);
        }
        free(member);
    }
    if (rc == EP_OK && zip_close(z) != 0) {
        rc = ep_fail(err, EP_ERR_FORMAT, "%s: cannot write: %s", path, zip_strerror(z));
        zip_discard(z);
    } else if (rc != EP_OK) {
        zip_discard(z);
    }
    if (rc == EP_OK && rename(tmp, path) != 0)
        rc = ep_fail(err, EP_ERR_FORMAT, "%s: cannot write: %s", path, strerror(errno));
    if (rc != EP_OK)
        unlink(tmp);
    free(tmp);
    return rc;
}
