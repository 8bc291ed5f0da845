#include "topology/detect.h"

#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "topology/binding.h"

namespace topoa2a {
namespace {

// Broadcast strings from rank 0 of `comm` in one message (plus its length).
int bcast_strings(std::initializer_list<std::string*> strings, MPI_Comm comm) {
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
  long long n = static_cast<long long>(packed.size());
  int err = PMPI_Bcast(&n, 1, MPI_LONG_LONG, 0, comm);
  if (err != MPI_SUCCESS) return err;
  packed.resize(static_cast<size_t>(n));
  constexpr long long kChunk = 1 << 30;  // any length fits the int count
  for (long long off = 0; off < n && err == MPI_SUCCESS; off += kChunk) {
    const int len = static_cast<int>(n - off < kChunk ? n - off : kChunk);
    err = PMPI_Bcast(&packed[static_cast<size_t>(off)], len, MPI_CHAR, 0, comm);
  }
  if (err != MPI_SUCCESS) return err;
  size_t pos = 0;
  for (std::string* s : strings) {
    unsigned long long len = 0;
    std::memcpy(&len, packed.data() + pos, sizeof len);
    pos += sizeof len;
    *s = packed.substr(pos, static_cast<size_t>(len));
    pos += static_cast<size_t>(len);
  }
  return MPI_SUCCESS;
}

}  // namespace

int gather_world(WorldFacts* facts, UserDescriptions* descriptions) {
  MPI_Comm world = MPI_COMM_NULL;
  // A private duplicate, made before the user can have attached attributes
  // to MPI_COMM_WORLD with callbacks, keeps this traffic apart from theirs.
  int err = PMPI_Comm_dup(MPI_COMM_WORLD, &world);
  if (err != MPI_SUCCESS) return err;
  PMPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN);
  int size = 0, rank = 0;
  PMPI_Comm_size(world, &size);
  PMPI_Comm_rank(world, &rank);

  // Nodes: the lowest world rank of each shared-memory group names it.
  int leader = rank;
  MPI_Comm node_comm = MPI_COMM_NULL;
  err = PMPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node_comm);
  if (err == MPI_SUCCESS && node_comm != MPI_COMM_NULL) {
    err = PMPI_Bcast(&leader, 1, MPI_INT, 0, node_comm);
    PMPI_Comm_free(&node_comm);
  }
  struct Record {
    int leader, package, numa;
    char name[MPI_MAX_PROCESSOR_NAME];
  };
  std::vector<Record> all(static_cast<size_t>(size));
  Record mine;
  std::memset(&mine, 0, sizeof mine);
  mine.leader = leader;
  mine.package = mine.numa = -1;
  local_binding(&mine.package, &mine.numa);
  int len = 0;
  PMPI_Get_processor_name(mine.name, &len);
  if (err == MPI_SUCCESS)
    err = PMPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, world);
  if (err == MPI_SUCCESS) {
    facts->node.assign(static_cast<size_t>(size), 0);
    facts->host_names.assign(static_cast<size_t>(size), "");
    facts->package.assign(static_cast<size_t>(size), -1);
    facts->numa.assign(static_cast<size_t>(size), -1);
    std::vector<int> index_of_leader(static_cast<size_t>(size), -1);
    facts->nodes = 0;
    for (int r = 0; r < size; ++r) {
      const Record& rec = all[r];
      const int l = rec.leader >= 0 && rec.leader < size ? rec.leader : r;
      if (index_of_leader[l] < 0) index_of_leader[l] = facts->nodes++;
      facts->node[r] = index_of_leader[l];
      facts->host_names[r] = std::string(rec.name, strnlen(rec.name, sizeof rec.name));
      facts->package[r] = rec.package;
      facts->numa[r] = rec.numa;
    }
  }
  // The user's descriptions as world rank 0 read them: its own copy stays,
  // every other rank takes rank 0's.
  UserDescriptions d;
  if (rank == 0) d = *descriptions;
  if (err == MPI_SUCCESS)
    err = bcast_strings({&d.forced, &d.path, &d.text, &d.read_error, &d.cost, &d.cost_path,
                         &d.cost_text, &d.cost_read_error, &d.leaders, &d.torus_dims, &d.mesh_grid},
                        world);
  if (err == MPI_SUCCESS && rank != 0) *descriptions = std::move(d);
  PMPI_Comm_free(&world);
  return err;
}

CommFacts comm_facts(MPI_Comm comm) {
  CommFacts f;
  int size = 0;
  PMPI_Comm_size(comm, &size);
  PMPI_Comm_rank(comm, &f.rank);
  f.world_rank.assign(static_cast<size_t>(size), -1);
  MPI_Group group, world_group;
  PMPI_Comm_group(comm, &group);
  PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
  std::vector<int> ranks(static_cast<size_t>(size));
  for (int r = 0; r < size; ++r) ranks[r] = r;
  PMPI_Group_translate_ranks(group, size, ranks.data(), world_group, f.world_rank.data());
  for (int& wr : f.world_rank)
    if (wr == MPI_UNDEFINED) wr = -1;
  PMPI_Group_free(&group);
  PMPI_Group_free(&world_group);
  int status = MPI_UNDEFINED;
  PMPI_Topo_test(comm, &status);
  if (status == MPI_GRAPH) f.proc_topo = ProcTopo::kGraph;
  if (status == MPI_DIST_GRAPH) f.proc_topo = ProcTopo::kDistGraph;
  if (status == MPI_CART) {
    f.proc_topo = ProcTopo::kCart;
    int nd = 0;
    PMPI_Cartdim_get(comm, &nd);
    if (nd > 0) {
      f.cart_dims.resize(static_cast<size_t>(nd));
      f.cart_periods.resize(static_cast<size_t>(nd));
      std::vector<int> coords(static_cast<size_t>(nd));
      PMPI_Cart_get(comm, nd, f.cart_dims.data(), f.cart_periods.data(), coords.data());
    }
  }
  return f;
}

Topology detect_topology(MPI_Comm comm) {
  static std::once_flag once;
  static WorldFacts world;
  static UserDescriptions descriptions;
  std::call_once(once, [] {
    std::string ignored;  // problems land in the topology's errors
    descriptions = read_user_descriptions();
    if (gather_world(&world, &descriptions) == MPI_SUCCESS)
      parse_user_descriptions(&descriptions, &ignored);
  });
  return derive_topology(world, comm_facts(comm), descriptions);
}

}  // namespace topoa2a
