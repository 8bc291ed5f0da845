// topoa2a's statistics as MPI_T performance variables (preload door): the
// MPI_T_pvar_* calls (the category and enum calls: pvar_categories.cc).
//
// MPI tools (mpivars, TAU, Score-P, Caliper) find counters through the MPI
// tool interface. The preload library interposes the MPI_T pvar, category
// and enum calls and appends, after MPICH's own variables, the variables of
// plugin/pvar_list.h, all in one category "topoa2a":
//
//   topoa2a_alltoall_ring_calls       calls of MPI_Alltoall that ring ran
//   topoa2a_alltoall_ring_rounds      communication rounds they took
//   topoa2a_alltoall_ring_bytes       bytes this process sent in them
//   ...                               every algorithm of the table, and "mpich"
//                                     (the calls MPICH ran: fallbacks and
//                                     topo_auto's MPICH choices); for
//                                     MPI_Alltoallv the algorithms offered there
//   topoa2a_comm_alltoall_ring_calls  the same, bound to a communicator
//   ...
//   topoa2a_comm_alltoall_topo_auto_choice  topo_auto's last choice there
//
// Counters are MPI_T_PVAR_CLASS_COUNTER, MPI_UNSIGNED_LONG_LONG; the choices
// MPI_T_PVAR_CLASS_STATE, MPI_INT, values named by the enum
// "topoa2a_algorithm" (MPI_T_enum_get_info / MPI_T_enum_get_item). All are
// continuous (no start/stop) and read-only (write and reset return
// MPI_T_ERR_PVAR_NO_WRITE). A handle reads the current value (counters since
// MPI_Init). A handle bound to a communicator (obj_handle: the address of
// an MPI_Comm) keeps reading that communicator's final values after it is
// freed; bound to an intercommunicator it reads 0 ("none"). MPICH's
// variables keep their indices; ours follow them (index = MPICH's count +
// i, category = MPICH's count of categories). MPICH registers its variables
// by MPI_Init, so a tool should look ours up (MPI_T_pvar_get_index by name)
// after that.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "plugin/comm_state.h"
#include "plugin/pvar_list.h"
#include "plugin/pvars_impl.h"

