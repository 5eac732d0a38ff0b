/* blockkit utxo: the UTXO set of a Bitcoin Core node without the node -
 * its chainstate (--datadir) or a dumptxoutset snapshot (--utxo-snapshot).
 *   utxo stats: gettxoutsetinfo's result, byte for byte;
 *   utxo dump:  one row per coin (CSV or NDJSON) in key order. */
#include "cli.h"

#include <blockkit/hex.h>
#include <blockkit/script.h>
#include <blockkit/table.h>
#include <blockkit/utxo.h>

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const utxo_usage =
    "usage: blockkit utxo stats (--datadir DIR | --utxo-snapshot FILE) [options]\n"
    "       blockkit utxo dump  (--datadir DIR | --utxo-snapshot FILE) [--format csv|ndjson|parquet] [-o FILE]\n"
    "\n"
    "stats: print Bitcoin Core's gettxoutsetinfo result (compact JSON, one line):\n"
    "  height, bestblock, txouts, bogosize, hash_serialized_3 | muhash, total_amount,\n"
    "  transactions, disk_size.\n"
    "dump: one row per unspent output in key order (txid bytes, then vout):\n"
    "  txid, vout, value (satoshis), height, is_coinbase, script_hex, type, address, desc\n"
    "  (type, address and desc as Core prints them in scriptPubKey).\n"
    "\n"
    "  --datadir DIR         the node's data directory: reads DIR[/<chain>]/chainstate through a\n"
    "                        private LevelDB snapshot (never writes or locks the node's files;\n"
    "                        works while bitcoind runs); the height comes from its block index\n"
    "  --chain NAME          main (default), test|testnet3, testnet4, signet, regtest\n"
    "                        (with --utxo-snapshot: the snapshot's own network)\n"
    "  --utxo-snapshot FILE  a dumptxoutset file (format version 2); '-' = standard input.\n"
    "                        The snapshot holds no height: give --datadir (the block index of a\n"
    "                        node that knows the base block) or --height N\n"
    "  --height N            the height of the snapshot's base block (or of the chainstate's\n"
    "                        best block: then the block index is not read)\n"
    "  --hash-type T         stats: hash_serialized_3 (default), muhash, none\n"
    "  --threads N           stats muhash: multiply on N threads; dump: render rows on N threads\n"
    "                        (written in key order); default: the online CPUs\n"
    "  --format F            dump: csv (default, with a header line), ndjson, or parquet\n"
    "                        (one file, row groups of about 64 MiB; --codec zstd|snappy|none)\n"
    "  -o FILE               dump: write to FILE instead of standard output\n"
    "  --tmpdir DIR          where the private LevelDB snapshots are made (default $TMPDIR, /tmp)\n"
    "\n"
    "disk_size: with --datadir, LevelDB's approximate size of the coin key range, as Core\n"
    "computes it (it changes as the node compacts); with --utxo-snapshot, the number of bytes\n"
    "of the snapshot file.\n"
    "Exit codes: 0 ok, 64 usage, 65 bad data, 66 missing input, 74 I/O.\n";

typedef struct utxo_opts {
    const char *datadir, *snapshot, *chain, *hash_type, *format, *out_file, *tmpdir, *height, *threads, *codec;
} utxo_opts;

/* A stream of coins from either source. */
typedef struct coin_source {
    bk_utxo_snapshot *snap;
    FILE *snap_file;
    bk_chainstate *cs;
    bk_chainstate_iter *it;
    bk_network net;
    uint8_t best[32];
    int32_t height;
    uint64_t disk_size;
} coin_source;

static const char *const chain_subdir[BK_NET_COUNT_] = {
    [BK_NET_MAIN] = "", [BK_NET_TESTNET3] = "testnet3/", [BK_NET_TESTNET4] = "testnet4/",
    [BK_NET_SIGNET] = "signet/", [BK_NET_REGTEST] = "regtest/"};

static char *join(const char *datadir, bk_network net, const char *leaf)
{
    size_t cap = strlen(datadir) + strlen(leaf) + 32;
    char *p = malloc(cap);
    if (p) snprintf(p, cap, "%s/%s%s", datadir, chain_subdir[net], leaf);
    return p;
}

