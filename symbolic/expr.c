/*
** expr.c -- expression nodes: interned symbol names, constructors that
** canonicalize the way SymPy's automatic evaluation does (where that cannot
** change a value), accessors, and the bindings table.
**
** Trees are never shared: every node has exactly one parent, so a
** constructor that receives a freshly built Add may grow it in place, and
** sym_free is a plain recursive walk.  Only names are shared, through the
** intern table.
*/
#include "symbolic/sym_int.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

const SymFnInfo sym_fn_info[SYM_FN_COUNT] = {
#define X(id, name, lo, hi) {name, lo, hi},
    SYM_FN_LIST(X)
#undef X
};

/* srepr() spells relationals by class name. */
static const struct {
    const char *name;
    SymFn fn;
} fn_aliases[] = {
    {"Equality", SYM_FN_EQ},
    {"Unequality", SYM_FN_NE},
    {"StrictLessThan", SYM_FN_LT},
    {"LessThan", SYM_FN_LE},
    {"StrictGreaterThan", SYM_FN_GT},
    {"GreaterThan", SYM_FN_GE},
};

bool sym_fn_lookup(const char *name, size_t len, SymFn *out)
{
    for (int i = 0; i < SYM_FN_COUNT; i++) {
        if (strlen(sym_fn_info[i].name) == len && memcmp(sym_fn_info[i].name, name, len) == 0) {
            *out = (SymFn)i;
            return true;
        }
    }
    for (size_t i = 0; i < sizeof fn_aliases / sizeof fn_aliases[0]; i++) {
        if (strlen(fn_aliases[i].name) == len && memcmp(fn_aliases[i].name, name, len) == 0) {
            *out = fn_aliases[i].fn;
            return true;
        }
    }
    return false;
}

/* ---- intern table ----------------------------------------------------------
** A chained hash table of reference-counted names.  It is process-global
** (sym_parse takes no context) and guarded by a mutex; the table frees
** itself when its last name goes, so nothing outlives the expressions. */

typedef struct Name {
    struct Name *next;
    size_t refs;
    size_t len;
    uint32_t hash;
    char str[]; /* NUL-terminated; what callers hold */
} Name;

static pthread_mutex_t intern_lock = PTHREAD_MUTEX_INITIALIZER;
static Name **intern_buckets;
static size_t intern_nbuckets, intern_count;

static uint32_t hash_name(const char *s, size_t len)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 16777619u;
    }
    return h;
}

static bool intern_grow(void)
{
    size_t nb = intern_nbuckets ? intern_nbuckets * 2 : 64;
    Name **b = calloc(nb, sizeof *b);
    if (!b)
        return false;
    for (size_t i = 0; i < intern_nbuckets; i++) {
        Name *n = intern_buckets[i];
        while (n) {
            Name *next = n->next;
            n->next = b[n->hash & (nb - 1)];
            b[n->hash & (nb - 1)] = n;
            n = next;
        }
    }
    free(intern_buckets);
    intern_buckets = b;
    intern_nbuckets = nb;
    return true;
}

const char *sym_intern(const char *name, size_t len)
{
    uint32_t h = hash_name(name, len);
    const char *res = NULL;
    pthread_mutex_lock(&intern_lock);
    if (intern_nbuckets) {
        for (Name *n = intern_buckets[h & (intern_nbuckets - 1)]; n; n = n->next) {
            if (n->hash == h && n->len == len && memcmp(n->str, name, len) == 0) {
                n->refs++;
                res = n->str;
                goto out;
            }
        }
    }
    if (intern_count >= intern_nbuckets && !intern_grow())
        goto out;
    Name *n = malloc(sizeof *n + len + 1);
    if (!n)
        goto out;
    n->refs = 1;
    n->len = len;
    n->hash = h;
    memcpy(n->str, name, len);
    n->str[len] = '\0';
    n->next = intern_buckets[h & (intern_nbuckets - 1)];
    intern_buckets[h & (intern_nbuckets - 1)] = n;
    intern_count++;
    res = n->str;
out:
    pthread_mutex_unlock(&intern_lock);
    return res;
}

void sym_unintern(const char *name)
{
    if (!name)
        return;
    Name *target = (Name *)(void *)(name - offsetof(Name, str));
    pthread_mutex_lock(&intern_lock);
    if (--target->refs == 0) {
        Name **link = &intern_buckets[target->hash & (intern_nbuckets - 1)];
        while (*link != target)
            link = &(*link)->next;
        *link = target->next;
        free(target);
        if (--intern_count == 0) {
            free(intern_buckets);
            intern_buckets = NULL;
            intern_nbuckets = 0;
        }
    }
    pthread_mutex_unlock(&intern_lock);
}

