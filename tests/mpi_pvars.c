/* topoa2a's MPI_T performance variables (plugin/pvar_list.h), read as a
 * tool reads them, in either door: the preload door (libtopoa2a.so
 * preloaded: plugin/pvars.cc interposes MPI_T) or the native one
 * (TOPOA2A_FRONT=native: the plugin registers them with MPICH's own MPI_T),
 * with MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=ring (those bound to a
 * communicator: mpi_pvars_comm.c). Checks: the variables are
 * found by name and by enumeration (in the category "topoa2a"), described
 * as read-only continuous counters, count exactly the calls and the ring's
 * rounds (p - 1 per call) and bytes (p - 1 blocks forwarded per rank and
 * round ... summed: m * p(p-1)/2 per call) through handles allocated before
 * the calls (MPICH's counters read the increase since the handle was
 * allocated, the preload door's the total: the difference is the same),
 * refuse write / reset / start, and (preload) leave MPICH's own variables
 * where they were. Prints "pvars ok". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c_check.h"

static MPI_T_pvar_handle open_pvar(MPI_T_pvar_session s, const char* name) {
  int index = -1, n = 0;
  MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
  int err = MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &index);
  CHECK(err == MPI_SUCCESS, "get_index %s: %d", name, err);
  if (err != MPI_SUCCESS) return h;
  err = MPI_T_pvar_handle_alloc(s, index, NULL, &h, &n);
  CHECK(err == MPI_SUCCESS && n == 1, "handle_alloc %s: %d count %d", name, err, n);
  return h;
}

static unsigned long long read_pvar(MPI_T_pvar_session s, MPI_T_pvar_handle h) {
  unsigned long long v = 0;
  int err = MPI_T_pvar_read(s, h, &v);
  CHECK(err == MPI_SUCCESS, "read: %d", err);
  return v;
}

static void close_pvar(MPI_T_pvar_session s, MPI_T_pvar_handle* h) {
  MPI_T_pvar_handle_free(s, h);
  CHECK(*h == MPI_T_PVAR_HANDLE_NULL, "handle_free did not reset the handle");
}

int main(int argc, char** argv) {
  int provided, rank, p, i;
  const int calls = 3, block = 8; /* bytes per block: two ints */
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  /* The native door registers ours among MPICH's, in MPICH's order. */
  const char* front = getenv("TOPOA2A_FRONT");
  const int native = front && strcmp(front, "native") == 0;

  int num = 0, mpich_num = 0, found = 0;
  MPI_T_pvar_get_num(&num);
  for (i = 0; i < num; ++i) {
    char name[256], desc[512];
    int name_len = sizeof name, desc_len = sizeof desc, verb, cls, bind, ro, cont, atomic;
    MPI_Datatype dt;
    MPI_T_enum en;
    int err = MPI_T_pvar_get_info(i, name, &name_len, &verb, &cls, &dt, &en, desc, &desc_len, &bind,
                                  &ro, &cont, &atomic);
    CHECK(err == MPI_SUCCESS, "get_info %d of %d: %d", i, num, err);
    if (err != MPI_SUCCESS) continue;
    if (strncmp(name, "topoa2a_", 8) != 0) {
      CHECK(native || !found, "MPICH's variable %s after ours", name);
      ++mpich_num;
      continue;
    }
    ++found;
    /* Those bound to a communicator: mpi_pvars_comm.c. */
    if (strncmp(name, "topoa2a_comm_", 13) == 0)
      CHECK(bind == MPI_T_BIND_MPI_COMM && ro && cont, "%s: not bound to a communicator", name);
    else
      CHECK(cls == MPI_T_PVAR_CLASS_COUNTER && dt == MPI_UNSIGNED_LONG_LONG &&
                bind == MPI_T_BIND_NO_OBJECT && ro && cont, /* flags: true is nonzero */
            "%s: not a read-only continuous per-process counter", name);
    CHECK(name_len == (int)strlen(name) + 1 && desc_len == (int)strlen(desc) + 1 && desc[0],
          "%s: string lengths", name);
  }
  CHECK(found > 0, "no topoa2a_ variable among %d (is libtopoa2a.so preloaded?)", num);
  if (!found) {
    if (rank == 0) printf("pvars FAILED (none of ours)\n");
    MPI_T_finalize();
    MPI_Finalize();
    return 1;
  }
  int bad = 0;
  /* The interposer's bound (MPICH, built without error checking, does not
   * check indices: the native door leaves this to it). */
  CHECK(native || MPI_T_pvar_get_info(num, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                      NULL, NULL, NULL) == MPI_T_ERR_INVALID_INDEX,
        "index past the end accepted");
  CHECK(MPI_T_pvar_get_index("topoa2a_no_such_thing", MPI_T_PVAR_CLASS_COUNTER, &bad) ==
            MPI_T_ERR_INVALID_NAME,
        "unknown name accepted");

  /* The category lists exactly our variables. */
  int cat = -1, ncat = 0, ncv = -1, npv = -1, nsub = -1;
  CHECK(MPI_T_category_get_index("topoa2a", &cat) == MPI_SUCCESS, "no category topoa2a");
  MPI_T_category_get_num(&ncat);
  CHECK(native || cat == ncat - 1, "category %d of %d", cat, ncat);
  char cname[64], cdesc[256];
  int cname_len = sizeof cname, cdesc_len = sizeof cdesc;
  MPI_T_category_get_info(cat, cname, &cname_len, cdesc, &cdesc_len, &ncv, &npv, &nsub);
  CHECK(strcmp(cname, "topoa2a") == 0 && cdesc[0], "category %s: '%s'", cname, cdesc);
  CHECK(ncv == 0 && npv == found && nsub == 0, "category counts %d %d %d", ncv, npv, nsub);
  if (npv == found && found > 0) {
    int* idx = malloc(sizeof(int) * found);
    MPI_T_category_get_pvars(cat, found, idx);
    CHECK(native || (idx[0] == mpich_num && idx[found - 1] == mpich_num + found - 1),
          "category indices");
    for (i = 0; i < found; ++i) {
      char name[256];
      int name_len = sizeof name;
      int verb, cls, bind, ro, cont, atomic;
      MPI_Datatype dt;
      MPI_T_enum en;
      MPI_T_pvar_get_info(idx[i], name, &name_len, &verb, &cls, &dt, &en, NULL, NULL, &bind, &ro,
                          &cont, &atomic);
      CHECK(strncmp(name, "topoa2a_", 8) == 0, "category lists %s", name);
    }
    free(idx);
  }

  MPI_T_pvar_session s;
  MPI_T_pvar_session_create(&s);
  MPI_T_pvar_handle hc = open_pvar(s, "topoa2a_alltoall_ring_calls");
  MPI_T_pvar_handle hr = open_pvar(s, "topoa2a_alltoall_ring_rounds");
  MPI_T_pvar_handle hb = open_pvar(s, "topoa2a_alltoall_ring_bytes");
  const unsigned long long c0 = read_pvar(s, hc), r0 = read_pvar(s, hr), b0 = read_pvar(s, hb);
  int* send = malloc(sizeof(int) * 2 * p);
  int* recv = malloc(sizeof(int) * 2 * p);
  for (i = 0; i < 2 * p; ++i) send[i] = rank * 1000 + i;
  for (i = 0; i < calls; ++i) MPI_Alltoall(send, 2, MPI_INT, recv, 2, MPI_INT, MPI_COMM_WORLD);
  for (i = 0; i < 2 * p; ++i)
    CHECK(recv[i] == (i / 2) * 1000 + 2 * rank + i % 2, "recv[%d] = %d", i, recv[i]);
  const unsigned long long dc = read_pvar(s, hc) - c0;
  const unsigned long long dr = read_pvar(s, hr) - r0;
  const unsigned long long db = read_pvar(s, hb) - b0;
  close_pvar(s, &hc);
  close_pvar(s, &hr);
  close_pvar(s, &hb);
  /* p == 1 moves nothing: MPICH's semantics, no round. */
  const unsigned long long want_r = (unsigned long long)calls * (p - 1);
  const unsigned long long want_b = (unsigned long long)calls * block * p * (p - 1) / 2;
  CHECK(dc == (unsigned long long)calls, "calls %llu, want %d", dc, calls);
  CHECK(p == 1 || dr == want_r, "rounds %llu, want %llu", dr, want_r);
  CHECK(p == 1 || db == want_b, "bytes %llu, want %llu", db, want_b);

  /* MPI_Ialltoall counts under ialltoall when CTest selects ring for it. */
  const char* nb = getenv("MPIR_CVAR_IALLTOALL_INTRA_ALGORITHM");
  if (nb && strcmp(nb, "ring") == 0) {
    MPI_T_pvar_handle hn = open_pvar(s, "topoa2a_ialltoall_ring_calls");
    MPI_T_pvar_handle hnr = open_pvar(s, "topoa2a_ialltoall_ring_rounds");
    const unsigned long long n0 = read_pvar(s, hn), nr0 = read_pvar(s, hnr);
    for (i = 0; i < calls; ++i) {
      MPI_Request req;
      MPI_Ialltoall(send, 2, MPI_INT, recv, 2, MPI_INT, MPI_COMM_WORLD, &req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    for (i = 0; i < 2 * p; ++i)
      CHECK(recv[i] == (i / 2) * 1000 + 2 * rank + i % 2, "ialltoall recv[%d] = %d", i, recv[i]);
    const unsigned long long dn = read_pvar(s, hn) - n0;
    const unsigned long long dnr = read_pvar(s, hnr) - nr0;
    close_pvar(s, &hn);
    close_pvar(s, &hnr);
    CHECK(dn == (unsigned long long)calls, "ialltoall calls %llu, want %d", dn, calls);
    CHECK(p == 1 || dnr == want_r, "ialltoall rounds %llu, want %llu", dnr, want_r);
  }

  /* Read-only, continuous. */
  int index = -1, n = 0;
  MPI_T_pvar_handle h;
  unsigned long long v = 0;
  MPI_T_pvar_get_index("topoa2a_alltoall_ring_calls", MPI_T_PVAR_CLASS_COUNTER, &index);
  MPI_T_pvar_handle_alloc(s, index, NULL, &h, &n);
  CHECK(MPI_T_pvar_write(s, h, &v) == MPI_T_ERR_PVAR_NO_WRITE, "write accepted");
  CHECK(MPI_T_pvar_reset(s, h) == MPI_T_ERR_PVAR_NO_WRITE, "reset accepted");
  CHECK(MPI_T_pvar_start(s, h) == MPI_T_ERR_PVAR_NO_STARTSTOP, "start accepted");
  CHECK(MPI_T_pvar_stop(s, h) == MPI_T_ERR_PVAR_NO_STARTSTOP, "stop accepted");
  MPI_T_pvar_session s2;
  MPI_T_pvar_session_create(&s2);
  /* (The interposer checks it; MPICH, built without error checking, does not.) */
  CHECK(native || MPI_T_pvar_read(s2, h, &v) == MPI_T_ERR_INVALID_HANDLE,
        "handle of another session");
  MPI_T_pvar_session_free(&s2);
  /* MPICH's own variables still work through the same calls. */
  if (mpich_num > 0) {
    MPI_T_pvar_handle mh;
    int mn = 0;
    int err = MPI_T_pvar_handle_alloc(s, 0, NULL, &mh, &mn);
    if (err == MPI_SUCCESS) MPI_T_pvar_handle_free(s, &mh);
    CHECK(err == MPI_SUCCESS || err == MPI_T_ERR_INVALID_HANDLE /* needs an object */,
          "MPICH's variable 0: %d", err);
  }
  MPI_T_pvar_session_free(&s); /* frees h with it */
  MPI_T_finalize();
  free(send);
  free(recv);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf(all ? "pvars FAILED (%d)\n" : "pvars ok\n", all);
  MPI_Finalize();
  return all != 0;
}
