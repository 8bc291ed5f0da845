// Transport over PMPI point-to-point calls on one communicator.
//
// Calls PMPI_* directly so that, inside the preload interposer, internal
// traffic never re-enters the interposed MPI_* symbols. The communicator
// should be private to topoa2a (a duplicate of the user's, with
// MPI_ERRORS_RETURN), so that its internal tags can never match a user
// message. Counts are MPI_Count (MPI-4's large-count calls), so a message
// or a datatype may exceed 2 GiB.
//
// Sends are PMPI_Isend_c; receives of known length plain PMPI_Irecv_c (any
// tag: a lost payload is an empty message on kLostTag + its error class, so
// it can never overflow a receive); receives of unknown length, and every
// receive in discard mode, a matched probe (PMPI_Improbe / PMPI_Imrecv_c)
// for exactly the size that arrives. Completion is PMPI_Waitsome, or
// PMPI_Testsome and probing while a probe is outstanding.
//
// MPICH 4.0.2 reports an error found when a request completes (a truncated
// receive: a peer that sent more than its receive expects, an erroneous
// program) through MPI_COMM_WORLD's error handler, whatever the request's
// communicator, and MPI_ERRORS_ARE_FATAL aborts. So while a transport
// waits, MPI_COMM_WORLD's handler is MPI_ERRORS_RETURN (set by the first
// wait of a call, restored by finish() or the destructor; several
// transports of the process share one setting); a truncated receive then
// ends as MPI_ERR_TRUNCATE on this rank, and the error the front door
// raises afterwards meets the user's handlers as they were. A thread that sets MPI_COMM_WORLD's
// handler while a topoa2a call runs in another may see it replaced by the one in force before.
#pragma once

#include <mpi.h>

#include <vector>

#include "coll/transport.h"

namespace topoa2a {

class PmpiTransport final : public Transport {
 public:
  static constexpr int kTag = 7331;  // payload
  // A lost payload (the sender has failed): no data, on tag kLostTag + the
  // class of the sender's error (a predefined class; MPI_ERR_OTHER else).
  static constexpr int kLostTag = 7332;
  static constexpr int kMaxLostClass = 255;
  // own_state: working memory of its own, for a transport that outlives
  // the call that made it or moves between threads (a nonblocking call);
  // otherwise the thread's, reused between calls.
  explicit PmpiTransport(MPI_Comm comm, bool own_state = false);
  ~PmpiTransport() override;
  PmpiTransport(const PmpiTransport&) = delete;
  PmpiTransport& operator=(const PmpiTransport&) = delete;
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void post_send(int id, const Message& m, int failed) override;
  void post_recv(int id, const Message& m, int failed) override;
  void post_recv_any(int id, int peer, std::vector<char>* into, int failed) override;
  void wait(const int* oldest, int n, std::vector<Completion>* done) override;
  // One PMPI_Testsome pass (and probes); MPI_COMM_WORLD's handler is
  // MPI_ERRORS_RETURN only during the call.
  void test(const int* oldest, int n, std::vector<Completion>* done) override;
  void finish() override;
  int pack(const void* in, MPI_Aint count, MPI_Datatype type, void* out, MPI_Aint bytes) override;
  int unpack(const void* in, MPI_Aint bytes, void* out, MPI_Aint count, MPI_Datatype type) override;
  int type_info(MPI_Datatype type, TypeInfo* info) override;

 private:
  enum class Kind : unsigned char { kSend, kRecv, kProbed, kDiscard };
  struct Slot {  // one request in flight
    int id = -1;
    Kind kind = Kind::kSend;
    int err = MPI_SUCCESS;    // kSend, kDiscard: to report
    MPI_Count expected = 0;   // kRecv: bytes
    std::vector<char> spare;  // kDiscard: what it takes
  };
  struct Held {  // a receive not yet posted: it waits for a probe
    int id;
    bool any;      // by matched probe: unknown length, or discard
    bool discard;  // take it into nothing
    int err;       // discard: to report (a post that failed)
    Message m;
    std::vector<char>* into;  // unknown length: where it lands
  };
  int add(int id, Kind kind);
  int start_recv(int id, const Message& m);  // MPI_SUCCESS or the post's error
  bool held_from(int peer) const;
  void advance();  // probes for held receives, posts what may go
  void collect(int count, int rc, std::vector<Completion>* done);

  // Working memory, kept per thread between calls (cleared, not freed).
  struct State {
    std::vector<MPI_Request> requests;
    std::vector<Slot> slots;
    std::vector<int> free;
    std::vector<Held> held, keep;   // in posting order
    std::vector<int> blocked;       // peers whose next message a held receive waits for
    std::vector<Completion> ready;  // complete without a request
    std::vector<int> indices;
    std::vector<MPI_Status> statuses;
    bool busy = false;
  };
  static State* take_state(bool* owned, bool own);
  void some(bool block, std::vector<Completion>* done);
  // MPI_COMM_WORLD at MPI_ERRORS_RETURN until finish() (see the top).
  void hold_world();

  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  bool world_returns_ = false;  // this transport holds MPI_COMM_WORLD at MPI_ERRORS_RETURN
  bool owned_ = false;          // st_ is this transport's own
  State* st_;
  std::vector<MPI_Request>& requests_;
  std::vector<Slot>& slots_;
  std::vector<int>& free_;
  std::vector<Held>& held_;
  std::vector<Held>& keep_;
  std::vector<int>& blocked_;
  std::vector<Completion>& ready_;
  std::vector<int>& indices_;
  std::vector<MPI_Status>& statuses_;
};

// True when `type` is laid out as plain bytes in typemap order (a named
// type with no gaps, or contiguous/dup of one).
bool is_memcpy_type(MPI_Datatype type);

// The class of an MPI error code (PMPI_Error_class; MPI_ERR_OTHER if that fails).
int error_class(int code);

// MPICH's own checks of one user buffer argument of a collective, made
// before it communicates (src/binding/c/coll/alltoall.c in MPICH 4.0.2):
// the datatype is committed, and a NULL buffer with count > 0 is refused
// unless the datatype's true lower bound is non-zero (absolute addresses
// from MPI_BOTTOM). Returns MPI_SUCCESS or the error class MPICH would
// report, through no error handler (the check calls PMPI_Pack_size on a
// private communicator of this process, made once, whose errors return).
int mpich_buffer_check(const void* buf, MPI_Aint count, MPI_Datatype type);

}  // namespace topoa2a
