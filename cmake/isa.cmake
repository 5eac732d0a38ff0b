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
  # The AVX-512 kernels (measured on Intel Emerald Rapids, docs/sha256.md):
  # clang 14 schedules them 2-3% faster than gcc 12, so a gcc build
  # compiles this one file with clang when one is installed and can build
  # AVX-512 code (cmake/sha256_cc.cmake; BK_SHA256_AVX512_CC=OFF or a
  # Debug/sanitizer/fuzz build keeps the main compiler). gcc's
  # -fschedule-insns, which helped the rolled schedule loops, costs 16% on
  # the unrolled ones: not used.
  set(BK_AVX512_SHA_FLAGS "-mavx512f;-mavx512bw")
  set_source_files_properties(${BK_CRYPTO_DIR}/sha256_avx512.c PROPERTIES
    COMPILE_OPTIONS "${BK_AVX512_SHA_FLAGS}")
  include(${CMAKE_CURRENT_LIST_DIR}/sha256_cc.cmake)
  # The batch x-only key check (src/bitcoin/xonly_avx512.c; dispatch in
  # src/bitcoin/xonly.c checks avx512f + avx512cd at run time).
  set_source_files_properties(${CMAKE_SOURCE_DIR}/src/bitcoin/xonly_avx512.c PROPERTIES
    COMPILE_OPTIONS "-mavx512f;-mavx512cd")
  # The bench's hybrid-kernel probe (AVX-512 rounds and SHA-NI quads in one
  # loop); bench_sha256_probe.c calls it only when the CPU runs both. Built
  # by clang with the AVX-512 kernels when sha256_cc.cmake uses clang.
  set_source_files_properties(${CMAKE_SOURCE_DIR}/bench/bench_sha256_hybrid.c PROPERTIES
    COMPILE_OPTIONS "-mavx512f;-mavx512bw;-msha;-msse4.1;-mssse3")
elseif(BK_CPU MATCHES "^(aarch64|arm64)$")
  set_source_files_properties(${BK_CRYPTO_DIR}/sha256_armv8.c PROPERTIES
    COMPILE_OPTIONS "-march=armv8-a+crypto")
endif()
