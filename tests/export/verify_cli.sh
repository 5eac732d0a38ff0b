#!/bin/bash
# export --verify (--deep) and reruns that repair what it rejects (issue 29;
# docs/export.md "Provenance and --verify"). On the regtest datadir:
#  - a fresh export verifies (plain and --deep; Parquet, CSV, NDJSON);
#  - each damage is reported naming its file and what is wrong, exit 1:
#    a deleted chunk, a truncated one, one byte changed, a chunk of another
#    datadir's export (the synthetic one), a torn catalogue line, a reorg
#    (a copy of the block index with the blocks from 574 invalidated, so the
#    stale branch 574..579 is the best chain);
#  - a plain rerun then leaves the bytes of a clean export, and --verify
#    passes again.
# Environment: BK, REGTEST, INDEX_FAIL, DATA, WORK (scratch), BK_SANITIZE.
. "$(dirname "$0")/../robustness/lib.sh"
DD=$REGTEST/full
SYNTH=${SYNTH:-$(dirname "$REGTEST")/synth-small}
W=${WORK:-$T}
rm -rf "$W"; mkdir -p "$W"

export_to() { # export_to DATADIR OUT [options]: a clean run, exit 0
    local d=$1 o=$2; shift 2
    run 120 "$BK" export --datadir "$d" --out "$o" --chunk-size 100 --progress never "$@"
    [ "$rc" = 0 ] || fail "export --datadir $d --out $o $*: exit $rc: $err"
}
verify() { # verify DATADIR OUT [--deep]: rc, err; stdout in $T/vout
    local d=$1 o=$2; shift 2
    run 60 bash -c 'b=$1 d=$2 o=$3 v=$4; shift 4; "$b" export --verify --datadir "$d" --out "$o" "$@" > "$v"' _ "$BK" "$d" "$o" "$T/vout" "$@"
    vout=$(cat "$T/vout")
}
same_as() { # same_as OUT REF NAME: the same chunk files, byte for byte
    local o=$1 r=$2 name=$3 bad=0 f
    if ! diff <(cd "$o" && find . -name '*_*_*.*' ! -path './_blockkit/*' | sort) \
              <(cd "$r" && find . -name '*_*_*.*' ! -path './_blockkit/*' | sort) > /dev/null; then
        fail "$name: not the same set of chunk files as a clean export"; return
    fi
    for f in $(cd "$r" && find . -name '*_*_*.*' ! -path './_blockkit/*'); do cmp -s "$o/$f" "$r/$f" || bad=1; done
    if [ $bad = 0 ]; then pass "$name: the bytes of a clean export"; else fail "$name: files differ from a clean export"; fi
}
# damage NAME PROBLEM_RE FILE: verify names FILE with PROBLEM, exit 1; a
# rerun repairs; verify passes
check_damage() {
    local name=$1 re=$2 file=$3
    verify "$DD" "$W/o"
    if [ "$rc" = 1 ] && printf '%s\n' "$vout" | grep -Eq -- "^$W/o/$file: $re"; then
        pass "$name: reported ($(printf '%s\n' "$vout" | grep -c .) line(s))"
    else
        fail "$name: verify exit $rc, stdout: $vout"
    fi
    export_to "$DD" "$W/o"
    verify "$DD" "$W/o"
    expect "$name: verify after the rerun" 0 "is complete for heights 0-939 and on the best chain \(40 files\)"
    same_as "$W/o" "$W/ref" "$name: rerun"
}

export_to "$DD" "$W/ref"
verify "$DD" "$W/ref"
expect "fresh export verifies" 0 "^blockkit: export: $W/ref is complete for heights 0-939 and on the best chain \(40 files\)$"
[ -z "$vout" ] && pass "fresh export: nothing on stdout" || fail "fresh export: stdout $vout"
verify "$DD" "$W/ref" --deep --summary
expect "fresh export verifies --deep" 0 "--verify --deep: 4 dataset\(s\), heights 0-939, 40 chunk files, 40 ok, 0 problem\(s\)"
for fmt in csv ndjson; do
    export_to "$DD" "$W/$fmt" --format $fmt --datasets all,block_stats
    verify "$DD" "$W/$fmt" --deep --summary
    expect "fresh $fmt export verifies --deep (rows counted)" 0 "50 chunk files, 50 ok, 0 problem"
