/* The Electrum server's event loops: each epoll thread owns its sockets
 * (read, line framing, write, TLS; loop 0 also accepts and hands each new
 * connection to the loop with the fewest), a worker pool answers lines.
 * Each connection has a FIFO of lines; one of them at a time is with a
 * worker, so answers leave in request order while connections are
 * answered in parallel. Notifications after a tip change join the same
 * FIFO. */
#include "server/electrum_internal.h"

#include "base/threads.h"
#include "json/json_parse.h"

#include <blockkit/json.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define READ_CHUNK 16384
#define DRAIN_SECONDS 5
#define WORKER_BATCH 8
#define SPARE_MAX (64u * 1024)  /* an answer buffer up to this is kept for the next answer */

void bk_electrum_limits_init(bk_electrum_limits *l)
{
    l->max_line = 256 * 1024;
    l->max_batch = 1000;
    l->max_subs = 10000;
    l->max_pending = 100;
    l->idle_timeout_s = 600;
    l->max_outbuf = 8u << 20;
    l->max_history = 100000;
    l->max_clients = 1024;
}

void bk_electrum_opts_init(bk_electrum_opts *o)
{
    memset(o, 0, sizeof *o);
    bk_electrum_limits_init(&o->limits);
}

enum { ITEM_LINE, ITEM_NOTIFY, ITEM_TEXT };

typedef struct item {
    struct item *next;
    int kind;
    size_t len;
    char data[];                /* the line, or ITEM_TEXT's ready answer */
} item;

struct conn;
struct evloop;

typedef struct job {
    struct job *next;
    struct conn *c;
    item *it;
    bk_writer ans;
    int fatal;                  /* out of memory: close the connection */
} job;

typedef struct conn {
    struct conn *prev, *next;   /* its loop's list (next: the hand-over list before that) */
    struct evloop *loop;        /* the one thread that touches it, but for its worker job */
    int fd;
    SSL *ssl;
    int ssl_want_write;
    bk_electrum_session *session;
    char *in;
    size_t in_len, in_cap;
    int skipping;               /* discarding the rest of an over-long line */
    item *q_head, *q_tail;
    uint32_t n_queued;
    int busy;                   /* its head item is with a worker */
    int dead;                   /* closed; freed when no worker holds it */
    int reading;
    uint32_t mask;              /* epoll interest registered */
    bk_writer out;
    size_t out_off;
    bk_writer spare;            /* an answer buffer kept for the next job */
    job job;                    /* the one line with a worker (busy) */
    time_t last_rx;
} conn;

struct server;

/* One event loop: an epoll thread and the connections it owns. Loop 0
 * also accepts (handing each new connection to the loop with the fewest)
 * and polls the index's tip. */
typedef struct evloop {
    struct server *s;
    unsigned id;
    int ep, evfd;
    conn *conns;
    conn *grave;                /* closed, freed after the current batch of events */
    atomic_uint n_conns;        /* read by the acceptor */
    job *ready_head, *ready_tail;   /* the loop's new jobs, handed over once per round */
    pthread_mutex_t mu;         /* done and arrivals */
    job *done;                  /* answered by workers */
    conn *arrivals;             /* accepted by loop 0, not yet in this loop's epoll */
    unsigned tip_seen;
    int draining;               /* stopping: no new connections or lines */
} evloop;

typedef struct server {
    bk_electrum_shared sh;
    const bk_electrum_opts *o;
    int lfd, tls_lfd;
    SSL_CTX *tls;
    evloop *loops;
    unsigned n_loops;
    unsigned n_running;         /* loops with a thread: those given connections (loop 0's) */
    atomic_uint n_clients;      /* every loop's connections (max_clients) */
    atomic_uint notify_gen;     /* bumped when the tip or the mempool changes: statuses may have */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    job *queue_head, *queue_tail;
    uint32_t n_queued_jobs, n_workers;
    int quit;
    pthread_cond_t mp_cv;       /* the mempool thread's sleep (quit ends it) */
} server;

/* ---- workers ---- */

/* A job back to its connection's loop; the loop is woken when its list
 * was empty (it takes the whole list after reading its eventfd). */
static void job_return(job *jb)
{
    evloop *l = jb->c->loop;
    pthread_mutex_lock(&l->mu);
    int wake = !l->done && !l->arrivals;
    jb->next = l->done;
    l->done = jb;
    pthread_mutex_unlock(&l->mu);
    uint64_t one = 1;
    if (wake && write(l->evfd, &one, sizeof one) < 0) { /* the loop wakes on its timeout anyway */ }
}

