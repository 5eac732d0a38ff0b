#!/usr/bin/env python3
"""Data prep (run once, output committed): extract distinct scriptPubKey and
scriptSig renderings from Bitcoin Core's own getblock JSON (v28-era master,
see vectors/bitcoin/core_json/blocks/README.md) into two small TSV files:

  core_block_scripts.txt    net<TAB>hex<TAB>asm<TAB>desc<TAB>address<TAB>type
  core_block_scriptsigs.txt net<TAB>hex<TAB>asm   (asm with sighash decoding)

Rare shapes are all kept; common ones are sampled deterministically so the
files stay small. Usage: make_core_block_scripts.py VECTORS_DIR/core_json/blocks
"""
import glob, json, random, subprocess, sys, re

src = sys.argv[1] if len(sys.argv) > 1 else '/work/shared/vectors/bitcoin/core_json/blocks'
spk, ssig = {}, {}
for f in sorted(glob.glob(src + '/*.json.zst')):
    if '.v1.' in f:
        continue
    j = json.loads(subprocess.run(['zstd', '-dc', f], capture_output=True, check=True).stdout)
    net = 'test' if 'testnet3' in f else 'main'
    for tx in j['tx']:
        for vin in tx['vin']:
            if 'scriptSig' in vin:
                s = vin['scriptSig']
                ssig.setdefault((net, s['hex']), s['asm'])
            if 'prevout' in vin:
                s = vin['prevout']['scriptPubKey']
                spk.setdefault((net, s['hex']), s)
        for vo in tx['vout']:
            s = vo['scriptPubKey']
            spk.setdefault((net, s['hex']), s)

rng = random.Random(866342)
by_type = {}
for k in sorted(spk):
    by_type.setdefault((k[0], spk[k]['type']), []).append(k)
keep = []
for t in sorted(by_type):
    ks = by_type[t]
    keep += ks if len(ks) <= 400 else rng.sample(ks, 400)
with open('core_block_scripts.txt', 'w') as out:
    for k in sorted(keep):
        s = spk[k]
        out.write('\t'.join([k[0], s['hex'], s['asm'], s['desc'], s.get('address', ''), s['type']]) + '\n')

groups = {}
for k in sorted(ssig):
    a = ssig[k]
    marks = tuple(sorted(set(re.findall(r'\[[A-Za-z|]+\]', a))))
    groups.setdefault(marks, []).append(k)
keep = []
for g in sorted(groups):
    ks = groups[g]
    keep += ks if len(ks) <= 500 else rng.sample(ks, 500)
with open('core_block_scriptsigs.txt', 'w') as out:
    for k in sorted(keep):
        out.write('\t'.join([k[0], k[1], ssig[k]]) + '\n')
