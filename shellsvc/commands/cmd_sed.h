/* SPDX-License-Identifier: Apache-2.0 */
/* sed's private contract: the compiled script, the run's state, and the
 * calls between the driver (cmd_sed.c), the compiler (cmd_sed_parse.c),
 * the engine (cmd_sed_exec.c) and the regex layer (cmd_sed_re.c). */
#ifndef CMD_SED_H
#define CMD_SED_H

#include <locale.h>
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>

#include "box_buf.h"
#include "sh_internal.h"

#define SED_CHUNK (64u * 1024u) // input read and output flushed this much
// The pattern and hold spaces, an -i file's new content, the append queue:
// each holds at most this much (past it: "input too large").
#define SED_HOLD_MAX (256u << 20)
#define SED_STATUS_IO 4 // GNU sed's status for an I/O error (panic)

/* A compiled regex. re_flags are the regcomp flags it was built with. */
typedef struct sed_re {
    regex_t re_rx;
    size_t re_nsub;
    struct sed_re *re_next; // every regex of the script, to free them
} sed_re;

/* ORDER SED_ADDR: the forms an address takes. */
typedef enum sed_addr_kind {
    SA_NONE,
    SA_LINE, // N
    SA_LAST, // $
    SA_RE,   // /re/ (a_re NULL: the last regex used)
    SA_STEP, // first~step
    SA_ZERO, // 0 (only as 0,/re/)
    SA_PLUS, // addr1,+N
    SA_MULT, // addr1,~N
} sed_addr_kind;

typedef struct sed_addr {
    sed_addr_kind a_kind;
    uintmax_t a_n, a_step;
    sed_re *a_re;
    bool a_empty_re; // // : the last regex used
} sed_addr;

/* An output file (w, W, s///w): stdout and stderr are the shell's own. */
typedef struct sed_out {
    char *o_name;
    sh_stream *o_stream; // owned; NULL for /dev/stdout, /dev/stderr
    int o_fd;            // 1 or 2 for those; else -1
    box_buf o_buf;       // not yet written
    bool o_missing_nl;   // the last line written lacked its newline
    struct sed_out *o_next;
} sed_out;

/* An R file: read one line per use, shared by every R naming it. */
typedef struct sed_rfile {
    char *rf_name;
    sh_input *rf_in; // opened on first use; NULL then or when unreadable
    bool rf_tried;
    struct sed_rfile *rf_next;
} sed_rfile;

/* One piece of an s replacement. */
typedef enum sed_rep_kind {
    SR_TEXT,  // rp_text[0, rp_len)
    SR_GROUP, // \N or & (0)
    SR_CASE,  // \L \U \E \l \u: rp_case
} sed_rep_kind;

typedef enum sed_case {
    SC_NONE,
    SC_LOWER,     // \L
    SC_UPPER,     // \U
    SC_ONE_LOWER, // \l
    SC_ONE_UPPER, // \u
} sed_case;

typedef struct sed_rep {
    sed_rep_kind rp_kind;
    size_t rp_off, rp_len; // SR_TEXT: in sb_text
    int rp_group;
    sed_case rp_case;
} sed_rep;

typedef struct sed_subst {
    sed_re *sb_re;
    bool sb_empty_re;
    sed_rep *sb_reps;
    size_t sb_nreps;
    char *sb_text;    // the literal bytes the pieces point into
    int sb_maxref;    // the highest \N used
    bool sb_global;   // g
    uintmax_t sb_nth; // N (1 when not given)
    bool sb_print;    // p
    sed_out *sb_w;    // w FILE
} sed_subst;

/* y with characters past ASCII: each pair a character and its image. */
typedef struct sed_ymb {
    size_t ym_n;
    struct sed_ypair {
        char yp_from[8], yp_to[8];
        unsigned char yp_fl, yp_tl;
    } ym_pairs[];
} sed_ymb;

/* One command. Blocks: '{' holds the index past its '}'. */
typedef struct sed_cmd {
    sed_addr c_a1, c_a2;
    bool c_neg;       // !
    char c_name;      // the command letter
    bool c_active;    // a range: inside it (after its first line)
    bool c_closed;    // a range that ended (one from a line number
                      // never opens again)
    uintmax_t c_end;  // a range's last line (SA_PLUS)
    char *c_text;     // a i c: the text, with its newline; b t T: label
    size_t c_textlen; // a i c
    size_t c_jump;    // { b t T: the command index to go to
    uintmax_t c_int;  // q Q: exit status; l: width (c_has_int)
    bool c_has_int;
    sed_subst *c_sub;      // s
    unsigned char *c_ymap; // y: 256 bytes
    sed_ymb *c_ymb;        // y, when a character is wider than a byte
    sed_out *c_out;        // w W
    sed_rfile *c_rfile;    // R
    char *c_fname;         // r
} sed_cmd;

/* The compiled script: what the options gave, then the commands. */
typedef struct sed_prog {
    sed_cmd *p_cmds;
    size_t p_ncmds, p_cap;
    sed_re *p_res;       // every regex, for regfree
    sed_out *p_outs;     // every w file (and stdout, stderr)
    sed_rfile *p_rfiles; // every R file
    bool p_quiet_hash;   // the script began "#n\n"
    bool p_extended;     // -E
    bool p_posix;
    bool p_sandbox;   // --sandbox: no r R w W (GNU's refusal)
    size_t *p_braces; // the open '{' commands, innermost last
    size_t p_nbraces, p_bcap;
} sed_prog;

