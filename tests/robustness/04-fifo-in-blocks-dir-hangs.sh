#!/bin/bash
# 04-fifo-in-blocks-dir-hangs: a FIFO named like a block file (or xor.dat)
# made `chain` and `scan` block forever in open(2). Every open under a blocks
# directory refuses a non-regular file first: exit 74 naming the file, fast.
. "$(dirname "$0")/lib.sh"
for name in blk00000.dat rev00000.dat xor.dat; do
  D=$T/$name; mkdir -p "$D"
  cp "$SAMPLE"/* "$D"/
  rm -f "$D/$name"; mkfifo "$D/$name"
  for cmd in chain scan; do
    run 5 "$BK" $cmd --blocksdir "$D"
    expect "$cmd with a FIFO $name" 74 "$name: not a regular file"
  done
done
# a directory and a character device named blk00000.dat
D=$T/dir; mkdir -p "$D/blk00000.dat"
run 5 "$BK" chain --blocksdir "$D"; expect "chain, blk00000.dat a directory" 74 "blk00000.dat: not a regular file"
D=$T/dev; mkdir -p "$D"; ln -s /dev/zero "$D/blk00000.dat"
run 5 "$BK" scan --blocksdir "$D"; expect "scan, blk00000.dat -> /dev/zero" 74 "blk00000.dat: not a regular file"
finish
