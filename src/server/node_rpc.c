/* A minimal blocking JSON-RPC client for the node (HTTP/1.1 POST with Basic
 * auth, Connection: close), used from the Electrum server's workers. */
#include "server/electrum_internal.h"

#include "json/json_parse.h"

#include <netdb.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define RPC_MAX_REPLY (16u << 20)

static int rpc_connect(const char *host, const char *port, bk_error *err)
{
    struct addrinfo hints = {0}, *ai = NULL;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, port, &hints, &ai) || !ai) {
        bk_error_set(err, BK_ERR_IO, 0, "cannot resolve %s", host);
        return -1;
    }
    int fd = -1;
    for (struct addrinfo *a = ai; a; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, 0);
        if (fd < 0) continue;
        struct timeval tv = {30, 0};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        if (!connect(fd, a->ai_addr, a->ai_addrlen)) break;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(ai);
    if (fd < 0) bk_error_set(err, BK_ERR_IO, 0, "cannot connect to the node at %s:%s", host, port);
    return fd;
}

bk_status bk_node_rpc_call(const char *url, const char *auth, const char *method, const char *params,
                           char **result_out, size_t *len_out, bk_error *err)
{
    char host[256], port[16] = "8332", path[256] = "/";
    if (strncmp(url, "http://", 7)) return bk_error_set(err, BK_ERR_ARG, 0, "--rpc-url must start with http://");
    const char *h = url + 7, *e = h + strcspn(h, ":/");
    if ((size_t)(e - h) >= sizeof host || e == h) return bk_error_set(err, BK_ERR_ARG, 0, "--rpc-url: bad host");
    memcpy(host, h, (size_t)(e - h));
    host[e - h] = 0;
    if (*e == ':') {
        const char *pe = e + 1 + strcspn(e + 1, "/");
        if ((size_t)(pe - e - 1) >= sizeof port || pe == e + 1) return bk_error_set(err, BK_ERR_ARG, 0, "--rpc-url: bad port");
        memcpy(port, e + 1, (size_t)(pe - e - 1));
        port[pe - e - 1] = 0;
        e = pe;
    }
    if (*e == '/' && strlen(e) < sizeof path) strcpy(path, e);

    size_t alen = auth ? strlen(auth) : 0;
    unsigned char *b64 = malloc(4 * ((alen + 2) / 3) + 1);
    size_t blen = strlen(params) + strlen(method) + 64;
    char *body = malloc(blen);
    if (!b64 || !body) {
        free(b64);
        free(body);
        return bk_error_set(err, BK_ERR_NOMEM, 0, "node RPC: out of memory");
    }
    EVP_EncodeBlock(b64, (const unsigned char *)(auth ? auth : ""), (int)alen);
    int bn = snprintf(body, blen, "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"%s\",\"params\":%s}", method, params);
    char head[1024];
    int hn = snprintf(head, sizeof head,
                      "POST %s HTTP/1.1\r\nHost: %s:%s\r\nAuthorization: Basic %s\r\n"
                      "Content-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n",
                      path, host, port, b64, bn);
    free(b64);
    bk_status st = BK_OK;
    char *reply = NULL;
    size_t rlen = 0, rcap = 0;
    int fd = -1;
    if (hn <= 0 || (size_t)hn >= sizeof head) {
        st = bk_error_set(err, BK_ERR_ARG, 0, "node RPC: request header too long");
        goto out;
    }
    if ((fd = rpc_connect(host, port, err)) < 0) {
        st = BK_ERR_IO;
        goto out;
    }
    if (send(fd, head, (size_t)hn, MSG_NOSIGNAL) != hn || send(fd, body, (size_t)bn, MSG_NOSIGNAL) != bn) {
        st = bk_error_set(err, BK_ERR_IO, 0, "node RPC: send failed");
        goto out;
    }
    for (;;) {
        if (rcap - rlen < 4096) {
            if (rcap >= RPC_MAX_REPLY) {
                st = bk_error_set(err, BK_ERR_LENGTH, 0, "node RPC: reply over %u bytes", RPC_MAX_REPLY);
                goto out;
            }
            size_t nc = rcap ? rcap * 2 : 16384;
            char *nr = realloc(reply, nc + 1);
            if (!nr) {
                st = bk_error_set(err, BK_ERR_NOMEM, 0, "node RPC: out of memory");
                goto out;
            }
            reply = nr;
            rcap = nc;
        }
        ssize_t k = recv(fd, reply + rlen, rcap - rlen, 0);
        if (k < 0) {
            st = bk_error_set(err, BK_ERR_IO, 0, "node RPC: no reply from %s:%s", host, port);
            goto out;
        }
        if (!k) break;
        rlen += (size_t)k;
    }
    if (!reply) {
        st = bk_error_set(err, BK_ERR_IO, 0, "node RPC: empty reply");
        goto out;
    }
    reply[rlen] = 0;
    int code = 0;
    if (sscanf(reply, "HTTP/1.%*d %d", &code) != 1) {
        st = bk_error_set(err, BK_ERR_IO, 0, "node RPC: not an HTTP reply");
        goto out;
    }
    if (code == 401 || code == 403) {
        st = bk_error_set(err, BK_ERR_IO, 0, "node RPC: authorization refused (HTTP %d): check --rpc-cookie / --rpc-user",
                          code);
        goto out;
    }
    char *bs = strstr(reply, "\r\n\r\n");
    if (!bs) {
        st = bk_error_set(err, BK_ERR_IO, 0, "node RPC: reply without a body (HTTP %d)", code);
        goto out;
    }
    bs += 4;
    bk_jsondoc d;
    bk_error pe;
    if (bk_jsondoc_parse(&d, bs, strlen(bs), NULL, &pe) != BK_OK) {
        st = bk_error_set(err, BK_ERR_IO, 0, "node RPC: HTTP %d, %s", code, pe.msg);
        goto out;
    }
    const bk_jsonv *ev = bk_jsonv_get(&d, &d.v[0], "error");
    const bk_jsonv *rv = bk_jsonv_get(&d, &d.v[0], "result");
    if (ev && ev->type == BK_JSONV_OBJECT) {
        const bk_jsonv *m = bk_jsonv_get(&d, ev, "message");
        st = bk_error_set(err, BK_ERR_INVALID, 0, "%s: %.150s", method,
                          m && m->type == BK_JSONV_STRING ? bk_jsonv_str(&d, m) : "error");
    } else if (!rv) {
        st = bk_error_set(err, BK_ERR_IO, 0, "node RPC: %s: no result (HTTP %d)", method, code);
    } else {
        size_t clen = rv->end - rv->begin;
        char *copy = malloc(clen + 1);
        if (!copy) {
            st = bk_error_set(err, BK_ERR_NOMEM, 0, "node RPC: out of memory");
        } else {
            memcpy(copy, bs + rv->begin, clen);
            copy[clen] = 0;
            *result_out = copy;
            *len_out = clen;
        }
    }
    bk_jsondoc_free(&d);
out:
    if (fd >= 0) close(fd);
    free(reply);
    free(body);
    return st;
}
