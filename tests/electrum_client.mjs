// blockkit electrum against a real client from the npm registry,
// @mempool/electrum-client (tests/npm), over TCP and TLS.
//   node tests/electrum_client.mjs BLOCKKIT SOURCE_DIR REGTEST_DATADIR
// Always: server.version/banner/features/ping/donation_address/peers.subscribe
// and the error answers, through the client, on both ports. When the build
// has the address index (`blockkit index build`), it builds one over the
// regtest datadir and checks, for every scripthash of
// tests/data/regtest/electrum/scripthashes.ndjson.zst, get_history,
// get_balance, listunspent and the subscribe status; transaction.get for
// every transaction of getrawtransaction_v1.ndjson.zst (hex and verbose);
// get_merkle for every line of merkle.ndjson.zst; headers vs
// getblockheader.ndjson.zst. Without the index command that part is
// reported as not run (exit 0 only if the rest passed).
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync, mkdirSync, readdirSync, linkSync, cpSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { check, eq, done } from './electrum/checks.mjs';

const [blockkit, src, regtest, indexFail] = process.argv.slice(2);
const require = createRequire(path.join(src, 'tests/npm/package.json'));
const ElectrumClient = require('@mempool/electrum-client');

function ndjson(file) {
  const r = spawnSync('zstd', ['-dc', file], { maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`cannot read ${file}`);
  return r.stdout.toString().split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

function startServer(extra) {
  const args = ['electrum', '--listen', '127.0.0.1:0', '--tls-listen', '127.0.0.1:0',
    '--tls-cert', path.join(src, 'tests/data/electrum/test_cert.pem'),
    '--tls-key', path.join(src, 'tests/data/electrum/test_key.pem'), '--poll-ms', '200', ...extra];
  const p = spawn(blockkit, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let err = '';
    p.stderr.on('data', (d) => {
      err += d;
      const m = /TCP port (\d+) and TLS port (\d+)/.exec(err);
      if (m) resolve({ p, tcp: +m[1], tls: +m[2] });
    });
    p.on('exit', (code) => reject(new Error(`server exited ${code}: ${err}`)));
  });
}

async function connect(port, proto) {
  const c = new ElectrumClient(port, '127.0.0.1', proto, { rejectUnauthorized: false });
  await c.initElectrum({ client: 'blockkit-test', version: '1.4' },
    { retryPeriod: 1000, maxRetry: 0, pingPeriod: 600000, callback: null });
  return c;
}

async function serverMethods(c, proto) {
  eq(c.versionInfo[1], '1.4', `${proto} server.version protocol`);
  check(/^blockkit /.test(c.versionInfo[0]), `${proto} server.version name`);
  check(/blockkit/.test(await c.server_banner()), `${proto} banner`);
  const f = await c.server_features();
  eq([f.protocol_min, f.protocol_max, f.hash_function], ['1.4', '1.4', 'sha256'], `${proto} features`);
  // The client hands back the whole message when the result is falsy
  // (lib/client.js: msg.result || msg): null and "" are checked in it.
  const ping = await c.server_ping();
  check(ping && ping.result === null && ping.jsonrpc === '2.0', `${proto} ping`);
  const don = await c.serverDonation_address();
  check(don && don.result === '', `${proto} donation_address`);
  eq(await c.serverPeers_subscribe(), [], `${proto} peers.subscribe`);
  let msg = '';
  try { await c.request('no.such.method', []); } catch (e) { msg = String(e.message ?? e); }
  check(/unknown method/.test(msg), `${proto} unknown method refused: ${msg}`);
  msg = '';
  try { await c.request('server.banner', [1, 2]); } catch (e) { msg = String(e.message ?? e); }
  check(/parameters/.test(msg), `${proto} bad params refused: ${msg}`);
}

async function indexChecks(c) {
  const shs = ndjson(path.join(src, 'tests/data/regtest/electrum/scripthashes.ndjson.zst'));
  for (const v of shs) {
    eq(await c.blockchainScripthash_getHistory(v.scripthash), v.history, `history ${v.scripthash}`);
    eq(await c.blockchainScripthash_getBalance(v.scripthash), v.balance, `balance ${v.scripthash}`);
    eq(await c.blockchainScripthash_listunspent(v.scripthash), v.unspent, `listunspent ${v.scripthash}`);
    eq(await c.blockchainScripthash_subscribe(v.scripthash), v.status, `status ${v.scripthash}`);
    // 14,800 scripthashes: past max_subs (10,000) without unsubscribing
    eq(await c.request('blockchain.scripthash.unsubscribe', [v.scripthash]), true, `unsubscribe ${v.scripthash}`);
  }
  const txs = ndjson(path.join(src, 'tests/data/regtest/getrawtransaction_v1.ndjson.zst'));
  for (const t of txs) {
    if (!t.core) continue;
    eq(await c.blockchainTransaction_get(t.txid, false), t.core.hex, `transaction.get ${t.txid}`);
    eq(await c.blockchainTransaction_get(t.txid, true), t.core, `transaction.get verbose ${t.txid}`);
  }
  for (const m of ndjson(path.join(src, 'tests/data/regtest/electrum/merkle.ndjson.zst')))
    eq(await c.blockchainTransaction_getMerkle(m.tx_hash, m.height),
      { block_height: m.height, merkle: m.merkle, pos: m.pos }, `get_merkle ${m.tx_hash}`);
  // Headers: every active block's header hashes to Core's getblockheader hash;
  // cp_height proofs lead from it to one root.
  const dsha = (b) => createHash('sha256').update(createHash('sha256').update(b).digest()).digest();
  const active = ndjson(path.join(src, 'tests/data/regtest/getblockheader.ndjson.zst')).filter((h) => h.active);
  for (const h of active) {
    const hex = await c.request('blockchain.block.header', [h.core.height]);
    eq(Buffer.from(dsha(Buffer.from(hex, 'hex'))).reverse().toString('hex'), h.hash, `header ${h.core.height}`);
  }
  const tip = active.length - 1;
  let root = null;
  for (const height of [0, 1, 2, 7, 100, tip]) {
    const p = await c.request('blockchain.block.header', [height, tip]);
    let node = dsha(Buffer.from(p.header, 'hex')), idx = height;
    for (const sib of p.branch) {
      const s2 = Buffer.from(sib, 'hex').reverse();
      node = dsha(idx & 1 ? Buffer.concat([s2, node]) : Buffer.concat([node, s2]));
      idx >>= 1;
    }
    const r = Buffer.from(node).reverse().toString('hex');
    eq(r, p.root, `cp_height proof of ${height}`);
    if (root) eq(p.root, root, 'one cp root');
    root = p.root;
  }
  const hs = await c.request('blockchain.block.headers', [5, 10, tip]);
  eq([hs.count, hs.hex.length, hs.max, hs.root], [10, 1600, 2016, root], 'block.headers');
  const sub = await c.blockchainHeaders_subscribe();
  eq(sub.height, tip, 'headers.subscribe');
  eq(await c.request('blockchain.transaction.id_from_pos', [1, 0]), active[1].core.merkleroot, 'id_from_pos');
  return shs.length;
}

const hasIndex = spawnSync(blockkit, ['index', '--help']).status === 0;
let tmp = null, extra = [];
if (hasIndex) {
  tmp = mkdtempSync(path.join(tmpdir(), 'blockkit-electrum-'));
  const idx = path.join(tmp, 'index');
  const b = spawnSync(blockkit, ['index', 'build', '--datadir', regtest, '--index', idx], { stdio: 'inherit' });
  check(b.status === 0, 'index build');
  extra = ['--index', idx, '--datadir', regtest];
}
const srv = await startServer(extra);
try {
  for (const [port, proto] of [[srv.tcp, 'tcp'], [srv.tls, 'tls']]) {
    const c = await connect(port, proto);
    await serverMethods(c, proto);
    if (hasIndex && proto === 'tcp') console.log(`${await indexChecks(c)} scripthashes checked`);
    c.close();
  }
  if (!hasIndex) console.log('the index checks did not run: this build has no `blockkit index`');
} finally {
  srv.p.kill('SIGTERM');
  await new Promise((r) => srv.p.on('exit', (code, sig) => { check(code === 143, `SIGTERM exit ${code} ${sig}`); r(); }));
}
// A new tip: an index of a chain that a reorg cut at 579 (index-fail marks
// block 574 invalid in a copy of the block index), served, then updated to
// the node's tip 939 by `blockkit index update` beside the server: the
// headers and the status notifications must arrive.
if (hasIndex && indexFail) {
  const R = path.join(tmp, 'reorg'), blocks = path.join(regtest, 'regtest/blocks');
  mkdirSync(path.join(R, 'regtest/blocks'), { recursive: true });
  for (const f of readdirSync(blocks).filter((f) => f.endsWith('.dat'))) {
    try { linkSync(path.join(blocks, f), path.join(R, 'regtest/blocks', f)); } catch { cpSync(path.join(blocks, f), path.join(R, 'regtest/blocks', f)); }
  }
  cpSync(path.join(blocks, 'index'), path.join(R, 'regtest/blocks/index'), { recursive: true });
  const f = spawnSync(indexFail, [path.join(R, 'regtest/blocks/index'), '574'],
    { input: readFileSync(path.join(src, 'tests/data/regtest/bestchain.tsv')) });
  check(f.status === 0, 'index-fail');
  const idx2 = path.join(tmp, 'index2');
  check(spawnSync(blockkit, ['index', 'build', '--datadir', R, '--index', idx2]).status === 0, 'index build at 579');
  const s2 = await startServer(['--index', idx2, '--datadir', regtest]);
  try {
    const c = await connect(s2.tcp, 'tcp');
    const shs = ndjson(path.join(src, 'tests/data/regtest/electrum/scripthashes.ndjson.zst'));
    const late = shs.find((v) => v.history.length && v.history.every((h) => h.height > 600));
    const got = { header: null, status: null };
    c.subscribe.on('blockchain.headers.subscribe', (p) => { got.header = p[0]; });
    c.subscribe.on('blockchain.scripthash.subscribe', (p) => { if (p[0] === late.scripthash) got.status = p[1]; });
    eq((await c.blockchainHeaders_subscribe()).height, 579, 'tip before the update');
    const before = await c.blockchainScripthash_subscribe(late.scripthash);
    check(before === null || (before && before.result === null), 'no history at 579');
    // Asked twice at 579: the second answers are the server's kept ones,
    // which the new tip must retire.
    for (let k = 0; k < 2; k++) {
      eq(await c.blockchainScripthash_getHistory(late.scripthash), [], `history at 579 (${k})`);
      eq(await c.blockchainScripthash_getBalance(late.scripthash), { confirmed: 0, unconfirmed: 0 }, `balance at 579 (${k})`);
      eq(await c.blockchainScripthash_listunspent(late.scripthash), [], `coins at 579 (${k})`);
    }
    const u = spawnSync(blockkit, ['index', 'update', '--datadir', regtest, '--index', idx2]);
    check(u.status === 0, 'index update to 939');
    for (let i = 0; i < 100 && !(got.header && got.status); i++) await new Promise((r) => setTimeout(r, 100));
    eq(got.header && got.header.height, 939, 'headers notification at the new tip');
    eq(got.status, late.status, 'scripthash status notification');
    eq(await c.blockchainScripthash_getHistory(late.scripthash), late.history, 'history after the update');
    eq(await c.blockchainScripthash_getBalance(late.scripthash), late.balance, 'balance after the update');
    eq(await c.blockchainScripthash_listunspent(late.scripthash), late.unspent, 'coins after the update');
    c.close();
  } finally {
    s2.p.kill('SIGTERM');
    await new Promise((r) => s2.p.on('exit', r));
  }
}
if (tmp) rmSync(tmp, { recursive: true, force: true });
done();
