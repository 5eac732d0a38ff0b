/* blockkit sp scan end to end on a chain that really holds silent
 * payments: a regtest blocks directory (blk and rev files, undo checksums
 * as Core writes them) built here, whose transactions pay a known silent
 * payment address, unlabelled and with labels 1, 2 and 3, several outputs
 * per transaction, beside outputs to another recipient, unrelated outputs
 * and an ineligible transaction. The outputs are made the sender's way
 * (BIP352 "Creating outputs": the input private keys, a·input_hash·B_scan)
 * with libsecp256k1 directly; the scan finds them the receiver's way (the
 * tweak and b_scan). Checked: exactly those outputs are found, with their
 * k, label and priv_key_tweak ((b_spend + priv_key_tweak)·G is the
 * output's key), in block order; --labels 1 misses the label 2 and 3
 * ones; -j2 prints the same; `sp tweaks --txs` gives the sender's tweaks;
 * the key file errors (66, 65) and a bad --spend-pubkey (64). */
#include "check.h"
#include "blkdir_util.h"

#include <blockkit/blockkit.h>

#include <secp256k1.h>
#include <secp256k1_extrakeys.h>
#include <sys/wait.h>

static secp256k1_context *ctx;

static void tagged(uint8_t out[32], const char *tag, const uint8_t *m, size_t n)
{
    CHECK(secp256k1_tagged_sha256(ctx, out, (const unsigned char *)tag, strlen(tag), m, n));
}

static void seckey(uint8_t k[32], uint8_t seed)
{
    uint8_t s[1] = {seed};
    bk_sha256d(k, s, 1);
}

static void pub33(const uint8_t k[32], uint8_t out[33])
{
    secp256k1_pubkey p;
    CHECK(secp256k1_ec_pubkey_create(ctx, &p, k));
    size_t len = 33;
    CHECK(secp256k1_ec_pubkey_serialize(ctx, out, &len, &p, SECP256K1_EC_COMPRESSED));
}

static void put_cs(tbuf *b, uint64_t v)
{
    uint8_t t[9];
    tbuf_put(b, t, bk_compact_size_encode(t, v));
}

static void put_le32(tbuf *b, uint32_t v)
{
    uint8_t t[4];
    bk_store_le32(t, v);
    tbuf_put(b, t, 4);
}

/* ---- the receiver ---- */
static uint8_t b_scan[32], b_spend[32], B_scan[33], B_spend[33];

/* B_m (label m > 0) or B_spend (m == 0 meaning none here), and the label tweak */
static void recipient_key(int label, uint8_t out[33], uint8_t tweak[32])
{
    memset(tweak, 0, 32);
    secp256k1_pubkey p;
    CHECK(secp256k1_ec_pubkey_parse(ctx, &p, B_spend, 33));
    if (label > 0) {
        uint8_t m[36];
        memcpy(m, b_scan, 32);
        m[32] = m[33] = m[34] = 0;
        m[35] = (uint8_t)label;
        tagged(tweak, "BIP0352/Label", m, 36);
        CHECK(secp256k1_ec_pubkey_tweak_add(ctx, &p, tweak));
    }
    size_t len = 33;
    CHECK(secp256k1_ec_pubkey_serialize(ctx, out, &len, &p, SECP256K1_EC_COMPRESSED));
}

/* ---- transactions ---- */
enum { IN_P2WPKH, IN_P2TR, IN_P2PKH, IN_P2SH_P2WPKH };
typedef struct tin {
    int type;
    uint8_t seed;        /* private key */
    uint8_t txid[32];
    uint32_t vout;
} tin;

/* an output: to the receiver (label -1: not; 0 unlabelled; m), or to
 * another silent payment recipient (other), or plain */
enum { OUT_PLAIN_TR, OUT_P2WPKH, OUT_SP, OUT_OTHER_SP };
typedef struct tout {
    int kind;
    int label;
    int64_t value;
} tout;

typedef struct expect {
    char line[1300];
} expect;

static expect expected[64], expected_l1[64];
static size_t n_expected, n_expected_l1;
static char tweak_lines[16][200];
static size_t n_tweak_lines;

