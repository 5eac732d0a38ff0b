#!/bin/bash
# 16-export-concurrent-runs-fail-each-other: two exports into one --out made each other fail (each removed
# the other's temporary files; exit 74 naming a final chunk name). Now one
# writer per --out: the second is refused at once with exit 75, naming the
# holder's pid, writing nothing; the first completes, its files those of an
# export run alone; after it, an export into the same --out works again.
. "$(dirname "$0")/lib.sh"
DD=$REGTEST/full
run 120 "$BK" export --datadir "$DD" --out "$T/ref" --chunk-size 50 -j 2 --format csv --progress never
expect "reference export" 0 ""
# the holder: --follow keeps the lock while it waits for the tip
"$BK" export --datadir "$DD" --out "$T/c" --chunk-size 50 -j 2 --format csv --follow --poll 60 --progress never 2> "$T/hold.err" &
pid=$!
for _ in $(seq 1 250); do [ -s "$T/c/.blockkit-lock" ] && break; sleep 0.02; done
# wait until the holder has written its complete chunks (it then sleeps)
for _ in $(seq 1 250); do grep -q "waiting" "$T/hold.err" 2>/dev/null && break; sleep 0.02; done
start=$(date +%s%N)
for ds in "" "--datasets utxos" "--datasets utxo_stats"; do
    # shellcheck disable=SC2086
    run 10 "$BK" export --datadir "$DD" --out "$T/c" --format csv $ds --progress never
    expect "second export ${ds:-(blocks)} refused" 75 "^blockkit: export: locked: another blockkit \(pid $pid\) writes into $T/c: one writer per output directory$"
done
ms=$(( ($(date +%s%N) - start) / 1000000 ))
if [ "$ms" -lt 3000 ]; then pass "refused at once (${ms} ms for three)"; else fail "refusals took ${ms} ms"; fi
kill -TERM $pid; wait $pid
# the holder's complete chunks are those of the export run alone (the
# last, partial one is never written by --follow)
same=1
for f in $(cd "$T/c" && find . -name '*.csv' | sort); do cmp -s "$T/c/$f" "$T/ref/$f" || same=0; done
n=$(find "$T/c" -name '*.csv' | wc -l)
if [ $same = 1 ] && [ "$n" -ge 60 ]; then pass "the holder's $n files equal an export run alone"; else fail "holder files: $n, same $same"; fi
if [ -z "$(find "$T/c" -name '*.tmp*')" ]; then pass "no temporary file left"; else fail "temporary files left"; fi
# released by the kernel: the next export completes the directory
run 120 "$BK" export --datadir "$DD" --out "$T/c" --chunk-size 50 -j 2 --format csv --progress never
expect "export after the holder ended" 0 ""
if diff -r -x .blockkit-lock -x _blockkit "$T/c" "$T/ref" > /dev/null; then pass "then the same files as the reference"; else fail "files differ from the reference"; fi
finish
