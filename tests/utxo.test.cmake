# The UTXO set tests read the real regtest node's chainstate and block index
# (unpacked by the regtest fixture) and Core's answers in tests/data/regtest.
set_tests_properties(test_utxo PROPERTIES FIXTURES_REQUIRED regtest)

# scripts/gen-utxo.c: the synthetic 10M-coin chainstate + snapshot for the
# Utxo/* benchmarks (build/gen-utxo DIR [N]); built, never installed. A
# small run is checked against the readers: the same coins and statistics
# from both files.
add_executable(gen-utxo ${CMAKE_SOURCE_DIR}/scripts/gen-utxo.c)
target_link_libraries(gen-utxo PRIVATE blockkit_static)
add_test(NAME utxo_gen_small
  COMMAND sh ${CMAKE_SOURCE_DIR}/tests/utxo-gen-check.sh $<TARGET_FILE:gen-utxo> $<TARGET_FILE:blockkit>)

# docs/utxo.md's DuckDB queries over `utxo dump`, checked against Core's
# gettxout answers (needs node and the npm test tools: make deps-test).
# Registered whether or not tests/npm/node_modules exists at configure time
# (`make -jN test` may configure before `npm ci` is done): without the tools
# the test fails, it does not silently drop out of the count.
add_test(NAME utxo_duckdb_docs
  COMMAND node ${CMAKE_SOURCE_DIR}/tests/utxo_duckdb.mjs $<TARGET_FILE:blockkit>
          ${CMAKE_BINARY_DIR}/regtest ${CMAKE_SOURCE_DIR})
set_tests_properties(utxo_duckdb_docs PROPERTIES FIXTURES_REQUIRED regtest)
