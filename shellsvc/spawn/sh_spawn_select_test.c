/* SPDX-License-Identifier: Apache-2.0 */
/* sh_spawn_select (box-spec §3.9 select_tool) on real files and configs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_spawn.h"

/*
 * The operator home H (a scratch dir, canonical) holds the programs:
 *   bin/prog bin/git  tools/baretool  op/opbin  other/x
 *   agent/one  agent/dir/y  agent/dir/bad  agent/dir/sub/z
 */
typedef struct fx {
    char fx_home[PATH_MAX];
    char fx_opath[PATH_MAX + 8]; // the operator's PATH: H/op
    box_config *fx_cfg;
} fx;

static const char *const fx_files[] = {
    "bin/prog",  "bin/git",     "tools/baretool", "op/opbin",        "other/x",
    "agent/one", "agent/dir/y", "agent/dir/bad",  "agent/dir/sub/z",
};

static const char *const fx_dirs[] = {
    "bin", "tools", "op", "other", "agent", "agent/dir", "agent/dir/sub",
};

/* The main config; @ is replaced by the home. */
static const char fx_toml[] =
    "name = \"t\"\n"
    "box_dir = \"/tmp/sh-spawn-select-none\"\n"
    "[tool.prog]\n"
    "command = [\"@/bin/prog\"]\n"
    "[tool.gitpush]\n"
    "command = [\"@/bin/git\", \"push\"]\n"
    "[tool.gitpushorigin]\n"
    "command = [\"@/bin/git\", \"push\", \"origin\"]\n"
    "[tool.gitpush2]\n"
    "command = [\"@/bin/git\", \"push\"]\n"
    "[tool.bare]\n"
    "command = [\"baretool\"]\n"
    "env = { PATH = \"/nonexistent:@/tools\" }\n"
    "[tool.opbare]\n"
    "command = [\"opbin\"]\n"
    "[tool.onex]\n"
    "command = [\"@/agent/one\", \"--x\"]\n"
    "[tool.missing]\n"
    "command = [\"@/bin/nothing-here\"]\n"
    "[agent]\n"
    "command = [\"/bin/true\"]\n"
    "[agent.filesystem]\n"
    "exec = [\"~/agent/one\", \"~/agent/dir\"]\n"
    "deny = [\"~/agent/dir/bad\"]\n";

static char *
subst(const char *tmpl, const char *home)
{
    box_buf b;
    box_buf_init(&b, 1u << 20);
    for (const char *c = tmpl; *c != '\0'; c++) {
        box_err rv = *c == '@' ? box_buf_puts(&b, home) : box_buf_putc(&b, *c);
        assert_int_equal(rv, BOX_OK);
    }
    return box_buf_take(&b);
}

static box_config *
load(fx *f, const char *tmpl)
{
    char *text = subst(tmpl, f->fx_home), *err = NULL;
    char path[PATH_MAX + 16];
    box_config *cfg = NULL;

    snprintf(path, sizeof path, "%s/box.toml", f->fx_home);
    box_err rv = box_config_parse(text, strlen(text), path, &cfg, &err);
    if (rv != BOX_OK)
        print_message("config: %s\n", err != NULL ? err : "?");
    assert_int_equal(rv, BOX_OK);
    box_free(text);
    return cfg;
}

static int
setup(void **state)
{
    fx *f = box_calloc(1, sizeof *f);
    char tmpl[] = "/tmp/sh_spawn_select.XXXXXX", p[PATH_MAX * 2];

    if (f == NULL || mkdtemp(tmpl) == NULL ||
        realpath(tmpl, f->fx_home) == NULL)
        return -1;
    for (size_t i = 0; i < sizeof fx_dirs / sizeof *fx_dirs; i++) {
        snprintf(p, sizeof p, "%s/%s", f->fx_home, fx_dirs[i]);
        if (mkdir(p, 0755) != 0)
            return -1;
    }
    for (size_t i = 0; i < sizeof fx_files / sizeof *fx_files; i++) {
        snprintf(p, sizeof p, "%s/%s", f->fx_home, fx_files[i]);
        int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0755);
        if (fd < 0)
            return -1;
        close(fd);
    }
    snprintf(f->fx_opath, sizeof f->fx_opath, "%s/op", f->fx_home);
    *state = f;
    return 0;
}

static int
rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    return remove(path);
}

