/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for gw_sigv4: AWS's published SigV4 vectors, S3's documented
 * examples, the scope a host names, and what the signer drops, keeps and
 * refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "gw_sigv4.h"

#define NELEM(a) (sizeof(a) / sizeof *(a))
#define FIELDS_MAX 8

/* The credential, clock and scope of AWS's SigV4 test suite
 * (aws-sig-v4-test-suite: 20150830T123600Z, us-east-1, "service"). */
#define SUITE_KEY "AKIDEXAMPLE"
#define SUITE_SECRET "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
#define SUITE_TIME ((time_t)1440938160)
#define SUITE_HOST "example.amazonaws.com"
#define SUITE_AUTH                                                             \
    "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/"      \
    "aws4_request, SignedHeaders="
// The suite's STS token (post-sts-header-*), and the token its
// get-vanilla-with-session-token case is signed with.
#define STS_TOKEN                                                              \
    "AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKW" \
    "HGBuFqwAeMicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM"  \
    "4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6"  \
    "fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC"  \
    "9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA=="
#define VANILLA_TOKEN                                                          \
    "6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267"

/* S3's worked examples (sig-v4-header-based-auth): examplebucket,
 * 20130524T000000Z, us-east-1. */
#define S3_KEY "AKIAIOSFODNN7EXAMPLE"
#define S3_SECRET "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
#define S3_TIME ((time_t)1369353600)
#define S3_HOST "examplebucket.s3.amazonaws.com"
#define EMPTY_SHA256                                                           \
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

/* One request as a vector gives it: fields as name/value pairs (a NULL
 * name ends them), the rest as gw_sigv4_req takes it. */
typedef struct vector {
    const char *v_name;
    const char *v_method;
    const char *v_path;
    const char *v_query;
    const char *v_fields[FIELDS_MAX][2];
    const char *v_body;
    const char *v_token;
    const char *v_auth; // the whole Authorization expected
} vector;

static gw_sigv4_req
req_of(const vector *v, gw_http_field *f, const char *host, time_t t,
       const char *key, const char *secret, const char *service)
{
    size_t n = 0;
    for (; n < FIELDS_MAX && v->v_fields[n][0] != NULL; n++)
        f[n] = (gw_http_field){v->v_fields[n][0], strlen(v->v_fields[n][0]),
                               v->v_fields[n][1], strlen(v->v_fields[n][1])};
    const char *body = v->v_body != NULL ? v->v_body : "";
    return (gw_sigv4_req){
        .sr_method = v->v_method,
        .sr_host = host,
        .sr_path = v->v_path,
        .sr_query = v->v_query,
        .sr_fields = f,
        .sr_nfields = n,
        .sr_payload = body,
        .sr_payload_len = strlen(body),
        .sr_time = t,
        .sr_key_id = key,
        .sr_secret = secret,
        .sr_token = v->v_token,
        .sr_service = service,
        .sr_region = "us-east-1",
    };
}

static const char *
set_value(const gw_sigv4_out *o, const char *name)
{
    for (size_t i = 0; i < o->so_nset; i++)
        if (strcasecmp(o->so_set[i].sh_name, name) == 0)
            return o->so_set[i].sh_value;
    return NULL;
}

#define H(n, v)                                                                \
    {                                                                          \
        n, v                                                                   \
    }
#define HOST_DATE H("Host", SUITE_HOST), H("X-Amz-Date", "20150830T123600Z")

/* AWS's SigV4 test suite: each case's request as its .req file has it and
 * the Authorization of its .authz file. get-header-value-multiline is not
 * here: it folds a value over lines, which the gateway refuses first.
 * (Kept out of clang-format: a vector a few lines, as the suite reads.) */
