"""kernels_torch.py -- PyTorch's side of bench/kernels.c, one process for the
whole table.  It prints "torch VERSION" (or exits when torch does not
import), then answers one line per command read from stdin:

  setup NAME:DTYPE:AxB[:HI] ...|EXPR   make the inputs, compile EXPR; "0"
  time THREADS                         seconds per call of EXPR at THREADS
                                       threads: the best of 5 rounds of at
                                       least 20 ms, after two warm-up calls

torch.set_num_threads sets OpenMP's and MKL's threads but not OpenBLAS's:
Debian's torch calls the pthread build of OpenBLAS for mm/bmm/addmm, which
starts one thread per core and ignores torch.set_num_threads, so its "one
thread" mm ran on every core.  The OpenBLAS the process loaded is set too
(openblas_set_num_threads, through ctypes) when there is one.

float32 inputs are uniform in [-1, 1), int64 ones in [0, HI): the same
shapes as epdbg's side (the values differ, which no kernel here minds).
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_common  # noqa: E402

try:
    import torch
except Exception:  # no PyTorch: the C side prints its column only
    print("none", flush=True)
    sys.exit(0)

SET_BLAS_THREADS = torch_common.openblas_setter()
ROUNDS = 5
ROUND_SECONDS = 0.02


def make(spec):
    name, dtype, dims = spec.split(":")[:3]
    shape = [int(d) for d in dims.split("x")]
    if dtype == "i64":
        hi = int(spec.split(":")[3]) if spec.count(":") >= 3 else 100
        return name, torch.randint(0, hi, shape, dtype=torch.int64)
    return name, torch.rand(shape, dtype=torch.float32) * 2 - 1


def main():
    print("torch " + torch.__version__, flush=True)
    fn = None
    for line in sys.stdin:
        cmd, _, rest = line.strip().partition(" ")
        try:
            if cmd == "setup":
                specs, _, expr = rest.partition("|")
                env = {"torch": torch}
                env.update(make(s) for s in specs.split())
                code = compile(expr, "<row>", "eval")
                fn = lambda: eval(code, env)  # noqa: E731
                print("0", flush=True)
            elif cmd == "time":
                torch.set_num_threads(int(rest))
                if SET_BLAS_THREADS:
                    SET_BLAS_THREADS(int(rest))
                with torch.no_grad():
                    print("%.9f" % torch_common.best_time(fn, ROUNDS, ROUND_SECONDS), flush=True)
            else:
                print("error unknown command " + cmd, flush=True)
        except Exception as e:  # the row fails, the table goes on
            print("error %s" % str(e).splitlines()[0] if str(e) else "error", flush=True)


main()
