/* Internal helpers shared by the JSON sources (not public API). */
#ifndef BLOCKKIT_JSON_INTERNAL_H
#define BLOCKKIT_JSON_INTERNAL_H

#include <blockkit/json.h>
#include <blockkit/script.h>
#include <blockkit/sha256.h>


/* Decimal text of v into out (at most 20 / 21 bytes); returns the length. */
size_t bk_u64_format(char *out, uint64_t v);
size_t bk_i64_format(char *out, int64_t v);

/* Write the separator a value needs at this point; 0 when the writer is in
 * error or the value is not allowed here (then nothing is written). */
int bk_json_before_value_(bk_json *j);

/* ---- fast paths for the library's own renderers ----
 *
 * The renderers (tx_json.c, block_json.c, script_json.c) emit only keys
 * that are ASCII literals and values they format themselves, in an order
 * fixed by construction and covered by the vector tests. These helpers
 * reserve room once and write separator, key and value straight into the
 * buffer, skipping the public API's per-call validation and escaping
 * scans. They still honour the sticky status (nothing is written after a
 * failure) and produce exactly the bytes the public calls would. */

static inline __attribute__((always_inline)) uint8_t *jw_space(bk_writer *w, size_t n)
{
    if (n <= w->cap - w->len && w->data) return w->data + w->len; /* (an empty writer has no buffer) */
    return bk_writer_space(w, n);
}

static inline __attribute__((always_inline)) void jw_commit(bk_json *j, const uint8_t *end)
{
    j->w->len = (size_t)(end - j->w->data);
}

/* Bytes a member separator may take: ',' '\n' and the indentation. */
static inline __attribute__((always_inline)) size_t jw_sep_max(const bk_json *j)
{
    return 2 + (size_t)j->indent * j->depth;
}

static inline __attribute__((always_inline)) uint8_t *jw_sep(bk_json *j, uint8_t *p)
{
    uint32_t d = j->depth;
    if (j->has_items[d - 1]) *p++ = ',';
    j->has_items[d - 1] = 1;
    if (j->indent) {
        size_t n = (size_t)j->indent * d;
        *p++ = '\n';
        memset(p, ' ', n);
        p += n;
    }
    return p;
}

/* Separator and "key": (plus a space when pretty), with extra more bytes
 * reserved after it. NULL when the writer failed. */
static inline __attribute__((always_inline)) uint8_t *jw_key(bk_json *j, const char *k, size_t kl, size_t extra)
{
    if (j->status != BK_OK) return NULL;
    uint8_t *p = jw_space(j->w, jw_sep_max(j) + kl + 4 + extra);
    if (!p) return NULL;
    p = jw_sep(j, p);
    *p++ = '"';
    memcpy(p, k, kl);
    p += kl;
    *p++ = '"';
    *p++ = ':';
    if (j->indent) *p++ = ' ';
    return p;
}

/* An array element's separator, with extra bytes reserved after it. */
static inline __attribute__((always_inline)) uint8_t *jw_elem(bk_json *j, size_t extra)
{
    if (j->status != BK_OK) return NULL;
    uint8_t *p = jw_space(j->w, jw_sep_max(j) + extra);
    if (!p) return NULL;
    return jw_sep(j, p);
}

static inline __attribute__((always_inline)) void jw_push(bk_json *j, uint8_t *p, int obj)
{
    if (j->depth == BK_JSON_MAX_DEPTH) {
        j->status = BK_ERR_ARG;
        return;
    }
    *p++ = obj ? '{' : '[';
    jw_commit(j, p);
    j->is_object[j->depth] = (uint8_t)obj;
    j->has_items[j->depth] = 0;
    j->depth++;
}

/* "key":{  /  "key":[ */
static inline __attribute__((always_inline)) void jw_kv_open(bk_json *j, const char *k, size_t kl, int obj)
{
    uint8_t *p = jw_key(j, k, kl, 1);
    if (p) jw_push(j, p, obj);
}

/* {  /  [ as an array element */
static inline __attribute__((always_inline)) void jw_elem_open(bk_json *j, int obj)
{
    uint8_t *p = jw_elem(j, 1);
    if (p) jw_push(j, p, obj);
}

