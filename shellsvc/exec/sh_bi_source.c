/* SPDX-License-Identifier: Apache-2.0 */
/* `.` and `source`: a file's text run in the current shell. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_bistate.h"
#include "sh_internal.h"

/*
 * The file is opened and read through the kernel (fs:read, as `cat`
 * reads it), so policy decides whether it may be read; its commands are
 * then admitted one by one like any other text (spec §3.5). A name
 * without a `/` is read from the cwd: bash would look along PATH first,
 * and here PATH names the box's own /bin, never a script.
 */

/* Reads the whole file into b; 0, or the status after the message. */
static int
read_file(sh_ctx *cx, const char *cmd, const char *path, box_buf *b)
{
    sh_kernel_result r = {0};
    sh_kernel_file *f = NULL;
    if (sh_kernel_open(sh_kern(cx), cx->cx_st->st_cwd, path, O_RDONLY, 0, &f,
                       &r) != 0)
        return sh_fs_fail(cx, NULL, path, &r); // bash: "FILE: <error>"
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
    int st = read_file(cx, argv[0], path, &text);
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
    cx->cx_sourced++;
    st = sh_exec_text(cx, text.b_data, text.b_len, argv[0]);
    cx->cx_sourced--;
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
