/* SPDX-License-Identifier: Apache-2.0 */
/* Test helper: a whole box on disk (operator home, git project, box.toml,
 * policy, agent script) run through the real `box run`. */
#ifndef BOX_WORLD_H
#define BOX_WORLD_H

#include <limits.h>
#include <stdbool.h>

#include "box_buf.h"

#include "box_proc.h"

/*
 * Layout under a fresh /tmp/box-w-XXXXXX:
 *   home/                   the operator home (HOME of box run)
 *   home/src/project/       the agent workspace: a git repository holding
 *                           src/main.rs (two TODO lines), README.md and an
 *                           untracked .env
 *   home/cfg/box.toml       the run's configuration (host-backed, so the
 *   home/cfg/policy.dw      reach floor has authority files to guard)
 *   agent.sh                the agent: /bin/sh running the test's script
 *   state/                  the box directory
 */
typedef struct box_world {
    char bw_root[64];
    char bw_home[PATH_MAX];
    char bw_project[PATH_MAX];
    char bw_config[PATH_MAX];
    char bw_policy[PATH_MAX];
    char bw_agent[PATH_MAX];
    char bw_state[PATH_MAX];
    char bw_git[PATH_MAX]; // git's canonical path on this machine
    const char *bw_wrap;   // runs box run as `bw_wrap box run …` when set
    // More NAME=value entries (NULL-ended, at most 8) for box run's
    // environment, after HOME, PATH and the sanitizer's; NULL: none.
    const char *const *bw_env;
    // More lines of the [agent] table itself (`shells = "path-only"`) for
    // box_world_config*; NULL: none.
    const char *bw_agent_keys;
} box_world;

/* cmocka fixtures: a fresh world in *state, dropped afterwards. */
int box_world_setup(void **state);
int box_world_teardown(void **state);

/* Lays the world out (git init, one commit). */
void box_world_make(box_world *w);
void box_world_drop(box_world *w);

/* The [tool.git] table the worked example uses. */
extern const char box_world_git_tool[];

/* Writes box.toml: name, box_dir, policy, [agent] running agent.sh in the
 * project, then extra (more tables, e.g. box_world_git_tool; may be ""). */
void box_world_config(box_world *w, const char *extra);
/* The same, with agent_fs (more `key = [...]` lines, may be "") appended to
 * the [agent.filesystem] table after its read_file line. */
void box_world_config_agent(box_world *w, const char *agent_fs,
                            const char *extra);
/* The same, naming the policy policy_key (as box.toml spells it) instead of
 * "policy.dw". */
void box_world_config_policy(box_world *w, const char *policy_key,
                             const char *agent_fs, const char *extra);
/* Rules a test of the agent's shell starts from: every shell command,
 * reads of the project, never a .env, never rm (a test appends its own
 * after it, a blank line first). */
#define BOX_WORLD_PROJECT_POLICY                                               \
    "@id(\"shell_commands\")\n"                                                \
    "permit (principal, action == Box::Action::\"shell:exec\", resource);\n"   \
    "\n"                                                                       \
    "@id(\"project_read\")\n"                                                  \
    "permit (principal, action == Box::Action::\"fs:read\", resource)\n"       \
    "when { context.input.path == \"~/src/project\" ||\n"                      \
    "       context.input.path like \"~/src/project/*\" };\n"                  \
    "\n"                                                                       \
    "@id(\"no_env\")\n"                                                        \
    "@description(\"Secrets in .env stay unread.\")\n"                         \
    "forbid (principal, action == Box::Action::\"fs:read\", resource)\n"       \
    "when { context.input.path like \"*/.env\" };\n"                           \
    "\n"                                                                       \
    "@id(\"no_rm\")\n"                                                         \
    "@description(\"Nothing is removed.\")\n"                                  \
    "forbid (principal, action == Box::Action::\"shell:exec\", resource)\n"    \
    "when { context.input.program == \"rm\" };\n"                              \
    "\n"

/* Writes policy.dw. */
void box_world_policy(box_world *w, const char *text);

/* Writes agent.sh (`#!/bin/sh` + script), empties the decision log, and
 * runs `box run --config box.toml` with HOME set to the world's home.
 * r is the caller's (box_proc_result_free). */
void box_world_run(box_world *w, const char *script, box_proc_result *r);
/* The same start, without the wait: bp is running `box run` (finish it with
 * box_proc_finish; its pipes are the caller's to read meanwhile). */
void box_world_start(box_world *w, const char *script, box_proc *bp);

/* A running `box run` whose output is read as it comes. */
typedef struct box_world_live {
    box_proc lv_proc;
    box_buf lv_out, lv_err;
    bool lv_out_eof, lv_err_eof;
} box_world_live;

/* box_world_start into lv, with empty buffers. */
void box_world_live_start(box_world *w, const char *script, box_world_live *lv);
/* What the run printed so far on stream 1 (stdout) or 2 (stderr). */
const char *box_world_live_text(const box_world_live *lv, int stream);
/* Reads both pipes for up to ms (less once both are closed). */
void box_world_live_pump(box_world_live *lv, int ms);
/* Reads both pipes until the nth occurrence of needle on stream (1 or 2);
 * fails the test, showing both, when ms pass or the run ends first. */
void box_world_live_wait(box_world_live *lv, int stream, const char *needle,
                         int nth, int ms);
/* Waits (ms at most) for the end; r holds everything the run printed. */
void box_world_live_finish(box_world_live *lv, int ms, box_proc_result *r);

/* The run's decisions as `box log` prints them, one per line, columns
 * squeezed to single spaces: "permit shell:exec grep\n…". Caller frees. */
char *box_world_decisions(const box_world *w);
/* Fails the test unless box_world_decisions is exactly want. */
void box_world_expect_decisions(const box_world *w, const char *want);

/* `git ARGS` (NULL-ended, at most 8) in the project on the host; fails the
 * test unless it exits 0. Its stdout; the caller frees it with box_free. */
char *box_world_git_out(const box_world *w, char *const *args);

/* Writes a file (parents must exist). */
void box_world_put(const char *path, const char *text);

#endif
