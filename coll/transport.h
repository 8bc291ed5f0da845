// Transport: the point-to-point calls and datatype services the executor
// needs. The preload front door implements it with PMPI calls on a private
// duplicate of the user's communicator; a native MPICH build can implement
// it with MPICH's internal MPIC_* calls. Only mpi.h types cross it.
#pragma once

#include <mpi.h>

#include <vector>

namespace topoa2a {

struct Message {
  void* buf;  // const for sends
  MPI_Aint count;
  MPI_Datatype type;
  int peer;
};

struct TypeInfo {
  MPI_Aint size = 0;    // bytes of data in one element
  MPI_Aint extent = 0;  // stride between consecutive elements
  MPI_Aint true_lb = 0;
  MPI_Aint true_extent = 0;
  bool memcpy_ok = false;  // elements are plain bytes in typemap order: copy with memcpy
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Post every receive and send, then wait for all. Messages to the same
  // peer are matched in list order. Returns an MPI error code.
  virtual int exchange(const Message* sends, int nsends, const Message* recvs, int nrecvs) = 0;
  // As exchange, plus receives of unknown length from `probe_peers`: each
  // lands, as bytes, in the matching `probed` vector (resized to fit).
  virtual int exchange_probed(const Message* sends, int nsends, const Message* recvs, int nrecvs,
                              const int* probe_peers, std::vector<char>* probed, int nprobed) = 0;
  // Pack `count` elements of `type` at `in` into `bytes` contiguous bytes.
  virtual int pack(const void* in, MPI_Aint count, MPI_Datatype type, void* out,
                   MPI_Aint bytes) = 0;
  virtual int unpack(const void* in, MPI_Aint bytes, void* out, MPI_Aint count,
                     MPI_Datatype type) = 0;
  virtual int type_info(MPI_Datatype type, TypeInfo* info) = 0;
};

}  // namespace topoa2a
