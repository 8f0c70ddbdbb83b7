/*
** report_json.c -- the json report: everything a Profile holds under
** stable snake_case keys (README: "Profile JSON"), plus every view
** precomputed for consumers; and profile_read_json, which reads it back
** (for --diff) and recomputes the views rather than trusting them.
**
** One table of fields per struct drives both directions, so what is
** written is exactly what is read.  Doubles are printed with %.17g, which
** reads back as the same double; a non-finite one is written as null (JSON
** has no NaN) and reads back as 0.
*/
#include "profiler/report_int.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "interp/json.h"
#include "interp/npy.h"

#define FORMAT_NAME "epdbg-profile"
#define FORMAT_VERSION 1

/* ---- the fields ------------------------------------------------------------------ */

typedef enum FType {
    F_STR,   /* char *, null when NULL */
    F_INT,   /* int, >= 0 */
    F_SINT,  /* int, any sign */
    F_I64,   /* int64_t, >= 0 */
    F_DBL,   /* double */
    F_BOOL,  /* bool */
    F_MODE,  /* ProfileMode as "exact" / "sample" */
    F_CLOCK, /* ProfileClock as "wall" / "cpu" */
} FType;

typedef struct Field {
    const char *key;
    FType type;
    size_t off;
} Field;

static const char *const MODE_NAMES[] = {[PROFILE_EXACT] = "exact", [PROFILE_SAMPLE] = "sample"};
static const char *const CLOCK_NAMES[] = {[PROFILE_CLOCK_WALL] = "wall", [PROFILE_CLOCK_CPU] = "cpu"};

#define FIELD(T, key, type) {#key, type, offsetof(T, key)}

static const Field PROFILE_FIELDS[] = {
    FIELD(Profile, model_path, F_STR),
    FIELD(Profile, program, F_STR),
    FIELD(Profile, inputs, F_STR),
    FIELD(Profile, machine, F_STR),
    FIELD(Profile, mode, F_MODE),
    FIELD(Profile, clock, F_CLOCK),
    FIELD(Profile, sample_hz, F_INT),
    FIELD(Profile, threads, F_INT),
    FIELD(Profile, iters, F_INT),
    FIELD(Profile, warmup, F_INT),
    FIELD(Profile, partial, F_BOOL),
    FIELD(Profile, reason, F_STR),
    FIELD(Profile, wall, F_DBL),
    FIELD(Profile, dispatch, F_DBL),
    FIELD(Profile, timer_cost, F_DBL),
    FIELD(Profile, samples, F_I64),
    FIELD(Profile, outside_samples, F_I64),
    FIELD(Profile, sample_period, F_DBL),
    FIELD(Profile, peak_live, F_I64),
    FIELD(Profile, peak_node, F_SINT),
    FIELD(Profile, peak_gflops, F_DBL),
    FIELD(Profile, peak_gbps, F_DBL),
};

static const Field NODE_FIELDS[] = {
    FIELD(ProfileNode, name, F_STR),
    FIELD(ProfileNode, target, F_STR),
    FIELD(ProfileNode, input_shapes, F_STR),
    FIELD(ProfileNode, file, F_STR),
    FIELD(ProfileNode, line, F_SINT),
    FIELD(ProfileNode, func, F_STR),
    FIELD(ProfileNode, code, F_STR),
    FIELD(ProfileNode, samples, F_I64),
    FIELD(ProfileNode, flops, F_DBL),
    FIELD(ProfileNode, bytes, F_DBL),
    FIELD(ProfileNode, alloc_bytes, F_I64),
    FIELD(ProfileNode, freed_bytes, F_I64),
    FIELD(ProfileNode, live_after, F_I64),
};

static const Field STATS_FIELDS[] = {
    FIELD(ProfileStats, count, F_I64),
    FIELD(ProfileStats, total, F_DBL),
    FIELD(ProfileStats, mean, F_DBL),
    FIELD(ProfileStats, median, F_DBL),
    FIELD(ProfileStats, p90, F_DBL),
    FIELD(ProfileStats, min, F_DBL),
    FIELD(ProfileStats, max, F_DBL),
    FIELD(ProfileStats, stddev, F_DBL),
};

static const Field SCOPE_FIELDS[] = {
    FIELD(ProfileScope, path, F_STR),
    FIELD(ProfileScope, type, F_STR),
};

