/* SPDX-License-Identifier: Apache-2.0 */
/* Credential routes: which requests carry a real secret, and how (box-spec §6). */
#ifndef GW_CRED_H
#define GW_CRED_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "box_err.h"
#include "gw_http.h"
#include "gw_scrub.h"

struct Box__EgressRoutes;

/*
 * The box's `[egress.NAME]` tables as the gateway holds them: each with its
 * destinations, where its secret goes, the placeholder (phantom) the
 * sandboxes hold instead, and the real secret, which lives only here (in
 * memory, wiped when freed). A request to a declared destination is the
 * only one that ever carries it, and only over TLS.
 */
typedef struct gw_creds gw_creds;

/* Builds the routes from box run's message. BOX_EINVAL with *err (the
 * caller's) for a route that cannot be honoured; BOX_ENOMEM. */
box_err gw_creds_from_wire(const struct Box__EgressRoutes *m, gw_creds **out,
                           char **err) BOX_WARN_UNUSED;
/* Reads the message from fd (to its end; at most 1 MiB) and builds. */
box_err gw_creds_read_fd(int fd, gw_creds **out, char **err) BOX_WARN_UNUSED;
void gw_creds_free(gw_creds *cs);
size_t gw_creds_count(const gw_creds *cs);

#define GW_CRED_EDIT_MAX 8

/* What to change in a request that a route carries, and what to scrub
 * from its answer. Owned strings are wiped when freed. */
typedef struct gw_cred_edit {
    const char *e_route;                 // the route's NAME (borrowed)
    const char *e_drop[GW_CRED_EDIT_MAX]; // field names not sent (borrowed)
    size_t e_ndrop;
    bool *e_drop_field; // or by index into rq_fields (SigV4); NULL: none
    char *e_add[GW_CRED_EDIT_MAX]; // "Name: value" lines sent instead
    size_t e_nadd;
    bool e_query_set; // send e_query (maybe NULL: none) instead of the query
    char *e_query;
    const char *e_needle[GW_SCRUB_NEEDLES]; // what the answer must not hold
    size_t e_needle_len[GW_SCRUB_NEEDLES];
    size_t e_nneedles;
    char *e_own_needle; // a needle of the edit's own (basic_auth's base64)
} gw_cred_edit;

typedef enum gw_cred_verdict {
    GW_CRED_PASS,   // no route names the destination: sent as it is
    GW_CRED_APPLY,  // *edit says what to change
    GW_CRED_REFUSE, // 403 with *reason
} gw_cred_verdict;

/* What the route reads of a request besides its head. */
typedef struct gw_cred_req {
    const gw_http_req *cq_req;
    bool cq_tls;          // it came through an intercepted tunnel
    const void *cq_body;  // the whole body (SigV4 signs it)
    size_t cq_body_len;
    time_t cq_now;        // SigV4's signing time
} gw_cred_req;

/*
 * The route for a request (host, port and canonical path from its head):
 * PASS, or APPLY with *edit filled
 * (free with gw_cred_edit_free), or REFUSE with *reason (static):
 * `credential not permitted on a plaintext request` when the destination
 * has a route and the request is plain HTTP, `blocked by egress control`
 * when a phantom route's placeholder is missing or wrong, or when memory
 * ran out (fail closed).
 */
gw_cred_verdict gw_creds_route(const gw_creds *cs, const gw_cred_req *q,
                               gw_cred_edit *edit, const char **reason);
void gw_cred_edit_free(gw_cred_edit *e);

/* True when the request's field i (named name) is one the edit drops. */
bool gw_cred_edit_drops(const gw_cred_edit *e, size_t i, const char *name);

#define GW_CRED_BLOCKED "blocked by egress control"
#define GW_CRED_PLAINTEXT "credential not permitted on a plaintext request"
#define GW_CRED_RESPONSE_BLOCKED "response blocked by egress control"

#endif
