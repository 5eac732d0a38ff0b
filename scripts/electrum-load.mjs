// Loopback load test of blockkit electrum (bounded in count and time).
//   node scripts/electrum-load.mjs BLOCKKIT --index DIR (--datadir D | --blocksdir B) \
//        [--clients 200] [--requests 1000] [--idle 10000] [--seconds 120]
//        [--history LO-HI] [--methods history,balance,unspent,tx] [-j N] [--loops N]
// Starts the server, opens --clients connections, each sending --requests
// requests one at a time, mixed get_history / get_balance / listunspent /
// transaction.get over the scripthashes and txids of the index (taken from
// tests/data/regtest/electrum/scripthashes.ndjson.zst, or --vectors FILE;
// --history LO-HI keeps the scripthashes with LO to HI transactions);
// prints requests/s, p50/p99 latency, errors and the server's peak RSS
// (VmHWM). The clients are those of electrum-loadgen (scripts/
// electrum-loadgen.c, built beside blockkit) when it is there, a C epoll
// loop that leaves the CPU to the server, or --driver node for this
// script's own (node's client takes more CPU than the server). Then holds --idle idle connections and prints the server's RSS
// per connection. Raises its own open-file limit with `prlimit` when it can.
import { spawn, spawnSync } from 'node:child_process';
import net from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const argv = process.argv.slice(2);
const blockkit = argv.shift();
const opt = (name, dflt) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : dflt; };
const clients = +opt('--clients', 200), perClient = +opt('--requests', 1000), idleN = +opt('--idle', 10000);
const seconds = +opt('--seconds', 120);
const src = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const vectors = opt('--vectors', path.join(src, 'tests/data/regtest/electrum/scripthashes.ndjson.zst'));
const serverArgs = ['electrum', '--listen', '127.0.0.1:0', '--max-clients', String(idleN + clients + 100),
  '--idle-timeout', '3600', '-j', opt('-j', '2')];
if (opt('--loops')) serverArgs.push('--loops', opt('--loops'));
if (opt('--index')) serverArgs.push('--index', opt('--index'));
if (opt('--datadir')) serverArgs.push('--datadir', opt('--datadir'));
if (opt('--blocksdir')) serverArgs.push('--blocksdir', opt('--blocksdir'));

const deadline = Date.now() + seconds * 1000;
setTimeout(() => { console.error(`stopped at the ${seconds} s bound`); process.exit(2); }, seconds * 1000).unref();

const lines = spawnSync('zstd', ['-dc', vectors], { maxBuffer: 1 << 30 }).stdout.toString().split('\n').filter(Boolean);
const [histLo, histHi] = (opt('--history', '0-1e12')).split('-').map(Number);
const shs = lines.map((l) => JSON.parse(l)).filter((s) => s.history.length >= histLo && s.history.length <= histHi);
if (!shs.length) { console.error(`no scripthash of ${vectors} has ${histLo}-${histHi} transactions`); process.exit(2); }
const txids = [...new Set(shs.flatMap((s) => s.history.map((h) => h.tx_hash)))];

