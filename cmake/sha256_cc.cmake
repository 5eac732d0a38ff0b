# The AVX-512 SHA-256 kernels (src/crypto/sha256_avx512.c) built with clang
# when the main compiler is gcc: clang 14 is 2-3% faster on them (measured
# on Intel Emerald Rapids, docs/sha256.md). Only for optimised builds
# without sanitizers or fuzzing instrumentation (those need the main
# compiler's runtime), and only when a clang is found that compiles an
# AVX-512 probe at configure time; otherwise the file is compiled like every
# other (fallback, same code, same flags). Included from cmake/isa.cmake,
# before the library targets exist: the source is taken out of the normal
# compile and the object is added to the static and shared libraries once
# the directory is processed (cmake_language(DEFER)).
option(BK_SHA256_AVX512_CC "Compile the AVX-512 SHA-256 kernels with clang when the main compiler is gcc" ON)
set(BK_SHA256_AVX512_CLANG "")
string(TOUPPER "${CMAKE_BUILD_TYPE}" BK_BT)
if(BK_SHA256_AVX512_CC AND CMAKE_C_COMPILER_ID STREQUAL "GNU" AND NOT BK_SANITIZE AND NOT BK_FUZZ
   AND BK_BT MATCHES "^(RELEASE|RELWITHDEBINFO|MINSIZEREL)$")
  find_program(BK_CLANG_FOR_SHA256 NAMES clang clang-18 clang-17 clang-16 clang-15 clang-14)
  if(BK_CLANG_FOR_SHA256)
    set(probe_c ${CMAKE_BINARY_DIR}/CMakeFiles/bk_sha256_clang_probe.c)
    file(WRITE ${probe_c} "#include <immintrin.h>\nint bk_probe(const int *p);\nint bk_probe(const int *p) { __m512i x = _mm512_loadu_si512(p); x = _mm512_ror_epi32(x, 7); return _mm512_reduce_add_epi32(_mm512_ternarylogic_epi32(x, x, x, 0x96)); }\n")
    execute_process(COMMAND ${BK_CLANG_FOR_SHA256} -O3 -mavx512f -mavx512bw -fPIC -c ${probe_c}
                            -o ${probe_c}.o
                    RESULT_VARIABLE probe_rc OUTPUT_QUIET ERROR_QUIET)
    if(probe_rc EQUAL 0)
      set(BK_SHA256_AVX512_CLANG ${BK_CLANG_FOR_SHA256})
    endif()
  endif()
endif()
# bk_clang_object(SRC NAME TARGETS... FLAGS ...): compile SRC with that
# clang into NAME.clang.o (out of the normal compile) and add the object to
# the targets once they exist.
function(bk_clang_object src name)
  cmake_parse_arguments(A "" "" "TARGETS;FLAGS" ${ARGN})
  set(obj ${CMAKE_BINARY_DIR}/CMakeFiles/${name}.clang.o)
  add_custom_command(
    OUTPUT ${obj}
    COMMAND ${BK_SHA256_AVX512_CLANG} ${BK_CLANG_OPT} -DNDEBUG -D_GNU_SOURCE -std=c11 ${BK_CLANG_WARN}
            ${A_FLAGS} -I${CMAKE_SOURCE_DIR}/include -MD -MF ${obj}.d -c ${src} -o ${obj}
    DEPENDS ${src}
    DEPFILE ${obj}.d
    COMMENT "Building C object ${name}.c with ${BK_SHA256_AVX512_CLANG}"
    VERBATIM)
  set_source_files_properties(${src} PROPERTIES HEADER_FILE_ONLY TRUE)
  set_source_files_properties(${obj} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  add_custom_target(bk_${name}_clang DEPENDS ${obj})
  # A deferred call reads its arguments when it runs: expand them now.
  cmake_language(EVAL CODE "cmake_language(DEFER DIRECTORY \"${CMAKE_SOURCE_DIR}\" CALL bk_clang_object_add \"${obj}\" bk_${name}_clang ${A_TARGETS})")
endfunction()
function(bk_clang_object_add obj dep)
  foreach(t ${ARGN})
    target_sources(${t} PRIVATE ${obj})
    add_dependencies(${t} ${dep})
  endforeach()
endfunction()

if(BK_SHA256_AVX512_CLANG)
  set(BK_CLANG_OPT -O3)
  if(BK_BT STREQUAL "RELWITHDEBINFO")
    set(BK_CLANG_OPT -O3 -g)
  elseif(BK_BT STREQUAL "MINSIZEREL")
    set(BK_CLANG_OPT -Os)
  endif()
  set(BK_CLANG_WARN -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla)
  if(BK_WERROR)
    list(APPEND BK_CLANG_WARN -Werror)
  endif()
  bk_clang_object(${BK_CRYPTO_DIR}/sha256_avx512.c sha256_avx512 TARGETS blockkit_static blockkit_shared
                  FLAGS -fPIC -fvisibility=hidden -mavx512f -mavx512bw -I${CMAKE_SOURCE_DIR}/src)
  # The bench's hybrid-kernel probe with the same compiler, so that its
  # AVX-512 side is scheduled as the library's kernels are (gcc 12 takes
  # 1.2-1.3x as long on that loop on AMD Zen5, which made the hybrid look even).
  bk_clang_object(${CMAKE_SOURCE_DIR}/bench/bench_sha256_hybrid.c bench_sha256_hybrid TARGETS blockkit
                  FLAGS -mavx512f -mavx512bw -msha -msse4.1 -mssse3 -I${CMAKE_SOURCE_DIR}/bench)
  message(STATUS "SHA-256 AVX-512 kernels: compiled with ${BK_SHA256_AVX512_CLANG}")
endif()
