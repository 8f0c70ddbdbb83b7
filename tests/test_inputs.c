/*
** test_inputs.c -- user inputs from files (debugger/inputs.h): torch.save
** files of every form, written by the project's torch.save writer, must give
** exactly the values of the same data as .npy (PyTorch's own arrays in
** tests/refs); wrong contents give one clear message; `dump FILE.pt` reads
** back identical; legacy dynamo names bind by the forward's argument name.
*/
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debugger/inputs.h"
#include "interp/archive.h"
#include "interp/npy.h"
#include "interp/picklewrite.h"
#include "interp/pytree.h"

#define FIX "build/fixtures/"

typedef struct Prog {
    Model *m;
    Interp *ip;
} Prog;

static Prog prog_open(const char *path)
{
    Prog p = {0};
    EpError err = {0};
    ck_assert_msg(model_open(path, NULL, &p.m, &err) == EP_OK, "%s: %s", path, err.msg);
    p.ip = interp_new(p.m, NULL, &err);
    ck_assert_msg(p.ip, "%s: %s", path, err.msg);
    return p;
}

static void prog_close(Prog *p)
{
    interp_free(p->ip);
    model_free(p->m);
}

static Tensor *npy(const char *path)
{
    EpError err = {0};
    Tensor *t = npy_load_file(path, &err);
    ck_assert_msg(t, "%s: %s", path, err.msg);
    return t;
}

/* Same dtype, shape and bytes. */
static void assert_identical(const Value *got, const Tensor *want, const char *what)
{
    ck_assert_msg(got->kind == V_TENSOR, "%s: a %s, not a tensor", what, value_kind_name(got->kind));
    const Tensor *t = got->t;
    ck_assert_msg(t->dtype == want->dtype, "%s: dtype %s, want %s", what, dtype_name(t->dtype), dtype_name(want->dtype));
    ck_assert_msg(shape_equal(t->ndim, t->sizes, want->ndim, want->sizes), "%s: shape differs", what);
    EpError err = {0};
    Tensor *a = tensor_to_dtype(t, t->dtype, &err), *b = tensor_to_dtype(want, want->dtype, &err);
    ck_assert_msg(memcmp(tensor_data(a), tensor_data(b), (size_t)tensor_numel(a) * (size_t)dtype_size(a->dtype)) == 0,
                  "%s: values differ", what);
    tensor_unref(a);
    tensor_unref(b);
}

/* Write obj (consumed) as dir/name with torch.save's layout; the path. */
static char *save_pt(const char *dir, const char *name, PwObj *obj)
{
    char *path = ep_xasprintf("%s/%s", dir, name);
    EpError err = {0};
    ck_assert_msg(torchsave_save_file(path, obj, &err) == EP_OK, "%s", err.msg);
    pw_free(obj);
    return path;
}

/* Load with options: --inputs ALL (or NULL) plus --input SPEC (or NULL). */
static EpStatus load(const Interp *ip, const char *all, const char *spec, Value **vals, int *n, EpError *err)
{
    InputArgs a = {0};
    if (all)
        input_args_set_all(&a, all);
    if (spec)
        input_args_add(&a, spec);
    EpStatus rc = inputs_load(ip, &a, NULL, vals, n, err);
    input_args_free(&a);
    return rc;
}

static void free_vals(Value *vals, int n)
{
    for (int i = 0; i < n; i++)
        value_clear(&vals[i]);
    free(vals);
}

