/* SPDX-License-Identifier: Apache-2.0 */
/* Protobuf request/reply over nng: a client with deadlines, an aio server. */
#include "box_rpc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nng/protocol/reqrep0/rep.h>
#include <nng/protocol/reqrep0/req.h>

#include "box_alloc.h"
#include "box_wire_scan.h"

/* ------------------------------------------------------------------ */
/* Client                                                              */
/* ------------------------------------------------------------------ */

struct box_rpc_client {
    nng_socket rc_sock;
    int rc_timeout_ms;
    char *rc_url;
};

static box_err
rpc_map_nng(int rv)
{
    switch (rv) {
    case 0:
        return BOX_OK;
    case NNG_ETIMEDOUT:
        return BOX_ETIMEDOUT;
    case NNG_ENOMEM:
        return BOX_ENOMEM;
    case NNG_EMSGSIZE:
        return BOX_ETOOBIG;
    case NNG_EINVAL:
    case NNG_EADDRINVAL:
        return BOX_EINVAL;
    default:
        return BOX_ECLOSED;
    }
}

box_err
box_rpc_client_open(const char *url, int timeout_ms, box_rpc_client **out)
{
    box_rpc_client *c = box_calloc(1, sizeof *c);
    if (c == NULL)
        return BOX_ENOMEM;
    c->rc_timeout_ms = timeout_ms > 0 ? timeout_ms : 1;
    if ((c->rc_url = box_strdup(url)) == NULL) {
        box_free(c);
        return BOX_ENOMEM;
    }
    int rv = nng_req0_open(&c->rc_sock);
    if (rv != 0) {
        box_free(c->rc_url);
        box_free(c);
        return rpc_map_nng(rv);
    }
    // Reconnect fast: a service that restarts must be reachable again
    // well within one call's deadline.
    (void)nng_socket_set_ms(c->rc_sock, NNG_OPT_RECONNMINT, 10);
    (void)nng_socket_set_ms(c->rc_sock, NNG_OPT_RECONNMAXT, 200);
    (void)nng_socket_set_size(c->rc_sock, NNG_OPT_RECVMAXSZ, 0);
    // Non-blocking dial: the server may not be up yet; nng keeps trying.
    rv = nng_dial(c->rc_sock, url, NULL, NNG_FLAG_NONBLOCK);
    if (rv != 0) {
        nng_close(c->rc_sock);
        box_free(c->rc_url);
        box_free(c);
        return rpc_map_nng(rv);
    }
    *out = c;
    return BOX_OK;
}

/* nng 1.5.2 can hang in nng_close on a REQ socket after a request timed
 * out while its reply was in flight (upstream nng issues #1543, #1813).
 * A client must never hang on close, so the close runs on a helper thread
 * and is abandoned after RPC_CLOSE_WAIT_MS (the socket then leaks; the
 * process is normally about to exit). */
#define RPC_CLOSE_WAIT_MS 1000

typedef struct rpc_closer {
    nng_socket cl_sock;
    pthread_mutex_t cl_lock;
    pthread_cond_t cl_done_cv;
    bool cl_done;
    bool cl_abandoned;
} rpc_closer;

static void
rpc_closer_free(rpc_closer *cl)
{
    pthread_mutex_destroy(&cl->cl_lock);
    pthread_cond_destroy(&cl->cl_done_cv);
    box_free(cl);
}

static void *
rpc_closer_main(void *arg)
{
    rpc_closer *cl = arg;
    nng_close(cl->cl_sock);
    pthread_mutex_lock(&cl->cl_lock);
    cl->cl_done = true;
    bool abandoned = cl->cl_abandoned;
    pthread_cond_signal(&cl->cl_done_cv);
    pthread_mutex_unlock(&cl->cl_lock);
    if (abandoned)
        rpc_closer_free(cl);
    return NULL;
}

