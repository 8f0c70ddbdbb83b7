/*
** node_reader.c -- a graph node (and a tensor_values entry) read straight
** from its JSON text, for the
** shapes nearly every node PyTorch writes has (schema 5 and later: single-key
** unions, tensors as {"name": ...}).  It builds the Node with one malloc per
** string it keeps and no cJSON items, which were most of what opening a big
** graph cost.
**
** It only accepts: anything unusual -- a control byte or an escape cJSON
** would refuse (or decode to a NUL) in a string, an escape in a key, a key or Argument variant it does not know, a key written twice,
** a number JSON does not allow or a double may not hold exactly -- makes
** node_read_fast give up, and program_load.c parses that node with cJSON as
** before, so every error is told exactly as before.  What it accepts it
** must build exactly as parse_node does (tests/test_load_fast.c loads every
** example and corpus archive both ways and compares the programs).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "ops.h"
#include "program_int.h"

/* A cursor over the node's text, and where the node's names go (NULL: a
** malloc each). */
typedef struct Rd {
    const char *p, *end;
    NameArena *names;
} Rd;

static void skip_ws(Rd *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
        r->p++;
}

/* The next token is the character c: consume it. */
static bool eat(Rd *r, char c)
{
    skip_ws(r);
    if (r->p < r->end && *r->p == c) {
        r->p++;
        return true;
    }
    return false;
}

/* The next token is the bare word w (null, true, false). */
static bool eat_word(Rd *r, const char *w)
{
    skip_ws(r);
    size_t n = strlen(w);
    if ((size_t)(r->end - r->p) >= n && memcmp(r->p, w, n) == 0) {
        r->p += n;
        return true;
    }
    return false;
}

