#!/bin/bash
# 22-datadir-table-ctime-changes: every command used to hard-link the live
# LevelDB tables into --tmpdir (when on the node's filesystem) and unlink
# them after, which changes the tables' ctime (and link count) in the
# datadir. A database whose live tables total at most 64 MiB (regtest's: 1.8
# MB) is now copied instead: nothing in the datadir changes, ctime included.
# Larger ones (mainnet's chainstate) are still linked; docs/blockfiles.md
# says so and why.
. "$(dirname "$0")/lib.sh"
D=$T/dd
mkdir -p "$D" "$T/tmp"
zstd -dc "$DATA/regtest/datadir.tar.zst" | tar x -C "$D"
TXID=$(zstd -dc "$DATA/regtest/getrawtransaction_v1.ndjson.zst" | sed -n 5p | sed 's/^{"txid":"\([0-9a-f]*\)".*/\1/')
# every file of the datadir: name, links, mode, size, mtime and ctime in ns
snap() {
    python3 - "$D" <<'PY'
import os, sys
for root, dirs, files in sorted(os.walk(sys.argv[1])):
    for f in sorted(files):
        p = os.path.join(root, f)
        s = os.lstat(p)
        print(p, s.st_nlink, oct(s.st_mode), s.st_size, s.st_mtime_ns, s.st_ctime_ns)
PY
}
snap > "$T/before"
sleep 0.05 # past the ctime clock's granularity
for args in "chain" "utxo stats" "header 100" "tx $TXID" "block 100 --verbosity 0"; do
    # shellcheck disable=SC2086
    run 30 "$BK" $args --datadir "$D" --chain regtest --tmpdir "$T/tmp" > /dev/null
    expect "$args --tmpdir on the datadir's filesystem" 0 ""
done
snap > "$T/after"
if cmp -s "$T/before" "$T/after"; then
    pass "no file of the datadir changed (ctime, link count, mtime, size, mode)"
else
    fail "the datadir changed: $(diff "$T/before" "$T/after" | head -6)"
fi
finish
