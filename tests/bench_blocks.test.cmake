# The bench blocks directory (scripts/gen_bench_blocks.c, issue 29 item 5):
# gen-bench-blocks writes one from the mainnet vector blocks with every
# transaction distinct; tests/bench_blocks.sh checks it is a chain whose
# every txid is distinct, whose undo data still belongs to its blocks
# (export's fee and undo checks), deterministic for a seed.
add_executable(gen-bench-blocks ${CMAKE_SOURCE_DIR}/scripts/gen-bench-blocks.c ${CMAKE_SOURCE_DIR}/scripts/gen_bench_blocks.c)
target_link_libraries(gen-bench-blocks PRIVATE blockkit_static)
add_test(NAME bench_blocks_gen
  COMMAND bash ${CMAKE_SOURCE_DIR}/tests/bench_blocks.sh)
set_tests_properties(bench_blocks_gen PROPERTIES
  ENVIRONMENT "BK=$<TARGET_FILE:blockkit>;GEN=$<TARGET_FILE:gen-bench-blocks>;DATA=${CMAKE_SOURCE_DIR}/tests/data;REGTEST=${CMAKE_BINARY_DIR}/regtest;${BK_SAN_ENV}"
  TIMEOUT 300)
