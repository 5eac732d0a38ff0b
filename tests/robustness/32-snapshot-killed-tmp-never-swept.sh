#!/bin/bash
# 32-snapshot-killed-tmp-never-swept: a SIGKILLed `utxo snapshot -o FILE`
# left FILE.tmp-PID for good (no later run removed it). Now the next run
# writing FILE removes the FILE.tmp-PID files of processes that no longer
# run (`utxo snapshot` and `utxo dump -o`), and keeps a live process's.
. "$(dirname "$0")/lib.sh"
DD=$REGTEST/full
dead=999999
while kill -0 "$dead" 2>/dev/null; do dead=$((dead + 1)); done
sleep 600 & live=$!
head -c 5988 /dev/zero > "$T/s.dat.tmp-$dead"
: > "$T/s.dat.tmp-$live"
: > "$T/s.dat.tmp-x1"        # not a pid: not ours to judge
run 60 "$BK" utxo snapshot --datadir "$DD" --height 100 -o "$T/s.dat"
expect "snapshot rerun" 0 ""
[ -e "$T/s.dat.tmp-$dead" ] && fail "snapshot: s.dat.tmp-$dead (no such process) is still there" || pass "snapshot: the dead run's file is removed"
[ -e "$T/s.dat.tmp-$live" ] && pass "snapshot: a running process's file stays" || fail "snapshot: removed s.dat.tmp-$live of a running process"
[ -e "$T/s.dat.tmp-x1" ] && pass "snapshot: a non-pid suffix stays" || fail "snapshot: removed s.dat.tmp-x1"
[ -s "$T/s.dat" ] && pass "snapshot written" || fail "no snapshot"
head -c 100 /dev/zero > "$T/d.csv.tmp-$dead"
run 60 "$BK" utxo dump --datadir "$DD" --format csv -o "$T/d.csv"
expect "dump rerun" 0 ""
[ -e "$T/d.csv.tmp-$dead" ] && fail "dump: d.csv.tmp-$dead is still there" || pass "dump: the dead run's file is removed"
# a real SIGKILL during the write, then a rerun: nothing but FILE remains
for i in $(seq 1 20); do
    rm -f "$T/k.dat"; "$BK" utxo snapshot --datadir "$DD" --height 100 -o "$T/k.dat" > /dev/null 2>&1 & p=$!
    sleep "0.0$((RANDOM % 9))"; kill -9 $p 2>/dev/null; wait $p 2>/dev/null
    ls "$T" | grep -q '^k.dat.tmp-' && break
done
rm -f "$T/k.dat"
run 60 "$BK" utxo snapshot --datadir "$DD" --height 100 -o "$T/k.dat"
expect "rerun after kill -9" 0 ""
left=$(ls "$T" | grep '^k.dat.tmp-')
[ -z "$left" ] && pass "no k.dat.tmp-* after the rerun" || fail "left after the rerun: $left"
kill "$live" 2>/dev/null; wait "$live" 2>/dev/null
finish
