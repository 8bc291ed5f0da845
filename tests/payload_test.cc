// The test payload code (tests/payload.h): an exact int, and distinct where
// the MPI tests rely on it, at p >= 32 too (it once overflowed int there).
#include "tests/payload.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <vector>

namespace topoa2a::test {
namespace {

bool exact_int(double c) { return c >= 0 && c <= INT_MAX && static_cast<int>(c) == c; }

TEST(Payload, CodesAreExactIntsAndDistinctOverAllBlocks) {
  for (int p : {2, 32, 33, 64, 256}) {
    const long n = p <= 64 ? 512 : 32;
    std::vector<int> all;
    all.reserve(static_cast<size_t>(p) * p * n);
    for (int s = 0; s < p; ++s)
      for (int d = 0; d < p; ++d)
        for (long j = 0; j < n; ++j) {
          const double c = code(s, d, j);
          ASSERT_TRUE(exact_int(c)) << "p=" << p << " code(" << s << "," << d << "," << j << ")";
          all.push_back(static_cast<int>(c));
        }
    std::sort(all.begin(), all.end());
    EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "p=" << p;
  }
}

// One rank's receive buffer of long blocks (the preload tests send 2^16
// ints per block): distinct, and never the sentinel.
TEST(Payload, CodesAreDistinctWithinAReceiveBuffer) {
  const int p = 64;
  const long n = 1 << 16;
  for (int d : {0, 63}) {
    std::vector<int> mine;
    mine.reserve(static_cast<size_t>(p) * n);
    for (int s = 0; s < p; ++s)
      for (long j = 0; j < n; ++j) mine.push_back(static_cast<int>(code(s, d, j)));
    std::sort(mine.begin(), mine.end());
    EXPECT_EQ(std::adjacent_find(mine.begin(), mine.end()), mine.end()) << "d=" << d;
    EXPECT_FALSE(std::binary_search(mine.begin(), mine.end(), static_cast<int>(kSentinel)));
  }
}

}  // namespace
}  // namespace topoa2a::test
