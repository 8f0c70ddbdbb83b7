/*
** test_vecmath.c -- the vectorized float32 functions (interp/ops/vecmath.c)
** against the libm reference the kernels used before them: ulp bounds over
** a sweep of every 4093rd float32 bit pattern, every float near the places
** where a function changes method, saturates or underflows, and the
** special values exactly; the same bits whatever the array's length,
** offset or aliasing; and the same bits from the cheaper forms blocks of
** small arguments take.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "interp/ops/vecmath.h"
#include "testutil.h"

typedef void (*VmFn)(float *y, const float *x, int64_t n);

/* The reference in double (libm): the value the fast function approximates. */
static double ref_exp(double x) { return exp(x); }
static double ref_log(double x) { return log(x); }
static double ref_tanh(double x) { return tanh(x); }
static double ref_erf(double x) { return erf(x); }
/* exp(-x) in double, except inf where float32's overflows, as in the
** kernels (sigmoid(-89) is 0, not the denormal 2^-128.4) */
static double exp_neg_as_f32(double x)
{
    return isinf(expf((float)-x)) ? INFINITY : exp(-x);
}
static double ref_sigmoid(double x) { return 1 / (1 + exp_neg_as_f32(x)); }
static double ref_silu(double x) { return x / (1 + exp_neg_as_f32(x)); }

static double ref_expm1(double x) { return expm1(x); }
static double ref_log1p(double x) { return log1p(x); }
static double ref_sin(double x) { return sin(x); }
static double ref_cos(double x) { return cos(x); }
/* mish, elu and softplus as PyTorch defines them, in double; elu and
** softplus with their default arguments (alpha 1, beta 1, threshold 20) */
/* mish's exp rounded to float first, as PyTorch's float32 composition
** rounds it: below x = -87.3 it is a denormal with few bits, which no
** float32 mish recovers */
static double ref_mish(double x) { return x * tanh(log1p((float)exp(x))); }
static double ref_elu(double x) { return x > 0 ? x : expm1(x); }
static double ref_softplus(double x) { return x > 20 ? x : log1p(exp(x)); }
static void elu_default(float *y, const float *x, int64_t n)
{
    static const float coef[3] = {1, 1, 1};
    vm_elu_f32(y, x, n, coef);
}
static void softplus_default(float *y, const float *x, int64_t n) { vm_softplus_f32(y, x, n, 1, 20); }

/* The old float32 kernels (libm in float): gelu's 1 + erf cancels for
** negative x in any float32 formula, so gelu is held to these. */
static double ref_gelu(double xd)
{
    float x = (float)xd;
    return x * 0.5f * (1 + erff(x * 0.70710678118654752440f));
}

static double ref_gelu_tanh(double xd)
{
    float x = (float)xd;
    return 0.5f * x * (1 + tanhf(0.79788456080286535588f * (x + 0.044715f * (x * x * x))));
}

typedef struct Func {
    const char *name;
    VmFn fn;
    double (*ref)(double);
    double max_ulp;   /* bound in ulps of the reference rounded to float */
    double abs_per_x; /* plus this times |x| (gelu: the error of 1 + erf) */
} Func;

static const Func FUNCS[] = {
    {"exp", vm_exp_f32, ref_exp, 2, 0},
    {"log", vm_log_f32, ref_log, 2, 0},
    {"tanh", vm_tanh_f32, ref_tanh, 3, 0},
    {"erf", vm_erf_f32, ref_erf, 3, 0},
    {"sigmoid", vm_sigmoid_f32, ref_sigmoid, 3, 0},
    {"silu", vm_silu_f32, ref_silu, 3, 0},
    {"gelu", vm_gelu_f32, ref_gelu, 4, 0x1p-22},
    {"gelu_tanh", vm_gelu_tanh_f32, ref_gelu_tanh, 4, 0x1p-22},
    {"expm1", vm_expm1_f32, ref_expm1, 2, 0},
    {"log1p", vm_log1p_f32, ref_log1p, 2, 0},
    {"sin", vm_sin_f32, ref_sin, 0.501, 0},
    {"cos", vm_cos_f32, ref_cos, 0.501, 0},
    /* plus exp's two denormal ulps below x = -87.3, times x */
    {"mish", vm_mish_f32, ref_mish, 4, 0x1p-148},
    {"elu", elu_default, ref_elu, 2, 0},
    {"softplus", softplus_default, ref_softplus, 2, 0},
};

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t to_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* The float32 ulp at |r| (the denormal spacing below the normal range). */
static double ulp_at(double r)
{
    float f = fabsf((float)r);
    if (isinf(f))
        f = 3.40282347e38f;
    return f < 0x1p-126f ? 0x1p-149 : (double)nextafterf(f, INFINITY) - (double)f;
}

