# README.md's library example, compiled as written: the first ```c block of
# the README is copied into the build directory at configure time (README.md
# is a configure dependency, so an edit re-copies it) and included by
# tests/test_readme_example.c, which runs it on the bundled block 866342.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/README.md)
file(READ ${CMAKE_SOURCE_DIR}/README.md bk_readme)
string(FIND "${bk_readme}" "\n```c\n" bk_readme_start)
if(bk_readme_start EQUAL -1)
  message(FATAL_ERROR "README.md has no ```c block (the library example tests/test_readme_example.c compiles)")
endif()
math(EXPR bk_readme_start "${bk_readme_start} + 6")
string(SUBSTRING "${bk_readme}" ${bk_readme_start} -1 bk_readme_rest)
string(FIND "${bk_readme_rest}" "\n```" bk_readme_len)
if(bk_readme_len EQUAL -1)
  message(FATAL_ERROR "README.md: the ```c block is not closed")
endif()
math(EXPR bk_readme_len "${bk_readme_len} + 1")
string(SUBSTRING "${bk_readme_rest}" 0 ${bk_readme_len} bk_readme_example)
file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/readme/readme_example.inc CONTENT "${bk_readme_example}" @ONLY)
target_include_directories(test_readme_example PRIVATE ${CMAKE_BINARY_DIR}/readme)
