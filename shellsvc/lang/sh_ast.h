/* SPDX-License-Identifier: Apache-2.0 */
/* The parsed form of shell text: commands, lists, compounds, words,
 * redirections. */
#ifndef SH_AST_H
#define SH_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box_buf.h"
#include "box_err.h"

/*
 * This header is a data contract between the parser and the expander and
 * executor that walk the tree. Nodes are plain structs read with a switch
 * on the kind; they are read-only after parsing and live in the arena the
 * parser was given (they die with it). Every string is a copy in that
 * arena, length-delimited and also NUL-terminated (a NUL byte typed in the
 * input stays inside the length).
 *
 * Lines are 1-based source lines of the text given to the parser; inside
 * backquotes and here-document bodies they still count from the start of
 * the whole input.
 *
 * Stability: new constructs add enum values at the end and new union
 * members; existing fields keep their meaning.
 */

typedef struct sh_node sh_node;
typedef struct sh_word sh_word;
typedef struct sh_wpart sh_wpart;
typedef struct sh_redir sh_redir;
typedef struct sh_assign sh_assign;
typedef struct sh_case_item sh_case_item;
typedef struct sh_cond sh_cond;

/* ---- words ---- */

/* ORDER SH_WP: sh_wpart_kind_name() follows this order. */
typedef enum sh_wpart_kind {
    SH_WP_LIT,     // u.text: unquoted literal (split/glob apply); inside a
                   // DQUOTE or a here-document body: quoted literal text
    SH_WP_SQUOTE,  // u.text: '...' contents, literal
    SH_WP_ESCAPED, // u.text: the one byte after an unquoted `\`, literal
    SH_WP_DQUOTE,  // u.dq: "..." contents (NULL for ""), no splitting
    SH_WP_PARAM,   // u.param: $x ${x} ${x op word} ${#x}
    SH_WP_CMDSUB,  // u.cmdsub: $( list ) or `list`
    SH_WP_ARITH,   // u.text: the raw text between $(( and ))
    SH_WP_TILDE,   // u.text: the prefix after `~` ("" for ~, "+", "-",
                   // "user"); only first in a word or an assignment value
    SH_WP_PROCSUB, // u.procsub: <( list ) or >( list ) (bash): the word
                   // gets the path of a pipe end the list writes or reads
    SH_WP_COUNT
} sh_wpart_kind;

/* ORDER SH_PO: sh_param_op_name() follows this order. */
typedef enum sh_param_op {
    SH_PO_NONE,     // $x, ${x}
    SH_PO_LENGTH,   // ${#x}
    SH_PO_DEFAULT,  // ${x-w}
    SH_PO_ASSIGN,   // ${x=w}
    SH_PO_ERROR,    // ${x?w}
    SH_PO_ALT,      // ${x+w}
    SH_PO_CDEFAULT, // ${x:-w}  (colon: empty counts as unset)
    SH_PO_CASSIGN,  // ${x:=w}
    SH_PO_CERROR,   // ${x:?w}
    SH_PO_CALT,     // ${x:+w}
    SH_PO_RSUFFIX,  // ${x%w}   remove smallest suffix pattern
    SH_PO_RLSUFFIX, // ${x%%w}  remove largest suffix pattern
    SH_PO_RPREFIX,  // ${x#w}   remove smallest prefix pattern
    SH_PO_RLPREFIX, // ${x##w}  remove largest prefix pattern
    SH_PO_UPPER1,   // ${x^w}   first character to upper case (bash)
    SH_PO_UPPER,    // ${x^^w}  every character matching w (or all)
    SH_PO_LOWER1,   // ${x,w}   first character to lower case
    SH_PO_LOWER,    // ${x,,w}  every character matching w (or all)
    SH_PO_SUBSTR,   // ${x:off} ${x:off:len}: arg off, arg2 len or NULL
    SH_PO_REPL,     // ${x/p/r}  first match of p: arg p, arg2 r or NULL
    SH_PO_REPL_ALL, // ${x//p/r} every match
    SH_PO_REPL_PRE, // ${x/#p/r} a match at the start
    SH_PO_REPL_SUF, // ${x/%p/r} a match at the end
    SH_PO_XFORM,    // ${x@C}    transformation: the letter C in xform
    SH_PO_NAMES,    // ${!pre*} ${!pre@}: names starting with pre (name);
                    // xform is '*' or '@'
    SH_PO_KEYS,     // ${!a[@]} ${!a[*]}  the indices / keys of an array
    SH_PO_COUNT
} sh_param_op;

