/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel: admission (decide, reach floor, re-check) and the effects. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_effect.h"
#include "sh_kernel_int.h"

static const char txt_identity[] =
    "filesystem identity changed during effect admission";
static const char txt_authority[] =
    "resolves to an authority source that this run loaded, which no policy "
    "may open or change";
static const char txt_reserved[] =
    "resolves into trusted Box state, which no policy may open";
static const char txt_setid[] =
    "setuid/setgid/sticky bits are not permitted in this box";
static const char txt_xdev[] =
    "cannot rename between host and virtual filesystem";
static const char txt_onto_link[] = "cannot rename onto a host symlink";
static const char txt_busy[] = "bind mount point is busy";
static const char txt_notlink[] = "not a symbolic link";
static const char txt_escape[] = "symlink target escapes the bind mount";

/*
 * What the kernel opens on the host: regular files and directories. A
 * FIFO's open waits for its other end, a device's may wait or never end
 * (a tty, /dev/zero), and a socket has no content to open, so no content
 * operation (read, write, truncate, append, `<>`) reaches one; this table
 * names them in the refusal. Metadata (stat, ls, rm, mv) is unaffected.
 */
static const struct kspecial {
    mode_t ks_type;
    const char *ks_name;
} special_tab[] = {
    {S_IFIFO, "a FIFO"},
    {S_IFSOCK, "a socket"},
    {S_IFCHR, "a character device"},
    {S_IFBLK, "a block device"},
};

/* ORDER KOP: kop_tab follows this order. */
enum kop {
    KOP_READ_CONTENT,
    KOP_READ_METADATA,
    KOP_ENUMERATE,
    KOP_READ_LINK,
    KOP_CHANGE_DIR,
    KOP_EXEC,
    KOP_WRITE_CONTENT,
    KOP_CREATE_DIR,
    KOP_SET_PERMISSIONS,
    KOP_SYMLINK,
    KOP_REMOVE_FILE,
    KOP_REMOVE_DIR,
    KOP_RENAME,
};

static const struct kop_row {
    box_effect_kind kind; // fs:read, fs:write, fs:delete, fs:move
    const char *id;       // the operation
    bool mutates; // an ancestor of an authority source may not be its target
} kop_tab[] = {
    {BOX_EFFECT_FS_READ, "read_content", false},
    {BOX_EFFECT_FS_READ, "read_metadata", false},
    {BOX_EFFECT_FS_READ, "enumerate", false},
    {BOX_EFFECT_FS_READ, "read_link", false},
    {BOX_EFFECT_FS_READ, "change_dir", false},
    {BOX_EFFECT_FS_READ, "exec", false},
    {BOX_EFFECT_FS_WRITE, "write_content", true},
    {BOX_EFFECT_FS_WRITE, "create_dir", true},
    {BOX_EFFECT_FS_WRITE, "set_permissions", true},
    {BOX_EFFECT_FS_WRITE, "symlink", true},
    {BOX_EFFECT_FS_DELETE, "remove_file", true},
    {BOX_EFFECT_FS_DELETE, "remove_dir", true},
    {BOX_EFFECT_FS_MOVE, "rename", true},
};

static void
changed(sh_kernel *k)
{
    atomic_fetch_add_explicit(&k->k_changes, 1, memory_order_release);
}

static void
bump(sh_kernel *k, int err)
{
    if (err == 0) {
        atomic_fetch_add(&k->k_generation, 1);
        changed(k);
    }
}

uint64_t
sh_kernel_generation(sh_kernel *k)
{
    return atomic_load(&k->k_generation);
}

void
sh_kernel_outside_begin(sh_kernel *k)
{
    atomic_fetch_add(&k->k_outside, 1);
    changed(k);
}

void
sh_kernel_outside_end(sh_kernel *k)
{
    atomic_fetch_sub(&k->k_outside, 1);
    changed(k);
}

struct sh_kernel_file {
    int kf_fd;          // host file, or -1
    sh_vfs_file *kf_vf; // VFS file, or NULL
    sh_kernel *kf_k;    // the kernel that opened it (sh_kernel_changes)
};

uint64_t
sh_kernel_changes(const sh_kernel_file *f)
{
    sh_kernel *k = f->kf_k;
    if (k == NULL || f->kf_fd < 0 || atomic_load(&k->k_outside) > 0)
        return 0;
    // Counted from 1 (sh_kernel_new): 0 stays "nothing promised".
    return atomic_load_explicit(&k->k_changes, memory_order_acquire);
}

/* ---- results ---------------------------------------------------------- */

void
sh_kernel_result_clear(sh_kernel_result *r)
{
    if (r == NULL)
        return;
    box_free(r->kr_message);
    box_free(r->kr_path);
    memset(r, 0, sizeof *r);
}

bool
sh_kernel_result_self_contained(const sh_kernel_result *r)
{
    switch (r->kr_outcome) {
    case SH_KR_DENIED:
        return r->kr_message != NULL; // not a probe's "absent"
    case SH_KR_FAULT:
    case SH_KR_FLOOR:
        return true;
    case SH_KR_OK:
    case SH_KR_OS_ERROR:
        break;
    }
    return false;
}

char *
sh_kernel_result_text(const sh_kernel_result *r, const char *target)
{
    const char *m = r->kr_message ? r->kr_message : strerror(r->kr_errno);
    if (sh_kernel_result_self_contained(r) || target == NULL)
        return box_strdup(m);
    return box_asprintf("%s: %s", target, m);
}

/* Sets an error; msg NULL means the errno's own text. Returns err. */
static int
fail(sh_kernel_result *r, int err, const char *msg)
{
    box_free(r->kr_message);
    r->kr_outcome = SH_KR_OS_ERROR;
    r->kr_errno = err;
    r->kr_message = box_strdup(msg ? msg : sh_vfs_strerror(err));
    return err;
}

static int
fail_errno(sh_kernel_result *r, int err)
{
    if (err == ESTALE)
        return fail(r, EACCES, txt_identity);
    return fail(r, err, NULL);
}

/* ---- creation --------------------------------------------------------- */

static box_err
add_ident(sh_ident **v, size_t *n, const struct stat *st)
{
    sh_ident *nv = box_realloc(*v, (*n + 1) * sizeof *nv);
    if (nv == NULL)
        return BOX_ENOMEM;
    nv[*n].id_dev = st->st_dev;
    nv[*n].id_ino = st->st_ino;
    *v = nv;
    (*n)++;
    return BOX_OK;
}

static bool
has_ident(const sh_ident *v, size_t n, dev_t dev, ino_t ino)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].id_dev == dev && v[i].id_ino == ino)
            return true;
    return false;
}

