// docs/loading-ndjson.md on the bundled sample: runs the sample's shard
// commands (its second ```sh block) with blockkit, then every named DuckDB
// query of the doc ("-- name: X" blocks under "## DuckDB") with the DuckDB
// of tests/npm (node 20), and checks the results against figures computed
// here independently from the NDJSON text and against Core's fees (scan's
// own summary line: 4,737,355 + 14,001,930 + 5,026,183 sat).
// Usage: node ndjson_duckdb.mjs SOURCE_DIR BUILD_DIR
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const [src, build] = process.argv.slice(2).map((p) => path.resolve(p));
const { DuckDBInstance } = await import(path.join(src, 'tests/npm/node_modules/@duckdb/node-api/lib/index.js'));
const doc = fs.readFileSync(path.join(src, 'docs/loading-ndjson.md'), 'utf8');
let failed = 0, passed = 0;
const check = (ok, what) => { if (ok) passed++; else { failed++; console.error('FAIL: ' + what); } };

// Fenced blocks in order: {lang, text, section}.
const blocks = [];
let section = '';
const lines = doc.split('\n');
for (let i = 0; i < lines.length; i++) {
  if (lines[i].startsWith('## ')) section = lines[i].slice(3);
  if (lines[i].startsWith('```')) {
    const lang = lines[i].slice(3).trim();
    const body = [];
    for (i++; i < lines.length && !lines[i].startsWith('```'); i++) body.push(lines[i]);
    blocks.push({ lang, text: body.join('\n'), section });
  }
}
const shell = blocks.filter((b) => b.lang === 'sh' && !b.text.includes('(needs'));
check(shell.length >= 1, 'a runnable ```sh block with the sample shards');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-ndjson-'));
fs.symlinkSync(path.join(src, 'data'), path.join(dir, 'data'));
try {
  for (const line of shell[0].text.split('\n')) {
    if (!line.trim() || line.trim().startsWith('#')) continue;
    execSync(line, { cwd: dir, env: { ...process.env, PATH: build + ':' + process.env.PATH }, stdio: 'inherit' });
  }
  const files = fs.readdirSync(dir).filter((f) => /^blocks-.*\.ndjson$/.test(f)).sort();
  check(files.length === 3, `three shard files (${files})`);
  check(fs.existsSync(path.join(dir, 'blocks.ndjson')), 'the one-file scan');

  // Independent figures from the text itself.
  let outSat = 0n, outputs = 0, witnesses = {}, inputs = {}, spentSat = {}, ntx = {};
  for (const f of files) {
    for (const l of fs.readFileSync(path.join(dir, f), 'utf8').split('\n')) {
      if (!l) continue;
      const b = JSON.parse(l);
      ntx[b.height] = b.tx.length;
      witnesses[b.height] = 0; inputs[b.height] = 0; spentSat[b.height] = 0n;
      for (const t of b.tx) {
        for (const o of t.vout) { outSat += BigInt(Math.round(o.value * 1e8)); outputs++; }
        for (const v of t.vin) {
          inputs[b.height]++;
          if (v.txinwitness) witnesses[b.height]++;
          if (v.prevout) spentSat[b.height] += BigInt(Math.round(v.prevout.value * 1e8));
        }
      }
    }
  }
  const btc = (sat) => { const s = sat.toString().padStart(9, '0'); return s.slice(0, -8) + '.' + s.slice(-8); };

  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  await con.run(`SET file_search_path = '${dir}'`);
  const named = {};
  for (const b of blocks.filter((b) => b.lang === 'sql' && b.section.startsWith('DuckDB'))) {
    const m = b.text.match(/^-- name: (\w+)/);
    check(m, 'every DuckDB query block is named');
    if (m) named[m[1]] = b.text;
  }
  const run = async (name) => (await con.runAndReadAll(named[name])).getRowObjectsJson();
  check(named.blocks, 'the blocks view');
  await con.run(named.blocks);

  const fees = await run('fees_per_block');
  const want = { 277647: 4737355, 367891: 14001930, 866342: 5026183 };
  check(fees.length === 3, 'fees: three blocks');
  for (const r of fees) {
    check(Number(r.fees_sat) === want[r.height], `fees of ${r.height}: ${r.fees_sat} sat`);
    check(r.fees_btc === btc(BigInt(want[r.height])), `fees_btc of ${r.height}: ${r.fees_btc}`);
    check(Number(r.n_tx) === ntx[r.height], `n_tx of ${r.height}`);
    check(doc.includes(`${r.height}: ${r.fees_btc}`) || doc.includes(`${r.height}: ${r.fees_btc} BTC`), `doc quotes the fee of ${r.height}`);
    check(doc.includes(`(${Number(r.n_tx)} txs)`) || doc.includes(`(${Number(r.n_tx)})`), `doc quotes the tx count of ${r.height}`);
  }

  const ov = (await run('output_value'))[0];
  check(ov.btc === btc(outSat), `sum(value) exact: ${ov.btc} vs ${btc(outSat)}`);
  check(Number(ov.outputs) === outputs, 'output count');
  check(doc.includes(`exactly\n${ov.btc}`) || doc.includes(`exactly ${ov.btc}`) || doc.includes(ov.btc), `doc quotes ${ov.btc}`);
  check(doc.includes(outputs.toLocaleString('en-US')), `doc quotes the output count ${outputs.toLocaleString('en-US')}`);
  // The DOUBLE sum the doc warns about really is off.
  const dbl = (await con.runAndReadAll(`WITH t AS (SELECT unnest(tx) t FROM read_json_auto('blocks-*.ndjson', format = 'newline_delimited', maximum_object_size = 1073741824)), o AS (SELECT unnest(t.vout) o FROM t) SELECT sum(o.value)::VARCHAR s FROM o`)).getRowObjectsJson()[0].s;
  check(dbl !== ov.btc && doc.includes(dbl.slice(0, 14)), `the DOUBLE sum ${dbl} differs and its digits are quoted`);

  const ins = await run('inputs_and_witnesses');
  let w866 = 0;
  for (const r of ins) {
    check(Number(r.inputs) === inputs[r.height], `inputs of ${r.height}`);
    check(Number(r.with_witness) === witnesses[r.height], `witnesses of ${r.height}: ${r.with_witness}`);
    check(r.spent_btc === btc(spentSat[r.height]), `spent of ${r.height}: ${r.spent_btc}`);
    if (r.height === '866342') w866 = Number(r.with_witness);
  }
  check(w866 > 0 && doc.includes(w866.toLocaleString('en-US') + ' witnesses'), `doc quotes the ${w866} witnesses`);

  const types = await run('script_types_per_month');
  check(types.length > 3 && types.every((r) => r.script_type && Number(r.outputs) > 0), 'script types per month');
  check(types.reduce((a, r) => a + Number(r.outputs), 0) === outputs, 'script types cover every output');

  const trap = (await run('sampled_schema_trap'))[0];
  check(Number(trap.columns_named_txinwitness) === 0, 'the sampled schema drops txinwitness (the trap is real)');
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