struct sh_wpart {
    sh_wpart_kind wp_kind;
    uint32_t wp_line;
    sh_wpart *wp_next; // next part of the same word (or DQUOTE body)
    union {
        struct {
            const char *s;
            size_t len;
        } text;
        sh_wpart *dq;
        struct {
            /* A name ([A-Za-z_][A-Za-z0-9_]*), positional digits ("1",
             * "10"), or one special character of @ * # ? - $ ! 0. */
            const char *name;
            size_t len;
            sh_param_op op;
            bool braced;
            sh_word *arg;  // the word after op (never NULL when op takes one;
                           // may have no parts); NULL for NONE and LENGTH
            sh_word *arg2; // SUBSTR: the length; REPL*: the replacement
                           // (NULL when not written)
            char xform;    // XFORM: the letter; NAMES: '*' or '@'
            bool indirect; // ${!name…}: name's value names the parameter
            sh_word *sub;  // ${name[sub]}: the subscript (NULL: none); @ and
                           // * are one unquoted LIT part
        } param;
        struct {
            sh_node *body;  // an SH_N_LIST (possibly with no items)
            bool backquote; // written `...`
        } cmdsub;
        struct {
            sh_node *body; // an SH_N_LIST (possibly with no items)
            bool out;      // >( ): the list reads what the command writes
        } procsub;
    } u;
};

/* A word: the concatenation of its parts; raw is the spelling as typed
 * (for messages and for the here-document delimiter). */
struct sh_word {
    sh_wpart *w_parts; // NULL for a word with no parts (empty heredoc body,
                       // ${x:-} argument); "" is one empty DQUOTE part
    const char *w_raw;
    size_t w_rawlen;
    uint32_t w_line;
    sh_word *w_next; // next word of the same list (argv, for list, patterns)
    /* An argument of a declaration builtin (declare, local, …) written
     * NAME=( … ): it expands to NAME and the compound assignment runs
     * after the builtin has declared the name. */
    sh_assign *w_assign;
};

/* ---- redirections ---- */

/* ORDER SH_R: sh_redir_kind_name() follows this order. */
typedef enum sh_redir_kind {
    SH_R_IN,            // [n]<word     default fd 0
    SH_R_OUT,           // [n]>word     default fd 1
    SH_R_APPEND,        // [n]>>word    default fd 1
    SH_R_CLOBBER,       // [n]>|word    default fd 1
    SH_R_RDWR,          // [n]<>word    default fd 0
    SH_R_DUPIN,         // [n]<&word    default fd 0 (word: digits or "-")
    SH_R_DUPOUT,        // [n]>&word    default fd 1 (word: digits or "-")
    SH_R_HEREDOC,       // [n]<<word    default fd 0, body in r_body
    SH_R_HEREDOC_STRIP, // [n]<<-word leading tabs stripped from the body
    SH_R_BOTH,          // &>word       stdout and stderr to word (bash)
    SH_R_BOTH_APPEND,   // &>>word    stdout and stderr appended (bash)
    SH_R_HERESTR,       // [n]<<<word default fd 0: the expanded word and a
                        // newline (bash)
    SH_R_COUNT
} sh_redir_kind;

struct sh_redir {
    sh_redir_kind r_kind;
    int r_fd; // explicit fd, or -1 for the kind's default
    /* {name}>word (bash): the shell picks the fd (the lowest free one
     * from 10) and stores it in name; {name}>&- closes the fd in name.
     * NULL otherwise (r_fd is then -1). */
    const char *r_fdvar;
    uint32_t r_line;
    sh_word *r_target; // file, fd word, or here-document delimiter word
    /* Here-documents: the delimiter after quote removal, whether any part
     * of it was quoted (then the body is one literal LIT part and must not
     * be expanded), and the body (tabs already stripped for <<-; the final
     * newline of each line kept; w_parts NULL when empty). */
    const char *r_delim;
    bool r_quoted;
    sh_word *r_body;
    sh_redir *r_next;
};

/* ---- commands ---- */

/* One element of NAME=( … ): a word, or [sub]=word, or [sub]+=word. */
typedef struct sh_aelem sh_aelem;
struct sh_aelem {
    sh_word *ae_sub; // NULL: the next index
    sh_word *ae_value;
    bool ae_append;
    sh_aelem *ae_next;
};

/* NAME=word, NAME+=word, NAME[sub]=word or NAME=( … ) in front of a
 * simple command (or alone). */
