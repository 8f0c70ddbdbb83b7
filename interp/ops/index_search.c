/*
** index_search.c -- ops that compare values against sets or sorted
** sequences: isin (three overloads), searchsorted and bucketize (tensor
** and scalar), and the unique family (_unique, _unique2, unique_dim,
** unique_consecutive, unique_dim_consecutive).
**
** Semantics from ATen's TensorCompare.cpp (isin), Bucketization.cpp,
** BucketizationUtils.h and Unique.cpp.  Values are compared in the common
** dtype torch.result_type gives both operands (wrapped Python numbers
** included), through sort keys that compare exactly like the dtype does.
*/
#include "index.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- isin ------------------------------------------------------------------------ */

static EpStatus isin_dtype_check(OpCall *c, DType t)
{
    if (t == DT_BOOL)
        return op_fail(c, "Unsupported input type encountered for isin(): Bool");
    return EP_OK;
}

static int64_t lower_bound_keys(const IndexKeys *k, const int64_t *order, int64_t n, const IndexKeys *v,
                                int64_t j)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        bool less = k->is_float ? k->f[order[mid]] < v->f[j] : k->i[order[mid]] < v->i[j];
        if (less)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Whether each element occurs among the test elements (== semantics: NaN
** never does): sort the test keys, then binary search. */
static EpStatus isin_truth(OpCall *c, const IndexKeys *ek, const IndexKeys *tk, bool invert, uint8_t *out)
{
    int64_t nt = tk->n;
    int64_t *order = malloc((size_t)(nt > 0 ? nt : 1) * sizeof *order);
    if (!order)
        return op_fail(c, "out of memory");
    for (int64_t i = 0; i < nt; i++)
        order[i] = i;
    index_keys_sort(tk, order, nt);
    for (int64_t j = 0; j < ek->n; j++) {
        bool found = false;
        if (!(ek->is_float && isnan(ek->f[j]))) {
            int64_t p = lower_bound_keys(tk, order, nt, ek, j);
            found = p < nt && (tk->is_float ? tk->f[order[p]] == ek->f[j] : tk->i[order[p]] == ek->i[j]);
        }
        out[j] = (uint8_t)(found != invert);
    }
    free(order);
    return EP_OK;
}

/* ATen's isin_sorting with assume_unique: concatenate elements and test
** elements, sort stably, and call an element present when the next sorted
** value equals it.  Correct for unique elements; with repeated elements it
** answers what PyTorch answers (a repeat "finds" its twin). */
typedef struct ConcatKeys {
    const IndexKeys *e, *t;
} ConcatKeys;

static bool concat_nan(const ConcatKeys *c, int64_t i)
{
    const IndexKeys *k = i < c->e->n ? c->e : c->t;
    return k->is_float && isnan(k->f[i < c->e->n ? i : i - c->e->n]);
}

static double concat_f(const ConcatKeys *c, int64_t i)
{
    return i < c->e->n ? c->e->f[i] : c->t->f[i - c->e->n];
}

static int64_t concat_i(const ConcatKeys *c, int64_t i)
{
    return i < c->e->n ? c->e->i[i] : c->t->i[i - c->e->n];
}

static int concat_cmp(const void *vctx, int64_t a, int64_t b)
{
    const ConcatKeys *c = vctx;
    if (!c->e->is_float) {
        int64_t x = concat_i(c, a), y = concat_i(c, b);
        return (x > y) - (x < y);
    }
    bool an = concat_nan(c, a), bn = concat_nan(c, b);
    if (an || bn)
        return (int)an - (int)bn;
    double x = concat_f(c, a), y = concat_f(c, b);
    return (x > y) - (x < y);
}

static bool concat_eq(const ConcatKeys *c, int64_t a, int64_t b)
{
    return c->e->is_float ? concat_f(c, a) == concat_f(c, b) : concat_i(c, a) == concat_i(c, b);
}

