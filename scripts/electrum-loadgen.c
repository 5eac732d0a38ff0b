/* The measured phase of scripts/electrum-load.mjs in C: N loopback clients
 * on one epoll thread, each sending its requests one at a time and timing
 * each answer line, so the load generator takes little of the CPU it shares
 * with the server (node's client took more than the server on 2 cores).
 *
 *   electrum-loadgen --port P --clients N --requests M --seconds S FILE
 *
 * FILE: one JSON-RPC request object per line, without "id" (the mix chosen
 * by electrum-load.mjs); client k sends lines k*M, k*M+1, ... (mod the line
 * count) with "id" n inserted. An answer line holding "error", a refused or
 * closed connection, or an answer without a request counts as an error.
 * Prints one JSON line: clients, requests, seconds, rps, p50_ms, p99_ms,
 * errors. Exit 0 when every request was answered without error, 1 when not,
 * 2 on bad arguments. Bounded: stops at S seconds. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    int fd;
    long next;      /* requests answered */
    long base;      /* first line index */
    uint64_t t0;    /* when the current request was sent, ns */
    char *in;
    size_t in_len, in_cap;
    int done;
} client;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static char **lines;
static size_t n_lines;

static int read_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char *l = NULL;
    size_t cap = 0;
    ssize_t k;
    size_t alloc = 0;
    while ((k = getline(&l, &cap, f)) > 0) {
        while (k && (l[k - 1] == '\n' || l[k - 1] == '\r')) l[--k] = 0;
        if (!k || l[0] != '{') continue;
        if (n_lines == alloc) {
            alloc = alloc ? alloc * 2 : 1024;
            char **nl = realloc(lines, alloc * sizeof *nl);
            if (!nl) return -1;
            lines = nl;
        }
        lines[n_lines++] = strdup(l);
    }
    free(l);
    fclose(f);
    return n_lines ? 0 : -1;
}

/* Send request c->next of client c: the whole line or the client is done
 * (a request line is a few hundred bytes: the socket buffer takes it). */
static int send_next(client *c)
{
    char buf[4096];
    const char *l = lines[(size_t)(c->base + c->next) % n_lines];
    int n = snprintf(buf, sizeof buf, "{\"id\":%ld,%s\n", c->next, l + 1);
    if (n < 0 || (size_t)n >= sizeof buf) return -1;
    c->t0 = now_ns();
    ssize_t k = send(c->fd, buf, (size_t)n, MSG_NOSIGNAL);
    return k == n ? 0 : -1;
}

int main(int argc, char **argv)
{
    int port = 0;
    long clients = 200, per = 1000, seconds = 120;
    const char *file = NULL;
    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && !strcmp(argv[i], "--port")) port = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--clients")) clients = atol(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--requests")) per = atol(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--seconds")) seconds = atol(argv[++i]);
        else if (argv[i][0] != '-' && !file) file = argv[i];
        else {
            fprintf(stderr, "electrum-loadgen: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    if (port <= 0 || port > 65535 || clients <= 0 || clients > 100000 || per <= 0 || seconds <= 0 || !file) {
        fprintf(stderr, "usage: electrum-loadgen --port P [--clients N] [--requests M] [--seconds S] FILE\n");
        return 2;
    }
    if (read_lines(file)) {
        fprintf(stderr, "electrum-loadgen: %s: no request lines\n", file);
        return 2;
    }
    uint32_t *lat = malloc((size_t)clients * (size_t)per * sizeof *lat);
    client *cs = calloc((size_t)clients, sizeof *cs);
    int ep = epoll_create1(0);
    if (!lat || !cs || ep < 0) {
        fprintf(stderr, "electrum-loadgen: out of memory\n");
        return 2;
    }
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    long errors = 0, n_lat = 0, active = 0;
    for (long k = 0; k < clients; k++) {
        client *c = &cs[k];
        c->base = k * per;
        c->fd = socket(AF_INET, SOCK_STREAM, 0);
        int one = 1;
        if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&sa, sizeof sa)) {
            errors++;
            c->done = 1;
            if (c->fd >= 0) close(c->fd);
            continue;
        }
        setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
        epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
        active++;
    }
    uint64_t start = now_ns(), deadline = start + (uint64_t)seconds * 1000000000u;
    for (long k = 0; k < clients; k++)
        if (!cs[k].done && send_next(&cs[k])) {
            errors++;
            cs[k].done = 1;
            close(cs[k].fd);
            active--;
        }
    struct epoll_event evs[256];
    while (active > 0 && now_ns() < deadline) {
        int n = epoll_wait(ep, evs, 256, 100);
        for (int i = 0; i < n; i++) {
            client *c = evs[i].data.ptr;
            if (c->done) continue;
            if (c->in_cap - c->in_len < 65536) {
                size_t nc = c->in_cap ? c->in_cap * 2 : 131072;
                char *ni = realloc(c->in, nc);
                if (!ni) {
                    fprintf(stderr, "electrum-loadgen: out of memory\n");
                    return 2;
                }
                c->in = ni;
                c->in_cap = nc;
            }
            ssize_t k = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, 0);
            if (k < 0 && (errno == EAGAIN || errno == EINTR)) continue;
            int finish = k <= 0;
            if (k > 0) c->in_len += (size_t)k;
            size_t off = 0;
            char *nl;
            while (!finish && (nl = memchr(c->in + off, '\n', c->in_len - off))) {
                uint64_t t = now_ns();
                lat[n_lat++] = (uint32_t)((t - c->t0) / 1000);
                if (memmem(c->in + off, (size_t)(nl - (c->in + off)), "\"error\"", 7)) errors++;
                off = (size_t)(nl - c->in) + 1;
                if (++c->next == per) finish = 1;
                else if (off < c->in_len) { /* an answer nobody asked for */
                    errors++;
                    finish = 1;
                } else if (send_next(c)) {
                    errors++;
                    finish = 1;
                }
            }
            if (k <= 0 && c->next < per) errors++;
            memmove(c->in, c->in + off, c->in_len - off);
            c->in_len -= off;
            if (finish) {
                c->done = 1;
                close(c->fd);
                active--;
            }
        }
    }
    double dt = (double)(now_ns() - start) / 1e9;
    long unanswered = 0;
    for (long k = 0; k < clients; k++) unanswered += per - cs[k].next;
    qsort(lat, (size_t)n_lat, sizeof *lat, cmp_u32);
#define PCT(p) (n_lat ? lat[(size_t)((double)(p) * (double)(n_lat - 1))] / 1000.0 : 0.0)
    printf("{\"clients\":%ld,\"requests\":%ld,\"unanswered\":%ld,\"seconds\":%.2f,\"rps\":%.0f,\"p50_ms\":%.2f,"
           "\"p99_ms\":%.2f,\"errors\":%ld}\n",
           clients, n_lat, unanswered, dt, (double)n_lat / dt, PCT(0.5), PCT(0.99), errors);
    fflush(stdout);
    for (long k = 0; k < clients; k++) {
        if (!cs[k].done) close(cs[k].fd);
        free(cs[k].in);
    }
    for (size_t i = 0; i < n_lines; i++) free(lines[i]);
    free(lines);
    free(cs);
    free(lat);
    close(ep);
    return errors || unanswered ? 1 : 0;
}
