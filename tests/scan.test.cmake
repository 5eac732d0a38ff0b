# `make run`'s job (scripts/run-main.sh): scan the bundled sample blocks
# directory at verbosity 3 and print the first block pretty, then the
# summary. Fees come from the undo data: 4,737,355 + 14,001,930 +
# 5,026,183 sat (docs/blockfiles.md).
add_test(NAME run_main_scan
  COMMAND sh -c "${CMAKE_SOURCE_DIR}/scripts/run-main.sh $<TARGET_FILE:blockkit> > /dev/null")
set_tests_properties(run_main_scan PROPERTIES
  PASS_REGULAR_EXPRESSION "scan: 3 blocks \\(heights 277647-866342\\), 5497 txs, fees 0\\.23765468 BTC")
# The pretty first block is `blockkit block --pretty` of block 277647 with
# its rev record (confirmations 1: the context of a lone block).
add_test(NAME run_main_first_block
  COMMAND sh -c "${CMAKE_SOURCE_DIR}/scripts/run-main.sh $<TARGET_FILE:blockkit> 2>/dev/null | cmp - ${CMAKE_BINARY_DIR}/run_main_expected.json"
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}/tests/data)
add_test(NAME run_main_first_block_expected
  COMMAND $<TARGET_FILE:blockkit> block blocks/block277647.raw --undo undo/rev_record_block277647.dat
          --verbosity 3 --pretty -o ${CMAKE_BINARY_DIR}/run_main_expected.json
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}/tests/data)
set_tests_properties(run_main_first_block_expected PROPERTIES FIXTURES_SETUP run_main_expected)
set_tests_properties(run_main_first_block PROPERTIES FIXTURES_REQUIRED run_main_expected)