static void *worker_main(void *arg)
{
    server *s = *(server **)arg;
    for (;;) {
        pthread_mutex_lock(&s->mu);
        while (!s->queue_head && !s->quit) pthread_cond_wait(&s->cv, &s->mu);
        if (!s->queue_head) {
            pthread_mutex_unlock(&s->mu);
            return NULL;
        }
        /* A share of the queue at a time (at most WORKER_BATCH): fewer
         * lock round trips under load, the other workers still fed. */
        uint32_t take = s->n_queued_jobs / s->n_workers;
        take = take < 1 ? 1 : take > WORKER_BATCH ? WORKER_BATCH : take;
        job *batch = s->queue_head, *last = batch;
        for (uint32_t i = 1; i < take && last->next; i++) last = last->next;
        s->queue_head = last->next;
        if (!s->queue_head) s->queue_tail = NULL;
        last->next = NULL;
        for (job *jb = batch; jb; jb = jb->next) s->n_queued_jobs--;
        pthread_mutex_unlock(&s->mu);

        for (job *jb = batch, *next; jb; jb = next) {
            next = jb->next;
            bk_error e;
            bk_status st = jb->it->kind == ITEM_NOTIFY
                               ? bk_electrum_session_notify(jb->c->session, &jb->ans, &e)
                               : bk_electrum_session_line(jb->c->session, jb->it->data, jb->it->len, &jb->ans, &e);
            jb->fatal = st != BK_OK;
            job_return(jb);
        }
    }
}

/* ---- connections ---- */

static void set_mask(evloop *l, conn *c)
{
    if (c->dead) return;
    uint32_t m = 0;
    if (c->reading) m |= EPOLLIN;
    if (c->out.len > c->out_off || c->ssl_want_write) m |= EPOLLOUT;
    if (m == c->mask) return;
    struct epoll_event ev = {.events = m, .data.ptr = c};
    epoll_ctl(l->ep, EPOLL_CTL_MOD, c->fd, &ev);
    c->mask = m;
}

static void conn_free(conn *c)
{
    item *it = c->q_head;
    while (it) {
        item *n = it->next;
        free(it);
        it = n;
    }
    bk_electrum_session_free(c->session);
    if (c->ssl) SSL_free(c->ssl);
    if (c->fd >= 0) close(c->fd);
    bk_writer_free(&c->out);
    bk_writer_free(&c->spare);
    bk_writer_free(&c->job.ans);
    free(c->in);
    free(c);
}

static void conn_close(evloop *l, conn *c)
{
    if (c->dead) return;
    c->dead = 1;
    epoll_ctl(l->ep, EPOLL_CTL_DEL, c->fd, NULL);
    if (c->ssl) SSL_free(c->ssl);
    c->ssl = NULL;
    close(c->fd);
    c->fd = -1;
    if (c->prev) c->prev->next = c->next;
    else l->conns = c->next;
    if (c->next) c->next->prev = c->prev;
    atomic_fetch_sub(&l->n_conns, 1);
    atomic_fetch_sub(&l->s->n_clients, 1);
    if (!c->busy) {
        c->next = l->grave;
        l->grave = c;
    }
}

/* Free the closed connections once no event of this round can name them. */
static void bury(evloop *l)
{
    if (!l->grave) return;
    while (l->grave) {
        conn *c = l->grave;
        l->grave = c->next;
        conn_free(c);
    }
    /* give the freed buffers back: RSS returns to its baseline */
    if (!atomic_load(&l->s->n_clients)) malloc_trim(0);
}

static void schedule(evloop *l, conn *c)
{
    while (!c->busy && !c->dead && c->q_head) {
        item *it = c->q_head;
        if (it->kind == ITEM_TEXT) {
            c->q_head = it->next;
            if (!c->q_head) c->q_tail = NULL;
            c->n_queued--;
            bk_writer_put(&c->out, it->data, it->len);
            free(it);
            continue;
        }
        /* Answered from memory here: no hand-over, no thread switch. */
        if (it->kind == ITEM_LINE && bk_electrum_session_fast(c->session, it->data, it->len, &c->out)) {
            c->q_head = it->next;
            if (!c->q_head) c->q_tail = NULL;
            c->n_queued--;
            free(it);
            continue;
        }
        job *jb = &c->job;
        jb->next = NULL;
        jb->c = c;
        jb->it = it;
        jb->fatal = 0;
        jb->ans = c->spare;     /* the last answer's buffer, emptied */
        bk_writer_init(&c->spare, NULL);
        c->busy = 1;
        if (l->ready_tail) l->ready_tail->next = jb;
        else l->ready_head = jb;
        l->ready_tail = jb;
    }
}

