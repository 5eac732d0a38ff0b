# Installing and consuming the library (pkg-config and find_package). Not in
# sanitizer builds: a consumer would need the sanitizer runtime too.
if(NOT BK_SANITIZE)
  add_test(NAME install_consumer
    COMMAND sh ${CMAKE_SOURCE_DIR}/scripts/test-install.sh ${CMAKE_BINARY_DIR})
endif()
