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
# each block pays its own addresses (P2PKH, P2SH, P2WPKH, P2WSH hashes
# varied per block), and an in-block spend's coin from the undo data is the
# output it spends: address, type and value
run 300 "$BK" export --blocksdir "$T/a" --out "$T/j" --datasets inputs,outputs --format ndjson --chunk-size 1000 \
    --columns inputs.block_number,inputs.spent_transaction_hash,inputs.spent_output_index,inputs.type,inputs.address,inputs.value,outputs.block_number,outputs.transaction_hash,outputs.index,outputs.type,outputs.address,outputs.value \
    --progress never
expect "export of inputs and outputs" 0 ""
res=$(node -e '
const fs = require("fs"), path = require("path"), dir = process.argv[1];
const rows = (ds) => fs.readdirSync(path.join(dir, ds)).sort().flatMap((f) =>
    fs.readFileSync(path.join(dir, ds, f), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)));
const varied = new Set(["pubkeyhash", "scripthash", "witness_v0_keyhash", "witness_v0_scripthash"]);
const outs = new Map(), firstBlock = new Map();
let n = 0, shared = 0;
for (const o of rows("outputs")) {
    outs.set(o.transaction_hash + ":" + o.index, o);
    if (!varied.has(o.type)) continue;
    n++;
    const b = firstBlock.get(o.address);
    if (b === undefined) firstBlock.set(o.address, o.block_number); else if (b !== o.block_number) shared++;
}
let inblock = 0, same = 0;
for (const i of rows("inputs")) {
    const o = outs.get(i.spent_transaction_hash + ":" + i.spent_output_index);
    if (!o) continue;
    inblock++;
    if (o.block_number === i.block_number && o.address === i.address && o.type === i.type && o.value === i.value) same++;
}
console.log(n, shared, inblock, same);
' "$T/j")
read -r nv shared inblock same <<< "$res"
if [ "${nv:-0}" -gt 10000 ] && [ "$shared" = 0 ]; then
    pass "$nv outputs to varied script types, no address paid in two blocks"; else fail "varied outputs $nv, addresses in two blocks $shared"; fi
if [ "${inblock:-0}" -gt 100 ] && [ "$inblock" = "$same" ]; then
    pass "$inblock in-block spends: each coin in the undo data is the output it spends"; else fail "in-block spends $inblock, equal $same"; fi
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
