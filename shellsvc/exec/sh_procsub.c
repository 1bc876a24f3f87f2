/* SPDX-License-Identifier: Apache-2.0 */
/* Process substitution <( ) and >( ): a list on a pipe named /dev/fd/N. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "box_alloc.h"
#include "sh_internal.h"

/*
 * bash's <(list) and >(list). The word becomes /dev/fd/N, N the highest
 * free shell fd from 63 down (bash's numbers), holding one end of a pipe;
 * the list runs concurrently on a thread of its own, like a pipeline
 * stage, with the other end as its stdout (<( )) or stdin (>( )). Each of
 * its commands is admitted as any other (spec §3.5): the substitution
 * itself decides nothing. The box's commands and redirections open
 * /dev/fd/N as that shell fd (sh_devfd), never through the host.
 *
 * The pipe end belongs to the command whose words made it: when that
 * command is over (sh_exec_node, or the end of the context), the fd is
 * closed, so the list sees EOF or EPIPE and ends (`head -1 <(yes)`), and
 * the list's thread is joined. When the end lives on elsewhere (exec
 * 3< <(list), {fd}< <(list), a job that holds it), the thread is handed
 * to the session instead and joined when the call ends, after the call's
 * own fds closed. A list that neither reads nor writes its pipe holds its
 * command until it ends, as a reader of <(sleep 9) waits in bash.
 */

#define SH_PSUB_TOP 63 // bash's first process substitution fd
#define SH_PSUB_LOW 10 // below: fds a script names itself

struct sh_psub {
    sh_psub *ps_next;
    int ps_fd;         // the shell fd it was given
    sh_stream *ps_end; // our end of the pipe (a ref of its own)
    sh_job *ps_job;    // the list's thread
};

/* The highest free shell fd from SH_PSUB_TOP down, or -1. */
static int
free_fd(const sh_ctx *cx)
{
    for (int i = SH_PSUB_TOP; i >= SH_PSUB_LOW; i--)
        if (cx->cx_fd[i] == NULL)
            return i;
    return -1;
}

/* The list's context: a subshell copy whose stdin or stdout is the other
 * end. It keeps no end of this command's other substitutions, so each
 * one's reader or writer going away is seen by that one alone. */
static sh_ctx *
psub_ctx(sh_ctx *cx, bool out, sh_stream *theirs)
{
    sh_ctx *j = sh_ctx_fork(cx);
    if (j == NULL)
        return NULL;
    for (const sh_psub *p = cx->cx_psubs; p != NULL; p = p->ps_next) {
        if (j->cx_fd[p->ps_fd] == p->ps_end) {
            sh_stream_unref(j->cx_fd[p->ps_fd]);
            j->cx_fd[p->ps_fd] = NULL;
        }
    }
    int io = out ? 0 : 1;
    sh_stream_unref(j->cx_fd[io]);
    j->cx_fd[io] = sh_stream_ref(theirs);
    /* Not an `&` job (cx_bg stays the caller's): at the call's end a list
     * whose end was kept (exec > >(cat)) still gets to read what was
     * written before the end closed, and ends by itself on EOF / EPIPE,
     * or at the call's deadline. */
    j->cx_depth++;
    j->cx_loops = 0;
    j->cx_funcs = 0;
    j->cx_cond = 0;
    return j;
}

int
sh_procsub_open(sh_ctx *cx, const sh_node *body, bool out, char **path)
{
    *path = NULL;
    int st = 1, p[2] = {-1, -1};
    sh_stream *mine = NULL, *theirs = NULL;
    sh_psub *ps = NULL;
    int fd = free_fd(cx);
    if (fd < 0) {
        sh_errf(cx, "process substitution: no free file descriptor");
        goto out;
    }
    if (pipe2(p, O_CLOEXEC) != 0) {
        sh_stop_call(cx, "cannot create pipe");
        goto out;
    }
    mine = sh_stream_fd(out ? p[1] : p[0]);
    if (mine != NULL)
        p[out ? 1 : 0] = -1;
    theirs = sh_stream_fd(out ? p[0] : p[1]);
    if (theirs != NULL)
        p[out ? 0 : 1] = -1;
    ps = box_calloc(1, sizeof *ps);
    char name[32];
    snprintf(name, sizeof name, "/dev/fd/%d", fd);
    *path = box_strdup(name);
    if (mine == NULL || theirs == NULL || ps == NULL || *path == NULL) {
        sh_errf(cx, "out of memory");
        goto out;
    }
    sh_ctx *j = psub_ctx(cx, out, theirs);
    if (j == NULL) {
        sh_errf(cx, "out of memory");
        goto out;
    }
    if ((ps->ps_job = sh_job_start(cx, j, body)) == NULL) // takes j
        goto out;
    ps->ps_fd = fd;
    ps->ps_end = sh_stream_ref(mine);
    ps->ps_next = cx->cx_psubs;
    cx->cx_psubs = ps;
    cx->cx_fd[fd] = mine;
    mine = NULL;
    ps = NULL;
    st = 0;
out:
    if (st != 0) {
        box_free(*path);
        *path = NULL;
    }
    for (int i = 0; i < 2; i++)
        if (p[i] >= 0)
            close(p[i]);
    sh_stream_unref(mine);
    sh_stream_unref(theirs); // the list's context holds its own ref
    box_free(ps);
    return st;
}

