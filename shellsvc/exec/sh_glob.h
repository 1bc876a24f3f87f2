/* SPDX-License-Identifier: Apache-2.0 */
/* The shell's one pattern matcher and pathname expansion (globbing). */
#ifndef SH_GLOB_H
#define SH_GLOB_H

#include <locale.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sh_ctx sh_ctx;
typedef struct sh_argv sh_argv;

/*
 * Patterns are text in which a backslash quotes the next character (what
 * sh_expand_pattern writes: quoted characters arrive escaped). The syntax
 * is bash 5.2's in C.UTF-8: `*`, `?` (one UTF-8 character), `[...]` with
 * `!`/`^` negation, ranges by code point, `]` first, `[:class:]`; a `[`
 * with no closing `]` is literal.
 */
#define SH_GM_PERIOD 1u // a leading '.' matches only an explicit '.'
#define SH_GM_NOCASE 2u // ASCII letters match either case
// bash's extglob groups `?(…)` `*(…)` `+(…)` `@(…)` `!(…)` (shopt -s
// extglob): a pattern that holds one is matched by glibc's fnmatch with
// FNM_EXTMATCH, as [[ == ]] always is.
#define SH_GM_EXTGLOB 4u

/* Loads C.UTF-8's character classes and case mapping, which characters
 * past ASCII are matched with (as bash does in C.UTF-8). Called before a
 * process confines itself (the zygote), so its forks have them; without
 * the locale those characters belong to no class. Idempotent. */
void sh_glob_init(void);
/* That C.UTF-8 locale, (locale_t)0 when it is missing: for a command
 * that works in it as the GNU tools do (sed's regexes; wc's character
 * classes and display widths, through uselocale). */
locale_t sh_glob_locale(void);

/* One UTF-8 character at s (s non-empty): its length in bytes, and in
 * *cp its code point (a byte that starts no valid sequence is one
 * character, given a value no valid character has). */
size_t sh_glob_char(const char *s, uint32_t *cp);
/* c in upper (or lower) case as C.UTF-8 maps it (${x^^}, ${x@L}); c
 * itself when it has no other case or the locale is missing. */
uint32_t sh_glob_case(uint32_t c, bool upper);

/* True when s matches pat in full. Case, ${x#p} and globbing all use it. */
bool sh_glob_match(const char *pat, const char *s, unsigned flags);

/* True when pat holds an unquoted `*`, `?` or a `[` closed by a `]`, or
 * with SH_GM_EXTGLOB in flags an extglob group: the word undergoes
 * pathname expansion (bash's rule). */
bool sh_glob_has_magic(const char *pat, unsigned flags);
/* The SH_GM_EXTGLOB flag when shopt (st_shopt) has extglob on, else 0. */
unsigned sh_glob_ext_flag(unsigned shopt);
/* For case, [[ ]] and ${x/p/r}: the extglob flag, and SH_GM_NOCASE when
 * nocasematch is on. */
unsigned sh_glob_case_flags(unsigned shopt);

/* The `shopt` options globbing reads (sh_state.st_shopt). ORDER SHOPT:
 * sh_bi_shopt.c lists them by name. */
#define SH_SHOPT_DOTGLOB 1u
#define SH_SHOPT_FAILGLOB 2u
#define SH_SHOPT_GLOBSTAR 4u
#define SH_SHOPT_NOCASEGLOB 8u
#define SH_SHOPT_NULLGLOB 16u
#define SH_SHOPT_EXTGLOB 32u // patterns (and the parser: sh_parser_set_extglob)
// case, [[ == != =~ ]] and ${x/p/r} match either case (not ${x#p}, as bash)
#define SH_SHOPT_NOCASEMATCH 64u

/*
 * Pathname expansion of pat (relative to the context's cwd) through the
 * shell's kernel: each directory read is an `fs:read enumerate`, each
 * match whose type matters (a directory to walk through, a trailing
 * `/`, a literal last component) an `fs:read read_metadata` probe. A
 * denied directory or probe drops the matches under it only (box-spec
 * §3.6). Matches are pushed to out sorted in byte order (bash in
 * C.UTF-8; exp marks them as from an expansion), *nmatch says how many. Returns
 * 0, or 125 after a decision fault (reported) or 1 when out of memory
 * (reported).
 */
int sh_glob_expand(sh_ctx *cx, const char *pat, unsigned shopt, bool exp,
                   sh_argv *out, size_t *nmatch);

#endif
