/* SPDX-License-Identifier: Apache-2.0 */
/* `box log`: the decision log as a table, filtered, optionally followed. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_cmd.h"
#include "box_escape.h"

static const char log_usage[] =
    "usage: box log [--box-dir DIR | FILE] [--verdict permit|deny]\n"
    "               [--action ACTION] [--follow]\n"
    "\n"
    "Prints the decisions of a box's decision log (DIR/private/telemetry/\n"
    "records.jsonl, or FILE) as a table: verdict, action, resource.\n"
    "--follow keeps printing decisions as they are appended.\n";

#define LOG_LINE_MAX (1024u * 1024u)
#define LOG_FOLLOW_POLL_US 200000

typedef struct log_filter {
    const char *lf_verdict; // NULL = any
    const char *lf_action;  // NULL = any
} log_filter;

/* The string value of attribute key in an OTLP attribute array (its
 * length in *len: the value may hold NULs), or NULL. */
static const char *
log_attr(json_object *attrs, const char *key, size_t *len)
{
    size_t n = json_object_is_type(attrs, json_type_array)
                   ? json_object_array_length(attrs)
                   : 0;
    for (size_t i = 0; i < n; i++) {
        json_object *a = json_object_array_get_idx(attrs, i);
        json_object *k, *v, *sv;
        if (json_object_object_get_ex(a, "key", &k) &&
            strcmp(json_object_get_string(k), key) == 0 &&
            json_object_object_get_ex(a, "value", &v) &&
            json_object_object_get_ex(v, "stringValue", &sv)) {
            *len = (size_t)json_object_get_string_len(sv);
            return json_object_get_string(sv);
        }
    }
    *len = 0;
    return NULL;
}

/*
 * Prints one row. Every field is text an agent can steer (a path, a
 * program name) or a hand-edited log can hold, so each is escaped as a
 * denial message escapes its resource (box-spec §3.11): no control, bidi
 * or malformed byte reaches the terminal, and a row is one line.
 */
static void
log_print_row(const char *verdict, size_t vlen, const char *action, size_t alen,
              const char *res, size_t rlen)
{
    box_buf v, a, r;
    box_buf_init(&v, LOG_LINE_MAX * 10);
    box_buf_init(&a, LOG_LINE_MAX * 10);
    box_buf_init(&r, LOG_LINE_MAX * 10);
    if (box_escape_debug(&v, verdict, vlen) != BOX_OK ||
        box_escape_debug(&a, action, alen) != BOX_OK ||
        box_escape_debug(&r, res, rlen) != BOX_OK) {
        fprintf(stderr, "strands-box: warning: a decision could not be "
                        "printed: out of memory\n");
        goto out;
    }
    printf("%-7s %-12s %s\n", v.b_len ? v.b_data : "", a.b_len ? a.b_data : "",
           r.b_len ? r.b_data : "");
out:
    box_buf_reset(&v);
    box_buf_reset(&a);
    box_buf_reset(&r);
}

/* Walks resourceLogs[].scopeLogs[].logRecords[] and prints decisions. */
static void
log_print_record(json_object *root, const log_filter *f)
{
    json_object *rls, *sls, *lrs, *scope, *name, *attrs;
    if (!json_object_object_get_ex(root, "resourceLogs", &rls))
        return;
    for (size_t i = 0; i < json_object_array_length(rls); i++) {
        json_object *rl = json_object_array_get_idx(rls, i);
        if (!json_object_object_get_ex(rl, "scopeLogs", &sls))
            continue;
        for (size_t j = 0; j < json_object_array_length(sls); j++) {
            json_object *sl = json_object_array_get_idx(sls, j);
            if (!json_object_object_get_ex(sl, "scope", &scope) ||
                !json_object_object_get_ex(scope, "name", &name) ||
                strcmp(json_object_get_string(name), "strands-box.policy") !=
                    0 ||
                !json_object_object_get_ex(sl, "logRecords", &lrs))
                continue;
            for (size_t k = 0; k < json_object_array_length(lrs); k++) {
                json_object *lr = json_object_array_get_idx(lrs, k);
                if (!json_object_object_get_ex(lr, "attributes", &attrs))
                    continue;
                size_t vlen, alen, rlen;
                const char *verdict =
                    log_attr(attrs, "strands.box.policy.verdict", &vlen);
                const char *action =
                    log_attr(attrs, "strands.box.policy.action", &alen);
                const char *res =
                    log_attr(attrs, "strands.box.policy.resource", &rlen);
                if (verdict == NULL || action == NULL)
                    continue;
                if ((f->lf_verdict && strcmp(verdict, f->lf_verdict) != 0) ||
                    (f->lf_action && strcmp(action, f->lf_action) != 0))
                    continue;
                log_print_row(verdict, vlen, action, alen, res ? res : "",
                              rlen);
            }
        }
    }
}

