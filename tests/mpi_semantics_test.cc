// MPI semantics of MPI_Alltoall / MPI_Alltoallv through the preload front
// door, seen from an ordinary MPI program: what MPICH accepts works (MPI_BOTTOM
// with absolute-address datatypes, datatypes over 2 GiB), what MPICH refuses
// before communicating is refused with MPICH's class, and an error during
// the exchange (counts that differ between ranks) ends in bounded time with
// an error of the real class, or aborts the job under MPI_ERRORS_ARE_FATAL.
// CTest runs it with LD_PRELOAD=libtopoa2a.so and the algorithm forced by
// MPIR_CVAR_ALLTOALL[V]_INTRA_ALGORITHM (see CMakeLists.txt).
#include <mpi.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "tests/mpi_main.h"
#include "tests/payload.h"

namespace topoa2a::test {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// MPI_Alltoallv runs topoa2a's algorithm only where CTest selected one.
bool alltoallv_is_ours() { return !env("MPIR_CVAR_ALLTOALLV_INTRA_ALGORITHM").empty(); }

int error_class(int err) {
  int cls = MPI_SUCCESS;
  MPI_Error_class(err, &cls);
  return cls;
}

struct QuietComm {  // a duplicate of MPI_COMM_WORLD whose errors return
  MPI_Comm comm;
  QuietComm() {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  }
  ~QuietComm() { MPI_Comm_free(&comm); }
};

// How many ranks saw each outcome.
struct Outcomes {
  int truncate = 0, in_status = 0, success = 0;
};
Outcomes gather(int err) {
  const int cls = error_class(err);
  int mine[3] = {cls == MPI_ERR_TRUNCATE, cls == MPI_ERR_IN_STATUS, err == MPI_SUCCESS};
  int all[3];
  MPI_Allreduce(mine, all, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return {all[0], all[1], all[2]};
}

// Rank 0 sends and receives n + extra ints per block, the others n: a type
// signature that differs between ranks. Every rank must return, at least one
// with MPI_ERR_TRUNCATE, none with MPI_ERR_IN_STATUS.
class Mismatch : public ::testing::TestWithParam<int> {};

TEST_P(Mismatch, AlltoallReturnsOnEveryRank) {
  const int p = world_size(), me = world_rank(), n = GetParam();
  if (p < 2) GTEST_SKIP() << "needs two ranks";
  QuietComm q;
  const int mine = me == 0 ? n + 1 : n;
  std::vector<int> sb(static_cast<size_t>(p) * (n + 1), 1), rb(sb.size(), 0);
  const int err = MPI_Alltoall(sb.data(), mine, MPI_INT, rb.data(), mine, MPI_INT, q.comm);
  const Outcomes o = gather(err);
  EXPECT_GE(o.truncate, 1) << "this rank: class " << error_class(err);
  EXPECT_EQ(o.in_status, 0);
  EXPECT_LT(o.success, p);
}

TEST_P(Mismatch, AlltoallvReturnsOnEveryRank) {
  const int p = world_size(), me = world_rank(), n = GetParam();
  if (p < 2) GTEST_SKIP() << "needs two ranks";
  if (!alltoallv_is_ours()) GTEST_SKIP() << "MPICH runs MPI_Alltoallv here";
  QuietComm q;
  // Rank 0 expects one int more from rank 1 than rank 1 sends.
  std::vector<int> sc(p, n), rc(p, n), sd(p), rd(p);
  if (me == 0) rc[1] = n + 1;
  for (int i = 0; i < p; ++i) sd[i] = rd[i] = i * (n + 1);
  std::vector<int> sb(static_cast<size_t>(p) * (n + 1), 1), rb(sb.size(), 0);
  const int err = MPI_Alltoallv(sb.data(), sc.data(), sd.data(), MPI_INT, rb.data(), rc.data(),
                                rd.data(), MPI_INT, q.comm);
  const Outcomes o = gather(err);
  EXPECT_GE(o.truncate, 1) << "this rank: class " << error_class(err);
  EXPECT_EQ(o.in_status, 0);
}

// Short (eager) and long (rendezvous) blocks.
INSTANTIATE_TEST_SUITE_P(Counts, Mismatch, ::testing::Values(3, 40000));

// Under MPI_ERRORS_ARE_FATAL the same call aborts the job (CTest expects the
// abort and its message); returning is a failure.
TEST(Fatal, MismatchedCountsAbort) {
  if (env("TOPOA2A_FATAL").empty()) GTEST_SKIP() << "run by CTest with TOPOA2A_FATAL";
  const int p = world_size(), me = world_rank(), n = 3;
  const int mine = me == 0 ? n + 1 : n;
  std::vector<int> sb(static_cast<size_t>(p) * (n + 1), 1), rb(sb.size(), 0);
  MPI_Alltoall(sb.data(), mine, MPI_INT, rb.data(), mine, MPI_INT, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);  // a rank that saw nothing waits here for the abort
  ADD_FAILURE() << "MPI_Alltoall returned under MPI_ERRORS_ARE_FATAL";
}

// What MPICH refuses before communicating is refused with its class.
TEST(Refused, UncommittedDatatype) {
  QuietComm q;
  const int p = world_size();
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);  // not committed
  std::vector<int> sb(2 * p), rb(2 * p);
  int err = MPI_Alltoall(sb.data(), 1, pair, rb.data(), 1, pair, q.comm);
  EXPECT_EQ(error_class(err), MPI_ERR_TYPE);
  err = MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb.data(), 1, pair, q.comm);
  EXPECT_EQ(error_class(err), MPI_ERR_TYPE);
  std::vector<int> counts(p, 1), displs(p);
  for (int i = 0; i < p; ++i) displs[i] = i;
  err = MPI_Alltoallv(sb.data(), counts.data(), displs.data(), pair, rb.data(), counts.data(),
                      displs.data(), pair, q.comm);
  EXPECT_EQ(error_class(err), MPI_ERR_TYPE);
  MPI_Type_free(&pair);
}