static const Field TENSOR_FIELDS[] = {
    FIELD(ProfileTensor, name, F_STR),
    FIELD(ProfileTensor, desc, F_STR),
    FIELD(ProfileTensor, bytes, F_I64),
};

/* Written only: the views' rows (recomputed when read). */
static const Field ROW_FIELDS[] = {
    FIELD(ProfileRow, key, F_STR),
    FIELD(ProfileRow, detail, F_STR),
    FIELD(ProfileRow, input_shapes, F_STR),
    FIELD(ProfileRow, depth, F_SINT),
    FIELD(ProfileRow, self, F_DBL),
    FIELD(ProfileRow, total, F_DBL),
    FIELD(ProfileRow, mean, F_DBL),
    FIELD(ProfileRow, pct, F_DBL),
    FIELD(ProfileRow, total_pct, F_DBL),
    FIELD(ProfileRow, calls, F_I64),
    FIELD(ProfileRow, samples, F_I64),
    FIELD(ProfileRow, flops, F_DBL),
    FIELD(ProfileRow, bytes, F_DBL),
    FIELD(ProfileRow, first_node, F_SINT),
};

#define FIELDS(t) t, (int)EP_ARRAY_LEN(t)

/* ---- writing ------------------------------------------------------------------------ */

static void put_str(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(f, "\\%c", *c);
        else if (*c == '\n')
            fputs("\\n", f);
        else if (*c == '\t')
            fputs("\\t", f);
        else if (*c < 0x20)
            fprintf(f, "\\u%04x", *c);
        else
            fputc(*c, f);
    }
    fputc('"', f);
}

static void put_dbl(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.17g", v);
    else
        fputs("null", f);
}

static void put_key(FILE *f, const char *key)
{
    put_str(f, key);
    fputs(": ", f);
}

/* The fields of obj as "key": value pairs (no braces), sep between. */
static void put_fields(FILE *f, const void *obj, const Field *fields, int n, const char *sep)
{
    const char *base = obj;
    for (int i = 0; i < n; i++) {
        const void *at = base + fields[i].off;
        if (i)
            fputs(sep, f);
        put_key(f, fields[i].key);
        switch (fields[i].type) {
        case F_STR:
            put_str(f, *(char *const *)at);
            break;
        case F_INT:
        case F_SINT:
            fprintf(f, "%d", *(const int *)at);
            break;
        case F_I64:
            fprintf(f, "%" PRId64, *(const int64_t *)at);
            break;
        case F_DBL:
            put_dbl(f, *(const double *)at);
            break;
        case F_BOOL:
            fputs(*(const bool *)at ? "true" : "false", f);
            break;
        case F_MODE: {
            unsigned m = *(const ProfileMode *)at;
            put_str(f, m < EP_ARRAY_LEN(MODE_NAMES) ? MODE_NAMES[m] : NULL);
            break;
        }
        case F_CLOCK: {
            unsigned c = *(const ProfileClock *)at;
            put_str(f, c < EP_ARRAY_LEN(CLOCK_NAMES) ? CLOCK_NAMES[c] : NULL);
            break;
        }
        }
    }
}

static void put_object(FILE *f, const void *obj, const Field *fields, int n)
{
    fputc('{', f);
    put_fields(f, obj, fields, n, ", ");
    fputc('}', f);
}

static void put_dbl_array(FILE *f, const double *v, int64_t n)
{
    fputc('[', f);
    for (int64_t i = 0; i < n; i++) {
        if (i)
            fputs(", ", f);
        put_dbl(f, v[i]);
    }
    fputc(']', f);
}

static void put_i64_array(FILE *f, const int64_t *v, int64_t n)
{
    fputc('[', f);
    for (int64_t i = 0; i < n; i++)
        fprintf(f, "%s%" PRId64, i ? ", " : "", v[i]);
    fputc(']', f);
}

/* {"before", "after", "delta", "ratio"}: seconds per iteration; ratio
** after / before, null when before is 0. */
static void put_diff(FILE *f, double before, double after)
{
    fputs("{\"before\": ", f);
    put_dbl(f, before);
    fputs(", \"after\": ", f);
    put_dbl(f, after);
    fputs(", \"delta\": ", f);
    put_dbl(f, after - before);
    fputs(", \"ratio\": ", f);
    if (before > 0)
        put_dbl(f, after / before);
    else
        fputs("null", f);
    fputc('}', f);
}

