/* SPDX-License-Identifier: Apache-2.0 */
/* A whole `box run`: the agent's only network is the gateway, reached
 * through its sandbox's relay on the port the proxy names give; every
 * request is decided there (issue 22, item 5). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ftw.h>
#include <sys/socket.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_testutil.h"
#include "box_world.h"
#include "gw_fixture.h"

/* The origins are gw_fixture's (gwt_origin_start): on 127.0.0.2, which
 * NO_PROXY does not name, so every client goes through the proxy. */

static void
expect_out_line(const box_proc_result *r, const char *line)
{
    if (!box_test_has_line(r->pr_out, line)) {
        box_test_show_result("box run", r);
        fail_msg("no line '%s' in the agent's output", line);
    }
}

static const char policy[] =
    "permit (principal, action == Box::Action::\"shell:exec\", resource);\n"
    "@id(\"loopback\") permit (principal, action == "
    "Box::Action::\"net:connect\", resource) when { context.input.host like "
    "\"127.0.0.*\" };\n"
    "@id(\"ok_only\") permit (principal, action == "
    "Box::Action::\"http:request\", resource) when { context.input.path == "
    "\"/ok\" };\n";

/*
 * The agent (bash, for its /dev/tcp) speaks HTTP to the proxy port its
 * HTTP_PROXY names: inside the sandbox that is the relay, which reaches
 * the gateway's socket. A permitted request, a refused one, and a direct
 * connection to the upstream, which the sandbox's network cannot make.
 */
static void
test_agent_reaches_network_only_through_gateway(void **state)
{
    box_world *w = *state;
    gwt_upstream us;
    gwt_origin_start(&us, "127.0.0.2", NULL, 1);
    // The host's bash (its /dev/tcp), not the box's alias over it.
    w->bw_agent_keys = "shells = \"path-only\"";
    box_world_config_agent(w, "exec = [\"/usr/bin/bash\"]", "");
    box_world_policy(w, policy);
    char script[4096];
    snprintf(
        script, sizeof script,
        "p=${HTTP_PROXY##*:}\n"
        "echo \"proxy $HTTP_PROXY\"\n"
        "read -r l < \"$SSL_CERT_FILE\" && echo \"ca $l\"\n"
        "ask() {\n"
        "  /usr/bin/bash -c 'exec 3<>/dev/tcp/127.0.0.1/'$p' || exit 9\n"
        "    printf \"GET http://127.0.0.2:%u$1 HTTP/1.1\\r\\nHost: "
        "127.0.0.2:%u\\r\\nConnection: close\\r\\n\\r\\n\" >&3\n"
        "    while IFS= read -r l <&3; do printf \"%%s\\n\" \"$l\"; done' "
        "ask \"$1\"\n"
        "}\n"
        "ask /ok\n"
        "ask /no\n"
        "/usr/bin/bash -c 'exec 3<>/dev/tcp/127.0.0.2/%u' 2>/dev/null "
        "&& echo direct-reached || echo direct-refused\n",
        us.us_port, us.us_port, us.us_port);
    box_proc_result r;
    box_world_run(w, script, &r);
    gwt_origin_stop(&us);
    if (r.pr_status != 0)
        box_test_show_result("box run", &r);
    assert_int_equal(r.pr_status, 0);
    assert_true(strstr(r.pr_out, "proxy http://127.0.0.1:") != NULL);
    expect_out_line(&r, "ca -----BEGIN CERTIFICATE-----");
    // The \r the lines end in stays: HTTP's line ends.
    expect_out_line(&r, "HTTP/1.1 200 OK\r");
    expect_out_line(&r, "hello");
    expect_out_line(&r, "HTTP/1.1 403 Forbidden\r");
    expect_out_line(&r, "x-strands-box-egress: refused\r");
    char want[256];
    snprintf(want, sizeof want,
             "http:request gate: policy denied this operation on "
             "'127.0.0.2:%u/no' [default-deny]: No permit policy matched "
             "this request.",
             us.us_port);
    expect_out_line(&r, want);
    expect_out_line(&r, "direct-refused");
    box_proc_result_free(&r);
    char *log = box_world_decisions(w);
    snprintf(want, sizeof want, "permit http:request 127.0.0.2:%u/ok",
             us.us_port);
    if (!box_test_has_line(log, want))
        fail_msg("no '%s' in the decisions:\n%s", want, log);
    snprintf(want, sizeof want, "deny http:request 127.0.0.2:%u/no",
             us.us_port);
    if (!box_test_has_line(log, want))
        fail_msg("no '%s' in the decisions:\n%s", want, log);
    box_free(log);
}

/*
 * A host program in its own sandbox (the world's [tool.git]) reaches the
 * network the same way: git follows the proxy names to its relay, and
 * its request is decided at the gateway (path without the query).
 */
