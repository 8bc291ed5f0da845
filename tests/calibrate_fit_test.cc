// Unit tests of topoa2a-calibrate's arithmetic (calibrate/fit.h; no MPI).
#include <gtest/gtest.h>

#include <cmath>

#include "calibrate/fit.h"

namespace topoa2a {
namespace {

TEST(CalibrateFit, ExactLine) {
  const double ts = 0.4e-6, tw = 0.1e-9;
  std::vector<double> x, y;
  for (double m : {8.0, 512.0, 32768.0, 1048576.0}) {
    x.push_back(m);
    y.push_back(ts + m * tw);
  }
  const Line l = fit_line(x, y);
  ASSERT_TRUE(l.ok);
  EXPECT_NEAR(l.a, ts, 1e-12);
  EXPECT_NEAR(l.b, tw, 1e-18);
  EXPECT_NEAR(l.rms, 0, 1e-9);
}

TEST(CalibrateFit, RelativeWeightsKeepTheIntercept) {
  // 10% noise on the largest time would swamp the intercept of a plain
  // least-squares fit (0.1 x 100 us against 1 us); weighted by 1/y^2 the
  // small sizes decide it.
  const double ts = 1e-6, tw = 0.1e-9;
  std::vector<double> x = {8, 64, 512, 4096, 1 << 20}, y;
  for (double m : x) y.push_back(ts + m * tw);
  y.back() *= 1.1;
  const Line l = fit_line(x, y);
  ASSERT_TRUE(l.ok);
  EXPECT_NEAR(l.a, ts, 0.05 * ts);
  EXPECT_NEAR(l.b, tw, 0.15 * tw);
  EXPECT_GT(l.rms, 0);
}

TEST(CalibrateFit, Degenerate) {
  EXPECT_FALSE(fit_line({1}, {1}).ok);
  EXPECT_FALSE(fit_line({2, 2, 2}, {1, 2, 3}).ok);  // one distinct x
  EXPECT_FALSE(fit_line({1, 2}, {1, 0}).ok);        // a time of 0
  EXPECT_FALSE(fit_line({1, 2}, {1, NAN}).ok);
  EXPECT_FALSE(fit_line({1, 2}, {1}).ok);
}

TEST(CalibrateFit, Spread) {
  const Spread s = spread_of({3, 1, 2, 10});
  EXPECT_EQ(s.n, 4);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 10);
  EXPECT_DOUBLE_EQ(spread_of({5, 1, 4}).median, 4);
  EXPECT_EQ(spread_of({}).n, 0);
  EXPECT_EQ(format_spread(spread_of({0.4e-6, 0.5e-6, 0.45e-6}), 1e-6, "us"),
            "0.45us (0.4-0.5, 3 runs)");
}

TEST(CalibrateFit, SizeLadder) {
  EXPECT_EQ(size_ladder(64, 65536), (std::vector<size_t>{64, 256, 1024, 4096, 16384, 65536}));
  EXPECT_EQ(size_ladder(8, 100), (std::vector<size_t>{8, 32, 100}));
  EXPECT_EQ(size_ladder(5, 5), (std::vector<size_t>{5}));
  EXPECT_TRUE(size_ladder(0, 5).empty());
  EXPECT_TRUE(size_ladder(6, 5).empty());
  const std::vector<size_t> big = size_ladder(1, size_t{1} << 30);
  EXPECT_EQ(big.back(), size_t{1} << 30);
  EXPECT_EQ(big.size(), 16u);
}

TEST(CalibrateFit, LinkTwIsTheRateUnderLoad) {
  const Spread one = spread_of({51e-9});
  // K in flight slower than one message: the link's rate under load is written
  EXPECT_DOUBLE_EQ(link_tw(one, spread_of({84e-9, 85e-9, 86e-9})), 85e-9);
  // K in flight faster (several copies at once): one message's t_w stays
  EXPECT_DOUBLE_EQ(link_tw(one, spread_of({4e-9})), 51e-9);
  // not measured
  EXPECT_DOUBLE_EQ(link_tw(one, Spread{}), 51e-9);
}

}  // namespace
}  // namespace topoa2a
