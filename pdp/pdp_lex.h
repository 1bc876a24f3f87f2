/* SPDX-License-Identifier: Apache-2.0 */
/* Tokens of a .dw file (dogwood-spec §2.1); one token of lookahead. */
#ifndef PDP_LEX_H
#define PDP_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box_buf.h"
#include "box_err.h"
#include "box_arena.h"

/* ORDER PDP_TK: pdp_tk_names in pdp_lex.c follows this order. */
typedef enum pdp_tk {
    PDP_TK_EOF,
    PDP_TK_IDENT,
    PDP_TK_INT,
    PDP_TK_STR,
    /* reserved identifiers (§2.1) */
    PDP_TK_TRUE,
    PDP_TK_FALSE,
    PDP_TK_IF,
    PDP_TK_THEN,
    PDP_TK_ELSE,
    PDP_TK_IN,
    PDP_TK_LIKE,
    PDP_TK_HAS,
    PDP_TK_IS,
    PDP_TK_CEDAR, // __cedar
    /* punctuation */
    PDP_TK_LPAREN,
    PDP_TK_RPAREN,
    PDP_TK_LBRACKET,
    PDP_TK_RBRACKET,
    PDP_TK_LBRACE,
    PDP_TK_RBRACE,
    PDP_TK_COMMA,
    PDP_TK_SEMI,
    PDP_TK_COLON,
    PDP_TK_DCOLON,
    PDP_TK_DOT,
    PDP_TK_AT,
    PDP_TK_QUESTION,
    PDP_TK_DOLLAR,
    PDP_TK_EQ,     // ==
    PDP_TK_NE,     // !=
    PDP_TK_LT,     // <
    PDP_TK_LE,     // <=
    PDP_TK_GT,     // >
    PDP_TK_GE,     // >=
    PDP_TK_ASSIGN, // = (only to reject)
    PDP_TK_AND,    // &&
    PDP_TK_OR,     // ||
    PDP_TK_NOT,    // !
    PDP_TK_PLUS,
    PDP_TK_MINUS,
    PDP_TK_STAR,
    PDP_TK_SLASH,   // only to reject
    PDP_TK_PERCENT, // only to reject
    PDP_TK_COUNT
} pdp_tk;

/* A token is a view into the source text (never copied). */
typedef struct pdp_token {
    pdp_tk t_kind;
    const char *t_text; // first byte (for STR: the opening quote)
    size_t t_len;       // bytes, including quotes for STR
    uint32_t t_line;    // 1-based
    uint32_t t_col;     // 1-based, counted in Unicode scalar values
} pdp_token;

/*
 * Lexer state (Lua's LexState shape): the parser reads lx_tok and calls
 * pdp_lex_next / pdp_lex_peek. Every error is formatted once into lx_err
 * as "file:line:col: message"; after an error the lexer stays failed.
 */
typedef struct pdp_lex {
    const char *lx_src;
    size_t lx_len;
    size_t lx_pos;      // next byte to scan
    uint32_t lx_line;   // position of lx_pos
    uint32_t lx_col;
    const char *lx_file; // for messages
    pdp_token lx_tok;    // current token
    pdp_token lx_ahead;  // valid when lx_have_ahead
    bool lx_have_ahead;
    size_t lx_prev_end;  // byte offset just past the previous token
    box_buf *lx_err;     // where the first error goes (owned by caller)
    bool lx_failed;
} pdp_lex;

/* Starts lexing src[0..len) (a leading UTF-8 BOM is skipped) and reads
 * the first token. BOX_EPARSE with *err filled for a first-token error or
 * text that is not well-formed UTF-8. */
box_err pdp_lex_init(pdp_lex *lx, const char *src, size_t len,
                     const char *file, box_buf *err) BOX_WARN_UNUSED;
/* Moves to the next token. */
box_err pdp_lex_next(pdp_lex *lx) BOX_WARN_UNUSED;
/* The token after the current one (lexed on demand, kept). */
box_err pdp_lex_peek(pdp_lex *lx, const pdp_token **out) BOX_WARN_UNUSED;

/* Static display name of a token kind, e.g. "`(`", "identifier". */
const char *pdp_tk_name(pdp_tk k);

/* Records "file:line:col: <message>" as the error (first error wins) and
 * returns BOX_EPARSE; code may be BOX_ENOTSUP for "not supported yet". */
box_err pdp_lex_error(pdp_lex *lx, box_err code, uint32_t line, uint32_t col,
                      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/*
 * Decodes the STR token tok (§2.1 escapes, exactly Cedar's/Rust's set)
 * into arena memory. With pattern false, `\*` is an error. With pattern
 * true the result is a like-pattern: *wild (arena array, one flag per
 * output byte) marks bytes that are unescaped `*` wildcards; with
 * pattern false *wild may be NULL. Errors name the escape:
 * "the input `\q` is not a valid escape".
 */
box_err pdp_lex_string(pdp_lex *lx, const pdp_token *tok, box_arena *a,
                       bool pattern, char **out, size_t *outlen,
                       bool **wild) BOX_WARN_UNUSED;

#endif
