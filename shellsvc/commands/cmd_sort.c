/* SPDX-License-Identifier: Apache-2.0 */
/* sort [OPTION]... [FILE]...: GNU coreutils 9.1's options and messages
 * (the run itself is cmd_sort_run.c, keys cmd_sort_key.c). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "cmd_sort.h"
#include "sh_gopt.h"
#include "sh_internal.h"

enum {
    SORT_OPT_BATCH = SH_GOPT_LONG_ONLY,
    SORT_OPT_CHECK,
    SORT_OPT_COMPRESS,
    SORT_OPT_DEBUG,
    SORT_OPT_FILES0,
    SORT_OPT_PARALLEL,
    SORT_OPT_RANDOM_SOURCE,
    SORT_OPT_SORT,
};

static const sh_gopt sort_opts[] = {
    {'b', "ignore-leading-blanks", SH_GARG_NONE},
    {'c', NULL, SH_GARG_NONE},
    {'C', NULL, SH_GARG_NONE},
    {'d', "dictionary-order", SH_GARG_NONE},
    {'f', "ignore-case", SH_GARG_NONE},
    {'g', "general-numeric-sort", SH_GARG_NONE},
    {'h', "human-numeric-sort", SH_GARG_NONE},
    {'i', "ignore-nonprinting", SH_GARG_NONE},
    {'k', "key", SH_GARG_REQ},
    {'m', "merge", SH_GARG_NONE},
    {'M', "month-sort", SH_GARG_NONE},
    {'n', "numeric-sort", SH_GARG_NONE},
    {'o', "output", SH_GARG_REQ},
    {'r', "reverse", SH_GARG_NONE},
    {'R', "random-sort", SH_GARG_NONE},
    {'s', "stable", SH_GARG_NONE},
    {'S', "buffer-size", SH_GARG_REQ},
    {'t', "field-separator", SH_GARG_REQ},
    {'T', "temporary-directory", SH_GARG_REQ},
    {'u', "unique", SH_GARG_NONE},
    {'V', "version-sort", SH_GARG_NONE},
    {'y', NULL, SH_GARG_REQ}, // an old Solaris option, ignored as by GNU
    {'z', "zero-terminated", SH_GARG_NONE},
    {SORT_OPT_BATCH, "batch-size", SH_GARG_REQ},
    {SORT_OPT_CHECK, "check", SH_GARG_OPT},
    {SORT_OPT_COMPRESS, "compress-program", SH_GARG_REQ},
    {SORT_OPT_DEBUG, "debug", SH_GARG_NONE},
    {SORT_OPT_FILES0, "files0-from", SH_GARG_REQ},
    {SORT_OPT_PARALLEL, "parallel", SH_GARG_REQ},
    {SORT_OPT_RANDOM_SOURCE, "random-source", SH_GARG_REQ},
    {SORT_OPT_SORT, "sort", SH_GARG_REQ},
    // The obsolete -POS2 after +POS1 starts with a digit; else an error.
    SH_GOPT_DIGIT_ROWS,
    {0},
};

static const sh_gopt_spec sort_spec = {
    .gs_cmd = "sort",
    .gs_opts = sort_opts,
    .gs_fail = SORT_FAIL,
    .gs_help =
        "Usage: sort [OPTION]... [FILE]...\n"
        "  or:  sort [OPTION]... --files0-from=F\n"
        "Write sorted concatenation of all FILE(s) to standard output.\n"
        "\n"
        "With no FILE, or when FILE is -, read standard input.\n"
        "\n"
        "Mandatory arguments to long options are mandatory for short "
        "options too.\n"
        "Ordering options:\n"
        "\n"
        "  -b, --ignore-leading-blanks  ignore leading blanks\n"
        "  -d, --dictionary-order      consider only blanks and alphanumeric "
        "characters\n"
        "  -f, --ignore-case           fold lower case to upper case "
        "characters\n"
        "  -g, --general-numeric-sort  compare according to general "
        "numerical value\n"
        "  -i, --ignore-nonprinting    consider only printable characters\n"
        "  -M, --month-sort            compare (unknown) < 'JAN' < ... < "
        "'DEC'\n"
        "  -h, --human-numeric-sort    compare human readable numbers (e.g., "
        "2K 1G)\n"
        "  -n, --numeric-sort          compare according to string numerical "
        "value\n"
        "  -R, --random-sort           shuffle, but group identical keys\n"
        "      --random-source=FILE    get random bytes from FILE (ignored "
        "here)\n"
        "  -r, --reverse               reverse the result of comparisons\n"
        "      --sort=WORD             sort according to WORD:\n"
        "                                general-numeric -g, human-numeric "
        "-h, month -M,\n"
        "                                numeric -n, random -R, version -V\n"
        "  -V, --version-sort          natural sort of (version) numbers "
        "within text\n"
        "\n"
        "Other options:\n"
        "\n"
        "      --batch-size=NMERGE   accepted; everything is merged at once\n"
        "  -c, --check, --check=diagnose-first  check for sorted input; do "
        "not sort\n"
        "  -C, --check=quiet, --check=silent  like -c, but do not report "
        "first bad line\n"
        "      --compress-program=PROG  accepted; no temporaries are made\n"
        "      --debug               accepted; keys are not annotated here\n"
        "      --files0-from=F       read input from the files specified by\n"
        "                            NUL-terminated names in file F;\n"
        "                            If F is - then read names from standard "
        "input\n"
        "  -k, --key=KEYDEF          sort via a key; KEYDEF gives location "
        "and type\n"
        "  -m, --merge               merge already sorted files; do not "
        "sort\n"
        "  -o, --output=FILE         write result to FILE instead of "
        "standard output\n"
        "  -s, --stable              stabilize sort by disabling last-resort "
        "comparison\n"
        "  -S, --buffer-size=SIZE    accepted; all input is held in memory\n"
        "  -t, --field-separator=SEP  use SEP instead of non-blank to blank "
        "transition\n"
        "  -T, --temporary-directory=DIR  accepted; no temporaries are made\n"
        "      --parallel=N          accepted; one thread sorts\n"
        "  -u, --unique              with -c, check for strict ordering;\n"
        "                              without -c, output only the first of "
        "an equal run\n"
        "  -z, --zero-terminated     line delimiter is NUL, not newline\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n"
        "\n"
        "KEYDEF is F[.C][OPTS][,F[.C][OPTS]] for start and stop position, "
        "where F is a\n"
        "field number and C a character position in the field; both are "
        "origin 1, and\n"
        "the stop position defaults to the line's end.  If neither -t nor "
        "-b is in\n"
        "effect, characters in a field are counted from the beginning of "
        "the preceding\n"
        "whitespace.  OPTS is one or more single-letter ordering options "
        "[bdfgiMhnRrV],\n"
        "which override global ordering options for that key.  If no key "
        "is given, use\n"
        "the entire line as the key.\n"
        "\n"
        "SIZE may be followed by the following multiplicative suffixes:\n"
        "% 1% of memory, b 1, K 1024 (default), and so on for M, G, T, P, "
        "E, Z, Y.\n"
        "\n"
        "Text is compared byte by byte (the C.UTF-8 order).\n",
};

/* What the walk gathered besides the conf. */
typedef struct sort_args {
    unsigned sa_flags; // -b -d … -V: the default for keys without letters
    int sa_tab;        // -t: -1 until given
    const char *sa_files0;
    const char *sa_random_source;
    bool sa_debug;
    const char *sa_plus; // the last +POS1 read as a key, and its index
    int sa_plus_at;      // in gi_ops: a -POS2 right after it ends it
} sort_args;

