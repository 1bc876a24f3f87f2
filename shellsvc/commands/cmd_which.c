/* SPDX-License-Identifier: Apache-2.0 */
/* which [-a] PROGRAM...: Debian's which (debianutils 5.7) over this
 * shell's file system, then the host programs it may route to. */
#include <errno.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "cmd_sys.h"

/*
 * What `which` reveals (box-spec §3.1, §3.4): the shell's own commands
 * are the files /bin/<cmd> (links to /bin/lash in memory), found as any
 * program is, by walking the call's PATH; a directory of PATH that is a
 * bind is probed through the kernel (fs:read exec, a denial reads as
 * absent). A bare name found nowhere there but on the trusted PATH is
 * the host program a stage would be admitted to spawn: its canonical
 * path, as `type` shows it. Nothing else of the host is looked at.
 */

/* A regular file with an x bit at path (relative to the cwd). A name in
 * memory is looked up first with no decision (§3.6 Locate), so the PATH
 * entries it is not in cost nothing; a file found, or a name on a bind,
 * is asked of policy as the exec probe (fs:read exec) `test -x` is. */
static bool
wh_exec(sh_ctx *cx, const char *path)
{
    sh_kernel *k = sh_kern(cx);
    const char *cwd = cx->cx_st->st_cwd;
    char *full =
        path[0] == '/' ? box_strdup(path) : box_asprintf("%s/%s", cwd, path);
    if (full == NULL)
        return false;
    char *canon = NULL;
    bool host = false;
    bool found = sh_kernel_resolve_path(k, cwd, full, true, &canon, &host) == 0;
    box_free(canon);
    canon = NULL;
    if (found && !host) {
        found = sh_kernel_locate(k, full, &canon) == 0;
        box_free(canon);
    }
    if (found) {
        sh_kernel_result r = {0};
        found = sh_kernel_probe_exec(k, cwd, full, &r) == 0;
        sh_kernel_result_clear(&r);
    }
    box_free(full);
    return found;
}

/* An append's result: false (after the message) when it failed. */
static bool
wh_put(sh_ctx *cx, box_err e)
{
    if (e != BOX_OK)
        sh_errf(cx, "which: memory exhausted");
    return e == BOX_OK;
}

/* Each match of name on PATH into out (all of them with -a): true when
 * there was one. */
static bool
wh_search(sh_ctx *cx, const char *name, bool all, box_buf *out)
{
    if (strchr(name, '/') != NULL) {
        if (!wh_exec(cx, name))
            return false;
        (void)wh_put(cx, box_buf_printf(out, "%s\n", name));
        return true;
    }
    const char *path = sh_sys_getenv(cx, "PATH");
    if (path == NULL)
        path = sh_var_get(cx->cx_st, "PATH");
    bool any = false;
    // dash's field splitting of PATH on ':' (which appends one to keep
    // a trailing empty entry): an empty entry is the cwd.
    for (const char *p = path; p != NULL && *p != '\0';) {
        const char *e = strchr(p, ':');
        size_t len = e != NULL ? (size_t)(e - p) : strlen(p);
        char *cand = len == 0 ? box_asprintf("./%s", name)
                              : box_asprintf("%.*s/%s", (int)len, p, name);
        if (cand != NULL && wh_exec(cx, cand)) {
            (void)wh_put(cx, box_buf_printf(out, "%s\n", cand));
            any = true;
        }
        box_free(cand);
        if (any && !all)
            return true;
        if (e == NULL)
            break;
        p = e + 1;
        if (*p == '\0') { // a trailing ':' is one more (empty) entry
            cand = box_asprintf("./%s", name);
            if (cand != NULL && wh_exec(cx, cand)) {
                (void)wh_put(cx, box_buf_printf(out, "%s\n", cand));
                any = true;
            }
            box_free(cand);
        }
    }
    if (any && !all)
        return true;
    // One of the shell's own commands runs whatever PATH says: it is
    // still /bin/<cmd> (§3.1), found or not on this PATH.
    if (!any && sh_cmd_find(cx->cx_st, name) != NULL) {
        char *own = box_asprintf("/bin/%s", name);
        bool found = own != NULL && wh_exec(cx, own);
        if (found)
            (void)wh_put(cx, box_buf_printf(out, "%s\n", own));
        box_free(own);
        if (found)
            return true;
    }
    sh_host_bind hb = {0};
    if (sh_host_locate(cx, name, true, &hb) == 0 && hb.hb_host &&
        hb.hb_unbound_err == 0 && hb.hb_found.sf_path != NULL) {
        (void)wh_put(cx, box_buf_printf(out, "%s\n", hb.hb_found.sf_path));
        any = true;
    }
    sh_host_bind_clear(&hb);
    return any;
}

/* Options as dash's getopts reads "a": bundles, `--`, the first operand
 * ends them; any other letter is "Illegal option", the usage on stdout
 * and status 2. */
int
sh_cmd_which(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    bool all = false;
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == '\0')
            break;
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        for (const char *p = a + 1; *p; p++) {
            if (*p == 'a') {
                all = true;
                continue;
            }
            sh_errf(cx, "Illegal option -%c", *p);
            return sh_puts(cx, 1, "Usage: /bin/which [-a] args\n") == SH_IO_OK
                       ? 2
                       : 2;
        }
    }
    int st = i < argc ? 0 : 1;
    box_buf out;
    box_buf_init(&out, 1u << 20);
    for (; i < argc; i++) {
        if (sh_check_stop(cx)) {
            st = cx->cx_status ? cx->cx_status : 1;
            break;
        }
        if (!wh_search(cx, argv[i], all, &out))
            st = 1;
    }
    if (out.b_len > 0 && sh_write(cx, 1, out.b_data, out.b_len) != SH_IO_OK)
        st = 1;
    box_buf_reset(&out);
    return st;
}
