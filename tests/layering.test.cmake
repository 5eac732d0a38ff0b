# The folder layering (scripts/check-layering.sh): no folder of src/ includes
# one listed after it in the layer order (so no folder loop), cli/ uses only
# the public headers and its own; and the check itself on made-up trees.
add_test(NAME layering COMMAND sh ${CMAKE_SOURCE_DIR}/scripts/check-layering.sh --graph ${CMAKE_SOURCE_DIR})
add_test(NAME layering_selftest COMMAND sh ${CMAKE_SOURCE_DIR}/tests/layering_selftest.sh ${CMAKE_SOURCE_DIR})
