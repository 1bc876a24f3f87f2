/* SPDX-License-Identifier: Apache-2.0 */
/* box_effect: the request of every effect kind, pinned byte for byte to what
 * the executor and the kernel sent before the builder was one, field by
 * field, and the inputs it refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "box_effect.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The packed bytes each caller sent for these inputs before the builder
 * existed (sh_admit for commands, the kernel's decide for file
 * operations, recorded with a permitting decider): the requests on the
 * wire must not change.
 */
static const char pin_exec4[] =
    "0a0a7368656c6c3a6578656312782a760a250a07636f6d6d616e64121a0a1867"
    "726570202d6e20544f444f207372632f6d61696e2e72730a110a0770726f6772"
    "616d12060a04677265700a0c0a046172673112040a022d6e0a0e0a0461726732"
    "12060a04544f444f0a0f0a096172675f636f756e74120210030a0b0a03637764"
    "12040a022f771a04677265702a260a04677265700a022d6e0a04544f444f0a0a"
    "3c72656461637465643e12022f773a0467726570";
static const char pin_exec1[] =
    "0a0a7368656c6c3a6578656312452a430a110a07636f6d6d616e6412060a0474"
    "7275650a110a0770726f6772616d12060a04747275650a0f0a096172675f636f"
    "756e74120210000a0a0a0363776412030a012f1a04747275652a0f0a04747275"
    "6512012f3a0474727565";
static const char pin_spawn[] =
    "0a0b7368656c6c3a737061776e12b4012ab1010a2a0a07636f6d6d616e64121f"
    "0a1d67697420616464202d2d70617468737065633d7820746f646f2e7478740a"
    "100a0770726f6772616d12050a036769740a0d0a046172673112050a03616464"
    "0a160a0461726732120e0a0c2d2d70617468737065633d780a0f0a096172675f"
    "636f756e74120210030a190a0363776412120a102f686f6d652f6f702f70726f"
    "6a6563740a1e0a0c70726f6772616d5f70617468120e0a0c2f7573722f62696e"
    "2f6769741a0c2f7573722f62696e2f6769742a540a0c2f7573722f62696e2f67"
    "69740a036164640a152d2d70617468737065633d3c72656461637465643e0a08"
    "746f646f2e74787412102f686f6d652f6f702f70726f6a6563743a0c2f757372"
    "2f62696e2f676974";
static const char pin_spawn2[] =
    "0a0b7368656c6c3a737061776e12792a770a130a07636f6d6d616e6412080a06"
    "746f6f6c20780a110a0770726f6772616d12060a04746f6f6c0a0b0a04617267"
    "3112030a01780a0f0a096172675f636f756e74120210010a110a03637764120a"
    "0a082f686f6d652f6f700a1c0a0c70726f6772616d5f70617468120c0a0a7e2f"
    "62696e2f746f6f6c1a0a7e2f62696e2f746f6f6c2a250a0a7e2f62696e2f746f"
    "6f6c0a017812082f686f6d652f6f703a0a7e2f62696e2f746f6f6c";
static const char pin_read[] =
    "0a0766733a7265616412462a440a0d0a047061746812050a037e2f660a330a09"
    "6f7065726174696f6e122632240a14426f783a3a4673526561644f7065726174"
    "696f6e120c726561645f636f6e74656e741a037e2f662a10320e2f746d702f62"
    "6f782d70696e2f66";
static const char pin_write[] =
    "0a0866733a777269746512482a460a0d0a047061746812050a037e2f670a350a"
    "096f7065726174696f6e122832260a15426f783a3a467357726974654f706572"
    "6174696f6e120d77726974655f636f6e74656e741a037e2f672a10320e2f746d"
    "702f626f782d70696e2f67";
static const char pin_delete[] =
    "0a0966733a64656c65746512472a450a0d0a047061746812050a037e2f670a34"
    "0a096f7065726174696f6e122732250a16426f783a3a467344656c6574654f70"
    "65726174696f6e120b72656d6f76655f66696c651a037e2f672a10320e2f746d"
    "702f626f782d70696e2f67";
