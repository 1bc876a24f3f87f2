/* SPDX-License-Identifier: Apache-2.0 */
/* Control socket: health/status for services without a richer protocol. */
#include "box_control.h"

#include <unistd.h>

#include "box_alloc.h"
#include "box_log.h"
#include "box_rpc.h"
#include "box_svc.h"
#include "box_wire.h"
#include "box_wire_scan.h"

// The requests a control socket takes (ControlRequest's body cases).
#define CONTROL_ACCEPTS BOX_WIRE_SCAN_KIND(BOX__CONTROL_REQUEST__BODY_HEALTH)

struct box_control {
    box_rpc_server *ct_srv;
    char *ct_service;
    char *ct_address; // HealthResponse.listen_address, or NULL
    uint64_t ct_started_ms;
};

static void
control_handle(void *arg, const void *req, size_t len, nng_msg *reply)
{
    box_control *c = arg;
    Box__ControlResponse resp = BOX__CONTROL_RESPONSE__INIT;
    Box__HealthResponse h = BOX__HEALTH_RESPONSE__INIT;
    Box__ErrorReply e = BOX__ERROR_REPLY__INIT;
    Box__ControlRequest *r = NULL;
    box_wire_scan_result why;

    if (len > BOX_CONTROL_MSG_MAX) {
        e.code = BOX__ERROR_CODE__ERROR_TOO_LARGE;
        e.message = "control request over its size limit";
        goto error;
    }
    if ((r = (Box__ControlRequest *)box_wire_scan_unpack(
             &box__control_request__descriptor, CONTROL_ACCEPTS, req, len,
             &why)) == NULL) {
        e.code = BOX__ERROR_CODE__ERROR_MALFORMED;
        e.message = why.sr_fault == BOX_WIRE_SCAN_TOO_DEEP
                        ? "control request nests messages deeper "
                          "than " BOX_WIRE_DEPTH_MAX_TEXT
                        : "control request did not decode";
        goto error;
    }
    switch (r->body_case) {
    case BOX__CONTROL_REQUEST__BODY_HEALTH:
        h.service = c->ct_service;
        h.version = BOX_VERSION;
        h.ready = 1;
        h.pid = (uint32_t)getpid();
        h.uptime_ms = box_svc_now_ms() - c->ct_started_ms;
        if (c->ct_address != NULL)
            h.listen_address = c->ct_address;
        resp.body_case = BOX__CONTROL_RESPONSE__BODY_HEALTH;
        resp.health = &h;
        goto send;
    default:
        e.code = BOX__ERROR_CODE__ERROR_INVALID;
        e.message = "unknown control request";
        goto error;
    }
error:
    resp.body_case = BOX__CONTROL_RESPONSE__BODY_ERROR;
    resp.error = &e;
send:
    // No memory for the reply: the empty reply decodes to no body, which
    // every client treats as an error and so as a refusal.
    if (box_rpc_msg_pack(reply, &resp.base) != BOX_OK)
        nng_msg_clear(reply);
    if (r != NULL)
        box__control_request__free_unpacked(r, NULL);
}

box_err
box_control_start(const char *url, const char *service, box_control **out)
{
    return box_control_start_at(url, service, NULL, out);
}

box_err
box_control_start_at(const char *url, const char *service,
                     const char *address, box_control **out)
{
    box_control *c = box_calloc(1, sizeof *c);
    if (c == NULL)
        return BOX_ENOMEM;
    c->ct_started_ms = box_svc_now_ms();
    if ((c->ct_service = box_strdup(service)) == NULL ||
        (address != NULL && (c->ct_address = box_strdup(address)) == NULL)) {
        box_free(c->ct_service);
        box_free(c);
        return BOX_ENOMEM;
    }
    box_err rv = box_rpc_server_start(url, 2, BOX_CONTROL_MSG_MAX * 4,
                                      control_handle, c, &c->ct_srv);
    if (rv != BOX_OK) {
        box_free(c->ct_service);
        box_free(c->ct_address);
        box_free(c);
        return rv;
    }
    *out = c;
    return BOX_OK;
}

void
box_control_stop(box_control *c)
{
    if (c == NULL)
        return;
    box_rpc_server_stop(c->ct_srv);
    box_free(c->ct_service);
    box_free(c->ct_address);
    box_free(c);
}

