/* SPDX-License-Identifier: Apache-2.0 */
/* id [-ugGnrz] [USER]... and whoami: GNU coreutils 9.1 for the user the
 * shell runs as. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "cmd_sys.h"
#include "sh_gopt.h"
#include "sh_ids.h"
#include "sh_internal.h"

/*
 * Names of IDs come from the tables the service read before its workers
 * confined themselves (sh_ids: /etc/passwd and /etc/group, as ls -l's),
 * then the C library's database; an ID with neither is shown as GNU
 * shows one with no name (the number alone, or "cannot find name").
 * A USER operand is looked up by the C library, which a confined worker
 * cannot reach: then it is "no such user".
 */

#define ID_BUF 16384
#define ID_MAX_GROUPS 256

static bool
id_user_name(uid_t uid, char *out, size_t size)
{
    const char *known = sh_ids_user((uint32_t)uid);
    if (known != NULL) {
        snprintf(out, size, "%s", known);
        return true;
    }
    struct passwd pw, *res = NULL;
    char *buf = box_alloc(ID_BUF);
    bool ok = buf != NULL && getpwuid_r(uid, &pw, buf, ID_BUF, &res) == 0 &&
              res != NULL;
    if (ok)
        snprintf(out, size, "%s", pw.pw_name);
    box_free(buf);
    return ok;
}

static bool
id_group_name(gid_t gid, char *out, size_t size)
{
    const char *known = sh_ids_group((uint32_t)gid);
    if (known != NULL) {
        snprintf(out, size, "%s", known);
        return true;
    }
    struct group gr, *res = NULL;
    char *buf = box_alloc(ID_BUF);
    bool ok = buf != NULL && getgrgid_r(gid, &gr, buf, ID_BUF, &res) == 0 &&
              res != NULL;
    if (ok)
        snprintf(out, size, "%s", gr.gr_name);
    box_free(buf);
    return ok;
}

/* Who one report is about: the process, or a USER operand. */
typedef struct id_who {
    uid_t w_ruid, w_euid;
    gid_t w_rgid, w_egid;
    gid_t w_groups[ID_MAX_GROUPS];
    int w_ngroups;
} id_who;

/* The process's IDs and groups, the effective group first as GNU puts
 * it. */
static void
id_self(id_who *w)
{
    w->w_ruid = getuid();
    w->w_euid = geteuid();
    w->w_rgid = getgid();
    w->w_egid = getegid();
    gid_t g[ID_MAX_GROUPS];
    int n = getgroups(ID_MAX_GROUPS, g);
    w->w_ngroups = 0;
    w->w_groups[w->w_ngroups++] = w->w_egid;
    for (int i = 0; i < n; i++) {
        bool dup = false;
        for (int j = 0; j < w->w_ngroups && !dup; j++)
            dup = w->w_groups[j] == g[i];
        if (!dup && w->w_ngroups < ID_MAX_GROUPS)
            w->w_groups[w->w_ngroups++] = g[i];
    }
}

/* USER (a name, else a number): false when there is no such user. */
static bool
id_lookup(const char *user, id_who *w)
{
    struct passwd pw, *res = NULL;
    char *buf = box_alloc(ID_BUF);
    bool ok = false;
    if (buf == NULL)
        return false;
    if (getpwnam_r(user, &pw, buf, ID_BUF, &res) != 0 || res == NULL) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(user, &end, 10);
        res = NULL;
        if (user[0] >= '0' && user[0] <= '9' && *end == '\0' && errno == 0)
            (void)getpwuid_r((uid_t)v, &pw, buf, ID_BUF, &res);
    }
    if (res != NULL) {
        ok = true;
        w->w_ruid = w->w_euid = pw.pw_uid;
        w->w_rgid = w->w_egid = pw.pw_gid;
        int n = ID_MAX_GROUPS;
        gid_t g[ID_MAX_GROUPS];
        if (getgrouplist(pw.pw_name, pw.pw_gid, g, &n) < 0)
            n = 0;
        w->w_ngroups = 0;
        w->w_groups[w->w_ngroups++] = pw.pw_gid;
        for (int i = 0; i < n; i++) {
            bool dup = false;
            for (int j = 0; j < w->w_ngroups && !dup; j++)
                dup = w->w_groups[j] == g[i];
            if (!dup && w->w_ngroups < ID_MAX_GROUPS)
                w->w_groups[w->w_ngroups++] = g[i];
        }
    }
    box_free(buf);
    return ok;
}

