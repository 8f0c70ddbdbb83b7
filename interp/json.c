/*
** json.c -- cJSON with PyTorch's JSON quirks and path-naming errors.
*/
#include "json.h"

#include <errno.h>
#include <math.h>
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

/* One pass: nesting depth and the quirks.  Text without quirks (every file
** PyTorch >= 2.7 writes, nearly) is never copied; text with them is copied
** in runs between the tokens replaced. */
static JsonScan json_scan(const char *text, size_t len)
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
            i = string_end(text, len, i);
            continue;
        }
        if (ch == '[' || ch == '{') {
            if (++depth > CJSON_NESTING_LIMIT && sc.too_deep_at == len)
                sc.too_deep_at = i;
            i++;
            continue;
        }
        if (ch == ']' || ch == '}') {
            depth--;
            i++;
            continue;
        }
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
    JsonScan sc = json_scan(text, len);
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