/* The round's new jobs to the workers: one lock, as many wakeups as jobs
 * (up to the pool). */
static void hand_over(evloop *l)
{
    if (!l->ready_head) return;
    server *s = l->s;
    uint32_t n = 0;
    for (job *jb = l->ready_head; jb; jb = jb->next) n++;
    pthread_mutex_lock(&s->mu);
    if (s->queue_tail) s->queue_tail->next = l->ready_head;
    else s->queue_head = l->ready_head;
    s->queue_tail = l->ready_tail;
    s->n_queued_jobs += n;
    if (n >= s->n_workers) pthread_cond_broadcast(&s->cv);
    else
        for (uint32_t i = 0; i < n; i++) pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    l->ready_head = l->ready_tail = NULL;
}

static void enqueue(conn *c, int kind, const char *data, size_t len)
{
    item *it = malloc(sizeof *it + len + 1);
    if (!it) return;
    it->next = NULL;
    it->kind = kind;
    it->len = len;
    if (len) memcpy(it->data, data, len);
    it->data[len] = 0;
    if (c->q_tail) c->q_tail->next = it;
    else c->q_head = it;
    c->q_tail = it;
    c->n_queued++;
}

/* A JSON-RPC error as a ready line (the request's id when it parses). */
static void enqueue_refusal(conn *c, const char *line, size_t len, int code, const char *msg)
{
    bk_writer w;
    bk_writer_init(&w, NULL);
    bk_json j;
    bk_json_init(&j, &w, 0);
    bk_jsondoc d;
    bk_error e;
    int parsed = line && bk_jsondoc_parse(&d, line, len, NULL, &e) == BK_OK;
    const bk_jsonv *id = parsed ? bk_jsonv_get(&d, &d.v[0], "id") : NULL;
    bk_json_begin_object(&j);
    BK_JSON_KEY(&j, "jsonrpc");
    bk_json_string(&j, "2.0");
    BK_JSON_KEY(&j, "error");
    bk_json_begin_object(&j);
    BK_JSON_KEY(&j, "code");
    bk_json_int(&j, code);
    BK_JSON_KEY(&j, "message");
    bk_json_string(&j, msg);
    bk_json_end_object(&j);
    BK_JSON_KEY(&j, "id");
    if (id && (id->type == BK_JSONV_NUMBER || id->type == BK_JSONV_STRING)) bk_json_raw(&j, line + id->begin, id->end - id->begin);
    else bk_json_null(&j);
    bk_json_end_object(&j);
    bk_writer_putc(&w, '\n');
    if (parsed) bk_jsondoc_free(&d);
    if (bk_writer_status(&w) == BK_OK) enqueue(c, ITEM_TEXT, (const char *)w.data, w.len);
    bk_writer_free(&w);
}

/* Split c->in into lines, up to max_pending queued: the rest stays in
 * c->in (and in the socket, which is not read meanwhile) until answers
 * drain the queue; a client pipelining more than max_pending requests is
 * slowed down, never refused. An over-long line is refused and skipped. */
static void frame(evloop *l, conn *c)
{
    const bk_electrum_limits *lim = &l->s->o->limits;
    size_t start = 0;
    int full = 0;
    for (;;) {
        if (c->n_queued >= lim->max_pending) {
            full = 1;
            break;
        }
        char *nl = memchr(c->in + start, '\n', c->in_len - start);
        if (!nl) break;
        size_t len = (size_t)(nl - (c->in + start));
        if (c->skipping) c->skipping = 0;
        else if (len > lim->max_line) {
            char msg[96];
            snprintf(msg, sizeof msg, "request line over %zu bytes (max_line)", lim->max_line);
            enqueue_refusal(c, NULL, 0, -32600, msg);
        } else {
            enqueue(c, ITEM_LINE, c->in + start, len);
        }
        start += len + 1;
    }
    memmove(c->in, c->in + start, c->in_len - start);
    c->in_len -= start;
    if (!full && c->in_len > lim->max_line) {
        if (!c->skipping) {
            char msg[96];
            snprintf(msg, sizeof msg, "request line over %zu bytes (max_line)", lim->max_line);
            enqueue_refusal(c, NULL, 0, -32600, msg);
        }
        c->skipping = 1;
        c->in_len = 0;
    }
}

