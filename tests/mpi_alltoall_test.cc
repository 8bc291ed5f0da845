// MPI all-to-all tests, run by CTest under mpiexec -n N.
//
// Built twice from this file:
//  - mpi_alltoall_test (TOPOA2A_DIRECT): calls topoa2a's executor for every
//    algorithm directly;
//  - mpi_alltoall_app: an ordinary MPI program that only calls
//    MPI_Alltoall and knows nothing of topoa2a; CTest runs it with
//    LD_PRELOAD=libtopoa2a.so and the algorithm chosen by
//    MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM.
// Either way the result is checked against the definition of all-to-all,
// element by element, including the gaps of derived datatypes.
#include <mpi.h>

#include <string>
#include <tuple>
#include <vector>

#include "tests/mpi_main.h"
#include "tests/payload.h"

#ifdef TOPOA2A_DIRECT
#include "coll/run.h"
#endif

namespace topoa2a::test {
namespace {

struct Comms : ::testing::Environment {
  static inline MPI_Comm split = MPI_COMM_NULL, dup = MPI_COMM_NULL;
  void SetUp() override {
    MPI_Comm_split(MPI_COMM_WORLD, world_rank() % 2, world_rank(), &split);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  }
  void TearDown() override {
    MPI_Comm_free(&split);
    MPI_Comm_free(&dup);
  }
};

MPI_Comm comm_by_name(const std::string& name) {
  if (name == "split") return Comms::split;
  if (name == "dup") return Comms::dup;
  return MPI_COMM_WORLD;
}

// The algorithms under test: every one of the table (direct build), or the
// one MPI_Alltoall runs (preload build).
std::vector<std::string> algorithm_names() {
#ifdef TOPOA2A_DIRECT
  std::vector<std::string> names;
  for (const Algorithm& a : algorithms()) names.push_back(a.name);
  return names;
#else
  return {"MPI_Alltoall"};
#endif
}

// Runs one all-to-all; returns false (test skipped) where the algorithm
// does not apply to this communicator.
bool alltoall(const std::string& alg, const void* sb, int sc, MPI_Datatype st, void* rb, int rc,
              MPI_Datatype rt, MPI_Comm comm, int* err) {
#ifdef TOPOA2A_DIRECT
  const Algorithm& a = *find_algorithm(alg);
  int p;
  MPI_Comm_size(comm, &p);
  const Params params = resolve_params(p, Params{});
  if (!a.check(p, params).empty()) {
    // Not applicable: refused up front, with no communication.
    std::string why;
    *err = run_on_comm(a, params, {sb, sc, st, rb, rc, rt}, comm, nullptr, &why);
    EXPECT_EQ(*err, MPI_ERR_OTHER);
    EXPECT_FALSE(why.empty());
    return false;
  }
  RunStats stats;
  *err = run_on_comm(a, params, {sb, sc, st, rb, rc, rt}, comm, &stats);
  EXPECT_EQ(stats.rounds, a.rounds(p, params)) << "rounds executed";
  return true;
#else
  (void)alg;
  *err = MPI_Alltoall(sb, sc, st, rb, rc, rt, comm);
  return true;
#endif
}

using Param = std::tuple<std::string, int, int, std::string>;  // alg, type case, count, comm

class Alltoall : public ::testing::TestWithParam<Param> {};

TEST_P(Alltoall, MatchesDefinition) {
  const auto& [alg, tc_index, count, comm_name] = GetParam();
  const TypeCase& tc = type_cases()[tc_index];
  MPI_Comm comm = comm_by_name(comm_name);
  int p, me;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &me);
  const long n = count * tc.basic_per_count;
  Side s = tc.send(n), r = tc.recv(n);
  Buffer sb = make_buffer(s, p), rb = make_buffer(r, p);
  fill_send(sb, s, p, me, n);
  int err = MPI_SUCCESS;
  const bool ran =
      alltoall(alg, sb.data(), s.count, s.type, rb.data(), r.count, r.type, comm, &err);
  if (ran) {
    EXPECT_EQ(err, MPI_SUCCESS);
    for (const auto& e : check_recv(rb, r, p, me, n)) ADD_FAILURE() << e;
  }
  free_side(s);
  free_side(r);
  if (!ran) GTEST_SKIP() << alg << " does not apply to " << p << " ranks";
}

class AlltoallInPlace : public ::testing::TestWithParam<Param> {};

TEST_P(AlltoallInPlace, MatchesDefinition) {
  const auto& [alg, tc_index, count, comm_name] = GetParam();
  const TypeCase& tc = type_cases()[tc_index];
  MPI_Comm comm = comm_by_name(comm_name);
  int p, me;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &me);
  const long n = count * tc.basic_per_count;
  Side r = tc.recv(n);
  Buffer rb = make_buffer(r, p);
  fill_send(rb, r, p, me, n);
  int err = MPI_SUCCESS;
  const bool ran =
      alltoall(alg, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb.data(), r.count, r.type, comm, &err);
  if (ran) {
    EXPECT_EQ(err, MPI_SUCCESS);
    for (const auto& e : check_recv(rb, r, p, me, n)) ADD_FAILURE() << e;
  }
  free_side(r);
  if (!ran) GTEST_SKIP() << alg << " does not apply to " << p << " ranks";
}

