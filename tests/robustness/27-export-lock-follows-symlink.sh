#!/bin/bash
# 27-export-lock-follows-symlink: OUT/.blockkit-lock was opened without
# O_NOFOLLOW: a symlink planted under that name had its target truncated and
# overwritten with the exporter's pid (and the symlink was then unlinked).
# Now the lock is opened with O_NOFOLLOW and must be a regular file: anything
# else under its name is an error naming it (exit 74), nothing written, the
# target untouched.
. "$(dirname "$0")/lib.sh"
DD=$REGTEST/full
for kind in symlink dangling fifo; do
    O=$T/$kind; mkdir -p "$O"
    echo "precious contents" > "$T/victim"
    case $kind in
        symlink) ln -s "$T/victim" "$O/.blockkit-lock" ;;
        dangling) ln -s "$T/absent" "$O/.blockkit-lock" ;;
        fifo) mkfifo "$O/.blockkit-lock" ;;
    esac
    for ds in "--end 20 --chunk-size 10" "--datasets utxos"; do
        # shellcheck disable=SC2086
        run 60 "$BK" export --datadir "$DD" --out "$O" $ds --progress never
        expect "${ds#--datasets }: a $kind as the lock refused" 74 "^blockkit: export: i/o error: $O/\.blockkit-lock is not a regular file, and the output directory's lock is taken under that name: move it away$"
    done
    if [ "$(cat "$T/victim")" = "precious contents" ]; then pass "$kind: the target untouched"; else fail "$kind: the target was written"; fi
    if [ ! -e "$T/absent" ]; then pass "$kind: nothing created through it"; else fail "$kind: a file created through the symlink"; rm -f "$T/absent"; fi
    if [ -L "$O/.blockkit-lock" ] || [ -p "$O/.blockkit-lock" ]; then pass "$kind: left in place"; else fail "$kind: removed"; fi
    if [ -z "$(find "$O" -name '*.parquet')" ]; then pass "$kind: no chunk written"; else fail "$kind: chunks written"; fi
    rm -f "$O/.blockkit-lock"
    run 60 "$BK" export --datadir "$DD" --out "$O" --end 20 --chunk-size 10 --progress never
    expect "$kind: moved away: the export completes" 0 ""
done
finish
