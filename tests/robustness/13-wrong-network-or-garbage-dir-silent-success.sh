#!/bin/bash
# 13-wrong-network-or-garbage-dir-silent-success: another network's files,
# garbage, a datadir given as --blocksdir, or blocks without a genesis used to
# give exit 0 with empty output and no message. Now an error that says what
# was found and what to do.
. "$(dirname "$0")/lib.sh"
run 20 "$BK" scan --blocksdir "$SAMPLE" --orphans --chain testnet3
expect "scan mainnet files as testnet3" 65 "blk00000.dat starts with the record magic of main \(f9beb4d9\), not testnet3's: these are main files, use --chain main"
run 20 "$BK" chain --blocksdir "$SAMPLE" --chain signet
expect "chain mainnet files as signet" 65 "record magic of main .*use --chain main"
run 20 "$BK" chain --blocksdir "$RT" --chain main
expect "chain regtest files as main" 65 "record magic of regtest \(fabfb5da\), not main's: .*use --chain regtest"
mkdir -p "$T/garbage"; head -c 1000000 /dev/urandom > "$T/garbage/blk00000.dat"
printf 'GARB' | dd of="$T/garbage/blk00000.dat" conv=notrunc 2>/dev/null
run 20 "$BK" scan --blocksdir "$T/garbage"
expect "scan of 1 MB of random bytes" 65 "no block records in 1 blk file\(s\) of .*: blk00000.dat starts with 47415242, the record magic of no network"
run 20 "$BK" chain --blocksdir "$T/garbage"
expect "chain of 1 MB of random bytes" 65 "the record magic of no network"
# a datadir given as --blocksdir is Core's -blocksdir layout: its network found
run 20 sh -c '"$0" scan --blocksdir "$1" --end 3 | wc -l | grep -qx 4' "$BK" "$REGTEST/full"
expect "a datadir as --blocksdir (Core's -blocksdir layout)" 0 ""
run 20 "$BK" scan --datadir "$REGTEST/full" --chain main
expect "a regtest datadir as main" 66 ".*/full holds the blocks of regtest, not of main: use --datadir .*/full --chain regtest$"
run 20 "$BK" chain --datadir "$T"
expect "not a datadir" 66 "$T has no blocks directory of any network .*is it a Bitcoin Core datadir\?"
mkdir -p "$T/dd/blocks"
run 20 "$BK" chain --blocksdir "$T/dd"
expect "a main datadir as --blocksdir" 66 "no blk\*.dat files in $T/dd/blocks"
mkdir -p "$T/empty"
run 20 "$BK" scan --blocksdir "$T/empty"
expect "no blk files" 66 "no blk\*.dat files in $T/empty \(not a blocks directory\?\)"
run 20 "$BK" scan --blocksdir "$SAMPLE"
expect "scan, blocks without a genesis" 66 "no genesis: 3 block\(s\) in .*, none connected to a genesis block \(a pruned or partial directory\); see --orphans"
run 20 "$BK" scan --datadir "$REGTEST/pruned" --chain regtest --source files
expect "scan of Core's pruned regtest datadir (header scan)" 66 "no genesis: .*see --orphans"
# with Core's block index the pruned node's kept blocks print, with their true heights
run 20 "$BK" scan --datadir "$REGTEST/pruned" --chain regtest --verbosity 0 --end 448
expect "scan of Core's pruned regtest datadir (block index)" 0 "heights 0-447 skipped: no block data on this node \(pruned\)"
# what still works: --orphans, and chain lists orphans
run 20 sh -c '"$0" scan --blocksdir "$1" --orphans --verbosity 0 | wc -l' "$BK" "$SAMPLE"
expect "scan --orphans of the sample" 0 ""
finish
