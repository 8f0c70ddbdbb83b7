/*
** tensor.c -- storages, tensors, copies and the broadcasting iterator.
*/
#include "tensor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>
#include <sys/mman.h>
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#endif

#include "parallel.h"

/* ---- storages ------------------------------------------------------------ */

/* Tensors of a few bytes are made and dropped at every node of a graph of
** small ops, so storages and tensor headers are recycled through free lists
** instead of going back to malloc each time (the dispatch benchmark's cost
** was dominated by malloc/free).  Storage and data share one block. */
#define STORAGE_ALIGN 64
/* From this size on, the pool of large blocks below (64 KiB: a CNN at batch
** 32 makes activations of 64-256 KiB, which glibc mapped afresh, or
** trimmed and grew its heap for, at every node) */
#define LARGE_STORAGE ((size_t)1 << 16)
#define CACHE_CLASSES 5          /* data blocks of 64, 128, 256, 512, 1024 bytes */
/* Recycling would hide use-after-free and leaks from AddressSanitizer, so
** sanitizer builds go to malloc every time. */
#ifdef __SANITIZE_ADDRESS__
#define CACHE_DEPTH 0
#define TENSOR_CACHE_DEPTH 0
#else
#define CACHE_DEPTH 64
#define TENSOR_CACHE_DEPTH 256
#endif

/* Bytes of tensor data epdbg allocated itself (not views of the mapped
** archive), now and at the high-water mark: what "live activations" cost. */
static size_t live_bytes, peak_bytes;
/* Every byte ever allocated and freed: a profiler's per-node deltas. */
static uint64_t allocated_total, freed_total;
/* The high-water mark since tensor_memory_window_reset: a profiler's
** per-node peak, without disturbing peak_bytes. */
static size_t window_peak;

static void account(size_t add, size_t sub)
{
    allocated_total += add;
    freed_total += sub;
    live_bytes = live_bytes + add - sub;
    if (live_bytes > peak_bytes)
        peak_bytes = live_bytes;
    if (live_bytes > window_peak)
        window_peak = live_bytes;
}

void tensor_memory_window_reset(void)
{
    window_peak = live_bytes;
}

size_t tensor_memory_window_peak(void)
{
    return window_peak;
}

void tensor_memory_stats(size_t *live, size_t *peak)
{
    *live = live_bytes;
    *peak = peak_bytes;
}

void tensor_memory_counters(uint64_t *allocated, uint64_t *freed)
{
    *allocated = allocated_total;
    *freed = freed_total;
}

void tensor_memory_reset_peak(void)
{
    peak_bytes = live_bytes;
}

static size_t memory_limit; /* 0: not set yet (the default, computed once) */

static size_t default_limit(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return SIZE_MAX;
    return (size_t)pages / 4 * 3 * (size_t)page;
}

void tensor_set_memory_limit(size_t bytes)
{
    memory_limit = bytes;
}

size_t tensor_memory_limit(void)
{
    if (!memory_limit) {
        size_t env;
        const char *e = getenv("EPDBG_MAX_MEMORY");
        memory_limit = e && tensor_parse_bytes(e, &env) && env ? env : default_limit();
    }
    return memory_limit;
}

const char *tensor_bytes_text(uint64_t n, char *buf, size_t cap)
{
    static const char *const UNIT[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = (double)n;
    int u = 0;
    while (v >= 1024 && u < 5)
        v /= 1024, u++;
    if (u == 0)
        snprintf(buf, cap, "%llu B", (unsigned long long)n);
    else
        snprintf(buf, cap, "%.1f %s", v, UNIT[u]);
    return buf;
}

bool tensor_parse_bytes(const char *s, size_t *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || !(v >= 0) || v > 1e18)
        return false;
    double mul = 1;
    switch (*end) {
    case 'k': case 'K': mul = 1024.0; end++; break;
    case 'm': case 'M': mul = 1024.0 * 1024; end++; break;
    case 'g': case 'G': mul = 1024.0 * 1024 * 1024; end++; break;
    case 't': case 'T': mul = 1024.0 * 1024 * 1024 * 1024; end++; break;
    default: break;
    }
    if (*end == 'i' && end[1] == 'B')
        end += 2;
    else if (*end == 'B')
        end++;
    if (*end || v * mul > (double)SIZE_MAX)
        return false;
    *out = (size_t)(v * mul);
    return true;
}

