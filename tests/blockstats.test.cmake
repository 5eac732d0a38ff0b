# getblockstats: Core's functional-test data, the mainnet vectors and the
# regtest datadir (full and pruned copies, unpacked by the regtest fixture).
set_tests_properties(test_blockstats PROPERTIES FIXTURES_REQUIRED regtest)
set_tests_properties(test_stats_cli PROPERTIES FIXTURES_REQUIRED regtest)
