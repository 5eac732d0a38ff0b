#!/bin/sh
# Install blockkit into a scratch prefix and build a consumer with both
# pkg-config and CMake's find_package; run both.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
cc -o "$tmp/consumer_pc" "$src/tests/install/consumer.c" $(pkg-config --cflags blockkit) \
   "$tmp/prefix/lib/libblockkit.a" $(pkg-config --static --libs-only-l --libs-only-other blockkit | sed 's/-lblockkit//') $(pkg-config --libs libsecp256k1)
"$tmp/consumer_pc"
cmake -S "$src/tests/install" -B "$tmp/cbuild" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/cbuild" >/dev/null
"$tmp/cbuild/consumer_cmake"
test -x "$tmp/prefix/bin/blockkit"
"$tmp/prefix/bin/blockkit" --version
echo "1 passed, 0 failed"
