#!/bin/bash
# 33-snapshot-cli-inconsistencies: `utxo snapshot --help` offered
# `-o FILE|-` but refused `-`; a height past the tip was exit 64 in its own
# words where `utxo stats` and `export` give Core's message and 66. Now the
# help says FILE, and all three answer the same words with 66.
. "$(dirname "$0")/lib.sh"
DD=$REGTEST/full
"$BK" utxo snapshot --help > "$T/help"
grep -q -- '-o, --output FILE ' "$T/help" && ! grep -q -- '--output FILE|-' "$T/help" && pass "help: -o FILE" ||
    fail "help: $(grep -- --output "$T/help")"
run 20 "$BK" utxo snapshot --datadir "$DD" -o -
expect "-o -" 64 "needs --datadir DIR and -o FILE \(a file name\)"
for c in "utxo snapshot -o $T/s.dat" "utxo stats" "export --datasets utxos --out $T/o"; do
    run 60 $BK $c --datadir "$DD" --height 940
    expect "past the tip: $c" 66 "^blockkit: [a-z ]+: Target block height 940 after current tip 939$"
    one_line "past the tip: $c"
done
[ -e "$T/s.dat" ] && fail "snapshot past the tip left a file"
finish
