# The one CLI contract (issue 27): tests/cli_contract.sh.
add_test(NAME cli_contract COMMAND bash ${CMAKE_SOURCE_DIR}/tests/cli_contract.sh)
set_tests_properties(cli_contract PROPERTIES FIXTURES_REQUIRED regtest TIMEOUT 300
  ENVIRONMENT "BK=$<TARGET_FILE:blockkit>;DATA=${CMAKE_SOURCE_DIR}/tests/data;SAMPLE=${CMAKE_SOURCE_DIR}/data/sample_blocksdir;REGTEST=${CMAKE_BINARY_DIR}/regtest;${BK_SAN_ENV}")
# The tests that need the npm tools (tests/npm/node_modules) are registered
# without them too: listed by ctest -N here and in this source configured
# without node_modules (a tree of links; configure only).
add_test(NAME cli_contract_npm_registration
  COMMAND bash ${CMAKE_SOURCE_DIR}/tests/cli_contract.sh npm-registration ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
set_tests_properties(cli_contract_npm_registration PROPERTIES TIMEOUT 300
  ENVIRONMENT "CTEST=${CMAKE_CTEST_COMMAND};CMAKE=${CMAKE_COMMAND}")
