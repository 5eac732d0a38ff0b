#!/bin/sh
# Cross-build the SHA-256 engine and its tests for arm64 and run them under
# qemu-user with a CPU that has the SHA-2 extensions, so the ARMv8 backend
# (src/crypto/sha256_armv8.c) is tested on x86 machines too. Registered by
# tests/sha256.test.cmake only when aarch64-linux-gnu-gcc and qemu-aarch64
# are installed (Debian: gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user).
set -eu
src=$1
work=$2
cc=${CC_ARM64:-aarch64-linux-gnu-gcc}
mkdir -p "$work"
flags="-std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla -Werror -I$src/include -I$src/src -I$src/tests"
objs=""
for f in "$src"/src/crypto/*.c "$src"/src/base/*.c; do
  o="$work/$(basename "$f" .c).o"
  extra=""
  [ "$(basename "$f")" = sha256_armv8.c ] && extra="-march=armv8-a+crypto"
  $cc $flags $extra -c "$f" -o "$o"
  objs="$objs $o"
done
for t in test_sha256 test_sha256_threads; do
  $cc $flags -DBK_TEST_DATA="\"$src/tests/data\"" -DBK_CLI_PATH='"unused"' \
    "$src/tests/$t.c" $objs -static -lpthread -o "$work/$t"
  out=$(qemu-aarch64 -cpu max "$work/$t")
  echo "$out"
  echo "$out" | grep -q "backends: armv8 portable" || [ "$t" != test_sha256 ] || { echo "armv8 backend not selected"; exit 1; }
  echo "$out" | grep -q " 0 failed" || exit 1
done
