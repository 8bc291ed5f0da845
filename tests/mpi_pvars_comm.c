/* topoa2a's MPI_T variables bound to a communicator (plugin/pvar_list.h),
 * read as a tool reads them, in either door (TOPOA2A_FRONT=native: the
 * native one), under the algorithm MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM names
 * (topo_auto or one of ours). Three communicators: A (a duplicate of
 * MPI_COMM_WORLD, 2 MPI_Alltoall calls), B (the even or odd world ranks, 1
 * call) and C (a duplicate, none). Checks:
 * - topoa2a_comm_<op>_topo_auto_choice: class STATE, MPI_INT, bound to a
 *   communicator, its enum "topoa2a_algorithm" names "none", "ring" and
 *   "mpich" (and the value it reads); under topo_auto A's and B's name the
 *   algorithm that ran, C's is "none"; under a forced algorithm all are
 *   "none";
 * - topoa2a_comm_alltoall_<that algorithm>_calls grows by 2 on A, 1 on B and
 *   0 on C (handles allocated before the calls, read after), and
 *   topoa2a_comm_alltoall_<...>_bytes on A grows (p > 1, our algorithms);
 * - the per-process counter of the algorithm grew by at least the sum;
 * - with MPIR_CVAR_IALLTOALL_INTRA_ALGORITHM=topo_auto (preload door), an
 *   MPI_Ialltoall on C sets C's ialltoall choice, not its alltoall one.
 * Prints "pvars comm ok". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c_check.h"

static MPI_T_pvar_session session;

/* A handle on variable `name` of class `cls`, bound to *comm (NULL: none). */
static MPI_T_pvar_handle open_pvar(const char* name, int cls, MPI_Comm* comm) {
  int index = -1, n = 0;
  MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
  int err = MPI_T_pvar_get_index(name, cls, &index);
  CHECK(err == MPI_SUCCESS, "get_index %s: %d", name, err);
  if (err != MPI_SUCCESS) return h;
  err = MPI_T_pvar_handle_alloc(session, index, comm, &h, &n);
  CHECK(err == MPI_SUCCESS && n == 1, "handle_alloc %s: %d count %d", name, err, n);
  return h;
}

static unsigned long long read_counter(MPI_T_pvar_handle h) {
  unsigned long long v = 0;
  CHECK(MPI_T_pvar_read(session, h, &v) == MPI_SUCCESS, "read");
  return v;
}

/* The enum of the choice variables, checked; the name of its value v. */
static MPI_T_enum choice_enum = MPI_T_ENUM_NULL;
static void check_choice_info(void) {
  char name[256], ename[64];
  int name_len = sizeof name, ename_len = sizeof ename, verb, cls, bind, ro, cont, atomic;
  int index = -1, num = 0, i, seen = 0;
  MPI_Datatype dt;
  CHECK(MPI_T_pvar_get_index("topoa2a_comm_alltoall_topo_auto_choice", MPI_T_PVAR_CLASS_STATE,
                             &index) == MPI_SUCCESS,
        "no topoa2a_comm_alltoall_topo_auto_choice of class STATE");
  if (index < 0) return;
  MPI_T_pvar_get_info(index, name, &name_len, &verb, &cls, &dt, &choice_enum, NULL, NULL, &bind,
                      &ro, &cont, &atomic);
  CHECK(cls == MPI_T_PVAR_CLASS_STATE && dt == MPI_INT && bind == MPI_T_BIND_MPI_COMM && ro &&
            cont && choice_enum != MPI_T_ENUM_NULL,
        "%s: not a read-only continuous STATE variable of a communicator", name);
  if (choice_enum == MPI_T_ENUM_NULL) return;
  CHECK(MPI_T_enum_get_info(choice_enum, &num, ename, &ename_len) == MPI_SUCCESS &&
            strcmp(ename, "topoa2a_algorithm") == 0 && num > 3,
        "enum %s with %d items", ename, num);
  for (i = 0; i < num; ++i) {
    char item[64];
    int item_len = sizeof item, value = -1;
    CHECK(MPI_T_enum_get_item(choice_enum, i, &value, item, &item_len) == MPI_SUCCESS,
          "enum item %d", i);
    if ((i == 0 && strcmp(item, "none") == 0) || strcmp(item, "ring") == 0 ||
        strcmp(item, "mpich") == 0)
      ++seen;
  }
  CHECK(seen == 3, "enum lacks none (first), ring or mpich");
}

