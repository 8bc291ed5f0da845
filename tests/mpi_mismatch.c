/* An erroneous program: rank 0 passes 1 int per peer to MPI_Alltoall, the
 * other ranks 4096. With MPI_ERRORS_RETURN (argument "return") every rank
 * prints "rank R class=NAME" and exits; with the default fatal handler the
 * job aborts. Either way it must end, as with MPICH alone. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (argc > 1 && !strcmp(argv[1], "return"))
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int n = rank == 0 ? 1 : 4096;
  int* s = calloc((size_t)n * p, sizeof(int));
  int* r = calloc((size_t)n * p, sizeof(int));
  const int err = MPI_Alltoall(s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD);
  int cls = MPI_SUCCESS;
  MPI_Error_class(err, &cls);
  printf("rank %d class=%s\n", rank,
         cls == MPI_SUCCESS ? "MPI_SUCCESS" : cls == MPI_ERR_TRUNCATE ? "MPI_ERR_TRUNCATE" : "other");
  free(s);
  free(r);
  MPI_Finalize();
  return 0;
}