void
box_rpc_close_socket(nng_socket sock)
{
    rpc_closer *cl = box_calloc(1, sizeof *cl);
    pthread_t th;
    if (cl == NULL) {
        nng_close(sock);
        return;
    }
    cl->cl_sock = sock;
    pthread_mutex_init(&cl->cl_lock, NULL);
    pthread_cond_init(&cl->cl_done_cv, NULL);
    if (pthread_create(&th, NULL, rpc_closer_main, cl) != 0) {
        nng_close(sock);
        rpc_closer_free(cl);
        return;
    }
    pthread_detach(th);
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += RPC_CLOSE_WAIT_MS / 1000;
    pthread_mutex_lock(&cl->cl_lock);
    while (!cl->cl_done &&
           pthread_cond_timedwait(&cl->cl_done_cv, &cl->cl_lock, &dl) == 0)
        ;
    bool done = cl->cl_done;
    cl->cl_abandoned = !done;
    pthread_mutex_unlock(&cl->cl_lock);
    if (done)
        rpc_closer_free(cl);
}

void
box_rpc_client_close(box_rpc_client *c)
{
    if (c == NULL)
        return;
    box_rpc_close_socket(c->rc_sock);
    box_free(c->rc_url);
    box_free(c);
}

const char *
box_rpc_client_url(const box_rpc_client *c)
{
    return c->rc_url;
}

static int64_t
rpc_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

box_err
box_rpc_call_raw(box_rpc_client *c, const void *req, size_t len,
                 const ProtobufCMessageDescriptor *resp_desc,
                 ProtobufCMessage **resp)
{
    box_err ret = BOX_ENOMEM;
    nng_ctx ctx = NNG_CTX_INITIALIZER;
    nng_aio *aio = NULL;
    nng_msg *msg = NULL;
    bool ctx_open = false;
    int64_t deadline = rpc_now_ms() + c->rc_timeout_ms;
    int rv;

    *resp = NULL;
    if ((rv = nng_aio_alloc(&aio, NULL, NULL)) != 0) {
        ret = rpc_map_nng(rv);
        goto out;
    }
    if ((rv = nng_ctx_open(&ctx, c->rc_sock)) != 0) {
        ret = rpc_map_nng(rv);
        goto out;
    }
    ctx_open = true;
    // Never resend: the deadline below is the only retry policy, and a
    // resent decision could be decided twice.
    (void)nng_ctx_set_ms(ctx, NNG_OPT_REQ_RESENDTIME, NNG_DURATION_INFINITE);

    if ((rv = nng_msg_alloc(&msg, len)) != 0) {
        ret = rpc_map_nng(rv);
        goto out;
    }
    if (len > 0)
        memcpy(nng_msg_body(msg), req, len);
    nng_aio_set_msg(aio, msg);
    nng_aio_set_timeout(aio, c->rc_timeout_ms);
    nng_ctx_send(ctx, aio);
    nng_aio_wait(aio);
    if ((rv = nng_aio_result(aio)) != 0) {
        // On failure the message is still ours.
        ret = rpc_map_nng(rv);
        goto out;
    }
    msg = NULL;

    int64_t left = deadline - rpc_now_ms();
    if (left <= 0) {
        ret = BOX_ETIMEDOUT;
        goto out;
    }
    nng_aio_set_timeout(aio, (nng_duration)left);
    nng_ctx_recv(ctx, aio);
    nng_aio_wait(aio);
    if ((rv = nng_aio_result(aio)) != 0) {
        ret = rpc_map_nng(rv);
        goto out;
    }
    msg = nng_aio_get_msg(aio);
    *resp = box_wire_scan_unpack(resp_desc, BOX_WIRE_SCAN_ANY,
                                 nng_msg_body(msg), nng_msg_len(msg), NULL);
    ret = *resp != NULL ? BOX_OK : BOX_EPROTO;

out:
    if (msg != NULL)
        nng_msg_free(msg);
    if (ctx_open)
        nng_ctx_close(ctx);
    if (aio != NULL)
        nng_aio_free(aio);
    return ret;
}

box_err
box_rpc_call(box_rpc_client *c, const ProtobufCMessage *req,
             const ProtobufCMessageDescriptor *resp_desc,
             ProtobufCMessage **resp)
{
    size_t n = protobuf_c_message_get_packed_size(req);
    uint8_t stackbuf[512];
    uint8_t *buf = n <= sizeof stackbuf ? stackbuf : box_alloc(n);
    if (buf == NULL)
        return BOX_ENOMEM;
    protobuf_c_message_pack(req, buf);
    box_err rv = box_rpc_call_raw(c, buf, n, resp_desc, resp);
    if (buf != stackbuf)
        box_free(buf);
    return rv;
}

