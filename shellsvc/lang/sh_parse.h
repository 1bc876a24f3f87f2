/* SPDX-License-Identifier: Apache-2.0 */
/* Shell parser: text -> sh_ast, whole or one top-level command at a time. */
#ifndef SH_PARSE_H
#define SH_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box_err.h"
#include "box_arena.h"
#include "sh_ast.h"
#include "sh_lex.h"

/*
 * The grammar is the POSIX shell grammar restricted to box-spec §3.2 (see
 * the rule comments in sh_parse.c). Reserved words are recognised only
 * where a command may start. Limits: SH_MAX_INPUT bytes of text
 * ("input too large"), SH_MAX_DEPTH nested compounds / substitutions /
 * quotes ("maximum recursion depth exceeded"), SH_MAX_PIPELINE stages
 * ("pipeline too long").
 *
 * Diagnostics are the text after "strands-shell: " (bash wording where
 * bash has one) plus the line where the problem was found:
 *   syntax error near unexpected token `X'   (X as typed, or `newline')
 *   syntax error: unexpected end of file
 *   unterminated quoted string                (line of the opening quote)
 *   unexpected EOF while looking for matching `)'  (also `}' and ``')
 *   here-document delimited by end-of-file (wanted `D')  (line of <<)
 *   ${…}: bad substitution                    (forms outside §3.2)
 *   array assignment not supported            (a=(…))
 *   syntax error: arithmetic expression required   (for (( a; b )))
 *   syntax error: `;' unexpected              (for (( a; b; c; d )))
 *   select: not supported: …                 (no terminal to choose on)
 *   `x': not a valid identifier               (for x in …)
 * and inside [[ … ]] bash's conditional-command messages:
 *   unexpected argument `X' to conditional unary operator
 *   unexpected argument `X' to conditional binary operator
 *   conditional binary operator expected
 *   unexpected token `X', conditional binary operator expected
 *   unexpected token `X', expected `)'
 *   unexpected token `X' in conditional command
 *   syntax error in conditional expression[: unexpected token `X']
 *   unexpected EOF while looking for `]]'    (line of the [[)
 * A here-document whose delimiter never comes takes the rest of the text,
 * as in bash, with bash's warning (sh_diag d_warn):
 *   here-document at line N delimited by end-of-file (wanted `D')
 * Unsupported ${…} forms are refused at parse time.
 */

typedef struct sh_parser sh_parser;

/* What sh_parse_next produced. An error is never a command. */
typedef enum sh_parse_status {
    SH_PARSE_ERROR = -1, // see sh_parser_diag; the parser stays failed
    SH_PARSE_END = 0,    // input finished and fully consumed
    SH_PARSE_CMD,        // *out is one top-level SH_N_LIST; it was consumed
    SH_PARSE_MORE,       // the text so far ends inside a command: feed more
                         // (or finish); nothing was consumed
} sh_parse_status;

/*
 * A parser whose nodes go into a (the caller keeps a alive as long as it
 * uses any node; the parser never frees it). NULL on ENOMEM.
 */
sh_parser *sh_parser_new(box_arena *a);
void sh_parser_free(sh_parser *p);
/* Whether the commands parsed from now on read bash's extglob groups
 * (`@(a|b)`) in every word: shopt -s extglob, which bash too applies from
 * the next complete command on. */
void sh_parser_set_extglob(sh_parser *p, bool on);

/*
 * Appends text (copied). BOX_ETOOBIG when the whole input would exceed
 * SH_MAX_INPUT (the parser is then failed with "input too large").
 */
box_err sh_parser_feed(sh_parser *p, const char *text, size_t len)
    BOX_WARN_UNUSED;
/* No more text will come: the end of the text ends the last command. */
void sh_parser_finish(sh_parser *p);

/*
 * The incremental contract (box-spec §3.2: multi-line input runs one
 * complete command at a time). Returns the next complete top-level
 * command list: one line's `a; b && c &`, extended over following lines
 * while a line ends in `&&` `||` `|`, inside quotes, an open compound or a
 * here-document body (bodies are read before the command is returned).
 * Blank lines and comments are skipped. Until sh_parser_finish, a command
 * that reaches the end of the fed text gives SH_PARSE_MORE (it may go on).
 * After SH_PARSE_ERROR every call returns SH_PARSE_ERROR.
 */
sh_parse_status sh_parse_next(sh_parser *p, sh_node **out);

/* The first error (d_code BOX_OK when none). */
const sh_diag *sh_parser_diag(const sh_parser *p);

/*
 * One-shot: parses all of text[0..len) into one SH_N_LIST holding every
 * top-level item in order. On failure d holds the message and line.
 */
box_err sh_parse(const char *text, size_t len, box_arena *a, sh_node **out,
                 sh_diag *d) BOX_WARN_UNUSED;

/* Forgets the warnings sh_parser_diag holds (once printed). */
void sh_parser_warnings_clear(sh_parser *p);

/*
 * The message the shell prints for d: "strands-shell: <msg>", or
 * "strands-shell: line <n>: <msg>" when multiline (input containing a
 * newline). Returns out.
 */
char *sh_diag_format(const sh_diag *d, bool multiline, char *out,
                     size_t outlen);

#endif
