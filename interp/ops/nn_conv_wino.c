/*
** nn_conv_wino.c -- float32 3x3 convolutions of stride 1 by Winograd's
** minimal filtering F(2x2, 3x3) (Lavin and Gray, "Fast Algorithms for
** Convolutional Neural Networks", 2015).
**
** Why: a 3x3 layer of 64 channels on 56x56 spent 30 % of its time in
** im2col and OpenBLAS's packing, and oneDNN's direct convolution, which
** PyTorch runs, is near the core's peak: no loop around a GEMM of the same
** multiply-adds catches it.  F(2x2, 3x3) computes each 2x2 block of
** outputs from a 4x4 block of inputs with 16 products per channel pair
** instead of 36, so the GEMMs do 2.25 times fewer multiply-adds.
**
** How, per image and group, on blocks of whole rows of output tiles:
**   U[xi][co][ci] = (G w G^T)[xi]        the 3x3 weight as 4x4, once per call
**   V[xi][ci][t]  = (B^T d B)[xi]        the 4x4 input block d of tile t
**   M[xi]         = U[xi] @ V[xi]        16 GEMMs (conv_sgemm), K = channels in
**   out tile t    = A^T M[.][co][t] A    then the bias
** with B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1], G = [1 0 0; .5 .5 .5;
** .5 -.5 .5; 0 0 1], A^T = [1 1 1 0; 0 1 -1 -1].  The transforms are
** additions and halvings in a fixed order, so every output is the same
** bits at any thread count.  Against the direct sum the result differs by
** roundings of the transforms: a few units in the last place of the
** terms, far inside the float32 tolerance of PyTorch's own kernels.
**
** An infinity in the input or the weight would meet another in the
** transforms' differences (inf - inf) and give NaN where the direct sum
** gives inf: such calls take the other paths (conv_wino_fits scans).
*/
#include "nn_conv_int.h"

#include <stdatomic.h>
#include <string.h>

#include "interp/parallel.h"

/* The even and the odd lanes of sixteen floats (two vectors). */
#ifdef __clang__ /* the fuzz build's compiler spells the shuffle its own way */
#define LANES_EVEN(a, b) __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14)
#define LANES_ODD(a, b) __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15)
#else
typedef int32_t V8I __attribute__((vector_size(32)));
#define LANES_EVEN(a, b) __builtin_shuffle(a, b, (V8I){0, 2, 4, 6, 8, 10, 12, 14})
#define LANES_ODD(a, b) __builtin_shuffle(a, b, (V8I){1, 3, 5, 7, 9, 11, 13, 15})
#endif

/* Tiles per block, about: rows of tiles are added to a block up to this
** many.  V and M of a block (16 x 64 channels x 96 tiles, 384 KiB each for
** 64 channels) stay in L2 between the transforms and the GEMMs. */
#define WG_BLOCK_TILES 96
/* multiply-adds a chunk of the pool should hold at least: ~25 us */
#define WG_CHUNK_WORK (INT64_C(1) << 19)

typedef struct WinoJob {
    const ConvGeom *g;
    int64_t TH, TW;   /* output tiles per image: TH rows of TW */
    int64_t ld;       /* tiles per block (the last may have fewer): columns of V and M */
    int64_t nblocks;  /* blocks per image and group */
    int64_t co_part, nparts; /* each block's output channels in nparts parts of co_part */
    int64_t uxs, vxs, mxs; /* U's, V's and M's stride from one xi to the next */
    const float *X, *U, *B; /* U: [group][16][cout_g][cin_g], xi uxs apart */
    const float *W;         /* the weight U is made from */
    float *O;
    atomic_int failed;
} WinoJob;

bool conv_wino_fits(const ConvGeom *g, const float *X, const float *W)
{
    const int64_t cin_g = g->cin / g->groups, cout_g = g->cout / g->groups;
    if (!(g->k[0] == 1 && g->in[0] == 1 && g->out[0] == 1 && g->k[1] == 3 && g->k[2] == 3 && g->stride[1] == 1 &&
          g->stride[2] == 1 && g->dil[1] == 1 && g->dil[2] == 1 && cin_g >= 16 && cout_g >= 16))
        return false;
    /* at least 49 tiles (outputs of 13x13 or 14x14) per image: each
    ** block's GEMMs read all of U, 16/9 the weight's size, and on 512
    ** channels of 7x7 (16 tiles) reading 16 MiB of it per image took
    ** longer than the multiply-adds it saved; 256 channels of 14x14 took
    ** 3.23 ms against im2col's 3.31 at one thread, 2.13 against 2.60 at two */
    if ((g->out[1] + 1) / 2 * ((g->out[2] + 1) / 2) < 49)
        return false;
    return conv_all_finite(W, g->cout * cin_g * 9) && conv_all_finite(X, g->n * g->cin * prod3(g->in));
}

