/*
** test_parallel.c -- the worker pool: every chunk runs exactly once, the
** chunk boundaries do not depend on the thread count, nested calls run in
** the calling thread, and many jobs in a row neither lose nor repeat one.
*/
#include <stdatomic.h>
#include <string.h>

#include "interp/parallel.h"
#include "testutil.h"

typedef struct Job {
    int64_t n, grain;
    atomic_int *hits;     /* per item: how many times it was visited */
    double *partial;      /* per chunk: its partial sum */
    atomic_int nested_in; /* chunks that saw ep_in_parallel() set */
} Job;

static void visit(void *ctx, int64_t begin, int64_t end)
{
    Job *j = ctx;
    ck_assert(begin < end && end <= j->n);
    ck_assert_int_eq(begin % j->grain, 0); /* boundaries are multiples of the grain */
    double s = 0;
    for (int64_t i = begin; i < end; i++) {
        atomic_fetch_add(&j->hits[i], 1);
        s += 1.0 / (double)(i + 1); /* a sum whose bits depend on the order */
    }
    j->partial[begin / j->grain] = s;
    if (ep_in_parallel())
        atomic_fetch_add(&j->nested_in, 1);
}

/* The sum of 1/(i+1) over n items in chunks of grain, with threads threads,
** folded in chunk order; checks each item was visited once. */
static double chunked_sum(int threads, int64_t n, int64_t grain)
{
    ep_set_threads(threads);
    Job j = {n, grain, calloc((size_t)n, sizeof(atomic_int)), calloc((size_t)ep_chunks(n, grain), sizeof(double)), 0};
    ep_parallel_for(n, grain, visit, &j);
    double s = 0;
    for (int64_t i = 0; i < n; i++)
        ck_assert_int_eq(atomic_load(&j.hits[i]), 1);
    for (int64_t k = 0; k < ep_chunks(n, grain); k++)
        s += j.partial[k];
    free(j.hits);
    free(j.partial);
    return s;
}

START_TEST(test_same_bits_for_any_thread_count)
{
    double one = chunked_sum(1, 100003, 1000);
    for (int t = 2; t <= 8; t *= 2) {
        double many = chunked_sum(t, 100003, 1000);
        ck_assert(memcmp(&one, &many, sizeof one) == 0);
    }
    /* and it is the harmonic number to rounding */
    ck_assert(one > 12.090 && one < 12.091); /* ln n + 0.5772... */
    ep_set_threads(0);
    ck_assert_int_ge(ep_threads(), 1);
}
END_TEST

static void inner(void *ctx, int64_t begin, int64_t end)
{
    atomic_int *count = ctx;
    ck_assert(ep_in_parallel());
    atomic_fetch_add(count, (int)(end - begin));
}

static void outer(void *ctx, int64_t begin, int64_t end)
{
    (void)begin;
    (void)end;
    ep_parallel_for(10, 3, inner, ctx); /* runs here, in this chunk's thread */
}

START_TEST(test_nested_and_many_jobs)
{
    ep_set_threads(4);
    atomic_int count = 0;
    ep_parallel_for(8, 1, outer, &count);
    ck_assert_int_eq(atomic_load(&count), 80);
    ck_assert(!ep_in_parallel());
    /* thousands of small jobs back to back, with the count changing under
    ** them: no chunk lost, none run twice */
    for (int r = 0; r < 3000; r++) {
        ep_set_threads(1 + r % 4);
        double s = chunked_sum(1 + r % 4, 37 + r % 50, 4);
        ck_assert(s > 0);
    }
    ep_set_threads(0);
}
END_TEST

Suite *suite_parallel(void)
{
    Suite *s = suite_create("parallel");
    TCase *tc = tcase_create("pool");
    tcase_set_timeout(tc, 60); /* thousands of jobs; slow under ASan on a busy machine */
    tcase_add_test(tc, test_same_bits_for_any_thread_count);
    tcase_add_test(tc, test_nested_and_many_jobs);
    suite_add_tcase(s, tc);
    return s;
}