// clang-format off
static const vector suite[] = {
    {"get-vanilla", "GET", "/", NULL, {HOST_DATE}, NULL, NULL,
     SUITE_AUTH "host;x-amz-date, Signature="
                "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"},
    {"get-vanilla-empty-query-key", "GET", "/", "Param1=value1", {HOST_DATE},
     NULL, NULL,
     SUITE_AUTH "host;x-amz-date, Signature="
                "a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb"},
    {"get-vanilla-query-order-key", "GET", "/", "Param1=value2&Param1=Value1",
     {HOST_DATE}, NULL, NULL,
     SUITE_AUTH "host;x-amz-date, Signature="
                "eedbc4e291e521cf13422ffca22be7d2eb8146eecf653089df300a15b2382bd1"},
    {"get-vanilla-query-order-key-case", "GET", "/",
     "Param2=value2&Param1=value1", {HOST_DATE}, NULL, NULL,
     SUITE_AUTH "host;x-amz-date, Signature="
                "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"},
    {"get-vanilla-query-order-value", "GET", "/", "Param1=value2&Param1=value1",
     {HOST_DATE}, NULL, NULL,
     SUITE_AUTH "host;x-amz-date, Signature="
                "5772eed61e12b33fae39ee5e7012498b51d56abc0abb7c60486157bd471c4694"},
    {"get-vanilla-query-order-encoded", "GET", "/",
     "Param-3=Value3&Param=Value2&%E1%88%B4=Value1", {HOST_DATE}, NULL, NULL,
     SUITE_AUTH "host;x-amz-date, Signature="
                "371d3713e185cc334048618a97f809c9ffe339c62934c032af5a0e595648fcac"},
    {"get-vanilla-query-unreserved", "GET", "/",
     "-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz="
     "-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
     {HOST_DATE}, NULL, NULL,
     SUITE_AUTH "host;x-amz-date, Signature="
                "9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197"},
    {"get-vanilla-utf8-query", "GET", "/", "\xe1\x88\xb4=bar", {HOST_DATE},
     NULL, NULL,
     SUITE_AUTH "host;x-amz-date, Signature="
                "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04"},
    {"get-header-key-duplicate", "GET", "/", NULL,
     {H("Host", SUITE_HOST), H("My-Header1", "value2"),
      H("My-Header1", "value2"), H("My-Header1", "value1"),
      H("X-Amz-Date", "20150830T123600Z")},
     NULL, NULL,
     SUITE_AUTH "host;my-header1;x-amz-date, Signature="
                "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea"},
    {"get-header-value-order", "GET", "/", NULL,
     {H("Host", SUITE_HOST), H("My-Header1", "value4"),
      H("My-Header1", "value1"), H("My-Header1", "value3"),
      H("My-Header1", "value2"), H("X-Amz-Date", "20150830T123600Z")},
     NULL, NULL,
     SUITE_AUTH "host;my-header1;x-amz-date, Signature="
                "08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01"},
    {"get-header-value-trim", "GET", "/", NULL,
     {H("Host", SUITE_HOST), H("My-Header1", " value1"),
      H("My-Header2", " \"a   b   c\""), H("X-Amz-Date", "20150830T123600Z")},
     NULL, NULL,
     SUITE_AUTH "host;my-header1;my-header2;x-amz-date, Signature="
                "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"},
    {"get-unreserved", "GET",
     "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
     NULL, {HOST_DATE}, NULL, NULL,
     SUITE_AUTH "host;x-amz-date, Signature="
                "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f"},
    {"get-utf8", "GET", "/\xe1\x88\xb4", NULL, {HOST_DATE}, NULL, NULL,
     SUITE_AUTH "host;x-amz-date, Signature="
                "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85"},
    {"get-space", "GET", "/example space/", NULL, {HOST_DATE}, NULL, NULL,
     SUITE_AUTH "host;x-amz-date, Signature="
                "652487583200325589f1fba4c7e578f72c47cb61beeca81406b39ddec1366741"},
    {"get-relative", "GET", "/example/..", NULL, {HOST_DATE}, NULL, NULL,
     SUITE_AUTH "host;x-amz-date, Signature="
                "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"},
    {"get-relative-relative", "GET", "/example1/example2/../..", NULL,
     {HOST_DATE}, NULL, NULL,
     SUITE_AUTH "host;x-amz-date, Signature="
                "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"},
    {"get-slash", "GET", "//", NULL, {HOST_DATE}, NULL, NULL,
     SUITE_AUTH "host;x-amz-date, Signature="
                "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"},
    {"get-slash-dot-slash", "GET", "/./", NULL, {HOST_DATE}, NULL, NULL,
     SUITE_AUTH "host;x-amz-date, Signature="
                "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"},
    {"get-slash-pointless-dot", "GET", "/./example", NULL, {HOST_DATE}, NULL,
     NULL,
     SUITE_AUTH "host;x-amz-date, Signature="
                "ef75d96142cf21edca26f06005da7988e4f8dc83a165a80865db7089db637ec5"},
    {"get-slashes", "GET", "//example//", NULL, {HOST_DATE}, NULL, NULL,
     SUITE_AUTH "host;x-amz-date, Signature="
                "9a624bd73a37c9a373b5312afbebe7a714a789de108f0bdfe846570885f57e84"},
    {"post-vanilla", "POST", "/", NULL, {HOST_DATE}, NULL, NULL,
     SUITE_AUTH "host;x-amz-date, Signature="
                "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"},
    {"post-header-key-case", "POST", "/", NULL,
     {H("host", SUITE_HOST), H("x-amz-date", "20150830T123600Z")}, NULL, NULL,
     SUITE_AUTH "host;x-amz-date, Signature="
                "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"},
    {"post-header-key-sort", "POST", "/", NULL,
     {H("Host", SUITE_HOST), H("My-Header1", "value1"),
      H("X-Amz-Date", "20150830T123600Z")},
     NULL, NULL,
     SUITE_AUTH "host;my-header1;x-amz-date, Signature="
                "c5410059b04c1ee005303aed430f6e6645f61f4dc9e1461ec8f8916fdf18852c"},
    {"post-header-value-case", "POST", "/", NULL,
     {H("Host", SUITE_HOST), H("My-Header1", "VALUE1"),
      H("X-Amz-Date", "20150830T123600Z")},
     NULL, NULL,
     SUITE_AUTH "host;my-header1;x-amz-date, Signature="
                "cdbc9802e29d2942e5e10b5bccfdd67c5f22c7c4e8ae67b53629efa58b974b7d"},
    {"post-vanilla-query", "POST", "/", "Param1=value1", {HOST_DATE}, NULL,
     NULL,
     SUITE_AUTH "host;x-amz-date, Signature="
                "28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11"},
    // The suite signs content-type, not content-length, here (as the
    // signer does: the gateway frames the body itself).
    {"post-x-www-form-urlencoded", "POST", "/", NULL,
     {H("Content-Type", "application/x-www-form-urlencoded"),
      H("Host", SUITE_HOST), H("X-Amz-Date", "20150830T123600Z"),
      H("Content-Length", "13")},
     "Param1=value1", NULL,
     SUITE_AUTH "content-type;host;x-amz-date, Signature="
                "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a"},
    // The client's token header goes; the credential's is signed instead.
    {"post-sts-header-before", "POST", "/", NULL,
     {H("Host", SUITE_HOST), H("X-Amz-Date", "20150830T123600Z"),
      H("X-Amz-Security-Token", "placeholder")},
     NULL, STS_TOKEN,
     SUITE_AUTH "host;x-amz-date;x-amz-security-token, Signature="
                "85d96828115b5dc0cfc3bd16ad9e210dd772bbebba041836c64533a82be05ead"},
    {"get-vanilla-with-session-token", "GET", "/", NULL,
     {H("Host", SUITE_HOST)}, NULL, VANILLA_TOKEN,
     SUITE_AUTH "host;x-amz-date;x-amz-security-token, Signature="
                "07ec1639c89043aa0e3e2de82b96708f198cceab042d4a97044c66dd9f74e7f8"},
};
// clang-format on

