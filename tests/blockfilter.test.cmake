# BIP158 filters and merkle proofs against Core's answers for the regtest
# datadir (tests/data/indexes): the C tests read the unpacked datadir.
set_tests_properties(test_blockfilter PROPERTIES FIXTURES_REQUIRED regtest)
