#include "tests/payload.h"

#include <sstream>

namespace topoa2a::test {
namespace {

long contiguous(long j) { return j; }
long vector_pos(long j) { return (j / 2) * 4 + (j % 2) * 3; }  // ints at 0 and 3 of 4
long resized_pos(long j) { return 3 * j; }                     // one int every 3

Side ints(long n) { return Side{MPI_INT, static_cast<int>(n), n, contiguous, false}; }
Side doubles(long n) { return Side{MPI_DOUBLE, static_cast<int>(n), n, contiguous, true}; }

// vector(2, 1, 3) of MPI_INT resized to 4 ints: n/2 elements; n even.
Side vector_side(long n) {
  MPI_Datatype v, t;
  MPI_Type_vector(2, 1, 3, MPI_INT, &v);
  MPI_Type_create_resized(v, 0, 4 * sizeof(int), &t);
  MPI_Type_free(&v);
  MPI_Type_commit(&t);
  return Side{t, static_cast<int>(n / 2), 4 * (n / 2), vector_pos, false};
}

Side resized_side(long n) {
  MPI_Datatype t;
  MPI_Type_create_resized(MPI_INT, 0, 3 * sizeof(int), &t);
  MPI_Type_commit(&t);
  return Side{t, static_cast<int>(n), 3 * n, resized_pos, false};
}

// contiguous(2, MPI_INT): n/2 elements of two ints, no gaps.
Side pair_side(long n) {
  MPI_Datatype t;
  MPI_Type_contiguous(2, MPI_INT, &t);
  MPI_Type_commit(&t);
  return Side{t, static_cast<int>(n / 2), n, contiguous, false};
}

}  // namespace

const std::vector<TypeCase>& type_cases() {
  static const std::vector<TypeCase> cases = {
      {"int", 1, ints, ints},
      {"double", 1, doubles, doubles},
      {"vector_to_int", 2, vector_side, ints},
      {"int_to_resized", 1, ints, resized_side},
      {"pair_to_int", 2, pair_side, ints},
  };
  return cases;
}

Buffer make_buffer(const Side& side, int p) {
  Buffer b;
  const size_t n = static_cast<size_t>(side.span) * p + 1;
  if (side.is_double)
    b.doubles.assign(n, kSentinel);
  else
    b.ints.assign(n, static_cast<int>(kSentinel));
  return b;
}

void put(Buffer& b, const Side& side, long index, double value) {
  if (side.is_double)
    b.doubles[index] = value;
  else
    b.ints[index] = static_cast<int>(value);
}

double get(const Buffer& b, const Side& side, long index) {
  return side.is_double ? b.doubles[index] : b.ints[index];
}

void fill_send(Buffer& b, const Side& side, int p, int me, long n) {
  for (int d = 0; d < p; ++d)
    for (long j = 0; j < n; ++j) put(b, side, d * side.span + side.pos(j), code(me, d, j));
}

std::vector<std::string> check_recv(const Buffer& b, const Side& side, int p, int me, long n) {
  std::vector<std::string> errors;
  const long total = side.span * p + 1;
  std::vector<char> expected(total, 0);
  for (int s = 0; s < p && errors.size() < 5; ++s) {
    for (long j = 0; j < n; ++j) {
      const long at = s * side.span + side.pos(j);
      expected[at] = 1;
      const double got = get(b, side, at), want = code(s, me, j);
      if (got != want && errors.size() < 5) {
        std::ostringstream os;
        os << "block from " << s << " element " << j << ": got " << got << " want " << want;
        errors.push_back(os.str());
      }
    }
  }
  for (long i = 0; i < total && errors.size() < 5; ++i)
    if (!expected[i] && get(b, side, i) != kSentinel)
      errors.push_back("gap at index " + std::to_string(i) + " was overwritten");
  return errors;
}

void free_side(Side& side) {
  int nints, naddrs, ntypes, combiner;
  MPI_Type_get_envelope(side.type, &nints, &naddrs, &ntypes, &combiner);
  if (combiner != MPI_COMBINER_NAMED) MPI_Type_free(&side.type);
}

int int_alltoall(MPI_Comm comm, int n, std::vector<std::string>* errors) {
  int p = 0, me = 0;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &me);
  Side side{MPI_INT, n, n, [](long j) { return j; }, false};
  Buffer sb = make_buffer(side, p), rb = make_buffer(side, p);
  fill_send(sb, side, p, me, n);
  const int err = MPI_Alltoall(sb.data(), n, MPI_INT, rb.data(), n, MPI_INT, comm);
  *errors = check_recv(rb, side, p, me, n);
  return err;
}

}  // namespace topoa2a::test