box_err
sh_kernel_new(const sh_kernel_opts *o, sh_kernel **out)
{
    box_err rv = BOX_ENOMEM;
    char real[PATH_MAX];
    sh_kernel *k = box_calloc(1, sizeof *k);
    if (k == NULL)
        return BOX_ENOMEM;
    atomic_init(&k->k_changes, 1);
    k->k_decide = o->ko_decide;
    k->k_decide_arg = o->ko_decide_arg;
    k->k_record = o->ko_record;
    k->k_record_arg = o->ko_record_arg;
    k->k_hook = o->ko_hook;
    k->k_act_hook = o->ko_act_hook;
    k->k_hook_arg = o->ko_hook_arg;
    if (sh_vfs_new(&k->k_vfs) != 0)
        goto fail;
    if (o->ko_operator_home &&
        (k->k_home = box_strdup(o->ko_operator_home)) == NULL)
        goto fail;
    if ((k->k_binds = box_calloc(o->ko_nbinds + 1, sizeof *k->k_binds)) == NULL)
        goto fail;
    for (size_t i = 0; i < o->ko_nbinds; i++) {
        const char *b = o->ko_binds[i];
        rv = BOX_ECONFIG;
        if (b == NULL || b[0] != '/' || realpath(b, real) == NULL ||
            strcmp(real, b) != 0 || strcmp(b, "/") == 0)
            goto fail;
        if (sh_res_bind_of(k, b) >= 0)
            continue; // nested in an earlier root
        sh_bind *bd = &k->k_binds[k->k_nbinds];
        bd->bd_fd = open(b, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (bd->bd_fd < 0)
            goto fail;
        rv = BOX_ENOMEM;
        if ((bd->bd_root = box_strdup(b)) == NULL) {
            close(bd->bd_fd);
            goto fail;
        }
        bd->bd_len = strlen(b);
        k->k_nbinds++;
        if (sh_vfs_mount_point(k->k_vfs, b) != 0)
            goto fail;
    }
    rv = BOX_ENOMEM;
    for (size_t i = 0; i < o->ko_nauthority; i++) {
        struct stat st;
        if (realpath(o->ko_authority[i], real) == NULL || stat(real, &st) != 0)
            continue;
        if (add_ident(&k->k_auth, &k->k_nauth, &st) != BOX_OK)
            goto fail;
        for (char *s = strrchr(real, '/'); s != NULL; s = strrchr(real, '/')) {
            if (s == real)
                s[1] = '\0';
            else
                s[0] = '\0';
            if (stat(real, &st) == 0 &&
                add_ident(&k->k_auth_anc, &k->k_nauth_anc, &st) != BOX_OK)
                goto fail;
            if (s == real)
                break;
        }
    }
    if (o->ko_nreserved > 0) {
        k->k_reserved = box_calloc(o->ko_nreserved, sizeof *k->k_reserved);
        k->k_reserved_id = box_calloc(o->ko_nreserved, sizeof(sh_ident));
        if (k->k_reserved == NULL || k->k_reserved_id == NULL)
            goto fail;
    }
    for (size_t i = 0; i < o->ko_nreserved; i++) {
        struct stat st;
        const char *p = o->ko_reserved[i];
        if (realpath(p, real) != NULL && stat(real, &st) == 0) {
            p = real;
            k->k_reserved_id[k->k_nreserved].id_dev = st.st_dev;
            k->k_reserved_id[k->k_nreserved].id_ino = st.st_ino;
        }
        if ((k->k_reserved[k->k_nreserved] = box_strdup(p)) == NULL)
            goto fail;
        k->k_nreserved++;
    }
    *out = k;
    return BOX_OK;
fail:
    sh_kernel_free(k);
    return rv;
}

void
sh_kernel_set_io(sh_kernel *k, box_decide_fn decide, void *decide_arg,
                 box_record_fn record, void *record_arg)
{
    k->k_decide = decide;
    k->k_decide_arg = decide_arg;
    k->k_record = record;
    k->k_record_arg = record_arg;
}

bool
sh_kernel_binds_current(const sh_kernel *k)
{
    for (size_t i = 0; i < k->k_nbinds; i++) {
        struct stat held, now;
        if (fstat(k->k_binds[i].bd_fd, &held) != 0 ||
            lstat(k->k_binds[i].bd_root, &now) != 0 ||
            held.st_dev != now.st_dev || held.st_ino != now.st_ino)
            return false;
    }
    return true;
}

void
sh_kernel_free(sh_kernel *k)
{
    if (k == NULL)
        return;
    for (size_t i = 0; i < k->k_nbinds; i++) {
        close(k->k_binds[i].bd_fd);
        box_free(k->k_binds[i].bd_root);
    }
    box_free(k->k_binds);
    for (size_t i = 0; i < k->k_nreserved; i++)
        box_free(k->k_reserved[i]);
    box_free(k->k_reserved);
    box_free(k->k_reserved_id);
    box_free(k->k_auth);
    box_free(k->k_auth_anc);
    box_free(k->k_home);
    sh_vfs_free(k->k_vfs);
    box_free(k);
}

/* ---- decisions -------------------------------------------------------- */

char *
sh_kernel_report_path(const sh_kernel *k, const char *c)
{
    if (k->k_home != NULL) {
        size_t hl = strlen(k->k_home);
        if (sh_res_under(c, k->k_home, hl)) {
            if (c[hl] == '\0')
                return box_strdup("~");
            return box_asprintf("~%s", c + hl);
        }
    }
    size_t l = strlen(c);
    while (l > 1 && c[l - 1] == '/')
        l--;
    return box_strndup(c, l);
}

/* Asks the decider about op on canonical path c. On a deny or fault r is
 * filled (self-contained message, kr_path the reported path); a permit
 * leaves its ticket in *t (zero when no outcome is wanted). */
static int
decide(sh_kernel *k, enum kop op, const char *c, const char *floor_reason,
       sh_kernel_result *r, box_ticket *t)
{
    *t = (box_ticket){0};
    const struct kop_row *row = &kop_tab[op];
    char *reported = sh_kernel_report_path(k, c);
    if (reported == NULL)
        return fail(r, ENOMEM, NULL);

    // The floor will refuse even a permit: the request says so, so the
    // decision log records the effective decision (cause=enforcement).
    box_effect e = {.e_kind = row->kind,
                    .e_fs = {.ef_operation = row->id,
                             .ef_reported = reported,
                             .ef_canonical = c,
                             .ef_floor = floor_reason}};
    box_effect_req er;
    const Box__DecisionRequest *req = box_effect_request(&er, &e);

    char *msg = NULL;
    box_verdict v = BOX_VERDICT_DENY;
    if (k->k_decide != NULL && req != NULL)
        v = k->k_decide(k->k_decide_arg, req, &msg, t);
    if (v != BOX_VERDICT_PERMIT)
        *t = (box_ticket){0}; // only a permit's effect has an outcome
    if (v == BOX_VERDICT_PERMIT) {
        r->kr_permits++;
        box_free(msg);
        box_free(reported);
        return 0;
    }
    r->kr_errno = EACCES;
    if (v != BOX_VERDICT_DENY) { // FAULT, or a value outside the enum
        r->kr_outcome = SH_KR_FAULT;
        r->kr_message =
            msg ? msg : box_strdup("the decision could not be made");
    } else {
        r->kr_outcome = SH_KR_DENIED;
        r->kr_message =
            msg ? msg
                : box_asprintf("policy denied this operation on '%s' "
                               "[default-deny]: No permit policy matched "
                               "this request.",
                               reported);
    }
    box_free(r->kr_path);
    r->kr_path = reported;
    return EACCES;
}

/* The reach floor's reason (box-spec §3.7) for a resolved name, or NULL
 * when it does not refuse. */
static const char *
floor_reason(const sh_kernel *k, enum kop op, const sh_res *rs)
{
    if (!rs->rs_host)
        return NULL;
    const char *why = NULL;
    if (rs->rs_exists &&
        has_ident(k->k_auth, k->k_nauth, rs->rs_id.id_dev, rs->rs_id.id_ino))
        why = txt_authority;
    else if (rs->rs_exists && kop_tab[op].mutates &&
             has_ident(k->k_auth_anc, k->k_nauth_anc, rs->rs_id.id_dev,
                       rs->rs_id.id_ino))
        why = txt_authority;
    for (size_t i = 0; why == NULL && i < k->k_nreserved; i++) {
        if (sh_res_under(rs->rs_canon, k->k_reserved[i],
                         strlen(k->k_reserved[i])) ||
            (rs->rs_exists && rs->rs_id.id_dev == k->k_reserved_id[i].id_dev &&
             rs->rs_id.id_ino == k->k_reserved_id[i].id_ino))
            why = txt_reserved;
    }
    return why;
}

/* The reach floor for a host-backed name after a permit. */
static int
floor_check(sh_kernel *k, enum kop op, const char *spelled, const sh_res *rs,
            sh_kernel_result *r)
{
    const char *why = floor_reason(k, op, rs);
    if (why == NULL)
        return 0;
    r->kr_outcome = SH_KR_FLOOR;
    r->kr_errno = EACCES;
    box_free(r->kr_message);
    r->kr_message = box_asprintf("%s: %s", spelled, why);
    box_free(r->kr_path);
    r->kr_path = sh_kernel_report_path(k, rs->rs_canon);
    return EACCES;
}

static int
resolve(sh_kernel *k, const char *cwd, const char *path, bool follow,
        sh_res *rs, sh_kernel_result *r)
{
    const char *why = NULL;
    int err = sh_res_resolve(k, cwd, path, follow, rs, &why);
    if (err != 0)
        return fail(r, err, why);
    return 0;
}

static int
recheck(sh_kernel *k, const sh_res *rs, sh_kernel_result *r)
{
    int err = sh_res_recheck(k, rs);
    return err == 0 ? 0 : fail_errno(r, err);
}

/* ---- admission ---------------------------------------------------------- */

/* One question to the decider: op on a canonical name, sent with the reach
 * floor's reason when the floor will refuse that name (else NULL). */
typedef struct kask {
    enum kop ka_op;
    const char *ka_canon;
    const char *ka_floor;
} kask;

/* A name the operation acts on: after the permits the reach floor (for
 * kn_op) may refuse it, by its spelling; right before the act its identity
 * is re-checked. */
typedef struct kname {
    enum kop kn_op;
    const char *kn_spelled;
    const sh_res *kn_rs;
} kname;

/* The admission of one operation (box-spec §3.6–§3.8). A rename asks the
 * most: four questions about two names. Each permit's ticket stays here
 * until the operation is over (finish). */
typedef struct kadm {
    kask ad_ask[4];
    box_ticket ad_ticket[4];
    size_t ad_nask;
    kname ad_name[2]; // the test hook sees the first
    size_t ad_nname;
    int ad_veto; // a refusal reported only after the permits, or 0
    const char *ad_veto_msg;
} kadm;

static void
ask(kadm *ad, enum kop op, const char *canon, const char *floor)
{
    ad->ad_ask[ad->ad_nask++] = (kask){op, canon, floor};
}

/* Every operation passes here, in this order: each question (the first
 * denial wins), the reach floor on each name, the test hook, the veto, the
 * identity re-check of each name. Nothing is acted on before it returns 0. */
static int
admit(sh_kernel *k, kadm *ad, sh_kernel_result *r)
{
    int err = 0;
    for (size_t i = 0; err == 0 && i < ad->ad_nask; i++) {
        const kask *q = &ad->ad_ask[i];
        err =
            decide(k, q->ka_op, q->ka_canon, q->ka_floor, r, &ad->ad_ticket[i]);
    }
    for (size_t i = 0; err == 0 && i < ad->ad_nname; i++) {
        const kname *nm = &ad->ad_name[i];
        err = floor_check(k, nm->kn_op, nm->kn_spelled, nm->kn_rs, r);
    }
    if (err != 0)
        return err;
    if (k->k_hook != NULL)
        k->k_hook(k->k_hook_arg, ad->ad_name[0].kn_rs->rs_canon);
    if (ad->ad_veto != 0)
        return fail(r, ad->ad_veto, ad->ad_veto_msg);
    for (size_t i = 0; err == 0 && i < ad->ad_nname; i++)
        err = recheck(k, ad->ad_name[i].kn_rs, r);
    return err;
}

/*
 * The end of every admitted operation, on each of its return paths: each
 * permit whose ticket wants it gets its outcome recorded (dogwood-spec
 * §5.6), the operation's result for all its legs. err 0: the effect
 * happened (done: an open's "descriptor_issued", else "completed");
 * anything else, however late it came (a later leg denied, the reach
 * floor, the re-check, the name missing, the act itself), an ::error.
 * Questions never asked and denied ones have no ticket.
 */
static void
finish(sh_kernel *k, const kadm *ad, int err, box_outcome_kind done)
{
    box_outcome o = {.bo_kind = err == 0 ? done : BOX_OUTCOME_ERROR};
    for (size_t i = 0; i < ad->ad_nask; i++)
        if (ad->ad_ticket[i].bt_wanted && k->k_record != NULL)
            k->k_record(k->k_record_arg, ad->ad_ticket[i], &o);
}

/* A denied probe answers "absent": ENOENT without message (the outcome
 * stays SH_KR_DENIED). */
static int
probe_denied(sh_kernel_result *r)
{
    box_free(r->kr_message);
    r->kr_message = NULL;
    r->kr_errno = ENOENT;
    return ENOENT;
}

/* The operands and outputs of a one-name operation; each act reads its
 * own fields. */
typedef struct kargs {
    mode_t ka_mode;           // mkdir, chmod, open, set times (create)
    int ka_flags;             // open; set times: SH_KT_*
    const char *ka_target;    // symlink: the link's text
    sh_kernel_stat *ka_st;    // stat
    char **ka_text;           // readlink's target, chdir's canonical path
    char ***ka_names;         // list
    size_t *ka_n;             // list
    uint64_t **ka_inos;       // list: each name's inode, or NULL
    sh_kernel_file **ka_file; // open
    const struct timespec *ka_times; // set times: access, modification
    sh_kernel_fs *ka_fs;             // file system of a name
} kargs;

/* The effect on an admitted name; op is the question the floor applied
 * for. On failure r is filled and the errno value returned. */
typedef int (*kact_fn)(sh_kernel *k, enum kop op, const sh_res *rs,
                       const kargs *a, sh_kernel_result *r);

/* What an admitted name must be before the act (checked first). */
enum kneed {
    NEED_ANY,
    NEED_EXISTS, // else ENOENT
    NEED_DIR,    // else ENOENT, ENOTDIR
    NEED_LINK,   // else ENOENT, EINVAL "not a symbolic link"
};

/* A one-name operation: its questions (each with its own floor reason;
 * the floor then applies for the last), whether a final link is followed,
 * whether it is a probe (a denial answers "absent"), what the name must
 * be, and the act. */
typedef struct kone {
    enum kop ko_ops[2];
    size_t ko_nops;
    bool ko_follow;
    bool ko_probe;
    enum kneed ko_need;
    kact_fn ko_act;
} kone;

static int act_open(sh_kernel *k, enum kop op, const sh_res *rs, const kargs *a,
                    sh_kernel_result *r);

static int
need(enum kneed nd, const sh_res *rs, sh_kernel_result *r)
{
    if (nd == NEED_ANY)
        return 0;
    if (!rs->rs_exists)
        return fail(r, ENOENT, NULL);
    if (nd == NEED_DIR && !S_ISDIR(rs->rs_mode))
        return fail(r, ENOTDIR, NULL);
    if (nd == NEED_LINK && !S_ISLNK(rs->rs_mode))
        return fail(r, EINVAL, txt_notlink);
    return 0;
}

/* The admission of a one-name operation on its resolved name, into ad. */
static int
admit_one(sh_kernel *k, const kone *one, const char *path, const sh_res *rs,
          kadm *ad, sh_kernel_result *r)
{
    *ad = (kadm){.ad_name = {{one->ko_ops[one->ko_nops - 1], path, rs}},
                 .ad_nname = 1};
    for (size_t i = 0; i < one->ko_nops; i++)
        ask(ad, one->ko_ops[i], rs->rs_canon,
            floor_reason(k, one->ko_ops[i], rs));
    return admit(k, ad, r);
}

/* resolve → decide → reach floor → hook → re-check → need → (act hook)
 * → act → finish. */
static int
run(sh_kernel *k, const kone *one, const char *cwd, const char *path,
    const kargs *a, sh_kernel_result *r)
{
    sh_res rs;
    kadm ad = {0};
    int err = resolve(k, cwd, path, one->ko_follow, &rs, r);
    if (err != 0)
        goto out;
    if ((err = admit_one(k, one, path, &rs, &ad, r)) != 0) {
        if (one->ko_probe && r->kr_outcome == SH_KR_DENIED)
            err = probe_denied(r);
        goto out;
    }
    if ((err = need(one->ko_need, &rs, r)) != 0)
        goto out;
    if (k->k_act_hook != NULL)
        k->k_act_hook(k->k_hook_arg, rs.rs_canon);
    err = one->ko_act(k, one->ko_ops[one->ko_nops - 1], &rs, a, r);
out:
    // An open that succeeded gave a descriptor; anything else completed.
    finish(k, &ad, err,
           one->ko_act == act_open ? BOX_OUTCOME_DESCRIPTOR
                                   : BOX_OUTCOME_COMPLETED);
    sh_res_clear(&rs);
    return err;
}

static uint64_t
vino(const sh_res *rs)
{
    return rs->rs_exists ? rs->rs_vino : SH_VFS_MISSING;
}

/* fail_errno, except that EBUSY is a bind mount point (or an ancestor). */
static int
fail_busy(sh_kernel_result *r, int err)
{
    return err == EBUSY ? fail(r, EBUSY, txt_busy) : fail_errno(r, err);
}

/*
 * Opens the resolved host target itself with flags (no follow), and
 * verifies it is the decided identity, a regular file or a directory.
 * The decided name was one of those, yet the name may have been swapped
 * since (for a FIFO, a device): the open itself is non-blocking and takes
 * no controlling terminal, so whatever is there now answers at once, and
 * the identity check refuses it. O_NONBLOCK is then cleared again. The
 * name turned into a link (ELOOP) or a FIFO with no reader (ENXIO) is
 * the same swap.
 */
static int
host_open_target(const sh_res *rs, int flags)
{
    int fd;
    flags |= O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
    if (rs->rs_parent_fd >= 0)
        fd = openat(rs->rs_parent_fd, rs->rs_leaf, flags | O_NOFOLLOW);
    else
        fd = openat(rs->rs_fd, ".", flags);
    if (fd < 0)
        return errno == ELOOP || errno == ENXIO ? -ESTALE : -errno;
    struct stat st;
    int fl;
    if (fstat(fd, &st) != 0 || st.st_dev != rs->rs_id.id_dev ||
        st.st_ino != rs->rs_id.id_ino ||
        !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) {
        close(fd);
        return -ESTALE;
    }
    if ((fl = fcntl(fd, F_GETFL)) < 0 ||
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    return fd;
}

/* The kind of a host FIFO, socket or device (special_tab), or NULL. */
static const char *
special_name(mode_t mode)
{
    for (size_t i = 0; i < sizeof special_tab / sizeof special_tab[0]; i++)
        if ((mode & S_IFMT) == special_tab[i].ks_type)
            return special_tab[i].ks_name;
    return NULL;
}

/* The refusal of a content operation on a host special file: ENXIO with
 * "cannot read a FIFO in this box" (write: "cannot write to …", `<>`:
 * "cannot read or write …"). */
static int
fail_special(sh_kernel_result *r, int acc, const char *kind)
{
    const char *verb = acc == O_RDONLY   ? "read"
                       : acc == O_WRONLY ? "write to"
                                         : "read or write";
    char msg[96];
    snprintf(msg, sizeof msg, "cannot %s %s in this box", verb, kind);
    return fail(r, ENXIO, msg);
}

/* ---- open / read / write ---------------------------------------------- */

/* Opens the admitted name into f; 0 or an errno value. */
static int
open_res(sh_kernel *k, const sh_res *rs, int flags, mode_t mode,
         sh_kernel_file *f)
{
    int oflags = flags & (O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND | O_EXCL);
    if (!rs->rs_host)
        return sh_vfs_open(k->k_vfs, rs->rs_canon, oflags, mode, vino(rs),
                           &f->kf_vf);
    if (!rs->rs_exists) {
        if (!(flags & O_CREAT) || rs->rs_parent_fd < 0)
            return ENOENT;
        f->kf_fd = openat(rs->rs_parent_fd, rs->rs_leaf,
                          oflags | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        return f->kf_fd >= 0 ? 0 : errno == EEXIST ? ESTALE : errno;
    }
    if ((flags & O_CREAT) && (flags & O_EXCL))
        return EEXIST;
    // Truncate only once the opened file is known to be the decided one.
    int fd = host_open_target(rs, oflags & ~(O_CREAT | O_EXCL | O_TRUNC));
    if (fd < 0)
        return -fd;
    f->kf_fd = fd;
    if ((oflags & O_TRUNC) && S_ISREG(rs->rs_mode) && ftruncate(fd, 0) != 0)
        return errno;
    return 0;
}

static int
act_open(sh_kernel *k, enum kop op, const sh_res *rs, const kargs *a,
         sh_kernel_result *r)
{
    // After the decision, so a denial still reads as the policy's.
    const char *kind = rs->rs_host && rs->rs_exists ? special_name(rs->rs_mode)
                                                    : NULL;
    if (kind != NULL)
        return fail_special(r, a->ka_flags & O_ACCMODE, kind);
    sh_kernel_file *f = box_calloc(1, sizeof *f);
    if (f == NULL)
        return fail(r, ENOMEM, NULL);
    f->kf_fd = -1;
    f->kf_k = k;
    int err = open_res(k, rs, a->ka_flags, a->ka_mode, f);
    if ((a->ka_flags & O_ACCMODE) != O_RDONLY)
        changed(k); // it may have truncated, and writes may follow
    if (err != 0) {
        sh_kernel_close(f);
        return fail_errno(r, err);
    }
    *a->ka_file = f;
    if (!rs->rs_exists)
        bump(k, 0);
    return 0;
}

int
sh_kernel_open(sh_kernel *k, const char *cwd, const char *path, int flags,
               mode_t mode, sh_kernel_file **out, sh_kernel_result *r)
{
    int acc = flags & O_ACCMODE;
    kone one = {.ko_follow = true, .ko_act = act_open};
    if (acc != O_WRONLY)
        one.ko_ops[one.ko_nops++] = KOP_READ_CONTENT;
    if (acc != O_RDONLY)
        one.ko_ops[one.ko_nops++] = KOP_WRITE_CONTENT;
    kargs a = {.ka_flags = flags, .ka_mode = mode, .ka_file = out};
    return run(k, &one, cwd, path, &a, r);
}

ssize_t
sh_kernel_read(sh_kernel_file *f, void *buf, size_t n)
{
    if (f->kf_vf != NULL)
        return sh_vfs_read(f->kf_vf, buf, n);
    ssize_t r = read(f->kf_fd, buf, n);
    return r < 0 ? -errno : r;
}

ssize_t
sh_kernel_write(sh_kernel_file *f, const void *buf, size_t n)
{
    if (f->kf_vf != NULL)
        return sh_vfs_write(f->kf_vf, buf, n);
    ssize_t r = write(f->kf_fd, buf, n);
    if (f->kf_k != NULL)
        changed(f->kf_k); // after the write: a reader that sees it, sees it
    return r < 0 ? -errno : r;
}

bool
sh_kernel_file_regular(const sh_kernel_file *f)
{
    if (f->kf_vf != NULL)
        return S_ISREG(sh_vfs_file_type(f->kf_vf));
    struct stat st;
    return fstat(f->kf_fd, &st) == 0 && S_ISREG(st.st_mode);
}

int
sh_kernel_file_fd(const sh_kernel_file *f)
{
    return f->kf_vf != NULL ? -1 : f->kf_fd;
}

void
sh_kernel_close(sh_kernel_file *f)
{
    if (f == NULL)
        return;
    if (f->kf_vf != NULL)
        sh_vfs_close(f->kf_vf);
    if (f->kf_fd >= 0)
        close(f->kf_fd);
    box_free(f);
}

/* ---- the acts on one name ---------------------------------------------- */

static int
stat_res(sh_kernel *k, const sh_res *rs, sh_kernel_stat *st,
         sh_kernel_result *r)
{
    memset(st, 0, sizeof *st);
    if (!rs->rs_exists)
        return fail(r, ENOENT, NULL);
    if (!rs->rs_host) {
        sh_vfs_stat vs;
        int err = sh_vfs_lstat(k->k_vfs, rs->rs_canon, &vs);
        if (err == 0 && vs.vs_ino != rs->rs_vino)
            err = ESTALE;
        if (err != 0)
            return fail_errno(r, err);
        st->ks_ino = vs.vs_ino;
        st->ks_mode = vs.vs_mode;
        st->ks_size = vs.vs_size;
        st->ks_atime = vs.vs_atim.tv_sec;
        st->ks_atime_ns = vs.vs_atim.tv_nsec;
        st->ks_mtime = vs.vs_mtim.tv_sec;
        st->ks_mtime_ns = vs.vs_mtim.tv_nsec;
        st->ks_ctime = vs.vs_ctim.tv_sec;
        st->ks_ctime_ns = vs.vs_ctim.tv_nsec;
        // What a tmpfs would say: the shell owns its memory's files.
        st->ks_nlink = S_ISDIR(vs.vs_mode) ? 2 : 1;
        st->ks_uid = (uint32_t)getuid();
        st->ks_gid = (uint32_t)getgid();
        st->ks_blocks = (vs.vs_size + 4095) / 4096 * 8;
        st->ks_rdev = vs.vs_rdev;
        st->ks_blksize = 4096;
        return 0;
    }
    struct stat sb;
    if (fstat(rs->rs_fd, &sb) != 0)
        return fail_errno(r, errno);
    st->ks_dev = sb.st_dev;
    st->ks_ino = sb.st_ino;
    st->ks_mode = sb.st_mode;
    st->ks_size = (uint64_t)sb.st_size;
    st->ks_mtime = sb.st_mtime;
    st->ks_mtime_ns = sb.st_mtim.tv_nsec;
    st->ks_atime = sb.st_atime;
    st->ks_atime_ns = sb.st_atim.tv_nsec;
    st->ks_ctime = sb.st_ctime;
    st->ks_ctime_ns = sb.st_ctim.tv_nsec;
    st->ks_nlink = (uint64_t)sb.st_nlink;
    st->ks_uid = (uint32_t)sb.st_uid;
    st->ks_gid = (uint32_t)sb.st_gid;
    st->ks_blocks = (uint64_t)sb.st_blocks;
    st->ks_rdev = (uint64_t)sb.st_rdev;
    st->ks_blksize = (uint32_t)sb.st_blksize;
    st->ks_host = true;
    return 0;
}

static int
act_stat(sh_kernel *k, enum kop op, const sh_res *rs, const kargs *a,
         sh_kernel_result *r)
{
    return stat_res(k, rs, a->ka_st, r);
}

static int
act_fs(sh_kernel *k, enum kop op, const sh_res *rs, const kargs *a,
       sh_kernel_result *r)
{
    sh_kernel_fs *fs = a->ka_fs;
    memset(fs, 0, sizeof *fs);
    if (!rs->rs_exists)
        return fail(r, ENOENT, NULL);
    if (!rs->rs_host) {
        uint64_t inodes;
        fs->kfs_mount = "/";
        fs->kfs_bsize = 1024;
        sh_vfs_usage(k->k_vfs, &fs->kfs_used_bytes, &inodes);
        fs->kfs_files = SH_VFS_MAX_INODES;
        fs->kfs_ffree = inodes < SH_VFS_MAX_INODES ? SH_VFS_MAX_INODES - inodes
                                                   : 0;
        return 0;
    }
    struct statfs sf;
    if (fstatfs(rs->rs_fd, &sf) != 0)
        return fail_errno(r, errno);
    fs->kfs_host = true;
    fs->kfs_mount = k->k_binds[rs->rs_bind].bd_root;
    fs->kfs_bsize = sf.f_frsize ? (uint64_t)sf.f_frsize : (uint64_t)sf.f_bsize;
    fs->kfs_blocks = sf.f_blocks;
    fs->kfs_bfree = sf.f_bfree;
    fs->kfs_bavail = sf.f_bavail;
    fs->kfs_used_bytes = (sf.f_blocks - sf.f_bfree) * fs->kfs_bsize;
    fs->kfs_files = sf.f_files;
    fs->kfs_ffree = sf.f_ffree;
    return 0;
}

const char *
sh_kernel_fs_mount(const sh_kernel *k, size_t i)
{
    if (i == 0)
        return "/";
    return i - 1 < k->k_nbinds ? k->k_binds[i - 1].bd_root : NULL;
}

static int
act_exec(sh_kernel *k, enum kop op, const sh_res *rs, const kargs *a,
         sh_kernel_result *r)
{
    sh_kernel_stat st;
    int err = stat_res(k, rs, &st, r);
    if (err == 0 && (!S_ISREG(st.ks_mode) || (st.ks_mode & 0111) == 0))
        err = fail(r, EACCES, NULL);
    return err;
}

void
sh_kernel_names_free(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        box_free(names[i]);
    box_free(names);
}

static int
host_list(const sh_res *rs, char ***names, uint64_t **inos, size_t *count)
{
    int fd = host_open_target(rs, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return -fd;
    DIR *d = fdopendir(fd);
    if (d == NULL) {
        int e = errno;
        close(fd);
        return e;
    }
    char **v = NULL;
    uint64_t *iv = NULL;
    size_t n = 0, cap = 0;
    int err = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (n + 1 >= cap) {
            cap = cap ? cap * 2 : 16;
            char **nv = box_realloc(v, cap * sizeof *nv);
            if (nv == NULL) {
                err = ENOMEM;
                break;
            }
            v = nv;
            if (inos != NULL) {
                uint64_t *ni = box_realloc(iv, cap * sizeof *ni);
                if (ni == NULL) {
                    err = ENOMEM;
                    break;
                }
                iv = ni;
            }
        }
        if ((v[n] = box_strdup(de->d_name)) == NULL) {
            err = ENOMEM;
            break;
        }
        if (iv != NULL)
            iv[n] = de->d_ino;
        n++;
    }
    closedir(d);
    if (err != 0) {
        sh_kernel_names_free(v, n);
        box_free(iv);
        return err;
    }
    *names = v;
    if (inos != NULL)
        *inos = iv;
    *count = n;
    return 0;
}

static int
act_list(sh_kernel *k, enum kop op, const sh_res *rs, const kargs *a,
         sh_kernel_result *r)
{
    int err = rs->rs_host ? host_list(rs, a->ka_names, a->ka_inos, a->ka_n)
                          : sh_vfs_list(k->k_vfs, rs->rs_canon, rs->rs_vino,
                                        a->ka_names, a->ka_inos, a->ka_n);
    return err == 0 ? 0 : fail_errno(r, err);
}

static int
act_chdir(sh_kernel *k, enum kop op, const sh_res *rs, const kargs *a,
          sh_kernel_result *r)
{
    if ((*a->ka_text = box_strdup(rs->rs_canon)) == NULL)
        return fail(r, ENOMEM, NULL);
    return 0;
}

static int
act_readlink(sh_kernel *k, enum kop op, const sh_res *rs, const kargs *a,
             sh_kernel_result *r)
{
    if (!rs->rs_host) {
        int err = sh_vfs_readlink(k->k_vfs, rs->rs_canon, a->ka_text);
        return err == 0 ? 0 : fail_errno(r, err);
    }
    char buf[SH_KERNEL_MAX_PATH];
    ssize_t l = readlinkat(rs->rs_fd, "", buf, sizeof buf - 1);
    if (l < 0)
        return fail_errno(r, errno);
    if ((*a->ka_text = box_strndup(buf, (size_t)l)) == NULL)
        return fail(r, ENOMEM, NULL);
    return 0;
}

/* mkdir, or with ka_target a symbolic link: the name must be new. */
static int
act_create(sh_kernel *k, enum kop op, const sh_res *rs, const kargs *a,
           sh_kernel_result *r)
{
    const char *t = a->ka_target;
    int err = 0;
    if (rs->rs_exists)
        err = EEXIST;
    else if (!rs->rs_host)
        err = t ? sh_vfs_symlink(k->k_vfs, t, rs->rs_canon)
                : sh_vfs_mkdir(k->k_vfs, rs->rs_canon, a->ka_mode);
    else if (rs->rs_parent_fd < 0)
        err = ENOENT;
    else if ((t ? symlinkat(t, rs->rs_parent_fd, rs->rs_leaf)
                : mkdirat(rs->rs_parent_fd, rs->rs_leaf, a->ka_mode & 0777)) !=
             0)
        err = errno;
    if (err != 0)
        err = fail_errno(r, err);
    bump(k, err);
    return err;
}

static int
act_chmod(sh_kernel *k, enum kop op, const sh_res *rs, const kargs *a,
          sh_kernel_result *r)
{
    mode_t mode = a->ka_mode;
    if (!rs->rs_host) {
        int err = sh_vfs_chmod(k->k_vfs, rs->rs_canon, rs->rs_vino, mode);
        return err == 0 ? 0 : fail_errno(r, err);
    }
    if (mode & 07000)
        return fail(r, EPERM, txt_setid);
    // Through the O_PATH fd: the decided inode, whatever its name now.
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", rs->rs_fd);
    int rc = fchmodat(AT_FDCWD, proc, mode & 0777, 0);
    // Without /proc: by name under the held parent (just re-checked; the
    // leaf is not a link, which chmod would follow).
    if (rc != 0 && errno == ENOENT && rs->rs_parent_fd >= 0 &&
        !S_ISLNK(rs->rs_mode))
        rc = fchmodat(rs->rs_parent_fd, rs->rs_leaf, mode & 0777, 0);
    return rc == 0 ? 0 : fail_errno(r, errno);
}

/* A missing name made as an empty file (touch), its times then set on
 * the new descriptor. */
static int
times_create(sh_kernel *k, const sh_res *rs, const kargs *a,
             sh_kernel_result *r)
{
    sh_kernel_file f = {.kf_fd = -1};
    int err = open_res(k, rs, O_WRONLY | O_CREAT, a->ka_mode, &f);
    if (err == 0 && f.kf_vf != NULL)
        sh_vfs_touch(f.kf_vf, a->ka_times);
    else if (err == 0 && futimens(f.kf_fd, a->ka_times) != 0)
        err = errno;
    if (f.kf_vf != NULL)
        sh_vfs_close(f.kf_vf);
    if (f.kf_fd >= 0)
        close(f.kf_fd);
    bump(k, err);
    return err == 0 ? 0 : fail_errno(r, err);
}

static int
act_times(sh_kernel *k, enum kop op, const sh_res *rs, const kargs *a,
          sh_kernel_result *r)
{
    if (!rs->rs_exists)
        return a->ka_flags & SH_KT_CREATE ? times_create(k, rs, a, r)
                                          : fail(r, ENOENT, NULL);
    if (!rs->rs_host) {
        int err = sh_vfs_set_times(k->k_vfs, rs->rs_canon, rs->rs_vino,
                                   a->ka_times);
        return err == 0 ? 0 : fail_errno(r, err);
    }
    // On the decided inode through its O_PATH fd (AT_EMPTY_PATH acts on
    // the fd itself, so a link held no-follow is the link).
    if (utimensat(rs->rs_fd, "", a->ka_times, AT_EMPTY_PATH) == 0)
        return 0;
    int err = errno;
    // Kernels before 5.8 refuse AT_EMPTY_PATH here: by name under the
    // held parent (just re-checked), without following a final link.
    if (err == EINVAL && rs->rs_parent_fd >= 0 &&
        utimensat(rs->rs_parent_fd, rs->rs_leaf, a->ka_times,
                  AT_SYMLINK_NOFOLLOW) == 0)
        return 0;
    if (err == EINVAL && rs->rs_parent_fd >= 0)
        err = errno;
    return fail_errno(r, err);
}

/* unlink (op remove_file) or rmdir (remove_dir). */
static int
act_remove(sh_kernel *k, enum kop op, const sh_res *rs, const kargs *a,
           sh_kernel_result *r)
{
    bool dir = op == KOP_REMOVE_DIR;
    int err = 0;
    if (!rs->rs_host)
        err = dir ? sh_vfs_rmdir(k->k_vfs, rs->rs_canon, rs->rs_vino)
                  : sh_vfs_unlink(k->k_vfs, rs->rs_canon, rs->rs_vino);
    else if (rs->rs_parent_fd < 0)
        err = EBUSY;
    else if (dir && !S_ISDIR(rs->rs_mode))
        err = ENOTDIR;
    else if (!dir && S_ISDIR(rs->rs_mode))
        err = EISDIR;
    else if (unlinkat(rs->rs_parent_fd, rs->rs_leaf, dir ? AT_REMOVEDIR : 0))
        err = errno;
    if (err != 0)
        err = fail_busy(r, err);
    bump(k, err);
    return err;
}

/* ---- one-name operations ----------------------------------------------- */

/* ORDER KONE: one_tab follows this order. */
enum kone_id {
    ONE_STAT,
    ONE_LSTAT,
    ONE_FS,
    ONE_EXEC,
    ONE_LIST,
    ONE_CHDIR,
    ONE_READLINK,
    ONE_MKDIR,
    ONE_CHMOD,
    ONE_TIMES,
    ONE_LTIMES,
    ONE_UNLINK,
    ONE_RMDIR,
};

static const kone one_tab[] = {
    [ONE_STAT] = {{KOP_READ_METADATA}, 1, true, true, NEED_ANY, act_stat},
    [ONE_LSTAT] = {{KOP_READ_METADATA}, 1, false, true, NEED_ANY, act_stat},
    [ONE_FS] = {{KOP_READ_METADATA}, 1, true, true, NEED_ANY, act_fs},
    [ONE_EXEC] = {{KOP_EXEC}, 1, true, true, NEED_ANY, act_exec},
    [ONE_LIST] = {{KOP_ENUMERATE}, 1, true, false, NEED_DIR, act_list},
    [ONE_CHDIR] = {{KOP_CHANGE_DIR}, 1, true, false, NEED_DIR, act_chdir},
    [ONE_READLINK] =
        {{KOP_READ_LINK}, 1, false, false, NEED_LINK, act_readlink},
    [ONE_MKDIR] = {{KOP_CREATE_DIR}, 1, false, false, NEED_ANY, act_create},
    [ONE_CHMOD] =
        {{KOP_SET_PERMISSIONS}, 1, true, false, NEED_EXISTS, act_chmod},
    [ONE_TIMES] = {{KOP_WRITE_CONTENT}, 1, true, false, NEED_ANY, act_times},
    [ONE_LTIMES] =
        {{KOP_WRITE_CONTENT}, 1, false, false, NEED_ANY, act_times},
    [ONE_UNLINK] =
        {{KOP_REMOVE_FILE}, 1, false, false, NEED_EXISTS, act_remove},
    [ONE_RMDIR] = {{KOP_REMOVE_DIR}, 1, true, false, NEED_EXISTS, act_remove},
};

int
sh_kernel_stat_path(sh_kernel *k, const char *cwd, const char *path,
                    sh_kernel_stat *st, sh_kernel_result *r)
{
    return run(k, &one_tab[ONE_STAT], cwd, path, &(kargs){.ka_st = st}, r);
}

int
sh_kernel_lstat(sh_kernel *k, const char *cwd, const char *path,
                sh_kernel_stat *st, sh_kernel_result *r)
{
    return run(k, &one_tab[ONE_LSTAT], cwd, path, &(kargs){.ka_st = st}, r);
}

int
sh_kernel_fs_of(sh_kernel *k, const char *cwd, const char *path,
                sh_kernel_fs *out, sh_kernel_result *r)
{
    return run(k, &one_tab[ONE_FS], cwd, path, &(kargs){.ka_fs = out}, r);
}

int
sh_kernel_probe_exec(sh_kernel *k, const char *cwd, const char *path,
                     sh_kernel_result *r)
{
    return run(k, &one_tab[ONE_EXEC], cwd, path, &(kargs){0}, r);
}

int
sh_kernel_list(sh_kernel *k, const char *cwd, const char *path, char ***names,
               size_t *n, sh_kernel_result *r)
{
    return sh_kernel_list_inodes(k, cwd, path, names, NULL, n, r);
}

int
sh_kernel_list_inodes(sh_kernel *k, const char *cwd, const char *path,
                      char ***names, uint64_t **inos, size_t *n,
                      sh_kernel_result *r)
{
    *names = NULL;
    if (inos != NULL)
        *inos = NULL;
    *n = 0;
    kargs a = {.ka_names = names, .ka_inos = inos, .ka_n = n};
    return run(k, &one_tab[ONE_LIST], cwd, path, &a, r);
}

int
sh_kernel_chdir(sh_kernel *k, const char *cwd, const char *path,
                char **canonical, sh_kernel_result *r)
{
    kargs a = {.ka_text = canonical};
    return run(k, &one_tab[ONE_CHDIR], cwd, path, &a, r);
}

int
sh_kernel_readlink(sh_kernel *k, const char *cwd, const char *path,
                   char **target, sh_kernel_result *r)
{
    kargs a = {.ka_text = target};
    return run(k, &one_tab[ONE_READLINK], cwd, path, &a, r);
}

int
sh_kernel_mkdir(sh_kernel *k, const char *cwd, const char *path, mode_t mode,
                sh_kernel_result *r)
{
    kargs a = {.ka_mode = mode};
    return run(k, &one_tab[ONE_MKDIR], cwd, path, &a, r);
}

int
sh_kernel_chmod(sh_kernel *k, const char *cwd, const char *path, mode_t mode,
                sh_kernel_result *r)
{
    kargs a = {.ka_mode = mode};
    return run(k, &one_tab[ONE_CHMOD], cwd, path, &a, r);
}

int
sh_kernel_set_times(sh_kernel *k, const char *cwd, const char *path,
                    const struct timespec times[2], unsigned flags,
                    mode_t mode, sh_kernel_result *r)
{
    kargs a = {.ka_times = times, .ka_flags = (int)flags, .ka_mode = mode};
    bool follow = !(flags & SH_KT_NOFOLLOW);
    return run(k, &one_tab[follow ? ONE_TIMES : ONE_LTIMES], cwd, path, &a,
               r);
}

int
sh_kernel_unlink(sh_kernel *k, const char *cwd, const char *path,
                 sh_kernel_result *r)
{
    return run(k, &one_tab[ONE_UNLINK], cwd, path, &(kargs){0}, r);
}

int
sh_kernel_rmdir(sh_kernel *k, const char *cwd, const char *path,
                sh_kernel_result *r)
{
    return run(k, &one_tab[ONE_RMDIR], cwd, path, &(kargs){0}, r);
}

/* ---- rename and symlink (several legs) ------------------------------- */

/* The legs of box-spec §3.6, in order; the first denial wins. */
static void
rename_adm(const sh_kernel *k, kadm *ad, const char *from, const sh_res *src,
           const char *to, const sh_res *dst)
{
    const char *sfl = floor_reason(k, KOP_RENAME, src);
    const char *dfl = floor_reason(k, KOP_RENAME, dst);
    *ad = (kadm){
        .ad_name = {{KOP_RENAME, from, src}, {KOP_RENAME, to, dst}},
        .ad_nname = 2,
    };
    ask(ad, KOP_RENAME, src->rs_canon, sfl);
    ask(ad, KOP_READ_CONTENT, src->rs_canon, sfl);
    if (dst->rs_exists)
        ask(ad, S_ISDIR(dst->rs_mode) ? KOP_REMOVE_DIR : KOP_REMOVE_FILE,
            dst->rs_canon, dfl);
    ask(ad, KOP_RENAME, dst->rs_canon, dfl);
    if (src->rs_host != dst->rs_host) {
        ad->ad_veto = EXDEV;
        ad->ad_veto_msg = txt_xdev;
    }
}

static int
rename_res(sh_kernel *k, const sh_res *src, const sh_res *dst,
           sh_kernel_result *r)
{
    int err = 0;
    if (!src->rs_exists) {
        err = fail(r, ENOENT, NULL);
    } else if (!src->rs_host) {
        err = sh_vfs_rename(k->k_vfs, src->rs_canon, src->rs_vino,
                            dst->rs_canon, vino(dst));
        if (err != 0)
            err = fail_busy(r, err);
    } else if (src->rs_parent_fd < 0 ||
               (dst->rs_parent_fd < 0 && dst->rs_parent_exists)) {
        err = fail(r, EBUSY, txt_busy);
    } else if (dst->rs_exists && S_ISLNK(dst->rs_mode)) {
        err = fail(r, EPERM, txt_onto_link);
    } else if (dst->rs_parent_fd < 0) {
        err = fail(r, ENOENT, NULL);
    } else if (renameat(src->rs_parent_fd, src->rs_leaf, dst->rs_parent_fd,
                        dst->rs_leaf) != 0) {
        err = fail_errno(r, errno);
    }
    bump(k, err);
    return err;
}

int
sh_kernel_rename(sh_kernel *k, const char *cwd, const char *from,
                 const char *to, sh_kernel_result *r)
{
    sh_res src, dst = {.rs_fd = -1, .rs_parent_fd = -1};
    kadm ad = {0};
    int err = resolve(k, cwd, from, false, &src, r);
    if (err != 0)
        return err;
    if ((err = resolve(k, cwd, to, false, &dst, r)) != 0)
        goto out;
    rename_adm(k, &ad, from, &src, to, &dst);
    if ((err = admit(k, &ad, r)) == 0)
        err = rename_res(k, &src, &dst, r);
out:
    finish(k, &ad, err, BOX_OUTCOME_COMPLETED);
    sh_res_clear(&src);
    sh_res_clear(&dst);
    return err;
}

/* Resolves a link's target as the link will read it: a relative one from
 * the link's directory. */
static int
resolve_target(sh_kernel *k, const sh_res *lr, const char *target, sh_res *tr,
               sh_kernel_result *r)
{
    const char *end = strrchr(lr->rs_canon, '/');
    char *ldir = box_strndup(
        lr->rs_canon, end == lr->rs_canon ? 1 : (size_t)(end - lr->rs_canon));
    if (ldir == NULL)
        return fail(r, ENOMEM, NULL);
    int err = resolve(k, ldir, target, true, tr, r);
    box_free(ldir);
    return err;
}

int
sh_kernel_symlink(sh_kernel *k, const char *cwd, const char *target,
                  const char *link, sh_kernel_result *r)
{
    sh_res lr, tr = {.rs_fd = -1, .rs_parent_fd = -1};
    kadm ad = {.ad_name = {{KOP_SYMLINK, link, &lr}}, .ad_nname = 1};
    int err = resolve(k, cwd, link, false, &lr, r);
    if (err != 0)
        return err;
    if ((err = resolve_target(k, &lr, target, &tr, r)) != 0)
        goto out;
    ask(&ad, KOP_SYMLINK, tr.rs_canon, NULL);
    ask(&ad, KOP_READ_CONTENT, tr.rs_canon, NULL);
    ask(&ad, KOP_SYMLINK, lr.rs_canon, floor_reason(k, KOP_SYMLINK, &lr));
    if (lr.rs_host &&
        (target[0] == '/' ||
         !sh_res_under(tr.rs_canon, k->k_binds[lr.rs_bind].bd_root,
                       k->k_binds[lr.rs_bind].bd_len))) {
        ad.ad_veto = EACCES;
        ad.ad_veto_msg = txt_escape;
    }
    if ((err = admit(k, &ad, r)) == 0)
        err = act_create(k, KOP_SYMLINK, &lr, &(kargs){.ka_target = target}, r);
out:
    finish(k, &ad, err, BOX_OUTCOME_COMPLETED);
    sh_res_clear(&lr);
    sh_res_clear(&tr);
    return err;
}

int
sh_kernel_resolve_path(sh_kernel *k, const char *cwd, const char *path,
                       bool follow, char **out, bool *host)
{
    sh_res rs;
    const char *why;
    int err = sh_res_resolve(k, cwd, path, follow, &rs, &why);
    if (err != 0)
        return err;
    *out = rs.rs_canon;
    if (host)
        *host = rs.rs_host;
    rs.rs_canon = NULL;
    sh_res_clear(&rs);
    return 0;
}

int
sh_kernel_seed_symlink(sh_kernel *k, const char *target, const char *link)
{
    if (sh_res_bind_of(k, link) >= 0)
        return EINVAL;
    return sh_vfs_symlink(k->k_vfs, target, link);
}

int
sh_kernel_seed_file(sh_kernel *k, const char *path, mode_t mode,
                    const void *data, size_t n)
{
    sh_vfs_file *f = NULL;
    if (sh_res_bind_of(k, path) >= 0)
        return EINVAL;
    int err =
        sh_vfs_open(k->k_vfs, path, O_WRONLY | O_CREAT | O_TRUNC, mode, 0, &f);
    if (err != 0)
        return err;
    ssize_t w = n > 0 ? sh_vfs_write(f, data, n) : 0;
    sh_vfs_close(f);
    return w < 0 ? (int)-w : 0;
}

int
sh_kernel_locate(sh_kernel *k, const char *path, char **canonical)
{
    sh_res rs;
    const char *why;
    if (path == NULL || path[0] != '/')
        return ENOENT;
    int err = sh_res_resolve(k, "/", path, true, &rs, &why);
    if (err != 0)
        return ENOENT;
    if (rs.rs_host || !rs.rs_exists || !S_ISREG(rs.rs_mode))
        err = ENOENT;
    else {
        *canonical = rs.rs_canon;
        rs.rs_canon = NULL;
    }
    sh_res_clear(&rs);
    return err;
}
