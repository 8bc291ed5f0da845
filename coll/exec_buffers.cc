#include "coll/exec_buffers.h"

#include <algorithm>
#include <cstring>

namespace topoa2a::detail {

int pack(Transport& tr, const Elements& e, char* out) {
  const MPI_Aint bytes = e.bytes();
  if (bytes == 0) return MPI_SUCCESS;
  if (e.info->memcpy_ok) {
    std::memcpy(out, at(e.addr, e.info->true_lb), static_cast<size_t>(bytes));
    return MPI_SUCCESS;
  }
  return tr.pack(e.addr, e.count, e.type, out, bytes);
}

int unpack(Transport& tr, const char* in, const Elements& e) {
  const MPI_Aint bytes = e.bytes();
  if (bytes == 0) return MPI_SUCCESS;
  if (e.info->memcpy_ok) {
    std::memcpy(at(e.addr, e.info->true_lb), in, static_cast<size_t>(bytes));
    return MPI_SUCCESS;
  }
  return tr.unpack(in, bytes, e.addr, e.count, e.type);
}

int copy(Transport& tr, const Elements& from, const Elements& to) {
  if (from.bytes() != to.bytes()) return MPI_ERR_TRUNCATE;
  if (to.info->memcpy_ok) return pack(tr, from, at(to.addr, to.info->true_lb));
  if (from.info->memcpy_ok) return unpack(tr, at(from.addr, from.info->true_lb), to);
  std::unique_ptr<char[]> tmp(new char[static_cast<size_t>(from.bytes())]);
  const int err = pack(tr, from, tmp.get());
  return err != MPI_SUCCESS ? err : unpack(tr, tmp.get(), to);
}

void footprint(const TypeInfo& t, MPI_Aint start, MPI_Aint n, MPI_Aint* lo, MPI_Aint* hi) {
  const MPI_Aint last = (n - 1) * t.extent;
  *lo = start + t.true_lb + std::min<MPI_Aint>(0, last);
  *hi = start + t.true_lb + t.true_extent + std::max<MPI_Aint>(0, last);
}

bool blocks_footprint(const TypeInfo& t, int p, MPI_Aint count, const int* counts,
                      const int* displs, MPI_Aint* lo, MPI_Aint* hi) {
  bool any = false;
  for (int i = 0; i < p; ++i) {
    const MPI_Aint n = counts ? counts[i] : count;
    if (n == 0) continue;
    const MPI_Aint first = (counts ? static_cast<MPI_Aint>(displs[i]) : i * count) * t.extent;
    MPI_Aint a, b;
    footprint(t, first, n, &a, &b);
    *lo = any ? std::min(*lo, a) : a;
    *hi = any ? std::max(*hi, b) : b;
    any = true;
  }
  return any;
}

InPlaceCopy::InPlaceCopy(const void* buffer, MPI_Aint lo, MPI_Aint hi)
    : bytes_(new char[static_cast<size_t>(std::max<MPI_Aint>(1, hi - lo))]), lo_(lo) {
  if (hi > lo) std::memcpy(bytes_.get(), at(buffer, lo), static_cast<size_t>(hi - lo));
}

}  // namespace topoa2a::detail
