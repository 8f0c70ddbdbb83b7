/*
** format.c -- tensors printed as torch's repr (torch/_tensor_str.py), other
** values as Python's repr, for print, display and the TUI.
**
** The tensor layout follows modern PyTorch's _tensor_str.py (1.13's is the
** same in every part used here): one _Formatter over the elements that will
** be shown chooses integer mode ("1.", "-2."), scientific or fixed notation
** and a common width; rows wrap at the line width; summarised dims keep
** edgeitems at each end around "..."; suffixes such as ", dtype=torch.int32"
** move to their own line when the last line would get too long.  float16
** and bfloat16 print through float32 (exact), as torch does, and every
** float goes through C's printf, whose %.Nf / %.Ne round exactly like
** Python's format().
**
** format_value_stats summarises instead of printing: a tensor's dtype,
** shape and element statistics on one line, for the end-of-run report,
** the graph commands, the TUI's inspector and `epdbg run`.
*/
#include "format.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const PrintOptions PRINT_OPTIONS_DEFAULT = {
    .precision = 4, .threshold = 1000, .edgeitems = 3, .linewidth = 80, .sci_mode = -1, .hex = false,
};

/* Room for one element: "%.100f" of -DBL_MAX is 411 characters.  Larger
** precisions are clamped (torch has no limit, but no reader wants more). */
#define MAX_PRECISION 100
#define ELEM_CAP 512

/* A tensor with more elements than this to show (a huge threshold, or an
** expanded view with many small dims) prints as "tensor(..., size=...)",
** the way torch prints meta tensors, rather than filling memory. */
#define MAX_SHOWN ((int64_t)1 << 20)

/* Deepest list nesting format_value follows. */
#define MAX_VALUE_DEPTH 32

/* One print: the options, sanitised, and torch's _Formatter state. */
typedef struct Layout {
    const Tensor *t;
    int precision, edgeitems, linewidth;
    bool hex;
    bool summarize;     /* numel > threshold: dims longer than 2*edgeitems get "..." */
    bool floating;      /* float dtype, printed through double */
    bool int_mode;      /* every shown finite value is an integer: "3." */
    bool sci_mode;      /* "%.{p}e" */
    int width;          /* every element is right-aligned to this */
} Layout;

/* ---- which elements show -------------------------------------------------- */

/* Along dim, indices [0, head) and [tail, size) show, with "..." between
** when *gap. */
static void shown_range(const Layout *L, int dim, int64_t *head, int64_t *tail, bool *gap)
{
    int64_t size = L->t->sizes[dim], e = L->edgeitems;
    *gap = L->summarize && size > 2 * e;
    if (!*gap) {
        *head = *tail = size;
        return;
    }
    *head = e;
    /* torch takes the last dim's tail as self[-edgeitems:], the whole row
    ** when edgeitems is 0; the other dims use range(size - e, size) */
    *tail = (e == 0 && dim == L->t->ndim - 1) ? 0 : size - e;
}

static int64_t count_shown(const Layout *L)
{
    int64_t n = 1;
    for (int d = 0; d < L->t->ndim; d++) {
        int64_t head, tail;
        bool gap;
        shown_range(L, d, &head, &tail, &gap);
        int64_t here = head + (L->t->sizes[d] - tail);
        if (!ep_mul_i64(n, here, &n) || n > MAX_SHOWN)
            return MAX_SHOWN + 1;
    }
    return n;
}

static const char *elem_ptr(const Tensor *t, int64_t off)
{
    return (const char *)t->storage->data + off * dtype_size(t->dtype);
}

typedef void (*ElemVisit)(void *ctx, const Layout *L, const char *p);

/* Call fn on every element that will show, in print order.  off is the
** element offset of the sub-tensor starting at dim. */
static void visit_shown(const Layout *L, int dim, int64_t off, ElemVisit fn, void *ctx)
{
    const Tensor *t = L->t;
    if (dim == t->ndim) {
        fn(ctx, L, elem_ptr(t, off));
        return;
    }
    int64_t head, tail, stride = t->strides[dim];
    bool gap;
    shown_range(L, dim, &head, &tail, &gap);
    for (int64_t i = 0; i < head; i++)
        visit_shown(L, dim + 1, off + i * stride, fn, ctx);
    for (int64_t i = tail; i < t->sizes[dim]; i++)
        visit_shown(L, dim + 1, off + i * stride, fn, ctx);
}

