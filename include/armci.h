/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * armci-ofi: the ARMCI one-sided communication interface on libfabric.
 *
 * Prototypes, type layouts and enum values match ARMCI-MPI 0.3.1 so that code
 * compiled against that library (Debian's libga-openmpi.a among it) links
 * against libarmci unchanged.
 */
#ifndef ARMCI_H
#define ARMCI_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Identifies this implementation family (ARMCI-MPI compatible interface). */
#define ARMCI_MPI 3
/** armci-ofi itself: set for code that wants to use our extensions (armcix.h). */
#define ARMCI_OFI 1
/* ARMCI_OFI_VERSION_MAJOR, _MINOR, _PATCH, _STRING and ARMCI_OFI_VERSION */
#include "armci_ofi_version.h"

/** Element types of accumulate operations. */
enum ARMCI_Acc_e {
    ARMCI_ACC_INT, /**< int */
    ARMCI_ACC_LNG, /**< long */
    ARMCI_ACC_FLT, /**< float */
    ARMCI_ACC_DBL, /**< double */
    ARMCI_ACC_CPL, /**< single-precision complex (two floats) */
    ARMCI_ACC_DCP  /**< double-precision complex (two doubles) */
};

/** Size type of allocations. */
typedef long armci_size_t;
#define ARMCII_MPI_SIZE_T MPI_LONG

/** Maximum number of stride levels of strided operations. */
#define ARMCI_MAX_STRIDE_LEVEL 8

/* ---- Start-up and shut-down ------------------------------------------ */

/** Initialise ARMCI (and MPI if the application has not). Calls nest: a call while ARMCI
 *  is up only counts, and ARMCI stays up until the matching last ARMCI_Finalize.
 *  @return 0 on success. */
int ARMCI_Init(void);
/** As ARMCI_Init; @p argc and @p argv are passed to MPI_Init if ARMCI initialises MPI. */
int ARMCI_Init_args(int *argc, char ***argv);
/** As ARMCI_Init, asking MPI for thread level @p armci_requested. */
int ARMCI_Init_thread(int armci_requested);
/** As ARMCI_Init_thread, on communicator @p comm. */
int ARMCI_Init_thread_comm(int armci_requested, MPI_Comm comm);
/** As ARMCI_Init, on communicator @p comm (MPI already initialised; ARMCI-MPI's later
 *  versions have it, src/armci.h). */
int ARMCI_Init_mpi_comm(MPI_Comm comm);
/** @return non-zero between the first ARMCI_Init and the last (matching) ARMCI_Finalize. */
int ARMCI_Initialized(void);
/** Match one ARMCI_Init; the last one completes all communication and releases every
 *  resource (collective), and finalises MPI only if ARMCI initialised it. A call beyond the
 *  last is an error. */
int ARMCI_Finalize(void);
/** Release local resources without communication (for use on abnormal exit). */
void ARMCI_Cleanup(void);
/** Print "armci: rank R: @p msg" and abort the whole job with exit code @p code. */
void ARMCI_Error(const char *msg, int code);

/* ---- Memory ----------------------------------------------------------- */

/**
 * Collective allocation: every process contributes @p size bytes (sizes may differ,
 * zero gives NULL) and receives in @p base_ptrs[p] the address of process p's block.
 * @return 0 on success.
 */
int ARMCI_Malloc(void **base_ptrs, armci_size_t size);
/** Collective release of an allocation made by ARMCI_Malloc; @p ptr is this process's block (may be
 * NULL). */
int ARMCI_Free(void *ptr);
/** Local memory suited as the local side of communication (registered, shared). */
void *ARMCI_Malloc_local(armci_size_t size);
/** Release memory from ARMCI_Malloc_local. */
int ARMCI_Free_local(void *ptr);

/* ---- Synchronisation ---------------------------------------------------- */

/** Complete all outstanding operations of every process, then synchronise them all. */
void ARMCI_Barrier(void);
/** Block until every put and accumulate issued to @p proc has completed at @p proc. */
void ARMCI_Fence(int proc);
/** ARMCI_Fence for every process. */
void ARMCI_AllFence(void);

void ARMCI_Access_begin(void *ptr);
void ARMCI_Access_end(void *ptr);
void ARMCI_Copy(void *src, void *dst, int size);

/* ---- Contiguous one-sided operations ------------------------------------ */

/** Read @p size bytes at @p src on process @p target into local @p dst. */
int ARMCI_Get(void *src, void *dst, int size, int target);
/** Write @p size bytes from local @p src to @p dst on process @p target. */
int ARMCI_Put(void *src, void *dst, int size, int target);
/**
 * dst[i] += scale * src[i] on process @p proc, atomically per element with respect to
 * other accumulates. @p datatype is an ARMCI_ACC_* value, @p scale points to one element
 * of that type, @p bytes is a multiple of the element size.
 */
int ARMCI_Acc(int datatype, void *scale, void *src, void *dst, int bytes, int proc);

int ARMCI_PutS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[], int count[],
               int stride_levels, int proc);
