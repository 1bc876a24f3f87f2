/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for pdp_schema: the Cedar schema parser, the shipped Box schema
 * (Appendix A), the conformance schemas, and every load error. */
#include "pdp_test_util.h"

#include <dirent.h>

#include "pdp_schema.h"

static pdp_schema *
load_ok(const char *text)
{
    pdp_schema *s = NULL;
    char *err = NULL;
    if (pdp_schema_load(text, strlen(text), "s.cedarschema", &s, &err) !=
        BOX_OK)
        fail_msg("%s\n  -> %s", text, err);
    assert_null(err);
    return s;
}

static void
load_fails(const char *text, const char *want)
{
    pdp_schema *s = (pdp_schema *)1;
    char *err = NULL;
    box_err rv = pdp_schema_load(text, strlen(text), "s.cedarschema", &s, &err);
    assert_null(s);
    assert_non_null(err);
    if (rv != BOX_EPARSE || strcmp(err, want) != 0)
        fail_msg("%s\n  got:  [%s] %s\n  want: %s", text, box_strerror(rv), err,
                 want);
    box_free(err);
}

static char *
type_text(const pdp_type *t)
{
    box_buf b;
    box_buf_init(&b, 1u << 16);
    assert_int_equal(pdp_schema_type_format(t, &b), BOX_OK);
    return box_buf_take(&b);
}

static void
assert_type(const pdp_type *t, const char *want)
{
    char *got = type_text(t);
    assert_string_equal(got, want);
    box_free(got);
}

static const pdp_schema_action *
action(const pdp_schema *s, box_arena *a, const char *uid)
{
    const pdp_schema_action *ac = pdp_schema_action_find(s, tv(a, uid));
    if (ac == NULL)
        fail_msg("no action %s", uid);
    return ac;
}

