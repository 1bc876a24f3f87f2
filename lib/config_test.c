/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for the box.toml loader: every field, every refusal with its exact
 * text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "config.h"

/* Every file the tests write lives under one mkdtemp directory. */
typedef struct fixture {
    char fx_dir[PATH_MAX];       // resolved, so messages can be predicted
    char fx_conf[PATH_MAX + 16]; // fx_dir/box.toml
} fixture;

/* The two keys every valid file needs, so a case states only its own. */
#define HEAD "name = \"demo\"\nbox_dir = \"/var/lib/box\"\n"

/* ---- fixture ---- */

static int
rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(p);
}

static int
group_setup(void **state)
{
    fixture *fx = box_calloc(1, sizeof(*fx));
    if (fx == NULL)
        return -1;
    const char *tmp = getenv("TMPDIR");
    char tmpl[PATH_MAX];
    snprintf(tmpl, sizeof(tmpl), "%s/box-config-test.XXXXXX",
             tmp != NULL && tmp[0] == '/' ? tmp : "/tmp");
    if (mkdtemp(tmpl) == NULL || realpath(tmpl, fx->fx_dir) == NULL) {
        box_free(fx);
        return -1;
    }
    snprintf(fx->fx_conf, sizeof(fx->fx_conf), "%s/box.toml", fx->fx_dir);
    *state = fx;
    return 0;
}

static int
group_teardown(void **state)
{
    fixture *fx = *state;
    int rv = nftw(fx->fx_dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    box_free(fx);
    return rv;
}

/* tmpl with @D replaced by the fixture directory and @P by the config
 * path; the caller frees it. */
static char *
expand(const fixture *fx, const char *tmpl)
{
    box_buf b;
    box_buf_init(&b, 1u << 24);
    for (const char *p = tmpl; *p != '\0'; p++) {
        box_err rv;
        if (p[0] == '@' && p[1] == 'D') {
            rv = box_buf_puts(&b, fx->fx_dir);
            p++;
        } else if (p[0] == '@' && p[1] == 'P') {
            rv = box_buf_puts(&b, fx->fx_conf);
            p++;
        } else {
            rv = box_buf_putc(&b, *p);
        }
        assert_int_equal(rv, BOX_OK);
    }
    char *s = box_buf_take(&b);
    assert_non_null(s);
    return s;
}

/* Writes len bytes to fx_dir/name (after @-expansion of the path). */
static void
write_file_len(const fixture *fx, const char *name, const char *text,
               size_t len, mode_t mode)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof(path), "%s/%s", fx->fx_dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    assert_true(fd >= 0);
    size_t off = 0;
    while (off < len) {
        ssize_t n = write(fd, text + off, len - off);
        assert_true(n > 0);
        off += (size_t)n;
    }
    assert_int_equal(fchmod(fd, mode), 0);
    assert_int_equal(close(fd), 0);
}

static void
write_file(const fixture *fx, const char *name, const char *text)
{
    write_file_len(fx, name, text, strlen(text), 0644);
}

static void
make_dir(const fixture *fx, const char *name)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof(path), "%s/%s", fx->fx_dir, name);
    if (mkdir(path, 0755) != 0)
        assert_int_equal(errno, EEXIST);
}

static void
make_link(const fixture *fx, const char *target, const char *name)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof(path), "%s/%s", fx->fx_dir, name);
    unlink(path);
    assert_int_equal(symlink(target, path), 0);
}

/* Writes text (after @-expansion) as fx_dir/name and loads it. */
static box_config *
load_ok_at(const fixture *fx, const char *name, const char *text)
{
    char *t = expand(fx, text);
    write_file(fx, name, t);
    box_free(t);
    char path[PATH_MAX + 64];
    snprintf(path, sizeof(path), "%s/%s", fx->fx_dir, name);
    box_config *c = NULL;
    char *err = NULL;
    box_err rv = box_config_load(path, &c, &err);
    if (rv != BOX_OK)
        fail_msg("refused: %s\n--- input:\n%s", err ? err : "(none)", text);
    assert_null(err);
    assert_non_null(c);
    return c;
}

/* Writes text (after @-expansion) as box.toml and loads it. */
static box_config *
load_ok(const fixture *fx, const char *text)
{
    return load_ok_at(fx, "box.toml", text);
}

static void
check_refusal(const fixture *fx, box_err want_rv, const char *text,
              const char *want_tmpl, box_err rv, box_config *c, char *err)
{
    char *want = expand(fx, want_tmpl);
    if (rv == BOX_OK) {
        box_config_free(c);
        fail_msg("accepted:\n%s", text);
    }
    assert_null(c);
    assert_non_null(err);
    if (rv != want_rv || strcmp(err, want) != 0)
        print_error("input:\n%s\n", text);
    assert_string_equal(err, want);
    assert_int_equal(rv, want_rv);
    box_free(want);
    box_free(err);
}

/* Writes text as box.toml and expects the load to fail with exactly
 * want (after @-expansion). */
static void
expect_refusal(const fixture *fx, box_err want_rv, const char *text,
               const char *want)
{
    char *t = expand(fx, text);
    write_file(fx, "box.toml", t);
    box_config *c = (box_config *)&c;
    char *err = NULL;
    box_err rv = box_config_load(fx->fx_conf, &c, &err);
    check_refusal(fx, want_rv, t, want, rv, c, err);
    box_free(t);
}

/* As expect_refusal, for text that may hold NUL bytes. */
static void
expect_refusal_len(const fixture *fx, box_err want_rv, const char *text,
                   size_t len, const char *want)
{
    write_file_len(fx, "box.toml", text, len, 0644);
    box_config *c = (box_config *)&c;
    char *err = NULL;
    box_err rv = box_config_load(fx->fx_conf, &c, &err);
    check_refusal(fx, want_rv, text, want, rv, c, err);
}

typedef struct bad_case {
    const char *text;
    const char *err;
} bad_case;

#define RUN_BAD(fx, rv, cases)                                                 \
    for (size_t i_ = 0; i_ < sizeof(cases) / sizeof(cases[0]); i_++)           \
    expect_refusal(fx, rv, cases[i_].text, cases[i_].err)