static void put_node(FILE *f, const Profile *p, int i, const Profile *base)
{
    const ProfileNode *n = &p->nodes[i];
    fputs("    {", f);
    put_fields(f, n, FIELDS(NODE_FIELDS), ", ");
    fputs(", \"scopes\": [", f);
    for (int k = 0; k < n->nscopes; k++) {
        if (k)
            fputs(", ", f);
        put_object(f, &n->scopes[k], FIELDS(SCOPE_FIELDS));
    }
    fputs("], \"time\": ", f);
    put_object(f, &n->time, FIELDS(STATS_FIELDS));
    fputs(", \"seconds\": ", f);
    put_dbl(f, profile_node_seconds(p, i));
    if (base) {
        fputs(", \"diff\": ", f);
        put_diff(f, profile_node_seconds(base, i), profile_node_seconds(p, i));
    }
    fputc('}', f);
}

static void put_timeline(FILE *f, const Profile *p)
{
    int64_t k = p->timeline_iters > 0 && p->start ? p->timeline_iters : 0;
    int64_t cells = k * p->nnodes;
    fprintf(f, "{\"iters\": %" PRId64 ",\n    \"start\": ", k);
    put_dbl_array(f, p->start, cells);
    fputs(",\n    \"dur\": ", f);
    put_dbl_array(f, p->dur, cells);
    fputs(",\n    \"live\": ", f);
    put_i64_array(f, p->live, cells);
    fputs(",\n    \"iter_start\": ", f);
    put_dbl_array(f, p->iter_start, k);
    fputs(",\n    \"iter_wall\": ", f);
    put_dbl_array(f, p->iter_wall, k);
    fputs("}", f);
}

static void put_views(FILE *f, const Profile *p)
{
    static const ProfileBy every[] = {PROFILE_BY_OP, PROFILE_BY_NODE, PROFILE_BY_MODULE, PROFILE_BY_LINE};
    for (size_t v = 0; v < EP_ARRAY_LEN(every); v++) {
        ProfileRow *rows;
        int n = profile_rows(p, every[v], &rows);
        fprintf(f, "%s\n    ", v ? "," : "");
        put_key(f, profile_by_name(every[v]));
        fputc('[', f);
        for (int i = 0; i < n; i++) {
            fputs(i ? ",\n      " : "\n      ", f);
            put_object(f, &rows[i], FIELDS(ROW_FIELDS));
        }
        fputs("]", f);
        profile_rows_free(rows, n);
    }
}

/* The whole run's change, the other row's, and per source line. */
static void put_diff_summary(FILE *f, const Profile *p, const Profile *base)
{
    fputs("{\"base_model_path\": ", f);
    put_str(f, base->model_path);
    fputs(",\n    \"total\": ", f);
    put_diff(f, profile_total_seconds(base), profile_total_seconds(p));
    fputs(",\n    \"other\": ", f);
    put_diff(f, profile_other_seconds(base), profile_other_seconds(p));
    fputs(",\n    \"lines\": [", f);
    ReportDiffRow *d;
    int n = report_diff_rows(p, base, PROFILE_BY_LINE, &d);
    for (int i = 0; i < n; i++) {
        fputs(i ? ",\n      {\"key\": " : "\n      {\"key\": ", f);
        put_str(f, d[i].key);
        fputs(", \"code\": ", f);
        put_str(f, d[i].detail);
        fputs(", \"diff\": ", f);
        put_diff(f, d[i].before, d[i].after);
        fputc('}', f);
    }
    fputs("]}", f);
    report_diff_rows_free(d, n);
}

EpStatus report_json(FILE *f, const Profile *p, const ReportOptions *o, EpError *err)
{
    EP_UNUSED(err);
    static const ReportOptions defaults = {.by = PROFILE_BY_OP};
    if (!o)
        o = &defaults;
    fprintf(f, "{\"format\": \"%s\", \"version\": %d,\n  ", FORMAT_NAME, FORMAT_VERSION);
    put_fields(f, p, FIELDS(PROFILE_FIELDS), ",\n  ");
    fputs(",\n  \"total_seconds\": ", f);
    put_dbl(f, profile_total_seconds(p));
    fputs(",\n  \"peak_tensors\": [", f);
    for (int i = 0; i < p->npeak_tensors; i++) {
        if (i)
            fputs(", ", f);
        put_object(f, &p->peak_tensors[i], FIELDS(TENSOR_FIELDS));
    }
    fputs("],\n  \"nodes\": [", f);
    for (int i = 0; i < p->nnodes; i++) {
        fputs(i ? ",\n" : "\n", f);
        put_node(f, p, i, o->base);
    }
    fputs("],\n  \"timeline\": ", f);
    put_timeline(f, p);
    fputs(",\n  \"views\": {", f);
    put_views(f, p);
    fputs("}", f);
    if (o->base) {
        fputs(",\n  \"diff\": ", f);
        put_diff_summary(f, p, o->base);
    }
    fputs("}\n", f);
    return EP_OK;
}

