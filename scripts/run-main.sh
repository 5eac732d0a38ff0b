#!/bin/sh
# `make run`: the main job on the bundled sample blocks directory
# (data/sample_blocksdir: blk00000.dat, rev00000.dat and an xor.dat key, as
# Bitcoin Core >= 28 writes them). `blockkit scan` renders every block at
# verbosity 3 (Core's getblock with fee and prevout from the undo data) as
# NDJSON in parallel into a temporary file. What is shown is a short
# excerpt of the first block as bitcoin-cli prints it (its header fields,
# its first transaction, the fields after the tx array), then the scan's
# one-line summary and the command that prints the whole block.
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
    --start "$first" --end "$first" > "$tmp/first.json"
ntx=$(grep -c '^    {$' "$tmp/first.json" || true)

echo "First block of the scan (getblock <hash> 3 as bitcoin-cli prints it), abridged:"
# bitcoin-cli's layout: members at 2 spaces, tx objects at 4. Keep the
# header members, the first transaction and the members after the tx array.
awk -v more=$((ntx - 1)) '
    state == 0 { print; if ($0 == "  \"tx\": [") state = 1; next }
    state == 1 { print; if ($0 == "    },") { state = 2; if (more > 0) printf "    ... %d more transactions\n", more } else if ($0 == "    }") state = 3; next }
    state == 2 { if ($0 == "  ],") { print; state = 3 } else if ($0 == "  ]") { print; state = 3 } next }
    state == 3 { print }
' "$tmp/first.json"
echo >&2
echo "($(wc -l < "$tmp/blocks.ndjson" | tr -d ' ') lines of NDJSON, $(wc -c < "$tmp/blocks.ndjson" | tr -d ' ') bytes;" \
     "the whole first block: $bk scan --blocksdir data/sample_blocksdir --orphans --verbosity 3 --pretty --start $first --end $first)" >&2
cat "$tmp/summary" >&2
