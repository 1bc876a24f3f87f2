/* SPDX-License-Identifier: Apache-2.0 */
/* grep's operands: stdin, files, and with -r/-R directories walked
 * through the kernel's listing (each entry decided by policy). */
#include <fnmatch.h>
#include <string.h>
#include <sys/stat.h>

#include "box_alloc.h"
#include "cmd_grep.h"

#define GREP_WALK_DEPTH 256 // directories open at once, as a bound

/* The (dev, ino) of the directories being walked: -R meets loops. */
typedef struct walk {
    grep *w_g;
    uint64_t w_dev[GREP_WALK_DEPTH], w_ino[GREP_WALK_DEPTH];
    size_t w_depth;
    bool w_any; // a line was selected
} walk;

/* glob against name: the base name, or (a command-line name) any
 * suffix starting after a '/'. */
static bool
glob_hit(const char *glob, const char *name, bool cmdline)
{
    if (!cmdline) {
        const char *b = strrchr(name, '/');
        return fnmatch(glob, b ? b + 1 : name, 0) == 0;
    }
    for (const char *p = name; *p;) {
        if (fnmatch(glob, p, 0) == 0)
            return true;
        const char *sl = strchr(p, '/');
        if (sl == NULL)
            break;
        while (*sl == '/')
            sl++;
        p = sl;
    }
    return false;
}

bool
grep_walk_wanted(const grep *g, const char *name, bool dir, bool cmdline)
{
    if (dir) {
        for (size_t i = 0; i < g->g_nglobs; i++)
            if (g->g_globs[i].gg_dir &&
                glob_hit(g->g_globs[i].gg_pat, name, cmdline))
                return false;
        return true;
    }
    // The last matching --include/--exclude decides; none: included
    // unless the first of them is an --include.
    for (size_t i = g->g_nglobs; i > 0; i--) {
        const grep_glob *gl = &g->g_globs[i - 1];
        if (!gl->gg_dir && glob_hit(gl->gg_pat, name, cmdline))
            return gl->gg_include;
    }
    return !g->g_has_include;
}

static void
note(walk *w, int st)
{
    w->w_any |= st == 0;
}

/* Searches a file; one found below a directory shows its name unless
 * -h (GNU's default for -r with one operand). */
static void
scan_named(walk *w, const char *path, bool cmdline)
{
    grep *g = w->w_g;
    int saved = g->g_names;
    if (saved == 2 && !cmdline)
        g->g_names = 1;
    note(w, grep_scan_operand(g, path, path));
    g->g_names = saved;
}

static void walk_dir(walk *w, const char *path, const sh_kernel_stat *ks);

/* A file or directory found in a walk (or given, cmdline). */
static void
walk_entry(walk *w, const char *path, bool cmdline)
{
    grep *g = w->w_g;
    sh_ctx *cx = g->g_cx;
    if (g->g_done || sh_check_stop(cx)) {
        if (!g->g_done) {
            g->g_done = true;
            g->g_final = cx->cx_status;
        }
        return;
    }
    sh_kernel_stat ks;
    sh_kernel_result r = {0};
    bool follow = cmdline || g->g_deref;
    int rc =
        follow
            ? sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd, path, &ks, &r)
            : sh_kernel_lstat(sh_kern(cx), cx->cx_st->st_cwd, path, &ks, &r);
    bool fault = r.kr_outcome == SH_KR_FAULT;
    if (fault) {
        (void)grep_out_flush(g);
        g->g_done = true;
        g->g_final = sh_fs_fail(cx, "grep", path, &r);
        return;
    }
    sh_kernel_result_clear(&r);
    if (rc != 0) {
        // Denied or gone: opening it says why, once.
        if (cmdline || grep_walk_wanted(g, path, false, false))
            scan_named(w, path, cmdline);
        return;
    }
    if (S_ISLNK(ks.ks_mode))
        return; // -r: links below the operands are not followed
    if (S_ISDIR(ks.ks_mode)) {
        if (g->g_dirs == GREP_DIR_SKIP)
            return;
        if (g->g_dirs == GREP_DIR_READ) {
            note(w, grep_scan_operand(g, path, path));
            return;
        }
        if (!grep_walk_wanted(g, path, true, cmdline))
            return;
        walk_dir(w, path, &ks);
        return;
    }
    if (!S_ISREG(ks.ks_mode) && (!cmdline || g->g_dev_skip))
        return; // devices, FIFOs, sockets: skipped in a walk (GNU)
    if (!grep_walk_wanted(g, path, false, cmdline))
        return;
    scan_named(w, path, cmdline);
}

static void
walk_dir(walk *w, const char *path, const sh_kernel_stat *ks)
{
    grep *g = w->w_g;
    sh_ctx *cx = g->g_cx;
    for (size_t i = 0; i < w->w_depth; i++) {
        if (w->w_dev[i] == ks->ks_dev && w->w_ino[i] == ks->ks_ino) {
            (void)grep_out_flush(g);
            if (!g->g_nomsg)
                sh_cmd_err(cx, "grep", 2,
                           "%s: warning: recursive directory loop", path);
            return;
        }
    }
    if (w->w_depth == GREP_WALK_DEPTH) {
        grep_file_err(g, "%s: File name too long", path);
        return;
    }
    char **names = NULL;
    size_t n = 0;
    sh_kernel_result r = {0};
    if (sh_kernel_list(sh_kern(cx), cx->cx_st->st_cwd, path, &names, &n, &r) !=
        0) {
        g->g_err = true;
        (void)grep_out_flush(g);
        if (r.kr_outcome == SH_KR_FAULT) {
            g->g_done = true;
            g->g_final = sh_fs_fail(cx, "grep", path, &r);
        } else if (g->g_nomsg) {
            sh_kernel_result_clear(&r);
        } else {
            (void)sh_fs_fail(cx, "grep", path, &r);
        }
        return;
    }
    sh_kernel_result_clear(&r);
    w->w_dev[w->w_depth] = ks->ks_dev;
    w->w_ino[w->w_depth++] = ks->ks_ino;
    // The walk with no operand shows names without the "./" (GNU).
    bool bare = g->g_implicit && w->w_depth == 1 && strcmp(path, ".") == 0;
    size_t pl = strlen(path);
    bool slash = pl > 0 && path[pl - 1] == '/';
    for (size_t i = 0; i < n && !g->g_done; i++) {
        char *child =
            bare ? box_strdup(names[i])
                 : box_asprintf("%s%s%s", path, slash ? "" : "/", names[i]);
        if (child == NULL) {
            g->g_done = true;
            g->g_final = sh_cmd_err(cx, "grep", 2, "out of memory");
            break;
        }
        walk_entry(w, child, false);
        box_free(child);
    }
    w->w_depth--;
    sh_kernel_names_free(names, n);
}

int
grep_walk_operand(grep *g, const char *operand, bool implicit)
{
    bool std = operand == NULL || strcmp(operand, "-") == 0;
    if (std)
        return grep_scan_operand(g, NULL,
                                 g->g_label ? g->g_label : GREP_STDIN_NAME);
    walk w = {.w_g = g};
    if (g->g_dirs == GREP_DIR_READ && !g->g_dev_skip) {
        if (!grep_walk_wanted(g, operand, false, true))
            return 1;
        return grep_scan_operand(g, operand, operand);
    }
    (void)implicit;
    walk_entry(&w, operand, true);
    return w.w_any ? 0 : 1;
}
