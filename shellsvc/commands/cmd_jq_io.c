/* SPDX-License-Identifier: Apache-2.0 */
/* jq's input: operands read through the kernel and parsed as jq 1.6's
 * jq_util_input does (never fopen: libjq's own reader would open files
 * behind the kernel's back). */
#include <errno.h>
#include <string.h>

#include "box_alloc.h"
#include "box_status.h"
#include "cmd_jq.h"

#define JQ_READ_AHEAD (64u * 1024u) // bytes taken from sh_input at once
// --slurpfile, --rawfile and -f hold their file whole: at most this much.
#define JQ_FILE_MAX (256u << 20)

box_err
jq_in_init(jq_in *in, sh_cmd_run *r, char **files, int nfiles, bool raw,
           bool slurp, int parser_flags)
{
    memset(in, 0, sizeof *in);
    in->ji_run = r;
    in->ji_files = files;
    in->ji_nfiles = nfiles;
    in->ji_slurped = jv_invalid();
    if ((in->ji_buf = box_alloc(JQ_CHUNK)) == NULL ||
        (in->ji_rd = box_alloc(JQ_READ_AHEAD)) == NULL)
        return BOX_ENOMEM;
    if (!raw && (in->ji_parser = jv_parser_new(parser_flags)) == NULL)
        return BOX_ENOMEM;
    if (slurp)
        in->ji_slurped = raw ? jv_string("") : jv_array();
    return BOX_OK;
}

void
jq_in_free(jq_in *in)
{
    sh_input_close(in->ji_cur);
    in->ji_cur = NULL;
    box_free(in->ji_name);
    in->ji_name = NULL;
    if (in->ji_parser != NULL)
        jv_parser_free(in->ji_parser);
    in->ji_parser = NULL;
    jv_free(in->ji_slurped);
    in->ji_slurped = jv_invalid();
    box_free(in->ji_buf);
    in->ji_buf = NULL;
    box_free(in->ji_rd);
    in->ji_rd = NULL;
}

/* Opens the next operand, as jq names it: "<stdin>" for "-". A failure
 * is counted (jq goes on with the next one and exits 2). */
static void
in_open_next(jq_in *in)
{
    sh_cmd_run *r = in->ji_run;
    const char *f = in->ji_files[in->ji_next++];
    bool std = strcmp(f, "-") == 0;
    in->ji_line = 0;
    in->ji_cur_eof = false;
    in->ji_rdlen = 0;
    in->ji_rdpos = 0;
    if ((in->ji_name = box_strdup(std ? "<stdin>" : f)) == NULL) {
        r->cr_status = sh_cmd_err(r->cr_cx, "jq", 2, "error: out of memory");
        in->ji_stopped = true;
        return;
    }
    char *shown = box_asprintf("error: Could not open file %s", f);
    int st = 0;
    in->ji_cur = sh_input_open_as(r->cr_cx, "jq", std ? NULL : f,
                                  shown != NULL ? shown : f, &st);
    box_free(shown);
    if (in->ji_cur == NULL) {
        in->ji_failures++;
        if (st == BOX_STATUS_FAULT || !sh_cmd_live(r)) {
            r->cr_status = st == BOX_STATUS_FAULT ? st : r->cr_status;
            in->ji_stopped = true;
        }
    } else {
        sh_input_quiet(in->ji_cur); // a read error is jq's to word
    }
}

/* Refills the read-ahead; false at the end of the operand (or an error,
 * or the end of the call). */
static bool
in_fill(jq_in *in)
{
    sh_cmd_run *r = in->ji_run;
    if (!sh_cmd_live(r)) {
        in->ji_stopped = true;
        return false;
    }
    ssize_t n = sh_input_read(in->ji_cur, in->ji_rd, JQ_READ_AHEAD);
    if (n < 0 && !sh_cmd_live(r)) {
        in->ji_stopped = true;
        return false;
    }
    if (n < 0) {
        // The operand counts as failed (status 2); jq 1.6 says nothing
        // of a directory, "Input error: <strerror>" of the rest.
        int e = sh_input_errno(in->ji_cur);
        if (e != EISDIR)
            sh_errf(r->cr_cx, "Input error: %s", strerror(e != 0 ? e : EIO));
        in->ji_failures++;
    }
    in->ji_rdlen = n > 0 ? (size_t)n : 0;
    in->ji_rdpos = 0;
    return n > 0;
}

/* fgets(buf, JQ_CHUNK): up to a newline or JQ_CHUNK - 1 bytes. Sets
 * ji_cur_eof when the operand ended before either. */
static size_t
in_fgets(jq_in *in, bool *nl)
{
    size_t n = 0;
    *nl = false;
    while (n < JQ_CHUNK - 1) {
        if (in->ji_rdpos >= in->ji_rdlen && !in_fill(in)) {
            in->ji_cur_eof = true;
            break;
        }
        const char *s = in->ji_rd + in->ji_rdpos;
        size_t avail = in->ji_rdlen - in->ji_rdpos;
        size_t want = JQ_CHUNK - 1 - n;
        if (avail > want)
            avail = want;
        const char *e = memchr(s, '\n', avail);
        size_t take = e != NULL ? (size_t)(e - s) + 1 : avail;
        memcpy(in->ji_buf + n, s, take);
        n += take;
        in->ji_rdpos += take;
        if (e != NULL) {
            *nl = true;
            break;
        }
    }
    return n;
}

/* jq_util_input_read_more: the next chunk into ji_buf (ji_len), opening
 * the next operand when the current one ended. True when it was the
 * last: no operand left and the current one at its end. */