static inline __attribute__((always_inline)) void jw_close(bk_json *j, int obj)
{
    if (j->status != BK_OK) return;
    uint32_t d = j->depth - 1;
    uint8_t *p = jw_space(j->w, 2 + (size_t)j->indent * d);
    if (!p) return;
    if (j->indent) {
        size_t n = (size_t)j->indent * d;
        *p++ = '\n';
        memset(p, ' ', n);
        p += n;
    }
    *p++ = obj ? '}' : ']';
    jw_commit(j, p);
    j->depth = d;
}

static inline __attribute__((always_inline)) void jw_kv_uint(bk_json *j, const char *k, size_t kl, uint64_t v)
{
    uint8_t *p = jw_key(j, k, kl, 20);
    if (p) jw_commit(j, p + bk_u64_format((char *)p, v));
}

static inline __attribute__((always_inline)) void jw_kv_int(bk_json *j, const char *k, size_t kl, int64_t v)
{
    uint8_t *p = jw_key(j, k, kl, 21);
    if (p) jw_commit(j, p + bk_i64_format((char *)p, v));
}

static inline __attribute__((always_inline)) void jw_kv_amount(bk_json *j, const char *k, size_t kl, int64_t v)
{
    uint8_t *p = jw_key(j, k, kl, BK_AMOUNT_STR_MAX);
    if (p) jw_commit(j, p + bk_amount_format((char *)p, v));
}

static inline __attribute__((always_inline)) void jw_kv_bool(bk_json *j, const char *k, size_t kl, int v)
{
    uint8_t *p = jw_key(j, k, kl, 5);
    if (!p) return;
    if (v) memcpy(p, "true", 4);
    else memcpy(p, "false", 5);
    jw_commit(j, p + (v ? 4 : 5));
}

/* A string value known to need no escaping (ASCII literals, addresses). */
static inline __attribute__((always_inline)) void jw_kv_raw_str(bk_json *j, const char *k, size_t kl, const char *s, size_t n)
{
    uint8_t *p = jw_key(j, k, kl, n + 2);
    if (!p) return;
    *p++ = '"';
    memcpy(p, s, n);
    p += n;
    *p++ = '"';
    jw_commit(j, p);
}

/* Hex strings up to this many bytes are written in place; longer ones go
 * through the chunked path (a sink writer never needs a bigger buffer). */
#define JW_HEX_INLINE 2048

static inline __attribute__((always_inline)) void jw_kv_hex(bk_json *j, const char *k, size_t kl, const uint8_t *d, size_t n)
{
    if (n > JW_HEX_INLINE) {
        uint8_t *p = jw_key(j, k, kl, 1);
        if (!p) return;
        *p++ = '"';
        jw_commit(j, p);
        bk_writer_put_hex(j->w, d, n);
        bk_writer_putc(j->w, '"');
        return;
    }
    uint8_t *p = jw_key(j, k, kl, 2 * n + 2);
    if (!p) return;
    *p++ = '"';
    bk_hex_encode((char *)p, d, n);
    p += 2 * n;
    *p++ = '"';
    jw_commit(j, p);
}

static inline __attribute__((always_inline)) void jw_kv_hash(bk_json *j, const char *k, size_t kl, const uint8_t h[32])
{
    uint8_t *p = jw_key(j, k, kl, 66);
    if (!p) return;
    *p++ = '"';
    bk_hex_encode_rev((char *)p, h, 32);
    p += 64;
    *p++ = '"';
    jw_commit(j, p);
}

static inline __attribute__((always_inline)) void jw_elem_hex(bk_json *j, const uint8_t *d, size_t n)
{
    if (n > JW_HEX_INLINE) {
        uint8_t *p = jw_elem(j, 1);
        if (!p) return;
        *p++ = '"';
        jw_commit(j, p);
        bk_writer_put_hex(j->w, d, n);
        bk_writer_putc(j->w, '"');
        return;
    }
    uint8_t *p = jw_elem(j, 2 * n + 2);
    if (!p) return;
    *p++ = '"';
    bk_hex_encode((char *)p, d, n);
    p += 2 * n;
    *p++ = '"';
    jw_commit(j, p);
}

static inline __attribute__((always_inline)) void jw_elem_hash(bk_json *j, const uint8_t h[32])
{
    uint8_t *p = jw_elem(j, 66);
    if (!p) return;
    *p++ = '"';
    bk_hex_encode_rev((char *)p, h, 32);
    p += 64;
    *p++ = '"';
    jw_commit(j, p);
}

