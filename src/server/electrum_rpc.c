/* The Electrum protocol 1.4 dispatcher: one request line (a JSON-RPC 2.0
 * request or a batch of them) in, its answer line out. Method shapes follow
 * the protocol documentation of spesmilo/electrumx (protocol-methods.rst). */
#include "server/electrum_internal.h"

#include "json/json_parse.h"

#include <blockkit/bitcoin.h>
#include <blockkit/hex.h>
#include <blockkit/json.h>
#include <blockkit/sha256.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RPC_PARSE_ERROR -32700
#define RPC_INVALID_REQUEST -32600
#define RPC_METHOD_NOT_FOUND -32601
#define RPC_INVALID_PARAMS -32602
#define RPC_INTERNAL -32603
#define RPC_LIMIT -32000        /* a per-client limit (the message names it) */
#define RPC_UNAVAILABLE -32001  /* needs the index or the node's RPC */
#define RPC_NODE -32002         /* the node refused (its message) */
#define RPC_NOT_FOUND -32004

/* Bitcoin Core's DEFAULT_MIN_RELAY_TX_FEE, 1,000 sat/kvB, in BTC/kvB. */
#define BK_ELECTRUM_DEFAULT_RELAYFEE "0.00001"
#define MAX_HEADERS_CHUNK 2016  /* electrumx's max for blockchain.block.headers */
#define ANSWER_CACHE_BYTES (16u << 20)   /* rendered scripthash answers kept per tip */
/* The answers kept (answer_cache.h): their kinds. */
enum { ANSWER_NONE, ANSWER_HISTORY, ANSWER_BALANCE, ANSWER_UNSPENT };

typedef struct sub {
    uint8_t sh[32];
    uint8_t status[32];
    int has;
} sub;

struct bk_electrum_session {
    bk_electrum_shared *sh;
    int owns_shared;
    int negotiated;
    int headers_sub;
    int32_t headers_sent;       /* tip height last sent to a headers subscriber */
    sub *subs;
    size_t n_subs, subs_cap;
};

/* ---- the shared chain state ---- */

bk_status bk_electrum_shared_init(bk_electrum_shared *sh, const bk_electrum_opts *o, bk_error *err)
{
    memset(sh, 0, sizeof *sh);
    sh->o = *o;
    sh->alloc = o->alloc ? o->alloc : bk_default_allocator();
    sh->tip = -1;
    if (pthread_rwlock_init(&sh->lock, NULL)) return bk_error_set(err, BK_ERR_NOMEM, 0, "electrum: rwlock");
    bk_answer_cache_init(&sh->answers, ANSWER_CACHE_BYTES);
    if (o->ix && o->rpc_url && o->blocks &&
        bk_mempool_poller_new(&sh->poller, o->rpc_url, o->rpc_auth, o->ix, o->blocks, err) != BK_OK) {
        bk_electrum_shared_free(sh);
        return err ? err->status : BK_ERR_NOMEM;
    }
    int changed;
    bk_status st = bk_electrum_shared_refresh(sh, &changed, err);
    if (st != BK_OK) bk_electrum_shared_free(sh);
    return st;
}

void bk_electrum_shared_free(bk_electrum_shared *sh)
{
    if (!sh->alloc) return;
    bk_free(sh->alloc, sh->hashes, sh->hashes_cap * 32);
    pthread_rwlock_destroy(&sh->lock);
    bk_answer_cache_free(&sh->answers);
    bk_mempool_poller_free(sh->poller);
    bk_mempool_free(sh->mempool);
    memset(sh, 0, sizeof *sh);
}

bk_status bk_electrum_shared_mempool_poll(bk_electrum_shared *sh, int *changed_out, bk_error *err)
{
    *changed_out = 0;
    if (!sh->poller) return BK_OK;
    bk_mempool *snap;
    bk_status st = bk_mempool_poll(sh->poller, &snap, err);
    if (st != BK_OK || !snap) return st;
    pthread_rwlock_wrlock(&sh->lock);
    bk_mempool *old = sh->mempool;
    sh->mempool = snap;
    pthread_rwlock_unlock(&sh->lock);
    bk_mempool_free(old);
    bk_answer_cache_clear(&sh->answers);
    *changed_out = 1;
    return BK_OK;
}

bk_status bk_electrum_shared_refresh(bk_electrum_shared *sh, int *changed_out, bk_error *err)
{
    *changed_out = 0;
    bk_addrindex *ix = sh->o.ix;
    if (!ix) return BK_OK;
    int changed = 0;
    bk_status st = bk_addrindex_refresh(ix, &changed, err);
    if (st != BK_OK) return st;
    /* A new snapshot: the answers rendered from the old one go (a query
     * that read the old one and finishes later has the old generation,
     * and its answer is not kept). */
    if (changed) bk_answer_cache_clear(&sh->answers);
    int64_t tip64;
    uint8_t tip_hash[32];
    if ((st = bk_addrindex_tip(ix, &tip64, tip_hash, err)) != BK_OK) return st;
    if (tip64 >= INT32_MAX) return bk_error_set(err, BK_ERR_INVALID, 0, "electrum: index tip %lld", (long long)tip64);
    int32_t tip = (int32_t)tip64;
    int64_t first = -1;
    if (tip >= 0 && (st = bk_addrindex_first(ix, &first, err)) != BK_OK) return st;
    pthread_rwlock_wrlock(&sh->lock);
    if (tip >= 0 && first != sh->base) { /* another chain's index: every hash again */
        sh->base = (int32_t)first;
        sh->tip = -1;
        sh->has_genesis = 0;
    }
    if (tip == sh->tip && (tip < 0 || !memcmp(sh->hashes[tip], tip_hash, 32))) {
        pthread_rwlock_unlock(&sh->lock);
        return BK_OK;
    }
    if ((size_t)(tip + 1) > sh->hashes_cap) {
        size_t cap = (size_t)tip + 1 + 4096;
        uint8_t(*nh)[32] = bk_realloc(sh->alloc, sh->hashes, sh->hashes_cap * 32, cap * 32);
        if (!nh) {
            pthread_rwlock_unlock(&sh->lock);
            return bk_error_set(err, BK_ERR_NOMEM, 0, "electrum: header hashes for %d blocks", tip + 1);
        }
        sh->hashes = nh;
        sh->hashes_cap = cap;
    }
    /* From the fork point (a reorg) or the old tip up: each header's hash. */
    int32_t from = sh->tip < tip ? sh->tip : tip;
    if (from < sh->base) from = sh->base - 1;
    while (from >= sh->base) {
        uint8_t hdr[80], h[32];
        if ((st = bk_addrindex_header(ix, from, hdr, err)) != BK_OK) goto out;
        bk_sha256d(h, hdr, 80);
        if (!memcmp(h, sh->hashes[from], 32)) break;
        from--;
    }
    for (int32_t hgt = from + 1; hgt <= tip; hgt++) {
        uint8_t hdr[80];
        if ((st = bk_addrindex_header(ix, hgt, hdr, err)) != BK_OK) goto out;
        bk_sha256d(sh->hashes[hgt], hdr, 80);
        if (hgt == sh->base && sh->base <= 1) { /* the genesis block: this header, or its parent */
            memcpy(sh->genesis, sh->base == 0 ? sh->hashes[hgt] : hdr + 4, 32);
            sh->has_genesis = 1;
        }
    }
    sh->tip = tip;
    *changed_out = 1;
out:
    pthread_rwlock_unlock(&sh->lock);
    return st;
}

/* ---- sessions ---- */

