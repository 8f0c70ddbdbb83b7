/*
** test_fastpaths.c -- the fast paths of issue 13 against the reference
** paths they stand beside, bit for bit:
**   - pointwise ops (elementwise.c's flat path: long direct runs, scalar
**     and bias operands, the worker pool) against ew_set_reference_path's
**     iterator with EW_BLOCK gathers, over dtypes, odd sizes around the
**     vector block (64) and the chunk grain (65536), strides, in place;
**   - the same calls at 1, 2 and 4 threads;
**   - cat, index_select and embedding's memcpy rows against the general
**     strided copies (non-contiguous inputs take them);
**   - the pool of large blocks: reuse, garbage rather than zeros in reused
**     blocks where no one counts on zeros, tensor_zeros still zero, the
**     memory limit still refusing with the tensor named, the bound on
**     what it keeps.
** The goldens of test_kernels.c check both paths against PyTorch.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "interp/ops.h"
#include "interp/ops/elementwise.h"
#include "interp/parallel.h"
#include "oprun.h"
#include "testutil.h"

/* ---- calling ops ------------------------------------------------------------ */

/* target on positional args on the fast paths (the default configuration):
** oprun_try's first output. */
static Tensor *run_op(const char *target, int n, const Value *vals, char *msg, size_t cap)
{
    return oprun_try(target, n, vals, true, 0, msg, cap);
}

/* ---- test data --------------------------------------------------------------- */

static uint64_t rng_state = 88172645463325252ull;

static uint64_t next_u64(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Values with the cases that tell paths apart: nan, infinities, -0.0,
** zeros (division), large and small magnitudes; integers over the whole
** range (wrapping) and small ones. */
static Tensor *make_tensor(DType dt, int ndim, const int64_t *sizes)
{
    EpError err = {0};
    Tensor *t = tensor_empty(dt, ndim, sizes, &err);
    ck_assert(t != NULL);
    int64_t n = tensor_numel(t);
    char *p = tensor_data(t);
    int es = dtype_size(dt);
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = next_u64();
        if (dtype_is_float(dt)) {
            static const double SPECIAL[] = {NAN, INFINITY, -INFINITY, -0.0, 0.0, 1e30, -1e-30, 65504.0};
            double v = (r % 16 == 0) ? SPECIAL[(r >> 8) % 8] : ((double)(int64_t)(r >> 11) / 4503599627370496.0 - 1) * 8;
            dtype_store_f64(dt, p + i * es, v);
        } else if (dt == DT_BOOL) {
            p[i] = (char)(r & 1);
        } else {
            int64_t v = (r % 4 == 0) ? (int64_t)r : (int64_t)(r % 21) - 10;
            dtype_store_i64(dt, p + i * es, v);
        }
    }
    return t;
}

/* t's values in a column-major layout (a non-contiguous view). */
static Tensor *transposed_copy(Tensor *t)
{
    EpError err = {0};
    int64_t rev[EP_MAX_DIMS], st[EP_MAX_DIMS];
    for (int i = 0; i < t->ndim; i++)
        rev[i] = t->sizes[t->ndim - 1 - i];
    Tensor *base = tensor_empty(t->dtype, t->ndim, rev, &err);
    for (int i = 0; i < t->ndim; i++)
        st[i] = base->strides[t->ndim - 1 - i];
    Tensor *v = tensor_as_strided(base, t->ndim, t->sizes, st, 0, &err);
    ck_assert(tensor_copy_into(v, t, &err) == EP_OK);
    tensor_unref(base);
    return v;
}

/* Same dtype, shape and bytes (nan payloads included). */
static void assert_same_bits(const Tensor *a, const Tensor *b, const char *what)
{
    ck_assert_msg(a && b, "%s: a result is missing", what);
    ck_assert_msg(a->dtype == b->dtype, "%s: dtypes differ", what);
    ck_assert_msg(shape_equal(a->ndim, a->sizes, b->ndim, b->sizes), "%s: shapes differ", what);
    EpError err = {0};
    Tensor *ca = tensor_contiguous((Tensor *)a, &err), *cb = tensor_contiguous((Tensor *)b, &err);
    size_t nbytes = (size_t)tensor_numel(ca) * (size_t)dtype_size(ca->dtype);
    const char *pa = tensor_data(ca), *pb = tensor_data(cb);
    if (memcmp(pa, pb, nbytes) != 0) {
        size_t k = 0;
        while (pa[k] == pb[k])
            k++;
        ck_abort_msg("%s: bytes differ from element %zu on", what, k / (size_t)dtype_size(ca->dtype));
    }
    tensor_unref(ca);
    tensor_unref(cb);
}

/* ---- pointwise: fast path against the reference path ---------------------- */

typedef struct PwCase {
    const char *target;
    int nin;          /* tensor operands first */
    double extra;     /* a trailing Scalar argument when has_extra */
    bool has_extra;
    bool ints, floats, reduced, bools; /* which dtypes the op takes */
} PwCase;

static const PwCase PW[] = {
    {"aten.add.Tensor", 2, 1, false, true, true, true, true},
    {"aten.add.Tensor", 2, 2.5, true, false, true, true, false},
    {"aten.sub.Tensor", 2, 1, false, true, true, true, false},
    {"aten.mul.Tensor", 2, 0, false, true, true, true, true},
    {"aten.div.Tensor", 2, 0, false, false, true, true, false},
    {"aten.maximum.default", 2, 0, false, true, true, true, true},
    {"aten.minimum.default", 2, 0, false, true, true, true, true},
    {"aten.eq.Tensor", 2, 0, false, true, true, true, true},
    {"aten.lt.Tensor", 2, 0, false, true, true, true, true},
    {"aten.ge.Tensor", 2, 0, false, true, true, true, true},
    {"aten.logical_and.default", 2, 0, false, true, true, false, true},
    {"aten.bitwise_xor.Tensor", 2, 0, false, true, false, false, true},
    {"aten.relu.default", 1, 0, false, true, true, true, false},
    {"aten.clamp_min.default", 1, -0.5, true, false, true, true, false},
    {"aten.copysign.Tensor", 2, 0, false, false, true, false, false},
    {"aten.addcmul.default", 3, 0, false, true, true, true, false},
    {"aten.sigmoid.default", 1, 0, false, false, true, true, false},
    {"aten.neg.default", 1, 0, false, true, true, true, false},
    {"aten.abs.default", 1, 0, false, true, true, true, false},
    {"aten.isnan.default", 1, 0, false, true, true, true, true},
    {"aten.sqrt.default", 1, 0, false, false, true, true, false},
    {"aten.rsqrt.default", 1, 0, false, false, true, true, false},
    {"aten.pow.Tensor_Scalar", 1, 3, true, true, true, true, false},
    {"aten.lerp.Tensor", 3, 0, false, false, true, false, false},
    {"aten.elu.default", 1, 1.5, true, false, true, true, false},
    {"aten.softplus.default", 1, 2, true, false, true, true, false},
    {"aten.mish.default", 1, 0, false, false, true, true, false},
    {"aten.sin.default", 1, 0, false, false, true, true, false},
    {"aten.cos.default", 1, 0, false, false, true, true, false},
    {"aten.expm1.default", 1, 0, false, false, true, true, false},
    {"aten.log1p.default", 1, 0, false, false, true, true, false},
};

static const DType PW_DTYPES[] = {DT_F32, DT_F64, DT_F16, DT_BF16, DT_I32, DT_I64, DT_I8, DT_U8, DT_BOOL};

static bool takes(const PwCase *pc, DType dt)
{
    if (dt == DT_BOOL)
        return pc->bools;
    if (dt == DT_F16 || dt == DT_BF16)
        return pc->reduced;
    return dtype_is_float(dt) ? pc->floats : pc->ints;
}

