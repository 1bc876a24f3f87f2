/* SPDX-License-Identifier: Apache-2.0 */
/* box-contain binds: where files may be mapped executable, and where a
 * write grant is carved read-only, set by each path's own mount flags. */
#include "contain_int.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"

/*
 * Landlock's execute right governs execve(2), and the loader the kernel
 * opens for an ELF program, but not mmap(PROT_EXEC) of a file open for
 * reading. Every dynamic program needs the execute right on the dynamic
 * loader, and the loader runs any ELF it can read: `ld.so /usr/bin/touch
 * F`, `ld.so --preload ./evil.so PROG`, an ELF the agent wrote into a
 * grant. Landlock has no "interpreter only" right. The kernel refuses an
 * executable mapping of a file (and execve) on a MS_NOEXEC mount, which is
 * what the loader needs. So in the sandbox's own mount namespace, before
 * Landlock, each path below gets a bind of itself carrying its own flags:
 *
 *   - the system's program directories (bind_system): read-only and
 *     noexec (a write grant around one keeps it writable);
 *   - every filesystem grant (read, write, read_file, write_file, list):
 *     noexec, so nothing the agent wrote there maps executable;
 *   - what may run: the --exec entries and the program's own file:
 *     executable (a file bind over a single file carries its own flags).
 *     A #! interpreter runs only when --exec lists it (Landlock), which
 *     makes it executable here as well.
 *
 * The deepest entry wins (a bind made later, deeper, sits on top): an
 * --exec directory inside a grant runs, a grant inside an --exec
 * directory does not; a system program directory inside an --exec entry
 * keeps the entry's exec. A read-type entry (read, read_file, list)
 * inside a write grant is read-only there: a rename onto it or a removal
 * of it fails (EBUSY: it is a mount point) and a write in it fails
 * (EROFS), so a tool's leaf cannot rewrite e.g. .git/config, whose
 * rename from config.lock git needs. A read-type path outside any write
 * grant keeps its host flags: Landlock already refuses writes there (as
 * EACCES).
 *
 * The library trees (/usr, /lib, /lib64: bind_library) keep the host's
 * exec: the loader maps shared objects from there. A read-type entry at
 * or inside one changes no exec (every sandbox reads the system's files
 * anyway); a grant around one (`--read /`) is noexec but for the library
 * trees, which are bound back with the host's flags. What remains: an
 * ELF program that lives inside a library directory (e.g.
 * /usr/lib/gcc/<triplet>/<v>/cc1, /usr/lib/systemd/ *) can still be run
 * through the loader. The helper program directories listed below are
 * closed too; they hold programs, never the shared objects a program
 * loads. A shared object a program loads from a granted directory
 * outside the library trees needs that directory in --exec.
 *
 * Every bind is cloned first, whole (with the host's mounts beneath it),
 * from the tree as the host has it, and each clone is checked to be the
 * file the plan saw (dev, ino), then the clones are attached from the
 * shallowest path down. No flag the host set is ever cleared (a clone
 * only gains flags), so a host noexec or read-only mount stays so. A
 * grant of / itself has its flags set in place, on every mount of this
 * namespace, once every clone is taken: a mount over the root directory
 * is not what a path from / resolves through.
 */

/* Program directories (glob(3) patterns; missing ones are skipped). */
static const char *const bind_system[] = {
    "/usr/bin",
    "/usr/sbin",
    "/usr/local/bin",
    "/usr/local/sbin",
    "/usr/games",
    "/usr/local/games",
    "/usr/libexec",
    "/usr/local/libexec",
    "/bin",
    "/sbin",
    // Helper program directories inside the library trees.
    "/usr/lib/git-core",
    "/usr/lib/*/bin",
    "/usr/lib/*/libexec",
    "/usr/lib/jvm/*/bin",
    "/usr/local/lib/*/bin",
};

/* The trees the loader maps shared objects from (missing ones skipped):
 * what contain_landlock.c's ll_system lets every sandbox read, less the
 * program directories /bin and /sbin. */
static const char *const bind_library[] = {"/usr", "/lib", "/lib64"};

