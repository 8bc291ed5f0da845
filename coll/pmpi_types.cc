// PmpiTransport's datatype services (pack, unpack, type_info) and MPICH's
// buffer checks: no communication.
#include <vector>

#include "coll/mpi_large_count.h"
#include "coll/pmpi_transport.h"

namespace topoa2a {
namespace {

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

int mpich_buffer_check(const void* buf, MPI_Aint count, MPI_Datatype type) {
  // A communicator of this process alone: made without any other process,
  // and by MPI_Comm_create_group, which copies no attribute (no user
  // callback fires).
  static const MPI_Comm quiet = [] {
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Group self;
    if (PMPI_Comm_group(MPI_COMM_SELF, &self) != MPI_SUCCESS) return c;
    if (PMPI_Comm_create_group(MPI_COMM_SELF, self, 0, &c) == MPI_SUCCESS)
      PMPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    PMPI_Group_free(&self);
    return c;
  }();
  if (quiet == MPI_COMM_NULL) return MPI_SUCCESS;  // cannot check: let the call run
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
