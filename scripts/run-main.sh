#!/bin/sh
# `make run`: the main job on the bundled sample blocks directory
# (data/sample_blocksdir: blk00000.dat, rev00000.dat and an xor.dat key, as
# Bitcoin Core >= 28 writes them). `blockkit scan` renders every block at
# verbosity 3 (Core's getblock with fee and prevout from the undo data) as
# NDJSON in parallel into a temporary file. What is shown: the header
# fields of the first block as bitcoin-cli prints them, then one summary
# line: what was scanned, and that block 277647, rendered as a v28 node
# renders it, equals Bitcoin Core's own getblock 3 answer byte for byte
# (tests/data/core_json/blocks, made by Core itself). Three blocks are too
# few to time: the summary points to `blockkit bench` for speed.
#
# The sample's three blocks (277647, 367891, 866342) have no ancestors in
# the files, so --orphans places them by their BIP34 coinbase height.
set -eu
bk=${1:-build/blockkit}
here=$(cd "$(dirname "$0")/.." && pwd)
dir="$here/data/sample_blocksdir"
core="$here/tests/data/core_json/blocks/block277647.v3.undo.json.zst"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/blockkit-run-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
scan() { "$bk" scan --blocksdir "$dir" --orphans --verbosity 3 --progress never "$@"; }

scan --summary -o "$tmp/blocks.ndjson" 2> "$tmp/summary" || { cat "$tmp/summary" >&2; exit 1; }
first=$(head -n 1 "$tmp/blocks.ndjson" | grep -o '"height":[0-9]*' | head -n 1 | cut -d: -f2)
scan --pretty --start "$first" --end "$first" > "$tmp/first.json"
ntx=$(grep -c '^    {$' "$tmp/first.json" || true)

echo "The first block of the scan (getblock <hash> 3 as bitcoin-cli prints it), abridged:"
# bitcoin-cli's layout: members at 2 spaces, tx objects at 4. Keep the
# header members, then one line for the tx array.
awk -v ntx="$ntx" -v first="$first" '
    { print }
    $0 == "  \"tx\": [" {
        printf "    ... %d transactions (all of them: blockkit scan --blocksdir data/sample_blocksdir --orphans --verbosity 3 --pretty --start %s --end %s)\n", ntx, first, first
        print "  ]"; print "}"; exit
    }
' "$tmp/first.json"

# Block 277647 as Core v28 renders it against Core's own answer.
scan --core-compat 28 --start 277647 --end 277647 > "$tmp/v28.ndjson"
if zstd -dc "$core" | cmp -s - "$tmp/v28.ndjson"; then
    core_says="block 277647 equals Bitcoin Core's own getblock 3 answer byte for byte"
else
    echo "make run: block 277647 differs from Bitcoin Core's getblock 3 answer ($core)" >&2
    exit 1
fi
what=$(sed -n 's/^blockkit: scan: \(.* BTC\), .*/\1/p' "$tmp/summary")
[ -n "$what" ] || { cat "$tmp/summary" >&2; exit 1; }
mb=$(wc -c < "$tmp/blocks.ndjson" | awk '{ printf "%.1f", $1 / 1e6 }')
echo >&2
echo "make run: ok: scanned $what at verbosity 3 into $mb MB of NDJSON;" \
     "$core_says. For speed: blockkit bench --filter '^Scan/'" >&2