typedef struct built {
    tbuf tx;
    tbuf undo;       /* the CTxUndo */
    int eligible;
    uint8_t tweak[33];
    uint8_t txid[32];
    /* found outputs, in k order, filled by build_tx (text after the hash) */
    char found[8][900];
    int found_label[8];
    size_t n_found;
} built;

static void p2wpkh_of(const uint8_t pub[33], uint8_t spk[22])
{
    spk[0] = 0x00;
    spk[1] = 0x14;
    bk_hash160(spk + 2, pub, 33);
}

static void build_tx(built *bt, const tin *ins, size_t nin, const tout *outs, size_t nout)
{
    memset(bt, 0, sizeof *bt);
    /* the sender: a = sum of the input keys (a P2TR key negated when its
     * point has an odd y), A = a·G, the smallest outpoint */
    uint8_t a[32], smallest[36];
    int have_a = 0;
    uint8_t sigs[71];
    memset(sigs, 0x30, sizeof sigs);
    put_cs(&bt->undo, nin);
    for (size_t i = 0; i < nin; i++) {
        uint8_t k[32], pub[33], op[36];
        seckey(k, ins[i].seed);
        pub33(k, pub);
        if (ins[i].type == IN_P2TR && pub[0] == 0x03) {
            CHECK(secp256k1_ec_seckey_negate(ctx, k));
            pub[0] = 0x02;
        }
        if (!have_a) memcpy(a, k, 32);
        else CHECK(secp256k1_ec_seckey_tweak_add(ctx, a, k));
        have_a = 1;
        memcpy(op, ins[i].txid, 32);
        bk_store_le32(op + 32, ins[i].vout);
        if (i == 0 || memcmp(op, smallest, 36) < 0) memcpy(smallest, op, 36);
        /* the spent coin in the CTxUndo: height 0, value, compressed script */
        uint8_t v[10];
        tbuf_put(&bt->undo, v, bk_varint_encode(v, 0));
        tbuf_put(&bt->undo, v, bk_varint_encode(v, bk_amount_compress(100000)));
        uint8_t spk[40];
        size_t spk_len;
        if (ins[i].type == IN_P2WPKH) {
            p2wpkh_of(pub, spk);
            spk_len = 22;
        } else if (ins[i].type == IN_P2TR) {
            spk[0] = 0x51;
            spk[1] = 0x20;
            memcpy(spk + 2, pub + 1, 32);
            spk_len = 34;
        } else if (ins[i].type == IN_P2PKH) {
            uint8_t z = 0;
            tbuf_put(&bt->undo, &z, 1); /* nSize 0: P2PKH */
            uint8_t h[20];
            bk_hash160(h, pub, 33);
            tbuf_put(&bt->undo, h, 20);
            spk_len = 0;
        } else {
            /* P2SH of the P2WPKH program */
            uint8_t prog[22], one = 1, h[20];
            p2wpkh_of(pub, prog);
            bk_hash160(h, prog, 22);
            tbuf_put(&bt->undo, &one, 1); /* nSize 1: P2SH */
            tbuf_put(&bt->undo, h, 20);
            spk_len = 0;
        }
        if (spk_len) {
            tbuf_put(&bt->undo, v, bk_varint_encode(v, spk_len + 6));
            tbuf_put(&bt->undo, spk, spk_len);
        }
    }
    uint8_t A[33], input_hash[32], msg[69];
    pub33(a, A);
    memcpy(msg, smallest, 36);
    memcpy(msg + 36, A, 33);
    tagged(input_hash, "BIP0352/Inputs", msg, 69);
    /* the tweak a light client gets: input_hash·A */
    secp256k1_pubkey T;
    CHECK(secp256k1_ec_pubkey_parse(ctx, &T, A, 33));
    CHECK(secp256k1_ec_pubkey_tweak_mul(ctx, &T, input_hash));
    size_t len = 33;
    CHECK(secp256k1_ec_pubkey_serialize(ctx, bt->tweak, &len, &T, SECP256K1_EC_COMPRESSED));
    /* shared secrets: (input_hash·a)·B_scan of each recipient */
    uint8_t ah[32];
    memcpy(ah, a, 32);
    CHECK(secp256k1_ec_seckey_tweak_mul(ctx, ah, input_hash));
    uint8_t other_scan[32], other_B_scan[33], other_spend[33], ksec[32];
    seckey(other_scan, 200);
    pub33(other_scan, other_B_scan);
    seckey(ksec, 201);
    pub33(ksec, other_spend);
    uint8_t ecdh_me[33], ecdh_other[33];
    for (int r = 0; r < 2; r++) {
        secp256k1_pubkey S;
        CHECK(secp256k1_ec_pubkey_parse(ctx, &S, r ? other_B_scan : B_scan, 33));
        CHECK(secp256k1_ec_pubkey_tweak_mul(ctx, &S, ah));
        len = 33;
        CHECK(secp256k1_ec_pubkey_serialize(ctx, r ? ecdh_other : ecdh_me, &len, &S, SECP256K1_EC_COMPRESSED));
    }
    /* the transaction */
    int taproot = 0;
    for (size_t i = 0; i < nout; i++) taproot |= outs[i].kind != OUT_P2WPKH;
    bt->eligible = taproot;
    tbuf *t = &bt->tx;
    put_le32(t, 2);
    int segwit = 0;
    for (size_t i = 0; i < nin; i++) segwit |= ins[i].type != IN_P2PKH;
    uint8_t mf[2] = {0, 1};
    if (segwit) tbuf_put(t, mf, 2);
    put_cs(t, nin);
    for (size_t i = 0; i < nin; i++) {
        tbuf_put(t, ins[i].txid, 32);
        put_le32(t, ins[i].vout);
        uint8_t k[32], pub[33];
        seckey(k, ins[i].seed);
        pub33(k, pub);
        if (ins[i].type == IN_P2PKH) {
            put_cs(t, 1 + 71 + 1 + 33);
            uint8_t l = 71;
            tbuf_put(t, &l, 1);
            tbuf_put(t, sigs, 71);
            l = 33;
            tbuf_put(t, &l, 1);
            tbuf_put(t, pub, 33);
        } else if (ins[i].type == IN_P2SH_P2WPKH) {
            uint8_t prog[22], l = 22;
            p2wpkh_of(pub, prog);
            put_cs(t, 23);
            tbuf_put(t, &l, 1);
            tbuf_put(t, prog, 22);
        } else {
            put_cs(t, 0);
        }
        put_le32(t, 0xfffffffd);
    }
    put_cs(t, nout);
    uint32_t k_me = 0, k_other = 0;
    for (size_t i = 0; i < nout; i++) {
        uint8_t v8[8];
        bk_store_le64(v8, (uint64_t)outs[i].value);
        tbuf_put(t, v8, 8);
        uint8_t spk[34] = {0x51, 0x20};
        if (outs[i].kind == OUT_P2WPKH) {
            uint8_t k[32], pub[33];
            seckey(k, (uint8_t)(100 + i));
            pub33(k, pub);
            p2wpkh_of(pub, spk);
            put_cs(t, 22);
            tbuf_put(t, spk, 22);
            continue;
        }
        if (outs[i].kind == OUT_PLAIN_TR) {
            uint8_t k[32], pub[33];
            seckey(k, (uint8_t)(150 + i));
            pub33(k, pub);
            memcpy(spk + 2, pub + 1, 32);
        } else {
            int me = outs[i].kind == OUT_SP;
            uint8_t Bm[33], ltweak[32], m[37], t_k[32];
            if (me) recipient_key(outs[i].label, Bm, ltweak);
            else memcpy(Bm, other_spend, 33);
            uint32_t k = me ? k_me++ : k_other++;
            memcpy(m, me ? ecdh_me : ecdh_other, 33);
            m[33] = (uint8_t)(k >> 24);
            m[34] = (uint8_t)(k >> 16);
            m[35] = (uint8_t)(k >> 8);
            m[36] = (uint8_t)k;
            tagged(t_k, "BIP0352/SharedSecret", m, 37);
            secp256k1_pubkey P;
            CHECK(secp256k1_ec_pubkey_parse(ctx, &P, Bm, 33));
            CHECK(secp256k1_ec_pubkey_tweak_add(ctx, &P, t_k));
            uint8_t c[33];
            len = 33;
            CHECK(secp256k1_ec_pubkey_serialize(ctx, c, &len, &P, SECP256K1_EC_COMPRESSED));
            memcpy(spk + 2, c + 1, 32);
            if (me) {
                /* what the receiver must print: priv_key_tweak = t_k (+ label) */
                uint8_t pkt[32];
                memcpy(pkt, t_k, 32);
                if (outs[i].label > 0) CHECK(secp256k1_ec_seckey_tweak_add(ctx, pkt, ltweak));
                char x[65], pk[65], tw[67];
                check_hex(x, spk + 2, 32);
                check_hex(pk, pkt, 32);
                check_hex(tw, bt->tweak, 33);
                char lab[16];
                if (outs[i].label > 0) snprintf(lab, sizeof lab, "%d", outs[i].label);
                else snprintf(lab, sizeof lab, "null");
                snprintf(bt->found[bt->n_found], sizeof bt->found[0],
                         "\"vout\":%zu,\"pubkey\":\"%s\",\"value\":%lld,\"tweak\":\"%s\",\"k\":%u,"
                         "\"priv_key_tweak\":\"%s\",\"label\":%s}",
                         i, x, (long long)outs[i].value, tw, k, pk, lab);
                bt->found_label[bt->n_found++] = outs[i].label;
            }
        }
        put_cs(t, 34);
        tbuf_put(t, spk, 34);
    }
    /* witnesses */
    for (size_t i = 0; i < nin && segwit; i++) {
        uint8_t k[32], pub[33];
        seckey(k, ins[i].seed);
        pub33(k, pub);
        if (ins[i].type == IN_P2WPKH || ins[i].type == IN_P2SH_P2WPKH) {
            put_cs(t, 2);
            put_cs(t, 71);
            tbuf_put(t, sigs, 71);
            put_cs(t, 33);
            tbuf_put(t, pub, 33);
        } else if (ins[i].type == IN_P2TR) {
            put_cs(t, 1);
            put_cs(t, 64);
            tbuf_put(t, sigs, 64);
        } else {
            put_cs(t, 0);
        }
    }
    put_le32(t, 0);
    bk_tx view;
    CHECK_EQ_INT(bk_tx_parse(t->p, t->n, &view, NULL, NULL), BK_OK);
    bk_tx_txid(&view, bt->txid);
}