bool tensor_memory_refused(size_t nbytes, char *buf, size_t cap)
{
    size_t limit = tensor_memory_limit();
    if (nbytes <= limit && live_bytes <= limit - nbytes)
        return false;
    char a[32], b[32], c[32];
    snprintf(buf, cap, "%s more would bring epdbg's tensors to %s, over the memory limit of %s (--max-memory SIZE "
                       "or EPDBG_MAX_MEMORY sets it)",
             tensor_bytes_text(nbytes, a, sizeof a), tensor_bytes_text((uint64_t)live_bytes + nbytes, b, sizeof b),
             tensor_bytes_text(limit, c, sizeof c));
    return true;
}

static Storage *storage_cache[CACHE_CLASSES][CACHE_DEPTH + 1];
static int storage_cached[CACHE_CLASSES];
static Tensor *tensor_cache[TENSOR_CACHE_DEPTH + 1];
static int tensor_cached;

/* The caches, the pool and the byte counts are shared by every thread that
** allocates.  Only the thread that runs the graph allocates, except inside
** a parallel loop, where the pool's workers may too: the lock is taken only
** then, so a graph of small ops pays nothing for it. */
static pthread_mutex_t alloc_mu = PTHREAD_MUTEX_INITIALIZER;

static bool alloc_lock(void)
{
    if (!ep_in_parallel())
        return false;
    pthread_mutex_lock(&alloc_mu);
    return true;
}

static void alloc_unlock(bool locked)
{
    if (locked)
        pthread_mutex_unlock(&alloc_mu);
}

/* ---- the pool of large blocks --------------------------------------------- */

/* Blocks of LARGE_STORAGE bytes and more are anonymous mappings.  Mapping
** a fresh one and unmapping it at its last use made every large kernel pay
** a page fault per 4 KiB of output, most of its time, so a freed block is
** kept and handed to the next request of about its size instead.
**
** Resident memory is the live blocks plus the kept ones.  The pool keeps
** that sum at or under the most the live blocks ever took together (its
** high-water mark) plus POOL_SLACK: a request no kept block fits unmaps the
** oldest kept blocks until the new mapping fits under that, so keeping
** blocks raises the peak a run reaches without the pool by at most
** POOL_SLACK.  The kept bytes are also bounded by POOL_MAX_CACHED and by
** what the memory limit leaves beside the live tensors. */
#define POOL_MAX_CACHED ((size_t)1 << 30)
/* Without slack, a graph whose activations come in several sizes thrashed:
** a 132 KiB request found only a kept 260 KiB block, unmapped it to stay
** under the mark and mapped afresh, and the next 260 KiB request missed in
** turn (the CNN at batch 32: 4 misses and 160 page faults an iteration, at
** 2-3 us each on a VM, 40 % of the run).  TENSOR_POOL_SLACK (tensor.h,
** 4 MiB) lets each size keep its blocks, and is small beside any model's
** weights. */
#define POOL_SLACK TENSOR_POOL_SLACK
/* A kept block serves a request that needs at least 7/8 of it: the bytes
** of it that go unused stay within the budget's headroom. */
#define POOL_FIT(need, len) ((len) >= (need) && (len) - (need) <= (len) / 8)

static struct {
    Storage *newest, *oldest; /* kept blocks, most recently freed first */
    size_t live, cached, high; /* mapped bytes: live blocks, kept blocks, the most live ever */
    size_t nblocks;
    uint64_t hits, misses;
} pool;

static void pool_unlink(Storage *s)
{
    if (s->pool_prev)
        s->pool_prev->pool_next = s->pool_next;
    else
        pool.newest = s->pool_next;
    if (s->pool_next)
        s->pool_next->pool_prev = s->pool_prev;
    else
        pool.oldest = s->pool_prev;
    s->pool_prev = s->pool_next = NULL;
    pool.cached -= s->map_len;
    pool.nblocks--;
}

/* Unmap the oldest kept block. */
static void pool_evict_oldest(void)
{
    Storage *s = pool.oldest;
    pool_unlink(s);
#ifdef __SANITIZE_ADDRESS__
    ASAN_UNPOISON_MEMORY_REGION(s, s->map_len);
#endif
    munmap(s, s->map_len);
}

/* A mapped block of at least len bytes (page-rounded): a kept one that fits,
** else a new mapping once the kept blocks leave room for it. */
static Storage *pool_take(size_t len)
{
    for (Storage *s = pool.newest; s; s = s->pool_next) {
        if (!POOL_FIT(len, s->map_len))
            continue;
        pool_unlink(s);
#ifdef __SANITIZE_ADDRESS__
        ASAN_UNPOISON_MEMORY_REGION(s, s->map_len);
#endif
        pool.hits++;
        return s;
    }
    pool.misses++;
    size_t live = pool.live + len;
    size_t high = live > pool.high ? live : pool.high;
    while (pool.oldest && live + pool.cached > high + POOL_SLACK)
        pool_evict_oldest();
    void *block = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (block == MAP_FAILED && pool.oldest) { /* the system is short: give all kept blocks back */
        while (pool.oldest)
            pool_evict_oldest();
        block = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    }
    if (block == MAP_FAILED)
        return NULL;
    Storage *s = block;
    s->map_len = len;
    return s;
}

