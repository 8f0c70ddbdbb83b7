/*
** nn_einsum.c -- einsum (equation with '...', implicit output, repeated
** labels as diagonals, size-1 broadcasting) and tensordot, as labelled
** contractions: each operand is a tensor whose dims carry labels; labels
** no later operand or the output needs are summed away, and pairs of
** operands are contracted left to right with one batched GEMM each
** (nn_bmm_into), as PyTorch's sum_product does.  Work happens in float64
** (exact for the integer values einsum meets) and the result is rounded
** once to the operands' dtype.
*/
#include "nn.h"

#include <stdlib.h>
#include <string.h>

#define N_LETTERS 52 /* 'A'-'Z' then 'a'-'z', PyTorch's label order */

/* A float64 tensor with one label per dim. */
typedef struct LTensor {
    Tensor *t;
    int n;
    int lab[EP_MAX_DIMS];
} LTensor;

static int letter_id(char ch)
{
    if (ch >= 'A' && ch <= 'Z')
        return ch - 'A';
    if (ch >= 'a' && ch <= 'z')
        return 26 + (ch - 'a');
    return -1;
}

static char id_letter(int id) { return id < 26 ? (char)('A' + id) : (char)('a' + id - 26); }

/* ---- label tensor operations ------------------------------------------------------- */

/* A view of t with dims in order perm. */
static Tensor *permuted(OpCall *c, Tensor *t, const int *perm)
{
    int64_t sz[EP_MAX_DIMS], st[EP_MAX_DIMS];
    for (int i = 0; i < t->ndim; i++) {
        sz[i] = t->sizes[perm[i]];
        st[i] = t->strides[perm[i]];
    }
    return tensor_as_strided(t, t->ndim, sz, st, t->offset, c->err);
}

/* Sum x over the dims with drop[d]; the kept dims stay in order.  Replaces
** x->t (and its labels). */
static EpStatus lt_sum(OpCall *c, LTensor *x, const bool *drop)
{
    int perm[EP_MAX_DIMS], nk = 0, nd = 0;
    for (int i = 0; i < x->n; i++)
        if (!drop[i])
            perm[nk++] = i;
    for (int i = 0; i < x->n; i++)
        if (drop[i])
            perm[nk + nd++] = i;
    if (nd == 0)
        return EP_OK;
    Tensor *pv = permuted(c, x->t, perm);
    Tensor *pc = pv ? tensor_contiguous(pv, c->err) : NULL;
    int64_t ksz[EP_MAX_DIMS];
    for (int i = 0; i < nk; i++)
        ksz[i] = x->t->sizes[perm[i]];
    Tensor *out = pc ? tensor_zeros(DT_F64, nk, ksz, c->err) : NULL;
    tensor_unref(pv);
    if (!out) {
        tensor_unref(pc);
        return c->err->code;
    }
    const int64_t rows = tensor_numel(out), len = rows ? tensor_numel(pc) / rows : 0;
    const double *src = tensor_data(pc);
    double *dst = tensor_data(out);
    for (int64_t r = 0; r < rows; r++) {
        double s = 0;
        for (int64_t j = 0; j < len; j++)
            s += src[r * len + j];
        dst[r] = s;
    }
    tensor_unref(pc);
    int lab[EP_MAX_DIMS];
    for (int i = 0; i < nk; i++)
        lab[i] = x->lab[perm[i]];
    tensor_unref(x->t);
    x->t = out;
    x->n = nk;
    memcpy(x->lab, lab, sizeof lab);
    return EP_OK;
}