/* Operand shapes of one layout: out's shape and each operand's. */
typedef struct Layout {
    const char *name;
    int ndim;
    int64_t out[3];
    int in_ndim[3];
    int64_t in[3][3];
    bool transposed[3]; /* operand k as a column-major copy */
} Layout;

/* Run pc on layout over dtype dt: fast at threads 1, 2, 4 against the
** reference path, bit for bit (or the same failure). */
static void check_pointwise(const PwCase *pc, DType dt, const Layout *lay, bool inplace)
{
    Tensor *ts[3];
    Value vals[4];
    int n = 0;
    for (int k = 0; k < pc->nin; k++) {
        Tensor *t = make_tensor(dt, lay->in_ndim[k], lay->in[k]);
        if (lay->transposed[k]) {
            Tensor *v = transposed_copy(t);
            tensor_unref(t);
            t = v;
        }
        ts[k] = t;
        vals[n++] = value_tensor(t);
    }
    if (pc->has_extra)
        vals[n++] = dtype_is_float(dt) || pc->extra == floor(pc->extra) ? value_float(pc->extra)
                                                                        : value_int((int64_t)pc->extra);
    if (pc->has_extra && !dtype_is_float(dt))
        vals[n - 1] = value_int((int64_t)pc->extra);
    char what[256];
    snprintf(what, sizeof what, "%s %s on %s%s", pc->target, dtype_name(dt), lay->name, inplace ? " in place" : "");
    const char *target = pc->target;
    char inplace_target[128];
    if (inplace) { /* "aten.add.Tensor" -> "aten.add_.Tensor" */
        const char *dot = strchr(target + 5, '.');
        snprintf(inplace_target, sizeof inplace_target, "%.*s_%s", (int)(dot - target), target, dot);
        target = inplace_target;
    }
    Tensor *self_copy = NULL;
    if (inplace) { /* each run gets a fresh self */
        EpError err = {0};
        self_copy = tensor_to_dtype(ts[0], ts[0]->dtype, &err);
    }
    Tensor *results[4];
    char msgs[4][256] = {"", "", "", ""};
    static const int THREADS[4] = {0, 1, 2, 4}; /* 0: the reference path */
    for (int r = 0; r < 4; r++) {
        if (inplace) {
            EpError err = {0};
            Tensor *fresh = tensor_to_dtype(self_copy, self_copy->dtype, &err);
            value_clear(&vals[0]);
            vals[0] = value_tensor(fresh);
        }
        ew_set_reference_path(THREADS[r] == 0);
        ep_set_threads(THREADS[r] ? THREADS[r] : 1);
        results[r] = run_op(target, n, vals, msgs[r], sizeof msgs[r]);
        ew_set_reference_path(false);
    }
    ep_set_threads(0);
    for (int r = 1; r < 4; r++) {
        char w[300];
        snprintf(w, sizeof w, "%s, %d threads", what, THREADS[r]);
        if (!results[0]) {
            ck_assert_msg(!results[r], "%s: the reference path failed (%s), the fast one did not", w, msgs[0]);
            ck_assert_str_eq(msgs[r], msgs[0]);
        } else {
            ck_assert_msg(results[r] != NULL, "%s: failed: %s", w, msgs[r]);
            assert_same_bits(results[r], results[0], w);
        }
    }
    for (int r = 0; r < 4; r++)
        tensor_unref(results[r]);
    tensor_unref(self_copy);
    for (int k = 0; k < n; k++)
        value_clear(&vals[k]);
}

/* Layouts for op arity nin: flat sizes around the vector block and the
** chunk grain, a 0-d operand, a bias over the last dims (long and short),
** a leading broadcast, a transposed operand. */
static int make_layouts(int nin, Layout *out)
{
    static const int64_t SIZES[] = {1, 7, 63, 64, 65, 511, 513, 65535, 65536, 65537, 131072 + 77, 200003};
    int m = 0;
    for (size_t s = 0; s < sizeof SIZES / sizeof SIZES[0]; s++) {
        Layout l = {"flat", 1, {SIZES[s]}, {0}, {{0}}, {0}};
        for (int k = 0; k < nin; k++) {
            l.in_ndim[k] = 1;
            l.in[k][0] = SIZES[s];
        }
        out[m++] = l;
    }
    /* the last operand a 0-d tensor: a broadcast scalar (stride 0) */
    Layout sc = {"scalar operand", 1, {140001}, {0}, {{0}}, {0}};
    for (int k = 0; k < nin; k++) {
        sc.in_ndim[k] = k == nin - 1 && nin > 1 ? 0 : 1;
        sc.in[k][0] = 140001;
    }
    out[m++] = sc;
    /* a bias over the last dims: periodic runs of 700 and of 513, and a
    ** short one (3) the iterator takes */
    static const int64_t BIAS[][3] = {{197, 700, 0}, {29, 9, 513}, {4001, 3, 0}};
    for (int b = 0; b < 3; b++) {
        Layout l = {"bias", BIAS[b][2] ? 3 : 2, {BIAS[b][0], BIAS[b][1], BIAS[b][2]}, {0}, {{0}}, {0}};
        for (int k = 0; k < nin; k++) {
            l.in_ndim[k] = l.ndim;
            memcpy(l.in[k], l.out, sizeof l.out);
        }
        if (nin > 1) { /* the second operand is the bias */
            l.in_ndim[1] = l.ndim == 3 ? 2 : 1;
            if (l.ndim == 3) {
                l.in[1][0] = l.out[1];
                l.in[1][1] = l.out[2];
            } else {
                l.in[1][0] = l.out[1];
            }
        }
        out[m++] = l;
    }
    /* a leading broadcast ([R, 1] against [R, C]) and a transposed operand */
    Layout lead = {"column broadcast", 2, {300, 257}, {0}, {{0}}, {0}};
    Layout tr = {"transposed", 2, {600, 257}, {0}, {{0}}, {0}};
    for (int k = 0; k < nin; k++) {
        lead.in_ndim[k] = tr.in_ndim[k] = 2;
        lead.in[k][0] = 300;
        tr.in[k][0] = 600;
        lead.in[k][1] = tr.in[k][1] = 257;
    }
    if (nin > 1)
        lead.in[1][1] = 1;
    tr.transposed[0] = true;
    out[m++] = lead;
    out[m++] = tr;
    return m;
}

START_TEST(test_pointwise_fast_equals_reference)
{
    Layout lays[32];
    for (size_t p = 0; p < sizeof PW / sizeof PW[0]; p++) {
        const PwCase *pc = &PW[p];
        int nl = make_layouts(pc->nin, lays);
        for (size_t d = 0; d < sizeof PW_DTYPES / sizeof PW_DTYPES[0]; d++) {
            DType dt = PW_DTYPES[d];
            if (!takes(pc, dt))
                continue;
            for (int l = 0; l < nl; l++) {
                /* the big flat sizes once per op, in float32, int32 and the halves
                ** (bfloat16: its one-pass loops over the pool's chunks) */
                if (lays[l].out[0] > 60000 && lays[l].ndim == 1 && strcmp(lays[l].name, "flat") == 0 &&
                    dt != DT_F32 && dt != DT_I32 && dt != DT_F16 && dt != DT_BF16)
                    continue;
                check_pointwise(pc, dt, &lays[l], false);
            }
        }
    }
}
END_TEST