/* Start what can start: answers from memory and the next worker job; the
 * lines held back in c->in join the queue as answers drain it. */
static void pump(evloop *l, conn *c)
{
    for (;;) {
        schedule(l, c);
        if (c->busy || c->dead || !c->in_len || l->draining || c->n_queued >= l->s->o->limits.max_pending) return;
        size_t before = c->in_len;
        frame(l, c);
        if (c->in_len == before) return;
    }
}

static void conn_read(evloop *l, conn *c)
{
    const bk_electrum_limits *lim = &l->s->o->limits;
    for (int rounds = 0; rounds < 4 && !c->dead; rounds++) {
        if (c->in_cap - c->in_len < READ_CHUNK) {
            size_t nc = c->in_len + READ_CHUNK * 2;
            char *ni = realloc(c->in, nc);
            if (!ni) {
                conn_close(l, c);
                return;
            }
            c->in = ni;
            c->in_cap = nc;
        }
        ssize_t k;
        if (c->ssl) {
            int r = SSL_read(c->ssl, c->in + c->in_len, READ_CHUNK);
            if (r <= 0) {
                int se = SSL_get_error(c->ssl, r);
                ERR_clear_error();
                if (se == SSL_ERROR_WANT_READ) break;
                if (se == SSL_ERROR_WANT_WRITE) { c->ssl_want_write = 1; break; }
                conn_close(l, c);
                return;
            }
            k = r;
        } else {
            k = recv(c->fd, c->in + c->in_len, READ_CHUNK, 0);
            if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) break;
            if (k <= 0) {
                conn_close(l, c);
                return;
            }
        }
        c->in_len += (size_t)k;
        c->last_rx = time(NULL);
        frame(l, c);
        /* A short read emptied the socket: epoll says when more comes
         * (TLS may hold decrypted bytes, so it reads on). */
        if (!c->ssl && k < READ_CHUNK) break;
        /* A client max_pending lines ahead of its answers is not read
         * until they drain. */
        if (c->n_queued >= lim->max_pending) {
            c->reading = 0;
            break;
        }
    }
    pump(l, c);
}

static void conn_write(evloop *l, conn *c)
{
    c->ssl_want_write = 0;
    while (c->out.len > c->out_off) {
        size_t n = c->out.len - c->out_off;
        ssize_t k;
        if (c->ssl) {
            int r = SSL_write(c->ssl, c->out.data + c->out_off, n > INT32_MAX ? INT32_MAX : (int)n);
            if (r <= 0) {
                int se = SSL_get_error(c->ssl, r);
                ERR_clear_error();
                if (se == SSL_ERROR_WANT_WRITE || se == SSL_ERROR_WANT_READ) break;
                conn_close(l, c);
                return;
            }
            k = r;
        } else {
            k = send(c->fd, c->out.data + c->out_off, n, MSG_NOSIGNAL);
            if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) break;
            if (k < 0) {
                conn_close(l, c);
                return;
            }
        }
        c->out_off += (size_t)k;
    }
    if (c->out_off == c->out.len) {
        c->out_off = 0;
        bk_writer_reset(&c->out);
        if (c->out.cap > 1u << 20) bk_writer_free(&c->out);   /* a burst's buffer is not kept */
    } else if (c->out.len - c->out_off > l->s->o->limits.max_outbuf) {
        /* It does not read its answers: cut it off rather than buffer more. */
        conn_close(l, c);
        return;
    }
    if (!c->reading && c->n_queued < l->s->o->limits.max_pending && !l->draining) c->reading = 1;
    set_mask(l, c);
}

/* The loop with the fewest connections (loop 0 on a tie). */
static evloop *least_loaded(server *s)
{
    evloop *best = &s->loops[0];
    unsigned n = atomic_load(&best->n_conns);
    for (unsigned i = 1; i < s->n_running; i++) {
        unsigned m = atomic_load(&s->loops[i].n_conns);
        if (m < n) {
            best = &s->loops[i];
            n = m;
        }
    }
    return best;
}

/* Loop 0 accepts; each connection is made here and handed to the loop
 * with the fewest, which adds it to its epoll (arrivals). */