static void choice_name(MPI_T_pvar_handle h, char* out, int len) {
  int value = -1;
  CHECK(MPI_T_pvar_read(session, h, &value) == MPI_SUCCESS, "read choice");
  out[0] = '\0';
  CHECK(MPI_T_enum_get_item(choice_enum, value, &value, out, &len) == MPI_SUCCESS,
        "choice value %d is not an item", value);
}

/* The counter family of a choice: "mpich:scattered" counts under "mpich". */
static void counter_name(const char* alg, const char* what, char* out, size_t len) {
  const int mpich = strncmp(alg, "mpich", 5) == 0;
  snprintf(out, len, "topoa2a_comm_alltoall_%s_%s", mpich ? "mpich" : alg, what);
}

static void alltoall(MPI_Comm comm, int times) {
  int p, rank, i, t;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &rank);
  int* send = malloc(sizeof(int) * 2 * p);
  int* recv = malloc(sizeof(int) * 2 * p);
  for (i = 0; i < 2 * p; ++i) send[i] = rank * 1000 + i;
  for (t = 0; t < times; ++t) MPI_Alltoall(send, 2, MPI_INT, recv, 2, MPI_INT, comm);
  for (i = 0; i < 2 * p; ++i)
    CHECK(recv[i] == (i / 2) * 1000 + 2 * rank + i % 2, "recv[%d] = %d", i, recv[i]);
  free(send);
  free(recv);
}

