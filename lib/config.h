/* SPDX-License-Identifier: Apache-2.0 */
/* The box.toml loader: read, decode and validate one file (box-spec §5). */
#ifndef BOX_CONFIG_H
#define BOX_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "box_err.h"

/*
 * Every message this module returns is the text after the CLI's
 * `strands-box: error: ` prefix, and is owned by the caller (box_free).
 * The shapes, from box-spec §5:
 *   cannot read config file <p>: <strerror>
 *   cannot parse config file <p>: line L, column C: <toml or decode error>
 *     (decode errors are serde-style: `unknown field `x`, expected one of
 *     `a`, `b``, `missing field `command``, `invalid type: integer `1`,
 *     expected a string`)
 *   box name "<n>" is invalid: <reason>; use one component of letters,
 *     digits, '.', '_', or '-'
 *   `box_dir` must be absolute: <p>
 *   invalid `[agent]` table: <reason>   (also `[tool.NAME]`, `[egress.NAME]`)
 *   `[agent]` filesystem entry "<e>" is refused: <reason>
 *   `[mcp]` is not supported yet               (likewise telemetry)
 * Quoted names and entries use Rust's debug quoting (`"a\tb"`), so a
 * control character never reaches the terminal raw.
 *
 * `[mcp.*]` and `[telemetry.*]` are recognised top-level keys, but this
 * build cannot honour them, so the loader refuses a file that carries
 * either of them (fail closed) rather than leaving it to the caller.
 */

/* The eight filesystem lists, in the order the contract states them.
 * Lists may nest and the deepest entry wins (box-contain binds each path
 * over itself): a `read`, `read_file` or `list` entry inside a `write`
 * grant is read-only there, an `exec` entry inside a grant is executable
 * while every other grant is not, and the same path in `read` and `write`
 * is writable. The loader accepts every such shape.
 * ORDER BOX_GRANT: keep box_config_grant_key's table in config.c in this
 * order. */
typedef enum box_config_grant {
    BOX_GRANT_READ,
    BOX_GRANT_WRITE,
    BOX_GRANT_READ_FILE,
    BOX_GRANT_WRITE_FILE,
    BOX_GRANT_LIST,
    BOX_GRANT_METADATA, // `[agent]` only; refused by name on a tool
    BOX_GRANT_EXEC,     // programs the process may run besides its command
                        // (Landlock's execute right); agent and tools
    BOX_GRANT_DENY,
    BOX_GRANT_COUNT
} box_config_grant;

/* `[agent] shells` (issue 23): which shell paths reach the box's shell.
 * ORDER BOX_SHELLS: keep config.c's shells_names in this order. */
typedef enum box_config_shells {
    BOX_SHELLS_ALL,       // "all": /bin/sh, /bin/bash, ... are the alias too
    BOX_SHELLS_PATH_ONLY, // "path-only": only zsh, bash, sh on PATH
} box_config_shells;

/* A list of strings: sv_items[0..sv_len) plus a NULL after the last. */
typedef struct box_config_strv {
    char **sv_items;
    size_t sv_len;
} box_config_strv;

typedef struct box_config_envvar {
    char *ev_name;
    char *ev_value;
} box_config_envvar;

/*
 * One `[agent]` or `[tool.NAME]` table (a ProcessSpec), validated. A plain
 * record rather than an opaque type because every consumer reads every
 * field; it belongs to its box_config, and callers only read it.
 */
typedef struct box_config_process {
    char *pr_table; // "[agent]" or "[tool.NAME]", as messages name it
    char *pr_label; // the tool's NAME; NULL for the agent
    box_config_strv pr_command; // at least one element, [0] non-empty
    char *pr_workspace;         // absolute, or NULL when absent
    box_config_envvar *pr_env;  // in source order
    size_t pr_nenv;
    box_config_strv pr_fs[BOX_GRANT_COUNT]; // entries as written (`~` kept)
    bool pr_network;             // a `network` table was written (tools only)
    bool pr_contain_egress;      // `network.contain_egress`, default true
    bool pr_shells_set;          // a `shells` key was written (agent only)
    box_config_shells pr_shells; // `shells`, default BOX_SHELLS_ALL
} box_config_process;

/* `secret.placement` (box-spec §5). */
typedef enum box_config_placement {
    BOX_PLACE_HEADER,      // secret.header: secret.prefix + secret
    BOX_PLACE_BASIC_AUTH,  // Authorization: Basic base64(user:secret)
    BOX_PLACE_QUERY_PARAM, // ?secret.param=secret
} box_config_placement;

/* The kind of `secret.ref`. */
typedef enum box_config_secret_kind {
    BOX_SECRET_ENV,   // env://NAME: the operator's environment variable
    BOX_SECRET_AWS,   // aws://PROFILE: SigV4 with a shared-credentials profile
    BOX_SECRET_CREDSD // credsd://NAME
} box_config_secret_kind;

