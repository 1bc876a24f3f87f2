/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for array storage (sh_array.c) and the variable caps (sh_state.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sh_array.h"
#include "sh_internal.h"

static void
test_indexed_sparse(void **state)
{
    (void)state;
    sh_array *a = sh_array_new(false);
    assert_non_null(a);
    assert_int_equal(sh_array_max_index(a), -1);
    assert_int_equal(sh_array_set(a, 7, "g", 1), BOX_OK);
    assert_int_equal(sh_array_set(a, 0, "a", 1), BOX_OK);
    assert_int_equal(sh_array_set(a, 3, "dd", 2), BOX_OK);
    assert_int_equal(sh_array_set(a, 3, "d", 1), BOX_OK); // replace
    assert_int_equal(sh_array_count(a), 3);
    assert_int_equal(sh_array_max_index(a), 7);
    assert_null(sh_array_get(a, 1));
    assert_string_equal(sh_array_get(a, 3), "d");
    assert_int_equal(sh_array_bytes(a), 3);
    // Listing order is index order.
    const char *key;
    long long idx;
    assert_string_equal(sh_array_at(a, 0, &key, &idx), "a");
    assert_null(key);
    assert_int_equal(idx, 0);
    assert_string_equal(sh_array_at(a, 2, &key, &idx), "g");
    assert_int_equal(idx, 7);
    sh_array_unset(a, 3);
    sh_array_unset(a, 4); // not set: nothing
    assert_int_equal(sh_array_count(a), 2);
    assert_int_equal(sh_array_bytes(a), 2);
    sh_array *d = sh_array_dup(a);
    assert_non_null(d);
    sh_array_free(a);
    assert_string_equal(sh_array_get(d, 7), "g");
    assert_false(sh_array_assoc(d));
    sh_array_free(d);
}

/* bash 5.2 lists `m[a]=1 m[b]=2 m[c]=3 m[foo]=4 m[bar]=5` as
 * c b a foo bar (FNV-1 buckets 380 381 382 531 544). */
static void
test_assoc_bash_order(void **state)
{
    (void)state;
    sh_array *m = sh_array_new(true);
    assert_non_null(m);
    const char *keys[] = {"a", "b", "c", "foo", "bar", "x y"};
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(sh_array_set_key(m, keys[i], "v", 1), BOX_OK);
    const char *want[] = {"c", "b", "a", "foo", "bar", "x y"};
    for (size_t i = 0; i < 6; i++) {
        const char *key;
        long long idx;
        (void)sh_array_at(m, i, &key, &idx);
        assert_string_equal(key, want[i]);
    }
    assert_int_equal(sh_array_set_key(m, "a", "new", 3), BOX_OK);
    assert_int_equal(sh_array_count(m), 6);
    assert_string_equal(sh_array_get_key(m, "a"), "new");
    assert_null(sh_array_get_key(m, "zz"));
    sh_array_unset_key(m, "foo");
    assert_null(sh_array_get_key(m, "foo"));
    assert_int_equal(sh_array_count(m), 5);
    // keys and values count toward the bytes
    assert_int_equal(sh_array_bytes(m), 1 + 1 + 1 + 3 + 3 + 1 + 1 + 1 + 3 + 1);
    sh_array_free(m);
}

/* Colliding keys: the newest first in its bucket, as bash's
 * hash_insert. "a" and a key in the same bucket found by search. */
static void
test_assoc_same_bucket(void **state)
{
    (void)state;
    sh_array *m = sh_array_new(true);
    char other[16] = "";
    // Find another key in bucket 382 (the bucket of "a").
    for (int i = 0; i < 100000 && other[0] == '\0'; i++) {
        char k[16];
        snprintf(k, sizeof k, "k%d", i);
        unsigned int h = 2166136261u;
        for (const char *s = k; *s; s++) {
            h *= 16777619u;
            h ^= (unsigned int)(int)*s;
        }
        if ((h & 1023u) == 382u)
            memcpy(other, k, sizeof k);
    }
    assert_true(other[0] != '\0');
    assert_int_equal(sh_array_set_key(m, "a", "1", 1), BOX_OK);
    assert_int_equal(sh_array_set_key(m, other, "2", 1), BOX_OK);
    const char *key;
    long long idx;
    (void)sh_array_at(m, 0, &key, &idx);
    assert_string_equal(key, other);
    (void)sh_array_at(m, 1, &key, &idx);
    assert_string_equal(key, "a");
    assert_string_equal(sh_array_get_key(m, "a"), "1");
    sh_array_free(m);
}

static void
test_element_cap(void **state)
{
    (void)state;
    sh_array *a = sh_array_new(false);
    for (long long i = 0; i < (long long)SH_ARRAY_MAX; i++)
        assert_int_equal(sh_array_set(a, i, "", 0), BOX_OK);
    assert_int_equal(sh_array_set(a, SH_ARRAY_MAX, "x", 1), BOX_ETOOBIG);
    assert_int_equal(sh_array_set(a, 5, "x", 1), BOX_OK); // replace: fine
    assert_int_equal(sh_array_count(a), SH_ARRAY_MAX);
    sh_array_free(a);
    sh_array *m = sh_array_new(true);
    for (unsigned i = 0; i < SH_ARRAY_MAX; i++) {
        char k[16];
        snprintf(k, sizeof k, "%u", i);
        assert_int_equal(sh_array_set_key(m, k, "", 0), BOX_OK);
    }
    assert_int_equal(sh_array_set_key(m, "one more", "", 0), BOX_ETOOBIG);
    sh_array_free(m);
}

/* The state: element sets make arrays, readonly refuses, the bytes cap
 * holds, and the accounting returns to zero. */
static void
test_state_vars(void **state)
{
    (void)state;
    sh_state *st = sh_state_new();
    assert_non_null(st);
    // FUNCNAME, BASH_LINENO, BASH_SOURCE and IFS, from the start
    size_t own = st->st_varbytes;
    assert_int_equal(own, strlen("FUNCNAME") + strlen("BASH_LINENO") +
                              strlen("BASH_SOURCE") + strlen("IFS") +
                              strlen(SH_IFS_DEFAULT));
    assert_int_equal(sh_var_set(st, "s", "abc", 3), BOX_OK);
    assert_int_equal(sh_var_set_elem(st, "s", 2, NULL, "z", 1), BOX_OK);
    sh_var *v = sh_var_find(st, "s");
    assert_non_null(v->v_arr); // the scalar became element 0
    assert_true(v->v_flags & SH_VAR_ARRAY);
    assert_string_equal(sh_var_get(st, "s"), "abc");
    assert_string_equal(sh_array_get(v->v_arr, 2), "z");
    assert_int_equal(sh_var_set(st, "s", "q", 1), BOX_OK); // element 0
    assert_string_equal(sh_array_get(v->v_arr, 0), "q");
    v->v_flags |= SH_VAR_READONLY;
    assert_int_equal(sh_var_set(st, "s", "w", 1), BOX_EDENIED);
    assert_int_equal(sh_var_set_elem(st, "s", 9, NULL, "w", 1), BOX_EDENIED);
    v->v_flags &= ~SH_VAR_READONLY;
    sh_state *d = sh_state_dup(st);
    assert_non_null(d);
    assert_string_equal(sh_array_get(sh_var_find(d, "s")->v_arr, 2), "z");
    assert_int_equal(d->st_varbytes, st->st_varbytes);
    sh_state_free(d);
    // 16 MiB in all: 17 values of 1 MiB do not fit.
    static char big[1u << 20];
    memset(big, 'x', sizeof big);
    box_err e = BOX_OK;
    int i = 0;
    for (; i < 17 && e == BOX_OK; i++)
        e = sh_var_set_elem(st, "big", i, NULL, big, sizeof big);
    assert_int_equal(e, BOX_ETOOBIG);
    assert_true(st->st_varbytes <= SH_VARS_MAX_BYTES);
    assert_int_equal(sh_var_set(st, "one", big, sizeof big), BOX_ETOOBIG);
    sh_var_unset(st, "big");
    assert_int_equal(sh_var_set(st, "one", big, sizeof big), BOX_OK);
    sh_var_unset(st, "one");
    sh_var_unset(st, "s");
    assert_int_equal(st->st_varbytes, own);
    sh_state_free(st);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_indexed_sparse),
        cmocka_unit_test(test_assoc_bash_order),
        cmocka_unit_test(test_assoc_same_bucket),
        cmocka_unit_test(test_element_cap),
        cmocka_unit_test(test_state_vars),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
