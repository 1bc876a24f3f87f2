/* SPDX-License-Identifier: Apache-2.0 */
/* Stdin streamed to a call (protocols 8 and 9, issue 23): real aliases fed by
 * real pipes, files and terminals, a real box-shell and box-pdp. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "alias_box.h"
#include "box.pb-c.h"
#include "box_alloc.h"
#include "box_frame.h"
#include "box_proc.h"
#include "box_testutil.h"
#include "box_wire.h"

#define SCRIPT_MAX 4096
#define BIG_BYTES (10u * 1024u * 1024u) // the 10 MiB
#define PARALLEL 16
#define BUDGET_TEST 1000000 // the budget of test_input_budget's broker

/* Runs /bin/sh -c "D=<box dir>; <script>": the script feeds the box's
 * aliases ("$D/bin/sh") with real pipes and redirections. */
static void
host_sh(const test_box *b, const char *script, box_proc_result *r)
{
    char text[SCRIPT_MAX];
    int n = snprintf(text, sizeof text, "D='%s'; %s", b->tb_dir, script);
    assert_true(n > 0 && (size_t)n < sizeof text);
    char *argv[] = {"/bin/sh", "-c", text, NULL};
    box_proc_run(argv, RUN_MS, r);
    assert_false(r->pr_timeout);
}

static void
host_expect(const test_box *b, const char *script, int status, const char *out,
            const char *err)
{
    box_proc_result r;
    host_sh(b, script, &r);
    if (r.pr_status != status || strcmp(r.pr_out, out) != 0 ||
        strcmp(r.pr_err, err) != 0)
        fail_msg("%s: status %d out [%.300s] err [%.300s]", script, r.pr_status,
                 r.pr_out, r.pr_err);
    box_proc_result_free(&r);
}

/* What a pipe into `sh -c` gives Shell commands, builtins and pipelines. */
static void
test_commands_read_stdin(void **state)
{
    test_box *b = *state;
    host_expect(b, "printf 'b\\na\\n' | \"$D/bin/sh\" -c sort", 0, "a\nb\n",
                "");
    host_expect(b,
                "printf 'x y z\\nrest\\nmore\\n' | \"$D/bin/bash\" -c "
                "'read a b; echo \"$b|$a\"; cat'",
                0, "y z|x\nrest\nmore\n", "");
    // read -r keeps backslashes; a last line without a newline counts.
    host_expect(b,
                "printf '1\\n2 \\\\t\\n3' | \"$D/bin/sh\" -c "
                "'while read -r l || [ -n \"$l\" ]; do echo \"<$l>\"; done'",
                0, "<1>\n<2 \\t>\n<3>\n", "");
    host_expect(b,
                "printf '3\\n1\\n2\\n' | \"$D/bin/sh\" -c "
                "'sort -n | head -2 | tr \"\\n\" \" \"; echo'",
                0, "1 2 \n", "");
    // From a file, and the status is the command's.
    host_expect(b,
                "printf 'abc' > \"$D/in.txt\"; \"$D/bin/zsh\" -c "
                "'wc -c; exit 4' < \"$D/in.txt\"",
                4, "3\n", "");
    // Bytes that are not text cross as they are.
    host_expect(b, "printf '\\000\\377\\001' | \"$D/bin/sh\" -c 'od -An -tx1'",
                0, " 00 ff 01\n", "");
}

/* Stdin that is not worth streaming reads as end of file, as before:
 * /dev/null, a closed descriptor, an empty pipe, a terminal. */
static void
test_eof_stdin(void **state)
{
    test_box *b = *state;
    const char *cmd = "\"$D/bin/sh\" -c 'cat; read x; echo \"end $?\"'";
    char script[SCRIPT_MAX];
    snprintf(script, sizeof script, "%s < /dev/null", cmd);
    host_expect(b, script, 0, "end 1\n", "");
    snprintf(script, sizeof script, "%s <&-", cmd);
    host_expect(b, script, 0, "end 1\n", "");
    snprintf(script, sizeof script, ": | %s", cmd);
    host_expect(b, script, 0, "end 1\n", "");

    // A terminal nobody types into: not read (it would wait forever).
    int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    assert_true(m >= 0);
    assert_int_equal(grantpt(m), 0);
    assert_int_equal(unlockpt(m), 0);
    const char *pts = ptsname(m);
    assert_non_null(pts);
    snprintf(script, sizeof script, "%s < %s", cmd, pts);
    host_expect(b, script, 0, "end 1\n", "");
    close(m);
}