static void accept_all(server *s, int lfd, int tls)
{
    for (;;) {
        int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) return;
        if (atomic_load(&s->n_clients) >= s->o->limits.max_clients) {
            close(fd);
            continue;
        }
        int one = 1, sndbuf = 256 * 1024;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        /* A fixed kernel send buffer: a client that stops reading shows up
         * in max_outbuf instead of in megabytes of autotuned kernel memory. */
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
        conn *c = calloc(1, sizeof *c);
        bk_error e;
        if (!c || bk_electrum_session_new_shared(&s->sh, &c->session, &e) != BK_OK) {
            free(c);
            close(fd);
            continue;
        }
        c->fd = fd;
        bk_writer_init(&c->out, NULL);
        c->reading = 1;
        c->last_rx = time(NULL);
        if (tls) {
            c->ssl = SSL_new(s->tls);
            if (!c->ssl || !SSL_set_fd(c->ssl, fd)) {
                conn_free(c);
                continue;
            }
            SSL_set_mode(c->ssl, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
            SSL_set_accept_state(c->ssl);
        }
        evloop *l = least_loaded(s);
        c->loop = l;
        atomic_fetch_add(&l->n_conns, 1);
        atomic_fetch_add(&s->n_clients, 1);
        pthread_mutex_lock(&l->mu);
        int wake = !l->done && !l->arrivals;
        c->next = l->arrivals;
        l->arrivals = c;
        pthread_mutex_unlock(&l->mu);
        uint64_t v = 1;
        if (wake && write(l->evfd, &v, sizeof v) < 0) { /* it wakes on its timeout anyway */ }
    }
}

/* A connection handed to this loop joins its epoll and its list. */
static void arrive(evloop *l, conn *c)
{
    c->mask = EPOLLIN;
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
    if (l->draining || epoll_ctl(l->ep, EPOLL_CTL_ADD, c->fd, &ev)) {
        atomic_fetch_sub(&l->n_conns, 1);
        atomic_fetch_sub(&l->s->n_clients, 1);
        conn_free(c);
        return;
    }
    c->prev = NULL;
    c->next = l->conns;
    if (l->conns) l->conns->prev = c;
    l->conns = c;
}

/* The workers' answers and loop 0's new connections. */
static void finish_jobs(evloop *l)
{
    uint64_t v;
    if (read(l->evfd, &v, sizeof v) < 0) { /* nothing to drain */ }
    pthread_mutex_lock(&l->mu);
    job *jb = l->done;
    conn *arrivals = l->arrivals;
    l->done = NULL;
    l->arrivals = NULL;
    pthread_mutex_unlock(&l->mu);
    for (conn *c = arrivals, *next; c; c = next) {
        next = c->next;
        arrive(l, c);
    }
    while (jb) {
        job *next = jb->next;
        conn *c = jb->c;
        c->busy = 0;
        jb->next = NULL;
        item *it = c->q_head;     /* the job's item is the head */
        c->q_head = it->next;
        if (!c->q_head) c->q_tail = NULL;
        c->n_queued--;
        free(it);
        if (c->dead || jb->fatal) {
            bk_writer_free(&jb->ans);
            if (c->dead) {
                c->next = l->grave;
                l->grave = c;
            } else {
                conn_close(l, c);
            }
        } else {
            if (jb->ans.len && c->out.len == 0) {
                bk_writer t = c->out;   /* nothing waiting: the answer becomes the output */
                c->out = jb->ans;
                jb->ans = t;
            } else if (jb->ans.len) {
                bk_writer_put(&c->out, jb->ans.data, jb->ans.len);
            }
            /* The buffer left over is the next job's (c->job is reused by
             * schedule below, so it is moved out first). */
            if (!c->spare.data && jb->ans.cap <= SPARE_MAX) {
                bk_writer_reset(&jb->ans);
                c->spare = jb->ans;
                bk_writer_init(&jb->ans, NULL);
            } else {
                bk_writer_free(&jb->ans);
            }
            pump(l, c);
            conn_write(l, c);
        }
        jb = next;
    }
}

/* ---- listening ---- */