/* One health question on an open client: ControlRequest{health} on a
 * control socket, PdpRequest{health} on a PDP. */
static box_err
health_call(box_rpc_client *cl, bool pdp, Box__HealthResponse **out)
{
    ProtobufCMessage *m = NULL;
    Box__HealthRequest hr = BOX__HEALTH_REQUEST__INIT;
    Box__ControlRequest creq = BOX__CONTROL_REQUEST__INIT;
    Box__PdpRequest preq = BOX__PDP_REQUEST__INIT;
    creq.body_case = BOX__CONTROL_REQUEST__BODY_HEALTH;
    creq.health = &hr;
    preq.body_case = BOX__PDP_REQUEST__BODY_HEALTH;
    preq.health = &hr;
    *out = NULL;
    box_err rv =
        pdp ? box_rpc_call(cl, &preq.base, &box__pdp_response__descriptor, &m)
            : box_rpc_call(cl, &creq.base, &box__control_response__descriptor,
                           &m);
    if (rv != BOX_OK)
        return rv;
    if (pdp) {
        Box__PdpResponse *resp = (Box__PdpResponse *)m;
        if (resp->body_case == BOX__PDP_RESPONSE__BODY_HEALTH) {
            *out = resp->health; // detach: the caller owns it now
            resp->health = NULL;
            resp->body_case = BOX__PDP_RESPONSE__BODY__NOT_SET;
        }
        box__pdp_response__free_unpacked(resp, NULL);
    } else {
        Box__ControlResponse *resp = (Box__ControlResponse *)m;
        if (resp->body_case == BOX__CONTROL_RESPONSE__BODY_HEALTH) {
            *out = resp->health;
            resp->health = NULL;
            resp->body_case = BOX__CONTROL_RESPONSE__BODY__NOT_SET;
        }
        box__control_response__free_unpacked(resp, NULL);
    }
    return *out != NULL ? BOX_OK : BOX_EPROTO;
}

static box_err
health_once(const char *url, bool pdp, int timeout_ms,
            Box__HealthResponse **out)
{
    box_rpc_client *cl = NULL;
    box_err rv = box_rpc_client_open(url, timeout_ms, &cl);
    *out = NULL;
    if (rv != BOX_OK)
        return rv;
    rv = health_call(cl, pdp, out);
    box_rpc_client_close(cl);
    return rv;
}

box_err
box_control_health(const char *url, int timeout_ms, Box__HealthResponse **out)
{
    return health_once(url, false, timeout_ms, out);
}

box_err
box_pdp_health(const char *url, int timeout_ms, Box__HealthResponse **out)
{
    return health_once(url, true, timeout_ms, out);
}

struct box_health_probe {
    box_rpc_client *hp_client;
    bool hp_pdp;
};

box_err
box_health_probe_open(const char *url, bool pdp, int timeout_ms,
                      box_health_probe **out)
{
    box_health_probe *p = box_calloc(1, sizeof *p);
    if (p == NULL)
        return BOX_ENOMEM;
    p->hp_pdp = pdp;
    box_err rv = box_rpc_client_open(url, timeout_ms, &p->hp_client);
    if (rv != BOX_OK) {
        box_free(p);
        return rv;
    }
    *out = p;
    return BOX_OK;
}

box_err
box_health_probe_ask(box_health_probe *p, Box__HealthResponse **out)
{
    return health_call(p->hp_client, p->hp_pdp, out);
}

void
box_health_probe_close(box_health_probe *p)
{
    if (p == NULL)
        return;
    box_rpc_client_close(p->hp_client);
    box_free(p);
}

int
box_control_serve_until_term(const char *service, const char *url,
                             const sigset_t *sigs)
{
    box_control *ctl = NULL;
    if (url != NULL) {
        box_err rv = box_control_start(url, service, &ctl);
        if (rv != BOX_OK) {
            box_log(BOX_LOG_ERROR, service, "cannot listen on %s: %s", url,
                    box_strerror(rv));
            return 1;
        }
    }
    box_log(BOX_LOG_INFO, service, "ready");
    while (box_svc_wait_signal(sigs) == SIGHUP)
        ;
    box_control_stop(ctl);
    box_log(BOX_LOG_INFO, service, "stopped");
    return 0;
}