static void coinbase(tbuf *t, int height)
{
    put_le32(t, 2);
    put_cs(t, 1);
    uint8_t z[32] = {0};
    tbuf_put(t, z, 32);
    put_le32(t, 0xffffffff);
    uint8_t ss[2] = {(uint8_t)(0x50 + height), 0x00};
    put_cs(t, 2);
    tbuf_put(t, ss, 2);
    put_le32(t, 0xffffffff);
    put_cs(t, 1);
    uint8_t v8[8];
    bk_store_le64(v8, 5000000000ULL);
    tbuf_put(t, v8, 8);
    uint8_t spk[22] = {0x00, 0x14};
    put_cs(t, 22);
    tbuf_put(t, spk, 22);
    put_le32(t, 0);
}

static const uint8_t REGTEST_MAGIC[4] = {0xfa, 0xbf, 0xb5, 0xda};

/* One block of built txs after parent: its record in blk, its undo in rev. */
static void add_block(tbuf *blk, tbuf *rev, uint8_t parent[32], int height, built *txs, size_t n, uint8_t hash_out[32])
{
    tbuf body = {0};
    coinbase(&body, height);
    size_t cb_len = body.n;
    for (size_t i = 0; i < n; i++) tbuf_put(&body, txs[i].tx.p, txs[i].tx.n);
    /* merkle root over the txids */
    uint8_t *leaves = malloc(32 * (n + 2));
    bk_tx cbv;
    CHECK_EQ_INT(bk_tx_parse(body.p, cb_len, &cbv, NULL, NULL), BK_OK);
    bk_tx_txid(&cbv, leaves);
    for (size_t i = 0; i < n; i++) memcpy(leaves + 32 * (i + 1), txs[i].txid, 32);
    uint8_t root[32];
    CHECK_EQ_INT(bk_merkle_root(leaves, n + 1, n + 2, root, NULL), BK_OK);
    free(leaves);
    tbuf block = {0};
    put_le32(&block, 0x20000000);
    tbuf_put(&block, parent, 32);
    tbuf_put(&block, root, 32);
    put_le32(&block, 1296688602u + 600u * (uint32_t)height);
    put_le32(&block, 0x207fffff);
    put_le32(&block, 0);
    put_cs(&block, n + 1);
    tbuf_put(&block, body.p, body.n);
    bk_header_hash(block.p, hash_out);
    tbuf_record(blk, REGTEST_MAGIC, block.p, block.n);
    /* CBlockUndo and Core's checksum SHA256d(parent hash || undo) */
    tbuf undo = {0};
    put_cs(&undo, n);
    for (size_t i = 0; i < n; i++) tbuf_put(&undo, txs[i].undo.p, txs[i].undo.n);
    tbuf_record(rev, REGTEST_MAGIC, undo.p, undo.n);
    tbuf ck = {0};
    tbuf_put(&ck, parent, 32);
    tbuf_put(&ck, undo.p, undo.n);
    uint8_t sum[32];
    bk_sha256d(sum, ck.p, ck.n);
    tbuf_put(rev, sum, 32);
    /* the expected lines */
    char hh[65];
    bk_hash_to_hex(hh, hash_out);
    for (size_t i = 0; i < n; i++) {
        char tid[65];
        bk_hash_to_hex(tid, txs[i].txid);
        for (size_t f = 0; f < txs[i].n_found; f++) {
            char head[300];
            snprintf(head, sizeof head, "{\"height\":%d,\"hash\":\"%s\",\"txid\":\"%s\",", height, hh, tid);
            snprintf(expected[n_expected++].line, sizeof expected[0].line, "%s%s", head, txs[i].found[f]);
            /* --labels 1 finds the k loop's prefix before the first label 2/3 */
            int stop = 0;
            for (size_t g = 0; g <= f; g++) stop |= txs[i].found_label[g] > 1;
            if (!stop) snprintf(expected_l1[n_expected_l1++].line, sizeof expected[0].line, "%s%s", head, txs[i].found[f]);
        }
        if (txs[i].eligible) {
            char tw[67];
            check_hex(tw, txs[i].tweak, 33);
            snprintf(tweak_lines[n_tweak_lines++], sizeof tweak_lines[0], "\"txid\":\"%s\",\"tweak\":\"%s\"", tid, tw);
        }
    }
    free(body.p);
    free(block.p);
    free(undo.p);
    free(ck.p);
}