static int height_from_index(const char *cmd, const utxo_opts *o, bk_network net, const uint8_t hash[32],
                             int32_t *h)
{
    char *idx = join(o->datadir, net, "blocks/index");
    if (!idx) return bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
    struct stat sb;
    if (stat(idx, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        int rc = bk_cli_fail(cmd, BK_EXIT_NOINPUT, "no block index at %s to find the height: give --height N", idx);
        free(idx);
        return rc;
    }
    bk_error err;
    bk_error_clear(&err);
    bk_status st = bk_block_index_height(idx, o->tmpdir, hash, h, &err);
    if (st == BK_ERR_NOT_FOUND) {
        char hex[65];
        bk_hex_encode_rev(hex, hash, 32);
        hex[64] = 0;
        int rc = bk_cli_fail(cmd, BK_EXIT_DATA, "block %s is not in the block index %s", hex, idx);
        free(idx);
        return rc;
    }
    free(idx);
    if (st != BK_OK) return bk_cli_report(cmd, &err);
    return 0;
}

static int parse_height(const char *cmd, const char *text, int32_t *h)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (*text == 0 || *end || errno || v < 0 || v > INT32_MAX)
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "--height needs a block height, not '%s'", text);
    *h = (int32_t)v;
    return 0;
}

static void source_close(coin_source *s)
{
    bk_chainstate_iter_free(s->it);
    bk_chainstate_close(s->cs);
    bk_utxo_snapshot_close(s->snap);
    if (s->snap_file && s->snap_file != stdin) fclose(s->snap_file);
    memset(s, 0, sizeof *s);
}

static int source_open(const char *cmd, const utxo_opts *o, coin_source *s)
{
    memset(s, 0, sizeof *s);
    bk_error err;
    bk_error_clear(&err);
    bk_network net = BK_NET_MAIN;
    if (o->chain && bk_network_parse(o->chain, &net) != BK_OK)
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "unknown chain '%s'", o->chain);
    if (o->snapshot) {
        if (!strcmp(o->snapshot, "-")) {
            s->snap_file = stdin;
        } else {
            s->snap_file = fopen(o->snapshot, "rb");
            if (!s->snap_file)
                return bk_cli_fail(cmd, errno == ENOENT ? BK_EXIT_NOINPUT : BK_EXIT_IO, "cannot open %s: %s",
                                   o->snapshot, strerror(errno));
        }
        if (bk_utxo_snapshot_open_file(&s->snap, s->snap_file, NULL, &err) != BK_OK) {
            source_close(s);
            return bk_cli_report(cmd, &err);
        }
        const bk_utxo_snapshot_meta *m = bk_utxo_snapshot_meta_get(s->snap);
        if (o->chain && net != m->net) {
            const bk_network_params *a = bk_network_get(m->net), *b = bk_network_get(net);
            source_close(s);
            return bk_cli_fail(cmd, BK_EXIT_DATA,
                               "%s: the snapshot is for network %s (magic at byte 7), not %s", o->snapshot,
                               a->name, b->name);
        }
        s->net = m->net;
        memcpy(s->best, m->base_hash, 32);
        if (o->height) {
            int rc = parse_height(cmd, o->height, &s->height);
            if (rc) {
                source_close(s);
                return rc;
            }
        } else if (o->datadir) {
            int rc = height_from_index(cmd, o, s->net, s->best, &s->height);
            if (rc) {
                source_close(s);
                return rc;
            }
        } else {
            source_close(s);
            return bk_cli_fail(cmd, BK_EXIT_USAGE,
                               "a snapshot does not record its height: give --height N or --datadir DIR");
        }
        bk_utxo_snapshot_set_base_height(s->snap, (uint32_t)s->height);
        return 0;
    }
    if (!o->datadir) return bk_cli_fail(cmd, BK_EXIT_USAGE, "--datadir or --utxo-snapshot is required");
    s->net = net;
    char *dir = join(o->datadir, net, "chainstate");
    if (!dir) return bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
    bk_status st = bk_chainstate_open(dir, o->tmpdir, NULL, &s->cs, &err);
    if (st == BK_ERR_NOT_FOUND) {
        int rc = bk_cli_fail(cmd, BK_EXIT_NOINPUT, "no chainstate at %s (%s)%s", dir, err.msg,
                             o->chain ? "" : "; a test network's datadir needs --chain");
        free(dir);
        return rc;
    }
    free(dir);
    if (st != BK_OK) return bk_cli_report(cmd, &err);
    bk_chainstate_best_block(s->cs, s->best);
    int rc = o->height ? parse_height(cmd, o->height, &s->height) : height_from_index(cmd, o, net, s->best, &s->height);
    if (rc) {
        source_close(s);
        return rc;
    }
    s->disk_size = bk_chainstate_disk_size(s->cs);
    if (bk_chainstate_iter_new(s->cs, &s->it, &err) != BK_OK) {
        source_close(s);
        return bk_cli_report(cmd, &err);
    }
    return 0;
}

