/* SPDX-License-Identifier: Apache-2.0 */
/* Grants that reach box.toml or the policy, through the real `box run`. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
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

/*
 * Issue 17 item 3: `box run` accepted a write grant that covers the
 * directory of box.toml or of the policy, and the agent then appended to
 * policy.dw from inside its own sandbox. Each case lays the variant out in
 * a fresh world, gives the agent that very attack as its script, and
 * expects the run refused before anything starts: exit 1, the §5 message
 * on stderr, no socket in the box directory, the policy byte for byte as
 * written.
 */

static const char permit_all[] = "permit (principal, action, resource);\n";

/* The attack: append a rule to the policy from the agent's own shell (the
 * real /bin/sh running agent.sh, not the box's shell). */
static const char attack_fmt[] =
    "if echo 'forbid (principal, action, resource);' >> '%s' 2>/dev/null\n"
    "then echo appended; else echo refused; fi\n";

#define WHY_AUTH "no grant may reach the files that decide what the box allows"
#define WHY_AUTH_ABOVE                                                         \
    "a write grant there could replace that file and so change what the box "  \
    "allows"

/* Makes every missing parent directory of path. */
static void
make_parents(const char *path)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = strchr(p + 1, '/'); s != NULL; s = strchr(s + 1, '/')) {
        *s = '\0';
        if (mkdir(p, 0755) != 0)
            assert_int_equal(errno, EEXIST);
        *s = '/';
    }
}

/* Places box.toml and the policy at these paths under the world's root
 * (parents made), and writes the policy: every request permitted. */
static void
place(box_world *w, const char *config, const char *policy)
{
    snprintf(w->bw_config, sizeof w->bw_config, "%s/%s", w->bw_root, config);
    snprintf(w->bw_policy, sizeof w->bw_policy, "%s/%s", w->bw_root, policy);
    make_parents(w->bw_config);
    make_parents(w->bw_policy);
    box_world_policy(w, permit_all);
}

/* No socket anywhere in <box_dir>/run (nor the directory at all). */
static void
assert_no_socket(const box_world *w)
{
    char run[PATH_MAX + 8];
    snprintf(run, sizeof run, "%s/run", w->bw_state);
    DIR *d = opendir(run);
    if (d == NULL) {
        assert_int_equal(errno, ENOENT);
        return;
    }
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        char p[PATH_MAX * 2];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", run, e->d_name);
        assert_int_equal(lstat(p, &st), 0);
        if (S_ISSOCK(st.st_mode))
            fprintf(stderr, "a socket was made: %s\n", p);
        assert_false(S_ISSOCK(st.st_mode));
    }
    closedir(d);
}

/* Runs the attack against the world as configured; expects the refusal
 * message (the text after `strands-box: error: `) and nothing started. */
static void
expect_refused(box_world *w, const char *message)
{
    char script[PATH_MAX + 256];
    snprintf(script, sizeof script, attack_fmt, w->bw_policy);
    char *before = box_test_slurp(w->bw_policy);
    assert_non_null(before);
    box_proc_result r;
    box_world_run(w, script, &r);
    char line[8192];
    snprintf(line, sizeof line, "strands-box: error: %s", message);
    if (r.pr_status != 1 || !box_test_has_line(r.pr_err, line)) {
        fprintf(stderr, "want the stderr line:\n%s\n", line);
        box_test_show_result("run", &r);
    }
    assert_int_equal(r.pr_status, 1);
    assert_true(box_test_has_line(r.pr_err, line));
    assert_null(strstr(r.pr_out, "appended"));
    assert_no_socket(w);
    char *after = box_test_slurp(w->bw_policy);
    assert_non_null(after);
    assert_string_equal(after, before);
    box_free(before);
    box_free(after);
    box_proc_result_free(&r);
}

/* (a) box.toml and the policy inside the workspace, and the agent granted
 * to write the workspace. */
static void
test_config_in_workspace_agent(void **state)
{
    box_world *w = *state;
    char fs[PATH_MAX + 32], want[4 * PATH_MAX];
    place(w, "home/src/project/box.toml", "home/src/project/policy.dw");
    snprintf(fs, sizeof fs, "write = [\"%s\"]\n", w->bw_project);
    box_world_config_policy(w, "policy.dw", fs, "");
    snprintf(want, sizeof want,
             "`[agent]` filesystem entry \"%s\" is refused: %s is the "
             "directory of the configuration file %s; " WHY_AUTH,
             w->bw_project, w->bw_project, w->bw_config);
    expect_refused(w, want);
}

/* (a) the same grant on a tool, spelled from the home. */
static void
test_config_in_workspace_tool(void **state)
{
    box_world *w = *state;
    char want[4 * PATH_MAX];
    place(w, "home/src/project/box.toml", "home/src/project/policy.dw");
    box_world_config_policy(w, "policy.dw", "",
                            "[tool.git]\n"
                            "command = [\"git\"]\n"
                            "[tool.git.filesystem]\n"
                            "write = [\"~/src/project\"]\n");
    snprintf(want, sizeof want,
             "`[tool.git]` filesystem entry \"~/src/project\" is refused: %s "
             "is the directory of the configuration file %s; " WHY_AUTH,
             w->bw_project, w->bw_config);
    expect_refused(w, want);
}

/* (b) box.toml in <ws>/cfg, the workspace granted for writing. */
static void
test_config_below_workspace(void **state)
{
    box_world *w = *state;
    char fs[PATH_MAX + 32], want[4 * PATH_MAX];
    place(w, "home/src/project/cfg/box.toml", "home/src/project/cfg/policy.dw");
    snprintf(fs, sizeof fs, "write = [\"%s\"]\n", w->bw_project);
    box_world_config_policy(w, "policy.dw", fs, "");
    snprintf(want, sizeof want,
             "`[agent]` filesystem entry \"%s\" is refused: %s contains the "
             "directory of the configuration file %s; " WHY_AUTH_ABOVE,
             w->bw_project, w->bw_project, w->bw_config);
    expect_refused(w, want);
}

