// Buffer and datatype handling shared by the two executors (exec.cc,
// exec_v.cc): addresses that may start at MPI_BOTTOM, 64-bit sizes,
// packing with a memcpy fast path, the in-place copy, and the record of
// the first error after which a rank only completes its schedule's
// traffic (see transport.h). Internal to coll/.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>

#include "coll/transport.h"

namespace topoa2a::detail {

// base + offset, computed on integers: base may be MPI_BOTTOM (NULL) with a
// datatype of absolute addresses, where pointer arithmetic is undefined.
inline char* at(const void* base, MPI_Aint offset) {
  return reinterpret_cast<char*>(reinterpret_cast<std::uintptr_t>(base) +
                                 static_cast<std::uintptr_t>(offset));
}

// The first error of a call. Once set, the rank runs the rest of its
// schedule in discard mode and returns this code.
class Failure {
 public:
  void record(int err) {
    if (err != MPI_SUCCESS && code_ == MPI_SUCCESS) code_ = err;
  }
  bool failed() const { return code_ != MPI_SUCCESS; }
  int code() const { return code_; }

 private:
  int code_ = MPI_SUCCESS;
};

// `count` elements of one datatype at `addr`.
struct Elements {
  char* addr;
  MPI_Aint count;
  MPI_Datatype type;
  const TypeInfo* info;
  MPI_Aint bytes() const { return count * info->size; }
};

// Pack the elements into `bytes` contiguous bytes, or unpack them from it.
int pack(Transport& tr, const Elements& e, char* out);
int unpack(Transport& tr, const char* in, const Elements& e);
// Copy send elements to receive elements of the same size in bytes (the
// block a rank sends itself), without a temporary where either is plain.
int copy(Transport& tr, const Elements& from, const Elements& to);

// Bytes [lo, hi) relative to the buffer start that n elements from offset
// `start` touch; n > 0.
void footprint(const TypeInfo& t, MPI_Aint start, MPI_Aint n, MPI_Aint* lo, MPI_Aint* hi);

// Bytes [lo, hi) that the blocks i = 0 .. p-1 of a buffer cover: counts[i]
// elements from displs[i] * extent, or with counts null `count` elements
// from i * count * extent; false when they cover none.
bool blocks_footprint(const TypeInfo& t, int p, MPI_Aint count, const int* counts,
                      const int* displs, MPI_Aint* lo, MPI_Aint* hi);

// A private copy of bytes [lo, hi) of a buffer, addressed like the buffer:
// base() + offset is the copy of buffer + offset (MPI_IN_PLACE works from
// it while the receive buffer is overwritten).
class InPlaceCopy {
 public:
  InPlaceCopy(const void* buffer, MPI_Aint lo, MPI_Aint hi);
  const char* base() const { return at(bytes_.get(), -lo_); }

 private:
  std::unique_ptr<char[]> bytes_;
  MPI_Aint lo_;
};

}  // namespace topoa2a::detail