static EpStatus isin_assume_unique(OpCall *c, const IndexKeys *ek, const IndexKeys *tk, bool invert, uint8_t *out)
{
    int64_t n = ek->n + tk->n;
    int64_t *order = malloc((size_t)n * sizeof *order);
    if (!order)
        return op_fail(c, "out of memory");
    for (int64_t i = 0; i < n; i++)
        order[i] = i;
    ConcatKeys ck = {ek, tk};
    index_sort(order, n, concat_cmp, &ck);
    for (int64_t s = 0; s < n; s++) {
        bool m = s + 1 < n ? concat_eq(&ck, order[s + 1], order[s]) != invert : invert;
        if (order[s] < ek->n)
            out[order[s]] = (uint8_t)m;
    }
    free(order);
    return EP_OK;
}

/* elements (shape of the result) against test_elements, both converted to
** their common dtype. */
static EpStatus isin_core(OpCall *c, Tensor *elements, Tensor *test, bool assume_unique, bool invert)
{
    EpStatus rc = isin_dtype_check(c, elements->dtype);
    if (rc == EP_OK)
        rc = isin_dtype_check(c, test->dtype);
    if (rc)
        return rc;
    Tensor *out = tensor_empty(DT_BOOL, elements->ndim, elements->sizes, c->err);
    if (!out)
        return EP_ERR_EXEC;
    int64_t ne = tensor_numel(elements), nt = tensor_numel(test);
    if (ne > 0) {
        Tensor *ts[2] = {elements, test};
        DType common = result_type(2, ts, 0, NULL);
        IndexKeys ek, tk;
        rc = index_keys_init(&ek, elements, common, c->err);
        if (rc == EP_OK) {
            rc = index_keys_init(&tk, test, common, c->err);
            if (rc == EP_OK) {
                /* ATen's heuristic (from numpy): few test elements are
                ** compared one by one, many go through the sort */
                bool brute = nt < (int64_t)(10.0 * pow((double)ne, 0.145));
                if (assume_unique && !brute)
                    rc = isin_assume_unique(c, &ek, &tk, invert, tensor_data(out));
                else
                    rc = isin_truth(c, &ek, &tk, invert, tensor_data(out));
                index_keys_done(&tk);
            }
            index_keys_done(&ek);
        }
    }
    return index_out(c, rc, out);
}

/* isin.Tensor_Tensor(Tensor elements, Tensor test_elements, *, bool assume_unique=False,
** bool invert=False) -> Tensor */
EpStatus k_isin_tensor_tensor(OpCall *c)
{
    return isin_core(c, arg_tensor(c, 0), arg_tensor(c, 1), arg_bool(c, 2), arg_bool(c, 3));
}

/* isin with the Python number at argument scalar_arg (0: elements, 1:
** test_elements) as a wrapped-number tensor, so with the scalar's usual
** promotion. */
static EpStatus isin_scalar(OpCall *c, int scalar_arg, bool assume_unique)
{
    const Value *s = arg_scalar(c, scalar_arg);
    if (s->kind == V_BOOL)
        return op_fail(c, "Unsupported input type encountered for isin(): Bool");
    Tensor *t = value_wrap_number(s, c->err);
    if (!t)
        return EP_ERR_EXEC;
    EpStatus rc = scalar_arg == 0 ? isin_core(c, t, arg_tensor(c, 1), assume_unique, arg_bool(c, 3))
                                  : isin_core(c, arg_tensor(c, 0), t, assume_unique, arg_bool(c, 3));
    tensor_unref(t);
    return rc;
}

/* isin.Tensor_Scalar: elements == test_element (or !=). */
EpStatus k_isin_tensor_scalar(OpCall *c) { return isin_scalar(c, 1, false); }

/* isin.Scalar_Tensor: a 0-d result for one Python number. */
EpStatus k_isin_scalar_tensor(OpCall *c) { return isin_scalar(c, 0, arg_bool(c, 2)); }

/* ---- searchsorted / bucketize ------------------------------------------------------ */

typedef struct SearchArgs {
    Tensor *boundaries;
    Tensor *input;
    bool out_int32;
    bool right;
    const char *side;     /* NULL when not given */
    Tensor *sorter;       /* NULL when not given */
} SearchArgs;

