# Core's block index as the chain source (tests/test_blockindex.c and the
# CLI on the unpacked regtest datadir).
set_tests_properties(test_blockindex PROPERTIES FIXTURES_REQUIRED regtest)