static void
test_tool_reaches_network_through_gateway(void **state)
{
    box_world *w = *state;
    // 127.0.0.2: NO_PROXY names 127.0.0.1 (box-spec §5), which git would
    // then try directly, and reach nothing in its sandbox.
    gwt_upstream us;
    gwt_origin_start(&us, "127.0.0.2", NULL, 1);
    // git runs its http helper (git-remote-http) from git-core.
    char tool[1024];
    snprintf(tool, sizeof tool, "%sexec = [\"/usr/lib/git-core\"]\n",
             box_world_git_tool);
    box_world_config(w, tool);
    char pol[sizeof policy + 256];
    snprintf(pol, sizeof pol,
             "%spermit (principal, action == Box::Action::\"shell:spawn\", "
             "resource);\n",
             policy);
    box_world_policy(w, pol);
    char script[512];
    snprintf(script, sizeof script,
             "zsh -c 'git ls-remote http://127.0.0.2:%u/ok'; "
             "echo \"git $?\"",
             us.us_port);
    box_proc_result r;
    box_world_run(w, script, &r);
    gwt_origin_stop(&us);
    if (r.pr_status != 0)
        box_test_show_result("box run", &r);
    assert_int_equal(r.pr_status, 0);
    // The upstream's answer is no git repository: git fails, after asking.
    expect_out_line(&r, "git 128");
    box_proc_result_free(&r);
    char *log = box_world_decisions(w);
    char want[256];
    snprintf(want, sizeof want, "permit net:connect 127.0.0.2:%u",
             us.us_port);
    if (!box_test_has_line(log, want))
        fail_msg("no '%s' in the decisions:\n%s", want, log);
    snprintf(want, sizeof want, "deny http:request 127.0.0.2:%u/ok/info/refs",
             us.us_port);
    if (!box_test_has_line(log, want))
        fail_msg("no '%s' in the decisions:\n%s", want, log);
    box_free(log);
}

/*
 * network.contain_egress = false (native egress): the tool is on the
 * host's network with no gateway, and the run is logged first as
 * `egress:native` (rule enforcement:native-egress, resource the label).
 */
static void
test_tool_native_egress(void **state)
{
    box_world *w = *state;
    gwt_upstream us;
    gwt_origin_start(&us, "127.0.0.2", NULL, 1);
    char tool[1024];
    snprintf(tool, sizeof tool,
             "%sexec = [\"/usr/lib/git-core\"]\n"
             "[tool.git.network]\ncontain_egress = false\n",
             box_world_git_tool);
    box_world_config(w, tool);
    char pol[sizeof policy + 256];
    snprintf(pol, sizeof pol,
             "%spermit (principal, action == Box::Action::\"shell:spawn\", "
             "resource);\n",
             policy);
    box_world_policy(w, pol);
    char script[512];
    snprintf(script, sizeof script,
             "zsh -c 'git ls-remote http://127.0.0.2:%u/ok'; "
             "echo \"git $?\"",
             us.us_port);
    box_proc_result r;
    box_world_run(w, script, &r);
    gwt_origin_stop(&us);
    assert_int_equal(r.pr_status, 0);
    // Upstream answered (no git repository there): git got through.
    expect_out_line(&r, "git 128");
    box_proc_result_free(&r);
    char *log = box_world_decisions(w);
    if (!box_test_has_line(log, "permit egress:native git"))
        fail_msg("no egress:native record in the decisions:\n%s", log);
    if (strstr(log, "net:connect") != NULL || strstr(log, "http:request"))
        fail_msg("a native-egress run went through the gateway:\n%s", log);
    box_free(log);
}

/* ---- credentials (box-spec §5 [egress.NAME], §6) ---- */

#define E2E_SECRET "e2e-real-secret-4242"

/* The file under the box directory that holds the real secret, if any
 * (nftw's callback has no argument: the finding goes through here). */
static char secret_found[PATH_MAX];

static int
secret_scan(const char *path, const struct stat *st, int type,
            struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (type != FTW_F)
        return 0;
    char *text = box_test_slurp_or_empty(path);
    bool hit = text != NULL && strstr(text, E2E_SECRET) != NULL;
    box_free(text);
    if (hit) {
        snprintf(secret_found, sizeof secret_found, "%s", path);
        return 1;
    }
    return 0;
}

/* Fails when any file under the box directory holds the real secret. */
static void
expect_secret_in_no_file(const box_world *w)
{
    secret_found[0] = '\0';
    assert_int_equal(nftw(w->bw_state, secret_scan, 16, FTW_PHYS), 0);
    if (secret_found[0] != '\0')
        fail_msg("the real secret is in %s", secret_found);
}