done
# the footer carries the provenance (read back by DuckDB in check_provenance.mjs)

cp -a "$W/ref" "$W/o"
rm "$W/o/blocks/blocks_00000100_00000199.parquet"
check_damage "deleted chunk" "missing: " blocks/blocks_00000100_00000199.parquet

truncate -s 1000 "$W/o/transactions/transactions_00000200_00000299.parquet"
check_damage "truncated chunk" "truncated: 1000 bytes, [0-9]+ written" transactions/transactions_00000200_00000299.parquet

f=inputs/inputs_00000300_00000399.parquet
printf 'X' | dd of="$W/o/$f" bs=1 seek=2000 conv=notrunc 2> /dev/null
check_damage "one byte changed" "damaged: its bytes are not the ones written" $f

# one byte changed with the mtime put back: only --deep reads every byte
touch -r "$W/o/$f" "$T/stamp"
printf 'X' | dd of="$W/o/$f" bs=1 seek=2000 conv=notrunc 2> /dev/null
touch -r "$T/stamp" "$W/o/$f"
verify "$DD" "$W/o" --deep
if [ "$rc" = 1 ] && printf '%s\n' "$vout" | grep -q "^$W/o/$f: damaged: its bytes"; then pass "--deep finds a change the mtime hides"; else fail "--deep: exit $rc $vout"; fi
cp -p "$W/ref/$f" "$W/o/$f"

# a chunk of another datadir's export (the synthetic regtest chain)
run 120 "$BK" export --datadir "$SYNTH" --out "$W/synth" --chunk-size 100 --end 99 --datasets blocks --progress never
[ "$rc" = 0 ] || fail "synthetic export: $err"
cp "$W/synth/blocks/blocks_00000000_00000099.parquet" "$W/o/blocks/blocks_00000000_00000099.parquet"
check_damage "chunk of another export" "foreign: its footer's blockkit\.(first|last)_hash is " blocks/blocks_00000000_00000099.parquet

# a file under a chunk's name the catalogue does not list (another tool's)
head -c 5000 /dev/urandom > "$W/o/outputs/outputs_00000400_00000499.parquet.x"
mv "$W/o/outputs/outputs_00000400_00000499.parquet.x" "$W/o/outputs/outputs_00000400_00000499.parquet"
check_damage "a file of random bytes under a chunk's name" "(truncated|damaged): " outputs/outputs_00000400_00000499.parquet

# a torn catalogue line (a crash while appending)
printf '{"file":"blocks/blocks_0000' >> "$W/o/_blockkit/chunks.ndjson"
verify "$DD" "$W/o"
if [ "$rc" = 1 ] && printf '%s\n' "$vout" | grep -q "_blockkit/chunks.ndjson: catalogue: 1 line(s) that cannot be read"; then
    pass "torn catalogue line reported"; else fail "torn catalogue line: exit $rc $vout"; fi
export_to "$DD" "$W/o"
verify "$DD" "$W/o"
expect "torn catalogue line: the rerun rewrites the catalogue" 0 "is complete"

