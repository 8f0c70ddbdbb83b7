"""torch_common.py -- what the PyTorch sides of the benchmarks share
(kernels_torch.py, models_torch.py import it from their own directory).

best_time times a call as the C side does (bench/benchutil.h,
bench_best_time); openblas_setter finds the OpenBLAS thread setter, which
torch.set_num_threads does not reach (see kernels_torch.py).
"""
import time


def openblas_setter():
    """openblas_set_num_threads of the OpenBLAS torch loaded, or None."""
    import ctypes
    for name in ("libopenblas.so.0", "libopenblas.so"):
        try:
            return ctypes.CDLL(name).openblas_set_num_threads
        except (OSError, AttributeError):
            pass
    return None


def best_time(fn, rounds, round_seconds, warmup_min=2, warmup_max=2, warmup_seconds=0.0):
    """Seconds per call of fn: after warm-up calls (at least warmup_min and
    warmup_seconds, at most warmup_max), one timed call sets how many calls
    make a round of at least round_seconds; the best of that call and rounds
    rounds."""
    start = time.perf_counter()
    for k in range(warmup_max):
        fn()
        if k >= warmup_min - 1 and time.perf_counter() - start >= warmup_seconds:
            break
    t0 = time.perf_counter()
    fn()
    one = time.perf_counter() - t0
    calls = 1 if one >= round_seconds else int(round_seconds / max(one, 1e-7)) + 1
    best = one
    for _ in range(rounds):
        s = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - s) / calls)
    return best
