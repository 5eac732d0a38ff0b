// --profile lean and --columns / --exclude-columns read back by DuckDB,
// hyparquet and parquet-wasm: every row of every chunk equals the default
// profile's row of the same export (read by the same reader), with binary
// values as their lowercase hex (hashes are stored in Core's display
// order, so hex(col) is the default profile's text) and the columns the
// profile or the selection leaves out left out; the column names and order
// are the ones `export --schema` prints for the same options.
// usage: node check_profiles.mjs BLOCKKIT TMP -- SOURCE-ARGS...
import { execFileSync } from 'node:child_process';
import { readdirSync, rmSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { readDuck, readHyp, readWasm } from './readers.mjs';
import { fileURLToPath } from 'node:url';

const hyparquet = await import(path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'npm', 'node_modules', 'hyparquet/src/index.js'));

const argv = process.argv.slice(2);
const [bk, tmp] = argv;
const src = argv.slice(argv.indexOf('--') + 1);
let fails = 0;
const fail = m => { console.error('FAIL: ' + m); fails++; };
rmSync(tmp, { recursive: true, force: true });
mkdirSync(tmp, { recursive: true });
const all = ['--datasets', 'all,block_stats,block_filters'];
const selection = ['--columns', 'blocks.hash,blocks.number,blocks.chainwork,inputs.witness,inputs.value,inputs.address',
  '--exclude-columns', 'outputs.desc,outputs.script_asm,transactions.wtxid'];
const runs = {
  default: [],
  lean: ['--profile', 'lean'],
  selected: selection,
  lean_selected: ['--profile', 'lean', ...selection],
};
for (const [name, opts] of Object.entries(runs))
  execFileSync(bk, ['export', ...src, ...all, ...opts, '--out', path.join(tmp, name), '--chunk-size', '300', '-j', '2',
    '--progress', 'never'], { stdio: ['ignore', 'ignore', 'inherit'] });
const schema = opts => {
  const cols = {};
  for (const l of execFileSync(bk, ['export', '--schema', ...all, ...opts]).toString().trim().split('\n')) {
    const [dc, ptype] = l.split('\t');
    const [ds, col] = dc.split('.');
    (cols[ds] ||= []).push([col, ptype]);
  }
  return cols;
};
const readers = { duckdb: readDuck, hyparquet: readHyp, 'parquet-wasm': readWasm };
let files = 0, rows = 0;
const def = schema([]);
for (const [name, opts] of Object.entries(runs)) {
  if (name === 'default') continue;
  const want = schema(opts);
  for (const ds of Object.keys(def)) {
    const cols = want[ds].map(([c]) => c);
    if (name.startsWith('lean')) {
      if (want[ds].some(([c]) => c === 'script_asm' || c === 'desc')) fail(`${name}: ${ds} keeps a derived column`);
      if (ds === 'blocks' && !want[ds].some(([c, t]) => c === 'hash' && t === 'FIXED_LEN_BYTE_ARRAY(32)')) fail(`${name}: blocks.hash not FLBA(32)`);
    }
    for (const f of readdirSync(path.join(tmp, name, ds)).filter(n => n.endsWith('.parquet')).sort()) {
      for (const [rn, read] of Object.entries(readers)) {
        const got = await read(path.join(tmp, name, ds, f));
        const ref = await read(path.join(tmp, 'default', ds, f));
        if (got.length !== ref.length) { fail(`${name}/${ds}/${f} (${rn}): ${got.length} rows, default ${ref.length}`); continue; }
        for (let i = 0; i < got.length; i++) {
          const g = got[i];
          if (JSON.stringify(Object.keys(g)) !== JSON.stringify(cols)) { fail(`${name}/${ds}/${f} (${rn}): columns ${Object.keys(g)} want ${cols}`); break; }
          const r = Object.fromEntries(cols.map(c => [c, ref[i][c]]));
          if (JSON.stringify(g) !== JSON.stringify(r)) { fail(`${name}/${ds}/${f} row ${i} (${rn}): ${JSON.stringify(g).slice(0, 300)} != ${JSON.stringify(r).slice(0, 300)}`); break; }
        }
        rows += got.length;
      }
      files++;
    }
  }
}
// The UTXO set (--datasets utxos --profile lean): txid and script_hex as
// bytes, no desc; every other column as the default's, row for row.
for (const prof of ['default', 'lean'])
  execFileSync(bk, ['export', ...src, '--datasets', 'utxos', '--profile', prof, '--chunk-rows', '4000',
    '--out', path.join(tmp, `utxos_${prof}`), '-j', '2', '--progress', 'never'], { stdio: ['ignore', 'ignore', 'inherit'] });
