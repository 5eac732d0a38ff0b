#!/bin/bash
# blockkit index build|update and blockkit address end to end (docs/index.md):
#  - built -j1 and -j2 over the regtest datadir, the two indexes hold the
#    same rows, and every scripthash of tests/data/regtest/electrum/
#    scripthashes.ndjson.zst (computed from Core's getblock verbosity 3)
#    gets the vector's history, balance, unspent and status, every tx of
#    merkle.ndjson.zst its branch; addresses, --script and --scripthash
#    name the same scripts; --limit refuses;
#  - a reorg (a copy of the block index with the blocks from 574
#    invalidated): update gives the rows of a fresh build on the new best
#    chain, and back again;
#  - kill -9 at random points of a build, rerun: the rows of a clean build;
#  - bad input: a clear message and the documented exit, nothing written;
#    an index of format 2, a damaged row group and a damaged count of
#    bulk commits refused.
# The builds and the update back from the reorg (144 blocks or more) write
# bulk groups, the reorg's undo removes rows from them, its 6 blocks are
# rows of one key each: ldb-dump prints the logical rows of both.
# Environment: BK, LDB_DUMP, INDEX_FAIL, REGTEST, DATA, BK_SANITIZE.
. "$(dirname "$0")/../robustness/lib.sh"
DD=$REGTEST/full
zstd -dcq "$DATA/regtest/electrum/scripthashes.ndjson.zst" > "$T/sh.ndjson"
zstd -dcq "$DATA/regtest/electrum/merkle.ndjson.zst" > "$T/mk.ndjson"
node -e '
  const fs = require("fs"), d = process.argv[1];
  const L = fs.readFileSync(d + "/sh.ndjson", "utf8").trim().split("\n").map(JSON.parse);
  fs.writeFileSync(d + "/shs.txt", L.map(o => o.scripthash).join("\n") + "\n");
  for (const [f, k] of [["history", "history"], ["balance", "balance"], ["utxos", "unspent"], ["status", "status"]])
    fs.writeFileSync(d + "/want." + f, L.map(o => JSON.stringify(o[k] === undefined ? null : o[k])).join("\n") + "\n");
  const M = fs.readFileSync(d + "/mk.ndjson", "utf8").trim().split("\n").map(JSON.parse);
  fs.writeFileSync(d + "/txids.txt", M.map(o => o.tx_hash).join("\n") + "\n");
  fs.writeFileSync(d + "/want.merkle", M.map(o => JSON.stringify({block_height: o.height, merkle: o.merkle, pos: o.pos})).join("\n") + "\n");
  const a = L.filter(o => o.address && o.history.length >= 3);
  fs.writeFileSync(d + "/addr.txt", [a[0], a[a.length >> 1], a[a.length - 1]].map(o => [o.address, o.script, o.scripthash, JSON.stringify(o.history)].join(" ")).join("\n") + "\n");
' "$T"
nsh=$(wc -l < "$T/shs.txt"); nmk=$(wc -l < "$T/txids.txt")
[ "$nsh" = 14800 ] && [ "$nmk" = 5209 ] || fail "vectors: $nsh scripthashes, $nmk txs"

dump() { "$LDB_DUMP" "$1" > "$2" || fail "ldb-dump $1"; }

for j in 1 2; do
    run 120 "$BK" index build --datadir "$DD" --index "$T/ix$j" -j$j --mem 1 > "$T/build$j.json"
    if [ $rc = 0 ] && grep -q '^{"height":939,"hash":"50829bd798e2b4f7250a3bab265872810fed4fe420af414c67b9e37ab4f614c6","applied":940,"undone":0}$' "$T/build$j.json"
    then pass "index build -j$j: 940 blocks, the tip of Core's best chain"; else fail "index build -j$j: rc $rc $err $(cat "$T/build$j.json")"; fi
