/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jq: the real jq language through Debian's libjq 1.6, with jq 1.6's
 * command line, messages and exit statuses. Its files are read through
 * the shell's kernel (cmd_jq_io.c), never by libjq; the program is
 * wrapped so that nothing in it reaches past the kernel or the shell's
 * environment (cmd_jq_prog.c); a watchdog stops it with the call
 * (cmd_jq_dog.c).
 *
 * jq does not parse its options with getopt, so neither does this file:
 * jq 1.6 takes short letters anywhere in a word ("-nr"), long names only
 * whole (no "=" form, no abbreviation), and its own messages.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "box_status.h"
#include "cmd_jq.h"

#define JQ_USAGE_HEAD                                                          \
    "Usage:\tjq [options] <jq filter> [file...]\n"                             \
    "\tjq [options] --args <jq filter> [strings...]\n"                         \
    "\tjq [options] --jsonargs <jq filter> [JSON_TEXTS...]\n\n"                \
    "jq is a tool for processing JSON inputs, applying the given filter to\n"  \
    "its JSON text inputs and producing the filter's results as JSON on\n"     \
    "standard output.\n\n"                                                     \
    "The simplest filter is ., which copies jq's input to its output\n"        \
    "unmodified (except for formatting, but note that IEEE754 is used\n"       \
    "for number representation internally, with all that that implies).\n\n"   \
    "For more advanced filters see the jq(1) manpage (\"man jq\")\n"           \
    "and/or https://stedolan.github.io/jq\n\n"                                 \
    "Example:\n\n\t$ echo '{\"foo\": 0}' | jq .\n"                             \
    "\t{\n\t\t\"foo\": 0\n\t}\n\n"

static const char jq_help[] =
    "jq - commandline JSON processor [version 1.6]\n\n" JQ_USAGE_HEAD
    "Some of the options include:\n"
    "  -c               compact instead of pretty-printed output;\n"
    "  -n               use `null` as the single input value;\n"
    "  -e               set the exit status code based on the output;\n"
    "  -s               read (slurp) all inputs into an array; apply filter "
    "to it;\n"
    "  -r               output raw strings, not JSON texts;\n"
    "  -R               read raw strings, not JSON texts;\n"
    "  -C               colorize JSON;\n"
    "  -M               monochrome (don't colorize JSON);\n"
    "  -S               sort keys of objects on output;\n"
    "  --tab            use tabs for indentation;\n"
    "  --arg a v        set variable $a to value <v>;\n"
    "  --argjson a v    set variable $a to JSON value <v>;\n"
    "  --slurpfile a f  set variable $a to an array of JSON texts read from "
    "<f>;\n"
    "  --rawfile a f    set variable $a to a string consisting of the "
    "contents of <f>;\n"
    "  --args           remaining arguments are string arguments, not "
    "files;\n"
    "  --jsonargs       remaining arguments are JSON arguments, not files;\n"
    "  --               terminates argument processing;\n\n"
    "Named arguments are also available as $ARGS.named[], while\n"
    "positional arguments are available as $ARGS.positional[].\n\n"
    "See the manpage for more options.\n";

static const char jq_short_usage[] =
    "jq - commandline JSON processor [version 1.6]\n\n" JQ_USAGE_HEAD
    "For a listing of options, use jq --help.\n";

/* The letters jq 1.6 takes in a bundle, in the order it tests them, and
 * the long names they share a row with. */
typedef struct jq_flag {
    char jf_short; // 0: long only
    const char *jf_long;
    unsigned jf_set;   // JQ_* bits to set
    int jf_dump_clear; // dump flags to clear
} jq_flag;

