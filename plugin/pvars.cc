// topoa2a's statistics as MPI_T performance variables (preload door).
//
// MPI tools (mpivars, TAU, Score-P, Caliper) find counters through the MPI
// tool interface. The preload library interposes the MPI_T pvar and
// category calls and appends, after MPICH's own variables, three counters
// per operation and algorithm, all in one category "topoa2a":
//
//   topoa2a_alltoall_ring_calls    calls of MPI_Alltoall that ring ran
//   topoa2a_alltoall_ring_rounds   communication rounds they took
//   topoa2a_alltoall_ring_bytes    bytes this process sent in them
//   ...                            every algorithm of the table, and "mpich"
//                                  (the calls MPICH ran: fallbacks and
//                                  topo_auto's MPICH choices); for
//                                  MPI_Alltoallv the algorithms offered there
//
// Each is MPI_T_PVAR_CLASS_COUNTER, MPI_UNSIGNED_LONG_LONG, bound to no
// object (per process), continuous (no start/stop), read-only (write and
// reset return MPI_T_ERR_PVAR_NO_WRITE). MPICH's variables keep their
// indices; ours follow them (index = MPICH's count + i, category = MPICH's
// count of categories). MPICH registers its variables by MPI_Init, so a tool
// should look ours up (MPI_T_pvar_get_index by name) after that.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "plugin/pvar_list.h"

namespace topoa2a {
namespace {

// Our handles: the address of one of these, unique while allocated.
struct Handle {
  MPI_T_pvar_session session;
  int pvar;
};
std::mutex mu;
std::set<Handle*> handles;

Handle* ours(MPI_T_pvar_handle h) {
  auto* p = reinterpret_cast<Handle*>(h);
  return handles.count(p) ? p : nullptr;
}

// MPI_T's string convention: with no buffer (or length 0) report the length
// needed; otherwise copy what fits, NUL-terminated, and report its length.
void put_string(const std::string& s, char* buf, int* len) {
  if (!len) return;
  const int need = static_cast<int>(s.size()) + 1;
  if (!buf || *len <= 0) {
    *len = need;
    return;
  }
  const int n = std::min(*len - 1, static_cast<int>(s.size()));
  std::memcpy(buf, s.data(), static_cast<size_t>(n));
  buf[n] = '\0';
  *len = n + 1;
}

int count() { return static_cast<int>(pvars().size()); }

}  // namespace
}  // namespace topoa2a

using topoa2a::count;
using topoa2a::Handle;
using topoa2a::pvars;

#define TOPOA2A_EXPORT extern "C" __attribute__((visibility("default")))

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
  if (var_class) *var_class = MPI_T_PVAR_CLASS_COUNTER;
  if (datatype) *datatype = MPI_UNSIGNED_LONG_LONG;
  if (enumtype) *enumtype = MPI_T_ENUM_NULL;
  if (bind) *bind = MPI_T_BIND_NO_OBJECT;
  if (readonly) *readonly = 1;
  if (continuous) *continuous = 1;
  if (atomic) *atomic = 0;
  return MPI_SUCCESS;
}

TOPOA2A_EXPORT int MPI_T_pvar_get_index(const char* name, int var_class, int* index) {
  const int err = PMPI_T_pvar_get_index(name, var_class, index);
  if (err != MPI_T_ERR_INVALID_NAME || !name || var_class != MPI_T_PVAR_CLASS_COUNTER) return err;
  int base = 0;
  if (PMPI_T_pvar_get_num(&base) != MPI_SUCCESS) return err;
  for (int i = 0; i < count(); ++i)
    if (pvars()[static_cast<size_t>(i)].name == name) {
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
  std::lock_guard<std::mutex> lock(topoa2a::mu);
  auto* h = new Handle{session, index - base};
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
    const unsigned long long v = topoa2a::pvar_value(pvars()[static_cast<size_t>(h->pvar)]);
    std::memcpy(buf, &v, sizeof v);
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

// The category "topoa2a", after MPICH's categories, holding our variables.
TOPOA2A_EXPORT int MPI_T_category_get_num(int* num) {
  const int err = PMPI_T_category_get_num(num);
  if (err == MPI_SUCCESS) *num += 1;
  return err;
}

TOPOA2A_EXPORT int MPI_T_category_get_info(int index, char* name, int* name_len, char* desc,
                                           int* desc_len, int* num_cvars, int* num_pvars,
                                           int* num_categories) {
  int base = 0;
  const int err = PMPI_T_category_get_num(&base);
  if (err != MPI_SUCCESS) return err;
  if (index != base)
    return PMPI_T_category_get_info(index, name, name_len, desc, desc_len, num_cvars, num_pvars,
                                    num_categories);
  topoa2a::put_string(topoa2a::kPvarCategory, name, name_len);
  topoa2a::put_string(topoa2a::kPvarCategoryDesc, desc, desc_len);
  if (num_cvars) *num_cvars = 0;
  if (num_pvars) *num_pvars = count();
  if (num_categories) *num_categories = 0;
  return MPI_SUCCESS;
}

TOPOA2A_EXPORT int MPI_T_category_get_index(const char* name, int* index) {
  const int err = PMPI_T_category_get_index(name, index);
  if (err != MPI_T_ERR_INVALID_NAME || !name || std::strcmp(name, topoa2a::kPvarCategory) != 0)
    return err;
  return PMPI_T_category_get_num(index);  // ours is the last one
}

TOPOA2A_EXPORT int MPI_T_category_get_pvars(int index, int len, int indices[]) {
  int base = 0, pbase = 0;
  int err = PMPI_T_category_get_num(&base);
  if (err != MPI_SUCCESS) return err;
  if (index != base) return PMPI_T_category_get_pvars(index, len, indices);
  if ((err = PMPI_T_pvar_get_num(&pbase)) != MPI_SUCCESS) return err;
  for (int i = 0; i < len && i < count(); ++i) indices[i] = pbase + i;
  return MPI_SUCCESS;
}

TOPOA2A_EXPORT int MPI_T_category_get_cvars(int index, int len, int indices[]) {
  int base = 0;
  const int err = PMPI_T_category_get_num(&base);
  if (err != MPI_SUCCESS) return err;
  return index == base ? MPI_SUCCESS : PMPI_T_category_get_cvars(index, len, indices);
}

TOPOA2A_EXPORT int MPI_T_category_get_categories(int index, int len, int indices[]) {
  int base = 0;
  const int err = PMPI_T_category_get_num(&base);
  if (err != MPI_SUCCESS) return err;
  return index == base ? MPI_SUCCESS : PMPI_T_category_get_categories(index, len, indices);
}
