// Transport over PMPI point-to-point calls on one communicator.
//
// Calls PMPI_* directly so that, inside the preload interposer, internal
// traffic never re-enters the interposed MPI_* symbols. The communicator
// should be private to topoa2a (a duplicate of the user's, with
// MPI_ERRORS_RETURN), so that its two internal tags can never match a user
// message. Counts are MPI_Count (MPI-4's large-count calls), so a message
// or a datatype may exceed 2 GiB.
#pragma once

#include <mpi.h>

#include <set>
#include <vector>

#include "coll/transport.h"

namespace topoa2a {

class PmpiTransport final : public Transport {
 public:
  static constexpr int kTag = 7331;      // payload
  static constexpr int kLostTag = 7332;  // the sender has failed; payload: its error class
  explicit PmpiTransport(MPI_Comm comm);
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int exchange(const Message* sends, int nsends, const Message* recvs, int nrecvs,
               int failed) override;
  int exchange_probed(const Message* sends, int nsends, const Message* recvs, int nrecvs,
                      const int* probe_peers, std::vector<char>* probed, int nprobed,
                      int failed) override;
  int pack(const void* in, MPI_Aint count, MPI_Datatype type, void* out, MPI_Aint bytes) override;
  int unpack(const void* in, MPI_Aint bytes, void* out, MPI_Aint count, MPI_Datatype type) override;
  int type_info(MPI_Datatype type, TypeInfo* info) override;

 private:
  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  std::vector<MPI_Request> requests_;
  std::vector<std::vector<char>> spare_;  // receives of the wrong size or discarded
  std::vector<char> pending_;
  std::set<int> busy_;
  int lost_class_ = MPI_SUCCESS;
};

// True when `type` is laid out as plain bytes in typemap order (a named
// type with no gaps, or contiguous/dup of one).
bool is_memcpy_type(MPI_Datatype type);

// MPICH's own checks of one user buffer argument of a collective, made
// before it communicates (src/binding/c/coll/alltoall.c in MPICH 4.0.2):
// the datatype is committed, and a NULL buffer with count > 0 is refused
// unless the datatype's true lower bound is non-zero (absolute addresses
// from MPI_BOTTOM). Returns MPI_SUCCESS or the error class MPICH would
// report, through no error handler (the check calls PMPI_Pack_size on a
// private communicator of this process, made once, whose errors return).
int mpich_buffer_check(const void* buf, MPI_Aint count, MPI_Datatype type);

}  // namespace topoa2a
