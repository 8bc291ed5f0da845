// Communicator life cycle as an unmodified MPI program sees it, with
// libtopoa2a.so preloaded and one of its algorithms selected (CTest sets
// the variables; see CMakeLists.txt). The reference is the MPI standard and
// MPICH alone: the same program passes without the library (CTest runs it
// that way too).
//  - Attribute callbacks: copy fires once per MPI_Comm_dup / _idup /
//    _dup_with_info of a communicator carrying the attribute, delete once per
//    free or MPI_Comm_delete_attr; split / create / Cart_create copy nothing.
//    The library's private communicators must not be visible through them,
//    neither at creation nor at the first MPI_Alltoall on a communicator.
//  - Context ids: as many live communicators as MPICH alone allows, and an
//    MPI_Alltoall on each of them still succeeds (MPICH's algorithm when no
//    private communicator can be made).
//  - Constructors do not detect (communicate) on the library's behalf,
//    through the optional introspection symbols topoa2a_comm_states and
//    topoa2a_private_comms.
#include <dlfcn.h>
#include <mpi.h>

#include <string>
#include <vector>

#include "tests/mpi_main.h"
#include "tests/payload.h"

namespace topoa2a::test {
namespace {

// MPI_Alltoall of n ints per block on comm; the error code, *correct tells
// whether every block arrived where it belongs.
int checked_alltoall(MPI_Comm comm, int n, bool* correct) {
  std::vector<std::string> errors;
  const int err = int_alltoall(comm, n, &errors);
  *correct = err == MPI_SUCCESS && errors.empty();
  return err;
}

// Expect a successful, correct MPI_Alltoall on comm (what a user would do
// right after creating it: the moment topoa2a may make its own resources).
void expect_alltoall(MPI_Comm comm, const std::string& what) {
  bool correct = false;
  EXPECT_EQ(checked_alltoall(comm, 3, &correct), MPI_SUCCESS) << what;
  EXPECT_TRUE(correct) << what;
}

// ---- attribute callbacks ----------------------------------------------------

struct Counts {
  int copies = 0;
  int deletes = 0;
  std::vector<MPI_Comm> deleted;  // the communicator each delete fired on
};
Counts g_counts;

int count_copy(MPI_Comm, int, void*, void* in, void* out, int* flag) {
  ++g_counts.copies;
  *static_cast<void**>(out) = in;
  *flag = 1;
  return MPI_SUCCESS;
}

int count_delete(MPI_Comm comm, int, void*, void*) {
  ++g_counts.deletes;
  g_counts.deleted.push_back(comm);
  return MPI_SUCCESS;
}

int g_value = 42;

class AttrCallbacks : public ::testing::Test {
 protected:
  void SetUp() override {
    g_counts = Counts{};
    ASSERT_EQ(MPI_Comm_create_keyval(count_copy, count_delete, &key_, nullptr), MPI_SUCCESS);
  }
  void TearDown() override { MPI_Comm_free_keyval(&key_); }

  // Since the last check, exactly `copies` copy and `deletes` delete
  // callbacks fired (per step, so one extra callback shows up only once).
  void expect_step(int copies, int deletes, const std::string& step) {
    EXPECT_EQ(g_counts.copies - seen_copies_, copies) << "copy callbacks in " << step;
    EXPECT_EQ(g_counts.deletes - seen_deletes_, deletes) << "delete callbacks in " << step;
    seen_copies_ = g_counts.copies;
    seen_deletes_ = g_counts.deletes;
  }
  // Free comm (which carries the attribute): exactly one delete, on comm.
  void free_carrier(MPI_Comm* comm, const std::string& what) {
    const MPI_Comm handle = *comm;
    g_counts.deleted.clear();
    ASSERT_EQ(MPI_Comm_free(comm), MPI_SUCCESS) << what;
    expect_step(0, 1, "MPI_Comm_free(" + what + ")");
    for (MPI_Comm c : g_counts.deleted)
      EXPECT_EQ(c, handle) << "a delete callback fired on another communicator than " << what;
  }

