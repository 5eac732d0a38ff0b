#!/bin/bash
# blockkit sp tweaks / sp scan end to end (docs/silentpay.md).
#  - the regtest datadir: `sp tweaks --txs` reproduces tests/data/regtest/sp/
#    tweaks.ndjson.zst (tweak data computed from Core's getblock verbosity 3
#    answers by an independent implementation) byte for byte, -j1 and -j2;
#    the per-block form, named blocks, one raw block FILE --undo UNDO, the
#    dust limit and cut-through (against `utxo dump` of the chainstate) agree
#    with it;
#  - a synthetic chain that really holds silent payments (gen-synth-datadir
#    --sp-receiver: outputs made the sender's way, labelled and not, several
#    a tx, a decoy receiver): `sp scan` finds exactly the receiver's outputs;
#  - bad keys and usage: a clear message and the documented exit.
. "$(dirname "$0")/../robustness/lib.sh"
DD=$REGTEST/full
EXP="node $(dirname "$0")/sp_expect.mjs"
zstd -dcq "$DATA/regtest/sp/tweaks.ndjson.zst" > "$T/vector.ndjson"
nvec=$(wc -l < "$T/vector.ndjson")
[ "$nvec" = 1197 ] || fail "the vector has $nvec lines, want 1197"

for j in 1 2; do
    run 120 "$BK" sp tweaks --datadir "$DD" --txs -j$j > "$T/txs.ndjson"
    if [ $rc = 0 ] && cmp -s "$T/txs.ndjson" "$T/vector.ndjson"; then pass "sp tweaks --txs -j$j: all $nvec lines byte for byte"
    else fail "sp tweaks --txs -j$j: rc $rc, $(cmp "$T/txs.ndjson" "$T/vector.ndjson" 2>&1) $err"; fi
done

# the per-block form: one line per height of the best chain, the vector's tweaks in block order
# Core's best chain (tests/data/regtest/bestchain.tsv: height, hash)
$EXP blocks "$T/vector.ndjson" "$DATA/regtest/bestchain.tsv" > "$T/blocks.want"
for j in 1 2; do
    run 120 "$BK" sp tweaks --datadir "$DD" -j$j > "$T/blocks.ndjson"
    if [ $rc = 0 ] && [ -s "$T/blocks.want" ] && cmp -s "$T/blocks.ndjson" "$T/blocks.want"; then
        pass "sp tweaks -j$j: $(wc -l < "$T/blocks.ndjson") blocks, the vector's tweaks"
    else fail "sp tweaks -j$j: rc $rc, $(cmp "$T/blocks.ndjson" "$T/blocks.want" 2>&1) $err"; fi