/* ---- one element ------------------------------------------------------------ */

static int copy_text(char *buf, const char *s)
{
    size_t n = strlen(s);
    memcpy(buf, s, n + 1);
    return (int)n;
}

/* Python's "{:.{p}e}", "{:.0f}" + "." or "{:.{p}f}" of v; non-finite values
** are "nan", "inf", "-inf" in every mode (Python drops a NaN's sign). */
static int float_text(const Layout *L, double v, bool sci, bool int_mode, char *buf)
{
    if (isnan(v))
        return copy_text(buf, "nan");
    if (isinf(v))
        return copy_text(buf, v < 0 ? "-inf" : "inf");
    if (sci)
        return snprintf(buf, ELEM_CAP, "%.*e", L->precision, v);
    if (int_mode) {
        int n = snprintf(buf, ELEM_CAP - 1, "%.0f", v);
        buf[n++] = '.';
        buf[n] = '\0';
        return n;
    }
    return snprintf(buf, ELEM_CAP, "%.*f", L->precision, v);
}

/* The element at p as the layout prints it, without padding. */
static int elem_text(const Layout *L, const char *p, char *buf)
{
    DType dt = L->t->dtype;
    if (L->hex) {
        /* the element's bytes as one little-endian number (epdbg's storages
        ** are native x86/arm64 byte order) */
        uint64_t bits = 0;
        int size = dtype_size(dt);
        memcpy(&bits, p, (size_t)size);
        return snprintf(buf, ELEM_CAP, "0x%0*llx", 2 * size, (unsigned long long)bits);
    }
    if (L->floating)
        return float_text(L, dtype_load_f64(dt, p), L->sci_mode, L->int_mode, buf);
    if (dt == DT_BOOL)
        return copy_text(buf, *(const uint8_t *)p ? "True" : "False");
    return snprintf(buf, ELEM_CAP, "%lld", (long long)dtype_load_i64(dt, p));
}

/* ---- the formatter: mode and width from the shown elements ------------------- */

typedef struct FloatScan {
    int64_t n;          /* nonzero finite values */
    double lo, hi;      /* their smallest and largest magnitude */
    bool all_int;
    int width;          /* second pass: widest text in the chosen mode */
    bool sci, int_mode;
} FloatScan;

static void scan_float_stats(void *ctx, const Layout *L, const char *p)
{
    FloatScan *fs = ctx;
    double v = dtype_load_f64(L->t->dtype, p);
    if (!isfinite(v) || v == 0)
        return;
    double a = fabs(v);
    if (fs->n == 0 || a < fs->lo)
        fs->lo = a;
    if (fs->n == 0 || a > fs->hi)
        fs->hi = a;
    if (v != ceil(v))
        fs->all_int = false;
    fs->n++;
}

static void scan_float_width(void *ctx, const Layout *L, const char *p)
{
    FloatScan *fs = ctx;
    double v = dtype_load_f64(L->t->dtype, p);
    if (!isfinite(v) || v == 0)
        return;
    char buf[ELEM_CAP];
    int n = float_text(L, v, fs->sci, fs->int_mode, buf);
    if (n > fs->width)
        fs->width = n;
}

static void scan_text_width(void *ctx, const Layout *L, const char *p)
{
    int *width = ctx;
    char buf[ELEM_CAP];
    int n = elem_text(L, p, buf);
    if (n > *width)
        *width = n;
}

/* torch's _Formatter.__init__ over the elements that show. */
static void build_formatter(Layout *L, int sci_option)
{
    const Tensor *t = L->t;
    L->width = 1;
    L->int_mode = true;
    L->sci_mode = false;
    if (L->hex) {
        L->width = 2 + 2 * dtype_size(t->dtype);
        return;
    }
    if (!L->floating) {
        visit_shown(L, 0, t->offset, scan_text_width, &L->width);
        return;
    }
    FloatScan fs = {.all_int = true};
    visit_shown(L, 0, t->offset, scan_float_stats, &fs);
    if (fs.n == 0)
        return; /* torch returns here, before applying the sci_mode option */
    /* integers tolerate small magnitudes: 1e-4 only matters for fractions */
    fs.sci = fs.hi / fs.lo > 1000.0 || fs.hi > 1.0e8 || (!fs.all_int && fs.lo < 1.0e-4);
    fs.int_mode = fs.all_int;
    fs.width = 1;
    visit_shown(L, 0, t->offset, scan_float_width, &fs);
    L->int_mode = fs.int_mode;
    L->sci_mode = sci_option >= 0 ? sci_option == 1 : fs.sci;
    L->width = fs.width;
}

