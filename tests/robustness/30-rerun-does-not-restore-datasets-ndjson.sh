#!/bin/bash
# 30-rerun-does-not-restore-datasets-ndjson: a complete export that lost
# _blockkit/datasets.ndjson kept every chunk on a rerun, exited 0 and did
# not write the file again, so --verify said "not a blockkit export" (66)
# however often it was rerun. Now a rerun that keeps chunks writes the file
# again: its exit 0 means --verify passes, and the bytes are a clean export's.
. "$(dirname "$0")/lib.sh"
DD=$REGTEST/full
run 120 "$BK" export --datadir "$DD" --out "$T/ref" --chunk-size 100 --progress never
expect "reference export" 0 ""
for fmt in parquet csv; do
    O=$T/o-$fmt
    run 120 "$BK" export --datadir "$DD" --out "$O" --chunk-size 100 --format $fmt --progress never
    expect "$fmt: export" 0 ""
    cp "$O/_blockkit/datasets.ndjson" "$T/man"
    rm "$O/_blockkit/datasets.ndjson"
    run 60 "$BK" export --verify --datadir "$DD" --out "$O"
    expect "$fmt: without it, not an export" 66 "is not a blockkit export \(no _blockkit/datasets\.ndjson\)$"
    run 120 "$BK" export --datadir "$DD" --out "$O" --chunk-size 100 --format $fmt --progress never --summary
    expect "$fmt: the rerun keeps every chunk" 0 "0 chunks written \(0 files\), 10 skipped"
    if cmp -s "$T/man" "$O/_blockkit/datasets.ndjson"; then pass "$fmt: datasets.ndjson written again, the same bytes"
    else fail "$fmt: datasets.ndjson $( [ -f "$O/_blockkit/datasets.ndjson" ] && echo differs || echo absent)"; fi
    run 60 "$BK" export --verify --datadir "$DD" --out "$O"
    expect "$fmt: and --verify passes" 0 "is complete for heights 0-939 and on the best chain"
done
bad=0
for f in $(cd "$T/ref" && find . -name '*.parquet'); do cmp -s "$T/ref/$f" "$T/o-parquet/$f" || bad=1; done
if [ $bad = 0 ]; then pass "the chunks are a clean export's"; else fail "chunks differ from a clean export"; fi
# an empty range into an empty directory still writes nothing
run 60 "$BK" export --datadir "$DD" --out "$T/empty" --start 5000 --progress never
if [ ! -e "$T/empty/_blockkit/datasets.ndjson" ]; then pass "an empty range writes no datasets.ndjson (exit $rc)"; else fail "an empty range wrote datasets.ndjson"; fi
finish
