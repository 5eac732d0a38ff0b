#!/usr/bin/env bash
# Side by side with a running Bitcoin Core: the "Against Bitcoin Core" figures of
# docs/stats.md (getblockstats) and docs/utxo.md (gettxoutsetinfo muhash and
# hash_serialized_3), measured on the bundled regtest datadir
# (tests/data/regtest/datadir.tar.zst) and on a synthetic chainstate of N coins.
#
#   scripts/peer-core-regtest.sh /path/to/bitcoind [--coins N] [--runs R] [--big-block] [--keep]
#   BITCOIND=/path/to/bitcoind scripts/peer-core-regtest.sh
#
# You bring the bitcoind binary (any release that reads a v28 regtest datadir);
# this script never builds or fetches Core. It needs build/blockkit and
# build/gen-utxo (make build), python3, a C compiler and libleveldb-dev (for a
# ten-line helper that points the synthetic chainstate's best block 'B' at the
# regtest tip). Everything happens in a fresh temporary directory: the datadir
# is unpacked there (never into the repository), every node binds RPC to
# 127.0.0.1 on a free port with -listen=0 -connect=0 -dnsseed=0 and is stopped
# with the `stop` RPC at the end. Core is timed over raw JSON-RPC (cookie auth,
# one keep-alive HTTP connection); blockkit by wall time and CPU time of its
# process, one thread (-j 1 / --threads 1) unless said.
#
# What it prints:
#   1. getblockstats for all 940 blocks: Core one call per block and one batch
#      request, blockkit `stats --datadir` over the same range; the bytes of
#      every answer compared (and, where they differ, whether only as Core's
#      post-v31 PER_UTXO_OVERHEAD change predicts); the three largest blocks
#      one by one: Core per call, blockkit per in-process library call (a loop
#      compiled here against build/libblockkit.so, as the BlockStats bench:
#      bk_block_stats_compute_undo, the checksum and statistics in one pass;
#      "staged": the same call through checksum verify, bk_block_undo_parse
#      and bk_block_stats_compute, the two alternated).
#   2. gettxoutsetinfo on the regtest set (exactness, all three hash types).
#   3. --coins N (default 10000000; 0 skips): build/gen-utxo writes N coins, the
#      chainstate is put in place of a regtest datadir copy's (best block set to
#      the regtest tip), Core starts on it with -checkblocks=1 -checklevel=0, and
#      gettxoutsetinfo hash_serialized_3 / muhash / none are timed against
#      `blockkit utxo stats` on the same directory; the answers compared
#      (disk_size too, printed apart: LevelDB's own estimate of the files).
#   4. --big-block: on another copy, Core mines 101 blocks to raw(51), then two
#      fan-out transactions, then one block of 4,800 two-input P2WSH spends with
#      72-byte witness pushes (about 1.5 MB, 3.9 MWU, the shape of mainnet
#      block 866342), assembled here and mined with generateblock; its
#      getblockstats is timed on both sides and compared.
# A measurement, not a test: nothing in ctest runs it (CI has no bitcoind).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
usage() { sed -n '2,/^# A measurement/p' "$0" | sed 's/^# \{0,1\}//'; }
case "${1:-}" in -h|--help) usage; exit 0 ;; esac
BITCOIND_ARG=${BITCOIND:-}
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then BITCOIND_ARG=$1; shift; fi
if [ -z "$BITCOIND_ARG" ]; then usage >&2; exit 64; fi
for f in "$ROOT/build/blockkit" "$ROOT/build/gen-utxo"; do
    [ -x "$f" ] || { echo "peer-core-regtest: $f missing (make build)" >&2; exit 66; }
done
[ -x "$BITCOIND_ARG" ] || { echo "peer-core-regtest: $BITCOIND_ARG is not an executable" >&2; exit 66; }
export PEER_ROOT=$ROOT PEER_BITCOIND=$BITCOIND_ARG
exec python3 - "$@" <<'PY'
import hashlib, http.client, json, os, random, resource, shutil, socket, struct, subprocess, sys, tempfile, time

sys.stdout.reconfigure(line_buffering=True)
ROOT = os.environ["PEER_ROOT"]
BITCOIND = os.environ["PEER_BITCOIND"]
BK = os.path.join(ROOT, "build", "blockkit")
GEN = os.path.join(ROOT, "build", "gen-utxo")
TAR = os.path.join(ROOT, "tests", "data", "regtest", "datadir.tar.zst")