/* "options '-XY' are incompatible": status 2. */
static int
sort_incompatible(sh_ctx *cx, const char *letters)
{
    return sh_cmd_err(cx, "sort", SORT_FAIL, "options '-%s' are incompatible",
                      letters);
}

static box_err
sort_add_key(sort_conf *c, const sort_key *k)
{
    sort_key *nk = box_realloc(c->sc_keys, (c->sc_nkeys + 1) * sizeof *nk);
    if (nk == NULL)
        return BOX_ENOMEM;
    nk[c->sc_nkeys++] = *k;
    c->sc_keys = nk;
    return BOX_OK;
}

/* The global ordering letters; also --sort=WORD's. */
static unsigned
sort_letter_flag(int id)
{
    switch (id) {
    case 'b':
        return SK_BLANK_START | SK_BLANK_END;
    case 'd':
        return SK_DICT;
    case 'f':
        return SK_FOLD;
    case 'g':
        return SK_GENERAL;
    case 'h':
        return SK_HUMAN;
    case 'i':
        return SK_NONPRINT;
    case 'M':
        return SK_MONTH;
    case 'n':
        return SK_NUMERIC;
    case 'r':
        return SK_REVERSE;
    case 'R':
        return SK_RANDOM;
    case 'V':
        return SK_VERSION;
    default:
        return 0;
    }
}

