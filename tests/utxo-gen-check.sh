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
echo ok
