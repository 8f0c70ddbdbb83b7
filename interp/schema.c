/*
** schema.c -- parser for operator schemas in native_functions.yaml notation.
**
**   schema  := '(' [arg {',' arg}] ')' '->' rets
**   arg     := '*' | type NAME ['=' default]
**   type    := BASE ['(' alias ')'] ['[' [N] ']'] ['?']
**   rets    := type [NAME] | '(' [type [NAME] {',' type [NAME]}] ')'
**
** Only the table in ops/ops.def is parsed, once, at start-up; an error here is
** a bug in that table and ops_init reports it.
*/
#include "schema.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct Parser {
    const char *p;
    const char *start;
    EpError *err;
} Parser;

static void skip_ws(Parser *ps)
{
    while (*ps->p && isspace((unsigned char)*ps->p))
        ps->p++;
}

static EpStatus parse_error(Parser *ps, const char *what)
{
    return ep_fail(ps->err, EP_ERR_EXEC, "schema \"%s\": %s at offset %d", ps->start, what,
                   (int)(ps->p - ps->start));
}

static bool is_ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.';
}

/* An identifier into buf; false if none. */
static bool read_ident(Parser *ps, char *buf, size_t cap)
{
    skip_ws(ps);
    size_t n = 0;
    while (is_ident_char(*ps->p) && n + 1 < cap)
        buf[n++] = *ps->p++;
    buf[n] = '\0';
    return n > 0;
}

static const struct { const char *name; SchemaType type; } BASE_TYPES[] = {
    {"Tensor", ST_TENSOR}, {"int", ST_INT}, {"SymInt", ST_INT}, {"float", ST_FLOAT},
    {"bool", ST_BOOL}, {"str", ST_STR}, {"Scalar", ST_SCALAR}, {"ScalarType", ST_SCALAR_TYPE},
    {"Layout", ST_LAYOUT}, {"Device", ST_DEVICE}, {"MemoryFormat", ST_MEMFMT},
    {"Generator", ST_GENERATOR}, {"Any", ST_ANY}, {"SymBool", ST_BOOL}, {"SymFloat", ST_FLOAT},
};

static SchemaType list_of(SchemaType t, bool elem_optional, bool *ok)
{
    *ok = true;
    switch (t) {
    case ST_TENSOR: return elem_optional ? ST_OPT_TENSOR_LIST : ST_TENSOR_LIST;
    case ST_INT: return ST_INT_LIST;
    case ST_FLOAT: return ST_FLOAT_LIST;
    case ST_BOOL: return ST_BOOL_LIST;
    case ST_STR: return ST_STR_LIST;
    case ST_SCALAR: return ST_SCALAR_LIST;
    default: *ok = false; return t;
    }
}

/* type := BASE ['(' alias ')'] ['?'] ['[' [N] ']'] ['?'] */
static EpStatus parse_type(Parser *ps, SchemaType *type, bool *optional, bool *mutated, int *fixed_len)
{
    char base[64];
    if (!read_ident(ps, base, sizeof base))
        return parse_error(ps, "expected a type");
    bool found = false;
    for (size_t i = 0; i < EP_ARRAY_LEN(BASE_TYPES); i++)
        if (strcmp(BASE_TYPES[i].name, base) == 0) {
            *type = BASE_TYPES[i].type;
            found = true;
        }
    if (!found)
        return parse_error(ps, "unknown type");
    *optional = false;
    *mutated = false;
    *fixed_len = 0;
    if (*ps->p == '(') { /* alias annotation: (a) or (a!) */
        const char *close = strchr(ps->p, ')');
        if (!close)
            return parse_error(ps, "unclosed alias annotation");
        *mutated = memchr(ps->p, '!', (size_t)(close - ps->p)) != NULL;
        ps->p = close + 1;
    }
    bool elem_optional = false;
    if (*ps->p == '?' && ps->p[1] == '[') {
        elem_optional = true;
        ps->p++;
    }
    if (*ps->p == '[') {
        ps->p++;
        int n = 0;
        while (isdigit((unsigned char)*ps->p))
            n = n * 10 + (*ps->p++ - '0');
        if (*ps->p != ']')
            return parse_error(ps, "expected ']'");
        ps->p++;
        bool ok;
        *type = list_of(*type, elem_optional, &ok);
        if (!ok)
            return parse_error(ps, "unsupported list element type");
        *fixed_len = n;
    }
    if (*ps->p == '?') {
        *optional = true;
        ps->p++;
    }
    return EP_OK;
}

