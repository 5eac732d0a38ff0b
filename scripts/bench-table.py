#!/usr/bin/env python3
"""Turn `blockkit bench --format json` output into the README's figure table:
each row with its ratio to the SHA256/1MiB/openssl row of the same run, its
ratio to this CPU's SHA-256 floor (from the SHA256/Probe/* rows of the same
run, see bench/bench_sha256_probe.c) where the row is SHA-256 bound, and the
target the project set for it.

usage: blockkit bench --min-time 300 --format json > bench.json
       python3 scripts/bench-table.py [--min] [--class intel|zen5|zen1-4] bench.json [more.json ...]

With several files (repeated runs on a shared machine) each row takes its
fastest run; --min uses each run's fastest epoch instead of its median.

--class picks issue 17's targets for the automatic SHA-256 rows by the CPU
class the runs came from (the person running it says which; nothing here
guesses from the vendor): intel (default: Intel server cores with AVX-512),
zen5 (four zmm ALUs) or zen1-4 (SHA-NI without a faster AVX-512 path).
"""
import json
import sys

# name -> (how to express the target, target value, peer/floor note)
# kind "ratio": ns_per_unit / openssl_ns <= value; "ns": ns_per_unit <= value;
# "ms": ns_per_unit / 1e6 <= value; "gbs": bytes/ns >= value.
TARGETS = {
    "SHA256/64B/auto": ("ratio", 0.75, "2 compressions per message; Intel AVX-512 target"),
    "SHA256D64/auto": ("ratio", 1.10, "3 compressions per node; Intel AVX-512 target"),
    "SHA256/1MiB/auto": ("ratio", 1.02, "one stream"),
    "SHA256/64B/avx512": ("ratio", 1.10, "2 compressions per message"),
    "SHA256/64B/shani": ("ratio", 1.10, "SHA-NI latency-bound on this CPU"),
    "SHA256D64/avx512": ("ratio", 1.65, "Core's SHA256D64 kernel: 1.77"),
    "SHA256D64/shani": ("ratio", 1.65, "Core's SHA256D64 kernel: 1.77"),
    "SHA256/1MiB/shani": ("ratio", 1.02, ""),
    "SHA256/1MiB/avx512": ("ratio", 1.02, "single stream runs on SHA-NI"),
    "MerkleRoot": ("ratio", 1.15, "Intel AVX-512 target; Core ComputeMerkleRoot 1.89"),
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
# Issue 17's figures per CPU class: they replace the rows above of the same name.
CLASS_TARGETS = {
    "intel": {},
    "zen5": {
        "SHA256/64B/auto": ("ratio", 0.55, "2 compressions per message; Zen5-class target"),
        "SHA256D64/auto": ("ratio", 0.85, "3 compressions per node; Zen5-class target"),
        "Merkleize/1M": ("ratio", 0.60, "Zen5-class target"),
        "MerkleRoot": ("ratio", 0.90, "Zen5-class target (and 2x Core's ComputeMerkleRoot)"),
        "BlockTxids": ("ratio", 0.60, "18,013 compressions; Zen5-class target"),
        "BlockTxidsOneCall": ("ratio", 0.60, "18,013 compressions; Zen5-class target"),
    },
    "zen1-4": {
        "SHA256/64B/auto": ("ratio", 1.05, "2 compressions per message; SHA-NI (Zen1-4) target"),
        "SHA256D64/auto": ("ratio", 1.55, "3 compressions per node; SHA-NI (Zen1-4) target"),
        "MerkleRoot": None,
    },
}
SIZES = {"DeserializeBlock": 999887, "HexEncode/1MB": 1000000}
CORE_MS = {"BlockToJsonVerbosity1": 3.8, "BlockToJsonVerbosity2": 275, "BlockToJsonVerbosity3": 410,
           "BlockToJsonVerbosity2/413567": 127}


# Floors (ns per unit) from the probe rows. A 16-lane AVX-512 group costs
# 2,656 kernel instructions per 16 SSZ pairs, 4,272 per 16 merkle nodes and
# 1,624 per 16 ordinary compressions; SHA-NI costs 32 sha256rnds2 per
# compression (the best of two or four chains; one chain for a single stream).
def floors(by):
    ns = lambda n: by[n]["ns_per_unit"] if n in by else None
    rn = [v for v in (ns("SHA256/Probe/rnds2x2"), ns("SHA256/Probe/rnds2x4")) if v]
    rn = min(rn) if rn else None
    rn1 = ns("SHA256/Probe/rnds2x1")
    zm = ns("SHA256/Probe/zmm-mix")
    def best(*vals):
        vals = [v for v in vals if v]
        return min(vals) if vals else None
    f = {
        "pair": best(rn and 2 * rn, zm and 2656 / 16 * zm),
        "node": best(rn and 3 * rn, zm and 4272 / 16 * zm),
        "compression": best(rn, zm and 1624 / 16 * zm),
        "stream": rn1,
    }
    return f, {"rnds2 best": rn, "rnds2 one chain": rn1, "zmm mix": zm}


# row -> (floor kind, units of that kind per row unit)
FLOOR_OF = {
    "SHA256/64B/": ("pair", 1),
    "SHA256D64/": ("node", 1),
    "SHA256/1MiB/": ("stream", 1),
    "MerkleRoot": ("node", 9009 / 9001),       # 9001 leaves -> 9009 nodes
    "MerkleRoot/2000": ("node", 2004 / 2000),
    "MerkleRoot/1M": ("node", 1000004 / 1e6),
    "Merkleize/1M": ("pair", 1),
    "BlockTxids": ("compression", 18013),
    "BlockTxidsOneCall": ("compression", 18013),
}


# Rows whose unit holds many compressions (txids of block 413567).
COMPRESSIONS = {"BlockTxids": 18013, "BlockTxidsOneCall": 18013}


def floor_for(name, fl):
    for key, (kind, mult) in FLOOR_OF.items():
        if name == key or (key.endswith("/") and name.startswith(key)):
            if name.startswith("SHA256/Probe"):
                return None
            v = fl.get(kind)
            return v * mult if v else None
    return None


def fmt_ns(v):
    if v >= 1e6:
        return "%.2f ms" % (v / 1e6)
    if v >= 1e4:
        return "%.1f us" % (v / 1e3)
    return "%.1f ns" % v


def main():
    args = sys.argv[1:]
    use_min = "--min" in args
    cpu_class = "intel"
    if "--class" in args:
        i = args.index("--class")
        if i + 1 >= len(args) or args[i + 1] not in CLASS_TARGETS:
            sys.exit("--class needs one of: " + ", ".join(CLASS_TARGETS))
        cpu_class = args[i + 1]
        del args[i:i + 2]
    for name, t in CLASS_TARGETS[cpu_class].items():
        if t is None:
            TARGETS.pop(name, None)
        else:
            TARGETS[name] = t
    files = [a for a in args if a != "--min"]
    rows, by = [], {}
    for path in files:
        for r in json.load(open(path)):
            r = dict(r)
            if use_min and "ns_per_unit_min" in r:
                r["ns_per_unit"] = r["ns_per_unit_min"]
            old = by.get(r["name"])
            if old is None:
                rows.append(r)
                by[r["name"]] = r
            elif r["ns_per_unit"] < old["ns_per_unit"]:
                old.update(r)
    ossl = by.get("SHA256/1MiB/openssl", {}).get("ns_per_unit")
    fl, probes = floors(by)
    print("| benchmark | unit | time/unit | x OpenSSL compression | x floor | allocs/op | peak bytes | target | result |")
    print("|---|---|---:|---:|---:|---:|---:|---|---|")
    for r in rows:
        name, ns = r["name"], r["ns_per_unit"]
        # Rows of many compressions compare with OpenSSL's time for as many.
        per = COMPRESSIONS.get(name, 1)
        ratio = "%.2f" % (ns / (per * ossl)) if ossl else ""
        f = floor_for(name, fl)
        fratio = "%.2f" % (ns / f) if f else ""
        tgt, res = "", ""
        if name in TARGETS:
            kind, val, note = TARGETS[name]
            if kind == "ratio" and not ossl:
                # No OpenSSL row (built without libssl-dev, or filtered out):
                # the ratio targets cannot be judged in this run.
                ok = None
                tgt = "<= %.2fx (no OpenSSL row in this run)" % val
            elif kind == "ratio":
                ok = ns / (per * ossl) <= val
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
            if cpu_class != "intel" and name in CLASS_TARGETS[cpu_class]:
                tgt += " (%s)" % cpu_class
            res = ("not judged" if ok is None else "met" if ok else "**not met**") + ("; " + note if note else "")
        print("| `%s` | %s | %s | %s | %s | %.2f | %d | %s | %s |" % (
            name, r["unit"], fmt_ns(ns), ratio, fratio, r["allocs_per_op"], r["peak_bytes"], tgt, res))
    if ossl:
        print("\nOpenSSL 3.0 EVP SHA-256 (1 MiB, one stream): %.2f ns per compression in this run." % ossl)
    if any(probes.values()):
        print("Floors of this CPU from the probe rows: %s ns per SSZ pair, %s per merkle node, %s per "
              "compression in a batch, %s per compression of one stream." % tuple(
                  "%.1f" % fl[k] if fl[k] else "n/a" for k in ("pair", "node", "compression", "stream")))
    hy = [by.get("SHA256/Probe/hybrid/" + k, {}).get("ns_per_unit") for k in ("avx512", "shani", "both")]
    if all(hy):
        # A step: 32 AVX-512 lane-compressions, 4 SHA-NI compressions, or both.
        print("Hybrid-kernel probe: both in one loop %.1f ns a step against %.1f (AVX-512 groups) + %.1f "
              "(SHA-NI stream) apart: %.2f ns a compression together, %.2f on the AVX-512 lanes alone "
              "(a hybrid kernel pays only if the first is lower)." % (
                  hy[2], hy[0], hy[1], hy[2] / 36, hy[0] / 32))


if __name__ == "__main__":
    main()