static void
test_suite(void **state)
{
    (void)state;
    for (size_t i = 0; i < NELEM(suite); i++) {
        const vector *v = &suite[i];
        gw_http_field f[FIELDS_MAX];
        gw_sigv4_req rq = req_of(v, f, SUITE_HOST, SUITE_TIME, SUITE_KEY,
                                 SUITE_SECRET, "service");
        gw_sigv4_out o;
        const char *why = NULL;
        box_err rv = gw_sigv4_sign(&rq, &o, &why);
        if (rv != BOX_OK)
            fail_msg("%s: %s (%s)", v->v_name, box_strerror(rv), why);
        const char *auth = set_value(&o, "authorization");
        assert_non_null(auth);
        if (strcmp(auth, v->v_auth) != 0)
            fail_msg("%s:\n got  %s\n want %s\ncanonical request:\n%s",
                     v->v_name, auth, v->v_auth, o.so_creq);
        assert_string_equal(set_value(&o, "x-amz-date"), "20150830T123600Z");
        if (v->v_token != NULL)
            assert_string_equal(set_value(&o, "x-amz-security-token"),
                                v->v_token);
        else
            assert_null(set_value(&o, "x-amz-security-token"));
        // Not S3, and the client sent none: no x-amz-content-sha256.
        assert_null(set_value(&o, "x-amz-content-sha256"));
        gw_sigv4_out_free(&o);
    }
}

/* The canonical requests the suite gives, where the signer's own
 * choices show: trimming, double encoding, the header lists. */
static void
test_suite_canonical(void **state)
{
    (void)state;
    static const struct {
        size_t index;
        const char *creq;
    } cases[] = {
        {0, "GET\n/\n\nhost:example.amazonaws.com\n"
            "x-amz-date:20150830T123600Z\n\nhost;x-amz-date\n" EMPTY_SHA256},
        {10, "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value1\n"
             "my-header2:\"a b c\"\nx-amz-date:20150830T123600Z\n\n"
             "host;my-header1;my-header2;x-amz-date\n" EMPTY_SHA256},
        {13, "GET\n/example%20space/\n\nhost:example.amazonaws.com\n"
             "x-amz-date:20150830T123600Z\n\nhost;x-amz-date\n" EMPTY_SHA256},
        {5, "GET\n/\n%E1%88%B4=Value1&Param=Value2&Param-3=Value3\n"
            "host:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\n"
            "host;x-amz-date\n" EMPTY_SHA256},
    };
    for (size_t i = 0; i < NELEM(cases); i++) {
        const vector *v = &suite[cases[i].index];
        gw_http_field f[FIELDS_MAX];
        gw_sigv4_req rq = req_of(v, f, SUITE_HOST, SUITE_TIME, SUITE_KEY,
                                 SUITE_SECRET, "service");
        gw_sigv4_out o;
        const char *why = NULL;
        assert_int_equal(gw_sigv4_sign(&rq, &o, &why), BOX_OK);
        assert_string_equal(o.so_creq, cases[i].creq);
        gw_sigv4_out_free(&o);
    }
}

