# BIP158 filters and merkle proofs against Core's answers for the regtest
# datadir (tests/data/indexes): the C tests read the unpacked datadir.
set_tests_properties(test_blockfilter PROPERTIES FIXTURES_REQUIRED regtest)
set_tests_properties(test_merkle_proof PROPERTIES FIXTURES_REQUIRED regtest)
# The proof command end to end (tests/proof/proof_cli.sh).
add_test(NAME proof_cli COMMAND bash ${CMAKE_SOURCE_DIR}/tests/proof/proof_cli.sh)
set_tests_properties(proof_cli PROPERTIES FIXTURES_REQUIRED regtest TIMEOUT 300
  ENVIRONMENT "BK=$<TARGET_FILE:blockkit>;DATA=${CMAKE_SOURCE_DIR}/tests/data;REGTEST=${CMAKE_BINARY_DIR}/regtest;${BK_SAN_ENV}")
# The filter command end to end (tests/filter/filter_cli.sh).
add_test(NAME filter_cli COMMAND bash ${CMAKE_SOURCE_DIR}/tests/filter/filter_cli.sh)
set_tests_properties(filter_cli PROPERTIES FIXTURES_REQUIRED regtest TIMEOUT 300
  ENVIRONMENT "BK=$<TARGET_FILE:blockkit>;DATA=${CMAKE_SOURCE_DIR}/tests/data;REGTEST=${CMAKE_BINARY_DIR}/regtest;${BK_SAN_ENV}")
