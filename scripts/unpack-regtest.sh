#!/bin/sh
# Unpack the regtest datadirs (tests/data/regtest/*.tar.zst) into DEST/full and
# DEST/pruned, read-only, checking the archive first so a half-written tree is
# never used. Usage: unpack-regtest.sh SRC_DIR DEST_DIR
set -eu
src=$1 dest=$2
for pair in full:datadir.tar.zst pruned:datadir-pruned.tar.zst; do
  name=${pair%%:*} tarball=$src/${pair#*:}
  stamp=$dest/$name.stamp
  if [ -f "$stamp" ] && [ "$stamp" -nt "$tarball" ] && [ -d "$dest/$name/regtest/blocks" ]; then continue; fi
  [ -d "$dest/$name" ] && chmod -R u+w "$dest/$name" && rm -rf "$dest/$name"
  mkdir -p "$dest/$name.tmp"
  zstd -dc "$tarball" | tar -x -C "$dest/$name.tmp"
  chmod -R a-w "$dest/$name.tmp/regtest"
  mv "$dest/$name.tmp" "$dest/$name"
  touch "$stamp"
done
