#!/bin/bash
# gen-bench-blocks: a chain of distinct transactions (tests/bench_blocks.test.cmake).
. "$(dirname "$0")/robustness/lib.sh"
run 120 "$GEN" --bytes 25M --seed 7 "$DATA" "$T/a"
expect "generate 25 MB" 0 ""
run 120 "$GEN" --bytes 25M --seed 7 "$DATA" "$T/b"
run 120 "$GEN" --bytes 25M --seed 8 "$DATA" "$T/c"
if diff -r "$T/a" "$T/b" > /dev/null; then pass "deterministic for a seed"; else fail "two runs with seed 7 differ"; fi
if ! cmp -s "$T/a/blk00000.dat" "$T/c/blk00000.dat"; then pass "another seed, other bytes"; else fail "seeds 7 and 8 agree"; fi
run 120 "$GEN" --bytes 25M "$DATA" "$T/a"
expect "refuses a directory with blk files" 64 "already holds blk files"
# the chain: every block from the genesis, with its undo data (the export
# checks each block's undo against it: counts, fee range)
run 300 "$BK" export --blocksdir "$T/a" --out "$T/e" --datasets blocks,transactions,inputs --format csv \
    --chunk-size 1000 --progress never --summary
expect "export of the generated chain" 0 "chunks written"
blocks=$(tail -n +2 "$T"/e/blocks/*.csv | wc -l)
txs=$(tail -n +2 "$T"/e/transactions/*.csv | wc -l)
distinct=$(tail -n +2 -q "$T"/e/transactions/*.csv | cut -d, -f1 | sort -u | wc -l)
if [ "$blocks" -ge 16 ] && [ "$txs" -gt 40000 ] && [ "$txs" = "$distinct" ]; then
    pass "$blocks blocks, $txs transactions, all txids distinct"; else fail "$blocks blocks, $txs txs, $distinct distinct"; fi
# every block's header links to the one before and its merkle root is its transactions'
run 300 bash -c '"$1" scan --blocksdir "$2" --verbosity 1 --progress never > "$3"' _ "$BK" "$T/a" "$T/scan.ndjson"
expect "scan of the generated chain" 0 ""
heights=$(grep -c '"height"' "$T/scan.ndjson")
if [ "$heights" = "$blocks" ]; then pass "scan: the same $blocks blocks in one chain"; else fail "scan: $heights blocks"; fi
# fees are the templates' (the undo data is the blocks' own): 866342's is 5026183 sat
fees=$(tail -n +2 -q "$T"/e/blocks/*.csv | tr -d '\r' | awk -F, '$NF == 5026183' | wc -l)
if [ "$fees" -ge 13 ]; then pass "the copies of 866342 keep its fee ($fees)"; else fail "866342's fee found $fees times"; fi
# each block's merkle root is its (new) transactions' (blockkit merkle on the records un-XORed)
node -e '
const fs = require("fs"); const [dir, out] = process.argv.slice(1);
const key = fs.readFileSync(dir + "/xor.dat"), b = fs.readFileSync(dir + "/blk00000.dat");
for (let i = 0; i < b.length; i++) b[i] ^= key[i & 7];
let at = 0, k = 0;
while (at + 8 <= b.length) { const n = b.readUInt32LE(at + 4); fs.writeFileSync(`${out}/b${k++}.raw`, b.subarray(at + 8, at + 8 + n)); at += 8 + n; }
' "$T/a" "$T" || fail "splitting blk00000.dat"
ok=0; n=0
for f in "$T"/b*.raw; do
    n=$((n + 1))
    "$BK" merkle "$f" | grep -q '"mutated":false,"header_match":true' && ok=$((ok + 1))
done
if [ "$n" -ge 16 ] && [ "$ok" = "$n" ]; then pass "every merkle root matches its transactions ($n blocks)"; else fail "merkle roots: $ok of $n match"; fi
finish