/* One literal of a default: number, True/False/None, quoted string, name. */
static EpStatus parse_literal(Parser *ps, SchemaType type, Value *out)
{
    skip_ws(ps);
    const char *s = ps->p;
    if (*s == '\'' || *s == '"') {
        char q = *s;
        const char *e = strchr(s + 1, q);
        if (!e)
            return parse_error(ps, "unterminated string default");
        out->kind = V_STR;
        out->s = ep_xstrndup(s + 1, (size_t)(e - s - 1));
        ps->p = e + 1;
        return EP_OK;
    }
    char word[64];
    size_t n = 0;
    while (*ps->p && (isalnum((unsigned char)*ps->p) || strchr("_.-+", *ps->p)) && n + 1 < sizeof word)
        word[n++] = *ps->p++;
    word[n] = '\0';
    if (n == 0)
        return parse_error(ps, "expected a default value");
    if (strcmp(word, "None") == 0) {
        out->kind = V_NONE;
    } else if (strcmp(word, "True") == 0 || strcmp(word, "False") == 0) {
        *out = value_bool(word[0] == 'T');
    } else if (strcmp(word, "contiguous_format") == 0) {
        out->kind = V_MEMFMT;
        out->i = 1;
    } else if (strcmp(word, "Mean") == 0) {
        *out = value_int(1); /* at::Reduction::Mean */
    } else if (strcmp(word, "inf") == 0 || strcmp(word, "-inf") == 0) {
        *out = value_float(word[0] == '-' ? -INFINITY : INFINITY);
    } else if (type == ST_SCALAR_TYPE) {
        DType t = dtype_from_name(word);
        if (t == DT_INVALID)
            return parse_error(ps, "unknown dtype default");
        out->kind = V_DTYPE;
        out->i = t;
    } else {
        char *end;
        bool is_float = strpbrk(word, ".eE") != NULL;
        if (is_float) {
            *out = value_float(strtod(word, &end));
        } else {
            *out = value_int(strtoll(word, &end, 10));
        }
        if (*end)
            return parse_error(ps, "bad numeric default");
        if (type == ST_FLOAT && out->kind == V_INT)
            *out = value_float((double)out->i);
    }
    return EP_OK;
}

static SchemaType element_type(SchemaType list_type)
{
    switch (list_type) {
    case ST_INT_LIST: return ST_INT;
    case ST_FLOAT_LIST: return ST_FLOAT;
    case ST_BOOL_LIST: return ST_BOOL;
    case ST_STR_LIST: return ST_STR;
    default: return ST_SCALAR;
    }
}

static EpStatus parse_default(Parser *ps, SchemaArg *a)
{
    skip_ws(ps);
    bool is_list = a->type == ST_INT_LIST || a->type == ST_FLOAT_LIST || a->type == ST_BOOL_LIST ||
                   a->type == ST_STR_LIST || a->type == ST_SCALAR_LIST || a->type == ST_TENSOR_LIST ||
                   a->type == ST_OPT_TENSOR_LIST;
    if (*ps->p == '[') {
        ps->p++;
        Value items[EP_MAX_DIMS];
        int n = 0;
        skip_ws(ps);
        while (*ps->p != ']') {
            if (n == EP_MAX_DIMS)
                return parse_error(ps, "list default too long");
            EpStatus rc = parse_literal(ps, element_type(a->type), &items[n++]);
            if (rc)
                return rc;
            skip_ws(ps);
            if (*ps->p == ',')
                ps->p++;
            skip_ws(ps);
            if (!*ps->p)
                return parse_error(ps, "unterminated list default");
        }
        ps->p++;
        if (n == 1 && a->fixed_len > 1) { /* int[2] x=[1] means [1, 1] */
            for (int i = 1; i < a->fixed_len; i++)
                items[i] = items[0];
            n = a->fixed_len;
        }
        a->dflt.kind = V_LIST;
        a->dflt.list = value_list_new(n);
        for (int i = 0; i < n; i++)
            a->dflt.list->items[i] = items[i];
        return EP_OK;
    }
    Value v;
    EpStatus rc = parse_literal(ps, is_list ? element_type(a->type) : a->type, &v);
    if (rc)
        return rc;
    if (is_list && v.kind != V_NONE) { /* int[2] stride=1 means [1, 1] */
        int n = a->fixed_len > 0 ? a->fixed_len : 1;
        a->dflt.kind = V_LIST;
        a->dflt.list = value_list_new(n);
        for (int i = 0; i < n; i++)
            a->dflt.list->items[i] = v;
        return EP_OK;
    }
    a->dflt = v;
    return EP_OK;
}

