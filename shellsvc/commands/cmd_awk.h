/* SPDX-License-Identifier: Apache-2.0 */
/* awk's private contract: values, the syntax tree, the program, the run's
 * state, and the calls between the driver (cmd_awk.c), the lexer and
 * parser (cmd_awk_lex.c, cmd_awk_parse.c), the values (cmd_awk_val.c),
 * the interpreter (cmd_awk_run.c), the builtins (cmd_awk_bi.c), the
 * regexes (cmd_awk_re.c) and the input and output (cmd_awk_io.c). */
#ifndef CMD_AWK_H
#define CMD_AWK_H

#include <locale.h>
#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box_arena.h"
#include "box_buf.h"
#include "sh_internal.h"

#define AWK_STR_MAX (64u << 20)  // one string value at most (a fatal past it)
#define AWK_ELEMS_MAX (8u << 20) // elements of all arrays together
#define AWK_CALL_MAX 1000        // nested user function calls
#define AWK_OUT_CHUNK (64u * 1024u)

/* ---- values ---- */

/* ORDER AWK_VT. POSIX's types: a number, a string, a strnum (input that
 * looks numeric compares as a number), and uninitialised (both "" and 0).
 * AV_INPUT is input not yet looked at: it becomes AV_STRNUM or AV_STR the
 * first time a comparison or a conversion needs to know. */
enum { AV_UNINIT, AV_NUM, AV_STR, AV_STRNUM, AV_INPUT };

typedef struct awk awk;

typedef struct awk_val {
    unsigned char v_type;
    bool v_hasnum;  // v_num is valid
    double v_num;
    char *v_str;    // owned, NUL-terminated; NULL when not made yet
    size_t v_len;
} awk_val;

typedef struct awk_arr awk_arr;

/* ORDER AWK_CK: what a variable holds. A parameter that names a caller's
 * untyped variable is a reference until it is used: as an array, the
 * caller's variable becomes that array; as a scalar, a local one. */
enum { CK_UNTYPED, CK_SCALAR, CK_ARRAY, CK_REF };

typedef struct awk_cell {
    unsigned char c_kind;
    awk_val c_val;
    awk_arr *c_arr;
    struct awk_cell *c_ref;
} awk_cell;

/* ---- the syntax tree ---- */

/* ORDER AWK_OP: expressions, then statements. */
enum {
    AN_NUM, AN_STR, AN_REGEX, AN_VAR, AN_LVAR, AN_FIELD, AN_INDEX,
    AN_ASSIGN, AN_COND, AN_OR, AN_AND, AN_IN, AN_MATCH, AN_CMP, AN_CONCAT,
    AN_ARITH, AN_NEG, AN_PLUS, AN_NOT, AN_INCDEC, AN_CALL, AN_BUILTIN,
    AN_GETLINE, AN_GROUP,
    AN_PRINT, AN_PRINTF, AN_IF, AN_WHILE, AN_DO, AN_FOR, AN_FORIN, AN_BLOCK,
    AN_EXPR, AN_NEXT, AN_NEXTFILE, AN_EXIT, AN_RETURN, AN_BREAK, AN_CONTINUE,
    AN_DELETE,
};

/* Getline forms (n_idx of AN_GETLINE) and output redirections (n_idx of
 * AN_PRINT / AN_PRINTF). */
enum { GL_PLAIN, GL_FILE, GL_CMD };
enum { RD_NONE, RD_FILE, RD_APPEND, RD_PIPE };

typedef struct awk_node awk_node;
struct awk_node {
    int n_op;
    int n_idx;  // slot, operator, builtin, function, form, redirection
    int n_line;
    awk_node *n_a, *n_b, *n_c, *n_d;
    awk_node *n_next; // the next of a list (statements, arguments)
    double n_num;
    char *n_str; // AN_STR / AN_REGEX text (arena), function name
    size_t n_len;
    struct awk_re *n_re; // AN_REGEX: compiled once
};

typedef struct awk_func {
    char *f_name;
    char **f_params;
    int f_nparams;
    awk_node *f_body;
    bool f_defined;
    bool f_warned; // "called with more arguments" said once
    int f_line; // first use, for "not defined"
} awk_func;

/* ORDER AWK_RULE */
enum { RULE_BEGIN, RULE_END, RULE_MAIN };

typedef struct awk_rule {
    int r_kind;
    awk_node *r_pat, *r_pat2; // r_pat2: a range's end
    awk_node *r_body;         // NULL: print $0
    bool r_inrange;
} awk_rule;

/* ORDER AWK_SPECIAL: the variables with a meaning, the first slots. */
enum {
    V_NF, V_NR, V_FNR, V_FS, V_OFS, V_ORS, V_RS, V_SUBSEP, V_CONVFMT,
    V_OFMT, V_RSTART, V_RLENGTH, V_FILENAME, V_ENVIRON, V_ARGC, V_ARGV,
    V_RT, V_IGNORECASE, V_NSPECIAL
};

