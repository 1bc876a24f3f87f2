/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for the TOML parser: every accepted form, and every error with its
 * exact text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "toml.h"

/* ---- helpers ---- */

/* The text as exactly len heap bytes with no terminator, so the sanitizer
 * catches any read past the end. */
static char *
exact_copy(const char *text, size_t len)
{
    char *copy = box_alloc(len);
    assert_non_null(copy);
    memcpy(copy, text, len);
    return copy;
}

static toml_doc *
parse_ok_len(const char *text, size_t len)
{
    toml_doc *doc = NULL;
    char *err = NULL;
    char *copy = exact_copy(text, len);
    box_err rv = toml_parse(copy, len, &doc, &err);
    box_free(copy);
    if (rv != BOX_OK)
        fail_msg("refused %s: %s", text, err ? err : "(no message)");
    assert_null(err);
    assert_non_null(doc);
    return doc;
}

static toml_doc *
parse_ok(const char *text)
{
    return parse_ok_len(text, strlen(text));
}

static void
expect_error_len(const char *text, size_t len, box_err want_rv,
                 const char *want)
{
    toml_doc *doc = NULL;
    char *err = NULL;
    char *copy = exact_copy(text, len);
    box_err rv = toml_parse(copy, len, &doc, &err);
    box_free(copy);
    if (rv == BOX_OK) {
        toml_free(doc);
        fail_msg("accepted: %s", text);
    }
    assert_null(doc);
    assert_non_null(err);
    if (rv != want_rv || strcmp(err, want) != 0)
        print_error("input: %s\n", text);
    assert_int_equal(rv, want_rv);
    assert_string_equal(err, want);
    box_free(err);
}

static void
expect_error(const char *text, const char *want)
{
    expect_error_len(text, strlen(text), BOX_EPARSE, want);
}

typedef struct bad_case {
    const char *text;
    const char *err;
} bad_case;

/* Runs each case; one whose err is NULL must parse instead. */
static void
run_bad(const bad_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (cases[i].err == NULL)
            toml_free(parse_ok(cases[i].text));
        else
            expect_error(cases[i].text, cases[i].err);
    }
}

#define RUN_BAD(cases) run_bad(cases, sizeof(cases) / sizeof(cases[0]))

static const toml_value *
get(const toml_value *t, const char *key)
{
    const toml_value *v = toml_table_get(t, key);
    if (v == NULL)
        fail_msg("no key %s", key);
    return v;
}

/* Follows a dotted path of plain keys from t. */
static const toml_value *
path(const toml_value *t, const char *dotted)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", dotted);
    const toml_value *v = t;
    for (char *save = NULL, *k = strtok_r(buf, ".", &save); k != NULL;
         k = strtok_r(NULL, ".", &save))
        v = get(v, k);
    return v;
}

static void
assert_str(const toml_value *v, const char *want)
{
    assert_int_equal(toml_value_kind(v), TOML_STRING);
    size_t len;
    const char *s = toml_string(v, &len);
    assert_int_equal(len, strlen(want));
    assert_string_equal(s, want);
}

static void
assert_int(const toml_value *v, int64_t want)
{
    assert_int_equal(toml_value_kind(v), TOML_INTEGER);
    assert_true(toml_integer(v) == want);
}

static void
assert_pos(toml_pos p, uint32_t line, uint32_t column)
{
    assert_int_equal(p.line, line);
    assert_int_equal(p.column, column);
}

static void
assert_key(const toml_value *t, size_t i, const char *want)
{
    size_t len;
    const char *k = toml_table_key(t, i, &len);
    assert_non_null(k);
    assert_int_equal(len, strlen(want));
    assert_string_equal(k, want);
}

/* ---- accepted forms ---- */

static void
test_empty_comments_blank_lines(void **state)
{
    (void)state;
    const char *texts[] = {
        "",
        "\n\n",
        "# only a comment",
        "# comment\n\n   \t\n# another\t with tab\n",
        "\xEF\xBB\xBF# after a byte-order mark\n",
        "a = 1 # trailing comment\n",
        "\r\n# CRLF lines\r\na = 1\r\n",
    };
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        toml_doc *doc = parse_ok(texts[i]);
        const toml_value *root = toml_root(doc);
        assert_int_equal(toml_value_kind(root), TOML_TABLE);
        assert_pos(toml_value_pos(root), 1, 1);
        assert_true(toml_table_len(root) <= 1);
        toml_free(doc);
    }
}

static void
test_keys_bare_quoted_dotted(void **state)
{
    (void)state;
    toml_doc *doc = parse_ok("bare = 1\n"
                             "bare-key_2 = 2\n"
                             "1234 = 3\n"
                             "\"quoted key\" = 4\n"
                             "'literal \\key' = 5\n"
                             "\"\" = 6\n"
                             "site.\"google.com\" = true\n"
                             "a . b\t.c = 7\n"
                             "3.14 = \"pi\"\n"
                             "\"esc\\u00e9\\n\" = 8\n"
                             "true = 9\n");
    const toml_value *root = toml_root(doc);
    assert_int_equal(toml_table_len(root), 11);
    // Source order, as written.
    assert_key(root, 0, "bare");
    assert_key(root, 1, "bare-key_2");
    assert_key(root, 2, "1234");
    assert_key(root, 3, "quoted key");
    assert_key(root, 4, "literal \\key");
    assert_key(root, 5, "");
    assert_key(root, 6, "site");
    assert_key(root, 7, "a");
    assert_key(root, 8, "3");
    assert_key(root, 9, "esc\xC3\xA9\n");
    assert_key(root, 10, "true");
    assert_int(get(root, "bare"), 1);
    assert_int(get(root, "quoted key"), 4);
    assert_int(get(root, ""), 6);
    assert_true(toml_bool(get(get(root, "site"), "google.com")));
    assert_int(path(root, "a.b.c"), 7);
    assert_str(path(root, "3.14"), "pi");
    assert_int(get(root, "true"), 9);
    assert_null(toml_table_get(root, "missing"));
    // Key positions: the first character of each part.
    assert_pos(toml_table_key_pos(root, 3), 4, 1);
    assert_pos(toml_table_key_pos(get(root, "site"), 0), 7, 6);
    assert_pos(toml_table_key_pos(path(root, "a.b"), 0), 8, 8);
    // A table made by a dotted key sits where its part was written.
    assert_pos(toml_value_pos(get(root, "a")), 8, 1);
    assert_pos(toml_value_pos(path(root, "a.b")), 8, 5);
    toml_free(doc);
}

