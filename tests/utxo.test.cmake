# The UTXO set tests read the real regtest node's chainstate and block index
# (unpacked by the regtest fixture) and Core's answers in tests/data/regtest.
set_tests_properties(test_utxo PROPERTIES FIXTURES_REQUIRED regtest)