/* dynamic.pt2 takes x: float32[s0, 4] and y: float32[2*s0, 4]; PyTorch's
** inputs are tests/refs/dynamic/in0.npy, in1.npy. */
START_TEST(test_torchsave_forms_match_npy)
{
    Prog p = prog_open(FIX "dynamic.pt2");
    Tensor *x = npy("tests/refs/dynamic/in0.npy"), *y = npy("tests/refs/dynamic/in1.npy");
    char *dir = test_tmpdir();
    PwObj *tup[2] = {pw_tensor(x, false), pw_tensor(y, false)};
    PwObj *lst[2] = {pw_tensor(x, false), pw_tensor(y, false)};
    PwObj *byname = pw_dict();
    pw_dict_set(byname, "y", pw_tensor(y, false)); /* not in signature order: names decide */
    pw_dict_set(byname, "x", pw_tensor(x, false));
    PwObj *args[1] = {pw_tensor(x, false)};
    PwObj *kwargs = pw_dict();
    pw_dict_set(kwargs, "y", pw_tensor(y, false));
    PwObj *pair[2] = {pw_tuple(1, args), kwargs}; /* (args, kwargs), as torch.export stores examples */
    char *files[] = {save_pt(dir, "tuple.pt", pw_tuple(2, tup)), save_pt(dir, "list.pt", pw_list(2, lst)),
                     save_pt(dir, "dict.pt", byname), save_pt(dir, "args_kwargs.pt", pw_tuple(2, pair))};
    for (int f = 0; f < 4; f++) {
        Value *vals;
        int n;
        EpError err = {0};
        ck_assert_msg(load(p.ip, files[f], NULL, &vals, &n, &err) == EP_OK, "%s: %s", files[f], err.msg);
        ck_assert_int_eq(n, 2);
        assert_identical(&vals[0], x, files[f]);
        assert_identical(&vals[1], y, files[f]);
        free_vals(vals, n);
        free(files[f]);
    }
    /* one tensor per --input, positional and by name, mixed with .npy */
    char *px = save_pt(dir, "x.pt", pw_tensor(x, false));
    Value *vals;
    int n;
    EpError err = {0};
    InputArgs a = {0};
    input_args_add(&a, "y=tests/refs/dynamic/in1.npy");
    input_args_add(&a, px);
    ck_assert_msg(inputs_load(p.ip, &a, NULL, &vals, &n, &err) == EP_OK, "%s", err.msg);
    assert_identical(&vals[0], x, "--input x.pt");
    assert_identical(&vals[1], y, "--input y=in1.npy");
    free_vals(vals, n);
    input_args_free(&a);
    free(px);
    tensor_unref(x);
    tensor_unref(y);
    free(dir);
    prog_close(&p);
}
END_TEST

