/* SPDX-License-Identifier: Apache-2.0 */
/* Test-only helpers: values from Cedar literal text, requests, files. */
#ifndef PDP_TEST_UTIL_H
#define PDP_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "box_arena.h"
#include "pdp_ast.h"
#include "pdp_eval.h"
#include "pdp_parse.h"
#include "pdp_policy.h"
#include "pdp_value.h"

/* A value written as a constant Cedar expression (literals, entities,
 * sets, records, negative numbers), built in arena a. */
static inline const pdp_value *
tv(box_arena *a, const char *text)
{
    char *src = box_asprintf("permit(principal, action, resource) when { %s };",
                             text);
    assert_non_null(src);
    box_buf err;
    box_buf_init(&err, 4096);
    const pdp_ast *ast = NULL;
    box_err rv = pdp_parse(src, strlen(src), "value", a, &ast, &err);
    if (rv != BOX_OK)
        fail_msg("tv(%s): %s", text, err.b_data);
    box_buf_reset(&err);
    box_free(src);
    const pdp_value *v = ast->as_rules[0]->r_conds[0].cd_body->x_const;
    if (v == NULL)
        fail_msg("tv(%s): not a constant", text);
    return v;
}

/* A clock a test sets by hand (pdp_live_new's clock, with the clock as
 * its argument). */
typedef struct pdp_test_clock {
    int64_t now;
} pdp_test_clock;

static inline int64_t
pdp_test_clock_read(void *arg)
{
    return ((pdp_test_clock *)arg)->now;
}

/* A policy set from text, as pdp_policy_load loads it (no schema); the
 * test fails when it does not load. */
static inline pdp_policy_set *
pdp_test_load(const char *text)
{
    pdp_policy_set *set = NULL;
    char *err = NULL;
    if (pdp_policy_load(text, strlen(text), "p.dw", &set, &err) != BOX_OK)
        fail_msg("%s", err);
    return set;
}

/* A request with principal/action/resource/context given as literals. */
static inline pdp_request
trq(box_arena *a, const char *principal, const char *action,
    const char *resource, const char *context, const char *restext)
{
    pdp_request rq;
    memset(&rq, 0, sizeof(rq)); // no history, no entity store
    rq.rq_principal = tv(a, principal);
    rq.rq_action = tv(a, action);
    rq.rq_resource = tv(a, resource);
    rq.rq_context = tv(a, context);
    rq.rq_resource_text = restext;
    rq.rq_resource_len = restext ? strlen(restext) : 0;
    return rq;
}

/* Reads BOX_SOURCE_DIR/rel (or ../rel from the build dir) into a
 * box_alloc'd buffer; NULL when absent. */
static inline char *
read_file_at(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    box_buf b;
    box_buf_init(&b, 1u << 24);
    char tmp[4096];
    size_t n;
    while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0) {
        if (box_buf_append(&b, tmp, n) != BOX_OK)
            break;
    }
    fclose(f);
    *len = b.b_len;
    return box_buf_take(&b);
}

static inline char *
source_path(const char *rel)
{
    const char *root = getenv("BOX_SOURCE_DIR");
    return box_asprintf("%s/%s", root ? root : "..", rel);
}

/* A Dogwood corpus case's policy (pdp/testdata/dogwood/FORMAT.md): all
 * its policy_*.dw joined with "\n", in name order; "" when none. The
 * caller frees it. */
static inline char *
pdp_test_case_policy(const char *dir, size_t *len)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    assert_true(n >= 0);
    box_buf b;
    box_buf_init(&b, 1u << 24);
    bool first = true;
    for (int i = 0; i < n; i++) {
        const char *nm = names[i]->d_name;
        size_t l = strlen(nm);
        if (strncmp(nm, "policy_", 7) == 0 && l > 3 &&
            strcmp(nm + l - 3, ".dw") == 0) {
            char *path = box_asprintf("%s/%s", dir, nm);
            size_t fl;
            char *text = read_file_at(path, &fl);
            assert_non_null(text);
            if (!first)
                assert_int_equal(box_buf_putc(&b, '\n'), BOX_OK);
            assert_int_equal(box_buf_append(&b, text, fl), BOX_OK);
            first = false;
            box_free(text);
            box_free(path);
        }
        free(names[i]); // lint: allow raw-alloc: scandir mallocs them
    }
    free(names); // lint: allow raw-alloc: scandir mallocs it
    if (b.b_data == NULL)
        assert_int_equal(box_buf_puts(&b, ""), BOX_OK);
    if (len != NULL)
        *len = b.b_len;
    return box_buf_take(&b);
}

#endif
