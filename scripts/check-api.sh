#!/bin/sh
# The public API's house rules (docs/libblockkit.3, CONVENTIONS):
#   - the umbrella <blockkit/blockkit.h> includes every public header
#     (include/blockkit/*.h) and nothing else;
#   - every public function returning bk_status is declared BK_WARN_UNUSED,
#     except the error recorders listed in RECORDERS (their status is the one
#     they store in a bk_error, returned for `return f(...)`);
#   - BK_NONNULL is not used (the conventions say why).
# Fails (exit 1) naming each header and function that breaks a rule.
#
#   scripts/check-api.sh [ROOT]
set -eu

root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
inc="$root/include/blockkit"
[ -f "$inc/blockkit.h" ] || { echo "check-api: no $inc/blockkit.h" >&2; exit 1; }

RECORDERS="bk_error_set bk_reader_fail bk_reader_error bk_ldb_iter_status
bk_utxo_snapshot_status bk_chainstate_iter_status bk_utxo_rollback_status"

bad=0
n_headers=0
for h in "$inc"/*.h; do
    b=$(basename "$h")
    [ "$b" = blockkit.h ] && continue
    n_headers=$((n_headers + 1))
    if ! grep -q "^#include <blockkit/$b>" "$inc/blockkit.h"; then
        echo "check-api: include/blockkit/blockkit.h does not include <blockkit/$b>" >&2
        bad=1
    fi
done
for b in $(sed -n 's/^#include <blockkit\/\([^>]*\)>.*/\1/p' "$inc/blockkit.h"); do
    if [ ! -f "$inc/$b" ]; then
        echo "check-api: include/blockkit/blockkit.h includes <blockkit/$b>, which is not a public header" >&2
        bad=1
    fi
done

# One line per declaration "header name attributes", comments removed.
decls=$(for h in "$inc"/*.h; do
    awk -v file="$(basename "$h")" '
        { text = text $0 "\n" }
        END {
            while ((i = index(text, "/*")) > 0) {
                rest = substr(text, i + 2)
                j = index(rest, "*/")
                text = substr(text, 1, i - 1) " " (j ? substr(rest, j + 2) : "")
            }
            gsub(/\/\/[^\n]*/, "", text)
            gsub(/#[^\n]*/, "", text)      # preprocessor lines: not declarations
            gsub(/[\n\t ]+/, " ", text)
            n = split(text, stmt, ";")
            for (k = 1; k <= n; k++) {
                s = stmt[k]
                if (!match(s, /BK_API bk_status [a-z_0-9]+ ?\(/)) continue
                d = substr(s, RSTART)
                name = d
                sub(/^BK_API bk_status /, "", name)
                sub(/ ?\(.*/, "", name)
                print file, name, (d ~ /\) ?BK_WARN_UNUSED ?$/ ? "warn" : "nowarn")
            }
        }' "$h"
done)

n_status=0
n_recorders=0
while read -r file name attr; do
    [ -n "$name" ] || continue
    n_status=$((n_status + 1))
    recorder=0
    for r in $RECORDERS; do [ "$r" = "$name" ] && recorder=1; done
    if [ $recorder = 1 ]; then
        n_recorders=$((n_recorders + 1))
    elif [ "$attr" != warn ]; then
        echo "check-api: include/blockkit/$file: $name returns bk_status without BK_WARN_UNUSED" >&2
        bad=1
    fi
done <<EOF
$decls
EOF
for r in $RECORDERS; do
    if ! printf '%s\n' "$decls" | grep -q " $r "; then
        echo "check-api: recorder $r is not declared in include/blockkit (update RECORDERS)" >&2
        bad=1
    fi
done

if grep -rn "BK_NONNULL" "$inc" "$root/src" "$root/cli" >&2; then
    echo "check-api: BK_NONNULL is not used by the library (docs/libblockkit.3, CONVENTIONS)" >&2
    bad=1
fi

[ $bad = 0 ] || exit 1
echo "check-api: $n_headers public headers in the umbrella; $n_status bk_status functions, all BK_WARN_UNUSED but $n_recorders error recorders"
