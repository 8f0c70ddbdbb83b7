/*
** fixture_util.h -- what the dynamic-shape fixture writers share
** (fixtures_dynamic.c, fixtures_issues.c): inputs and parameters whose
** example tensor the builder takes, ramps of values a test can check by
** hand, SymInt records, and the in-graph assert nodes PyTorch writes.
*/
#ifndef EP_FIXTURE_UTIL_H
#define EP_FIXTURE_UTIL_H

#include "progbuild_int.h"

/* The folder torch's own frames are in, in the fixtures' stack traces. */
#define SITE_TORCH "/usr/local/lib/python3.11/site-packages/torch/"

/* pb_input / pb_param, dropping the caller's reference to t. */
void fx_input(ProgBuilder *pb, const char *name, Tensor *t, const char *const *dims);
void fx_param(ProgBuilder *pb, const char *fqn, Tensor *t);
/* A tensor of dtype (float32 or int64) holding first, first + step, ...
** (new reference; aborts out of memory, as the generator does). */
Tensor *fx_ramp_as(DType dt, int ndim, const int64_t *sizes, double first, double step);
Tensor *fx_ramp(int ndim, const int64_t *sizes, double first, double step); /* float32 */
/* A 2-D float32 table with t[i][j] = a*i + b*j. */
Tensor *fx_table(int64_t rows, int64_t cols, double a, double b);
/* A SymInt (SymBool) node's recorded expression. */
void fx_symv(ProgBuilder *pb, const char *name, const char *expr);
/* name = aten.sym_size.int(of, dim), recorded as sym. */
void fx_sym_size(ProgBuilder *pb, const char *name, const char *of, int dim, const char *sym);
/* aten._assert_scalar(cond) with the message PyTorch stores, quoting the
** node name ("... on node 'ne'"). */
void fx_assert_node(ProgBuilder *pb, const char *name, const char *cond, const char *expr);

#endif