/* ---- reading ------------------------------------------------------------------------ */

static EpStatus get_name(const JCtx *c, const JPath *at, const cJSON *v, const char *const *names, int n, int *out)
{
    const char *s;
    if (jstr(c, at, v, &s) != EP_OK)
        return EP_ERR_FORMAT;
    for (int i = 0; i < n; i++)
        if (names[i] && strcmp(names[i], s) == 0) {
            *out = i;
            return EP_OK;
        }
    return jfail(c, at, "unknown value '%s'", s);
}

/* Fill obj's fields from the JSON object o: absent or null members keep
** their zero; a member of the wrong type or range fails naming its path. */
static EpStatus get_fields(const JCtx *c, const JPath *p, const cJSON *o, void *obj, const Field *fields, int n)
{
    if (!cJSON_IsObject(o))
        return jfail(c, p, "expected an object");
    char *base = obj;
    for (int i = 0; i < n; i++) {
        const cJSON *v = jget(o, fields[i].key);
        if (!v)
            continue;
        JPath at = {p, fields[i].key, 0};
        void *dst = base + fields[i].off;
        int64_t x;
        int e;
        const char *s;
        switch (fields[i].type) {
        case F_STR:
            if (jstr(c, &at, v, &s) != EP_OK)
                return EP_ERR_FORMAT;
            *(char **)dst = ep_xstrdup(s);
            break;
        case F_INT:
        case F_SINT:
        case F_I64:
            if (jint(c, &at, v, &x) != EP_OK)
                return EP_ERR_FORMAT;
            if (fields[i].type != F_SINT && x < 0)
                return jfail(c, &at, "expected a count (>= 0), got %" PRId64, x);
            if (fields[i].type == F_I64) {
                *(int64_t *)dst = x;
                break;
            }
            if (x < INT_MIN || x > INT_MAX)
                return jfail(c, &at, "%" PRId64 " is out of range", x);
            *(int *)dst = (int)x;
            break;
        case F_DBL:
            if (jfloat(c, &at, v, (double *)dst) != EP_OK)
                return EP_ERR_FORMAT;
            break;
        case F_BOOL:
            if (jbool(c, &at, v, (bool *)dst) != EP_OK)
                return EP_ERR_FORMAT;
            break;
        case F_MODE:
            if (get_name(c, &at, v, MODE_NAMES, (int)EP_ARRAY_LEN(MODE_NAMES), &e) != EP_OK)
                return EP_ERR_FORMAT;
            *(ProfileMode *)dst = (ProfileMode)e;
            break;
        case F_CLOCK:
            if (get_name(c, &at, v, CLOCK_NAMES, (int)EP_ARRAY_LEN(CLOCK_NAMES), &e) != EP_OK)
                return EP_ERR_FORMAT;
            *(ProfileClock *)dst = (ProfileClock)e;
            break;
        }
    }
    return EP_OK;
}

/* An optional array member: its length (0 when absent), failing when the
** member is there and not an array. */
static EpStatus get_array(const JCtx *c, const JPath *p, const cJSON *o, const char *key, const cJSON **arr, int *n)
{
    *arr = jget(o, key);
    *n = 0;
    if (!*arr)
        return EP_OK;
    if (!cJSON_IsArray(*arr)) {
        JPath at = {p, key, 0};
        return jfail(c, &at, "expected an array");
    }
    *n = cJSON_GetArraySize(*arr);
    return EP_OK;
}

/* The module view makes a row of every prefix of a path, so a hostile
** path of a million dots would cost the square of its length: real ones
** are a few levels deep. */
#define MAX_PATH_LEN 4096
#define MAX_PATH_DEPTH 64

static bool plausible_path(const char *path)
{
    int dots = 0;
    for (const char *c = path; *c; c++)
        dots += *c == '.';
    return strlen(path) <= MAX_PATH_LEN && dots < MAX_PATH_DEPTH;
}

