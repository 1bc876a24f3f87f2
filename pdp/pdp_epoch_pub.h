/* SPDX-License-Identifier: Apache-2.0 */
/* Sends one epoch notice on box-pdp's PUB socket. */
#ifndef PDP_EPOCH_PUB_H
#define PDP_EPOCH_PUB_H

#include <nng/nng.h>

/*
 * nng_sendmsg of m on the PUB socket: 0 (nng owns m) or an nng error (m
 * is still the caller's). In a file of its own so that a test build of
 * box-pdp (tests/pdp_pubfail.c) can link a send that fails in its place,
 * to see a failed publish reach the log and the health answer.
 */
int pdp_epoch_pub_send(nng_socket pub, nng_msg *m);

#endif