/* float32 rsqrt divides in float as PyTorch's kernel does (1 / sqrtf, two
** roundings): these inputs' results, from torch.rsqrt in PyTorch 1.13, are
** one ulp from the correctly rounded 1 / sqrt in double; their square
** roots are the correctly rounded ones.  Bits: input, rsqrt, sqrt. */
START_TEST(test_rsqrt_rounds_as_pytorch)
{
    static const uint32_t CASES[][3] = {
        {0x3edacde2, 0x3fc3cd4e, 0x3f275a4e}, {0x429a600b, 0x3de91b85, 0x410c9202},
        {0x426dc5c1, 0x3e04d0cc, 0x40f6b7cd}, {0x4237c41f, 0x3e17139e, 0x40d8e585},
        {0x4281aa01, 0x3dfe5a1c, 0x4100d450}, {0x41962e1d, 0x3e6c5740, 0x408aa5b1},
    };
    enum { N = sizeof CASES / sizeof CASES[0] };
    int64_t n = N;
    EpError err = {0};
    Tensor *x = tensor_empty(DT_F32, 1, &n, &err);
    ck_assert(x != NULL);
    for (int i = 0; i < N; i++)
        memcpy((char *)tensor_data(x) + 4 * i, &CASES[i][0], 4);
    for (int k = 1; k <= 2; k++) {
        Value v = value_tensor(x);
        char msg[256] = "";
        Tensor *y = run_op(k == 1 ? "aten.rsqrt.default" : "aten.sqrt.default", 1, &v, msg, sizeof msg);
        ck_assert_msg(y != NULL, "%s", msg);
        for (int i = 0; i < N; i++) {
            uint32_t got;
            memcpy(&got, (const char *)tensor_data(y) + 4 * i, 4);
            ck_assert_msg(got == CASES[i][k], "%s of 0x%08x: 0x%08x, want 0x%08x", k == 1 ? "rsqrt" : "sqrt",
                          CASES[i][0], got, CASES[i][k]);
        }
        tensor_unref(y);
    }
    tensor_unref(x);
}
END_TEST

START_TEST(test_pointwise_in_place)
{
    Layout lays[32];
    static const char *const INPLACE[] = {"aten.add.Tensor", "aten.mul.Tensor", "aten.relu.default"};
    for (size_t p = 0; p < sizeof PW / sizeof PW[0]; p++) {
        bool want = false;
        for (size_t q = 0; q < 3; q++)
            want |= strcmp(PW[p].target, INPLACE[q]) == 0 && !PW[p].has_extra;
        if (!want)
            continue;
        int nl = make_layouts(PW[p].nin, lays);
        for (int l = 0; l < nl; l++)
            if (!lays[l].transposed[0]) {
                check_pointwise(&PW[p], DT_F32, &lays[l], true);
                check_pointwise(&PW[p], DT_I64, &lays[l], true);
            }
    }
}
END_TEST

/* Integer division by zero still fails from inside a parallel chunk. */
START_TEST(test_zero_division_in_chunks)
{
    int64_t n = 200000;
    Tensor *a = make_tensor(DT_I32, 1, &n), *b = make_tensor(DT_I32, 1, &n);
    ((int32_t *)tensor_data(b))[n - 5] = 0; /* in the last chunk */
    Value v[2] = {value_tensor(a), value_tensor(b)};
    for (int threads = 1; threads <= 4; threads *= 2) {
        ep_set_threads(threads);
        char msg[256] = "";
        Tensor *r = run_op("aten.fmod.Tensor", 2, v, msg, sizeof msg);
        ck_assert_msg(r == NULL, "fmod by zero gave a result at %d threads", threads);
        ck_assert_msg(strstr(msg, "ZeroDivisionError") != NULL, "%s", msg);
    }
    ep_set_threads(0);
    value_clear(&v[0]);
    value_clear(&v[1]);
}
END_TEST

/* ---- copies: cat, index_select, embedding -------------------------------------- */

START_TEST(test_cat_rows_equal_general_copy)
{
    static const int64_t SH[][3] = {{1024, 512, 3}, {7, 33, 65}, {2, 1, 100000}};
    for (int s = 0; s < 3; s++)
        for (int dim = 0; dim < 3; dim++) {
            int64_t sa[3] = {SH[s][0], SH[s][1], SH[s][2]}, sb[3] = {SH[s][0], SH[s][1], SH[s][2]};
            sb[dim] = sb[dim] > 2 ? sb[dim] / 2 : 1;
            Tensor *a = make_tensor(DT_F32, 3, sa), *b = make_tensor(DT_F32, 3, sb);
            Tensor *ta = transposed_copy(a), *tb = transposed_copy(b);
            ValueList *fast = value_list_new(2), *slow = value_list_new(2);
            fast->items[0] = value_tensor(tensor_ref(a));
            fast->items[1] = value_tensor(tensor_ref(b));
            slow->items[0] = value_tensor(tensor_ref(ta));
            slow->items[1] = value_tensor(tensor_ref(tb));
            Value vf[2] = {{.kind = V_LIST, .list = fast}, value_int(dim)};
            Value vs[2] = {{.kind = V_LIST, .list = slow}, value_int(dim)};
            Tensor *r1 = NULL;
            for (int threads = 1; threads <= 2; threads++) {
                ep_set_threads(threads);
                Tensor *rf = run_op("aten.cat.default", 2, vf, NULL, 0);
                if (!r1)
                    r1 = tensor_ref(rf);
                assert_same_bits(rf, r1, "cat at 1 and 2 threads");
                tensor_unref(rf);
            }
            ep_set_threads(0);
            Tensor *rs = run_op("aten.cat.default", 2, vs, NULL, 0);
            assert_same_bits(r1, rs, "cat: rows against the general copy");
            tensor_unref(r1);
            tensor_unref(rs);
            value_clear(&vf[0]);
            value_clear(&vs[0]);
            tensor_unref(a);
            tensor_unref(b);
            tensor_unref(ta);
            tensor_unref(tb);
        }
}
END_TEST

START_TEST(test_index_select_rows_equal_general_copy)
{
    static const int64_t SH[][3] = {{1024, 64, 1}, {3, 50, 17}, {9, 4, 40}};
    for (int s = 0; s < 3; s++)
        for (int dim = 0; dim < 3; dim++) {
            Tensor *x = make_tensor(DT_F64, 3, SH[s]);
            Tensor *tx = transposed_copy(x);
            int64_t ni = 300;
            EpError err = {0};
            Tensor *idx = tensor_empty(DT_I64, 1, &ni, &err);
            for (int64_t i = 0; i < ni; i++)
                ((int64_t *)tensor_data(idx))[i] = (int64_t)(next_u64() % (uint64_t)SH[s][dim]);
            Value vf[3] = {value_tensor(x), value_int(dim), value_tensor(idx)};
            Value vs[3] = {value_tensor(tx), value_int(dim), value_tensor(idx)};
            ep_set_threads(2);
            Tensor *rf = run_op("aten.index_select.default", 3, vf, NULL, 0);
            ep_set_threads(1);
            Tensor *r1 = run_op("aten.index_select.default", 3, vf, NULL, 0);
            ep_set_threads(0);
            Tensor *rs = run_op("aten.index_select.default", 3, vs, NULL, 0);
            assert_same_bits(rf, rs, "index_select: rows against the general copy");
            assert_same_bits(r1, rs, "index_select at 1 thread");
            /* an index out of range fails the same way on both paths */
            ((int64_t *)tensor_data(idx))[ni - 1] = SH[s][dim];
            char m1[256] = "", m2[256] = "";
            ck_assert(run_op("aten.index_select.default", 3, vf, m1, sizeof m1) == NULL);
            ck_assert(run_op("aten.index_select.default", 3, vs, m2, sizeof m2) == NULL);
            ck_assert_str_eq(m1, m2);
            ((int64_t *)tensor_data(idx))[ni - 1] = -1;
            ck_assert(run_op("aten.index_select.default", 3, vf, m1, sizeof m1) == NULL);
            ck_assert(run_op("aten.index_select.default", 3, vs, m2, sizeof m2) == NULL);
            ck_assert_str_eq(m1, m2);
            tensor_unref(rf);
            tensor_unref(r1);
            tensor_unref(rs);
            tensor_unref(x);
            tensor_unref(tx);
            tensor_unref(idx);
        }
}
END_TEST

