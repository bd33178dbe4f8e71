#include <catch2/catch_test_macros.hpp>

#include "common/harness/stats.h"

using matmul::summarize;

TEST_CASE("median, min and max of timings") {
  const auto odd = summarize({5, 1, 4, 2, 3});
  CHECK(odd.median == 3);
  CHECK(odd.min == 1);
  CHECK(odd.max == 5);

  const auto even = summarize({4, 1, 3, 2});
  CHECK(even.median == 2.5);
  CHECK(summarize({7}).median == 7);
  CHECK_THROWS_AS(summarize({}), std::invalid_argument);
}

TEST_CASE("the median ignores one outlier launch") {
  std::vector<float> t(21, 1.0f);
  t[3] = 100.0f;
  CHECK(summarize(t).median == 1.0);
  CHECK(summarize(t).max == 100.0);
}

TEST_CASE("the spread is the middle 80% of the launches relative to the median") {
  std::vector<float> t;
  for (int i = 1; i <= 10; ++i) t.push_back(float(i));  // 1 .. 10
  const auto s = summarize(t);
  CHECK(s.p10 == 2);  // nearest rank: the sample at index 1
  CHECK(s.p90 == 10);  // index 9
  CHECK(s.spread_pct() == 100.0 * (10 - 2) / 5.5);
  CHECK(summarize(std::vector<float>(30, 2.0f)).spread_pct() == 0);
}
