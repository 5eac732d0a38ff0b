// node check_export.mjs --bk BLOCKKIT --tmp DIR [--core FILE.ndjson.zst] [--queries] -- EXPORT-SOURCE-ARGS...
//
// Exports the source (e.g. --blocksdir D --orphans) as Parquet with zstd,
// snappy and no compression, as CSV and as NDJSON. Then, per dataset:
//  - every Parquet chunk read by DuckDB, hyparquet and parquet-wasm (zstd),
//    hyparquet (snappy) and parquet-wasm (none) gives the
//    same rows, and so do the CSV and NDJSON chunks of the same range;
//  - those rows agree field by field with getblock verbosity 3 JSON: Core's
//    own answers (--core) or `blockkit scan --verbosity 3` of the same
//    source: satoshis = BTC x 1e8 exactly (from the JSON number's text),
//    input values = prevout values, fee = inputs - outputs per transaction;
//  - with --queries, the analyst queries of docs/export.md give the fees of
//    the three vector blocks (sample directory only).
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, rmSync, mkdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { duck, readDuck, readHyp, readWasm, parseCsv } from './readers.mjs';

const argv = process.argv.slice(2);
const sep = argv.indexOf('--');
const opts = argv.slice(0, sep < 0 ? argv.length : sep);
const src = sep < 0 ? [] : argv.slice(sep + 1);
const opt = name => { const i = opts.indexOf(name); return i < 0 ? null : opts[i + 1]; };
const bk = opt('--bk'), tmp = opt('--tmp'), coreFile = opt('--core');
const queries = opts.includes('--queries');
const orphans = src.includes('--orphans');
let failures = 0;
function fail(msg) { console.error('FAIL: ' + msg); failures++; if (failures > 20) process.exit(1); }

rmSync(tmp, { recursive: true, force: true });
mkdirSync(tmp, { recursive: true });
const runs = {
  zstd: ['--format', 'parquet', '--compression', 'zstd'],
  snappy: ['--format', 'parquet', '--compression', 'snappy'],
  none: ['--format', 'parquet', '--compression', 'none'],
  csv: ['--format', 'csv'],
  ndjson: ['--format', 'ndjson'],
};
for (const [name, args] of Object.entries(runs))
  execFileSync(bk, ['export', ...src, '--out', path.join(tmp, name), '-j2', '--progress', 'never', ...args], { stdio: 'inherit' });

const DATASETS = ['blocks', 'transactions', 'inputs', 'outputs'];
const files = (run, ds) => {
  const d = path.join(tmp, run, ds);
  return existsSync(d) ? readdirSync(d).filter(f => !f.includes('.tmp-')).sort().map(f => path.join(d, f)) : [];
};

// Column types from DuckDB, to read the text formats.
async function types(file) {
  const c = await duck();
  const r = await c.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${file}')`);
  return Object.fromEntries(r.getRowObjectsJson().map(o => [o.column_name, o.column_type]));
}
const tsMicros = s => (BigInt(Date.parse(s.replace(' ', 'T') + 'Z')) * 1000n).toString();
function fromText(v, t) {
  if (v === null) return null;
  if (t === 'BIGINT' || t === 'INTEGER') return String(v);
  if (t === 'BOOLEAN') return v === true || v === 'true';
  if (t.startsWith('TIMESTAMP')) return tsMicros(v);
  if (t.endsWith('[]')) return typeof v === 'string' ? JSON.parse(v) : v;
  return v;
}

