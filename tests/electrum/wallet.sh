#!/bin/bash
# blockkit electrum against the real Electrum wallet (Debian's `electrum`,
# headless, its daemon and command line), over TCP on loopback:
#  - blockkit index build over the regtest datadir, blockkit electrum on a
#    free loopback port (--listen 127.0.0.1:0, the port read from its
#    stderr);
#  - an Electrum daemon (--oneserver --server 127.0.0.1:PORT:t, its own
#    HOME and --dir) with a watch-only wallet of regtest addresses taken
#    from tests/data/regtest/electrum/scripthashes.ndjson.zst: per address
#    type the one with the longest history still holding coins, and the
#    longest fully spent one;
#  - once it is synchronized (history fetched and every transaction
#    SPV-verified against the headers it downloaded): getinfo's heights
#    against Core's best chain (tests/data/regtest/bestchain.tsv),
#    getbalance (confirmed + unmatured coinbase coins), onchain_history
#    (txids, heights, positions in block from merkle.ndjson.zst, running
#    balance), listunspent, and per address getaddresshistory,
#    getaddressunspent and getaddressbalance, all computed from the vectors;
#  - the daemon kept one connection the whole time (no "disconnecting" in
#    its log: an error answer to a method Electrum needs drops it);
#  - `electrum stop` ends the daemon (exit 0), SIGTERM ends the server (143).
# With argument tls the wallet connects over TLS (--server HOST:PORT:s, the
# server's self-signed tests/data/electrum/test_cert.pem pinned by the
# wallet on first use, as Electrum does for any self-signed server), the
# same checks over it.
# Every step is bounded in time. Without `electrum` on PATH the test is
# skipped (exit 77, ctest's SKIP_RETURN_CODE), saying why.
# Environment: BK, DATA (tests/data), REGTEST (the unpacked regtest fixture).
if ! command -v electrum > /dev/null 2>&1; then
    echo "SKIP: the Electrum wallet (command electrum, Debian package electrum) is not installed;" \
         "\`make deps\` installs it as an optional package"
    exit 77
fi
. "$(dirname "$0")/../robustness/lib.sh"
DD=$REGTEST/full
transport=${1:-tcp}
EDIR=$T/electrum
export HOME=$T/home
mkdir -p "$HOME" "$EDIR/regtest"
spid= dpid=
cleanup() {
    [ -n "$dpid" ] && kill -TERM "$dpid" 2> /dev/null
    [ -n "$spid" ] && kill -TERM "$spid" 2> /dev/null
    wait 2> /dev/null
    rm -rf "$T"
}
trap cleanup EXIT

# el ARGS...: one Electrum command against the daemon, bounded; its stdout
# in $T/out, rc set.
el() {
    timeout -k 5 60 electrum --regtest -D "$EDIR" "$@" > "$T/out" 2> "$T/el.err"; rc=$?
}

