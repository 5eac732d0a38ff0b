/* Core's UTXO snapshot files (dumptxoutset), format version 2, streamed.
 *
 * Core: node/utxo_snapshot.h SnapshotMetadata (magic "utxo\xff", uint16
 * version, message start, base block hash, uint64 coin count), rpc/
 * blockchain.cpp WriteUTXOSnapshot (coins grouped by txid: txid,
 * CompactSize count, per coin CompactSize vout + Coin), validation.cpp
 * PopulateAndValidateSnapshot (the checks repeated here: a group's count
 * over the coins left, heights over the base, amounts outside MoneyRange,
 * and "coins left over" when a byte follows the last coin). */
#include <blockkit/utxo_snapshot.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>

#define SNAP_BUF (1u << 20)
/* Room for a whole coin record when its script is not oversized: vout
 * CompactSize (9) + code VARINT (10) + amount VARINT (10) + nSize VARINT
 * (10) + a raw script of at most 10000 bytes, plus a group header. */
#define SNAP_NEED (32 + 9 + 9 + 10 + 10 + 10 + 10000)
#define MAX_RAW_SCRIPT 10000u

static const uint8_t SNAPSHOT_MAGIC[5] = {'u', 't', 'x', 'o', 0xff};

struct bk_utxo_snapshot {
    const bk_allocator *alloc;
    bk_read_fn read;
    void *ctx;
    uint8_t *buf;
    size_t len;            /* bytes in buf */
    size_t pos;            /* next unread byte in buf */
    uint64_t base;         /* file offset of buf[0] */
    int eof;
    bk_utxo_snapshot_meta meta;
    uint64_t coins_left;   /* per the metadata */
    uint64_t group_left;   /* coins left in the current txid group */
    uint8_t txid[32];
    uint64_t coins_read;
    uint32_t max_height;
    int have_max_height;
    int done;
    bk_error err;          /* status BK_OK until the first fault */
};

static bk_status snap_fail(bk_utxo_snapshot *s, bk_status st, uint64_t off, const char *msg)
{
    if (s->err.status == BK_OK) bk_error_set(&s->err, st, off, "%s", msg);
    return s->err.status;
}

/* Make at least `need` unread bytes available, unless the input ends. */
static bk_status fill(bk_utxo_snapshot *s, size_t need)
{
    if (s->len - s->pos >= need || s->eof) return BK_OK;
    if (s->pos) {
        memmove(s->buf, s->buf + s->pos, s->len - s->pos);
        s->base += s->pos;
        s->len -= s->pos;
        s->pos = 0;
    }
    while (s->len < need && !s->eof) {
        size_t got = 0;
        errno = 0;
        if (s->read(s->ctx, s->buf + s->len, SNAP_BUF - s->len, &got) != 0) {
            /* the readers here fail with errno set; a caller's may not */
            const char *why = errno ? strerror(errno) : "the read function failed";
            if (s->err.status == BK_OK) bk_error_set(&s->err, BK_ERR_IO, s->base + s->len, "read error: %s", why);
            return s->err.status;
        }
        if (got == 0) s->eof = 1;
        s->len += got;
    }
    return BK_OK;
}

/* Skip n bytes (an oversized script Core ignores). */
static bk_status skip(bk_utxo_snapshot *s, uint64_t n, uint64_t at)
{
    while (n) {
        if (s->pos == s->len) {
            if (fill(s, 1) != BK_OK) return s->err.status;
            if (s->pos == s->len) return snap_fail(s, BK_ERR_TRUNCATED, at, "snapshot ends inside a script");
        }
        size_t k = s->len - s->pos;
        if (k > n) k = (size_t)n;
        s->pos += k;
        n -= k;
    }
    return BK_OK;
}

static int fd_read(void *ctx, uint8_t *buf, size_t cap, size_t *got)
{
    int fd = *(int *)ctx;
    for (;;) {
        ssize_t n = read(fd, buf, cap);
        if (n >= 0) {
            *got = (size_t)n;
            return 0;
        }
        if (errno != EINTR) return -1;
    }
}

static int file_read(void *ctx, uint8_t *buf, size_t cap, size_t *got)
{
    FILE *f = ctx;
    size_t n = fread(buf, 1, cap, f);
    *got = n;
    return (n == 0 && ferror(f)) ? -1 : 0;
}

typedef struct fd_ctx {
    int fd;
} fd_ctx;

