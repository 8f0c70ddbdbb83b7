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

#endif
