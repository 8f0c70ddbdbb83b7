/*
** test_guards.c -- guard failures say where the constraint comes from
** (interp/guards.h): the generator's guard fixtures (a derived dim, a
** divisibility left in the graph as an _assert_scalar chain, an unbacked
** item() with a check) with wrong inputs, each message checked exactly
** against the text the fixture's definition implies (examples/gen/
** fixtures.c: its lines, ranges and node names); and expressions that do
** not parse refuse binding as a malformed archive.
*/
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "examples/gen/progbuild.h"
#include "interp/interp.h"
#include "testutil.h"

#define FIX "build/fixtures/"

static Tensor *ones(DType dt, int64_t n, int64_t value)
{
    EpError err = {0};
    Tensor *t = tensor_empty(dt, 1, &n, &err);
    ck_assert_msg(t != NULL, "%s", err.msg);
    for (int64_t i = 0; i < n; i++) {
        if (dt == DT_I64)
            ((int64_t *)tensor_data(t))[i] = value;
        else
            ((float *)tensor_data(t))[i] = (float)value;
    }
    return t;
}

/* Bind the 1-d inputs of sizes n[0..k-1] (dtypes dt, every element v) to
** the program at path and run it; the status of the first failure, its
** message in msg. */
static EpStatus bind_and_run(const char *path, int k, const DType *dt, const int64_t *n, const int64_t *v, char *msg,
                             size_t cap)
{
    Model *m;
    EpError err = {0};
    ck_assert_msg(model_open(path, NULL, &m, &err) == EP_OK, "%s", err.msg);
    Interp *ip = interp_new(m, NULL, &err);
    ck_assert_msg(ip != NULL, "%s", err.msg);
    Value in[4];
    for (int i = 0; i < k; i++)
        in[i] = value_tensor(ones(dt[i], n[i], v[i]));
    EpStatus rc = interp_bind(ip, in, k, &err);
    if (rc == EP_OK)
        rc = interp_run(ip, &err);
    snprintf(msg, cap, "%s", rc ? err.msg : "");
    for (int i = 0; i < k; i++)
        value_clear(&in[i]);
    interp_free(ip);
    model_free(m);
    return rc;
}

static const DType F2[2] = {DT_F32, DT_F32};
static const int64_t V1[2] = {1, 1};

START_TEST(test_derived_dim)
{
    char msg[EP_ERRMSG_MAX];
    const int64_t good[2] = {5, 6}, bad[2] = {5, 7}, big[2] = {70, 71};
    ck_assert_msg(bind_and_run(FIX "guard_derived.pt2", 2, F2, good, V1, msg, sizeof msg) == EP_OK, "%s", msg);
    ck_assert_int_eq(bind_and_run(FIX "guard_derived.pt2", 2, F2, bad, V1, msg, sizeof msg), EP_ERR_INPUT);
    ck_assert_str_eq(msg, "input y.shape[0] is 7, which does not fit s0 + 1 (s0 in [2, 64]; 0 and 1 also accepted "
                          "at run time, as PyTorch does): s0 = 5 from an earlier input, so s0 + 1 = 6, not 7\n"
                          "  s0 = 5: x.shape[0], a Dim of the export's dynamic_shapes, in [2, 64]\n"
                          "  y.shape[0] = s0 + 1: the input is first used by node 'slice_1' (aten.slice.Tensor) at "
                          "guards.py:9 in forward: return x + y[1:]");
    ck_assert_int_eq(bind_and_run(FIX "guard_derived.pt2", 2, F2, big, V1, msg, sizeof msg), EP_ERR_INPUT);
    ck_assert_str_eq(msg, "input x.shape[0] is 70, above the maximum 64 of s0 (s0 in [2, 64]; 0 and 1 also accepted "
                          "at run time, as PyTorch does)\n"
                          "  s0 = 70: x.shape[0], a Dim of the export's dynamic_shapes, in [2, 64]\n"
                          "  x.shape[0] = s0: the input is first used by node 'add' (aten.add.Tensor) at "
                          "guards.py:9 in forward: return x + y[1:]");
}
END_TEST

/* 3 * 5 is odd: the check fails before the run, naming both inputs. */
START_TEST(test_assert_chain)
{
    char msg[EP_ERRMSG_MAX];
    const int64_t good[2] = {3, 6}, bad[2] = {3, 5};
    ck_assert_msg(bind_and_run(FIX "guard_mod.pt2", 2, F2, good, V1, msg, sizeof msg) == EP_OK, "%s", msg);
    ck_assert_int_eq(bind_and_run(FIX "guard_mod.pt2", 2, F2, bad, V1, msg, sizeof msg), EP_ERR_INPUT);
    ck_assert_str_eq(msg,
                     "input x.shape[0] is 3 and y.shape[0] is 5, which fail the program's in-graph check "
                     "Eq(Mod(s0*s1, 2), 0) (s0 in [2, 64], s1 in [2, 64]) with s0 = 3, s1 = 5: Mod(3*5, 2) = 1\n"
                     "  s0 = 3: x.shape[0], a Dim of the export's dynamic_shapes, in [2, 64]\n"
                     "  s1 = 5: y.shape[0], a Dim of the export's dynamic_shapes, in [2, 64]\n"
                     "  checked by node '_assert_scalar_default' (aten._assert_scalar.default) at guards.py:17 in "
                     "forward: torch._check(cells % 2 == 0), computed by:\n"
                     "    Eq(Mod(s0*s1, 2), 0): node 'eq' (_operator.eq) at guards.py:17 in forward: "
                     "torch._check(cells % 2 == 0)\n"
                     "      Mod(s0*s1, 2): node 'mod' (_operator.mod) at guards.py:17 in forward: "
                     "torch._check(cells % 2 == 0)\n"
                     "        s0*s1: node 'mul' (_operator.mul) at guards.py:16 in forward: cells = n * m\n"
                     "          x.shape[0] = s0: node 'sym_size_int' (aten.sym_size.int) at guards.py:14 in forward: "
                     "n = x.shape[0]\n"
                     "          y.shape[0] = s1: node 'sym_size_int_1' (aten.sym_size.int) at guards.py:15 in "
                     "forward: m = y.shape[0]");
}
END_TEST

