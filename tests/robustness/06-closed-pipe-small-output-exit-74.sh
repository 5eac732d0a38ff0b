#!/bin/bash
# 06-closed-pipe-small-output-exit-74: the reader of the pipe is gone before
# blockkit writes (EPIPE from the final flush, or from poll on a pipe without
# readers). Every command ends quietly with status 0.
. "$(dirname "$0")/lib.sh"
cmds=(
  "tx 01000000000000000000"
  "merkle $DATA/blocks/block413567.raw"
  "chain --blocksdir $SAMPLE"
  "sha256 $DATA/blocks/block413567.raw"
  "block $DATA/blocks/block866342.raw"
  "block $DATA/robustness/tiny_block.raw --height 0"
  "block $DATA/blocks/block866342.raw --header"
  "scan --blocksdir $SAMPLE --orphans --verbosity 1"
  "scan --blocksdir $RT --chain regtest --end 2"
  "ssz root uint64 --hex 0x0100000000000000"
  "ssz decode uint64 --hex 0x0100000000000000"
  "ssz proof Container:Checkpoint --gindex 2 --hex 0x$(printf '00%.0s' $(seq 40))"
  "--version"
  "--help"
  "scan --help"
  "bench --list"
)
for c in "${cmds[@]}"; do
  # The reader exits at once; blockkit starts after it is gone.
  run 30 bash -c "{ sleep 0.3; \"\$0\" $c; echo \$? > \"\$1/st\"; } | true" "$BK" "$T"
  st=$(cat "$T/st" 2>/dev/null)
  rc=$st
  expect "[$c] | true" 0 ""
done
finish
