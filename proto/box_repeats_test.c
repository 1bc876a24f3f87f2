/* SPDX-License-Identifier: Apache-2.0 */
/* box_repeats: each distinct report kept once, the order of all of them
 * kept whole, and the fields protobuf-c reads back as they went in. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "box.pb-c.h"
#include "box_alloc.h"
#include "box_repeats.h"

#define TAG_REQUESTS 0x0a // ServedBatch.requests = 1
#define TAG_ORDER 0x12    // ServedBatch.order = 2

/* A packed request whose action is name, into buf; its length. */
static size_t
pack_req(const char *name, uint8_t *buf, size_t cap)
{
    Box__DecisionRequest q = BOX__DECISION_REQUEST__INIT;
    q.action = (char *)name;
    q.cached = 1;
    size_t n = box__decision_request__get_packed_size(&q);
    assert_true(n <= cap);
    return box__decision_request__pack(&q, buf);
}

static void
add_req(box_repeats *r, const char *name)
{
    uint8_t buf[256];
    size_t n = pack_req(name, buf, sizeof buf);
    assert_int_equal(box_repeats_add(r, buf, n), BOX_OK);
}

/* r's fields read back as a ServedBatch; the caller frees it. */
static Box__ServedBatch *
read_back(const box_repeats *r)
{
    box_buf b;
    box_buf_init(&b, 1u << 20);
    assert_int_equal(box_repeats_put_strings(r, &b, TAG_REQUESTS), BOX_OK);
    assert_int_equal(box_repeats_put_order(r, &b, TAG_ORDER), BOX_OK);
    assert_int_equal(b.b_len, box_repeats_put_size(r));
    Box__ServedBatch *sb = box__served_batch__unpack(
        NULL, b.b_len, (const uint8_t *)b.b_data);
    assert_non_null(sb);
    box_buf_reset(&b);
    return sb;
}

/* Repeats become indices, in the order they came; each distinct request
 * is sent once. */
static void
test_order(void **state)
{
    (void)state;
    box_repeats *r = box_repeats_new(16, 4096, 64);
    assert_non_null(r);
    static const char *const seq[] = {"[", "echo", "[", "[", "true", "echo"};
    for (size_t i = 0; i < 6; i++)
        add_req(r, seq[i]);
    assert_int_equal(box_repeats_entries(r), 6);
    assert_int_equal(box_repeats_distinct(r), 3);
    assert_true(box_repeats_any(r));
    Box__ServedBatch *sb = read_back(r);
    assert_int_equal(sb->n_requests, 3);
    assert_string_equal(sb->requests[0]->action, "[");
    assert_string_equal(sb->requests[1]->action, "echo");
    assert_string_equal(sb->requests[2]->action, "true");
    static const uint32_t want[] = {0, 1, 0, 0, 2, 1};
    assert_int_equal(sb->n_order, 6);
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(sb->order[i], want[i]);
    box__served_batch__free_unpacked(sb, NULL);
    box_repeats_free(r);
}

/* With nothing repeated the order goes unsaid: each request once, in
 * order, as before there was one. */
static void
test_no_repeat_no_order(void **state)
{
    (void)state;
    box_repeats *r = box_repeats_new(16, 4096, 64);
    assert_non_null(r);
    add_req(r, "a");
    add_req(r, "b");
    assert_false(box_repeats_any(r));
    Box__ServedBatch *sb = read_back(r);
    assert_int_equal(sb->n_requests, 2);
    assert_int_equal(sb->n_order, 0);
    box__served_batch__free_unpacked(sb, NULL);
    box_repeats_free(r);
}

/* A caller that knows an entry repeats a string names it by its index
 * (box_repeats_last): the same order as writing it again. */
static void
test_again(void **state)
{
    (void)state;
    box_repeats *r = box_repeats_new(16, 4096, 6);
    assert_non_null(r);
    add_req(r, "[");
    size_t bracket = box_repeats_last(r);
    add_req(r, "echo");
    size_t echo = box_repeats_last(r);
    add_req(r, "[");
    assert_int_equal(box_repeats_last(r), bracket);
    assert_int_equal(box_repeats_again(r, echo), BOX_OK);
    assert_int_equal(box_repeats_again(r, bracket), BOX_OK);
    assert_int_equal(box_repeats_again(r, 2), BOX_EINVAL); // no string 2
    assert_int_equal(box_repeats_entries(r), 5);
    assert_int_equal(box_repeats_again(r, echo), BOX_OK);
    assert_int_equal(box_repeats_again(r, echo), BOX_ETOOBIG); // order full
    Box__ServedBatch *sb = read_back(r);
    assert_int_equal(sb->n_requests, 2);
    static const uint32_t want[] = {0, 1, 0, 1, 0, 1};
    assert_int_equal(sb->n_order, 6);
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(sb->order[i], want[i]);
    box__served_batch__free_unpacked(sb, NULL);
    box_repeats_clear(r);
    assert_int_equal(box_repeats_again(r, bracket), BOX_EINVAL); // cleared
    box_repeats_free(r);
}

