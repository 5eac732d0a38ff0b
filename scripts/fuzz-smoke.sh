#!/bin/sh
# Run every libFuzzer target briefly on its corpus (fuzz/corpus/<target>/).
# A failing target's log tail and its crash input (base64) are kept and
# printed after the last target, with the names of all failing targets last,
# so a CI log cut to its last lines still shows what failed and how to
# reproduce it (base64 -d > crash; build-fuzz/<target> crash).
set -eu
build=${1:-build-fuzz}
secs=${2:-20}
failed=""
report=$(mktemp)
trap 'rm -f "$report"' EXIT
for t in "$build"/fuzz_*; do
  [ -x "$t" ] || continue
  name=$(basename "$t")
  corpus="fuzz/corpus/$name"
  work=$(mktemp -d)
  art=$(mktemp -d)
  [ -d "$corpus" ] && cp -r "$corpus"/. "$work"/ 2>/dev/null || true
  # Per-target libFuzzer options (e.g. fuzz/fuzz_chain.options: a larger
  # -max_len for inputs of several files with many records).
  opts=""
  [ -f "fuzz/$name.options" ] && opts=$(cat "fuzz/$name.options")
  echo "== $name ($secs s) $opts"
  # shellcheck disable=SC2086
  if ! ASAN_OPTIONS=detect_leaks=1 "$t" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 \
       -print_final_stats=1 -artifact_prefix="$art/" $opts "$work" >"$work.log" 2>&1; then
    echo "FAILED: $name"
    {
      echo "==== $name: the last 60 lines of its log"
      tail -n 60 "$work.log"
      for a in "$art"/*; do
        [ -f "$a" ] || continue
        echo "---- $name: $(basename "$a") ($(wc -c <"$a") bytes), base64 (first 64 KiB):"
        head -c 65536 "$a" | base64
      done
    } >>"$report"
    failed="$failed $name"
  else
    grep -E 'stat::number_of_executed_units|Done' "$work.log" | tail -n 2
  fi
  rm -rf "$work" "$work.log" "$art"
done
if [ -n "$failed" ]; then
  cat "$report"
  echo "fuzz-smoke: failed:$failed"
  exit 1
fi
echo "fuzz-smoke: all targets clean"
