/*
** strmap.h -- a string-keyed hash map (open addressing, insertion order
** kept).  Keys are copied and owned by the map; values are opaque pointers
** the caller owns (strmap_free takes an optional destructor for them).
*/
#ifndef EP_STRMAP_H
#define EP_STRMAP_H

#include <stdbool.h>
#include <stdint.h>

#include <stddef.h>

typedef struct StrMapEntry {
    char *key;
    void *value;
} StrMapEntry;

typedef struct StrMap {
    StrMapEntry *entries; /* in insertion order */
    int n, cap;
    struct StrMapSlot {
        int index;     /* into entries, or -1 */
        uint32_t hash; /* the key's, so most probes need no strcmp */
    } *slots;
    size_t nslots;
    bool borrowed_keys; /* keys are the caller's (strmap_init_borrowed) */
} StrMap;

void strmap_init(StrMap *m);
/* A map whose keys are not copied: each must outlive the map (names held
** by a Graph, for the maps built over it). */
void strmap_init_borrowed(StrMap *m);
/* Room for n keys in all: a map about to receive many keys is sized once
** instead of rehashed at every doubling (100k names: 13 rehashes). */
void strmap_reserve(StrMap *m, int n);
/* Free keys, and values with free_value when it is not NULL. */
void strmap_free(StrMap *m, void (*free_value)(void *));
/* Insert or replace; returns the previous value (or NULL). */
void *strmap_put(StrMap *m, const char *key, void *value);
/* The value of key if it is there (the map unchanged), else insert value
** and return NULL: a get then a put with one lookup. */
void *strmap_get_or_put(StrMap *m, const char *key, void *value);
void *strmap_get(const StrMap *m, const char *key);
/* Index of key in insertion order, or -1. */
int strmap_index(const StrMap *m, const char *key);

#endif
