// Three independent Parquet readers (DuckDB, hyparquet, parquet-wasm) and
// the CSV / NDJSON exports, each turned into the same plain rows:
// integers and timestamps as decimal strings (timestamps in microseconds),
// booleans, strings, null, lists as arrays. Test-only (tests/npm).
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const npm = path.join(here, '..', 'npm', 'node_modules');
const require = createRequire(path.join(npm, 'x.js'));

const duckdb = await import(path.join(npm, '@duckdb/node-api/lib/index.js'));
const hyparquet = await import(path.join(npm, 'hyparquet/src/index.js'));
const pw = require(path.join(npm, 'parquet-wasm/node/parquet_wasm.js'));

let duckConn = null;
export async function duck() {
  if (!duckConn) {
    const inst = await duckdb.DuckDBInstance.create(':memory:', { threads: '1' });
    duckConn = await inst.connect();
  }
  return duckConn;
}

function normDuck(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return String(v);
  if (typeof v === 'boolean' || typeof v === 'string') return v;
  if (v instanceof duckdb.DuckDBTimestampValue || v instanceof duckdb.DuckDBTimestampTZValue) return v.micros.toString();
  if (v instanceof duckdb.DuckDBTimestampMillisecondsValue) return (v.millis * 1000n).toString();
  if (v instanceof duckdb.DuckDBListValue) return v.items.map(normDuck);
  // binary columns (--profile lean): lowercase hex, the default profile's text
  if (v instanceof duckdb.DuckDBBlobValue) return Buffer.from(v.bytes).toString('hex');
  throw new Error('duckdb: unexpected value ' + v + ' ' + (v && v.constructor && v.constructor.name));
}

export async function readDuck(file) {
  const c = await duck();
  const r = await c.runAndReadAll(`SELECT * FROM read_parquet('${file.replace(/'/g, "''")}')`);
  const names = r.columnNames();
  return r.getRows().map(row => Object.fromEntries(row.map((v, i) => [names[i], normDuck(v)])));
}

// zstd pages for hyparquet (it ships snappy only): the zstd command.
const compressors = {
  ZSTD: (input, outputLength) => {
    const out = execFileSync('zstd', ['-d', '-c', '-q'], { input: Buffer.from(input), maxBuffer: outputLength + 1024 });
    if (out.length !== outputLength) throw new Error(`zstd: ${out.length} bytes, page says ${outputLength}`);
    return new Uint8Array(out.buffer, out.byteOffset, out.length);
  },
};

// Timestamps exactly (hyparquet's default parsers make millisecond Dates).
class Micros { constructor(v) { this.v = v; } }
const parsers = {
  timestampFromMilliseconds: m => new Micros(BigInt(m) * 1000n),
  timestampFromMicroseconds: u => new Micros(BigInt(u)),
};

function normHyp(v, isTs) {
  if (v === null || v === undefined) return null;
  if (v instanceof Micros) return v.v.toString();
  if (Array.isArray(v)) return v.map(x => normHyp(x, false));
  if (v instanceof Uint8Array) return Buffer.from(v).toString('hex'); /* BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY */
  if (v instanceof Date) return (BigInt(v.getTime()) * 1000n).toString();
  if (typeof v === 'bigint') return isTs ? v.toString() : v.toString();
  if (typeof v === 'number') return String(v);
  return v;
}

export async function readHyp(file) {
  const buf = readFileSync(file);
  const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length);
  const rows = await hyparquet.parquetReadObjects({ file: ab, compressors, utf8: false, parsers });
  return rows.map(r => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, normHyp(v, false)])));
}

// parquet-wasm: the Arrow C data interface read straight from wasm memory.
function cstr(mem, p) {
  if (!p) return null;
  const u8 = new Uint8Array(mem.buffer);
  let e = p;
  while (u8[e]) e++;
  return Buffer.from(u8.subarray(p, e)).toString('utf8');
}

function schemaAt(mem, p) {
  const dv = new DataView(mem.buffer);
  const format = cstr(mem, dv.getUint32(p, true));
  const name = cstr(mem, dv.getUint32(p + 4, true));
  const n = Number(dv.getBigInt64(p + 24, true));
  const ch = dv.getUint32(p + 32, true);
  const children = [];
  for (let i = 0; i < n; i++) children.push(schemaAt(mem, dv.getUint32(ch + 4 * i, true)));
  return { format, name, children };
}