/* (c) `policy = "pol/policy.dw"`, and `write = ["<dir>/pol"]`. */
static void
test_policy_dir_granted(void **state)
{
    box_world *w = *state;
    char fs[PATH_MAX + 32], want[4 * PATH_MAX], pol[PATH_MAX + 8];
    place(w, "home/cfg/box.toml", "home/cfg/pol/policy.dw");
    snprintf(pol, sizeof pol, "%s/cfg/pol", w->bw_home);
    snprintf(fs, sizeof fs, "write = [\"%s\"]\n", pol);
    box_world_config_policy(w, "pol/policy.dw", fs, "");
    snprintf(want, sizeof want,
             "`[agent]` filesystem entry \"%s\" is refused: %s is the "
             "directory of the policy file %s; " WHY_AUTH,
             pol, pol, w->bw_policy);
    expect_refused(w, want);
}

/* (c) the policy outside box.toml's directory, named through a symbolic
 * link, and its real directory granted: the same directory. */
static void
test_policy_dir_other_spelling(void **state)
{
    box_world *w = *state;
    char fs[PATH_MAX + 32], want[4 * PATH_MAX], pol[PATH_MAX + 8];
    char link[PATH_MAX + 8], key[PATH_MAX + 32];
    place(w, "home/cfg/box.toml", "pol/policy.dw");
    snprintf(pol, sizeof pol, "%s/pol", w->bw_root);
    snprintf(link, sizeof link, "%s/pol-link", w->bw_root);
    assert_int_equal(symlink("pol", link), 0);
    snprintf(key, sizeof key, "%s/policy.dw", link);
    snprintf(fs, sizeof fs, "write = [\"%s\"]\n", pol);
    box_world_config_policy(w, key, fs, "");
    snprintf(want, sizeof want,
             "`[agent]` filesystem entry \"%s\" is refused: %s is the "
             "directory of the policy file %s; " WHY_AUTH,
             pol, pol, key);
    expect_refused(w, want);
}

/* The control: reading the parent of box.toml's directory stays allowed;
 * the run goes, and the agent's append is refused by its sandbox. */
/* The policy with a second name (a hard link inside a write grant): the
 * grant's check guards the name the config gives, so the run is refused
 * before the other name could change what the box allows. */
static void
test_policy_hard_link_refused(void **state)
{
    box_world *w = *state;
    char fs[PATH_MAX + 32], want[2 * PATH_MAX], second[PATH_MAX + 16];
    place(w, "home/cfg/box.toml", "home/cfg/policy.dw");
    snprintf(second, sizeof second, "%s/policy.dw", w->bw_project);
    assert_int_equal(link(w->bw_policy, second), 0);
    snprintf(fs, sizeof fs, "write = [\"%s\"]\n", w->bw_project);
    box_world_config_policy(w, "policy.dw", fs, "");
    snprintf(want, sizeof want,
             "policy file %s has more than one filesystem name; give it one, "
             "so no other name can change what the box allows",
             w->bw_policy);
    expect_refused(w, want);
    assert_int_equal(unlink(second), 0);
}

/* A write grant over the directory of the box's own programs could replace
 * box-contain or a service, which run outside every sandbox: refused. */
static void
test_programs_dir_write_refused(void **state)
{
    box_world *w = *state;
    char bin[PATH_MAX], dir[PATH_MAX], fs[PATH_MAX + 32], want[4 * PATH_MAX];
    box_proc_bin(bin, sizeof bin, "box");
    assert_non_null(realpath(bin, dir));
    *strrchr(dir, '/') = '\0';
    box_world_policy(w, permit_all);
    snprintf(fs, sizeof fs, "write = [\"%s\"]\n", dir);
    box_world_config_agent(w, fs, "");
    snprintf(want, sizeof want,
             "`[agent]` filesystem entry \"%s\" is refused: %s is the "
             "directory of the box's programs %s; a write grant there could "
             "replace box-contain or a service, which run outside every "
             "sandbox",
             dir, dir, dir);
    expect_refused(w, want);
}

static void
test_read_above_config_runs(void **state)
{
    box_world *w = *state;
    char fs[PATH_MAX + 32], script[PATH_MAX + 256];
    place(w, "home/src/project/cfg/box.toml", "home/src/project/cfg/policy.dw");
    snprintf(fs, sizeof fs, "read = [\"%s\"]\n", w->bw_project);
    box_world_config_policy(w, "policy.dw", fs, "");
    snprintf(script, sizeof script, attack_fmt, w->bw_policy);
    box_proc_result r;
    box_world_run(w, script, &r);
    if (r.pr_status != 0 || !box_test_has_line(r.pr_out, "refused"))
        box_test_show_result("run", &r);
    assert_int_equal(r.pr_status, 0);
    assert_true(box_test_has_line(r.pr_out, "refused"));
    char *after = box_test_slurp(w->bw_policy);
    assert_non_null(after);
    assert_string_equal(after, permit_all);
    box_free(after);
    box_proc_result_free(&r);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
#define T(f)                                                                   \
    cmocka_unit_test_setup_teardown(f, box_world_setup, box_world_teardown)
        T(test_config_in_workspace_agent), T(test_config_in_workspace_tool),
        T(test_config_below_workspace),    T(test_policy_dir_granted),
        T(test_policy_dir_other_spelling), T(test_policy_hard_link_refused),
        T(test_programs_dir_write_refused), T(test_read_above_config_runs),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
