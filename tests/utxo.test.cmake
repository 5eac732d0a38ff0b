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
