# args: examples/mlp.pt2
# exit: 0
help
help reverse-step
help info shapes
help break
help info
info
h b
q
echo not reached: quit ends the script