/* Merge repeated labels into their diagonal (a strided view). */
static EpStatus lt_diagonals(OpCall *c, LTensor *x)
{
    int64_t sz[EP_MAX_DIMS], st[EP_MAX_DIMS];
    int lab[EP_MAX_DIMS], n = 0;
    for (int i = 0; i < x->n; i++) {
        int j;
        for (j = 0; j < n; j++)
            if (lab[j] == x->lab[i])
                break;
        if (j < n) {
            if (sz[j] != x->t->sizes[i])
                return op_fail(c, "einsum(): subscript %c is repeated for operand but the sizes don't match, %lld != "
                               "%lld", x->lab[i] < N_LETTERS ? id_letter(x->lab[i]) : '.', (long long)sz[j],
                               (long long)x->t->sizes[i]);
            st[j] += x->t->strides[i];
            continue;
        }
        lab[n] = x->lab[i];
        sz[n] = x->t->sizes[i];
        st[n] = x->t->strides[i];
        n++;
    }
    if (n == x->n)
        return EP_OK;
    Tensor *v = tensor_as_strided(x->t, n, sz, st, x->t->offset, c->err);
    if (!v)
        return c->err->code;
    tensor_unref(x->t);
    x->t = v;
    x->n = n;
    memcpy(x->lab, lab, sizeof lab);
    return EP_OK;
}

static int lt_find(const LTensor *x, int label)
{
    for (int i = 0; i < x->n; i++)
        if (x->lab[i] == label)
            return i;
    return -1;
}

/* x with its dims reordered to the label order `order` (each present),
** size-1 dims expanded to `sizes`, as a contiguous tensor viewed as
** [d0 * .. , ...] groups: returned is the contiguous data. */
static Tensor *lt_arrange(OpCall *c, const LTensor *x, int n, const int *order, const int64_t *sizes)
{
    int64_t sz[EP_MAX_DIMS], st[EP_MAX_DIMS];
    for (int i = 0; i < n; i++) {
        int d = lt_find(x, order[i]);
        if (d < 0) { /* absent: a broadcast dim */
            sz[i] = sizes[i];
            st[i] = 0;
        } else {
            sz[i] = sizes[i];
            st[i] = x->t->sizes[d] == sizes[i] ? x->t->strides[d] : 0;
        }
    }
    Tensor *v = tensor_as_strided(x->t, n, sz, st, x->t->offset, c->err);
    Tensor *r = v ? tensor_contiguous(v, c->err) : NULL;
    tensor_unref(v);
    return r;
}

