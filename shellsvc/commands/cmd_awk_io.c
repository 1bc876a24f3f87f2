/* SPDX-License-Identifier: Apache-2.0 */
/* awk's input and output: records by RS (one byte, paragraphs, a regex)
 * from the operands or stdin, getline's forms, print's redirections, and
 * close/fflush/system. Files open through the kernel (policy decides each
 * one); a command (`cmd | getline`, `print | cmd`, system) runs as a
 * command of this shell, admitted as any other. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "cmd_awk.h"
#include "sh_glob.h"

#define RD_CHUNK (64u * 1024u)

struct awk_reader {
    sh_input *rd_in;         // an operand or a shell fd
    sh_kernel_file *rd_file; // getline < file
    char *rd_buf;
    size_t rd_start, rd_len, rd_cap;
    bool rd_eof;
    bool rd_err;
    char *rd_name; // a main input's operand (messages)
};

/* ORDER AWK_STREAM kinds */
enum { SK_OUT, SK_PIPE_OUT, SK_IN_FILE, SK_IN_CMD };

struct awk_stream {
    char *s_name;
    int s_kind;
    sh_stream *s_out;    // SK_OUT
    box_buf s_pipe;      // SK_PIPE_OUT: the command's input, run at close
    awk_reader *s_rd;    // SK_IN_*
    int s_status;        // SK_IN_CMD: the command's exit status
    awk_stream *s_next;
};

/* The buffer holds rd_cap bytes and one more: a NUL always follows the
 * rd_len held, because regexec (RS as a regex) reads a C string even
 * when told its end (REG_STARTEND). */
static awk_reader *
reader_new(void)
{
    awk_reader *r = box_calloc(1, sizeof *r);
    if (r != NULL && (r->rd_buf = box_alloc(RD_CHUNK + 1)) == NULL) {
        box_free(r);
        return NULL;
    }
    if (r != NULL) {
        r->rd_cap = RD_CHUNK;
        r->rd_buf[0] = '\0';
    }
    return r;
}

static void
reader_free(awk_reader *r)
{
    if (r == NULL)
        return;
    sh_input_close(r->rd_in);
    if (r->rd_file != NULL)
        sh_kernel_close(r->rd_file);
    box_free(r->rd_name);
    box_free(r->rd_buf);
    box_free(r);
}

/* Reads more bytes after those held: false at the end (or an error). */
static bool
reader_fill(awk *a, awk_reader *r)
{
    if (r->rd_eof)
        return false;
    if (r->rd_start > 0) {
        memmove(r->rd_buf, r->rd_buf + r->rd_start, r->rd_len - r->rd_start);
        r->rd_len -= r->rd_start;
        r->rd_start = 0;
        r->rd_buf[r->rd_len] = '\0';
    }
    if (r->rd_len == r->rd_cap) {
        if (r->rd_cap >= AWK_STR_MAX) {
            awk_fatal(a, "record too long (limit %u MiB)", AWK_STR_MAX >> 20);
            return false;
        }
        char *b = box_realloc(r->rd_buf, r->rd_cap * 2 + 1);
        if (b == NULL) {
            awk_fatal(a, "out of memory");
            return false;
        }
        r->rd_buf = b;
        r->rd_cap *= 2;
    }
    ssize_t k;
    if (r->rd_in != NULL)
        k = sh_input_read(r->rd_in, r->rd_buf + r->rd_len, r->rd_cap - r->rd_len);
    else if (r->rd_file != NULL)
        k = sh_kernel_read(r->rd_file, r->rd_buf + r->rd_len,
                           r->rd_cap - r->rd_len);
    else
        k = 0;
    if (k <= 0) {
        r->rd_eof = true;
        r->rd_err = k < 0;
        return false;
    }
    r->rd_len += (size_t)k;
    r->rd_buf[r->rd_len] = '\0';
    return true;
}

static void
set_rt(awk *a, const char *p, size_t n)
{
    awk_val *v = &a->a_globals[V_RT].c_val;
    awk_val_free(v);
    *v = awk_str(a, p, n);
    a->a_globals[V_RT].c_kind = CK_SCALAR;
}

/* The next record of r by RS: 1 with *rec, *len (valid until the next
 * read), 0 at the end, -1 on an error or a fatal. */