static void
test_key_with_nul(void **state)
{
    (void)state;
    toml_doc *doc = parse_ok("\"a\\u0000b\" = 1\n");
    const toml_value *root = toml_root(doc);
    size_t len;
    const char *k = toml_table_key(root, 0, &len);
    assert_int_equal(len, 3);
    assert_memory_equal(k, "a\0b", 3);
    // A NUL-terminated lookup sees only "a", which is not the key.
    assert_null(toml_table_get(root, "a"));
    toml_free(doc);
}

static void
test_table_headers(void **state)
{
    (void)state;
    toml_doc *doc = parse_ok("top = 0\n"
                             "[agent]\n"
                             "command = [\"x\"]\n"
                             "[agent.filesystem]\n"
                             "read = []\n"
                             "[ tool . git . filesystem ]   # spaced\n"
                             "read = [\"/a\"]\n"
                             "[tool.git]\n" // implicit above, defined here
                             "command = [\"git\"]\n"
                             "[\"quoted\".'lit']\n"
                             "k = 1\n"
                             "[a.b.c]\n"
                             "[a]\n"
                             "x = 1\n"
                             "[a.b]\n"
                             "y = 2\n"
                             "[fruit]\n"
                             "apple.color = \"red\"\n"
                             "apple.taste.sweet = true\n"
                             "[fruit.apple.texture]\n"
                             "smooth = true\n"
                             "[empty]\n");
    const toml_value *root = toml_root(doc);
    assert_key(root, 0, "top");
    assert_key(root, 1, "agent");
    assert_key(root, 2, "tool");
    assert_key(root, 3, "quoted");
    assert_key(root, 4, "a");
    assert_key(root, 5, "fruit");
    assert_key(root, 6, "empty");
    assert_str(toml_array_at(path(root, "agent.command"), 0), "x");
    assert_str(toml_array_at(path(root, "tool.git.filesystem.read"), 0), "/a");
    assert_str(toml_array_at(path(root, "tool.git.command"), 0), "git");
    assert_int(path(root, "quoted.lit.k"), 1);
    assert_int(path(root, "a.x"), 1);
    assert_int(path(root, "a.b.y"), 2);
    assert_int_equal(toml_value_kind(path(root, "a.b.c")), TOML_TABLE);
    assert_true(toml_bool(path(root, "fruit.apple.texture.smooth")));
    assert_true(toml_bool(path(root, "fruit.apple.taste.sweet")));
    assert_int_equal(toml_table_len(get(root, "empty")), 0);
    // A table defined by a header sits at its `[`, even when a deeper
    // header created it first.
    assert_pos(toml_value_pos(get(root, "agent")), 2, 1);
    assert_pos(toml_value_pos(path(root, "tool.git")), 8, 1);
    assert_pos(toml_value_pos(path(root, "tool.git.filesystem")), 6, 1);
    // Still implicit: where the header named it.
    assert_pos(toml_value_pos(get(root, "tool")), 6, 3);
    assert_pos(toml_value_pos(path(root, "a.b")), 15, 1);
    toml_free(doc);
}

static void
test_inline_tables(void **state)
{
    (void)state;
    toml_doc *doc = parse_ok(
        "env = { HOME = \"/h\", PATH = \"/usr/bin:/bin\" }\n"
        "empty = {}\n"
        "spaced = {   }\n"
        "nested = { a = { b = { c = 1 } }, d = [1, 2] }\n"
        "dotted = { x.y = 1, x.z = 2, \"q\" = 3 }\n"
        "multi = { list = [\n  1,\n  2,\n], s = \"\"\"a\nb\"\"\" }\n"
        "agent = { command = [\"node\"], filesystem = { read = [\"~\"] } }\n");
    const toml_value *root = toml_root(doc);
    const toml_value *env = get(root, "env");
    assert_int_equal(toml_value_kind(env), TOML_TABLE);
    assert_int_equal(toml_table_len(env), 2);
    assert_key(env, 0, "HOME");
    assert_key(env, 1, "PATH");
    assert_str(get(env, "PATH"), "/usr/bin:/bin");
    assert_pos(toml_value_pos(env), 1, 7);
    assert_pos(toml_table_key_pos(env, 1), 1, 22);
    assert_int_equal(toml_table_len(get(root, "empty")), 0);
    assert_int_equal(toml_table_len(get(root, "spaced")), 0);
    assert_int(path(root, "nested.a.b.c"), 1);
    assert_int(toml_array_at(path(root, "nested.d"), 1), 2);
    assert_int(path(root, "dotted.x.y"), 1);
    assert_int(path(root, "dotted.x.z"), 2);
    assert_int(path(root, "dotted.q"), 3);
    assert_int_equal(toml_array_len(path(root, "multi.list")), 2);
    assert_str(path(root, "multi.s"), "a\nb");
    assert_str(toml_array_at(path(root, "agent.filesystem.read"), 0), "~");
    toml_free(doc);
}

static void
test_arrays(void **state)
{
    (void)state;
    toml_doc *doc = parse_ok("empty = []\n"
                             "blank = [ \n\n ]\n"
                             "ints = [1, 2, 3]\n"
                             "trailing = [\"a\", \"b\",]\n"
                             "multi = [\n"
                             "  \"x\", # first\n"
                             "  # a comment line\n"
                             "  \"y\"\n"
                             "  ,\n"
                             "]\n"
                             "nested = [[1, 2], [\"a\", [true]], []]\n"
                             "mixed = [1, \"s\", false, {k = 1}, []]\n"
                             "crlf = [\r\n1,\r\n2\r\n]\n");
    const toml_value *root = toml_root(doc);
    assert_int_equal(toml_array_len(get(root, "empty")), 0);
    assert_int_equal(toml_array_len(get(root, "blank")), 0);
    const toml_value *ints = get(root, "ints");
    assert_int_equal(toml_value_kind(ints), TOML_ARRAY);
    assert_int_equal(toml_array_len(ints), 3);
    assert_int(toml_array_at(ints, 2), 3);
    assert_null(toml_array_at(ints, 3));
    assert_int_equal(toml_array_len(get(root, "trailing")), 2);
    const toml_value *multi = get(root, "multi");
    assert_int_equal(toml_array_len(multi), 2);
    assert_str(toml_array_at(multi, 1), "y");
    assert_pos(toml_value_pos(multi), 7, 9);
    assert_pos(toml_value_pos(toml_array_at(multi, 1)), 10, 3);
    const toml_value *nested = get(root, "nested");
    assert_int_equal(toml_array_len(nested), 3);
    const toml_value *inner = toml_array_at(toml_array_at(nested, 1), 1);
    assert_true(toml_bool(toml_array_at(inner, 0)));
    const toml_value *mixed = get(root, "mixed");
    assert_int_equal(toml_value_kind(toml_array_at(mixed, 3)), TOML_TABLE);
    assert_int(get(toml_array_at(mixed, 3), "k"), 1);
    assert_int_equal(toml_array_len(get(root, "crlf")), 2);
    toml_free(doc);
}

