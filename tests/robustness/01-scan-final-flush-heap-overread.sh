#!/bin/bash
# 01-scan-final-flush-heap-overread: all of scan's output fits in stdio's
# buffer and the final flush fails (a full disk). Before the fix: two
# messages and a read one past the job array (ASan: heap-buffer-overflow).
# Now: one message naming the output and the height to resume from, exit 74.
. "$(dirname "$0")/lib.sh"
run 20 "$BK" scan --blocksdir "$RT" --chain regtest --end 2 --progress never
[ "$rc" = 0 ] || fail "setup: scan of 3 regtest blocks: exit $rc: $err"
run 20 sh -c '"$0" scan --blocksdir "$1" --chain regtest --end 2 --progress never > /dev/full' "$BK" "$RT"
expect "scan > /dev/full" 74 "^blockkit: scan: standard output: write error: No space left on device; resume with --start 0$"
one_line "scan > /dev/full"
run 20 "$BK" scan --blocksdir "$RT" --chain regtest --end 2 --progress never -o /dev/full
expect "scan -o /dev/full" 74 "^blockkit: scan: /dev/full: write error: No space left on device; resume with --start 0$"
one_line "scan -o /dev/full"
finish
