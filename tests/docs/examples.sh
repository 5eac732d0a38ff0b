#!/bin/sh
# Every shell example in README.md and docs/*.md runs as written on the
# bundled data. Usage: examples.sh SOURCE_DIR BUILD_DIR
#
# What is an example:
#  * each command line of a ```sh block (a trailing "\" joins the next line);
#  * each "$ " line of a ```console block; the lines after it, up to the next
#    "$ " line, are its output (stdout and stderr), compared exactly unless
#    one of them contains "..." (an abridged output).
# Rules:
#  * each block runs in a fresh directory holding data/, tests/, docs/,
#    scripts/ (links into the source tree) and build/ (the build directory),
#    with `blockkit` on PATH, HOME set to that directory and TMPDIR to a
#    fresh directory of its own; every command must exit 0 (write
#    `; echo "exit $?"` where a failure is the point);
#  * a command line that starts with NAME= (as `out=$(mktemp -d)`) sets a
#    shell variable for the lines after it in the same block, as in an
#    interactive shell (each line runs in a shell of its own);
#  * README.md's examples leave nothing in the directory they run from (the
#    source tree, run as written): a file or directory there that was not
#    there before the block fails the test (they write into $out, a mktemp
#    directory); for docs/*.md such files are listed as notes.
#  * a line ending in a "# (needs ...)" comment is not run: it needs
#    something the bundled data cannot stand in for (a node's datadir, a
#    cloud account);
#  * `make ...` lines are not run here (each target has its own test);
#  * `blockkit bench` runs with --min-time 5 --epochs 1 appended and, when
#    the example has no --filter, --filter '^(MerkleRoot|SHA256/1MiB/openssl)$':
#    the full run takes minutes.
set -u
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bk-examples-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0 ran=0 skipped=0

# Split every doc into records: "B <file>:<line>" starts a block, "C <cmd>"
# a command, "O <text>" an output line of the command before it.
for f in "$src/README.md" "$src"/docs/*.md; do
    awk -v file="${f#$src/}" '
        function flush() { if (cmd != "") { print "C " cmd; cmd = "" } }
        /^```/ {
            if (!inb) { lang = substr($0, 4); inb = 1; if (lang == "sh" || lang == "console") print "B " file ":" NR " " lang; next }
            flush(); inb = 0; lang = ""; next
        }
        !inb || (lang != "sh" && lang != "console") { next }
        cont { cmd = substr(cmd, 1, length(cmd) - 1) " " $0; if ($0 !~ /\\$/) { cont = 0; if (lang == "sh") flush() } next }
        lang == "sh" {
            if ($0 ~ /^[ \t]*(#|$)/) next
            cmd = $0; if ($0 ~ /\\$/) cont = 1; else flush(); next
        }
        lang == "console" {
            if ($0 ~ /^\$ /) { flush(); cmd = substr($0, 3); if ($0 ~ /\\$/) cont = 1; next }
            flush(); print "O " $0
        }
    ' "$f"
done > "$tmp/records"

run_cmd() {   # $1 = command text; runs in $dir; output in $tmp/out
    c=$1
    # The variables set by the block's earlier NAME=... lines; a line that
    # is itself such an assignment records its value for the next ones.
    case "$c" in
    [A-Za-z_]*=*)
        name=${c%%=*}
        case "$name" in *[!A-Za-z0-9_]*) ;; *)
            c="$c
[ -z \"\${$name:-}\" ] || printf \"%s='%s'\\\\n\" $name \"\$$name\" >> '$tmp/env'" ;;
        esac ;;
    esac
    c=". '$tmp/env'
$c"
    case "$c" in
    *"blockkit bench"*)
        case "$c" in *--filter*) add="--min-time 5 --epochs 1" ;;
                     *) add="--min-time 5 --epochs 1 --filter '^(MerkleRoot|SHA256/1MiB/openssl)\$'" ;; esac
        c=$(printf '%s\n' "$c" | sed -E "s#(blockkit bench[^|>;&]*[^|>;& ])#\\1 $add#") ;;
    esac
    # bash with pipefail where there is bash: a pipeline fails when any
    # part of it does (as `blockkit scan ... | gzip` must).
    if command -v bash >/dev/null 2>&1; then set -- bash -o pipefail -c; else set -- sh -c; fi
    (cd "$dir" && HOME="$dir" TMPDIR="$tmp/tmpdir" PATH="$build:$PATH" timeout 120 "$@" "$c") > "$tmp/out" 2>&1
}

# What a block left in its directory beyond the links and copies it got.
check_left() {
    [ -n "$dir" ] || return 0
    left=$(ls -A "$dir" | grep -vxE 'data|tests|docs|scripts|build' | tr '\n' ' ')
    [ -n "$left" ] || return 0
    case "$where" in
    README.md:*) echo "FAIL $where: left in the working directory (the source tree, run as written): $left"
                 fail=1 ;;
    *) echo "note $where: left in the working directory: $left" ;;
    esac
}

check_prev() {   # compare the previous console command's output, if any
    [ -n "${pending:-}" ] || return 0
    if [ "$abridged" = 0 ] && ! cmp -s "$tmp/out" "$tmp/want"; then
        echo "FAIL $where: output differs: $pending"
        diff "$tmp/want" "$tmp/out" | head -20
        fail=1
    fi
    pending=
}

where= dir= pending= abridged=0 lang=
while IFS= read -r rec; do
    kind=${rec%% *}
    body=${rec#? }
    case "$kind" in
    B)
        check_prev
        check_left
        where=${body% *}
        lang=${body##* }
        dir="$tmp/run.$ran.$skipped"
        rm -rf "$dir" "$tmp/tmpdir"
        mkdir -p "$dir" "$tmp/tmpdir"
        : > "$tmp/env"
        # data/ and tests/ are links (examples only read them); docs/ and
        # scripts/ are copies, so an example that writes there (the bench
        # reproduction's docs/bench-results.json) cannot touch the tree.
        for d in data tests; do ln -s "$src/$d" "$dir/$d"; done
        for d in docs scripts; do cp -R "$src/$d" "$dir/$d"; done
        ln -s "$build" "$dir/build"
        ;;
    C)
        check_prev
        cmd=$body
        case "$cmd" in
        *"# (needs"*) skipped=$((skipped + 1)); echo "skip $where: $cmd"; continue ;;
        make\ *) skipped=$((skipped + 1)); echo "skip $where: $cmd (a make target)"; continue ;;
        esac
        ran=$((ran + 1))
        if run_cmd "$cmd"; then
            echo "ok   $where: $(printf '%s' "$cmd" | head -n 1)"
        else
            echo "FAIL $where: exit $?: $cmd"
            head -20 "$tmp/out"
            fail=1
        fi
        if [ "$lang" = console ]; then pending=$cmd; abridged=0; : > "$tmp/want"; fi
        ;;
    O)
        printf '%s\n' "$body" >> "$tmp/want"
        case "$body" in *...*) abridged=1 ;; esac
        ;;
    esac
done < "$tmp/records"
check_prev
check_left
echo "$ran examples run, $skipped skipped"
[ "$ran" -gt 0 ] || fail=1
exit $fail
