# args: build/fixtures/nan_log.pt2 --input build/fixtures/nan_input.npy
# exit: 0
# Fed a NaN: the first non-finite output is the first node, which only
# passed on what its input already held.
catch nan
run
info args
stats x
continue