# The wallet's addresses and what the server must have told it.
zstd -dcq "$DATA/regtest/electrum/scripthashes.ndjson.zst" > "$T/sh.ndjson" || fail "zstd scripthashes"
zstd -dcq "$DATA/regtest/electrum/merkle.ndjson.zst" > "$T/mk.ndjson" || fail "zstd merkle"
tip=$(tail -n 1 "$DATA/regtest/bestchain.tsv" | cut -f1)
node -e '
  const fs = require("fs"), [d, tip] = [process.argv[1], +process.argv[2]];
  const L = fs.readFileSync(d + "/sh.ndjson", "utf8").trim().split("\n").map(JSON.parse);
  const pos = new Map();
  for (const l of fs.readFileSync(d + "/mk.ndjson", "utf8").trim().split("\n")) {
    const m = JSON.parse(l);
    pos.set(m.tx_hash, m.pos);
  }
  const kinds = {
    p2pkh: (a) => /^[mn]/.test(a), p2sh: (a) => /^2/.test(a),
    p2wpkh: (a) => /^bcrt1q/.test(a) && a.length === 44, p2wsh: (a) => /^bcrt1q/.test(a) && a.length === 64,
    p2tr: (a) => /^bcrt1p/.test(a) && a.length === 64,
  };
  const longest = (f) => L.filter(f).reduce((b, o) => (!b || o.history.length > b.history.length ? o : b), null);
  const pick = [];
  for (const [k, f] of Object.entries(kinds)) {
    const o = longest((o) => o.address && f(o.address) && o.unspent.length > 0);
    if (!o) throw new Error("no " + k + " address with coins in the vectors");
    pick.push(o);
  }
  const spent = longest((o) => o.address && Object.values(kinds).some((f) => f(o.address)) &&
                               o.unspent.length === 0 && o.history.length >= 2);
  if (!spent) throw new Error("no spent-out address in the vectors");
  pick.push(spent);
  const hist = new Map();
  for (const o of pick) for (const h of o.history) hist.set(h.tx_hash, h.height);
  const rows = [...hist].map(([tx, h]) => ({tx, h, p: pos.get(tx)}));
  rows.sort((a, b) => a.h - b.h || a.p - b.p);
  const coins = pick.flatMap((o) => o.unspent.map((u) => ({...u, address: o.address})));
  // Electrum: a coinbase coin is unmatured while height + 100 > local height + 1
  const unmatured = coins.filter((u) => pos.get(u.tx_hash) === 0 && u.height + 100 > tip + 1)
                         .reduce((s, u) => s + BigInt(u.value), 0n);
  const total = pick.reduce((s, o) => s + BigInt(o.balance.confirmed), 0n);
  const w = (f, s) => fs.writeFileSync(d + "/" + f, s);
  w("addrs", pick.map((o) => o.address).join(" ") + "\n");
  w("pick.json", JSON.stringify(pick));
  w("want.history", rows.map((r) => [r.tx, r.h, r.p].join(" ")).join("\n") + "\n");
  w("want.utxos", coins.map((u) => [u.tx_hash + ":" + u.tx_pos, u.value, u.height, u.address].join(" "))
                      .sort().join("\n") + "\n");
  w("want.balance", total + " " + unmatured + "\n");
  console.log(pick.map((o) => o.address + " (" + o.history.length + " txs, " + o.unspent.length + " coins)").join(", "));
' "$T" "$tip" > "$T/picked" || { fail "vectors"; finish; }
pass "wallet addresses: $(cat "$T/picked")"

run 120 "$BK" index build --datadir "$DD" --index "$T/ix" > "$T/build.json"
[ $rc = 0 ] || { fail "index build: rc $rc $err"; finish; }

tls=()
[ "$transport" = tls ] && tls=(--tls-listen 127.0.0.1:0 --tls-cert "$DATA/electrum/test_cert.pem"
                               --tls-key "$DATA/electrum/test_key.pem")
timeout -k 5 600 "$BK" electrum --index "$T/ix" --datadir "$DD" --listen 127.0.0.1:0 "${tls[@]}" > /dev/null 2> "$T/srv.err" &
spid=$!
port=
for _ in $(seq 100); do
    if [ "$transport" = tls ]; then
        port=$(sed -n 's/^electrum: listening on TCP port [0-9]* and TLS port \([0-9]*\)$/\1/p' "$T/srv.err")
    else
        port=$(sed -n 's/^electrum: listening on TCP port \([0-9]*\)$/\1/p' "$T/srv.err")
    fi
    [ -n "$port" ] && break
    kill -0 $spid 2> /dev/null || break
    sleep 0.1
done
[ -n "$port" ] || { fail "server did not start: $(cat "$T/srv.err")"; finish; }
pass "blockkit electrum listening on 127.0.0.1:$port ($transport)"

# The daemon's RPC credentials written before it starts: without them the
# daemon and the first CLI command would each make up a password and save it
# to the same config (electrum/daemon.py get_rpc_credentials), and a CLI that
# won that race is refused ("Forbidden") by the daemon for good.
umask 077
printf '{"rpcuser": "blockkit", "rpcpassword": "%s"}\n' "$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')" \
    > "$EDIR/regtest/config"
