#!/bin/bash
# 05-write-errors-ignored-exit-0 / 01-scan-final-flush-heap-overread, the file
# size limit case: an output that hits RLIMIT_FSIZE (EFBIG; SIGXFSZ ignored)
# part way. scan and chain exit 74 naming the file (scan: and the height to
# resume from), the file ends with a complete line and is a prefix of the
# full output; scan --resume then completes it byte for byte.
. "$(dirname "$0")/lib.sh"
"$BK" scan --blocksdir "$RT" --chain regtest -j2 --progress never -o "$T/ref.ndjson" || fail "reference scan"
"$BK" chain --blocksdir "$RT" --chain regtest > "$T/ref.chain" || fail "reference chain"
limited() { ( trap '' XFSZ; ulimit -f 200; exec "$@" ); }   # 200 KiB
prefix_whole() { # FILE REF
  local n; n=$(stat -c %s "$1")
  [ "$n" -gt 0 ] && [ "$n" -lt "$(stat -c %s "$2")" ] || { fail "$1: $n bytes"; return; }
  [ -z "$(tail -c 1 "$1")" ] || { fail "$1 ends with a partial line"; return; }
  cmp -s -n "$n" "$1" "$2" && pass "$1: $n bytes, whole lines, a prefix of the full output" || fail "$1 differs"
}
run 30 bash -c "$(declare -f limited); limited \"\$0\" scan --blocksdir \"\$1\" --chain regtest -j2 --progress never -o \"\$2\"" "$BK" "$RT" "$T/cut.ndjson"
expect "scan -o FILE over the size limit" 74 "^blockkit: scan: $T/cut.ndjson: write error: File too large; resume with --start [0-9]+$"
prefix_whole "$T/cut.ndjson" "$T/ref.ndjson"
h=$(printf '%s' "$err" | grep -o 'start [0-9]*' | cut -d' ' -f2)
[ "$h" = "$(wc -l < "$T/cut.ndjson")" ] && pass "resume height $h = lines written" || fail "resume height $h"
run 30 "$BK" scan --blocksdir "$RT" --chain regtest -j2 --progress never -o "$T/cut.ndjson" --resume
expect "scan --resume after the error" 0 ""
cmp -s "$T/cut.ndjson" "$T/ref.ndjson" && pass "resumed file = uninterrupted run" || fail "resumed file differs"
run 30 bash -c "$(declare -f limited); limited \"\$0\" chain --blocksdir \"\$1\" --chain regtest > \"\$2\"" "$BK" "$RT" "$T/cut.chain"
expect "chain > FILE over the size limit" 74 "^blockkit: chain: standard output: write error: File too large$"
prefix_whole "$T/cut.chain" "$T/ref.chain"
finish
