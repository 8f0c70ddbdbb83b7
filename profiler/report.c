/*
** report.c -- the one table of report formats (report.h): each format's
** name, writer (one file each, report_int.h) and whether it can show a
** --diff; and report_write, which checks a --diff before any writer runs.
*/
#include "profiler/report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profiler/report_int.h"

typedef EpStatus (*ReportWriter)(FILE *f, const Profile *p, const ReportOptions *o, EpError *err);

/* Indexed by ReportFormat. */
static const struct {
    const char *name;
    ReportWriter write;
    bool diffs;
} FORMATS[] = {
    [REPORT_TABLE] = {"table", report_table, true},
    [REPORT_JSON] = {"json", report_json, true},
    [REPORT_CHROME] = {"chrome", report_chrome, false},
    [REPORT_SPEEDSCOPE] = {"speedscope", report_speedscope, false},
    [REPORT_FOLDED] = {"folded", report_folded, true},
    [REPORT_SVG] = {"svg", report_svg, true},
};

bool report_format_lookup(const char *name, ReportFormat *fmt)
{
    for (size_t i = 0; name && i < EP_ARRAY_LEN(FORMATS); i++)
        if (strcmp(FORMATS[i].name, name) == 0) {
            *fmt = (ReportFormat)i;
            return true;
        }
    return false;
}

/* The names of the formats (those that diff, or all) into buf: built from
** the table, so a message never lags behind it. */
static const char *names_into(char *buf, size_t cap, bool only_diffs)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < EP_ARRAY_LEN(FORMATS) && len < cap; i++)
        if (!only_diffs || FORMATS[i].diffs)
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", FORMATS[i].name);
    return buf;
}

const char *report_format_names(void)
{
    static char names[128];
    return names[0] ? names : names_into(names, sizeof names, false);
}

static bool format_valid(ReportFormat fmt)
{
    return (unsigned)fmt < EP_ARRAY_LEN(FORMATS);
}

bool report_format_diffs(ReportFormat fmt)
{
    return format_valid(fmt) && FORMATS[fmt].diffs;
}

static const char *or_unknown(const char *s)
{
    return s ? s : "(unnamed)";
}

/* Whether base profiles the same program as p: the same nodes, by name, in
** order; else EP_ERR_USAGE naming the first difference. */
static EpStatus same_program(const Profile *p, const Profile *base, EpError *err)
{
    const char *what = base->model_path ? base->model_path : "?";
    if (p->nnodes != base->nnodes)
        return ep_fail(err, EP_ERR_USAGE, "--diff: the base profile (of %s) is not of the same program: "
                       "it has %d nodes, this one %d", what, base->nnodes, p->nnodes);
    for (int i = 0; i < p->nnodes; i++) {
        const char *a = p->nodes[i].name, *b = base->nodes[i].name;
        if (!a || !b || strcmp(a, b) != 0)
            return ep_fail(err, EP_ERR_USAGE, "--diff: the base profile (of %s) is not of the same program: "
                           "node %d is '%s' there, '%s' here", what, i, or_unknown(b), or_unknown(a));
    }
    return EP_OK;
}

EpStatus report_write(FILE *f, const Profile *p, ReportFormat fmt, const ReportOptions *o, EpError *err)
{
    static const ReportOptions defaults = {.by = PROFILE_BY_OP};
    if (!o)
        o = &defaults;
    if (!format_valid(fmt))
        return ep_fail(err, EP_ERR_USAGE, "unknown report format %d (known: %s)", (int)fmt, report_format_names());
    if (o->base) {
        char can[128];
        if (!FORMATS[fmt].diffs)
            return ep_fail(err, EP_ERR_USAGE, "--diff: the %s format cannot show a diff (these can: %s)",
                           FORMATS[fmt].name, names_into(can, sizeof can, true));
        EpStatus rc = same_program(p, o->base, err);
        if (rc != EP_OK)
            return rc;
    }
    EpStatus rc = FORMATS[fmt].write(f, p, o, err);
    if (rc != EP_OK)
        return rc;
    errno = 0;
    if (fflush(f) != 0 || ferror(f))
        return ep_fail(err, EP_ERR_EXEC, "writing the %s report failed: %s", FORMATS[fmt].name,
                       errno ? strerror(errno) : "write error");
    return EP_OK;
}

/* ---- --diff rows, shared by the writers that diff ------------------------------ */

static int cmp_row_key(const void *a, const void *b)
{
    return strcmp(((const ProfileRow *)a)->key, ((const ProfileRow *)b)->key);
}

typedef struct Ordered {
    ReportDiffRow row;
    int order; /* p's row order, then the base's: ties keep it */
} Ordered;

static int cmp_delta(const void *a, const void *b)
{
    const Ordered *x = a, *y = b;
    double dx = fabs(x->row.after - x->row.before), dy = fabs(y->row.after - y->row.before);
    if (dx != dy)
        return dx < dy ? 1 : -1;
    return (x->order > y->order) - (x->order < y->order);
}

static ReportDiffRow diff_row(const ProfileRow *r, double before, double after)
{
    return (ReportDiffRow){ep_xstrdup(r->key), r->detail ? ep_xstrdup(r->detail) : NULL, before, after};
}

int report_diff_rows(const Profile *p, const Profile *base, ProfileBy by, ReportDiffRow **rows)
{
    ProfileRow *ra, *rb;
    int na = profile_rows(p, by, &ra), nb = profile_rows(base, by, &rb);
    /* the base's rows sorted by key, to find p's keys in */
    ep_qsort(rb, (size_t)nb, sizeof *rb, cmp_row_key);
    bool *matched = ep_xcalloc((size_t)nb + 1, sizeof *matched);
    Ordered *d = ep_xmalloc((size_t)(na + nb) * sizeof *d);
    int n = 0;
    for (int i = 0; i < na; i++) {
        const ProfileRow *hit = bsearch(&ra[i], rb, (size_t)nb, sizeof *rb, cmp_row_key);
        if (hit)
            matched[hit - rb] = true;
        d[n++] = (Ordered){diff_row(&ra[i], hit ? hit->self : 0, ra[i].self), i};
    }
    for (int i = 0; i < nb; i++)
        if (!matched[i])
            d[n++] = (Ordered){diff_row(&rb[i], rb[i].self, 0), na + i};
    ep_qsort(d, (size_t)n, sizeof *d, cmp_delta);
    ReportDiffRow *out = ep_xmalloc((size_t)(n ? n : 1) * sizeof *out);
    for (int i = 0; i < n; i++)
        out[i] = d[i].row;
    free(d);
    free(matched);
    profile_rows_free(ra, na);
    profile_rows_free(rb, nb);
    *rows = out;
    return n;
}

void report_diff_rows_free(ReportDiffRow *rows, int n)
{
    if (!rows)
        return;
    for (int i = 0; i < n; i++) {
        free(rows[i].key);
        free(rows[i].detail);
    }
    free(rows);
}