static const jq_flag jq_flags[] = {
    {'s', "slurp", JQ_SLURP, 0},
    {'r', "raw-output", JQ_RAW_OUTPUT, 0},
    {'c', "compact-output", 0, JV_PRINT_TAB | JV_PRINT_PRETTY},
    {'C', "color-output", JQ_COLOR, 0},
    {'M', "monochrome-output", JQ_NO_COLOR, 0},
    {'a', "ascii-output", JQ_ASCII, 0},
    {0, "unbuffered", JQ_UNBUFFERED, 0},
    {'S', "sort-keys", JQ_SORTED, 0},
    {'R', "raw-input", JQ_RAW_INPUT, 0},
    {'n', "null-input", JQ_NULL_INPUT, 0},
    {'f', "from-file", JQ_FROM_FILE, 0},
    {'j', "join-output", JQ_RAW_OUTPUT | JQ_RAW_NO_LF, 0},
    {'e', "exit-status", JQ_EXIT_STATUS, 0},
};

/* What the command line said. */
typedef struct jq_cli {
    unsigned jc_options;
    int jc_dumpopts;
    int jc_parser_flags;
    const char *jc_program;
    char **jc_files; // borrowed words of argv
    int jc_nfiles;
    jv jc_named;      // --arg and friends
    jv jc_positional; // --args / --jsonargs
    bool jc_strings, jc_json, jc_done;
} jq_cli;

/* jq 1.6's die(): the hint, status 2. */
static int
jq_die(sh_ctx *cx)
{
    sh_errf(cx, "Use jq --help for help with command-line options,");
    sh_errf(cx, "or see the jq manpage, or online docs  at "
                "https://stedolan.github.io/jq");
    return 2;
}

/* A word that is neither an option nor "--": the program, then files or
 * --args/--jsonargs values. */
static int
cli_operand(sh_ctx *cx, jq_cli *c, char *w, bool any)
{
    if (!any && c->jc_program == NULL) {
        c->jc_program = w;
        return 0;
    }
    if (c->jc_strings) {
        c->jc_positional = jv_array_append(c->jc_positional, jv_string(w));
    } else if (c->jc_json) {
        jv v = jv_parse(w);
        if (!jv_is_valid(v)) {
            // jq 1.6 keeps the invalid value: $ARGS then fails to build.
            jv_free(v);
            sh_errf(cx, "jq: invalid JSON text passed to --jsonargs");
            return jq_die(cx);
        }
        c->jc_positional = jv_array_append(c->jc_positional, v);
    } else {
        c->jc_files[c->jc_nfiles++] = w;
    }
    return 0;
}

/* --slurpfile, --argfile, --rawfile NAME FILE through the kernel. */
static int
cli_file_arg(sh_cmd_run *r, jq_cli *c, const char *which, const char *name,
             const char *path)
{
    if (jv_object_has(jv_copy(c->jc_named), jv_string(name)))
        return 0;
    char *what = box_asprintf("Bad JSON in --%s %s %s: ", which, name, path);
    if (what == NULL)
        return sh_cmd_err(r->cr_cx, "jq", 2, "error: out of memory");
    char *text = NULL;
    size_t len = 0;
    int st = jq_read_file(r, what, path, &text, &len);
    if (st != 0)
        goto out;
    jv data;
    if (strcmp(which, "rawfile") == 0) {
        data = jv_string_sized(text, (int)len);
    } else {
        // jv_load_file: every JSON text of the file, in an array.
        data = jv_array();
        jv_parser *p = jv_parser_new(0);
        jv_parser_set_buf(p, text, (int)len, 0);
        jv v;
        while (jv_is_valid(v = jv_parser_next(p)))
            data = jv_array_append(data, v);
        if (jv_invalid_has_msg(jv_copy(v))) {
            jv_free(data);
            data = v;
        } else {
            jv_free(v);
        }
        jv_parser_free(p);
    }
    if (!jv_is_valid(data)) {
        jv msg = jv_invalid_get_msg(data);
        st = sh_cmd_err(r->cr_cx, "jq", 2, "%s%s", what, jv_string_value(msg));
        jv_free(msg);
        goto out;
    }
    if (strcmp(which, "argfile") == 0 && jv_get_kind(data) == JV_KIND_ARRAY &&
        jv_array_length(jv_copy(data)) == 1)
        data = jv_array_get(data, 0);
    c->jc_named = jv_object_set(c->jc_named, jv_string(name), data);
out:
    box_free(what);
    box_free(text);
    return st;
}

