#!/bin/bash
# The one CLI contract (issue 27; cli/opt.h, cli/source.h): the option
# grammar for every command, one datadir resolver, one exit-status table,
# resume safety. Each check names the problem it guards against.
# Environment as tests/robustness/lib.sh (BK, DATA, REGTEST, ...).
. "$(dirname "$0")/robustness/lib.sh"
DD=$REGTEST/full
SNAP=$T/snap.dat
zstd -dcq "$DATA/regtest/utxo_snapshot.dat.zst" > "$SNAP"

# same_out NAME CMD_A -- CMD_B: both succeed with identical standard output
same_out() {
    local name=$1; shift
    local a=() b=() seen=0
    for x in "$@"; do
        if [ "$x" = "--" ] && [ $seen = 0 ]; then seen=1; continue; fi
        if [ $seen = 0 ]; then a+=("$x"); else b+=("$x"); fi
    done
    "${a[@]}" > "$T/a.out" 2> "$T/a.err"; local ra=$?
    "${b[@]}" > "$T/b.out" 2> "$T/b.err"; local rb=$?
    if [ $ra != 0 ] || [ $rb != 0 ]; then fail "$name: exit $ra / $rb: $(cat "$T/a.err" "$T/b.err")"; return; fi
    if [ ! -s "$T/a.out" ]; then fail "$name: no output"; return; fi
    if ! cmp -s "$T/a.out" "$T/b.out"; then fail "$name: outputs differ"; return; fi
    pass "$name"
}

# ---- grammar: --opt=value, --, option order, -jN, for every command ----
same_out "scan --opt=value" "$BK" scan --datadir "$DD" --end 3 --verbosity 2 -- \
    "$BK" scan "--datadir=$DD" --end=3 --verbosity=2
same_out "scan -jN and -j N and --jobs=N" "$BK" scan --datadir "$DD" --end 20 -j1 -- \
    "$BK" scan --end 20 --jobs=1 --datadir "$DD"
same_out "stats --opt=value, any order" "$BK" stats --datadir "$DD" --height 101 -- \
    "$BK" stats --height=101 "--datadir=$DD"
same_out "stats --end -N as scan" "$BK" stats --datadir "$DD" --start 930 --end 937 -- \
    "$BK" stats --datadir "$DD" --start 930 --end -2
same_out "utxo stats --opt=value" "$BK" utxo stats --datadir "$DD" --hash-type none -- \
    "$BK" utxo stats --hash-type=none "--datadir=$DD"
same_out "utxo dump --format= -jN" "$BK" utxo dump --utxo-snapshot "$SNAP" --chain regtest --format ndjson -j 2 -- \
    "$BK" utxo dump --format=ndjson -j2 --chain=regtest "--utxo-snapshot=$SNAP"
same_out "header: options after the arguments" "$BK" header --datadir "$DD" 5 -- \
    "$BK" header 5 "--datadir=$DD"
same_out "block: -- ends the options" "$BK" block --datadir "$DD" 7 -- \
    "$BK" block --datadir "$DD" -- 7
same_out "chain --opt=value" "$BK" chain --datadir "$DD" -- "$BK" chain "--datadir=$DD"

