/* SPDX-License-Identifier: Apache-2.0 */
/* GNU-style options for the shell's own commands: getopt_long's rules and
 * messages, so `cut --delim=, -f2 file` and `grep pat file -n` behave as
 * the GNU tools the commands stand in for. */
#ifndef SH_GOPT_H
#define SH_GOPT_H

#include <stdbool.h>

typedef struct sh_ctx sh_ctx;

typedef enum sh_garg {
    SH_GARG_NONE, // --flag
    SH_GARG_REQ,  // -x ARG, -xARG, --name=ARG, --name ARG
    SH_GARG_OPT,  // -xARG or --name=ARG only (sed -i[SUFFIX], --color[=WHEN])
} sh_garg;

/* One option. go_id is the short letter when there is one (a printable
 * ASCII character), else a value from SH_GOPT_LONG_ONLY up; go_long is the
 * long name without "--", or NULL. A table ends with a row of id 0. */
typedef struct sh_gopt {
    int go_id;
    const char *go_long;
    sh_garg go_arg;
} sh_gopt;

#define SH_GOPT_LONG_ONLY 256 // ids of long-only options start here

/* Rows for the digits as short options (ids '0'…'9'), for the tools that
 * give digits in a bundle a meaning or a message of their own (head's and
 * tail's obsolete counts, uniq -N, sort's -POS2). */
#define SH_GOPT_DIGIT_ROWS                                                    \
    {'0', NULL, SH_GARG_NONE}, {'1', NULL, SH_GARG_NONE},                    \
        {'2', NULL, SH_GARG_NONE}, {'3', NULL, SH_GARG_NONE},                \
        {'4', NULL, SH_GARG_NONE}, {'5', NULL, SH_GARG_NONE},                \
        {'6', NULL, SH_GARG_NONE}, {'7', NULL, SH_GARG_NONE},                \
        {'8', NULL, SH_GARG_NONE}, {'9', NULL, SH_GARG_NONE}
/* The same with an optional argument: the obsolete -NUM of fold and fmt,
 * where a digit takes the rest of its word (-12 is 12). */
#define SH_GOPT_DIGIT_ARG_ROWS                                                \
    {'0', NULL, SH_GARG_OPT}, {'1', NULL, SH_GARG_OPT},                      \
        {'2', NULL, SH_GARG_OPT}, {'3', NULL, SH_GARG_OPT},                  \
        {'4', NULL, SH_GARG_OPT}, {'5', NULL, SH_GARG_OPT},                  \
        {'6', NULL, SH_GARG_OPT}, {'7', NULL, SH_GARG_OPT},                  \
        {'8', NULL, SH_GARG_OPT}, {'9', NULL, SH_GARG_OPT}
#define SH_GOPT_NUMBER 255    // -NUM with SH_GOPT_F_NUMBER: arg is NUM

/* What sh_gopt_next returns besides an option id. */
#define SH_GOPT_END (-1)  // options are over: operands in gi_ops
#define SH_GOPT_EXIT (-2) // --help, --version or an error was printed:
                          // return *status

enum {
    SH_GOPT_F_NUMBER = 1u << 0,  // -NUM is an option (head -3, uniq -2)
    SH_GOPT_F_INORDER = 1u << 1, // the first operand ends the options
                                 // (env, xargs, timeout: the rest is a command)
    SH_GOPT_F_NEGNUM = 1u << 2,  // a word "-" then a digit or '.' is an
                                 // operand (seq -1 1); with INORDER it
                                 // ends the options
    SH_GOPT_F_NOTRY = 1u << 3,   // a usage error prints gs_usage and no
                                 // "Try …" line (sed prints its usage)
};

typedef struct sh_gopt_spec {
    const char *gs_cmd;     // as messages name it
    const sh_gopt *gs_opts; // ends with {0}
    unsigned gs_flags;      // SH_GOPT_F_*
    int gs_fail;            // status of a usage error (GNU's: 1, grep 2 …)
    const char *gs_usage;   // a "Usage: …" line printed before "Try …", or
                            // NULL (coreutils print only "Try …")
    const char *gs_help;    // --help text (standard output, status 0)
    const char *gs_try;     // the Try line, when not coreutils' (wget's
                            // "Try `wget --help' for more options.\n")
} sh_gopt_spec;