static char dir[4096], keyfile[4200], spend_hex[67];

static char *run(const char *args, int *status)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' %s 2>/dev/null", BK_CLI_PATH, args);
    FILE *f = popen(cmd, "r");
    tbuf b = {0};
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) tbuf_put(&b, chunk, n);
    tbuf_put(&b, "", 1);
    int st = pclose(f);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return (char *)b.p;
}

static void check_lines(const char *out, const expect *want, size_t n)
{
    size_t i = 0;
    const char *p = out;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char line[1300];
        snprintf(line, sizeof line, "%.*s", (int)len, p);
        if (i < n) CHECK_EQ_STR(line, want[i].line);
        i++;
        p += len + (nl ? 1 : 0);
    }
    CHECK_EQ_INT(i, n);
}

static void build_chain(void)
{
    ctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
    seckey(b_scan, 1);
    seckey(b_spend, 2);
    pub33(b_scan, B_scan);
    pub33(b_spend, B_spend);
    check_hex(spend_hex, B_spend, 33);
    built b1[4], b2[1];
    tin in1[2] = {{IN_P2WPKH, 10, {0x11}, 3}, {IN_P2TR, 11, {0x22}, 0}};
    tout out1[5] = {{OUT_PLAIN_TR, -1, 1000}, {OUT_SP, 0, 21000}, {OUT_P2WPKH, -1, 5000},
                    {OUT_SP, 1, 22000}, {OUT_SP, 0, 23000}};
    build_tx(&b1[0], in1, 2, out1, 5);
    tin in2[1] = {{IN_P2PKH, 12, {0x33}, 1}};
    tout out2[3] = {{OUT_SP, 3, 31000}, {OUT_OTHER_SP, -1, 32000}, {OUT_SP, 3, 33000}};
    build_tx(&b1[1], in2, 1, out2, 3);
    tin in3[1] = {{IN_P2WPKH, 13, {0x44}, 0}};
    tout out3[2] = {{OUT_OTHER_SP, -1, 41000}, {OUT_OTHER_SP, -1, 42000}};
    build_tx(&b1[2], in3, 1, out3, 2);
    tin in4[1] = {{IN_P2WPKH, 14, {0x55}, 0}};
    tout out4[1] = {{OUT_P2WPKH, -1, 51000}};
    build_tx(&b1[3], in4, 1, out4, 1);
    tin in5[2] = {{IN_P2SH_P2WPKH, 15, {0x66}, 2}, {IN_P2TR, 16, {0x06}, 9}};
    tout out5[3] = {{OUT_SP, 0, 61000}, {OUT_SP, 2, 62000}, {OUT_SP, 0, 63000}};
    build_tx(&b2[0], in5, 2, out5, 3);
    tbuf blk = {0}, rev = {0};
    uint8_t genesis[32], h1[32], h2[32];
    CHECK_EQ_INT(bk_hex_decode_rev(genesis, "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206", 32, NULL),
                 BK_OK);
    add_block(&blk, &rev, genesis, 1, b1, 4, h1);
    add_block(&blk, &rev, h1, 2, b2, 1, h2);
    make_tmpdir(dir, sizeof dir);
    write_file(dir, "blk00000.dat", blk.p, blk.n);
    write_file(dir, "rev00000.dat", rev.p, rev.n);
    char hex[66];
    check_hex(hex, b_scan, 32);
    hex[64] = '\n';
    hex[65] = 0;
    snprintf(keyfile, sizeof keyfile, "%s/scan.key", dir);
    write_file(dir, "scan.key", (const uint8_t *)hex, 65);
    for (size_t i = 0; i < 4; i++) {
        free(b1[i].tx.p);
        free(b1[i].undo.p);
    }
    free(b2[0].tx.p);
    free(b2[0].undo.p);
    free(blk.p);
    free(rev.p);
    secp256k1_context_destroy(ctx);
}

