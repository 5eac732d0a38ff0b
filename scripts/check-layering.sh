#!/bin/sh
# The folder layering of the library (design/ARCHITECTURE.md): each folder of
# src/ uses only the folders listed before it in ORDER, and cli/ uses only the
# public headers (include/blockkit/*.h) plus its own (and bench/'s) headers.
#
# The folder graph is computed from the #include lines:
#   "dir/x.h", "../dir/x.h"  an edge to src/dir (a private header);
#   "x.h"                    the including file's own folder;
#   <blockkit/x.h>           an edge to the folder that owns the public
#                            header (the OWNERS table below: every public
#                            header needs a row, so a new one gets a folder).
# A public header's own <blockkit/...> includes count as its owner's.
#
# Fails (exit 1) on an edge to a folder listed later (that is how any loop
# shows), names every loop found, on a src/ folder not in ORDER, on a
# public header without an owner, on src/ including the umbrella
# <blockkit/blockkit.h>, and on cli/ including a private header.
#
#   scripts/check-layering.sh [ROOT]          check (quiet on success but one line)
#   scripts/check-layering.sh --graph [ROOT]  also print the graph and lines per folder
set -eu

show=0
if [ "${1:-}" = --graph ]; then show=1; shift; fi
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"

ORDER="base crypto db bitcoin json engine utxo node index parquet table server ssz"

# public header -> owning folder
OWNERS="
alloc base
status base
stream base
hex base
network base
sha256 crypto
leveldb db
bitcoin bitcoin
undo bitcoin
blockfile bitcoin
blockfilter bitcoin
blockindex bitcoin
blockreader bitcoin
blockstats bitcoin
chain bitcoin
merkle bitcoin
script bitcoin
txindex bitcoin
json json
engine engine
filters engine
scan engine
utxo utxo
utxo_coin utxo
utxo_chainstate utxo
utxo_snapshot utxo
utxo_stats utxo
utxo_source utxo
utxo_rollback utxo
utxo_coinstats utxo
lookup node
stats node
addrindex index
silentpay index
parquet parquet
table table
export table
utxo_table table
addrindex index
silentpay index
electrum server
ssz ssz
"

for d in src/*/; do
  d=${d#src/}; d=${d%/}
  case " $ORDER " in *" $d "*) ;; *) echo "check-layering: src/$d: folder not in the layer order ($ORDER)" >&2; echo "check-layering: FAILED" >&2; exit 1 ;; esac
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# one line per include: "<kind> <from-file> <target>"
for f in $(find src include/blockkit cli -name '*.[ch]' -o -name '*.inc' | sort); do
  sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*\([<"][^>"]*[>"]\).*/\1/p' "$f" |
    while read -r inc; do printf '%s %s\n' "$f" "$inc"; done
done > "$tmp/includes"

printf '%s\n' "$OWNERS" | awk 'NF == 2' > "$tmp/owners"

