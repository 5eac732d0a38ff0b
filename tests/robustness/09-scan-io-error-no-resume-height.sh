#!/bin/bash
# 09-scan-io-error-no-resume-height: a blk file disappears (pruned by the node)
# while scan runs. The scan is held on its output FIFO, the file holding the
# tip is removed, then the output is drained: exit 74, the message names the
# block, the file and the height to resume from, and every line before it is
# whole (heights 0 .. H-1).
. "$(dirname "$0")/lib.sh"
D=$T/blocks; mkdir -p "$D"; cp "$RT"/* "$D"/
"$BK" chain --blocksdir "$D" --chain regtest > "$T/chain" || fail "chain"
# the file of the tip, and the first height stored in it
f=$(tail -n 1 "$T/chain" | grep -o '"file":[0-9]*' | cut -d: -f2)
for l in $(grep -v stale "$T/chain" | grep -v orphan | grep -n "\"file\":$f," | head -n 1 | cut -d: -f1); do H=$((l - 1)); done
name=$(printf 'blk%05d.dat' "$f")
mkfifo "$T/fifo"
"$BK" scan --blocksdir "$D" --chain regtest -j1 --verbosity 1 -o "$T/fifo" 2> "$T/stderr" & pid=$!
exec 3< "$T/fifo"
# the first bytes: the chain is built and the render has begun
dd bs=1000 count=1 <&3 > "$T/out" 2>/dev/null
sleep 0.5
rm "$D/$name"
cat <&3 >> "$T/out"; exec 3<&-
wait $pid; rc=$?; err=$(cat "$T/stderr")
expect "scan with $name removed" 74 "^blockkit: scan: block at height $H \([0-9a-f]{64}\): cannot open .*/$name: No such file or directory; resume with --start $H$"
n=$(wc -l < "$T/out")
[ "$n" = "$H" ] && pass "$n whole lines before height $H" || fail "$n lines, want $H"
last=$(tail -n 1 "$T/out" | grep -o '"height":[0-9]*' | head -n 1 | cut -d: -f2)
[ "$last" = $((H - 1)) ] && pass "last line is height $last" || fail "last line height $last, want $((H - 1))"
[ -z "$(tail -c 1 "$T/out")" ] && pass "ends with a newline" || fail "partial last line"
finish