/* Each bound refuses whole (nothing kept) and says so; a full set of
 * distinct strings still takes repeats; clear makes room again. */
static void
test_limits(void **state)
{
    (void)state;
    uint8_t buf[256];
    assert_null(box_repeats_new(0, 10, 10));
    assert_null(box_repeats_new(5000, 10, 10));
    assert_null(box_repeats_new(4, 10, 70000));
    assert_null(box_repeats_new(4, 0, 10));

    box_repeats *r = box_repeats_new(2, 4096, 5);
    assert_non_null(r);
    add_req(r, "a");
    add_req(r, "b");
    size_t n = pack_req("c", buf, sizeof buf);
    assert_int_equal(box_repeats_add(r, buf, n), BOX_ETOOBIG);
    assert_int_equal(box_repeats_entries(r), 2);
    add_req(r, "a"); // a repeat needs no new slot
    add_req(r, "b");
    add_req(r, "a");
    n = pack_req("a", buf, sizeof buf);
    assert_int_equal(box_repeats_add(r, buf, n), BOX_ETOOBIG); // order full
    size_t room;
    assert_null(box_repeats_room(r, &room));
    assert_int_equal(box_repeats_entries(r), 5);
    box_repeats_clear(r);
    assert_int_equal(box_repeats_entries(r), 0);
    assert_int_equal(box_repeats_distinct(r), 0);
    add_req(r, "c");
    Box__ServedBatch *sb = read_back(r);
    assert_int_equal(sb->n_requests, 1);
    assert_string_equal(sb->requests[0]->action, "c");
    box__served_batch__free_unpacked(sb, NULL);
    box_repeats_free(r);

    // Bytes: a string over the room left is refused, nothing kept.
    r = box_repeats_new(8, 16, 8);
    assert_non_null(r);
    char big[32];
    memset(big, 'x', sizeof big);
    assert_int_equal(box_repeats_add(r, big, sizeof big), BOX_ETOOBIG);
    assert_int_equal(box_repeats_entries(r), 0);
    assert_int_equal(box_repeats_add(r, big, 16), BOX_OK);
    assert_null(box_repeats_room(r, &room)); // every byte used
    box_repeats_free(r);
}

/* Many entries over a few dozen distinct strings (indices past 127 take
 * two bytes): the order read back is the order added, and distinct
 * strings of the same hash bucket stay apart. */
static void
test_many(void **state)
{
    (void)state;
    box_repeats *r = box_repeats_new(300, 1u << 16, 4000);
    assert_non_null(r);
    uint32_t want[4000];
    uint64_t s = 88172645463325252ULL;
    size_t firsts[300], nfirst = 0;
    int seen[300];
    memset(seen, -1, sizeof seen);
    for (size_t k = 0; k < 4000; k++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        size_t v = (size_t)(s % 300);
        char name[16];
        snprintf(name, sizeof name, "c%zu", v);
        add_req(r, name);
        if (seen[v] < 0) {
            seen[v] = (int)nfirst;
            firsts[nfirst++] = v;
        }
        want[k] = (uint32_t)seen[v];
    }
    Box__ServedBatch *sb = read_back(r);
    assert_int_equal(sb->n_requests, nfirst);
    for (size_t i = 0; i < nfirst; i++) {
        char name[16];
        snprintf(name, sizeof name, "c%zu", firsts[i]);
        assert_string_equal(sb->requests[i]->action, name);
    }
    assert_int_equal(sb->n_order, 4000);
    for (size_t k = 0; k < 4000; k++)
        assert_int_equal(sb->order[k], want[k]);
    box__served_batch__free_unpacked(sb, NULL);
    box_repeats_free(r);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_no_repeat_no_order),
        cmocka_unit_test(test_again),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_many),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