args = sys.argv[1:]
coins, runs, big_block, keep = 10_000_000, 3, False, False
i = 0
while i < len(args):
    a = args[i]
    if a == "--coins": coins = int(args[i + 1]); i += 2
    elif a == "--runs": runs = max(1, int(args[i + 1])); i += 2
    elif a == "--big-block": big_block = True; i += 1
    elif a == "--keep": keep = True; i += 1
    else: sys.exit(f"peer-core-regtest: unknown option {a}")

work = tempfile.mkdtemp(prefix="peer-core-")
print(f"work directory {work}")
nodes = []

def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)

def unpack(name):
    d = os.path.join(work, name)
    os.mkdir(d)
    sh(f"zstd -dc '{TAR}' | tar -x -C '{d}'", shell=True)
    return d

def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p

class Node:
    def __init__(self, datadir, extra=()):
        self.datadir, self.port = datadir, free_port()
        cmd = [BITCOIND, "-regtest", f"-datadir={datadir}", "-rpcbind=127.0.0.1", "-rpcallowip=127.0.0.1",
               f"-rpcport={self.port}", "-listen=0", "-connect=0", "-dnsseed=0", "-persistmempool=0",
               "-rpcworkqueue=64", "-rpcthreads=4", "-printtoconsole=0", *extra]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        nodes.append(self)
        self.conn = None
        t_end = time.time() + 900
        while True:
            if self.proc.poll() is not None:
                sys.exit(f"bitcoind exited ({self.proc.returncode}): {self.proc.stderr.read().decode()[-2000:]}"
                         f"\nsee {datadir}/regtest/debug.log")
            try:
                self.connect()
                self.call("getblockcount")
                break
            except (OSError, RuntimeError, http.client.HTTPException):
                self.conn = None
                if time.time() > t_end: sys.exit("bitcoind did not answer in 900 s")
                time.sleep(0.2)

    def connect(self):
        cookie = open(os.path.join(self.datadir, "regtest", ".cookie")).read().strip()
        import base64
        self.auth = "Basic " + base64.b64encode(cookie.encode()).decode()
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=7200)

    def post(self, body):
        self.conn.request("POST", "/", body, {"Authorization": self.auth, "Content-Type": "application/json"})
        r = self.conn.getresponse()
        data = r.read()
        if r.status == 401: raise RuntimeError("401")
        return data

    def raw(self, method, params=()):
        """Core's exact result bytes (JSON-RPC 1.1 answer {"result":R,"error":null,"id":1})."""
        body = json.dumps({"version": "1.1", "id": 1, "method": method, "params": list(params)})
        data = self.post(body)
        head, tail = b'{"result":', b',"error":null,"id":1}\n'
        if not (data.startswith(head) and data.endswith(tail)):
            raise RuntimeError(f"{method}: {data[:300]!r}")
        return data[len(head):-len(tail)]

    def call(self, method, *params):
        return json.loads(self.raw(method, params))

    def stop(self):
        try: self.call("stop")
        except Exception: pass
        self.proc.wait(timeout=600)
        nodes.remove(self)