static bool
in_read_more(jq_in *in)
{
    if (in->ji_cur == NULL || in->ji_cur_eof) {
        if (in->ji_cur != NULL || in->ji_name != NULL) {
            sh_input_close(in->ji_cur);
            in->ji_cur = NULL;
            box_free(in->ji_name);
            in->ji_name = NULL;
            in->ji_line = 0;
        }
        if (in->ji_next < in->ji_nfiles && !in->ji_stopped)
            in_open_next(in);
    }
    in->ji_len = 0;
    in->ji_pos = 0;
    if (in->ji_cur != NULL && !in->ji_cur_eof && !in->ji_stopped) {
        bool nl;
        size_t n = in_fgets(in, &nl);
        if (nl) {
            in->ji_line++;
            in->ji_len = n;
        } else {
            in->ji_len = n;
        }
    }
    return in->ji_stopped || (in->ji_next >= in->ji_nfiles &&
                              (in->ji_cur == NULL || in->ji_cur_eof));
}

/* -R: lines as strings (a line may run on into the next operand). */
static jv
in_next_raw(jq_in *in)
{
    jv value = jv_invalid();
    bool last;
    do {
        last = in_read_more(in);
        if (in->ji_len == 0)
            continue;
        if (jv_is_valid(in->ji_slurped)) {
            in->ji_slurped = jv_string_concat(
                in->ji_slurped, jv_string_sized(in->ji_buf, (int)in->ji_len));
            continue;
        }
        if (!jv_is_valid(value))
            value = jv_string("");
        if (in->ji_buf[in->ji_len - 1] == '\n')
            return jv_string_concat(
                value, jv_string_sized(in->ji_buf, (int)in->ji_len - 1));
        value = jv_string_concat(value,
                                 jv_string_sized(in->ji_buf, (int)in->ji_len));
    } while (!last);
    if (jv_is_valid(in->ji_slurped)) {
        jv_free(value);
        value = in->ji_slurped;
        in->ji_slurped = jv_invalid();
    }
    return value;
}

jv
jq_in_next(jq_in *in)
{
    if (in->ji_stopped)
        return jv_invalid();
    if (in->ji_parser == NULL)
        return in_next_raw(in);
    jv value = jv_invalid();
    bool last = false;
    int more = 0;
    do {
        if (jv_parser_remaining(in->ji_parser) == 0) {
            last = in_read_more(in);
            jv_parser_set_buf(in->ji_parser, in->ji_buf, (int)in->ji_len,
                              !last);
        }
        value = jv_parser_next(in->ji_parser);
        if (jv_is_valid(in->ji_slurped)) {
            more = jv_parser_remaining(in->ji_parser);
            if (jv_is_valid(value)) {
                in->ji_slurped = jv_array_append(in->ji_slurped, value);
                value = jv_invalid();
            } else if (jv_invalid_has_msg(jv_copy(value))) {
                return value;
            }
        } else if (jv_is_valid(value) || jv_invalid_has_msg(jv_copy(value))) {
            return value;
        }
    } while (!in->ji_stopped && (!last || more));
    if (jv_is_valid(in->ji_slurped)) {
        jv_free(value);
        value = in->ji_slurped;
        in->ji_slurped = jv_invalid();
    }
    return value;
}

jv
jq_in_position(const jq_in *in)
{
    if (in->ji_name == NULL)
        return jv_string("<unknown>");
    return jv_string_fmt("%s:%lu", in->ji_name, in->ji_line);
}

jv
jq_in_cb(jq_state *jq, void *data)
{
    (void)jq;
    jq_in *in = data;
    int q = in->ji_query;
    in->ji_query = JQ_Q_NONE;
    if (q == JQ_Q_FILENAME)
        return in->ji_name != NULL ? jv_string(in->ji_name) : jv_null();
    if (q == JQ_Q_LINE)
        return jv_number((double)in->ji_line);
    return jq_in_next(in);
}

int
jq_read_file(sh_cmd_run *r, const char *what, const char *path, char **out,
             size_t *len)
{
    sh_ctx *cx = r->cr_cx;
    char *shown = box_asprintf("%sCould not open %s", what, path);
    int st = 0;
    box_buf b;
    box_buf_init(&b, JQ_FILE_MAX);
    sh_input *in =
        sh_input_open_as(cx, "jq", path, shown != NULL ? shown : path, &st);
    box_free(shown);
    if (in == NULL)
        return st == BOX_STATUS_FAULT ? st : 2;
    sh_input_quiet(in);
    char chunk[16384];
    for (;;) {
        ssize_t n = sh_input_read(in, chunk, sizeof chunk);
        if (n < 0 && !sh_cmd_live(r)) {
            st = r->cr_status;
            goto out;
        }
        if (n < 0) {
            int e = sh_input_errno(in);
            st = sh_cmd_err(cx, "jq", 2, "%s%s: %s", what, path,
                            strerror(e != 0 ? e : EIO));
            goto out;
        }
        if (n == 0)
            break;
        if (box_buf_append(&b, chunk, (size_t)n) != BOX_OK) {
            st = sh_cmd_err(cx, "jq", 2,
                            "%s%s: file too large to hold "
                            "(limit %u MiB)",
                            what, path, JQ_FILE_MAX >> 20);
            goto out;
        }
    }
    if (box_buf_putc(&b, '\0') != BOX_OK) {
        st = sh_cmd_err(cx, "jq", 2, "error: out of memory");
        goto out;
    }
    *len = b.b_len - 1;
    *out = box_buf_take(&b);
    if (*out == NULL)
        st = sh_cmd_err(cx, "jq", 2, "error: out of memory");
out:
    sh_input_close(in);
    box_buf_reset(&b);
    return st;
}