/* ------------------------------------------------------------------ */
/* Server                                                              */
/* ------------------------------------------------------------------ */

enum rpc_state { RPC_RECV, RPC_SEND };

typedef struct rpc_worker {
    struct box_rpc_server *w_srv;
    nng_aio *w_aio;
    nng_ctx w_ctx;
    enum rpc_state w_state;
} rpc_worker;

struct box_rpc_server {
    nng_socket rs_sock;
    box_rpc_handler rs_handler;
    void *rs_arg;
    box_rpc_peer_fn rs_peer; // NULL: every peer may send
    void *rs_peer_arg;
    int rs_nworkers;
    rpc_worker *rs_workers;
    atomic_int rs_stopping;
    atomic_int rs_sending; // replies in flight, waited for on stop
};

static void
rpc_worker_cb(void *arg)
{
    rpc_worker *w = arg;
    box_rpc_server *s = w->w_srv;
    nng_msg *msg;
    int rv;

    switch (w->w_state) {
    case RPC_RECV:
        rv = nng_aio_result(w->w_aio);
        if (rv == NNG_ECLOSED || rv == NNG_ECANCELED)
            return;
        if (rv != 0 || atomic_load(&s->rs_stopping)) {
            if (rv == 0)
                nng_msg_free(nng_aio_get_msg(w->w_aio));
            if (!atomic_load(&s->rs_stopping))
                nng_ctx_recv(w->w_ctx, w->w_aio);
            return;
        }
        msg = nng_aio_get_msg(w->w_aio);
        nng_msg *reply = NULL;
        if (nng_msg_alloc(&reply, 0) != 0) {
            // No memory for a reply: drop this request; the client's
            // deadline turns it into a refusal.
            nng_msg_free(msg);
            nng_ctx_recv(w->w_ctx, w->w_aio);
            return;
        }
        s->rs_handler(s->rs_arg, nng_msg_body(msg), nng_msg_len(msg), reply);
        nng_msg_free(msg);
        atomic_fetch_add(&s->rs_sending, 1);
        w->w_state = RPC_SEND;
        nng_aio_set_msg(w->w_aio, reply);
        nng_ctx_send(w->w_ctx, w->w_aio);
        return;
    case RPC_SEND:
        rv = nng_aio_result(w->w_aio);
        atomic_fetch_sub(&s->rs_sending, 1);
        if (rv != 0)
            nng_msg_free(nng_aio_get_msg(w->w_aio));
        if (rv == NNG_ECLOSED || rv == NNG_ECANCELED)
            return;
        w->w_state = RPC_RECV;
        if (!atomic_load(&s->rs_stopping))
            nng_ctx_recv(w->w_ctx, w->w_aio);
        return;
    }
}

/* NNG_PIPE_EV_ADD_PRE: a connection that the peer check refuses is
 * closed here, before nng adds it to the socket. */
static void
rpc_pipe_cb(nng_pipe p, nng_pipe_ev ev, void *arg)
{
    box_rpc_server *s = arg;
    box_rpc_peer peer = {0};
    uint64_t pid = 0, uid = 0;
    if (ev != NNG_PIPE_EV_ADD_PRE)
        return;
    if (nng_pipe_get_uint64(p, NNG_OPT_IPC_PEER_PID, &pid) == 0 &&
        nng_pipe_get_uint64(p, NNG_OPT_IPC_PEER_UID, &uid) == 0 && pid > 0) {
        peer.rp_known = true;
        peer.rp_pid = (pid_t)pid;
        peer.rp_uid = (uid_t)uid;
    }
    if (!s->rs_peer(s->rs_peer_arg, &peer))
        (void)nng_pipe_close(p);
}

box_err
box_rpc_server_start(const char *url, int ncontexts, size_t transport_max,
                     box_rpc_handler handler, void *arg, box_rpc_server **out)
{
    return box_rpc_server_start_checked(url, ncontexts, transport_max, handler,
                                        arg, NULL, NULL, out);
}

