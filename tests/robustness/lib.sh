# Helpers for the CLI robustness tests (tests/robustness/*.sh, one per finding
# of the robustness campaign; tests/robustness.test.cmake runs them).
# Environment: BK (the blockkit binary), DATA (tests/data), SAMPLE
# (data/sample_blocksdir), REGTEST (the unpacked regtest fixture root),
# BK_SANITIZE (1 in an ASan build: no address-space limit).
set -u
fails=0
T=$(mktemp -d "${TMPDIR:-/tmp}/bk-robust-XXXXXX")
trap 'rm -rf "$T"' EXIT
RT=${REGTEST:-}/full/regtest/blocks

fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
pass() { echo "ok: $*"; }

# run TIMEOUT_S CMD...: runs with a time bound (and, outside ASan, a 1 GiB
# address-space bound); sets rc (124 = timed out), err (stderr text).
run() {
    local t=$1; shift
    if [ "${BK_SANITIZE:-0}" = 1 ]; then
        timeout -k 2 "$t" "$@" 2> "$T/stderr"; rc=$?
    else
        ( ulimit -v 1048576; exec timeout -k 2 "$t" "$@" ) 2> "$T/stderr"; rc=$?
    fi
    # The one informational line naming the chain source (Core's block index
    # or the header scan; docs/blockfiles.md) is not an error message.
    err=$(grep -v '^blockkit: [a-z]*: chain from ' "$T/stderr")
}

# expect NAME WANT_RC REGEX: check the last run's status and stderr
# (REGEX "" = stderr must be empty).
expect() {
    local name=$1 want=$2 re=$3
    if [ "$rc" != "$want" ]; then fail "$name: exit $rc, want $want; stderr: $err"; return; fi
    if [ -z "$re" ]; then
        if [ -n "$err" ]; then fail "$name: stderr not empty: $err"; return; fi
    elif ! printf '%s' "$err" | grep -Eq -- "$re"; then
        fail "$name: stderr does not match /$re/: $err"; return
    fi
    pass "$name"
}

# one_line NAME: stderr has exactly one line
one_line() {
    local n; n=$(printf '%s\n' "$err" | grep -c .)
    if [ "$n" != 1 ]; then fail "$1: $n messages, want 1: $err"; else pass "$1: one message"; fi
}

finish() {
    if [ "$fails" != 0 ]; then echo "$fails failure(s)" >&2; exit 1; fi
    exit 0
}
