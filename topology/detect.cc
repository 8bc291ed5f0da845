// Topology detection for the preload front door: PMPI calls only (this code
// runs inside the MPI_* interposer, so calling MPI_* here would recurse into
// the plugin).
#include "topology/detect.h"

#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <mutex>
#include <vector>

#include "topology/descriptions.h"

namespace topoa2a {

namespace {

// Node numbering of MPI_COMM_WORLD, recorded when a communicator congruent
// to it is detected, so that sub-communicators number nodes consistently.
std::mutex g_world_mutex;
std::vector<int> g_world_node_of_rank;  // indexed by world rank
int g_world_nodes = 0;

// Broadcast a string from rank 0.
void bcast_string(std::string* s, MPI_Comm comm) {
  long long n = static_cast<long long>(s->size());
  PMPI_Bcast(&n, 1, MPI_LONG_LONG, 0, comm);
  s->resize(static_cast<size_t>(n));
  // In chunks, so any length fits the int count.
  constexpr long long kChunk = 1 << 30;
  for (long long off = 0; off < n; off += kChunk) {
    const int len = static_cast<int>(n - off < kChunk ? n - off : kChunk);
    PMPI_Bcast(&(*s)[static_cast<size_t>(off)], len, MPI_CHAR, 0, comm);
  }
}

// Broadcast several strings from rank 0 in one message (plus its length).
void bcast_strings(std::initializer_list<std::string*> strings, MPI_Comm comm) {
  std::string packed;
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    for (const std::string* s : strings) {
      const unsigned long long n = s->size();
      packed.append(reinterpret_cast<const char*>(&n), sizeof n);
      packed.append(*s);
    }
  }
  bcast_string(&packed, comm);
  size_t pos = 0;
  for (std::string* s : strings) {
    unsigned long long n = 0;
    std::memcpy(&n, packed.data() + pos, sizeof n);
    pos += sizeof n;
    *s = packed.substr(pos, static_cast<size_t>(n));
    pos += static_cast<size_t>(n);
  }
}

}  // namespace

