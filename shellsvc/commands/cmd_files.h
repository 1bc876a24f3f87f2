/* SPDX-License-Identifier: Apache-2.0 */
/* What the file commands (cp, mv, ln, chmod, rm, rmdir, readlink …)
 * share: GNU's quoted messages over a kernel result, the copy engine cp
 * and mv use, and the tree removal rm and mv use. */
#ifndef CMD_FILES_H
#define CMD_FILES_H

#include <stdbool.h>

#include "sh_gopt.h"
#include "sh_internal.h"

/* Deep enough for any tree a path of SH_KERNEL_MAX_PATH bytes can name;
 * the cap keeps a pipeline-stage thread's C stack safe. */
#define CMD_MAX_DEPTH 512

/* How a name is quoted in a message (sh_gopt.h): GNU's quoteaf ('x'),
 * quotef (x, quoted only when a shell would need it), quote (‘x’). */
typedef enum cmd_q { CMD_QAF, CMD_QF, CMD_QL } cmd_q;

/* s quoted as q says; the caller frees. NULL when out of memory. */
char *cmd_quote(cmd_q q, const char *s);

/* "CMD: WHAT NAME" (WHAT NULL: "CMD: NAME") with NAME quoted, on stderr;
 * returns status. */
int cmd_errq(sh_ctx *cx, const char *cmd, int status, const char *what, cmd_q q,
             const char *name);

/*
 * Reports r, a failed kernel operation, and clears it: an OS error as
 * "CMD: WHAT NAME: ERR" (ERR the kernel's own text when it gave one); a
 * policy denial, reach-floor refusal or fault as sh_fs_fail does (the
 * denial names its path). Returns 1, or 125 for a fault.
 */
int cmd_failq(sh_ctx *cx, const char *cmd, sh_kernel_result *r,
              const char *what, cmd_q q, const char *name);
/* The same with AFTER between the name and the error ("CMD: cannot open
 * 'x' for reading: ERR"). */
int cmd_failq_after(sh_ctx *cx, const char *cmd, sh_kernel_result *r,
                    const char *what, cmd_q q, const char *name,
                    const char *after);

/* -v's line on stdout: "PRE'A'" then, when b is set, "MID'B'" (quoteaf).
 * False when the output is gone. */
bool cmd_say(sh_ctx *cx, const char *pre, const char *a, const char *mid,
             const char *b);

/* The paragraph on backups that ends cp's, mv's and ln's --help. */
#define CMD_BACKUP_HELP                                                       \
    "The backup suffix is '~', unless set with --suffix or SIMPLE_BACKUP_"    \
    "SUFFIX.\n"                                                               \
    "The version control method may be selected via the --backup option or " \
    "through\n"                                                               \
    "the VERSION_CONTROL environment variable.  Here are the values:\n"       \
    "\n"                                                                      \
    "  none, off       never make backups (even if --backup is given)\n"      \
    "  numbered, t     make numbered backups\n"                               \
    "  existing, nil   numbered if numbered backups exist, simple otherwise\n" \
    "  simple, never   always make simple backups\n"

/* -i's refusal: a box call has no terminal to ask on. Status 1. */
int cmd_no_interactive(sh_ctx *cx, const char *cmd);

/* Status of a run that saw rc from one step: 125 sticks, else 1. */
static inline int
cmd_worse(int status, int rc)
{
    if (status == BOX_STATUS_FAULT || rc == BOX_STATUS_FAULT)
        return BOX_STATUS_FAULT;
    return rc != 0 ? 1 : status;
}

/* The command's act on one operand: 0, 1 or 125 after its messages. */
typedef int (*cmd_operand_fn)(void *run, const char *operand);

/* one on each of it's operands in order, GNU's way: a failure does not
 * stop the others, a fault (125) or the end of the call does. Returns
 * the worst status. */
int cmd_each_operand(sh_gopt_iter *it, cmd_operand_fn one, void *run);

/* dir/name, or name under "/" without a doubled slash. NULL: ENOMEM. */
char *cmd_join(const char *dir, const char *name);

