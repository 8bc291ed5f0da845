/* Runtime control of the preload library, for benchmarks and tools. Not
 * linked against: find it with dlsym(RTLD_DEFAULT, "topoa2a_select"), which
 * also tells whether libtopoa2a is loaded at all. */
#ifndef TOPOA2A_PLUGIN_CONTROL_H
#define TOPOA2A_PLUGIN_CONTROL_H

#ifdef __cplusplus
extern "C" {
#endif

/* Select the algorithm of `op` ("alltoall", "alltoallv", "ialltoall" (also
 * MPI_Alltoall_init) or "ialltoallv") from now on, as
 * if MPIR_CVAR_<OP>_INTRA_ALGORITHM had held `value` at MPI_Init: one of
 * ours, "topo_auto", or one of MPICH's values, which hands the operation
 * back to MPICH (whose own variable then decides; set it with MPI_T).
 * topo_auto chosen here uses the cost model only (a rules file is read at
 * MPI_Init, when topo_auto is selected there).
 *
 * Call it between MPI_Init and MPI_Finalize, on every rank of every
 * communicator that will use `op`, with the same value, and never while
 * another thread is inside a collective. When no algorithm of ours was
 * selected at MPI_Init, the first call that selects one is collective over
 * MPI_COMM_WORLD (it gathers the facts topology detection needs): make it
 * on every rank.
 *
 * Returns 0 on success, 1 for an unknown operation or a value not valid for
 * it, 2 outside MPI_Init..MPI_Finalize. */
typedef int (*topoa2a_select_fn)(const char* op, const char* value);
int topoa2a_select(const char* op, const char* value);

/* Messages in flight per rank for topoa2a's algorithms from now on, as if
 * MPIR_CVAR_TOPOA2A_WINDOW had held `window` at MPI_Init (0: each
 * algorithm's default). Same rules as topoa2a_select: every rank, the same
 * value. Returns 0 on success, 1 for a value out of range, 2 outside
 * MPI_Init..MPI_Finalize. */
typedef int (*topoa2a_set_window_fn)(int window);
int topoa2a_set_window(int window);

#ifdef __cplusplus
}
#endif

#endif
