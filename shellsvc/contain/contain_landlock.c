/* SPDX-License-Identifier: Apache-2.0 */
/* box-contain Landlock: ABI detection, the path plan, deny shapes, restrict. */
#include "contain_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_landlock.h"

// The rights of each list, from box_landlock.h's.
#define LL_R_READ (BOX_LL_READ_FILE | BOX_LL_READ_DIR)
#define LL_R_WRITE                                                             \
    (LL_R_READ | BOX_LL_WRITE_FILE | BOX_LL_TRUNCATE | BOX_LL_REMOVE_DIR |     \
     BOX_LL_REMOVE_FILE | BOX_LL_MAKE_DIR | BOX_LL_MAKE_REG |                  \
     BOX_LL_MAKE_SOCK | BOX_LL_MAKE_FIFO | BOX_LL_MAKE_SYM | BOX_LL_REFER)
#define LL_R_EXEC (BOX_LL_EXECUTE | BOX_LL_READ_FILE | BOX_LL_READ_DIR)

/* ORDER CONTAIN_LIST: rights per list; ok_dir/ok_file say what it names. */
static const struct ll_list_row {
    const char *lr_opt;
    uint64_t lr_access; // 0: no rule
    bool lr_dir_ok;
    bool lr_file_ok;
    bool lr_beneath; // a tree grant (deny checks walk it)
} ll_lists[CONTAIN_LIST_COUNT] = {
    [CONTAIN_READ] = {"--read", LL_R_READ, true, true, true},
    [CONTAIN_WRITE] = {"--write", LL_R_WRITE, true, true, true},
    [CONTAIN_READ_FILE] = {"--read-file", BOX_LL_READ_FILE, false, true, false},
    [CONTAIN_WRITE_FILE] = {"--write-file",
                            BOX_LL_READ_FILE | BOX_LL_WRITE_FILE |
                                BOX_LL_TRUNCATE,
                            false, true, false},
    [CONTAIN_LIST] = {"--list", BOX_LL_READ_DIR, true, false, true},
    [CONTAIN_METADATA] = {"--metadata", 0, true, true, false},
    [CONTAIN_EXEC] = {"--exec", LL_R_EXEC, true, true, true},
    [CONTAIN_DENY] = {"--deny", 0, true, true, false},
};

/*
 * What every program needs to load and run; missing paths are skipped.
 * Read, never execute: a sandbox executes only its program, the loader
 * that program names, and its --exec list (ct_ll_prepare). Shared
 * libraries are mapped by the loader after a read-only open, which
 * Landlock's execute right does not govern.
 */
static const struct ll_sys_row {
    const char *sr_path;
    uint64_t sr_access;
} ll_system[] = {
    {"/usr", LL_R_READ},
    {"/lib", LL_R_READ},
    {"/lib64", LL_R_READ},
    {"/bin", LL_R_READ},
    {"/sbin", LL_R_READ},
    {"/etc/ld.so.cache", BOX_LL_READ_FILE},
    {"/dev/null", BOX_LL_READ_FILE | BOX_LL_WRITE_FILE | BOX_LL_TRUNCATE},
    {"/dev/zero", BOX_LL_READ_FILE | BOX_LL_WRITE_FILE | BOX_LL_TRUNCATE},
    {"/dev/urandom", BOX_LL_READ_FILE},
    {"/proc", LL_R_READ}, // opened after the fresh procfs is mounted
};

box_status
ct_ll_abi(int *abi, ct_err *e)
{
    char *msg = NULL;
    box_err rv = box_ll_abi(abi, &msg);

    return rv == BOX_OK ? BOX_STATUS_OK : ct_fail_lib(e, rv, msg);
}

/* Identities from "/" down to path's nearest existing ancestor (or path). */
typedef struct ll_id {
    dev_t li_dev;
    ino_t li_ino;
} ll_id;

#define LL_MAX_DEPTH 256

static size_t
ll_chain(const char *path, ll_id *ids, size_t max)
{
    char buf[PATH_MAX], real[PATH_MAX];
    struct stat st;
    size_t n = 0, len;

    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return 0;
    // The nearest existing ancestor stands for a path not created yet.
    while (realpath(buf, real) == NULL) {
        char *slash = strrchr(buf, '/');
        if (slash == NULL || slash == buf) {
            snprintf(real, sizeof real, "/");
            break;
        }
        *slash = '\0';
    }
    len = strlen(real);
    for (size_t i = 0; i <= len && n < max; i++) {
        if (i != len && real[i] != '/')
            continue;
        char c = real[i];
        real[i] = '\0';
        if (stat(i == 0 ? "/" : real, &st) == 0) {
            ids[n].li_dev = st.st_dev;
            ids[n].li_ino = st.st_ino;
            n++;
        }
        real[i] = c;
    }
    return n;
}

