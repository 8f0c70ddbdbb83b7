#!/bin/sh
# seeds.sh OUT -- write the seed corpus of every harness into OUT/NAME
# (fuzz/README.md): the real archives of ../shared/corpus, the examples and
# the test fixtures, the JSON, pickles, arrays and expressions inside them,
# replay files recorded from the examples, and a few hand-written lines for
# the text formats.  Regenerated on every `make fuzz`; never committed.
set -eu
out=${1:?usage: seeds.sh OUT}
corpus=${EPDBG_CORPUS:-../shared/corpus}
epdbg=${EPDBG_BIN:-build/release/epdbg}
for h in program pickle npy sym cmd record zip pipeline; do
    mkdir -p "$out/$h"
done

# archives, and what is inside them (python's zipfile reads every layout)
python3 - "$out" "$corpus" examples build/fixtures <<'PY'
import glob, hashlib, io, json, os, re, sys, zipfile
out, dirs = sys.argv[1], sys.argv[2:]
def put(h, data, ext=''):
    name = hashlib.sha1(data).hexdigest()[:16] + ext
    with open(os.path.join(out, h, name), 'wb') as f:
        f.write(data)
exprs = set()
def walk(j):
    # sizes, SymInt values and range keys are the expression texts
    if isinstance(j, dict):
        for k, v in j.items():
            if k in ('expr_str', 'as_expr') and isinstance(v, str):
                exprs.add(v)
            if k == 'range_constraints' and isinstance(v, dict):
                exprs.update(v.keys())
            walk(v)
    elif isinstance(j, list):
        for v in j:
            walk(v)
def members(z, depth):
    for name in z.namelist():
        data = z.read(name)
        if name.endswith('.json') and len(data) < 1 << 20:
            try:
                j = json.loads(data)
            except ValueError:
                continue
            walk(j)
            if 'graph_module' in j or 'graph' in j:
                put('program', data)
        elif name.endswith('.pkl') and len(data) < 1 << 16:
            put('pickle', data)
        elif data[:2] == b'PK' and depth < 2 and len(data) < 1 << 20:
            put('zip', data)
            try:
                members(zipfile.ZipFile(io.BytesIO(data)), depth + 1)
            except zipfile.BadZipFile:
                pass
for d in dirs:
    for f in sorted(glob.glob(d + '/*.pt*')):
        data = open(f, 'rb').read()
        try:
            z = zipfile.ZipFile(f)
        except zipfile.BadZipFile:
            continue
        if len(data) < 1 << 20:
            put('pipeline', data)
            put('zip', data)
        members(z, 0)
    for f in sorted(glob.glob(d + '/*.ref/*.npy') + glob.glob(d + '/*.ref/*/*.npy')):
        data = open(f, 'rb').read()
        if len(data) < 1 << 16:
            put('npy', data)
for e in exprs:
    put('sym', e.encode())
PY

# .npy and .npz of the test data, replay files recorded from the examples
for f in tests/data/npy/*.np?; do
    cp "$f" "$out/npy/$(basename "$f")"
done
for m in examples/mlp.pt2 examples/cnn.pt2; do
    r="$out/record/$(basename "$m" .pt2)-replay.npz"
    "$epdbg" run "$m" --record "$r" >/dev/null 2>&1 || true
    "$epdbg" run "$m" --record "$out/record/$(basename "$m" .pt2)-all.npz" --record-all >/dev/null 2>&1 || true
    [ -f "$r" ] && cp "$r" "$out/npy/"
done

# text formats: both expression forms, commands and conditions, rc lines
i=0
while IFS= read -r line; do
    i=$((i + 1))
    printf '%s' "$line" > "$out/sym/hand$i"
done <<'SYM'
Max(2, s0)
Mod(s0, 2)
(s0//2)
Eq(s0, 3)
s0 >= 2 and s1 < 5
CeilDiv(s0, 4)*4 - s0
Add(Mul(Integer(2), Symbol('s0', integer=True, positive=True)), Integer(1))
FloorDiv(Symbol('s0'), Integer(2))
GreaterThan(Symbol('s1'), Integer(2))
Piecewise((s0, Eq(s1, 1)), (s1, True))
ModularIndexing(s0, 2, 8)
Where(s0 > 3, s0, 3) + TruncToInt(ToFloat(s0) / 2)
-oo < s0**2 <= oo
SYM
cat > "$out/cmd/script1" <<'CMD'
break relu if max > 0 && !(min < -1) || dtype == float32
tbreak #2
watch x
catch nan
run
continue
info breakpoints
print x[0]
print/x relu.shape
stats linear
display x[0, 1:2]
step 2
reverse-step
goto end
where
info node
info shapes
backtrace
up
down
delete 1
quit
CMD
cat > "$out/cmd/script2" <<'CMD'
break /lin.*/ if shape[0] >= 2 && numel != 3
set x[0] = 1.5
next
finish
until relu
info symbols
info graph /relu/
help break
CMD
cat > "$out/cmd/rc" <<'CMD'
# key bindings
bind F5 continue
bind C-l ui-redraw
bind S-Tab reverse-step
bind z
CMD