/* ---- leaves ------------------------------------------------------------ */

/* Nodes left under the running bound; -1: none running. */
static _Thread_local int64_t budget_left = -1;

bool sym_budget_begin(int64_t nodes)
{
    if (budget_left >= 0)
        return false;
    budget_left = nodes;
    return true;
}

void sym_budget_end(bool started)
{
    if (started)
        budget_left = -1;
}

bool sym_budget_spent(void)
{
    return budget_left == 0;
}

/* One node's memory, zeroed, counted against the running bound. */
SymExpr *sym_node_alloc(void)
{
    if (budget_left == 0)
        return NULL;
    if (budget_left > 0)
        budget_left--;
    return calloc(1, sizeof(SymExpr));
}

static SymExpr *new_node(SymKind k)
{
    SymExpr *e = sym_node_alloc();
    if (e) {
        e->kind = k;
        e->depth = 1;
    }
    return e;
}

SymExpr *sym_new_int(int64_t v)
{
    SymExpr *e = new_node(SYM_K_INT);
    if (e)
        e->u.i = v;
    return e;
}

static SymExpr *new_q(SymQ q)
{
    if (q.den == 1)
        return sym_new_int(q.num);
    SymExpr *e = new_node(SYM_K_RAT);
    if (e)
        e->u.q = q;
    return e;
}

SymExpr *sym_new_rat(int64_t num, int64_t den)
{
    SymQ q;
    if (!symq_div(symq_int(num), symq_int(den), &q))
        return NULL;
    return new_q(q);
}

SymExpr *sym_new_float(double f)
{
    if (isinf(f))
        return sym_new_inf(f > 0 ? 1 : -1, false);
    SymExpr *e = new_node(SYM_K_FLOAT);
    if (e)
        e->u.f = f;
    return e;
}

SymExpr *sym_new_inf(int sign, bool is_int)
{
    SymExpr *e = new_node(SYM_K_INF);
    if (e) {
        e->u.inf.sign = sign < 0 ? -1 : 1;
        e->u.inf.is_int = is_int;
    }
    return e;
}

SymExpr *sym_new_bool(bool b)
{
    SymExpr *e = new_node(SYM_K_BOOL);
    if (e)
        e->u.b = b;
    return e;
}

SymExpr *sym_new_symbol(const char *name, size_t len)
{
    SymExpr *e = new_node(SYM_K_SYMBOL);
    if (!e)
        return NULL;
    e->u.name = sym_intern(name, len);
    if (!e->u.name) {
        free(e);
        return NULL;
    }
    return e;
}

/* Frees e, its whole subtree, and its references to interned names. */
void sym_free(SymExpr *e)
{
    if (!e)
        return;
    if (e->kind == SYM_K_SYMBOL)
        sym_unintern(e->u.name);
    for (int i = 0; i < e->n; i++)
        sym_free(e->args[i]);
    free(e->args);
    free(e);
}

bool sym_exact_number(const SymExpr *e, SymQ *q)
{
    if (e->kind == SYM_K_INT) {
        *q = symq_int(e->u.i);
        return true;
    }
    if (e->kind == SYM_K_RAT) {
        *q = e->u.q;
        return true;
    }
    return false;
}

/* ---- calls and canonical forms ---------------------------------------- */

static void free_args(SymExpr **args, int n)
{
    for (int i = 0; i < n; i++)
        sym_free(args[i]);
    free(args);
}

static bool reserve(SymExpr *e, int need)
{
    if (need <= e->cap)
        return true;
    int cap = e->cap ? e->cap : 4;
    while (cap < need) {
        if (cap > (1 << 28))
            return false;
        cap *= 2;
    }
    SymExpr **a = realloc(e->args, (size_t)cap * sizeof *a);
    if (!a)
        return false;
    e->args = a;
    e->cap = cap;
    return true;
}

/* Move the arguments of every same-function child into e itself: SymPy
** keeps Add, Mul, And and Or flat, and so the printer never needs
** parentheses for them. */
static bool flatten(SymExpr *e)
{
    int total = 0;
    for (int i = 0; i < e->n; i++) {
        SymExpr *a = e->args[i];
        total += (a->kind == SYM_K_CALL && a->fn == e->fn) ? a->n : 1;
    }
    if (total == e->n)
        return true;
    SymExpr **flat = malloc((size_t)total * sizeof *flat);
    if (!flat)
        return false;
    int k = 0;
    for (int i = 0; i < e->n; i++) {
        SymExpr *a = e->args[i];
        if (a->kind == SYM_K_CALL && a->fn == e->fn) {
            for (int j = 0; j < a->n; j++)
                flat[k++] = a->args[j];
            a->n = 0;
            sym_free(a);
        } else {
            flat[k++] = a;
        }
    }
    free(e->args);
    e->args = flat;
    e->n = e->cap = total;
    return true;
}