static int listen_on(const char *spec, int *port_out, bk_error *err)
{
    char host[64];
    const char *colon = strrchr(spec, ':');
    if (!colon || (size_t)(colon - spec) >= sizeof host) {
        bk_error_set(err, BK_ERR_ARG, 0, "listen address '%s': HOST:PORT expected", spec);
        return -1;
    }
    memcpy(host, spec, (size_t)(colon - spec));
    host[colon - spec] = 0;
    char *end;
    long port = strtol(colon + 1, &end, 10);
    struct sockaddr_in sa = {0};
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    if (*end || port < 0 || port > 65535 || inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
        bk_error_set(err, BK_ERR_ARG, 0, "listen address '%s': an IPv4 HOST:PORT expected", spec);
        return -1;
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) || listen(fd, 1024)) {
        bk_error_set(err, BK_ERR_IO, 0, "cannot listen on %s: %s", spec, strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    socklen_t sl = sizeof sa;
    getsockname(fd, (struct sockaddr *)&sa, &sl);
    *port_out = ntohs(sa.sin_port);
    return fd;
}

static bk_status tls_setup(server *s, bk_error *err)
{
    const bk_electrum_opts *o = s->o;
    if (!o->tls_cert || !o->tls_key) return bk_error_set(err, BK_ERR_ARG, 0, "TLS needs a certificate and a key file");
    s->tls = SSL_CTX_new(TLS_server_method());
    if (!s->tls) return bk_error_set(err, BK_ERR_NOMEM, 0, "TLS: no context");
    SSL_CTX_set_min_proto_version(s->tls, TLS1_2_VERSION);
    if (SSL_CTX_use_certificate_chain_file(s->tls, o->tls_cert) != 1) {
        ERR_clear_error();
        return bk_error_set(err, BK_ERR_IO, 0, "TLS: cannot load the certificate %s", o->tls_cert);
    }
    if (SSL_CTX_use_PrivateKey_file(s->tls, o->tls_key, SSL_FILETYPE_PEM) != 1 ||
        SSL_CTX_check_private_key(s->tls) != 1) {
        ERR_clear_error();
        return bk_error_set(err, BK_ERR_IO, 0, "TLS: cannot load the key %s (or it does not match the certificate)",
                            o->tls_key);
    }
    return BK_OK;
}

static void epoll_add(int ep, int fd, void *tag)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = tag};
    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

/* Tags of the non-connection descriptors. */
static char tag_listen, tag_tls, tag_event;

/* No new connections (loop 0 listens). */
static void listeners_close(server *s)
{
    int *fds[2] = {&s->lfd, &s->tls_lfd};
    for (int i = 0; i < 2; i++) {
        if (*fds[i] < 0) continue;
        if (s->loops && s->loops[0].ep >= 0) epoll_ctl(s->loops[0].ep, EPOLL_CTL_DEL, *fds[i], NULL);
        close(*fds[i]);
        *fds[i] = -1;
    }
}

/* Every loop is to queue a notification on each of its connections. */
static void notify_all(server *s)
{
    atomic_fetch_add(&s->notify_gen, 1);
    uint64_t v = 1;
    for (unsigned i = 0; i < s->n_loops; i++)
        if (write(s->loops[i].evfd, &v, sizeof v) < 0) { /* it looks on its timeout anyway */ }
}

/* The node's mempool, every poll period, on its own thread (its RPC calls
 * block): a new snapshot makes every loop notify. */
static void *mempool_main(void *arg)
{
    server *s = *(server **)arg;
    unsigned poll_ms = s->o->poll_ms ? s->o->poll_ms : 1000;
    pthread_mutex_lock(&s->mu);
    while (!s->quit) {
        pthread_mutex_unlock(&s->mu);
        int changed = 0;
        bk_error e;
        if (bk_electrum_shared_mempool_poll(&s->sh, &changed, &e) == BK_OK && changed) notify_all(s);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += poll_ms / 1000;
        until.tv_nsec += (long)(poll_ms % 1000) * 1000000;
        if (until.tv_nsec >= 1000000000) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000;
        }
        pthread_mutex_lock(&s->mu);
        if (!s->quit) pthread_cond_timedwait(&s->mp_cv, &s->mu, &until);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* Loop 0 polls the index's tip; every loop then queues a notification on
 * each of its connections (the sessions say what changed). */
static void tip_poll(evloop *l, struct timespec *last_poll)
{
    server *s = l->s;
    const bk_electrum_opts *o = s->o;
    if (!l->id && o->ix) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long ms = (now.tv_sec - last_poll->tv_sec) * 1000 + (now.tv_nsec - last_poll->tv_nsec) / 1000000;
        unsigned poll_ms = o->poll_ms ? o->poll_ms : 1000;
        if (ms >= (long)poll_ms) {
            *last_poll = now;
            int changed = 0;
            bk_error re;
            if (bk_electrum_shared_refresh(&s->sh, &changed, &re) == BK_OK && changed) notify_all(s);
        }
    }
    unsigned g = atomic_load(&s->notify_gen);
    if (g == l->tip_seen) return;
    l->tip_seen = g;
    for (conn *c = l->conns; c; c = c->next) {
        enqueue(c, ITEM_NOTIFY, NULL, 0);
        schedule(l, c);
    }
}

