# test_ssz_state runs the @lodestar/types oracle (node + tests/npm/node_modules).
set_tests_properties(test_ssz_state PROPERTIES TIMEOUT 300)
# ssz root --set: the first line is the plain root; the second the root after the edit
# (test_ssz_state checks the cached tree against full recomputation).
add_test(NAME ssz_root_set_cli
  COMMAND sh -c "b=$<TARGET_FILE:blockkit>; f=${CMAKE_BINARY_DIR}/ssz_set_state.ssz; $b ssz synth electra:BeaconState --count 300 --min-limit 16777216 > $f && a=$($b ssz root electra:BeaconState --raw $f) && out=$($b ssz root electra:BeaconState --raw $f --set balances.17=0x0100000000000000) && test \"$(echo \"$out\" | head -n 1)\" = \"$a\" && test \"$(echo \"$out\" | wc -l)\" = 2 && test \"$(echo \"$out\" | tail -n 1)\" != \"$a\"")