// MPI_BOTTOM with datatypes of absolute addresses (MPI_Get_address +
// MPI_Type_create_struct): block d of n ints lies at array + d * n, in two
// pieces with the typemap's own order reversed, so that packing is needed.
MPI_Datatype absolute_blocks(const int* array, int n) {
  MPI_Aint base;
  MPI_Get_address(array, &base);
  const int lens[2] = {n - n / 2, n / 2};
  const MPI_Aint disps[2] = {MPI_Aint_add(base, (n / 2) * sizeof(int)), base};
  const MPI_Datatype types[2] = {MPI_INT, MPI_INT};
  MPI_Datatype s, t;
  MPI_Type_create_struct(2, lens, disps, types, &s);
  MPI_Type_create_resized(s, base, static_cast<MPI_Aint>(n) * sizeof(int), &t);
  MPI_Type_free(&s);
  MPI_Type_commit(&t);
  return t;
}

// Codes as the typemap reads them: the first n - n/2 values of the block
// come from its second half.
int typemap_index(int n, int j) { return j < n - n / 2 ? n / 2 + j : j - (n - n / 2); }

using BottomParam = std::tuple<bool, bool, bool>;  // send at MPI_BOTTOM, recv at it, alltoallv
class Bottom : public ::testing::TestWithParam<BottomParam> {};