/* Contract a and b into *out over the labels `keep` does not mark: shared
** labels that are kept become batch dims, shared ones that are not are
** summed by the GEMM, the rest stay as rows / columns.  Steals nothing. */
static EpStatus lt_contract(OpCall *c, LTensor *a, LTensor *b, const bool *keep, LTensor *out)
{
    /* a shared, summed label of size 1 on one side: sum the other side's
    ** copy first (PyTorch's sum_product does the same) */
    for (int i = 0; i < a->n; i++) {
        int j = lt_find(b, a->lab[i]);
        if (j < 0 || keep[a->lab[i]] || a->t->sizes[i] == b->t->sizes[j])
            continue;
        LTensor *big = a->t->sizes[i] == 1 ? b : a, *one = big == a ? b : a;
        bool drop[EP_MAX_DIMS] = {false};
        drop[lt_find(big, a->lab[i])] = true;
        int lab = a->lab[i];
        EpStatus rc = lt_sum(c, big, drop);
        if (rc)
            return rc;
        bool drop1[EP_MAX_DIMS] = {false};
        drop1[lt_find(one, lab)] = true; /* a size-1 dim: summing it just drops it */
        if ((rc = lt_sum(c, one, drop1)))
            return rc;
        i = -1; /* labels moved: rescan */
    }
    int bl[EP_MAX_DIMS], ml[EP_MAX_DIMS], kl[EP_MAX_DIMS], nl[EP_MAX_DIMS];
    int64_t bs[EP_MAX_DIMS], ms[EP_MAX_DIMS], ks[EP_MAX_DIMS], ns[EP_MAX_DIMS];
    int nb = 0, nm = 0, nk = 0, nn = 0;
    int64_t B = 1, M = 1, K = 1, N = 1;
    for (int i = 0; i < a->n; i++) {
        int j = lt_find(b, a->lab[i]);
        int64_t s = a->t->sizes[i];
        if (j >= 0) {
            int64_t s2 = b->t->sizes[j];
            if (s != s2 && s != 1 && s2 != 1)
                return op_fail(c, "einsum(): operands do not broadcast with remapped shapes (original->remapped): "
                               "%s and %s", nn_shape(a->t), nn_shape(b->t));
            if (keep[a->lab[i]]) {
                bl[nb] = a->lab[i];
                bs[nb++] = s == 1 ? s2 : s;
                B *= s == 1 ? s2 : s;
            } else {
                kl[nk] = a->lab[i];
                ks[nk++] = s;
                K *= s;
            }
        } else {
            ml[nm] = a->lab[i];
            ms[nm++] = s;
            M *= s;
        }
    }
    for (int j = 0; j < b->n; j++)
        if (lt_find(a, b->lab[j]) < 0) {
            nl[nn] = b->lab[j];
            ns[nn++] = b->t->sizes[j];
            N *= b->t->sizes[j];
        }
    if (nb + nm + nn > EP_MAX_DIMS)
        return op_fail(c, "einsum(): too many dimensions");
    int ao[EP_MAX_DIMS], bo[EP_MAX_DIMS];
    int64_t asz[EP_MAX_DIMS], bsz[EP_MAX_DIMS];
    int na = 0, nbo = 0;
    for (int i = 0; i < nb; i++)
        ao[na] = bl[i], asz[na++] = bs[i], bo[nbo] = bl[i], bsz[nbo++] = bs[i];
    for (int i = 0; i < nm; i++)
        ao[na] = ml[i], asz[na++] = ms[i];
    for (int i = 0; i < nk; i++)
        ao[na] = kl[i], asz[na++] = ks[i], bo[nbo] = kl[i], bsz[nbo++] = ks[i];
    for (int i = 0; i < nn; i++)
        bo[nbo] = nl[i], bsz[nbo++] = ns[i];
    Tensor *A = lt_arrange(c, a, na, ao, asz), *Bt = A ? lt_arrange(c, b, nbo, bo, bsz) : NULL;
    int64_t a3[3] = {B, M, K}, b3[3] = {B, K, N}, o3[3] = {B, M, N};
    Tensor *Av = Bt ? nn_reshape_contig(c, A, 3, a3) : NULL, *Bv = Av ? nn_reshape_contig(c, Bt, 3, b3) : NULL;
    Tensor *O = Bv ? tensor_empty(DT_F64, 3, o3, c->err) : NULL;
    EpStatus rc = O ? nn_bmm_into(c, O, Av, Bv, 1, 0) : (c->err->code ? c->err->code : EP_ERR_EXEC);
    Tensor *res = NULL;
    if (rc == EP_OK) {
        int64_t osz[EP_MAX_DIMS];
        int no = 0;
        for (int i = 0; i < nb; i++)
            out->lab[no] = bl[i], osz[no++] = bs[i];
        for (int i = 0; i < nm; i++)
            out->lab[no] = ml[i], osz[no++] = ms[i];
        for (int i = 0; i < nn; i++)
            out->lab[no] = nl[i], osz[no++] = ns[i];
        res = nn_reshape_contig(c, O, no, osz);
        out->n = no;
        if (!res)
            rc = c->err->code;
    }
    out->t = res;
    tensor_unref(A);
    tensor_unref(Bt);
    tensor_unref(Av);
    tensor_unref(Bv);
    tensor_unref(O);
    return rc;
}

