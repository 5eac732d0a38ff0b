// The @chainsafe/ssz peer figures of docs/ssz.md ("Figures: whole states and
// incremental roots"), measured side by side with blockkit on the same bytes:
//   build/blockkit ssz synth electra:BeaconState --count 1048576 > /tmp/state.ssz
//   build/blockkit ssz root electra:BeaconState --raw /tmp/state.ssz      # the root to compare
//   node --max-old-space-size=8000 scripts/peer-chainsafe-state.mjs /tmp/state.ssz
// Uses @lodestar/types and @chainsafe/persistent-merkle-tree from tests/npm
// (make deps) with the hashtree hasher; prints the full root from bytes
// (deserializeToViewDU + hashTreeRoot) and the mean re-root time after one
// balance change. A measurement, not a test: nothing in ctest runs it.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const npm = join(dirname(fileURLToPath(import.meta.url)), "..", "tests", "npm", "node_modules");
const mod = (p) => import(pathToFileURL(join(npm, p)).href);
const { ssz } = await mod("@lodestar/types/lib/index.js");
const pmt = await mod("@chainsafe/persistent-merkle-tree/lib/index.js");
const { hasher } = await mod("@chainsafe/persistent-merkle-tree/lib/hasher/hashtree.js");
pmt.setHasher(hasher);

const file = process.argv[2];
if (!file) {
  console.error("usage: node scripts/peer-chainsafe-state.mjs STATE.ssz   (an electra BeaconState)");
  process.exit(64);
}
const bytes = readFileSync(file);
const t = ssz.electra.BeaconState;
const t0 = performance.now();
const view = t.deserializeToViewDU(bytes);
const t1 = performance.now();
const root = view.hashTreeRoot();
const t2 = performance.now();
console.log(`root 0x${Buffer.from(root).toString("hex")}`);
console.log(`full root from bytes: ${(t2 - t0).toFixed(0)} ms (deserializeToViewDU ${(t1 - t0).toFixed(0)} ms, hashTreeRoot ${(t2 - t1).toFixed(0)} ms)`);
const n = view.balances.length, N = 2000;
let tt = 0;
for (let i = 0; i < N; i++) {
  view.balances.set((i * 2654435761) % n, 32000000000 + i);
  const a = performance.now();
  view.hashTreeRoot();
  tt += performance.now() - a;
}
console.log(`re-root after one balance change: ${((tt / N) * 1000).toFixed(1)} us (mean of ${N})`);
