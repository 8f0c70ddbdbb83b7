/*
** cost.c -- a node's estimated FLOPs and bytes (one table from op name to
** rule), and this machine's sgemm peak and memory bandwidth (measured once,
** cached per machine).
**
** The table (COST_RULES) lists op names without namespace or overload
** ("addmm" stands for aten.addmm.default, aten.addmm.out, aten.addmm_),
** grouped by the rule that counts them.  The counting conventions, which the
** README repeats for users:
**   - a multiply-add is 2 FLOPs: a matrix product 2 * output elements * K
**     (plus one per output element for a bias add);
**   - convolution: 2 * output elements * (input channels / groups) *
**     kernel elements; a transposed convolution the same per input element;
**   - attention: the two products (2*L*S*E and 2*L*S*Ev per batch and
**     head) plus SOFTMAX_FLOPS per score;
**   - elementwise ops and activations: 1 per output element, whatever the
**     function -- exp, tanh and erf count 1 like an add, as the roofline
**     literature usually does; interpolation 2 * taps - 1 per output;
**   - reductions and cumulative ops: 1 per input element;
**   - norms: NORM_FLOPS per element (8: mean 1, variance 3, normalise 2,
**     scale and shift 2), 4 when they use running statistics;
**     softmax: SOFTMAX_FLOPS (5: max, subtract, exp, sum, divide);
**   - pooling: kernel elements per output element; adaptive pooling 1 per
**     input element;
**   - data movement (copies, cat, indexing, embedding, padding, factories):
**     0 FLOPs, bytes counted;
**   - views and metadata ops (and empty, which touches nothing; dropout
**     with train=False, an alias): 0 and 0.
** Sorting, unique, searching and higher-order ops have no rule (known
** false): comparisons are not floating-point work.
*/
#include "profiler/cost.h"

#include <cblas.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define NORM_FLOPS 8.0
#define NORM_APPLY_FLOPS 4.0 /* running statistics: normalise, scale, shift */
#define SOFTMAX_FLOPS 5.0

/* ---- the rules ------------------------------------------------------------ */

typedef enum CostKind {
    CK_VIEW,     /* 0 FLOPs, 0 bytes */
    CK_MOVE,     /* 0 FLOPs, bytes counted */
    CK_ELEM,     /* per FLOPs per output element */
    CK_REDUCE,   /* per FLOPs per element of the first tensor input */
    CK_NORM,     /* per FLOPs per input element; NORM_APPLY_FLOPS if training=False */
    CK_DROPOUT,  /* per FLOPs per output element; with train=False an alias: a view */
    CK_GEMM,     /* 2 * out * K (K: a's last dim; per 1: a's elements / its rows)
                 ** + out if b is given */
    CK_CONV,     /* per: 0 forward, 1 transposed, 2 the "transposed" argument */
    CK_SDPA,     /* a query, b key, and "value" */
    CK_POOL,     /* per: spatial dims; out * kernel elements ("kernel_size") */
    CK_DIST,     /* per * out * the first input's last dim (cdist, pdist) */
    CK_TENSORDOT,
    CK_EINSUM,
} CostKind;

typedef struct CostRule {
    CostKind kind;
    double per;        /* the rule's constant (see CostKind) */
    const char *a, *b; /* schema names of the operands the rule reads */
    const char *names; /* op names, space-separated */
} CostRule;