/* A string with no control byte: its bytes as written, unquoted, and
** whether it has escapes (*esc: then only read_str_dup decodes it). */
static bool read_str_raw(Rd *r, const char **s, size_t *n, bool *esc)
{
    skip_ws(r);
    if (r->p >= r->end || *r->p != '"')
        return false;
    /* the cursor in locals: a byte read through a char pointer may alias
    ** r->p, which would be stored and loaded again at every byte */
    const char *b = r->p + 1, *p = b, *end = r->end;
    *esc = false;
    for (;;) {
        while (p < end && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
            p++;
        if (p >= end || (unsigned char)*p < 0x20)
            return false;
        if (*p == '"')
            break;
        *esc = true; /* a backslash: the byte after it is taken as it is */
        p += 2;
    }
    *s = b;
    *n = (size_t)(p - b);
    r->p = p + 1;
    return true;
}

/* A string without escapes (keys, names). */
static bool read_str(Rd *r, const char **s, size_t *n)
{
    bool esc;
    return read_str_raw(r, s, n, &esc) && !esc;
}

static int hex4(const char *s, const char *end)
{
    if (end - s < 4)
        return -1;
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/* The escaped string s[0, n) decoded as cJSON decodes it, into out (room
** for n + 1 bytes: decoding never lengthens); false for what cJSON refuses
** or decodes to a NUL (left to it). */
static bool unescape(const char *s, size_t n, char *out)
{
    static const char simple[] = "\"\"\\\\//b\bf\fn\nr\rt\t";
    const char *end = s + n;
    char *o = out;
    while (s < end) {
        if (*s != '\\') {
            *o++ = *s++;
            continue;
        }
        char c = s[1];
        const char *m = NULL;
        for (int i = 0; simple[i]; i += 2)
            if (simple[i] == c)
                m = &simple[i + 1];
        if (m) {
            *o++ = *m;
            s += 2;
            continue;
        }
        if (c != 'u')
            return false;
        long cp = hex4(s + 2, end);
        s += 6;
        if (cp <= 0 || (cp >= 0xDC00 && cp <= 0xDFFF))
            return false;
        if (cp >= 0xD800 && cp <= 0xDBFF) { /* a surrogate pair */
            if (end - s < 6 || s[0] != '\\' || s[1] != 'u')
                return false;
            long lo = hex4(s + 2, end);
            if (lo < 0xDC00 || lo > 0xDFFF)
                return false;
            cp = 0x10000 + (((cp & 0x3FF) << 10) | (lo & 0x3FF));
            s += 6;
        }
        if (cp < 0x80) {
            *o++ = (char)cp;
        } else if (cp < 0x800) {
            *o++ = (char)(0xC0 | (cp >> 6));
            *o++ = (char)(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            *o++ = (char)(0xE0 | (cp >> 12));
            *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
            *o++ = (char)(0x80 | (cp & 0x3F));
        } else {
            *o++ = (char)(0xF0 | (cp >> 18));
            *o++ = (char)(0x80 | ((cp >> 12) & 0x3F));
            *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
            *o++ = (char)(0x80 | (cp & 0x3F));
        }
    }
    *o = '\0';
    return true;
}

/* A string, decoded, in names (NULL: its own malloc). */
static bool decode_str(Rd *r, NameArena *names, char **out)
{
    const char *s;
    size_t n;
    bool esc;
    if (!read_str_raw(r, &s, &n, &esc))
        return false;
    if (!esc) {
        *out = names ? name_arena_dup(names, s, n) : ep_xstrndup(s, n);
        return true;
    }
    char *d = names ? name_arena_alloc(names, n + 1) : ep_xmalloc(n + 1);
    if (!unescape(s, n, d)) {
        if (!names) /* (arena room: the whole node's is taken back) */
            free(d);
        return false;
    }
    *out = d;
    return true;
}

/* A string the node keeps in a Value (freed by value_clear): a malloc. */
static bool read_str_dup(Rd *r, char **out)
{
    return decode_str(r, NULL, out);
}

/* A name, target, reference or metadata string: in the arena if any. */
static bool read_name(Rd *r, char **out)
{
    return decode_str(r, r->names, out);
}

/* (the first byte first: a key is tried against a table of names, and
** most differ there, before any strlen) */
static inline bool is_key(const char *s, size_t n, const char *key)
{
    return n && s[0] == key[0] && n == strlen(key) && memcmp(s, key, n) == 0;
}

static bool is_digit(const Rd *r, const char *q)
{
    return q < r->end && *q >= '0' && *q <= '9';
}

/* A JSON integer of at most 15 digits (a double holds it exactly, so it is
** what cJSON's valuedouble and jint give). */
static bool read_int(Rd *r, int64_t *out)
{
    skip_ws(r);
    const char *q = r->p;
    bool neg = q < r->end && *q == '-';
    q += neg;
    const char *digits = q;
    int64_t v = 0;
    while (is_digit(r, q)) {
        if (q - digits == 15) /* longer: cJSON's, before v overflows (a fuzzing finding) */
            return false;
        v = v * 10 + (*q++ - '0');
    }
    size_t nd = (size_t)(q - digits);
    if (nd == 0 || (nd > 1 && *digits == '0'))
        return false;
    if (q < r->end && (*q == '.' || *q == 'e' || *q == 'E'))
        return false;
    *out = neg ? -v : v;
    r->p = q;
    return true;
}

/* A JSON number, converted by strtod as cJSON converts it. */
static bool read_double(Rd *r, double *out)
{
    skip_ws(r);
    const char *q = r->p;
    q += q < r->end && *q == '-';
    if (!is_digit(r, q))
        return false;
    if (*q == '0')
        q++;
    else
        while (is_digit(r, q))
            q++;
    if (q < r->end && *q == '.') {
        if (!is_digit(r, ++q))
            return false;
        while (is_digit(r, q))
            q++;
    }
    if (q < r->end && (*q == 'e' || *q == 'E')) {
        q++;
        q += q < r->end && (*q == '+' || *q == '-');
        if (!is_digit(r, q))
            return false;
        while (is_digit(r, q))
            q++;
    }
    char buf[48];
    size_t n = (size_t)(q - r->p);
    if (n >= sizeof buf)
        return false;
    memcpy(buf, r->p, n);
    buf[n] = '\0';
    *out = strtod(buf, NULL);
    r->p = q;
    return true;
}

static bool read_bool(Rd *r, bool *out)
{
    if (eat_word(r, "true"))
        return *out = true, true;
    if (eat_word(r, "false"))
        return *out = false, true;
    return false;
}

/* {"name": "x"} (TensorArgument) or, as old writers put it, "x". */
static bool read_name_ref(Rd *r, char **out)
{
    skip_ws(r);
    if (r->p < r->end && *r->p == '"')
        return read_name(r, out);
    const char *k;
    size_t kn;
    return eat(r, '{') && read_str(r, &k, &kn) && is_key(k, kn, "name") && eat(r, ':') && read_name(r, out) &&
           eat(r, '}');
}

/* The items of a list being read: in the Items' own room for the first few
** (most lists hold one to three), then on the heap; items_take gives them
** in a block of their exact size.  A node's lists were grown 4 items at a
** time and kept so: half of what its Args took was room never used, and
** pages touched for nothing. */
enum { FEW_ITEMS = 8 };

typedef struct Items {
    char *p;   /* few, or a heap block */
    int n, cap;
    size_t size;
    union { NamedArg na[FEW_ITEMS]; Arg a[FEW_ITEMS]; } few;
} Items;

static void items_init(Items *l, size_t size)
{
    l->p = (char *)&l->few;
    l->n = 0;
    l->cap = FEW_ITEMS;
    l->size = size;
}

/* Room for one more item, zeroed. */
static void *items_add(Items *l)
{
    if (l->n == l->cap) {
        size_t bytes = (size_t)l->cap * l->size;
        if (l->p == (char *)&l->few) {
            l->p = ep_xmalloc(2 * bytes);
            memcpy(l->p, &l->few, bytes);
        } else {
            l->p = ep_xrealloc(l->p, 2 * bytes);
        }
        l->cap *= 2;
    }
    void *it = l->p + (size_t)l->n++ * l->size;
    memset(it, 0, l->size);
    return it;
}

/* The items (every one begun, so that a failed one's part is freed with
** them) in a block of their own; an empty list is one zeroed item. */
static void *items_take(Items *l)
{
    if (l->n == 0)
        return ep_xcalloc(1, l->size);
    if (l->p != (char *)&l->few)
        return l->n == l->cap ? l->p : ep_xrealloc(l->p, (size_t)l->n * l->size);
    void *b = ep_xmalloc((size_t)l->n * l->size);
    memcpy(b, l->p, (size_t)l->n * l->size);
    return b;
}

/* A list item of one of the literal or tensor list variants. */
typedef bool (*ItemReader)(Rd *r, Arg *item);

static bool item_int(Rd *r, Arg *a)
{
    a->kind = ARG_INT;
    a->lit.kind = V_INT;
    return read_int(r, &a->lit.i);
}

static bool item_float(Rd *r, Arg *a)
{
    a->kind = ARG_FLOAT;
    a->lit.kind = V_FLOAT;
    return read_double(r, &a->lit.f);
}

static bool item_bool(Rd *r, Arg *a)
{
    a->kind = ARG_BOOL;
    a->lit.kind = V_BOOL;
    return read_bool(r, &a->lit.b);
}

static bool item_string(Rd *r, Arg *a)
{
    a->kind = ARG_STRING;
    a->lit.kind = V_STR;
    char *s;
    if (!read_str_dup(r, &s))
        return false;
    a->lit.s = s;
    return true;
}

static bool item_tensor(Rd *r, Arg *a)
{
    a->kind = ARG_TENSOR;
    return read_name_ref(r, &a->ref);
}

/* A JSON list into a->items (a->n counts every item begun, so that
** arg_free frees a failed one's part). */
static bool read_list(Rd *r, Arg *a, ItemReader fn)
{
    if (!eat(r, '['))
        return false;
    Items l;
    items_init(&l, sizeof(Arg));
    bool ok = eat(r, ']');
    if (!ok) {
        do
            ok = fn(r, items_add(&l));
        while (ok && eat(r, ','));
        ok = ok && eat(r, ']');
    }
    a->n = l.n;
    a->items = items_take(&l);
    return ok;
}

/* DeviceArgument {"type": "cpu", "index": null | int}, or "cpu". */
static bool read_device(Rd *r, char **out)
{
    skip_ws(r);
    if (r->p < r->end && *r->p == '"')
        return read_str_dup(r, out);
    const char *type = NULL, *k;
    size_t tn = 0, kn;
    bool has_index = false, seen_index = false;
    int64_t index = 0;
    if (!eat(r, '{'))
        return false;
    do {
        if (!read_str(r, &k, &kn) || !eat(r, ':'))
            return false;
        if (is_key(k, kn, "type") && !type) {
            if (!read_str(r, &type, &tn))
                return false;
        } else if (is_key(k, kn, "index") && !seen_index) {
            seen_index = true;
            if (!eat_word(r, "null")) {
                if (!read_int(r, &index))
                    return false;
                has_index = true;
            }
        } else {
            return false;
        }
    } while (eat(r, ','));
    if (!eat(r, '}') || !type)
        return false;
    *out = has_index ? ep_xasprintf("%.*s:%lld", (int)tn, type, (long long)index) : ep_xstrndup(type, tn);
    return true;
}

static bool enum_known(ArgKind kind, int64_t code)
{
    if (code < INT32_MIN || code > INT32_MAX)
        return false;
    return (kind == ARG_SCALAR_TYPE ? scalar_type_entry((int)code)
            : kind == ARG_LAYOUT    ? layout_entry((int)code)
                                    : memory_format_entry((int)code)) != NULL;
}

/* One Argument: a single-key union object of a variant below. */
static bool read_arg(Rd *r, Arg *a)
{
    static const struct { const char *key; ArgKind kind; ItemReader item; } lists[] = {
        {"as_tensors", ARG_TENSORS, item_tensor}, {"as_ints", ARG_INTS, item_int},
        {"as_floats", ARG_FLOATS, item_float},    {"as_bools", ARG_BOOLS, item_bool},
        {"as_strings", ARG_STRINGS, item_string},
    };
    static const struct { const char *key; ItemReader item; } scalars[] = {
        {"as_tensor", item_tensor}, {"as_int", item_int},       {"as_float", item_float},
        {"as_bool", item_bool},     {"as_string", item_string},
    };
    static const struct { const char *key; ArgKind kind; } codes[] = {
        {"as_scalar_type", ARG_SCALAR_TYPE}, {"as_memory_format", ARG_MEMORY_FORMAT}, {"as_layout", ARG_LAYOUT},
    };
    memset(a, 0, sizeof *a);
    const char *k;
    size_t kn;
    if (!eat(r, '{') || !read_str(r, &k, &kn) || !eat(r, ':'))
        return false;
    bool ok = false, known = false;
    for (size_t i = 0; i < EP_ARRAY_LEN(scalars) && !known; i++)
        if (is_key(k, kn, scalars[i].key))
            known = true, ok = scalars[i].item(r, a);
    for (size_t i = 0; i < EP_ARRAY_LEN(lists) && !known; i++)
        if (is_key(k, kn, lists[i].key)) {
            known = true;
            a->kind = lists[i].kind;
            ok = read_list(r, a, lists[i].item);
        }
    for (size_t i = 0; i < EP_ARRAY_LEN(codes) && !known; i++)
        if (is_key(k, kn, codes[i].key)) {
            known = true;
            a->kind = codes[i].kind;
            a->lit.kind = V_INT;
            ok = read_int(r, &a->lit.i) && enum_known(a->kind, a->lit.i);
        }
    if (!known && is_key(k, kn, "as_none")) {
        known = true;
        a->kind = ARG_NONE; /* the single-key form: any value */
        ok = eat_word(r, "null") || eat_word(r, "true") || eat_word(r, "false") || (eat(r, '[') && eat(r, ']')) ||
             (eat(r, '{') && eat(r, '}'));
    }
    if (!known && is_key(k, kn, "as_device")) {
        known = true;
        a->kind = ARG_DEVICE;
        char *s;
        if ((ok = read_device(r, &s))) {
            a->lit.kind = V_DEVICE;
            a->lit.s = s;
        }
    }
    return ok && eat(r, '}');
}

/* A list of Arguments into *items, *n counting every one begun. */
static bool read_arg_list(Rd *r, Arg **items, int *n)
{
    if (!eat(r, '['))
        return false;
    Items l;
    items_init(&l, sizeof(Arg));
    bool ok = eat(r, ']');
    if (!ok) {
        do
            ok = read_arg(r, items_add(&l));
        while (ok && eat(r, ','));
        ok = ok && eat(r, ']');
    }
    *n = l.n;
    *items = items_take(&l);
    return ok;
}

/* NamedArgument {"name", "arg", "kind"}, each at most once; arg required. */
static bool read_named_arg(Rd *r, NamedArg *na)
{
    bool seen_name = false, seen_arg = false, seen_kind = false;
    if (!eat(r, '{'))
        return false;
    do {
        const char *k;
        size_t kn;
        if (!read_str(r, &k, &kn) || !eat(r, ':'))
            return false;
        if (is_key(k, kn, "name") && !seen_name) {
            seen_name = true;
            if (!eat_word(r, "null") && !read_name(r, &na->name))
                return false;
        } else if (is_key(k, kn, "arg") && !seen_arg) {
            seen_arg = true;
            if (!read_arg(r, &na->arg))
                return false;
        } else if (is_key(k, kn, "kind") && !seen_kind) {
            seen_kind = true;
            int64_t kind;
            if (!eat_word(r, "null")) {
                if (!read_int(r, &kind) || kind < INT32_MIN || kind > INT32_MAX)
                    return false;
                na->kind = (int)kind;
            }
        } else {
            return false;
        }
    } while (eat(r, ','));
    if (!eat(r, '}') || !seen_arg)
        return false;
    if (!na->name)
        na->name = r->names ? name_arena_dup(r->names, "", 0) : ep_xstrdup("");
    return true;
}

static bool read_inputs(Rd *r, Node *n)
{
    if (!eat(r, '['))
        return false;
    Items l;
    items_init(&l, sizeof(NamedArg));
    bool ok = eat(r, ']');
    if (!ok) {
        do
            ok = read_named_arg(r, items_add(&l));
        while (ok && eat(r, ','));
        ok = ok && eat(r, ']');
    }
    n->ninputs = l.n;
    n->inputs = items_take(&l);
    return ok;
}

/* Node.metadata: an object of strings (null values skipped). */
static bool read_meta(Rd *r, NodeMeta *m)
{
    if (eat_word(r, "null"))
        return true;
    if (!eat(r, '{'))
        return false;
    if (eat(r, '}'))
        return true;
    do {
        const char *k;
        char *s;
        size_t kn;
        if (!read_str(r, &k, &kn) || !eat(r, ':'))
            return false;
        if (eat_word(r, "null"))
            continue;
        char **slot = r->names ? node_meta_slot(m, k, kn) : NULL;
        if (slot) { /* a known key: its string in the arena */
            if (*slot || !read_name(r, slot))
                return false; /* (written twice: left to the cJSON reader) */
            continue;
        }
        if (!read_str_dup(r, &s)) /* the extras are a malloc each */
            return false;
        node_meta_set(m, k, kn, s);
    } while (eat(r, ','));
    return eat(r, '}');
}

enum {
    F_TARGET = 1,
    F_INPUTS = 2,
    F_OUTPUTS = 4,
    F_META = 8,
    F_HOP = 16,
    F_NAME = 32,
};

/* The fields of one Node, each at most once; false on anything else. */
static bool read_node(Rd *r, Node *n, char **name)
{
    static const char *const keys[] = {"target", "inputs", "outputs", "metadata", "is_hop_single_tensor_return",
                                       "name"};
    unsigned seen = 0;
    if (!eat(r, '{'))
        return false;
    do {
        const char *k;
        size_t kn;
        if (!read_str(r, &k, &kn) || !eat(r, ':'))
            return false;
        unsigned f = 0;
        for (size_t i = 0; i < EP_ARRAY_LEN(keys) && !f; i++)
            if (is_key(k, kn, keys[i]))
                f = 1u << i;
        if (!f || (seen & f))
            return false;
        seen |= f;
        bool ok = false;
        switch (f) {
        case F_TARGET:
            ok = read_name(r, &n->target);
            break;
        case F_INPUTS:
            ok = read_inputs(r, n);
            break;
        case F_OUTPUTS:
            ok = eat_word(r, "null") || read_arg_list(r, &n->outputs, &n->noutputs);
            break;
        case F_META:
            ok = read_meta(r, &n->meta);
            break;
        case F_HOP:
            ok = eat_word(r, "null") || read_bool(r, &n->is_hop_single_tensor_return);
            break;
        case F_NAME:
            ok = eat_word(r, "null") || read_name(r, name);
            break;
        }
        if (!ok)
            return false;
    } while (eat(r, ','));
    return eat(r, '}') && (seen & F_TARGET) && (seen & F_INPUTS);
}

size_t node_read_prefix(const char *text, size_t len, Node *n, int index, NameArena *names)
{
    Rd r = {text, text + len, names};
    char *name = NULL;
    NameMark mark = names ? name_arena_mark(names) : (NameMark){0};
    memset(n, 0, sizeof *n);
    n->strings_in_arena = names != NULL;
    if (!read_node(&r, n, &name)) {
        if (names)
            name_arena_rewind(names, mark);
        else
            free(name);
        node_free(n);
        memset(n, 0, sizeof *n);
        return 0;
    }
    if (!n->outputs)
        n->outputs = ep_xcalloc(1, sizeof *n->outputs);
    if (name && name[0]) {
        n->name = name;
    } else if (names) { /* its first output's name (in the arena too), or node_<index> */
        n->name = (char *)node_first_output_ref(n);
        if (!n->name) {
            char buf[32];
            int k = snprintf(buf, sizeof buf, "node_%d", index);
            n->name = name_arena_dup(names, buf, (size_t)k);
        }
    } else {
        free(name);
        n->name = node_first_output_name(n);
        if (!n->name)
            n->name = ep_xasprintf("node_%d", index);
    }
    n->op = op_lookup(n->target);
    return (size_t)(r.p - text);
}

bool node_read_fast(const char *text, size_t len, Node *n, int index)
{
    size_t used = node_read_prefix(text, len, n, index, NULL);
    Rd r = {text + used, text + len, NULL};
    skip_ws(&r);
    if (used && r.p == r.end)
        return true;
    if (used) {
        node_free(n);
        memset(n, 0, sizeof *n);
    }
    return false;
}

/* ---- tensor_values entries ------------------------------------------------------ */

/* One SymInt of a TensorMeta: {"as_int": n} or a plain int; false for
** anything else (an expression: left to the cJSON reader). */
static bool read_symint(Rd *r, SymDim *d)
{
    memset(d, 0, sizeof *d);
    skip_ws(r);
    if (r->p < r->end && *r->p != '{')
        return read_int(r, &d->value);
    const char *k;
    size_t kn;
    return eat(r, '{') && read_str(r, &k, &kn) && is_key(k, kn, "as_int") && eat(r, ':') && read_int(r, &d->value) &&
           eat(r, '}');
}

/* A list of them, at most EP_MAX_DIMS (a longer one is the cJSON
** reader's to refuse), into d (*n). */
static bool read_symint_list(Rd *r, SymDim *d, int *n)
{
    *n = 0;
    if (!eat(r, '['))
        return false;
    if (eat(r, ']'))
        return true;
    do {
        if (*n == EP_MAX_DIMS || !read_symint(r, &d[(*n)++]))
            return false;
    } while (eat(r, ','));
    return eat(r, ']');
}

enum {
    T_DTYPE = 1,
    T_SIZES = 2,
    T_STRIDES = 4,
    T_GRAD = 8,
    T_DEVICE = 16,
    T_OFFSET = 32,
    T_LAYOUT = 64,
};

/* What a TensorMeta's text gives, before the TensorMeta is made (its size
** depends on the rank). */
typedef struct MetaRead {
    TensorMeta m;
    SymDim sizes[EP_MAX_DIMS], strides[EP_MAX_DIMS];
    int nstrides;
    bool has_strides;
    unsigned seen;
} MetaRead;

/* The fields of one TensorMeta as schema 5 and later write it, each at
** most once (null where parse_tensor_meta reads null as absent); false on
** anything else. */
static bool read_tensor_meta(Rd *r, MetaRead *t)
{
    static const char *const keys[] = {"dtype", "sizes", "strides", "requires_grad", "device", "storage_offset",
                                       "layout"};
    if (!eat(r, '{') || eat(r, '}'))
        return false; /* {}: dtype and sizes are missing */
    do {
        const char *k;
        size_t kn;
        if (!read_str(r, &k, &kn) || !eat(r, ':'))
            return false;
        unsigned f = 0;
        for (size_t i = 0; i < EP_ARRAY_LEN(keys) && !f; i++)
            if (is_key(k, kn, keys[i]))
                f = 1u << i;
        if (!f || (t->seen & f))
            return false;
        t->seen |= f;
        bool ok = false;
        int64_t code = 0;
        SymDim offset;
        switch (f) {
        case T_DTYPE: /* required: null is the cJSON reader's error */
            ok = read_int(r, &code) && enum_known(ARG_SCALAR_TYPE, code);
            t->m.scalar_type = (int)code;
            break;
        case T_SIZES:
            ok = read_symint_list(r, t->sizes, &t->m.ndim);
            break;
        case T_STRIDES:
            ok = eat_word(r, "null") || (t->has_strides = read_symint_list(r, t->strides, &t->nstrides));
            break;
        case T_GRAD: /* only true counts (cJSON_IsTrue) */
            ok = eat_word(r, "null") || read_bool(r, &t->m.requires_grad);
            break;
        case T_DEVICE:
            ok = eat_word(r, "null") || read_device(r, &t->m.device);
            break;
        case T_OFFSET: /* not kept */
            ok = eat_word(r, "null") || read_symint(r, &offset);
            break;
        case T_LAYOUT:
            if (eat_word(r, "null"))
                ok = true;
            else if ((ok = read_int(r, &code) && enum_known(ARG_LAYOUT, code)))
                t->m.layout = (int)code;
            break;
        }
        if (!ok)
            return false;
    } while (eat(r, ','));
    return eat(r, '}');
}

size_t tensor_meta_read_prefix(const char *text, size_t len, TensorMeta **out)
{
    Rd r = {text, text + len, NULL};
    MetaRead t;
    memset(&t, 0, sizeof t);
    t.m.layout = 7; /* strided, when not written */
    bool ok = read_tensor_meta(&r, &t) && (t.seen & T_DTYPE) && (t.seen & T_SIZES) &&
              (!t.has_strides || t.nstrides == t.m.ndim);
    int64_t numel = 1; /* a negative size, or too many elements: the cJSON reader's errors */
    for (int i = 0; ok && i < t.m.ndim; i++)
        ok = t.sizes[i].value >= 0 && !__builtin_mul_overflow(numel, t.sizes[i].value, &numel);
    if (!ok) {
        free(t.m.device);
        return 0;
    }
    int n = t.m.ndim;
    TensorMeta *m = ep_xcalloc(1, sizeof *m + 2 * (size_t)n * sizeof(SymDim));
    *m = t.m;
    m->dtype = dtype_from_scalar_type(m->scalar_type);
    m->sizes = (SymDim *)(m + 1);
    m->strides = m->sizes + n;
    memcpy(m->sizes, t.sizes, (size_t)n * sizeof(SymDim));
    if (t.has_strides)
        memcpy(m->strides, t.strides, (size_t)n * sizeof(SymDim));
    *out = m;
    return (size_t)(r.p - text);
}
