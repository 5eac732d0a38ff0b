#!/bin/bash
# 19-leveldb-corruption-exit-74-no-path: corruption in a LevelDB table of
# blocks/index, chainstate or indexes/txindex used to be exit 74 "i/o error:
# LevelDB read failed: Corruption: ..." without the database, or with a path
# inside the private snapshot (deleted before the message is read). Now bad
# data (65), naming the node's database and file; a real I/O failure is
# still 74 and names the node's path.
. "$(dirname "$0")/lib.sh"
D=$T/dd
fresh() { rm -rf "$D"; mkdir -p "$D"; zstd -dc "$DATA/regtest/datadir.tar.zst" | tar x -C "$D"; chmod -R u+w "$D"; }
# flip BYTE_STEP FILE: xor 0x5a into one byte (STEP 0: the middle one; else every STEP-th of the first 90%)
flip() {
    python3 - "$1" "$2" <<'PY'
import sys
step, p = int(sys.argv[1]), sys.argv[2]
b = bytearray(open(p, 'rb').read())
for i in ([len(b) // 2] if step == 0 else range(0, len(b) * 9 // 10, step)):
    b[i] ^= 0x5a
open(p, 'wb').write(b)
PY
}
TXID=$(zstd -dc "$DATA/regtest/getrawtransaction_v1.ndjson.zst" | sed -n 5p | sed 's/^{"txid":"\([0-9a-f]*\)".*/\1/')

fresh; flip 0 "$D/regtest/blocks/index/000005.ldb"
run 30 "$BK" chain --datadir "$D" --chain regtest
expect "chain, a flipped byte in blocks/index/000005.ldb" 65 \
    "^blockkit: chain: invalid data: $D/regtest/blocks/index: LevelDB: Corruption: block checksum mismatch"
one_line "chain, index corruption"

fresh; flip 0 "$D/regtest/chainstate/000019.ldb"
run 30 "$BK" utxo stats --datadir "$D" --chain regtest
expect "utxo stats, a flipped byte in chainstate/000019.ldb" 65 \
    "^blockkit: utxo stats: invalid data: $D/regtest/chainstate: LevelDB: Corruption: "

fresh; flip 4096 "$D/regtest/indexes/txindex/000005.ldb"
run 30 "$BK" tx --datadir "$D" --chain regtest "$TXID"
expect "tx, corrupt blocks in indexes/txindex/000005.ldb" 65 \
    "^blockkit: tx: invalid data: $D/regtest/indexes/txindex: LevelDB: Corruption: block checksum mismatch"

# A truncated table: named in the node's directory, never the snapshot's.
fresh; truncate -s 1000 "$D/regtest/chainstate/000019.ldb"
run 30 "$BK" utxo stats --datadir "$D" --chain regtest
expect "utxo stats, chainstate/000019.ldb cut to 1000 bytes" 65 \
    "^blockkit: utxo stats: invalid data: $D/regtest/chainstate/000019.ldb is 1000 bytes, MANIFEST-000017 lists it as 1400537 \(truncated or damaged\)"
fresh; truncate -s 100000 "$D/regtest/blocks/index/000005.ldb"
run 30 "$BK" chain --datadir "$D" --chain regtest
expect "chain, blocks/index/000005.ldb cut to 100000 bytes" 65 \
    "$D/regtest/blocks/index/000005.ldb is 100000 bytes, MANIFEST-000007 lists it as 139257"
if printf '%s' "$err" | grep -q blockkit-ldb-; then fail "a snapshot path in the message: $err"; else pass "no snapshot path"; fi

# Not bad data: a failure to read or to make the snapshot stays 74 and
# names the path (running as root, EACCES cannot be made; a symbolic link
# in place of a table is refused by the O_NOFOLLOW open: ELOOP).
fresh; mv "$D/regtest/blocks/index/000005.ldb" "$D/regtest/blocks/index/real.ldb"
ln -s real.ldb "$D/regtest/blocks/index/000005.ldb"
run 30 "$BK" chain --datadir "$D" --chain regtest
expect "chain, a symbolic link in place of a table" 74 \
    "^blockkit: chain: i/o error: cannot open $D/regtest/blocks/index/000005.ldb: Too many levels of symbolic links$"
fresh; : > "$T/notadir"
run 30 "$BK" utxo stats --datadir "$D" --chain regtest --tmpdir "$T/notadir"
expect "utxo stats, --tmpdir a regular file" 74 "cannot make a snapshot directory under $T/notadir: Not a directory"
finish
