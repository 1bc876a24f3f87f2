/* SPDX-License-Identifier: Apache-2.0 */
/* AWS SigV4: the scope a host names, and a request's signature. */
#ifndef GW_SIGV4_H
#define GW_SIGV4_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "box_err.h"
#include "gw_http.h"

/*
 * An aws:// or credsd:// route signs the agent's request again with the
 * real key (box-spec §6): the agent signed it with a placeholder, so its
 * Authorization is worthless and goes; everything the signature covers is
 * computed here from what will actually be sent upstream.
 *
 * Both functions are pure: no I/O, no clock (the time is an input), no
 * global state.
 */

/* A service or region name: one DNS label at most (63 bytes and a NUL). */
#define GW_SIGV4_NAME_MAX 64

/*
 * The signing scope a host names: its service (the signing name, e.g. "s3"
 * for every S3 endpoint) and region. Read from the right of the host:
 *   SERVICE.REGION.amazonaws.com        ec2.us-west-2, sts.eu-west-1
 *   X.SERVICE.REGION.amazonaws.com      bucket.s3.us-west-2, runtime.lex...
 *   SERVICE[-fips][.dualstack].REGION   s3.dualstack.us-west-2,
 *                                       sts-fips.us-east-1
 *   [X.]s3-REGION.amazonaws.com         S3's legacy dash form
 *   [X.]SERVICE.amazonaws.com           the global endpoints (iam, sts, s3,
 *                                       route53, cloudfront, waf, ...):
 *                                       us-east-1
 *   X.REGION.es.amazonaws.com           OpenSearch domains (es, aoss)
 *   SERVICE.REGION.api.aws              the dual-stack endpoints
 *   ... .amazonaws.com.cn               China: the region must be cn-*
 * A few endpoint names sign under another name (email → ses, s3-control
 * and s3-accesspoint → s3, bedrock-runtime → bedrock); the table is in the
 * .c. host is a name without port or trailing dot, any case.
 *
 * BOX_OK with service and region filled (lowercase); BOX_EINVAL with *why
 * (static text, one clause) when the host names no scope this can read:
 * not an AWS name, no region (s3-accelerate, which serves every region),
 * a multi-region (SigV4A) endpoint, a region of the other partition.
 */
box_err gw_sigv4_scope(const char *host, char service[GW_SIGV4_NAME_MAX],
                       char region[GW_SIGV4_NAME_MAX],
                       const char **why) BOX_WARN_UNUSED;

/*
 * One request to sign, as it will go upstream. Borrowed: nothing here is
 * kept past gw_sigv4_sign.
 *
 * sr_path is the request target's path exactly as the client sent it
 * (percent-encoded, starting with '/'); sr_query what followed its '?'
 * (NULL or "" for none). sr_host is the Host upstream receives; the
 * client's own Host field is not read. sr_fields are the client's header
 * fields in the order sent (gw_http_req's rq_fields). sr_payload is the
 * whole body (NULL when sr_payload_len is 0); it is not read when the
 * client declared x-amz-content-sha256: UNSIGNED-PAYLOAD.
 */
typedef struct gw_sigv4_req {
    const char *sr_method;
    const char *sr_host;
    const char *sr_path;
    const char *sr_query;
    const gw_http_field *sr_fields;
    size_t sr_nfields;
    const void *sr_payload;
    size_t sr_payload_len;
    time_t sr_time;        // the signing time (X-Amz-Date), UTC
    const char *sr_key_id; // the real credential
    const char *sr_secret;
    const char *sr_token;   // session token, or NULL
    const char *sr_service; // from gw_sigv4_scope
    const char *sr_region;
} gw_sigv4_req;

/* One field the gateway sets upstream: sh_name is static text, sh_value
 * the signer's (freed with the output). */
typedef struct gw_sigv4_hdr {
    const char *sh_name;
    char *sh_value;
} gw_sigv4_hdr;

/* Authorization, X-Amz-Date, X-Amz-Security-Token, X-Amz-Content-Sha256. */
#define GW_SIGV4_SET_MAX 4

/*
 * What the gateway does to the client's request before it goes: drop every
 * sr_fields[i] with so_drop[i], then add so_set[0..so_nset). Every other
 * client field must go upstream byte for byte (the signature may cover
 * it), and the Host upstream sees must be sr_host.
 *
 * Dropped: the client's own signing fields (authorization, x-amz-date,
 * x-amz-security-token, x-amz-content-sha256: so_set has the values that
 * go instead) and the hop-by-hop fields (RFC 9110 §7.6.1, with every
 * field a Connection field names).
 *
 * Signed: Host, the fields in so_set but Authorization, and every client
 * field kept except those a hop may rewrite on the way (content-length
 * and expect, which the gateway frames itself; accept-encoding, which it
 * rewrites on a credentialed request; user-agent and x-amzn-trace-id,
 * which AWS's own front ends may touch, and which the SDKs leave unsigned
 * for that reason). That is what AWS's SDKs sign, so a request signs as
 * the agent's SDK would have signed it, and x-amz-* fields (which S3
 * requires signed) and content-type / content-md5 always are.
 *
 * so_creq is the canonical request that was signed (it holds the session
 * token: not for logs).
 */
typedef struct gw_sigv4_out {
    gw_sigv4_hdr so_set[GW_SIGV4_SET_MAX];
    size_t so_nset;
    bool *so_drop; // sr_nfields entries (NULL when sr_nfields is 0)
    char *so_creq;
} gw_sigv4_out;

/*
 * Signs in. On BOX_OK *out is filled (free with gw_sigv4_out_free). On an
 * error *out is empty and needs no free: BOX_EINVAL with *why (static
 * text, one clause) for a request that cannot be signed, e.g. a client's
 * x-amz-content-sha256 that does not match the body or asks for streaming
 * chunk signatures, a query with a bad %-escape, a credential with a
 * control character; BOX_ETOOBIG past GW_SIGV4_CREQ_MAX; BOX_ENOMEM.
 *
 * Key material (the secret, the derived keys) is wiped before returning,
 * on every path; so are the signer's copies of the session token.
 */
#define GW_SIGV4_CREQ_MAX (1024 * 1024)
box_err gw_sigv4_sign(const gw_sigv4_req *in, gw_sigv4_out *out,
                      const char **why) BOX_WARN_UNUSED;

/* Frees and wipes what gw_sigv4_sign put in o, leaving it empty. */
void gw_sigv4_out_free(gw_sigv4_out *o);

#endif