/* Contract n labelled operands (stolen) into the output labels out_lab
** (sizes from the operands, broadcast), returning a float64 tensor. */
static Tensor *contract_all(OpCall *c, int n, LTensor *ops, int nout, const int *out_lab)
{
    EpStatus rc = EP_OK;
    Tensor *res = NULL;
    for (int i = 0; i < n && rc == EP_OK; i++)
        rc = lt_diagonals(c, &ops[i]);
    /* which labels are still needed after operand i: the output's and those
    ** of operands after i */
    for (int i = 0; i < n && rc == EP_OK; i++) {
        bool need[N_LETTERS + EP_MAX_DIMS] = {false};
        for (int k = 0; k < nout; k++)
            need[out_lab[k]] = true;
        for (int j = i + 1; j < n; j++)
            for (int k = 0; k < ops[j].n; k++)
                need[ops[j].lab[k]] = true;
        if (i == 0) {
            bool drop[EP_MAX_DIMS];
            for (int k = 0; k < ops[0].n; k++)
                drop[k] = !need[ops[0].lab[k]];
            rc = lt_sum(c, &ops[0], drop);
            continue;
        }
        /* labels only in this operand and needed by nobody: sum them now */
        bool drop[EP_MAX_DIMS];
        for (int k = 0; k < ops[i].n; k++)
            drop[k] = !need[ops[i].lab[k]] && lt_find(&ops[0], ops[i].lab[k]) < 0;
        if ((rc = lt_sum(c, &ops[i], drop)))
            break;
        LTensor r = {0};
        rc = lt_contract(c, &ops[0], &ops[i], need, &r);
        tensor_unref(ops[0].t);
        tensor_unref(ops[i].t);
        ops[i].t = NULL;
        ops[0] = r;
    }
    if (rc == EP_OK) {
        /* labels of the result not in the output (only possible when they
        ** were kept for nothing) are summed, then the dims are ordered */
        bool drop[EP_MAX_DIMS];
        for (int k = 0; k < ops[0].n; k++) {
            drop[k] = true;
            for (int j = 0; j < nout; j++)
                if (out_lab[j] == ops[0].lab[k])
                    drop[k] = false;
        }
        rc = lt_sum(c, &ops[0], drop);
    }
    if (rc == EP_OK) {
        int64_t sz[EP_MAX_DIMS];
        for (int j = 0; j < nout; j++) {
            int d = lt_find(&ops[0], out_lab[j]);
            sz[j] = d >= 0 ? ops[0].t->sizes[d] : 1;
        }
        res = lt_arrange(c, &ops[0], nout, out_lab, sz);
    }
    for (int i = 0; i < n; i++)
        tensor_unref(ops[i].t);
    return res;
}

/* ---- einsum ----------------------------------------------------------------------------- */

/* What the equation says of one operand. */
typedef struct EinOperand {
    int raw[EP_MAX_DIMS], nraw; /* its subscripts' label ids */
    int ell_pos;                /* label index where its '...' starts, -1: none */
    int ell_dims;               /* dims its ellipsis covers */
} EinOperand;

static EpStatus einsum_with(OpCall *c, const char *eq, const ValueList *tl, int nops, LTensor *ops, EinOperand *eo);

/* einsum(equation, tensors, *, path=None); the contraction path only
** changes the order of the sums, so it is ignored. */
EpStatus k_einsum(OpCall *c)
{
    const ValueList *tl = arg_list(c, 1);
    const int nops = tl ? tl->n : 0;
    if (nops == 0)
        return op_fail(c, "einsum(): must provide at least one operand");
    /* PyTorch takes any number of operands: the tables are sized by them */
    LTensor *ops = ep_xcalloc((size_t)nops, sizeof *ops);
    EinOperand *eo = ep_xcalloc((size_t)nops, sizeof *eo);
    EpStatus rc = einsum_with(c, arg_str(c, 0), tl, nops, ops, eo);
    free(eo);
    free(ops);
    return rc;
}