/* Keep the mapped block s for reuse, or unmap it past the bounds. */
static void pool_give(Storage *s)
{
    pool.live -= s->map_len;
    s->pool_prev = NULL;
    s->pool_next = pool.newest;
    if (pool.newest)
        pool.newest->pool_prev = s;
    else
        pool.oldest = s;
    pool.newest = s;
    pool.cached += s->map_len;
    pool.nblocks++;
#ifdef __SANITIZE_ADDRESS__
    /* a kept block's data is freed memory: reading it is a use after free */
    ASAN_POISON_MEMORY_REGION(s->data, s->map_len - (size_t)((char *)s->data - (char *)s));
#endif
    size_t limit = tensor_memory_limit();
    while (pool.oldest && (pool.cached > POOL_MAX_CACHED || live_bytes + pool.cached > limit))
        pool_evict_oldest();
}

void tensor_pool_stats(TensorPoolStats *st)
{
    bool locked = alloc_lock();
    st->live_bytes = pool.live;
    st->cached_bytes = pool.cached;
    st->cached_blocks = pool.nblocks;
    st->hits = pool.hits;
    st->misses = pool.misses;
    alloc_unlock(locked);
}

static size_t size_class(size_t nbytes)
{
    size_t cap = 64;
    for (size_t c = 0; c < CACHE_CLASSES; c++, cap *= 2)
        if (nbytes <= cap)
            return c + 1;
    return 0; /* too big to cache */
}

static Storage *storage_new_locked(size_t nbytes)
{
    size_t limit = tensor_memory_limit();
    if (nbytes > limit || live_bytes > limit - nbytes)
        return NULL; /* callers say why with tensor_memory_refused */
    size_t cls = size_class(nbytes);
    if (cls && storage_cached[cls - 1] > 0) {
        Storage *s = storage_cache[cls - 1][--storage_cached[cls - 1]];
        s->refcount = 1;
        s->nbytes = nbytes;
        account(nbytes, 0);
        return s;
    }
    size_t data_cap = cls ? (size_t)64 << (cls - 1) : nbytes;
    size_t header = (sizeof(Storage) + STORAGE_ALIGN - 1) & ~(size_t)(STORAGE_ALIGN - 1);
    size_t page = 4096;
    if (data_cap > SIZE_MAX - header - page)
        return NULL;
    Storage *s;
    size_t map_len = 0;
    if (data_cap >= LARGE_STORAGE) {
        /* Large activations get pages of their own, recycled through the
        ** pool: freeing one gives its memory back to the pool (or the
        ** system), where malloc would keep it in the heap after raising its
        ** mmap threshold (peak RSS would grow). */
        s = pool_take((header + data_cap + page - 1) & ~(page - 1));
        if (!s)
            return NULL;
        map_len = s->map_len;
        pool.live += map_len;
        if (pool.live > pool.high)
            pool.high = pool.live;
#ifdef __SANITIZE_ADDRESS__
        /* fresh pages are zero, reused ones are not: fill them with garbage
        ** in the sanitizer build, so a kernel that counts on zeros fails */
        memset((char *)s + header, 0xa5, data_cap);
#endif
    } else {
        void *block = NULL;
        if (posix_memalign(&block, STORAGE_ALIGN, header + (data_cap ? data_cap : 1)) != 0)
            return NULL;
        s = block;
    }
    s->refcount = 1;
    s->data = (char *)s + header;
    s->nbytes = nbytes;
    s->release = NULL;
    s->owner = NULL;
    s->readonly = false;
    s->owns_data = false;
    s->cache_class = cls;
    s->map_len = map_len;
    s->pool_prev = s->pool_next = NULL;
    account(nbytes, 0);
    return s;
}

Storage *storage_new(size_t nbytes)
{
    bool locked = alloc_lock();
    Storage *s = storage_new_locked(nbytes);
    alloc_unlock(locked);
    return s;
}

Storage *storage_wrap(void *data, size_t nbytes, StorageRelease release, void *owner, bool readonly)
{
    Storage *s = ep_xmalloc(sizeof *s);
    s->refcount = 1;
    s->data = data;
    s->nbytes = nbytes;
    s->release = release;
    s->owner = owner;
    s->readonly = readonly;
    s->owns_data = false;
    s->cache_class = 0;
    s->map_len = 0;
    s->pool_prev = s->pool_next = NULL;
    return s;
}

Storage *storage_ref(Storage *s)
{
    s->refcount++;
    return s;
}

