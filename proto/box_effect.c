/* SPDX-License-Identifier: Apache-2.0 */
/* The DecisionRequest of each effect kind: one table, one builder. */
#include "box_effect.h"

#include <stdbool.h>
#include <string.h>

/* ORDER BOX_EFFECT */
static const struct effect_row {
    const char *action;
    const char *op_type; // fs: the operation entity's type; else NULL
} effect_tab[BOX_EFFECT_KIND_COUNT] = {
    {"shell:exec", NULL},
    {"shell:spawn", NULL},
    {"fs:read", "Box::FsReadOperation"},
    {"fs:write", "Box::FsWriteOperation"},
    {"fs:delete", "Box::FsDeleteOperation"},
    {"fs:move", "Box::FsMoveOperation"},
    {"net:connect", NULL},
    {"http:request", NULL},
};

/* Appends one input field; its value is left for the caller to set. */
static Box__Value *
field_add(box_effect_req *r, const char *name)
{
    size_t i = r->er_rec.n_fields++;
    box__record_field__init(&r->er_field[i]);
    box__value__init(&r->er_val[i]);
    r->er_field[i].name = (char *)name;
    r->er_field[i].value = &r->er_val[i];
    r->er_fieldp[i] = &r->er_field[i];
    return &r->er_val[i];
}

static void
field_str(box_effect_req *r, const char *name, const char *s)
{
    Box__Value *v = field_add(r, name);
    v->kind_case = BOX__VALUE__KIND_STR;
    v->str = (char *)s;
}

/*
 * shell:exec / shell:spawn (§3.4, §7): input {command, program, arg1?,
 * arg2?, arg_count, cwd, program_path?}, in that order; the resource and
 * the process command are the program as spelled, or for a spawn its
 * reported path, which also replaces command_args[0].
 */
static const Box__DecisionRequest *
effect_cmd(box_effect_req *r, const box_effect_cmd *c, bool spawn)
{
    if (c->ec_argc < 1 || c->ec_argv == NULL || c->ec_argv[0] == NULL ||
        c->ec_command == NULL || c->ec_cwd == NULL || c->ec_nargs < 1 ||
        c->ec_nargs > BOX_EFFECT_MAX_ARGS || c->ec_args == NULL ||
        (spawn && c->ec_program_path == NULL))
        return NULL;
    const char *program = spawn ? c->ec_program_path : c->ec_argv[0];
    field_str(r, "command", c->ec_command);
    field_str(r, "program", c->ec_argv[0]);
    if (c->ec_argc > 1)
        field_str(r, "arg1", c->ec_argv[1]);
    if (c->ec_argc > 2)
        field_str(r, "arg2", c->ec_argv[2]);
    Box__Value *count = field_add(r, "arg_count");
    count->kind_case = BOX__VALUE__KIND_LONG;
    count->long_ = c->ec_argc - 1;
    field_str(r, "cwd", c->ec_cwd);
    if (spawn)
        field_str(r, "program_path", c->ec_program_path);
    memcpy(r->er_args, c->ec_args, c->ec_nargs * sizeof *r->er_args);
    r->er_args[0] = (char *)program;
    r->er_subj.n_command_args = c->ec_nargs;
    r->er_subj.command_args = r->er_args;
    r->er_subj.working_directory = (char *)c->ec_cwd;
    r->er_subj.process_command = (char *)program;
    r->er_req.resource = (char *)program;
    return &r->er_req;
}

/*
 * fs:* (§3.6): input {path, operation: <Type>::"<id>"}; the resource is
 * the reported path and the subject names the canonical file. A name the
 * reach floor will refuse carries the floor's reason.
 */
static const Box__DecisionRequest *
effect_fs(box_effect_req *r, const box_effect_fs *f, const char *op_type)
{
    if (f->ef_operation == NULL || f->ef_reported == NULL ||
        f->ef_canonical == NULL)
        return NULL;
    field_str(r, "path", f->ef_reported);
    Box__Value *op = field_add(r, "operation");
    r->er_op.type = (char *)op_type;
    r->er_op.id = (char *)f->ef_operation;
    op->kind_case = BOX__VALUE__KIND_ENTITY;
    op->entity = &r->er_op;
    r->er_subj.file_path = (char *)f->ef_canonical;
    r->er_req.resource = (char *)f->ef_reported;
    if (f->ef_floor != NULL) {
        r->er_enf.gate = (char *)"reach-floor";
        r->er_enf.reason = (char *)f->ef_floor;
        r->er_req.enforcement = &r->er_enf;
    }
    return &r->er_req;
}

static void
field_long(box_effect_req *r, const char *name, long n)
{
    Box__Value *v = field_add(r, name);
    v->kind_case = BOX__VALUE__KIND_LONG;
    v->long_ = n;
}

/*
 * net:connect {host, port, ip?} and http:request {host, port, method,
 * path, body_bytes, intercepted} (§4); the subject names the server (and
 * the method), the resource is the caller's host:port[/path] (§7).
 */
static const Box__DecisionRequest *
effect_net(box_effect_req *r, const box_effect_net *n, bool http)
{
    if (n->en_host == NULL || n->en_resource == NULL || n->en_port < 1 ||
        n->en_port > 65535 ||
        (http && (n->en_method == NULL || n->en_path == NULL ||
                  n->en_body_bytes < 0)))
        return NULL;
    field_str(r, "host", n->en_host);
    field_long(r, "port", n->en_port);
    if (!http && n->en_ip != NULL)
        field_str(r, "ip", n->en_ip);
    if (http) {
        field_str(r, "method", n->en_method);
        field_str(r, "path", n->en_path);
        field_long(r, "body_bytes", n->en_body_bytes);
        Box__Value *v = field_add(r, "intercepted");
        v->kind_case = BOX__VALUE__KIND_BOOLEAN;
        v->boolean = n->en_intercepted;
        r->er_subj.http_method = (char *)n->en_method;
    }
    r->er_subj.server_address = (char *)n->en_host;
    r->er_subj.server_port = n->en_port;
    r->er_req.resource = (char *)n->en_resource;
    return &r->er_req;
}

const Box__DecisionRequest *
box_effect_request(box_effect_req *r, const box_effect *e)
{
    if ((unsigned)e->e_kind >= BOX_EFFECT_KIND_COUNT)
        return NULL;
    const struct effect_row *row = &effect_tab[e->e_kind];
    box__decision_request__init(&r->er_req);
    box__value__init(&r->er_input);
    box__value_record__init(&r->er_rec);
    box__entity_ref__init(&r->er_op);
    box__subject__init(&r->er_subj);
    box__enforcement__init(&r->er_enf);
    r->er_rec.fields = r->er_fieldp;
    r->er_input.kind_case = BOX__VALUE__KIND_RECORD;
    r->er_input.record = &r->er_rec;
    r->er_req.action = (char *)row->action;
    r->er_req.input = &r->er_input;
    r->er_req.subject = &r->er_subj;
    if (row->op_type != NULL)
        return effect_fs(r, &e->e_fs, row->op_type);
    if (e->e_kind == BOX_EFFECT_NET_CONNECT ||
        e->e_kind == BOX_EFFECT_HTTP_REQUEST)
        return effect_net(r, &e->e_net, e->e_kind == BOX_EFFECT_HTTP_REQUEST);
    return effect_cmd(r, &e->e_cmd, e->e_kind == BOX_EFFECT_SHELL_SPAWN);
}
