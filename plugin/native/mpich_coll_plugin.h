/*
 * Copyright (C) by Argonne National Laboratory
 *     See COPYRIGHT in top-level directory
 */

/* MPICH collective plugin ABI (version 4).
 *
 * MPICH loads one plugin at MPI_Init: the shared object named by
 * MPIR_CVAR_COLL_PLUGIN (default "libtopoa2a_native.so", looked up first
 * beside libmpi, then on the loader's path; "none" disables it). It calls the
 * plugin's entry point MPICH_COLL_PLUGIN_ENTRY with the host table below; the
 * plugin registers its algorithms and communicator callbacks through it.
 *
 * MPICH then calls a registered algorithm from its own dispatch
 * (MPIR_CVAR_<COLL>_INTRA_ALGORITHM=<name>, or the JSON selection's
 * "algorithm=MPIR_<Coll>_intra_<name>"). The plugin moves data only through
 * the host table (MPICH's internal point-to-point calls on the collective
 * context, MPICH's datatype engine): it never calls the public MPI API.
 *
 * Only <mpi.h> types cross this boundary; every function returns an MPI
 * error class (MPI_SUCCESS when it succeeded).
 *
 * Versions. The host table only grows: version 2 appends register_counter
 * to version 1's table, version 3 register_pvar, version 4 the schedules of
 * the nonblocking and persistent calls (register_sched_algorithm and the
 * sched_* members). A plugin reads a member only when the host's
 * abi_version is at least the version that added it, so a plugin built
 * against this header runs on a version-1 host (without its MPI_T
 * variables), a version-2 host (with its per-process counters only) or a
 * version-3 host (blocking calls only), and older plugins run on this host.
 */
#ifndef MPICH_COLL_PLUGIN_H_INCLUDED
#define MPICH_COLL_PLUGIN_H_INCLUDED

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPICH_COLL_PLUGIN_ABI_VERSION 4
#define MPICH_COLL_PLUGIN_ENTRY "MPICH_Coll_plugin_init"

/* The host's communicator, opaque to the plugin. */
typedef struct MPICH_Coll_plugin_comm MPICH_Coll_plugin_comm;
/* A pending point-to-point operation, opaque to the plugin. */
typedef void *MPICH_Coll_plugin_request;

typedef enum {
    MPICH_COLL_PLUGIN_ALLTOALL = 1,
    MPICH_COLL_PLUGIN_ALLTOALLV = 2,
    MPICH_COLL_PLUGIN_IALLTOALL = 3,    /* version 4: MPI_Ialltoall, MPI_Alltoall_init */
    MPICH_COLL_PLUGIN_IALLTOALLV = 4    /* version 4: MPI_Ialltoallv, MPI_Alltoallv_init */
} MPICH_Coll_plugin_coll;

/* The arguments of one call. Alltoall uses the counts; alltoallv the arrays
 * (the scalar counts are 0). sendbuf may be MPI_IN_PLACE. */
typedef struct {
    const void *sendbuf;
    MPI_Aint sendcount;
    const MPI_Aint *sendcounts;
    const MPI_Aint *sdispls;
    MPI_Datatype sendtype;
    void *recvbuf;
    MPI_Aint recvcount;
    const MPI_Aint *recvcounts;
    const MPI_Aint *rdispls;
    MPI_Datatype recvtype;
} MPICH_Coll_plugin_args;

/* What an algorithm's check answers. */
typedef enum {
    MPICH_COLL_PLUGIN_RUN = 0,          /* the algorithm runs this call */
    MPICH_COLL_PLUGIN_CANNOT_RUN = 1,   /* why: the reason; MPIR_CVAR_COLLECTIVE_FALLBACK applies */
    MPICH_COLL_PLUGIN_USE_MPICH = 2     /* why: the name of MPICH's algorithm to run instead */
} MPICH_Coll_plugin_verdict;

typedef struct {
    MPICH_Coll_plugin_coll coll;
    const char *name;           /* the CVAR value, e.g. "ring" */
    /* Decides for this call (collective: every rank answers the same).
     * comm_state is what comm_create returned for this communicator. */
    MPICH_Coll_plugin_verdict(*check) (const MPICH_Coll_plugin_args * args,
                                       MPICH_Coll_plugin_comm * comm, void *comm_state,
                                       void *ctx, char *why, int why_len);
    int (*run) (const MPICH_Coll_plugin_args * args, MPICH_Coll_plugin_comm * comm,
                void *comm_state, void *ctx);
    void *ctx;
} MPICH_Coll_plugin_algorithm;

/* Version 4. A schedule being built: a dependency graph of vertices (sends,
 * receives, local copies, joins, callbacks) that MPICH's transport-based
 * scheduler (gentran) runs for a nonblocking or persistent call, advanced
 * by MPICH's progress engine. Opaque; valid only during `build`. */
