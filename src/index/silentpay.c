/* Silent payments (BIP352): the sender-independent rules a receiver or a
 * light client's server applies to a transaction, each in one place, named
 * after the BIP's sections. The EC arithmetic is libsecp256k1's. */
#include "silentpay_internal.h"

#include <blockkit/hex.h>
#include <blockkit/json.h>

#include <secp256k1_extrakeys.h>

#include <string.h>

/* ---- scratch ------------------------------------------------------------ */

void bk_sp_scratch_init(bk_sp_scratch *s, const bk_allocator *alloc)
{
    s->alloc = alloc ? alloc : bk_default_allocator();
    s->buf = NULL;
    s->cap = 0;
}

void bk_sp_scratch_free(bk_sp_scratch *s)
{
    if (s->buf) bk_free(s->alloc, s->buf, s->cap);
    s->buf = NULL;
    s->cap = 0;
}

int bk_sp_scratch_need(bk_sp_scratch *s, size_t n)
{
    if (!s->alloc) s->alloc = bk_default_allocator();
    return bk_grow(s->alloc, &s->buf, &s->cap, n);
}

void bk_sp_tagged(uint8_t out[32], const char *tag, const uint8_t *msg, size_t len)
{
    /* BIP352 "Specification": hash_tag(x) = SHA256(SHA256(tag) ||
     * SHA256(tag) || x), BIP340's tagged hash, tags "BIP0352/..." */
    char full[32] = "BIP0352/";
    size_t tl = strlen(tag);
    memcpy(full + 8, tag, tl);
    int ok = secp256k1_tagged_sha256(secp256k1_context_static, out, (const unsigned char *)full, 8 + tl, msg, len);
    (void)ok; /* never fails: the arguments are not NULL */
}

/* ---- script shapes ---------------------------------------------------- */

int bk_sp_is_taproot(const uint8_t *s, size_t n)
{
    /* BIP341: OP_1 <32 bytes> */
    return n == 34 && s[0] == 0x51 && s[1] == 0x20;
}

static int is_p2wpkh(const uint8_t *s, size_t n) { return n == 22 && s[0] == 0x00 && s[1] == 0x14; }
static int is_p2sh(const uint8_t *s, size_t n) { return n == 23 && s[0] == 0xa9 && s[1] == 0x14 && s[22] == 0x87; }
static int is_p2pkh(const uint8_t *s, size_t n)
{
    return n == 25 && s[0] == 0x76 && s[1] == 0xa9 && s[2] == 0x14 && s[23] == 0x88 && s[24] == 0xac;
}

/* Core: CScript::IsWitnessProgram - 4..42 bytes, OP_0 or OP_1..OP_16, one
 * push of 2..40 bytes. Returns the version, or -1. */
static int witness_version(const uint8_t *s, size_t n)
{
    if (n < 4 || n > 42) return -1;
    if (s[0] != 0x00 && (s[0] < 0x51 || s[0] > 0x60)) return -1;
    if ((size_t)s[1] + 2 != n) return -1;
    return s[0] == 0 ? 0 : s[0] - 0x50;
}

/* BIP341's NUMS point H: lift_x(SHA256(G uncompressed)), the internal key
 * of a script-path-only output. */
static const uint8_t NUMS_H[32] = {
    0x50, 0x92, 0x9b, 0x74, 0xc1, 0xa0, 0x49, 0x54, 0xb7, 0x8b, 0x4b, 0x60, 0x35, 0xe9, 0x7a, 0x5e,
    0x07, 0x8a, 0x5a, 0x0f, 0x28, 0xec, 0x96, 0xd5, 0x47, 0xbf, 0xee, 0x9a, 0xce, 0x80, 0x3a, 0xc0,
};

/* A compressed key (33 bytes, 02/03, on the curve). */
static int parse_compressed(const uint8_t *p, size_t n, secp256k1_pubkey *pk)
{
    if (n != 33 || (p[0] != 0x02 && p[0] != 0x03)) return 0;
    return secp256k1_ec_pubkey_parse(secp256k1_context_static, pk, p, 33);
}

/* ---- "Inputs For Shared Secret Derivation" ----------------------------- */

