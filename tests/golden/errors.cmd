# args: examples/mlp.pt2
# exit: 1
# Every mistake gets one clear message and the session goes on.
frobnicate
re
break nosuch_node
break /[unclosed/
break /linear/ if max >
break nosuch.py:12
catch everything
print linear
run
print nosuch
print x[0, 1:x]
print x[5]
print x[0, 0, 0]
print x[::-1]
print/q x
stats nosuch
info nosuch
info s
delete 99
enable 42
undisplay 7
until linear
step 0
step many
frame 3
dump x
dump x out.txt
set x[0, 0] = banana
set x.shape = 3
set nosuch = 1
set x = tests/refs/nan_log/in0.npy
set x = tests/refs/nosuch.npy
list nosuch
record
goto mean
finish
where
echo the session is still alive