static void
test_builtin_schema(void **state)
{
    (void)state;
    pdp_schema *s = NULL;
    char *err = NULL;
    assert_int_equal(pdp_schema_load_builtin(&s, &err), BOX_OK);
    assert_null(err);
    box_arena *a = box_arena_new(1u << 20);

    /* The ten actions of Appendix A, in declaration order. */
    static const char *const ids[] = {
        "fs:read",     "fs:write",     "fs:delete",  "fs:move",     "fs:other",
        "net:connect", "http:request", "shell:exec", "shell:spawn", "mcp:call",
    };
    assert_int_equal(pdp_schema_action_count(s), 10);
    for (size_t i = 0; i < 10; i++) {
        const pdp_schema_action *ac = pdp_schema_action_at(s, i);
        assert_string_equal(ac->ac_id.s, ids[i]);
        assert_string_equal(ac->ac_type.s, "Box::Action");
        assert_true(ac->ac_applies);
        assert_int_equal(ac->ac_nprincipals, 1);
        assert_string_equal(ac->ac_principals[0].s, "Box::Agent");
        assert_int_equal(ac->ac_nresources, 1);
        assert_string_equal(ac->ac_resources[0].s, "Box::Resource");
        assert_int_equal(ac->ac_nparents, 0);
    }
    assert_null(pdp_schema_action_at(s, 10));
    assert_null(pdp_schema_action_find(s, tv(a, "Box::Action::\"fs:raed\"")));
    assert_true(pdp_schema_is_action_type(s, "Box::Action", 11));
    assert_false(pdp_schema_is_action_type(s, "Action", 6));

    /* Each action's context, with common types inlined and attributes
     * sorted as Cedar prints them. */
    static const struct {
        const char *uid;
        const char *ctx;
    } ctx[] = {
        {"Box::Action::\"fs:read\"",
         "{input: {operation: Box::FsReadOperation,path: String,},"
         "output?: {result: Box::FsResponseResult,},}"},
        {"Box::Action::\"fs:write\"",
         "{input: {operation: Box::FsWriteOperation,path: String,},"
         "output?: {result: Box::FsResponseResult,},}"},
        {"Box::Action::\"fs:delete\"",
         "{input: {operation: Box::FsDeleteOperation,path: String,},"
         "output?: {result: Box::FsResponseResult,},}"},
        {"Box::Action::\"fs:move\"",
         "{input: {operation: Box::FsMoveOperation,path: String,},"
         "output?: {result: Box::FsResponseResult,},}"},
        {"Box::Action::\"fs:other\"",
         "{input: {operation: Box::FsOtherOperation,path: String,},"
         "output?: {result: Box::FsResponseResult,},}"},
        {"Box::Action::\"net:connect\"",
         "{input: {host: String,ip?: String,port: Long,},}"},
        {"Box::Action::\"http:request\"",
         "{input: {body_bytes: Long,host: String,intercepted: Bool,method: "
         "String,path: String,port: Long,},output?: {status: Long,},}"},
        {"Box::Action::\"shell:exec\"",
         "{input: {arg1?: String,arg2?: String,arg_count: Long,command: "
         "String,cwd: String,program: String,},output?: {status: Long,},}"},
        {"Box::Action::\"shell:spawn\"",
         "{input: {arg1?: String,arg2?: String,arg_count: Long,command: "
         "String,credential_reads?: Set<String>,cwd: String,program: String,"
         "program_path: String,},output?: {status: Long,},}"},
        {"Box::Action::\"mcp:call\"",
         "{input: {method: String,prompt?: String,server: String,tool?: "
         "String,uri?: String,},}"},
    };
    for (size_t i = 0; i < sizeof(ctx) / sizeof(ctx[0]); i++)
        assert_type(action(s, a, ctx[i].uid)->ac_context, ctx[i].ctx);

    /* Entity types and the enums. */
    static const struct {
        const char *name;
        const char *ids; // space separated; NULL = not an enum
    } ents[] = {
        {"Box::Agent", NULL},
        {"Box::Resource", NULL},
        {"Box::FsReadOperation",
         "read_content read_metadata enumerate read_link change_dir exec"},
        {"Box::FsWriteOperation", "write_content create_dir set_permissions "
                                  "symlink"},
        {"Box::FsDeleteOperation", "remove_file remove_dir"},
        {"Box::FsMoveOperation", "rename"},
        {"Box::FsOtherOperation", "other"},
        {"Box::FsResponseResult", "completed descriptor_issued indeterminate"},
    };
    assert_int_equal(pdp_schema_entity_count(s), 8);
    for (size_t i = 0; i < sizeof(ents) / sizeof(ents[0]); i++) {
        const pdp_schema_entity *en = pdp_schema_entity_at(s, i);
        assert_string_equal(en->en_name.s, ents[i].name);
        assert_ptr_equal(
            pdp_schema_entity_find(s, ents[i].name, strlen(ents[i].name)), en);
        assert_int_equal(en->en_is_enum, ents[i].ids != NULL);
        assert_null(en->en_tags);
        assert_int_equal(en->en_attrs->ty_nattrs, 0);
        if (ents[i].ids == NULL)
            continue;
        char got[256] = "";
        for (uint32_t k = 0; k < en->en_nenum; k++)
            snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s",
                     k ? " " : "", en->en_enum[k].s);
        assert_string_equal(got, ents[i].ids);
    }
    assert_null(pdp_schema_entity_find(s, "Agent", 5));

    /* The embedded text is the shipped file, byte for byte. */
    char *path = source_path("pdp/schema/actions.cedarschema");
    size_t flen = 0;
    char *file = read_file_at(path, &flen);
    assert_non_null(file);
    size_t blen;
    const char *btext = pdp_schema_builtin_text(&blen);
    assert_int_equal(blen, flen);
    assert_memory_equal(btext, file, flen);
    assert_int_equal(btext[blen], '\0');
    box_free(file);
    box_free(path);

    box_arena_free(a);
    pdp_schema_free(s);
    pdp_schema_free(NULL);
}

/* The generic test world of §8.0: entity parents, attributes, tags,
 * several actions per declaration, extension types. */