/* What planned a path (cb_kinds); several may name one. */
enum {
    BIND_SYSTEM = 1u << 0,  // bind_system
    BIND_READ = 1u << 1,    // read, read_file, list
    BIND_WRITE = 1u << 2,   // write, write_file
    BIND_EXEC = 1u << 3,    // --exec, the program
    BIND_LIBRARY = 1u << 4, // bind_library
};

/* ORDER CONTAIN_LIST: the bind kind of each list (0: none). */
static const unsigned bind_list_kind[CONTAIN_LIST_COUNT] = {
    [CONTAIN_READ] = BIND_READ,      [CONTAIN_WRITE] = BIND_WRITE,
    [CONTAIN_READ_FILE] = BIND_READ, [CONTAIN_WRITE_FILE] = BIND_WRITE,
    [CONTAIN_LIST] = BIND_READ,      [CONTAIN_METADATA] = 0,
    [CONTAIN_EXEC] = BIND_EXEC,      [CONTAIN_DENY] = 0,
};

static box_status
bind_push(ct_plan *plan, const char *path, const struct stat *sb, unsigned kind,
          bool optional, ct_err *e)
{
    ct_bind *b;

    if (plan->cp_nbinds == plan->cp_capbinds) {
        size_t cap = plan->cp_capbinds ? plan->cp_capbinds * 2 : 32;
        ct_bind *nb = box_realloc(plan->cp_binds, cap * sizeof *nb);
        if (nb == NULL)
            return ct_fail(e, BOX_STATUS_FAULT, false, "out of memory");
        plan->cp_binds = nb;
        plan->cp_capbinds = cap;
    }
    b = &plan->cp_binds[plan->cp_nbinds];
    memset(b, 0, sizeof *b);
    if ((b->cb_path = box_strdup(path)) == NULL)
        return ct_fail(e, BOX_STATUS_FAULT, false, "out of memory");
    b->cb_dev = sb->st_dev;
    b->cb_ino = sb->st_ino;
    b->cb_kinds = kind;
    b->cb_optional = optional;
    plan->cp_nbinds++;
    return BOX_STATUS_OK;
}

/*
 * The path the kernel gives an open file and its identity. A file with
 * no path here (deleted, or beyond this root) is planned only when it is
 * optional, by being skipped.
 */
static box_status
bind_push_fd(ct_plan *plan, int fd, unsigned kind, bool optional,
             const char *what, ct_err *e)
{
    char proc[64], path[PATH_MAX];
    struct stat sb;
    ssize_t n;

    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    n = readlink(proc, path, sizeof path - 1);
    if (n <= 0 || (size_t)n >= sizeof path - 1 || fstat(fd, &sb) != 0 ||
        path[0] != '/') {
        if (optional)
            return BOX_STATUS_OK;
        return ct_fail(e, BOX_STATUS_FAULT, false,
                       "%s: cannot name its path (%s)", what,
                       n < 0 ? strerror(errno) : "no path");
    }
    path[n] = '\0';
    return bind_push(plan, path, &sb, kind, optional, e);
}

/* Every existing directory a pattern names, canonical, as kind. */
static box_status
bind_push_globs(ct_plan *plan, const char *const *pats, size_t n, unsigned kind,
                ct_err *e)
{
    box_status st = BOX_STATUS_OK;

    for (size_t i = 0; i < n; i++) {
        glob_t g;
        char real[PATH_MAX];
        struct stat sb;

        if (glob(pats[i], GLOB_ONLYDIR | GLOB_NOSORT, NULL, &g) != 0)
            continue; // nothing there (or unreadable): nothing to close
        for (size_t k = 0; k < g.gl_pathc && st == BOX_STATUS_OK; k++) {
            if (realpath(g.gl_pathv[k], real) != NULL && stat(real, &sb) == 0 &&
                S_ISDIR(sb.st_mode))
                st = bind_push(plan, real, &sb, kind, false, e);
        }
        globfree(&g);
        if (st != BOX_STATUS_OK)
            return st;
    }
    return BOX_STATUS_OK;
}

