/* SPDX-License-Identifier: Apache-2.0 */
/* Launch frames: descriptors, the permit, the argv, the launcher. */
#include "broker_launch.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_fdpass.h"
#include "box_log.h"
#include "sh_launcher.h"
#include "sh_spawn.h"

#define BL_SVC "box-shell"
#define BL_PERMITS_MAX 32 // a call's pipeline stages decide, then launch
#define BL_FDS_MAX 3      // stdin, stdout, stderr

/*
 * One unused shell:spawn permit: the fields of the request's input, which
 * are what the PDP decided on (the subject's command_args are for the log
 * only, redacted and cut): the command (argv joined by single spaces),
 * the word, the program found, the cwd, the count and first two
 * arguments. A launch binds to all of them, so it is exactly as told
 * apart as the request the policy saw.
 */
typedef struct bl_permit {
    char *bp_command;      // input.command
    char *bp_program;      // argv[0] as typed
    char *bp_program_path; // the reported path
    char *bp_cwd;
    char *bp_arg[2]; // argv[1], argv[2], or NULL when there are fewer
    int64_t bp_arg_count;
} bl_permit;

struct broker_permits {
    bl_permit bs_p[BL_PERMITS_MAX];
    size_t bs_n;
};

broker_permits *
broker_permits_new(void)
{
    return box_calloc(1, sizeof(broker_permits));
}

static void
bl_permit_clear(bl_permit *p)
{
    box_free(p->bp_command);
    box_free(p->bp_program);
    box_free(p->bp_program_path);
    box_free(p->bp_cwd);
    box_free(p->bp_arg[0]);
    box_free(p->bp_arg[1]);
    memset(p, 0, sizeof *p);
}

static void
bl_drop(broker_permits *ps, size_t i)
{
    bl_permit_clear(&ps->bs_p[i]);
    memmove(&ps->bs_p[i], &ps->bs_p[i + 1],
            (ps->bs_n - i - 1) * sizeof ps->bs_p[0]);
    ps->bs_n--;
    memset(&ps->bs_p[ps->bs_n], 0, sizeof ps->bs_p[0]);
}

void
broker_permits_free(broker_permits *p)
{
    if (p == NULL)
        return;
    while (p->bs_n > 0)
        bl_drop(p, p->bs_n - 1);
    box_free(p);
}

/* The input record's field name, or NULL. */
static const Box__Value *
bl_field(const Box__DecisionRequest *req, const char *name)
{
    const Box__Value *in = req->input;
    if (in == NULL || in->kind_case != BOX__VALUE__KIND_RECORD ||
        in->record == NULL)
        return NULL;
    for (size_t i = 0; i < in->record->n_fields; i++) {
        const Box__RecordField *f = in->record->fields[i];
        if (f != NULL && f->name != NULL && strcmp(f->name, name) == 0)
            return f->value;
    }
    return NULL;
}

/* A string field's copy (NULL and *ok untouched when absent; *ok false
 * when present but not a string, or out of memory). */
static char *
bl_str(const Box__DecisionRequest *req, const char *name, bool *ok)
{
    const Box__Value *v = bl_field(req, name);
    if (v == NULL)
        return NULL;
    if (v->kind_case != BOX__VALUE__KIND_STR || v->str == NULL) {
        *ok = false;
        return NULL;
    }
    char *c = box_strdup(v->str);
    if (c == NULL)
        *ok = false;
    return c;
}

