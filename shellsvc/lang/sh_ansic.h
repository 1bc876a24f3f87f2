/* SPDX-License-Identifier: Apache-2.0 */
/* bash's backslash escapes of $'…' (also ${x@E}), and the quoting of
 * ${x@Q} that reads back through them. */
#ifndef SH_ANSIC_H
#define SH_ANSIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Decodes the escapes of s[0..n): \a \b \e \E \f \n \r \t \v \\ \' \"
 * \? \NNN (octal, 1-3 digits) \xHH (1-2) \uHHHH (1-4) \UHHHHHHHH (1-8,
 * written as UTF-8) \cX (control X); any other `\c` stays as written.
 * out needs n + 1 bytes (no escape grows). A NUL byte ends the text,
 * as in bash. Returns the length written (out is NUL-terminated).
 */
size_t sh_ansic_decode(const char *s, size_t n, char *out);

/*
 * ${x@Q}: v quoted so the shell reads it back: 'v' with each `'` as
 * '\'' , or $'…' with escapes when v holds a control character; '' for
 * an empty v. Returns a box_alloc'd string, NULL when out of memory.
 */
char *sh_ansic_quote(const char *v);

#endif