void
sh_procsub_end(sh_ctx *cx, sh_psub *mark)
{
    sh_psub *done = NULL;
    // First every end goes (a list may wait on another's reader)...
    while (cx->cx_psubs != NULL && cx->cx_psubs != mark) {
        sh_psub *p = cx->cx_psubs;
        cx->cx_psubs = p->ps_next;
        if (cx->cx_fd[p->ps_fd] == p->ps_end) {
            sh_stream_unref(cx->cx_fd[p->ps_fd]);
            cx->cx_fd[p->ps_fd] = NULL;
        }
        bool last = sh_stream_unref_last(p->ps_end);
        p->ps_end = NULL;
        if (last) {
            p->ps_next = done;
            done = p;
        } else {
            sh_job_orphan(cx->cx_ss, p->ps_job); // its end lives on
            box_free(p);
        }
    }
    // ...then the lists whose end is closed see EOF or EPIPE and end.
    while (done != NULL) {
        sh_psub *p = done;
        done = p->ps_next;
        sh_job_join(cx, p->ps_job);
        box_free(p);
    }
}

int
sh_devfd(const sh_ctx *cx, const char *path)
{
    static const char pre[] = "/dev/fd/";
    int n = -1;
    if (strncmp(path, pre, sizeof pre - 1) == 0) {
        const char *d = path + sizeof pre - 1;
        size_t k = strspn(d, "0123456789");
        if (k == 0 || k > 3 || d[k] != '\0')
            return -1;
        n = (d[0] - '0');
        for (size_t i = 1; i < k; i++)
            n = n * 10 + (d[i] - '0');
    } else if (strcmp(path, "/dev/stdin") == 0) {
        n = 0;
    } else if (strcmp(path, "/dev/stdout") == 0) {
        n = 1;
    } else if (strcmp(path, "/dev/stderr") == 0) {
        n = 2;
    }
    if (n < 0 || n >= SH_MAX_FD || cx->cx_fd[n] == NULL)
        return -1;
    return n;
}

/*
 * A host program gets its stdin (a pipe end) but no other shell fd: the
 * launcher hands box-contain exactly stdin and the capture pipes, and a
 * shell fd is often no OS descriptor at all (a file in the call's memory,
 * a capture). So /dev/fd/N (N >= 3, open in the shell) as an argument is
 * refused with a message, rather than the program failing to open it.
 */
int
sh_procsub_host_check(sh_ctx *cx, int argc, char *const *argv)
{
    static const char pre[] = "/dev/fd/";
    for (int i = 1; i < argc; i++) {
        for (const char *s = strstr(argv[i], pre); s != NULL;
             s = strstr(s + 1, pre)) {
            const char *d = s + sizeof pre - 1;
            size_t k = strspn(d, "0123456789");
            if (k == 0 || k > 3)
                continue;
            char num[4] = {0};
            memcpy(num, d, k);
            int n = (int)strtol(num, NULL, 10);
            if (n < 3 || n >= SH_MAX_FD || cx->cx_fd[n] == NULL)
                continue;
            sh_errf(cx,
                    "%s: /dev/fd/%d: a host program cannot open the "
                    "shell's own descriptors (process substitution, "
                    "exec N>); use a temporary file",
                    argv[0], n);
            return BOX_STATUS_CANNOT_RUN;
        }
    }
    return 0;
}