/* The phantom a line "WHAT strands_box_<64 hex>" names, or fails. */
static void
expect_phantom_line(const box_proc_result *r, const char *what, char *out)
{
    char key[64];
    snprintf(key, sizeof key, "%s strands_box_", what);
    const char *p = strstr(r->pr_out, key);
    if (p == NULL) {
        box_test_show_result("box run", r);
        fail_msg("no '%s…' line", key);
    }
    p += strlen(what) + 1;
    size_t n = strcspn(p, "\n");
    assert_int_equal(n, strlen("strands_box_") + 64);
    for (size_t i = strlen("strands_box_"); i < n; i++)
        assert_non_null(strchr("0123456789abcdef", p[i]));
    memcpy(out, p, n);
    out[n] = '\0';
}

/*
 * An env:// secret: the agent, its sandbox and every shell call hold the
 * same phantom under the name, never the secret; a plain-HTTP request to
 * the declared destination is refused before policy (the secret goes over
 * TLS only), and nothing in the box directory holds the secret.
 */
static void
test_credential_phantoms(void **state)
{
    box_world *w = *state;
    gwt_upstream us;
    gwt_origin_start(&us, "127.0.0.2", NULL, 1);
    char extra[512];
    snprintf(extra, sizeof extra,
             "[egress.api]\ndestinations = [\"127.0.0.2:%u\"]\n"
             "secret.ref = \"env://E2E_TOKEN\"\n"
             "[egress.other]\ndestinations = [\"other.example\"]\n"
             "secret.ref = \"env://E2E_OTHER\"\nsecret.inject = \"always\"\n",
             us.us_port);
    // The host's bash (its /dev/tcp), not the box's alias over it.
    w->bw_agent_keys = "shells = \"path-only\"";
    box_world_config_agent(w, "exec = [\"/usr/bin/bash\"]", extra);
    box_world_policy(w, policy);
    static const char *const env[] = {"E2E_TOKEN=" E2E_SECRET,
                                      "E2E_OTHER=other-secret", NULL};
    w->bw_env = env;
    char script[2048];
    snprintf(
        script, sizeof script,
        "echo \"agent $E2E_TOKEN\"\n"
        "zsh -c 'echo \"shell $E2E_TOKEN\"'\n"
        "p=${HTTP_PROXY##*:}\n"
        "/usr/bin/bash -c 'exec 3<>/dev/tcp/127.0.0.1/'$p' || exit 9\n"
        "  printf \"GET http://127.0.0.2:%u/ok HTTP/1.1\\r\\nHost: "
        "127.0.0.2:%u\\r\\nAuthorization: Bearer $E2E_TOKEN\\r\\n"
        "Connection: close\\r\\n\\r\\n\" >&3\n"
        "  while IFS= read -r l <&3; do printf \"%%s\\n\" \"$l\"; done'\n",
        us.us_port, us.us_port);
    box_proc_result r;
    box_world_run(w, script, &r);
    w->bw_env = NULL;
    gwt_origin_stop(&us);
    if (r.pr_status != 0)
        box_test_show_result("box run", &r);
    assert_int_equal(r.pr_status, 0);
    char agent_ph[128], shell_ph[128];
    expect_phantom_line(&r, "agent", agent_ph);
    expect_phantom_line(&r, "shell", shell_ph);
    assert_string_equal(agent_ph, shell_ph);
    box_test_expect_err_has(&r, "strands-box: warning: `[egress.other]` has "
                                "secret.inject = \"always\": every request to "
                                "its destinations carries the secret, "
                                "whatever sent it\n");
    expect_out_line(&r, "HTTP/1.1 403 Forbidden\r");
    expect_out_line(&r, "x-strands-box-egress: refused\r");
    expect_out_line(&r, "credential not permitted on a plaintext request");
    assert_null(strstr(r.pr_out, E2E_SECRET));
    assert_null(strstr(r.pr_err, E2E_SECRET));
    box_proc_result_free(&r);
    // Refused before policy: no http:request was decided.
    char *log = box_world_decisions(w);
    if (strstr(log, "http:request") != NULL)
        fail_msg("a refused credential reached policy:\n%s", log);
    box_free(log);
    expect_secret_in_no_file(w);
}

/*
 * The phantom reaches a TLS origin as the real secret: from the agent's
 * own git (in the agent's sandbox, through its relay) and from a
 * [tool.git] the shell starts (in the tool's sandbox), each sending the
 * phantom it holds in an Authorization field. The gateway trusts the
 * origin's CA because box run's SSL_CERT_FILE names it. The secret is in
 * no file of the box directory and in nothing the agent printed.
 */