/* ---- layout ------------------------------------------------------------------- */

static void append_spaces(StrBuf *sb, int64_t n)
{
    static const char spaces[] = "                                ";
    while (n > 0) {
        int64_t k = n < 32 ? n : 32;
        sb_appendn(sb, spaces, (size_t)k);
        n -= k;
    }
}

static void emit_elem(StrBuf *sb, const Layout *L, int64_t off)
{
    char buf[ELEM_CAP];
    int n = elem_text(L, elem_ptr(L->t, off), buf);
    append_spaces(sb, L->width - n);
    sb_appendn(sb, buf, (size_t)n);
}

/* torch's _vector_str: the last dim, wrapped to whole elements per line. */
static void emit_vector(StrBuf *sb, const Layout *L, int64_t off, int indent)
{
    const Tensor *t = L->t;
    int dim = t->ndim - 1;
    int64_t per_line = ((int64_t)L->linewidth - indent) / (L->width + 2);
    if (per_line < 1)
        per_line = 1;
    int64_t head, tail, stride = t->strides[dim];
    bool gap;
    shown_range(L, dim, &head, &tail, &gap);
    int64_t k = 0; /* items so far, "..." included: it takes a slot in the line */
    sb_append(sb, "[");
    for (int part = 0; part < 3; part++) {
        int64_t from = part == 0 ? 0 : part == 1 ? 0 : tail;
        int64_t to = part == 0 ? head : part == 1 ? (gap ? 1 : 0) : t->sizes[dim];
        for (int64_t i = from; i < to; i++, k++) {
            if (k > 0 && k % per_line == 0) {
                sb_append(sb, ",\n");
                append_spaces(sb, indent + 1);
            } else if (k > 0) {
                sb_append(sb, ", ");
            }
            if (part == 1)
                sb_append(sb, " ...");
            else
                emit_elem(sb, L, off + i * stride);
        }
    }
    sb_append(sb, "]");
}

/* torch's _tensor_str_with_formatter from dim on: rows of rows, separated by
** a comma, one newline per dim below (blank lines between blocks), and the
** indentation of the bracket depth. */
static void emit_dims(StrBuf *sb, const Layout *L, int dim, int64_t off, int indent)
{
    const Tensor *t = L->t;
    int rest = t->ndim - dim;
    if (rest == 0) {
        emit_elem(sb, L, off);
        return;
    }
    if (rest == 1) {
        emit_vector(sb, L, off, indent);
        return;
    }
    int64_t head, tail, stride = t->strides[dim];
    bool gap;
    shown_range(L, dim, &head, &tail, &gap);
    int64_t k = 0;
    sb_append(sb, "[");
    for (int part = 0; part < 3; part++) {
        int64_t from = part == 0 ? 0 : part == 1 ? 0 : tail;
        int64_t to = part == 0 ? head : part == 1 ? (gap ? 1 : 0) : t->sizes[dim];
        for (int64_t i = from; i < to; i++, k++) {
            if (k > 0) {
                sb_append(sb, ",");
                for (int n = 1; n < rest; n++)
                    sb_append(sb, "\n");
                append_spaces(sb, indent + 1);
            }
            if (part == 1)
                sb_append(sb, "...");
            else
                emit_dims(sb, L, dim + 1, off + i * stride, indent + 1);
        }
    }
    sb_append(sb, "]");
}

/* torch's _add_suffixes: each suffix goes after ", " unless the last line
** would pass the line width, then on a new line at the indent.  torch's
** "last line length" counts two characters more than the line has. */
static void add_suffixes(StrBuf *sb, char *const *suffixes, int n, int indent, int linewidth)
{
    const char *nl = strrchr(sb->data, '\n');
    int64_t last = nl ? (int64_t)(sb->len - (size_t)(nl - sb->data)) + 1 : (int64_t)sb->len + 2;
    for (int i = 0; i < n; i++) {
        int64_t len = (int64_t)strlen(suffixes[i]);
        if (last + len + 2 > linewidth) {
            sb_append(sb, ",\n");
            append_spaces(sb, indent);
            last = indent + len;
        } else {
            sb_append(sb, ", ");
            last += len + 2;
        }
        sb_append(sb, suffixes[i]);
    }
    sb_append(sb, ")");
}

