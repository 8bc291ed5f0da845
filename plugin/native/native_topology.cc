#include "plugin/native/native_topology.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "plugin/native/native_transport.h"
#include "topology/binding.h"

namespace topoa2a {
namespace {

// One process's record in the world gather.
struct Record {
  char name[256];
  int package;
  int numa;
};

}  // namespace

int gather_world_facts(const MPICH_Coll_plugin_host& host, MPICH_Coll_plugin_comm* world,
                       WorldFacts* out) {
  NativeTransport tr(host, world);
  const int p = tr.size(), me = tr.rank();
  std::vector<Record> all(static_cast<size_t>(p));
  Record& mine = all[me];
  std::memset(&mine, 0, sizeof mine);
  gethostname(mine.name, sizeof mine.name - 1);
  local_binding(&mine.package, &mine.numa);
  // Ring allgather: in step k pass on the record that came from rank me-k.
  const int right = (me + 1) % p, left = (me + p - 1) % p;
  for (int k = 0; k + 1 < p; ++k) {
    const int send_from = (me - k + p) % p, recv_from = (me - k - 1 + 2 * p) % p;
    const Message send{&all[send_from], static_cast<MPI_Aint>(sizeof(Record)), MPI_BYTE, right};
    const Message recv{&all[recv_from], static_cast<MPI_Aint>(sizeof(Record)), MPI_BYTE, left};
    tr.post_recv(1, recv, MPI_SUCCESS);
    tr.post_send(0, send, MPI_SUCCESS);
    const int ids[2] = {0, 1};
    std::vector<Completion> done;
    while (done.size() < 2) tr.wait(ids, 2, &done);  // the native transport waits for both
    for (const Completion& c : done)
      if (c.err != MPI_SUCCESS) return c.err;
  }
  out->node.resize(static_cast<size_t>(p));
  out->host_names.resize(static_cast<size_t>(p));
  out->package.resize(static_cast<size_t>(p));
  out->numa.resize(static_cast<size_t>(p));
  int max_node = -1;
  for (int r = 0; r < p; ++r) {
    all[r].name[sizeof all[r].name - 1] = 0;
    out->node[r] = host.node_id(world, r);  // MPICH's node ids are global
    out->host_names[r] = all[r].name;
    out->package[r] = all[r].package;
    out->numa[r] = all[r].numa;
    max_node = std::max(max_node, out->node[r]);
  }
  out->nodes = max_node + 1;
  return MPI_SUCCESS;
}

Topology native_topology(const MPICH_Coll_plugin_host& host, MPICH_Coll_plugin_comm* comm,
                         const WorldFacts& world, const UserDescriptions& descriptions,
                         const std::vector<int>& cart_dims, const std::vector<int>& cart_periods) {
  const int size = host.comm_size(comm);
  CommFacts f;
  f.rank = host.comm_rank(comm);
  f.world_rank.resize(static_cast<size_t>(size));
  f.node.resize(static_cast<size_t>(size));
  for (int r = 0; r < size; ++r) {
    f.world_rank[r] = host.world_rank(comm, r);
    f.node[r] = host.node_id(comm, r);
  }
  f.cart_dims = cart_dims;
  f.cart_periods = cart_periods;
  if (!cart_dims.empty()) f.proc_topo = ProcTopo::kCart;
  return derive_topology(world, f, descriptions);
}

}  // namespace topoa2a