static void idle_close(evloop *l, time_t t)
{
    for (conn *c = l->conns, *next; c; c = next) {
        next = c->next;
        if (!c->busy && !c->q_head && (uint32_t)(t - c->last_rx) >= l->s->o->limits.idle_timeout_s) conn_close(l, c);
    }
}

/* One event loop, until a stop has drained its connections. */
static void loop_run(evloop *l)
{
    server *s = l->s;
    const bk_electrum_opts *o = s->o;
    struct timespec last_poll;
    clock_gettime(CLOCK_MONOTONIC, &last_poll);
    time_t last_idle = time(NULL), drain_until = 0;
    struct epoll_event evs[256];
    for (;;) {
        if (o->stop && *o->stop && !drain_until) {
            /* Drain: no new connections or requests; answer what is queued. */
            drain_until = time(NULL) + DRAIN_SECONDS;
            l->draining = 1;
            if (!l->id) listeners_close(s);
            for (conn *c = l->conns; c; c = c->next) {
                c->reading = 0;
                set_mask(l, c);
            }
        }
        if (drain_until) {
            int pending = 0;
            for (conn *c = l->conns; c; c = c->next)
                if (c->busy || c->q_head || c->out.len > c->out_off) pending = 1;
            if (!pending || time(NULL) >= drain_until) break;
        }
        hand_over(l);
        int n = epoll_wait(l->ep, evs, 256, 100);
        for (int i = 0; i < n; i++) {
            void *tag = evs[i].data.ptr;
            if (tag == &tag_listen) { accept_all(s, s->lfd, 0); continue; }
            if (tag == &tag_tls) { accept_all(s, s->tls_lfd, 1); continue; }
            if (tag == &tag_event) { finish_jobs(l); continue; }
            conn *c = tag;
            if (c->dead) continue;
            if (evs[i].events & (EPOLLERR | EPOLLHUP)) {
                conn_close(l, c);
                continue;
            }
            if (evs[i].events & EPOLLIN) conn_read(l, c);
            /* Answers made while reading leave now, not a round later. */
            if (!c->dead && (evs[i].events & EPOLLOUT || c->ssl || c->out.len > c->out_off)) conn_write(l, c);
            else if (!c->dead) set_mask(l, c);
        }
        bury(l);
        if (!drain_until) tip_poll(l, &last_poll);
        time_t t = time(NULL);
        if (t != last_idle) {
            last_idle = t;
            idle_close(l, t);
        }
    }
}

static void *loop_main(void *arg)
{
    loop_run(*(evloop **)arg);
    return NULL;
}

/* After every thread has stopped: what the loops still hold. */
static void loop_release(evloop *l)
{
    if (l->evfd >= 0) finish_jobs(l);   /* answers and arrivals of the last moments */
    while (l->conns) conn_close(l, l->conns);
    bury(l);
    for (job *jb = l->ready_head, *next; jb; jb = next) {
        next = jb->next;
        jb->c->busy = 0;
        conn_free(jb->c);
    }
    l->ready_head = l->ready_tail = NULL;
}