/* Checks fn over xs[0 .. n-1]; the worst error in ulps goes to *worst. */
static void check_values(const Func *f, const float *xs, int64_t n, double *worst)
{
    float *ys = malloc((size_t)n * sizeof(float));
    f->fn(ys, xs, n);
    for (int64_t i = 0; i < n; i++) {
        double x = xs[i], r = f->ref(x), y = ys[i];
        if (isnan(x) || isnan(r)) {
            ck_assert_msg(isnan(y), "%s(%a) = %a, want nan", f->name, x, y);
            continue;
        }
        float rf = (float)r;
        if (isinf(rf) || isinf(y)) {
            /* overflow: inf exactly where the rounded reference is (at
            ** the edge, one ulp either side of FLT_MAX) */
            ck_assert_msg(y == rf || fabs(y - r) <= 2 * ulp_at(r), "%s(%a) = %a, want %a", f->name, x, y, r);
            continue;
        }
        double err = fabs(y - r) / ulp_at(r);
        double bound = f->max_ulp + f->abs_per_x * fabs(x) / ulp_at(r);
        ck_assert_msg(err <= bound, "%s(%a) = %a, reference %a: %.2f ulp > %.2f", f->name, x, y, r, err, bound);
        if (err > *worst && f->abs_per_x == 0)
            *worst = err;
    }
    free(ys);
}

/* Every 4093rd bit pattern (both signs, nan and inf included), and every
** float within 3000 ulps of each edge. */
START_TEST(test_sweep)
{
    const Func *f = &FUNCS[_i];
    enum { STEP = 4093 };
    int64_t n = ((int64_t)1 << 32) / STEP + 1;
    float *xs = malloc((size_t)n * sizeof(float));
    for (int64_t i = 0; i < n; i++)
        xs[i] = from_bits((uint32_t)(i * STEP));
    double worst = 0;
    check_values(f, xs, n, &worst);
    free(xs);

    static const float EDGES[] = {0,        0x1p-126f, 1e-20f,   0x1p-24f, 1e-4f,   0.3466f, 0.625f,
                                  0.7854f,  1,         2.46f,    3.92f,    4,       9,       10,
                                  15,       17.33f,    20,       30,       87.3365f, 88.03f, 88.7228f,
                                  89,       103.97f,   105,      1048576,  1e10f};
    enum { HALF = 3000 };
    xs = malloc(2 * HALF * sizeof(float));
    for (size_t e = 0; e < sizeof EDGES / sizeof EDGES[0]; e++)
        for (int sign = 0; sign < 2; sign++) {
            uint32_t c = to_bits(sign ? -EDGES[e] : EDGES[e]);
            for (int k = 0; k < 2 * HALF; k++) {
                int64_t b = (int64_t)(c & 0x7fffffffu) + k - HALF;
                xs[k] = from_bits((uint32_t)(b < 0 ? 0 : b) | (c & 0x80000000u));
            }
            check_values(f, xs, 2 * HALF, &worst);
        }
    free(xs);
    if (getenv("VM_WORST"))
        fprintf(stderr, "%s: worst %.3f ulp\n", f->name, worst);
    ck_assert_msg(worst <= f->max_ulp, "%s: %.2f ulp", f->name, worst);
}
END_TEST