namespace topoa2a {
namespace {

// Our handles: the address of one of these, unique while allocated.
struct Handle {
  MPI_T_pvar_session session;
  int pvar;
  std::shared_ptr<const CommStats> comm;  // bound variables: the communicator's
};
std::mutex mu;
std::set<Handle*> handles;

Handle* ours(MPI_T_pvar_handle h) {
  auto* p = reinterpret_cast<Handle*>(h);
  return handles.count(p) ? p : nullptr;
}

// The statistics of the communicator at `obj` (an MPI_Comm*), for a handle
// bound to it: made with the communicator's state if it has none yet (local,
// no communication); none (reads 0) for an intercommunicator.
int bound_stats(void* obj, std::shared_ptr<const CommStats>* out) {
  if (!obj) return MPI_T_ERR_INVALID_HANDLE;
  const MPI_Comm comm = *static_cast<MPI_Comm*>(obj);
  int initialized = 0, finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  if (comm == MPI_COMM_NULL || !initialized || finalized) return MPI_T_ERR_INVALID_HANDLE;
  int inter = 0;
  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return MPI_T_ERR_INVALID_HANDLE;
  if (inter) return MPI_SUCCESS;
  int err = MPI_SUCCESS;
  CommState* state = CommState::get(comm, &err);
  if (!state) return MPI_T_ERR_INVALID_HANDLE;
  *out = state->stats();
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace topoa2a

using topoa2a::count;
using topoa2a::Handle;
using topoa2a::pvars;

TOPOA2A_EXPORT int MPI_T_pvar_get_num(int* num) {
  const int err = PMPI_T_pvar_get_num(num);
  if (err == MPI_SUCCESS) *num += count();
  return err;
}

TOPOA2A_EXPORT int MPI_T_pvar_get_info(int index, char* name, int* name_len, int* verbosity,
                                       int* var_class, MPI_Datatype* datatype, MPI_T_enum* enumtype,
                                       char* desc, int* desc_len, int* bind, int* readonly,
                                       int* continuous, int* atomic) {
  int base = 0;
  int err = PMPI_T_pvar_get_num(&base);
  if (err != MPI_SUCCESS) return err;
  if (index < base)
    return PMPI_T_pvar_get_info(index, name, name_len, verbosity, var_class, datatype, enumtype,
                                desc, desc_len, bind, readonly, continuous, atomic);
  if (index - base >= count()) return MPI_T_ERR_INVALID_INDEX;
  const topoa2a::Pvar& v = pvars()[static_cast<size_t>(index - base)];
  topoa2a::put_string(v.name, name, name_len);
  topoa2a::put_string(v.desc, desc, desc_len);
  if (verbosity) *verbosity = MPI_T_VERBOSITY_USER_BASIC;
  if (var_class) *var_class = v.choice ? MPI_T_PVAR_CLASS_STATE : MPI_T_PVAR_CLASS_COUNTER;
  if (datatype) *datatype = v.choice ? MPI_INT : MPI_UNSIGNED_LONG_LONG;
  if (enumtype) *enumtype = v.choice ? topoa2a::our_enum() : MPI_T_ENUM_NULL;
  if (bind) *bind = v.comm ? MPI_T_BIND_MPI_COMM : MPI_T_BIND_NO_OBJECT;
  if (readonly) *readonly = 1;
  if (continuous) *continuous = 1;
  if (atomic) *atomic = 0;
  return MPI_SUCCESS;
}

TOPOA2A_EXPORT int MPI_T_pvar_get_index(const char* name, int var_class, int* index) {
  const int err = PMPI_T_pvar_get_index(name, var_class, index);
  if (err != MPI_T_ERR_INVALID_NAME || !name) return err;
  int base = 0;
  if (PMPI_T_pvar_get_num(&base) != MPI_SUCCESS) return err;
  const int want = var_class == MPI_T_PVAR_CLASS_STATE ? 1 : 0;
  for (int i = 0; i < count(); ++i)
    if (pvars()[static_cast<size_t>(i)].name == name &&
        (var_class == MPI_T_PVAR_CLASS_COUNTER || var_class == MPI_T_PVAR_CLASS_STATE) &&
        int(pvars()[static_cast<size_t>(i)].choice) == want) {
      *index = base + i;
      return MPI_SUCCESS;
    }
  return err;
}

TOPOA2A_EXPORT int MPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int index, void* obj,
                                           MPI_T_pvar_handle* handle, int* n) {
  int base = 0;
  int err = PMPI_T_pvar_get_num(&base);
  if (err != MPI_SUCCESS) return err;
  if (index < base) return PMPI_T_pvar_handle_alloc(session, index, obj, handle, n);
  if (index - base >= count()) return MPI_T_ERR_INVALID_INDEX;
  if (session == MPI_T_PVAR_SESSION_NULL) return MPI_T_ERR_INVALID_SESSION;
  std::shared_ptr<const topoa2a::CommStats> comm;
  if (pvars()[static_cast<size_t>(index - base)].comm &&
      (err = topoa2a::bound_stats(obj, &comm)) != MPI_SUCCESS)
    return err;
  std::lock_guard<std::mutex> lock(topoa2a::mu);
  auto* h = new Handle{session, index - base, std::move(comm)};
  topoa2a::handles.insert(h);
  *handle = reinterpret_cast<MPI_T_pvar_handle>(h);
  if (n) *n = 1;
  return MPI_SUCCESS;
}

TOPOA2A_EXPORT int MPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle* handle) {
  {
    std::lock_guard<std::mutex> lock(topoa2a::mu);
    if (Handle* h = handle ? topoa2a::ours(*handle) : nullptr) {
      if (h->session != session) return MPI_T_ERR_INVALID_HANDLE;
      topoa2a::handles.erase(h);
      delete h;
      *handle = MPI_T_PVAR_HANDLE_NULL;
      return MPI_SUCCESS;
    }
  }
  return PMPI_T_pvar_handle_free(session, handle);
}

TOPOA2A_EXPORT int MPI_T_pvar_session_free(MPI_T_pvar_session* session) {
  if (session) {  // our handles of the session go with it
    std::lock_guard<std::mutex> lock(topoa2a::mu);
    for (auto it = topoa2a::handles.begin(); it != topoa2a::handles.end();) {
      if ((*it)->session == *session) {
        delete *it;
        it = topoa2a::handles.erase(it);
      } else {
        ++it;
      }
    }
  }
  return PMPI_T_pvar_session_free(session);
}

namespace {
// The result of an operation on `handle` if it is ours (checked against the
// session), else -1: the caller passes it on to MPICH. MPI_T_PVAR_ALL_HANDLES
// is MPICH's: ours are continuous and read-only, so "all" leaves them alone.
int on_ours(MPI_T_pvar_session session, MPI_T_pvar_handle handle, int result,
            const Handle** found = nullptr) {
  std::lock_guard<std::mutex> lock(topoa2a::mu);
  const Handle* h = topoa2a::ours(handle);
  if (!h) return -1;
  if (h->session != session) return MPI_T_ERR_INVALID_HANDLE;
  if (found) *found = h;
  return result;
}
}  // namespace

TOPOA2A_EXPORT int MPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  const int r = on_ours(session, handle, MPI_T_ERR_PVAR_NO_STARTSTOP);
  return r >= 0 ? r : PMPI_T_pvar_start(session, handle);
}

TOPOA2A_EXPORT int MPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  const int r = on_ours(session, handle, MPI_T_ERR_PVAR_NO_STARTSTOP);
  return r >= 0 ? r : PMPI_T_pvar_stop(session, handle);
}

TOPOA2A_EXPORT int MPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                                   void* buf) {
  const Handle* h = nullptr;
  const int r = on_ours(session, handle, MPI_SUCCESS, &h);
  if (r < 0) return PMPI_T_pvar_read(session, handle, buf);
  if (r == MPI_SUCCESS) {
    const topoa2a::Pvar& var = pvars()[static_cast<size_t>(h->pvar)];
    const unsigned long long v = topoa2a::pvar_value(var, h->comm.get());
    if (var.choice) {
      const int state = static_cast<int>(v);
      std::memcpy(buf, &state, sizeof state);
    } else {
      std::memcpy(buf, &v, sizeof v);
    }
  }
  return r;
}

TOPOA2A_EXPORT int MPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                                    const void* buf) {
  const int r = on_ours(session, handle, MPI_T_ERR_PVAR_NO_WRITE);
  return r >= 0 ? r : PMPI_T_pvar_write(session, handle, buf);
}

TOPOA2A_EXPORT int MPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  const int r = on_ours(session, handle, MPI_T_ERR_PVAR_NO_WRITE);
  return r >= 0 ? r : PMPI_T_pvar_reset(session, handle);
}

TOPOA2A_EXPORT int MPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                                        void* buf) {
  const int r = on_ours(session, handle, MPI_T_ERR_PVAR_NO_WRITE);
  return r >= 0 ? r : PMPI_T_pvar_readreset(session, handle, buf);
}
