/*
** parallel.h -- the kernels' one pool of worker threads.
**
** A kernel splits its work into chunks whose boundaries depend only on the
** problem (its size and a grain the kernel chooses), never on how many
** threads there are; the threads take chunks in any order.  A pointwise
** kernel writes disjoint outputs per chunk; a reduction writes each chunk's
** partial result into its own slot and folds the slots in chunk order after
** ep_parallel_for returns.  So every result is bit-identical for any thread
** count, which a debugger needs: values must not change between two runs.
**
** The pool is process-wide, made at the first parallel call and sized by
** ep_set_threads (`--threads N`; default the machine's online cores).  A
** call made from inside a chunk (a kernel calling a kernel) runs its chunks
** in the calling thread.
*/
#ifndef EP_PARALLEL_H
#define EP_PARALLEL_H

#include <stdint.h>

/* The chunk [begin, end) of a parallel loop; ctx is the caller's. */
typedef void (*EpChunkFn)(void *ctx, int64_t begin, int64_t end);

/* Threads for the kernels from now on (n <= 0: the machine's cores).  Also
** what OpenBLAS is given for GEMM.  Call it between runs, not during one. */
void ep_set_threads(int n);
int ep_threads(void); /* the current count, >= 1 */

/* The number of chunks of a loop of n items in chunks of grain: the chunk
** k covers [k * grain, min(n, (k + 1) * grain)). */
static inline int64_t ep_chunks(int64_t n, int64_t grain)
{
    return n <= 0 ? 0 : grain <= 0 ? 1 : (n + grain - 1) / grain;
}

/* Run fn over [0, n) in chunks of grain items (grain <= 0: one chunk),
** spread over the pool; returns when every chunk is done.  With one thread,
** one chunk, or from inside a chunk, the chunks run here in order. */
void ep_parallel_for(int64_t n, int64_t grain, EpChunkFn fn, void *ctx);

/* Whether idle workers watch for the next job for a moment before they
** sleep (on by default; off, they sleep at once).  A sampling
** profile turns it off: a watching worker's CPU time, or the core it
** holds, would make samples land on whatever node runs meanwhile. */
void ep_set_pool_watch(int on);

/* Whether the calling thread is running a chunk (nested calls run serially). */
int ep_in_parallel(void);

#endif