# a reorg: the blocks from 574 up invalidated in a copy of the block index
R=$W/reorg
mkdir -p "$R/regtest/blocks"
for x in "$DD"/regtest/blocks/*.dat; do ln "$x" "$R/regtest/blocks/" 2> /dev/null || cp "$x" "$R/regtest/blocks/"; done
cp -r "$DD/regtest/blocks/index" "$R/regtest/blocks/"
"$INDEX_FAIL" "$R/regtest/blocks/index" 574 < "$DATA/regtest/bestchain.tsv" || fail "index-fail"
verify "$R" "$W/o"
n_re=$(printf '%s\n' "$vout" | grep -c ": reorged: ")
if [ "$rc" = 1 ] && [ "$n_re" = 20 ] && printf '%s\n' "$vout" | grep -q "^$W/o/blocks/blocks_00000500_00000599.parquet: reorged: "; then
    pass "reorg: the 20 chunks from 500 reported"; else fail "reorg: exit $rc, $n_re reorged lines: $vout"; fi
export_to "$R" "$W/o"
export_to "$R" "$W/reorg-ref"
verify "$R" "$W/o"
expect "reorg: verify after the rerun" 0 "is complete for heights 0-579 and on the best chain \(24 files\)"
same_as "$W/o" "$W/reorg-ref" "reorg: rerun"
# and back: the original chain is the best one again
verify "$DD" "$W/o"
if [ "$rc" = 1 ] && printf '%s\n' "$vout" | grep -q "blocks_00000500_00000579.parquet: reorged"; then pass "reorg back: reported"; else fail "reorg back: exit $rc $vout"; fi
export_to "$DD" "$W/o"
verify "$DD" "$W/o"
expect "reorg back: verify after the rerun" 0 "is complete for heights 0-939"
same_as "$W/o" "$W/ref" "reorg back: rerun"

# --follow through a reorg: the node's index switches to the stale branch
# between two looks (a symbolic link swapped atomically); the next look
# removes the chunks whose blocks left the best chain, and what is left
# verifies against the new chain
F=$W/follow
mkdir -p "$F/regtest/blocks"
for x in "$DD"/regtest/blocks/*.dat; do ln "$x" "$F/regtest/blocks/" 2> /dev/null || cp "$x" "$F/regtest/blocks/"; done
cp -r "$DD/regtest/blocks/index" "$W/index-best"
ln -s "$W/index-best" "$F/regtest/blocks/index"
"$BK" export --datadir "$F" --out "$W/fo" --chunk-size 100 --follow --lag 0 --poll 1 --progress never 2> "$W/follow.err" &
fpid=$!
for _ in $(seq 1 300); do grep -q "waiting: tip at height 939" "$W/follow.err" 2> /dev/null && break; sleep 0.1; done
n_before=$(find "$W/fo/blocks" -name '*.parquet' | wc -l)
ln -s "$R/regtest/blocks/index" "$W/index-link" && mv -T "$W/index-link" "$F/regtest/blocks/index"
for _ in $(seq 1 300); do grep -q "waiting: tip at height 579" "$W/follow.err" 2> /dev/null && break; sleep 0.1; done
kill -TERM $fpid; wait $fpid
n_after=$(find "$W/fo/blocks" -name '*.parquet' | wc -l)
if [ "$n_before" = 9 ] && [ "$n_after" = 5 ]; then pass "--follow: 9 chunks, then the 4 off the best chain removed"; else fail "--follow: $n_before then $n_after chunks: $(cat "$W/follow.err")"; fi
verify "$F" "$W/fo"
expect "--follow through a reorg: verify" 0 "is complete for heights 0-499 and on the best chain \(20 files\)"

# what --verify refuses and what is not an export
run 10 "$BK" export --verify --datadir "$DD" --out "$W/o" --format csv
expect "--verify with an export option" 64 "--format is not for --verify"
run 10 "$BK" export --datadir "$DD" --out "$W/o" --deep
expect "--deep without --verify" 64 "--deep is for --verify"
mkdir -p "$W/empty"
run 10 "$BK" export --verify --datadir "$DD" --out "$W/empty"
expect "--verify of a directory that is no export" 66 "is not a blockkit export \(no _blockkit/datasets.ndjson\)"
# one format and chunk size per dataset of a directory
run 10 "$BK" export --datadir "$DD" --out "$W/o" --chunk-size 50 --progress never
expect "a rerun with another chunk size" 64 "holds blocks as parquet chunks of 100 heights of regtest .*this run asks for parquet chunks of 50"
finish
