#!/bin/bash
# blockkit electrum on an index over a blocks directory without the
# genesis block (scripts/gen-bench-blocks: its chain starts at height 1,
# as the scale directory of docs/index.md does): the server starts and
# serves from the index's first header. server.features names the genesis
# block (the first header's parent); headers.subscribe gives the tip whose
# hash `blockkit index build` printed; block.headers from 1 link each header
# to its parent; a header below the first, or a cp_height proof (it needs
# every header from 0), is refused by name, and the server keeps serving.
# Environment: BK, GEN (gen-bench-blocks), DATA.
. "$(dirname "$0")/../robustness/lib.sh"
"$GEN" --bytes 6M "$DATA" "$T/blocks" > /dev/null || { fail "gen-bench-blocks"; finish; }
run 120 "$BK" index build --blocksdir "$T/blocks" --index "$T/ix" > "$T/build.json"
[ $rc = 0 ] || { fail "index build: rc $rc $err"; finish; }
"$BK" electrum --listen 127.0.0.1:0 --index "$T/ix" --blocksdir "$T/blocks" 2> "$T/srv.err" &
spid=$!
port=
for _ in $(seq 100); do port=$(sed -n 's/.*TCP port \([0-9]*\).*/\1/p' "$T/srv.err" | head -1); [ -n "$port" ] && break; sleep 0.1; done
[ -n "$port" ] || { fail "electrum did not start: $(cat "$T/srv.err")"; kill $spid; finish; }
timeout 30 node -e '
  const net = require("net"), crypto = require("crypto"), fs = require("fs");
  const [port, buildFile] = process.argv.slice(1);
  const build = JSON.parse(fs.readFileSync(buildFile, "utf8").trim().split("\n").pop());
  const reqs = [["server.features", []], ["blockchain.headers.subscribe", []], ["blockchain.block.headers", [1, 10]],
    ["blockchain.block.header", [0]], ["blockchain.block.header", [1, build.height]], ["blockchain.block.headers", [0, 2]],
    ["blockchain.block.header", [1]]];
  const c = net.connect(+port, "127.0.0.1"); let buf = ""; const got = [];
  c.on("data", (d) => { buf += d; let i; while ((i = buf.indexOf("\n")) >= 0) { got.push(JSON.parse(buf.slice(0, i))); buf = buf.slice(i + 1); } if (got.length === reqs.length) check(); });
  reqs.forEach(([m, p], id) => c.write(JSON.stringify({ jsonrpc: "2.0", id, method: m, params: p }) + "\n"));
  const sha = (h) => crypto.createHash("sha256").update(crypto.createHash("sha256").update(Buffer.from(h, "hex")).digest()).digest();
  const rev = (b) => Buffer.from(b).reverse().toString("hex");
  function check() {
    c.end(); const r = {}; for (const g of got) r[g.id] = g; const bad = [];
    const hs = r[2].result;
    if (!hs || hs.count !== build.height) bad.push("block.headers 1.." + build.height + ": " + JSON.stringify(r[2]));
    const hex = hs ? hs.hex.match(/.{160}/g) : [];
    for (let i = 1; i < hex.length; i++) if (hex[i].slice(8, 72) !== sha(hex[i - 1]).toString("hex")) bad.push("header " + (i + 1) + " does not link to its parent");
    const genesis = hex.length ? rev(Buffer.from(hex[0].slice(8, 72), "hex")) : "";
    if (r[0].result?.genesis_hash !== genesis || !/^[0-9a-f]{64}$/.test(genesis)) bad.push("genesis_hash " + JSON.stringify(r[0]) + " want " + genesis);
    const tip = r[1].result;
    if (!tip || tip.height !== build.height || rev(sha(tip.hex)) !== build.hash) bad.push("headers.subscribe " + JSON.stringify(tip) + " want " + build.hash);
    if (!/below the index.s first header \(height 1\)/.test(r[3].error?.message)) bad.push("header 0: " + JSON.stringify(r[3]));
    if (!/cp_height proofs need every header from height 0; the index.s first is at height 1/.test(r[4].error?.message)) bad.push("cp_height: " + JSON.stringify(r[4]));
    if (!/below the index.s first header/.test(r[5].error?.message)) bad.push("headers from 0: " + JSON.stringify(r[5]));
    if (r[6].result !== hex[0]) bad.push("header 1 " + JSON.stringify(r[6]));
    if (bad.length) { console.error(bad.join("\n")); process.exit(1); }
    console.log(`heights 1-${build.height}, genesis ${genesis.slice(0, 16)}..`);
  }
' "$port" "$T/build.json" > "$T/out" 2> "$T/nerr" && pass "no genesis block: served from height 1: $(cat "$T/out")" \
    || fail "no genesis block: $(cat "$T/nerr")"
kill -TERM $spid; wait $spid; src=$?
[ $src = 143 ] && pass "SIGTERM: exit 143" || fail "server exit $src: $(cat "$T/srv.err")"
finish
