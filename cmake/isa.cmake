# Per-ISA compile flags for the SHA-256 backends: one ISA per file, so the
# rest of the library never contains instructions the CPU may lack. The
# x86 files are empty on other architectures (#if defined(__x86_64__)), the
# ARMv8 file on others than arm64 (#if defined(__aarch64__)). Run-time
# dispatch (src/crypto/sha256_dispatch.c) checks CPUID before using them.
set(BK_CRYPTO_DIR ${CMAKE_SOURCE_DIR}/src/crypto)
string(TOLOWER "${CMAKE_SYSTEM_PROCESSOR}" BK_CPU)
if(BK_CPU MATCHES "^(x86_64|amd64)$")
  set_source_files_properties(${BK_CRYPTO_DIR}/sha256_shani.c PROPERTIES
    COMPILE_OPTIONS "-msha;-msse4.1;-mssse3")
  set_source_files_properties(${BK_CRYPTO_DIR}/sha256_avx2.c PROPERTIES
    COMPILE_OPTIONS "-mavx2")
  # The AVX-512 kernels: gcc 12 schedules them ~3% faster with the
  # pre-allocation scheduler on (measured on Intel Emerald Rapids; clang 14
  # at its defaults is another ~2% ahead, see docs/sha256.md). Loop shape:
  # eight-round loops beat full unrolling by 8% with gcc (code size).
  set(BK_AVX512_SHA_FLAGS "-mavx512f;-mavx512bw")
  if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
    list(APPEND BK_AVX512_SHA_FLAGS "-fschedule-insns;-fsched-pressure")
  endif()
  set_source_files_properties(${BK_CRYPTO_DIR}/sha256_avx512.c PROPERTIES
    COMPILE_OPTIONS "${BK_AVX512_SHA_FLAGS}")
  # The batch x-only key check (src/bitcoin/xonly_avx512.c; dispatch in
  # src/bitcoin/xonly.c checks avx512f + avx512cd at run time).
  set_source_files_properties(${CMAKE_SOURCE_DIR}/src/bitcoin/xonly_avx512.c PROPERTIES
    COMPILE_OPTIONS "-mavx512f;-mavx512cd")
elseif(BK_CPU MATCHES "^(aarch64|arm64)$")
  set_source_files_properties(${BK_CRYPTO_DIR}/sha256_armv8.c PROPERTIES
    COMPILE_OPTIONS "-march=armv8-a+crypto")
endif()
