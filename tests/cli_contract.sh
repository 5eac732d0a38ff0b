#!/bin/bash
# The one CLI contract (issue 27; cli/opt.h, cli/source.h): the option
# grammar for every command, one datadir resolver, one exit-status table,
# resume safety. Each check names the problem it guards against.
# Environment as tests/robustness/lib.sh (BK, DATA, REGTEST, ...).
#   tests/cli_contract.sh npm-registration SRC BUILD: only the check that the
#   tests needing tests/npm/node_modules are registered without it.
. "$(dirname "$0")/robustness/lib.sh"

# ---- the npm tools' tests are registered whether node_modules exists or not
# (a first `make test` configured before `npm ci` ran 113 tests, silently) ----
if [ "${1:-}" = npm-registration ]; then
    src=$2 build=$3
    npm_tests="utxo_duckdb_docs docs_loading_ndjson_duckdb export_sample export_regtest_all export_block_stats test_ssz_state"
    # listed: the tests named exactly, in ctest -N's "Test #N: NAME" lines
    listed() {
        local have
        have=$(cd "$1" && "${CTEST:-ctest}" -N 2>/dev/null | sed -n 's/^ *Test *#[0-9]*: //p')
        for t in $npm_tests; do
            if printf '%s\n' "$have" | grep -qxF "$t"; then pass "$2: $t registered"; else fail "$2: $t not registered"; fi
        done
    }
    listed "$build" "this build"
    # the same source configured without tests/npm/node_modules: a tree of
    # links to everything but it (configure only, no build)
    mkdir -p "$T/src/tests/npm"
    for e in "$src"/* "$src"/.[!.]*; do
        b=${e##*/}
        case $b in tests | .git | build* | '.[!.]*') ;; *) ln -s "$e" "$T/src/$b" ;; esac
    done
    for e in "$src"/tests/*; do [ "${e##*/}" = npm ] || ln -s "$e" "$T/src/tests/${e##*/}"; done
    for e in "$src"/tests/npm/*; do [ "${e##*/}" = node_modules ] || ln -s "$e" "$T/src/tests/npm/${e##*/}"; done
    if "${CMAKE:-cmake}" -S "$T/src" -B "$T/b" -DCMAKE_BUILD_TYPE=Release > "$T/cfg.log" 2>&1; then
        listed "$T/b" "configured without node_modules"
    else
        fail "configure without node_modules: $(tail -5 "$T/cfg.log")"
    fi
    finish
fi

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
# tx, proof, proof verify: --opt=value, options after the arguments, --
blk=$("$BK" block --datadir "$DD" 120 2>/dev/null)
txid=$(printf '%s' "$blk" | sed -E 's/.*"tx":\["([0-9a-f]{64})".*/\1/')
bhash=$(printf '%s' "$blk" | sed -E 's/^\{"hash":"([0-9a-f]{64})".*/\1/')
same_out "tx --opt=value, any order" "$BK" tx --datadir "$DD" --verbosity 1 "$txid" -- \
    "$BK" tx "$txid" --verbosity=1 "--datadir=$DD"
same_out "tx: -- ends the options" "$BK" tx --datadir "$DD" "$txid" -- "$BK" tx --datadir "$DD" -- "$txid"
same_out "proof --opt=value, any order" "$BK" proof --datadir "$DD" --block "$bhash" "$txid" -- \
    "$BK" proof "$txid" "--block=$bhash" "--datadir=$DD"
same_out "proof: -- ends the options" "$BK" proof --datadir "$DD" "$txid" -- "$BK" proof --datadir "$DD" -- "$txid"
proof=$("$BK" proof --datadir "$DD" "$txid" 2>/dev/null)
same_out "proof verify --opt=value, any order" "$BK" proof verify --datadir "$DD" --pretty "$proof" -- \
    "$BK" proof verify "$proof" --pretty "--datadir=$DD"
same_out "proof verify: -- ends the options" "$BK" proof verify --datadir "$DD" "$proof" -- \
    "$BK" proof verify --datadir "$DD" -- "$proof"
# filter: the range group and block arguments the same way
same_out "filter --opt=value, any order" "$BK" filter --datadir "$DD" --start 5 --end 9 -j 1 -- \
    "$BK" filter --end=9 -j1 --start=5 "--datadir=$DD"
same_out "filter: options after the arguments, --" "$BK" filter --datadir "$DD" 5 "$bhash" -- \
    "$BK" filter 5 --datadir "$DD" -- "$bhash"
# utxo snapshot: --opt=value, any order; -- ends the options (none after it)
mkdir -p "$T/us1" "$T/us2"
same_out "utxo snapshot --opt=value, any order" env -C "$T/us1" "$BK" utxo snapshot --datadir "$DD" --height 900 -o s.dat -- \
    env -C "$T/us2" "$BK" utxo snapshot -o s.dat --height=900 "--datadir=$DD" --
if cmp -s "$T/us1/s.dat" "$T/us2/s.dat"; then pass "utxo snapshot: the same file"; else fail "utxo snapshot files differ"; fi
run 10 "$BK" utxo snapshot --datadir "$DD" -o "$T/us3.dat" -- --height 900 > /dev/null
expect "utxo snapshot: after --, an option is an argument" 64 "unexpected argument '--height'"

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
# (one message: the range as given; stats' single block keeps Core's text)
for c in "scan --start 5000" "scan --end -1000" "export --start 5000 --out $T/e2" "export --end -1000 --out $T/e3" \
         "stats --start 5000" "stats --end -1000" "stats --start 5000 --end 6000"; do
    run 60 $BK $c --datadir "$DD" > /dev/null
    case $c in
    *"--end -1000"*) want="^blockkit: ${c%% *}: no block in heights 0\.\.the tip - 1000 \(the chain is shorter\): nothing written$" ;;
    *"--end 6000"*) want="^blockkit: ${c%% *}: no block in heights 5000\.\.6000 \(the chain is shorter\): nothing written$" ;;
    *) want="^blockkit: ${c%% *}: no block in heights 5000\.\.the tip \(the chain is shorter\): nothing written$" ;;
    esac
    expect "empty range is 66, one message: $c" 66 "$want"
