# blockkit electrum through a real Electrum client from the npm registry
# (@mempool/electrum-client in tests/npm), over TCP and TLS; with the
# address index, every scripthash, transaction and merkle vector of the
# regtest chain (tests/electrum_client.mjs says what it checks).
add_test(NAME electrum_client
  COMMAND node ${CMAKE_SOURCE_DIR}/tests/electrum_client.mjs $<TARGET_FILE:blockkit> ${CMAKE_SOURCE_DIR}
          ${CMAKE_BINARY_DIR}/regtest/full $<TARGET_FILE:index-fail>)
set_tests_properties(electrum_client PROPERTIES FIXTURES_REQUIRED regtest TIMEOUT 600)
# The real Electrum wallet (Debian's electrum, headless daemon) against
# blockkit electrum on loopback: a watch-only wallet of regtest addresses,
# its balance, history, coins and heights against the vectors
# (tests/electrum/wallet.sh says what it checks). Skipped, saying why, when
# electrum is not installed (`make deps` installs it as an optional package).
# electrum_wallet_tls: the same over TLS (the wallet pins the server's
# self-signed certificate on first use).
foreach(transport tcp tls)
  set(name electrum_wallet)
  if(transport STREQUAL "tls")
    set(name electrum_wallet_tls)
  endif()
  add_test(NAME ${name} COMMAND bash ${CMAKE_SOURCE_DIR}/tests/electrum/wallet.sh ${transport})
  set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED regtest TIMEOUT 600 SKIP_RETURN_CODE 77
    ENVIRONMENT "BK=$<TARGET_FILE:blockkit>;DATA=${CMAKE_SOURCE_DIR}/tests/data;REGTEST=${CMAKE_BINARY_DIR}/regtest;${BK_SAN_ENV}")
endforeach()
# The loopback load tools (scripts/electrum-load.mjs and its C clients,
# scripts/electrum-loadgen.c) small and bounded: every request answered by
# both drivers, idle connections held, exit 143 (no timing is asserted).
add_executable(electrum-loadgen ${CMAKE_SOURCE_DIR}/scripts/electrum-loadgen.c)
add_test(NAME electrum_load_smoke COMMAND bash ${CMAKE_SOURCE_DIR}/tests/electrum/load_smoke.sh)
set_tests_properties(electrum_load_smoke PROPERTIES FIXTURES_REQUIRED regtest TIMEOUT 300
  ENVIRONMENT "BK=$<TARGET_FILE:blockkit>;LOADGEN=$<TARGET_FILE:electrum-loadgen>;REGTEST=${CMAKE_BINARY_DIR}/regtest;${BK_SAN_ENV}")
# An index over a blocks directory without the genesis block (the
# generator's, heights from 1): served from its first header, heights below
# it and cp_height proofs refused by name (tests/electrum/no_genesis.sh).
add_test(NAME electrum_no_genesis COMMAND bash ${CMAKE_SOURCE_DIR}/tests/electrum/no_genesis.sh)
set_tests_properties(electrum_no_genesis PROPERTIES TIMEOUT 300
  ENVIRONMENT "BK=$<TARGET_FILE:blockkit>;GEN=$<TARGET_FILE:gen-bench-blocks>;DATA=${CMAKE_SOURCE_DIR}/tests/data;${BK_SAN_ENV}")
# The mempool rows (--rpc-url) against a JSON-RPC responder standing in for
# the node, with two transactions made from the vectors
# (tests/electrum/mempool.mjs says what it checks).
add_test(NAME electrum_mempool
  COMMAND node ${CMAKE_SOURCE_DIR}/tests/electrum/mempool.mjs $<TARGET_FILE:blockkit> ${CMAKE_SOURCE_DIR}
          ${CMAKE_BINARY_DIR}/regtest/full)
set_tests_properties(electrum_mempool PROPERTIES FIXTURES_REQUIRED regtest TIMEOUT 300)