static const char pin_move[] =
    "0a0766733a6d6f766512402a3e0a0d0a047061746812050a037e2f660a2d0a09"
    "6f7065726174696f6e1220321e0a14426f783a3a46734d6f76654f7065726174"
    "696f6e120672656e616d651a037e2f662a10320e2f746d702f626f782d70696e"
    "2f66";
static const char pin_floor[] =
    "0a0766733a72656164124f2a4d0a160a0470617468120e0a0c7e2f2e626f782f"
    "73746174650a330a096f7065726174696f6e122632240a14426f783a3a467352"
    "6561644f7065726174696f6e120c726561645f636f6e74656e741a0c7e2f2e62"
    "6f782f73746174652a1932172f746d702f626f782d70696e2f2e626f782f7374"
    "61746542480a0b72656163682d666c6f6f7212397265736f6c76657320696e74"
    "6f207472757374656420426f782073746174652c207768696368206e6f20706f"
    "6c696379206d6179206f70656e";
static const char pin_vfs[] =
    "0a0866733a7772697465124b2a490a130a0470617468120b0a092f746d702f76"
    "6469720a320a096f7065726174696f6e122532230a15426f783a3a4673577269"
    "74654f7065726174696f6e120a6372656174655f6469721a092f746d702f7664"
    "69722a0b32092f746d702f76646972";

/* Packs req and compares it with the pinned hex. */
static void
assert_pinned(const Box__DecisionRequest *req, const char *hex)
{
    assert_non_null(req);
    uint8_t buf[1024];
    size_t n = box__decision_request__get_packed_size(req);
    assert_true(n <= sizeof buf);
    box__decision_request__pack(req, buf);
    char got[2 * sizeof buf + 1];
    for (size_t i = 0; i < n; i++)
        snprintf(got + 2 * i, 3, "%02x", buf[i]);
    got[2 * n] = '\0';
    assert_string_equal(got, hex);
}

/* The input record's field names in order, comma-joined. */
static void
assert_fields(const Box__DecisionRequest *req, const char *want)
{
    char got[256] = "";
    const Box__ValueRecord *rec = req->input->record;
    assert_int_equal(req->input->kind_case, BOX__VALUE__KIND_RECORD);
    for (size_t i = 0; i < rec->n_fields; i++) {
        if (i > 0)
            strcat(got, ",");
        strcat(got, rec->fields[i]->name);
    }
    assert_string_equal(got, want);
}

static const Box__Value *
field(const Box__DecisionRequest *req, const char *name)
{
    const Box__ValueRecord *rec = req->input->record;
    for (size_t i = 0; i < rec->n_fields; i++)
        if (strcmp(rec->fields[i]->name, name) == 0)
            return rec->fields[i]->value;
    fail_msg("no field %s", name);
    return NULL;
}

static void
test_shell_exec(void **state)
{
    (void)state;
    char *argv[] = {"grep", "-n", "TODO", "src/main.rs"};
    char *args[] = {"grep", "-n", "TODO", "<redacted>"};
    box_effect e = {.e_kind = BOX_EFFECT_SHELL_EXEC,
                    .e_cmd = {.ec_command = "grep -n TODO src/main.rs",
                              .ec_argc = 4,
                              .ec_argv = argv,
                              .ec_cwd = "/w",
                              .ec_args = args,
                              .ec_nargs = 4}};
    box_effect_req r;
    const Box__DecisionRequest *q = box_effect_request(&r, &e);
    assert_pinned(q, pin_exec4);
    assert_string_equal(q->action, "shell:exec");
    assert_string_equal(q->resource, "grep");
    assert_fields(q, "command,program,arg1,arg2,arg_count,cwd");
    assert_string_equal(field(q, "command")->str, "grep -n TODO src/main.rs");
    assert_string_equal(field(q, "program")->str, "grep");
    assert_string_equal(field(q, "arg1")->str, "-n");
    assert_string_equal(field(q, "arg2")->str, "TODO");
    assert_int_equal(field(q, "arg_count")->kind_case, BOX__VALUE__KIND_LONG);
    assert_int_equal(field(q, "arg_count")->long_, 3);
    assert_string_equal(field(q, "cwd")->str, "/w");
    assert_string_equal(q->subject->process_command, "grep");
    assert_string_equal(q->subject->working_directory, "/w");
    assert_int_equal(q->subject->n_command_args, 4);
    assert_string_equal(q->subject->command_args[3], "<redacted>");
    assert_string_equal(q->subject->file_path, ""); // proto3: unset
    assert_null(q->enforcement);

    // No arguments: no arg1, arg2.
    char *argv1[] = {"true"};
    e.e_cmd = (box_effect_cmd){.ec_command = "true",
                               .ec_argc = 1,
                               .ec_argv = argv1,
                               .ec_cwd = "/",
                               .ec_args = argv1,
                               .ec_nargs = 1};
    q = box_effect_request(&r, &e);
    assert_pinned(q, pin_exec1);
    assert_fields(q, "command,program,arg_count,cwd");
    assert_int_equal(field(q, "arg_count")->long_, 0);
}