static const CostRule COST_RULES[] = {
    /* views and metadata: nothing computed, nothing moved */
    {CK_VIEW, 0, NULL, NULL,
     "view _unsafe_view reshape _reshape_alias reshape_as view_as permute transpose t numpy_T mT mH "
     "adjoint expand expand_as broadcast_to broadcast_tensors meshgrid slice select narrow diagonal "
     "squeeze unsqueeze unflatten flatten ravel movedim moveaxis swapaxes swapdims alias detach lift "
     "lift_fresh resolve_conj resolve_neg conj as_strided split split_with_sizes unsafe_split "
     "unsafe_split_with_sizes chunk unsafe_chunk unbind tensor_split hsplit vsplit dsplit atleast_1d "
     "atleast_2d atleast_3d unfold getitem item _local_scalar_dense "
     "sym_size sym_stride sym_numel sym_storage_offset sym_is_contiguous sym_float sym_int sym_ite "
     "sym_max sym_min sym_not sym_sqrt _sym_sqrt sym_sum sym_constrain_range "
     "sym_constrain_range_for_size _functional_sym_constrain_range "
     "_functional_sym_constrain_range_for_size _assert_async _assert_scalar _assert_tensor_metadata "
     "_functional_assert_async _functional_assert_scalar "
     /* allocated, never written */
     "empty empty_like empty_strided empty_permuted new_empty new_empty_strided"},
    /* data movement: copies, joins, padding, indexing, factories */
    {CK_MOVE, 0, NULL, NULL,
     "clone contiguous copy _to_copy to type_as lift_fresh_copy cat concat concatenate stack hstack "
     "vstack dstack column_stack block_diag pad constant_pad_nd reflection_pad1d reflection_pad2d "
     "reflection_pad3d replication_pad1d replication_pad2d replication_pad3d _pad_circular roll flip "
     "fliplr flipud rot90 repeat tile repeat_interleave tril triu diag diag_embed "
     "alias_copy as_strided_copy detach_copy diagonal_copy expand_copy permute_copy "
     "_reshape_alias_copy _reshape_copy select_copy slice_copy split_copy split_with_sizes_copy "
     "squeeze_copy t_copy transpose_copy unbind_copy unfold_copy unsqueeze_copy view_copy "
     "narrow_copy as_strided_scatter diagonal_scatter select_scatter slice_scatter select_backward "
     "slice_backward index index_select gather take take_along_dim scatter scatter_add "
     "scatter_reduce index_add index_copy index_fill index_put _index_put_impl _unsafe_index "
     "_unsafe_index_put _unsafe_masked_index _unsafe_masked_index_put_accumulate index_reduce "
     "masked_scatter masked_select nonzero nonzero_static argwhere put embedding one_hot "
     "pixel_shuffle pixel_unshuffle channel_shuffle native_channel_shuffle im2col col2im "
     "upsample_nearest1d upsample_nearest2d upsample_nearest3d _upsample_nearest_exact1d "
     "_upsample_nearest_exact2d _upsample_nearest_exact3d bincount "
     "zeros ones full arange linspace logspace eye zeros_like ones_like full_like new_full new_ones "
     "new_zeros scalar_tensor fill zero rand rand_like randn randn_like randint randint_like "
     "randperm normal uniform exponential bernoulli multinomial tril_indices triu_indices"},
    /* elementwise arithmetic, comparisons, math functions, activations */
    {CK_ELEM, 1, NULL, NULL,
     "abs acos acosh add addcdiv addcmul asin asinh atan atan2 atanh bitwise_and bitwise_or "
     "bitwise_xor bitwise_not bitwise_left_shift bitwise_right_shift ceil celu clamp clamp_max "
     "clamp_min copysign cos cosh div elu eq erf erfc erfinv exp exp2 expm1 floor floor_divide fmax "
     "fmin fmod frac ge gelu glu gt hardshrink hardsigmoid hardswish hardtanh hypot i0 isfinite isin "
     "isinf isnan isneginf isposinf le leaky_relu lerp log log10 log1p log2 logical_and logical_not "
     "logical_or logical_xor logit lt masked_fill maximum minimum mish mul ne neg nan_to_num pow "
     "prelu _prelu_kernel reciprocal relu relu6 remainder round rsqrt rsub selu sgn sigmoid sign "
     "signbit silu sin sinh softplus softshrink sqrt square sub tan tanh threshold true_divide "
     "trunc where xlogy ger outer __and__ __or__ __xor__ __lshift__ __rshift__ __iand__ __ior__ __ixor__ "
     "__ilshift__ __irshift__ and_ or_ xor invert not_ pos mod floordiv truediv lshift rshift "
     "quantize_per_tensor quantize_per_channel dequantize_per_tensor dequantize_per_channel"},
    {CK_DROPOUT, 1, NULL, NULL, "dropout alpha_dropout feature_dropout feature_alpha_dropout native_dropout"},
    /* interpolation: 2 * taps - 1 per output element */
    {CK_ELEM, 3, NULL, NULL, "upsample_linear1d"},
    {CK_ELEM, 7, NULL, NULL, "upsample_bilinear2d grid_sampler grid_sampler_2d"},
    {CK_ELEM, 15, NULL, NULL, "upsample_trilinear3d"},
    {CK_ELEM, 31, NULL, NULL, "upsample_bicubic2d"},
    {CK_ELEM, SOFTMAX_FLOPS, NULL, NULL, "softmax _softmax log_softmax _log_softmax _safe_softmax"},
    /* reductions and scans */
    {CK_REDUCE, 1, NULL, NULL,
     "sum mean nansum nanmean prod amax amin aminmax max min argmax argmin any all var std var_mean "
     "std_mean norm linalg_vector_norm count_nonzero cumsum cumprod cummax cummin histc "
     "choose_qparams choose_qparams_symmetric adaptive_avg_pool1d adaptive_avg_pool2d "
     "adaptive_avg_pool3d _adaptive_avg_pool2d _adaptive_avg_pool3d adaptive_max_pool1d "
     "adaptive_max_pool2d adaptive_max_pool3d"},
    {CK_REDUCE, 4, NULL, NULL, "logsumexp logcumsumexp"}, /* max, subtract, exp, sum (log once) */
    {CK_REDUCE, 3, NULL, NULL, "pairwise_distance"},       /* subtract, square, add */
    {CK_REDUCE, 6, NULL, NULL, "cosine_similarity"},       /* a dot and two squared norms */
    {CK_DIST, 3, NULL, NULL, "cdist _cdist_forward _euclidean_dist pdist _pdist_forward"},
    /* norms */
    {CK_NORM, NORM_FLOPS, NULL, NULL,
     "layer_norm native_layer_norm group_norm native_group_norm instance_norm batch_norm "
     "native_batch_norm _native_batch_norm_legit _native_batch_norm_legit_functional "
     "_batch_norm_with_update _batch_norm_with_update_functional"},
    {CK_NORM, NORM_APPLY_FLOPS, NULL, NULL, "_native_batch_norm_legit_no_training _batch_norm_no_update"},
    {CK_NORM, 4, NULL, NULL, "rms_norm"}, /* square, sum, scale, weight */
    /* matrix products */
    {CK_GEMM, 0, "self", NULL, "mm bmm matmul linalg_matmul mv dot vdot"},
    {CK_GEMM, 0, "mat1", "self", "addmm"},
    {CK_GEMM, 0, "batch1", "self", "baddbmm"},
    {CK_GEMM, 1, "batch1", "self", "addbmm"}, /* sums over the batch too */
    {CK_GEMM, 0, "mat", "self", "addmv"},
    {CK_GEMM, 0, "input", "bias", "linear"},
    {CK_TENSORDOT, 0, "self", "other", "tensordot"},
    {CK_EINSUM, 0, NULL, NULL, "einsum"},
    /* convolution */
    {CK_CONV, 0, "input", "bias", "conv1d conv2d conv3d"},
    {CK_CONV, 1, "input", "bias", "conv_transpose1d conv_transpose2d conv_transpose3d"},
    {CK_CONV, 2, "input", "bias", "convolution _convolution"},
    /* attention */
    {CK_SDPA, 0, "query", "key",
     "scaled_dot_product_attention _scaled_dot_product_attention_math "
     "_scaled_dot_product_efficient_attention _scaled_dot_product_flash_attention_for_cpu"},
    /* pooling */
    {CK_POOL, 1, NULL, NULL, "max_pool1d max_pool1d_with_indices avg_pool1d"},
    {CK_POOL, 2, NULL, NULL, "max_pool2d max_pool2d_with_indices avg_pool2d"},
    {CK_POOL, 3, NULL, NULL, "max_pool3d max_pool3d_with_indices avg_pool3d"},
};