/* BucketizationUtils.h's searchsorted_pre_check. */
static EpStatus search_checks(OpCall *c, const SearchArgs *a)
{
    char b1[256], b2[256];
    const Tensor *bd = a->boundaries, *in = a->input;
    if (a->side) {
        if (strcmp(a->side, "left") != 0 && strcmp(a->side, "right") != 0)
            return op_fail(c, "torch.searchsorted(): side can only be 'left' or 'right' but got %s", a->side);
        if (a->right && strcmp(a->side, "right") != 0)
            return op_fail(c, "torch.searchsorted(): side and right can't be set to opposites, got side of %s "
                              "while right was True", a->side);
    }
    if (a->sorter) {
        const Tensor *s = a->sorter;
        if (!shape_equal(s->ndim, s->sizes, bd->ndim, bd->sizes))
            return op_fail(c, "torch.searchsorted(): boundary and sorter must have the same size, but got boundary "
                              "tensor %sand got sorter tensor %s", shape_str(bd->ndim, bd->sizes, b1, sizeof b1),
                           shape_str(s->ndim, s->sizes, b2, sizeof b2));
        if (s->dtype != DT_I64)
            return op_fail(c, "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype %s",
                           dtype_c10_name(s->dtype));
        int64_t inner = s->ndim > 0 ? s->sizes[s->ndim - 1] : 1;
        for (int64_t i = 0; i < tensor_numel(s); i++) {
            int64_t v = tensor_get_i64(s, i);
            if (v < 0 || v >= inner)
                return op_fail(c, "torch.searchsorted(): sorter index out of range");
        }
    }
    if (!(in->ndim > 0 || (tensor_numel(in) == 1 && bd->ndim == 1)))
        return op_fail(c, "torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension "
                          "is 1, but we got boundaries tensor dim(%d) and input value's dim(%d) numel(%lld)",
                       bd->ndim, in->ndim, (long long)tensor_numel(in));
    if (bd->ndim == 0)
        return op_fail(c, "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
                          "dimension");
    bool matched = bd->ndim == in->ndim;
    for (int d = 0; matched && d + 1 < bd->ndim; d++)
        matched = bd->sizes[d] == in->sizes[d];
    if (bd->ndim != 1 && !matched)
        return op_fail(c, "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                          "dimensions of boundaries tensor and input value tensor must match, but we got boundaries "
                          "tensor %s and input value tensor %s", shape_str(bd->ndim, bd->sizes, b1, sizeof b1),
                       shape_str(in->ndim, in->sizes, b2, sizeof b2));
    return EP_OK;
}

/* Bucketization.cpp's cus_lower_bound / cus_upper_bound, including the
** exact midpoints, so that NaNs and unsorted rows land where ATen puts them.
** Positions are absolute; sort holds row-relative indices. */
static int64_t bound(const IndexKeys *bd, const int64_t *sort, int64_t start, int64_t end, const IndexKeys *in,
                     int64_t i, bool right)
{
    const int64_t orig_start = start;
    while (start < end) {
        const int64_t mid = start + ((end - start) >> 1);
        const int64_t at = sort ? sort[mid] + orig_start : mid;
        bool go_right;
        if (bd->is_float) {
            double m = bd->f[at], v = in->f[i];
            go_right = right ? !(m > v) : !(m >= v);
        } else {
            int64_t m = bd->i[at], v = in->i[i];
            go_right = right ? !(m > v) : !(m >= v);
        }
        if (go_right)
            start = mid + 1;
        else
            end = mid;
    }
    return start;
}