static void
assert_strv(const box_config_strv *sv, const char *const *want, size_t n)
{
    assert_int_equal(sv->sv_len, n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(sv->sv_items[i], want[i]);
    assert_null(sv->sv_items == NULL ? NULL : sv->sv_items[n]);
}

#define STRV(sv, ...)                                                          \
    do {                                                                       \
        static const char *const w_[] = {__VA_ARGS__};                         \
        assert_strv(sv, w_, sizeof(w_) / sizeof(w_[0]));                       \
    } while (0)

/* ---- accepted files ---- */

static void
test_load_full_example(void **state)
{
    fixture *fx = *state;
    box_config *c = load_ok(
        fx,
        "# The spec's example, less [egress].\n"
        "name = \"demo\"\n"
        "box_dir = \"/Users/me/boxes/demo/state\"\n"
        "policy = \"policy.dw\"\n"
        "[agent]\n"
        "command = [\"/opt/homebrew/bin/node\", \"/path/cli.js\"]\n"
        "workspace = \"/Users/me/src/project\"\n"
        "env = { HOME = \"/Users/me/agent-home\", PATH = \"/usr/bin:/bin\" "
        "}\n"
        "[agent.filesystem]\n"
        "read = [\"~/agent-home\"]\n"
        "write = [\"~/agent-home\"]\n"
        "read_file = [\"/etc/localtime\"]\n"
        "write_file = [\"/work/log\"]\n"
        "list = [\"~/src/project\"]\n"
        "metadata = [\"/etc\"]\n"
        "exec = [\"~/src/project/target/debug\"]\n"
        "deny = [\"~/src/project/.env\"]\n"
        "[tool.git]\n"
        "command = [\"git\"]\n"
        "[tool.git.filesystem]\n"
        "read = [\"~/src/project\", \"/Library/Developer/CommandLineTools\"]\n"
        "write = [\"~/src/project/.git\"]\n"
        "deny = [\"~/src/project/.env\"]\n"
        "[tool.sso-cli]\n"
        "command = [\"sso-cli\", \"login\"]\n"
        "workspace = \"/tmp\"\n"
        "network = { contain_egress = false }\n");
    char *policy = expand(fx, "@D/policy.dw");
    assert_string_equal(box_config_name(c), "demo");
    assert_string_equal(box_config_box_dir(c), "/Users/me/boxes/demo/state");
    assert_string_equal(box_config_policy(c), policy);
    assert_string_equal(box_config_path(c), fx->fx_conf);
    box_free(policy);

    const box_config_process *a = box_config_agent(c);
    assert_non_null(a);
    assert_string_equal(a->pr_table, "[agent]");
    assert_null(a->pr_label);
    STRV(&a->pr_command, "/opt/homebrew/bin/node", "/path/cli.js");
    assert_string_equal(a->pr_workspace, "/Users/me/src/project");
    assert_int_equal(a->pr_nenv, 2);
    assert_string_equal(a->pr_env[0].ev_name, "HOME");
    assert_string_equal(a->pr_env[0].ev_value, "/Users/me/agent-home");
    assert_string_equal(a->pr_env[1].ev_name, "PATH");
    assert_string_equal(a->pr_env[1].ev_value, "/usr/bin:/bin");
    STRV(&a->pr_fs[BOX_GRANT_READ], "~/agent-home");
    STRV(&a->pr_fs[BOX_GRANT_WRITE], "~/agent-home");
    STRV(&a->pr_fs[BOX_GRANT_READ_FILE], "/etc/localtime");
    STRV(&a->pr_fs[BOX_GRANT_WRITE_FILE], "/work/log");
    STRV(&a->pr_fs[BOX_GRANT_LIST], "~/src/project");
    STRV(&a->pr_fs[BOX_GRANT_METADATA], "/etc");
    STRV(&a->pr_fs[BOX_GRANT_EXEC], "~/src/project/target/debug");
    STRV(&a->pr_fs[BOX_GRANT_DENY], "~/src/project/.env");
    assert_false(a->pr_network);
    assert_true(a->pr_contain_egress);

    assert_int_equal(box_config_tool_count(c), 2);
    const box_config_process *git = box_config_tool(c, 0);
    assert_ptr_equal(box_config_tool_find(c, "git"), git);
    assert_string_equal(git->pr_table, "[tool.git]");
    assert_string_equal(git->pr_label, "git");
    STRV(&git->pr_command, "git");
    assert_null(git->pr_workspace);
    assert_int_equal(git->pr_nenv, 0);
    STRV(&git->pr_fs[BOX_GRANT_READ], "~/src/project",
         "/Library/Developer/CommandLineTools");
    STRV(&git->pr_fs[BOX_GRANT_WRITE], "~/src/project/.git");
    STRV(&git->pr_fs[BOX_GRANT_DENY], "~/src/project/.env");
    assert_int_equal(git->pr_fs[BOX_GRANT_LIST].sv_len, 0);
    assert_false(git->pr_network);
    assert_true(git->pr_contain_egress);

    const box_config_process *sso = box_config_tool(c, 1);
    assert_ptr_equal(box_config_tool_find(c, "sso-cli"), sso);
    STRV(&sso->pr_command, "sso-cli", "login");
    assert_string_equal(sso->pr_workspace, "/tmp");
    assert_true(sso->pr_network);
    assert_false(sso->pr_contain_egress);
    assert_null(box_config_tool(c, 2));
    assert_null(box_config_tool_find(c, "missing"));
    box_config_free(c);
}

static void
test_load_minimal(void **state)
{
    fixture *fx = *state;
    box_config *c = load_ok(fx, HEAD);
    assert_string_equal(box_config_name(c), "demo");
    assert_string_equal(box_config_box_dir(c), "/var/lib/box");
    assert_null(box_config_policy(c));
    assert_null(box_config_agent(c));
    assert_int_equal(box_config_tool_count(c), 0);
    box_config_free(c);
    box_config_free(NULL);
}

static void
test_policy_resolution(void **state)
{
    fixture *fx = *state;
    box_config *c = load_ok(fx, HEAD "policy = \"/etc/box/policy.dw\"\n");
    assert_string_equal(box_config_policy(c), "/etc/box/policy.dw");
    box_config_free(c);

    c = load_ok(fx, HEAD "policy = \"sub/dir/p.dw\"\n");
    char *want = expand(fx, "@D/sub/dir/p.dw");
    assert_string_equal(box_config_policy(c), want);
    box_free(want);
    box_config_free(c);

    // From the file the path resolves to, not the link that named it.
    make_dir(fx, "real");
    write_file(fx, "real/box.toml", HEAD "policy = \"p.dw\"\n");
    make_link(fx, "real/box.toml", "link.toml");
    char *link = expand(fx, "@D/link.toml");
    char *err = NULL;
    assert_int_equal(box_config_load(link, &c, &err), BOX_OK);
    want = expand(fx, "@D/real/p.dw");
    assert_string_equal(box_config_policy(c), want);
    box_free(want);
    want = expand(fx, "@D/real/box.toml");
    assert_string_equal(box_config_path(c), want);
    box_free(want);
    box_free(link);
    box_config_free(c);
}

static void
test_config_path_is_absolute(void **state)
{
    fixture *fx = *state;
    write_file(fx, "box.toml", HEAD);
    make_dir(fx, "real");
    char cwd[PATH_MAX];
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    assert_int_equal(chdir(fx->fx_dir), 0);
    box_config *c = NULL;
    char *err = NULL;
    box_err rv = box_config_load("./real/../box.toml", &c, &err);
    assert_int_equal(chdir(cwd), 0);
    assert_int_equal(rv, BOX_OK);
    assert_string_equal(box_config_path(c), fx->fx_conf);
    box_config_free(c);
}

static void
test_inline_and_dotted_forms(void **state)
{
    fixture *fx = *state;
    box_config *c = load_ok(
        fx, "name = 'demo'\n"
            "box_dir = \"/b\"\n"
            "agent = { command = [\"a\"], filesystem = { read = [\"/r\"] } }\n"
            "tool = { x = { command = [\"x\"] }, y = { command = [\"y\"], "
            "network.contain_egress = true } }\n");
    const box_config_process *a = box_config_agent(c);
    STRV(&a->pr_command, "a");
    STRV(&a->pr_fs[BOX_GRANT_READ], "/r");
    assert_int_equal(box_config_tool_count(c), 2);
    assert_string_equal(box_config_tool(c, 1)->pr_label, "y");
    assert_true(box_config_tool(c, 1)->pr_network);
    assert_true(box_config_tool(c, 1)->pr_contain_egress);
    box_config_free(c);

    c = load_ok(fx, HEAD "agent.command = [\"a\"]\n"
                         "agent.env.TERM = \"xterm\"\n"
                         "tool.git.command = [\"git\"]\n"
                         "tool.git.filesystem.read = [\"/r\"]\n");
    assert_string_equal(box_config_agent(c)->pr_env[0].ev_name, "TERM");
    STRV(&box_config_tool_find(c, "git")->pr_fs[BOX_GRANT_READ], "/r");
    box_config_free(c);
}

static void
test_network_table_on_tools(void **state)
{
    fixture *fx = *state;
    box_config *c = load_ok(fx, HEAD "[tool.a]\ncommand = [\"a\"]\n"
                                     "[tool.b]\ncommand = [\"b\"]\n"
                                     "[tool.b.network]\n"
                                     "[tool.c]\ncommand = [\"c\"]\n"
                                     "[tool.c.network]\n"
                                     "contain_egress = true\n"
                                     "[tool.d]\ncommand = [\"d\"]\n"
                                     "[tool.d.network]\n"
                                     "contain_egress = false\n");
    const box_config_process *t = box_config_tool_find(c, "a");
    assert_false(t->pr_network);
    assert_true(t->pr_contain_egress);
    t = box_config_tool_find(c, "b");
    assert_true(t->pr_network);
    assert_true(t->pr_contain_egress);
    t = box_config_tool_find(c, "c");
    assert_true(t->pr_network);
    assert_true(t->pr_contain_egress);
    t = box_config_tool_find(c, "d");
    assert_true(t->pr_network);
    assert_false(t->pr_contain_egress);
    box_config_free(c);
}

static void
test_names_and_labels_accepted(void **state)
{
    fixture *fx = *state;
    static const char *const names[] = {
        "default",
        "codex",
        "my-box",
        "box_1",
        "v1.2",
        "...",
        "-",
        "A.Z",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", // 32 bytes
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char text[256];
        snprintf(text, sizeof(text),
                 "name = \"%s\"\nbox_dir = \"/b\"\n[tool.\"%s\"]\n"
                 "command = [\"x\"]\n",
                 names[i], names[i]);
        box_config *c = load_ok(fx, text);
        assert_string_equal(box_config_name(c), names[i]);
        assert_string_equal(box_config_tool(c, 0)->pr_label, names[i]);
        box_config_free(c);
    }
    // A label has no length cap.
    box_config *c = load_ok(
        fx, HEAD "[tool.a-very-long-tool-label-well-past-thirty-two-bytes]\n"
                 "command = [\"x\"]\n");
    box_config_free(c);
}

static void
test_env_accepted(void **state)
{
    fixture *fx = *state;
    box_config *c = load_ok(
        fx, HEAD "[agent]\ncommand = [\"a\"]\n"
                 "[agent.env]\n"
                 "HOME = \"/home/agent\"\n"
                 "TMPDIR = \"/tmp/agent\"\n"
                 "PATH = \"bin:/usr/bin\"\n" // PATH need not be absolute
                 "TERM = \"xterm\"\n"
                 "_X = \"\"\n"
                 "a1 = \"x\"\n"
                 "LD = \"not the LD_ family\"\n"
                 "PYTHO = \"x\"\n"
                 "DYLD = \"x\"\n"
                 "OTEL_EXPORTER_OTLP = \"no trailing underscore\"\n"
                 "OTEL_SERVICE_NAME = \"x\"\n"
                 "USERNAME = \"x\"\n"
                 "ENVIRONMENT = \"x\"\n"
                 "http_proxy_x = \"x\"\n");
    const box_config_process *a = box_config_agent(c);
    assert_int_equal(a->pr_nenv, 14);
    assert_string_equal(a->pr_env[13].ev_name, "http_proxy_x");
    box_config_free(c);
}

static void
test_entries_and_commands_accepted(void **state)
{
    fixture *fx = *state;
    box_config *c = load_ok(
        fx, HEAD "[agent]\n"
                 "command = [\"/bin/sh\", \"-c\", \"echo *\", \"\"]\n"
                 "[agent.filesystem]\n"
                 "read = [\"~\", \"~/a/\", \"/\", \"/a/b\", \"~/x/y\", "
                 "\"/a/.../b\", \"/a/b..\", \"/x/~\", \"/a/.b\", "
                 "\"/caf\xC3\xA9\"]\n"
                 "write = [\"/a/b\"]\n" // the same path in another list
                 "deny = [\"/a/b\"]\n"
                 "[tool.t]\n"
                 "command = [\"git\"]\n"
                 "[tool.u]\n"
                 "command = [\"git/\"]\n" // one component, like Rust's Path
                 "[tool.v]\n"
                 "command = [\"/usr/bin/../bin/git\"]\n");
    const box_config_process *a = box_config_agent(c);
    assert_int_equal(a->pr_fs[BOX_GRANT_READ].sv_len, 10);
    STRV(&a->pr_command, "/bin/sh", "-c", "echo *", "");
    box_config_free(c);
}

static void
test_grant_keys(void **state)
{
    (void)state;
    static const char *const want[] = {"read",       "write", "read_file",
                                       "write_file", "list",  "metadata",
                                       "exec",       "deny"};
    for (int g = 0; g < BOX_GRANT_COUNT; g++)
        assert_string_equal(box_config_grant_key((box_config_grant)g), want[g]);
    assert_string_equal(box_config_grant_key(BOX_GRANT_COUNT), "unknown");
}

static void
test_parse_api(void **state)
{
    (void)state;
    const char text[] = HEAD "policy = \"p.dw\"\n";
    box_config *c = NULL;
    char *err = NULL;
    assert_int_equal(
        box_config_parse(text, sizeof(text) - 1, "/etc/box/box.toml", &c, &err),
        BOX_OK);
    assert_null(err);
    assert_string_equal(box_config_path(c), "/etc/box/box.toml");
    assert_string_equal(box_config_policy(c), "/etc/box/p.dw");
    box_config_free(c);

    assert_int_equal(
        box_config_parse(text, sizeof(text) - 1, "/box.toml", &c, &err),
        BOX_OK);
    assert_string_equal(box_config_policy(c), "/p.dw");
    box_config_free(c);

    assert_int_equal(box_config_parse("name = 1", 8, "/b.toml", &c, &err),
                     BOX_EPARSE);
    assert_null(c);
    assert_string_equal(err, "cannot parse config file /b.toml: line 1, "
                             "column 8: invalid type: integer `1`, expected a "
                             "string");
    box_free(err);

    c = (box_config *)&c;
    err = (char *)&err;
    assert_int_equal(box_config_parse(NULL, 0, "/b", &c, &err), BOX_EINVAL);
    assert_null(c);
    assert_null(err);
    assert_int_equal(box_config_parse(text, 1, NULL, &c, &err), BOX_EINVAL);
    assert_int_equal(box_config_parse(text, 1, "/b", NULL, &err), BOX_EINVAL);
    assert_int_equal(box_config_parse(text, 1, "/b", &c, NULL), BOX_EINVAL);
    assert_int_equal(box_config_load(NULL, &c, &err), BOX_EINVAL);
    assert_int_equal(box_config_load("/x", NULL, &err), BOX_EINVAL);
    assert_int_equal(box_config_load("/x", &c, NULL), BOX_EINVAL);
    assert_int_equal(box_config_check_paths(NULL, "/", NULL, &err), BOX_EINVAL);
    assert_null(err);
}

/* ---- reading ---- */

static void
test_read_errors(void **state)
{
    fixture *fx = *state;
    box_config *c = (box_config *)&c;
    char *err = NULL;

    assert_int_equal(box_config_load("/nonexistent/box.toml", &c, &err),
                     BOX_EIO);
    assert_null(c);
    assert_string_equal(err, "cannot read config file /nonexistent/box.toml: "
                             "No such file or directory");
    box_free(err);

    // A relative path is named as given when it cannot be resolved.
    assert_int_equal(box_config_load("no/such.toml", &c, &err), BOX_EIO);
    assert_string_equal(err, "cannot read config file no/such.toml: No such "
                             "file or directory");
    box_free(err);

    make_dir(fx, "adir");
    char *p = expand(fx, "@D/adir");
    assert_int_equal(box_config_load(p, &c, &err), BOX_ECONFIG);
    char *want = expand(fx, "configuration source @D/adir is not a regular "
                            "file");
    assert_string_equal(err, want);
    box_free(want);
    box_free(err);
    box_free(p);

    p = expand(fx, "@D/fifo");
    assert_int_equal(mkfifo(p, 0600), 0);
    assert_int_equal(box_config_load(p, &c, &err), BOX_ECONFIG);
    want = expand(fx, "configuration source @D/fifo is not a regular file");
    assert_string_equal(err, want);
    box_free(want);
    box_free(err);
    box_free(p);

    write_file(fx, "box.toml", HEAD);
    p = expand(fx, "@D/second-name.toml");
    assert_int_equal(link(fx->fx_conf, p), 0);
    assert_int_equal(box_config_load(fx->fx_conf, &c, &err), BOX_ECONFIG);
    want = expand(fx, "configuration source @P has more than one filesystem "
                      "name");
    assert_string_equal(err, want);
    box_free(want);
    box_free(err);
    assert_int_equal(unlink(p), 0);
    box_free(p);

    // A dangling link cannot be resolved.
    make_link(fx, "missing-target", "dangling.toml");
    p = expand(fx, "@D/dangling.toml");
    assert_int_equal(box_config_load(p, &c, &err), BOX_EIO);
    want = expand(fx, "cannot read config file @D/dangling.toml: No such "
                      "file or directory");
    assert_string_equal(err, want);
    box_free(want);
    box_free(err);
    box_free(p);

    // Unreadable (root reads anything, so only as another user).
    if (geteuid() != 0) {
        write_file_len(fx, "box.toml", HEAD, strlen(HEAD), 0);
        assert_int_equal(box_config_load(fx->fx_conf, &c, &err), BOX_EIO);
        want = expand(fx, "cannot read config file @P: Permission denied");
        assert_string_equal(err, want);
        box_free(want);
        box_free(err);
        assert_int_equal(chmod(fx->fx_conf, 0644), 0);
    }

    // Over the size cap: refused before parsing.
    size_t big = (1u << 20) + 1;
    char *text = box_alloc(big);
    assert_non_null(text);
    memset(text, '#', big);
    write_file_len(fx, "box.toml", text, big, 0644);
    box_free(text);
    assert_int_equal(box_config_load(fx->fx_conf, &c, &err), BOX_EIO);
    want = expand(fx, "cannot read config file @P: File too large");
    assert_string_equal(err, want);
    box_free(want);
    box_free(err);
    assert_null(c);
}

/* ---- decoding ---- */

static void
test_toml_errors_are_wrapped(void **state)
{
    fixture *fx = *state;
    static const bad_case cases[] = {
        {"name = ", "cannot parse config file @P: line 1, column 8: expected "
                    "a value, found end of input"},
        {HEAD "[agent]\ncommand = [\"a\"\n",
         "cannot parse config file @P: line 5, column 1: expected `,` or `]` "
         "in the array opened at line 4, column 11, found end of input"},
        {HEAD "x = 1.5\n", "cannot parse config file @P: line 3, column 5: "
                           "floats are not supported by box.toml"},
        {HEAD "name = \"again\"\n",
         "cannot parse config file @P: line 3, column 1: duplicate key `name` "
         "(first defined at line 1, column 1)"},
        {HEAD "[agent]\n[agent]\n",
         "cannot parse config file @P: line 4, column 1: table `agent` is "
         "defined twice (first at line 3, column 1)"},
        {"name = \"\xFF\"", "cannot parse config file @P: line 1, column 9: "
                            "invalid UTF-8 (byte 0xFF)"},
        {HEAD "[[tool]]\n", "cannot parse config file @P: line 3, column 1: "
                            "arrays of tables (`[[...]]`) are not supported "
                            "by box.toml"},
    };
    RUN_BAD(fx, BOX_EPARSE, cases);
}

static void
test_unknown_fields(void **state)
{
    fixture *fx = *state;
    static const bad_case cases[] = {
        {HEAD "foo = 1\n",
         "cannot parse config file @P: line 3, column 1: unknown field `foo`, "
         "expected one of `name`, `box_dir`, `policy`, `agent`, `tool`, "
         "`egress`, `mcp`, `telemetry`"},
        {"workspace = \"/w\"\n" HEAD,
         "cannot parse config file @P: line 1, column 1: unknown field "
         "`workspace`, expected one of `name`, `box_dir`, `policy`, `agent`, "
         "`tool`, `egress`, `mcp`, `telemetry`"},
        {HEAD "[filesystem]\nread = []\n",
         "cannot parse config file @P: line 3, column 2: unknown field "
         "`filesystem`, expected one of `name`, `box_dir`, `policy`, "
         "`agent`, `tool`, `egress`, `mcp`, `telemetry`"},
        {HEAD "\"a\\tb\" = 1\n",
         "cannot parse config file @P: line 3, column 1: unknown field "
         "`a\\tb`, expected one of `name`, `box_dir`, `policy`, `agent`, "
         "`tool`, `egress`, `mcp`, `telemetry`"},
        {HEAD "[agent]\ncommand = [\"a\"]\nread = [\"/a\"]\n",
         "cannot parse config file @P: line 5, column 1: unknown field "
         "`read`, expected one of `command`, `workspace`, `env`, "
         "`filesystem`, `network`, `shells`"},
        {HEAD "[agent]\ndefault_command = [\"a\"]\n",
         "cannot parse config file @P: line 4, column 1: unknown field "
         "`default_command`, expected one of `command`, `workspace`, `env`, "
         "`filesystem`, `network`, `shells`"},
        {HEAD "[tool.git]\ncommand = [\"git\"]\n  exec = [\"/x\"]\n",
         "cannot parse config file @P: line 5, column 3: unknown field "
         "`exec`, expected one of `command`, `workspace`, `env`, "
         "`filesystem`, `network`, `shells`"},
        {HEAD "[agent]\ncommand = [\"a\"]\n[agent.filesystem]\nexecute = []\n",
         "cannot parse config file @P: line 6, column 1: unknown field "
         "`execute`, expected one of `read`, `write`, `read_file`, "
         "`write_file`, `list`, `metadata`, `exec`, `deny`"},
        {HEAD "[tool.git]\ncommand = [\"git\"]\n[tool.git.filesystem]\n"
              "readfile = []\n",
         "cannot parse config file @P: line 6, column 1: unknown field "
         "`readfile`, expected one of `read`, `write`, `read_file`, "
         "`write_file`, `list`, `metadata`, `exec`, `deny`"},
        {HEAD "[tool.git]\ncommand = [\"git\"]\n[tool.git.network]\n"
              "proxy = false\n",
         "cannot parse config file @P: line 6, column 1: unknown field "
         "`proxy`, expected `contain_egress`"},
        {HEAD "[agent]\ncommand = [\"a\"]\nenv = {}\nnetwork = { x = 1 }\n",
         "cannot parse config file @P: line 6, column 13: unknown field `x`, "
         "expected `contain_egress`"},
    };
    RUN_BAD(fx, BOX_EPARSE, cases);
}

static void
test_missing_fields(void **state)
{
    fixture *fx = *state;
    static const bad_case cases[] = {
        {"", "cannot parse config file @P: line 1, column 1: missing field "
             "`name`"},
        {"box_dir = \"/b\"\n", "cannot parse config file @P: line 1, column "
                               "1: missing field `name`"},
        {"name = \"a\"\n", "cannot parse config file @P: line 1, column 1: "
                           "missing field `box_dir`"},
        {"name = \"a\"\n[agent]\ncommand = []\n",
         "cannot parse config file @P: line 1, column 1: missing field "
         "`box_dir`"},
        {HEAD "[agent]\nworkspace = \"/w\"\n",
         "cannot parse config file @P: line 3, column 1: missing field "
         "`command`"},
        {HEAD "\n[agent.filesystem]\nread = []\n",
         "cannot parse config file @P: line 4, column 2: missing field "
         "`command`"},
        {HEAD "agent = {}\n", "cannot parse config file @P: line 3, column 9: "
                              "missing field `command`"},
        {HEAD "[tool.git]\n", "cannot parse config file @P: line 3, column 1: "
                              "missing field `command`"},
        {HEAD "[tool.x]\ncommand = [\"x\"]\n[tool.git.filesystem]\n",
         "cannot parse config file @P: line 5, column 7: missing field "
         "`command`"},
        // Unknown fields come first, in source order, then missing ones.
        {"foo = 1\n", "cannot parse config file @P: line 1, column 1: "
                      "unknown field `foo`, expected one of `name`, "
                      "`box_dir`, `policy`, `agent`, `tool`, `egress`, "
                      "`mcp`, `telemetry`"},
        // A table's own missing key is met first, in source order.
        {"[egress.gh]\n", "cannot parse config file @P: line 1, column 1: "
                          "missing field `destinations`"},
    };
    RUN_BAD(fx, BOX_EPARSE, cases);
}

static void
test_invalid_types(void **state)
{
    fixture *fx = *state;
    static const bad_case cases[] = {
        {"name = 5\nbox_dir = \"/b\"\n",
         "cannot parse config file @P: line 1, column 8: invalid type: "
         "integer `5`, expected a string"},
        {"name = \"a\"\nbox_dir = true\n",
         "cannot parse config file @P: line 2, column 11: invalid type: "
         "boolean `true`, expected a string"},
        {HEAD "policy = [\"p\"]\n",
         "cannot parse config file @P: line 3, column 10: invalid type: "
         "array, expected a string"},
        {HEAD "policy = { p = 1 }\n",
         "cannot parse config file @P: line 3, column 10: invalid type: "
         "table, expected a string"},
        {HEAD "agent = \"node\"\n",
         "cannot parse config file @P: line 3, column 9: invalid type: "
         "string \"node\", expected a table"},
        {HEAD "agent = [\"node\"]\n",
         "cannot parse config file @P: line 3, column 9: invalid type: "
         "array, expected a table"},
        {HEAD "tool = 1\n", "cannot parse config file @P: line 3, column 8: "
                            "invalid type: integer `1`, expected a table"},
        {HEAD "[tool]\ngit = \"git\"\n",
         "cannot parse config file @P: line 4, column 7: invalid type: "
         "string \"git\", expected a table"},
        {HEAD "[agent]\ncommand = \"node\"\n",
         "cannot parse config file @P: line 4, column 11: invalid type: "
         "string \"node\", expected an array of strings"},
        {HEAD "[agent]\ncommand = [\"node\", 1]\n",
         "cannot parse config file @P: line 4, column 20: invalid type: "
         "integer `1`, expected a string"},
        {HEAD "[agent]\ncommand = [[\"node\"]]\n",
         "cannot parse config file @P: line 4, column 12: invalid type: "
         "array, expected a string"},
        {HEAD "[agent]\ncommand = [\"a\"]\nworkspace = false\n",
         "cannot parse config file @P: line 5, column 13: invalid type: "
         "boolean `false`, expected a string"},
        {HEAD "[agent]\ncommand = [\"a\"]\nenv = \"HOME=/h\"\n",
         "cannot parse config file @P: line 5, column 7: invalid type: "
         "string \"HOME=/h\", expected a table of strings"},
        {HEAD "[agent]\ncommand = [\"a\"]\nenv = { DEBUG = 1 }\n",
         "cannot parse config file @P: line 5, column 17: invalid type: "
         "integer `1`, expected a string"},
        {HEAD "[agent]\ncommand = [\"a\"]\nenv = { X = { Y = \"z\" } }\n",
         "cannot parse config file @P: line 5, column 13: invalid type: "
         "table, expected a string"},
        {HEAD "[agent]\ncommand = [\"a\"]\nfilesystem = [\"/a\"]\n",
         "cannot parse config file @P: line 5, column 14: invalid type: "
         "array, expected a table"},
        {HEAD "[agent]\ncommand = [\"a\"]\n[agent.filesystem]\n"
              "read = \"/a\"\n",
         "cannot parse config file @P: line 6, column 8: invalid type: "
         "string \"/a\", expected an array of strings"},
        {HEAD "[agent]\ncommand = [\"a\"]\n[agent.filesystem]\n"
              "deny = [\"/a\", true]\n",
         "cannot parse config file @P: line 6, column 15: invalid type: "
         "boolean `true`, expected a string"},
        {HEAD "[tool.x]\ncommand = [\"a\"]\nnetwork = true\n",
         "cannot parse config file @P: line 5, column 11: invalid type: "
         "boolean `true`, expected a table"},
        {HEAD "[tool.x]\ncommand = [\"a\"]\n[tool.x.network]\n"
              "contain_egress = \"false\"\n",
         "cannot parse config file @P: line 6, column 18: invalid type: "
         "string \"false\", expected a boolean"},
        {HEAD "[tool.x]\ncommand = [\"a\"]\n[tool.x.network]\n"
              "contain_egress = 0\n",
         "cannot parse config file @P: line 6, column 18: invalid type: "
         "integer `0`, expected a boolean"},
        // A long string is cut to 64 bytes in the message.
        {HEAD "agent = "
              "\"0123456789012345678901234567890123456789012345678901234567"
              "890123456789\"\n",
         "cannot parse config file @P: line 3, column 9: invalid type: "
         "string "
         "\"0123456789012345678901234567890123456789012345678901234567890123\""
         "..., expected a table"},
        {HEAD "agent = \"tab\\there\"\n",
         "cannot parse config file @P: line 3, column 9: invalid type: "
         "string \"tab\\there\", expected a table"},
    };
    RUN_BAD(fx, BOX_EPARSE, cases);
}

static void
test_nul_refused(void **state)
{
    fixture *fx = *state;
    static const bad_case parse_cases[] = {
        {"name = \"a\\u0000b\"\nbox_dir = \"/b\"\n",
         "cannot parse config file @P: line 1, column 8: invalid value: "
         "string \"a\\0b\" holds a NUL character, which no path, name, "
         "argument or variable can carry"},
        {HEAD "[agent]\ncommand = [\"/bin/sh\\u0000x\"]\n",
         "cannot parse config file @P: line 4, column 12: invalid value: "
         "string \"/bin/sh\\0x\" holds a NUL character, which no path, name, "
         "argument or variable can carry"},
        {HEAD "[agent]\ncommand = [\"a\"]\n[agent.filesystem]\n"
              "read = [\"/a\\u0000/b\"]\n",
         "cannot parse config file @P: line 6, column 9: invalid value: "
         "string \"/a\\0/b\" holds a NUL character, which no path, name, "
         "argument or variable can carry"},
        {HEAD "[agent]\ncommand = [\"a\"]\nenv = { A = \"x\\u0000\" }\n",
         "cannot parse config file @P: line 5, column 13: invalid value: "
         "string \"x\\0\" holds a NUL character, which no path, name, "
         "argument or variable can carry"},
    };
    RUN_BAD(fx, BOX_EPARSE, parse_cases);
    static const bad_case config_cases[] = {
        {HEAD "[agent]\ncommand = [\"a\"]\nenv = { \"A\\u0000B\" = \"x\" }\n",
         "invalid `[agent]` table: `env` name \"A\\0B\" is not a valid "
         "environment-variable name"},
        {HEAD "[tool.\"g\\u0000it\"]\ncommand = [\"git\"]\n",
         "invalid `[tool.g\\0it]` table: the label must be one component of "
         "letters, digits, '.', '_', or '-'"},
    };
    RUN_BAD(fx, BOX_ECONFIG, config_cases);
    // A raw NUL byte in the file is a TOML error.
    expect_refusal_len(fx, BOX_EPARSE, "name = \"a\0\"", 11,
                       "cannot parse config file @P: line 1, column 10: "
                       "control character U+0000 must be escaped in a "
                       "string");
}

/* ---- validation ---- */

static void
test_name_refusals(void **state)
{
    fixture *fx = *state;
    static const bad_case cases[] = {
        {"name = \"\"\nbox_dir = \"/b\"\n",
         "box name \"\" is invalid: it is empty; use one component of "
         "letters, digits, '.', '_', or '-'"},
        {"name = \".\"\nbox_dir = \"/b\"\n",
         "box name \".\" is invalid: it names a relative directory; use one "
         "component of letters, digits, '.', '_', or '-'"},
        {"name = \"..\"\nbox_dir = \"/b\"\n",
         "box name \"..\" is invalid: it names a relative directory; use one "
         "component of letters, digits, '.', '_', or '-'"},
        {"name = \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"\nbox_dir = \"/b\"\n",
         "box name \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\" is invalid: it is 33 "
         "bytes; a name may be at most 32, so it stays one readable label in "
         "a record and in telemetry; use one component of letters, digits, "
         "'.', '_', or '-'"},
        {"name = \"../escape\"\nbox_dir = \"/b\"\n",
         "box name \"../escape\" is invalid: it contains '/'; use one "
         "component of letters, digits, '.', '_', or '-'"},
        {"name = \"a/b\"\nbox_dir = \"/b\"\n",
         "box name \"a/b\" is invalid: it contains '/'; use one component of "
         "letters, digits, '.', '_', or '-'"},
        {"name = \"with space\"\nbox_dir = \"/b\"\n",
         "box name \"with space\" is invalid: it contains ' '; use one "
         "component of letters, digits, '.', '_', or '-'"},
        {"name = \"tab\\t\"\nbox_dir = \"/b\"\n",
         "box name \"tab\\t\" is invalid: it contains '\\t'; use one "
         "component of letters, digits, '.', '_', or '-'"},
        {"name = \"esc\\u001b\"\nbox_dir = \"/b\"\n",
         "box name \"esc\\u{1b}\" is invalid: it contains '\\u{1b}'; use one "
         "component of letters, digits, '.', '_', or '-'"},
        {"name = \"c1\\u0085\"\nbox_dir = \"/b\"\n",
         "box name \"c1\\u{85}\" is invalid: it contains '\\u{85}'; use one "
         "component of letters, digits, '.', '_', or '-'"},
        {"name = \"caf\\u00e9\"\nbox_dir = \"/b\"\n",
         "box name \"caf\xC3\xA9\" is invalid: it contains '\xC3\xA9'; use "
         "one component of letters, digits, '.', '_', or '-'"},
        {"name = \"it's\"\nbox_dir = \"/b\"\n",
         "box name \"it's\" is invalid: it contains '\\''; use one component "
         "of letters, digits, '.', '_', or '-'"},
        {"name = 'say\"hi\"'\nbox_dir = \"/b\"\n",
         "box name \"say\\\"hi\\\"\" is invalid: it contains '\"'; use one "
         "component of letters, digits, '.', '_', or '-'"},
        {"name = 'back\\slash'\nbox_dir = \"/b\"\n",
         "box name \"back\\\\slash\" is invalid: it contains '\\\\'; use one "
         "component of letters, digits, '.', '_', or '-'"},
        // The length is judged before the characters, as the reference does.
        {"name = \"a/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"\nbox_dir = \"/b\"\n",
         "box name \"a/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\" is invalid: it is "
         "35 bytes; a name may be at most 32, so it stays one readable label "
         "in a record and in telemetry; use one component of letters, "
         "digits, '.', '_', or '-'"},
    };
    RUN_BAD(fx, BOX_ECONFIG, cases);
}

static void
test_box_dir_and_policy_refusals(void **state)
{
    fixture *fx = *state;
    static const bad_case cases[] = {
        {"name = \"a\"\nbox_dir = \"state\"\n",
         "`box_dir` must be absolute: state"},
        {"name = \"a\"\nbox_dir = \"\"\n", "`box_dir` must be absolute: "},
        {"name = \"a\"\nbox_dir = \"~/boxes\"\n",
         "`box_dir` must be absolute: ~/boxes"},
        {"name = \"a\"\nbox_dir = \"./x\"\n",
         "`box_dir` must be absolute: ./x"},
        {HEAD "policy = \"\"\n", "`policy` is empty; name the policy file, "
                                 "or leave the key out so the box denies "
                                 "everything"},
    };
    RUN_BAD(fx, BOX_ECONFIG, cases);
}

#define NET_REFUSED                                                            \
    "invalid `[agent]` table: `network` is refused on `[agent]`: the agent "   \
    "always reaches the network through the egress gateway, and only a "       \
    "`[tool.<name>]` or a stdio `[mcp.<name>]` takes "                         \
    "`network.contain_egress`"

static void
test_process_refusals(void **state)
{
    fixture *fx = *state;
    static const bad_case cases[] = {
        {HEAD "[agent]\ncommand = [\"a\"]\n[agent.network]\n"
              "contain_egress = false\n",
         NET_REFUSED},
        {HEAD "[agent]\ncommand = [\"a\"]\n[agent.network]\n"
              "contain_egress = true\n",
         NET_REFUSED},
        {HEAD "[agent]\ncommand = [\"a\"]\n[agent.network]\n", NET_REFUSED},
        {HEAD "agent = { command = [\"a\"], network = {} }\n", NET_REFUSED},
        // network is judged before command, as the reference does.
        {HEAD "[agent]\ncommand = []\nnetwork = {}\n", NET_REFUSED},
        {HEAD "[agent]\ncommand = []\n",
         "invalid `[agent]` table: `command` must name a program as its first "
         "entry"},
        {HEAD "[tool.git]\ncommand = []\n",
         "invalid `[tool.git]` table: `command` must name a program as its "
         "first entry"},
        {HEAD "[agent]\ncommand = [\"\", \"x\"]\n",
         "invalid `[agent]` table: `command` element 0 is empty"},
        {HEAD "[agent]\ncommand = [\"./node\"]\n",
         "invalid `[agent]` table: `command` element 0 \"./node\" is a "
         "relative path; write an absolute path, or a bare name that "
         "`env.PATH` resolves"},
        {HEAD "[tool.g]\ncommand = [\"bin/git\", \"status\"]\n",
         "invalid `[tool.g]` table: `command` element 0 \"bin/git\" is a "
         "relative path; write an absolute path, or a bare name that "
         "`env.PATH` resolves"},
        {HEAD "[agent]\ncommand = [\"../x\"]\n",
         "invalid `[agent]` table: `command` element 0 \"../x\" is a "
         "relative path; write an absolute path, or a bare name that "
         "`env.PATH` resolves"},
        {HEAD "[agent]\ncommand = [\"a\"]\nworkspace = \"src/project\"\n",
         "invalid `[agent]` table: `workspace` must be absolute: src/project"},
        {HEAD "[tool.t]\ncommand = [\"a\"]\nworkspace = \"~/src\"\n",
         "invalid `[tool.t]` table: `workspace` must be absolute: ~/src"},
        {HEAD "[agent]\ncommand = [\"a\"]\nworkspace = \"\"\n",
         "invalid `[agent]` table: `workspace` must be absolute: "},
    };
    RUN_BAD(fx, BOX_ECONFIG, cases);
}

static void
test_env_refusals(void **state)
{
    fixture *fx = *state;
    static const bad_case cases[] = {
        {HEAD "[agent]\ncommand = [\"a\"]\nenv = { \"\" = \"x\" }\n",
         "invalid `[agent]` table: `env` name \"\" is not a valid "
         "environment-variable name"},
        {HEAD "[agent]\ncommand = [\"a\"]\nenv = { 1A = \"x\" }\n",
         "invalid `[agent]` table: `env` name \"1A\" is not a valid "
         "environment-variable name"},
        {HEAD "[agent]\ncommand = [\"a\"]\nenv = { A-B = \"x\" }\n",
         "invalid `[agent]` table: `env` name \"A-B\" is not a valid "
         "environment-variable name"},
        {HEAD "[agent]\ncommand = [\"a\"]\nenv = { \"A=B\" = \"x\" }\n",
         "invalid `[agent]` table: `env` name \"A=B\" is not a valid "
         "environment-variable name"},
        {HEAD "[agent]\ncommand = [\"a\"]\nenv = { \"caf\\u00e9\" = \"x\" }\n",
         "invalid `[agent]` table: `env` name \"caf\xC3\xA9\" is not a valid "
         "environment-variable name"},
        {HEAD "[tool.t]\ncommand = [\"a\"]\nenv = { \"A\\nB\" = \"x\" }\n",
         "invalid `[tool.t]` table: `env` name \"A\\nB\" is not a valid "
         "environment-variable name"},
        {HEAD "[agent]\ncommand = [\"a\"]\nenv = { HOME = \"home\" }\n",
         "invalid `[agent]` table: `env.HOME` must be an absolute path: "
         "\"home\""},
        {HEAD "[agent]\ncommand = [\"a\"]\nenv = { HOME = \"~\" }\n",
         "invalid `[agent]` table: `env.HOME` must be an absolute path: "
         "\"~\""},
        {HEAD "[tool.t]\ncommand = [\"a\"]\nenv = { TMPDIR = \"\" }\n",
         "invalid `[tool.t]` table: `env.TMPDIR` must be an absolute path: "
         "\"\""},
        // HOME is judged before TMPDIR, whatever the source order.
        {HEAD "[agent]\ncommand = [\"a\"]\n"
              "env = { TMPDIR = \"t\", HOME = \"h\" }\n",
         "invalid `[agent]` table: `env.HOME` must be an absolute path: "
         "\"h\""},
        // Names are judged before values.
        {HEAD "[agent]\ncommand = [\"a\"]\n"
              "env = { HOME = \"h\", LD_PRELOAD = \"/x.so\" }\n",
         "invalid `[agent]` table: `env` name \"LD_PRELOAD\" is set by the "
         "box itself, so a table cannot claim it"},
    };
    RUN_BAD(fx, BOX_ECONFIG, cases);

    // Every reserved name, on the agent and on a tool.
    static const char *const reserved[] = {
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "http_proxy",
        "https_proxy",
        "NO_PROXY",
        "no_proxy",
        "SSL_CERT_FILE",
        "NODE_EXTRA_CA_CERTS",
        "NODE_USE_ENV_PROXY",
        "CODEX_CA_CERTIFICATE",
        "AWS_CA_BUNDLE",
        "REQUESTS_CA_BUNDLE",
        "GIT_SSL_CAINFO",
        "PWD",
        "USER",
        "OTEL_EXPORTER_OTLP_",
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        "OTEL_EXPORTER_OTLP_PROTOCOL",
        "NODE_OPTIONS",
        "BASH_ENV",
        "ENV",
        "RUBYOPT",
        "PERL5LIB",
        "PERL5OPT",
        "GEM_PATH",
        "CLASSPATH",
        "JAVA_TOOL_OPTIONS",
        "_JAVA_OPTIONS",
        "LD_",
        "LD_PRELOAD",
        "LD_LIBRARY_PATH",
        "DYLD_",
        "DYLD_INSERT_LIBRARIES",
        "PYTHON",
        "PYTHONPATH",
        "PYTHONSTARTUP",
        "PYTHONHOME",
    };
    for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++) {
        char text[512], want[512];
        for (int tool = 0; tool < 2; tool++) {
            const char *table = tool ? "[tool.t]" : "[agent]";
            snprintf(text, sizeof(text),
                     HEAD "%s\ncommand = [\"a\"]\nenv = { %s = \"x\" }\n",
                     table, reserved[i]);
            snprintf(want, sizeof(want),
                     "invalid `%s` table: `env` name \"%s\" is set by the box "
                     "itself, so a table cannot claim it",
                     table, reserved[i]);
            expect_refusal(fx, BOX_ECONFIG, text, want);
        }
    }
}

