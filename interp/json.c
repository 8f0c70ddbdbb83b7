/*
** json.c -- cJSON with PyTorch's JSON quirks and path-naming errors.
*/
#include "json.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Marker prefix of a long integer turned into a string by the fix-up.  It
** cannot occur in a real JSON string (a raw control byte is not allowed). */
#define LONG_INT_MARK "\x01i:"

/* The end of the string literal whose opening quote is at text[i]: the
** offset just past its closing quote, or len when it is not closed.  A quote
** closes it when an even number of backslashes precedes it.  memchr jumps
** from quote to quote, so long names cost no per-byte work. */
static size_t string_end(const char *text, size_t len, size_t i)
{
    size_t j = i + 1;
    for (;;) {
        const char *q = j < len ? memchr(text + j, '"', len - j) : NULL;
        if (!q)
            return len;
        size_t k = (size_t)(q - text), slashes = 0;
        while (k - slashes > i + 1 && text[k - slashes - 1] == '\\')
            slashes++;
        if (slashes % 2 == 0)
            return k + 1;
        j = k + 1;
    }
}

/* What one pass over the text finds outside string literals. */
typedef struct JsonScan {
    size_t too_deep_at; /* offset where nesting first exceeds cJSON's limit, or len */
    char *fixed;        /* the text with PyTorch's quirks fixed, or NULL when it has none */
    size_t fixed_len;
    /* where each replacement ends in the fixed copy and in the text, so that
    ** an error in the copy is told at its line and column in the file */
    struct JsonEdit {
        size_t fixed_end, text_end;
    } *edits;
    size_t nedits;
} JsonScan;

/* The replacement for the token at text[i], or NULL when it needs none;
** *toklen is the length of the token (so the scan skips it either way). */
static const char *quirk_at(const char *text, size_t len, size_t i, size_t *toklen)
{
    char ch = text[i];
    *toklen = 1;
    if (ch == 'I' && len - i >= 8 && memcmp(text + i, "Infinity", 8) == 0)
        return *toklen = 8, "\"Infinity\"";
    if (ch == 'N' && len - i >= 3 && memcmp(text + i, "NaN", 3) == 0)
        return *toklen = 3, "\"NaN\"";
    if (ch == '-' && len - i >= 9 && memcmp(text + i, "-Infinity", 9) == 0)
        return *toklen = 9, "\"-Infinity\"";
    if (ch != '-' && !(ch >= '0' && ch <= '9'))
        return NULL;
    /* a number: the fraction and exponent belong to it; an integer with
    ** more digits than a double holds exactly becomes a marked string */
    size_t j = i + (ch == '-'), digits_start = j;
    while (j < len && text[j] >= '0' && text[j] <= '9')
        j++;
    bool integral = !(j < len && (text[j] == '.' || text[j] == 'e' || text[j] == 'E'));
    if (!integral)
        while (j < len && ((text[j] >= '0' && text[j] <= '9') || text[j] == '.' || text[j] == 'e' ||
                           text[j] == 'E' || text[j] == '+' || text[j] == '-'))
            j++;
    *toklen = j - i;
    return integral && j - digits_start > 15 ? "" : NULL; /* "": the token itself, marked */
}

/* ---- where the holes are, found during the scan ------------------------------- */

typedef struct Frame {
    bool object, want_key;
    size_t key_at, key_len; /* the member being read */
    int hole;               /* this container is holes[hole], or -1 */
} Frame;

enum { MAX_FRAMES = 8 }; /* the holes lie within the first levels */

/* The open containers of the first MAX_FRAMES levels (beyond: how many more
** are open), and the holes sought, with the depth of each one's path. */
typedef struct HoleFinder {
    Frame f[MAX_FRAMES];
    int depth, beyond;
    JsonHole *holes;
    int nholes;
    int path_len[8];
} HoleFinder;

static void holes_init(HoleFinder *hf, JsonHole *holes, int nholes)
{
    hf->depth = hf->beyond = 0;
    hf->holes = holes;
    hf->nholes = nholes < 8 ? nholes : 8;
    for (int h = 0; h < hf->nholes; h++) {
        int k = 0;
        while (holes[h].path[k])
            k++;
        hf->path_len[h] = k;
    }
}

/* Whether the open frames' keys spell path (of depth entries). */
static bool at_path(const HoleFinder *hf, const char *text, const char *const *path)
{
    for (int k = 0; k < hf->depth; k++) {
        const Frame *f = &hf->f[k];
        size_t n = strlen(path[k]);
        if (!f->object || f->key_len != n || memcmp(text + f->key_at, path[k], n) != 0)
            return false;
    }
    return true;
}

