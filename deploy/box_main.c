/* SPDX-License-Identifier: Apache-2.0 */
/* box: the command-line front of the box services. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "box_cmd.h"
#include "box_svc.h"

typedef struct box_verb {
    const char *bv_name;
    int (*bv_fn)(int argc, char **argv); // NULL: not built yet
    const char *bv_help;
} box_verb;

/* One row per verb (ARCHITECTURE §1). */
static const box_verb box_verbs[] = {
    {"run", box_cmd_run,
     "run --config FILE [-- ARGS...]   start a box and run its agent"},
    {"policy", box_cmd_policy,
     "policy check|replay|eval|test|fmt ...\n"
     "                                   check, run, test and format policies"},
    {"sh", box_cmd_sh,
     "sh --policy FILE [--config FILE] [--explain] (-c TEXT | FILE)\n"
     "                                   run one call of the box's shell"},
    {"log", box_cmd_log,
     "log [--box-dir D | FILE] [--verdict V] [--action A] [--follow]\n"
     "                                   print the decision log"},
    {"bench", box_cmd_bench,
     "bench pdp|e2e|shell|commands|temporal|gateway\n"
     "                                   run a benchmark"},
    {"load", NULL,
     "load ...                         drive load through the services"},
};

static void
box_usage(FILE *out)
{
    fputs("Run workloads inside a zero-trust box\n\nusage: box <command> "
          "[options]\n\n",
          out);
    for (size_t i = 0; i < sizeof box_verbs / sizeof box_verbs[0]; i++)
        fprintf(out, "  box %s\n", box_verbs[i].bv_help);
    fputs("\n  box --help | --version\n", out);
}

int
box_cmd_error(const char *fmt, ...)
{
    va_list ap;
    fputs("strands-box: error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 1;
}

const char *
box_cmd_self_dir(char *buf, unsigned long n)
{
    ssize_t len = readlink("/proc/self/exe", buf, n - 1);
    if (len <= 0)
        return NULL;
    buf[len] = '\0';
    char *slash = strrchr(buf, '/');
    if (slash == NULL)
        return NULL;
    *slash = '\0';
    return buf;
}

int
main(int argc, char **argv)
{
    if (argc < 2) {
        box_usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
        box_usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        box_svc_print_version(stdout, "box");
        return 0;
    }
    for (size_t i = 0; i < sizeof box_verbs / sizeof box_verbs[0]; i++) {
        if (strcmp(argv[1], box_verbs[i].bv_name) != 0)
            continue;
        if (box_verbs[i].bv_fn == NULL)
            return box_cmd_error("`box %s` is not supported yet", argv[1]);
        return box_verbs[i].bv_fn(argc - 1, argv + 1);
    }
    fprintf(stderr, "strands-box: error: unknown command '%s'\n\n", argv[1]);
    box_usage(stderr);
    return 2;
}