TEST_P(Bottom, MatchesDefinition) {
  const auto [send_bottom, recv_bottom, v] = GetParam();
  if (v && !alltoallv_is_ours()) GTEST_SKIP() << "MPICH runs MPI_Alltoallv here";
  const int p = world_size(), me = world_rank(), n = 5;
  QuietComm q;
  std::vector<int> sb(static_cast<size_t>(p) * n), rb(sb.size(), -1);
  // Value at typemap position j of block d: code(me, d, j).
  for (int d = 0; d < p; ++d)
    for (int j = 0; j < n; ++j) sb[d * n + typemap_index(n, j)] = static_cast<int>(code(me, d, j));
  MPI_Datatype st = absolute_blocks(sb.data(), n), rt = absolute_blocks(rb.data(), n);
  // The side not at MPI_BOTTOM uses the same layout from its buffer.
  MPI_Datatype sl = send_bottom ? st : MPI_DATATYPE_NULL, rl = recv_bottom ? rt : MPI_DATATYPE_NULL;
  MPI_Datatype relative;
  {
    const int lens[2] = {n - n / 2, n / 2};
    const MPI_Aint disps[2] = {static_cast<MPI_Aint>((n / 2) * sizeof(int)), 0};
    const MPI_Datatype types[2] = {MPI_INT, MPI_INT};
    MPI_Datatype s;
    MPI_Type_create_struct(2, lens, disps, types, &s);
    MPI_Type_create_resized(s, 0, static_cast<MPI_Aint>(n) * sizeof(int), &relative);
    MPI_Type_free(&s);
    MPI_Type_commit(&relative);
  }
  if (!send_bottom) sl = relative;
  if (!recv_bottom) rl = relative;
  void* sbuf = send_bottom ? MPI_BOTTOM : sb.data();
  void* rbuf = recv_bottom ? MPI_BOTTOM : rb.data();
  int err;
  if (!v) {
    err = MPI_Alltoall(sbuf, 1, sl, rbuf, 1, rl, q.comm);
  } else {
    std::vector<int> counts(p, 1), displs(p);
    for (int i = 0; i < p; ++i) displs[i] = i;
    err = MPI_Alltoallv(sbuf, counts.data(), displs.data(), sl, rbuf, counts.data(), displs.data(),
                        rl, q.comm);
  }
  EXPECT_EQ(err, MPI_SUCCESS) << "class " << error_class(err);
  int wrong = 0;
  for (int s = 0; s < p; ++s)
    for (int j = 0; j < n; ++j)
      if (rb[s * n + typemap_index(n, j)] != static_cast<int>(code(s, me, j)) && wrong++ < 5)
        ADD_FAILURE() << "block from " << s << " element " << j;
  MPI_Type_free(&st);
  MPI_Type_free(&rt);
  MPI_Type_free(&relative);
}

std::string bottom_name(const ::testing::TestParamInfo<BottomParam>& info) {
  const auto [s, r, v] = info.param;
  return std::string(v ? "alltoallv" : "alltoall") + (s ? "_send" : "") + (r ? "_recv" : "");
}

INSTANTIATE_TEST_SUITE_P(
    All, Bottom,
    ::testing::Values(BottomParam{true, true, false}, BottomParam{true, false, false},
                      BottomParam{false, true, false}, BottomParam{true, true, true},
                      BottomParam{true, false, true}, BottomParam{false, true, true}),
    bottom_name);

// In place at MPI_BOTTOM.
TEST(Bottom, InPlace) {
  const int p = world_size(), me = world_rank(), n = 4;
  QuietComm q;
  std::vector<int> rb(static_cast<size_t>(p) * n);
  for (int d = 0; d < p; ++d)
    for (int j = 0; j < n; ++j) rb[d * n + typemap_index(n, j)] = static_cast<int>(code(me, d, j));
  MPI_Datatype rt = absolute_blocks(rb.data(), n);
  const int err = MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, MPI_BOTTOM, 1, rt, q.comm);
  EXPECT_EQ(err, MPI_SUCCESS) << "class " << error_class(err);
  for (int s = 0; s < p; ++s)
    for (int j = 0; j < n; ++j)
      EXPECT_EQ(rb[s * n + typemap_index(n, j)], static_cast<int>(code(s, me, j)))
          << "block from " << s << " element " << j;
  MPI_Type_free(&rt);
}

// Datatypes larger than INT_MAX bytes (MPI_Type_size: MPI_UNDEFINED). CTest
// runs these alone (TOPOA2A_BIG): they need about 2.4 GB per rank. The send
// type repeats one 1 MiB chunk (stride 0), so only the receive side is big.
constexpr MPI_Count kChunk = 1 << 20, kChunks = 2200;  // 2.3 GB per block

