# Installing and consuming the library (pkg-config and find_package).
add_test(NAME install_consumer
  COMMAND sh ${CMAKE_SOURCE_DIR}/scripts/test-install.sh ${CMAKE_BINARY_DIR})
