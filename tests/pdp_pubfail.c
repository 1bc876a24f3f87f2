/* SPDX-License-Identifier: Apache-2.0 */
/* Linked into a test build of box-pdp (box-pdp-pubfail) in place of
 * pdp/pdp_epoch_pub.c: its second epoch notice is not sent, the others
 * are, so a test sees a failed publish logged, shown by health, and
 * cleared by the next generation that publishes. */
#include <stdatomic.h>

#include "pdp_epoch_pub.h"

int
pdp_epoch_pub_send(nng_socket pub, nng_msg *m)
{
    static atomic_uint sends;
    if (atomic_fetch_add(&sends, 1) == 1)
        return NNG_ENOMEM;
    return nng_sendmsg(pub, m, 0);
}
