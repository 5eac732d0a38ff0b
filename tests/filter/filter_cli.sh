#!/bin/bash
# blockkit filter / filter match (issue 28 item 1) end to end against Core's
# getblockfilter answers for the regtest datadir
# (tests/data/indexes/getblockfilter*.ndjson.zst: Core's bytes are the last
# member of each line). test_blockfilter checks the library on the same
# answers; this checks the command: lines, order, workers, errors, exits.
. "$(dirname "$0")/../robustness/lib.sh"
DD=$REGTEST/full
zstd -dcq "$DATA/indexes/getblockfilter.ndjson.zst" | sed -E 's/.*"core"://; s/}$//' > "$T/core.txt"
zstd -dcq "$DATA/indexes/getblockfilter_offchain.ndjson.zst" > "$T/offchain.ndjson"

# every height, in order, with one worker and with two
for j in 1 2; do
    run 120 "$BK" filter --datadir "$DD" --start 0 -j$j > "$T/all.txt"
    if [ $rc = 0 ] && cmp -s "$T/all.txt" "$T/core.txt"; then pass "filter --start 0 -j$j: all 940 answers equal Core's"
    else fail "filter --start 0 -j$j: rc $rc, $(cmp "$T/all.txt" "$T/core.txt" 2>&1) $err"; fi
done
# a range inside the chain (--end -N as everywhere): the headers still chain from the genesis
run 60 "$BK" filter --datadir "$DD" --start 517 --end -400 > "$T/part.txt"
if [ $rc = 0 ] && cmp -s "$T/part.txt" <(sed -n 518,540p "$T/core.txt"); then pass "filter --start 517 --end -400"
else fail "filter range 517..539: rc $rc $err"; fi
# blocks named by height and by hash, any order, repeated: one line each, in argument order
h5=$(zstd -dcq "$DATA/indexes/getblockfilter.ndjson.zst" | sed -n 6p | sed -E 's/.*"hash":"([0-9a-f]*)".*/\1/')
run 60 "$BK" filter --datadir "$DD" 939 "$h5" 0 939 > "$T/args.txt"
if [ $rc = 0 ] && cmp -s "$T/args.txt" <(for n in 940 6 1 940; do sed -n ${n}p "$T/core.txt"; done); then pass "filter HEIGHT HASH ...: argument order"
else fail "filter HEIGHT HASH ...: rc $rc $err"; fi
run 60 "$BK" filter --datadir "$DD" --pretty 5 > "$T/pretty.txt"
if [ $rc = 0 ] && [ "$(head -c 14 "$T/pretty.txt")" = '{
  "filter": ' ]; then pass "filter --pretty: bitcoin-cli's form"; else fail "filter --pretty: rc $rc"; fi

# off the active chain: Core's -5 for every block it never connected, byte for
# byte; a filter for the connected (valid-fork) ones (docs/filters.md)
nc=0; vf=0
while IFS= read -r line; do
    h=$(sed -E 's/.*"hash":"([0-9a-f]*)".*/\1/' <<< "$line")
    case $line in
    *'"status":"valid-fork"'*)
        run 60 "$BK" filter --datadir "$DD" "$h" > "$T/o"
        if [ $rc = 0 ] && grep -Eq '^\{"filter":"[0-9a-f]+","header":"[0-9a-f]{64}"\}$' "$T/o"; then vf=$((vf + 1))
        else fail "valid-fork $h: rc $rc $err"; fi ;;
    *)
        msg=$(sed -E 's/.*"message":"([^"]*)".*/\1/' <<< "$line")
        code=$(sed -E 's/.*"code":(-?[0-9]+).*/\1/' <<< "$line")
        run 60 "$BK" filter --datadir "$DD" "$h" > "$T/o"
        if [ $rc = 66 ] && [ "$err" = "blockkit: filter: $msg (error code $code)" ] && [ ! -s "$T/o" ]; then nc=$((nc + 1))
        else fail "off-chain $h: rc $rc $err"; fi ;;
    esac
done < "$T/offchain.ndjson"
if [ $nc = 7 ] && [ $vf = 32 ]; then pass "off-chain: 7 of Core's refusals byte for byte, 32 connected blocks with filters"
else fail "off-chain: $nc refusals, $vf filters"; fi

