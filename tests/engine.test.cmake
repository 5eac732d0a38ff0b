# test_engine (tests/test_engine.c): the library's ordered block engine,
# partly over the regtest node's files.
set_tests_properties(test_engine PROPERTIES FIXTURES_REQUIRED regtest)