Topology detect_topology(MPI_Comm comm, const DetectOptions& options) {
  int size = 0, rank = 0, inter = 0;
  PMPI_Comm_size(comm, &size);
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) {
    Topology t = topology_from_layout(std::vector<int>(size, 0));
    t.rank = rank;
    t.errors.push_back("intercommunicator: only the local group is described, as one node");
    return t;
  }

  // 1. Nodes: the lowest rank of each shared-memory group names it.
  MPI_Comm node_comm = MPI_COMM_NULL;
  int leader = rank;
  if (PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node_comm) ==
          MPI_SUCCESS &&
      node_comm != MPI_COMM_NULL) {
    PMPI_Bcast(&leader, 1, MPI_INT, 0, node_comm);
    PMPI_Comm_free(&node_comm);
  }

  // 2. World rank and world layout.
  int world_size = 0, world_rank = -1, cmp = MPI_UNEQUAL;
  PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
  {
    MPI_Group group, world_group;
    PMPI_Comm_group(comm, &group);
    PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
    int wr = MPI_UNDEFINED;
    PMPI_Group_translate_ranks(group, 1, &rank, world_group, &wr);
    world_rank = wr == MPI_UNDEFINED ? -1 : wr;
    PMPI_Group_free(&group);
    PMPI_Group_free(&world_group);
  }
  PMPI_Comm_compare(comm, MPI_COMM_WORLD, &cmp);
  const bool is_world = cmp == MPI_IDENT || cmp == MPI_CONGRUENT;
  int global_node = -1;
  if (!is_world && world_rank >= 0) {
    std::lock_guard<std::mutex> lock(g_world_mutex);
    if (world_rank < static_cast<int>(g_world_node_of_rank.size()))
      global_node = g_world_node_of_rank[world_rank];
  }

  // 3. Binding.
  int package = -1, numa = -1;
  if (options.use_hwloc) local_binding(&package, &numa);

  // 4. One allgather of the per-rank facts.
  std::vector<int> all(static_cast<size_t>(size) * 5);
  int mine[5] = {leader, world_rank, package, numa, global_node};
  PMPI_Allgather(mine, 5, MPI_INT, all.data(), 5, MPI_INT, comm);

  std::vector<int> node_of_rank(size);
  for (int r = 0; r < size; ++r) node_of_rank[r] = all[5 * r];
  Topology t = topology_from_layout(node_of_rank);
  t.rank = rank;
  t.world_size = world_size;
  bool global_known = !is_world;
  for (int r = 0; r < size; ++r) {
    t.world_rank[r] = all[5 * r + 1];
    t.package_of_rank[r] = all[5 * r + 2];
    t.numa_of_rank[r] = all[5 * r + 3];
    if (all[5 * r + 4] < 0) global_known = false;
  }
  if (is_world) {
    std::lock_guard<std::mutex> lock(g_world_mutex);
    g_world_node_of_rank.assign(world_size, -1);
    for (int r = 0; r < size; ++r)
      if (t.world_rank[r] >= 0 && t.world_rank[r] < world_size)
        g_world_node_of_rank[t.world_rank[r]] = t.node_of_rank[r];
    g_world_nodes = t.nodes;
  }
  if (global_known) {
    std::lock_guard<std::mutex> lock(g_world_mutex);
    for (int r = 0; r < size; ++r) t.global_node_of_rank[r] = all[5 * r + 4];
    t.world_nodes = g_world_nodes;
  } else {
    t.world_nodes = t.nodes;  // best effort: the communicator's own nodes
  }
  reset_network(&t);

  // 5. Process topology.
  int status = MPI_UNDEFINED;
  PMPI_Topo_test(comm, &status);
  if (status == MPI_CART) {
    t.proc_topo = ProcTopo::kCart;
    int nd = 0;
    PMPI_Cartdim_get(comm, &nd);
    if (options.use_cart && nd > 0) {
      std::vector<int> dims(nd), periods(nd), coords(nd);
      PMPI_Cart_get(comm, nd, dims.data(), periods.data(), coords.data());
      t.cart_dims = dims;
      t.cart_periods = periods;
    }
  } else if (status == MPI_GRAPH) {
    t.proc_topo = ProcTopo::kGraph;
  } else if (status == MPI_DIST_GRAPH) {
    t.proc_topo = ProcTopo::kDistGraph;
  }

  // 6. The user's descriptions, read on rank 0 and broadcast, so that every
  // rank builds the same Topology.
  UserDescriptions d;
  if (rank == 0) {
    if (options.read_env) d = read_user_descriptions();
    if (!options.forced.empty()) d.forced = options.forced;
    if (!options.network_file.empty()) {
      d.path = options.network_file;
      d.read_error.clear();
      if (!read_text_file(d.path, &d.text, &d.read_error)) d.text.clear();
    }
  }
  bcast_strings({&d.forced, &d.path, &d.text, &d.read_error, &d.cost}, comm);

  // 7. Host names, when host lines need them (the same decision on every
  // rank, since every rank parsed the same text).
  auto gather_names = [&]() {
    char name[MPI_MAX_PROCESSOR_NAME];
    std::memset(name, 0, sizeof name);
    int len = 0;
    PMPI_Get_processor_name(name, &len);
    std::vector<char> names(static_cast<size_t>(size) * MPI_MAX_PROCESSOR_NAME);
    PMPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names.data(), MPI_MAX_PROCESSOR_NAME,
                   MPI_CHAR, comm);
    std::vector<std::string> by_rank(size);
    for (int r = 0; r < size; ++r) {
      const char* p = &names[static_cast<size_t>(r) * MPI_MAX_PROCESSOR_NAME];
      by_rank[r] = std::string(p, strnlen(p, MPI_MAX_PROCESSOR_NAME));
    }
    return by_rank;
  };
  apply_user_descriptions(&t, d, gather_names, options.gather_hostnames);
  return t;
}

}  // namespace topoa2a
