// Behaviour of the preload front door seen from an ordinary MPI program:
// fallback rules, error reporting, intercommunicators, isolation of
// internal traffic, threads. Run with libtopoa2a.so preloaded; the
// variables each test needs are set by CTest (see CMakeLists.txt).
#include <dlfcn.h>
#include <mpi.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "plugin/control.h"
#include "tests/mpi_main.h"
#include "tests/payload.h"

namespace topoa2a::test {
namespace {

using StatsFn = int (*)(const char*, const char*, long long*, long long*, long long*);

long long calls_of(const char* algorithm) {
  static StatsFn get = reinterpret_cast<StatsFn>(dlsym(RTLD_DEFAULT, "topoa2a_stats_get"));
  long long calls = 0;
  if (get) get("alltoall", algorithm, &calls, nullptr, nullptr);
  return calls;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// One checked MPI_Alltoall of n ints per block on comm; returns the error.
// With check false, only reports whether the result is right.
int checked_alltoall(MPI_Comm comm, int n, bool* correct, bool check = true) {
  std::vector<std::string> errors;
  const int err = int_alltoall(comm, n, &errors);
  if (check)
    for (const auto& e : errors) ADD_FAILURE() << e;
  *correct = errors.empty();
  return err;
}

TEST(Preload, LibraryIsPreloaded) { EXPECT_NE(dlsym(RTLD_DEFAULT, "topoa2a_stats_get"), nullptr); }

// topoa2a_select (plugin/control.h) switches the algorithm between calls;
// statistics show which one ran. CTest starts it with ring selected.
TEST(Control, SelectSwitchesAtRunTime) {
  auto select = reinterpret_cast<topoa2a_select_fn>(dlsym(RTLD_DEFAULT, "topoa2a_select"));
  ASSERT_NE(select, nullptr);
  EXPECT_EQ(select("alltoall", "bogus"), 1);
  EXPECT_EQ(select("bcast", "ring"), 1);
  EXPECT_EQ(select("alltoallv", "mesh"), 1);  // not offered for MPI_Alltoallv
  bool correct = false;
  for (const char* name : {"onefactor", "mesh", "ring"}) {
    ASSERT_EQ(select("alltoall", name), 0) << name;
    const long long before = calls_of(name);
    EXPECT_EQ(checked_alltoall(MPI_COMM_WORLD, 3, &correct), MPI_SUCCESS) << name;
    EXPECT_EQ(calls_of(name), before + 1) << name;
  }
  // One of MPICH's values hands the call back to MPICH: topoa2a runs nothing.
  ASSERT_EQ(select("alltoall", "auto"), 0);
  const long long ring = calls_of("ring"), mpich = calls_of("mpich");
  EXPECT_EQ(checked_alltoall(MPI_COMM_WORLD, 3, &correct), MPI_SUCCESS);
  EXPECT_EQ(calls_of("ring"), ring);
  EXPECT_EQ(calls_of("mpich"), mpich);
  ASSERT_EQ(select("alltoall", "ring"), 0);  // as CTest started it
}

// CTest runs this with MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=hypercube on a
// non-power-of-two world and MPIR_CVAR_COLLECTIVE_FALLBACK set.
TEST(Fallback, FollowsCollectiveFallback) {
  const std::string mode = env("MPIR_CVAR_COLLECTIVE_FALLBACK");
  if (mode.empty()) GTEST_SKIP() << "run by CTest with MPIR_CVAR_COLLECTIVE_FALLBACK";
  ASSERT_NE(world_size() & (world_size() - 1), 0) << "needs a non-power-of-two world";
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  const long long before = calls_of("mpich");
  bool correct = false;
  const int err = checked_alltoall(comm, 3, &correct, mode != "error");
  if (mode == "error") {
    EXPECT_NE(err, MPI_SUCCESS);
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(err, text, &len);
    EXPECT_NE(std::string(text).find("hypercube needs a power-of-two"), std::string::npos) << text;
    EXPECT_EQ(calls_of("mpich"), before);
  } else {
    EXPECT_EQ(err, MPI_SUCCESS);
    EXPECT_TRUE(correct);
    EXPECT_EQ(calls_of("mpich"), before + 1) << "MPICH's algorithm ran instead";
    checked_alltoall(comm, 3, &correct);  // "print" prints once per communicator
  }
  MPI_Comm_free(&comm);
}

// MPICH's MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM as an integer, through MPI_T.
// The tool session stays open: MPICH 4.0.2 cannot look CVARs up again
// after the last MPI_T_finalize.
int mpich_algorithm_cvar() {
  static const int init = [] {
    int provided = 0;
    return MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  }();
  int index = -1, count = 0, value = -1;
  if (init != MPI_SUCCESS) return -1;
  MPI_T_cvar_handle h;
  if (MPI_T_cvar_get_index("MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM", &index) == MPI_SUCCESS &&
      MPI_T_cvar_handle_alloc(index, nullptr, &h, &count) == MPI_SUCCESS) {
    MPI_T_cvar_read(h, &value);
    MPI_T_cvar_handle_free(&h);
  }
  return value;
}

// CTest runs this with topo_auto on a forced switch of ranks, where blocks of
// 256 KiB go all at once (MPICH's scattered). Below MPI_THREAD_MULTIPLE the
// preload pins MPICH's CVAR to scattered for the call through MPI_T and puts
// it back; at MPI_THREAD_MULTIPLE MPICH's own selection runs.
TEST(TopoAuto, MpichChoiceIsPinnedForTheCall) {
  if (env("TOPOA2A_PIN").empty()) GTEST_SKIP() << "run by CTest with TOPOA2A_PIN";
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  const int cvar = mpich_algorithm_cvar();
  ASSERT_GE(cvar, 0);
  const long long mpich = calls_of("mpich"), scattered = calls_of("mpich:scattered");
  bool correct = false;
  EXPECT_EQ(checked_alltoall(MPI_COMM_WORLD, 1 << 16, &correct), MPI_SUCCESS);
  EXPECT_TRUE(correct);
  EXPECT_EQ(calls_of("mpich"), mpich + 1);
  EXPECT_EQ(calls_of("mpich:scattered"), scattered + (level == MPI_THREAD_MULTIPLE ? 0 : 1))
      << "thread level " << level;
  EXPECT_EQ(mpich_algorithm_cvar(), cvar) << "MPICH's CVAR not restored";
  // Small blocks: one of ours, MPICH's CVAR untouched.
  EXPECT_EQ(checked_alltoall(MPI_COMM_WORLD, 1, &correct), MPI_SUCCESS);
  EXPECT_EQ(calls_of("mpich"), mpich + 1);
}

// In place, topo_auto never takes MPICH's noinplace algorithms (brucks,
// pairwise, scattered): at the block size where it pins scattered above, one
// of topoa2a's runs, and MPICH's CVAR is left alone. The choice is cached by
// size and in-place-ness: the same size out of place still pins scattered.
TEST(TopoAuto, InPlaceNeverPinsNoinplaceAlgorithms) {
  if (env("TOPOA2A_PIN").empty()) GTEST_SKIP() << "run by CTest with TOPOA2A_PIN";
  const int p = world_size(), me = world_rank(), n = 1 << 16;
  const long long mpich = calls_of("mpich"), scattered = calls_of("mpich:scattered");
  Side side{MPI_INT, n, n, [](long j) { return j; }, false};
  Buffer rb = make_buffer(side, p);
  fill_send(rb, side, p, me, n);
  EXPECT_EQ(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb.data(), n, MPI_INT, MPI_COMM_WORLD),
            MPI_SUCCESS);
  for (const auto& e : check_recv(rb, side, p, me, n)) ADD_FAILURE() << e;
  EXPECT_EQ(calls_of("mpich"), mpich) << "MPICH's algorithm ran in place";
  EXPECT_EQ(calls_of("mpich:scattered"), scattered);
  bool correct = false;
  EXPECT_EQ(checked_alltoall(MPI_COMM_WORLD, n, &correct), MPI_SUCCESS);
  EXPECT_EQ(calls_of("mpich"), mpich + 1) << "out of place, the cached in-place choice was used";
}

// Invalid arguments are MPICH's to report: same class, same handler.
TEST(Errors, InvalidArgumentsReportedAsMpichDoes) {
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  std::vector<int> buf(4 * world_size());
  int err = MPI_Alltoall(buf.data(), -1, MPI_INT, buf.data() + 1, -1, MPI_INT, comm);
  int cls = MPI_SUCCESS;
  MPI_Error_class(err, &cls);
  EXPECT_EQ(cls, MPI_ERR_COUNT);
  err = MPI_Alltoall(buf.data(), 1, MPI_DATATYPE_NULL, buf.data(), 1, MPI_INT, comm);
  MPI_Error_class(err, &cls);
  EXPECT_EQ(cls, MPI_ERR_TYPE);
  MPI_Comm_free(&comm);
}

// Intercommunicators go to MPICH; the result is still right.
TEST(Intercomm, PassedToMpich) {
  if (world_size() < 2) GTEST_SKIP() << "needs two groups";
  const int me = world_rank(), color = me % 2;
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, color, me, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 99, &inter);
  int remote = 0, local_rank = 0;
  MPI_Comm_remote_size(inter, &remote);
  MPI_Comm_rank(inter, &local_rank);
  std::vector<int> sb(remote), rb(remote, -1);
  for (int d = 0; d < remote; ++d) sb[d] = color * 100000 + local_rank * 100 + d;
  const long long ours_before = calls_of(env("TOPOA2A_EXPECT").c_str());
  EXPECT_EQ(MPI_Alltoall(sb.data(), 1, MPI_INT, rb.data(), 1, MPI_INT, inter), MPI_SUCCESS);
  for (int s = 0; s < remote; ++s) EXPECT_EQ(rb[s], (1 - color) * 100000 + s * 100 + local_rank);
  EXPECT_EQ(calls_of(env("TOPOA2A_EXPECT").c_str()), ours_before);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
}

// A user message pending on the same communicator, with the same tag as
// topoa2a's internal traffic and a wildcard receive posted before the
// collective, is neither taken nor disturbed.
TEST(Isolation, PendingUserMessagesAreUntouched) {
  const int p = world_size(), me = world_rank();
  if (p < 2) GTEST_SKIP();
  const int tag = 7331;  // PmpiTransport::kTag
  const int right = (me + 1) % p, left = (me + p - 1) % p;
  int wild = -1, exact = -1;
  const int mine = 4242 + me;
  MPI_Request wild_req, send_req;
  MPI_Irecv(&wild, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &wild_req);
  MPI_Isend(&mine, 1, MPI_INT, right, tag, MPI_COMM_WORLD, &send_req);
  bool correct = false;
  EXPECT_EQ(checked_alltoall(MPI_COMM_WORLD, 5, &correct), MPI_SUCCESS);
  EXPECT_TRUE(correct);
  int done = 0;
  MPI_Test(&wild_req, &done, MPI_STATUS_IGNORE);
  // The only message that can match the wildcard is the user's own.
  if (!done) MPI_Wait(&wild_req, MPI_STATUS_IGNORE);
  EXPECT_EQ(wild, 4242 + left);
  const int second = 777 + me;
  MPI_Sendrecv(&second, 1, MPI_INT, right, tag, &exact, 1, MPI_INT, left, tag, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  EXPECT_EQ(exact, 777 + left);
  MPI_Wait(&send_req, MPI_STATUS_IGNORE);
}

// Two threads, each on its own communicator, under MPI_THREAD_MULTIPLE.
TEST(Threads, TwoCommunicatorsConcurrently) {
  int provided = 0;
  MPI_Query_thread(&provided);
  if (provided < MPI_THREAD_MULTIPLE) GTEST_SKIP() << "MPI_THREAD_MULTIPLE not provided";
  MPI_Comm a, b;
  MPI_Comm_dup(MPI_COMM_WORLD, &a);
  MPI_Comm_dup(MPI_COMM_WORLD, &b);
  bool ok_a = true, ok_b = true;
  auto work = [](MPI_Comm c, int n, bool* ok) {
    for (int i = 0; i < 10; ++i) {
      bool correct = false;
      *ok = *ok && checked_alltoall(c, n, &correct) == MPI_SUCCESS && correct;
    }
  };
  std::thread t1(work, a, 7, &ok_a), t2(work, b, 300, &ok_b);
  t1.join();
  t2.join();
  EXPECT_TRUE(ok_a);
  EXPECT_TRUE(ok_b);
  MPI_Comm_free(&a);
  MPI_Comm_free(&b);
}

}  // namespace
}  // namespace topoa2a::test

int main(int argc, char** argv) { return topoa2a::test::mpi_test_main(argc, argv); }
