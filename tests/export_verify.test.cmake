# export --verify and reruns that repair what it rejects (issue 29 items 1-3;
# docs/export.md "Provenance and --verify"): tests/export/verify_cli.sh.
# index-fail (tests/tools/index_fail.c) makes a copy of the regtest block
# index prefer the stale branch at 574..579, as invalidateblock would.
add_executable(index-fail ${CMAKE_SOURCE_DIR}/tests/tools/index_fail.c)
target_link_libraries(index-fail PRIVATE blockkit_static bk_leveldb)
add_test(NAME export_verify
  COMMAND bash ${CMAKE_SOURCE_DIR}/tests/export/verify_cli.sh)
set_tests_properties(export_verify PROPERTIES FIXTURES_REQUIRED "regtest;synth_small"
  ENVIRONMENT "BK=$<TARGET_FILE:blockkit>;INDEX_FAIL=$<TARGET_FILE:index-fail>;GEN_SYNTH=$<TARGET_FILE:gen-synth-datadir>;REGTEST=${CMAKE_BINARY_DIR}/regtest;DATA=${CMAKE_SOURCE_DIR}/tests/data;WORK=${CMAKE_BINARY_DIR}/export-verify;${BK_SAN_ENV}"
  TIMEOUT 300)
# The footer's provenance read back by DuckDB (parquet_kv_metadata) and
# hyparquet, equal to the catalogue and to Core's block hashes.
add_test(NAME export_provenance
  COMMAND sh -c "rm -rf '${CMAKE_BINARY_DIR}/export-provenance' && '$<TARGET_FILE:blockkit>' export --datadir '${CMAKE_BINARY_DIR}/regtest/full' --out '${CMAKE_BINARY_DIR}/export-provenance' --chunk-size 100 -j 2 --progress never 2>/dev/null && node '${CMAKE_SOURCE_DIR}/tests/export/check_provenance.mjs' '${CMAKE_BINARY_DIR}/export-provenance' '${CMAKE_SOURCE_DIR}/tests/data/regtest/bestchain.tsv'")
set_tests_properties(export_provenance PROPERTIES FIXTURES_REQUIRED regtest)
# --profile lean and column selection read back by DuckDB, hyparquet and
# parquet-wasm, row for row equal to the default profile; the DuckDB queries
# over lean tables of docs/export.md (tests/export/check_profiles.mjs).
add_test(NAME export_profiles
  COMMAND node ${CMAKE_SOURCE_DIR}/tests/export/check_profiles.mjs $<TARGET_FILE:blockkit> ${CMAKE_BINARY_DIR}/export-profiles
          -- --datadir ${CMAKE_BINARY_DIR}/regtest/full)
set_tests_properties(export_profiles PROPERTIES FIXTURES_REQUIRED regtest TIMEOUT 300)