bk_status bk_electrum_session_new_shared(bk_electrum_shared *sh, bk_electrum_session **s_out, bk_error *err)
{
    bk_electrum_session *s = bk_alloc(sh->alloc, sizeof *s);
    if (!s) return bk_error_set(err, BK_ERR_NOMEM, 0, "electrum: session");
    memset(s, 0, sizeof *s);
    s->sh = sh;
    s->headers_sent = -1;
    *s_out = s;
    return BK_OK;
}

bk_status bk_electrum_session_new(const bk_electrum_opts *o, bk_electrum_session **s_out, bk_error *err)
{
    const bk_allocator *a = o->alloc ? o->alloc : bk_default_allocator();
    bk_electrum_shared *sh = bk_alloc(a, sizeof *sh);
    if (!sh) return bk_error_set(err, BK_ERR_NOMEM, 0, "electrum: session");
    bk_status st = bk_electrum_shared_init(sh, o, err);
    if (st == BK_OK) st = bk_electrum_session_new_shared(sh, s_out, err);
    if (st != BK_OK) {
        bk_electrum_shared_free(sh);
        bk_free(a, sh, sizeof *sh);
        return st;
    }
    (*s_out)->owns_shared = 1;
    return BK_OK;
}

void bk_electrum_session_free(bk_electrum_session *s)
{
    if (!s) return;
    bk_electrum_shared *sh = s->sh;
    const bk_allocator *a = sh->alloc;
    bk_free(a, s->subs, s->subs_cap * sizeof *s->subs);
    int owns = s->owns_shared;
    bk_free(a, s, sizeof *s);
    if (owns) {
        bk_electrum_shared_free(sh);
        bk_free(a, sh, sizeof *sh);
    }
}

/* ---- one request ---- */

typedef struct req {
    bk_electrum_session *s;
    const bk_jsondoc *d;
    const bk_jsonv *params;     /* array, or NULL (none) */
    bk_json *j;                 /* positioned where the "result" value goes */
    int code;                   /* set by fail() */
    char msg[256];
} req;

static int fail(req *r, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(req *r, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->msg, sizeof r->msg, fmt, ap);
    va_end(ap);
    r->code = code;
    return -1;
}

static int fail_err(req *r, const bk_error *e)
{
    int code = e->status == BK_ERR_NOT_FOUND ? RPC_NOT_FOUND
             : e->status == BK_ERR_LENGTH ? RPC_LIMIT : RPC_INTERNAL;
    return fail(r, code, "%s", e->msg);
}

static const bk_jsonv *param(req *r, uint32_t i) { return bk_jsonv_at(r->d, r->params, i); }
static uint32_t n_params(req *r) { return r->params ? r->params->n : 0; }

static int want_params(req *r, uint32_t lo, uint32_t hi)
{
    uint32_t n = n_params(r);
    if (n < lo || n > hi)
        return fail(r, RPC_INVALID_PARAMS, "expected %u to %u parameters, got %u", lo, hi, n);
    return 0;
}

static int param_int(req *r, uint32_t i, int64_t lo, int64_t hi, int64_t dflt, int64_t *out, const char *name)
{
    const bk_jsonv *v = param(r, i);
    if (!v || v->type == BK_JSONV_NULL) { *out = dflt; return 0; }
    if (!bk_jsonv_int(r->d, v, lo, hi, out))
        return fail(r, RPC_INVALID_PARAMS, "%s: an integer from %lld to %lld expected", name, (long long)lo,
                    (long long)hi);
    return 0;
}

static int param_bool(req *r, uint32_t i, int *out)
{
    const bk_jsonv *v = param(r, i);
    *out = 0;
    if (!v || v->type == BK_JSONV_NULL) return 0;
    if (v->type != BK_JSONV_BOOL) return fail(r, RPC_INVALID_PARAMS, "parameter %u: true or false expected", i + 1);
    *out = (int)v->str;
    return 0;
}

/* A 32-byte hash given as 64 hex digits, reversed (Electrum prints txids and
 * scripthashes as Core's GetHex). */
static int param_hash(req *r, uint32_t i, uint8_t out[32], const char *name)
{
    const bk_jsonv *v = param(r, i);
    bk_error e;
    if (!v || v->type != BK_JSONV_STRING || v->n != 64 ||
        bk_hex_decode_rev(out, bk_jsonv_str(r->d, v), 32, &e) != BK_OK)
        return fail(r, RPC_INVALID_PARAMS, "%s: 64 hex digits expected", name);
    return 0;
}

static bk_addrindex *need_index(req *r)
{
    if (!r->s->sh->o.ix) fail(r, RPC_UNAVAILABLE, "this server has no address index");
    return r->s->sh->o.ix;
}

static int need_rpc(req *r)
{
    if (!r->s->sh->o.rpc_url)
        return fail(r, RPC_UNAVAILABLE, "this server was started without --rpc-url (no node RPC for this method)");
    return 0;
}

/* ---- server.* ---- */

/* A protocol version as up to 4 dotted decimal parts ("1.4", "1.4.2"):
 * the number of parts, 0 when it is not that shape. */
static int version_parts(const char *v, unsigned long part[4])
{
    int n = 0;
    memset(part, 0, 4 * sizeof *part);
    for (;;) {
        int digits = 0;
        for (; *v >= '0' && *v <= '9'; v++)
            if (++digits > 6) return 0;
            else part[n] = part[n] * 10 + (unsigned long)(*v - '0');
        if (!digits) return 0;
        n++;
        if (!*v) return n;
        if (*v++ != '.' || n == 4) return 0;
    }
}

/* -1, 0 or 1 as version a is below, equal to or above b, part by part as
 * numbers ("1.10" is above "1.4", "1.4.0" equals "1.4"; electrumx's rule). */
static int version_cmp(const unsigned long a[4], const unsigned long b[4])
{
    for (int i = 0; i < 4; i++)
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return 0;
}

static int m_server_version(req *r)
{
    if (want_params(r, 0, 2)) return -1;
    const bk_jsonv *cn = param(r, 0), *pv = param(r, 1);
    if (cn && cn->type != BK_JSONV_STRING && cn->type != BK_JSONV_NULL)
        return fail(r, RPC_INVALID_PARAMS, "client_name: a string expected");
    const char *lo = NULL, *hi = NULL;
    if (pv && pv->type == BK_JSONV_STRING) {
        lo = hi = bk_jsonv_str(r->d, pv);
    } else if (pv && pv->type == BK_JSONV_ARRAY && pv->n == 2 &&
               bk_jsonv_at(r->d, pv, 0)->type == BK_JSONV_STRING &&
               bk_jsonv_at(r->d, pv, 1)->type == BK_JSONV_STRING) {
        lo = bk_jsonv_str(r->d, bk_jsonv_at(r->d, pv, 0));
        hi = bk_jsonv_str(r->d, bk_jsonv_at(r->d, pv, 1));
    } else if (pv && pv->type != BK_JSONV_NULL) {
        return fail(r, RPC_INVALID_PARAMS, "protocol_version: a string or [min, max] expected");
    }
    if (lo) {
        unsigned long l[4], h[4], ours[4];
        version_parts(BK_ELECTRUM_PROTOCOL, ours);
        if (!version_parts(lo, l) || !version_parts(hi, h))
            return fail(r, RPC_INVALID_PARAMS, "protocol_version: dotted numbers such as \"1.4\" expected");
        if (version_cmp(l, ours) > 0 || version_cmp(h, ours) < 0)
            return fail(r, RPC_INVALID_PARAMS, "unsupported protocol version (this server speaks %s)",
                        BK_ELECTRUM_PROTOCOL);
    }
    r->s->negotiated = 1;
    bk_json_begin_array(r->j);
    bk_json_string(r->j, "blockkit " BK_VERSION_STRING);
    bk_json_string(r->j, BK_ELECTRUM_PROTOCOL);
    bk_json_end_array(r->j);
    return 0;
}