  int key_ = MPI_KEYVAL_INVALID;
  int seen_copies_ = 0, seen_deletes_ = 0;
};

// The attribute on MPI_COMM_WORLD before the first all-to-all on world (the
// library may make world's private communicator only then), dups of world
// and of a dup, communicators that copy nothing, and frees.
TEST_F(AttrCallbacks, FireExactlyAsTheStandardSays) {
  const int me = world_rank(), p = world_size();
  ASSERT_EQ(MPI_Comm_set_attr(MPI_COMM_WORLD, key_, &g_value), MPI_SUCCESS);
  expect_alltoall(MPI_COMM_WORLD, "MPI_COMM_WORLD");
  expect_step(0, 0, "MPI_Alltoall on MPI_COMM_WORLD");

  MPI_Comm d1, d2, d3, d4;
  ASSERT_EQ(MPI_Comm_dup(MPI_COMM_WORLD, &d1), MPI_SUCCESS);
  expect_step(1, 0, "MPI_Comm_dup(MPI_COMM_WORLD)");
  expect_alltoall(d1, "dup of world");
  expect_step(0, 0, "MPI_Alltoall on the dup of world");

  ASSERT_EQ(MPI_Comm_dup(d1, &d2), MPI_SUCCESS);
  expect_step(1, 0, "MPI_Comm_dup of a dup");
  expect_alltoall(d2, "dup of a dup");
  expect_step(0, 0, "MPI_Alltoall on the dup of a dup");

  MPI_Info info;
  MPI_Info_create(&info);
  ASSERT_EQ(MPI_Comm_dup_with_info(d1, info, &d3), MPI_SUCCESS);
  MPI_Info_free(&info);
  expect_step(1, 0, "MPI_Comm_dup_with_info");
  expect_alltoall(d3, "dup_with_info");
  expect_step(0, 0, "MPI_Alltoall on the dup_with_info");

  MPI_Request req;
  ASSERT_EQ(MPI_Comm_idup(d1, &d4, &req), MPI_SUCCESS);
  ASSERT_EQ(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS);
  expect_step(1, 0, "MPI_Comm_idup");
  expect_alltoall(d4, "idup");
  expect_step(0, 0, "MPI_Alltoall on the idup");

  // Constructors that copy no attributes.
  MPI_Comm split, created, cart;
  ASSERT_EQ(MPI_Comm_split(MPI_COMM_WORLD, 0, p - me, &split), MPI_SUCCESS);
  expect_step(0, 0, "MPI_Comm_split");
  expect_alltoall(split, "split");
  expect_step(0, 0, "MPI_Alltoall on the split");
  MPI_Group group;
  MPI_Comm_group(MPI_COMM_WORLD, &group);
  ASSERT_EQ(MPI_Comm_create(d1, group, &created), MPI_SUCCESS);
  MPI_Group_free(&group);
  expect_step(0, 0, "MPI_Comm_create");
  expect_alltoall(created, "create");
  expect_step(0, 0, "MPI_Alltoall on the create");
  int dims[2] = {0, 0}, periods[2] = {1, 0};
  MPI_Dims_create(p, 2, dims);
  ASSERT_EQ(MPI_Cart_create(d1, 2, dims, periods, 0, &cart), MPI_SUCCESS);
  expect_step(0, 0, "MPI_Cart_create");
  expect_alltoall(cart, "Cart_create");
  expect_step(0, 0, "MPI_Alltoall on the Cart_create");

  // The attribute set on a communicator that already ran an all-to-all
  // (its private communicator, if any, exists), then duplicated.
  ASSERT_EQ(MPI_Comm_set_attr(split, key_, &g_value), MPI_SUCCESS);
  MPI_Comm split_dup;
  ASSERT_EQ(MPI_Comm_dup(split, &split_dup), MPI_SUCCESS);
  expect_step(1, 0, "MPI_Comm_dup of the split after MPI_Comm_set_attr");
  expect_alltoall(split_dup, "dup of the split");
  expect_step(0, 0, "MPI_Alltoall on the dup of the split");
  // Replacing the value deletes the old one, once.
  ASSERT_EQ(MPI_Comm_set_attr(split, key_, &g_value), MPI_SUCCESS);
  expect_step(0, 1, "MPI_Comm_set_attr over a set attribute");

  // Frees: one delete per carrier, on that communicator; none otherwise.
  ASSERT_EQ(MPI_Comm_free(&cart), MPI_SUCCESS);
  ASSERT_EQ(MPI_Comm_free(&created), MPI_SUCCESS);
  expect_step(0, 0, "freeing communicators without the attribute");
  free_carrier(&split_dup, "dup of the split");
  free_carrier(&split, "split");
  free_carrier(&d4, "idup");
  free_carrier(&d3, "dup_with_info");
  free_carrier(&d2, "dup of a dup");
  free_carrier(&d1, "dup of world");
  ASSERT_EQ(MPI_Comm_delete_attr(MPI_COMM_WORLD, key_), MPI_SUCCESS);
  expect_step(0, 1, "MPI_Comm_delete_attr(MPI_COMM_WORLD)");
}

// A dup that never runs an all-to-all, and one freed right after its first.
TEST_F(AttrCallbacks, DupThenFreeWithAndWithoutAlltoall) {
  MPI_Comm base, quiet, busy;
  ASSERT_EQ(MPI_Comm_dup(MPI_COMM_WORLD, &base), MPI_SUCCESS);
  ASSERT_EQ(MPI_Comm_set_attr(base, key_, &g_value), MPI_SUCCESS);
  ASSERT_EQ(MPI_Comm_dup(base, &quiet), MPI_SUCCESS);
  expect_step(1, 0, "MPI_Comm_dup");
  free_carrier(&quiet, "a dup without MPI_Alltoall");
  ASSERT_EQ(MPI_Comm_dup(base, &busy), MPI_SUCCESS);
  expect_step(1, 0, "MPI_Comm_dup");
  expect_alltoall(busy, "dup");
  expect_alltoall(busy, "dup, second call");
  expect_step(0, 0, "two MPI_Alltoall calls");
  free_carrier(&busy, "a dup after MPI_Alltoall");
  free_carrier(&base, "the base dup");
}

// ---- no detection in constructors ------------------------------------------------

// What the preloaded library has made on this process's behalf, when it
// exports the counters (plugin/comm_state.cc): communicator states plus
// private communicators; -1 when absent (no library, or a version without
// them).
long detections() {
  using Fn = long (*)();
  static Fn states = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "topoa2a_comm_states"));
  static Fn privates = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "topoa2a_private_comms"));
  return states && privates ? states() + privates() : -1;
}