/* ---- finding a name's rule -------------------------------------------------
** The names of every rule, split once into one sorted index, searched by
** bsearch: a profile asks for every node of large programs. */

typedef struct NameRef {
    const char *s;
    size_t len;
    const CostRule *rule;
} NameRef;

#define MAX_NAMES 768
static NameRef name_index[MAX_NAMES];
static int nname_index;
static pthread_once_t name_index_once = PTHREAD_ONCE_INIT;

static int nameref_cmp(const void *pa, const void *pb)
{
    const NameRef *a = pa, *b = pb;
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->s, b->s, n);
    if (c)
        return c;
    return (a->len > b->len) - (a->len < b->len);
}

static void build_name_index(void)
{
    for (size_t r = 0; r < sizeof COST_RULES / sizeof COST_RULES[0]; r++) {
        const char *p = COST_RULES[r].names;
        while (*p) {
            while (*p == ' ')
                p++;
            size_t len = strcspn(p, " ");
            if (len && nname_index < MAX_NAMES)
                name_index[nname_index++] = (NameRef){p, len, &COST_RULES[r]};
            p += len;
        }
    }
    ep_qsort(name_index, (size_t)nname_index, sizeof name_index[0], nameref_cmp);
}

static const CostRule *rule_named(const char *s, size_t len)
{
    NameRef key = {s, len, NULL};
    const NameRef *hit = bsearch(&key, name_index, (size_t)nname_index, sizeof name_index[0], nameref_cmp);
    return hit ? hit->rule : NULL;
}