int main(int argc, char** argv) {
  int provided, rank, p;
  /* Read before MPI_Init: the preload door hands MPICH "auto" for ours. */
  char forced[64] = "topo_auto";
  if (getenv("MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM"))
    snprintf(forced, sizeof forced, "%s", getenv("MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM"));
  const char* nb_var = getenv("MPIR_CVAR_IALLTOALL_INTRA_ALGORITHM");
  const int nb_auto = nb_var && strcmp(nb_var, "topo_auto") == 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  const int topo_auto = strcmp(forced, "topo_auto") == 0;
  MPI_Comm a, b, c;
  MPI_Comm_dup(MPI_COMM_WORLD, &a);
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &b);
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  MPI_T_pvar_session_create(&session);
  check_choice_info();

  MPI_T_pvar_handle ca =
      open_pvar("topoa2a_comm_alltoall_topo_auto_choice", MPI_T_PVAR_CLASS_STATE, &a);
  MPI_T_pvar_handle cb =
      open_pvar("topoa2a_comm_alltoall_topo_auto_choice", MPI_T_PVAR_CLASS_STATE, &b);
  MPI_T_pvar_handle cc =
      open_pvar("topoa2a_comm_alltoall_topo_auto_choice", MPI_T_PVAR_CLASS_STATE, &c);
  char alg_a[64], alg_b[64], alg_c[64];
  choice_name(ca, alg_a, sizeof alg_a);
  CHECK(strcmp(alg_a, "none") == 0, "A's choice before any call: %s", alg_a);

  /* Warm-up on A and B decides the algorithm (topo_auto) without being
   * counted by the handles below, allocated after it. */
  alltoall(a, 1);
  alltoall(b, 1);
  choice_name(ca, alg_a, sizeof alg_a);
  choice_name(cb, alg_b, sizeof alg_b);
  choice_name(cc, alg_c, sizeof alg_c);
  CHECK(strcmp(alg_c, "none") == 0, "C's choice: %s", alg_c);
  if (topo_auto) {
    CHECK(strcmp(alg_a, "none") != 0 && strcmp(alg_b, "none") != 0, "choices %s %s", alg_a, alg_b);
  } else {
    CHECK(strcmp(alg_a, "none") == 0 && strcmp(alg_b, "none") == 0,
          "a forced algorithm set choices %s %s", alg_a, alg_b);
    snprintf(alg_a, sizeof alg_a, "%s", forced);
    snprintf(alg_b, sizeof alg_b, "%s", forced);
  }

  char na[128], nb[128], nbytes[128], nproc[128];
  counter_name(alg_a, "calls", na, sizeof na);
  counter_name(alg_b, "calls", nb, sizeof nb);
  counter_name(alg_a, "bytes", nbytes, sizeof nbytes);
  snprintf(nproc, sizeof nproc, "topoa2a_%s", na + strlen("topoa2a_comm_"));
  MPI_T_pvar_handle ha = open_pvar(na, MPI_T_PVAR_CLASS_COUNTER, &a);
  MPI_T_pvar_handle hb = open_pvar(nb, MPI_T_PVAR_CLASS_COUNTER, &b);
  MPI_T_pvar_handle hc = open_pvar(na, MPI_T_PVAR_CLASS_COUNTER, &c);
  MPI_T_pvar_handle hbytes = open_pvar(nbytes, MPI_T_PVAR_CLASS_COUNTER, &a);
  MPI_T_pvar_handle hproc = open_pvar(nproc, MPI_T_PVAR_CLASS_COUNTER, NULL);
  const unsigned long long a0 = read_counter(ha), b0 = read_counter(hb), c0 = read_counter(hc);
  const unsigned long long bytes0 = read_counter(hbytes), proc0 = read_counter(hproc);
  alltoall(a, 2);
  alltoall(b, 1);
  const unsigned long long da = read_counter(ha) - a0, db = read_counter(hb) - b0;
  const unsigned long long dc = read_counter(hc) - c0, dbytes = read_counter(hbytes) - bytes0;
  const unsigned long long dproc = read_counter(hproc) - proc0;
  CHECK(da == 2, "%s on A: %llu, want 2", na, da);
  CHECK(db == 1, "%s on B: %llu, want 1", nb, db);
  CHECK(dc == 0, "%s on C: %llu, want 0", na, dc);
  CHECK(dproc >= 2 + (strcmp(na, nb) == 0), "%s: %llu", nproc, dproc);
  CHECK(strncmp(alg_a, "mpich", 5) == 0 || p == 1 || dbytes > 0, "%s on A: %llu", nbytes, dbytes);
  /* The choice a handle reads now is still the call's. */
  char again[64];
  choice_name(ca, again, sizeof again);
  CHECK(!topo_auto || strcmp(again, alg_a) == 0, "A's choice changed: %s then %s", alg_a, again);

  /* MPI_Ialltoall under topo_auto (preload door): its own choice variable,
   * set once the ranks have agreed, and the counter of what it chose. */
  if (nb_auto) {
    MPI_T_pvar_handle ci =
        open_pvar("topoa2a_comm_ialltoall_topo_auto_choice", MPI_T_PVAR_CLASS_STATE, &c);
    char alg_i[64], ni[128];
    int* send = calloc(2 * (size_t)p, sizeof(int));
    int* recv = calloc(2 * (size_t)p, sizeof(int));
    MPI_Request req;
    MPI_Ialltoall(send, 2, MPI_INT, recv, 2, MPI_INT, c, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    choice_name(ci, alg_i, sizeof alg_i);
    CHECK(strcmp(alg_i, "none") != 0, "C's ialltoall choice: none");
    snprintf(ni, sizeof ni, "topoa2a_comm_ialltoall_%s_calls",
             strncmp(alg_i, "mpich", 5) == 0 ? "mpich" : alg_i);
    MPI_T_pvar_handle hi = open_pvar(ni, MPI_T_PVAR_CLASS_COUNTER, &c);
    const unsigned long long i0 = read_counter(hi);
    MPI_Ialltoall(send, 2, MPI_INT, recv, 2, MPI_INT, c, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(read_counter(hi) - i0 == 1, "%s on C did not count the call", ni);
    choice_name(cc, alg_c, sizeof alg_c);
    CHECK(strcmp(alg_c, "none") == 0, "C's alltoall choice after ialltoall: %s", alg_c);
    free(send);
    free(recv);
  }

  MPI_T_pvar_session_free(&session);
  MPI_T_finalize();
  MPI_Comm_free(&a);
  MPI_Comm_free(&b);
  MPI_Comm_free(&c);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && all) printf("pvars comm FAILED (%d)\n", all);
  if (rank == 0 && !all) printf("pvars comm ok (A: %s, B: %s)\n", alg_a, alg_b);
  MPI_Finalize();
  return all != 0;
}
