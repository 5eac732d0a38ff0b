# The Makefile under `make -jN` on a machine without the packages: the real
# rules with the installing/configuring/building recipes replaced by ones
# that log their order (tests/make_order.sh): configure after `make deps`,
# the npm tools installed once, ctest after both.
find_program(BK_MAKE NAMES gmake make)
if(BK_MAKE)
  add_test(NAME make_order_parallel COMMAND sh ${CMAKE_SOURCE_DIR}/tests/make_order.sh ${CMAKE_SOURCE_DIR})
  set_tests_properties(make_order_parallel PROPERTIES TIMEOUT 60)
endif()
