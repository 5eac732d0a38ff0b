# The ARMv8 SHA-256 backend, cross-built and run under qemu-user, when the
# tools are installed (they are optional: the test is simply not registered
# without them).
find_program(BK_ARM64_CC aarch64-linux-gnu-gcc)
find_program(BK_QEMU_ARM64 qemu-aarch64)
if(BK_ARM64_CC AND BK_QEMU_ARM64 AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  add_test(NAME sha256_armv8_qemu
    COMMAND sh ${CMAKE_SOURCE_DIR}/tests/sha256_arm64_qemu.sh ${CMAKE_SOURCE_DIR}
            ${CMAKE_BINARY_DIR}/arm64-sha256)
  set_tests_properties(sha256_armv8_qemu PROPERTIES ENVIRONMENT "CC_ARM64=${BK_ARM64_CC}" TIMEOUT 300)
endif()
