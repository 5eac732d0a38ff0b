#!/bin/sh
# `make run`: the main job on the bundled sample block: Bitcoin Core's
# getblock verbosity 3 (with fee and prevout from the undo data) for block
# 866342, pretty-printed as bitcoin-cli prints it, and a one-line summary.
set -eu
bk=${1:-build/blockkit}
here=$(cd "$(dirname "$0")/.." && pwd)
"$bk" block "$here/data/block866342.raw" --undo "$here/data/block866342_undo.raw" \
    --verbosity 3 --pretty --summary
