/* emu_shim: LD_PRELOAD shim for MPI runs on the emulated cluster
 * (bench/emucluster.sh puts it first in LD_PRELOAD). Two work-arounds, no
 * change to any message or algorithm:
 *
 * 1. Yield when idle. MPICH's ch4:ucx progress engine spins on
 *    ucp_worker_progress(). With 8-16 ranks on 2 cores a spinning rank holds
 *    its core for a whole time slice while the rank that has data to handle
 *    waits. The shim calls the real ucp_worker_progress() and, when it made
 *    no progress, sched_yield()s, so a rank with work gets the core at once:
 *    the emulation then approximates "one core per rank".
 *    EMU_YIELD_SPIN=N: yield only after N idle polls in a row (default 1);
 *    EMU_YIELD_SPIN=0: never yield. EMU_IDLE_SLEEP_US=U: sleep U
 *    microseconds instead of yielding (the core goes idle, so the kernel's
 *    packet forwarding in softirq / ksoftirqd runs at once).
 *
 * 2. Finalize without UCX's TCP teardown. With UCX_TLS=self,tcp (UCX 1.13)
 *    MPI_Finalize sometimes hangs for good: one rank waits in UCX for its
 *    endpoints to close while the others already block in the PMI barrier
 *    and no longer progress UCX (openucx/ucx issue 8738). The shim's
 *    MPI_Finalize: MPI_Barrier (every rank has finished its MPI work), 20 ms
 *    more progress (so the barrier's last messages leave), 300 ms without
 *    progress (so every rank is out of the barrier before any socket
 *    closes: a rank still progressing would take a peer's close for an
 *    error), flush stdio, _exit(0). EMU_REAL_FINALIZE=1 calls the real
 *    MPI_Finalize instead.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

typedef unsigned (*progress_fn)(void*);

unsigned ucp_worker_progress(void* worker) {
  static progress_fn real;
  static int spin = -1;
  static long sleep_ns;
  static __thread int idle;
  if (!real) real = (progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
  if (spin < 0) {
    const char* s = getenv("EMU_YIELD_SPIN");
    spin = s ? atoi(s) : 1;
    if (spin < 0) spin = 0;
    const char* u = getenv("EMU_IDLE_SLEEP_US");
    sleep_ns = u ? (long)(atof(u) * 1000) : 0;
  }
  unsigned n = real(worker);
  if (n) {
    idle = 0;
  } else if (spin && ++idle >= spin) {
    idle = 0;
    if (sleep_ns > 0) {
      struct timespec ts = {sleep_ns / 1000000000L, sleep_ns % 1000000000L};
      nanosleep(&ts, NULL);
    } else {
      sched_yield();
    }
  }
  return n;
}

int MPI_Finalize(void) {
  const char* s = getenv("EMU_REAL_FINALIZE");
  if (s && atoi(s)) {
    int (*real)(void) = (int (*)(void))dlsym(RTLD_NEXT, "MPI_Finalize");
    return real();
  }
  PMPI_Barrier(MPI_COMM_WORLD);
  double t0 = PMPI_Wtime();
  while (PMPI_Wtime() - t0 < 0.02) {
    int flag;
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
  }
  fflush(NULL);
  struct timespec ts = {0, 300 * 1000 * 1000};
  nanosleep(&ts, NULL);
  _exit(0);
}