static void
test_basic_string_escapes(void **state)
{
    (void)state;
    toml_doc *doc =
        parse_ok("all = \"\\b\\t\\n\\f\\r\\\"\\\\\"\n"
                 "u = \"\\u00e9\\u20AC\\U0001F600\\U0000004a\"\n"
                 "edges = \"\\u0000\\uD7FF\\uE000\\U0010FFFF\"\n"
                 "tab = \"a\tb\"\n"
                 "utf8 = \"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"\n"
                 "hash = \"# not a comment\"\n"
                 "empty = \"\"\n");
    const toml_value *root = toml_root(doc);
    assert_str(get(root, "all"), "\b\t\n\f\r\"\\");
    assert_str(get(root, "u"), "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80J");
    size_t len;
    const char *s = toml_string(get(root, "edges"), &len);
    assert_int_equal(len, 1 + 3 + 3 + 4);
    assert_memory_equal(s, "\0\xED\x9F\xBF\xEE\x80\x80\xF4\x8F\xBF\xBF", len);
    assert_str(get(root, "tab"), "a\tb");
    assert_str(get(root, "utf8"), "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
    assert_str(get(root, "hash"), "# not a comment");
    assert_str(get(root, "empty"), "");
    toml_free(doc);
}

static void
test_literal_strings(void **state)
{
    (void)state;
    toml_doc *doc = parse_ok("win = 'C:\\Users\\me'\n"
                             "quoted = '<\"x\">'\n"
                             "regex = '\\d{2} \\u0041'\n"
                             "tab = 'a\tb'\n"
                             "empty = ''\n");
    const toml_value *root = toml_root(doc);
    assert_str(get(root, "win"), "C:\\Users\\me");
    assert_str(get(root, "quoted"), "<\"x\">");
    assert_str(get(root, "regex"), "\\d{2} \\u0041");
    assert_str(get(root, "tab"), "a\tb");
    assert_str(get(root, "empty"), "");
    toml_free(doc);
}

static void
test_multiline_basic_strings(void **state)
{
    (void)state;
    toml_doc *doc = parse_ok("trim = \"\"\"\nRoses\nViolets\"\"\"\n"
                             "keep = \"\"\"one\n\ntwo\n\"\"\"\n"
                             "fold = \"\"\"The quick \\\n\n"
                             "    brown \\   \n"
                             "      fox.\\\n"
                             "    \"\"\"\n"
                             "quotes = \"\"\"a \"b\" \"\"c\"\" \"\"\"\n"
                             "end1 = \"\"\"x\"\"\"\"\n"
                             "end2 = \"\"\"x\"\"\"\"\"\n"
                             "esc = \"\"\"\\t\\u00e9\\\"\"\"\"\"\n"
                             "crlf = \"\"\"\r\na\r\nb\"\"\"\n"
                             "empty = \"\"\"\"\"\"\n"
                             "tab = \"\"\"a\tb\"\"\"\n");
    const toml_value *root = toml_root(doc);
    assert_str(get(root, "trim"), "Roses\nViolets");
    assert_str(get(root, "keep"), "one\n\ntwo\n");
    assert_str(get(root, "fold"), "The quick brown fox.");
    assert_str(get(root, "quotes"), "a \"b\" \"\"c\"\" ");
    assert_str(get(root, "end1"), "x\"");
    assert_str(get(root, "end2"), "x\"\"");
    assert_str(get(root, "esc"), "\t\xC3\xA9\"\"");
    assert_str(get(root, "crlf"), "a\nb");
    assert_str(get(root, "empty"), "");
    assert_str(get(root, "tab"), "a\tb");
    assert_pos(toml_value_pos(get(root, "keep")), 4, 8);
    toml_free(doc);
}

static void
test_multiline_literal_strings(void **state)
{
    (void)state;
    toml_doc *doc = parse_ok("re = '''I [dw]on't need \\d{2} apples'''\n"
                             "lines = '''\n"
                             "The first newline is\n"
                             "trimmed in raw strings.\n"
                             "   All other whitespace\n"
                             "   is preserved.\\\n"
                             "'''\n"
                             "quotes = '''Here are fifteen quotation marks: "
                             "\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"'''\n"
                             "apos = ''''That,' she said.''''\n"
                             "apos2 = '''x'''''\n");
    const toml_value *root = toml_root(doc);
    assert_str(get(root, "re"), "I [dw]on't need \\d{2} apples");
    assert_str(get(root, "lines"), "The first newline is\n"
                                   "trimmed in raw strings.\n"
                                   "   All other whitespace\n"
                                   "   is preserved.\\\n");
    assert_str(get(root, "quotes"), "Here are fifteen quotation marks: "
                                    "\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"");
    assert_str(get(root, "apos"), "'That,' she said.'");
    assert_str(get(root, "apos2"), "x''");
    toml_free(doc);
}

static void
test_integers(void **state)
{
    (void)state;
    toml_doc *doc = parse_ok("a = 0\nb = +0\nc = -0\nd = 42\ne = +99\n"
                             "f = -17\ng = 1_000\nh = 5_349_221\ni = 1_2_3_4\n"
                             "max = 9223372036854775807\n"
                             "min = -9223372036854775808\n"
                             "hex = 0xDEADbeef\nhex2 = 0xdead_beef\n"
                             "hexmax = 0x7FFFFFFFFFFFFFFF\nhex0 = 0x00\n"
                             "oct = 0o01234567\noct2 = 0o755\n"
                             "bin = 0b11010110\nbin2 = 0b1_0\n"
                             "arr = [1,-2,+3]\n");
    const toml_value *root = toml_root(doc);
    assert_int(get(root, "a"), 0);
    assert_int(get(root, "b"), 0);
    assert_int(get(root, "c"), 0);
    assert_int(get(root, "d"), 42);
    assert_int(get(root, "e"), 99);
    assert_int(get(root, "f"), -17);
    assert_int(get(root, "g"), 1000);
    assert_int(get(root, "h"), 5349221);
    assert_int(get(root, "i"), 1234);
    assert_int(get(root, "max"), INT64_MAX);
    assert_int(get(root, "min"), INT64_MIN);
    assert_int(get(root, "hex"), 0xDEADBEEF);
    assert_int(get(root, "hex2"), 0xDEADBEEF);
    assert_int(get(root, "hexmax"), INT64_MAX);
    assert_int(get(root, "hex0"), 0);
    assert_int(get(root, "oct"), 01234567);
    assert_int(get(root, "oct2"), 0755);
    assert_int(get(root, "bin"), 214);
    assert_int(get(root, "bin2"), 2);
    assert_int(toml_array_at(get(root, "arr"), 1), -2);
    assert_pos(toml_value_pos(get(root, "f")), 6, 5);
    toml_free(doc);
}

static void
test_booleans(void **state)
{
    (void)state;
    toml_doc *doc = parse_ok("t = true\nf = false\nin = [true,false]\n"
                             "x = { y = true }\n");
    const toml_value *root = toml_root(doc);
    assert_int_equal(toml_value_kind(get(root, "t")), TOML_BOOL);
    assert_true(toml_bool(get(root, "t")));
    assert_false(toml_bool(get(root, "f")));
    assert_false(toml_bool(toml_array_at(get(root, "in"), 1)));
    assert_true(toml_bool(path(root, "x.y")));
    toml_free(doc);
}

static void
test_depth_at_the_limit(void **state)
{
    (void)state;
    char text[1024];
    // 64 nested arrays: the innermost sits at depth 64.
    int n = snprintf(text, sizeof(text), "a = ");
    for (int i = 0; i < TOML_MAX_DEPTH; i++)
        text[n++] = '[';
    for (int i = 0; i < TOML_MAX_DEPTH; i++)
        text[n++] = ']';
    text[n] = '\0';
    toml_free(parse_ok(text));
    // A header of 64 parts names a table at depth 64.
    n = snprintf(text, sizeof(text), "[k");
    for (int i = 1; i < TOML_MAX_DEPTH; i++)
        n += snprintf(text + n, sizeof(text) - (size_t)n, ".k");
    snprintf(text + n, sizeof(text) - (size_t)n, "]\nv = 1\n");
    toml_free(parse_ok(text));
}

static void
test_accessors_and_kinds(void **state)
{
    (void)state;
    toml_doc *doc = parse_ok("s = \"x\"\ni = 7\nb = true\na = [1]\nt = {}\n");
    const toml_value *root = toml_root(doc);
    const toml_value *s = get(root, "s"), *i = get(root, "i"),
                     *b = get(root, "b"), *a = get(root, "a"),
                     *t = get(root, "t");
    // Asking a value for another kind answers "nothing", never garbage.
    size_t len = 99;
    assert_null(toml_string(i, &len));
    assert_int_equal(len, 0);
    assert_null(toml_string(i, NULL));
    assert_string_equal(toml_string(s, NULL), "x");
    assert_true(toml_integer(s) == 0);
    assert_false(toml_bool(i));
    assert_int_equal(toml_table_len(a), 0);
    assert_null(toml_table_key(a, 0, NULL));
    assert_null(toml_table_at(a, 0));
    assert_null(toml_table_get(a, "x"));
    assert_pos(toml_table_key_pos(a, 0), 0, 0);
    assert_null(toml_table_key(root, 99, NULL));
    assert_null(toml_table_at(root, 99));
    assert_int_equal(toml_array_len(t), 0);
    assert_null(toml_array_at(t, 0));
    assert_null(toml_array_at(a, 1));
    assert_string_equal(toml_kind_name(toml_value_kind(t)), "table");
    assert_string_equal(toml_kind_name(toml_value_kind(a)), "array");
    assert_string_equal(toml_kind_name(toml_value_kind(s)), "string");
    assert_string_equal(toml_kind_name(toml_value_kind(i)), "integer");
    assert_string_equal(toml_kind_name(toml_value_kind(b)), "boolean");
    assert_string_equal(toml_kind_name((toml_kind)42), "unknown");
    toml_free(doc);
    toml_free(NULL);
}

static void
test_bad_arguments(void **state)
{
    (void)state;
    toml_doc *doc = (toml_doc *)&doc;
    char *err = (char *)&err;
    assert_int_equal(toml_parse(NULL, 0, &doc, &err), BOX_EINVAL);
    assert_null(doc);
    assert_null(err);
    assert_int_equal(toml_parse("a = 1", 5, NULL, &err), BOX_EINVAL);
    assert_int_equal(toml_parse("a = 1", 5, &doc, NULL), BOX_EINVAL);
    assert_null(doc);
}

static void
test_length_not_nul(void **state)
{
    (void)state;
    // The text is len bytes; what follows is not read.
    toml_doc *doc = parse_ok_len("a = 1\nb = garbage", 6);
    assert_int_equal(toml_table_len(toml_root(doc)), 1);
    toml_free(doc);
}

/* ---- errors: syntax ---- */

static void
test_errors_syntax(void **state)
{
    (void)state;
    static const bad_case cases[] = {
        {"= 1", "line 1, column 1: expected a key, found `=`"},
        {"a", "line 1, column 2: expected `=` after the key, found end of "
              "input"},
        {"a b = 1", "line 1, column 3: expected `=` after the key, found "
                    "`b`"},
        {"a = 1 b = 2",
         "line 1, column 7: expected the end of the line after a value, "
         "found `b`"},
        {"a = 1\n  b =", "line 2, column 6: expected a value, found end of "
                         "input"},
        {"a =\nb = 1", "line 1, column 4: expected a value, found a "
                       "newline"},
        {"a = # c", "line 1, column 5: expected a value, found `#`"},
        {"a = demo", "line 1, column 5: expected a value, found `demo` (a "
                     "string must be quoted)"},
        {"a = True", "line 1, column 5: expected a value, found `True` (a "
                     "string must be quoted)"},
        {"a = true1", "line 1, column 5: expected a value, found `true1` (a "
                      "string must be quoted)"},
        {"a = _1", "line 1, column 5: expected a value, found `_1` (a string "
                   "must be quoted)"},
        {"a = "
         "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
         "line 1, column 5: expected a value, found "
         "`xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...` (a string must be "
         "quoted)"},
        {"a = \x01", "line 1, column 5: expected a value, found U+0001"},
        // Cut short at the end of the text (found by fuzzing).
        {"a = +", "line 1, column 5: expected a value, found `+` (a string "
                  "must be quoted)"},
        {"a = -", "line 1, column 5: expected a value, found `-` (a string "
                  "must be quoted)"},
        {"a = 1", NULL},
        {"a = 0x", "line 1, column 5: invalid integer `0x`: no digits after "
                   "the prefix"},
        {"a = t", "line 1, column 5: expected a value, found `t` (a string "
                  "must be quoted)"},
        {"a = \"\\u00", "line 1, column 6: invalid escape `\\u`: it needs "
                        "exactly 4 hexadecimal digits"},
        {"a = \"\"\"x\"\"", "line 1, column 11: unterminated multi-line "
                            "string (it opens at line 1, column 5)"},
        {"a.= 1", "line 1, column 3: expected a key, found `=`"},
        {"a. = 1", "line 1, column 4: expected a key, found `=`"},
        {".a = 1", "line 1, column 1: expected a key, found `.`"},
        {"a..b = 1", "line 1, column 3: expected a key, found `.`"},
        {"k\xC3\xA9y = 1", "line 1, column 2: expected `=` after the key, "
                           "found `\xC3\xA9`"},
        {"`a` = 1", "line 1, column 1: expected a key, found a backtick"},
        {"[a] b = 1", "line 1, column 5: expected the end of the line after "
                      "a table header, found `b`"},
        {"[a", "line 1, column 3: expected `]` to close the table header "
               "opened at line 1, column 1, found end of input"},
        {"[a\nb]", "line 1, column 3: expected `]` to close the table header "
                   "opened at line 1, column 1, found a newline"},
        {"[]", "line 1, column 2: expected a key, found `]`"},
        {"[ ]", "line 1, column 3: expected a key, found `]`"},
        {"[a.]", "line 1, column 4: expected a key, found `]`"},
        {"[[a]]", "line 1, column 1: arrays of tables (`[[...]]`) are not "
                  "supported by box.toml"},
        {"x = 1\n\n  [[tool]]", "line 3, column 3: arrays of tables "
                                "(`[[...]]`) are not supported by box.toml"},
        {"a = 1\r", "line 1, column 6: a carriage return must be followed by "
                    "a line feed"},
        {"\ra = 1", "line 1, column 1: a carriage return must be followed by "
                    "a line feed"},
        {"a = 1 # x\ry",
         "line 1, column 10: control character U+000D is not allowed in a "
         "comment"},
        {"# bell \x07", "line 1, column 8: control character U+0007 is not "
                        "allowed in a comment"},
        {"# del \x7F", "line 1, column 7: control character U+007F is not "
                       "allowed in a comment"},
        {"a = 1 # ok\n# nul \x1F",
         "line 2, column 7: control character U+001F is not allowed in a "
         "comment"},
    };
    RUN_BAD(cases);
    // A NUL byte in the text is a control character like any other.
    expect_error_len("a = 1 # \0", 9, BOX_EPARSE,
                     "line 1, column 9: control character U+0000 is not "
                     "allowed in a comment");
    expect_error_len("\0", 1, BOX_EPARSE,
                     "line 1, column 1: expected a key, found U+0000");
}

static void
test_errors_arrays_inline_tables(void **state)
{
    (void)state;
    static const bad_case cases[] = {
        {"a = [1 2]", "line 1, column 8: expected `,` or `]` in the array "
                      "opened at line 1, column 5, found `2`"},
        {"a = [1,", "line 1, column 8: expected a value, found end of "
                    "input"},
        {"a = [1", "line 1, column 7: expected `,` or `]` in the array "
                   "opened at line 1, column 5, found end of input"},
        {"a = [\n  1,\n  2\n  3]",
         "line 4, column 3: expected `,` or `]` in the array opened at line "
         "1, column 5, found `3`"},
        {"a = [,]", "line 1, column 6: expected a value, found `,`"},
        {"a = [1,,2]", "line 1, column 8: expected a value, found `,`"},
        {"a = [1}", "line 1, column 7: expected `,` or `]` in the array "
                    "opened at line 1, column 5, found `}`"},
        {"a = [ # c \x01\n]", "line 1, column 11: control character U+0001 "
                              "is not allowed in a comment"},
        {"a = {", "line 1, column 6: expected a key, found end of input"},
        {"a = {b = 1", "line 1, column 11: expected `,` or `}` in the "
                       "inline table opened at line 1, column 5, found end "
                       "of input"},
        {"a = {b = 1 c = 2}",
         "line 1, column 12: expected `,` or `}` in the inline table opened "
         "at line 1, column 5, found `c`"},
        {"a = {b = 1,}", "line 1, column 12: a trailing comma is not allowed "
                         "in an inline table"},
        {"a = {b = 1, }", "line 1, column 13: a trailing comma is not "
                          "allowed in an inline table"},
        {"a = {,}", "line 1, column 6: expected a key, found `,`"},
        {"a = {\nb = 1}", "line 1, column 6: a newline is not allowed inside "
                          "an inline table (opened at line 1, column 5)"},
        {"a = {b = 1\n}", "line 1, column 11: a newline is not allowed inside "
                          "an inline table (opened at line 1, column 5)"},
        {"a = {b = 1,\nc = 2}",
         "line 1, column 12: a newline is not allowed inside an inline table "
         "(opened at line 1, column 5)"},
        {"a = {b = 1 # c\n}",
         "line 1, column 12: expected `,` or `}` in the inline table opened "
         "at line 1, column 5, found `#`"},
        {"a = {b}", "line 1, column 7: expected `=` after the key, found "
                    "`}`"},
    };
    RUN_BAD(cases);
}

/* ---- errors: strings ---- */

static void
test_errors_strings(void **state)
{
    (void)state;
    static const bad_case cases[] = {
        {"a = \"abc", "line 1, column 9: unterminated string (it opens at "
                      "line 1, column 5)"},
        {"a = \"abc\nd\"", "line 1, column 9: unterminated string (it opens "
                           "at line 1, column 5)"},
        {"a = 'abc", "line 1, column 9: unterminated literal string (it "
                     "opens at line 1, column 5)"},
        {"a = 'a\nb'", "line 1, column 7: unterminated literal string (it "
                       "opens at line 1, column 5)"},
        {"a = \"\"\"abc\n\"\"", "line 2, column 3: unterminated multi-line "
                                "string (it opens at line 1, column 5)"},
        {"a = '''abc\n", "line 2, column 1: unterminated multi-line literal "
                         "string (it opens at line 1, column 5)"},
        {"\"k", "line 1, column 3: unterminated string (it opens at line 1, "
                "column 1)"},
        {"a = \"\\q\"", "line 1, column 6: invalid escape `\\q` (write `\\\\` "
                        "for a backslash)"},
        {"a = \"\\x41\"", "line 1, column 6: invalid escape `\\x` (write "
                          "`\\\\` for a backslash)"},
        {"a = \"\\e\"", "line 1, column 6: invalid escape `\\e` (write `\\\\` "
                        "for a backslash)"},
        {"a = \"\\\xC3\xA9\"", "line 1, column 6: invalid escape `\\\xC3\xA9` "
                               "(write `\\\\` for a backslash)"},
        {"a = \"\\ \"", "line 1, column 6: invalid escape `\\ ` (write `\\\\` "
                        "for a backslash)"},
        {"a = \"a\\\nb\"", "line 1, column 7: invalid escape: a backslash "
                           "followed by a newline (write `\\\\` for a "
                           "backslash)"},
        {"a = \"\\", "line 1, column 7: expected an escape character, found "
                     "end of input"},
        {"a = \"\\u12\"", "line 1, column 6: invalid escape `\\u`: it needs "
                          "exactly 4 hexadecimal digits"},
        {"a = \"\\u12G4\"", "line 1, column 6: invalid escape `\\u`: it needs "
                            "exactly 4 hexadecimal digits"},
        {"a = \"\\U0001F60\"", "line 1, column 6: invalid escape `\\U`: it "
                               "needs exactly 8 hexadecimal digits"},
        {"a = \"\\uD800\"", "line 1, column 6: escape `\\uD800` names a "
                            "surrogate, which is not a Unicode scalar value"},
        {"a = \"\\udfff\"", "line 1, column 6: escape `\\udfff` names a "
                            "surrogate, which is not a Unicode scalar value"},
        {"a = \"\\U0000DC00\"", "line 1, column 6: escape `\\U0000DC00` names "
                                "a surrogate, which is not a Unicode scalar "
                                "value"},
        {"a = \"\\U00110000\"", "line 1, column 6: escape `\\U00110000` is "
                                "beyond U+10FFFF, the last Unicode code "
                                "point"},
        {"a = \"\\UFFFFFFFF\"", "line 1, column 6: escape `\\UFFFFFFFF` is "
                                "beyond U+10FFFF, the last Unicode code "
                                "point"},
        {"a = \"bell\x07\"", "line 1, column 10: control character U+0007 "
                             "must be escaped in a string"},
        {"a = \"del\x7F\"", "line 1, column 9: control character U+007F must "
                            "be escaped in a string"},
        {"a = 'esc\x1B'", "line 1, column 9: control character U+001B must "
                          "be escaped in a string"},
        {"a = \"\"\"x\x01\"\"\"", "line 1, column 9: control character U+0001 "
                                  "must be escaped in a string"},
        {"a = '''x\x0B'''", "line 1, column 9: control character U+000B "
                            "must be escaped in a string"},
        {"a = \"\"\"x\ry\"\"\"", "line 1, column 9: a carriage return must be "
                                 "followed by a line feed"},
        {"a = \"\"\"x \\  y\"\"\"", "line 1, column 10: invalid escape: a "
                                    "backslash followed by spaces must end "
                                    "the line"},
        {"a = \"\"\"x\"\"\"\"\"\"", "line 1, column 14: expected the end of "
                                    "the line after a value, found `\"`"},
        {"a = '''x''''''", "line 1, column 14: expected the end of the line "
                           "after a value, found `'`"},
        {"\"\"\"k\"\"\" = 1", "line 1, column 1: a multi-line string cannot "
                              "be a key"},
        {"'''k''' = 1", "line 1, column 1: a multi-line string cannot be a "
                        "key"},
        {"a = \"x\" \"y\"", "line 1, column 9: expected the end of the line "
                            "after a value, found `\"`"},
    };
    RUN_BAD(cases);
    expect_error_len("a = \"x\0\"", 8, BOX_EPARSE,
                     "line 1, column 7: control character U+0000 must be "
                     "escaped in a string");
}

