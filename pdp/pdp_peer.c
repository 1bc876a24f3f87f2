/* SPDX-License-Identifier: Apache-2.0 */
/* The PDP's peer check: parent, or a sibling running our shell or gateway. */
#include "pdp_peer.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_log.h"
#include "box_svc.h"
#include "pdp_peer_ident.h"

#define PEER_SVC "box-pdp"

struct pdp_peers {
    pid_t pp_parent;
    uid_t pp_uid;
    pdp_peer_ident pp_ident;     // who a sibling is (pdp_peer_ident.h)
    pthread_mutex_t pp_ask_lock; // one question at a time to pp_ident
    pthread_mutex_t pp_log_lock; // the two fields below
    uint64_t pp_log_at;          // monotonic ms of the last line
    unsigned pp_log_quiet;       // refusals since that line, unsaid
};

box_err
pdp_peers_new(pdp_peers **out)
{
    pdp_peers *pp = box_calloc(1, sizeof *pp);
    if (pp == NULL)
        return BOX_ENOMEM;
    pp->pp_parent = getppid();
    pp->pp_uid = geteuid();
    box_err rv = pdp_peer_ident_start(pp->pp_parent, &pp->pp_ident);
    if (rv != BOX_OK) {
        box_free(pp);
        return rv;
    }
    pthread_mutex_init(&pp->pp_ask_lock, NULL);
    pthread_mutex_init(&pp->pp_log_lock, NULL);
    *out = pp;
    return BOX_OK;
}

int
pdp_peers_fd(const pdp_peers *pp)
{
    return pp->pp_ident.pi_fd;
}

void
pdp_peers_free(pdp_peers *pp)
{
    if (pp == NULL)
        return;
    pdp_peer_ident_stop(&pp->pp_ident);
    pthread_mutex_destroy(&pp->pp_ask_lock);
    pthread_mutex_destroy(&pp->pp_log_lock);
    box_free(pp);
}

/* ORDER PDP_PEER_KIND: why the identifier's answer refuses. */
static const char *const peer_kind_refusal[] = {
    [PDP_PEER_UNANSWERED] = "box-pdp's peer identifier did not answer",
    [PDP_PEER_OURS] = NULL,
    [PDP_PEER_NOT_OF_RUN] = "it is not a process of this box's run",
    [PDP_PEER_NO_PROGRAM] = "its program cannot be identified",
    [PDP_PEER_NOT_OURS] = "it is not this box's shell or gateway",
};

/* Why the peer may not send, or NULL when it may. */
static const char *
peer_refusal(pdp_peers *pp, bool known, pid_t pid, uid_t uid)
{
    if (!known)
        return "the transport does not say who it is";
    if (uid != pp->pp_uid)
        return "it runs as another user";
    // A PDP whose parent is gone serves no one: its box is over, and the
    // pid it noted may be someone else's now.
    if (getppid() != pp->pp_parent)
        return "this PDP's parent is gone";
    if (pid == pp->pp_parent)
        return NULL;
    pthread_mutex_lock(&pp->pp_ask_lock);
    pdp_peer_kind kind = pdp_peer_ident_ask(&pp->pp_ident, pid);
    pthread_mutex_unlock(&pp->pp_ask_lock);
    return peer_kind_refusal[kind];
}

/* One line per PDP_PEER_LOG_MS at most: a peer that reconnects in a loop
 * must not flood the log. */
static void
peer_log(pdp_peers *pp, pid_t pid, uid_t uid, bool known, const char *why)
{
    uint64_t now = box_svc_now_ms();
    unsigned quiet = 0;
    bool say = false;
    pthread_mutex_lock(&pp->pp_log_lock);
    if (pp->pp_log_at == 0 || now - pp->pp_log_at >= PDP_PEER_LOG_MS) {
        say = true;
        quiet = pp->pp_log_quiet;
        pp->pp_log_quiet = 0;
        pp->pp_log_at = now;
    } else {
        pp->pp_log_quiet++;
    }
    pthread_mutex_unlock(&pp->pp_log_lock);
    if (!say)
        return;
    char who[64] = "", more[80] = "";
    if (known)
        snprintf(who, sizeof who, " from pid %ld (uid %lu)", (long)pid,
                 (unsigned long)uid);
    if (quiet > 0)
        snprintf(more, sizeof more, " (and %u more since the last such line)",
                 quiet);
    box_log(BOX_LOG_WARN, PEER_SVC,
            "refused a connection%s: %s; nothing it sends is decided or "
            "logged%s",
            who, why, more);
}

bool
pdp_peers_allow(pdp_peers *pp, bool known, pid_t pid, uid_t uid)
{
    const char *why = peer_refusal(pp, known, pid, uid);
    if (why == NULL)
        return true;
    peer_log(pp, pid, uid, known, why);
    return false;
}