static int source_next(coin_source *s, bk_utxo *u)
{
    return s->snap ? bk_utxo_snapshot_next(s->snap, u) : bk_chainstate_iter_next(s->it, u);
}

static bk_status source_status(coin_source *s, bk_error *err)
{
    if (s->snap) {
        bk_status st = bk_utxo_snapshot_status(s->snap, err);
        if (st == BK_OK) s->disk_size = bk_utxo_snapshot_offset(s->snap);
        return st;
    }
    return bk_chainstate_iter_status(s->it, err);
}

static int parse_args(const char *cmd, int argc, char **argv, utxo_opts *o, int *help)
{
    memset(o, 0, sizeof *o);
    *help = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            *help = 1;
            return 0;
        }
        const char **slot = !strcmp(a, "--datadir")         ? &o->datadir
                            : !strcmp(a, "--utxo-snapshot") ? &o->snapshot
                            : !strcmp(a, "--chain")         ? &o->chain
                            : !strcmp(a, "--hash-type")     ? &o->hash_type
                            : !strcmp(a, "--format")        ? &o->format
                            : !strcmp(a, "-o") || !strcmp(a, "--output") ? &o->out_file
                            : !strcmp(a, "--tmpdir")        ? &o->tmpdir
                            : !strcmp(a, "--height")        ? &o->height
                            : !strcmp(a, "--threads")       ? &o->threads
                            : !strcmp(a, "--codec")         ? &o->codec
                                                            : NULL;
        if (!slot) return bk_cli_fail(cmd, BK_EXIT_USAGE, "unknown argument '%s' (see --help)", a);
        if (i + 1 >= argc) return bk_cli_fail(cmd, BK_EXIT_USAGE, "%s needs a value", a);
        *slot = argv[++i];
    }
    return 0;
}

static int utxo_stats(int argc, char **argv)
{
    const char *cmd = "utxo stats";
    utxo_opts o;
    int help;
    int rc = parse_args(cmd, argc, argv, &o, &help);
    if (rc) return rc;
    if (help) {
        fputs(utxo_usage, stdout);
        return BK_EXIT_OK;
    }
    if (o.format || o.out_file) return bk_cli_fail(cmd, BK_EXIT_USAGE, "--format and -o are for utxo dump");
    bk_utxo_hash_type ht = BK_UTXO_HASH_SERIALIZED_3;
    if (o.hash_type && bk_utxo_hash_type_parse(o.hash_type, &ht) != BK_OK)
        return bk_cli_fail(cmd, BK_EXIT_USAGE,
                           "unknown hash type '%s' (hash_serialized_3, muhash, none)", o.hash_type);
    coin_source src;
    rc = source_open(cmd, &o, &src);
    if (rc) return rc;
    bk_error err;
    bk_error_clear(&err);
    bk_utxo_stats st;
    if (bk_utxo_stats_begin(&st, ht, NULL, &err) != BK_OK) {
        source_close(&src);
        return bk_cli_report(cmd, &err);
    }
    long threads = sysconf(_SC_NPROCESSORS_ONLN);
    if (o.threads) {
        char *end;
        threads = strtol(o.threads, &end, 10);
        if (!*o.threads || *end || threads < 1 || threads > 64) {
            bk_utxo_stats_free(&st);
            source_close(&src);
            return bk_cli_fail(cmd, BK_EXIT_USAGE, "--threads needs 1..64, not '%s'", o.threads);
        }
    }
    if (threads > 1 && bk_utxo_stats_set_threads(&st, (unsigned)(threads > 64 ? 64 : threads)) != BK_OK) {
        bk_utxo_stats_free(&st);
        source_close(&src);
        return bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "cannot set threads");
    }
    bk_utxo u;
    while (source_next(&src, &u)) {
        if (bk_utxo_stats_add(&st, &u, &err) != BK_OK) {
            rc = bk_cli_report(cmd, &err);
            break;
        }
    }
    if (!rc && source_status(&src, &err) != BK_OK) rc = bk_cli_report(cmd, &err);
    if (!rc && bk_utxo_stats_end(&st, &err) != BK_OK) rc = bk_cli_report(cmd, &err);
    if (!rc) {
        bk_writer w;
        bk_writer_init(&w, NULL);
        bk_json j;
        bk_json_init(&j, &w, 0);
        bk_utxo_stats_json(&j, &st, src.height, src.best, src.disk_size);
        bk_writer_putc(&w, '\n');
        if (bk_writer_status(&w) != BK_OK) rc = bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
        else rc = bk_cli_write_all(stdout, w.data, w.len);
        if (!rc && fflush(stdout) != 0 && !bk_cli_pipe_closed) rc = bk_cli_fail(cmd, BK_EXIT_IO, "cannot write output");
        else if (rc) rc = bk_cli_fail(cmd, rc, "cannot write output");
        bk_writer_free(&w);
    }
    bk_utxo_stats_free(&st);
    source_close(&src);
    return rc;
}

