// node check_resume.mjs --bk BLOCKKIT --tmp DIR -- EXPORT-SOURCE-ARGS...
// An export killed with SIGKILL at growing delays and rerun until it
// finishes gives the same files, byte for byte, as an uninterrupted export
// (and leaves no temporary file); SIGTERM ends an export with status 143 (128 + 15)
// and removes its unfinished chunk; a rerun of a finished export writes
// nothing; a partial tail chunk is replaced when the range grows; --follow
// writes only complete chunks the tip is --lag past and stops on SIGTERM.
import { spawn, execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';

const argv = process.argv.slice(2);
const sep = argv.indexOf('--');
const opts = argv.slice(0, sep);
const src = argv.slice(sep + 1);
const opt = name => opts[opts.indexOf(name) + 1];
const bk = opt('--bk'), tmp = opt('--tmp');
let failures = 0;
const fail = m => { console.error('FAIL: ' + m); failures++; };

rmSync(tmp, { recursive: true, force: true });
mkdirSync(tmp, { recursive: true });
// LevelDB snapshots go to snap/: a SIGKILLed run leaves its own there,
// and the next run must remove it.
const snap = path.join(tmp, 'snap');
mkdirSync(snap);
const datadirSource = src.includes('--datadir');
const args = out => ['export', ...src, ...(datadirSource ? ['--tmpdir', snap] : []), '--out', out, '-j1',
  '--progress', 'never'];

function tree(dir) {
  const out = {};
  const walk = d => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      // a killed export leaves its lock file (it holds no lock: the kernel
      // released it); it is not part of the dataset
      else if (e.name !== '.blockkit-lock') out[path.relative(dir, p)] = readFileSync(p);
    }
  };
  walk(dir);
  return out;
}

const ref = path.join(tmp, 'ref');
execFileSync(bk, args(ref), { stdio: 'inherit' });
const want = tree(ref);

