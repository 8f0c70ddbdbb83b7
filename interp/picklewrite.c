/*
** picklewrite.c -- protocol-2 pickles of tensors and containers, and the
** torch.save zip around them.
*/
#include "picklewrite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"
#include "zipwrite.h"

static PwObj *pw_new(PwKind k)
{
    PwObj *o = ep_xcalloc(1, sizeof *o);
    o->kind = k;
    return o;
}

PwObj *pw_none(void) { return pw_new(PW_NONE); }
PwObj *pw_bool(bool b) { PwObj *o = pw_new(PW_BOOL); o->b = b; return o; }
PwObj *pw_int(int64_t i) { PwObj *o = pw_new(PW_INT); o->i = i; return o; }
PwObj *pw_float(double f) { PwObj *o = pw_new(PW_FLOAT); o->f = f; return o; }
PwObj *pw_str(const char *s) { PwObj *o = pw_new(PW_STR); o->s = ep_xstrdup(s); return o; }

PwObj *pw_tensor(Tensor *t, bool is_parameter)
{
    PwObj *o = pw_new(PW_TENSOR);
    o->t = tensor_ref(t);
    o->is_parameter = is_parameter;
    return o;
}

static PwObj *pw_seq(PwKind k, int n, PwObj **items)
{
    PwObj *o = pw_new(k);
    o->n = n;
    o->items = ep_xcalloc((size_t)(n ? n : 1), sizeof *o->items);
    for (int i = 0; i < n; i++)
        o->items[i] = items[i];
    return o;
}

PwObj *pw_tuple(int n, PwObj **items) { return pw_seq(PW_TUPLE, n, items); }
PwObj *pw_list(int n, PwObj **items) { return pw_seq(PW_LIST, n, items); }
PwObj *pw_dict(void) { return pw_seq(PW_DICT, 0, NULL); }

void pw_dict_set(PwObj *d, const char *key, PwObj *value)
{
    d->items = ep_xrealloc(d->items, (size_t)(2 * d->n + 2) * sizeof *d->items);
    d->items[2 * d->n] = pw_str(key);
    d->items[2 * d->n + 1] = value;
    d->n++;
}

void pw_free(PwObj *o)
{
    if (!o)
        return;
    int count = o->kind == PW_DICT ? 2 * o->n : o->n;
    for (int i = 0; i < count; i++)
        pw_free(o->items[i]);
    free(o->items);
    free(o->s);
    tensor_unref(o->t);
    free(o);
}

/* ---- the pickle stream ---------------------------------------------------- */

typedef struct Pickler {
    StrBuf out;
    int memo;               /* next BINPUT index */
    const Storage **storages; /* storage of key i */
    int nstorages;
} Pickler;

static void op(Pickler *p, char c) { sb_appendn(&p->out, &c, 1); }

/* Memoise the object just pushed, as CPython's pickler does. */
static void memoize(Pickler *p)
{
    if (p->memo < 256) {
        char b[2] = {'q', (char)p->memo};
        sb_appendn(&p->out, b, 2);
    } else {
        char b[5] = {'r', (char)p->memo, (char)(p->memo >> 8), (char)(p->memo >> 16), (char)(p->memo >> 24)};
        sb_appendn(&p->out, b, 5);
    }
    p->memo++;
}

static void put_u32(Pickler *p, uint32_t v)
{
    char b[4] = {(char)v, (char)(v >> 8), (char)(v >> 16), (char)(v >> 24)};
    sb_appendn(&p->out, b, 4);
}

static void write_int(Pickler *p, int64_t v)
{
    if (v >= 0 && v < 256) {
        char b[2] = {'K', (char)v};
        sb_appendn(&p->out, b, 2);
    } else if (v >= 0 && v < 65536) {
        char b[3] = {'M', (char)v, (char)(v >> 8)};
        sb_appendn(&p->out, b, 3);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
        op(p, 'J');
        put_u32(p, (uint32_t)(int32_t)v);
    } else { /* LONG1: little-endian two's complement, minimal length */
        unsigned char bytes[9];
        int n = 0;
        uint64_t u = (uint64_t)v;
        for (int i = 0; i < 8; i++)
            bytes[n++] = (unsigned char)(u >> (8 * i));
        while (n > 1 && ((bytes[n - 1] == 0 && !(bytes[n - 2] & 0x80)) ||
                         (bytes[n - 1] == 0xff && (bytes[n - 2] & 0x80))))
            n--;
        char h[2] = {(char)0x8a, (char)n};
        sb_appendn(&p->out, h, 2);
        sb_appendn(&p->out, (const char *)bytes, (size_t)n);
    }
}

static void write_str(Pickler *p, const char *s)
{
    op(p, 'X');
    put_u32(p, (uint32_t)strlen(s));
    sb_append(&p->out, s);
    memoize(p);
}

static void write_global(Pickler *p, const char *module, const char *name)
{
    op(p, 'c');
    sb_append(&p->out, module);
    op(p, '\n');
    sb_append(&p->out, name);
    op(p, '\n');
    memoize(p);
}

static const char *storage_class(DType t)
{
    static const char *names[] = {
        [DT_BOOL] = "BoolStorage", [DT_U8] = "ByteStorage", [DT_I8] = "CharStorage",
        [DT_I16] = "ShortStorage", [DT_I32] = "IntStorage", [DT_I64] = "LongStorage",
        [DT_F16] = "HalfStorage", [DT_BF16] = "BFloat16Storage", [DT_F32] = "FloatStorage",
        [DT_F64] = "DoubleStorage",
    };
    return names[t];
}