int ARMCI_GetS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[], int count[],
               int stride_levels, int proc);
int ARMCI_AccS(int datatype, void *scale, void *src_ptr, int src_stride_ar[], void *dst_ptr,
               int dst_stride_ar[], int count[], int stride_levels, int proc);

int ARMCI_Put_flag(void *src, void *dst, int size, int *flag, int value, int proc);
int ARMCI_PutS_flag(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[],
                    int count[], int stride_levels, int *flag, int value, int proc);

/* ---- Handles ------------------------------------------------------------ */

/**
 * A nonblocking-operation handle. Eight bytes, as in ARMCI-MPI, because Global Arrays
 * embeds it in its own structures. The contents are private: a request slot and a
 * tag holding a check pattern, the aggregate flag and the slot's generation.
 */
typedef struct armci_hdl_s {
    int slot;
    int tag;
} armci_hdl_t;

/** Prepare @p hdl for use; required before ARMCI_SET_AGGREGATE_HANDLE. */
void ARMCI_INIT_HANDLE(armci_hdl_t *hdl);
void ARMCI_SET_AGGREGATE_HANDLE(armci_hdl_t *handle);
void ARMCI_UNSET_AGGREGATE_HANDLE(armci_hdl_t *handle);

/** Nonblocking ARMCI_Put; @p hdl NULL makes it implicit (completed by WaitProc/WaitAll/fences). */
int ARMCI_NbPut(void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl);
/** Nonblocking ARMCI_Get; @p dst must not be read before completion. */
int ARMCI_NbGet(void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl);
/** Nonblocking ARMCI_Acc. */
int ARMCI_NbAcc(int datatype, void *scale, void *src, void *dst, int bytes, int proc,
                armci_hdl_t *hdl);

/** Complete the operation of @p hdl (locally: a put's buffer is reusable, a get's data
 *  arrived). A handle already completed returns at once, so a handle may be waited for
 *  twice, or by several threads at once (each returns once the operation is complete).
 *  A handle takes one operation at a time: issuing another on it before that completes is
 *  an error. @return 0. */
int ARMCI_Wait(armci_hdl_t *hdl);
/** @return 0 once the operation of @p hdl has completed (also for a handle waited or tested
 *  before, or with nothing issued on it), non-zero while it is in progress: as ARMCI-MPI
 *  and ComEx answer, and as Global Arrays' NGA_NbTest relies on. */
int ARMCI_Test(armci_hdl_t *hdl);
/** Complete every implicit-handle operation to @p proc. */
int ARMCI_WaitProc(int proc);
/** Complete every implicit-handle operation. */
int ARMCI_WaitAll(void);

int ARMCI_NbPutS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[],
                 int count[], int stride_levels, int proc, armci_hdl_t *hdl);
int ARMCI_NbGetS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[],
                 int count[], int stride_levels, int proc, armci_hdl_t *hdl);
int ARMCI_NbAccS(int datatype, void *scale, void *src_ptr, int src_stride_ar[], void *dst_ptr,
                 int dst_stride_ar[], int count[], int stride_levels, int proc, armci_hdl_t *hdl);

void armci_write_strided(void *ptr, int stride_levels, int stride_arr[], int count[], char *buf);
void armci_read_strided(void *ptr, int stride_levels, int stride_arr[], int count[], char *buf);

/* ---- Vector (generalised I/O vector) operations ------------------------- */

typedef struct {
    void **src_ptr_array; /**< source address of each segment */
    void **dst_ptr_array; /**< destination address of each segment */
    int bytes;            /**< length of every segment */
    int ptr_array_len;    /**< number of segments */
} armci_giov_t;

int ARMCI_PutV(armci_giov_t *iov, int iov_len, int proc);
int ARMCI_GetV(armci_giov_t *iov, int iov_len, int proc);
int ARMCI_AccV(int datatype, void *scale, armci_giov_t *iov, int iov_len, int proc);
int ARMCI_NbPutV(armci_giov_t *iov, int iov_len, int proc, armci_hdl_t *handle);
int ARMCI_NbGetV(armci_giov_t *iov, int iov_len, int proc, armci_hdl_t *handle);
int ARMCI_NbAccV(int datatype, void *scale, armci_giov_t *iov, int iov_len, int proc,
                 armci_hdl_t *handle);

/* ---- Single values ------------------------------------------------------ */

