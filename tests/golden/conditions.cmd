# args: examples/cnn.pt2
# exit: 0
# Conditional breakpoints over a node's output and inputs.
info graph
break /relu/ if max > 0.5 && numel > 500
run
info breakpoints
break /conv/ if in0.min < 0 || !finite
continue
continue
delete 1
break /linear|addmm/ if shape[1] == 10 && dtype == float32
run
continue
info breakpoints
delete
break #0 if abs_max > 1e9
run
