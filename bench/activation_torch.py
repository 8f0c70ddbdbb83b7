# activation_torch.py -- PyTorch's side of bench/activation.c: the same ops on
# 1M float32 (randn; |x| + 0.1 for log, sqrt, rsqrt), rows interleaved, the
# minimum of 20 rounds, as a new result and into a preallocated one (out=).
#   /usr/bin/python3 bench/activation_torch.py [threads]
import torch, time, sys
torch.set_num_threads(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
reps = 20
x = torch.randn(1 << 20)
xp = x.abs() + 0.1
y = torch.empty_like(x)
F = torch.nn.functional
rows = [("exp", lambda a, **k: torch.exp(a, **k), x), ("sigmoid", lambda a, **k: torch.sigmoid(a, **k), x),
        ("tanh", lambda a, **k: torch.tanh(a, **k), x), ("gelu", lambda a, **k: torch._C._nn.gelu(a, **k), x),
        ("gelu_tanh", lambda a, **k: torch._C._nn.gelu(a, approximate="tanh", **k), x),
        ("silu", lambda a, **k: torch._C._nn.silu(a, **k), x), ("erf", lambda a, **k: torch.erf(a, **k), x),
        ("log", lambda a, **k: torch.log(a, **k), xp), ("sqrt", lambda a, **k: torch.sqrt(a, **k), xp),
        ("rsqrt", lambda a, **k: torch.rsqrt(a, **k), xp)]
best = {n: [1e9, 1e9] for n, _, _ in rows}
for r in range(reps):
    for n, f, a in rows:
        t = time.perf_counter(); f(a); t = time.perf_counter() - t
        best[n][0] = min(best[n][0], t)
        t = time.perf_counter(); f(a, out=y); t = time.perf_counter() - t
        best[n][1] = min(best[n][1], t)
print("%-10s %10s %10s" % ("op", "torch ms", "out= ms"))
for n, _, _ in rows:
    print("%-10s %10.3f %10.3f" % (n, best[n][0] * 1e3, best[n][1] * 1e3))