/* U = G w G^T for one 3x3 weight w (rows of 3), written to u[xi * stride]. */
static void wino_weight(const float *w, float *u, int64_t stride)
{
    float gw[4][3]; /* G w */
    for (int c = 0; c < 3; c++) {
        const float a = w[c], b = w[3 + c], d = w[6 + c];
        gw[0][c] = a;
        gw[1][c] = (a + b + d) * 0.5f;
        gw[2][c] = (a - b + d) * 0.5f;
        gw[3][c] = d;
    }
    for (int r = 0; r < 4; r++) {
        const float a = gw[r][0], b = gw[r][1], d = gw[r][2];
        u[(4 * r + 0) * stride] = a;
        u[(4 * r + 1) * stride] = (a + b + d) * 0.5f;
        u[(4 * r + 2) * stride] = (a - b + d) * 0.5f;
        u[(4 * r + 3) * stride] = d;
    }
}

/* The input transform of the tiles [a, b) of tile row ty of one channel:
** v[xi * vstride + tx - a].  ev/od: scratch of 8 rows of TW + 1. */
__attribute__((target_clones("avx2", "default")))
static void wino_input_row(const WinoJob *j, const float *x, int64_t ty, int64_t a, int64_t b, float *v,
                           int64_t vstride, float *ev, float *od)
{
    const ConvGeom *g = j->g;
    const int64_t IH = g->in[1], IW = g->in[2], TW = b - a, n = TW + 1;
    /* the tile row's four input rows, split into even and odd padded
    ** columns: ev[i][tx] = row i at padded column 2 tx, od[i][tx] at 2 tx + 1 */
    for (int i = 0; i < 4; i++) {
        const int64_t ih = 2 * ty - g->pad_lo[1] + i;
        float *e = ev + i * n, *o = od + i * n;
        if (ih < 0 || ih >= IH) {
            memset(e, 0, (size_t)n * sizeof(float));
            memset(o, 0, (size_t)n * sizeof(float));
            continue;
        }
        const float *row = x + ih * IW;
        const int64_t iw0 = 2 * a - g->pad_lo[2]; /* the input column of padded column 2 a */
        int64_t tx = 0;
        for (; tx < n && iw0 + 2 * tx < 0; tx++) { /* the left padding */
            e[tx] = 0.0f;
            o[tx] = iw0 + 2 * tx + 1 >= 0 && iw0 + 2 * tx + 1 < IW ? row[iw0 + 2 * tx + 1] : 0.0f;
        }
        /* eight pairs from sixteen inputs, while they are inside the row */
        for (; tx + 8 <= n && iw0 + 2 * tx + 16 <= IW; tx += 8) {
            const V8F lo = *(const V8F *)(row + iw0 + 2 * tx), hi = *(const V8F *)(row + iw0 + 2 * tx + 8);
            *(V8F *)(e + tx) = LANES_EVEN(lo, hi);
            *(V8F *)(o + tx) = LANES_ODD(lo, hi);
        }
        for (; tx < n; tx++) {
            const int64_t iw = iw0 + 2 * tx;
            e[tx] = iw < IW ? row[iw] : 0.0f;
            o[tx] = iw + 1 < IW ? row[iw + 1] : 0.0f;
        }
    }
    /* down the columns, B^T d: rows d0 - d2, d1 + d2, d2 - d1, d1 - d3 (in place) */
    for (int h = 0; h < 2; h++) {
        float *r = h ? od : ev;
        int64_t i = 0;
        for (; i + 8 <= n; i += 8) {
            const V8F d0 = *(V8F *)(r + i), d1 = *(V8F *)(r + n + i), d2 = *(V8F *)(r + 2 * n + i);
            const V8F d3 = *(V8F *)(r + 3 * n + i);
            *(V8F *)(r + i) = d0 - d2;
            *(V8F *)(r + n + i) = d1 + d2;
            *(V8F *)(r + 2 * n + i) = d2 - d1;
            *(V8F *)(r + 3 * n + i) = d1 - d3;
        }
        for (; i < n; i++) {
            const float d0 = r[i], d1 = r[n + i], d2 = r[2 * n + i], d3 = r[3 * n + i];
            r[i] = d0 - d2;
            r[n + i] = d1 + d2;
            r[2 * n + i] = d2 - d1;
            r[3 * n + i] = d1 - d3;
        }
    }
    /* along the rows, (.) B: a row e0..e3 of a tile is ev[tx], od[tx],
    ** ev[tx + 1], od[tx + 1] */
    for (int i = 0; i < 4; i++) {
        const float *e = ev + i * n, *o = od + i * n;
        float *v0 = v + (4 * i) * vstride, *v1 = v0 + vstride, *v2 = v1 + vstride, *v3 = v2 + vstride;
        int64_t tx = 0;
        for (; tx + 8 <= TW; tx += 8) {
            const V8F e0 = *(const V8F *)(e + tx), e2 = *(const V8F *)(e + tx + 1);
            const V8F e1 = *(const V8F *)(o + tx), e3 = *(const V8F *)(o + tx + 1);
            *(V8F *)(v0 + tx) = e0 - e2;
            *(V8F *)(v1 + tx) = e1 + e2;
            *(V8F *)(v2 + tx) = e2 - e1;
            *(V8F *)(v3 + tx) = e1 - e3;
        }
        for (; tx < TW; tx++) {
            const float e0 = e[tx], e1 = o[tx], e2 = e[tx + 1], e3 = o[tx + 1];
            v0[tx] = e0 - e2;
            v1[tx] = e1 + e2;
            v2[tx] = e2 - e1;
            v3[tx] = e1 - e3;
        }
    }
}

