#!/bin/sh
# blockkit utxo stats --height/--start/--end and utxo snapshot over the
# regtest node, byte for byte against Core's answers (tests/data/indexes):
#   gettxoutsetinfo muhash|none <height> true for every height 0..939 (one
#   forward pass, and single heights), dumptxoutset rollback files and
#   results for 110, 469, 929, the rolled-back hash_serialized_3.
# usage: utxo_series_cli.sh BLOCKKIT DATADIR TESTDATA
set -eu
bk=$1 dd=$2 data=$3/indexes
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
core() { zstd -dcq "$1" | sed 's/^{"height":[0-9]*,"core"://; s/}$//'; }

for type in muhash none; do
  core "$data/gettxoutsetinfo_${type}_by_height.ndjson.zst" > "$t/want_$type"
  [ "$(wc -l < "$t/want_$type")" -eq 940 ] || fail "$type: vector lines"
  "$bk" utxo stats --datadir "$dd" --hash-type $type --start 0 --end 939 -j2 > "$t/got_$type"
  cmp "$t/want_$type" "$t/got_$type" || fail "$type: series 0..939 differs"
  # --end -N: N blocks below the tip
  "$bk" utxo stats --datadir "$dd" --hash-type $type --start 930 --end -3 -j1 > "$t/tail"
  sed -n '931,937p' "$t/want_$type" | cmp - "$t/tail" || fail "$type: --end -3"
  for h in 0 1 150 469 939; do
    "$bk" utxo stats --datadir "$dd" --hash-type $type --height $h > "$t/one"
    sed -n "$((h + 1))p" "$t/want_$type" | cmp - "$t/one" || fail "$type: --height $h"
  done
done

i=0
while IFS= read -r line; do
  h=$(printf '%s\n' "$line" | sed 's/^{"height":\([0-9]*\),.*/\1/')
  want=$(printf '%s\n' "$line" | sed 's/^{"height":[0-9]*,"core"://; s/}$//')
  (cd "$t" && "$bk" utxo snapshot --datadir "$dd" --height "$h" -o "utxo_at_$h.dat" --mem 1) > "$t/res"
  printf '%s\n' "$want" | cmp - "$t/res" || fail "snapshot $h: result differs: $(cat "$t/res")"
  zstd -dcq "$data/utxo_snapshot_at_$h.dat.zst" | cmp - "$t/utxo_at_$h.dat" || fail "snapshot $h: file differs"
  # the same rollback through utxo stats: Core's txoutset_hash
  hs=$(printf '%s\n' "$want" | sed 's/.*"txoutset_hash":"\([0-9a-f]*\)".*/\1/')
  "$bk" utxo stats --datadir "$dd" --hash-type hash_serialized_3 --height "$h" | grep -q "\"hash_serialized_3\":\"$hs\"" \
    || fail "stats hash_serialized_3 --height $h"
  i=$((i + 1))
done < "$data/dumptxoutset_rollback.ndjson"
[ $i -eq 3 ] || fail "dumptxoutset lines"

# Core refuses an existing path; a height past the tip is an error; no file left
if "$bk" utxo snapshot --datadir "$dd" --height 110 -o "$t/utxo_at_110.dat" > /dev/null 2> "$t/err"; then fail "existing file"; fi
grep -q "already exists" "$t/err" || fail "existing file message"
if "$bk" utxo snapshot --datadir "$dd" --height 940 -o "$t/x.dat" > /dev/null 2>&1; then fail "past the tip"; fi
[ ! -e "$t/x.dat" ] || fail "file left after an error"
ls "$t" | grep -q tmp- && fail "temporary file left"
if "$bk" utxo stats --datadir "$dd" --hash-type muhash --height 940 > /dev/null 2>&1; then fail "stats past the tip"; fi
if "$bk" utxo stats --datadir "$dd" --hash-type hash_serialized_3 --start 3 --end 4 > /dev/null 2>&1; then fail "range with hash_serialized_3"; fi
# export --datasets utxo_stats: the same series as typed columns (CSV here)
"$bk" export --datasets utxo_stats --datadir "$dd" --out "$t/x" --format csv -j2
csv=$t/x/utxo_stats/utxo_stats_00000000_00000939.csv
[ -f "$csv" ] || fail "utxo_stats file"
sed 's/.*"height":\([0-9]*\),"bestblock":"\([0-9a-f]*\)","txouts":\([0-9]*\),"bogosize":\([0-9]*\),"muhash":"\([0-9a-f]*\)".*/\1,\2,\3,\4,\5/' "$t/want_muhash" > "$t/want_cols"
tail -n +2 "$csv" | cut -d, -f1-5 | cmp - "$t/want_cols" || fail "utxo_stats columns differ"
# export --datasets utxos --height H: the set at H by the same rollback,
# row for row the rows of Core's own dumptxoutset rollback file at H
for h in 110 469 929; do
  zstd -dcq "$data/utxo_snapshot_at_$h.dat.zst" > "$t/core_$h.dat"
  "$bk" export --datasets utxos --datadir "$dd" --height "$h" --format csv --out "$t/xh$h" 2> "$t/err" || fail "export utxos --height $h: $(cat "$t/err")"
  "$bk" export --datasets utxos --utxo-snapshot "$t/core_$h.dat" --height "$h" --format csv --out "$t/xc$h" 2> "$t/err" || fail "export core snapshot $h"
  n=$(cat "$t/xh$h"/utxos/*.csv | wc -l)
  [ "$n" -gt 100 ] || fail "export utxos --height $h: $n lines"
  cat "$t/xh$h"/utxos/*.csv | cmp - "$t/xc$h/utxos/$(ls "$t/xc$h/utxos")" || fail "export utxos --height $h differs from Core's set"
done
# at the tip: the chainstate itself; past it: Core's message, exit 66, no files
"$bk" export --datasets utxos --datadir "$dd" --height 939 --format csv --out "$t/xtip" 2>/dev/null || fail "export utxos at the tip"
"$bk" export --datasets utxos --datadir "$dd" --format csv --out "$t/xnow" 2>/dev/null || fail "export utxos"
cmp "$t/xtip"/utxos/*.csv "$t/xnow"/utxos/*.csv || fail "export utxos --height <tip> differs from the chainstate"
rc=0
"$bk" export --datasets utxos --datadir "$dd" --height 940 --format csv --out "$t/xpast" 2> "$t/err" || rc=$?
[ $rc -eq 66 ] && grep -q "Target block height 940 after current tip 939" "$t/err" || fail "export utxos past the tip: rc $rc $(cat "$t/err")"
[ -z "$(ls "$t/xpast/utxos" 2>/dev/null)" ] || fail "export utxos past the tip wrote files"
echo "utxo series CLI: ok"
