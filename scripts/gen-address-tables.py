#!/usr/bin/env python3
"""Generate, or check, src/bitcoin/address_tables_generated.inc: the constant
tables of src/bitcoin/address.c (Base58 and bech32/bech32m encoding).

Every table is a pure function of its definition:
  b58_coef[i][j]   digit j (base 58^5, most significant first, 7 digits) of
                   2^(32 (6 - i)): the weight of 32-bit limb i of a 25-byte
                   Base58 payload (limb 0 holds its first byte)
  b32_gen[x]       the bech32 generator multiple for the top 5 bits of the
                   30-bit polymod state (BIP173 GEN, XORed by bit)
  b32_g6[k][x]     six zero-input bech32 polymod steps from state
                   x << (24 - 8 k) (k = 0: x < 64)
  b32_g12[k][x]    the same for twelve steps

usage (paths relative to the repository root unless absolute):
  gen-address-tables.py               print the file to stdout
  gen-address-tables.py --write [F]   write it (default src/bitcoin/address_tables_generated.inc)
  gen-address-tables.py --check [F]   exit 1 unless F is byte for byte what this script writes
"""
import os
import sys

sys.dont_write_bytecode = True  # nothing written beside the sources
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gentables  # noqa: E402 (the shared --write/--check command line)

DEFAULT_OUT = os.path.join(gentables.ROOT, "src", "bitcoin", "address_tables_generated.inc")

B58_D = 58 ** 5
BECH32_GEN = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3]


def b32_step(c, v):
    top = c >> 25
    c = ((c & 0x1ffffff) << 5) ^ v
    for i in range(5):
        if top >> i & 1:
            c ^= BECH32_GEN[i]
    return c


def b32_steps(c, n):
    for _ in range(n):
        c = b32_step(c, 0)
    return c


def tables():
    coef = [[(2 ** (32 * (6 - i)) // B58_D ** (6 - j)) % B58_D for j in range(7)] for i in range(7)]
    gen = []
    for x in range(32):
        g = 0
        for i in range(5):
            if x >> i & 1:
                g ^= BECH32_GEN[i]
        gen.append(g)
    g6 = [[b32_steps(x << (24 - 8 * k), 6) for x in range(64 if k == 0 else 256)] for k in range(4)]
    g12 = [[b32_steps(x << (24 - 8 * k), 12) for x in range(64 if k == 0 else 256)] for k in range(4)]
    return coef, gen, g6, g12


def rows(vals, per_line, fmt, indent):
    return [indent + ", ".join(fmt(v) for v in vals[i:i + per_line]) + ","
            for i in range(0, len(vals), per_line)]


def render():
    coef, gen, g6, g12 = tables()
    h8 = lambda v: "0x%08xu" % v
    lines = [
        "/* GENERATED FILE, do not edit: scripts/gen-address-tables.py writes it",
        " * (--write) and ctest address_tables checks it (--check). Included by",
        " * src/bitcoin/address.c, which explains how the tables are used. */",
        "",
        "/* Base58 of 25 bytes: b58_coef[i][j] is digit j (base 58^5, most",
        " * significant first) of 2^(32 (6 - i)), the weight of 32-bit limb i. */",
        "static const uint32_t b58_coef[7][7] = {",
    ]
    for r in coef:
        lines.append("    {" + ", ".join("%uu" % v for v in r) + "},")
    lines += ["};", "",
              "/* bech32 polymod: the generator multiple for the top 5 bits of the state. */",
              "static const uint32_t b32_gen[32] = {"]
    lines += rows(gen, 8, h8, "    ")
    lines += ["};", "",
              "/* Six zero-input bech32 polymod steps from state x << (24 - 8 k). */",
              "static const uint32_t b32_g6[4][256] = {"]
    for sub in g6:
        lines.append("    {")
        lines += rows(sub, 8, h8, "        ")
        lines.append("    },")
    lines += ["};", "",
              "/* Twelve zero-input bech32 polymod steps from state x << (24 - 8 k). */",
              "static const uint32_t b32_g12[4][256] = {"]
    for sub in g12:
        lines.append("    {")
        lines += rows(sub, 8, h8, "        ")
        lines.append("    },")
    lines.append("};")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(gentables.main(sys.argv, render, DEFAULT_OUT, __doc__))