static EpStatus search_impl(OpCall *c, const SearchArgs *a)
{
    EpStatus rc = search_checks(c, a);
    if (rc)
        return rc;
    Tensor *in = a->input, *bd = a->boundaries;
    Tensor *out = tensor_empty(a->out_int32 ? DT_I32 : DT_I64, in->ndim, in->sizes, c->err);
    if (!out)
        return EP_ERR_EXEC;
    int64_t n = tensor_numel(in);
    Tensor *ts[2] = {bd, in};
    DType common = result_type(2, ts, 0, NULL);
    if (n > 0 && common == DT_BOOL) {
        tensor_unref(out);
        return op_fail(c, "\"searchsorted_out_cpu\" not implemented for 'Bool'");
    }
    bool right = a->side ? strcmp(a->side, "right") == 0 : a->right;
    IndexKeys bk = {0}, ik = {0};
    Tensor *sorter = NULL;
    if (n > 0) {
        rc = index_keys_init(&bk, bd, common, c->err);
        if (rc == EP_OK)
            rc = index_keys_init(&ik, in, common, c->err);
        if (rc == EP_OK && a->sorter && !(sorter = tensor_contiguous(a->sorter, c->err)))
            rc = EP_ERR_EXEC;
    }
    if (rc == EP_OK && n > 0) {
        int64_t idim_in = in->ndim == 0 ? 1 : in->sizes[in->ndim - 1];
        int64_t idim_bd = bd->sizes[bd->ndim - 1];
        const int64_t *sort = sorter ? tensor_data(sorter) : NULL;
        for (int64_t i = 0; i < n; i++) {
            int64_t start = bd->ndim == 1 ? 0 : i / idim_in * idim_bd;
            int64_t pos = bound(&bk, sort, start, start + idim_bd, &ik, i, right) - start;
            if (a->out_int32)
                ((int32_t *)tensor_data(out))[i] = (int32_t)pos;
            else
                ((int64_t *)tensor_data(out))[i] = pos;
        }
    }
    tensor_unref(sorter);
    index_keys_done(&bk);
    index_keys_done(&ik);
    return index_out(c, rc, out);
}

/* searchsorted.Tensor(Tensor sorted_sequence, Tensor self, *, bool out_int32=False,
** bool right=False, str? side=None, Tensor? sorter=None) -> Tensor */
EpStatus k_searchsorted_tensor(OpCall *c)
{
    SearchArgs a = {arg_tensor(c, 0), arg_tensor(c, 1), arg_bool(c, 2), arg_bool(c, 3), arg_str(c, 4),
                    arg_tensor(c, 5)};
    return search_impl(c, &a);
}

/* search_impl with the Python number v as the input (a wrapped number, so
** a 0-d result). */
static EpStatus search_scalar(OpCall *c, SearchArgs *a, const Value *v)
{
    Tensor *t = value_wrap_number(v, c->err);
    if (!t)
        return EP_ERR_EXEC;
    a->input = t;
    EpStatus rc = search_impl(c, a);
    tensor_unref(t);
    return rc;
}

/* searchsorted.Scalar(Tensor sorted_sequence, Scalar self, ...) */
EpStatus k_searchsorted_scalar(OpCall *c)
{
    SearchArgs a = {arg_tensor(c, 0), NULL, arg_bool(c, 2), arg_bool(c, 3), arg_str(c, 4), arg_tensor(c, 5)};
    return search_scalar(c, &a, arg_scalar(c, 1));
}

/* bucketize: searchsorted over 1-d boundaries. */
static EpStatus bucketize(OpCall *c, bool scalar_self)
{
    Tensor *bd = arg_tensor(c, 1);
    if (bd->ndim != 1)
        return op_fail(c, "boundaries tensor must be 1 dimension, but got dim(%d)", bd->ndim);
    SearchArgs a = {bd, scalar_self ? NULL : arg_tensor(c, 0), arg_bool(c, 2), arg_bool(c, 3), NULL, NULL};
    return scalar_self ? search_scalar(c, &a, arg_scalar(c, 0)) : search_impl(c, &a);
}

/* bucketize.Tensor(Tensor self, Tensor boundaries, *, bool out_int32=False,
** bool right=False) -> Tensor and bucketize.Scalar(Scalar self, ...). */
EpStatus k_bucketize_tensor(OpCall *c) { return bucketize(c, false); }
EpStatus k_bucketize_scalar(OpCall *c) { return bucketize(c, true); }

/* ---- unique ------------------------------------------------------------------------- */

/* An int64 tensor of n elements, or [0] when not wanted (ATen returns
** empty tensors for outputs not asked for). */
static Tensor *long_out(OpCall *c, bool wanted, int nd, const int64_t *shape)
{
    int64_t zero = 0;
    return wanted ? tensor_empty(DT_I64, nd, shape, c->err) : tensor_empty(DT_I64, 1, &zero, c->err);
}

