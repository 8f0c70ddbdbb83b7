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
