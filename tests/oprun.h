/*
** oprun.h -- running one op through the registry in the Check suites of the
** fast paths (test_conv_fast.c, test_copy_fast.c, test_fastpaths.c,
** test_reduce_dtypes.c, test_reduce_fast.c): on the fast paths or the
** reference loops, and at several thread counts, bit for bit.
*/
#ifndef EP_OPRUN_H
#define EP_OPRUN_H

#include <stdbool.h>
#include <stddef.h>

#include "interp/ops.h"

/* target on the positional vals (borrowed), on the fast paths
** (KernelConfig.use_blas) or the plain reference loops: output k (a new
** reference), or NULL when the kernel failed (its message in msg when
** msg) or output k is not a tensor.  A target the registry lacks or
** arguments that do not bind fail the test. */
Tensor *oprun_try(const char *target, int n, const Value *vals, bool fast, int k, char *msg, size_t cap);

/* oprun_try, failing the test when the kernel fails or output k is not a
** tensor. */
Tensor *oprun(const char *target, int n, const Value *vals, bool fast, int k);

/* The same dtype, shape and bytes (of tensor_data, tensor_nbytes long). */
bool tensors_same_bits(const Tensor *a, const Tensor *b);

/* Output k of target on vals on the fast paths at each of the nthreads
** thread counts: the same bits at every count (else the test fails,
** naming what); the result at the first count (a new reference).  The
** thread count is left at the default (0). */
Tensor *oprun_threads(const char *what, const char *target, int n, const Value *vals, int k, const int *threads,
                      int nthreads);

#endif