// each utxos chunk's footer names its rows and the set's block (the regtest tip)
{
  const { readFileSync } = await import('node:fs');
  for (const f of readdirSync(path.join(tmp, 'utxos_lean', 'utxos')).filter(n => n.endsWith('.parquet'))) {
    const [, a, b] = f.match(/_(\d{8})_(\d{8})\.parquet$/);
    const buf = readFileSync(path.join(tmp, 'utxos_lean', 'utxos', f));
    const meta = hyparquet.parquetMetadata(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
    const kv = Object.fromEntries((meta.key_value_metadata || []).map(({ key, value }) => [key, value]));
    const want = { 'blockkit.dataset': 'utxos', 'blockkit.network': 'regtest', 'blockkit.first_row': String(Number(a)),
      'blockkit.last_row': String(Number(b)), 'blockkit.rows': String(Number(b) - Number(a) + 1),
      'blockkit.best_block': '50829bd798e2b4f7250a3bab265872810fed4fe420af414c67b9e37ab4f614c6' };
    for (const [k, v] of Object.entries(want)) if (kv[k] !== v) fail(`utxos ${f}: footer ${k} = ${kv[k]}, want ${v}`);
  }
}
for (const f of readdirSync(path.join(tmp, 'utxos_default', 'utxos')).filter(n => n.endsWith('.parquet')).sort()) {
  for (const [rn, read] of Object.entries(readers)) {
    const ref = await read(path.join(tmp, 'utxos_default', 'utxos', f));
    const got = await read(path.join(tmp, 'utxos_lean', 'utxos', f));
    const cols = Object.keys(ref[0]).filter(c => c !== 'desc');
    const leanSchema = execFileSync(bk, ['export', '--schema', '--datasets', 'utxos', '--profile', 'lean']).toString()
      .trim().split('\n').map(l => l.split('\t')[0].slice('utxos.'.length));
    if (JSON.stringify(leanSchema) !== JSON.stringify(cols)) fail(`utxos --schema --profile lean: ${leanSchema} want ${cols}`);
    if (got.length !== ref.length || got.length === 0) { fail(`utxos ${f} (${rn}): ${got.length} rows, default ${ref.length}`); continue; }
    for (let i = 0; i < got.length; i++) {
      const r = Object.fromEntries(cols.map(c => [c, ref[i][c]]));
      if (JSON.stringify(got[i]) !== JSON.stringify(r)) { fail(`utxos ${f} row ${i} (${rn}): ${JSON.stringify(got[i]).slice(0, 300)} != ${JSON.stringify(r).slice(0, 300)}`); break; }
    }
    rows += got.length;
  }
  files++;
}
if (files < 63) fail(`only ${files} files compared`);

// The DuckDB queries over lean tables in docs/export.md ("Profiles and
// columns"), each against the same question asked of the default tables.
{
  const { readFileSync } = await import('node:fs');
  const { duck } = await import('./readers.mjs');
  const doc = readFileSync(path.join(path.dirname(new URL(import.meta.url).pathname), '..', '..', 'docs', 'export.md'), 'utf8');
  const c = await duck();
  const q = async (text, dir) => {
    if (dir === 'lean' && !doc.includes(text)) fail(`query not in docs/export.md: ${text}`);
    const r = await c.runAndReadAll(text.replaceAll("'lean/", `'${path.join(tmp, dir)}/`));
    return JSON.stringify(r.getRowObjectsJson());
  };
  const pairs = [
    ["SELECT lower(hex(hash)) AS hash, number FROM 'lean/blocks/*.parquet' ORDER BY number DESC LIMIT 1;",
     "SELECT hash, number FROM 'lean/blocks/*.parquet' ORDER BY number DESC LIMIT 1;"],
    ["SELECT number FROM 'lean/blocks/*.parquet' WHERE hash = unhex('50829bd798e2b4f7250a3bab265872810fed4fe420af414c67b9e37ab4f614c6');",
     "SELECT number FROM 'lean/blocks/*.parquet' WHERE hash = '50829bd798e2b4f7250a3bab265872810fed4fe420af414c67b9e37ab4f614c6';"],
    ["SELECT count(*) AS spends FROM 'lean/inputs/*.parquet' i JOIN 'lean/transactions/*.parquet' t ON i.spent_transaction_hash = t.hash;",
     "SELECT count(*) AS spends FROM 'lean/inputs/*.parquet' i JOIN 'lean/transactions/*.parquet' t ON i.spent_transaction_hash = t.hash;"],
    ["SELECT type, count(*) AS outputs, sum(value) AS sats FROM 'lean/outputs/*.parquet' GROUP BY type ORDER BY outputs DESC, type;",
     "SELECT type, count(*) AS outputs, sum(value) AS sats FROM 'lean/outputs/*.parquet' GROUP BY type ORDER BY outputs DESC, type;"],
  ];
  for (const [lq, dq] of pairs) {
    const a = await q(lq, 'lean'), b = await q(dq, 'default');
    if (a !== b || a === '[]') fail(`lean query ${lq}: ${a.slice(0, 200)} != default ${b.slice(0, 200)}`);
  }
  if (!(await q(pairs[1][0], 'lean')).includes('939')) fail('lookup by unhex() did not find height 939');
}
if (fails) process.exit(1);
console.log(`ok: ${files} lean / selected Parquet files, ${rows} rows over three readers, equal to the default profile's`);
