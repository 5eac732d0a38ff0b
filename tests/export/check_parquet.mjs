// node check_parquet.mjs EXPECTED.ndjson FILE.parquet...
// Every file read by DuckDB, hyparquet and parquet-wasm must give exactly
// the rows of EXPECTED (one JSON object per line, the values the writer was
// given, normalized as readers.mjs normalizes).
import { readFileSync } from 'node:fs';
import { readDuck, readHyp, readWasm } from './readers.mjs';
import { isDeepStrictEqual } from 'node:util';

// (or: node check_parquet.mjs --pairs EXPECTED1 FILE1 EXPECTED2 FILE2 ...)
const args = process.argv.slice(2);
const jobs = [];
if (args[0] === '--pairs') for (let i = 1; i + 1 < args.length; i += 2) jobs.push([args[i], [args[i + 1]]]);
else jobs.push([args[0], args.slice(1)]);
let bad = 0, nrows = 0, nfiles = 0;
for (const [expectedFile, files] of jobs) {
const expected = readFileSync(expectedFile, 'utf8').split('\n').filter(Boolean).map(l => JSON.parse(l));
nrows += expected.length;
nfiles += files.length;
for (const f of files) {
  for (const [name, read] of [['duckdb', readDuck], ['hyparquet', readHyp], ['parquet-wasm', readWasm]]) {
    let rows;
    try {
      rows = await read(f);
    } catch (e) {
      console.error(`${f}: ${name}: ${e.stack || e}`);
      bad++;
      continue;
    }
    if (rows.length !== expected.length) {
      console.error(`${f}: ${name}: ${rows.length} rows, expected ${expected.length}`);
      bad++;
      continue;
    }
    for (let i = 0; i < rows.length; i++) {
      if (!isDeepStrictEqual(rows[i], expected[i])) {
        const diff = Object.keys(expected[i]).filter(k => !isDeepStrictEqual(rows[i][k], expected[i][k]));
        console.error(`${f}: ${name}: row ${i} differs in ${diff.join(',')}: ` +
          diff.map(k => `${k}=${JSON.stringify(rows[i][k])?.slice(0, 200)} expected ${JSON.stringify(expected[i][k])?.slice(0, 200)}`).join('; '));
        bad++;
        break;
      }
    }
  }
}
}
if (bad) process.exit(1);
console.log(`ok: ${nfiles} files x 3 readers, ${nrows} rows`);
