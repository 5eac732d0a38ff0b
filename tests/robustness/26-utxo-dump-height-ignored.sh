#!/bin/bash
# 26-utxo-dump-height-ignored: `utxo dump --datadir D --height H` ignored H
# and wrote the tip's set with exit 0. Now it writes the set at H by the
# same rollback as `export --datasets utxos --height H` (the same rows), and
# a height past the tip is Core's message with exit 66, as for its siblings.
. "$(dirname "$0")/lib.sh"
DD=$REGTEST/full
run 60 "$BK" utxo dump --datadir "$DD" --height 5 --format csv -o "$T/d.csv"
expect "dump --height 5" 0 ""
n=$(tail -n +2 "$T/d.csv" | wc -l)
s=$("$BK" utxo stats --datadir "$DD" --height 5 | sed 's/.*"txouts":\([0-9]*\).*/\1/')
[ "$n" = 5 ] && [ "$n" = "$s" ] && pass "dump --height 5: $n rows, utxo stats --height 5 txouts $s" ||
    fail "dump --height 5: $n rows, utxo stats --height 5 txouts $s (want 5)"
"$BK" export --datasets utxos --datadir "$DD" --height 5 --format csv --out "$T/e" --progress never 2>/dev/null
cmp -s <(tail -n +2 "$T/d.csv") <(cat "$T"/e/utxos/*.csv | tail -n +2) && pass "dump --height 5 = export's rows" ||
    fail "dump --height 5 and export --datasets utxos --height 5 differ"
run 60 "$BK" utxo dump --datadir "$DD" --height 300 --format csv -o "$T/d300.csv"
expect "dump --height 300" 0 ""
"$BK" export --datasets utxos --datadir "$DD" --height 300 --format csv --out "$T/e300" --progress never 2>/dev/null
cmp -s <(tail -n +2 "$T/d300.csv") <(cat "$T"/e300/utxos/*.csv | tail -n +2) && pass "dump --height 300 = export's rows" ||
    fail "dump --height 300 and export --datasets utxos --height 300 differ"
run 60 "$BK" utxo dump --datadir "$DD" --height 939 --format csv -o "$T/d939.csv"
expect "dump --height 939 (the tip)" 0 ""
"$BK" utxo dump --datadir "$DD" --format csv -o "$T/dtip.csv" 2>/dev/null
cmp -s "$T/d939.csv" "$T/dtip.csv" && pass "dump --height 939 = dump at the tip" || fail "dump --height 939 differs from the tip's dump"
run 60 "$BK" utxo dump --datadir "$DD" --height 940 --format csv -o "$T/d940.csv"
expect "dump past the tip" 66 "^blockkit: utxo dump: Target block height 940 after current tip 939$"
[ -e "$T/d940.csv" ] && fail "dump past the tip left a file"
finish
