/* SPDX-License-Identifier: Apache-2.0 */
/* find's private contract: the expression tree the parser builds, the walk
 * state the evaluator reads, and the entry it is judged on. */
#ifndef CMD_FIND_H
#define CMD_FIND_H

#include <regex.h>
#include <stdbool.h>
#include <stdint.h>

#include "box_buf.h"
#include "sh_internal.h"

/* Recursion is bounded by the kernel's path length; the cap keeps the C
 * stack of a pipeline-stage thread safe whatever that limit becomes. */
#define FND_MAX_DEPTH 512
/* Bytes of arguments one `-exec … {} +` command collects before it runs
 * (GNU's default command-line limit). */
#define FND_EXEC_MAX 131072
/* Parentheses and `!` nested deeper than this are refused (the parser
 * and the evaluator recurse on them). */
#define FND_MAX_NEST 256
/* Output held before it is written (and always before a command runs). */
#define FND_OUT_FLUSH 65536

/* ORDER FND_KIND: the parser's predicate table names each kind. */
typedef enum fnd_kind {
    FK_AND,
    FK_OR,
    FK_NOT,
    FK_COMMA,
    FK_TRUE,
    FK_FALSE,
    FK_NAME, // -name -iname (n_icase)
    FK_PATH, // -path -ipath -wholename -iwholename
    FK_REGEX,
    FK_TYPE,
    FK_XTYPE,
    FK_SIZE,
    FK_MTIME, // n_unit: 86400 (-mtime) or 60 (-mmin)
    FK_NEWER,
    FK_EMPTY,
    FK_PERM,
    FK_PRINT, // -print -print0 (n_icase: NUL)
    FK_PRINTF,
    FK_DELETE,
    FK_PRUNE,
    FK_QUIT,
    FK_EXEC, // -exec -execdir
} fnd_kind;

typedef struct fnd_exec {
    char **x_argv; // the template, borrowed words (no terminator)
    int x_argc;
    bool x_plus;     // `{} +`: paths collected, many per command
    bool x_dir;      // -execdir: run in the entry's directory
    sh_argv x_batch; // `+`: the paths collected so far
    size_t x_bytes;
    char *x_batch_dir; // -execdir +: the directory the batch belongs to
} fnd_exec;

typedef struct fnd_node {
    fnd_kind n_kind;
    struct fnd_node *n_l; // FK_NOT's operand
    // FK_AND, FK_OR, FK_COMMA: the operands of one chain, in order (a
    // chain is one node, so judging `a -o b -o …` never recurses deeper)
    struct fnd_node **n_kids;
    size_t n_nkids;
    const char *n_arg; // borrowed: pattern, format, file
    bool n_icase;
    char n_cmp; // '+' greater, '-' less, 0 equal
    uintmax_t n_num;
    double n_frac; // -mtime/-mmin: the fraction after n_num
    uintmax_t n_unit;
    unsigned n_types; // -type: bits FND_T_*
    mode_t n_mode;
    char n_permhow; // 0 exact, '-' all of, '/' any of
    int64_t n_time;
    bool n_re_ok;
    regex_t n_re;
    fnd_exec *n_exec;
} fnd_node;

/* -type bits. */
enum {
    FND_T_B = 1u << 0,
    FND_T_C = 1u << 1,
    FND_T_D = 1u << 2,
    FND_T_P = 1u << 3,
    FND_T_F = 1u << 4,
    FND_T_L = 1u << 5,
    FND_T_S = 1u << 6,
};

typedef enum fnd_follow { FND_P, FND_H, FND_L } fnd_follow;

/* One find run: options, the tree, the walk's flags. */
typedef struct fnd_run {
    sh_ctx *f_cx;
    fnd_follow f_follow;
    bool f_depth;       // -depth (also implied by -delete)
    bool f_depth_given; // -depth itself
    bool f_has_prune, f_has_delete;
    long f_maxdepth; // -1: none
    long f_mindepth;
    int f_regextype; // FND_RE_*
    fnd_node *f_root;
    fnd_node **f_nodes; // every node made, for the one free
    size_t f_nnodes, f_capnodes;
    bool f_has_action;
    bool f_quit;   // -quit ran
    bool f_stop;   // the call is over (timeout, abort, fd 1 gone)
    int f_status;  // 0, 1, or 125
    int64_t f_now; // -mtime/-mmin reference, with its nanoseconds: a file
    long f_now_ns; // touched just before must not look newer than now
    box_buf f_out;
} fnd_run;

enum { FND_RE_EMACS, FND_RE_ERE, FND_RE_BRE };

/* The entry being judged. */
typedef struct fnd_entry {
    const char *e_path;  // as printed
    const char *e_start; // its starting point
    unsigned e_depth;
    sh_kernel_stat e_st; // lstat, or stat when links are followed
    bool e_followed;     // e_st came from following a link
    bool e_prune;        // set by -prune: do not descend
} fnd_entry;

/* Parses argv[i..argc) (after the starting points) into f->f_root,
 * adding -print when no action is given. 0, or 1 after GNU's message. */
int fnd_parse(fnd_run *f, int argc, char **argv, int i);
/* Frees the nodes (and a pending batch's strings). */
void fnd_free(fnd_run *f);

/* Evaluates the tree on e. */
bool fnd_eval(fnd_run *f, fnd_node *n, fnd_entry *e);
/* Runs every `-exec … +` batch still holding paths. */
void fnd_exec_flush_all(fnd_run *f);
/* Writes the held output; false when fd 1 is gone. */
bool fnd_out_flush(fnd_run *f);
/* Appends to the held output (flushed past FND_OUT_FLUSH). */
void fnd_out(fnd_run *f, const char *p, size_t n);
/* -printf's output for e. */
void fnd_printf(fnd_run *f, const char *fmt, fnd_entry *e);
/* Checks a -printf format at parse time: 0, or 1 after a message. */
int fnd_printf_check(fnd_run *f, const char *fmt);

/* Walks one starting point. */
void fnd_walk(fnd_run *f, const char *start);

/* "find: ‘NAME’: ERROR" (status 1), or for a denial, floor refusal or
 * fault the kernel's own text (sh_fs_fail). Clears r; sets f_status. */
void fnd_fail(fnd_run *f, const char *name, sh_kernel_result *r);

/* The last component of path as find's -name sees it, into *start and *len. */
void fnd_base(const char *path, size_t *start, size_t *len);

#endif
