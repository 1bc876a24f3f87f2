/* SPDX-License-Identifier: Apache-2.0 */
/* `.` and `source`: a file's text run in the current shell. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_bistate.h"
#include "sh_internal.h"
#include "sh_parse.h"

/*
 * The file is opened and read through the kernel (fs:read, as `cat`
 * reads it), so policy decides whether it may be read; its commands are
 * then admitted one by one like any other text (spec §3.5). A name
 * without a `/` is read from the cwd: bash would look along PATH first,
 * and here PATH names the box's own /bin, never a script.
 */

/* source <(list): reads shell fd fd (a pipe end) to its end into b. */
static int
read_fd(sh_ctx *cx, const char *cmd, const char *path, int fd, box_buf *b)
{
    char buf[8192];
    for (;;) {
        ssize_t n = sh_read(cx, fd, buf, sizeof buf);
        if (n == 0)
            return 0;
        if (n < 0) {
            if (cx->cx_flow != SH_FLOW_NONE)
                return cx->cx_status; // the call is over
            return sh_cmd_err(cx, cmd, 1, "%s: %s", path, strerror(EBADF));
        }
        if (box_buf_append(b, buf, (size_t)n) != BOX_OK)
            return sh_cmd_err(cx, cmd, 1, "%s: file too large", path);
    }
}

int
sh_source_read(sh_ctx *cx, const char *cmd, const char *path, box_buf *b,
               int *oserr)
{
    *oserr = 0;
    int dfd = sh_devfd(cx, path); // source <(list), bash <(list)
    if (dfd >= 0)
        return read_fd(cx, cmd, path, dfd, b);
    sh_kernel_result r = {0};
    sh_kernel_file *f = NULL;
    if (sh_kernel_open(sh_kern(cx), cx->cx_st->st_cwd, path, O_RDONLY, 0, &f,
                       &r) != 0) {
        if (r.kr_outcome == SH_KR_OS_ERROR)
            *oserr = r.kr_errno;
        return sh_fs_fail(cx, NULL, path, &r); // bash: "FILE: <error>"
    }
    sh_kernel_result_clear(&r);
    int st = 0;
    char buf[8192];
    for (;;) {
        ssize_t n = sh_kernel_read(f, buf, sizeof buf);
        if (n == 0)
            break;
        if (n == -EISDIR) {
            st = sh_cmd_err(cx, cmd, 1, "%s: is a directory", path);
            break;
        }
        if (n < 0) {
            st = sh_cmd_err(cx, cmd, 1, "%s: %s", path, strerror((int)-n));
            break;
        }
        if (box_buf_append(b, buf, (size_t)n) != BOX_OK) {
            st = sh_cmd_err(cx, cmd, 1, "%s: file too large", path);
            break;
        }
    }
    sh_kernel_close(f);
    return st;
}

/* Feeds p the next line of shell fd fd (a long one in pieces, so the
 * parser's own cap says "input too large"): 1 when fed, 0 at the end of
 * the input (or when cx must stop), -1 when the parser refused it. */
static int
feed_line(sh_ctx *cx, sh_parser *p, int fd)
{
    char buf[4096];
    size_t n = 0;
    while (n < sizeof buf && sh_read_byte(cx, fd, &buf[n]) == 1)
        if (buf[n++] == '\n')
            break;
    if (n == 0)
        return 0;
    return sh_parser_feed(p, buf, n) == BOX_OK ? 1 : -1;
}

/*
 * Runs the file's text one complete command at a time, as bash does and
 * as a call's text runs (spec §3.2): a parse error on line 3 comes after
 * lines 1-2 ran, as "strands-shell: FILE: line 3: <error>" (path NULL:
 * "line 3: <error>"), status 1. With fd >= 0 the text is read from that
 * shell fd a line at a time instead, as bash reads a script on its stdin:
 * what a command of the script reads from the same fd is what follows
 * it. The arena stays for the session when the file defined functions
 * or started jobs (they point into it).
 */