bk_sp_key_kind bk_sp_input_point(const bk_sp_input *in, secp256k1_pubkey *pk)
{
    const uint8_t *spk = in->prevout_script;
    size_t n = in->prevout_script_len;
    if (!spk) return BK_SP_KEY_NONE;

    /* P2PKH: the key may be anywhere in a malleated scriptSig; a 33-byte
     * window hashing to the spent HASH160 that is a compressed key on the
     * curve, searched from the end (where a standard scriptSig has it).
     * Only windows starting 02/03 can be a compressed key, so only those
     * are hashed (the BIP's reference hashes every window first: the same
     * answer). */
    if (is_p2pkh(spk, n)) {
        const uint8_t *ss = in->script_sig;
        for (size_t i = in->script_sig_len; i >= 33 && ss; i--) {
            const uint8_t *w = ss + i - 33;
            if (w[0] != 0x02 && w[0] != 0x03) continue;
            uint8_t h[20];
            bk_hash160(h, w, 33);
            if (memcmp(h, spk + 3, 20) == 0 && parse_compressed(w, 33, pk)) return BK_SP_KEY_P2PKH;
        }
        return BK_SP_KEY_NONE;
    }

    /* the witness stack's last two items (the annex rule needs them) */
    const uint8_t *last = NULL, *prev = NULL;
    uint32_t last_len = 0, prev_len = 0;
    uint32_t items = in->witness ? in->witness_items : 0;
    if (items) {
        bk_witness_iter it;
        bk_txin tin;
        memset(&tin, 0, sizeof tin);
        tin.witness = in->witness;
        tin.witness_items = items;
        bk_witness_iter_init(&it, &tin);
        const uint8_t *item;
        uint32_t len;
        while (bk_witness_next(&it, &item, &len)) {
            prev = last;
            prev_len = last_len;
            last = item;
            last_len = len;
        }
    }

    /* P2SH-P2WPKH: the scriptSig past its first byte is a P2WPKH program
     * (the reference's redeem_script = scriptSig[1:]); the key is the last
     * witness item */
    if (is_p2sh(spk, n)) {
        if (in->script_sig && in->script_sig_len >= 1 && is_p2wpkh(in->script_sig + 1, in->script_sig_len - 1) &&
            items >= 1 && parse_compressed(last, last_len, pk))
            return BK_SP_KEY_P2SH_P2WPKH;
        return BK_SP_KEY_NONE;
    }

    /* P2WPKH: the last witness item, compressed */
    if (is_p2wpkh(spk, n)) {
        if (items >= 1 && parse_compressed(last, last_len, pk)) return BK_SP_KEY_P2WPKH;
        return BK_SP_KEY_NONE;
    }

    /* P2TR: the key is the output's own (x-only, even y); a script-path
     * spend whose internal key is NUMS H is skipped (its owner has no key
     * path). The annex is removed first: with two or more items, a last
     * item starting 0x50 (BIP341). */
    if (bk_sp_is_taproot(spk, n)) {
        if (items == 0) return BK_SP_KEY_NONE;
        uint32_t left = items;
        const uint8_t *ctl = last;
        uint32_t ctl_len = last_len;
        if (left > 1 && last_len >= 1 && last[0] == 0x50) {
            left--;
            ctl = prev;
            ctl_len = prev_len;
        }
        if (left > 1) {
            /* script path: control block = <control byte> <internal key> <hashes> */
            if (ctl_len >= 33 && memcmp(ctl + 1, NUMS_H, 32) == 0) return BK_SP_KEY_NONE;
        }
        uint8_t c[33];
        c[0] = 0x02;
        memcpy(c + 1, spk + 2, 32);
        if (parse_compressed(c, 33, pk)) return BK_SP_KEY_P2TR;
        return BK_SP_KEY_NONE;
    }

    /* "Scanning silent payment eligible transactions": no input may spend
     * a witness program of a version above 1 */
    if (witness_version(spk, n) > 1) return BK_SP_KEY_WITNESS_V2;
    return BK_SP_KEY_NONE;
}

bk_sp_key_kind bk_sp_input_key(const bk_sp_input *in, uint8_t key_out[33])
{
    secp256k1_pubkey pk;
    bk_sp_key_kind k = bk_sp_input_point(in, &pk);
    if (k == BK_SP_KEY_NONE || k == BK_SP_KEY_WITNESS_V2) return k;
    size_t len = 33;
    int ok = secp256k1_ec_pubkey_serialize(secp256k1_context_static, key_out, &len, &pk, SECP256K1_EC_COMPRESSED);
    (void)ok;
    return k;
}