static EpStatus set_outs(OpCall *c, Tensor *values, Tensor *inverse, Tensor *counts, int nouts)
{
    if (!values || !inverse || (nouts > 2 && !counts)) {
        tensor_unref(values);
        tensor_unref(inverse);
        tensor_unref(counts);
        return EP_ERR_EXEC;
    }
    out_tensor(c, 0, values);
    out_tensor(c, 1, inverse);
    if (nouts > 2)
        out_tensor(c, 2, counts);
    else
        tensor_unref(counts);
    return EP_OK;
}

/* Sorted unique values of the flattened self (the CPU kernel always sorts,
** whatever `sorted` says -- modern PyTorch; 1.13 kept hash order), each
** NaN its own value, with the inverse (self's shape) and counts. */
static EpStatus unique_sorted(OpCall *c, Tensor *self, bool want_inverse, bool want_counts, int nouts)
{
    int64_t n = tensor_numel(self);
    IndexKeys k;
    EpStatus rc = index_keys_init(&k, self, DT_INVALID, c->err);
    if (rc)
        return rc;
    int64_t *order = malloc((size_t)(n > 0 ? n : 1) * sizeof *order);
    int64_t *starts = malloc((size_t)(n + 1) * sizeof *starts);
    if (!order || !starts) {
        free(order);
        free(starts);
        index_keys_done(&k);
        return op_fail(c, "out of memory");
    }
    for (int64_t i = 0; i < n; i++)
        order[i] = i;
    index_keys_sort(&k, order, n);
    int64_t nu = 0;
    for (int64_t s = 0; s < n; s++)
        if (s == 0 || !index_keys_equal(&k, order[s], order[s - 1]))
            starts[nu++] = s;
    starts[nu] = n;
    Tensor *values = tensor_empty(self->dtype, 1, &nu, c->err);
    Tensor *inverse = long_out(c, want_inverse, self->ndim, self->sizes);
    Tensor *counts = long_out(c, want_counts, 1, &nu);
    if (values && inverse && counts) {
        char *v = tensor_data(values);
        int es = dtype_size(self->dtype);
        for (int64_t u = 0; u < nu; u++) {
            index_keys_store(&k, order[starts[u]], self->dtype, v + u * es);
            for (int64_t s = starts[u]; want_inverse && s < starts[u + 1]; s++)
                ((int64_t *)tensor_data(inverse))[order[s]] = u;
            if (want_counts)
                ((int64_t *)tensor_data(counts))[u] = starts[u + 1] - starts[u];
        }
    }
    free(order);
    free(starts);
    index_keys_done(&k);
    return set_outs(c, values, inverse, counts, nouts);
}

/* _unique(Tensor self, bool sorted=True, bool return_inverse=False) -> (Tensor, Tensor) */
EpStatus k_unique(OpCall *c)
{
    return unique_sorted(c, arg_tensor(c, 0), arg_bool(c, 2), false, 2);
}

/* _unique2(Tensor self, bool sorted=True, bool return_inverse=False,
** bool return_counts=False) -> (Tensor, Tensor, Tensor) */
EpStatus k_unique2(OpCall *c)
{
    return unique_sorted(c, arg_tensor(c, 0), arg_bool(c, 2), arg_bool(c, 3), 3);
}

