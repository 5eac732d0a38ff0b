// Expected answers for tests/sp/sp_cli.sh, computed from the vector
// (tests/data/regtest/sp/tweaks.ndjson.zst, decompressed) and Core's
// own files, independently of blockkit's silent-payment code:
//   blocks VECTOR BESTCHAIN  the per-block form for every height of Core's best
//                            chain (tests/data/regtest/bestchain.tsv: height, hash)
//   unlabelled SCAN          of `sp scan --labels N` lines, those a scan without
//                            labels 1..N finds
//   dust SATS VECTOR         the --txs lines whose taproot outputs are not all below SATS
//   cut UTXO_CSV VECTOR      the --txs lines with a taproot output in the UTXO set
//                            (`utxo dump --format csv`: txid, vout first)
//   undo BLOCKSDIR PREV OUT  the rev record of the block on PREV in the rev*.dat files
//                            (the one whose checksum is SHA256d(PREV || CBlockUndo)),
//                            XORed back with xor.dat, written to OUT
import fs from 'node:fs';
import crypto from 'node:crypto';

const lines = (f) => fs.readFileSync(f, 'utf8').split('\n').filter((l) => l.length);
const [cmd, ...a] = process.argv.slice(2);
const out = [];
if (cmd === 'blocks') {
  const by = new Map();
  for (const l of lines(a[0])) {
    const o = JSON.parse(l);
    if (!by.has(o.height)) by.set(o.height, []);
    by.get(o.height).push(o.tweak);
  }
  for (const l of lines(a[1])) {
    const [height, hash] = l.split('\t');
    out.push(JSON.stringify({ height: Number(height), hash, tweaks: by.get(Number(height)) || [] }));
  }
} else if (cmd === 'unlabelled') {
  // a scan without labels 1..N: per tx, the found outputs in k order up to
  // the first one with a label other than the change label 0
  let tx = null, stopped = false;
  for (const l of lines(a[0])) {
    const o = JSON.parse(l);
    if (o.txid !== tx) { tx = o.txid; stopped = false; }
    if (o.label !== null && o.label !== 0) stopped = true;
    if (!stopped) out.push(l);
  }
} else if (cmd === 'dust') {
  const s = Number(a[0]);
  for (const l of lines(a[1])) if (JSON.parse(l).outputs.some((o) => o.value >= s)) out.push(l);
} else if (cmd === 'cut') {
  const unspent = new Set(lines(a[0]).slice(1).map((r) => r.split(',').slice(0, 2).join(':')));
  for (const l of lines(a[1])) {
    const o = JSON.parse(l);
    if (o.outputs.some((x) => unspent.has(`${o.txid}:${x.vout}`))) out.push(l);
  }
} else if (cmd === 'undo') {
  const [dir, prev, dest] = a;
  const key = fs.existsSync(`${dir}/xor.dat`) ? fs.readFileSync(`${dir}/xor.dat`) : Buffer.alloc(8);
  const prevInternal = Buffer.from(prev, 'hex').reverse();
  const sha256d = (b) => crypto.createHash('sha256').update(crypto.createHash('sha256').update(b).digest()).digest();
  let found = null;
  for (const f of fs.readdirSync(dir).filter((n) => /^rev\d{5}\.dat$/.test(n)).sort()) {
    const raw = fs.readFileSync(`${dir}/${f}`);
    const d = Buffer.from(raw.map((b, i) => b ^ key[i % key.length]));
    for (let p = 0; p + 8 <= d.length && !found;) {
      const n = d.readUInt32LE(p + 4);
      if (n === 0 || p + 8 + n + 32 > d.length) break;
      const body = d.subarray(p + 8, p + 8 + n), sum = d.subarray(p + 8 + n, p + 8 + n + 32);
      if (sha256d(Buffer.concat([prevInternal, body])).equals(sum)) found = d.subarray(p, p + 8 + n + 32);
      p += 8 + n + 32;
    }
    if (found) break;
  }
  if (!found) { console.error(`no undo record on ${prev}`); process.exit(1); }
  fs.writeFileSync(dest, found);
  process.exit(0);
} else {
  console.error('usage: sp_expect.mjs blocks|dust|cut|undo ...');
  process.exit(64);
}
process.stdout.write(out.map((l) => l + '\n').join(''));
