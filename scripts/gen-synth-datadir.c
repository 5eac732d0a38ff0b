/* gen-synth-datadir: a synthetic Bitcoin Core regtest datadir at mainnet
 * scale, for the ChainFromIndex / ChainFromFiles benchmarks and for
 * checking the block-index and file-scan chain builders against each other.
 *
 *   gen-synth-datadir [--blocks N] [--fork-every K] [--max-blockfile BYTES]
 *                     [--txindex] [--seed S] [--quiet] OUTDIR
 *
 * Writes OUTDIR/regtest/ (OUTDIR/regtest must not exist yet):
 *   blocks/blkNNNNN.dat, revNNNNN.dat, xor.dat
 *       N linked blocks on top of the real regtest genesis (tip height N-1),
 *       each a BIP34 coinbase, every even height >= 102 also one tx spending
 *       the coinbase output of height h-100 (so blocks are 1-2 txs, merkle
 *       roots valid, headers ground to regtest proof of work), records framed
 *       as Core frames them (magic, size), files rolled at --max-blockfile
 *       (Core's 128 MiB by default), undo records (CBlockUndo + SHA256d(parent
 *       hash || CBlockUndo)) in the rev file of the block's blk file, every
 *       byte XORed with the xor.dat key at its file offset.
 *   blocks/index/   LevelDB written with libleveldb as Core lays it out:
 *       'b' + hash -> CDiskBlockIndex (VARINT version 259900, height, status,
 *       nTx, nFile, nDataPos, nUndoPos as the status says, then the 80-byte
 *       header), 'f' + int32 -> CBlockFileInfo, 'l' -> int32 last file.
 *   chainstate/     LevelDB holding the obfuscation key ("\x0e\x00obfuscate_key"
 *       -> 8 random bytes) and 'B' -> the tip hash XORed with it (no coins).
 *   indexes/txindex/ with --txindex: 't' + txid -> CDiskTxPos (VARINT nFile,
 *       nPos of the block, nTxOffset after the header) for every connected
 *       block, 'B' -> the tip's CBlockLocator.
 *
 * Besides the active chain: a one-block stale sibling (status valid-fork:
 * data and undo, seen first, then reorganised away) every K heights (default
 * 1000), one stored block that failed validation (data, no undo), one side
 * block never connected (valid-headers: data, no undo) and a two-block
 * branch known by headers only (no data). So getchaintips of the result has
 * N/K + 4 tips. Amounts are a constant 50 BTC subsidy (no halvings): the
 * bodies are shaped like Core's, not consensus-valid chains.
 *
 * Silent payments (--sp-receiver KEYFILE --sp-expect OUT): every coinbase
 * pays P2WPKH to a key of its height, every spend carries that key in its
 * witness, and every sixth height's spend pays BIP352 outputs, computed
 * the sender's way ("Creating outputs": a·input_hash·B_scan) with
 * libsecp256k1: to the receiver of KEYFILE (two lines, the scan and the
 * spend private key in hex: test keys, not a wallet's), unlabelled and with
 * labels 0-2, several outputs per tx in an order other than k's, to a decoy
 * receiver, beside P2WPKH change and a taproot output that is no payment.
 * OUT gets the lines `blockkit sp scan --labels 2` must print for that
 * receiver (height, hash, txid, vout, pubkey, value, tweak, k,
 * priv_key_tweak, label), in height order then k order.
 *
 * Exit status 0, 64 usage, 74 I/O. Deterministic for a given seed. */
#include <blockkit/blockkit.h>
#include <leveldb/c.h>
#include <secp256k1.h>
#include <secp256k1_extrakeys.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define MAX_FILE_DEFAULT (128u << 20) /* Core: MAX_BLOCKFILE_SIZE */
#define COINBASE_VALUE 5000000000ull
#define SPEND_FEE 1000ull
#define MATURITY 100
#define CLIENT_VERSION 259900      /* CDiskBlockIndex's dummy version as v28 writes it */
#define LOCATOR_VERSION 70016

enum {
    VALID_TREE = 2,
    VALID_TRANSACTIONS = 3,
    VALID_SCRIPTS = 5,
    HAVE_DATA = 8,
    HAVE_UNDO = 16,
    FAILED_VALID = 32,
    OPT_WITNESS = 128,
};

/* Core's regtest genesis block (chainparams CreateGenesisBlock(1296688602, 2, 0x207fffff, 1, 50 BTC)). */
static const char GENESIS_HEX[] =
    "0100000000000000000000000000000000000000000000000000000000000000000000003ba3edfd7a7b12b27ac72c3e67768f61"
    "7fc81bc3888a51323a9fb8aa4b1e5e4adae5494dffff7f200200000001010000000100000000000000000000000000000000000000"
    "00000000000000000000000000ffffffff4d04ffff001d0104455468652054696d65732030332f4a616e2f32303039204368616e"
    "63656c6c6f72206f6e206272696e6b206f66207365636f6e64206261696c6f757420666f722062616e6b73ffffffff0100f2052a"
    "01000000434104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51e"
    "c112de5c384df7ba0b8d578a4c702b6bf11d5fac00000000";
static const uint8_t MAGIC[4] = {0xfa, 0xbf, 0xb5, 0xda};