const all = {};
for (const ds of DATASETS) {
  const pz = files('zstd', ds);
  const names = pz.map(f => path.basename(f, '.parquet'));
  for (const run of ['snappy', 'none', 'csv', 'ndjson']) {
    const ext = run === 'csv' ? '.csv' : run === 'ndjson' ? '.ndjson' : '.parquet';
    const got = files(run, ds).map(f => path.basename(f, ext));
    if (!isDeepStrictEqual(got, names)) fail(`${ds}: ${run} chunks ${got} differ from ${names}`);
  }
  if (names.length === 0) fail(`${ds}: no chunks`);
  for (const n of names) if (!/^[a-z]+_\d{8}_\d{8}$/.test(n)) fail(`bad chunk name ${n}`);
  let rows = [];
  for (const f of pz) {
    const ty = await types(f);
    const ref = await readDuck(f);
    const refText = ref.map(r => JSON.stringify(r));
    const check = (what, got) => {
      if (got.length !== ref.length) return fail(`${f}: ${what}: ${got.length} rows, duckdb ${ref.length}`);
      for (let i = 0; i < ref.length; i++)
        if (JSON.stringify(got[i]) !== refText[i] && !isDeepStrictEqual(got[i], ref[i])) {
          const k = Object.keys(ref[i]).find(k => !isDeepStrictEqual(got[i][k], ref[i][k]));
          return fail(`${f}: ${what}: row ${i} column ${k}: ${JSON.stringify(got[i][k])?.slice(0, 300)} vs duckdb ${JSON.stringify(ref[i][k])?.slice(0, 300)}`);
        }
    };
    check('hyparquet', await readHyp(f));
    check('parquet-wasm', readWasm(f));
    const base = path.basename(f);
    const sn = path.join(tmp, 'snappy', ds, base), no = path.join(tmp, 'none', ds, base);
    // (every codec x every reader is covered by test_parquet; here each
    // copy is read by one more reader)
    check('hyparquet snappy', await readHyp(sn));
    check('parquet-wasm none', readWasm(no));
    const stem = base.replace(/\.parquet$/, '');
    const csv = parseCsv(readFileSync(path.join(tmp, 'csv', ds, stem + '.csv'), 'utf8'));
    if (!isDeepStrictEqual(csv.header, Object.keys(ty))) fail(`${ds}: CSV header ${csv.header}`);
    check('csv', csv.rows.map(r => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, fromText(v, ty[k])]))));
    const nd = readFileSync(path.join(tmp, 'ndjson', ds, stem + '.ndjson'), 'utf8').split('\n');
    if (nd.pop() !== '') fail(`${ds}: NDJSON does not end with a newline`);
    check('ndjson', nd.map(l => JSON.parse(l)).map(r => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, fromText(v, ty[k])]))));
    const [, first, last] = stem.match(/_(\d+)_(\d+)$/);
    for (const r of ref) {
      const h = BigInt(r.number ?? r.block_number);
      if (h < BigInt(first) || h > BigInt(last)) fail(`${f}: height ${h} outside the chunk's range`);
    }
    rows = rows.concat(ref);
  }
  all[ds] = rows;
}

// ---- against getblock verbosity 3 JSON ----
function jsonLines() {
  if (coreFile) return execFileSync('zstd', ['-dc', coreFile], { maxBuffer: 1 << 30 }).toString('utf8').split('\n').filter(Boolean);
  const s = src.filter((a, i) => a !== '--chunk-size' && src[i - 1] !== '--chunk-size');
  return execFileSync(bk, ['scan', ...s, '--verbosity', '3', '--progress', 'never'], { maxBuffer: 1 << 30 })
    .toString('utf8').split('\n').filter(Boolean);
}
// Amounts as exact satoshis: quote the JSON number text before parsing.
const sats = s => {
  const neg = s.startsWith('-');
  const [i, f = ''] = (neg ? s.slice(1) : s).split('.');
  const v = BigInt(i) * 100000000n + BigInt((f + '00000000').slice(0, 8));
  if (f.length > 8) throw new Error('more than 8 decimals: ' + s);
  return (neg ? -v : v).toString();
};
const srcOpt = name => { const i = src.indexOf(name); return i < 0 ? null : Number(src[i + 1]); };
const lo = srcOpt('--start') ?? 0, hi = srcOpt('--end') ?? Infinity;
const blocks = jsonLines().map(l => JSON.parse(l.replace(/"(value|fee)":(-?[0-9.]+)/g, '"$1":"$2"')))
  .filter(b => b.height >= lo && b.height <= hi);
