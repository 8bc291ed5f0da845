// Test payloads and datatype cases for the MPI all-to-all tests.
//
// Element j of block (s -> d) carries code(s, d, j), so a misplaced,
// duplicated or missing element is caught; bytes a datatype skips hold a
// sentinel that must survive.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace topoa2a::test {

// The code is an int (int payloads store it): ((s * 256 + d) * 2^15 + j)
// modulo 2^31, computed in 64 bits. Distinct over all (s, d, j) with s, d <
// 256 and j < 2^15; within one receive buffer (d fixed) distinct for s <
// 256 and j < 2^23.
inline double code(int s, int d, long j) {
  const long long key = (static_cast<long long>(s) * 256 + d) * 32768 + j;
  return static_cast<double>(key & 0x7fffffffLL);
}
constexpr double kSentinel = -7.0;

// One side (send or receive) of a call: `count` elements of `type` per
// block; basic element j of a block sits at index pos(j) of an array of
// `elem` values (int or double) and a block spans `span` such values.
struct Side {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  int count = 0;
  long span = 0;
  long (*pos)(long j) = nullptr;
  bool is_double = false;
};

struct TypeCase {
  const char* name;
  long basic_per_count;  // basic elements per block = count * this
  // n: basic elements per block (the signature length).
  Side (*send)(long n);
  Side (*recv)(long n);
};

const std::vector<TypeCase>& type_cases();

// Buffer for p blocks of a side, filled with the sentinel.
struct Buffer {
  std::vector<int> ints;
  std::vector<double> doubles;
  void* data() { return ints.empty() ? static_cast<void*>(doubles.data()) : ints.data(); }
};

Buffer make_buffer(const Side& side, int p);
void put(Buffer& b, const Side& side, long index, double value);
double get(const Buffer& b, const Side& side, long index);

// Fill block d of `b` (layout `side`) with code(me, d, j).
void fill_send(Buffer& b, const Side& side, int p, int me, long n);
// Check the receive buffer: block s holds code(s, me, j); gaps hold the
// sentinel. Returns a description of the first few errors.
std::vector<std::string> check_recv(const Buffer& b, const Side& side, int p, int me, long n);

void free_side(Side& side);

// One MPI_Alltoall of n MPI_INTs per block on comm, with coded payloads;
// returns its error code, and what arrived wrong in *errors (empty: all
// right).
int int_alltoall(MPI_Comm comm, int n, std::vector<std::string>* errors);

}  // namespace topoa2a::test