int ARMCI_PutValueInt(int src, void *dst, int proc);
int ARMCI_PutValueLong(long src, void *dst, int proc);
int ARMCI_PutValueFloat(float src, void *dst, int proc);
int ARMCI_PutValueDouble(double src, void *dst, int proc);
int ARMCI_NbPutValueInt(int src, void *dst, int proc, armci_hdl_t *hdl);
int ARMCI_NbPutValueLong(long src, void *dst, int proc, armci_hdl_t *hdl);
int ARMCI_NbPutValueFloat(float src, void *dst, int proc, armci_hdl_t *hdl);
int ARMCI_NbPutValueDouble(double src, void *dst, int proc, armci_hdl_t *hdl);
int ARMCI_GetValueInt(void *src, int proc);
long ARMCI_GetValueLong(void *src, int proc);
float ARMCI_GetValueFloat(void *src, int proc);
double ARMCI_GetValueDouble(void *src, int proc);

/* ---- Mutexes and read-modify-write -------------------------------------- */

int ARMCI_Create_mutexes(int count);
int ARMCI_Destroy_mutexes(void);
void ARMCI_Lock(int mutex, int proc);
void ARMCI_Unlock(int mutex, int proc);

enum ARMCI_Rmw_e { ARMCI_FETCH_AND_ADD, ARMCI_FETCH_AND_ADD_LONG, ARMCI_SWAP, ARMCI_SWAP_LONG };

int ARMCI_Rmw(int op, void *ploc, void *prem, int value, int proc);

/* ---- Groups --------------------------------------------------------------- */

/** A process group; the layout is ARMCI-MPI's (Global Arrays reads @c comm directly). */
typedef struct {
    MPI_Comm comm;
    MPI_Comm noncoll_pgroup_comm;
    int *grp_to_abs;
    int *abs_to_grp;
    int rank;
    int size;
} ARMCI_Group;

void ARMCI_Group_create(int grp_size, int *pid_list, ARMCI_Group *group_out);
void ARMCI_Group_create_child(int grp_size, int *pid_list, ARMCI_Group *group_out,
                              ARMCI_Group *group_parent);
void ARMCI_Group_free(ARMCI_Group *group);
int ARMCI_Group_rank(ARMCI_Group *group, int *rank);
void ARMCI_Group_size(ARMCI_Group *group, int *size);
void ARMCI_Group_set_default(ARMCI_Group *group);
void ARMCI_Group_get_default(ARMCI_Group *group_out);
void ARMCI_Group_get_world(ARMCI_Group *group_out);
int ARMCI_Absolute_id(ARMCI_Group *group, int group_rank);
int ARMCI_Malloc_group(void **ptr_arr, armci_size_t bytes, ARMCI_Group *group);
int ARMCI_Free_group(void *ptr, ARMCI_Group *group);

#include <message.h>

/* ---- Topology ------------------------------------------------------------- */

enum armci_domain_e { ARMCI_DOMAIN_SMP };
typedef int armci_domain_t;

int armci_domain_nprocs(armci_domain_t domain, int id);
int armci_domain_id(armci_domain_t domain, int glob_proc_id);
int armci_domain_glob_proc_id(armci_domain_t domain, int id, int loc_proc_id);
int armci_domain_my_id(armci_domain_t domain);
int armci_domain_count(armci_domain_t domain);
int armci_domain_same_id(armci_domain_t domain, int proc);

/** @return non-zero if @p proc shares this process's node memory (direct load/store). */
int ARMCI_Same_node(int proc);
/** @return non-zero if same-node peers are reached through shared memory. */
int ARMCI_Uses_shm(void);
void ARMCI_Set_shm_limit(unsigned long shmemlimit);
int ARMCI_Uses_shm_grp(ARMCI_Group *group);

/* ---- Device memory (accepted for compatibility; host memory is used) ------ */

int ARMCI_Malloc_memdev(void **ptr_arr, armci_size_t bytes, const char *device);
int ARMCI_Malloc_group_memdev(void **ptr_arr, armci_size_t bytes, ARMCI_Group *group,
                              const char *device);
int ARMCI_Free_memdev(void *ptr);

/* ---- Profiling interface ---------------------------------------------------
 * Every ARMCI_<name> above is also PARMCI_<name>, and ARMCI_<name> is a weak symbol: a
 * tool may define ARMCI_<name> itself and call through to PARMCI_<name>. The prototypes
 * are ARMCI-MPI's (its armci.h declares the same list). */

int PARMCI_Acc(int datatype, void *scale, void *src, void *dst, int bytes, int proc);
int PARMCI_AccS(int datatype, void *scale, void *src_ptr, int src_stride_ar[], void *dst_ptr,
                int dst_stride_ar[], int count[], int stride_levels, int proc);
