// Persistent all-to-alls in the preload door (MPI_Alltoall[v]_init): the
// handle table and the request calls it intercepts (plugin/nonblocking.h).
//
// A handle of ours is an MPICH persistent request that is never started (a
// receive on MPI_COMM_SELF), so that whatever sees it
// inactive, in any MPI call, behaves as for an inactive persistent request
// (an empty status, skipped by the *any/*some calls, freed by
// MPI_Request_free). MPI_Start[all] on it starts a run (a request of
// nb_start's, or MPICH's on a fallback) and marks it active; while it is
// active the wait and test calls, and MPI_Request_get_status, act on the
// run's request in its place, and leave the handle in the user's array.
// Limits: only the calls below know the handles; MPI_Cancel on an active
// one goes to the inactive placeholder (cancelling a collective is
// erroneous anyway); MPI_Request_free on an active one first completes the
// run.
#include <mpi.h>

#include <atomic>
#include <map>
#include <mutex>
#include <vector>

#include "plugin/nonblocking.h"

namespace topoa2a {
namespace {

struct Persistent {
  PersistentStart start;
  MPI_Request run = MPI_REQUEST_NULL;
  bool active = false;
};

// The placeholder's tag; it is never started, so it never matches.
constexpr int kPlaceholderTag = 7339;

std::mutex g_mu;
std::map<MPI_Request, Persistent*> g_table;
std::atomic<int> g_count{0};

Persistent* find(MPI_Request r) {
  if (g_count.load() == 0 || r == MPI_REQUEST_NULL) return nullptr;
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_table.find(r);
  return it == g_table.end() ? nullptr : it->second;
}

// The user's array with each active handle of ours replaced by its run.
struct Swap {
  std::vector<MPI_Request> tmp;
  std::vector<Persistent*> who;
};

bool swap_in(int n, const MPI_Request* reqs, Swap* s) {
  if (g_count.load() == 0 || n <= 0 || !reqs) return false;
  std::lock_guard<std::mutex> lock(g_mu);
  bool any = false;
  for (int i = 0; i < n; ++i) {
    auto it = g_table.find(reqs[i]);
    if (it == g_table.end() || !it->second->active) continue;
    if (!any) {
      s->tmp.assign(reqs, reqs + n);
      s->who.assign(static_cast<size_t>(n), nullptr);
      any = true;
    }
    s->tmp[i] = it->second->run;
    s->who[i] = it->second;
  }
  return any;
}

void swap_out(int n, MPI_Request* reqs, const Swap& s) {
  for (int i = 0; i < n; ++i) {
    if (Persistent* p = s.who[i]) {
      p->run = s.tmp[i];
      if (p->run == MPI_REQUEST_NULL) p->active = false;
    } else {
      reqs[i] = s.tmp[i];
    }
  }
}

int start_one(Persistent* p) {
  if (p->active) return MPI_ERR_REQUEST;
  const int err = p->start(&p->run);
  if (err == MPI_SUCCESS) p->active = p->run != MPI_REQUEST_NULL;
  return err;
}

}  // namespace

int persistent_init(PersistentStart start, MPI_Request* handle) {
  // Not from MPI_PROC_NULL: in MPICH 4.0.2, after MPI_Request_free of a
  // never-started persistent receive from MPI_PROC_NULL, the next
  // persistent collective of MPICH's hangs in MPI_Wait (seen with
  // MPI_Alltoallv_init; a receive from rank 0 of MPI_COMM_SELF does not).
  const int err = PMPI_Recv_init(nullptr, 0, MPI_BYTE, 0, kPlaceholderTag, MPI_COMM_SELF, handle);
  if (err != MPI_SUCCESS) return err;
  std::lock_guard<std::mutex> lock(g_mu);
  g_table[*handle] = new Persistent{std::move(start)};
  g_count.store(static_cast<int>(g_table.size()));
  return MPI_SUCCESS;
}

}  // namespace topoa2a

using namespace topoa2a;

#define TOPOA2A_EXPORT __attribute__((visibility("default")))

