/* ARMCIX_Alltoall and ARMCIX_Allgather against MPI_Alltoall and MPI_Allgather: block sizes
 * from 1 byte to 1 MiB, ordinary buffers (staged) and ARMCI_Malloc_local buffers (used in
 * place), the world and a group of the odd processes. The algorithm is ARMCI_COLL_ALG. */
#include <string.h>

#include "tester.h"

static void fill(unsigned char *b, size_t n, int me, int salt)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(me * 37 + (int)(i * 13 % 251) + salt);
}

static int run(int allgather, size_t bb, int local_mem, MPI_Comm mcomm, ARMCI_Group *g)
{
    int P, me;
    MPI_Comm_size(mcomm, &P);
    MPI_Comm_rank(mcomm, &me);
    size_t ssize = allgather ? bb : bb * (size_t)P, rsize = bb * (size_t)P;
    unsigned char *s, *r, *ref = malloc(rsize);
    if (local_mem) {
        s = ARMCI_Malloc_local((armci_size_t)ssize);
        r = ARMCI_Malloc_local((armci_size_t)rsize);
    } else {
        s = malloc(ssize);
        r = malloc(rsize);
    }
    fill(s, ssize, me, (int)bb);
    memset(r, 0, rsize);
    if (allgather) {
        ARMCIX_Allgather(s, r, bb, g);
        MPI_Allgather(s, (int)bb, MPI_BYTE, ref, (int)bb, MPI_BYTE, mcomm);
    } else {
        ARMCIX_Alltoall(s, r, bb, g);
        MPI_Alltoall(s, (int)bb, MPI_BYTE, ref, (int)bb, MPI_BYTE, mcomm);
    }
    int bad = memcmp(r, ref, rsize) != 0;
    if (local_mem) {
        ARMCI_Free_local(s);
        ARMCI_Free_local(r);
    } else {
        free(s);
        free(r);
    }
    free(ref);
    return bad;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    static const size_t sizes[] = {1, 7, 64, 1000, 16384, 1 << 20};
    int bad = 0, runs = 0;
    for (int s = 0; s < 6; s++)
        for (int ag = 0; ag < 2; ag++)
            for (int lm = 0; lm < 2; lm++) {
                int b = run(ag, sizes[s], lm, MPI_COMM_WORLD, NULL);
                CHECK(!b, "%s of %zu-byte blocks (%s buffers) differs from MPI",
                      ag ? "allgather" : "alltoall", sizes[s], lm ? "ARMCI local" : "private");
                bad += b;
                runs++;
            }
    /* a group: the odd processes */
    int nodd = t_np / 2, odd[8];
    for (int k = 0; k < nodd; k++)
        odd[k] = 2 * k + 1;
    ARMCI_Group g;
    if (nodd > 0) {
        ARMCI_Group_create(nodd, odd, &g);
        MPI_Comm mc;
        MPI_Comm_split(MPI_COMM_WORLD, t_me % 2 ? 0 : MPI_UNDEFINED, t_me, &mc);
        if (t_me % 2) {
            for (int ag = 0; ag < 2; ag++) {
                int b = run(ag, 100, 0, mc, &g);
                CHECK(!b, "group %s differs from MPI", ag ? "allgather" : "alltoall");
            }
            MPI_Comm_free(&mc);
        }
        ARMCI_Group_free(&g);
    }
    CHECK(runs == 24, "runs %d", runs);
    ARMCI_Barrier();
    return t_finish("t_coll");
}
