/*
** oprun.c -- running one op through the registry for the fast-path suites
** (oprun.h).
*/
#include "oprun.h"

#include <stdio.h>
#include <string.h>

#include "interp/parallel.h"
#include "testutil.h"

Tensor *oprun_try(const char *target, int n, const Value *vals, bool fast, int k, char *msg, size_t cap)
{
    const OpDef *op = op_lookup(target);
    ck_assert_msg(op != NULL, "%s not in the registry", target);
    EpError err = {0};
    Value args[OP_MAX_ARGS];
    ck_assert_msg(op_bind(op, n, NULL, vals, args, &err) == EP_OK, "%s: %s", target, err.msg);
    Value outs[OP_MAX_RETS];
    for (int i = 0; i < OP_MAX_RETS; i++)
        outs[i].kind = V_NONE;
    KernelConfig cfg = {.use_blas = fast};
    OpCall call = {op, args, op->schema->nargs, outs, op->schema->nrets, &err, &cfg};
    EpStatus rc = op->fn(&call);
    Tensor *r = rc == EP_OK && outs[k].kind == V_TENSOR ? tensor_ref(outs[k].t) : NULL;
    if (rc != EP_OK && msg)
        snprintf(msg, cap, "%.200s", err.msg);
    for (int i = 0; i < OP_MAX_RETS; i++)
        value_clear(&outs[i]);
    for (int i = 0; i < op->schema->nargs; i++)
        value_clear(&args[i]);
    return r;
}

Tensor *oprun(const char *target, int n, const Value *vals, bool fast, int k)
{
    char msg[256] = "";
    Tensor *r = oprun_try(target, n, vals, fast, k, msg, sizeof msg);
    ck_assert_msg(r != NULL, "%s: %s", target, msg[0] ? msg : "the output is not a tensor");
    return r;
}

bool tensors_same_bits(const Tensor *a, const Tensor *b)
{
    return a->dtype == b->dtype && shape_equal(a->ndim, a->sizes, b->ndim, b->sizes) &&
           tensor_nbytes(a) == tensor_nbytes(b) && memcmp(tensor_data(a), tensor_data(b), tensor_nbytes(a)) == 0;
}

Tensor *oprun_threads(const char *what, const char *target, int n, const Value *vals, int k, const int *threads,
                      int nthreads)
{
    Tensor *first = NULL;
    for (int i = 0; i < nthreads; i++) {
        ep_set_threads(threads[i]);
        Tensor *fast = oprun(target, n, vals, true, k);
        if (!first) {
            first = fast;
            continue;
        }
        ck_assert_msg(tensors_same_bits(fast, first), "%s: bits differ between %d and %d threads", what, threads[0],
                      threads[i]);
        tensor_unref(fast);
    }
    ep_set_threads(0);
    return first;
}
