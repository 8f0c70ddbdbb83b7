# args: examples/mlp.pt2 --source-dir examples/src
# exit: 0
# Looking at values: printing like torch, slices, hex, statistics, node
# and shape information, displays, dumps and edits.
break gelu
run
print x
print x[0, :5]
print x[-1, ::4]
print x.shape
print x.dtype
print/x x[0, 0:2]
print fc1.weight[0]
print p_fc1_bias[:4]
stats linear_1
stats x[1]
info node
info args
info shapes
info shapes gelu
info symbols
info signature
display gelu[0, :3]
display relu.shape
step
info display
undisplay 1
next
undisplay
dump linear_1 build/golden-linear_1.npy
dump x[0] build/golden-x0.npy
set gelu[0, 0] = 100
print gelu[0, :3]
continue
print softmax[0]
restart
delete
set x = tests/refs/mlp/in0.npy
continue
print softmax[0]