/* "size=(2, 0, 3)" as Python's tuple repr. */
static char *size_suffix(const Tensor *t)
{
    StrBuf sb;
    sb_init(&sb);
    sb_append(&sb, "size=(");
    for (int d = 0; d < t->ndim; d++)
        sb_printf(&sb, "%s%lld", d ? ", " : "", (long long)t->sizes[d]);
    sb_append(&sb, t->ndim == 1 ? ",)" : ")");
    return sb_take(&sb);
}

char *format_tensor(const Tensor *t, const PrintOptions *po)
{
    if (!t)
        return ep_xstrdup("None");
    if (t->dtype < 0 || t->dtype >= DT_COUNT || t->ndim < 0 || t->ndim > EP_MAX_DIMS)
        return ep_xstrdup("tensor(<invalid tensor>)");
    if (!po)
        po = &PRINT_OPTIONS_DEFAULT;
    static const char prefix[] = "tensor(";
    const int indent = (int)sizeof prefix - 1;
    Layout L = {
        .t = t,
        .precision = po->precision < 0 ? 0 : po->precision > MAX_PRECISION ? MAX_PRECISION : po->precision,
        .edgeitems = po->edgeitems < 0 ? 0 : po->edgeitems,
        .linewidth = po->linewidth,
        .hex = po->hex,
        .floating = dtype_is_float(t->dtype),
    };
    int64_t numel = tensor_numel(t);
    L.summarize = numel > po->threshold;
    char *suffixes[2];
    int nsuffix = 0;
    StrBuf sb;
    sb_init(&sb);
    sb_append(&sb, prefix);
    if (numel == 0) {
        /* no element shows the dtype, so even int64 and bool name it */
        sb_append(&sb, "[]");
        if (t->ndim != 1)
            suffixes[nsuffix++] = size_suffix(t);
        if (t->dtype != DT_F32)
            suffixes[nsuffix++] = ep_xasprintf("dtype=torch.%s", dtype_name(t->dtype));
    } else if (count_shown(&L) > MAX_SHOWN) {
        sb_append(&sb, "...");
        suffixes[nsuffix++] = size_suffix(t);
        if (t->dtype != DT_F32)
            suffixes[nsuffix++] = ep_xasprintf("dtype=torch.%s", dtype_name(t->dtype));
    } else {
        /* float32 (the default dtype), int64 and bool are what tensor(...)
        ** infers from Python numbers; the rest say what they are */
        if (t->dtype != DT_F32 && t->dtype != DT_I64 && t->dtype != DT_BOOL)
            suffixes[nsuffix++] = ep_xasprintf("dtype=torch.%s", dtype_name(t->dtype));
        build_formatter(&L, po->sci_mode);
        emit_dims(&sb, &L, 0, t->offset, indent);
    }
    add_suffixes(&sb, suffixes, nsuffix, indent, L.linewidth);
    for (int i = 0; i < nsuffix; i++)
        free(suffixes[i]);
    return sb_take(&sb);
}

/* ---- Python reprs of other values ---------------------------------------------- */