/* atoi's reading of --indent's word. */
static int
cli_atoi(const char *s)
{
    errno = 0;
    long v = strtol(s, NULL, 10);
    if (errno != 0 || v > INT_MAX || v < INT_MIN)
        return v > 0 ? INT_MAX : INT_MIN;
    return (int)v;
}

/* Long options that are not flags: *i moves past their words. -1 when
 * the word is none of them, else 0 or the status to end with. */
static int
cli_long(sh_cmd_run *r, jq_cli *c, int argc, char **argv, int *i)
{
    sh_ctx *cx = r->cr_cx;
    const char *w = argv[*i] + 2;
    if (strcmp(w, "tab") == 0) {
        c->jc_dumpopts &= ~JV_PRINT_INDENT_FLAGS(7);
        c->jc_dumpopts |= JV_PRINT_TAB | JV_PRINT_PRETTY;
    } else if (strcmp(w, "indent") == 0) {
        if (*i >= argc - 1) {
            sh_errf(cx, "jq: --indent takes one parameter");
            return jq_die(cx);
        }
        c->jc_dumpopts &= ~(JV_PRINT_TAB | JV_PRINT_INDENT_FLAGS(7));
        int n = cli_atoi(argv[*i + 1]);
        if (n < -1 || n > 7) {
            sh_errf(cx, "jq: --indent takes a number between -1 and 7");
            return jq_die(cx);
        }
        c->jc_dumpopts |= JV_PRINT_INDENT_FLAGS(n);
        (*i)++;
    } else if (strcmp(w, "seq") == 0) {
        c->jc_options |= JQ_SEQ;
    } else if (strcmp(w, "stream") == 0) {
        c->jc_parser_flags |= JV_PARSE_STREAMING;
    } else if (strcmp(w, "stream-errors") == 0) {
        c->jc_parser_flags |= JV_PARSE_STREAMING | JV_PARSE_STREAM_ERRORS;
    } else if (strcmp(w, "args") == 0) {
        c->jc_strings = true;
        c->jc_json = false;
    } else if (strcmp(w, "jsonargs") == 0) {
        c->jc_strings = false;
        c->jc_json = true;
    } else if (strcmp(w, "arg") == 0 || strcmp(w, "argjson") == 0) {
        bool json = w[3] == 'j';
        if (*i >= argc - 2) {
            sh_errf(cx,
                    "jq: --%s takes two parameters (e.g. --%s varname "
                    "%s)",
                    w, w, json ? "text" : "value");
            return jq_die(cx);
        }
        const char *name = argv[*i + 1], *val = argv[*i + 2];
        *i += 2;
        if (jv_object_has(jv_copy(c->jc_named), jv_string(name)))
            return 0;
        jv v = json ? jv_parse(val) : jv_string(val);
        if (!jv_is_valid(v)) {
            jv_free(v);
            sh_errf(cx, "jq: invalid JSON text passed to --argjson");
            return jq_die(cx);
        }
        c->jc_named = jv_object_set(c->jc_named, jv_string(name), v);
    } else if (strcmp(w, "argfile") == 0 || strcmp(w, "slurpfile") == 0 ||
               strcmp(w, "rawfile") == 0) {
        if (*i >= argc - 2) {
            sh_errf(cx,
                    "jq: --%s takes two parameters (e.g. --%s varname "
                    "filename)",
                    w, w);
            return jq_die(cx);
        }
        int st = cli_file_arg(r, c, w, argv[*i + 1], argv[*i + 2]);
        *i += 2;
        return st;
    } else if (strcmp(w, "debug-dump-disasm") == 0 ||
               strncmp(w, "debug-trace", 11) == 0 ||
               strcmp(w, "run-tests") == 0) {
        // libjq prints these on the service's own stdout, or reads test
        // files itself.
        return sh_cmd_err(cx, "jq", 2, "--%s is not available in the box", w);
    } else {
        return -1;
    }
    return 0;
}

