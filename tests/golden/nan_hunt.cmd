# args: build/fixtures/nan_log.pt2 --source-dir .
# exit: 0
# One command finds the node and the source line that made the NaN:
# log of a negative number, two module levels down from the input.
catch nan
run
backtrace
list
info args
stats sub
print sub
where
reverse-step
goto sub
backtrace
frame 1
list
down
list
up
