/*
** test_vecmath_clones.c -- vecmath's functions give the same bits on every
** x86-64: the library's copy, whichever clone the loader picked for this
** CPU (x86-64-v4 or v3, with the FMA instruction), against the SSE2
** baseline built here from the same source (vecmath.c included with
** VM_CLONES set to plain static functions), where each fused multiply-add
** is libm's fmaf.  A multiply-add the compiler fused on its own in one
** clone and not in another, or a vm_fma that is not exact, shows here.
*/
#include <math.h>
#include <string.h>

#include "interp/ops/vecmath.h"
#include "testutil.h"

/* The baseline: vecmath.c's functions as statics named base_... */
#define VM_CLONES static __attribute__((unused))
#define vm_exp_f32 base_exp_f32
#define vm_log_f32 base_log_f32
#define vm_tanh_f32 base_tanh_f32
#define vm_erf_f32 base_erf_f32
#define vm_expm1_f32 base_expm1_f32
#define vm_log1p_f32 base_log1p_f32
#define vm_sin_f32 base_sin_f32
#define vm_cos_f32 base_cos_f32
#define vm_sigmoid_f32 base_sigmoid_f32
#define vm_silu_f32 base_silu_f32
#define vm_gelu_f32 base_gelu_f32
#define vm_gelu_tanh_f32 base_gelu_tanh_f32
#define vm_mish_f32 base_mish_f32
#define vm_elu_f32 base_elu_f32
#define vm_softplus_f32 base_softplus_f32
#include "interp/ops/vecmath.c"
#undef vm_exp_f32
#undef vm_log_f32
#undef vm_tanh_f32
#undef vm_erf_f32
#undef vm_expm1_f32
#undef vm_log1p_f32
#undef vm_sin_f32
#undef vm_cos_f32
#undef vm_sigmoid_f32
#undef vm_silu_f32
#undef vm_gelu_f32
#undef vm_gelu_tanh_f32
#undef vm_mish_f32
#undef vm_elu_f32
#undef vm_softplus_f32

typedef void (*VmFn)(float *y, const float *x, int64_t n);

static void elu_lib(float *y, const float *x, int64_t n)
{
    static const float coef[3] = {1.5f, 1.0f, 0.75f};
    vm_elu_f32(y, x, n, coef);
}
static void elu_base(float *y, const float *x, int64_t n)
{
    static const float coef[3] = {1.5f, 1.0f, 0.75f};
    base_elu_f32(y, x, n, coef);
}
static void softplus_lib(float *y, const float *x, int64_t n) { vm_softplus_f32(y, x, n, 2.0f, 20.0f); }
static void softplus_base(float *y, const float *x, int64_t n) { base_softplus_f32(y, x, n, 2.0f, 20.0f); }

static const struct {
    const char *name;
    VmFn lib, base;
} PAIRS[] = {
    {"exp", vm_exp_f32, base_exp_f32},
    {"log", vm_log_f32, base_log_f32},
    {"tanh", vm_tanh_f32, base_tanh_f32},
    {"erf", vm_erf_f32, base_erf_f32},
    {"expm1", vm_expm1_f32, base_expm1_f32},
    {"log1p", vm_log1p_f32, base_log1p_f32},
    {"sin", vm_sin_f32, base_sin_f32},
    {"cos", vm_cos_f32, base_cos_f32},
    {"sigmoid", vm_sigmoid_f32, base_sigmoid_f32},
    {"silu", vm_silu_f32, base_silu_f32},
    {"gelu", vm_gelu_f32, base_gelu_f32},
    {"gelu_tanh", vm_gelu_tanh_f32, base_gelu_tanh_f32},
    {"mish", vm_mish_f32, base_mish_f32},
    {"elu", elu_lib, elu_base},
    {"softplus", softplus_lib, softplus_base},
};

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Every 4093rd float32 bit pattern (all signs, exponents, nan payloads,
** denormals), then 2^16 uniform values in [-12, 12] where most
** arguments of a model fall: both copies, bit for bit. */
START_TEST(test_clones_same_bits)
{
    enum { STRIDE = 4093, NSWEEP = (int)(0x100000000ull / STRIDE) + 1, NDENSE = 1 << 16 };
    const int n = NSWEEP + NDENSE;
    float *xs = malloc((size_t)n * sizeof(float));
    float *a = malloc((size_t)n * sizeof(float)), *b = malloc((size_t)n * sizeof(float));
    ck_assert(xs && a && b);
    for (int i = 0; i < NSWEEP; i++) {
        uint32_t u = (uint32_t)((uint64_t)i * STRIDE);
        memcpy(&xs[i], &u, sizeof u);
    }
    uint32_t seed = 7;
    for (int i = 0; i < NDENSE; i++) {
        seed = seed * 1664525u + 1013904223u;
        xs[NSWEEP + i] = ((float)(seed >> 8) / 8388608.0f - 1.0f) * 12.0f;
    }
    const int k = _i;
    PAIRS[k].lib(a, xs, n);
    PAIRS[k].base(b, xs, n);
    int differ = 0, first = -1;
    for (int i = 0; i < n; i++)
        if (bits_of(a[i]) != bits_of(b[i]) && !(a[i] != a[i] && b[i] != b[i])) {
            if (first < 0)
                first = i;
            differ++;
        }
    if (differ)
        ck_abort_msg("%s: %d of %d values differ between this CPU's clone and the baseline; first %s(%a) = %a vs %a",
                     PAIRS[k].name, differ, n, PAIRS[k].name, xs[first], a[first], b[first]);
    free(xs);
    free(a);
    free(b);
}
END_TEST

Suite *suite_vecmath_clones(void)
{
    Suite *s = suite_create("vecmath_clones");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_clones_same_bits, 0, (int)(sizeof PAIRS / sizeof PAIRS[0]));
    suite_add_tcase(s, tc);
    return s;
}