// Creating communicators communicates nothing on the library's behalf: no
// topology detection runs in a constructor (what a new communicator's
// topology needs follows from facts gathered at MPI_Init and its group).
TEST(Constructors, DetectNothing) {
  if (detections() < 0)
    GTEST_SKIP() << "no topoa2a_comm_states / topoa2a_private_comms (library not preloaded?)";
  const int me = world_rank(), p = world_size();
  const long before = detections();
  MPI_Comm dup, split, even, created, cart, sub, node;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  EXPECT_EQ(detections(), before) << "MPI_Comm_dup";
  MPI_Comm_split(MPI_COMM_WORLD, 0, p - me, &split);
  EXPECT_EQ(detections(), before) << "MPI_Comm_split";
  MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &even);
  EXPECT_EQ(detections(), before) << "MPI_Comm_split by parity";
  MPI_Group group;
  MPI_Comm_group(MPI_COMM_WORLD, &group);
  MPI_Comm_create(MPI_COMM_WORLD, group, &created);
  MPI_Group_free(&group);
  EXPECT_EQ(detections(), before) << "MPI_Comm_create";
  int dims[2] = {0, 0}, periods[2] = {0, 0}, remain[2] = {1, 0};
  MPI_Dims_create(p, 2, dims);
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  EXPECT_EQ(detections(), before) << "MPI_Cart_create";
  MPI_Cart_sub(cart, remain, &sub);
  EXPECT_EQ(detections(), before) << "MPI_Cart_sub";
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node);
  EXPECT_EQ(detections(), before) << "MPI_Comm_split_type";
  // And the communicators work.
  for (MPI_Comm c : {dup, split, even, created, cart, sub, node}) expect_alltoall(c, "new comm");
  for (MPI_Comm* c : {&dup, &split, &even, &created, &cart, &sub, &node}) MPI_Comm_free(c);
}

// ---- context ids ---------------------------------------------------------------

