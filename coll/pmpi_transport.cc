#include "coll/pmpi_transport.h"

#include <cstdint>

namespace topoa2a {
namespace {

int error_class(int code) {
  int cls = MPI_ERR_OTHER;
  PMPI_Error_class(code, &cls);
  return cls;
}

// MPI_Pack / MPI_Unpack refuse a NULL buffer with count > 0, yet MPI_BOTTOM
// is NULL and a datatype of absolute addresses is meant to be used with it.
// The same bytes are reached from a non-NULL anchor through a one-block
// hindexed type displaced by -(address of the anchor).
class FromBottom {
 public:
  FromBottom(MPI_Aint count, MPI_Datatype type) {
    MPI_Aint anchor = 0;
    err_ = PMPI_Get_address(&anchor_, &anchor);
    MPI_Count blocklen = count;
    MPI_Count disp = -anchor;
    if (err_ == MPI_SUCCESS) err_ = PMPI_Type_create_hindexed_c(1, &blocklen, &disp, type, &type_);
    if (err_ == MPI_SUCCESS) err_ = PMPI_Type_commit(&type_);
  }
  ~FromBottom() {
    if (type_ != MPI_DATATYPE_NULL) PMPI_Type_free(&type_);
  }
  FromBottom(const FromBottom&) = delete;
  FromBottom& operator=(const FromBottom&) = delete;
  int error() const { return err_; }
  void* buf() { return &anchor_; }
  MPI_Datatype type() const { return type_; }