/* Runs of equal neighbours of the flattened self (!= decides, so NaNs
** never merge). */
static EpStatus unique_consecutive_flat(OpCall *c, Tensor *self, bool want_inverse, bool want_counts)
{
    int64_t n = tensor_numel(self);
    IndexKeys k;
    EpStatus rc = index_keys_init(&k, self, DT_INVALID, c->err);
    if (rc)
        return rc;
    int64_t nu = 0;
    for (int64_t i = 0; i < n; i++)
        if (i == 0 || !index_keys_equal(&k, i, i - 1))
            nu++;
    Tensor *values = tensor_empty(self->dtype, 1, &nu, c->err);
    Tensor *inverse = long_out(c, want_inverse, self->ndim, self->sizes);
    Tensor *counts = long_out(c, want_counts, 1, &nu);
    if (values && inverse && counts) {
        char *v = tensor_data(values);
        int es = dtype_size(self->dtype);
        int64_t u = -1;
        for (int64_t i = 0; i < n; i++) {
            if (i == 0 || !index_keys_equal(&k, i, i - 1)) {
                u++;
                index_keys_store(&k, i, self->dtype, v + u * es);
                if (want_counts)
                    ((int64_t *)tensor_data(counts))[u] = 0;
            }
            if (want_inverse)
                ((int64_t *)tensor_data(inverse))[i] = u;
            if (want_counts)
                ((int64_t *)tensor_data(counts))[u]++;
        }
    }
    index_keys_done(&k);
    return set_outs(c, values, inverse, counts, 3);
}

/* Rows of the moved-axis view, compared as ATen's unique_dim does. */
typedef struct RowKeys {
    const IndexKeys *k;
    int64_t row_len;
} RowKeys;

/* Lexicographic by < and >, as ATen's comparator: a NaN position ties. */
static int row_cmp(const void *vctx, int64_t a, int64_t b)
{
    const RowKeys *r = vctx;
    for (int64_t j = 0; j < r->row_len; j++) {
        int64_t x = a * r->row_len + j, y = b * r->row_len + j;
        if (r->k->is_float) {
            if (r->k->f[x] < r->k->f[y])
                return -1;
            if (r->k->f[x] > r->k->f[y])
                return 1;
        } else {
            if (r->k->i[x] < r->k->i[y])
                return -1;
            if (r->k->i[x] > r->k->i[y])
                return 1;
        }
    }
    return 0;
}

/* at::equal: every element ==. */
static bool row_equal(const RowKeys *r, int64_t a, int64_t b)
{
    for (int64_t j = 0; j < r->row_len; j++)
        if (!index_keys_equal(r->k, a * r->row_len + j, b * r->row_len + j))
            return false;
    return true;
}