/* -c, -C and --check[=WORD]. */
static int
sort_check_arg(sh_gopt_iter *it, sort_conf *c, int id, const char *arg, int *st)
{
    static const char *const names[] = {"quiet", "silent", "diagnose-first",
                                        NULL};
    static const int vals[] = {'C', 'C', 'c'};
    int want = id;
    if (id == SORT_OPT_CHECK) {
        int i = arg != NULL
                    ? sh_gopt_argmatch(it, "--check", arg, names, vals, st)
                    : 2;
        if (i < 0)
            return -1;
        want = vals[i];
    }
    if (c->sc_check != 0 && c->sc_check != want) {
        *st = sort_incompatible(it->gi_cx, "cC");
        return -1;
    }
    c->sc_check = want;
    return 0;
}

/*
 * Operands new since the last look (*seen of gi_ops) that GNU reads as
 * the obsolete +POS1 key: each becomes a key in its place among the
 * options; what is not a valid +POS1 stays a file.
 */
static box_err
sort_obsolete_keys(sh_gopt_iter *it, sort_conf *c, sort_args *a, int *seen)
{
    for (int i = *seen; i < it->gi_nplain; i++) {
        sort_key k;
        char *w = it->gi_ops[i];
        if (w[0] != '+' || !sort_key_parse_obsolete(w, &k))
            continue;
        if (sort_add_key(c, &k) != BOX_OK)
            return BOX_ENOMEM;
        it->gi_ops[i] = NULL; // a key, no file
        a->sa_plus = w;
        a->sa_plus_at = i;
    }
    *seen = it->gi_nops;
    return BOX_OK;
}

/*
 * A digit option: the obsolete -POS2 when its word starts with it and
 * follows a +POS1 key (the whole word is then POS2, letters and all);
 * anywhere else GNU's invalid option.
 */
static int
sort_obsolete_end(sh_gopt_iter *it, sort_conf *c, const sort_args *a, int id,
                  int *st)
{
    const char *word = it->gi_argv[it->gi_i - 1];
    bool pos2 = word[0] == '-' && word[1] == id && it->gi_i >= 3 &&
                a->sa_plus != NULL && it->gi_argv[it->gi_i - 2] == a->sa_plus &&
                a->sa_plus_at == it->gi_nops - 1 && c->sc_nkeys > 0;
    it->gi_short = NULL; // the rest of the word is POS2's, or an error's
    if (!pos2) {
        *st = sh_gopt_usage_error(it, "invalid option -- '%c'", id);
        return -1;
    }
    char err[512];
    if (!sort_key_parse_end(word, &c->sc_keys[c->sc_nkeys - 1], err,
                            sizeof err)) {
        *st = sh_cmd_err(it->gi_cx, "sort", SORT_FAIL, "%s", err);
        return -1;
    }
    return 0;
}