function arrayValues(mem, s, p) {
  const dv = new DataView(mem.buffer);
  const length = Number(dv.getBigInt64(p, true));
  const offset = Number(dv.getBigInt64(p + 16, true));
  const nbuf = Number(dv.getBigInt64(p + 24, true));
  const bufs = dv.getUint32(p + 40, true);
  const chp = dv.getUint32(p + 44, true);
  const buf = i => (i < nbuf ? dv.getUint32(bufs + 4 * i, true) : 0);
  const u8 = new Uint8Array(mem.buffer);
  const valid = buf(0);
  const isValid = i => !valid || ((u8[valid + ((offset + i) >> 3)] >> ((offset + i) & 7)) & 1) === 1;
  const out = new Array(length);
  const f = s.format;
  if (f === 'l' || f.startsWith('ts')) {
    const mul = f.startsWith('tsm') ? 1000n : f.startsWith('tss') ? 1000000n : 1n;
    for (let i = 0; i < length; i++) out[i] = isValid(i) ? (dv.getBigInt64(buf(1) + 8 * (offset + i), true) * mul).toString() : null;
  } else if (f === 'i') {
    for (let i = 0; i < length; i++) out[i] = isValid(i) ? String(dv.getInt32(buf(1) + 4 * (offset + i), true)) : null;
  } else if (f === 'b') {
    for (let i = 0; i < length; i++) out[i] = isValid(i) ? ((u8[buf(1) + ((offset + i) >> 3)] >> ((offset + i) & 7)) & 1) === 1 : null;
  } else if (f === 'u') {
    const offs = buf(1), data = buf(2);
    for (let i = 0; i < length; i++) {
      if (!isValid(i)) { out[i] = null; continue; }
      const a = dv.getInt32(offs + 4 * (offset + i), true), b = dv.getInt32(offs + 4 * (offset + i + 1), true);
      out[i] = Buffer.from(u8.subarray(data + a, data + b)).toString('utf8');
    }
  } else if (f === 'z') {
    /* binary: 32-bit offsets */
    const offs = buf(1), data = buf(2);
    for (let i = 0; i < length; i++) {
      if (!isValid(i)) { out[i] = null; continue; }
      const a = dv.getInt32(offs + 4 * (offset + i), true), b = dv.getInt32(offs + 4 * (offset + i + 1), true);
      out[i] = Buffer.from(u8.subarray(data + a, data + b)).toString('hex');
    }
  } else if (f.startsWith('w:')) {
    /* fixed-size binary */
    const w = Number(f.slice(2)), data = buf(1);
    for (let i = 0; i < length; i++)
      out[i] = isValid(i) ? Buffer.from(u8.subarray(data + w * (offset + i), data + w * (offset + i + 1))).toString('hex') : null;
  } else if (f === '+l') {
    const offs = buf(1);
    const child = arrayValues(mem, s.children[0], dv.getUint32(chp, true));
    for (let i = 0; i < length; i++) {
      if (!isValid(i)) { out[i] = null; continue; }
      const a = dv.getInt32(offs + 4 * (offset + i), true), b = dv.getInt32(offs + 4 * (offset + i + 1), true);
      out[i] = child.slice(a, b);
    }
  } else {
    throw new Error('parquet-wasm: unexpected arrow format ' + f);
  }
  return out;
}

export function readWasm(file) {
  const table = pw.readParquet(new Uint8Array(readFileSync(file)));
  const ffi = table.intoFFI();
  const mem = pw.wasmMemory();
  const schema = schemaAt(mem, ffi.schemaAddr());
  const rows = [];
  const addrs = ffi.arrayAddrs();
  for (const a of addrs) {
    const dv = new DataView(mem.buffer);
    const n = Number(dv.getBigInt64(a, true));
    const chp = dv.getUint32(a + 44, true);
    const cols = schema.children.map((cs, i) => arrayValues(mem, cs, new DataView(mem.buffer).getUint32(chp + 4 * i, true)));
    for (let r = 0; r < n; r++) rows.push(Object.fromEntries(schema.children.map((cs, i) => [cs.name, cols[i][r]])));
  }
  ffi.free();
  return rows;
}

// RFC 4180 CSV with a header line: fields quoted when needed; an empty
// unquoted field is null; lists are JSON arrays.
export function parseCsv(text) {
  const recs = [];
  let i = 0, rec = [], field = '', quoted = false, wasQuoted = false;
  while (i < text.length) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') { field += '"'; i += 2; continue; }
        quoted = false; i++; continue;
      }
      field += ch; i++; continue;
    }
    if (ch === '"') { quoted = true; wasQuoted = true; i++; continue; }
    if (ch === ',') { rec.push(wasQuoted || field !== '' ? field : null); field = ''; wasQuoted = false; i++; continue; }
    if (ch === '\r' && text[i + 1] === '\n') {
      rec.push(wasQuoted || field !== '' ? field : null); recs.push(rec); rec = []; field = ''; wasQuoted = false; i += 2; continue;
    }
    if (ch === '\n') throw new Error('CSV: bare LF at ' + i);
    field += ch; i++;
  }
  if (rec.length || field !== '') throw new Error('CSV: no CRLF after the last record');
  const header = recs.shift();
  return { header, rows: recs.map(r => Object.fromEntries(header.map((h, k) => [h, r[k]]))) };
}