/* e's first argument, e and its other arguments freed. */
static SymExpr *first_arg(SymExpr *e)
{
    SymExpr *keep = e->args[0];
    e->args[0] = NULL;
    sym_free(e);
    return keep;
}

static bool is_identity(SymQ q, bool mul)
{
    return mul ? (q.num == 1 && q.den == 1) : q.num == 0;
}

/* Set when a constructor failed because folding constants overflowed
** int64 (rather than for want of memory); per thread, like errno. */
static _Thread_local bool fold_overflowed;

bool sym_take_fold_overflow(void)
{
    bool was = fold_overflowed;
    fold_overflowed = false;
    return was;
}

/*
** Add b to the Add (or Mul) node e, keeping their shape: at most one exact
** number, stored last, into which every exact term folds.  SymPy prints a
** sum's constant last and a product's coefficient first; the printer puts
** a Mul's coefficient in front, and storing it last lets a long chain
** a*b*c*... fold each new number in constant time.  A fold that would
** overflow int64 fails (sym_take_fold_overflow tells): an unfolded pair
** of numbers would have no canonical place.  Returns e, or NULL (e and b
** freed); e may end up with 0 or 1 arguments, which collapse() resolves.
*/
static SymExpr *extend(SymExpr *e, SymExpr *b, bool mul)
{
    SymQ qa, qb, r;
    bool last_exact = e->n > 0 && sym_exact_number(e->args[e->n - 1], &qa);
    int depth = b->depth + 1;
    if (sym_exact_number(b, &qb)) {
        if (is_identity(qb, mul)) {
            sym_free(b);
            return e;
        }
        if (last_exact) {
            sym_free(b);
            if (!(mul ? symq_mul(qa, qb, &r) : symq_add(qa, qb, &r))) {
                fold_overflowed = true;
                sym_free(e);
                return NULL;
            }
            sym_free(e->args[--e->n]);
            if (!is_identity(r, mul)) {
                SymExpr *num = new_q(r);
                if (!num) {
                    sym_free(e);
                    return NULL;
                }
                e->args[e->n++] = num;
            }
            return e;
        }
    }
    if (!reserve(e, e->n + 1)) {
        sym_free(e);
        sym_free(b);
        return NULL;
    }
    e->args[e->n++] = b;
    if (last_exact) { /* keep the constant last */
        e->args[e->n - 1] = e->args[e->n - 2];
        e->args[e->n - 2] = b;
    }
    if (depth > e->depth)
        e->depth = depth;
    return e;
}

/* An Add or Mul left with one argument is that argument; with none, the
** identity (every term folded away). */
static SymExpr *collapse(SymExpr *e, bool mul)
{
    if (!e)
        return NULL;
    if (e->n == 1)
        return first_arg(e);
    if (e->n == 0) {
        sym_free(e);
        return sym_new_int(mul ? 1 : 0);
    }
    return e;
}

static SymExpr *canon_assoc(SymExpr *e, bool mul)
{
    if (!flatten(e)) {
        sym_free(e);
        return NULL;
    }
    SymExpr **src = e->args;
    int n = e->n;
    e->args = NULL;
    e->n = e->cap = 0;
    for (int i = 0; i < n; i++) {
        e = extend(e, src[i], mul);
        if (!e) {
            for (int j = i + 1; j < n; j++)
                sym_free(src[j]);
            break;
        }
    }
    free(src);
    return collapse(e, mul);
}

static SymExpr *canon_pow(SymExpr *e)
{
    SymExpr *base = e->args[0], *ex = e->args[1];
    SymQ b, r;
    if (sym_exact_number(base, &b) && ex->kind == SYM_K_INT && symq_pow(b, ex->u.i, &r)) {
        sym_free(e);
        return new_q(r);
    }
    if (ex->kind == SYM_K_INT && ex->u.i == 1)
        return first_arg(e);
    return e;
}

static SymExpr *set_depth(SymExpr *e)
{
    if (e && e->kind == SYM_K_CALL) {
        int d = 0;
        for (int i = 0; i < e->n; i++)
            if (e->args[i]->depth > d)
                d = e->args[i]->depth;
        e->depth = d + 1;
    }
    return e;
}