done
for c in "--height 5000" "--start 5000 --end 5000"; do
    run 60 "$BK" stats $c --datadir "$DD" > /dev/null
    expect "stats, one block past the tip: Core's text ($c)" 66 "^blockkit: stats: Target block height 5000 after current tip 939$"
done
# a range past the tip is cut at the tip, as --end says for scan and export
same_out "stats --end past the tip: the tip" "$BK" stats --datadir "$DD" --start 936 --end 5000 -- \
    "$BK" stats --datadir "$DD" --start 936
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

# a signal ends with 128+N after the last complete line: stats and the
# utxo stats series (a long run held back by a FIFO the test reads from)
for c in "stats -j1" "utxo stats --hash-type muhash --start 0 --end 939 -j1"; do
    for sig in TERM INT; do
        rm -f "$T/fifo"; mkfifo "$T/fifo"
        "$BK" $c --datadir "$DD" > "$T/fifo" 2> "$T/sig.err" &
        pid=$!
        exec 3< "$T/fifo"
        IFS= read -r first <&3
        kill -$sig $pid
        cat <&3 > "$T/sig.out"
        exec 3<&-
        wait $pid; rc=$?
        want=$((128 + $(kill -l $sig)))
        n=$(( $(wc -l < "$T/sig.out") + 1 ))
        if [ $rc = $want ] && [ -n "$first" ] &&
           grep -Eq "^blockkit: ${c%% -*}: stopped by a signal before height $n; resume with --start $n$" "$T/sig.err"
        then pass "${c%% -*} SIG$sig: status $rc after $n whole lines"
        else fail "${c%% -*} SIG$sig: status $rc (want $want), $n lines: $(cat "$T/sig.err")"; fi
    done