umask 022

# The daemon in the foreground of a bounded background job (its log kept);
# nothing but the one loopback server (no proxy, no other servers).
timeout -k 5 300 electrum --regtest -D "$EDIR" -v daemon --oneserver --server "127.0.0.1:$port:$([ "$transport" = tls ] && echo s || echo t)" \
    --proxy none > "$T/daemon.log" 2>&1 &
dpid=$!
up=0
for _ in $(seq 120); do
    el getinfo
    if [ $rc = 0 ] && node -e 'const i = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
        process.exit(i.connected && i.server_height === +process.argv[2] ? 0 : 1)' "$T/out" "$tip"; then up=1; break; fi
    kill -0 $dpid 2> /dev/null || break
    sleep 0.5
done
[ $up = 1 ] || { fail "daemon not connected: $(cat "$T/out" "$T/el.err"; tail -n 20 "$T/daemon.log")"; finish; }
pass "electrum daemon connected to the server"

el restore "$(cat "$T/addrs")"
[ $rc = 0 ] || fail "restore: rc $rc $(cat "$T/el.err")"
el load_wallet
if [ $rc = 0 ] && grep -qx true "$T/out"; then pass "watch-only wallet of $(wc -w < "$T/addrs") addresses loaded"
else fail "load_wallet: rc $rc $(cat "$T/out" "$T/el.err")"; fi
sync=0
for _ in $(seq 240); do
    el is_synchronized
    [ $rc = 0 ] && grep -qx true "$T/out" && { sync=1; break; }
    sleep 0.5
done
[ $sync = 1 ] || { fail "not synchronized within 120 s: $(tail -n 20 "$T/daemon.log")"; finish; }
pass "wallet synchronized"

el getinfo; cp "$T/out" "$T/info.json"
el getbalance; cp "$T/out" "$T/balance.json"
el onchain_history; cp "$T/out" "$T/history.json"
el listunspent; cp "$T/out" "$T/utxos.json"
for a in $(cat "$T/addrs"); do
    for q in getaddresshistory getaddressunspent getaddressbalance; do
        el $q "$a"
        [ $rc = 0 ] || fail "$q $a: rc $rc $(cat "$T/el.err")"
        cp "$T/out" "$T/$q.$a.json"
    done
