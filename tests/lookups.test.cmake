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
