// Errors inside the executor end in bounded time, run by CTest under
// mpiexec -n N: an error injected on one rank (in its transport or in
// packing), and counts that differ between ranks, for every schedule under
// both executors (run_alltoall, run_alltoallv). Every rank must return; a
// hang is the CTest timeout.
#include <mpi.h>

#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

#include "coll/algorithms.h"
#include "coll/exec.h"
#include "coll/plan.h"
#include "coll/pmpi_transport.h"
#include "tests/mpi_main.h"
#include "tests/payload.h"

namespace topoa2a::test {
namespace {

std::vector<std::string> algorithm_names() {
  std::vector<std::string> names;
  for (const Algorithm& a : algorithms()) names.push_back(a.name);
  return names;
}

// A transport that fails on one rank: its `fail_at`-th send (counted from
// 0) goes in discard mode and its completion reports `code`, or its packing
// fails.
class FaultyTransport final : public Transport {
 public:
  FaultyTransport(MPI_Comm comm, bool victim, int fail_at, bool in_pack, int code)
      : inner_(comm), victim_(victim), fail_at_(fail_at), in_pack_(in_pack), code_(code) {}
  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  void post_send(int id, const Message& m, int failed) override {
    const bool inject = victim_ && !in_pack_ && sends_++ == fail_at_ && failed == MPI_SUCCESS;
    if (inject) injected_ = id;
    inner_.post_send(id, m, inject ? code_ : failed);
  }
  void post_recv(int id, const Message& m, int failed) override { inner_.post_recv(id, m, failed); }
  void post_recv_any(int id, int peer, std::vector<char>* into, int failed) override {
    inner_.post_recv_any(id, peer, into, failed);
  }
  void wait(const int* oldest, int n, std::vector<Completion>* done) override {
    const size_t before = done->size();
    inner_.wait(oldest, n, done);
    for (size_t i = before; i < done->size(); ++i)
      if ((*done)[i].id == injected_) (*done)[i].err = code_;
  }
  void finish() override { inner_.finish(); }
  int pack(const void* in, MPI_Aint count, MPI_Datatype type, void* out, MPI_Aint bytes) override {
    if (victim_ && in_pack_) return code_;
    return inner_.pack(in, count, type, out, bytes);
  }
  int unpack(const void* in, MPI_Aint bytes, void* out, MPI_Aint count,
             MPI_Datatype type) override {
    return inner_.unpack(in, bytes, out, count, type);
  }
  int type_info(MPI_Datatype type, TypeInfo* info) override { return inner_.type_info(type, info); }