#define S3_AUTH                                                                \
    "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/"  \
    "aws4_request, SignedHeaders="

/* S3's documented examples (signed path as sent, x-amz-content-sha256
 * always). The GET object example is there twice: with the client's
 * x-amz-content-sha256 (kept, as it matches) and without (the signer adds
 * it). */
// clang-format off
static const vector s3_examples[] = {
    {"GET object", "GET", "/test.txt", NULL,
     {H("Host", S3_HOST), H("Range", "bytes=0-9"),
      H("x-amz-content-sha256", EMPTY_SHA256),
      H("x-amz-date", "20130524T000000Z")},
     NULL, NULL,
     S3_AUTH "host;range;x-amz-content-sha256;x-amz-date, Signature="
             "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"},
    {"GET object, no hash sent", "GET", "/test.txt", NULL,
     {H("Host", S3_HOST), H("Range", "bytes=0-9")}, NULL, NULL,
     S3_AUTH "host;range;x-amz-content-sha256;x-amz-date, Signature="
             "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"},
    {"PUT object", "PUT", "/test%24file.text", NULL,
     {H("Host", S3_HOST), H("Date", "Fri, 24 May 2013 00:00:00 GMT"),
      H("x-amz-storage-class", "REDUCED_REDUNDANCY")},
     "Welcome to Amazon S3.", NULL,
     S3_AUTH "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class,"
             " Signature="
             "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd"},
    {"GET bucket lifecycle", "GET", "/", "lifecycle", {H("Host", S3_HOST)},
     NULL, NULL,
     S3_AUTH "host;x-amz-content-sha256;x-amz-date, Signature="
             "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"},
    {"GET bucket (list objects)", "GET", "/", "max-keys=2&prefix=J",
     {H("Host", S3_HOST)}, NULL, NULL,
     S3_AUTH "host;x-amz-content-sha256;x-amz-date, Signature="
             "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"},
};
// clang-format on

static void
test_s3_examples(void **state)
{
    (void)state;
    for (size_t i = 0; i < NELEM(s3_examples); i++) {
        const vector *v = &s3_examples[i];
        gw_http_field f[FIELDS_MAX];
        gw_sigv4_req rq =
            req_of(v, f, S3_HOST, S3_TIME, S3_KEY, S3_SECRET, "s3");
        gw_sigv4_out o;
        const char *why = NULL;
        box_err rv = gw_sigv4_sign(&rq, &o, &why);
        if (rv != BOX_OK)
            fail_msg("%s: %s (%s)", v->v_name, box_strerror(rv), why);
        const char *auth = set_value(&o, "authorization");
        if (strcmp(auth, v->v_auth) != 0)
            fail_msg("%s:\n got  %s\n want %s\ncanonical request:\n%s",
                     v->v_name, auth, v->v_auth, o.so_creq);
        assert_string_equal(set_value(&o, "x-amz-date"), "20130524T000000Z");
        const char *want_hash =
            i == 2 ? "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b8"
                     "03f8b072"
                   : EMPTY_SHA256;
        assert_string_equal(set_value(&o, "x-amz-content-sha256"), want_hash);
        gw_sigv4_out_free(&o);
    }
}

/* ---- Scope -------------------------------------------------------------- */

