"""models_torch.py -- PyTorch's side of bench/models.c, one process for the
whole table.  It prints "torch VERSION" (or "none" when torch or the oracle
does not import), then answers one line per command read from stdin:

  load PATH|NAME:DTYPE:AxB[:HI] ...   open the .pt2 with the oracle
                                      (/work/shared/tools/oracle.py, or
                                      $EPDBG_ORACLE), make the user inputs,
                                      run it once and record its calls; "0"
  time THREADS                        seconds per replay of the recorded
                                      calls at THREADS threads
  oracle THREADS                      seconds per oracle run (Interp.run)

Why a replay: the oracle decodes every node's JSON arguments and matches
them to the op's schema on every run, tens of microseconds a node in Python,
which would swamp small batches.  The record run wraps each op the oracle
resolves and keeps (op, positional args, keyword args); the replay calls the
same ops on the same arguments, with every tensor an earlier node produced
replaced by that node's new result (dropped after its last use, as eager
PyTorch frees a temporary), so it is what an eager PyTorch module pays: the
kernels plus one Python call per op.  A time is the best of 7
rounds of at least 20 ms after warm-up calls (at least 3 and 0.2 s, at
most 20), as in bench/models.c.
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_common  # noqa: E402

try:
    import torch
    sys.path.insert(0, os.path.dirname(os.environ.get('EPDBG_ORACLE', '/work/shared/tools/oracle.py')))
    import oracle
except Exception:  # no PyTorch or no oracle: the C side prints its column only
    print("none", flush=True)
    sys.exit(0)

# torch.set_num_threads does not reach the OpenBLAS Debian's torch calls
# for mm/addmm/bmm (see kernels_torch.py): without this, PyTorch's
# "one thread" column ran its GEMMs on every core
SET_BLAS_THREADS = torch_common.openblas_setter()

ROUNDS = 7
ROUND_SECONDS = 0.02
WARMUP_SECONDS = 0.2
WARMUP_MAX = 20


def make(spec):
    parts = spec.split(":")
    shape = [int(d) for d in parts[2].split("x")]
    if parts[1] == "i64":
        return torch.randint(0, int(parts[3]) if len(parts) > 3 else 100, shape, dtype=torch.int64)
    return torch.rand(shape, dtype=torch.float32) * 2 - 1


class Recorder(oracle.Interp):
    """The oracle's interpreter, keeping every op call it makes."""
    def __init__(self, prog):
        super().__init__(prog)
        self.calls = []

    def resolve(self, target):
        fn, schema = super().resolve(target)
        if getattr(fn, 'recorded', False):
            return fn, schema

        def rec(*a, **k):
            res = fn(*a, **k)
            self.calls.append((fn, a, k, res))
            return res
        rec.recorded = True
        self.fns[target] = (rec, schema)
        return rec, schema


def compile_replay(calls):
    """(fn, args, kwargs) with each argument a tensor some earlier call
    returned (alone or in a list) turned into a reference to that call's
    result, resolved again at every replay."""
    made = {}  # id(tensor) -> (call index, output index or None)
    steps = []

    def ref(v):
        if isinstance(v, torch.Tensor) and id(v) in made:
            return ('ref',) + made[id(v)]
        if isinstance(v, (list, tuple)) and any(isinstance(x, torch.Tensor) and id(x) in made for x in v):
            return ('list', [ref(x) for x in v])
        return ('lit', v)

    for i, (fn, a, k, res) in enumerate(calls):
        steps.append((fn, [ref(x) for x in a], {n: ref(x) for n, x in k.items()}))
        if isinstance(res, torch.Tensor):
            made[id(res)] = (i, None)
        elif isinstance(res, (list, tuple)):
            for j, r in enumerate(res):
                if isinstance(r, torch.Tensor):
                    made[id(r)] = (i, j)
    n = len(steps)
    # drop each result after its last use, as eager PyTorch frees a
    # temporary: the allocator then reuses its memory in the next calls
    last = list(range(n))

    def uses(r, i):
        if r[0] == 'ref':
            last[r[1]] = i
        elif r[0] == 'list':
            for x in r[1]:
                uses(x, i)
    for i, (_, a, k) in enumerate(steps):
        for x in list(a) + list(k.values()):
            uses(x, i)
    drop = [[] for _ in range(n)]
    for j in range(n - 1):
        drop[last[j]].append(j)

    def get(out, r):
        if r[0] == 'lit':
            return r[1]
        if r[0] == 'list':
            return [get(out, x) for x in r[1]]
        v = out[r[1]]
        return v if r[2] is None else v[r[2]]

    def replay():
        out = [None] * n
        for i, (fn, a, k) in enumerate(steps):
            out[i] = fn(*[get(out, x) for x in a], **{m: get(out, x) for m, x in k.items()})
            for j in drop[i]:
                out[j] = None
        return out[-1]
    return replay


def main():
    print("torch " + torch.__version__, flush=True)
    torch.set_grad_enabled(False)
    replay = run_oracle = None
    for line in sys.stdin:
        cmd, _, rest = line.strip().partition(" ")
        try:
            if cmd == "load":
                path, _, specs = rest.partition("|")
                replay = run_oracle = None
                prog = oracle.load_program(path)
                ip = Recorder(prog)
                users = [make(s) for s in specs.split()]
                state, consts = prog.state, prog.consts
                ip.run(users, state, consts)
                replay = compile_replay(ip.calls)
                ip.calls = None
                plain = oracle.Interp(prog)
                run_oracle = lambda: plain.run(users, state, consts, check=False)  # noqa: E731
                print("0", flush=True)
            elif cmd in ("time", "oracle"):
                torch.set_num_threads(int(rest))
                if SET_BLAS_THREADS:
                    SET_BLAS_THREADS(int(rest))
                # oneDNN and the thread pool settle over a few warm-up calls
                t = torch_common.best_time(replay if cmd == "time" else run_oracle, ROUNDS, ROUND_SECONDS,
                                           3, WARMUP_MAX, WARMUP_SECONDS)
                print("%.9f" % t, flush=True)
            else:
                print("error unknown command " + cmd, flush=True)
        except BaseException as e:  # noqa: BLE001 - the row fails, the table goes on
            msg = str(e).splitlines()[0] if str(e) else type(e).__name__
            print("error %s" % msg, flush=True)


main()