/* The output transform of the tiles [a, b) of tile row ty of one channel:
** m[xi * mstride + tx - a] -> rows 2 ty and 2 ty + 1 of the output plane
** o, plus the bias.  y: scratch of 4 rows of TW. */
__attribute__((target_clones("avx2", "default")))
static void wino_output_row(const WinoJob *j, const float *m, int64_t mstride, float bias, int64_t ty, int64_t a,
                            int64_t b, float *o, float *y)
{
    const int64_t OH = j->g->out[1], OW = j->g->out[2], TW = b - a;
    float *y00 = y, *y01 = y + TW, *y10 = y + 2 * TW, *y11 = y + 3 * TW;
    int64_t tx = 0;
    const V8F vb = {bias, bias, bias, bias, bias, bias, bias, bias};
    for (; tx + 8 <= TW; tx += 8) {
        V8F s0[4], s1[4]; /* A^T M: rows m0 + m1 + m2, m1 - m2 - m3 */
        for (int c = 0; c < 4; c++) {
            const V8F m0 = *(const V8F *)(m + c * mstride + tx), m1 = *(const V8F *)(m + (4 + c) * mstride + tx);
            const V8F m2 = *(const V8F *)(m + (8 + c) * mstride + tx), m3 = *(const V8F *)(m + (12 + c) * mstride + tx);
            s0[c] = m0 + m1 + m2;
            s1[c] = m1 - m2 - m3;
        }
        *(V8F *)(y00 + tx) = s0[0] + s0[1] + s0[2] + vb;
        *(V8F *)(y01 + tx) = s0[1] - s0[2] - s0[3] + vb;
        *(V8F *)(y10 + tx) = s1[0] + s1[1] + s1[2] + vb;
        *(V8F *)(y11 + tx) = s1[1] - s1[2] - s1[3] + vb;
    }
    for (; tx < TW; tx++) {
        float s0[4], s1[4];
        for (int c = 0; c < 4; c++) {
            const float m0 = m[c * mstride + tx], m1 = m[(4 + c) * mstride + tx];
            const float m2 = m[(8 + c) * mstride + tx], m3 = m[(12 + c) * mstride + tx];
            s0[c] = m0 + m1 + m2;
            s1[c] = m1 - m2 - m3;
        }
        y00[tx] = s0[0] + s0[1] + s0[2] + bias;
        y01[tx] = s0[1] - s0[2] - s0[3] + bias;
        y10[tx] = s1[0] + s1[1] + s1[2] + bias;
        y11[tx] = s1[1] - s1[2] - s1[3] + bias;
    }
    /* interleave into the rows; an odd last row or column is dropped */
    for (int r = 0; r < 2 && 2 * ty + r < OH; r++) {
        const float *ye = r ? y10 : y00, *yo = r ? y11 : y01;
        float *orow = o + (2 * ty + r) * OW + 2 * a;
        const int64_t ow_end = OW - 2 * a; /* columns of this row from 2 a on */
        for (tx = 0; tx < TW && 2 * tx + 1 < ow_end; tx++) {
            orow[2 * tx] = ye[tx];
            orow[2 * tx + 1] = yo[tx];
        }
        if (tx < TW && 2 * tx < ow_end)
            orow[2 * tx] = ye[tx];
    }
}

