// Generates src/ssz/forks_generated.inc: the consensus containers of every
// fork that @lodestar/types defines (phase0 .. the newest), for the mainnet
// and minimal presets, as blockkit schema JSON (one object per fork and
// preset, container names qualified "fork:Name").
//
// Source: the SSZ type objects of @lodestar/types (ChainSafe's Lodestar, which
// follows ethereum/consensus-specs), read through their @chainsafe/ssz type
// classes. Field names are the spec's (the types' JSON keys, snake_case).
//
// Run from the repository root (needs `make deps`'s tests/npm/node_modules):
//   node scripts/gen-ssz-forks.mjs            # writes src/ssz/forks_generated.inc
//   node scripts/gen-ssz-forks.mjs --check    # exit 1 if the file differs
//   node scripts/gen-ssz-forks.mjs --dump P F # print preset P fork F's schema JSON
// Each preset is read in its own node process (LODESTAR_PRESET is read once,
// at import time).
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const npm = join(root, "tests", "npm");
const OUT = join(root, "src", "ssz", "forks_generated.inc");
const PRESETS = ["mainnet", "minimal"];

async function loadTypes() {
  // ESM-only packages: import their entry files by path.
  const lib = (name) => pathToFileURL(join(npm, "node_modules", "@lodestar", name, "lib", "index.js")).href;
  const mod = await import(lib("types"));
  const params = await import(lib("params"));
  const pkg = JSON.parse(readFileSync(join(npm, "node_modules", "@lodestar", "types", "package.json"), "utf8"));
  return { ssz: mod.ssz, version: pkg.version, forkSeq: params.ForkSeq };
}

const isType = (v) => v && typeof v === "object" && typeof v.serialize === "function" && typeof v.hashTreeRoot === "function";
const PROGRESSIVE_MAX = 0xffffffff;
const cap = (limit, open) =>
  limit === undefined || limit >= PROGRESSIVE_MAX ? "" : open === "," ? `,${limit}` : `[${limit}]`;
const ident = (s) => typeof s === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(s);

// The schema JSON of one fork: every container reachable from the fork's
// exports, named by their export name (else their typeName, else Parent_field).
function forkSchema(fork, ns) {
  const names = new Map(); // type object -> name
  const taken = new Map(); // name -> type object
  const order = [];
  const claim = (t, name) => {
    if (names.has(t)) return names.get(t);
    let n = name, k = 2;
    while (taken.has(n) && taken.get(n) !== t) n = `${name}_${k++}`;
    names.set(t, n);
    taken.set(n, t);
    return n;
  };
  const isContainer = (t) => t.fields && typeof t.fields === "object" && !t.elementType;
  // Exported containers keep their export names (typeName first where both).
  for (const [k, v] of Object.entries(ns)) if (isType(v) && isContainer(v) && v.typeName === k) claim(v, k);
  for (const [k, v] of Object.entries(ns)) if (isType(v) && isContainer(v)) claim(v, k);

  const schemas = new Map(); // name -> fields JSON
  const str = (t, parent, field) => {
    const c = t.constructor.name;
    switch (c) {
      case "UintNumberType":
      case "UintBigintType":
        return `uint${t.byteLength * 8}`;
      case "BooleanType":
        return "bool";
      case "ByteVectorType":
      case "ExecutionAddressType":
        return `ByteVector[${t.lengthBytes}]`;
      case "ByteListType":
        return `ByteList[${t.limitBytes}]`;
      case "BitVectorType":
        return `Bitvector[${t.lengthBits}]`;
      case "BitListType":
        return `Bitlist[${t.limitBits}]`;
      case "VectorBasicType":
      case "VectorCompositeType":
        return `Vector[${str(t.elementType, parent, field)},${t.length}]`;
      case "ListBasicType":
      case "ListCompositeType":
      case "ListUintNum64Type":
        return `List[${str(t.elementType, parent, field)},${t.limit}]`;
      // Lodestar caps some progressive lists (EIP-7688's MAX_* bounds) when it
      // deserializes; the cap is kept as blockkit's optional ",N" / "[N]".
      case "ProgressiveListBasicType":
      case "ProgressiveListCompositeType":
        return `ProgressiveList[${str(t.elementType, parent, field)}${cap(t.limit, ",")}]`;
      case "ProgressiveByteListType":
        return `ProgressiveByteList${cap(t.limit ?? t.limitBytes, "[")}`;
      case "ProgressiveBitListType":
        return `ProgressiveBitlist${cap(t.limit ?? t.limitBits, "[")}`;
      case "ContainerType":
      case "ContainerNodeStructType":
      case "ValidatorNodeStructType":
      case "ProgressiveContainerType": {
        const n = names.has(t) ? names.get(t) : claim(t, ident(t.typeName) ? t.typeName : `${parent}_${field}`);
        emit(t, n);
        return `Container:${fork}:${n}`;
      }
      default:
        throw new Error(`${fork}: ${parent}.${field}: unsupported SSZ type ${c}`);
    }
  };
  const emit = (t, n) => {
    if (schemas.has(n)) return;
    schemas.set(n, null); // placeholder against cycles
    const fields = [];
    if (t.constructor.name === "ProgressiveContainerType") {
      const bits = t.activeFields.toBoolArray().map((b) => (b ? 1 : 0));
      fields.push(["__active_fields__", `ProgressiveContainer[${bits.join(",")}]`]);
    }
    for (const e of t.fieldsEntries) fields.push([e.jsonKey, str(e.fieldType, n, e.jsonKey)]);
    schemas.set(n, fields);
  };
  const skipped = [];
  for (const [k, v] of Object.entries(ns)) {
    if (!isType(v) || !isContainer(v)) continue;
    try {
      emit(v, names.get(v));
    } catch (e) {
      skipped.push(`${k}: ${e.message}`);
      schemas.delete(names.get(v));
    }
  }
  // Lodestar keeps SSZ-identical twins (AttestationData / AttestationDataBigint
  // differ only in their JavaScript value types): references go to the
  // shortest name of a structurally equal container, so types print as the
  // spec names them.
  const sig = new Map();
  const signature = (n) => {
    if (sig.has(n)) return sig.get(n);
    sig.set(n, `@${n}`); // cycle guard (containers are not recursive)
    const f = schemas.get(n) || [];
    const v = JSON.stringify(f.map(([k, t]) => [k, t.replace(new RegExp(`Container:${fork}:([A-Za-z0-9_]+)`, "g"), (_, m) => `{${signature(m)}}`)]));
    sig.set(n, v);
    return v;
  };
  const canon = new Map();
  for (const n of schemas.keys()) {
    if (!schemas.get(n)) continue;
    const g = signature(n);
    const c = canon.get(g);
    if (c === undefined || n.length < c.length || (n.length === c.length && n < c)) canon.set(g, n);
  }
  const ref = new RegExp(`Container:${fork}:([A-Za-z0-9_]+)`, "g");
  const out = {};
  for (const n of [...schemas.keys()].sort()) {
    const f = schemas.get(n);
    if (!f) continue;
    out[`${fork}:${n}`] = f.map(([k, t]) => [k, t.replace(ref, (_, m) => `Container:${fork}:${canon.get(signature(m))}`)]);
  }
  return { schema: out, skipped };
}