awk -v order="$ORDER" -v show="$show" -v tmpd="$tmp" '
FILENAME == ARGV[1] { owner[$1] = $2; next }
function fail(msg) { print "check-layering: " msg > "/dev/stderr"; bad = 1 }
function folder_of_src(path,   p) { split(path, p, "/"); return p[2] }
function edge(from, to, file, inc) {
  if (from == to) return
  if (!((from SUBSEP to) in count)) { efrom[++ne] = from; eto[ne] = to; ewhere[ne] = file " " inc }
  count[from SUBSEP to]++
}
BEGIN {
  n = split(order, ord, " ")
  for (i = 1; i <= n; i++) rank[ord[i]] = i
}
{
  file = $1; inc = $2
  quoted = substr(inc, 1, 1) == "\""
  name = substr(inc, 2, length(inc) - 2)
  split(file, fp, "/")
  if (fp[1] == "cli") {
    if (quoted && (name ~ /\// || system("test -f cli/" name " || test -f bench/" name) != 0))
      fail(file ": includes \"" name "\" (cli/ uses <blockkit/*.h> and cli/ or bench/ headers only)")
    next
  }
  if (fp[1] == "include") {
    if (quoted && name !~ /\//) { quoted = 0; name = "blockkit/" name }   # "status.h" beside it
    from = substr(fp[3], 1, length(fp[3]) - 2)
    if (from == "blockkit") next              # the umbrella includes everything
    if (!(from in owner)) { if (!(from in told)) fail("include/blockkit/" fp[3] ": no owning folder in the OWNERS table"); told[from] = 1; next }
    from = owner[from]
  } else {
    from = folder_of_src(file)
    if (!(from in rank) && !(from in toldf)) { fail("src/" from ": folder not in the layer order (" order ")"); toldf[from] = 1 }
  }
  if (!quoted) {
    if (name !~ /^blockkit\//) next           # system and third-party headers
    h = substr(name, 10); h = substr(h, 1, length(h) - 2)
    if (h == "blockkit") { if (fp[1] == "src") fail(file ": includes the umbrella <blockkit/blockkit.h>; include the headers it uses"); next }
    if (!(h in owner)) { if (!(h in told)) fail("include/blockkit/" h ".h: no owning folder in the OWNERS table"); told[h] = 1; next }
    edge(from, owner[h], file, inc)
    next
  }
  # a private header
  while (name ~ /^\.\.\//) name = substr(name, 4)
  if (name ~ /\//) { split(name, np, "/"); to = np[1] } else to = from
  if (fp[1] == "include") { fail(file ": a public header includes the private \"" name "\""); next }
  edge(from, to, file, inc)
}
END {
  for (i = 1; i <= ne; i++) {
    a = efrom[i]; b = eto[i]
    adj[a] = adj[a] " " b
    if ((a in rank) && (b in rank) && rank[b] > rank[a])
      fail("src/" a " includes src/" b " (listed after it), first at " ewhere[i] " (" count[a SUBSEP b] " includes)")
  }
  # loops: a depth-first search from every folder
  for (s = 1; s <= n; s++) {
    start = ord[s]; delete seen; sp = 0
    stack[++sp] = start; path[sp] = start
    while (sp > 0) {
      cur = stack[sp]; p = path[sp]; sp--
      m = split(adj[cur], nx, " ")
      for (k = 1; k <= m; k++) {
        if (nx[k] == start) { loop = p " -> " start; if (!(loop in toldl)) { toldl[loop] = 1; if (index(p, " ") && rank[start] == minrank(p)) fail("loop: " loop) } continue }
        if (nx[k] in seen) continue
        seen[nx[k]] = 1; stack[++sp] = nx[k]; path[sp] = p " -> " nx[k]
      }
    }
  }
  if (show) {
    print "folder graph (edge: includes, count of #include lines):"
    for (i = 1; i <= n; i++) {
      line = sprintf("  %-8s ->", ord[i]); any = 0
      for (j = 1; j <= n; j++)
        if ((ord[i] SUBSEP ord[j]) in count) { line = line sprintf(" %s(%d)", ord[j], count[ord[i] SUBSEP ord[j]]); any = 1 }
      if (any || system("test -d src/" ord[i]) == 0) print line
    }
  }
  exit bad
}
function minrank(p,   q, c, r, best) {
  c = split(p, q, " -> "); best = 1000
  for (r = 1; r <= c; r++) if (rank[q[r]] < best) best = rank[q[r]]
  return best
}
' "$tmp/owners" "$tmp/includes" || { echo "check-layering: FAILED (order: $ORDER)" >&2; exit 1; }

if [ "$show" = 1 ]; then
  echo "lines per folder (wc -l of *.c, *.h, *.inc):"
  for d in $ORDER; do
    [ -d "src/$d" ] || continue
    printf '  src/%-8s %6d\n' "$d" "$(cat src/$d/*.c src/$d/*.h src/$d/*.inc 2>/dev/null | wc -l)"
  done
  printf '  %-12s %6d\n' cli/ "$(cat cli/*.c cli/*.h | wc -l)"
  printf '  %-12s %6d\n' include/ "$(cat include/blockkit/*.h | wc -l)"
fi
echo "check-layering: ok (no folder includes one listed after it; order: $ORDER)"