static bool
ll_in_chain(const ll_id *ids, size_t n, dev_t dev, ino_t ino)
{
    for (size_t i = 0; i < n; i++) {
        if (ids[i].li_dev == dev && ids[i].li_ino == ino)
            return true;
    }
    return false;
}

/*
 * Landlock only grants, so a deny inside a granted tree is kept out by a
 * mask in the mount namespace (contain_mask.c) instead. What no mask can
 * fix is refused: a grant inside (or equal to) a deny, which asks for
 * both, and a deny not created yet inside a grant (or a system tree),
 * which the program or the host could create after the mask was laid.
 * Identities, not spellings, are compared, so symlinked spellings cannot
 * slip past.
 */
static box_status
ll_check_deny(const char *deny, const ct_plan *plan, ct_err *e)
{
    ll_id chain[LL_MAX_DEPTH];
    ll_id sub[LL_MAX_DEPTH];
    size_t n, m;
    struct stat st;
    const ct_mask *planned = NULL;

    // Whether the deny exists is decided once, when its mask was planned:
    // a second stat here could see a file renamed into place meanwhile,
    // and answer "it exists" for a deny that no mask covers.
    for (size_t i = 0; i < plan->cp_nmasks; i++)
        if (plan->cp_masks[i].cm_path == deny)
            planned = &plan->cp_masks[i];
    if (planned != NULL) {
        for (size_t i = 0; i < plan->cp_nrules; i++) {
            const ct_rule *r = &plan->cp_rules[i];
            if (r->cr_implicit)
                continue;
            m = ll_chain(r->cr_path, sub, LL_MAX_DEPTH);
            if (ll_in_chain(sub, m, planned->cm_dev, planned->cm_ino))
                return ct_fail(e, BOX_STATUS_FAULT, false,
                               "the grant %s lies inside --deny %s", r->cr_path,
                               deny);
        }
        return BOX_STATUS_OK;
    }
    if ((n = ll_chain(deny, chain, LL_MAX_DEPTH)) == 0)
        return ct_fail(e, BOX_STATUS_FAULT, false, "--deny %s: cannot resolve",
                       deny);
    for (size_t i = 0; i < sizeof ll_system / sizeof *ll_system; i++) {
        if (stat(ll_system[i].sr_path, &st) != 0)
            continue;
        if (ll_in_chain(chain, n, st.st_dev, st.st_ino))
            return ct_fail(e, BOX_STATUS_FAULT, false,
                           "--deny %s does not exist and lies inside %s, "
                           "which every sandbox grants: a mask covers only "
                           "what is there, and Landlock cannot carve a hole "
                           "in a grant",
                           deny, ll_system[i].sr_path);
    }
    for (size_t i = 0; i < plan->cp_nrules; i++) {
        const ct_rule *r = &plan->cp_rules[i];
        if (r->cr_implicit || fstat(r->cr_fd, &st) != 0)
            continue;
        if (ll_in_chain(chain, n, st.st_dev, st.st_ino))
            return ct_fail(e, BOX_STATUS_FAULT, false,
                           "--deny %s does not exist and lies inside the "
                           "grant %s: a mask covers only what is there, and "
                           "Landlock cannot carve a hole in a grant; create "
                           "it first",
                           deny, r->cr_path);
    }
    return BOX_STATUS_OK;
}

/* Takes fd into the plan (closed on failure). */
static box_status
ll_plan_rule(ct_plan *plan, int fd, uint64_t access, const char *path,
             bool implicit, ct_err *e)
{
    struct stat sb;

    if (fstat(fd, &sb) != 0) {
        close(fd);
        return ct_fail(e, BOX_STATUS_FAULT, false, "%s: %s", path, strerror(errno));
    }
    plan->cp_rules[plan->cp_nrules].cr_fd = fd;
    plan->cp_rules[plan->cp_nrules].cr_path = path;
    plan->cp_rules[plan->cp_nrules].cr_implicit = implicit;
    plan->cp_rules[plan->cp_nrules].cr_access =
        access & (S_ISDIR(sb.st_mode) ? ~0ULL : BOX_LL_FILE_RIGHTS);
    plan->cp_nrules++;
    return BOX_STATUS_OK;
}

