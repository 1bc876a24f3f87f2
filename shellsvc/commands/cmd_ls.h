/* SPDX-License-Identifier: Apache-2.0 */
/* ls's private parts: the options, one entry, and the formatting
 * (cmd_ls_fmt.c) the walk (cmd_ls.c) hands its blocks to. */
#ifndef CMD_LS_H
#define CMD_LS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box_buf.h"
#include "sh_internal.h"

enum ls_format { LS_FMT_ONE, LS_FMT_LONG, LS_FMT_COLS, LS_FMT_ACROSS,
                 LS_FMT_COMMAS };
enum ls_sort { LS_SORT_NAME, LS_SORT_NONE, LS_SORT_TIME, LS_SORT_SIZE,
               LS_SORT_EXT, LS_SORT_VERSION, LS_SORT_WIDTH };
enum ls_time { LS_TIME_MTIME, LS_TIME_ATIME, LS_TIME_CTIME };
enum ls_ind { LS_IND_NONE, LS_IND_SLASH, LS_IND_FILE_TYPE, LS_IND_CLASSIFY };
enum ls_quote { LS_Q_LITERAL, LS_Q_ESCAPE, LS_Q_C, LS_Q_SHELL,
                LS_Q_SHELL_ALWAYS };
enum ls_all { LS_ALL_NONE, LS_ALL_ALMOST, LS_ALL_ALL };
enum ls_deref { LS_DEREF_NEVER, LS_DEREF_ARGS, LS_DEREF_ARGS_DIRS,
                LS_DEREF_ALWAYS };

typedef struct ls_opts {
    enum ls_format lo_format;
    enum ls_sort lo_sort;
    enum ls_time lo_time;
    enum ls_ind lo_ind;
    enum ls_quote lo_quote;
    enum ls_all lo_all;
    enum ls_deref lo_deref;
    bool lo_reverse;
    bool lo_recursive;
    bool lo_dirs_as_files; // -d
    bool lo_inode;         // -i
    bool lo_blocks;        // -s
    bool lo_numeric;       // -n
    bool lo_owner;         // not -g
    bool lo_group;         // not -o / -G
    bool lo_human;         // -h
    bool lo_si;            // --si
    bool lo_dirs_first;    // --group-directories-first
    bool lo_no_backups;    // -B
    char **lo_ignore;      // -I / --hide patterns (borrowed strings)
    size_t lo_nignore;
    size_t lo_nhide; // the first lo_nhide of lo_ignore are --hide (-a, -A
                     // show those again)
    const char *lo_time_style; // NULL: the locale's
    unsigned lo_width;         // -w, COLUMNS, else 80
    bool lo_no_tabs;           // -w 0: one line, spaces only (GNU)
} ls_opts;

/* One name to print: an operand or a directory entry. */
typedef struct ls_ent {
    char *le_name; // as printed (before quoting)
    char *le_path; // as probed (the operand, or dir/name)
    sh_kernel_stat le_st;
    bool le_have_st; // details are known
    char *le_link;   // -l: the symlink's target, or NULL
    bool le_link_dir; // -lF / --dirs-first: the link's target is known …
    mode_t le_link_mode; // … and has this mode (0: unknown)
} ls_ent;

/* Output: what is held is written once LS_OUT_FLUSH bytes wait. */
typedef struct ls_out {
    sh_ctx *lw_cx;
    box_buf lw_buf;
    int lw_status; // set when writing failed (the run then stops)
    int64_t lw_now;
} ls_out;

/* Formats a block of entries (already sorted) into out: "total N" first
 * when total (a directory under -l or -s), then the names in the chosen
 * format. False when the run must stop (lw_status set). */
bool ls_fmt_block(ls_out *out, const ls_opts *o, const ls_ent *v, size_t n,
                  bool total);
/* Appends; false (lw_status set) on out of memory or a failed write. */
bool ls_out_put(ls_out *out, box_err e);
/* Columns a name takes on a terminal (its UTF-8 characters). */
size_t ls_name_width(const char *s);
/* The time -t sorts by and -l shows (-u access, -c change, else
 * modification), its nanoseconds in *ns. */
int64_t ls_when(const ls_opts *o, const sh_kernel_stat *st, long *ns);
bool ls_out_flush(ls_out *out);

#endif