const exp = { blocks: [], transactions: [], inputs: [], outputs: [] };
const us = t => (BigInt(t) * 1000000n).toString();
for (const b of blocks) {
  let inSum = 0n, outSum = 0n, feeSum = 0n, nin = 0, nout = 0, haveUndo = true;
  const bts = us(b.time);
  b.tx.forEach((tx, ti) => {
    const cb = ti === 0;
    let ti_in = 0n, ti_out = 0n;
    tx.vout.forEach(o => { ti_out += BigInt(sats(o.value)); });
    tx.vin.forEach((vin, ii) => {
      const pv = vin.prevout;
      if (!cb && !pv) haveUndo = false;
      if (pv) ti_in += BigInt(sats(pv.value));
      exp.inputs.push({
        transaction_hash: tx.txid, transaction_index: String(ti), block_hash: b.hash, block_number: String(b.height),
        block_timestamp: bts, index: String(ii),
        spent_transaction_hash: cb ? null : vin.txid, spent_output_index: cb ? null : String(vin.vout),
        script_asm: cb ? null : vin.scriptSig.asm, script_hex: cb ? vin.coinbase : vin.scriptSig.hex,
        sequence: String(vin.sequence), witness: vin.txinwitness ?? [], is_coinbase: cb,
        value: pv ? sats(pv.value) : null, type: pv ? pv.scriptPubKey.type : null,
        address: pv ? (pv.scriptPubKey.address ?? null) : null, desc: pv ? pv.scriptPubKey.desc : null,
        spent_block_number: pv ? String(pv.height) : null, spent_is_coinbase: pv ? pv.generated : null,
      });
    });
    tx.vout.forEach(o => exp.outputs.push({
      transaction_hash: tx.txid, transaction_index: String(ti), block_hash: b.hash, block_number: String(b.height),
      block_timestamp: bts, index: String(o.n), script_asm: o.scriptPubKey.asm, script_hex: o.scriptPubKey.hex,
      type: o.scriptPubKey.type, address: o.scriptPubKey.address ?? null, desc: o.scriptPubKey.desc, value: sats(o.value),
    }));
    const hasFee = tx.fee !== undefined;
    if (hasFee && (BigInt(sats(tx.fee)) !== ti_in - ti_out)) fail(`tx ${tx.txid}: Core fee ${tx.fee} != inputs - outputs`);
    exp.transactions.push({
      hash: tx.txid, wtxid: tx.hash, size: String(tx.size), virtual_size: String(tx.vsize), weight: String(tx.weight),
      version: String(tx.version), lock_time: String(tx.locktime), block_hash: b.hash, block_number: String(b.height),
      block_timestamp: bts, index: String(ti), input_count: String(tx.vin.length), output_count: String(tx.vout.length),
      input_value: hasFee ? ti_in.toString() : null, output_value: ti_out.toString(), is_coinbase: cb,
      fee: hasFee ? sats(tx.fee) : null,
    });
    if (hasFee) feeSum += BigInt(sats(tx.fee));
    inSum += ti_in; outSum += ti_out; nin += tx.vin.length; nout += tx.vout.length;
  });
  exp.blocks.push({
    hash: b.hash, size: String(b.size), stripped_size: String(b.strippedsize), weight: String(b.weight),
    number: String(b.height), version: String(b.version), merkle_root: b.merkleroot, timestamp: bts,
    nonce: String(b.nonce), bits: b.bits, coinbase_param: b.tx[0].vin[0].coinbase,
    transaction_count: String(b.nTx), previous_block_hash: b.previousblockhash ?? null,
    median_time: orphans ? null : us(b.mediantime), chainwork: orphans ? null : b.chainwork,
    input_count: String(nin), output_count: String(nout),
    input_value: haveUndo ? inSum.toString() : null, output_value: outSum.toString(),
    fee: haveUndo ? feeSum.toString() : null,
  });
}
for (const ds of DATASETS) {
  const got = all[ds], want = exp[ds];
  if (got.length !== want.length) { fail(`${ds}: ${got.length} rows, JSON gives ${want.length}`); continue; }
  for (let i = 0; i < got.length; i++) {
    if (JSON.stringify(got[i]) !== JSON.stringify(want[i]) && !isDeepStrictEqual(got[i], want[i])) {
      const k = Object.keys(want[i]).filter(k => !isDeepStrictEqual(got[i][k], want[i][k]));
      const extra = Object.keys(got[i]).filter(k => !(k in want[i]));
      fail(`${ds} row ${i}: ${k.map(k => `${k}: ${JSON.stringify(got[i][k])?.slice(0, 200)} vs JSON ${JSON.stringify(want[i][k])?.slice(0, 200)}`).join('; ')} ${extra.length ? 'extra columns ' + extra : ''}`);
      break;
    }
  }
}

