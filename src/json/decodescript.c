/* Core's decodescript RPC (src/rpc/rawtransaction.cpp): ScriptToUniv of the
 * script without "hex", then the P2SH wrapper and the segwit object, each
 * offered only where Core's can_wrap / can_wrap_P2WSH rules allow. The
 * hashes it needs (HASH160 = RIPEMD-160 of SHA-256) are computed here. */
#include <blockkit/hex.h>
#include <blockkit/json.h>
#include <blockkit/script.h>

#include <string.h>

/* ---- RIPEMD-160 (Dobbertin, Bosselaers, Preneel 1996) ---- */

static uint32_t rol(uint32_t x, unsigned n) { return (x << n) | (x >> (32 - n)); }

static uint32_t rmd_f(unsigned round, uint32_t x, uint32_t y, uint32_t z)
{
    switch (round) {
    case 0: return x ^ y ^ z;
    case 1: return (x & y) | (~x & z);
    case 2: return (x | ~y) ^ z;
    case 3: return (x & z) | (y & ~z);
    default: return x ^ (y | ~z);
    }
}

static const uint8_t RL[80] = {
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 7, 4, 13, 1, 10, 6, 15, 3, 12, 0, 9, 5, 2, 14, 11, 8,
    3, 10, 14, 4, 9, 15, 8, 1, 2, 7, 0, 6, 13, 11, 5, 12, 1, 9, 11, 10, 0, 8, 12, 4, 13, 3, 7, 15, 14, 5, 6, 2,
    4, 0, 5, 9, 7, 12, 2, 10, 14, 1, 3, 8, 11, 6, 15, 13};
static const uint8_t RR[80] = {
    5, 14, 7, 0, 9, 2, 11, 4, 13, 6, 15, 8, 1, 10, 3, 12, 6, 11, 3, 7, 0, 13, 5, 10, 14, 15, 8, 12, 4, 9, 1, 2,
    15, 5, 1, 3, 7, 14, 6, 9, 11, 8, 12, 2, 10, 0, 4, 13, 8, 6, 4, 1, 3, 11, 15, 0, 5, 12, 2, 13, 9, 7, 10, 14,
    12, 15, 10, 4, 1, 5, 8, 7, 6, 2, 13, 14, 0, 3, 9, 11};
static const uint8_t SL[80] = {
    11, 14, 15, 12, 5, 8, 7, 9, 11, 13, 14, 15, 6, 7, 9, 8, 7, 6, 8, 13, 11, 9, 7, 15, 7, 12, 15, 9, 11, 7, 13, 12,
    11, 13, 6, 7, 14, 9, 13, 15, 14, 8, 13, 6, 5, 12, 7, 5, 11, 12, 14, 15, 14, 15, 9, 8, 9, 14, 5, 6, 8, 6, 5, 12,
    9, 15, 5, 11, 6, 8, 13, 12, 5, 12, 13, 14, 11, 8, 5, 6};
static const uint8_t SR[80] = {
    8, 9, 9, 11, 13, 15, 15, 5, 7, 7, 8, 11, 14, 14, 12, 6, 9, 13, 15, 7, 12, 8, 9, 11, 7, 7, 12, 7, 6, 15, 13, 11,
    9, 7, 15, 11, 8, 6, 6, 14, 12, 13, 5, 14, 13, 13, 7, 5, 15, 5, 8, 11, 14, 14, 6, 14, 6, 9, 12, 9, 12, 5, 15, 8,
    8, 5, 12, 9, 12, 5, 14, 6, 8, 13, 6, 5, 15, 13, 11, 11};
static const uint32_t KL[5] = {0x00000000u, 0x5a827999u, 0x6ed9eba1u, 0x8f1bbcdcu, 0xa953fd4eu};
static const uint32_t KR[5] = {0x50a28be6u, 0x5c4dd124u, 0x6d703ef3u, 0x7a6d76e9u, 0x00000000u};