box_err
box_rpc_server_start_checked(const char *url, int ncontexts,
                             size_t transport_max, box_rpc_handler handler,
                             void *arg, box_rpc_peer_fn peer, void *peer_arg,
                             box_rpc_server **out)
{
    box_err ret = BOX_ENOMEM;
    int rv;
    box_rpc_server *s = box_calloc(1, sizeof *s);
    if (s == NULL)
        return BOX_ENOMEM;
    s->rs_handler = handler;
    s->rs_arg = arg;
    s->rs_peer = peer;
    s->rs_peer_arg = peer_arg;
    atomic_init(&s->rs_stopping, 0);
    atomic_init(&s->rs_sending, 0);
    if (ncontexts < 1)
        ncontexts = 1;

    if ((rv = nng_rep0_open(&s->rs_sock)) != 0) {
        box_free(s);
        return rpc_map_nng(rv);
    }
    (void)nng_socket_set_size(s->rs_sock, NNG_OPT_RECVMAXSZ, transport_max);
    if ((s->rs_workers = box_calloc((size_t)ncontexts, sizeof(rpc_worker))) ==
        NULL)
        goto fail;
    for (int i = 0; i < ncontexts; i++) {
        rpc_worker *w = &s->rs_workers[i];
        w->w_srv = s;
        if ((rv = nng_aio_alloc(&w->w_aio, rpc_worker_cb, w)) != 0 ||
            (rv = nng_ctx_open(&w->w_ctx, s->rs_sock)) != 0) {
            ret = rpc_map_nng(rv);
            goto fail;
        }
        s->rs_nworkers = i + 1;
    }
    // Before listening: no connection may arrive unchecked.
    if (peer != NULL && (rv = nng_pipe_notify(s->rs_sock, NNG_PIPE_EV_ADD_PRE,
                                              rpc_pipe_cb, s)) != 0) {
        ret = rpc_map_nng(rv);
        goto fail;
    }
    // nng removes a stale ipc socket file itself, and refuses a live one.
    if ((rv = nng_listen(s->rs_sock, url, NULL, 0)) != 0) {
        ret = rv == NNG_EADDRINUSE ? BOX_EBUSY : rpc_map_nng(rv);
        goto fail;
    }
    for (int i = 0; i < s->rs_nworkers; i++) {
        s->rs_workers[i].w_state = RPC_RECV;
        nng_ctx_recv(s->rs_workers[i].w_ctx, s->rs_workers[i].w_aio);
    }
    *out = s;
    return BOX_OK;

fail:
    for (int i = 0; i < ncontexts && s->rs_workers != NULL; i++) {
        if (s->rs_workers[i].w_aio != NULL)
            nng_aio_free(s->rs_workers[i].w_aio);
    }
    nng_close(s->rs_sock);
    box_free(s->rs_workers);
    box_free(s);
    return ret;
}

void
box_rpc_server_stop(box_rpc_server *s)
{
    if (s == NULL)
        return;
    // Drain: take no new requests, give replies in flight up to a second.
    atomic_store(&s->rs_stopping, 1);
    // Then no connection is put to a peer_arg about to go (one arriving
    // now is never served: the contexts take no new request).
    if (s->rs_peer != NULL)
        (void)nng_pipe_notify(s->rs_sock, NNG_PIPE_EV_ADD_PRE, NULL, NULL);
    for (int i = 0; i < 100 && atomic_load(&s->rs_sending) > 0; i++)
        usleep(10000);
    for (int i = 0; i < s->rs_nworkers; i++)
        nng_aio_stop(s->rs_workers[i].w_aio);
    for (int i = 0; i < s->rs_nworkers; i++) {
        nng_ctx_close(s->rs_workers[i].w_ctx);
        nng_aio_free(s->rs_workers[i].w_aio);
    }
    box_rpc_close_socket(s->rs_sock);
    box_free(s->rs_workers);
    box_free(s);
}

box_err
box_rpc_msg_pack(nng_msg *msg, const ProtobufCMessage *m)
{
    size_t n = protobuf_c_message_get_packed_size(m);
    size_t old = nng_msg_len(msg);
    if (nng_msg_realloc(msg, old + n) != 0)
        return BOX_ENOMEM;
    protobuf_c_message_pack(m, (uint8_t *)nng_msg_body(msg) + old);
    return BOX_OK;
}

void
box_rpc_unlink_ipc(const char *url)
{
    if (strncmp(url, "ipc://", 6) == 0)
        (void)unlink(url + 6);
}
