#!/bin/sh
# Run every libFuzzer target briefly on its corpus (fuzz/corpus/<target>/).
set -eu
build=${1:-build-fuzz}
secs=${2:-20}
status=0
for t in "$build"/fuzz_*; do
  [ -x "$t" ] || continue
  name=$(basename "$t")
  corpus="fuzz/corpus/$name"
  work=$(mktemp -d)
  [ -d "$corpus" ] && cp -r "$corpus"/. "$work"/ 2>/dev/null || true
  # Per-target libFuzzer options (e.g. fuzz/fuzz_chain.options: a larger
  # -max_len for inputs of several files with many records).
  opts=""
  [ -f "fuzz/$name.options" ] && opts=$(cat "fuzz/$name.options")
  echo "== $name ($secs s) $opts"
  # shellcheck disable=SC2086
  if ! ASAN_OPTIONS=detect_leaks=1 "$t" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 \
       -print_final_stats=1 $opts "$work" >"$work.log" 2>&1; then
    tail -n 60 "$work.log"; status=1
  else
    grep -E 'stat::number_of_executed_units|Done' "$work.log" | tail -n 2
  fi
  rm -rf "$work" "$work.log"
done
exit $status
