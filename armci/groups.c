/*
 * Process groups, in ARMCI-MPI's layout (Global Arrays reads group->comm directly).
 * Process arguments of one-sided calls stay absolute; groups translate.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static void set_maps(const char *call, ARMCI_Group *g)
{
    g->grp_to_abs = NULL;
    g->abs_to_grp = NULL;
    if (g->comm == MPI_COMM_NULL)
        return;
    g->grp_to_abs = malloc((size_t)g->size * sizeof(int));
    g->abs_to_grp = malloc((size_t)armcii_g.nproc * sizeof(int));
    int *seq = malloc((size_t)g->size * sizeof(int));
    if (!g->grp_to_abs || !g->abs_to_grp || !seq)
        armcii_fatal(call, "out of memory");
    for (int i = 0; i < g->size; i++)
        seq[i] = i;
    armcii_translate(g->comm, armcii_g.comm, g->size, seq, g->grp_to_abs);
    free(seq);
    for (int p = 0; p < armcii_g.nproc; p++)
        g->abs_to_grp[p] = -1;
    for (int i = 0; i < g->size; i++)
        g->abs_to_grp[g->grp_to_abs[i]] = i;
}

void armcii_groups_init(void)
{
    ARMCI_Group *w = &armcii_g.world_group;
    w->comm = armcii_g.comm;
    w->noncoll_pgroup_comm = MPI_COMM_NULL;
    w->rank = armcii_g.rank;
    w->size = armcii_g.nproc;
    set_maps("ARMCI_Init", w);
    armcii_g.default_group = *w;
}

void armcii_groups_fini(void)
{
    free(armcii_g.world_group.grp_to_abs);
    free(armcii_g.world_group.abs_to_grp);
    memset(&armcii_g.world_group, 0, sizeof(armcii_g.world_group));
    memset(&armcii_g.default_group, 0, sizeof(armcii_g.default_group));
}

/* A group this process belongs to, or an error. */
static void check_member(const char *call, const char *what, const ARMCI_Group *g)
{
    if (g == NULL)
        armcii_fatal(call, "%s is NULL", what);
    if (g->comm == MPI_COMM_NULL)
        armcii_fatal(call, "this process is not a member of %s", what);
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
    MPI_Group pg, ng;
    MPI_Comm_group(group_parent->comm, &pg);
    MPI_Group_incl(pg, grp_size, pid_list, &ng);
    /* MPI_Comm_create has no nonblocking form: let the progress thread serve peers. The
     * group's collectives travel on a duplicate of the runtime's own (src/coll/p2p.c),
     * kept in the field ARMCI-MPI's layout has for a communicator of its own. */
    group_out->noncoll_pgroup_comm = MPI_COMM_NULL;
    armcii_unlock();
    MPI_Comm_create(group_parent->comm, ng, &group_out->comm);
    if (group_out->comm != MPI_COMM_NULL)
        MPI_Comm_dup(group_out->comm, &group_out->noncoll_pgroup_comm);
    armcii_lock();
    MPI_Group_free(&pg);
    MPI_Group_free(&ng);
    group_out->size = grp_size;
    group_out->rank = -1;
    if (group_out->comm != MPI_COMM_NULL)
        MPI_Comm_rank(group_out->comm, &group_out->rank);
    set_maps(call, group_out);
    armcii_unlock();
}

void ARMCI_Group_create(int grp_size, int *pid_list, ARMCI_Group *group_out)
{
    armcii_check_init("ARMCI_Group_create");
    ARMCI_Group_create_child(grp_size, pid_list, group_out, &armcii_g.default_group);
}

void ARMCI_Group_free(ARMCI_Group *group)
{
    static const char call[] = "ARMCI_Group_free";
    armcii_enter(call);
    armcii_check_local(call, "group", group, 1);
    if (group->comm == armcii_g.world_group.comm)
        armcii_fatal(call, "the world group cannot be freed");
    if (group->comm != MPI_COMM_NULL)
        MPI_Comm_free(&group->comm);
    if (group->noncoll_pgroup_comm != MPI_COMM_NULL)
        MPI_Comm_free(&group->noncoll_pgroup_comm);
    free(group->grp_to_abs);
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
    armcii_check_local(call, "group", group, 1);
    armcii_check_local(call, "rank", rank, 1);
    *rank = group->rank;
    return 0;
}

void ARMCI_Group_size(ARMCI_Group *group, int *size)
{
    static const char call[] = "ARMCI_Group_size";
    armcii_check_init(call);
    armcii_check_local(call, "group", group, 1);
    armcii_check_local(call, "size", size, 1);
    *size = group->size;
}

void ARMCI_Group_set_default(ARMCI_Group *group)
{
    static const char call[] = "ARMCI_Group_set_default";
    armcii_check_init(call);
    check_member(call, "the group", group);
    armcii_g.default_group = *group;
}

void ARMCI_Group_get_default(ARMCI_Group *group_out)
{
    armcii_check_init("ARMCI_Group_get_default");
    armcii_check_local("ARMCI_Group_get_default", "group_out", group_out, 1);
    *group_out = armcii_g.default_group;
}

void ARMCI_Group_get_world(ARMCI_Group *group_out)
{
    armcii_check_init("ARMCI_Group_get_world");
    armcii_check_local("ARMCI_Group_get_world", "group_out", group_out, 1);
    *group_out = armcii_g.world_group;
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
