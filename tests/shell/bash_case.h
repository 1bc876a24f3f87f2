/* SPDX-License-Identifier: Apache-2.0 */
/* Test-only: the bash differential's case files and known-gaps list. */
#ifndef BASH_CASE_H
#define BASH_CASE_H

#include <stdbool.h>
#include <stddef.h>

#include "box_err.h"

/*
 * A case is a script run by both real bash and the box's shell in a fresh
 * directory (tests/shell/README.md has the file format). Nothing expected
 * is stored: bash is the oracle. Only a case whose deviation the spec
 * makes on purpose says what the box must print (bc_box_*).
 */

typedef struct bd_text {
    char *t_data; // box_alloc'd, NUL-terminated, may hold NUL bytes
    size_t t_len;
} bd_text;

typedef struct bd_file {
    char *bf_path; // relative, no `..`
    bd_text bf_body;
    bool bf_exec; // %file -x: mode 0755 (a script to run by its path)
} bd_file;

typedef struct bd_case {
    char *bc_name;
    char *bc_origin; // "file:line" of its %case, for messages
    bd_text bc_script;
    bd_file *bc_files;
    size_t bc_nfiles;
    bool bc_has_stdin;
    bd_text bc_stdin;
    bool bc_compare_files; // %compare-files: the tree left must agree too
    // What the box must do where the spec differs from bash on purpose.
    bool bc_has_box_out, bc_has_box_err, bc_has_box_status;
    bd_text bc_box_out, bc_box_err;
    int bc_box_status;
} bd_case;

typedef struct bd_cases {
    bd_case *cs_v;
    size_t cs_n, cs_cap;
} bd_cases;

/*
 * Appends the cases of one file's text (origin names it in messages).
 * On BOX_EPARSE *err is "origin:line: what is wrong" (caller frees);
 * cases already parsed stay in cs. A name already in cs is an error.
 */
box_err bd_cases_parse(bd_cases *cs, const char *origin, const char *text,
                       size_t len, char **err) BOX_WARN_UNUSED;
const bd_case *bd_cases_find(const bd_cases *cs, const char *name);
void bd_cases_free(bd_cases *cs);

/* One line of tests/shell/known-gaps: "NAME REASON". */
typedef struct bd_gap {
    char *bg_name;
    char *bg_reason;   // "issue-19 arrays: ..." or "spec §2: ..."
    char *bg_category; // the reason up to its first ':'
    bool bg_spec;      // the spec differs on purpose (reason "spec §…")
    unsigned bg_line;
} bd_gap;

typedef struct bd_gaps {
    bd_gap *gs_v;
    size_t gs_n, gs_cap;
} bd_gaps;

/* Blank lines and lines starting '#' are skipped. BOX_EPARSE with *err
 * "origin:line: …" for a line without a reason, a reason that is neither
 * "issue-19 …:" nor "spec §…:", or a name listed twice. */
box_err bd_gaps_parse(bd_gaps *gs, const char *origin, const char *text,
                      size_t len, char **err) BOX_WARN_UNUSED;
const bd_gap *bd_gaps_find(const bd_gaps *gs, const char *name);
void bd_gaps_free(bd_gaps *gs);

#endif