void schema_free(OpSchema *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->nargs; i++) {
        free((char *)s->args[i].name);
        value_clear(&s->args[i].dflt);
    }
    for (int i = 0; i < s->nrets; i++)
        free((char *)s->rets[i].name);
    free(s->args);
    free(s->rets);
    free(s);
}

static EpStatus parse_ret(Parser *ps, OpSchema *s)
{
    SchemaRet r = {0};
    bool mutated;
    int fixed_len;
    EpStatus rc = parse_type(ps, &r.type, &r.optional, &mutated, &fixed_len);
    if (rc)
        return rc;
    char name[64];
    const char *save = ps->p;
    if (read_ident(ps, name, sizeof name))
        r.name = ep_xstrdup(name);
    else
        ps->p = save;
    s->rets = ep_xrealloc(s->rets, (size_t)(s->nrets + 1) * sizeof *s->rets);
    s->rets[s->nrets++] = r;
    return EP_OK;
}

OpSchema *schema_parse(const char *text, EpError *err)
{
    Parser ps = {text, text, err};
    OpSchema *s = ep_xcalloc(1, sizeof *s);
    bool kwarg_only = false;
    skip_ws(&ps);
    if (*ps.p != '(') {
        parse_error(&ps, "expected '('");
        goto fail;
    }
    ps.p++;
    skip_ws(&ps);
    while (*ps.p != ')') {
        if (*ps.p == '*') {
            kwarg_only = true;
            ps.p++;
        } else {
            SchemaArg a = {0};
            if (parse_type(&ps, &a.type, &a.optional, &a.mutated, &a.fixed_len))
                goto fail;
            char name[64];
            if (!read_ident(&ps, name, sizeof name)) {
                parse_error(&ps, "expected an argument name");
                goto fail;
            }
            a.name = ep_xstrdup(name);
            a.kwarg_only = kwarg_only;
            a.dflt.kind = V_NONE;
            s->args = ep_xrealloc(s->args, (size_t)(s->nargs + 1) * sizeof *s->args);
            s->args[s->nargs++] = a;
            skip_ws(&ps);
            if (*ps.p == '=') {
                ps.p++;
                SchemaArg *last = &s->args[s->nargs - 1];
                last->has_default = true;
                if (parse_default(&ps, last))
                    goto fail;
            }
        }
        skip_ws(&ps);
        if (*ps.p == ',') {
            ps.p++;
            skip_ws(&ps);
        } else if (*ps.p != ')') {
            parse_error(&ps, "expected ',' or ')'");
            goto fail;
        }
    }
    ps.p++;
    skip_ws(&ps);
    if (strncmp(ps.p, "->", 2) != 0) {
        parse_error(&ps, "expected '->'");
        goto fail;
    }
    ps.p += 2;
    skip_ws(&ps);
    if (*ps.p == '(') {
        ps.p++;
        skip_ws(&ps);
        while (*ps.p != ')') {
            if (parse_ret(&ps, s))
                goto fail;
            skip_ws(&ps);
            if (*ps.p == ',')
                ps.p++;
            else if (*ps.p != ')') {
                parse_error(&ps, "expected ',' or ')' in returns");
                goto fail;
            }
            skip_ws(&ps);
        }
        ps.p++;
    } else if (parse_ret(&ps, s)) {
        goto fail;
    }
    skip_ws(&ps);
    if (*ps.p) {
        parse_error(&ps, "trailing text");
        goto fail;
    }
    return s;
fail:
    schema_free(s);
    return NULL;
}

int schema_arg_index(const OpSchema *s, const char *name)
{
    for (int i = 0; i < s->nargs; i++)
        if (strcmp(s->args[i].name, name) == 0)
            return i;
    return -1;
}

const char *schema_type_name(SchemaType t)
{
    static const char *names[] = {
        [ST_TENSOR] = "Tensor", [ST_TENSOR_LIST] = "Tensor[]", [ST_OPT_TENSOR_LIST] = "Tensor?[]",
        [ST_INT] = "int", [ST_FLOAT] = "float", [ST_BOOL] = "bool", [ST_STR] = "str",
        [ST_SCALAR] = "Scalar", [ST_SCALAR_TYPE] = "ScalarType", [ST_LAYOUT] = "Layout",
        [ST_DEVICE] = "Device", [ST_MEMFMT] = "MemoryFormat", [ST_GENERATOR] = "Generator",
        [ST_INT_LIST] = "int[]", [ST_FLOAT_LIST] = "float[]", [ST_BOOL_LIST] = "bool[]",
        [ST_STR_LIST] = "str[]", [ST_SCALAR_LIST] = "Scalar[]", [ST_ANY] = "Any",
    };
    return (t >= 0 && t <= ST_ANY) ? names[t] : "?";
}
