#!/bin/bash
# scripts/electrum-load.mjs and its C clients (electrum-loadgen) against
# blockkit electrum on the regtest index, small and bounded (30 clients x 40
# requests of the mixed load, 200 idle connections, 60 s; the C driver's
# server with 3 event loops, node's with 1): every request
# answered without a JSON-RPC error by both drivers, the idle connections
# all accepted, and SIGTERM ends the server with 143. It checks the load
# tools and the server under concurrency, never a speed (the figures live
# in docs/electrum.md, from the same script at full size).
# Environment: BK, LOADGEN (the electrum-loadgen binary), REGTEST.
. "$(dirname "$0")/../robustness/lib.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
DD=$REGTEST/full
run 120 "$BK" index build --datadir "$DD" --index "$T/ix" > /dev/null
[ $rc = 0 ] || { fail "index build: rc $rc $err"; finish; }
for driver in "$LOADGEN" node; do
    loops=1; [ "$driver" = node ] || loops=3
    timeout -k 5 90 node "$SRC/scripts/electrum-load.mjs" "$BK" --index "$T/ix" --datadir "$DD" \
        --clients 30 --requests 40 --idle 200 --seconds 60 --driver "$driver" --loops $loops > "$T/out" 2> "$T/err"
    lrc=$?
    name=$(basename "$driver")
    [ $lrc = 0 ] || { fail "$name: electrum-load.mjs exited $lrc: $(cat "$T/err")"; continue; }
    node -e '
      const L = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse);
      const [load, idle, end] = L, bad = [];
      if (load.requests !== 1200 || load.errors !== 0 || (load.unanswered ?? 0) !== 0)
        bad.push(`load: ${load.requests} answered of 1200, ${load.errors} errors`);
      if (!(load.rps > 0 && load.p99_ms >= load.p50_ms)) bad.push("load: no rates " + JSON.stringify(load));
      if (idle.idle_connections !== 200 || idle.failed !== 0) bad.push(`idle: ${idle.idle_connections} of 200 held`);
      if (end.server_exit !== 143) bad.push(`server exit ${end.server_exit}, want 143`);
      if (bad.length) { console.error(bad.join("; ")); process.exit(1); }
    ' "$T/out" 2> "$T/check" && pass "$name: 1200 requests answered, 200 idle connections held, exit 143: $(head -n 1 "$T/out")" \
        || fail "$name: $(cat "$T/check")"
    grep -q "\"driver\":\"$( [ "$driver" = node ] && echo node || echo electrum-loadgen)\"" "$T/out" \
        || fail "$name: the result does not name its driver: $(head -n 1 "$T/out")"
done
finish