/* One word that starts with '-' and a letter or '-'. */
static int
cli_option(sh_cmd_run *r, jq_cli *c, int argc, char **argv, int *i)
{
    sh_ctx *cx = r->cr_cx;
    const char *w = argv[*i];
    if (w[1] == 'L') {
        // A module search path: modules are refused, the words are not.
        if (w[2] == '\0' && *i >= argc - 1) {
            sh_errf(cx, "-L takes a parameter: (e.g. -L /search/path or "
                        "-L/search/path)");
            return jq_die(cx);
        }
        if (w[2] == '\0')
            (*i)++;
        return 0;
    }
    if (w[1] == '-') {
        for (size_t k = 0; k < sizeof jq_flags / sizeof jq_flags[0]; k++)
            if (strcmp(w + 2, jq_flags[k].jf_long) == 0) {
                c->jc_options |= jq_flags[k].jf_set;
                c->jc_dumpopts &= ~jq_flags[k].jf_dump_clear;
                return 0;
            }
        if (strcmp(w, "--help") == 0)
            return sh_write(cx, 1, jq_help, sizeof jq_help - 1) == SH_IO_OK ? -2
                                                                            : 2;
        if (strcmp(w, "--version") == 0)
            return sh_puts(cx, 1, "jq-1.6\n") == SH_IO_OK ? -2 : 2;
        int st = cli_long(r, c, argc, argv, i);
        if (st >= 0)
            return st;
    } else {
        size_t known = 0;
        for (size_t k = 0; k < sizeof jq_flags / sizeof jq_flags[0]; k++)
            if (jq_flags[k].jf_short != 0 &&
                strchr(w, jq_flags[k].jf_short) != NULL) {
                c->jc_options |= jq_flags[k].jf_set;
                c->jc_dumpopts &= ~jq_flags[k].jf_dump_clear;
                known++;
            }
        if (strchr(w, 'h') != NULL)
            return sh_write(cx, 1, jq_help, sizeof jq_help - 1) == SH_IO_OK ? -2
                                                                            : 2;
        if (strchr(w, 'V') != NULL)
            return sh_puts(cx, 1, "jq-1.6\n") == SH_IO_OK ? -2 : 2;
        if (strlen(w) == known + 1)
            return 0;
    }
    sh_errf(cx, "jq: Unknown option %s", w);
    return jq_die(cx);
}

/* The command line as jq 1.6's main reads it: 0, -2 after --help or
 * --version (status 0), or the status of an error. */
static int
cli_parse(sh_cmd_run *r, jq_cli *c, int argc, char **argv)
{
    sh_ctx *cx = r->cr_cx;
    for (int i = 1; i < argc; i++) {
        char *w = argv[i];
        int st = 0;
        if (c->jc_done) {
            st = cli_operand(cx, c, w, true);
        } else if (strcmp(w, "--") == 0) {
            if (c->jc_program == NULL) {
                sh_write(cx, 2, jq_short_usage, sizeof jq_short_usage - 1);
                return 2;
            }
            c->jc_done = true;
        } else if (!(w[0] == '-' &&
                     (w[1] == '-' || isalpha((unsigned char)w[1])))) {
            st = cli_operand(cx, c, w, false);
        } else {
            st = cli_option(r, c, argc, argv, &i);
        }
        if (st != 0)
            return st;
    }
    return 0;
}

/* jq 1.6's process(): one input through the program. Returns jq's ret:
 * 0, 11 (last output false or null), 14 (no output), 5 (an error), the
 * halt's status, or -1 when the run must stop now (r->cr_status). */
