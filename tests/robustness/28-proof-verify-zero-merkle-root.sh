#!/bin/bash
# 28-proof-verify-zero-merkle-root: a proof whose header has an all-zero
# merkle root and whose tree is invalid gave [] (exit 0). Core's
# ExtractMatches returns zero for an invalid tree, verifytxoutproof compares
# that with the header's root (equal) and looks the block up: "Block not
# found in chain" (-5, exit 66). An invalid tree under a real block's header
# (its root is not zero) is still [] with a note, as Core's is.
. "$(dirname "$0")/lib.sh"
DD=$REGTEST/full
Z=0000000000000000000000000000000000000000000000000000000000000000
HDR=01000000${Z}${Z}dae5494dffff7f2002000000      # version, prev, merkle root = 0, time, bits, nonce
zeros=$(printf '0%.0s' $(seq 1 600))
n=0
for p in "${HDR}00000000""00""00" "${HDR}0f000000""01${Z}""020000" "$zeros"; do
    n=$((n + 1))
    run 20 "$BK" proof verify --datadir "$DD" "$p" > "$T/out"
    expect "zero root, invalid tree $n: Core's -5" 66 "^blockkit: proof verify: Block not found in chain \(error code -5\)$"
    one_line "zero root, invalid tree $n"
    if [ ! -s "$T/out" ]; then pass "zero root $n: nothing on stdout"; else fail "zero root $n: stdout $(cat "$T/out")"; fi
done
# the genesis block's real header (root 4a5e1e...) with an invalid tree (n_tx 0): []
G=$(zstd -dcq "$DATA/indexes/verifytxoutproof.ndjson.zst" | head -1 | sed -E 's/.*"proof":"([0-9a-f]*)".*/\1/')
run 20 "$BK" proof verify --datadir "$DD" "${G:0:160}00000000""00""00" > "$T/out"
expect "real root, invalid tree: []" 0 "^blockkit: proof verify: note: the proof is not valid: the proof's block has no transactions$"
if [ "$(cat "$T/out")" = "[]" ]; then pass "real root, invalid tree: stdout []"; else fail "stdout $(cat "$T/out")"; fi
# the genesis proof itself still verifies
run 20 "$BK" proof verify --datadir "$DD" "$G" > "$T/out"
expect "the genesis proof" 0 ""
if [ "$(cat "$T/out")" = '["4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b"]' ]; then pass "genesis txid"; else fail "stdout $(cat "$T/out")"; fi
finish