/*
 * Opens an absolute path O_PATH with no symbolic link anywhere in it, one
 * component at a time from "/". A grant was checked symlink-free when the
 * config loaded; O_NOFOLLOW alone guards only its last component, so a
 * directory above it swapped for a link since then (`mv x x.old; ln -s
 * ~/.config x`) would hand the sandbox whatever the link names. Returns
 * the fd, or -1 with errno (ELOOP for a link, EINVAL for a relative path
 * or a `..`).
 */
static int
ll_open_nolinks(const char *path)
{
    if (path[0] != '/') {
        errno = EINVAL;
        return -1;
    }
    int dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    const char *p = path;
    while (dir >= 0) {
        while (*p == '/')
            p++;
        if (*p == '\0')
            return dir;
        const char *end = strchrnul(p, '/');
        size_t n = (size_t)(end - p);
        char name[NAME_MAX + 1];
        if (n > NAME_MAX || (n == 2 && p[0] == '.' && p[1] == '.')) {
            close(dir);
            errno = n > NAME_MAX ? ENAMETOOLONG : EINVAL;
            return -1;
        }
        memcpy(name, p, n);
        name[n] = '\0';
        p = end;
        int next = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        int saved = errno;
        close(dir);
        if (next < 0) {
            errno = saved;
            return -1;
        }
        struct stat sb;
        if (fstat(next, &sb) != 0 || (S_ISLNK(sb.st_mode) && *p != '\0')) {
            saved = S_ISLNK(sb.st_mode) ? ELOOP : errno;
            close(next);
            errno = saved;
            return -1;
        }
        dir = next;
    }
    return -1;
}

/*
 * Opens a #! interpreter to read its header: a regular file only, never
 * a FIFO or device (an open that could block or have effects), read
 * through /proc/self/fd after the type is known. -1 when it is not one.
 */
