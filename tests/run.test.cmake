# `blockkit block --summary` (the single-block showcase): block 866342 at verbosity 3 with undo
# line (fees come from the undo data: coinbase 3.17526183 = 3.125 subsidy + fees).
add_test(NAME run_summary_block866342
  COMMAND blockkit block ${CMAKE_SOURCE_DIR}/data/block866342.raw
          --undo ${CMAKE_SOURCE_DIR}/data/block866342_undo.raw --verbosity 3 --pretty --summary -o /dev/null)
set_tests_properties(run_summary_block866342 PROPERTIES
  PASS_REGULAR_EXPRESSION "height 866342: 4864 txs, fees 0\\.05026183 BTC, 1581623 bytes in")