/* One option into c or a; 0, or the status to end with (*st). */
static int
sort_option(sh_gopt_iter *it, sort_conf *c, sort_args *a, int id,
            const char *arg, int *st)
{
    static const char *const sorts[] = {
        "general-numeric", "human-numeric", "month", "numeric",
        "random",          "version",       NULL};
    static const int sort_ids[] = {'g', 'h', 'M', 'n', 'R', 'V'};
    sh_ctx *cx = it->gi_cx;
    char err[512];
    sort_key k;
    switch (id) {
    case 'c':
    case 'C':
    case SORT_OPT_CHECK:
        return sort_check_arg(it, c, id, arg, st);
    case 'k':
        if (!sort_key_parse(arg, &k, err, sizeof err)) {
            *st = sh_cmd_err(cx, "sort", SORT_FAIL, "%s", err);
            return -1;
        }
        if (sort_add_key(c, &k) != BOX_OK) {
            *st = sh_cmd_err(cx, "sort", SORT_FAIL, "memory exhausted");
            return -1;
        }
        return 0;
    case 'm':
        c->sc_merge = true;
        return 0;
    case 'o':
        if (c->sc_out != NULL && strcmp(c->sc_out, arg) != 0) {
            *st = sh_cmd_err(cx, "sort", SORT_FAIL,
                             "multiple output files specified");
            return -1;
        }
        c->sc_out = arg;
        return 0;
    case 's':
        c->sc_order.so_keys_only = true;
        return 0;
    case 'u':
        c->sc_unique = true;
        return 0;
    case 'z':
        c->sc_eol = '\0';
        return 0;
    case 't':
        *st = sort_tab_arg(cx, arg, &a->sa_tab);
        return *st != 0 ? -1 : 0;
    case 'S':
        *st = sort_size_arg(cx, arg);
        return *st != 0 ? -1 : 0;
    case SORT_OPT_PARALLEL:
    case SORT_OPT_BATCH:
        *st = sort_count_arg(cx, id == SORT_OPT_PARALLEL, arg);
        return *st != 0 ? -1 : 0;
    case SORT_OPT_FILES0:
        a->sa_files0 = arg;
        return 0;
    case SORT_OPT_DEBUG:
        a->sa_debug = true;
        return 0;
    case SORT_OPT_RANDOM_SOURCE:
        a->sa_random_source = arg;
        return 0;
    case SORT_OPT_SORT: {
        int i = sh_gopt_argmatch(it, "--sort", arg, sorts, sort_ids, st);
        if (i < 0)
            return -1;
        a->sa_flags |= sort_letter_flag(sort_ids[i]);
        return 0;
    }
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7':
    case '8':
    case '9':
        return sort_obsolete_end(it, c, a, id, st);
    default: // -T, -y, --compress-program: nothing to do
        a->sa_flags |= sort_letter_flag(id);
        return 0;
    }
}

/*
 * After the walk, as GNU: keys without letters take the global ones
 * (and -r) and, with no key but some global ordering, that ordering
 * becomes the one key over the whole line; then two orderings on one
 * key are an error.
 */
static int
sort_settle_keys(sh_ctx *cx, sort_conf *c, const sort_args *a)
{
    unsigned g = a->sa_flags;
    for (size_t i = 0; i < c->sc_nkeys; i++)
        if (c->sc_keys[i].sk_flags == 0)
            c->sc_keys[i].sk_flags = g;
    if (c->sc_nkeys == 0 && (g & ~(unsigned)SK_REVERSE) != 0) {
        sort_key whole = {SORT_LINE_EDGE, 0, SORT_LINE_EDGE, 0, g};
        if (sort_add_key(c, &whole) != BOX_OK)
            return sh_cmd_err(cx, "sort", SORT_FAIL, "memory exhausted");
    }
    for (size_t i = 0; i < c->sc_nkeys; i++) {
        if (!sort_key_conflict(c->sc_keys[i].sk_flags))
            continue;
        char letters[16];
        sort_key_letters(c->sc_keys[i].sk_flags, letters);
        return sort_incompatible(cx, letters);
    }
    c->sc_order.so_keys = c->sc_keys;
    c->sc_order.so_nkeys = c->sc_nkeys;
    c->sc_order.so_reverse = (g & SK_REVERSE) != 0;
    c->sc_order.so_tab = a->sa_tab;
    if (c->sc_unique)
        c->sc_order.so_keys_only = true;
    return 0;
}

