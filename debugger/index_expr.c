/*
** index_expr.c -- `t[0, :5]` for print and set: Python's basic indexing,
** applied to the tensor's geometry only, so the result is a view.
**
** The semantics follow torch's getitem (torch/csrc/autograd/
** python_variable_indexing.cpp and ATen/TensorIndexing.h), quirks included,
** because the user compares what they see with what their Python session
** shows:
**  - errors name the dimension by the item's position in the index, not by
**    the tensor dimension it lands on ("t[None, 5]" on a 2-d tensor blames
**    dimension 1);
**  - several "..." are accepted (pytorch/pytorch#59787 is still open): each
**    one skips ndim - (number of ints and slices) dimensions;
**  - a lone index that is not a tuple ("0" rather than "0,") takes torch's
**    single-index path, which on a 0-d tensor gives its own messages.
** True/False are torch's boolean indices: a new axis of size 1 or 0.  torch
** copies there (advanced indexing); our view has the same values and shape,
** and `set` through it writes where torch's index_put_ would.  More than one
** of them is refused rather than imitated.
*/
#include "index_expr.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum IxKind { IX_INT, IX_SLICE, IX_ELLIPSIS, IX_NONE, IX_BOOL } IxKind;

typedef struct IxItem {
    IxKind kind;
    int64_t value;      /* IX_INT: the index; IX_BOOL: 0 or 1 */
    bool overflow;      /* IX_INT outside int64 (torch: "Overflow when unpacking long") */
    bool has[3];        /* IX_SLICE: start, stop, step given */
    int64_t part[3];    /* ...their values, saturated to int64 as Python's slice unpacking */
} IxItem;

/* Python puts no limit on tuple length; 16 dims do not need more. */
#define IX_MAX_ITEMS 64

typedef struct Geometry {
    int ndim;
    int64_t sizes[EP_MAX_DIMS];
    int64_t strides[EP_MAX_DIMS];
    int64_t offset;
} Geometry;

/* ---- parsing --------------------------------------------------------------- */

static const char *skip_space(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static int digit_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return 99;
}

