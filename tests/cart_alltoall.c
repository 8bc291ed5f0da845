/* cart_alltoall: an ordinary MPI program (plain mpicc, no topoa2a headers)
 * that makes one MPI_Alltoall on MPI_COMM_WORLD and one on a Cartesian
 * communicator built with MPI_Cart_create, and checks both results.
 *
 * Before each call rank 0 writes "cart_alltoall: comm=world" or
 * "cart_alltoall: comm=cart" to stderr, so that a verbose plugin line that
 * follows can be attributed to its communicator. Exit status 0 only if every
 * rank got the right data ("result correct" on stdout).
 *
 * usage: mpiexec -n P ./cart_alltoall DIMS BYTES [--periodic]
 *   DIMS: AxB[xC..] (product P), BYTES: bytes per block (a multiple of 4)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int code(int src, int dst, int j) { return (src * 64 + dst) * 65536 + j; }

/* One MPI_Alltoall of n ints per block on comm; the number of wrong ints. */
static long one_alltoall(MPI_Comm comm, int n, const char *name) {
  int p, me;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &me);
  int *sb = malloc(sizeof(int) * (size_t)n * p), *rb = malloc(sizeof(int) * (size_t)n * p);
  for (int d = 0; d < p; ++d)
    for (int j = 0; j < n; ++j) {
      sb[d * n + j] = code(me, d, j);
      rb[d * n + j] = -1;
    }
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) {
    fprintf(stderr, "cart_alltoall: comm=%s\n", name);
    fflush(stderr);
  }
  long bad = MPI_Alltoall(sb, n, MPI_INT, rb, n, MPI_INT, comm) != MPI_SUCCESS;
  for (int s = 0; s < p; ++s)
    for (int j = 0; j < n; ++j) bad += rb[s * n + j] != code(s, me, j);
  fflush(stderr);
  MPI_Barrier(MPI_COMM_WORLD);
  free(sb);
  free(rb);
  return bad;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int p, me;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (argc < 3) {
    if (me == 0) fprintf(stderr, "usage: cart_alltoall DIMS BYTES [--periodic]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int dims[8], periods[8], nd = 0;
  long product = 1;
  for (const char *at = argv[1]; *at && nd < 8;) {
    char *end;
    dims[nd] = (int)strtol(at, &end, 10);
    product *= dims[nd];
    periods[nd++] = argc > 3 && strcmp(argv[3], "--periodic") == 0;
    at = *end == 'x' ? end + 1 : end + strlen(end);
  }
  const int bytes = atoi(argv[2]);
  if (product != p || bytes <= 0 || bytes % 4 != 0) {
    if (me == 0)
      fprintf(stderr, "cart_alltoall: DIMS %s is not %d ranks, or bad BYTES\n", argv[1], p);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 0, &cart);
  long bad = one_alltoall(MPI_COMM_WORLD, bytes / 4, "world");
  bad += one_alltoall(cart, bytes / 4, "cart");
  long all_bad = 0;
  MPI_Reduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (me == 0)
    printf("cart_alltoall: p=%d dims=%s %d bytes: %s\n", p, argv[1], bytes,
           all_bad ? "WRONG RESULT" : "result correct");
  MPI_Comm_free(&cart);
  MPI_Finalize();
  return all_bad != 0;
}