done
# a range, and blocks named by height and hash in argument order
run 60 "$BK" sp tweaks --datadir "$DD" --start 500 --end -400 > "$T/range.ndjson"
if [ $rc = 0 ] && cmp -s "$T/range.ndjson" <(sed -n 501,540p "$T/blocks.want"); then pass "sp tweaks --start 500 --end -400"
else fail "sp tweaks range: rc $rc $err"; fi
busy=$(node -e 'const l=require("fs").readFileSync(process.argv[1],"utf8").trim().split("\n").map(JSON.parse);
  const b=l.filter(o=>o.tweaks.length>1); console.log(b[0].height, b[b.length-1].height, b[b.length-1].hash)' "$T/blocks.want")
set -- $busy; h1=$1; h2=$2; hash2=$3
run 60 "$BK" sp tweaks --datadir "$DD" "$hash2" "$h1" "$h2" > "$T/args.ndjson"
if [ $rc = 0 ] && cmp -s "$T/args.ndjson" <(for n in $((h2 + 1)) $((h1 + 1)) $((h2 + 1)); do sed -n ${n}p "$T/blocks.want"; done); then
    pass "sp tweaks HASH HEIGHT HEIGHT: argument order"
else fail "sp tweaks HASH HEIGHT...: rc $rc $err"; fi

# one raw block FILE with its undo data (the rev record found by its checksum, outside blockkit)
for h in $h1 $h2; do
    prev=$(awk -v h=$((h - 1)) '$1 == h { print $2 }' "$DATA/regtest/bestchain.tsv")
    run 60 "$BK" block --datadir "$DD" --verbosity 0 "$h" > "$T/block.json"
    tr -d '"' < "$T/block.json" > "$T/block.hex"
    $EXP undo "$DD/regtest/blocks" "$prev" "$T/undo.dat" || fail "no undo record for height $h"
    run 60 "$BK" sp tweaks --chain regtest "$T/block.hex" --undo "$T/undo.dat" --txs > "$T/file.ndjson"
    if [ $rc = 0 ] && [ -s "$T/file.ndjson" ] && cmp -s "$T/file.ndjson" <(grep "^{\"height\":$h," "$T/vector.ndjson"); then
        pass "sp tweaks FILE --undo UNDO --txs (height $h): the vector's $(wc -l < "$T/file.ndjson") lines"
    else fail "sp tweaks FILE --undo (height $h): rc $rc $err"; fi
done
run 30 "$BK" sp tweaks "$T/block.hex" > /dev/null
expect "FILE without --undo" 66 "undo data not available"

# BIP352 Appendix A's filters
for s in 1 100000 5000000000; do
    $EXP dust $s "$T/vector.ndjson" > "$T/dust.want"
    run 60 "$BK" sp tweaks --datadir "$DD" --txs --dust-limit $s -j2 > "$T/dust.ndjson"
    if [ $rc = 0 ] && cmp -s "$T/dust.ndjson" "$T/dust.want"; then pass "--dust-limit $s: $(wc -l < "$T/dust.want") of $nvec txs kept"
    else fail "--dust-limit $s: rc $rc, $(cmp "$T/dust.ndjson" "$T/dust.want" 2>&1) $err"; fi
done
run 120 "$BK" utxo dump --datadir "$DD" --format csv -o "$T/utxo.csv"
$EXP cut "$T/utxo.csv" "$T/vector.ndjson" > "$T/cut.want"
run 60 "$BK" sp tweaks --datadir "$DD" --txs --cut-through -j2 > "$T/cut.ndjson"
ncut=$(wc -l < "$T/cut.want")
if [ $rc = 0 ] && [ "$ncut" -gt 0 ] && [ "$ncut" -lt "$nvec" ] && cmp -s "$T/cut.ndjson" "$T/cut.want"; then
    pass "--cut-through: $ncut of $nvec txs have an unspent taproot output (utxo dump)"
else fail "--cut-through: rc $rc, $(cmp "$T/cut.ndjson" "$T/cut.want" 2>&1) $err"; fi
run 30 "$BK" sp tweaks --blocksdir "$DD/regtest/blocks" --cut-through > /dev/null
expect "--cut-through without --datadir" 64 "needs --datadir|give --datadir"

# sp scan on a chain that holds silent payments
KEYS=$DATA/sp/receiver.keys SCAN=$DATA/sp/receiver.scan
SPEND=03f57bd185bb360aba0962fbc81ecd313b5aafd5ad69d79e959953f01b9ad11566
"$GEN_SYNTH" --quiet --blocks 700 --fork-every 250 --max-blockfile 65536 --sp-receiver "$KEYS" --sp-expect "$T/scan.want" "$T/synth" \
    || fail "gen-synth-datadir --sp-receiver"
nwant=$(wc -l < "$T/scan.want")
for j in 1 2; do
    run 60 "$BK" sp scan --datadir "$T/synth" --scan-key-file "$SCAN" --spend-pubkey $SPEND --labels 2 -j$j > "$T/scan.ndjson"
    if [ $rc = 0 ] && [ "$nwant" -gt 100 ] && cmp -s "$T/scan.ndjson" "$T/scan.want"; then
        pass "sp scan --labels 2 -j$j: exactly the $nwant outputs paid (labels 0-2 and none, k order, priv_key_tweak)"
    else fail "sp scan -j$j: rc $rc, $(cmp "$T/scan.ndjson" "$T/scan.want" 2>&1) $err"; fi
done
# the change label 0 is always looked for; labels 1 and 2 only when asked
# (the k loop stops at the first k not found: a tx's outputs after a label-1
# or label-2 one are not found either)
$EXP unlabelled "$T/scan.want" > "$T/scan0.want"
run 60 "$BK" sp scan --datadir "$T/synth" --scan-key-file - --spend-pubkey $SPEND < "$SCAN" > "$T/scan0.ndjson"
if [ $rc = 0 ] && [ -s "$T/scan0.want" ] && cmp -s "$T/scan0.ndjson" "$T/scan0.want"; then
    pass "sp scan, key on stdin, no --labels: the $(wc -l < "$T/scan0.want") unlabelled and change outputs"
else fail "sp scan stdin: rc $rc, $(cmp "$T/scan0.ndjson" "$T/scan0.want" 2>&1) $err"; fi
# every tx the generator made a payment in is eligible, with the tweak the sender used
run 60 "$BK" sp tweaks --datadir "$T/synth" --txs > "$T/synth_txs.ndjson"
ntx=$(wc -l < "$T/synth_txs.ndjson")
if [ $rc = 0 ] && [ "$ntx" -gt 0 ] && node -e '
  const fs=require("fs"); const t=new Map(fs.readFileSync(process.argv[1],"utf8").trim().split("\n").map(JSON.parse).map(o=>[o.txid,o.tweak]));
  for (const o of fs.readFileSync(process.argv[2],"utf8").trim().split("\n").map(JSON.parse)) if (t.get(o.txid)!==o.tweak) process.exit(1);' \
    "$T/synth_txs.ndjson" "$T/scan.want"; then pass "sp tweaks on the synthetic chain: $ntx eligible txs, the sender's tweaks"
else fail "sp tweaks synthetic: rc $rc $err"; fi
# another receiver's key finds nothing
printf '%064x\n' 7 > "$T/other.key"
run 60 "$BK" sp scan --datadir "$T/synth" --scan-key-file "$T/other.key" --spend-pubkey $SPEND --labels 2 > "$T/none.ndjson"
if [ $rc = 0 ] && [ ! -s "$T/none.ndjson" ]; then pass "sp scan with another scan key: nothing found"; else fail "other key: rc $rc $err"; fi

# bad keys: a clear message and 64/65, never a crash
: > "$T/empty.key"
run 30 "$BK" sp scan --datadir "$T/synth" --scan-key-file "$T/empty.key" --spend-pubkey $SPEND > /dev/null
expect "empty scan key file" 65 "empty\.key: .*"
printf 'zz%062d\n' 0 > "$T/nothex.key"
run 30 "$BK" sp scan --datadir "$T/synth" --scan-key-file "$T/nothex.key" --spend-pubkey $SPEND > /dev/null
expect "scan key not hex" 65 "nothex\.key: .*hex"
printf '%062x\n' 1 > "$T/short.key"
run 30 "$BK" sp scan --datadir "$T/synth" --scan-key-file "$T/short.key" --spend-pubkey $SPEND > /dev/null
expect "scan key of 62 digits" 65 "short\.key: .*62"
printf '%064d\n' 0 > "$T/zero.key"
run 30 "$BK" sp scan --datadir "$T/synth" --scan-key-file "$T/zero.key" --spend-pubkey $SPEND > /dev/null
expect "scan key zero" 65 "zero\.key: .*not a valid"
printf 'ff%.0s' $(seq 32) > "$T/order.key"
run 30 "$BK" sp scan --datadir "$T/synth" --scan-key-file "$T/order.key" --spend-pubkey $SPEND > /dev/null
expect "scan key above the group order" 65 "order\.key: .*not a valid"
run 30 "$BK" sp scan --datadir "$T/synth" --scan-key-file "$T/missing.key" --spend-pubkey $SPEND > /dev/null
expect "no scan key file" 66 "missing\.key"
run 30 "$BK" sp scan --datadir "$T/synth" --scan-key-file "$SCAN" --spend-pubkey 02$(printf '%064d' 5) > /dev/null
expect "spend key not on the curve" 64 "bad --spend-pubkey: .*"
run 30 "$BK" sp scan --datadir "$T/synth" --scan-key-file "$SCAN" --spend-pubkey 03f57b > /dev/null
expect "spend key too short" 64 "bad --spend-pubkey: .*"
run 30 "$BK" sp scan --datadir "$T/synth" --spend-pubkey $SPEND > /dev/null
expect "no scan key" 64 "scan-key-file"
run 30 "$BK" sp scan --datadir "$T/synth" --scan-key "$(cat "$SCAN")" --spend-pubkey $SPEND > /dev/null
[ $rc = 64 ] && pass "no scan key option in argv (exit 64)" || fail "--scan-key accepted: rc $rc"
run 30 "$BK" sp tweaks --datadir "$DD" --start 941 > /dev/null
expect "empty range" 66 "."
run 30 "$BK" sp frobnicate > /dev/null
expect "unknown subcommand" 64 "unknown subcommand"
finish
