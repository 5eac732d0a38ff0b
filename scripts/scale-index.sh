#!/bin/bash
# The address index at scale (issue 39; not run by CI; docs/index.md "At
# scale"): a blocks directory of BYTES of distinct transactions from
# scripts/gen-bench-blocks (the one scripts/scale-export.sh makes; an
# existing WORK/blocks is reused), indexed with `blockkit index build -jJOBS
# --mem MEM` under /usr/bin/time -v. Prints the figures the issue asks for:
# peak RSS against --mem, the MB/s of each quarter of the heights (from the
# progress lines, timestamped as they arrive; the generator's rounds give
# every height range the same bytes), the index's size against the blocks'.
#
#   scripts/scale-index.sh [BYTES (default 20G)] [WORK (default /tmp/blockkit-scale)] [MEM (default 256)] [JOBS (default 2)]
#
# Needs build/blockkit and build/gen-bench-blocks (make build). WORK needs
# about 1.3 x BYTES free (blocks, index, sorted runs in WORK/tmp).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
bytes=${1:-20G}
work=${2:-/tmp/blockkit-scale}
mem=${3:-256}
jobs=${4:-2}
bk=$here/build/blockkit
gen=$here/build/gen-bench-blocks
[ -x "$bk" ] && [ -x "$gen" ] || { echo "scale-index: build first (make build)" >&2; exit 64; }
mkdir -p "$work"
if [ ! -e "$work/blocks/blk00000.dat" ]; then
    t0=$EPOCHREALTIME
    "$gen" --bytes "$bytes" "$here/tests/data" "$work/blocks"
    echo "generated in $(echo "$EPOCHREALTIME - $t0" | bc) s"
fi
in_bytes=$(cat "$work"/blocks/blk*.dat | wc -c)
rm -rf "$work/ix" "$work/tmp"
mkdir -p "$work/tmp"
# peak anonymous and file-backed RSS (VmRSS counts the pages of the files
# LevelDB maps to read its tables), sampled from /proc every 0.3 s
( ma=0; mf=0; pid=
  while [ -z "$pid" ]; do pid=$(pgrep -n -f -- "--index $work/ix" || true); sleep 0.05; done
  while s=$(cat "/proc/$pid/status" 2>/dev/null); do
      a=$(echo "$s" | awk '/^RssAnon/{print $2}'); f=$(echo "$s" | awk '/^RssFile/{print $2}')
      [ -n "$a" ] && [ "$a" -gt "$ma" ] && ma=$a
      [ -n "$f" ] && [ "$f" -gt "$mf" ] && mf=$f
      sleep 0.3
  done
  echo "$ma $mf" > "$work/index.rss" ) &
sampler=$!
t0=$EPOCHREALTIME
/usr/bin/time -v -o "$work/index.time" "$bk" index build --blocksdir "$work/blocks" --index "$work/ix" \
    -j "$jobs" --mem "$mem" --tmpdir "$work/tmp" --progress always 2>&1 > "$work/index.json" |
    stdbuf -o0 tr '\r' '\n' | while IFS= read -r l; do printf '%s %s\n' "$EPOCHREALTIME" "$l"; done > "$work/index.progress"
t1=$EPOCHREALTIME
wait "$sampler" || true
cat "$work/index.json"
rss=$(sed -n 's/^\tMaximum resident set size (kbytes): //p' "$work/index.time")
secs=$(echo "$t1 - $t0" | bc)
ix_bytes=$(du -sb "$work/ix" | cut -f1)
echo "index build -j$jobs --mem $mem: $(echo "scale=1; $in_bytes / 1000000" | bc) MB in $secs s" \
     "= $(echo "scale=1; $in_bytes / 1000000 / $secs" | bc) MB/s, peak RSS $((rss / 1024)) MB" \
     "(--mem + 256 = $((mem + 256)) MB)"
read -r anon file < "$work/index.rss" || { anon=0; file=0; }
echo "peak RssAnon $((anon / 1024)) MB, peak RssFile $((file / 1024)) MB (sampled every 0.3 s)"
echo "index: $(echo "scale=1; $ix_bytes / 1000000" | bc) MB = $(echo "scale=1; 100 * $ix_bytes / $in_bytes" | bc)% of the blocks"
# MB/s by quarter of the heights, from the timestamped progress lines (a
# block counts when its rows are taken: in memory, or spilled in a sorted
# run), then the time the last commit's merge takes
node -e '
const fs = require("fs");
const [file, t1s, total] = process.argv.slice(1);
const pts = [];
for (const l of fs.readFileSync(file, "utf8").split("\n")) {
  const m = /^([0-9.]+) height (\d+)\s+(\d+)\/(\d+) blocks/.exec(l);
  if (m) pts.push({t: Number(m[1]), done: Number(m[3]), n: Number(m[4])});
}
if (!pts.length) { console.log("no progress lines"); process.exit(1); }
const n = pts[pts.length - 1].n;
// from the first line (the sync begins: the chain is built before it)
let prevT = pts[0].t, prevDone = 0;
for (let k = 1; k <= 4; k++) {
  const want = Math.round(n * k / 4), p = pts.find(x => x.done >= want) || pts[pts.length - 1];
  const mb = Number(total) / 1e6 * (p.done - prevDone) / n, s = p.t - prevT;
  console.log(`quarter ${k}: blocks ${prevDone + 1}-${p.done} of ${n}, ${mb.toFixed(0)} MB in ${s.toFixed(1)} s = ${(mb / s).toFixed(1)} MB/s`);
  prevT = p.t; prevDone = p.done;
}
console.log(`after the last block: ${(Number(t1s) - pts[pts.length - 1].t).toFixed(1)} s (the last commit: the sorted runs merged into LevelDB, the index closed)`);
' "$work/index.progress" "$t1" "$in_bytes"