def run_bk(argv, stdout=subprocess.PIPE):
    """blockkit's output, wall seconds and CPU seconds (user+sys) of the process."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run([BK, *argv], stdout=stdout, stderr=subprocess.PIPE, check=True)
    t1 = time.perf_counter()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return p.stdout, t1 - t0, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)

def core_cpu(node):
    """CPU seconds of every bitcoind thread so far (/proc schedstat, ns)."""
    tot = 0
    for t in os.listdir(f"/proc/{node.proc.pid}/task"):
        try: tot += int(open(f"/proc/{node.proc.pid}/task/{t}/schedstat").read().split()[0])
        except OSError: pass
    return tot * 1e-9

def dsha(b): return hashlib.sha256(hashlib.sha256(b).digest()).digest()

def xored(path, key):
    d = open(path, "rb").read()
    ks = (key * (len(d) // 8 + 1))[:len(d)]
    return (int.from_bytes(d, "little") ^ int.from_bytes(ks, "little")).to_bytes(len(d), "little")

def extract(datadir, height, tag):
    """The block at height (de-obfuscated) and its rev record, as files, for the harness."""
    blocks = os.path.join(datadir, "regtest", "blocks")
    key = open(os.path.join(blocks, "xor.dat"), "rb").read()
    for line in subprocess.run([BK, "chain", "--datadir", datadir, "--chain", "regtest"], capture_output=True,
                               check=True).stdout.splitlines():
        e = json.loads(line)
        if e["height"] == height: break
    d = xored(os.path.join(blocks, f"blk{e['file']:05d}.dat"), key)
    size = struct.unpack_from("<I", d, e["offset"] - 4)[0]
    blk = d[e["offset"]:e["offset"] + size]
    prev = blk[4:36]
    for f in sorted(os.listdir(blocks)):
        if not f.startswith("rev"): continue
        r = xored(os.path.join(blocks, f), key)
        pos = 0
        while pos + 8 <= len(r) and r[pos:pos + 4] != b"\0\0\0\0":
            n = struct.unpack_from("<I", r, pos + 4)[0]
            if dsha(prev + r[pos + 8:pos + 8 + n]) == r[pos + 8 + n:pos + 40 + n]:
                bp, rp = os.path.join(work, f"{tag}.blk"), os.path.join(work, f"{tag}.rev")
                open(bp, "wb").write(blk); open(rp, "wb").write(r[pos:pos + 40 + n])
                return bp, rp
            pos += 40 + n
    raise RuntimeError(f"no rev record for height {height}")

HARNESS = r'''
#define _POSIX_C_SOURCE 200809L
#include <blockkit/blockkit.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
/* one getblockstats call per iteration, as BlockStats/866342 in blockkit bench: read the block and
 * rev record files, decode, then the undo checksum and statistics in one pass over the CBlockUndo
 * (bk_block_stats_compute_undo), JSON; alternately the same call with the three stages (checksum
 * verify, bk_block_undo_parse, bk_block_stats_compute). Prints the best wall and thread-CPU seconds of
 * one call, single pass then staged */
static size_t fsize(const char *p) { struct stat s; return stat(p, &s) ? 0 : (size_t)s.st_size; }
static int rd(const char *p, uint8_t *b, size_t n) {
    int fd = open(p, O_RDONLY); size_t got = 0;
    if (fd < 0) return -1;
    while (got < n) { ssize_t r = pread(fd, b + got, n - got, (off_t)got); if (r <= 0) break; got += (size_t)r; }
    close(fd);
    return got == n ? 0 : -1;
}
static double now(clockid_t c) { struct timespec t; clock_gettime(c, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(int argc, char **argv) {
    if (argc != 5) return 64;
    const char *bp = argv[1], *rp = argv[2];
    int64_t height = atoll(argv[3]);
    int iters = atoi(argv[4]);
    size_t bn = fsize(bp), rn = fsize(rp);
    uint8_t *blk = malloc(bn), *rev = malloc(rn);
    bk_block_decoder dec; bk_block_decoder_init(&dec, NULL);
    bk_block_stats_scratch sc; bk_block_stats_scratch_init(&sc, NULL);
    bk_writer w; bk_writer_init(&w, NULL);
    double best[2] = {1e9, 1e9}, bestcpu[2] = {1e9, 1e9};
    if (!blk || !rev || rn < 40) return 66;
    for (int i = 0; i < 2 * iters; i++) {
        int staged = i & 1;
        double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_THREAD_CPUTIME_ID);
        if (rd(bp, blk, bn) || rd(rp, rev, rn)) return 66;
        bk_block b;
        if (bk_block_decode(&dec, blk, bn, &b, NULL) != BK_OK) return 65;
        size_t n = rn - 40;
        bk_chain_context ctx; bk_chain_context_standalone(&ctx, &b, BK_NET_REGTEST, height);
        uint8_t h[32]; bk_block_hash(&b, h);
        bk_block_stats_opts o; bk_block_stats_opts_init(&o); o.hash = h;
        bk_block_stats st;
        if (!staged) {
            if (bk_block_stats_compute_undo(&sc, &b, rev + 8, n, rev + 8 + n, &ctx, &o, &st, NULL) != BK_OK) return 65;
        } else {
            if (bk_undo_checksum_verify(rev + 8, n, b.header.prev_hash, rev + 8 + n, NULL) != BK_OK) return 65;
            bk_block_undo u;
            if (bk_block_undo_parse(rev + 8, n, &u, NULL) != BK_OK) return 65;
            if (bk_block_stats_compute(&sc, &b, &u, &ctx, &o, &st, NULL) != BK_OK) return 65;
        }
        bk_writer_reset(&w);
        bk_json j; bk_json_init(&j, &w, 0);
        if (bk_json_block_stats(&j, &st, BK_STATS_ALL, NULL) != BK_OK) return 65;
        double t1 = now(CLOCK_MONOTONIC), c1 = now(CLOCK_THREAD_CPUTIME_ID);
        if (t1 - t0 < best[staged]) best[staged] = t1 - t0;
        if (c1 - c0 < bestcpu[staged]) bestcpu[staged] = c1 - c0;
    }
    printf("%.9f %.9f %.9f %.9f\n", best[0], bestcpu[0], best[1], bestcpu[1]);
    return 0;
}
'''
harness_bin = None

def harness(bp, rp, height, iters=300):
    """blockkit's in-process cost of one getblockstats call: (best wall, best thread CPU) seconds of the
    single pass (bk_block_stats_compute_undo), then of the three stages, the two alternated."""
    global harness_bin
    if harness_bin is None:
        harness_bin = os.path.join(work, "bkstats1")
        sh(["cc", "-O2", "-std=c11", "-x", "c", "-", "-I", os.path.join(ROOT, "include"), "-o", harness_bin,
            "-L", os.path.join(ROOT, "build"), "-lblockkit", "-Wl,-rpath," + os.path.join(ROOT, "build")],
           input=HARNESS.encode())
    return tuple(float(x) for x in subprocess.run([harness_bin, bp, rp, str(height), str(iters)],
                                                   capture_output=True, check=True, text=True).stdout.split())

def core_block(node, h, n=50):
    """Core's cost of getblockstats h: best single call (wall, round trip included), and a batch of n
    identical calls: wall and bitcoind CPU per call."""
    for _ in range(5): node.raw("getblockstats", [h])
    single = min(timed(lambda: node.raw("getblockstats", [h]))[1] for _ in range(n))
    body = json.dumps([{"version": "1.1", "id": k, "method": "getblockstats", "params": [h]} for k in range(n)])
    bw, bc = float("inf"), float("inf")
    for _ in range(3):
        c0 = core_cpu(node); _, t = timed(lambda: node.post(body)); c1 = core_cpu(node)
        bw, bc = min(bw, t / n), min(bc, (c1 - c0) / n)
    return single, bw, bc

def v32_overhead(core_b, bk_b):
    """True when the two answers differ only as Core's PER_UTXO_OVERHEAD change (41 -> 40 bytes,
    bitcoin/bitcoin#31449, after v31) predicts: utxo_size_inc less utxo_increase, the _actual pair alike."""
    c, b = json.loads(core_b), json.loads(bk_b)
    b["utxo_size_inc"] -= b["utxo_increase"]; b["utxo_size_inc_actual"] -= b["utxo_increase_actual"]
    return list(c.items()) == list(b.items())

