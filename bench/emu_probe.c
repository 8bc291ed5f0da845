/* emu_probe: time MPI_Alltoall at a few block sizes, osu_alltoall-style output.
 *
 * usage: emu_probe [-m SIZES] [-i ITERS] [-x WARMUP] [-t SECONDS] [-v]
 *   -m  comma separated block sizes in bytes (bytes sent to each peer),
 *       default 1,64,1024,16384,65536
 *   -i  at most ITERS timed calls per size (default 20)
 *   -x  untimed warm-up calls per size (default 2)
 *   -t  time budget per size in seconds (default 5): fewer timed calls are
 *       made when the first one shows ITERS would not fit (at least 1)
 *   -v  every rank prints its MPI_Get_processor_name first
 *
 * It knows nothing of topoa2a: the algorithm is whatever the environment
 * (MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM) selects. Each size is checked once
 * (every received byte encodes its source rank and the size), then timed.
 * Output, on rank 0:
 *   # Size  Avg Latency(us)  Min Latency(us)  Max Latency(us)  Iterations
 * with the average, min and max over ranks of each rank's mean time per call.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned char pattern(int src, int dst, size_t i) {
  return (unsigned char)(src * 31 + dst * 7 + i * 13 + 1);
}

int main(int argc, char** argv) {
  /* read before MPI_Init: the preload library may rewrite it for MPICH */
  const char* alg = getenv("MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM");
  alg = alg ? strdup(alg) : "(unset)";
  MPI_Init(&argc, &argv);
  int rank, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  const char* sizes_arg = "1,64,1024,16384,65536";
  int iters = 20, warmup = 2, verbose = 0;
  double budget = 5.0;
  int opt;
  while ((opt = getopt(argc, argv, "m:i:x:t:v")) != -1) {
    switch (opt) {
      case 'm': sizes_arg = optarg; break;
      case 'i': iters = atoi(optarg); break;
      case 'x': warmup = atoi(optarg); break;
      case 't': budget = atof(optarg); break;
      case 'v': verbose = 1; break;
      default:
        if (rank == 0) fprintf(stderr, "usage: emu_probe [-m SIZES] [-i ITERS] [-x WARMUP] [-t SECONDS] [-v]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (iters < 1) iters = 1;
  if (verbose) {
    char name[MPI_MAX_PROCESSOR_NAME];
    int len;
    MPI_Get_processor_name(name, &len);
    char all[64][MPI_MAX_PROCESSOR_NAME];
    if (p <= 64) {
      MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
                 MPI_COMM_WORLD);
      if (rank == 0)
        for (int r = 0; r < p; ++r) printf("# rank %d on %s\n", r, all[r]);
    }
    MPI_Comm node;
    int nodes = 0, first;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nr;
    MPI_Comm_rank(node, &nr);
    first = nr == 0;
    MPI_Reduce(&first, &nodes, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
    if (rank == 0) printf("# %d ranks on %d MPI nodes (MPI_COMM_TYPE_SHARED)\n", p, nodes);
  }
  if (rank == 0) {
    printf("# emu_probe MPI_Alltoall p=%d algorithm=%s\n", p, alg);
    printf("# Size  Avg Latency(us)  Min Latency(us)  Max Latency(us)  Iterations\n");
    fflush(stdout);
  }
  char* list = strdup(sizes_arg);
  for (char* tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
    size_t m = strtoull(tok, NULL, 10);
    unsigned char* sbuf = malloc(m * p + 1);
    unsigned char* rbuf = malloc(m * p + 1);
    for (int d = 0; d < p; ++d)
      for (size_t i = 0; i < m; ++i) sbuf[d * m + i] = pattern(rank, d, i);
    memset(rbuf, 0, m * p);
    MPI_Alltoall(sbuf, (int)m, MPI_BYTE, rbuf, (int)m, MPI_BYTE, MPI_COMM_WORLD);
    int bad = 0;
    for (int s = 0; s < p && !bad; ++s)
      for (size_t i = 0; i < m; ++i)
        if (rbuf[s * m + i] != pattern(s, rank, i)) {
          bad = 1;
          fprintf(stderr, "emu_probe: rank %d size %zu: wrong byte %zu from rank %d\n", rank, m, i, s);
          break;
        }
    int anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (anybad) MPI_Abort(MPI_COMM_WORLD, 3);
    for (int w = 0; w < warmup; ++w)
      MPI_Alltoall(sbuf, (int)m, MPI_BYTE, rbuf, (int)m, MPI_BYTE, MPI_COMM_WORLD);
    /* one timed call decides how many fit in the budget (rank 0's view) */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_Alltoall(sbuf, (int)m, MPI_BYTE, rbuf, (int)m, MPI_BYTE, MPI_COMM_WORLD);
    double first = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int n = iters;
    if (first * n > budget) n = (int)(budget / (first > 0 ? first : 1e-9));
    if (n < 1) n = 1;
    double total = 0;
    int done = 0;
    if (n == 1) { /* the probe call is the measurement */
      total = first;
      done = 1;
    } else {
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = MPI_Wtime();
      for (int k = 0; k < n; ++k)
        MPI_Alltoall(sbuf, (int)m, MPI_BYTE, rbuf, (int)m, MPI_BYTE, MPI_COMM_WORLD);
      total = MPI_Wtime() - t0;
      done = n;
    }
    double mean = total / done * 1e6, sum, mn, mx;
    MPI_Reduce(&mean, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mean, &mn, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mean, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      printf("%-8zu %14.2f %14.2f %14.2f %8d\n", m, sum / p, mn, mx, done);
      fflush(stdout);
    }
    free(sbuf);
    free(rbuf);
  }
  free(list);
  MPI_Finalize();
  return 0;
}