static void
test_credential_reaches_origin(void **state)
{
    box_world *w = *state;
    char ca[PATH_MAX];
    snprintf(ca, sizeof ca, "%s/origin-ca.pem", w->bw_root);
    gwt_upstream us;
    gwt_origin_start(&us, "127.0.0.2", gwt_origin_tls("127.0.0.2", ca), 1);
    char extra[1024];
    snprintf(extra, sizeof extra,
             "%sexec = [\"/usr/lib/git-core\"]\n"
             "[egress.api]\ndestinations = [\"127.0.0.2:%u\"]\n"
             "secret.ref = \"env://E2E_TOKEN\"\n",
             box_world_git_tool, us.us_port);
    box_world_config_agent(
        w, "exec = [\"/usr/bin/git\", \"/usr/lib/git-core\"]", extra);
    char pol[sizeof policy + 512];
    snprintf(pol, sizeof pol,
             "%spermit (principal, action == Box::Action::\"shell:spawn\", "
             "resource);\npermit (principal, action == "
             "Box::Action::\"http:request\", resource) when { "
             "context.input.host == \"127.0.0.2\" };\n",
             policy);
    box_world_policy(w, pol);
    char ssl_env[PATH_MAX + 16];
    snprintf(ssl_env, sizeof ssl_env, "SSL_CERT_FILE=%s", ca);
    const char *env[] = {"E2E_TOKEN=" E2E_SECRET, ssl_env, NULL};
    w->bw_env = env;
    static const char *const how[] = {
        // the agent's own git, in the agent's sandbox
        "GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null /usr/bin/git -c "
        "http.extraHeader=\"Authorization: Bearer $E2E_TOKEN\" ls-remote "
        "https://127.0.0.2:%u/agent.git; echo \"git $?\"\n",
        // a [tool.git] the box's shell starts, in the tool's sandbox
        "zsh -c 'git -c http.extraHeader=\"Authorization: Bearer "
        "$E2E_TOKEN\" ls-remote https://127.0.0.2:%u/tool.git; echo "
        "\"git $?\"'\n",
    };
    static const char *const path[] = {"/agent.git/info/refs",
                                       "/tool.git/info/refs"};
    for (size_t i = 0; i < 2; i++) {
        char script[1024];
        snprintf(script, sizeof script, how[i], us.us_port);
        box_proc_result r;
        box_world_run(w, script, &r);
        if (getenv("E2E_SHOW") != NULL || r.pr_status != 0)
            box_test_show_result("box run", &r);
        assert_int_equal(r.pr_status, 0);
        // The origin's answer is no repository: git fails, after asking
        // with the secret in place of the phantom.
        expect_out_line(&r, "git 128");
        assert_null(strstr(r.pr_out, E2E_SECRET));
        assert_null(strstr(r.pr_err, E2E_SECRET));
        box_proc_result_free(&r);
        pthread_mutex_lock(&us.us_lock);
        bool swapped = strstr(us.us_last_head, "Authorization: Bearer "
                                               E2E_SECRET "\r\n") != NULL &&
                       strstr(us.us_last_head, path[i]) != NULL;
        if (!swapped)
            fail_msg("run %zu: the origin's last head:\n%s", i,
                     us.us_last_head);
        pthread_mutex_unlock(&us.us_lock);
    }
    w->bw_env = NULL;
    gwt_origin_stop(&us);
    expect_secret_in_no_file(w);
}

/* A secret that cannot be read refuses the run before anything starts. */
static void
test_credential_missing(void **state)
{
    box_world *w = *state;
    box_world_config(w, "[egress.api]\ndestinations = [\"api.example.com\"]\n"
                        "secret.ref = \"env://E2E_ABSENT\"\n");
    box_world_policy(w, policy);
    box_proc_result r;
    box_world_run(w, "echo ran", &r);
    box_test_expect_status(&r, 1);
    box_test_expect_err_has(&r, "strands-box: error: `[egress.api]`: "
                                "secret.ref env://E2E_ABSENT names a variable "
                                "that is not set in this environment\n");
    assert_null(strstr(r.pr_out, "ran"));
    box_proc_result_free(&r);
}

int
main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_agent_reaches_network_only_through_gateway, box_world_setup,
            box_world_teardown),
        cmocka_unit_test_setup_teardown(
            test_tool_reaches_network_through_gateway, box_world_setup,
            box_world_teardown),
        cmocka_unit_test_setup_teardown(test_tool_native_egress,
                                        box_world_setup, box_world_teardown),
        cmocka_unit_test_setup_teardown(test_credential_phantoms,
                                        box_world_setup, box_world_teardown),
        cmocka_unit_test_setup_teardown(test_credential_reaches_origin,
                                        box_world_setup, box_world_teardown),
        cmocka_unit_test_setup_teardown(test_credential_missing,
                                        box_world_setup, box_world_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
