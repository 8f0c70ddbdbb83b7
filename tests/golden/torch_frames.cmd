# args: build/fixtures/torch_frames.pt2
# exit: 4
# Nodes whose innermost frame is torch's own code (nn.Conv2d's forward,
# OpOverload.__call__): the location shown is the user's line, the frame
# out of torch; bt keeps every frame, torch's tagged [torch], the selected
# one starred; frame/up/down still reach torch's frames.
bt
list
info node
frame
frame 0
list
up
down 1
bt frobnicate
list frobnicate
break tests/src/torch_frames.py:14
info breakpoints
run
continue
bt
