/* SPDX-License-Identifier: Apache-2.0 */
/* One builder of the DecisionRequest for every effect the shell asks about. */
#ifndef BOX_EFFECT_H
#define BOX_EFFECT_H

#include <stdbool.h>
#include <stddef.h>

#include "box.pb-c.h"

/*
 * The executor (shell:exec, shell:spawn), the kernel (fs:*) and the
 * gateway (net:connect, http:request) describe an effect and this module
 * alone gives it the shape of box-spec §3.4, §4 and §7 on the wire: which action, which input fields in which order,
 * the resource, the subject, the enforcement note. What the values are
 * (the joined command, the §7 redaction, a `~` path) stays with the
 * caller that knows them.
 */

/* ORDER BOX_EFFECT: effect_tab in box_effect.c follows this order. */
typedef enum box_effect_kind {
    BOX_EFFECT_SHELL_EXEC,
    BOX_EFFECT_SHELL_SPAWN,
    BOX_EFFECT_FS_READ,
    BOX_EFFECT_FS_WRITE,
    BOX_EFFECT_FS_DELETE,
    BOX_EFFECT_FS_MOVE,
    BOX_EFFECT_NET_CONNECT,
    BOX_EFFECT_HTTP_REQUEST,
    BOX_EFFECT_KIND_COUNT
} box_effect_kind;

#define BOX_EFFECT_MAX_ARGS 64u // process.command_args entries (§7)

/* A command: shell:exec, or shell:spawn of a host program. Borrowed. */
typedef struct box_effect_cmd {
    const char *ec_command; // input.command: argv joined by single spaces
    int ec_argc;            // >= 1
    char *const *ec_argv;   // ec_argv[0] is the program as spelled
    const char *ec_cwd;     // the Shell cwd (absolute)
    /* shell:spawn only: the reported program path. It is the resource,
     * input.program_path, the process command and command_args[0]. */
    const char *ec_program_path;
    /* process.command_args, already redacted (§7); at most
     * BOX_EFFECT_MAX_ARGS, and at least one. */
    char *const *ec_args;
    size_t ec_nargs;
} box_effect_cmd;

/* A file operation: fs:read, fs:write, fs:delete, fs:move. Borrowed. */
typedef struct box_effect_fs {
    const char *ef_operation; // the operation's id: read_content, rename, …
    const char *ef_reported;  // `~`-reported path: input.path and resource
    const char *ef_canonical; // subject.file_path
    /* The reach floor's reason when the floor will refuse the name even
     * after a permit (the log then records the effective decision), or
     * NULL. */
    const char *ef_floor;
} box_effect_fs;

/* A connection (net:connect) or an HTTP exchange (http:request), as the
 * gateway decides it. Borrowed; the host (and ip) already canonical. */
typedef struct box_effect_net {
    const char *en_host;     // input.host, subject server.address
    long en_port;            // input.port, subject server.port
    const char *en_ip;       // net:connect: input.ip once resolved, or NULL
    const char *en_resource; // host:port, or host:port/path (§7)
    /* http:request only */
    const char *en_method; // input.method, subject http.request.method
    const char *en_path;   // input.path: canonical, no query
    long en_body_bytes;    // input.body_bytes
    bool en_intercepted;   // input.intercepted
} box_effect_net;

typedef struct box_effect {
    box_effect_kind e_kind;
    union {
        box_effect_cmd e_cmd; // SHELL_EXEC, SHELL_SPAWN
        box_effect_fs e_fs;   // FS_*
        box_effect_net e_net; // NET_CONNECT, HTTP_REQUEST
    };
} box_effect;

/* A request and the storage it points into: nothing is allocated, so a
 * request lives on its caller's stack. Read it only through the pointer
 * box_effect_request returns. */
#define BOX_EFFECT_MAX_FIELDS 7u
typedef struct box_effect_req {
    Box__DecisionRequest er_req;
    Box__Value er_input;
    Box__ValueRecord er_rec;
    Box__RecordField er_field[BOX_EFFECT_MAX_FIELDS];
    Box__RecordField *er_fieldp[BOX_EFFECT_MAX_FIELDS];
    Box__Value er_val[BOX_EFFECT_MAX_FIELDS];
    Box__EntityRef er_op;
    Box__Subject er_subj;
    Box__Enforcement er_enf;
    char *er_args[BOX_EFFECT_MAX_ARGS];
} box_effect_req;

/*
 * Fills r with e's DecisionRequest and returns it. The request borrows
 * e's strings (they must outlive it) and r's storage. NULL when e is not
 * a request (an unknown kind, no argv, no args or more than
 * BOX_EFFECT_MAX_ARGS, a spawn without its program path, a file operation
 * without its paths): the caller then refuses the effect.
 */
const Box__DecisionRequest *box_effect_request(box_effect_req *r,
                                               const box_effect *e);

#endif