START_TEST(test_embedding_rows)
{
    int64_t ws[2] = {1000, 96}, is[2] = {8, 129};
    Tensor *w = make_tensor(DT_F32, 2, ws);
    EpError err = {0};
    Tensor *ind = tensor_empty(DT_I64, 2, is, &err);
    int64_t *ix = tensor_data(ind);
    for (int64_t i = 0; i < 8 * 129; i++)
        ix[i] = (int64_t)(next_u64() % 1000);
    Value v[2] = {value_tensor(w), value_tensor(ind)};
    for (int threads = 1; threads <= 4; threads *= 2) {
        ep_set_threads(threads);
        Tensor *r = run_op("aten.embedding.default", 2, v, NULL, 0);
        ck_assert(r && r->ndim == 3 && r->sizes[2] == 96);
        const float *out = tensor_data(r), *wd = tensor_data(w);
        for (int64_t i = 0; i < 8 * 129; i++)
            ck_assert(memcmp(out + i * 96, wd + ix[i] * 96, 96 * sizeof(float)) == 0);
        tensor_unref(r);
    }
    ep_set_threads(0);
    tensor_unref(w);
    tensor_unref(ind);
}
END_TEST

/* ---- gather, scatter_add, index_add: the typed runs of index_util.c --------------- */

/* An int64 tensor of shape (ndim, sizes) with values in [0, bound). */
static Tensor *make_index(int ndim, const int64_t *sizes, int64_t bound)
{
    EpError err = {0};
    Tensor *t = tensor_empty(DT_I64, ndim, sizes, &err);
    ck_assert(t != NULL);
    for (int64_t i = 0; i < tensor_numel(t); i++)
        ((int64_t *)tensor_data(t))[i] = (int64_t)(next_u64() % (uint64_t)bound);
    return t;
}

/* gather along dim 1 for each element size (1, 2, 4, 8 bytes): out[i][j] is
** self[i][index[i][j]], byte for byte; an index past the end fails with
** PyTorch's message. */
START_TEST(test_gather_typed_runs)
{
    static const DType DTS[] = {DT_U8, DT_F16, DT_F32, DT_I64, DT_F64};
    for (size_t d = 0; d < sizeof DTS / sizeof DTS[0]; d++) {
        int64_t ss[2] = {20, 33}, is[2] = {20, 50};
        Tensor *self = make_tensor(DTS[d], 2, ss), *idx = make_index(2, is, 33);
        Value v[3] = {value_tensor(self), value_int(1), value_tensor(idx)};
        Tensor *r = run_op("aten.gather.default", 3, v, NULL, 0);
        ck_assert(r && r->dtype == DTS[d] && r->sizes[0] == 20 && r->sizes[1] == 50);
        int es = dtype_size(DTS[d]);
        const char *out = tensor_data(r), *in = tensor_data(self);
        const int64_t *ix = tensor_data(idx);
        for (int64_t i = 0; i < 20; i++)
            for (int64_t j = 0; j < 50; j++)
                ck_assert_msg(memcmp(out + (i * 50 + j) * es, in + (i * 33 + ix[i * 50 + j]) * es, (size_t)es) == 0,
                              "gather %s at [%lld, %lld]", dtype_name(DTS[d]), (long long)i, (long long)j);
        tensor_unref(r);
        ((int64_t *)tensor_data(idx))[7 * 50 + 31] = 33;
        char msg[256] = "";
        ck_assert(run_op("aten.gather.default", 3, v, msg, sizeof msg) == NULL);
        ck_assert_msg(strstr(msg, "index 33 is out of bounds for dimension 1 with size 33") != NULL, "%s", msg);
        tensor_unref(self);
        tensor_unref(idx);
    }
}
END_TEST

static const int INDEX_THREADS[] = {1, 2, 3};

/* scatter_add of float32 along each dim of 2-d and 3-d tensors, small and
** large enough to run in chunks over the pool: the float sums of each
** slot's sources in the order of the index, nan and infinities included,
** the same bits at 1, 2 and 3 threads. */
START_TEST(test_scatter_add_float_run)
{
    static const struct {
        int ndim, dim;
        int64_t self[3], index[3];
    } CASES[] = {
        {2, 1, {30, 64}, {30, 100}},      {2, 1, {600, 500}, {600, 700}},     {2, 0, {300, 700}, {600, 700}},
        {3, 1, {40, 50, 60}, {40, 70, 60}}, {3, 2, {40, 50, 60}, {40, 50, 90}}, {3, 0, {20, 50, 60}, {30, 50, 60}},
    };
    for (size_t k = 0; k < sizeof CASES / sizeof CASES[0]; k++) {
        const int nd = CASES[k].ndim, dim = CASES[k].dim;
        const int64_t *ss = CASES[k].self, *is = CASES[k].index;
        Tensor *self = make_tensor(DT_F32, nd, ss), *idx = make_index(nd, is, ss[dim]);
        Tensor *src = make_tensor(DT_F32, nd, is);
        Value v[4] = {value_tensor(self), value_int(dim), value_tensor(idx), value_tensor(src)};
        char what[64];
        snprintf(what, sizeof what, "scatter_add case %zu", k);
        Tensor *r = oprun_threads(what, "aten.scatter_add.default", 4, v, 0, INDEX_THREADS, 3);
        size_t nself = (size_t)tensor_numel(self);
        float *want = malloc(nself * sizeof *want);
        ck_assert(want != NULL);
        memcpy(want, tensor_data(self), nself * sizeof *want);
        const int64_t *ix = tensor_data(idx);
        const float *sv = tensor_data(src);
        for (int64_t e = 0; e < tensor_numel(idx); e++) { /* in the index's order */
            int64_t rest = e, off = 0, step = 1;
            for (int d = nd - 1; d >= 0; d--) {
                int64_t at = rest % is[d];
                rest /= is[d];
                off += (d == dim ? ix[e] : at) * step;
                step *= ss[d];
            }
            want[off] += sv[e];
        }
        /* the bits, but any nan for a nan: which of two nans a sum keeps
        ** depends on the operand order the compiler picks for want's sum */
        const float *got = tensor_data(r);
        for (size_t e = 0; e < nself; e++)
            ck_assert_msg(memcmp(&got[e], &want[e], 4) == 0 || (isnan(got[e]) && isnan(want[e])),
                          "%s at %zu: %a, want %a", what, e, (double)got[e], (double)want[e]);
        free(want);
        tensor_unref(r);
        tensor_unref(self);
        tensor_unref(idx);
        tensor_unref(src);
    }
}
END_TEST