// Shorter first: an ancestor always sorts before what lies beneath it.
static int
bind_cmp(const void *a, const void *b)
{
    const ct_bind *x = a, *y = b;
    size_t lx = strlen(x->cb_path), ly = strlen(y->cb_path);

    if (lx != ly)
        return lx < ly ? -1 : 1;
    return strcmp(x->cb_path, y->cb_path);
}

/* path lies strictly beneath dir (both canonical). */
static bool
bind_beneath(const char *dir, const char *path)
{
    size_t n = strlen(dir);

    if (strcmp(dir, "/") == 0)
        return strcmp(path, "/") != 0;
    return strncmp(dir, path, n) == 0 && path[n] == '/';
}

/* One entry per path: what named it, merged; the identities must agree. */
static box_status
bind_merge(ct_plan *plan, ct_err *e)
{
    box_status st = BOX_STATUS_OK;
    size_t out = 0;

    qsort(plan->cp_binds, plan->cp_nbinds, sizeof *plan->cp_binds, bind_cmp);
    for (size_t i = 0; i < plan->cp_nbinds; i++) {
        ct_bind *b = &plan->cp_binds[i];
        ct_bind *last = out > 0 ? &plan->cp_binds[out - 1] : NULL;

        if (last == NULL || strcmp(last->cb_path, b->cb_path) != 0) {
            plan->cp_binds[out++] = *b;
            continue;
        }
        if ((last->cb_dev != b->cb_dev || last->cb_ino != b->cb_ino) &&
            st == BOX_STATUS_OK)
            st = ct_fail(e, BOX_STATUS_FAULT, false,
                         "%s: it changed while the sandbox was built",
                         b->cb_path);
        last->cb_kinds |= b->cb_kinds;
        last->cb_optional = last->cb_optional && b->cb_optional;
        box_free(b->cb_path);
    }
    plan->cp_nbinds = out; // each path owned once, whatever st says
    return st;
}

/* path is at or beneath dir (both canonical). */
static bool
bind_within(const char *dir, const char *path)
{
    return strcmp(dir, path) == 0 || bind_beneath(dir, path);
}

/*
 * The flags of each path, from the shallowest down; the nearest bound
 * path above it is `up`. Exec: an --exec entry or the program runs
 * (listed); a write grant does not; a read-type grant does not, unless it
 * lies in a library tree, where it keeps what is above it (or the
 * host's); a program directory does not, and is not bound at all beneath
 * a listed path (it keeps that exec); a library tree is bound back only
 * beneath a noexec path. Writable: a write grant, else a read-type one is
 * not, else what is above. Read-only only where a write grant above makes
 * it a carve, and on the program directories.
 */
static box_status
bind_flags(ct_plan *plan, ct_err *e)
{
    bool *drop = box_calloc(plan->cp_nbinds + 1, sizeof *drop);
    size_t out = 0;

    if (drop == NULL)
        return ct_fail(e, BOX_STATUS_FAULT, false, "out of memory");
    for (size_t i = 0; i < plan->cp_nbinds; i++) {
        ct_bind *b = &plan->cp_binds[i];
        const ct_bind *up = NULL;
        bool in_write = false, in_library = false;
        unsigned k = b->cb_kinds;

        for (size_t j = 0; j <= i; j++) {
            const ct_bind *o = &plan->cp_binds[j];
            if ((o->cb_kinds & BIND_LIBRARY) &&
                bind_within(o->cb_path, b->cb_path))
                in_library = true;
            if (j < i && !drop[j] && bind_beneath(o->cb_path, b->cb_path)) {
                up = o; // the last one is the nearest
                in_write = in_write || o->cb_writable;
            }
        }
        if (k & BIND_EXEC) {
            b->cb_exec = b->cb_listed = true;
        } else if (k & BIND_WRITE) {
            b->cb_exec = false;
        } else if ((k & BIND_READ) && !(k & BIND_SYSTEM) && in_library) {
            b->cb_exec = up == NULL || up->cb_exec;
            b->cb_listed = up != NULL && up->cb_listed;
        } else if (k & (BIND_READ | BIND_SYSTEM)) {
            b->cb_exec = false;
            drop[i] = !(k & BIND_READ) && up != NULL && up->cb_listed;
        } else { // a library tree alone
            b->cb_exec = true;
            drop[i] = up == NULL || up->cb_exec;
        }
        b->cb_writable = (k & BIND_WRITE)  ? true
                         : (k & BIND_READ) ? false
                         : up != NULL      ? up->cb_writable
                                           : false;
        // The system's program directories are read-only whatever lies
        // above them, unless a write grant reaches them.
        b->cb_rdonly = !b->cb_writable && (in_write || (k & BIND_SYSTEM) != 0);
    }
    for (size_t i = 0; i < plan->cp_nbinds; i++) {
        if (drop[i])
            box_free(plan->cp_binds[i].cb_path);
        else
            plan->cp_binds[out++] = plan->cp_binds[i];
    }
    plan->cp_nbinds = out;
    box_free(drop);
    return BOX_STATUS_OK;
}

