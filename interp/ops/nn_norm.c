/*
** nn_norm.c -- normalisation layers: batch norm in all its spellings
** (batch_norm, native_batch_norm, _native_batch_norm_legit (.default,
** .no_stats), _native_batch_norm_legit_no_training,
** _native_batch_norm_legit_functional), instance_norm, layer_norm /
** native_layer_norm, group_norm / native_group_norm and rms_norm.
**
** Statistics and outputs are computed in double and rounded once to the
** input's dtype (PyTorch accumulates batch-norm statistics in double too and
** layer / group norm in float).  Contiguous float32 layer norm and
** evaluation-mode batch norm take the vectorized paths of reduce_fast.c
** (statistics still in double; the double loops stay the reference).  float16 and bfloat16 inputs may come with
** float32 parameters ("mixed type"); the saved statistics are then float32.
** Training-mode batch norm normalises with the biased variance and updates
** the running variance with the unbiased one:
**   running = momentum * batch + (1 - momentum) * running.
*/
#include "nn.h"

#include <math.h>
#include <string.h>

#include "reduce_fast.h"

/* ---- shared checks ------------------------------------------------------------------ */

/* Parameter dtypes: equal to the input's, or float32 beside a float16 /
** bfloat16 input.  *mixed tells which case it is. */
static EpStatus check_params(OpCall *c, const char *kernel, const Tensor *x, Tensor *const *params, int n,
                             bool *mixed)
{
    if (!dtype_is_float(x->dtype))
        return op_fail(c, "\"%s\" not implemented for '%s'", kernel, dtype_c10_name(x->dtype));
    bool low = x->dtype == DT_F16 || x->dtype == DT_BF16;
    *mixed = false;
    for (int i = 0; i < n; i++)
        if (params[i] && params[i]->dtype != x->dtype) {
            if (low && params[i]->dtype == DT_F32)
                *mixed = true;
            else
                return op_fail(c, "expected scalar type %s but found %s", dtype_c10_name(x->dtype),
                               dtype_c10_name(params[i]->dtype));
        }
    if (*mixed)
        for (int i = 0; i < n; i++)
            if (params[i] && params[i]->dtype != DT_F32)
                return op_fail(c, "mixed dtype (CPU): expect parameter to have scalar type of Float");
    return EP_OK;
}

/* Contiguous double copies of optional tensors (NULL stays NULL); false on
** failure with everything released. */
static bool load_f64(OpCall *c, int n, Tensor *const *in, Tensor **out)
{
    for (int i = 0; i < n; i++)
        out[i] = NULL;
    for (int i = 0; i < n; i++)
        if (in[i] && !(out[i] = nn_f64(c, in[i]))) {
            for (int j = 0; j < i; j++)
                tensor_unref(out[j]);
            return false;
        }
    return true;
}

static const double *f64p(const Tensor *t) { return t ? (const double *)tensor_data(t) : NULL; }

static void unref_all(int n, Tensor **t)
{
    for (int i = 0; i < n; i++)
        tensor_unref(t[i]);
}

/* ---- batch norm ------------------------------------------------------------------------ */

typedef struct BnResult {
    Tensor *out;                /* input's shape and dtype */
    Tensor *save_mean, *save_invstd; /* [C] when training, [0] in eval */
    Tensor *new_rm, *new_rv;    /* updated running stats (float64 scratch), or NULL */
} BnResult;

static void bn_release(BnResult *r)
{
    tensor_unref(r->out);
    tensor_unref(r->save_mean);
    tensor_unref(r->save_invstd);
    tensor_unref(r->new_rm);
    tensor_unref(r->new_rv);
    memset(r, 0, sizeof *r);
}

/* Evaluation-mode batch norm of a float32 x (parameters float32 too) as
** PyTorch's CPU kernel computes it, bit for bit with its FMA builds
** (checked against 1.13): per channel in float, invstd = 1 / sqrt(var +
** eps), alpha = invstd * w, beta = b - mean * alpha rounded once; then
** y = x * alpha + beta rounded once, over the pool (reduce_fast.c). */
static EpStatus bn_eval_fast(OpCall *c, Tensor *x, Tensor *w, Tensor *b, Tensor *rm, Tensor *rv, double eps,
                             int64_t N, int64_t C, int64_t L, BnResult *r)
{
    Tensor *in[4] = {w, b, rm, rv}, *d[4];
    if (!load_f64(c, 4, in, d))
        return c->err->code;
    int64_t csz[1] = {2 * C}, zero[1] = {0};
    Tensor *ab = tensor_empty(DT_F32, 1, csz, c->err);
    r->out = ab ? tensor_empty(DT_F32, x->ndim, x->sizes, c->err) : NULL;
    r->save_mean = r->out ? tensor_empty(DT_F32, 1, zero, c->err) : NULL;
    r->save_invstd = r->save_mean ? tensor_empty(DT_F32, 1, zero, c->err) : NULL;
    EpStatus rc = r->save_invstd ? EP_OK : c->err->code ? c->err->code : EP_ERR_EXEC;
    if (!rc) {
        const double *W = f64p(d[0]), *B = f64p(d[1]), *RM = f64p(d[2]), *RV = f64p(d[3]);
        float *alpha = tensor_data(ab), *beta = alpha + C;
        for (int64_t ch = 0; ch < C; ch++) { /* the float32 values, read back from double exactly */
            float invstd = 1.0f / sqrtf((float)RV[ch] + (float)eps);
            alpha[ch] = invstd * (W ? (float)W[ch] : 1.0f);
            beta[ch] = fmaf(-(float)RM[ch], alpha[ch], B ? (float)B[ch] : 0.0f);
        }
        reduce_fast_affine_planes(tensor_data(x), N * C, C, L, alpha, beta, tensor_data(r->out));
    }
    tensor_unref(ab);
    unref_all(4, d);
    if (rc)
        bn_release(r);
    return rc;
}