static int
jq_process(jq_run *jr, jq_state *jq, jq_dog *dog, jv value, bool *exact)
{
    sh_cmd_run *r = &jr->jr_run;
    int ret = 14;
    jq_start(jq, value, 0);
    jv result;
    while (jv_is_valid(result = jq_dog_next(dog, jq))) {
        jv_kind k = jv_get_kind(result);
        if ((jr->jr_out.jo_options & JQ_RAW_OUTPUT) && k == JV_KIND_STRING)
            ret = 0;
        else
            ret = k == JV_KIND_FALSE || k == JV_KIND_NULL ? 11 : 0;
        if (!jq_out_result(&jr->jr_out, result))
            return -1;
    }
    int fired = jq_dog_fired(dog);
    if (fired != JQ_DOG_NONE) {
        jv_free(result);
        jq_out_flush(&jr->jr_out);
        if (fired == JQ_DOG_MEMORY) {
            r->cr_status = sh_cmd_err(r->cr_cx, "jq", 5,
                                      "error: out of memory (the box's jq "
                                      "may use %llu MiB)",
                                      (unsigned long long)(JQ_HEAP_MAX >> 20));
        } else {
            (void)sh_check_stop(r->cr_cx);
            r->cr_status = r->cr_cx->cx_status;
        }
        return -1;
    }
    if (jq_halted(jq)) {
        *exact = true;
        jv code = jq_get_exit_code(jq);
        if (!jv_is_valid(code))
            ret = 0;
        else if (jv_get_kind(code) == JV_KIND_NUMBER)
            ret = (int)jv_number_value(code);
        else
            ret = 5;
        jv_free(code);
        jv msg = jq_get_error_message(jq);
        jq_out_flush(&jr->jr_out);
        if (jv_get_kind(msg) == JV_KIND_STRING) {
            (void)sh_write(r->cr_cx, 2, jv_string_value(msg),
                           (size_t)jv_string_length_bytes(jv_copy(msg)));
        } else if (jv_get_kind(msg) != JV_KIND_NULL && jv_is_valid(msg)) {
            jv s = jv_dump_string(jv_copy(msg), 0);
            sh_errf(r->cr_cx, "%s", jv_string_value(s));
            jv_free(s);
        }
        jv_free(msg);
    } else if (jv_invalid_has_msg(jv_copy(result))) {
        jv msg = jv_invalid_get_msg(jv_copy(result));
        jv pos = jq_in_position(&jr->jr_in);
        jq_out_flush(&jr->jr_out);
        if (jv_get_kind(msg) == JV_KIND_STRING) {
            sh_errf(r->cr_cx, "jq: error (at %s): %s", jv_string_value(pos),
                    jv_string_value(msg));
        } else {
            msg = jv_dump_string(msg, 0);
            sh_errf(r->cr_cx, "jq: error (at %s) (not a string): %s",
                    jv_string_value(pos), jv_string_value(msg));
        }
        ret = 5;
        jv_free(pos);
        jv_free(msg);
    }
    jv_free(result);
    if (!sh_cmd_live(r))
        return -1;
    return ret;
}

/* Compiles the wrapped program; on failure the user's own text again,
 * for jq's messages (which quote the program). False after them. */
static bool
jq_compile_wrapped(jq_run *jr, jq_state *jq, const char *text, jv args)
{
    char *wrapped = jq_prog_wrap(text);
    if (wrapped == NULL) {
        jv_free(args);
        sh_errf(jr->jr_run.cr_cx, "jq: error: out of memory");
        return false;
    }
    jr->jr_quiet_errors = true;
    bool ok = jq_compile_args(jq, wrapped, jv_copy(args)) != 0;
    jr->jr_quiet_errors = false;
    box_free(wrapped);
    if (!ok) {
        // The text alone compiles when the wrapping broke it: a program
        // of definitions only, or empty, is `.` to jq.
        ok = jq_compile_args(jq, text, jv_copy(args)) != 0;
        if (ok) {
            char *dot = box_asprintf("%s\n.", text);
            wrapped = dot != NULL ? jq_prog_wrap(dot) : NULL;
            box_free(dot);
            jr->jr_quiet_errors = true;
            ok = wrapped != NULL &&
                 jq_compile_args(jq, wrapped, jv_copy(args)) != 0;
            jr->jr_quiet_errors = false;
            box_free(wrapped);
            if (!ok)
                sh_errf(jr->jr_run.cr_cx,
                        "jq: error: this program cannot run in the box "
                        "(its $ENV could not be bound)");
        }
    }
    jv_free(args);
    return ok;
}