/* A string literal at text[i, j): a key when its object wants one. */
static void holes_string(HoleFinder *hf, size_t i, size_t j)
{
    Frame *f = hf->depth ? &hf->f[hf->depth - 1] : NULL;
    if (!hf->beyond && f && f->object && f->want_key) {
        f->key_at = i + 1;
        f->key_len = j - i >= 2 ? j - i - 2 : 0;
        f->want_key = false;
    }
}

static void holes_comma(HoleFinder *hf)
{
    if (!hf->beyond && hf->depth && hf->f[hf->depth - 1].object)
        hf->f[hf->depth - 1].want_key = true;
}

/* A container opens at text[i]: a hole when it is the first at a hole's path. */
static void holes_open(HoleFinder *hf, const char *text, size_t i)
{
    if (hf->beyond || hf->depth == MAX_FRAMES) {
        hf->beyond++;
        return;
    }
    int hole = -1;
    for (int h = 0; h < hf->nholes && hole < 0; h++)
        if (hf->path_len[h] == hf->depth && !hf->holes[h].end && !hf->holes[h].at &&
            at_path(hf, text, hf->holes[h].path))
            hole = h;
    if (hole >= 0)
        hf->holes[hole].at = i;
    char ch = text[i];
    hf->f[hf->depth++] = (Frame){ch == '{', ch == '{', 0, 0, hole};
}

static void holes_close(HoleFinder *hf, size_t i)
{
    if (hf->beyond) {
        hf->beyond--;
    } else if (hf->depth) {
        hf->depth--;
        if (hf->f[hf->depth].hole >= 0)
            hf->holes[hf->f[hf->depth].hole].end = i + 1;
    }
}

static void holes_finish(HoleFinder *hf)
{
    for (int h = 0; h < hf->nholes; h++)
        if (!hf->holes[h].end)
            hf->holes[h].at = 0; /* never closed: not a hole */
}

/* One pass: nesting depth and the quirks, and with hf where its holes lie
** (the first occurrence of each one's path).  Text without quirks (every
** file PyTorch >= 2.7 writes, nearly) is never copied; text with them is
** copied in runs between the tokens replaced. */
static JsonScan json_scan(const char *text, size_t len, HoleFinder *hf)
{
    JsonScan sc = {len, NULL, 0, NULL, 0};
    size_t cap = 0;
    StrBuf out;
    bool copying = false;
    size_t flushed = 0; /* text[0, flushed) is in out */
    int depth = 0;
    for (size_t i = 0; i < len;) {
        char ch = text[i];
        if (ch == '"') {
            size_t j = string_end(text, len, i);
            if (hf)
                holes_string(hf, i, j);
            i = j;
            continue;
        }
        if (ch == '[' || ch == '{') {
            if (++depth > CJSON_NESTING_LIMIT && sc.too_deep_at == len)
                sc.too_deep_at = i;
            if (hf)
                holes_open(hf, text, i);
            i++;
            continue;
        }
        if (ch == ']' || ch == '}') {
            depth--;
            if (hf)
                holes_close(hf, i);
            i++;
            continue;
        }
        if (ch == ',' && hf)
            holes_comma(hf);
        size_t toklen;
        const char *repl = quirk_at(text, len, i, &toklen);
        if (repl) {
            if (!copying) {
                sb_init(&out);
                copying = true;
            }
            sb_appendn(&out, text + flushed, i - flushed);
            if (repl[0]) {
                sb_append(&out, repl);
            } else {
                sb_append(&out, "\"" LONG_INT_MARK);
                sb_appendn(&out, text + i, toklen);
                sb_append(&out, "\"");
            }
            flushed = i + toklen;
            if (sc.nedits == cap)
                sc.edits = ep_xrealloc(sc.edits, (cap = cap ? 2 * cap : 16) * sizeof *sc.edits);
            sc.edits[sc.nedits++] = (struct JsonEdit){out.len, flushed};
        }
        i += toklen;
    }
    if (hf)
        holes_finish(hf);
    if (copying) {
        sb_appendn(&out, text + flushed, len - flushed);
        sc.fixed_len = out.len;
        sc.fixed = sb_take(&out);
    }
    return sc;
}