/* 10 MiB, byte-exact, in 16 calls at once: half count the bytes, half
 * hash them (compared with the host's sha256sum of the same file). */
static void
test_big_stdin_in_parallel(void **state)
{
    test_box *b = *state;
    char path[128]; // under the box dir's 64
    snprintf(path, sizeof path, "%s/big.bin", b->tb_dir);
    uint8_t *data = box_alloc(BIG_BYTES);
    uint32_t x = 2463534242u; // xorshift: every byte value, no pattern
    for (size_t i = 0; i < BIG_BYTES; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        data[i] = (uint8_t)x;
    }
    box_test_write(path, (const char *)data, BIG_BYTES, 0600);
    box_free(data);

    box_proc_result want;
    char *hash_argv[] = {"/usr/bin/sha256sum", path, NULL};
    box_proc_run(hash_argv, RUN_MS, &want);
    assert_int_equal(want.pr_status, 0);
    char *sp = strchr(want.pr_out, ' ');
    assert_non_null(sp);
    char digest[80];
    snprintf(digest, sizeof digest, "%.*s  -\n", (int)(sp - want.pr_out),
             want.pr_out);
    box_proc_result_free(&want);

    box_proc ps[PARALLEL];
    char texts[PARALLEL][SCRIPT_MAX];
    long long t0 = box_test_now_ms();
    for (int i = 0; i < PARALLEL; i++) {
        // Half through a pipe, half from the file itself.
        const char *cmd = i / 2 % 2 ? "sha256sum" : "wc -c";
        if (i % 2)
            snprintf(texts[i], SCRIPT_MAX, "cat '%s' | '%s/bin/sh' -c '%s'",
                     path, b->tb_dir, cmd);
        else
            snprintf(texts[i], SCRIPT_MAX, "'%s/bin/sh' -c '%s' < '%s'",
                     b->tb_dir, cmd, path);
        char *argv[] = {"/bin/sh", "-c", texts[i], NULL};
        assert_true(box_proc_start(&ps[i], argv, NULL));
    }
    for (int i = 0; i < PARALLEL; i++) {
        box_proc_result r;
        box_proc_finish(&ps[i], RUN_MS, &r);
        bool hashes = i / 2 % 2 != 0;
        char count[32];
        snprintf(count, sizeof count, "%u\n", BIG_BYTES);
        const char *expect_out = hashes ? digest : count;
        if (r.pr_timeout || r.pr_status != 0 ||
            strcmp(r.pr_out, expect_out) != 0)
            fail_msg("call %d (%s): status %d out [%.200s] err [%.300s]", i,
                     texts[i], r.pr_status, r.pr_out, r.pr_err);
        box_proc_result_free(&r);
    }
    print_message("16 calls x 10 MiB of stdin: %lld ms\n",
                  box_test_now_ms() - t0);
    expect_serving(b);
}

/* A command that does not read all its stdin ends as it would anyway: no
 * hang, its own status, and output it writes before it reads (more than
 * every buffer on the way holds) is not held up by the input waiting. */
static void
test_stdin_not_read(void **state)
{
    test_box *b = *state;
    long long t0 = box_test_now_ms();
    host_expect(b, "head -c 200000000 /dev/zero | \"$D/bin/sh\" -c 'echo done'",
                0, "done\n", "");
    host_expect(b, "yes | \"$D/bin/sh\" -c 'exit 3'", 3, "", "");
    host_expect(b, "yes | \"$D/bin/sh\" -c 'head -2'", 0, "y\ny\n", "");
    assert_true(box_test_now_ms() - t0 < 20000);

    box_proc_result r;
    host_sh(b,
            "yes abcdefghi | head -c 6000000 | \"$D/bin/sh\" -c "
            "'seq 100000; wc -c'",
            &r);
    assert_int_equal(r.pr_status, 0);
    assert_int_equal(strlen(r.pr_out), 588895 + 8);
    assert_string_equal(r.pr_out + 588895, "6000000\n");
    assert_string_equal(r.pr_err, "");
    box_proc_result_free(&r);
    expect_serving(b);
}

