/*
** test_copy_fast.c -- shape_copy_dense (interp/ops/shape_copy.c), the rows
** and transposing-tile copies behind contiguous / clone / reshape of
** permuted tensors, against the reference path (ew_set_reference_path:
** tensor_copy_into's iterator), bit for bit, at 1, 2 and 3 threads: every
** element width, sizes around the tile (32) and the chunk grain (65536
** elements), 2 to 5 dims, slices with steps and offsets, broadcast
** (expanded) sources.
*/
#include <string.h>

#include "interp/ops.h"
#include "interp/ops/elementwise.h"
#include "interp/parallel.h"
#include "oprun.h"
#include "testutil.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t next_u64(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* A tensor of random bytes (any bit pattern: the copy moves bits). */
static Tensor *random_tensor(DType dt, int ndim, const int64_t *sizes)
{
    EpError err = {0};
    Tensor *t = tensor_empty(dt, ndim, sizes, &err);
    ck_assert(t != NULL);
    unsigned char *p = tensor_data(t);
    size_t nbytes = (size_t)tensor_numel(t) * (size_t)dtype_size(dt);
    for (size_t i = 0; i < nbytes; i++)
        p[i] = (unsigned char)next_u64();
    if (dt == DT_BOOL)
        for (size_t i = 0; i < nbytes; i++)
            p[i] &= 1;
    return t;
}

static void assert_same(const Tensor *a, const Tensor *b, const char *what)
{
    ck_assert_msg(a->dtype == b->dtype && shape_equal(a->ndim, a->sizes, b->ndim, b->sizes), "%s: geometry", what);
    ck_assert_msg(tensor_is_contiguous(a) && tensor_is_contiguous(b), "%s: not contiguous", what);
    size_t nbytes = (size_t)tensor_numel(a) * (size_t)dtype_size(a->dtype);
    ck_assert_msg(memcmp(tensor_data(a), tensor_data(b), nbytes) == 0, "%s: bytes differ", what);
}

/* contiguous(view) on the reference path, then on the fast one at 1, 2
** and 3 threads. */
static void check_view(Tensor *view, const char *what)
{
    Value v = value_tensor(tensor_ref(view));
    ew_set_reference_path(true);
    ep_set_threads(1);
    Tensor *ref = oprun("aten.contiguous.default", 1, &v, true, 0);
    ew_set_reference_path(false);
    static const int THREADS[3] = {1, 2, 3};
    for (int k = 0; k < 3; k++) {
        ep_set_threads(THREADS[k]);
        Tensor *r = oprun("aten.contiguous.default", 1, &v, true, 0);
        char w[300];
        snprintf(w, sizeof w, "%s, %d threads", what, THREADS[k]);
        assert_same(r, ref, w);
        tensor_unref(r);
    }
    ep_set_threads(0);
    tensor_unref(ref);
    value_clear(&v);
}

/* base of sizes permuted by perm (a view). */
static Tensor *permuted(Tensor *base, const int *perm)
{
    int64_t sizes[EP_MAX_DIMS], strides[EP_MAX_DIMS];
    for (int i = 0; i < base->ndim; i++) {
        sizes[i] = base->sizes[perm[i]];
        strides[i] = base->strides[perm[i]];
    }
    EpError err = {0};
    Tensor *v = tensor_as_strided(base, base->ndim, sizes, strides, base->offset, &err);
    ck_assert(v != NULL);
    return v;
}

typedef struct PermCase {
    int ndim;
    int64_t sizes[5];
    int perm[5];
} PermCase;

static const PermCase PERMS[] = {
    {2, {32, 32}, {1, 0}},
    {2, {31, 33}, {1, 0}},
    {2, {1, 77}, {1, 0}},
    {2, {300, 257}, {1, 0}},       /* > 65536 elements: several chunks */
    {3, {4, 64, 16}, {1, 0, 2}},   /* heads <-> tokens: rows of 16 */
    {3, {4, 64, 16}, {0, 2, 1}},   /* k^T: a tile transpose per batch */
    {3, {5, 7, 3}, {2, 1, 0}},     /* rows of 3 and 5: the iterator's loop */
    {4, {2, 4, 64, 16}, {0, 2, 1, 3}},
    {4, {3, 12, 65, 64}, {0, 2, 1, 3}},
    {4, {2, 3, 33, 40}, {0, 1, 3, 2}},
    {4, {2, 3, 33, 40}, {3, 2, 1, 0}},
    {4, {2, 8, 9, 10}, {0, 2, 3, 1}}, /* NCHW -> NHWC */
    {5, {2, 3, 4, 5, 6}, {4, 0, 3, 1, 2}},
    {4, {64, 4, 16, 70}, {0, 3, 1, 2}}, /* long, in parallel */
};

static const DType DTYPES[] = {DT_U8, DT_BOOL, DT_F16, DT_BF16, DT_F32, DT_I32, DT_F64, DT_I64};

