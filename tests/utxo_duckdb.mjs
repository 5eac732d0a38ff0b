// docs/utxo.md's DuckDB queries, run as written over `blockkit utxo dump`
// of the regtest node, checked against Core's own gettxout answers for every
// coin (tests/data/regtest/gettxout.ndjson.zst: value, address and type per
// coin, summed here independently of blockkit).
// Then `blockkit export --datasets utxos` of the chainstate and of the
// snapshot, in chunks, read back with DuckDB: every row equals Core's gettxout
// for that outpoint (value, height from confirmations, coinbase, hex, type,
// address, desc), the two sources give the same rows, rows come in key
// order, and the files are named and replaced as docs/utxo.md says.
// usage: node utxo_duckdb.mjs BLOCKKIT REGTEST_ROOT SOURCE_DIR
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
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

  // ---- export --datasets utxos, both sources, to chunked Parquet ----
  const coreByOutpoint = new Map();
  for (const line of lines) {
    const core = line.slice(line.indexOf(',"core":') + 8, -1);
    if (core === 'null') continue;
    const head = JSON.parse(line.slice(0, line.indexOf(',"include_mempool":')) + '}');
    const m = /"value":(\d+)\.(\d{8})/.exec(core);
    coreByOutpoint.set(`${head.txid}:${head.n}`, { o: JSON.parse(core), sats: BigInt(m[1]) * 100000000n + BigInt(m[2]) });
  }
  const tip = JSON.parse(readFileSync(join(src, 'tests/data/regtest/getblockchaininfo.json'), 'utf8')).blocks;
  const snap = join(dir, 'utxo_snapshot.dat');
  writeFileSync(snap, execFileSync('zstd', ['-dc', join(src, 'tests/data/regtest/utxo_snapshot.dat.zst')],
                                   { maxBuffer: 1 << 28 }));
  const xc = join(dir, 'xc'), xs = join(dir, 'xs');
  execFileSync(blockkit, ['export', '--datasets', 'utxos', '--datadir', join(regtest, 'full'), '--chain', 'regtest',
                          '--out', xc, '--chunk-rows', '4000', '-j', '2']);
  execFileSync(blockkit, ['export', '--datasets', 'utxos', '--utxo-snapshot', snap, '--out', xs,
                          '--chunk-rows', '4000', '-j', '1', '--compression', 'snappy']);
  const names = ['utxos_00000000_00003999.parquet', 'utxos_00004000_00007999.parquet', 'utxos_00008000_00010844.parquet'];
  check(JSON.stringify(readdirSync(join(xc, 'utxos')).sort()) === JSON.stringify(names),
        `export file names ${readdirSync(join(xc, 'utxos'))}`);
  check(JSON.stringify(readdirSync(join(xs, 'utxos')).sort()) === JSON.stringify(names),
        `snapshot export file names ${readdirSync(join(xs, 'utxos'))}`);
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  for (const [name, d] of [['chainstate', xc], ['snapshot', xs]]) {
    const r = await con.runAndReadAll(`SELECT * FROM read_parquet('${d}/utxos/*.parquet', filename = true,
                                       file_row_number = true) ORDER BY filename, file_row_number`);
    const rows = r.getRowObjectsJson();
    check(rows.length === coreByOutpoint.size, `${name}: ${rows.length} rows vs ${coreByOutpoint.size}`);
    const seen = new Set();
    let prevKey = '', ordered = true, bad = 0;
    for (const row of rows) {
      const key = `${row.txid}:${row.vout}`;
      const c = coreByOutpoint.get(key);
      seen.add(key);
      // key order: txid bytes as stored (the hex reversed), then vout
      const stored = row.txid.match(/../g).reverse().join('') + String(row.vout).padStart(10, '0');
      if (stored < prevKey) ordered = false;
      prevKey = stored;
      const spk = c && c.o.scriptPubKey;
      const ok = c && BigInt(row.value) === c.sats && Number(row.height) === tip - c.o.confirmations + 1 &&
        row.is_coinbase === c.o.coinbase && row.script_hex === spk.hex && row.type === spk.type &&
        row.address === (spk.address === undefined ? null : spk.address) && row.desc === spk.desc;
      if (!ok && bad++ < 5) console.error(`${name}: ${JSON.stringify(row)} vs ${c && JSON.stringify(c.o)}`);
    }
    check(bad === 0, `${name}: ${bad} rows differ from Core's gettxout`);
    check(seen.size === coreByOutpoint.size, `${name}: ${seen.size} distinct outpoints`);
    check(ordered, `${name}: rows not in key order`);
  }
  const same = await con.runAndReadAll(`SELECT count(*) AS n FROM (
      (SELECT * FROM read_parquet('${xc}/utxos/*.parquet') EXCEPT ALL SELECT * FROM read_parquet('${xs}/utxos/*.parquet'))
      UNION ALL
      (SELECT * FROM read_parquet('${xs}/utxos/*.parquet') EXCEPT ALL SELECT * FROM read_parquet('${xc}/utxos/*.parquet')))`);
  check(Number(same.getRowObjectsJson()[0].n) === 0, 'chainstate and snapshot exports differ');
  // the export's rows are utxo dump's rows
  const dumpSame = await con.runAndReadAll(`SELECT count(*) AS n FROM (SELECT * FROM read_parquet('${xc}/utxos/*.parquet')
      EXCEPT ALL SELECT * FROM read_parquet('${pq}'))`);
  check(Number(dumpSame.getRowObjectsJson()[0].n) === 0, 'export rows differ from utxo dump rows');
  // a rerun with other chunks replaces the files: exactly the new ones remain
  execFileSync(blockkit, ['export', '--datasets', 'utxos', '--datadir', join(regtest, 'full'), '--chain', 'regtest',
                          '--out', xc, '--chunk-rows', '100000']);
  check(JSON.stringify(readdirSync(join(xc, 'utxos'))) === JSON.stringify(['utxos_00000000_00010844.parquet']),
        `rerun left ${readdirSync(join(xc, 'utxos'))}`);
  // CSV and NDJSON through the same writer
  for (const fmt of ['csv', 'ndjson']) {
    execFileSync(blockkit, ['export', '--datasets', 'utxos', '--utxo-snapshot', snap, '--out', xs, '--format', fmt,
                            '--chunk-rows', '6000']);
    const reader = fmt === 'csv'
      ? `read_csv('${xs}/utxos/*.csv', header = true, allow_quoted_nulls = false, columns = {
          'txid': 'VARCHAR', 'vout': 'BIGINT', 'value': 'BIGINT', 'height': 'INTEGER', 'is_coinbase': 'BOOLEAN',
          'script_hex': 'VARCHAR', 'type': 'VARCHAR', 'address': 'VARCHAR', 'desc': 'VARCHAR'})`
      : `read_json('${xs}/utxos/*.ndjson', format = 'newline_delimited', columns = {
          'txid': 'VARCHAR', 'vout': 'BIGINT', 'value': 'BIGINT', 'height': 'INTEGER', 'is_coinbase': 'BOOLEAN',
          'script_hex': 'VARCHAR', 'type': 'VARCHAR', 'address': 'VARCHAR', 'desc': 'VARCHAR'})`;
    const t = await con.runAndReadAll(`SELECT count(*) AS n, (SELECT count(*) FROM (SELECT * FROM ${reader}
        EXCEPT ALL SELECT * FROM read_parquet('${xc}/utxos/*.parquet'))) AS d FROM ${reader}`);
    const [tr] = t.getRowObjectsJson();
    check(Number(tr.n) === coreByOutpoint.size && Number(tr.d) === 0, `${fmt} export: ${JSON.stringify(tr)}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(failed ? `${failed} failed` : 'ok');
process.exit(failed ? 1 : 0);