/* A stdin shared with the caller's other commands: the box takes what
 * the command reads and no more, as a shell started there would, so the
 * rest is still there for the next reader. Lines from a pipe (a byte at a
 * time) and from a file (a block, the rest given back). */
static void
test_stdin_left_for_others(void **state)
{
    test_box *b = *state;
    host_expect(b, "printf 'a\\nb\\n' | { \"$D/bin/sh\" -c true; cat; }", 0,
                "a\nb\n", "");
    host_expect(b,
                "printf 'one\\ntwo\\nthree\\n' | { \"$D/bin/sh\" -c "
                "'read x; echo \"got $x\"'; cat; }",
                0, "got one\ntwo\nthree\n", "");
    host_expect(b,
                "printf 'abcdef' | { \"$D/bin/sh\" -c 'read -n 2 x; echo $x'; "
                "cat; }",
                0, "ab\ncdef", "");
    host_expect(b,
                "printf '1\\n2\\n3\\n' | { \"$D/bin/bash\" -c "
                "'mapfile -t -n 2 a; echo \"${a[*]}\"'; cat; }",
                0, "1 2\n3\n", "");
    host_expect(b,
                "printf 'x:y:z' | { \"$D/bin/bash\" -c 'read -d : v; echo $v'; "
                "cat; }",
                0, "x\ny:z", "");
    // The loop agents write: every line reaches its own call.
    host_expect(
        b,
        "printf 'l1\\nl2\\nl3\\n' > \"$D/lines\"; while read l; do "
        "\"$D/bin/sh\" -c 'echo \"[$1]\"' sh \"$l\"; done < \"$D/lines\"",
        0, "[l1]\n[l2]\n[l3]\n", "");
    host_expect(b,
                "printf 'l1\\nl2\\nl3\\n' | while read l; do "
                "\"$D/bin/sh\" -c 'echo \"[$1]\"' sh \"$l\"; done",
                0, "[l1]\n[l2]\n[l3]\n", "");
    host_expect(b,
                "{ \"$D/bin/sh\" -c 'read x; echo \"1:$x\"'; \"$D/bin/sh\" -c "
                "'read x; echo \"2:$x\"'; cat; } < \"$D/lines\"",
                0, "1:l1\n2:l2\nl3\n", "");
    // A long line, from a file and from a pipe.
    host_expect(b,
                "head -c 60000 /dev/zero | tr '\\0' x > \"$D/long\"; "
                "printf '\\ntail\\n' >> \"$D/long\"; { \"$D/bin/sh\" -c "
                "'read -r l; echo ${#l}'; cat; } < \"$D/long\"",
                0, "60000\ntail\n", "");
    host_expect(b,
                "cat \"$D/long\" | { \"$D/bin/sh\" -c 'read -r l; echo ${#l}'; "
                "cat; }",
                0, "60000\ntail\n", "");
}

/* Protocol 9 on the wire: nothing of stdin is asked for by a command that
 * does not read it; `read` asks for a line at most. */
static void
test_input_wanted_frames(void **state)
{
    test_box *b = *state;
    Box__AliasFrame f = BOX__ALIAS_FRAME__INIT;
    Box__Call c = BOX__CALL__INIT;
    f.program = 1;
    c.stdin_stream = true;
    f.body_case = BOX__ALIAS_FRAME__BODY_CALL;
    f.call = &c;

    int fd = sock_connect(b->tb_dir);
    raw_open(fd, BOX_ALIAS_PROTOCOL_VERSION, BOX__OPEN__MODE_SHELL);
    c.source = "echo quiet";
    assert_int_equal(box_frame_write(fd, &f, BOX_FRAME_MAX, 5000), BOX_OK);
    raw_expect_end(fd, "quiet\n", 0);
    close(fd);

    fd = sock_connect(b->tb_dir);
    raw_open(fd, BOX_ALIAS_PROTOCOL_VERSION, BOX__OPEN__MODE_SHELL);
    c.source = "read -r x; echo \"<$x>\"";
    assert_int_equal(box_frame_write(fd, &f, BOX_FRAME_MAX, 5000), BOX_OK);
    Box__AliasFrame *g = raw_read(fd);
    assert_int_equal(g->body_case, BOX__ALIAS_FRAME__BODY_INPUT_WANTED);
    assert_int_equal(g->input_wanted->max, BOX_INPUT_CHUNK_MAX);
    assert_true(g->input_wanted->has_delim);
    assert_int_equal(g->input_wanted->delim, '\n');
    box__alias_frame__free_unpacked(g, NULL);
    Box__Input in = BOX__INPUT__INIT;
    in.data.data = (uint8_t *)"hi\n";
    in.data.len = 3;
    f.body_case = BOX__ALIAS_FRAME__BODY_INPUT;
    f.input = &in;
    assert_int_equal(box_frame_write(fd, &f, BOX_FRAME_MAX, 5000), BOX_OK);
    raw_expect_end(fd, "<hi>\n", 0);
    close(fd);
    expect_serving(b);
}

