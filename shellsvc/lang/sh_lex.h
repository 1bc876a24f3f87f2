/* SPDX-License-Identifier: Apache-2.0 */
/* Tokens of shell text; words are lexed into parts (quotes, expansions). */
#ifndef SH_LEX_H
#define SH_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box_err.h"
#include "box_arena.h"
#include "sh_ast.h"

/* Limits (box-spec §3.1). */
#define SH_MAX_INPUT (256u * 1024u) // bytes of command text
#define SH_MAX_DEPTH 64u            // nesting of compounds/substitutions
#define SH_MAX_PIPELINE 16u         // stages of one pipeline
#define SH_MAX_MSG 256u             // bytes of one diagnostic

/*
 * ORDER SH_TK: sh_tk_names in sh_lex.c follows this order.
 * The lexer only produces SH_TK_EOF … SH_TK_TLESS; reserved words come
 * back as SH_TK_WORD and the parser turns them into SH_TK_IF … SH_TK_BANG
 * where a command may start (sh_lex_keyword).
 */
typedef enum sh_tk {
    SH_TK_EOF,
    SH_TK_NEWLINE,
    SH_TK_WORD,
    SH_TK_IO_NUMBER, // digits directly before < or >
    SH_TK_SEMI,      // ;
    SH_TK_DSEMI,     // ;;
    SH_TK_SEMIAND,   // ;&  (case arm falling through, bash)
    SH_TK_DSEMIAND,  // ;;& (case arm testing the next patterns, bash)
    SH_TK_AMP,       // &
    SH_TK_AND,       // &&
    SH_TK_PIPE,      // |
    SH_TK_OR,        // ||
    SH_TK_PIPEAND,   // |& (bash: 2>&1 |)
    SH_TK_LPAREN,    // (
    SH_TK_RPAREN,    // )
    SH_TK_LESS,      // <
    SH_TK_GREAT,     // >
    SH_TK_DGREAT,    // >>
    SH_TK_CLOBBER,   // >|
    SH_TK_LESSGREAT, // <>
    SH_TK_LESSAND,   // <&
    SH_TK_GREATAND,  // >&
    SH_TK_DLESS,     // <<
    SH_TK_DLESSDASH, // <<-
    SH_TK_ANDGREAT,  // &>
    SH_TK_ANDDGREAT, // &>>
    SH_TK_TLESS,     // <<< (here-string, bash)
    /* reserved words (command position only) */
    SH_TK_IF,
    SH_TK_THEN,
    SH_TK_ELSE,
    SH_TK_ELIF,
    SH_TK_FI,
    SH_TK_DO,
    SH_TK_DONE,
    SH_TK_CASE,
    SH_TK_ESAC,
    SH_TK_WHILE,
    SH_TK_UNTIL,
    SH_TK_FOR,
    SH_TK_IN,
    SH_TK_LBRACE,  // {
    SH_TK_RBRACE,  // }
    SH_TK_BANG,    // !
    SH_TK_DLBRACK, // [[ (bash)
    SH_TK_DRBRACK, // ]] (ends a [[; elsewhere in command position an error)
    SH_TK_COUNT
} sh_tk;

typedef struct sh_token {
    sh_tk t_kind;
    uint32_t t_line;
    int t_fd;        // SH_TK_IO_NUMBER: the number
    sh_word *t_word; // SH_TK_WORD (and keywords): the word
    size_t t_start;  // byte offsets in the lexer's text
    size_t t_end;
} sh_token;

#define SH_DIAG_WARN_MAX 8 // warnings kept per command; more are dropped

/* The first error wins; d_line is where it was found (1-based). Warnings
 * (bash's, for text it runs anyway) gather beside it until the caller
 * prints and clears them (sh_parser_warnings_clear). */
typedef struct sh_diag {
    box_err d_code; // BOX_OK, BOX_EPARSE, BOX_ETOOBIG, BOX_ENOMEM
    uint32_t d_line;
    char d_msg[SH_MAX_MSG];
    size_t d_nwarn;
    struct {
        uint32_t w_line; // where the text ended up when it was given
        char w_msg[SH_MAX_MSG];
    } d_warn[SH_DIAG_WARN_MAX];
} sh_diag;

typedef struct sh_lex sh_lex;

/* How a nested command list is delimited for the parser callback. */
typedef enum sh_sub_kind {
    SH_SUB_PAREN, // $( … ): parse up to the matching `)` token
    SH_SUB_TEXT,  // `…`: parse the whole (sub-)lexer text
} sh_sub_kind;

/* Parses a nested command list from lx (the parser's callback); on
 * BOX_OK *out is an SH_N_LIST and, for SH_SUB_PAREN, lx stands right
 * after the closing `)`. */
typedef box_err (*sh_sub_fn)(void *ctx, sh_lex *lx, sh_sub_kind kind,
                             sh_node **out);

/*
 * How the next word is lexed: the right side of `==` `!=` `=` and `=~`
 * inside [[ … ]] keeps bash's extra word characters (the parser sets it
 * for one token).
 */
