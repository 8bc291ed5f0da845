// Transport: the nonblocking point-to-point calls and datatype services the
// executor needs. The preload front door implements it with PMPI calls on a
// private duplicate of the user's communicator (pmpi_transport.h), the
// native door with the host table MPICH hands a plugin
// (plugin/native/native_transport.h), the tests with fakes. Only mpi.h types
// cross it. Counts and sizes are 64-bit throughout (a block may exceed
// 2 GiB).
//
// Messages are posted one at a time, each under an id the executor chooses,
// and reported back by wait() once complete. Messages between the same pair
// of ranks match in the order they are posted (MPI's non-overtaking rule);
// a transport that cannot post a receive at once (one of unknown length
// waiting for its probe) holds back the later receives from that peer.
//
// Errors never strand a peer: every posted message completes and is
// reported, whatever fails. A message posted with `failed` other than
// MPI_SUCCESS runs in discard mode: a send goes as an empty message that
// marks the payload as lost (carrying the class of `failed` where the
// transport can), a receive takes whatever arrives into nothing; both are
// reported with MPI_SUCCESS. A rank that has failed thus still finishes its
// schedule's traffic, and so do its peers.
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

// One completed message. err: MPI_SUCCESS or an MPI error code of its real
// class (never MPI_ERR_IN_STATUS): a message longer or shorter than its
// receive is MPI_ERR_TRUNCATE, a lost payload the class its sender failed
// with, a send or receive that could not be posted the error of the post.
struct Completion {
  int id;
  int err;
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
  virtual void post_send(int id, const Message& m, int failed) = 0;
  // A receive of known length (m.count elements of m.type).
  virtual void post_recv(int id, const Message& m, int failed) = 0;
  // A receive of unknown length from `peer`: lands, as bytes, in *into
  // (resized to fit); *into must stay alive until the receive is reported.
  virtual void post_recv_any(int id, int peer, std::vector<char>* into, int failed) = 0;
  // Blocks until at least one posted message has completed and appends the
  // completed ones to *done. `oldest` names the messages of the executor's
  // oldest incomplete round that are not yet reported (n >= 1): all of them
  // are posted, and they complete without any further post from this rank
  // (see exec_engine.h), so a transport that can only wait for a whole set
  // may wait for exactly these.
  virtual void wait(const int* oldest, int n, std::vector<Completion>* done) = 0;
  // The same without blocking: appends what has completed (possibly
  // nothing) and returns; it also advances what the transport holds back
  // (probes). Nonblocking calls use it. The default blocks (wait): a
  // transport that runs only blocking calls need not provide it.
  virtual void test(const int* oldest, int n, std::vector<Completion>* done) {
    wait(oldest, n, done);
  }
  // Every message posted so far is complete and reported: the executor has
  // finished this call's traffic (a transport releases what it held while
  // waiting; pmpi_transport.h).
  virtual void finish() {}
  // Pack `count` elements of `type` at `in` (MPI_BOTTOM allowed) into
  // `bytes` contiguous bytes.
  virtual int pack(const void* in, MPI_Aint count, MPI_Datatype type, void* out,
                   MPI_Aint bytes) = 0;
  virtual int unpack(const void* in, MPI_Aint bytes, void* out, MPI_Aint count,
                     MPI_Datatype type) = 0;
  virtual int type_info(MPI_Datatype type, TypeInfo* info) = 0;
};

}  // namespace topoa2a