/* The op name of a target: "torch.ops.aten.addmm.default", "aten.addmm" and
** "_operator.add" give "addmm", "addmm", "add"; an in-place form ("relu_")
** falls back to its functional one, a dunder ("__and__") does not. */
static const CostRule *rule_of(const char *target)
{
    if (!target)
        return NULL;
    pthread_once(&name_index_once, build_name_index);
    if (strncmp(target, "torch.ops.", 10) == 0)
        target += 10;
    const char *dot = strchr(target, '.');
    const char *name = dot ? dot + 1 : target;
    size_t len = strcspn(name, ".");
    const CostRule *r = rule_named(name, len);
    if (!r && len >= 2 && name[len - 1] == '_' && name[len - 2] != '_')
        r = rule_named(name, len - 1);
    return r;
}

/* ---- shapes and arguments ------------------------------------------------- */

static double numel(const CostTensor *t)
{
    double n = 1;
    for (int d = 0; d < t->ndim && d < EP_MAX_DIMS; d++)
        n *= (double)t->sizes[d];
    return n;
}

static double tensor_bytes(const CostTensor *t)
{
    return t->dtype >= 0 && t->dtype < DT_COUNT ? numel(t) * dtype_size(t->dtype) : 0;
}

static int64_t last_dim(const CostTensor *t)
{
    return t->ndim > 0 && t->ndim <= EP_MAX_DIMS ? t->sizes[t->ndim - 1] : 1;
}

/* The tensor input that came from schema argument name, or NULL. */
static const CostTensor *input_named(const CostTensor *in, int nin, const char *name)
{
    for (int i = 0; name && i < nin; i++)
        if (in[i].arg && strcmp(in[i].arg, name) == 0)
            return &in[i];
    return NULL;
}

static const Arg *literal_arg(const Node *n, const char *name)
{
    for (int i = 0; i < n->ninputs; i++)
        if (n->inputs[i].name && strcmp(n->inputs[i].name, name) == 0)
            return &n->inputs[i].arg;
    return NULL;
}

/* A bool argument written as a literal, else dflt. */
static bool literal_bool(const Node *n, const char *name, bool dflt)
{
    const Arg *a = literal_arg(n, name);
    return a && a->kind == ARG_BOOL && a->lit.kind == V_BOOL ? a->lit.b : dflt;
}

