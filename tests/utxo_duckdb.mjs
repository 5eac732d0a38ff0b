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
  const csv = join(dir, 'utxos.csv'), pq = join(dir, 'utxos.parquet');
  execFileSync(blockkit, ['utxo', 'dump', '--datadir', join(regtest, 'full'), '--chain', 'regtest', '-o', csv]);
  execFileSync(blockkit, ['utxo', 'dump', '--datadir', join(regtest, 'full'), '--chain', 'regtest',
                          '--format', 'parquet', '-o', pq]);

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

  // The SQL blocks of docs/utxo.md, in order: load CSV, load Parquet, then
  // the queries, run over each load.
  const doc = readFileSync(join(src, 'docs/utxo.md'), 'utf8');
  const blocks = [...doc.matchAll(/```sql\n([\s\S]*?)```/g)].map((b) => b[1]);
  check(blocks.length === 5, `docs/utxo.md has ${blocks.length} sql blocks, expected 5`);
  const big = (v) => BigInt(v);
  for (const [name, load] of [['csv', blocks[0]], ['parquet', blocks[1]]]) {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  await con.run(load.replaceAll("'utxos.csv'", `'${csv}'`).replaceAll("'utxos.parquet'", `'${pq}'`));
  const results = [null];
  for (const sql of blocks.slice(2)) {
    const reader = await con.runAndReadAll(sql);
    results.push(reader.getRowObjectsJson());
  }

  // size of the set
  const [size] = results[1];
  check(big(size.txouts) === BigInt(coins), `${name}: txouts ${size.txouts}`);
  check(big(size.total_sats) === total && total === 1435791183632n, `${name}: total ${size.total_sats} vs ${total}`);
  check(big(size.transactions) === BigInt(txids.size) && txids.size === 3899, `${name}: transactions ${size.transactions}`);

  // balances per address: the top 20 in the query's order
  const want = [...byAddr.entries()].sort((a, b) =>
    (b[1].sats > a[1].sats) - (b[1].sats < a[1].sats) || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, 20);
  check(results[2].length === 20, `${name}: balances rows ${results[2].length}`);
  results[2].forEach((r, i) => {
    check(r.address === want[i][0] && big(r.balance_sats) === want[i][1].sats && Number(r.coins) === want[i][1].coins,
          `${name}: balance row ${i}: ${JSON.stringify(r)} vs ${want[i][0]} ${want[i][1].sats} ${want[i][1].coins}`);
  });

  // script types: every type, coins and value
  check(results[3].length === byType.size, `${name}: type rows ${results[3].length} vs ${byType.size}`);
  let pct = 0;
  for (const r of results[3]) {
    const t = byType.get(r.type);
    check(t && Number(r.coins) === t.coins && big(r.sats) === t.sats, `${name}: type ${JSON.stringify(r)}`);
    pct += Number(r.pct_coins);
  }
  check(Math.abs(pct - 100) < 0.1, `${name}: percentages sum to ${pct}`);
  check(results[3][0].type === 'nonstandard', `${name}: most coins: ${results[3][0].type}`);
  // empty scripts stay empty strings (not NULL) through both formats
  const es = await con.runAndReadAll(`SELECT count(*) FILTER (WHERE script_hex = '') AS e,
                                             count(*) FILTER (WHERE script_hex IS NULL) AS n FROM utxos`);
  const [esr] = es.getRowObjectsJson();
  check(Number(esr.e) === emptyScripts && emptyScripts > 0 && Number(esr.n) === 0,
        `${name}: empty scripts ${esr.e}/${esr.n} vs ${emptyScripts}`);
  // every row equal between the two files
  if (name === 'parquet') {
    const diff = await con.runAndReadAll(`SELECT count(*) AS n FROM (SELECT * FROM utxos EXCEPT ALL
      SELECT * FROM read_csv('${csv}', header = true, allow_quoted_nulls = false, columns = {
        'txid': 'VARCHAR', 'vout': 'BIGINT', 'value': 'BIGINT', 'height': 'INTEGER', 'is_coinbase': 'BOOLEAN',
        'script_hex': 'VARCHAR', 'type': 'VARCHAR', 'address': 'VARCHAR', 'desc': 'VARCHAR'}))`);
    check(Number(diff.getRowObjectsJson()[0].n) === 0, 'parquet rows differ from csv rows');
  }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(failed ? `${failed} failed` : 'ok');
process.exit(failed ? 1 : 0);