/* Digits of x > 0 (finite): the fewest significant digits that read back as
** x, the nearest such string when several have that length.  digits gets
** them without trailing zeros; *decpt is where the point goes (x =
** 0.DIGITS * 10^decpt). */
static void shortest_digits(double x, char *digits, int *decpt)
{
    char tmp[64];
    for (int p = 0; p <= 16; p++) {
        snprintf(tmp, sizeof tmp, "%.*e", p, x);
        /* tmp is "D.DDDDe+XX": the p+1 digits as an integer m, exponent */
        const char *e = strchr(tmp, 'e');
        int exp10 = atoi(e + 1);
        unsigned long long m = 0;
        for (const char *c = tmp; c < e; c++)
            if (*c != '.')
                m = m * 10 + (unsigned long long)(*c - '0');
        unsigned long long found = 0;
        if (strtod(tmp, NULL) == x) {
            found = m;
        } else {
            /* next to a power of two the interval of doubles rounding to x is
            ** lopsided, so the nearest (p+1)-digit string can miss while the
            ** one beside it hits */
            long double best = 0;
            for (int dir = -1; dir <= 1; dir += 2) {
                unsigned long long c = m + (unsigned long long)(long long)dir;
                char cand[64];
                snprintf(cand, sizeof cand, "%llue%d", c, exp10 - p);
                if (c == 0 || strtod(cand, NULL) != x)
                    continue;
                long double dist = fabsl(strtold(cand, NULL) - (long double)x);
                if (!found || dist < best) {
                    found = c;
                    best = dist;
                }
            }
        }
        if (found) {
            int n = snprintf(digits, 24, "%llu", found);
            /* m may have grown a digit (9.99 -> 10.0); the exponent of its
            ** first digit is what places the point */
            *decpt = exp10 - p + n;
            while (n > 1 && digits[n - 1] == '0')
                digits[--n] = '\0';
            return;
        }
    }
    /* 17 significant digits always read back; not reached */
    snprintf(digits, 24, "0");
    *decpt = 1;
}