static int
reader_record(awk *a, awk_reader *r, const char **rec, size_t *len)
{
    size_t rl;
    const char *rs = awk_var_str(a, V_RS, &rl);
    bool para = rl == 0;
    awk_re *re = NULL;
    if (rl > 1 && (re = awk_re_dynamic(a, rs, rl)) == NULL)
        return -1;
    if (para) {
        // leading newlines are no record
        for (;;) {
            while (r->rd_start < r->rd_len && r->rd_buf[r->rd_start] == '\n')
                r->rd_start++;
            if (r->rd_start < r->rd_len || !reader_fill(a, r))
                break;
        }
    }
    size_t from = 0; // bytes of the window already searched
    for (;;) {
        const char *b = r->rd_buf + r->rd_start;
        size_t n = r->rd_len - r->rd_start;
        size_t so = 0, eo = 0;
        bool hit = false;
        if (para) {
            for (size_t i = from; i + 1 < n; i++)
                if (b[i] == '\n' && b[i + 1] == '\n') {
                    so = i;
                    eo = i + 2;
                    while (eo < n && b[eo] == '\n')
                        eo++;
                    hit = eo < n || r->rd_eof;
                    break;
                }
        } else if (re != NULL) {
            hit = n > 0 && awk_re_exec(re, b, n, 0, false, &so, &eo) && eo > so;
            // a match touching the end may grow with more input
            if (hit && eo == n && !r->rd_eof)
                hit = false;
        } else {
            const char *p = memchr(b + from, rs[0], n - from);
            if (p != NULL) {
                so = (size_t)(p - b);
                eo = so + 1;
                hit = true;
            }
        }
        if (hit) {
            *rec = b;
            *len = so;
            set_rt(a, b + so, eo - so);
            r->rd_start += eo;
            return 1;
        }
        if (!para && re == NULL)
            from = n;
        else if (para && n > 0)
            from = n - 1;
        if (!reader_fill(a, r)) {
            if (a->a_fatal)
                return -1;
            b = r->rd_buf + r->rd_start;
            n = r->rd_len - r->rd_start;
            if (n == 0)
                return r->rd_err ? -1 : 0;
            if (para)
                while (n > 0 && b[n - 1] == '\n')
                    n--;
            *rec = b;
            *len = n;
            set_rt(a, b + n, r->rd_len - r->rd_start - n);
            r->rd_start = r->rd_len;
            return 1;
        }
    }
}

/* ---- the main input ---- */

static void
set_var_num(awk *a, int slot, double d)
{
    awk_val *v = &a->a_globals[slot].c_val;
    awk_val_free(v);
    *v = awk_num(d);
    a->a_globals[slot].c_kind = CK_SCALAR;
}

static void
set_var_str(awk *a, int slot, const char *s, size_t n)
{
    awk_val *v = &a->a_globals[slot].c_val;
    awk_val_free(v);
    *v = awk_str(a, s, n);
    a->a_globals[slot].c_kind = CK_SCALAR;
}

/* An operand `var=value` (a name, then '='): assigns it as -v does. */
bool awk_cmdline_assign(awk *a, const char *arg);

/* Opens the next input operand of ARGV: true when one is open. */
static bool
open_next(awk *a)
{
    for (;;) {
        awk_cell *argc = &a->a_globals[V_ARGC];
        int n = (int)awk_tonum(&argc->c_val);
        awk_cell *av = &a->a_globals[V_ARGV];
        const char *name = NULL;
        awk_val *e = NULL;
        if (a->a_argi < n && av->c_kind == CK_ARRAY) {
            char k[32];
            int kl = snprintf(k, sizeof k, "%d", a->a_argi);
            e = awk_arr_get(a, av->c_arr, k, (size_t)kl, false);
        }
        if (a->a_argi >= n) {
            if (a->a_read_any)
                return false;
            name = "-";
            a->a_read_any = true;
        } else {
            a->a_argi++;
            if (e == NULL)
                continue;
            size_t l;
            name = awk_tostr(a, e, &l);
            if (l == 0)
                continue;
            if (awk_cmdline_assign(a, name)) {
                if (a->a_fatal)
                    return false;
                continue;
            }
            a->a_read_any = true;
        }
        char *nm = box_strdup(name);
        if (nm == NULL) {
            awk_fatal(a, "out of memory");
            return false;
        }
        awk_reader *r = reader_new();
        int st = 0;
        if (r != NULL) {
            char *shown =
                box_asprintf("fatal: cannot open file `%s' for reading", nm);
            r->rd_in = shown != NULL ? sh_input_open_as(a->a_cx, "awk", nm,
                                                        shown, &st)
                                     : NULL;
            box_free(shown);
        }
        if (r == NULL || r->rd_in == NULL) {
            reader_free(r);
            if (st == BOX_STATUS_FAULT) {
                box_free(nm);
                a->a_fatal = true;
                a->a_status = st;
                return false;
            }
            // gawk's fatal: the run ends (END rules do not run)
            a->a_status = 2;
            a->a_fatal = true;
            box_free(nm);
            return false;
        }
        sh_input_quiet(r->rd_in);
        r->rd_name = box_strdup(nm);
        a->a_main = r;
        set_var_str(a, V_FILENAME, strcmp(nm, "-") == 0 && a->a_argi >= n ? "" : nm,
                    strcmp(nm, "-") == 0 && a->a_argi >= n ? 0 : strlen(nm));
        set_var_num(a, V_FNR, 0);
        box_free(nm);
        return true;
    }
}