static int
teardown(void **state)
{
    fx *f = *state;
    int rv = nftw(f->fx_home, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    box_free(f);
    return rv;
}

static int
per_test(void **state)
{
    fx *f = *state;
    f->fx_cfg = load(f, fx_toml);
    return 0;
}

static int
per_test_end(void **state)
{
    fx *f = *state;
    box_config_free(f->fx_cfg);
    f->fx_cfg = NULL;
    return 0;
}

/*
 * Locates word (relative to the home, or bare on the home's tools/ and op/
 * dirs) and selects with argv; returns the chosen label ("" for the agent)
 * or NULL with *msg set (the caller frees it).
 */
static char *
pick(fx *f, const char *word, char *const *argv, char **msg)
{
    sh_spawn_found prog;
    sh_spawn_plan *plan = NULL;
    char search[PATH_MAX * 3];
    int argc = 0;
    char *label = NULL;

    snprintf(search, sizeof search, "%s/tools:%s", f->fx_home, f->fx_opath);
    assert_int_equal(sh_spawn_locate(search, f->fx_home, word, &prog), 0);
    while (argv[argc] != NULL)
        argc++;
    *msg = NULL;
    box_err rv = sh_spawn_select(f->fx_cfg, f->fx_opath, f->fx_home, &prog,
                                 argc, argv, &plan, msg);
    if (rv == BOX_OK) {
        const box_config_process *spec = sh_spawn_plan_spec(plan);
        assert_null(*msg);
        label = box_strdup(spec->pr_label != NULL ? spec->pr_label : "");
    } else {
        assert_int_equal(rv, BOX_EDENIED);
        assert_non_null(*msg);
        assert_null(plan);
    }
    sh_spawn_plan_free(plan);
    sh_spawn_found_free(&prog);
    return label;
}

static void
want_label(fx *f, const char *word, char *const *argv, const char *label)
{
    char *msg, *got = pick(f, word, argv, &msg);
    if (got == NULL)
        print_message("refused: %s\n", msg);
    assert_non_null(got);
    assert_string_equal(got, label);
    box_free(got);
}

static void
want_refused(fx *f, const char *word, char *const *argv, const char *shown)
{
    char *msg, want[PATH_MAX * 2];
    char *got = pick(f, word, argv, &msg);

    assert_null(got);
    snprintf(want, sizeof want,
             "no tool runs %s: no `[tool.<name>] command` matches this "
             "program and its leading arguments",
             shown);
    assert_string_equal(msg, want);
    box_free(msg);
}

#define ARGV(...) ((char *const[]){__VA_ARGS__, NULL})

static void
test_tool_exact_path(void **state)
{
    fx *f = *state;
    want_label(f, "bin/prog", ARGV("prog"), "prog");
    want_label(f, "bin/prog", ARGV("prog", "any", "args"), "prog");
    // Through a symlinked spelling: the canonical identity decides.
    char link[PATH_MAX * 2], target[PATH_MAX * 2];
    snprintf(link, sizeof link, "%s/other/prog-link", f->fx_home);
    snprintf(target, sizeof target, "%s/bin/prog", f->fx_home);
    assert_int_equal(symlink(target, link), 0);
    want_label(f, "other/prog-link", ARGV("prog-link"), "prog");
    assert_int_equal(unlink(link), 0);
}

static void
test_tool_bare_name(void **state)
{
    fx *f = *state;
    // On the table's env PATH (its missing entry skipped).
    want_label(f, "baretool", ARGV("baretool"), "bare");
    // No env PATH: the operator's.
    want_label(f, "opbin", ARGV("opbin", "x"), "opbare");
}

static void
test_tool_fixed_args(void **state)
{
    fx *f = *state;
    // The longest matching command wins; a tie goes to the first.
    want_label(f, "bin/git", ARGV("git", "push", "origin", "main"),
               "gitpushorigin");
    want_label(f, "bin/git", ARGV("git", "push", "upstream"), "gitpush");
    want_label(f, "bin/git", ARGV("git", "push"), "gitpush");
    // Named, but no arguments match: refused.
    want_refused(f, "bin/git", ARGV("git", "status"), "~/bin/git");
    want_refused(f, "bin/git", ARGV("git"), "~/bin/git");
    want_refused(f, "bin/git", ARGV("git", "pushx"), "~/bin/git");
}

static void
test_named_never_falls_through(void **state)
{
    fx *f = *state;
    // agent/one is on the agent's exec list, but [tool.onex] names it.
    want_label(f, "agent/one", ARGV("one", "--x", "y"), "onex");
    want_refused(f, "agent/one", ARGV("one"), "~/agent/one");
}

static void
test_agent_exec(void **state)
{
    fx *f = *state;
    want_label(f, "agent/dir/y", ARGV("y"), "");
    want_label(f, "agent/dir/sub/z", ARGV("z", "1"), "");
    // The deny entry covers it.
    want_refused(f, "agent/dir/bad", ARGV("bad"), "~/agent/dir/bad");
}

static void
test_no_match(void **state)
{
    fx *f = *state;
    char real[PATH_MAX];

    want_refused(f, "other/x", ARGV("x"), "~/other/x");
    // Outside the home: the canonical path as is.
    assert_non_null(realpath("/bin/true", real));
    want_refused(f, "/bin/true", ARGV("true"), real);
}

static void
test_deny_unresolvable(void **state)
{
    fx *f = *state;
    box_config_free(f->fx_cfg);
    f->fx_cfg = load(f, "name = \"t\"\n"
                        "box_dir = \"/tmp/sh-spawn-select-none\"\n"
                        "[agent]\n"
                        "command = [\"/bin/true\"]\n"
                        "[agent.filesystem]\n"
                        "exec = [\"~/agent/dir\"]\n"
                        "deny = [\"~/agent/gone\"]\n");
    want_refused(f, "agent/dir/y", ARGV("y"), "~/agent/dir/y");
}

static void
test_no_agent(void **state)
{
    fx *f = *state;
    box_config_free(f->fx_cfg);
    f->fx_cfg = load(f, "name = \"t\"\n"
                        "box_dir = \"/tmp/sh-spawn-select-none\"\n");
    want_refused(f, "agent/dir/y", ARGV("y"), "~/agent/dir/y");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_tool_exact_path, per_test,
                                        per_test_end),
        cmocka_unit_test_setup_teardown(test_tool_bare_name, per_test,
                                        per_test_end),
        cmocka_unit_test_setup_teardown(test_tool_fixed_args, per_test,
                                        per_test_end),
        cmocka_unit_test_setup_teardown(test_named_never_falls_through,
                                        per_test, per_test_end),
        cmocka_unit_test_setup_teardown(test_agent_exec, per_test,
                                        per_test_end),
        cmocka_unit_test_setup_teardown(test_no_match, per_test, per_test_end),
        cmocka_unit_test_setup_teardown(test_deny_unresolvable, per_test,
                                        per_test_end),
        cmocka_unit_test_setup_teardown(test_no_agent, per_test, per_test_end),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