void
broker_permits_note(broker_permits *ps, const Box__DecisionRequest *req)
{
    if (req->action == NULL || strcmp(req->action, "shell:spawn") != 0)
        return;
    const Box__Value *count = bl_field(req, "arg_count");
    if (count == NULL || count->kind_case != BOX__VALUE__KIND_LONG)
        return; // not a request the shell builds: its launch is refused
    bl_permit p = {.bp_arg_count = count->long_};
    bool ok = true;
    p.bp_command = bl_str(req, "command", &ok);
    p.bp_program = bl_str(req, "program", &ok);
    p.bp_program_path = bl_str(req, "program_path", &ok);
    p.bp_cwd = bl_str(req, "cwd", &ok);
    p.bp_arg[0] = bl_str(req, "arg1", &ok);
    p.bp_arg[1] = bl_str(req, "arg2", &ok);
    if (!ok || p.bp_command == NULL || p.bp_program == NULL ||
        p.bp_program_path == NULL || p.bp_cwd == NULL) {
        bl_permit_clear(&p); // never noted: refused, never wrongly allowed
        return;
    }
    if (ps->bs_n == BL_PERMITS_MAX)
        bl_drop(ps, 0);
    ps->bs_p[ps->bs_n++] = p;
}

/* A decided argument against the launch's (NULL: the launch has none). */
static bool
bl_same(const char *decided, const Box__Launch *l, size_t k)
{
    if (k >= l->n_argv)
        return decided == NULL;
    return decided != NULL && strcmp(decided, l->argv[k]) == 0;
}

/* The launch's argv as the shell joins it into input.command (caller
 * frees; NULL when out of memory). */
static char *
bl_join(const Box__Launch *l)
{
    box_buf b;
    box_buf_init(&b, (size_t)1 << 20);
    for (size_t i = 0; i < l->n_argv; i++)
        if ((i > 0 && box_buf_putc(&b, ' ') != BOX_OK) ||
            box_buf_puts(&b, l->argv[i]) != BOX_OK) {
            box_buf_reset(&b);
            return NULL;
        }
    char *s = b.b_data != NULL ? b.b_data : box_strdup("");
    return s;
}

/* Takes the permit that decided this launch (bl_permit says what binds). */
static bool
bl_take(broker_permits *ps, const char *reported, const Box__Launch *l)
{
    char *command = bl_join(l);
    bool found = false;
    for (size_t i = 0; command != NULL && !found && i < ps->bs_n; i++) {
        const bl_permit *p = &ps->bs_p[i];
        if (strcmp(p->bp_command, command) != 0 || p->bp_arg_count < 0 ||
            (uint64_t)p->bp_arg_count + 1 != l->n_argv ||
            strcmp(p->bp_program, l->argv[0]) != 0 ||
            strcmp(p->bp_program_path, reported) != 0 ||
            strcmp(p->bp_cwd, l->cwd) != 0 || !bl_same(p->bp_arg[0], l, 1) ||
            !bl_same(p->bp_arg[1], l, 2))
            continue;
        bl_drop(ps, i);
        found = true;
    }
    box_free(command);
    return found;
}

/* The run's descriptors, sent before the frame: n of them, or -1 (none,
 * or a message box_fdpass refused, whatever it carried closed). */
static int
bl_recv_fds(int sock, int fds[BL_FDS_MAX])
{
    char op;
    int n = box_fdpass_recv(sock, &op, fds, BL_FDS_MAX, MSG_DONTWAIT);
    return n >= 0 ? n : -1;
}

/* One descriptor to the worker on its descriptor socket. */
static box_err
bl_send_fd(int sock, int fd)
{
    return box_fdpass_send(sock, 'S', &fd, 1, MSG_DONTWAIT);
}

/* A tool with native egress runs only once its `egress:native` record is
 * in the decision log (box-spec §3.9): unlogged, it does not run. */