static int m_server_banner(req *r)
{
    if (want_params(r, 0, 0)) return -1;
    const char *b = r->s->sh->o.banner;
    bk_json_string(r->j, b ? b : "blockkit Electrum server " BK_VERSION_STRING " (protocol " BK_ELECTRUM_PROTOCOL ")");
    return 0;
}

static int m_server_features(req *r)
{
    if (want_params(r, 0, 0)) return -1;
    bk_electrum_shared *sh = r->s->sh;
    bk_json *j = r->j;
    bk_json_begin_object(j);
    BK_JSON_KEY(j, "genesis_hash");
    pthread_rwlock_rdlock(&sh->lock);
    if (sh->tip >= 0 && sh->has_genesis) bk_json_hex_rev(j, sh->genesis, 32);
    else bk_json_null(j);
    pthread_rwlock_unlock(&sh->lock);
    BK_JSON_KEY(j, "hosts");
    bk_json_begin_object(j);
    bk_json_end_object(j);
    BK_JSON_KEY(j, "protocol_max");
    bk_json_string(j, BK_ELECTRUM_PROTOCOL);
    BK_JSON_KEY(j, "protocol_min");
    bk_json_string(j, BK_ELECTRUM_PROTOCOL);
    BK_JSON_KEY(j, "pruning");
    bk_json_null(j);
    BK_JSON_KEY(j, "server_version");
    bk_json_string(j, "blockkit " BK_VERSION_STRING);
    BK_JSON_KEY(j, "hash_function");
    bk_json_string(j, "sha256");
    bk_json_end_object(j);
    return 0;
}

static int m_null(req *r)
{
    if (want_params(r, 0, 0)) return -1;
    bk_json_null(r->j);
    return 0;
}

static int m_empty_string(req *r)
{
    if (want_params(r, 0, 0)) return -1;
    bk_json_string(r->j, "");
    return 0;
}

static int m_empty_list(req *r)
{
    if (want_params(r, 0, 0)) return -1;
    bk_json_begin_array(r->j);
    bk_json_end_array(r->j);
    return 0;
}

/* ---- headers ---- */

/* The merkle root of the header hashes 0..cp and the branch of height h
 * (electrumx's header merkle proof: a branch and root, both as GetHex). */
static int header_proof(req *r, int32_t h, int32_t cp)
{
    bk_electrum_shared *sh = r->s->sh;
    size_t n = (size_t)cp + 1;
    /* One spare slot: an odd level repeats its last hash (Bitcoin's merkle rule). */
    uint8_t(*level)[32] = bk_alloc(sh->alloc, (n + 1) * 32);
    if (!level) return fail(r, RPC_INTERNAL, "out of memory for a cp_height proof");
    memcpy(level, sh->hashes, n * 32);
    bk_json *j = r->j;
    BK_JSON_KEY(j, "branch");
    bk_json_begin_array(j);
    size_t idx = (size_t)h, m = n;
    while (m > 1) {
        if (m & 1) { memcpy(level[m], level[m - 1], 32); m++; }
        size_t sib = idx ^ 1;
        bk_json_hex_rev(j, level[sib], 32);
        for (size_t i = 0; i < m / 2; i++) {
            uint8_t pair[64];
            memcpy(pair, level[2 * i], 32);
            memcpy(pair + 32, level[2 * i + 1], 32);
            bk_sha256d(level[i], pair, 64);
        }
        m /= 2;
        idx /= 2;
    }
    bk_json_end_array(j);
    BK_JSON_KEY(j, "root");
    bk_json_hex_rev(j, level[0], 32);
    bk_free(sh->alloc, level, (n + 1) * 32);
    return 0;
}

static int check_cp(req *r, int64_t cp, int32_t last, int32_t tip)
{
    if (cp && (cp < last || cp > tip))
        return fail(r, RPC_INVALID_PARAMS, "cp_height %lld must be at least the last height %d and at most the tip %d",
                    (long long)cp, last, tip);
    if (cp && r->s->sh->base > 0)
        return fail(r, RPC_INVALID_PARAMS, "cp_height proofs need every header from height 0; the index's first is at "
                    "height %d", r->s->sh->base);
    return 0;
}

/* Heights below the index's first header (a blocks directory without the
 * genesis block) are refused by name. */
static int check_base(req *r, int64_t h)
{
    if (h < r->s->sh->base)
        return fail(r, RPC_INVALID_PARAMS, "height %lld is below the index's first header (height %d)", (long long)h,
                    r->s->sh->base);
    return 0;
}

static int m_block_header(req *r)
{
    bk_addrindex *ix = need_index(r);
    int64_t h, cp;
    if (!ix || want_params(r, 1, 2) || param_int(r, 0, 0, INT32_MAX, 0, &h, "height") ||
        param_int(r, 1, 0, INT32_MAX, 0, &cp, "cp_height"))
        return -1;
    bk_electrum_shared *sh = r->s->sh;
    pthread_rwlock_rdlock(&sh->lock);
    int rc = 0;
    uint8_t hdr[80];
    bk_error e;
    if (h > sh->tip) rc = fail(r, RPC_INVALID_PARAMS, "height %lld is above the tip %d", (long long)h, sh->tip);
    else if (!(rc = check_base(r, h)) && !(rc = check_cp(r, cp, (int32_t)h, sh->tip)) && bk_addrindex_header(ix, (int32_t)h, hdr, &e) != BK_OK)
        rc = fail_err(r, &e);
    if (!rc) {
        if (!cp) {
            bk_json_hex(r->j, hdr, 80);
        } else {
            bk_json_begin_object(r->j);
            if (!(rc = header_proof(r, (int32_t)h, (int32_t)cp))) {
                BK_JSON_KEY(r->j, "header");
                bk_json_hex(r->j, hdr, 80);
            }
            bk_json_end_object(r->j);
        }
    }
    pthread_rwlock_unlock(&sh->lock);
    return rc;
}

static int m_block_headers(req *r)
{
    bk_addrindex *ix = need_index(r);
    int64_t start, count, cp;
    if (!ix || want_params(r, 2, 3) || param_int(r, 0, 0, INT32_MAX, 0, &start, "start_height") ||
        param_int(r, 1, 0, INT32_MAX, 0, &count, "count") || param_int(r, 2, 0, INT32_MAX, 0, &cp, "cp_height"))
        return -1;
    if (count > MAX_HEADERS_CHUNK) count = MAX_HEADERS_CHUNK;
    bk_electrum_shared *sh = r->s->sh;
    pthread_rwlock_rdlock(&sh->lock);
    int rc = 0;
    if (start + count - 1 > sh->tip) count = start > sh->tip ? 0 : sh->tip - start + 1;
    if (count && ((rc = check_base(r, start)) || (rc = check_cp(r, cp, (int32_t)(start + count - 1), sh->tip))))
        goto out;
    bk_json *j = r->j;
    bk_json_begin_object(j);
    BK_JSON_KEY(j, "count");
    bk_json_int(j, count);
    BK_JSON_KEY(j, "hex");
    bk_json_string_begin(j);
    for (int64_t k = 0; k < count; k++) {
        uint8_t hdr[80];
        bk_error e;
        if (bk_addrindex_header(ix, (int32_t)(start + k), hdr, &e) != BK_OK) { rc = fail_err(r, &e); break; }
        bk_writer_put_hex(bk_json_writer(j), hdr, 80);
    }
    bk_json_string_end(j);
    BK_JSON_KEY(j, "max");
    bk_json_int(j, MAX_HEADERS_CHUNK);
    if (!rc && cp && count) rc = header_proof(r, (int32_t)(start + count - 1), (int32_t)cp);
    bk_json_end_object(j);
out:
    pthread_rwlock_unlock(&sh->lock);
    return rc;
}

