/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Process groups, in ARMCI-MPI's layout (Global Arrays reads group->comm directly).
 * Process arguments of one-sided calls stay absolute; groups translate.
 *
 * The layout has no room for a mark of validity, and a copy of a group that was freed
 * still holds its communicator's handle: MPI crashes on it. So the groups this process
 * made are registered by their translation map (grp_to_abs, unique while the group
 * lives), and the maps of the last FREED_KEPT freed groups stay allocated, so that no new
 * group gets the address of one and a stale copy is recognised as such.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* The group of every process, and the one ARMCI_Group_set_default chose. */
static ARMCI_Group world_group, default_group;

#define FREED_KEPT 256

typedef struct {
    MPI_Comm comm;
    const int *map;
} live_group_t;

typedef struct {
    const ARMCI_Group *where; /* the struct that ARMCI_Group_free was given */
    int *map;                 /* its grp_to_abs, kept allocated */
} freed_group_t;

static live_group_t *live;
static int nlive, live_cap;
static freed_group_t freed[FREED_KEPT];
static int nfreed; /* ever freed; slot nfreed % FREED_KEPT is the next */

static void live_add(const char *call, const ARMCI_Group *g)
{
    if (!g->grp_to_abs)
        return; /* not a member: nothing to validate later */
    if (nlive == live_cap) {
        int cap = live_cap ? 2 * live_cap : 16;
        live_group_t *n = realloc(live, (size_t)cap * sizeof *n);
        if (!n)
            armcii_fatal(call, "out of memory");
        live = n;
        live_cap = cap;
    }
    live[nlive++] = (live_group_t){g->comm, g->grp_to_abs};
}

static int live_find(const ARMCI_Group *g)
{
    for (int i = 0; i < nlive; i++)
        if (live[i].map == g->grp_to_abs && live[i].comm == g->comm)
            return i;
    return -1;
}

static const freed_group_t *freed_find(const ARMCI_Group *g)
{
    int n = nfreed < FREED_KEPT ? nfreed : FREED_KEPT;
    for (int i = 0; i < n; i++) {
        const freed_group_t *f = &freed[i];
        if (g->grp_to_abs ? f->map == g->grp_to_abs
                          : f->where == g && g->comm == MPI_COMM_NULL && g->size == 0)
            return f;
    }
    return NULL;
}

static void freed_add(const ARMCI_Group *where, int *map)
{
    freed_group_t *f = &freed[nfreed++ % FREED_KEPT];
    free(f->map); /* the oldest goes; a copy of it is no longer recognised */
    *f = (freed_group_t){where, map};
}

/* A struct that receives a new group is no longer the freed one it may have been. */
static void freed_forget(const ARMCI_Group *where)
{
    for (int i = 0; i < FREED_KEPT; i++)
        if (freed[i].where == where)
            freed[i].where = NULL;
}

void armcii_check_group(const char *call, const char *what, const ARMCI_Group *g, int member)
{
    if (g == NULL)
        armcii_fatal(call, "%s is NULL", what);
    if (g->comm == armcii_rt.comm && g->grp_to_abs == world_group.grp_to_abs)
        return; /* the world group, or a copy of it */
    if (g->comm != MPI_COMM_NULL && live_find(g) >= 0)
        return;
    if (freed_find(g))
        armcii_fatal(call,
                     "%s was freed by ARMCI_Group_free%s; make a new group with "
                     "ARMCI_Group_create (or ARMCIX_Group_split, _dup)",
                     what, g->comm == MPI_COMM_NULL ? "" : " (this is a copy made before)");
    if (g->comm != MPI_COMM_NULL || g->grp_to_abs)
        armcii_fatal(call,
                     "%s is not a group of this process: not made by ARMCI_Group_create(_child), "
                     "ARMCIX_Group_split or _dup, nor the world group (uninitialised, "
                     "overwritten, or a copy of a group freed long ago?)",
                     what);
    if (member)
        armcii_fatal(call, "this process is not a member of %s", what);
}