static const sh_gopt id_opts[] = {
    {'a', NULL, SH_GARG_NONE},
    {'Z', "context", SH_GARG_NONE},
    {'g', "group", SH_GARG_NONE},
    {'G', "groups", SH_GARG_NONE},
    {'n', "name", SH_GARG_NONE},
    {'r', "real", SH_GARG_NONE},
    {'u', "user", SH_GARG_NONE},
    {'z', "zero", SH_GARG_NONE},
    {0},
};

static const sh_gopt_spec id_spec = {
    .gs_cmd = "id",
    .gs_opts = id_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: id [OPTION]... [USER]...\n"
        "Print user and group information for each specified USER,\n"
        "or (when USER omitted) for the current process.\n"
        "\n"
        "  -a             ignore, for compatibility with other versions\n"
        "  -Z, --context  print only the security context of the process\n"
        "  -g, --group    print only the effective group ID\n"
        "  -G, --groups   print all group IDs\n"
        "  -n, --name     print a name instead of a number, for -ugG\n"
        "  -r, --real     print the real ID instead of the effective ID, "
        "with -ugG\n"
        "  -u, --user     print only the effective user ID\n"
        "  -z, --zero     delimit entries with NUL characters, not "
        "whitespace;\n"
        "                   not permitted in default format\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n"
        "\n"
        "Without any OPTION, print some useful set of identified "
        "information.\n",
};

typedef struct id_run {
    sh_ctx *ir_cx;
    bool ir_u, ir_g, ir_G, ir_n, ir_r, ir_z;
    box_buf ir_out;
    box_err ir_acc; // the first failed append to ir_out
    int ir_status;
} id_run;

/* One ID, as a name when -n (GNU: the number and status 1 when it has
 * none). */
static void
id_one(id_run *ir, unsigned long v, bool group)
{
    char name[256];
    if (ir->ir_n) {
        bool ok = group ? id_group_name((gid_t)v, name, sizeof name)
                        : id_user_name((uid_t)v, name, sizeof name);
        if (ok) {
            SH_SYS_ACC(ir->ir_acc, box_buf_puts(&ir->ir_out, name));
            return;
        }
        sh_errf(ir->ir_cx, "id: cannot find name for %s ID %lu",
                group ? "group" : "user", v);
        ir->ir_status = 1;
    }
    SH_SYS_ACC(ir->ir_acc, box_buf_printf(&ir->ir_out, "%lu", v));
}

/* "123(name)" or "123" when the ID has no name. */
static void
id_pair(id_run *ir, unsigned long v, bool group)
{
    char name[256];
    bool ok = group ? id_group_name((gid_t)v, name, sizeof name)
                    : id_user_name((uid_t)v, name, sizeof name);
    SH_SYS_ACC(ir->ir_acc,
               box_buf_printf(&ir->ir_out, ok ? "%lu(%s)" : "%lu", v, name));
}

static void
id_report(id_run *ir, const id_who *w, bool self)
{
    box_buf *b = &ir->ir_out;
    char end = ir->ir_z ? '\0' : '\n';
    if (ir->ir_u) {
        id_one(ir, ir->ir_r ? w->w_ruid : w->w_euid, false);
        SH_SYS_ACC(ir->ir_acc, box_buf_putc(b, end));
    } else if (ir->ir_g) {
        id_one(ir, ir->ir_r ? w->w_rgid : w->w_egid, true);
        SH_SYS_ACC(ir->ir_acc, box_buf_putc(b, end));
    } else if (ir->ir_G) {
        for (int i = 0; i < w->w_ngroups; i++) {
            if (i > 0)
                SH_SYS_ACC(ir->ir_acc, box_buf_putc(b, ir->ir_z ? '\0' : ' '));
            id_one(ir, w->w_groups[i], true);
        }
        SH_SYS_ACC(ir->ir_acc, box_buf_putc(b, end));
    } else {
        SH_SYS_ACC(ir->ir_acc, box_buf_puts(b, "uid="));
        id_pair(ir, w->w_ruid, false);
        SH_SYS_ACC(ir->ir_acc, box_buf_puts(b, " gid="));
        id_pair(ir, w->w_rgid, true);
        if (self && w->w_euid != w->w_ruid) {
            SH_SYS_ACC(ir->ir_acc, box_buf_puts(b, " euid="));
            id_pair(ir, w->w_euid, false);
        }
        if (self && w->w_egid != w->w_rgid) {
            SH_SYS_ACC(ir->ir_acc, box_buf_puts(b, " egid="));
            id_pair(ir, w->w_egid, true);
        }
        SH_SYS_ACC(ir->ir_acc, box_buf_puts(b, " groups="));
        for (int i = 0; i < w->w_ngroups; i++) {
            if (i > 0)
                SH_SYS_ACC(ir->ir_acc, box_buf_putc(b, ','));
            id_pair(ir, w->w_groups[i], true);
        }
        SH_SYS_ACC(ir->ir_acc, box_buf_putc(b, '\n'));
    }
}

