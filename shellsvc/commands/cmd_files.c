/* SPDX-License-Identifier: Apache-2.0 */
/* The file commands' shared helpers: quoted messages, names, listings. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "cmd_files.h"
#include "sh_gopt.h"

char *
cmd_quote(cmd_q q, const char *s)
{
    switch (q) {
    case CMD_QF:
        return sh_gquotef(s);
    case CMD_QL:
        return sh_gquote(s);
    case CMD_QAF:
        break;
    }
    return sh_gquoteaf(s);
}

int
cmd_errq(sh_ctx *cx, const char *cmd, int status, const char *what, cmd_q q,
         const char *name)
{
    char *qn = cmd_quote(q, name);
    sh_errf(cx, "%s: %s%s%s", cmd, what ? what : "", what ? " " : "",
            qn ? qn : name);
    box_free(qn);
    return status;
}

int
cmd_failq(sh_ctx *cx, const char *cmd, sh_kernel_result *r, const char *what,
          cmd_q q, const char *name)
{
    return cmd_failq_after(cx, cmd, r, what, q, name, NULL);
}

int
cmd_failq_after(sh_ctx *cx, const char *cmd, sh_kernel_result *r,
                const char *what, cmd_q q, const char *name, const char *after)
{
    if (r->kr_outcome != SH_KR_OS_ERROR && r->kr_outcome != SH_KR_OK)
        return sh_fs_fail(cx, cmd, name, r);
    char *qn = cmd_quote(q, name);
    const char *m = r->kr_message ? r->kr_message : strerror(r->kr_errno);
    sh_errf(cx, "%s: %s%s%s%s%s: %s", cmd, what ? what : "", what ? " " : "",
            qn ? qn : name, after ? " " : "", after ? after : "", m);
    box_free(qn);
    sh_kernel_result_clear(r);
    return 1;
}

bool
cmd_say(sh_ctx *cx, const char *pre, const char *a, const char *mid,
        const char *b)
{
    char *qa = sh_gquoteaf(a);
    char *qb = b ? sh_gquoteaf(b) : NULL;
    char *line = box_asprintf("%s%s%s%s\n", pre, qa ? qa : a, b ? mid : "",
                              b ? (qb ? qb : b) : "");
    bool ok = line != NULL && sh_puts(cx, 1, line) == SH_IO_OK;
    box_free(line);
    box_free(qa);
    box_free(qb);
    return ok;
}

char *
cmd_join(const char *dir, const char *name)
{
    size_t l = strlen(dir);
    bool slash = l > 0 && dir[l - 1] == '/';
    return box_asprintf("%s%s%s", dir, slash ? "" : "/", name);
}

char *
cmd_base(const char *path)
{
    size_t start, len;
    sh_path_last(path, &start, &len);
    return box_strndup(path + start, len);
}

bool
cmd_inside(const char *a, const char *b, bool strict)
{
    size_t l = strlen(a);
    if (strncmp(a, b, l) != 0)
        return false;
    if (b[l] == '\0')
        return !strict;
    return b[l] == '/' || (l == 1 && a[0] == '/');
}

typedef struct list_entry {
    uint64_t le_ino;
    char *le_name;
} list_entry;

static int
cmp_inodes(const void *a, const void *b)
{
    uint64_t x = ((const list_entry *)a)->le_ino;
    uint64_t y = ((const list_entry *)b)->le_ino;
    return (x > y) - (x < y);
}

int
cmd_list(sh_ctx *cx, const char *path, cmd_list_order order, char ***names,
         size_t *n, sh_kernel_result *r)
{
    const char *cwd = cx->cx_st->st_cwd;
    if (order == CMD_LIST_READDIR) {
        if (sh_kernel_list(sh_kern(cx), cwd, path, names, n, r) != 0)
            return r->kr_errno ? r->kr_errno : 1;
        sh_kernel_result_clear(r);
        return 0;
    }
    uint64_t *inos = NULL;
    if (sh_kernel_list_inodes(sh_kern(cx), cwd, path, names, &inos, n, r) != 0)
        return r->kr_errno ? r->kr_errno : 1;
    sh_kernel_result_clear(r);
    if (*n > 1) {
        list_entry *v = box_calloc(*n, sizeof *v);
        if (v == NULL) {
            // Unsorted is still every entry; only the order differs.
            box_free(inos);
            return 0;
        }
        for (size_t i = 0; i < *n; i++)
            v[i] = (list_entry){inos[i], (*names)[i]};
        // Two names of one inode (hard links) are a tie, as in GNU's
        // qsort of the same list.
        qsort(v, *n, sizeof *v, cmp_inodes);
        for (size_t i = 0; i < *n; i++)
            (*names)[i] = v[i].le_name;
        box_free(v);
    }
    box_free(inos);
    return 0;
}

char *
cmd_relpath(const char *from, const char *to)
{
    // The longest common prefix that ends at a component boundary.
    size_t i = 0;
    while (from[i] != '\0' && from[i] == to[i])
        i++;
    size_t common = i;
    if (!((from[i] == '\0' || from[i] == '/') &&
          (to[i] == '\0' || to[i] == '/')))
        while (common > 0 && from[common - 1] != '/')
            common--;
    box_buf b;
    box_buf_init(&b, 1u << 16);
    bool ok = true;
    // one ".." for each component of from after the common prefix
    for (const char *p = from + common; *p != '\0';) {
        while (*p == '/')
            p++;
        if (*p == '\0')
            break;
        ok = ok && box_buf_append(&b, b.b_len ? "/.." : "..",
                                  b.b_len ? 3 : 2) == BOX_OK;
        while (*p != '\0' && *p != '/')
            p++;
    }
    const char *rest = to + common;
    while (*rest == '/')
        rest++;
    if (*rest != '\0') {
        if (b.b_len)
            ok = ok && box_buf_putc(&b, '/') == BOX_OK;
        ok = ok && box_buf_append(&b, rest, strlen(rest)) == BOX_OK;
    }
    if (b.b_len == 0)
        ok = ok && box_buf_putc(&b, '.') == BOX_OK;
    char *out = ok ? box_strndup(b.b_data, b.b_len) : NULL;
    box_buf_reset(&b);
    return out;
}

/* ---- where cp, mv and ln put things ---------------------------------- */

