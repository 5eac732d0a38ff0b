#!/bin/sh
# scripts/check-layering.sh on small made-up trees: a clean one passes, a
# folder including one listed after it fails naming the include, a loop
# fails naming the loop, cli/ including a private header fails.
#   tests/layering_selftest.sh SOURCE_DIR
set -u
src=${1:?usage: layering_selftest.sh SOURCE_DIR}
check=$src/scripts/check-layering.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
tree() { rm -rf "$T/t"; mkdir -p "$T/t/src/base" "$T/t/src/bitcoin" "$T/t/src/json" "$T/t/include/blockkit" "$T/t/cli"; }
expect() { # rc pattern
  "$check" "$T/t" > "$T/out" 2>&1; rc=$?
  if [ "$rc" != "$1" ] || ! grep -q -- "$2" "$T/out"; then
    echo "FAIL: expected rc $1 and '$2', got rc $rc:"; cat "$T/out"; fails=$((fails + 1))
  else echo "ok: rc $rc, '$2'"; fi
}

tree
printf '#include "base/a.h"\n#include <blockkit/status.h>\n' > "$T/t/src/bitcoin/b.c"
printf '#include "bitcoin/b.h"\n#include "base/a.h"\n' > "$T/t/src/json/j.c"
printf '#include <blockkit/status.h>\n' > "$T/t/include/blockkit/status.h"
printf '#include <blockkit/status.h>\n#include "cli.h"\n' > "$T/t/cli/main.c"
: > "$T/t/cli/cli.h"
expect 0 "check-layering: ok"

printf '#include "json/j.h"\n' > "$T/t/src/bitcoin/up.c"
expect 1 "src/bitcoin includes src/json (listed after it), first at src/bitcoin/up.c"
expect 1 "loop: bitcoin -> json -> bitcoin"

tree
printf '#include <blockkit/json.h>\n' > "$T/t/src/base/x.c"
printf '#include <blockkit/status.h>\n' > "$T/t/include/blockkit/json.h"
expect 1 "src/base includes src/json"

tree
printf '#include "bitcoin/b.h"\n' > "$T/t/cli/main.c"
expect 1 "cli/main.c: includes \"bitcoin/b.h\""

tree
mkdir -p "$T/t/src/extra"; : > "$T/t/src/extra/e.c"
expect 1 "src/extra: folder not in the layer order"

[ "$fails" = 0 ] && echo "layering self-test: all cases as expected"
exit "$fails"
