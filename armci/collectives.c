/* SPDX-License-Identifier: BSD-3-Clause */
/* ARMCIX_Alltoall and ARMCIX_Allgather: argument checks (the work is in src/coll). */
#include "check.h"

int armcii_coll(const char *call, int allgather, const void *sendbuf, void *recvbuf, size_t bb,
                MPI_Comm comm);

static int coll(const char *call, int allgather, const void *sendbuf, void *recvbuf,
                size_t block_bytes, ARMCI_Group *group)
{
    armcii_enter(call);
    if (group)
        armcii_check_group(call, "the group", group, 1);
    MPI_Comm comm = group ? group->comm : armcii_rt.comm;
    int P;
    MPI_Comm_size(comm, &P);
    if (block_bytes > (size_t)__INT_MAX__)
        armcii_fatal(call, "block of %zu bytes is too large (at most %d)", block_bytes,
                     __INT_MAX__);
    size_t ssize = allgather ? block_bytes : block_bytes * (size_t)P;
    size_t rsize = block_bytes * (size_t)P;
    armcii_check_local(call, "sendbuf", sendbuf, ssize);
    armcii_check_local(call, "recvbuf", recvbuf, rsize);
    const char *s = sendbuf, *r = recvbuf;
    if (block_bytes > 0 && s < r + rsize && r < s + ssize)
        armcii_fatal(call, "sendbuf %p (+%zu) and recvbuf %p (+%zu) overlap", sendbuf, ssize,
                     recvbuf, rsize);
    int rc = 0;
    if (block_bytes > 0)
        rc = armcii_coll(call, allgather, sendbuf, recvbuf, block_bytes, comm);
    armcii_unlock();
    return rc;
}

int ARMCIX_Alltoall(const void *sendbuf, void *recvbuf, size_t block_bytes, ARMCI_Group *group)
{
    return coll("ARMCIX_Alltoall", 0, sendbuf, recvbuf, block_bytes, group);
}

int ARMCIX_Allgather(const void *sendbuf, void *recvbuf, size_t block_bytes, ARMCI_Group *group)
{
    return coll("ARMCIX_Allgather", 1, sendbuf, recvbuf, block_bytes, group);
}
