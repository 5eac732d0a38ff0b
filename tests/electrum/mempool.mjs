// The mempool rows of blockkit electrum (--rpc-url), through
// @mempool/electrum-client, against a JSON-RPC responder standing in for
// the node: it checks the Basic auth header of every call and answers
// getrawmempool and getrawtransaction with two transactions made here from
// the regtest vectors: tx1 spends a confirmed coin of script A, paying B
// and A (change); tx2 spends tx1's output to B, paying A. Every answer
// expected is computed here from the vectors (tests/data/regtest/electrum)
// and Electrum's rules: get_mempool, get_history (confirmed + mempool,
// height 0 / -1, fee), get_balance's unconfirmed, listunspent, the status,
// mempool.get_fee_histogram;
// then tx2 leaves the mempool and the status notification must follow.
//   node tests/electrum/mempool.mjs BLOCKKIT SOURCE_DIR REGTEST_DATADIR
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { check, eq, done } from './checks.mjs';

const [blockkit, src, regtest] = process.argv.slice(2);
const require = createRequire(path.join(src, 'tests/npm/package.json'));
const ElectrumClient = require('@mempool/electrum-client');

const sha256 = (b) => createHash('sha256').update(b).digest();
const rev = (hex) => Buffer.from(hex, 'hex').reverse();
const u32 = (n) => { const b = Buffer.alloc(4); b.writeUInt32LE(n); return b; };
const u64 = (n) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(n)); return b; };
const varint = (n) => { if (n >= 0xfd) throw new Error('short scripts only'); return Buffer.from([n]); };
// A version-2 transaction without witness (signatures play no part here).
function rawTx(ins, outs) {
  const parts = [u32(2), varint(ins.length)];
  for (const i of ins) parts.push(rev(i.txid), u32(i.vout), varint(0), u32(0xffffffff));
  parts.push(varint(outs.length));
  for (const o of outs) { const s = Buffer.from(o.script, 'hex'); parts.push(u64(o.value), varint(s.length), s); }
  parts.push(u32(0));
  const raw = Buffer.concat(parts);
  return { hex: raw.toString('hex'), txid: sha256(sha256(raw)).reverse().toString('hex') };
}
// Electrum's status: sha256 of "tx_hash:height:" over the history, or null.
const status = (h) => (h.length ? sha256(h.map((e) => `${e.tx_hash}:${e.height}:`).join('')).toString('hex') : null);

const vectors = spawnSync('zstd', ['-dc', path.join(src, 'tests/data/regtest/electrum/scripthashes.ndjson.zst')],
  { maxBuffer: 1 << 30 }).stdout.toString().split('\n').filter(Boolean).map((l) => JSON.parse(l));
const A = vectors.find((v) => v.unspent.length >= 2 && v.history.length < 40 && v.script.length < 200);
const B = vectors.find((v) => v !== A && v.history.length >= 1 && v.history.length < 40 && v.script.length < 200);
check(A && B, 'two scripts of the vectors');
eq(status(A.history), A.status, 'the status rule, on the vector');

const coin = A.unspent[0];
const tx1 = rawTx([{ txid: coin.tx_hash, vout: coin.tx_pos }],
  [{ script: B.script, value: 1000 }, { script: A.script, value: coin.value - 1500 }]);
const tx2 = rawTx([{ txid: tx1.txid, vout: 0 }], [{ script: A.script, value: 700 }]);
const e1 = { tx_hash: tx1.txid, height: 0, fee: 500 }, e2 = { tx_hash: tx2.txid, height: -1, fee: 300 };

// The node stand-in.
const cookie = '__cookie__:s3cret-for-the-test';
let mempool = [tx1, tx2], authBad = 0, calls = 0;
const node = http.createServer((req, res) => {
  let body = '';
  req.on('data', (d) => { body += d; });
  req.on('end', () => {
    calls++;
    if (req.headers.authorization !== 'Basic ' + Buffer.from(cookie).toString('base64')) authBad++;
    const q = JSON.parse(body);
    let result = null, error = null;
    if (q.method === 'getrawmempool') result = mempool.map((t) => t.txid);
    else if (q.method === 'getrawtransaction') {
      const t = mempool.find((x) => x.txid === q.params[0]);
      if (t) result = t.hex; else error = { code: -5, message: 'No such mempool or blockchain transaction' };
    } else error = { code: -32601, message: 'Method not found' };
    const out = JSON.stringify({ result, error, id: q.id });
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(out) });
    res.end(out);
  });
});
await new Promise((r) => node.listen(0, '127.0.0.1', r));