/* `bash -s ARGS`: the script is stdin, ARGS are $1...; with -c refused. */
static void
test_script_on_stdin(void **state)
{
    test_box *b = *state;
    host_expect(b,
                "printf 'echo \"$1|$2|$#\"\\nread x; echo \"read $?\"\\n' | "
                "\"$D/bin/bash\" -s a 'b c'",
                0, "a|b c|2\nread 1\n", "");
    host_expect(b, "printf 'false\\necho no\\n' | \"$D/bin/sh\" -es", 1, "",
                "");
    host_expect(b, "echo 'echo \"$1\"' | \"$D/bin/sh\" -s -- -x", 0, "-x\n",
                "");
    host_expect(b, "\"$D/bin/sh\" -s < /dev/null", 0, "", "");
    host_expect(b, "echo 'echo hi' | \"$D/bin/bash\" -s -c 'echo x'", 125, "",
                "strands-box-sock-alias: -s reads the script from standard "
                "input; it does not go with -c COMMAND\n");
    char err[256];
    snprintf(err, sizeof err,
             "strands-box-sock-alias: Shell script on standard input is "
             "more than %u bytes; maximum is %u\n",
             BOX_COMMAND_MAX, BOX_COMMAND_MAX);
    host_expect(b, "yes : | \"$D/bin/sh\" -s", 125, "", err);
    host_expect(b, "printf 'echo caf\\351\\n' | \"$D/bin/sh\" -s", 125, "",
                "strands-box-sock-alias: Shell command is not valid UTF-8\n");
}

/* Writes Call{source, stdin_stream}, input frames and input_eof as an
 * alias of protocol version would, then reads the answer: stdout's bytes
 * into out (cap bytes at most), the Exit status as the return. */
static int
raw_streamed_call(const test_box *b, uint32_t version, const char *src,
                  const char *input, char *out, size_t cap)
{
    int fd = sock_connect(b->tb_dir);
    assert_true(fd >= 0);
    raw_open(fd, version, BOX__OPEN__MODE_SHELL);
    Box__AliasFrame f = BOX__ALIAS_FRAME__INIT;
    Box__Call c = BOX__CALL__INIT;
    Box__Input in = BOX__INPUT__INIT;
    Box__InputEof e = BOX__INPUT_EOF__INIT;
    f.program = 1;
    c.source = (char *)src;
    c.stdin_stream = true;
    f.body_case = BOX__ALIAS_FRAME__BODY_CALL;
    f.call = &c;
    assert_int_equal(box_frame_write(fd, &f, BOX_FRAME_MAX, 5000), BOX_OK);
    in.data.data = (uint8_t *)input;
    in.data.len = strlen(input);
    f.body_case = BOX__ALIAS_FRAME__BODY_INPUT;
    f.input = &in;
    assert_int_equal(box_frame_write(fd, &f, BOX_FRAME_MAX, 5000), BOX_OK);
    f.body_case = BOX__ALIAS_FRAME__BODY_INPUT_EOF;
    f.input_eof = &e;
    assert_int_equal(box_frame_write(fd, &f, BOX_FRAME_MAX, 5000), BOX_OK);
    size_t n = 0;
    for (;;) {
        Box__AliasFrame *g = raw_read(fd);
        if (g->body_case == BOX__ALIAS_FRAME__BODY_EXIT) {
            int st = g->exit->status;
            box__alias_frame__free_unpacked(g, NULL);
            close(fd);
            out[n] = '\0';
            return st;
        }
        assert_int_equal(g->body_case, BOX__ALIAS_FRAME__BODY_OUTPUT);
        if (g->output->stream == BOX__STREAM__STREAM_STDOUT) {
            assert_true(n + g->output->data.len < cap);
            memcpy(out + n, g->output->data.data, g->output->data.len);
            n += g->output->data.len;
        }
        box__alias_frame__free_unpacked(g, NULL);
    }
}

