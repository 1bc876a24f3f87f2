/* SPDX-License-Identifier: Apache-2.0 */
/* The gateway's blocking steps, off its event loop: decisions, DNS, connect. */
#ifndef GW_DECIDE_H
#define GW_DECIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "box_err.h"
#include "box_pdp_client.h"
#include "box_verdict.h"
#include "gw_addr.h"
#include "gw_answer.h"

/*
 * A decision waits on the PDP, a name on DNS, a connect on the far end:
 * none of that may stall the loop holding every other connection, so each
 * runs as a job on a small pool of threads. The loop submits a job and
 * learns it is done when the pool's eventfd turns readable.
 */

/* Addresses tried per name: a name with more is cut. */
#define GW_ADDRS_MAX 16

/* What one permit needs for its outcome to be recorded: its decision's
 * number, and whether policy reads the outcome at all. */
typedef struct gw_ticket {
    uint64_t t_id;
    bool t_wanted;
} gw_ticket;

/*
 * A connection's pinned addresses (box-spec §6: resolved once) and which
 * one is in use. It lives with the client connection across the steps
 * that fill it: the decision before DNS, the resolve, then one decision
 * per address as each is tried. A permit whose outcome policy reads (a
 * ticket wanted) comes only from a job, which then connects itself and
 * records the outcome at once: libcurl's connects have none to record.
 */
typedef struct gw_pins {
    struct sockaddr_storage p_addr[GW_ADDRS_MAX];
    socklen_t p_len[GW_ADDRS_MAX];
    size_t p_n;                  // 0: the host is not decided and resolved
    size_t p_at;                 // the address decided or used now
    bool p_decided;              // p_at's net:connect permitted it
    char p_ip[GW_ADDR_TEXT_MAX]; // p_addr[p_at]'s text, once permitted
    gw_ticket p_host_ticket;     // the decision before DNS
    gw_ticket p_ip_ticket;       // p_at's decision
} gw_pins;

typedef enum gw_job_kind {
    /* net:connect before DNS and resolve once (unless j_pins holds the
     * addresses already), then per pinned address from p_at on, in order:
     * net:connect with ip; with j_connect, connect, and the first that
     * answers is the job's socket (box-spec §6); without, the first
     * permitted address is the job's answer and libcurl connects (unless
     * policy reads a connect's outcome: then the job connects too, so the
     * outcome is known before the request's http:request decision). An
     * address p_decided says is permitted is not decided again. */
    GW_JOB_CONNECT,
    GW_JOB_HTTP, // http:request
    /* An http:request's outcome for the PDP's history (made by
     * gw_decider_record_http; never handed back). */
    GW_JOB_RECORD,
} gw_job_kind;

typedef struct gw_job {
    gw_job_kind j_kind;
    /* In. */
    gw_authority j_auth;
    const char *j_method; // HTTP: borrowed until done
    const char *j_path;   // HTTP: canonical, no query; borrowed
    uint64_t j_body_bytes;
    bool j_intercepted;
    gw_pins *j_pins; // CONNECT: the owner's, filled in place
    bool j_connect;  // CONNECT: make the connection here
    /* Out. j_ok: permitted (and for CONNECT, connected). Otherwise the
     * answer to give (j_answer) and its reason (j_reason, owned). */
    bool j_ok;
    gw_answer_kind j_answer;
    char *j_reason;
    int j_fd; // CONNECT with j_connect: the connected socket, or -1
    /* HTTP: the decision's id, and whether policy reads its outcome
     * (then gw_decider_record_http tells how the exchange ended). */
    uint64_t j_request_id;
    bool j_wants_outcome;
    /* RECORD: the outcome, and the strings the job owns. */
    box_outcome j_outcome;
    char *j_own_method, *j_own_path;
    /* The loop's: who waits for this job, and the sink (the loop) its
     * end goes back to (gw_decider_take). */
    void *j_owner;
    unsigned j_sink;
    uint64_t j_seq; // the decider's: its place in the queue
    struct gw_job *j_next;
} gw_job;

typedef struct gw_decider gw_decider;

struct gw_hosts;

typedef struct gw_decider_opts {
    box_pdp_client *do_pdp; // borrowed; thread-safe
    const struct gw_hosts *do_hosts; // names read before DNS, or NULL
    unsigned do_threads;    // 0: GW_DECIDER_THREADS
    unsigned do_sinks;      // loops taking back their own ended jobs; 0: 1
    int do_connect_ms;      // one address's connect; 0: GW_CONNECT_MS
} gw_decider_opts;

#define GW_DECIDER_THREADS 16
#define GW_DECIDER_SINKS_MAX 16
#define GW_CONNECT_MS 10000

box_err gw_decider_new(const gw_decider_opts *o,
                       gw_decider **out) BOX_WARN_UNUSED;
/* Waits for the running jobs; jobs never taken are left to their owners
 * (gw_decider_take hands them out until it returns NULL). */
void gw_decider_free(gw_decider *d);
/* Readable when jobs of sink are done (gw_decider_take clears it). */
int gw_decider_fd(const gw_decider *d, unsigned sink);
void gw_decider_submit(gw_decider *d, gw_job *j);
/* An HTTP job decided at once, on the caller's thread, when the PDP
 * client's cache holds its permit (no system call, no wait): true with
 * j_ok set. False (j untouched): submit it. */
bool gw_decider_http_now(gw_decider *d, gw_job *j);
/* The jobs of sink done since the last call, as a list, or NULL. */
gw_job *gw_decider_take(gw_decider *d, unsigned sink);

/* A CONNECT job (without j_connect) decided at once on the caller's
 * thread, when its addresses need no DNS (a literal, or the hosts file)
 * and the PDP client's cache holds every permit it needs: true with j_ok
 * set. False: submit it; what was decided stays in its pins, and the job
 * goes on from there. */
bool gw_decider_connect_now(gw_decider *d, gw_job *j);

/* Records, off the loop, how a permitted http:request ended (decided
 * holds the decision: its j_wants_outcome set): ::response with
 * output.status, or ::error when no answer came (box-spec §4). Lost, with
 * a warning, when memory or the PDP fails. */
void gw_decider_record_http(gw_decider *d, const gw_job *decided,
                            const box_outcome *o);

/* Clears a job's outputs (closes its socket, frees its reason). */
void gw_job_clear(gw_job *j);

#endif