// ms after the start, or, with afterChain, ms after the export said which
// chain it uses (its signal handler is in place by then: a signal before
// that, while a slow sanitizer build is still starting, kills any program).
function runFor(out, ms, sig, afterChain = false) {
  return new Promise(resolve => {
    const p = spawn(bk, args(out), { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    let t = null;
    const arm = () => { if (!t && ms >= 0) t = setTimeout(() => p.kill(sig), ms); };
    p.stderr.on('data', d => { err += d; if (afterChain && /chain from/.test(err)) arm(); });
    if (!afterChain) arm();
    p.on('exit', (code, signal) => { if (t) clearTimeout(t); resolve({ code, signal, err }); });
  });
}

const out = path.join(tmp, 'killed');
let kills = 0, done = false;
for (let ms = 5; !done && ms < 60000; ms = Math.ceil(ms * 1.6)) {
  const r = await runFor(out, ms, 'SIGKILL');
  if (r.signal === 'SIGKILL') kills++;
  else if (r.code === 0) done = true;
  else fail(`export exited ${r.code}: ${r.err}`);
}
if (!done) {
  const r = await runFor(out, -1);
  if (r.code !== 0) fail(`final run exited ${r.code}: ${r.err}`);
}
const got = tree(out);
if (datadirSource) {
  const left = readdirSync(snap);
  if (left.length) fail(`snapshots left after ${kills} kills and a complete run: ${left.join(' ')}`);
}
const names = Object.keys(got).sort(), wantNames = Object.keys(want).sort();
if (JSON.stringify(names) !== JSON.stringify(wantNames))
  fail(`files after ${kills} kills: ${names.filter(n => !(n in want)).join(' ')} extra, ${wantNames.filter(n => !(n in got)).join(' ')} missing`);
// The chunk files byte for byte; the catalogue (_blockkit/chunks.ndjson)
// line for line but for mtime_ns (when each file was renamed), the
// datasets manifest byte for byte.
const noMtime = b => b.toString().split('\n').map(l => l.replace(/,"mtime_ns":-?\d+/, '')).join('\n');
for (const n of wantNames) {
  if (!got[n]) continue;
  const same = n === path.join('_blockkit', 'chunks.ndjson') ? noMtime(got[n]) === noMtime(want[n]) : got[n].equals(want[n]);
  if (!same) fail(`${n} differs after ${kills} kills`);
}
if (!want[path.join('_blockkit', 'chunks.ndjson')]) fail('no catalogue written');

// SIGTERM: clean stop, status 143, no temporary file left by this run.
const out2 = path.join(tmp, 'term');
const r = await runFor(out2, 30, 'SIGTERM', true);
if (r.code !== 143) fail(`SIGTERM: status ${r.code} signal ${r.signal}: ${r.err}`);
try {
  const left = Object.keys(tree(out2)).filter(n => n.includes('.tmp-'));
  if (left.length) fail(`SIGTERM left ${left}`);
} catch { /* nothing written yet */ }

// A finished export is skipped whole on a rerun.
const before = Object.fromEntries(Object.keys(want).map(n => [n, statSync(path.join(ref, n)).mtimeMs]));
const again = execFileSync(bk, [...args(ref), '--summary'], { stdio: ['ignore', 'ignore', 'pipe'] });
void again;
for (const n of Object.keys(want)) if (statSync(path.join(ref, n)).mtimeMs !== before[n]) fail(`rerun rewrote ${n}`);

// A partial tail chunk is replaced by the longer one.
const tail = path.join(tmp, 'tail');
const endAt = src.indexOf('--end');
const base = endAt < 0 ? src : src.filter((a, i) => i !== endAt && i !== endAt + 1);
const startAt = base.indexOf('--start');
const start = startAt < 0 ? 0 : Number(base[startAt + 1]);
execFileSync(bk, ['export', ...base, '--end', String(start + 3), '--out', tail, '--datasets', 'blocks', '--progress', 'never']);
execFileSync(bk, ['export', ...base, '--end', String(start + 7), '--out', tail, '--datasets', 'blocks', '--progress', 'never']);
const tailFiles = readdirSync(path.join(tail, 'blocks'));
if (tailFiles.length !== 1 || !tailFiles[0].endsWith(`_${String(start + 7).padStart(8, '0')}.parquet`))
  fail(`tail chunks: ${tailFiles}`);

// --follow: only complete chunks (the tip --lag past their end), then a
// clean stop on SIGTERM.
const fol = path.join(tmp, 'follow');
const fr = await new Promise(resolve => {
  const p = spawn(bk, ['export', ...base, '--out', fol, '--datasets', 'blocks', '--follow', '--lag', '6', '--poll', '1',
    '--progress', 'never'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  p.stderr.on('data', d => { err += d; });
  const iv = setInterval(() => {
    try { if (readdirSync(path.join(fol, 'blocks')).some(n => n.endsWith('.parquet'))) { clearInterval(iv); setTimeout(() => p.kill('SIGTERM'), 1500); } } catch { /* not yet */ }
  }, 100);
  p.on('exit', (code, signal) => { clearInterval(iv); resolve({ code, signal, err }); });
});
if (fr.code !== 143) fail(`--follow: status ${fr.code} signal ${fr.signal}: ${fr.err}`);
const chunk = Number(base[base.indexOf('--chunk-size') + 1]);
const tipFiles = readdirSync(path.join(ref, 'blocks')).sort();
const lastRef = tipFiles[tipFiles.length - 1].match(/_(\d+)\.parquet$/)[1];
const tipH = Number(lastRef); // the reference export ends at the tip
for (const n of readdirSync(path.join(fol, 'blocks'))) {
  const m = n.match(/_(\d+)_(\d+)\.parquet$/);
  if (!m) { fail(`--follow left ${n}`); continue; }
  const last = Number(m[2]);
  if ((last + 1) % chunk !== 0) fail(`--follow wrote a partial chunk ${n}`);
  if (last + 6 > tipH) fail(`--follow wrote ${n} less than 6 blocks below the tip ${tipH}`);
}
const nFollow = readdirSync(path.join(fol, 'blocks')).length;
const expectFollow = tipFiles.filter(n => { const l = Number(n.match(/_(\d+)\.parquet$/)[1]); return (l + 1) % chunk === 0 && l + 6 <= tipH; }).length;
if (nFollow !== expectFollow) fail(`--follow wrote ${nFollow} chunks, expected ${expectFollow}`);

if (failures) process.exit(1);
console.log(`ok: ${wantNames.length} files identical after ${kills} SIGKILLs and resumes; SIGTERM clean; rerun skips; tail replaced`);