int
cmd_place_into(sh_ctx *cx, const char *cmd, char **srcs, int n,
               const char *dir, cmd_place_fn one, void *run)
{
    int status = 0;
    for (int i = 0; i < n && status != BOX_STATUS_FAULT; i++) {
        if (sh_check_stop(cx))
            return cx->cx_status;
        char *base = cmd_base(srcs[i]);
        char *dst = base ? cmd_join(dir, base) : NULL;
        int rc = dst ? one(run, srcs[i], dst)
                     : sh_cmd_err(cx, cmd, 1, "out of memory");
        box_free(dst);
        box_free(base);
        status = cmd_worse(status, rc);
    }
    return status;
}

int
cmd_probe_target(sh_ctx *cx, const char *cmd, const char *t, bool *dir,
                 bool *missing)
{
    sh_kernel_result r = {0};
    sh_kernel_stat st;
    *dir = *missing = false;
    if (sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd, t, &st, &r) == 0) {
        sh_kernel_result_clear(&r);
        *dir = S_ISDIR(st.ks_mode);
        return 0;
    }
    if (r.kr_outcome == SH_KR_FAULT ||
        (r.kr_outcome == SH_KR_OS_ERROR && r.kr_errno != ENOENT))
        return cmd_failq(cx, cmd, &r, "cannot stat", CMD_QAF, t);
    *missing = true;
    sh_kernel_result_clear(&r);
    return 0;
}

int
cmd_target_dir(sh_ctx *cx, const char *cmd, const char *dir)
{
    sh_kernel_result r = {0};
    sh_kernel_stat st;
    if (sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd, dir, &st, &r) != 0)
        return cmd_failq(cx, cmd, &r, "target directory", CMD_QAF, dir);
    sh_kernel_result_clear(&r);
    if (!S_ISDIR(st.ks_mode)) {
        r = (sh_kernel_result){.kr_outcome = SH_KR_OS_ERROR,
                               .kr_errno = ENOTDIR};
        return cmd_failq(cx, cmd, &r, "target directory", CMD_QAF, dir);
    }
    return 0;
}

/* "CMD: MSG 'WORD'" and the Try line. */
static int
place_usage(sh_gopt_iter *it, const char *msg, const char *word)
{
    char *q = sh_gquoteaf(word);
    int st = sh_gopt_usage_error(it, "%s %s", msg, q ? q : word);
    box_free(q);
    return st;
}

int
cmd_place_operands(sh_gopt_iter *it, const char *target, bool no_target,
                   cmd_place_fn one, void *run)
{
    sh_ctx *cx = it->gi_cx;
    const char *cmd = it->gi_spec->gs_cmd;
    char **ops = it->gi_ops;
    int n = it->gi_nops;
    if (target != NULL && no_target)
        return sh_gopt_usage_error(it, "cannot combine --target-directory "
                                       "(-t) and --no-target-directory (-T)");
    if (n == 0)
        return sh_gopt_usage_error(it, "missing file operand");
    if (n == 1 && target == NULL)
        return place_usage(it, "missing destination file operand after",
                           ops[0]);
    if (target != NULL) {
        int st = cmd_target_dir(cx, cmd, target);
        return st != 0 ? st : cmd_place_into(cx, cmd, ops, n, target, one, run);
    }
    if (no_target)
        return n > 2 ? place_usage(it, "extra operand", ops[2])
                     : one(run, ops[0], ops[1]);
    bool dir, missing;
    int st = cmd_probe_target(cx, cmd, ops[n - 1], &dir, &missing);
    if (st != 0)
        return st;
    if (dir)
        return cmd_place_into(cx, cmd, ops, n - 1, ops[n - 1], one, run);
    if (n == 2)
        return one(run, ops[0], ops[1]);
    char *q = sh_gquoteaf(ops[n - 1]);
    st = sh_cmd_err(cx, cmd, 1, "target %s: %s", q ? q : ops[n - 1],
                    strerror(missing ? ENOENT : ENOTDIR));
    box_free(q);
    return st;
}

int
cmd_no_interactive(sh_ctx *cx, const char *cmd)
{
    return sh_cmd_err(cx, cmd, 1,
                      "-i (--interactive) is not supported in this box: "
                      "there is no terminal to answer its questions");
}

int
cmd_each_operand(sh_gopt_iter *it, cmd_operand_fn one, void *run)
{
    sh_ctx *cx = it->gi_cx;
    int st = 0;
    for (int i = 0; i < it->gi_nops && st != BOX_STATUS_FAULT; i++) {
        if (sh_check_stop(cx))
            return cx->cx_status;
        st = cmd_worse(st, one(run, it->gi_ops[i]));
    }
    return sh_check_stop(cx) ? cx->cx_status : st;
}