// the server, with enough descriptors for the idle phase
const srv = spawn('prlimit', [`--nofile=${idleN + clients + 1000}`, blockkit, ...serverArgs], { stdio: ['ignore', 'ignore', 'pipe'] });
const port = await new Promise((res, rej) => {
  let e = '';
  srv.stderr.on('data', (d) => { e += d; const m = /TCP port (\d+)/.exec(e); if (m) res(+m[1]); });
  srv.on('exit', (c) => rej(new Error(`server exited ${c}: ${e}`)));
});
const pidOf = () => {
  const r = spawnSync('pgrep', ['-P', String(srv.pid)]);
  const kid = r.stdout.toString().trim().split('\n')[0];
  return kid || String(srv.pid);
};
const status = (key) => {
  const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pidOf()}/status`, 'utf8'));
  return m ? +m[1] : 0;
};

// --methods: a comma list of history, balance, unspent, tx (default all
// four, in turn)
const kinds = { history: 0, balance: 1, unspent: 2, tx: 3 };
const mix = opt('--methods', 'history,balance,unspent,tx').split(',').map((m) => {
  if (!(m in kinds)) { console.error(`--methods: '${m}' is not one of ${Object.keys(kinds).join(', ')}`); process.exit(2); }
  return kinds[m];
});
function request(i) {
  const sh = shs[i % shs.length].scripthash;
  switch (mix[i % mix.length]) {
    case 0: return ['blockchain.scripthash.get_history', [sh]];
    case 1: return ['blockchain.scripthash.get_balance', [sh]];
    case 2: return ['blockchain.scripthash.listunspent', [sh]];
    default: return ['blockchain.transaction.get', [txids[i % txids.length]]];
  }
}

const driver = opt('--driver', path.join(path.dirname(blockkit), 'electrum-loadgen'));
const useC = driver !== 'node' && existsSync(driver);

const lat = [];
let errors = 0;
function client(k) {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.setNoDelay(true);
    let buf = '', n = 0, t0 = 0;
    const next = () => {
      if (n === perClient || Date.now() > deadline) { s.end(); resolve(); return; }
      const [method, params] = request(k * perClient + n);
      t0 = process.hrtime.bigint();
      s.write(JSON.stringify({ jsonrpc: '2.0', id: n, method, params }) + '\n');
    };
    s.on('connect', next);
    s.on('data', (d) => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        lat.push(Number(process.hrtime.bigint() - t0) / 1e6);
        if (line.includes('"error"')) errors++;
        n++;
        next();
      }
    });
    s.on('error', () => { errors++; resolve(); });
  });
}

const rss0 = status('VmRSS');
let result;
if (useC) {
  // the same mix, one request object a line, client k from line k * perClient
  const dir = mkdtempSync(path.join(os.tmpdir(), 'electrum-load-'));
  const n = Math.min(clients * perClient, 1 << 20);
  writeFileSync(path.join(dir, 'requests'), Array.from({ length: n }, (_, i) => {
    const [method, params] = request(i);
    return JSON.stringify({ jsonrpc: '2.0', method, params });
  }).join('\n') + '\n');
  const left = Math.max(1, Math.floor((deadline - Date.now()) / 1000) - 5);
  const r = await new Promise((res) => {
    const p = spawn(driver, ['--port', String(port), '--clients', String(clients), '--requests', String(perClient),
      '--seconds', String(left), path.join(dir, 'requests')], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d) => { out += d; });
    p.on('exit', (code) => res({ code, out }));
  });
  rmSync(dir, { recursive: true, force: true });
  if (!r.out.trim()) { console.error(`electrum-loadgen exited ${r.code} without a result`); process.exit(2); }
  result = { ...JSON.parse(r.out), driver: 'electrum-loadgen' };
} else {
  const t0 = Date.now();
  await Promise.all(Array.from({ length: clients }, (_, k) => client(k)));
  const dt = (Date.now() - t0) / 1000;
  lat.sort((a, b) => a - b);
  const pct = (p) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))].toFixed(2);
  result = { clients, requests: lat.length, seconds: +dt.toFixed(2), rps: Math.round(lat.length / dt),
    p50_ms: +pct(0.5), p99_ms: +pct(0.99), errors, driver: 'node' };
}
console.log(JSON.stringify({ ...result, server_rss_start_kb: rss0, server_peak_rss_kb: status('VmHWM') }));

// idle connections
const socks = [];
let failedConnects = 0;
for (let i = 0; i < idleN && Date.now() < deadline; i++) {
  await new Promise((res) => {
    const s = net.connect(port, '127.0.0.1', res);
    s.on('error', () => { failedConnects++; res(); });
    socks.push(s);
  });
}
await new Promise((r) => setTimeout(r, 500));
const rssIdle = status('VmRSS');
console.log(JSON.stringify({ idle_connections: socks.length - failedConnects, failed: failedConnects, server_rss_kb: rssIdle,
  per_connection_kb: +((rssIdle - rss0) / Math.max(1, socks.length - failedConnects)).toFixed(2) }));
socks.forEach((s) => s.destroy());
srv.kill('SIGTERM');
const code = await new Promise((r) => srv.on('exit', (c, sig) => r(c ?? sig)));
console.log(JSON.stringify({ server_exit: code }));