# errors: Core's messages and the README's exit statuses
run 30 "$BK" filter --datadir "$DD" 0000000000000000000000000000000000000000000000000000000000000001 > /dev/null
expect "unknown block" 66 "^blockkit: filter: Block not found \(error code -5\)$"
run 30 "$BK" filter --datadir "$DD" 12ab > /dev/null
expect "bad hash" 64 "blockhash must be of length 64"
run 30 "$BK" filter --datadir "$DD" 940 > /dev/null
expect "height past the tip" 64 "Block height out of range"
run 30 "$BK" filter --datadir "$DD" --start 941 > /dev/null
expect "empty range" 66 "no block in heights 941"
run 30 "$BK" filter --datadir "$DD" --start 3 7 > /dev/null
expect "blocks and a range" 64 "not both"
run 30 "$BK" filter --datadir "$DD" > /dev/null
expect "nothing asked" 64 "give a block"
run 30 "$BK" filter --datadir "$T/none" 0 > /dev/null
expect "missing datadir" 66 "no such directory"
# a pruned node has no headers: said, not a wrong answer
run 30 "$BK" filter --datadir "$REGTEST/pruned" --start 0 > "$T/o"
expect "pruned node: no headers" 66 "pruned the blocks below height"
kept=$(sed -nE 's/.*below height ([0-9]+).*/\1/p' <<< "$err")
[ -s "$T/o" ] && fail "pruned: output written" || pass "pruned: nothing written"

# filter match: the heights whose filter matches, against where each script
# really is (as an output, or as a spent coin: scan --verbosity 3's prevouts)
"$BK" scan --datadir "$DD" --verbosity 3 2>/dev/null > "$T/scan.ndjson"
grep -o '"scriptPubKey":{[^{}]*"hex":"[0-9a-f]*"' "$T/scan.ndjson" | sed -E 's/.*"hex":"([0-9a-f]*)"$/\1/' |
    awk 'length($0) > 0 && length($0) < 200 && substr($0,1,2) != "6a"' | sort | uniq -c | sort -k1,1n -k2 |
    awk 'NR % 40 == 1 {print $2}' | head -25 > "$T/scripts"
checked=0
while IFS= read -r s; do
    grep -F "\"hex\":\"$s\"" "$T/scan.ndjson" | sed -E 's/^\{"hash":"([0-9a-f]*)","confirmations":[0-9]*,"height":([0-9]*),.*/{"height":\2,"hash":"\1"}/' > "$T/want"
    run 60 "$BK" filter match --datadir "$DD" --script "$s" -j2 > "$T/got"
    if [ $rc = 0 ] && cmp -s "$T/got" "$T/want"; then checked=$((checked + 1)); else fail "match $s: rc $rc, $(wc -l < "$T/got") vs $(wc -l < "$T/want") blocks $err"; fi
done < "$T/scripts"
if [ $checked -ge 15 ]; then pass "filter match: $checked scripts, the blocks that hold them exactly"; else fail "filter match: $checked scripts checked"; fi
# several scripts: the union; a range limits it
s1=$(sed -n 1p "$T/scripts"); s2=$(sed -n 5p "$T/scripts")
grep -F -e "\"hex\":\"$s1\"" -e "\"hex\":\"$s2\"" "$T/scan.ndjson" | sed -E 's/^\{"hash":"([0-9a-f]*)","confirmations":[0-9]*,"height":([0-9]*),.*/{"height":\2,"hash":"\1"}/' > "$T/want"
run 60 "$BK" filter match --datadir "$DD" --script "$s1" --script="$s2" > "$T/got"
if [ $rc = 0 ] && cmp -s "$T/got" "$T/want"; then pass "filter match: two scripts, the union"; else fail "match union: rc $rc $err"; fi
run 60 "$BK" filter match --datadir "$DD" --script 0014df888ed2631b542be56a7cf7ecf1138849ee7100 > "$T/got"
expect "filter match: no block matches" 1 "no block of heights 0\.\.939 matches"
run 30 "$BK" filter match --datadir "$DD" --script 0g > /dev/null
expect "filter match: bad hex" 64 "bad value for --script"
run 30 "$BK" filter match --datadir "$DD" > /dev/null
expect "filter match: no script" 64 "give a --script"
# the pruned node: match reads the heights it keeps, with the full node's answers there
tail_s=$(grep -o '"scriptPubKey":{[^{}]*"hex":"[0-9a-f]*"' <(tail -n 30 "$T/scan.ndjson") | sed -E 's/.*"hex":"([0-9a-f]*)"$/\1/' | awk 'length($0) > 0 && substr($0,1,2) != "6a"' | head -1)
run 60 "$BK" filter match --datadir "$REGTEST/pruned" --script "$tail_s" > "$T/got"
"$BK" filter match --datadir "$DD" --start "${kept:-0}" --script "$tail_s" > "$T/want" 2>/dev/null
if [ $rc = 0 ] && [ -n "$kept" ] && [ "$kept" -gt 0 ] && [ -s "$T/got" ] && cmp -s "$T/got" "$T/want"; then
    pass "filter match on the pruned node: the full node's answers from height $kept"
else fail "filter match pruned: rc $rc kept '$kept' $err"; fi
finish
