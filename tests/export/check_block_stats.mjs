// The block_stats dataset against Core's own getblockstats answers for every
// height of the regtest node (tests/data/regtest/getblockstats.ndjson.zst):
// NDJSON rows and Parquet rows (read back by DuckDB) both equal Core's
// numbers, the five feerate_percentile_* columns Core's array.
//   node check_block_stats.mjs BLOCKKIT REGTEST_DATADIR CORE_NDJSON_ZST TMPDIR
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { readDuck } from './readers.mjs';

const [bk, datadir, coreFile, tmp] = process.argv.slice(2);
let fails = 0;
const fail = (m) => { if (fails++ < 20) console.error('FAIL ' + m); };

const core = new Map();
for (const line of execFileSync('zstd', ['-dc', coreFile], { maxBuffer: 1 << 28 }).toString().split('\n')) {
  if (!line) continue;
  const o = JSON.parse(line);
  core.set(o.height, JSON.parse(line.slice(line.indexOf(',"core":') + 8, -1)));
}

function compare(label, rows) {
  if (rows.length !== core.size) fail(`${label}: ${rows.length} rows, Core answered ${core.size} heights`);
  for (const r of rows) {
    const h = Number(r.height), c = core.get(h);
    if (!c) { fail(`${label}: height ${h} not in Core's answers`); continue; }
    for (const [k, v] of Object.entries(c)) {
      if (k === 'feerate_percentiles') {
        const got = [10, 25, 50, 75, 90].map((p) => Number(r['feerate_percentile_' + p]));
        if (JSON.stringify(got) !== JSON.stringify(v)) fail(`${label} ${h} feerate_percentiles ${got} != ${v}`);
      } else if (k === 'blockhash') {
        if (r[k] !== v) fail(`${label} ${h} blockhash ${r[k]} != ${v}`);
      } else if (Number(r[k]) !== v) {
        fail(`${label} ${h} ${k} ${r[k]} != ${v}`);
      }
    }
  }
}

for (const format of ['ndjson', 'parquet']) {
  const out = path.join(tmp, format);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  execFileSync(bk, ['export', '--datadir', datadir, '--chain', 'regtest', '--datasets', 'block_stats',
                    '--format', format, '--chunk-size', '300', '--out', out, '--progress', 'never'],
               { stdio: ['ignore', 'ignore', 'ignore'] });
  const dir = path.join(out, 'block_stats');
  const files = readdirSync(dir).sort();
  if (files.length !== 4) fail(`${format}: ${files.length} chunk files, want 4 (0-299, 300-599, 600-899, 900-939)`);
  let rows = [];
  for (const f of files) {
    if (format === 'ndjson') {
      for (const line of readFileSync(path.join(dir, f), 'utf8').split('\n')) if (line) rows.push(JSON.parse(line));
    } else {
      rows = rows.concat(await readDuck(path.join(dir, f)));
    }
  }
  compare(format, rows);
}
console.log(fails ? `${fails} failure(s)` : `block_stats: ${core.size} heights, every stat equal to Core's (ndjson, parquet)`);
process.exit(fails ? 1 : 0);
