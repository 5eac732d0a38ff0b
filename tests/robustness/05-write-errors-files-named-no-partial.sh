#!/bin/bash
# 05-write-errors-ignored-exit-0, the files a command writes itself: a write
# that fails part way (RLIMIT_FSIZE: EFBIG, SIGXFSZ ignored) is exit 74 with
# one message naming the file being written and the write's errno, and no
# partial file is left under the final name.
#  - utxo dump -o FILE writes FILE.tmp-PID and renames it when complete: a
#    failure or a signal leaves nothing under FILE (and no temporary file),
#    and an earlier FILE stays as it was. It used to truncate FILE first and
#    leave a partial (for Parquet, unreadable) file behind.
#  - export named the block but not the chunk file or errno ("writing the
#    output failed").
. "$(dirname "$0")/lib.sh"
dd=${REGTEST:-}/full
rt="--datadir $dd --chain regtest"
limited() { ( trap '' XFSZ; ulimit -f 100; exec "$@" ); }   # 100 KiB
nothing_left() { # FILE: neither FILE nor FILE.tmp-*
  if [ -e "$1" ] || compgen -G "$1.tmp-*" > /dev/null; then fail "$1 or a temporary file is left: $(ls "$1"* 2>&1)"
  else pass "nothing left at $1"; fi
}
for f in csv ndjson parquet; do
  run 30 bash -c "$(declare -f limited); limited \"\$0\" utxo dump $rt --format $f -o \"\$1\"" "$BK" "$T/d.$f"
  expect "utxo dump --format $f -o FILE over the size limit" 74 \
    "^blockkit: utxo dump: $T/d\.$f\.tmp-[0-9]+: write error: File too large$"
  one_line "utxo dump --format $f over the size limit"
  nothing_left "$T/d.$f"
done
# -o DIR: a usage error naming it, nothing written
run 30 "$BK" utxo dump $rt -o "$T"
expect "utxo dump -o DIR" 64 "^blockkit: utxo dump: -o $T is a directory: give a file name$"
compgen -G "$T.tmp-*" > /dev/null && fail "a temporary file beside $T" || pass "nothing written for -o DIR"
# a complete dump, then a failed one over it: the first stays
run 30 "$BK" utxo dump $rt -o "$T/d.csv"
expect "utxo dump -o FILE" 0 ""
"$BK" utxo dump $rt > "$T/ref.csv" || fail "utxo dump to stdout"
cmp -s "$T/d.csv" "$T/ref.csv" && pass "-o FILE = standard output" || fail "-o FILE differs from standard output"
run 30 bash -c "$(declare -f limited); limited \"\$0\" utxo dump $rt --format parquet --force -o \"\$1\"" "$BK" "$T/d.csv"
expect "failed dump over an existing FILE" 74 "write error: File too large$"
cmp -s "$T/d.csv" "$T/ref.csv" && pass "the existing FILE is unchanged" || fail "the existing FILE was changed"
compgen -G "$T/d.csv.tmp-*" > /dev/null && fail "a temporary file is left" || pass "no temporary file"
# -o a symbolic link (here a dangling one): written through, the link kept
ln -s "$T/target.csv" "$T/link.csv"
run 30 "$BK" utxo dump $rt -o "$T/link.csv"
expect "utxo dump -o LINK" 0 ""
[ -L "$T/link.csv" ] && cmp -s "$T/target.csv" "$T/ref.csv" && pass "the link kept, its target written" \
  || fail "-o LINK: $(ls -la "$T/link.csv" "$T/target.csv" 2>&1)"
# a signal while the rows are written: exit 128+15, nothing under FILE
"$BK_HELPERS/gen-utxo" "$T/u" 2000000 > /dev/null || fail "gen-utxo"
"$BK" utxo dump --utxo-snapshot "$T/u/utxo_snapshot.dat" -j 1 -o "$T/s.csv" 2> "$T/sig.err" &
pid=$!
for _ in $(seq 1000); do compgen -G "$T/s.csv.tmp-*" > /dev/null && break; sleep 0.01; done
kill -TERM "$pid"
wait "$pid"; rc=$?; err=$(cat "$T/sig.err")
expect "utxo dump -o FILE, SIGTERM" 143 "^blockkit: utxo dump: interrupted; $T/s\.csv not written$"
nothing_left "$T/s.csv"
# export: the chunk file and the errno
for f in csv parquet; do
  run 30 bash -c "$(declare -f limited); limited \"\$0\" export $rt --datasets all --format $f --out \"\$1\"" "$BK" "$T/x.$f"
  expect "export --format $f over the size limit" 74 \
    "^blockkit: export: i/o error: (block at height [0-9]+: )?$T/x\.$f/[a-z_]+/[a-z_]+_[0-9]{8}_[0-9]{8}\.$f\.tmp-[0-9]+: write error: File too large$"
  one_line "export --format $f over the size limit"
  [ -z "$(find "$T/x.$f" -name '*.tmp-*')" ] && pass "export left no temporary file" || fail "export left $(find "$T/x.$f" -name '*.tmp-*')"
done
finish
