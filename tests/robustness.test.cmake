# CLI robustness tests: one script per finding of the robustness campaign
# (tests/robustness/NN-name.sh, named after the finding's folder), each with
# its expected exit status, message and a time bound (tests/robustness/lib.sh).
file(GLOB BK_ROBUST_SCRIPTS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/robustness/[0-9]*.sh)
foreach(script ${BK_ROBUST_SCRIPTS})
  get_filename_component(name ${script} NAME_WE)
  add_test(NAME robust_${name} COMMAND bash ${script})
  set_tests_properties(robust_${name} PROPERTIES
    FIXTURES_REQUIRED regtest TIMEOUT 120
    ENVIRONMENT "BK=$<TARGET_FILE:blockkit>;DATA=${CMAKE_SOURCE_DIR}/tests/data;SAMPLE=${CMAKE_SOURCE_DIR}/data/sample_blocksdir;REGTEST=${CMAKE_BINARY_DIR}/regtest;${BK_SAN_ENV};BK_HELPERS=$<TARGET_FILE_DIR:blockkit>")
endforeach()
# Signals during the render and the chain build, and scan --resume, on Core's
# regtest blocks (tests/test_robust_signals.c).
set_tests_properties(test_robust_signals PROPERTIES FIXTURES_REQUIRED regtest TIMEOUT 120)
