/* SPDX-License-Identifier: Apache-2.0 */
/* box_proc_confine: environment, descriptors, no_new_privs, Landlock,
 * seccomp, in that order. */
#include "box_confine.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_proctab.h"

extern char **environ;

/* ORDER BOX_PROFILE */
static const char *const confine_names[BOX_PROFILE_COUNT] = {
    [BOX_PROFILE_NONE] = "a process with no profile",
    [BOX_PROFILE_PDP] = "box-pdp",
    [BOX_PROFILE_GATEWAY] = "box-gateway",
    [BOX_PROFILE_BROKER] = "box-shell's broker",
    [BOX_PROFILE_WORKER] = "box-shell's worker",
    [BOX_PROFILE_LAUNCHER] = "box-shell's launcher",
    [BOX_PROFILE_CONTAIN] = "box-contain",
    [BOX_PROFILE_PDP_PEERS] = "box-pdp's peer identifier",
};

const char *
box_profile_name(box_profile p)
{
    if ((int)p < 0 || p >= BOX_PROFILE_COUNT)
        return "an unknown process";
    return confine_names[p];
}

void
box_confine_spec_init(box_confine_spec *s, box_profile p)
{
    memset(s, 0, sizeof *s);
    s->cs_profile = p;
    s->cs_sc_mode = BOX_SC_DENYLIST;
}

box_err
box_confine_keep_row_env(box_confine_spec *s, const box_proctab_row *row)
{
    box_err rv = BOX_OK;
    for (size_t i = 0; i < BOX_PROC_NAMES_MAX && rv == BOX_OK; i++)
        if (row->pt_env[i] != NULL)
            rv = box_confine_keep_env(s, row->pt_env[i]);
    return rv;
}

void
box_confine_spec_free(box_confine_spec *s)
{
    for (size_t i = 0; i < s->cs_nrules; i++)
        box_free(s->cs_rules[i].cr_path);
    s->cs_nrules = 0;
}

box_err
box_confine_keep_env(box_confine_spec *s, const char *name)
{
    if (s->cs_nenv == BOX_CONFINE_MAX_ENV)
        return BOX_ETOOBIG;
    s->cs_env[s->cs_nenv++] = name;
    return BOX_OK;
}

box_err
box_confine_keep_fd(box_confine_spec *s, int fd)
{
    if (s->cs_nfds == BOX_CONFINE_MAX_FDS)
        return BOX_ETOOBIG;
    s->cs_fds[s->cs_nfds++] = fd;
    return BOX_OK;
}

box_err
box_confine_grant(box_confine_spec *s, const char *path, uint64_t access,
                  bool optional)
{
    if (s->cs_nrules == BOX_CONFINE_MAX_RULES)
        return BOX_ETOOBIG;
    box_confine_rule *r = &s->cs_rules[s->cs_nrules];
    if ((r->cr_path = box_strdup(path)) == NULL)
        return BOX_ENOMEM;
    r->cr_access = access;
    r->cr_optional = optional;
    s->cs_nrules++;
    return BOX_OK;
}

/* ------------------------------------------------------------------ */
/* 1. Environment                                                       */
/* ------------------------------------------------------------------ */

/*
 * The initial environment block [start, end) from /proc/self/stat
 * (fields 50 and 51), or false. Its strings are what /proc/<pid>/environ
 * shows whatever environ points to later, so they are what must be wiped.
 */
static bool
env_block(char **start, char **end)
{
    char buf[2048];
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    // Fields after the command name, which may hold spaces: from the last ')'.
    char *p = strrchr(buf, ')');
    unsigned long long v[2] = {0, 0};
    for (int field = 2; p != NULL && field < 51;) {
        p = strchr(p + 1, ' ');
        if (p != NULL && ++field >= 50)
            v[field - 50] = strtoull(p + 1, NULL, 10);
    }
    if (v[0] == 0 || v[1] <= v[0])
        return false;
    *start = (char *)(uintptr_t)v[0];
    *end = (char *)(uintptr_t)v[1];
    return true;
}