const char *bk_sp_verdict_name(bk_sp_verdict v)
{
    switch (v) {
    case BK_SP_ELIGIBLE: return "eligible";
    case BK_SP_NO_TAPROOT_OUTPUT: return "no-taproot-output";
    case BK_SP_NO_INPUT_KEY: return "no-input-key";
    case BK_SP_WITNESS_V2: return "witness-v2-input";
    case BK_SP_INFINITY: return "keys-sum-to-infinity";
    case BK_SP_BAD_HASH: return "bad-input-hash";
    }
    return "?";
}

/* ---- the sum and the tweak ("Receiving", "Shared secret") ---------------
 * The keys are summed in one secp256k1_ec_pubkey_combine call, so an
 * intermediate sum at infinity does not matter, only the final one (BIP
 * vector "Input keys intermediate sum is zero but final sum is non-zero"). */

typedef struct sum_state {
    secp256k1_pubkey *keys;
    const secp256k1_pubkey **ptrs;
    size_t n;
    uint8_t smallest[36];
    int have_outpoint;
    int v2;
} sum_state;

static int sum_begin(bk_sp_scratch *s, size_t n_in, sum_state *st)
{
    size_t each = sizeof(secp256k1_pubkey) + sizeof(secp256k1_pubkey *);
    if (n_in > SIZE_MAX / each) return -1;
    if (bk_sp_scratch_need(s, n_in * each + 16) != 0) return -1;
    st->keys = (secp256k1_pubkey *)(void *)s->buf;
    st->ptrs = (const secp256k1_pubkey **)(void *)(s->buf + n_in * sizeof(secp256k1_pubkey));
    st->n = 0;
    st->have_outpoint = 0;
    st->v2 = 0;
    return 0;
}

static void sum_add(sum_state *st, const bk_sp_input *in)
{
    /* outpoint_L: the smallest outpoint, serialized (txid || vout LE), of
     * every input */
    uint8_t op[36];
    memcpy(op, in->prev_txid, 32);
    bk_store_le32(op + 32, in->prev_index);
    if (!st->have_outpoint || memcmp(op, st->smallest, 36) < 0) {
        memcpy(st->smallest, op, 36);
        st->have_outpoint = 1;
    }
    bk_sp_key_kind k = bk_sp_input_point(in, &st->keys[st->n]);
    if (k == BK_SP_KEY_WITNESS_V2) st->v2 = 1;
    else if (k != BK_SP_KEY_NONE) st->n++;
}

static bk_sp_verdict sum_end(sum_state *st, bk_sp_tweak *out)
{
    if (st->v2) return BK_SP_WITNESS_V2;
    if (st->n == 0) return BK_SP_NO_INPUT_KEY;
    for (size_t i = 0; i < st->n; i++) st->ptrs[i] = &st->keys[i];
    secp256k1_pubkey A;
    if (!secp256k1_ec_pubkey_combine(secp256k1_context_static, &A, st->ptrs, st->n)) return BK_SP_INFINITY;
    size_t len = 33;
    (void)secp256k1_ec_pubkey_serialize(secp256k1_context_static, out->input_pubkey_sum, &len, &A,
                                        SECP256K1_EC_COMPRESSED);
    /* input_hash = hash_BIP0352/Inputs(outpoint_L || A) */
    uint8_t msg[36 + 33];
    memcpy(msg, st->smallest, 36);
    memcpy(msg + 36, out->input_pubkey_sum, 33);
    bk_sp_tagged(out->input_hash, "Inputs", msg, sizeof msg);
    /* tweak = input_hash·A (public data: the variable-time multiplication) */
    if (!secp256k1_ec_pubkey_tweak_mul(secp256k1_context_static, &A, out->input_hash)) return BK_SP_BAD_HASH;
    len = 33;
    (void)secp256k1_ec_pubkey_serialize(secp256k1_context_static, out->tweak, &len, &A, SECP256K1_EC_COMPRESSED);
    out->n_keys = (uint32_t)st->n;
    return BK_SP_ELIGIBLE;
}

bk_status bk_sp_inputs_tweak(bk_sp_scratch *s, const bk_sp_input *ins, size_t n, bk_sp_verdict *verdict_out,
                             bk_sp_tweak *out, bk_error *err)
{
    if (!s || !verdict_out || !out || (n && !ins)) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    sum_state st;
    if (sum_begin(s, n, &st) != 0) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    for (size_t i = 0; i < n; i++) sum_add(&st, &ins[i]);
    *verdict_out = sum_end(&st, out);
    return BK_OK;
}

