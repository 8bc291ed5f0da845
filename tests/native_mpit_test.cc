// The native front door seen through MPI_T, as any MPI tool sees it: the
// patched MPICH lists topoa2a's values in its algorithm CVARs and knows
// MPIR_CVAR_COLL_PLUGIN; writing the CVAR through MPI_T switches MPICH's
// own dispatch to our algorithm at run time. An ordinary MPI program (built
// against Debian's stock MPICH, run on the patched library).
#include <dlfcn.h>
#include <mpi.h>

#include <algorithm>
#include <string>
#include <vector>

#include "coll/algorithms.h"
#include "tests/mpi_main.h"

namespace topoa2a {
namespace {

int cvar_index(const char* name) {
  int index = -1;
  EXPECT_EQ(MPI_T_cvar_get_index(name, &index), MPI_SUCCESS) << name << " is not an MPI_T cvar";
  return index;
}

// The names of an enum CVAR's values, in MPI_T's order.
std::vector<std::string> enum_values(const char* cvar) {
  std::vector<std::string> out;
  const int index = cvar_index(cvar);
  if (index < 0) return out;
  char name[256], desc[1024];
  int name_len = sizeof name, desc_len = sizeof desc, verbosity, bind, scope;
  MPI_Datatype type;
  MPI_T_enum enumtype = MPI_T_ENUM_NULL;
  EXPECT_EQ(MPI_T_cvar_get_info(index, name, &name_len, &verbosity, &type, &enumtype, desc,
                                &desc_len, &bind, &scope),
            MPI_SUCCESS);
  EXPECT_NE(enumtype, MPI_T_ENUM_NULL) << cvar << " is not an enum";
  if (enumtype == MPI_T_ENUM_NULL) return out;
  int num = 0;
  char ename[256];
  int ename_len = sizeof ename;
  EXPECT_EQ(MPI_T_enum_get_info(enumtype, &num, ename, &ename_len), MPI_SUCCESS);
  for (int i = 0; i < num; ++i) {
    int value = 0;
    char item[256];
    int item_len = sizeof item;
    EXPECT_EQ(MPI_T_enum_get_item(enumtype, i, &value, item, &item_len), MPI_SUCCESS);
    out.push_back(item);
  }
  return out;
}

// (source, destination, index) in one int.
int payload(int s, int d, int i) { return (s * 1000 + d) * 1000 + i; }

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(NativeMpiT, AlltoallCvarListsEveryAlgorithm) {
  const auto values = enum_values("MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM");
  for (const Algorithm& a : algorithms()) EXPECT_TRUE(contains(values, a.name)) << a.name;
  EXPECT_TRUE(contains(values, "topo_auto"));
  for (const char* mpich : {"auto", "brucks", "pairwise", "scattered"})
    EXPECT_TRUE(contains(values, mpich)) << mpich << ": MPICH's own values stay";
}

TEST(NativeMpiT, AlltoallvCvarListsItsAlgorithms) {
  const auto values = enum_values("MPIR_CVAR_ALLTOALLV_INTRA_ALGORITHM");
  for (const Algorithm& a : algorithms())
    EXPECT_EQ(contains(values, a.name), a.alltoallv) << a.name;
  EXPECT_TRUE(contains(values, "topo_auto"));
}

TEST(NativeMpiT, PluginCvarExists) {
  const int index = cvar_index("MPIR_CVAR_COLL_PLUGIN");
  ASSERT_GE(index, 0);
  MPI_T_cvar_handle handle;
  int count = 0;
  ASSERT_EQ(MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count), MPI_SUCCESS);
  std::vector<char> value(static_cast<size_t>(count) + 1, 0);
  EXPECT_EQ(MPI_T_cvar_read(handle, value.data()), MPI_SUCCESS);
  EXPECT_NE(std::string(value.data()).find("topoa2a_native"), std::string::npos) << value.data();
  MPI_T_cvar_handle_free(&handle);
}

// Writing MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM through MPI_T: the next
// MPI_Alltoall runs the written algorithm (the plugin's statistics count
// it), with correct data.
TEST(NativeMpiT, WritingTheCvarSelectsOurAlgorithm) {
  using StatsFn = int (*)(const char*, const char*, long long*, long long*, long long*);
  auto stats = reinterpret_cast<StatsFn>(dlsym(RTLD_DEFAULT, "topoa2a_stats_get"));
  ASSERT_NE(stats, nullptr) << "the native plugin is not loaded";
  const int index = cvar_index("MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM");
  ASSERT_GE(index, 0);
  char name[256], desc[1024];
  int name_len = sizeof name, desc_len = sizeof desc, verbosity, bind, scope;
  MPI_Datatype type;
  MPI_T_enum enumtype;
  ASSERT_EQ(MPI_T_cvar_get_info(index, name, &name_len, &verbosity, &type, &enumtype, desc,
                                &desc_len, &bind, &scope),
            MPI_SUCCESS);
  int num = 0;
  char ename[256];
  int ename_len = sizeof ename;
  MPI_T_enum_get_info(enumtype, &num, ename, &ename_len);
  MPI_T_cvar_handle handle;
  int count = 0;
  ASSERT_EQ(MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count), MPI_SUCCESS);
  int saved = 0;
  MPI_T_cvar_read(handle, &saved);
  const int p = test::world_size(), me = test::world_rank();
  for (const char* alg : {"ring", "onefactor"}) {
    int value = -1;
    for (int i = 0; i < num; ++i) {
      char item[256];
      int item_len = sizeof item, v = 0;
      MPI_T_enum_get_item(enumtype, i, &v, item, &item_len);
      if (std::string(item) == alg) value = v;
    }
    ASSERT_GE(value, 0) << alg;
    ASSERT_EQ(MPI_T_cvar_write(handle, &value), MPI_SUCCESS) << alg;
    long long before = 0, after = 0;
    stats("alltoall", alg, &before, nullptr, nullptr);
    const int n = 5;
    std::vector<int> send(static_cast<size_t>(p) * n), recv(send.size(), -1);
    for (int d = 0; d < p; ++d)
      for (int i = 0; i < n; ++i) send[d * n + i] = payload(me, d, i);
    ASSERT_EQ(MPI_Alltoall(send.data(), n, MPI_INT, recv.data(), n, MPI_INT, MPI_COMM_WORLD),
              MPI_SUCCESS);
    for (int s = 0; s < p; ++s)
      for (int i = 0; i < n; ++i) ASSERT_EQ(recv[s * n + i], payload(s, me, i)) << alg;
    stats("alltoall", alg, &after, nullptr, nullptr);
    EXPECT_EQ(after - before, 1) << alg << " did not run";
  }
  MPI_T_cvar_write(handle, &saved);
  MPI_T_cvar_handle_free(&handle);
}

}  // namespace
}  // namespace topoa2a

int main(int argc, char** argv) {
  int provided = 0;
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  const int rc = topoa2a::test::mpi_test_main(argc, argv);
  MPI_T_finalize();
  return rc;
}
