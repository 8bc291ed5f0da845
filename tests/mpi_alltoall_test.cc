// MPI all-to-all tests, run by CTest under mpiexec -n N.
//
// Built twice from this file:
//  - mpi_alltoall_test (TOPOA2A_DIRECT): calls topoa2a's executor for every
//    algorithm directly;
//  - mpi_alltoall_app: an ordinary MPI program that only calls
//    MPI_Alltoall and knows nothing of topoa2a; CTest runs it with
//    LD_PRELOAD=libtopoa2a.so and the algorithm chosen by
//    MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM; with TOPOA2A_CALL=nonblocking it
//    calls MPI_Ialltoall[v] and MPI_Wait instead, with TOPOA2A_CALL=persistent
//    MPI_Alltoall[v]_init, MPI_Start, MPI_Wait and MPI_Request_free (the
//    algorithm chosen by MPIR_CVAR_IALLTOALL[V]_INTRA_ALGORITHM, the
//    statistics counted under ialltoall[v] or alltoall[v]_init).
// Either way the result is checked against the definition of all-to-all,
// element by element, including the gaps of derived datatypes.
#include <mpi.h>

#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

#include "coll/algorithms.h"
#include "tests/mpi_main.h"
#include "tests/payload.h"
#ifdef TOPOA2A_DIRECT
#include "coll/run.h"
#else
#include <dlfcn.h>

#include <cstdlib>
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

// The parameters the algorithms run with on `comm`: the node layout the
// library sees on this one machine, MPIR_CVAR_TOPOA2A_TOPOLOGY's nodes:NxR
// (block placement over MPI_COMM_WORLD) or else one node; the direct build
// gives the node-aware algorithms nodes of two ranks instead, so that all
// their phases run. MPIR_CVAR_TOPOA2A_LEADERS as the library reads it.
Params test_params(MPI_Comm comm) {
  int p;
  MPI_Comm_size(comm, &p);
  Params params = resolve_params(p, Params{});
#ifdef TOPOA2A_DIRECT
  int per_node = 2;
#else
  int per_node = 0;
#endif
  const char* topo = std::getenv("MPIR_CVAR_TOPOA2A_TOPOLOGY");
  const std::string t = topo ? topo : "";
  if (const size_t at = t.find("nodes:"); at != std::string::npos)
    per_node = std::atoi(t.c_str() + t.find_first_of("xX", at) + 1);
  MPI_Group group, world;
  MPI_Comm_group(comm, &group);
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  std::vector<int> ranks(p), in_world(p), node(p);
  for (int r = 0; r < p; ++r) ranks[r] = r;
  MPI_Group_translate_ranks(group, p, ranks.data(), world, in_world.data());
  MPI_Group_free(&group);
  MPI_Group_free(&world);
  for (int r = 0; r < p; ++r) node[r] = per_node > 0 ? in_world[r] / per_node : 0;
  params.layout = make_node_layout(node);
  if (const char* k = std::getenv("MPIR_CVAR_TOPOA2A_LEADERS")) params.leaders = std::atoi(k);
  // torus: MPIR_CVAR_TOPOA2A_TORUS_DIMS as the library reads it ("AxBxC").
  if (const char* d = std::getenv("MPIR_CVAR_TOPOA2A_TORUS_DIMS"); d && *d) {
    params.dims.clear();
    for (const char* c = d; *c;) {
      params.dims.push_back(std::atoi(c));
      while (*c && *c != 'x') ++c;
      if (*c == 'x') ++c;
    }
  }
  return params;
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

#ifndef TOPOA2A_DIRECT
// What libtopoa2a.so counted: the preloaded library is found at run time,
// the binary is not linked to it.
using StatsFn = int (*)(const char*, const char*, long long*, long long*, long long*);

struct Counts {
  std::vector<long long> calls, rounds;  // per name: the table's, then "mpich"
};

std::vector<std::string> stats_names() {
  std::vector<std::string> names;
  for (const Algorithm& a : algorithms()) names.push_back(a.name);
  names.push_back("mpich");
  return names;
}

Counts snapshot(const char* op) {
  static StatsFn get = reinterpret_cast<StatsFn>(dlsym(RTLD_DEFAULT, "topoa2a_stats_get"));
  Counts c;
  EXPECT_NE(get, nullptr) << "libtopoa2a.so is not preloaded";
  for (const std::string& n : stats_names()) {
    long long calls = 0, rounds = 0;
    if (get) get(op, n.c_str(), &calls, &rounds, nullptr);
    c.calls.push_back(calls);
    c.rounds.push_back(rounds);
  }
  return c;
}

// The stats prove which algorithm ran: exactly one call was counted, for
// the expected algorithm (TOPOA2A_EXPECT; "topo_auto": any of ours), or for
// MPICH where it does not apply, with the schedule's number of rounds.
void expect_ran(const char* op, const char* expect_var, const Counts& before, const Counts& after,
                MPI_Comm comm, bool moved) {
  const char* e = std::getenv(expect_var);
  const std::string expect = e ? e : "";
  if (expect.empty() || expect == "none") return;
  int p;
  MPI_Comm_size(comm, &p);
  const Params params = test_params(comm);
  const auto names = stats_names();
  int ran = -1, counted = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    const long long d = after.calls[i] - before.calls[i];
    counted += static_cast<int>(d);
    if (d > 0) ran = static_cast<int>(i);
  }
  // The native front door sits behind MPICH's own argument handling, which
  // returns from an intracommunicator MPI_Alltoall with recvcount 0 before
  // any algorithm is chosen (TOPOA2A_FRONT=native).
  const char* front = std::getenv("TOPOA2A_FRONT");
  if (!moved && counted == 0 && front && std::string(front) == "native") return;
  ASSERT_EQ(counted, 1) << op << " calls counted";
  const std::string name = names[ran];
  if (expect != "topo_auto") {  // topo_auto may pick one of MPICH's (brucks, pairwise)
    const Algorithm* a = find_algorithm(expect);
    ASSERT_NE(a, nullptr) << expect;
    EXPECT_EQ(name, a->check(p, params).empty() ? expect : std::string("mpich"));
  }
  if (name != "mpich") {
    const Algorithm& a = *find_algorithm(name);
    EXPECT_EQ(after.rounds[ran] - before.rounds[ran], moved ? a.rounds(p, params) : 0)
        << name << " rounds on " << p << " ranks";
  }
}

