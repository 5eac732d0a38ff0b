#!/bin/sh
# The man page's SYNOPSIS (docs/blockkit.1) against every command's --help:
# for each command, the options the synopsis names must be exactly the
# options its --help names (long options, and -o / -j; --help itself
# aside). Usage: man_synopsis.sh BLOCKKIT MANPAGE
set -u
bk=$1
man=$2
fail=0
# Options named in the synopsis lines of one command (".B blockkit CMD").
man_opts() {
    awk '/^\.SH SYNOPSIS/ { s = 1; next } /^\.SH / { s = 0 } s' "$man" |
        awk -v c="$1" '/^\.B blockkit / { cur = $3 } cur == c' |
        sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' |
        grep -oE '(^|[^A-Za-z0-9-])--?[a-z][a-z0-9-]*' | sed 's/^[^-]*//' |
        grep -vE '^-[a-z][a-z0-9-]' | grep -vxE -- '--help|-h' | sort -u
}
help_opts() {
    "$bk" "$1" --help |
        grep -oE '(^|[][ (|,])--?[a-z][a-z0-9-]*' | sed 's/^[^-]*//' |
        grep -vE '^-[a-z][a-z0-9-]' | grep -vxE -- '--help|-h' | sort -u
}
cmds=$("$bk" --help | awk '/^commands:/ { s = 1; next } s && /^  [a-z]/ { print $1 }' | sort -u)
[ -n "$cmds" ] || { echo "no commands in blockkit --help"; exit 1; }
n=0
for c in $cmds; do
    n=$((n + 1))
    m=$(man_opts "$c")
    h=$(help_opts "$c")
    if ! grep -q "^\.B blockkit $c" "$man"; then
        echo "FAIL $c: no synopsis line in $man"
        fail=1
        continue
    fi
    if [ "$m" != "$h" ]; then
        echo "FAIL $c: synopsis and --help differ"
        echo "  only in the synopsis: $(printf '%s\n' "$m" | grep -vxF -- "$h" | tr '\n' ' ')"
        echo "  only in --help:       $(printf '%s\n' "$h" | grep -vxF -- "$m" | tr '\n' ' ')"
        fail=1
    else
        echo "ok   $c: $(printf '%s' "$m" | tr '\n' ' ')"
    fi
done
echo "$n commands checked"
exit $fail