#define ENTRY(table, entry, reason)                                            \
    "`" table "` filesystem entry \"" entry "\" is refused: " reason

static void
test_entry_refusals(void **state)
{
    fixture *fx = *state;
#define AG HEAD "[agent]\ncommand = [\"a\"]\n[agent.filesystem]\n"
#define TL HEAD "[tool.git]\ncommand = [\"git\"]\n[tool.git.filesystem]\n"
    static const bad_case cases[] = {
        {AG "read = [\"\"]\n",
         ENTRY("[agent]", "", "`filesystem.read` path is empty")},
        {AG "write = [\"relative/path\"]\n",
         ENTRY("[agent]", "relative/path",
               "`filesystem.write` path must be absolute or start with "
               "`~/`, so a checked-in configuration holds in every clone")},
        {AG "read_file = [\"~user/x\"]\n",
         ENTRY("[agent]", "~user/x",
               "`filesystem.read_file` path must be absolute or start with "
               "`~/`, so a checked-in configuration holds in every clone")},
        {AG "list = [\"./x\"]\n",
         ENTRY("[agent]", "./x",
               "`filesystem.list` path must be absolute or start with `~/`, "
               "so a checked-in configuration holds in every clone")},
        {AG "metadata = [\"/a/../b\"]\n",
         ENTRY("[agent]", "/a/../b",
               "`filesystem.metadata` path carries `..`; name the path it "
               "means")},
        {AG "exec = [\"~/..\"]\n",
         ENTRY("[agent]", "~/..",
               "`filesystem.exec` path carries `..`; name the path it means")},
        {AG "deny = [\"/a/..\"]\n",
         ENTRY("[agent]", "/a/..",
               "`filesystem.deny` path carries `..`; name the path it "
               "means")},
        {AG "read = [\"/a/*\"]\n",
         ENTRY("[agent]", "/a/*",
               "`filesystem.read` path contains the pattern character '*'; a "
               "path must be exact, never a pattern")},
        {AG "read = [\"/a?\"]\n",
         ENTRY("[agent]", "/a?",
               "`filesystem.read` path contains the pattern character '?'; a "
               "path must be exact, never a pattern")},
        {AG "read = [\"/a[b\"]\n",
         ENTRY("[agent]", "/a[b",
               "`filesystem.read` path contains the pattern character '['; a "
               "path must be exact, never a pattern")},
        {AG "read = [\"/a]\"]\n",
         ENTRY("[agent]", "/a]",
               "`filesystem.read` path contains the pattern character ']'; a "
               "path must be exact, never a pattern")},
        {AG "read = [\"/{a,b}\"]\n",
         ENTRY("[agent]", "/{a,b}",
               "`filesystem.read` path contains the pattern character '{'; a "
               "path must be exact, never a pattern")},
        {AG "read = [\"/a}\"]\n",
         ENTRY("[agent]", "/a}",
               "`filesystem.read` path contains the pattern character '}'; a "
               "path must be exact, never a pattern")},
        // Pattern before relative: the first offending rule wins.
        {AG "read = [\"*\"]\n",
         ENTRY("[agent]", "*",
               "`filesystem.read` path contains the pattern character '*'; a "
               "path must be exact, never a pattern")},
        {AG "write = [\"/a\\tb\"]\n",
         ENTRY("[agent]", "/a\\tb",
               "`filesystem.write` path contains the control character "
               "'\\t'; a path must be exact")},
        {AG "write = [\"/a\\nb\"]\n",
         ENTRY("[agent]", "/a\\nb",
               "`filesystem.write` path contains the control character "
               "'\\n'; a path must be exact")},
        {AG "write = [\"/a\\u007f\"]\n",
         ENTRY("[agent]", "/a\\u{7f}",
               "`filesystem.write` path contains the control character "
               "'\\u{7f}'; a path must be exact")},
        {AG "write = [\"/a\\u009b\"]\n",
         ENTRY("[agent]", "/a\\u{9b}",
               "`filesystem.write` path contains the control character "
               "'\\u{9b}'; a path must be exact")},
        {AG "read = [\"/a\", \"/b\", \"/a\"]\n",
         ENTRY("[agent]", "/a", "`filesystem.read` already lists \"/a\"")},
        {AG "read = [\"/a/b\", \"/a//b/\"]\n",
         ENTRY("[agent]", "/a//b/",
               "`filesystem.read` already lists \"/a/b\"")},
        {AG "deny = [\"~/x\", \"~/./x\"]\n",
         ENTRY("[agent]", "~/./x", "`filesystem.deny` already lists \"~/x\"")},
        {AG "read = [\"~\", \"~/\"]\n",
         ENTRY("[agent]", "~/", "`filesystem.read` already lists \"~\"")},
        // Lists are judged in contract order, not source order.
        {AG "deny = [\"rel\"]\nread = [\"/a*\"]\n",
         ENTRY("[agent]", "/a*",
               "`filesystem.read` path contains the pattern character '*'; a "
               "path must be exact, never a pattern")},
        {TL "read = [\"src\"]\n",
         ENTRY("[tool.git]", "src",
               "`filesystem.read` path must be absolute or start with `~/`, "
               "so a checked-in configuration holds in every clone")},
        {TL "write_file = [\"/a\", \"/a\"]\n",
         ENTRY("[tool.git]", "/a",
               "`filesystem.write_file` already lists \"/a\"")},
    };
    RUN_BAD(fx, BOX_ECONFIG, cases);
#undef AG
#undef TL
}