static void scan_finds_exactly_the_payments(void)
{
    /* 3 + 2 + 3 outputs to the receiver */
    CHECK_EQ_INT(n_expected, 8);
    CHECK_EQ_INT(n_expected_l1, 4); /* the k loop stops at the first label it does not know */
    char args[9000];
    int st;
    for (int j = 1; j <= 2; j++) {
        snprintf(args, sizeof args,
                 "sp scan --blocksdir '%s' --chain regtest --scan-key-file '%s' --spend-pubkey %s --labels 3 -j%d", dir,
                 keyfile, spend_hex, j);
        char *out = run(args, &st);
        CHECK_EQ_INT(st, 0);
        check_lines(out, expected, n_expected);
        free(out);
    }
    /* the key from standard input */
    snprintf(args, sizeof args,
             "sp scan --blocksdir '%s' --chain regtest --scan-key-file - --spend-pubkey %s --labels 1 < '%s'", dir,
             spend_hex, keyfile);
    char *out = run(args, &st);
    CHECK_EQ_INT(st, 0);
    check_lines(out, expected_l1, n_expected_l1);
    free(out);
}

static void found_keys_are_spendable(void)
{
    /* (b_spend + priv_key_tweak)·G has the output's x-only key */
    ctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
    for (size_t i = 0; i < n_expected; i++) {
        const char *p = strstr(expected[i].line, "\"priv_key_tweak\":\"");
        const char *x = strstr(expected[i].line, "\"pubkey\":\"");
        CHECK(p && x);
        uint8_t t[32], want[32], k[32], got[33];
        CHECK_EQ_INT(bk_hex_decode(t, p + 18, 32, NULL), BK_OK);
        CHECK_EQ_INT(bk_hex_decode(want, x + 10, 32, NULL), BK_OK);
        memcpy(k, b_spend, 32);
        CHECK(secp256k1_ec_seckey_tweak_add(ctx, k, t));
        pub33(k, got);
        CHECK_MEM(got + 1, want, 32);
    }
    secp256k1_context_destroy(ctx);
}

