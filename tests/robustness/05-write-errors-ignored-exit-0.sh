#!/bin/bash
# 05-write-errors-ignored-exit-0: small outputs (under stdio's 4 KiB buffer)
# to a full disk or a closed stdout used to end with status 0. Every command
# must exit 74 with one message naming the output, with the write's own
# errno. The datadir commands and the --help texts were found later printing
# two messages (a bare "write error" and then main's "Input/output error"),
# and a --help text longer than stdio's buffer lost its errno.
. "$(dirname "$0")/lib.sh"
tiny=$DATA/robustness/tiny_block.raw
big=$DATA/blocks/block866342.raw
echo '"1"' > "$T/u64.json"
dd=${REGTEST:-}/full
rt="--datadir $dd --chain regtest"
txid=$("$BK" block $rt 5 | sed -n 's/.*"tx":\["\([0-9a-f]*\)".*/\1/p')
[ ${#txid} = 64 ] || fail "no txid from block 5: '$txid'"
cmds=(
  "stats $rt --height 5"
  "stats $rt --height 5 --pretty"
  "stats $rt --end 20 -j 2"
  "script 6a00"
  "block $rt 5"
  "block $rt 5 --verbosity 3"
  "header $rt 5"
  "tx $rt $txid"
  "chain --tips $rt"
  "utxo stats $rt"
  "utxo dump $rt"
  "utxo dump $rt --format parquet"
  "sha256 --backends"
  "bench --list"
  "--help"
  "ssz root uint64 --hex 0x0100000000000000"
  "ssz decode uint64 --hex 0x0100000000000000"
  "ssz encode uint64 $T/u64.json"
  "ssz proof Container:Checkpoint --gindex 2 --hex 0x$(printf '00%.0s' $(seq 40))"
  "block $big --header"
  "block $big --header --verbosity 0"
  "block $tiny --height 0"
  "tx 01000000000000000000"
  "sha256 $tiny"
  "merkle $DATA/blocks/block413567.raw"
  "chain --blocksdir $SAMPLE"
  "--version"
)
for c in bench block chain export header merkle scan script sha256 ssz stats tx utxo "utxo stats" "utxo dump"; do
  cmds+=("$c --help")
done
for c in "${cmds[@]}"; do
  run 20 sh -c "\"\$0\" $c > /dev/full" "$BK"
  expect "[$c] > /dev/full" 74 "standard output: write error: No space left on device"
  one_line "[$c] > /dev/full"
  run 20 sh -c "\"\$0\" $c >&-" "$BK"
  expect "[$c] stdout closed" 74 "standard output: write error: Bad file descriptor"
done
# -o FILE: the path is named and no partial file stays behind.
run 20 "$BK" block "$tiny" --height 0 -o /dev/full
expect "block -o /dev/full" 74 "^blockkit: block: /dev/full: write error: No space left on device$"
run 20 "$BK" utxo dump $rt --format parquet -o /dev/full
expect "utxo dump -o /dev/full" 74 "^blockkit: utxo dump: /dev/full: write error: No space left on device$"
# A command that failed for its own reason says so once: stdout closed
# adds no second message.
run 20 sh -c '"$0" script --no-such-option 6a00 >&-' "$BK"
expect "failed command, stdout closed" 64 "^blockkit: script: unknown option --no-such-option \(see --help\)$"
run 20 sh -c '"$0" stats "$1" --undo "$1" --height 1 >&-' "$BK" "$tiny"
expect "failed stats, stdout closed" 65 "^blockkit: stats: undo data of block [0-9a-f]{64} at height 1: "
one_line "failed stats, stdout closed"
[ -c /dev/full ] || fail "/dev/full was removed"
finish