 private:
  PmpiTransport inner_;
  bool victim_;
  int fail_at_;
  bool in_pack_;
  int code_;
  int sends_ = 0;
  int injected_ = -1;
};

// The window under test: MPIR_CVAR_TOPOA2A_WINDOW when set (CTest runs
// these tests with a few values), else the schedule's default.
int test_window(const Schedule& schedule, int me) {
  const char* w = std::getenv("MPIR_CVAR_TOPOA2A_WINDOW");
  return w && *w && std::atoi(w) > 0 ? std::atoi(w) : default_window(schedule, me);
}

Plan plan_for(const Schedule& schedule, int p, int me) {
  return make_plan(schedule, p, me, window_depth(schedule, test_window(schedule, me)));
}

int error_class(int err) {
  int cls = MPI_SUCCESS;
  MPI_Error_class(err, &cls);
  return cls;
}

// How many ranks returned an error of class `cls`.
int ranks_with(int err, int cls) {
  int mine = error_class(err) == cls, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

struct QuietDup {
  MPI_Comm comm;
  QuietDup() {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  }
  ~QuietDup() { MPI_Comm_free(&comm); }
};

// An error on one rank, in its transport or in packing, in the first or the
// last exchange: every rank returns (a hang is this test's CTest timeout),
// the failed one with its error, and those it feeds learn its class.
using FaultParam = std::tuple<std::string, bool, bool>;  // alg, alltoallv, in pack
class Faults : public ::testing::TestWithParam<FaultParam> {};

TEST_P(Faults, EveryRankReturns) {
  const auto& [alg, v, in_pack] = GetParam();
  const int p = world_size(), me = world_rank(), victim = p - 1;
  if (p < 2) GTEST_SKIP() << "needs two ranks";
  const Algorithm& a = *find_algorithm(alg);
  const Params params = resolve_params(p, Params{});
  if (!a.check(p, params).empty()) GTEST_SKIP() << alg << " does not apply";
  const Schedule schedule = a.build(p, me, params);
  int sends = 0;  // this rank's (the victim's, on the victim)
  for (const Round& r : schedule.rounds) sends += static_cast<int>(r.sends.size());
  const Plan plan = plan_for(schedule, p, me);
  const int window = test_window(schedule, me);
  const int n = 6;
  // Packing happens for non-contiguous blocks: a vector type on the send side.
  Side s = in_pack ? type_cases()[2].send(n) : type_cases()[0].send(n), r = type_cases()[0].recv(n);
  for (bool last : {false, true}) {
    if (in_pack && last) continue;  // packing fails before the first exchange
    const int fail_at = last ? sends - 1 : 0;
    SCOPED_TRACE(last ? "fails in its last send" : "fails in its first send");
    Buffer sb = make_buffer(s, p), rb = make_buffer(r, p);
    fill_send(sb, s, p, me, n);
    QuietDup q;
    FaultyTransport tr(q.comm, me == victim, fail_at, in_pack, MPI_ERR_INTERN);
    int err;
    if (!v) {
      err = run_alltoall(plan, tr, {sb.data(), s.count, s.type, rb.data(), r.count, r.type}, window,
                         nullptr);
    } else {
      std::vector<int> sc(p, s.count), rc(p, r.count), sd(p), rd(p);
      for (int i = 0; i < p; ++i) {
        sd[i] = i * s.count;
        rd[i] = i * r.count;
      }
      err = run_alltoallv(
          plan, tr,
          {sb.data(), sc.data(), sd.data(), s.type, rb.data(), rc.data(), rd.data(), r.type},
          window, nullptr);
    }
    if (me == victim) {
      EXPECT_EQ(error_class(err), MPI_ERR_INTERN);
    } else {
      EXPECT_TRUE(err == MPI_SUCCESS || error_class(err) == MPI_ERR_INTERN)
          << "class " << error_class(err);
    }
    // Failing in its first send, the victim feeds someone a lost payload.
    const int failed = ranks_with(err, MPI_ERR_INTERN);
    if (!last) {
      EXPECT_GE(failed, 2);
    }
  }
  free_side(s);
  free_side(r);
}

std::string fault_name(const ::testing::TestParamInfo<FaultParam>& info) {
  const auto& [alg, v, in_pack] = info.param;
  return alg + (v ? "_alltoallv" : "_alltoall") + (in_pack ? "_pack" : "_exchange");
}

INSTANTIATE_TEST_SUITE_P(All, Faults,
                         ::testing::Combine(::testing::ValuesIn(algorithm_names()),
                                            ::testing::Bool(), ::testing::Bool()),
                         fault_name);

// Counts that differ between ranks (rank 0 sends and receives one int more
// per block): every rank returns, at least one with MPI_ERR_TRUNCATE, as
// MPICH reports on the rank that sees the mismatch; none hangs. Every
// schedule, under both executors.
using MismatchParam = std::tuple<std::string, bool>;  // alg, alltoallv
class Mismatch : public ::testing::TestWithParam<MismatchParam> {};

TEST_P(Mismatch, EveryRankReturns) {
  const auto& [alg, v] = GetParam();
  const int p = world_size(), me = world_rank();
  if (p < 2) GTEST_SKIP() << "needs two ranks";
  const Algorithm& a = *find_algorithm(alg);
  const Params params = resolve_params(p, Params{});
  if (!a.check(p, params).empty()) GTEST_SKIP() << alg << " does not apply";
  const int n = 3, mine = me == 0 ? n + 1 : n;
  std::vector<int> sb(static_cast<size_t>(p) * (n + 1), 1), rb(sb.size(), 0);
  QuietDup q;
  PmpiTransport tr(q.comm);
  const Schedule schedule = a.build(p, me, params);
  int err;
  if (!v) {
    err = run_alltoall(plan_for(schedule, p, me), tr,
                       {sb.data(), mine, MPI_INT, rb.data(), mine, MPI_INT},
                       test_window(schedule, me), nullptr);
  } else {
    std::vector<int> c(p, mine), d(p);
    for (int i = 0; i < p; ++i) d[i] = i * (n + 1);
    err = run_alltoallv(
        plan_for(schedule, p, me), tr,
        {sb.data(), c.data(), d.data(), MPI_INT, rb.data(), c.data(), d.data(), MPI_INT},
        test_window(schedule, me), nullptr);
  }
  EXPECT_TRUE(err == MPI_SUCCESS || error_class(err) == MPI_ERR_TRUNCATE) << error_class(err);
  EXPECT_GE(ranks_with(err, MPI_ERR_TRUNCATE), 1);
}

std::string mismatch_name(const ::testing::TestParamInfo<MismatchParam>& info) {
  return std::get<0>(info.param) + (std::get<1>(info.param) ? "_alltoallv" : "_alltoall");
}

INSTANTIATE_TEST_SUITE_P(All, Mismatch,
                         ::testing::Combine(::testing::ValuesIn(algorithm_names()),
                                            ::testing::Bool()),
                         mismatch_name);

}  // namespace
}  // namespace topoa2a::test

int main(int argc, char** argv) { return topoa2a::test::mpi_test_main(argc, argv); }
