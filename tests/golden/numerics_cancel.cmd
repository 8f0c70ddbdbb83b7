# args: build/fixtures/cancel.pt2
# exit: 0
# A variance computed as E[h^2] - E[h]^2 on values near 100: float32 keeps
# no correct digit in the subtraction.  check numerics names the sub node
# and says its inputs were fine (the subtraction amplified their rounding).
check numerics
check numerics --all
run
print sub
print mean_1
print mul_1
check numerics --rtol 200 --atol 1
