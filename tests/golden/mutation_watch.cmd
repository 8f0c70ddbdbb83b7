# args: build/fixtures/mutation.pt2
# exit: 0
# Watching a buffer and a user input that the program mutates.
info signature
watch b_count
watch x
info watchpoints
print count
print x
run
print count
reverse-step
print count
continue
restart
print count
print x
record build/golden-mutation.npz
record build/golden-mutation-all.npz --all