/* item = grp * cout_g + co: that output channel's weights into U */
static void wino_weight_items(void *ctx, int64_t begin, int64_t end)
{
    WinoJob *j = ctx;
    const int64_t cin_g = j->g->cin / j->g->groups, cout_g = j->g->cout / j->g->groups;
    float *U = (float *)j->U;
    for (int64_t it = begin; it < end; it++) {
        const int64_t grp = it / cout_g, co = it % cout_g;
        for (int64_t ci = 0; ci < cin_g; ci++)
            wino_weight(j->W + (it * cin_g + ci) * 9, U + grp * 16 * j->uxs + co * cin_g + ci, j->uxs);
    }
}

static void wino_items(void *ctx, int64_t begin, int64_t end)
{
    WinoJob *j = ctx;
    const ConvGeom *g = j->g;
    const int64_t cin_g = g->cin / g->groups, cout_g = g->cout / g->groups, TW = j->TW;
    const int64_t L_in = prod3(g->in), L_out = prod3(g->out), ld = j->ld;
    /* V, M and the rows' scratch in one block */
    const size_t nv = (size_t)(16 * j->vxs), nm = (size_t)(16 * j->mxs), ns = (size_t)(8 * (TW + 1));
    Storage *mem;
    float *V = conv_scratch((nv + nm + ns) * sizeof(float), &mem);
    if (!V) {
        atomic_store(&j->failed, 1);
        return;
    }
    float *M = V + nv, *scratch = M + nm;
    for (int64_t it = begin; it < end; it++) { /* it = ((n groups + grp) nblocks + block) nparts + part */
        const int64_t part = it % j->nparts, bi = it / j->nparts;
        const int64_t blk = bi % j->nblocks, grp = bi / j->nblocks % g->groups, n = bi / j->nblocks / g->groups;
        const int64_t co0 = part * j->co_part, co1 = co0 + j->co_part < cout_g ? co0 + j->co_part : cout_g;
        const int64_t t0 = blk * ld, t1 = t0 + ld < j->TH * TW ? t0 + ld : j->TH * TW, nt = t1 - t0;
        /* the GEMMs read V's columns up to nt rounded up to SG_NR: defined */
        const int64_t nt_up = (nt + SG_NR - 1) / SG_NR * SG_NR;
        for (int64_t r = 0; r < 16 * cin_g && nt_up > nt; r++)
            memset(V + r / cin_g * j->vxs + r % cin_g * ld + nt, 0, (size_t)(nt_up - nt) * sizeof(float));
        const float *x = j->X + (n * g->cin + grp * cin_g) * L_in;
        /* the block's tiles t0 .. t1 - 1 run over parts of tile rows */
        for (int64_t ci = 0; ci < cin_g; ci++)
            for (int64_t t = t0; t < t1;) {
                const int64_t ty = t / TW, a = t % TW, b = TW < a + t1 - t ? TW : a + t1 - t;
                wino_input_row(j, x + ci * L_in, ty, a, b, V + ci * ld + t - t0, j->vxs, scratch,
                               scratch + 4 * (TW + 1));
                t += b - a;
            }
        const float *U = j->U + grp * 16 * j->uxs;
        for (int xi = 0; xi < 16; xi++)
            conv_sgemm(co1 - co0, nt, cin_g, U + xi * j->uxs + co0 * cin_g, cin_g, V + xi * j->vxs, ld, NULL,
                       M + xi * j->mxs + co0 * ld, ld);
        float *o = j->O + (n * g->cout + grp * cout_g) * L_out;
        for (int64_t co = co0; co < co1; co++)
            for (int64_t t = t0; t < t1;) {
                const int64_t ty = t / TW, a = t % TW, b = TW < a + t1 - t ? TW : a + t1 - t;
                wino_output_row(j, M + co * ld + t - t0, j->mxs, j->B ? j->B[grp * cout_g + co] : 0.0f, ty, a, b,
                                o + co * L_out, scratch);
                t += b - a;
            }
    }
    storage_unref(mem);
}