/* The run: options, the input, the spaces, the outputs. */
typedef struct sed {
    sh_cmd_run s_run; // first: the driver's status and context
    sed_prog s_prog;
    bool s_quiet;    // -n
    bool s_separate; // -s or -i
    bool s_inplace;
    const char *s_suffix; // -i SUFFIX, or NULL
    bool s_unbuffered;
    bool s_debug;
    char s_delim;       // '\n', or '\0' with -z
    uintmax_t s_lwidth; // -l N (70)

    // input
    char **s_files;
    int s_nfiles, s_next_file;
    sh_input *s_in;
    const char *s_in_name;   // the current file's name ("-": stdin)
    const char *s_line_name; // the file the pattern space came from
    char *s_ibuf;
    size_t s_ipos, s_ilen;
    bool s_in_eof;
    bool s_in_failed; // a read error was reported: the input is over
    box_buf *s_orig;  // -i with SUFFIX: the original bytes

    // the engine
    box_buf s_ps, s_hs; // pattern, hold space
    bool s_ps_nl;       // the pattern space's line had its delimiter
    bool s_hs_nl;       // the same of the hold space (x, g, G, h, H move it)
    uintmax_t s_lineno;
    bool s_replaced; // t: a substitution since the last line read or t
    const sed_re *s_last_re;
    box_buf s_aq;            // the append queue: its text
    size_t *s_aq_ents;       // per entry: offset into s_aq, or SIZE_MAX
    const char **s_aq_files; // per entry: an r file, or NULL
    size_t *s_aq_lens;
    size_t s_naq, s_aq_cap;
    bool s_quit;
    int s_exit; // q's or Q's status
    regmatch_t *s_m;
    size_t s_nm;
    box_buf s_tmp; // s's new pattern space

    // output
    sed_out s_stdout; // fd 1
    sed_out s_ipout;  // -i: the file's new content
    sed_out *s_cur;   // where p, =, a, i … go: s_stdout or s_ipout
} sed;

/* Where each -e string or -f file's text lies in the joined script
 * (joined with newlines, so `-e 'a\' -e text` continues as GNU's does):
 * an error names "-e expression #N, char C" or "file F line L". */
typedef struct sed_chunk {
    size_t ch_start, ch_len;
    int ch_expr;         // -e number (1 up), or 0 for a file
    const char *ch_file; // -f's name
} sed_chunk;

/* Compiles the joined script text[0, len). 0, or the status after the
 * message (1 a script error; 4 a w file that does not open, or a jump
 * to a missing label, as GNU). */
int sed_compile(sed *s, const char *text, size_t len, const sed_chunk *ch,
                size_t nch);
/* A byte escape of sed (\a \f \n \r \t \v \cX \dNNN \oNNN \xHH) at
 * t[*i] (the letter): true with *out, *i on its last byte. */
bool sed_char_escape(const char *t, size_t len, size_t *i, unsigned char *out);
void sed_prog_free(sed_prog *p);

/* Runs the script over the input: the driver's cycle loop. False to
 * stop the whole run (cr_status set); true at the end of the input. */
bool sed_execute(sed *s);

/* Input (cmd_sed.c): the next line into the pattern space (append:
 * after a delimiter); 1, 0 at the end of the input, -1 to stop. */
int sed_read_line(sed *s, bool append);
/* Whether the line read last was the last one. */
bool sed_last_line(sed *s);

/* Output: to o, flushing now and then. False to stop (status set). */
bool sed_put(sed *s, sed_out *o, const char *p, size_t n);
/* A line with its delimiter (nl false: the line lacked one). */
bool sed_put_line(sed *s, sed_out *o, const char *p, size_t n, bool nl);
bool sed_flush(sed *s, sed_out *o);
/* The output named by a w command: opened (truncated) once. NULL after
 * the message, *status then 4 (or 125). */
sed_out *sed_out_get(sed *s, const char *name, int *status);

/* Regexes (cmd_sed_re.c). text[0, len) is the regex between the
 * delimiters, sed's escapes still in it; flags REG_ICASE, REG_NEWLINE.
 * NULL after *err is set (regerror's text, or out of memory). */
sed_re *sed_re_compile(sed_prog *p, const char *text, size_t len, char delim,
                       int flags, char *err, size_t errsize);
/* Matches re (NULL: the last regex used) in subject[from, len): 1 with
 * s->s_m filled, 0, or -1 after "no previous regular expression". */
int sed_re_match(sed *s, const sed_re *re, const char *subject, size_t from,
                 size_t len, bool notbol);
/* s///: rewrites the pattern space. 1 replaced, 0 not, -1 to stop. */
int sed_substitute(sed *s, const sed_subst *sb);

/* The length of the character at p (n > 0 bytes there): its UTF-8
 * length, 1 for an invalid byte. */
size_t sed_char_len(const char *p, size_t n);

/* Makes C.UTF-8 this thread's locale for the run: the one before, for
 * sed_locale_leave. */
locale_t sed_locale_enter(void);
void sed_locale_leave(locale_t old);

/* "sed: -e expression #N, char C: MSG" and the like: status 1. */
int sed_err(sed *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