// TOPOA2A_CALL: "" (blocking), "nonblocking" or "persistent".
std::string call_kind() {
  const char* c = std::getenv("TOPOA2A_CALL");
  return c ? c : "";
}
std::string stats_op(const char* blocking) {
  const std::string k = call_kind(), b = blocking;
  if (k == "nonblocking") return "i" + b;
  if (k == "persistent") return b + "_init";
  return b;
}
int finish_request(int err, MPI_Request* req, bool persistent) {
  if (err == MPI_SUCCESS && persistent) err = MPI_Start(req);
  if (err == MPI_SUCCESS) err = MPI_Wait(req, MPI_STATUS_IGNORE);
  if (persistent && *req != MPI_REQUEST_NULL) MPI_Request_free(req);
  return err;
}
#endif

#ifdef TOPOA2A_DIRECT
// The window of the direct runs: MPIR_CVAR_TOPOA2A_WINDOW when set (CTest
// runs this test with a few values), else the schedule's default (-1).
int window() {
  const char* w = std::getenv("MPIR_CVAR_TOPOA2A_WINDOW");
  return w && *w && std::atoi(w) > 0 ? std::atoi(w) : -1;
}
#endif

// Runs one all-to-all; returns false (test skipped) where the algorithm
// does not apply to this communicator.
bool alltoall(const std::string& alg, const void* sb, int sc, MPI_Datatype st, void* rb, int rc,
              MPI_Datatype rt, MPI_Comm comm, int* err) {
#ifdef TOPOA2A_DIRECT
  const Algorithm& a = *find_algorithm(alg);
  int p;
  MPI_Comm_size(comm, &p);
  const Params params = test_params(comm);
  if (!a.check(p, params).empty()) {
    // Not applicable: refused up front, with no communication.
    std::string why;
    *err = run_on_comm(a, params, {sb, sc, st, rb, rc, rt}, comm, nullptr, &why);
    EXPECT_EQ(*err, MPI_ERR_OTHER);
    EXPECT_FALSE(why.empty());
    return false;
  }
  RunStats stats;
  *err = run_on_comm(a, params, {sb, sc, st, rb, rc, rt}, comm, &stats, nullptr, window());
  int size;
  MPI_Type_size(rt, &size);
  EXPECT_EQ(stats.rounds, rc * size > 0 ? a.rounds(p, params) : 0) << "rounds executed";
  return true;
#else
  (void)alg;
  const std::string op = stats_op("alltoall"), kind = call_kind();
  const Counts before = snapshot(op.c_str());
  MPI_Request req = MPI_REQUEST_NULL;
  if (kind == "nonblocking")
    *err = finish_request(MPI_Ialltoall(sb, sc, st, rb, rc, rt, comm, &req), &req, false);
  else if (kind == "persistent")
    *err = finish_request(MPI_Alltoall_init(sb, sc, st, rb, rc, rt, comm, MPI_INFO_NULL, &req),
                          &req, true);
  else
    *err = MPI_Alltoall(sb, sc, st, rb, rc, rt, comm);
  int size;
  MPI_Type_size(rt, &size);
  expect_ran(op.c_str(), "TOPOA2A_EXPECT", before, snapshot(op.c_str()), comm, rc * size > 0);
  return true;
#endif
}

