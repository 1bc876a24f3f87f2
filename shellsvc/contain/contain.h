/* SPDX-License-Identifier: Apache-2.0 */
/* box-contain: the command-line contract and the one sandbox entry point. */
#ifndef CONTAIN_H
#define CONTAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "box_status.h"

/*
 * box-contain's own exit statuses are the box's (box_status.h):
 * BOX_STATUS_FAULT when it failed, refused or was misused,
 * BOX_STATUS_CANNOT_RUN when the program's identity changed or it is not
 * executable, BOX_STATUS_NOT_FOUND when the program (or its interpreter)
 * is missing. Anything else is the program's own status (a program ended
 * by signal n gives 128 + n).
 */

/* ORDER CONTAIN_LIST: keep contain_list_opt in contain_args.c in order. */
typedef enum contain_list {
    CONTAIN_READ,       // read files and list dirs beneath
    CONTAIN_WRITE,      // read + write beneath
    CONTAIN_READ_FILE,  // read that one file
    CONTAIN_WRITE_FILE, // read and write that one file
    CONTAIN_LIST,       // list directories beneath (no file contents)
    CONTAIN_METADATA,   // stat only: Landlock never restricts stat
    CONTAIN_EXEC,       // execute (and read) beneath
    CONTAIN_DENY,       // unreachable: masked in the sandbox's mount namespace
    CONTAIN_LIST_COUNT
} contain_list;

typedef struct contain_path {
    contain_list cp_list;
    const char *cp_path; // borrowed from argv
} contain_path;

// The longest --egress socket path: sizeof(sun_path) less its NUL.
#define CONTAIN_EGRESS_PATH_MAX 107

/*
 * Everything the command line asked for. Strings are borrowed from argv;
 * the arrays are owned and released by contain_spec_free.
 */
typedef struct contain_spec {
    contain_path *cs_paths;
    size_t cs_npaths;
    char **cs_env; // NULL-terminated; exactly the --env entries
    size_t cs_nenv;
    const char **cs_hide; // --hide directories (borrowed strings)
    size_t cs_nhide;
    const char **cs_show; // --show paths, each beneath a --hide (borrowed)
    size_t cs_nshow;
    const char *cs_cwd;    // NULL: "/"
    const char *cs_shells; // --shells SHIM (borrowed), or NULL
    int cs_exec_fd;        // -1 unless --exec-fd
    const char *cs_exec_path;
    bool cs_has_id;
    dev_t cs_dev;
    ino_t cs_ino;
    char **cs_argv; // after "--"; NULL-terminated, borrowed
    char cs_egress_path[CONTAIN_EGRESS_PATH_MAX + 1]; // "" unless --egress
    unsigned cs_egress_port; // --egress's loopback port (1..65535), or 0
    bool cs_net_host;        // --net host: the caller's network namespace
    bool cs_probe;
    bool cs_help;
} contain_spec;

/*
 * Parses argv into spec. On failure prints one `box-contain: ` line on
 * stderr and returns BOX_STATUS_FAULT; the caller still frees spec.
 */
box_status contain_parse(int argc, char **argv, contain_spec *spec);
void contain_spec_free(contain_spec *spec);
/* The usage text (documents the whole interface). */
const char *contain_usage(void);

/*
 * Applies the sandbox and runs the program; returns the status to exit
 * with. Never returns in the sandboxed processes (they exec or _exit).
 */
int contain_run(const contain_spec *spec);

/*
 * For a trusted process that must not reach the box's own files (the
 * shell's zygote, before it forks workers): the calling process enters a
 * user namespace mapping its ids to themselves and a private mount
 * namespace in which each directory of hide is covered by an empty
 * read-only tmpfs and each path of mask (file or directory; one that does
 * not exist is skipped) by an empty read-only stand-in, as --hide and
 * --deny do; then every capability is dropped, so nothing it runs can take
 * a cover off. Single-threaded callers only. Returns BOX_STATUS_OK, or
 * BOX_STATUS_FAULT with err (errlen bytes) saying why.
 */
int contain_hide_self(const char *const *hide, size_t nhide,
                      const char *const *mask, size_t nmask, char *err,
                      size_t errlen);

/* --probe: one line per kernel feature on stdout; 0 only if all present. */
int contain_probe(void);

#endif
