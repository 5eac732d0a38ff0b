# test_ssz_state runs the @lodestar/types oracle (node + tests/npm/node_modules).
set_tests_properties(test_ssz_state PROPERTIES TIMEOUT 300)
