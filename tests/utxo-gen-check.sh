#!/bin/sh
# gen-utxo's chainstate and snapshot hold the same coins: every statistic
# (all three hash types) and every dump row agree between the two readers.
set -eu
gen=$1 bk=$2
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
"$gen" "$d/g" 20000 >/dev/null
for t in hash_serialized_3 muhash none; do
  a=$("$bk" utxo stats --datadir "$d/g" --height 880000 --hash-type $t --tmpdir "$d" | sed 's/,"disk_size".*//')
  b=$("$bk" utxo stats --utxo-snapshot "$d/g/utxo_snapshot.dat" --height 880000 --hash-type $t | sed 's/,"disk_size".*//')
  [ "$a" = "$b" ] || { echo "stats $t differ:"; echo "$a"; echo "$b"; exit 1; }
  case "$a" in *'"txouts":20000,'*) ;; *) echo "not 20000 coins: $a"; exit 1;; esac
done
"$bk" utxo dump --datadir "$d/g" --height 880000 --format ndjson --tmpdir "$d" > "$d/a"
"$bk" utxo dump --utxo-snapshot "$d/g/utxo_snapshot.dat" --format ndjson > "$d/b"
cmp "$d/a" "$d/b"
[ "$(wc -l < "$d/a")" = 20000 ]

# utxo dump renders on worker threads and must keep the order: the same
# bytes with 1 and 3 threads, also for a set of exactly 16 batches.
"$bk" utxo dump --utxo-snapshot "$d/g/utxo_snapshot.dat" -j 3 --format ndjson | cmp - "$d/b"
"$gen" "$d/h" 16384 >/dev/null
a=$("$bk" utxo dump --utxo-snapshot "$d/h/utxo_snapshot.dat" -j 1 | cksum)
for t in 2 3 4; do
  b=$("$bk" utxo dump --utxo-snapshot "$d/h/utxo_snapshot.dat" -j $t | cksum)
  [ "$a" = "$b" ] || { echo "dump with $t threads differs"; exit 1; }
done
echo ok-threads

# export --datasets utxos: the chainstate with -j3 (two chunk writers) and
# the snapshot with one give the same files, byte for byte.
"$bk" export --datasets utxos --utxo-snapshot "$d/g/utxo_snapshot.dat" --out "$d/x1" --chunk-rows 3000 -j1
"$bk" export --datasets utxos --datadir "$d/g" --height 880000 --out "$d/x3" --chunk-rows 3000 -j3 --tmpdir "$d"
[ "$(ls "$d/x1/utxos" | wc -l)" = 7 ] || { echo "not 7 chunk files:"; ls "$d/x1/utxos"; exit 1; }
[ "$(ls "$d/x1/utxos")" = "$(ls "$d/x3/utxos")" ] || { echo "chunk names differ"; exit 1; }
[ -f "$d/x1/utxos/utxos_00018000_00019999.parquet" ] || { echo "no last chunk"; exit 1; }
for f in "$d/x1/utxos/"*; do cmp "$f" "$d/x3/utxos/${f##*/}"; done
echo ok-export

# A rerun with other chunk rows leaves exactly its own set: the earlier
# chunks of that format go, files of other names or formats stay.
: > "$d/x1/utxos/utxos_notes.txt"
: > "$d/x1/utxos/utxos_00000000_00002999.csv"
"$bk" export --datasets utxos --utxo-snapshot "$d/g/utxo_snapshot.dat" --out "$d/x1" --chunk-rows 5000 -j1
want="utxos_00000000_00002999.csv
utxos_00000000_00004999.parquet
utxos_00005000_00009999.parquet
utxos_00010000_00014999.parquet
utxos_00015000_00019999.parquet
utxos_notes.txt"
[ "$(ls "$d/x1/utxos")" = "$want" ] || { echo "rerun left:"; ls "$d/x1/utxos"; exit 1; }
echo ok-rerun
