// MPI-4's large-count calls for an MPI-3 library (SimGrid SMPI, which the
// simulation builds the executor against): the same names with int counts
// underneath; a count or size beyond int is MPI_ERR_COUNT there. Also
// matched probes, which SMPI lacks (large_count::probe / receive). With an MPI-4 library (MPICH 4)
// this header adds nothing.
#pragma once

#include <mpi.h>

#include <climits>

namespace topoa2a::large_count {
inline bool fits(MPI_Count n) { return n >= INT_MIN && n <= INT_MAX; }
}  // namespace topoa2a::large_count

#if !defined(MPI_VERSION) || MPI_VERSION < 4

#ifndef MPICH_ERR_LAST_MPIX
#define MPICH_ERR_LAST_MPIX MPI_ERR_LASTCODE
#endif

inline int PMPI_Isend_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag,
                        MPI_Comm comm, MPI_Request* req) {
  if (!topoa2a::large_count::fits(count)) return MPI_ERR_COUNT;
  return PMPI_Isend(const_cast<void*>(buf), static_cast<int>(count), type, dest, tag, comm, req);
}

inline int PMPI_Irecv_c(void* buf, MPI_Count count, MPI_Datatype type, int source, int tag,
                        MPI_Comm comm, MPI_Request* req) {
  if (!topoa2a::large_count::fits(count)) return MPI_ERR_COUNT;
  return PMPI_Irecv(buf, static_cast<int>(count), type, source, tag, comm, req);
}

inline int PMPI_Get_count_c(const MPI_Status* status, MPI_Datatype type, MPI_Count* count) {
  int n = 0;
  const int err = PMPI_Get_count(const_cast<MPI_Status*>(status), type, &n);
  *count = n;
  return err;
}

inline int PMPI_Type_size_c(MPI_Datatype type, MPI_Count* size) {
  return PMPI_Type_size_x(type, size);
}

inline int PMPI_Type_get_extent_c(MPI_Datatype type, MPI_Count* lb, MPI_Count* extent) {
  return PMPI_Type_get_extent_x(type, lb, extent);
}

inline int PMPI_Type_get_true_extent_c(MPI_Datatype type, MPI_Count* lb, MPI_Count* extent) {
  return PMPI_Type_get_true_extent_x(type, lb, extent);
}

inline int PMPI_Type_create_hindexed_c(int n, const MPI_Count* blocklens, const MPI_Count* displs,
                                       MPI_Datatype old, MPI_Datatype* out) {
  if (n != 1 || !topoa2a::large_count::fits(blocklens[0])) return MPI_ERR_COUNT;
  int len = static_cast<int>(blocklens[0]);
  MPI_Aint disp = static_cast<MPI_Aint>(displs[0]);
  return PMPI_Type_create_hindexed(1, &len, &disp, old, out);
}

inline int PMPI_Pack_c(const void* in, MPI_Count incount, MPI_Datatype type, void* out,
                       MPI_Count outsize, MPI_Count* pos, MPI_Comm comm) {
  if (!topoa2a::large_count::fits(incount) || !topoa2a::large_count::fits(outsize) ||
      !topoa2a::large_count::fits(*pos))
    return MPI_ERR_COUNT;
  int p = static_cast<int>(*pos);
  const int err = PMPI_Pack(const_cast<void*>(in), static_cast<int>(incount), type, out,
                            static_cast<int>(outsize), &p, comm);
  *pos = p;
  return err;
}

inline int PMPI_Unpack_c(const void* in, MPI_Count insize, MPI_Count* pos, void* out,
                         MPI_Count outcount, MPI_Datatype type, MPI_Comm comm) {
  if (!topoa2a::large_count::fits(insize) || !topoa2a::large_count::fits(outcount) ||
      !topoa2a::large_count::fits(*pos))
    return MPI_ERR_COUNT;
  int p = static_cast<int>(*pos);
  const int err = PMPI_Unpack(const_cast<void*>(in), static_cast<int>(insize), &p, out,
                              static_cast<int>(outcount), type, comm);
  *pos = p;
  return err;
}

inline int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype type, MPI_Comm comm, MPI_Count* size) {
  if (!topoa2a::large_count::fits(incount)) return MPI_ERR_COUNT;
  int s = 0;
  const int err = PMPI_Pack_size(static_cast<int>(incount), type, comm, &s);
  *size = s;
  return err;
}

#endif  // MPI_VERSION < 4

namespace topoa2a::large_count {

// A probe for the next message from `source` (any tag) and the receive of
// exactly that message. MPI-4: a matched probe (MPI_Improbe / MPI_Imrecv).
// MPI-3 (SMPI has no matched probes): MPI_Iprobe, then MPI_Irecv of that
// source and tag, which takes the same message since nothing else receives
// on the transport's private communicator.
struct Probed {
  MPI_Message msg = MPI_MESSAGE_NULL;
  MPI_Status status;
};

inline int probe(int source, int tag, MPI_Comm comm, int* flag, Probed* p) {
#if defined(MPI_VERSION) && MPI_VERSION >= 4
  return PMPI_Improbe(source, tag, comm, flag, &p->msg, &p->status);
#else
  return PMPI_Iprobe(source, tag, comm, flag, &p->status);
#endif
}

inline int receive(void* buf, MPI_Count count, MPI_Datatype type, Probed* p, MPI_Comm comm,
                   MPI_Request* req) {
#if defined(MPI_VERSION) && MPI_VERSION >= 4
  (void)comm;
  return PMPI_Imrecv_c(buf, count, type, &p->msg, req);
#else
  if (!fits(count)) return MPI_ERR_COUNT;
  return PMPI_Irecv(buf, static_cast<int>(count), type, p->status.MPI_SOURCE, p->status.MPI_TAG,
                    comm, req);
#endif
}

}  // namespace topoa2a::large_count
