/* SPDX-License-Identifier: Apache-2.0 */
/* Escapes end to end under `box run`: links and `..` through the shell, the
 * reach floor, the agent's own sandbox, and policy reload mid-run. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_testutil.h"
#include "box_world.h"

#define ESC_WAIT_MS 60000

/* The reload agent waits with sleep, which its sandbox must list. */
static const char agent_sleep[] = "exec = [\"/usr/bin/sleep\"]\n";

/* Where the case is about the kernel, not policy. */
static const char permit_all[] = "permit (principal, action, resource);\n";

/* Every command; reads only inside the project. */
static const char project_only[] =
    "@id(\"shell_commands\")\n"
    "permit (principal, action == Box::Action::\"shell:exec\", resource);\n"
    "\n"
    "@id(\"project_read\")\n"
    "permit (principal, action == Box::Action::\"fs:read\", resource)\n"
    "when { context.input.path like \"~/src/project/*\" };\n";

static const char default_deny[] =
    "[default-deny]: No permit policy matched this request.";

static void
world_path(char *buf, size_t n, const char *dir, const char *rel)
{
    snprintf(buf, n, "%s/%s", dir, rel);
}

static void
world_link(const char *dir, const char *name, const char *target)
{
    char p[PATH_MAX];
    world_path(p, sizeof p, dir, name);
    assert_int_equal(symlink(target, p), 0);
}

/* The raw decision log (box-spec §7), one OTLP-JSON request a line. */
static char *
records(const box_world *w)
{
    char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/private/telemetry/records.jsonl", w->bw_state);
    char *s = box_test_slurp(p);
    assert_non_null(s);
    return s;
}

/* Lines of the raw log holding every one of the NULL-ended needles. */
static int
count_records(const char *log, ...)
{
    int n = 0;
    for (const char *l = log; *l != '\0';) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) : strlen(l);
        bool all = true;
        va_list ap;
        va_start(ap, log);
        for (const char *s; all && (s = va_arg(ap, const char *)) != NULL;)
            all = memmem(l, len, s, strlen(s)) != NULL;
        va_end(ap);
        n += all;
        l += len + (e ? 1 : 0);
    }
    return n;
}

#define ATTR(k, v) "{\"key\":\"" k "\",\"value\":{\"stringValue\":\"" v "\"}}"

/* ---- 1. escapes through the shell, from the workspace ----------------- */

/* A link to a host file outside every bind: the shell never leaves its
 * binds, so the walk is refused before policy is asked. */
static void
test_link_to_host_file(void **state)
{
    box_world *w = *state;
    world_link(w->bw_project, "passwd-link", "/etc/passwd");
    world_link(w->bw_project, "passwd-rel",
               "../../../../../../../../../../etc/passwd");
    box_world_config(w, "");
    box_world_policy(w, permit_all);
    box_proc_result r;
    box_world_run(w,
                  "sh -c 'cat passwd-link'; echo \"status $?\"\n"
                  "sh -c 'cat passwd-rel'; echo \"status $?\"",
                  &r);
    box_test_expect_status(&r, 0);
    box_test_expect_out(&r, "status 1\nstatus 1\n");
    box_test_expect_line(
        &r, "strands-shell: cat: passwd-link: symlink target escapes "
            "the bind mount");
    box_test_expect_line(
        &r, "strands-shell: cat: passwd-rel: symlink target escapes "
            "the bind mount");
    box_proc_result_free(&r);
    // Refused while resolving: no fs:* decision at all.
    box_world_expect_decisions(
        w, "permit shell:exec cat\npermit shell:exec cat\n");
}

/* A link inside the home to a file no permit covers: reads resolve links
 * before asking, so policy judges (and names) the TARGET. */