/* The last component of path, trailing slashes dropped (a copy). */
char *cmd_base(const char *path);

/* Whether canonical path b is a (and with strict, only a strict
 * descendant) path inside a. */
bool cmd_inside(const char *a, const char *b, bool strict);

/* The relative path from canonical directory from to canonical path to
 * ("." when they are the same). NULL: ENOMEM. */
char *cmd_relpath(const char *from, const char *to);

/* The order a tree walker visits a directory's entries in, as the GNU
 * tool's: rm, du and chmod walk with gnulib's fts, which keeps readdir's
 * order; cp reads a directory with savedir, which sorts by inode. */
typedef enum cmd_list_order {
    CMD_LIST_READDIR,
    CMD_LIST_INODE,
} cmd_list_order;

/* A directory's entries (fs:read enumerate) in that order. 0, or the
 * failure in r. */
int cmd_list(sh_ctx *cx, const char *path, cmd_list_order order, char ***names,
             size_t *n, sh_kernel_result *r);

/* ---- where cp, mv and ln put things (cmd_files.c) ---- */

/* One source to one destination: the command's act. */
typedef int (*cmd_place_fn)(void *run, const char *src, const char *dst);

/* Each source into directory dir, as dir/BASENAME (SOURCE... DIR, -t). */
int cmd_place_into(sh_ctx *cx, const char *cmd, char **srcs, int n,
                   const char *dir, cmd_place_fn one, void *run);

/* Whether t (followed) is a directory: *dir, or *missing when nothing is
 * there. 0, or the status after GNU's "cannot stat 'T'" (a fault, or an
 * error but ENOENT). */
int cmd_probe_target(sh_ctx *cx, const char *cmd, const char *t, bool *dir,
                     bool *missing);

/* -t DIR: 0 when it is a directory now, else the status after GNU's
 * "target directory 'DIR': ERROR". */
int cmd_target_dir(sh_ctx *cx, const char *cmd, const char *dir);

/*
 * cp's and mv's operands once the options are read: SOURCE DEST,
 * SOURCE... DIRECTORY, -t DIRECTORY SOURCE... or -T SOURCE DEST, with
 * GNU's usage errors (it->gi_spec names the command). Returns the status.
 */
int cmd_place_operands(sh_gopt_iter *it, const char *target, bool no_target,
                       cmd_place_fn one, void *run);

/* ---- the copy engine (cmd_copy.c) ---- */

typedef struct cmd_copy_opts {
    const char *co_cmd;    // "cp" or "mv": messages name it
    bool co_recursive;     // -r: directories are copied
    bool co_deref;         // follow links in sources (cp without -r, -L)
    bool co_deref_top;     // follow links named on the command line (-H)
    bool co_preserve_mode; // -p, -a, mv: the source's mode, not umask's
    bool co_preserve_times; // -p, -a, mv: the source's access and
                            // modification times
    bool co_no_clobber;    // -n: an existing destination is left alone
    bool co_force;         // -f: an unopenable destination is removed first
    bool co_verbose;       // -v: "'SRC' -> 'DST'"
    bool co_verbose_mv;    // mv's words: "copied …", "created directory …"
} cmd_copy_opts;

/*
 * Copies src to dst (dst is the final name, not a directory to copy
 * into) through the kernel: the source read (fs:read read_content),
 * the destination written (fs:write write_content), directories made
 * (fs:write create_dir), links re-made (fs:read read_link, fs:write
 * symlink), modes set (fs:write set_permissions), times set (fs:write
 * write_content, as touch's). Returns 0, 1 or 125 after the messages.
 */
int cmd_copy(sh_ctx *cx, const cmd_copy_opts *o, const char *src,
             const char *dst);

/* ---- tree removal (cmd_rm.c) ---- */

/* rm -r's walk on path, one fs:delete decision per entry; messages name
 * cmd. Returns 0, 1 or 125. */
int cmd_remove_tree(sh_ctx *cx, const char *cmd, const char *path, bool force,
                    bool verbose);

#endif