static void
test_scope_table(void **state)
{
    (void)state;
    static const struct {
        const char *host;
        const char *service; // NULL: refused
        const char *region;
    } cases[] = {
        {"ec2.us-west-2.amazonaws.com", "ec2", "us-west-2"},
        {"sts.eu-west-1.amazonaws.com", "sts", "eu-west-1"},
        {"STS.EU-WEST-1.AMAZONAWS.COM", "sts", "eu-west-1"},
        {"dynamodb.us-gov-west-1.amazonaws.com", "dynamodb", "us-gov-west-1"},
        {"sts-fips.us-east-1.amazonaws.com", "sts", "us-east-1"},
        {"dynamodb-fips.us-east-2.amazonaws.com", "dynamodb", "us-east-2"},
        {"s3.amazonaws.com", "s3", "us-east-1"},
        {"examplebucket.s3.amazonaws.com", "s3", "us-east-1"},
        {"my.dotted.bucket.s3.amazonaws.com", "s3", "us-east-1"},
        {"bucket.s3.us-west-2.amazonaws.com", "s3", "us-west-2"},
        {"s3.us-west-2.amazonaws.com", "s3", "us-west-2"},
        {"bucket.s3-us-west-2.amazonaws.com", "s3", "us-west-2"},
        {"s3-eu-west-1.amazonaws.com", "s3", "eu-west-1"},
        {"s3-external-1.amazonaws.com", "s3", "us-east-1"},
        {"s3.dualstack.us-west-2.amazonaws.com", "s3", "us-west-2"},
        {"bucket.s3.dualstack.eu-central-1.amazonaws.com", "s3",
         "eu-central-1"},
        {"s3-fips.dualstack.us-east-1.amazonaws.com", "s3", "us-east-1"},
        {"ap-111122223333.s3-accesspoint.us-west-2.amazonaws.com", "s3",
         "us-west-2"},
        {"111122223333.s3-control.us-west-2.amazonaws.com", "s3", "us-west-2"},
        {"iam.amazonaws.com", "iam", "us-east-1"},
        {"sts.amazonaws.com", "sts", "us-east-1"},
        {"route53.amazonaws.com", "route53", "us-east-1"},
        {"email.eu-west-1.amazonaws.com", "ses", "eu-west-1"},
        {"bedrock-runtime.us-east-1.amazonaws.com", "bedrock", "us-east-1"},
        {"runtime.sagemaker.us-east-1.amazonaws.com", "sagemaker", "us-east-1"},
        {"api.ecr.ap-southeast-2.amazonaws.com", "ecr", "ap-southeast-2"},
        {"abc123.execute-api.us-east-1.amazonaws.com", "execute-api",
         "us-east-1"},
        {"search-dom-abc.eu-west-1.es.amazonaws.com", "es", "eu-west-1"},
        {"lambda.us-east-1.api.aws", "lambda", "us-east-1"},
        {"ec2-fips.us-east-1.api.aws", "ec2", "us-east-1"},
        {"s3.cn-north-1.amazonaws.com.cn", "s3", "cn-north-1"},
        {"bucket.s3.cn-northwest-1.amazonaws.com.cn", "s3", "cn-northwest-1"},
        {"sts.us-iso-east-1.amazonaws.com", "sts", "us-iso-east-1"},
        // Refused.
        {"example.com", NULL, NULL},
        {"amazonaws.com", NULL, NULL},
        {"evil-amazonaws.com", NULL, NULL},
        {"sts.us-east-1.amazonaws.com.evil.com", NULL, NULL},
        {"ec2.amazonaws.com", NULL, NULL},       // not a global service
        {"iam.amazonaws.com.cn", NULL, NULL},    // no global endpoints there
        {"lambda.api.aws", NULL, NULL},          // no region
        {"us-east-1.amazonaws.com", NULL, NULL}, // no service
        {"bucket.s3-accelerate.amazonaws.com", NULL, NULL},
        {"s3-accelerate.dualstack.amazonaws.com", NULL, NULL},
        {"mrap.accesspoint.s3-global.amazonaws.com", NULL, NULL},
        {"s3.cn-north-1.amazonaws.com", NULL, NULL}, // wrong partition
        {"s3.us-east-1.amazonaws.com.cn", NULL, NULL},
        {"sts..us-east-1.amazonaws.com", NULL, NULL},
        {"sts.us-east-1.amazonaws.com:443", NULL, NULL},
        {"", NULL, NULL},
    };
    for (size_t i = 0; i < NELEM(cases); i++) {
        char svc[GW_SIGV4_NAME_MAX], reg[GW_SIGV4_NAME_MAX];
        const char *why = NULL;
        box_err rv = gw_sigv4_scope(cases[i].host, svc, reg, &why);
        if (cases[i].service == NULL) {
            if (rv != BOX_EINVAL)
                fail_msg("%s: accepted as %s %s", cases[i].host, svc, reg);
            assert_non_null(why);
            assert_true(why[0] != '\0');
            continue;
        }
        if (rv != BOX_OK)
            fail_msg("%s: refused: %s", cases[i].host, why);
        if (strcmp(svc, cases[i].service) != 0 ||
            strcmp(reg, cases[i].region) != 0)
            fail_msg("%s: got %s %s, want %s %s", cases[i].host, svc, reg,
                     cases[i].service, cases[i].region);
    }
    // The reasons a user reads.
    char svc[GW_SIGV4_NAME_MAX], reg[GW_SIGV4_NAME_MAX];
    const char *why = NULL;
    assert_int_equal(gw_sigv4_scope("api.github.com", svc, reg, &why),
                     BOX_EINVAL);
    assert_string_equal(why, "not an AWS endpoint (*.amazonaws.com, "
                             "*.amazonaws.com.cn, *.api.aws)");
    assert_int_equal(
        gw_sigv4_scope("b.s3-accelerate.amazonaws.com", svc, reg, &why),
        BOX_EINVAL);
    assert_string_equal(why, "S3 Transfer Acceleration serves every region, "
                             "so its host names none to sign for");
}

/* ---- What the signer drops, keeps and signs ----------------------------- */