static void
log_print_line(const char *path, unsigned long lineno, const char *line,
               size_t len, const log_filter *f)
{
    json_tokener *tok = json_tokener_new();
    json_object *root = tok ? json_tokener_parse_ex(tok, line, (int)len) : NULL;
    if (root == NULL || json_tokener_get_error(tok) != json_tokener_success) {
        fprintf(stderr, "strands-box: warning: %s:%lu: not a log record\n",
                path, lineno);
    } else {
        log_print_record(root, f);
    }
    json_object_put(root);
    if (tok != NULL)
        json_tokener_free(tok);
    fflush(stdout);
}

/* Reads complete lines from fp; keeps a trailing partial line in pend. */
static int
log_drain(FILE *fp, const char *path, unsigned long *lineno, box_buf *pend,
          const log_filter *f)
{
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0) {
        for (size_t i = 0; i < n; i++) {
            if (chunk[i] != '\n') {
                if (box_buf_putc(pend, chunk[i]) != BOX_OK) {
                    fprintf(stderr,
                            "strands-box: warning: %s:%lu: line over "
                            "%u bytes skipped\n",
                            path, *lineno + 1, LOG_LINE_MAX);
                    box_buf_reset(pend);
                }
                continue;
            }
            ++*lineno;
            if (pend->b_len > 0)
                log_print_line(path, *lineno, pend->b_data, pend->b_len, f);
            box_buf_reset(pend);
        }
    }
    if (ferror(fp)) {
        fprintf(stderr, "strands-box: error: cannot read %s: %s\n", path,
                strerror(errno));
        return 1;
    }
    clearerr(fp);
    return 0;
}

int
box_cmd_log(int argc, char **argv)
{
    log_filter f = {0};
    const char *file = NULL, *box_dir = NULL;
    bool follow = false;
    char *path = NULL;
    int status = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_next = i + 1 < argc;
        if (strcmp(a, "--help") == 0) {
            fputs(log_usage, stdout);
            return 0;
        } else if (strcmp(a, "--follow") == 0 || strcmp(a, "-f") == 0) {
            follow = true;
        } else if (strcmp(a, "--box-dir") == 0 && has_next) {
            box_dir = argv[++i];
        } else if (strcmp(a, "--verdict") == 0 && has_next) {
            f.lf_verdict = argv[++i];
            if (strcmp(f.lf_verdict, "permit") != 0 &&
                strcmp(f.lf_verdict, "deny") != 0)
                return box_cmd_error("--verdict takes permit or deny, not "
                                     "\"%s\"",
                                     f.lf_verdict);
        } else if (strcmp(a, "--action") == 0 && has_next) {
            f.lf_action = argv[++i];
        } else if (a[0] != '-' && file == NULL) {
            file = a;
        } else {
            fputs(log_usage, stderr);
            return 2;
        }
    }
    if ((file == NULL) == (box_dir == NULL)) {
        fputs(log_usage, stderr);
        return 2;
    }
    path = file ? box_strdup(file)
                : box_asprintf("%s/private/telemetry/records.jsonl", box_dir);
    if (path == NULL)
        return box_cmd_error("out of memory");
    FILE *fp = fopen(path, "r");
    if (fp == NULL) {
        status = box_cmd_error("cannot read the decision log %s: %s", path,
                               strerror(errno));
        box_free(path);
        return status;
    }
    box_buf pend;
    box_buf_init(&pend, LOG_LINE_MAX);
    unsigned long lineno = 0;
    status = log_drain(fp, path, &lineno, &pend, &f);
    while (follow && status == 0) {
        usleep(LOG_FOLLOW_POLL_US);
        status = log_drain(fp, path, &lineno, &pend, &f);
    }
    box_buf_reset(&pend);
    fclose(fp);
    box_free(path);
    return status;
}