static int write_tip(req *r, bk_json *j)
{
    bk_electrum_shared *sh = r->s->sh;
    uint8_t hdr[80];
    bk_error e;
    pthread_rwlock_rdlock(&sh->lock);
    int32_t tip = sh->tip;
    pthread_rwlock_unlock(&sh->lock);
    if (tip < 0) return fail(r, RPC_UNAVAILABLE, "the index is empty");
    if (bk_addrindex_header(sh->o.ix, tip, hdr, &e) != BK_OK) return fail_err(r, &e);
    bk_json_begin_object(j);
    BK_JSON_KEY(j, "height");
    bk_json_int(j, tip);
    BK_JSON_KEY(j, "hex");
    bk_json_hex(j, hdr, 80);
    bk_json_end_object(j);
    r->s->headers_sent = tip;
    return 0;
}

static int m_headers_subscribe(req *r)
{
    /* Clients still send 1.2's "raw" flag (ignored: 1.4 always answers hex). */
    if (!need_index(r) || want_params(r, 0, 1)) return -1;
    if (write_tip(r, r->j)) return -1;
    r->s->headers_sub = 1;
    return 0;
}

/* ---- scripthashes ---- */

static int query_fail(req *r, const bk_error *e, const char *what);

/* The mempool transactions of shh not already in the confirmed history
 * (a block the index has and the node's mempool still listed), under the
 * shared lock (mempool.h gives their order). */
static int mempool_of(req *r, const uint8_t shh[32], const bk_addr_tx *conf, size_t n_conf, bk_mempool_tx **txs,
                      size_t *n)
{
    bk_electrum_shared *sh = r->s->sh;
    *txs = NULL;
    *n = 0;
    if (!sh->poller) return 0;
    pthread_rwlock_rdlock(&sh->lock);
    int rc = bk_mempool_history(sh->mempool, shh, txs, n);
    pthread_rwlock_unlock(&sh->lock);
    if (rc) return fail(r, RPC_INTERNAL, "out of memory reading the mempool");
    size_t k = 0;
    for (size_t i = 0; i < *n; i++) {
        int dup = 0;
        for (size_t c = n_conf; c-- > 0 && !dup;) dup = !memcmp(conf[c].txid, (*txs)[i].txid, 32);
        if (!dup) (*txs)[k++] = (*txs)[i];
    }
    *n = k;
    return 0;
}

/* The status hash: the confirmed history, then the mempool's rows. */
static int history_status(req *r, const uint8_t shh[32], uint8_t status[32], int *has)
{
    bk_error e;
    bk_electrum_shared *sh = r->s->sh;
    if (!sh->poller) {
        if (bk_addrindex_status(sh->o.ix, shh, sh->o.limits.max_history, status, has, &e) != BK_OK)
            return query_fail(r, &e, "transactions in the history");
        return 0;
    }
    bk_addr_tx *txs = NULL;
    size_t n = 0, nm = 0;
    bk_mempool_tx *mt = NULL;
    if (bk_addrindex_history(sh->o.ix, shh, sh->o.limits.max_history, &txs, &n, &e) != BK_OK)
        return query_fail(r, &e, "transactions in the history");
    if (mempool_of(r, shh, txs, n, &mt, &nm)) {
        bk_addrindex_free(sh->o.ix, txs);
        return -1;
    }
    bk_addr_tx *all = malloc((n + nm ? n + nm : 1) * sizeof *all);
    if (!all) {
        bk_addrindex_free(sh->o.ix, txs);
        free(mt);
        return fail(r, RPC_INTERNAL, "out of memory for the status");
    }
    if (n) memcpy(all, txs, n * sizeof *all);
    for (size_t i = 0; i < nm; i++) {
        memcpy(all[n + i].txid, mt[i].txid, 32);
        all[n + i].height = mt[i].height;
        all[n + i].pos = 0;
    }
    bk_addrindex_status_of(all, n + nm, status, has);
    free(all);
    free(mt);
    bk_addrindex_free(sh->o.ix, txs);
    return 0;
}

static void json_mempool_tx(bk_json *j, const bk_mempool_tx *t)
{
    bk_json_begin_object(j);
    BK_JSON_KEY(j, "tx_hash");
    bk_json_hex_rev(j, t->txid, 32);
    BK_JSON_KEY(j, "height");
    bk_json_int(j, t->height);
    BK_JSON_KEY(j, "fee");
    bk_json_int(j, t->fee);
    bk_json_end_object(j);
}

static void json_status(bk_json *j, const uint8_t status[32], int has)
{
    if (has) bk_json_hex(j, status, 32);
    else bk_json_null(j);
}

/* The index and the one scripthash parameter of a scripthash method. */
static bk_addrindex *scripthash_arg(req *r, uint8_t shh[32])
{
    bk_addrindex *ix = need_index(r);
    if (!ix || want_params(r, 1, 1) || param_hash(r, 0, shh, "scripthash")) return NULL;
    return ix;
}

/* A query's failure: over max_history names the limit. */
static int query_fail(req *r, const bk_error *e, const char *what)
{
    if (e->status == BK_ERR_LENGTH)
        return fail(r, RPC_LIMIT, "more than %u %s (max_history)", r->s->sh->o.limits.max_history, what);
    return fail_err(r, e);
}

/* A scripthash method's result is its request's whole answer writer
 * (one_request gives each method a fresh one): a kept answer is copied
 * there, a new one kept from there. */
static int answer_kept(req *r, int kind, const uint8_t shh[32], uint64_t *gen)
{
    *gen = bk_answer_cache_gen(&r->s->sh->answers);
    return r->j->w->len == 0 && bk_answer_cache_get(&r->s->sh->answers, kind, shh, r->j->w);
}

static void answer_keep(req *r, int kind, const uint8_t shh[32], uint64_t gen)
{
    if (bk_json_status(r->j) == BK_OK && bk_writer_status(r->j->w) == BK_OK)
        bk_answer_cache_put(&r->s->sh->answers, gen, kind, shh, r->j->w->data, r->j->w->len);
}

static int m_get_history(req *r)
{
    uint8_t shh[32];
    bk_addrindex *ix = scripthash_arg(r, shh);
    if (!ix) return -1;
    uint64_t gen;
    if (answer_kept(r, ANSWER_HISTORY, shh, &gen)) return 0;
    bk_addr_tx *txs = NULL;
    size_t n = 0;
    bk_error e;
    if (bk_addrindex_history(ix, shh, r->s->sh->o.limits.max_history, &txs, &n, &e) != BK_OK)
        return query_fail(r, &e, "transactions in the history");
    bk_json *j = r->j;
    bk_json_begin_array(j);
    for (size_t i = 0; i < n; i++) {
        bk_json_begin_object(j);
        BK_JSON_KEY(j, "tx_hash");
        bk_json_hex_rev(j, txs[i].txid, 32);
        BK_JSON_KEY(j, "height");
        bk_json_int(j, txs[i].height);
        bk_json_end_object(j);
    }
    bk_mempool_tx *mt;
    size_t nm;
    int rc = mempool_of(r, shh, txs, n, &mt, &nm);
    for (size_t i = 0; i < nm; i++) json_mempool_tx(j, &mt[i]);
    free(mt);
    bk_json_end_array(j);
    bk_addrindex_free(ix, txs);
    if (rc) return -1;
    answer_keep(r, ANSWER_HISTORY, shh, gen);
    return 0;
}