/* Signs fields (name/value pairs) for s3 or "service", with body. */
static box_err
sign_with(const char *const (*fields)[2], size_t n, const char *service,
          const char *path, const char *query, const char *body,
          gw_sigv4_out *o, const char **why)
{
    gw_http_field f[16];
    assert_true(n <= 16);
    for (size_t i = 0; i < n; i++)
        f[i] = (gw_http_field){fields[i][0], strlen(fields[i][0]), fields[i][1],
                               strlen(fields[i][1])};
    gw_sigv4_req rq = {
        .sr_method = "PUT",
        .sr_host = "bucket.s3.us-west-2.amazonaws.com",
        .sr_path = path,
        .sr_query = query,
        .sr_fields = f,
        .sr_nfields = n,
        .sr_payload = body,
        .sr_payload_len = strlen(body),
        .sr_time = SUITE_TIME,
        .sr_key_id = SUITE_KEY,
        .sr_secret = SUITE_SECRET,
        .sr_token = NULL,
        .sr_service = service,
        .sr_region = "us-west-2",
    };
    return gw_sigv4_sign(&rq, o, why);
}

static void
test_drops_and_signs(void **state)
{
    (void)state;
    static const char *const fields[][2] = {
        {"Host", "bucket.s3.us-west-2.amazonaws.com"},                // 0
        {"Authorization", "AWS4-HMAC-SHA256 Credential=PLACEHOLDER"}, // 1
        {"X-Amz-Date", "20200101T000000Z"},                           // 2
        {"X-Amz-Security-Token", "placeholder-token"},                // 3
        {"X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD"},                 // 4
        {"Connection", "close, X-Hop"},                               // 5
        {"X-Hop", "1"},                                               // 6
        {"Keep-Alive", "timeout=5"},                                  // 7
        {"Content-Type", "text/plain"},                               // 8
        {"Content-Length", "5"},                                      // 9
        {"User-Agent", "aws-cli/2"},                                  // 10
        {"Accept-Encoding", "gzip"},                                  // 11
        {"x-amz-meta-Color", "  blue   and  green "},                 // 12
        {"Content-MD5", "XUFAKrxLKna5cZ2REBfFkg=="},                  // 13
        {"Expect", "100-continue"},                                   // 14
        {"X-Amzn-Trace-Id", "Root=1-abc"},                            // 15
    };
    static const bool drop[] = {false, true,  true,  true,  true,  true,
                                true,  true,  false, false, false, false,
                                false, false, false, false};
    gw_sigv4_out o;
    const char *why = NULL;
    assert_int_equal(
        sign_with(fields, NELEM(fields), "s3", "/key", NULL, "hello", &o, &why),
        BOX_OK);
    for (size_t i = 0; i < NELEM(fields); i++)
        if (o.so_drop[i] != drop[i])
            fail_msg("%s: drop %d", fields[i][0], o.so_drop[i]);
    assert_non_null(
        strstr(set_value(&o, "authorization"),
               "SignedHeaders=content-md5;content-type;host;"
               "x-amz-content-sha256;x-amz-date;x-amz-meta-color, "));
    assert_non_null(strstr(set_value(&o, "authorization"),
                           "Credential=AKIDEXAMPLE/20150830/us-west-2/s3/"
                           "aws4_request, "));
    // The client said UNSIGNED-PAYLOAD: kept, and the body is not hashed.
    assert_string_equal(set_value(&o, "x-amz-content-sha256"),
                        "UNSIGNED-PAYLOAD");
    assert_null(set_value(&o, "x-amz-security-token"));
    assert_int_equal(o.so_nset, 3);
    assert_non_null(strstr(o.so_creq, "\nx-amz-meta-color:blue and green\n"));
    assert_non_null(strstr(o.so_creq, "\nhost:bucket.s3.us-west-2."
                                      "amazonaws.com\n"));
    const char *tail =
        o.so_creq + strlen(o.so_creq) - strlen("\nUNSIGNED-PAYLOAD");
    assert_string_equal(tail, "\nUNSIGNED-PAYLOAD");
    char *auth = box_strdup(set_value(&o, "authorization"));
    assert_non_null(auth);
    gw_sigv4_out_free(&o);
    assert_null(o.so_drop);
    assert_int_equal(o.so_nset, 0);

    // UNSIGNED-PAYLOAD: another body signs the same.
    assert_int_equal(sign_with(fields, NELEM(fields), "s3", "/key", NULL,
                               "other body", &o, &why),
                     BOX_OK);
    assert_string_equal(set_value(&o, "authorization"), auth);
    gw_sigv4_out_free(&o);
    box_free(auth);
}