static void set_maps(const char *call, ARMCI_Group *g)
{
    g->grp_to_abs = NULL;
    g->abs_to_grp = NULL;
    if (g->comm == MPI_COMM_NULL)
        return;
    g->grp_to_abs = malloc((size_t)g->size * sizeof(int));
    g->abs_to_grp = malloc((size_t)armcii_rt.nproc * sizeof(int));
    int *seq = malloc((size_t)g->size * sizeof(int));
    if (!g->grp_to_abs || !g->abs_to_grp || !seq)
        armcii_fatal(call, "out of memory");
    for (int i = 0; i < g->size; i++)
        seq[i] = i;
    armcii_translate(g->comm, armcii_rt.comm, g->size, seq, g->grp_to_abs);
    free(seq);
    for (int p = 0; p < armcii_rt.nproc; p++)
        g->abs_to_grp[p] = -1;
    for (int i = 0; i < g->size; i++)
        g->abs_to_grp[g->grp_to_abs[i]] = i;
}

const ARMCI_Group *armcii_world_group(void)
{
    return &world_group;
}

void armcii_groups_init(void)
{
    ARMCI_Group *w = &world_group;
    w->comm = armcii_rt.comm;
    w->noncoll_pgroup_comm = MPI_COMM_NULL;
    w->rank = armcii_rt.rank;
    w->size = armcii_rt.nproc;
    set_maps("ARMCI_Init", w);
    default_group = *w;
}

void armcii_groups_fini(void)
{
    free(live);
    live = NULL;
    nlive = live_cap = 0;
    for (int i = 0; i < FREED_KEPT; i++)
        free(freed[i].map);
    memset(freed, 0, sizeof freed);
    nfreed = 0;
    free(world_group.grp_to_abs);
    free(world_group.abs_to_grp);
    memset(&world_group, 0, sizeof(world_group));
    memset(&default_group, 0, sizeof(default_group));
}

/* A group this process belongs to, or an error. */
static void check_member(const char *call, const char *what, const ARMCI_Group *g)
{
    armcii_check_group(call, what, g, 1);
}

/* How group_make forms the new communicator from the parent's. */
typedef struct {
    enum { MAKE_CREATE, MAKE_SPLIT, MAKE_DUP } how;
    MPI_Group members; /* MAKE_CREATE: the parent's processes that form the group */
    int color, key;    /* MAKE_SPLIT */
} make_t;

/* The one way every group is built, collective over @p parent (a group this process belongs
 * to): its communicator, MPI_COMM_NULL outside it; the runtime's own communicator for its
 * collectives; rank, size and the translation maps. @p out may be @p parent. */
static void group_make(const char *call, const ARMCI_Group *parent, const make_t *mk,
                       ARMCI_Group *out)
{
    MPI_Comm pcomm = parent->comm, comm = MPI_COMM_NULL, own = MPI_COMM_NULL;
    /* MPI has no nonblocking form of these: let the progress thread serve peers meanwhile.
     * The group's collectives travel on a duplicate of the runtime's own (src/coll/p2p.c),
     * kept in the field ARMCI-MPI's layout has for a communicator of its own. */
    armcii_unlock();
    if (mk->how == MAKE_CREATE)
        MPI_Comm_create(pcomm, mk->members, &comm);
    else if (mk->how == MAKE_SPLIT)
        MPI_Comm_split(pcomm, mk->color, mk->key, &comm);
    else
        MPI_Comm_dup(pcomm, &comm);
    if (comm != MPI_COMM_NULL)
        MPI_Comm_dup(comm, &own);
    armcii_lock();
    out->comm = comm;
    out->noncoll_pgroup_comm = own;
    out->rank = -1;
    out->size = 0;
    if (comm != MPI_COMM_NULL) {
        MPI_Comm_rank(comm, &out->rank);
        MPI_Comm_size(comm, &out->size);
    }
    set_maps(call, out);
    freed_forget(out);
    live_add(call, out);
}

/*
 * The lists of one ARMCI_Group_create(_child) call may differ between processes, as
 * MPI_Comm_create's groups may, when they are disjoint: Global Arrays gives each node, or
 * each process, a list of its own (see t_groups.c). Lists that overlap and differ make
 * MPI_Comm_create wait forever, inside MPI where no watch of ours sees it. So every
 * process publishes a hash of its list, in a wait of our own, and each member named in a
 * list must have published the same one: then any two lists are the same or disjoint.
 */