// MPI_Comm_dup of world `n` times; returns how many succeeded (on every
// rank: a dup is collective). Failures return (world's errhandler is
// MPI_ERRORS_RETURN for the test).
std::vector<MPI_Comm> dup_many(int n, int* first_error) {
  std::vector<MPI_Comm> comms;
  *first_error = MPI_SUCCESS;
  for (int i = 0; i < n; ++i) {
    MPI_Comm c = MPI_COMM_NULL;
    const int err = MPI_Comm_dup(MPI_COMM_WORLD, &c);
    if (err != MPI_SUCCESS) {
      *first_error = err;
      break;
    }
    comms.push_back(c);
  }
  return comms;
}

std::string error_text(int err) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(err, text, &len);
  return std::string(text, static_cast<size_t>(len));
}

class ContextIds : public ::testing::Test {
 protected:
  void SetUp() override { MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN); }
  void TearDown() override { MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL); }
};

// MPICH 4.0.2 alone keeps 2046 communicators alive (2048 context ids less
// world's and self's); 2000 dups must all succeed with the library too.
// Then an MPI_Alltoall on every one of them, under MPI_ERRORS_ARE_FATAL:
// the library cannot make a private communicator for each, so some or all
// of these calls must run MPICH's algorithm, and still succeed.
TEST_F(ContextIds, TwoThousandLiveDups) {
  constexpr int kLive = 2000;
  int err = MPI_SUCCESS;
  std::vector<MPI_Comm> comms = dup_many(kLive, &err);
  EXPECT_EQ(static_cast<int>(comms.size()), kLive)
      << "MPI_Comm_dup failed after " << comms.size() << " live dups: " << error_text(err);
  int failed = 0, wrong = 0, first = MPI_SUCCESS;
  for (MPI_Comm c : comms) {
    // MPI's default handler: a private communicator that cannot be made
    // must not reach it (an abort here fails the test).
    MPI_Comm_set_errhandler(c, MPI_ERRORS_ARE_FATAL);
    bool correct = false;
    const int e = checked_alltoall(c, 2, &correct);
    if (e != MPI_SUCCESS && first == MPI_SUCCESS) first = e;
    failed += e != MPI_SUCCESS;
    wrong += !correct;
  }
  EXPECT_EQ(failed, 0) << "of " << comms.size()
                       << " MPI_Alltoall calls on live dups; first: " << error_text(first);
  EXPECT_EQ(wrong, 0) << "MPI_Alltoall results wrong";
  int freed = 0;
  for (MPI_Comm& c : comms) freed += MPI_Comm_free(&c) == MPI_SUCCESS;
  EXPECT_EQ(freed, static_cast<int>(comms.size()));
  // Everything was given back: the same number can be made again.
  std::vector<MPI_Comm> again = dup_many(static_cast<int>(comms.size()), &err);
  EXPECT_EQ(again.size(), comms.size()) << "context ids not given back: " << error_text(err);
  for (MPI_Comm& c : again) MPI_Comm_free(&c);
}

// 1000 live dups, each used in an MPI_Alltoall as soon as it exists (the
// library's algorithm selected): every call succeeds with the right result.
TEST_F(ContextIds, ThousandLiveDupsEachWithAlltoall) {
  constexpr int kLive = 1000;
  std::vector<MPI_Comm> comms;
  int dup_error = MPI_SUCCESS, failed = 0, wrong = 0, first = MPI_SUCCESS;
  for (int i = 0; i < kLive; ++i) {
    MPI_Comm c = MPI_COMM_NULL;
    dup_error = MPI_Comm_dup(MPI_COMM_WORLD, &c);
    if (dup_error != MPI_SUCCESS) break;
    comms.push_back(c);
    bool correct = false;
    const int e = checked_alltoall(c, 2, &correct);
    if (e != MPI_SUCCESS && first == MPI_SUCCESS) first = e;
    failed += e != MPI_SUCCESS;
    wrong += !correct;
  }
  EXPECT_EQ(static_cast<int>(comms.size()), kLive)
      << "MPI_Comm_dup failed after " << comms.size() << ": " << error_text(dup_error);
  EXPECT_EQ(failed, 0) << "MPI_Alltoall calls failed; first: " << error_text(first);
  EXPECT_EQ(wrong, 0) << "MPI_Alltoall results wrong";
  for (MPI_Comm& c : comms) MPI_Comm_free(&c);
}

}  // namespace
}  // namespace topoa2a::test

int main(int argc, char** argv) { return topoa2a::test::mpi_test_main(argc, argv); }
