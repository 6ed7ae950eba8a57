/* SPDX-License-Identifier: BSD-3-Clause */
/* The limits the protocol rules apply (the rules themselves are select.h's, inline on
 * every operation's path). */
#include "select.h"
#include "caps.h"

void armcii_select_limits(armcii_sel_limits_t *l, const armcii_caps_t *caps, long inject_max,
                          long buffered_max, long message_max, long acc_native)
{
    /* An injected put completes locally only: it is used where a later read can flush
     * it, that is where reads stay behind writes. */
    size_t inject = caps->order_raw ? caps->inject_size : 0;
    if (inject_max >= 0 && (size_t)inject_max < inject)
        inject = (size_t)inject_max;
    l->inject_max = inject;
    l->buffered_max = buffered_max > 0 ? (size_t)buffered_max : 0;
    /* Without write-after-write order every put would wait for the one before it to land
     * (a completion and a flushing read: two round trips over tcp). Messages need no such
     * wait: the target applies one origin's messages in the order they were sent. */
    if (message_max < 0)
        message_max = caps->order_waw ? 0 : ARMCII_PUT_MESSAGE_AUTO;
    l->message_max = (size_t)message_max;
    l->bounce_size = caps->bounce_size;
    l->mr_local = caps->mr_local;
    /* Native atomics by default where the NIC does them, not where the provider emulates
     * them in software (ours is faster there). Node peers then take them too, through the
     * NIC's loopback (armcii_select_acc, amo.c): the NIC's atomics are not atomic with
     * respect to loads and stores under our node lock. Scaled sources are staged in
     * unregistered memory, which rules out providers that need local registration. */
    int usable = caps->acc_types != 0 && caps->atomics_trusted && !caps->mr_local;
    l->acc_hw = usable && (acc_native == 1 || (acc_native == -1 && !caps->atomics_emulated));
}

const char *armcii_proto_name(armcii_proto_t p)
{
    static const char *names[] = {"local",  "inject", "direct", "buffered",
                                  "acc-hw", "acc-sw", "message"};
    return (unsigned)p < sizeof(names) / sizeof(names[0]) ? names[p] : "?";
}
