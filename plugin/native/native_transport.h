// Transport over the host table MPICH hands a collective plugin: MPICH's
// internal point-to-point calls on the communicator's collective context
// and MPICH's datatype engine. No public MPI call is made.
//
// The host table (ABI version 1: isend, irecv, waitall, a blocking probe;
// no test, no waitany) cannot wait for "any one" message, so wait() waits,
// with one waitall, for exactly the messages of the executor's oldest
// incomplete round that are not yet reported (Transport::wait's `oldest`);
// later rounds' messages stay posted and are reported when their round is
// the oldest. That cannot deadlock: the oldest round's messages complete
// without any further post from this rank (exec_engine.h). For the same
// reason a receive of unknown length is probed for (blocking) only when its
// round is the oldest; until then it, and every later receive from the
// same peer, is held back, so that receives from one peer are posted in
// schedule order (a posted receive would otherwise take the message the
// probe is for). The host table has no tags and no statuses: a discarded
// payload goes as an empty message, which the peer's receive cannot tell
// from data (its own failure, if any, still ends its schedule; see README,
// limits).
#pragma once

#include <vector>

#include "coll/transport.h"
#include "plugin/native/mpich_coll_plugin.h"

namespace topoa2a {

// A datatype's facts from MPICH (the host table), as the executor wants them.
int native_type_info(const MPICH_Coll_plugin_host& host, MPI_Datatype type, TypeInfo* info);

class NativeTransport final : public Transport {
 public:
  NativeTransport(const MPICH_Coll_plugin_host& host, MPICH_Coll_plugin_comm* comm);
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void post_send(int id, const Message& m, int failed) override;
  void post_recv(int id, const Message& m, int failed) override;
  void post_recv_any(int id, int peer, std::vector<char>* into, int failed) override;
  void wait(const int* oldest, int n, std::vector<Completion>* done) override;
  int pack(const void* in, MPI_Aint count, MPI_Datatype type, void* out, MPI_Aint bytes) override;
  int unpack(const void* in, MPI_Aint bytes, void* out, MPI_Aint count, MPI_Datatype type) override;
  int type_info(MPI_Datatype type, TypeInfo* info) override;

 private:
  struct Posted {
    MPICH_Coll_plugin_request request = nullptr;
    int err = MPI_SUCCESS;    // of the post
    std::vector<char> spare;  // a discarded message of unknown length
  };
  struct Held {
    int id;
    bool any;
    bool discard;
    Message m;
    std::vector<char>* into;
  };
  Posted& slot(int id);
  void post(int id, bool send, const Message& m, bool discard);
  void release_held(const int* oldest, int n);

  const MPICH_Coll_plugin_host& host_;
  MPICH_Coll_plugin_comm* comm_;
  int rank_, size_;
  std::vector<Posted> posted_;  // by message id
  std::vector<Held> held_, keep_;
  std::vector<int> blocked_;
  std::vector<MPICH_Coll_plugin_request> batch_;
};

}  // namespace topoa2a
