# test_leveldb reads the regtest node's databases (fixture `regtest`).
set_tests_properties(test_leveldb PROPERTIES FIXTURES_REQUIRED regtest)
