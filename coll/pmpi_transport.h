// Transport over PMPI point-to-point calls on one communicator.
//
// Calls PMPI_* directly so that, inside the preload interposer, internal
// traffic never re-enters the interposed MPI_* symbols. The communicator
// should be private to topoa2a (a duplicate of the user's), so that the
// single internal tag can never match a user message.
#pragma once

#include <mpi.h>

#include <vector>

#include "coll/transport.h"

namespace topoa2a {

class PmpiTransport final : public Transport {
 public:
  static constexpr int kTag = 7331;
  explicit PmpiTransport(MPI_Comm comm);
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int exchange(const Message* sends, int nsends, const Message* recvs, int nrecvs) override;
  int exchange_probed(const Message* sends, int nsends, const Message* recvs, int nrecvs,
                      const int* probe_peers, std::vector<char>* probed, int nprobed) override;
  int pack(const void* in, MPI_Aint count, MPI_Datatype type, void* out, MPI_Aint bytes) override;
  int unpack(const void* in, MPI_Aint bytes, void* out, MPI_Aint count, MPI_Datatype type) override;
  int type_info(MPI_Datatype type, TypeInfo* info) override;

 private:
  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  std::vector<MPI_Request> requests_;
};

// True when `type` is laid out as plain bytes in typemap order (a named
// type with no gaps, or contiguous/dup of one).
bool is_memcpy_type(MPI_Datatype type);

}  // namespace topoa2a
