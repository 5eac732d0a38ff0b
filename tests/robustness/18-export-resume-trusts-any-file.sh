#!/bin/bash
# 18-export-resume-trusts-any-file: a rerun kept anything under a final chunk name (an empty file,
# random bytes, a directory) and exited 0. Now a file is kept only when the
# catalogue lists it and it passes the checks of --verify; anything else
# under a chunk's name is rewritten, and a non-file there is an error naming
# it (exit 74): the rename could not replace it.
. "$(dirname "$0")/lib.sh"
DD=$REGTEST/full
run 120 "$BK" export --datadir "$DD" --out "$T/ref" --chunk-size 100 --datasets blocks --progress never
expect "reference export" 0 ""
O=$T/o; mkdir -p "$O/blocks"
: > "$O/blocks/blocks_00000000_00000099.parquet"
head -c 1000 /dev/urandom > "$O/blocks/blocks_00000100_00000199.parquet"
cp "$T/ref/blocks/blocks_00000300_00000399.parquet" "$O/blocks/blocks_00000200_00000299.parquet"
run 120 "$BK" export --datadir "$DD" --out "$O" --chunk-size 100 --datasets blocks --progress never --summary
expect "empty, random and misnamed files rewritten" 0 "3 files rewritten \(failed the --verify checks\)"
bad=0
for f in $(cd "$T/ref" && find . -name '*.parquet'); do cmp -s "$T/ref/$f" "$O/$f" || bad=1; done
if [ $bad = 0 ]; then pass "the rerun leaves the bytes of a clean export"; else fail "files differ from a clean export"; fi
run 60 "$BK" export --verify --datadir "$DD" --out "$O"
expect "and --verify accepts them" 0 "is complete for heights 0-939"
# a directory under a chunk's name: an error naming it, nothing claimed
rm "$O/blocks/blocks_00000500_00000599.parquet"
mkdir "$O/blocks/blocks_00000500_00000599.parquet"
run 60 "$BK" export --datadir "$DD" --out "$O" --chunk-size 100 --datasets blocks --progress never
expect "a directory under a chunk's name" 74 "^blockkit: export: i/o error: $O/blocks/blocks_00000500_00000599\.parquet is not a regular file, and a chunk is to be written under that name: move it away$"
run 60 "$BK" export --verify --datadir "$DD" --out "$O"
expect "--verify names it too" 1 "1 problem"
rmdir "$O/blocks/blocks_00000500_00000599.parquet"
run 60 "$BK" export --datadir "$DD" --out "$O" --chunk-size 100 --datasets blocks --progress never
expect "moved away: the rerun completes" 0 ""
finish