box_status
ct_bind_plan(ct_plan *plan, int exec_fd, ct_err *e)
{
    box_status st;

    for (size_t i = 0; i < plan->cp_nrules; i++) {
        const ct_rule *r = &plan->cp_rules[i];
        unsigned kind = r->cr_implicit ? 0 : bind_list_kind[r->cr_list];

        if (kind != 0 && (st = bind_push_fd(plan, r->cr_fd, kind, false,
                                            r->cr_path, e)) != 0)
            return st;
    }
    // The program runs by its descriptor whatever its path shows; bound
    // so that it may also run itself again by name.
    if (exec_fd >= 0 && (st = bind_push_fd(plan, exec_fd, BIND_EXEC, true,
                                           "the program", e)) != 0)
        return st;
    // The --shells shim runs: its covers are cloned from it, flags and all.
    if (plan->cp_shim != NULL &&
        (st = bind_push_fd(plan, plan->cp_shim_fd, BIND_EXEC, false,
                           plan->cp_shim, e)) != 0)
        return st;
    if ((st = bind_push_globs(plan, bind_system,
                              sizeof bind_system / sizeof *bind_system,
                              BIND_SYSTEM, e)) != 0 ||
        (st = bind_push_globs(plan, bind_library,
                              sizeof bind_library / sizeof *bind_library,
                              BIND_LIBRARY, e)) != 0 ||
        (st = bind_merge(plan, e)) != 0)
        return st;
    return bind_flags(plan, e);
}

/* Sets b's flags on the mount tree at fd, every mount of it: never
 * cleared, only added. */
static box_status
bind_setattr(const ct_bind *b, int fd, ct_err *e)
{
    struct mount_attr attr = {.attr_set = MOUNT_ATTR_NOSUID};

    if (!b->cb_exec)
        attr.attr_set |= MOUNT_ATTR_NOEXEC;
    if (b->cb_rdonly)
        attr.attr_set |= MOUNT_ATTR_RDONLY;
    if (mount_setattr(fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr,
                      sizeof attr) == 0)
        return BOX_STATUS_OK;
    return ct_fail(e, BOX_STATUS_FAULT, errno == ENOSYS,
                   "%s: cannot set its mount flags (mount_setattr: %s%s)",
                   b->cb_path, strerror(errno),
                   errno == ENOSYS ? "; Linux 5.12 has it" : "");
}

/* fd is the file the plan saw; else the refusal (or, for an optional
 * path, -1 in *keep). */
static box_status
bind_check(const ct_bind *b, int fd, bool *keep, ct_err *e)
{
    struct stat sb;

    *keep = true;
    if (fstat(fd, &sb) == 0 && sb.st_dev == b->cb_dev && sb.st_ino == b->cb_ino)
        return BOX_STATUS_OK;
    *keep = false;
    if (b->cb_optional)
        return BOX_STATUS_OK;
    return ct_fail(e, BOX_STATUS_FAULT, false,
                   "%s: it changed while the sandbox was built", b->cb_path);
}

/*
 * A whole clone of the path as the host has it, checked to be the file
 * the plan saw, with its flags set. -1 (and BOX_STATUS_OK) for an optional
 * path that is not there as planned.
 */
