/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fabric brought up and taken down, in order: the endpoint (ofi.c), the messages on
 * it (am.c, with the target's handlers of am_target.c), and what the provider's atomics
 * can do (ofi_atomic.c). Each of those files knows only the ones below it; this one
 * knows them all.
 */
#include "am_internal.h"
#include "ofi_internal.h"
#include "transport.h"
#include "../base/caps.h"
#include "../base/common.h"

armcii_status_t armcii_ofi_init(armcii_caps_t *caps)
{
    armcii_status_t st = armcii_ofi_open();
    if (st != ARMCII_OK)
        return st;
    am_target_register();
    if ((st = armcii_am_init()) != ARMCII_OK)
        return st;
    /* ofi.c keeps what it found; the atomics are added to the report only */
    *caps = armcii_ofi.caps;
    armcii_ofi_atomic_probe(caps);
    return ARMCII_OK;
}

void armcii_ofi_fini(void)
{
    /* The endpoint goes first: it cancels the posted receives whose contexts am.c owns;
     * registrations go before the domain they belong to. */
    armcii_ofi_close_endpoint();
    armcii_serve_close();
    armcii_bell_close();
    armcii_am_fini();
    armcii_ofi_close();
}

size_t armcii_ofi_bytes(size_t *registered_p)
{
    size_t registered;
    size_t own = armcii_ofi_own_bytes(&registered);
    *registered_p = registered + armcii_am_bytes();
    return own + armcii_am_bytes() + armcii_am_table_bytes();
}
