# args: ../shared/corpus/velox__dynamic_shape_test.pt2 --inputs ../shared/corpus/velox__dynamic_shape_test.ref
# needs: corpus
# exit: 1
# Data-dependent sizes: item() binds the unbacked symbol u0, which shapes
# arange; the runtime assert checks its range.
info graph
info symbols
break /arange/
run
info symbols
info shapes
info shapes arange
step
print arange
print add
# (an error on purpose: the exit status becomes 1)
reverse-step 3
info symbols
goto end
info symbols
print sum_1
