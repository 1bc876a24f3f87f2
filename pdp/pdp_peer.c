/* SPDX-License-Identifier: Apache-2.0 */
/* The PDP's peer check: parent, or a sibling running our shell or gateway. */
#include "pdp_peer.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_log.h"
#include "box_proctab.h"
#include "box_svc.h"

#define PEER_SVC "box-pdp"

/* The programs that enforce decisions, beside box-pdp: the peers that
 * box-pdp's row of the process table names (box-shell, box-gateway). */
#define PEER_NPROGRAMS BOX_PROC_NAMES_MAX

/* A file's identity; pe_dev == 0 && pe_ino == 0: absent. */
typedef struct peer_id {
    dev_t pe_dev;
    ino_t pe_ino;
} peer_id;

struct pdp_peers {
    pid_t pp_parent;
    uid_t pp_uid;
    peer_id pp_prog[PEER_NPROGRAMS];
    pthread_mutex_t pp_log_lock; // the two fields below
    uint64_t pp_log_at;          // monotonic ms of the last line
    unsigned pp_log_quiet;       // refusals since that line, unsaid
};

box_err
pdp_peers_new(pdp_peers **out)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return BOX_EIO;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash == NULL)
        return BOX_EIO;
    *slash = '\0';
    pdp_peers *pp = box_calloc(1, sizeof *pp);
    if (pp == NULL)
        return BOX_ENOMEM;
    pp->pp_parent = getppid();
    pp->pp_uid = geteuid();
    const char *const *peers = box_proctab_get(BOX_PROC_PDP)->pt_peers;
    for (size_t i = 0; i < PEER_NPROGRAMS && peers[i] != NULL; i++) {
        char path[PATH_MAX + 32];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", self, peers[i]);
        if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {
            pp->pp_prog[i].pe_dev = sb.st_dev;
            pp->pp_prog[i].pe_ino = sb.st_ino;
        }
    }
    pthread_mutex_init(&pp->pp_log_lock, NULL);
    *out = pp;
    return BOX_OK;
}

void
pdp_peers_free(pdp_peers *pp)
{
    if (pp == NULL)
        return;
    pthread_mutex_destroy(&pp->pp_log_lock);
    box_free(pp);
}

/* The parent of pid from /proc/<pid>/stat (the field after the command
 * name, which may hold spaces and parentheses: read past the last ')'),
 * or -1. */
static pid_t
peer_ppid(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    char state;
    long ppid;
    if (p == NULL || sscanf(p + 1, " %c %ld", &state, &ppid) != 2)
        return -1;
    return (pid_t)ppid;
}

/* Why the peer may not send, or NULL when it may. */
static const char *
peer_refusal(const pdp_peers *pp, bool known, pid_t pid, uid_t uid)
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
    if (peer_ppid(pid) != pp->pp_parent)
        return "it is not a process of this box's run";
    char exe[64];
    struct stat sb;
    snprintf(exe, sizeof exe, "/proc/%ld/exe", (long)pid);
    if (stat(exe, &sb) != 0)
        return "its program cannot be identified";
    for (size_t i = 0; i < PEER_NPROGRAMS; i++) {
        const peer_id *id = &pp->pp_prog[i];
        if ((id->pe_dev != 0 || id->pe_ino != 0) && sb.st_dev == id->pe_dev &&
            sb.st_ino == id->pe_ino)
            return NULL;
    }
    return "it is not this box's shell or gateway";
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
