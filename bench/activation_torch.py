# activation_torch.py -- PyTorch's side of bench/activation.c: the same ops on
# 1M float32 (randn; |x| + 0.1 for log, sqrt, rsqrt), rows interleaved, the
# minimum of 20 rounds, as a new result and into a preallocated one (out=),
# and on the same values as bfloat16 (a new result); softmax on the data as
# 1024x1024 along the last dim.
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
        ("rsqrt", lambda a, **k: torch.rsqrt(a, **k), xp),
        ("softmax", lambda a, **k: torch._softmax(a.view(1024, 1024), -1, False), x),
        ("relu", lambda a, **k: torch.relu(a) if not k else torch.clamp_min(a, 0, **k), x),
        ("neg", lambda a, **k: torch.neg(a, **k), x)]
half = {id(x): x.bfloat16(), id(xp): xp.bfloat16()}
best = {n: [1e9, 1e9, 1e9] for n, _, _ in rows}
for r in range(reps):
    for n, f, a in rows:
        t = time.perf_counter(); f(a); t = time.perf_counter() - t
        best[n][0] = min(best[n][0], t)
        if n != "softmax":
            t = time.perf_counter(); f(a, out=y); t = time.perf_counter() - t
            best[n][1] = min(best[n][1], t)
        t = time.perf_counter(); f(half[id(a)]); t = time.perf_counter() - t
        best[n][2] = min(best[n][2], t)
print("%-10s %10s %10s %10s" % ("op", "torch ms", "out= ms", "bf16 ms"))
for n, _, _ in rows:
    out = "%10.3f" % (best[n][1] * 1e3) if best[n][1] < 1e9 else "%10s" % "-"
    print("%-10s %10.3f %s %10.3f" % (n, best[n][0] * 1e3, out, best[n][2] * 1e3))