static void same_members(const char *call, int n, const int *pid_list, const ARMCI_Group *parent)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a over the size and the list */
    for (int i = -1; i < n; i++) {
        uint32_t v = (uint32_t)(i < 0 ? n : pid_list[i]);
        for (int b = 0; b < 4; b++, v >>= 8)
            h = (h ^ (v & 0xff)) * 1099511628211ULL;
    }
    uint64_t *all = malloc((size_t)parent->size * sizeof *all);
    if (!all)
        armcii_fatal(call, "out of memory");
    MPI_Request r;
    MPI_Iallgather(&h, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, parent->comm, &r);
    armcii_mpi_wait(call, &r);
    int other = -1;
    for (int i = 0; i < n && other < 0; i++)
        if (all[pid_list[i]] != h)
            other = pid_list[i];
    free(all);
    if (other < 0)
        return;
    char list[128] = "";
    size_t len = 0;
    for (int i = 0; i < n && len < sizeof list - 16; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%d", i ? " " : "", pid_list[i]);
    if (len >= sizeof list - 16)
        snprintf(list + len, sizeof list - len, " ...");
    armcii_fatal(call,
                 "pid_list names process %d of the parent group, whose own pid_list is a "
                 "different one (here %d: %s); processes that list each other must pass the "
                 "same list, in the same order (lists may differ only where they are disjoint)",
                 other, n, list);
}

void ARMCI_Group_create_child(int grp_size, int *pid_list, ARMCI_Group *group_out,
                              ARMCI_Group *group_parent)
{
    static const char call[] = "ARMCI_Group_create_child";
    armcii_enter(call);
    check_member(call, "the parent group", group_parent);
    armcii_check_local(call, "group_out", group_out, 1);
    if (grp_size < 0 || grp_size > group_parent->size)
        armcii_fatal(call, "group size %d is outside 0..%d (the parent's size)", grp_size,
                     group_parent->size);
    armcii_check_local(call, "pid_list", pid_list, (size_t)grp_size);
    char *seen = calloc((size_t)group_parent->size, 1);
    for (int i = 0; i < grp_size; i++) {
        if (pid_list[i] < 0 || pid_list[i] >= group_parent->size)
            armcii_fatal(call, "pid_list[%d] = %d is outside the parent group (0..%d)", i,
                         pid_list[i], group_parent->size - 1);
        if (seen[pid_list[i]]++)
            armcii_fatal(call, "pid_list[%d] = %d appears more than once", i, pid_list[i]);
    }
    free(seen);
    same_members(call, grp_size, pid_list, group_parent);
    MPI_Group pg;
    make_t mk = {.how = MAKE_CREATE};
    MPI_Comm_group(group_parent->comm, &pg);
    MPI_Group_incl(pg, grp_size, pid_list, &mk.members);
    group_make(call, group_parent, &mk, group_out);
    MPI_Group_free(&pg);
    MPI_Group_free(&mk.members);
    /* Outside the group, the size is still the one the caller listed. */
    group_out->size = grp_size;
    armcii_unlock();
}

/**
 * Split @p parent as MPI_Comm_split does: the processes passing the same @p color form one
 * new group, ordered by @p key (then by rank in the parent). Collective over @p parent.
 * ARMCI-MPI extension (armcix.h).
 * @param parent    a group this process belongs to
 * @param color     0 or more; MPI_UNDEFINED leaves this process out of every new group
 *                  (@p new_group then has no communicator, rank -1, size 0)
 * @param key       order of this process in its new group
 * @param new_group the group this process belongs to, usable wherever an ARMCI_Group is
 *                  (ARMCI_Malloc_group, armci_msg_group_*, ...); free with ARMCI_Group_free
 * @return 0
 */
