#!/bin/bash
# The export at scale (issue 29 item 7; not run by CI; docs/export.md "At
# scale"): a blocks directory of BYTES of distinct transactions from
# scripts/gen-bench-blocks, exported with -j2 under /usr/bin/time, then
# export --verify and --verify --deep. Prints the figures the issue asks
# for: peak RSS, the MB/s of each quarter of the heights (from the commit
# times in the catalogue: chunks of 150 heights are 10 rounds of the
# generator's schedule, the same bytes each), and --verify's time against
# the export's.
#
#   scripts/scale-export.sh [BYTES (default 20G)] [WORK (default /tmp/blockkit-scale)] [FORMAT|lean]
#
# Needs build/blockkit and build/gen-bench-blocks (make build; the
# generator is built with the tests). WORK needs about 2.2 x BYTES free.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
bytes=${1:-20G}
work=${2:-/tmp/blockkit-scale}
mode=${3:-parquet}
bk=$here/build/blockkit
gen=$here/build/gen-bench-blocks
[ -x "$bk" ] && [ -x "$gen" ] || { echo "scale-export: build first (make build; cmake --build build --target gen-bench-blocks)" >&2; exit 64; }
extra=()
if [ "$mode" = lean ]; then extra=(--profile lean); else extra=(--format "$mode"); fi
mkdir -p "$work"
if [ ! -e "$work/blocks/blk00000.dat" ]; then
    t0=$(date +%s.%N)
    "$gen" --bytes "$bytes" "$here/tests/data" "$work/blocks"
    echo "generated in $(echo "$(date +%s.%N) - $t0" | bc) s"
fi
in_bytes=$(cat "$work"/blocks/blk*.dat | wc -c)
rm -rf "$work/out"
t0=$(date +%s.%N)
/usr/bin/time -v "$bk" export --blocksdir "$work/blocks" --out "$work/out" -j 2 --chunk-size 150 --progress never \
    --summary "${extra[@]}" 2> "$work/export.err"
t1=$(date +%s.%N)
grep -E "^blockkit: export: [0-9]+ chunks written" "$work/export.err"
rss=$(sed -n 's/^\tMaximum resident set size (kbytes): //p' "$work/export.err")
secs=$(echo "$t1 - $t0" | bc)
echo "export: $(echo "scale=1; $in_bytes / 1000000" | bc) MB in $secs s = $(echo "scale=1; $in_bytes / 1000000 / $secs" | bc) MB/s, peak RSS $((rss / 1024)) MB"
# MB/s by quarter of the heights: the blocks chunks' commit times (mtime_ns)
node -e '
const fs = require("fs");
const [cat, t0s, total] = process.argv.slice(1);
const t0 = BigInt(Math.round(Number(t0s) * 1e9));
const e = fs.readFileSync(cat, "utf8").trim().split("\n").map(l => JSON.parse(l)).filter(x => x.dataset === "blocks")
  .sort((a, b) => a.first_height - b.first_height);
const n = e.length, q = Math.floor(n / 4);
const commit = x => BigInt(x.mtime_ns);
// from the process start (chain build and start-up in the first quarter),
// and from the commit of the first chunk (the steady state)
for (const [label, start, from] of [["from the start", t0, 0], ["from the first commit", commit(e[0]), 1]]) {
  let prevT = start;
  for (let k = 0; k < 4; k++) {
    const part = e.slice(Math.max(from, k * q), k === 3 ? n : (k + 1) * q);
    const end = part.reduce((m, x) => commit(x) > m ? commit(x) : m, 0n);
    const s = Number(end - prevT) / 1e9, mb = Number(total) / 1e6 * part.length / n;
    console.log(`${label}: quarter ${k + 1}: heights ${part[0].first_height}-${part[part.length - 1].last_height}, ${mb.toFixed(0)} MB in ${s.toFixed(1)} s = ${(mb / s).toFixed(1)} MB/s`);
    prevT = end;
  }
}' "$work/out/_blockkit/chunks.ndjson" "$t0" "$in_bytes"
for deep in "" --deep; do
    v0=$(date +%s.%N)
    "$bk" export --verify $deep --summary --blocksdir "$work/blocks" --out "$work/out" 2>&1 | grep -- "--verify"
    v1=$(date +%s.%N)
    vs=$(echo "$v1 - $v0" | bc)
    echo "verify${deep:+ $deep}: $vs s = $(echo "scale=2; 100 * $vs / $secs" | bc)% of the export's time"
done
echo "output: $(du -sb "$work/out" | cut -f1) bytes"