static void tweaks_are_the_senders(void)
{
    char args[9000];
    int st;
    snprintf(args, sizeof args, "sp tweaks --blocksdir '%s' --chain regtest --txs", dir);
    char *out = run(args, &st);
    CHECK_EQ_INT(st, 0);
    /* four eligible transactions (one pays no taproot output) */
    CHECK_EQ_INT(n_tweak_lines, 4);
    size_t lines = 0;
    for (const char *p = out; (p = strchr(p, '\n')); p++) lines++;
    CHECK_EQ_INT(lines, 4);
    for (size_t i = 0; i < n_tweak_lines; i++) CHECK(strstr(out, tweak_lines[i]) != NULL);
    free(out);
}

static void key_errors(void)
{
    char args[9000], path[4200];
    int st;
    struct {
        const char *name, *content;
        int status;
    } cases[] = {
        {"empty.key", "", 65},
        {"short.key", "0f694e06\n", 65},
        {"nothex.key", "0f694e068028a717f8af6b9411f9a133dd3565258714cc226594b34db90c1f2x\n", 65},
        {"zero.key", "0000000000000000000000000000000000000000000000000000000000000000\n", 65},
        {"order.key", "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141\n", 65},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        check_case = cases[i].name;
        write_file(dir, cases[i].name, (const uint8_t *)cases[i].content, strlen(cases[i].content));
        snprintf(path, sizeof path, "%s/%s", dir, cases[i].name);
        snprintf(args, sizeof args, "sp scan --blocksdir '%s' --chain regtest --scan-key-file '%s' --spend-pubkey %s",
                 dir, path, spend_hex);
        free(run(args, &st));
        CHECK_EQ_INT(st, cases[i].status);
    }
    check_case = "key_errors";
    snprintf(args, sizeof args, "sp scan --blocksdir '%s' --chain regtest --scan-key-file '%s/none' --spend-pubkey %s",
             dir, dir, spend_hex);
    free(run(args, &st));
    CHECK_EQ_INT(st, 66);
    /* x = 5: not on the curve */
    snprintf(args, sizeof args,
             "sp scan --blocksdir '%s' --chain regtest --scan-key-file '%s' --spend-pubkey "
             "020000000000000000000000000000000000000000000000000000000000000005",
             dir, keyfile);
    free(run(args, &st));
    CHECK_EQ_INT(st, 64);
    /* the key never from argv: no such option */
    snprintf(args, sizeof args, "sp scan --blocksdir '%s' --chain regtest --scan-key 00 --spend-pubkey %s", dir,
             spend_hex);
    free(run(args, &st));
    CHECK_EQ_INT(st, 64);
}