static int m_get_balance(req *r)
{
    uint8_t shh[32];
    bk_addrindex *ix = scripthash_arg(r, shh);
    if (!ix) return -1;
    uint64_t gen;
    if (answer_kept(r, ANSWER_BALANCE, shh, &gen)) return 0;
    uint64_t conf;
    bk_error e;
    if (bk_addrindex_balance(ix, shh, r->s->sh->o.limits.max_history, &conf, &e) != BK_OK)
        return query_fail(r, &e, "coins");
    bk_json_begin_object(r->j);
    BK_JSON_KEY(r->j, "confirmed");
    bk_json_uint(r->j, conf);
    int64_t unconf = 0;
    if (r->s->sh->poller) {
        pthread_rwlock_rdlock(&r->s->sh->lock);
        unconf = bk_mempool_delta(r->s->sh->mempool, shh);
        pthread_rwlock_unlock(&r->s->sh->lock);
    }
    BK_JSON_KEY(r->j, "unconfirmed");
    bk_json_int(r->j, unconf);
    bk_json_end_object(r->j);
    answer_keep(r, ANSWER_BALANCE, shh, gen);
    return 0;
}

static int m_listunspent(req *r)
{
    uint8_t shh[32];
    bk_addrindex *ix = scripthash_arg(r, shh);
    if (!ix) return -1;
    uint64_t gen;
    if (answer_kept(r, ANSWER_UNSPENT, shh, &gen)) return 0;
    bk_addr_coin *c = NULL;
    size_t n = 0;
    bk_error e;
    if (bk_addrindex_utxos(ix, shh, r->s->sh->o.limits.max_history, &c, &n, &e) != BK_OK)
        return query_fail(r, &e, "coins");
    /* The mempool's spends of these coins, and its own unspent outputs. */
    bk_addr_coin *mc = NULL;
    size_t nm = 0;
    int rc = 0;
    bk_electrum_shared *sh = r->s->sh;
    if (sh->poller) {
        pthread_rwlock_rdlock(&sh->lock);
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (!bk_mempool_spends(sh->mempool, shh, c[i].txid, c[i].vout)) c[k++] = c[i];
        n = k;
        rc = bk_mempool_coins(sh->mempool, shh, &mc, &nm);
        pthread_rwlock_unlock(&sh->lock);
    }
    bk_json *j = r->j;
    bk_json_begin_array(j);
    for (size_t i = 0; i < n + nm; i++) {
        const bk_addr_coin *x = i < n ? &c[i] : &mc[i - n];
        int dup = 0;
        for (size_t k = 0; i >= n && k < n && !dup; k++) dup = c[k].vout == x->vout && !memcmp(c[k].txid, x->txid, 32);
        if (dup) continue;     /* confirmed by a block the index has, still listed by the node */
        bk_json_begin_object(j);
        BK_JSON_KEY(j, "tx_hash");
        bk_json_hex_rev(j, x->txid, 32);
        BK_JSON_KEY(j, "tx_pos");
        bk_json_uint(j, x->vout);
        BK_JSON_KEY(j, "height");
        bk_json_int(j, x->height);
        BK_JSON_KEY(j, "value");
        bk_json_uint(j, x->value);
        bk_json_end_object(j);
    }
    bk_json_end_array(j);
    bk_addrindex_free(ix, c);
    free(mc);
    if (rc) return fail(r, RPC_INTERNAL, "out of memory reading the mempool");
    answer_keep(r, ANSWER_UNSPENT, shh, gen);
    return 0;
}

/* mempool.get_fee_histogram: the snapshot's pairs (mempool.h gives the
 * rule); [] without --rpc-url (no mempool is known). */
static int m_fee_histogram(req *r)
{
    if (want_params(r, 0, 0)) return -1;
    bk_electrum_shared *sh = r->s->sh;
    bk_json_begin_array(r->j);
    pthread_rwlock_rdlock(&sh->lock);
    const uint64_t(*h)[2];
    size_t n = bk_mempool_fee_histogram(sh->mempool, &h);
    for (size_t i = 0; i < n; i++) {
        bk_json_begin_array(r->j);
        bk_json_uint(r->j, h[i][0]);
        bk_json_uint(r->j, h[i][1]);
        bk_json_end_array(r->j);
    }
    pthread_rwlock_unlock(&sh->lock);
    bk_json_end_array(r->j);
    return 0;
}

static int m_get_mempool(req *r)
{
    uint8_t shh[32];
    if (!scripthash_arg(r, shh) || need_rpc(r)) return -1;
    bk_mempool_tx *mt;
    size_t nm;
    if (mempool_of(r, shh, NULL, 0, &mt, &nm)) return -1;
    bk_json_begin_array(r->j);
    for (size_t i = 0; i < nm; i++) json_mempool_tx(r->j, &mt[i]);
    bk_json_end_array(r->j);
    free(mt);
    return 0;
}

static sub *find_sub(bk_electrum_session *s, const uint8_t shh[32])
{
    for (size_t i = 0; i < s->n_subs; i++)
        if (!memcmp(s->subs[i].sh, shh, 32)) return &s->subs[i];
    return NULL;
}

static int m_subscribe(req *r)
{
    uint8_t shh[32], status[32];
    int has;
    if (!scripthash_arg(r, shh)) return -1;
    bk_electrum_session *s = r->s;
    sub *sb = find_sub(s, shh);
    if (!sb && s->n_subs >= s->sh->o.limits.max_subs)
        return fail(r, RPC_LIMIT, "more than %u subscriptions (max_subs)", s->sh->o.limits.max_subs);
    if (history_status(r, shh, status, &has)) return -1;
    if (!sb) {
        if (s->n_subs == s->subs_cap) {
            size_t cap = s->subs_cap ? s->subs_cap * 2 : 8;
            sub *ns = bk_realloc(s->sh->alloc, s->subs, s->subs_cap * sizeof *ns, cap * sizeof *ns);
            if (!ns) return fail(r, RPC_INTERNAL, "out of memory for a subscription");
            s->subs = ns;
            s->subs_cap = cap;
        }
        sb = &s->subs[s->n_subs++];
        memcpy(sb->sh, shh, 32);
    }
    memcpy(sb->status, status, 32);
    sb->has = has;
    json_status(r->j, status, has);
    return 0;
}

static int m_unsubscribe(req *r)
{
    uint8_t shh[32];
    if (want_params(r, 1, 1) || param_hash(r, 0, shh, "scripthash")) return -1;
    sub *sb = find_sub(r->s, shh);
    if (sb) *sb = r->s->subs[--r->s->n_subs];
    bk_json_bool(r->j, sb != NULL);
    return 0;
}

/* ---- transactions ---- */