static SymExpr *canon_call(SymExpr *e)
{
    switch (e->fn) {
    case SYM_FN_ADD: return canon_assoc(e, false);
    case SYM_FN_MUL: return canon_assoc(e, true);
    case SYM_FN_POW: return canon_pow(e);
    case SYM_FN_AND:
    case SYM_FN_OR:
        if (!flatten(e)) {
            sym_free(e);
            return NULL;
        }
        return e;
    default: return e;
    }
}

SymExpr *sym_new_call(SymFn fn, SymExpr **args, int n)
{
    SymExpr *e = new_node(SYM_K_CALL);
    if (!e) {
        free_args(args, n);
        return NULL;
    }
    e->fn = fn;
    e->args = args;
    e->n = e->cap = n;
    return set_depth(canon_call(e));
}

SymExpr *sym_new_call2(SymFn fn, SymExpr *a, SymExpr *b)
{
    SymExpr **args = malloc(2 * sizeof *args);
    if (!args || !a || !b) {
        free(args);
        sym_free(a);
        sym_free(b);
        return NULL;
    }
    args[0] = a;
    args[1] = b;
    return sym_new_call(fn, args, 2);
}

static bool is_call(const SymExpr *e, SymFn fn)
{
    return e->kind == SYM_K_CALL && e->fn == fn;
}

SymExpr *sym_new_add(SymExpr *a, SymExpr *b)
{
    /* a long "x + y + z + ..." arrives one term at a time: grow the Add
    ** built so far instead of flattening it again for each term */
    if (a && b && is_call(a, SYM_FN_ADD) && !is_call(b, SYM_FN_ADD))
        return collapse(extend(a, b, false), false);
    return sym_new_call2(SYM_FN_ADD, a, b);
}

SymExpr *sym_new_mul(SymExpr *a, SymExpr *b)
{
    if (a && b && is_call(a, SYM_FN_MUL) && !is_call(b, SYM_FN_MUL))
        return collapse(extend(a, b, true), true);
    return sym_new_call2(SYM_FN_MUL, a, b);
}

SymExpr *sym_new_neg(SymExpr *a)
{
    if (!a)
        return NULL;
    SymQ q, nq;
    switch (a->kind) {
    case SYM_K_INT:
    case SYM_K_RAT:
        sym_exact_number(a, &q);
        if (symq_neg(q, &nq)) {
            sym_free(a);
            return new_q(nq);
        }
        break;
    case SYM_K_FLOAT:
        a->u.f = -a->u.f;
        return a;
    case SYM_K_INF:
        a->u.inf.sign = -a->u.inf.sign;
        return a;
    default:
        break;
    }
    return sym_new_mul(sym_new_int(-1), a);
}

SymExpr *sym_new_sub(SymExpr *a, SymExpr *b)
{
    if (!a || !b) {
        sym_free(a);
        sym_free(b);
        return NULL;
    }
    return sym_new_add(a, sym_new_neg(b));
}

SymExpr *sym_new_div(SymExpr *a, SymExpr *b)
{
    if (!a || !b) {
        sym_free(a);
        sym_free(b);
        return NULL;
    }
    SymQ qb, inv;
    /* a numeric divisor becomes a rational coefficient: s0/2 is
    ** Mul(Rational(1, 2), s0), exactly as SymPy stores it */
    if (sym_exact_number(b, &qb) && qb.num != 0 && symq_div(symq_int(1), qb, &inv)) {
        SymExpr *c = new_q(inv);
        sym_free(b);
        return sym_new_mul(c, a);
    }
    return sym_new_mul(a, sym_new_pow(b, sym_new_int(-1)));
}

SymExpr *sym_new_pow(SymExpr *a, SymExpr *b)
{
    return sym_new_call2(SYM_FN_POW, a, b);
}

/* ---- accessors ------------------------------------------------------------ */

/* The name is interned: valid while e (or any tree naming it) lives, and
** equal names compare equal as pointers. */
const char *sym_as_symbol(const SymExpr *e)
{
    return e && e->kind == SYM_K_SYMBOL ? e->u.name : NULL;
}

bool sym_as_int(const SymExpr *e, int64_t *out)
{
    if (!e || e->kind != SYM_K_INT)
        return false;
    *out = e->u.i;
    return true;
}

bool sym_mentions(const SymExpr *e, const char *interned_name)
{
    if (e->kind == SYM_K_SYMBOL)
        return e->u.name == interned_name;
    for (int i = 0; i < e->n; i++)
        if (sym_mentions(e->args[i], interned_name))
            return true;
    return false;
}

