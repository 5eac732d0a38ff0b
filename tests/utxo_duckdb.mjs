// docs/utxo.md's DuckDB queries, run as written over `blockkit utxo dump`
// of the regtest node, checked against Core's own gettxout answers for every
// coin (tests/data/regtest/gettxout.ndjson.zst: value, address and type per
// coin, summed here independently of blockkit).
// usage: node utxo_duckdb.mjs BLOCKKIT REGTEST_ROOT SOURCE_DIR
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [blockkit, regtest, src] = process.argv.slice(2);
const require = createRequire(join(src, 'tests/npm/package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');

let failed = 0;
function check(cond, what) {
  if (!cond) { failed++; console.error('FAIL:', what); }
}

const dir = mkdtempSync(join(tmpdir(), 'bk_utxo_duckdb'));
try {
  const csv = join(dir, 'utxos.csv');
  execFileSync(blockkit, ['utxo', 'dump', '--datadir', join(regtest, 'full'), '--chain', 'regtest', '-o', csv]);

  // Core's answers: sats from the decimal text (no float rounding).
  const lines = execFileSync('zstd', ['-dc', join(src, 'tests/data/regtest/gettxout.ndjson.zst')],
                             { maxBuffer: 1 << 28 }).toString().split('\n').filter(Boolean);
  const byAddr = new Map(), byType = new Map();
  let coins = 0, total = 0n, emptyScripts = 0;
  const txids = new Set();
  for (const line of lines) {
    const core = line.slice(line.indexOf(',"core":') + 8, -1);
    if (core === 'null') continue;
    const m = /"value":(\d+)\.(\d{8})/.exec(core);
    const sats = BigInt(m[1]) * 100000000n + BigInt(m[2]);
    const o = JSON.parse(core);
    const spk = o.scriptPubKey;
    coins++; total += sats;
    if (spk.hex === '') emptyScripts++;
    txids.add(JSON.parse(line.slice(0, line.indexOf(',"n":')) + '}').txid);
    if (spk.address !== undefined) {
      const a = byAddr.get(spk.address) || { sats: 0n, coins: 0 };
      a.sats += sats; a.coins++;
      byAddr.set(spk.address, a);
    }
    const t = byType.get(spk.type) || { sats: 0n, coins: 0 };
    t.sats += sats; t.coins++;
    byType.set(spk.type, t);
  }
  check(coins === 10845, `gettxout coins ${coins}`);

  // The SQL blocks of docs/utxo.md, in order.
  const doc = readFileSync(join(src, 'docs/utxo.md'), 'utf8');
  const blocks = [...doc.matchAll(/```sql\n([\s\S]*?)```/g)].map((b) => b[1]);
  check(blocks.length === 4, `docs/utxo.md has ${blocks.length} sql blocks, expected 4`);
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const results = [];
  for (const sql of blocks) {
    const reader = await con.runAndReadAll(sql.replaceAll("'utxos.csv'", `'${csv}'`));
    results.push(reader.getRowObjectsJson());
  }
  const big = (v) => BigInt(v);

  // size of the set
  const [size] = results[1];
  check(big(size.txouts) === BigInt(coins), `txouts ${size.txouts}`);
  check(big(size.total_sats) === total && total === 1435791183632n, `total ${size.total_sats} vs ${total}`);
  check(big(size.transactions) === BigInt(txids.size) && txids.size === 3899, `transactions ${size.transactions}`);

  // balances per address: the top 20 in the query's order
  const want = [...byAddr.entries()].sort((a, b) =>
    (b[1].sats > a[1].sats) - (b[1].sats < a[1].sats) || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, 20);
  check(results[2].length === 20, `balances rows ${results[2].length}`);
  results[2].forEach((r, i) => {
    check(r.address === want[i][0] && big(r.balance_sats) === want[i][1].sats && Number(r.coins) === want[i][1].coins,
          `balance row ${i}: ${JSON.stringify(r)} vs ${want[i][0]} ${want[i][1].sats} ${want[i][1].coins}`);
  });

  // script types: every type, coins and value
  check(results[3].length === byType.size, `type rows ${results[3].length} vs ${byType.size}`);
  let pct = 0;
  for (const r of results[3]) {
    const t = byType.get(r.type);
    check(t && Number(r.coins) === t.coins && big(r.sats) === t.sats, `type ${JSON.stringify(r)}`);
    pct += Number(r.pct_coins);
  }
  check(Math.abs(pct - 100) < 0.1, `percentages sum to ${pct}`);
  check(results[3][0].type === 'nonstandard', `most coins: ${results[3][0].type}`);
  // empty scripts stay empty strings (not NULL)
  const es = await con.runAndReadAll(`SELECT count(*) FILTER (WHERE script_hex = '') AS e,
                                             count(*) FILTER (WHERE script_hex IS NULL) AS n FROM utxos`);
  const [esr] = es.getRowObjectsJson();
  check(Number(esr.e) === emptyScripts && emptyScripts > 0 && Number(esr.n) === 0,
        `empty scripts ${esr.e}/${esr.n} vs ${emptyScripts}`);
  con.closeSync?.();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(failed ? `${failed} failed` : 'ok');
process.exit(failed ? 1 : 0);
