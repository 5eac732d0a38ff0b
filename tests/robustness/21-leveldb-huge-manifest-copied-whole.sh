#!/bin/bash
# 21-leveldb-huge-manifest-copied-whole: the snapshot used to copy the
# source MANIFEST whole: a 16 GiB sparse one (its 134 bytes of records,
# then zeros) cost 45-62 s and 16 GiB of TMPDIR on every command. Now only
# what LevelDB reads is copied (up to its last 32 KiB block with a non-zero
# byte, holes kept as holes): the same output, fast, with the snapshot's
# files held under a 10 MiB file-size limit. Data past the 256 MiB blockkit
# reads in a MANIFEST is refused as bad data, naming the file.
. "$(dirname "$0")/lib.sh"
D=$T/dd
fresh() { rm -rf "$D"; mkdir -p "$D"; zstd -dc "$DATA/regtest/datadir.tar.zst" | tar x -C "$D"; chmod -R u+w "$D"; }
M=$D/regtest/blocks/index/MANIFEST-000007
mkdir -p "$T/tmp"
fresh
run 30 "$BK" header --datadir "$D" --chain regtest 100 --tmpdir "$T/tmp" > /dev/null
expect "header 100, Core's MANIFEST" 0 ""
"$BK" header --datadir "$D" --chain regtest 100 --tmpdir "$T/tmp" > "$T/want.json" 2>/dev/null

# bash -c "$LIMITED" FSIZE_KIB CMD...: CMD under a file-size limit (SIGXFSZ
# ignored: a write past it fails with EFBIG).
LIMITED='trap "" XFSZ; ulimit -f "$0"; exec "$@"'

truncate -s 16G "$M"
run 20 bash -c "$LIMITED" 10240 "$BK" header --datadir "$D" --chain regtest 100 --tmpdir "$T/tmp" > /dev/null
expect "header 100, a 16 GiB sparse MANIFEST, 10 MiB file-size limit, 20 s" 0 ""
bash -c "$LIMITED" 10240 "$BK" header --datadir "$D" --chain regtest 100 --tmpdir "$T/tmp" > "$T/got.json" 2>/dev/null
if cmp -s "$T/want.json" "$T/got.json"; then pass "same header"; else fail "header differs"; fi
run 20 bash -c "$LIMITED" 10240 "$BK" chain --datadir "$D" --chain regtest --tmpdir "$T/tmp" > /dev/null
expect "chain, a 16 GiB sparse MANIFEST" 0 ""

# Written zeros (not a hole) after the records: scanned, not copied.
fresh
head -c $((8 << 20)) /dev/zero >> "$M"
run 20 bash -c "$LIMITED" 4096 "$BK" header --datadir "$D" --chain regtest 100 --tmpdir "$T/tmp" > /dev/null
expect "header 100, 8 MiB of written zeros after the records, 4 MiB file-size limit" 0 ""

# A non-zero byte 1 GiB in: LevelDB would read that far; blockkit refuses.
fresh
truncate -s 2G "$M"
printf '\001' | dd of="$M" bs=1 seek=$((1 << 30)) conv=notrunc status=none
run 20 bash -c "$LIMITED" 10240 "$BK" header --datadir "$D" --chain regtest 100 --tmpdir "$T/tmp" > /dev/null
expect "header 100, a MANIFEST with data 1 GiB in" 65 \
    "^blockkit: header: invalid data: $M: records to byte 1073774592, more than the 256 MiB blockkit reads in a MANIFEST"
left=$(find "$T/tmp" -mindepth 1 | wc -l)
if [ "$left" = 0 ]; then pass "nothing left in --tmpdir"; else fail "$left files left in --tmpdir"; fi
finish