done
node -e '
  const fs = require("fs"), [d, tip] = [process.argv[1], +process.argv[2]];
  const rd = (f) => fs.readFileSync(d + "/" + f, "utf8");
  const js = (f) => JSON.parse(rd(f));
  // Electrum prints amounts as BTC decimal text ("279.63569029", "0.", "-1.5")
  const sat = (s) => {
    const t = String(s), neg = t.startsWith("-"), [i, f = ""] = t.replace(/^-/, "").split(".");
    const v = BigInt(i || 0) * 100000000n + BigInt((f + "00000000").slice(0, 8));
    return neg ? -v : v;
  };
  // the same JSON whatever the order of its object keys
  const canon = (v) => JSON.stringify(v, (k, x) => x && typeof x === "object" && !Array.isArray(x)
      ? Object.fromEntries(Object.keys(x).sort().map((n) => [n, x[n]])) : x);
  let bad = 0;
  const check = (ok, what, detail) => { if (ok) console.log("ok: " + what); else { bad++; console.error("FAIL: " + what + ": " + detail); } };
  const info = js("info.json");
  check(info.server_height === tip && info.blockchain_height === tip,
        "getinfo: server and verified header height " + tip + " (bestchain.tsv, the tip of Core)",
        JSON.stringify(info));
  const [total, unmatured] = rd("want.balance").trim().split(" ").map(BigInt);
  const b = js("balance.json");
  const got = sat(b.confirmed || 0) + sat(b.unconfirmed || 0) + sat(b.unmatured || 0);
  check(got === total && sat(b.unmatured || 0) === unmatured && sat(b.unconfirmed || 0) === 0n,
        "getbalance: " + total + " sat, " + unmatured + " of them unmatured coinbase",
        JSON.stringify(b));
  const h = js("history.json").transactions;
  const gotH = h.map((t) => [t.txid, t.height, t.txpos_in_block].join(" ")).join("\n") + "\n";
  const wantH = rd("want.history");
  check(gotH === wantH, "onchain_history: " + h.length + " txs, their heights and positions in block, in order",
        "got " + h.length + " rows, want " + (wantH.split("\n").length - 1) + "; first difference at row " +
        gotH.split("\n").findIndex((l, i) => l !== wantH.split("\n")[i]));
  let run = 0n, drift = -1;
  h.forEach((t, i) => { run += sat(t.bc_value); if (drift < 0 && sat(t.bc_balance) !== run) drift = i; });
  check(h.length && run === total && drift < 0,
        "onchain_history: values sum to the balance, row by row", run + " vs " + total + ", row " + drift);
  const u = js("utxos.json");
  const gotU = u.map((c) => [c.prevout_hash + ":" + c.prevout_n, sat(c.value), c.height, c.address].join(" ")).sort().join("\n") + "\n";
  check(gotU === rd("want.utxos"), "listunspent: " + u.length + " coins, values, heights, addresses",
        "got " + u.length + " coins, want " + (rd("want.utxos").split("\n").length - 1));
  for (const o of js("pick.json")) {
    const a = o.address;
    check(canon(js("getaddresshistory." + a + ".json")) === canon(o.history),
          "getaddresshistory " + a, rd("getaddresshistory." + a + ".json").slice(0, 200));
    check(canon(js("getaddressunspent." + a + ".json")) === canon(o.unspent),
          "getaddressunspent " + a, rd("getaddressunspent." + a + ".json").slice(0, 200));
    const ab = js("getaddressbalance." + a + ".json");
    check(sat(ab.confirmed) === BigInt(o.balance.confirmed) && sat(ab.unconfirmed) === 0n,
          "getaddressbalance " + a, JSON.stringify(ab));
  }
  process.exit(bad ? 1 : 0);
' "$T" "$tip" || fail "wallet answers differ from the vectors"

# One connection the whole time: an error answer to a method Electrum needs
# (fees, histogram, ...) makes it disconnect and reconnect.
nconn=$(grep -c 'connection established' "$T/daemon.log")
if [ "$nconn" = 1 ] && ! grep -qE 'disconnecting|Task exception|Traceback' "$T/daemon.log"; then
    pass "one connection, no disconnects or exceptions in the daemon's log"
else
    fail "daemon log: $nconn connections; $(grep -E 'disconnecting|Task exception|Error' "$T/daemon.log" | head -n 5)"
fi

# Over TLS: the wallet pinned the server's certificate (the one it was given).
if [ "$transport" = tls ]; then
    pinned=$(ls "$EDIR/regtest/certs/" 2> /dev/null | head -n 1)
    if [ -n "$pinned" ] && [ "$(openssl x509 -in "$EDIR/regtest/certs/$pinned" -noout -fingerprint -sha256)" = \
         "$(openssl x509 -in "$DATA/electrum/test_cert.pem" -noout -fingerprint -sha256)" ]; then
        pass "TLS: the wallet pinned the server's certificate ($pinned)"
    else
        fail "TLS: no pinned certificate equal to the server's in $EDIR/regtest/certs: $(ls "$EDIR/regtest/certs" 2>&1)"
    fi
fi

el stop
timeout 30 bash -c "while kill -0 $dpid 2> /dev/null; do sleep 0.2; done"
wait $dpid; drc=$?; dpid=
if [ $rc = 0 ] && [ $drc = 0 ]; then pass "electrum stop: the daemon exited 0"
else fail "electrum stop: rc $rc, daemon exit $drc $(cat "$T/el.err")"; fi
kill -TERM $spid; wait $spid; src=$?; spid=
if [ $src = 143 ]; then pass "server: SIGTERM ends it with 143"; else fail "server exit $src: $(cat "$T/srv.err")"; fi
finish