/* gather and scatter_add large enough to run in chunks, with two indices
** out of range in different chunks: at every thread count the message
** names the first in the index's order, as the serial loop stops there. */
START_TEST(test_index_chunks_report_the_first_bad_index)
{
    int64_t ss[2] = {700, 300}, is[2] = {700, 400};
    Tensor *self = make_tensor(DT_F32, 2, ss), *idx = make_index(2, is, 300), *src = make_tensor(DT_F32, 2, is);
    Value v[4] = {value_tensor(self), value_int(1), value_tensor(idx), value_tensor(src)};
    Tensor *g = oprun_threads("gather", "aten.gather.default", 3, v, 0, INDEX_THREADS, 3);
    const float *gd = tensor_data(g), *sd = tensor_data(self);
    const int64_t *ix = tensor_data(idx);
    for (int64_t e = 0; e < 700 * 400; e++)
        ck_assert(memcmp(&gd[e], &sd[e / 400 * 300 + ix[e]], 4) == 0);
    tensor_unref(g);
    ((int64_t *)tensor_data(idx))[650 * 400 + 5] = 307;
    ((int64_t *)tensor_data(idx))[90 * 400 + 3] = -1000;
    static const char *const OPS[] = {"aten.gather.default", "aten.scatter_add.default"};
    for (int o = 0; o < 2; o++)
        for (int t = 0; t < 3; t++) {
            ep_set_threads(INDEX_THREADS[t]);
            char msg[256] = "";
            ck_assert(run_op(OPS[o], o == 0 ? 3 : 4, v, msg, sizeof msg) == NULL);
            ck_assert_msg(strstr(msg, "index -1000 is out of bounds for dimension 1 with size 300") != NULL,
                          "%s at %d threads: %s", OPS[o], INDEX_THREADS[t], msg);
        }
    ep_set_threads(0);
    tensor_unref(self);
    tensor_unref(idx);
    tensor_unref(src);
}
END_TEST

/* index_add of float32 along dim 0 (whole rows at once, contiguous or a
** transposed source) and dim 1 (element by element), alpha 1 (the float
** sum) and 2.5: d + alpha s in double, rounded once, in index order. */
START_TEST(test_index_add_float_runs)
{
    static const double ALPHAS[] = {1, 2.5};
    for (int dim = 0; dim < 2; dim++)
        for (int a = 0; a < 2; a++)
            for (int tr = 0; tr < 2; tr++) {
                int64_t ss[2] = {40, 37}, ns[2] = {40, 37};
                ns[dim] = 50;
                Tensor *self = make_tensor(DT_F32, 2, ss), *src = make_tensor(DT_F32, 2, ns);
                if (tr) {
                    Tensor *t = transposed_copy(src);
                    tensor_unref(src);
                    src = t;
                }
                int64_t ni = 50;
                Tensor *idx = make_index(1, &ni, ss[dim]);
                Value v[5] = {value_tensor(self), value_int(dim), value_tensor(idx), value_tensor(src),
                              value_float(ALPHAS[a])};
                Tensor *r = run_op("aten.index_add.default", 5, v, NULL, 0);
                ck_assert(r != NULL);
                float want[40 * 37];
                memcpy(want, tensor_data(self), sizeof want);
                const int64_t *ix = tensor_data(idx);
                const float *sd = tensor_data(src);
                for (int64_t k = 0; k < 50; k++)
                    for (int64_t m = 0; m < (dim == 0 ? 37 : 40); m++) {
                        int64_t si = dim == 0 ? k * src->strides[0] + m * src->strides[1]
                                              : m * src->strides[0] + k * src->strides[1];
                        float *d = dim == 0 ? &want[ix[k] * 37 + m] : &want[m * 37 + ix[k]];
                        *d = (float)((double)*d + (double)sd[si] * ALPHAS[a]);
                    }
                char what[64];
                snprintf(what, sizeof what, "index_add dim %d alpha %g%s", dim, ALPHAS[a], tr ? " transposed" : "");
                ck_assert_msg(memcmp(tensor_data(r), want, sizeof want) == 0, "%s", what);
                tensor_unref(r);
                tensor_unref(self);
                tensor_unref(src);
                tensor_unref(idx);
            }
}
END_TEST

/* ---- arange's typed fills ------------------------------------------------------------ */

/* arange as PyTorch's kernel computes it over n elements, at 1 and 2
** threads: float32 vectors of 8 (float64 of 4) over the longest prefix of
** an even number of vectors, lane k of the vector at i (float)base + k step
** in double with base = start + step i, the tail start + step i; integers
** start + step i in int64, wrapping, then narrowed. */
START_TEST(test_arange_typed_fills)
{
    static const struct {
        double start, step;
        int64_t n;
        int dtype_code; /* torch's ScalarType: 3 int32, 4 int64, 6 float32, 7 float64 */
    } CASES[] = {
        {0.1, 0.3, 200003, 6}, {-5, 1.0 / 3, 131089, 7}, {-7, 3, 200003, 4}, {2147483600, 1, 150001, 3},
    };
    for (size_t k = 0; k < sizeof CASES / sizeof CASES[0]; k++) {
        bool is_int = CASES[k].dtype_code <= 4;
        double end = CASES[k].start + CASES[k].step * ((double)CASES[k].n - 0.5);
        Value v[4] = {is_int ? value_int((int64_t)CASES[k].start) : value_float(CASES[k].start),
                      is_int ? value_int((int64_t)CASES[k].start + (int64_t)CASES[k].step * CASES[k].n)
                             : value_float(end),
                      is_int ? value_int((int64_t)CASES[k].step) : value_float(CASES[k].step),
                      {.kind = V_DTYPE}};
        static const DType CODES[8] = {[3] = DT_I32, [4] = DT_I64, [6] = DT_F32, [7] = DT_F64};
        v[3].i = CODES[CASES[k].dtype_code];
        for (int threads = 1; threads <= 2; threads++) {
            ep_set_threads(threads);
            char msg[256] = "";
            Tensor *r = run_op("aten.arange.start_step", 4, v, msg, sizeof msg);
            ck_assert_msg(r != NULL, "%s", msg);
            int64_t n = CASES[k].n;
            ck_assert_int_eq(r->sizes[0], n);
            double start = CASES[k].start, step = CASES[k].step;
            for (int64_t i = 0; i < n; i++) {
                bool ok;
                switch (CASES[k].dtype_code) {
                case 6: {
                    int64_t vec_end = n - n % 16, b = i - i % 8;
                    float want = i < vec_end ? (float)((double)(float)(start + step * (double)b) + (double)(i - b) * step)
                                             : (float)(start + step * (double)i);
                    ok = ((const float *)tensor_data(r))[i] == want;
                    break;
                }
                case 7: {
                    int64_t vec_end = n - n % 8, b = i - i % 4;
                    double want = i < vec_end ? (start + step * (double)b) + (double)(i - b) * step
                                              : start + step * (double)i;
                    ok = ((const double *)tensor_data(r))[i] == want;
                    break;
                }
                case 4: ok = ((const int64_t *)tensor_data(r))[i] == (int64_t)start + (int64_t)step * i; break;
                default: {
                    uint64_t w = (uint64_t)(int64_t)start + (uint64_t)(int64_t)step * (uint64_t)i;
                    ok = ((const int32_t *)tensor_data(r))[i] == (int32_t)(uint32_t)w;
                    break;
                }
                }
                ck_assert_msg(ok, "arange case %zu at %lld, %d threads", k, (long long)i, threads);
            }
            tensor_unref(r);
        }
    }
    ep_set_threads(0);
}
END_TEST

/* ---- bilinear upsampling ---------------------------------------------------------------- */

