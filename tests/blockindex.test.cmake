# Core's block index as the chain source: tests/test_blockindex.c, and the
# CLI on the unpacked regtest datadir (the `regtest` fixture).
set_tests_properties(test_blockindex PROPERTIES FIXTURES_REQUIRED regtest)
set(BK_RT ${CMAKE_BINARY_DIR}/regtest)
set(BK_RT_DATA ${CMAKE_SOURCE_DIR}/tests/data/regtest)
# scan of the whole chain from the index equals Core's getblock, line for line.
foreach(v 1 3)
  add_test(NAME blockindex_scan_v${v}
    COMMAND sh -c "$<TARGET_FILE:blockkit> scan --datadir ${BK_RT}/full --chain regtest --verbosity ${v} --core-compat 28 -j2 --force -o ${CMAKE_BINARY_DIR}/blockindex_scan_v${v}.out 2>/dev/null && zstd -dcq ${BK_RT_DATA}/core_getblock_v${v}.ndjson.zst | cmp - ${CMAKE_BINARY_DIR}/blockindex_scan_v${v}.out")
endforeach()
# The source used is named on stderr.
add_test(NAME blockindex_scan_source_line
  COMMAND sh -c "$<TARGET_FILE:blockkit> scan --datadir ${BK_RT}/full --chain regtest --end 0 2>&1 >/dev/null")
set_tests_properties(blockindex_scan_source_line PROPERTIES
  PASS_REGULAR_EXPRESSION "chain from Core's block index .*979 blocks, tip at height 939 \\(the chainstate's best block\\)")
# Pruned copy: heights 448.. exactly as on the full node, the pruned range
# skipped with one line; --start inside it is an error naming 448.
add_test(NAME blockindex_scan_pruned
  COMMAND sh -c "$<TARGET_FILE:blockkit> scan --datadir ${BK_RT}/pruned --chain regtest --verbosity 1 --core-compat 28 --force -o ${CMAKE_BINARY_DIR}/blockindex_scan_pruned.out 2>/dev/null && zstd -dcq ${BK_RT_DATA}/core_getblock_v1.ndjson.zst | tail -n +449 | cmp - ${CMAKE_BINARY_DIR}/blockindex_scan_pruned.out")
add_test(NAME blockindex_scan_pruned_note
  COMMAND sh -c "$<TARGET_FILE:blockkit> scan --datadir ${BK_RT}/pruned --chain regtest --end 450 2>&1 >/dev/null")
set_tests_properties(blockindex_scan_pruned_note PROPERTIES
  PASS_REGULAR_EXPRESSION "heights 0-447 skipped: no block data on this node \\(pruned\\)")
add_test(NAME blockindex_scan_pruned_start
  COMMAND sh -c "$<TARGET_FILE:blockkit> scan --datadir ${BK_RT}/pruned --chain regtest --start 100 >/dev/null 2>&1; test $? -eq 66 && $<TARGET_FILE:blockkit> scan --datadir ${BK_RT}/pruned --chain regtest --start 100 2>&1 >/dev/null")
set_tests_properties(blockindex_scan_pruned_start PROPERTIES
  PASS_REGULAR_EXPRESSION "height 100 has no block data on this node \\(pruned\\); the lowest available height is 448")
# chain: every block of the index; pruned ones without data.
add_test(NAME blockindex_chain_pruned
  COMMAND sh -c "$<TARGET_FILE:blockkit> chain --datadir ${BK_RT}/pruned --chain regtest 2>/dev/null | grep -c '\"data\":false'")
set_tests_properties(blockindex_chain_pruned PROPERTIES PASS_REGULAR_EXPRESSION "^448\n$")
# --source index without an index: exit 66; --source files still works.
add_test(NAME blockindex_source_missing
  COMMAND sh -c "$<TARGET_FILE:blockkit> chain --datadir ${BK_RT}/full --chain regtest --source index --blockindex ${BK_RT}/none >/dev/null 2>&1; test $? -eq 66")
add_test(NAME blockindex_source_files
  COMMAND sh -c "$<TARGET_FILE:blockkit> chain --datadir ${BK_RT}/full --chain regtest --source files 2>&1 >/dev/null")
set_tests_properties(blockindex_source_files PROPERTIES
  PASS_REGULAR_EXPRESSION "chain from the blk/rev file headers .*--source files")
set_tests_properties(blockindex_scan_v1 blockindex_scan_v3 blockindex_scan_source_line blockindex_scan_pruned
  blockindex_scan_pruned_note blockindex_scan_pruned_start blockindex_chain_pruned blockindex_source_missing
  blockindex_source_files PROPERTIES FIXTURES_REQUIRED regtest)
# A node started with -blocksdir: blk/rev files elsewhere, the index and the
# chainstate in the datadir. --datadir with --blocksdir, or --blockindex,
# finds both; the listing equals the plain datadir's.
add_test(NAME blockindex_moved_blocksdir
  COMMAND sh -c "set -e; m=${CMAKE_BINARY_DIR}/blockindex_moved; rm -rf $m; mkdir -p $m; cp -R ${BK_RT}/full/regtest/blocks $m/blocks; chmod -R u+w $m; rm -rf $m/blocks/index; B=$<TARGET_FILE:blockkit>; $B chain --datadir ${BK_RT}/full --chain regtest > $m/want 2>/dev/null; $B chain --datadir ${BK_RT}/full --blocksdir $m/blocks --chain regtest > $m/got1 2>$m/err1; $B chain --blocksdir $m/blocks --blockindex ${BK_RT}/full/regtest/blocks/index --chain regtest > $m/got2 2>$m/err2; cmp $m/want $m/got1; cmp $m/want $m/got2; cat $m/err1 $m/err2; rm -rf $m")
set_tests_properties(blockindex_moved_blocksdir PROPERTIES FIXTURES_REQUIRED regtest
  PASS_REGULAR_EXPRESSION "best block\\)\n.*best block\\)")
set_tests_properties(test_plain_datadir PROPERTIES FIXTURES_REQUIRED regtest)
