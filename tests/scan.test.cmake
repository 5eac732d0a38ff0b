# `make run`'s job (scripts/run-main.sh): scan the bundled sample blocks
# directory at verbosity 3, print the first block's header fields pretty,
# then the summary: what was scanned and that block 277647 (as a v28 node
# renders it) equals Core's own getblock 3 answer. Fees come from the undo
# data: 4,737,355 + 14,001,930 + 5,026,183 sat (docs/blockfiles.md).
add_test(NAME run_main_scan
  COMMAND sh -c "${CMAKE_SOURCE_DIR}/scripts/run-main.sh $<TARGET_FILE:blockkit> > /dev/null")
set_tests_properties(run_main_scan PROPERTIES
  PASS_REGULAR_EXPRESSION "make run: ok: scanned 3 blocks \\(heights 277647-866342\\), 5497 txs, fees 0\\.23765468 BTC at verbosity 3 into [0-9.]+ MB of NDJSON; block 277647 equals Bitcoin Core's own getblock 3 answer byte for byte\\. For speed: blockkit bench")
# The excerpt of the first block is `blockkit block --pretty` of block 277647
# with its rev record (confirmations 1: the context of a lone block) cut
# after `"tx": [`, then one line for its 213 transactions and the array's
# end; the summary is the last line, and the whole of `make run` (with its
# one build line) stays within 40 lines.
add_test(NAME run_main_first_block
  COMMAND sh -c "set -e; ${CMAKE_SOURCE_DIR}/scripts/run-main.sh $<TARGET_FILE:blockkit> > run_main_out.txt 2> run_main_err.txt; \
    sed -n '2,/^  \"tx\": \\[$/p' run_main_out.txt > run_main_head.txt; \
    sed -n '1,/^  \"tx\": \\[$/p' ${CMAKE_BINARY_DIR}/run_main_expected.json | cmp - run_main_head.txt; \
    tail -n 3 run_main_out.txt | cmp - ${CMAKE_SOURCE_DIR}/tests/data/run_main_tail.txt; \
    tail -n 1 run_main_err.txt | grep -q '^make run: ok: '; \
    test $(cat run_main_out.txt run_main_err.txt | wc -l) -lt 40"
  WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
add_test(NAME run_main_first_block_expected
  COMMAND $<TARGET_FILE:blockkit> block blocks/block277647.raw --undo undo/rev_record_block277647.dat
          --verbosity 3 --pretty -o ${CMAKE_BINARY_DIR}/run_main_expected.json
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}/tests/data)
set_tests_properties(run_main_first_block_expected PROPERTIES FIXTURES_SETUP run_main_expected)
set_tests_properties(run_main_first_block PROPERTIES FIXTURES_REQUIRED run_main_expected)
