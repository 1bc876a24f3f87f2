/* SPDX-License-Identifier: Apache-2.0 */
/* `box log` end to end: agent-controlled names with terminal escapes,
 * newlines and bidi overrides reach the table escaped, one line per
 * decision, in the plain and the --follow mode. */
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_utf8.h"
#include "box_testutil.h"
#include "box_world.h"

/* Commands, and reads and writes inside the project. */
static const char project_rw[] =
    "@id(\"shell_commands\")\n"
    "permit (principal, action == Box::Action::\"shell:exec\", resource);\n"
    "\n"
    "@id(\"project_rw\")\n"
    "permit (principal, action in [Box::Action::\"fs:read\", "
    "Box::Action::\"fs:write\"], resource)\n"
    "when { context.input.path like \"~/src/project/*\" };\n";

/*
 * The hostile names, each made by the box's own printf:
 *  - a directory whose name erases the line (ESC[2K), returns the
 *    carriage and writes a fake permit, holding secret.txt, so a raw
 *    table line would read `permit  fs:read      ~/secret.txt`;
 *  - a file whose name holds a newline and a fake deny line;
 *  - a file whose name reverses its own extension (U+202E).
 */
static const char hostile_script[] =
    "sh -c 'd=$(printf \"\\033[2K\\rpermit  fs:read      ~\"); "
    "mkdir \"$d\" && echo x > \"$d/secret.txt\" && cat \"$d/secret.txt\"'\n"
    "sh -c 'f=$(printf \"fake\\ndeny    fs:read      .env\"); "
    "echo y > \"$f\" && cat \"$f\"'\n"
    "sh -c 'f=$(printf \"txt.\\342\\200\\256gpj.exe\"); "
    "echo z > \"$f\" && cat \"$f\"'\n";

/* The escaped resources box log must show. */
static const char *const hostile_escaped[] = {
    "~/src/project/\\u{1b}[2K\\rpermit  fs:read      ~/secret.txt",
    "~/src/project/fake\\ndeny    fs:read      .env",
    "~/src/project/txt.\\u{202e}gpj.exe",
};

/* The first byte offset of a control or bidi character (or of a
 * malformed sequence) in s, other than the line ends; -1 when clean. */
static long
control_at(const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        uint32_t c;
        size_t k = box_utf8_decode(s + i, n - i, &c);
        if (k == 0 || (c != '\n' && (c < 0x20 || (c >= 0x7f && c <= 0x9f))) ||
            c == 0x061c || c == 0x200e || c == 0x200f ||
            (c >= 0x2028 && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069))
            return (long)i;
        i += k;
    }
    return -1;
}

static size_t
count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* The decisions in the run's log: one JSON line per decision. */
static size_t
count_decisions(const box_world *w)
{
    char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/private/telemetry/records.jsonl", w->bw_state);
    FILE *f = fopen(p, "r");
    assert_non_null(f);
    char *line = NULL;
    size_t cap = 0, n = 0;
    while (getline(&line, &cap, f) > 0)
        n += strstr(line, "\"strands.box.policy.verdict\"") != NULL;
    free(line); // lint: allow raw-alloc: getline mallocs it
    fclose(f);
    return n;
}

/* Each line of a box log table: a verdict, an action, a resource. */
static void
expect_table(const char *out, size_t decisions)
{
    long at = control_at(out);
    if (at >= 0)
        fail_msg("control byte at %ld in:\n%s", at, out);
    assert_int_equal(count_lines(out), decisions);
    for (const char *l = out; *l; l = strchr(l, '\n') + 1)
        assert_true(strncmp(l, "permit  ", 8) == 0 ||
                    strncmp(l, "deny    ", 8) == 0);
    for (size_t i = 0; i < 3; i++) {
        if (strstr(out, hostile_escaped[i]) == NULL)
            fail_msg("missing %s in:\n%s", hostile_escaped[i], out);
    }
}

