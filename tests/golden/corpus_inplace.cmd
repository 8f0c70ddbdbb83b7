# args: ../shared/corpus/velox__in_place_test.pt2 --inputs ../shared/corpus/velox__in_place_test.ref
# needs: corpus
# exit: 0
# In-place ops write into their inputs; going back restores what they
# overwrote, exactly.
info graph
print a[:4]
stats a
break /add_/
run
info node
step
print a[:4]
stats a
reverse-step
print a[:4]
stats a
delete
goto end
print add__6[:4]
reverse-continue
print a[:4]