/* CSV field: quoted when it holds a comma, quote or line break. */
static void csv_field(bk_writer *w, const char *s, size_t n)
{
    int q = 0;
    for (size_t i = 0; i < n && !q; i++) q = s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
    if (!q) {
        bk_writer_put(w, s, n);
        return;
    }
    bk_writer_putc(w, '"');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"') bk_writer_putc(w, '"');
        bk_writer_putc(w, s[i]);
    }
    bk_writer_putc(w, '"');
}

static void put_u64(bk_writer *w, uint64_t v)
{
    char b[20];
    size_t i = sizeof b;
    do {
        b[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    bk_writer_put(w, b + i, sizeof b - i);
}

/* One row of the dump into w (desc: scratch for the descriptor). */
static void render_row(bk_writer *w, bk_writer *desc, const bk_utxo *u, bk_network net, int ndjson)
{
    const uint8_t *s = bk_coin_script(&u->coin);
    size_t n = u->coin.script_len;
    bk_script_info info;
    if (bk_script_info_get(s, n, net, &info) != BK_OK) {
        /* only an unknown network fails, and the source's is known */
        memset(&info, 0, sizeof info);
    }
    bk_writer_reset(desc);
    bk_script_info_descriptor(desc, s, n, &info);
    char txid[65];
    bk_hex_encode_rev(txid, u->txid, 32);
    const char *type = bk_script_type_name(info.sol.type);
    if (ndjson) {
        bk_writer_puts(w, "{\"txid\":\"");
        bk_writer_put(w, txid, 64);
        bk_writer_puts(w, "\",\"vout\":");
        put_u64(w, u->vout);
        bk_writer_puts(w, ",\"value\":");
        put_u64(w, (uint64_t)u->coin.value);
        bk_writer_puts(w, ",\"height\":");
        put_u64(w, u->coin.height);
        bk_writer_puts(w, u->coin.coinbase ? ",\"is_coinbase\":true" : ",\"is_coinbase\":false");
        bk_writer_puts(w, ",\"script_hex\":\"");
        bk_writer_put_hex(w, s, n);
        bk_writer_puts(w, "\",\"type\":\"");
        bk_writer_puts(w, type);
        if (info.address_len) {
            bk_writer_puts(w, "\",\"address\":\"");
            bk_writer_put(w, info.address, info.address_len);
            bk_writer_puts(w, "\",\"desc\":\"");
        } else {
            bk_writer_puts(w, "\",\"address\":null,\"desc\":\"");
        }
        bk_writer_put(w, desc->data, desc->len);
        bk_writer_puts(w, "\"}\n");
    } else {
        bk_writer_put(w, txid, 64);
        bk_writer_putc(w, ',');
        put_u64(w, u->vout);
        bk_writer_putc(w, ',');
        put_u64(w, (uint64_t)u->coin.value);
        bk_writer_putc(w, ',');
        put_u64(w, u->coin.height);
        bk_writer_puts(w, u->coin.coinbase ? ",true," : ",false,");
        if (n) bk_writer_put_hex(w, s, n);
        else bk_writer_puts(w, "\"\""); /* an empty script, not a missing one */
        bk_writer_putc(w, ',');
        bk_writer_puts(w, type);
        bk_writer_putc(w, ',');
        bk_writer_put(w, info.address, info.address_len);
        bk_writer_putc(w, ',');
        csv_field(w, (const char *)desc->data, desc->len);
        bk_writer_putc(w, '\n');
    }
}

/* Rendering on worker threads, written in order: batches of coins (their
 * raw scripts copied) go round a ring of slots; workers render slot by
 * slot; the main thread writes a slot's text before it refills the slot,
 * so the output keeps the key order and at most `depth` batches exist. */
#define DUMP_BATCH 1024
#define DUMP_ARENA (512u << 10)

typedef struct dump_slot {
    bk_utxo u[DUMP_BATCH];
    uint8_t arena[DUMP_ARENA];
    size_t n, arena_len;
    bk_writer text, desc;
    int done;
} dump_slot;

typedef struct dump_pool {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    dump_slot *slots;
    size_t depth;
    uint64_t submitted, next_render;
    int stop, ndjson;
    bk_network net;
} dump_pool;

static void *dump_worker(void *arg)
{
    dump_pool *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->next_render == p->submitted && !p->stop) pthread_cond_wait(&p->cv, &p->mu);
        if (p->next_render == p->submitted) break;
        dump_slot *sl = &p->slots[p->next_render % p->depth];
        p->next_render++;
        pthread_mutex_unlock(&p->mu);
        bk_writer_reset(&sl->text);
        for (size_t i = 0; i < sl->n; i++) render_row(&sl->text, &sl->desc, &sl->u[i], p->net, p->ndjson);
        pthread_mutex_lock(&p->mu);
        sl->done = 1;
        pthread_cond_broadcast(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* Write slot sl's text once rendered; returns non-zero on a writer fault. */
static int dump_drain(dump_pool *p, dump_slot *sl, bk_writer *w)
{
    pthread_mutex_lock(&p->mu);
    while (!sl->done) pthread_cond_wait(&p->cv, &p->mu);
    pthread_mutex_unlock(&p->mu);
    bk_writer_put(w, sl->text.data, sl->text.len);
    int bad = bk_writer_status(&sl->text) != BK_OK || bk_writer_status(&sl->desc) != BK_OK;
    sl->n = 0;
    sl->arena_len = 0;
    return bad;
}

/* Returns 0, or -1 for out of memory (threads could not start: the caller
 * renders inline). */
static int dump_parallel(coin_source *src, bk_writer *w, int ndjson, unsigned threads, int *nomem)
{
    dump_pool p;
    memset(&p, 0, sizeof p);
    p.depth = (size_t)threads + 2;
    p.ndjson = ndjson;
    p.net = src->net;
    p.slots = calloc(p.depth, sizeof *p.slots);
    if (!p.slots) return -1;
    for (size_t i = 0; i < p.depth; i++) {
        bk_writer_init(&p.slots[i].text, NULL);
        bk_writer_init(&p.slots[i].desc, NULL);
    }
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.cv, NULL);
    pthread_t th[64];
    unsigned started = 0;
    for (; started < threads && started < 64; started++)
        if (pthread_create(&th[started], NULL, dump_worker, &p) != 0) break;
    int ret = started ? 0 : -1;
    if (started) {
        uint64_t seq = 0, written = 0; /* batches submitted, batches written */
        dump_slot *cur = NULL;
        bk_utxo u;
        int more = 1;
        while (more && !*nomem && bk_writer_status(w) == BK_OK) {
            if (!cur) {
                cur = &p.slots[seq % p.depth];
                if (seq >= p.depth && dump_drain(&p, cur, w)) *nomem = 1;
                if (seq >= p.depth) written++;
                cur->done = 0;
            }
            more = source_next(src, &u);
            if (more) {
                size_t need = u.coin.raw_script ? u.coin.script_len : 0;
                if (cur->arena_len + need > DUMP_ARENA) {
                    /* full: submit, and take the next slot for this coin */
                    pthread_mutex_lock(&p.mu);
                    p.submitted = ++seq;
                    pthread_cond_broadcast(&p.cv);
                    pthread_mutex_unlock(&p.mu);
                    cur = &p.slots[seq % p.depth];
                    if (seq >= p.depth && dump_drain(&p, cur, w)) *nomem = 1;
                    if (seq >= p.depth) written++;
                    cur->done = 0;
                }
                bk_utxo *d = &cur->u[cur->n++];
                *d = u;
                if (need) {
                    memcpy(cur->arena + cur->arena_len, u.coin.raw_script, need);
                    d->coin.raw_script = cur->arena + cur->arena_len;
                    cur->arena_len += need;
                }
            }
            if (cur->n == DUMP_BATCH || (!more && cur->n)) {
                pthread_mutex_lock(&p.mu);
                p.submitted = ++seq;
                pthread_cond_broadcast(&p.cv);
                pthread_mutex_unlock(&p.mu);
                cur = NULL;
            }
        }
        /* the rendered rest, in order */
        for (uint64_t k = written; k < seq; k++)
            if (dump_drain(&p, &p.slots[k % p.depth], w)) *nomem = 1;
        pthread_mutex_lock(&p.mu);
        p.stop = 1;
        pthread_cond_broadcast(&p.cv);
        pthread_mutex_unlock(&p.mu);
        for (unsigned i = 0; i < started; i++) pthread_join(th[i], NULL);
    }
    for (size_t i = 0; i < p.depth; i++) {
        bk_writer_free(&p.slots[i].text);
        bk_writer_free(&p.slots[i].desc);
    }
    pthread_mutex_destroy(&p.mu);
    pthread_cond_destroy(&p.cv);
    free(p.slots);
    return ret;
}

/* The dump's columns as a table (Parquet): the same names as CSV/NDJSON. */
static const bk_pq_column utxo_columns[] = {
    {"txid", BK_PQ_STRING, 0},
    {"vout", BK_PQ_INT64, 0},
    {"value", BK_PQ_INT64, 0},
    {"height", BK_PQ_INT32, 0},
    {"is_coinbase", BK_PQ_BOOLEAN, 0},
    {"script_hex", BK_PQ_STRING, 0},
    {"type", BK_PQ_STRING, BK_PQ_DICT},
    {"address", BK_PQ_STRING, BK_PQ_OPTIONAL},
    {"desc", BK_PQ_STRING, 0},
};

static int dump_parquet(const char *cmd, const utxo_opts *o, coin_source *src, FILE *out)
{
    bk_pq_opts po;
    bk_pq_opts_init(&po);
    if (o->codec && bk_pq_codec_parse(o->codec, &po.codec) != BK_OK)
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "unknown codec '%s' (zstd, snappy, none)", o->codec);
    bk_error err;
    bk_error_clear(&err);
    bk_table_writer t;
    if (bk_table_open(&t, BK_TABLE_PARQUET, utxo_columns, sizeof utxo_columns / sizeof utxo_columns[0], &po,
                      bk_cli_file_sink, out, NULL, &err) != BK_OK)
        return bk_cli_pipe_closed ? 0 : bk_cli_report(cmd, &err);
    int rc = 0;
    bk_utxo u;
    while (source_next(src, &u)) {
        const uint8_t *s = bk_coin_script(&u.coin);
        size_t n = u.coin.script_len;
        bk_script_info info;
        if (bk_script_info_get(s, n, src->net, &info) != BK_OK) {
            rc = bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "script classification failed");
            break;
        }
        bk_table_hex(&t, 0, u.txid, 32, 1);
        bk_table_int(&t, 1, u.vout);
        bk_table_int(&t, 2, u.coin.value);
        bk_table_int(&t, 3, u.coin.height);
        bk_table_bool(&t, 4, u.coin.coinbase);
        bk_table_hex(&t, 5, s, n, 0);
        const char *type = bk_script_type_name(info.sol.type);
        bk_table_str(&t, 6, type, strlen(type));
        if (info.address_len) bk_table_str(&t, 7, info.address, info.address_len);
        else bk_table_null(&t, 7);
        bk_script_info_descriptor(bk_table_tmp(&t), s, n, &info);
        bk_table_tmp_str(&t, 8);
        if (bk_table_end_row(&t, &err) != BK_OK) {
            rc = bk_cli_pipe_closed ? 0 : bk_cli_report(cmd, &err);
            break;
        }
    }
    if (!rc && !bk_cli_pipe_closed && source_status(src, &err) != BK_OK) rc = bk_cli_report(cmd, &err);
    if (!rc && !bk_cli_pipe_closed && bk_table_finish(&t, &err) != BK_OK) rc = bk_cli_report(cmd, &err);
    if (!rc && !bk_cli_pipe_closed && fflush(out) != 0) rc = bk_cli_fail(cmd, BK_EXIT_IO, "cannot write output");
    bk_table_close(&t);
    return rc;
}