done
dump "$T/ix1" "$T/d1"; dump "$T/ix2" "$T/d2"
if [ -s "$T/d1" ] && cmp -s "$T/d1" "$T/d2"; then pass "-j1 and -j2: the same $(wc -l < "$T/d1") rows"; else fail "-j1 and -j2 differ"; fi
# the default --mem: every row in memory, one commit, sorted on the sorter
# thread while merged (--mem 1 above spills runs and merges them)
run 120 "$BK" index build --datadir "$DD" --index "$T/ixm" > /dev/null
dump "$T/ixm" "$T/dm"
if [ $rc = 0 ] && cmp -s "$T/d1" "$T/dm"; then pass "default --mem (one commit) and --mem 1 (spilled runs): the same rows"
else fail "default --mem and --mem 1 differ: rc $rc $err"; fi

for q in history balance utxos status merkle; do
    src=$T/shs.txt; [ $q = merkle ] && src=$T/txids.txt
    run 300 "$BK" address $q --index "$T/ix2" --scripthashes "$src" > "$T/got.$q"
    if [ $rc = 0 ] && cmp -s "$T/got.$q" "$T/want.$q"; then pass "address $q: all $(wc -l < "$T/want.$q") answers equal the vector"
    else fail "address $q: rc $rc, $(cmp "$T/got.$q" "$T/want.$q" 2>&1) $err"; fi
done
# stdin, addresses, scripts, scripthashes: the same script three ways
run 60 bash -c '"$1" address status --index "$2" --scripthashes - < "$3"' _ "$BK" "$T/ix1" "$T/shs.txt" > "$T/got.stdin"
if [ $rc = 0 ] && cmp -s "$T/got.stdin" "$T/want.status"; then pass "--scripthashes - (stdin)"; else fail "stdin: rc $rc $err"; fi
while read -r addr script sh hist; do
    run 30 "$BK" address history --index "$T/ix1" "$addr" --script "$script" --scripthash "$sh" > "$T/three"
    if [ $rc = 0 ] && [ "$(sort -u "$T/three")" = "$hist" ] && [ "$(wc -l < "$T/three")" = 3 ]; then pass "$addr: ADDRESS, --script, --scripthash"
    else fail "$addr: rc $rc $err"; fi
    n=$(node -e 'console.log(JSON.parse(process.argv[1]).length)' "$hist")
    run 30 "$BK" address history --index "$T/ix1" "$addr" --limit $((n - 1)) > /dev/null
    expect "$addr: --limit $((n - 1)) of a history of $n" 65 "over the limit of $((n - 1))"
    run 30 "$BK" address history --index "$T/ix1" "$addr" --limit $n > /dev/null
    [ $rc = 0 ] && pass "$addr: --limit $n" || fail "--limit $n: rc $rc $err"
done < "$T/addr.txt"

# a rerun on a whole index: nothing to do
run 60 "$BK" index update --datadir "$DD" --index "$T/ix1" > "$T/again.json"
if [ $rc = 0 ] && grep -q '"applied":0,"undone":0' "$T/again.json"; then pass "index update at the tip: nothing to do"
else fail "update at the tip: rc $rc $err"; fi

