#!/bin/sh
# The Makefile's order under `make -jN` on a machine where the packages are
# not installed yet: configure must not start before `make deps` is done
# (it once ran while deps was installing: "libsecp256k1 not found"), and
# the npm tools are installed once, not by deps and deps-test at the same
# time. The real Makefile's rules and prerequisites run in a scratch
# directory; only the recipes that install, configure, build or test are
# replaced (by a GNUmakefile that includes it, as the recursive makes read
# too) with ones that log when they start and end.
# Usage: make_order.sh SOURCE_DIR
set -u
src=$1
# Not the settings of a make this runs under (`make test BUILD=...`).
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES GNUMAKEFLAGS
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bk-make-order-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
cp "$src/Makefile" "$tmp/Makefile"
mkdir -p "$tmp/tests/npm"
cat > "$tmp/GNUmakefile" <<'MK'
include Makefile
log = echo "$$(date +%s.%N) $(1)" >> order.log
deps:
	@$(call log,deps start); sleep 1; $(MAKE) --no-print-directory deps-npm; $(call log,deps end)
deps-npm:
	@$(call log,npm start); sleep 1; mkdir -p tests/npm/node_modules; touch tests/npm/node_modules/.package-lock.json; $(call log,npm end)
$(BUILD)/CMakeCache.txt:
	@$(call log,configure start); mkdir -p $(BUILD); touch $@; $(call log,configure end)
build:
	@$(call log,build)
cli:
	@$(call log,build)
test:
	@$(call log,test)
run:
	@$(call log,run)
MK
fail=0
for target in test run; do
    rm -rf "$tmp/build" "$tmp/tests/npm/node_modules" "$tmp/order.log"
    # A missing tool makes deps-check call `make deps` (deps-check's own recipe).
    (cd "$tmp" && make -j4 "$target" BUILD=build DEPS_BIN="cmake no-such-tool-bk" >make.out 2>&1) || {
        echo "FAIL make -j4 $target:"; cat "$tmp/make.out"; fail=1; continue; }
    sort -n "$tmp/order.log" | cut -d' ' -f2- > "$tmp/seq"
    echo "make -j4 $target: $(tr '\n' ',' < "$tmp/seq")"
    at() { grep -nx "$1" "$tmp/seq" | head -n 1 | cut -d: -f1; }
    de=$(at "deps end"); cs=$(at "configure start"); b=$(at build)
    if [ -z "$de" ] || [ -z "$cs" ] || [ "$cs" -lt "$de" ]; then
        echo "FAIL $target: configure started before make deps was done"; fail=1; fi
    if [ -z "$b" ] || [ "$b" -lt "$(at 'configure end')" ]; then
        echo "FAIL $target: the build started before configure was done"; fail=1; fi
    n=$(grep -cx "npm start" "$tmp/seq")
    if [ "$n" != 1 ]; then echo "FAIL $target: npm ci ran $n times"; fail=1; fi
    if [ "$target" = test ]; then
        t=$(at test)
        if [ -z "$t" ] || [ "$t" -lt "$(at 'npm end')" ] || [ "$t" -lt "$b" ]; then
            echo "FAIL test: ctest started before the build and the npm tools"; fail=1; fi
    else
        r=$(at run)
        if [ -z "$r" ] || [ "$r" -lt "$b" ]; then echo "FAIL run: started before the build"; fail=1; fi
    fi
done
exit $fail