static bk_status loops_init(server *s, unsigned n, bk_error *err)
{
    s->loops = calloc(n, sizeof *s->loops);
    if (!s->loops) return bk_error_set(err, BK_ERR_NOMEM, 0, "electrum: event loops");
    s->n_loops = n;
    for (unsigned i = 0; i < n; i++) {
        evloop *l = &s->loops[i];
        l->s = s;
        l->id = i;
        l->ep = l->evfd = -1;
        pthread_mutex_init(&l->mu, NULL);
    }
    for (unsigned i = 0; i < n; i++) {
        evloop *l = &s->loops[i];
        if ((l->ep = epoll_create1(EPOLL_CLOEXEC)) < 0 || (l->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0)
            return bk_error_set(err, BK_ERR_IO, 0, "electrum: epoll: %s", strerror(errno));
        epoll_add(l->ep, l->evfd, &tag_event);
    }
    return BK_OK;
}

static void loops_free(server *s)
{
    for (unsigned i = 0; s->loops && i < s->n_loops; i++) {
        evloop *l = &s->loops[i];
        if (l->ep >= 0) close(l->ep);
        if (l->evfd >= 0) close(l->evfd);
        pthread_mutex_destroy(&l->mu);
    }
    free(s->loops);
}

bk_status bk_electrum_serve(const bk_electrum_opts *o, bk_error *err)
{
    server *s = calloc(1, sizeof *s);
    if (!s) return bk_error_set(err, BK_ERR_NOMEM, 0, "electrum: server");
    s->o = o;
    s->lfd = s->tls_lfd = -1;
    bk_status st = bk_electrum_shared_init(&s->sh, o, err);
    if (st != BK_OK) {
        free(s);
        return st;
    }
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    pthread_cond_init(&s->mp_cv, NULL);
    pthread_t mp_th;
    unsigned mp_started = 0;
    server *mp_arg = s;
    unsigned nw = o->workers > 0 ? (unsigned)o->workers : 2;
    unsigned nl = o->loops > 0 ? (unsigned)o->loops : 1;
    pthread_t *th = calloc(nw, sizeof *th), *lth = calloc(nl, sizeof *lth);
    server **args = calloc(nw, sizeof *args);
    evloop **largs = calloc(nl, sizeof *largs);
    unsigned started = 0, lstarted = 0;
    int port = 0, tls_port = 0;
    if (!th || !args || !lth || !largs) {
        st = bk_error_set(err, BK_ERR_NOMEM, 0, "electrum: threads");
        goto out;
    }
    for (unsigned i = 0; i < nw; i++) args[i] = s;
    s->n_workers = nw;
    if ((st = loops_init(s, nl, err)) != BK_OK) goto out;
    for (unsigned i = 0; i < nl; i++) largs[i] = &s->loops[i];
    if ((s->lfd = listen_on(o->listen ? o->listen : "127.0.0.1:50001", &port, err)) < 0) {
        st = err ? err->status : BK_ERR_IO;
        goto out;
    }
    if (o->tls_listen) {
        if ((st = tls_setup(s, err)) != BK_OK) goto out;
        if ((s->tls_lfd = listen_on(o->tls_listen, &tls_port, err)) < 0) {
            st = err ? err->status : BK_ERR_IO;
            goto out;
        }
        epoll_add(s->loops[0].ep, s->tls_lfd, &tag_tls);
    }
    epoll_add(s->loops[0].ep, s->lfd, &tag_listen);
    started = bk_threads_start(th, nw, worker_main, args, sizeof *args);
    if (!started) {
        st = bk_error_set(err, BK_ERR_NOMEM, 0, "electrum: cannot start a worker thread");
        goto out;
    }
    if (s->sh.poller && !(mp_started = bk_threads_start(&mp_th, 1, mempool_main, &mp_arg, sizeof mp_arg))) {
        st = bk_error_set(err, BK_ERR_NOMEM, 0, "electrum: cannot start the mempool thread");
        goto out;
    }
    /* Loop 0 runs on the caller's thread; a loop that cannot start leaves
     * its share to the others (it never gets a connection). */
    lstarted = nl > 1 ? bk_threads_start(lth, nl - 1, loop_main, largs + 1, sizeof *largs) : 0;
    s->n_running = 1 + lstarted;
    if (o->ready) o->ready(o->ready_ctx, port, tls_port);
    loop_run(&s->loops[0]);
    bk_threads_join(lth, lstarted);
    st = BK_OK;
out:
    pthread_mutex_lock(&s->mu);
    s->quit = 1;
    pthread_cond_broadcast(&s->cv);
    pthread_cond_broadcast(&s->mp_cv);
    pthread_mutex_unlock(&s->mu);
    bk_threads_join(th, started);
    bk_threads_join(&mp_th, mp_started);
    for (unsigned i = 0; s->loops && i < nl; i++) loop_release(&s->loops[i]);
    /* Jobs that never ran (stopped mid-drain): their connections are closed. */
    for (job *jb = s->queue_head, *next; jb; jb = next) {
        next = jb->next;
        jb->c->busy = 0;
        conn_free(jb->c);     /* frees its job's answer too */
    }
    listeners_close(s);
    if (s->tls) SSL_CTX_free(s->tls);
    loops_free(s);
    pthread_cond_destroy(&s->cv);
    pthread_cond_destroy(&s->mp_cv);
    pthread_mutex_destroy(&s->mu);
    bk_electrum_shared_free(&s->sh);
    free(th);
    free(args);
    free(lth);
    free(largs);
    free(s);
    return st;
}