 private:
  char anchor_ = 0;
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  int err_ = MPI_SUCCESS;
};

}  // namespace

PmpiTransport::PmpiTransport(MPI_Comm comm) : comm_(comm) {
  PMPI_Comm_rank(comm_, &rank_);
  PMPI_Comm_size(comm_, &size_);
}

int PmpiTransport::exchange(const Message* sends, int nsends, const Message* recvs, int nrecvs,
                            bool discard) {
  return exchange_probed(sends, nsends, recvs, nrecvs, nullptr, nullptr, 0, discard);
}

int PmpiTransport::exchange_probed(const Message* sends, int nsends, const Message* recvs,
                                   int nrecvs, const int* probe_peers, std::vector<char>* probed,
                                   int nprobed, bool discard) {
  int first = MPI_SUCCESS;  // the first real error
  bool lost = false;        // some payload arrived discarded
  auto note = [&first](int err) {
    if (err != MPI_SUCCESS && first == MPI_SUCCESS) first = err;
  };
  requests_.assign(static_cast<size_t>(nsends + nrecvs), MPI_REQUEST_NULL);
  statuses_.resize(requests_.size());
  // Receives take any of the two tags: whatever the peer sends next.
  for (int i = 0; i < nrecvs; ++i) {
    const Message& m = recvs[i];
    int err = MPI_ERR_OTHER;
    if (!discard) {
      err = PMPI_Irecv_c(m.buf, m.count, m.type, m.peer, MPI_ANY_TAG, comm_, &requests_[i]);
      note(err);
    }
    if (err != MPI_SUCCESS)  // take the peer's message into nothing
      PMPI_Irecv_c(nullptr, 0, MPI_BYTE, m.peer, MPI_ANY_TAG, comm_, &requests_[i]);
  }
  for (int i = 0; i < nsends; ++i) {
    const Message& m = sends[i];
    MPI_Request* req = &requests_[nrecvs + i];
    int err = MPI_ERR_OTHER;
    if (!discard) {
      err = PMPI_Isend_c(m.buf, m.count, m.type, m.peer, kTag, comm_, req);
      note(err);
    }
    if (err != MPI_SUCCESS) PMPI_Isend_c(nullptr, 0, MPI_BYTE, m.peer, kLostTag, comm_, req);
  }
  // Matched probes: safe when other threads use other communicators.
  for (int i = 0; i < nprobed; ++i) {
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Status status;
    int err = PMPI_Mprobe(probe_peers[i], MPI_ANY_TAG, comm_, &msg, &status);
    note(err);
    if (err != MPI_SUCCESS) continue;  // nothing to receive: the communicator is broken
    MPI_Count bytes = 0;
    PMPI_Get_count_c(&status, MPI_BYTE, &bytes);
    probed[i].clear();
    if (discard || status.MPI_TAG == kLostTag || bytes < 0) {
      lost = lost || status.MPI_TAG == kLostTag;
      PMPI_Mrecv_c(nullptr, 0, MPI_BYTE, &msg, MPI_STATUS_IGNORE);  // may truncate: dropped
      continue;
    }
    probed[i].resize(static_cast<size_t>(bytes));
    note(PMPI_Mrecv_c(probed[i].data(), bytes, MPI_BYTE, &msg, MPI_STATUS_IGNORE));
  }
  const int n = nsends + nrecvs;
  const int wait_err = PMPI_Waitall(n, requests_.data(), statuses_.data());
  if (discard) return MPI_SUCCESS;
  if (wait_err == MPI_ERR_IN_STATUS) {
    for (int i = 0; i < n; ++i)
      if (statuses_[i].MPI_ERROR != MPI_ERR_PENDING) note(statuses_[i].MPI_ERROR);
  } else {
    note(wait_err);
  }
  // A receive that completed without an error may still be short, or a
  // discarded payload.
  for (int i = 0; i < nrecvs && first == MPI_SUCCESS; ++i) {
    const MPI_Status& st = statuses_[i];
    if (wait_err == MPI_ERR_IN_STATUS && st.MPI_ERROR != MPI_SUCCESS) continue;
    if (st.MPI_TAG == kLostTag) {
      lost = true;
      continue;
    }
    MPI_Count got = 0, size = 0;
    PMPI_Get_count_c(&st, MPI_BYTE, &got);
    PMPI_Type_size_c(recvs[i].type, &size);
    if (got != recvs[i].count * size) note(MPI_ERR_TRUNCATE);
  }
  if (first == MPI_SUCCESS && lost) return MPI_ERR_OTHER;
  return first;
}

int PmpiTransport::pack(const void* in, MPI_Aint count, MPI_Datatype type, void* out,
                        MPI_Aint bytes) {
  MPI_Count pos = 0;
  int err;
  if (in == MPI_BOTTOM && count > 0) {
    FromBottom b(count, type);
    err = b.error();
    if (err == MPI_SUCCESS) err = PMPI_Pack_c(b.buf(), 1, b.type(), out, bytes, &pos, comm_);
  } else {
    err = PMPI_Pack_c(in, count, type, out, bytes, &pos, comm_);
  }
  if (err == MPI_SUCCESS && pos != bytes) err = MPI_ERR_TRUNCATE;
  return err;
}

int PmpiTransport::unpack(const void* in, MPI_Aint bytes, void* out, MPI_Aint count,
                          MPI_Datatype type) {
  MPI_Count pos = 0;
  int err;
  if (out == MPI_BOTTOM && count > 0) {
    FromBottom b(count, type);
    err = b.error();
    if (err == MPI_SUCCESS) err = PMPI_Unpack_c(in, bytes, &pos, b.buf(), 1, b.type(), comm_);
  } else {
    err = PMPI_Unpack_c(in, bytes, &pos, out, count, type, comm_);
  }
  if (err == MPI_SUCCESS && pos != bytes) err = MPI_ERR_TRUNCATE;
  return err;
}

bool is_memcpy_type(MPI_Datatype type) {
  int nints, naddrs, ntypes, combiner;
  if (PMPI_Type_get_envelope(type, &nints, &naddrs, &ntypes, &combiner) != MPI_SUCCESS)
    return false;
  if (combiner == MPI_COMBINER_NAMED) {
    MPI_Count lb, extent, tlb, textent, size;
    PMPI_Type_get_extent_c(type, &lb, &extent);
    PMPI_Type_get_true_extent_c(type, &tlb, &textent);
    PMPI_Type_size_c(type, &size);
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
  // MPI_Pack_size checks, as MPICH's collectives do, that the type is committed.
  MPI_Count size = 0, lb = 0, extent = 0, tlb = 0, textent = 0;
  int err = PMPI_Pack_size_c(0, type, comm_, &size);
  if (err == MPI_SUCCESS) err = PMPI_Type_size_c(type, &size);
  if (err == MPI_SUCCESS) err = PMPI_Type_get_extent_c(type, &lb, &extent);
  if (err == MPI_SUCCESS) err = PMPI_Type_get_true_extent_c(type, &tlb, &textent);
  if (err != MPI_SUCCESS) return err;
  info->size = size;
  info->extent = extent;
  info->true_lb = tlb;
  info->true_extent = textent;
  info->memcpy_ok = is_memcpy_type(type);
  return MPI_SUCCESS;
}

int mpich_buffer_check(const void* buf, MPI_Aint count, MPI_Datatype type, MPI_Comm quiet) {
  MPI_Count size = 0;
  const int err = PMPI_Pack_size_c(0, type, quiet, &size);
  if (err != MPI_SUCCESS) return error_class(err);
  if (count > 0 && buf == nullptr) {
    int nints, naddrs, ntypes, combiner;
    PMPI_Type_get_envelope(type, &nints, &naddrs, &ntypes, &combiner);
    MPI_Count tlb = 0, textent = 0;
    PMPI_Type_get_true_extent_c(type, &tlb, &textent);
    PMPI_Type_size_c(type, &size);
    if (combiner == MPI_COMBINER_NAMED || (tlb == 0 && size > 0)) return MPI_ERR_BUFFER;
  }
  return MPI_SUCCESS;
}

}  // namespace topoa2a