static void
test_payload_hash(void **state)
{
    (void)state;
    // sha256("hello")
    static const char hello[] =
        "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";
    static const struct {
        const char *value; // the client's x-amz-content-sha256, or NULL
        const char *service;
        const char *sent; // what goes upstream; NULL: none, "!": refused
        const char *why;
    } cases[] = {
        {NULL, "s3", hello, NULL},
        {NULL, "sqs", NULL, NULL},
        {hello, "s3", hello, NULL},
        {hello, "sqs", hello, NULL},
        {"2CF24DBA5FB0A30E26E83B2AC5B9E29E1B161E5C1FA7425E73043362938B9824",
         "s3", hello, NULL},
        {" UNSIGNED-PAYLOAD ", "s3", "UNSIGNED-PAYLOAD", NULL},
        {"STREAMING-UNSIGNED-PAYLOAD-TRAILER", "s3",
         "STREAMING-UNSIGNED-PAYLOAD-TRAILER", NULL},
        {EMPTY_SHA256, "s3", "!",
         "x-amz-content-sha256 does not match the body"},
        {"STREAMING-AWS4-HMAC-SHA256-PAYLOAD", "s3", "!",
         "x-amz-content-sha256 asks for aws-chunked chunk signatures, which "
         "chain from the client's own key and cannot be signed again"},
        {"STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER", "s3", "!", NULL},
        {"unsigned-payload", "s3", "!",
         "x-amz-content-sha256 is neither a SHA-256 nor UNSIGNED-PAYLOAD"},
        {"zzf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
         "s3", "!",
         "x-amz-content-sha256 is neither a SHA-256 nor UNSIGNED-PAYLOAD"},
        {"", "s3", "!", NULL},
    };
    for (size_t i = 0; i < NELEM(cases); i++) {
        const char *const fields[][2] = {
            {"Host", "h"},
            {"x-amz-content-sha256", cases[i].value},
        };
        gw_sigv4_out o;
        const char *why = NULL;
        box_err rv = sign_with(fields, cases[i].value != NULL ? 2 : 1,
                               cases[i].service, "/k", NULL, "hello", &o, &why);
        if (strcmp(cases[i].sent != NULL ? cases[i].sent : "", "!") == 0) {
            if (rv != BOX_EINVAL)
                fail_msg("case %zu: not refused", i);
            assert_non_null(why);
            if (cases[i].why != NULL)
                assert_string_equal(why, cases[i].why);
            assert_int_equal(o.so_nset, 0);
            assert_null(o.so_creq);
            continue;
        }
        if (rv != BOX_OK)
            fail_msg("case %zu: %s", i, why);
        const char *v = set_value(&o, "x-amz-content-sha256");
        if (cases[i].sent == NULL)
            assert_null(v);
        else
            assert_string_equal(v, cases[i].sent);
        if (cases[i].value != NULL)
            assert_true(o.so_drop[1]);
        gw_sigv4_out_free(&o);
    }

    const char *const twice[][2] = {
        {"x-amz-content-sha256", hello},
        {"X-Amz-Content-Sha256", hello},
    };
    gw_sigv4_out o;
    const char *why = NULL;
    assert_int_equal(sign_with(twice, 2, "s3", "/k", NULL, "hello", &o, &why),
                     BOX_EINVAL);
    assert_string_equal(why, "the request sends x-amz-content-sha256 twice");
}

/* The canonical request's second and third lines for a path and query. */
static void
canon(const char *service, const char *path, const char *query,
      const char *want_path, const char *want_query)
{
    const char *const fields[][2] = {{"Host", "h"}};
    gw_sigv4_out o;
    const char *why = NULL;
    box_err rv = sign_with(fields, 1, service, path, query, "", &o, &why);
    if (rv != BOX_OK)
        fail_msg("%s ? %s: %s", path, query, why);
    char want[512];
    snprintf(want, sizeof want, "PUT\n%s\n%s\n", want_path, want_query);
    if (strncmp(o.so_creq, want, strlen(want)) != 0)
        fail_msg("%s ? %s:\n got  %s\n want %s", path, query, o.so_creq, want);
    gw_sigv4_out_free(&o);
}

static void
test_path_and_query(void **state)
{
    (void)state;
    // Other services encode the path as sent once more; S3 signs it as sent.
    canon("sqs", "/a%20b/c", NULL, "/a%2520b/c", "");
    canon("s3", "/a%20b/c", NULL, "/a%20b/c", "");
    canon("s3", "//a/./b/../", NULL, "//a/./b/../", "");
    canon("s3-object-lambda", "/a//b", NULL, "/a//b", "");
    canon("sqs", "/a/b/..", NULL, "/a/", "");
    canon("sqs", "/a/b/../../..", NULL, "/", "");
    canon("sqs", "/~user/x+y", NULL, "/~user/x%2By", "");
    // Queries are decoded, then encoded: one spelling, never twice.
    canon("sqs", "/", "b=%7e&a=x+y&a=%2b&c", "/", "a=%2B&a=x%2By&b=~&c=");
    canon("sqs", "/", "a=%7E", "/", "a=~");
    canon("sqs", "/", "x=%41%2f%2F", "/", "x=A%2F%2F");
    canon("sqs", "/", "&&a=1&&", "/", "a=1");
    canon("sqs", "/", "=v", "/", "=v");
    canon("sqs", "/", "a=b=c", "/", "a=b%3Dc");
    canon("sqs", "/", "k=%20", "/", "k=%20");
    canon("s3", "/", "uploads", "/", "uploads=");
    canon("s3", "/", "prefix=J&max-keys=2", "/", "max-keys=2&prefix=J");
    // Names sort before values: "a" < "a-b" although '=' > '-'.
    canon("sqs", "/", "a-b=1&a=2", "/", "a=2&a-b=1");
}