void
awk_nextfile(awk *a)
{
    reader_free(a->a_main);
    a->a_main = NULL;
}

/* The next main record: 1 with *rec, 0 at the end, -1 to stop. */
static int
main_record(awk *a, const char **rec, size_t *len)
{
    for (;;) {
        if (a->a_main_done)
            return 0;
        if (a->a_main == NULL && !open_next(a)) {
            if (a->a_fatal)
                return -1;
            a->a_main_done = true;
            return 0;
        }
        int got = reader_record(a, a->a_main, rec, len);
        if (got < 0 && !a->a_fatal && a->a_main->rd_in != NULL &&
            sh_input_errno(a->a_main->rd_in) == EISDIR) {
            // gawk skips a directory operand with a warning
            sh_errf(a->a_cx,
                    "awk: warning: command line argument `%s' is a "
                    "directory: skipped",
                    a->a_main->rd_name ? a->a_main->rd_name : "");
            got = 0;
        }
        if (got != 0)
            return got;
        awk_nextfile(a);
    }
}

static void
count_record(awk *a, bool fnr)
{
    set_var_num(a, V_NR, awk_tonum(&a->a_globals[V_NR].c_val) + 1);
    if (fnr)
        set_var_num(a, V_FNR, awk_tonum(&a->a_globals[V_FNR].c_val) + 1);
}

int
awk_next_main(awk *a)
{
    const char *rec;
    size_t len;
    int got = main_record(a, &rec, &len);
    if (got <= 0)
        return got;
    awk_set_record(a, rec, len);
    count_record(a, true);
    return a->a_fatal ? -1 : 1;
}

/* ---- streams ---- */

static awk_stream *
stream_find(awk *a, const char *name, size_t n, bool input)
{
    for (awk_stream *s = a->a_streams; s != NULL; s = s->s_next)
        if (strlen(s->s_name) == n && memcmp(s->s_name, name, n) == 0 &&
            ((s->s_kind == SK_IN_FILE || s->s_kind == SK_IN_CMD) == input))
            return s;
    return NULL;
}

static awk_stream *
stream_add(awk *a, const char *name, size_t n, int kind)
{
    awk_stream *s = box_calloc(1, sizeof *s);
    if (s == NULL || (s->s_name = box_strndup(name, n)) == NULL) {
        box_free(s);
        awk_fatal(a, "out of memory");
        return NULL;
    }
    s->s_kind = kind;
    box_buf_init(&s->s_pipe, AWK_STR_MAX);
    s->s_next = a->a_streams;
    a->a_streams = s;
    return s;
}

/* Runs cmd as a command of this shell: its stdin from in (NULL: the
 * shell's), its stdout into *out when out is not NULL. Its status. */
static int
run_command(awk *a, const char *cmd, size_t n, sh_stream *in, char **out,
            size_t *outlen, bool flush)
{
    sh_ctx *cx = a->a_cx;
    if (flush && !awk_flush_stdout(a))
        return -1;
    sh_ctx *sub = sh_ctx_fork(cx);
    if (sub == NULL) {
        awk_fatal(a, "out of memory");
        return -1;
    }
    if (in != NULL) {
        sh_stream_unref(sub->cx_fd[0]);
        sub->cx_fd[0] = sh_stream_ref(in);
    }
    sh_stream *cap = NULL;
    if (out != NULL) {
        cap = sh_stream_buf(AWK_STR_MAX);
        if (cap == NULL) {
            sh_ctx_free(sub);
            awk_fatal(a, "out of memory");
            return -1;
        }
        sh_stream_unref(sub->cx_fd[1]);
        sub->cx_fd[1] = sh_stream_ref(cap);
    }
    // the command runs in the shell's locale, not awk's
    if (a->a_oldloc != (locale_t)0)
        uselocale(a->a_oldloc);
    int st = sh_exec_text(sub, cmd, n, "awk");
    if (a->a_oldloc != (locale_t)0)
        (void)uselocale(sh_glob_locale());
    sh_ctx_free(sub);
    if (cap != NULL) {
        *out = sh_stream_buf_take(cap, outlen);
        sh_stream_unref(cap);
    }
    if (sh_check_stop(cx) || st == BOX_STATUS_FAULT) {
        a->a_fatal = true;
        a->a_status = st == BOX_STATUS_FAULT ? st : cx->cx_status ? cx->cx_status : 1;
        return -1;
    }
    return st;
}

