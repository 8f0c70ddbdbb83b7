# args: examples/mlp.pt2
# exit: 0
help
help reverse-step
help info shapes
info
h b
q
echo not reached: quit ends the script