static int
ll_open_regular(const char *path)
{
    char proc[64];
    struct stat sb;
    int pfd = open(path, O_PATH | O_CLOEXEC);
    if (pfd < 0)
        return -1;
    if (fstat(pfd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(pfd);
        return -1;
    }
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", pfd);
    int rd = open(proc, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    close(pfd);
    return rd;
}

/* Where a loader that gets the execute right may live (canonical). */
static const char *const ll_loader_dirs[] = {
    "/usr/lib/", "/usr/lib64/", "/usr/lib32/", "/usr/libx32/",
    "/lib/",     "/lib64/",     "/lib32/",     "/libx32/",
};

/*
 * The loader a header names gets the execute right only when it is the
 * system's: its canonical path lies in a library tree, no symbolic link
 * is met opening that path, and it is a root-owned regular file nobody
 * else may write. The name comes from a file the agent may have built
 * (PT_INTERP is any path), so anything else — a file of the workspace, a
 * secret, a link flipped between the plan and the exec — gets nothing.
 */
static int
ll_open_system_loader(const char *named)
{
    char canon[PATH_MAX];
    struct stat sb;
    bool inside = false;

    if (realpath(named, canon) == NULL)
        return -1;
    for (size_t i = 0; i < sizeof ll_loader_dirs / sizeof *ll_loader_dirs; i++)
        if (strncmp(canon, ll_loader_dirs[i], strlen(ll_loader_dirs[i])) == 0)
            inside = true;
    if (!inside)
        return -1;
    int fd = ll_open_nolinks(canon);
    if (fd < 0)
        return -1;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_uid != 0 ||
        (sb.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/*
 * The loader a file names: its PT_INTERP, or for a #! script the
 * PT_INTERP of its interpreter (one level, as the kernel's own is one
 * level for the script and one for the ELF it names). The file is read
 * through /proc/self/fd, since the caller's descriptor may be O_PATH.
 * The interpreter of a script gets no right here: it must be listed.
 * Nothing found (a static program, a loader that is missing) adds no
 * rule; the exec then fails with the kernel's own error.
 */
static box_status
ll_plan_loader(ct_plan *plan, int fd, uint64_t mask, ct_err *e)
{
    char proc[64], path[PATH_MAX];
    ct_interp kind;
    int rd, lfd;
    struct stat sb;

    for (int depth = 0; depth < 2; depth++) {
        if (depth == 0) {
            snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
            rd = open(proc, O_RDONLY | O_CLOEXEC);
        } else {
            rd = ll_open_regular(path);
        }
        if (rd < 0)
            return BOX_STATUS_OK;
        kind = ct_elf_interp(rd, path, sizeof path);
        close(rd);
        if (kind == CT_INTERP_SCRIPT && depth == 0)
            continue; // the loader of the interpreter it names
        if (kind != CT_INTERP_FOUND)
            return BOX_STATUS_OK;
        if ((lfd = ll_open_system_loader(path)) < 0 || fstat(lfd, &sb) != 0) {
            if (lfd >= 0)
                close(lfd);
            return BOX_STATUS_OK; // no right: the exec fails with ENOENT/EACCES
        }
        for (size_t i = 0; i < plan->cp_nrules; i++) {
            struct stat have;
            if (plan->cp_rules[i].cr_implicit &&
                fstat(plan->cp_rules[i].cr_fd, &have) == 0 &&
                have.st_dev == sb.st_dev && have.st_ino == sb.st_ino) {
                close(lfd);
                return BOX_STATUS_OK; // planned already
            }
        }
        return ll_plan_rule(plan, lfd,
                            (BOX_LL_EXECUTE | BOX_LL_READ_FILE) & mask,
                            "the program's loader", true, e);
    }
    return BOX_STATUS_OK;
}

/* The program itself: read and execute on its own file, and its loader. */
static box_status
ll_plan_program(ct_plan *plan, int exec_fd, uint64_t mask, ct_err *e)
{
    int fd;
    box_status st;

    if (exec_fd < 0)
        return BOX_STATUS_OK;
    if ((fd = fcntl(exec_fd, F_DUPFD_CLOEXEC, 3)) < 0)
        return ct_fail(e, BOX_STATUS_FAULT, false, "the program: %s",
                       strerror(errno));
    if ((st = ll_plan_rule(plan, fd, (BOX_LL_EXECUTE | BOX_LL_READ_FILE) & mask,
                           "the program", true, e)) != 0)
        return st;
    return ll_plan_loader(plan, exec_fd, mask, e);
}

/*
 * The --shells shim: read and execute on its own file (a rule on the file
 * holds wherever it is bound: Landlock meets the shim's inode first, at
 * /bin/sh as at its own path), and its loader if it has one. Opened with
 * no link in its path, as a grant is.
 */
static box_status
ll_plan_shim(ct_plan *plan, const char *shim, uint64_t mask, ct_err *e)
{
    struct stat sb;
    int fd;
    box_status st;

    if (shim == NULL)
        return BOX_STATUS_OK;
    if ((fd = ll_open_nolinks(shim)) < 0)
        return ct_fail(e, BOX_STATUS_FAULT, false, "--shells %s: %s", shim,
                       strerror(errno));
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return ct_fail(e, BOX_STATUS_FAULT, false,
                       "--shells %s: not a regular file", shim);
    }
    if ((st = ll_plan_rule(plan, fd, (BOX_LL_EXECUTE | BOX_LL_READ_FILE) & mask,
                           shim, true, e)) != 0)
        return st;
    plan->cp_shim = shim;
    plan->cp_shim_fd = fd;
    plan->cp_shim_dev = sb.st_dev;
    plan->cp_shim_ino = sb.st_ino;
    return ll_plan_loader(plan, fd, mask, e);
}

/* An existing deny, as its mask will check it again inside. */
static void
ll_plan_mask(ct_plan *plan, const char *path, const struct stat *sb)
{
    ct_mask *m = &plan->cp_masks[plan->cp_nmasks++];

    m->cm_path = path;
    m->cm_dev = sb->st_dev;
    m->cm_ino = sb->st_ino;
    m->cm_dir = S_ISDIR(sb->st_mode);
}

box_status
ct_ll_prepare(const contain_spec *spec, int abi, int exec_fd, ct_plan *plan,
              ct_err *e)
{
    uint64_t mask = box_ll_fs_mask(abi);
    box_status st;
    // Each path, and a loader per --exec file; the program and its
    // loader; the --shells shim and its loader.
    size_t cap = spec->cs_npaths * 2 + 4;

    memset(plan, 0, sizeof *plan);
    plan->cp_abi = abi;
    plan->cp_rules = box_calloc(cap, sizeof *plan->cp_rules);
    plan->cp_masks = box_calloc(spec->cs_npaths + 1, sizeof *plan->cp_masks);
    if (plan->cp_rules == NULL || plan->cp_masks == NULL)
        return ct_fail(e, BOX_STATUS_FAULT, false, "out of memory");
    for (size_t i = 0; i < spec->cs_npaths; i++) {
        const contain_path *p = &spec->cs_paths[i];
        const struct ll_list_row *row = &ll_lists[p->cp_list];
        struct stat sb;
        int fd;
        bool dir;

        fd = ll_open_nolinks(p->cp_path);
        // A deny not created yet is checked through its nearest ancestor.
        if (fd < 0 && errno == ENOENT && p->cp_list == CONTAIN_DENY)
            continue;
        if (fd < 0)
            return ct_fail(e, BOX_STATUS_FAULT, false, "%s %s: %s", row->lr_opt,
                           p->cp_path, strerror(errno));
        if (fstat(fd, &sb) != 0) {
            close(fd);
            return ct_fail(e, BOX_STATUS_FAULT, false, "%s %s: %s", row->lr_opt,
                           p->cp_path, strerror(errno));
        }
        dir = S_ISDIR(sb.st_mode);
        if (S_ISLNK(sb.st_mode) || (dir && !row->lr_dir_ok) ||
            (!dir && !row->lr_file_ok)) {
            close(fd);
            return ct_fail(
                e, BOX_STATUS_FAULT, false, "%s %s: %s", row->lr_opt, p->cp_path,
                S_ISLNK(sb.st_mode) ? "is a symbolic link; name its target"
                : dir               ? "is a directory; this list takes files"
                                    : "is not a directory");
        }
        // A mask covers one name; a second name of the same file in a
        // grant would reach its content all the same.
        if (p->cp_list == CONTAIN_DENY && !dir && sb.st_nlink > 1) {
            close(fd);
            return ct_fail(e, BOX_STATUS_FAULT, false,
                           "--deny %s has %ju names (hard links); a mask "
                           "covers one name, so give it one",
                           p->cp_path, (uintmax_t)sb.st_nlink);
        }
        if (p->cp_list == CONTAIN_DENY)
            ll_plan_mask(plan, p->cp_path, &sb);
        if (row->lr_access == 0) {
            close(fd);
            continue;
        }
        if ((st = ll_plan_rule(plan, fd, row->lr_access & mask, p->cp_path,
                               false, e)) != 0)
            return st;
        plan->cp_rules[plan->cp_nrules - 1].cr_list = p->cp_list;
        if (p->cp_list == CONTAIN_EXEC && S_ISREG(sb.st_mode) &&
            (st =
                 ll_plan_loader(plan, plan->cp_rules[plan->cp_nrules - 1].cr_fd,
                                mask, e)) != 0)
            return st;
    }
    if ((st = ll_plan_program(plan, exec_fd, mask, e)) != 0 ||
        (st = ll_plan_shim(plan, spec->cs_shells, mask, e)) != 0)
        return st;
    for (size_t i = 0; i < spec->cs_npaths; i++) {
        if (spec->cs_paths[i].cp_list != CONTAIN_DENY)
            continue;
        if ((st = ll_check_deny(spec->cs_paths[i].cp_path, plan, e)) != 0)
            return st;
    }
    return BOX_STATUS_OK;
}

box_status
ct_ll_apply(const ct_plan *plan, ct_err *e)
{
    uint64_t mask = box_ll_fs_mask(plan->cp_abi);
    char *msg = NULL;
    box_err rv;
    int rs;

    if ((rv = box_ll_ruleset(plan->cp_abi, &rs, &msg)) != BOX_OK)
        return ct_fail_lib(e, rv, msg);
    for (size_t i = 0; rv == BOX_OK && i < sizeof ll_system / sizeof *ll_system;
         i++)
        rv = box_ll_add_path(rs, ll_system[i].sr_path,
                             ll_system[i].sr_access & mask, true, &msg);
    for (size_t i = 0; rv == BOX_OK && i < plan->cp_nrules; i++) {
        const ct_rule *r = &plan->cp_rules[i];
        rv = box_ll_add_fd(rs, r->cr_fd, r->cr_access, r->cr_path, &msg);
    }
    if (rv == BOX_OK)
        rv = box_ll_restrict(rs, &msg);
    close(rs);
    return rv == BOX_OK ? BOX_STATUS_OK : ct_fail_lib(e, rv, msg);
}

void
ct_plan_free(ct_plan *plan)
{
    for (size_t i = 0; i < plan->cp_nrules; i++)
        close(plan->cp_rules[i].cr_fd);
    box_free(plan->cp_rules);
    box_free(plan->cp_masks);
    ct_bind_free(plan);
    ct_shells_free(plan);
    plan->cp_rules = NULL;
    plan->cp_masks = NULL;
    plan->cp_nrules = 0;
    plan->cp_nmasks = 0;
}