/* add and sub with alpha, addcmul and lerp round a product added to a
** value once, as PyTorch's FMA builds compute them (checked against 1.13):
** a + alpha b is fma(alpha, b, a), addcmul fma(value b, c, a), lerp
** fma(w, end - self, self) below a weight of 0.5 in size and fma(-(end -
** self), 1 - w, end) from there; the inputs tell fused from plain. */
START_TEST(test_fused_arith_as_pytorch)
{
    enum { N = 1000 };
    int64_t n = N;
    EpError err = {0};
    Tensor *t[3];
    for (int k = 0; k < 3; k++) {
        t[k] = tensor_empty(DT_F32, 1, &n, &err);
        for (int i = 0; i < N; i++)
            ((float *)tensor_data(t[k]))[i] = (float)(next_u64() % 60000) / 10000.0f - 3.0f;
    }
    const float *x = tensor_data(t[0]), *y = tensor_data(t[1]), *z = tensor_data(t[2]);
    int fused_differs = 0;
    for (int op = 0; op < 5; op++) {
        Value v[4] = {value_tensor(t[0]), value_tensor(t[1]), value_float(0.7), value_none()};
        const char *target = "aten.add.Tensor";
        int nv = 3;
        if (op == 1)
            target = "aten.sub.Tensor";
        if (op == 2) /* addcmul(self, tensor1, tensor2, value) */
            target = "aten.addcmul.default", v[2] = value_tensor(t[2]), v[3] = value_float(0.7), nv = 4;
        if (op >= 3) /* lerp.Scalar(self, end, weight) */
            target = "aten.lerp.Scalar", v[2] = value_float(op == 3 ? 0.3 : 0.7);
        Tensor *r = run_op(target, nv, v, NULL, 0);
        ck_assert(r != NULL);
        for (int i = 0; i < N; i++) {
            float want, plain;
            if (op <= 1) {
                float alpha = op == 0 ? 0.7f : -0.7f;
                want = fmaf(alpha, y[i], x[i]), plain = x[i] + alpha * y[i];
            } else if (op == 2) {
                want = fmaf(0.7f * y[i], z[i], x[i]), plain = x[i] + 0.7f * y[i] * z[i];
            } else if (op == 3) {
                want = fmaf(0.3f, y[i] - x[i], x[i]), plain = x[i] + 0.3f * (y[i] - x[i]);
            } else {
                want = fmaf(-(y[i] - x[i]), 1 - 0.7f, y[i]), plain = y[i] - (y[i] - x[i]) * (1 - 0.7f);
            }
            float got = ((const float *)tensor_data(r))[i];
            fused_differs += want != plain;
            ck_assert_msg(memcmp(&got, &want, 4) == 0, "%s case %d at %d: %a, PyTorch's %a", target, op, i,
                          (double)got, (double)want);
        }
        tensor_unref(r);
    }
    ck_assert(fused_differs > 0);
    for (int k = 0; k < 3; k++)
        tensor_unref(t[k]);
}
END_TEST

/* Bicubic weights as PyTorch 1.13 gives them (read off its outputs on
** one-hot inputs): resizing 15 columns to 7, output 3's source index is
** 7 - 2.4e-7 in double; PyTorch floors it in float (to 7) and keeps the
** negative fraction, so columns 6 to 9 weigh 2^-22, 1, -2^-23, -2^-21. */
START_TEST(test_bicubic_weights_as_pytorch)
{
    static const float WANT[4] = {0x1p-22f, 1.0f, -0x1p-23f, -0x1p-21f};
    int64_t sz[4] = {1, 1, 1, 15}, out[2] = {1, 7};
    EpError err = {0};
    Tensor *x = tensor_empty(DT_F32, 4, sz, &err);
    for (int k = 0; k < 4; k++) {
        for (int i = 0; i < 15; i++)
            ((float *)tensor_data(x))[i] = i == 6 + k;
        Value v[4] = {value_tensor(x), value_int_list(2, out), value_bool(false), value_none()};
        Tensor *r = run_op("aten.upsample_bicubic2d.vec", 4, v, NULL, 0);
        ck_assert(r != NULL);
        float got = ((const float *)tensor_data(r))[3];
        ck_assert_msg(memcmp(&got, &WANT[k], 4) == 0, "column %d: weight %a, PyTorch's %a", 6 + k, (double)got,
                      (double)WANT[k]);
        tensor_unref(r);
        value_clear(&v[1]);
    }
    tensor_unref(x);
}
END_TEST

/* Evaluation-mode batch norm of float32 as PyTorch computes it (checked
** against 1.13): per channel invstd = 1 / sqrt(var + eps), alpha = invstd w,
** beta = fma(-mean, alpha, b), each rounded to float; y = fma(x, alpha,
** beta). */
START_TEST(test_batch_norm_eval_as_pytorch)
{
    enum { N = 2, C = 3, L = 70 };
    int64_t xs[3] = {N, C, L}, cs[1] = {C};
    EpError err = {0};
    Tensor *x = tensor_empty(DT_F32, 3, xs, &err), *p[4];
    for (int i = 0; i < N * C * L; i++)
        ((float *)tensor_data(x))[i] = (float)(next_u64() % 60000) / 10000.0f - 3.0f;
    for (int k = 0; k < 4; k++) { /* weight, bias, running mean, running variance (positive) */
        p[k] = tensor_empty(DT_F32, 1, cs, &err);
        for (int ch = 0; ch < C; ch++)
            ((float *)tensor_data(p[k]))[ch] = (float)(next_u64() % 20000) / 10000.0f - (k == 3 ? -0.1f : 1.0f);
    }
    Value v[9] = {value_tensor(x),     value_tensor(p[0]), value_tensor(p[1]), value_tensor(p[2]),
                  value_tensor(p[3]),  value_bool(false),  value_float(0.1),   value_float(1e-5),
                  value_bool(false)};
    Tensor *r = run_op("aten.batch_norm.default", 9, v, NULL, 0);
    ck_assert(r != NULL);
    const float *w = tensor_data(p[0]), *b = tensor_data(p[1]), *m = tensor_data(p[2]), *var = tensor_data(p[3]);
    for (int i = 0; i < N * C * L; i++) {
        int ch = i / L % C;
        float alpha = 1.0f / sqrtf(var[ch] + (float)1e-5) * w[ch], beta = fmaf(-m[ch], alpha, b[ch]);
        float want = fmaf(((const float *)tensor_data(x))[i], alpha, beta), got = ((const float *)tensor_data(r))[i];
        ck_assert_msg(memcmp(&got, &want, 4) == 0, "element %d: %a, PyTorch's %a", i, (double)got, (double)want);
    }
    tensor_unref(r);
    tensor_unref(x);
    for (int k = 0; k < 4; k++)
        tensor_unref(p[k]);
}
END_TEST

/* Linear interpolation with PyTorch's weights and arithmetic, as PyTorch
** 1.13 gives them (read off its outputs on one-hot inputs): upsampling 15
** values to 30 with align_corners, output 29 sits at 14/29 * 29 computed
** in double, 13 + (1 - 2^-22), not at 14 (the float product rounds up), so
** it takes 2^-22 of input 13 and 1 - 2^-22 of input 14; output 1 takes
** 0x1.08d3dcp-1 of input 0 and 0x1.ee5846p-2 of input 1, combined as
** fma(x0, w0, x1 * w1) (random inputs, where the fused and the plain sum
** differ for some). */
START_TEST(test_linear_weights_as_pytorch)
{
    static const struct {
        int at, i0;
        float w0, w1;
    } POS[] = {{29, 13, 0x1p-22f, 1 - 0x1p-22f}, {1, 0, 0x1.08d3dcp-1f, 0x1.ee5846p-2f}};
    int64_t sz[3] = {1, 1, 15}, out[1] = {30};
    EpError err = {0};
    Tensor *x = tensor_empty(DT_F32, 3, sz, &err);
    float *xp = tensor_data(x);
    int fused_differs = 0;
    for (int p = 0; p < 2; p++)
        for (int k = 0; k < 40; k++) {
            for (int i = 0; i < 15; i++) /* one-hot at i0, at i0 + 1, then random */
                xp[i] = k == 0 ? (i == POS[p].i0) : k == 1 ? (i == POS[p].i0 + 1)
                                                          : (float)(next_u64() % 20000) / 1250.0f - 7.99f;
            Value v[4] = {value_tensor(x), value_int_list(1, out), value_bool(true), value_none()};
            Tensor *r = run_op("aten.upsample_linear1d.vec", 4, v, NULL, 0);
            ck_assert(r != NULL);
            const float a = xp[POS[p].i0], b = xp[POS[p].i0 + 1];
            float got = ((const float *)tensor_data(r))[POS[p].at], want = fmaf(a, POS[p].w0, b * POS[p].w1);
            fused_differs += want != a * POS[p].w0 + b * POS[p].w1;
            ck_assert_msg(memcmp(&got, &want, 4) == 0, "output %d, input %d: %a, PyTorch's %a", POS[p].at, k,
                          (double)got, (double)want);
            tensor_unref(r);
            value_clear(&v[1]);
        }
    ck_assert(fused_differs > 0); /* the inputs tell the two sums apart */
    tensor_unref(x);
}
END_TEST

