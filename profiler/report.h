/*
** report.h -- writing a Profile (profile.h) in the formats people read,
** and reading a profile back from its JSON for --diff.
**
** One table (report.c) names every format and its writer; each writer is
** its own file:
**   table       report_table.c       torch.profiler's key_averages() columns
**   json        report_json.c        everything, stable keys (README: "Profile JSON")
**   chrome      report_chrome.c      Trace Event Format (Perfetto, chrome://tracing)
**   speedscope  report_speedscope.c  speedscope's file format
**   folded      report_folded.c      flamegraph.pl's "a;b;c count" lines
**   svg         report_svg.c         a self-contained interactive flame graph
** A writer only writes: the caller opens the file (a temporary name,
** renamed when the writer succeeded, so no half-written report is left).
*/
#ifndef EP_REPORT_H
#define EP_REPORT_H

#include "profile.h"

typedef enum ReportFormat {
    REPORT_TABLE,
    REPORT_JSON,
    REPORT_CHROME,
    REPORT_SPEEDSCOPE,
    REPORT_FOLDED,
    REPORT_SVG,
} ReportFormat;

typedef struct ReportOptions {
    ProfileBy by;         /* table: which view (the json has every view) */
    const Profile *base;  /* --diff: the other profile, shown as the baseline
                          ** ("before"); NULL for a plain report */
    int top;              /* table: rows per view, 0 for all */
} ReportOptions;

/* "table" -> REPORT_TABLE ...; false for an unknown name. */
bool report_format_lookup(const char *name, ReportFormat *fmt);
/* "table, json, chrome, speedscope, folded, svg" (for messages). */
const char *report_format_names(void);
/* Whether fmt can show a --diff (table, json, folded, svg). */
bool report_format_diffs(ReportFormat fmt);

/* Write p to f in fmt.  EP_ERR_USAGE for a --diff the format cannot show
** or whose base is not the same program (different node names); EP_ERR_EXEC
** when writing fails (f's error). */
EpStatus report_write(FILE *f, const Profile *p, ReportFormat fmt, const ReportOptions *o, EpError *err);

/* Read a profile written by the json writer (new; caller frees).  A file
** that is not one: EP_ERR_FORMAT naming the file and the key. */
Profile *profile_read_json(const char *path, EpError *err);

#endif
