/* SPDX-License-Identifier: Apache-2.0 */
/* grep's private parts: the run's state and the contract between its
 * option driver, matchers, scanner, output and directory walk. */
#ifndef CMD_GREP_H
#define CMD_GREP_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box_buf.h"
#include "sh_internal.h"

#define GREP_STDIN_NAME "(standard input)"
#define GREP_OUT_CAP (64u * 1024u) // output gathered before one write
#define GREP_CHUNK (96u * 1024u)   // bytes read at a time
#define GREP_PAT_MAX (64u << 20)   // all patterns together (-f)

typedef enum grep_mode { GREP_BRE, GREP_ERE, GREP_FIXED, GREP_PCRE } grep_mode;
typedef enum grep_bin {
    GREP_BIN_BINARY,
    GREP_BIN_TEXT,
    GREP_BIN_WITHOUT
} grep_bin;
typedef enum grep_dirs {
    GREP_DIR_READ,
    GREP_DIR_SKIP,
    GREP_DIR_RECURSE
} grep_dirs;

/* One --include / --exclude / --exclude-dir glob, in command-line order. */
typedef struct grep_glob {
    const char *gg_pat; // borrowed from argv, or in g_owned
    bool gg_include;    // --include (else --exclude)
    bool gg_dir;        // --exclude-dir
} grep_glob;

typedef struct grep_match
    grep_match; // the compiled patterns (cmd_grep_match.c)

/*
 * One run of grep. The options are read once (cmd_grep.c) and never
 * change after; the matcher, the output buffer and the read buffer are
 * owned here and released by grep_free whatever state setup reached.
 * Files are only ever opened, listed and probed through the kernel.
 */
typedef struct grep {
    sh_ctx *g_cx;
    // ---- options ----
    grep_mode g_mode;
    bool g_icase, g_invert, g_word, g_line;
    bool g_count, g_list, g_list_not, g_quiet, g_nomsg;
    bool g_num, g_byte, g_tab, g_null, g_only, g_color;
    int g_names;    // -1 unset, 0 -h, 1 -H, 2 only below directories
    grep_bin g_bin; // --binary-files
    grep_dirs g_dirs;
    bool g_dev_skip;     // -D skip
    bool g_deref;        // -R: follow every symlink
    bool g_has_max;      // -m given
    uintmax_t g_max;     // -m NUM
    uintmax_t g_before;  // -B
    uintmax_t g_after;   // -A
    bool g_context;      // some context was asked for
    const char *g_sep;   // group separator, NULL for none
    const char *g_label; // --label (stdin's name)
    char g_eol;          // '\n', or NUL with -z
    grep_glob *g_globs;
    size_t g_nglobs;
    bool g_has_include; // first file glob is --include
    char **g_owned;     // --exclude-from texts the globs point into
    size_t g_nowned;
    bool g_implicit; // -r without operands: ".", shown without "./"
    // ---- patterns ----
    box_buf g_pats; // every pattern, each followed by '\n'
    grep_match *g_m;
    // ---- state ----
    char *g_out; // pending stdout bytes
    size_t g_olen;
    char *g_buf; // read buffer
    size_t g_bcap;
    int g_numw;     // -T: the width numbers are padded to
    bool g_printed; // some line went out (the "--" separator)
    bool g_done;    // stop everything and return g_final
    int g_final;
    bool g_err; // an error was met (status 2 at the end)
} grep;

/* ---- cmd_grep_match.c ---- */

/* Compiles g_pats for g_mode and the flags: 0, or 2 after GNU's message
 * (125 never). */
int grep_match_compile(grep *g);
void grep_match_free(grep_match *m);
/*
 * The first match in line [0,len) starting at or after from that -w / -x
 * accept: true with [*ms,*me). line[len] need not be readable.
 */
bool grep_match_line(grep *g, const char *line, size_t len, size_t from,
                     size_t *ms, size_t *me);
/*
 * The first line of buf[0,len) with a match. Lines end in g_eol (and in
 * NUL too when nul_eol); the last line may lack its end. True with the
 * line's bounds [*ls,*le) (*le at its terminator); false when none.
 */
bool grep_match_next(grep *g, const char *buf, size_t len, bool nul_eol,
                     size_t *ls, size_t *le);
/* Starts a new buffer: cached positions from the last one are void. */
void grep_match_reset(grep *g);

/* ---- cmd_grep_pcre.c ---- */

typedef struct grep_pcre grep_pcre;
/* -P's one pattern compiled; NULL with *status (2) after the message
 * (PCRE2's own text, as GNU prints it). */
grep_pcre *grep_pcre_compile(grep *g, int *status);
/* As grep_match_line (-w and -x are in the pattern). */
bool grep_pcre_line(grep_pcre *gp, const char *line, size_t len, size_t from,
                    size_t *ms, size_t *me);
void grep_pcre_free(grep_pcre *gp); // NULL-safe

/* ---- cmd_grep_out.c ---- */

bool grep_out_put(grep *g, const char *p, size_t n);
bool grep_out_flush(grep *g);
/* "[name sep][num sep][offset sep][\t]" before a line or -o part. */
bool grep_out_head(grep *g, const char *name, uintmax_t lineno, uintmax_t off,
                   char sep);
/* A file name then '\n' (or NUL with -Z): -l, -L. */
bool grep_out_name(grep *g, const char *name);
/* "[name:]N" of -c. */
bool grep_out_count(grep *g, const char *name, uintmax_t n);
/* The group separator line. */
bool grep_out_sep(grep *g);
/* The line's text, with the matches coloured for --color=always. */
bool grep_out_text(grep *g, const char *line, size_t len, bool selected);
/* "grep: MSG" on stderr unless -s; sets g_err; returns 2. */
int grep_file_err(grep *g, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- cmd_grep_scan.c ---- */

/* Searches one file or stdin (operand NULL or "-"); name is as shown.
 * 0 a line selected, 1 none, 2 an error; g_done when all must stop. */
int grep_scan_operand(grep *g, const char *operand, const char *name);

/* ---- cmd_grep_walk.c ---- */

/* One command-line operand, recursing with -r/-R: the same results. */
int grep_walk_operand(grep *g, const char *operand, bool implicit);
/* Whether a file (dir false) or directory passes the globs; base is
 * the name's last component, cmdline whether it came from argv. */
bool grep_walk_wanted(const grep *g, const char *name, bool dir, bool cmdline);

#endif