# a reorg, and back
R=$T/reorg
mkdir -p "$R/regtest/blocks"
for x in "$DD"/regtest/blocks/*.dat; do ln "$x" "$R/regtest/blocks/" 2> /dev/null || cp "$x" "$R/regtest/blocks/"; done
cp -r "$DD/regtest/blocks/index" "$R/regtest/blocks/"
"$INDEX_FAIL" "$R/regtest/blocks/index" 574 < "$DATA/regtest/bestchain.tsv" || fail "index-fail"
run 120 "$BK" index update --datadir "$R" --index "$T/ix1" > "$T/re.json"
run 120 "$BK" index build --datadir "$R" --index "$T/fresh" > /dev/null
dump "$T/ix1" "$T/dr"; dump "$T/fresh" "$T/df"
if grep -q '^{"height":579,.*"applied":6,"undone":366}$' "$T/re.json" && cmp -s "$T/dr" "$T/df"; then
    pass "reorg: 366 blocks undone, 6 applied: the rows of a fresh build on the new chain"
else fail "reorg: $(cat "$T/re.json") $(cmp "$T/dr" "$T/df" 2>&1) $err"; fi
run 120 "$BK" index update --datadir "$DD" --index "$T/ix1" > "$T/back.json"
dump "$T/ix1" "$T/db"
if grep -q '"applied":366,"undone":6' "$T/back.json" && cmp -s "$T/db" "$T/d1"; then pass "and back: the rows of the first build"
else fail "back: $(cat "$T/back.json") $err"; fi

# kill -9 at random points of a build's own duration (each run continues
# the last), then a rerun
t0=$(date +%s%N)
"$BK" index build --datadir "$DD" --index "$T/kt" --mem 1 > /dev/null 2>&1 || fail "a timed build"
ms=$((($(date +%s%N) - t0) / 1000000)); [ $ms -gt 2 ] || ms=2
mid=0
for i in $(seq 1 12); do
    "$BK" index build --datadir "$DD" --index "$T/k" --mem 1 > "$T/k.json" 2> /dev/null &
    pid=$!
    d=$((RANDOM % ms + 1)); sleep "$((d / 1000)).$(printf %03d $((d % 1000)))"
    kill -9 $pid 2> /dev/null; wait $pid 2> /dev/null
    [ -s "$T/k.json" ] || mid=$((mid + 1))
done
run 120 "$BK" index build --datadir "$DD" --index "$T/k" > /dev/null
dump "$T/k" "$T/dk"
# a kill before LevelDB wrote CURRENT leaves only LOCK, LOG and MANIFEST-1:
# the next build starts the database over them (robustness: CI, sanitizer run)
mkdir -p "$T/k0"; : > "$T/k0/LOCK"; : > "$T/k0/LOG"; : > "$T/k0/MANIFEST-000001"; : > "$T/k0/000001.dbtmp"
run 120 "$BK" index build --datadir "$DD" --index "$T/k0" > /dev/null
dump "$T/k0" "$T/dk0"
if [ $rc = 0 ] && cmp -s "$T/dk0" "$T/d1"; then pass "a build killed before LevelDB's CURRENT: the rerun builds it"
else fail "pre-CURRENT leftovers: rc $rc $err"; fi
if [ $rc = 0 ] && [ $mid -gt 0 ] && cmp -s "$T/dk" "$T/d1"; then pass "kill -9 during build ($mid of 12 runs killed mid-way), rerun: the rows of a clean build"
else fail "kill -9: rc $rc, $mid killed mid-way, $err $(cmp "$T/dk" "$T/d1" 2>&1)"; fi

# bad input
run 30 "$BK" index build --datadir "$DD" --index "$DD/regtest/ix" > /dev/null
expect "an index inside the datadir" 64 "inside the node's datadir"
[ -e "$DD/regtest/ix" ] && fail "a directory was made inside the datadir"
: > "$T/afile"
run 30 "$BK" index build --datadir "$DD" --index "$T/afile" > /dev/null
expect "an index that is a file" 64 "not a directory"
mkdir -p "$T/stuff"; echo x > "$T/stuff/notes.txt"
run 30 "$BK" index build --datadir "$DD" --index "$T/stuff" > /dev/null
expect "a directory of other files" 65 "not a LevelDB"
cp -r "$DD/regtest/blocks/index" "$T/coreindex"
run 30 "$BK" index build --datadir "$DD" --index "$T/coreindex" > /dev/null
expect "a foreign LevelDB (Core's block index)" 65 "not a blockkit address index"
run 30 "$BK" address history --index "$T/coreindex" --scripthash "$(head -1 "$T/shs.txt")" > /dev/null
expect "address on a foreign LevelDB" 65 "not a blockkit address index"
mkdir -p "$T/main"; cp "$DATA/blkfiles/mainnet_blocks_1-255.blk" "$T/main/blk00000.dat"
run 30 "$BK" index build --blocksdir "$T/main" --index "$T/ix1" > /dev/null
expect "another network's blocks" 65 "an address index of regtest, not main"
run 30 "$BK" address history --index "$T/ix1" --chain main --scripthash "$(head -1 "$T/shs.txt")" > /dev/null
expect "address --chain main on a regtest index" 65 "an address index of regtest, not main"
run 30 "$BK" address history --index "$T/none" --scripthash "$(head -1 "$T/shs.txt")" > /dev/null
expect "no index" 66 "none"
run 30 "$BK" address history --index "$T/ix1" bc1qxyz > /dev/null
expect "a bad address" 64 "bad address 'bc1qxyz'"
run 30 "$BK" address history --index "$T/ix1" --scripthash 12ab > /dev/null
expect "a short scripthash" 64 "bad scripthash '12ab': want 64 hex digits"
run 30 "$BK" address merkle --index "$T/ix1" 0000000000000000000000000000000000000000000000000000000000000001 > /dev/null
expect "a txid not on the chain" 66 "not on the index's chain"
# an index of format 2 (its version row says 2): refused, build it again
v=$(grep '^56=' "$T/d1" | cut -d= -f2)
cp -r "$T/ix2" "$T/v2"
"$LDB_DUMP" --put "$T/v2" 56 "${v:0:36}02000000${v:44}" || fail "ldb-dump --put"
run 30 "$BK" address history --index "$T/v2" --scripthash "$(head -1 "$T/shs.txt")" > /dev/null
expect "address on an index of format 2" 65 "an address index of format version 2 \\(this blockkit reads 3\\): build it again"
run 30 "$BK" index update --datadir "$DD" --index "$T/v2" > /dev/null
expect "index update of an index of format 2" 65 "format version 2 \\(this blockkit reads 3\\)"
# a damaged row group: its last row is the first scripthash's, at the
# highest height and position, so a query of it reads the group
sh=$(head -1 "$T/shs.txt"); p6=""; for i in 62 60 58 56 54 52; do p6=$p6${sh:$i:2}; done
cp -r "$T/ix2" "$T/badg"
"$LDB_DUMP" --put "$T/badg" "4f00000000${p6}ffffffffffffff" 00 || fail "ldb-dump --put"
run 30 "$BK" address history --index "$T/badg" --scripthash "$sh" > /dev/null
expect "a damaged row group" 65 "a damaged row group \\(key 4f00000000${p6}ffffffffffffff\\)"
# a count of bulk commits the rows do not hold: 2^31 - 1 is walked over
# the commits the index has (the same answers, not a seek per counted
# commit: that took minutes, fuzz_addrindex); above 2^31 it is damage
cp -r "$T/ix2" "$T/bigc"
"$LDB_DUMP" --put "$T/bigc" 43 ffffff7f || fail "ldb-dump --put"
head -300 "$T/shs.txt" > "$T/shs300"; head -300 "$T/want.history" > "$T/want300"
run 30 "$BK" address history --index "$T/bigc" --scripthashes "$T/shs300" > "$T/got300"
if [ $rc = 0 ] && cmp -s "$T/got300" "$T/want300"; then pass "a bulk commit count of 2^31 - 1: the vector's 300 histories"
else fail "a bulk commit count of 2^31 - 1: rc $rc $err"; fi
"$LDB_DUMP" --put "$T/bigc" 43 00000080 || fail "ldb-dump --put"
run 30 "$BK" address history --index "$T/bigc" --scripthash "$sh" > /dev/null
expect "a bulk commit count of 2^31" 65 "a damaged bulk commit count row \\(2147483648\\)"
printf 'zz\n' > "$T/badlist"
run 30 "$BK" address status --index "$T/ix1" --scripthashes "$T/badlist" > /dev/null
expect "a bad scripthash line" 64 "badlist line 1"
# one writer at a time; --follow stops on SIGTERM with the index whole
"$BK" index update --datadir "$DD" --index "$T/ix2" --follow --interval 1 > "$T/follow.json" 2> "$T/follow.err" &
fpid=$!
for _ in $(seq 50); do [ -s "$T/follow.json" ] && break; sleep 0.1; done
run 30 "$BK" index update --datadir "$DD" --index "$T/ix2" > /dev/null
expect "a second writer" 75 "another blockkit index writer"
kill -TERM $fpid; wait $fpid; frc=$?
if [ $frc = 143 ] && grep -q '"height":939' "$T/follow.json"; then pass "--follow: SIGTERM ends it with 143"
else fail "--follow: exit $frc $(cat "$T/follow.err")"; fi
finish