int
awk_system(awk *a, const char *cmd, size_t n)
{
    return run_command(a, cmd, n, NULL, NULL, NULL, true);
}

/* The reader of a `getline < file` or `cmd | getline` stream (opened or
 * run the first time). NULL when it cannot be read (-1 for getline). */
static awk_reader *
input_stream(awk *a, const char *name, size_t n, bool cmd)
{
    awk_stream *s = stream_find(a, name, n, true);
    if (s != NULL)
        return s->s_rd;
    s = stream_add(a, name, n, cmd ? SK_IN_CMD : SK_IN_FILE);
    if (s == NULL)
        return NULL;
    awk_reader *r = reader_new();
    if (r == NULL) {
        awk_fatal(a, "out of memory");
        return NULL;
    }
    s->s_rd = r;
    if (cmd) {
        char *out = NULL;
        size_t olen = 0;
        s->s_status = run_command(a, s->s_name, n, NULL, &out, &olen, true);
        if (out != NULL) {
            char *b = box_realloc(out, olen + 1); // room for the NUL
            if (b == NULL) {
                box_free(out);
                awk_fatal(a, "out of memory");
                return NULL;
            }
            b[olen] = '\0';
            box_free(r->rd_buf);
            r->rd_buf = b;
            r->rd_len = olen;
            r->rd_cap = olen;
        }
        r->rd_eof = true;
        return a->a_fatal ? NULL : r;
    }
    if (strcmp(s->s_name, "-") == 0 || strcmp(s->s_name, "/dev/stdin") == 0) {
        int st;
        r->rd_in = sh_input_open(a->a_cx, "awk", "-", &st);
        return r->rd_in != NULL ? r : NULL;
    }
    sh_kernel_result kr = {0};
    if (sh_kernel_open(sh_kern(a->a_cx), a->a_cx->cx_st->st_cwd, s->s_name,
                       O_RDONLY, 0, &r->rd_file, &kr) != 0) {
        // gawk says nothing of a file it cannot read (getline is -1); a
        // policy refusal is said, as every refused effect is
        if (kr.kr_outcome == SH_KR_OS_ERROR) {
            sh_kernel_result_clear(&kr);
        } else {
            int st = sh_fs_fail(a->a_cx, "awk", s->s_name, &kr);
            if (st == BOX_STATUS_FAULT) {
                a->a_fatal = true;
                a->a_status = st;
            }
        }
        r->rd_eof = true;
        r->rd_err = true;
        return NULL;
    }
    sh_kernel_result_clear(&kr);
    return r;
}

awk_val
awk_getline(awk *a, awk_node *n)
{
    const char *rec = NULL;
    size_t len = 0;
    int got;
    bool cmd = n->n_idx == GL_CMD;
    if (n->n_idx == GL_PLAIN) {
        got = main_record(a, &rec, &len);
    } else {
        awk_val fv = awk_eval(a, n->n_b);
        size_t fl;
        const char *f = awk_tostr(a, &fv, &fl);
        awk_reader *r = a->a_fatal ? NULL : input_stream(a, f, fl, cmd);
        awk_val_free(&fv);
        if (r == NULL)
            return awk_num(a->a_fatal ? 0 : -1);
        got = reader_record(a, r, &rec, &len);
        if (got == 0 && r->rd_err)
            got = -1;
    }
    if (got <= 0 || a->a_fatal)
        return awk_num(got);
    if (n->n_a != NULL) {
        awk_assign(a, n->n_a, awk_input(a, rec, len));
    } else {
        awk_set_record(a, rec, len);
    }
    if (n->n_idx == GL_PLAIN)
        count_record(a, true);
    return awk_num(1);
}

/* ---- output ---- */

bool
awk_flush_stdout(awk *a)
{
    if (a->a_out.b_len == 0)
        return true;
    bool ok = sh_cmd_emit(&a->a_run, a->a_out.b_data, a->a_out.b_len);
    box_buf_truncate(&a->a_out, 0);
    if (!ok && !a->a_fatal) {
        a->a_fatal = true;
        a->a_status = a->a_run.cr_status;
    }
    return ok;
}

