# args: build/fixtures/dyn_broadcast_static.pt2
# exit: 1
# suggest: x + y with x (4, 3), y (4, 1), exported static (tests/src/dyn_fixtures.md,
# "broadcast"): broadcasting ties y.shape[0] to x.shape[0], so asking for
# x.shape[0] gives both the one Dim; y.shape[1] is 1 and stays so.
suggest --dynamic x:0=batch
suggest --dynamic x:0 --json --no-run
# an input that does not exist: one message, and the session goes on
suggest --dynamic z:0
suggest --dynamic x:5
suggest