static void
test_hostile_names(void **state)
{
    box_world *w = *state;
    box_world_config(w, "");
    box_world_policy(w, project_rw);
    box_proc_result r;
    box_world_run(w, hostile_script, &r);
    if (r.pr_status != 0 || strcmp(r.pr_out, "x\ny\nz\n") != 0)
        box_test_show_result("hostile names", &r);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(r.pr_out, "x\ny\nz\n");
    box_proc_result_free(&r);

    size_t decisions = count_decisions(w);
    assert_true(decisions >= 9); // 3 × (write, read) + the commands
    box_test_cli((char *[]){"log", "--box-dir", w->bw_state, NULL}, 30000, &r);
    assert_int_equal(r.pr_status, 0);
    expect_table(r.pr_out, decisions);
    box_proc_result_free(&r);

    /* --follow prints the same table, then keeps reading: read until every
     * decision is there (or 20 s pass), then stop it. */
    char bin[PATH_MAX];
    box_proc_bin(bin, sizeof bin, "box");
    char *argv[] = {bin, "log", "--follow", "--box-dir", w->bw_state, NULL};
    box_proc p;
    assert_true(box_proc_start(&p, argv, NULL));
    box_buf out;
    box_buf_init(&out, 1u << 20);
    assert_int_equal(box_buf_puts(&out, ""), BOX_OK);
    for (int waited = 0; count_lines(out.b_data) < decisions && waited < 20000;
         waited += 50) {
        struct pollfd pfd = {.fd = p.bp_out_fd, .events = POLLIN};
        char chunk[4096];
        ssize_t n;
        if (poll(&pfd, 1, 50) == 1 &&
            (n = read(p.bp_out_fd, chunk, sizeof chunk)) > 0)
            assert_int_equal(box_buf_append(&out, chunk, (size_t)n), BOX_OK);
    }
    usleep(300000); // nothing more may come
    kill(p.bp_pid, SIGKILL);
    box_proc_finish(&p, 5000, &r);
    assert_int_equal(box_buf_puts(&out, r.pr_out), BOX_OK);
    expect_table(out.b_data, decisions);
    box_buf_reset(&out);
    box_proc_result_free(&r);
}

/* Lines of the decisions text that are exactly line (with its '\n'). */
static size_t
count_exact(const char *text, const char *line)
{
    size_t n = 0, k = strlen(line);
    for (const char *l = text; *l; l = strchr(l, '\n') + 1)
        n += strncmp(l, line, k) == 0 && l[k] == '\n';
    return n;
}

/*
 * A loop in one call: after the first of each, `true` and `[` are served
 * from the worker's per-call cache, and still every one of them is in the
 * log, in batches: 500 of true, 501 of [ (the last test ends the loop).
 */
static void
test_loop_logged_whole(void **state)
{
    box_world *w = *state;
    box_world_config(w, "");
    box_world_policy(w, "permit (principal, action, resource);\n");
    box_proc_result r;
    box_world_run(w,
                  "sh -c 'i=0; while [ $i -lt 500 ]; do true; i=$((i+1)); "
                  "done; echo $i'\n",
                  &r);
    box_test_expect_status(&r, 0);
    box_test_expect_out(&r, "500\n");
    box_proc_result_free(&r);
    char *d = box_world_decisions(w);
    size_t trues = count_exact(d, "permit shell:exec true");
    size_t tests = count_exact(d, "permit shell:exec [");
    if (trues != 500 || tests != 501)
        fail_msg("%zu true and %zu [ in the log, not 500 and 501", trues,
                 tests);
    // In the order they ran: [ true [ true … [ (the worker sends each
    // distinct permit once with the order of all).
    size_t k = 0;
    for (const char *l = d; *l; l = strchr(l, '\n') + 1) {
        bool t = strncmp(l, "permit shell:exec true\n", 23) == 0;
        bool b = strncmp(l, "permit shell:exec [\n", 20) == 0;
        if (!t && !b)
            continue;
        if (t != (k % 2 == 1))
            fail_msg("decision %zu of the loop is %s, out of order", k,
                     t ? "true" : "[");
        k++;
    }
    assert_int_equal(k, 1001);
    box_free(d);
    // Most came from a cache, and say so.
    char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/private/telemetry/records.jsonl", w->bw_state);
    FILE *f = fopen(p, "r");
    assert_non_null(f);
    char *line = NULL;
    size_t cap = 0, cached = 0;
    while (getline(&line, &cap, f) > 0)
        cached += strstr(line, "\"strands.box.policy.cached\",\"value\":"
                               "{\"boolValue\":true}") != NULL;
    free(line); // lint: allow raw-alloc: getline mallocs it
    fclose(f);
    assert_true(cached >= 990);
}