int PARMCI_AccV(int datatype, void *scale, armci_giov_t *iov, int iov_len, int proc);
void PARMCI_Access_begin(void *ptr);
void PARMCI_Access_end(void *ptr);
void PARMCI_AllFence(void);
void PARMCI_Barrier(void);
int PARMCI_Create_mutexes(int count);
int PARMCI_Destroy_mutexes(void);
void PARMCI_Fence(int proc);
int PARMCI_Finalize(void);
int PARMCI_Free(void *ptr);
int PARMCI_Free_local(void *ptr);
int PARMCI_Free_memdev(void *ptr);
int PARMCI_Get(void *src, void *dst, int size, int target);
int PARMCI_GetS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[], int count[],
                int stride_levels, int proc);
int PARMCI_GetV(armci_giov_t *iov, int iov_len, int proc);
double PARMCI_GetValueDouble(void *src, int proc);
float PARMCI_GetValueFloat(void *src, int proc);
int PARMCI_GetValueInt(void *src, int proc);
long PARMCI_GetValueLong(void *src, int proc);
int PARMCI_Init(void);
int PARMCI_Init_args(int *argc, char ***argv);
int PARMCI_Init_thread(int armci_requested);
int PARMCI_Init_thread_comm(int armci_requested, MPI_Comm comm);
int PARMCI_Init_mpi_comm(MPI_Comm comm);
int PARMCI_Initialized(void);
void PARMCI_Lock(int mutex, int proc);
int PARMCI_Malloc(void **base_ptrs, armci_size_t size);
int PARMCI_Malloc_group_memdev(void **ptr_arr, armci_size_t bytes, ARMCI_Group *group,
                               const char *device);
void *PARMCI_Malloc_local(armci_size_t size);
int PARMCI_Malloc_memdev(void **ptr_arr, armci_size_t bytes, const char *device);
int PARMCI_NbAcc(int datatype, void *scale, void *src, void *dst, int bytes, int proc,
                 armci_hdl_t *hdl);
int PARMCI_NbAccS(int datatype, void *scale, void *src_ptr, int src_stride_ar[], void *dst_ptr,
                  int dst_stride_ar[], int count[], int stride_levels, int proc, armci_hdl_t *hdl);
int PARMCI_NbAccV(int datatype, void *scale, armci_giov_t *iov, int iov_len, int proc,
                  armci_hdl_t *handle);
int PARMCI_NbGet(void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl);
int PARMCI_NbGetS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[],
                  int count[], int stride_levels, int proc, armci_hdl_t *hdl);
int PARMCI_NbGetV(armci_giov_t *iov, int iov_len, int proc, armci_hdl_t *handle);
int PARMCI_NbPut(void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl);
int PARMCI_NbPutS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[],
                  int count[], int stride_levels, int proc, armci_hdl_t *hdl);
int PARMCI_NbPutV(armci_giov_t *iov, int iov_len, int proc, armci_hdl_t *handle);
int PARMCI_NbPutValueDouble(double src, void *dst, int proc, armci_hdl_t *hdl);
int PARMCI_NbPutValueFloat(float src, void *dst, int proc, armci_hdl_t *hdl);
int PARMCI_NbPutValueInt(int src, void *dst, int proc, armci_hdl_t *hdl);
int PARMCI_NbPutValueLong(long src, void *dst, int proc, armci_hdl_t *hdl);
int PARMCI_Put(void *src, void *dst, int size, int target);
int PARMCI_PutS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[], int count[],
                int stride_levels, int proc);
int PARMCI_PutS_flag(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[],
                     int count[], int stride_levels, int *flag, int value, int proc);
int PARMCI_PutV(armci_giov_t *iov, int iov_len, int proc);
int PARMCI_PutValueDouble(double src, void *dst, int proc);
int PARMCI_PutValueFloat(float src, void *dst, int proc);
int PARMCI_PutValueInt(int src, void *dst, int proc);
int PARMCI_PutValueLong(long src, void *dst, int proc);
int PARMCI_Put_flag(void *src, void *dst, int size, int *flag, int value, int proc);
int PARMCI_Rmw(int op, void *ploc, void *prem, int value, int proc);
int PARMCI_Test(armci_hdl_t *hdl);
void PARMCI_Unlock(int mutex, int proc);
int PARMCI_Wait(armci_hdl_t *hdl);
int PARMCI_WaitAll(void);
int PARMCI_WaitProc(int proc);
void PARMCI_SET_AGGREGATE_HANDLE(armci_hdl_t *handle);
void PARMCI_UNSET_AGGREGATE_HANDLE(armci_hdl_t *handle);

#ifdef __cplusplus
}
#endif

#endif /* ARMCI_H */