/* The attributes jq 1.6's main sets: get_search_list and friends show
 * them (nothing reads a module with them: imports are refused). */
static void
jq_set_origin_attrs(jq_state *jq, sh_ctx *cx)
{
    jq_set_attr(jq, jv_string("JQ_LIBRARY_PATH"),
                JV_ARRAY(jv_string("~/.jq"), jv_string("$ORIGIN/../lib/jq"),
                         jv_string("$ORIGIN/lib")));
    jq_set_attr(jq, jv_string("JQ_ORIGIN"), jv_string("."));
    jq_set_attr(jq, jv_string("VERSION_DIR"), jv_string("1.6"));
    jq_set_attr(jq, jv_string("PROGRAM_ORIGIN"), jv_string(cx->cx_st->st_cwd));
}

/* Reads the inputs and runs the program on each, as jq 1.6's main. */
static int
jq_drive(jq_run *jr, jq_cli *c, jq_state *jq, jq_dog *dog)
{
    sh_cmd_run *r = &jr->jr_run;
    unsigned opt = c->jc_options;
    int ret = 0;
    bool exact = false;
    if (opt & JQ_NULL_INPUT) {
        ret = jq_process(jr, jq, dog, jv_null(), &exact);
    } else {
        jv value;
        while (jr->jr_in.ji_failures == 0 &&
               (jv_is_valid(value = jq_in_next(&jr->jr_in)) ||
                jv_invalid_has_msg(jv_copy(value)))) {
            if (jv_is_valid(value)) {
                ret = jq_process(jr, jq, dog, value, &exact);
                if (ret < 0 || jq_halted(jq))
                    break;
                continue;
            }
            jv msg = jv_invalid_get_msg(value);
            jq_out_flush(&jr->jr_out);
            if (!(opt & JQ_SEQ)) {
                ret = 4; // jq 1.6: abs(JQ_OK_NO_OUTPUT)
                exact = true;
                sh_errf(r->cr_cx, "parse error: %s", jv_string_value(msg));
                jv_free(msg);
                break;
            }
            sh_errf(r->cr_cx, "ignoring parse error: %s", jv_string_value(msg));
            jv_free(msg);
        }
        if (ret >= 0 && jr->jr_in.ji_stopped)
            ret = -1;
    }
    if (ret < 0)
        return r->cr_status != 0 ? r->cr_status : 1;
    if (!jq_out_flush(&jr->jr_out))
        return r->cr_status;
    if (jr->jr_in.ji_failures != 0)
        ret = 2;
    if (exact)
        return ret & 0xff;
    if (ret >= 10 && (opt & JQ_EXIT_STATUS))
        return ret - 10;
    if (ret >= 10)
        return 0;
    return ret;
}

