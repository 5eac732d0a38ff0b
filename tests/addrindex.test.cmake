# The address index (docs/index.md): tests/addrindex/addrindex_cli.sh builds
# it over the regtest datadir and checks it against the Electrum vectors
# (tests/data/regtest/electrum), reorgs, kills and bad input. ldb-dump
# (tests/tools/ldb_dump.c) prints an index's rows to compare two of them.
add_executable(ldb-dump ${CMAKE_SOURCE_DIR}/tests/tools/ldb_dump.c)
target_link_libraries(ldb-dump PRIVATE blockkit_static bk_leveldb)
add_test(NAME addrindex_cli COMMAND bash ${CMAKE_SOURCE_DIR}/tests/addrindex/addrindex_cli.sh)
set_tests_properties(addrindex_cli PROPERTIES FIXTURES_REQUIRED regtest TIMEOUT 900
  ENVIRONMENT "BK=$<TARGET_FILE:blockkit>;LDB_DUMP=$<TARGET_FILE:ldb-dump>;INDEX_FAIL=$<TARGET_FILE:index-fail>;DATA=${CMAKE_SOURCE_DIR}/tests/data;REGTEST=${CMAKE_BINARY_DIR}/regtest;${BK_SAN_ENV}")
