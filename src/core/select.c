/* Protocol selection rules (see select.h). */
#include "select.h"
#include "warm.h"

armcii_proto_t armcii_select_put(const armcii_sel_limits_t *l, armcii_path_t path, size_t len,
                                 int local_registered)
{
    if (path != ARMCII_PATH_FABRIC)
        return ARMCII_PROTO_LOCAL;
    /* Inject first: the provider copies the data at once, the call returns with the
     * buffer reusable and no registration is involved. */
    if (len <= l->inject_max)
        return ARMCII_PROTO_INJECT;
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
    static const char *names[] = {"local", "inject", "direct", "buffered", "acc-hw", "acc-sw"};
    return (unsigned)p < sizeof(names) / sizeof(names[0]) ? names[p] : "?";
}