/* Aliases of protocols 6 and 7 are served as before: their stdin is at
 * its end whatever they send (a Call of theirs cannot ask for a stream;
 * one that carries the field anyway is not given one). Protocol 8 gets
 * the bytes; input after input_eof is refused. */
static void
test_older_protocols(void **state)
{
    test_box *b = *state;
    char out[256];
    const char *src = "cat; echo end";
    assert_int_equal(raw_streamed_call(b, 6, src, "data\n", out, sizeof out),
                     0);
    assert_string_equal(out, "end\n");
    assert_int_equal(raw_streamed_call(b, 7, src, "data\n", out, sizeof out),
                     0);
    assert_string_equal(out, "end\n");
    assert_int_equal(raw_streamed_call(b, 8, src, "data\n", out, sizeof out),
                     0);
    assert_string_equal(out, "data\nend\n");

    // The old client frames: Call, then InputEof at once.
    int fd = sock_connect(b->tb_dir);
    raw_open(fd, 7, BOX__OPEN__MODE_SHELL);
    raw_call(fd, "cat; echo old");
    raw_expect_end(fd, "old\n", 0);
    close(fd);

    // Input after input_eof breaks the stream's protocol.
    fd = sock_connect(b->tb_dir);
    raw_open(fd, 8, BOX__OPEN__MODE_SHELL);
    Box__AliasFrame f = BOX__ALIAS_FRAME__INIT;
    Box__Call c = BOX__CALL__INIT;
    Box__Input in = BOX__INPUT__INIT;
    Box__InputEof e = BOX__INPUT_EOF__INIT;
    f.program = 1;
    c.source = "sleep 5";
    c.stdin_stream = true;
    f.body_case = BOX__ALIAS_FRAME__BODY_CALL;
    f.call = &c;
    assert_int_equal(box_frame_write(fd, &f, BOX_FRAME_MAX, 5000), BOX_OK);
    f.body_case = BOX__ALIAS_FRAME__BODY_INPUT_EOF;
    f.input_eof = &e;
    assert_int_equal(box_frame_write(fd, &f, BOX_FRAME_MAX, 5000), BOX_OK);
    in.data.data = (uint8_t *)"late";
    in.data.len = 4;
    f.body_case = BOX__ALIAS_FRAME__BODY_INPUT;
    f.input = &in;
    assert_int_equal(box_frame_write(fd, &f, BOX_FRAME_MAX, 5000), BOX_OK);
    raw_expect_denied(fd, BOX__DENIED_KIND__DENIED_TRANSPORT_ERROR,
                      "the alias sent an input frame after input_eof");
    close(fd);
    expect_serving(b);
}

/* Past the call's input budget: the spec's kind of message, status 125,
 * and the broker serves on. A box of its own with a small budget. */
static void
test_input_budget(void **state)
{
    (void)state;
    test_box b;
    box_make(&b);
    char budget[32];
    snprintf(budget, sizeof budget, "%d", BUDGET_TEST);
    broker_start(&b, "--input-budget", budget);
    char err[256];
    snprintf(err, sizeof err,
             "strands-box: the program exceeded its input budget (%d bytes "
             "of standard input)\n",
             BUDGET_TEST);
    host_expect(&b, "head -c 2000000 /dev/zero | \"$D/bin/sh\" -c 'wc -c'", 125,
                "", err);
    // Exactly the budget is taken.
    host_expect(&b, "head -c 1000000 /dev/zero | \"$D/bin/sh\" -c 'wc -c'", 0,
                "1000000\n", "");
    expect_serving(&b);
    broker_stop(&b, 10000);
    box_remove(&b);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_commands_read_stdin),
        cmocka_unit_test(test_eof_stdin),
        cmocka_unit_test(test_big_stdin_in_parallel),
        cmocka_unit_test(test_stdin_not_read),
        cmocka_unit_test(test_stdin_left_for_others),
        cmocka_unit_test(test_input_wanted_frames),
        cmocka_unit_test(test_script_on_stdin),
        cmocka_unit_test(test_older_protocols),
        cmocka_unit_test(test_input_budget),
    };
    return cmocka_run_group_tests(tests, box_group_setup, box_group_teardown);
}