/* A Python integer literal at *pp with an optional sign: decimal, 0x, 0o or
** 0b, '_' allowed between digits.  Values beyond int64 saturate and set
** *overflow.  Advances *pp past it; false (pp untouched) if there is none. */
static bool scan_int(const char **pp, int64_t *out, bool *overflow)
{
    const char *p = *pp;
    bool neg = false;
    if (*p == '+' || *p == '-') {
        neg = *p == '-';
        p = skip_space(p + 1);
    }
    int base = 10;
    if (p[0] == '0' && p[1] && strchr("xXoObB", p[1])) {
        base = p[1] == 'x' || p[1] == 'X' ? 16 : p[1] == 'o' || p[1] == 'O' ? 8 : 2;
        p += 2;
        if (*p == '_')
            p++;
    }
    if (digit_value(*p) >= base)
        return false;
    uint64_t mag = 0;
    bool big = false;
    for (;;) {
        int d = digit_value(*p);
        if (d >= base) {
            if (*p == '_' && digit_value(p[1]) < base) {
                p++;
                continue;
            }
            break;
        }
        if (mag > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
            big = true;
        else
            mag = mag * (uint64_t)base + (uint64_t)d;
        p++;
    }
    /* 1x, 0x1g: a name glued to the number is not a number */
    if (isalnum((unsigned char)*p) || *p == '_' || *p == '.')
        return false;
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    if (big || mag > limit) {
        *overflow = true;
        *out = neg ? INT64_MIN : INT64_MAX;
    } else {
        *overflow = false;
        *out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
    }
    *pp = p;
    return true;
}

/* Is the item text [b, e) exactly the word w? */
static bool item_is(const char *b, const char *e, const char *w)
{
    size_t n = strlen(w);
    return (size_t)(e - b) == n && memcmp(b, w, n) == 0;
}

static EpStatus bad_item(const char *expr, const char *b, const char *e, const char *at, EpError *err)
{
    return ep_fail(err, EP_ERR_USAGE, "bad index '%.*s' (position %d)", (int)(e - b), b, (int)(at - expr) + 1);
}

/* One comma-separated item [b, e) (trimmed) into it. */
static EpStatus parse_item(const char *expr, const char *b, const char *e, IxItem *it, EpError *err)
{
    memset(it, 0, sizeof *it);
    if (b == e)
        return bad_item(expr, b, e, b, err);
    if (item_is(b, e, "...") || item_is(b, e, "Ellipsis")) {
        it->kind = IX_ELLIPSIS;
        return EP_OK;
    }
    if (item_is(b, e, "None")) {
        it->kind = IX_NONE;
        return EP_OK;
    }
    if (item_is(b, e, "True") || item_is(b, e, "False")) {
        it->kind = IX_BOOL;
        it->value = *b == 'T';
        return EP_OK;
    }
    /* an integer, or up to three optional integers separated by ':' */
    const char *p = b;
    int part = 0;
    bool colon = false;
    for (;;) {
        while (p < e && (*p == ' ' || *p == '\t'))
            p++;
        if (p < e && *p != ':') {
            bool ovf;
            if (!scan_int(&p, &it->part[part], &ovf) || p > e)
                return bad_item(expr, b, e, p, err);
            it->has[part] = true;
            if (part == 0)
                it->overflow = ovf;
            while (p < e && (*p == ' ' || *p == '\t'))
                p++;
        }
        if (p == e)
            break;
        if (*p != ':' || part == 2)
            return bad_item(expr, b, e, p, err);
        colon = true;
        part++;
        p++;
    }
    if (!colon) {
        it->kind = IX_INT;
        it->value = it->part[0];
        return EP_OK;
    }
    it->kind = IX_SLICE;
    it->overflow = false;
    return EP_OK;
}

/* Split expr at commas.  *is_tuple: there was a comma ("0," is a tuple, as
** in Python, which matters for 0-d tensors). */
static EpStatus parse_items(const char *expr, IxItem *items, int *n, bool *is_tuple, EpError *err)
{
    *n = 0;
    *is_tuple = false;
    const char *p = skip_space(expr);
    if (!*p)
        return ep_fail(err, EP_ERR_USAGE, "empty index expression");
    for (;;) {
        const char *b = p;
        const char *comma = strchr(p, ',');
        const char *e = comma ? comma : p + strlen(p);
        while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
            e--;
        if (*n == IX_MAX_ITEMS)
            return ep_fail(err, EP_ERR_USAGE, "index expression has more than %d items", IX_MAX_ITEMS);
        EpStatus rc = parse_item(expr, b, e, &items[*n], err);
        if (rc)
            return rc;
        (*n)++;
        if (!comma)
            break;
        *is_tuple = true;
        p = skip_space(comma + 1);
        if (!*p) /* "0," : a trailing comma is Python's one-tuple */
            break;
    }
    return EP_OK;
}

/* ---- applying the items ------------------------------------------------------- */

static EpStatus dim_out_of_range(int64_t lo, int64_t hi, int64_t dim, EpError *err)
{
    return ep_fail(err, EP_ERR_USAGE, "Dimension out of range (expected to be in range of [%lld, %lld], but got %lld)",
                   (long long)lo, (long long)hi, (long long)dim);
}

/* t.select(dim, index) with torch's indexing checks; real_dim names the item. */
static EpStatus apply_select(Geometry *g, int dim, int64_t index, int real_dim, EpError *err)
{
    if (index == 0 && dim == 0 && g->ndim == 0)
        return ep_fail(err, EP_ERR_USAGE,
                       "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in "
                       "C++ to convert a 0-dim tensor to a number");
    /* past the last dim (a 0-d tensor, or several "...") torch reads beyond
    ** its size list, which is undefined; what it reads is 0 nearly always,
    ** so every index is out of bounds "with size 0", as we say too */
    int64_t size = dim < g->ndim ? g->sizes[dim] : 0;
    bool inside = index < 0 ? index >= -size : index < size;
    if (!inside)
        return ep_fail(err, EP_ERR_USAGE, "index %lld is out of bounds for dimension %d with size %lld",
                       (long long)index, real_dim, (long long)size);
    if (index < 0)
        index += size;
    g->offset += index * g->strides[dim];
    for (int i = dim; i + 1 < g->ndim; i++) {
        g->sizes[i] = g->sizes[i + 1];
        g->strides[i] = g->strides[i + 1];
    }
    g->ndim--;
    return EP_OK;
}

static int64_t clamp_slice_bound(int64_t v, int64_t size)
{
    if (v < 0)
        v += size;
    return v < 0 ? 0 : v > size ? size : v;
}

/* t.slice(dim, start, stop, step) as aten::slice clamps it. */
static EpStatus apply_slice(Geometry *g, int dim, const IxItem *it, EpError *err)
{
    int64_t step = it->has[2] ? it->part[2] : 1;
    if (step == 0)
        return ep_fail(err, EP_ERR_USAGE, "slice step cannot be zero");
    if (step < 0)
        return ep_fail(err, EP_ERR_USAGE, "step must be greater than zero");
    if (g->ndim == 0)
        return ep_fail(err, EP_ERR_USAGE, "slice() cannot be applied to a 0-dim tensor.");
    if (dim >= g->ndim)
        return dim_out_of_range(-g->ndim, g->ndim - 1, dim, err);
    int64_t size = g->sizes[dim];
    int64_t start = clamp_slice_bound(it->has[0] ? it->part[0] : 0, size);
    int64_t stop = clamp_slice_bound(it->has[1] ? it->part[1] : INT64_MAX, size);
    if (stop < start)
        stop = start;
    int64_t len = stop == start ? 0 : (stop - start - 1) / step + 1;
    int64_t stride = g->strides[dim], new_stride, delta, offset;
    /* a step past the end leaves one element, whose stride never matters */
    if (!ep_mul_i64(stride, step, &new_stride))
        new_stride = stride;
    /* start * stride only overflows when nothing is left to address (a
    ** size-1 dim may carry any stride) */
    if (ep_mul_i64(start, stride, &delta) && ep_add_i64(g->offset, delta, &offset))
        g->offset = offset;
    g->sizes[dim] = len;
    g->strides[dim] = new_stride;
    return EP_OK;
}

/* t.unsqueeze(dim), with the stride torch gives the new axis. */
static EpStatus apply_unsqueeze(Geometry *g, int dim, EpError *err)
{
    if (dim > g->ndim)
        return dim_out_of_range(-g->ndim - 1, g->ndim, dim, err);
    if (g->ndim == EP_MAX_DIMS)
        return ep_fail(err, EP_ERR_USAGE, "tensors of rank %d are not supported (at most %d dims)", g->ndim + 1,
                       EP_MAX_DIMS);
    int64_t stride = 1;
    if (dim < g->ndim && !ep_mul_i64(g->sizes[dim], g->strides[dim], &stride))
        stride = 1; /* only a size-1 dim can carry such a stride */
    for (int i = g->ndim; i > dim; i--) {
        g->sizes[i] = g->sizes[i - 1];
        g->strides[i] = g->strides[i - 1];
    }
    g->sizes[dim] = 1;
    g->strides[dim] = stride;
    g->ndim++;
    return EP_OK;
}

static EpStatus apply_items(const Tensor *t, const IxItem *items, int n, bool is_tuple, Geometry *g,
                            EpError *err)
{
    int specified = 0, bools = 0;
    for (int i = 0; i < n; i++) {
        specified += items[i].kind == IX_INT || items[i].kind == IX_SLICE;
        bools += items[i].kind == IX_BOOL;
    }
    if (bools > 1)
        return ep_fail(err, EP_ERR_USAGE, "only one True/False index is supported");
    /* torch counts only on the tuple path; a lone int or slice on a 0-d
    ** tensor fails later with its own message */
    if (is_tuple && specified > t->ndim)
        return ep_fail(err, EP_ERR_USAGE, "too many indices for tensor of dimension %d", t->ndim);
    int dim = 0;
    EpStatus rc = EP_OK;
    for (int i = 0; i < n && rc == EP_OK; i++) {
        const IxItem *it = &items[i];
        switch (it->kind) {
        case IX_INT:
            if (it->overflow)
                return ep_fail(err, EP_ERR_USAGE, "Overflow when unpacking long");
            rc = apply_select(g, dim, it->value, i, err);
            break;
        case IX_SLICE:
            rc = apply_slice(g, dim, it, err);
            dim++;
            break;
        case IX_ELLIPSIS:
            dim += t->ndim - specified;
            break;
        case IX_NONE:
        case IX_BOOL:
            rc = apply_unsqueeze(g, dim, err);
            if (rc == EP_OK && it->kind == IX_BOOL)
                g->sizes[dim] = it->value;
            dim++;
            break;
        }
        /* only many "..." grow dim; keep it printable and far from overflow */
        if (dim > 4 * EP_MAX_DIMS * IX_MAX_ITEMS)
            dim = 4 * EP_MAX_DIMS * IX_MAX_ITEMS;
    }
    return rc;
}

Tensor *tensor_index_expr(const Tensor *t, const char *expr, EpError *err)
{
    if (!t || !expr) {
        ep_fail(err, EP_ERR_USAGE, "nothing to index");
        return NULL;
    }
    IxItem items[IX_MAX_ITEMS];
    int n;
    bool is_tuple;
    if (parse_items(expr, items, &n, &is_tuple, err))
        return NULL;
    Geometry g = {.ndim = t->ndim, .offset = t->offset};
    memcpy(g.sizes, t->sizes, sizeof g.sizes);
    memcpy(g.strides, t->strides, sizeof g.strides);
    if (apply_items(t, items, n, is_tuple, &g, err))
        return NULL;
    return tensor_as_strided(t, g.ndim, g.sizes, g.strides, g.offset, err);
}

/* ---- scalar literals ---------------------------------------------------------- */

/* A decimal float literal (Python's grammar: digits with '_' between them,
** optional fraction, optional exponent) at p, up to e.  Copies it without
** the underscores into buf for strtod.  false if it is not one. */
static bool decimal_literal(const char *p, const char *e, char *buf, size_t cap)
{
    const char *start = p;
    size_t n = 0;
    int digits = 0, state = 0; /* 0 integer part, 1 fraction, 2 exponent */
    bool exp_digits = false;
    for (; p < e; p++) {
        char c = *p;
        if (isdigit((unsigned char)c)) {
            if (state == 2)
                exp_digits = true;
            else
                digits++;
        } else if (c == '_') {
            if (p == start || p + 1 >= e || !isdigit((unsigned char)p[-1]) || !isdigit((unsigned char)p[1]))
                return false;
            continue;
        } else if (c == '.' && state == 0) {
            state = 1;
        } else if ((c == 'e' || c == 'E') && state < 2 && digits > 0) {
            state = 2;
            if (p + 1 < e && (p[1] == '+' || p[1] == '-')) {
                if (n + 1 >= cap)
                    return false;
                buf[n++] = c;
                c = *++p;
            }
        } else {
            return false;
        }
        if (n + 1 >= cap)
            return false;
        buf[n++] = c;
    }
    buf[n] = '\0';
    return digits > 0 && (state < 2 || exp_digits);
}

bool parse_scalar_literal(const char *text, double *out)
{
    if (!text)
        return false;
    const char *p = skip_space(text);
    const char *e = p + strlen(p);
    while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
        e--;
    if (item_is(p, e, "True") || item_is(p, e, "False")) {
        *out = *p == 'T';
        return true;
    }
    double sign = 1.0;
    const char *body = p;
    if (body < e && (*body == '+' || *body == '-')) {
        sign = *body == '-' ? -1.0 : 1.0;
        body++;
    }
    /* float('inf') spellings: Python's float() is case-insensitive here */
    size_t blen = (size_t)(e - body);
    if ((blen == 3 && strncasecmp(body, "inf", 3) == 0) || (blen == 8 && strncasecmp(body, "infinity", 8) == 0)) {
        *out = sign * INFINITY;
        return true;
    }
    if (blen == 3 && strncasecmp(body, "nan", 3) == 0) {
        *out = NAN;
        return true;
    }
    if (blen >= 2 && body[0] == '0' && strchr("xXoObB", body[1])) {
        const char *q = p;
        int64_t v;
        bool overflow;
        if (!scan_int(&q, &v, &overflow) || q != e)
            return false;
        if (!overflow) {
            *out = (double)v;
            return true;
        }
        /* beyond int64: accumulate as a double (exact for hex through
        ** strtod, near enough for octal and binary of that size) */
        double mag = 0;
        int base = body[1] == 'x' || body[1] == 'X' ? 16 : body[1] == 'o' || body[1] == 'O' ? 8 : 2;
        for (const char *c = body + 2; c < e; c++)
            if (*c != '_')
                mag = mag * base + digit_value(*c);
        *out = sign * mag;
        return true;
    }
    char buf[512];
    if (!decimal_literal(body, e, buf, sizeof buf))
        return false;
    char *end;
    double v = strtod(buf, &end);
    if (*end)
        return false;
    *out = sign * v; /* overflow gives inf, as Python's float literal does */
    return true;
}
