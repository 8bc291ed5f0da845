/* transpose: an ordinary MPI program (plain mpicc, no topoa2a headers).
 *
 * Transposes an N x N matrix distributed by rows with MPI_Alltoall, then
 * redistributes a list of keys to their owners with MPI_Alltoallv, and
 * checks both results. Exit status 0 only if every rank got the right data.
 *
 * usage: mpiexec -n P ./transpose [N] [iterations]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double value(long i, long j) { return (double)i * 100003.0 + (double)j; }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int p, me;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  const long n = (argc > 1 ? atol(argv[1]) : 64) / p * p; /* divisible by p */
  const int iters = argc > 2 ? atoi(argv[2]) : 3;
  const long rows = n / p, block = rows * rows;
  double *a = malloc(sizeof(double) * rows * n), *send = malloc(sizeof(double) * rows * n);
  double *recv = malloc(sizeof(double) * rows * n), *at = malloc(sizeof(double) * rows * n);
  for (long i = 0; i < rows; ++i)
    for (long j = 0; j < n; ++j) a[i * n + j] = value(me * rows + i, j);

  int bad = 0;
  double t = 0;
  for (int it = 0; it < iters; ++it) {
    /* Block d of the send buffer: my rows, the columns rank d will own. */
    for (int d = 0; d < p; ++d)
      for (long i = 0; i < rows; ++i)
        for (long j = 0; j < rows; ++j) send[d * block + i * rows + j] = a[i * n + d * rows + j];
    double t0 = MPI_Wtime();
    MPI_Alltoall(send, (int)block, MPI_DOUBLE, recv, (int)block, MPI_DOUBLE, MPI_COMM_WORLD);
    t += MPI_Wtime() - t0;
    /* Block s holds rows of rank s, my columns: transpose locally. */
    for (int s = 0; s < p; ++s)
      for (long i = 0; i < rows; ++i)
        for (long j = 0; j < rows; ++j) at[j * n + s * rows + i] = recv[s * block + i * rows + j];
    for (long i = 0; i < rows; ++i)
      for (long j = 0; j < n; ++j) bad += at[i * n + j] != value(j, me * rows + i);
  }

  /* Keys k = me*1000 + x, x < 3 * p, go to rank k % p: uneven counts. */
  int *keys = malloc(sizeof(int) * 3 * p), *sc = calloc(p, sizeof(int)), *sd = calloc(p, sizeof(int));
  int *rc = calloc(p, sizeof(int)), *rd = calloc(p, sizeof(int)), nkeys = 0;
  for (int x = 0; x < 3 * p; ++x)
    if ((me + x) % 3 != 0) sc[(me * 1000 + x) % p]++;
  for (int d = 1; d < p; ++d) sd[d] = sd[d - 1] + sc[d - 1];
  int *fill = calloc(p, sizeof(int));
  for (int x = 0; x < 3 * p; ++x)
    if ((me + x) % 3 != 0) {
      const int d = (me * 1000 + x) % p;
      keys[sd[d] + fill[d]++] = me * 1000 + x;
    }
  MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, MPI_COMM_WORLD);
  for (int s = 1; s < p; ++s) rd[s] = rd[s - 1] + rc[s - 1];
  for (int s = 0; s < p; ++s) nkeys += rc[s];
  int *mine = malloc(sizeof(int) * (nkeys + 1));
  MPI_Alltoallv(keys, sc, sd, MPI_INT, mine, rc, rd, MPI_INT, MPI_COMM_WORLD);
  for (int k = 0; k < nkeys; ++k) bad += mine[k] % p != me;

  int all_bad = 0;
  MPI_Reduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (me == 0)
    printf("transpose: N=%ld p=%d iterations=%d alltoall %.3f ms/iter, %s\n", n, p, iters,
           1e3 * t / iters, all_bad ? "WRONG RESULT" : "result correct");
  free(a), free(send), free(recv), free(at), free(keys), free(sc), free(sd), free(rc), free(rd);
  free(fill), free(mine);
  MPI_Finalize();
  return all_bad != 0;
}