static box_err
bl_native(box_pdp_client *pdp, const char *label, char **err)
{
    Box__DecisionRequest req = BOX__DECISION_REQUEST__INIT;
    Box__Enforcement en = BOX__ENFORCEMENT__INIT;
    char reason[160];
    snprintf(reason, sizeof reason,
             "[tool.%.64s] runs with native egress: no gateway decides its "
             "connections",
             label);
    en.gate = (char *)"native-egress";
    en.reason = reason;
    req.action = (char *)"egress:native";
    req.resource = (char *)label;
    req.enforcement = &en;
    box_pdp_answer a;
    box_err rv = pdp != NULL ? box_pdp_decide(pdp, &req, &a) : BOX_EINVAL;
    bool ok = pdp != NULL && rv == BOX_OK && a.pa_verdict == BOX_VERDICT_PERMIT;
    if (!ok)
        *err = box_asprintf("[tool.%s] has native egress, and its "
                            "egress:native record could not be logged: %s",
                            label,
                            pdp != NULL && a.pa_message ? a.pa_message
                                                        : "no PDP");
    if (pdp != NULL)
        box_pdp_answer_clear(&a);
    return ok ? BOX_OK : BOX_EDENIED;
}

box_err
broker_launch(const broker_launch_cfg *cfg, broker_permits *ps, int fds_sock,
              const Box__Launch *l, bool *started, char **refusal)
{
    const worker_settings *ws = cfg->bl_settings;
    int fds[BL_FDS_MAX];
    int n = bl_recv_fds(fds_sock, fds);
    box_argv cargv = {0};
    char *reported = NULL, *err = NULL, *native = NULL;
    box_err rv = BOX_EPROTO;

    *started = false;
    *refusal = NULL;
    if (n != (l->has_stdin ? 3 : 2) || l->n_argv == 0 || l->cwd == NULL ||
        l->cwd[0] != '/' || l->n_argv > INT32_MAX)
        goto out;
    for (size_t i = 0; i < l->n_argv; i++)
        if (l->argv[i] == NULL)
            goto out;
    const int *io = fds + (l->has_stdin ? 1 : 0);
    sh_spawn_run_opts o = {.ro_contain = ws->ws_contain_bin,
                           .ro_cwd = l->cwd,
                           .ro_workspace = ws->ws_workspace,
                           .ro_box_dir = ws->ws_box_dir,
                           .ro_egress = ws->ws_egress};
    rv = BOX_OK;
    if (ws->ws_config == NULL || ws->ws_contain_bin == NULL) {
        *refusal = box_strdup("host-binary execution requires a contained "
                              "spawner; none is installed");
        goto out;
    }
    box_err pr = sh_spawn_prepare(ws->ws_config, ws->ws_trusted_path,
                                  ws->ws_operator_home, (int)l->n_argv, l->argv,
                                  &o, &reported, &cargv, &native, &err);
    if (pr == BOX_OK && !bl_take(ps, reported, l)) {
        box_log(BOX_LOG_WARN, BL_SVC,
                "a shell worker asked to launch %s with no permit for it; "
                "refused",
                reported);
        err = box_strdup("no shell:spawn permit names this run");
        pr = BOX_EDENIED;
    }
    if (pr == BOX_OK && native != NULL)
        pr = bl_native(cfg->bl_pdp, native, &err);
    // The status pipe is the broker's own: the launcher writes to nothing
    // the worker chose (a full pipe would block it), and its read end goes
    // to the worker before the answer.
    int st_fd = -1;
    const int run_io[3] = {l->has_stdin ? fds[0] : -1, io[0], io[1]};
    if (pr == BOX_OK)
        pr = sh_launcher_run(cfg->bl_launcher, cargv.av_v, run_io, &st_fd);
    if (pr == BOX_OK) {
        pr = bl_send_fd(fds_sock, st_fd);
        close(st_fd); // the worker has it, or the run dies with this close
    }
    if (pr == BOX_OK) {
        *started = true;
    } else if (pr == BOX_EDENIED) {
        *refusal = err;
        err = NULL;
    } else {
        *refusal = box_asprintf("the box could not start the program: %s",
                                box_strerror(pr));
    }
out:
    for (int i = 0; i < n; i++)
        close(fds[i]);
    box_free(err);
    box_free(reported);
    box_free(native);
    box_argv_free(&cargv);
    return rv;
}
