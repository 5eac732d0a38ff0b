# Every tests/test_*.c is one test executable, run by ctest with the data
# directory as its working directory. Vector runners are registered
# separately with file arguments (see below) so any file of the same format
# can be checked by hand.
file(GLOB BK_TEST_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/test_*.c)
foreach(src ${BK_TEST_SOURCES})
  get_filename_component(name ${src} NAME_WE)
  add_executable(${name} ${src})
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/tests ${CMAKE_SOURCE_DIR}/src)
  target_compile_definitions(${name} PRIVATE BK_TEST_DATA="${CMAKE_SOURCE_DIR}/tests/data"
    BK_CLI_PATH="$<TARGET_FILE:blockkit>" BK_REGTEST_DIR="${CMAKE_BINARY_DIR}/regtest")
  target_link_libraries(${name} PRIVATE blockkit_static)
  add_test(NAME ${name} COMMAND ${name} WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}/tests/data)
endforeach()
# Scripts learn an ASan build from BK_SANITIZE=1 in their environment
# (tests/robustness/lib.sh then sets no address-space limit: ASan's shadow
# map does not fit under one); every script test passes ${BK_SAN_ENV}.
if(BK_SANITIZE)
  set(BK_SAN_ENV "BK_SANITIZE=1")
else()
  set(BK_SAN_ENV "BK_SANITIZE=0")
endif()
# Per-module extra registrations (vector runners with arguments, CLI tests).
file(GLOB BK_TEST_CMAKE CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/*.test.cmake)
foreach(f ${BK_TEST_CMAKE})
  include(${f})
endforeach()