# export: the utxos options in any order (they were refused unless
# --datasets utxos came first)
run 60 "$BK" export --chain regtest --utxo-snapshot "$SNAP" --datasets utxos --out "$T/x1" --format csv > /dev/null
expect "export utxos options in any order" 0 ""
run 60 "$BK" export --format=csv --datasets=utxos "--utxo-snapshot=$SNAP" --chain=regtest "--out=$T/x2" > /dev/null
expect "export utxos --opt=value" 0 ""
if cmp -s <(cat "$T"/x1/utxos/*) <(cat "$T"/x2/utxos/*); then pass "export utxos: same files"; else fail "export utxos files differ"; fi

# a flag refuses =value; one message set everywhere
run 10 "$BK" scan --datadir "$DD" --pretty=yes > /dev/null
expect "flag with =value" 64 "^blockkit: scan: --pretty takes no value$"
for c in scan export stats chain header block tx "utxo stats" "utxo dump"; do
    run 10 "$BK" $c --no-such-option > /dev/null
    expect "$c: unknown option" 64 "^blockkit: $c: unknown option --no-such-option \(see --help\)$"
    run 10 "$BK" $c --datadir > /dev/null
    expect "$c: missing value" 64 "^blockkit: $c: --datadir needs a value$"
done
run 10 "$BK" scan --datadir "$DD" --verbosity 7 > /dev/null
expect "bad value names the bounds" 64 "bad value for --verbosity: '7' \(a whole number, 0 to 3\)"
run 10 "$BK" export --blocksdir "$SAMPLE" --orphans --out '' > /dev/null
expect "24: export --out '' is a usage error" 64 "bad value for --out: ''"

# ---- one datadir resolver ----
for c in "chain" "scan --end 2" "stats --height 3" "utxo stats --hash-type none" "header 3" "block 3" "chain --tips"; do
    run 60 $BK $c --datadir "$DD" > /dev/null
    expect "network found without --chain: $c" 0 ""
done
run 60 "$BK" export --datadir "$DD" --end 99 --chunk-size 100 --out "$T/e1" --format csv > /dev/null
expect "network found without --chain: export" 0 ""
same_out "a network folder as --datadir (chain)" "$BK" chain --datadir "$DD" --chain regtest -- \
    "$BK" chain --datadir "$DD/regtest"
same_out "a network folder as --datadir (header)" "$BK" header --datadir "$DD" 9 -- \
    "$BK" header --datadir "$DD/regtest/" 9
same_out "a network folder as --datadir (utxo stats)" "$BK" utxo stats --datadir "$DD" --hash-type none -- \
    "$BK" utxo stats --datadir "$DD/regtest" --chain regtest --hash-type none
run 10 "$BK" chain --datadir "$DD/regtest" --chain main > /dev/null
expect "network folder with another --chain" 64 "is the regtest folder of the datadir .*--chain main"
# a wrong --chain: one exact command, and following it works
run 10 "$BK" chain --datadir "$DD" --chain signet > /dev/null
expect "wrong --chain names the command" 66 "holds the blocks of regtest, not of signet: use --datadir $DD --chain regtest$"
run 60 "$BK" chain --datadir "$DD" --chain regtest > /dev/null
expect "following the hint works" 0 ""
# --blocksdir as the blk directory or as Core's -blocksdir: the same chain
same_out "--blocksdir either form" "$BK" scan --blocksdir "$DD/regtest/blocks" --end 4 -- \
    "$BK" scan --blocksdir "$DD" --end 4
# two networks: --chain chooses, the message says so
mkdir -p "$T/two/signet/blocks" && ln -s "$DD/regtest" "$T/two/regtest"
run 10 "$BK" chain --datadir "$T/two" > /dev/null
expect "two networks: choose with --chain" 64 "holds the blocks of signet and regtest: choose with --chain NAME"

# ---- one exit-status table ----
for c in "scan --start 5000" "scan --end -1000" "export --start 5000 --out $T/e2" "export --end -1000 --out $T/e3" \
         "stats --start 5000" "stats --end -1000"; do
    run 60 $BK $c --datadir "$DD" > /dev/null
    expect "empty range is 66: $c" 66 "."
done
if [ -z "$(find "$T/e2" "$T/e3" -type f 2>/dev/null)" ]; then pass "empty range writes no file"; else fail "empty range wrote files"; fi
run 10 "$BK" scan --blocksdir /nonexistent/blocks > /dev/null
expect "missing input is 66" 66 "no such directory"
run 10 "$BK" stats --datadir /nonexistent > /dev/null
expect "missing datadir is 66" 66 "no such directory"

# a signal ends with 128+N after the cleanup: export
"$BK" export --datadir "$DD" --out "$T/sig" --chunk-size 10 -j 1 --format csv 2> "$T/sig.err" &
pid=$!
for _ in $(seq 1 100); do [ -d "$T/sig" ] && break; sleep 0.02; done
kill -TERM $pid; wait $pid; rc=$?
if [ $rc = 143 ] || [ $rc = 0 ]; then pass "export SIGTERM: status $rc"; else fail "export SIGTERM: status $rc"; fi
if [ $rc = 0 ] && grep -q "stopped by a signal" "$T/sig.err"; then fail "export reported 0 after a signal"; fi
if [ -z "$(find "$T/sig" -name '*.tmp*' 2>/dev/null)" ]; then pass "export SIGTERM: no temporary file left"; else fail "temporary files left"; fi
# SIGHUP too (the one stop-signal helper, cli.h): 129, never 0 after a signal
"$BK" export --datadir "$DD" --out "$T/sighup" --chunk-size 10 -j 1 --format csv 2> "$T/sighup.err" &
pid=$!
for _ in $(seq 1 100); do [ -d "$T/sighup" ] && break; sleep 0.02; done
kill -HUP $pid; wait $pid; rc=$?
# (129 alone would also be a death by the signal: the clean stop says so on stderr)
if { [ $rc = 129 ] && grep -q "stopped by a signal" "$T/sighup.err"; } ||
   { [ $rc = 0 ] && ! grep -q "stopped by a signal" "$T/sighup.err"; }; then pass "export SIGHUP: status $rc, a clean stop"
else fail "export SIGHUP: status $rc: $(cat "$T/sighup.err")"; fi
if [ -z "$(find "$T/sighup" -name '*.tmp*' 2>/dev/null)" ]; then pass "export SIGHUP: no temporary file left"; else fail "temporary files left after SIGHUP"; fi

# ---- resume safety ----
run 60 "$BK" scan --datadir "$DD" --end 30 --verbosity 3 -o "$T/r.ndjson" > /dev/null
expect "scan -o records its options" 0 ""
run 60 "$BK" scan --datadir "$DD" --end -6 --resume -o "$T/r.ndjson" > /dev/null
expect "resume refuses another verbosity" 64 "--resume: .*written with .*verbosity.:3"
run 60 "$BK" scan --datadir "$DD" --end 60 --verbosity 3 --resume -o "$T/r.ndjson" > /dev/null
expect "resume with the same options" 0 ""
"$BK" scan --datadir "$DD" --end 60 --verbosity 3 > "$T/r.want" 2>/dev/null
if cmp -s "$T/r.ndjson" "$T/r.want"; then pass "resumed file equals one scan"; else fail "resumed file differs"; fi
run 60 "$BK" scan --datadir "$DD" --end 61 --verbosity 3 --core-compat 28 --resume -o "$T/r.ndjson" > /dev/null
expect "resume refuses another --core-compat" 64 "core_compat"
"$BK" utxo dump --utxo-snapshot "$SNAP" --chain regtest -o "$T/u.csv" 2>/dev/null
run 60 "$BK" utxo dump --utxo-snapshot "$SNAP" --chain regtest -o "$T/u.csv" > /dev/null
expect "utxo dump -o refuses an existing file" 64 "exists and is not empty: --force overwrites it"
run 60 "$BK" utxo dump --utxo-snapshot "$SNAP" --chain regtest -o "$T/u.csv" --force > /dev/null
expect "utxo dump -o --force" 0 ""

# ---- help, --usage and the man page from the same tables ----
man=$(dirname "$0")/../docs/blockkit.1
cmds=$("$BK" --help | sed -n 's/^  \([a-z0-9]*\) .*/\1/p' | sort -u)
[ -n "$cmds" ] || fail "no commands in blockkit --help"
for c in $cmds; do
    "$BK" "$c" --usage > "$T/usage" 2>/dev/null || { fail "$c --usage failed"; continue; }
    [ -s "$T/usage" ] || fail "$c --usage printed nothing"
    while IFS= read -r u; do
        # the command (and subcommand) are the words before the first option
        s=$(printf '%s\n' "$u" | sed 's/^blockkit //; s/ \[.*//; s/ [A-Z].*//')
        h=$("$BK" $s --help 2>/dev/null) || { fail "$s --help failed"; continue; }
        for o in $(printf '%s\n' "$u" | grep -o '\[-*[a-z-]*' | tr -d '[' | sort -u); do
            printf '%s\n' "$h" | grep -Eq -- "(^|[ ,])$o( |,|=|$)" || fail "$s: $o is in --usage but not in --help"
        done
        if grep -qxF -- "$(printf '%s' "$u" | sed 's/-/\\-/g')" "$man"; then pass "$s: man page synopsis is --usage"
        else fail "$s: the man page synopsis is not '$u' (scripts/gen-man-synopsis.sh rewrites it)"; fi
    done < "$T/usage"
done
finish