/* A .pt with something else than inputs: one message naming the file and
** the place, and no values. */
START_TEST(test_torchsave_wrong_contents)
{
    Prog p = prog_open(FIX "dynamic.pt2");
    Tensor *x = npy("tests/refs/dynamic/in0.npy");
    char *dir = test_tmpdir();
    PwObj *with_str[2] = {pw_tensor(x, false), pw_str("hello")};
    PwObj *unknown = pw_dict();
    pw_dict_set(unknown, "x", pw_tensor(x, false));
    pw_dict_set(unknown, "z", pw_tensor(x, false));
    PwObj *three[3] = {pw_tensor(x, false), pw_tensor(x, false), pw_tensor(x, false)};
    PwObj *pair[2] = {pw_tensor(x, false), pw_tensor(x, false)};
    struct {
        char *file;
        const char *all, *spec; /* how it is given */
        const char *want[2];    /* in the message */
    } cases[] = {
        {save_pt(dir, "str.pt", pw_tuple(2, with_str)), "", NULL, {"str.pt: inputs[1] is a str", "tensors or numbers"}},
        {save_pt(dir, "unknown.pt", unknown), "", NULL, {"unknown.pt: inputs['z']", "'z' matches no input"}},
        {save_pt(dir, "three.pt", pw_tuple(3, three)), "", NULL, {"three.pt: inputs[2]", "takes only 2 inputs"}},
        {save_pt(dir, "pair.pt", pw_tuple(2, pair)), NULL, "", {"pair.pt holds 2 values where one is needed",
                                                                 "--inputs"}},
        {save_pt(dir, "none.pt", pw_none()), "", NULL, {"none.pt: inputs is a None;", "tensors or numbers"}},
        {ep_xstrdup("tests/golden/README.md"), "", NULL, {"README.md: not a .npy, .npz or torch.save", ""}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        Value *vals = NULL;
        int n = 0;
        EpError err = {0};
        EpStatus rc = load(p.ip, cases[k].all ? cases[k].file : NULL, cases[k].spec ? cases[k].file : NULL, &vals,
                           &n, &err);
        ck_assert_msg(rc != EP_OK, "%s was accepted", cases[k].file);
        ck_assert_ptr_null(vals);
        for (int w = 0; w < 2; w++)
            ck_assert_msg(strstr(err.msg, cases[k].want[w]), "%s: '%s' lacks '%s'", cases[k].file, err.msg,
                          cases[k].want[w]);
        free(cases[k].file);
    }
    tensor_unref(x);
    free(dir);
    prog_close(&p);
}
END_TEST

/* Numbers in a torch.save tuple feed SymInt inputs, as Python ints do. */
START_TEST(test_torchsave_symint_number)
{
    Prog p = prog_open(FIX "symint_input.pt2");
    char *dir = test_tmpdir();
    EpError err = {0};
    Tensor *x = NULL;
    Tensor *x3 = tensor_zeros(DT_F32, 1, (int64_t[]){3}, &err);
    ck_assert_ptr_nonnull(x3);
    PwObj *items[2] = {pw_tensor(x3, false), pw_int(5)};
    char *file = save_pt(dir, "xn.pt", pw_tuple(2, items));
    Value *vals;
    int n;
    ck_assert_msg(load(p.ip, file, NULL, &vals, &n, &err) == EP_OK, "%s", err.msg);
    ck_assert_int_eq(vals[1].kind, V_INT);
    ck_assert_int_eq(vals[1].i, 5);
    ck_assert_int_eq(vals[0].t->sizes[0], 3);
    free_vals(vals, n);
    free(file);
    tensor_unref(x3);
    tensor_unref(x);
    free(dir);
    prog_close(&p);
}
END_TEST

/* Legacy archives name the input l_x_; the forward called it x. */
START_TEST(test_legacy_argument_names)
{
    Prog p = prog_open("examples/mlp_legacy.pt2");
    const UserInput *u = interp_user_input(p.ip, 0);
    ck_assert_str_eq(u->name, "l_x_");
    ck_assert_str_eq(u->arg_name, "x");
    ck_assert_int_eq(interp_find_user_input(p.ip, "x"), 0);
    ck_assert_int_eq(interp_find_user_input(p.ip, "l_x_"), 0);
    ck_assert_int_eq(interp_find_user_input(p.ip, "l_x"), -1);
    char *desc = interp_describe_inputs(p.ip);
    ck_assert_msg(strstr(desc, "  x (l_x_): float32[s0, 16]"), "%s", desc);
    free(desc);
    Tensor *x = npy("tests/refs/mlp_legacy/in0.npy");
    const char *specs[] = {"x=tests/refs/mlp_legacy/in0.npy", "l_x_=tests/refs/mlp_legacy/in0.npy"};
    for (int k = 0; k < 2; k++) {
        Value *vals;
        int n;
        EpError err = {0};
        ck_assert_msg(load(p.ip, NULL, specs[k], &vals, &n, &err) == EP_OK, "%s: %s", specs[k], err.msg);
        assert_identical(&vals[0], x, specs[k]);
        free_vals(vals, n);
    }
    /* a dict keyed by the argument name */
    char *dir = test_tmpdir();
    PwObj *d = pw_dict();
    pw_dict_set(d, "x", pw_tensor(x, false));
    char *file = save_pt(dir, "x.pt", d);
    Value *vals;
    int n;
    EpError err = {0};
    ck_assert_msg(load(p.ip, file, NULL, &vals, &n, &err) == EP_OK, "%s", err.msg);
    assert_identical(&vals[0], x, file);
    free_vals(vals, n);
    /* messages name both */
    InputArgs none = {0};
    char *empty = test_tmpdir();
    input_args_set_all(&none, empty); /* a folder without in0.npy or x.npy */
    ck_assert(inputs_load(p.ip, &none, NULL, &vals, &n, &err) != EP_OK);
    ck_assert_msg(strstr(err.msg, "missing input x (l_x_)"), "%s", err.msg);
    input_args_free(&none);
    free(empty);
    free(file);
    free(dir);
    tensor_unref(x);
    prog_close(&p);

    /* a program recorded without dynamo names keeps them alone */
    Prog q = prog_open(FIX "dynamic.pt2");
    ck_assert_ptr_null(interp_user_input(q.ip, 0)->arg_name);
    prog_close(&q);
}
END_TEST

/* Keyword arguments: the in_spec's kwargs dict context names the leaves
** passed as forward(..., key=value), in the versioned JSON and the compact
** spec forms alike; positional leaves keep their placeholder (or dynamo)
** names, and a specialised constant between them takes its leaf. */
START_TEST(test_kwargs_argument_names)
{
    static const char *const specs[] = {
        "[1, {\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": ["
        "{\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": ["
        "{\"type\": null, \"context\": null, \"children_spec\": []},"
        "{\"type\": null, \"context\": null, \"children_spec\": []}]},"
        "{\"type\": \"builtins.dict\", \"context\": \"[\\\"mask\\\", \\\"scale\\\"]\", \"children_spec\": ["
        "{\"type\": null, \"context\": null, \"children_spec\": []},"
        "{\"type\": null, \"context\": null, \"children_spec\": []}]}]}]",
        "T(T(*,*),D(mask:*,scale:*))",
    };
    /* placeholders x, (a constant), kw_mask, scale: the last is named by
    ** its key already */
    InputSpec is[5] = {{.kind = IN_PARAMETER}, {.kind = IN_USER_INPUT}, {.kind = IN_CONSTANT_INPUT},
                       {.kind = IN_USER_INPUT}, {.kind = IN_USER_INPUT}};
    UserInput in[3] = {{.name = "x", .spec_index = 1}, {.name = "kw_mask", .spec_index = 3},
                       {.name = "scale", .spec_index = 4}};
    for (int k = 0; k < 2; k++) {
        char root[] = "";
        ModuleCall top = {.fqn = root, .has_signature = true, .in_spec = (char *)specs[k]};
        ExportedProgram ep = {.ninput_specs = 5, .input_specs = is, .nmodule_calls = 1, .module_calls = &top};
        char **names = pytree_arg_names(&ep, in, 3);
        ck_assert_ptr_null(names[0]);
        ck_assert_msg(names[1] && strcmp(names[1], "mask") == 0, "spec %d: %s", k, names[1] ? names[1] : "NULL");
        ck_assert_ptr_null(names[2]);
        for (int i = 0; i < 3; i++)
            free(names[i]);
        free(names);
    }
}
END_TEST

/* print, watch, display and set take a legacy input by its argument name
** as run --input does (the one lookup, interp_find_user_input). */
START_TEST(test_argument_name_everywhere)
{
    const char *args[] = {"examples/mlp_legacy.pt2", "--no-blas", "-ex", "set x = tests/refs/mlp_legacy/in0.npy",
                          "-ex", "info inputs", "-ex", "restart", "-ex", "print x[0, :2]", "-ex", "watch x",
                          "-ex", "display x.shape", "-ex", "set x[0, 0] = 2", "-ex", "print l_x_[0, :2]", NULL};
    RunResult r = test_run_binary(args, NULL, NULL);
    ck_assert_msg(r.code == 0, "exit %d: %s%s", r.code, r.out, r.err);
    ck_assert_msg(strstr(r.out, "  x (l_x_): float32[4, 16]") && strstr(r.out, "(from tests/refs/mlp_legacy/in0.npy)"),
                  "%s", r.out);
    ck_assert_msg(strstr(r.out, "x[0, :2]: float32[2]\ntensor([-1.5256, -0.7502])"), "%s", r.out);
    ck_assert_msg(strstr(r.out, "Watchpoint 1: x (float32[4, 16])"), "%s", r.out);
    ck_assert_msg(strstr(r.out, "1: x.shape = torch.Size([4, 16])"), "%s", r.out);
    ck_assert_msg(strstr(r.out, "l_x_[0, :2]: float32[2]\ntensor([ 2.0000, -0.7502])"), "%s", r.out);
    run_result_free(&r);
}
END_TEST

/* `dump NAME FILE.pt` in the debugger, read back: the same bytes as the
** .npy dump of the same value; a bfloat16 tensor keeps its dtype. */
START_TEST(test_dump_pt_round_trip)
{
    char *dir = test_tmpdir();
    char *pt = ep_xasprintf("%s/gelu.pt", dir), *np = ep_xasprintf("%s/gelu.npy", dir);
    char *c1 = ep_xasprintf("dump gelu[0] %s", pt), *c2 = ep_xasprintf("dump gelu[0] %s", np);
    const char *args[] = {"examples/mlp.pt2", "--no-blas", "-ex", "break gelu", "-ex", "run",
                          "-ex", "step", "-ex", c1, "-ex", c2, NULL};
    RunResult r = test_run_binary(args, NULL, NULL);
    ck_assert_msg(r.code == 0, "exit %d: %s%s", r.code, r.out, r.err);
    ck_assert_msg(strstr(r.out, "Wrote gelu[0] (float32[32]) to"), "%s", r.out);
    EpError err = {0};
    Tensor *got = inputs_load_array(pt, &err);
    ck_assert_msg(got, "%s", err.msg);
    Tensor *want = npy(np);
    Value gv = value_tensor(got);
    assert_identical(&gv, want, pt);
    value_clear(&gv);
    tensor_unref(want);
    run_result_free(&r);

    Tensor *f = npy("tests/refs/mlp/in0.npy");
    Tensor *bf = tensor_to_dtype(f, DT_BF16, &err);
    char *bpt = ep_xasprintf("%s/bf.pt", dir);
    PwObj *o = pw_tensor(bf, false);
    ck_assert_msg(torchsave_save_file(bpt, o, &err) == EP_OK, "%s", err.msg);
    pw_free(o);
    Tensor *back = inputs_load_array(bpt, &err);
    ck_assert_msg(back, "%s", err.msg);
    Value bv = value_tensor(back);
    assert_identical(&bv, bf, bpt);
    value_clear(&bv);
    tensor_unref(bf);
    tensor_unref(f);
    free(bpt);
    free(c1);
    free(c2);
    free(pt);
    free(np);
    free(dir);
}
END_TEST

Suite *suite_inputs(void)
{
    Suite *s = suite_create("inputs");
    TCase *tc = tcase_create("inputs");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_torchsave_forms_match_npy);
    tcase_add_test(tc, test_torchsave_wrong_contents);
    tcase_add_test(tc, test_torchsave_symint_number);
    tcase_add_test(tc, test_legacy_argument_names);
    tcase_add_test(tc, test_kwargs_argument_names);
    tcase_add_test(tc, test_argument_name_everywhere);
    tcase_add_test(tc, test_dump_pt_round_trip);
    suite_add_tcase(s, tc);
    return s;
}