bk_status bk_utxo_snapshot_open(bk_utxo_snapshot **out, bk_read_fn read, void *ctx, const bk_allocator *alloc,
                                bk_error *err)
{
    if (!out || !read) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    *out = NULL;
    bk_utxo_snapshot *s = bk_alloc(alloc, sizeof *s + sizeof(fd_ctx));
    if (!s) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    memset(s, 0, sizeof *s);
    s->alloc = alloc;
    s->read = read;
    s->ctx = ctx;
    s->buf = bk_alloc(alloc, SNAP_BUF);
    if (!s->buf) {
        bk_free(alloc, s, sizeof *s + sizeof(fd_ctx));
        return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    }
    bk_status st = fill(s, BK_UTXO_SNAPSHOT_HEADER_SIZE);
    if (st == BK_OK) {
        const uint8_t *p = s->buf;
        size_t n = s->len;
        if (n < sizeof SNAPSHOT_MAGIC || memcmp(p, SNAPSHOT_MAGIC, sizeof SNAPSHOT_MAGIC) != 0) {
            if (n < sizeof SNAPSHOT_MAGIC && memcmp(p, SNAPSHOT_MAGIC, n) == 0)
                snap_fail(s, BK_ERR_TRUNCATED, n, "snapshot ends inside its metadata");
            else
                snap_fail(s, BK_ERR_INVALID, 0, "not a UTXO snapshot (magic is not \"utxo\\xff\")");
        } else if (n < 7) {
            snap_fail(s, BK_ERR_TRUNCATED, n, "snapshot ends inside its metadata");
        } else {
            s->meta.version = bk_load_le16(p + 5);
            if (s->meta.version != BK_UTXO_SNAPSHOT_VERSION) {
                /* A property of the file, not of the request: bad data. */
                bk_error_set(&s->err, BK_ERR_INVALID, 5,
                             "snapshot format version %u is not one blockkit reads (version 2, the one Core writes)",
                             s->meta.version);
            } else if (n < BK_UTXO_SNAPSHOT_HEADER_SIZE) {
                snap_fail(s, BK_ERR_TRUNCATED, n, "snapshot ends inside its metadata");
            } else {
                memcpy(s->meta.magic, p + 7, 4);
                s->meta.net = BK_NET_COUNT_;
                for (int i = 0; i < BK_NET_COUNT_; i++) {
                    const bk_network_params *np = bk_network_get((bk_network)i);
                    if (np && memcmp(np->magic, s->meta.magic, 4) == 0) {
                        s->meta.net = (bk_network)i;
                        break;
                    }
                }
                if (s->meta.net == BK_NET_COUNT_) {
                    bk_error_set(&s->err, BK_ERR_MAGIC, 7, "network magic %02x%02x%02x%02x of no known network",
                                 p[7], p[8], p[9], p[10]);
                } else {
                    memcpy(s->meta.base_hash, p + 11, 32);
                    s->meta.coin_count = bk_load_le64(p + 43);
                    s->coins_left = s->meta.coin_count;
                    s->pos = BK_UTXO_SNAPSHOT_HEADER_SIZE;
                }
            }
        }
    }
    if (s->err.status != BK_OK) {
        if (err) *err = s->err;
        bk_status ret = s->err.status;
        bk_utxo_snapshot_close(s);
        return ret;
    }
    *out = s;
    return BK_OK;
}

bk_status bk_utxo_snapshot_open_fd(bk_utxo_snapshot **out, int fd, const bk_allocator *alloc, bk_error *err)
{
    /* The descriptor lives in the allocation right after the struct. */
    fd_ctx tmp = {fd};
    bk_status st = bk_utxo_snapshot_open(out, fd_read, &tmp, alloc, err);
    if (st != BK_OK) return st;
    fd_ctx *c = (fd_ctx *)(void *)((*out) + 1);
    c->fd = fd;
    (*out)->ctx = c;
    return BK_OK;
}

bk_status bk_utxo_snapshot_open_file(bk_utxo_snapshot **out, FILE *f, const bk_allocator *alloc, bk_error *err)
{
    if (!f) return bk_error_set(err, BK_ERR_ARG, 0, "NULL FILE");
    return bk_utxo_snapshot_open(out, file_read, f, alloc, err);
}

const bk_utxo_snapshot_meta *bk_utxo_snapshot_meta_get(const bk_utxo_snapshot *s) { return &s->meta; }

void bk_utxo_snapshot_set_base_height(bk_utxo_snapshot *s, uint32_t height)
{
    s->max_height = height;
    s->have_max_height = 1;
}

/* Copy the reader's fault into s, as a file offset. */
static bk_status reader_fault(bk_utxo_snapshot *s, const bk_reader *r)
{
    bk_error e;
    bk_reader_error(r, &e);
    if (s->err.status == BK_OK) {
        s->err = e;
        s->err.offset = s->base + s->pos + (uint64_t)r->err_pos;
        if (e.status == BK_ERR_TRUNCATED && s->eof) {
            bk_error_set(&s->err, BK_ERR_TRUNCATED, s->base + s->len,
                         "snapshot ends after %llu of %llu coins",
                         (unsigned long long)s->coins_read, (unsigned long long)s->meta.coin_count);
        }
    }
    return s->err.status;
}