static void
test_shell_spawn(void **state)
{
    (void)state;
    char *argv[] = {"git", "add", "--pathspec=x", "todo.txt"};
    char *args[] = {"git", "add", "--pathspec=<redacted>", "todo.txt"};
    box_effect e = {.e_kind = BOX_EFFECT_SHELL_SPAWN,
                    .e_cmd = {.ec_command = "git add --pathspec=x todo.txt",
                              .ec_argc = 4,
                              .ec_argv = argv,
                              .ec_cwd = "/home/op/project",
                              .ec_program_path = "/usr/bin/git",
                              .ec_args = args,
                              .ec_nargs = 4}};
    box_effect_req r;
    const Box__DecisionRequest *q = box_effect_request(&r, &e);
    assert_pinned(q, pin_spawn);
    assert_string_equal(q->action, "shell:spawn");
    assert_string_equal(q->resource, "/usr/bin/git");
    assert_fields(q, "command,program,arg1,arg2,arg_count,cwd,program_path");
    assert_string_equal(field(q, "program")->str, "git"); // as spelled
    assert_string_equal(field(q, "program_path")->str, "/usr/bin/git");
    assert_string_equal(q->subject->process_command, "/usr/bin/git");
    // §7: command_args[0] is the program path; the caller's array is
    // left as it was.
    assert_string_equal(q->subject->command_args[0], "/usr/bin/git");
    assert_string_equal(q->subject->command_args[2], "--pathspec=<redacted>");
    assert_string_equal(args[0], "git");

    char *argv2[] = {"tool", "x"};
    e.e_cmd = (box_effect_cmd){.ec_command = "tool x",
                               .ec_argc = 2,
                               .ec_argv = argv2,
                               .ec_cwd = "/home/op",
                               .ec_program_path = "~/bin/tool",
                               .ec_args = argv2,
                               .ec_nargs = 2};
    q = box_effect_request(&r, &e);
    assert_pinned(q, pin_spawn2);
    assert_fields(q, "command,program,arg1,arg_count,cwd,program_path");
}

