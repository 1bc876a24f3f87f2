/* SPDX-License-Identifier: Apache-2.0 */
/* The digests of md5sum & co. (cmd_digest.c) for cksum -a: the same
 * reading, printing and --check, under cksum's name. */
#ifndef CMD_DIGEST_H
#define CMD_DIGEST_H

#include <stdbool.h>

#include "sh_internal.h"

typedef struct sh_digest_req {
    const char *dq_cmd;  // as messages name the command ("cksum")
    const char *dq_algo; // cksum -a's name (md5 … blake2b, sm3); NULL
                         // with dq_check: each line's tag says
    unsigned dq_bits;    // blake2b -l: 8 to 512 in steps of 8; 0: 512
    bool dq_tag;         // "ALGO (NAME) = HEX" lines, else "HEX  NAME"
    bool dq_check;       // -c: the operands are checksum files
    bool dq_binary, dq_zero;
    bool dq_ignore_missing, dq_quiet, dq_status, dq_strict, dq_warn;
} sh_digest_req;

/* Whether name is a digest sh_digest_files knows (cksum -a's names). */
bool sh_digest_known(const char *name);

/* Each operand (none: stdin) summed or checked as q says, GNU's lines
 * and messages; the status GNU gives. */
int sh_digest_files(sh_ctx *cx, const sh_digest_req *q, int nops, char **ops);

#endif
