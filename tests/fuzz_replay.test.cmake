# The fuzz corpora replayed without libFuzzer: in the gcc build and the
# sanitizer build (BK_SANITIZE=ON) every fuzz/fuzz_<name>.c is linked with
# the plain main() of fuzz/replay_main.c as fuzz_<name>_replay, and the
# test fuzz_<name>_replay runs it over the empty input and every file of
# fuzz/corpus/fuzz_<name>/ (the checked-in seeds and what fuzzing added).
# A target without a corpus directory fails (replay_main finds no input),
# so a new fuzz target comes with its seeds. The tests run from the build
# directory, not the source tree: a target that finds its data only from
# one working directory fails here. --max-seconds bounds each replay
# (inputs left out are named in the output) so the whole set stays within
# seconds of `make test`. In a libFuzzer build (BK_FUZZ=ON) the fuzz_*
# binaries themselves replay a corpus: scripts/fuzz-smoke.sh.
if(NOT BK_FUZZ)
  set(BK_FUZZ_REPLAY_SECONDS 20 CACHE STRING "Time bound of each fuzz corpus replay test (s)")
  file(GLOB BK_FUZZ_REPLAY_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/fuzz/fuzz_*.c)
  add_library(bk_fuzz_replay_main OBJECT ${CMAKE_SOURCE_DIR}/fuzz/replay_main.c)
  foreach(src ${BK_FUZZ_REPLAY_SOURCES})
    get_filename_component(name ${src} NAME_WE)
    add_executable(${name}_replay ${src} $<TARGET_OBJECTS:bk_fuzz_replay_main>)
    target_link_libraries(${name}_replay PRIVATE blockkit_static)
    target_compile_definitions(${name}_replay PRIVATE BK_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
    add_test(NAME ${name}_replay
      COMMAND ${name}_replay --max-seconds ${BK_FUZZ_REPLAY_SECONDS} ${CMAKE_SOURCE_DIR}/fuzz/corpus/${name}
      WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
    set_tests_properties(${name}_replay PROPERTIES LABELS fuzz_replay TIMEOUT 300)
  endforeach()
  # Started without its data, fuzz_chain_index must stop with a message and a
  # non-zero status before the first input (it once fuzzed nothing and exited 0).
  add_test(NAME fuzz_chain_index_replay_no_data
    COMMAND sh -c "out=$(BK_FUZZ_REGTEST_TAR=/nonexistent/datadir.tar.zst \"$1\" \"$2\" 2>&1); rc=$?; printf '%s\\n' \"$out\"; test $rc -ne 0 && printf '%s' \"$out\" | grep -q 'cannot read /nonexistent/datadir.tar.zst' && ! printf '%s' \"$out\" | grep -q '^Running:'"
            sh $<TARGET_FILE:fuzz_chain_index_replay> ${CMAKE_SOURCE_DIR}/fuzz/corpus/fuzz_chain_index
    WORKING_DIRECTORY /)
  set_tests_properties(fuzz_chain_index_replay_no_data PROPERTIES LABELS fuzz_replay)
  # An empty corpus is a failure, not a pass.
  add_test(NAME fuzz_replay_empty_corpus
    COMMAND sh -c "d=$(mktemp -d) && \"$1\" \"$d\"; rc=$?; rmdir \"$d\"; test $rc -eq 1"
            sh $<TARGET_FILE:fuzz_xonly_replay>)
  set_tests_properties(fuzz_replay_empty_corpus PROPERTIES LABELS fuzz_replay)
endif()