static box_status
bind_clone(const ct_bind *b, int *out, ct_err *e)
{
    box_status st;
    bool keep;
    int fd;

    *out = -1;
    fd = open_tree(AT_FDCWD, b->cb_path,
                   OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE |
                       AT_SYMLINK_NOFOLLOW);
    if (fd < 0 && (errno == ENOENT || errno == ENOTDIR) && b->cb_optional)
        return BOX_STATUS_OK;
    if (fd < 0)
        return ct_fail(e, BOX_STATUS_FAULT, errno == ENOSYS,
                       "%s: cannot bind it (open_tree: %s)", b->cb_path,
                       strerror(errno));
    if ((st = bind_check(b, fd, &keep, e)) != 0 || !keep ||
        (st = bind_setattr(b, fd, e)) != 0) {
        close(fd);
        return st;
    }
    *out = fd;
    return BOX_STATUS_OK;
}

/* The clone onto its own path, as it resolves now (the binds above it in
 * place), which must still be the planned file. */
static box_status
bind_attach(const ct_bind *b, int clone, ct_err *e)
{
    box_status st;
    bool keep;
    int target = open(b->cb_path, O_PATH | O_NOFOLLOW | O_CLOEXEC);

    if (target < 0)
        return b->cb_optional ? BOX_STATUS_OK
                              : ct_fail(e, BOX_STATUS_FAULT, false,
                                        "%s: it changed while the sandbox "
                                        "was built (%s)",
                                        b->cb_path, strerror(errno));
    if ((st = bind_check(b, target, &keep, e)) == 0 && keep &&
        move_mount(clone, "", target, "",
                   MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0)
        st = ct_fail(e, BOX_STATUS_FAULT, true,
                     "%s: cannot bind it (move_mount: %s)", b->cb_path,
                     strerror(errno));
    close(target);
    return st;
}

/* A grant of / itself: its flags on this namespace's own mounts. */
static box_status
bind_root(const ct_bind *b, ct_err *e)
{
    box_status st;
    bool keep;
    int fd = open("/", O_PATH | O_CLOEXEC);

    if (fd < 0)
        return ct_fail(e, BOX_STATUS_FAULT, false, "/: %s", strerror(errno));
    if ((st = bind_check(b, fd, &keep, e)) == 0 && keep)
        st = bind_setattr(b, fd, e);
    close(fd);
    return st;
}

box_status
ct_binds(const ct_plan *plan, ct_err *e)
{
    box_status st = BOX_STATUS_OK;
    int *clones;

    if (plan->cp_nbinds == 0)
        return BOX_STATUS_OK;
    if ((clones = box_calloc(plan->cp_nbinds, sizeof *clones)) == NULL)
        return ct_fail(e, BOX_STATUS_FAULT, false, "out of memory");
    for (size_t i = 0; i < plan->cp_nbinds; i++)
        clones[i] = -1;
    // Every clone before any flag changes: each starts from the host's
    // tree. / sorts first.
    for (size_t i = 0; i < plan->cp_nbinds && st == BOX_STATUS_OK; i++) {
        if (strcmp(plan->cp_binds[i].cb_path, "/") != 0)
            st = bind_clone(&plan->cp_binds[i], &clones[i], e);
    }
    if (st == BOX_STATUS_OK && strcmp(plan->cp_binds[0].cb_path, "/") == 0)
        st = bind_root(&plan->cp_binds[0], e);
    for (size_t i = 0; i < plan->cp_nbinds && st == BOX_STATUS_OK; i++) {
        if (clones[i] >= 0)
            st = bind_attach(&plan->cp_binds[i], clones[i], e);
    }
    for (size_t i = 0; i < plan->cp_nbinds; i++) {
        if (clones[i] >= 0)
            close(clones[i]);
    }
    box_free(clones);
    return st;
}

void
ct_bind_free(ct_plan *plan)
{
    for (size_t i = 0; i < plan->cp_nbinds; i++)
        box_free(plan->cp_binds[i].cb_path);
    box_free(plan->cp_binds);
    plan->cp_binds = NULL;
    plan->cp_nbinds = 0;
    plan->cp_capbinds = 0;
}
