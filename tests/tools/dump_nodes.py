#!/usr/bin/python3
"""Dump every node's output of a torch.export .pt2, computed by PyTorch, for `epdbg compare`.

  dump_nodes.py MODEL.pt2 OUTDIR [--inputs DIR | --make-inputs SEED] [--program NAME]
                [--oracle PATH] [--meta-check error|warn]

Runs the archive with ../shared/tools/oracle.py's evaluator (PyTorch's own
ATen kernels, run with /usr/bin/python3) and writes, into OUTDIR:

  NAME.npy    every node output, named after the graph value (a node's
              single output has the node's name); taken the moment the
              node has run, so a later in-place op does not change it
  in<k>.npy   the user inputs used (the archive's example inputs unless
              --inputs DIR gives in0.npy ... or --make-inputs SEED draws them)
  out<k>.npy  the user outputs

SymInt/SymBool/SymFloat values are 0-d int64/bool/float64 arrays, bfloat16
tensors float32 (as the oracle writes them).  Then, for example:

  epdbg MODEL.pt2 --inputs OUTDIR -ex 'compare OUTDIR'

A developer tool: the tests read the folders it made (tests/refs/nodes_*),
they do not run it.
"""
import argparse
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_ORACLE = os.path.join(HERE, '..', '..', '..', 'shared', 'tools', 'oracle.py')


def load_oracle(path):
    spec = importlib.util.spec_from_file_location('oracle', path)
    if spec is None or not os.path.exists(path):
        raise SystemExit('dump_nodes: no oracle at %s (use --oracle PATH)' % path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def value_names(oracle, out):
    """The graph names one node output defines."""
    kind, v = oracle.one(out)
    if kind == 'as_tensor':
        return [v['name']]
    if kind == 'as_tensors':
        return [t['name'] for t in v]
    if kind in ('as_sym_int', 'as_sym_bool', 'as_sym_float'):
        sk, name = oracle.one(v)
        return [name] if sk == 'as_name' else []
    return []


def recording_interp(oracle, prog):
    """An oracle Interp that keeps a copy of each node output as it is stored."""
    torch = oracle.torch

    class Recorder(oracle.Interp):
        def __init__(self, p):
            super().__init__(p)
            self.seen = {}

        def store_one(self, node, o, r):
            super().store_one(node, o, r)
            for name in value_names(oracle, o):
                v = self.env.get(name)
                self.seen[name] = v.clone() if isinstance(v, torch.Tensor) else v

    return Recorder(prog)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split('\n\n', 1)[1])
    ap.add_argument('model', help='the .pt2 archive')
    ap.add_argument('outdir', help='folder for NAME.npy, in<k>.npy, out<k>.npy')
    src = ap.add_mutually_exclusive_group()
    src.add_argument('--inputs', metavar='DIR', help='read the user inputs from DIR/in0.npy ...')
    src.add_argument('--make-inputs', type=int, metavar='SEED', help='draw seeded random inputs (as the oracle)')
    ap.add_argument('--program', metavar='NAME', help='which program of a PT2 archive (default: model)')
    ap.add_argument('--oracle', default=DEFAULT_ORACLE, help='path of oracle.py (default: ../shared/tools)')
    ap.add_argument('--meta-check', choices=['error', 'warn'], default='error')
    a = ap.parse_args(argv)

    oracle = load_oracle(a.oracle)
    torch, np = oracle.torch, oracle.np
    torch.set_grad_enabled(False)
    torch.set_num_threads(1)
    try:
        prog = oracle.load_program(a.model, a.program)
        interp = recording_interp(oracle, prog)
        interp.meta_check = a.meta_check
        users = interp.user_inputs()
        if a.inputs:
            vals = []
            for i, (kind, name) in enumerate(users):
                p = os.path.join(a.inputs, 'in%d.npy' % i)
                if not os.path.exists(p):
                    raise SystemExit('dump_nodes: %s is missing (%d user inputs)' % (p, len(users)))
                vals.append(oracle.from_numpy(np.load(p), kind, name, prog.graph))
        elif a.make_inputs is not None:
            vals = oracle.make_inputs(interp, a.make_inputs)
        else:
            vals = oracle.sample_inputs(prog, interp)
        given = [oracle.fresh(v) for v in vals]
        outs = interp.run([oracle.fresh(v) for v in vals], oracle.fresh_store(prog.state),
                          oracle.fresh_store(prog.consts))
    except oracle.Refused as e:
        print('dump_nodes: %s: refused: %s' % (a.model, e), file=sys.stderr)
        return 2
    except oracle.Rejected as e:
        print('dump_nodes: %s: the program rejected its inputs: %s' % (a.model, e), file=sys.stderr)
        return 3

    os.makedirs(a.outdir, exist_ok=True)
    for i, v in enumerate(given):
        np.save(os.path.join(a.outdir, 'in%d.npy' % i), oracle.to_numpy(v))
    for i, v in enumerate(outs):
        np.save(os.path.join(a.outdir, 'out%d.npy' % i), oracle.to_numpy(v))
    skipped = []
    for name, v in interp.seen.items():
        if v is None or '/' in name or name.startswith('.'):
            skipped.append(name)
            continue
        np.save(os.path.join(a.outdir, name + '.npy'), oracle.to_numpy(v))
    print('dump_nodes: %d values, %d inputs, %d outputs written to %s%s'
          % (len(interp.seen) - len(skipped), len(given), len(outs), a.outdir,
             ' (skipped: %s)' % ', '.join(skipped) if skipped else ''))
    return 0


if __name__ == '__main__':
    sys.exit(main())
