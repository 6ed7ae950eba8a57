/* Protocol selection rules (see select.h). */
#include "select.h"
#include "warm.h"

void armcii_select_limits(armcii_sel_limits_t *l, const armcii_caps_t *caps, long inject_max,
                          long buffered_max, long message_max, long acc_native, int shm_peers)
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
    /* Native atomics are not atomic with respect to our own same-node accumulates (loads
     * and stores under a lock), so by default they are used only where no peer reaches
     * this memory through shared memory, and not where the provider only emulates them.
     * Scaled sources are staged in unregistered memory, which rules out providers that
     * need local registration. */
    int usable = caps->acc_types != 0 && caps->atomics_trusted && !caps->mr_local;
    l->acc_hw =
        usable && (acc_native == 1 || (acc_native == -1 && !shm_peers && !caps->atomics_emulated));
}

armcii_proto_t armcii_select_put(const armcii_sel_limits_t *l, armcii_path_t path, size_t len,
                                 int local_registered)
{
    if (path != ARMCII_PATH_FABRIC)
        return ARMCII_PROTO_LOCAL;
    /* Inject first: the provider copies the data at once, the call returns with the
     * buffer reusable and no registration is involved. */
    if (len <= l->inject_max)
        return ARMCII_PROTO_INJECT;
    if (len <= l->message_max)
        return ARMCII_PROTO_MESSAGE;
    if (len <= l->buffered_max)
        return ARMCII_PROTO_BUFFERED;
    if (l->mr_local && !local_registered)
        return ARMCII_PROTO_BUFFERED;
    return ARMCII_PROTO_DIRECT;
}

armcii_proto_t armcii_select_get(const armcii_sel_limits_t *l, armcii_path_t path, size_t len,
                                 int local_registered)
{
    if (path != ARMCII_PATH_FABRIC)
        return ARMCII_PROTO_LOCAL;
    if (len <= l->buffered_max)
        return ARMCII_PROTO_BUFFERED;
    if (l->mr_local && !local_registered)
        return ARMCII_PROTO_BUFFERED;
    return ARMCII_PROTO_DIRECT;
}

ARMCII_HOT armcii_proto_t armcii_select_acc(const armcii_sel_limits_t *l, armcii_path_t path,
                                            int type_hw_ok)
{
    int hw = l->acc_hw && type_hw_ok;
    if (path == ARMCII_PATH_SHM)
        return ARMCII_PROTO_LOCAL;
    /* Accumulates to one element must all use one mechanism to be atomic with each
     * other: when remote peers use libfabric atomics on our memory, so do we, even on
     * ourselves. Software accumulates (remote or local) share the target's lock. */
    if (path == ARMCII_PATH_SELF)
        return hw ? ARMCII_PROTO_ACC_HW : ARMCII_PROTO_LOCAL;
    return hw ? ARMCII_PROTO_ACC_HW : ARMCII_PROTO_ACC_SW;
}

const char *armcii_proto_name(armcii_proto_t p)
{
    static const char *names[] = {"local",  "inject", "direct", "buffered",
                                  "acc-hw", "acc-sw", "message"};
    return (unsigned)p < sizeof(names) / sizeof(names[0]) ? names[p] : "?";
}
