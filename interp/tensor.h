/*
** tensor.h -- refcounted storages, strided tensors and the broadcasting
** iterator every kernel loops with.
**
** Ownership: a function returning Tensor* returns a NEW reference that the
** caller must tensor_unref(); a Tensor* parameter is borrowed unless the
** comment says "steals".  Views (tensor_view, as_strided, slicing) share the
** Storage, which is freed when the last tensor on it goes.
*/
#ifndef EP_TENSOR_H
#define EP_TENSOR_H

#include "dtype.h"
#include "ep.h"

#define EP_MAX_DIMS 16

typedef struct Storage Storage;
typedef void (*StorageRelease)(void *owner, void *data, size_t nbytes);

struct Storage {
    int64_t refcount;
    void *data;
    size_t nbytes;
    /* NULL: data came from storage_new and is freed here.  Otherwise data is
    ** borrowed (e.g. a weight inside a mapped archive) and release(owner,...)
    ** is called when the last reference goes. */
    StorageRelease release;
    void *owner;
    bool readonly;   /* mapped archive bytes: copy before writing */
    bool owns_data;  /* data is a separate allocation to free (else it sits
                     ** in the same block as this struct, or is borrowed) */
    size_t cache_class; /* storage_new's size class, for reuse */
    size_t map_len;     /* > 0: the block is an anonymous mapping of that size */
    Storage *pool_prev, *pool_next; /* a large block's place in the pool of
                                    ** freed blocks, while it sits there */
};

typedef struct Tensor {
    int64_t refcount;
    DType dtype;
    int ndim;
    int64_t offset; /* in elements, from storage->data */
    int64_t sizes[EP_MAX_DIMS];
    int64_t strides[EP_MAX_DIMS]; /* in elements; may be 0 or negative-free */
    Storage *storage;
    /* A Python number passed where the schema wants a Tensor (add.Tensor with
    ** other=2): a 0-d int64/float64/bool tensor that type promotion treats
    ** as a scalar, as PyTorch's "wrapped numbers". */
    bool wrapped_number;
} Tensor;

/* ---- storages ------------------------------------------------------------ */

/* nbytes of uninitialised, 64-byte aligned memory; NULL if out of memory. */
Storage *storage_new(size_t nbytes);
/* Wrap memory owned elsewhere; release(owner, data, nbytes) runs at the end. */
Storage *storage_wrap(void *data, size_t nbytes, StorageRelease release, void *owner, bool readonly);
Storage *storage_ref(Storage *s);
void storage_unref(Storage *s);
/* Bytes of tensor data allocated by epdbg (views of mapped weights do not
** count), now and at the high-water mark since the last reset. */
void tensor_memory_stats(size_t *live, size_t *peak);

/* The most bytes of tensor data epdbg allocates at once (--max-memory,
** EPDBG_MAX_MEMORY): every allocation goes through storage_new, which
** refuses one that would pass it, so a hostile size or a model too big for
** the machine fails with a message instead of the system's OOM killer.
** Default: three quarters of physical memory.  0 restores the default. */
void tensor_set_memory_limit(size_t bytes);
size_t tensor_memory_limit(void);
/* Would nbytes more pass the limit?  Then why (with sizes) into buf. */
bool tensor_memory_refused(size_t nbytes, char *buf, size_t cap);
/* "1.5 GiB", "512 B" into buf. */
const char *tensor_bytes_text(uint64_t n, char *buf, size_t cap);
/* Parse "512M", "2G", "1.5G", "4096" (bytes); false if not a size. */
bool tensor_parse_bytes(const char *s, size_t *out);
void tensor_memory_reset_peak(void);
/* Bytes of tensor data allocated and freed since the process started
** (monotonic counters): what a node allocated is the difference of
** allocated across it. */
void tensor_memory_counters(uint64_t *allocated, uint64_t *freed);
/* A second high-water mark, restarted at the live bytes by reset: the
** peak within one node, for a profiler (tensor_memory_stats's peak is
** untouched). */
void tensor_memory_window_reset(void);
size_t tensor_memory_window_peak(void);
/* Free the recycled tensor headers and small storages, and unmap the large
** blocks kept for reuse (at exit, so leak checkers see a clean heap). */
void tensor_caches_drain(void);
/* The pool of large blocks: bytes mapped now for live storages and kept
** for reuse, and how many requests a kept block served (hits) or needed a
** new mapping (misses), since the process started. */
/* Resident blocks (live + kept) stay under the most ever live plus this. */
#define TENSOR_POOL_SLACK ((size_t)4 << 20)
typedef struct TensorPoolStats {
    size_t live_bytes, cached_bytes, cached_blocks;
    uint64_t hits, misses;
} TensorPoolStats;
void tensor_pool_stats(TensorPoolStats *st);

/* ---- construction -------------------------------------------------------- */

/* Contiguous tensor of uninitialised data.  NULL with err set when the size
** overflows, ndim exceeds EP_MAX_DIMS or memory runs out. */
Tensor *tensor_empty(DType dtype, int ndim, const int64_t *sizes, EpError *err);
Tensor *tensor_zeros(DType dtype, int ndim, const int64_t *sizes, EpError *err);
/* Same shape and dtype as t, contiguous, uninitialised. */
Tensor *tensor_empty_like(const Tensor *t, EpError *err);
/* 0-d tensors. */
Tensor *tensor_scalar_f64(DType dtype, double v, EpError *err);
Tensor *tensor_scalar_i64(DType dtype, int64_t v, EpError *err);
/* A tensor over an existing storage (takes a new reference on it); checks
** that every addressed element lies inside the storage. */
Tensor *tensor_from_storage(Storage *s, DType dtype, int ndim, const int64_t *sizes,
                            const int64_t *strides, int64_t offset, EpError *err);