/* ---- errors: numbers and refused kinds ---- */

static void
test_errors_numbers(void **state)
{
    (void)state;
    static const bad_case cases[] = {
        {"a = 1.5", "line 1, column 5: floats are not supported by box.toml"},
        {"a = -0.0", "line 1, column 5: floats are not supported by "
                     "box.toml"},
        {"a = 1e5", "line 1, column 5: floats are not supported by box.toml"},
        {"a = 6.626e-34", "line 1, column 5: floats are not supported by "
                          "box.toml"},
        {"a = 1_000.000_1", "line 1, column 5: floats are not supported by "
                            "box.toml"},
        {"a = 5E+22", "line 1, column 5: floats are not supported by "
                      "box.toml"},
        {"a = inf", "line 1, column 5: floats are not supported by box.toml"},
        {"a = +inf", "line 1, column 5: floats are not supported by "
                     "box.toml"},
        {"a = -nan", "line 1, column 5: floats are not supported by "
                     "box.toml"},
        {"a = [1, 2.5]", "line 1, column 9: floats are not supported by "
                         "box.toml"},
        {"a = 1979-05-27", "line 1, column 5: dates and times are not "
                           "supported by box.toml"},
        {"a = 1979-05-27T07:32:00Z", "line 1, column 5: dates and times are "
                                     "not supported by box.toml"},
        {"a = 1979-05-27 07:32:00", "line 1, column 5: dates and times are "
                                    "not supported by box.toml"},
        {"a = 07:32:00", "line 1, column 5: dates and times are not "
                         "supported by box.toml"},
        {"a = 1.2.3", "line 1, column 5: invalid integer `1.2.3`"},
        {"a = 1.", "line 1, column 5: invalid integer `1.`"},
        {"a = .5", "line 1, column 5: expected a value, found `.5` (a string "
                   "must be quoted)"},
        {"a = 01", "line 1, column 5: invalid integer `01`: leading zeros "
                   "are not allowed"},
        {"a = -01", "line 1, column 5: invalid integer `-01`: leading zeros "
                    "are not allowed"},
        {"a = 0_1", "line 1, column 5: invalid integer `0_1`: leading zeros "
                    "are not allowed"},
        {"a = 1__2", "line 1, column 5: invalid integer `1__2`: an underscore "
                     "must sit between two digits"},
        {"a = 1_", "line 1, column 5: invalid integer `1_`: an underscore "
                   "must sit between two digits"},
        {"a = 0x_1", "line 1, column 5: invalid integer `0x_1`: an "
                     "underscore must sit between two digits"},
        {"a = +", "line 1, column 5: expected a value, found `+` (a string "
                  "must be quoted)"},
        {"a = -_1", "line 1, column 5: expected a value, found `-_1` (a "
                    "string must be quoted)"},
        {"a = 12a", "line 1, column 5: invalid integer `12a`"},
        {"a = 0X1F", "line 1, column 5: invalid integer `0X1F`"},
        {"a = 0b102", "line 1, column 5: invalid integer `0b102`"},
        {"a = 0o8", "line 1, column 5: invalid integer `0o8`"},
        {"a = 0xG", "line 1, column 5: invalid integer `0xG`"},
        {"a = 0x", "line 1, column 5: invalid integer `0x`: no digits after "
                   "the prefix"},
        {"a = +0x1", "line 1, column 5: invalid integer `+0x1`: a "
                     "hexadecimal, octal or binary integer takes no sign"},
        {"a = -0b1", "line 1, column 5: invalid integer `-0b1`: a "
                     "hexadecimal, octal or binary integer takes no sign"},
        {"a = 9223372036854775808",
         "line 1, column 5: integer `9223372036854775808` is out of range for "
         "a 64-bit signed integer"},
        {"a = -9223372036854775809",
         "line 1, column 5: integer `-9223372036854775809` is out of range "
         "for a 64-bit signed integer"},
        {"a = 99999999999999999999999",
         "line 1, column 5: integer `99999999999999999999999` is out of range "
         "for a 64-bit signed integer"},
        {"a = 0x8000000000000000",
         "line 1, column 5: integer `0x8000000000000000` is out of range for "
         "a 64-bit signed integer"},
        {"a = 0o1000000000000000000000",
         "line 1, column 5: integer `0o1000000000000000000000` is out of "
         "range for a 64-bit signed integer"},
        {"a = 0b1000000000000000000000000000000000000000000000000000000000000"
         "000",
         "line 1, column 5: integer "
         "`0b10000000000000000000000000000000000000000000000000000000000000"
         "00` is out of range for a 64-bit signed integer"},
    };
    RUN_BAD(cases);
}

