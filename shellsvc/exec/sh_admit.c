/* SPDX-License-Identifier: Apache-2.0 */
/* The one admission point: every command becomes a shell:exec decision. */
#include <string.h>

#include "box_alloc.h"
#include "box_effect.h"
#include "sh_again.h"
#include "sh_internal.h"

/*
 * ARCHITECTURE §5: every command any route would run (top level, stages,
 * $( ), eval, command, function calls) comes here as a value. This file
 * prepares the command's values (the joined command, the §7 redaction),
 * has box_effect_request shape them into the request (box-spec §3.4 / §4
 * / §7) and asks the decider; it never runs anything and never reads
 * shell state, so the same function serves every thread. A decider that is
 * missing or answers anything but BOX_VERDICT_PERMIT is a refusal (fail
 * closed); a value outside the enum is read as a fault, which ends the call.
 */

#define SH_ADMIT_MAX_ARGS BOX_EFFECT_MAX_ARGS
#define SH_ADMIT_MAX_ATTR 4096u
#define SH_ADMIT_MAX_CMD ((size_t)1 << 20) // the joined command's bytes
#define SH_ADMIT_SMALL_CMD 256
#define SH_TRUNC_TAIL "\xe2\x80\xa6 (truncated)"

static bool
is_short_flag(const char *s)
{
    if (s[0] != '-' || s[1] == '\0' || s[1] == '-')
        return false;
    for (const char *p = s + 1; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9')))
            return false;
    return true;
}

/* Length of a valid long-flag name "--[a-z-]{1,32}" at s, or 0. */
static size_t
long_flag_len(const char *s)
{
    if (s[0] != '-' || s[1] != '-')
        return 0;
    size_t n = 0;
    while ((s[2 + n] >= 'a' && s[2 + n] <= 'z') || s[2 + n] == '-')
        n++;
    if (n == 0 || n > 32)
        return 0;
    return 2 + n;
}

/* s itself when it is within SH_ADMIT_MAX_ATTR; else a cut copy, put in
 * *owned (box_alloc'd, the caller frees it). NULL when out of memory. */
static const char *
cap_attr(const char *s, char **owned)
{
    size_t n = strlen(s);
    if (n <= SH_ADMIT_MAX_ATTR)
        return s;
    size_t keep = SH_ADMIT_MAX_ATTR - (sizeof SH_TRUNC_TAIL - 1);
    while (keep > 0 && ((unsigned char)s[keep] & 0xC0u) == 0x80u)
        keep--; // do not cut inside a UTF-8 sequence
    char *o = box_alloc(keep + sizeof SH_TRUNC_TAIL);
    if (o == NULL)
        return NULL;
    memcpy(o, s, keep);
    memcpy(o + keep, SH_TRUNC_TAIL, sizeof SH_TRUNC_TAIL);
    *owned = o;
    return o;
}

size_t
sh_admit_redact(const sh_cmd_value *cv, const char **out, char **owned,
                size_t max)
{
    size_t n = 0;
    if (max > SH_ADMIT_MAX_ARGS)
        max = SH_ADMIT_MAX_ARGS;
    for (int i = 0; i < cv->cv_argc && n < max; i++) {
        const char *a = cv->cv_argv[i];
        const char *r;
        owned[n] = NULL;
        if (i == 0 || cv->cv_expanded == NULL || !cv->cv_expanded[i] ||
            is_short_flag(a)) {
            // Most words are kept as they are: borrowed, not copied.
            r = cap_attr(a, &owned[n]);
        } else {
            size_t ln = long_flag_len(a);
            if (ln > 0 && a[ln] == '\0')
                r = a;
            else if (ln > 0 && a[ln] == '=')
                r = owned[n] = box_asprintf("%.*s=<redacted>", (int)ln, a);
            else
                r = "<redacted>";
        }
        if (r == NULL)
            break;
        out[n++] = r;
    }
    return n;
}

/* The permit of a command the decider served before, served again
 * through so_again when its token is still good: BOX_OK with the verdict
 * in *out; BOX_ENOENT to ask in full. Caller holds ss_lock. */
static box_err
admit_again(sh_session *ss, const sh_again_key *key, sh_admission *out)
{
    uint64_t token = sh_again_find(ss->ss_again, key);
    if (token == 0)
        return BOX_ENOENT;
    box_err rv = ss->ss_o.so_again(ss->ss_o.so_decide_arg, token);
    if (rv == BOX_ENOENT) {
        sh_again_drop(ss->ss_again, key);
        return rv;
    }
    out->ad_verdict = rv == BOX_OK ? BOX_VERDICT_PERMIT : BOX_VERDICT_FAULT;
    if (rv != BOX_OK)
        out->ad_message =
            box_strdup("the box could not report a permit served again");
    return BOX_OK;
}

box_err
sh_admit(sh_session *ss, const sh_cmd_value *cv, sh_admission *out)
{
    memset(out, 0, sizeof *out);
    out->ad_verdict = BOX_VERDICT_FAULT;
    box_err rv = BOX_ENOMEM;
    const char *args[SH_ADMIT_MAX_ARGS];
    char *owned[SH_ADMIT_MAX_ARGS];
    size_t nargs = 0;
    // Most commands are short: joined on the stack, not allocated.
    char small[SH_ADMIT_SMALL_CMD], *cmd = small;
    const char *cwd = cv->cv_cwd != NULL ? cv->cv_cwd : "/";

    if (cv->cv_argc < 1)
        return BOX_EINVAL;
    // A command served before, word for word: its request is the same.
    sh_again_key key;
    bool keyed = ss->ss_again != NULL && sh_again_key_of(cv, cwd, &key);
    if (keyed) {
        pthread_mutex_lock(&ss->ss_lock);
        box_err again = admit_again(ss, &key, out);
        pthread_mutex_unlock(&ss->ss_lock);
        if (again == BOX_OK)
            return BOX_OK;
    }
    // context.input.command: program + " " + args, single spaces (§3.4).
    size_t need = 0, at = 0;
    for (int i = 0; i < cv->cv_argc; i++)
        need += strlen(cv->cv_argv[i]) + 1;
    if (need - 1 > SH_ADMIT_MAX_CMD ||
        (need > sizeof small && (cmd = box_alloc(need)) == NULL)) {
        cmd = small;
        goto out;
    }
    for (int i = 0; i < cv->cv_argc; i++) {
        size_t n = strlen(cv->cv_argv[i]);
        memcpy(cmd + at, cv->cv_argv[i], n);
        at += n;
        cmd[at++] = ' ';
    }
    cmd[at - 1] = '\0'; // the last space
    nargs = sh_admit_redact(cv, args, owned, SH_ADMIT_MAX_ARGS);
    if (nargs == 0)
        goto out;

    box_effect e = {
        .e_kind = cv->cv_program_path != NULL ? BOX_EFFECT_SHELL_SPAWN
                                              : BOX_EFFECT_SHELL_EXEC,
        .e_cmd = {.ec_command = cmd,
                  .ec_argc = cv->cv_argc,
                  .ec_argv = cv->cv_argv,
                  .ec_cwd = cwd,
                  .ec_program_path = cv->cv_program_path,
                  // read only (protobuf-c's string type is char *)
                  .ec_args = (char *const *)args,
                  .ec_nargs = nargs},
    };
    box_effect_req er;
    const Box__DecisionRequest *rq = box_effect_request(&er, &e);
    if (rq == NULL)
        goto out;

    char *msg = NULL;
    box_verdict v = BOX_VERDICT_FAULT;
    pthread_mutex_lock(&ss->ss_lock);
    if (ss->ss_o.so_decide != NULL)
        v = ss->ss_o.so_decide(ss->ss_o.so_decide_arg, rq, &msg,
                               &out->ad_ticket);
    if (v == BOX_VERDICT_PERMIT && keyed && out->ad_ticket.bt_again != 0 &&
        !out->ad_ticket.bt_wanted)
        sh_again_put(ss->ss_again, &key, out->ad_ticket.bt_again);
    out->ad_ticket.bt_again = 0;
    pthread_mutex_unlock(&ss->ss_lock);
    out->ad_verdict = v;
    out->ad_message = msg;
    if (v != BOX_VERDICT_PERMIT)
        out->ad_ticket = (box_ticket){0};
    switch (v) {
    case BOX_VERDICT_PERMIT:
        box_free(out->ad_message);
        out->ad_message = NULL;
        break;
    case BOX_VERDICT_DENY:
        break;
    case BOX_VERDICT_FAULT:
    default: // a value outside the enum: the decider broke its contract
        out->ad_verdict = BOX_VERDICT_FAULT;
        break;
    }
    rv = BOX_OK;
out:
    for (size_t i = 0; i < nargs; i++)
        box_free(owned[i]);
    if (cmd != small)
        box_free(cmd);
    return rv;
}

void
sh_admit_finish(sh_session *ss, box_ticket *t, int status)
{
    if (!t->bt_wanted)
        return;
    box_outcome o = {.bo_kind = BOX_OUTCOME_STATUS, .bo_status = status};
    pthread_mutex_lock(&ss->ss_lock);
    if (ss->ss_o.so_record != NULL)
        ss->ss_o.so_record(ss->ss_o.so_record_arg, *t, &o);
    pthread_mutex_unlock(&ss->ss_lock);
    *t = (box_ticket){0};
}