/* Fail with the line and column of text where cJSON stopped reading sc's
** copy of it (or text itself).  Only on this path the copy is made with a
** terminating zero, so that cJSON stops at the end the way it does in a file
** that ends early ("truncated?"). */
static void json_syntax_error(const char *text, size_t len, const JsonScan *sc, const char *label, EpError *err)
{
    const char *src = sc->fixed ? sc->fixed : text;
    size_t srclen = sc->fixed ? sc->fixed_len : len;
    char *z = ep_xmalloc(srclen + 1);
    memcpy(z, src, srclen);
    z[srclen] = '\0';
    const char *where = NULL;
    cJSON_Delete(cJSON_ParseWithOpts(z, &where, false));
    if (!where)
        where = cJSON_GetErrorPtr();
    if (where && (where < z || where > z + srclen))
        where = NULL;
    bool at_end = where && !*where;
    /* the offset in the copy, then in text: after the last replacement
    ** before it, both advance together (cJSON never stops inside one, a
    ** replacement being a whole string literal) */
    size_t off = where ? (size_t)(where - z) : 0;
    for (size_t k = sc->nedits; k-- > 0;)
        if (sc->edits[k].fixed_end <= off) {
            off = sc->edits[k].text_end + (off - sc->edits[k].fixed_end);
            break;
        }
    int line = 1, col = 1;
    for (size_t i = 0; i < off && i < len && text[i]; i++) {
        col = text[i] == '\n' ? 1 : col + 1;
        line += text[i] == '\n';
    }
    ep_fail(err, EP_ERR_FORMAT, "%s: invalid JSON at line %d, column %d%s", label, line, col,
            at_end ? " (the text ends early: truncated?)" : "");
    free(z);
}

cJSON *json_parse(const char *text, size_t len, const char *label, EpError *err)
{
    JsonScan sc = json_scan(text, len, NULL);
    if (sc.too_deep_at < len) {
        free(sc.fixed);
        free(sc.edits);
        int line = 1, col = 1;
        for (size_t i = 0; i < sc.too_deep_at; i++) {
            col = text[i] == '\n' ? 1 : col + 1;
            line += text[i] == '\n';
        }
        ep_fail(err, EP_ERR_FORMAT, "%s: JSON nested deeper than %d levels at line %d, column %d", label,
                CJSON_NESTING_LIMIT, line, col);
        return NULL;
    }
    /* cJSON reads the fixed copy, or the text itself in place */
    const char *src = sc.fixed ? sc.fixed : text;
    cJSON *root = cJSON_ParseWithLengthOpts(src, sc.fixed ? sc.fixed_len : len, NULL, false);
    if (!root)
        json_syntax_error(text, len, &sc, label, err);
    free(sc.fixed);
    free(sc.edits);
    return root;
}

/* ---- the tree in an arena ------------------------------------------------------ */

/* A program's JSON is some 50 cJSON items a node, each a malloc of its own
** (and one more for its key): an arena takes them all in large chunks,
** exactly sized, and frees them at once, with no walk over the tree. */
typedef struct ArenaChunk {
    struct ArenaChunk *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
} ArenaChunk;

struct JsonArena {
    ArenaChunk *chunks; /* newest first */
    size_t next_cap;
};

/* cJSON's hooks are global: while one thread parses into the arena, other
** threads' allocations go to malloc, and frees of anything outside the
** arena go to free. */
static JsonArena *arena_active;
static pthread_t arena_thread;

static bool in_arena(const JsonArena *a, const void *p)
{
    for (const ArenaChunk *c = a->chunks; c; c = c->next)
        if ((const unsigned char *)p >= c->data && (const unsigned char *)p < c->data + c->cap)
            return true;
    return false;
}

static void *arena_malloc(size_t n)
{
    JsonArena *a = arena_active;
    if (!a || !pthread_equal(pthread_self(), arena_thread))
        return malloc(n);
    n = (n + 7) & ~(size_t)7; /* cJSON items hold pointers and doubles */
    ArenaChunk *c = a->chunks;
    if (!c || c->cap - c->used < n) {
        size_t cap = a->next_cap > n ? a->next_cap : n;
        c = malloc(sizeof *c + cap);
        if (!c)
            return NULL; /* cJSON fails the parse */
        c->next = a->chunks;
        c->used = 0;
        c->cap = cap;
        a->chunks = c;
        if (a->next_cap < ((size_t)16 << 20))
            a->next_cap *= 2;
    }
    void *p = c->data + c->used;
    c->used += n;
    return p;
}

static void arena_free(void *p)
{
    if (p && !(arena_active && in_arena(arena_active, p)))
        free(p);
}

