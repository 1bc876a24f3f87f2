/* SPDX-License-Identifier: Apache-2.0 */
/* Test helper: a box dir with real box-pdp and box-shell, and its aliases
 * (alias_test.c, alias_stdin_test.c). */
#ifndef ALIAS_BOX_H
#define ALIAS_BOX_H

#include <stdbool.h>
#include <stdint.h>

#include "box.pb-c.h"
#include "box_proc.h"

/*
 * Each box dir is laid out as box run lays it out: bin/ holds copies of
 * box-alias named zsh, bash and sh (real files, mode 0500), run/ holds
 * box.sock. Every box has a real box-pdp that permits everything (the
 * interpreter asks it about every command and refuses when it is gone),
 * on run/pdp.sock; the dir is also the workspace.
 */

#define RUN_MS 60000
#define PDP_START_MS 60000 // a loaded machine can be slow to start a service
#define PERMIT_ALL "permit(principal, action, resource);\n"

typedef struct test_box {
    char tb_dir[64];
    char tb_ctl[192]; // the broker's control url
    char tb_pdp[128]; // the PDP's decision url (ipc paths: ~100 bytes)
    char tb_pub[128]; // the PDP's epoch notices
    box_proc tb_broker;
    box_proc tb_pdp_proc;
    bool tb_running;
    bool tb_pdp_running;
} test_box;

extern const char *const shell_names[3]; // sh, bash, zsh: bin/ has each

/* Installs the alias image as bin/<name>: a real file, mode 0500. */
void install_alias(const test_box *b, const char *name);
/* A fresh box dir with the aliases and a permit-all box-pdp; box_remove
 * stops the PDP and removes the dir. */
void box_make(test_box *b);
/* cmocka group setup and teardown: one box with its broker (and PDP) for
 * every test of the group, *state its test_box. */
int box_group_setup(void **state);
int box_group_teardown(void **state);
void box_remove(test_box *b);
/* Starts (SIGTERM-stops) the box's box-pdp. */
void pdp_start(test_box *b);
void pdp_stop(test_box *b);
/* A connection to the box's broker socket, or -1. */
int sock_connect(const char *dir);
/* Starts box-shell on the box with extra arguments (NULL-terminated, at
 * most 8; broker_start: up to two), waiting until it serves. */
void broker_start_argv(test_box *b, char *const *extra);
void broker_start(test_box *b, const char *extra1, const char *extra2);
/* SIGTERM; the broker must exit 0 within within_ms and say it stopped. */
void broker_stop(test_box *b, int within_ms);
/* Runs bin/<name> with up to 4 arguments (NULL ends them). */
void alias_run(const test_box *b, const char *name, const char *a1,
               const char *a2, const char *a3, const char *a4,
               box_proc_result *r);
/* alias_run with up to 3 arguments, and its status, stdout and stderr
 * must be these. */
void expect(const test_box *b, const char *name, const char *a1, const char *a2,
            const char *a3, int status, const char *out, const char *err);
/* The box still serves: one ordinary call works. */
void expect_serving(const test_box *b);

/* Raw client frames: Open, Call (then InputEof), one frame read, and a
 * Denied{kind, reason} followed by the broker's hangup. */
void raw_open(int fd, uint32_t version, Box__Open__ModeCase mode);
void raw_call(int fd, const char *src);
Box__AliasFrame *raw_read(int fd);
void raw_expect_denied(int fd, Box__DeniedKind kind, const char *reason);
/* The next frames: one Output of exactly text, then Exit{status} (with
 * out NULL only the Exit). */
void raw_expect_end(int fd, const char *out, int status);

#endif