/* unique over slices along dim (sorted unless consecutive).  ATen returns
** the inverse and counts whatever the flags say, and the values as a
** moveaxis view of the stacked unique slices. */
static EpStatus unique_dim_impl(OpCall *c, Tensor *self, int64_t dim_arg, bool consecutive)
{
    int dim;
    if (!dim_wrap(dim_arg, self->ndim, &dim) || self->ndim == 0)
        return op_fail(c, "IndexError: Dimension out of range (expected to be in range of [%d, %d], but got %lld)",
                       -(self->ndim > 0 ? self->ndim : 1), (self->ndim > 0 ? self->ndim : 1) - 1,
                       (long long)dim_arg);
    int zeros = 0;
    for (int i = 0; i < self->ndim; i++)
        zeros += self->sizes[i] == 0;
    int64_t zero = 0;
    if (self->sizes[dim] == 0) {
        if (zeros != 1)
            return op_fail(c, "Number of zero sized dimensions is more than one, so unique cannot be applied ");
        return set_outs(c, tensor_empty(self->dtype, self->ndim, self->sizes, c->err),
                        tensor_empty(DT_I64, 1, &zero, c->err), tensor_empty(DT_I64, 1, &zero, c->err), 3);
    }
    if (zeros != 0)
        return op_fail(c, "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied");

    /* self with dim moved to the front, as a contiguous copy */
    int64_t ms[EP_MAX_DIMS], mst[EP_MAX_DIMS];
    int m = 0;
    ms[m] = self->sizes[dim];
    mst[m++] = self->strides[dim];
    for (int i = 0; i < self->ndim; i++)
        if (i != dim) {
            ms[m] = self->sizes[i];
            mst[m++] = self->strides[i];
        }
    Tensor *mv = tensor_as_strided(self, self->ndim, ms, mst, self->offset, c->err);
    Tensor *flat = mv ? tensor_contiguous(mv, c->err) : NULL;
    tensor_unref(mv);
    if (!flat)
        return EP_ERR_EXEC;
    int64_t rows = ms[0], row_len = tensor_numel(flat) / rows;
    IndexKeys k;
    EpStatus rc = index_keys_init(&k, flat, DT_INVALID, c->err);
    if (rc) {
        tensor_unref(flat);
        return rc;
    }
    int64_t *order = malloc((size_t)rows * sizeof *order);
    int64_t *group = malloc((size_t)rows * sizeof *group);
    Tensor *values = NULL, *inverse = NULL, *counts = NULL;
    if (!order || !group) {
        rc = op_fail(c, "out of memory");
    } else {
        RowKeys rk = {&k, row_len};
        for (int64_t i = 0; i < rows; i++)
            order[i] = i;
        if (!consecutive)
            index_sort(order, rows, row_cmp, &rk);
        /* group[s]: the unique row sorted position s belongs to */
        int64_t nu = 0, rep = 0;
        for (int64_t s = 0; s < rows; s++) {
            if (s == 0 || !row_equal(&rk, order[s], order[rep])) {
                rep = s;
                nu++;
            }
            group[s] = nu - 1;
        }
        inverse = tensor_empty(DT_I64, 1, &rows, c->err);
        counts = tensor_zeros(DT_I64, 1, &nu, c->err);
        int64_t vs[EP_MAX_DIMS];
        memcpy(vs, ms, sizeof vs);
        vs[0] = nu;
        Tensor *stacked = tensor_empty(self->dtype, self->ndim, vs, c->err);
        if (inverse && counts && stacked) {
            size_t row_bytes = (size_t)row_len * (size_t)dtype_size(self->dtype);
            const char *src = tensor_data(flat);
            char *dst = tensor_data(stacked);
            for (int64_t s = 0; s < rows; s++) {
                int64_t g = group[s];
                if (s == 0 || group[s - 1] != g)
                    memcpy(dst + (size_t)g * row_bytes, src + (size_t)order[s] * row_bytes, row_bytes);
                ((int64_t *)tensor_data(inverse))[order[s]] = g;
                ((int64_t *)tensor_data(counts))[g]++;
            }
            /* moveaxis(0, dim): a view with the unique count back at dim */
            int64_t os[EP_MAX_DIMS], ost[EP_MAX_DIMS];
            for (int i = 0, j = 1; i < self->ndim; i++) {
                int src_axis = i == dim ? 0 : j++;
                os[i] = stacked->sizes[src_axis];
                ost[i] = stacked->strides[src_axis];
            }
            values = tensor_as_strided(stacked, self->ndim, os, ost, 0, c->err);
        }
        tensor_unref(stacked);
        if (!values)
            rc = EP_ERR_EXEC;
    }
    free(order);
    free(group);
    index_keys_done(&k);
    tensor_unref(flat);
    if (rc) {
        tensor_unref(values);
        tensor_unref(inverse);
        tensor_unref(counts);
        return rc;
    }
    return set_outs(c, values, inverse, counts, 3);
}

/* unique_dim(Tensor self, int dim, bool sorted=True, bool return_inverse=False,
** bool return_counts=False) -> (Tensor, Tensor, Tensor) */
EpStatus k_unique_dim(OpCall *c)
{
    return unique_dim_impl(c, arg_tensor(c, 0), arg_int(c, 1), false);
}

/* unique_dim_consecutive(Tensor self, int dim, bool return_inverse=False,
** bool return_counts=False) -> (Tensor, Tensor, Tensor) */
EpStatus k_unique_dim_consecutive(OpCall *c)
{
    return unique_dim_impl(c, arg_tensor(c, 0), arg_int(c, 1), true);
}

/* unique_consecutive(Tensor self, bool return_inverse=False, bool return_counts=False,
** int? dim=None) -> (Tensor, Tensor, Tensor): flat unless a dim is given
** (dim 0 of a 1-d tensor is flat too). */
EpStatus k_unique_consecutive(OpCall *c)
{
    Tensor *self = arg_tensor(c, 0);
    if (arg_is_none(c, 3) || (arg_int(c, 3) == 0 && self->ndim == 1))
        return unique_consecutive_flat(c, self, arg_bool(c, 1), arg_bool(c, 2));
    return unique_dim_impl(c, self, arg_int(c, 3), true);
}