static EpStatus get_node(const JCtx *c, const JPath *p, const cJSON *o, ProfileNode *n)
{
    EpStatus rc = get_fields(c, p, o, n, FIELDS(NODE_FIELDS));
    if (rc != EP_OK)
        return rc;
    if (!n->name) {
        JPath at = {p, "name", 0};
        return jfail(c, &at, "missing required field");
    }
    const cJSON *t = jget(o, "time");
    JPath tp = {p, "time", 0};
    if (t && (rc = get_fields(c, &tp, t, &n->time, FIELDS(STATS_FIELDS))) != EP_OK)
        return rc;
    const cJSON *arr;
    int ns;
    if ((rc = get_array(c, p, o, "scopes", &arr, &ns)) != EP_OK)
        return rc;
    n->scopes = ep_xcalloc((size_t)(ns ? ns : 1), sizeof *n->scopes);
    JPath sp = {p, "scopes", 0};
    int k = 0;
    for (const cJSON *s = arr ? arr->child : NULL; s; s = s->next, k++) {
        JPath at = {&sp, NULL, k};
        n->nscopes = k + 1; /* so profile_free frees what was read, even on failure */
        if ((rc = get_fields(c, &at, s, &n->scopes[k], FIELDS(SCOPE_FIELDS))) != EP_OK)
            return rc;
        if (!n->scopes[k].path)
            n->scopes[k].path = ep_xstrdup("");
        if (!plausible_path(n->scopes[k].path)) {
            JPath pp = {&at, "path", 0};
            return jfail(c, &pp, "a module path of more than %d characters or %d levels", MAX_PATH_LEN, MAX_PATH_DEPTH);
        }
    }
    return EP_OK;
}

/* A numeric array of exactly n elements into a new buffer (int64 when
** ints is set, else double). */
static EpStatus get_numbers(const JCtx *c, const JPath *p, const cJSON *o, const char *key, int64_t n, bool ints,
                            void **out)
{
    JPath at = {p, key, 0};
    const cJSON *arr = jget(o, key);
    if (!cJSON_IsArray(arr))
        return jfail(c, &at, arr ? "expected an array" : "missing required field");
    if (cJSON_GetArraySize(arr) != n)
        return jfail(c, &at, "expected %" PRId64 " numbers, got %d", n, cJSON_GetArraySize(arr));
    /* n is at most the array's real length here, so the file's size bounds it */
    void *buf = ep_xcalloc((size_t)(n ? n : 1), ints ? sizeof(int64_t) : sizeof(double));
    *out = buf;
    int64_t i = 0;
    for (const cJSON *v = arr->child; v; v = v->next, i++) {
        JPath el = {&at, NULL, (int)i};
        EpStatus rc = ints ? jint(c, &el, v, (int64_t *)buf + i)
                           : (cJSON_IsNull(v) ? EP_OK : jfloat(c, &el, v, (double *)buf + i));
        if (rc != EP_OK)
            return rc;
    }
    return EP_OK;
}

static EpStatus get_timeline(const JCtx *c, const cJSON *root, Profile *p)
{
    const cJSON *t = jget(root, "timeline");
    if (!t)
        return EP_OK;
    JPath tp = {NULL, "timeline", 0};
    if (!cJSON_IsObject(t))
        return jfail(c, &tp, "expected an object");
    int k = 0;
    EpStatus rc = get_fields(c, &tp, t, &k, (const Field[]){{"iters", F_INT, 0}}, 1);
    if (rc != EP_OK)
        return rc;
    int64_t cells;
    if (!ep_mul_i64(k, p->nnodes, &cells) || cells > INT_MAX)
        return jfail(c, &tp, "%d iterations of %d nodes is too many", k, p->nnodes);
    if (k == 0)
        return EP_OK;
    /* a count that disagrees with an array's length fails there, before
    ** anything that large is allocated */
    if ((rc = get_numbers(c, &tp, t, "start", cells, false, (void **)&p->start)) != EP_OK ||
        (rc = get_numbers(c, &tp, t, "dur", cells, false, (void **)&p->dur)) != EP_OK ||
        (rc = get_numbers(c, &tp, t, "live", cells, true, (void **)&p->live)) != EP_OK ||
        (rc = get_numbers(c, &tp, t, "iter_start", k, false, (void **)&p->iter_start)) != EP_OK ||
        (rc = get_numbers(c, &tp, t, "iter_wall", k, false, (void **)&p->iter_wall)) != EP_OK)
        return rc;
    p->timeline_iters = k;
    return EP_OK;
}