EpStatus conv_wino(OpCall *c, const ConvGeom *g, const float *X, const float *W, const float *B, float *O)
{
    const int64_t cin_g = g->cin / g->groups, cout_g = g->cout / g->groups;
    WinoJob j = {.g = g, .X = X, .B = B, .O = O};
    atomic_init(&j.failed, 0);
    j.TH = (g->out[1] + 1) / 2;
    j.TW = (g->out[2] + 1) / 2;
    /* blocks of about equal size, a multiple of SG_NR but the last */
    const int64_t tiles = j.TH * j.TW;
    j.nblocks = (tiles + WG_BLOCK_TILES - 1) / WG_BLOCK_TILES;
    /* a call of few blocks is cut finer, to blocks of half the size, so
    ** that both cores have work (smaller blocks run as fast) */
    const int64_t finer = (tiles + WG_BLOCK_TILES / 2 - 1) / (WG_BLOCK_TILES / 2);
    if (g->n * g->groups * j.nblocks < 4)
        j.nblocks = finer < 4 ? finer : 4;
    j.ld = ((tiles + j.nblocks - 1) / j.nblocks + SG_NR - 1) / SG_NR * SG_NR;
    j.nblocks = (tiles + j.ld - 1) / j.ld;
    /* the transforms read and write 16 streams, one per xi: strides of a
    ** multiple of 4 KiB put them all in the same sets of the L1 cache
    ** (3x slower on 56x56x64); 32 floats more spread them */
    j.uxs = cout_g * cin_g + 32;
    j.vxs = cin_g * j.ld + 32;
    j.mxs = cout_g * j.ld + 32;
    Storage *umem; /* through the tensors' allocator: counted against --max-memory */
    float *U = conv_scratch((size_t)(g->groups * 16 * j.uxs) * sizeof(float), &umem);
    if (!U)
        return op_fail(c, "out of memory for a convolution's %lldx%lld Winograd weight", (long long)cout_g,
                       (long long)cin_g);
    /* U[grp][xi][co][ci]: each GEMM's A is one xi's [cout_g, cin_g]; in
    ** parallel by output channels (a fifth of a 256-channel 14x14 layer) */
    j.U = U;
    j.W = W;
    ep_parallel_for(g->groups * cout_g, WG_CHUNK_WORK / 64 / (cin_g > 0 ? cin_g : 1) + 1, wino_weight_items, &j);
    /* still fewer than four blocks (one 16x16 image): their output channels are
    ** cut into parts too, each transforming the block's input again, so
    ** both cores have work; parts of at least 16 channels, a multiple of
    ** the GEMM's block of rows */
    const int64_t blocks = g->n * g->groups * j.nblocks;
    j.nparts = blocks >= 4 ? 1 : (4 + blocks - 1) / blocks;
    j.nparts = j.nparts < cout_g / 16 ? j.nparts : cout_g / 16;
    j.co_part = ((cout_g + j.nparts - 1) / j.nparts + SG_MR - 1) / SG_MR * SG_MR;
    j.nparts = (cout_g + j.co_part - 1) / j.co_part;
    const int64_t work = 16 * j.co_part * cin_g * j.ld;
    ep_parallel_for(blocks * j.nparts, WG_CHUNK_WORK / (work > 0 ? work : 1) + 1, wino_items, &j);
    storage_unref(umem);
    if (atomic_load(&j.failed))
        return op_fail(c, "out of memory for the Winograd transforms of %lld channels", (long long)cin_g);
    return EP_OK;
}