/*
 * One `[egress.NAME]` table, validated: where a credential goes and how.
 * eg_destinations are as written (box_dest.h parses them); a plain record
 * like box_config_process, owned by its box_config.
 */
typedef struct box_config_egress {
    char *eg_table; // "[egress.NAME]", as messages name it
    char *eg_label; // NAME
    box_config_strv eg_destinations;
    box_config_secret_kind eg_kind;
    char *eg_ref_name; // what follows the scheme: NAME or PROFILE
    box_config_placement eg_placement;
    char *eg_header;         // default "Authorization"
    char *eg_prefix;         // default "Bearer " on Authorization, else ""
    char *eg_param;          // query_param only, else NULL
    bool eg_always;          // secret.inject = "always"
    char *eg_phantom_prefix; // default "strands_box_"
} box_config_egress;

/* A loaded configuration. It owns every string and record reachable from
 * it; nothing it returns outlives box_config_free. */
typedef struct box_config box_config;

/* Caps on what the loader holds (TOML's own caps are in toml.h). */
#define BOX_CONFIG_MAX_NAME 32 // bytes in `name`
/* destinations of every `[egress.NAME]` together: each is held against
 * every other for overlap, so the count is kept small */
#define BOX_CONFIG_MAX_DESTINATIONS 1024

/*
 * Reads, parses and validates the file at path (which must be a regular
 * file with one name; see box-spec §5). Everything that needs no
 * filesystem beyond reading the file itself is checked here; see
 * box_config_check_paths for the rest. On BOX_OK *out is the caller's
 * (free with box_config_free) and *err is NULL. On failure *out is NULL
 * and *err is the caller's message (NULL only when even that could not be
 * allocated). Returns BOX_EIO (cannot read), BOX_EPARSE (not TOML, or not
 * the shape of box.toml), BOX_ECONFIG (refused by a rule), BOX_ENOTSUP
 * (`[mcp]`, `[telemetry]`), BOX_ENOMEM or BOX_EINVAL.
 */
box_err box_config_load(const char *path, box_config **out,
                        char **err) BOX_WARN_UNUSED;

/*
 * As box_config_load, for text already in memory (tests and fuzzing).
 * config_path is the absolute path the text stands for: messages name it
 * and a relative `policy` resolves against its directory. Not read.
 */
box_err box_config_parse(const char *text, size_t len, const char *config_path,
                         box_config **out, char **err) BOX_WARN_UNUSED;

/* Frees the configuration and everything it owns; NULL is a no-op. */
void box_config_free(box_config *c);

/* The config file's absolute path (symbolic links resolved). */
const char *box_config_path(const box_config *c);
const char *box_config_name(const box_config *c);
/* Absolute, as written. */
const char *box_config_box_dir(const box_config *c);
/* Absolute: as written, or joined to the config file's directory when
 * relative; NULL when absent (the box then denies everything). */
const char *box_config_policy(const box_config *c);
/* NULL when the file has no `[agent]` table. */
const box_config_process *box_config_agent(const box_config *c);
/* The `[tool.NAME]` tables, in source order. */
size_t box_config_tool_count(const box_config *c);
const box_config_process *box_config_tool(const box_config *c, size_t i);
/* The tool labelled label, or NULL. */
const box_config_process *box_config_tool_find(const box_config *c,
                                               const char *label);
/* The `[egress.NAME]` tables, in source order. */
size_t box_config_egress_count(const box_config *c);
const box_config_egress *box_config_egress_get(const box_config *c, size_t i);
/* The box.toml key of a list: "read", "write", ..., "deny". */
const char *box_config_grant_key(box_config_grant g);

/*
 * The checks that need the filesystem, in this order: `box_dir` exists or
 * its parent does; each `workspace` exists, is a directory and is not the
 * operator's home; every filesystem entry of `[agent]`, then of each
 * `[tool.NAME]` (with `~` meaning home) exists, is not a symbolic link, is
 * spelled as the kernel resolves it (grants), fits its list (`read_file` /
 * `write_file` name files, `list` and `metadata` directories, an `exec`
 * file is executable), and reaches neither the run's authority files nor
 * its box directory: no grant at or inside the directory of box.toml or of
 * the policy, or at or inside `box_dir`; no `write` / `write_file` at or
 * above any of those directories (`box_dir`'s parent while it is not made
 * yet). Reach is judged by identity (device and inode of the entry and
 * each ancestor), so no other spelling or bind mount passes; the reason
 * names what the entry reaches. programs (or NULL) is the directory of
 * the box's own programs (box-contain and the services run from it,
 * outside every sandbox): no `write` / `write_file` at, inside or above
 * it. home is the operator's home (normally $HOME). The `[agent]` workspace default (the directory `run` started in)
 * is the caller's to check. On failure *err is the caller's message;
 * returns BOX_ECONFIG, BOX_EIO or BOX_ENOMEM.
 */
box_err box_config_check_paths(const box_config *c, const char *home,
                               const char *programs,
                               char **err) BOX_WARN_UNUSED;

#endif
