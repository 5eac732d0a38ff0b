# Silent payments (BIP352): tests/test_silentpay.c checks the library on the
# BIP's own vectors; tests/sp/sp_cli.sh the command end to end on the regtest
# datadir's tweak vector and on a synthetic chain holding payments.
add_test(NAME sp_cli COMMAND bash ${CMAKE_SOURCE_DIR}/tests/sp/sp_cli.sh)
set_tests_properties(sp_cli PROPERTIES FIXTURES_REQUIRED regtest TIMEOUT 600
  ENVIRONMENT "BK=$<TARGET_FILE:blockkit>;GEN_SYNTH=$<TARGET_FILE:gen-synth-datadir>;DATA=${CMAKE_SOURCE_DIR}/tests/data;REGTEST=${CMAKE_BINARY_DIR}/regtest;${BK_SAN_ENV}")
