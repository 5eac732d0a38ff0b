#!/bin/sh
# scripts/check-api.sh on small made-up trees: a clean one passes, a public
# header the umbrella misses fails naming it, an umbrella include of no
# public header fails, a bk_status function without BK_WARN_UNUSED fails
# naming it (a recorder passes), BK_NONNULL in use fails.
#   tests/api_selftest.sh SOURCE_DIR
set -u
src=${1:?usage: api_selftest.sh SOURCE_DIR}
check=$src/scripts/check-api.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
tree() {
  rm -rf "$T/t"; mkdir -p "$T/t/include/blockkit" "$T/t/src/base" "$T/t/cli"
  printf '#include <blockkit/status.h>\n#include <blockkit/hex.h>\n' > "$T/t/include/blockkit/blockkit.h"
  # every recorder the check knows, so that the clean tree is complete
  for r in bk_error_set bk_reader_fail bk_reader_error bk_ldb_iter_status \
           bk_utxo_snapshot_status bk_chainstate_iter_status bk_utxo_rollback_status; do
    printf 'BK_API bk_status %s(bk_error *err);\n' "$r"
  done > "$T/t/include/blockkit/status.h"
  printf '/* decode; returns bk_status; */\nBK_API bk_status bk_hex_decode(uint8_t *out,\n    const char *in, size_t n, bk_error *err) BK_WARN_UNUSED;\nBK_API void bk_hex_encode(char *out);\n' \
    > "$T/t/include/blockkit/hex.h"
}
expect() { # rc pattern
  "$check" "$T/t" > "$T/out" 2>&1; rc=$?
  if [ "$rc" != "$1" ] || ! grep -q -- "$2" "$T/out"; then
    echo "FAIL: expected rc $1 and '$2', got rc $rc:"; cat "$T/out"; fails=$((fails + 1))
  else echo "ok: rc $rc, '$2'"; fi
}

tree
expect 0 "2 public headers in the umbrella; 8 bk_status functions, all BK_WARN_UNUSED but 7 error recorders"

printf 'BK_API void bk_sha256(void);\n' > "$T/t/include/blockkit/sha256.h"
expect 1 "blockkit.h does not include <blockkit/sha256.h>"

tree
printf '#include <blockkit/gone.h>\n' >> "$T/t/include/blockkit/blockkit.h"
expect 1 "includes <blockkit/gone.h>, which is not a public header"

tree
printf 'BK_API bk_status bk_hex_decode_rev(uint8_t *out, const char *in,\n    size_t n, bk_error *err);\n' >> "$T/t/include/blockkit/hex.h"
expect 1 "hex.h: bk_hex_decode_rev returns bk_status without BK_WARN_UNUSED"

tree
sed -i '/bk_reader_fail/d' "$T/t/include/blockkit/status.h"
expect 1 "recorder bk_reader_fail is not declared"

tree
printf 'int f(const char *p) BK_NONNULL(1);\n' > "$T/t/src/base/x.c"
expect 1 "BK_NONNULL is not used by the library"

[ $fails = 0 ] || { echo "$fails failed"; exit 1; }
echo "api selftest: all passed"