int
sh_source_text(sh_ctx *cx, const char *path, bool named, const char *text,
               size_t len, int fd)
{
    sh_session *ss = cx->cx_ss;
    box_arena *a = box_arena_new((size_t)64 << 20);
    sh_parser *p = a != NULL ? sh_parser_new(a) : NULL;
    if (p == NULL) {
        box_arena_free(a);
        sh_errf(cx, "out of memory");
        return 1;
    }
    unsigned defs = atomic_load(&ss->ss_funcdefs);
    unsigned jobs = atomic_load(&ss->ss_jobs);
    int st = 0;
    bool perr = false;
    if (fd < 0) {
        if (sh_parser_feed(p, text, len) != BOX_OK)
            perr = true;
        else
            sh_parser_finish(p);
    }
    const char *osource = cx->cx_source;
    if (named && path != NULL)
        cx->cx_source = sh_session_name(ss, path); // NULL: errors unplaced
    while (!perr) {
        sh_node *n = NULL;
        sh_parse_status ps = sh_next_command(cx, p, &n);
        sh_parse_warnings(cx, p, path);
        if (fd >= 0 && (ps == SH_PARSE_MORE || ps == SH_PARSE_END)) {
            int r = feed_line(cx, p, fd);
            if (r < 0) {
                perr = true;
            } else if (r == 0) {
                sh_parser_finish(p);
                fd = -1;
            }
            continue;
        }
        if (ps == SH_PARSE_END || ps == SH_PARSE_MORE)
            break;
        if (ps == SH_PARSE_ERROR) {
            perr = true;
            break;
        }
        atomic_fetch_add(&ss->ss_cmdno, 1); // an alias above applies
        st = sh_exec_node(cx, n);
        // A script, or a `.` file, goes on with its next command after an
        // expansion error (bash's parse_and_execute does so for both).
        if (sh_discarded(cx))
            st = cx->cx_status;
        if (cx->cx_flow != SH_FLOW_NONE)
            break;
    }
    cx->cx_source = osource;
    if (perr) {
        const sh_diag *d = sh_parser_diag(p);
        if (path != NULL)
            sh_box_errf(cx, "%s: line %u: %s", path, (unsigned)d->d_line,
                        d->d_msg);
        else
            sh_box_errf(cx, "line %u: %s", (unsigned)d->d_line, d->d_msg);
        st = 1;
    }
    sh_parser_free(p);
    if (atomic_load(&ss->ss_funcdefs) == defs &&
        atomic_load(&ss->ss_jobs) == jobs)
        box_arena_free(a);
    else if (sh_session_keep(ss, a) != BOX_OK)
        sh_errf(cx, "out of memory");
    return st;
}

/* . FILE [ARGS…]: ARGS, when given, are $1… while FILE runs. */
int
sh_bi_source(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    int i = o->o_ind;
    if (i < argc && strcmp(argv[i], "--") == 0)
        i++;
    if (i >= argc) {
        sh_cmd_err(cx, argv[0], 2, "filename argument required");
        (void)sh_puts(cx, 2, argv[0]);
        (void)sh_puts(cx, 2, ": usage: ");
        (void)sh_puts(cx, 2, argv[0]);
        (void)sh_puts(cx, 2, " filename [arguments]\n");
        return 2;
    }
    const char *path = argv[i];
    box_buf text;
    box_buf_init(&text, SH_MAX_INPUT);
    int oserr;
    int st = sh_source_read(cx, argv[0], path, &text, &oserr);
    if (st != 0 || text.b_len == 0) {
        box_buf_reset(&text);
        return st;
    }
    sh_state *ss = cx->cx_st;
    char **opos = NULL;
    int onpos = 0;
    bool args = i + 1 < argc;
    if (args) {
        opos = ss->st_pos;
        onpos = ss->st_npos;
        ss->st_pos = NULL;
        ss->st_npos = 0;
        if (sh_pos_set(ss, argc - i - 1, argv + i + 1) != BOX_OK) {
            ss->st_pos = opos;
            ss->st_npos = onpos;
            box_buf_reset(&text);
            return sh_cmd_err(cx, argv[0], 1, "out of memory");
        }
    }
    st = 1;
    if (cx->cx_depth >= SH_EXEC_MAX_DEPTH) {
        sh_too_deep(cx);
    } else {
        cx->cx_depth++;
        cx->cx_sourced++;
        // bash's frame for the file: FUNCNAME "source", BASH_SOURCE it.
        const char *name = sh_session_name(cx->cx_ss, path);
        bool pushed = sh_calls_push(ss, SH_CALL_SOURCE, "source",
                                    (uint32_t)cx->cx_line, name) == BOX_OK;
        st = pushed
                 ? sh_source_text(cx, path, true, text.b_data, text.b_len, -1)
                 : sh_cmd_err(cx, argv[0], 1, "out of memory");
        if (pushed)
            sh_calls_pop(ss);
        cx->cx_sourced--;
        cx->cx_depth--;
    }
    if (cx->cx_flow == SH_FLOW_RETURN) { // `return` ends the file
        cx->cx_flow = SH_FLOW_NONE;
        st = cx->cx_status;
    }
    if (args) {
        for (int k = 0; k < ss->st_npos; k++)
            box_free(ss->st_pos[k]);
        box_free(ss->st_pos);
        ss->st_pos = opos;
        ss->st_npos = onpos;
    }
    box_buf_reset(&text);
    cx->cx_status = st;
    sh_trap_return(cx, false);
    return st;
}

int
sh_run_script(sh_ctx *cx, const char *label, const char *text, size_t len)
{
    cx->cx_script = true;
    // A script file's top level is bash's frame "main" (BASH_SOURCE the
    // script; FUNCNAME ends with it inside its functions).
    if (sh_calls_push(cx->cx_st, SH_CALL_MAIN, "main", 0,
                      sh_session_name(cx->cx_ss, label)) != BOX_OK) {
        sh_errf(cx, "out of memory");
        return 1;
    }
    int st = len > 0 ? sh_source_text(cx, label, true, text, len, -1) : 0;
    if (cx->cx_flow == SH_FLOW_EXIT)
        st = cx->cx_status;
    st = sh_trap_exit(cx, st);
    sh_calls_pop(cx->cx_st);
    return st;
}