/* The first appearance of name in e, in pre-order. */
static const SymExpr *first_symbol_node(const SymExpr *e, const char *name)
{
    if (e->kind == SYM_K_SYMBOL)
        return e->u.name == name ? e : NULL;
    for (int i = 0; i < e->n; i++) {
        const SymExpr *f = first_symbol_node(e->args[i], name);
        if (f)
            return f;
    }
    return NULL;
}

/* The names seen so far: an open-addressing set of interned pointers. */
typedef struct NameSet {
    const char **slots;
    size_t cap, n;
    bool failed; /* out of memory: fall back to searching the tree */
} NameSet;

/* true if name was not in the set before */
static bool nameset_add(NameSet *s, const char *name)
{
    if (s->n * 2 >= s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        const char **slots = calloc(cap, sizeof *slots);
        if (!slots) {
            s->failed = true;
            return false;
        }
        for (size_t i = 0; i < s->cap; i++) {
            if (!s->slots[i])
                continue;
            size_t h = ((uintptr_t)s->slots[i] >> 4) & (cap - 1);
            while (slots[h])
                h = (h + 1) & (cap - 1);
            slots[h] = s->slots[i];
        }
        free(s->slots);
        s->slots = slots;
        s->cap = cap;
    }
    size_t h = ((uintptr_t)name >> 4) & (s->cap - 1);
    while (s->slots[h]) {
        if (s->slots[h] == name)
            return false;
        h = (h + 1) & (s->cap - 1);
    }
    s->slots[h] = name;
    s->n++;
    return true;
}

static void walk_symbols(const SymExpr *root, const SymExpr *e, NameSet *seen, const char **names, int max,
                         int *count)
{
    if (e->kind == SYM_K_SYMBOL) {
        bool is_new = false;
        if (!seen->failed)
            is_new = nameset_add(seen, e->u.name);
        if (seen->failed) /* slow but needs no memory */
            is_new = first_symbol_node(root, e->u.name) == e;
        if (!is_new)
            return;
        if (*count < max)
            names[*count] = e->u.name;
        (*count)++;
        return;
    }
    for (int i = 0; i < e->n; i++)
        walk_symbols(root, e->args[i], seen, names, max, count);
}

/* names[] receives interned names, valid while e lives; NULL e has none. */
int sym_symbols(const SymExpr *e, const char **names, int max)
{
    int count = 0;
    NameSet seen = {0};
    if (e)
        walk_symbols(e, e, &seen, names, max < 0 ? 0 : max, &count);
    free(seen.slots);
    return count;
}

/* ---- bindings ---------------------------------------------------------------- */

/* Bindings own copies of their names; sym_bindings_free releases them and
** leaves b empty and reusable, sym_bindings_clear keeps the capacity. */
void sym_bindings_init(SymBindings *b)
{
    b->n = b->cap = 0;
    b->items = NULL;
}

void sym_bindings_clear(SymBindings *b)
{
    for (int i = 0; i < b->n; i++)
        free(b->items[i].name);
    b->n = 0;
}

void sym_bindings_free(SymBindings *b)
{
    sym_bindings_clear(b);
    free(b->items);
    b->items = NULL;
    b->cap = 0;
}

/* Copies name.  Out of memory, a new name is not recorded (a later get
** reports it unbound); rebinding an existing name never allocates. */
void sym_bindings_set(SymBindings *b, const char *name, int64_t value)
{
    for (int i = 0; i < b->n; i++) {
        if (strcmp(b->items[i].name, name) == 0) {
            b->items[i].value = value;
            return;
        }
    }
    if (b->n == b->cap) {
        int cap = b->cap ? b->cap * 2 : 8;
        SymBinding *items = realloc(b->items, (size_t)cap * sizeof *items);
        if (!items)
            return; /* out of memory: the binding is not recorded */
        b->items = items;
        b->cap = cap;
    }
    char *copy = strdup(name);
    if (!copy)
        return;
    b->items[b->n].name = copy;
    b->items[b->n].value = value;
    b->n++;
}

void sym_bindings_unset(SymBindings *b, const char *name)
{
    for (int i = 0; i < b->n; i++) {
        if (strcmp(b->items[i].name, name) == 0) {
            free(b->items[i].name);
            memmove(&b->items[i], &b->items[i + 1], (size_t)(b->n - i - 1) * sizeof *b->items);
            b->n--;
            return;
        }
    }
}

bool sym_bindings_get(const SymBindings *b, const char *name, int64_t *value)
{
    for (int i = 0; i < b->n; i++) {
        if (strcmp(b->items[i].name, name) == 0) {
            *value = b->items[i].value;
            return true;
        }
    }
    return false;
}
