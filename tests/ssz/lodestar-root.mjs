// Test oracle: hash_tree_root of a serialized value with @lodestar/types.
//   node tests/ssz/lodestar-root.mjs FORK NAME FILE   (LODESTAR_PRESET selects the preset)
// Prints 0x + 64 hex. Uses the installed tests/npm/node_modules only.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const npm = join(dirname(fileURLToPath(import.meta.url)), "..", "npm", "node_modules");
const { ssz } = await import(pathToFileURL(join(npm, "@lodestar", "types", "lib", "index.js")).href);
const [fork, name, file] = process.argv.slice(2);
const t = ssz[fork] && ssz[fork][name];
if (!t) {
  console.error(`no type ${fork}.${name}`);
  process.exit(2);
}
const bytes = readFileSync(file);
const root = t.hashTreeRoot(t.deserialize(bytes));
console.log("0x" + Buffer.from(root).toString("hex"));
