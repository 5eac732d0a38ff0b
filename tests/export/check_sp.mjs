// The sp_tweaks and sp_outputs datasets against the regtest node's BIP352
// vector (tests/data/regtest/sp/tweaks.ndjson.zst, computed independently
// from Core's getblock answers): NDJSON, Parquet and Parquet --profile lean
// (read back by DuckDB) give one sp_tweaks row per vector line (height,
// block_hash, txid, tweak; tx_index rising within the block) and one
// sp_outputs row per listed taproot output (height, txid, vout, pubkey,
// value), in order; the chunks are in the catalogue and pass --verify.
//   node check_sp.mjs BLOCKKIT REGTEST_DIR VECTOR_ZST TMPDIR
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { readDuck } from './readers.mjs';

const [bk, regtest, vectorFile, tmp] = process.argv.slice(2);
const datadir = path.join(regtest, 'full');
let fails = 0;
const fail = (m) => { if (fails++ < 20) console.error('FAIL ' + m); };

const vec = execFileSync('zstd', ['-dc', vectorFile], { maxBuffer: 1 << 28 }).toString().split('\n')
  .filter((l) => l).map((l) => JSON.parse(l));
const wantTweaks = vec.map((v) => ({ height: String(v.height), block_hash: v.hash, txid: v.txid, tweak: v.tweak }));
const wantOutputs = vec.flatMap((v) => v.outputs.map((o) => ({
  height: String(v.height), txid: v.txid, vout: String(o.vout), pubkey: o.pubkey, value: String(o.value) })));

async function rowsOf(dir, format) {
  let rows = [];
  for (const f of readdirSync(dir).sort()) {
    if (format === 'ndjson') {
      for (const line of readFileSync(path.join(dir, f), 'utf8').split('\n'))
        if (line) rows.push(Object.fromEntries(Object.entries(JSON.parse(line)).map(([k, v]) => [k, String(v)])));
    } else {
      rows = rows.concat(await readDuck(path.join(dir, f)));
    }
  }
  return rows;
}

function compare(label, rows, want, keys) {
  if (rows.length !== want.length) fail(`${label}: ${rows.length} rows, want ${want.length}`);
  for (let i = 0; i < Math.min(rows.length, want.length); i++)
    for (const k of keys)
      if (rows[i][k] !== want[i][k]) { fail(`${label} row ${i} ${k}: ${rows[i][k]} != ${want[i][k]}`); break; }
}

for (const [format, profile] of [['ndjson', 'default'], ['parquet', 'default'], ['parquet', 'lean']]) {
  const label = `${format}/${profile}`;
  const out = path.join(tmp, `${format}-${profile}`);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  execFileSync(bk, ['export', '--datadir', datadir, '--datasets', 'sp_tweaks,sp_outputs', '--format', format,
                    '--profile', profile, '--chunk-size', '300', '--out', out, '--progress', 'never', '-j', '2'],
               { stdio: ['ignore', 'ignore', 'ignore'] });
  const tweaks = await rowsOf(path.join(out, 'sp_tweaks'), format);
  compare(`${label} sp_tweaks`, tweaks, wantTweaks, ['height', 'block_hash', 'txid', 'tweak']);
  tweaks.forEach((r, i) => {
    const prev = tweaks[i - 1];
    if (!(Number(r.tx_index) > 0)) fail(`${label} sp_tweaks row ${i}: tx_index ${r.tx_index}`);
    if (prev && prev.height === r.height && Number(prev.tx_index) >= Number(r.tx_index))
      fail(`${label} sp_tweaks row ${i}: tx_index not rising`);
  });
  compare(`${label} sp_outputs`, await rowsOf(path.join(out, 'sp_outputs'), format), wantOutputs,
          ['height', 'txid', 'vout', 'pubkey', 'value']);
  const cat = readFileSync(path.join(out, '_blockkit', 'chunks.ndjson'), 'utf8');
  for (const ds of ['sp_tweaks', 'sp_outputs'])
    if (!cat.includes(`"dataset":"${ds}"`)) fail(`${label}: no ${ds} chunk in the catalogue`);
  const v = spawnSync(bk, ['export', '--verify', '--datadir', datadir, '--out', out], { encoding: 'utf8' });
  if (v.status !== 0) fail(`${label}: --verify exit ${v.status}: ${v.stderr}`);
}
console.log(fails ? `${fails} failure(s)` :
  `sp_tweaks: ${wantTweaks.length} rows, sp_outputs: ${wantOutputs.length} rows equal to the vector (ndjson, parquet, lean; --verify)`);
process.exit(fails ? 1 : 0);