/* Batch normalisation of x [N, C, ...] over all dims but 1. */
static EpStatus bn_core(OpCall *c, Tensor *x, Tensor *w, Tensor *b, Tensor *rm, Tensor *rv, bool training,
                        double momentum, double eps, bool strict, BnResult *r)
{
    memset(r, 0, sizeof *r);
    if (x->ndim < 2)
        return op_fail(c, "Dimension out of range (expected to be in range of [%d, %d], but got 1)",
                       x->ndim ? -x->ndim : -1, x->ndim ? x->ndim - 1 : 0);
    Tensor *params[4] = {w, b, rm, rv};
    static const char *pnames[4] = {"weight", "bias", "running_mean", "running_var"};
    bool mixed;
    EpStatus rc = check_params(c, "batch_norm", x, params, 4, &mixed);
    if (rc)
        return rc;
    const int64_t N = x->sizes[0], C = x->sizes[1], L = N ? tensor_numel(x) / (N * (C ? C : 1)) : 0;
    /* The composite batch_norm checks the sizes; the native kernels only
    ** read the first C values of each parameter (more are ignored). */
    for (int i = 0; i < 4; i++)
        if (params[i] && (strict ? tensor_numel(params[i]) != C
                                 : (tensor_numel(params[i]) < C || (tensor_numel(params[i]) > C && params[i]->ndim != 1))))
            return op_fail(c, "%s should contain %lld elements not %lld", pnames[i], (long long)C,
                           (long long)tensor_numel(params[i]));
    if (!training && (!rm || !rv))
        return op_fail(c, "running_mean and running_var must be defined in evaluation mode");
    const DType st = mixed ? DT_F32 : x->dtype;
    int64_t csz[1] = {C}, zero[1] = {0};
    if (!training && x->dtype == DT_F32 && !mixed && reduce_fast_enabled(c) && tensor_is_contiguous(x))
        return bn_eval_fast(c, x, w, b, rm, rv, eps, N, C, L, r);
    Tensor *in[5] = {x, w, b, rm, rv}, *d[5];
    if (!load_f64(c, 5, in, d))
        return c->err->code;
    Tensor *mean = tensor_empty(DT_F64, 1, csz, c->err), *invstd = tensor_empty(DT_F64, 1, csz, c->err);
    Tensor *out = tensor_empty(DT_F64, x->ndim, x->sizes, c->err);
    if (!mean || !invstd || !out) {
        rc = c->err->code ? c->err->code : EP_ERR_EXEC;
        goto done;
    }
    const double *X = f64p(d[0]), *W = f64p(d[1]), *B = f64p(d[2]), *RM = f64p(d[3]), *RV = f64p(d[4]);
    double *M = tensor_data(mean), *IS = tensor_data(invstd), *O = tensor_data(out);
    const int64_t n = N * L;
    if (training && (rm || rv)) {
        r->new_rm = rm ? tensor_empty(DT_F64, 1, csz, c->err) : NULL;
        r->new_rv = rv ? tensor_empty(DT_F64, 1, csz, c->err) : NULL;
        if ((rm && !r->new_rm) || (rv && !r->new_rv)) {
            rc = c->err->code;
            goto done;
        }
    }
    for (int64_t ch = 0; ch < C; ch++) {
        double mu, var;
        if (training) {
            double sum = 0, sq = 0;
            for (int64_t i = 0; i < N; i++)
                for (int64_t j = 0; j < L; j++)
                    sum += X[(i * C + ch) * L + j];
            mu = sum / (double)n;
            for (int64_t i = 0; i < N; i++)
                for (int64_t j = 0; j < L; j++) {
                    double t = X[(i * C + ch) * L + j] - mu;
                    sq += t * t;
                }
            var = sq / (double)n;
            if (r->new_rm)
                ((double *)tensor_data(r->new_rm))[ch] = momentum * mu + (1 - momentum) * RM[ch];
            if (r->new_rv)
                ((double *)tensor_data(r->new_rv))[ch] = momentum * (sq / (double)(n - 1)) + (1 - momentum) * RV[ch];
        } else {
            mu = RM[ch];
            var = RV[ch];
        }
        M[ch] = mu;
        IS[ch] = 1.0 / sqrt(var + eps);
        double scale = W ? W[ch] : 1, shift = B ? B[ch] : 0;
        for (int64_t i = 0; i < N; i++)
            for (int64_t j = 0; j < L; j++) {
                int64_t k = (i * C + ch) * L + j;
                O[k] = (X[k] - mu) * IS[ch] * scale + shift;
            }
    }
    r->out = nn_from_f64(c, out, x->dtype);
    out = NULL;
    if (training) {
        r->save_mean = nn_from_f64(c, mean, st);
        r->save_invstd = nn_from_f64(c, invstd, st);
        mean = invstd = NULL;
    } else {
        r->save_mean = tensor_empty(st, 1, zero, c->err);
        r->save_invstd = tensor_empty(st, 1, zero, c->err);
    }
    if (!r->out || !r->save_mean || !r->save_invstd)
        rc = c->err->code ? c->err->code : EP_ERR_EXEC;
done:
    tensor_unref(mean);
    tensor_unref(invstd);
    tensor_unref(out);
    unref_all(5, d);
    if (rc)
        bn_release(r);
    return rc;
}