struct BigTypes {
  MPI_Datatype chunk, repeated, contiguous;
  BigTypes() {
    MPI_Type_contiguous(static_cast<int>(kChunk), MPI_BYTE, &chunk);
    MPI_Type_create_hvector(static_cast<int>(kChunks), 1, 0, chunk, &repeated);
    MPI_Type_contiguous(static_cast<int>(kChunks), chunk, &contiguous);
    MPI_Type_commit(&repeated);
    MPI_Type_commit(&contiguous);
  }
  ~BigTypes() {
    MPI_Type_free(&chunk);
    MPI_Type_free(&repeated);
    MPI_Type_free(&contiguous);
  }
};

std::vector<char> pattern() {
  std::vector<char> v(kChunk);
  for (MPI_Count i = 0; i < kChunk; ++i) v[i] = static_cast<char>((i * 7 + i / 251) & 0x7f);
  return v;
}

void expect_repeated(const char* got, const std::vector<char>& chunk) {
  int wrong = 0;
  for (MPI_Count c = 0; c < kChunks; c += (c < kChunks - 2 ? 97 : 1))
    if (std::memcmp(got + c * kChunk, chunk.data(), kChunk) != 0 && wrong++ < 5)
      ADD_FAILURE() << "chunk " << c << " wrong";
}

TEST(Large, AlltoallDatatypeOver2GiB) {
  if (env("TOPOA2A_BIG").empty()) GTEST_SKIP() << "run by CTest with TOPOA2A_BIG";
  if (world_rank() != 0) GTEST_SKIP() << "rank 0 alone, on MPI_COMM_SELF";
  BigTypes t;
  MPI_Count size = 0;
  MPI_Type_size_x(t.repeated, &size);
  ASSERT_GT(size, 2147483647LL);
  const std::vector<char> chunk = pattern();
  std::unique_ptr<char[]> rb(new char[kChunk * kChunks]);
  MPI_Comm self;
  MPI_Comm_dup(MPI_COMM_SELF, &self);
  MPI_Comm_set_errhandler(self, MPI_ERRORS_RETURN);
  const int err = MPI_Alltoall(chunk.data(), 1, t.repeated, rb.get(), 1, t.contiguous, self);
  EXPECT_EQ(err, MPI_SUCCESS) << "class " << error_class(err);
  expect_repeated(rb.get(), chunk);
  MPI_Comm_free(&self);
}

// Rank 0 sends rank 1 one block over 2 GiB, everything else is empty.
TEST(Large, AlltoallvBlockOver2GiB) {
  if (env("TOPOA2A_BIG").empty()) GTEST_SKIP() << "run by CTest with TOPOA2A_BIG";
  if (world_size() != 2) GTEST_SKIP() << "two ranks";
  if (!alltoallv_is_ours()) GTEST_SKIP() << "MPICH runs MPI_Alltoallv here";
  const int me = world_rank();
  BigTypes t;
  const std::vector<char> chunk = pattern();
  std::unique_ptr<char[]> rb(me == 1 ? new char[kChunk * kChunks] : new char[1]);
  QuietComm q;
  const int sc[2] = {0, me == 0 ? 1 : 0}, rc[2] = {me == 1 ? 1 : 0, 0}, zero[2] = {0, 0};
  // Send type: the repeated chunk; receive type: plain bytes.
  const int err =
      MPI_Alltoallv(chunk.data(), sc, zero, t.repeated, rb.get(), rc, zero, t.contiguous, q.comm);
  EXPECT_EQ(err, MPI_SUCCESS) << "class " << error_class(err);
  if (me == 1) expect_repeated(rb.get(), chunk);
}

}  // namespace
}  // namespace topoa2a::test

int main(int argc, char** argv) { return topoa2a::test::mpi_test_main(argc, argv); }
