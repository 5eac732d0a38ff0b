# Memcheck on the portable SHA-256 path (issue 17: sanitizer and valgrind
# runs stay clean). Valgrind's emulated CPUID hides SHA-NI and AVX-512, so
# BLOCKKIT_SHA256=portable makes the default explicit; the tests still run
# every backend the emulated CPU has (avx2). Registered when valgrind is
# installed (`make deps WITH_FUZZ=1`, as CI does) and the build is not
# instrumented by the sanitizers (they cannot run under valgrind).
find_program(BK_VALGRIND valgrind)
if(BK_VALGRIND AND NOT BK_SANITIZE)
  foreach(name test_sha256 test_sha256_threads test_merkle_chunked test_ssz)
    add_test(NAME valgrind_${name}
      COMMAND ${BK_VALGRIND} -q --error-exitcode=99 --leak-check=full
              --errors-for-leak-kinds=definite,indirect $<TARGET_FILE:${name}>
      WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}/tests/data)
    set_tests_properties(valgrind_${name} PROPERTIES ENVIRONMENT "BLOCKKIT_SHA256=portable"
      LABELS valgrind TIMEOUT 600)
  endforeach()
endif()