/* dst[0 .. numel(src)) = src: the running-stat update, which touches only
** the first C values of an oversized 1-D statistic. */
static EpStatus write_head(OpCall *c, Tensor *dst, const Tensor *src)
{
    EpStatus rc = tensor_make_writable(dst, c->err);
    if (rc)
        return rc;
    if (tensor_numel(dst) == tensor_numel(src))
        return tensor_copy_into(dst, src, c->err);
    Tensor *head = tensor_as_strided(dst, 1, src->sizes, dst->strides, dst->offset, c->err);
    if (!head)
        return c->err->code;
    rc = tensor_copy_into(head, src, c->err);
    tensor_unref(head);
    return rc;
}

/* Write the updated running statistics into the caller's tensors (the
** in-place update of batch_norm, native_batch_norm and
** _native_batch_norm_legit). */
static EpStatus bn_update_running(OpCall *c, Tensor *rm, Tensor *rv, const BnResult *r)
{
    EpStatus rc = EP_OK;
    if (r->new_rm && rm)
        rc = write_head(c, rm, r->new_rm);
    if (rc == EP_OK && r->new_rv && rv)
        rc = write_head(c, rv, r->new_rv);
    return rc;
}

/* A copy of running statistic old with the update new (may be NULL) in it:
** the outputs of the functional variants.  NULL on failure. */
static Tensor *updated_copy(OpCall *c, Tensor *old, const Tensor *upd)
{
    Tensor *t = tensor_to_dtype(old, old->dtype, c->err);
    if (t && upd && write_head(c, t, upd) != EP_OK) {
        tensor_unref(t);
        return NULL;
    }
    return t;
}

/* Store (out, save_mean, save_invstd) as outputs 0..2; r is emptied. */
static void bn_outputs3(OpCall *c, BnResult *r)
{
    out_tensor(c, 0, r->out);
    out_tensor(c, 1, r->save_mean);
    out_tensor(c, 2, r->save_invstd);
    r->out = r->save_mean = r->save_invstd = NULL;
}

/* native_batch_norm and _native_batch_norm_legit (input, weight, bias,
** running_mean, running_var, training, momentum, eps): running stats are
** updated in place when training. */
EpStatus k_native_batch_norm(OpCall *c)
{
    Tensor *rm = arg_tensor(c, 3), *rv = arg_tensor(c, 4);
    BnResult r;
    EpStatus rc = bn_core(c, arg_tensor(c, 0), arg_tensor(c, 1), arg_tensor(c, 2), rm, rv, arg_bool(c, 5),
                          arg_float(c, 6), arg_float(c, 7), false, &r);
    if (rc == EP_OK && (rc = bn_update_running(c, rm, rv, &r)) == EP_OK)
        bn_outputs3(c, &r);
    bn_release(&r);
    return rc;
}

/* _native_batch_norm_legit.no_stats(input, weight, bias, training, momentum,
** eps). */
EpStatus k_bn_legit_no_stats(OpCall *c)
{
    BnResult r;
    EpStatus rc = bn_core(c, arg_tensor(c, 0), arg_tensor(c, 1), arg_tensor(c, 2), NULL, NULL, arg_bool(c, 3),
                          arg_float(c, 4), arg_float(c, 5), false, &r);
    if (rc == EP_OK)
        bn_outputs3(c, &r);
    bn_release(&r);
    return rc;
}

/* _native_batch_norm_legit_no_training(input, weight, bias, running_mean,
** running_var, momentum, eps): evaluation mode. */
EpStatus k_bn_legit_no_training(OpCall *c)
{
    BnResult r;
    EpStatus rc = bn_core(c, arg_tensor(c, 0), arg_tensor(c, 1), arg_tensor(c, 2), arg_tensor(c, 3),
                          arg_tensor(c, 4), false, arg_float(c, 5), arg_float(c, 6), false, &r);
    if (rc == EP_OK)
        bn_outputs3(c, &r);
    bn_release(&r);
    return rc;
}

