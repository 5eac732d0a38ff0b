// Generates tests/data/ssz/forks_<preset>.jsonl.zst: for every container of
// every fork that @lodestar/types defines, values serialized, hashed and
// turned into JSON by @lodestar/types / @chainsafe/ssz (the oracle), in the
// vector runner's line format (tests/ssz_vectors.c):
//   {"src":"lodestar","preset":..,"type":"fork:Name","case":..,"valid":true,"ssz":"0x..","value":..,"root":"0x.."}
//   {"src":"lodestar","preset":..,"type":..,"case":"invalid_..","valid":false,"ssz":"0x.."}
// Cases per container: the default value, random values (empty and, for small
// limits, maximal lists; progressive lists across their subtree boundaries),
// and invalid encodings derived from them (truncated, extended, a bad first
// offset, a bitlist without its delimiter) kept only where the oracle rejects
// them too. Deterministic (seeded PRNG).
//
//   node scripts/gen-ssz-fork-vectors.mjs        (from the repository root; needs
//                                                 tests/npm/node_modules, zstd)
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const npm = join(root, "tests", "npm");
const lib = (scope, name) => pathToFileURL(join(npm, "node_modules", scope, name, "lib", "index.js")).href;

let seed = 0x12345678;
const rnd = () => {
  // xorshift32
  seed ^= seed << 13;
  seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  seed >>>= 0;
  return seed / 4294967296;
};
const rint = (n) => Math.floor(rnd() * n);
// "0x.." string values in lowercase (keys untouched: some API types use camelCase).
const lowerHex = (v) =>
  typeof v === "string" ? (v.startsWith("0x") ? v.toLowerCase() : v)
  : Array.isArray(v) ? v.map(lowerHex)
  : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, lowerHex(x)]))
  : v;