typedef struct awk_prog {
    box_arena *p_arena; // nodes and their text
    awk_rule *p_rules;
    size_t p_nrules, p_caprules;
    awk_func *p_funcs;
    size_t p_nfuncs, p_capfuncs;
    char **p_globals; // names by slot
    size_t p_nglobals, p_capglobals;
    bool p_has_main;  // main rules or END: input is read
} awk_prog;

/* One source text of the program: -f files or the command line. */
typedef struct awk_src {
    const char *s_text;
    size_t s_len;
    const char *s_name; // NULL: "cmd. line"
} awk_src;

/* Parses srcs into g (zeroed by the caller): 0, or 1 after gawk's
 * message (status 1 for a syntax error, 2 for a fatal one). */
int awk_parse(sh_ctx *cx, const awk_src *srcs, size_t nsrcs, awk_prog *g);
void awk_prog_free(awk_prog *g);
int awk_global_slot(awk_prog *g, const char *name); // -1 on ENOMEM

/* ---- regexes ---- */

typedef struct awk_re {
    regex_t r_rx;
    bool r_ok;
    bool r_empty; // matches everywhere
    bool r_icase;
} awk_re;

/* Compiles awk regex text (escapes as awk reads them): NULL after the
 * fatal message. */
awk_re *awk_re_new(awk *a, const char *text, size_t len, bool icase);
void awk_re_free(awk_re *re);
/* Searches s[from..n): true with the match at [*so, *eo). notbol: the
 * start is not the beginning of a line (gsub's later matches). */
bool awk_re_exec(awk_re *re, const char *s, size_t n, size_t from,
                 bool notbol, size_t *so, size_t *eo);

/* ---- the run ---- */

typedef struct awk_field {
    awk_val f_val;
} awk_field;

typedef struct awk_reader awk_reader; // a record source (cmd_awk_io.c)
typedef struct awk_stream awk_stream; // a redirection (cmd_awk_io.c)

typedef struct awk_frame {
    awk_cell *fr_locals;
    int fr_n;
} awk_frame;

struct awk {
    sh_ctx *a_cx;
    sh_cmd_run a_run;
    awk_prog *a_prog;
    awk_cell *a_globals;
    size_t a_nglobals;
    awk_frame *a_frame; // the function running, or NULL
    unsigned a_depth;
    // the record
    box_buf a_rec;
    bool a_rec_dirty;  // a field changed: $0 must be rebuilt
    bool a_split;      // the fields are split from a_rec
    awk_val *a_fields; // $1.. (index 0 unused)
    size_t a_nf, a_capf;
    // input
    char **a_argv0; // ARGV as given (for ARGC and the operands)
    int a_argi;     // the next ARGV element to read
    awk_reader *a_main;
    bool a_main_done;
    bool a_read_any; // an input operand was read (else stdin)
    awk_stream *a_streams;
    box_buf a_out; // stdout, flushed at AWK_OUT_CHUNK and before commands
    // state
    int a_status;     // exit status
    bool a_exiting;   // `exit` ran
    bool a_fatal;     // a fatal error: stop everything
    bool a_in_end;
    unsigned long a_ticks; // steps left before the next stop check
    awk_re **a_recache;    // dynamic regexes (text -> compiled)
    char **a_retext;
    size_t a_nre;
    awk_re *a_fs_re; // FS as a regex (cached for a_fs_text)
    char *a_fs_text;
    awk_re *a_rs_re;
    char *a_rs_text;
    unsigned long a_seed;
    double a_prev_seed;
    unsigned long a_rand_state[2];
    size_t a_elems; // array elements alive
    const char *a_srcname;
    locale_t a_oldloc;
    int a_line;        // the source line running (messages)
    awk_val a_ret;     // a function's return value
    int a_pending;     // exit/next from inside a call: unwinds the rule
    box_buf a_tmp;     // print's line for a redirection
};