int
sh_cmd_id(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &id_spec, argc, argv);
    id_run ir = {.ir_cx = cx};
    box_buf_init(&ir.ir_out, 1u << 20);
    const char *arg;
    bool ctx = false;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        switch (id) {
        case 'u':
            ir.ir_u = true;
            break;
        case 'g':
            ir.ir_g = true;
            break;
        case 'G':
            ir.ir_G = true;
            break;
        case 'n':
            ir.ir_n = true;
            break;
        case 'r':
            ir.ir_r = true;
            break;
        case 'z':
            ir.ir_z = true;
            break;
        case 'Z':
            ctx = true;
            break;
        default:
            break;
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    int only = ir.ir_u + ir.ir_g + ir.ir_G + ctx;
    if (only > 1) {
        sh_errf(cx, "id: cannot print \"only\" of more than one choice");
        st = 1;
        goto out;
    }
    if (ctx) {
        sh_errf(cx, "id: --context (-Z) works only on an SELinux-enabled "
                    "kernel");
        st = 1;
        goto out;
    }
    if (only == 0 && (ir.ir_n || ir.ir_r)) {
        sh_errf(cx, "id: cannot print only names or real IDs in default "
                    "format");
        st = 1;
        goto out;
    }
    if (only == 0 && ir.ir_z) {
        sh_errf(cx, "id: option --zero not permitted in default format");
        st = 1;
        goto out;
    }
    id_who w;
    if (it.gi_nops == 0) {
        id_self(&w);
        id_report(&ir, &w, true);
    }
    for (int i = 0; i < it.gi_nops; i++) {
        if (!id_lookup(it.gi_ops[i], &w)) {
            char *q = sh_gquote(it.gi_ops[i]);
            sh_errf(cx, "id: %s: no such user", q ? q : it.gi_ops[i]);
            box_free(q);
            ir.ir_status = 1;
            continue;
        }
        id_report(&ir, &w, false);
    }
    if (ir.ir_acc != BOX_OK) {
        sh_errf(cx, "id: memory exhausted");
        ir.ir_status = 1;
    } else if (ir.ir_out.b_len > 0 &&
               sh_write(cx, 1, ir.ir_out.b_data, ir.ir_out.b_len) != SH_IO_OK)
        ir.ir_status = 1;
    st = ir.ir_status;
out:
    box_buf_reset(&ir.ir_out);
    sh_gopt_free(&it);
    return st;
}

static const sh_gopt whoami_opts[] = {{0}};

static const sh_gopt_spec whoami_spec = {
    .gs_cmd = "whoami",
    .gs_opts = whoami_opts,
    .gs_fail = 1,
    .gs_help = "Usage: whoami [OPTION]...\n"
               "Print the user name associated with the current effective "
               "user ID.\n"
               "Same as id -un.\n"
               "\n"
               "      --help        display this help and exit\n"
               "      --version     output version information and exit\n",
};

int
sh_cmd_whoami(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &whoami_spec, argc, argv);
    const char *arg;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0)
        ;
    if (id == SH_GOPT_EXIT)
        goto out;
    if (it.gi_nops > 0) {
        char *q = sh_gquote(it.gi_ops[0]);
        st = sh_gopt_usage_error(&it, "extra operand %s", q ? q : "");
        box_free(q);
        goto out;
    }
    char name[256];
    uid_t u = geteuid();
    if (!id_user_name(u, name, sizeof name)) {
        sh_errf(cx, "whoami: cannot find name for user ID %lu",
                (unsigned long)u);
        st = 1;
        goto out;
    }
    st = sh_puts(cx, 1, name) == SH_IO_OK && sh_puts(cx, 1, "\n") == SH_IO_OK
             ? 0
             : 1;
out:
    sh_gopt_free(&it);
    return st;
}
