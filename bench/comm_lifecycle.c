/* comm_lifecycle: what communicators cost a program, with or without a
 * preloaded library. A plain MPI program (it knows nothing of topoa2a):
 *   dup      MPI_Comm_dup + MPI_Comm_free of MPI_COMM_WORLD
 *   split    MPI_Comm_split of MPI_COMM_WORLD in halves + MPI_Comm_free
 *   first    MPI_Comm_dup, one MPI_Alltoall of 1 int per peer, MPI_Comm_free
 *   live     how many duplicates of MPI_COMM_WORLD can be alive at once
 *            (MPI_ERRORS_RETURN; stops at the first failure, or at 4096)
 * Prints one line per measure: "NAME VALUE UNIT" (times: mean per
 * operation, the slowest rank's).
 * Usage: mpiexec -n P comm_lifecycle [ITERATIONS] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double timed(int what, int iters) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int* send = malloc(sizeof(int) * (size_t)size);
  int* recv = malloc(sizeof(int) * (size_t)size);
  for (int i = 0; i < size; ++i) send[i] = rank * size + i;
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime();
  for (int i = 0; i < iters; ++i) {
    MPI_Comm c;
    if (what == 1)
      MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &c);
    else
      MPI_Comm_dup(MPI_COMM_WORLD, &c);
    if (what == 2) {
      MPI_Alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, c);
      for (int j = 0; j < size; ++j)
        if (recv[j] != j * size + rank) {
          fprintf(stderr, "comm_lifecycle: rank %d got a wrong block\n", rank);
          MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    MPI_Comm_free(&c);
  }
  t = (MPI_Wtime() - t) / iters;
  double slowest = 0;
  MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  free(send);
  free(recv);
  return slowest;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int iters = argc > 1 ? atoi(argv[1]) : 100;
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char* names[] = {"dup", "split", "first"};
  for (int w = 0; w < 3; ++w) {
    const double t = timed(w, iters);
    if (rank == 0) printf("%s %.3f us\n", names[w], t * 1e6);
  }
  enum { kMax = 4096 };
  MPI_Comm* live = malloc(sizeof(MPI_Comm) * kMax);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int n = 0;
  while (n < kMax && MPI_Comm_dup(MPI_COMM_WORLD, &live[n]) == MPI_SUCCESS) ++n;
  int fewest = 0;
  MPI_Allreduce(&n, &fewest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) printf("live %d communicators\n", fewest);
  for (int i = 0; i < n; ++i) MPI_Comm_free(&live[i]);
  free(live);
  MPI_Finalize();
  return 0;
}