/* _native_batch_norm_legit_functional(input, weight, bias, running_mean,
** running_var, training, momentum, eps) -> (out, save_mean, save_rstd,
** running_mean_out, running_var_out): the update lands in new tensors
** (copies of the old statistics in evaluation mode). */
EpStatus k_bn_legit_functional(OpCall *c)
{
    Tensor *rm = arg_tensor(c, 3), *rv = arg_tensor(c, 4);
    BnResult r;
    EpStatus rc = bn_core(c, arg_tensor(c, 0), arg_tensor(c, 1), arg_tensor(c, 2), rm, rv, arg_bool(c, 5),
                          arg_float(c, 6), arg_float(c, 7), false, &r);
    if (rc)
        return rc;
    Tensor *nrm = updated_copy(c, rm, r.new_rm);
    Tensor *nrv = nrm ? updated_copy(c, rv, r.new_rv) : NULL;
    if (!nrv) {
        tensor_unref(nrm);
        bn_release(&r);
        return c->err->code ? c->err->code : EP_ERR_EXEC;
    }
    bn_outputs3(c, &r);
    out_tensor(c, 3, nrm);
    out_tensor(c, 4, nrv);
    bn_release(&r);
    return EP_OK;
}

/* batch_norm(input, weight, bias, running_mean, running_var, training,
** momentum, eps, cudnn_enabled) -> output; updates the running stats in
** place when training, as the composite PyTorch op does. */
EpStatus k_batch_norm(OpCall *c)
{
    Tensor *x = arg_tensor(c, 0), *rm = arg_tensor(c, 3), *rv = arg_tensor(c, 4);
    BnResult r;
    EpStatus rc = bn_core(c, x, arg_tensor(c, 1), arg_tensor(c, 2), rm, rv, arg_bool(c, 5), arg_float(c, 6),
                          arg_float(c, 7), true, &r);
    if (rc == EP_OK && (rc = bn_update_running(c, rm, rv, &r)) == EP_OK) {
        out_tensor(c, 0, r.out);
        r.out = NULL;
    }
    bn_release(&r);
    return rc;
}

/* The empty uint8 "reserve" output of the _batch_norm_with_update family
** (cuDNN workspace elsewhere, nothing on CPU). */
static Tensor *empty_reserve(OpCall *c)
{
    int64_t zero[1] = {0};
    return tensor_empty(DT_U8, 1, zero, c->err);
}

/* _batch_norm_with_update(input, weight, bias, running_mean!, running_var!,
** momentum, eps) -> (out, save_mean, save_invstd, reserve): training mode,
** running stats updated in place; and _batch_norm_with_update_functional
** -> (..., running_mean_out, running_var_out) with the update in copies;
** _batch_norm_no_update(input, weight, bias, running_mean?, running_var?,
** momentum, eps): evaluation mode. */
EpStatus k_bn_with_update(OpCall *c)
{
    Tensor *rm = arg_tensor(c, 3), *rv = arg_tensor(c, 4);
    const bool training = c->op->id != OP_BATCH_NORM_NO_UPDATE;
    const bool functional = c->op->id == OP_BATCH_NORM_WITH_UPDATE_FUNCTIONAL;
    BnResult r;
    EpStatus rc = bn_core(c, arg_tensor(c, 0), arg_tensor(c, 1), arg_tensor(c, 2), rm, rv, training,
                          arg_float(c, 5), arg_float(c, 6), false, &r);
    if (rc)
        return rc;
    Tensor *reserve = empty_reserve(c), *nrm = NULL, *nrv = NULL;
    if (reserve && functional) {
        nrm = updated_copy(c, rm, r.new_rm);
        nrv = nrm ? updated_copy(c, rv, r.new_rv) : NULL;
    } else if (reserve && training) {
        rc = bn_update_running(c, rm, rv, &r);
    }
    if (!reserve || rc || (functional && !nrv)) {
        tensor_unref(reserve);
        tensor_unref(nrm);
        bn_release(&r);
        return rc ? rc : c->err->code ? c->err->code : EP_ERR_EXEC;
    }
    bn_outputs3(c, &r);
    out_tensor(c, 3, reserve);
    if (functional) {
        out_tensor(c, 4, nrm);
        out_tensor(c, 5, nrv);
    }
    bn_release(&r);
    return EP_OK;
}