std::string param_name(const ::testing::TestParamInfo<Param>& info) {
  const auto& [alg, tc, count, comm] = info.param;
  return alg + "_" + type_cases()[tc].name + "_n" + std::to_string(count) + "_" + comm;
}

INSTANTIATE_TEST_SUITE_P(All, Alltoall,
                         ::testing::Combine(::testing::ValuesIn(algorithm_names()),
                                            ::testing::Range(0, 5),
                                            ::testing::Values(0, 1, 3, 16384),
                                            ::testing::Values("world", "split", "dup")),
                         param_name);

// In place there is only the receive type: contiguous and resized.
INSTANTIATE_TEST_SUITE_P(All, AlltoallInPlace,
                         ::testing::Combine(::testing::ValuesIn(algorithm_names()),
                                            ::testing::Values(0, 3),
                                            ::testing::Values(0, 1, 3, 16384),
                                            ::testing::Values("world", "split", "dup")),
                         param_name);

#ifdef TOPOA2A_DIRECT
// Every grid of the world communicator, not only the default one.
TEST(Mesh, EveryGrid) {
  const int p = world_size(), me = world_rank();
  for (int rows = 1; rows <= p; ++rows) {
    if (p % rows) continue;
    SCOPED_TRACE("grid " + std::to_string(rows) + "x" + std::to_string(p / rows));
    Side s = type_cases()[0].send(3), r = type_cases()[0].recv(3);
    Buffer sb = make_buffer(s, p), rb = make_buffer(r, p);
    fill_send(sb, s, p, me, 3);
    const int err = run_on_comm(algorithm(AlgorithmId::kMesh), Params{Grid{rows, p / rows}},
                                {sb.data(), 3, MPI_INT, rb.data(), 3, MPI_INT}, MPI_COMM_WORLD);
    EXPECT_EQ(err, MPI_SUCCESS);
    for (const auto& e : check_recv(rb, r, p, me, 3)) ADD_FAILURE() << e;
  }
}

TEST(Errors, MismatchedBlockSizesAreRefused) {
  const int p = world_size();
  std::vector<int> sb(2 * p), rb(p);
  const int err = run_on_comm(algorithm(AlgorithmId::kRing), Params{},
                              {sb.data(), 2, MPI_INT, rb.data(), 1, MPI_INT}, MPI_COMM_WORLD);
  EXPECT_EQ(err, MPI_ERR_TRUNCATE);
}
#endif

}  // namespace
}  // namespace topoa2a::test

int main(int argc, char** argv) {
  ::testing::AddGlobalTestEnvironment(new topoa2a::test::Comms);
  return topoa2a::test::mpi_test_main(argc, argv);
}
