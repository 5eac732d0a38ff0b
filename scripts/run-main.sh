#!/bin/sh
# `make run`: the main job on the bundled sample blocks directory
# (data/sample_blocksdir: blk00000.dat, rev00000.dat and an xor.dat key, as
# Bitcoin Core >= 28 writes them). `blockkit scan` renders every block at
# verbosity 3 (Core's getblock with fee and prevout from the undo data) as
# NDJSON in parallel; the first block is then printed pretty, as bitcoin-cli
# prints it, followed by the scan's one-line summary.
#
# The sample's three blocks (277647, 367891, 866342) have no ancestors in
# the files, so --orphans places them by their BIP34 coinbase height.
set -eu
bk=${1:-build/blockkit}
here=$(cd "$(dirname "$0")/.." && pwd)
dir="$here/data/sample_blocksdir"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/blockkit-run-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

"$bk" scan --blocksdir "$dir" --orphans --verbosity 3 --progress never --summary \
    -o "$tmp/blocks.ndjson" 2> "$tmp/summary"
first=$(head -n 1 "$tmp/blocks.ndjson" | grep -o '"height":[0-9]*' | head -n 1 | cut -d: -f2)
"$bk" scan --blocksdir "$dir" --orphans --verbosity 3 --progress never --pretty \
    --start "$first" --end "$first"
echo "($(wc -l < "$tmp/blocks.ndjson" | tr -d ' ') lines of NDJSON, $(wc -c < "$tmp/blocks.ndjson" | tr -d ' ') bytes; the first shown above)" >&2
cat "$tmp/summary" >&2
