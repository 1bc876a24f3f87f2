/* SPDX-License-Identifier: Apache-2.0 */
/* sort's parts: keys (KEYDEF), where they lie in a line and how two lines
 * compare, as GNU coreutils 9.1 in C.UTF-8 (text in byte order). */
#ifndef CMD_SORT_H
#define CMD_SORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sh_ctx sh_ctx;

#define SORT_FAIL 2 // GNU sort's status for its errors (argmatch's: 1)

/* A key's ordering options: KEYDEF letters, or the global -b -d … -V. */
enum {
    SK_BLANK_START = 1u << 0, // b on POS1 (global -b: both)
    SK_BLANK_END = 1u << 1,   // b on POS2
    SK_DICT = 1u << 2,        // d: only blanks and alphanumerics count
    SK_FOLD = 1u << 3,        // f: lower case as upper case
    SK_GENERAL = 1u << 4,     // g
    SK_HUMAN = 1u << 5,       // h
    SK_NONPRINT = 1u << 6,    // i: only printable bytes count (d wins)
    SK_MONTH = 1u << 7,       // M
    SK_NUMERIC = 1u << 8,     // n
    SK_RANDOM = 1u << 9,      // R
    SK_REVERSE = 1u << 10,    // r
    SK_VERSION = 1u << 11,    // V
};

#define SORT_LINE_EDGE SIZE_MAX // sk_sword / sk_eword: the line's own edge

/* One key, 0-based: skip sk_sword fields then sk_schar bytes to its
 * start; its end is field sk_eword's end (sk_echar 0) or sk_echar bytes
 * into that field. */
typedef struct sort_key {
    size_t sk_sword, sk_schar;
    size_t sk_eword, sk_echar;
    unsigned sk_flags; // SK_*
} sort_key;

/* A line without its delimiter; the text is borrowed. sl_key is where
 * the first key lies, found once (sort_key_locate) rather than at every
 * comparison. */
typedef struct sort_line {
    const char *sl_text;
    size_t sl_len;
    const char *sl_key;
    size_t sl_keylen;
} sort_line;

/* Everything a comparison needs. The scratch buffers hold a key copied
 * for strtold or after -d/-i/-f: each is so_scratch_len bytes, more than
 * the longest line, so comparing never allocates. */
typedef struct sort_order {
    const sort_key *so_keys;
    size_t so_nkeys;
    int so_tab;          // the -t byte, or -1: blank to non-blank transitions
    bool so_reverse;     // global -r: also reverses the last resort
    bool so_keys_only;   // -s or -u: no last-resort whole-line comparison
    uint64_t so_seed;    // -R's hash key for this run
    char *so_scratch[2]; // borrowed
    size_t so_scratch_len;
} sort_order;

/* What the options asked for: the run's side (cmd_sort_run.c). */
typedef struct sort_conf {
    sort_order sc_order;
    sort_key *sc_keys; // owned; so_keys points here
    size_t sc_nkeys;
    char sc_eol;        // '\n', or '\0' with -z
    int sc_check;       // 0, or 'c' / 'C' (-c reports the disorder)
    bool sc_merge;      // -m: the inputs are sorted runs
    bool sc_unique;     // -u
    const char *sc_out; // -o FILE, or NULL
    char **sc_files;    // borrowed names (stdin: "-"); owned array
    size_t sc_nfiles;
    const char *sc_files0; // --files0-from=F: the names are in F
} sort_conf;

/* Reads the inputs, then sorts and writes them, or checks them (-c):
 * the command's status. */
int sort_run(sh_ctx *cx, sort_conf *c);
/* -c / -C over input name (cmd_sort_check.c): 0 in order, 1 at the first
 * line out of order (reported with -c), else the failure's status. */
int sort_check(sh_ctx *cx, sort_conf *c, const char *name);

/* Option arguments (cmd_sort_args.c): 0, or the status after GNU's
 * message. */
int sort_size_arg(sh_ctx *cx, const char *arg);                 // -S SIZE
int sort_count_arg(sh_ctx *cx, bool parallel, const char *arg); // or batch
int sort_tab_arg(sh_ctx *cx, const char *arg, int *tab);        // -t SEP
/* -R's hash key: fresh, or from --random-source=FILE (source). */
int sort_seed(sh_ctx *cx, const char *source, uint64_t *seed);

/*
 * Parses KEYDEF (F[.C][OPTS][,F[.C][OPTS]]) into *k. On a bad spec false,
 * with GNU's message (without "sort: ") in err: "field number is zero:
 * invalid field specification ‘0’" and the like.
 */
bool sort_key_parse(const char *spec, sort_key *k, char *err, size_t errsz);
/* The obsolete +POS1 (0-based fields): false when pos1 is no valid
 * +POS1 (GNU then reads it as a file). */
bool sort_key_parse_obsolete(const char *pos1, sort_key *k);
/* Its -POS2, the end of k: false with GNU's message in err when bad. */
bool sort_key_parse_end(const char *pos2, sort_key *k, char *err, size_t errsz);
/* The key letters in GNU's order for "options '-…' are incompatible";
 * buf holds at least 16 bytes. */
void sort_key_letters(unsigned flags, char *buf);
/* Whether flags ask for two orderings at once (-n with -g, -R with -M …). */
bool sort_key_conflict(unsigned flags);

/* Sets l's sl_key and sl_keylen (when there is a key). */
void sort_key_locate(const sort_order *o, sort_line *l);

/* <0, 0 or >0: a against b on every key, then (unless so_keys_only) on
 * the whole line; a key's or the global reverse applied. */
int sort_compare(const sort_order *o, const sort_line *a, const sort_line *b);

/* The numeric orderings, each over [p, p+n) (cmd_sort_num.c). */
int sort_cmp_numeric(const char *a, size_t an, const char *b, size_t bn);
int sort_cmp_human(const char *a, size_t an, const char *b, size_t bn);
int sort_cmp_month(const char *a, size_t an, const char *b, size_t bn);
/* a and b NUL-terminated (strtold reads them). */
int sort_cmp_general(const char *a, const char *b);
/* Version order as GNU's filevercmp: digit runs by value, a file suffix
 * (.tar.gz) weighed last, ~ before everything, "." and ".." first. */
int sort_cmp_version(const char *a, size_t an, const char *b, size_t bn);

#endif