/* upsample_bilinear2d's float path against upsample_trilinear3d's general
** loop on the same data with a depth of 1, which lerps in the same order
** and then multiplies by 1 and adds 0 * the same value: equal bits for
** finite data.  float32 and float16, both align_corners, up and down, at
** 1 and 2 threads. */
START_TEST(test_bilinear_equals_general_lerp)
{
    static const DType DTS[] = {DT_F32, DT_F16};
    static const int64_t OUT[][2] = {{29, 40}, {6, 9}, {13, 17}};
    for (size_t d = 0; d < 2; d++)
        for (int o = 0; o < 3; o++)
            for (int align = 0; align < 2; align++)
                for (int threads = 1; threads <= 2; threads++) {
                    int64_t sz[4] = {2, 3, 13, 17};
                    EpError err = {0};
                    Tensor *x = tensor_empty(DTS[d], 4, sz, &err);
                    for (int64_t i = 0; i < tensor_numel(x); i++)
                        dtype_store_f64(DTS[d], (char *)tensor_data(x) + i * dtype_size(DTS[d]),
                                        (double)(next_u64() % 2000) / 125.0 - 7.99);
                    int64_t sz5[5] = {2, 3, 1, 13, 17}, st5[5] = {3 * 221, 221, 221, 17, 1};
                    Tensor *x5 = tensor_as_strided(x, 5, sz5, st5, 0, &err);
                    int64_t o3[3] = {1, OUT[o][0], OUT[o][1]};
                    Value v2[4] = {value_tensor(tensor_ref(x)), value_int_list(2, OUT[o]), value_bool(align),
                                   value_none()};
                    Value v3[4] = {value_tensor(x5), value_int_list(3, o3), value_bool(align), value_none()};
                    ep_set_threads(threads);
                    Tensor *r2 = run_op("aten.upsample_bilinear2d.vec", 4, v2, NULL, 0);
                    Tensor *r3 = run_op("aten.upsample_trilinear3d.vec", 4, v3, NULL, 0);
                    ck_assert(r2 && r3);
                    Tensor *r3v = tensor_as_strided(r3, 4, r2->sizes, r2->strides, 0, &err);
                    char what[96];
                    snprintf(what, sizeof what, "bilinear %s to %lldx%lld align %d, %d threads", dtype_name(DTS[d]),
                             (long long)OUT[o][0], (long long)OUT[o][1], align, threads);
                    assert_same_bits(r2, r3v, what);
                    tensor_unref(r3v);
                    tensor_unref(r2);
                    tensor_unref(r3);
                    for (int k = 0; k < 4; k++) {
                        value_clear(&v2[k]);
                        value_clear(&v3[k]);
                    }
                    tensor_unref(x);
                }
    ep_set_threads(0);
}
END_TEST

/* ---- the pool of large blocks ------------------------------------------------------ */

START_TEST(test_pool_reuses_large_blocks)
{
    EpError err = {0};
    int64_t n = (3 << 20) / 4; /* 3 MiB of float32 */
    TensorPoolStats before, after;
    Tensor *a = tensor_empty(DT_F32, 1, &n, &err);
    ck_assert(a != NULL);
    void *block = a->storage;
    memset(tensor_data(a), 0x7f, (size_t)n * 4);
    tensor_unref(a);
    tensor_pool_stats(&before);
    ck_assert_uint_ge(before.cached_bytes, (size_t)n * 4);
    /* the same size again: the same block, no new mapping */
    Tensor *b = tensor_empty(DT_F32, 1, &n, &err);
    tensor_pool_stats(&after);
    ck_assert_ptr_eq(b->storage, block);
    ck_assert_uint_eq(after.hits, before.hits + 1);
    ck_assert_uint_eq(after.misses, before.misses);
    tensor_unref(b);
    /* a slightly smaller one (within 1/8) also fits; zeros are still zeros */
    int64_t m = n - n / 16;
    Tensor *z = tensor_zeros(DT_F32, 1, &m, &err);
    ck_assert_ptr_eq(z->storage, block);
    const float *zd = tensor_data(z);
    int64_t nonzero = 0;
    for (int64_t i = 0; i < m; i++)
        nonzero += zd[i] != 0.0f;
    ck_assert_int_eq(nonzero, 0);
    tensor_unref(z);
    /* a much smaller or a larger one does not take it */
    int64_t half = n / 2;
    Tensor *h = tensor_empty(DT_F32, 1, &half, &err);
    ck_assert_ptr_ne(h->storage, block);
    tensor_unref(h);
}
END_TEST

START_TEST(test_pool_keeps_resident_memory_under_the_peak)
{
    EpError err = {0};
    tensor_caches_drain();
    TensorPoolStats st;
    tensor_pool_stats(&st);
    ck_assert_uint_eq(st.cached_bytes, 0);
    /* free blocks of growing sizes (78 MiB in all): a request none fits
    ** unmaps kept ones rather than pushing live + kept over the most ever
    ** live plus the slack */
    size_t most = 0;
    for (int k = 1; k <= 12; k++) {
        int64_t n = (int64_t)k * (1 << 20) / 4 + 1000 * k;
        Tensor *t = tensor_empty(DT_F32, 1, &n, &err);
        ck_assert(t != NULL);
        tensor_pool_stats(&st);
        if (st.live_bytes > most)
            most = st.live_bytes;
        ck_assert_uint_le(st.live_bytes + st.cached_bytes, most + TENSOR_POOL_SLACK);
        tensor_unref(t);
    }
    tensor_caches_drain();
    tensor_pool_stats(&st);
    ck_assert_uint_eq(st.cached_bytes, 0);
    ck_assert_uint_eq(st.cached_blocks, 0);
}
END_TEST

START_TEST(test_pool_and_memory_limit)
{
    EpError err = {0};
    int64_t n = (4 << 20) / 4;
    Tensor *a = tensor_empty(DT_F32, 1, &n, &err);
    tensor_unref(a); /* kept in the pool: kept bytes do not count as live */
    size_t live, peak;
    tensor_memory_stats(&live, &peak);
    tensor_set_memory_limit(live + (6 << 20));
    Tensor *b = tensor_empty(DT_F32, 1, &n, &err); /* fits */
    ck_assert(b != NULL);
    int64_t big[2] = {1024, 1024}; /* 4 MiB more: over the limit */
    Tensor *c = tensor_empty(DT_F32, 2, big, &err);
    ck_assert(c == NULL);
    ck_assert_msg(strstr(err.msg, "a float32 tensor [1024, 1024]") != NULL, "%s", err.msg);
    ck_assert_msg(strstr(err.msg, "--max-memory") != NULL, "%s", err.msg);
    tensor_unref(b);
    tensor_set_memory_limit(0);
}
END_TEST

/* Workers allocate and free large tensors at once (the lock taken inside
** parallel loops). */
static void alloc_chunk(void *ctx, int64_t begin, int64_t end)
{
    (void)ctx;
    for (int64_t i = begin; i < end; i++) {
        EpError err = {0};
        int64_t n = (int64_t)(1 << 18) + (i % 3) * 1000;
        Tensor *t = tensor_empty(DT_F32, 1, &n, &err);
        ck_assert(t != NULL);
        ((float *)tensor_data(t))[n - 1] = 1.0f;
        tensor_unref(t);
    }
}

