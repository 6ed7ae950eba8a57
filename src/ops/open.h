/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Open messages (open.c). Blocking puts sent as messages (ARMCI_PUT_MESSAGE_MAX), and
 * blocking accumulates sent as messages, share the message of the last one to their target
 * until something else goes there (ARMCI_PUT_COMBINE). Every operation to a target and
 * every wait for one sends its open message first (the executor, exec.c, for the
 * operations; the waits through armcii_progress_hold).
 */
#ifndef ARMCII_OPEN_H
#define ARMCII_OPEN_H

#include <stddef.h>

#include <armci.h>

#include "../base/op.h"
#include "../core/progress.h"
#include "../core/runtime.h"

struct armcii_iter; /* (iter.h) */
struct armcii_amb;  /* (transport.h) */

/** May a put or accumulate sent as a message join the open message (blocking, or
 *  nonblocking on an implicit handle, where progress threads run)? An implicit nonblocking
 *  operation is completed by fences and WaitAll alone, which send the open message first:
 *  it may join as a blocking one does. Without progress threads nothing would send a
 *  message left open once the caller leaves ARMCI. Inline: every message put asks. */
static inline int armcii_open_may_join(int blocking, const armci_hdl_t *hdl)
{
    return (blocking || !hdl) && !armcii_prog.sends_need_caller && armcii_rt.env.PUT_COMBINE;
}
/** A contiguous put or accumulate (@p what; for accumulates of @p type and @p scale) of
 *  @p len bytes from @p src to @p dst joins the open message to @p target, one being
 *  opened (and one open for something else sent) as needed. */
void armcii_open_join(const char *call, int target, armcii_op_t what, int type, const void *scale,
                      const void *src, void *dst, size_t len);
/** The same for every block of the walker @p it. */
void armcii_open_join_blocks(const char *call, int target, armcii_op_t what, int type,
                             const void *scale, struct armcii_iter *it);
/** Adds every block of @p it to the message builder @p b, records packed a bufferful per
 *  call where the blocks allow, and leaves @p it at its end; returns their bytes. */
size_t armcii_nc_pack(struct armcii_amb *b, struct armcii_iter *it);
/** Sends @p target's open put message, if it has one (after the datagrams out to it). */
void armcii_put_open_send(const char *call, int target);
/** Sends every open put message. */
void armcii_put_open_send_all(const char *call);
/** Sends @p target's open put message (every one when @p target < 0) for a caller that
 *  waits for its acknowledgement next: the target acknowledges it at once. */
void armcii_put_open_send_waited(const char *call, int target);
/** For the progress thread: sends each open message no put joined since its last pass. */
void armcii_put_open_age(void);
/** Registers the open messages with the waits (armcii_progress_hold). */
void armcii_put_open_init(void);
/** Open put messages, over all targets. */
extern int armcii_put_open_count;

#endif