void storage_unref(Storage *s)
{
    if (!s || --s->refcount > 0)
        return;
    if (s->release)
        s->release(s->owner, s->data, s->nbytes);
    else if (s->owns_data)
        free(s->data);
    bool locked = alloc_lock();
    if (!s->release)
        account(0, s->nbytes); /* storage_new's bytes, or a private copy */
    size_t cls = s->cache_class;
    if (cls && !s->release && !s->owns_data && storage_cached[cls - 1] < CACHE_DEPTH) {
        storage_cache[cls - 1][storage_cached[cls - 1]++] = s;
    } else if (s->map_len) {
        pool_give(s);
    } else {
        free(s);
    }
    alloc_unlock(locked);
}

void tensor_caches_drain(void)
{
    bool locked = alloc_lock();
    for (int c = 0; c < CACHE_CLASSES; c++)
        while (storage_cached[c] > 0)
            free(storage_cache[c][--storage_cached[c]]);
    while (tensor_cached > 0)
        free(tensor_cache[--tensor_cached]);
    while (pool.oldest)
        pool_evict_oldest();
    alloc_unlock(locked);
}

/* ---- shapes -------------------------------------------------------------- */

int64_t shape_numel(int ndim, const int64_t *sizes)
{
    /* sizes from a graph may be hostile: a product past int64 saturates to
    ** INT64_MAX (which no allocation or element count check accepts), and a
    ** 0 anywhere makes it 0 */
    int64_t n = 1;
    bool over = false;
    for (int i = 0; i < ndim; i++) {
        if (sizes[i] == 0)
            return 0;
        if (!over && __builtin_mul_overflow(n, sizes[i], &n))
            over = true;
    }
    return over ? INT64_MAX : n;
}

void shape_contiguous_strides(int ndim, const int64_t *sizes, int64_t *strides)
{
    /* a shape with a 0 has no elements, so its other sizes may multiply
    ** past int64: the strides saturate instead (never used to address) */
    int64_t st = 1;
    for (int i = ndim - 1; i >= 0; i--) {
        strides[i] = st;
        if (__builtin_mul_overflow(st, sizes[i] > 1 ? sizes[i] : 1, &st))
            st = INT64_MAX;
    }
}

