// EIP-8016 CompatibleUnion vectors from @chainsafe/ssz (the version tests/npm
// pins): writes types.json (the schema of the containers) and vectors.jsonl
// (the vector runner's line format, tests/ssz_vectors.c; zstd-compressed to
// vectors.jsonl.zst) next to this script.
//   node tests/data/ssz/compatible_union/gen-vectors.mjs           write them
//   node tests/data/ssz/compatible_union/gen-vectors.mjs --check   exit 1 unless the committed files are current
// Every type is written once, as a blockkit type string; the script builds
// the @chainsafe/ssz type from that string and the schema below, and
// everything it writes (legality, serializations, validity, roots, JSON,
// gindices, proofs) is what @chainsafe/ssz computes.
import { readFileSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
const here = dirname(fileURLToPath(import.meta.url));
const base = join(here, "..", "..", "..", "npm", "node_modules") + "/";
const S = await import(base + "@chainsafe/ssz/lib/index.js");
const pmt = await import(base + "@chainsafe/persistent-merkle-tree/lib/index.js");

const AF = "__active_fields__";
// The consensus-specs ssz_generic progressive test structs (their compatible_unions
// handler unions them: CompatibleUnionA, CompatibleUnionBC, CompatibleUnionABCA),
// EIP-7495's shapes, and the containers of the union-field cases.
const schema = {
  ProgressiveSingleFieldContainerTestStruct: [[AF, "ProgressiveContainer[1]"], ["A", "byte"]],
  ProgressiveSingleListContainerTestStruct: [[AF, "ProgressiveContainer[0,0,0,0,1]"], ["C", "ProgressiveBitlist"]],
  ProgressiveVarTestStruct: [[AF, "ProgressiveContainer[1,0,1,0,1]"], ["A", "byte"], ["B", "List[uint16,123]"], ["C", "ProgressiveBitlist"]],
  Square: [[AF, "ProgressiveContainer[1,0,1]"], ["side", "uint16"], ["color", "uint8"]],
  Circle: [[AF, "ProgressiveContainer[0,1,1]"], ["radius", "uint16"], ["color", "uint8"]],
  SquareMoved: [[AF, "ProgressiveContainer[1,1]"], ["side", "uint16"], ["color", "uint8"]],
  CircleRenamed: [[AF, "ProgressiveContainer[0,1,1]"], ["radius", "uint16"], ["colour", "uint8"]],
  PlainSquare: [["side", "uint16"], ["color", "uint8"]],
  Point: [["x", "uint64"], ["y", "List[uint8,4]"]],
  PointB: [["x", "uint64"], ["y", "ByteList[4]"]],
  PointC: [["x", "uint64"], ["z", "List[uint8,4]"]],
  Holder: [["id", "uint32"], ["shape", "CompatibleUnion[1:Square,2:Circle]"], ["tail", "uint8"]],
  ProgHolder: [[AF, "ProgressiveContainer[1,1,0,1]"], ["id", "uint16"], ["shapes", "List[CompatibleUnion[1:Square,2:Circle],8]"],
    ["u", "CompatibleUnion[7:uint64]"]],
};
const A = "ProgressiveSingleFieldContainerTestStruct", B = "ProgressiveSingleListContainerTestStruct", C = "ProgressiveVarTestStruct";
const legalTypes = [
  `CompatibleUnion[1:${A}]`,
  `CompatibleUnion[2:${B},3:${C}]`,
  `CompatibleUnion[1:${A},2:${B},3:${C},4:${A}]`,
  "CompatibleUnion[1:Square,2:Circle]",
  "CompatibleUnion[1:uint8,2:byte]",
  "CompatibleUnion[5:uint64,9:uint64,127:uint64]",
  "CompatibleUnion[1:bool]",
  "CompatibleUnion[1:uint256,2:uint256]",
  "CompatibleUnion[1:List[uint16,8],2:List[uint16,8]]",
  "CompatibleUnion[1:ByteList[8],2:List[uint8,8]]",
  "CompatibleUnion[1:ByteVector[5],2:Vector[uint8,5]]",
  "CompatibleUnion[1:Bitlist[20],3:Bitlist[20]]",
  "CompatibleUnion[1:Bitvector[10],2:Bitvector[10]]",
  "CompatibleUnion[1:ProgressiveList[uint64],2:ProgressiveList[uint64]]",
  "CompatibleUnion[1:ProgressiveBitlist,2:ProgressiveBitlist]",
  "CompatibleUnion[1:ProgressiveByteList,2:ProgressiveList[uint8]]",
  "CompatibleUnion[1:Point,2:PointB]",
  "CompatibleUnion[1:Vector[Square,2],2:Vector[Circle,2]]",
  "CompatibleUnion[1:CompatibleUnion[1:Square],2:CompatibleUnion[2:Circle]]",
  "CompatibleUnion[1:ProgressiveList[Square],2:ProgressiveList[Circle]]",
  "CompatibleUnion[1:List[Point,3],2:List[PointB,3]]",
  "Container:Holder",
  "List[CompatibleUnion[1:Square,2:Circle],8]",
  "ProgressiveList[CompatibleUnion[1:Square,2:Circle]]",
  "Vector[CompatibleUnion[1:uint8,2:uint8],3]",
  "Container:ProgHolder",
];
// Types @chainsafe/ssz must refuse (the script stops if it builds one).
const illegalTypes = [
  "CompatibleUnion[0:uint8]",
  "CompatibleUnion[128:uint8]",
  "CompatibleUnion[1:uint8,2:uint16]",
  "CompatibleUnion[1:uint8,2:bool]",
  "CompatibleUnion[1:uint16,2:List[uint16,1]]",
  "CompatibleUnion[1:List[uint8,4],2:List[uint8,5]]",
  "CompatibleUnion[1:List[uint8,4],2:Vector[uint8,4]]",
  "CompatibleUnion[1:Bitlist[4],2:Bitvector[4]]",
  "CompatibleUnion[1:Bitlist[4],2:Bitlist[5]]",
  "CompatibleUnion[1:Bitvector[4],2:Bitvector[5]]",
  "CompatibleUnion[1:Square,2:PlainSquare]",
  "CompatibleUnion[1:Square,2:SquareMoved]",
  "CompatibleUnion[1:Square,2:CircleRenamed]",
  "CompatibleUnion[1:Point,2:PointC]",
  "CompatibleUnion[1:ProgressiveList[uint8],2:ProgressiveList[uint16]]",
  "CompatibleUnion[1:ProgressiveBitlist,2:Bitlist[100]]",
  "CompatibleUnion[1:ProgressiveList[uint64],2:List[uint64,100]]",
  "CompatibleUnion[1:CompatibleUnion[1:uint8],2:CompatibleUnion[1:uint16]]",
  "CompatibleUnion[1:Vector[Square,2],2:Vector[Square,3]]",
];

// ---- type strings -> descriptors -> @chainsafe/ssz types ----
function parse(str) {
  let i = 0;
  const num = () => { const m = /^[0-9]+/.exec(str.slice(i)); if (!m) throw Error(`number at ${i} in ${str}`); i += m[0].length; return Number(m[0]); };
  const eat = (s) => { if (str.startsWith(s, i)) { i += s.length; return true; } return false; };
  const want = (s) => { if (!eat(s)) throw Error(`expected ${s} at ${i} in ${str}`); };
  function ty() {
    for (const n of [8, 16, 32, 64, 128, 256]) if (eat(`uint${n}`)) return { k: "uint", n: n / 8 };
    if (eat("bool")) return { k: "bool" };
    if (eat("byte")) return { k: "uint", n: 1 };
    if (eat("ProgressiveBitlist")) return { k: "pbitlist" };
    if (eat("ProgressiveByteList")) return { k: "plist", elem: { k: "uint", n: 1 }, bytes: true };
    if (eat("ProgressiveList[")) { const e = ty(); want("]"); return { k: "plist", elem: e }; }
    if (eat("CompatibleUnion[")) {
      const opts = [];
      if (str[i] !== "]") for (;;) { const s = num(); want(":"); opts.push([s, ty()]); if (eat("]")) break; want(","); }
      else i++;
      return { k: "cunion", opts };
    }
    for (const [kw, k] of [["Vector[", "vector"], ["List[", "list"]]) if (eat(kw)) { const e = ty(); want(","); const n = num(); want("]"); return { k, elem: e, n }; }
    for (const [kw, k] of [["ByteVector[", "vector"], ["ByteList[", "list"]]) if (eat(kw)) { const n = num(); want("]"); return { k, elem: { k: "uint", n: 1 }, n, bytes: true }; }
    if (eat("Bitvector[")) { const n = num(); want("]"); return { k: "bitvector", n }; }
    if (eat("Bitlist[")) { const n = num(); want("]"); return { k: "bitlist", n }; }
    eat("Container:");
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(str.slice(i));
    if (!m || !schema[m[0]]) throw Error(`unknown container at ${i} in ${str}`);
    i += m[0].length;
    return container(m[0]);
  }
  const d = ty();
  if (i !== str.length) throw Error(`text after the type in ${str}`);
  return d;
}
const containers = {};
function container(name) {
  if (containers[name]) return containers[name];
  let f = schema[name], active = null;
  if (f[0][0] === AF) { active = /\[(.*)\]/.exec(f[0][1])[1].split(",").map((x) => x === "1"); f = f.slice(1); }
  const d = { k: "container", name, active, fields: f.map(([n, t]) => [n, parse(t)]) };
  return (containers[name] = d);
}
const built = new Map();
function cs(d) {
  if (built.has(d)) return built.get(d);
  let t;
  switch (d.k) {
    case "uint": t = d.n <= 4 ? new S.UintNumberType(d.n) : new S.UintBigintType(d.n); break;
    case "bool": t = new S.BooleanType(); break;
    case "pbitlist": t = new S.ProgressiveBitListType(); break;
    case "plist":
      t = d.bytes ? new S.ProgressiveByteListType()
        : d.elem.k === "uint" || d.elem.k === "bool" ? new S.ProgressiveListBasicType(cs(d.elem)) : new S.ProgressiveListCompositeType(cs(d.elem));
      break;
    case "cunion": t = new S.CompatibleUnionType(Object.fromEntries(d.opts.map(([s, o]) => [s, cs(o)]))); break;
    case "vector":
      t = d.bytes ? new S.ByteVectorType(d.n) : basic(d.elem) ? new S.VectorBasicType(cs(d.elem), d.n) : new S.VectorCompositeType(cs(d.elem), d.n);
      break;
    case "list":
      t = d.bytes ? new S.ByteListType(d.n) : basic(d.elem) ? new S.ListBasicType(cs(d.elem), d.n) : new S.ListCompositeType(cs(d.elem), d.n);
      break;
    case "bitvector": t = new S.BitVectorType(d.n); break;
    case "bitlist": t = new S.BitListType(d.n); break;
    case "container": {
      const fields = Object.fromEntries(d.fields.map(([n, f]) => [n, cs(f)]));
      t = d.active ? new S.ProgressiveContainerType(fields, d.active, { typeName: d.name }) : new S.ContainerType(fields, { typeName: d.name });
      break;
    }
  }
  built.set(d, t);
  return t;
}
const basic = (d) => d.k === "uint" || d.k === "bool";

// ---- values ----
let seed = 0x8016;
const rnd = () => { seed ^= seed << 13; seed >>>= 0; seed ^= seed >>> 17; seed ^= seed << 5; seed >>>= 0; return seed / 4294967296; };
const rint = (n) => Math.floor(rnd() * n);
function count(limit, mode, composite) {
  const cap = composite ? 24 : 140;
  if (mode === "zero") return 0;
  if (mode === "one") return Math.min(1, limit);
  if (mode === "max") return Math.min(limit, cap);
  return rint(Math.min(limit, cap) + 1);
}
function value(d, mode, sel) {
  switch (d.k) {
    case "uint": {
      if (mode === "zero") return d.n <= 4 ? 0 : 0n;
      if (mode === "max") return d.n <= 4 ? 2 ** (8 * d.n) - 1 : (1n << BigInt(8 * d.n)) - 1n;
      if (d.n <= 4) return rint(2 ** (8 * d.n));
      let v = 0n;
      for (let k = 0; k < d.n; k++) v = (v << 8n) | BigInt(rint(256));
      return v;
    }
    case "bool": return mode === "max" ? true : mode === "zero" ? false : rnd() < 0.5;
    case "bitvector": case "bitlist": case "pbitlist": {
      const n = d.k === "bitvector" ? d.n : count(d.k === "pbitlist" ? 2 ** 32 : d.n, mode, false) * (d.k === "pbitlist" && mode !== "zero" ? 3 : 1);
      return S.BitArray.fromBoolArray(Array.from({ length: n }, () => mode === "max" ? true : mode === "zero" ? false : rnd() < 0.5));
    }
    case "vector": case "list": case "plist": {
      const n = d.k === "vector" ? d.n : count(d.k === "plist" ? 2 ** 32 : d.n, mode, !basic(d.elem));
      const els = Array.from({ length: n }, () => value(d.elem, mode));
      return d.bytes ? Uint8Array.from(els) : els;
    }
    case "container": return Object.fromEntries(d.fields.map(([n, f]) => [n, value(f, mode)]));
    case "cunion": {
      const [s, o] = sel !== undefined ? d.opts.find(([x]) => x === sel) : d.opts[rint(d.opts.length)];
      return { selector: s, data: value(o, mode) };
    }
  }
  throw Error(d.k);
}

const hex = (b) => "0x" + Buffer.from(b).toString("hex");
const out = [];
const line = (o) => out.push(JSON.stringify(o));
const stats = { valid: 0, invalid: 0, oracle_accepts: 0, illegal: 0, proofs: 0 };

// The oracle's verdict on bytes: a valid line when it decodes them and
// re-encodes the same bytes, else an invalid line.
function verdict(id, str, t, bytes) {
  let v;
  try { v = t.deserialize(bytes); } catch { line({ id, type: str, valid: false, ssz: hex(bytes) }); stats.invalid++; return; }
  const again = t.serialize(v);
  if (Buffer.compare(Buffer.from(again), Buffer.from(bytes)) !== 0) {
    line({ id, type: str, valid: false, oracle_accepts: true, ssz: hex(bytes) });
    stats.invalid++; stats.oracle_accepts++;
    return;
  }
  validLine(id, str, t, v);
}
function validLine(id, str, t, v) {
  const bytes = t.serialize(v);
  const back = t.deserialize(bytes);
  line({ id, type: str, valid: true, ssz: hex(bytes), root: hex(t.hashTreeRoot(back)), value: t.toJson(back) });
  stats.valid++;
  return bytes;
}
const serialized = new Map();
for (const str of legalTypes) {
  const d = parse(str), t = cs(d);
  const samples = [];
  const sels = d.k === "cunion" ? d.opts.map(([s]) => s) : [undefined];
  for (const sel of sels)
    for (const mode of ["zero", "one", "max", "random", "random", "random"]) samples.push(value(d, mode, sel));
  let k = 0;
  const keep = [];
  for (const v of samples) keep.push(validLine(`cu/${str}/${k++}`, str, t, v));
  serialized.set(str, keep);
  // Invalid and edge serializations (the consensus-specs compatible_unions
  // handler's kinds), each judged by the oracle.
  const muts = [new Uint8Array(0)];
  if (d.k === "cunion") {
    const present = new Set(d.opts.map(([s]) => s));
    for (let s = 0; s < 256; s++) muts.push(Uint8Array.from([s]));
    for (const b of keep.slice(0, 12)) {
      for (const s of [0, 128, 255, ...Array.from({ length: 127 }, (_, x) => x + 1).filter((x) => !present.has(x)).slice(0, 2)])
        muts.push(Uint8Array.from([s, ...b.subarray(1)]));
      for (const s of present) if (s !== b[0]) muts.push(Uint8Array.from([s, ...b.subarray(1)]));
      muts.push(Uint8Array.from([b[0], 0, ...b.subarray(1)]));
      muts.push(b.subarray(1));
      muts.push(Uint8Array.from([...b, 0]));
      if (b.length > 1) muts.push(b.subarray(0, b.length - 1));
    }
  } else {
    for (const b of keep.slice(0, 12)) {
      muts.push(Uint8Array.from([...b, 0]));
      if (b.length > 1) muts.push(b.subarray(0, b.length - 1));
      // Every byte that holds a union selector of this value set to 0 and to 3.
      for (let p = 0; p < b.length; p++) {
        const m0 = Uint8Array.from(b); m0[p] = 0; muts.push(m0);
        const m3 = Uint8Array.from(b); m3[p] = 3; muts.push(m3);
      }
    }
  }
  const seen = new Set(keep.map((b) => hex(b)));
  for (const m of muts) {
    const h = hex(m);
    if (seen.has(h)) continue;
    seen.add(h);
    verdict(`cu/${str}/m${k++}`, str, t, m);
  }
}
for (const str of illegalTypes) {
  const d = parse(str); // the script's own parser must take it: the refusal is the oracle's
  let why = null;
  try { cs(d); } catch (e) { why = String(e.message); }
  if (why === null) throw Error(`@chainsafe/ssz accepts ${str}, listed as illegal`);
  if (!/CompatibleUnion/.test(why)) throw Error(`${str}: refused for another reason: ${why}`);
  line({ id: `cu/illegal/${str}`, type: str, valid: false, reason: "illegal_type", ssz: "0x" });
  stats.illegal++;
}

// ---- gindices and proofs ----
// The gindex of a path: @chainsafe/ssz's getPathInfo, except that below a
// CompatibleUnion's "data" the rest is looked up in each option in selector
// order until one has it (getPathInfo uses only the lowest selector's type).
function gindexOf(t, path) {
  if (path.length === 0) return 1n;
  if (t instanceof S.CompatibleUnionType && path[0] === "data" && path.length > 1) {
    for (const s of t.selectors) {
      try { return pmt.concatGindices([2n, gindexOf(t.getType(s), path.slice(1))]); } catch {}
    }
    throw Error(`no option has ${path}`);
  }
  const prop = /^[0-9]+$/.test(path[0]) ? Number(path[0]) : path[0];
  const g = t.getPropertyGindex(prop);
  return pmt.concatGindices([g, gindexOf(t.getPropertyType(prop), path.slice(1))]);
}
function helperIndices(gs) {
  const all = new Set(), paths = new Set();
  for (const g of gs) {
    for (let x = g; x > 1n; x >>= 1n) { all.add(x ^ 1n); paths.add(x); }
    paths.add(1n);
  }
  return [...all].filter((x) => !paths.has(x)).sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
}
const proofCases = [
  ["CompatibleUnion[1:Square,2:Circle]", [["data", "side"], ["data", "radius"], ["data", "color"], ["selector"], ["data"]]],
  [`CompatibleUnion[1:${A},2:${B},3:${C},4:${A}]`, [["data", "A"], ["data", "B"], ["data", "B", "3"], ["data", "C"], ["selector"]]],
  ["Container:Holder", [["shape", "data", "side"], ["shape", "data", "radius"], ["shape", "selector"], ["shape"], ["id"], ["tail"]]],
  ["List[CompatibleUnion[1:Square,2:Circle],8]", [["0", "data", "color"], ["2", "selector"], ["3", "data", "radius"]]],
  ["ProgressiveList[CompatibleUnion[1:Square,2:Circle]]", [["0", "data", "side"], ["5", "data", "radius"], ["1", "selector"]]],
  ["Container:ProgHolder", [["u", "data"], ["u", "selector"], ["shapes", "1", "data", "color"], ["id"]]],
  ["CompatibleUnion[1:CompatibleUnion[1:Square],2:CompatibleUnion[2:Circle]]", [["data", "data", "color"], ["data", "data", "radius"], ["data", "selector"], ["selector"]]],
  ["CompatibleUnion[1:ProgressiveList[uint64],2:ProgressiveList[uint64]]", [["data", "0"], ["data", "40"], ["data", "__len__"]]],
];
for (const [str, paths] of proofCases) {
  const t = cs(parse(str));
  const values = serialized.get(str).filter((b) => b.length > 0);
  for (const bytes of values) {
    const node = t.deserializeToView(bytes).node;
    const root = hex(t.hashTreeRoot(t.deserialize(bytes)));
    const gs = [];
    for (const p of paths) {
      let g;
      const jp = p.map((x) => (x === "__len__" ? x : x));
      try { g = p[p.length - 1] === "__len__" ? pmt.concatGindices([gindexOf(t, p.slice(0, -1)), 3n]) : gindexOf(t, jp); } catch { continue; }
      let proof;
      try { proof = pmt.createProof(node, { type: pmt.ProofType.single, gindex: g }); } catch { continue; } // below the value's tree
      line({ kind: "single", type: str, path: p, gindex: g.toString(), depth: proof.witnesses.length, ssz: hex(bytes),
        leaf: hex(proof.leaf), branch: proof.witnesses.map(hex), root });
      stats.proofs++;
      gs.push(g);
    }
    // Drop indices that are ancestors of others (a multiproof's leaves are disjoint).
    const leaves = [...new Set(gs)].filter((g) => !gs.some((h) => h !== g && (h >> BigInt(h.toString(2).length - g.toString(2).length)) === g));
    if (leaves.length >= 2) {
      const mp = pmt.createProof(node, { type: pmt.ProofType.multi, gindices: leaves });
      const helpers = helperIndices(mp.gindices);
      if (helpers.length !== mp.witnesses.length) throw Error("helper count");
      line({ kind: "multi", type: str, ssz: hex(bytes), gindices: mp.gindices.map(String), helper_indices: helpers.map(String),
        leaves: mp.leaves.map(hex), proof: mp.witnesses.map(hex), root });
      stats.proofs++;
    }
  }
}

const schemaText = JSON.stringify(schema, null, 1) + "\n", vectorText = out.join("\n") + "\n";
const zst = join(here, "vectors.jsonl.zst");
if (process.argv.includes("--check")) {
  const same = readFileSync(join(here, "types.json"), "utf8") === schemaText &&
    execFileSync("zstd", ["-dc", zst], { maxBuffer: 1 << 28 }).toString() === vectorText;
  console.log(same ? "compatible_union vectors are current" : "compatible_union vectors differ from the generator's output");
  process.exit(same ? 0 : 1);
}
writeFileSync(join(here, "types.json"), schemaText);
execFileSync("zstd", ["-19", "-q", "-f", "-o", zst], { input: vectorText, maxBuffer: 1 << 28 });
console.log(JSON.stringify(stats));
