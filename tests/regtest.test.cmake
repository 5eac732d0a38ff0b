# The real bitcoind regtest datadir (tests/data/regtest/README.md) unpacked once
# per build tree, for every test that declares FIXTURES_REQUIRED regtest:
#   ${CMAKE_BINARY_DIR}/regtest/full/regtest/...    datadir.tar.zst (blocks, index, chainstate, txindex)
#   ${CMAKE_BINARY_DIR}/regtest/pruned/regtest/...  datadir-pruned.tar.zst
# C tests get the root as BK_REGTEST_DIR. The unpacked copies are made read-only,
# so a test that tried to write into a node's datadir would fail.
add_test(NAME regtest_unpack
  COMMAND sh ${CMAKE_SOURCE_DIR}/scripts/unpack-regtest.sh
          ${CMAKE_SOURCE_DIR}/tests/data/regtest ${CMAKE_BINARY_DIR}/regtest)
set_tests_properties(regtest_unpack PROPERTIES FIXTURES_SETUP regtest)
