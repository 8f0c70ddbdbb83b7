# args: examples/mlp.pt2
# exit: 1
# Comparing every value with references dumped from PyTorch
# (tests/tools/dump_nodes.py), the float64 shadow of a well-conditioned
# model, and the mistakes the numerics commands explain.
compare tests/refs/nodes_mlp
compare tests/refs/nodes_mlp --rtol 0 --atol 0 --all
check numerics
check numerics --rtol 1e-7 --atol 0
break add
run
check numerics
where
check
check numbers
compare
compare tests/refs/nosuch
compare tests/refs/nodes_mlp --rtol fast