async function gen(preset) {
  const { ssz } = await import(lib("@lodestar", "types"));
  const S = await import(pathToFileURL(join(npm, "node_modules", "@chainsafe", "ssz", "lib", "index.js")).href);
  const ourSchema = JSON.parse(
    execFileSync(process.execPath, [join(root, "scripts", "gen-ssz-forks.mjs"), "--preset-json"], {
      env: { ...process.env, LODESTAR_PRESET: preset },
      maxBuffer: 64 << 20,
    }).toString(),
  );
  const hex = (b) => "0x" + Buffer.from(b).toString("hex");

  // A random value of type t; `big` marks whole-vector randomness allowed.
  const rand = (t, mode, depth = 0) => {
    const c = t.constructor.name;
    switch (c) {
      case "UintNumberType":
        if (mode === "max" && t.byteLength <= 4) return 2 ** (8 * t.byteLength) - 1;
        return t.byteLength >= 8 ? rint(2 ** 52) : rint(2 ** (8 * t.byteLength));
      case "UintBigintType": {
        let v = 0n;
        for (let i = 0; i < t.byteLength; i++) v = (v << 8n) | BigInt(mode === "max" ? 255 : rint(256));
        return v;
      }
      case "BooleanType":
        return rnd() < 0.5;
      case "ByteVectorType":
      case "ExecutionAddressType": {
        const b = new Uint8Array(t.lengthBytes);
        if (t.lengthBytes <= 256) for (let i = 0; i < b.length; i++) b[i] = rint(256);
        else for (let k = 0; k < 8; k++) b[rint(b.length)] = rint(256);
        return b;
      }
      case "ByteListType":
      case "ProgressiveByteListType": {
        const lim = c === "ByteListType" ? t.limitBytes : Math.min(t.limit ?? t.limitBytes ?? 80, 80);
        const n = mode === "empty" ? 0 : mode === "max" && lim <= 64 ? lim : rint(Math.min(lim, 80) + 1);
        const b = new Uint8Array(n);
        for (let i = 0; i < n; i++) b[i] = rint(256);
        return b;
      }
      case "BitVectorType":
        return S.BitArray.fromBoolArray(Array.from({ length: t.lengthBits }, () => rnd() < 0.5));
      case "BitListType":
      case "ProgressiveBitListType": {
        const lim = c === "BitListType" ? t.limitBits : Math.min(t.limit ?? t.limitBits ?? 2100, 2100);
        const n = mode === "empty" ? 0 : mode === "max" && lim <= 2048 ? lim : rint(Math.min(lim, 300) + 1);
        return S.BitArray.fromBoolArray(Array.from({ length: n }, () => rnd() < 0.5));
      }
      case "VectorBasicType":
      case "VectorCompositeType": {
        if (t.length > 64) {
          // Big vectors (state roots, randao mixes): the default, a few elements set.
          const v = t.defaultValue();
          for (let k = 0; k < 4; k++) v[rint(t.length)] = rand(t.elementType, mode, depth + 1);
          return v;
        }
        return Array.from({ length: t.length }, () => rand(t.elementType, mode, depth + 1));
      }
      case "ListBasicType":
      case "ListCompositeType":
      case "ListUintNum64Type":
      case "ProgressiveListBasicType":
      case "ProgressiveListCompositeType": {
        const prog = c.startsWith("Progressive");
        const lim = prog ? Math.min(t.limit, 30) : t.limit;
        let n;
        if (mode === "empty" || depth > 3) n = 0;
        else if (mode === "max" && lim <= 16) n = lim;
        else if (prog) n = Math.min(lim, [0, 1, 2, 5, 6, 21, 22][rint(7)]);
        else n = rint(Math.min(lim, 4) + 1);
        return Array.from({ length: n }, () => rand(t.elementType, mode, depth + 1));
      }
      case "ContainerType":
      case "ContainerNodeStructType":
      case "ValidatorNodeStructType":
      case "ProgressiveContainerType": {
        const v = {};
        for (const e of t.fieldsEntries) v[e.fieldName] = rand(e.fieldType, mode, depth + 1);
        return v;
      }
      default:
        throw new Error(`unsupported ${c}`);
    }
  };

  const lines = { push: (l) => process.stdout.write(l + "\n") };
  const rejects = (t, bytes) => {
    try {
      t.deserialize(bytes);
      return false;
    } catch {
      return true;
    }
  };
  for (const fork of ourSchema.order) {
    const ns = ssz[fork];
    const names = Object.keys(ourSchema.forks[fork].schema).map((k) => k.slice(fork.length + 1));
    for (const name of names) {
      const t = ns[name];
      if (!t || !t.fieldsEntries) continue; // named only through a parent: covered there
      const cases = [["default", t.defaultValue()]];
      for (const mode of ["random", "random", "empty", "max"]) cases.push([mode, rand(t, mode)]);
      let k = 0;
      for (const [mode, v] of cases) {
        const bytes = t.serialize(v);
        // Keep the files small: big values (a mainnet BeaconState is megabytes)
        // only as their default and one random value.
        if (bytes.length > (1 << 18) && mode !== "default" && k > 1) {
          k++;
          continue;
        }
        const back = t.deserialize(bytes);
        const line = {
          src: "lodestar",
          preset,
          type: `${fork}:${name}`,
          case: `${mode}_${k++}`,
          valid: true,
          ssz: hex(bytes),
          // Lodestar prints execution addresses EIP-55 mixed-case; the spec
          // tests' value form (and blockkit's) is lowercase hex.
          value: lowerHex(t.toJson(back)),
          root: hex(t.hashTreeRoot(back)),
        };
        lines.push(JSON.stringify(line));
        if (mode === "default") continue;
        // Invalid encodings the oracle rejects.
        const bad = [];
        if (bytes.length > 0) bad.push(["truncated", bytes.subarray(0, bytes.length - 1)]);
        bad.push(["extended", Uint8Array.from([...bytes, 0])]);
        if (!t.isFixedLen && t.fixedEnd >= 4 && bytes.length >= 4) {
          const b = Uint8Array.from(bytes);
          // the first variable field's offset, off by one
          const off = t.variableOffsetsPosition ? t.variableOffsetsPosition[0] : undefined;
          if (off !== undefined && off + 4 <= b.length) {
            const dv = new DataView(b.buffer);
            dv.setUint32(off, dv.getUint32(off, true) + 1, true);
            bad.push(["first_offset_plus_1", b]);
          }
        }
        for (const [why, b] of bad)
          if (rejects(t, b))
            lines.push(JSON.stringify({ src: "lodestar", preset, type: `${fork}:${name}`, case: `invalid_${why}_${k}`, valid: false, ssz: hex(b) }));
      }
    }
  }
}

async function main() {
  const preset = process.argv[2];
  if (preset === "--one") {
    await gen(process.argv[3]);
    return;
  }
  for (const p of ["mainnet", "minimal"]) {
    const text = execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--one", p], {
      env: { ...process.env, LODESTAR_PRESET: p },
      maxBuffer: 1 << 30,
    });
    const out = join(root, "tests", "data", "ssz", `forks_${p}.jsonl.zst`);
    writeFileSync(out, execFileSync("zstd", ["-19", "-q", "-c"], { input: text, maxBuffer: 1 << 30 }));
    let n = 0;
    for (let i = text.indexOf(10); i >= 0; i = text.indexOf(10, i + 1)) n++;
    console.log(`wrote ${out}: ${n} lines`);
  }
}

main().catch((e) => {
  console.error(e.stack || String(e));
  process.exit(1);
});