static int m_tx_get(req *r)
{
    bk_addrindex *ix = need_index(r);
    uint8_t txid[32];
    int verbose;
    if (!ix || want_params(r, 1, 2) || param_hash(r, 0, txid, "tx_hash") || param_bool(r, 1, &verbose)) return -1;
    uint8_t *raw = NULL;
    size_t len = 0;
    int64_t height;
    bk_error e;
    if (bk_addrindex_tx_raw(ix, r->s->sh->o.blocks, txid, &raw, &len, &height, &e) != BK_OK) return fail_err(r, &e);
    int rc = 0;
    if (!verbose) {
        bk_json_hex(r->j, raw, len);
    } else {
        /* Core's getrawtransaction verbose=1 for a confirmed tx (txindex):
         * TxToUniv, then blockhash, confirmations, time, blocktime. */
        bk_tx tx;
        uint8_t hdr[80];
        bk_tx_json_opts to;
        bk_tx_json_opts_init(&to);
        to.network = r->s->sh->o.net;
        to.txid = txid;
        if (bk_tx_parse(raw, len, &tx, NULL, &e) != BK_OK || bk_addrindex_header(ix, height, hdr, &e) != BK_OK) {
            rc = fail_err(r, &e);
        } else {
            bk_json *j = r->j;
            bk_writer tmp;
            bk_writer_init(&tmp, NULL);
            bk_json tj;
            bk_json_init(&tj, &tmp, 0);
            if (bk_json_tx(&tj, &tx, &to, NULL, &e) != BK_OK) {
                rc = fail_err(r, &e);
            } else if (tmp.len < 2 || bk_writer_status(&tmp) != BK_OK) {
                rc = fail(r, RPC_INTERNAL, "transaction JSON");
            } else {
                /* Drop the closing brace and append the block fields. */
                bk_json_raw(j, (const char *)tmp.data, tmp.len - 1);
                bk_writer *w = bk_json_writer(j);
                uint8_t bh[32];
                bk_sha256d(bh, hdr, 80);
                char hex[65];
                bk_writer_puts(w, ",\"blockhash\":\"");
                bk_writer_puts(w, bk_hash_to_hex(hex, bh));
                pthread_rwlock_rdlock(&r->s->sh->lock);
                int32_t tip = r->s->sh->tip;
                pthread_rwlock_unlock(&r->s->sh->lock);
                uint32_t t = (uint32_t)hdr[68] | (uint32_t)hdr[69] << 8 | (uint32_t)hdr[70] << 16 |
                             (uint32_t)hdr[71] << 24;
                char tail[128];
                snprintf(tail, sizeof tail, "\",\"confirmations\":%lld,\"time\":%u,\"blocktime\":%u}",
                         (long long)(tip - height + 1), t, t);
                bk_writer_puts(w, tail);
            }
            bk_writer_free(&tmp);
        }
    }
    bk_addrindex_free(ix, raw);
    return rc;
}

static void json_branch(bk_json *j, uint8_t br[32][32], size_t n)
{
    bk_json_begin_array(j);
    for (size_t i = 0; i < n; i++) bk_json_hex_rev(j, br[i], 32);
    bk_json_end_array(j);
}

static int m_get_merkle(req *r)
{
    bk_addrindex *ix = need_index(r);
    uint8_t txid[32], got[32], br[32][32];
    int64_t h;
    if (!ix || want_params(r, 2, 2) || param_hash(r, 0, txid, "tx_hash") ||
        param_int(r, 1, 0, INT32_MAX, 0, &h, "height"))
        return -1;
    int64_t at;
    uint32_t pos;
    size_t n;
    bk_error e;
    if (bk_addrindex_tx_locate(ix, txid, &at, &pos, &e) != BK_OK) return fail_err(r, &e);
    if (at != h)
        return fail(r, RPC_INVALID_PARAMS, "the transaction is in block %lld, not %lld", (long long)at, (long long)h);
    if (bk_addrindex_merkle(ix, at, pos, got, br, &n, &e) != BK_OK) return fail_err(r, &e);
    bk_json *j = r->j;
    bk_json_begin_object(j);
    BK_JSON_KEY(j, "block_height");
    bk_json_int(j, at);
    BK_JSON_KEY(j, "merkle");
    json_branch(j, br, n);
    BK_JSON_KEY(j, "pos");
    bk_json_uint(j, pos);
    bk_json_end_object(j);
    return 0;
}

static int m_id_from_pos(req *r)
{
    bk_addrindex *ix = need_index(r);
    int64_t h, pos;
    int merkle;
    uint8_t txid[32], br[32][32];
    size_t n;
    bk_error e;
    if (!ix || want_params(r, 2, 3) || param_int(r, 0, 0, INT32_MAX, 0, &h, "height") ||
        param_int(r, 1, 0, UINT32_MAX, 0, &pos, "tx_pos") || param_bool(r, 2, &merkle))
        return -1;
    if (bk_addrindex_merkle(ix, (int32_t)h, (uint32_t)pos, txid, br, &n, &e) != BK_OK) return fail_err(r, &e);
    if (!merkle) {
        bk_json_hex_rev(r->j, txid, 32);
        return 0;
    }
    bk_json_begin_object(r->j);
    BK_JSON_KEY(r->j, "tx_hash");
    bk_json_hex_rev(r->j, txid, 32);
    BK_JSON_KEY(r->j, "merkle");
    json_branch(r->j, br, n);
    bk_json_end_object(r->j);
    return 0;
}

/* ---- through the node ---- */

static int node_call(req *r, const char *method, const char *params, bk_jsondoc *d)
{
    char *res = NULL;
    size_t len = 0;
    bk_error e;
    bk_electrum_shared *sh = r->s->sh;
    if (bk_node_rpc_call(sh->o.rpc_url, sh->o.rpc_auth, method, params, &res, &len, &e) != BK_OK)
        return fail(r, e.status == BK_ERR_INVALID ? RPC_NODE : RPC_UNAVAILABLE, "node: %s", e.msg);
    bk_status st = bk_jsondoc_parse(d, res, len, NULL, &e);
    if (st != BK_OK) {
        free(res);
        return fail(r, RPC_NODE, "node: %s", e.msg);
    }
    /* d->src points into res: keep it until the caller frees d. */
    d->src = res;
    return 0;
}

static void node_done(bk_jsondoc *d)
{
    free((void *)d->src);
    bk_jsondoc_free(d);
}

static int m_estimatefee(req *r)
{
    int64_t n;
    if (want_params(r, 1, 2) || param_int(r, 0, 1, 1008, 0, &n, "number")) return -1;
    if (!r->s->sh->o.rpc_url) {
        /* No node to ask: the protocol's "no estimate" (an error would make
         * Electrum drop the connection). */
        bk_json_int(r->j, -1);
        return 0;
    }
    char params[32];
    snprintf(params, sizeof params, "[%lld]", (long long)n);
    bk_jsondoc d;
    if (node_call(r, "estimatesmartfee", params, &d)) return -1;
    const bk_jsonv *fr = bk_jsonv_get(&d, &d.v[0], "feerate");
    if (fr && fr->type == BK_JSONV_NUMBER) bk_json_raw(r->j, d.src + fr->str, fr->n);
    else bk_json_int(r->j, -1);
    node_done(&d);
    return 0;
}

static int m_relayfee(req *r)
{
    if (want_params(r, 0, 0)) return -1;
    if (!r->s->sh->o.rpc_url) {
        /* No node to ask: Core's default -minrelaytxfee (BTC/kvB). */
        bk_json_raw(r->j, BK_ELECTRUM_DEFAULT_RELAYFEE, strlen(BK_ELECTRUM_DEFAULT_RELAYFEE));
        return 0;
    }
    bk_jsondoc d;
    if (node_call(r, "getnetworkinfo", "[]", &d)) return -1;
    const bk_jsonv *fr = bk_jsonv_get(&d, &d.v[0], "relayfee");
    int rc = 0;
    if (fr && fr->type == BK_JSONV_NUMBER) bk_json_raw(r->j, d.src + fr->str, fr->n);
    else rc = fail(r, RPC_NODE, "node: getnetworkinfo has no relayfee");
    node_done(&d);
    return rc;
}

