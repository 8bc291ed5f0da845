// Transport over the host table MPICH hands a collective plugin: MPICH's
// internal point-to-point calls on the communicator's collective context
// and MPICH's datatype engine. No public MPI call is made.
#pragma once

#include <vector>

#include "coll/transport.h"
#include "plugin/native/mpich_coll_plugin.h"

namespace topoa2a {

class NativeTransport final : public Transport {
 public:
  NativeTransport(const MPICH_Coll_plugin_host& host, MPICH_Coll_plugin_comm* comm);
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
  const MPICH_Coll_plugin_host& host_;
  MPICH_Coll_plugin_comm* comm_;
  int rank_, size_;
  std::vector<MPICH_Coll_plugin_request> requests_;
};

}  // namespace topoa2a