bool shape_equal(int na, const int64_t *a, int nb, const int64_t *b)
{
    if (na != nb)
        return false;
    for (int i = 0; i < na; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

const char *shape_str(int ndim, const int64_t *sizes, char *buf, size_t cap)
{
    size_t len = 0;
    len += (size_t)snprintf(buf + len, cap - len, "[");
    for (int i = 0; i < ndim && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, i ? ", %lld" : "%lld", (long long)sizes[i]);
    if (len < cap)
        snprintf(buf + len, cap - len, "]");
    return buf;
}

bool dim_wrap(int64_t dim, int ndim, int *out)
{
    int64_t n = ndim > 0 ? ndim : 1;
    if (dim < -n || dim >= n)
        return false;
    *out = (int)(dim < 0 ? dim + n : dim);
    return true;
}

bool shape_broadcast(int na, const int64_t *a, int nb, const int64_t *b, int *nout, int64_t *out)
{
    int n = na > nb ? na : nb;
    for (int i = 0; i < n; i++) {
        int ia = na - n + i, ib = nb - n + i;
        int64_t sa = ia >= 0 ? a[ia] : 1, sb = ib >= 0 ? b[ib] : 1;
        if (sa == sb || sb == 1)
            out[i] = sa;
        else if (sa == 1)
            out[i] = sb;
        else
            return false;
    }
    *nout = n;
    return true;
}

bool tensor_is_contiguous(const Tensor *t)
{
    int64_t expected = 1;
    for (int i = t->ndim - 1; i >= 0; i--) {
        if (t->sizes[i] == 0)
            return true;
        if (t->sizes[i] != 1 && t->strides[i] != expected)
            return false;
        expected *= t->sizes[i];
    }
    return true;
}

/* ---- construction -------------------------------------------------------- */

static Tensor *tensor_alloc_header(DType dtype, int ndim)
{
    bool locked = alloc_lock();
    Tensor *t = tensor_cached > 0 ? tensor_cache[--tensor_cached] : NULL;
    alloc_unlock(locked);
    if (!t)
        t = ep_xmalloc(sizeof *t);
    t->refcount = 1;
    t->dtype = dtype;
    t->ndim = ndim;
    t->offset = 0;
    t->storage = NULL;
    t->wrapped_number = false;
    return t;
}

Tensor *tensor_empty(DType dtype, int ndim, const int64_t *sizes, EpError *err)
{
    if (ndim < 0 || ndim > EP_MAX_DIMS) {
        ep_fail(err, EP_ERR_EXEC, "tensors of rank %d are not supported (at most %d dims)", ndim, EP_MAX_DIMS);
        return NULL;
    }
    int64_t numel = 1;
    for (int i = 0; i < ndim; i++) {
        if (sizes[i] < 0) {
            ep_fail(err, EP_ERR_EXEC, "negative dimension %lld", (long long)sizes[i]);
            return NULL;
        }
        if (!ep_mul_i64(numel, sizes[i], &numel)) {
            ep_fail(err, EP_ERR_EXEC, "tensor size overflows");
            return NULL;
        }
    }
    int64_t nbytes;
    if (!ep_mul_i64(numel, dtype_size(dtype), &nbytes) || nbytes > ((int64_t)1 << 46)) {
        ep_fail(err, EP_ERR_EXEC, "tensor of %lld elements is too large", (long long)numel);
        return NULL;
    }
    Storage *s = storage_new((size_t)nbytes);
    if (!s) {
        char why[256], shape[160];
        shape_str(ndim, sizes, shape, sizeof shape);
        if (tensor_memory_refused((size_t)nbytes, why, sizeof why))
            ep_fail(err, EP_ERR_EXEC, "a %s tensor %s: %s", dtype_name(dtype), shape, why);
        else
            ep_fail(err, EP_ERR_EXEC, "out of memory allocating %lld bytes", (long long)nbytes);
        return NULL;
    }
    Tensor *t = tensor_alloc_header(dtype, ndim);
    if (ndim)
        memcpy(t->sizes, sizes, (size_t)ndim * sizeof *sizes);
    shape_contiguous_strides(ndim, t->sizes, t->strides);
    t->storage = s;
    return t;
}

Tensor *tensor_zeros(DType dtype, int ndim, const int64_t *sizes, EpError *err)
{
    Tensor *t = tensor_empty(dtype, ndim, sizes, err);
    if (t)
        memset(t->storage->data, 0, t->storage->nbytes);
    return t;
}

Tensor *tensor_empty_like(const Tensor *t, EpError *err)
{
    return tensor_empty(t->dtype, t->ndim, t->sizes, err);
}

Tensor *tensor_scalar_f64(DType dtype, double v, EpError *err)
{
    Tensor *t = tensor_empty(dtype, 0, NULL, err);
    if (t)
        dtype_store_f64(dtype, t->storage->data, v);
    return t;
}

Tensor *tensor_scalar_i64(DType dtype, int64_t v, EpError *err)
{
    Tensor *t = tensor_empty(dtype, 0, NULL, err);
    if (t)
        dtype_store_i64(dtype, t->storage->data, v);
    return t;
}

/* Check that every element addressed by (sizes, strides, offset) lies in a
** storage of nbytes. */
static bool geometry_fits(DType dtype, int ndim, const int64_t *sizes, const int64_t *strides,
                          int64_t offset, size_t nbytes)
{
    if (offset < 0)
        return false;
    int64_t lo = offset, hi = offset;
    for (int i = 0; i < ndim; i++) {
        if (sizes[i] < 0)
            return false;
        if (sizes[i] == 0)
            return true; /* no element is addressed */
        int64_t span;
        if (!ep_mul_i64(sizes[i] - 1, strides[i], &span))
            return false;
        if (span < 0)
            lo += span;
        else if (!ep_add_i64(hi, span, &hi))
            return false;
    }
    if (lo < 0)
        return false;
    int64_t end;
    if (!ep_add_i64(hi, 1, &end) || !ep_mul_i64(end, dtype_size(dtype), &end))
        return false;
    return (uint64_t)end <= (uint64_t)nbytes;
}

Tensor *tensor_from_storage(Storage *s, DType dtype, int ndim, const int64_t *sizes,
                            const int64_t *strides, int64_t offset, EpError *err)
{
    if (ndim < 0 || ndim > EP_MAX_DIMS) {
        ep_fail(err, EP_ERR_EXEC, "tensors of rank %d are not supported (at most %d dims)", ndim, EP_MAX_DIMS);
        return NULL;
    }
    if (!geometry_fits(dtype, ndim, sizes, strides, offset, s->nbytes)) {
        char b1[256], b2[256];
        ep_fail(err, EP_ERR_EXEC,
                "%s view of size %s, stride %s, offset %lld is outside its storage of %zu bytes",
                dtype_name(dtype), shape_str(ndim, sizes, b1, sizeof b1), shape_str(ndim, strides, b2, sizeof b2),
                (long long)offset, s->nbytes);
        return NULL;
    }
    Tensor *t = tensor_alloc_header(dtype, ndim);
    if (ndim) {
        memcpy(t->sizes, sizes, (size_t)ndim * sizeof *sizes);
        memcpy(t->strides, strides, (size_t)ndim * sizeof *strides);
    }
    t->offset = offset;
    t->storage = storage_ref(s);
    return t;
}

Tensor *tensor_as_strided(const Tensor *t, int ndim, const int64_t *sizes,
                          const int64_t *strides, int64_t offset, EpError *err)
{
    return tensor_from_storage(t->storage, t->dtype, ndim, sizes, strides, offset, err);
}

Tensor *tensor_ref(Tensor *t)
{
    t->refcount++;
    return t;
}

void tensor_unref(Tensor *t)
{
    if (!t || --t->refcount > 0)
        return;
    storage_unref(t->storage);
    bool locked = alloc_lock();
    if (tensor_cached < TENSOR_CACHE_DEPTH) {
        tensor_cache[tensor_cached++] = t;
        t = NULL;
    }
    alloc_unlock(locked);
    free(t);
}

/* ---- element access ------------------------------------------------------ */

static const char *element_ptr(const Tensor *t, int64_t flat)
{
    int64_t off = t->offset;
    for (int i = t->ndim - 1; i >= 0; i--) {
        int64_t sz = t->sizes[i];
        off += (flat % sz) * t->strides[i];
        flat /= sz;
    }
    return (const char *)t->storage->data + off * dtype_size(t->dtype);
}

double tensor_get_f64(const Tensor *t, int64_t flat_index)
{
    return dtype_load_f64(t->dtype, element_ptr(t, flat_index));
}

int64_t tensor_get_i64(const Tensor *t, int64_t flat_index)
{
    return dtype_load_i64(t->dtype, element_ptr(t, flat_index));
}

double tensor_item_f64(const Tensor *t)
{
    return dtype_load_f64(t->dtype, tensor_data(t));
}

int64_t tensor_item_i64(const Tensor *t)
{
    return dtype_load_i64(t->dtype, tensor_data(t));
}

void tensor_stats(const Tensor *t, TensorStats *st)
{
    memset(st, 0, sizeof *st);
    st->numel = tensor_numel(t);
    int64_t finite = 0;
    double mean = 0, m2 = 0; /* Welford: no cancellation in the variance */
    st->min = INFINITY;
    st->max = -INFINITY;
    for (int64_t i = 0; i < st->numel; i++) {
        double x = tensor_get_f64(t, i);
        if (x != x) {
            st->nan++;
            continue;
        }
        if (x == 0)
            st->zeros++;
        if (x == INFINITY || x == -INFINITY) {
            st->inf++;
            continue;
        }
        finite++;
        st->sum += x;
        double d = x - mean;
        mean += d / (double)finite;
        m2 += d * (x - mean);
        if (x < st->min)
            st->min = x;
        if (x > st->max)
            st->max = x;
    }
    if (finite == 0) {
        st->min = st->max = st->mean = st->std = st->abs_max = NAN;
        return;
    }
    st->abs_max = fmax(fabs(st->min), fabs(st->max));
    st->mean = mean;
    st->std = finite > 1 ? sqrt(m2 / (double)(finite - 1)) : NAN; /* sample std, as torch.std */
}

/* ---- iteration ----------------------------------------------------------- */

EpStatus iter_init(TensorIter *it, int ndim, const int64_t *shape, int nops,
                   Tensor *const *ops, EpError *err)
{
    if (nops > ITER_MAX_OPERANDS)
        return ep_fail(err, EP_ERR_EXEC, "internal: too many iterator operands");
    it->nops = nops;
    /* no elements: nothing to walk (and the other sizes may multiply past
    ** int64) */
    for (int i = 0; i < ndim; i++)
        if (shape[i] == 0) {
            it->numel = 0;
            it->ndim = 0;
            return EP_OK;
        }
    int bad = 0;
    /* per-operand broadcast strides in bytes over the full shape */
    int64_t st[ITER_MAX_OPERANDS][EP_MAX_DIMS];
    for (int k = 0; k < nops; k++) {
        const Tensor *t = ops[k];
        int es = dtype_size(t->dtype);
        bad = k;
        if (t->ndim > ndim)
            goto mismatch;
        for (int i = 0; i < ndim; i++) {
            int ti = t->ndim - ndim + i;
            if (ti < 0) {
                st[k][i] = 0;
            } else if (t->sizes[ti] == shape[i]) {
                if (shape[i] == 1)
                    st[k][i] = 0;
                else if (__builtin_mul_overflow(t->strides[ti], (int64_t)es, &st[k][i]))
                    return ep_fail(err, EP_ERR_EXEC, "a stride of %lld elements overflows", (long long)t->strides[ti]);
            } else if (t->sizes[ti] == 1) {
                st[k][i] = 0;
            } else {
                goto mismatch;
            }
        }
        it->base[k] = (char *)tensor_data(t);
    }
    /* drop size-1 dims, then merge dim i into i+1 when every operand is
    ** contiguous across the pair */
    int n = 0;
    int64_t sh[EP_MAX_DIMS];
    int64_t cs[ITER_MAX_OPERANDS][EP_MAX_DIMS];
    it->numel = 1;
    for (int i = 0; i < ndim; i++) {
        if (__builtin_mul_overflow(it->numel, shape[i], &it->numel))
            return ep_fail(err, EP_ERR_EXEC, "a shape of more than 2^63 elements");
        if (shape[i] == 1)
            continue;
        sh[n] = shape[i];
        for (int k = 0; k < nops; k++)
            cs[k][n] = st[k][i];
        n++;
    }
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (m > 0) {
            bool merge = true;
            for (int k = 0; k < nops; k++) {
                int64_t span;
                if (__builtin_mul_overflow(cs[k][i], sh[i], &span) || cs[k][m - 1] != span) {
                    merge = false;
                    break;
                }
            }
            if (merge) {
                it->shape[m - 1] *= sh[i];
                for (int k = 0; k < nops; k++)
                    it->strides[k][m - 1] = cs[k][i];
                continue;
            }
        }
        it->shape[m] = sh[i];
        for (int k = 0; k < nops; k++)
            it->strides[k][m] = cs[k][i];
        m++;
    }
    it->ndim = m;
    return EP_OK;
mismatch:;
    char b1[256], b2[256];
    return ep_fail(err, EP_ERR_EXEC, "shape %s does not broadcast to %s",
                   shape_str(ops[bad]->ndim, ops[bad]->sizes, b1, sizeof b1),
                   shape_str(ndim, shape, b2, sizeof b2));
}

int64_t iter_rows(const TensorIter *it)
{
    if (it->numel == 0)
        return 0;
    return it->ndim == 0 ? 1 : it->numel / it->shape[it->ndim - 1];
}

void iter_run_rows(const TensorIter *it, int64_t begin, int64_t end, IterLoop loop, void *ctx)
{
    if (it->numel == 0 || begin >= end)
        return;
    char *data[ITER_MAX_OPERANDS];
    int64_t inner_stride[ITER_MAX_OPERANDS];
    const int nops = it->nops;
    if (it->ndim == 0) {
        for (int k = 0; k < nops; k++) {
            data[k] = it->base[k];
            inner_stride[k] = 0;
        }
        loop(data, inner_stride, 1, ctx);
        return;
    }
    const int last = it->ndim - 1;
    for (int k = 0; k < nops; k++)
        inner_stride[k] = it->strides[k][last];
    const int64_t inner = it->shape[last];
    /* the outer coordinates of row begin, the last outer dim fastest */
    int64_t idx[EP_MAX_DIMS] = {0}, rest = begin;
    for (int d = last - 1; d >= 0; d--) {
        idx[d] = rest % it->shape[d];
        rest /= it->shape[d];
    }
    for (int64_t row = begin; row < end; row++) {
        for (int k = 0; k < nops; k++) {
            char *p = it->base[k];
            for (int d = 0; d < last; d++)
                p += idx[d] * it->strides[k][d];
            data[k] = p;
        }
        loop(data, inner_stride, inner, ctx);
        for (int d = last - 1; d >= 0 && ++idx[d] == it->shape[d]; d--)
            idx[d] = 0;
    }
}

void iter_run(const TensorIter *it, IterLoop loop, void *ctx)
{
    iter_run_rows(it, 0, iter_rows(it), loop, ctx);
}

/* ---- copies -------------------------------------------------------------- */

typedef struct CopyCtx {
    DType dst, src;
} CopyCtx;

static void copy_loop(char **data, const int64_t *stride, int64_t n, void *ctx)
{
    const CopyCtx *c = ctx;
    int ds = dtype_size(c->dst), ss = dtype_size(c->src);
    if (stride[0] % ds == 0 && stride[1] % ss == 0) {
        dtype_convert(c->dst, data[0], stride[0] / ds, c->src, data[1], stride[1] / ss, n);
        return;
    }
    for (int64_t i = 0; i < n; i++) /* unreachable for aligned strides */
        dtype_convert(c->dst, data[0] + i * stride[0], 1, c->src, data[1] + i * stride[1], 1, 1);
}

/* Both contiguous: n elements converted (or copied) in chunks over the
** pool.  The iterator makes a contiguous tensor one run, which kept every
** clone or cast of a large tensor on one thread.  A copy or a conversion
** gives each element's bits whatever the chunks, so any thread count
** gives the same tensor. */
#define COPY_FLAT_GRAIN 65536

typedef struct FlatCopy {
    DType dt, st;
    char *dst;
    const char *src;
} FlatCopy;

static void flat_copy_chunk(void *ctx, int64_t begin, int64_t end)
{
    const FlatCopy *f = ctx;
    dtype_convert(f->dt, f->dst + begin * dtype_size(f->dt), 1, f->st, f->src + begin * dtype_size(f->st), 1,
                  end - begin);
}

bool tensor_copy_flat(Tensor *dst, const Tensor *src)
{
    const int64_t n = tensor_numel(dst);
    if (n < 2 * COPY_FLAT_GRAIN || !shape_equal(dst->ndim, dst->sizes, src->ndim, src->sizes) ||
        !tensor_is_contiguous(dst) || !tensor_is_contiguous(src) || tensor_same_storage(dst, src) ||
        tensor_make_writable(dst, NULL) != EP_OK)
        return false;
    FlatCopy f = {dst->dtype, src->dtype, tensor_data(dst), tensor_data((Tensor *)src)};
    ep_parallel_for(n, COPY_FLAT_GRAIN, flat_copy_chunk, &f);
    return true;
}

EpStatus tensor_copy_into(Tensor *dst, const Tensor *src, EpError *err)
{
    EpStatus rc = tensor_make_writable(dst, err);
    if (rc)
        return rc;
    if (tensor_copy_flat(dst, src))
        return EP_OK;
    Tensor *s = (Tensor *)src;
    Tensor *tmp = NULL;
    if (tensor_same_storage(dst, src) && tensor_numel(src) > 0) {
        /* overlapping source: read it out before writing */
        tmp = tensor_empty(src->dtype, src->ndim, src->sizes, err);
        if (!tmp)
            return err ? err->code : EP_ERR_EXEC;
        rc = tensor_copy_into(tmp, src, err);
        if (rc) {
            tensor_unref(tmp);
            return rc;
        }
        s = tmp;
    }
    TensorIter it;
    Tensor *ops[2] = {dst, s};
    rc = iter_init(&it, dst->ndim, dst->sizes, 2, ops, err);
    if (rc == EP_OK) {
        CopyCtx c = {dst->dtype, s->dtype};
        iter_run(&it, copy_loop, &c);
    } else if (err) {
        char b1[256], b2[256];
        ep_fail(err, EP_ERR_EXEC, "cannot copy a tensor of shape %s into one of shape %s",
                shape_str(src->ndim, src->sizes, b1, sizeof b1), shape_str(dst->ndim, dst->sizes, b2, sizeof b2));
    }
    tensor_unref(tmp);
    return rc;
}

Tensor *tensor_to_dtype(const Tensor *t, DType dtype, EpError *err)
{
    Tensor *out = tensor_empty(dtype, t->ndim, t->sizes, err);
    if (!out)
        return NULL;
    if (tensor_copy_into(out, t, err) != EP_OK) {
        tensor_unref(out);
        return NULL;
    }
    return out;
}

Tensor *tensor_contiguous(Tensor *t, EpError *err)
{
    if (tensor_is_contiguous(t))
        return tensor_ref(t);
    return tensor_to_dtype(t, t->dtype, err);
}

Tensor *tensor_as_contiguous_dtype(Tensor *t, DType dtype, EpError *err)
{
    if (t->dtype == dtype && tensor_is_contiguous(t))
        return tensor_ref(t);
    return tensor_to_dtype(t, dtype, err);
}

EpStatus tensor_make_writable(Tensor *t, EpError *err)
{
    return storage_make_private(t->storage, err);
}

EpStatus storage_make_private(Storage *s, EpError *err)
{
    if (!s->readonly)
        return EP_OK;
    void *data = NULL;
    size_t rounded = (s->nbytes + 63) & ~(size_t)63;
    if (posix_memalign(&data, 64, rounded ? rounded : 64) != 0)
        return ep_fail(err, EP_ERR_EXEC, "out of memory copying a %zu-byte weight before writing it", s->nbytes);
    memcpy(data, s->data, s->nbytes);
    /* Swap the bytes under every tensor that views this storage, so views
    ** of one weight (and FQNs sharing it) stay aliases after the write. */
    bool was_borrowed = s->release != NULL;
    if (s->release)
        s->release(s->owner, s->data, s->nbytes);
    s->data = data;
    s->release = NULL;
    s->owner = NULL;
    s->readonly = false;
    s->owns_data = true;
    if (was_borrowed) {
        bool locked = alloc_lock();
        account(s->nbytes, 0);
        alloc_unlock(locked);
    }
    return EP_OK;
}
