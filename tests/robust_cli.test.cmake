# Robustness findings of the CLI contract and SSZ (../shared/robustness/ 07, 08,
# 10, 11, 12, 14, 15): one ctest per finding, named after its folder.
add_executable(robust_cli_findings ${CMAKE_SOURCE_DIR}/tests/robustness/cli_findings.c)
target_include_directories(robust_cli_findings PRIVATE ${CMAKE_SOURCE_DIR}/tests ${CMAKE_SOURCE_DIR}/src)
target_compile_definitions(robust_cli_findings PRIVATE BK_TEST_DATA="${CMAKE_SOURCE_DIR}/tests/data"
  BK_CLI_PATH="$<TARGET_FILE:blockkit>")
target_link_libraries(robust_cli_findings PRIVATE blockkit_static)
add_dependencies(robust_cli_findings blockkit)
foreach(f
    07-ssz-schema-error-message-overlap
    08-ssz-schema-fields-quadratic
    10-ssz-gindex-argument-wraps
    11-ssz-json-memory-40x-input
    12-block-fees-signed-overflow
    14-ssz-path-over-64-elements-truncated
    15-ssz-proof-gindex-array-stack-overflow
    ssz-output-write-errors)
  add_test(NAME robustness/${f} COMMAND robust_cli_findings ${f}
    WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}/tests/data)
endforeach()
