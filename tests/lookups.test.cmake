# Lookups without a node (docs/blockfiles.md "Lookups without a node").
#
# gen-synth-datadir (scripts/gen-synth-datadir.c): the synthetic regtest
# datadir generator behind the ChainFromIndex/ChainFromFiles benchmarks.
# Built with the tests, never installed.
add_executable(gen-synth-datadir ${CMAKE_SOURCE_DIR}/scripts/gen-synth-datadir.c)
target_link_libraries(gen-synth-datadir PRIVATE blockkit_static bk_leveldb)
# getblockheader / getblock / getrawtransaction / getchaintips from the regtest
# datadir and its pruned copy against Core's answers (tests/test_lookup.c).
set_tests_properties(test_lookup PROPERTIES FIXTURES_REQUIRED regtest)
# A small synthetic datadir (3000 blocks, 64 KiB files, a txindex) for the
# cases the regtest node lacks (a headers-only branch) and for checking the
# block index against the header scan of the same files.
add_test(NAME synth_small_gen
  COMMAND sh -c "rm -rf '${CMAKE_BINARY_DIR}/synth-small' && '$<TARGET_FILE:gen-synth-datadir>' --quiet --blocks 3000 --fork-every 500 --max-blockfile 65536 --txindex '${CMAKE_BINARY_DIR}/synth-small'")
set_tests_properties(synth_small_gen PROPERTIES FIXTURES_SETUP synth_small)
set_tests_properties(test_lookup_synth PROPERTIES FIXTURES_REQUIRED synth_small
  ENVIRONMENT "BK_SYNTH_DIR=${CMAKE_BINARY_DIR}/synth-small")