static int
jq_main(jq_run *jr, jq_cli *c, int argc, char **argv)
{
    sh_cmd_run *r = &jr->jr_run;
    sh_ctx *cx = r->cr_cx;
    jq_state *jq = NULL;
    jq_dog dog = {0};
    char *progtext = NULL;
    int st = cli_parse(r, c, argc, argv);
    if (st != 0)
        return st == -2 ? 0 : st;
    // No tty in the box: like jq 1.6 without one, no program means ".".
    const char *program = c->jc_program != NULL ? c->jc_program : ".";
    if (c->jc_options & JQ_FROM_FILE) {
        size_t len;
        if ((st = jq_read_file(r, "", program, &progtext, &len)) != 0)
            return st;
        // A "#!" first line is skipped (jq's skip_shebang).
        program = progtext;
        if (program[0] == '#' && program[1] == '!') {
            const char *nl = strchr(program, '\n');
            program = nl != NULL ? nl + 1 : program + strlen(program);
        }
    }
    if ((st = jq_prog_check(r, program)) != 0 ||
        (st = jq_prog_home_check(r)) != 0)
        goto out;
    unsigned opt = c->jc_options;
    int dump = c->jc_dumpopts;
    if (opt & JQ_SORTED)
        dump |= JV_PRINT_SORTED;
    if (opt & JQ_ASCII)
        dump |= JV_PRINT_ASCII;
    if (opt & JQ_COLOR)
        dump |= JV_PRINT_COLOR;
    if (opt & JQ_NO_COLOR)
        dump &= ~JV_PRINT_COLOR;
    jr->jr_dumpopts = dump;
    if ((jq = jq_init()) == NULL) {
        st = sh_cmd_err(cx, "jq", 2, "error: out of memory");
        goto out;
    }
    jq_set_error_cb(jq, jq_error_cb, jr);
    jq_set_origin_attrs(jq, cx);
    jv named = jv_copy(c->jc_named);
    jv args = JV_OBJECT(jv_string("positional"), jv_copy(c->jc_positional),
                        jv_string("named"), jv_copy(named));
    named = jv_object_set(named, jv_string("ARGS"), args);
    named = jv_object_set(named, jv_string(JQ_ENV_ARG), jq_prog_env(cx));
    if (!jq_compile_wrapped(jr, jq, program, named)) {
        st = 3;
        goto out;
    }
    if (opt & JQ_SEQ)
        c->jc_parser_flags |= JV_PARSE_SEQ;
    if (c->jc_nfiles == 0)
        c->jc_files[c->jc_nfiles++] = (char *)"-";
    if (jq_in_init(&jr->jr_in, r, c->jc_files, c->jc_nfiles,
                   (opt & JQ_RAW_INPUT) != 0, (opt & JQ_SLURP) != 0,
                   c->jc_parser_flags) != BOX_OK ||
        jq_out_open(&jr->jr_out, r, opt, dump) != BOX_OK) {
        st = sh_cmd_err(cx, "jq", 2, "error: out of memory");
        goto out;
    }
    jq_set_input_cb(jq, jq_in_cb, &jr->jr_in);
    jq_set_debug_cb(jq, jq_debug_cb, jr);
    if (jq_dog_start(&dog, cx, jq) != BOX_OK) {
        st = sh_cmd_err(cx, "jq", 2, "error: cannot start its watchdog");
        goto out;
    }
    st = jq_drive(jr, c, jq, &dog);
out:
    jq_dog_stop(&dog);
    jq_out_close(&jr->jr_out);
    jq_in_free(&jr->jr_in);
    if (jq != NULL)
        jq_teardown(&jq);
    box_free(progtext);
    return st;
}

int
sh_cmd_jq(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    jq_run jr = {.jr_run = {.cr_cx = cx, .cr_cmd = "jq"}};
    jq_cli c = {.jc_dumpopts = JV_PRINT_INDENT_FLAGS(2),
                .jc_named = jv_object(),
                .jc_positional = jv_array()};
    int st;
    // Every word might be a file, and "-" is added when none is.
    c.jc_files = box_calloc((size_t)argc + 1, sizeof *c.jc_files);
    if (c.jc_files == NULL)
        st = sh_cmd_err(cx, "jq", 2, "error: out of memory");
    else
        st = jq_main(&jr, &c, argc, argv);
    jv_free(c.jc_named);
    jv_free(c.jc_positional);
    box_free(c.jc_files);
    return st;
}