/* An int[] (or int) argument of literals into v (at most max); the count,
** or -1 when absent or symbolic. */
static int literal_ints(const Node *n, const char *name, int64_t *v, int max)
{
    const Arg *a = literal_arg(n, name);
    if (!a)
        return -1;
    if (a->kind == ARG_INT) {
        v[0] = a->lit.i;
        return 1;
    }
    if (a->kind != ARG_INTS && a->kind != ARG_SYM_INTS)
        return -1;
    if (a->n > max)
        return -1;
    for (int i = 0; i < a->n; i++) {
        if (a->items[i].kind != ARG_INT)
            return -1;
        v[i] = a->items[i].lit.i;
    }
    return a->n;
}

/* ---- the rules' arithmetic ------------------------------------------------ */

/* 2 * out * K (+ out for a bias). */
static bool gemm_flops(const CostRule *r, const CostTensor *in, int nin, double out, double *flops)
{
    const CostTensor *a = input_named(in, nin, r->a);
    if (!a || a->ndim == 0)
        return false;
    double k = (double)last_dim(a);
    if (r->per == 1 && a->ndim >= 2) /* addbmm: [B, M, K] summed over B */
        k = a->sizes[a->ndim - 2] ? numel(a) / (double)a->sizes[a->ndim - 2] : 0;
    *flops = 2 * out * k + (input_named(in, nin, r->b) ? out : 0);
    return true;
}

/* Weight [Cout, Cin/groups, k...] (transposed: [Cin, Cout/groups, k...]):
** each output (transposed: input) element takes weight[0]'s slice of
** multiply-adds, so stride, padding, dilation and groups are all in the
** shapes already; only the direction comes from the arguments. */
static bool conv_flops(const Node *n, const CostRule *r, const CostTensor *in, int nin, double out,
                       double *flops)
{
    const CostTensor *x = input_named(in, nin, r->a), *w = input_named(in, nin, "weight");
    if (!x || !w || w->ndim < 3)
        return false;
    bool transposed = r->per == 1 || (r->per == 2 && literal_bool(n, "transposed", false));
    double per_elem = w->sizes[0] ? numel(w) / (double)w->sizes[0] : 0;
    *flops = 2 * (transposed ? numel(x) : out) * per_elem + (input_named(in, nin, r->b) ? out : 0);
    return true;
}

/* query [..., L, E], key [..., S, E], value [..., S, Ev]. */
static bool sdpa_flops(const CostRule *r, const CostTensor *in, int nin, double *flops)
{
    const CostTensor *q = input_named(in, nin, r->a), *k = input_named(in, nin, r->b),
                     *v = input_named(in, nin, "value");
    if (!q || !k || !v || q->ndim < 2 || k->ndim < 2 || v->ndim < 2)
        return false;
    double l = (double)q->sizes[q->ndim - 2], e = (double)last_dim(q);
    double s = (double)k->sizes[k->ndim - 2], ev = (double)last_dim(v);
    double batch = l * e > 0 ? numel(q) / (l * e) : 0;
    *flops = batch * l * s * (2 * e + 2 * ev + SOFTMAX_FLOPS);
    return true;
}

static bool pool_flops(const Node *n, const CostRule *r, double out, double *flops)
{
    int64_t k[EP_MAX_DIMS];
    int nk = literal_ints(n, "kernel_size", k, EP_MAX_DIMS);
    int dims = (int)r->per;
    if (nk != 1 && nk != dims)
        return false;
    double kernel = 1;
    for (int i = 0; i < dims; i++)
        kernel *= (double)k[nk == 1 ? 0 : i];
    *flops = out * kernel;
    return true;
}

/* Without batch dimensions self = free_a * K, other = K * free_b and
** out = free_a * free_b, so K = sqrt(self * other / out). */
static bool tensordot_flops(const CostRule *r, const CostTensor *in, int nin, double out, double *flops)
{
    const CostTensor *a = input_named(in, nin, r->a), *b = input_named(in, nin, r->b);
    if (!a || !b || out <= 0)
        return false;
    *flops = 2 * out * round(sqrt(numel(a) * numel(b) / out));
    return true;
}

