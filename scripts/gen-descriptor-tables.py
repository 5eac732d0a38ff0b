#!/usr/bin/env python3
"""Generate, or check, src/bitcoin/descriptor_tables_generated.inc: the
constant tables that speed up Core's DescriptorChecksum
(src/script/descriptor.cpp PolyMod) in src/bitcoin/descriptor.c.

Every table is a pure function of Core's INPUT_CHARSET and the five PolyMod
generator constants:
  input_pos[c]          index of ASCII c in INPUT_CHARSET, -1 if absent
  sym_a/sym_b/sym_d[c]  (pos & 31) << 15 | 9 g, << 10 | 3 g, << 5 | g  (g = pos >> 5);
                        1 << 30 for a byte outside the charset
  desc_gen[x]           the generator multiple PolyMod XORs in for top bits x
  desc_gen4_hi[x]       four zero-input PolyMod steps from state x << 30
  desc_gen8[k][x]       eight zero-input PolyMod steps from state x << (30 - 10 k);
                        desc_gen8[3] also serves as four steps from x << 20

usage (from anywhere; paths are relative to the repository root unless absolute):
  gen-descriptor-tables.py               print the file to stdout
  gen-descriptor-tables.py --write [F]   write it (default src/bitcoin/descriptor_tables_generated.inc)
  gen-descriptor-tables.py --check [F]   exit 1 unless F is byte for byte what this script writes
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUT = os.path.join(ROOT, "src", "bitcoin", "descriptor_tables_generated.inc")

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


def xor_all(vals):
    r = 0
    for v in vals:
        r ^= v
    return r


def tables():
    pos = [INPUT_CHARSET.find(chr(c)) for c in range(128)]

    def sym(shift, mul):
        out = []
        for c in range(256):
            p = pos[c] if c < 128 else -1
            out.append(1 << 30 if p < 0 else ((p & 31) << shift) | (mul * (p >> 5)))
        return out

    return {
        "input_pos": pos,
        "sym_a": sym(15, 9),
        "sym_b": sym(10, 3),
        "sym_d": sym(5, 1),
        "desc_gen": [xor_all([GENS[i] for i in range(5) if x >> i & 1]) for x in range(32)],
        "desc_gen4_hi": [steps(x << 30, 4) for x in range(1024)],
        "desc_gen8": [[steps(x << (30 - 10 * k), 8) for x in range(1024)] for k in range(4)],
    }


def rows(vals, per_line, fmt, indent):
    out = []
    for i in range(0, len(vals), per_line):
        out.append(indent + ", ".join(fmt(v) for v in vals[i:i + per_line]) + ",")
    return out


def render():
    t = tables()
    h8 = lambda v: "0x%08xu" % v
    h10 = lambda v: "0x%010xu" % v
    lines = [
        "/* GENERATED FILE, do not edit: scripts/gen-descriptor-tables.py writes it",
        " * (--write) and ctest descriptor_tables checks it (--check). Included by",
        " * src/bitcoin/descriptor.c, which explains how the tables are used: the",
        " * constant tables of Core's DescriptorChecksum (src/script/descriptor.cpp",
        " * PolyMod), computed from Core's INPUT_CHARSET and its five generators. */",
        "",
        "/* Position of each ASCII character in INPUT_CHARSET, -1 if absent. */",
        "static const int8_t input_pos[128] = {",
    ]
    lines += rows(t["input_pos"], 16, str, "    ")
    lines.append("};")
    for name, what in (("sym_a", "(pos & 31) << 15 | 9 (pos >> 5)"),
                       ("sym_b", "(pos & 31) << 10 | 3 (pos >> 5)"),
                       ("sym_d", "(pos & 31) << 5 | (pos >> 5)")):
        lines += ["", "/* %s; 1 << 30 outside the charset. */" % what,
                  "static const uint32_t %s[256] = {" % name]
        lines += rows(t[name], 8, h8, "    ")
        lines.append("};")
    lines += ["", "/* PolyMod's generator multiple for the top 5 bits (c >> 35). */",
              "static const uint64_t desc_gen[32] = {"]
    lines += rows(t["desc_gen"], 4, h10, "    ")
    lines.append("};")
    lines += ["", "/* Four zero-input PolyMod steps from state x << 30. */",
              "static const uint64_t desc_gen4_hi[1024] = {"]
    lines += rows(t["desc_gen4_hi"], 4, h10, "    ")
    lines.append("};")
    lines += ["", "/* Eight zero-input PolyMod steps from state x << (30 - 10 k). */",
              "static const uint64_t desc_gen8[4][1024] = {"]
    for k in range(4):
        lines.append("    {")
        lines += rows(t["desc_gen8"][k], 4, h10, "        ")
        lines.append("    },")
    lines.append("};")
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) == 1:
        sys.stdout.write(render())
        return 0
    if argv[1] in ("--write", "--check") and len(argv) <= 3:
        path = argv[2] if len(argv) == 3 else DEFAULT_OUT
        if not os.path.isabs(path):
            path = os.path.join(ROOT, path)
        text = render()
        if argv[1] == "--write":
            with open(path, "w") as f:
                f.write(text)
            return 0
        try:
            with open(path) as f:
                have = f.read()
        except OSError as e:
            print("cannot read %s: %s" % (path, e))
            return 1
        if have != text:
            a, b = have.splitlines(), text.splitlines()
            line = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
            print("%s differs from what scripts/gen-descriptor-tables.py writes (first at line %d); "
                  "run: python3 scripts/gen-descriptor-tables.py --write" % (path, line + 1))
            return 1
        print("%s matches its generator" % os.path.relpath(path, ROOT))
        return 0
    sys.stderr.write(__doc__)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))