#define JW_KEY_N(lit) lit, sizeof(lit) - 1


/* Script facts of a block decided ahead of rendering, in batches
 * (script_json.c): one walk of the block in render order (per tx: the
 * prevout scripts of its inputs when they are rendered, then its output
 * scripts) fills two queues, the taproot keys (decided by
 * bk_script_xonly_valid_many) and the version byte + hash160 of the
 * P2PKH/P2SH scripts (their Base58Check checksums hashed together by
 * bk_sha256d_msgs), up to BK_SCRIPT_BATCH each; the renderer takes the
 * answers in the same order. A taken script that differs from the queued
 * one (a walk out of step, never expected) switches the cursors off: from
 * then on every script is decided on its own, so the output never depends
 * on them. No allocation. */
#define BK_SCRIPT_BATCH 128
typedef struct bk_script_queue_ {
    uint32_t pos, count;                 /* next answer to take, answers queued */
    uint8_t keys[BK_SCRIPT_BATCH][32];   /* x-only key, or version byte + hash160 */
} bk_script_queue_;

typedef struct bk_script_cursors_ {
    const bk_block *b;
    uint8_t prefix[2];    /* the network's P2PKH and P2SH version bytes */
    int b58;              /* a known network: addresses are queued */
    int prevouts;         /* prevout scripts are rendered */
    bk_undo_iter ui;      /* the cursors' own walk of the undo data */
    uint32_t tx;          /* next tx to collect from */
    int phase;            /* 0 start of tx, 1 prevouts, 2 outputs, 3 end */
    bk_txout_iter oi;
    int off;              /* out of step: decide one by one */
    int skip_taproot;     /* no caller needs the x-only key decisions (only descriptors do): all 0 */
    bk_script_queue_ tr, pk;
    uint8_t valid[BK_SCRIPT_BATCH];          /* tr: the decisions */
    uint8_t sums[BK_SCRIPT_BATCH][32];       /* pk: SHA256d of each key's 21 bytes */
    bk_sha256_seg seg[BK_SCRIPT_BATCH];
    bk_sha256_msg msg[BK_SCRIPT_BATCH];
} bk_script_cursors_;

/* The cursors over block b; undo: the block's undo data when its prevouts
 * are rendered, else NULL (it must have passed bk_block_undo_check). An
 * unknown network queues no addresses. */
void bk_script_cursors_init_(bk_script_cursors_ *c, const bk_block *b, const bk_block_undo *undo, bk_network net);
/* The decision for script s (0 / 1) when it is taproot and the cursors
 * have it next, else -1. c may be NULL (then -1). */
int bk_script_cursors_taproot_(bk_script_cursors_ *c, const uint8_t *s, size_t n);
/* When s is P2PKH or P2SH and the cursors have it next: its address
 * (Core's EncodeDestination, NUL-terminated, at most BK_SCRIPT_ADDRESS_MAX
 * bytes) into out and its length; else 0 (out untouched). c may be NULL. */
size_t bk_script_cursors_b58_(bk_script_cursors_ *c, const uint8_t *s, size_t n, char *out);
/* bk_script_info_get with the cursors' answers: a P2PKH/P2SH address
 * from its batched checksum, a taproot key's decision from its batch
 * (c NULL: everything computed here). */
bk_status bk_script_info_cursors_(const uint8_t *s, size_t n, bk_network net, bk_script_cursors_ *c,
                                  bk_script_info *info);

/* ScriptToUniv's members (asm, desc, hex, [address], type) into an open
 * object, with the script's facts from cur (NULL: computed here). */
void bk_json_script_pubkey_members_(bk_json *j, const uint8_t *script, size_t len, bk_network net,
                                    bk_script_cursors_ *cur);

/* bk_json_tx taking its script facts from cur (NULL: one by one). */
bk_status bk_json_tx_cursor_(bk_json *j, const bk_tx *tx, const bk_tx_json_opts *o, bk_undo_iter *undo,
                             bk_script_cursors_ *cur, bk_error *err);

/* Core ScriptToAsmStr(scriptSig, fAttemptSighashDecode=true) into w. */
void bk_json_script_sig_asm_(bk_writer *w, const uint8_t *script, size_t len);

#endif
