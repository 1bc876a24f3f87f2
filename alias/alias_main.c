/* SPDX-License-Identifier: Apache-2.0 */
/* box-alias: installed as zsh/bash/sh in <box_dir>/bin; forwards one command. */
#include <libgen.h>
#include <stdio.h>
#include <string.h>

#include "box_svc.h"

#define ALIAS_IMAGE "strands-box-sock-alias"

static const char alias_usage[] =
    "usage: zsh|bash|sh -c COMMAND | -lc COMMAND | -c -l COMMAND | SCRIPT\n"
    "\n"
    "The box alias. Installed under the shell names in <box_dir>/bin, it\n"
    "sends one command to the box's shell service over <box_dir>/run/box.sock\n"
    "and relays its output and exit status. Run under its own name it only\n"
    "answers --help and --version.\n";

int
main(int argc, char **argv)
{
    char self[4096];
    snprintf(self, sizeof self, "%s", argc > 0 ? argv[0] : ALIAS_IMAGE);
    const char *name = basename(self);

    if (strcmp(name, "zsh") != 0 && strcmp(name, "bash") != 0 &&
        strcmp(name, "sh") != 0) {
        if (argc == 2 && strcmp(argv[1], "--help") == 0) {
            fputs(alias_usage, stdout);
            return 0;
        }
        if (argc == 2 && strcmp(argv[1], "--version") == 0) {
            box_svc_print_version(stdout, "box-alias");
            return 0;
        }
        fprintf(stderr,
                ALIAS_IMAGE ": " ALIAS_IMAGE " is not an alias name; the "
                            "trusted strands-box run process serves broker "
                            "requests\n");
        return 125;
    }
    // The shell route lands with the shell service.
    fprintf(stderr, ALIAS_IMAGE ": the shell route is not built yet\n");
    return 125;
}
