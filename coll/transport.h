// Transport: the point-to-point calls and datatype services the executor
// needs. The preload front door implements it with PMPI calls on a private
// duplicate of the user's communicator; a native MPICH build can implement
// it with MPICH's internal MPIC_* calls. Only mpi.h types cross it.
//
// Counts and sizes are 64-bit throughout (a block may exceed 2 GiB).
//
// Errors never strand a peer: an exchange posts every message it is given,
// whatever fails, so that each pair of ranks matches the same number of
// messages in every round. A rank that has failed keeps running its
// schedule with `discard` set: its sends go as empty messages that mark the
// payload as lost (the peer's receive then reports an error), and its
// receives take whatever arrives into nothing. Every rank thus finishes its
// schedule and returns, the failed ones and those they fed with an error.
#pragma once

#include <mpi.h>

#include <vector>

namespace topoa2a {

struct Message {
  void* buf;  // const for sends; may be MPI_BOTTOM with absolute-address types
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
  // peer are matched in list order. Returns MPI_SUCCESS or the first error
  // as an MPI error code of its real class (never MPI_ERR_IN_STATUS): a
  // message longer or shorter than its receive is MPI_ERR_TRUNCATE, one
  // whose sender had failed (a discarded payload) the class of the sender's
  // error. With `failed` other than MPI_SUCCESS, discard mode (see above);
  // the result is then of no interest.
  virtual int exchange(const Message* sends, int nsends, const Message* recvs, int nrecvs,
                       int failed) = 0;
  // As exchange, plus receives of unknown length from `probe_peers`: each
  // lands, as bytes, in the matching `probed` vector (resized to fit).
  virtual int exchange_probed(const Message* sends, int nsends, const Message* recvs, int nrecvs,
                              const int* probe_peers, std::vector<char>* probed, int nprobed,
                              int failed) = 0;
  // Pack `count` elements of `type` at `in` (MPI_BOTTOM allowed) into
  // `bytes` contiguous bytes.
  virtual int pack(const void* in, MPI_Aint count, MPI_Datatype type, void* out,
                   MPI_Aint bytes) = 0;
  virtual int unpack(const void* in, MPI_Aint bytes, void* out, MPI_Aint count,
                     MPI_Datatype type) = 0;
  virtual int type_info(MPI_Datatype type, TypeInfo* info) = 0;
};

}  // namespace topoa2a