struct sh_assign {
    const char *a_name;
    size_t a_namelen;
    bool a_append;    // +=
    sh_word *a_value; // never NULL; no parts for X=
    sh_word *a_sub;   // NAME[sub]=: the subscript (NULL: none)
    bool a_compound;  // NAME=( … ): a_elems holds the elements
    sh_aelem *a_elems;
    uint32_t a_line;
    sh_assign *a_next;
};

/* How a case arm ends (bash): what runs after its body. */
typedef enum sh_case_term {
    SH_CT_BREAK, // ;;  (or the last arm without one): the case is done
    SH_CT_FALL,  // ;&  the next arm's body runs without testing it
    SH_CT_TEST,  // ;;& the following arms' patterns are tested
} sh_case_term;

/* One `pat|pat) list ;;` arm of a case. */
struct sh_case_item {
    sh_word *ci_pats; // at least one
    sh_node *ci_body; // an SH_N_LIST, possibly with no items
    uint32_t ci_line;
    sh_case_term ci_term;
    sh_case_item *ci_next;
};

/* ---- [[ … ]] conditional expressions ---- */

/* ORDER SH_C: sh_cond_kind_name() follows this order. */
typedef enum sh_cond_kind {
    SH_C_AND,    // c_l && c_r
    SH_C_OR,     // c_l || c_r
    SH_C_NOT,    // ! c_l
    SH_C_GROUP,  // ( c_l )
    SH_C_UNARY,  // c_op c_w1 (a lone word W is parsed as -n W, like bash)
    SH_C_BINARY, // c_w1 c_op c_w2
    SH_C_COUNT
} sh_cond_kind;

/*
 * ORDER SH_CO: sh_cond_op_name() follows this order. The unary
 * operators are bash's (test_unop), then the binary ones; an operator is
 * recognised only when written as one unquoted literal word (or the
 * `<` `>` tokens).
 */
typedef enum sh_cond_op {
    SH_CO_A,
    SH_CO_B,
    SH_CO_C,
    SH_CO_D,
    SH_CO_E,
    SH_CO_F,
    SH_CO_G,
    SH_CO_H,
    SH_CO_K,
    SH_CO_N,
    SH_CO_O,
    SH_CO_P,
    SH_CO_R,
    SH_CO_S,
    SH_CO_T,
    SH_CO_U,
    SH_CO_V,
    SH_CO_W,
    SH_CO_X,
    SH_CO_Z,
    SH_CO_UG,
    SH_CO_UL,
    SH_CO_UN,
    SH_CO_UO,
    SH_CO_UR,
    SH_CO_US,    // -G … -S
    SH_CO_SEQ1,  // =  (pattern on the right)
    SH_CO_SEQ,   // == (pattern on the right)
    SH_CO_SNE,   // != (pattern on the right)
    SH_CO_MATCH, // =~ (POSIX ERE on the right)
    SH_CO_SLT,   // <  (byte order)
    SH_CO_SGT,   // >
    SH_CO_EQ,
    SH_CO_NE,
    SH_CO_LT,
    SH_CO_LE,
    SH_CO_GT,
    SH_CO_GE, // arithmetic
    SH_CO_NT,
    SH_CO_OT,
    SH_CO_EF, // files
    SH_CO_COUNT
} sh_cond_op;
#define SH_CO_FIRST_BINARY SH_CO_SEQ1

struct sh_cond {
    sh_cond_kind c_kind;
    sh_cond_op c_op; // UNARY, BINARY
    uint32_t c_line;
    sh_cond *c_l, *c_r;   // AND, OR: both; NOT, GROUP: c_l
    sh_word *c_w1, *c_w2; // UNARY: c_w1; BINARY: c_w1 and c_w2
};

/* ORDER SH_N: sh_node_kind_name() follows this order. */
typedef enum sh_node_kind {
    SH_N_LIST,     // u.list: items run in order, each n_bg if ended by `&`
    SH_N_AND,      // u.bin: l && r
    SH_N_OR,       // u.bin: l || r
    SH_N_PIPE,     // u.pipe: stages a | b | c (or one stage under `!`)
    SH_N_SIMPLE,   // u.simple
    SH_N_GROUP,    // u.body: { list; }
    SH_N_SUBSHELL, // u.body: ( list )
    SH_N_IF,       // u.if_: if c; then t; [else e]; fi (elif: e is an IF)
    SH_N_WHILE,    // u.loop
    SH_N_UNTIL,    // u.loop
    SH_N_FOR,      // u.for_
    SH_N_CASE,     // u.case_
    SH_N_FUNC,     // u.func: name() compound
    SH_N_COND,     // u.cond: [[ expression ]] (bash)
    SH_N_ARITH,    // u.arith: (( expression )) (bash)
    SH_N_FOR_ARITH, // u.for_arith: for (( init; cond; step )) body (bash)
    SH_N_TIME,     // u.time: time [-p] pipeline (bash)
    SH_N_COUNT
} sh_node_kind;