bool
awk_output(awk *a, int rd, awk_node *target, const char *p, size_t n)
{
    awk_val tv = awk_eval(a, target);
    size_t tl;
    const char *t = awk_tostr(a, &tv, &tl);
    bool ok = true;
    if (a->a_fatal) {
        ok = false;
        goto out;
    }
    if (rd != RD_PIPE && ((tl == 11 && memcmp(t, "/dev/stdout", 11) == 0) ||
                          (tl == 1 && t[0] == '-'))) {
        ok = n == 0 || box_buf_append(&a->a_out, p, n) == BOX_OK;
        goto out;
    }
    if (rd != RD_PIPE && tl == 11 && memcmp(t, "/dev/stderr", 11) == 0) {
        ok = awk_flush_stdout(a);
        (void)sh_write(a->a_cx, 2, p, n);
        goto out;
    }
    awk_stream *s = stream_find(a, t, tl, false);
    if (s == NULL) {
        s = stream_add(a, t, tl, rd == RD_PIPE ? SK_PIPE_OUT : SK_OUT);
        if (s == NULL) {
            ok = false;
            goto out;
        }
        if (rd != RD_PIPE) {
            int st = 1;
            s->s_out = sh_stream_open(a->a_cx, "awk", s->s_name, NULL,
                                      O_WRONLY | O_CREAT |
                                          (rd == RD_APPEND ? O_APPEND : O_TRUNC),
                                      &st);
            if (s->s_out == NULL) {
                // the message is out; gawk ends the run here
                a->a_fatal = true;
                a->a_status = st == BOX_STATUS_FAULT ? st : 2;
                ok = false;
                goto out;
            }
        }
    }
    if (s->s_kind == SK_PIPE_OUT) {
        ok = n == 0 || box_buf_append(&s->s_pipe, p, n) == BOX_OK;
        if (!ok)
            awk_fatal(a, "output to `%s' too large to hold", s->s_name);
    } else if (s->s_out != NULL && n > 0 &&
               sh_stream_write(a->a_cx, s->s_out, p, n, true) != SH_IO_OK) {
        int e = errno;
        if (a->a_cx->cx_flow != SH_FLOW_NONE) {
            a->a_fatal = true;
            a->a_status = a->a_cx->cx_status;
        } else {
            awk_fatal(a, "print to \"%s\" failed (%s)", s->s_name, strerror(e));
        }
        ok = false;
    }
out:
    awk_val_free(&tv);
    return ok;
}

/* Ends stream s: a pipe's command runs on what was printed to it (after
 * awk's own output so far when flush, as close() does; at exit gawk runs
 * them before its last output). */
static int
stream_end(awk *a, awk_stream *s, bool flush)
{
    int st = 0;
    if (s->s_kind == SK_PIPE_OUT && !a->a_fatal) {
        size_t n = s->s_pipe.b_len;
        char *bytes = box_buf_take(&s->s_pipe);
        sh_stream *in = sh_stream_mem_take(bytes, bytes ? n : 0);
        if (in == NULL) {
            awk_fatal(a, "out of memory");
            return -1;
        }
        st = run_command(a, s->s_name, strlen(s->s_name), in, NULL, NULL,
                         flush);
        sh_stream_unref(in);
    } else if (s->s_kind == SK_IN_CMD) {
        st = s->s_status;
    }
    sh_stream_unref(s->s_out);
    reader_free(s->s_rd);
    box_buf_reset(&s->s_pipe);
    box_free(s->s_name);
    box_free(s);
    return st;
}

int
awk_close(awk *a, const char *name, size_t n)
{
    for (awk_stream **pp = &a->a_streams; *pp != NULL; pp = &(*pp)->s_next) {
        awk_stream *s = *pp;
        if (strlen(s->s_name) == n && memcmp(s->s_name, name, n) == 0) {
            *pp = s->s_next;
            return stream_end(a, s, true);
        }
    }
    return -1;
}

int
awk_fflush(awk *a, const char *name, bool all)
{
    if (all || (name != NULL && strcmp(name, "/dev/stdout") == 0))
        return awk_flush_stdout(a) ? 0 : -1;
    return stream_find(a, name, strlen(name), false) != NULL ? 0 : -1;
}

void
awk_io_end(awk *a)
{
    // newest first, as gawk closes them at exit, then awk's own output
    while (a->a_streams != NULL) {
        awk_stream *s = a->a_streams;
        a->a_streams = s->s_next;
        (void)stream_end(a, s, false);
    }
    (void)awk_flush_stdout(a);
    reader_free(a->a_main);
    a->a_main = NULL;
}