static void write_int_tuple(Pickler *p, int n, const int64_t *v)
{
    if (n == 0) {
        op(p, ')');
        return;
    }
    if (n > 3)
        op(p, '(');
    for (int i = 0; i < n; i++)
        write_int(p, v[i]);
    op(p, n == 1 ? (char)0x85 : n == 2 ? (char)0x86 : n == 3 ? (char)0x87 : 't');
    memoize(p);
}

static void write_obj(Pickler *p, const PwObj *o);

/* The end of a _rebuild_tensor_v2 / _rebuild_parameter call whose last
** argument is an empty OrderedDict (the backward hooks): that argument,
** the argument tuple closed, and the call (REDUCE). */
static void end_rebuild_call(Pickler *p)
{
    write_global(p, "collections", "OrderedDict");
    op(p, ')');
    op(p, 'R');
    memoize(p);
    op(p, 't');
    memoize(p);
    op(p, 'R');
    memoize(p);
}

/* torch._utils._rebuild_tensor_v2(storage, offset, size, stride,
** requires_grad, OrderedDict()) with the storage as a persistent id. */
static void write_tensor(Pickler *p, const Tensor *t, bool requires_grad)
{
    int key = -1;
    for (int i = 0; i < p->nstorages; i++)
        if (p->storages[i] == t->storage)
            key = i;
    if (key < 0) {
        p->storages = ep_xrealloc(p->storages, (size_t)(p->nstorages + 1) * sizeof *p->storages);
        p->storages[p->nstorages] = t->storage;
        key = p->nstorages++;
    }
    write_global(p, "torch._utils", "_rebuild_tensor_v2");
    op(p, '(');
    op(p, '(');
    write_str(p, "storage");
    write_global(p, "torch", storage_class(t->dtype));
    char keytext[32];
    snprintf(keytext, sizeof keytext, "%d", key);
    write_str(p, keytext);
    write_str(p, "cpu");
    write_int(p, (int64_t)(t->storage->nbytes / (size_t)dtype_size(t->dtype)));
    op(p, 't');
    memoize(p);
    op(p, 'Q');
    write_int(p, t->offset);
    write_int_tuple(p, t->ndim, t->sizes);
    write_int_tuple(p, t->ndim, t->strides);
    op(p, requires_grad ? (char)0x88 : (char)0x89);
    end_rebuild_call(p);
}

static void write_obj(Pickler *p, const PwObj *o)
{
    switch (o->kind) {
    case PW_NONE: op(p, 'N'); break;
    case PW_BOOL: op(p, o->b ? (char)0x88 : (char)0x89); break;
    case PW_INT: write_int(p, o->i); break;
    case PW_FLOAT: {
        op(p, 'G');
        uint64_t u;
        memcpy(&u, &o->f, 8);
        for (int i = 7; i >= 0; i--) {
            char c = (char)(u >> (8 * i));
            sb_appendn(&p->out, &c, 1);
        }
        break;
    }
    case PW_STR: write_str(p, o->s); break;
    case PW_TENSOR:
        if (o->is_parameter) {
            write_global(p, "torch._utils", "_rebuild_parameter");
            op(p, '(');
            write_tensor(p, o->t, false);
            op(p, (char)0x88); /* requires_grad */
            end_rebuild_call(p);
        } else {
            write_tensor(p, o->t, false);
        }
        break;
    case PW_TUPLE:
        if (o->n == 0) {
            op(p, ')');
            break;
        }
        op(p, '(');
        for (int i = 0; i < o->n; i++)
            write_obj(p, o->items[i]);
        op(p, 't');
        memoize(p);
        break;
    case PW_LIST:
        op(p, ']');
        memoize(p);
        if (o->n) {
            op(p, '(');
            for (int i = 0; i < o->n; i++)
                write_obj(p, o->items[i]);
            op(p, 'e');
        }
        break;
    case PW_DICT:
        op(p, '}');
        memoize(p);
        if (o->n) {
            op(p, '(');
            for (int i = 0; i < 2 * o->n; i++)
                write_obj(p, o->items[i]);
            op(p, 'u');
        }
        break;
    }
}

char *torchsave_bytes(const PwObj *root, const char *root_name, size_t *len)
{
    Pickler p = {0};
    sb_init(&p.out);
    sb_appendn(&p.out, "\x80\x02", 2);
    write_obj(&p, root);
    op(&p, '.');
    ZipWriter *z = zw_new(64);
    char name[512];
    snprintf(name, sizeof name, "%s/data.pkl", root_name);
    zw_add(z, name, p.out.data, p.out.len);
    snprintf(name, sizeof name, "%s/byteorder", root_name);
    zw_add(z, name, "little", 6);
    for (int i = 0; i < p.nstorages; i++) {
        snprintf(name, sizeof name, "%s/data/%d", root_name, i);
        zw_add(z, name, p.storages[i]->data, p.storages[i]->nbytes);
    }
    snprintf(name, sizeof name, "%s/version", root_name);
    zw_add(z, name, "3\n", 2);
    snprintf(name, sizeof name, "%s/.data/serialization_id", root_name);
    zw_add(z, name, "1234567890123456789012345678901234567890", 40);
    size_t n;
    const char *bytes = zw_finish(z, &n);
    char *copy = ep_xmalloc(n);
    memcpy(copy, bytes, n);
    zw_free(z);
    sb_free(&p.out);
    free(p.storages);
    *len = n;
    return copy;
}

EpStatus torchsave_save_file(const char *path, const PwObj *root, EpError *err)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    char *stem = ep_xstrndup(base, dot && dot != base ? (size_t)(dot - base) : strlen(base));
    size_t len;
    char *bytes = torchsave_bytes(root, stem[0] ? stem : "archive", &len);
    EpStatus rc = write_file_atomic(path, bytes, len, err);
    free(bytes);
    free(stem);
    return rc;
}