/* Messages: "awk: cmd. line:N: fatal: …", status 2, the run stops. */
void awk_fatal(awk *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void awk_warn(awk *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- values (cmd_awk_val.c) ---- */

void awk_val_free(awk_val *v);
awk_val awk_num(double d);
awk_val awk_str(awk *a, const char *s, size_t n); // copies s
awk_val awk_str_take(char *s, size_t n);          // takes s
awk_val awk_input(awk *a, const char *s, size_t n); // strnum candidate
awk_val awk_val_dup(awk *a, const awk_val *v);
double awk_tonum(awk_val *v);
/* Makes v's string (CONVFMT for a number) and returns it. */
const char *awk_tostr(awk *a, awk_val *v, size_t *len);
/* The output form (OFMT for a non-integral number) into tmp, or v's own
 * string. */
const char *awk_outstr(awk *a, awk_val *v, char *tmp, size_t tmplen,
                       size_t *len);
/* A number as CONVFMT or OFMT fmt gives it, into buf. */
size_t awk_numstr(double d, const char *fmt, char *buf, size_t len);
bool awk_val_true(awk_val *v);
int awk_compare(awk *a, awk_val *x, awk_val *y); // <0, 0, >0
bool awk_looks_numeric(const char *s, size_t n, double *d);
double awk_strtod(const char *s, size_t n);

/* Arrays: keys are strings. */
awk_arr *awk_arr_new(void);
void awk_arr_free(awk *a, awk_arr *r);
awk_val *awk_arr_get(awk *a, awk_arr *r, const char *k, size_t n,
                     bool create); // NULL: absent (create false) or fatal
bool awk_arr_del(awk *a, awk_arr *r, const char *k, size_t n);
void awk_arr_clear(awk *a, awk_arr *r);
size_t awk_arr_count(const awk_arr *r);
/* The keys now in r, copied (the loop may change r): *n of them. */
char **awk_arr_keys(awk_arr *r, size_t **lens, size_t *n);

/* ---- the interpreter (cmd_awk_run.c) ---- */

#define AWK_TICKS 1024u // steps between two looks at the call's clock
/* Counts bytes of string work toward the next look at the clock. */
void awk_charge(awk *a, size_t bytes);

int awk_run(awk *a);
awk_val awk_eval(awk *a, awk_node *n);
awk_cell *awk_cell_of(awk *a, awk_node *n); // a variable node's cell
awk_arr *awk_array_of(awk *a, awk_node *n); // NULL after a fatal
/* Assigns to an lvalue node (var, element, field); takes v. */
void awk_assign(awk *a, awk_node *lv, awk_val v);
void awk_special_set(awk *a, int slot);
const char *awk_var_str(awk *a, int slot, size_t *len);
/* Fields. */
void awk_set_record(awk *a, const char *s, size_t n);
void awk_split_record(awk *a);
awk_val *awk_field_ref(awk *a, long i, bool create);
void awk_set_nf(awk *a, long nf);
void awk_rebuild(awk *a);
const char *awk_record(awk *a, size_t *len);

/* Splitting a string into pieces (fields, split()): by FS " " (blanks,
 * newlines), one literal byte, a regex, or every character (""). */
enum { SP_SPACE, SP_CHAR, SP_RE, SP_EACH };
typedef struct awk_spans {
    size_t *sp_v; // start, length pairs
    size_t sp_n, sp_cap;
    size_t *sp_sep; // split()'s seps: start, length pairs (NULL: unused)
} awk_spans;
/* The split of s by a separator value (a string as FS reads it, or re). */
bool awk_split_by(awk *a, const char *s, size_t n, const char *fs,
                  size_t fslen, awk_re *re, bool para, awk_spans *out);
/* A dynamic regex from a string (cached). NULL after the fatal. */
awk_re *awk_re_dynamic(awk *a, const char *s, size_t n);
/* The regex of an argument: a regex literal's own, or its value's. */
awk_re *awk_re_of(awk *a, awk_node *n);

/* ---- builtins (cmd_awk_bi.c) ---- */

/* ORDER AWK_BI: the builtin functions, with their names in awk_bi_names. */
enum {
    BI_ATAN2, BI_CLOSE, BI_COS, BI_EXP, BI_FFLUSH, BI_GENSUB, BI_GSUB,
    BI_INDEX, BI_INT, BI_LENGTH, BI_LOG, BI_MATCH, BI_RAND, BI_SIN,
    BI_SPLIT, BI_SPRINTF, BI_SQRT, BI_SRAND, BI_STRFTIME, BI_SUB, BI_SUBSTR,
    BI_SYSTEM, BI_SYSTIME, BI_TOLOWER, BI_TOUPPER, BI_N
};
extern const char *const awk_bi_names[BI_N];
int awk_bi_lookup(const char *name, size_t n); // -1 if none
bool awk_bi_args_ok(int id, int nargs);
awk_val awk_builtin(awk *a, awk_node *n);
/* sprintf's formatting of args into out; false after a fatal. */
bool awk_format(awk *a, const char *fmt, size_t flen, awk_node *args,
                box_buf *out);
size_t awk_u8_len(const char *s, size_t n);

/* ---- input and output (cmd_awk_io.c) ---- */

/* The next main record into $0 (NR, FNR, FILENAME): 1, 0 at the end, -1
 * to stop. */
int awk_next_main(awk *a);
void awk_nextfile(awk *a);
awk_val awk_getline(awk *a, awk_node *n);
/* Writes text to where a print's redirection says (NULL: stdout). */
bool awk_output(awk *a, int rd, awk_node *target, const char *p, size_t n);
bool awk_flush_stdout(awk *a);
int awk_close(awk *a, const char *name, size_t n);
int awk_fflush(awk *a, const char *name, bool all);
int awk_system(awk *a, const char *cmd, size_t n);
void awk_io_end(awk *a); // closes every stream (pipes run now)

#endif