static void
test_tool_label_refusals(void **state)
{
    fixture *fx = *state;
    static const bad_case cases[] = {
        {HEAD "[tool.\"a b\"]\ncommand = [\"x\"]\n",
         "invalid `[tool.a b]` table: the label must be one component of "
         "letters, digits, '.', '_', or '-'"},
        {HEAD "[tool.\"a/b\"]\ncommand = [\"x\"]\n",
         "invalid `[tool.a/b]` table: the label must be one component of "
         "letters, digits, '.', '_', or '-'"},
        {HEAD "[tool.\"..\"]\ncommand = [\"x\"]\n",
         "invalid `[tool...]` table: the label must be one component of "
         "letters, digits, '.', '_', or '-'"},
        {HEAD "[tool.\".\"]\ncommand = [\"x\"]\n",
         "invalid `[tool..]` table: the label must be one component of "
         "letters, digits, '.', '_', or '-'"},
        {HEAD "[tool.\"\"]\ncommand = [\"x\"]\n",
         "invalid `[tool.]` table: the label must be one component of "
         "letters, digits, '.', '_', or '-'"},
        {HEAD "[tool.\"t\\u001b\"]\ncommand = [\"x\"]\n",
         "invalid `[tool.t\\u{1b}]` table: the label must be one component "
         "of letters, digits, '.', '_', or '-'"},
        // The label is judged before the table's own rules.
        {HEAD "[tool.\"a b\"]\ncommand = []\n",
         "invalid `[tool.a b]` table: the label must be one component of "
         "letters, digits, '.', '_', or '-'"},
    };
    RUN_BAD(fx, BOX_ECONFIG, cases);
}

static void
test_tool_metadata_refused(void **state)
{
    fixture *fx = *state;
    static const bad_case cases[] = {
        {HEAD "[tool.git]\ncommand = [\"git\"]\n[tool.git.filesystem]\n"
              "metadata = [\"/etc\"]\n",
         "@P carries `[tool.<name>.filesystem] metadata`, which this build "
         "does not read; write nothing \xE2\x80\x94 a tool tests existence "
         "and reads metadata across the operator home by default, so it "
         "states no `metadata` list; only `[agent.filesystem]` takes "
         "`metadata` instead. Edit the configuration, or select an empty "
         "`box_dir` to rebuild a stored record"},
        // By name, whatever the value.
        {HEAD "[tool.git]\ncommand = [\"git\"]\nfilesystem = { metadata = 5 "
              "}\n",
         "@P carries `[tool.<name>.filesystem] metadata`, which this build "
         "does not read; write nothing \xE2\x80\x94 a tool tests existence "
         "and reads metadata across the operator home by default, so it "
         "states no `metadata` list; only `[agent.filesystem]` takes "
         "`metadata` instead. Edit the configuration, or select an empty "
         "`box_dir` to rebuild a stored record"},
    };
    RUN_BAD(fx, BOX_ECONFIG, cases);
}

/* `[agent] shells` (issue 23): "all" by default, "path-only" keeps only
 * the aliases on PATH. */