/* instance_norm(input, weight, bias, running_mean, running_var,
** use_input_stats, momentum, eps, cudnn_enabled): batch norm of the input
** seen as [1, N*C, ...] with the per-channel parameters repeated N times;
** the running stats become the mean over the batch of the N updates. */
EpStatus k_instance_norm(OpCall *c)
{
    Tensor *x = arg_tensor(c, 0), *w = arg_tensor(c, 1), *b = arg_tensor(c, 2);
    Tensor *rm = arg_tensor(c, 3), *rv = arg_tensor(c, 4);
    bool use_stats = arg_bool(c, 5);
    if (!use_stats && (!rm || !rv))
        return op_fail(c, "Expected running_mean and running_var to be defined when use_input_stats is false");
    if (x->ndim < 2)
        return op_fail(c, "instance_norm expects an input of at least 2 dimensions, got %d", x->ndim);
    const int64_t N = x->sizes[0], C = x->sizes[1];
    Tensor *src[4] = {w, b, rm, rv}, *rep[4] = {NULL, NULL, NULL, NULL};
    Tensor *xv = NULL, *xc = NULL, *out = NULL;
    BnResult r = {0};
    EpStatus rc = EP_OK;
    int64_t nc[1] = {N * C};
    for (int i = 0; i < 4 && rc == EP_OK; i++) {
        if (!src[i])
            continue;
        if (tensor_numel(src[i]) != C) {
            rc = op_fail(c, "%s should contain %lld elements not %lld", i == 0 ? "weight" : i == 1 ? "bias" :
                         i == 2 ? "running_mean" : "running_var", (long long)C, (long long)tensor_numel(src[i]));
            break;
        }
        if (src[i]->ndim != 1) {
            rc = op_fail(c, "instance_norm expects 1-D parameters, got %s", nn_shape(src[i]));
            break;
        }
        rep[i] = tensor_empty(src[i]->dtype, 1, nc, c->err);
        int64_t vsz[2] = {N, C};
        Tensor *v = rep[i] ? nn_reshape_contig(c, rep[i], 2, vsz) : NULL;
        if (!v || tensor_copy_into(v, src[i], c->err) != EP_OK)
            rc = c->err->code ? c->err->code : EP_ERR_EXEC;
        tensor_unref(v);
    }
    if (rc)
        goto done;
    int64_t sz[EP_MAX_DIMS];
    memcpy(sz, x->sizes, (size_t)x->ndim * sizeof *sz);
    sz[0] = 1;
    sz[1] = N * C;
    xc = tensor_contiguous(x, c->err);
    xv = xc ? nn_reshape_contig(c, xc, x->ndim, sz) : NULL;
    if (!xv) {
        rc = c->err->code;
        goto done;
    }
    rc = bn_core(c, xv, rep[0], rep[1], rep[2], rep[3], use_stats, arg_float(c, 6), arg_float(c, 7), true, &r);
    if (rc)
        goto done;
    /* the running stats: mean over the batch of the repeated updates */
    Tensor *news[2] = {r.new_rm, r.new_rv}, *dst[2] = {rm, rv};
    for (int k = 0; k < 2 && rc == EP_OK; k++) {
        if (!news[k] || !dst[k])
            continue;
        int64_t csz[1] = {C};
        Tensor *avg = tensor_zeros(DT_F64, 1, csz, c->err);
        if (!avg) {
            rc = c->err->code;
            break;
        }
        const double *nv = tensor_data(news[k]);
        double *av = tensor_data(avg);
        for (int64_t i = 0; i < N; i++)
            for (int64_t ch = 0; ch < C; ch++)
                av[ch] += nv[i * C + ch];
        for (int64_t ch = 0; ch < C; ch++)
            av[ch] /= (double)N;
        rc = tensor_copy_into(dst[k], avg, c->err);
        tensor_unref(avg);
    }
    if (rc == EP_OK) {
        out = nn_reshape_contig(c, r.out, x->ndim, x->sizes);
        rc = out ? EP_OK : c->err->code;
    }
done:
    unref_all(4, rep);
    tensor_unref(xc);
    tensor_unref(xv);
    bn_release(&r);
    if (rc)
        return rc;
    out_tensor(c, 0, out);
    return EP_OK;
}

/* ---- layer norm ---------------------------------------------------------------------------- */

/* Mean and 1 / sqrt(biased variance + eps) of x[0 .. n-1], two passes in
** double: the statistics layer norm and group norm normalise with. */
static void run_stats(const double *x, int64_t n, double eps, double *mean, double *rstd)
{
    double sum = 0, sq = 0;
    for (int64_t j = 0; j < n; j++)
        sum += x[j];
    double mu = sum / (double)n;
    for (int64_t j = 0; j < n; j++)
        sq += (x[j] - mu) * (x[j] - mu);
    double var = sq / (double)n;
    *mean = mu;
    *rstd = 1.0 / sqrt((var > 0 ? var : 0) + eps);
}

/* The end of layer norm and group norm: out (float64 scratch, stolen) in
** dtype as output 0 and, with want_stats, mean and rstd (float64 scratch,
** stolen) in stat_dtype as outputs 1 and 2; otherwise the statistics are
** dropped. */
static EpStatus norm_outputs(OpCall *c, Tensor *out, DType dtype, Tensor *mean, Tensor *rstd, DType stat_dtype,
                             bool want_stats)
{
    Tensor *o = nn_from_f64(c, out, dtype);
    Tensor *m = want_stats ? nn_from_f64(c, mean, stat_dtype) : (tensor_unref(mean), NULL);
    Tensor *r = want_stats ? nn_from_f64(c, rstd, stat_dtype) : (tensor_unref(rstd), NULL);
    if (!o || (want_stats && (!m || !r))) {
        tensor_unref(o);
        tensor_unref(m);
        tensor_unref(r);
        return c->err->code ? c->err->code : EP_ERR_EXEC;
    }
    out_tensor(c, 0, o);
    if (want_stats) {
        out_tensor(c, 1, m);
        out_tensor(c, 2, r);
    }
    return EP_OK;
}