static void
test_drupe_world(void **state)
{
    (void)state;
    char *path = source_path("pdp/testdata/dogwood/schemas/"
                             "drupe_test_world.cedarschema");
    size_t len;
    char *text = read_file_at(path, &len);
    assert_non_null(text);
    pdp_schema *s = NULL;
    char *err = NULL;
    if (pdp_schema_load(text, len, "drupe.cedarschema", &s, &err) != BOX_OK)
        fail_msg("%s", err);
    box_arena *a = box_arena_new(1u << 20);
    assert_int_equal(pdp_schema_action_count(s), 13);
    const pdp_schema_entity *u =
        pdp_schema_entity_find(s, "Drupe::OAuthUser", 16);
    assert_non_null(u);
    assert_int_equal(u->en_nparents, 1);
    assert_string_equal(u->en_parents[0].s, "Drupe::Team");
    assert_type(u->en_attrs, "{id: String,}");
    assert_type(u->en_tags, "String");
    pdp_str user = {"Drupe::OAuthUser", 16}, team = {"Drupe::Team", 11},
            gw = {"Drupe::Gateway", 14};
    assert_true(pdp_schema_entity_may_be_in(s, user, team));
    assert_true(pdp_schema_entity_may_be_in(s, user, user));
    assert_false(pdp_schema_entity_may_be_in(s, team, user));
    assert_false(pdp_schema_entity_may_be_in(s, user, gw));
    assert_type(action(s, a, "Drupe::Action::\"GetStockInfo\"")->ac_context,
                "{input: {shares: Long,stock: String,},output?: {approved: "
                "Bool,proceeds: decimal,},system: {now: datetime,},}");
    assert_type(action(s, a, "Drupe::Action::\"Login\"")->ac_context,
                "{input: {server?: String,user: String,},output?: {result: "
                "Bool,},}");
    assert_type(action(s, a, "Drupe::Action::\"Revoke\"")->ac_context,
                "{input: {resource: String,user: String,},}");
    box_arena_free(a);
    pdp_schema_free(s);
    box_free(text);
    box_free(path);
}

/* Every schema of the conformance corpus loads. */
static void
test_conformance_schemas(void **state)
{
    (void)state;
    char *dir = source_path("pdp/testdata/dogwood/schemas");
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *de;
    int n = 0;
    while ((de = readdir(d)) != NULL) {
        if (strstr(de->d_name, ".cedarschema") == NULL)
            continue;
        char *p = box_asprintf("%s/%s", dir, de->d_name);
        size_t len;
        char *text = read_file_at(p, &len);
        assert_non_null(text);
        pdp_schema *s = NULL;
        char *err = NULL;
        if (pdp_schema_load(text, len, de->d_name, &s, &err) != BOX_OK)
            fail_msg("%s: %s", de->d_name, err);
        assert_true(pdp_schema_action_count(s) > 0);
        pdp_schema_free(s);
        box_free(text);
        box_free(p);
        n++;
    }
    closedir(d);
    assert_int_equal(n, 21);
    box_free(dir);
}