/* The operands that are files, in order (keys taken out). */
static box_err
sort_take_files(sh_gopt_iter *it, sort_conf *c)
{
    c->sc_files = box_calloc((size_t)it->gi_nops + 1, sizeof(char *));
    if (c->sc_files == NULL)
        return BOX_ENOMEM;
    for (int i = 0; i < it->gi_nops; i++)
        if (it->gi_ops[i] != NULL)
            c->sc_files[c->sc_nfiles++] = it->gi_ops[i];
    return BOX_OK;
}

/* The checks GNU makes once the options are read, in its order. */
static int
sort_check_usage(sh_gopt_iter *it, sort_conf *c, const sort_args *a)
{
    if (a->sa_files0 != NULL && c->sc_nfiles > 0) {
        char q[512];
        sh_cmd_quote_name(q, sizeof q, c->sc_files[0]);
        sh_cmd_err(it->gi_cx, "sort", SORT_FAIL, "extra operand %s", q);
        (void)sh_puts(it->gi_cx, 2,
                      "file operands cannot be combined with "
                      "--files0-from\n");
        return sh_gopt_try(it);
    }
    int st = sort_settle_keys(it->gi_cx, c, a);
    if (st != 0)
        return st;
    bool random = false;
    for (size_t i = 0; i < c->sc_nkeys; i++)
        random |= (c->sc_keys[i].sk_flags & SK_RANDOM) != 0;
    if (random && (st = sort_seed(it->gi_cx, a->sa_random_source,
                                  &c->sc_order.so_seed)) != 0)
        return st;
    if (c->sc_check != 0 && c->sc_nfiles > 1) {
        char q[512];
        sh_cmd_quote_name(q, sizeof q, c->sc_files[1]);
        return sh_cmd_err(it->gi_cx, "sort", SORT_FAIL,
                          "extra operand %s not allowed with -%c", q,
                          c->sc_check);
    }
    if (c->sc_check != 0 && c->sc_out != NULL) {
        char letters[3] = {(char)c->sc_check, 'o', '\0'};
        return sort_incompatible(it->gi_cx, letters);
    }
    // GNU underlines each line's keys; here the order is the same, and
    // the caller is told why the lines come bare.
    if (a->sa_debug)
        sh_cmd_err(it->gi_cx, "sort", 0,
                   "--debug: key annotations are not supported here");
    return 0;
}

int
sh_cmd_sort(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &sort_spec, argc, argv);
    sort_conf c = {.sc_eol = '\n', .sc_order = {.so_tab = -1}};
    sort_args a = {.sa_tab = -1};
    const char *arg;
    int id, st = 0, seen = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) != SH_GOPT_EXIT) {
        if (sort_obsolete_keys(&it, &c, &a, &seen) != BOX_OK) {
            st = sh_cmd_err(cx, "sort", SORT_FAIL, "memory exhausted");
            goto out;
        }
        if (id == SH_GOPT_END)
            break;
        if (sort_option(&it, &c, &a, id, arg, &st) != 0)
            goto out;
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if (sort_take_files(&it, &c) != BOX_OK) {
        st = sh_cmd_err(cx, "sort", SORT_FAIL, "memory exhausted");
        goto out;
    }
    if ((st = sort_check_usage(&it, &c, &a)) != 0)
        goto out;
    c.sc_files0 = a.sa_files0;
    st = sort_run(cx, &c);
out:
    box_free(c.sc_files);
    box_free(c.sc_keys);
    sh_gopt_free(&it);
    return st;
}
