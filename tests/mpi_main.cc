#include "tests/mpi_main.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace topoa2a::test {
namespace {

class FailuresOnly : public ::testing::EmptyTestEventListener {
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (r.failed())
      std::fprintf(stderr, "[rank %d] %s:%d: %s\n", world_rank(),
                   r.file_name() ? r.file_name() : "?", r.line_number(), r.summary());
  }
};

}  // namespace

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int world_size() {
  int p = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}

bool all_ok(bool ok, MPI_Comm comm) {
  int mine = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
  return all == 1;
}

int mpi_test_main(int argc, char** argv) {
  // TOPOA2A_TEST_THREAD_LEVEL=serialized: ask for less than the default
  // MPI_THREAD_MULTIPLE (what the front door does may depend on it).
  const char* level = std::getenv("TOPOA2A_TEST_THREAD_LEVEL");
  const bool serialized = level && std::string(level) == "serialized";
  int provided = 0;
  MPI_Init_thread(&argc, &argv, serialized ? MPI_THREAD_SERIALIZED : MPI_THREAD_MULTIPLE,
                  &provided);
  ::testing::InitGoogleTest(&argc, argv);
  if (world_rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailuresOnly);
  }
  const int result = RUN_ALL_TESTS();
  int any = result != 0, worst = 0;
  MPI_Allreduce(&any, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}

}  // namespace topoa2a::test