JsonArena *json_arena_new(void)
{
    JsonArena *a = ep_xcalloc(1, sizeof *a);
    a->next_cap = (size_t)1 << 16;
    return a;
}

cJSON *json_parse_arena(const char *text, size_t len, const char *label, JsonArena **arena, EpError *err)
{
    JsonArena *a = json_arena_new();
    arena_active = a;
    arena_thread = pthread_self();
    cJSON_InitHooks(&(cJSON_Hooks){arena_malloc, arena_free});
    cJSON *root = json_parse(text, len, label, err);
    cJSON_InitHooks(NULL);
    arena_active = NULL;
    if (!root) {
        json_arena_free(a);
        a = NULL;
    }
    *arena = a;
    return root;
}

void json_arena_free(JsonArena *a)
{
    if (!a)
        return;
    for (ArenaChunk *c = a->chunks, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    free(a);
}

/* ---- documents read in pieces ---------------------------------------------------- */

void json_arena_reset(JsonArena *a)
{
    ArenaChunk *c = a->chunks;
    while (c && c->next) { /* keep the oldest (first) chunk */
        ArenaChunk *next = c->next;
        free(c);
        c = next;
    }
    a->chunks = c;
    if (c)
        c->used = 0;
}

/* Parse text[0, len) into a (hooks as json_parse_arena); NULL if it is not
** one JSON value. */
static cJSON *parse_into(JsonArena *a, const char *text, size_t len)
{
    arena_active = a;
    arena_thread = pthread_self();
    cJSON_InitHooks(&(cJSON_Hooks){arena_malloc, arena_free});
    cJSON *v = cJSON_ParseWithLengthOpts(text, len, NULL, false);
    cJSON_InitHooks(NULL);
    arena_active = NULL;
    return v;
}

static int hole_cmp(const void *a, const void *b)
{
    const JsonHole *x = *(const JsonHole *const *)a, *y = *(const JsonHole *const *)b;
    return x->at < y->at ? -1 : x->at > y->at;
}

cJSON *json_parse_holes(const char *text, size_t len, const char *label, JsonHole *holes, int nholes, JsonArena **arena,
                        EpError *err)
{
    for (int h = 0; h < nholes; h++)
        holes[h].at = holes[h].end = 0;
    HoleFinder hf;
    holes_init(&hf, holes, nholes);
    JsonScan sc = json_scan(text, len, &hf);
    bool plain = sc.too_deep_at == len && !sc.fixed;
    free(sc.fixed);
    free(sc.edits);
    if (!plain) { /* quirks or too deep: the whole document, as json_parse tells */
        for (int h = 0; h < nholes; h++)
            holes[h].at = holes[h].end = 0;
        return json_parse_arena(text, len, label, arena, err);
    }
    JsonHole *order[8];
    int n = 0;
    for (int h = 0; h < nholes && n < 8; h++)
        if (holes[h].end)
            order[n++] = &holes[h];
    ep_qsort(order, (size_t)n, sizeof *order, hole_cmp);
    StrBuf sk; /* the text with each hole's value emptied */
    sb_init(&sk);
    size_t from = 0;
    for (int k = 0; k < n; k++) {
        sb_appendn(&sk, text + from, order[k]->at - from);
        sb_append(&sk, text[order[k]->at] == '{' ? "{}" : "[]");
        from = order[k]->end;
    }
    sb_appendn(&sk, text + from, len - from);
    JsonArena *a = json_arena_new();
    cJSON *root = parse_into(a, sk.data, sk.len);
    sb_free(&sk);
    if (!root) { /* the error told as the whole document's */
        json_arena_free(a);
        for (int h = 0; h < nholes; h++)
            holes[h].at = holes[h].end = 0;
        return json_parse_arena(text, len, label, arena, err);
    }
    *arena = a;
    return root;
}

static size_t skip_space(const char *t, size_t i, size_t end)
{
    while (i < end && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r'))
        i++;
    return i;
}

/* Where the JSON value starting at t[i] ends (just past it), or SIZE_MAX when
** it does not end before end. */
static size_t value_end(const char *t, size_t i, size_t end)
{
    if (i >= end)
        return SIZE_MAX;
    if (t[i] == '"') {
        size_t j = string_end(t, end, i);
        return j <= end && t[j - 1] == '"' && j - i >= 2 ? j : SIZE_MAX;
    }
    if (t[i] == '{' || t[i] == '[') {
        int depth = 0;
        for (size_t j = i; j < end;) {
            if (t[j] == '"') {
                j = string_end(t, end, j);
                continue;
            }
            if (t[j] == '{' || t[j] == '[')
                depth++;
            else if ((t[j] == '}' || t[j] == ']') && --depth == 0)
                return j + 1;
            j++;
        }
        return SIZE_MAX;
    }
    size_t j = i;
    while (j < end && t[j] != ',' && t[j] != ']' && t[j] != '}' && t[j] != ' ' && t[j] != '\t' && t[j] != '\n' &&
           t[j] != '\r')
        j++;
    return j;
}

int json_hole_item(const char *text, const JsonHole *h, size_t *pos, JsonPiece *key, size_t *at)
{
    bool object = text[h->at] == '{';
    size_t close = h->end - 1, i = skip_space(text, *pos ? *pos : h->at + 1, close);
    if (i == close)
        return 0;
    if (object) {
        size_t k = value_end(text, i, close);
        if (text[i] != '"' || k == SIZE_MAX)
            return -1;
        *key = (JsonPiece){text + i, k - i};
        i = skip_space(text, k, close);
        if (i == close || text[i] != ':')
            return -1;
        i = skip_space(text, i + 1, close);
    }
    *at = i;
    return 1;
}

size_t json_hole_value_end(const char *text, const JsonHole *h, size_t at)
{
    size_t v = value_end(text, at, h->end - 1);
    return v == SIZE_MAX || v == at ? 0 : v;
}

int json_hole_after(const char *text, const JsonHole *h, size_t end, size_t *pos)
{
    size_t close = h->end - 1, i = skip_space(text, end, close);
    if (i < close) {
        if (text[i] != ',')
            return -1;
        i = skip_space(text, i + 1, close);
        if (i == close)
            return -1; /* a trailing comma */
    }
    *pos = i;
    return 1;
}

int json_hole_next(const char *text, const JsonHole *h, size_t *pos, JsonPiece *key, JsonPiece *value)
{
    size_t at, end;
    int got = json_hole_item(text, h, pos, key, &at);
    if (got <= 0)
        return got;
    if (!(end = json_hole_value_end(text, h, at)))
        return -1;
    *value = (JsonPiece){text + at, end - at};
    return json_hole_after(text, h, end, pos);
}

cJSON *json_parse_piece(JsonArena *a, JsonPiece piece)
{
    return parse_into(a, piece.text, piece.len);
}

const char *jpath_str(const JPath *p, char *buf, size_t cap)
{
    /* the whole path, however deep the JSON nests */
    int n = 0;
    for (const JPath *q = p; q; q = q->parent)
        n++;
    const JPath **chain = ep_xmalloc((size_t)(n ? n : 1) * sizeof *chain);
    n = 0;
    for (; p; p = p->parent)
        chain[n++] = p;
    size_t len = 0;
    buf[0] = '\0';
    for (int i = n - 1; i >= 0 && len < cap; i--) {
        if (chain[i]->key)
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? "." : "", chain[i]->key);
        else
            len += (size_t)snprintf(buf + len, cap - len, "[%d]", chain[i]->index);
    }
    free(chain);
    if (!buf[0])
        snprintf(buf, cap, "(top level)");
    return buf;
}

EpStatus jfail(const JCtx *c, const JPath *p, const char *fmt, ...)
{
    char msg[1024], path[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ep_fail(c->err, EP_ERR_FORMAT, "%s: %s: %s", c->label, jpath_str(p, path, sizeof path), msg);
}

const cJSON *jget(const cJSON *obj, const char *key)
{
    if (!cJSON_IsObject(obj))
        return NULL;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return (v && !cJSON_IsNull(v)) ? v : NULL;
}

EpStatus jtable(const JCtx *c, const JPath *p, const cJSON *obj, const char *key, const cJSON **out)
{
    *out = jget(obj, key);
    if (*out && !cJSON_IsObject(*out)) {
        JPath sub = {p, key, 0};
        *out = NULL;
        return jfail(c, &sub, "expected an object (a table keyed by name)");
    }
    return EP_OK;
}

EpStatus jneed(const JCtx *c, const JPath *p, const cJSON *obj, const char *key, const cJSON **out)
{
    if (!cJSON_IsObject(obj))
        return jfail(c, p, "expected an object");
    *out = jget(obj, key);
    if (!*out) {
        JPath sub = {p, key, 0};
        return jfail(c, &sub, "missing required field");
    }
    return EP_OK;
}

bool jis_int(const cJSON *v)
{
    if (cJSON_IsNumber(v))
        return v->valuedouble == floor(v->valuedouble) && fabs(v->valuedouble) < 9.3e18;
    return cJSON_IsString(v) && strncmp(v->valuestring, LONG_INT_MARK, strlen(LONG_INT_MARK)) == 0;
}

EpStatus jint(const JCtx *c, const JPath *p, const cJSON *v, int64_t *out)
{
    if (cJSON_IsNumber(v)) {
        double d = v->valuedouble;
        if (d != floor(d))
            return jfail(c, p, "expected an integer, got %g", d);
        if (d >= 9223372036854775807.0)
            *out = INT64_MAX;
        else if (d <= -9223372036854775808.0)
            *out = INT64_MIN;
        else
            *out = (int64_t)d;
        return EP_OK;
    }
    if (cJSON_IsString(v) && strncmp(v->valuestring, LONG_INT_MARK, strlen(LONG_INT_MARK)) == 0) {
        errno = 0;
        long long x = strtoll(v->valuestring + strlen(LONG_INT_MARK), NULL, 10);
        *out = x; /* ERANGE saturates at LLONG_MIN/MAX: Python ints beyond int64 */
        return EP_OK;
    }
    if (cJSON_IsBool(v)) { /* a Python bool is an int */
        *out = cJSON_IsTrue(v);
        return EP_OK;
    }
    return jfail(c, p, "expected an integer");
}

EpStatus jfloat(const JCtx *c, const JPath *p, const cJSON *v, double *out)
{
    if (cJSON_IsNumber(v)) {
        *out = v->valuedouble;
        return EP_OK;
    }
    if (cJSON_IsString(v)) {
        const char *s = v->valuestring;
        if (strcmp(s, "Infinity") == 0 || strcmp(s, "inf") == 0) {
            *out = INFINITY;
            return EP_OK;
        }
        if (strcmp(s, "-Infinity") == 0 || strcmp(s, "-inf") == 0) {
            *out = -INFINITY;
            return EP_OK;
        }
        if (strcmp(s, "NaN") == 0 || strcmp(s, "nan") == 0) {
            *out = NAN;
            return EP_OK;
        }
        if (strncmp(s, LONG_INT_MARK, strlen(LONG_INT_MARK)) == 0) {
            *out = strtod(s + strlen(LONG_INT_MARK), NULL);
            return EP_OK;
        }
    }
    return jfail(c, p, "expected a number");
}

EpStatus jbool(const JCtx *c, const JPath *p, const cJSON *v, bool *out)
{
    if (cJSON_IsBool(v)) {
        *out = cJSON_IsTrue(v);
        return EP_OK;
    }
    if (cJSON_IsNumber(v) && (v->valuedouble == 0 || v->valuedouble == 1)) {
        *out = v->valuedouble != 0;
        return EP_OK;
    }
    return jfail(c, p, "expected true or false");
}

EpStatus jstr(const JCtx *c, const JPath *p, const cJSON *v, const char **out)
{
    if (!cJSON_IsString(v))
        return jfail(c, p, "expected a string");
    *out = v->valuestring;
    return EP_OK;
}

EpStatus junion(const JCtx *c, const JPath *p, const cJSON *u, const char **key, const cJSON **val)
{
    if (!cJSON_IsObject(u))
        return jfail(c, p, "expected a union object");
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(u, "$type");
    if (t && cJSON_IsString(t)) {
        *key = t->valuestring;
        *val = cJSON_GetObjectItemCaseSensitive(u, "$value");
        return EP_OK;
    }
    const cJSON *chosen = NULL, *none = NULL;
    int nset = 0, nkeys = 0;
    for (const cJSON *m = u->child; m; m = m->next) {
        nkeys++;
        if (strcmp(m->string, "as_none") == 0)
            none = m;
        if (!cJSON_IsNull(m)) {
            chosen = m;
            nset++;
        }
    }
    if (nkeys == 1) { /* single-key form: the value may legitimately be null */
        *key = u->child->string;
        *val = u->child;
        return EP_OK;
    }
    if (nset == 1) {
        *key = chosen->string;
        *val = chosen;
        return EP_OK;
    }
    if (nset == 0 && none) {
        *key = "as_none";
        *val = none;
        return EP_OK;
    }
    if (nkeys == 0)
        return jfail(c, p, "empty union object");
    return jfail(c, p, "union with %d variants set (expected exactly one)", nset);
}
