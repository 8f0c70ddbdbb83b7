/*
** strmap.c -- string-keyed hash map with insertion order.
*/
#include "strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ep.h"

/* FNV-1a, its high bits folded down: names that differ only in their last
** digits ("v12345", "v12346") must not fill neighbouring slots, which linear
** probing would turn into long runs. */
static uint32_t hash_key(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    return (uint32_t)(h ^ (h >> 32));
}

void strmap_init(StrMap *m)
{
    memset(m, 0, sizeof *m);
}

void strmap_init_borrowed(StrMap *m)
{
    strmap_init(m);
    m->borrowed_keys = true;
}

void strmap_free(StrMap *m, void (*free_value)(void *))
{
    bool borrowed = m->borrowed_keys;
    for (int i = 0; i < m->n; i++) {
        if (!borrowed)
            free(m->entries[i].key);
        if (free_value)
            free_value(m->entries[i].value);
    }
    free(m->entries);
    free(m->slots);
    strmap_init(m);
    m->borrowed_keys = borrowed;
}

static void rehash(StrMap *m, size_t nslots)
{
    struct StrMapSlot *old = m->slots;
    size_t nold = m->nslots;
    m->slots = ep_xmalloc(nslots * sizeof *m->slots);
    m->nslots = nslots;
    for (size_t i = 0; i < nslots; i++)
        m->slots[i].index = -1;
    for (size_t k = 0; k < nold; k++) {
        if (old[k].index < 0)
            continue;
        size_t h = old[k].hash & (nslots - 1);
        while (m->slots[h].index >= 0)
            h = (h + 1) & (nslots - 1);
        m->slots[h] = old[k];
    }
    free(old);
}

void strmap_reserve(StrMap *m, int n)
{
    size_t want = 32;
    while (want < 2 * (size_t)n)
        want *= 2;
    if (want > m->nslots)
        rehash(m, want);
    if (n > m->cap) {
        m->cap = n;
        m->entries = ep_xrealloc(m->entries, (size_t)m->cap * sizeof *m->entries);
    }
}

static int find(const StrMap *m, const char *key, uint32_t hash)
{
    if (!m->nslots)
        return -1;
    size_t h = hash & (m->nslots - 1);
    for (; m->slots[h].index >= 0; h = (h + 1) & (m->nslots - 1))
        if (m->slots[h].hash == hash && strcmp(m->entries[m->slots[h].index].key, key) == 0)
            return m->slots[h].index;
    return -1;
}

int strmap_index(const StrMap *m, const char *key)
{
    return m->nslots ? find(m, key, hash_key(key)) : -1;
}

void *strmap_get(const StrMap *m, const char *key)
{
    int i = strmap_index(m, key);
    return i < 0 ? NULL : m->entries[i].value;
}

/* Append key (absent, its hash given) with value. */
static void insert_new(StrMap *m, const char *key, uint32_t hash, void *value)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 16;
        m->entries = ep_xrealloc(m->entries, (size_t)m->cap * sizeof *m->entries);
    }
    m->entries[m->n].key = m->borrowed_keys ? (char *)key : ep_xstrdup(key);
    m->entries[m->n].value = value;
    m->n++;
    /* keep the load factor at or below one half */
    if ((size_t)m->n * 2 > m->nslots)
        rehash(m, m->nslots ? m->nslots * 2 : 32);
    size_t h = hash & (m->nslots - 1);
    while (m->slots[h].index >= 0)
        h = (h + 1) & (m->nslots - 1);
    m->slots[h] = (struct StrMapSlot){m->n - 1, hash};
}

void *strmap_put(StrMap *m, const char *key, void *value)
{
    uint32_t hash = hash_key(key);
    int i = find(m, key, hash);
    if (i >= 0) {
        void *old = m->entries[i].value;
        m->entries[i].value = value;
        return old;
    }
    insert_new(m, key, hash, value);
    return NULL;
}

void *strmap_get_or_put(StrMap *m, const char *key, void *value)
{
    uint32_t hash = hash_key(key);
    int i = find(m, key, hash);
    if (i >= 0)
        return m->entries[i].value;
    insert_new(m, key, hash, value);
    return NULL;
}
