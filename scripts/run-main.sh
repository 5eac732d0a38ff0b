#!/bin/sh
# `make run`: the main job on the bundled sample block.
set -eu
bk=${1:-build/blockkit}
here=$(cd "$(dirname "$0")/.." && pwd)
block="$here/data/block413567.raw"
echo "== blockkit sha256 --double $block"
"$bk" sha256 --double "$block"
echo "== blockkit bench --filter SHA256"
"$bk" bench --filter 'SHA256' --min-time 50