/* ---- errors: TOML's define-once rules ---- */

static void
test_errors_semantics(void **state)
{
    (void)state;
    static const bad_case cases[] = {
        // Duplicate keys.
        {"a = 1\na = 2", "line 2, column 1: duplicate key `a` (first defined "
                         "at line 1, column 1)"},
        {"a = 1\n\"a\" = 2", "line 2, column 1: duplicate key `a` (first "
                             "defined at line 1, column 1)"},
        {"'a b' = 1\n\"a b\" = 2", "line 2, column 1: duplicate key `\"a "
                                   "b\"` (first defined at line 1, column "
                                   "1)"},
        {"[t]\nx = 1\n  x = 2", "line 3, column 3: duplicate key `x` (first "
                                "defined at line 2, column 1)"},
        {"a = { b = 1, b = 2 }", "line 1, column 14: duplicate key `b` "
                                 "(first defined at line 1, column 7)"},
        {"a.b = 1\na.b = 2", "line 2, column 3: duplicate key `a.b` (first "
                             "defined at line 1, column 3)"},
        {"a.b = 1\na = 2", "line 2, column 1: duplicate key `a` (first "
                           "defined at line 1, column 1)"},
        {"[a.b]\n[a]\nb = 1", "line 3, column 1: duplicate key `b` (first "
                              "defined at line 1, column 4)"},
        {"\"\\u0000\" = 1\n\"\\u0000\" = 2",
         "line 2, column 1: duplicate key `\"\\u0000\"` (first defined at "
         "line 1, column 1)"},
        // A table defined twice, or by dotted keys and then a header.
        {"[a]\n[a]", "line 2, column 1: table `a` is defined twice (first at "
                     "line 1, column 1)"},
        {"[a.b]\nx = 1\n[a.b]", "line 3, column 1: table `a.b` is defined "
                                "twice (first at line 1, column 1)"},
        {"[a]\n[a.b]\n[a]", "line 3, column 1: table `a` is defined twice "
                            "(first at line 1, column 1)"},
        {"[a.b]\n[a]\n[a]", "line 3, column 1: table `a` is defined twice "
                            "(first at line 2, column 1)"},
        {"[tool.git]\ncommand = []\n[tool.git]",
         "line 3, column 1: table `tool.git` is defined twice (first at line "
         "1, column 1)"},
        {"a.b = 1\n[a]", "line 2, column 1: table `a` was already defined "
                         "with dotted keys at line 1, column 1, so a header "
                         "cannot define it again"},
        {"[fruit]\napple.color = \"red\"\n[fruit.apple]",
         "line 3, column 1: table `fruit.apple` was already defined with "
         "dotted keys at line 2, column 1, so a header cannot define it "
         "again"},
        {"[fruit]\napple.taste.sweet = true\n[fruit.apple.taste]",
         "line 3, column 1: table `fruit.apple.taste` was already defined "
         "with dotted keys at line 2, column 7, so a header cannot define it "
         "again"},
        {"[a.b.c]\n[a]\nb.d = 1\n[a.b]",
         "line 4, column 1: table `a.b` was already defined with dotted keys "
         "at line 3, column 1, so a header cannot define it again"},
        // Dotted keys cannot add to a table a header defined.
        {"[a.b]\nx = 1\n[a]\nb.y = 2",
         "line 4, column 1: table `b` was already defined by a header at "
         "line 1, column 1, so dotted keys here cannot add to it"},
        {"[a.b.c]\nz = 9\n[a]\nb.c.t = 1",
         "line 4, column 3: table `b.c` was already defined by a header at "
         "line 1, column 1, so dotted keys here cannot add to it"},
        // An inline table is complete when it closes.
        {"a = {x = 1}\na.y = 2", "line 2, column 1: `a` is an inline table "
                                 "(line 1, column 5), which cannot be "
                                 "extended after the fact"},
        {"a = {x = 1}\n[a]", "line 2, column 2: `a` is an inline table (line "
                             "1, column 5), which cannot be extended after "
                             "the fact"},
        {"a = {x = 1}\n[a.b]", "line 2, column 2: `a` is an inline table "
                               "(line 1, column 5), which cannot be extended "
                               "after the fact"},
        {"[agent]\nenv = { A = \"1\" }\n[agent.env]",
         "line 3, column 8: `agent.env` is an inline table (line 2, column "
         "7), which cannot be extended after the fact"},
        {"a = { b = { c = 1 }, b.d = 2 }",
         "line 1, column 22: `b` is an inline table (line 1, column 11), "
         "which cannot be extended after the fact"},
        {"a = {b.c = 1}\na.b.d = 2", "line 2, column 1: `a` is an inline "
                                     "table (line 1, column 5), which cannot "
                                     "be extended after the fact"},
        // A key is either a value or a table.
        {"a = 1\n[a]", "line 2, column 2: `a` is already an integer (line 1, "
                       "column 5), so it cannot also be a table"},
        {"a = 1\n[a.b]", "line 2, column 2: `a` is already an integer (line "
                         "1, column 5), so it cannot also be a table"},
        {"a = 1\na.b = 2", "line 2, column 1: `a` is already an integer "
                           "(line 1, column 5), so it cannot also be a "
                           "table"},
        {"a = \"s\"\na.b = 2", "line 2, column 1: `a` is already a string "
                               "(line 1, column 5), so it cannot also be a "
                               "table"},
        {"a = true\n[a]", "line 2, column 2: `a` is already a boolean (line "
                          "1, column 5), so it cannot also be a table"},
        {"a = [1]\n[a]", "line 2, column 2: `a` is already an array (line 1, "
                         "column 5), so it cannot also be a table"},
        {"a = [{x = 1}]\n[a.x]", "line 2, column 2: `a` is already an array "
                                 "(line 1, column 5), so it cannot also be a "
                                 "table"},
        {"[t]\na.b = 1\na.b.c = 2", "line 3, column 3: `a.b` is already an "
                                    "integer (line 2, column 7), so it "
                                    "cannot also be a table"},
    };
    RUN_BAD(cases);
}

