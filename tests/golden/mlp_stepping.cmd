# args: examples/mlp.pt2 --source-dir examples/src
# exit: 0
# Stepping forwards and backwards through the MLP example; breakpoints by
# name, regex, source line and module.  `until` alone is `next`, as in gdb.
info graph
break relu
run
where
step
step 2
finish
next
info breakpoints
break /^linear/
break mlp.py:25
continue
continue 2
reverse-step
reverse-step 2
reverse-continue
goto linear_2
u
goto linear_2
until softmax
goto end
where
reverse-step
restart
disable 1
continue
enable 1
delete 2 3
info breakpoints
break module fc2
break mlp.py:forward
run
tbreak #9
continue 2
info breakpoints
delete
run
