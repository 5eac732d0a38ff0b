# blockkit electrum through a real Electrum client from the npm registry
# (@mempool/electrum-client in tests/npm), over TCP and TLS; with the
# address index, every scripthash, transaction and merkle vector of the
# regtest chain (tests/electrum_client.mjs says what it checks).
add_test(NAME electrum_client
  COMMAND node ${CMAKE_SOURCE_DIR}/tests/electrum_client.mjs $<TARGET_FILE:blockkit> ${CMAKE_SOURCE_DIR}
          ${CMAKE_BINARY_DIR}/regtest/full $<TARGET_FILE:index-fail>)
set_tests_properties(electrum_client PROPERTIES FIXTURES_REQUIRED regtest TIMEOUT 600)
