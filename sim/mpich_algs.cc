#include "sim/mpich_algs.h"

#include <cstring>
#include <vector>

namespace sim {

namespace {
constexpr int kTag = 7;

size_t at(long block, long bytes) {
  return static_cast<size_t>(block) * static_cast<size_t>(bytes);
}
}  // namespace

int mpich_brucks(const char* sb, char* rb, long bytes, MPI_Comm comm) {
  int p, me;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &me);
  const size_t b = static_cast<size_t>(bytes);
  // Phase 1: rotate the blocks up by `me`: recv block i = send block (me + i) % p.
  std::memcpy(rb, sb + at(me, bytes), at(p - me, bytes));
  std::memcpy(rb + at(p - me, bytes), sb, at(me, bytes));
  std::vector<char> packed(at(p, bytes));
  std::vector<char> incoming(at(p, bytes));
  // Phase 2: ceil(log2 p) exchanges of the blocks whose index has bit pof2.
  for (int pof2 = 1; pof2 < p; pof2 *= 2) {
    const int dst = (me + pof2) % p;
    const int src = (me - pof2 + p) % p;
    long count = 0;
    for (int block = 1; block < p; ++block)
      if (block & pof2) std::memcpy(packed.data() + at(count++, bytes), rb + at(block, bytes), b);
    const int err = MPI_Sendrecv(packed.data(), static_cast<int>(count * bytes), MPI_BYTE, dst,
                                 kTag, incoming.data(), static_cast<int>(count * bytes), MPI_BYTE,
                                 src, kTag, comm, MPI_STATUS_IGNORE);
    if (err != MPI_SUCCESS) return err;
    count = 0;
    for (int block = 1; block < p; ++block)
      if (block & pof2) std::memcpy(rb + at(block, bytes), incoming.data() + at(count++, bytes), b);
  }
  // Phase 3: rotate up by me + 1, then reverse the block order.
  std::vector<char>& tmp = packed;
  std::memcpy(tmp.data(), rb + at(me + 1, bytes), at(p - me - 1, bytes));
  std::memcpy(tmp.data() + at(p - me - 1, bytes), rb, at(me + 1, bytes));
  for (int i = 0; i < p; ++i) std::memcpy(rb + at(p - i - 1, bytes), tmp.data() + at(i, bytes), b);
  return MPI_SUCCESS;
}

int mpich_scattered(const char* sb, char* rb, long bytes, MPI_Comm comm, int throttle) {
  int p, me;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &me);
  if (throttle <= 0) throttle = p;
  // MPICH also sends the block to self through MPIC_Isend; here it is a
  // local copy (the simulated platforms route no rank to itself).
  std::memcpy(rb + at(me, bytes), sb + at(me, bytes), static_cast<size_t>(bytes));
  std::vector<MPI_Request> reqs;
  for (int ii = 0; ii < p; ii += throttle) {
    const int ss = std::min(throttle, p - ii);
    reqs.clear();
    for (int i = 0; i < ss; ++i) {
      const int src = (me + ii + i) % p;
      if (src == me) continue;
      reqs.emplace_back();
      MPI_Irecv(rb + at(src, bytes), static_cast<int>(bytes), MPI_BYTE, src, kTag, comm,
                &reqs.back());
    }
    for (int i = 0; i < ss; ++i) {
      const int dst = (me - ii - i + p) % p;
      if (dst == me) continue;
      reqs.emplace_back();
      MPI_Isend(sb + at(dst, bytes), static_cast<int>(bytes), MPI_BYTE, dst, kTag, comm,
                &reqs.back());
    }
    const int err = MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
    if (err != MPI_SUCCESS) return err;
  }
  return MPI_SUCCESS;
}

int mpich_pairwise(const char* sb, char* rb, long bytes, MPI_Comm comm) {
  int p, me;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &me);
  std::memcpy(rb + at(me, bytes), sb + at(me, bytes), static_cast<size_t>(bytes));
  const bool pof2 = (p & (p - 1)) == 0;
  for (int i = 1; i < p; ++i) {
    const int dst = pof2 ? me ^ i : (me + i) % p;
    const int src = pof2 ? me ^ i : (me - i + p) % p;
    const int err = MPI_Sendrecv(sb + at(dst, bytes), static_cast<int>(bytes), MPI_BYTE, dst, kTag,
                                 rb + at(src, bytes), static_cast<int>(bytes), MPI_BYTE, src, kTag,
                                 comm, MPI_STATUS_IGNORE);
    if (err != MPI_SUCCESS) return err;
  }
  return MPI_SUCCESS;
}

std::string mpich_default_choice(int p, long block_bytes, bool in_place) {
  // generic.json, collective=alltoall, comm_type=intra:
  //   is_sendbuf_inplace=yes: pairwise_sendrecv_replace
  //   comm_size<8:   avg_msg_size<=32768 scattered, else pairwise
  //   comm_size=any: avg_msg_size<=256 brucks, <=32768 scattered, else pairwise
  if (in_place) return "pairwise_sendrecv_replace";
  if (p < 8) return block_bytes <= 32768 ? "scattered" : "pairwise";
  if (block_bytes <= 256) return "brucks";
  if (block_bytes <= 32768) return "scattered";
  return "pairwise";
}

int run_mpich(const std::string& name, const char* sb, char* rb, long bytes, MPI_Comm comm) {
  if (name == "brucks") return mpich_brucks(sb, rb, bytes, comm);
  if (name == "scattered") return mpich_scattered(sb, rb, bytes, comm);
  if (name == "pairwise") return mpich_pairwise(sb, rb, bytes, comm);
  return MPI_ERR_ARG;
}

}  // namespace sim
