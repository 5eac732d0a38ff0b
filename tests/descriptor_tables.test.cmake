# The descriptor checksum's constant tables (src/bitcoin/descriptor_tables_generated.inc,
# included by descriptor.c) are byte for byte what scripts/gen-descriptor-tables.py
# writes from Core's charset and PolyMod generators.
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
  add_test(NAME descriptor_tables
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/gen-descriptor-tables.py
            --check ${CMAKE_SOURCE_DIR}/src/bitcoin/descriptor_tables_generated.inc)
endif()