// ---- the analyst queries of docs/export.md ----
if (queries) {
  const doc = readFileSync(path.join(path.dirname(new URL(import.meta.url).pathname), '..', '..', 'docs', 'export.md'), 'utf8');
  const c = await duck();
  const out = path.join(tmp, 'zstd');
  const run = async q => {
    if (!doc.includes(q)) fail(`query not in docs/export.md: ${q}`);
    const r = await c.runAndReadAll(q.replaceAll("'out/", `'${out}/`));
    return r.getRowObjectsJson();
  };
  const q1 = "SELECT number, fee FROM 'out/blocks/*.parquet' ORDER BY number;";
  const r1 = await run(q1);
  if (!isDeepStrictEqual(r1.map(r => r.fee).sort(), ['14001930', '4737355', '5026183'])) fail(`fees per block: ${JSON.stringify(r1)}`);
  const q2 = "SELECT block_number, sum(fee) AS fee FROM 'out/transactions/*.parquet' GROUP BY block_number ORDER BY block_number;";
  const r2 = await run(q2);
  if (!isDeepStrictEqual(r2.map(r => r.fee), r1.map(r => r.fee))) fail(`fees from transactions: ${JSON.stringify(r2)}`);
  const q3 = "SELECT block_number, sum(value) - (SELECT sum(value) FROM 'out/outputs/*.parquet' o WHERE o.block_number = i.block_number AND o.transaction_index > 0) AS fee FROM 'out/inputs/*.parquet' i WHERE NOT is_coinbase GROUP BY block_number ORDER BY block_number;";
  const r3 = await run(q3);
  if (!isDeepStrictEqual(r3.map(r => r.fee), r1.map(r => r.fee))) fail(`fees from inputs - outputs: ${JSON.stringify(r3)}`);
  const q4 = "SELECT type, count(*) AS outputs, sum(value) AS sats FROM 'out/outputs/*.parquet' GROUP BY type ORDER BY outputs DESC;";
  const r4 = await run(q4);
  const nOut = r4.reduce((a, r) => a + Number(r.outputs), 0);
  if (nOut !== exp.outputs.length) fail(`outputs by type: ${nOut}`);
  // Row-group pruning: the footer's statistics bound block_number.
  const q5 = "SELECT path_in_schema, stats_min_value, stats_max_value FROM parquet_metadata('out/outputs/*.parquet') WHERE path_in_schema = 'block_number';";
  const r5 = await run(q5);
  for (const r of r5) if (r.stats_min_value === null || r.stats_max_value === null || BigInt(r.stats_min_value) > BigInt(r.stats_max_value)) fail(`no block_number statistics: ${JSON.stringify(r)}`);
}
if (failures) process.exit(1);
console.log(`ok: ${DATASETS.map(d => `${all[d].length} ${d}`).join(', ')}; 3 Parquet codecs x 3 readers, CSV and NDJSON agree with getblock JSON`);
