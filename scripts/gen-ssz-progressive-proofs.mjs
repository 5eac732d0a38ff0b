import { writeFileSync } from "node:fs";
// Single-branch proofs through progressive types (EIP-7916 lists, EIP-7495
// containers of gloas/heze), from @lodestar/types + @chainsafe/persistent-merkle-tree,
// in the vector runner's proof-line format. Writes tests/data/ssz/progressive_proofs.jsonl.
//   node scripts/gen-ssz-progressive-proofs.mjs   (from the repository root)
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const base = join(root, "tests", "npm", "node_modules") + "/";
const { ssz } = await import(base + "@lodestar/types/lib/index.js");
const pmt = await import(base + "@chainsafe/persistent-merkle-tree/lib/index.js");
const hex = (b) => "0x" + Buffer.from(b).toString("hex");
const cases = [
  ["heze", "Attestation", [["data","target","epoch"], ["signature"], ["committee_bits"], ["aggregation_bits"]]],
  ["heze", "BeaconBlockBody", [["graffiti"], ["attestations", "0"], ["attestations","0","data","slot"], ["proposer_slashings"], ["voluntary_exits","1"]]],
  ["gloas", "ExecutionRequests", [["deposits"], ["withdrawals","0"], ["consolidations"]]],
];
const out = [];
for (const [f, n, paths] of cases) {
  const t = ssz[f][n];
  const v = t.defaultValue();
  if (n === "BeaconBlockBody") { v.attestations = [ssz[f].Attestation.defaultValue(), ssz[f].Attestation.defaultValue()]; v.attestations[0].data.slot = 77; v.voluntaryExits = [ssz[f].SignedVoluntaryExit.defaultValue(), ssz[f].SignedVoluntaryExit.defaultValue()]; v.voluntaryExits[1].message.epoch = 9; }
  if (n === "Attestation") { v.data.target.epoch = 1234; }
  if (n === "ExecutionRequests") { v.withdrawals = [ssz[f].WithdrawalRequest.defaultValue()]; }
  const bytes = t.serialize(v);
  const view = t.toViewDU(v);
  for (const p of paths) {
    const jsPath = p.map(x => /^[0-9]+$/.test(x) ? Number(x) : x.replace(/_([a-z])/g, (_, c) => c.toUpperCase()));
    const { gindex } = t.getPathInfo(jsPath);
    const proof = pmt.createProof(view.node, { type: pmt.ProofType.single, gindex });
    out.push(JSON.stringify({ kind: "single", type: `${f}:${n}`, path: p, gindex: gindex.toString(), depth: proof.witnesses.length,
      ssz: hex(bytes), leaf: hex(proof.leaf), branch: proof.witnesses.map(hex), root: hex(t.hashTreeRoot(v)) }));
  }
}
writeFileSync(join(root, "tests", "data", "ssz", "progressive_proofs.jsonl"), out.join("\n") + "\n");
