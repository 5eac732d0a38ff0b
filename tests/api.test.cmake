# The public API's house rules (scripts/check-api.sh, docs/libblockkit.3
# CONVENTIONS): the umbrella header includes every public header, every
# bk_status function but the error recorders is BK_WARN_UNUSED, no
# BK_NONNULL; and the check itself on made-up trees.
add_test(NAME api COMMAND sh ${CMAKE_SOURCE_DIR}/scripts/check-api.sh ${CMAKE_SOURCE_DIR})
add_test(NAME api_selftest COMMAND sh ${CMAKE_SOURCE_DIR}/tests/api_selftest.sh ${CMAKE_SOURCE_DIR})
