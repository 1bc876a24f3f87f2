/* SPDX-License-Identifier: Apache-2.0 */
/* `box policy eval`: one request decided against a policy file, after an
 * optional history. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "box_cmd.h"
#include "box_policy_ask.h"
#include "box_policy_verbs.h"
#include "pdp_policy_file.h"
#include "pdp_trace.h"

#define EVAL_ARENA_MAX ((size_t)256 << 20) // the request's values

static const char eval_usage[] =
    "usage: box policy eval --policy FILE --request R.json [--history TRACE]\n"
    "                       [--explain] [--json] [--home DIR]\n"
    "                       [--schema SCHEMA | --dogwood]\n"
    "\n"
    "Decides one request against the policy FILE and prints the decision\n"
    "(allow or deny), Box's reason class, the rules that determined it (by\n"
    "@id, else policy_<i>), the message the agent would get, and every\n"
    "evaluation error; `cedar:` shows plain Cedar's verdict when Box's error\n"
    "rule changed it. --explain adds `why:`, each rule that matched or\n"
    "errored and why. --json prints the same as one JSON object:\n"
    "  {\"decision\": \"allow\"|\"deny\", \"reason\": \"Permitted\"|\"Forbidden\"|\n"
    "   \"NoMatch\"|\"InternalFault\", \"cedar\": \"allow\"|\"deny\",\n"
    "   \"rules\": [ID, ...], \"message\": \"...\",\n"
    "   \"errors\": [{\"rule\": ID or null, \"message\": \"...\"}, ...],\n"
    "   \"history\": N, \"time_point\": K, \"ts\": T,     (with --history)\n"
    "   \"why\": [{\"rule\": ID, \"policy\": \"policy_<i>\", \"effect\":\n"
    "            \"permit\"|\"forbid\", \"line\": L, \"result\": \"matched\"|\n"
    "            \"error\", \"message\": \"...\"}, ...]}   (with --explain)\n"
    "\n"
    "FILE loads as box-pdp loads it: the Box action schema, strict\n"
    "validation and the spelling checks (--home names the operator home,\n"
    "default $HOME); a request that does not fit the schema is then an\n"
    "InternalFault deny, as in a box. --schema loads it the same way\n"
    "against the action schema SCHEMA (Cedar's human-readable form) instead\n"
    "of Box's; --dogwood loads it as `box policy replay` does: no action\n"
    "schema, any actions, requests not validated.\n"
    "\n"
    "R.json is one JSON object:\n"
    "  {\"principal\": UID,       default Box::Agent::\"self\"\n"
    "   \"action\": UID,          required\n"
    "   \"resource\": UID,        default Box::Resource::\"unused\"\n"
    "   \"context\": {...},       default {}; a box's is {\"input\": {...}}\n"
    "   \"resource_text\": \"..\",  what the message names (a shell:exec's\n"
    "                           program, an fs:* path); default none\n"
    "   \"entities\": [...],      Cedar's JSON entities: {\"uid\": UID,\n"
    "                           \"attrs\": {}, \"parents\": [UID], \"tags\": {}};\n"
    "                           default none, as in a box\n"
    "   \"ts\": N}                seconds, for --history; default the time\n"
    "                           of its last event\n"
    "UID is \"Ns::Type::\\\"id\\\"\" or {\"type\": \"Ns::Type\", \"id\": \"id\"}.\n"
    "Values are Cedar's JSON: strings, integers, true/false, arrays (sets),\n"
    "objects (records), {\"__entity\": {\"type\": T, \"id\": I}} and\n"
    "{\"__extn\": {\"fn\": \"decimal\"|\"ip\"|\"datetime\"|\"duration\",\n"
    "\"arg\": \"...\"}}.\n"
    "\n"
    "With --history TRACE (the trace format `box policy replay` reads) the\n"
    "request is appended to those events as a `request` event and decided\n"
    "there, as if it arrived after them; without, after an empty history,\n"
    "as in a fresh box.\n"
    "\n"
    "Exits 0 when the request is decided (allow or deny), 2 when the\n"
    "policy, the request or the trace does not check, 1 on a usage or read\n"
    "error.\n";

typedef struct eval_args {
    const char *ea_policy, *ea_request, *ea_history, *ea_home, *ea_schema;
    bool ea_explain, ea_json, ea_dogwood;
} eval_args;

/* BOX_POLICY_OK, or the status to exit with (the usage printed). */
static int
eval_parse_args(int argc, char **argv, eval_args *a)
{
    a->ea_home = getenv("HOME");
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        bool more = i + 1 < argc;
        if (strcmp(s, "--help") == 0) {
            fputs(eval_usage, stdout);
            return -1;
        } else if (strcmp(s, "--policy") == 0 && more) {
            a->ea_policy = argv[++i];
        } else if (strcmp(s, "--request") == 0 && more) {
            a->ea_request = argv[++i];
        } else if (strcmp(s, "--history") == 0 && more) {
            a->ea_history = argv[++i];
        } else if (strcmp(s, "--schema") == 0 && more) {
            a->ea_schema = argv[++i];
        } else if (strcmp(s, "--home") == 0 && more) {
            a->ea_home = argv[++i];
        } else if (strcmp(s, "--explain") == 0) {
            a->ea_explain = true;
        } else if (strcmp(s, "--json") == 0) {
            a->ea_json = true;
        } else if (strcmp(s, "--dogwood") == 0) {
            a->ea_dogwood = true;
        } else {
            fputs(eval_usage, stderr);
            return BOX_POLICY_USAGE;
        }
    }
    if (a->ea_policy == NULL || a->ea_request == NULL ||
        (a->ea_schema != NULL && a->ea_dogwood)) {
        fputs(eval_usage, stderr);
        return BOX_POLICY_USAGE;
    }
    return BOX_POLICY_OK;
}