static void
test_fs_kinds(void **state)
{
    (void)state;
    static const struct {
        box_effect_kind kind;
        const char *op, *reported, *canonical, *floor;
        const char *pin;
        const char *action, *type;
    } rows[] = {
        {BOX_EFFECT_FS_READ, "read_content", "~/f", "/tmp/box-pin/f", NULL,
         pin_read, "fs:read", "Box::FsReadOperation"},
        {BOX_EFFECT_FS_WRITE, "write_content", "~/g", "/tmp/box-pin/g", NULL,
         pin_write, "fs:write", "Box::FsWriteOperation"},
        {BOX_EFFECT_FS_DELETE, "remove_file", "~/g", "/tmp/box-pin/g", NULL,
         pin_delete, "fs:delete", "Box::FsDeleteOperation"},
        {BOX_EFFECT_FS_MOVE, "rename", "~/f", "/tmp/box-pin/f", NULL, pin_move,
         "fs:move", "Box::FsMoveOperation"},
        {BOX_EFFECT_FS_WRITE, "create_dir", "/tmp/vdir", "/tmp/vdir", NULL,
         pin_vfs, "fs:write", "Box::FsWriteOperation"},
        {BOX_EFFECT_FS_READ, "read_content", "~/.box/state",
         "/tmp/box-pin/.box/state",
         "resolves into trusted Box state, which no policy may open", pin_floor,
         "fs:read", "Box::FsReadOperation"},
    };
    for (size_t i = 0; i < NELEM(rows); i++) {
        box_effect e = {.e_kind = rows[i].kind,
                        .e_fs = {.ef_operation = rows[i].op,
                                 .ef_reported = rows[i].reported,
                                 .ef_canonical = rows[i].canonical,
                                 .ef_floor = rows[i].floor}};
        box_effect_req r;
        const Box__DecisionRequest *q = box_effect_request(&r, &e);
        assert_pinned(q, rows[i].pin);
        assert_string_equal(q->action, rows[i].action);
        assert_string_equal(q->resource, rows[i].reported);
        assert_fields(q, "path,operation");
        assert_string_equal(field(q, "path")->str, rows[i].reported);
        const Box__Value *op = field(q, "operation");
        assert_int_equal(op->kind_case, BOX__VALUE__KIND_ENTITY);
        assert_string_equal(op->entity->type, rows[i].type);
        assert_string_equal(op->entity->id, rows[i].op);
        assert_string_equal(q->subject->file_path, rows[i].canonical);
        assert_string_equal(q->subject->process_command, "");
        assert_int_equal(q->subject->n_command_args, 0);
        if (rows[i].floor == NULL) {
            assert_null(q->enforcement);
        } else {
            assert_string_equal(q->enforcement->gate, "reach-floor");
            assert_string_equal(q->enforcement->reason, rows[i].floor);
        }
    }
}

/* What is not a request is refused (NULL), never half built. */
static void
test_refused(void **state)
{
    (void)state;
    char *argv[] = {"ls"};
    box_effect_cmd ok = {.ec_command = "ls",
                         .ec_argc = 1,
                         .ec_argv = argv,
                         .ec_cwd = "/",
                         .ec_args = argv,
                         .ec_nargs = 1};
    box_effect_req r;
    box_effect e = {.e_kind = BOX_EFFECT_SHELL_EXEC, .e_cmd = ok};
    assert_non_null(box_effect_request(&r, &e));

    e.e_kind = BOX_EFFECT_KIND_COUNT; // unknown kind
    assert_null(box_effect_request(&r, &e));
    e.e_kind = (box_effect_kind)-1;
    assert_null(box_effect_request(&r, &e));

    e.e_kind = BOX_EFFECT_SHELL_SPAWN; // a spawn needs its program path
    assert_null(box_effect_request(&r, &e));

    e.e_kind = BOX_EFFECT_SHELL_EXEC;
    e.e_cmd.ec_argc = 0;
    assert_null(box_effect_request(&r, &e));
    e.e_cmd = ok;
    e.e_cmd.ec_nargs = 0;
    assert_null(box_effect_request(&r, &e));
    e.e_cmd = ok;
    e.e_cmd.ec_nargs = BOX_EFFECT_MAX_ARGS + 1;
    assert_null(box_effect_request(&r, &e));
    e.e_cmd = ok;
    e.e_cmd.ec_cwd = NULL;
    assert_null(box_effect_request(&r, &e));
    e.e_cmd = ok;
    e.e_cmd.ec_command = NULL;
    assert_null(box_effect_request(&r, &e));

    box_effect f = {.e_kind = BOX_EFFECT_FS_READ,
                    .e_fs = {.ef_operation = "read_content",
                             .ef_reported = "/x",
                             .ef_canonical = "/x"}};
    assert_non_null(box_effect_request(&r, &f));
    f.e_fs.ef_canonical = NULL;
    assert_null(box_effect_request(&r, &f));
    f.e_fs.ef_canonical = "/x";
    f.e_fs.ef_reported = NULL;
    assert_null(box_effect_request(&r, &f));
    f.e_fs.ef_reported = "/x";
    f.e_fs.ef_operation = NULL;
    assert_null(box_effect_request(&r, &f));
}

