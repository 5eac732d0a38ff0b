#!/bin/bash
# 29-rollback-error-uninitialised-height: a damaged undo record above the
# rollback height was reported with the height of an uninitialised stack
# variable ("undo of block at height 5551388653203372288"); a missing rev
# file (the index says the undo is there) as "pruned"; a truncated rev file
# with a message cut off at the error buffer's size. Now each names height
# 495 (whose undo is in rev00050.dat), the missing file, and the whole
# message.
. "$(dirname "$0")/lib.sh"
mk() { rm -rf "$T/dd"; mkdir -p "$T/dd"; cp -a "$REGTEST/full/regtest" "$T/dd/"; chmod -R u+w "$T/dd"; }
R=$T/dd/regtest/blocks/rev00050.dat
mk
python3 -c "import sys;p=sys.argv[1];b=bytearray(open(p,'rb').read());b[len(b)//2]^=1;open(p,'wb').write(b)" "$R"
for c in "utxo snapshot --height 100 -o $T/s.dat" "utxo stats --hash-type hash_serialized_3 --height 300" \
         "export --datasets utxos --height 100 --out $T/e --progress never"; do
    run 60 $BK $c --datadir "$T/dd"
    expect "flipped undo byte: $c" 65 "undo of block at height 495 \([0-9a-f]{64}\): .*checksum.* \(rev00050\.dat offset [0-9]+\)"
    one_line "flipped undo byte: $c"
done
mk; rm "$R"
run 60 "$BK" utxo snapshot --height 100 -o "$T/s.dat" --datadir "$T/dd"
expect "rev file missing" 66 "block at height 495: its undo data's rev00050\.dat is not in .*/blocks: cannot roll back$"
mk; truncate -s 100 "$R"
run 60 "$BK" utxo snapshot --height 100 -o "$T/s.dat" --datadir "$T/dd"
expect "rev file truncated" 65 "undo position 8 in rev00050\.dat: its record of [0-9]+ bytes and checksum runs past the end of the file \(100 bytes\)"
one_line "rev file truncated"
[ -e "$T/s.dat" ] && fail "a snapshot file was left after the failures"
finish
