#include "coll/pmpi_transport.h"

#include <climits>

namespace topoa2a {

PmpiTransport::PmpiTransport(MPI_Comm comm) : comm_(comm) {
  PMPI_Comm_rank(comm_, &rank_);
  PMPI_Comm_size(comm_, &size_);
}

int PmpiTransport::exchange(const Message* sends, int nsends, const Message* recvs, int nrecvs) {
  return exchange_probed(sends, nsends, recvs, nrecvs, nullptr, nullptr, 0);
}

int PmpiTransport::exchange_probed(const Message* sends, int nsends, const Message* recvs,
                                   int nrecvs, const int* probe_peers, std::vector<char>* probed,
                                   int nprobed) {
  for (int i = 0; i < nrecvs; ++i)
    if (recvs[i].count > INT_MAX) return MPI_ERR_COUNT;
  for (int i = 0; i < nsends; ++i)
    if (sends[i].count > INT_MAX) return MPI_ERR_COUNT;
  requests_.resize(nsends + nrecvs);
  int n = 0, err = MPI_SUCCESS;
  for (int i = 0; i < nrecvs && err == MPI_SUCCESS; ++i)
    err = PMPI_Irecv(recvs[i].buf, static_cast<int>(recvs[i].count), recvs[i].type, recvs[i].peer,
                     kTag, comm_, &requests_[n++]);
  for (int i = 0; i < nsends && err == MPI_SUCCESS; ++i)
    err = PMPI_Isend(sends[i].buf, static_cast<int>(sends[i].count), sends[i].type, sends[i].peer,
                     kTag, comm_, &requests_[n++]);
  // Matched probes: safe when other threads use other communicators.
  for (int i = 0; i < nprobed && err == MPI_SUCCESS; ++i) {
    MPI_Message msg;
    MPI_Status status;
    err = PMPI_Mprobe(probe_peers[i], kTag, comm_, &msg, &status);
    int bytes = 0;
    if (err == MPI_SUCCESS) err = PMPI_Get_count(&status, MPI_BYTE, &bytes);
    if (err == MPI_SUCCESS) {
      probed[i].resize(bytes);
      err = PMPI_Mrecv(probed[i].data(), bytes, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
    }
  }
  const int wait_err = PMPI_Waitall(n, requests_.data(), MPI_STATUSES_IGNORE);
  return err != MPI_SUCCESS ? err : wait_err;
}

int PmpiTransport::pack(const void* in, MPI_Aint count, MPI_Datatype type, void* out,
                        MPI_Aint bytes) {
  if (count > INT_MAX || bytes > INT_MAX) return MPI_ERR_COUNT;
  int pos = 0;
  int err = PMPI_Pack(in, static_cast<int>(count), type, out, static_cast<int>(bytes), &pos, comm_);
  if (err == MPI_SUCCESS && pos != bytes) err = MPI_ERR_TRUNCATE;
  return err;
}

int PmpiTransport::unpack(const void* in, MPI_Aint bytes, void* out, MPI_Aint count,
                          MPI_Datatype type) {
  if (count > INT_MAX || bytes > INT_MAX) return MPI_ERR_COUNT;
  int pos = 0;
  int err =
      PMPI_Unpack(in, static_cast<int>(bytes), &pos, out, static_cast<int>(count), type, comm_);
  if (err == MPI_SUCCESS && pos != bytes) err = MPI_ERR_TRUNCATE;
  return err;
}

bool is_memcpy_type(MPI_Datatype type) {
  int nints, naddrs, ntypes, combiner;
  if (PMPI_Type_get_envelope(type, &nints, &naddrs, &ntypes, &combiner) != MPI_SUCCESS)
    return false;
  if (combiner == MPI_COMBINER_NAMED) {
    MPI_Aint lb, extent, tlb, textent;
    int size;
    PMPI_Type_get_extent(type, &lb, &extent);
    PMPI_Type_get_true_extent(type, &tlb, &textent);
    PMPI_Type_size(type, &size);
    return extent == size && textent == size && lb == 0;
  }
  if (combiner != MPI_COMBINER_CONTIGUOUS && combiner != MPI_COMBINER_DUP) return false;
  std::vector<int> ints(nints);
  std::vector<MPI_Aint> addrs(naddrs);
  std::vector<MPI_Datatype> types(ntypes);
  PMPI_Type_get_contents(type, nints, naddrs, ntypes, ints.data(), addrs.data(), types.data());
  const bool inner = is_memcpy_type(types[0]);
  int inner_comb;
  PMPI_Type_get_envelope(types[0], &nints, &naddrs, &ntypes, &inner_comb);
  if (inner_comb != MPI_COMBINER_NAMED) PMPI_Type_free(&types[0]);
  return inner;
}

int PmpiTransport::type_info(MPI_Datatype type, TypeInfo* info) {
  int size = 0;
  MPI_Aint lb;
  int err = PMPI_Type_size(type, &size);
  if (err != MPI_SUCCESS) return err;
  info->size = size;
  PMPI_Type_get_extent(type, &lb, &info->extent);
  PMPI_Type_get_true_extent(type, &info->true_lb, &info->true_extent);
  info->memcpy_ok = is_memcpy_type(type);
  return MPI_SUCCESS;
}

}  // namespace topoa2a