static bool
env_kept(const box_confine_spec *s, const char *entry)
{
    const char *eq = strchr(entry, '=');
    size_t n = eq != NULL ? (size_t)(eq - entry) : strlen(entry);
    for (size_t i = 0; i < s->cs_nenv; i++)
        if (strlen(s->cs_env[i]) == n && memcmp(s->cs_env[i], entry, n) == 0)
            return true;
    return false;
}

/*
 * Keeps only the spec's names. The kept entries are copied aside, the
 * original block is zeroed (no secret the operator's shell passed on
 * stays readable in /proc/<pid>/environ or in memory), and they are put
 * back at its start; environ then points at them. The new pointer array
 * is never freed: environ holds it for the life of the process.
 */
box_err
box_confine_env(const box_confine_spec *s, char **err)
{
    size_t nkeep = 0, bytes = 0;
    for (char **e = environ; e != NULL && *e != NULL; e++)
        if (env_kept(s, *e)) {
            nkeep++;
            bytes += strlen(*e) + 1;
        }
    if (environ == NULL)
        return BOX_OK;
    char *kept = box_alloc(bytes + 1);
    if (kept == NULL) {
        *err = box_strdup("environment: out of memory");
        return BOX_ENOMEM;
    }
    // The pointers are rewritten in environ's own array (it has room: it
    // held them all), so no array is made here that a later call would
    // leave unreachable.
    char **arr = environ;
    size_t off = 0;
    for (char **e = environ; e != NULL && *e != NULL; e++)
        if (env_kept(s, *e)) {
            size_t n = strlen(*e) + 1;
            memcpy(kept + off, *e, n);
            off += n;
        }
    char *start = NULL, *end = NULL;
    if (env_block(&start, &end)) {
        memset(start, 0, (size_t)(end - start));
    } else {
        // No /proc: wipe each string environ still names.
        for (char **e = environ; e != NULL && *e != NULL; e++)
            memset(*e, 0, strlen(*e));
    }
    // Each kept entry goes back into the block while it fits (where
    // /proc/<pid>/environ shows it); one set after exec, longer than the
    // block has room for, stays in the heap copy.
    bool heap_used = false;
    size_t used = 0;
    for (size_t i = 0, o = 0; i < nkeep; i++) {
        size_t n = strlen(kept + o) + 1;
        if (start != NULL && n <= (size_t)(end - start) - used) {
            memcpy(start + used, kept + o, n);
            arr[i] = start + used;
            used += n;
        } else {
            arr[i] = kept + o;
            heap_used = true;
        }
        o += n;
    }
    arr[nkeep] = NULL;
    if (!heap_used)
        box_free(kept);
    return BOX_OK;
}

/* ------------------------------------------------------------------ */
/* 2. Descriptors                                                       */
/* ------------------------------------------------------------------ */

static int
fd_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Closes every descriptor but the spec's, a range at a time. */
static box_err
confine_fds(const box_confine_spec *s, char **err)
{
    int keep[BOX_CONFINE_MAX_FDS];
    size_t n = s->cs_nfds;
    unsigned lo = 0;

    memcpy(keep, s->cs_fds, n * sizeof *keep);
    qsort(keep, n, sizeof *keep, fd_cmp);
    for (size_t i = 0; i <= n; i++) {
        if (i < n && keep[i] < 0)
            continue;
        unsigned hi = i < n ? (unsigned)keep[i] : ~0U;
        if (hi > lo && close_range(lo, hi - 1, 0) != 0) {
            *err = box_asprintf("cannot close descriptors %u-%u "
                                "(close_range: %s)",
                                lo, hi - 1, strerror(errno));
            return errno == ENOSYS ? BOX_ENOTSUP : BOX_EIO;
        }
        if (i < n)
            lo = (unsigned)keep[i] + 1;
    }
    return BOX_OK;
}