bk_status bk_sp_tx_tweak(bk_sp_scratch *s, const bk_tx *tx, bk_undo_iter *undo, uint32_t n_coins,
                         bk_sp_verdict *verdict_out, bk_sp_tweak *out, bk_error *err)
{
    if (!s || !tx || !verdict_out || !out) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    if (!undo) {
        *verdict_out = BK_SP_NO_INPUT_KEY; /* a coinbase spends nothing */
        return BK_OK;
    }
    if (n_coins != tx->n_in)
        return bk_error_set(err, BK_ERR_MISMATCH, 0, "undo data has %u coins for %u inputs", n_coins, tx->n_in);
    /* "Scanning silent payment eligible transactions": at least one
     * taproot output (the cheap test first: most transactions end here) */
    int taproot = 0;
    bk_txout_iter oi;
    bk_txout o;
    bk_txout_iter_init(&oi, tx);
    while (!taproot && bk_txout_next(&oi, &o)) taproot = bk_sp_is_taproot(o.script, o.script_len);
    bk_coin coin;
    if (!taproot) {
        for (uint32_t i = 0; i < n_coins; i++) (void)bk_undo_next_coin(undo, &coin);
        *verdict_out = BK_SP_NO_TAPROOT_OUTPUT;
        return BK_OK;
    }
    sum_state st;
    if (sum_begin(s, tx->n_in, &st) != 0) {
        for (uint32_t i = 0; i < n_coins; i++) (void)bk_undo_next_coin(undo, &coin);
        return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    }
    bk_txin_iter ii;
    bk_txin tin;
    bk_txin_iter_init(&ii, tx);
    while (bk_txin_next(&ii, &tin)) {
        if (!bk_undo_next_coin(undo, &coin))
            return bk_error_set(err, BK_ERR_MISMATCH, 0, "undo data ends before the inputs");
        bk_sp_input in = {tin.prev_txid, tin.prev_index, tin.script_sig, tin.script_sig_len, tin.witness,
                          tin.witness_items, bk_coin_script(&coin), coin.script_len};
        sum_add(&st, &in);
    }
    *verdict_out = sum_end(&st, out);
    return BK_OK;
}

/* ---- keys given by a user ---------------------------------------------- */

static int is_space(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

bk_status bk_sp_scan_key_parse(const uint8_t *text, size_t len, uint8_t key_out[32], bk_error *err)
{
    if (!key_out || (len && !text)) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    size_t a = 0, b = len;
    while (a < b && is_space(text[a])) a++;
    while (b > a && is_space(text[b - 1])) b--;
    if (a == b) return bk_error_set(err, BK_ERR_LENGTH, 0, "empty: no scan key (64 hex digits expected)");
    for (size_t i = a; i < b; i++)
        if (bk_hex_digit(text[i]) < 0)
            return bk_error_set(err, BK_ERR_VALUE, i, "not a hex digit at byte %zu (a scan key is 64 hex digits)", i);
    if (b - a != 64)
        return bk_error_set(err, BK_ERR_LENGTH, a, "%zu hex digits: a scan key is 64 (32 bytes)", b - a);
    if (bk_hex_decode(key_out, (const char *)text + a, 32, err) != BK_OK) return BK_ERR_VALUE;
    if (!secp256k1_ec_seckey_verify(secp256k1_context_static, key_out)) {
        memset(key_out, 0, 32);
        return bk_error_set(err, BK_ERR_VALUE, a,
                            "not a valid secp256k1 private key (zero, or not below the group order)");
    }
    return BK_OK;
}

bk_status bk_sp_pubkey_parse(const char *hex, size_t len, uint8_t key_out[33], bk_error *err)
{
    if (!key_out || (len && !hex)) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    if (len != 66) return bk_error_set(err, BK_ERR_LENGTH, 0, "%zu hex digits: a compressed public key is 66", len);
    if (bk_hex_decode(key_out, hex, 33, err) != BK_OK) return BK_ERR_VALUE;
    secp256k1_pubkey pk;
    if (!parse_compressed(key_out, 33, &pk))
        return bk_error_set(err, BK_ERR_VALUE, 0, "not a compressed public key (02/03 and a point on the curve)");
    return BK_OK;
}