int ARMCIX_Group_split(ARMCI_Group *parent, int color, int key, ARMCI_Group *new_group)
{
    static const char call[] = "ARMCIX_Group_split";
    armcii_enter(call);
    check_member(call, "the parent group", parent);
    armcii_check_local(call, "new_group", new_group, 1);
    if (color < 0 && color != MPI_UNDEFINED)
        armcii_fatal(call, "color %d is negative (and not MPI_UNDEFINED)", color);
    make_t mk = {.how = MAKE_SPLIT, .color = color, .key = key};
    group_make(call, parent, &mk, new_group);
    armcii_unlock();
    return 0;
}

/**
 * A new group of the processes of @p parent, in the same order, with communicators of its
 * own (as MPI_Comm_dup). Collective over @p parent. ARMCI-MPI extension (armcix.h).
 * @param parent    a group this process belongs to (the world group included)
 * @param new_group the copy; free with ARMCI_Group_free
 * @return 0
 */
int ARMCIX_Group_dup(ARMCI_Group *parent, ARMCI_Group *new_group)
{
    static const char call[] = "ARMCIX_Group_dup";
    armcii_enter(call);
    check_member(call, "the parent group", parent);
    armcii_check_local(call, "new_group", new_group, 1);
    make_t mk = {.how = MAKE_DUP};
    group_make(call, parent, &mk, new_group);
    armcii_unlock();
    return 0;
}

void ARMCI_Group_create(int grp_size, int *pid_list, ARMCI_Group *group_out)
{
    armcii_check_init("ARMCI_Group_create");
    ARMCI_Group_create_child(grp_size, pid_list, group_out, &default_group);
}

void ARMCI_Group_free(ARMCI_Group *group)
{
    static const char call[] = "ARMCI_Group_free";
    armcii_enter(call);
    armcii_check_local(call, "group", group, 1);
    if (group->comm == MPI_COMM_NULL && !group->grp_to_abs) {
        armcii_unlock(); /* not a member, or freed already: nothing to free (as ARMCI-MPI) */
        return;
    }
    armcii_check_group(call, "the group", group, 0);
    if (group->comm == world_group.comm)
        armcii_fatal(call, "the world group cannot be freed");
    int i = live_find(group);
    live[i] = live[--nlive];
    MPI_Comm_free(&group->comm);
    if (group->noncoll_pgroup_comm != MPI_COMM_NULL)
        MPI_Comm_free(&group->noncoll_pgroup_comm);
    freed_add(group, group->grp_to_abs);
    free(group->abs_to_grp);
    group->grp_to_abs = group->abs_to_grp = NULL;
    group->rank = -1;
    group->size = 0;
    armcii_unlock();
}

int ARMCI_Group_rank(ARMCI_Group *group, int *rank)
{
    static const char call[] = "ARMCI_Group_rank";
    armcii_check_init(call);
    armcii_check_group(call, "the group", group, 0);
    armcii_check_local(call, "rank", rank, 1);
    *rank = group->rank;
    return 0;
}

void ARMCI_Group_size(ARMCI_Group *group, int *size)
{
    static const char call[] = "ARMCI_Group_size";
    armcii_check_init(call);
    armcii_check_group(call, "the group", group, 0);
    armcii_check_local(call, "size", size, 1);
    *size = group->size;
}

void ARMCI_Group_set_default(ARMCI_Group *group)
{
    static const char call[] = "ARMCI_Group_set_default";
    armcii_check_init(call);
    check_member(call, "the group", group);
    default_group = *group;
}

void ARMCI_Group_get_default(ARMCI_Group *group_out)
{
    armcii_check_init("ARMCI_Group_get_default");
    armcii_check_local("ARMCI_Group_get_default", "group_out", group_out, 1);
    *group_out = default_group;
}

void ARMCI_Group_get_world(ARMCI_Group *group_out)
{
    armcii_check_init("ARMCI_Group_get_world");
    armcii_check_local("ARMCI_Group_get_world", "group_out", group_out, 1);
    *group_out = world_group;
}

int ARMCI_Absolute_id(ARMCI_Group *group, int group_rank)
{
    static const char call[] = "ARMCI_Absolute_id";
    armcii_check_init(call);
    check_member(call, "the group", group);
    if (group_rank < 0 || group_rank >= group->size)
        armcii_fatal(call, "group rank %d is outside 0..%d", group_rank, group->size - 1);
    return group->grp_to_abs[group_rank];
}