/* ------------------------------------------------------------------ */
/* 4. Landlock (3 is one prctl)                                         */
/* ------------------------------------------------------------------ */

#ifdef BOX_SANITIZE
/*
 * Sanitizer builds only. LeakSanitizer runs at exit: it reads
 * /proc/self/maps and /proc/self/task to find the threads and memory to
 * scan, and it reads its suppressions file (LSAN_OPTIONS=suppressions=)
 * only then, lazily. Both are granted read here, and ptrace is let
 * through seccomp (confine_seccomp): it stops the world with it.
 * Landlock still keeps ptrace to the process's own domain. A normal
 * build never grants any of this.
 */
static void
sanitizer_suppressions(char *buf, size_t n)
{
    const char *o = getenv("LSAN_OPTIONS");
    const char *p = o != NULL ? strstr(o, "suppressions=") : NULL;
    buf[0] = '\0';
    if (p == NULL)
        return;
    p += strlen("suppressions=");
    size_t len = strcspn(p, ":");
    if (len > 0 && len < n) {
        memcpy(buf, p, len);
        buf[len] = '\0';
    }
}
#endif

static box_err
confine_landlock(const box_confine_spec *s, const char *lsan_supp, char **err)
{
    int abi, rs = -1;
    box_err rv;

    if ((rv = box_ll_abi(&abi, err)) != BOX_OK ||
        (rv = box_ll_ruleset(abi, &rs, err)) != BOX_OK)
        return rv;
    uint64_t mask = box_ll_fs_mask(abi);
    for (size_t i = 0; rv == BOX_OK && i < s->cs_nrules; i++)
        rv = box_ll_add_path(rs, s->cs_rules[i].cr_path,
                             s->cs_rules[i].cr_access & mask,
                             s->cs_rules[i].cr_optional, err);
#ifdef BOX_SANITIZE
    if (rv == BOX_OK)
        rv = box_ll_add_path(rs, "/proc", BOX_LL_READ_FILE | BOX_LL_READ_DIR,
                             false, err);
    if (rv == BOX_OK && lsan_supp[0] != '\0')
        rv = box_ll_add_path(rs, lsan_supp, BOX_LL_READ_FILE, true, err);
#endif
    if (rv == BOX_OK)
        rv = box_ll_restrict(rs, err);
    close(rs);
    return rv;
}

/* ------------------------------------------------------------------ */
/* 5. seccomp                                                           */
/* ------------------------------------------------------------------ */

static box_err
confine_seccomp(const box_confine_spec *s, char **err)
{
    box_sc_filter f = {.sf_mode = s->cs_sc_mode,
                       .sf_rules = s->cs_sc_rules,
                       .sf_nrules = s->cs_nsc_rules,
                       .sf_let_namespaces = s->cs_sc_let_namespaces};
    box_err rv;

#ifdef BOX_SANITIZE
    f.sf_let_ptrace = true; // see sanitizer_suppressions
#endif
    if ((rv = box_sc_avail(err)) != BOX_OK)
        return rv;
    return box_sc_load(&f, err);
}

box_err
box_proc_confine(const box_confine_spec *spec, char **err)
{
    char lsan_supp[PATH_MAX] = "";
    box_err rv;

    *err = NULL;
#ifdef BOX_SANITIZE
    // Read before step 1 takes the environment away.
    sanitizer_suppressions(lsan_supp, sizeof lsan_supp);
#endif
    if ((rv = box_confine_env(spec, err)) != BOX_OK ||
        (rv = confine_fds(spec, err)) != BOX_OK)
        return rv;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        *err = box_asprintf("the kernel has no no_new_privs (prctl: %s)",
                            strerror(errno));
        return BOX_ENOTSUP;
    }
    if (!spec->cs_no_landlock &&
        (rv = confine_landlock(spec, lsan_supp, err)) != BOX_OK)
        return rv;
    return confine_seccomp(spec, err);
}