/* ---- errors: limits and encoding ---- */

static void
test_errors_utf8(void **state)
{
    (void)state;
    static const bad_case cases[] = {
        {"a = \"\xFF\"", "line 1, column 6: invalid UTF-8 (byte 0xFF)"},
        {"a = 1\n# \xC3", "line 2, column 3: invalid UTF-8 (byte 0xC3)"},
        {"# \xC0\x80", "line 1, column 3: invalid UTF-8 (byte 0xC0)"},
        {"# \xE0\x80\x80", "line 1, column 3: invalid UTF-8 (byte 0xE0)"},
        {"# \xED\xA0\x80", "line 1, column 3: invalid UTF-8 (byte 0xED)"},
        {"# \xF4\x90\x80\x80", "line 1, column 3: invalid UTF-8 (byte "
                               "0xF4)"},
        {"# \xF5\x80\x80\x80", "line 1, column 3: invalid UTF-8 (byte "
                               "0xF5)"},
        {"# \x80", "line 1, column 3: invalid UTF-8 (byte 0x80)"},
        {"# \xE2\x82", "line 1, column 3: invalid UTF-8 (byte 0xE2)"},
        {"# \xE2\x82x", "line 1, column 3: invalid UTF-8 (byte 0xE2)"},
        // Columns count characters: two of three bytes each come first.
        {"# \xE2\x82\xAC\xE2\x82\xAC \xFF", "line 1, column 6: invalid UTF-8 "
                                            "(byte 0xFF)"},
        {"k = \"\xC3\xA9\xC3\xA9\" x", "line 1, column 10: expected the end "
                                       "of the line after a value, found "
                                       "`x`"},
    };
    RUN_BAD(cases);
}