/* A walk over argv. gi_ops collects the operands in order, wherever they
 * stood among the options (GNU permutes); "--" makes the rest operands. */
typedef struct sh_gopt_iter {
    const sh_gopt_spec *gi_spec;
    sh_ctx *gi_cx;
    int gi_argc;
    char **gi_argv;
    int gi_i;             // next word of argv
    const char *gi_short; // the rest of a bundle of short options
    bool gi_only_ops;     // after "--" (or the first operand, INORDER)
    char **gi_ops;        // borrowed strings; the array is owned
    int gi_nops;
    bool gi_dashdash; // "--" was seen
    int gi_nplain;    // how many of gi_ops came before "--": GNU reads
                      // some of those as obsolete options (sort +POS,
                      // uniq +N), never the ones after it
    bool gi_as_long;  // the option just returned was written --name
} sh_gopt_iter;

/* Starts a walk over argv[1..argc-1]. */
void sh_gopt_init(sh_gopt_iter *it, sh_ctx *cx, const sh_gopt_spec *s,
                  int argc, char **argv);

/*
 * The next option: its id, with *arg its argument (NULL when it has none);
 * SH_GOPT_END once the words are used up (the operands are in gi_ops); or
 * SH_GOPT_EXIT with *status after --help or --version (printed, 0) or a
 * usage error (GNU's message, "Try 'CMD --help' …", gs_fail), or when out
 * of memory (1). Long names may be cut to any unambiguous prefix.
 */
int sh_gopt_next(sh_gopt_iter *it, const char **arg, int *status);

/* Frees gi_ops. */
void sh_gopt_free(sh_gopt_iter *it);

/* A usage error found by the command itself ("missing operand"): prints
 * "CMD: MSG" and the "Try …" line (and gs_usage first, when set); returns
 * gs_fail. */
int sh_gopt_usage_error(sh_gopt_iter *it, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* An option's argument that is no number or size: "CMD: invalid -X
 * argument 'ARG'" naming the option as it was written (shrt or lng), as
 * GNU's xstrtol_fatal does; no Try line. Returns 1. */
int sh_gopt_bad_arg(sh_gopt_iter *it, const char *shrt, const char *lng,
                    const char *arg);

/* What --version prints, for a tool whose short option says the same
 * (file -v); returns 0. */
int sh_gopt_version(sh_gopt_iter *it);

/* The "Try 'CMD --help' …" line alone (gs_usage first, when set), for a
 * usage error of several lines; returns gs_fail. */
int sh_gopt_try(sh_gopt_iter *it);

/*
 * opt's argument arg as GNU's argmatch reads it: the index in names
 * (NULL-ended) of arg, or of the one value (vals, parallel to names) that
 * arg is a prefix of. Else GNU's "invalid argument ‘x’ for ‘--opt’" (or
 * "ambiguous argument"), the valid arguments and the Try line: -1 with
 * *status 1 (argmatch's, whatever the command's usage status).
 */
int sh_gopt_argmatch(sh_gopt_iter *it, const char *opt, const char *arg,
                     const char *const *names, const int *vals, int *status);

/* s as GNU's quote() writes it in a UTF-8 locale: ‘s’, control bytes
 * and backslashes escaped. The caller frees it; NULL when out of memory. */
char *sh_gquote(const char *s);

/* s as GNU's quotef() writes a file name in a message: as it is when a
 * shell would read it back unchanged, else quoted for a shell ('a b',
 * "it's", 'a'$'\n''b'). The caller frees it; NULL when out of memory. */
char *sh_gquotef(const char *s);

/* The same, quoted even when a shell would read it back unchanged
 * (GNU's quoteaf: 'x'). */
char *sh_gquoteaf(const char *s);

#endif
