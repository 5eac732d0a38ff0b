#!/bin/sh
# Rewrite the SYNOPSIS of docs/blockkit.1 from the option tables: one
# paragraph per command (and subcommand), the line `blockkit CMD --usage`
# prints, with troff's \- for each '-'. tests/cli_contract.sh checks that the
# man page holds exactly these lines.
#   scripts/gen-man-synopsis.sh build/blockkit [docs/blockkit.1]
set -eu
bk=$1
man=${2:-$(dirname "$0")/../docs/blockkit.1}
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.syn"' EXIT
{
    printf '.B blockkit\n.I command\n.RI [ options ]\n.br\n.B blockkit\n.BR \\-\\-help " | " \\-\\-version\n'
    for c in $("$bk" --help | sed -n 's/^  \([a-z0-9]*\) .*/\1/p' | sort -u); do
        # one paragraph per synopsis line (a command with subcommands has one each)
        "$bk" "$c" --usage | sed 's/\\/\\\\/g; s/-/\\-/g; s/^/.PP\n/'
    done
} > "$tmp.syn"
awk -v syn="$tmp.syn" '
    /^\.SH SYNOPSIS/ { print; while ((getline l < syn) > 0) print l; skip = 1; next }
    /^\.SH / { skip = 0 }
    !skip { print }
' "$man" > "$tmp"
cat "$tmp" > "$man"