/* repr(float) as Python 3 writes it: "0.1", "1e-05", "1e+16", "-0.0". */
static void append_py_float(StrBuf *sb, double x)
{
    if (isnan(x)) {
        sb_append(sb, "nan");
        return;
    }
    if (isinf(x)) {
        sb_append(sb, x < 0 ? "-inf" : "inf");
        return;
    }
    if (signbit(x))
        sb_append(sb, "-");
    if (x == 0) {
        sb_append(sb, "0.0");
        return;
    }
    char d[24];
    int decpt;
    shortest_digits(fabs(x), d, &decpt);
    int nd = (int)strlen(d);
    if (decpt <= -4 || decpt > 16) {
        sb_appendn(sb, d, 1);
        if (nd > 1) {
            sb_append(sb, ".");
            sb_append(sb, d + 1);
        }
        int e = decpt - 1;
        sb_printf(sb, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
    } else if (decpt <= 0) {
        sb_append(sb, "0.");
        for (int i = 0; i < -decpt; i++)
            sb_append(sb, "0");
        sb_append(sb, d);
    } else if (decpt < nd) {
        sb_appendn(sb, d, (size_t)decpt);
        sb_append(sb, ".");
        sb_append(sb, d + decpt);
    } else {
        sb_append(sb, d);
        for (int i = nd; i < decpt; i++)
            sb_append(sb, "0");
        sb_append(sb, ".0");
    }
}

/* repr(str): single quotes unless the text has ' and no ", escapes for
** backslash, the quote, control characters (C0, DEL, and C1 as UTF-8). */
static void append_py_str(StrBuf *sb, const char *s)
{
    char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';
    sb_appendn(sb, &q, 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned c = *p;
        if (c == '\\' || c == (unsigned)q) {
            sb_append(sb, "\\");
            sb_appendn(sb, (const char *)p, 1);
        } else if (c == '\n') {
            sb_append(sb, "\\n");
        } else if (c == '\r') {
            sb_append(sb, "\\r");
        } else if (c == '\t') {
            sb_append(sb, "\\t");
        } else if (c < 0x20 || c == 0x7f) {
            sb_printf(sb, "\\x%02x", c);
        } else if (c == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0) {
            sb_printf(sb, "\\x%02x", p[1]);
            p++;
        } else {
            sb_appendn(sb, (const char *)p, 1);
        }
    }
    sb_appendn(sb, &q, 1);
}

/* repr(torch.device("cuda:0")): "device(type='cuda', index=0)". */
static void append_device(StrBuf *sb, const char *s)
{
    const char *colon = strchr(s, ':');
    if (!colon) {
        sb_printf(sb, "device(type='%s')", s);
        return;
    }
    sb_printf(sb, "device(type='%.*s', index=%s)", (int)(colon - s), s, colon + 1);
}

static void append_value(StrBuf *sb, const Value *v, const PrintOptions *po, int depth)
{
    switch (v->kind) {
    case V_NONE:
        sb_append(sb, "None");
        break;
    case V_TENSOR: {
        char *s = format_tensor(v->t, po);
        sb_append(sb, s);
        free(s);
        break;
    }
    case V_INT:
        /* print/x shows the raw bits, as for tensor elements */
        if (po->hex)
            sb_printf(sb, "0x%016llx", (unsigned long long)v->i);
        else
            sb_printf(sb, "%lld", (long long)v->i);
        break;
    case V_FLOAT:
        if (po->hex) {
            uint64_t bits;
            memcpy(&bits, &v->f, sizeof bits);
            sb_printf(sb, "0x%016llx", (unsigned long long)bits);
        } else {
            append_py_float(sb, v->f);
        }
        break;
    case V_BOOL:
        sb_append(sb, po->hex ? (v->b ? "0x01" : "0x00") : v->b ? "True" : "False");
        break;
    case V_STR:
        append_py_str(sb, v->s ? v->s : "");
        break;
    case V_DTYPE:
        sb_printf(sb, "torch.%s", dtype_name((DType)v->i));
        break;
    case V_LAYOUT:
    case V_MEMFMT: {
        /* the names of the export schema's tables (interp/dtype.c), which are
        ** Python's reprs: torch.strided, torch.channels_last; the codes come
        ** from those tables (the loader rejects others), so fit in an int */
        char buf[32];
        int code = v->i >= INT_MIN && v->i <= INT_MAX ? (int)v->i : -1;
        sb_append(sb, v->kind == V_LAYOUT ? layout_name(code, buf) : memory_format_name(code, buf));
        break;
    }
    case V_DEVICE:
        append_device(sb, v->s ? v->s : "cpu");
        break;
    case V_LIST:
        if (!v->list) {
            sb_append(sb, "[]");
            break;
        }
        if (depth >= MAX_VALUE_DEPTH) {
            sb_append(sb, "[...]");
            break;
        }
        sb_append(sb, "[");
        for (int i = 0; i < v->list->n; i++) {
            if (i)
                sb_append(sb, ", ");
            append_value(sb, &v->list->items[i], po, depth + 1);
        }
        sb_append(sb, "]");
        break;
    default:
        sb_printf(sb, "<value kind %d>", (int)v->kind);
        break;
    }
}

char *format_value(const Value *v, const PrintOptions *po)
{
    if (!v)
        return ep_xstrdup("None");
    StrBuf sb;
    sb_init(&sb);
    append_value(&sb, v, po ? po : &PRINT_OPTIONS_DEFAULT, 0);
    return sb_take(&sb);
}

/* ---- one-line summaries ---------------------------------------------------------- */

char *format_value_stats(const Value *v)
{
    StrBuf sb;
    sb_init(&sb);
    char shape[512];
    switch (v->kind) {
    case V_TENSOR: {
        const Tensor *t = v->t;
        sb_printf(&sb, "%s%s", dtype_name(t->dtype), shape_str(t->ndim, t->sizes, shape, sizeof shape));
        int64_t n = tensor_numel(t);
        if (n == 0) {
            sb_append(&sb, "  (empty)");
            break;
        }
        double mn = INFINITY, mx = -INFINITY, sum = 0;
        int64_t nan = 0, inf = 0;
        for (int64_t i = 0; i < n; i++) {
            double x = tensor_get_f64(t, i);
            if (isnan(x)) {
                nan++;
                continue;
            }
            if (isinf(x))
                inf++;
            if (x < mn)
                mn = x;
            if (x > mx)
                mx = x;
            sum += x;
        }
        if (nan == n) {
            sb_append(&sb, "  all NaN");
            break;
        }
        if (t->dtype == DT_BOOL)
            sb_printf(&sb, "  true %lld of %lld", (long long)sum, (long long)n);
        else
            sb_printf(&sb, "  min %.6g  max %.6g  mean %.6g", mn, mx, nan ? NAN : sum / (double)n);
        if (nan)
            sb_printf(&sb, "  NaN %lld", (long long)nan);
        if (inf)
            sb_printf(&sb, "  inf %lld", (long long)inf);
        break;
    }
    case V_INT: sb_printf(&sb, "int %lld", (long long)v->i); break;
    case V_FLOAT: sb_printf(&sb, "float %.9g", v->f); break;
    case V_BOOL: sb_printf(&sb, "bool %s", v->b ? "True" : "False"); break;
    default: {
        char *d = value_describe(v);
        sb_append(&sb, d);
        free(d);
        break;
    }
    }
    return sb_take(&sb);
}
