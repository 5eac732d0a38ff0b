// node check_parquet.mjs EXPECTED.ndjson FILE.parquet...
// Every file read by DuckDB, hyparquet and parquet-wasm must give exactly
// the rows of EXPECTED (one JSON object per line, the values the writer was
// given, normalized as readers.mjs normalizes).
import { readFileSync } from 'node:fs';
import { readDuck, readHyp, readWasm } from './readers.mjs';
import { isDeepStrictEqual } from 'node:util';

const [expectedFile, ...files] = process.argv.slice(2);
const expected = readFileSync(expectedFile, 'utf8').split('\n').filter(Boolean).map(l => JSON.parse(l));
let bad = 0;
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
if (bad) process.exit(1);
console.log(`ok: ${files.length} files x 3 readers, ${expected.length} rows each`);
