/*
** parallel.c -- the worker pool behind ep_parallel_for (parallel.h).
**
** One job at a time: the caller publishes (fn, ctx, n, grain), wakes the
** workers, and takes chunks itself from the same atomic counter; the last
** chunk to finish signals the caller.  Workers sleep on a condition
** variable between jobs, so an idle pool costs nothing.  Jobs are not
** queued: a second thread calling ep_parallel_for while a job runs (the
** TUI's thread does not run kernels) waits for the pool's lock.
*/
#include "parallel.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "ep.h"

#define MAX_THREADS 256

typedef struct Pool {
    pthread_mutex_t lock;     /* held by the caller for a whole job */
    pthread_mutex_t mu;       /* guards the fields below */
    pthread_cond_t wake, done;
    int nworkers;             /* started threads */
    int helpers;              /* how many of them this job uses (threads - 1) */
    uint64_t generation;      /* bumped per job: a worker runs each job once */
    EpChunkFn fn;
    void *ctx;
    int64_t n, grain, nchunks;
    atomic_int_fast64_t next; /* the next chunk to take */
    int64_t finished;         /* chunks done (under mu) */
    int active;               /* workers inside run_chunks (under mu): a new
                              ** job is not published while one is, so none
                              ** takes a chunk number of the next job from the
                              ** counter of the last */
} Pool;

static Pool pool = {.lock = PTHREAD_MUTEX_INITIALIZER, .mu = PTHREAD_MUTEX_INITIALIZER,
                    .wake = PTHREAD_COND_INITIALIZER, .done = PTHREAD_COND_INITIALIZER};
static int threads_wanted; /* 0: not set yet (the machine's cores) */
static _Thread_local int in_chunk;

static int machine_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (int)n;
}

void ep_set_threads(int n)
{
    threads_wanted = n <= 0 ? machine_cores() : n > MAX_THREADS ? MAX_THREADS : n;
}

int ep_threads(void)
{
    if (!threads_wanted)
        threads_wanted = machine_cores();
    return threads_wanted;
}

int ep_in_parallel(void) { return in_chunk; }

/* Take chunks until none is left; returns how many this thread ran. */
static int64_t run_chunks(void)
{
    int64_t ran = 0;
    for (;;) {
        int64_t k = atomic_fetch_add(&pool.next, 1);
        if (k >= pool.nchunks)
            return ran;
        int64_t begin = k * pool.grain, end = begin + pool.grain < pool.n ? begin + pool.grain : pool.n;
        pool.fn(pool.ctx, begin, end);
        ran++;
    }
}

static void *worker_main(void *arg)
{
    int index = (int)(intptr_t)arg;
    in_chunk = 1;
    uint64_t seen = 0;
    pthread_mutex_lock(&pool.mu);
    for (;;) {
        while (pool.generation == seen)
            pthread_cond_wait(&pool.wake, &pool.mu);
        seen = pool.generation;
        if (index >= pool.helpers)
            continue; /* fewer threads wanted now than were started */
        pool.active++;
        pthread_mutex_unlock(&pool.mu);
        int64_t ran = run_chunks();
        pthread_mutex_lock(&pool.mu);
        pool.finished += ran;
        pool.active--;
        pthread_cond_broadcast(&pool.done);
    }
    return NULL;
}

/* Start workers up to want - 1.  Threads are kept when fewer are wanted
** later; those numbered past the job's count sit it out. */
static void grow_pool(int want)
{
    /* workers start with every signal blocked: Ctrl-C, the profiler's
    ** timer and a terminal resize go to the threads that handle them */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    while (pool.nworkers < want - 1) {
        pthread_t t;
        if (pthread_create(&t, NULL, worker_main, (void *)(intptr_t)pool.nworkers) != 0)
            break; /* fewer threads: the caller takes the chunks itself */
        pthread_detach(t);
        pool.nworkers++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void ep_parallel_for(int64_t n, int64_t grain, EpChunkFn fn, void *ctx)
{
    int64_t nchunks = ep_chunks(n, grain);
    if (grain <= 0)
        grain = n;
    int threads = ep_threads();
    if (nchunks == 0)
        return;
    if (threads == 1 || nchunks == 1 || in_chunk) {
        for (int64_t k = 0; k < nchunks; k++)
            fn(ctx, k * grain, k * grain + grain < n ? k * grain + grain : n);
        return;
    }
    pthread_mutex_lock(&pool.lock);
    pthread_mutex_lock(&pool.mu);
    while (pool.active > 0) /* late workers of the last job leave first */
        pthread_cond_wait(&pool.done, &pool.mu);
    grow_pool(threads);
    pool.helpers = threads - 1;
    pool.fn = fn;
    pool.ctx = ctx;
    pool.n = n;
    pool.grain = grain;
    pool.nchunks = nchunks;
    pool.finished = 0;
    atomic_store(&pool.next, 0);
    pool.generation++;
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.mu);

    in_chunk = 1;
    int64_t ran = run_chunks();
    in_chunk = 0;

    pthread_mutex_lock(&pool.mu);
    pool.finished += ran;
    while (pool.finished < pool.nchunks) /* fn and ctx stay valid until then */
        pthread_cond_wait(&pool.done, &pool.mu);
    pthread_mutex_unlock(&pool.mu);
    pthread_mutex_unlock(&pool.lock);
}
