#!/usr/bin/env python3
"""Generate, or check, the constant tables of src/bitcoin/descriptor.c that
speed up Core's DescriptorChecksum (src/script/descriptor.cpp PolyMod).

Every table is a pure function of Core's INPUT_CHARSET and the five PolyMod
generator constants:
  input_pos[c]          index of ASCII c in INPUT_CHARSET, -1 if absent
  sym_a/sym_b/sym_d[c]  (pos & 31) << 15 | 9 g, << 10 | 3 g, << 5 | g  (g = pos >> 5);
                        1 << 30 for a byte outside the charset
  desc_gen[x]           the generator multiple PolyMod XORs in for top bits x
  desc_gen4_hi[x]       four zero-input PolyMod steps from state x << 30
  desc_gen8[k][x]       eight zero-input PolyMod steps from state x << (30 - 10 k);
                        desc_gen8[3] also serves as four steps from x << 20

usage: gen-descriptor-tables.py            print the tables as C
       gen-descriptor-tables.py --check F  compare with the tables in F (exit 1 on a difference)
"""
import re
import sys

INPUT_CHARSET = ("0123456789()[],'/*abcdefgh@:$%{}"
                 "IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~"
                 "ijklmnopqrstuvwxyzABCDEFGH`#\"\\ ")
GENS = [0xf5dee51989, 0xa9fdca3312, 0x1bab10e32d, 0x3706b1677a, 0x644d626ffd]


def polymod(c, val):
    c0 = c >> 35
    c = ((c & 0x7ffffffff) << 5) ^ val
    for i in range(5):
        if c0 >> i & 1:
            c ^= GENS[i]
    return c


def steps(c, n):
    for _ in range(n):
        c = polymod(c, 0)
    return c


def tables():
    pos = [INPUT_CHARSET.find(chr(c)) if c < 128 else -1 for c in range(128)]
    t = {"input_pos": pos}

    def sym(shift, mul):
        out = []
        for c in range(256):
            p = pos[c] if c < 128 else -1
            out.append(1 << 30 if p < 0 else ((p & 31) << shift) | (mul * (p >> 5)))
        return out

    t["sym_a"], t["sym_b"], t["sym_d"] = sym(15, 9), sym(10, 3), sym(5, 1)
    t["desc_gen"] = [sum_xor([GENS[i] for i in range(5) if x >> i & 1]) for x in range(32)]
    t["desc_gen4_hi"] = [steps(x << 30, 4) for x in range(1024)]
    t["desc_gen8"] = [steps(x << (30 - 10 * k), 8) for k in range(4) for x in range(1024)]
    return t


def sum_xor(vals):
    r = 0
    for v in vals:
        r ^= v
    return r


def parse_c(path):
    text = open(path).read()
    found = {}
    for m in re.finditer(r"static const \w+ (\w+)(?:\[\d+\])+ = \{(.*?)\};", text, re.S):
        nums = re.findall(r"-?(?:0x[0-9a-fA-F]+|\d+)", re.sub(r"/\*.*?\*/", "", m.group(2), flags=re.S))
        found[m.group(1)] = [int(n, 0) for n in nums]
    return found


def main():
    t = tables()
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        found = parse_c(sys.argv[2])
        bad = 0
        for name, vals in t.items():
            if found.get(name) != vals:
                print("table %s differs from its definition" % name)
                bad += 1
        print("%d passed, %d failed" % (len(t) - bad, bad))
        return 1 if bad else 0
    for name, vals in t.items():
        print("/* %s: %d entries */" % (name, len(vals)))
        print(", ".join(("0x%010xu" % v) if v >= 0 else str(v) for v in vals))
    return 0


if __name__ == "__main__":
    sys.exit(main())
