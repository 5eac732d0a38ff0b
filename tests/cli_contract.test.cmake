# The one CLI contract (issue 27): tests/cli_contract.sh.
if(BK_SANITIZE)
  set(BK_CONTRACT_SAN 1)
else()
  set(BK_CONTRACT_SAN 0)
endif()
add_test(NAME cli_contract COMMAND bash ${CMAKE_SOURCE_DIR}/tests/cli_contract.sh)
set_tests_properties(cli_contract PROPERTIES FIXTURES_REQUIRED regtest TIMEOUT 300
  ENVIRONMENT "BK=$<TARGET_FILE:blockkit>;DATA=${CMAKE_SOURCE_DIR}/tests/data;SAMPLE=${CMAKE_SOURCE_DIR}/data/sample_blocksdir;REGTEST=${CMAKE_BINARY_DIR}/regtest;BK_SANITIZE=${BK_CONTRACT_SAN}")
