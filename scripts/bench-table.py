#!/usr/bin/env python3
"""Turn `blockkit bench --format json` output into the README's figure table:
each row with its ratio to the SHA256/1MiB/openssl row of the same run and
the target the project set for it.

usage: blockkit bench --min-time 300 --format json > bench.json
       python3 scripts/bench-table.py bench.json
"""
import json
import sys

# name -> (how to express the target, target value, peer/floor note)
# kind "ratio": ns_per_unit / openssl_ns <= value; "ns": ns_per_unit <= value;
# "ms": ns_per_unit / 1e6 <= value; "gbs": bytes/ns >= value.
TARGETS = {
    "SHA256/64B/avx512": ("ratio", 1.10, "2 compressions per message"),
    "SHA256/64B/shani": ("ratio", 1.10, "SHA-NI latency-bound on this CPU"),
    "SHA256D64/avx512": ("ratio", 1.65, "Core's SHA256D64 kernel: 1.77"),
    "SHA256D64/shani": ("ratio", 1.65, "Core's SHA256D64 kernel: 1.77"),
    "SHA256/1MiB/shani": ("ratio", 1.02, ""),
    "SHA256/1MiB/avx512": ("ratio", 1.02, "single stream runs on SHA-NI"),
    "MerkleRoot": ("ratio", 1.63, "floor 1.48; Core ComputeMerkleRoot 1.89"),
    "Merkleize/1M": ("ratio", 1.15, "floor 0.99; hashtree 1.2"),
    "HashTreeRoot/DepositData": ("ns", 450, "floor 360 on SHA-NI x2 (AMD); C on hashtree 558; @chainsafe/ssz 5,916"),
    "BlockTxids": ("ms", 0.6, "18,013 compressions; Core 1.01 ms"),
    "BlockTxidsOneCall": ("ms", 0.6, "18,013 compressions; Core 1.01 ms"),
    "DeserializeBlock": ("gbs", 2.0, "block 413567, 999,887 bytes"),
    "HexEncode/1MB": ("gbs", 4.0, "byte-at-a-time: 0.75 GB/s"),
    "BlockToJsonVerbosity1": ("ms", 0.15, "Core 3.8 ms"),
    "BlockToJsonVerbosity2": ("ms", 11, "Core 275 ms"),
    "BlockToJsonVerbosity3": ("ms", 16, "Core ~410 ms"),
    "BlockToJsonVerbosity2/413567": ("ms", 5, "Core 127 ms"),
}
SIZES = {"DeserializeBlock": 999887, "HexEncode/1MB": 1000000}
CORE_MS = {"BlockToJsonVerbosity1": 3.8, "BlockToJsonVerbosity2": 275, "BlockToJsonVerbosity3": 410,
           "BlockToJsonVerbosity2/413567": 127}


def fmt_ns(v):
    if v >= 1e6:
        return "%.2f ms" % (v / 1e6)
    if v >= 1e4:
        return "%.1f us" % (v / 1e3)
    return "%.1f ns" % v


def main():
    rows = json.load(open(sys.argv[1]))
    by = {r["name"]: r for r in rows}
    ossl = by.get("SHA256/1MiB/openssl", {}).get("ns_per_unit")
    print("| benchmark | unit | time/unit | x OpenSSL compression | allocs/op | peak bytes | target | result |")
    print("|---|---|---:|---:|---:|---:|---|---|")
    for r in rows:
        name, ns = r["name"], r["ns_per_unit"]
        ratio = "%.2f" % (ns / ossl) if ossl else ""
        tgt, res = "", ""
        if name in TARGETS:
            kind, val, note = TARGETS[name]
            if kind == "ratio" and not ossl:
                # No OpenSSL row (built without libssl-dev, or filtered out):
                # the ratio targets cannot be judged in this run.
                ok = None
                tgt = "<= %.2fx (no OpenSSL row in this run)" % val
            elif kind == "ratio":
                ok = ns / ossl <= val
                tgt = "<= %.2fx" % val
            elif kind == "ns":
                ok = ns <= val
                tgt = "<= %d ns" % val
            elif kind == "ms":
                ok = ns / 1e6 <= val
                tgt = "<= %g ms" % val
            else:
                gbs = SIZES[name] / ns if name == "DeserializeBlock" else 1.0 / ns
                ok = gbs >= val
                tgt = ">= %g GB/s (%.1f GB/s)" % (val, gbs)
            if name in CORE_MS and ossl:
                # Core's time expressed in this run's OpenSSL compressions
                # (Core's 410 ms = about 7.9 M compressions on this machine kind).
                tgt += "; %.1fx Core" % (CORE_MS[name] / 410 * 7.9e6 * ossl / ns)
            res = ("not judged" if ok is None else "met" if ok else "**not met**") + ("; " + note if note else "")
        print("| `%s` | %s | %s | %s | %.2f | %d | %s | %s |" % (
            name, r["unit"], fmt_ns(ns), ratio, r["allocs_per_op"], r["peak_bytes"], tgt, res))
    if ossl:
        print("\nOpenSSL 3.0 EVP SHA-256 (1 MiB, one stream): %.2f ns per compression in this run." % ossl)


if __name__ == "__main__":
    main()