typedef struct MPICH_Coll_plugin_sched MPICH_Coll_plugin_sched;

/* Version 4. An algorithm of a nonblocking collective (coll is
 * MPICH_COLL_PLUGIN_IALLTOALL or _IALLTOALLV), selected by
 * MPIR_CVAR_I<COLL>_INTRA_ALGORITHM=<name>; the persistent call
 * (MPI_<Coll>_init) builds the same schedule once and MPICH runs it at each
 * MPI_Start. is_persistent: 1 for MPI_<Coll>_init, 0 for MPI_I<coll>.
 * check is as for blocking algorithms (USE_MPICH's why names one of
 * MPICH's nonblocking algorithms, e.g. "tsp_scattered", or "" for MPICH's
 * own selection). build adds the call's vertices through the
 * host's sched_* members; vertex ids are the host's. Buffers the schedule
 * needs come from sched_malloc. An error from build discards the schedule
 * (MPICH raises it from the call). */
typedef struct {
    MPICH_Coll_plugin_coll coll;
    const char *name;
    MPICH_Coll_plugin_verdict(*check) (const MPICH_Coll_plugin_args * args,
                                       MPICH_Coll_plugin_comm * comm, void *comm_state,
                                       void *ctx, int is_persistent, char *why, int why_len);
    int (*build) (const MPICH_Coll_plugin_args * args, MPICH_Coll_plugin_comm * comm,
                  void *comm_state, void *ctx, int is_persistent,
                  MPICH_Coll_plugin_sched * sched);
    void *ctx;
} MPICH_Coll_plugin_sched_algorithm;