static int utxo_dump(int argc, char **argv)
{
    const char *cmd = "utxo dump";
    utxo_opts o;
    int help;
    int rc = parse_args(cmd, argc, argv, &o, &help);
    if (rc) return rc;
    if (help) {
        fputs(utxo_usage, stdout);
        return BK_EXIT_OK;
    }
    if (o.hash_type) return bk_cli_fail(cmd, BK_EXIT_USAGE, "--hash-type is for utxo stats");
    int ndjson = 0, parquet = 0;
    if (o.format && !strcmp(o.format, "ndjson")) ndjson = 1;
    else if (o.format && !strcmp(o.format, "parquet")) parquet = 1;
    else if (o.format && strcmp(o.format, "csv"))
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "unknown format '%s' (csv, ndjson, parquet)", o.format);
    if (o.codec && !parquet) return bk_cli_fail(cmd, BK_EXIT_USAGE, "--codec is for --format parquet");
    long threads = sysconf(_SC_NPROCESSORS_ONLN);
    if (o.threads) {
        char *end;
        threads = strtol(o.threads, &end, 10);
        if (!*o.threads || *end || threads < 1 || threads > 64)
            return bk_cli_fail(cmd, BK_EXIT_USAGE, "--threads needs 1..64, not '%s'", o.threads);
    }
    if (threads > 64) threads = 64;
    coin_source src;
    /* A snapshot's height only bounds its coins here: not needed. */
    utxo_opts so = o;
    if (so.snapshot && !so.height && !so.datadir) so.height = "2147483647";
    rc = source_open(cmd, &so, &src);
    if (rc) return rc;
    FILE *out = stdout;
    if (o.out_file && strcmp(o.out_file, "-")) {
        out = fopen(o.out_file, "wb");
        if (!out) {
            source_close(&src);
            return bk_cli_fail(cmd, BK_EXIT_IO, "cannot create %s: %s", o.out_file, strerror(errno));
        }
    }
    if (parquet) {
        rc = dump_parquet(cmd, &o, &src, out);
        if (out != stdout && fclose(out) != 0 && !rc) rc = bk_cli_fail(cmd, BK_EXIT_IO, "cannot write %s", o.out_file);
        source_close(&src);
        return rc;
    }
    bk_writer w;
    bk_writer_init_sink(&w, NULL, bk_cli_file_sink, out, 1 << 16);
    bk_writer desc;
    bk_writer_init(&desc, NULL);
    if (!ndjson) bk_writer_puts(&w, "txid,vout,value,height,is_coinbase,script_hex,type,address,desc\n");
    bk_error err;
    bk_error_clear(&err);
    int nomem = 0;
    if (threads < 2 || dump_parallel(&src, &w, ndjson, (unsigned)threads, &nomem) != 0) {
        bk_utxo u;
        while (bk_writer_status(&w) == BK_OK && bk_writer_status(&desc) == BK_OK && source_next(&src, &u))
            render_row(&w, &desc, &u, src.net, ndjson);
        if (bk_writer_status(&desc) != BK_OK) nomem = 1;
    }
    if (bk_writer_status(&w) == BK_OK && !nomem && source_status(&src, &err) != BK_OK)
        rc = bk_cli_report(cmd, &err);
    if (!rc) {
        (void)bk_writer_flush(&w);
        if (bk_cli_pipe_closed) rc = 0;
        else if (bk_writer_status(&w) == BK_ERR_NOMEM || nomem)
            rc = bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
        else if (bk_writer_status(&w) != BK_OK || fflush(out) != 0)
            rc = bk_cli_fail(cmd, BK_EXIT_IO, "cannot write output");
    }
    if (out != stdout && fclose(out) != 0 && !rc) rc = bk_cli_fail(cmd, BK_EXIT_IO, "cannot write %s", o.out_file);
    bk_writer_free(&w);
    bk_writer_free(&desc);
    source_close(&src);
    return rc;
}

static int utxo_main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fputs(utxo_usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? BK_EXIT_USAGE : BK_EXIT_OK;
    }
    if (!strcmp(argv[1], "stats")) return utxo_stats(argc - 1, argv + 1);
    if (!strcmp(argv[1], "dump")) return utxo_dump(argc - 1, argv + 1);
    return bk_cli_fail("utxo", BK_EXIT_USAGE, "unknown subcommand '%s' (stats, dump; see --help)", argv[1]);
}

BK_CLI_COMMAND(utxo_command, "utxo", "stats|dump (--datadir DIR | --utxo-snapshot FILE)",
               "the UTXO set: gettxoutsetinfo's result, or one row per coin (CSV/NDJSON)", utxo_main)
