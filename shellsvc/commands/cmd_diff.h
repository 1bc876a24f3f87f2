/* SPDX-License-Identifier: Apache-2.0 */
/* diff's private parts: the run's options and state, a loaded file, and
 * the contract between the driver, the line matcher and the printers. */
#ifndef CMD_DIFF_H
#define CMD_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box_buf.h"
#include "sh_internal.h"

#define DIFF_FILE_MAX (64u << 20)   // bytes of one file held whole
#define DIFF_LINES_MAX (4u << 20)   // lines of one file
#define DIFF_OUT_CAP (64u * 1024u)  // output gathered before one write
#define DIFF_BIN_PEEK (32u * 1024u) // a NUL in these first bytes: binary

typedef enum diff_style {
    DIFF_NORMAL,
    DIFF_UNIFIED,
    DIFF_CONTEXT,
    DIFF_ED,
    DIFF_SIDE, // -y
} diff_style;

/* How white space counts when lines are compared (GNU's order: each
 * ignores at least what the ones before it do, -E and -Z aside). */
enum {
    DIFF_WS_TAB = 1u << 0,   // -E: tabs as the spaces they expand to
    DIFF_WS_TRAIL = 1u << 1, // -Z: trailing white space
    DIFF_WS_CHANGE = 1u << 2, // -b: amount of white space
    DIFF_WS_ALL = 1u << 3,   // -w: all of it
};

/*
 * One run of diff. Options are read once (cmd_diff.c) and never change
 * after; the output buffer is owned here. Files are only ever opened,
 * listed and probed through the kernel.
 */
typedef struct diff_run {
    sh_cmd_run dr_run; // first: the shared helpers take it
    // ---- options ----
    diff_style dr_style;
    long dr_context;   // lines of context (-U/-C; 3 by default)
    size_t dr_width;   // -W: columns of -y output (130)
    bool dr_no_common; // --suppress-common-lines
    unsigned dr_ws;    // DIFF_WS_*
    bool dr_icase;     // -i
    bool dr_blank;     // -B
    bool dr_strip_cr;  // --strip-trailing-cr
    bool dr_text;      // -a
    bool dr_brief;     // -q
    bool dr_same;      // -s
    bool dr_recursive; // -r
    bool dr_new;       // -N
    bool dr_new_first; // --unidirectional-new-file
    bool dr_minimal;   // -d
    const char *dr_label[2];  // --label, NULL when not given
    char *dr_switches;        // " -r -u" for "diff -r -u A/f B/f" (owned)
    const char **dr_exclude;  // -x patterns (owned array, borrowed strings)
    size_t dr_nexclude;
    // ---- state ----
    box_buf dr_out;
    bool dr_stop;  // the call is over (cr_status set)
    bool dr_indir; // in a directory walk: "diff SWITCHES A B" per pair
} diff_run;

/* A file held whole: its bytes and where each line starts. */
typedef struct diff_file {
    const char *df_name;  // the operand or DIR/NAME, as opened
    const char *df_shown; // as output names it: df_name, or the --label
    box_buf df_data;
    size_t *df_line;      // start offsets, df_nlines + 1 (the last: end)
    size_t df_nlines;
    bool df_noeol;        // the last line lacks its newline
    bool df_binary;
    bool df_stdin;
    bool df_absent;       // -N: a missing file, read as empty
    int64_t df_mtime;
    long df_mtime_ns;
} diff_file;

/* One change: df lines [d0, d0+dn) of file 0 became [i0, i0+in) of 1. */
typedef struct diff_change {
    size_t dc_l0, dc_n0;
    size_t dc_l1, dc_n1;
    bool dc_ignore; // -B: only blank lines changed
} diff_change;

/* The lines of one file as bytes (len without the newline). */
static inline const char *
diff_line(const diff_file *f, size_t i, size_t *len)
{
    size_t a = f->df_line[i], b = f->df_line[i + 1];
    if (b > a && f->df_data.b_data[b - 1] == '\n')
        b--;
    *len = b - a;
    return f->df_data.b_data + a;
}

/*
 * Marks which lines of each file differ (chg0[n0], chg1[n1] set to 1)
 * from their equivalence classes, as GNU diff 3.8 chooses them: common
 * ends kept out but for horizon lines, lines without a match discarded,
 * Myers' O(ND) middle snakes, then the change groups slid to where GNU
 * puts them. BOX_OK, BOX_ENOMEM, or BOX_ECANCELED when stop said so.
 */
box_err diff_compare(const int *eq0, size_t n0, const int *eq1, size_t n1,
                     size_t horizon, bool minimal, char *chg0, char *chg1,
                     sh_ctx *stop);

/* Reads operand path (or stdin for "-") whole into f, split into lines.
 * 0, or the status after the message (2, or 125 when policy faulted). */
int diff_load(diff_run *d, diff_file *f, const char *path);
void diff_file_free(diff_file *f);

/* Classes for the lines of both files as the options compare them:
 * eq[k] for file k (caller frees both). BOX_OK or BOX_ENOMEM. */
box_err diff_classes(const diff_run *d, const diff_file *f, int **eq);

/* Prints the differences of two loaded files in the style asked.
 * False when the run must stop (cr_status set). */
bool diff_print(diff_run *d, diff_file *f, const diff_change *c, size_t n);

/* -y: the files side by side (cmd_diff_side.c). */
bool diff_print_side(diff_run *d, diff_file *f, const diff_change *c,
                     size_t n);

/* Appends to the output buffer, flushing it when full; false to stop. */
bool diff_put(diff_run *d, const char *p, size_t n);
bool diff_putf(diff_run *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
bool diff_flush(diff_run *d);

/* Compares two files (the operands, or names met in a walk): 0 same,
 * 1 different, 2 trouble. */
int diff_files(diff_run *d, const char *p0, const char *p1, bool top);
/* Compares two directories (-r walks below them); absent 0 or 1 names
 * a side that -N reads as an empty directory, else -1. */
int diff_dirs(diff_run *d, const char *p0, const char *p1, int absent);

/* Marks the changes -B lets pass (blank lines only). */
void diff_mark_blank(const diff_run *d, const diff_file *f, diff_change *c,
                     size_t n);

/* A name as GNU diff writes it in headers: as it is, or in double
 * quotes with C escapes when it holds a space, a quote, a backslash or
 * a control byte. The caller frees it; NULL when out of memory. */
char *diff_cquote(const char *s);

extern const char diff_help[];

#endif