static void
test_errors_limits(void **state)
{
    (void)state;
    size_t cap = TOML_MAX_INPUT + 64;
    char *text = box_alloc(cap);
    assert_non_null(text);
    int n;

    // Nesting: arrays, inline tables, headers, dotted keys.
    n = snprintf(text, cap, "a = ");
    for (int i = 0; i <= TOML_MAX_DEPTH; i++)
        text[n++] = '[';
    text[n] = '\0';
    expect_error(text, "line 1, column 69: nesting is deeper than 64 levels");

    n = snprintf(text, cap, "a = ");
    for (int i = 0; i <= TOML_MAX_DEPTH; i++)
        n += snprintf(text + n, cap - (size_t)n, "{b=");
    expect_error(text, "line 1, column 197: nesting is deeper than 64 "
                       "levels");

    n = snprintf(text, cap, "[k");
    for (int i = 0; i < TOML_MAX_DEPTH; i++)
        n += snprintf(text + n, cap - (size_t)n, ".k");
    snprintf(text + n, cap - (size_t)n, "]");
    expect_error(text, "line 1, column 130: a key has more than 64 parts, so "
                       "it nests deeper than 64 levels");

    n = snprintf(text, cap, "[k");
    for (int i = 1; i < TOML_MAX_DEPTH; i++)
        n += snprintf(text + n, cap - (size_t)n, ".k");
    snprintf(text + n, cap - (size_t)n, "]\nx.y = 1\n");
    expect_error(text, "line 2, column 1: nesting is deeper than 64 levels");

    n = snprintf(text, cap, "[k");
    for (int i = 1; i < TOML_MAX_DEPTH; i++)
        n += snprintf(text + n, cap - (size_t)n, ".k");
    snprintf(text + n, cap - (size_t)n, "]\nx = {}\n");
    expect_error(text, "line 2, column 5: nesting is deeper than 64 levels");

    // Elements and keys.
    n = snprintf(text, cap, "a = [");
    for (int i = 0; i < TOML_MAX_ARRAY_LEN; i++)
        n += snprintf(text + n, cap - (size_t)n, "1,");
    snprintf(text + n, cap - (size_t)n, "]");
    toml_free(parse_ok(text)); // exactly at the cap
    snprintf(text + n, cap - (size_t)n, "2]");
    expect_error(text, "line 1, column 8198: an array may hold at most 4096 "
                       "values");

    n = 0;
    for (int i = 0; i < TOML_MAX_TABLE_KEYS; i++)
        n += snprintf(text + n, cap - (size_t)n, "k%d = 1\n", i);
    toml_free(parse_ok(text));
    snprintf(text + n, cap - (size_t)n, "last = 1\n");
    expect_error(text, "line 4097, column 1: a table may hold at most 4096 "
                       "keys");

    // The input cap.
    memset(text, ' ', TOML_MAX_INPUT + 1);
    toml_free(parse_ok_len(text, TOML_MAX_INPUT));
    expect_error_len(text, TOML_MAX_INPUT + 1, BOX_ETOOBIG,
                     "line 1, column 1: the text is 1048577 bytes; at most "
                     "1048576 are accepted");

    // A long key is cut in messages, on a character boundary.
    n = snprintf(text, cap, "%s", "\"");
    for (int i = 0; i < 40; i++)
        n += snprintf(text + n, cap - (size_t)n, "\xC3\xA9");
    n += snprintf(text + n, cap - (size_t)n, "\" = 1\n");
    memcpy(text + n, text, (size_t)n);
    text[2 * n] = '\0';
    expect_error(text, "line 2, column 1: duplicate key "
                       "`\"\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9"
                       "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3"
                       "\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9"
                       "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3"
                       "\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9"
                       "...\"` (first defined at line 1, column 1)");
    box_free(text);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_comments_blank_lines),
        cmocka_unit_test(test_keys_bare_quoted_dotted),
        cmocka_unit_test(test_key_with_nul),
        cmocka_unit_test(test_table_headers),
        cmocka_unit_test(test_inline_tables),
        cmocka_unit_test(test_arrays),
        cmocka_unit_test(test_basic_string_escapes),
        cmocka_unit_test(test_literal_strings),
        cmocka_unit_test(test_multiline_basic_strings),
        cmocka_unit_test(test_multiline_literal_strings),
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_booleans),
        cmocka_unit_test(test_depth_at_the_limit),
        cmocka_unit_test(test_accessors_and_kinds),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_length_not_nul),
        cmocka_unit_test(test_errors_syntax),
        cmocka_unit_test(test_errors_arrays_inline_tables),
        cmocka_unit_test(test_errors_strings),
        cmocka_unit_test(test_errors_numbers),
        cmocka_unit_test(test_errors_semantics),
        cmocka_unit_test(test_errors_utf8),
        cmocka_unit_test(test_errors_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
