# args: ../shared/corpus/velox__view_interleave_test.pt2 --inputs ../shared/corpus/velox__view_interleave_test.ref
# needs: corpus
# exit: 0
# A real archive where float32 overflows: nan_to_num turns inf into the
# largest float32, and doubling it overflows again; float64 does not.
# compare against PyTorch's outputs in the .ref folder shows PyTorch gets
# the same infinities.
check numerics
compare ../shared/corpus/velox__view_interleave_test.ref
info graph
