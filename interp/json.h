/*
** json.h -- reading the exported program's JSON with cJSON, with errors
** that name the file and the JSON path ("model.pt2:models/model.json:
** graph_module.graph.nodes[3].inputs[0].arg: missing required field").
**
** Two quirks of PyTorch's writers are handled before cJSON sees the text
** (json_parse): bare Infinity/-Infinity/NaN tokens (invalid JSON written by
** PyTorch < 2.7) become the strings newer writers use, and integers too long
** for a double to hold exactly become marked strings that jget_int reads
** back exactly (slice ends of 9223372036854775807 are common).
*/
#ifndef EP_JSON_H
#define EP_JSON_H

#include <cjson/cJSON.h>

#include "ep.h"

/* A JSON path as a chain of stack frames, built while descending. */
typedef struct JPath {
    const struct JPath *parent;
    const char *key; /* object member, or NULL for an array index */
    int index;
} JPath;

/* Context for one JSON document: where it came from, and the error sink. */
typedef struct JCtx {
    const char *label; /* "model.pt2:models/model.json" */
    EpError *err;
} JCtx;

/* Parse text (len bytes) after the fix-ups above.  NULL + err on a syntax
** error, which names the line and column. */
cJSON *json_parse(const char *text, size_t len, const char *label, EpError *err);

/* json_parse with the tree in an arena (*arena), freed at once with
** json_arena_free and never with cJSON_Delete: for big documents, where a
** malloc per item is most of the cost.  The thread parsing must be the only
** one calling cJSON_InitHooks. */
typedef struct JsonArena JsonArena;
JsonArena *json_arena_new(void);
cJSON *json_parse_arena(const char *text, size_t len, const char *label, JsonArena **arena, EpError *err);
void json_arena_free(JsonArena *a); /* NULL ok */
/* Drop everything the arena holds, keeping its first chunk for reuse. */
void json_arena_reset(JsonArena *a);

/* A big document read in pieces, so that its tree is never whole in
** memory: the members named by holes (the program's nodes and
** tensor_values, most of its bytes) are left out of the tree json_parse_holes
** returns (an empty list or object stands in), and their items are then
** parsed one at a time from the text (json_hole_next, json_parse_piece)
** into an arena reset between items. */
typedef struct JsonHole {
    const char *const *path; /* member keys from the root, NULL-terminated */
    size_t at, end;          /* the value's span in the text; end == 0: not left out */
} JsonHole;

typedef struct JsonPiece {
    const char *text;
    size_t len;
} JsonPiece;

/* json_parse_arena of text with the holes left out: only where the text
** has none of PyTorch's quirks (else, or on a syntax error, the whole
** document as json_parse_arena parses it, every hole's end 0). */
cJSON *json_parse_holes(const char *text, size_t len, const char *label, JsonHole *holes, int nholes, JsonArena **arena,
                        EpError *err);
/* The next item of hole h: 1 with its value's text (and for an object its
** key's, quoted), 0 after the last, -1 when the text is not a JSON list or
** object there.  *pos starts at 0. */
int json_hole_next(const char *text, const JsonHole *h, size_t *pos, JsonPiece *key, JsonPiece *value);
/* json_hole_next in steps, for a reader that finds where a value ends
** itself: json_hole_item gives the offset *at where the next value begins
** (and for an object its key), 1, or 0 after the last, -1 when the text
** is not a list or object there; json_hole_value_end where that value
** ends (0: it does not); json_hole_after, given where it ends, sets *pos for
** the next item: 1, or -1 when no ',' or end of the hole follows. */
int json_hole_item(const char *text, const JsonHole *h, size_t *pos, JsonPiece *key, size_t *at);
size_t json_hole_value_end(const char *text, const JsonHole *h, size_t at);
int json_hole_after(const char *text, const JsonHole *h, size_t end, size_t *pos);
/* One JSON value parsed into a; NULL when it is not one. */
cJSON *json_parse_piece(JsonArena *a, JsonPiece piece);

/* "graph_module.graph.nodes[3]" into buf. */
const char *jpath_str(const JPath *p, char *buf, size_t cap);
/* Fail with "label: path: message"; returns EP_ERR_FORMAT. */
EpStatus jfail(const JCtx *c, const JPath *p, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Member lookup; NULL when absent or JSON null. */
const cJSON *jget(const cJSON *obj, const char *key);
/* Required member: fails naming the path when absent/null. */
EpStatus jneed(const JCtx *c, const JPath *p, const cJSON *obj, const char *key, const cJSON **out);

/* Optional member that must be an object (a table keyed by name): *out is
** NULL when absent or null; anything else fails naming the path. */
EpStatus jtable(const JCtx *c, const JPath *p, const cJSON *obj, const char *key, const cJSON **out);

/* Scalars.  Integers are exact up to int64; larger Python ints clamp to
** INT64_MIN/INT64_MAX.  Floats accept numbers, "Infinity"/"-Infinity"/"NaN"
** strings and marked long integers. */
EpStatus jint(const JCtx *c, const JPath *p, const cJSON *v, int64_t *out);
EpStatus jfloat(const JCtx *c, const JPath *p, const cJSON *v, double *out);
EpStatus jbool(const JCtx *c, const JPath *p, const cJSON *v, bool *out);
EpStatus jstr(const JCtx *c, const JPath *p, const cJSON *v, const char **out);
/* Whether v is an integer written as JSON number or marked long integer. */
bool jis_int(const cJSON *v);

/* A serialized union in any of its encodings: single key (schema >= 5),
** {"$type", "$value"} (2024 nightlies), or every variant key with all but
** the chosen one null (schema 1 and 2; there `as_none` holds [] which is not
** null).  Sets the variant name and value (value may be a cJSON null for
** as_none). */
EpStatus junion(const JCtx *c, const JPath *p, const cJSON *u, const char **key, const cJSON **val);

#endif
