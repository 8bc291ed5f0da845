// Topology detection at communicator creation, seen through the preloaded
// library (found with dlsym): world, a split into halves, Cartesian
// communicators, forced topologies and network files, and that a duplicate
// does not detect again. CTest sets the variables (see CMakeLists.txt).
#include <dlfcn.h>
#include <mpi.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "tests/mpi_main.h"

namespace topoa2a::test {
namespace {

std::string topology_of(MPI_Comm comm) {
  using Fn = int (*)(MPI_Comm, char*, int);
  static Fn fn = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "topoa2a_comm_topology"));
  EXPECT_NE(fn, nullptr) << "libtopoa2a.so is not preloaded";
  char buf[8192] = "";
  if (fn) fn(comm, buf, sizeof buf);
  return buf;
}

long private_comms() {
  using Fn = long (*)();
  static Fn fn = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "topoa2a_private_comms"));
  EXPECT_NE(fn, nullptr) << "libtopoa2a.so is not preloaded";
  return fn ? fn() : -1;
}

bool has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

TEST(Detect, World) {
  const std::string t = topology_of(MPI_COMM_WORLD);
  EXPECT_TRUE(has(t, "ranks: " + std::to_string(world_size()))) << t;
  EXPECT_TRUE(has(t, "nodes: 1 x " + std::to_string(world_size()) + " ranks per node")) << t;
}

TEST(Detect, SplitIntoHalves) {
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank() < world_size() / 2, 0, &half);
  int n;
  MPI_Comm_size(half, &n);
  EXPECT_TRUE(has(topology_of(half), "ranks: " + std::to_string(n) + "\n"));
  MPI_Comm_free(&half);
}

TEST(Detect, CartesianCommunicators) {
  for (int periodic = 0; periodic <= 1; ++periodic) {
    for (int cols : {2, 4}) {
      if (world_size() < 2 * cols) continue;
      int dims[2] = {2, cols}, periods[2] = {periodic, periodic};
      MPI_Comm cart;
      MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
      if (cart == MPI_COMM_NULL) continue;
      const std::string want = "process topology: cart 2x" + std::to_string(cols) + " periods " +
                               std::to_string(periodic) + "," + std::to_string(periodic);
      EXPECT_TRUE(has(topology_of(cart), want)) << topology_of(cart);
      MPI_Comm_free(&cart);
    }
  }
}

// Constructors make nothing on topoa2a's behalf: the topology is derived
// without communication, the private communicator is made by the first
// all-to-all that runs one of topoa2a's algorithms, once per communicator.
TEST(Detect, PrivateCommunicatorOnlyOnFirstAlltoall) {
  const long before = private_comms();
  MPI_Comm dup, dup2, split;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_dup_with_info(dup, MPI_INFO_NULL, &dup2);
  MPI_Comm_split(MPI_COMM_WORLD, 0, 0, &split);
  EXPECT_EQ(topology_of(dup2), topology_of(MPI_COMM_WORLD));
  EXPECT_EQ(topology_of(split), topology_of(MPI_COMM_WORLD));
  EXPECT_EQ(private_comms(), before) << "made by a constructor or by topology detection";
  using Select = int (*)(const char*, const char*);
  auto select = reinterpret_cast<Select>(dlsym(RTLD_DEFAULT, "topoa2a_select"));
  ASSERT_NE(select, nullptr);
  ASSERT_EQ(select("alltoall", "ring"), 0);  // one of ours, whatever topo_auto would pick
  const int p = world_size();
  std::vector<int> send(p), recv(p);
  for (int i = 0; i < p; ++i) send[i] = world_rank() * p + i;
  for (int call = 0; call < 2; ++call) {
    ASSERT_EQ(MPI_Alltoall(send.data(), 1, MPI_INT, recv.data(), 1, MPI_INT, split), MPI_SUCCESS);
    for (int i = 0; i < p; ++i) EXPECT_EQ(recv[i], i * p + world_rank());
  }
  EXPECT_EQ(private_comms(), before + 1);
  ASSERT_EQ(select("alltoall", "topo_auto"), 0);
  MPI_Comm_free(&split);
  MPI_Comm_free(&dup2);
  MPI_Comm_free(&dup);
}

// Every rank derives the same topology from what world rank 0 read (the
// communicator's description, the user's settings included), whatever
// variables were set.
TEST(Detect, EveryRankSeesRankZerosTopology) {
  for (MPI_Comm comm : {MPI_COMM_WORLD, MPI_COMM_SELF}) {
    std::string mine = topology_of(comm);
    int len = static_cast<int>(mine.size());
    MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::string zeros(static_cast<size_t>(len), '\0');
    if (world_rank() == 0) zeros = mine;
    MPI_Bcast(zeros.data(), len, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (comm == MPI_COMM_WORLD) {
      EXPECT_EQ(mine, zeros) << "rank " << world_rank();
      continue;
    }
    // MPI_COMM_SELF: one rank each, otherwise the same lines from "process topology" on.
    const size_t a = mine.find("process topology"), b = zeros.find("process topology");
    ASSERT_NE(a, std::string::npos);
    ASSERT_NE(b, std::string::npos);
    EXPECT_EQ(mine.substr(a), zeros.substr(b)) << "rank " << world_rank();
  }
}

// CTest sets TOPOA2A_EXPECT_NETWORK to the line the forced topology or the
// network file must produce.
TEST(Detect, ForcedOrDescribed) {
  const char* want = std::getenv("TOPOA2A_EXPECT_NETWORK");
  if (!want) GTEST_SKIP() << "run by CTest with a forced topology or a network file";
  EXPECT_TRUE(has(topology_of(MPI_COMM_WORLD), want)) << topology_of(MPI_COMM_WORLD);
}

}  // namespace
}  // namespace topoa2a::test

int main(int argc, char** argv) { return topoa2a::test::mpi_test_main(argc, argv); }
