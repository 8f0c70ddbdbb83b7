# args: ../shared/corpus/hades-pid__exported_program.pt2
# exit: 1
# needs: corpus
# A legacy archive (placeholder l_input_data_, forward argument input_data)
# without stored inputs: inputs are given from the prompt, by either name,
# with `set NAME = FILE` before the run or `run --input`, and kept for the
# next runs.  The outputs are compared with PyTorch's (.ref/out0.npy, out1.npy).
# print, watch and display take the argument name too; `info inputs` shows
# what the next run binds and from which file, also after the guards
# rejected it.
info signature
info inputs
run
set input_data = ../shared/corpus/hades-pid__exported_program.ref/in0.npy
print l_input_data_[0, :4]
info inputs
run
print input_data[0, :4]
display input_data.shape
watch input_data
compare ../shared/corpus/hades-pid__exported_program.ref
dump l_input_data_ build/golden-inputs-x.pt
run --input l_input_data_=build/golden-inputs-x.pt
compare ../shared/corpus/hades-pid__exported_program.ref
run --input input_data=../shared/corpus/hades-pid__exported_program.ref/out0.npy
info inputs
run
run --inputs build/golden-inputs-x.pt
restart
print l_input_data_[0, :4]
run --input nosuch=../shared/corpus/hades-pid__exported_program.ref/in0.npy
run --frobnicate
