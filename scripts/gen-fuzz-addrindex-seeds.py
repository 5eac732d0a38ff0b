#!/usr/bin/env python3
# The seeds of fuzz/fuzz_addrindex.c and its one block, format 3 rows over
# it. `gen-fuzz-addrindex-seeds.py c` prints the C array of the block;
# consistent, limit1, collide or badoff writes that seed to stdout (rows
# one key each), grouped the same rows as one bulk commit's groups
# (src/index/addrindex.c "bulk groups"), badgroup those with one group cut.
import hashlib, struct, sys
def dsha(b): return hashlib.sha256(hashlib.sha256(b).digest()).digest()
def cs(n): return bytes([n]) if n < 0xfd else b'\xfd' + struct.pack('<H', n)
def tx(ins, outs):
    b = struct.pack('<i', 1) + cs(len(ins))
    for prev, idx, sc in ins: b += prev + struct.pack('<I', idx) + cs(len(sc)) + sc + b'\xff\xff\xff\xff'
    b += cs(len(outs))
    for v, sc in outs: b += struct.pack('<q', v) + cs(len(sc)) + sc
    return b + b'\0\0\0\0'
A = bytes.fromhex('0014') + b'\x11' * 20
Bs = bytes.fromhex('0014') + b'\x22' * 20
t0 = tx([(b'\0' * 32, 0xffffffff, b'\x51\x51')], [(5000000000, A)])
id0 = dsha(t0)
t1 = tx([(id0, 0, b'')], [(100000, Bs), (200000, A)])
id1 = dsha(t1)
root = dsha(id0 + id1)
hdr = struct.pack('<i', 1) + b'\0' * 32 + root + struct.pack('<III', 1700000000, 0x207fffff, 0)
blk = hdr + cs(2) + t0 + t1
bh = dsha(hdr)
if sys.argv[1] == 'c':
    print('/* the block (python in the seeds\' note): 2 txs */')
    print('static const uint8_t g_block[%d] = {' % len(blk))
    for i in range(0, len(blk), 16): print('    ' + ', '.join('0x%02x' % x for x in blk[i:i+16]) + ',')
    print('};')
    sys.exit()
def be32(x): return struct.pack('>I', x)
def be24(x): return struct.pack('>I', x)[1:]
shA = hashlib.sha256(A).digest(); shB = hashlib.sha256(Bs).digest()
rows = []
rows.append((b'T', struct.pack('<i', 0) + bh))
rows.append((b'h' + be32(0), bh + hdr + struct.pack('<I', 0) + struct.pack('<Q', 8) + struct.pack('<I', len(blk)) + struct.pack('<I', 2)))
rows.append((b'x' + be32(0), struct.pack('<II', 81, 81 + len(t0))))
for pos, i in ((0, id0), (1, id1)): rows.append((b'i' + i[:8] + be32(0) + be24(pos), i[8:]))
rows.append((b'o' + shA[:8] + be32(0) + be24(0), shA[8:]))
rows.append((b'o' + shA[:8] + be32(0) + be24(1), shA[8:]))
rows.append((b'o' + shB[:8] + be32(0) + be24(1), shB[8:]))
rows.append((b'p' + shA[:8] + be32(0) + be24(1), shA[8:]))
def uv(x):
    b = b''
    while x >= 0x80: b += bytes([x & 0x7f | 0x80]); x >>= 7
    return b + bytes([x])
def group(rows):  # rows: sorted (prefix int, height, pos); the value
    base = min(h for _, h, _ in rows); pbits = max(p for _, _, p in rows).bit_length()
    out = rows[0][0].to_bytes(6, 'big') + uv(base) + bytes([pbits]); prev = None
    for i, (pf, h, p) in enumerate(rows):
        hp = (h - base) << pbits | p
        if i: d = pf - rows[i - 1][0]; out += uv(d) + uv(hp if d else hp - prev)
        else: out += uv(hp)
        prev = hp
    return out
mode = sys.argv[1]
if mode in ('grouped', 'badgroup'):
    g = {}
    for k, v in rows:
        if k[:1] in (b'o', b'p', b'i'):
            g.setdefault(k[:1].upper(), []).append((int.from_bytes(k[1:7], 'big'), struct.unpack('>I', k[9:13])[0], int.from_bytes(k[13:16], 'big')))
    rows = [r for r in rows if r[0][:1] not in (b'o', b'p', b'i')] + [(b'C', struct.pack('<I', 1))]
    for kind, rs in sorted(g.items()):
        rs = sorted(set(rs)); pf, h, p = rs[-1]
        v = group(rs)
        if mode == 'badgroup' and kind == b'O': v = v[:-1]
        rows.append((kind + be32(0) + pf.to_bytes(6, 'big') + be32(h) + be24(p), v))
    rows += [(b's' + shA, b''), (b's' + shB, b''), (b't' + id0, b''), (b't' + id1, b'')]
flags = 1
out = bytes([flags])
if mode == 'limit1': out = bytes([3, 1])
for k, v in rows:
    if mode == 'collide' and k[:1] == b'o' and v == shB[8:]:
        v = bytes(24)  # a row whose prefix's rest names another script
    out += bytes([len(k)]) + struct.pack('<H', len(v)) + k + v
if mode == 'badoff':
    k, v = b'x' + be32(0), struct.pack('<II', 81, 5000)
    out += bytes([len(k)]) + struct.pack('<H', len(v)) + k + v
sys.stdout.buffer.write(out)