static void rmd_block(uint32_t h[5], const uint8_t *b)
{
    uint32_t x[16];
    for (int i = 0; i < 16; i++)
        x[i] = (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 | (uint32_t)b[4 * i + 2] << 16 |
               (uint32_t)b[4 * i + 3] << 24;
    uint32_t al = h[0], bl = h[1], cl = h[2], dl = h[3], el = h[4];
    uint32_t ar = h[0], br = h[1], cr = h[2], dr = h[3], er = h[4];
    for (unsigned j = 0; j < 80; j++) {
        unsigned r = j / 16;
        uint32_t t = rol(al + rmd_f(r, bl, cl, dl) + x[RL[j]] + KL[r], SL[j]) + el;
        al = el;
        el = dl;
        dl = rol(cl, 10);
        cl = bl;
        bl = t;
        t = rol(ar + rmd_f(4 - r, br, cr, dr) + x[RR[j]] + KR[r], SR[j]) + er;
        ar = er;
        er = dr;
        dr = rol(cr, 10);
        cr = br;
        br = t;
    }
    uint32_t t = h[1] + cl + dr;
    h[1] = h[2] + dl + er;
    h[2] = h[3] + el + ar;
    h[3] = h[4] + al + br;
    h[4] = h[0] + bl + cr;
    h[0] = t;
}

static void ripemd160(uint8_t out[20], const uint8_t *p, size_t n)
{
    uint32_t h[5] = {0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u, 0xc3d2e1f0u};
    size_t done = 0;
    for (; n - done >= 64; done += 64) rmd_block(h, p + done);
    uint8_t last[128];
    size_t rest = n - done;
    memset(last, 0, sizeof last);
    if (rest) memcpy(last, p + done, rest);
    last[rest] = 0x80;
    size_t total = rest + 9 <= 64 ? 64 : 128;
    uint64_t bits = (uint64_t)n * 8;
    for (int i = 0; i < 8; i++) last[total - 8 + i] = (uint8_t)(bits >> (8 * i));
    rmd_block(h, last);
    if (total == 128) rmd_block(h, last + 64);
    for (int i = 0; i < 5; i++)
        for (int k = 0; k < 4; k++) out[4 * i + k] = (uint8_t)(h[i] >> (8 * k));
}

void bk_hash160(uint8_t out[20], const uint8_t *p, size_t n)
{
    uint8_t s[32];
    bk_sha256(s, p, n);
    ripemd160(out, s, 32);
}

/* ---- the RPC ---- */

/* Core: CScript::GetOp for HasValidOps and the opcode loop. 0 on a
 * truncated push; else 1 with the opcode and the push length. */
static int next_op(const uint8_t *s, size_t n, size_t *pos, unsigned *op_out, size_t *len_out)
{
    size_t p = *pos;
    unsigned op = s[p++];
    size_t len = 0;
    if (op < 0x4c) len = op;
    else if (op == 0x4c) {
        if (n - p < 1) return 0;
        len = s[p];
        p += 1;
    } else if (op == 0x4d) {
        if (n - p < 2) return 0;
        len = (size_t)s[p] | (size_t)s[p + 1] << 8;
        p += 2;
    } else if (op == 0x4e) {
        if (n - p < 4) return 0;
        len = (size_t)s[p] | (size_t)s[p + 1] << 8 | (size_t)s[p + 2] << 16 | (size_t)s[p + 3] << 24;
        p += 4;
    }
    if (n - p < len) return 0;
    *pos = p + len;
    *op_out = op;
    *len_out = len;
    return 1;
}

/* Core: IsOpSuccess (BIP342). */
static int op_success(unsigned op)
{
    return op == 80 || op == 98 || (op >= 126 && op <= 129) || (op >= 131 && op <= 134) || (op >= 137 && op <= 138) ||
           (op >= 141 && op <= 142) || (op >= 149 && op <= 153) || (op >= 187 && op <= 254);
}

/* can_wrap's script checks: HasValidOps (every op parses, opcode <=
 * OP_NOP10 (0xb9), pushes <= 520 bytes), not IsUnspendable (OP_RETURN first
 * or over 10,000 bytes), no OP_CHECKSIGADD (0xba) or OP_SUCCESSx. */
static int script_can_wrap(const uint8_t *s, size_t n)
{
    if ((n > 0 && s[0] == 0x6a) || n > 10000) return 0;
    for (size_t pos = 0; pos < n;) {
        unsigned op;
        size_t len;
        if (!next_op(s, n, &pos, &op, &len)) return 0;
        if (op > 0xb9 || len > 520) return 0;
        if (op == 0xba || op_success(op)) return 0;
    }
    return 1;
}

static void put_str(bk_json *j, const char *key, const char *s, size_t n)
{
    bk_json_key(j, key);
    bk_json_string_n(j, s, n);
}

/* ScriptToUniv members: asm, desc, [hex], address (not for PUBKEY), type.
 * desc_override replaces the inferred descriptor (the segwit object's
 * wsh(multi(...)), inferred with the script in the provider). */
static bk_status script_members(bk_json *j, const uint8_t *s, size_t n, bk_network net, int include_hex,
                                const char *desc_override, size_t desc_len)
{
    bk_script_info info;
    bk_status st = bk_script_info_get(s, n, net, &info);
    if (st != BK_OK) return st;
    BK_JSON_KEY(j, "asm");
    bk_json_string_begin(j);
    bk_script_asm(bk_json_writer(j), s, n, 0);
    bk_json_string_end(j);
    BK_JSON_KEY(j, "desc");
    if (desc_override) {
        bk_json_string_n(j, desc_override, desc_len);
    } else {
        bk_json_string_begin(j);
        bk_script_info_descriptor(bk_json_writer(j), s, n, &info);
        bk_json_string_end(j);
    }
    if (include_hex) {
        BK_JSON_KEY(j, "hex");
        bk_json_hex(j, s, n);
    }
    if (info.address_len && info.sol.type != BK_SCRIPT_PUBKEY) put_str(j, "address", info.address, info.address_len);
    const char *type = bk_script_type_name(info.sol.type);
    put_str(j, "type", type, strlen(type));
    return BK_OK;
}

/* EncodeDestination(ScriptHash(script)). */
static bk_status p2sh_address(const uint8_t *s, size_t n, bk_network net, char out[BK_SCRIPT_ADDRESS_MAX],
                              size_t *len_out)
{
    uint8_t spk[23] = {0xa9, 0x14};
    bk_hash160(spk + 2, s, n);
    spk[22] = 0x87;
    return bk_script_address(spk, sizeof spk, net, out, BK_SCRIPT_ADDRESS_MAX, len_out);
}

bk_status bk_json_decodescript(bk_json *j, const uint8_t *s, size_t n, bk_network net)
{
    static const uint8_t empty[1];
    if (!s) s = empty;
    bk_script_solution sol;
    bk_script_type type = bk_script_solve(s, n, &sol);
    char addr[BK_SCRIPT_ADDRESS_MAX];
    size_t alen;
    /* Unknown networks fail here, before anything is written. */
    bk_status st = p2sh_address(s, n, net, addr, &alen);
    if (st != BK_OK) return st;
    bk_json_begin_object(j);
    st = script_members(j, s, n, net, 0, NULL, 0);
    if (st != BK_OK) return st;

    int can_wrap = 0;
    switch (type) {
    case BK_SCRIPT_MULTISIG:
    case BK_SCRIPT_NONSTANDARD:
    case BK_SCRIPT_PUBKEY:
    case BK_SCRIPT_PUBKEYHASH:
    case BK_SCRIPT_WITNESS_V0_KEYHASH:
    case BK_SCRIPT_WITNESS_V0_SCRIPTHASH: can_wrap = script_can_wrap(s, n); break;
    default: break;   /* nulldata, scripthash, witness_unknown, taproot, anchor */
    }
    if (can_wrap) {
        put_str(j, "p2sh", addr, alen);
        int can_wrap_p2wsh = 0;
        switch (type) {
        case BK_SCRIPT_PUBKEY: can_wrap_p2wsh = sol.data_len == 33; break;
        case BK_SCRIPT_MULTISIG:
            /* Uncompressed keys cannot be used with segwit checksigs. */
            can_wrap_p2wsh = 1;
            for (unsigned i = 0; i < sol.n; i++)
                if (sol.key_len[i] != 33) can_wrap_p2wsh = 0;
            break;
        case BK_SCRIPT_NONSTANDARD:
        case BK_SCRIPT_PUBKEYHASH: can_wrap_p2wsh = 1; break;
        default: break;
        }
        if (can_wrap_p2wsh) {
            uint8_t seg[34];
            size_t seg_len;
            if (type == BK_SCRIPT_PUBKEY || type == BK_SCRIPT_PUBKEYHASH) {
                /* P2WPKH of the key (or of the key hash). */
                seg[0] = 0x00;
                seg[1] = 0x14;
                if (type == BK_SCRIPT_PUBKEY) bk_hash160(seg + 2, sol.data, sol.data_len);
                else memcpy(seg + 2, sol.data, 20);
                seg_len = 22;
            } else {
                seg[0] = 0x00;
                seg[1] = 0x20;
                bk_sha256(seg + 2, s, n);
                seg_len = 34;
            }
            /* Core infers the P2WSH descriptor with the script in its
             * provider: a multisig becomes wsh(multi(m,keys)); anything
             * else Core's InferScript cannot express in P2WSH context
             * falls back to addr() as without the script. */
            char desc[16 + BK_SCRIPT_MAX_MULTISIG_KEYS * 67 + 16];
            size_t dl = 0;
            if (type == BK_SCRIPT_MULTISIG) {
                memcpy(desc, "wsh(multi(", 10);
                dl = 10;
                if (sol.m >= 10) desc[dl++] = (char)('0' + sol.m / 10);
                desc[dl++] = (char)('0' + sol.m % 10);
                for (unsigned i = 0; i < sol.n; i++) {
                    desc[dl++] = ',';
                    bk_hex_encode(desc + dl, sol.keys[i], sol.key_len[i]);
                    dl += 2 * (size_t)sol.key_len[i];
                }
                desc[dl++] = ')';
                desc[dl++] = ')';
                char ck[9];
                if (bk_descriptor_checksum(desc, dl, ck, NULL) != BK_OK) return BK_ERR_ARG;
                desc[dl++] = '#';
                memcpy(desc + dl, ck, 8);
                dl += 8;
            }
            BK_JSON_KEY(j, "segwit");
            bk_json_begin_object(j);
            st = script_members(j, seg, seg_len, net, 1, dl ? desc : NULL, dl);
            if (st != BK_OK) return st;
            if ((st = p2sh_address(seg, seg_len, net, addr, &alen)) != BK_OK) return st;
            put_str(j, "p2sh-segwit", addr, alen);
            bk_json_end_object(j);
        }
    }
    bk_json_end_object(j);
    return bk_json_status(j);
}
