/*
** json.c -- cJSON with PyTorch's JSON quirks and path-naming errors.
*/
#include "json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Marker prefix of a long integer turned into a string by json_fixup.  It
** cannot occur in a real JSON string (a raw control byte is not allowed). */
#define LONG_INT_MARK "\x01i:"

/* Copy text to a new buffer, turning bare Infinity/-Infinity/NaN tokens into
** strings and integers with more than 15 digits into marked strings.  String
** literals are copied untouched. */
static char *json_fixup(const char *text, size_t len)
{
    StrBuf out;
    sb_init(&out);
    size_t i = 0;
    while (i < len) {
        char ch = text[i];
        if (ch == '"') { /* copy the string literal, honouring escapes */
            size_t j = i + 1;
            while (j < len && text[j] != '"') {
                if (text[j] == '\\' && j + 1 < len)
                    j++;
                j++;
            }
            if (j < len)
                j++;
            sb_appendn(&out, text + i, j - i);
            i = j;
            continue;
        }
        if (ch == 'I' && len - i >= 8 && memcmp(text + i, "Infinity", 8) == 0) {
            sb_append(&out, "\"Infinity\"");
            i += 8;
            continue;
        }
        if (ch == 'N' && len - i >= 3 && memcmp(text + i, "NaN", 3) == 0) {
            sb_append(&out, "\"NaN\"");
            i += 3;
            continue;
        }
        if (ch == '-' && len - i >= 9 && memcmp(text + i, "-Infinity", 9) == 0) {
            sb_append(&out, "\"-Infinity\"");
            i += 9;
            continue;
        }
        if (ch == '-' || (ch >= '0' && ch <= '9')) {
            size_t j = i + (ch == '-');
            size_t digits_start = j;
            while (j < len && text[j] >= '0' && text[j] <= '9')
                j++;
            bool integral = !(j < len && (text[j] == '.' || text[j] == 'e' || text[j] == 'E'));
            if (!integral) { /* the fraction and exponent belong to this token */
                while (j < len && ((text[j] >= '0' && text[j] <= '9') || text[j] == '.' || text[j] == 'e' ||
                                   text[j] == 'E' || text[j] == '+' || text[j] == '-'))
                    j++;
            } else if (j - digits_start > 15) {
                sb_append(&out, "\"" LONG_INT_MARK);
                sb_appendn(&out, text + i, j - i);
                sb_append(&out, "\"");
                i = j;
                continue;
            }
            sb_appendn(&out, text + i, j - i);
            i = j;
            continue;
        }
        sb_appendn(&out, &ch, 1);
        i++;
    }
    return sb_take(&out);
}

/* cJSON refuses nesting deeper than CJSON_NESTING_LIMIT with a bare syntax
** error; find where text first goes deeper, to say so.  Returns the offset,
** or len when it never does. */
static size_t too_deep_at(const char *text, size_t len)
{
    int depth = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = text[i];
        if (ch == '"') { /* skip the string literal */
            for (i++; i < len && text[i] != '"'; i++)
                if (text[i] == '\\')
                    i++;
        } else if (ch == '[' || ch == '{') {
            if (++depth > CJSON_NESTING_LIMIT)
                return i;
        } else if (ch == ']' || ch == '}') {
            depth--;
        }
    }
    return len;
}

cJSON *json_parse(const char *text, size_t len, const char *label, EpError *err)
{
    size_t deep = too_deep_at(text, len);
    if (deep < len) {
        int line = 1, col = 1;
        for (size_t i = 0; i < deep; i++) {
            col = text[i] == '\n' ? 1 : col + 1;
            line += text[i] == '\n';
        }
        ep_fail(err, EP_ERR_FORMAT, "%s: JSON nested deeper than %d levels at line %d, column %d", label,
                CJSON_NESTING_LIMIT, line, col);
        return NULL;
    }
    char *fixed = json_fixup(text, len);
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(fixed, &end, false);
    if (!root) {
        /* report the line and column of the failure in the fixed-up text,
        ** which has the same line structure as the original */
        const char *where = end ? end : cJSON_GetErrorPtr();
        int line = 1, col = 1;
        if (where) {
            for (const char *p = fixed; p < where && *p; p++) {
                if (*p == '\n') {
                    line++;
                    col = 1;
                } else {
                    col++;
                }
            }
        }
        bool at_end = where && !*where;
        ep_fail(err, EP_ERR_FORMAT, "%s: invalid JSON at line %d, column %d%s", label, line, col,
                at_end ? " (the text ends early: truncated?)" : "");
    }
    free(fixed);
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
