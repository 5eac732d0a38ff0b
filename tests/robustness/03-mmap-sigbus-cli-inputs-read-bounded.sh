#!/bin/bash
# 03-mmap-sigbus-when-core-truncates, the commands that take one file: they
# mapped it (a blk file that Core finalizes shrinks under the mapping:
# SIGBUS) and read a stream (standard input, a FIFO, /dev/zero) whole into
# memory, however long. Now they read, with a bound set by what the input
# can be: a block or transaction 16 MiB (4,000,000 bytes as hex), undo data
# 256 MiB, a script 16 MiB, SSZ 8 GiB (4 GiB as hex); more is exit 65 naming
# the input and the bound. `sha256` streams, as sha256sum does: memory stays
# at one 1 MiB buffer.
. "$(dirname "$0")/lib.sh"
blk=$DATA/blocks/block413567.raw
# 1. sha256 of a file that shrinks while it is read: no signal.
truncate -s 4G "$T/big"
"$BK" sha256 "$T/big" > "$T/out" 2> "$T/stderr" & pid=$!
sleep 0.3
raced=0; kill -0 $pid 2>/dev/null && raced=1
truncate -s 1M "$T/big"
wait $pid; rc=$?; err=$(cat "$T/stderr")
expect "sha256 of a file shrinking under it (raced $raced)" 0 ""
grep -Eq "^[0-9a-f]{64}  $T/big$" "$T/out" && pass "one digest line" || fail "output: $(cat "$T/out")"
rm -f "$T/big"
# 2. sha256 of 1.5 GB on standard input within the 1 GiB address-space bound
#    (it read all of it into memory): the digest sha256sum gives.
want=$(head -c 1500000000 /dev/zero | sha256sum | cut -c1-64)
run 60 sh -c 'head -c 1500000000 /dev/zero | "$0" sha256 > "$1"' "$BK" "$T/out"
expect "sha256 of 1.5 GB from a pipe" 0 ""
[ "$(cut -c1-64 "$T/out")" = "$want" ] && pass "digest = sha256sum's" || fail "digest $(cat "$T/out"), want $want"
# 3. endless inputs: refused at the bound, exit 65, one message.
cases=(
  "block /dev/zero|block: /dev/zero: more than 16777216 bytes: a block is at most 4,000,000 bytes"
  "block -|block: standard input: more than 16777216 bytes: a block is at most"
  "block $blk --undo /dev/zero|block: /dev/zero: more than 268435456 bytes: undo data is at most 256 MiB"
  "merkle /dev/zero|merkle: /dev/zero: more than 16777216 bytes: a block is at most"
  "stats /dev/zero --undo /dev/zero|stats: /dev/zero: more than 16777216 bytes: a block is at most"
  "tx --file /dev/zero|tx: /dev/zero: more than 16777216 bytes: a transaction is at most"
  "script -|script: standard input: more than 16777216 bytes: a script is at most"
)
for c in "${cases[@]}"; do
  cmd=${c%%|*}; msg=${c#*|}
  run 30 sh -c "exec \"\$0\" $cmd < /dev/zero > /dev/null" "$BK"
  expect "[$cmd] endless input" 65 "^blockkit: $msg"
  one_line "[$cmd] endless input"
done
# 4. a regular file over the bound is refused by its size, before reading.
truncate -s 20M "$T/z"
run 10 "$BK" block "$T/z"
expect "block of a 20 MiB file" 65 "^blockkit: block: $T/z: 20971520 bytes, more than 16777216: a block is at most"
# 5. inputs under the bounds read as before (a block from standard input and as hex).
"$BK" block "$blk" > "$T/ref.json" || fail "block FILE"
run 20 sh -c 'exec "$0" block - < "$1" > "$2"' "$BK" "$blk" "$T/stdin.json"
expect "block - < FILE" 0 ""
cmp -s "$T/ref.json" "$T/stdin.json" && pass "block - = block FILE" || fail "block - differs"
od -An -v -tx1 "$blk" | tr -d ' \n' > "$T/blk.hex"
run 20 "$BK" block "$T/blk.hex"
expect "block HEXFILE" 0 ""
finish