/* The special values give what the libm kernels gave, bit for bit. */
START_TEST(test_specials)
{
    const float in[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 0x1p-149f, -0x1p-149f, 200, -200};
    enum { N = sizeof in / sizeof in[0] };
    const float want[][N] = {
        /* exp */ {NAN, INFINITY, 0, 1, 1, 1, 1, INFINITY, 0},
        /* log */ {NAN, INFINITY, NAN, -INFINITY, -INFINITY, -0x1.9d1dap+6f, NAN, 0x1.5317a2p+2f, NAN},
        /* tanh */ {NAN, 1, -1, 0.0f, -0.0f, 0x1p-149f, -0x1p-149f, 1, -1},
        /* erf */ {NAN, 1, -1, 0.0f, -0.0f, 0x1p-149f, -0x1p-149f, 1, -1},
        /* sigmoid */ {NAN, 1, 0, 0.5f, 0.5f, 0.5f, 0.5f, 1, 0},
        /* silu: -inf / inf is nan, as x / (1 + exp(-x)) gives */
        {NAN, INFINITY, NAN, 0.0f, -0.0f, 0, -0.0f, 200, -0.0f},
        /* gelu, gelu_tanh */ {NAN, INFINITY, NAN, 0.0f, -0.0f, 0, -0.0f, 200, -0.0f},
        {NAN, INFINITY, NAN, 0.0f, -0.0f, 0, -0.0f, 200, -0.0f},
        /* expm1 */ {NAN, INFINITY, -1, 0.0f, -0.0f, 0x1p-149f, -0x1p-149f, INFINITY, -1},
        /* log1p */ {NAN, INFINITY, NAN, 0.0f, -0.0f, 0x1p-149f, -0x1p-149f, 0x1.536958p+2f, NAN},
        /* sin */ {NAN, NAN, NAN, 0.0f, -0.0f, 0x1p-149f, -0x1p-149f, -0x1.bf20d2p-1f, 0x1.bf20d2p-1f},
        /* cos */ {NAN, NAN, NAN, 1, 1, 1, 1, 0x1.f2e154p-2f, 0x1.f2e154p-2f},
        /* mish: -inf * tanh(log1p(0)) is nan; 2^-149 * 0.6 rounds to 2^-149 */
        {NAN, INFINITY, NAN, 0.0f, -0.0f, 0x1p-149f, -0x1p-149f, 200, -0.0f},
        /* elu */ {NAN, INFINITY, -1, 0.0f, -0.0f, 0x1p-149f, -0x1p-149f, 200, -1},
        /* softplus: log 2 at and near zero */
        {NAN, INFINITY, 0, 0x1.62e43p-1f, 0x1.62e43p-1f, 0x1.62e43p-1f, 0x1.62e43p-1f, 200, 0},
    };
    for (size_t k = 0; k < sizeof FUNCS / sizeof FUNCS[0]; k++) {
        float out[N];
        FUNCS[k].fn(out, in, N);
        for (int i = 0; i < N; i++) {
            if (isnan(want[k][i])) {
                ck_assert_msg(isnan(out[i]), "%s(%a) = %a, want nan", FUNCS[k].name, in[i], out[i]);
                continue;
            }
            ck_assert_msg(to_bits(out[i]) == to_bits(want[k][i]), "%s(%a) = %a, want %a", FUNCS[k].name, in[i],
                          out[i], want[k][i]);
        }
    }
}
END_TEST

/* Where the float32 result rounds to +-1 (erf past 3.92, tanh past 9.01),
** exactly +-1, as libm gives. */
START_TEST(test_saturation)
{
    enum { N = 2000 };
    float xs[N], ys[N];
    for (int i = 0; i < N; i++)
        xs[i] = (i % 2 ? -1 : 1) * (3.93f + (float)i * 0.005f);
    vm_erf_f32(ys, xs, N);
    for (int i = 0; i < N; i++)
        ck_assert_msg(ys[i] == (xs[i] < 0 ? -1 : 1) && erff(xs[i]) == ys[i], "erf(%a) = %a", xs[i], ys[i]);
    for (int i = 0; i < N; i++)
        xs[i] = (i % 2 ? -1 : 1) * (9.02f + (float)i * 0.01f);
    vm_tanh_f32(ys, xs, N);
    for (int i = 0; i < N; i++)
        ck_assert_msg(ys[i] == (xs[i] < 0 ? -1 : 1) && tanhf(xs[i]) == ys[i], "tanh(%a) = %a", xs[i], ys[i]);
}
END_TEST