/* "ij,jk->ik": every combination of the index letters is one term; with
** two or more operands each term costs a multiply-add per operand beyond
** the first, with one a single add.  Ellipses have no rule. */
static bool einsum_flops(const Node *n, const CostTensor *in, int nin, double *flops)
{
    const Arg *eq = literal_arg(n, "equation");
    if (!eq || eq->kind != ARG_STRING || eq->lit.kind != V_STR || !eq->lit.s)
        return false;
    int64_t size[128] = {0};
    int op = 0, pos = 0;
    for (const char *p = eq->lit.s; *p && !(p[0] == '-' && p[1] == '>'); p++) {
        unsigned char c = (unsigned char)*p;
        if (c == ',') {
            op++, pos = 0;
        } else if (c == '.' || c >= 128) {
            return false;
        } else if (c != ' ') {
            const CostTensor *t = op < nin && in[op].arg && strcmp(in[op].arg, "tensors") == 0 ? &in[op] : NULL;
            if (!t || pos >= t->ndim)
                return false;
            if (t->sizes[pos] > size[c])
                size[c] = t->sizes[pos];
            pos++;
        }
    }
    double terms = 1;
    for (int c = 0; c < 128; c++)
        if (size[c])
            terms *= (double)size[c];
    *flops = terms * (op >= 1 ? 2.0 * op : 1.0);
    return true;
}

static bool shapes_valid(const CostTensor *t, int n)
{
    for (int i = 0; i < n; i++)
        if (t[i].ndim < 0 || t[i].ndim > EP_MAX_DIMS)
            return false;
    return true;
}

NodeCost cost_node(const Node *n, const CostTensor *in, int nin, const CostTensor *out, int nout)
{
    NodeCost c = {0, 0, false};
    if (!shapes_valid(in, nin) || !shapes_valid(out, nout))
        return c;
    const CostRule *r = rule_of(n ? n->target : NULL);
    if (r && (r->kind == CK_VIEW || (r->kind == CK_DROPOUT && !literal_bool(n, "train", true)))) {
        c.known = true;
        return c;
    }
    for (int i = 0; i < nin; i++)
        c.bytes += tensor_bytes(&in[i]);
    for (int i = 0; i < nout; i++)
        c.bytes += tensor_bytes(&out[i]);
    if (!r)
        return c;
    double out_n = nout > 0 ? numel(&out[0]) : 0;
    double in_n = nin > 0 ? numel(&in[0]) : 0;
    double f = 0;
    bool known = true;
    switch (r->kind) {
    case CK_VIEW:
    case CK_MOVE: break;
    case CK_ELEM:
    case CK_DROPOUT: f = r->per * out_n; break;
    case CK_REDUCE: f = r->per * in_n; break;
    case CK_NORM: f = (literal_bool(n, "training", true) ? r->per : NORM_APPLY_FLOPS) * in_n; break;
    case CK_DIST: f = r->per * out_n * (nin > 0 ? (double)last_dim(&in[0]) : 0); break;
    case CK_GEMM: known = gemm_flops(r, in, nin, out_n, &f); break;
    case CK_CONV: known = conv_flops(n, r, in, nin, out_n, &f); break;
    case CK_SDPA: known = sdpa_flops(r, in, nin, &f); break;
    case CK_POOL: known = pool_flops(n, r, out_n, &f); break;
    case CK_TENSORDOT: known = tensordot_flops(r, in, nin, out_n, &f); break;
    case CK_EINSUM: known = einsum_flops(n, in, nin, &f); break;
    }
    c.known = known;
    c.flops = known ? f : 0;
    return c;
}

/* ---- this machine's peaks ------------------------------------------------- */