static void
test_shells_accepted(void **state)
{
    fixture *fx = *state;
    static const struct {
        const char *text;
        box_config_shells want;
        bool set;
    } cases[] = {
        {HEAD "[agent]\ncommand = [\"a\"]\n", BOX_SHELLS_ALL, false},
        {HEAD "[agent]\ncommand = [\"a\"]\nshells = \"all\"\n", BOX_SHELLS_ALL,
         true},
        {HEAD "[agent]\ncommand = [\"a\"]\nshells = \"path-only\"\n",
         BOX_SHELLS_PATH_ONLY, true},
        {HEAD "agent = { command = [\"a\"], shells = \"path-only\" }\n",
         BOX_SHELLS_PATH_ONLY, true},
        {HEAD "[agent]\nshells = \"path-only\"\ncommand = [\"a\"]\n"
              "[agent.filesystem]\nread = []\n",
         BOX_SHELLS_PATH_ONLY, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        box_config *c = load_ok(fx, cases[i].text);
        const box_config_process *a = box_config_agent(c);
        assert_non_null(a);
        assert_int_equal(a->pr_shells, cases[i].want);
        assert_int_equal(a->pr_shells_set, cases[i].set);
        box_config_free(c);
    }
    // A tool that says nothing keeps the host's shells, and says so.
    box_config *c = load_ok(fx, HEAD "[tool.git]\ncommand = [\"git\"]\n");
    assert_false(box_config_tool(c, 0)->pr_shells_set);
    box_config_free(c);
}

#define SHELLS_TOOL_REFUSED(t)                                                 \
    "invalid `" t "` table: `shells` is refused on `[tool.<name>]`: a tool "   \
    "runs the host's own shells inside its sandbox, and only `[agent]` "       \
    "takes `shells` (\"all\" or \"path-only\")"

static void
test_shells_refusals(void **state)
{
    fixture *fx = *state;
    static const bad_case parse[] = {
        {HEAD "[agent]\ncommand = [\"a\"]\nshells = \"none\"\n",
         "cannot parse config file @P: line 5, column 10: unknown variant "
         "`none`, expected `all` or `path-only`"},
        {HEAD "[agent]\ncommand = [\"a\"]\nshells = \"ALL\"\n",
         "cannot parse config file @P: line 5, column 10: unknown variant "
         "`ALL`, expected `all` or `path-only`"},
        {HEAD "[agent]\ncommand = [\"a\"]\nshells = \"\"\n",
         "cannot parse config file @P: line 5, column 10: unknown variant "
         "``, expected `all` or `path-only`"},
        {HEAD "[agent]\ncommand = [\"a\"]\nshells = \"path_only\"\n",
         "cannot parse config file @P: line 5, column 10: unknown variant "
         "`path_only`, expected `all` or `path-only`"},
        {HEAD "[agent]\ncommand = [\"a\"]\nshells = true\n",
         "cannot parse config file @P: line 5, column 10: invalid type: "
         "boolean `true`, expected a string"},
        {HEAD "[agent]\ncommand = [\"a\"]\nshells = [\"/bin/sh\"]\n",
         "cannot parse config file @P: line 5, column 10: invalid type: "
         "array, expected a string"},
        // The value is decoded before the table's rules: a tool's bad
        // value is a decode error first.
        {HEAD "[tool.git]\ncommand = [\"git\"]\nshells = \"some\"\n",
         "cannot parse config file @P: line 5, column 10: unknown variant "
         "`some`, expected `all` or `path-only`"},
    };
    RUN_BAD(fx, BOX_EPARSE, parse);
    static const bad_case rules[] = {
        {HEAD "[tool.git]\ncommand = [\"git\"]\nshells = \"path-only\"\n",
         SHELLS_TOOL_REFUSED("[tool.git]")},
        {HEAD "[tool.git]\ncommand = [\"git\"]\nshells = \"all\"\n",
         SHELLS_TOOL_REFUSED("[tool.git]")},
        {HEAD "[agent]\ncommand = [\"a\"]\n[tool.x]\ncommand = [\"x\"]\n"
              "shells = \"all\"\n",
         SHELLS_TOOL_REFUSED("[tool.x]")},
        // shells is judged before command, as network is on [agent].
        {HEAD "[tool.g]\ncommand = []\nshells = \"all\"\n",
         SHELLS_TOOL_REFUSED("[tool.g]")},
    };
    RUN_BAD(fx, BOX_ECONFIG, rules);
}

/* A tool's `exec` lists the programs it may run besides its command
 * (issue 17 item 9); it is read, and judged, as the agent's is. */
static void
test_tool_exec_accepted(void **state)
{
    fixture *fx = *state;
    box_config *c = load_ok(
        fx, HEAD "[tool.git]\ncommand = [\"git\"]\n[tool.git.filesystem]\n"
                 "read = [\"~/src\"]\n"
                 "exec = [\"/usr/lib/git-core\", \"~/bin/helper\"]\n");
    const box_config_process *t = box_config_tool_find(c, "git");
    assert_non_null(t);
    STRV(&t->pr_fs[BOX_GRANT_EXEC], "/usr/lib/git-core", "~/bin/helper");
    STRV(&t->pr_fs[BOX_GRANT_READ], "~/src");
    box_config_free(c);
    // The agent's spelling rules, with the tool's table named.
    static const bad_case spelled[] = {
        {HEAD "[tool.git]\ncommand = [\"git\"]\n[tool.git.filesystem]\n"
              "exec = [\"/usr/lib/*\"]\n",
         ENTRY("[tool.git]", "/usr/lib/*",
               "`filesystem.exec` path contains the pattern character '*'; a "
               "path must be exact, never a pattern")},
        {HEAD "[tool.git]\ncommand = [\"git\"]\n[tool.git.filesystem]\n"
              "exec = [\"bin\"]\n",
         ENTRY("[tool.git]", "bin",
               "`filesystem.exec` path must be absolute or start with `~/`, "
               "so a checked-in configuration holds in every clone")},
        {HEAD "[tool.git]\ncommand = [\"git\"]\n[tool.git.filesystem]\n"
              "exec = [\"/usr/bin\", \"/usr/bin/\"]\n",
         ENTRY("[tool.git]", "/usr/bin/",
               "`filesystem.exec` already lists \"/usr/bin\"")},
    };
    RUN_BAD(fx, BOX_ECONFIG, spelled);
    expect_refusal(fx, BOX_EPARSE,
                   HEAD "[tool.git]\ncommand = [\"git\"]\n"
                        "filesystem = { exec = 5 }\n",
                   "cannot parse config file @P: line 5, column 23: invalid "
                   "type: integer `5`, expected an array of strings");
}

static void
test_unsupported_sections(void **state)
{
    fixture *fx = *state;
    static const bad_case cases[] = {
        {HEAD "[mcp.fs]\ntype = \"stdio\"\n", "`[mcp]` is not supported yet"},
        {HEAD "[telemetry.file]\nkind = \"file\"\n",
         "`[telemetry]` is not supported yet"},
        {HEAD "telemetry = 5\n", "`[telemetry]` is not supported yet"},
        // Reported before the contract rules, after decoding.
        {"name = \"\"\nbox_dir = \"b\"\n[mcp.x]\n",
         "`[mcp]` is not supported yet"},
    };
    RUN_BAD(fx, BOX_ENOTSUP, cases);
    // Decoding errors come first.
    expect_refusal(fx, BOX_EPARSE, HEAD "[mcp.x]\n[agent]\n",
                   "cannot parse config file @P: line 4, column 1: missing "
                   "field `command`");
}

/* ---- [egress.NAME] ---- */

/* The spec's example table, every key written, and each default. */
static void
test_egress_accepted(void **state)
{
    fixture *fx = *state;
    box_config *c = load_ok(
        fx, HEAD "[egress.github]\n"
                 "destinations = [\"api.github.com\"]\n"
                 "secret.ref = \"env://GITHUB_TOKEN\"\n"
                 "[egress.maps]\n"
                 "destinations = [\"maps.example.com/v1\", "
                 "\"*.tiles.example.com:8443\"]\n"
                 "protocol = \"http\"\n"
                 "[egress.maps.secret]\n"
                 "ref = \"env://MAPS_KEY\"\n"
                 "placement = \"query_param\"\n"
                 "param = \"key\"\n"
                 "inject = \"always\"\n"
                 "phantom_prefix = \"p-1.x~\"\n"
                 "[egress.s3]\n"
                 "destinations = [\"*.amazonaws.com\"]\n"
                 "secret = { ref = \"aws://prod\", inject = \"phantom\" }\n"
                 "[egress.vault]\n"
                 "destinations = [\"vault.internal:8200/v1/*/data\"]\n"
                 "secret.ref = \"credsd://vault-token\"\n"
                 "secret.header = \"X-Vault-Token\"\n"
                 "[egress.lower]\n"
                 "destinations = [\"a.example\"]\n"
                 "secret.ref = \"env://GITHUB_TOKEN\"\n"
                 "secret.header = \"authorization\"\n"
                 "[egress.basic]\n"
                 "destinations = [\"b.example/x\", \"b.example/y\"]\n"
                 "secret.ref = \"env://B_PASS\"\n"
                 "secret.placement = \"basic_auth\"\n"
                 "[egress.own]\n"
                 "destinations = [\"c.example\"]\n"
                 "secret.ref = \"env://C\"\n"
                 "secret.prefix = \"token \"\n");
    assert_int_equal(box_config_egress_count(c), 7);
    assert_null(box_config_egress_get(c, 7));

    const box_config_egress *e = box_config_egress_get(c, 0);
    assert_string_equal(e->eg_table, "[egress.github]");
    assert_string_equal(e->eg_label, "github");
    STRV(&e->eg_destinations, "api.github.com");
    assert_int_equal(e->eg_kind, BOX_SECRET_ENV);
    assert_string_equal(e->eg_ref_name, "GITHUB_TOKEN");
    assert_int_equal(e->eg_placement, BOX_PLACE_HEADER);
    assert_string_equal(e->eg_header, "Authorization");
    assert_string_equal(e->eg_prefix, "Bearer ");
    assert_null(e->eg_param);
    assert_false(e->eg_always);
    assert_string_equal(e->eg_phantom_prefix, "strands_box_");

    e = box_config_egress_get(c, 1);
    assert_string_equal(e->eg_label, "maps");
    STRV(&e->eg_destinations, "maps.example.com/v1",
         "*.tiles.example.com:8443");
    assert_string_equal(e->eg_ref_name, "MAPS_KEY");
    assert_int_equal(e->eg_placement, BOX_PLACE_QUERY_PARAM);
    assert_string_equal(e->eg_param, "key");
    assert_string_equal(e->eg_prefix, ""); // not a header placement
    assert_true(e->eg_always);
    assert_string_equal(e->eg_phantom_prefix, "p-1.x~");

    e = box_config_egress_get(c, 2);
    assert_int_equal(e->eg_kind, BOX_SECRET_AWS);
    assert_string_equal(e->eg_ref_name, "prod");
    assert_false(e->eg_always);

    e = box_config_egress_get(c, 3);
    assert_int_equal(e->eg_kind, BOX_SECRET_CREDSD);
    assert_string_equal(e->eg_ref_name, "vault-token");
    assert_string_equal(e->eg_header, "X-Vault-Token");
    assert_string_equal(e->eg_prefix, ""); // not Authorization

    e = box_config_egress_get(c, 4); // two tables may share one secret
    assert_string_equal(e->eg_ref_name, "GITHUB_TOKEN");
    assert_string_equal(e->eg_header, "authorization");
    assert_string_equal(e->eg_prefix, "Bearer ");

    e = box_config_egress_get(c, 5);
    assert_int_equal(e->eg_placement, BOX_PLACE_BASIC_AUTH);
    assert_string_equal(e->eg_prefix, "");

    e = box_config_egress_get(c, 6);
    assert_string_equal(e->eg_prefix, "token ");
    box_config_free(c);

    // No tables at all, and a file without the key.
    c = load_ok(fx, HEAD "egress = {}\n");
    assert_int_equal(box_config_egress_count(c), 0);
    assert_null(box_config_egress_get(c, 0));
    box_config_free(c);
    c = load_ok(fx, HEAD);
    assert_int_equal(box_config_egress_count(c), 0);
    assert_null(box_config_egress_get(c, 0));
    box_config_free(c);
}

static void
test_egress_decode_errors(void **state)
{
    fixture *fx = *state;
    static const bad_case cases[] = {
        {HEAD "egress = 5\n", "cannot parse config file @P: line 3, column "
                              "10: invalid type: integer `5`, expected a "
                              "table"},
        {HEAD "egress.gh = \"x\"\n",
         "cannot parse config file @P: line 3, column 13: invalid type: "
         "string \"x\", expected a table"},
        {HEAD "[egress.gh]\nsecret.ref = \"env://T\"\n",
         "cannot parse config file @P: line 3, column 1: missing field "
         "`destinations`"},
        {HEAD "[egress.gh]\ndestinations = [\"a\"]\nhost = \"a\"\n",
         "cannot parse config file @P: line 5, column 1: unknown field "
         "`host`, expected one of `destinations`, `protocol`, `secret`"},
        {HEAD "[egress.gh]\ndestinations = [\"a\"]\nsecret.token = \"x\"\n",
         "cannot parse config file @P: line 5, column 8: unknown field "
         "`token`, expected one of `ref`, `placement`, `header`, `prefix`, "
         "`param`, `inject`, `phantom_prefix`"},
        {HEAD "[egress.gh]\ndestinations = \"a\"\n",
         "cannot parse config file @P: line 4, column 16: invalid type: "
         "string \"a\", expected an array of strings"},
        {HEAD "[egress.gh]\ndestinations = [\"a\", 1]\n",
         "cannot parse config file @P: line 4, column 22: invalid type: "
         "integer `1`, expected a string"},
        {HEAD "[egress.gh]\ndestinations = [\"a\"]\nprotocol = 1\n",
         "cannot parse config file @P: line 5, column 12: invalid type: "
         "integer `1`, expected a string"},
        {HEAD "[egress.gh]\ndestinations = [\"a\"]\nprotocol = \"https\"\n",
         "cannot parse config file @P: line 5, column 12: unknown variant "
         "`https`, expected `http` or `mcp`"},
        {HEAD "[egress.gh]\ndestinations = [\"a\"]\nsecret = \"env://T\"\n",
         "cannot parse config file @P: line 5, column 10: invalid type: "
         "string \"env://T\", expected a table"},
        {HEAD "[egress.gh]\ndestinations = [\"a\"]\nsecret.ref = true\n",
         "cannot parse config file @P: line 5, column 14: invalid type: "
         "boolean `true`, expected a string"},
        {HEAD "[egress.gh]\ndestinations = [\"a\"]\n"
              "secret.placement = \"cookie\"\n",
         "cannot parse config file @P: line 5, column 20: unknown variant "
         "`cookie`, expected one of `header`, `basic_auth`, `query_param`"},
        {HEAD "[egress.gh]\ndestinations = [\"a\"]\n"
              "secret.inject = \"Always\"\n",
         "cannot parse config file @P: line 5, column 17: unknown variant "
         "`Always`, expected `phantom` or `always`"},
        {HEAD "[egress.gh]\ndestinations = [\"a\"]\n"
              "secret.inject = \"a\\tb\"\n",
         "cannot parse config file @P: line 5, column 17: unknown variant "
         "`a\\tb`, expected `phantom` or `always`"},
        {HEAD "[egress.gh]\ndestinations = [\"a\"]\n"
              "secret.header = [\"X\"]\n",
         "cannot parse config file @P: line 5, column 17: invalid type: "
         "array, expected a string"},
        // Decoding (every table) before validation (any table).
        {HEAD "[egress.a]\ndestinations = []\n[egress.b]\nx = 1\n",
         "cannot parse config file @P: line 6, column 1: unknown field `x`, "
         "expected one of `destinations`, `protocol`, `secret`"},
    };
    RUN_BAD(fx, BOX_EPARSE, cases);
}

/* "invalid `[egress.gh]` table: " and the reason. */
#define EG "invalid `[egress.gh]` table: "
/* A table with one destination and the given secret lines. */
#define GH(secret) HEAD "[egress.gh]\ndestinations = [\"a.example\"]\n" secret
#define NO_SECRET                                                              \
    EG "an entry with no secret declares only a destination, which policy "    \
       "already decides; give it a secret, or set protocol = \"mcp\" for a "   \
       "remote MCP server"
#define LITERAL                                                                \
    EG "secret.ref must be env://NAME, aws://PROFILE or credsd://NAME; a "     \
       "literal secret is refused"
#define ENV_NAME                                                               \
    EG "secret.ref env://NAME needs NAME to be a valid environment-variable "  \
       "name"
#define BOX_SET(n)                                                             \
    EG "secret.ref names \"" n "\", which the box sets itself, so a table "    \
       "cannot claim it"

static void
test_egress_refusals(void **state)
{
    fixture *fx = *state;
    static const bad_case cases[] = {
        // The label, as a tool's.
        {HEAD "[egress.\"a b\"]\ndestinations = [\"a\"]\n",
         "invalid `[egress.a b]` table: the label must be one component of "
         "letters, digits, '.', '_', or '-'"},
        {HEAD "[egress.\"..\"]\ndestinations = [\"a\"]\n",
         "invalid `[egress...]` table: the label must be one component of "
         "letters, digits, '.', '_', or '-'"},
        // protocol.
        {GH("protocol = \"mcp\"\n"),
         EG "protocol \"mcp\" is not an egress protocol; use [mcp.gh] type = "
            "\"http\""},
        // destinations.
        {HEAD "[egress.gh]\ndestinations = []\nsecret.ref = \"env://T\"\n",
         EG "destinations is empty; name one or more"},
        {HEAD "[egress.gh]\ndestinations = [\"a.com:0\"]\n",
         EG "destination \"a.com:0\" is refused: port 0 is not a port"},
        {HEAD "[egress.gh]\ndestinations = [\"*\"]\n",
         EG "destination \"*\" is refused: `*` alone would match every host"},
        {HEAD "[egress.gh]\ndestinations = [\"https://a.com\"]\n",
         EG "destination \"https://a.com\" is refused: it is a URL; write the "
            "host alone, without a scheme"},
        {HEAD "[egress.gh]\ndestinations = [\"a.com\", \"a\\tb\"]\n",
         EG "destination \"a\\tb\" is refused: it holds a space or a control "
            "character"},
        {HEAD "[egress.gh]\ndestinations = [\"a.com\", \"A.com:443/x\"]\n",
         EG "destinations \"a.com\" and \"A.com:443/x\" overlap; a request "
            "may fall under one destination at most"},
        {HEAD "[egress.x]\ndestinations = [\"b.com\", \"*.x.com\"]\n"
              "secret.ref = \"env://X\"\n"
              "[egress.gh]\ndestinations = [\"c.com\", \"api.x.com/v1\"]\n",
         EG "destination \"api.x.com/v1\" overlaps \"*.x.com\" of "
            "`[egress.x]`; a request may carry one credential at most"},
        {HEAD "[egress.x]\ndestinations = [\"h/a/*/c\"]\n"
              "secret.ref = \"env://X\"\n"
              "[egress.gh]\ndestinations = [\"h/*/b\"]\n",
         EG "destination \"h/*/b\" overlaps \"h/a/*/c\" of `[egress.x]`; a "
            "request may carry one credential at most"},
        // The secret: present, then a reference, never a literal.
        {GH(""), NO_SECRET},
        {GH("secret = {}\n"), NO_SECRET},
        {GH("secret.header = \"X-Key\"\n"), NO_SECRET},
        {GH("secret.ref = \"ghp_abcdef0123456789\"\n"), LITERAL},
        {GH("secret.ref = \"\"\n"), LITERAL},
        {GH("secret.ref = \"ENV://T\"\n"), LITERAL},
        {GH("secret.ref = \"secret://T\"\n"), LITERAL},
        {GH("secret.ref = \"env:T\"\n"), LITERAL},
        {GH("secret.ref = \"env://\"\n"), ENV_NAME},
        {GH("secret.ref = \"env://1T\"\n"), ENV_NAME},
        {GH("secret.ref = \"env://sk-live-abc\"\n"), ENV_NAME},
        {GH("secret.ref = \"env://T X\"\n"), ENV_NAME},
        {GH("secret.ref = \"aws://\"\n"),
         EG "secret.ref aws://PROFILE needs PROFILE to be one component of "
            "letters, digits, '.', '_', or '-'"},
        {GH("secret.ref = \"aws://a/b\"\n"),
         EG "secret.ref aws://PROFILE needs PROFILE to be one component of "
            "letters, digits, '.', '_', or '-'"},
        {GH("secret.ref = \"credsd://..\"\n"),
         EG "secret.ref credsd://NAME needs NAME to be one component of "
            "letters, digits, '.', '_', or '-'"},
        // Names the box sets in every process's environment.
        {GH("secret.ref = \"env://PATH\"\n"), BOX_SET("PATH")},
        {GH("secret.ref = \"env://HOME\"\n"), BOX_SET("HOME")},
        {GH("secret.ref = \"env://HTTPS_PROXY\"\n"), BOX_SET("HTTPS_PROXY")},
        {GH("secret.ref = \"env://SSL_CERT_FILE\"\n"),
         BOX_SET("SSL_CERT_FILE")},
        {GH("secret.ref = \"env://USER\"\n"), BOX_SET("USER")},
        {GH("secret.ref = \"env://LD_PRELOAD\"\n"), BOX_SET("LD_PRELOAD")},
        {GH("secret.ref = \"env://NODE_OPTIONS\"\n"), BOX_SET("NODE_OPTIONS")},
        {GH("secret.ref = \"env://OTEL_EXPORTER_OTLP_HEADERS\"\n"),
         BOX_SET("OTEL_EXPORTER_OTLP_HEADERS")},
        // An aws:// secret's placeholders, whichever table comes first.
        {GH("secret.ref = \"env://AWS_SECRET_ACCESS_KEY\"\n"
            "[egress.s3]\ndestinations = [\"*.amazonaws.com\"]\n"
            "secret.ref = \"aws://default\"\n"),
         EG "secret.ref names \"AWS_SECRET_ACCESS_KEY\", which holds the "
            "placeholder of an aws:// or credsd:// secret"},
        // What only an env:// secret takes.
        {GH("secret.ref = \"aws://p\"\nsecret.placement = \"basic_auth\"\n"),
         EG "secret.placement \"basic_auth\" needs an env:// secret.ref"},
        {GH("secret.ref = \"credsd://p\"\n"
            "secret.placement = \"query_param\"\nsecret.param = \"k\"\n"),
         EG "secret.placement \"query_param\" needs an env:// secret.ref"},
        {GH("secret.ref = \"credsd://p\"\nsecret.inject = \"always\"\n"),
         EG "secret.inject \"always\" needs an env:// secret.ref"},
        {GH("secret.ref = \"aws://p\"\nsecret.phantom_prefix = \"x_\"\n"),
         EG "secret.phantom_prefix applies only to an env:// secret.ref"},
        // param with query_param, and only there.
        {GH("secret.ref = \"env://T\"\nsecret.placement = \"query_param\"\n"),
         EG "secret.placement \"query_param\" needs secret.param"},
        {GH("secret.ref = \"env://T\"\nsecret.param = \"k\"\n"),
         EG "secret.param applies only to secret.placement \"query_param\""},
        {GH("secret.ref = \"env://T\"\nsecret.placement = \"basic_auth\"\n"
            "secret.param = \"k\"\n"),
         EG "secret.param applies only to secret.placement \"query_param\""},
        {GH("secret.ref = \"env://T\"\nsecret.placement = \"query_param\"\n"
            "secret.param = \"\"\n"),
         EG "secret.param \"\" must be one or more of letters, digits, '.', "
            "'_', '~' or '-'"},
        {GH("secret.ref = \"env://T\"\nsecret.placement = \"query_param\"\n"
            "secret.param = \"a&b=c\"\n"),
         EG "secret.param \"a&b=c\" must be one or more of letters, digits, "
            "'.', '_', '~' or '-'"},
        // The strings.
        {GH("secret.ref = \"env://T\"\nsecret.phantom_prefix = \"\"\n"),
         EG "secret.phantom_prefix \"\" must be 1 to 64 of letters, digits, "
            "'.', '_', '~' or '-'"},
        {GH("secret.ref = \"env://T\"\nsecret.phantom_prefix = \"a b\"\n"),
         EG "secret.phantom_prefix \"a b\" must be 1 to 64 of letters, "
            "digits, '.', '_', '~' or '-'"},
        {GH("secret.ref = \"env://T\"\nsecret.phantom_prefix = "
            "\"12345678901234567890123456789012345678901234567890123456789012"
            "345\"\n"),
         EG "secret.phantom_prefix "
            "\"12345678901234567890123456789012345678901234567890123456789012"
            "345\" must be 1 to 64 of letters, digits, '.', '_', '~' or '-'"},
        {GH("secret.ref = \"env://T\"\nsecret.header = \"\"\n"),
         EG "secret.header \"\" is not an HTTP field name"},
        {GH("secret.ref = \"env://T\"\nsecret.header = \"X Key\"\n"),
         EG "secret.header \"X Key\" is not an HTTP field name"},
        {GH("secret.ref = \"env://T\"\nsecret.header = \"X-Key:\"\n"),
         EG "secret.header \"X-Key:\" is not an HTTP field name"},
        {GH("secret.ref = \"env://T\"\nsecret.prefix = \"Bearer\\r\\nX: \"\n"),
         EG "secret.prefix \"Bearer\\r\\nX: \" may hold no control character, "
            "'{' or '}'"},
        {GH("secret.ref = \"env://T\"\nsecret.prefix = \"{x} \"\n"),
         EG "secret.prefix \"{x} \" may hold no control character, '{' or "
            "'}'"},
    };
    RUN_BAD(fx, BOX_ECONFIG, cases);
    // A NUL in the label is refused as the label.
    static const char nul[] = HEAD "[egress.\"a\\u0000b\"]\n";
    expect_refusal_len(fx, BOX_ECONFIG, nul, sizeof(nul) - 1,
                       "invalid `[egress.a\\0b]` table: the label must be one "
                       "component of letters, digits, '.', '_', or '-'");
}

/* Every table after the tools, before box_dir; the first table first. */
static void
test_egress_validation_order(void **state)
{
    fixture *fx = *state;
    expect_refusal(fx, BOX_ECONFIG,
                   "name = \"a\"\nbox_dir = \"rel\"\n"
                   "[egress.e]\ndestinations = []\n"
                   "[tool.t]\ncommand = []\n",
                   "invalid `[tool.t]` table: `command` must name a program "
                   "as its first entry");
    expect_refusal(fx, BOX_ECONFIG,
                   "name = \"a\"\nbox_dir = \"rel\"\n"
                   "[egress.z]\ndestinations = []\n"
                   "[egress.a]\ndestinations = [\"*\"]\n",
                   "invalid `[egress.z]` table: destinations is empty; name "
                   "one or more");
    expect_refusal(fx, BOX_ECONFIG,
                   "name = \"a\"\nbox_dir = \"rel\"\n"
                   "[egress.e]\ndestinations = [\"e.com\"]\n"
                   "secret.ref = \"env://E\"\n",
                   "`box_dir` must be absolute: rel");
}

/* Two tables with a and b distinct destinations, "d<i>.example". */
static char *
egress_many(size_t a, size_t b)
{
    box_buf t;
    box_buf_init(&t, 1u << 20);
    assert_int_equal(box_buf_puts(&t, HEAD), BOX_OK);
    for (size_t i = 0; i < a + b; i++) {
        const char *open = i == 0   ? "[egress.a]\ndestinations = ["
                           : i == a ? "]\nsecret.ref = \"env://A\"\n"
                                      "[egress.b]\ndestinations = ["
                                    : ", ";
        assert_int_equal(box_buf_printf(&t, "%s\"d%zu.example\"", open, i),
                         BOX_OK);
    }
    assert_int_equal(box_buf_puts(&t, "]\nsecret.ref = \"env://B\"\n"), BOX_OK);
    char *text = box_buf_take(&t);
    assert_non_null(text);
    return text;
}

/* Each destination is held against every other, so a file holds at most
 * BOX_CONFIG_MAX_DESTINATIONS of them, counted across tables. */
static void
test_egress_destination_cap(void **state)
{
    fixture *fx = *state;
    char *text = egress_many(600, BOX_CONFIG_MAX_DESTINATIONS - 600);
    box_config *c = load_ok(fx, text);
    assert_int_equal(box_config_egress_get(c, 1)->eg_destinations.sv_len,
                     BOX_CONFIG_MAX_DESTINATIONS - 600);
    box_config_free(c);
    box_free(text);
    text = egress_many(600, BOX_CONFIG_MAX_DESTINATIONS - 599);
    expect_refusal(fx, BOX_ECONFIG, text,
                   "invalid `[egress.b]` table: the file names more than 1024 "
                   "destinations in all, the most a box holds");
    box_free(text);
}

/* Every allocation failure while loading egress tables is BOX_ENOMEM with
 * a message and nothing left behind (ASan's leak check sees the rest). */
static void
test_egress_nomem(void **state)
{
    (void)state;
    static const char text[] =
        HEAD "[egress.a]\ndestinations = [\"a.com\", \"*.b.com:8443/x/*\"]\n"
             "secret = { ref = \"env://A\", placement = \"query_param\", "
             "param = \"k\", inject = \"always\" }\n"
             "[egress.c]\ndestinations = [\"c.com\"]\n"
             "secret.ref = \"aws://p\"\n"
             "[egress.d]\ndestinations = [\"a.com/y\"]\n"
             "secret.ref = \"env://D\"\n";
    for (unsigned long n = 1;; n++) {
        box_config *c = NULL;
        char *err = NULL;
        box_alloc_fail_after(n);
        box_err rv =
            box_config_parse(text, sizeof(text) - 1, "/b/box.toml", &c, &err);
        unsigned long calls = box_alloc_calls();
        box_alloc_fail_off();
        if (calls < n) { // none failed: the walk is done
            assert_int_equal(rv, BOX_ECONFIG);
            assert_string_equal(err, "invalid `[egress.d]` table: destination "
                                     "\"a.com/y\" overlaps \"a.com\" of "
                                     "`[egress.a]`; a request may carry one "
                                     "credential at most");
            box_free(err);
            break;
        }
        assert_null(c);
        if (rv != BOX_ENOMEM)
            assert_int_equal(rv, BOX_ECONFIG); // the message's own failure
        box_free(err);
    }
}

static void
test_validation_order(void **state)
{
    fixture *fx = *state;
    // name, then [agent], then each tool in source order, then box_dir.
    expect_refusal(fx, BOX_ECONFIG,
                   "name = \"a b\"\nbox_dir = \"rel\"\n"
                   "[agent]\ncommand = []\n",
                   "box name \"a b\" is invalid: it contains ' '; use one "
                   "component of letters, digits, '.', '_', or '-'");
    expect_refusal(fx, BOX_ECONFIG,
                   "name = \"a\"\nbox_dir = \"rel\"\n"
                   "[tool.t]\ncommand = []\n[agent]\ncommand = []\n",
                   "invalid `[agent]` table: `command` must name a program as "
                   "its first entry");
    expect_refusal(fx, BOX_ECONFIG,
                   "name = \"a\"\nbox_dir = \"rel\"\n"
                   "[tool.z]\ncommand = [\"\"]\n[tool.a]\ncommand = []\n",
                   "invalid `[tool.z]` table: `command` element 0 is empty");
    expect_refusal(fx, BOX_ECONFIG,
                   "name = \"a\"\nbox_dir = \"rel\"\npolicy = \"\"\n",
                   "`box_dir` must be absolute: rel");
    // Decoding (any key, any table) before validation.
    expect_refusal(fx, BOX_EPARSE,
                   "name = \"a b\"\nbox_dir = \"/b\"\n[tool.t]\ncommand = 1\n",
                   "cannot parse config file @P: line 4, column 11: invalid "
                   "type: integer `1`, expected an array of strings");
}

/* ---- filesystem checks ---- */

/*
 * Where the filesystem checks' box.toml lives: a directory of its own, so
 * the trees the cases lay out under @D are not inside the configuration's
 * directory, where no grant may reach (config_reach.c).
 */
#define CHECK_CONF "conf/box.toml"

/* Loads text as @D/name and runs the filesystem checks with home =
 * @D/home. */
static box_err
check_paths_at(const fixture *fx, const char *name, const char *text,
               char **err)
{
    box_config *c = load_ok_at(fx, name, text);
    char *home = expand(fx, "@D/home");
    box_err rv = box_config_check_paths(c, home, NULL, err);
    box_free(home);
    box_config_free(c);
    return rv;
}

/* The same, with box.toml in @D/conf. */
static box_err
check_paths(const fixture *fx, const char *text, char **err)
{
    make_dir(fx, "conf");
    return check_paths_at(fx, CHECK_CONF, text, err);
}

static void
expect_refused_as(const char *text, box_err rv, char *err, const char *want)
{
    if (rv == BOX_OK)
        fail_msg("accepted:\n%s", text);
    assert_non_null(err);
    assert_string_equal(err, want);
    assert_int_equal(rv, BOX_ECONFIG);
}

static void
expect_paths_refused(const fixture *fx, const char *text, const char *want)
{
    char *err = NULL;
    box_err rv = check_paths(fx, text, &err);
    char *w = expand(fx, want);
    expect_refused_as(text, rv, err, w);
    box_free(w);
    box_free(err);
}

/* As expect_paths_refused, with box.toml at @D/name. */
static void
expect_paths_refused_at(const fixture *fx, const char *name, const char *text,
                        const char *want)
{
    char *err = NULL;
    box_err rv = check_paths_at(fx, name, text, &err);
    char *w = expand(fx, want);
    expect_refused_as(text, rv, err, w);
    box_free(w);
    box_free(err);
}

static void
expect_paths_ok_at(const fixture *fx, const char *name, const char *text)
{
    char *err = NULL;
    if (check_paths_at(fx, name, text, &err) != BOX_OK)
        fail_msg("refused: %s\n--- input:\n%s", err ? err : "(none)", text);
    assert_null(err);
}

/* A tree under @D: home/ (with file, dir/, link -> dir), work/, a file,
 * an executable, and a link to work/. */
static void
make_tree(const fixture *fx)
{
    make_dir(fx, "home");
    make_dir(fx, "home/dir");
    write_file(fx, "home/file", "x");
    make_link(fx, "dir", "home/link");
    make_dir(fx, "work");
    make_dir(fx, "boxes");
    write_file(fx, "plain", "x");
    write_file_len(fx, "tool.sh", "#!/bin/sh\n", 10, 0755);
    make_link(fx, "work", "worklink");
}

static void
test_check_paths_ok(void **state)
{
    fixture *fx = *state;
    make_tree(fx);
    char *err = NULL;
    box_err rv =
        check_paths(fx,
                    "name = \"a\"\nbox_dir = \"@D/boxes/new\"\n"
                    "[agent]\ncommand = [\"a\"]\nworkspace = \"@D/work\"\n"
                    "[agent.filesystem]\n"
                    "read = [\"~\", \"~/file\", \"@D/plain\"]\n"
                    "write = [\"~/dir\"]\n"
                    "read_file = [\"~/file\"]\n"
                    "write_file = [\"@D/plain\"]\n"
                    "list = [\"@D/work\"]\n"
                    "metadata = [\"~/dir\"]\n"
                    "exec = [\"@D/tool.sh\", \"@D/work\"]\n"
                    "deny = [\"~/file\", \"@D/work\"]\n"
                    "[tool.t]\ncommand = [\"t\"]\nworkspace = \"@D/worklink\"\n"
                    "[tool.t.filesystem]\nread = [\"@D/work\"]\n"
                    "exec = [\"@D/tool.sh\", \"@D/work\"]\n",
                    &err);
    if (rv != BOX_OK)
        fail_msg("%s", err);
    assert_null(err);

    // Read-type entries inside a write grant (read-only there, as the
    // quickstart's [tool.git] keeps .git/config and .git/hooks) pass.
    make_dir(fx, "home/dir/hooks");
    write_file(fx, "home/dir/config", "x");
    make_dir(fx, "home/dir/refs");
    rv = check_paths(fx,
                     "name = \"a\"\nbox_dir = \"@D/boxes/new\"\n"
                     "[tool.git]\ncommand = [\"git\"]\n"
                     "[tool.git.filesystem]\n"
                     "read = [\"~\", \"~/dir/hooks\"]\n"
                     "write = [\"~/dir\"]\n"
                     "read_file = [\"~/dir/config\"]\n"
                     "list = [\"~/dir/refs\"]\n",
                     &err);
    if (rv != BOX_OK)
        fail_msg("%s", err);
    assert_null(err);

    // box_dir may exist already.
    rv = check_paths(fx, "name = \"a\"\nbox_dir = \"@D/boxes\"\n", &err);
    assert_int_equal(rv, BOX_OK);
    // A home reached through a link is still the home.
    make_link(fx, "home", "homelink");
    box_config *c = load_ok_at(fx, CHECK_CONF,
                               HEAD "[agent]\ncommand = [\"a\"]\n"
                                    "[agent.filesystem]\nread = [\"~/dir\"]\n");
    char *home = expand(fx, "@D/homelink");
    assert_int_equal(box_config_check_paths(c, home, NULL, &err), BOX_OK);
    box_free(home);
    box_config_free(c);
}

static void
test_check_paths_home(void **state)
{
    fixture *fx = *state;
    box_config *c = load_ok(fx, HEAD);
    char *err = NULL;
    assert_int_equal(box_config_check_paths(c, NULL, NULL, &err), BOX_ECONFIG);
    assert_string_equal(err, "HOME is not set");
    box_free(err);
    assert_int_equal(box_config_check_paths(c, "", NULL, &err), BOX_ECONFIG);
    assert_string_equal(err, "HOME is not set");
    box_free(err);
    assert_int_equal(box_config_check_paths(c, "/nonexistent-home", NULL, &err),
                     BOX_ECONFIG);
    assert_string_equal(err, "cannot resolve the operator's home "
                             "/nonexistent-home: No such file or directory");
    box_free(err);
    box_config_free(c);
}

static void
test_check_paths_box_dir(void **state)
{
    fixture *fx = *state;
    make_tree(fx);
    expect_paths_refused(fx, "name = \"a\"\nbox_dir = \"@D/nope/state\"\n",
                         "cannot create box directory @D/nope/state: No such "
                         "file or directory");
    expect_paths_refused(fx, "name = \"a\"\nbox_dir = \"@D/plain/state\"\n",
                         "cannot create box directory @D/plain/state: Not a "
                         "directory");
    expect_paths_refused(fx, "name = \"a\"\nbox_dir = \"@D/plain\"\n",
                         "box path is not a directory: @D/plain");
    expect_paths_refused(fx, "name = \"a\"\nbox_dir = \"@D/worklink\"\n",
                         "box path is not a directory: @D/worklink");
    char *err = NULL;
    assert_int_equal(
        check_paths(fx, "name = \"a\"\nbox_dir = \"@D/new/\"\n", &err), BOX_OK);
}

#define WS_PREFIX "cannot settle the project this box belongs to: "

static void
test_check_paths_workspace(void **state)
{
    fixture *fx = *state;
    make_tree(fx);
    expect_paths_refused(fx,
                         HEAD "[agent]\ncommand = [\"a\"]\n"
                              "workspace = \"@D/missing\"\n",
                         WS_PREFIX "cannot resolve @D/missing: No such file "
                                   "or directory");
    expect_paths_refused(fx,
                         HEAD "[tool.t]\ncommand = [\"a\"]\n"
                              "workspace = \"@D/plain\"\n",
                         WS_PREFIX "@D/plain is not a directory");
    expect_paths_refused(
        fx, HEAD "[agent]\ncommand = [\"a\"]\nworkspace = \"@D/home\"\n",
        WS_PREFIX "@D/home is the operator's home, which is not a workspace: "
                  "a policy scoped to it would permit writes across every "
                  "harness's stored credentials, and the box would not "
                  "start. Make a directory for the workspace and work there");
    make_link(fx, "home", "homelink");
    expect_paths_refused(
        fx, HEAD "[agent]\ncommand = [\"a\"]\nworkspace = \"@D/homelink/\"\n",
        WS_PREFIX "@D/homelink/ is the operator's home, which is not a "
                  "workspace: a policy scoped to it would permit writes "
                  "across every harness's stored credentials, and the box "
                  "would not start. Make a directory for the workspace and "
                  "work there");
}

static void
test_check_paths_entries(void **state)
{
    fixture *fx = *state;
    make_tree(fx);
#define AG HEAD "[agent]\ncommand = [\"a\"]\n[agent.filesystem]\n"
    expect_paths_refused(
        fx, AG "read = [\"~/missing\"]\n",
        ENTRY("[agent]", "~/missing",
              "@D/home/missing is not there: No such file or directory. A "
              "grant on a path that does not exist grants nothing and says "
              "so nowhere"));
    expect_paths_refused(
        fx,
        HEAD "[tool.git]\ncommand = [\"git\"]\n[tool.git.filesystem]\n"
             "write = [\"@D/missing\"]\n",
        ENTRY("[tool.git]", "@D/missing",
              "@D/missing is not there: No such file or directory. A grant "
              "on a path that does not exist grants nothing and says so "
              "nowhere"));
    expect_paths_refused(
        fx, AG "deny = [\"~/.env\"]\n",
        ENTRY("[agent]", "~/.env",
              "@D/home/.env does not exist yet, and the Linux namespace "
              "backend cannot refuse a path that is not there; create it "
              "first, or deny an existing directory above it"));
    expect_paths_refused(
        fx, AG "read = [\"~/link\"]\n",
        ENTRY("[agent]", "~/link",
              "@D/home/link is a symbolic link. A grant carries the identity "
              "the kernel checks, so a link renders a rule that matches "
              "nothing; name what it points at"));
    expect_paths_refused(
        fx, AG "deny = [\"@D/worklink\"]\n",
        ENTRY("[agent]", "@D/worklink",
              "@D/worklink is a symbolic link. A grant carries the identity "
              "the kernel checks, so a link renders a rule that matches "
              "nothing; name what it points at"));
    expect_paths_refused(
        fx, AG "read = [\"@D/work/\"]\n",
        ENTRY("[agent]", "@D/work/",
              "@D/work/ is not the path the kernel checks, which is @D/work. "
              "A grant carries the identity it acts on, so name that path "
              "instead"));
    expect_paths_refused(
        fx, AG "read = [\"@D/worklink/\"]\n",
        ENTRY("[agent]", "@D/worklink/",
              "@D/worklink/ is not the path the kernel checks, which is "
              "@D/work. A grant carries the identity it acts on, so name "
              "that path instead"));
    expect_paths_refused(
        fx, AG "read_file = [\"~/dir\"]\n",
        ENTRY("[agent]", "~/dir",
              "@D/home/dir is a directory; `read_file` names one file, and a "
              "tree belongs in `read`"));
    expect_paths_refused(
        fx, AG "write_file = [\"@D/work\"]\n",
        ENTRY("[agent]", "@D/work",
              "@D/work is a directory; `write_file` names one file, and a "
              "tree belongs in `write`"));
    expect_paths_refused(fx, AG "list = [\"~/file\"]\n",
                         ENTRY("[agent]", "~/file",
                               "@D/home/file is a file, and `list` enumerates "
                               "a directory tree"));
    expect_paths_refused(
        fx, AG "metadata = [\"@D/plain\"]\n",
        ENTRY("[agent]", "@D/plain",
              "@D/plain is a file, and a file's metadata comes with the "
              "`read_file` or `exec` grant that names it"));
    expect_paths_refused(fx, AG "exec = [\"@D/plain\"]\n",
                         ENTRY("[agent]", "@D/plain",
                               "@D/plain is not an executable regular file"));
    // A tool's exec list is judged as the agent's.
    expect_paths_refused(fx,
                         HEAD
                         "[tool.t]\ncommand = [\"t\"]\n[tool.t.filesystem]\n"
                         "exec = [\"@D/tool.sh\", \"@D/plain\"]\n",
                         ENTRY("[tool.t]", "@D/plain",
                               "@D/plain is not an executable regular file"));
    expect_paths_refused(
        fx,
        HEAD "[tool.t]\ncommand = [\"t\"]\n[tool.t.filesystem]\n"
             "exec = [\"@D/worklink\"]\n",
        ENTRY("[tool.t]", "@D/worklink",
              "@D/worklink is a symbolic link. A grant carries the identity "
              "the kernel checks, so a link renders a rule that matches "
              "nothing; name what it points at"));
    // Lists in contract order; the first bad entry wins.
    expect_paths_refused(
        fx, AG "deny = [\"~/nothing\"]\nread = [\"~/gone\"]\n",
        ENTRY("[agent]", "~/gone",
              "@D/home/gone is not there: No such file or directory. A grant "
              "on a path that does not exist grants nothing and says so "
              "nowhere"));
    // The agent before the tools, and workspaces before entries.
    expect_paths_refused(fx,
                         AG "read = [\"~/gone\"]\n[tool.t]\ncommand = [\"t\"]\n"
                            "workspace = \"@D/plain\"\n",
                         WS_PREFIX "@D/plain is not a directory");
#undef AG
}

/* ---- grants that reach the authority files or the box dir ---- */

/* Every case's tree lives under @D/reach (R below):
 *   ws/box.toml, ws/policy.dw, ws/sub/, ws/tool.sh  box.toml in the workspace
 *   ws2/cfg/box.toml, ws2/src/                      box.toml in <ws>/cfg
 *   cfg3/box.toml; p/pol/policy.dw                  the policy elsewhere
 *   cfg4/box.toml, cfg4/pol/policy.dw               `policy = "pol/..."`
 *   plink -> p/pol, hard (a hard link of the policy)
 *   boxes/b1/run/ (a box dir), boxlink -> boxes */
#define R "@D/reach"

static void
make_reach_tree(const fixture *fx)
{
    static const char *const dirs[] = {
        "reach",          "reach/ws",           "reach/ws/sub",   "reach/ws2",
        "reach/ws2/cfg",  "reach/ws2/src",      "reach/cfg3",     "reach/p",
        "reach/p/pol",    "reach/cfg4",         "reach/cfg4/pol", "reach/boxes",
        "reach/boxes/b1", "reach/boxes/b1/run", "reach/mnt",
    };
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
        make_dir(fx, dirs[i]);
    make_dir(fx, "home");
    write_file(fx, "reach/ws/policy.dw", "");
    write_file_len(fx, "reach/ws/tool.sh", "#!/bin/sh\n", 10, 0755);
    write_file(fx, "reach/p/pol/policy.dw", "");
    write_file(fx, "reach/cfg4/pol/policy.dw", "");
    make_link(fx, "p/pol", "reach/plink");
    make_link(fx, "boxes", "reach/boxlink");
    char *policy = expand(fx, R "/p/pol/policy.dw");
    char *hard = expand(fx, R "/hard");
    unlink(hard);
    assert_int_equal(link(policy, hard), 0);
    box_free(policy);
    box_free(hard);
}

/* box.toml heads: where the box lives and which policy it loads. */
#define HEAD_AT(box, policy)                                                   \
    "name = \"a\"\nbox_dir = \"" box "\"\npolicy = \"" policy "\"\n"
#define HEAD_R HEAD_AT(R "/boxes/new", "policy.dw")
#define AGENT_FS "[agent]\ncommand = [\"a\"]\n[agent.filesystem]\n"
#define TOOL_FS "[tool.git]\ncommand = [\"git\"]\n[tool.git.filesystem]\n"

#define WHY_AUTH "no grant may reach the files that decide what the box allows"
#define WHY_AUTH_ABOVE                                                         \
    "a write grant there could replace that file and so change what the box "  \
    "allows"
#define WHY_BOX "no grant may reach the box's own trusted state"
#define WHY_BOX_ABOVE                                                          \
    "a write grant there could replace the box's own trusted state"

/* Issue 17 item 3 (a): box.toml inside the workspace, and a grant of the
 * workspace, from the agent or a tool, of any kind. */
static void
test_reach_config_in_workspace(void **state)
{
    fixture *fx = *state;
    make_reach_tree(fx);
    static const char conf[] = "reach/ws/box.toml";
    expect_paths_refused_at(
        fx, conf, HEAD_R AGENT_FS "write = [\"" R "/ws\"]\n",
        ENTRY("[agent]", R "/ws",
              R "/ws is the directory of the configuration file " R
                "/ws/box.toml; " WHY_AUTH));
    expect_paths_refused_at(
        fx, conf, HEAD_R TOOL_FS "write = [\"" R "/ws\"]\n",
        ENTRY("[tool.git]", R "/ws",
              R "/ws is the directory of the configuration file " R
                "/ws/box.toml; " WHY_AUTH));
    // Any grant, not only a write one.
    expect_paths_refused_at(
        fx, conf, HEAD_R AGENT_FS "read = [\"" R "/ws\"]\n",
        ENTRY("[agent]", R "/ws",
              R "/ws is the directory of the configuration file " R
                "/ws/box.toml; " WHY_AUTH));
    expect_paths_refused_at(
        fx, conf, HEAD_R AGENT_FS "list = [\"" R "/ws/sub\"]\n",
        ENTRY("[agent]", R "/ws/sub",
              R "/ws/sub lies inside the directory of the configuration "
                "file " R "/ws/box.toml; " WHY_AUTH));
    expect_paths_refused_at(
        fx, conf, HEAD_R TOOL_FS "exec = [\"" R "/ws/tool.sh\"]\n",
        ENTRY("[tool.git]", R "/ws/tool.sh",
              R "/ws/tool.sh lies inside the directory of the configuration "
                "file " R "/ws/box.toml; " WHY_AUTH));
    expect_paths_refused_at(
        fx, conf, HEAD_R AGENT_FS "read_file = [\"" R "/ws/box.toml\"]\n",
        ENTRY("[agent]", R "/ws/box.toml",
              R "/ws/box.toml is the configuration file " R
                "/ws/box.toml; " WHY_AUTH));
    // The first entry that reaches, in contract order; the agent first.
    expect_paths_refused_at(
        fx, conf,
        HEAD_R AGENT_FS "read = [\"" R "/p\", \"" R "/ws/sub\"]\n"
                        "write = [\"" R "/ws\"]\n" TOOL_FS "write = [\"" R
                        "/ws\"]\n",
        ENTRY("[agent]", R "/ws/sub",
              R "/ws/sub lies inside the directory of the configuration "
                "file " R "/ws/box.toml; " WHY_AUTH));
    // A deny takes reach away, so it may sit anywhere.
    expect_paths_ok_at(fx, conf,
                       HEAD_R AGENT_FS "deny = [\"" R "/ws/box.toml\", \"" R
                                       "/ws\"]\n");
}

/* (b): box.toml in <ws>/cfg; a write grant of the workspace holds it, a
 * read grant of it does not change it. */
static void
test_reach_config_below_workspace(void **state)
{
    fixture *fx = *state;
    make_reach_tree(fx);
    static const char conf[] = "reach/ws2/cfg/box.toml";
    expect_paths_refused_at(
        fx, conf, HEAD_R AGENT_FS "write = [\"" R "/ws2\"]\n",
        ENTRY("[agent]", R "/ws2",
              R "/ws2 contains the directory of the configuration file " R
                "/ws2/cfg/box.toml; " WHY_AUTH_ABOVE));
    expect_paths_refused_at(
        fx, conf, HEAD_R TOOL_FS "write = [\"" R "/ws2\"]\n",
        ENTRY("[tool.git]", R "/ws2",
              R "/ws2 contains the directory of the configuration file " R
                "/ws2/cfg/box.toml; " WHY_AUTH_ABOVE));
    // Reading the parent of box.toml's directory stays allowed, as does
    // writing beside that directory.
    expect_paths_ok_at(fx, conf,
                       HEAD_R AGENT_FS "read = [\"" R "/ws2\"]\n"
                                       "list = [\"" R "/ws2\"]\n"
                                       "write = [\"" R "/ws2/src\"]\n" TOOL_FS
                                       "read = [\"" R "/ws2\"]\n");
}

/* (c): a write grant of the policy's own directory, wherever it is, and
 * whatever spelling the configuration gives the policy. */
static void
test_reach_policy_dir(void **state)
{
    fixture *fx = *state;
    make_reach_tree(fx);
    static const char conf3[] = "reach/cfg3/box.toml";
    expect_paths_refused_at(
        fx, conf3,
        HEAD_AT(R "/boxes/new", R "/p/pol/policy.dw") AGENT_FS "write = [\"" R
                                                               "/p/pol\"]\n",
        ENTRY("[agent]", R "/p/pol",
              R "/p/pol is the directory of the policy file " R
                "/p/pol/policy.dw; " WHY_AUTH));
    expect_paths_refused_at(
        fx, conf3,
        HEAD_AT(R "/boxes/new", R "/p/pol/policy.dw") TOOL_FS "write = [\"" R
                                                              "/p\"]\n",
        ENTRY("[tool.git]", R "/p",
              R "/p contains the directory of the policy file " R
                "/p/pol/policy.dw; " WHY_AUTH_ABOVE));
    // The issue's spelling: `policy = "pol/policy.dw"` beside box.toml;
    // the nearest authority names the refusal.
    expect_paths_refused_at(
        fx, "reach/cfg4/box.toml",
        HEAD_AT(R "/boxes/new", "pol/policy.dw") AGENT_FS "write = [\"" R
                                                          "/cfg4/pol\"]\n",
        ENTRY("[agent]", R "/cfg4/pol",
              R "/cfg4/pol is the directory of the policy file " R
                "/cfg4/pol/policy.dw; " WHY_AUTH));
    // The policy named through a symlinked directory: the same directory.
    expect_paths_refused_at(
        fx, conf3,
        HEAD_AT(R "/boxes/new", R "/plink/policy.dw") AGENT_FS "write = [\"" R
                                                               "/p/pol\"]\n",
        ENTRY("[agent]", R "/p/pol",
              R "/p/pol is the directory of the policy file " R
                "/plink/policy.dw; " WHY_AUTH));
    // Another name of the policy file itself.
    expect_paths_refused_at(fx, conf3,
                            HEAD_AT(R "/boxes/new", R "/p/pol/policy.dw")
                                AGENT_FS "write_file = [\"" R "/hard\"]\n",
                            ENTRY("[agent]", R "/hard",
                                  R "/hard is the policy file " R
                                    "/p/pol/policy.dw; " WHY_AUTH));
    // A policy not written yet still has its directory guarded.
    expect_paths_refused_at(
        fx, conf3,
        HEAD_AT(R "/boxes/new", R "/p/pol/later.dw") AGENT_FS "write = [\"" R
                                                              "/p/pol\"]\n",
        ENTRY("[agent]", R "/p/pol",
              R "/p/pol is the directory of the policy file " R
                "/p/pol/later.dw; " WHY_AUTH));
    // Reading above the policy's directory stays allowed.
    expect_paths_ok_at(fx, conf3,
                       HEAD_AT(R "/boxes/new", R "/p/pol/policy.dw") AGENT_FS
                       "read = [\"" R "/p\"]\n");
}

/* The box directory: nothing inside it, no write grant above it, made or
 * not, however its path is spelled. */
static void
test_reach_box_dir(void **state)
{
    fixture *fx = *state;
    make_reach_tree(fx);
    static const char conf[] = "reach/cfg3/box.toml";
#define HEAD_B1 HEAD_AT(R "/boxes/b1", R "/p/pol/policy.dw")
#define HEAD_NEW HEAD_AT(R "/boxes/new", R "/p/pol/policy.dw")
    expect_paths_refused_at(
        fx, conf, HEAD_B1 AGENT_FS "read = [\"" R "/boxes/b1/run\"]\n",
        ENTRY("[agent]", R "/boxes/b1/run",
              R "/boxes/b1/run lies inside the box directory " R
                "/boxes/b1; " WHY_BOX));
    expect_paths_refused_at(
        fx, conf, HEAD_B1 TOOL_FS "list = [\"" R "/boxes/b1\"]\n",
        ENTRY("[tool.git]", R "/boxes/b1",
              R "/boxes/b1 is the box directory " R "/boxes/b1; " WHY_BOX));
    expect_paths_refused_at(fx, conf,
                            HEAD_B1 AGENT_FS "write = [\"" R "/boxes\"]\n",
                            ENTRY("[agent]", R "/boxes",
                                  R "/boxes contains the box directory " R
                                    "/boxes/b1; " WHY_BOX_ABOVE));
    // Not made yet: its parent is where it will be.
    expect_paths_refused_at(fx, conf,
                            HEAD_NEW AGENT_FS "write = [\"" R "/boxes\"]\n",
                            ENTRY("[agent]", R "/boxes",
                                  R "/boxes contains the box directory " R
                                    "/boxes/new; " WHY_BOX_ABOVE));
    // Spelled through a symlinked parent, made or not.
    expect_paths_refused_at(fx, conf,
                            HEAD_AT(R "/boxlink/new", R "/p/pol/policy.dw")
                                AGENT_FS "write = [\"" R "/boxes\"]\n",
                            ENTRY("[agent]", R "/boxes",
                                  R "/boxes contains the box directory " R
                                    "/boxlink/new; " WHY_BOX_ABOVE));
    expect_paths_refused_at(
        fx, conf,
        HEAD_AT(R "/boxlink/b1", R "/p/pol/policy.dw") AGENT_FS
        "read = [\"" R "/boxes/b1/run\"]\n",
        ENTRY("[agent]", R "/boxes/b1/run",
              R "/boxes/b1/run lies inside the box directory " R
                "/boxlink/b1; " WHY_BOX));
    // Reading above it stays allowed (the sandbox hides the box dir).
    expect_paths_ok_at(fx, conf,
                       HEAD_NEW AGENT_FS "read = [\"" R "/boxes\"]\n");
    expect_paths_ok_at(fx, conf, HEAD_B1 AGENT_FS "read = [\"" R "/boxes\"]\n");
#undef HEAD_B1
#undef HEAD_NEW
}

/* A bind mount of box.toml's directory is that directory: run in a mount
 * namespace of a child (a user namespace lets it mount without root). */
static void
test_reach_bind_mount(void **state)
{
    fixture *fx = *state;
    make_reach_tree(fx);
    box_config *c = load_ok_at(fx, "reach/ws/box.toml",
                               HEAD_R AGENT_FS "write = [\"" R "/mnt\"]\n");
    char *src = expand(fx, R "/ws");
    char *dst = expand(fx, R "/mnt");
    char *home = expand(fx, "@D/home");
    char *want =
        expand(fx, ENTRY("[agent]", R "/mnt",
                         R "/mnt is the directory of the configuration file " R
                           "/ws/box.toml; " WHY_AUTH));
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    uid_t uid = getuid();
    gid_t gid = getgid();
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char map[64];
        char *err = NULL;
        close(fds[0]);
        // Root needs no user namespace for a mount namespace (and may not
        // make one inside a chroot, as on a bare build root); anyone else
        // maps itself to root in a new one first, as box-contain does.
        if (uid == 0) {
            if (unshare(CLONE_NEWNS) != 0)
                _exit(10);
        } else {
            if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
                _exit(10);
            int n = snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)uid);
            int fd = open("/proc/self/uid_map", O_WRONLY);
            if (fd < 0 || write(fd, map, (size_t)n) != n || close(fd) != 0)
                _exit(11);
            fd = open("/proc/self/setgroups", O_WRONLY);
            if (fd < 0 || write(fd, "deny", 4) != 4 || close(fd) != 0)
                _exit(12);
            n = snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)gid);
            fd = open("/proc/self/gid_map", O_WRONLY);
            if (fd < 0 || write(fd, map, (size_t)n) != n || close(fd) != 0)
                _exit(13);
        }
        if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
            mount(src, dst, NULL, MS_BIND, NULL) != 0)
            _exit(14);
        box_err rv = box_config_check_paths(c, home, NULL, &err);
        size_t len = err != NULL ? strlen(err) : 0;
        if (len > 0 && write(fds[1], err, len) != (ssize_t)len)
            _exit(15);
        _exit(rv == BOX_ECONFIG ? 0 : 16);
    }
    close(fds[1]);
    char got[4096];
    size_t have = 0;
    for (ssize_t n; (n = read(fds[0], got + have, sizeof(got) - 1 - have)) > 0;)
        have += (size_t)n;
    got[have] = '\0';
    close(fds[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) != 0)
        fail_msg("child status %d (10+: namespace set-up step; 16: not "
                 "refused): %s",
                 WEXITSTATUS(status), got);
    assert_string_equal(got, want);
    // Outside the namespace the mount point is an empty directory.
    char *err = NULL;
    assert_int_equal(box_config_check_paths(c, home, NULL, &err), BOX_OK);
    box_free(src);
    box_free(dst);
    box_free(home);
    box_free(want);
    box_config_free(c);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_full_example),
        cmocka_unit_test(test_load_minimal),
        cmocka_unit_test(test_policy_resolution),
        cmocka_unit_test(test_config_path_is_absolute),
        cmocka_unit_test(test_inline_and_dotted_forms),
        cmocka_unit_test(test_network_table_on_tools),
        cmocka_unit_test(test_names_and_labels_accepted),
        cmocka_unit_test(test_env_accepted),
        cmocka_unit_test(test_entries_and_commands_accepted),
        cmocka_unit_test(test_grant_keys),
        cmocka_unit_test(test_parse_api),
        cmocka_unit_test(test_read_errors),
        cmocka_unit_test(test_toml_errors_are_wrapped),
        cmocka_unit_test(test_unknown_fields),
        cmocka_unit_test(test_missing_fields),
        cmocka_unit_test(test_invalid_types),
        cmocka_unit_test(test_nul_refused),
        cmocka_unit_test(test_name_refusals),
        cmocka_unit_test(test_box_dir_and_policy_refusals),
        cmocka_unit_test(test_process_refusals),
        cmocka_unit_test(test_env_refusals),
        cmocka_unit_test(test_entry_refusals),
        cmocka_unit_test(test_tool_label_refusals),
        cmocka_unit_test(test_tool_metadata_refused),
        cmocka_unit_test(test_tool_exec_accepted),
        cmocka_unit_test(test_shells_accepted),
        cmocka_unit_test(test_shells_refusals),
        cmocka_unit_test(test_unsupported_sections),
        cmocka_unit_test(test_egress_accepted),
        cmocka_unit_test(test_egress_decode_errors),
        cmocka_unit_test(test_egress_refusals),
        cmocka_unit_test(test_egress_validation_order),
        cmocka_unit_test(test_egress_destination_cap),
        cmocka_unit_test(test_egress_nomem),
        cmocka_unit_test(test_validation_order),
        cmocka_unit_test(test_check_paths_ok),
        cmocka_unit_test(test_check_paths_home),
        cmocka_unit_test(test_check_paths_box_dir),
        cmocka_unit_test(test_check_paths_workspace),
        cmocka_unit_test(test_check_paths_entries),
        cmocka_unit_test(test_reach_config_in_workspace),
        cmocka_unit_test(test_reach_config_below_workspace),
        cmocka_unit_test(test_reach_policy_dir),
        cmocka_unit_test(test_reach_box_dir),
        cmocka_unit_test(test_reach_bind_mount),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
