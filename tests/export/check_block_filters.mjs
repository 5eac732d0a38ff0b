// The block_filters dataset against Core's own getblockfilter answers for
// every height of the regtest node (tests/data/indexes/getblockfilter.ndjson.zst):
// NDJSON rows and Parquet rows (read back by DuckDB) equal Core's filter and
// header; an export that starts inside the chain (--start 517: the headers
// below it come from the pre-pass) and a rerun after a deleted chunk give
// the same rows; a pruned node is refused (exit 66), not answered wrongly.
//   node check_block_filters.mjs BLOCKKIT REGTEST_DIR CORE_NDJSON_ZST TMPDIR
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { readDuck } from './readers.mjs';

const [bk, regtest, coreFile, tmp] = process.argv.slice(2);
const datadir = path.join(regtest, 'full');
let fails = 0;
const fail = (m) => { if (fails++ < 20) console.error('FAIL ' + m); };

const core = new Map();
for (const line of execFileSync('zstd', ['-dc', coreFile], { maxBuffer: 1 << 28 }).toString().split('\n')) {
  if (!line) continue;
  const o = JSON.parse(line);
  core.set(o.height, { hash: o.hash, ...JSON.parse(line.slice(line.indexOf(',"core":') + 8, -1)) });
}

function compare(label, rows, from) {
  const want = [...core.keys()].filter((h) => h >= from).length;
  if (rows.length !== want) fail(`${label}: ${rows.length} rows, want ${want}`);
  rows.forEach((r, i) => {
    const h = Number(r.height), c = core.get(h);
    if (h !== from + i) fail(`${label}: row ${i} is height ${h}`);
    if (!c) return fail(`${label}: height ${h} not in Core's answers`);
    for (const k of ['hash', 'filter', 'header'])
      if (r[k] !== c[k]) fail(`${label} ${h} ${k} ${r[k]} != ${c[k]}`);
  });
}

function run(out, format, extra = []) {
  execFileSync(bk, ['export', '--datadir', datadir, '--datasets', 'block_filters', '--format', format,
                    '--chunk-size', '100', '--out', out, '--progress', 'never', '-j', '2', ...extra],
               { stdio: ['ignore', 'ignore', 'ignore'] });
}

async function rowsOf(dir, format) {
  let rows = [];
  for (const f of readdirSync(dir).sort()) {
    if (format === 'ndjson') {
      for (const line of readFileSync(path.join(dir, f), 'utf8').split('\n')) if (line) rows.push(JSON.parse(line));
    } else {
      rows = rows.concat(await readDuck(path.join(dir, f)));
    }
  }
  return rows;
}

for (const format of ['ndjson', 'parquet']) {
  const out = path.join(tmp, format);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  run(out, format);
  const dir = path.join(out, 'block_filters');
  if (readdirSync(dir).length !== 10) fail(`${format}: ${readdirSync(dir).length} chunk files, want 10`);
  compare(format, await rowsOf(dir, format), 0);
  // a rerun after a deleted chunk in the middle rewrites it with the right headers
  unlinkSync(path.join(dir, `block_filters_00000500_00000599.${format}`));
  run(out, format);
  compare(`${format} after a deleted chunk`, await rowsOf(dir, format), 0);
}
// from inside the chain: the headers below 517 computed first
const part = path.join(tmp, 'part');
rmSync(part, { recursive: true, force: true });
run(part, 'ndjson', ['--start', '517']);
compare('--start 517', await rowsOf(path.join(part, 'block_filters'), 'ndjson'), 517);
// a pruned node has no headers: refused with 66, nothing written
const pr = path.join(tmp, 'pruned');
rmSync(pr, { recursive: true, force: true });
const r = spawnSync(bk, ['export', '--datadir', path.join(regtest, 'pruned'), '--datasets', 'block_filters',
                         '--format', 'ndjson', '--out', pr, '--progress', 'never'], { encoding: 'utf8' });
if (r.status !== 66 || !/filter headers need every block from the genesis/.test(r.stderr))
  fail(`pruned: exit ${r.status}: ${r.stderr}`);
let written = [];
try { written = readdirSync(path.join(pr, 'block_filters')); } catch { /* none */ }
if (written.length) fail(`pruned: ${written.length} files written`);
console.log(fails ? `${fails} failure(s)` : `block_filters: ${core.size} heights equal to Core's (ndjson, parquet, resume, --start, pruned refused)`);
process.exit(fails ? 1 : 0);