/* The bits of each result depend on its input only: not on the array's
** length, where it starts, or on writing in place. */
START_TEST(test_split_invariance)
{
    enum { N = 1000 };
    float xs[N], whole[N], part[N], inplace[N];
    for (int i = 0; i < N; i++)
        xs[i] = (float)(i - 500) * 0.0371f;
    for (size_t k = 0; k < sizeof FUNCS / sizeof FUNCS[0]; k++) {
        FUNCS[k].fn(whole, xs, N);
        for (int start = 0; start < N;) {
            int len = 1 + (start * 7) % 13;
            if (start + len > N)
                len = N - start;
            FUNCS[k].fn(part + start, xs + start, len);
            start += len;
        }
        memcpy(inplace, xs, sizeof xs);
        FUNCS[k].fn(inplace, inplace, N);
        ck_assert_msg(memcmp(whole, part, sizeof whole) == 0, "%s: pieces differ", FUNCS[k].name);
        ck_assert_msg(memcmp(whole, inplace, sizeof whole) == 0, "%s: in place differs", FUNCS[k].name);
    }
}
END_TEST

/* Functions that run a cheaper form on blocks (vecmath.c's vmap_split)
** whose every |x| is below lim: that form must give the full form's bits.
** A block holding one nan runs the full form, so each value is computed
** twice, in an all-below block and in a block with a nan elsewhere. */
static const struct {
    const char *name;
    VmFn fn;
    float lim;
} SPLIT[] = {
    {"exp", vm_exp_f32, 87.0f},   {"sigmoid", vm_sigmoid_f32, 87.0f}, {"silu", vm_silu_f32, 87.0f},
    {"erf", vm_erf_f32, 1.0f},    {"gelu", vm_gelu_f32, 1.414f},      {"sin", vm_sin_f32, 1048576.0f},
    {"cos", vm_cos_f32, 1048576.0f},
};

START_TEST(test_block_forms_equal_full)
{
    enum { N = 64 * 512, BLOCK = 64 };
    static float xs[N], fast[N], full0[N], full1[N], nan0[N], nan1[N];
    for (size_t k = 0; k < sizeof SPLIT / sizeof SPLIT[0]; k++) {
        float lim = SPLIT[k].lim, edge = nextafterf(lim, 0.0f);
        uint32_t seed = 12345;
        for (int i = 0; i < N; i++) {
            seed = seed * 1664525u + 1013904223u;
            float u = (float)(seed >> 8) / 8388608.0f - 1.0f;
            /* in (-lim, lim), and every fourth block just past lim, which
            ** must take the full form (a lim set too high would show) */
            xs[i] = (i / BLOCK) % 4 == 3 ? (u < 0 ? -lim : lim) + u * 0.02f * lim : u * edge;
        }
        /* the edges, zeros, denormals and tiny values in some blocks */
        static const float SPECIAL[] = {0.0f, -0.0f, 0x1p-149f, -0x1p-140f, 1e-20f, -3e-8f};
        for (int b = 0; b < N / BLOCK; b++) {
            xs[b * BLOCK + 5] = (b & 1) ? edge : -edge;
            xs[b * BLOCK + 9] = SPECIAL[b % 6];
        }
        memcpy(nan0, xs, sizeof xs);
        memcpy(nan1, xs, sizeof xs);
        for (int b = 0; b < N / BLOCK; b++) {
            nan0[b * BLOCK] = NAN;
            nan1[b * BLOCK + 1] = NAN;
        }
        SPLIT[k].fn(fast, xs, N);
        SPLIT[k].fn(full0, nan0, N);
        SPLIT[k].fn(full1, nan1, N);
        for (int i = 0; i < N; i++) {
            float want = i % BLOCK == 0 ? full1[i] : full0[i];
            ck_assert_msg(to_bits(fast[i]) == to_bits(want), "%s(%a): block form %a, full form %a", SPLIT[k].name,
                          xs[i], fast[i], want);
        }
    }
}
END_TEST

Suite *suite_vecmath(void)
{
    Suite *s = suite_create("vecmath");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_sweep, 0, (int)(sizeof FUNCS / sizeof FUNCS[0]));
    tcase_add_test(tc, test_specials);
    tcase_add_test(tc, test_saturation);
    tcase_add_test(tc, test_split_invariance);
    tcase_add_test(tc, test_block_forms_equal_full);
    suite_add_tcase(s, tc);
    return s;
}