static int m_broadcast(req *r)
{
    const bk_jsonv *v = param(r, 0);
    if (want_params(r, 1, 1)) return -1;
    if (!v || v->type != BK_JSONV_STRING || !v->n || (v->n & 1))
        return fail(r, RPC_INVALID_PARAMS, "raw_tx: hex text expected");
    const char *hex = bk_jsonv_str(r->d, v);
    for (uint32_t i = 0; i < v->n; i++)
        if (bk_hex_digit(hex[i]) < 0) return fail(r, RPC_INVALID_PARAMS, "raw_tx: hex text expected");
    if (need_rpc(r)) return -1;
    size_t plen = (size_t)v->n + 8;
    char *params = malloc(plen);
    if (!params) return fail(r, RPC_INTERNAL, "out of memory");
    snprintf(params, plen, "[\"%s\"]", hex);
    bk_jsondoc d;
    int rc = node_call(r, "sendrawtransaction", params, &d);
    free(params);
    if (rc) return -1;
    if (d.v[0].type == BK_JSONV_STRING) bk_json_string(r->j, bk_jsonv_str(&d, &d.v[0]));
    else rc = fail(r, RPC_NODE, "node: sendrawtransaction did not answer a txid");
    node_done(&d);
    return rc;
}

/* Which methods the event loop may answer itself (bk_electrum_session_fast):
 * never one that reads the index or the node, unless its scripthash's
 * answer is kept (answer_cache.h) or its view is in the index's memory. */
enum { SLOW, FAST, FAST_IF_CACHED };
#define FAST_VIEW_MAX 1000      /* transactions or coins of a view the loop answers itself */

#define FAST_ANSWER_MAX (256u * 1024)   /* bytes of a kept answer the loop copies itself */

typedef struct rpc_method {
    const char *name;
    int (*fn)(req *r);
    int fast;
    int answer;                 /* FAST_IF_CACHED: the kind of its kept answer */
} rpc_method;

static const rpc_method *find_method(const char *name, size_t n);

static const rpc_method methods[] = {
    {"server.version", m_server_version, SLOW, ANSWER_NONE},
    {"server.banner", m_server_banner, FAST, ANSWER_NONE},
    {"server.features", m_server_features, FAST, ANSWER_NONE},
    {"server.ping", m_null, FAST, ANSWER_NONE},
    {"server.donation_address", m_empty_string, FAST, ANSWER_NONE},
    {"server.peers.subscribe", m_empty_list, FAST, ANSWER_NONE},
    {"blockchain.headers.subscribe", m_headers_subscribe, SLOW, ANSWER_NONE},
    {"blockchain.block.header", m_block_header, SLOW, ANSWER_NONE},
    {"blockchain.block.headers", m_block_headers, SLOW, ANSWER_NONE},
    {"blockchain.scripthash.get_history", m_get_history, FAST_IF_CACHED, ANSWER_HISTORY},
    {"blockchain.scripthash.get_balance", m_get_balance, FAST_IF_CACHED, ANSWER_BALANCE},
    {"blockchain.scripthash.listunspent", m_listunspent, FAST_IF_CACHED, ANSWER_UNSPENT},
    {"blockchain.scripthash.get_mempool", m_get_mempool, SLOW, ANSWER_NONE},
    {"blockchain.scripthash.subscribe", m_subscribe, SLOW, ANSWER_NONE},
    {"blockchain.scripthash.unsubscribe", m_unsubscribe, SLOW, ANSWER_NONE},
    {"blockchain.transaction.get", m_tx_get, SLOW, ANSWER_NONE},
    {"blockchain.transaction.get_merkle", m_get_merkle, SLOW, ANSWER_NONE},
    {"blockchain.transaction.id_from_pos", m_id_from_pos, SLOW, ANSWER_NONE},
    {"blockchain.estimatefee", m_estimatefee, SLOW, ANSWER_NONE},
    {"blockchain.relayfee", m_relayfee, SLOW, ANSWER_NONE},
    {"blockchain.transaction.broadcast", m_broadcast, SLOW, ANSWER_NONE},
    /* No fee histogram is kept: an empty one (a valid
     * answer; an error would make Electrum drop the connection). */
    {"mempool.get_fee_histogram", m_fee_histogram, SLOW, ANSWER_NONE},
};

static const rpc_method *find_method(const char *name, size_t n)
{
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        if (strlen(methods[i].name) == n && !memcmp(methods[i].name, name, n)) return &methods[i];
    return NULL;
}

static void write_error(bk_json *j, int code, const char *msg)
{
    BK_JSON_KEY(j, "error");
    bk_json_begin_object(j);
    BK_JSON_KEY(j, "code");
    bk_json_int(j, code);
    BK_JSON_KEY(j, "message");
    bk_json_string(j, msg);
    bk_json_end_object(j);
}

static void write_envelope_error(bk_json *j, const bk_jsondoc *d, const bk_jsonv *id, int code, const char *msg)
{
    bk_json_begin_object(j);
    BK_JSON_KEY(j, "jsonrpc");
    bk_json_string(j, "2.0");
    write_error(j, code, msg);
    BK_JSON_KEY(j, "id");
    if (id && id->type == BK_JSONV_NUMBER) bk_json_raw(j, d->src + id->str, id->n);
    else if (id && id->type == BK_JSONV_STRING) bk_json_string_n(j, bk_jsonv_str(d, id), id->n);
    else bk_json_null(j);
    bk_json_end_object(j);
}

/* One request object: 1 when an answer was written, 0 for a notification. */
static int one_request(bk_electrum_session *s, const bk_jsondoc *d, const bk_jsonv *rq, bk_json *j)
{
    if (rq->type != BK_JSONV_OBJECT) {
        write_envelope_error(j, d, NULL, RPC_INVALID_REQUEST, "a request must be a JSON object");
        return 1;
    }
    const bk_jsonv *id = bk_jsonv_get(d, rq, "id");
    const bk_jsonv *mv = bk_jsonv_get(d, rq, "method");
    const bk_jsonv *pv = bk_jsonv_get(d, rq, "params");
    if (id && id->type != BK_JSONV_NUMBER && id->type != BK_JSONV_STRING && id->type != BK_JSONV_NULL) {
        write_envelope_error(j, d, NULL, RPC_INVALID_REQUEST, "id must be a number, a string or null");
        return 1;
    }
    if (!mv || mv->type != BK_JSONV_STRING) {
        write_envelope_error(j, d, id, RPC_INVALID_REQUEST, "method must be a string");
        return 1;
    }
    if (pv && pv->type != BK_JSONV_ARRAY && pv->type != BK_JSONV_NULL) {
        /* Named parameters: electrumx accepts them; the methods here take positions. */
        write_envelope_error(j, d, id, RPC_INVALID_PARAMS, "params must be an array");
        return 1;
    }
    const char *name = bk_jsonv_str(d, mv);
    const rpc_method *m = find_method(name, mv->n);
    if (!m) {
        char msg[160];
        snprintf(msg, sizeof msg, "unknown method '%.100s'", name);
        if (!id) return 0;
        write_envelope_error(j, d, id, RPC_METHOD_NOT_FOUND, msg);
        return 1;
    }
    /* The answer is built in its own writer so a failing method leaves no
     * partial result. */
    bk_writer rw;
    bk_writer_init(&rw, s->sh->alloc);
    bk_json rj;
    bk_json_init(&rj, &rw, 0);
    req r = {s, d, pv && pv->type == BK_JSONV_ARRAY ? pv : NULL, &rj, 0, ""};
    int rc = m->fn(&r);
    if (!rc && bk_json_status(&rj) != BK_OK) rc = fail(&r, RPC_INTERNAL, "out of memory writing the answer");
    if (!id) {  /* a notification: no answer */
        bk_writer_free(&rw);
        return 0;
    }
    bk_json_begin_object(j);
    BK_JSON_KEY(j, "jsonrpc");
    bk_json_string(j, "2.0");
    if (rc) {
        write_error(j, r.code, r.msg);
    } else {
        BK_JSON_KEY(j, "result");
        bk_json_raw(j, (const char *)rw.data, rw.len);
    }
    BK_JSON_KEY(j, "id");
    if (id->type == BK_JSONV_NUMBER) bk_json_raw(j, d->src + id->str, id->n);
    else if (id->type == BK_JSONV_STRING) bk_json_string_n(j, bk_jsonv_str(d, id), id->n);
    else bk_json_null(j);
    bk_json_end_object(j);
    bk_writer_free(&rw);
    return 1;
}

