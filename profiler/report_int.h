/*
** report_int.h -- the writers report.c's format table calls, one file
** each.  o->base is NULL unless the format diffs (report_format_diffs),
** and report.c has checked that it profiles the same program.
*/
#ifndef EP_REPORT_INT_H
#define EP_REPORT_INT_H

#include "report.h"

EpStatus report_table(FILE *f, const Profile *p, const ReportOptions *o, EpError *err);
EpStatus report_json(FILE *f, const Profile *p, const ReportOptions *o, EpError *err);
EpStatus report_chrome(FILE *f, const Profile *p, const ReportOptions *o, EpError *err);
EpStatus report_speedscope(FILE *f, const Profile *p, const ReportOptions *o, EpError *err);
EpStatus report_folded(FILE *f, const Profile *p, const ReportOptions *o, EpError *err);
EpStatus report_svg(FILE *f, const Profile *p, const ReportOptions *o, EpError *err);

/* --diff: a view of p and of base (the same program) matched by row key,
** self seconds per iteration before (base) and after (p); a row only one
** side has is 0 on the other.  Largest |after - before| first, ties in p's
** row order.  New array (key and detail owned); free with
** report_diff_rows_free. */
typedef struct ReportDiffRow {
    char *key, *detail;
    double before, after;
} ReportDiffRow;
int report_diff_rows(const Profile *p, const Profile *base, ProfileBy by, ReportDiffRow **rows);
void report_diff_rows_free(ReportDiffRow *rows, int n);

#endif