/*
 * A hit followed by a command that runs long: its report is not held
 * until the call ends (a worker killed then would take it along) but sent
 * within milliseconds, so the log shows the second true and sleep while
 * the sleep still runs.
 */
static void
test_report_not_held_by_long_command(void **state)
{
    box_world *w = *state;
    box_world_config(w, "");
    box_world_policy(w, "permit (principal, action, resource);\n");
    box_world_live lv;
    box_world_live_start(w,
                         "sh -c 'true; sleep 0; echo go; true; sleep 6; "
                         "echo done'\n",
                         &lv);
    box_world_live_wait(&lv, 1, "go\n", 1, 20000);
    size_t sleeps = 0;
    for (int waited = 0; waited < 4000 && sleeps < 2; waited += 100) {
        usleep(100000);
        char *d = box_world_decisions(w);
        sleeps = count_exact(d, "permit shell:exec sleep");
        box_free(d);
    }
    assert_int_equal(sleeps, 2);
    assert_null(strstr(box_world_live_text(&lv, 1), "done"));
    box_proc_result r;
    box_world_live_finish(&lv, 20000, &r);
    box_test_expect_status(&r, 0);
    box_test_expect_out(&r, "go\ndone\n");
    box_proc_result_free(&r);
}

/*
 * Every field of a record the table prints, from a log the agent could
 * not have written itself but a damaged or hand-made one can hold: raw
 * control bytes, a NUL, C1 and bidi characters and malformed UTF-8 in
 * the verdict, the action and the resource.
 */
static void
test_every_field(void **state)
{
    box_world *w = *state;
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/records.jsonl", w->bw_root);
    static const char rec[] =
        "{\"resourceLogs\":[{\"scopeLogs\":[{\"scope\":{\"name\":"
        "\"strands-box.policy\"},\"logRecords\":[{\"attributes\":["
        "{\"key\":\"strands.box.policy.verdict\",\"value\":{\"stringValue\":"
        "\"%s\"}},"
        "{\"key\":\"strands.box.policy.action\",\"value\":{\"stringValue\":"
        "\"%s\"}},"
        "{\"key\":\"strands.box.policy.resource\",\"value\":{\"stringValue\":"
        "\"%s\"}}]}]}]}]}\n";
    char text[4096];
    int n = snprintf(text, sizeof text, rec, "permit", "fs:read",
                     "~/a\\u001b[2K\\r\\u0000b\\u0085\\u009b\\u202e\\u2066c");
    n += snprintf(text + n, sizeof text - (size_t)n, rec, "permit\\u001b[1A",
                  "fs:\\nread", "\xff\xfe\033d\177");
    box_world_put(p, text);
    box_proc_result r;
    box_test_cli((char *[]){"log", p, NULL}, 30000, &r);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(
        r.pr_out,
        "permit  fs:read      ~/a\\u{1b}[2K\\r\\0b\\u{85}\\u{9b}\\u{202e}"
        "\\u{2066}c\n"
        "permit\\u{1b}[1A fs:\\nread    "
        "\xef\xbf\xbd\xef\xbf\xbd\\u{1b}d\\u{7f}\n");
    box_proc_result_free(&r);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
#define T(f)                                                                   \
    cmocka_unit_test_setup_teardown(f, box_world_setup, box_world_teardown)
        T(test_hostile_names),
        T(test_every_field),
        T(test_loop_logged_whole),
        T(test_report_not_held_by_long_command),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