typedef enum sh_lex_cond {
    SH_LEX_PLAIN, // the POSIX word
    SH_LEX_COND_PAT, // `@(…)` `*(…)` `+(…)` `?(…)` `!(…)` stay in the word
    SH_LEX_COND_RE, // `(…)` (blanks and operators inside too) and `|`
                    // stay in the word
} sh_lex_cond;

/* A here-document waiting for its body (read after the next newline). */
typedef struct sh_pending_hd {
    sh_redir *ph_redir;
    unsigned ph_level; // $( … ) nesting where it was written
    struct sh_pending_hd *ph_next;
} sh_pending_hd;

/*
 * The lexer. Fields are private to sh_lex.c and sh_parse.c; the struct is
 * in the header only so the parser can keep lexers on its stack (one per
 * nested backquote or here-document body).
 */
struct sh_lex {
    const char *lx_src;
    size_t lx_len;
    size_t lx_pos;
    uint32_t lx_line;
    bool lx_final;   // lx_len is the true end of input
    bool lx_hit_end; // looked past lx_len while !lx_final (need more)
    box_arena *lx_arena;
    sh_diag *lx_diag;
    unsigned *lx_depth; // shared nesting counter (parser's)
    sh_sub_fn lx_sub;
    void *lx_subctx;
    sh_pending_hd *lx_hd_head, *lx_hd_tail; // in order of appearance
    unsigned lx_level;   // current $( … ) nesting on this lexer
    sh_lex_cond lx_cond; // for the next word only (reset by sh_lex_next)
    // shopt extglob when the text was read: every word keeps the groups a
    // [[ pattern does (nested lexers take it from theirs).
    bool lx_extglob;
    // sh_lex_reread_assign: metacharacters before this offset stay in the
    // word being lexed at nesting level lx_keep_level (0: none).
    size_t lx_keep_to;
    unsigned lx_keep_level;
};

/* Sets up lx over src[0..len) starting at line; the caller owns src and
 * keeps it alive (words are copied into a). */
void sh_lex_init(sh_lex *lx, const char *src, size_t len, uint32_t line,
                 bool final, box_arena *a, sh_diag *diag, unsigned *depth,
                 sh_sub_fn sub, void *subctx);
/* Lexes the next token into *tok. On an error the message is in the
 * diag (BOX_EPARSE / BOX_ENOMEM / BOX_ETOOBIG). */
box_err sh_lex_next(sh_lex *lx, sh_token *tok) BOX_WARN_UNUSED;
/*
 * tok is a word the parser reads in assignment position whose spelling
 * starts `NAME[` with the bracket still open where a blank (or another
 * metacharacter) ended it, as in `a[x y]=v`. When the source from its
 * `[` closes at a `]` followed by `=` or `+=`, relexes it from its start
 * with everything up to that `]` in the word (bash reads the subscript
 * as a matched pair) and sets *changed; else leaves it (and *changed
 * false). Only right after tok was lexed.
 */
box_err sh_lex_reread_assign(sh_lex *lx, sh_token *tok,
                             bool *changed) BOX_WARN_UNUSED;
/* Queues a here-document redirection whose body follows the next
 * newline token at this $( … ) level or an outer one (like bash and
 * dash, a body is read after the logical line, not inside a $( … ) that
 * spans lines). */
box_err sh_lex_push_heredoc(sh_lex *lx, sh_redir *r) BOX_WARN_UNUSED;
/*
 * Right after a `(` token whose next byte is `(`: the text up to the
 * matching `))` (bash's `(( … ))` and `for (( … ))`) as a word of one
 * SH_WP_ARITH part in *out, the lexer standing after the `))`. When the
 * parentheses close as `) … )` instead (a subshell in a subshell, as in
 * `((echo a); echo b)`) or the next byte is not `(`, *out is NULL and
 * nothing was consumed.
 */
box_err sh_lex_dparen(sh_lex *lx, sh_word **out) BOX_WARN_UNUSED;
/* The position of the `]` that closes the `[` at s[0] (quotes and `\`
 * skipped, inner brackets nested), or n when none does. */
size_t sh_lex_bracket_end(const char *s, size_t n);
/* Lexes text (a piece of a word lx read: an array subscript, or the
 * value of NAME[sub]=value / [sub]=value) into *out: a subscript keeps
 * blanks and brackets literal; a value is lexed as a word. */
box_err sh_lex_subword(sh_lex *lx, const char *text, size_t len, uint32_t line,
                       bool value, sh_word **out) BOX_WARN_UNUSED;
/* The reserved word a WORD token spells (unquoted, one literal part), or
 * SH_TK_WORD. */
sh_tk sh_lex_keyword(const sh_token *tok);
/* Display text of a token kind ("newline", ";;", "if", …). */
const char *sh_tk_name(sh_tk k);
/* Records the first error: code, line and printf-style message.
 * Returns code. */
box_err sh_diag_set(sh_diag *d, box_err code, uint32_t line, const char *fmt,
                    ...) __attribute__((format(printf, 4, 5)));
/* Keeps one warning (printf-style) found at line, when there is room. */
void sh_diag_warn(sh_diag *d, uint32_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
