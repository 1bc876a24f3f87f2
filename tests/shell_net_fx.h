/* SPDX-License-Identifier: Apache-2.0 */
/* Test-only: the box's real services for the shell's HTTP client (curl,
 * wget): box-pdp, box-gateway, box-shell and the alias, with a local
 * upstream (plain and TLS). The SSRF floor refuses loopback URLs, so the
 * upstream is named NET_FX_HOST, which only the gateway resolves (to
 * 127.0.0.1, from its test-only --hosts-file).
 *
 * The policy permits everything but http:request to /secret*, net:connect
 * to blocked.invalid and fs:write to a path with "forbidden" in it. The
 * upstream answers /404 with 404 Not Found, /slow after 4 s, anything
 * else with 200 OK and "hello\n". */
#ifndef SHELL_NET_FX_H
#define SHELL_NET_FX_H

typedef struct fx fx;

#define NET_FX_HOST "origin.test"

/* cmocka's setup and teardown: *state the fixture. */
int net_fx_setup(void **state);
int net_fx_teardown(void **state);

/* Runs `sh -c SCRIPT` through the alias (%H the upstream's host, %P the
 * plain one's port, %T the TLS one's): the status and stdout exact;
 * stderr exact, or, with a trailing '*' in want_err, starting with it. */
void net_fx_expect(const fx *f, const char *script, int status, const char *out,
                   const char *want_err);

#endif