async function dumpPreset() {
  const { ssz, version, forkSeq } = await loadTypes();
  // Chain order from @lodestar/params' ForkSeq.
  const forks = Object.keys(ssz)
    .filter((k) => ssz[k] && typeof ssz[k] === "object" && !isType(ssz[k]) && ssz[k].BeaconState)
    .sort((a, b) => forkSeq[a] - forkSeq[b]);
  if (forks.some((f) => forkSeq[f] === undefined)) throw new Error("a fork without a ForkSeq");
  const result = { version, order: forks, forks: {} };
  for (const f of forks) result.forks[f] = forkSchema(f, ssz[f]);
  return result;
}

const cstr = (s) => {
  // Split into 500-character pieces: C string literals stay readable and under
  // compilers' per-literal limits; the pieces are concatenated by the compiler.
  const esc = s.replace(/\\/g, "\\\\").replace(/"/g, '\\"');
  const parts = [];
  for (let i = 0; i < esc.length; i += 500) {
    let j = Math.min(i + 500, esc.length);
    while (j < esc.length && esc[j - 1] === "\\") j++; // never split an escape
    parts.push(`    "${esc.slice(i, j)}"`);
    i = j - 500;
  }
  return parts.join("\n");
};

async function main() {
  const args = process.argv.slice(2);
  if (args[0] === "--preset-json") {
    process.stdout.write(JSON.stringify(await dumpPreset()));
    return;
  }
  const per = {};
  for (const p of PRESETS) {
    const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--preset-json"], {
      env: { ...process.env, LODESTAR_PRESET: p },
      maxBuffer: 64 << 20,
    });
    per[p] = JSON.parse(out.toString());
  }
  if (args[0] === "--dump") {
    process.stdout.write(JSON.stringify(per[args[1]].forks[args[2]].schema) + "\n");
    return;
  }
  const forks = per.mainnet.order;
  const lines = [];
  lines.push("/* GENERATED FILE, do not edit: scripts/gen-ssz-forks.mjs from @lodestar/types " + per.mainnet.version + ".");
  lines.push(" * The consensus containers of every fork, mainnet and minimal presets, as");
  lines.push(" * schema JSON with fork-qualified names (\"deneb:BeaconState\"). */");
  for (const p of PRESETS)
    for (const f of forks)
      for (const s of per[p].forks[f].skipped) lines.push(`/* ${p} ${f}: not included: ${s.replace(/\*\//g, "* /")} */`);
  lines.push(`#define BK_SSZ_N_FORKS ${forks.length}`);
  lines.push(`static const char *const bk_ssz_fork_names[BK_SSZ_N_FORKS] = {${forks.map((f) => `"${f}"`).join(", ")}};`);
  for (const p of PRESETS)
    for (const f of forks) {
      lines.push(`static const char bk_ssz_schema_${p}_${f}[] =`);
      lines.push(cstr(JSON.stringify(per[p].forks[f].schema)) + ";");
    }
  lines.push(`static const char *const bk_ssz_fork_schemas[${PRESETS.length}][BK_SSZ_N_FORKS] = {`);
  for (const p of PRESETS) lines.push(`    {${forks.map((f) => `bk_ssz_schema_${p}_${f}`).join(", ")}},`);
  lines.push("};");
  lines.push(`static const size_t bk_ssz_fork_schema_lens[${PRESETS.length}][BK_SSZ_N_FORKS] = {`);
  for (const p of PRESETS) lines.push(`    {${forks.map((f) => `sizeof bk_ssz_schema_${p}_${f} - 1`).join(", ")}},`);
  lines.push("};");
  const text = lines.join("\n") + "\n";
  if (args[0] === "--check") {
    const cur = readFileSync(OUT, "utf8");
    if (cur !== text) {
      console.error(`${OUT} differs from what @lodestar/types ${per.mainnet.version} gives: run node scripts/gen-ssz-forks.mjs`);
      process.exit(1);
    }
    console.log(`forks_generated.inc matches @lodestar/types ${per.mainnet.version} (${forks.join(", ")})`);
    return;
  }
  writeFileSync(OUT, text);
  console.log(`wrote ${OUT}: ${forks.join(", ")}`);
}

main().catch((e) => {
  console.error(e.stack || String(e));
  process.exit(1);
});
