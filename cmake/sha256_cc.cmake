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
if(BK_SHA256_AVX512_CLANG)
  set(src ${BK_CRYPTO_DIR}/sha256_avx512.c)
  set(obj ${CMAKE_BINARY_DIR}/CMakeFiles/sha256_avx512.clang.o)
  set(opt -O3)
  if(BK_BT STREQUAL "RELWITHDEBINFO")
    set(opt -O3 -g)
  elseif(BK_BT STREQUAL "MINSIZEREL")
    set(opt -Os)
  endif()
  set(warn -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla)
  if(BK_WERROR)
    list(APPEND warn -Werror)
  endif()
  add_custom_command(
    OUTPUT ${obj}
    COMMAND ${BK_SHA256_AVX512_CLANG} ${opt} -DNDEBUG -D_GNU_SOURCE -std=c11 -fPIC -fvisibility=hidden
            ${warn} -mavx512f -mavx512bw -I${CMAKE_SOURCE_DIR}/include -I${CMAKE_SOURCE_DIR}/src
            -MD -MF ${obj}.d -c ${src} -o ${obj}
    DEPENDS ${src}
    DEPFILE ${obj}.d
    COMMENT "Building C object sha256_avx512.c with ${BK_SHA256_AVX512_CLANG}"
    VERBATIM)
  set_source_files_properties(${src} PROPERTIES HEADER_FILE_ONLY TRUE)
  set_source_files_properties(${obj} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  add_custom_target(bk_sha256_avx512_clang DEPENDS ${obj})
  function(bk_sha256_add_clang_object o)
    foreach(t blockkit_static blockkit_shared)
      target_sources(${t} PRIVATE ${o})
      add_dependencies(${t} bk_sha256_avx512_clang)
    endforeach()
  endfunction()
  cmake_language(DEFER CALL bk_sha256_add_clang_object ${obj})
  # The bench's hybrid-kernel probe with the same compiler, so that its
  # AVX-512 side is scheduled as the library's kernels are (gcc 12 takes
  # 1.3x as long on that loop on AMD Zen5, which made the hybrid look even).
  set(hsrc ${CMAKE_SOURCE_DIR}/bench/bench_sha256_hybrid.c)
  set(hobj ${CMAKE_BINARY_DIR}/CMakeFiles/bench_sha256_hybrid.clang.o)
  add_custom_command(
    OUTPUT ${hobj}
    COMMAND ${BK_SHA256_AVX512_CLANG} ${opt} -DNDEBUG -D_GNU_SOURCE -std=c11 ${warn}
            -mavx512f -mavx512bw -msha -msse4.1 -mssse3 -I${CMAKE_SOURCE_DIR}/include
            -I${CMAKE_SOURCE_DIR}/bench -MD -MF ${hobj}.d -c ${hsrc} -o ${hobj}
    DEPENDS ${hsrc}
    DEPFILE ${hobj}.d
    COMMENT "Building C object bench_sha256_hybrid.c with ${BK_SHA256_AVX512_CLANG}"
    VERBATIM)
  set_source_files_properties(${hsrc} PROPERTIES HEADER_FILE_ONLY TRUE)
  set_source_files_properties(${hobj} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  add_custom_target(bk_bench_hybrid_clang DEPENDS ${hobj})
  function(bk_bench_add_clang_object o)
    target_sources(blockkit PRIVATE ${o})
    add_dependencies(blockkit bk_bench_hybrid_clang)
  endfunction()
  cmake_language(DEFER CALL bk_bench_add_clang_object ${hobj})
  message(STATUS "SHA-256 AVX-512 kernels: compiled with ${BK_SHA256_AVX512_CLANG}")
endif()
