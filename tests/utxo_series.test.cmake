# Coin statistics by height and the UTXO set at a past height
# (tests/test_utxo_series.c, tests/test_utxo_rollback.c) read the regtest
# node unpacked by the regtest fixture and Core's answers in tests/data/indexes.
set_tests_properties(test_utxo_series test_utxo_rollback PROPERTIES FIXTURES_REQUIRED regtest)
add_test(NAME utxo_series_cli
  COMMAND sh ${CMAKE_SOURCE_DIR}/tests/utxo_series_cli.sh $<TARGET_FILE:blockkit>
          ${CMAKE_BINARY_DIR}/regtest/full ${CMAKE_SOURCE_DIR}/tests/data)
set_tests_properties(utxo_series_cli PROPERTIES FIXTURES_REQUIRED regtest)
