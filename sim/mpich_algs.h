// Reproductions of MPICH 4.0.2's MPI_Alltoall algorithms for contiguous
// data, and the choice its shipped tuning makes, for sim_a2a.
//
// SimGrid SMPI has its own algorithms under similar names, but not MPICH's
// batched scattered, and its bruck differs in detail; these follow MPICH
// 4.0.2's src/mpi/coll/alltoall/alltoall_intra_{brucks,scattered,pairwise}.c
// message for message (same peers, sizes, order and synchronisation). Local
// packing and copies are memcpy (SMPI does not simulate their time here).
#pragma once

#include <mpi.h>

#include <string>

namespace sim {

// MPIR_Alltoall_intra_brucks: rotate, ceil(log2 p) rounds of one Sendrecv
// (to rank + 2^k, from rank - 2^k) carrying every block whose index has bit
// k set, packed; rotate back.
int mpich_brucks(const char* sb, char* rb, long bytes, MPI_Comm comm);
// MPIR_Alltoall_intra_scattered: batches of `throttle` peers
// (MPIR_CVAR_ALLTOALL_THROTTLE, default 32); in each, Irecv from rank + i,
// Isend to rank - i, Waitall.
int mpich_scattered(const char* sb, char* rb, long bytes, MPI_Comm comm, int throttle = 32);
// MPIR_Alltoall_intra_pairwise: p - 1 Sendrecv rounds; peer rank ^ i when p
// is a power of two, else to rank + i and from rank - i.
int mpich_pairwise(const char* sb, char* rb, long bytes, MPI_Comm comm);

// What MPICH 4.0.2's shipped tuning (maint/tuning/coll/mpir/generic.json,
// compiled into csel_json_autogen.c; ch4's generic.json composes to it)
// picks for an intra-communicator MPI_Alltoall: "brucks", "scattered",
// "pairwise" or (in place) "pairwise_sendrecv_replace". avg_msg_size is
// the bytes of one block (type size x sendcount, csel.c).
std::string mpich_default_choice(int p, long block_bytes, bool in_place);

// Runs one of "brucks", "scattered", "pairwise"; MPI_ERR_ARG for others.
int run_mpich(const std::string& name, const char* sb, char* rb, long bytes, MPI_Comm comm);

}  // namespace sim
