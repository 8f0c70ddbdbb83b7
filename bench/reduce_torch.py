# reduce_torch.py [THREADS] -- PyTorch's side of bench/reduce.c: the same
# ops on the same shapes, milliseconds, the minimum of several runs.
import sys, time
import torch

torch.set_num_threads(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
print("# torch %s, threads %d" % (torch.__version__, torch.get_num_threads()))
a = torch.rand(1024, 1024) * 4 - 2
v = torch.rand(1 << 20) * 4 - 2
l = torch.rand(512, 768) * 4 - 2
t = torch.rand(1 << 20, 16) * 4 - 2
w, b = torch.rand(768), torch.rand(768)
im = torch.rand(8, 64, 56, 56) * 4 - 2
cw, cb, rm, rv = torch.rand(64), torch.rand(64), torch.rand(64), torch.rand(64) + 0.5
A = torch.ops.aten
a16, abf, ai32, ai64 = a.half(), a.bfloat16(), a.int(), a.long()
lbf, wbf, bbf = l.bfloat16(), w.bfloat16(), b.bfloat16()
cases = [
    ("sum 1M", lambda: A.sum.default(v)),
    ("mean 1M", lambda: A.mean.default(v)),
    ("sum 1024^2 dim -1", lambda: A.sum.dim_IntList(a, [-1])),
    ("mean 1024^2 dim -1", lambda: A.mean.dim(a, [-1])),
    ("sum 1024^2 dim 0", lambda: A.sum.dim_IntList(a, [0])),
    ("mean 1024^2 dim 0", lambda: A.mean.dim(a, [0])),
    ("amax 1024^2 dim -1", lambda: A.amax.default(a, [-1])),
    ("amax 1024^2 dim 0", lambda: A.amax.default(a, [0])),
    ("var 1024^2 dim -1", lambda: A.var.correction(a, [-1], correction=1)),
    ("sum f16 1024^2 dim -1", lambda: A.sum.dim_IntList(a16, [-1])),
    ("sum f16 1024^2 dim 0", lambda: A.sum.dim_IntList(a16, [0])),
    ("amax f16 1024^2 dim -1", lambda: A.amax.default(a16, [-1])),
    ("sum bf16 1024^2 dim -1", lambda: A.sum.dim_IntList(abf, [-1])),
    ("sum bf16 1024^2 dim 0", lambda: A.sum.dim_IntList(abf, [0])),
    ("sum i32 1024^2 dim -1", lambda: A.sum.dim_IntList(ai32, [-1])),
    ("sum i32 1024^2 dim 0", lambda: A.sum.dim_IntList(ai32, [0])),
    ("sum i64 1024^2 dim -1", lambda: A.sum.dim_IntList(ai64, [-1])),
    ("sum i64 1024^2 dim 0", lambda: A.sum.dim_IntList(ai64, [0])),
    ("argmax 1024^2 dim -1", lambda: A.argmax.default(a, -1)),
    ("logsumexp 1024^2 dim -1", lambda: A.logsumexp.default(a, [-1])),
    ("softmax 1024^2 dim -1", lambda: A._softmax.default(a, -1, False)),
    ("log_softmax 1024^2 dim -1", lambda: A._log_softmax.default(a, -1, False)),
    ("softmax 1024^2 dim 0", lambda: A._softmax.default(a, 0, False)),
    ("native_layer_norm 512x768", lambda: A.native_layer_norm.default(l, [768], w, b, 1e-5)),
    ("native_layer_norm bf16 512x768", lambda: A.native_layer_norm.default(lbf, [768], wbf, bbf, 1e-5)),
    ("native_layer_norm [1M,16]", lambda: A.native_layer_norm.default(t, [16], None, None, 1e-5)),
    ("max_pool2d 8x64x56x56 k3 s2 p1", lambda: A.max_pool2d_with_indices.default(im, [3, 3], [2, 2], [1, 1])),
    ("batch_norm eval 8x64x56x56", lambda: A.native_batch_norm.default(im, cw, cb, rm, rv, False, 0.1, 1e-5)),
    ("group_norm 8x64x56x56 G32", lambda: A.native_group_norm.default(im, cw, cb, 8, 64, 56 * 56, 32, 1e-5)),
]
for name, f in cases:
    best = float("inf")
    for _ in range(10):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    print("%-34s torch %8.3f ms" % (name, best * 1e3))
