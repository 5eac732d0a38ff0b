#!/bin/bash
# 23-unreadable-block-index-silent-fallback: a blocks/index that is there but
# cannot be read (lost its CURRENT file, replaced by a file, no permission)
# made `chain` fall back to the header scan with exit 0, and `stats`/`export`
# print only the fallback's note. Now every command says what is wrong with
# the index (65 damaged, 74 unreadable) and names --source files, which
# still reads the blk/rev headers on purpose.
. "$(dirname "$0")/lib.sh"
mk() { # a private copy of the regtest datadir, its index damaged by "$@"
    rm -rf "$T/dd"; mkdir -p "$T/dd"; cp -a "$REGTEST/full/regtest" "$T/dd/"; chmod -R u+w "$T/dd"
}
mk; rm "$T/dd/regtest/blocks/index/CURRENT"
for c in "chain" "scan --end 3" "stats --height 3" "export --out $T/o1 --end 5"; do
    run 30 $BK $c --datadir "$T/dd"
    expect "index without CURRENT: $c" 65 "the block index .*/blocks/index has no CURRENT file .*--source files"
    one_line "index without CURRENT: $c"
done
run 30 "$BK" chain --datadir "$T/dd" --source files
expect "index without CURRENT, --source files" 0 ""
mk; rm -rf "$T/dd/regtest/blocks/index"; echo x > "$T/dd/regtest/blocks/index"
run 30 "$BK" chain --datadir "$T/dd"
expect "index replaced by a file" 65 "the block index .*/blocks/index is not a directory"
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
    mk; chmod -R a+rX "$T"; chmod 000 "$T/dd/regtest/blocks/index"
    run 30 setpriv --reuid=nobody --regid=nogroup --clear-groups "$BK" chain --datadir "$T/dd"
    expect "unreadable index (mode 000)" 74 "cannot read the block index .*Permission denied; --source files"
    chmod 755 "$T/dd/regtest/blocks/index"
fi
finish