done

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
run 60 "$BK" scan --datadir "$DD" --end 61 --verbosity 3 --orphans --resume -o "$T/r.ndjson" > /dev/null
expect "resume refuses --orphans" 64 "--resume .*orphans"
# the network found from the files (regtest), then another --chain
run 60 "$BK" scan --blocksdir "$RT" --end 30 -o "$T/rc.ndjson" > /dev/null
expect "scan -o from a blocks directory" 0 ""
run 60 "$BK" scan --blocksdir "$RT" --chain signet --end 60 --resume -o "$T/rc.ndjson" > /dev/null
expect "resume refuses another --chain" 64 "--resume: .*written with .*chain.:.regtest"
"$BK" utxo dump --utxo-snapshot "$SNAP" --chain regtest -o "$T/u.csv" 2>/dev/null
run 60 "$BK" utxo dump --utxo-snapshot "$SNAP" --chain regtest -o "$T/u.csv" > /dev/null
expect "utxo dump -o refuses an existing file" 64 "exists and is not empty: --force overwrites it"
run 60 "$BK" utxo dump --utxo-snapshot "$SNAP" --chain regtest -o "$T/u.csv" --force > /dev/null
expect "utxo dump -o --force" 0 ""

# ---- help, --usage and the man page from the same tables ----
man=$(dirname "$0")/../docs/blockkit.1
cmds=$("$BK" --help | sed -n 's/^  \([a-z0-9]*\) .*/\1/p' | sort -u)
[ -n "$cmds" ] || fail "no commands in blockkit --help"
: > "$T/usage.all"
for c in $cmds; do
    "$BK" "$c" --usage > "$T/usage" 2>/dev/null || { fail "$c --usage failed"; continue; }
    [ -s "$T/usage" ] || fail "$c --usage printed nothing"
    cat "$T/usage" >> "$T/usage.all"
    while IFS= read -r u; do
        # the command (and subcommand) are the words before the first option
        s=$(printf '%s\n' "$u" | sed 's/^blockkit //; s/ \[.*//; s/ [A-Z].*//')
        h=$("$BK" $s --help 2>/dev/null) || { fail "$s --help failed"; continue; }
        for o in $(printf '%s\n' "$u" | grep -o '\[-*[a-z-]*' | tr -d '[' | sort -u); do
            printf '%s\n' "$h" | grep -Eq -- "(^|[ ,])$o( |,|=|$)" || fail "$s: $o is in --usage but not in --help"
        done
    done < "$T/usage"
done
# The SYNOPSIS of the man page is exactly the --usage lines: none extra (a
# stray "[FILE|-]"), none twice (chain listed twice), none missing, each its
# own paragraph (two entries run together are one extra line and two
# missing). Besides them only the generator's header and a .PP before each.
export LC_ALL=C
awk '/^\.SH SYNOPSIS/ { p = 1; next } /^\.SH / { p = 0 } p' "$man" > "$T/syn"
grep -vxF -e '.B blockkit' -e '.I command' -e '.RI [ options ]' -e '.br' -e '.BR \-\-help " | " \-\-version' \
    -e '.PP' "$T/syn" | sed 's/\\-/-/g; s/\\\\/\\/g' | sort > "$T/man.lines"
sort "$T/usage.all" > "$T/usage.sorted"
dup=$(uniq -d "$T/man.lines")
extra=$(sort -u "$T/man.lines" | comm -23 - <(sort -u "$T/usage.sorted"))
missing=$(sort -u "$T/usage.sorted" | comm -13 <(sort -u "$T/man.lines") -)
[ -z "$dup" ] && pass "man page: no synopsis line twice" || fail "man page: synopsis lines twice: $dup"
[ -z "$extra" ] && pass "man page: no synopsis line that is not a --usage line" || fail "man page: extra synopsis lines: $extra"
[ -z "$missing" ] && pass "man page: every --usage line in the synopsis" || fail "man page: synopsis lines missing: $missing"
npp=$(grep -cx '\.PP' "$T/syn"); nl=$(wc -l < "$T/man.lines")
[ "$npp" = "$nl" ] && pass "man page: one paragraph per synopsis line" || fail "man page: $npp .PP for $nl synopsis lines"
[ -n "$(uniq -d "$T/usage.sorted")" ] && fail "two commands print the same --usage line: $(uniq -d "$T/usage.sorted")"
[ "$(wc -l < "$T/usage.sorted")" -gt 20 ] || fail "only $(wc -l < "$T/usage.sorted") --usage lines"
finish
