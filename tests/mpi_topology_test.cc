// Topology detection at communicator creation, seen through the preloaded
// library (found with dlsym): world, a split into halves, Cartesian
// communicators, forced topologies and network files, and that a duplicate
// does not detect again. CTest sets the variables (see CMakeLists.txt).
#include <dlfcn.h>
#include <mpi.h>

#include <cstdlib>
#include <string>

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

long detections() {
  using Fn = long (*)();
  static Fn fn = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "topoa2a_detections"));
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

TEST(Detect, DuplicateDoesNotDetectAgain) {
  const long before = detections();
  MPI_Comm dup, dup2;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_dup_with_info(dup, MPI_INFO_NULL, &dup2);
  EXPECT_EQ(detections(), before);
  EXPECT_EQ(topology_of(dup2), topology_of(MPI_COMM_WORLD));
  MPI_Comm split;
  MPI_Comm_split(MPI_COMM_WORLD, 0, 0, &split);
  EXPECT_EQ(detections(), before + 1) << "a split is a new communicator: detected at creation";
  MPI_Comm_free(&split);
  MPI_Comm_free(&dup2);
  MPI_Comm_free(&dup);
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
