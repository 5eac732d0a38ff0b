#!/bin/bash
# 05-write-errors-ignored-exit-0: small outputs (under stdio's 4 KiB buffer)
# to a full disk or a closed stdout used to end with status 0. Every command
# must exit 74 with one message naming the output.
. "$(dirname "$0")/lib.sh"
tiny=$DATA/robustness/tiny_block.raw
big=$DATA/blocks/block866342.raw
echo '"1"' > "$T/u64.json"
cmds=(
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
  "chain --help"
)
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
[ -c /dev/full ] || fail "/dev/full was removed"
finish
