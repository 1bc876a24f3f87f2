/* SPDX-License-Identifier: Apache-2.0 */
/* awk's lexer, shared by the lexer and the parser only. */
#ifndef CMD_AWK_LEX_H
#define CMD_AWK_LEX_H

#include "cmd_awk.h"

/* ORDER AWK_TOK */
enum {
    T_EOF, T_NEWLINE, T_LBRACE, T_RBRACE, T_LPAREN, T_RPAREN, T_LBRACKET,
    T_RBRACKET, T_SEMI, T_COMMA, T_NUMBER, T_STRING, T_ERE, T_NAME,
    T_FUNC_NAME, T_BUILTIN,
    // keywords
    T_BEGIN, T_END, T_FUNCTION, T_IF, T_ELSE, T_WHILE, T_FOR, T_DO, T_BREAK,
    T_CONTINUE, T_NEXT, T_NEXTFILE, T_EXIT, T_RETURN, T_DELETE, T_GETLINE,
    T_PRINT, T_PRINTF, T_IN,
    // operators
    T_ADD_ASSIGN, T_SUB_ASSIGN, T_MUL_ASSIGN, T_DIV_ASSIGN, T_MOD_ASSIGN,
    T_POW_ASSIGN, T_ASSIGN, T_QUESTION, T_COLON, T_OR, T_AND, T_MATCH,
    T_NOMATCH, T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE, T_APPEND, T_PIPE,
    T_PLUS, T_MINUS, T_STAR, T_SLASH, T_PERCENT, T_CARET, T_NOT, T_INCR,
    T_DECR, T_DOLLAR, T_BAD,
};

typedef struct awk_lex {
    sh_ctx *lx_cx;
    box_arena *lx_arena;
    const awk_src *lx_srcs;
    size_t lx_nsrcs, lx_si; // the source being read
    const char *lx_p;       // its text
    size_t lx_n, lx_i;      // length, position
    int lx_line;
    int lx_prev; // the token before: '/' is division after an operand
    // the token read
    int lx_tok;
    size_t lx_start, lx_end; // its bytes in the source
    int lx_tline;
    double lx_num;
    char *lx_str; // T_STRING, T_ERE, names (arena)
    size_t lx_len;
    int lx_bi; // T_BUILTIN: which
    bool lx_failed;
} awk_lex;

/* Reads the next token into lx (T_BAD after a message). */
void awk_lex_next(awk_lex *lx);
/* gawk's "awk: SRC:LINE: TEXT\nawk: SRC:LINE:    ^ MSG" at the token. */
void awk_lex_error(awk_lex *lx, const char *msg);
/* "awk: SRC:LINE: " for the token's line, into buf. */
void awk_lex_where(const awk_lex *lx, char *buf, size_t len);

#endif
