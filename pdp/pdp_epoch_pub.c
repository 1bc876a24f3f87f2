/* SPDX-License-Identifier: Apache-2.0 */
/* Sends one epoch notice on box-pdp's PUB socket. */
#include "pdp_epoch_pub.h"

int
pdp_epoch_pub_send(nng_socket pub, nng_msg *m)
{
    return nng_sendmsg(pub, m, 0);
}