/* Checks of layer_norm / rms_norm: normalized_shape non-empty, matching the
** input's trailing dims and the parameters' shapes. */
static EpStatus check_norm_shape(OpCall *c, const Tensor *x, int nn, const int64_t *ns, Tensor *const *params,
                                 int np)
{
    char b1[128], b2[128];
    if (nn < 1)
        return op_fail(c, "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                       "element, but got normalized_shape = []");
    for (int i = 0; i < np; i++)
        if (params[i] && !shape_equal(params[i]->ndim, params[i]->sizes, nn, ns))
            return op_fail(c, "Expected %s to be of same shape as normalized_shape, but got %s of shape %s and "
                           "normalized_shape = %s", i ? "bias" : "weight", i ? "bias" : "weight",
                           nn_shape(params[i]), shape_str(nn, ns, b1, sizeof b1));
    if (x->ndim < nn || !shape_equal(nn, x->sizes + x->ndim - nn, nn, ns))
        return op_fail(c, "Given normalized_shape=%s, expected input with shape [*, ...%s], but got input of size%s",
                       shape_str(nn, ns, b1, sizeof b1), shape_str(nn, ns, b2, sizeof b2), nn_shape(x));
    return EP_OK;
}

/* layer norm of a contiguous float32 or bfloat16 x (reduce_fast.c): outer
** rows of inner values, statistics in double, the output in float (for
** bfloat16 rounded once more); bfloat16 parameters widened to float32
** (exact), statistics in stat_dtype. */
static EpStatus layer_norm_fast(OpCall *c, Tensor *x, Tensor *w, Tensor *b, double eps, int nn, int64_t outer,
                                int64_t inner, bool native, DType stat_dtype)
{
    int64_t msz[EP_MAX_DIMS];
    for (int i = 0; i < x->ndim; i++)
        msz[i] = i < x->ndim - nn ? x->sizes[i] : 1;
    Tensor *wf = w ? tensor_as_contiguous_dtype(w, DT_F32, c->err) : NULL;
    Tensor *bf = b ? tensor_as_contiguous_dtype(b, DT_F32, c->err) : NULL;
    Tensor *out = (!w || wf) && (!b || bf) ? tensor_empty(x->dtype, x->ndim, x->sizes, c->err) : NULL;
    Tensor *mean = out ? tensor_empty(DT_F32, x->ndim, msz, c->err) : NULL;
    Tensor *rstd = mean ? tensor_empty(DT_F32, x->ndim, msz, c->err) : NULL;
    if (rstd)
        reduce_fast_layer_norm(tensor_data(x), x->dtype, outer, inner, wf ? tensor_data(wf) : NULL,
                               bf ? tensor_data(bf) : NULL, eps, tensor_data(out), tensor_data(mean),
                               tensor_data(rstd));
    tensor_unref(wf);
    tensor_unref(bf);
    Tensor *m = rstd && native ? tensor_as_contiguous_dtype(mean, stat_dtype, c->err) : NULL;
    Tensor *r = m ? tensor_as_contiguous_dtype(rstd, stat_dtype, c->err) : NULL;
    tensor_unref(mean);
    tensor_unref(rstd);
    if (!out || (native && !r)) {
        tensor_unref(out);
        tensor_unref(m);
        tensor_unref(r);
        return c->err->code ? c->err->code : EP_ERR_EXEC;
    }
    out_tensor(c, 0, out);
    if (native) {
        out_tensor(c, 1, m);
        out_tensor(c, 2, r);
    }
    return EP_OK;
}

/* native_layer_norm(input, normalized_shape, weight, bias, eps) -> (out,
** mean, rstd) and layer_norm(input, normalized_shape, weight, bias, eps,
** cudnn_enable) -> out.  mean and rstd keep the input's leading dims with
** size-1 normalised dims. */
EpStatus k_layer_norm(OpCall *c)
{
    Tensor *x = arg_tensor(c, 0), *w = arg_tensor(c, 2), *b = arg_tensor(c, 3);
    const bool native = c->op->schema->nrets == 3;
    double eps = arg_float(c, 4);
    int64_t ns[EP_MAX_DIMS];
    int nn = arg_int_list(c, 1, ns, EP_MAX_DIMS);
    Tensor *params[2] = {w, b};
    EpStatus rc = check_norm_shape(c, x, nn, ns, params, 2);
    bool mixed;
    if (rc || (rc = check_params(c, "LayerNormKernelImpl", x, params, 2, &mixed)))
        return rc;
    const int64_t inner = shape_numel(nn, ns), outer = inner ? tensor_numel(x) / inner : shape_numel(x->ndim - nn, x->sizes);
    if (((x->dtype == DT_F32 && !mixed) || x->dtype == DT_BF16) && inner > 0 &&
        inner <= reduce_fast_layer_norm_max(x->dtype) && reduce_fast_enabled(c) && tensor_is_contiguous(x))
        return layer_norm_fast(c, x, w, b, eps, nn, outer, inner, native, mixed ? DT_F32 : x->dtype);
    Tensor *in[3] = {x, w, b}, *d[3];
    if (!load_f64(c, 3, in, d))
        return c->err->code;
    int64_t msz[EP_MAX_DIMS];
    for (int i = 0; i < x->ndim; i++)
        msz[i] = i < x->ndim - nn ? x->sizes[i] : 1;
    Tensor *out = tensor_empty(DT_F64, x->ndim, x->sizes, c->err);
    Tensor *mean = out ? tensor_empty(DT_F64, x->ndim, msz, c->err) : NULL;
    Tensor *rstd = mean ? tensor_empty(DT_F64, x->ndim, msz, c->err) : NULL;
    if (rstd) {
        const double *X = f64p(d[0]), *W = f64p(d[1]), *B = f64p(d[2]);
        double *O = tensor_data(out), *M = tensor_data(mean), *R = tensor_data(rstd);
        for (int64_t i = 0; i < outer; i++) {
            const double *xr = X + i * inner;
            run_stats(xr, inner, eps, &M[i], &R[i]);
            for (int64_t j = 0; j < inner; j++)
                O[i * inner + j] = (xr[j] - M[i]) * R[i] * (W ? W[j] : 1) + (B ? B[j] : 0);
        }
    }
    unref_all(3, d);
    return norm_outputs(c, out, x->dtype, mean, rstd, mixed ? DT_F32 : x->dtype, native);
}

/* rms_norm(input, normalized_shape, weight=None, eps=None):
**   y = (x * rsqrt(mean(x^2) + eps)).type_as(x), then y * weight,
** as modern PyTorch composes it: the normalised value is rounded to the
** input's dtype before the (promoting) multiply by the weight.  eps
** defaults to the opmath type's machine epsilon. */
EpStatus k_rms_norm(OpCall *c)
{
    Tensor *x = arg_tensor(c, 0), *w = arg_tensor(c, 2);
    int64_t ns[EP_MAX_DIMS];
    int nn = arg_int_list(c, 1, ns, EP_MAX_DIMS);
    Tensor *params[1] = {w};
    EpStatus rc = check_norm_shape(c, x, nn, ns, params, 1);
    if (rc)
        return rc;
    if (!dtype_is_float(x->dtype))
        return op_fail(c, "\"rms_norm\" not implemented for '%s'", dtype_c10_name(x->dtype));
    const bool f64 = x->dtype == DT_F64;
    double eps = arg_is_none(c, 3) ? (f64 ? 2.220446049250313e-16 : 1.1920928955078125e-07) : arg_float(c, 3);
    /* eps is held in the input's own type */
    uint64_t tmp;
    dtype_store_f64(x->dtype, &tmp, eps);
    eps = dtype_load_f64(x->dtype, &tmp);
    const int64_t inner = shape_numel(nn, ns), outer = inner ? tensor_numel(x) / inner : 0;
    Tensor *X = nn_f64(c, x);
    Tensor *Y = X ? tensor_empty(DT_F64, x->ndim, x->sizes, c->err) : NULL;
    if (!Y) {
        tensor_unref(X);
        return c->err->code;
    }
    const double *xp = tensor_data(X);
    double *yp = tensor_data(Y);
    for (int64_t i = 0; i < outer; i++) {
        double sq = 0;
        for (int64_t j = 0; j < inner; j++)
            sq += xp[i * inner + j] * xp[i * inner + j];
        double ms = sq / (double)inner;
        /* mean, + eps and rsqrt are float ops unless the input is double */
        double rr = f64 ? 1.0 / sqrt(ms + eps) : (double)(1.0f / sqrtf((float)ms + (float)eps));
        for (int64_t j = 0; j < inner; j++)
            yp[i * inner + j] = f64 ? xp[i * inner + j] * rr : (double)((float)xp[i * inner + j] * (float)rr);
    }
    tensor_unref(X);
    Tensor *y = nn_from_f64(c, Y, x->dtype);
    if (!y || !w)
        return nn_out(c, 0, y);
    /* y * weight with type promotion, one rounding to the result type */
    Tensor *pair[2] = {y, w};
    DType rt = result_type(2, pair, 0, NULL);
    Tensor *Yd = nn_f64(c, y), *Wd = Yd ? nn_f64(c, w) : NULL;
    Tensor *P = Wd ? tensor_empty(DT_F64, x->ndim, x->sizes, c->err) : NULL;
    if (P) {
        const double *a = tensor_data(Yd), *wv = tensor_data(Wd);
        double *p = tensor_data(P);
        for (int64_t i = 0; i < outer; i++)
            for (int64_t j = 0; j < inner; j++)
                p[i * inner + j] = a[i * inner + j] * wv[j];
    }
    tensor_unref(y);
    tensor_unref(Yd);
    tensor_unref(Wd);
    return nn_out(c, 0, P ? nn_from_f64(c, P, rt) : NULL);
}

/* ---- group norm ------------------------------------------------------------------------------ */

/* Normalise x seen as [N, C, HxW] over (C / G) * HxW values per (n, group). */
static EpStatus gn_core(OpCall *c, Tensor *x, Tensor *w, Tensor *b, int64_t N, int64_t C, int64_t HxW, int64_t G,
                        double eps, bool want_stats)
{
    Tensor *params[2] = {w, b};
    bool mixed;
    EpStatus rc = check_params(c, "GroupNormKernelImpl", x, params, 2, &mixed);
    if (rc)
        return rc;
    if (G <= 0 || C % G)
        return op_fail(c, "Expected number of channels in input to be divisible by num_groups, but got input of "
                       "shape %s and num_groups=%lld", nn_shape(x), (long long)G);
    for (int i = 0; i < 2; i++)
        if (params[i] && (params[i]->ndim != 1 || tensor_numel(params[i]) != C))
            return op_fail(c, "Expected %s to be a vector of size equal to the number of channels in input, but got "
                           "%s of shape %s and input of shape %s", i ? "bias" : "weight", i ? "bias" : "weight",
                           nn_shape(params[i]), nn_shape(x));
    if (N * C * HxW != tensor_numel(x))
        return op_fail(c, "Expected the input to have N*C*HxW = %lld elements, but it has %lld",
                       (long long)(N * C * HxW), (long long)tensor_numel(x));
    int64_t gsz[2] = {N, G};
    if (x->dtype == DT_F32 && !mixed && N * C * HxW > 0 && reduce_fast_enabled(c) && tensor_is_contiguous(x) &&
        (!w || tensor_is_contiguous(w)) && (!b || tensor_is_contiguous(b))) {
        Tensor *out = tensor_empty(DT_F32, x->ndim, x->sizes, c->err);
        Tensor *mean = out ? tensor_empty(DT_F32, 2, gsz, c->err) : NULL;
        Tensor *rstd = mean ? tensor_empty(DT_F32, 2, gsz, c->err) : NULL;
        if (!rstd) {
            tensor_unref(out);
            tensor_unref(mean);
            return c->err->code;
        }
        reduce_fast_group_norm(tensor_data(x), N, C, HxW, G, w ? tensor_data(w) : NULL, b ? tensor_data(b) : NULL,
                               eps, tensor_data(out), tensor_data(mean), tensor_data(rstd));
        out_tensor(c, 0, out);
        if (want_stats) {
            out_tensor(c, 1, mean);
            out_tensor(c, 2, rstd);
        } else {
            tensor_unref(mean);
            tensor_unref(rstd);
        }
        return EP_OK;
    }
    Tensor *in[3] = {x, w, b}, *d[3];
    if (!load_f64(c, 3, in, d))
        return c->err->code;
    Tensor *out = tensor_empty(DT_F64, x->ndim, x->sizes, c->err);
    Tensor *mean = out ? tensor_empty(DT_F64, 2, gsz, c->err) : NULL;
    Tensor *rstd = mean ? tensor_empty(DT_F64, 2, gsz, c->err) : NULL;
    if (rstd) {
        const double *X = f64p(d[0]), *W = f64p(d[1]), *B = f64p(d[2]);
        double *O = tensor_data(out), *M = tensor_data(mean), *R = tensor_data(rstd);
        const int64_t cg = C / G, len = cg * HxW;
        for (int64_t n = 0; n < N; n++)
            for (int64_t g = 0; g < G; g++) {
                double mu, rs;
                run_stats(X + (n * C + g * cg) * HxW, len, eps, &mu, &rs);
                M[n * G + g] = mu;
                R[n * G + g] = rs;
                for (int64_t ci = 0; ci < cg; ci++) {
                    int64_t ch = g * cg + ci;
                    double scale = W ? W[ch] : 1, shift = B ? B[ch] : 0;
                    for (int64_t j = 0; j < HxW; j++) {
                        int64_t k = (n * C + ch) * HxW + j;
                        O[k] = (X[k] - mu) * rs * scale + shift;
                    }
                }
            }
    }
    unref_all(3, d);
    return norm_outputs(c, out, x->dtype, mean, rstd, mixed ? DT_F32 : x->dtype, want_stats);
}

/* group_norm(input, num_groups, weight=None, bias=None, eps=1e-05,
** cudnn_enabled=True). */
EpStatus k_group_norm(OpCall *c)
{
    Tensor *x = arg_tensor(c, 0);
    if (x->ndim < 2)
        return op_fail(c, "Expected at least 2 dimensions for input tensor but received %d", x->ndim);
    const int64_t N = x->sizes[0], C = x->sizes[1];
    const int64_t HxW = shape_numel(x->ndim - 2, x->sizes + 2);
    return gn_core(c, x, arg_tensor(c, 2), arg_tensor(c, 3), N, C, HxW, arg_int(c, 1), arg_float(c, 4), false);
}

/* native_group_norm(input, weight, bias, N, C, HxW, group, eps) -> (out,
** mean [N, group], rstd [N, group]). */
EpStatus k_native_group_norm(OpCall *c)
{
    return gn_core(c, arg_tensor(c, 0), arg_tensor(c, 1), arg_tensor(c, 2), arg_int(c, 3), arg_int(c, 4),
                   arg_int(c, 5), arg_int(c, 6), arg_float(c, 7), true);
}
