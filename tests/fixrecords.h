/*
** fixrecords.h -- reading what a generator fixture archive records, for the
** suites that check fixtures against their documents (test_issue_fixtures;
** test_dyn_fixtures has its own copies of the first helpers): the program
** JSON, the user inputs' recorded sizes, the range constraints, the
** in-graph assert messages, and a run on the stored example inputs.
*/
#ifndef EP_FIXRECORDS_H
#define EP_FIXRECORDS_H

#include <cjson/cJSON.h>

#include "interp/tensor.h"

/* The program JSON (models/model.json) of the archive at path; a failure
** fails the test.  Caller deletes. */
cJSON *fixrec_program(const char *path);

/* "x=[s0, 3] y=[s0, 1]": the recorded sizes of the n user inputs named,
** a bare symbol's srepr shown as its name; *literal: every size an integer.
** New string. */
char *fixrec_input_dims(const cJSON *prog, int n, const char *const *names, bool *literal);

/* "s0:[2, 64] 5*s0:[5, 40]", range_constraints in recorded order (an
** unbounded max is "oo").  New string. */
char *fixrec_ranges(const cJSON *prog);

/* The assert_msg of every aten._assert_scalar node, in graph order,
** joined by " | " ("" for none).  New string. */
char *fixrec_asserts(const cJSON *prog);

/* "[1, 4, 4]". */
void fixrec_shape_text(const Tensor *t, char *buf, size_t cap);

/* Run the archive on its stored example inputs; its one output must be
** float32 of shape want_shape, element at[k] (flat, -1 the last) equal to
** want[k] for k = 0, 1 (a NaN want: the shape only). */
void fixrec_check_run(const char *path, const char *want_shape, const int64_t at[2], const float want[2]);

/* dir/name.npy holding a tensor of dtype and sizes filled with fill (the
** caller frees the path). */
char *fixrec_write_npy(const char *dir, const char *name, DType dtype, int ndim, const int64_t *sizes, double fill);

#endif