static EpStatus einsum_with(OpCall *c, const char *eq, const ValueList *tl, int nops, LTensor *ops, EinOperand *eo)
{
    const char *arrow = strstr(eq, "->");
    const char *lhs_end = arrow ? arrow : eq + strlen(eq);
    /* parse the operand subscripts */
    int k = 0;
    for (int i = 0; i < nops; i++)
        eo[i].ell_pos = -1;
    for (const char *p = eq; p < lhs_end; p++) {
        if (*p == ' ')
            continue;
        if (*p == ',') {
            if (++k >= nops)
                return op_fail(c, "einsum(): fewer operands were provided than specified in the equation");
            continue;
        }
        if (*p == '.') {
            if (strncmp(p, "...", 3) != 0 || eo[k].ell_pos >= 0)
                return op_fail(c, "einsum(): found '.' for operand %d that is not part of any ellipsis", k);
            eo[k].ell_pos = eo[k].nraw;
            p += 2;
            continue;
        }
        int id = letter_id(*p);
        if (id < 0)
            return op_fail(c, "einsum(): invalid subscript given at index %d in the equation string, subscripts must "
                           "be in [a-zA-Z]", (int)(p - eq));
        if (eo[k].nraw >= EP_MAX_DIMS)
            return op_fail(c, "einsum(): too many subscripts for operand %d", k);
        eo[k].raw[eo[k].nraw++] = id;
    }
    if (k + 1 < nops)
        return op_fail(c, "einsum(): more operands were provided than specified in the equation");
    /* dims covered by each ellipsis, and the broadcast ellipsis rank */
    int ell_rank = 0;
    DType dt = tl->items[0].t->dtype;
    for (int i = 0; i < nops; i++) {
        Tensor *t = tl->items[i].t;
        if (t->dtype != dt)
            return op_fail(c, "einsum(): expected scalar type %s but found %s", dtype_c10_name(dt), dtype_c10_name(t->dtype));
        if (eo[i].ell_pos < 0 && eo[i].nraw != t->ndim)
            return op_fail(c, "einsum(): the number of subscripts in the equation (%d) does not match the number of "
                           "dimensions (%d) for operand %d and no ellipsis was given", eo[i].nraw, t->ndim, i);
        if (eo[i].ell_pos >= 0 && eo[i].nraw > t->ndim)
            return op_fail(c, "einsum(): the number of subscripts in the equation (%d) is more than the number of "
                           "dimensions (%d) for operand %d", eo[i].nraw, t->ndim, i);
        eo[i].ell_dims = eo[i].ell_pos >= 0 ? t->ndim - eo[i].nraw : 0;
        if (eo[i].ell_dims > ell_rank)
            ell_rank = eo[i].ell_dims;
    }
    if (dt == DT_BOOL)
        return op_fail(c, "\"bmm\" not implemented for 'Bool'");
    /* output labels: ellipsis dims get ids N_LETTERS + j (right-aligned) */
    int out_lab[EP_MAX_DIMS], nout = 0;
    int count[N_LETTERS] = {0};
    for (int i = 0; i < nops; i++)
        for (int j = 0; j < eo[i].nraw; j++)
            count[eo[i].raw[j]]++;
    if (arrow) {
        bool seen[N_LETTERS] = {false}, ell_done = false;
        for (const char *p = arrow + 2; *p; p++) {
            if (*p == ' ')
                continue;
            if (*p == '.') {
                if (strncmp(p, "...", 3) != 0 || ell_done)
                    return op_fail(c, "einsum(): found '.' for output that is not part of any ellipsis (...)");
                for (int j = 0; j < ell_rank; j++)
                    out_lab[nout++] = N_LETTERS + j;
                ell_done = true;
                p += 2;
                continue;
            }
            int id = letter_id(*p);
            if (id < 0)
                return op_fail(c, "einsum(): invalid subscript given at index %d in the equation string, subscripts "
                               "must be in [a-zA-Z]", (int)(p - eq));
            if (seen[id])
                return op_fail(c, "einsum(): output subscript %c appears more than once in the output", *p);
            if (!count[id])
                return op_fail(c, "einsum(): output subscript %c does not appear in the equation for any input "
                               "operand", *p);
            if (nout >= EP_MAX_DIMS)
                return op_fail(c, "einsum(): too many output dimensions");
            seen[id] = true;
            out_lab[nout++] = id;
        }
    } else {
        for (int j = 0; j < ell_rank; j++)
            out_lab[nout++] = N_LETTERS + j;
        for (int id = 0; id < N_LETTERS; id++)
            if (count[id] == 1) {
                if (nout >= EP_MAX_DIMS)
                    return op_fail(c, "einsum(): too many output dimensions");
                out_lab[nout++] = id;
            }
    }
    /* label every operand's dims */
    int made = 0;
    for (int i = 0; i < nops; i++, made++) {
        Tensor *t = tl->items[i].t;
        ops[i].t = nn_f64(c, t);
        if (!ops[i].t)
            break;
        ops[i].n = t->ndim;
        int d = 0;
        for (int j = 0; j < eo[i].nraw; j++) {
            if (j == eo[i].ell_pos)
                for (int e = 0; e < eo[i].ell_dims; e++)
                    ops[i].lab[d++] = N_LETTERS + ell_rank - eo[i].ell_dims + e;
            ops[i].lab[d++] = eo[i].raw[j];
        }
        if (eo[i].ell_pos == eo[i].nraw)
            for (int e = 0; e < eo[i].ell_dims; e++)
                ops[i].lab[d++] = N_LETTERS + ell_rank - eo[i].ell_dims + e;
    }
    if (made < nops) {
        for (int i = 0; i < made; i++)
            tensor_unref(ops[i].t);
        return c->err->code;
    }
    /* sizes of one label must agree or be 1 */
    for (int i = 0; i < nops; i++)
        for (int a = 0; a < ops[i].n; a++)
            for (int j = i + 1; j < nops; j++)
                for (int b = 0; b < ops[j].n; b++)
                    if (ops[i].lab[a] == ops[j].lab[b] && ops[i].t->sizes[a] != ops[j].t->sizes[b] &&
                        ops[i].t->sizes[a] != 1 && ops[j].t->sizes[b] != 1) {
                        for (int q = 0; q < nops; q++)
                            tensor_unref(ops[q].t);
                        return op_fail(c, "einsum(): operands do not broadcast with remapped shapes "
                                       "(original->remapped): %s and %s", nn_shape(tl->items[i].t),
                                       nn_shape(tl->items[j].t));
                    }
    return nn_out(c, 0, nn_from_f64(c, contract_all(c, nops, ops, nout, out_lab), dt));
}

