#!/bin/bash
# blockkit proof / proof verify (issue 28 item 4) end to end against Core's
# gettxoutproof / verifytxoutproof answers for the regtest datadir
# (tests/data/indexes/*.ndjson.zst, one JSON object per line; the C test
# test_merkle_proof checks every line through the library, this checks the
# command: bare hex, compact JSON, errors and exit statuses).
. "$(dirname "$0")/../robustness/lib.sh"
DD=$REGTEST/full
zstd -dcq "$DATA/indexes/gettxoutproof.ndjson.zst" > "$T/proofs.ndjson"
zstd -dcq "$DATA/indexes/verifytxoutproof.ndjson.zst" > "$T/verify.ndjson"

# field NAME LINE: one string field (or the txids array joined by spaces)
field() { sed -E "s/.*\"$1\":\"([0-9a-f]*)\".*/\1/" <<< "$2"; }
txids() { sed -E 's/.*"txids":\[([^]]*)\].*/\1/; s/[",]/ /g' <<< "$1"; }

# A sample of answers: one-txid and several-txid requests, every 97th line,
# asked with and without --block (without: found through the txindex).
n=0
while IFS= read -r line; do
    n=$((n + 1))
    case $line in *'"height":0,'*) continue ;; esac
    [ $((n % 97)) = 5 ] || continue
    want=$(field core "$line"); hash=$(field blockhash "$line")
    # shellcheck disable=SC2046
    run 30 "$BK" proof --datadir "$DD" $(txids "$line") > "$T/out"
    if [ $rc != 0 ] || [ "$(cat "$T/out")" != "$want" ]; then fail "proof line $n (txindex): rc $rc $err"; continue; fi
    # shellcheck disable=SC2046
    run 30 "$BK" proof --datadir "$DD" --block "$hash" $(txids "$line") > "$T/out"
    if [ $rc != 0 ] || [ "$(cat "$T/out")" != "$want" ]; then fail "proof line $n (--block): rc $rc $err"; continue; fi
    checked=$((${checked:-0} + 1))
done < "$T/proofs.ndjson"
if [ "${checked:-0}" -ge 60 ]; then pass "proof: $checked answers equal Core's, with and without --block"; else fail "proof: only ${checked:-0} answers checked"; fi

# A request of several txids equals Core's answer (the lines with a comma in txids).
multi=$(grep -m1 '"txids":\["[0-9a-f]*","' "$T/proofs.ndjson")
# shellcheck disable=SC2046
run 30 "$BK" proof --datadir "$DD" $(txids "$multi") > "$T/out"
if [ $rc = 0 ] && [ "$(cat "$T/out")" = "$(field core "$multi")" ]; then pass "proof of several txids"; else fail "proof of several txids: rc $rc $err"; fi

# verify: Core's result, compact, for proofs read from the arguments and from stdin
vline=$(sed -n 300p "$T/verify.ndjson")
vproof=$(field proof "$vline")
want=$(sed -E 's/.*"core":(\[[^]]*\]).*/\1/' <<< "$vline")
run 30 "$BK" proof verify --datadir "$DD" "$vproof" > "$T/out"
if [ $rc = 0 ] && [ "$(cat "$T/out")" = "$want" ]; then pass "proof verify: Core's result"; else fail "proof verify: rc $rc got $(cat "$T/out") want $want $err"; fi
printf '%s\n' "$vproof" | { run 30 "$BK" proof verify --datadir "$DD" - > "$T/out"; echo $rc > "$T/rc"; }
if [ "$(cat "$T/rc")" = 0 ] && [ "$(cat "$T/out")" = "$want" ]; then pass "proof verify -: reads stdin"; else fail "proof verify -: rc $(cat "$T/rc")"; fi

# a proof made by `proof` verifies back to the txids asked for, in block order
# shellcheck disable=SC2046
"$BK" proof --datadir "$DD" $(txids "$multi") > "$T/p" 2>/dev/null
run 30 "$BK" proof verify --datadir "$DD" "$(cat "$T/p")" > "$T/out"
got=$(tr -d '[]"' < "$T/out" | tr ',' ' ')
if [ $rc = 0 ] && [ "$(echo $got | tr ' ' '\n' | sort)" = "$(txids "$multi" | tr ' ' '\n' | grep . | sort)" ]; then
    pass "proof then verify: the same txids"; else fail "proof then verify: rc $rc got $got"; fi

# ---- errors: Core's messages, the README's exit statuses ----
other=$(sed -n 800p "$T/proofs.ndjson")
a=$(txids "$multi" | awk '{print $1}'); b=$(txids "$other" | awk '{print $1}')
run 30 "$BK" proof --datadir "$DD" "$a" "$b" > "$T/out"
expect "txids of two blocks refused" 66 "Not all transactions found in specified or retrieved block"
[ -s "$T/out" ] && fail "refused request printed output" || pass "refused request prints nothing"
run 30 "$BK" proof --datadir "$DD" --block "$(field blockhash "$other")" "$a" > /dev/null
expect "txid not in the --block given" 66 "Not all transactions found in specified or retrieved block"
run 30 "$BK" proof --datadir "$DD" 00000000000000000000000000000000000000000000000000000000000000ff > /dev/null
expect "unknown txid" 66 "Transaction not yet in block \(error code -5\)"
run 30 "$BK" proof --datadir "$DD" zz > /dev/null
expect "malformed txid" 64 "txid must be of length 64"
run 30 "$BK" proof --datadir "$DD" "$a" "$a" > /dev/null
expect "duplicate txid" 64 "Invalid parameter, duplicated txid"
run 30 "$BK" proof --datadir "$DD" > /dev/null
expect "no txid" 64 "."
run 30 "$BK" proof --datadir "$T/none" "$a" > /dev/null
expect "missing datadir" 66 "no such directory"
run 30 "$BK" proof verify --datadir "$DD" "${vproof:0:100}" > /dev/null
expect "truncated proof names the byte" 65 "at byte [0-9]+$"
# bytes after the tree: Core's verifytxoutproof reads the CMerkleBlock and
# ignores the rest; so does blockkit (include/blockkit/merkle.h)
run 30 "$BK" proof verify --datadir "$DD" "${vproof}00" > "$T/out"
if [ $rc = 0 ] && [ "$(cat "$T/out")" = "$want" ]; then pass "trailing bytes ignored as Core does"; else fail "trailing bytes: rc $rc $err"; fi
run 30 "$BK" proof verify --datadir "$DD" "${vproof:0:7}x${vproof:8}" > /dev/null
expect "bad hex refused as Core's -8" 64 "proof must be hexadecimal string"
# a proof of a block the node does not have: Core's -5
forged=$(printf '%s' "$vproof" | sed -E 's/^(.{8})(.)/\1f/')
[ "$forged" = "$vproof" ] && forged=$(printf '%s' "$vproof" | sed -E 's/^(.{8})(.)/\10/')
run 30 "$BK" proof verify --datadir "$DD" "$forged" > /dev/null
expect "proof of an unknown block" 66 "Block not found in chain"
finish
