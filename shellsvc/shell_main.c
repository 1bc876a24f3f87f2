/* SPDX-License-Identifier: Apache-2.0 */
/* box-shell: the shell service and alias broker of one box. */
#include <getopt.h>
#include <stdio.h>

#include "box_control.h"
#include "box_svc.h"

#define SHELL_SVC "box-shell"

static const char shell_usage[] =
    "usage: box-shell --box-dir DIR --pdp URL [--control URL]\n"
    "\n"
    "Serves the aliases (zsh, bash, sh) of one box on DIR/run/box.sock and\n"
    "interprets each command itself, asking the PDP at URL about every\n"
    "command and file operation.\n"
    "\n"
    "  --box-dir DIR   the box directory\n"
    "  --pdp URL       the PDP's decision address\n"
    "  --control URL   answer health/status requests here\n"
    "  --help          print this help and exit\n"
    "  --version       print the version and exit\n"
    "\n"
    "Signals: SIGTERM/SIGINT drain and exit 0.\n";

int
main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"box-dir", required_argument, NULL, 'b'},
        {"pdp", required_argument, NULL, 'p'},
        {"control", required_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    const char *control_url = NULL;
    sigset_t sigs;
    int c;

    box_svc_block_signals(&sigs);
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'b':
        case 'p':
            break; // used by the broker
        case 'c':
            control_url = optarg;
            break;
        case 'h':
            fputs(shell_usage, stdout);
            return 0;
        case 'V':
            box_svc_print_version(stdout, SHELL_SVC);
            return 0;
        default:
            fputs(shell_usage, stderr);
            return 2;
        }
    }
    if (optind != argc) {
        fprintf(stderr, "box-shell: unexpected argument '%s'\n%s", argv[optind],
                shell_usage);
        return 2;
    }
    return box_control_serve_until_term(SHELL_SVC, control_url, &sigs);
}