/* What MPICH offers the plugin. */
typedef struct {
    int abi_version;
    /* Registration, during the entry point only. */
    int (*register_algorithm) (const MPICH_Coll_plugin_algorithm * algorithm);
    /* Called for every intracommunicator MPICH creates for the user
     * (MPI_COMM_WORLD and MPI_COMM_SELF included), collectively, when it is
     * committed; *state is passed back to the algorithms and comm_free. */
    int (*set_comm_callbacks) (int (*comm_create) (MPICH_Coll_plugin_comm * comm, void **state),
                               int (*comm_free) (MPICH_Coll_plugin_comm * comm, void *state));
    /* Called in MPI_Finalize, after the last communicator is freed. */
    int (*set_finalize) (int (*finalize) (void));

    /* Communicator facts (local: no communication). */
    int (*comm_size) (MPICH_Coll_plugin_comm * comm);
    int (*comm_rank) (MPICH_Coll_plugin_comm * comm);
    int (*world_rank) (MPICH_Coll_plugin_comm * comm, int rank);        /* -1: not in world */
    int (*node_id) (MPICH_Coll_plugin_comm * comm, int rank);   /* MPICH's node of a rank */
    /* The Cartesian topology attached to the communicator, if any: returns
     * the number of dimensions (0: none) and fills up to max_dims entries. */
    int (*cart_get) (MPICH_Coll_plugin_comm * comm, int max_dims, int *dims, int *periods);

    /* Point-to-point on the communicator's collective context. */
    int (*isend) (const void *buf, MPI_Aint count, MPI_Datatype type, int dest,
                  MPICH_Coll_plugin_comm * comm, MPICH_Coll_plugin_request * request);
    int (*irecv) (void *buf, MPI_Aint count, MPI_Datatype type, int source,
                  MPICH_Coll_plugin_comm * comm, MPICH_Coll_plugin_request * request);
    int (*waitall) (int count, MPICH_Coll_plugin_request * requests);
    /* Blocks until a message from source is pending; *bytes: its size. */
    int (*probe) (int source, MPICH_Coll_plugin_comm * comm, MPI_Aint * bytes);

    /* Datatypes. */
    int (*type_info) (MPI_Datatype type, MPI_Aint * size, MPI_Aint * extent, MPI_Aint * true_lb,
                      MPI_Aint * true_extent, int *contiguous);
    /* Copy count elements of type at in into bytes contiguous bytes at out. */
    int (*pack) (const void *in, MPI_Aint count, MPI_Datatype type, void *out, MPI_Aint bytes);
    int (*unpack) (const void *in, MPI_Aint bytes, void *out, MPI_Aint count, MPI_Datatype type);

    /* Version 2. An MPI_T performance variable of MPICH's own MPI_T: class
     * MPI_T_PVAR_CLASS_COUNTER, type MPI_UNSIGNED_LONG_LONG, one value per
     * process (MPI_T_BIND_NO_OBJECT), continuous and read-only, in MPI_T
     * category `category` (made on first use, described by category_desc).
     * MPI_T reads it through read(ctx) for as long as the process runs
     * (MPICH keeps the plugin mapped after MPI_Finalize); a handle reads it
     * as MPICH reads its own counters: the increase since the handle was
     * allocated. Strings are copied. During the entry point only. */
    int (*register_counter) (const char *name, const char *desc, const char *category,
                             const char *category_desc, unsigned long long (*read) (void *ctx),
                             void *ctx);

    /* Version 3. An MPI_T performance variable, more general than
     * register_counter. varclass: MPI_T_PVAR_CLASS_COUNTER (type
     * MPI_UNSIGNED_LONG_LONG; a handle reads the increase since it was
     * allocated) or MPI_T_PVAR_CLASS_STATE (type MPI_INT; its values are
     * named by the nitems strings of items, value i by items[i], in the
     * MPI_T enum enum_name, made by the first variable that names it).
     * bind: MPI_T_BIND_NO_OBJECT or MPI_T_BIND_MPI_COMM. Continuous and
     * read-only, in category `category` (described by category_desc unless
     * it already has a description; NULL: none). MPI_T reads it through
     * read(ctx, comm_state, out), which stores an unsigned long long or an
     * int at out; comm_state is, for MPI_T_BIND_MPI_COMM, what comm_create
     * returned for the handle's communicator, NULL where there is none (an
     * intercommunicator, MPI_COMM_NULL, a freed communicator); NULL for
     * unbound variables. Strings are copied. During the entry point only. */
    int (*register_pvar) (const char *name, const char *desc, const char *category,
                          const char *category_desc, int varclass, int bind,
                          const char *enum_name, int nitems, const char *const *items,
                          void (*read) (void *ctx, void *comm_state, void *out), void *ctx);

    /* Version 4. Registration of a nonblocking algorithm, during the entry
     * point only. */
    int (*register_sched_algorithm) (const MPICH_Coll_plugin_sched_algorithm * algorithm);
    /* Vertices of a schedule being built. Each starts once the n_in
     * vertices listed in in (ids returned earlier by these calls) have
     * completed, and stores its own id in *vtx. Sends and receives use the
     * communicator's collective context and a tag of this schedule's own,
     * so outstanding calls on one communicator never match each other's
     * messages; between two ranks they match in the order they are issued
     * (the plugin orders them with dependencies). A receive longer than
     * its buffer fails the request with MPI_ERR_TRUNCATE. */
    int (*sched_isend) (const void *buf, MPI_Aint count, MPI_Datatype type, int dest,
                        MPICH_Coll_plugin_sched * sched, int n_in, const int *in, int *vtx);
    int (*sched_irecv) (void *buf, MPI_Aint count, MPI_Datatype type, int source,
                        MPICH_Coll_plugin_sched * sched, int n_in, const int *in, int *vtx);
    /* Copies incount elements of intype at inbuf to outbuf as outcount
     * elements of outtype (the type signatures must match). */
    int (*sched_copy) (const void *inbuf, MPI_Aint incount, MPI_Datatype intype, void *outbuf,
                       MPI_Aint outcount, MPI_Datatype outtype, MPICH_Coll_plugin_sched * sched,
                       int n_in, const int *in, int *vtx);
    /* Completes once its n_in vertices have: a join, to depend on many. */
    int (*sched_join) (MPICH_Coll_plugin_sched * sched, int n_in, const int *in, int *vtx);
    /* Calls fn(data) once its n_in vertices have completed, at every run of
     * the schedule (each MPI_Start of a persistent request); fn returns an
     * MPI error class. */
    int (*sched_callback) (int (*fn) (void *data), void *data, MPICH_Coll_plugin_sched * sched,
                           int n_in, const int *in, int *vtx);
    /* Memory that lives as long as the schedule (NULL: out of memory). */
    void *(*sched_malloc) (MPI_Aint bytes, MPICH_Coll_plugin_sched * sched);
    /* Like sched_isend / sched_irecv for messages whose buffer and size are
     * known only at run time: *buf and *count are read when the vertex
     * starts (a callback before it may set them); type is a predefined
     * datatype. */
    int (*sched_isend_deferred) (const void *const *buf, const MPI_Aint * count,
                                 MPI_Datatype type, int dest, MPICH_Coll_plugin_sched * sched,
                                 int n_in, const int *in, int *vtx);
    int (*sched_irecv_deferred) (void *const *buf, const MPI_Aint * count, MPI_Datatype type,
                                 int source, MPICH_Coll_plugin_sched * sched, int n_in,
                                 const int *in, int *vtx);
    /* Calls fn(data) when the schedule is freed: state its callbacks use. */
    int (*sched_release) (void (*fn) (void *data), void *data, MPICH_Coll_plugin_sched * sched);
} MPICH_Coll_plugin_host;

/* The plugin's entry point: returns MPI_SUCCESS, or an error class to make
 * MPI_Init fail (a plugin that needs a newer host must refuse). */
typedef int (*MPICH_Coll_plugin_init_fn) (const MPICH_Coll_plugin_host * host);

#ifdef __cplusplus
}
#endif
#endif /* MPICH_COLL_PLUGIN_H_INCLUDED */