static void
test_groups_escapes_bom(void **state)
{
    (void)state;
    box_arena *a = box_arena_new(1u << 20);
    /* Escaped action ids, `\x22` and `\u{0_…}` spellings of the same id,
     * action groups, groups of groups. */
    pdp_schema *s = load_ok(
        "namespace Escaped {\n"
        "  entity User; entity Doc;\n"
        "  entity Mode enum [\"a\\\"b\", \"a\\\\b\", \"u\\u{0_1_2_3}\"];\n"
        "  action \"quote\\\"group\";\n"
        "  action \"top\";\n"
        "  action \"mid\" in Action::\"top\";\n"
        "  action Plain in [\"mid\", Escaped::Action::\"quote\\x22group\"]\n"
        "    appliesTo { principal: User, resource: [Doc], context: {} };\n"
        "}\n");
    const pdp_schema_entity *mode =
        pdp_schema_entity_find(s, "Escaped::Mode", 13);
    assert_int_equal(mode->en_nenum, 3);
    assert_string_equal(mode->en_enum[0].s, "a\"b");
    assert_string_equal(mode->en_enum[1].s, "a\\b");
    assert_string_equal(mode->en_enum[2].s, "u\xc4\xa3");
    const pdp_schema_action *plain = action(s, a, "Escaped::Action::\"Plain\"");
    const pdp_schema_action *grp =
        action(s, a, "Escaped::Action::\"quote\\\"group\"");
    assert_false(grp->ac_applies);
    assert_true(plain->ac_applies);
    assert_int_equal(plain->ac_nparents, 2);
    assert_true(
        pdp_schema_action_in(s, plain, tv(a, "Escaped::Action::\"top\"")));
    assert_true(pdp_schema_action_in(
        s, plain, tv(a, "Escaped::Action::\"quote\\\"group\"")));
    assert_true(pdp_schema_action_in(s, plain, plain->ac_uid));
    assert_false(pdp_schema_action_in(s, grp, plain->ac_uid));
    assert_type(plain->ac_context, "{}");
    pdp_schema_free(s);

    /* A BOM, comments, annotations, a global namespace, quoted and
     * optional attributes, nested sets, `__cedar::` names, `=` before an
     * entity record, trailing commas. */
    s = load_ok(
        "\xEF\xBB\xBF// leading comment\n"
        "@doc(\"x\") entity Global = { \"a b\"?: Set<Set<__cedar::Long>>, "
        "ok: Bool, };\n"
        "type T = { when: ipaddr, t: duration };\n"
        "namespace A::B { // inside\n"
        "  entity E in [Global];\n"
        "  @doc(\"act\") action \"x\", y appliesTo { resource: [E], "
        "principal: [Global, E], context: Ctx, };\n"
        "  type Ctx = { r: T, e: E, g: Global, s: String };\n"
        "}\n");
    const pdp_schema_action *x = action(s, a, "A::B::Action::\"x\"");
    action(s, a, "A::B::Action::\"y\"");
    assert_int_equal(x->ac_nprincipals, 2);
    assert_string_equal(x->ac_principals[0].s, "Global");
    assert_string_equal(x->ac_principals[1].s, "A::B::E");
    assert_type(x->ac_context, "{e: A::B::E,g: Global,r: {t: duration,when: "
                               "ipaddr,},s: String,}");
    assert_type(pdp_schema_entity_find(s, "Global", 6)->en_attrs,
                "{a b?: Set<Set<Long>>,ok: Bool,}");
    assert_non_null(pdp_schema_record_attr(x->ac_context, "g", 1));
    assert_null(pdp_schema_record_attr(x->ac_context, "h", 1));
    assert_true(pdp_schema_is_action_type(s, "A::B::Action", 12));
    pdp_schema_free(s);
    box_arena_free(a);
}