static void
test_link_to_unpermitted_file(void **state)
{
    box_world *w = *state;
    char p[PATH_MAX];
    world_path(p, sizeof p, w->bw_home, "secret.txt");
    box_world_put(p, "not for agents\n");
    world_link(w->bw_project, "secret-link", "../../secret.txt");
    box_world_config(w, "");
    box_world_policy(w, project_only);
    box_proc_result r;
    box_world_run(w,
                  "sh -c 'cat README.md'; echo \"status $?\"\n"
                  "sh -c 'cat secret-link'; echo \"status $?\"",
                  &r);
    box_test_expect_status(&r, 0);
    box_test_expect_out(&r, "# project\nstatus 0\nstatus 1\n");
    char want[256];
    snprintf(want, sizeof want,
             "strands-shell: cat: policy denied this operation on "
             "'~/secret.txt' %s",
             default_deny);
    box_test_expect_line(&r, want);
    box_proc_result_free(&r);
    box_world_expect_decisions(w, "permit shell:exec cat\n"
                                  "permit fs:read ~/src/project/README.md\n"
                                  "permit shell:exec cat\n"
                                  "deny fs:read ~/secret.txt\n");
}

/*
 * An absolute link whose target stays inside a bind is followed, and
 * policy judges the target (box-spec §3.6: every link followed before the
 * decision). §3.8's "host symlink with an absolute target ... is refused"
 * is read as the refusal to CREATE such a host link (ln -s), which the
 * kernel tests cover; following one that stays inside the binds reaches
 * nothing policy has not judged. A target outside every bind is refused
 * (test_link_to_etc_passwd).
 */
static void
test_absolute_link_inside_bind(void **state)
{
    box_world *w = *state;
    char p[PATH_MAX], t[PATH_MAX];
    world_path(t, sizeof t, w->bw_home, "secret.txt");
    box_world_put(t, "not for agents\n");
    world_link(w->bw_project, "secret-abs", t);
    world_path(p, sizeof p, w->bw_project, "README.md");
    world_link(w->bw_project, "readme-abs", p);
    box_world_config(w, "");
    box_world_policy(w, project_only);
    box_proc_result r;
    box_world_run(w,
                  "sh -c 'cat secret-abs'; echo \"status $?\"\n"
                  "sh -c 'cat readme-abs'; echo \"status $?\"",
                  &r);
    box_test_expect_status(&r, 0);
    box_test_expect_out(&r, "status 1\n# project\nstatus 0\n");
    box_test_expect_line(
        &r, "strands-shell: cat: policy denied this operation on "
            "'~/secret.txt' [default-deny]: No permit policy matched "
            "this request.");
    box_proc_result_free(&r);
    box_world_expect_decisions(w, "permit shell:exec cat\n"
                                  "deny fs:read ~/secret.txt\n"
                                  "permit shell:exec cat\n"
                                  "permit fs:read ~/src/project/README.md\n");
}

static void
test_link_loop(void **state)
{
    box_world *w = *state;
    world_link(w->bw_project, "a", "b");
    world_link(w->bw_project, "b", "a");
    box_world_config(w, "");
    box_world_policy(w, permit_all);
    box_proc_result r;
    box_world_run(w,
                  "sh -c 'cat a'; echo \"status $?\"\n"
                  "sh -c 'echo x > b'; echo \"status $?\"",
                  &r);
    box_test_expect_status(&r, 0);
    box_test_expect_out(&r, "status 1\nstatus 1\n");
    box_test_expect_line(
        &r, "strands-shell: cat: a: Too many levels of symbolic links");
    box_test_expect_line(&r,
                         "strands-shell: b: Too many levels of symbolic links");
    box_proc_result_free(&r);
    box_world_expect_decisions(
        w, "permit shell:exec cat\npermit shell:exec echo\n");
}

/* §3.6: "dangling symlinks replaced by their target": a read asks about
 * the target and finds nothing; a write creates the target and leaves
 * the link a link. */
