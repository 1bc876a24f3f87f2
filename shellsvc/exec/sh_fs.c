/* SPDX-License-Identifier: Apache-2.0 */
/* Commands' side of the kernel: failure reports and buffered input. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_bistate.h"
#include "sh_internal.h"

#define SH_INPUT_CHUNK (64u * 1024u)

sh_kernel *
sh_kern(const sh_ctx *cx)
{
    return cx->cx_ss->ss_kernel;
}

int
sh_fs_fail(sh_ctx *cx, const char *cmd, const char *target, sh_kernel_result *r)
{
    int status = BOX_STATUS_FAILED;
    const char *m = r->kr_message ? r->kr_message : strerror(r->kr_errno);
    // A denial, a failed decision and the reach floor are the box's own
    // words (spec §3.7), never placed at a script's line; an OS error is
    // bash's.
    const char *source = cx->cx_source;
    if (r->kr_outcome != SH_KR_OS_ERROR && r->kr_outcome != SH_KR_OK)
        cx->cx_source = NULL;
    switch (r->kr_outcome) {
    case SH_KR_FAULT:
        // The PDP could not decide: nothing more of this call may run.
        sh_errf(cx, "effect interception failed: %s", m);
        sh_session_abort(cx->cx_ss, BOX_STATUS_FAULT);
        sh_fatal(cx, BOX_STATUS_FAULT);
        status = BOX_STATUS_FAULT;
        break;
    case SH_KR_FLOOR:
        if (cmd == NULL) {
            sh_errf(cx, "%s", m); // the floor's text names the path (§3.7)
            break;
        }
        sh_errf(cx, "%s: %s", cmd, m);
        break;
    case SH_KR_DENIED:
    case SH_KR_OS_ERROR:
    case SH_KR_OK:
        if (cmd == NULL)
            sh_errf(cx, "%s: %s", target, m);
        else if (sh_kernel_result_self_contained(r) || target == NULL)
            sh_errf(cx, "%s: %s", cmd, m);
        else
            sh_errf(cx, "%s: %s: %s", cmd, target, m);
        break;
    }
    cx->cx_source = source;
    sh_kernel_result_clear(r);
    return status;
}

sh_stream *
sh_stream_open(sh_ctx *cx, const char *cmd, const char *path, const char *shown,
               int flags, int *status)
{
    *status = BOX_STATUS_FAILED;
    int dfd = sh_devfd(cx, path);
    if (dfd >= 0) {
        *status = 0;
        return sh_stream_ref(cx->cx_fd[dfd]);
    }
    if (shown == NULL)
        shown = path;
    sh_kernel_result r = {0};
    sh_kernel_file *f = NULL;
    if (sh_kernel_open(sh_kern(cx), cx->cx_st->st_cwd, path, flags,
                       sh_umask_apply(cx, 0666), &f, &r) != 0) {
        *status = sh_fs_fail(cx, cmd, shown, &r);
        return NULL;
    }
    sh_kernel_result_clear(&r);
    sh_stream *s = sh_stream_file(f);
    if (s == NULL && cmd != NULL)
        sh_errf(cx, "%s: %s: out of memory", cmd, shown);
    else if (s == NULL)
        sh_errf(cx, "%s: out of memory", shown);
    else
        *status = 0;
    return s;
}

struct sh_input {
    sh_ctx *in_cx;
    const char *in_cmd;      // borrowed, for read-error messages
    char *in_name;           // the operand as given
    sh_kernel_file *in_file; // NULL: shell fd in_fd
    int in_fd;               // 0 (stdin), or the N of /dev/fd/N
    char *in_buf;
    size_t in_pos, in_len;
    bool in_eof, in_failed;
    bool in_quiet; // read errors are the caller's to report
    int in_errno;  // what the failed read said
    char *in_line; // assembled line that crossed a buffer boundary
    size_t in_line_cap;
};

sh_input *
sh_input_open(sh_ctx *cx, const char *cmd, const char *operand, int *status)
{
    return sh_input_open_as(cx, cmd, operand, NULL, status);
}

sh_input *
sh_input_open_as(sh_ctx *cx, const char *cmd, const char *operand,
                 const char *shown, int *status)
{
    *status = 1;
    sh_input *in = box_calloc(1, sizeof *in);
    if (in == NULL || (in->in_buf = box_alloc(SH_INPUT_CHUNK)) == NULL ||
        (in->in_name = box_strdup(operand ? operand : "-")) == NULL) {
        sh_cmd_err(cx, cmd, 1, "out of memory");
        sh_input_close(in);
        return NULL;
    }
    in->in_cx = cx;
    in->in_cmd = cmd;
    // /dev/fd/N (a process substitution): shell fd N, not the kernel.
    int dfd = operand != NULL ? sh_devfd(cx, operand) : -1;
    if (dfd >= 0) {
        in->in_fd = dfd;
    } else if (operand != NULL && strcmp(operand, "-") != 0) {
        sh_kernel_result r = {0};
        if (sh_kernel_open(sh_kern(cx), cx->cx_st->st_cwd, operand, O_RDONLY, 0,
                           &in->in_file, &r) != 0) {
            *status = sh_fs_fail(cx, cmd, shown != NULL ? shown : operand, &r);
            sh_input_close(in);
            return NULL;
        }
        sh_kernel_result_clear(&r);
    }
    *status = 0;
    return in;
}

static ssize_t
input_fill(sh_input *in, void *buf, size_t n)
{
    if (in->in_eof || in->in_failed)
        return in->in_failed ? -1 : 0;
    ssize_t r = in->in_file ? sh_kernel_read(in->in_file, buf, n)
                            : sh_read(in->in_cx, in->in_fd, buf, n);
    if (r == 0)
        in->in_eof = true;
    if (r < 0) {
        in->in_failed = true;
        if (in->in_cx->cx_flow != SH_FLOW_NONE)
            return -1; // the call is over (sh_read said so): no read error
        int e = in->in_file ? (int)-r : EIO;
        in->in_errno = e;
        if (in->in_quiet)
            return -1;
        sh_cmd_err(in->in_cx, in->in_cmd, 1, "%s: %s", in->in_name,
                   strerror(e));
        return -1;
    }
    return r;
}

ssize_t
sh_input_read(sh_input *in, void *buf, size_t n)
{
    if (in->in_pos < in->in_len) {
        size_t k = in->in_len - in->in_pos < n ? in->in_len - in->in_pos : n;
        memcpy(buf, in->in_buf + in->in_pos, k);
        in->in_pos += k;
        return (ssize_t)k;
    }
    return input_fill(in, buf, n);
}

void
sh_input_give_back(sh_input *in, size_t n)
{
    if (in->in_file != NULL || n == 0 || in->in_pos < in->in_len ||
        in->in_fd < 0 || in->in_fd >= SH_MAX_FD)
        return;
    sh_stream_give_back(in->in_cx->cx_fd[in->in_fd], n);
}

/* Appends p[0..n) to the assembled line. */
static int
line_append(sh_input *in, size_t have, const char *p, size_t n)
{
    if (have + n + 1 > in->in_line_cap) {
        size_t cap = in->in_line_cap ? in->in_line_cap : 256;
        while (cap < have + n + 1)
            cap *= 2;
        char *nl = box_realloc(in->in_line, cap);
        if (nl == NULL)
            return -1;
        in->in_line = nl;
        in->in_line_cap = cap;
    }
    memcpy(in->in_line + have, p, n);
    return 0;
}