/* The most arguments a request carries: every one of them, in order. */
static void
test_max_args(void **state)
{
    (void)state;
    char *argv[BOX_EFFECT_MAX_ARGS];
    char names[BOX_EFFECT_MAX_ARGS][8];
    for (size_t i = 0; i < BOX_EFFECT_MAX_ARGS; i++) {
        snprintf(names[i], sizeof names[i], "a%zu", i);
        argv[i] = names[i];
    }
    box_effect e = {.e_kind = BOX_EFFECT_SHELL_EXEC,
                    .e_cmd = {.ec_command = "a0 …",
                              .ec_argc = (int)BOX_EFFECT_MAX_ARGS,
                              .ec_argv = argv,
                              .ec_cwd = "/",
                              .ec_args = argv,
                              .ec_nargs = BOX_EFFECT_MAX_ARGS}};
    box_effect_req r;
    const Box__DecisionRequest *q = box_effect_request(&r, &e);
    assert_non_null(q);
    assert_int_equal(q->subject->n_command_args, BOX_EFFECT_MAX_ARGS);
    assert_string_equal(q->subject->command_args[BOX_EFFECT_MAX_ARGS - 1],
                        "a63");
    assert_int_equal(field(q, "arg_count")->long_, BOX_EFFECT_MAX_ARGS - 1);
}

/* net:connect before DNS, per address, and http:request (box-spec §4, §7). */
static void
test_net_kinds(void **state)
{
    (void)state;
    box_effect_req r;
    box_effect e = {.e_kind = BOX_EFFECT_NET_CONNECT,
                    .e_net = {.en_host = "api.example.com",
                              .en_port = 443,
                              .en_resource = "api.example.com:443"}};
    const Box__DecisionRequest *q = box_effect_request(&r, &e);
    assert_non_null(q);
    assert_string_equal(q->action, "net:connect");
    assert_int_equal(q->input->record->n_fields, 2);
    assert_string_equal(field(q, "host")->str, "api.example.com");
    assert_int_equal(field(q, "port")->long_, 443);
    assert_string_equal(q->resource, "api.example.com:443");
    assert_string_equal(q->subject->server_address, "api.example.com");
    assert_int_equal(q->subject->server_port, 443);

    e.e_net.en_ip = "203.0.113.7";
    q = box_effect_request(&r, &e);
    assert_int_equal(q->input->record->n_fields, 3);
    assert_string_equal(field(q, "ip")->str, "203.0.113.7");

    box_effect h = {.e_kind = BOX_EFFECT_HTTP_REQUEST,
                    .e_net = {.en_host = "api.example.com",
                              .en_port = 443,
                              .en_ip = "203.0.113.7", // not an http field
                              .en_resource = "api.example.com:443/v1/x",
                              .en_method = "POST",
                              .en_path = "/v1/x",
                              .en_body_bytes = 12,
                              .en_intercepted = true}};
    q = box_effect_request(&r, &h);
    assert_non_null(q);
    assert_string_equal(q->action, "http:request");
    assert_int_equal(q->input->record->n_fields, 6);
    assert_string_equal(field(q, "method")->str, "POST");
    assert_string_equal(field(q, "path")->str, "/v1/x");
    assert_int_equal(field(q, "body_bytes")->long_, 12);
    assert_true(field(q, "intercepted")->boolean);
    assert_string_equal(q->subject->http_method, "POST");

    // Refused: no host, a port out of range, http without method or path.
    h.e_net.en_body_bytes = -1;
    assert_null(box_effect_request(&r, &h));
    h.e_net.en_body_bytes = 0;
    h.e_net.en_path = NULL;
    assert_null(box_effect_request(&r, &h));
    e.e_net.en_port = 0;
    assert_null(box_effect_request(&r, &e));
    e.e_net.en_port = 65536;
    assert_null(box_effect_request(&r, &e));
    e.e_net.en_port = 80;
    e.e_net.en_host = NULL;
    assert_null(box_effect_request(&r, &e));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shell_exec), cmocka_unit_test(test_shell_spawn),
        cmocka_unit_test(test_fs_kinds),   cmocka_unit_test(test_refused),
        cmocka_unit_test(test_max_args),   cmocka_unit_test(test_net_kinds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