bk_status bk_electrum_session_line(bk_electrum_session *s, const char *line, size_t len, bk_writer *out,
                                   bk_error *err)
{
    bk_jsondoc d;
    bk_error pe;
    size_t start = out->len;
    bk_json j;
    bk_json_init(&j, out, 0);
    while (len && (line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t')) len--;
    if (!len) return BK_OK;   /* blank lines are keep-alives */
    if (bk_jsondoc_parse(&d, line, len, s->sh->alloc, &pe) != BK_OK) {
        if (pe.status == BK_ERR_NOMEM) return bk_error_set(err, BK_ERR_NOMEM, 0, "%s", pe.msg);
        char msg[BK_ERROR_MSG_MAX + 16];
        snprintf(msg, sizeof msg, "parse error: %s", pe.msg);
        write_envelope_error(&j, NULL, NULL, RPC_PARSE_ERROR, msg);
    } else if (d.v[0].type == BK_JSONV_ARRAY) {
        const bk_jsonv *b = &d.v[0];
        uint32_t maxb = s->sh->o.limits.max_batch;
        if (!b->n) {
            write_envelope_error(&j, &d, NULL, RPC_INVALID_REQUEST, "empty batch");
        } else if (b->n > maxb) {
            char msg[128];
            snprintf(msg, sizeof msg, "batch of %u requests exceeds %u (max_batch)", b->n, maxb);
            write_envelope_error(&j, &d, NULL, RPC_INVALID_REQUEST, msg);
        } else {
            int any = 0;
            bk_json_begin_array(&j);
            for (uint32_t k = b->first; k; k = d.v[k].next) any |= one_request(s, &d, &d.v[k], &j);
            bk_json_end_array(&j);
            if (!any) out->len = start;   /* notifications only: nothing */
        }
        bk_jsondoc_free(&d);
    } else {
        one_request(s, &d, &d.v[0], &j);
        bk_jsondoc_free(&d);
    }
    if (out->len == start) return BK_OK;
    bk_writer_putc(out, '\n');
    if (bk_writer_status(out) != BK_OK) return bk_error_set(err, BK_ERR_NOMEM, 0, "electrum: answer");
    return BK_OK;
}

int bk_electrum_session_fast(bk_electrum_session *s, const char *line, size_t len, bk_writer *out)
{
    bk_jsondoc d;
    bk_error e;
    if (bk_jsondoc_parse(&d, line, len, s->sh->alloc, &e) != BK_OK) return 0;   /* the worker says why */
    const bk_jsonv *rq = &d.v[0];
    const bk_jsonv *mv = rq->type == BK_JSONV_OBJECT ? bk_jsonv_get(&d, rq, "method") : NULL;
    const rpc_method *m = mv && mv->type == BK_JSONV_STRING ? find_method(bk_jsonv_str(&d, mv), mv->n) : NULL;
    int fast = m ? m->fast : SLOW;
    if (fast == FAST_IF_CACHED) {
        const bk_jsonv *pv = bk_jsonv_get(&d, rq, "params");
        req r = {s, &d, pv && pv->type == BK_JSONV_ARRAY ? pv : NULL, NULL, 0, ""};
        uint8_t shh[32];
        /* A hint: the view may leave the cache before the answer reads it,
         * and that one query then reads the index here. Only small views:
         * a long history's answer is rendered by a worker, so no client
         * holds the loop for long (and one over max_history, which the
         * query refuses after reading the index, never comes here). */
        size_t most = s->sh->o.limits.max_history && s->sh->o.limits.max_history < FAST_VIEW_MAX
                          ? s->sh->o.limits.max_history : FAST_VIEW_MAX;
        if (!s->sh->o.ix || n_params(&r) != 1 || param_hash(&r, 0, shh, "scripthash")) {
            fast = SLOW;
        } else {
            size_t kept = bk_answer_cache_len(&s->sh->answers, m->answer, shh);
            if (kept ? kept > FAST_ANSWER_MAX : !bk_addrindex_cached(s->sh->o.ix, shh, most)) fast = SLOW;
        }
    }
    bk_jsondoc_free(&d);
    if (fast == SLOW) return 0;
    size_t start = out->len;
    if (bk_electrum_session_line(s, line, len, out, &e) != BK_OK) {
        out->len = start;   /* out of memory: the worker tries, and closes the connection if it fails too */
        return 0;
    }
    return 1;
}

static void notify_open(bk_json *j, const char *name)
{
    bk_json_begin_object(j);
    BK_JSON_KEY(j, "jsonrpc");
    bk_json_string(j, "2.0");
    BK_JSON_KEY(j, "method");
    bk_json_string(j, name);
    BK_JSON_KEY(j, "params");
    bk_json_begin_array(j);
}

bk_status bk_electrum_session_notify(bk_electrum_session *s, bk_writer *out, bk_error *err)
{
    req r = {s, NULL, NULL, NULL, 0, ""};
    if (!s->sh->o.ix) return BK_OK;
    pthread_rwlock_rdlock(&s->sh->lock);
    int32_t tip = s->sh->tip;
    pthread_rwlock_unlock(&s->sh->lock);
    if (s->headers_sub && tip != s->headers_sent && tip >= 0) {
        size_t at = out->len;
        bk_json j;
        bk_json_init(&j, out, 0);
        notify_open(&j, "blockchain.headers.subscribe");
        if (write_tip(&r, &j)) {
            out->len = at;
        } else {
            bk_json_end_array(&j);
            bk_json_end_object(&j);
            bk_writer_putc(out, '\n');
        }
    }
    for (size_t i = 0; i < s->n_subs; i++) {
        uint8_t status[32];
        int has;
        sub *sb = &s->subs[i];
        if (history_status(&r, sb->sh, status, &has)) continue;   /* over max_history: no notification */
        if (has == sb->has && (!has || !memcmp(status, sb->status, 32))) continue;
        memcpy(sb->status, status, 32);
        sb->has = has;
        bk_json j;
        bk_json_init(&j, out, 0);
        notify_open(&j, "blockchain.scripthash.subscribe");
        bk_json_hex_rev(&j, sb->sh, 32);
        json_status(&j, status, has);
        bk_json_end_array(&j);
        bk_json_end_object(&j);
        bk_writer_putc(out, '\n');
    }
    if (bk_writer_status(out) != BK_OK) return bk_error_set(err, BK_ERR_NOMEM, 0, "electrum: notification");
    return BK_OK;
}