const tmp = mkdtempSync(path.join(tmpdir(), 'bk-mempool-'));
const ix = path.join(tmp, 'ix'), cookieFile = path.join(tmp, 'cookie');
writeFileSync(cookieFile, cookie, { mode: 0o600 });
check(spawnSync(blockkit, ['index', 'build', '--datadir', regtest, '--index', ix]).status === 0, 'index build');
const p = spawn(blockkit, ['electrum', '--listen', '127.0.0.1:0', '--index', ix, '--datadir', regtest, '--poll-ms', '100',
  '--rpc-url', `http://127.0.0.1:${node.address().port}`, '--rpc-cookie', cookieFile], { stdio: ['ignore', 'ignore', 'pipe'] });
const port = await new Promise((resolve, reject) => {
  let err = '';
  p.stderr.on('data', (d) => { err += d; const m = /TCP port (\d+)/.exec(err); if (m) resolve(+m[1]); });
  p.on('exit', (code) => reject(new Error(`server exited ${code}: ${err}`)));
});
const c = new ElectrumClient(port, '127.0.0.1', 'tcp');
await c.initElectrum({ client: 'blockkit-test', version: '1.4' }, { retryPeriod: 1000, maxRetry: 0, pingPeriod: 600000, callback: null });
const until = async (f, what) => {
  for (let i = 0; i < 100; i++) { if (await f()) return; await new Promise((r) => setTimeout(r, 100)); }
  check(false, `timed out: ${what}`);
};
try {
  await until(async () => (await c.blockchainScripthash_getMempool(A.scripthash)).length === 2, 'the mempool polled');
  eq(await c.blockchainScripthash_getMempool(A.scripthash), [e1, e2], 'A get_mempool');
  eq(await c.blockchainScripthash_getMempool(B.scripthash), [e1, e2], 'B get_mempool');
  // mempool.h's histogram: both under one 100,000 vB tranche, its rate the lower one
  const v1 = tx1.hex.length / 2, v2 = tx2.hex.length / 2, rate = (f, v) => Math.floor(f / v);
  eq(await c.mempool_getFeeHistogram(), [[Math.min(rate(500, v1), rate(300, v2)), v1 + v2]], 'fee histogram');
  const hA = [...A.history, e1, e2], hB = [...B.history, e1, e2];
  for (let k = 0; k < 2; k++) {   // the second time from the kept answers
    eq(await c.blockchainScripthash_getHistory(A.scripthash), hA, `A history (${k})`);
    eq(await c.blockchainScripthash_getHistory(B.scripthash), hB, `B history (${k})`);
    eq(await c.blockchainScripthash_getBalance(A.scripthash), { confirmed: A.balance.confirmed, unconfirmed: -800 }, `A balance (${k})`);
    eq(await c.blockchainScripthash_getBalance(B.scripthash), { confirmed: B.balance.confirmed, unconfirmed: 0 }, `B balance (${k})`);
    eq(await c.blockchainScripthash_listunspent(A.scripthash), [...A.unspent.slice(1),
      { tx_hash: tx1.txid, tx_pos: 1, height: 0, value: coin.value - 1500 }, { tx_hash: tx2.txid, tx_pos: 0, height: 0, value: 700 }],
    `A listunspent (${k})`);
    eq(await c.blockchainScripthash_listunspent(B.scripthash), B.unspent, `B listunspent (${k})`);
  }
  let note = null;
  c.subscribe.on('blockchain.scripthash.subscribe', (q) => { if (q[0] === A.scripthash) note = q[1]; });
  eq(await c.blockchainScripthash_subscribe(A.scripthash), status(hA), 'A status with the mempool');
  mempool = [tx1];   // tx2 leaves
  await until(() => note !== null, 'the status notification');
  eq(note, status([...A.history, e1]), 'A status notified after tx2 left');
  eq(await c.blockchainScripthash_getHistory(A.scripthash), [...A.history, e1], 'A history after tx2 left');
  eq(await c.blockchainScripthash_getBalance(A.scripthash), { confirmed: A.balance.confirmed, unconfirmed: -1500 },
    'A balance after tx2 left');
  eq(await c.mempool_getFeeHistogram(), [[rate(500, v1), v1]], 'fee histogram after tx2 left');
  check(calls > 0 && authBad === 0, `every node call had the cookie's Basic auth (${calls} calls, ${authBad} without)`);
} finally {
  c.close();
  p.kill('SIGTERM');
  const code = await new Promise((r) => p.on('exit', (x) => r(x)));
  check(code === 143, `SIGTERM exit ${code}`);
  node.close();
  rmSync(tmp, { recursive: true, force: true });
}
done();