extern "C" {

TOPOA2A_EXPORT int MPI_Start(MPI_Request* request) {
  Persistent* p = request ? find(*request) : nullptr;
  return p ? start_one(p) : PMPI_Start(request);
}

TOPOA2A_EXPORT int MPI_Startall(int count, MPI_Request requests[]) {
  if (g_count.load() == 0 || !requests) return PMPI_Startall(count, requests);
  for (int i = 0; i < count; ++i) {
    Persistent* p = find(requests[i]);
    const int err = p ? start_one(p) : PMPI_Start(&requests[i]);
    if (err != MPI_SUCCESS) return err;
  }
  return MPI_SUCCESS;
}

TOPOA2A_EXPORT int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  Persistent* p = request ? find(*request) : nullptr;
  if (!p || !p->active) return PMPI_Wait(request, status);
  const int err = PMPI_Wait(&p->run, status);
  if (p->run == MPI_REQUEST_NULL) p->active = false;
  return err;
}

TOPOA2A_EXPORT int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  Persistent* p = request ? find(*request) : nullptr;
  if (!p || !p->active) return PMPI_Test(request, flag, status);
  const int err = PMPI_Test(&p->run, flag, status);
  if (p->run == MPI_REQUEST_NULL) p->active = false;
  return err;
}

TOPOA2A_EXPORT int MPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  if (nb_any_live()) nb_progress_all();
  Persistent* p = find(request);
  if (p && p->active) return PMPI_Request_get_status(p->run, flag, status);
  return PMPI_Request_get_status(request, flag, status);
}

TOPOA2A_EXPORT int MPI_Request_free(MPI_Request* request) {
  Persistent* p = request ? find(*request) : nullptr;
  if (!p) return PMPI_Request_free(request);
  if (p->active) PMPI_Wait(&p->run, MPI_STATUS_IGNORE);
  {
    std::lock_guard<std::mutex> lock(g_mu);
    g_table.erase(*request);
    g_count.store(static_cast<int>(g_table.size()));
  }
  delete p;
  return PMPI_Request_free(request);
}

TOPOA2A_EXPORT int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  Swap s;
  if (!swap_in(count, requests, &s)) return PMPI_Waitall(count, requests, statuses);
  const int err = PMPI_Waitall(count, s.tmp.data(), statuses);
  swap_out(count, requests, s);
  return err;
}

TOPOA2A_EXPORT int MPI_Testall(int count, MPI_Request requests[], int* flag,
                               MPI_Status statuses[]) {
  Swap s;
  if (!swap_in(count, requests, &s)) return PMPI_Testall(count, requests, flag, statuses);
  const int err = PMPI_Testall(count, s.tmp.data(), flag, statuses);
  swap_out(count, requests, s);
  return err;
}

TOPOA2A_EXPORT int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  Swap s;
  if (!swap_in(count, requests, &s)) return PMPI_Waitany(count, requests, index, status);
  const int err = PMPI_Waitany(count, s.tmp.data(), index, status);
  swap_out(count, requests, s);
  return err;
}

TOPOA2A_EXPORT int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag,
                               MPI_Status* status) {
  Swap s;
  if (!swap_in(count, requests, &s)) return PMPI_Testany(count, requests, index, flag, status);
  const int err = PMPI_Testany(count, s.tmp.data(), index, flag, status);
  swap_out(count, requests, s);
  return err;
}

TOPOA2A_EXPORT int MPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                                MPI_Status statuses[]) {
  Swap s;
  if (!swap_in(incount, requests, &s))
    return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
  const int err = PMPI_Waitsome(incount, s.tmp.data(), outcount, indices, statuses);
  swap_out(incount, requests, s);
  return err;
}

TOPOA2A_EXPORT int MPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                                MPI_Status statuses[]) {
  Swap s;
  if (!swap_in(incount, requests, &s))
    return PMPI_Testsome(incount, requests, outcount, indices, statuses);
  const int err = PMPI_Testsome(incount, s.tmp.data(), outcount, indices, statuses);
  swap_out(incount, requests, s);
  return err;
}

}  // extern "C"