/* A view of t's storage with new geometry (as_strided); bounds checked. */
Tensor *tensor_as_strided(const Tensor *t, int ndim, const int64_t *sizes,
                          const int64_t *strides, int64_t offset, EpError *err);

Tensor *tensor_ref(Tensor *t);
void tensor_unref(Tensor *t); /* NULL ok */

/* ---- queries ------------------------------------------------------------- */

/* The product of sizes: 0 with a 0 anywhere, INT64_MAX past int64. */
int64_t shape_numel(int ndim, const int64_t *sizes);
static inline int64_t tensor_numel(const Tensor *t) { return shape_numel(t->ndim, t->sizes); }
static inline size_t tensor_nbytes(const Tensor *t)
{
    return (size_t)tensor_numel(t) * (size_t)dtype_size(t->dtype);
}
static inline void *tensor_data(const Tensor *t)
{
    return (char *)t->storage->data + t->offset * dtype_size(t->dtype);
}
bool tensor_is_contiguous(const Tensor *t);
/* Contiguous strides for sizes (0-size dims give PyTorch's strides). */
void shape_contiguous_strides(int ndim, const int64_t *sizes, int64_t *strides);
bool shape_equal(int na, const int64_t *a, int nb, const int64_t *b);
/* "[2, 3, 4]" into buf. */
const char *shape_str(int ndim, const int64_t *sizes, char *buf, size_t cap);
/* Normalise a possibly negative dim for a rank (rank 0 accepts -1 and 0, as
** torch's maybe_wrap_dim).  Returns false if out of range. */
bool dim_wrap(int64_t dim, int ndim, int *out);

/* Broadcast two shapes; false if incompatible. */
bool shape_broadcast(int na, const int64_t *a, int nb, const int64_t *b, int *nout, int64_t *out);

/* First element / the single element as double or int64 (numel must be 1). */
double tensor_item_f64(const Tensor *t);
int64_t tensor_item_i64(const Tensor *t);
/* Element at a flat (row-major logical) index. */
double tensor_get_f64(const Tensor *t, int64_t flat_index);
int64_t tensor_get_i64(const Tensor *t, int64_t flat_index);

/* Summary of a tensor's values in one pass (as double): min/max/mean/std
** over the finite values, counts of NaN, infinities and zeros. */
typedef struct TensorStats {
    int64_t numel, nan, inf, zeros;
    double min, max, abs_max, sum, mean, std;
} TensorStats;

void tensor_stats(const Tensor *t, TensorStats *st);

/* ---- copies -------------------------------------------------------------- */

/* t itself (new ref) if contiguous, else a contiguous copy. */
Tensor *tensor_contiguous(Tensor *t, EpError *err);
/* Always a new contiguous tensor of dtype (a copy even if equal). */
Tensor *tensor_to_dtype(const Tensor *t, DType dtype, EpError *err);
/* t itself (new ref) when it already has dtype and is contiguous, else a
** converted contiguous copy: the cheap way for kernels to normalise inputs. */
Tensor *tensor_as_contiguous_dtype(Tensor *t, DType dtype, EpError *err);
/* dst[...] = src broadcast to dst's shape, converting dtypes.  Safe when src
** overlaps dst (src is copied first).  Fails if src does not broadcast. */
EpStatus tensor_copy_into(Tensor *dst, const Tensor *src, EpError *err);
/* The copy of tensor_copy_into when both are contiguous, of one shape, in
** different storages and large: in chunks over the worker pool.  False,
** having done nothing, otherwise. */
bool tensor_copy_flat(Tensor *dst, const Tensor *src);
/* Before writing into t: if its storage is read-only (mapped archive
** bytes), replace the storage's bytes by a private copy, in place, so every
** view of that storage sees the write. */
EpStatus tensor_make_writable(Tensor *t, EpError *err);
EpStatus storage_make_private(Storage *s, EpError *err);
/* Whether two tensors' storages are the same allocation. */
static inline bool tensor_same_storage(const Tensor *a, const Tensor *b)
{
    return a->storage == b->storage;
}

/* ---- iteration ----------------------------------------------------------- */

#define ITER_MAX_OPERANDS 6

/* Walks operands of a common (broadcast) shape.  Operand 0 is usually the
** output.  Dimensions are coalesced where every operand allows it, so a
** contiguous tensor is one inner loop.  Strides are in BYTES. */
typedef struct TensorIter {
    int ndim;
    int nops;
    int64_t shape[EP_MAX_DIMS];
    int64_t numel;
    char *base[ITER_MAX_OPERANDS];
    int64_t strides[ITER_MAX_OPERANDS][EP_MAX_DIMS];
} TensorIter;

/* Inner loop: data[i] points at operand i's first element, stride[i] is its
** byte step, n the count. */
typedef void (*IterLoop)(char **data, const int64_t *stride, int64_t n, void *ctx);

/* Set up an iterator over shape (ndim, shape); each operand is broadcast to
** it (its trailing dims aligned, size-1 dims get stride 0).  Fails (with err)
** if an operand does not broadcast. */
EpStatus iter_init(TensorIter *it, int ndim, const int64_t *shape, int nops,
                   Tensor *const *ops, EpError *err);
void iter_run(const TensorIter *it, IterLoop loop, void *ctx);
/* The iterator's rows: runs along its last dim (1 for a 0-d iterator, 0
** when it is empty).  iter_run_rows runs loop on the rows [begin, end) in
** iter_run's order, so a parallel kernel can give each chunk its own. */
int64_t iter_rows(const TensorIter *it);
void iter_run_rows(const TensorIter *it, int64_t begin, int64_t end, IterLoop loop, void *ctx);

#endif