/* bk_sp_scanner_label: each label's tweak and B_m equal the ones computed
 * here with libsecp256k1 directly (BIP352 "Labels"); label 0, the change
 * label, is a label like any other. */
static void label_keys_are_the_bips(void)
{
    bk_sp_scanner *s = NULL;
    CHECK_EQ_INT(bk_sp_scanner_new(b_scan, B_spend, NULL, 0, NULL, &s, NULL), BK_OK);
    const uint32_t ms[] = {1, 2, 3, 200};
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
        uint8_t want_key[33], want_tweak[32], key[33], tweak[32];
        recipient_key((int)ms[i], want_key, want_tweak);
        CHECK_EQ_INT(bk_sp_scanner_label(s, ms[i], tweak, key, NULL), BK_OK);
        CHECK(memcmp(tweak, want_tweak, 32) == 0);
        CHECK(memcmp(key, want_key, 33) == 0);
    }
    uint8_t m0[36] = {0}, t0[32], tweak[32], key[33];
    memcpy(m0, b_scan, 32);
    tagged(t0, "BIP0352/Label", m0, 36);
    CHECK_EQ_INT(bk_sp_scanner_label(s, 0, tweak, key, NULL), BK_OK);
    CHECK(memcmp(tweak, t0, 32) == 0);
    CHECK(memcmp(key, B_spend, 33) != 0);
    bk_sp_scanner_free(s);
}

int main(void)
{
    build_chain();
    RUN(scan_finds_exactly_the_payments);
    RUN(found_keys_are_spendable);
    RUN(tweaks_are_the_senders);
    RUN(key_errors);
    RUN(label_keys_are_the_bips);
    remove_tree(dir);
    return check_finish();
}