static void
test_refusals(void **state)
{
    (void)state;
    const char *const fields[][2] = {{"Host", "h"}};
    static const struct {
        const char *path;
        const char *query;
        const char *why;
    } cases[] = {
        {"/", "a=%zz",
         "the query has a '%' that is not followed by two hex digits"},
        {"/", "a=%4",
         "the query has a '%' that is not followed by two hex "
         "digits"},
        {"/", "%",
         "the query has a '%' that is not followed by two hex "
         "digits"},
        {"/", "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=abc",
         "the query carries its own signature (X-Amz-Signature): a presigned "
         "request is not signed again"},
        {"/", "x-amz-signature=abc",
         "the query carries its own signature (X-Amz-Signature): a presigned "
         "request is not signed again"},
        {"no-slash", NULL, NULL},
        {"/a\nb", NULL, NULL},
        {"/", "a=\r", NULL},
    };
    for (size_t i = 0; i < NELEM(cases); i++) {
        gw_sigv4_out o;
        const char *why = NULL;
        assert_int_equal(sign_with(fields, 1, "sqs", cases[i].path,
                                   cases[i].query, "", &o, &why),
                         BOX_EINVAL);
        assert_non_null(why);
        if (cases[i].why != NULL)
            assert_string_equal(why, cases[i].why);
        assert_null(o.so_creq);
    }

    // The credential and scope.
    gw_http_field f = {"Host", 4, "h", 1};
    gw_sigv4_req good = {
        .sr_method = "GET",
        .sr_host = "h",
        .sr_path = "/",
        .sr_fields = &f,
        .sr_nfields = 1,
        .sr_time = SUITE_TIME,
        .sr_key_id = SUITE_KEY,
        .sr_secret = SUITE_SECRET,
        .sr_service = "sqs",
        .sr_region = "us-east-1",
    };
    gw_sigv4_req bad[10];
    for (size_t i = 0; i < NELEM(bad); i++)
        bad[i] = good;
    bad[0].sr_key_id = "AKID/EXAMPLE";
    bad[1].sr_key_id = "";
    bad[2].sr_secret = "";
    bad[3].sr_token = "tok\r\nX-Injected: 1";
    bad[4].sr_token = "";
    bad[5].sr_service = "S3";
    bad[6].sr_region = "us-east-1\n";
    bad[7].sr_host = "h\r\n";
    bad[8].sr_method = "";
    bad[9].sr_payload_len = 3; // and no payload
    for (size_t i = 0; i < NELEM(bad); i++) {
        gw_sigv4_out o;
        const char *why = NULL;
        if (gw_sigv4_sign(&bad[i], &o, &why) != BOX_EINVAL)
            fail_msg("bad[%zu] signed", i);
        assert_non_null(why);
    }
    gw_sigv4_out o;
    const char *why = NULL;
    assert_int_equal(gw_sigv4_sign(&good, &o, &why), BOX_OK);
    gw_sigv4_out_free(&o);
}

/* Every allocation the signer makes, failed in turn: BOX_ENOMEM with an
 * empty output each time (the sanitizer build finds what leaks), then the
 * same signature as an undisturbed run. */
static void
test_nomem(void **state)
{
    (void)state;
    const vector *v = &suite[NELEM(suite) - 2]; // post-sts-header-before
    gw_http_field f[FIELDS_MAX];
    gw_sigv4_req rq = req_of(v, f, SUITE_HOST, SUITE_TIME, SUITE_KEY,
                             SUITE_SECRET, "service");
    rq.sr_query = "b=2&a=1";
    gw_sigv4_out want;
    const char *why = NULL;
    assert_int_equal(gw_sigv4_sign(&rq, &want, &why), BOX_OK);
    for (unsigned long n = 1;; n++) {
        gw_sigv4_out o;
        box_alloc_fail_after(n);
        box_err rv = gw_sigv4_sign(&rq, &o, &why);
        unsigned long calls = box_alloc_calls();
        box_alloc_fail_off();
        if (calls < n) {
            assert_int_equal(rv, BOX_OK);
            assert_string_equal(set_value(&o, "authorization"),
                                set_value(&want, "authorization"));
            gw_sigv4_out_free(&o);
            break;
        }
        assert_int_equal(rv, BOX_ENOMEM);
        assert_int_equal(o.so_nset, 0);
        assert_null(o.so_drop);
        assert_null(o.so_creq);
    }
    gw_sigv4_out_free(&want);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_suite),
        cmocka_unit_test(test_suite_canonical),
        cmocka_unit_test(test_s3_examples),
        cmocka_unit_test(test_scope_table),
        cmocka_unit_test(test_drops_and_signs),
        cmocka_unit_test(test_payload_hash),
        cmocka_unit_test(test_path_and_query),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_nomem),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