int bk_utxo_snapshot_next(bk_utxo_snapshot *s, bk_utxo *u)
{
    if (s->err.status != BK_OK || s->done) return 0;
    for (;;) {
        if (s->coins_left == 0) {
            /* Core: "Bad snapshot - coins left over" when any byte follows. */
            if (fill(s, 1) != BK_OK) return 0;
            if (s->len > s->pos) {
                bk_error_set(&s->err, BK_ERR_TRAILING, s->base + s->pos,
                             "coins left over after the %llu coins of the metadata",
                             (unsigned long long)s->meta.coin_count);
                return 0;
            }
            s->done = 1;
            return 0;
        }
        if (fill(s, SNAP_NEED) != BK_OK) return 0;
        bk_reader r;
        bk_reader_init(&r, s->buf + s->pos, s->len - s->pos);
        if (s->group_left == 0) {
            const uint8_t *t = bk_read_span(&r, 32);
            size_t count_pos = r.pos;
            uint64_t n = bk_read_compact_size(&r, 1);
            if (!bk_reader_ok(&r)) {
                reader_fault(s, &r);
                return 0;
            }
            if (n > s->coins_left) {
                bk_error_set(&s->err, BK_ERR_COUNT, s->base + s->pos + count_pos,
                             "txid group of %llu coins exceeds the %llu coins left (Mismatch in coins count "
                             "in snapshot metadata and actual snapshot data)",
                             (unsigned long long)n, (unsigned long long)s->coins_left);
                return 0;
            }
            memcpy(s->txid, t, 32);
            s->group_left = n;
            s->pos += r.pos;
            if (n == 0) continue; /* an empty group: Core reads on */
            bk_reader_init(&r, s->buf + s->pos, s->len - s->pos);
        }
        size_t coin_start = s->pos;
        uint64_t coin_off = s->base + coin_start; /* skip() below may move the buffer */
        uint64_t vout = bk_read_compact_size(&r, 1);
        /* Scan the coin's head first: an oversized script (Core skips its
         * bytes) may be larger than the buffer. */
        bk_reader h = r;
        uint64_t code = bk_read_varint(&h);
        (void)bk_read_varint(&h);
        size_t nsize_pos = h.pos;
        uint64_t nsize = bk_read_varint(&h);
        if (!bk_reader_ok(&h)) {
            reader_fault(s, &h);
            return 0;
        }
        if (nsize >= 6 && nsize - 6 > MAX_RAW_SCRIPT && nsize <= UINT32_MAX && code <= UINT32_MAX) {
            /* Core: ScriptCompression::Unser replaces it by OP_RETURN. */
            bk_reader_init(&r, s->buf + s->pos, s->len - s->pos);
            (void)bk_read_compact_size(&r, 1);
            code = bk_read_varint(&r);
            uint64_t amount = bk_read_varint(&r);
            (void)bk_read_varint(&r);
            s->pos += r.pos;
            if (skip(s, nsize - 6, coin_off + nsize_pos) != BK_OK) return 0;
            u->coin.height = (uint32_t)(code >> 1);
            u->coin.coinbase = (uint8_t)(code & 1);
            u->coin.value = (int64_t)bk_amount_decompress(amount);
            u->coin.raw_script = NULL;
            u->coin.script_buf[0] = 0x6a;
            u->coin.script_len = 1;
        } else {
            if (bk_coin_read_txout(&r, &u->coin) != BK_OK) {
                reader_fault(s, &r);
                return 0;
            }
            s->pos += r.pos;
        }
        if (!bk_money_range(u->coin.value)) {
            bk_error_set(&s->err, BK_ERR_VALUE, coin_off,
                         "bad tx out value after %llu coins (outside MoneyRange)",
                         (unsigned long long)s->coins_read);
            return 0;
        }
        if (s->have_max_height && u->coin.height > s->max_height) {
            bk_error_set(&s->err, BK_ERR_VALUE, coin_off,
                         "coin height %u above the base block's height %u (bad snapshot data after %llu coins)",
                         u->coin.height, s->max_height, (unsigned long long)s->coins_read);
            return 0;
        }
        memcpy(u->txid, s->txid, 32);
        u->vout = (uint32_t)vout;
        s->group_left--;
        s->coins_left--;
        s->coins_read++;
        return 1;
    }
}

bk_status bk_utxo_snapshot_status(const bk_utxo_snapshot *s, bk_error *err)
{
    if (err) *err = s->err;
    return s->err.status;
}

uint64_t bk_utxo_snapshot_coins_read(const bk_utxo_snapshot *s) { return s->coins_read; }
uint64_t bk_utxo_snapshot_offset(const bk_utxo_snapshot *s) { return s->base + s->pos; }

void bk_utxo_snapshot_close(bk_utxo_snapshot *s)
{
    if (!s) return;
    const bk_allocator *a = s->alloc;
    bk_free(a, s->buf, SNAP_BUF);
    bk_free(a, s, sizeof *s + sizeof(fd_ctx));
}