int
sh_input_line(sh_input *in, const char **line, size_t *len)
{
    size_t have = 0;
    for (;;) {
        if (in->in_pos < in->in_len) {
            const char *s = in->in_buf + in->in_pos;
            size_t avail = in->in_len - in->in_pos;
            const char *nl = memchr(s, '\n', avail);
            size_t take = nl ? (size_t)(nl - s) + 1 : avail;
            if (have + take > SH_LINE_MAX) {
                take = SH_LINE_MAX - have;
                nl = s; // a piece ends here
            }
            if (nl != NULL && have == 0) {
                // The common case: the whole line is in the buffer.
                in->in_pos += take;
                *line = s;
                *len = take;
                return 1;
            }
            if (line_append(in, have, s, take) != 0) {
                sh_cmd_err(in->in_cx, in->in_cmd, 1, "out of memory");
                return -1;
            }
            have += take;
            in->in_pos += take;
            if (nl != NULL) {
                *line = in->in_line;
                *len = have;
                return 1;
            }
        }
        ssize_t r = input_fill(in, in->in_buf, SH_INPUT_CHUNK);
        if (r < 0)
            return -1;
        in->in_pos = 0;
        in->in_len = (size_t)r;
        if (r == 0) {
            if (have == 0)
                return 0;
            *line = in->in_line;
            *len = have;
            return 1;
        }
    }
}

int
sh_input_record(sh_input *in, char delim, box_buf *b)
{
    box_buf_truncate(b, 0);
    bool any = false;
    for (;;) {
        if (in->in_pos < in->in_len) {
            const char *s = in->in_buf + in->in_pos;
            size_t avail = in->in_len - in->in_pos;
            const char *e = memchr(s, delim, avail);
            size_t take = e != NULL ? (size_t)(e - s) : avail;
            if (box_buf_append(b, s, take) != BOX_OK)
                return -2;
            in->in_pos += take + (e != NULL);
            any = true;
            if (e != NULL)
                return 1;
        }
        ssize_t r = input_fill(in, in->in_buf, SH_INPUT_CHUNK);
        if (r < 0)
            return -1;
        in->in_pos = 0;
        in->in_len = (size_t)r;
        if (r == 0)
            return any ? 1 : 0;
    }
}

void
sh_input_quiet(sh_input *in)
{
    in->in_quiet = true;
}

bool
sh_input_is_file(const sh_input *in)
{
    if (in->in_file != NULL)
        return sh_kernel_file_regular(in->in_file);
    const sh_stream *s = in->in_fd >= 0 && in->in_fd < SH_MAX_FD
                             ? in->in_cx->cx_fd[in->in_fd]
                             : NULL;
    return s != NULL && sh_stream_regular(s);
}

int
sh_input_errno(const sh_input *in)
{
    return in->in_errno;
}

void
sh_input_close(sh_input *in)
{
    if (in == NULL)
        return;
    if (in->in_file != NULL)
        sh_kernel_close(in->in_file);
    box_free(in->in_name);
    box_free(in->in_buf);
    box_free(in->in_line);
    box_free(in);
}