/* Reads a file; BOX_POLICY_USAGE with the reason printed when it cannot. */
static int
eval_read(const char *path, const char *what, size_t max, char **text,
          size_t *len)
{
    char *err = NULL;
    if (pdp_read_text_file(path, what, max, text, len, &err) == BOX_OK)
        return BOX_POLICY_OK;
    box_cmd_error("%s", err ? err : "out of memory");
    box_free(err);
    return BOX_POLICY_USAGE;
}

int
box_policy_eval(int argc, char **argv)
{
    eval_args a = {0};
    int status = eval_parse_args(argc, argv, &a);
    if (status != BOX_POLICY_OK)
        return status < 0 ? BOX_POLICY_OK : status;
    char *ptext = NULL, *rtext = NULL, *htext = NULL, *err = NULL;
    size_t plen = 0, rlen = 0, hlen = 0;
    pdp_policy_set *set = NULL;
    pdp_schema *schema = NULL;
    pdp_validate_warnings w = {0};
    box_arena *arena = box_arena_new(EVAL_ARENA_MAX);
    box_arena *scratch = box_arena_new(EVAL_ARENA_MAX);
    pdp_hist *h = pdp_hist_new();
    pdp_answer *ans = pdp_answer_new();
    box_buf msg, out;
    box_buf_init(&msg, 1u << 16);
    box_buf_init(&out, SIZE_MAX);
    pdp_reqjson rq;
    box_ask ak;
    box_err rv;
    status = BOX_POLICY_USAGE;
    if (arena == NULL || scratch == NULL || h == NULL || ans == NULL) {
        box_cmd_error("out of memory");
        goto out;
    }
    if ((status = eval_read(a.ea_policy, "policy file", PDP_POLICY_MAX_BYTES,
                            &ptext, &plen)) != BOX_POLICY_OK ||
        (status = eval_read(a.ea_request, "request file",
                            PDP_REQJSON_MAX_BYTES, &rtext, &rlen)) !=
            BOX_POLICY_OK ||
        (a.ea_history != NULL &&
         (status = eval_read(a.ea_history, "trace file", PDP_TRACE_MAX_BYTES,
                             &htext, &hlen)) != BOX_POLICY_OK))
        goto out;

    status = BOX_POLICY_INPUT;
    if (a.ea_schema != NULL &&
        (rv = box_ask_load_schema(a.ea_schema, &schema, &err)) != BOX_OK) {
        box_cmd_error("%s", err ? err : box_strerror(rv));
        status = rv == BOX_EPARSE ? BOX_POLICY_INPUT : BOX_POLICY_USAGE;
        goto out;
    }
    rv = box_ask_load_text(a.ea_policy, ptext, plen,
                           a.ea_dogwood ? BOX_ASK_LOAD_DOGWOOD
                                        : BOX_ASK_LOAD_BOX,
                           schema, a.ea_home, &set, &w, &err);
    for (size_t i = 0; i < w.vw_n; i++)
        fprintf(stderr, "strands-box: warning: %s\n", w.vw_items[i]);
    if (rv != BOX_OK) {
        fprintf(stderr,
                "strands-box: error: policy file %s will not load: %s\n",
                a.ea_policy, err ? err : box_strerror(rv));
        goto out;
    }
    if ((rv = pdp_reqjson_parse(rtext, rlen, arena, &rq, &msg)) != BOX_OK) {
        fprintf(stderr, "strands-box: error: request %s: %s\n", a.ea_request,
                msg.b_len > 0 ? msg.b_data : box_strerror(rv));
        goto out;
    }
    if (htext != NULL &&
        (rv = pdp_trace_load(htext, hlen, a.ea_history, h, NULL, &msg)) !=
            BOX_OK) {
        fprintf(stderr, "strands-box: error: %s\n",
                msg.b_len > 0 ? msg.b_data : box_strerror(rv));
        goto out;
    }
    if ((rv = box_ask_decide(set, h, &rq, ans, &ak, &err)) == BOX_EINVAL) {
        fprintf(stderr, "strands-box: error: request %s: %s\n", a.ea_request,
                err ? err : "");
        goto out;
    }
    status = BOX_POLICY_USAGE;
    if (rv != BOX_OK) {
        box_cmd_error("the decision failed: %s", box_strerror(rv));
        goto out;
    }
    box_ask_print o = {.ap_explain = a.ea_explain,
                       .ap_json = a.ea_json,
                       .ap_history = a.ea_history != NULL};
    if ((rv = box_ask_print_answer(set, &ak, ans, &o, scratch, &out)) !=
        BOX_OK) {
        box_cmd_error("cannot print the decision: %s", box_strerror(rv));
        goto out;
    }
    fwrite(out.b_data, 1, out.b_len, stdout);
    status = fflush(stdout) == 0 ? BOX_POLICY_OK : BOX_POLICY_USAGE;
out:
    box_buf_reset(&msg);
    box_buf_reset(&out);
    pdp_validate_warnings_free(&w);
    pdp_answer_free(ans);
    pdp_hist_free(h);
    pdp_policy_free(set);
    pdp_schema_free(schema);
    box_arena_free(scratch);
    box_arena_free(arena);
    box_free(ptext);
    box_free(rtext);
    box_free(htext);
    box_free(err);
    return status;
}
