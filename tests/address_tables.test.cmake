# The Base58 and bech32 constant tables (src/bitcoin/address_tables_generated.inc,
# included by address.c) are byte for byte what scripts/gen-address-tables.py writes
# from their definitions (powers of 2 in base 58^5, BIP173's generator).
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
  add_test(NAME address_tables
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/gen-address-tables.py
            --check ${CMAKE_SOURCE_DIR}/src/bitcoin/address_tables_generated.inc)
endif()