/* The header that says what the file is, with messages for files that are
** something else. */
static EpStatus check_header(const char *path, const cJSON *root, EpError *err)
{
    if (!cJSON_IsObject(root))
        return ep_fail(err, EP_ERR_FORMAT, "%s: not an epdbg profile (not a JSON object)", path);
    const cJSON *fmt = jget(root, "format");
    if (!fmt)
        return ep_fail(err, EP_ERR_FORMAT, "%s: not an epdbg profile (missing key 'format')", path);
    if (!cJSON_IsString(fmt) || strcmp(fmt->valuestring, FORMAT_NAME) != 0)
        return ep_fail(err, EP_ERR_FORMAT, "%s: not an epdbg profile (key 'format' is not \"%s\")", path,
                       FORMAT_NAME);
    const cJSON *ver = jget(root, "version");
    if (!ver)
        return ep_fail(err, EP_ERR_FORMAT, "%s: not an epdbg profile (missing key 'version')", path);
    if (!cJSON_IsNumber(ver) || ver->valuedouble != FORMAT_VERSION)
        return ep_fail(err, EP_ERR_FORMAT,
                       "%s: epdbg profile version %g is not supported (this epdbg reads version %d)", path, cJSON_IsNumber(ver) ? ver->valuedouble : NAN, FORMAT_VERSION);
    if (!cJSON_IsArray(jget(root, "nodes")))
        return ep_fail(err, EP_ERR_FORMAT, "%s: not an epdbg profile (missing key 'nodes')", path);
    return EP_OK;
}

static EpStatus read_profile(const JCtx *c, const cJSON *root, Profile *p)
{
    EpStatus rc = get_fields(c, NULL, root, p, FIELDS(PROFILE_FIELDS));
    if (rc != EP_OK)
        return rc;
    const cJSON *arr;
    int n;
    if ((rc = get_array(c, NULL, root, "nodes", &arr, &n)) != EP_OK)
        return rc;
    p->nodes = ep_xcalloc((size_t)(n ? n : 1), sizeof *p->nodes);
    JPath np = {NULL, "nodes", 0};
    int i = 0;
    for (const cJSON *o = arr->child; o; o = o->next, i++) {
        JPath at = {&np, NULL, i};
        p->nnodes = i + 1; /* so profile_free frees what was read, even on failure */
        if ((rc = get_node(c, &at, o, &p->nodes[i])) != EP_OK)
            return rc;
    }
    if (p->peak_node < -1 || p->peak_node >= p->nnodes) {
        JPath at = {NULL, "peak_node", 0};
        return jfail(c, &at, "%d is not a node (-1 or 0 .. %d)", p->peak_node, p->nnodes - 1);
    }
    if ((rc = get_array(c, NULL, root, "peak_tensors", &arr, &n)) != EP_OK)
        return rc;
    p->peak_tensors = ep_xcalloc((size_t)(n ? n : 1), sizeof *p->peak_tensors);
    JPath tp = {NULL, "peak_tensors", 0};
    i = 0;
    for (const cJSON *o = arr ? arr->child : NULL; o; o = o->next, i++) {
        JPath at = {&tp, NULL, i};
        p->npeak_tensors = i + 1;
        if ((rc = get_fields(c, &at, o, &p->peak_tensors[i], FIELDS(TENSOR_FIELDS))) != EP_OK)
            return rc;
    }
    return get_timeline(c, root, p);
}

Profile *profile_read_json(const char *path, EpError *err)
{
    char *text;
    size_t len;
    if (read_file(path, &text, &len, err) != EP_OK)
        return NULL;
    cJSON *root = json_parse(text, len, path, err);
    free(text);
    if (!root)
        return NULL;
    Profile *p = NULL;
    if (check_header(path, root, err) == EP_OK) {
        p = ep_xcalloc(1, sizeof *p);
        p->peak_node = -1;
        JCtx c = {path, err};
        if (read_profile(&c, root, p) != EP_OK) {
            profile_free(p);
            p = NULL;
        }
    }
    cJSON_Delete(root);
    if (p)
        profile_clean_text(p);
    return p;
}
