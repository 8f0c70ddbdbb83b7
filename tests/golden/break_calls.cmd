# args: build/fixtures/calls.pt2 --source-dir .
# exit: 1
# gdb's break habits: FILE:FUNC stops once per call of the function (at the
# call's first node), even when two calls follow each other; `break` alone
# breaks here, at the node about to run, and is an error once nothing is.
# (out0 = relu(x) / 4 - 1/2, checked by hand against `print/x x`.)
break calls.py:block
run
continue
info breakpoints
break
break if nan
info breakpoints
delete
break calls.py:forward
goto end
break