/* Best GFLOP/s of repeated n^3 sgemms.  A 512^3 warm-up (thread pool, page
** faults) also says whether 1024^3 fits the budget: the best of at least
** three products over ~0.15 s. */
static double measure_sgemm(void)
{
    const int nmax = 1024;
    float *a = malloc(sizeof(float) * nmax * nmax), *b = malloc(sizeof(float) * nmax * nmax),
          *c = malloc(sizeof(float) * nmax * nmax);
    double best = 0;
    if (a && b && c) {
        for (int i = 0; i < nmax * nmax; i++) {
            a[i] = 1.0f / (float)(i % 7 + 1);
            b[i] = 1.0f / (float)(i % 5 + 1);
            c[i] = 0;
        }
        int n = 512;
        double t0 = ep_monotonic_seconds();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
        double warm = ep_monotonic_seconds() - t0;
        if (warm * 8 < 0.05) /* 1024^3 is 8x the work */
            n = nmax;
        double start = ep_monotonic_seconds();
        for (int rep = 0; rep < 3 || ep_monotonic_seconds() - start < 0.15; rep++) {
            t0 = ep_monotonic_seconds();
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
            double dt = ep_monotonic_seconds() - t0;
            if (dt > 0 && 2.0 * n * n * n / dt / 1e9 > best)
                best = 2.0 * n * n * n / dt / 1e9;
            if (ep_monotonic_seconds() - start > 0.3)
                break;
        }
    }
    free(a);
    free(b);
    free(c);
    return best;
}

/* Best GB/s of a triad x = y + s * z over three 64 MB arrays: 192 MB,
** beyond the cache a core can use on the machines we run on (the L3 size
** sysconf reports on large parts is the whole socket's, a core's slice is
** a fraction of it).  Read + write bytes as STREAM counts them: 3 arrays a
** pass.  One thread, as epdbg's own kernels run. */
static double measure_bandwidth(void)
{
    const size_t n = (64u << 20) / sizeof(float);
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *z = malloc(n * sizeof *z);
    double best = 0;
    if (x && y && z) {
        for (size_t i = 0; i < n; i++) {
            x[i] = 0;
            y[i] = (float)(i & 255);
            z[i] = 1.0f;
        }
        float s = 0.5f;
        for (int rep = 0; rep < 3; rep++) {
            double t0 = ep_monotonic_seconds();
            for (size_t i = 0; i < n; i++)
                x[i] = y[i] + s * z[i];
            double dt = ep_monotonic_seconds() - t0;
            if (dt > 0 && 3.0 * (double)(n * sizeof *x) / dt / 1e9 > best)
                best = 3.0 * (double)(n * sizeof *x) / dt / 1e9;
            s = x[rep * 4099 % n] * 1e-9f + 0.5f; /* keeps every pass needed */
        }
    }
    free(x);
    free(y);
    free(z);
    return best;
}

/* The "model name" of /proc/cpuinfo, else "unknown". */
static void cpu_model(char *buf, size_t cap)
{
    snprintf(buf, cap, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0)
            continue;
        const char *colon = strchr(line, ':');
        if (!colon)
            continue;
        colon++;
        colon += strspn(colon, " \t");
        size_t len = strcspn(colon, "\n");
        if (len)
            snprintf(buf, cap, "%.*s", (int)len, colon);
        break;
    }
    fclose(f);
}

/* The cache key "cpu|coretype|threads" (a tab or newline in a name becomes
** a space, so a line always splits the same way). */
static void peaks_key(const char *cpu, int threads, char *key, size_t cap)
{
    const char *core = openblas_get_corename();
    const char *env = getenv("OPENBLAS_CORETYPE");
    char coretype[96];
    if (env && *env && (!core || strcasecmp(env, core) != 0))
        snprintf(coretype, sizeof coretype, "%s/%s", core ? core : "unknown", env);
    else
        snprintf(coretype, sizeof coretype, "%s", core ? core : "unknown");
    snprintf(key, cap, "%s|%s|%d", cpu, coretype, threads);
    for (char *p = key; *p; p++)
        if (*p == '\t' || *p == '\n')
            *p = ' ';
}

