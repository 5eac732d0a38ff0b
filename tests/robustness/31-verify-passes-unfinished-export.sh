#!/bin/bash
# 31-verify-passes-unfinished-export: an export that stopped early (here at
# a block whose undo file is missing; the same after kill -9, SIGTERM or a
# full disk) left an OUT that --verify called "complete for heights 0-399"
# (exit 0): only the chunks listed were checked. Now datasets.ndjson holds
# the end the run was asked for from before its first chunk, so --verify
# names the heights it lacks (missing, exit 1) until a rerun finishes them.
. "$(dirname "$0")/lib.sh"
DD=$T/dd
cp -r "$REGTEST/full" "$DD"
mv "$DD/regtest/blocks/rev00050.dat" "$T/rev00050.dat"          # the undo of height 495
run 120 "$BK" export --datadir "$DD" --out "$T/o" --chunk-size 100 -j 1 --progress never
expect "the export stops at height 495" 66 "block at height 495 has no undo data"
run 60 "$BK" export --verify --datadir "$DD" --out "$T/o"
expect "--verify: not complete" 1 "heights 0-939, 16 chunk files, 16 ok, 24 problem\(s\)"
if grep -q "^$T/o/blocks/blocks_00000900_00000939\.parquet: missing: no chunk holds heights 900-939$" <<< "$(cd "$T" && "$BK" export --verify --datadir "$DD" --out "$T/o" 2>/dev/null)"; then
    pass "--verify names the heights the run did not reach"
else fail "--verify does not name heights 900-939"; fi
# with --end, the range asked for is the range checked
run 120 "$BK" export --datadir "$DD" --out "$T/e" --chunk-size 100 -j 1 --end 600 --progress never
expect "--end 600 stops at 495" 66 "block at height 495 has no undo data"
run 60 "$BK" export --verify --datadir "$DD" --out "$T/e"
expect "--verify: heights 0-600, not complete" 1 "heights 0-600, 16 chunk files, 16 ok, 12 problem\(s\)"
# the undo file back: the rerun finishes and --verify passes
mv "$T/rev00050.dat" "$DD/regtest/blocks/rev00050.dat"
run 120 "$BK" export --datadir "$DD" --out "$T/o" --chunk-size 100 -j 1 --progress never
expect "the rerun finishes" 0 ""
run 60 "$BK" export --verify --datadir "$DD" --out "$T/o"
expect "then --verify passes" 0 "is complete for heights 0-939 and on the best chain \(40 files\)"
# a stopped --follow (SIGTERM while it waits) leaves what it finished: complete
"$BK" export --datadir "$DD" --out "$T/f" --chunk-size 100 --follow --poll 60 --progress never 2> "$T/f.err" &
pid=$!
for _ in $(seq 1 500); do grep -q "waiting" "$T/f.err" 2>/dev/null && break; sleep 0.02; done
kill -TERM $pid; wait $pid
run 60 "$BK" export --verify --datadir "$DD" --out "$T/f"
expect "--follow's complete chunks verify" 0 "is complete for heights 0-899 and on the best chain"
finish
