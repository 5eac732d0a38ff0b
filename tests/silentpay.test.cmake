# Silent payments (BIP352): the CLI over the regtest node (tests/test_sp_cli.c).
set_tests_properties(test_sp_cli PROPERTIES FIXTURES_REQUIRED regtest TIMEOUT 300)
