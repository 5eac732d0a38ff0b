// The provenance of every Parquet chunk of an export read back by two
// independent readers: DuckDB's parquet_kv_metadata() and hyparquet's
// parquetMetadata(). For each file the blockkit.* footer keys must equal
// its catalogue line (OUT/_blockkit/chunks.ndjson) and the heights in its
// name; the hashes must be Core's (bestchain.tsv: getblockhash for every
// height) and chain_sha256 the SHA-256 of the internal-order hashes of its
// heights, computed here independently.
// usage: node check_provenance.mjs OUT bestchain.tsv
import { readFileSync, readdirSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { duck } from './readers.mjs';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const hyparquet = await import(path.join(here, '..', 'npm', 'node_modules', 'hyparquet/src/index.js'));
const [out, tsv] = process.argv.slice(2);
const best = new Map(readFileSync(tsv, 'utf8').trim().split('\n').map(l => l.split('\t')).map(([h, x]) => [Number(h), x]));
const cat = new Map(readFileSync(path.join(out, '_blockkit', 'chunks.ndjson'), 'utf8').trim().split('\n')
  .map(l => JSON.parse(l)).map(e => [e.file, e]));
let fails = 0, files = 0;
const fail = m => { console.error('FAIL: ' + m); fails++; };
const c = await duck();
for (const ds of ['blocks', 'transactions', 'inputs', 'outputs']) {
  for (const name of readdirSync(path.join(out, ds)).filter(n => n.endsWith('.parquet')).sort()) {
    const rel = `${ds}/${name}`, file = path.join(out, rel);
    const [, a, b] = name.match(/_(\d{8})_(\d{8})\.parquet$/);
    const first = Number(a), last = Number(b);
    const e = cat.get(rel);
    if (!e) { fail(`${rel}: not in the catalogue`); continue; }
    const r = await c.runAndReadAll(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata('${file}')`);
    const kv = Object.fromEntries(r.getRows().map(([k, v]) => [k, v]));
    const buf = readFileSync(file);
    const meta = hyparquet.parquetMetadata(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
    const hkv = Object.fromEntries((meta.key_value_metadata || []).map(({ key, value }) => [key, value]));
    const digest = createHash('sha256');
    for (let h = first; h <= last; h++) digest.update(Buffer.from(best.get(h), 'hex').reverse());
    const want = {
      'blockkit.schema_version': '1', 'blockkit.dataset': ds, 'blockkit.network': 'regtest',
      'blockkit.first_height': String(first), 'blockkit.last_height': String(last),
      'blockkit.first_hash': best.get(first), 'blockkit.last_hash': best.get(last),
      'blockkit.chain_sha256': digest.digest('hex'), 'blockkit.rows': String(e.rows),
    };
    for (const [k, v] of Object.entries(want)) {
      if (kv[k] !== v) fail(`${rel}: DuckDB ${k} = ${kv[k]}, want ${v}`);
      if (hkv[k] !== v) fail(`${rel}: hyparquet ${k} = ${hkv[k]}, want ${v}`);
    }
    if (!/^\d+\.\d+\.\d+$/.test(kv['blockkit.version'] || '')) fail(`${rel}: blockkit.version ${kv['blockkit.version']}`);
    if (String(meta.num_rows) !== String(e.rows)) fail(`${rel}: hyparquet num_rows ${meta.num_rows}, catalogue ${e.rows}`);
    if (e.first_hash !== best.get(first) || e.last_hash !== best.get(last) || e.chain_sha256 !== want['blockkit.chain_sha256'])
      fail(`${rel}: catalogue hashes differ from Core's`);
    if (e.bytes !== buf.length || e.sha256 !== createHash('sha256').update(buf).digest('hex'))
      fail(`${rel}: catalogue bytes/sha256 differ from the file's`);
    files++;
  }
}
if (files !== 40) fail(`${files} files, want 40`);
if (fails) process.exit(1);
console.log(`ok: ${files} Parquet chunks: footer provenance (DuckDB, hyparquet) = catalogue = Core's hashes`);
