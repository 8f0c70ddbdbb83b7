# args: ../shared/corpus/hades-pid__exported_program.pt2 --input ../shared/corpus/hades-pid__exported_program.ref/in0.npy
# needs: corpus
# exit: 0
# A real training-mode model (PyTorch 2.2-era flat zip): module
# breakpoints, batch norm in training mode updating its buffers, finish
# and next over nn.Module scopes.
info signature
break module class_classifier.1
watch class_classifier.1.running_mean
run
backtrace
info node
finish
next
next 3
info shapes
stats addmm_5
print class_classifier.1.num_batches_tracked
continue
print squeeze
print _log_softmax[0]
reverse-continue