bool alltoallv(const std::string& alg, const void* sb, const int* sc, const int* sd,
               MPI_Datatype st, void* rb, const int* rc, const int* rd, MPI_Datatype rt,
               MPI_Comm comm, int* err) {
#ifdef TOPOA2A_DIRECT
  // Any schedule runs under the variable-size executor: test them all.
  const Algorithm& a = *find_algorithm(alg);
  int p;
  MPI_Comm_size(comm, &p);
  const Params params = test_params(comm);
  if (!a.check(p, params).empty()) return false;
  *err =
      run_v_on_comm(a, params, {sb, sc, sd, st, rb, rc, rd, rt}, comm, nullptr, nullptr, window());
  return true;
#else
  (void)alg;
  const std::string op = stats_op("alltoallv"), kind = call_kind();
  const Counts before = snapshot(op.c_str());
  MPI_Request req = MPI_REQUEST_NULL;
  if (kind == "nonblocking")
    *err = finish_request(MPI_Ialltoallv(sb, sc, sd, st, rb, rc, rd, rt, comm, &req), &req, false);
  else if (kind == "persistent")
    *err = finish_request(
        MPI_Alltoallv_init(sb, sc, sd, st, rb, rc, rd, rt, comm, MPI_INFO_NULL, &req), &req, true);
  else
    *err = MPI_Alltoallv(sb, sc, sd, st, rb, rc, rd, rt, comm);
  expect_ran(op.c_str(), "TOPOA2A_EXPECT_V", before, snapshot(op.c_str()), comm, true);
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

// MPI_Alltoallv: block (s -> d) has (s + 2d) % 5 ints, some empty; in
// place the pattern must be symmetric: (s + d) % 5. Blocks are laid out with
// a one-int gap, the receive side in reverse order.
using VParam = std::tuple<std::string, std::string, bool>;  // alg, comm, in place

class Alltoallv : public ::testing::TestWithParam<VParam> {};

TEST_P(Alltoallv, MatchesDefinition) {
  const auto& [alg, comm_name, in_place] = GetParam();
  MPI_Comm comm = comm_by_name(comm_name);
  int p, me;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &me);
  auto count = [ip = in_place](int s, int d) { return ip ? (s + d) % 5 : (s + 2 * d) % 5; };
  std::vector<int> sc(p), sd(p), rc(p), rd(p);
  int send_total = 0, recv_total = 0;
  for (int i = 0; i < p; ++i) {
    sc[i] = count(me, i);
    sd[i] = send_total;
    send_total += sc[i] + 1;
  }
  for (int i = p - 1; i >= 0; --i) {
    rc[i] = count(i, me);
    rd[i] = recv_total;
    recv_total += rc[i] + 1;
  }
  std::vector<int> sb(send_total + 1, static_cast<int>(kSentinel));
  std::vector<int> rb(recv_total + 1, static_cast<int>(kSentinel));
  std::vector<int>& src = in_place ? rb : sb;
  const std::vector<int>& src_displs = in_place ? rd : sd;
  for (int d = 0; d < p; ++d)
    for (int j = 0; j < count(me, d); ++j)
      src[src_displs[d] + j] = static_cast<int>(code(me, d, j));
  int err = MPI_SUCCESS;
  const bool ran = alltoallv(alg, in_place ? MPI_IN_PLACE : sb.data(), sc.data(), sd.data(),
                             MPI_INT, rb.data(), rc.data(), rd.data(), MPI_INT, comm, &err);
  if (!ran) GTEST_SKIP() << alg << " does not apply to " << p << " ranks";
  EXPECT_EQ(err, MPI_SUCCESS);
  std::vector<char> covered(rb.size(), 0);
  int errors = 0;
  for (int s = 0; s < p; ++s) {
    for (int j = 0; j < rc[s]; ++j) {
      covered[rd[s] + j] = 1;
      if (rb[rd[s] + j] != static_cast<int>(code(s, me, j)) && errors++ < 5)
        ADD_FAILURE() << "block from " << s << " element " << j << " wrong";
    }
  }
  for (size_t i = 0; i < rb.size(); ++i)
    if (!covered[i] && rb[i] != static_cast<int>(kSentinel) && errors++ < 5)
      ADD_FAILURE() << "gap at " << i << " overwritten";
}

std::string vparam_name(const ::testing::TestParamInfo<VParam>& info) {
  const auto& [alg, comm, in_place] = info.param;
  return alg + "_" + comm + (in_place ? "_in_place" : "");
}

INSTANTIATE_TEST_SUITE_P(All, Alltoallv,
                         ::testing::Combine(::testing::ValuesIn(algorithm_names()),
                                            ::testing::Values("world", "split", "dup"),
                                            ::testing::Bool()),
                         vparam_name);

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
    const int err =
        run_on_comm(algorithm(AlgorithmId::kMesh), Params::of_grid(Grid{rows, p / rows}),
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
