# blockkit export (docs/export.md): every chunk of the exports of the sample
# directories and of the real regtest datadir read back by DuckDB, hyparquet
# and parquet-wasm (tests/npm), equal to the CSV and NDJSON exports, and
# equal field by field to getblock verbosity 3 JSON (Core's own answers for
# regtest, `blockkit scan` elsewhere); the analyst queries of docs/export.md;
# SIGKILL/resume byte identity. Needs node and tests/npm/node_modules.
set(BK_EXPORT_CHECK ${CMAKE_SOURCE_DIR}/tests/export/check_export.mjs)
set(BK_EXPORT_TMP ${CMAKE_BINARY_DIR}/export-tests)
add_test(NAME export_sample
  COMMAND node ${BK_EXPORT_CHECK} --bk $<TARGET_FILE:blockkit> --tmp ${BK_EXPORT_TMP}/sample --queries --
          --blocksdir ${CMAKE_SOURCE_DIR}/data/sample_blocksdir --orphans)
foreach(f mainnet_blocks_1-255 btcd_testchain_blk_0_to_4 regtest_getblockstats_0-103)
  set(chain main)
  if(f MATCHES "^regtest")
    set(chain regtest)
  endif()
  set(d ${BK_EXPORT_TMP}/blkdir_${f})
  add_test(NAME export_blkfile_${f}
    COMMAND sh -c "rm -rf '${d}' && mkdir -p '${d}' && ln -s '${CMAKE_SOURCE_DIR}/tests/data/blkfiles/${f}.blk' '${d}/blk00000.dat' && node '${BK_EXPORT_CHECK}' --bk '$<TARGET_FILE:blockkit>' --tmp '${BK_EXPORT_TMP}/${f}' -- --blocksdir '${d}' --chain ${chain} --allow-missing-undo --chunk-size 50")
endforeach()
# Regtest against Core's getblock 3 answers, every height 0..939: the chain
# and undo positions come from Core's block index, so the same-shape
# siblings at 584/585 get their own undo (tests/data/regtest/README.md).
add_test(NAME export_regtest_all
  COMMAND node ${BK_EXPORT_CHECK} --bk $<TARGET_FILE:blockkit> --tmp ${BK_EXPORT_TMP}/regtest_all
          --core ${CMAKE_SOURCE_DIR}/tests/data/regtest/core_getblock_v3.ndjson.zst --
          --datadir ${CMAKE_BINARY_DIR}/regtest/full --chain regtest --chunk-size 100)
# The header scan (--source files) cannot tell those siblings apart: the
# export refuses 584 (fee out of range, exit 65) rather than write a wrong fee.
add_test(NAME export_regtest_files_584
  COMMAND sh -c "$<TARGET_FILE:blockkit> export --datadir '${CMAKE_BINARY_DIR}/regtest/full' --chain regtest --source files --start 584 --end 584 --out '${BK_EXPORT_TMP}/regtest_584' --progress never 2>/dev/null; test $? -eq 65")
# A pruned node: the kept blocks (448..939) export with their true heights.
add_test(NAME export_regtest_pruned
  COMMAND sh -c "rm -rf '${BK_EXPORT_TMP}/pruned' && $<TARGET_FILE:blockkit> export --datadir '${CMAKE_BINARY_DIR}/regtest/pruned' --chain regtest --datasets blocks --format csv --chunk-size 1000 --out '${BK_EXPORT_TMP}/pruned' --progress never 2>/dev/null && tail -n +2 '${BK_EXPORT_TMP}'/pruned/blocks/*.csv | cut -d, -f5 | sort -n | sed -n '1p;$p' | tr '\\n' ' '")
set_tests_properties(export_regtest_pruned PROPERTIES PASS_REGULAR_EXPRESSION "(^|[^0-9])448 939 ")
add_test(NAME export_resume
  COMMAND node ${CMAKE_SOURCE_DIR}/tests/export/check_resume.mjs --bk $<TARGET_FILE:blockkit> --tmp ${BK_EXPORT_TMP}/resume --
          --datadir ${CMAKE_BINARY_DIR}/regtest/full --chain regtest --start 585 --chunk-size 20)
add_test(NAME export_usage
  COMMAND sh -c "$<TARGET_FILE:blockkit> export --help | grep -q 'usage: blockkit export' && { $<TARGET_FILE:blockkit> export --blocksdir /nonexistent 2>/dev/null; test $? -eq 64; } && { $<TARGET_FILE:blockkit> export --blocksdir /nonexistent --out '${BK_EXPORT_TMP}/none' 2>/dev/null; test $? -eq 66; } && { $<TARGET_FILE:blockkit> export --blocksdir x --out y --format xml 2>/dev/null; test $? -eq 64; }")
set_tests_properties(export_regtest_all export_regtest_files_584 export_regtest_pruned export_resume
  PROPERTIES FIXTURES_REQUIRED regtest)
set_tests_properties(export_sample export_regtest_all
  PROPERTIES TIMEOUT 300)
# block_stats: Core's getblockstats as typed columns, every regtest height
# equal to Core's own answers (NDJSON and Parquet read back by DuckDB).
add_test(NAME export_block_stats
  COMMAND node ${CMAKE_SOURCE_DIR}/tests/export/check_block_stats.mjs $<TARGET_FILE:blockkit>
          ${CMAKE_BINARY_DIR}/regtest/full ${CMAKE_SOURCE_DIR}/tests/data/regtest/getblockstats.ndjson.zst
          ${BK_EXPORT_TMP}/block_stats)
set_tests_properties(export_block_stats PROPERTIES FIXTURES_REQUIRED regtest)
# block_filters: Core's getblockfilter as rows, every regtest height equal to
# Core's answers (NDJSON and Parquet read back by DuckDB), resume, --start.
add_test(NAME export_block_filters
  COMMAND node ${CMAKE_SOURCE_DIR}/tests/export/check_block_filters.mjs $<TARGET_FILE:blockkit>
          ${CMAKE_BINARY_DIR}/regtest ${CMAKE_SOURCE_DIR}/tests/data/indexes/getblockfilter.ndjson.zst
          ${BK_EXPORT_TMP}/block_filters)
set_tests_properties(export_block_filters PROPERTIES FIXTURES_REQUIRED regtest)
# sp_tweaks and sp_outputs: every row equal to the BIP352 vector of the
# regtest node (NDJSON, Parquet, lean, read back by DuckDB), --verify.
add_test(NAME export_sp
  COMMAND node ${CMAKE_SOURCE_DIR}/tests/export/check_sp.mjs $<TARGET_FILE:blockkit>
          ${CMAKE_BINARY_DIR}/regtest ${CMAKE_SOURCE_DIR}/tests/data/regtest/sp/tweaks.ndjson.zst
          ${BK_EXPORT_TMP}/sp)
set_tests_properties(export_sp PROPERTIES FIXTURES_REQUIRED regtest)