static void
test_schema_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *err;
    } bad[] = {
        {"entity", "s.cedarschema:1:7: expected a name, found end of file"},
        {"entity A", "s.cedarschema:1:9: expected `;`, found end of file"},
        {"namespace N { entity A; ", "s.cedarschema:1:25: expected `}` (to "
                                     "close `{` at line 1), found end of file"},
        {"foo A;", "s.cedarschema:1:1: expected `entity`, `action` or "
                   "`type`, found `foo`"},
        {"entity A; entity A;",
         "s.cedarschema:1:18: duplicate declaration of entity type `A`"},
        {"namespace N { entity A, A; }",
         "s.cedarschema:1:25: duplicate declaration of entity type `N::A`"},
        {"action \"a\"; action a;",
         "s.cedarschema:1:20: duplicate declaration of action `Action::\"a\"`"},
        {"type T = Long; type T = String;",
         "s.cedarschema:1:21: duplicate declaration of type `T`"},
        {"type Long = String;", "s.cedarschema:1:6: `Long` is a built-in type "
                                "name and cannot be declared"},
        {"entity A = { x: Long, x: String };",
         "s.cedarschema:1:23: duplicate attribute `x` in a record type"},
        {"entity A = { x: Lng };", "s.cedarschema:1:17: failed to resolve "
                                   "type: Lng"},
        {"type T = { a: T };", "s.cedarschema:1:15: type `T` refers to itself"},
        {"entity A in [B];", "s.cedarschema:1:14: undeclared entity type `B`"},
        {"entity A; action a appliesTo { principal: [A], resource: [R] };",
         "s.cedarschema:1:59: undeclared entity type `R`"},
        {"entity A; action a in [\"g\"];",
         "s.cedarschema:1:24: undeclared action `Action::\"g\"`"},
        {"entity A; action a appliesTo { principal: A, resource: A, context: "
         "Long };",
         "s.cedarschema:1:68: the context of an action must be a record type"},
        {"entity A; action a appliesTo { resource: A };",
         "s.cedarschema:1:30: `appliesTo` needs a `principal` declaration"},
        {"entity A; action a appliesTo { principal: A };",
         "s.cedarschema:1:30: `appliesTo` needs a `resource` declaration"},
        {"entity A; action a appliesTo { principal: A, principal: A, "
         "resource: A };",
         "s.cedarschema:1:46: duplicate `principal` declaration"},
        {"entity A; action a appliesTo { principal: A, resource: A, "
         "context: {}, context: {} };",
         "s.cedarschema:1:72: duplicate `context` declaration"},
        {"entity A; action a appliesTo { owner: A };",
         "s.cedarschema:1:32: expected `principal`, `resource` or `context`, "
         "found `owner`"},
        {"entity A; action a appliesTo { principal: A resource: A };",
         "s.cedarschema:1:45: expected `,` or `}` (to close `{` at line 1), "
         "found `resource`"},
        {"entity E enum [];", "s.cedarschema:1:16: an enumerated entity type "
                              "needs at least one id"},
        {"entity E enum [\"a\", \"a\"];",
         "s.cedarschema:1:21: duplicate enum id \"a\""},
        {"entity E enum [a];",
         "s.cedarschema:1:16: expected an entity id string, found `a`"},
        {"entity P; entity E in [P] enum [\"a\"];",
         "s.cedarschema:1:27: an enumerated entity type cannot have parents"},
        {"entity A = { x Long };",
         "s.cedarschema:1:16: expected `:`, found `Long`"},
        {"entity A = { x: Long y: Long };",
         "s.cedarschema:1:22: expected `,` or "
         "`}` (to close `{` at line 1), found "
         "`y`"},
        {"type T = Set<Long;", "s.cedarschema:1:18: expected `>`, found `;`"},
        {"action \"a\\q\";",
         "s.cedarschema:1:10: the input `\\q` is not a valid escape"},
        {"action \"a", "s.cedarschema:1:8: unterminated string literal"},
        {"action \"g\" in [\"h\"]; action \"h\" in [\"g\"];",
         "s.cedarschema:1:8: action `Action::\"g\"` is in a cycle of action "
         "groups"},
        {"entity A = { a: Set<Set<Set<Set<Set<Set<Set<Set<Set<Set<Set<Set<Set<"
         "Set<Set<Set<Set<Set<Set<Set<Set<Set<Set<Set<Set<Set<Set<Set<Set<Set<"
         "Set<Set<Long>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>> };",
         "s.cedarschema:1:141: type nests too deeply (the limit is 32 levels)"},
        {"entity A # ;", "s.cedarschema:1:10: unexpected character `#`"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        load_fails(bad[i].text, bad[i].err);

    /* Not UTF-8, and the size cap. */
    pdp_schema *s = NULL;
    char *err = NULL;
    assert_int_equal(
        pdp_schema_load("entity \xff;", 9, "s.cedarschema", &s, &err),
        BOX_EPARSE);
    assert_null(s);
    assert_string_equal(err,
                        "s.cedarschema:1:8: policy text is not valid UTF-8");
    box_free(err);
    assert_int_equal(
        pdp_schema_load("", PDP_SCHEMA_MAX_BYTES + 1, "big", &s, &err),
        BOX_ETOOBIG);
    assert_string_equal(err, "big: schema text is larger than the limit of "
                             "8388608 bytes");
    box_free(err);
    /* The empty schema is a schema. */
    s = load_ok("");
    assert_int_equal(pdp_schema_action_count(s), 0);
    pdp_schema_free(s);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builtin_schema),
        cmocka_unit_test(test_drupe_world),
        cmocka_unit_test(test_conformance_schemas),
        cmocka_unit_test(test_groups_escapes_bom),
        cmocka_unit_test(test_schema_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
