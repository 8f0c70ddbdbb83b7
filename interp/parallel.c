/*
** parallel.c -- the worker pool behind ep_parallel_for (parallel.h).
**
** One job at a time: the caller publishes (fn, ctx, n, grain), wakes the
** workers, and takes chunks itself from the same atomic counter; the last
** chunk to finish signals the caller.  Between jobs a worker first
** watches the job counter for SPIN_NS (a kernel's next call, a graph's
** next large node, is usually that close), then sleeps on a condition
** variable, so an idle pool costs nothing.  Waking a sleeping thread
** takes 20-70 us, as long as a memory-bound kernel on a million floats
** takes on one core: without the watch the second core arrived too late
** to help.  The caller likewise watches for the last chunk before it
** sleeps.  Jobs are not
** queued: a second thread calling ep_parallel_for while a job runs (the
** TUI's thread does not run kernels) waits for the pool's lock.
*/
#include "parallel.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "ep.h"

#define MAX_THREADS 256
/* How long a worker or the caller watches before sleeping. */
#define SPIN_NS 100000

typedef struct Pool {
    pthread_mutex_t lock;     /* held by the caller for a whole job */
    pthread_mutex_t mu;       /* guards the fields below */
    pthread_cond_t wake, done;
    int nworkers;             /* started threads */
    int helpers;              /* how many of them this job uses (threads - 1) */
    atomic_int_fast64_t generation;  /* bumped per job (under mu): a worker
                              ** runs each job once; read without mu while
                              ** watching */
    EpChunkFn fn;
    void *ctx;
    int64_t n, grain, nchunks;
    atomic_int_fast64_t next; /* the next chunk to take */
    atomic_int_fast64_t finished; /* chunks done (added under mu; read
                              ** without it while the caller watches) */
    int active;               /* workers inside run_chunks (under mu): a new
                              ** job is not published while one is, so none
                              ** takes a chunk number of the next job from the
                              ** counter of the last */
} Pool;

static Pool pool = {.lock = PTHREAD_MUTEX_INITIALIZER, .mu = PTHREAD_MUTEX_INITIALIZER,
                    .wake = PTHREAD_COND_INITIALIZER, .done = PTHREAD_COND_INITIALIZER};
static int threads_wanted; /* 0: not set yet (the machine's cores) */
static atomic_int watch_off;             /* ep_set_pool_watch(0) */
static atomic_int_fast64_t watch_span;   /* ns to watch, set per job */
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

void ep_set_pool_watch(int on) { atomic_store(&watch_off, !on); }

/* How long to watch, decided by the caller of each job: only with a core
** for every thread, since more threads than cores would take turns on a
** core with the one that has work. */
static int64_t job_watch_ns(int threads)
{
    static int cores; /* only the caller, holding pool.lock, reads it */
    if (!cores)
        cores = machine_cores();
    return atomic_load(&watch_off) || threads > cores ? 0 : SPIN_NS;
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Watch *word for up to the job's watch span while it is below limit (a
** worker: the job generation past the last it ran; the caller: the chunks
** finished, below the job's count).  Both only grow. */
static void watch_while_below(atomic_int_fast64_t *word, int64_t limit)
{
    int64_t until = 0, span = atomic_load(&watch_span);
    if (!span)
        return;
    for (unsigned i = 0; atomic_load_explicit(word, memory_order_acquire) < limit; i++) {
        cpu_relax();
        if ((i & 63) == 0) {
            int64_t t = now_ns();
            if (!until)
                until = t + span;
            else if (t >= until)
                return;
        }
    }
}

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
    int64_t seen = 0;
    for (;;) {
        watch_while_below(&pool.generation, seen + 1);
        pthread_mutex_lock(&pool.mu);
        while (atomic_load(&pool.generation) == seen)
            pthread_cond_wait(&pool.wake, &pool.mu);
        /* the job current now: one published after those the watch saw,
        ** if it came late, is as good (no chunk was taken from them) */
        seen = atomic_load(&pool.generation);
        if (index >= pool.helpers) {
            pthread_mutex_unlock(&pool.mu);
            continue; /* fewer threads wanted now than were started */
        }
        pool.active++;
        pthread_mutex_unlock(&pool.mu);
        int64_t ran = run_chunks();
        pthread_mutex_lock(&pool.mu);
        atomic_fetch_add(&pool.finished, ran);
        pool.active--;
        pthread_cond_broadcast(&pool.done);
        pthread_mutex_unlock(&pool.mu);
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
    atomic_store(&watch_span, job_watch_ns(threads));
    pool.helpers = threads - 1;
    pool.fn = fn;
    pool.ctx = ctx;
    pool.n = n;
    pool.grain = grain;
    pool.nchunks = nchunks;
    atomic_store(&pool.finished, 0);
    atomic_store(&pool.next, 0);
    atomic_fetch_add(&pool.generation, 1);
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.mu);

    in_chunk = 1;
    int64_t ran = run_chunks();
    in_chunk = 0;

    atomic_fetch_add(&pool.finished, ran);
    watch_while_below(&pool.finished, nchunks);
    pthread_mutex_lock(&pool.mu);
    while (atomic_load(&pool.finished) < nchunks) /* fn and ctx stay valid until then */
        pthread_cond_wait(&pool.done, &pool.mu);
    pthread_mutex_unlock(&pool.mu);
    pthread_mutex_unlock(&pool.lock);
}