struct sh_node {
    sh_node_kind n_kind;
    uint32_t n_line;    // first token of the construct
    bool n_bg;          // as a LIST item: ended by `&`
    sh_redir *n_redirs; // SIMPLE and compounds (GROUP … CASE); in order
    sh_node *n_next;    // next item of a LIST or stage of a PIPE
    union {
        struct {
            sh_node *items; // linked through n_next; NULL when empty
        } list;
        struct {
            sh_node *l, *r;
        } bin;
        struct {
            sh_node *stages; // linked through n_next; 1..SH_MAX_PIPELINE
            uint32_t n;
            bool bang; // ! in front: status is negated
        } pipe;
        struct {
            sh_assign *assigns; // NULL when none
            sh_word *words;     // argv; NULL for assignments/redirs only
        } simple;
        sh_node *body; // GROUP, SUBSHELL: an SH_N_LIST
        struct {
            sh_node *cond, *then, *else_; // else_ NULL, a LIST or an IF
        } if_;
        struct {
            sh_node *cond, *body;
        } loop;
        struct {
            const char *var;
            size_t varlen;
            bool has_in;    // `for v in …` (else iterate "$@")
            sh_word *words; // the list after `in` (may be NULL)
            sh_node *body;
        } for_;
        struct {
            sh_word *word;
            sh_case_item *items; // NULL when none
        } case_;
        struct {
            const char *name;
            size_t namelen;
            sh_node *body; // a compound node (GROUP…CASE, COND) with its
                           // redirs
        } func;
        sh_cond *cond; // COND: the expression (never NULL)
        /* ARITH: a word of one SH_WP_ARITH part, the text between the
         * parentheses (evaluated like $(( … ))). */
        sh_word *arith;
        struct {
            /* Each a word of one SH_WP_ARITH part, or NULL when that
             * part of the header is empty (an empty cond is true). */
            sh_word *init, *cond, *step;
            sh_node *body; // an SH_N_LIST (do … done) or an SH_N_GROUP
        } for_arith;
        struct {
            sh_node *cmd; // the pipeline timed; NULL for `time` alone
            bool posix;   // -p: real/user/sys in seconds, POSIX format
        } time;
    } u;
};

/* Names for the ORDER tables above (static text, never NULL). */
const char *sh_node_kind_name(sh_node_kind k);
const char *sh_wpart_kind_name(sh_wpart_kind k);
const char *sh_param_op_name(sh_param_op op);
const char *sh_redir_kind_name(sh_redir_kind k);
const char *sh_cond_kind_name(sh_cond_kind k);
/* The operator as written ("-f", "==", "<"). */
const char *sh_cond_op_name(sh_cond_op op);

/* Dump flags. */
#define SH_DUMP_LINES 1u // print @line after each node/redir head

/*
 * Appends an S-expression text of n to out (for tests and debugging):
 *   (list ITEM…)  (bg X)  (and L R)  (or L R)  (pipe S…)  (not X)
 *   (cmd (= NAME W) (+= NAME W) W… REDIR…)
 *   (group LIST REDIR…)  (subshell LIST REDIR…)  (if C T [E])
 *   (while C B)  (until C B)  (for v [(in W…)] B)
 *   (case W (item (pats P…) LIST)…)  (func name BODY)
 *   (arith "raw")  (for-arith "init" "cond" "step" B) (empty parts "")
 *   (time [-p] X)  (case items ending ;& or ;;& add (fall) / (test))
 *   (cond C) with C one of (&& C C) (|| C C) (! C) (paren C) (-f W)
 *   (W == W) (W =~ W) …
 * a word is "text" when it is one LIT part, else (word PART…) with
 * parts "lit" (sq "x") (esc "x") (dq PART…) (param x) (param x :- W)
 * (len x) (cmdsub LIST) (backq LIST) (arith "raw") (tilde "user");
 * a redirection is (OP[fd] W), e.g. (> "f") (2>& "1"), and a
 * here-document (<< "DELIM" BODY) / (<<- …) with q after << when quoted.
 */
box_err sh_ast_dump(const sh_node *n, box_buf *out,
                    unsigned flags) BOX_WARN_UNUSED;
/* The same for one word. */
box_err sh_ast_dump_word(const sh_word *w, box_buf *out,
                         unsigned flags) BOX_WARN_UNUSED;

#endif