static uint64_t rng_state;
static uint64_t rng(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void put_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void put_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* ---- output files ---- */

typedef struct ofile {
    FILE *f;
    uint8_t *buf;
    size_t len;
    uint64_t pos; /* file offset of the next byte */
} ofile;

#define OBUF (4u << 20)
static uint8_t xor_key[8];
static int io_failed;

static int ofile_open(ofile *o, const char *path)
{
    o->f = fopen(path, "wb");
    o->len = 0;
    o->pos = 0;
    if (!o->buf) o->buf = malloc(OBUF);
    if (!o->f || !o->buf) {
        fprintf(stderr, "gen-synth-datadir: %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

static void ofile_flush(ofile *o)
{
    if (o->len && fwrite(o->buf, 1, o->len, o->f) != o->len) io_failed = 1;
    o->len = 0;
}

static void ofile_put(ofile *o, const uint8_t *p, size_t n)
{
    if (o->len + n > OBUF) ofile_flush(o);
    for (size_t i = 0; i < n; i++) o->buf[o->len + i] = p[i] ^ xor_key[(o->pos + i) & 7];
    o->len += n;
    o->pos += n;
}

static void ofile_close(ofile *o)
{
    if (!o->f) return;
    ofile_flush(o);
    if (fclose(o->f) != 0) io_failed = 1;
    o->f = NULL;
}

/* ---- serialization helpers ---- */

typedef struct buf {
    uint8_t d[1024];
    size_t n;
} buf;

static void b_put(buf *b, const void *p, size_t n)
{
    memcpy(b->d + b->n, p, n);
    b->n += n;
}
static void b_u8(buf *b, uint8_t v) { b->d[b->n++] = v; }
static void b_u32(buf *b, uint32_t v)
{
    put_le32(b->d + b->n, v);
    b->n += 4;
}
static void b_u64(buf *b, uint64_t v)
{
    put_le64(b->d + b->n, v);
    b->n += 8;
}
static void b_varint(buf *b, uint64_t v) { b->n += bk_varint_encode(b->d + b->n, v); }
static void b_compact(buf *b, uint64_t v) { b->n += bk_compact_size_encode(b->d + b->n, v); }

/* CScript() << n for n >= 0 (CScriptNum push; OP_0 / OP_1..OP_16 for small n). */
static void push_int(buf *s, uint64_t n)
{
    if (n == 0) {
        b_u8(s, 0x00);
        return;
    }
    if (n <= 16) {
        b_u8(s, (uint8_t)(0x50 + n));
        return;
    }
    uint8_t num[9];
    size_t k = 0;
    while (n) {
        num[k++] = (uint8_t)(n & 0xff);
        n >>= 8;
    }
    if (num[k - 1] & 0x80) num[k++] = 0;
    b_u8(s, (uint8_t)k);
    b_put(s, num, k);
}

/* txid: SHA256d of the serialization without witness. */
static void tx_hash(const buf *tx, uint8_t out[32])
{
    bk_tx t;
    size_t used;
    bk_error e;
    if (bk_tx_parse(tx->d, tx->n, &t, &used, &e) != BK_OK || used != tx->n) {
        fprintf(stderr, "gen-synth-datadir: internal error: a generated tx does not parse: %s\n", e.msg);
        exit(70);
    }
    bk_tx_txid(&t, out);
}

/* ---- silent payments (--sp-receiver) ---- */

typedef struct sp_receiver {
    uint8_t scan_key[32];
    secp256k1_pubkey scan, spend;
} sp_receiver;

typedef struct sp_line {
    uint32_t vout, k;
    int label; /* -1: none */
    uint64_t value;
    uint8_t xonly[32], priv_tweak[32];
} sp_line;

static struct {
    int on;
    secp256k1_context *ctx;
    sp_receiver me, decoy;
    FILE *expect;
    uint8_t tweak[33];   /* the current spend's input_hash·A */
    sp_line lines[4];
    size_t n_lines;
    uint64_t n_txs, n_outputs;
} sp;

static void sp_fail(const char *what)
{
    fprintf(stderr, "gen-synth-datadir: silent payments: %s\n", what);
    exit(70);
}

static void sp_tagged(uint8_t out[32], const char *tag, const uint8_t *m, size_t n)
{
    if (!secp256k1_tagged_sha256(sp.ctx, out, (const unsigned char *)tag, strlen(tag), m, n)) sp_fail("tagged hash");
}

static void put_be32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (24 - 8 * i));
}

/* The key the coinbase of height h pays (and its spend reveals). */
static void sp_input_key(uint32_t h, uint8_t sk[32], uint8_t pub[33])
{
    uint8_t seed[21] = "bk-synth-sp-input";
    put_le32(seed + 17, h);
    bk_sha256(sk, seed, sizeof seed);
    while (!secp256k1_ec_seckey_verify(sp.ctx, sk)) bk_sha256(sk, sk, 32);
    secp256k1_pubkey pk;
    size_t len = 33;
    if (!secp256k1_ec_pubkey_create(sp.ctx, &pk, sk) ||
        !secp256k1_ec_pubkey_serialize(sp.ctx, pub, &len, &pk, SECP256K1_EC_COMPRESSED))
        sp_fail("input key");
}

static void sp_receiver_from(sp_receiver *r, const uint8_t scan_key[32], const uint8_t spend_key[32])
{
    memcpy(r->scan_key, scan_key, 32);
    if (!secp256k1_ec_pubkey_create(sp.ctx, &r->scan, scan_key) ||
        !secp256k1_ec_pubkey_create(sp.ctx, &r->spend, spend_key))
        sp_fail("receiver key is not a valid private key");
}

/* "Creating outputs": P_k = B_m + t_k·G, t_k = hash_BIP0352/SharedSecret(
 * serP(a·input_hash·B_scan) || ser32(k)), B_m = B_spend + hash_BIP0352/Label(
 * ser256(b_scan) || ser32(m))·G for label m >= 0. */
static void sp_payment(const sp_receiver *r, const uint8_t a_hash[32], uint32_t k, int label, uint8_t xonly[32],
                       uint8_t priv_tweak[32])
{
    secp256k1_pubkey shared = r->scan, P = r->spend;
    uint8_t ser[37], tk[32];
    size_t len = 33;
    if (!secp256k1_ec_pubkey_tweak_mul(sp.ctx, &shared, a_hash) ||
        !secp256k1_ec_pubkey_serialize(sp.ctx, ser, &len, &shared, SECP256K1_EC_COMPRESSED))
        sp_fail("shared secret");
    put_be32(ser + 33, k);
    sp_tagged(tk, "BIP0352/SharedSecret", ser, 37);
    memcpy(priv_tweak, tk, 32);
    if (label >= 0) {
        uint8_t m[36], lt[32];
        memcpy(m, r->scan_key, 32);
        put_be32(m + 32, (uint32_t)label);
        sp_tagged(lt, "BIP0352/Label", m, 36);
        if (!secp256k1_ec_pubkey_tweak_add(sp.ctx, &P, lt) || !secp256k1_ec_seckey_tweak_add(sp.ctx, priv_tweak, lt))
            sp_fail("label");
    }
    if (!secp256k1_ec_pubkey_tweak_add(sp.ctx, &P, tk)) sp_fail("output key");
    len = 33;
    if (!secp256k1_ec_pubkey_serialize(sp.ctx, ser, &len, &P, SECP256K1_EC_COMPRESSED)) sp_fail("output key");
    memcpy(xonly, ser + 1, 32);
}

/* A segwit spend's start (version, marker and flag, its one input: output
 * 0 of txid, empty scriptSig, sequence) and its end (the P2WPKH witness: a
 * placeholder signature and the key; nLockTime). */
static void sp_tx_begin(buf *tx, const uint8_t txid[32], uint32_t sequence)
{
    tx->n = 0;
    b_u32(tx, 2);
    b_u8(tx, 0x00);
    b_u8(tx, 0x01);
    b_compact(tx, 1);
    b_put(tx, txid, 32);
    b_u32(tx, 0);
    b_compact(tx, 0);
    b_u32(tx, sequence);
}

static void sp_tx_end(buf *tx, const uint8_t pub[33], uint32_t height)
{
    b_compact(tx, 2);
    b_compact(tx, 71);
    for (int i = 0; i < 71; i++) b_u8(tx, (uint8_t)(0x30 + i));
    b_compact(tx, 33);
    b_put(tx, pub, 33);
    b_u32(tx, height - 1);
}

/* One output of a silent-payment spend: who it pays (me, decoy, or no
 * one: 0 a P2WPKH change, 1 a taproot key that is no payment), k, label. */
typedef struct sp_plan {
    char to; /* 'm' me, 'd' decoy, 'c' P2WPKH change, 't' plain taproot */
    uint32_t k;
    int label;
} sp_plan;

static const sp_plan SP_PLANS[4][3] = {
    {{'c', 0, -1}, {'m', 0, -1}, {0, 0, 0}},
    {{'m', 2, 0}, {'m', 1, 1}, {'m', 0, -1}},
    {{'d', 0, -1}, {'c', 0, -1}, {0, 0, 0}},
    {{'t', 0, -1}, {'m', 0, 2}, {'m', 1, -1}},
};

/* A silent-payment spend of output 0 (value, P2WPKH to the key of height
 * from) of coinbase txid, at height: plan (h / 6) % 4 of SP_PLANS. Fills
 * sp.tweak and sp.lines (the receiver's outputs, in k order). */
static void make_sp_spend(buf *tx, const uint8_t txid[32], uint64_t value, uint32_t from, uint32_t height)
{
    uint8_t a[32], A33[33];
    sp_input_key(from, a, A33);
    uint8_t msg[36 + 33], input_hash[32], a_hash[32];
    memcpy(msg, txid, 32);
    put_le32(msg + 32, 0);
    memcpy(msg + 36, A33, 33);
    sp_tagged(input_hash, "BIP0352/Inputs", msg, sizeof msg);
    memcpy(a_hash, a, 32);
    secp256k1_pubkey A;
    size_t len = 33;
    if (!secp256k1_ec_seckey_tweak_mul(sp.ctx, a_hash, input_hash) || !secp256k1_ec_pubkey_parse(sp.ctx, &A, A33, 33) ||
        !secp256k1_ec_pubkey_tweak_mul(sp.ctx, &A, input_hash) ||
        !secp256k1_ec_pubkey_serialize(sp.ctx, sp.tweak, &len, &A, SECP256K1_EC_COMPRESSED))
        sp_fail("tweak");
    const sp_plan *plan = SP_PLANS[(height / 6) % 4];
    size_t n_out = plan[2].to ? 3 : 2;
    uint64_t each = (value - SPEND_FEE) / n_out;
    sp_tx_begin(tx, txid, 0xfffffffdu);
    b_compact(tx, n_out);
    sp.n_lines = 0;
    for (size_t i = 0; i < n_out; i++) {
        uint64_t v = i == 0 ? value - SPEND_FEE - each * (n_out - 1) : each;
        b_u64(tx, v);
        uint8_t key[32], tw[32];
        if (plan[i].to == 'c') {
            uint8_t spk[22] = {0x00, 0x14}, h[32], seed[4];
            put_le32(seed, height);
            bk_sha256(h, seed, 4);
            memcpy(spk + 2, h, 20);
            b_compact(tx, 22);
            b_put(tx, spk, 22);
            continue;
        }
        if (plan[i].to == 't') {
            uint8_t seed[8];
            put_le32(seed, height);
            put_le32(seed + 4, 0x74);
            bk_sha256(key, seed, 8);
        } else {
            sp_payment(plan[i].to == 'm' ? &sp.me : &sp.decoy, a_hash, plan[i].k, plan[i].label, key, tw);
            sp.n_outputs++;
        }
        b_compact(tx, 34);
        b_u8(tx, 0x51);
        b_u8(tx, 0x20);
        b_put(tx, key, 32);
        if (plan[i].to == 'm') {
            sp_line *l = &sp.lines[plan[i].k];
            l->vout = (uint32_t)i;
            l->k = plan[i].k;
            l->label = plan[i].label;
            l->value = v;
            memcpy(l->xonly, key, 32);
            memcpy(l->priv_tweak, tw, 32);
            sp.n_lines++;
        }
    }
    sp_tx_end(tx, A33, height);
    sp.n_txs++;
}

static void hex_out(FILE *f, const uint8_t *p, size_t n, int rev)
{
    char h[67];
    if (rev) bk_hex_encode_rev(h, p, n);
    else bk_hex_encode(h, p, n);
    h[2 * n] = 0;
    fputs(h, f);
}

/* The receiver's expected `sp scan` lines of the spend just made. */
static void sp_expect_lines(uint32_t height, const uint8_t block_hash[32], const uint8_t txid[32])
{
    for (size_t i = 0; i < sp.n_lines; i++) {
        const sp_line *l = &sp.lines[i];
        FILE *f = sp.expect;
        fprintf(f, "{\"height\":%u,\"hash\":\"", height);
        hex_out(f, block_hash, 32, 1);
        fputs("\",\"txid\":\"", f);
        hex_out(f, txid, 32, 1);
        fprintf(f, "\",\"vout\":%u,\"pubkey\":\"", l->vout);
        hex_out(f, l->xonly, 32, 0);
        fprintf(f, "\",\"value\":%llu,\"tweak\":\"", (unsigned long long)l->value);
        hex_out(f, sp.tweak, 33, 0);
        fprintf(f, "\",\"k\":%u,\"priv_key_tweak\":\"", l->k);
        hex_out(f, l->priv_tweak, 32, 0);
        if (l->label >= 0) fprintf(f, "\",\"label\":%d}\n", l->label);
        else fputs("\",\"label\":null}\n", f);
    }
}

/* KEYFILE: the scan and the spend private key, 64 hex digits each, one a line. */
static int sp_setup(const char *keyfile, const char *expect)
{
    sp.ctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
    FILE *f = fopen(keyfile, "r");
    char line[2][130];
    uint8_t keys[2][32];
    if (!f) {
        fprintf(stderr, "gen-synth-datadir: %s: %s\n", keyfile, strerror(errno));
        return 74;
    }
    for (int i = 0; i < 2; i++) {
        bk_error e;
        if (!fgets(line[i], sizeof line[i], f) || strcspn(line[i], "\r\n") != 64 ||
            bk_hex_decode(keys[i], line[i], 32, &e) != BK_OK) {
            fclose(f);
            fprintf(stderr, "gen-synth-datadir: %s: line %d is not 64 hex digits\n", keyfile, i + 1);
            return 64;
        }
    }
    fclose(f);
    sp_receiver_from(&sp.me, keys[0], keys[1]);
    uint8_t d[2][32];
    bk_sha256(d[0], (const uint8_t *)"bk-synth-sp-decoy-scan", 22);
    bk_sha256(d[1], (const uint8_t *)"bk-synth-sp-decoy-spend", 23);
    sp_receiver_from(&sp.decoy, d[0], d[1]);
    sp.expect = fopen(expect, "w");
    if (!sp.expect) {
        fprintf(stderr, "gen-synth-datadir: %s: %s\n", expect, strerror(errno));
        return 74;
    }
    sp.on = 1;
    return 0;
}

/* The coinbase of (height, tag): scriptSig = height, tag; one P2PKH output. */
static void make_coinbase(buf *tx, uint32_t height, uint8_t tag, uint64_t value, uint8_t pkh_out[20])
{
    buf ss = {.n = 0};
    push_int(&ss, height);
    b_u8(&ss, 0x01);
    b_u8(&ss, tag);
    tx->n = 0;
    b_u32(tx, 2);
    b_compact(tx, 1);
    uint8_t null_prev[36];
    memset(null_prev, 0, 32);
    memset(null_prev + 32, 0xff, 4);
    b_put(tx, null_prev, 36);
    b_compact(tx, ss.n);
    b_put(tx, ss.d, ss.n);
    b_u32(tx, 0xffffffffu);
    b_compact(tx, 1);
    b_u64(tx, value);
    uint8_t h[32];
    uint8_t seed[8];
    put_le32(seed, height);
    put_le32(seed + 4, tag);
    bk_sha256(h, seed, 8);
    memcpy(pkh_out, h, 20);
    if (sp.on && tag == 0) {
        uint8_t sk[32], pub[33], spk[22] = {0x00, 0x14};
        sp_input_key(height, sk, pub);
        bk_hash160(spk + 2, pub, 33);
        b_compact(tx, 22);
        b_put(tx, spk, 22);
        b_u32(tx, 0);
        return;
    }
    uint8_t spk[25] = {0x76, 0xa9, 0x14};
    memcpy(spk + 3, h, 20);
    spk[23] = 0x88;
    spk[24] = 0xac;
    b_compact(tx, 25);
    b_put(tx, spk, 25);
    b_u32(tx, 0);
}

/* In silent-payment mode, a spend of the P2WPKH coinbase output of height
 * from with no taproot output (so not eligible): P2WPKH of value - fee. */
static void make_sp_plain_spend(buf *tx, const uint8_t txid[32], uint64_t value, uint32_t from, uint32_t height)
{
    uint8_t sk[32], pub[33];
    sp_input_key(from, sk, pub);
    sp_tx_begin(tx, txid, 0xfffffffeu);
    b_compact(tx, 1);
    b_u64(tx, value - SPEND_FEE);
    uint8_t spk[22] = {0x00, 0x14};
    bk_hash160(spk + 2, pub, 33);
    b_compact(tx, 22);
    b_put(tx, spk, 22);
    sp_tx_end(tx, pub, height);
}

/* A tx spending output 0 (value) of coinbase txid: P2WPKH output of value - fee. */
static void make_spend(buf *tx, const uint8_t txid[32], uint64_t value, uint32_t height)
{
    tx->n = 0;
    b_u32(tx, 2);
    b_compact(tx, 1);
    b_put(tx, txid, 32);
    b_u32(tx, 0);
    b_compact(tx, 1);
    b_u8(tx, 0x51);
    b_u32(tx, 0xfffffffeu);
    b_compact(tx, 1);
    b_u64(tx, value - SPEND_FEE);
    uint8_t spk[22] = {0x00, 0x14};
    uint8_t h[32], seed[4];
    put_le32(seed, height);
    bk_sha256(h, seed, 4);
    memcpy(spk + 2, h, 20);
    b_compact(tx, 22);
    b_put(tx, spk, 22);
    b_u32(tx, height - 1);
}

/* Grind the nonce until SHA256d(header) meets regtest's target (nBits
 * 0x207fffff: the hash as a number below 0x7fffff << 232; we ask for a top
 * byte below 0x7f, a little stricter). */
static void grind(uint8_t hdr[80], uint8_t hash[32])
{
    for (uint32_t nonce = 0;; nonce++) {
        put_le32(hdr + 76, nonce);
        bk_sha256d(hash, hdr, 80);
        if (hash[31] < 0x7f) return;
    }
}

/* ---- LevelDB ---- */

typedef struct ldb {
    leveldb_t *db;
    leveldb_options_t *opt;
    leveldb_writeoptions_t *wo;
    leveldb_writebatch_t *batch;
    leveldb_filterpolicy_t *bloom;
    size_t pending;
} ldb;

static int ldb_open(ldb *l, const char *path, size_t write_buffer)
{
    char *err = NULL;
    memset(l, 0, sizeof *l);
    l->opt = leveldb_options_create();
    leveldb_options_set_create_if_missing(l->opt, 1);
    leveldb_options_set_error_if_exists(l->opt, 1);
    /* Core's CDBWrapper: no compression, bloom filter of 10 bits per key,
     * 32 MiB table files. */
    leveldb_options_set_compression(l->opt, leveldb_no_compression);
    l->bloom = leveldb_filterpolicy_create_bloom(10);
    leveldb_options_set_filter_policy(l->opt, l->bloom);
    leveldb_options_set_max_file_size(l->opt, 32u << 20);
    leveldb_options_set_write_buffer_size(l->opt, write_buffer);
    l->db = leveldb_open(l->opt, path, &err);
    if (err) {
        fprintf(stderr, "gen-synth-datadir: leveldb %s: %s\n", path, err);
        leveldb_free(err);
        return -1;
    }
    l->wo = leveldb_writeoptions_create();
    l->batch = leveldb_writebatch_create();
    return 0;
}

static int ldb_flush(ldb *l)
{
    char *err = NULL;
    if (!l->pending) return 0;
    leveldb_write(l->db, l->wo, l->batch, &err);
    leveldb_writebatch_clear(l->batch);
    l->pending = 0;
    if (err) {
        fprintf(stderr, "gen-synth-datadir: leveldb write: %s\n", err);
        leveldb_free(err);
        return -1;
    }
    return 0;
}

static int ldb_put(ldb *l, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl)
{
    leveldb_writebatch_put(l->batch, (const char *)k, kl, (const char *)v, vl);
    if (++l->pending >= 20000) return ldb_flush(l);
    return 0;
}

static int ldb_close(ldb *l, int compact)
{
    int rc = ldb_flush(l);
    if (l->db && compact) leveldb_compact_range(l->db, NULL, 0, NULL, 0);
    if (l->db) leveldb_close(l->db);
    if (l->batch) leveldb_writebatch_destroy(l->batch);
    if (l->wo) leveldb_writeoptions_destroy(l->wo);
    if (l->opt) leveldb_options_destroy(l->opt);
    if (l->bloom) leveldb_filterpolicy_destroy(l->bloom);
    memset(l, 0, sizeof *l);
    return rc;
}

/* ---- the generator ---- */

typedef struct fileinfo {
    uint32_t blocks, size, undo_size, height_first, height_last;
    uint64_t time_first, time_last;
} fileinfo;

typedef struct gen {
    uint32_t max_file;
    ofile blk, rev;
    uint32_t file;          /* current file number */
    fileinfo *info;
    size_t n_info, cap_info;
    ldb index, txindex;
    int with_txindex;
    uint64_t n_tx_indexed, n_blocks_stored, blk_bytes, rev_bytes;
} gen;

static int open_files(gen *g, const char *blocks, uint32_t n)
{
    char path[4200];
    ofile_close(&g->blk);
    ofile_close(&g->rev);
    snprintf(path, sizeof path, "%s/blk%05u.dat", blocks, n);
    if (ofile_open(&g->blk, path)) return -1;
    snprintf(path, sizeof path, "%s/rev%05u.dat", blocks, n);
    if (ofile_open(&g->rev, path)) return -1;
    if (n >= g->cap_info) {
        g->cap_info = g->cap_info ? 2 * g->cap_info : 16;
        g->info = realloc(g->info, g->cap_info * sizeof *g->info);
        if (!g->info) return -1;
    }
    memset(&g->info[n], 0, sizeof g->info[n]);
    g->n_info = n + 1;
    g->file = n;
    return 0;
}

typedef struct blockrec {
    uint8_t hash[32];
    uint8_t hdr[80];
    uint32_t height;
    uint32_t status;
    uint32_t n_tx;
    uint32_t file;
    uint32_t data_pos;
    uint32_t undo_pos;
} blockrec;

static int index_put(gen *g, const blockrec *r)
{
    uint8_t key[33];
    buf v = {.n = 0};
    key[0] = 'b';
    memcpy(key + 1, r->hash, 32);
    b_varint(&v, CLIENT_VERSION);
    b_varint(&v, r->height);
    b_varint(&v, r->status);
    b_varint(&v, r->n_tx);
    if (r->status & (HAVE_DATA | HAVE_UNDO)) b_varint(&v, r->file);
    if (r->status & HAVE_DATA) b_varint(&v, r->data_pos);
    if (r->status & HAVE_UNDO) b_varint(&v, r->undo_pos);
    b_put(&v, r->hdr, 80);
    return ldb_put(&g->index, key, 33, v.d, v.n);
}

/* Store one block (header + txs) and, when undo != NULL, its undo record;
 * fill r's file and positions and index it. connected: its txs go into the
 * txindex. */
static int store_block(gen *g, const char *blocks, blockrec *r, const buf *txs, size_t n_txs, const buf *undo,
                       int connected)
{
    uint32_t size = 80 + (uint32_t)bk_compact_size_len(n_txs);
    for (size_t i = 0; i < n_txs; i++) size += (uint32_t)txs[i].n;
    if (g->blk.pos > 0 && g->blk.pos + 8 + size > g->max_file && open_files(g, blocks, g->file + 1)) return -1;
    uint8_t hdr8[8];
    memcpy(hdr8, MAGIC, 4);
    put_le32(hdr8 + 4, size);
    ofile_put(&g->blk, hdr8, 8);
    r->file = g->file;
    r->data_pos = (uint32_t)g->blk.pos;
    ofile_put(&g->blk, r->hdr, 80);
    uint8_t cnt[9];
    size_t cl = bk_compact_size_encode(cnt, n_txs);
    ofile_put(&g->blk, cnt, cl);
    uint32_t tx_off = (uint32_t)cl;
    for (size_t i = 0; i < n_txs; i++) {
        ofile_put(&g->blk, txs[i].d, txs[i].n);
        if (connected && g->with_txindex) {
            uint8_t key[33];
            buf v = {.n = 0};
            key[0] = 't';
            tx_hash(&txs[i], key + 1);
            b_varint(&v, r->file);
            b_varint(&v, r->data_pos);
            b_varint(&v, tx_off);
            if (ldb_put(&g->txindex, key, 33, v.d, v.n)) return -1;
            g->n_tx_indexed++;
        }
        tx_off += (uint32_t)txs[i].n;
    }
    fileinfo *fi = &g->info[g->file];
    uint32_t t = bk_load_le32(r->hdr + 68);
    if (fi->blocks == 0 || r->height < fi->height_first) fi->height_first = r->height;
    if (fi->blocks == 0 || t < fi->time_first) fi->time_first = t;
    if (r->height > fi->height_last) fi->height_last = r->height;
    if (t > fi->time_last) fi->time_last = t;
    fi->blocks++;
    fi->size = (uint32_t)g->blk.pos;
    g->blk_bytes += 8 + size;
    g->n_blocks_stored++;
    r->status |= HAVE_DATA | OPT_WITNESS;
    if (undo) {
        uint8_t sum[32];
        bk_sha256_ctx c;
        bk_sha256_init(&c);
        bk_sha256_update(&c, r->hdr + 4, 32);
        bk_sha256_update(&c, undo->d, undo->n);
        bk_sha256_final(&c, sum);
        bk_sha256(sum, sum, 32);
        put_le32(hdr8 + 4, (uint32_t)undo->n);
        ofile_put(&g->rev, hdr8, 8);
        r->undo_pos = (uint32_t)g->rev.pos;
        ofile_put(&g->rev, undo->d, undo->n);
        ofile_put(&g->rev, sum, 32);
        fi->undo_size = (uint32_t)g->rev.pos;
        g->rev_bytes += 8 + undo->n + 32;
        r->status |= HAVE_UNDO;
    }
    r->n_tx = (uint32_t)n_txs;
    return index_put(g, r);
}

static void make_header(blockrec *r, const uint8_t prev[32], const buf *txs, size_t n_txs, uint32_t time)
{
    uint8_t root[32];
    tx_hash(&txs[0], root);
    if (n_txs == 2) {
        uint8_t pair[64];
        memcpy(pair, root, 32);
        tx_hash(&txs[1], pair + 32);
        bk_sha256d(root, pair, 64);
    }
    put_le32(r->hdr, 0x20000000u);
    memcpy(r->hdr + 4, prev, 32);
    memcpy(r->hdr + 36, root, 32);
    put_le32(r->hdr + 68, time);
    put_le32(r->hdr + 72, 0x207fffffu);
    grind(r->hdr, r->hash);
}

/* A coinbase-only side block on prev at height h with tag. */
static void side_block(blockrec *r, const uint8_t prev[32], uint32_t h, uint8_t tag, uint32_t time, buf *tx)
{
    uint8_t pkh[20];
    memset(r, 0, sizeof *r);
    r->height = h;
    make_coinbase(tx, h, tag, COINBASE_VALUE, pkh);
    make_header(r, prev, tx, 1, time);
}

static int mkdirs(const char *path)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return mkdir(tmp, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

static const char usage[] =
    "usage: gen-synth-datadir [--blocks N] [--fork-every K] [--max-blockfile BYTES]\n"
    "                         [--txindex] [--seed S] [--quiet]\n"
    "                         [--sp-receiver KEYFILE --sp-expect OUT] OUTDIR\n"
    "Writes a synthetic regtest datadir OUTDIR/regtest (blocks with xor.dat, undo,\n"
    "the LevelDB block index, chainstate best block, optional txindex) of N blocks\n"
    "(default 900000, tip height N-1), a stale sibling every K heights (default\n"
    "1000, 0 = none), an invalid, a valid-headers and a headers-only branch.\n";

int main(int argc, char **argv)
{
    uint64_t n_blocks = 900000, fork_every = 1000, seed = 1;
    uint32_t max_file = MAX_FILE_DEFAULT;
    int with_txindex = 0, quiet = 0;
    const char *out = NULL, *sp_keyfile = NULL, *sp_expect = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            return 0;
        }
        if (!strcmp(a, "--txindex")) {
            with_txindex = 1;
            continue;
        }
        if (!strcmp(a, "--quiet")) {
            quiet = 1;
            continue;
        }
        if (!strcmp(a, "--sp-receiver") || !strcmp(a, "--sp-expect")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "gen-synth-datadir: %s needs a value\n", a);
                return 64;
            }
            if (!strcmp(a, "--sp-receiver")) sp_keyfile = argv[++i];
            else sp_expect = argv[++i];
            continue;
        }
        if (!strcmp(a, "--blocks") || !strcmp(a, "--fork-every") || !strcmp(a, "--max-blockfile") ||
            !strcmp(a, "--seed")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "gen-synth-datadir: %s needs a value\n", a);
                return 64;
            }
            char *end;
            errno = 0;
            unsigned long long v = strtoull(argv[++i], &end, 10);
            if (errno || *end || end == argv[i]) {
                fprintf(stderr, "gen-synth-datadir: bad value for %s\n", a);
                return 64;
            }
            if (!strcmp(a, "--blocks")) n_blocks = v;
            else if (!strcmp(a, "--fork-every")) fork_every = v;
            else if (!strcmp(a, "--seed")) seed = v;
            else max_file = v > 0xffffffffull ? 0xffffffffu : (uint32_t)v;
            continue;
        }
        if (a[0] == '-') {
            fprintf(stderr, "gen-synth-datadir: unknown option %s\n%s", a, usage);
            return 64;
        }
        out = a;
    }
    if (!out || n_blocks < 16 || n_blocks > 100000000ull || max_file < 4096) {
        fputs(usage, stderr);
        return 64;
    }
    if (!sp_keyfile != !sp_expect) {
        fputs("gen-synth-datadir: --sp-receiver and --sp-expect go together\n", stderr);
        return 64;
    }
    if (sp_keyfile) {
        int rc = sp_setup(sp_keyfile, sp_expect);
        if (rc) return rc;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    rng_state = seed;
    for (int i = 0; i < 8; i++) xor_key[i] = (uint8_t)rng();

    char root[4096], blocks[4160], path[4400];
    if (strlen(out) > 4000) {
        fputs("gen-synth-datadir: OUTDIR path too long\n", stderr);
        return 64;
    }
    snprintf(root, sizeof root, "%.4000s/regtest", out);
    struct stat sb;
    if (stat(root, &sb) == 0) {
        fprintf(stderr, "gen-synth-datadir: %s exists; remove it first\n", root);
        return 64;
    }
    snprintf(blocks, sizeof blocks, "%.4088s/blocks", root);
    if (mkdirs(blocks) != 0) {
        fprintf(stderr, "gen-synth-datadir: %s: %s\n", blocks, strerror(errno));
        return 74;
    }
    snprintf(path, sizeof path, "%s/xor.dat", blocks);
    FILE *xf = fopen(path, "wb");
    if (!xf || fwrite(xor_key, 1, 8, xf) != 8 || fclose(xf) != 0) {
        fprintf(stderr, "gen-synth-datadir: %s: write failed\n", path);
        return 74;
    }

    gen g;
    memset(&g, 0, sizeof g);
    g.max_file = max_file;
    g.with_txindex = with_txindex;
    snprintf(path, sizeof path, "%s/index", blocks);
    if (ldb_open(&g.index, path, 64u << 20)) return 74;
    if (with_txindex) {
        snprintf(path, sizeof path, "%s/indexes", root);
        if (mkdirs(path) != 0) return 74;
        snprintf(path, sizeof path, "%s/indexes/txindex", root);
        if (ldb_open(&g.txindex, path, 64u << 20)) return 74;
    }
    if (open_files(&g, blocks, 0)) return 74;

    /* Active hashes by height (the locator and the best block need them). */
    uint8_t (*active)[32] = malloc(n_blocks * 32);
    /* The coinbase txids and values of the last MATURITY heights. */
    uint8_t cb_txid[MATURITY][32];
    if (!active) {
        fprintf(stderr, "gen-synth-datadir: out of memory\n");
        return 74;
    }

    /* Genesis: data, no undo (Core never connects its transactions). */
    buf txs[2], undo;
    blockrec r;
    memset(&r, 0, sizeof r);
    {
        static uint8_t gb[285];
        for (size_t i = 0; i < sizeof gb; i++) {
            unsigned v;
            sscanf(GENESIS_HEX + 2 * i, "%2x", &v);
            gb[i] = (uint8_t)v;
        }
        memcpy(r.hdr, gb, 80);
        bk_sha256d(r.hash, gb, 80);
        txs[0].n = sizeof gb - 81;
        memcpy(txs[0].d, gb + 81, txs[0].n);
        r.status = VALID_TRANSACTIONS;
        if (store_block(&g, blocks, &r, txs, 1, NULL, 0)) return 74;
        memcpy(active[0], r.hash, 32);
    }
    uint32_t genesis_time = bk_load_le32(r.hdr + 68);
    uint32_t tip = (uint32_t)(n_blocks - 1);
    uint32_t invalid_at = tip / 2 + 7, vheaders_at = tip / 3 + 3, honly_at = tip - 3;
    uint64_t n_stale = 0;
    uint8_t honly_parent[32];

    for (uint32_t h = 1; h <= tip; h++) {
        uint32_t time = genesis_time + 600u * h;
        const uint8_t *prev = active[h - 1];
        blockrec side;
        /* Blocks seen before the active block at this height. */
        if (fork_every && h % fork_every == fork_every / 2) {
            /* Connected, then reorganised away: data and undo (coinbase only). */
            side_block(&side, prev, h, 1, time + 1, &txs[0]);
            side.status = VALID_SCRIPTS;
            undo.n = 0;
            b_compact(&undo, 0);
            if (store_block(&g, blocks, &side, txs, 1, &undo, 1)) return 74;
            n_stale++;
        }
        if (h == invalid_at) {
            side_block(&side, prev, h, 2, time + 2, &txs[0]);
            side.status = VALID_TRANSACTIONS | FAILED_VALID;
            if (store_block(&g, blocks, &side, txs, 1, NULL, 0)) return 74;
        }
        if (h == vheaders_at) {
            side_block(&side, prev, h, 3, time + 3, &txs[0]);
            side.status = VALID_TRANSACTIONS;
            if (store_block(&g, blocks, &side, txs, 1, NULL, 0)) return 74;
        }
        if (h == honly_at) memcpy(honly_parent, prev, 32);

        /* The active block. */
        uint8_t pkh[20];
        size_t n_txs = 1;
        int spend = h >= MATURITY + 2 && h % 2 == 0;
        undo.n = 0;
        if (spend) {
            uint32_t from = h - MATURITY;
            uint64_t from_value = COINBASE_VALUE + (from % 2 == 0 && from >= MATURITY + 2 ? SPEND_FEE : 0);
            if (sp.on && h % 6 == 0) make_sp_spend(&txs[1], cb_txid[from % MATURITY], from_value, from, h);
            else if (sp.on) make_sp_plain_spend(&txs[1], cb_txid[from % MATURITY], from_value, from, h);
            else make_spend(&txs[1], cb_txid[from % MATURITY], from_value, h);
            n_txs = 2;
            /* CBlockUndo: one CTxUndo of one Coin (coinbase output 0 of `from`). */
            b_compact(&undo, 1);
            b_compact(&undo, 1);
            b_varint(&undo, (uint64_t)from * 2 + 1);
            b_varint(&undo, 0);
            b_varint(&undo, bk_amount_compress(from_value));
            if (sp.on) {
                /* P2WPKH is no special script: its size + 6, then the bytes */
                uint8_t sk[32], pub[33], spk[22] = {0x00, 0x14};
                sp_input_key(from, sk, pub);
                bk_hash160(spk + 2, pub, 33);
                b_varint(&undo, 22 + 6);
                b_put(&undo, spk, 22);
            } else {
                uint8_t seed4[8], hh[32];
                put_le32(seed4, from);
                put_le32(seed4 + 4, 0);
                bk_sha256(hh, seed4, 8);
                b_u8(&undo, 0x00); /* compressed P2PKH */
                b_put(&undo, hh, 20);
            }
        } else {
            b_compact(&undo, 0);
        }
        make_coinbase(&txs[0], h, 0, COINBASE_VALUE + (spend ? SPEND_FEE : 0), pkh);
        tx_hash(&txs[0], cb_txid[h % MATURITY]);
        memset(&r, 0, sizeof r);
        r.height = h;
        r.status = VALID_SCRIPTS;
        make_header(&r, prev, txs, n_txs, time);
        if (store_block(&g, blocks, &r, txs, n_txs, &undo, 1)) return 74;
        memcpy(active[h], r.hash, 32);
        if (sp.on && spend && h % 6 == 0) {
            uint8_t stxid[32];
            tx_hash(&txs[1], stxid);
            sp_expect_lines(h, r.hash, stxid);
        }
        if (io_failed) {
            fprintf(stderr, "gen-synth-datadir: write error\n");
            return 74;
        }
    }

    /* Headers only: two headers on top of tip-4 (no data, nTx 0). */
    {
        uint8_t prev[32];
        memcpy(prev, honly_parent, 32);
        for (uint32_t k = 0; k < 2; k++) {
            blockrec hb;
            side_block(&hb, prev, honly_at + k, 4, genesis_time + 600u * (honly_at + k) + 4, &txs[0]);
            hb.status = VALID_TREE;
            hb.n_tx = 0;
            if (index_put(&g, &hb)) return 74;
            memcpy(prev, hb.hash, 32);
        }
    }
    ofile_close(&g.blk);
    ofile_close(&g.rev);
    if (io_failed) {
        fprintf(stderr, "gen-synth-datadir: write error\n");
        return 74;
    }

    /* File infos and the last file. */
    for (size_t n = 0; n < g.n_info; n++) {
        const fileinfo *fi = &g.info[n];
        uint8_t key[5];
        buf v = {.n = 0};
        key[0] = 'f';
        put_le32(key + 1, (uint32_t)n);
        b_varint(&v, fi->blocks);
        b_varint(&v, fi->size);
        b_varint(&v, fi->undo_size);
        b_varint(&v, fi->height_first);
        b_varint(&v, fi->height_last);
        b_varint(&v, fi->time_first);
        b_varint(&v, fi->time_last);
        if (ldb_put(&g.index, key, 5, v.d, v.n)) return 74;
    }
    {
        uint8_t v[4];
        put_le32(v, (uint32_t)(g.n_info - 1));
        if (ldb_put(&g.index, (const uint8_t *)"l", 1, v, 4)) return 74;
    }
    if (ldb_close(&g.index, 1)) return 74;

    if (with_txindex) {
        /* CBlockLocator of the tip: int32 version, the hashes of heights
         * tip, tip-1, ... (10 of them), then steps doubling, then genesis. */
        buf v = {.n = 0};
        uint32_t hts[64];
        size_t nh = 0;
        int64_t step = 1;
        for (int64_t ht = tip; ht > 0; ht -= step) {
            hts[nh++] = (uint32_t)ht;
            if (nh >= 10) step *= 2;
        }
        hts[nh++] = 0;
        b_u32(&v, LOCATOR_VERSION);
        b_compact(&v, nh);
        for (size_t k = 0; k < nh; k++) b_put(&v, active[hts[k]], 32);
        if (ldb_put(&g.txindex, (const uint8_t *)"B", 1, v.d, v.n)) return 74;
        if (ldb_close(&g.txindex, 1)) return 74;
    }

    /* chainstate: the obfuscation key and the best block XORed with it. */
    {
        ldb cs;
        snprintf(path, sizeof path, "%s/chainstate", root);
        if (ldb_open(&cs, path, 4u << 20)) return 74;
        static const uint8_t okey_key[15] = {0x0e, 0x00, 'o', 'b', 'f', 'u', 's', 'c', 'a', 't', 'e', '_', 'k', 'e', 'y'};
        uint8_t okey[9], best[32];
        okey[0] = 8;
        for (int i = 1; i < 9; i++) okey[i] = (uint8_t)rng();
        for (int i = 0; i < 32; i++) best[i] = active[tip][i] ^ okey[1 + i % 8];
        if (ldb_put(&cs, okey_key, sizeof okey_key, okey, 9) || ldb_put(&cs, (const uint8_t *)"B", 1, best, 32) ||
            ldb_close(&cs, 0))
            return 74;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (!quiet) {
        char tiphex[65];
        for (int i = 0; i < 32; i++) snprintf(tiphex + 2 * i, 3, "%02x", active[tip][31 - i]);
        fprintf(stderr,
                "gen-synth-datadir: %s: %llu blocks stored in %zu blk files (%llu bytes, undo %llu bytes), "
                "tip %u %s, %llu stale siblings, %llu txs in the txindex, %.1f s\n",
                root, (unsigned long long)g.n_blocks_stored, g.n_info, (unsigned long long)g.blk_bytes,
                (unsigned long long)g.rev_bytes, tip, tiphex, (unsigned long long)n_stale,
                (unsigned long long)g.n_tx_indexed,
                (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    }
    if (sp.on) {
        if (fclose(sp.expect) != 0) {
            fprintf(stderr, "gen-synth-datadir: %s: write error\n", sp_expect);
            return 74;
        }
        if (!quiet)
            fprintf(stderr, "gen-synth-datadir: %llu silent-payment txs, %llu outputs\n",
                    (unsigned long long)sp.n_txs, (unsigned long long)sp.n_outputs);
        secp256k1_context_destroy(sp.ctx);
    }
    free(active);
    free(g.info);
    free(g.blk.buf);
    free(g.rev.buf);
    return 0;
}