START_TEST(test_permuted_copies)
{
    for (size_t p = 0; p < sizeof PERMS / sizeof PERMS[0]; p++)
        for (size_t d = 0; d < sizeof DTYPES / sizeof DTYPES[0]; d++) {
            const PermCase *pc = &PERMS[p];
            Tensor *base = random_tensor(DTYPES[d], pc->ndim, pc->sizes);
            Tensor *v = permuted(base, pc->perm);
            char what[128];
            snprintf(what, sizeof what, "case %zu %s", p, dtype_name(DTYPES[d]));
            check_view(v, what);
            tensor_unref(v);
            tensor_unref(base);
        }
}
END_TEST

/* Slices with steps and offsets, and an expanded (stride 0) dim, under a
** transpose. */
START_TEST(test_sliced_and_expanded_copies)
{
    EpError err = {0};
    int64_t bs[3] = {6, 70, 90};
    Tensor *base = random_tensor(DT_F32, 3, bs);
    /* [3, 40, 30] from offset (1, 5, 2), steps 2, 1, 3, then the last two
    ** dims swapped */
    int64_t sz[3] = {3, 30, 40}, st[3] = {2 * 70 * 90, 3, 90};
    Tensor *v = tensor_as_strided(base, 3, sz, st, 1 * 70 * 90 + 5 * 90 + 2, &err);
    check_view(v, "sliced transpose");
    tensor_unref(v);
    int64_t sz2[3] = {3, 70, 40}, st2[3] = {0, 1, 90}; /* expanded over dim 0 */
    v = tensor_as_strided(base, 3, sz2, st2, 7, &err);
    check_view(v, "expanded transpose");
    tensor_unref(v);
    int64_t sz3[3] = {5, 70, 64}, st3[3] = {0, 90, 1}; /* expanded rows */
    v = tensor_as_strided(base, 3, sz3, st3, 3, &err);
    check_view(v, "expanded rows");
    tensor_unref(v);
    tensor_unref(base);
}
END_TEST

/* reshape of the attention output ([B, H, S, D] -> [B, S, H, D] ->
** [B, S, H * D]) gives the reference bits through the fast path. */
START_TEST(test_reshape_of_transpose)
{
    int64_t bs[4] = {3, 4, 64, 16};
    Tensor *base = random_tensor(DT_F32, 4, bs);
    int perm[4] = {0, 2, 1, 3};
    Tensor *t = permuted(base, perm);
    Value args[2] = {value_tensor(tensor_ref(t)), value_int_list(3, (int64_t[]){3, 64, 64})};
    ew_set_reference_path(true);
    Tensor *ref = oprun("aten.reshape.default", 2, args, true, 0);
    ew_set_reference_path(false);
    Tensor *r = oprun("aten.reshape.default", 2, args, true, 0);
    assert_same(r, ref, "reshape");
    tensor_unref(r);
    tensor_unref(ref);
    value_clear(&args[0]);
    value_clear(&args[1]);
    tensor_unref(t);
    tensor_unref(base);
}
END_TEST

/* clone and _to_copy of a large contiguous tensor (shape_copy_flat: chunks
** over the pool) from random bytes: every pair of DTYPES, the reference
** path's bytes at 1, 2 and 3 threads.  NaN payloads and every integer
** pattern go through the conversions. */
START_TEST(test_flat_conversions)
{
    int64_t sz[2] = {3, 50001}; /* 150,003 elements: more than two chunks */
    static const int THREADS[3] = {1, 2, 3};
    for (size_t a = 0; a < sizeof DTYPES / sizeof DTYPES[0]; a++) {
        Tensor *x = random_tensor(DTYPES[a], 2, sz);
        for (size_t b = 0; b < sizeof DTYPES / sizeof DTYPES[0]; b++) {
            Value v[2] = {value_tensor(x), {.kind = V_DTYPE}};
            v[1].i = DTYPES[b];
            ew_set_reference_path(true);
            ep_set_threads(1);
            Tensor *ref = oprun("aten._to_copy.default", 2, v, true, 0);
            ew_set_reference_path(false);
            for (int k = 0; k < 3; k++) {
                ep_set_threads(THREADS[k]);
                Tensor *r = oprun("aten._to_copy.default", 2, v, true, 0);
                char w[128];
                snprintf(w, sizeof w, "%s -> %s, %d threads", dtype_name(DTYPES[a]), dtype_name(DTYPES[b]),
                         THREADS[k]);
                assert_same(r, ref, w);
                tensor_unref(r);
            }
            ep_set_threads(0);
            tensor_unref(ref);
        }
        tensor_unref(x);
    }
}
END_TEST

Suite *suite_copy_fast(void)
{
    Suite *s = suite_create("copy_fast");
    TCase *tc = tcase_create("copies");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_permuted_copies);
    tcase_add_test(tc, test_sliced_and_expanded_copies);
    tcase_add_test(tc, test_reshape_of_transpose);
    tcase_add_test(tc, test_flat_conversions);
    suite_add_tcase(s, tc);
    return s;
}
