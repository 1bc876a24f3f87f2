/* SPDX-License-Identifier: Apache-2.0 */
/* curl's own parts (box-spec §3.12); the floor and the transfer it shares
 * with wget are cmd_http.h's. */
#ifndef CMD_CURL_H
#define CMD_CURL_H

#include <stdbool.h>

#define CURL_PROTO_BOTH (CURLPROTO_HTTP | CURLPROTO_HTTPS) // needs curl.h

/* --proto's list over base (CURLPROTO_* bits): false when it is bad. */
bool curl_proto_list(const char *list, unsigned base, unsigned *out);

#endif