/* $XDG_CACHE_HOME/epdbg (an absolute XDG_CACHE_HOME; the spec ignores a
** relative one), else $HOME/.cache/epdbg; false when neither is set. */
static bool cache_dir(char *buf, size_t cap)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int len;
    if (xdg && xdg[0] == '/')
        len = snprintf(buf, cap, "%s/epdbg", xdg);
    else if (home && *home)
        len = snprintf(buf, cap, "%s/.cache/epdbg", home);
    else
        return false;
    return len > 0 && (size_t)len < cap;
}

/* One cache line: "KEY\tGFLOPS\tGBPS\n".  false for anything else: a
** corrupt line is skipped, and dropped when the file is rewritten. */
static bool parse_cache_line(char *line, char **key, double *gflops, double *gbps)
{
    char *tab = strchr(line, '\t');
    if (!tab || tab == line)
        return false;
    *tab = '\0';
    char *end;
    errno = 0;
    *gflops = strtod(tab + 1, &end);
    if (end == tab + 1 || *end != '\t')
        return false;
    char *p = end + 1;
    *gbps = strtod(p, &end);
    if (end == p || (*end != '\n' && *end != '\0') || errno)
        return false;
    if (!(isfinite(*gflops) && isfinite(*gbps) && *gflops > 0 && *gbps > 0))
        return false;
    *key = line;
    return true;
}

static bool mkdir_p(const char *path)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp)
        return false;
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
                return false;
            *p = '/';
        }
    return mkdir(tmp, 0755) == 0 || errno == EEXIST;
}

/* Look key up in the cache file; when write is set instead replace (or
** add) its line with the given values, keeping the other valid lines,
** through a temporary file renamed over the old one. */
static bool cache_access(const char *dir, const char *key, bool write, double *gflops, double *gbps)
{
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/machine", dir);
    FILE *in = fopen(path, "r"), *out = NULL;
    if (write) {
        if (!mkdir_p(dir)) {
            if (in)
                fclose(in);
            return false;
        }
        snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
        if (!(out = fopen(tmp, "w"))) {
            if (in)
                fclose(in);
            return false;
        }
        fprintf(out, "# epdbg: this machine's peaks, cpu|coretype|threads<TAB>sgemm GFLOP/s<TAB>GB/s\n");
    }
    bool found = false;
    char line[1024];
    while (in && fgets(line, sizeof line, in)) {
        char *k;
        double f, b;
        if (!parse_cache_line(line, &k, &f, &b))
            continue;
        if (strcmp(k, key) == 0) {
            if (!write) {
                *gflops = f, *gbps = b;
                found = true;
                break;
            }
            continue;
        }
        if (out)
            fprintf(out, "%s\t%.6g\t%.6g\n", k, f, b);
    }
    if (in)
        fclose(in);
    if (!write)
        return found;
    fprintf(out, "%s\t%.6g\t%.6g\n", key, *gflops, *gbps);
    bool ok = fclose(out) == 0;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return false;
    }
    return true;
}

/* v as the cache writes it (%.6g), so a later read gives the same value. */
static double cache_precision(double v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%.6g", v);
    return strtod(buf, NULL);
}

void machine_peaks(int threads, MachinePeaks *out)
{
    memset(out, 0, sizeof *out);
    cpu_model(out->cpu, sizeof out->cpu);
    const char *no = getenv("EPDBG_NO_PEAKS");
    if (no && strcmp(no, "1") == 0)
        return;
    if (threads < 1)
        threads = 1;
    char key[512], dir[4096];
    peaks_key(out->cpu, threads, key, sizeof key);
    bool have_dir = cache_dir(dir, sizeof dir);
    if (have_dir && cache_access(dir, key, false, &out->gflops, &out->gbps)) {
        out->cached = true;
        return;
    }
    int prev = openblas_get_num_threads();
    openblas_set_num_threads(threads);
    out->gflops = measure_sgemm();
    openblas_set_num_threads(prev);
    out->gbps = measure_bandwidth();
    out->gflops = cache_precision(out->gflops);
    out->gbps = cache_precision(out->gbps);
    if (have_dir && out->gflops > 0 && out->gbps > 0)
        cache_access(dir, key, true, &out->gflops, &out->gbps);
}
