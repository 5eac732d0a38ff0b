#!/usr/bin/env python3
"""Generate, or check, src/bitcoin/descriptor_tables_generated.inc: the
constant tables that speed up Core's DescriptorChecksum
(src/script/descriptor.cpp PolyMod) in src/bitcoin/descriptor.c.

Every table is a pure function of Core's INPUT_CHARSET and the five PolyMod
generator constants:
  input_pos[c]          index of ASCII c in INPUT_CHARSET, -1 if absent
  sym_a/sym_b/sym_d[c]  (pos & 31) << 15 | 9 g, << 10 | 3 g, << 5 | g  (g = pos >> 5);
                        1 << 30 for a byte outside the charset
  desc_g4_hi[k][x]      four zero-input PolyMod steps from state x << (32 - 8 k)
  desc_g4_lo[x]         four zero-input PolyMod steps from state x << 20 (x < 16)
  desc_g2_hi/lo[x]      two zero-input PolyMod steps from state x << 32 / x << 30 (x < 4)
  desc_g3_hi/lo[x]      three zero-input PolyMod steps from state x << 32 / x << 25 (x < 128)
  desc_g8[k][x]         eight zero-input PolyMod steps from state x << (32 - 8 k)
  desc_g16[k][x]        sixteen zero-input PolyMod steps from state x << (32 - 8 k)
  chk_after_*           the PolyMod state after the whole triples that begin each
                        descriptor blockkit infers ("add", "raw", "pk(", "multi(", "rawtr(")

usage (paths relative to the repository root unless absolute):
  gen-descriptor-tables.py               print the file to stdout
  gen-descriptor-tables.py --write [F]   write it (default src/bitcoin/descriptor_tables_generated.inc)
  gen-descriptor-tables.py --check [F]   exit 1 unless F is byte for byte what this script writes
"""
import os
import sys

sys.dont_write_bytecode = True  # nothing written beside the sources
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gentables  # noqa: E402 (the shared --write/--check command line)

DEFAULT_OUT = os.path.join(gentables.ROOT, "src", "bitcoin", "descriptor_tables_generated.inc")

INPUT_CHARSET = ("0123456789()[],'/*abcdefgh@:$%{}"
                 "IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~"
                 "ijklmnopqrstuvwxyzABCDEFGH`#\"\\ ")
GENS = [0xf5dee51989, 0xa9fdca3312, 0x1bab10e32d, 0x3706b1677a, 0x644d626ffd]
PREFIXES = [("add", "add"), ("raw", "raw"), ("pk", "pk("), ("multi", "multi("), ("rawtr", "rawtr(")]


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


def state_after(text):
    """PolyMod state after text (whole triples), as Core's DescriptorChecksum."""
    assert len(text) % 3 == 0
    c = 1
    for i in range(0, len(text), 3):
        cls = 0
        for ch in text[i:i + 3]:
            p = INPUT_CHARSET.find(ch)
            c = polymod(c, p & 31)
            cls = cls * 3 + (p >> 5)
        c = polymod(c, cls)
    return c


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
        "desc_g4_hi": [[steps(x << (32 - 8 * k), 4) for x in range(256)] for k in range(2)],
        "desc_g4_lo": [steps(x << 20, 4) for x in range(16)],
        "desc_g2_hi": [steps(x << 32, 2) for x in range(256)],
        "desc_g2_lo": [steps(x << 30, 2) for x in range(4)],
        "desc_g3_hi": [steps(x << 32, 3) for x in range(256)],
        "desc_g3_lo": [steps(x << 25, 3) for x in range(128)],
        "desc_g8": [[steps(x << (32 - 8 * k), 8) for x in range(256)] for k in range(5)],
        "desc_g16": [[steps(x << (32 - 8 * k), 16) for x in range(256)] for k in range(5)],
    }


def rows(vals, per_line, fmt, indent):
    out = []
    for i in range(0, len(vals), per_line):
        out.append(indent + ", ".join(fmt(v) for v in vals[i:i + per_line]) + ",")
    return out


def table2(lines, ctype, name, vals, per_line, fmt):
    lines.append("static const %s %s[%d][%d] = {" % (ctype, name, len(vals), len(vals[0])))
    for sub in vals:
        lines.append("    {")
        lines += rows(sub, per_line, fmt, "        ")
        lines.append("    },")
    lines.append("};")


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
    lines += ["", "/* Four zero-input PolyMod steps from state x << (32 - 8 k), and from x << 20 (x < 16). */"]
    table2(lines, "uint64_t", "desc_g4_hi", t["desc_g4_hi"], 4, h10)
    lines.append("static const uint64_t desc_g4_lo[16] = {")
    lines += rows(t["desc_g4_lo"], 4, h10, "    ")
    lines.append("};")
    for k, lo_shift, lo_n in ((2, 30, 4), (3, 25, 128)):
        lines += ["", "/* %d zero-input PolyMod steps from state x << 32 (hi), x << %d (lo). */" % (k, lo_shift),
                  "static const uint64_t desc_g%d_hi[256] = {" % k]
        lines += rows(t["desc_g%d_hi" % k], 4, h10, "    ")
        lines.append("};")
        lines.append("static const uint64_t desc_g%d_lo[%d] = {" % (k, lo_n))
        lines += rows(t["desc_g%d_lo" % k], 4, h10, "    ")
        lines.append("};")
    for name, n in (("desc_g8", 8), ("desc_g16", 16)):
        lines += ["", "/* %d zero-input PolyMod steps from state x << (32 - 8 k). */" % n]
        table2(lines, "uint64_t", name, t[name], 4, h10)
    lines += ["", "/* The PolyMod state after the whole triples that begin each descriptor. */"]
    for name, text in PREFIXES:
        lines.append("static const uint64_t chk_after_%s = 0x%010xu; /* \"%s\" */" % (name, state_after(text), text))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(gentables.main(sys.argv, render, DEFAULT_OUT, __doc__))
