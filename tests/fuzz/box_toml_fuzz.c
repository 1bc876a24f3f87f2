/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target box_toml: the TOML parser and the box.toml loader. */
#include <string.h>

#include "box_alloc.h"
#include "box_fuzz.h"
#include "config.h"
#include "toml.h"

/*
 * The input is a box.toml. It is parsed as TOML (toml_parse) and every
 * value of the document is visited through the accessors; then it is
 * loaded as box.toml (box_config_parse: decoding and every rule that needs
 * no filesystem) and every field of the result is read.
 *
 * Invariants checked: a parse gives a document or a message, never both;
 * keys and strings are NUL-terminated at their length; a key is found
 * again by name (keys in a table are unique) unless it holds a NUL; every
 * loaded process has a command whose first word is not empty, its lists
 * end in NULL, and each tool is found again by its label.
 */

#define FZ_CONFIG_PATH "/home/op/boxes/demo/box.toml"

static void
fz_visit(const toml_value *v, unsigned depth)
{
    size_t len = 0;
    if (depth > TOML_MAX_DEPTH + 1)
        box_fuzz_fail("a document nested past TOML_MAX_DEPTH");
    toml_pos pos = toml_value_pos(v);
    if (pos.line == 0 || pos.column == 0)
        box_fuzz_fail("a position that is not 1-based");
    (void)toml_kind_name(toml_value_kind(v));
    switch (toml_value_kind(v)) {
    case TOML_TABLE:
        for (size_t i = 0; i < toml_table_len(v); i++) {
            const char *k = toml_table_key(v, i, &len);
            const toml_value *e = toml_table_at(v, i);
            if (k == NULL || e == NULL || k[len] != '\0')
                box_fuzz_fail("a key that is not a NUL-terminated string");
            if (strlen(k) == len && toml_table_get(v, k) != e)
                box_fuzz_fail("a key not found again by its name");
            (void)toml_table_key_pos(v, i);
            fz_visit(e, depth + 1);
        }
        break;
    case TOML_ARRAY:
        for (size_t i = 0; i < toml_array_len(v); i++) {
            const toml_value *e = toml_array_at(v, i);
            if (e == NULL)
                box_fuzz_fail("an array with a hole");
            fz_visit(e, depth + 1);
        }
        break;
    case TOML_STRING: {
        const char *s = toml_string(v, &len);
        if (s == NULL || s[len] != '\0')
            box_fuzz_fail("a string that is not NUL-terminated");
        break;
    }
    case TOML_INTEGER:
        (void)toml_integer(v);
        break;
    case TOML_BOOL:
        (void)toml_bool(v);
        break;
    }
}

static void
fz_strv(const box_config_strv *sv)
{
    for (size_t i = 0; i < sv->sv_len; i++)
        if (sv->sv_items[i] == NULL)
            box_fuzz_fail("a list with a hole");
    if (sv->sv_items != NULL && sv->sv_items[sv->sv_len] != NULL)
        box_fuzz_fail("a list not ended by NULL");
}

static void
fz_process(const box_config_process *p)
{
    if (p->pr_table == NULL || p->pr_command.sv_len == 0 ||
        p->pr_command.sv_items[0][0] == '\0')
        box_fuzz_fail("a process without a command");
    fz_strv(&p->pr_command);
    if (p->pr_workspace != NULL && p->pr_workspace[0] != '/')
        box_fuzz_fail("a workspace that is not absolute");
    for (size_t i = 0; i < p->pr_nenv; i++)
        if (p->pr_env[i].ev_name == NULL || p->pr_env[i].ev_value == NULL)
            box_fuzz_fail("an environment entry with no name or value");
    for (int g = 0; g < BOX_GRANT_COUNT; g++) {
        (void)box_config_grant_key((box_config_grant)g);
        fz_strv(&p->pr_fs[g]);
    }
}

static void
fz_config(const box_config *c)
{
    if (box_config_path(c) == NULL || box_config_name(c) == NULL ||
        box_config_box_dir(c) == NULL || box_config_box_dir(c)[0] != '/')
        box_fuzz_fail("a config without path, name or absolute box_dir");
    const char *policy = box_config_policy(c);
    if (policy != NULL && policy[0] != '/')
        box_fuzz_fail("a policy path that is not absolute");
    if (box_config_agent(c) != NULL)
        fz_process(box_config_agent(c));
    for (size_t i = 0; i < box_config_tool_count(c); i++) {
        const box_config_process *t = box_config_tool(c, i);
        fz_process(t);
        if (t->pr_label == NULL || box_config_tool_find(c, t->pr_label) != t)
            box_fuzz_fail("a tool not found again by its label");
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    toml_doc *doc = NULL;
    box_config *c = NULL;
    char *err = NULL;

    box_err rv = toml_parse(text, size, &doc, &err);
    if ((rv == BOX_OK) != (doc != NULL) || (doc != NULL && err != NULL) ||
        (rv != BOX_OK && rv != BOX_ENOMEM && err == NULL))
        box_fuzz_fail("toml_parse: document and message disagree with rv");
    if (doc != NULL)
        fz_visit(toml_root(doc), 0);
    toml_free(doc);
    box_free(err);
    err = NULL;

    rv = box_config_parse(text, size, FZ_CONFIG_PATH, &c, &err);
    if ((rv == BOX_OK) != (c != NULL) || (c != NULL && err != NULL) ||
        (rv != BOX_OK && rv != BOX_ENOMEM && err == NULL))
        box_fuzz_fail("box_config_parse: config and message disagree with rv");
    if (c != NULL)
        fz_config(c);
    box_config_free(c);
    box_free(err);
    return 0;
}
