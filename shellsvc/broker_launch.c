/* SPDX-License-Identifier: Apache-2.0 */
/* Launch frames: descriptors, the permit, the argv, the launcher. */
#include "broker_launch.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_log.h"
#include "sh_launcher.h"
#include "sh_spawn.h"

#define BL_SVC "box-shell"
#define BL_PERMITS_MAX 32 // a call's pipeline stages decide, then launch
#define BL_FDS_MAX 4      // stdin, stdout, stderr, status

/* One unused shell:spawn permit. */
typedef struct bl_permit {
    char **bp_args; // command_args: [0] the reported program path
    size_t bp_nargs;
    char *bp_cwd;
} bl_permit;

struct broker_permits {
    bl_permit bs_p[BL_PERMITS_MAX];
    size_t bs_n;
};

broker_permits *
broker_permits_new(void)
{
    return box_calloc(1, sizeof(broker_permits));
}

static void
bl_permit_clear(bl_permit *p)
{
    for (size_t i = 0; i < p->bp_nargs; i++)
        box_free(p->bp_args[i]);
    box_free(p->bp_args);
    box_free(p->bp_cwd);
    memset(p, 0, sizeof *p);
}

static void
bl_drop(broker_permits *ps, size_t i)
{
    bl_permit_clear(&ps->bs_p[i]);
    memmove(&ps->bs_p[i], &ps->bs_p[i + 1],
            (ps->bs_n - i - 1) * sizeof ps->bs_p[0]);
    ps->bs_n--;
    memset(&ps->bs_p[ps->bs_n], 0, sizeof ps->bs_p[0]);
}

void
broker_permits_free(broker_permits *p)
{
    if (p == NULL)
        return;
    while (p->bs_n > 0)
        bl_drop(p, p->bs_n - 1);
    box_free(p);
}

void
broker_permits_note(broker_permits *ps, const Box__DecisionRequest *req)
{
    const Box__Subject *s = req->subject;
    if (req->action == NULL || strcmp(req->action, "shell:spawn") != 0 ||
        s == NULL || s->n_command_args == 0 || s->working_directory == NULL)
        return;
    if (ps->bs_n == BL_PERMITS_MAX)
        bl_drop(ps, 0);
    bl_permit *p = &ps->bs_p[ps->bs_n];
    if ((p->bp_args = box_calloc(s->n_command_args, sizeof(char *))) == NULL)
        return; // not noted: its launch is refused, never wrongly allowed
    p->bp_nargs = s->n_command_args;
    bool ok = (p->bp_cwd = box_strdup(s->working_directory)) != NULL;
    for (size_t i = 0; ok && i < s->n_command_args; i++)
        ok = (p->bp_args[i] = box_strdup(s->command_args[i] ? s->command_args[i]
                                                            : "")) != NULL;
    if (!ok) {
        bl_permit_clear(p);
        return;
    }
    ps->bs_n++;
}

/* Takes the permit naming reported + argv[1..] in cwd, if there is one. */
static bool
bl_take(broker_permits *ps, const char *reported, const Box__Launch *l)
{
    for (size_t i = 0; i < ps->bs_n; i++) {
        const bl_permit *p = &ps->bs_p[i];
        if (p->bp_nargs != l->n_argv || strcmp(p->bp_cwd, l->cwd) != 0 ||
            strcmp(p->bp_args[0], reported) != 0)
            continue;
        size_t k = 1;
        while (k < l->n_argv && strcmp(p->bp_args[k], l->argv[k]) == 0)
            k++;
        if (k == l->n_argv) {
            bl_drop(ps, i);
            return true;
        }
    }
    return false;
}

/* The run's descriptors, sent before the frame; n of them or -1. */
static int
bl_recv_fds(int sock, int fds[BL_FDS_MAX])
{
    char op;
    struct iovec iov = {.iov_base = &op, .iov_len = 1};
    union {
        char buf[CMSG_SPACE(BL_FDS_MAX * sizeof(int))];
        struct cmsghdr align;
    } cm;
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = cm.buf,
                         .msg_controllen = sizeof cm.buf};
    ssize_t n;
    do {
        n = recvmsg(sock, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    } while (n < 0 && errno == EINTR);
    if (n != 1)
        return -1;
    int got = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL;
         c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        size_t nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        int in[BL_FDS_MAX];
        if (nfd > BL_FDS_MAX)
            nfd = BL_FDS_MAX;
        memcpy(in, CMSG_DATA(c), nfd * sizeof(int));
        for (size_t i = 0; i < nfd; i++) {
            if (got < BL_FDS_MAX)
                fds[got++] = in[i];
            else
                close(in[i]);
        }
    }
    if ((msg.msg_flags & MSG_CTRUNC) != 0) {
        for (int i = 0; i < got; i++)
            close(fds[i]);
        return -1;
    }
    return got;
}

box_err
broker_launch(const broker_launch_cfg *cfg, broker_permits *ps, int fds_sock,
              const Box__Launch *l, bool *started, char **refusal)
{
    const worker_settings *ws = cfg->bl_settings;
    int fds[BL_FDS_MAX];
    int n = bl_recv_fds(fds_sock, fds);
    box_argv cargv = {0};
    char *reported = NULL, *err = NULL;
    box_err rv = BOX_EPROTO;

    *started = false;
    *refusal = NULL;
    if (n != (l->has_stdin ? 4 : 3) || l->n_argv == 0 || l->cwd == NULL ||
        l->cwd[0] != '/' || l->n_argv > INT32_MAX)
        goto out;
    for (size_t i = 0; i < l->n_argv; i++)
        if (l->argv[i] == NULL)
            goto out;
    const int *io = fds + (l->has_stdin ? 1 : 0);
    sh_spawn_run_opts o = {.ro_contain = ws->ws_contain_bin,
                           .ro_cwd = l->cwd,
                           .ro_workspace = ws->ws_workspace,
                           .ro_box_dir = ws->ws_box_dir};
    rv = BOX_OK;
    if (ws->ws_config == NULL || ws->ws_contain_bin == NULL) {
        *refusal = box_strdup("host-binary execution requires a contained "
                              "spawner; none is installed");
        goto out;
    }
    box_err pr = sh_spawn_prepare(ws->ws_config, ws->ws_trusted_path,
                                  ws->ws_operator_home, (int)l->n_argv,
                                  l->argv, &o, &reported, &cargv, &err);
    if (pr == BOX_OK && !bl_take(ps, reported, l)) {
        box_log(BOX_LOG_WARN, BL_SVC,
                "a shell worker asked to launch %s with no permit for it; "
                "refused",
                reported);
        err = box_strdup("no shell:spawn permit names this run");
        pr = BOX_EDENIED;
    }
    if (pr == BOX_OK)
        pr = sh_launcher_run(cfg->bl_launcher, cargv.av_v,
                             l->has_stdin ? fds[0] : -1, io[0], io[1], io[2]);
    if (pr == BOX_OK) {
        *started = true;
    } else if (pr == BOX_EDENIED) {
        *refusal = err;
        err = NULL;
    } else {
        *refusal = box_asprintf("the box could not start the program: %s",
                                box_strerror(pr));
    }
out:
    for (int i = 0; i < n; i++)
        close(fds[i]);
    box_free(err);
    box_free(reported);
    box_argv_free(&cargv);
    return rv;
}