START_TEST(test_pool_from_workers)
{
    size_t live0, live1, peak;
    tensor_memory_stats(&live0, &peak);
    ep_set_threads(4);
    for (int r = 0; r < 20; r++)
        ep_parallel_for(64, 1, alloc_chunk, NULL);
    ep_set_threads(0);
    tensor_memory_stats(&live1, &peak);
    ck_assert_uint_eq(live0, live1);
}
END_TEST

/* ---- softmax: exp's one-factor form, float16 and bfloat16 ------------------ */

/* A row whose span is below exp's normal range takes the one-factor exp;
** the same row with a -inf appended takes the clamped one, and the -inf
** adds an exact 0 to the sum (a lane the padding already fills), so the
** first n results must have the same bits. */
START_TEST(test_softmax_normal_rows_equal_clamped)
{
    enum { N = 1000 };
    EpError err = {0};
    int64_t s1[2] = {3, N}, s2[2] = {3, N + 1};
    Tensor *a = tensor_empty(DT_F32, 2, s1, &err), *b = tensor_empty(DT_F32, 2, s2, &err);
    float *pa = tensor_data(a), *pb = tensor_data(b);
    for (int r = 0; r < 3; r++) {
        for (int i = 0; i < N; i++) {
            /* spans of 2, 60 and just under 87 */
            float span = r == 0 ? 2.0f : r == 1 ? 60.0f : 86.9f;
            float v = (float)(next_u64() >> 40) / 16777216.0f * span - span / 2;
            pa[r * N + i] = pb[r * (N + 1) + i] = v;
        }
        pa[r * N] = pb[r * (N + 1)] = -43.4f; /* the min and max at the ends */
        pa[r * N + N - 1] = pb[r * (N + 1) + N - 1] = r == 2 ? 43.4f : 1.0f;
        pb[r * (N + 1) + N] = -INFINITY;
    }
    for (int log = 0; log < 2; log++) {
        const char *target = log ? "aten._log_softmax.default" : "aten._softmax.default";
        Value va[3] = {value_tensor(a), value_int(1), value_bool(false)};
        Value vb[3] = {value_tensor(b), value_int(1), value_bool(false)};
        Tensor *ya = run_op(target, 3, va, NULL, 0), *yb = run_op(target, 3, vb, NULL, 0);
        ck_assert(ya && yb);
        const float *qa = tensor_data(ya), *qb = tensor_data(yb);
        for (int r = 0; r < 3; r++)
            ck_assert_msg(memcmp(qa + r * N, qb + r * (N + 1), N * sizeof(float)) == 0, "%s row %d differs",
                          target, r);
        tensor_unref(ya);
        tensor_unref(yb);
    }
    tensor_unref(a);
    tensor_unref(b);
}
END_TEST

/* float16 and bfloat16 softmax: the fast path (widened to float32,
** rounded once) against the reference loops (sums in double): within one
** unit of the type's last place, NaN where the reference has NaN. */
START_TEST(test_softmax_reduced_fast_vs_reference)
{
    static const DType DTS[] = {DT_F16, DT_BF16};
    static const char *const TARGETS[] = {"aten._softmax.default", "aten._log_softmax.default"};
    for (int k = 0; k < 2; k++)
        for (int t = 0; t < 2; t++)
            for (int dim = 0; dim < 2; dim++) {
                int64_t sizes[2] = {37, 300};
                /* finite values with some -inf and nan (make_tensor's 1e30
                ** beside another 1e30 would test log_softmax's absorption,
                ** where the f32 paths differ too: x - (m + log s) in double) */
                EpError err = {0};
                Tensor *x = tensor_empty(DTS[k], 2, sizes, &err);
                for (int64_t i = 0; i < sizes[0] * sizes[1]; i++) {
                    uint64_t r = next_u64();
                    double val = r % 40 == 0 ? -INFINITY : r % 997 == 0 ? NAN : (double)(r >> 11) / 0x1p53 * 16 - 8;
                    dtype_store_f64(DTS[k], (char *)tensor_data(x) + i * 2, val);
                }
                Value v[3] = {value_tensor(x), value_int(dim), value_bool(false)};
                Tensor *fast = oprun_try(TARGETS[t], 3, v, true, 0, NULL, 0);
                Tensor *ref = oprun_try(TARGETS[t], 3, v, false, 0, NULL, 0);
                ck_assert(fast && ref && fast->dtype == DTS[k]);
                int64_t n = tensor_numel(ref);
                double eps = DTS[k] == DT_F16 ? 0x1p-10 : 0x1p-7;
                for (int64_t i = 0; i < n; i++) {
                    double f = dtype_load_f64(DTS[k], (char *)tensor_data(fast) + i * 2);
                    double r = dtype_load_f64(DTS[k], (char *)tensor_data(ref) + i * 2);
                    if (r != r) {
                        ck_assert_msg(f != f, "%s %s dim %d [%lld]: %g, reference nan", TARGETS[t],
                                      dtype_c10_name(DTS[k]), dim, (long long)i, f);
                        continue;
                    }
                    double tol = fabs(r) * eps + (DTS[k] == DT_F16 ? 0x1p-24 : 0x1p-133);
                    ck_assert_msg(f == r || fabs(f - r) <= tol, "%s %s dim %d [%lld]: %a, reference %a", TARGETS[t],
                                  dtype_c10_name(DTS[k]), dim, (long long)i, f, r);
                }
                tensor_unref(fast);
                tensor_unref(ref);
                tensor_unref(x);
            }
}
END_TEST

Suite *suite_fastpaths(void)
{
    Suite *s = suite_create("fastpaths");
    TCase *tc = tcase_create("pointwise");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_pointwise_fast_equals_reference);
    tcase_add_test(tc, test_pointwise_in_place);
    tcase_add_test(tc, test_rsqrt_rounds_as_pytorch);
    tcase_add_test(tc, test_zero_division_in_chunks);
    tcase_add_test(tc, test_softmax_normal_rows_equal_clamped);
    tcase_add_test(tc, test_softmax_reduced_fast_vs_reference);
    suite_add_tcase(s, tc);
    TCase *tcc = tcase_create("copies");
    tcase_set_timeout(tcc, 120);
    tcase_add_test(tcc, test_cat_rows_equal_general_copy);
    tcase_add_test(tcc, test_index_select_rows_equal_general_copy);
    tcase_add_test(tcc, test_embedding_rows);
    tcase_add_test(tcc, test_gather_typed_runs);
    tcase_add_test(tcc, test_scatter_add_float_run);
    tcase_add_test(tcc, test_index_chunks_report_the_first_bad_index);
    tcase_add_test(tcc, test_index_add_float_runs);
    tcase_add_test(tcc, test_arange_typed_fills);
    tcase_add_test(tcc, test_bilinear_equals_general_lerp);
    tcase_add_test(tcc, test_linear_weights_as_pytorch);
    tcase_add_test(tcc, test_fused_arith_as_pytorch);
    tcase_add_test(tcc, test_batch_norm_eval_as_pytorch);
    tcase_add_test(tcc, test_bicubic_weights_as_pytorch);
    suite_add_tcase(s, tcc);
    TCase *tp = tcase_create("pool");
    tcase_set_timeout(tp, 120);
    tcase_add_test(tp, test_pool_reuses_large_blocks);
    tcase_add_test(tp, test_pool_keeps_resident_memory_under_the_peak);
    tcase_add_test(tp, test_pool_and_memory_limit);
    tcase_add_test(tp, test_pool_from_workers);
    suite_add_tcase(s, tp);
    return s;
}