def timed(f):
    t0 = time.perf_counter(); v = f(); return v, time.perf_counter() - t0

def ms(x): return f"{x * 1e3:,.3f} ms"

try:
    version = subprocess.run([BITCOIND, "-version"], capture_output=True, text=True).stdout.splitlines()[0]
    print(f"bitcoind: {version}")
    print(f"blockkit: {subprocess.run([BK, '--version'], capture_output=True, text=True).stdout.strip()}")

    # ---------------------------------------------------------------- 1. getblockstats
    rt = unpack("rt")
    # blockkit first (the datadir as shipped, no node running), -j 1, best of runs
    bk_lines, bk_wall, bk_cpu = None, [], []
    for _ in range(max(runs, 5)):
        out, w, c = run_bk(["stats", "--datadir", rt, "--chain", "regtest", "-j", "1"])
        bk_lines = out.splitlines(); bk_wall.append(w); bk_cpu.append(c)
    n = len(bk_lines)
    # the same with Core's post-v31 overhead (bitcoin/bitcoin#31449), for a newer bitcoind
    bk32_lines = run_bk(["stats", "--datadir", rt, "--chain", "regtest", "-j", "1", "--core-compat", "32"])[0].splitlines()
    node = Node(rt)
    tip = node.call("getblockcount")
    assert n == tip + 1, (n, tip)
    for _ in range(200): node.raw("getblockcount")                    # warm the connection
    rtt = min(timed(lambda: node.raw("getblockcount"))[1] for _ in range(2000))
    per = [float("inf")] * n
    core = [None] * n
    for _ in range(runs):
        for h in range(n):
            v, t = timed(lambda: node.raw("getblockstats", [h]))
            core[h] = v; per[h] = min(per[h], t)
    batch_body = json.dumps([{"version": "1.1", "id": h, "method": "getblockstats", "params": [h]}
                             for h in range(n)])
    batch, batch_cpu = [], []
    for _ in range(runs):
        c0 = core_cpu(node)
        data, t = timed(lambda: node.post(batch_body))
        batch.append(t); batch_cpu.append(core_cpu(node) - c0)
    answers = json.loads(data)
    assert len(answers) == n and all(a["error"] is None for a in answers)
    same = sum(1 for h in range(n) if core[h] == bk_lines[h])
    diff = [h for h in range(n) if core[h] != bk_lines[h]]
    ov = sum(1 for h in diff if v32_overhead(core[h], bk_lines[h]))
    same32 = sum(1 for h in range(n) if h < len(bk32_lines) and core[h] == bk32_lines[h])
    sizes = sorted(((json.loads(core[h])["total_size"], h) for h in range(n)), reverse=True)[:3]
    big = [(h, size, core_block(node, h)) for size, h in sizes]
    node.stop()
    print()
    print(f"== getblockstats, regtest chain: {n} blocks (heights 0..{n - 1}) ==")
    print(f"answers byte-identical: {same}/{n}" + (f"; the other {len(diff)} differ (heights {diff[:8]}...)" if diff else ""))
    if diff:
        print(f"  of those, {ov} differ only in utxo_size_inc / utxo_size_inc_actual, by utxo_increase / "
              f"utxo_increase_actual: Core's PER_UTXO_OVERHEAD went from 41 to 40 bytes after v31 "
              f"(bitcoin/bitcoin#31449); blockkit prints v28-v31's figure")
    print(f"answers byte-identical with blockkit stats --core-compat 32: {same32}/{n}")
    print(f"Core, one call per block, best of {runs}: {ms(sum(per))} in all, {ms(sum(per) / n)} per block "
          f"(round trip of getblockcount on the same connection: {ms(rtt)})")
    print(f"Core, one batch request of {n}: best {ms(min(batch))} wall ({ms(min(batch) / n)} per block), "
          f"bitcoind CPU best {ms(min(batch_cpu))}; walls: {', '.join(ms(b) for b in batch)}")
    print(f"blockkit stats --datadir -j 1: best {ms(min(bk_wall))} wall, {ms(min(bk_cpu))} CPU "
          f"({ms(min(bk_wall) / n)} per block, block index read and process start included)")
    print(f"ratio, whole chain: Core batch / blockkit, wall {min(batch) / min(bk_wall):.1f}x, "
          f"CPU {min(batch_cpu) / min(bk_cpu):.1f}x")
    print("largest blocks, per call (Core: best single call with its round trip; batch of 50: wall and bitcoind "
          "CPU per call. blockkit: best of 300 in-process calls, files read each time, wall and thread CPU):")
    for h, size, (single, bw, bc) in big:
        bp, rp = extract(rt, h, f"h{h}")
        w, c, sw, scpu = harness(bp, rp, h)
        print(f"  height {h}, {size:,} bytes: Core {ms(single)} single, {ms(bw)} wall / {ms(bc)} CPU batched; "
              f"blockkit {ms(w)} wall / {ms(c)} CPU: {single / w:.0f}x (single wall), {bc / c:.0f}x (CPU); "
              f"staged {ms(sw)} / {ms(scpu)}")

    # ---------------------------------------------------------------- 2. gettxoutsetinfo, regtest
    node = Node(rt)
    print()
    print("== gettxoutsetinfo, regtest set (10,845 coins) ==")
    for ht in ("hash_serialized_3", "muhash", "none"):
        c = json.loads(node.raw("gettxoutsetinfo", [ht]))
        b = json.loads(run_bk(["utxo", "stats", "--datadir", rt, "--chain", "regtest", "--hash-type", ht])[0])
        c.pop("disk_size"); b.pop("disk_size")
        print(f"  {ht}: {'identical' if c == b else 'DIFFERENT'} (disk_size aside)"
              + ("" if c == b else f"\n    core     {json.dumps(c)}\n    blockkit {json.dumps(b)}"))
    node.stop()

    # ---------------------------------------------------------------- 3. gettxoutsetinfo, N coins
    if coins > 0:
        g = os.path.join(work, "gen")
        sh([GEN, g, str(coins)], stdout=subprocess.DEVNULL)
        bigd = os.path.join(work, "utxo")
        shutil.copytree(rt, bigd)
        for sub in ("chainstate", "indexes"):
            shutil.rmtree(os.path.join(bigd, "regtest", sub), ignore_errors=True)
        shutil.move(os.path.join(g, "chainstate"), os.path.join(bigd, "regtest", "chainstate"))
        os.remove(os.path.join(g, "utxo_snapshot.dat"))
        helper = os.path.join(work, "setbest")
        src = r'''
#include <leveldb/c.h>
#include <stdio.h>
int main(int argc, char **argv) {
    unsigned char h[32], v[32]; char *e = NULL; size_t n = 0;
    if (argc != 3) return 64;
    for (int i = 0; i < 32; i++) { unsigned x; sscanf(argv[2] + 2 * i, "%2x", &x); h[31 - i] = (unsigned char)x; }
    leveldb_options_t *o = leveldb_options_create();
    leveldb_t *db = leveldb_open(o, argv[1], &e);
    if (e) { fprintf(stderr, "%s\n", e); return 1; }
    char *k = leveldb_get(db, leveldb_readoptions_create(), "\x0e\x00obfuscate_key", 15, &n, &e);
    if (!k || n != 9) { fprintf(stderr, "no obfuscation key\n"); return 1; }
    for (int i = 0; i < 32; i++) v[i] = h[i] ^ (unsigned char)k[1 + (i & 7)];
    leveldb_writeoptions_t *wo = leveldb_writeoptions_create();
    leveldb_writeoptions_set_sync(wo, 1);
    leveldb_put(db, wo, "B", 1, (const char *)v, 32, &e);
    if (e) { fprintf(stderr, "%s\n", e); return 1; }
    leveldb_close(db);
    return 0;
}
'''
        sh(["cc", "-O2", "-x", "c", "-", "-o", helper, "-lleveldb"], input=src.encode())
        tiphash = json.loads(bk_lines[-1])["blockhash"]
        sh([helper, os.path.join(bigd, "regtest", "chainstate"), tiphash])
        print()
        print(f"== gettxoutsetinfo, {coins:,} synthetic coins (build/gen-utxo) as the chainstate of a "
              f"regtest datadir copy, best block = the regtest tip ==")
        bk = {}
        for ht in ("hash_serialized_3", "muhash", "none"):
            for threads in (["1"] if ht != "muhash" else ["1", "2"]):
                rs = [run_bk(["utxo", "stats", "--datadir", bigd, "--chain", "regtest", "--hash-type", ht,
                              "--threads", threads]) for _ in range(runs)]
                bk[(ht, threads)] = rs
        node = Node(bigd, ["-checkblocks=1", "-checklevel=0"])
        core_t = {}
        for ht in ("hash_serialized_3", "muhash", "none"):
            rs = []
            for _ in range(runs):
                c0 = core_cpu(node)
                v, t = timed(lambda: node.raw("gettxoutsetinfo", [ht]))
                rs.append((v, t, core_cpu(node) - c0))
            core_t[ht] = rs
        node.stop()
        for ht in ("hash_serialized_3", "muhash", "none"):
            c = json.loads(core_t[ht][-1][0]); b = json.loads(bk[(ht, "1")][-1][0])
            dc, db_ = c.pop("disk_size"), b.pop("disk_size")
            ct = [r[1] for r in core_t[ht]]
            cc = min(r[2] for r in core_t[ht])
            print(f"{ht}: {'identical' if c == b else 'DIFFERENT'} (disk_size: Core {dc:,}, blockkit {db_:,})")
            if c != b:
                print(f"    core     {json.dumps(c)}\n    blockkit {json.dumps(b)}")
            print(f"  Core gettxoutsetinfo {ht}: best {min(ct):.2f} s wall, {cc:.2f} s bitcoind CPU "
                  f"(walls: {', '.join(f'{t:.2f}' for t in ct)})")
            for threads in (["1"] if ht != "muhash" else ["1", "2"]):
                rs = bk[(ht, threads)]
                w = min(r[1] for r in rs); cpu = min(r[2] for r in rs)
                print(f"  blockkit utxo stats --threads {threads}: best {w:.2f} s wall, {cpu:.2f} s CPU "
                      f"(walls: {', '.join(f'{r[1]:.2f}' for r in rs)}): {min(ct) / w:.1f}x Core's wall, "
                      f"{cc / cpu:.1f}x Core's CPU")

    # ---------------------------------------------------------------- 4. a mainnet-sized block
    if big_block:
        bb = unpack("bigblock")
        node = Node(bb)
        h0 = node.call("getblockcount")
        node.call("generatetodescriptor", 101, "raw(51)")
        def cs(n): return bytes([n]) if n < 0xfd else b"\xfd" + struct.pack("<H", n)
        wscript = b"\x75\x51"                                    # OP_DROP OP_TRUE
        spk = b"\x00\x20" + hashlib.sha256(wscript).digest()     # P2WSH of it
        def tx(ins, outs, wit):
            base = struct.pack("<i", 2) + cs(len(ins))
            for (txid, vout) in ins: base += txid + struct.pack("<I", vout) + b"\x00" + struct.pack("<I", 0xfffffffd)
            base += cs(len(outs))
            for (v, s) in outs: base += struct.pack("<q", v) + cs(len(s)) + s
            txid = dsha(base + b"\x00\x00\x00\x00")
            if wit:
                w = b""
                for _ in ins:
                    w += b"\x02" + cs(72) + os.urandom(72) + cs(len(wscript)) + wscript
                full = base[:4] + b"\x00\x01" + base[4:] + w + b"\x00\x00\x00\x00"
            else:
                full = base + b"\x00\x00\x00\x00"
            return full.hex(), txid
        rnd = random.Random(866342)
        NTX = 4800
        fan = []
        coins_out = []
        for k in (1, 2):
            blk = node.call("getblock", node.call("getblockhash", h0 + k), 2)
            cb = blk["tx"][0]
            val = round(cb["vout"][0]["value"] * 1e8)
            each = (val - 20000) // NTX
            hx, txid = tx([(bytes.fromhex(cb["txid"])[::-1], 0)], [(each, spk)] * NTX, False)
            fan.append(hx)
            coins_out += [(txid, j, each) for j in range(NTX)]
        node.call("generateblock", "raw(51)", fan)
        spends = []
        for t in range(NTX):
            a, b = coins_out[2 * t], coins_out[2 * t + 1]
            fee = rnd.randint(200, 20000)
            total = a[2] + b[2] - fee
            pay = rnd.randint(546, total - 546)
            hx, _ = tx([(a[0], a[1]), (b[0], b[1])],
                       [(pay, b"\x00\x14" + rnd.randbytes(20)), (total - pay, spk)], True)
            spends.append(hx)
        res = node.call("generateblock", "raw(51)", spends)
        bh = res["hash"]
        hb = node.call("getblockheader", bh)["height"]
        single, bw, bc = core_block(node, hb)
        core_line = node.raw("getblockstats", [hb])
        st = json.loads(core_line)
        node.stop()
        out, _, _ = run_bk(["stats", "--datadir", bb, "--chain", "regtest", "--start", str(hb), "--end", str(hb)])
        bp, rp = extract(bb, hb, "big")
        w, c, sw, scpu = harness(bp, rp, hb)
        print()
        print(f"== getblockstats, a mainnet-sized regtest block: height {hb}, {st['txs']:,} txs, {st['ins']:,} inputs, "
              f"{st['total_size']:,} bytes, {st['total_weight']:,} WU ==")
        o1 = out.rstrip(b"\n")
        ident = "yes" if o1 == core_line else ("only the PER_UTXO_OVERHEAD change" if v32_overhead(core_line, o1) else "NO")
        print(f"answer byte-identical: {ident}")
        print(f"Core {ms(single)} single, {ms(bw)} wall / {ms(bc)} CPU batched; "
              f"blockkit {ms(w)} wall / {ms(c)} CPU: {single / w:.0f}x (single wall), {bc / c:.0f}x (CPU); "
              f"staged {ms(sw)} / {ms(scpu)}")
finally:
    for nd in list(nodes):
        try: nd.stop()
        except Exception: nd.proc.kill()
    if keep: print(f"kept {work}")
    else: shutil.rmtree(work, ignore_errors=True)
PY