/* tensordot(self, other, dims_self, dims_other): sum over the paired dims;
** the result has self's free dims then other's. */
EpStatus k_tensordot(OpCall *c)
{
    Tensor *a = arg_tensor(c, 0), *b = arg_tensor(c, 1);
    int64_t d1[EP_MAX_DIMS], d2[EP_MAX_DIMS];
    int n1 = arg_int_list(c, 2, d1, EP_MAX_DIMS), n2 = arg_int_list(c, 3, d2, EP_MAX_DIMS);
    if (n1 != n2)
        return op_fail(c, "both dimension lists should have same length");
    if (a->dtype != b->dtype)
        return op_fail(c, "both inputs should have same dtype");
    if (a->dtype == DT_BOOL)
        return op_fail(c, "\"addmm_impl_cpu_\" not implemented for 'Bool'");
    LTensor ops[2] = {{.n = a->ndim}, {.n = b->ndim}};
    int next = 0, out_lab[EP_MAX_DIMS], nout = 0;
    bool used1[EP_MAX_DIMS] = {false}, used2[EP_MAX_DIMS] = {false};
    for (int i = 0; i < a->ndim; i++)
        ops[0].lab[i] = -1;
    for (int i = 0; i < b->ndim; i++)
        ops[1].lab[i] = -1;
    for (int i = 0; i < n1; i++) {
        int x, y;
        if (!dim_wrap(d1[i], a->ndim, &x) || !dim_wrap(d2[i], b->ndim, &y) || a->ndim == 0 || b->ndim == 0)
            return op_fail(c, "Dimension out of range in tensordot");
        if (used1[x] || used2[y])
            return op_fail(c, "dim %lld appears multiple times in the list of dims", (long long)(used1[x] ? d1[i] : d2[i]));
        if (a->sizes[x] != b->sizes[y] && a->sizes[x] != 1 && b->sizes[y] != 1)
            return op_fail(c, "contracted dimensions need to match, but first has size %lld in dim %lld and second has "
                           "size %lld in dim %lld", (long long)a->sizes[x], (long long)d1[i], (long long)b->sizes[y],
                           (long long)d2[i]);
        used1[x] = used2[y] = true;
        ops[0].lab[x] = ops[1].lab[y] = next++;
    }
    for (int i = 0; i < a->ndim; i++)
        if (ops[0].lab[i] < 0)
            ops[0].lab[i] = out_lab[nout++] = next++;
    for (int i = 0; i < b->ndim; i++)
        if (ops[1].lab[i] < 0)
            ops[1].lab[i] = out_lab[nout++] = next++;
    if (next > N_LETTERS + EP_MAX_DIMS)
        return op_fail(c, "tensordot: too many dimensions");
    ops[0].t = nn_f64(c, a);
    ops[1].t = ops[0].t ? nn_f64(c, b) : NULL;
    if (!ops[1].t) {
        tensor_unref(ops[0].t);
        return c->err->code;
    }
    return nn_out(c, 0, nn_from_f64(c, contract_all(c, 2, ops, nout, out_lab), a->dtype));
}
