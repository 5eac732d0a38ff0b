#!/bin/bash
# 24-exit-codes-misclassified: exit statuses outside the README's table.
# A dumptxoutset file with a format version other than 2 (0, 3) used to be
# exit 64 "unsupported", a usage error; it is a property of the input file:
# bad data, 65, at byte 5. `export --out ''` was 74 (an I/O error on the
# empty name): a bad argument, 64. (export's 128+N after SIGINT/SIGTERM and
# the empty ranges' 66 are in tests/cli_contract.sh.)
. "$(dirname "$0")/lib.sh"
D=$T/dd
mkdir -p "$D"
zstd -dc "$DATA/regtest/datadir.tar.zst" | tar x -C "$D"
zstd -dc "$DATA/regtest/utxo_snapshot.dat.zst" > "$T/s.dat"
for v in 0 3; do
    python3 -c "import sys; b=bytearray(open(sys.argv[1],'rb').read()); b[5]=$v; open(sys.argv[2],'wb').write(b)" "$T/s.dat" "$T/v$v.dat"
    for sub in stats dump; do
        run 30 "$BK" utxo $sub --utxo-snapshot "$T/v$v.dat" --height 939 --chain regtest > /dev/null
        expect "utxo $sub, snapshot version $v" 65 \
            "^blockkit: utxo $sub: invalid data: $T/v$v.dat: snapshot format version $v is not one blockkit reads \(version 2, the one Core writes\) at byte 5$"
    done
    run 30 "$BK" export --datadir "$D" --chain regtest --out "$T/out$v" --datasets utxos --utxo-snapshot "$T/v$v.dat" > /dev/null
    expect "export --datasets utxos, snapshot version $v" 65 "snapshot format version $v is not one blockkit reads"
done
run 10 "$BK" export --blocksdir "$SAMPLE" --orphans --out '' > /dev/null
expect "export --out '' is a usage error" 64 "bad value for --out: ''"
# version 2 (Core's) still reads
run 30 "$BK" utxo stats --utxo-snapshot "$T/s.dat" --height 939 --chain regtest > /dev/null
expect "utxo stats, Core's snapshot" 0 ""
finish