/* u0 = t.item() = 6 is no multiple of 4: only the run can tell. */
START_TEST(test_unbacked_assert)
{
    char msg[EP_ERRMSG_MAX];
    const DType dt[2] = {DT_I64, DT_F32};
    const int64_t n[2] = {1, 3}, good[2] = {8, 1}, bad[2] = {6, 1};
    ck_assert_msg(bind_and_run(FIX "guard_item.pt2", 2, dt, n, good, msg, sizeof msg) == EP_OK, "%s", msg);
    ck_assert_int_eq(bind_and_run(FIX "guard_item.pt2", 2, dt, n, bad, msg, sizeof msg), EP_ERR_EXEC);
    ck_assert_str_eq(msg,
                     "node 3 '_assert_scalar_default' (aten._assert_scalar.default) at guards.py:23 in forward: "
                     "torch._check(k % 4 == 0): Runtime assertion failed: Eq(Mod(u0, 4), 0) with u0 = 6: "
                     "Mod(6, 4) = 2\n"
                     "  u0 = 6: unbacked, produced by node 'item' (aten.item.default) at guards.py:22 in forward: "
                     "k = t.item()\n"
                     "  checked by node '_assert_scalar_default' (aten._assert_scalar.default) at guards.py:23 in "
                     "forward: torch._check(k % 4 == 0), computed by:\n"
                     "    Eq(Mod(u0, 4), 0): node 'eq' (_operator.eq) at guards.py:23 in forward: "
                     "torch._check(k % 4 == 0)\n"
                     "      Mod(u0, 4): node 'mod' (_operator.mod) at guards.py:23 in forward: "
                     "torch._check(k % 4 == 0)\n"
                     "        u0: node 'item' (aten.item.default) at guards.py:22 in forward: k = t.item()");
}
END_TEST

/* A range key that does not parse (the generator itself refuses to write
** one, as its writer runs the program): binding refuses it, naming the
** key, its JSON path and the reason. */
START_TEST(test_unparsed_range_key)
{
    Model *m;
    EpError err = {0};
    ck_assert_msg(model_open(FIX "guard_derived.pt2", NULL, &m, &err) == EP_OK, "%s", err.msg);
    RangeConstraint *r = (RangeConstraint *)&m->ep->ranges[0];
    sym_free(r->parsed);
    r->parsed = NULL;
    free(r->expr);
    r->expr = ep_xstrdup("Mod(s0,");
    Interp *ip = interp_new(m, NULL, &err);
    ck_assert_msg(ip != NULL, "%s", err.msg);
    Value in[2] = {value_tensor(ones(DT_F32, 5, 1)), value_tensor(ones(DT_F32, 6, 1))};
    ck_assert_int_eq(interp_bind(ip, in, 2, &err), EP_ERR_FORMAT);
    ck_assert_str_eq(err.msg, "the range constraint: the archive's expression 'Mod(s0,' (range_constraints.Mod(s0,) "
                              "does not parse: expected an expression at end of input; epdbg cannot check the guard "
                              "it states");
    value_clear(&in[0]);
    value_clear(&in[1]);
    interp_free(ip);
    model_free(m);
}
END_TEST

/* A size expression that does not parse (as a newer exporter's syntax
** would be): the input's dimension is named, not skipped. */
START_TEST(test_unparsed_size)
{
    Model *m;
    EpError err = {0};
    ck_assert_msg(model_open(FIX "guard_derived.pt2", NULL, &m, &err) == EP_OK, "%s", err.msg);
    SymDim *sd = (SymDim *)&graph_tensor_meta(&m->ep->graph, "y")->sizes[0];
    sym_free(sd->parsed);
    sd->parsed = NULL;
    free(sd->expr);
    sd->expr = ep_xstrdup("s0 +");
    Interp *ip = interp_new(m, NULL, &err);
    ck_assert_msg(ip != NULL, "%s", err.msg);
    Value in[2] = {value_tensor(ones(DT_F32, 5, 1)), value_tensor(ones(DT_F32, 6, 1))};
    ck_assert_int_eq(interp_bind(ip, in, 2, &err), EP_ERR_FORMAT);
    const char *want = "input y.shape[0]: the archive's expression 's0 +' "
                       "(graph_module.graph.tensor_values.y.sizes[0]) does not parse: ";
    ck_assert_msg(strncmp(err.msg, want, strlen(want)) == 0, "%s", err.msg);
    value_clear(&in[0]);
    value_clear(&in[1]);
    interp_free(ip);
    model_free(m);
}
END_TEST

Suite *suite_guards(void)
{
    Suite *s = suite_create("guards");
    TCase *tc = tcase_create("guards");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_derived_dim);
    tcase_add_test(tc, test_assert_chain);
    tcase_add_test(tc, test_unbacked_assert);
    tcase_add_test(tc, test_unparsed_range_key);
    tcase_add_test(tc, test_unparsed_size);
    suite_add_tcase(s, tc);
    return s;
}