static void
test_dangling_link(void **state)
{
    box_world *w = *state;
    world_link(w->bw_project, "dangling", "made.txt");
    box_world_config(w, "");
    box_world_policy(w, permit_all);
    box_proc_result r;
    box_world_run(w,
                  "sh -c 'cat dangling'; echo \"status $?\"\n"
                  "sh -c 'echo x > dangling'; echo \"status $?\"\n"
                  "sh -c 'cat dangling'; echo \"status $?\"",
                  &r);
    box_test_expect_status(&r, 0);
    box_test_expect_out(&r, "status 1\nstatus 0\nx\nstatus 0\n");
    box_test_expect_line(
        &r, "strands-shell: cat: dangling: No such file or directory");
    box_proc_result_free(&r);
    box_world_expect_decisions(w, "permit shell:exec cat\n"
                                  "permit fs:read ~/src/project/made.txt\n"
                                  "permit shell:exec echo\n"
                                  "permit fs:write ~/src/project/made.txt\n"
                                  "permit shell:exec cat\n"
                                  "permit fs:read ~/src/project/made.txt\n");
    char p[PATH_MAX];
    world_path(p, sizeof p, w->bw_project, "made.txt");
    char *made = box_test_slurp(p);
    assert_non_null(made);
    assert_string_equal(made, "x\n");
    box_free(made);
    struct stat st;
    world_path(p, sizeof p, w->bw_project, "dangling");
    assert_int_equal(lstat(p, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
}

/* `..` past the root folds to /etc/passwd, an in-memory path: absent. */
static void
test_dotdot_chain(void **state)
{
    box_world *w = *state;
    box_world_config(w, "");
    box_world_policy(w, permit_all);
    box_proc_result r;
    box_world_run(w,
                  "sh -c 'cat ../../../../../../etc/passwd'; "
                  "echo \"status $?\"\n"
                  "sh -c 'cat /etc/passwd'; echo \"status $?\"",
                  &r);
    box_test_expect_status(&r, 0);
    box_test_expect_out(&r, "status 1\nstatus 1\n");
    box_test_expect_line(
        &r, "strands-shell: cat: ../../../../../../etc/passwd: No such "
            "file or directory");
    box_test_expect_line(&r, "strands-shell: cat: /etc/passwd: No such file or "
                             "directory");
    box_proc_result_free(&r);
    box_world_expect_decisions(w, "permit shell:exec cat\n"
                                  "permit fs:read /etc/passwd\n"
                                  "permit shell:exec cat\n"
                                  "permit fs:read /etc/passwd\n");
}

/* ---- 2. the reach floor (§3.7) ---------------------------------------- */

static const char txt_authority[] =
    "resolves to an authority source that this run loaded, which no policy "
    "may open or change";
static const char txt_reserved[] =
    "resolves into trusted Box state, which no policy may open";

/* The floor overrides a permit-everything policy; the log records the
 * effective decision (deny, cause=enforcement, the reach-floor rule). */
static void
test_floor_authority_sources(void **state)
{
    box_world *w = *state;
    box_world_config(w, "");
    box_world_policy(w, permit_all);
    box_proc_result r;
    box_world_run(w,
                  "sh -c 'cat ~/cfg/box.toml'; echo \"status $?\"\n"
                  "sh -c 'cat ~/cfg/policy.dw'; echo \"status $?\"\n"
                  "sh -c 'echo x >> ~/cfg/policy.dw'; echo \"status $?\"",
                  &r);
    box_test_expect_status(&r, 0);
    box_test_expect_out(&r, "status 1\nstatus 1\nstatus 1\n");
    // The requested path is the word after `~` expansion.
    char want[PATH_MAX * 3];
    snprintf(want, sizeof want, "strands-shell: cat: %s: %s", w->bw_config,
             txt_authority);
    box_test_expect_line(&r, want);
    snprintf(want, sizeof want, "strands-shell: cat: %s: %s", w->bw_policy,
             txt_authority);
    box_test_expect_line(&r, want);
    // A redirect prints the floor's `<requested path>: <reason>` (§3.7).
    snprintf(want, sizeof want, "strands-shell: %s: %s", w->bw_policy,
             txt_authority);
    box_test_expect_line(&r, want);
    box_proc_result_free(&r);

    char *pol = box_test_slurp(w->bw_policy);
    assert_string_equal(pol, permit_all);
    box_free(pol);
    box_world_expect_decisions(w, "permit shell:exec cat\n"
                                  "deny fs:read ~/cfg/box.toml\n"
                                  "permit shell:exec cat\n"
                                  "deny fs:read ~/cfg/policy.dw\n"
                                  "permit shell:exec echo\n"
                                  "deny fs:write ~/cfg/policy.dw\n");
    char *log = records(w);
    assert_int_equal(
        count_records(
            log, ATTR("strands.box.policy.verdict", "deny"),
            ATTR("strands.box.policy.cause", "enforcement"),
            ATTR("strands.box.policy.rule", "enforcement:reach-floor"), NULL),
        3);
    assert_int_equal(
        count_records(log,
                      ATTR("strands.box.policy.resource", "~/cfg/policy.dw"),
                      ATTR("strands.box.policy.reason",
                           "resolves to an authority source that "
                           "this run loaded, which no policy may "
                           "open or change"),
                      NULL),
        2);
    box_free(log);
}

/* A box directory inside the home is host-backed, so the floor guards it. */
static void
test_floor_box_dir_in_home(void **state)
{
    box_world *w = *state;
    // The world's box directory moves from <root>/state to ~/.box.
    snprintf(w->bw_state, sizeof w->bw_state, "%s/.box", w->bw_home);
    box_world_config(w, "");
    box_world_policy(w, permit_all);
    box_proc_result r;
    box_world_run(w,
                  "sh -c 'ls ~/.box'; echo \"status $?\"\n"
                  "sh -c 'cat ~/.box/private/box-id'; echo \"status $?\"\n"
                  "sh -c 'echo x > ~/.box/run/planted'; echo \"status $?\"",
                  &r);
    box_test_expect_status(&r, 0);
    box_test_expect_out(&r, "status 2\nstatus 1\nstatus 1\n");
    char want[PATH_MAX * 3];
    snprintf(want, sizeof want, "strands-shell: ls: %s: %s", w->bw_state,
             txt_reserved);
    box_test_expect_line(&r, want);
    snprintf(want, sizeof want, "strands-shell: cat: %s/private/box-id: %s",
             w->bw_state, txt_reserved);
    box_test_expect_line(&r, want);
    snprintf(want, sizeof want, "strands-shell: %s/run/planted: %s",
             w->bw_state, txt_reserved);
    box_test_expect_line(&r, want);
    box_proc_result_free(&r);

    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/run/planted", w->bw_state);
    assert_int_equal(access(p, F_OK), -1);
    box_world_expect_decisions(w, "permit shell:exec ls\n"
                                  "deny fs:read ~/.box\n"
                                  "permit shell:exec cat\n"
                                  "deny fs:read ~/.box/private/box-id\n"
                                  "permit shell:exec echo\n"
                                  "deny fs:write ~/.box/run/planted\n");
    char *log = records(w);
    assert_int_equal(
        count_records(
            log, ATTR("strands.box.policy.cause", "enforcement"),
            ATTR("strands.box.policy.rule", "enforcement:reach-floor"),
            ATTR("strands.box.policy.reason",
                 "resolves into trusted Box state, which no policy "
                 "may open"),
            NULL),
        3);
    box_free(log);
}

/* ---- 3. the agent's own sandbox --------------------------------------- */

/* The agent (dash in box-contain) runs these itself, not through the
 * shell service: no policy is asked, the kernel answers. Of the box
 * directory it reaches bin/ and run/box.sock, nothing else: every other
 * socket and directory there is gone, not just unreadable. It executes
 * only what it lists (connect_probe, ls, cat) and the aliases. */
static void
test_agent_sandbox(void **state)
{
    box_world *w = *state;
    char bin[PATH_MAX], probe[PATH_MAX];
    box_proc_bin(bin, sizeof bin, "connect_probe");
    assert_non_null(realpath(bin, probe));
    char fs[PATH_MAX + 64];
    snprintf(fs, sizeof fs,
             "exec = [\"%s\", \"/usr/bin/ls\", \"/usr/bin/cat\"]\n", probe);
    box_world_config_agent(w, fs, "");
    box_world_policy(w, permit_all);
    char script[PATH_MAX * 12];
    snprintf(
        script, sizeof script,
        "echo x > direct.txt; echo \"direct $?\"\n"
        "for s in private/pdp.sock private/pdp-epoch.sock "
        "private/shell-ctl.sock private/gateway-ctl.sock run/egress.sock "
        "run/box.sock; do\n"
        "  %s %s/$s; echo \"$s $?\"\n"
        "done\n"
        "ls %s/private; echo \"ls $?\"\n"
        "ls %s/trust; echo \"trust $?\"\n"
        "while read -r l; do echo \"$l\"; break; done < %s/trust/cert.pem; "
        "echo \"ca $?\"\n"
        "cat /etc/shadow; echo \"shadow $?\"\n"
        "cat %s; echo \"policy $?\"\n"
        "/usr/bin/env; echo \"env $?\"\n"
        "sh -c 'echo through the alias'; echo \"alias $?\"",
        probe, w->bw_state, w->bw_state, w->bw_state, w->bw_state,
        w->bw_policy);
    box_proc_result r;
    box_world_run(w, script, &r);
    box_test_expect_status(&r, 0);
    box_test_expect_out(&r, "direct 2\n"
                            "refused: No such file or directory\n"
                            "private/pdp.sock 1\n"
                            "refused: No such file or directory\n"
                            "private/pdp-epoch.sock 1\n"
                            "refused: No such file or directory\n"
                            "private/shell-ctl.sock 1\n"
                            "refused: No such file or directory\n"
                            "private/gateway-ctl.sock 1\n"
                            // The gateway's socket is the relay's to
                            // reach, not the agent's.
                            "refused: No such file or directory\n"
                            "run/egress.sock 1\n"
                            "connected\n"
                            "run/box.sock 0\n"
                            "ls 2\n"
                            "trust 2\n"
                            // Only the run's CA certificate shows, which
                            // the trust names point at.
                            "-----BEGIN CERTIFICATE-----\n"
                            "ca 0\n"
                            "shadow 1\n"
                            "policy 1\n"
                            "env 126\n"
                            "through the alias\n"
                            "alias 0\n");
    char want[PATH_MAX * 3];
    snprintf(want, sizeof want,
             "%s: 2: cannot create direct.txt: Permission denied", w->bw_agent);
    box_test_expect_line(&r, want);
    snprintf(want, sizeof want,
             "ls: cannot access '%s/private': No such file or directory",
             w->bw_state);
    box_test_expect_line(&r, want);
    // The CA is read where it lies; its directory is not listed.
    snprintf(want, sizeof want,
             "ls: cannot open directory '%s/trust': Permission denied",
             w->bw_state);
    box_test_expect_line(&r, want);
    box_test_expect_line(&r, "cat: /etc/shadow: Permission denied");
    snprintf(want, sizeof want, "cat: %s: Permission denied", w->bw_policy);
    box_test_expect_line(&r, want);
    snprintf(want, sizeof want, "%s: 11: /usr/bin/env: Permission denied",
             w->bw_agent);
    box_test_expect_line(&r, want);
    box_proc_result_free(&r);
    char p[PATH_MAX];
    world_path(p, sizeof p, w->bw_project, "direct.txt");
    assert_int_equal(access(p, F_OK), -1);
    // Only the alias call reached policy.
    box_world_expect_decisions(w, "permit shell:exec echo\n");
}

/* ---- 4. reload while the box runs ------------------------------------- */

/* box-pdp's pid, from `strands-box: box-pdp up · pid N · …`. */
static pid_t
live_pdp_pid(box_world_live *lv)
{
    static const char tag[] = "strands-box: box-pdp up \xc2\xb7 pid ";
    box_world_live_wait(lv, 2, tag, 1, ESC_WAIT_MS);
    const char *p = strstr(box_world_live_text(lv, 2), tag);
    long pid = strtol(p + sizeof tag - 1, NULL, 10);
    assert_true(pid > 1);
    return (pid_t)pid;
}

static const char readme_forbidden[] =
    "permit (principal, action, resource);\n"
    "\n"
    "@id(\"no_readme\")\n"
    "@description(\"The README is off limits now.\")\n"
    "forbid (principal, action == Box::Action::\"fs:read\", resource)\n"
    "when { context.input.path == \"~/src/project/README.md\" };\n";

/*
 * The agent reads README.md, says "phase N", and waits for the test's go
 * file before the next phase (stat is never restricted in its sandbox, so
 * `[ -e ]` sees the host file; the wait is bounded).
 */
static void
reload_script(const box_world *w, int phases, char *out, size_t n)
{
    size_t used = 0;
    for (int i = 1; i <= phases && used < n; i++) {
        int k = snprintf(out + used, n - used,
                         "sh -c 'cat README.md'; echo \"phase %d $?\"\n", i);
        used += (size_t)k;
        if (i < phases && used < n) {
            k = snprintf(out + used, n - used,
                         "i=0; while [ ! -e %s/go%d ] && [ $i -lt 600 ]; do "
                         "sleep 0.1; i=$((i+1)); done\n",
                         w->bw_root, i);
            used += (size_t)k;
        }
    }
    assert_true(used < n);
}

static void
go(const box_world *w, int phase)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/go%d", w->bw_root, phase);
    box_world_put(p, "");
}

/* SIGHUP after a rewrite: the new forbid decides the next read (a permit
 * cached from the first read is not served across the epoch). */
static void
test_reload_forbid(void **state)
{
    box_world *w = *state;
    box_world_config_agent(w, agent_sleep, "");
    box_world_policy(w, permit_all);
    char script[4096];
    reload_script(w, 2, script, sizeof script);
    box_world_live lv;
    box_world_live_start(w, script, &lv);
    pid_t pdp = live_pdp_pid(&lv);
    box_world_live_wait(&lv, 1, "phase 1 ", 1, ESC_WAIT_MS);
    box_world_policy(w, readme_forbidden);
    assert_int_equal(kill(pdp, SIGHUP), 0);
    // box-pdp says so on its stderr, which is box run's.
    box_world_live_wait(&lv, 2, "msg=\"policy installed, epoch", 2,
                        ESC_WAIT_MS);
    go(w, 1);
    box_proc_result r;
    box_world_live_finish(&lv, ESC_WAIT_MS, &r);
    box_test_expect_status(&r, 0);
    box_test_expect_out(&r, "# project\nphase 1 0\nphase 2 1\n");
    box_test_expect_line(&r,
                         "strands-shell: cat: policy denied this operation on "
                         "'~/src/project/README.md' [policy: no_readme]: The "
                         "README is off limits now.");
    box_proc_result_free(&r);
    box_world_expect_decisions(w, "permit shell:exec cat\n"
                                  "permit fs:read ~/src/project/README.md\n"
                                  "permit shell:exec cat\n"
                                  "deny fs:read ~/src/project/README.md\n");
}

/* printf is refused from the next generation on. */
static const char printf_forbidden[] =
    "permit (principal, action, resource);\n"
    "\n"
    "@id(\"no_printf\")\n"
    "forbid (principal, action == Box::Action::\"shell:exec\", resource)\n"
    "when { context.input.program == \"printf\" };\n";

/*
 * A reload reaches a call that is running: the loop's printf is permitted
 * once, then served from the worker's per-call cache; once the new
 * generation is in force the cache is no longer served, the next printf
 * is asked and refused, and the loop ends (with its body's last status).
 * Without the validity word the loop would run to the call's 30 s budget.
 */
static void
test_reload_inside_a_call(void **state)
{
    box_world *w = *state;
    box_world_config_agent(w, agent_sleep, "");
    box_world_policy(w, permit_all);
    static const char script[] =
        "sh -c 'i=0; while printf \"\"; do i=$((i+1)); "
        "[ $i -eq 200 ] && echo looping; done; echo \"ended $?\"'\n";
    box_world_live lv;
    box_world_live_start(w, script, &lv);
    pid_t pdp = live_pdp_pid(&lv);
    box_world_live_wait(&lv, 1, "looping", 1, ESC_WAIT_MS);
    box_world_policy(w, printf_forbidden);
    assert_int_equal(kill(pdp, SIGHUP), 0);
    box_proc_result r;
    box_world_live_finish(&lv, ESC_WAIT_MS, &r);
    box_test_expect_status(&r, 0);
    box_test_expect_out(&r, "looping\nended 1\n");
    box_test_expect_line(&r, "strands-shell: effect denied: policy denied "
                             "this operation on 'printf' [policy: "
                             "no_printf].");
    box_proc_result_free(&r);
    // Every printf the loop ran is in the log, most served from a cache.
    char *d = box_world_decisions(w);
    size_t permits = 0, denies = 0;
    for (const char *l = d; (l = strstr(l, "shell:exec printf")) != NULL; l++)
        permits++;
    for (const char *l = d; (l = strstr(l, "deny shell:exec printf")) != NULL;
         l++)
        denies++;
    box_free(d);
    assert_int_equal(denies, 1);
    assert_true(permits >= 201);
}

/* A file that does not load leaves the generation in force, and says so in
 * the decision log. Then a good file installs again. */
static void
test_reload_refused(void **state)
{
    box_world *w = *state;
    box_world_config_agent(w, agent_sleep, "");
    box_world_policy(w, readme_forbidden);
    char script[4096];
    reload_script(w, 3, script, sizeof script);
    box_world_live lv;
    box_world_live_start(w, script, &lv);
    pid_t pdp = live_pdp_pid(&lv);
    box_world_live_wait(&lv, 1, "phase 1 ", 1, ESC_WAIT_MS);
    box_world_policy(w, "permit (principal, action, resource)\n"); // no ';'
    assert_int_equal(kill(pdp, SIGHUP), 0);
    box_world_live_wait(&lv, 2,
                        "msg=\"policy refused, the old generation stays in "
                        "force: ",
                        1, ESC_WAIT_MS);
    go(w, 1);
    box_world_live_wait(&lv, 1, "phase 2 ", 1, ESC_WAIT_MS);
    box_world_policy(w, permit_all);
    assert_int_equal(kill(pdp, SIGHUP), 0);
    box_world_live_wait(&lv, 2, "msg=\"policy installed, epoch", 2,
                        ESC_WAIT_MS);
    go(w, 2);
    box_proc_result r;
    box_world_live_finish(&lv, ESC_WAIT_MS, &r);
    box_test_expect_status(&r, 0);
    box_test_expect_out(&r, "phase 1 1\nphase 2 1\n# project\nphase 3 0\n");
    box_proc_result_free(&r);
    box_world_expect_decisions(w, "permit shell:exec cat\n"
                                  "deny fs:read ~/src/project/README.md\n"
                                  "permit shell:exec cat\n"
                                  "deny fs:read ~/src/project/README.md\n"
                                  "permit shell:exec cat\n"
                                  "permit fs:read ~/src/project/README.md\n");
    char *log = records(w);
    char subject[PATH_MAX + 128];
    snprintf(subject, sizeof subject, ATTR("strands.box.control.subject", "%s"),
             w->bw_policy);
    assert_int_equal(
        count_records(log, "\"scope\":{\"name\":\"strands-box.control\"}",
                      ATTR("strands.box.control.operation", "policy_refused"),
                      ATTR("strands.box.control.outcome", "refused"), subject,
                      "\"key\":\"strands.box.control.reason\"", NULL),
        1);
    // The start and the good reload; the refused file installed nothing.
    assert_int_equal(
        count_records(log,
                      ATTR("strands.box.control.operation", "policy_installed"),
                      NULL),
        2);
    box_free(log);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
#define T(f)                                                                   \
    cmocka_unit_test_setup_teardown(f, box_world_setup, box_world_teardown)
        T(test_link_to_host_file),
        T(test_link_to_unpermitted_file),
        T(test_absolute_link_inside_bind),
        T(test_link_loop),
        T(test_dangling_link),
        T(test_dotdot_chain),
        T(test_floor_authority_sources),
        T(test_floor_box_dir_in_home),
        T(test_agent_sandbox),
        T(test_reload_forbid),
        T(test_reload_inside_a_call),
        T(test_reload_refused),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
